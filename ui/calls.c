/*
 * The panes about one function: its callers and callees (the butterfly:
 * every direct caller above it, every direct callee below, with calls and
 * time along each edge), and its calls (Tracy's "find zone": every call,
 * slowest first or by start or thread, under a histogram of their
 * durations on a log scale with p50, p90 and p99 marked). Enter on a
 * caller or callee makes it the function; Enter on a call shows it in
 * the timeline, where . and , step to the next slower or faster call.
 *
 * The callers pane follows the view's span (the range, or else the
 * window); the calls pane the range, or else the whole trace, so that a
 * call's rank does not change as the window moves to show it. Both follow
 * the filters. Their queries (query_calls.h) run on the worker for big
 * traces; a result is taken only if it is still the one asked for.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpanes.h"
#include "columns.h"
#include "glyph.h"
#include "panes.h"
#include "query_calls.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* The callers and callees of bf_func. */
struct callers_pane {
	struct pane base;	/* base.pos: the selected row */
	func_id bf_func;
	struct butterfly bf;
	uint64_t bf_gen;	/* data_gen of bf; asked is the one asked for */
	bool bf_valid, bf_asked;
	uint64_t bf_asked_gen;
	/* A new function: its own row is selected when its callers come,
	 * so that # and v act on it until another row is picked. */
	bool select_own;
};

/* The calls of il_func. */
struct instances_pane {
	struct pane base;	/* base.pos: the selected row */
	func_id il_func;
	struct instance_list il;
	struct instance_histogram hist;
	/* The view's filter_gen (range and filters) of il, and of the list
	 * asked for: the window does not change it. */
	uint64_t il_gen;
	bool il_valid, il_asked;
	uint64_t il_asked_gen;
	enum instance_key key;
	bool reverse;
	int hist_rows;		/* rows above the list at the last draw */
	struct column_set cols;	/* col_names */

	/* A step from the timeline asked before the calls came. */
	int pending_step;	/* 0, 1 slower, -1 faster */
	struct slice_ref step_from;
};

/* What a job of this file carries. */
struct calls_job {
	func_id func;
	struct butterfly bf;
	struct instance_list il;
};

#define NUM_W 10
#define PCT_W 7

/* The calls pane's columns (V chooses them), in screen order, and their
 * widths with the space after them. */
enum { COL_DURATION, COL_SELF, COL_START, COL_THREAD, COL_DEPTH };
static const char *const col_names[] = {
	"duration", "self", "start", "thread", "depth",
};
static const int col_w[] = { NUM_W, NUM_W + 2, 20, 11, 6 };

static struct callers_pane *
callers_of(const struct view *v)
{
	return (struct callers_pane *)v->panes[PANE_CALLERS];
}

static struct instances_pane *
instances_of(const struct view *v)
{
	return (struct instances_pane *)v->panes[PANE_INSTANCES];
}

static struct pane *
callers_create(struct view *v)
{
	struct callers_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->bf_func = CALL_NONE;
	return &p->base;
}

static void
callers_pane_free(struct pane *pane)
{
	struct callers_pane *p = (struct callers_pane *)pane;

	butterfly_free(&p->bf);
	free(p);
}

static struct pane *
instances_create(struct view *v)
{
	struct instances_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->il_func = CALL_NONE;
	p->cols.names = col_names;
	p->cols.n = sizeof col_names / sizeof col_names[0];
	p->cols.shown = columns_all(&p->cols);
	return &p->base;
}

static void
instances_pane_free(struct pane *pane)
{
	struct instances_pane *p = (struct instances_pane *)pane;

	instances_free(&p->il);
	instance_histogram_free(&p->hist);
	free(p);
}

static void
job_arg_free(void *arg)
{
	struct calls_job *a = arg;

	if (a == NULL)
		return;
	butterfly_free(&a->bf);
	instances_free(&a->il);
	free(a);
}

static uint8_t *
match_of(const struct trace *t, func_id f)
{
	uint8_t *m = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);

	if (f < t->nfuncs)
		m[f] = 1;
	return m;
}

static void
run_callers(struct job *j)
{
	struct calls_job *a = j->arg;
	uint8_t *m = match_of(j->t, a->func);

	query_butterfly(j->t, &j->filter, m, j->t0, j->t1, &a->bf);
	free(m);
}

static void
run_instances(struct job *j)
{
	struct calls_job *a = j->arg;
	uint8_t *m = match_of(j->t, a->func);

	query_instances(j->t, &j->filter, m, j->t0, j->t1, &a->il);
	free(m);
}

static int do_step(struct instances_pane *p, struct view *v, bool slower,
    struct slice_ref from);

/* The list in the pane's order; by thread, the threads in the timeline's
 * lane order (a stable counting sort of the query's order, which is by
 * track then start). */
static void
sort_list(struct instances_pane *p, struct view *v)
{
	struct instance_list *l = &p->il;
	uint32_t nt = v->trace->ntracks;

	instances_sort(v->trace, l, p->key, p->reverse);
	if (p->key != INSTANCES_BY_THREAD || l->n < 2 || nt < 2)
		return;
	size_t *at = xcalloc((size_t)nt + 1, sizeof *at);
	uint32_t *tmp = xreallocarray(NULL, l->n, sizeof *tmp);
	for (size_t i = 0; i < l->n; i++) {
		uint32_t k = timeline_lane_pos(v, l->items[l->order[i]].ref.track);
		at[(p->reverse ? nt - 1 - k : k) + 1]++;
	}
	for (uint32_t k = 0; k < nt; k++)
		at[k + 1] += at[k];
	for (size_t i = 0; i < l->n; i++) {
		uint32_t k = timeline_lane_pos(v, l->items[l->order[i]].ref.track);
		tmp[at[p->reverse ? nt - 1 - k : k]++] = l->order[i];
	}
	memcpy(l->order, tmp, l->n * sizeof *tmp);
	free(tmp);
	free(at);
}

static void
callers_install(struct job *j, struct view *v)
{
	struct callers_pane *p = j->key;
	struct calls_job *a = j->arg;

	if (j->gen != v->data_gen) {
		p->bf_asked = false;	/* stale: the next draw asks again */
		return;
	}
	if (a->func != p->bf_func)
		return;
	butterfly_free(&p->bf);
	p->bf = a->bf;
	memset(&a->bf, 0, sizeof a->bf);
	p->bf_valid = true;
	if (p->select_own) {
		p->base.pos.sel = p->bf.ncallers;
		p->base.pos.top = 0;
		p->select_own = false;
	}
	p->bf_asked = false;
	p->bf_gen = j->gen;
}

static void
instances_install(struct job *j, struct view *v)
{
	struct instances_pane *p = j->key;
	struct calls_job *a = j->arg;

	if (j->gen != v->filter_gen) {
		p->il_asked = false;	/* stale: the next draw asks again */
		return;
	}
	if (a->func != p->il_func)
		return;
	instances_free(&p->il);
	instance_histogram_free(&p->hist);
	p->il = a->il;
	memset(&a->il, 0, sizeof a->il);
	if (p->key != INSTANCES_BY_DURATION || p->reverse)
		sort_list(p, v);
	p->il_valid = true;
	p->il_asked = false;
	p->il_gen = j->gen;
	if (p->pending_step != 0) {
		int s = p->pending_step;
		p->pending_step = 0;
		do_step(p, v, s > 0, p->step_from);
	}
}

/* The span of the calls pane: the range, else the whole trace. */
static void
instances_span(const struct view *v, ttv_ns *t0, ttv_ns *t1)
{
	*t0 = v->range_on ? v->range_t0 : TTV_NS_MIN;
	*t1 = v->range_on ? v->range_t1 : TTV_NS_MAX;
}

/* Asks for a query of pane's about function f (run on the worker or at
 * once, then install) over [t0, t1) and the view's filters, for the view
 * state gen. */
static void
submit(struct view *v, struct pane *pane, func_id f, uint64_t gen,
    ttv_ns t0, ttv_ns t1, void (*run)(struct job *),
    void (*install)(struct job *, struct view *))
{
	struct job *j = job_new(pane, v->trace, &v->filter, gen);
	struct calls_job *a = xcalloc(1, sizeof *a);

	a->func = f;
	j->t0 = t0;
	j->t1 = t1;
	j->run = run;
	j->install = install;
	j->arg = a;
	j->arg_free = job_arg_free;
	view_submit(v, j);
}

/* Asks again for what is stale: the span or the filters changed. */
static void
callers_refresh(struct callers_pane *p, struct view *v)
{
	if (p->bf_func == CALL_NONE || (p->bf_valid &&
	    p->bf_gen == v->data_gen) || (p->bf_asked &&
	    p->bf_asked_gen == v->data_gen))
		return;
	ttv_ns t0, t1;
	p->bf_asked = true;
	p->bf_asked_gen = v->data_gen;
	view_span(v, &t0, &t1);
	submit(v, &p->base, p->bf_func, v->data_gen, t0, t1, run_callers,
	    callers_install);
}

static void
instances_ask(struct instances_pane *p, struct view *v)
{
	ttv_ns t0, t1;
	p->il_asked = true;
	p->il_asked_gen = v->filter_gen;
	instances_span(v, &t0, &t1);
	submit(v, &p->base, p->il_func, v->filter_gen, t0, t1, run_instances,
	    instances_install);
}

/* The calls are those of the view's range and filters. */
static bool
instances_current(const struct instances_pane *p, const struct view *v)
{
	return p->il_valid && p->il_gen == v->filter_gen;
}

static void
instances_refresh(struct instances_pane *p, struct view *v)
{
	if (p->il_func == CALL_NONE || instances_current(p, v) ||
	    (p->il_asked && p->il_asked_gen == v->filter_gen))
		return;
	instances_ask(p, v);
}

func_id
calls_pane_func(const struct view *v, enum pane_id pane)
{
	return pane == PANE_CALLERS ? callers_of(v)->bf_func :
	    pane == PANE_INSTANCES ? instances_of(v)->il_func : CALL_NONE;
}

/* A new function for the calls pane: its calls are asked for anew. */
static void
instances_set(struct instances_pane *p, func_id f)
{
	if (f == p->il_func)
		return;
	p->il_func = f;
	p->il_valid = false;
	p->il_asked = false;
	p->base.pos.sel = p->base.pos.top = 0;
}

int
calls_pane_open(struct view *v, enum pane_id pane, func_id f)
{
	if (f == CALL_NONE || f >= v->trace->nfuncs) {
		view_message(v, true, "no function selected: pick one in the "
		    "functions, flame or call tree pane, or a call in the "
		    "timeline");
		return PANE_REDRAW;
	}
	if (pane == PANE_CALLERS) {
		struct callers_pane *p = callers_of(v);
		/* The function's own row is selected, even when the pane
		 * already showed it: v then # lists the calls of the
		 * function in the title, not of a caller row left selected. */
		if (f != p->bf_func) {
			p->bf_func = f;
			p->bf_valid = false;
			p->bf_asked = false;
			p->base.pos.sel = p->base.pos.top = 0;
			p->select_own = true;
		} else if (p->bf_valid)
			p->base.pos.sel = p->bf.ncallers;
		view_show_pane(v, pane);
		callers_refresh(p, v);
	} else if (pane == PANE_INSTANCES) {
		struct instances_pane *p = instances_of(v);
		instances_set(p, f);
		view_show_pane(v, pane);
		instances_refresh(p, v);
	}
	return PANE_REDRAW;
}

/* ------------------------------------------------------------- stepping */

/* The row of the list showing rank (an index of by_dur), or SIZE_MAX. */
static size_t
row_of_rank(const struct instance_list *l, size_t rank)
{
	if (l->order == l->by_dur)
		return rank;
	if (l->key == INSTANCES_BY_DURATION && l->reverse)
		return l->n - 1 - rank;
	for (size_t i = 0; i < l->n; i++)
		if (l->order[i] == l->by_dur[rank])
			return i;
	return SIZE_MAX;
}

/* Shows call r of the list in the timeline, its rank on the status line
 * ("call 3 of 18", 1 the slowest) and its row selected in the list. */
static void
show_call(struct instances_pane *p, struct view *v, struct slice_ref r,
    const char *hint)
{
	const struct instance_list *l = &p->il;
	bool found;
	size_t rank = instances_place(v->trace, l, r, &found);
	char b[48];

	view_set_cursor(v, r);
	v->folded[r.track] = 0;
	if (found) {
		size_t row = row_of_rank(l, rank);
		if (row != SIZE_MAX)
			p->base.pos.sel = row;
		view_message(v, false, "call %zu of %zu of %s: %s%s", rank + 1,
		    l->n, trace_func_name(v->trace, p->il_func),
		    timefmt_duration(l->items[l->by_dur[rank]].dur, b,
		    sizeof b), hint);
	} else
		view_message(v, false, "a call of %s: %s%s",
		    trace_func_name(v->trace, p->il_func),
		    timefmt_duration(trace_slice_dur(v->trace, r), b,
		    sizeof b), hint);
}

static int
do_step(struct instances_pane *p, struct view *v, bool slower,
    struct slice_ref from)
{
	struct slice_ref to;

	if (!instances_step(v->trace, &p->il, from, slower, &to)) {
		view_message(v, false, "no %s call of %s%s",
		    slower ? "slower" : "faster",
		    trace_func_name(v->trace, p->il_func),
		    v->range_on ? " in the range" : "");
		return PANE_REDRAW;
	}
	show_call(p, v, to, "");
	view_show_cursor(v);
	return PANE_REDRAW | PANE_DATA;
}

int
calls_pane_step(struct view *v, bool slower)
{
	struct instances_pane *p = instances_of(v);

	if (!v->has_cursor) {
		view_message(v, true, "no call selected");
		return PANE_REDRAW;
	}
	func_id f = trace_slice(v->trace, v->cursor)->func;
	instances_set(p, f);
	if (instances_current(p, v))
		return do_step(p, v, slower, v->cursor);
	/* The calls first: the step is taken when they come. */
	p->pending_step = slower ? 1 : -1;
	p->step_from = v->cursor;
	view_message(v, false, "finding the calls of %s...",
	    trace_func_name(v->trace, f));
	if (!(p->il_asked && p->il_asked_gen == v->filter_gen))
		instances_ask(p, v);
	return PANE_REDRAW;
}

/* -------------------------------------------------------------- drawing */

static void
right(struct grid *g, int x_end, int y, const char *s, int style)
{
	int len = text_width(g, s, strlen(s), 24);

	text_puts(g, x_end - len, y, len, s, style, 0);
}

/* "+0 ns .. +2.71 ms (range)": [t0, t1), the whole trace's ends for
 * (TTV_NS_MIN, TTV_NS_MAX). */
static void
span_text(const struct view *v, ttv_ns t0, ttv_ns t1, char *buf, size_t size)
{
	char b1[48], b2[48];

	if (t0 == TTV_NS_MIN)
		t0 = v->trace->first;
	if (t1 == TTV_NS_MAX)
		t1 = v->trace->last;
	/* a range to the nanosecond, as the other panes give it; the whole
	 * trace to its resolution */
	if (v->range_on)
		snprintf(buf, size, "%s .. %s (range)", view_time_exact(v, t0,
		    b1, sizeof b1), view_time_exact(v, t1, b2, sizeof b2));
	else
		snprintf(buf, size, "%s .. %s", view_time_res(v, t0, t1 - t0,
		    b1, sizeof b1), view_time_res(v, t1, t1 - t0, b2,
		    sizeof b2));
}

/* The callers' rows, the function's own, then the callees'. */
static size_t
bf_rows(const struct callers_pane *p)
{
	return p->bf_valid ? p->bf.ncallers + 1 + p->bf.ncallees : 0;
}

static const struct call_edge *
bf_edge(const struct callers_pane *p, size_t row, int *side)
{
	if (row < p->bf.ncallers) {
		*side = -1;
		return &p->bf.callers[row];
	}
	if (row == p->bf.ncallers) {
		*side = 0;
		return NULL;
	}
	*side = 1;
	return &p->bf.callees[row - p->bf.ncallers - 1];
}

static void
callers_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct callers_pane *p = (struct callers_pane *)pane;
	const struct trace *t = v->trace;
	char buf[256], sp[128], b1[48], b2[48];
	int rows = r.h - 2;

	callers_refresh(p, v);
	if (p->bf_func == CALL_NONE) {
		pane_title(g, r, "Callers", "no function: v in the functions, "
		    "flame or call tree pane, or on a call");
		return;
	}
	ttv_ns t0, t1;
	view_span(v, &t0, &t1);
	span_text(v, t0, t1, sp, sizeof sp);
	if (!p->bf_valid || p->bf_gen != v->data_gen) {
		snprintf(buf, sizeof buf, "finding the callers and callees of "
		    "%s...", trace_func_name(t, p->bf_func));
		pane_title(g, r, "Callers", buf);
		return;
	}
	char un[48] = "";
	if (p->bf.unfinished > 0)
		snprintf(un, sizeof un, " +%llu unfinished",
		    (unsigned long long)p->bf.unfinished);
	snprintf(buf, sizeof buf, "%s: %llu call%s%s (%llu outermost), "
	    "total %s, self %s in %s", trace_func_name(t, p->bf_func),
	    (unsigned long long)p->bf.count, p->bf.count == 1 ? "" : "s", un,
	    (unsigned long long)p->bf.outermost,
	    timefmt_duration(p->bf.total, b1, sizeof b1),
	    timefmt_duration(p->bf.self, b2, sizeof b2), sp);
	pane_title(g, r, "Callers", buf);

	int name_w = r.w - 2 * NUM_W - PCT_W;
	grid_puts(g, r.x, r.y + 1, name_w, "callers above, callees below",
	    STYLE_TITLE, 0);
	right(g, r.x + name_w + NUM_W, r.y + 1, "calls", STYLE_TITLE);
	right(g, r.x + name_w + 2 * NUM_W, r.y + 1, "total", STYLE_TITLE);
	right(g, r.x + r.w, r.y + 1, "%", STYLE_TITLE);
	size_t n = bf_rows(p);
	list_clamp(&p->base.pos, n, rows);
	for (int row = 0; row < rows && p->base.pos.top + (size_t)row < n;
	    row++) {
		size_t i = p->base.pos.top + (size_t)row;
		int side, y = r.y + 2 + row;
		const struct call_edge *e = bf_edge(p, i, &side);
		bool sel = i == p->base.pos.sel;
		int style = sel ? STYLE_SELECTED : side == 0 ? STYLE_TITLE :
		    STYLE_NORMAL;
		uint64_t count = e ? e->count : p->bf.count;
		ttv_ns total = e ? e->total : p->bf.total;
		const char *name = e == NULL ? trace_func_name(t, p->bf_func) :
		    e->func == CALL_NONE ? "<root>" :
		    trace_func_name(t, e->func);

		if (sel || side == 0)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    style, 0);
		if (side != 0)
			grid_set(g, r.x + 1, y, side < 0 ? GLYPH_UP(g->utf8) :
			    GLYPH_DOWN(g->utf8), style, 0);
		text_puts_mid(g, r.x + (side == 0 ? 1 : 3), y,
		    name_w - (side == 0 ? 2 : 4), name, style, 0);
		snprintf(b1, sizeof b1, "%llu", (unsigned long long)count);
		right(g, r.x + name_w + NUM_W, y, b1, style);
		right(g, r.x + name_w + 2 * NUM_W, y,
		    timefmt_duration(total, b2, sizeof b2), style);
		snprintf(b1, sizeof b1, "%.1f", p->bf.total > 0 ?
		    100.0 * (double)total / (double)p->bf.total : 0.0);
		right(g, r.x + r.w, y, b1, style);
	}
}

/* The height of a bar of count calls, in eighths of h rows: a log scale
 * (1 call is one step of log2(1 + peak)), so a bucket of a few calls
 * still shows beside one of thousands. */
static uint64_t
bar_eighths(uint64_t count, uint64_t peak, int h)
{
	if (count == 0 || peak == 0)
		return 0;
	double e = (double)h * 8.0 * log2(1.0 + (double)count) /
	    log2(1.0 + (double)peak);
	uint64_t k = (uint64_t)(e + 0.5);
	return k == 0 ? 1 : k;
}

/* The histogram in r (h rows of bars, then the percentiles' row and the
 * durations' row): counts on a log scale, labelled on the left (the
 * peak at the top, 1 at the bottom); durations under the buckets' left
 * edges, a few across, the longest at the right end. */
static void
histogram_draw(struct instances_pane *p, struct view *v, struct grid *g,
    struct rect r, int h)
{
	struct instance_histogram *hg = &p->hist;
	char b1[48], lab[24];

	(void)v;
	/* The count axis: as wide as the digits of the count of calls,
	 * which no bucket passes. */
	snprintf(lab, sizeof lab, "%zu", p->il.n);
	int ax = (int)strlen(lab) + 1;
	int bars_w = r.w - ax;
	size_t want = (size_t)(bars_w < 96 ? bars_w : 96) / 2;
	if (want < 4)
		want = 4;
	if (hg->n == 0 || hg->n > want) {
		instance_histogram_free(hg);
		instances_histogram(&p->il, want, hg);
	}
	if (hg->n == 0 || hg->peak == 0 || bars_w < 8)
		return;
	int bw = bars_w / (int)hg->n;
	if (bw < 1)
		bw = 1;
	int x0 = r.x + ax;
	int style = STYLE_EDGE0 + view_func_hue(p->il_func);
	for (size_t b = 0; b < hg->n; b++) {
		uint64_t e = bar_eighths(hg->count[b], hg->peak, h);
		int x = x0 + (int)b * bw;
		for (int row = 0; row < h && e > 0; row++) {
			int part = e >= 8 ? 8 : (int)e;
			uint32_t ch = glyph_bar(g->utf8, part);
			for (int k = 0; k < bw - (bw > 1); k++)
				grid_set(g, x + k, r.y + h - 1 - row, ch,
				    style, 0);
			e -= (uint64_t)part;
		}
	}
	snprintf(lab, sizeof lab, "%llu", (unsigned long long)hg->peak);
	right(g, x0 - 1, r.y, lab, STYLE_DIM);
	if (hg->peak > 1)
		right(g, x0 - 1, r.y + h - 1, "1", STYLE_DIM);
	/* The percentiles under their buckets (one label for those that
	 * share one). */
	int py = r.y + h;
	const size_t pb[3] = { hg->p50, hg->p90, hg->p99 };
	static const char *const pname[3] = { "50", "90", "99" };
	int last_end = -1;
	for (int i = 0; i < 3; i++) {
		char label[16];
		int j = i;
		snprintf(label, sizeof label, "p%s", pname[i]);
		while (j + 1 < 3 && pb[j + 1] == pb[i]) {
			j++;
			size_t len = strlen(label);
			snprintf(label + len, sizeof label - len, ",%s",
			    pname[j]);
		}
		int x = x0 + (int)pb[i] * bw;
		if (x <= last_end)
			x = last_end + 1;
		int len = (int)strlen(label);
		if (x + len > r.x + r.w)
			x = r.x + r.w - len;
		if (x > last_end)
			last_end = x + grid_puts(g, x, py, len, label,
			    STYLE_TITLE, 0);
		i = j;
	}
	/* Durations: the longest at the right end, then from the left a
	 * bucket edge every 16 columns or so where it fits. */
	int end = x0 + (int)hg->n * bw;
	timefmt_duration(hg->edge[hg->n], b1, sizeof b1);
	int right_at = end - text_width(g, b1, strlen(b1), 24);
	right(g, end, py + 1, b1, STYLE_DIM);
	last_end = -1;
	for (size_t b = 0; b < hg->n; b++) {
		int x = x0 + (int)b * bw;
		if (b > 0 && x < last_end + 16)
			continue;
		timefmt_duration(hg->edge[b], b1, sizeof b1);
		int len = text_width(g, b1, strlen(b1), 24);
		if (x + len + 1 >= right_at)
			break;
		text_puts(g, x, py + 1, len, b1, STYLE_DIM, 0);
		last_end = x + len;
	}
}

/* A column title, its sort mark before it when the list is sorted by
 * it: the arrow says which way (down: slowest, earliest or first lane
 * at the top... reversed: up). */
static void
column_title(struct grid *g, int x, int y, int w, const char *title,
    bool sorted, bool reverse, bool right_aligned, bool room_before)
{
	int len = (int)strlen(title);
	int at = right_aligned ? x + w - len : x;

	/* no blank before a left-aligned title: the mark takes its
	 * first cell and the title moves one right */
	if (sorted && !right_aligned && !room_before) {
		at++;
		len = len < w - 1 ? len : w - 1;
	}
	grid_puts(g, at, y, len, title, STYLE_TITLE, sorted ? ATTR_UNDERLINE :
	    0);
	if (sorted)
		grid_set(g, at - 1, y, reverse ? GLYPH_UP(g->utf8) :
		    GLYPH_DOWN(g->utf8), STYLE_TITLE, 0);
}

static void
instances_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct instances_pane *p = (struct instances_pane *)pane;
	const struct trace *t = v->trace;
	char buf[256], stats[200], sp[128], b1[48], b2[48], b3[48], b4[48],
	    b5[48];

	instances_refresh(p, v);
	p->hist_rows = 0;
	if (p->il_func == CALL_NONE) {
		pane_title(g, r, "Calls", "no function: # in the functions, "
		    "flame or call tree pane, or on a call");
		return;
	}
	if (!instances_current(p, v)) {
		snprintf(buf, sizeof buf, "finding the calls of %s...",
		    trace_func_name(t, p->il_func));
		pane_title(g, r, "Calls", buf);
		return;
	}
	const struct instance_list *l = &p->il;
	span_text(v, l->t0, l->t1, sp, sizeof sp);
	char un[48] = "";
	if (l->unfinished > 0)
		snprintf(un, sizeof un, " +%llu unfinished",
		    (unsigned long long)l->unfinished);
	snprintf(buf, sizeof buf, "%s: %zu call%s%s by %s%s in %s",
	    trace_func_name(t, p->il_func), l->n, l->n == 1 ? "" : "s", un,
	    instances_key_name(p->key), p->reverse ? ", reversed" : "", sp);
	snprintf(stats, sizeof stats, "total %s, p50 %s, p90 %s, p99 %s, "
	    "max %s", timefmt_duration(l->total, b1, sizeof b1),
	    timefmt_duration(l->p50, b2, sizeof b2),
	    timefmt_duration(l->p90, b3, sizeof b3),
	    timefmt_duration(l->p99, b4, sizeof b4),
	    timefmt_duration(l->max, b5, sizeof b5));
	/* The numbers on the title's line when they fit, else on their
	 * own line under it: never cut off. */
	int top = 1;
	size_t len = strlen(buf);
	if (text_width(g, buf, len, 1000) + text_width(g, stats,
	    strlen(stats), 1000) + 9 <= r.w)
		snprintf(buf + len, sizeof buf - len, "; %s", stats);
	else {
		grid_puts(g, r.x + 2, r.y + 1, r.w - 2, stats, STYLE_DIM, 0);
		top = 2;
	}
	pane_title(g, r, "Calls", buf);

	/* The histogram takes a third of the pane, from 3 to 8 rows of
	 * bars, when there is room and something to draw. */
	int h = (r.h - 1 - top) / 3;
	if (h > 8)
		h = 8;
	if (h >= 3 && l->n > 0) {
		histogram_draw(p, v, g, (struct rect){ r.x, r.y + top, r.w,
		    h }, h);
		p->hist_rows = h + 2;
	}
	p->hist_rows += top - 1;
	struct rect lr = { r.x, r.y + p->hist_rows, r.w, r.h - p->hist_rows };
	int rows = lr.h - 2;
	int y0 = lr.y + 1;
	/* where each column chosen starts (-1: hidden) */
	int cx[5];
	/* the start as wide as the trace's latest time needs (over 10,000
	 * s, or a time of day) */
	int start_w = view_time_exact_width(v);
	if (start_w < col_w[COL_START] - 1)
		start_w = col_w[COL_START] - 1;
	for (int k = 0, x = lr.x; k < 5; k++) {
		cx[k] = column_shown(&p->cols, (size_t)k) ? x : -1;
		if (cx[k] < 0)
			continue;
		x += k == COL_START ? start_w + 1 : col_w[k];
		/* duration is right-aligned to its edge: a blank before
		 * whatever follows it but self (which has its own) */
		if (k == COL_DURATION && !column_shown(&p->cols, COL_SELF))
			x++;
	}
	/* A left-aligned title has room for its mark before it when the
	 * column before it ends in blanks (all but duration do). */
	bool room = false;
	static const int title_w[] = { NUM_W, NUM_W, 18, 10, 6 };
	for (int k = 0; k < 5; k++) {
		if (cx[k] < 0)
			continue;
		enum instance_key key = k == COL_DURATION ?
		    INSTANCES_BY_DURATION : k == COL_START ? INSTANCES_BY_START :
		    INSTANCES_BY_THREAD;
		bool sortable = k == COL_DURATION || k == COL_START ||
		    k == COL_THREAD;
		column_title(g, cx[k], y0, title_w[k], col_names[k], sortable &&
		    p->key == key, p->reverse, k <= COL_SELF, room);
		room = k != COL_DURATION;
	}
	list_clamp(&p->base.pos, l->n, rows);
	if (l->n == 0)
		grid_puts(g, lr.x, y0 + 1, lr.w, "no measured call in this span",
		    STYLE_DIM, 0);
	for (int row = 0; row < rows && p->base.pos.top + (size_t)row < l->n;
	    row++) {
		size_t i = p->base.pos.top + (size_t)row;
		const struct call_instance *c = &l->items[l->order[i]];
		const struct slice *s = trace_slice(t, c->ref);
		int y = y0 + 1 + row;
		bool sel = i == p->base.pos.sel;
		int style = sel ? STYLE_SELECTED : STYLE_NORMAL;

		if (sel)
			grid_fill(g, (struct rect){ lr.x, y, lr.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		if (cx[COL_DURATION] >= 0)
			right(g, cx[COL_DURATION] + NUM_W, y,
			    timefmt_duration(c->dur, b1, sizeof b1), style);
		if (cx[COL_SELF] >= 0)
			right(g, cx[COL_SELF] + NUM_W, y, timefmt_duration(
			    call_instance_self(t, c, l->t0, l->t1), b2,
			    sizeof b2), style);
		if (cx[COL_START] >= 0)
			text_puts(g, cx[COL_START], y, start_w, view_time_exact(v,
			    s->start, b3, sizeof b3), style, 0);
		snprintf(b4, sizeof b4, "%lld",
		    (long long)t->tracks[c->ref.track].tid);
		if (cx[COL_THREAD] >= 0)
			grid_puts(g, cx[COL_THREAD], y, 10, b4, style, 0);
		snprintf(b5, sizeof b5, "%u", c->ref.depth);
		if (cx[COL_DEPTH] >= 0)
			grid_puts(g, cx[COL_DEPTH], y, 6, b5, style, 0);
	}
}

/* ------------------------------------------------------------- commands */

static int
callers_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct callers_pane *p = (struct callers_pane *)pane;
	size_t n = bf_rows(p);
	int side;

	if (c != CMD_LIST_ENTER)
		return list_command(&p->base.pos, n, c);
	if (p->base.pos.sel >= n)
		return PANE_HANDLED;
	const struct call_edge *e = bf_edge(p, p->base.pos.sel, &side);
	if (side == 0)
		return calls_pane_open(v, PANE_INSTANCES, p->bf_func);
	if (e->func == CALL_NONE) {
		view_message(v, false, "<root>: calls with no caller");
		return PANE_REDRAW;
	}
	return calls_pane_open(v, PANE_CALLERS, e->func);
}

static int
instances_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct instances_pane *p = (struct instances_pane *)pane;
	struct instance_list *l = &p->il;
	int k;

	if (!p->il_valid)
		return list_command(&p->base.pos, 0, c);
	switch (c) {
	case CMD_SORT_NEXT:
	case CMD_SORT_PREV:
		k = (int)p->key + (c == CMD_SORT_NEXT ? 1 : -1);
		p->key = (enum instance_key)((k + INSTANCES_KEY_COUNT) %
		    INSTANCES_KEY_COUNT);
		p->reverse = false;
		sort_list(p, v);
		p->base.pos.sel = p->base.pos.top = 0;
		return PANE_REDRAW;
	case CMD_SORT_REVERSE:
		p->reverse = !p->reverse;
		sort_list(p, v);
		p->base.pos.sel = p->base.pos.top = 0;
		return PANE_REDRAW;
	case CMD_LIST_ENTER: {
		if (p->base.pos.sel >= l->n)
			return PANE_HANDLED;
		const struct call_instance *ci = &l->items[l->order[p->base.pos.sel]];
		show_call(p, v, ci->ref, "; . slower, , faster");
		view_zoom_slice(v);
		view_show_pane(v, PANE_TIMELINE);
		return PANE_REDRAW | PANE_DATA;
	}
	default:
		return list_command(&p->base.pos, l->n, c);
	}
}

static int
callers_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct callers_pane *p = (struct callers_pane *)pane;

	(void)x;
	return list_mouse(pane, v, &pane->pos, bf_rows(p), r, y, b,
	    callers_command);
}

static int
instances_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct instances_pane *p = (struct instances_pane *)pane;
	struct rect lr = { r.x, r.y + p->hist_rows, r.w, r.h - p->hist_rows };

	(void)x;
	return list_mouse(pane, v, &pane->pos, p->il_valid ? p->il.n : 0, lr,
	    y, b, instances_command);
}

static func_id
callers_selected(struct pane *pane, struct view *v)
{
	struct callers_pane *p = (struct callers_pane *)pane;
	int side;

	(void)v;
	if (!p->bf_valid || pane->pos.sel >= bf_rows(p))
		return p->bf_func;
	const struct call_edge *e = bf_edge(p, pane->pos.sel, &side);
	/* <root> is no function: the one in the title stands for it. */
	return e == NULL || e->func == CALL_NONE ? p->bf_func : e->func;
}

static struct column_set *
instances_columns(struct pane *pane)
{
	return &((struct instances_pane *)pane)->cols;
}

static func_id
instances_selected(struct pane *pane, struct view *v)
{
	(void)v;
	return ((struct instances_pane *)pane)->il_func;
}

const struct pane_class pane_callers = {
	.title = "Callers",
	.ctx = CTX_CALLERS,
	.hint = "? keys  Enter that function  # calls  1 timeline",
	.create = callers_create,
	.free = callers_pane_free,
	.draw = callers_draw,
	.command = callers_command,
	.mouse = callers_mouse,
	.selected_func = callers_selected,
};

const struct pane_class pane_instances = {
	.title = "Calls",
	.ctx = CTX_INSTANCES,
	.hint = "? keys  Enter go there  s sort  r reverse  v callers  V columns",
	.create = instances_create,
	.free = instances_pane_free,
	.draw = instances_draw,
	.command = instances_command,
	.mouse = instances_mouse,
	.selected_func = instances_selected,
	.columns = instances_columns,
};
