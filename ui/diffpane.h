/*
 * The trace compared with a base trace (ui/diff*.c), as the rest of the
 * viewer sees it: the differential flame graph (PANE_DIFF), the table of
 * the functions of both (PANE_DIFF_TABLE), one function in both
 * (PANE_DIFF_CALLS) and the two timelines (PANE_DIFF_TIMELINES). The base
 * comes from the program (ttv --diff) or from :diff BASE, loaded on the
 * worker by the program's road (viewer.h, struct viewer_diff).
 */
#ifndef TTV_UI_DIFFPANE_H
#define TTV_UI_DIFFPANE_H

#include <stdbool.h>

#include "scope.h"
#include "view.h"
#include "viewer.h"

/* Makes comparisons possible (diff NULL: :diff says it cannot), the
 * trace's side being the command line's selection sel (its filter
 * copied); a base in diff is taken, compared at once, and its flame graph
 * shown. */
void diff_pane_setup(struct view *v, struct viewer_diff *diff,
    const struct selection *sel);
/* :diff PATH: loads PATH as the base on the worker, its progress in the
 * differential flame graph, which comes to the front; PANE_* flags. */
int diff_pane_load(struct view *v, const char *path);
/* Esc: stops a base being loaded or compared; false when none is. */
bool diff_pane_stop(struct view *v);
/* A base being loaded or compared (on the worker). */
bool diff_pane_busy(struct view *v);
/* The base, for the same comparison with a newer read of the trace
 * (--follow): 1 with the base moved into to's base fields (to then goes
 * to diff_pane_setup on the new view; *path, which to->base_path points
 * to, is the caller's to free after), 0 when there is no base, -1 while
 * one is being loaded or compared (the newer read waits). */
int diff_pane_hand_over(struct view *v, struct viewer_diff *to, char **path);
/* No base, none on its way: D asks for one. */
bool diff_pane_idle(struct view *v);
/* @: the function selected in pane `from` (the diff table's row, or the
 * function of another pane) in both traces; PANE_* flags. */
int diff_pane_calls_open(struct view *v, enum pane_id from);

#endif
