/*
 * The functions pane: the statistics table (count, total, self, min,
 * median, p90, p99, max) for the span (the range, or else the visible
 * window) and the filters, sortable by any column; Enter jumps to the
 * function's longest call.
 *
 * The table is computed when the pane is drawn after the span or the
 * filters changed, not on every key: on the worker for big traces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "glyph.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* The pane's own state: the statistics of the span (recomputed when
 * stale, on the worker for big traces) and their order. */
struct functions_pane {
	struct pane base;
	struct stats_table stats;
	bool valid;
	uint64_t asked;		/* the data_gen of the table on its way */
	enum stats_key sort_key;
	bool sort_desc;
	struct column_set cols;	/* of the STATS_COUNT..STATS_MAX keys */
};

/* The columns to choose, in STATS_COUNT..STATS_MAX order (the screen's);
 * the name column is always shown, the samples one on sampled traces. */
#define COL_FIRST STATS_COUNT
static const char *const col_names[] = {
	"count", "total", "self", "min", "median", "p90", "p99", "max",
};
_Static_assert(sizeof col_names / sizeof col_names[0] ==
    STATS_MAX - STATS_COUNT + 1, "a column per statistic");

static struct pane *
functions_create(struct view *v)
{
	struct functions_pane *fp = xcalloc(1, sizeof *fp);

	(void)v;
	fp->sort_key = STATS_TOTAL;
	fp->sort_desc = true;
	fp->cols.names = col_names;
	fp->cols.n = sizeof col_names / sizeof col_names[0];
	fp->cols.shown = columns_all(&fp->cols);
	fp->asked = UINT64_MAX;
	return &fp->base;
}

static void
functions_free(struct pane *p)
{
	struct functions_pane *fp = (struct functions_pane *)p;

	stats_free(&fp->stats);
	free(fp);
}

static void
functions_stale(struct pane *p, struct view *v, unsigned changed)
{
	(void)v;
	if (changed & VIEW_CHANGED_DATA)
		((struct functions_pane *)p)->valid = false;
}

const struct stats_table *
functions_pane_stats(struct view *v, enum stats_key *key, bool *desc)
{
	struct functions_pane *fp = (struct functions_pane *)
	    v->panes[PANE_FUNCTIONS];

	*key = fp->sort_key;
	*desc = fp->sort_desc;
	return fp->valid ? &fp->stats : NULL;
}

/* Numeric columns in the order they give way on narrow screens. */
static const enum stats_key column_order[] = {
	STATS_COUNT, STATS_TOTAL, STATS_SELF, STATS_MAX, STATS_MEDIAN,
	STATS_P99, STATS_P90, STATS_MIN,
};
#define NCOLS (sizeof column_order / sizeof column_order[0])
#define NUM_W 10
#define NAME_MIN 20

static void
stats_job_free(void *arg)
{
	struct stats_table *st = arg;

	stats_free(st);
	free(st);
}

static void
stats_run(struct job *j)
{
	query_stats(j->t, &j->filter, j->t0, j->t1, j->arg);
}

static void
stats_install(struct job *j, struct view *v)
{
	struct functions_pane *fp = j->key;
	struct stats_table *st = j->arg;

	if (j->gen != v->data_gen)
		return;
	stats_free(&fp->stats);
	fp->stats = *st;
	memset(st, 0, sizeof *st);
	/* Sorting stays on this thread: the order is the pane's. */
	stats_sort(v->trace, &fp->stats, fp->sort_key, fp->sort_desc);
	fp->valid = true;
}

/* The statistics of the span and filters, when stale. */
static void
refresh(struct functions_pane *fp, struct view *v)
{
	struct job *j;

	if (fp->valid)
		return;
	if (v->async) {
		if (fp->asked == v->data_gen)
			return;		/* already on its way */
		fp->asked = v->data_gen;
	}
	j = job_new(fp, v->trace, &v->filter, v->data_gen);
	view_span(v, &j->t0, &j->t1);
	j->run = stats_run;
	j->install = stats_install;
	j->arg = xcalloc(1, sizeof(struct stats_table));
	j->arg_free = stats_job_free;
	view_submit(v, j);
}

/* Which of the numeric columns chosen fit beside a name column of at
 * least NAME_MIN. */
static size_t
columns_shown(const struct column_set *cs, int w, enum stats_key *keys)
{
	enum stats_key chosen[NCOLS];
	size_t nchosen = 0, n = 0;

	for (size_t j = 0; j < NCOLS; j++)
		if (column_shown(cs, column_order[j] - COL_FIRST))
			chosen[nchosen++] = column_order[j];
	while (n < nchosen && NAME_MIN + (int)(n + 1) * NUM_W <= w)
		n++;
	/* Keep the screen order of the full table. */
	for (size_t i = 0, k = 0; i < STATS_KEY_COUNT && k < n; i++)
		for (size_t j = 0; j < n; j++)
			if (chosen[j] == (enum stats_key)i)
				keys[k++] = (enum stats_key)i;
	return n;
}

/* The sort direction: an arrow, or in ASCII a word-like mark that does
 * not run into the title ("[total]" rather than "vtotal"). */
static const char *
sort_mark(const struct grid *g, bool desc)
{
	if (g->utf8)
		return desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2";
	return desc ? "(v)" : "(^)";
}

/* A column title right-aligned to x_end, marked when it is the sort
 * key. */
static void
sort_title(struct grid *g, int x_end, int y, const char *title, bool sorted,
    bool desc)
{
	int len = (int)strlen(title);

	if (!sorted) {
		grid_puts(g, x_end - len, y, len, title, STYLE_TITLE, 0);
		return;
	}
	if (g->utf8) {
		grid_puts(g, x_end - len, y, len, title, STYLE_TITLE,
		    ATTR_UNDERLINE);
		grid_puts(g, x_end - len - 1, y, 1, sort_mark(g, desc),
		    STYLE_TITLE, 0);
		return;
	}
	char buf[32];
	snprintf(buf, sizeof buf, "[%s]", title);
	len = (int)strlen(buf);
	grid_puts(g, x_end - len, y, len, buf, STYLE_TITLE, ATTR_UNDERLINE);
}

static void
functions_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct functions_pane *fp = (struct functions_pane *)pane;
	const struct trace *t = v->trace;
	struct list_pos *p = &pane->pos;
	enum stats_key keys[NCOLS];
	/* Sampled traces: a samples column first, before the others. */
	int sw = v->sampled ? NUM_W : 0;
	size_t ncol = columns_shown(&fp->cols, r.w - sw, keys);
	int name_w = r.w - sw - (int)ncol * NUM_W;
	char buf[256], sp[96];
	int rows = r.h - 2;

	refresh(fp, v);
	if (!fp->valid) {
		pane_title(g, r, "Functions", "computing the statistics of "
		    "this window...");
		return;
	}
	ttv_ns t0, t1;
	view_span(v, &t0, &t1);
	/* A total longer than the span is the threads' times added up:
	 * say so, where it happens. */
	bool added = false;
	for (size_t i = 0; i < fp->stats.n && !added; i++)
		added = fp->stats.rows[i].total > t1 - t0;
	char un[48] = "";
	if (fp->stats.unfinished > 0)
		snprintf(un, sizeof un, ", +%llu unfinished",
		    (unsigned long long)fp->stats.unfinished);
	snprintf(buf, sizeof buf, "%zu function%s in %s%s, by %s %s%s%s",
	    fp->stats.n, fp->stats.n == 1 ? "" : "s",
	    view_span_text(v, sp, sizeof sp), un,
	    stats_key_name(fp->sort_key), fp->sort_desc ? "desc" : "asc",
	    added ? "; threads add up" : "",
	    v->sampled ? "; sampled: samples per function" : "");
	pane_title(g, r, "Functions", buf);
	/* Column headers; the sorted one carries an arrow. */
	grid_puts(g, r.x, r.y + 1, name_w, "function", STYLE_TITLE,
	    fp->sort_key == STATS_NAME ? ATTR_UNDERLINE : 0);
	if (fp->sort_key == STATS_NAME)
		grid_puts(g, r.x + 9, r.y + 1, 3, sort_mark(g, fp->sort_desc),
		    STYLE_TITLE, 0);
	if (sw > 0) {
		sort_title(g, r.x + name_w + NUM_W, r.y + 1, "samples",
		    fp->sort_key == STATS_SAMPLES, fp->sort_desc);
	}
	for (size_t i = 0; i < ncol; i++) {
		int x = r.x + name_w + sw + (int)i * NUM_W;
		bool sorted = keys[i] == fp->sort_key;
		sort_title(g, x + NUM_W, r.y + 1, stats_key_name(keys[i]), sorted,
		    fp->sort_desc);
	}
	list_clamp(p, fp->stats.n, rows);
	if (fp->stats.n == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no calls in this window",
		    STYLE_DIM, 0);
	for (int row = 0; row < rows && p->top + (size_t)row < fp->stats.n;
	    row++) {
		size_t i = p->top + (size_t)row;
		const struct func_stats *s = &fp->stats.rows[i];
		int y = r.y + 2 + row;
		bool sel = i == p->sel;
		int style = sel ? STYLE_SELECTED : STYLE_NORMAL;

		if (sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		text_puts_mid(g, r.x, y, name_w - 1, trace_func_name(t, s->func),
		    view_func_matches(v, s->func) && !sel ? STYLE_MATCH :
		    style, 0);
		if (sw > 0) {
			snprintf(buf, sizeof buf, "%llu",
			    (unsigned long long)s->weight);
			int len = (int)strlen(buf);
			grid_puts(g, r.x + name_w + NUM_W - len, y, len, buf,
			    style, 0);
		}
		for (size_t c = 0; c < ncol; c++) {
			int x = r.x + name_w + sw + (int)c * NUM_W;
			if (keys[c] == STATS_COUNT)
				snprintf(buf, sizeof buf, "%llu",
				    (unsigned long long)s->count);
			else
				timefmt_duration(stats_value(s, keys[c]), buf,
				    sizeof buf);
			/* Right-aligned; "µs" is one column wide. */
			int len = text_width(g, buf, strlen(buf), NUM_W);
			text_puts(g, x + NUM_W - len, y, len, buf, style, 0);
		}
	}
}

static int
functions_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct functions_pane *fp = (struct functions_pane *)pane;
	struct list_pos *p = &pane->pos;
	int k;

	switch (c) {
	case CMD_SORT_NEXT:
	case CMD_SORT_PREV:
		k = (int)fp->sort_key;
		do {	/* samples only where the trace has them */
			k += c == CMD_SORT_NEXT ? 1 : -1;
			if (k < 0)
				k = STATS_KEY_COUNT - 1;
			if (k >= STATS_KEY_COUNT)
				k = 0;
		} while (k == STATS_SAMPLES && !v->sampled);
		fp->sort_key = (enum stats_key)k;
		/* Names read best A to Z, numbers largest first. */
		fp->sort_desc = fp->sort_key != STATS_NAME;
		if (fp->valid)
			stats_sort(v->trace, &fp->stats, fp->sort_key,
			    fp->sort_desc);
		p->sel = p->top = 0;
		return PANE_REDRAW;
	case CMD_SORT_REVERSE:
		fp->sort_desc = !fp->sort_desc;
		if (fp->valid)
			stats_sort(v->trace, &fp->stats, fp->sort_key,
			    fp->sort_desc);
		return PANE_REDRAW;
	case CMD_LIST_ENTER:
		if (!fp->valid || p->sel >= fp->stats.n)
			return PANE_HANDLED;
		{
			const struct func_stats *s = &fp->stats.rows[p->sel];
			if (s->count == 0 ||
			    s->longest.track >= v->trace->ntracks) {
				view_message(v, true, "no measured call to jump to");
				return PANE_REDRAW;
			}
			view_set_cursor(v, s->longest);
			v->folded[s->longest.track] = 0;
			view_zoom_slice(v);
			view_show_pane(v, PANE_TIMELINE);
			view_message(v, false, "longest call of %s",
			    trace_func_name(v->trace, s->func));
		}
		return PANE_REDRAW | PANE_DATA;
	default:
		return list_command(p, fp->stats.n, c);
	}
}

static int
functions_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct functions_pane *fp = (struct functions_pane *)pane;

	(void)x;
	return list_mouse(pane, v, &pane->pos, fp->stats.n, r, y, b,
	    functions_command);
}

static func_id
functions_selected(struct pane *pane, struct view *v)
{
	struct functions_pane *fp = (struct functions_pane *)pane;
	size_t sel = pane->pos.sel;

	(void)v;
	return fp->valid && sel < fp->stats.n ? fp->stats.rows[sel].func :
	    CALL_NONE;
}

static struct column_set *
functions_columns(struct pane *pane)
{
	return &((struct functions_pane *)pane)->cols;
}

/* The sort order, carried to a newer read of the trace (ttv --follow). */
struct functions_carry {
	struct pane_carry base;
	enum stats_key sort_key;
	bool sort_desc;
};

static void
functions_carry_free(struct pane_carry *c)
{
	free(c);
}

static struct pane_carry *
functions_carry_take(struct pane *pane, struct view *v)
{
	struct functions_pane *fp = (struct functions_pane *)pane;
	struct functions_carry *c = xcalloc(1, sizeof *c);

	(void)v;
	c->base.free = functions_carry_free;
	c->sort_key = fp->sort_key;
	c->sort_desc = fp->sort_desc;
	return &c->base;
}

static void
functions_carry_apply(struct pane *pane, struct view *v,
    const struct pane_carry *pc)
{
	struct functions_pane *fp = (struct functions_pane *)pane;
	const struct functions_carry *c = (const struct functions_carry *)pc;

	/* samples only where the newer read has them */
	if (c->sort_key != STATS_SAMPLES || v->sampled) {
		fp->sort_key = c->sort_key;
		fp->sort_desc = c->sort_desc;
	}
	if (fp->valid)
		stats_sort(v->trace, &fp->stats, fp->sort_key, fp->sort_desc);
}

const struct pane_class pane_functions = {
	.title = "Functions",
	.ctx = CTX_FUNCTIONS,
	.hint = "? keys  Enter longest call  s/S sort  r reverse  V columns",
	.create = functions_create,
	.free = functions_free,
	.stale = functions_stale,
	.draw = functions_draw,
	.command = functions_command,
	.mouse = functions_mouse,
	.selected_func = functions_selected,
	.columns = functions_columns,
	.carry_take = functions_carry_take,
	.carry_apply = functions_carry_apply,
};
