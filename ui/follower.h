/*
 * The viewer's follower (ttv --follow): a thread of its own that waits
 * for the trace to change and reads it again, by the road the
 * program gave (struct viewer_follow, viewer.h), so that the viewer
 * keeps answering keys while a long trace is read. Each trace read is
 * left in a mailbox of one: a newer read replaces one the viewer has not
 * taken yet, which is freed. Not the job runner's worker: a wait of the
 * follower would hold up every pane's work.
 */
#ifndef TTV_UI_FOLLOWER_H
#define TTV_UI_FOLLOWER_H

#include <stdbool.h>

#include "model.h"
#include "viewer.h"

struct follower;

/* Starts following with the program's road f (copied). */
struct follower *follower_start(const struct viewer_follow *f);
/* The newest trace read (the caller owns it) or NULL; *waiting, when not
 * NULL, why nothing could be read at the last look, or once the input
 * ended why it did when it was not the end of a live session (the
 * follower's text, valid until the next call), or NULL; *ended once the
 * input ended (no trace will come after this one). */
struct trace *follower_take(struct follower *fl, const char **waiting,
    bool *ended);
/* Frees t, a trace the viewer is done with, on the follower's own
 * thread for it, not the caller's (at once on the caller's when there is
 * none); by follower_stop's return at the latest. */
void follower_discard(struct follower *fl, struct trace *t);
/* Stops the thread (a read in progress runs to its end) and frees
 * everything, a trace not taken too. */
void follower_stop(struct follower *fl);

#endif
