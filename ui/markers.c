/*
 * The marker list pane: every marker (buffer boundaries, TSC wraps, CPU
 * changes, custom and typed events, lost data...) on the tracks the
 * filter keeps, with its time; Enter goes there in the timeline.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* The pane's own state: the markers it lists (indices into
 * trace->markers that pass the filter), made again when the filters
 * changed. */
struct markers_pane {
	struct pane base;	/* base.pos: the selected row */
	size_t *rows;
	size_t nrows;
	bool valid;
};

static struct markers_pane *
markers_refresh(struct pane *pane, struct view *v)
{
	struct markers_pane *p = (struct markers_pane *)pane;

	if (!p->valid) {
		free(p->rows);
		p->nrows = query_markers(v->trace, &v->filter, &p->rows);
		p->valid = true;
	}
	return p;
}

static struct pane *
markers_create(struct view *v)
{
	struct markers_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	return &p->base;
}

static void
markers_free(struct pane *pane)
{
	struct markers_pane *p = (struct markers_pane *)pane;

	free(p->rows);
	free(p);
}

static void
markers_stale(struct pane *pane, struct view *v, unsigned changed)
{
	(void)v;
	if (changed & VIEW_CHANGED_DATA)
		((struct markers_pane *)pane)->valid = false;
}

static void
markers_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	const struct trace *t = v->trace;
	struct list_pos *p = &pane->pos;
	char buf[128], tb[48], lb[64];
	int rows = r.h - 2;
	struct markers_pane *mp = markers_refresh(pane, v);

	snprintf(buf, sizeof buf, "%zu of %zu markers; ] [ next/previous, "
	    "w b c e by kind", mp->nrows, t->nmarkers);
	pane_title(g, r, "Markers", buf);
	/* every nanosecond, as g takes it back */
	int tw = view_time_exact_width(v);
	grid_printf(g, r.x, r.y + 1, r.w, STYLE_TITLE, 0, "%-*s %-13s %-16s "
	    "%10s  %s", tw, "time", "kind", "track", "value", "text");
	list_clamp(p, mp->nrows, rows);
	for (int row = 0; row < rows && p->top + (size_t)row < mp->nrows;
	    row++) {
		size_t i = p->top + (size_t)row;
		const struct marker *m = &t->markers[mp->rows[i]];
		int y = r.y + 2 + row, c;
		int style = i == p->sel ? STYLE_SELECTED : STYLE_NORMAL;
		const char *label = "-";

		if (i == p->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		if (m->track < t->ntracks)
			label = track_label(t, &t->tracks[m->track], lb,
			    sizeof lb);
		view_time_exact(v, m->t, tb, sizeof tb);
		text_puts(g, r.x, y, tw, tb, style, 0);
		c = tw + 1;
		c += grid_printf(g, r.x + c, y, r.w - c, style, 0, "%-13s ",
		    marker_kind_name((enum marker_kind)m->kind));
		text_puts(g, r.x + c, y, 16, label, style, 0);
		c += 17;
		c += grid_printf(g, r.x + c, y, r.w - c, style, 0, "%10" PRId64
		    "  ", m->value);
		if (m->text != 0)
			text_puts(g, r.x + c, y, r.w - c, trace_str(t, m->text),
			    style, 0);
	}
	if (mp->nrows == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no markers in this trace",
		    STYLE_DIM, 0);
}

static int
markers_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct list_pos *p = &pane->pos;
	const struct marker *m;
	struct markers_pane *mp = markers_refresh(pane, v);

	if (c != CMD_LIST_ENTER)
		return list_command(p, mp->nrows, c);
	if (p->sel >= mp->nrows)
		return PANE_HANDLED;
	m = &v->trace->markers[mp->rows[p->sel]];
	if (m->track < v->trace->ntracks)
		v->cursor_track = m->track;
	view_goto_time(v, m->t);
	view_show_pane(v, PANE_TIMELINE);
	view_message(v, false, "%s", marker_kind_name(
	    (enum marker_kind)m->kind));
	return PANE_REDRAW | PANE_DATA;
}

static int
markers_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	(void)x;
	return list_mouse(pane, v, &pane->pos, markers_refresh(pane, v)->nrows,
	    r, y, b, markers_command);
}

const struct pane_class pane_markers = {
	.title = "Markers",
	.ctx = CTX_MARKERS,
	.hint = "? keys  j/k move  Enter go there  1 timeline",
	.create = markers_create,
	.free = markers_free,
	.stale = markers_stale,
	.draw = markers_draw,
	.command = markers_command,
	.mouse = markers_mouse,
};
