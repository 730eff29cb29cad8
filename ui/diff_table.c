/*
 * The diff table: the rows of ttv --diff (per function, or per call path
 * with --by path) — calls, total time, the change and its status in each
 * trace, p50 and p99 where there is room — sorted by the change of any
 * --stats key with the functions pane's keys (s, S, r). Enter shows the
 * row's function in both traces (ui/diff_calls.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

struct diff_table_pane {
	struct pane base;	/* base.pos: the selected row */
	uint64_t gen;		/* the session's, of the rows shown */
};

/* The columns, in the order they give way on narrow screens (the name
 * takes what is left, NAME_MIN at least). */
enum col {
	COL_TOTAL_BASE, COL_TOTAL_NEW, COL_DELTA, COL_CHANGE, COL_STATUS,
	COL_CALLS_BASE, COL_CALLS_NEW, COL_P50_BASE, COL_P50_NEW,
	COL_P99_BASE, COL_P99_NEW, NCOLS
};
/* Their order on screen. */
static const enum col screen_order[NCOLS] = {
	COL_CALLS_BASE, COL_CALLS_NEW, COL_TOTAL_BASE, COL_TOTAL_NEW,
	COL_DELTA, COL_CHANGE, COL_STATUS, COL_P50_BASE, COL_P50_NEW,
	COL_P99_BASE, COL_P99_NEW,
};
static const char *const col_title[NCOLS] = {
	[COL_TOTAL_BASE] = "total base", [COL_TOTAL_NEW] = "total new",
	[COL_DELTA] = "delta", [COL_CHANGE] = "change",
	[COL_STATUS] = "status", [COL_CALLS_BASE] = "calls base",
	[COL_CALLS_NEW] = "calls new", [COL_P50_BASE] = "p50 base",
	[COL_P50_NEW] = "p50 new", [COL_P99_BASE] = "p99 base",
	[COL_P99_NEW] = "p99 new",
};
/* The --stats key a column's change sorts by (STATS_KEY_COUNT: none). */
static const enum stats_key col_key[NCOLS] = {
	[COL_TOTAL_BASE] = STATS_TOTAL, [COL_TOTAL_NEW] = STATS_TOTAL,
	[COL_DELTA] = STATS_TOTAL, [COL_CHANGE] = STATS_KEY_COUNT,
	[COL_STATUS] = STATS_KEY_COUNT, [COL_CALLS_BASE] = STATS_COUNT,
	[COL_CALLS_NEW] = STATS_COUNT, [COL_P50_BASE] = STATS_MEDIAN,
	[COL_P50_NEW] = STATS_MEDIAN, [COL_P99_BASE] = STATS_P99,
	[COL_P99_NEW] = STATS_P99,
};
#define COL_W 11
#define NAME_MIN 16

static struct pane *
table_create(struct view *v)
{
	struct diff_table_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->gen = UINT64_MAX;
	return &p->base;
}

static void
table_free(struct pane *pane)
{
	free(pane);
}

/* The rows of the session's table, the selection back on the first when
 * they are new. */
static struct diff *
rows(struct diff_table_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);

	if (p->gen != s->gen) {
		p->gen = s->gen;
		p->base.pos.sel = p->base.pos.top = 0;
	}
	return &s->table;
}

/* Which columns fit beside a name of NAME_MIN (paths get more room). */
static size_t
columns(int w, bool paths, enum col *out)
{
	size_t n = 0, k = 0;
	bool on[NCOLS] = { false };

	while (n < NCOLS && NAME_MIN + (paths ? 8 : 0) + (int)(n + 1) *
	    COL_W <= w) {
		/* paths have no percentiles */
		if (!(paths && n >= COL_P50_BASE))
			on[n] = true;
		n++;
	}
	/* a base's column goes with the new trace's */
	if (n > 0 && (n - 1 == COL_CALLS_BASE || n - 1 == COL_P50_BASE ||
	    n - 1 == COL_P99_BASE))
		on[n - 1] = false;
	for (size_t i = 0; i < NCOLS; i++)
		if (on[screen_order[i]])
			out[k++] = screen_order[i];
	return k;
}

static const char *
cell(const struct diff_row *r, enum col c, char *buf, size_t size)
{
	int s = c == COL_TOTAL_BASE || c == COL_CALLS_BASE ||
	    c == COL_P50_BASE || c == COL_P99_BASE ? DIFF_BASE : DIFF_NEW;
	const struct func_stats *f = &r->s[s];

	switch (c) {
	case COL_DELTA:
		return diff_signed_duration(r->delta, buf, size);
	case COL_CHANGE:
		return diff_change_text(r, buf, size);
	case COL_STATUS:
		return diff_status_name(r->status);
	default:
		break;
	}
	if (f->count == 0)
		return "-";
	switch (c) {
	case COL_CALLS_BASE: case COL_CALLS_NEW:
		snprintf(buf, size, "%llu", (unsigned long long)f->count);
		return buf;
	case COL_P50_BASE: case COL_P50_NEW:
		return timefmt_duration(f->median, buf, size);
	case COL_P99_BASE: case COL_P99_NEW:
		return timefmt_duration(f->p99, buf, size);
	default:
		return timefmt_duration(f->total, buf, size);
	}
}

/* A row's name: the function, or the path's frames joined by ';'. */
static void
name_text(const struct diff *d, const struct diff_row *r, char *buf,
    size_t size)
{
	uint32_t *names;
	size_t n, len = 0;

	if (d->by == DIFF_BY_FUNCTION) {
		snprintf(buf, size, "%s", diff_name(d, r->key));
		return;
	}
	n = diff_path(d, r, &names);
	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ";" : "",
		    diff_name(d, names[i]));
		len = w < 0 ? len : len + (size_t)w >= size ? size - 1 :
		    len + (size_t)w;
	}
	free(names);
}

static void
right(struct grid *g, int x_end, int y, const char *s, int style, int attr)
{
	int len = text_width(g, s, strlen(s), COL_W);

	text_puts(g, x_end - len, y, len, s, style, attr);
}

static void
table_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct diff_table_pane *p = (struct diff_table_pane *)pane;
	struct diff_session *s = diff_session(v);
	struct list_pos *pos = &pane->pos;
	enum col cols[NCOLS];
	char buf[1024], b[48], order[48];

	if (diff_draw_state(v, g, r, "Diff table"))
		return;
	struct diff *d = rows(p, v);
	bool paths = d->by == DIFF_BY_PATH;
	size_t ncol = columns(r.w, paths, cols);
	int name_w = r.w - (int)ncol * COL_W;
	ttv_ns max = diff_max_delta(d);
	int nrows = r.h - 2;

	/* Names have no change: they sort A to Z. */
	if (s->sort == STATS_NAME)
		snprintf(order, sizeof order, "by name, %s",
		    s->desc ? "Z to A" : "A to Z");
	else
		snprintf(order, sizeof order, "by the change of %s, %s",
		    stats_key_name(s->sort), s->desc ? "largest first" :
		    "smallest first");
	snprintf(buf, sizeof buf, "%zu %s of %s against %s, %s; Enter: in "
	    "both traces", d->n, paths ? "call paths" : "functions",
	    diff_trace_name(v->trace, NULL), s->path, order);
	diff_title(g, r, "Diff table", buf);
	grid_puts(g, r.x, r.y + 1, name_w, paths ? "path" : "function",
	    STYLE_TITLE, s->sort == STATS_NAME ? ATTR_UNDERLINE : 0);
	for (size_t i = 0; i < ncol; i++)
		right(g, r.x + name_w + (int)(i + 1) * COL_W, r.y + 1,
		    col_title[cols[i]], STYLE_TITLE, col_key[cols[i]] ==
		    s->sort ? ATTR_UNDERLINE : 0);
	list_clamp(pos, d->n, nrows);
	if (d->n == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no calls in either trace",
		    STYLE_DIM, 0);
	for (int row = 0; row < nrows && pos->top + (size_t)row < d->n; row++) {
		size_t i = pos->top + (size_t)row;
		const struct diff_row *dr = &d->rows[i];
		int y = r.y + 2 + row;
		bool sel = i == pos->sel;
		int style = sel ? STYLE_SELECTED : STYLE_NORMAL;

		if (sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ', style,
			    0);
		name_text(d, dr, buf, sizeof buf);
		text_puts_mid(g, r.x, y, name_w - 1, buf, style, 0);
		for (size_t k = 0; k < ncol; k++) {
			/* The change in the graph's colour. */
			bool coloured = !sel && (cols[k] == COL_CHANGE ||
			    cols[k] == COL_STATUS);
			right(g, r.x + name_w + (int)(k + 1) * COL_W, y,
			    cell(dr, cols[k], b, sizeof b), coloured ?
			    diff_style(dr, max) : style, 0);
		}
	}
}

static int
table_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct diff_table_pane *p = (struct diff_table_pane *)pane;
	struct diff_session *s = diff_session(v);
	struct list_pos *pos = &pane->pos;
	int k;

	if (!s->ready || s->work != DIFF_IDLE)
		return c == CMD_SORT_NEXT || c == CMD_SORT_PREV ||
		    c == CMD_SORT_REVERSE ? PANE_HANDLED : PANE_UNHANDLED;
	struct diff *d = rows(p, v);
	switch (c) {
	case CMD_SORT_NEXT:
	case CMD_SORT_PREV:
		k = (int)s->sort;
		do {	/* the keys a row has */
			k += c == CMD_SORT_NEXT ? 1 : -1;
			if (k < 0)
				k = STATS_KEY_COUNT - 1;
			if (k >= STATS_KEY_COUNT)
				k = 0;
		} while (k == STATS_SAMPLES || (d->by == DIFF_BY_PATH &&
		    !diff_key_by_path((enum stats_key)k)));
		s->sort = (enum stats_key)k;
		s->desc = s->sort != STATS_NAME;
		diff_sort(d, s->sort, s->desc);
		pos->sel = pos->top = 0;
		return PANE_REDRAW;
	case CMD_SORT_REVERSE:
		s->desc = !s->desc;
		diff_sort(d, s->sort, s->desc);
		return PANE_REDRAW;
	case CMD_LIST_ENTER:
		if (pos->sel >= d->n)
			return PANE_HANDLED;
		return diff_pane_calls_open(v, PANE_DIFF_TABLE);
	default:
		return list_command(pos, d->n, c);
	}
}

static int
table_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct diff_session *s = diff_session(v);

	(void)x;
	return list_mouse(pane, v, &pane->pos, s->ready ? s->table.n : 0, r,
	    y, b, table_command);
}

/* The row's function (by path: the path's last frame's). */
static const char *
row_key(struct diff_table_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);
	struct diff *d;
	const struct diff_row *r;

	if (!s->ready)
		return NULL;
	d = rows(p, v);
	if (p->base.pos.sel >= d->n)
		return NULL;
	r = &d->rows[p->base.pos.sel];
	if (d->by == DIFF_BY_FUNCTION)
		return diff_name(d, r->key);
	return r->key < d->nnodes ? diff_name(d, d->nodes[r->key].name) : NULL;
}

const char *
diff_table_selected(struct view *v)
{
	return row_key((struct diff_table_pane *)v->panes[PANE_DIFF_TABLE], v);
}

static func_id
table_selected(struct pane *pane, struct view *v)
{
	const char *k = row_key((struct diff_table_pane *)pane, v);

	return k != NULL ? diff_func_named(v->trace, k) : CALL_NONE;
}

static bool
table_available(struct pane *pane, struct view *v)
{
	(void)pane;
	return !diff_pane_idle(v);
}

const struct pane_class pane_diff_table = {
	.title = "Diff table",
	.ctx = CTX_DIFF_TABLE,
	.hint = "? keys  Enter both traces  s/S sort  r reverse  D graph",
	.create = table_create,
	.free = table_free,
	.draw = table_draw,
	.command = table_command,
	.mouse = table_mouse,
	.selected_func = table_selected,
	.available = table_available,
};
