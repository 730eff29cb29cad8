/*
 * One function in both traces, as Tracy's compare window shows a zone:
 * the durations of its calls in each trace as two histograms overlaid on
 * one log-scale axis (diff_hist.h), as shares of each trace's calls (n:
 * as counts), red where the new trace has more, blue where the base has,
 * grey where both reach; which one is slower by the median and the mean;
 * and its calls in each trace side by side, slowest first (the calls
 * pane's query, query_instances). Enter on a call shows it in the two
 * timelines.
 *
 * The function is a row's name (query_diff's key): in each trace, the
 * functions whose name, cut by --match-strip, is that.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "diff_hist.h"
#include "panes.h"
#include "query_calls.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

struct diff_calls_pane {
	struct pane base;
	char *key;		/* the function, NULL: none yet */
	uint64_t gen;		/* the session's gen of the lists */
	bool valid, asked;
	struct instance_list il[2];
	char *err;
	struct diff_hist hist;
	size_t hist_n;		/* the buckets hist was made with */
	int side;		/* the list the keys move in */
	struct list_pos pos[2];
	bool counts;		/* counts, not shares of the calls */
	int list_y;		/* the lists' first row at the last draw */
};

struct calls_job {
	char *key;
	const char *strip;
	const struct trace *base;
	struct filter bf;
	ttv_ns b0, b1, t0, t1;
	struct instance_list il[2];
	char *err;
};

static struct diff_calls_pane *
calls_of(struct view *v)
{
	return (struct diff_calls_pane *)v->panes[PANE_DIFF_CALLS];
}

static void
lists_free(struct diff_calls_pane *p)
{
	instances_free(&p->il[0]);
	instances_free(&p->il[1]);
	diff_hist_free(&p->hist);
	p->hist_n = 0;
	free(p->err);
	p->err = NULL;
	p->valid = false;
}

static struct pane *
calls_create(struct view *v)
{
	struct diff_calls_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->side = DIFF_NEW;
	return &p->base;
}

static void
calls_free(struct pane *pane)
{
	struct diff_calls_pane *p = (struct diff_calls_pane *)pane;

	lists_free(p);
	free(p->key);
	free(p);
}

/* ------------------------------------------------------------------ job */

static void
calls_job_free(void *arg)
{
	struct calls_job *a = arg;

	free(a->key);
	filter_clear(&a->bf);
	instances_free(&a->il[0]);
	instances_free(&a->il[1]);
	free(a->err);
	free(a);
}

static void
calls_run(struct job *j)
{
	struct calls_job *a = j->arg;
	struct regex *re = NULL;
	char *why = NULL;

	if (a->strip != NULL && (re = regex_compile(a->strip, &why)) == NULL) {
		a->err = xasprintf("--match-strip: %s", why);
		free(why);
		return;
	}
	const struct trace *t[2] = { a->base, j->t };
	const struct filter *f[2] = { &a->bf, &j->filter };
	const ttv_ns t0[2] = { a->b0, a->t0 }, t1[2] = { a->b1, a->t1 };
	for (int s = 0; s < 2 && a->err == NULL; s++) {
		uint8_t *match = diff_key_funcs(t[s], re, a->key, &a->err);
		if (match != NULL)
			query_instances(t[s], f[s], match, t0[s], t1[s],
			    &a->il[s]);
		free(match);
	}
	regex_free(re);
}

static void
calls_install(struct job *j, struct view *v)
{
	struct diff_calls_pane *p = calls_of(v);
	struct calls_job *a = j->arg;

	if (j->gen != diff_session(v)->gen || p->key == NULL ||
	    strcmp(p->key, a->key) != 0)
		return;
	lists_free(p);
	p->il[0] = a->il[0];
	p->il[1] = a->il[1];
	memset(a->il, 0, sizeof a->il);
	p->err = a->err;
	a->err = NULL;
	p->valid = true;
	p->gen = j->gen;
}

/* The lists of the key, when they are not the session's. */
static void
refresh(struct diff_calls_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);

	if (p->key == NULL || !s->ready || s->work != DIFF_IDLE)
		return;
	if (p->gen != s->gen) {
		lists_free(p);
		p->asked = false;
		p->gen = s->gen;
		p->pos[0] = p->pos[1] = (struct list_pos){ 0 };
	}
	if (p->valid || p->asked)
		return;
	p->asked = true;
	struct calls_job *a = xcalloc(1, sizeof *a);
	struct job *j = job_new(p, v->trace, &s->nf, s->gen);
	a->key = xstrdup(p->key);
	a->strip = s->opt.strip;
	a->base = s->base;
	diff_filter_copy(&a->bf, &s->bf, s->base);
	a->b0 = s->b0;
	a->b1 = s->b1;
	a->t0 = s->t0;
	a->t1 = s->t1;
	j->run = calls_run;
	j->install = calls_install;
	j->arg = a;
	j->arg_free = calls_job_free;
	diff_submit(v, j);
}

int
diff_calls_show(struct view *v, const char *key)
{
	struct diff_calls_pane *p = calls_of(v);

	if (p->key == NULL || strcmp(p->key, key) != 0) {
		free(p->key);
		p->key = xstrdup(key);
		lists_free(p);
		p->asked = false;
		p->pos[0] = p->pos[1] = (struct list_pos){ 0 };
	}
	view_show_pane(v, PANE_DIFF_CALLS);
	refresh(p, v);
	return PANE_REDRAW;
}

int
diff_pane_calls_open(struct view *v, enum pane_id from)
{
	const char *key = NULL;
	char *name = NULL;
	int rc;

	if (from == PANE_DIFF_TABLE)
		key = diff_table_selected(v);
	else if (from == PANE_DIFF)
		key = diff_flame_selected(v);
	else if (from == PANE_DIFF_CALLS)
		key = calls_of(v)->key;
	else {
		func_id f = pane_selected_func(v, from);
		if (f != CALL_NONE)
			key = trace_func_name(v->trace, f);
	}
	if (key == NULL) {
		if (from == PANE_DIFF_CALLS || calls_of(v)->key == NULL) {
			view_message(v, true, "no function selected: pick one "
			    "in the diff table or graph");
			return PANE_REDRAW;
		}
		key = calls_of(v)->key;
	}
	name = xstrdup(key);
	rc = diff_calls_show(v, name);
	free(name);
	return rc;
}

/* -------------------------------------------------------------- drawing */

static void
right(struct grid *g, int x_end, int y, const char *s, int style)
{
	int len = text_width(g, s, strlen(s), 24);

	text_puts(g, x_end - len, y, len, s, style, 0);
}

/* "base  10 calls  median 20.00 us  mean 20.00 us  p99 ...": one line. */
static void
side_line(struct grid *g, int x, int y, int w, const char *label, int style,
    const struct instance_list *l)
{
	char buf[256], a[32], b[32], c[32], d[32];
	int k = grid_puts(g, x, y, 5, label, style, 0);

	if (l->n == 0) {
		grid_puts(g, x + k + 1, y, w - k - 1, "no call", STYLE_DIM, 0);
		return;
	}
	snprintf(buf, sizeof buf, "%zu call%s  median %s  mean %s  p99 %s  "
	    "total %s", l->n, l->n == 1 ? "" : "s",
	    timefmt_duration(l->p50, a, sizeof a),
	    timefmt_duration(l->total / (ttv_ns)l->n, b, sizeof b),
	    timefmt_duration(l->p99, c, sizeof c),
	    timefmt_duration(l->total, d, sizeof d));
	text_puts(g, x + k + 1, y, w - k - 1, buf, STYLE_NORMAL, 0);
}

/* Which one is slower, by the median and the mean. */
static void
verdict(struct grid *g, int x, int y, int w, const struct instance_list *b,
    const struct instance_list *n)
{
	char buf[256], a[32];
	int style;

	if (b->n == 0 || n->n == 0) {
		grid_puts(g, x, y, w, b->n == 0 ? "only in the new trace" :
		    "only in the base", b->n == 0 ? STYLE_DIFF_GREW0 + 2 :
		    STYLE_DIFF_SHRANK0 + 2, 0);
		return;
	}
	double mb = (double)b->total / (double)b->n;
	double mn = (double)n->total / (double)n->n;
	if (n->p50 == b->p50) {
		style = STYLE_DIFF_SAME;
		snprintf(buf, sizeof buf, "the same median; mean %.2f x the "
		    "base's", mb > 0 ? mn / mb : 1.0);
	} else {
		bool slower = n->p50 > b->p50;
		double x50 = b->p50 > 0 ? (double)n->p50 / (double)b->p50 :
		    INFINITY;
		style = slower ? STYLE_DIFF_GREW0 + 2 : STYLE_DIFF_SHRANK0 + 2;
		snprintf(buf, sizeof buf, "new is %s: median %.2f x (%s), mean "
		    "%.2f x", slower ? "slower" : "faster", x50,
		    diff_signed_duration(n->p50 - b->p50, a, sizeof a),
		    mb > 0 ? mn / mb : INFINITY);
	}
	text_puts(g, x, y, w, buf, style, 0);
}

/* The two histograms overlaid over rows [r.y, r.y + r.h - 2), the axis
 * and the medians under them. */
static void
hist_draw(struct diff_calls_pane *p, struct grid *g, struct rect r)
{
	size_t want = (size_t)(r.w / 2 > 60 ? 60 : r.w / 2);
	int h = r.h - 2;
	char b1[32], b2[32];
	const struct instance_list *l[2] = { &p->il[0], &p->il[1] };

	if (want < 4)
		want = 4;
	if (p->hist_n != want) {
		diff_hist_free(&p->hist);
		diff_hist_make(l, want, &p->hist);
		p->hist_n = want;
	}
	const struct diff_hist *hg = &p->hist;
	if (hg->n == 0 || h < 1)
		return;
	int bw = r.w / (int)hg->n;
	if (bw < 1)
		bw = 1;
	for (size_t b = 0; b < hg->n; b++) {
		int hb = diff_hist_rows(hg, DIFF_BASE, b, !p->counts, h);
		int hn = diff_hist_rows(hg, DIFF_NEW, b, !p->counts, h);
		int x = r.x + (int)b * bw;
		for (int row = 0; row < h; row++) {
			int y = r.y + h - 1 - row, style;
			uint32_t ch;
			if (row < hb && row < hn)
				ch = ' ', style = STYLE_DIFF_SAME;
			else if (row < hn)
				ch = '+', style = STYLE_DIFF_GREW0 + 1;
			else if (row < hb)
				ch = '-', style = STYLE_DIFF_SHRANK0 + 1;
			else
				continue;
			for (int k = 0; k < bw - (bw > 1); k++)
				grid_set(g, x + k, y, ch, style, 0);
		}
	}
	/* The medians under their buckets, the axis's ends below. */
	int my = r.y + h;
	for (int s = 0; s < 2; s++)
		if (hg->median[s] < hg->n)
			grid_puts(g, r.x + (int)hg->median[s] * bw + (s == DIFF_NEW &&
			    hg->median[0] == hg->median[1] ? 1 : 0), my, 1,
			    s == DIFF_BASE ? "b" : "n", s == DIFF_BASE ?
			    STYLE_DIFF_SHRANK0 + 2 : STYLE_DIFF_GREW0 + 2, 0);
	timefmt_duration(diff_hist_edge(hg, 0), b1, sizeof b1);
	timefmt_duration(diff_hist_edge(hg, hg->n), b2, sizeof b2);
	/* the axis's ends, and what the heights are between them */
	const char *what = p->counts ? "calls per bucket" :
	    "share of each trace's calls";
	int len = (int)strlen(what);
	int end = text_width(g, b2, strlen(b2), 24);
	int c = text_puts(g, r.x, my + 1, r.w / 3, b1, STYLE_DIM, 0);
	if (len + 2 <= (int)hg->n * bw - c - end)
		grid_puts(g, r.x + ((int)hg->n * bw - len) / 2, my + 1, len,
		    what, STYLE_DIM, 0);
	right(g, r.x + (int)hg->n * bw, my + 1, b2, STYLE_DIM);
}

/* One trace's calls, slowest first, over r; the active one's selection. */
static void
list_draw(struct diff_calls_pane *p, struct view *v, int s, struct grid *g,
    struct rect r)
{
	struct diff_session *ds = diff_session(v);
	const struct instance_list *l = &p->il[s];
	const struct trace *t = s == DIFF_BASE ? ds->base : v->trace;
	struct list_pos *pos = &p->pos[s];
	char buf[160], b1[32], b2[48];
	bool active = s == p->side;

	snprintf(buf, sizeof buf, "%s: %zu call%s, slowest first", s ==
	    DIFF_BASE ? "base" : "new", l->n, l->n == 1 ? "" : "s");
	grid_puts(g, r.x, r.y, r.w, buf, active ? STYLE_TITLE : STYLE_DIM,
	    active ? ATTR_UNDERLINE : 0);
	list_clamp(pos, l->n, r.h - 1);
	for (int row = 0; row < r.h - 1 && pos->top + (size_t)row < l->n;
	    row++) {
		size_t i = pos->top + (size_t)row;
		const struct call_instance *c = &l->items[l->order[i]];
		const struct track *tr = &t->tracks[c->ref.track];
		int y = r.y + 1 + row;
		int style = active && i == pos->sel ? STYLE_SELECTED :
		    STYLE_NORMAL;

		if (style == STYLE_SELECTED)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ', style,
			    0);
		timefmt_duration(c->dur, b1, sizeof b1);
		timefmt_time(trace_slice(t, c->ref)->start, t->first, b2,
		    sizeof b2);
		snprintf(buf, sizeof buf, "%10s  at %s  tid %lld", b1, b2,
		    (long long)tr->tid);
		text_puts(g, r.x, y, r.w, buf, style, 0);
	}
}

static void
calls_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct diff_calls_pane *p = (struct diff_calls_pane *)pane;
	struct diff_session *s = diff_session(v);
	char buf[256];

	if (diff_draw_state(v, g, r, "Diff calls"))
		return;
	refresh(p, v);
	if (p->key == NULL) {
		pane_title(g, r, "Diff calls", "no function: Enter in the diff "
		    "table, or @ on a frame of the graph");
		return;
	}
	if (!p->valid) {
		snprintf(buf, sizeof buf, "finding the calls of %s in both "
		    "traces...", p->key);
		diff_title(g, r, "Diff calls", buf);
		return;
	}
	snprintf(buf, sizeof buf, "%s in %s (base) and %s; h/l base or "
	    "new calls, n %s, Enter the call in the timelines", p->key, s->path,
	    diff_trace_name(v->trace, NULL), p->counts ? "shares" : "counts");
	diff_title(g, r, "Diff calls", buf);
	if (p->err != NULL) {
		text_puts(g, r.x, r.y + 1, r.w, p->err, STYLE_ERROR, 0);
		return;
	}
	side_line(g, r.x, r.y + 1, r.w, "base", STYLE_DIFF_SHRANK0 + 2,
	    &p->il[DIFF_BASE]);
	side_line(g, r.x, r.y + 2, r.w, "new", STYLE_DIFF_GREW0 + 2,
	    &p->il[DIFF_NEW]);
	verdict(g, r.x, r.y + 3, r.w, &p->il[DIFF_BASE], &p->il[DIFF_NEW]);
	/* The histogram takes about a third of what is left, the lists the
	 * rest. */
	int left = r.h - 4;
	int hh = left / 3 + 2;
	if (hh > 12)
		hh = 12;
	if (hh < 4)
		hh = left >= 4 ? 4 : left;
	hist_draw(p, g, (struct rect){ r.x, r.y + 4, r.w, hh });
	p->list_y = r.y + 4 + hh;
	struct rect lr = { r.x, p->list_y, r.w / 2 - 1, r.h - 4 - hh };
	if (lr.h >= 2) {
		list_draw(p, v, DIFF_BASE, g, lr);
		lr.x += r.w / 2 + 1;
		lr.w = r.w - r.w / 2 - 1;
		list_draw(p, v, DIFF_NEW, g, lr);
	}
}

static int
calls_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct diff_calls_pane *p = (struct diff_calls_pane *)pane;
	struct diff_session *s = diff_session(v);

	if (!s->ready || s->work != DIFF_IDLE || !p->valid)
		return c == CMD_DIFF_BASE_SIDE || c == CMD_DIFF_NEW_SIDE ||
		    c == CMD_DIFF_NORMALIZE ?
		    PANE_HANDLED : PANE_UNHANDLED;
	const struct instance_list *l = &p->il[p->side];
	struct list_pos *pos = &p->pos[p->side];
	switch (c) {
	case CMD_DIFF_BASE_SIDE:
	case CMD_DIFF_NEW_SIDE:
		p->side = c == CMD_DIFF_BASE_SIDE ? DIFF_BASE : DIFF_NEW;
		return PANE_REDRAW;
	case CMD_DIFF_NORMALIZE:
		p->counts = !p->counts;
		view_message(v, false, "histograms of %s", p->counts ?
		    "counts of calls" : "shares of each trace's calls");
		return PANE_REDRAW;
	case CMD_LIST_ENTER:
		if (pos->sel >= l->n)
			return PANE_HANDLED;
		return diff_timelines_show(v, p->side == DIFF_BASE,
		    l->items[l->order[pos->sel]].ref);
	default:
		return list_command(pos, l->n, c);
	}
}

/* A click in a list: that list and that row. */
static int
calls_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct diff_calls_pane *p = (struct diff_calls_pane *)pane;

	if (!p->valid || y <= p->list_y)
		return PANE_HANDLED;
	int side = x < r.x + r.w / 2 ? DIFF_BASE : DIFF_NEW;
	struct list_pos *pos = &p->pos[side];
	if (b != MOUSE_CLICK) {
		p->side = side;
		return calls_command(pane, v, b == MOUSE_WHEEL_UP ?
		    CMD_LIST_UP : CMD_LIST_DOWN);
	}
	size_t row = pos->top + (size_t)(y - p->list_y - 1);
	if (row >= p->il[side].n)
		return PANE_HANDLED;
	bool again = side == p->side && row == pos->sel;
	p->side = side;
	pos->sel = row;
	return again ? calls_command(pane, v, CMD_LIST_ENTER) : PANE_REDRAW;
}

static func_id
calls_selected(struct pane *pane, struct view *v)
{
	struct diff_calls_pane *p = (struct diff_calls_pane *)pane;

	return p->key != NULL ? diff_func_named(v->trace, p->key) : CALL_NONE;
}

static bool
calls_available(struct pane *pane, struct view *v)
{
	(void)pane;
	return !diff_pane_idle(v);
}

const struct pane_class pane_diff_calls = {
	.title = "Diff calls",
	.ctx = CTX_DIFF_CALLS,
	.hint = "? keys  j/k move  h/l base or new  Enter timelines  n counts",
	.create = calls_create,
	.free = calls_free,
	.draw = calls_draw,
	.command = calls_command,
	.mouse = calls_mouse,
	.selected_func = calls_selected,
	.available = calls_available,
};
