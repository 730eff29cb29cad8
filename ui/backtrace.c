/*
 * The backtrace pane: the selected call and every caller above it up to
 * the thread's root, innermost first, as a debugger lists frames (#0 the
 * call, #1 its caller...), with each frame's start, duration, self time
 * and, where the trace's binary has debug info, its source line. Enter
 * selects the frame in the timeline.
 *
 * The chain is query_call_path's (src/query_window.c), the one the
 * details pane's path line shows and SQL's ancestor_slice(id) lists
 * (tests/core checks that they agree). It is the chain of the call the
 * pane was opened on: selecting one of its frames (Enter here, or k in
 * the timeline) keeps it, with that frame's row selected; a cursor on
 * any other call makes the chain again from there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

struct backtrace_pane {
	struct pane base;	/* base.pos: the selected frame */
	struct slice_ref *path;	/* outermost first, as query_call_path */
	size_t npath;
	bool has_seen;
	struct slice_ref seen;	/* the cursor at the last draw */
};

#define NUM_W 10

static bool
same_ref(struct slice_ref a, struct slice_ref b)
{
	return a.track == b.track && a.depth == b.depth && a.index == b.index;
}

static struct pane *
backtrace_create(struct view *v)
{
	(void)v;
	return &((struct backtrace_pane *)xcalloc(1,
	    sizeof(struct backtrace_pane)))->base;
}

static void
backtrace_free(struct pane *pane)
{
	struct backtrace_pane *p = (struct backtrace_pane *)pane;

	free(p->path);
	free(p);
}

/* The frame of the chain at row i (row 0: the innermost). */
static struct slice_ref
frame(const struct backtrace_pane *p, size_t i)
{
	return p->path[p->npath - 1 - i];
}

/* Follows the cursor: the chain of a call outside it is made anew. */
static void
follow(struct backtrace_pane *p, struct view *v)
{
	if (!v->has_cursor) {
		free(p->path);
		p->path = NULL;
		p->npath = 0;
		p->has_seen = false;
		return;
	}
	if (p->has_seen && same_ref(p->seen, v->cursor))
		return;
	p->has_seen = true;
	p->seen = v->cursor;
	for (size_t i = 0; i < p->npath; i++)
		if (same_ref(frame(p, i), v->cursor)) {
			p->base.pos.sel = i;
			return;
		}
	free(p->path);
	p->npath = query_call_path(v->trace, v->cursor, &p->path);
	p->base.pos.sel = p->base.pos.top = 0;
}

static void
right(struct grid *g, int x_end, int y, const char *s, int style)
{
	int len = text_width(g, s, strlen(s), 64);

	text_puts(g, x_end - len, y, len, s, style, 0);
}

static void
backtrace_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct backtrace_pane *p = (struct backtrace_pane *)pane;
	const struct trace *t = v->trace;
	struct list_pos *pos = &pane->pos;
	char buf[256], b1[48], b2[48], b3[48], lb[64];
	int rows = r.h - 2;

	follow(p, v);
	if (p->npath == 0) {
		pane_title(g, r, "Backtrace", "no call selected: select one "
		    "in the timeline, then t");
		return;
	}
	const struct track *tr = &t->tracks[p->path[0].track];
	snprintf(buf, sizeof buf, "%s: %zu frame%s up to the root of %s; "
	    "Enter selects a frame", trace_func_name(t,
	    trace_slice(t, frame(p, 0))->func), p->npath,
	    p->npath == 1 ? "" : "s", track_label(t, tr, lb, sizeof lb));
	pane_title(g, r, "Backtrace", buf);
	int xs = r.x + 5, xd = xs + 20, xself = xd + NUM_W + 1;
	int xn = xself + NUM_W + 2;
	int y0 = r.y + 1;
	grid_puts(g, r.x, y0, 4, "#", STYLE_TITLE, 0);
	grid_puts(g, xs, y0, 19, "start", STYLE_TITLE, 0);
	right(g, xd + NUM_W, y0, "duration", STYLE_TITLE);
	right(g, xself + NUM_W, y0, "self", STYLE_TITLE);
	grid_puts(g, xn, y0, r.w - (xn - r.x), "function", STYLE_TITLE, 0);
	list_clamp(pos, p->npath, rows);
	for (int row = 0; row < rows && pos->top + (size_t)row < p->npath;
	    row++) {
		size_t i = pos->top + (size_t)row;
		struct slice_ref f = frame(p, i);
		const struct slice *s = trace_slice(t, f);
		int y = y0 + 1 + row;
		bool sel = i == pos->sel;
		bool cur = v->has_cursor && same_ref(f, v->cursor);
		int style = sel ? STYLE_SELECTED : view_slice_shown(v, s) ?
		    STYLE_NORMAL : STYLE_DIM;

		if (sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		snprintf(b1, sizeof b1, "%s%zu", cur ? ">" : " ", i);
		grid_puts(g, r.x, y, 5, b1, style, 0);
		text_puts(g, xs, y, 19, view_time_exact(v, s->start, b2,
		    sizeof b2), style, 0);
		right(g, xd + NUM_W, y, timefmt_duration(trace_slice_dur(t, f),
		    b3, sizeof b3), style);
		right(g, xself + NUM_W, y, timefmt_duration(query_self_time(t,
		    f), b3, sizeof b3), style);
		text_puts_mid(g, xn, y, r.w - (xn - r.x), trace_func_name(t,
		    s->func), sel ? style : view_slice_matches(v, f) ?
		    STYLE_MATCH : style, 0);
	}
}

static int
backtrace_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct backtrace_pane *p = (struct backtrace_pane *)pane;
	struct list_pos *pos = &pane->pos;

	follow(p, v);
	if (c != CMD_LIST_ENTER)
		return list_command(pos, p->npath, c);
	if (pos->sel >= p->npath)
		return PANE_HANDLED;
	struct slice_ref f = frame(p, pos->sel);
	view_set_cursor(v, f);
	/* the chain stays: the cursor is one of its frames */
	p->seen = f;
	v->folded[f.track] = 0;
	view_show_cursor(v);
	view_show_pane(v, PANE_TIMELINE);
	view_message(v, false, "frame %zu of %zu: %s; t shows the backtrace "
	    "again", pos->sel, p->npath, trace_func_name(v->trace,
	    trace_slice(v->trace, f)->func));
	return PANE_REDRAW | PANE_DATA;
}

static int
backtrace_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct backtrace_pane *p = (struct backtrace_pane *)pane;

	(void)x;
	follow(p, v);
	return list_mouse(pane, v, &pane->pos, p->npath, r, y, b,
	    backtrace_command);
}

static func_id
backtrace_selected(struct pane *pane, struct view *v)
{
	struct backtrace_pane *p = (struct backtrace_pane *)pane;

	follow(p, v);
	return pane->pos.sel < p->npath ? trace_slice(v->trace, frame(p,
	    pane->pos.sel))->func : CALL_NONE;
}

const struct pane_class pane_backtrace = {
	.title = "Backtrace",
	.ctx = CTX_LIST,
	.hint = "? keys  j/k frame  Enter select it  1 timeline",
	.create = backtrace_create,
	.free = backtrace_free,
	.draw = backtrace_draw,
	.command = backtrace_command,
	.mouse = backtrace_mouse,
	.selected_func = backtrace_selected,
};
