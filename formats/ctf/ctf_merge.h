/*
 * Every CTF trace below a directory, or the trace of a metadata file,
 * merged into one time-ordered walk of packet starts and events
 * (ctf_merge.c), decoded ahead on other threads when the trace is large.
 */
#ifndef TTV_CTF_MERGE_H
#define TTV_CTF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/ctf_packets.h"

struct ctf_reader;

/* Entries looked at so far while looking for traces (total is 0). */
typedef void (*ctf_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Opens a directory (every trace below it, see ctf_dir.h) or a metadata
 * file. Metadata problems, and files not read, are reported through diag;
 * returns NULL if no trace could be opened (and says why through diag).
 * progress may be NULL. */
struct ctf_reader *ctf_reader_open(const char *path, ctf_diag_fn diag,
    void *arg, ctf_progress_fn progress, void *progress_arg);
/* The same for a trace being written (--follow): a stream is read up to
 * the last packet its index lists (one without an index file as it is),
 * a trace whose metadata file is still empty is not there yet. */
struct ctf_reader *ctf_reader_open_growing(const char *path,
    ctf_diag_fn diag, void *arg, ctf_progress_fn progress,
    void *progress_arg);
/* Up to when every indexed stream is known whole: the earliest of their
 * last packets' ends, in ns of their clocks (what ctf_item.ns counts).
 * False when no stream has an indexed packet. An event still to come in
 * a stream comes after its last packet, so nothing before the horizon
 * is still to come. A stream quiet since before it holds the horizon
 * back until it writes again, unless it said it has nothing before a
 * later time: beacons (a live relay's INACTIVE, sorted by file, n of
 * them) move its end up to theirs. Kept after the walk: the streams'
 * indexes are not. */
struct stream_beacon;
bool ctf_reader_horizon(const struct ctf_reader *r,
    const struct stream_beacon *beacons, size_t nbeacons, int64_t *ns);
void ctf_reader_free(struct ctf_reader *r);
/* A reader of a trace being written that goes on from where it stopped
 * (--follow): before ctf_reader_start. Its streams are decoded on the
 * calling thread, and one at the end of what it holds waits for more. */
void ctf_reader_resumable(struct ctf_reader *r);
/* Once the walk handed out its last item: takes what the directory
 * holds now that it did not, and the walk goes on with it. True when
 * the walk that goes on hands out what a whole read of the directory
 * would after what was handed out (the streams were only appended to,
 * new streams come after the others in the walk's order, the metadata
 * (or grown by new event classes only) and the traces are the same,
 * and nothing new comes before what was
 * handed out); false when the directory must be read again from its
 * start (the reader is then of no more use). */
bool ctf_reader_grow(struct ctf_reader *r);
/* What ctf_reader_grow calls when a trace's metadata grew by new event
 * classes (the old ones the same, first): the new classes, those whose
 * user is NULL, are to be planned (their raw flags set) before anything
 * is decoded with them. Without it, metadata that grew is read again
 * from the start. */
void ctf_reader_set_meta_hook(struct ctf_reader *r, void (*fn)(void *arg),
    void *arg);
/* Timestamps clamped to the 64-bit ns range, in all the metadata read. */
uint64_t ctf_reader_clamps(const struct ctf_reader *r);
/* A reader that goes on walks up to a horizon: the next item if it comes
 * before until (ns), else NULL (what is left stays held for the next
 * walk). */
const struct ctf_item *ctf_reader_next_before(struct ctf_reader *r,
    int64_t until);
/* What is held past the horizon, merged as the walk would, handed to fn
 * without taking it from the reader (its messages said through diag as
 * the walk would say them): a read's trace is what was walked and this,
 * and the next read walks on from the horizon. */
void ctf_reader_tail(struct ctf_reader *r,
    void (*fn)(void *arg, const struct ctf_item *it), void *arg);
/* Stops the workers (they finish the batch they are filling): nothing is
 * decoded, nor the raw hook called, after it returns. */
void ctf_reader_stop(struct ctf_reader *r);
/* A whole read (its streams decoded on other threads, the raw hook
 * taking what it takes) that can keep the state of its walk stopped at
 * until (ctf_reader_next_before; INT64_MAX: its end) for a later read
 * that goes on from there (ctf_reader_save, then a resumable reader's
 * ctf_reader_restore): each stream's walk state before its last packet
 * that starts before until is kept as it is decoded, and the read that
 * goes on decodes that packet again from there, up to its first item at
 * or after until. Before ctf_reader_start. */
void ctf_reader_keep_state(struct ctf_reader *r, int64_t until);
/* Once that walk stopped at until: the workers stopped, what they
 * decoded ahead pending for the rest of the walk (ctf_reader_tail). The
 * state may then be saved. */
void ctf_reader_settle(struct ctf_reader *r);
/* Something the walk did not hand out but its caller took (the raw
 * hook's calls) came at ns: what a read going on takes must not come
 * before it (ctf_reader_grow). */
void ctf_reader_note_out(struct ctf_reader *r, int64_t ns);
/* Is there a trace (a `metadata` file) in this directory or below? */
bool ctf_dir_has_trace(const char *path);
/* What the reader's user makes of raw events (ctf_item.u.picked) or a
 * packet start, on the thread that decoded them, before they are handed
 * over: work taken off the merging thread. It runs on several threads at
 * once (scratch is the calling thread's own, scratch_size zeroed bytes;
 * the events of one stream always on one thread at a time, in order).
 * Given n items of one stream, it may rewrite their picked and mark, and
 * keeps at the front, in order, the ones that go on into the walk (the
 * others it has taken): it returns how many. It is called with n 0 when
 * a thread ends a batch: what it wrote may be read elsewhere from then
 * on. */
typedef size_t (*ctf_raw_hook)(void *arg, void *scratch,
    struct ctf_item *items, size_t n);
/* Before ctf_reader_start. */
void ctf_reader_set_raw_hook(struct ctf_reader *r, ctf_raw_hook fn,
    void *arg, size_t scratch_size);
/* The hook's work on runs of raw events done in the decoding loop itself
 * (ctf_fast.h's ctf_run_raw_each with the hook's step): given the hook's
 * arg and scratch, it decodes from stream s and keeps at most max items
 * in out, returning how many, with the events decoded in *decoded (0:
 * ctf_event_next is the one to call). Without it, raw events are decoded
 * one at a time; the hook sees those, and packets, either way. Before
 * ctf_reader_start. */
typedef size_t (*ctf_raw_run)(void *arg, void *scratch,
    struct ctf_stream *s, const struct ctf_packet_info *pkt,
    struct ctf_item *out, size_t max, size_t *decoded);
void ctf_reader_set_raw_run(struct ctf_reader *r, ctf_raw_run fn);
/* The caller does little with each item (or the hook takes most): as
 * many decoding threads as cores, not one fewer. Before ctf_reader_start. */
void ctf_reader_light_walk(struct ctf_reader *r);
/* Sets the workers that decode streams ahead going: call once, after the
 * event classes' raw flags are set and before the first item; the first
 * ctf_reader_next calls it if nobody did. Traces smaller than
 * TTV_CTF_PIPE_MIN bytes (default 16 MiB), or a machine with one core,
 * are decoded on the calling thread alone. TTV_CTF_BATCH sets how many
 * items a batch holds (tests use it to cross many batch boundaries). */
void ctf_reader_start(struct ctf_reader *r);
/* The next item in time order; NULL at the end. Errors in a stream are
 * reported through diag (on the calling thread, where the walk meets
 * them) and end that stream. */
const struct ctf_item *ctf_reader_next(struct ctf_reader *r);
size_t ctf_reader_ntraces(const struct ctf_reader *r);
struct ctf_trace *ctf_reader_trace(const struct ctf_reader *r, size_t i);
size_t ctf_reader_nstreams(const struct ctf_reader *r);
uint64_t ctf_reader_bytes_total(const struct ctf_reader *r);
uint64_t ctf_reader_bytes_done(const struct ctf_reader *r);

/* Where the reader's messages go from here on. */
void ctf_reader_set_diag(struct ctf_reader *r, ctf_diag_fn diag, void *arg);
/* A reader that goes on, between two walks (after ctf_reader_next_before
 * gave NULL), written as bytes: where each stream's walk is (the state
 * before the packet holding its next item, and how many of that
 * packet's items were handed out), what its files and the metadata were.
 * The items held past the horizon are not written: they are decoded
 * again from those places. False when it cannot be (workers, clamped
 * timestamps, a reader that cannot go on). */
struct blob;
struct blob_in;
/* In two parts: what the traces and their metadata were (first), then
 * the walk. */
bool ctf_reader_save_meta(const struct ctf_reader *r, struct blob *out);
bool ctf_reader_save(const struct ctf_reader *r, struct blob *out);
/* Makes such a reader again from those bytes: r opened (growing) on the
 * same directory, resumable, its messages going nowhere until the caller
 * sets them again. ctf_reader_restore_meta first, before the event
 * classes are planned: each trace's metadata as it was then (its first
 * bytes, when it grew since: the next ctf_reader_grow takes the rest);
 * then, the hooks set, ctf_reader_restore. False when the bytes are
 * damaged or the directory does not hold what they say (the metadata
 * or the files read so far changed): r is then to be freed. */
bool ctf_reader_restore_meta(struct ctf_reader *r, struct blob_in *in);
bool ctf_reader_restore(struct ctf_reader *r, struct blob_in *in);

#endif
