/*
 * What a follower (--follow) has told so far of a trace that grows: for
 * each thread, how far its rows have been written. The trace is read
 * again as it grows, and a row is new when it comes after what its
 * thread has told; a row is told once it is whole (a call with its end,
 * up to the time the trace is known complete, trace->complete_until).
 *
 * Rows of one thread come whole in a known order: calls by their end
 * (an inner call before the outer one that ends at the same time), and
 * instants, log records and markers by their time. So a thread's state
 * is a few numbers, whatever the length of the session: the memory of a
 * follower is that of its threads, not of its rows. The state is keyed
 * by the thread's (kind, process id, thread id) and by absolute time,
 * which stay the same from one read to the next, and is plain data that
 * a resumed session could keep.
 */
#ifndef TTV_TOLD_H
#define TTV_TOLD_H

#include <stdbool.h>

#include "model.h"

/* What a row is, for the order rows of one thread come in. */
enum told_kind { TOLD_CALL, TOLD_INSTANT, TOLD_LOG, TOLD_MARKER,
	TOLD_KINDS };

struct told;

struct told *told_new(void);
void told_free(struct told *k);
/* A new read of the trace: its tracks are matched to the threads' states
 * (t must stay alive until the next told_round). */
void told_round(struct told *k, const struct trace *t);
/* Forgets everything told (the next trace is another one). */
void told_forget(struct told *k);

/* Whether call r of the round's trace is whole and not told yet; when it
 * is, it counts as told from now on. */
bool told_call(struct told *k, struct slice_ref r);
/* The same for a row at one time (an instant, a log record, a marker)
 * on a track, or on none (UINT32_MAX) in the lane its text names (a CTF
 * packet marker's stream, written apart from the others; NULL: one lane
 * for all), the rows of one lane and kind taken in time order within a
 * round. */
bool told_point(struct told *k, enum told_kind kind, uint32_t track,
    const char *lane, ttv_ns t);

/* Where the rows of a kind (TOLD_CALL, TOLD_INSTANT) of track `track`
 * of the round's trace can be new, in the trace's time: none of its
 * calls that end before it, or of its instants before it, is (told
 * already, or seen whole by an earlier round and so never to be told),
 * so a search may leave them out. TTV_NS_MIN: any may be. */
ttv_ns told_from(const struct told *k, enum told_kind kind, uint32_t track);
/* The first log record (TOLD_LOG) or marker (TOLD_MARKER) of the
 * round's trace that can be new: the ones before it were all there in
 * an earlier round, up to where that read was complete, so each was told
 * then or never will be (0 when rows came since among them: all may be
 * new). */
size_t told_list_from(const struct told *k, enum told_kind kind);

#endif
