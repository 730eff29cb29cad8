/*
 * What the viewer remembers of a trace between sessions: the window, the
 * range, the pane in front (and the function of the callers and calls
 * panes), the columns chosen, the thread and function filters, and the
 * bookmarks. One file
 * per trace under $XDG_STATE_HOME/ttv/ (~/.local/state/ttv/ without it),
 * named by a hash of the trace's identity — its real path, size and
 * modification time — which the file repeats, so a trace that changed
 * starts afresh.
 *
 * A state file is input like a trace: read within a size limit, every
 * field checked against the trace, and a file with anything wrong in it
 * ignored as a whole, with a message.
 */
#ifndef TTV_UI_STATE_H
#define TTV_UI_STATE_H

#include <stdbool.h>

#include "view.h"

/* Restores the state saved for the trace at path into v. Filters are
 * left alone when keep_filters (the command line gave some). A trace
 * being written (follow: ttv --follow, path a file, a directory or a
 * live session's URL) is known by its path alone, and only what is not a
 * time or a call of one read is restored: the pane in front, the details
 * pane, the columns, the function filter and the thread filter (when one
 * of its threads is there yet); not the window, the range nor the
 * bookmarks. Returns true when a state was restored; a file that was
 * ignored leaves a message on the view's status line. */
bool state_load(struct view *v, const char *path, bool keep_filters,
    bool follow);
/* Saves v's state for the trace at path: 0, or -1 with *err (caller
 * frees). */
int state_save(const struct view *v, const char *path, char **err);

#endif
