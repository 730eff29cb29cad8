/*
 * --query / --query-file: SQL over the loaded trace (sql.h), its results
 * printed as an aligned table, TSV, CSV or JSON.
 *
 * The statements of the text run one after the other; each that returns
 * rows prints them (tables separated by a blank line; JSON Lines, one
 * array of the rows on one line per statement, so that the output of one
 * statement is one JSON document and that of several one per line). A
 * bad statement stops with SQLite's message and where it is; Ctrl-C stops
 * a statement being prepared or run, and the printing of a cell (exit
 * 130).
 *
 * A cell may hold up to a gigabyte. TSV, CSV and JSON write every byte of
 * it, escaped a chunk at a time straight from SQLite's value (never
 * copied whole), with Ctrl-C polled between chunks. The aligned table is
 * for reading: a cell shows its first TABLE_CELL_MAX bytes, then its
 * length ("... (N bytes)"), so columns are measured and padded over
 * bounded text, and the rows held for measuring are bounded in bytes too.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>
#ifdef HAVE___FPURGE
#include <stdio_ext.h>
#endif

#include "argtext.h"
#include "cli.h"
#include "escape.h"
#include "mapfile.h"
#include "sql.h"
#include "xalloc.h"

enum { EXIT_BAD_QUERY = 2, EXIT_INTERRUPTED = 130 };

/* The aligned table measures this many rows for its column widths; later
 * rows are printed as they come, wider cells pushing their line out. */
#define TABLE_MEASURE_ROWS 1000
/* ... or fewer: as many as TABLE_HOLD_CELLS cells (a result may have
 * 2000 columns), and once their cells hold TABLE_HOLD_MAX bytes. */
#define TABLE_HOLD_CELLS ((size_t)1 << 18)
#define TABLE_HOLD_MAX ((size_t)8 << 20)
/* Bytes of a value an aligned table's cell shows (a blob: half as many,
 * in hex). */
#define TABLE_CELL_MAX 4096
/* Values are escaped and written this many bytes at a time. */
#define CHUNK ((size_t)64 << 10)
/* A query file larger than this is surely not SQL. */
#define QUERY_FILE_MAX ((size_t)64 << 20)
/* An error's line is shown this many bytes either side of the place. */
#define ERROR_LINE_BEFORE 120
#define ERROR_LINE_AFTER 80

/* What Ctrl-C stops (set while a text runs): the connection, and the
 * output, whose descriptor then becomes /dev/null's. */
static struct sql *interrupt_conn;
static int interrupt_out = -1, interrupt_null = -1;

/* A write blocked on a reader that stopped reading would never return,
 * whatever flag is set: on /dev/null it ends at once, and what is left
 * of the output is dropped anyway. */
static void
on_interrupt(int sig)
{
	int e = errno;
	(void)sig;
	if (interrupt_conn != NULL)
		sql_cancel(interrupt_conn);
	if (interrupt_out >= 0 && interrupt_null >= 0)
		dup2(interrupt_null, interrupt_out);
	errno = e;
}

/* Display width of UTF-8 text (escaped: valid, no controls). */
static size_t
text_width(const char *s)
{
	size_t w = 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (size_t len = strlen(s); len > 0;) {
		if ((unsigned char)*s < 0x80) {
			/* escaped: printable ASCII, one column */
			w++;
			s++;
			len--;
			continue;
		}
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

/* How much of p[0..n) to take, at most max bytes (max >= 4): never
 * inside a UTF-8 sequence, whose halves escape_text would take for
 * invalid bytes. */
static size_t
take(const unsigned char *p, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t e = max;
	while (e > max - 3 && (p[e] & 0xc0) == 0x80)
		e--;
	return e;
}

/* ---------------------------------------------------------------- cells */

/* A value as SQLite holds it: text (numbers as SQLite writes them), or a
 * blob; p is NULL for NULL. */
struct cell {
	int type;
	const unsigned char *p;
	size_t n;
};

/* False when SQLite could not give the value (out of memory: at its heap
 * limit, a zeroblob or a conversion to text needs the value whole). */
static bool
cell_get(sqlite3_stmt *st, int col, struct cell *c)
{
	static const unsigned char empty[1];
	c->type = sqlite3_column_type(st, col);
	c->p = NULL;
	c->n = 0;
	if (c->type == SQLITE_NULL)
		return true;
	c->p = c->type == SQLITE_BLOB ? sqlite3_column_blob(st, col) :
	    sqlite3_column_text(st, col);
	c->n = (size_t)sqlite3_column_bytes(st, col);
	if (c->p == NULL) {
		/* an empty blob, or a failure */
		c->p = empty;
		c->n = 0;
		return (sqlite3_errcode(sqlite3_db_handle(st)) & 0xff) !=
		    SQLITE_NOMEM;
	}
	return true;
}

/* What writes the cells: the output, the connection whose cancel flag is
 * polled between chunks, and room for one chunk escaped. */
struct printer {
	struct sql *s;
	FILE *out;
	enum query_format fmt;
	bool guard;		/* --spreadsheet-safe: ' before a formula */
	char *buf;		/* 4 * CHUNK + 1 */
};

/* The length of the run of printable ASCII at p (at most max bytes)
 * that needs no escape: in TSV and CSV text none but the backslash (and
 * in a quoted CSV cell, the quote); in JSON neither. */
static size_t
plain_run(const unsigned char *p, size_t max, bool quote)
{
	size_t i = 0;
	while (i < max && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' &&
	    !(quote && p[i] == '"'))
		i++;
	return i;
}

/* Writes p[0..n) escaped for a terminal (escape.h), a chunk at a time;
 * CSV doubles the quotes. SQLITE_INTERRUPT when stopped. */
static int
put_text(struct printer *pr, const unsigned char *p, size_t n, bool csv)
{
	while (n > 0) {
		size_t k = plain_run(p, n < CHUNK ? n : CHUNK, csv);
		if (k > 0) {
			/* most text: as it is, without a copy */
			fwrite(p, 1, k, pr->out);
			p += k;
			n -= k;
			if (sql_cancel_requested(pr->s))
				return SQLITE_INTERRUPT;
			continue;
		}
		k = take(p, n, CHUNK);
		size_t len = escape_text((const char *)p, k, pr->buf,
		    4 * CHUNK + 1);
		const char *b = pr->buf, *end = pr->buf + len, *q;
		while (csv && (q = memchr(b, '"', (size_t)(end - b))) != NULL) {
			fwrite(b, 1, (size_t)(q - b) + 1, pr->out);
			putc('"', pr->out);
			b = q + 1;
		}
		fwrite(b, 1, (size_t)(end - b), pr->out);
		p += k;
		n -= k;
		if (sql_cancel_requested(pr->s))
			return SQLITE_INTERRUPT;
	}
	return SQLITE_OK;
}

/* Writes p[0..n) in hex, a chunk at a time. */
static int
put_hex(struct printer *pr, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	while (n > 0) {
		size_t k = n < CHUNK ? n : CHUNK;
		for (size_t i = 0; i < k; i++) {
			pr->buf[2 * i] = hex[p[i] >> 4];
			pr->buf[2 * i + 1] = hex[p[i] & 15];
		}
		fwrite(pr->buf, 1, 2 * k, pr->out);
		p += k;
		n -= k;
		if (sql_cancel_requested(pr->s))
			return SQLITE_INTERRUPT;
	}
	return SQLITE_OK;
}

/* Writes text as the inside of a JSON string, a chunk at a time (a NUL
 * byte as \u0000: escape_json stops at one). */
static int
put_json_text(struct printer *pr, const unsigned char *p, size_t n)
{
	while (n > 0) {
		if (*p == '\0') {
			fputs("\\u0000", pr->out);
			p++;
			n--;
			continue;
		}
		size_t k = plain_run(p, n < CHUNK ? n : CHUNK, true);
		if (k > 0) {
			fwrite(p, 1, k, pr->out);
		} else {
			const unsigned char *nul = memchr(p, '\0',
			    n < CHUNK ? n : CHUNK);
			k = nul != NULL ? (size_t)(nul - p) : take(p, n, CHUNK);
			memcpy(pr->buf, p, k);
			pr->buf[k] = '\0';
			escape_json(pr->buf, pr->out);
		}
		p += k;
		n -= k;
		if (sql_cancel_requested(pr->s))
			return SQLITE_INTERRUPT;
	}
	return SQLITE_OK;
}

/* A cell of TSV (text escaped, a blob as X'hex') or CSV (the same, quoted
 * when it holds a comma or a quote); with guard, text a spreadsheet would
 * take for a formula gets a ' first (--spreadsheet-safe). */
static int
put_delimited(struct printer *pr, const struct cell *c, bool guard)
{
	if (c->type == SQLITE_NULL)
		return SQLITE_OK;
	if (c->type == SQLITE_BLOB) {
		fputs("X'", pr->out);
		int rc = put_hex(pr, c->p, c->n);
		putc('\'', pr->out);
		return rc;
	}
	bool quote = pr->fmt == QUERY_CSV && (memchr(c->p, ',', c->n) ||
	    memchr(c->p, '"', c->n));
	if (quote)
		putc('"', pr->out);
	if (guard && c->n > 0 && escape_is_formula((const char *)c->p))
		putc('\'', pr->out);
	int rc = put_text(pr, c->p, c->n, quote);
	if (quote)
		putc('"', pr->out);
	return rc;
}

static int
put_json_value(struct printer *pr, sqlite3_stmt *st, int col,
    const struct cell *c)
{
	switch (c->type) {
	case SQLITE_NULL:
		fputs("null", pr->out);
		return SQLITE_OK;
	case SQLITE_INTEGER:
		fprintf(pr->out, "%lld",
		    (long long)sqlite3_column_int64(st, col));
		return SQLITE_OK;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, col);
		char b[32];
		/* the shortest number that reads back to d */
		if (isfinite(d))
			fputs(real_text(d, b, sizeof b), pr->out);
		else
			fputs("null", pr->out);
		return SQLITE_OK;
	}
	case SQLITE_BLOB: {
		fputs("\"X'", pr->out);
		int rc = put_hex(pr, c->p, c->n);
		fputs("'\"", pr->out);
		return rc;
	}
	default: {
		putc('"', pr->out);
		int rc = put_json_text(pr, c->p, c->n);
		putc('"', pr->out);
		return rc;
	}
	}
}

/* The text an aligned table shows for a value: escaped, at most
 * TABLE_CELL_MAX bytes of it, then its length when it was cut. NULL for
 * NULL. Caller frees. */
static char *
table_text(const struct cell *c)
{
	static const char hex[] = "0123456789abcdef";
	if (c->type == SQLITE_NULL)
		return NULL;
	size_t m, o = 0;
	char *out;
	if (c->type == SQLITE_BLOB) {
		m = c->n < TABLE_CELL_MAX / 2 ? c->n : TABLE_CELL_MAX / 2;
		out = xmalloc(2 * m + 48);
		out[o++] = 'X';
		out[o++] = '\'';
		for (size_t i = 0; i < m; i++) {
			out[o++] = hex[c->p[i] >> 4];
			out[o++] = hex[c->p[i] & 15];
		}
		if (m < c->n)
			o += (size_t)sprintf(out + o, "...' (%zu bytes)", c->n);
		else
			out[o++] = '\'';
		out[o] = '\0';
		return out;
	}
	m = take(c->p, c->n, TABLE_CELL_MAX);
	out = xmalloc(4 * m + 48);
	o = escape_text((const char *)c->p, m, out, 4 * m + 1);
	if (m < c->n)
		sprintf(out + o, "... (%zu bytes)", c->n);
	return out;
}

/* A column's name for a table: bounded as a cell is. */
static char *
table_name(sqlite3_stmt *st, int col)
{
	const char *h = sqlite3_column_name(st, col);
	struct cell c = { SQLITE_TEXT, (const unsigned char *)(h ? h : ""),
	    strlen(h ? h : "") };
	return table_text(&c);
}

/* ----------------------------------------------------------------- table */

struct table {
	int ncols;
	char **names;		/* bounded, escaped */
	size_t *width;
	bool *right;		/* numbers are right-aligned */
	bool *typed;		/* a value other than NULL was seen */
	char **rows;		/* held rows: ncols cells each */
	size_t nrows, maxrows;
	size_t held;		/* bytes of the held cells */
	bool printed_head;
};

static void
put_cell(const char *s, size_t width, bool right, bool last, FILE *out)
{
	const char *v = s ? s : "NULL";
	size_t w = text_width(v);
	int pad = w < width ? (int)(width - w) : 0;
	if (right && pad > 0)
		fprintf(out, "%*s", pad, "");
	fputs(v, out);
	if (!right && !last && pad > 0)
		fprintf(out, "%*s", pad, "");
	if (!last)
		fputs("  ", out);
}

static void
table_flush(struct table *tb, FILE *out)
{
	if (!tb->printed_head) {
		for (int c = 0; c < tb->ncols; c++)
			put_cell(tb->names[c], tb->width[c], tb->right[c],
			    c == tb->ncols - 1, out);
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
	tb->held = 0;
}

/* Takes one row into the table; SQLITE_NOMEM when a value could not be
 * had. */
static int
table_row(struct table *tb, sqlite3_stmt *st, FILE *out)
{
	char **row = tb->rows + tb->nrows * (size_t)tb->ncols;
	for (int c = 0; c < tb->ncols; c++) {
		struct cell cl;
		if (!cell_get(st, c, &cl)) {
			for (int k = 0; k < c; k++)
				free(row[k]);
			return SQLITE_NOMEM;
		}
		char *v = table_text(&cl);
		/* a column of numbers (NULLs aside) is right-aligned, any
		 * other left */
		if (!tb->printed_head && cl.type != SQLITE_NULL) {
			bool num = cl.type == SQLITE_INTEGER ||
			    cl.type == SQLITE_FLOAT;
			if (!tb->typed[c])
				tb->right[c] = num;
			else if (!num)
				tb->right[c] = false;
			tb->typed[c] = true;
		}
		if (!tb->printed_head) {
			size_t w = text_width(v ? v : "NULL");
			if (w > tb->width[c])
				tb->width[c] = w;
		}
		tb->held += v ? strlen(v) : 0;
		row[c] = v;
	}
	if (++tb->nrows == tb->maxrows || tb->held >= TABLE_HOLD_MAX)
		table_flush(tb, out);
	return SQLITE_OK;
}

/* -------------------------------------------------------------- formats */

/* The header line of TSV or CSV. */
static int
put_header(struct printer *pr, sqlite3_stmt *st, int ncols)
{
	for (int c = 0; c < ncols; c++) {
		const char *h = sqlite3_column_name(st, c);
		struct cell cl = { SQLITE_TEXT, (const unsigned char *)(h ?
		    h : ""), strlen(h ? h : "") };
		if (c > 0)
			putc(pr->fmt == QUERY_TSV ? '\t' : ',', pr->out);
		int rc = put_delimited(pr, &cl, false);
		if (rc != SQLITE_OK)
			return rc;
	}
	putc('\n', pr->out);
	return SQLITE_OK;
}

/* One row of TSV, CSV or JSON. */
static int
put_row(struct printer *pr, sqlite3_stmt *st, int ncols, size_t nrows)
{
	int rc = SQLITE_OK;
	if (pr->fmt == QUERY_JSON)
		fputs(nrows == 0 ? "{" : ",{", pr->out);
	for (int c = 0; c < ncols && rc == SQLITE_OK; c++) {
		struct cell cl;
		if (!cell_get(st, c, &cl))
			return SQLITE_NOMEM;
		if (pr->fmt == QUERY_JSON) {
			const char *h = sqlite3_column_name(st, c);
			fputs(c ? ",\"" : "\"", pr->out);
			rc = put_json_text(pr, (const unsigned char *)(h ? h :
			    ""), strlen(h ? h : ""));
			fputs("\":", pr->out);
			if (rc == SQLITE_OK)
				rc = put_json_value(pr, st, c, &cl);
		} else {
			if (c > 0)
				putc(pr->fmt == QUERY_TSV ? '\t' : ',',
				    pr->out);
			rc = put_delimited(pr, &cl, pr->guard &&
			    cl.type == SQLITE_TEXT);
		}
	}
	putc(pr->fmt == QUERY_JSON ? '}' : '\n', pr->out);
	return rc;
}

/* Prints the rows of one statement; returns SQLITE_DONE, the step's
 * error, SQLITE_NOMEM when a value could not be had, or SQLITE_INTERRUPT
 * when stopped while printing. */
static int
print_rows(struct printer *pr, sqlite3_stmt *st, bool first)
{
	FILE *out = pr->out;
	int ncols = sqlite3_column_count(st);
	struct table tb = { .ncols = ncols };
	int rc = SQLITE_OK;
	size_t nrows = 0;
	if (!first && pr->fmt != QUERY_JSON)
		putc('\n', out);
	if (pr->fmt == QUERY_TABLE) {
		tb.names = xcalloc((size_t)ncols, sizeof *tb.names);
		tb.width = xcalloc((size_t)ncols, sizeof *tb.width);
		tb.right = xcalloc((size_t)ncols, sizeof *tb.right);
		tb.typed = xcalloc((size_t)ncols, sizeof *tb.typed);
		tb.maxrows = TABLE_HOLD_CELLS / (size_t)(ncols ? ncols : 1);
		if (tb.maxrows > TABLE_MEASURE_ROWS)
			tb.maxrows = TABLE_MEASURE_ROWS;
		if (tb.maxrows == 0)
			tb.maxrows = 1;
		tb.rows = xcalloc((size_t)ncols * tb.maxrows, sizeof *tb.rows);
		for (int c = 0; c < ncols; c++) {
			tb.names[c] = table_name(st, c);
			tb.width[c] = text_width(tb.names[c]);
		}
	} else if (pr->fmt == QUERY_JSON) {
		fputs("[", out);
	} else {
		rc = put_header(pr, st, ncols);
	}
	while (rc == SQLITE_OK) {
		if ((rc = sqlite3_step(st)) != SQLITE_ROW)
			break;
		rc = pr->fmt == QUERY_TABLE ? table_row(&tb, st, out) :
		    put_row(pr, st, ncols, nrows);
		nrows++;
		if (rc == SQLITE_OK && sql_cancel_requested(pr->s))
			rc = SQLITE_INTERRUPT;
	}
	if (pr->fmt == QUERY_TABLE) {
		if (rc == SQLITE_DONE)
			table_flush(&tb, out);
		for (size_t r = 0; r < tb.nrows * (size_t)ncols; r++)
			free(tb.rows[r]);
		for (int c = 0; c < ncols; c++)
			free(tb.names[c]);
		free(tb.names);
		free(tb.rows);
		free(tb.width);
		free(tb.right);
		free(tb.typed);
	} else if (pr->fmt == QUERY_JSON && rc == SQLITE_DONE) {
		fputs("]\n", out);
	}
	return rc;
}

/* --------------------------------------------------------------- errors */

/* "ttv: query: MESSAGE", then the line of the statement where SQLite
 * stopped (at most ERROR_LINE_BEFORE/AFTER bytes either side of the
 * place), with a caret under the place. */
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
	const char *at = text + off, *line = at;
	while (line > text && line[-1] != '\n' &&
	    (size_t)(at - line) < ERROR_LINE_BEFORE)
		line--;
	while (line < at && ((unsigned char)*line & 0xc0) == 0x80)
		line++;		/* not half a character */
	size_t pre = (size_t)(at - line);
	size_t len = pre + take((const unsigned char *)at, strcspn(at, "\n"),
	    ERROR_LINE_AFTER);
	char *e = xmalloc(4 * len + 1), *p = xmalloc(4 * pre + 1);
	escape_text(line, len, e, 4 * len + 1);
	escape_text(line, pre, p, 4 * pre + 1);
	fprintf(stderr, "  %s\n  %*s^\n", e, (int)text_width(p), "");
	free(e);
	free(p);
}

/* Reads a query file. Only a regular file: it is opened without waiting
 * (a FIFO would block the open, a device the reads) and refused by what
 * fstat says of what was opened, as trace files are (mapfile.c). */
static char *
read_query_file(const char *path, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file (%s): only files are "
		    "read", path, mapfile_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > QUERY_FILE_MAX) {
		*err = xasprintf("%s: larger than %zu bytes", path,
		    QUERY_FILE_MAX);
		close(fd);
		return NULL;
	}
	/* to its end, whatever its size said (a file of /proc says 0) */
	size_t cap = (size_t)st.st_size + 4096, n = 0;
	char *buf = xmalloc(cap + 1);
	ssize_t got = 0;
	for (;;) {
		if (n == cap) {
			if (cap > QUERY_FILE_MAX)
				break;
			buf = xrealloc(buf, (cap *= 2) + 1);
		}
		got = read(fd, buf + n, cap - n);
		if (got > 0)
			n += (size_t)got;
		else if (got == 0 || errno != EINTR)
			break;
	}
	int e = errno;
	close(fd);
	if (got < 0 || n > QUERY_FILE_MAX) {
		*err = got < 0 ? xasprintf("%s: %s", path, strerror(e)) :
		    xasprintf("%s: larger than %zu bytes", path,
		    QUERY_FILE_MAX);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (memchr(buf, 0, n) != NULL) {
		*err = xasprintf("%s: not a text file", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---------------------------------------------------------------- entry */

/* Says that Ctrl-C stopped the query. What the output still holds is
 * dropped: it may never be read (a stalled pipe), and the rest went to
 * /dev/null. */
static int
interrupted(FILE *out)
{
#ifdef HAVE___FPURGE
	__fpurge(out);
#endif
	clearerr(out);
	fputs("ttv: query interrupted\n", stderr);
	return EXIT_INTERRUPTED;
}

int
cli_query_run(struct sql *s, const char *text, enum query_format fmt,
    bool guard, FILE *out)
{
	const char *rest = text;
	bool first = true;
	int status = 0;
	struct printer pr = { s, out, fmt, guard, xmalloc(4 * CHUNK + 1) };
	while (*rest != '\0') {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sql_cancel_requested(s) ? SQLITE_INTERRUPT :
		    sql_prepare(s, rest, &st, &tail);
		if (rc == SQLITE_OK && st == NULL) {	/* a comment */
			rest = tail;
			continue;
		}
		if (rc == SQLITE_OK) {
			if (sqlite3_column_count(st) > 0) {
				rc = print_rows(&pr, st, first);
				first = false;
			} else {
				while ((rc = sqlite3_step(st)) == SQLITE_ROW)
					;
			}
		}
		/* Ctrl-C wins over what it caused (a failed write) */
		if (rc != SQLITE_DONE && sql_cancel_requested(s))
			rc = SQLITE_INTERRUPT;
		if (rc == SQLITE_DONE) {
			sqlite3_finalize(st);
			rest = tail;
			continue;
		}
		if ((rc & 0xff) == SQLITE_INTERRUPT) {
			status = interrupted(out);
		} else {
			/* a run-time error has no place in the text: say
			 * which statement; out of memory says its limit */
			report(s, text, rest);
			status = EXIT_BAD_QUERY;
		}
		sqlite3_finalize(st);
		break;
	}
	free(pr.buf);
	return status;
}

int
cli_query(const struct trace *t, const struct selection *sel,
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
	/* without a range: TTV_NS_MIN .. TTV_NS_MAX, every slice and event */
	struct sql_view v = { .filter = &sel->f, .t0 = sel->t0,
	    .t1 = sel->t1 };
	struct sql *s = sql_open(t, &v, &err);
	if (s == NULL) {
		fputs("ttv: ", stderr);
		escape_fputs(err, stderr);
		putc('\n', stderr);
		free(err);
		free(owned);
		return EXIT_BAD_QUERY;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	interrupt_conn = s;
	interrupt_out = fileno(out);
	interrupt_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	sigaction(SIGINT, &sa, &old);
	int status = cli_query_run(s, text, o->format, o->guard, out);
	sigaction(SIGINT, &old, NULL);
	/* Ctrl-C after the last row: the output went to /dev/null from then
	 * on, so it is not whole */
	if (status == 0 && sql_cancel_requested(s))
		status = interrupted(out);
	interrupt_conn = NULL;
	interrupt_out = -1;
	if (interrupt_null >= 0)
		close(interrupt_null);
	interrupt_null = -1;
	sql_close(s);
	free(owned);
	return status;
}
