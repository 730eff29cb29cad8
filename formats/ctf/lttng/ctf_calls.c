/*
 * Function calls kept per stream and thread, built after the walk (see
 * ctf_calls.h): a stream's runs found by thread key in a hash, a thread's
 * runs from many streams merged through a heap.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "ctf_calls.h"
#include "stream/ctf_ids.h"
#include "env.h"
#include "order.h"
#include "threads.h"
#include "xalloc.h"

struct stream_calls {
	/* thread key -> its run's index in runs: a map, as a stream may
	 * carry few of many threads */
	_Alignas(64) struct ctf_ids run_of;
	struct ctf_run **runs;	/* each on lines of its own */
	size_t nruns, cap;
};

struct ctf_calls {
	struct stream_calls *streams;
	size_t nstreams;
	uint32_t nthreads;	/* set after the walk */
};

struct ctf_calls *
ctf_calls_new(size_t nstreams)
{
	struct ctf_calls *c = xcalloc(1, sizeof *c);
	c->streams = xcalloc_aligned(64, (nstreams ? nstreams : 1) *
	    sizeof *c->streams);
	c->nstreams = nstreams;
	return c;
}

static void
run_free(struct ctf_run *r)
{
	for (uint32_t i = 0; i < r->nchunks; i++)
		xbig_recycle(r->chunks[i]);
	free(r->chunks);
	r->chunks = NULL;
	r->nchunks = r->capchunks = 0;
	r->wp = r->wend = NULL;
}

void
ctf_calls_free(struct ctf_calls *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nstreams; i++) {
		struct stream_calls *sc = &c->streams[i];
		for (size_t k = 0; k < sc->nruns; k++) {
			run_free(sc->runs[k]);
			free(sc->runs[k]);
		}
		free(sc->runs);
		ctf_ids_free(&sc->run_of);
	}
	free(c->streams);
	free(c);
	xbig_pool_trim();
}

static struct ctf_run *
new_run(struct stream_calls *sc, uint32_t tkey)
{
	if (sc->nruns == sc->cap) {
		sc->cap = sc->cap ? sc->cap * 2 : 8;
		sc->runs = xreallocarray(sc->runs, sc->cap, sizeof *sc->runs);
	}
	struct ctf_run *r = xcalloc_aligned(64, sizeof *r);
	r->tkey = tkey;
	ctf_ids_put(&sc->run_of, tkey, sc->nruns);
	sc->runs[sc->nruns++] = r;
	return r;
}

struct ctf_run *
ctf_calls_run(struct ctf_calls *c, size_t si, uint32_t tkey, bool *first)
{
	struct stream_calls *sc = &c->streams[si];
	uint64_t i;
	*first = !ctf_ids_get(&sc->run_of, tkey, &i);
	return *first ? new_run(sc, tkey) : sc->runs[i];
}

void
ctf_run_grow(struct ctf_run *r)
{
	if (r->nchunks == r->capchunks) {
		r->capchunks = r->capchunks ? r->capchunks * 2 : 4;
		r->chunks = xreallocarray(r->chunks, r->capchunks,
		    sizeof *r->chunks);
	}
	uint32_t nc = r->cap ? r->cap * 2 : CTF_CHUNK_FIRST;
	if (nc > CTF_CHUNK_MAX)
		nc = CTF_CHUNK_MAX;
	r->chunks[r->nchunks++] = xbig_realloc(NULL,
	    (size_t)nc * sizeof **r->chunks);
	r->cap = nc;
	r->wp = r->chunks[r->nchunks - 1];
	r->wend = r->wp + nc;
}

void
ctf_calls_resync(struct ctf_calls *c, size_t si, int64_t ns)
{
	struct stream_calls *sc = &c->streams[si];
	for (size_t k = 0; k < sc->nruns; k++)
		ctf_run_add(sc->runs[k], ns, CALL_RESYNC, 0);
}

void
ctf_calls_fence(void)
{
#ifdef __SSE2__
	_mm_sfence();
#endif
}

uint32_t
ctf_calls_nthreads(const struct ctf_calls *c)
{
	uint32_t n = 0;
	for (size_t i = 0; i < c->nstreams; i++)
		for (size_t k = 0; k < c->streams[i].nruns; k++)
			if (c->streams[i].runs[k]->tkey >= n)
				n = c->streams[i].runs[k]->tkey + 1;
	return n;
}

/* --- building --- */

/* Reads a run back in order. */
struct cursor {
	struct ctf_run *r;
	uint32_t chunk;		/* the one being read, from rp to rend */
	const uint32_t *rp, *rend;
	uint64_t left;
	int64_t ns;		/* the current call's */
	uint32_t fk;
};

/* Records in chunk i of a run. */
static inline uint32_t
chunk_len(const struct ctf_run *r, uint32_t i)
{
	if (i + 1 == r->nchunks)
		return (uint32_t)(r->wp - r->chunks[i]);
	return i >= CTF_CHUNK_STEPS ? CTF_CHUNK_MAX :
	    (uint32_t)CTF_CHUNK_FIRST << i;
}

/* The next word of a run (there is one). */
static inline uint32_t
cursor_word(struct cursor *k)
{
	while (__builtin_expect(k->rp == k->rend, 0)) {
		struct ctf_run *r = k->r;
		if (k->rp != NULL) {
			/* read: its memory goes to the slices being built */
			xbig_recycle(r->chunks[k->chunk]);
			r->chunks[k->chunk] = NULL;
			k->chunk++;
		}
		k->rp = r->chunks[k->chunk];
		k->rend = k->rp + chunk_len(r, k->chunk);
	}
	k->left--;
	return *k->rp++;
}

static inline bool
cursor_next(struct cursor *k)
{
	if (k->left == 0)
		return false;
	uint32_t w = cursor_word(k);
	uint32_t key = w >> CTF_KEY_SHIFT & CTF_KEY_LONG;
	uint64_t step;
	if (__builtin_expect(key != CTF_KEY_LONG, 1)) {
		k->fk = (w & ~CTF_FKEY_MASK) | key;
		step = w & CTF_STEP_MASK;
	} else {
		/* written whole: the three words are there */
		k->fk = cursor_word(k);
		step = cursor_word(k);
		step |= (uint64_t)cursor_word(k) << 32;
	}
	k->ns = (int64_t)((uint64_t)k->ns + step);
	return true;
}

struct build_job {
	struct ctf_calls *c;
	struct builder *b;
	int64_t origin;
	const uint32_t *track_of;
	const func_id *func_of;
	/* per thread key: its runs, in stream order */
	uint32_t *first;	/* index into runs_of, nthreads + 1 */
	struct ctf_run **runs_of;
	uint32_t *order;	/* thread keys, largest first */
	uint32_t next;		/* the next of order to take (atomic) */
	int64_t until;		/* calls from this time on wait */
	bool *no_addr_of;	/* by thread key, or NULL */
};

/* Calls on their way to the builder, given in batches (builder_calls). */
#define CALL_BATCH 256
struct call_batch {
	struct builder_call c[CALL_BATCH];
	size_t n;
	bool no_addr;		/* exits without an address were met */
};

static void
flush(const struct build_job *j, uint32_t track, struct call_batch *cb)
{
	if (cb->n > 0)
		builder_calls(j->b, track, cb->c, cb->n);
	cb->n = 0;
}

static const uint32_t builder_kind[] = {
	[CALL_ENTRY] = BUILDER_CALL_ENTRY,
	[CALL_EXIT] = BUILDER_CALL_EXIT,
	[CALL_EXIT_ANY] = BUILDER_CALL_EXIT_ANY,
};

/* The call at cursor k, on its way to the builder. */
static inline void
apply(const struct build_job *j, uint32_t track, const struct cursor *k,
    struct call_batch *cb)
{
	ttv_ns t = (ttv_ns)((uint64_t)k->ns - (uint64_t)j->origin);
	enum ctf_call_kind kind = (enum ctf_call_kind)(k->fk >>
	    CTF_KIND_SHIFT);
	if (kind == CALL_RESYNC) {
		flush(j, track, cb);
		struct builder *b = j->b;
		while (cb->no_addr && builder_stack_depth(b, track) > 0 &&
		    builder_pop(b, track, t, SLICE_TRUNCATED))
			;
		return;
	}
	cb->no_addr |= kind == CALL_EXIT_ANY;
	cb->c[cb->n++] = (struct builder_call){ t,
	    j->func_of[k->fk & CTF_FKEY_MASK], builder_kind[kind] };
	if (cb->n == CALL_BATCH)
		flush(j, track, cb);
}

/* The rest of one run before the job's time, the current call first:
 * false when it stopped at a call from that time on. */
static bool
apply_run(const struct build_job *j, uint32_t track, struct cursor *k,
    struct call_batch *cb)
{
	do {
		if (k->ns >= j->until)
			return false;
		apply(j, track, k, cb);
	} while (cursor_next(k));
	return true;
}

/* A run's cursor left at its current call (pending: not built yet), for
 * the next build. */
static void
cursor_keep(struct cursor *k, bool pending)
{
	struct ctf_run *r = k->r;
	r->stopped = true;
	r->at_pending = pending;
	r->at_chunk = k->chunk;
	r->at_off = (uint32_t)(k->rp - r->chunks[k->chunk]);
	r->at_used = r->n - k->left;
	r->at_ns = k->ns;
	r->at_fk = k->fk;
}

/* A run whose calls were all built: given back, unless the build stopped
 * at a time (calls may still come to it, for the next build). */
static void
run_built(const struct build_job *j, struct cursor *k)
{
	if (j->until != INT64_MAX) {
		cursor_keep(k, false);
		return;
	}
	k->r->built = true;
	k->r->stopped = false;
	run_free(k->r);
}

/* A run's cursor at its current call: where the last build stopped, or
 * its first call; false when it has none left. */
static bool
cursor_start(struct ctf_run *r, struct cursor *k)
{
	if (r->built)
		return false;
	if (!r->stopped) {
		*k = (struct cursor){ .r = r, .left = r->n, .ns = r->first_ns };
		return cursor_next(k);
	}
	*k = (struct cursor){ .r = r, .chunk = r->at_chunk,
	    .rp = r->chunks[r->at_chunk] + r->at_off,
	    .rend = r->chunks[r->at_chunk] + chunk_len(r, r->at_chunk),
	    .left = r->n - r->at_used, .ns = r->at_ns, .fk = r->at_fk };
	return r->at_pending || cursor_next(k);
}

/* Is the call at cursor a before the one at b (ties: the stream read
 * first, whose run comes first)? */
static inline bool
earlier(const struct cursor *ks, uint32_t a, uint32_t b)
{
	return ks[a].ns != ks[b].ns ? ks[a].ns < ks[b].ns : a < b;
}

static void
sift_down(const struct cursor *ks, uint32_t *h, uint32_t n, uint32_t i)
{
	uint32_t x = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && earlier(ks, h[c + 1], h[c]))
			c++;
		if (!earlier(ks, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The calls of a thread met in many streams: the earliest run's next by
 * a heap, as a scan of them all at each call would cost their number
 * times its calls. */
static void
merge_many(const struct build_job *j, uint32_t track, struct cursor *ks,
    uint32_t live, struct call_batch *cb)
{
	uint32_t *h = xcalloc(live, sizeof *h);
	for (uint32_t i = 0; i < live; i++)
		h[i] = i;
	for (uint32_t i = live / 2; i-- > 0;)
		sift_down(ks, h, live, i);
	uint32_t n = live;
	while (n > 1) {
		struct cursor *k = &ks[h[0]];
		if (k->ns >= j->until)
			break;
		apply(j, track, k, cb);
		if (!cursor_next(k)) {
			/* what is built is given back */
			run_built(j, k);
			h[0] = h[--n];
		}
		sift_down(ks, h, n, 0);
	}
	if (n == 1 && apply_run(j, track, &ks[h[0]], cb)) {
		run_built(j, &ks[h[0]]);
		n = 0;
	}
	for (uint32_t i = 0; i < n; i++)
		cursor_keep(&ks[h[i]], true);
	free(h);
}

static void
build_thread(const struct build_job *j, uint32_t tkey)
{
	uint32_t track = j->track_of[tkey];
	uint32_t nr = j->first[tkey + 1] - j->first[tkey];
	struct ctf_run **runs = j->runs_of + j->first[tkey];
	struct cursor one[8], *ks = nr <= 8 ? one :
	    xcalloc(nr, sizeof *ks);
	uint32_t live = 0;
	bool any = false;
	for (uint32_t i = 0; i < nr; i++) {
		struct cursor k;
		if (cursor_start(runs[i], &k)) {
			any |= k.ns < j->until;
			ks[live++] = k;
		}
	}
	struct call_batch cb;
	cb.n = 0;
	cb.no_addr = j->no_addr_of != NULL && j->no_addr_of[tkey];
	if (!any)
		live = 0;	/* nothing yet: the cursors stay where they are */
	if (live > 8) {
		merge_many(j, track, ks, live, &cb);
		live = 0;
	}
	while (live > 0) {
		/* the earliest; ties go to the stream read first, as in the
		 * merged walk (runs are in stream order) */
		uint32_t m = 0;
		for (uint32_t i = 1; i < live; i++)
			if (ks[i].ns < ks[m].ns)
				m = i;
		/* a thread seen in one stream, or its last: no choice left */
		if (live == 1) {
			if (apply_run(j, track, &ks[0], &cb))
				run_built(j, &ks[0]);
			else
				cursor_keep(&ks[0], true);
			break;
		}
		struct cursor *k = &ks[m];
		if (k->ns >= j->until) {
			for (uint32_t i = 0; i < live; i++)
				cursor_keep(&ks[i], true);
			break;
		}
		apply(j, track, k, &cb);
		if (!cursor_next(k)) {
			/* what is built is given back; the others keep their
			 * stream order */
			run_built(j, k);
			memmove(&ks[m], &ks[m + 1],
			    (live - m - 1) * sizeof *ks);
			live--;
		}
	}
	if (any)
		flush(j, track, &cb);
	if (j->no_addr_of != NULL)
		j->no_addr_of[tkey] = cb.no_addr;
	if (ks != one)
		free(ks);
}

static void *
build_main(void *arg)
{
	struct build_job *j = arg;
	uint32_t n = j->first ? ctf_calls_nthreads(j->c) : 0;
	for (;;) {
		uint32_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= n)
			break;
		build_thread(j, j->order[i]);
	}
	builder_thread_done(j->b);
	return NULL;
}

void
ctf_calls_each_run(const struct ctf_calls *c,
    void (*fn)(void *arg, size_t si, uint32_t tkey, int64_t first_ns,
    int64_t last_ns), void *arg)
{
	for (size_t i = 0; i < c->nstreams; i++)
		for (size_t k = 0; k < c->streams[i].nruns; k++) {
			const struct ctf_run *r = c->streams[i].runs[k];
			if (r->n > 0)
				fn(arg, i, r->tkey, r->first_ns, r->last_ns);
		}
}

void
ctf_calls_build(struct ctf_calls *c, struct builder *b, int64_t origin,
    const uint32_t *track_of, const func_id *func_of)
{
	ctf_calls_build_until(c, b, origin, track_of, func_of, INT64_MAX,
	    NULL);
}

void
ctf_calls_build_until(struct ctf_calls *c, struct builder *b,
    int64_t origin, const uint32_t *track_of, const func_id *func_of,
    int64_t until, bool *no_addr_of)
{
	uint32_t n = ctf_calls_nthreads(c);
	if (n == 0)
		return;
	struct build_job j = { .c = c, .b = b, .origin = origin,
	    .track_of = track_of, .func_of = func_of, .until = until,
	    .no_addr_of = no_addr_of };
	j.first = xcalloc((size_t)n + 1, sizeof *j.first);
	uint64_t *size = xcalloc(n, sizeof *size);
	size_t total = 0;
	for (size_t i = 0; i < c->nstreams; i++)
		for (size_t k = 0; k < c->streams[i].nruns; k++) {
			const struct ctf_run *r = c->streams[i].runs[k];
			j.first[r->tkey + 1]++;
			size[r->tkey] += r->n;
			total++;
		}
	for (uint32_t t = 0; t < n; t++)
		j.first[t + 1] += j.first[t];
	j.runs_of = xcalloc(total ? total : 1, sizeof *j.runs_of);
	uint32_t *fill = xcalloc(n, sizeof *fill);
	for (size_t i = 0; i < c->nstreams; i++)
		for (size_t k = 0; k < c->streams[i].nruns; k++) {
			struct ctf_run *r = c->streams[i].runs[k];
			j.runs_of[j.first[r->tkey] + fill[r->tkey]++] = r;
		}
	free(fill);
	j.order = xcalloc(n, sizeof *j.order);
	order_by_weight(j.order, size, n);

	/* the threads' builds are independent: one per core, the biggest
	 * threads first so that they end together */
	long cpus = ttv_cpus();
	size_t nw = cpus > 1 ? (size_t)cpus - 1 : 0;
	if (nw > 7)
		nw = 7;
	if (nw + 1 > n)
		nw = n - 1;
	/* every worker takes threads from the same queue */
	threads_run(build_main, &j, 0, nw + 1);
	/* what the slices did not take */
	xbig_pool_trim();
	free(size);
	free(j.order);
	free(j.runs_of);
	free(j.first);
}
