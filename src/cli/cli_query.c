/*
 * --query / --query-file: SQL over the loaded trace (sql.h), its results
 * printed as an aligned table, TSV, CSV or JSON.
 *
 * The statements of the text run one after the other; each that returns
 * rows prints them (tables separated by a blank line, JSON as one array
 * per statement). A bad statement stops with SQLite's message and where
 * it is; Ctrl-C stops a running one.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"
#include "escape.h"
#include "sql.h"
#include "xalloc.h"

enum { EXIT_BAD_QUERY = 2, EXIT_INTERRUPTED = 130 };

/* The aligned table measures this many rows for its column widths; later
 * rows are printed as they come, wider cells pushing their line out. */
#define TABLE_MEASURE_ROWS 1000
/* A query file larger than this is surely not SQL. */
#define QUERY_FILE_MAX ((size_t)64 << 20)

static volatile sig_atomic_t *cancel_flag;

static void
on_interrupt(int sig)
{
	(void)sig;
	if (cancel_flag != NULL)
		*cancel_flag = 1;
}

/* The text of a cell, escaped for a terminal: control characters and
 * invalid UTF-8 never reach the output raw. Caller frees. */
static char *
cell_text(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_BLOB: {
		const unsigned char *b = sqlite3_column_blob(st, col);
		size_t n = (size_t)sqlite3_column_bytes(st, col);
		char *out = xmalloc(2 * n + 4);
		static const char hex[] = "0123456789abcdef";
		size_t o = 0;
		out[o++] = 'X';
		out[o++] = '\'';
		for (size_t i = 0; i < n; i++) {
			out[o++] = hex[b[i] >> 4];
			out[o++] = hex[b[i] & 15];
		}
		out[o++] = '\'';
		out[o] = '\0';
		return out;
	}
	default: {
		const char *s = (const char *)sqlite3_column_text(st, col);
		size_t n = (size_t)sqlite3_column_bytes(st, col);
		char *out = xmalloc(4 * n + 1);
		escape_text(s ? s : "", n, out, 4 * n + 1);
		return out;
	}
	}
}

/* Display width of UTF-8 text (escaped: valid, no controls). */
static size_t
text_width(const char *s)
{
	size_t w = 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (size_t len = strlen(s); len > 0;) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, len, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			/* not a UTF-8 locale: a character per lead byte */
			for (; len > 0; s++, len--)
				w += ((unsigned char)*s & 0xc0) != 0x80;
			break;
		}
		int cw = wcwidth(wc);
		w += cw < 0 ? 1 : (size_t)cw;
		s += n;
		len -= n;
	}
	return w;
}

/* ----------------------------------------------------------------- table */

struct table {
	int ncols;
	size_t *width;
	bool *right;		/* numbers are right-aligned */
	bool *typed;		/* a value other than NULL was seen */
	char **rows;		/* measured rows: ncols cells each */
	size_t nrows;
	bool printed_head;
};

static void
put_cell(const char *s, size_t width, bool right, bool last, FILE *out)
{
	const char *v = s ? s : "NULL";
	size_t w = text_width(v);
	size_t pad = w < width ? width - w : 0;
	if (right)
		for (size_t i = 0; i < pad; i++)
			putc(' ', out);
	fputs(v, out);
	if (!right && !last)
		for (size_t i = 0; i < pad; i++)
			putc(' ', out);
	if (!last)
		fputs("  ", out);
}

static void
table_flush(struct table *tb, sqlite3_stmt *st, FILE *out)
{
	if (!tb->printed_head) {
		for (int c = 0; c < tb->ncols; c++) {
			char *h = xstrdup(sqlite3_column_name(st, c) ?
			    sqlite3_column_name(st, c) : "");
			char *e = xmalloc(4 * strlen(h) + 1);
			escape_text(h, strlen(h), e, 4 * strlen(h) + 1);
			put_cell(e, tb->width[c], tb->right[c],
			    c == tb->ncols - 1, out);
			free(h);
			free(e);
		}
		putc('\n', out);
		for (int c = 0; c < tb->ncols; c++) {
			for (size_t i = 0; i < tb->width[c]; i++)
				putc('-', out);
			if (c < tb->ncols - 1)
				fputs("  ", out);
		}
		putc('\n', out);
		tb->printed_head = true;
	}
	for (size_t r = 0; r < tb->nrows; r++) {
		for (int c = 0; c < tb->ncols; c++) {
			char *v = tb->rows[r * (size_t)tb->ncols + c];
			put_cell(v, tb->width[c], tb->right[c],
			    c == tb->ncols - 1, out);
			free(v);
		}
		putc('\n', out);
	}
	tb->nrows = 0;
}

/* -------------------------------------------------------------- formats */

static void
put_csv(const char *v, FILE *out)
{
	if (v == NULL)
		return;
	if (strpbrk(v, ",\"") == NULL) {
		fputs(v, out);
		return;
	}
	putc('"', out);
	for (; *v; v++) {
		if (*v == '"')
			putc('"', out);
		putc(*v, out);
	}
	putc('"', out);
}

static void
put_json_value(sqlite3_stmt *st, int c, FILE *out)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		fputs("null", out);
		break;
	case SQLITE_INTEGER:
		fprintf(out, "%lld", (long long)sqlite3_column_int64(st, c));
		break;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, c);
		if (isfinite(d))
			fprintf(out, "%.17g", d);
		else
			fputs("null", out);
		break;
	}
	case SQLITE_BLOB: {
		char *v = cell_text(st, c);
		fprintf(out, "\"%s\"", v);
		free(v);
		break;
	}
	default:
		putc('"', out);
		escape_json((const char *)sqlite3_column_text(st, c), out);
		putc('"', out);
		break;
	}
}

/* Prints the rows of one statement; returns its step result. */
static int
print_rows(sqlite3_stmt *st, enum query_format fmt, bool guard, bool first,
    FILE *out)
{
	int ncols = sqlite3_column_count(st);
	struct table tb = { .ncols = ncols };
	int rc;
	size_t nrows = 0;
	if (fmt == QUERY_TABLE) {
		tb.width = xcalloc((size_t)ncols, sizeof *tb.width);
		tb.right = xcalloc((size_t)ncols, sizeof *tb.right);
		tb.typed = xcalloc((size_t)ncols, sizeof *tb.typed);
		tb.rows = xcalloc((size_t)ncols * TABLE_MEASURE_ROWS,
		    sizeof *tb.rows);
		for (int c = 0; c < ncols; c++) {
			const char *h = sqlite3_column_name(st, c);
			tb.width[c] = text_width(h ? h : "");
		}
		if (!first)
			putc('\n', out);
	} else if (fmt == QUERY_JSON) {
		fputs("[", out);
	}
	if (fmt == QUERY_TSV || fmt == QUERY_CSV) {
		if (!first)
			putc('\n', out);
		for (int c = 0; c < ncols; c++) {
			const char *h = sqlite3_column_name(st, c);
			char *e = xmalloc(4 * strlen(h ? h : "") + 1);
			escape_text(h ? h : "", strlen(h ? h : ""), e,
			    4 * strlen(h ? h : "") + 1);
			if (c > 0)
				putc(fmt == QUERY_TSV ? '\t' : ',', out);
			if (fmt == QUERY_TSV)
				fputs(e, out);
			else
				put_csv(e, out);
			free(e);
		}
		putc('\n', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		switch (fmt) {
		case QUERY_TABLE:
			for (int c = 0; c < ncols; c++) {
				char *v = cell_text(st, c);
				/* a column of numbers (NULLs aside) is
				 * right-aligned, any other left */
				int type = sqlite3_column_type(st, c);
				if (!tb.printed_head && type != SQLITE_NULL) {
					bool num = type == SQLITE_INTEGER ||
					    type == SQLITE_FLOAT;
					if (!tb.typed[c])
						tb.right[c] = num;
					else if (!num)
						tb.right[c] = false;
					tb.typed[c] = true;
				}
				if (!tb.printed_head) {
					size_t w = text_width(v ? v : "NULL");
					if (w > tb.width[c])
						tb.width[c] = w;
				}
				tb.rows[tb.nrows * (size_t)ncols + c] = v;
			}
			if (++tb.nrows == TABLE_MEASURE_ROWS)
				table_flush(&tb, st, out);
			break;
		case QUERY_TSV:
		case QUERY_CSV:
			for (int c = 0; c < ncols; c++) {
				bool text = sqlite3_column_type(st, c) ==
				    SQLITE_TEXT;
				char *v = cell_text(st, c);
				if (guard && text && escape_is_formula(v)) {
					char *g = xasprintf("'%s", v);
					free(v);
					v = g;
				}
				if (c > 0)
					putc(fmt == QUERY_TSV ? '\t' : ',',
					    out);
				if (fmt == QUERY_TSV) {
					if (v)
						fputs(v, out);
				} else {
					put_csv(v, out);
				}
				free(v);
			}
			putc('\n', out);
			break;
		case QUERY_JSON:
			fputs(nrows == 0 ? "\n{" : ",\n{", out);
			for (int c = 0; c < ncols; c++) {
				const char *h = sqlite3_column_name(st, c);
				fputs(c ? ",\"" : "\"", out);
				escape_json(h ? h : "", out);
				fputs("\":", out);
				put_json_value(st, c, out);
			}
			putc('}', out);
			break;
		}
		nrows++;
	}
	if (fmt == QUERY_TABLE) {
		if (rc == SQLITE_DONE)
			table_flush(&tb, st, out);
		for (size_t r = 0; r < tb.nrows * (size_t)ncols; r++)
			free(tb.rows[r]);
		free(tb.rows);
		free(tb.width);
		free(tb.right);
		free(tb.typed);
	} else if (fmt == QUERY_JSON) {
		fputs(nrows ? "\n]\n" : "]\n", out);
	}
	return rc;
}

/* --------------------------------------------------------------- errors */

/* "ttv: query: MESSAGE", then the line of the statement where SQLite
 * stopped, with a caret under the place. */
static void
report(struct sql *s, const char *text, const char *stmt)
{
	fflush(stdout);
	char *msg = sql_errmsg(s, text, stmt);
	fputs("ttv: query: ", stderr);
	escape_fputs(msg, stderr);
	putc('\n', stderr);
	free(msg);
	long off = sql_error_offset(s, text, stmt);
	if (off < 0)
		return;
	const char *line = text + off;
	while (line > text && line[-1] != '\n')
		line--;
	size_t len = strcspn(line, "\n");
	size_t pre = (size_t)(text + off - line);
	char *e = xmalloc(4 * len + 1), *p = xmalloc(4 * pre + 1);
	escape_text(line, len, e, 4 * len + 1);
	escape_text(line, pre, p, 4 * pre + 1);
	fprintf(stderr, "  %s\n  %*s^\n", e, (int)text_width(p), "");
	free(e);
	free(p);
}

static char *
read_query_file(const char *path, char **err)
{
	FILE *fp = fopen(path, "r");
	if (fp == NULL) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
		n += got;
		if (n > QUERY_FILE_MAX) {
			*err = xasprintf("%s: larger than %zu bytes", path,
			    QUERY_FILE_MAX);
			free(buf);
			fclose(fp);
			return NULL;
		}
		if (cap - n - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	if (ferror(fp)) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		free(buf);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	if (memchr(buf, 0, n) != NULL) {
		*err = xasprintf("%s: not a text file", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---------------------------------------------------------------- entry */

int
cli_query_run(struct sql *s, const char *text, enum query_format fmt,
    bool guard, FILE *out)
{
	const char *rest = text;
	bool first = true;
	int status = 0;
	while (*rest != '\0') {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		if (sql_prepare(s, rest, &st, &tail) !=
		    SQLITE_OK) {
			report(s, text, rest);
			status = EXIT_BAD_QUERY;
			break;
		}
		if (st == NULL) {	/* blank or a comment */
			rest = tail;
			continue;
		}
		int rc;
		if (sqlite3_column_count(st) > 0) {
			rc = print_rows(st, fmt, guard, first, out);
			first = false;
		} else {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
		}
		if (rc != SQLITE_DONE) {
			if ((rc & 0xff) == SQLITE_INTERRUPT) {
				fputs("ttv: query interrupted\n", stderr);
				status = EXIT_INTERRUPTED;
			} else {
				/* a run-time error has no place in the text:
				 * say which statement */
				report(s, text, rest);
				status = EXIT_BAD_QUERY;
			}
			sqlite3_finalize(st);
			break;
		}
		sqlite3_finalize(st);
		rest = tail;
	}
	return status;
}

int
cli_query(const struct trace *t, const struct filter *f,
    const struct query_options *o, FILE *out)
{
	char *err = NULL, *owned = NULL;
	const char *text = o->sql;
	if (o->file != NULL) {
		if ((owned = read_query_file(o->file, &err)) == NULL) {
			fputs("ttv: ", stderr);
			escape_fputs(err, stderr);
			putc('\n', stderr);
			free(err);
			return EXIT_BAD_QUERY;
		}
		text = owned;
	}
	struct sql_view v = { .filter = f, .t0 = TTV_NS_MIN, .t1 = TTV_NS_MAX };
	if (o->has_range) {
		v.t0 = o->t0;
		v.t1 = o->t1;
	}
	struct sql *s = sql_open(t, &v, &err);
	if (s == NULL) {
		fprintf(stderr, "ttv: %s\n", err);
		free(err);
		free(owned);
		return 1;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	cancel_flag = sql_cancel_flag(s);
	sigaction(SIGINT, &sa, &old);
	int status = cli_query_run(s, text, o->format, o->guard, out);
	sigaction(SIGINT, &old, NULL);
	cancel_flag = NULL;
	sql_close(s);
	free(owned);
	return status;
}
