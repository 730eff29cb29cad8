/*
 * The thread filter pane: a list of the trace's threads to pick from
 * (Space), with invert and all/none; the filter applies at once to every
 * pane and shows in the header line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "xalloc.h"

/* The pane's own state is its list position (base.pos); the picks are
 * the view's (view->thread_pick), which the saved state keeps. */
static struct pane *
threads_create(struct view *v)
{
	(void)v;
	return xcalloc(1, sizeof(struct pane));
}

static void
threads_free(struct pane *pane)
{
	free(pane);
}

/* Thread tracks in trace order: row i is the i-th thread track. */
static size_t
thread_count(const struct trace *t)
{
	size_t n = 0;

	for (uint32_t i = 0; i < t->ntracks; i++)
		n += t->tracks[i].kind == TRACK_THREAD;
	return n;
}

static uint32_t
thread_track(const struct trace *t, size_t row)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].kind == TRACK_THREAD && row-- == 0)
			return i;
	return UINT32_MAX;
}

static void
threads_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	const struct trace *t = v->trace;
	struct list_pos *p = &pane->pos;
	size_t n = thread_count(t), row = 0;
	char buf[128], lb[64];
	int rows = r.h - 2;

	snprintf(buf, sizeof buf, "Space picks, I inverts%s, a all/none, "
	    "Enter returns", v->thread_invert ? " (now: hide picked)" : "");
	pane_title(g, r, "Threads", buf);
	grid_printf(g, r.x, r.y + 1, r.w, STYLE_TITLE, 0, "    %-24s %10s %10s %10s",
	    "thread", "tid", "pid", "slices");
	list_clamp(p, n, rows);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		int y, c, style;
		if (tr->kind != TRACK_THREAD)
			continue;
		if (row < p->top || row >= p->top + (size_t)rows) {
			row++;
			continue;
		}
		y = r.y + 2 + (int)(row - p->top);
		style = row == p->sel ? STYLE_SELECTED : STYLE_NORMAL;
		if (row == p->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		grid_puts(g, r.x, y, 4, v->thread_pick[i] ? "[x] " : "[ ] ",
		    style, 0);
		text_puts(g, r.x + 4, y, 24, track_label(t, tr, lb, sizeof lb),
		    style, view_track_shown(v, i) ? 0 : 0);
		c = 4 + 25;
		grid_printf(g, r.x + c, y, r.w - c, style, 0, "%10lld %10lld %10zu%s",
		    (long long)tr->tid, tr->process < t->nprocesses ?
		    (long long)t->processes[tr->process].pid : -1LL,
		    tr->nslices, view_track_shown(v, i) ? "" : "  hidden");
		row++;
	}
	if (n == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no threads in this trace",
		    STYLE_DIM, 0);
}

static int
threads_command(struct pane *pane, struct view *v, enum cmd c)
{
	const struct trace *t = v->trace;
	struct list_pos *p = &pane->pos;
	size_t n = thread_count(t);
	uint32_t tr;
	bool any = false;

	switch (c) {
	case CMD_THREAD_TOGGLE:
		tr = thread_track(t, p->sel);
		if (tr == UINT32_MAX)
			return PANE_HANDLED;
		v->thread_pick[tr] ^= 1;
		view_apply_threads(v);
		if (p->sel + 1 < n)
			p->sel++;
		return PANE_REDRAW | PANE_DATA;
	case CMD_THREAD_INVERT:
		v->thread_invert = !v->thread_invert;
		view_apply_threads(v);
		return PANE_REDRAW | PANE_DATA;
	case CMD_THREAD_ALL:
		for (uint32_t i = 0; i < t->ntracks; i++)
			any |= v->thread_pick[i] != 0;
		for (uint32_t i = 0; i < t->ntracks; i++)
			v->thread_pick[i] = !any &&
			    t->tracks[i].kind == TRACK_THREAD;
		view_apply_threads(v);
		return PANE_REDRAW | PANE_DATA;
	default:
		return list_command(p, n, c);
	}
}

/* A click picks or unpicks the thread under it; the wheel scrolls. */
static int
threads_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct list_pos *p = &pane->pos;
	size_t n = thread_count(v->trace), row;
	uint32_t tr;

	(void)x;
	if (b != MOUSE_CLICK)
		return list_mouse(pane, v, p, n, r, y, b, threads_command);
	if (y < r.y + 2)
		return PANE_HANDLED;
	row = p->top + (size_t)(y - r.y - 2);
	tr = thread_track(v->trace, row);
	if (tr == UINT32_MAX)
		return PANE_HANDLED;
	p->sel = row;
	v->thread_pick[tr] ^= 1;
	view_apply_threads(v);
	return PANE_REDRAW | PANE_DATA;
}

const struct pane_class pane_threads = {
	.title = "Threads",
	.ctx = CTX_THREADS,
	.hint = "? keys  Space pick  I invert  a all  Enter apply",
	.create = threads_create,
	.free = threads_free,
	.draw = threads_draw,
	.command = threads_command,
	.mouse = threads_mouse,
};
