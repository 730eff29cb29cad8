/*
 * The panes as the rest of the viewer sees them: the class of each (the
 * table in ui/panes.c holds them in enum pane_id order), the details and
 * help drawn beside and over them, and what the tests read of some.
 * The investigation panes and the SQL pane have more: callpanes.h,
 * sqlpane.h.
 */
#ifndef TTV_UI_PANES_H
#define TTV_UI_PANES_H

#include "grid.h"
#include "keys.h"
#include "pane.h"
#include "view.h"

extern const struct pane_class pane_timeline;
extern const struct pane_class pane_flame;
extern const struct pane_class pane_functions;
extern const struct pane_class pane_search;
extern const struct pane_class pane_markers;
extern const struct pane_class pane_threads;
extern const struct pane_class pane_logs;
extern const struct pane_class pane_sql;
extern const struct pane_class pane_calltree;
extern const struct pane_class pane_callers;
extern const struct pane_class pane_instances;
extern const struct pane_class pane_backtrace;
extern const struct pane_class pane_info;
extern const struct pane_class pane_diff;
extern const struct pane_class pane_diff_table;
extern const struct pane_class pane_diff_calls;
extern const struct pane_class pane_diff_timelines;

/* Makes the view's panes, one of each class (after view_init; the view
 * owns them from then on and frees them with view_free). */
void panes_create(struct view *v);

/* Not panes of their own: drawn beside/over the others. */
void details_draw(struct view *v, struct grid *g, struct rect r);
/* The key list over rectangle r, scrolled to pos. */
void help_draw(struct list_pos *pos, struct grid *g, struct rect r);
/* Scrolls the key list; PANE_UNHANDLED for what is not scrolling
 * (closing it is the viewer's). */
int help_command(struct list_pos *pos, enum cmd c);

/* For tests: the functions pane's table (NULL while computing) and its
 * order; the log pane's rows; the flame pane's orientation. */
const struct stats_table *functions_pane_stats(struct view *v,
    enum stats_key *key, bool *desc);
size_t logs_pane_rows(struct view *v, const size_t **rows);
void flame_pane_set_icicle(struct view *v, bool icicle);

/* Timeline internals exposed for tests. */
struct lane_row {
	uint32_t track;
	int32_t depth;		/* -1: the lane header */
};
/* Where a track's lane is in the timeline's order (0: the first). */
uint32_t timeline_lane_pos(const struct view *v, uint32_t track);
/* The rows the timeline shows, in order (caller frees *rows). */
size_t timeline_rows(const struct view *v, struct lane_row **rows);
/* Draws one depth row of a track over [x, x + w). */
void timeline_draw_depth(struct view *v, struct grid *g, int x, int y,
    int w, uint32_t track, uint32_t depth);
void timeline_draw_ruler(struct view *v, struct grid *g, int x, int y,
    int w);

#endif
