/*
 * The interactive viewer: runs the full-screen panes on a loaded trace.
 * The program opens the terminal first (viewer_open), so that the load it
 * then makes shows its progress on the status line (viewer_progress), and
 * hands over the trace loaded (viewer_run), or closes the terminal before
 * it says why the load failed (viewer_close).
 */
#ifndef TTV_VIEWER_H
#define TTV_VIEWER_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "scope.h"

struct viewer;

/* Opens the terminal for the trace at path. NULL after a message on
 * stderr when there is no usable terminal (exit status 2). */
struct viewer *viewer_open(const char *path);
/* A load's progress on the status line (a load_options progress, arg the
 * viewer). Ctrl-C while the load runs leaves the program (130), the
 * terminal restored. */
void viewer_progress(void *arg, uint64_t done, uint64_t total);
/* Closes the terminal and frees w: the load failed, and what is written
 * next stays on the screen. */
void viewer_close(struct viewer *w);
/* Runs the panes on t, which it takes, with the filter sel made from sc
 * (its function mask taken too), until the user quits; frees w. With
 * keep_state the state saved for the trace (state.h) is restored at the
 * start and saved at the end. Returns the process exit status: 0 ok, 1
 * for a damaged trace (shown as far as it could be read). */
int viewer_run(struct viewer *w, struct trace *t, struct selection *sel,
    const struct scope *sc, bool keep_state);

#endif
