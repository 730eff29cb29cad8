/*
 * The log pane: the trace's log records (FXT log records...) on the
 * tracks the filter keeps, with their time and thread. A search (`/`)
 * matches log text too: while one is active the pane lists the records
 * that match. Enter goes to the record's time on its thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "text.h"
#include "xalloc.h"

/* The pane's own state: the records it lists (indices into trace->logs on
 * shown tracks, and matching the search when there is one), made again
 * when the filters or the search changed. */
struct logs_pane {
	struct pane base;	/* base.pos: the selected row */
	size_t *rows;
	size_t nrows;
	bool valid;
};

static struct logs_pane *
logs_refresh(struct pane *pane, struct view *v)
{
	const struct trace *t = v->trace;
	struct logs_pane *p = (struct logs_pane *)pane;

	if (p->valid)
		return p;
	free(p->rows);
	p->rows = xcalloc(t->nlogs ? t->nlogs : 1, sizeof *p->rows);
	p->nrows = 0;
	for (size_t i = 0; i < t->nlogs; i++) {
		uint32_t tr = t->logs[i].track;
		if (tr < t->ntracks && !view_track_shown(v, tr))
			continue;
		if (v->log_match != NULL && !v->log_match[i])
			continue;
		p->rows[p->nrows++] = i;
	}
	p->valid = true;
	return p;
}

static struct pane *
logs_create(struct view *v)
{
	struct logs_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	return &p->base;
}

static void
logs_free(struct pane *pane)
{
	struct logs_pane *p = (struct logs_pane *)pane;

	free(p->rows);
	free(p);
}

/* The rows follow the filters and the search. */
static void
logs_stale(struct pane *pane, struct view *v, unsigned changed)
{
	(void)v;
	(void)changed;
	((struct logs_pane *)pane)->valid = false;
}

size_t
logs_pane_rows(struct view *v, const size_t **rows)
{
	struct logs_pane *p = logs_refresh(v->panes[PANE_LOGS], v);

	*rows = p->rows;
	return p->nrows;
}

static void
logs_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	const struct trace *t = v->trace;
	struct list_pos *p = &pane->pos;
	char buf[160], tb[48], lb[64];
	int rows = r.h - 2;
	struct logs_pane *lp = logs_refresh(pane, v);

	if (v->search_pending)
		snprintf(buf, sizeof buf, "searching /%s/...",
		    v->search_pattern ? v->search_pattern : "");
	else if (v->search_pattern != NULL)
		snprintf(buf, sizeof buf, "%zu of %zu records match /%s/; "
		    "\\ shows all", lp->nrows, t->nlogs, v->search_pattern);
	else
		snprintf(buf, sizeof buf, "%zu of %zu records; / searches, "
		    "Enter jumps to the time", lp->nrows, t->nlogs);
	pane_title(g, r, "Logs", buf);
	/* every nanosecond, as g takes it back */
	int tw = view_time_exact_width(v);
	grid_printf(g, r.x, r.y + 1, r.w, STYLE_TITLE, 0, "%-*s %-16s %s",
	    tw, "time", "thread", "text");
	list_clamp(p, lp->nrows, rows);
	for (int row = 0; row < rows && p->top + (size_t)row < lp->nrows;
	    row++) {
		size_t i = p->top + (size_t)row;
		const struct log_entry *l = &t->logs[lp->rows[i]];
		int y = r.y + 2 + row;
		int style = i == p->sel ? STYLE_SELECTED : STYLE_NORMAL;
		const char *label = "-";

		if (i == p->sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		if (l->track < t->ntracks)
			label = track_label(t, &t->tracks[l->track], lb,
			    sizeof lb);
		text_puts(g, r.x, y, tw, view_time_exact(v, l->t, tb,
		    sizeof tb), style, 0);
		text_puts(g, r.x + tw + 1, y, 16, label, style, 0);
		if (r.w > tw + 18)
			text_puts(g, r.x + tw + 18, y, r.w - tw - 18,
			    trace_str(t, l->text), i != p->sel &&
			    view_log_matches(v, lp->rows[i]) ?
			    STYLE_MATCH : style, 0);
	}
	if (lp->nrows == 0)
		grid_puts(g, r.x, r.y + 2, r.w, t->nlogs == 0 ?
		    "no log records in this trace" : "no log records shown",
		    STYLE_DIM, 0);
}

static int
logs_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct list_pos *p = &pane->pos;
	const struct log_entry *l;
	struct logs_pane *lp = logs_refresh(pane, v);

	if (c != CMD_LIST_ENTER)
		return list_command(p, lp->nrows, c);
	if (p->sel >= lp->nrows)
		return PANE_HANDLED;
	l = &v->trace->logs[lp->rows[p->sel]];
	if (l->track < v->trace->ntracks) {
		v->cursor_track = l->track;
		v->folded[l->track] = 0;
	}
	view_goto_time(v, l->t);
	view_show_pane(v, PANE_TIMELINE);
	view_message(v, false, "log %zu of %zu", lp->rows[p->sel] + 1,
	    v->trace->nlogs);
	return PANE_REDRAW | PANE_DATA;
}

static int
logs_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)x;
	return list_mouse(pane, v, &pane->pos, logs_refresh(pane, v)->nrows, r,
	    y, b, logs_command);
}

const struct pane_class pane_logs = {
	.title = "Logs",
	.ctx = CTX_LOGS,
	.hint = "? keys  j/k move  Enter go there  1 timeline",
	.create = logs_create,
	.free = logs_free,
	.stale = logs_stale,
	.draw = logs_draw,
	.command = logs_command,
	.mouse = logs_mouse,
};
