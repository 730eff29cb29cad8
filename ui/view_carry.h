/*
 * A view carried over to a newer read of its trace (ttv --follow): what
 * the user set up on the old trace — window, range, pane in front and
 * each pane's selected row and columns, the details pane, the time
 * format, the cursor, folded lanes, thread and function filters, the
 * search, the SQL pane's query (run again on the new trace), bookmarks,
 * each pane's own state (pane_class.carry_take: the functions' sort, the
 * flame graph's zoom, the call tree's folds), the status message — taken while the old trace is alive, then applied
 * to a fresh view of the new one. Indexes of one read mean nothing in
 * the next, so threads are found again by their (kind, process id,
 * thread id, name) and calls by their thread, depth and start time; a
 * function by its name.
 */
#ifndef TTV_UI_VIEW_CARRY_H
#define TTV_UI_VIEW_CARRY_H

#include "view.h"

struct view_carry;

/* What v's user set up (v's trace must be alive). */
struct view_carry *view_carry_take(const struct view *v);
/* Applies it to v, a fresh view of the newer trace with its panes made
 * (view_init, panes_create); what the trace does not hold any more is
 * left as a fresh view has it. */
void view_carry_apply(const struct view_carry *c, struct view *v);
void view_carry_free(struct view_carry *c);

#endif
