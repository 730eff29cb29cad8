/*
 * Raw runs that keep every event: ctf_fast.h's loop with a step that
 * takes nothing, as a CTF reader without a step of its own would run it.
 * The reader (formats/ctf/ctf.c) has its own step; the decoder's fuzz
 * target runs these, to take the fast path with every event kept.
 */
#ifndef TTV_TESTS_CTF_RUNS_H
#define TTV_TESTS_CTF_RUNS_H

#include <stddef.h>

#include "ctf/stream/ctf_packets.h"

/* The events from here on, up to max, while they are of raw classes with
 * a constant layout after an LTTng compact header: decoded into out as
 * ctf_event_next would (items of packet pkt, picked read), the stream
 * left as after the last. 0 (nothing changed) if the next is any other
 * event, or at the packet's end: then ctf_event_next is the one to
 * call. */
size_t ctf_event_run_raw(struct ctf_stream *s,
    const struct ctf_packet_info *pkt, struct ctf_item *out, size_t max);

#endif
