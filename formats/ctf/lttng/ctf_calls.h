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
 * thread on its own. Calls are kept compactly (4 bytes for most), by the
 * thread decoding the stream: one writer per stream, no lock.
 */
#ifndef TTV_CTF_CALLS_H
#define TTV_CTF_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "builder.h"

enum ctf_call_kind {
	CALL_ENTRY,		/* pushes its function */
	CALL_EXIT,		/* pops its function (matched by address) */
	CALL_EXIT_ANY,		/* pops the innermost (no address) */
	CALL_RESYNC,		/* events were lost in the stream here */
};

struct ctf_calls;

/* A call in one 32-bit word: its kind, its function key and its time as
 * the step from the run's previous call. One whose key or step does not
 * fit (key CTF_KEY_LONG) is followed by three words: kind << CTF_KIND_SHIFT
 * | function key, and the step's low and high halves. */
#define CTF_KIND_SHIFT 30
#define CTF_FKEY_MASK (((uint32_t)1 << CTF_KIND_SHIFT) - 1)
#define CTF_KEY_SHIFT 20
#define CTF_KEY_LONG 1023u	/* in the short word's 10 key bits */
#define CTF_STEP_MASK (((uint32_t)1 << CTF_KEY_SHIFT) - 1)
/* Words in a run's first chunk; chunks double up to the max. Small: a
 * stream may carry one call of each of many threads. */
#define CTF_CHUNK_FIRST_BITS 4
#define CTF_CHUNK_FIRST ((uint32_t)1 << CTF_CHUNK_FIRST_BITS)
/* 2 MiB with xbig_realloc's header: the largest chunks (from chunk
 * CTF_CHUNK_STEPS on) are one of its steps each, which slices reuse once
 * the chunk is built */
#define CTF_CHUNK_MAX (((uint32_t)1 << 19) - 8)
#define CTF_CHUNK_STEPS (19 - CTF_CHUNK_FIRST_BITS)

/* One thread's calls in one stream, in chunks of growing size; on cache
 * lines of its own, as other streams' runs are written at once on other
 * threads. Its address does not change: the decoding thread may keep it. */
struct ctf_run {
	_Alignas(64) uint32_t tkey;
	uint32_t **chunks;
	uint32_t nchunks, capchunks;
	uint32_t cap;		/* the last chunk's size */
	uint32_t *wp, *wend;	/* where the next word goes, the chunk's end */
	int64_t first_ns, last_ns;
	uint64_t n;		/* words */
	/* a build stopped at a time (ctf_calls_build_until): where the
	 * next goes on (the run may have grown since), words used, and the
	 * call it stopped at, read already (pending) or built */
	bool built, stopped, at_pending;
	uint32_t at_chunk, at_off;
	uint64_t at_used;
	int64_t at_ns;
	uint32_t at_fk;
};

struct ctf_calls *ctf_calls_new(size_t nstreams);
void ctf_calls_free(struct ctf_calls *c);

/* On the thread decoding stream si: the run of thread key tkey, made if
 * new (*first is set then). */
struct ctf_run *ctf_calls_run(struct ctf_calls *c, size_t si, uint32_t tkey,
    bool *first);
void ctf_run_grow(struct ctf_run *r);

/* A word on a run. */
static inline void
ctf_run_put(struct ctf_run *r, uint32_t w)
{
	if (r->wp == r->wend)
		ctf_run_grow(r);
	uint32_t *to = r->wp++;
#ifdef __SSE2__
	/* written once, read by another thread after the walk: a streaming
	 * store does not read the line in first (ctf_calls_fence orders
	 * them) */
	_mm_stream_si32((int *)to, (int)w);
#else
	*to = w;
#endif
	r->n++;
}

/* A call of a run's thread at ns (function key fkey, unused for
 * CALL_EXIT_ANY); inline, as it is made once an event. */
static inline void
ctf_run_add(struct ctf_run *r, int64_t ns, enum ctf_call_kind kind,
    uint32_t fkey)
{
	/* wrapping: a damaged clock going back is a huge step, still
	 * exact */
	uint64_t step = r->n ? (uint64_t)ns - (uint64_t)r->last_ns : 0;
	if (r->n == 0)
		r->first_ns = ns;
	r->last_ns = ns;
	fkey &= CTF_FKEY_MASK;
	if (step <= CTF_STEP_MASK && fkey < CTF_KEY_LONG) {
		ctf_run_put(r, (uint32_t)kind << CTF_KIND_SHIFT |
		    fkey << CTF_KEY_SHIFT | (uint32_t)step);
		return;
	}
	ctf_run_put(r, CTF_KEY_LONG << CTF_KEY_SHIFT);
	ctf_run_put(r, (uint32_t)kind << CTF_KIND_SHIFT | fkey);
	ctf_run_put(r, (uint32_t)step);
	ctf_run_put(r, (uint32_t)(step >> 32));
}

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
/* The same for the calls before until only (a walk stopped there, whose
 * state is kept to be read on from): a later build goes on with those
 * at or after it. no_addr_of (by thread key, may be NULL) tells, and
 * keeps from one build to the next, the threads whose exits were met
 * without an address. A thread with no call before until is left
 * alone: its track need not be made yet. */
void ctf_calls_build_until(struct ctf_calls *c, struct builder *b,
    int64_t origin, const uint32_t *track_of, const func_id *func_of,
    int64_t until, bool *no_addr_of);
/* Each (stream si, thread key) that carried calls, with the time of its
 * first and last: fn(arg, si, tkey, first_ns, last_ns). */
void ctf_calls_each_run(const struct ctf_calls *c,
    void (*fn)(void *arg, size_t si, uint32_t tkey, int64_t first_ns,
    int64_t last_ns), void *arg);

#endif
