/*
 * Function calls of cyg-profile traces kept per stream and thread while
 * the streams are decoded, and built into slices after the walk, threads
 * spread over the cores.
 *
 * A thread's calls must reach the builder in time order, but a per-CPU
 * stream holds many threads and a thread moves between streams, so the
 * merged walk is the order that is sure to be right. Keeping each
 * stream's calls apart per thread gives the same order for less: a
 * thread's calls in one stream are in time order already, and merging a
 * thread's few runs from its streams is all that is left to do, for each
 * thread on its own. Calls are kept compactly (8 bytes each), by the
 * thread decoding the stream: one writer per stream, no lock.
 */
#ifndef TTV_CTF_CALLS_H
#define TTV_CTF_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"

enum ctf_call_kind {
	CALL_ENTRY,		/* pushes its function */
	CALL_EXIT,		/* pops its function (matched by address) */
	CALL_EXIT_ANY,		/* pops the innermost (no address) */
	CALL_RESYNC,		/* events were lost in the stream here */
};

struct ctf_calls;

struct ctf_calls *ctf_calls_new(size_t nstreams);
void ctf_calls_free(struct ctf_calls *c);

/* On the thread decoding stream si: a call of thread key tkey at ns
 * (function key fkey, unused for CALL_EXIT_ANY). True if it is the
 * thread's first in the stream. */
bool ctf_calls_add(struct ctf_calls *c, size_t si, uint32_t tkey,
    int64_t ns, enum ctf_call_kind kind, uint32_t fkey);
/* On the thread decoding stream si: events of it were lost at ns; the
 * threads it has carried so far end their open calls there if their
 * exits have no addresses (as the walk would: ctf.c resync). */
void ctf_calls_resync(struct ctf_calls *c, size_t si, int64_t ns);
/* On a thread that has added calls, before another reads them (the
 * calls are stored with weakly ordered stores). */
void ctf_calls_fence(void);
/* The thread keys met, one more than the largest (after the walk). */
uint32_t ctf_calls_nthreads(const struct ctf_calls *c);

/* After the walk: builds every thread's calls, ns - origin being the
 * model's time, track_of[tkey] its track and func_of[fkey] the function.
 * Several threads build at once (builder's per-track calls); what is
 * kept is freed as it is built. */
void ctf_calls_build(struct ctf_calls *c, struct builder *b, int64_t origin,
    const uint32_t *track_of, const func_id *func_of);

#endif
