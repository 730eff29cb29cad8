/*
 * The investigation panes (ui/calltree.c, ui/calls.c): what the rest of
 * the viewer asks of them. Each pane owns its state; the view holds it
 * (view->calltree, view->calls) and frees it through these functions.
 *
 * The call tree is the flame pane's tree (view->tree) shown as a list
 * that folds. The callers/callees and calls panes are about one function
 * at a time, chosen in whatever pane was up when they were opened; their
 * queries (query_calls.h) run on the worker for big traces.
 */
#ifndef TTV_UI_CALLPANES_H
#define TTV_UI_CALLPANES_H

#include "jobs.h"
#include "view.h"

void calltree_pane_free(struct view *v);

/* Shows the callers/callees (PANE_CALLERS) or calls (PANE_INSTANCES) pane
 * for function f, computing them over the view's span; PANE_* flags. */
int calls_pane_open(struct view *v, enum pane_id pane, func_id f);
/* From the timeline: the cursor's call to the next slower (or faster)
 * call of the same function in the span; when the calls of that function
 * are still being found, the step is taken when they come. */
int calls_pane_step(struct view *v, bool slower);
void calls_pane_free(struct view *v);
/* The function of the callers/callees or calls pane, or CALL_NONE. */
func_id calls_pane_func(const struct view *v, enum pane_id pane);

#endif
