/*
 * The local copy of a live session: a CTF directory laid out as
 * lttng-relayd lays out its own output, so that the CTF reader reads it
 * as any local trace and a follower re-reads what grows:
 *
 *   ROOT/PATH/metadata            one per trace (relay trace id), grown
 *                                 by each metadata reply, created with
 *                                 its first bytes (never empty)
 *   ROOT/PATH/CHANNEL             one per stream, grown a whole packet
 *                                 at a time
 *   ROOT/PATH/index/CHANNEL.idx   LTTng's packet index (version 1.0):
 *                                 an entry per packet, written after the
 *                                 packet's bytes
 *
 * PATH is the relay's path for the trace (HOST/SESSION-DATE/ust/uid/...)
 * and CHANNEL its channel file name, both reduced to safe names: no
 * "..", no leading dot, no byte outside [A-Za-z0-9._+@-]. Files are
 * only ever appended to; the mirror is emptied when it is opened again.
 */
#ifndef TTV_LIVE_MIRROR_H
#define TTV_LIVE_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "live_wire.h"

struct live_mirror;

/* Opens ROOT (made with its parents), emptied of an earlier copy, and
 * locked against a second ttv mirroring the same session. NULL with *err
 * set (caller frees) when it cannot. */
struct live_mirror *live_mirror_open(const char *root, char **err);
void live_mirror_close(struct live_mirror *m);
const char *live_mirror_root(const struct live_mirror *m);

/* The slot of relay trace trace_id, made on first use with the relay's
 * path for it: >= 0, or -1 with *err. */
int live_mirror_trace(struct live_mirror *m, uint64_t trace_id,
    const char *path, char **err);
/* Appends metadata bytes to a trace: 0, or -1 with *err. */
int live_mirror_metadata(struct live_mirror *m, int trace, const void *buf,
    size_t len, char **err);
uint64_t live_mirror_metadata_size(const struct live_mirror *m, int trace);

/* A new stream file of a trace (and its index): its slot, or -1. */
int live_mirror_stream(struct live_mirror *m, int trace, uint64_t stream_id,
    const char *channel, char **err);
/* Appends a packet and its index entry (ix: the relay's, its offset
 * replaced by the packet's place in the mirror): 0, or -1 with *err. */
int live_mirror_packet(struct live_mirror *m, int stream, const void *buf,
    size_t len, const struct live_index *ix, char **err);

/* A stream's data file, relative to the root. */
const char *live_mirror_stream_file(const struct live_mirror *m,
    int stream);
/* Bytes written so far (packets and metadata). */
uint64_t live_mirror_bytes(const struct live_mirror *m);
/* Whether a trace has metadata and packets to read. */
int live_mirror_has_data(const struct live_mirror *m);

#endif
