/*
 * The marker list pane: every marker (buffer boundaries, TSC wraps, CPU
 * changes, custom and typed events, lost data...) on the tracks the
 * filter keeps, with its time; Enter goes there in the timeline.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "timefmt.h"

static void
markers_draw(struct view *v, struct grid *g, struct rect r)
{
	const struct trace *t = v->trace;
	struct list_pos *p = &v->list[PANE_MARKERS];
	char buf[128], tb[48], lb[64];
	int rows = r.h - 2;

	view_markers_refresh(v);
	snprintf(buf, sizeof buf, "%zu of %zu markers; ] [ next/previous, "
	    "w b c e by kind", v->nmarker_rows, t->nmarkers);
	pane_title(g, r, "Markers", buf);
	grid_printf(g, r.x, r.y + 1, r.w, STYLE_TITLE, 0, "%-14s %-13s %-16s %10s  %s",
	    "time", "kind", "track", "value", "text");
	list_clamp(p, v->nmarker_rows, rows);
	for (int row = 0; row < rows && p->top + (size_t)row < v->nmarker_rows;
	    row++) {
		size_t i = p->top + (size_t)row;
		const struct marker *m = &t->markers[v->marker_rows[i]];
		int y = r.y + 2 + row, c;
		int style = i == p->sel ? STYLE_SELECTED : STYLE_NORMAL;
		const char *label = "-";

		if (i == p->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		if (m->track < t->ntracks)
			label = track_label(t, &t->tracks[m->track], lb,
			    sizeof lb);
		view_time(v, m->t, tb, sizeof tb);
		c = text_puts(g, r.x, y, 14, tb, style, 0);
		c = 15;
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
	if (v->nmarker_rows == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no markers in this trace",
		    STYLE_DIM, 0);
}

static int
markers_command(struct view *v, enum cmd c)
{
	struct list_pos *p = &v->list[PANE_MARKERS];
	const struct marker *m;

	view_markers_refresh(v);
	if (c != CMD_LIST_ENTER)
		return list_command(p, v->nmarker_rows, c);
	if (p->sel >= v->nmarker_rows)
		return PANE_HANDLED;
	m = &v->trace->markers[v->marker_rows[p->sel]];
	if (m->track < v->trace->ntracks)
		v->cursor_track = m->track;
	view_goto_time(v, m->t);
	v->pane = PANE_TIMELINE;
	view_message(v, false, "%s", marker_kind_name(
	    (enum marker_kind)m->kind));
	return PANE_REDRAW | PANE_DATA;
}

static int
markers_mouse(struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)x;
	return list_mouse(v, &v->list[PANE_MARKERS], v->nmarker_rows, r, y, b,
	    markers_command);
}

const struct pane_class pane_markers = {
	"Markers", CTX_MARKERS, markers_draw, markers_command,
	markers_mouse, NULL
};
