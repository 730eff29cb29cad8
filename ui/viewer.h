/*
 * The interactive viewer: runs the full-screen panes on a loaded trace.
 */
#ifndef TTV_VIEWER_H
#define TTV_VIEWER_H

#include "model.h"
#include "query.h"

#include "open_trace.h"

/* Opens the terminal, loads path through open_trace() (progress on the
 * status line; --strict, --thread, --function and --hide as every mode
 * applies them), and runs the panes until the user quits. With keep_state
 * the state saved for the trace (state.h) is restored at the start and
 * saved at the end. Returns the
 * process exit status: 0 ok, 1 unreadable or damaged input (also after
 * quitting a damaged trace that was shown), 2 no usable terminal. */
int viewer_main(const char *path, const struct open_options *o,
    bool keep_state);

#endif
