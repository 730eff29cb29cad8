/*
 * Work on call stacks shared out between threads: the thread tracks a
 * filter lets through, cut into chunks of whole outermost calls (a chunk
 * holds some depth-0 slices of one track and everything nested in them),
 * so that a chunk can be walked without looking at any other. Workers take
 * chunks largest first from a common counter; each keeps its own partial
 * result, which the caller merges in chunk order so that the answer does
 * not depend on the number of threads.
 */
#ifndef TTV_CHUNKS_H
#define TTV_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "query.h"

struct chunk {
	uint32_t track;
	size_t a, b;		/* depth-0 index range [a, b) */
	ttv_ns ta, tb;		/* deeper slices that start in [ta, tb) */
	size_t weight;		/* slices, estimated */
};

struct chunk_set {
	struct chunk *c;
	size_t n;
	size_t slices;		/* in all chunks, estimated */
};

/* Chunks of the thread and async tracks the filter lets through (CPU and
 * counter tracks hold no calls), restricted to the slices overlapping
 * [t0, t1), about `per_chunk` slices each (0: one chunk per track). */
void chunks_plan(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, size_t per_chunk, struct chunk_set *out);
void chunks_free(struct chunk_set *cs);

/* The slices of depth d of a chunk's track that belong to the chunk and
 * overlap [t0, t1): an index range [*lo, *hi). */
void chunk_level(const struct trace *t, const struct chunk *c, uint32_t d,
    ttv_ns t0, ttv_ns t1, size_t *lo, size_t *hi);

/* How many threads work on `slices` slices: 1 below a size where starting
 * threads costs more than it saves, else the CPUs online (at most 8). */
int chunks_threads(size_t slices);

/* Runs fn(worker, arg, chunk index) for every chunk, on nthreads threads
 * (worker 0 is the caller's), chunks given out largest first. */
void chunks_run(const struct chunk_set *cs, int nthreads,
    void (*fn)(int worker, void *arg, size_t chunk), void *arg);

/* The first index of level l at or after `from` whose slice starts at or
 * after t: a galloping search, cheap when the answer is near `from`. */
size_t level_gallop(const struct depth_level *l, size_t from, ttv_ns t);

/* Big result arrays (millions of calls): mapped on their own and
 * populated at once, as most of what filling fresh memory costs is its
 * page faults, one per 4 KiB page otherwise. Small ones come from malloc.
 * Freed with big_free only. */
void *big_alloc(size_t size);
/* The same, its pages left to be faulted in: by big_prefault, piece by
 * piece on the threads that fill them. */
void *big_reserve(size_t size);
/* Maps the whole pages of [p, p + size) at once where the system can
 * (else they fault in one by one when written). */
void big_prefault(void *p, size_t size);
void big_free(void *p);


#endif
