/*
 * The panes about one function (ui/calls.c): what the rest of the viewer
 * asks of them. Its callers and callees (PANE_CALLERS) and its calls
 * (PANE_INSTANCES) are about a function chosen in whatever pane was up
 * when they were opened; their queries (query_calls.h) run on the worker
 * for big traces.
 */
#ifndef TTV_UI_CALLPANES_H
#define TTV_UI_CALLPANES_H

#include "view.h"

/* Shows the callers/callees (PANE_CALLERS) or calls (PANE_INSTANCES) pane
 * for function f, computing them over the view's span; PANE_* flags. */
int calls_pane_open(struct view *v, enum pane_id pane, func_id f);
/* From the timeline: the cursor's call to the next slower (or faster)
 * call of the same function in the span; when the calls of that function
 * are still being found, the step is taken when they come. */
int calls_pane_step(struct view *v, bool slower);
/* The function of the callers/callees or calls pane, or CALL_NONE. */
func_id calls_pane_func(const struct view *v, enum pane_id pane);

#endif
