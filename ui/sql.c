/*
 * The SQL pane: the rows of a query typed as `:sql SELECT ...` (`s` opens
 * the prompt with the last query), run by src/sql.h over the view's
 * window and filters, so the results follow zooming and filtering: when
 * either changes, the query runs again.
 *
 * The query runs on the worker thread (jobs.h), for small traces too (a
 * query may never end); Esc stops it, running or being prepared
 * (sql_cancel). The connection belongs to the pane; while a job has it,
 * the pane does not touch it but to cancel. A bad query's message goes to
 * the status line, out of memory with SQLite's limit (sql.h).
 *
 * What is kept of a result is bounded: SQL_ROWS_MAX rows, SQL_KEEP_MAX
 * bytes of cells in all, and a cell of more than SQL_CELL_MAX bytes
 * keeps its start and its length ("abc... (1048576 bytes)"): the column
 * shows no more anyway.
 *
 * Enter on a row jumps to it: to the slice its `id` names (when its `ts`
 * agrees), else to its `ts` on the track its `track_id` or `utid` names,
 * else to its `ts`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "panes.h"
#include "sql.h"
#include "sqlpane.h"
#include "text.h"
#include "xalloc.h"

/* Rows kept of a result: enough to read, bounded in memory. */
#define SQL_ROWS_MAX 10000
/* Bytes of cells kept of a result, at most. */
#define SQL_KEEP_MAX ((size_t)8 << 20)
/* A cell longer than this keeps its first SQL_CELL_START bytes and its
 * length, which fit a column together. */
#define SQL_CELL_MAX 1024
#define SQL_CELL_START 20
/* Widest column shown, in cells. */
#define SQL_COL_MAX 40

enum { HAS_TS = 1, HAS_ID = 2, HAS_TRACK = 4, HAS_UTID = 8 };

/* Where a row can take the cursor. */
struct sql_jump {
	int64_t ts, id, track, utid;
	unsigned has;
};

/* One run: its inputs and what it found. */
struct sql_result {
	struct sql *conn;	/* borrowed from the pane */
	char *query;
	int ncols;
	char **names;		/* ncols */
	char **cells;		/* nrows * ncols, NULL for an SQL NULL */
	struct sql_jump *jump;	/* nrows */
	size_t nrows;
	bool truncated;		/* more rows than SQL_ROWS_MAX or than
				 * SQL_KEEP_MAX bytes of cells hold */
	bool cancelled;
	char *error;
	double ms;
	/* Display, computed when installed. */
	int *width;
	bool *numeric;
};

struct sql_pane {
	struct pane base;	/* base.pos: the selected row */
	struct sql *conn;
	char *query;
	struct sql_result *res;	/* shown */
	bool running;
	bool failed;		/* the last run failed or was stopped: it is
				 * not run again by itself */
	uint64_t gen;		/* the view's data_gen it ran for */
	bool rerun;		/* the view changed while it ran */
};

static void
result_free(void *arg)
{
	struct sql_result *r = arg;
	if (r == NULL)
		return;
	for (int c = 0; c < r->ncols; c++)
		free(r->names[c]);
	for (size_t i = 0; i < r->nrows * (size_t)r->ncols; i++)
		free(r->cells[i]);
	free(r->names);
	free(r->cells);
	free(r->jump);
	free(r->query);
	free(r->error);
	free(r->width);
	free(r->numeric);
	free(r);
}

static struct sql_pane *
sql_pane(const struct view *v)
{
	return (struct sql_pane *)v->panes[PANE_SQL];
}

/* ------------------------------------------------------------- the job */

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Which column, by name, can place the cursor. */
static unsigned
jump_column(const char *name)
{
	if (name == NULL)
		return 0;
	if (strcmp(name, "ts") == 0)
		return HAS_TS;
	if (strcmp(name, "id") == 0 || strcmp(name, "slice_id") == 0)
		return HAS_ID;
	if (strcmp(name, "track_id") == 0)
		return HAS_TRACK;
	if (strcmp(name, "utid") == 0)
		return HAS_UTID;
	return 0;
}

/* What the pane keeps of a cell's text s[0..n): the whole of a short
 * one; the start of a long one (not cut inside a UTF-8 sequence) and its
 * length. NULL for NULL. */
static char *
keep_cell(const char *s, size_t n)
{
	if (s == NULL)
		return NULL;
	const char *nul = memchr(s, '\0', n);
	if (n <= SQL_CELL_MAX || (nul != NULL && nul - s <= SQL_CELL_MAX))
		return xstrdup(s);	/* to a NUL, as the text shows */
	size_t k = SQL_CELL_START;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	char *c = xmalloc(k + 40);
	memcpy(c, s, k);
	snprintf(c + k, 40, "... (%zu bytes)", n);
	return c;
}

/* Runs on the worker (or here, for small traces): only this job uses
 * the connection meanwhile. */
static void
run_query(struct job *j)
{
	struct sql_result *r = j->arg;
	struct sql_view view = { .filter = &j->filter, .t0 = j->t0,
	    .t1 = j->t1 };
	double t0 = now_ms();
	sql_set_view(r->conn, &view);
	const char *rest = r->query;
	VEC(char *) cells = { 0 };
	VEC(struct sql_jump) jumps = { 0 };
	size_t kept = 0;
	while (*rest != '\0' && r->error == NULL) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int prc = sql_cancel_requested(r->conn) ? SQLITE_INTERRUPT :
		    sql_prepare(r->conn, rest, &st, &tail);
		if (prc != SQLITE_OK && ((prc & 0xff) == SQLITE_INTERRUPT ||
		    sql_cancel_requested(r->conn))) {
			r->cancelled = true;
			break;
		}
		if (prc != SQLITE_OK) {
			r->error = sql_errmsg(r->conn, r->query, rest);
			break;
		}
		if (st == NULL) {
			rest = tail;
			continue;
		}
		int ncols = sqlite3_column_count(st);
		bool keep = ncols > 0;
		if (keep) {
			/* the rows of the last statement that has some */
			for (size_t i = 0; i < cells.len; i++)
				free(cells.items[i]);
			cells.len = jumps.len = 0;
			kept = 0;
			for (int c = 0; c < r->ncols; c++)
				free(r->names[c]);
			free(r->names);
			r->ncols = ncols;
			r->names = xcalloc((size_t)ncols, sizeof *r->names);
			for (int c = 0; c < ncols; c++) {
				const char *n = sqlite3_column_name(st, c);
				r->names[c] = xstrdup(n ? n : "");
			}
			r->truncated = false;
		}
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && keep) {
			if (jumps.len == SQL_ROWS_MAX || kept > SQL_KEEP_MAX) {
				r->truncated = true;
				rc = SQLITE_DONE;
				break;
			}
			struct sql_jump jp = { 0 };
			for (int c = 0; c < ncols; c++) {
				int type = sqlite3_column_type(st, c);
				const char *s = (const char *)
				    sqlite3_column_text(st, c);
				size_t n = (size_t)sqlite3_column_bytes(st, c);
				if (s == NULL && type != SQLITE_NULL &&
				    (sqlite3_errcode(sql_db(r->conn)) & 0xff) ==
				    SQLITE_NOMEM) {
					/* at SQLite's memory limit */
					rc = SQLITE_NOMEM;
					break;
				}
				char *cell = keep_cell(s, n);
				kept += sizeof cell + (cell != NULL ?
				    strlen(cell) + 1 : 0);
				VEC_PUSH(&cells, cell);
				unsigned what = jump_column(r->names[c]);
				if (what == 0 || sqlite3_column_type(st, c) !=
				    SQLITE_INTEGER)
					continue;
				int64_t x = sqlite3_column_int64(st, c);
				jp.has |= what;
				if (what == HAS_TS)
					jp.ts = x;
				else if (what == HAS_ID)
					jp.id = x;
				else if (what == HAS_TRACK)
					jp.track = x;
				else
					jp.utid = x;
			}
			if (rc == SQLITE_NOMEM) {
				/* the cells of the row taken so far go */
				while (cells.len > jumps.len * (size_t)ncols)
					free(cells.items[--cells.len]);
				break;
			}
			VEC_PUSH(&jumps, jp);
		}
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			if ((rc & 0xff) == SQLITE_INTERRUPT)
				r->cancelled = true;
			else
				r->error = sql_errmsg(r->conn, r->query, rest);
		}
		sqlite3_finalize(st);
		rest = tail;
		if (r->cancelled)
			break;
	}
	r->cells = cells.items;
	r->jump = jumps.items;
	r->nrows = jumps.len;
	r->ms = now_ms() - t0;
}

static void install(struct job *j, struct view *v);

/* Starts the query for the view's current window and filters. */
static void
submit(struct sql_pane *p, struct view *v)
{
	char *err = NULL;
	if (p->conn == NULL &&
	    (p->conn = sql_open(v->trace, NULL, &err)) == NULL) {
		view_message(v, true, "sql: %s", err);
		free(err);
		return;
	}
	sql_cancel_clear(p->conn);
	struct sql_result *r = xcalloc(1, sizeof *r);
	r->conn = p->conn;
	r->query = xstrdup(p->query);
	struct job *j = job_new(p, v->trace, &v->filter, v->data_gen);
	/* the span (the range, or the window): the whole trace when all of
	 * it is in, so that nothing at its very end is cut */
	ttv_ns s0, s1;
	view_span(v, &s0, &s1);
	j->t0 = s0 <= v->trace->first ? TTV_NS_MIN : s0;
	j->t1 = s1 > v->trace->last ? TTV_NS_MAX : s1;
	j->run = run_query;
	j->install = install;
	j->arg = r;
	j->arg_free = result_free;
	p->running = true;
	p->rerun = false;
	p->gen = v->data_gen;
	/* on the worker whatever the trace's size: a query may run for
	 * ever, and Esc must reach it */
	jobs_submit(j);
}

static void
install(struct job *j, struct view *v)
{
	struct sql_pane *p = j->key;
	struct sql_result *r = j->arg;
	p->running = false;
	if (p->rerun) {
		/* out of date before it ended: run it again */
		submit(p, v);
		return;
	}
	j->arg = NULL;
	p->failed = r->error != NULL || r->cancelled;
	if (p->failed) {
		/* the rows shown would be another query's */
		result_free(p->res);
		p->res = NULL;
	}
	if (r->error != NULL) {
		view_message(v, true, "sql: %s", r->error);
		result_free(r);
		return;
	}
	if (r->cancelled) {
		view_message(v, false, "sql: query stopped (s edits it, "
		    "Enter runs it again)");
		result_free(r);
		return;
	}
	/* a column of numbers (NULLs aside) is right-aligned */
	r->numeric = xcalloc((size_t)r->ncols + 1, sizeof *r->numeric);
	for (int c = 0; c < r->ncols; c++)
		r->numeric[c] = r->nrows > 0;
	for (size_t i = 0; i < r->nrows; i++)
		for (int c = 0; c < r->ncols; c++) {
			const char *s = r->cells[i * (size_t)r->ncols + c];
			if (s != NULL) {
				char *end;
				(void)strtod(s, &end);
				if (*s == '\0' || *end != '\0')
					r->numeric[c] = false;
			}
		}
	result_free(p->res);
	p->res = r;
	p->base.pos.sel = p->base.pos.top = 0;
}

/* ------------------------------------------------------------- the api */

int
sql_pane_run(struct view *v, const char *query)
{
	struct sql_pane *p = sql_pane(v);
	while (*query == ' ')
		query++;
	if (*query == '\0') {
		view_message(v, true, "sql: no query (try :sql SELECT name, "
		    "COUNT(*) FROM slice GROUP BY name)");
		return PANE_REDRAW;
	}
	free(p->query);
	p->query = xstrdup(query);
	view_show_pane(v, PANE_SQL);
	if (p->running) {
		/* the connection is busy: stop that query, run this one
		 * when it has stopped */
		sql_cancel(p->conn);
		p->rerun = true;
		return PANE_REDRAW;
	}
	submit(p, v);
	return PANE_REDRAW;
}

const char *
sql_pane_query(const struct view *v)
{
	return sql_pane(v)->query;
}

static struct pane *
sql_create(struct view *v)
{
	struct sql_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	return &p->base;
}

static void
sql_free(struct pane *pane)
{
	struct sql_pane *p = (struct sql_pane *)pane;
	result_free(p->res);
	free(p->query);
	/* a job still running has the connection: it is stopped, and ends
	 * with the process (jobs_stop) */
	if (p->running)
		sql_cancel(p->conn);
	else
		sql_close(p->conn);
	free(p);
}

/* ---------------------------------------------------------------- pane */

static void
sql_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct sql_pane *p = (struct sql_pane *)pane;
	struct sql_result *res = p->res;
	struct list_pos *lp = &pane->pos;
	char buf[256];
	int rows = r.h - 3;

	/* the results follow the window and the filters */
	if (p->query != NULL && !p->running && !p->failed &&
	    p->gen != v->data_gen)
		submit(p, v);
	if (p->query == NULL) {
		pane_title(g, r, "SQL", "no query yet: press s or type :sql "
		    "SELECT ... (tables: man ttv-sql)");
		return;
	}
	if (p->running)
		snprintf(buf, sizeof buf, "running... (Esc stops it)");
	else if (p->failed)
		snprintf(buf, sizeof buf, "no rows: the query failed or was "
		    "stopped; s edits it");
	else if (res == NULL)
		snprintf(buf, sizeof buf, "no result");
	else {
		/* The tables see the slices that overlap the span, whole:
		 * unlike the functions pane's, their dur is not clipped. */
		char sp[128] = "", st[96];
		ttv_ns s0, s1;
		view_span(v, &s0, &s1);
		if (s0 > v->trace->first || s1 <= v->trace->last)
			snprintf(sp, sizeof sp, "; slices overlapping %s, "
			    "dur not clipped", view_span_text(v, st,
			    sizeof st));
		snprintf(buf, sizeof buf, "%s%zu row%s in %.1f ms%s; Enter "
		    "jumps to a row's ts, s edits the query",
		    res->truncated ? "first " : "", res->nrows,
		    res->nrows == 1 ? "" : "s", res->ms, sp);
	}
	pane_title(g, r, "SQL", buf);
	text_puts(g, r.x, r.y + 1, r.w, p->query, STYLE_DIM, 0);
	if (res == NULL || res->ncols == 0)
		return;
	if (res->width == NULL) {
		/* widths as the terminal shows the text (measured once) */
		res->width = xcalloc((size_t)res->ncols + 1,
		    sizeof *res->width);
		for (int c = 0; c < res->ncols; c++)
			res->width[c] = text_width(g, res->names[c],
			    strlen(res->names[c]), SQL_COL_MAX);
		for (size_t i = 0; i < res->nrows; i++)
			for (int c = 0; c < res->ncols; c++) {
				const char *s = res->cells[i *
				    (size_t)res->ncols + c];
				const char *shown = s ? s : "NULL";
				int w = text_width(g, shown, strlen(shown),
				    SQL_COL_MAX);
				if (w > res->width[c])
					res->width[c] = w;
			}
	}
	/* the header, then the rows */
	int x = r.x;
	for (int c = 0; c < res->ncols && x < r.x + r.w; c++) {
		int w = res->width[c];
		int lw = text_width(g, res->names[c], strlen(res->names[c]), w);
		int at = res->numeric[c] ? x + w - lw : x;
		text_puts(g, at, r.y + 2, r.x + r.w - at, res->names[c],
		    STYLE_TITLE, 0);
		x += w + 2;
	}
	list_clamp(lp, res->nrows, rows);
	for (int row = 0; row < rows && lp->top + (size_t)row < res->nrows;
	    row++) {
		size_t i = lp->top + (size_t)row;
		int y = r.y + 3 + row;
		int style = i == lp->sel ? STYLE_SELECTED : STYLE_NORMAL;
		if (i == lp->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		x = r.x;
		for (int c = 0; c < res->ncols && x < r.x + r.w; c++) {
			const char *s = res->cells[i * (size_t)res->ncols + c];
			int w = res->width[c];
			int lw = text_width(g, s ? s : "NULL", strlen(s ? s :
			    "NULL"), w);
			int at = res->numeric[c] ? x + w - lw : x;
			int room = r.x + r.w - at;
			text_puts(g, at, y, room < w ? room : w, s ? s :
			    "NULL", s ? style : (i == lp->sel ? style :
			    STYLE_DIM), 0);
			x += w + 2;
		}
	}
	if (res->nrows == 0)
		grid_puts(g, r.x, r.y + 3, r.w, "no rows", STYLE_DIM, 0);
}

/* Enter: the row's place in the timeline. */
static int
jump(struct sql_pane *p, struct view *v, const struct sql_jump *jp)
{
	const struct trace *t = v->trace;
	if (!(jp->has & HAS_TS)) {
		view_message(v, true, "sql: this row has no ts column to "
		    "jump to");
		return PANE_REDRAW;
	}
	struct slice_ref ref;
	if ((jp->has & HAS_ID) && p->conn != NULL &&
	    sql_id_slice(p->conn, jp->id, &ref)) {
		ttv_ns start = ref.depth == SEARCH_INSTANT ?
		    t->tracks[ref.track].instants[ref.index].t :
		    trace_slice(t, ref)->start;
		if (start == jp->ts) {
			v->folded[ref.track] = 0;
			if (ref.depth == SEARCH_INSTANT) {
				v->cursor_track = ref.track;
				view_goto_time(v, start);
			} else {
				view_set_cursor(v, ref);
				view_show_cursor(v);
			}
			view_show_pane(v, PANE_TIMELINE);
			view_message(v, false, "slice %lld", (long long)jp->id);
			return PANE_REDRAW | PANE_DATA;
		}
	}
	int64_t track = -1;
	if ((jp->has & HAS_TRACK) && jp->track >= 0 &&
	    jp->track < (int64_t)t->ntracks)
		track = jp->track;
	else if ((jp->has & HAS_UTID) && p->conn != NULL)
		track = sql_utid_track(p->conn, jp->utid);
	if (track >= 0) {
		v->cursor_track = (uint32_t)track;
		v->folded[track] = 0;
	}
	view_goto_time(v, jp->ts);
	view_show_pane(v, PANE_TIMELINE);
	return PANE_REDRAW | PANE_DATA;
}

static int
sql_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct sql_pane *p = (struct sql_pane *)pane;
	struct sql_result *res = p->res;
	size_t n = res != NULL ? res->nrows : 0;
	if (c == CMD_CLOSE) {
		if (p->running) {
			sql_cancel(p->conn);
			view_message(v, false, "sql: stopping the query");
			return PANE_REDRAW;
		}
		view_show_pane(v, PANE_TIMELINE);
		return PANE_REDRAW;
	}
	if (c != CMD_LIST_ENTER)
		return list_command(&pane->pos, n, c);
	if (pane->pos.sel >= n)
		return PANE_HANDLED;
	return jump(p, v, &res->jump[pane->pos.sel]);
}

static int
sql_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)x;
	struct sql_pane *p = (struct sql_pane *)pane;
	/* list_mouse counts rows from r.y + 2: this pane has one line more */
	r.y++;
	r.h--;
	return list_mouse(pane, v, &pane->pos, p->res ? p->res->nrows : 0,
	    r, y, b, sql_command);
}

const struct pane_class pane_sql = {
	.title = "SQL",
	.ctx = CTX_SQL,
	.hint = "? keys  s new query  Esc stop  1 timeline",
	.create = sql_create,
	.free = sql_free,
	.draw = sql_draw,
	.command = sql_command,
	.mouse = sql_mouse,
};
