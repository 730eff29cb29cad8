/*
 * The pane table: every pane's class, in enum pane_id order. The one
 * place that names them all; the view and the viewer reach a pane through
 * its class.
 */
#include "panes.h"

/* The pane commands (keys 1 to 9, v, #, t, A) name the panes in this order:
 * CMD_PANE_TIMELINE + id (the viewer's cmd_pane, the saved state). */
_Static_assert(CMD_PANE_DIFF_TIMELINES - CMD_PANE_TIMELINE == PANE_COUNT - 1,
    "a pane command for every pane, in pane order");

static const struct pane_class *const pane_classes[PANE_COUNT] = {
	[PANE_TIMELINE] = &pane_timeline,
	[PANE_FLAME] = &pane_flame,
	[PANE_FUNCTIONS] = &pane_functions,
	[PANE_SEARCH] = &pane_search,
	[PANE_MARKERS] = &pane_markers,
	[PANE_THREADS] = &pane_threads,
	[PANE_LOGS] = &pane_logs,
	[PANE_SQL] = &pane_sql,
	[PANE_CALLTREE] = &pane_calltree,
	[PANE_CALLERS] = &pane_callers,
	[PANE_INSTANCES] = &pane_instances,
	[PANE_BACKTRACE] = &pane_backtrace,
	[PANE_INFO] = &pane_info,
	[PANE_DIFF] = &pane_diff,
	[PANE_DIFF_TABLE] = &pane_diff_table,
	[PANE_DIFF_CALLS] = &pane_diff_calls,
	[PANE_DIFF_TIMELINES] = &pane_diff_timelines,
};

void
panes_create(struct view *v)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = pane_classes[i]->create(v);
		p->cls = pane_classes[i];
		v->panes[i] = p;
	}
}
