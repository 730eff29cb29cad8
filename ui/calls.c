/*
 * The panes about one function: its callers and callees (the butterfly:
 * every direct caller above it, every direct callee below, with calls and
 * time along each edge), and its calls (Tracy's "find zone": every call,
 * slowest first or by start or thread, under a histogram of their
 * durations on a log scale with p50, p90 and p99 marked). Enter on a
 * caller or callee makes it the function; Enter on a call shows it in
 * the timeline, where . and , step to the next slower or faster call.
 *
 * Both follow the view's span (the range, or else the window) and
 * filters. Their queries (query_calls.h) run on the worker for big traces;
 * a result is taken only if it is still the one asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpanes.h"
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
};

/* The calls of il_func. */
struct instances_pane {
	struct pane base;	/* base.pos: the selected row */
	func_id il_func;
	struct instance_list il;
	struct instance_histogram hist;
	uint64_t il_gen;
	bool il_valid, il_asked;
	uint64_t il_asked_gen;
	enum instance_key key;
	bool reverse;
	int hist_rows;		/* rows above the list at the last draw */

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
	p->bf_asked = false;
	p->bf_gen = j->gen;
}

static void
instances_install(struct job *j, struct view *v)
{
	struct instances_pane *p = j->key;
	struct calls_job *a = j->arg;

	if (j->gen != v->data_gen) {
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
		instances_sort(v->trace, &p->il, p->key, p->reverse);
	p->il_valid = true;
	p->il_asked = false;
	p->il_gen = j->gen;
	if (p->pending_step != 0) {
		int s = p->pending_step;
		p->pending_step = 0;
		do_step(p, v, s > 0, p->step_from);
	}
}

/* Asks for a query of pane's about function f (run on the worker or at
 * once, then install) over the view's span and filters. */
static void
submit(struct view *v, struct pane *pane, func_id f,
    void (*run)(struct job *), void (*install)(struct job *, struct view *))
{
	struct job *j = job_new(pane, v->trace, &v->filter, v->data_gen);
	struct calls_job *a = xcalloc(1, sizeof *a);

	a->func = f;
	view_span(v, &j->t0, &j->t1);
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
	p->bf_asked = true;
	p->bf_asked_gen = v->data_gen;
	submit(v, &p->base, p->bf_func, run_callers, callers_install);
}

static void
instances_ask(struct instances_pane *p, struct view *v)
{
	p->il_asked = true;
	p->il_asked_gen = v->data_gen;
	submit(v, &p->base, p->il_func, run_instances, instances_install);
}

static void
instances_refresh(struct instances_pane *p, struct view *v)
{
	if (p->il_func == CALL_NONE || (p->il_valid &&
	    p->il_gen == v->data_gen) || (p->il_asked &&
	    p->il_asked_gen == v->data_gen))
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
		if (f != p->bf_func) {
			p->bf_func = f;
			p->bf_valid = false;
			p->bf_asked = false;
			p->base.pos.sel = p->base.pos.top = 0;
		}
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

static int
do_step(struct instances_pane *p, struct view *v, bool slower,
    struct slice_ref from)
{
	struct slice_ref to;
	char b[48];

	if (!instances_step(v->trace, &p->il, from, slower, &to)) {
		view_message(v, false, "no %s call of %s in this span",
		    slower ? "slower" : "faster",
		    trace_func_name(v->trace, p->il_func));
		return PANE_REDRAW;
	}
	view_set_cursor(v, to);
	v->folded[to.track] = 0;
	view_show_cursor(v);
	view_message(v, false, "%s call of %s: %s", slower ? "slower" :
	    "faster", trace_func_name(v->trace, p->il_func),
	    timefmt_duration(trace_slice_dur(v->trace, to), b, sizeof b));
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
	if (p->il_valid && p->il_gen == v->data_gen)
		return do_step(p, v, slower, v->cursor);
	/* The calls first: the step is taken when they come. */
	p->pending_step = slower ? 1 : -1;
	p->step_from = v->cursor;
	view_message(v, false, "finding the calls of %s...",
	    trace_func_name(v->trace, f));
	if (!(p->il_asked && p->il_asked_gen == v->data_gen))
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

static void
span_text(const struct view *v, char *buf, size_t size)
{
	char b1[48], b2[48];
	ttv_ns t0, t1;

	view_span(v, &t0, &t1);
	snprintf(buf, size, "%s .. %s%s", view_time(v, t0, b1, sizeof b1),
	    view_time(v, t1, b2, sizeof b2), v->range_on ? " (range)" : "");
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
	span_text(v, sp, sizeof sp);
	if (!p->bf_valid || p->bf_gen != v->data_gen) {
		snprintf(buf, sizeof buf, "finding the callers and callees of "
		    "%s...", trace_func_name(t, p->bf_func));
		pane_title(g, r, "Callers", buf);
		return;
	}
	snprintf(buf, sizeof buf, "%s: %llu calls (%llu outermost), total "
	    "%s, self %s in %s", trace_func_name(t, p->bf_func),
	    (unsigned long long)p->bf.count,
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

/* The histogram over rows [y, y + h) and its two label rows below. */
static void
histogram_draw(struct instances_pane *p, struct view *v, struct grid *g,
    struct rect r, int h)
{
	struct instance_histogram *hg = &p->hist;
	size_t want = (size_t)(r.w < 96 ? r.w : 96) / 2;
	char b1[48], b2[48];

	if (want < 4)
		want = 4;
	if (hg->n == 0 || hg->n > want) {
		instance_histogram_free(hg);
		instances_histogram(&p->il, want, hg);
	}
	if (hg->n == 0 || hg->peak == 0)
		return;
	int bw = r.w / (int)hg->n;
	if (bw < 1)
		bw = 1;
	int style = STYLE_EDGE0 + view_func_hue(p->il_func);
	for (size_t b = 0; b < hg->n; b++) {
		/* The bar's height in eighths of a row; any call shows. */
		uint64_t e = hg->count[b] * (uint64_t)(h * 8) / hg->peak;
		if (hg->count[b] > 0 && e == 0)
			e = 1;
		int x = r.x + (int)b * bw;
		for (int row = 0; row < h && e > 0; row++) {
			int part = e >= 8 ? 8 : (int)e;
			uint32_t ch = glyph_bar(g->utf8, part);
			for (int k = 0; k < bw - (bw > 1); k++)
				grid_set(g, x + k, r.y + h - 1 - row, ch,
				    style, 0);
			e -= (uint64_t)part;
		}
	}
	/* The percentiles under their buckets (one label for those that
	 * share one); the axis's ends below. */
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
		int x = r.x + (int)pb[i] * bw;
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
	timefmt_duration(hg->edge[0], b1, sizeof b1);
	timefmt_duration(hg->edge[hg->n], b2, sizeof b2);
	text_puts(g, r.x, py + 1, r.w / 2, b1, STYLE_DIM, 0);
	right(g, r.x + (int)hg->n * bw, py + 1, b2, STYLE_DIM);
}

static void
instances_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct instances_pane *p = (struct instances_pane *)pane;
	const struct trace *t = v->trace;
	char buf[256], sp[128], b1[48], b2[48], b3[48], b4[48], b5[48];

	instances_refresh(p, v);
	p->hist_rows = 0;
	if (p->il_func == CALL_NONE) {
		pane_title(g, r, "Calls", "no function: # in the functions, "
		    "flame or call tree pane, or on a call");
		return;
	}
	if (!p->il_valid || p->il_gen != v->data_gen) {
		snprintf(buf, sizeof buf, "finding the calls of %s...",
		    trace_func_name(t, p->il_func));
		pane_title(g, r, "Calls", buf);
		return;
	}
	const struct instance_list *l = &p->il;
	span_text(v, sp, sizeof sp);
	snprintf(buf, sizeof buf, "%s: %zu call%s by %s%s in %s; total %s, "
	    "p50 %s, p90 %s, p99 %s, max %s", trace_func_name(t, p->il_func),
	    l->n, l->n == 1 ? "" : "s", instances_key_name(p->key),
	    p->reverse ? ", reversed" : "", sp,
	    timefmt_duration(l->total, b1, sizeof b1),
	    timefmt_duration(l->p50, b2, sizeof b2),
	    timefmt_duration(l->p90, b3, sizeof b3),
	    timefmt_duration(l->p99, b4, sizeof b4),
	    timefmt_duration(l->max, b5, sizeof b5));
	pane_title(g, r, "Calls", buf);

	/* The histogram takes a third of the pane, from 3 to 8 rows of
	 * bars, when there is room and something to draw. */
	int h = (r.h - 2) / 3;
	if (h > 8)
		h = 8;
	if (h >= 3 && l->n > 0) {
		histogram_draw(p, v, g, (struct rect){ r.x, r.y + 1, r.w, h },
		    h);
		p->hist_rows = h + 2;
	}
	struct rect lr = { r.x, r.y + p->hist_rows, r.w, r.h - p->hist_rows };
	int rows = lr.h - 2;
	int y0 = lr.y + 1;
	int x = lr.x;
	right(g, x + NUM_W, y0, "duration", STYLE_TITLE);
	right(g, x + 2 * NUM_W, y0, "self", STYLE_TITLE);
	grid_puts(g, x + 2 * NUM_W + 2, y0, 18, "start", STYLE_TITLE, 0);
	grid_puts(g, x + 2 * NUM_W + 22, y0, 10, "thread", STYLE_TITLE, 0);
	grid_puts(g, x + 2 * NUM_W + 33, y0, 6, "depth", STYLE_TITLE, 0);
	list_clamp(&p->base.pos, l->n, rows);
	if (l->n == 0)
		grid_puts(g, x, y0 + 1, lr.w, "no measured call in this span",
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
		right(g, x + NUM_W, y, timefmt_duration(c->dur, b1, sizeof b1),
		    style);
		right(g, x + 2 * NUM_W, y, timefmt_duration(
		    call_instance_self(t, c, l->t0, l->t1), b2,
		    sizeof b2), style);
		text_puts(g, x + 2 * NUM_W + 2, y, 19, view_time_exact(v,
		    s->start, b3, sizeof b3), style, 0);
		snprintf(b4, sizeof b4, "%lld",
		    (long long)t->tracks[c->ref.track].tid);
		grid_puts(g, x + 2 * NUM_W + 22, y, 10, b4, style, 0);
		snprintf(b5, sizeof b5, "%u", c->ref.depth);
		grid_puts(g, x + 2 * NUM_W + 33, y, 6, b5, style, 0);
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
		instances_sort(v->trace, l, p->key, p->reverse);
		p->base.pos.sel = p->base.pos.top = 0;
		return PANE_REDRAW;
	case CMD_SORT_REVERSE:
		p->reverse = !p->reverse;
		instances_sort(v->trace, l, p->key, p->reverse);
		p->base.pos.sel = p->base.pos.top = 0;
		return PANE_REDRAW;
	case CMD_LIST_ENTER: {
		char b[48];
		if (p->base.pos.sel >= l->n)
			return PANE_HANDLED;
		const struct call_instance *ci = &l->items[l->order[p->base.pos.sel]];
		view_set_cursor(v, ci->ref);
		v->folded[ci->ref.track] = 0;
		view_zoom_slice(v);
		view_show_pane(v, PANE_TIMELINE);
		view_message(v, false, "call %zu of %zu of %s: %s; . slower, "
		    ", faster", p->base.pos.sel + 1, l->n,
		    trace_func_name(v->trace, p->il_func),
		    timefmt_duration(ci->dur, b, sizeof b));
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
	return e == NULL ? p->bf_func : e->func;
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
	.hint = "? keys  Enter go there  s sort  r reverse  v callers",
	.create = instances_create,
	.free = instances_pane_free,
	.draw = instances_draw,
	.command = instances_command,
	.mouse = instances_mouse,
	.selected_func = instances_selected,
};
