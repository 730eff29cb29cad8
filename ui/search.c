/*
 * The search results pane: one row per function whose name matches the
 * search, with its number of matches and their total time; Enter goes to
 * the function's first match in time. The search itself (view_search)
 * is the view's (view_filter.c) because every pane highlights its
 * matches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* The pane's own state is its list position (base.pos): the rows are
 * the view's search results. */
static struct pane *
search_create(struct view *v)
{
	(void)v;
	return xcalloc(1, sizeof(struct pane));
}

static void
search_free(struct pane *pane)
{
	free(pane);
}

/* New results are shown from the first. */
static void
search_stale(struct pane *pane, struct view *v, unsigned changed)
{
	(void)v;
	if (changed & VIEW_CHANGED_SEARCH)
		pane->pos.sel = pane->pos.top = 0;
}

static void
search_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct list_pos *p = &pane->pos;
	char buf[128];
	int rows = r.h - 2, name_w = r.w - 24;

	if (v->search_pending) {
		pane_title(g, r, "Search results", "searching... (Esc stops)");
		return;
	}
	if (v->match == NULL) {
		pane_title(g, r, "Search results", "none yet: press / and "
		    "type a regex");
		return;
	}
	if (v->nlog_matches > 0)
		snprintf(buf, sizeof buf, "%zu match%s in %zu function%s (and "
		    "%zu log record%s: 7), Enter jumps to the first", v->nhits,
		    v->nhits == 1 ? "" : "es", v->nresults,
		    v->nresults == 1 ? "" : "s", v->nlog_matches,
		    v->nlog_matches == 1 ? "" : "s");
	else
		snprintf(buf, sizeof buf, "%zu match%s in %zu function%s, "
		    "Enter jumps to the first", v->nhits,
		    v->nhits == 1 ? "" : "es", v->nresults,
		    v->nresults == 1 ? "" : "s");
	pane_title(g, r, "Search results", buf);
	if (name_w < 10)
		name_w = 10;
	grid_puts(g, r.x, r.y + 1, name_w, "function", STYLE_TITLE, 0);
	grid_puts(g, r.x + name_w + 12 - 5, r.y + 1, 5, "count", STYLE_TITLE, 0);
	grid_puts(g, r.x + name_w + 24 - 5, r.y + 1, 5, "total", STYLE_TITLE, 0);
	list_clamp(p, v->nresults, rows);
	for (int row = 0; row < rows && p->top + (size_t)row < v->nresults;
	    row++) {
		size_t i = p->top + (size_t)row;
		const struct search_row *sr = &v->results[i];
		int y = r.y + 2 + row, len;
		int style = i == p->sel ? STYLE_SELECTED : STYLE_NORMAL;

		if (i == p->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		text_puts_mid(g, r.x, y, name_w - 1, trace_func_name(v->trace,
		    sr->func), i == p->sel ? STYLE_SELECTED : STYLE_MATCH, 0);
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)sr->count);
		len = (int)strlen(buf);
		grid_puts(g, r.x + name_w + 12 - len, y, len, buf, style, 0);
		timefmt_duration(sr->total, buf, sizeof buf);
		len = text_width(g, buf, strlen(buf), 12);
		text_puts(g, r.x + name_w + 24 - len, y, len, buf, style, 0);
	}
}

static int
search_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct list_pos *p = &pane->pos;

	if (c != CMD_LIST_ENTER)
		return list_command(p, v->nresults, c);
	if (p->sel >= v->nresults)
		return PANE_HANDLED;
	for (size_t i = 0; i < v->nhits; i++) {
		const struct search_hit *h = &v->hits[i];
		func_id f;
		if (h->ref.depth == SEARCH_INSTANT)
			f = v->trace->tracks[h->ref.track].instants[
			    h->ref.index].func;
		else
			f = trace_slice(v->trace, h->ref)->func;
		if (f != v->results[p->sel].func)
			continue;
		if (h->ref.depth == SEARCH_INSTANT) {
			v->cursor_track = h->ref.track;
			view_goto_time(v, h->t);
		} else {
			view_set_cursor(v, h->ref);
			v->folded[h->ref.track] = 0;
			view_show_cursor(v);
		}
		view_show_pane(v, PANE_TIMELINE);
		view_message(v, false, "first match of %s (n: next)",
		    trace_func_name(v->trace, f));
		break;
	}
	return PANE_REDRAW | PANE_DATA;
}

static int
search_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)x;
	return list_mouse(pane, v, &pane->pos, v->nresults, r, y, b,
	    search_command);
}

static func_id
search_selected(struct pane *pane, struct view *v)
{
	size_t sel = pane->pos.sel;

	return sel < v->nresults ? v->results[sel].func : CALL_NONE;
}

const struct pane_class pane_search = {
	.title = "Search",
	.ctx = CTX_SEARCH,
	.hint = "? keys  j/k move  Enter go there  1 timeline",
	.create = search_create,
	.free = search_free,
	.stale = search_stale,
	.draw = search_draw,
	.command = search_command,
	.mouse = search_mouse,
	.selected_func = search_selected,
};
