/*
 * Two timelines stacked: the trace's and the base's, each drawn by the
 * timeline pane's own drawing into half the pane, scrolled and zoomed in
 * lock-step. The base has a view of its own (the session's bview: its
 * cursor, folded lanes and lane order), whose window is not kept but
 * derived from the trace's at each draw: the trace's window moved back by
 * the alignment's offset (diff_align.h), so that the instant chosen in
 * each trace — their starts, the first call of a function, one marker —
 * falls in the same column. The keys move the trace on top (S swaps):
 * a move in the base that shifts its window shifts the trace's by as
 * much.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "diff_align.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "tmap.h"
#include "xalloc.h"

struct diff_timelines_pane {
	struct pane base;
	uint64_t gen;		/* the session's gen of the alignment */
	bool base_on_top;
	/* The instants aligned, in each trace's time, and what they are. */
	ttv_ns at_new, at_base;
	char what[160];
	struct rect half[2];	/* top and bottom timelines, last draw */
};

static struct diff_timelines_pane *
tl_of(struct view *v)
{
	return (struct diff_timelines_pane *)v->panes[PANE_DIFF_TIMELINES];
}

static struct pane *
tl_create(struct view *v)
{
	struct diff_timelines_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->gen = UINT64_MAX;
	return &p->base;
}

static void
tl_free(struct pane *pane)
{
	free(pane);
}

/* A new base: aligned on the starts, the trace on top. */
static void
sync(struct diff_timelines_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);

	if (p->gen == s->gen || s->base == NULL)
		return;
	p->gen = s->gen;
	p->base_on_top = false;
	p->at_new = v->trace->first;
	p->at_base = s->base->first;
	snprintf(p->what, sizeof p->what, "their starts");
}

static ttv_ns
offset(const struct diff_timelines_pane *p)
{
	return diff_align_offset(p->at_new, p->at_base);
}

/* The same from each trace's start, as their rulers count: how much
 * later the base is drawn than where its own time would put it. */
static ttv_ns
moved(const struct diff_timelines_pane *p, struct view *v)
{
	return diff_align_offset(diff_align_offset(p->at_new,
	    v->trace->first), diff_align_offset(p->at_base,
	    diff_session(v)->base->first));
}

/* The base's window, from the trace's. */
static void
follow(struct diff_timelines_pane *p, struct view *v)
{
	struct view *bv = &diff_session(v)->bview;

	diff_align_window(v->t0, v->t1, offset(p), &bv->t0, &bv->t1);
}

/* The trace's window, from the base's (a move made in the base). */
static void
lead(struct diff_timelines_pane *p, struct view *v)
{
	struct view *bv = &diff_session(v)->bview;
	ttv_ns t0 = diff_align_shift(bv->t0, offset(p));
	ttv_ns t1 = diff_align_shift(bv->t1, offset(p));

	if (t1 <= t0 || (t0 == v->t0 && t1 == v->t1))
		return;
	v->t0 = t0;
	v->t1 = t1;
	view_data_changed(v);
}

/* The view on top: the one the keys move. */
static struct view *
top(struct diff_timelines_pane *p, struct view *v)
{
	return p->base_on_top ? &diff_session(v)->bview : v;
}

/* What the base's view said goes on the status line. */
static void
relay(struct view *v)
{
	struct view *bv = &diff_session(v)->bview;

	if (bv->msg[0] != '\0')
		view_message(v, bv->msg_error, "base: %s", bv->msg);
	bv->msg[0] = '\0';
}

/* The label over one timeline. */
static void
label(struct view *v, struct view *tv, bool is_base, struct grid *g,
    int x, int y, int w, ttv_ns off)
{
	char buf[256], b1[48], b2[48], b3[48];
	int c;

	grid_fill(g, (struct rect){ x, y, w, 1 }, ' ', STYLE_STATUS, 0);
	c = grid_puts(g, x, y, w, is_base ? " base " : " new ",
	    is_base ? STYLE_DIFF_SHRANK0 + 2 : STYLE_DIFF_GREW0 + 2, ATTR_BOLD);
	c += text_puts(g, x + c + 1, y, w - c - 1, diff_trace_name(tv->trace,
	    NULL), STYLE_STATUS, 0) + 1;
	if (is_base)
		snprintf(buf, sizeof buf, "  %s .. %s, moved %s to line up",
		    view_time(tv, tv->t0, b1, sizeof b1),
		    view_time(tv, tv->t1, b2, sizeof b2),
		    diff_signed_duration(off, b3, sizeof b3));
	else
		snprintf(buf, sizeof buf, "  %s .. %s",
		    view_time(tv, tv->t0, b1, sizeof b1),
		    view_time(tv, tv->t1, b2, sizeof b2));
	(void)v;
	grid_puts(g, x + c, y, w - c, buf, STYLE_STATUS, 0);
}

static void
tl_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct diff_timelines_pane *p = (struct diff_timelines_pane *)pane;
	struct diff_session *s = diff_session(v);
	char buf[256];

	if (s->base == NULL) {
		diff_draw_state(v, g, r, "Timelines");
		return;
	}
	sync(p, v);
	follow(p, v);
	snprintf(buf, sizeof buf, "aligned on %s; S swap, a starts, A the "
	    "cursor's function, M the marker at the cursor", p->what);
	diff_title(g, r, "Timelines", buf);
	int h1 = (r.h - 1) / 2, h2 = r.h - 1 - h1;
	if (h2 < 4) {
		grid_puts(g, r.x, r.y + 1, r.w, "too small for two timelines",
		    STYLE_DIM, 0);
		return;
	}
	struct view *views[2] = { v, &s->bview };
	int first = p->base_on_top ? 1 : 0;
	int y = r.y + 1;
	for (int k = 0; k < 2; k++) {
		int i = k == 0 ? first : 1 - first, h = k == 0 ? h1 : h2;
		label(v, views[i], i == 1, g, r.x, y, r.w, moved(p, v));
		p->half[k] = (struct rect){ r.x, y + 1, r.w, h - 1 };
		pane_draw(views[i], PANE_TIMELINE, g, p->half[k]);
		y += h;
	}
}

/* Puts the cursor of view tv on r and shows it, the other window
 * following. */
static void
show(struct diff_timelines_pane *p, struct view *v, struct view *tv,
    struct slice_ref r)
{
	follow(p, v);
	view_set_cursor(tv, r);
	tv->folded[r.track] = 0;
	view_show_cursor(tv);
	if (tv != v)
		lead(p, v);
}

int
diff_timelines_show(struct view *v, bool base, struct slice_ref r)
{
	struct diff_timelines_pane *p = tl_of(v);
	struct diff_session *s = diff_session(v);

	if (s->base == NULL)
		return PANE_HANDLED;
	sync(p, v);
	p->base_on_top = base;
	show(p, v, base ? &s->bview : v, r);
	view_show_pane(v, PANE_DIFF_TIMELINES);
	return PANE_REDRAW | PANE_DATA;
}

/* Aligns on at_new in the trace and at_base in the base, the window
 * centred on them. */
static void
align(struct diff_timelines_pane *p, struct view *v, ttv_ns at_new,
    ttv_ns at_base)
{
	const struct trace *t = v->trace;
	ttv_ns last = t->last > t->first + TMAP_MIN_SPAN ? t->last :
	    t->first + TMAP_MIN_SPAN;

	p->at_new = at_new;
	p->at_base = at_base;
	tmap_center(&v->t0, &v->t1, at_new, t->first, last);
	view_data_changed(v);
	follow(p, v);
}

static int
align_call(struct diff_timelines_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);
	struct view *tv = top(p, v);
	struct slice_ref rn, rb;

	if (!tv->has_cursor) {
		view_message(v, true, "no call selected on top");
		return PANE_REDRAW;
	}
	const char *name = trace_func_name(tv->trace,
	    trace_slice(tv->trace, tv->cursor)->func);
	if (!diff_align_first_call(v->trace, &s->nf, name, &rn) ||
	    !diff_align_first_call(s->base, &s->bf, name, &rb)) {
		view_message(v, true, "%s is not called in the %s", name,
		    diff_align_first_call(v->trace, &s->nf, name, &rn) ?
		    "base" : "new trace");
		return PANE_REDRAW;
	}
	align(p, v, trace_slice(v->trace, rn)->start,
	    trace_slice(s->base, rb)->start);
	view_set_cursor(v, rn);
	view_set_cursor(&s->bview, rb);
	snprintf(p->what, sizeof p->what, "the first call of %s", name);
	view_message(v, false, "aligned on the first call of %s", name);
	return PANE_REDRAW | PANE_DATA;
}

static int
align_marker(struct diff_timelines_pane *p, struct view *v)
{
	struct diff_session *s = diff_session(v);
	struct view *tv = top(p, v);
	const struct trace *a = tv->trace;
	const struct trace *b = p->base_on_top ? v->trace : s->base;
	size_t ia, ib;
	char b1[48];

	if (!diff_align_marker_at(a, view_cursor_time(tv), &ia)) {
		view_message(v, true, "no marker at or after the cursor (] "
		    "goes to one)");
		return PANE_REDRAW;
	}
	const struct marker *m = &a->markers[ia];
	const char *text = trace_str(a, m->text);
	if (!diff_align_marker_same(a, ia, b, &ib)) {
		view_message(v, true, "the %s has no %s%s%s like it",
		    p->base_on_top ? "new trace" : "base",
		    marker_kind_name((enum marker_kind)m->kind),
		    *text ? " " : "", text);
		return PANE_REDRAW;
	}
	ttv_ns ta = m->t, tb = b->markers[ib].t;
	align(p, v, p->base_on_top ? tb : ta, p->base_on_top ? ta : tb);
	snprintf(p->what, sizeof p->what, "%s%s%s at %s",
	    marker_kind_name((enum marker_kind)m->kind), *text ? " " : "", text,
	    timefmt_time(ta, a->first, b1, sizeof b1));
	view_message(v, false, "aligned on %s", p->what);
	return PANE_REDRAW | PANE_DATA;
}

static int
tl_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct diff_timelines_pane *p = (struct diff_timelines_pane *)pane;
	struct diff_session *s = diff_session(v);
	struct view *bv = &s->bview;
	int flags;

	if (s->base == NULL)
		return PANE_UNHANDLED;
	sync(p, v);
	follow(p, v);
	switch (c) {
	case CMD_DIFF_SWAP:
		p->base_on_top = !p->base_on_top;
		view_message(v, false, "the %s on top: the keys move it",
		    p->base_on_top ? "base" : "new trace");
		return PANE_REDRAW;
	case CMD_DIFF_ALIGN_START:
		align(p, v, v->trace->first, s->base->first);
		snprintf(p->what, sizeof p->what, "their starts");
		return PANE_REDRAW | PANE_DATA;
	case CMD_DIFF_ALIGN_CALL:
		return align_call(p, v);
	case CMD_DIFF_ALIGN_MARKER:
		return align_marker(p, v);
	case CMD_SLICE_PREV: case CMD_SLICE_NEXT: case CMD_SLICE_PARENT:
	case CMD_SLICE_CHILD: case CMD_LANE_NEXT: case CMD_LANE_PREV:
	case CMD_LANE_FOLD: case CMD_ZOOM_SLICE:
		flags = pane_command(top(p, v), PANE_TIMELINE, c);
		if (p->base_on_top) {
			lead(p, v);
			relay(v);
			flags |= PANE_DATA;
		}
		return flags;
	default:
		break;
	}
	if (!p->base_on_top)
		return PANE_UNHANDLED;
	/* The base on top: the window moves around its cursor, and the
	 * marker keys walk its markers. */
	ttv_ns at = diff_align_shift(view_cursor_time(bv), offset(p));
	if (at < v->t0 || at >= v->t1)
		at = v->t0 + (v->t1 - v->t0) / 2;
	switch (c) {
	case CMD_ZOOM_IN:
	case CMD_ZOOM_OUT:
		view_zoom_at(v, at, c == CMD_ZOOM_IN ? 0.5 : 2.0);
		return PANE_REDRAW | PANE_DATA;
	case CMD_MARKER_NEXT: case CMD_MARKER_PREV: case CMD_WRAP_NEXT:
	case CMD_WRAP_PREV: case CMD_BUFFER_NEXT: case CMD_BUFFER_PREV:
	case CMD_CPU_NEXT: case CMD_CPU_PREV: case CMD_EVENT_NEXT:
	case CMD_EVENT_PREV: {
		static const int kinds[] = { -1, MARKER_TSC_WRAP,
		    VIEW_MARKER_BUFFER, MARKER_CPU_CHANGE,
		    MARKER_CUSTOM_EVENT };
		int i = c - CMD_MARKER_NEXT;
		view_marker_jump(bv, kinds[i / 2], i % 2 == 0);
		lead(p, v);
		relay(v);
		return PANE_REDRAW | PANE_DATA;
	}
	default:
		return PANE_UNHANDLED;
	}
}

/* A click or the wheel in either timeline: that view's (which stays
 * where it is: S swaps). */
static int
tl_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct diff_timelines_pane *p = (struct diff_timelines_pane *)pane;
	struct diff_session *s = diff_session(v);

	(void)r;
	if (s->base == NULL)
		return PANE_HANDLED;
	for (int k = 0; k < 2; k++) {
		struct rect h = p->half[k];
		if (y < h.y || y >= h.y + h.h)
			continue;
		bool is_base = (k == 0) == p->base_on_top;
		struct view *tv = is_base ? &s->bview : v;
		follow(p, v);
		int flags = pane_mouse(tv, PANE_TIMELINE, h, x, y, b);
		if (is_base) {
			lead(p, v);
			relay(v);
		}
		return flags | PANE_REDRAW;
	}
	return PANE_HANDLED;
}

/* The function of the cursor's call on top, in the new trace. */
static func_id
tl_selected(struct pane *pane, struct view *v)
{
	struct diff_timelines_pane *p = (struct diff_timelines_pane *)pane;
	struct view *tv = top(p, v);

	if (!tv->has_cursor || diff_session(v)->base == NULL)
		return CALL_NONE;
	func_id f = trace_slice(tv->trace, tv->cursor)->func;
	return tv == v ? f : diff_func_named(v->trace,
	    trace_func_name(tv->trace, f));
}

static bool
tl_available(struct pane *pane, struct view *v)
{
	(void)pane;
	return diff_session(v)->base != NULL;
}

const struct pane_class pane_diff_timelines = {
	.title = "Timelines",
	.ctx = CTX_DIFF_TIMELINES,
	.hint = "? keys  S swap  a/A/M align  +/- zoom  H/L pan  h/j/k/l move",
	.create = tl_create,
	.free = tl_free,
	.draw = tl_draw,
	.command = tl_command,
	.mouse = tl_mouse,
	.selected_func = tl_selected,
	.available = tl_available,
};
