/*
 * The search results pane: one row per function whose name matches the
 * search, with its number of matches and their total time; Enter goes to
 * the function's first match in time. The search itself (view_search)
 * lives in view.c because every pane highlights its matches.
 */
#include <stdio.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "timefmt.h"

static void
search_draw(struct view *v, struct grid *g, struct rect r)
{
	struct list_pos *p = &v->list[PANE_SEARCH];
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
search_command(struct view *v, enum cmd c)
{
	struct list_pos *p = &v->list[PANE_SEARCH];

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
		v->pane = PANE_TIMELINE;
		view_message(v, false, "first match of %s (n: next)",
		    trace_func_name(v->trace, f));
		break;
	}
	return PANE_REDRAW | PANE_DATA;
}

static int
search_mouse(struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)x;
	return list_mouse(v, &v->list[PANE_SEARCH], v->nresults, r, y, b,
	    search_command);
}

static func_id
search_selected(struct view *v)
{
	size_t sel = v->list[PANE_SEARCH].sel;

	return sel < v->nresults ? v->results[sel].func : CALL_NONE;
}

const struct pane_class pane_search = {
	"Search", CTX_SEARCH, search_draw, search_command,
	search_mouse, search_selected
};
