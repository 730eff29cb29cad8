/* Call-stack work cut into chunks of whole outermost calls and shared out
 * between threads (see chunks.h). */
#include "config.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chunks.h"
#include "env.h"
#include "threads.h"
#include "order.h"
#include "xalloc.h"

/* Below this many slices one thread does it all. */
#define THREAD_MIN_SLICES ((size_t)1 << 20)
#define THREADS_MAX 8

void
chunks_plan(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, size_t per_chunk, struct chunk_set *out)
{
	VEC(struct chunk) v = { 0 };
	out->slices = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		/* CPU lanes say what ran, not what was called. */
		if (!filter_track(f, ti) || tr->kind == TRACK_CPU ||
		    tr->ndepth == 0)
			continue;
		size_t lo0, hi0, total = 0;
		query_window(tr, 0, t0, t1, &lo0, &hi0);
		if (lo0 >= hi0)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			size_t lo, hi;
			query_window(tr, d, t0, t1, &lo, &hi);
			total += hi - lo;
		}
		out->slices += total;
		size_t k = per_chunk ? (total + per_chunk - 1) / per_chunk : 1;
		if (k > hi0 - lo0)
			k = hi0 - lo0;
		if (k == 0)
			k = 1;
		const struct depth_level *l = &tr->depth[0];
		size_t a = lo0;
		for (size_t j = 1; j <= k && a < hi0; j++) {
			size_t b = j == k ? hi0 : lo0 + (hi0 - lo0) * j / k;
			if (b <= a)
				continue;
			/* never between two calls that start together: the
			 * deeper slices at that time would have two homes */
			while (b < hi0 && l->slices[b].start ==
			    l->slices[b - 1].start)
				b++;
			struct chunk c = {
				.track = ti, .a = a, .b = b,
				.ta = a == lo0 ? TTV_NS_MIN : l->slices[a].start,
				.tb = b == hi0 ? TTV_NS_MAX : l->slices[b].start,
				.weight = (size_t)((double)total * (double)(b - a) /
				    (double)(hi0 - lo0)) + 1,
			};
			VEC_PUSH(&v, c);
			a = b;
		}
	}
	out->c = v.items;
	out->n = v.len;
}

void
chunks_free(struct chunk_set *cs)
{
	free(cs->c);
	cs->c = NULL;
	cs->n = 0;
}

void
chunk_level(const struct trace *t, const struct chunk *c, uint32_t d,
    ttv_ns t0, ttv_ns t1, size_t *lo, size_t *hi)
{
	const struct track *tr = &t->tracks[c->track];
	*lo = *hi = 0;
	if (d >= tr->ndepth)
		return;
	if (d == 0) {
		*lo = c->a;
		*hi = c->b;
		return;
	}
	const struct depth_level *l = &tr->depth[d];
	query_window(tr, d, t0, t1, lo, hi);
	if (c->ta != TTV_NS_MIN) {
		size_t a = level_first_start(l, c->ta);
		if (a > *lo)
			*lo = a;
	}
	if (c->tb != TTV_NS_MAX) {
		size_t b = level_first_start(l, c->tb);
		if (b < *hi)
			*hi = b;
	}
	if (*hi < *lo)
		*hi = *lo;
}

int
chunks_threads(size_t slices)
{
	if (slices < THREAD_MIN_SLICES)
		return 1;
	int n = ttv_cpus();
	if (n < 1)
		return 1;
	return n > THREADS_MAX ? THREADS_MAX : n;
}

size_t
level_gallop(const struct depth_level *l, size_t from, ttv_ns t)
{
	const struct slice *s = l->slices;
	size_t n = l->len;
	if (from >= n || s[from].start >= t)
		return from;
	/* s[lo].start < t; find hi with s[hi].start >= t (or n) */
	size_t lo = from, step = 1, hi;
	for (;;) {
		hi = lo + step;
		if (hi >= n) {
			hi = n;
			break;
		}
		if (s[hi].start >= t)
			break;
		lo = hi;
		step *= 2;
	}
	lo++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].start >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct runner {
	const struct chunk_set *cs;
	const uint32_t *order;
	size_t next;		/* taken atomically */
	void (*fn)(int, void *, size_t);
	void *arg;
};

struct runner_arg {
	struct runner *r;
	int worker;
};

static void *
run_chunks(void *p)
{
	struct runner_arg *ra = p;
	struct runner *r = ra->r;
	for (;;) {
		size_t k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		if (k >= r->cs->n)
			break;
		r->fn(ra->worker, r->arg, r->order[k]);
	}
	return NULL;
}

void
chunks_run(const struct chunk_set *cs, int nthreads,
    void (*fn)(int worker, void *arg, size_t chunk), void *arg)
{
	if (cs->n == 0)
		return;
	uint64_t *w = xmalloc(cs->n * sizeof *w);
	uint32_t *order = xmalloc(cs->n * sizeof *order);
	for (size_t i = 0; i < cs->n; i++)
		w[i] = cs->c[i].weight;
	order_by_weight(order, w, (uint32_t)cs->n);
	free(w);
	struct runner r = { cs, order, 0, fn, arg };
	if (nthreads > THREADS_MAX)
		nthreads = THREADS_MAX;
	if (nthreads < 1)
		nthreads = 1;
	struct runner_arg ra[THREADS_MAX];
	for (int i = 0; i < nthreads; i++)
		ra[i] = (struct runner_arg){ &r, i };
	/* A worker whose thread could not start runs after the others and
	 * finds no chunk left: its partial result stays empty. */
	threads_run(run_chunks, ra, sizeof ra[0], (size_t)nthreads);
	free(order);
}

/* Before each big array, keeping it 64-byte aligned: its mapping's length,
 * 0 when it came from malloc. */
struct big_head {
	size_t map_len;
	size_t pad[7];
};

#define BIG_MIN ((size_t)4 << 20)

static void *
big_map(size_t size, bool populate)
{
	struct big_head *h = NULL;
	if (size > SIZE_MAX / 2)
		return xmalloc(SIZE_MAX);	/* reports it */
#if defined(MAP_ANONYMOUS) && defined(MAP_POPULATE)
	if (size >= BIG_MIN) {
		/* mapped in one go: far cheaper than a fault a page */
		size_t len = size + sizeof *h;
		h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
		if (h != MAP_FAILED) {
			h->map_len = len;
			return h + 1;
		}
	}
#endif
	h = xmalloc(size + sizeof *h);
	h->map_len = 0;
	return h + 1;
}

void *
big_alloc(size_t size)
{
	return big_map(size, true);
}

void *
big_reserve(size_t size)
{
	return big_map(size, false);
}

void
big_prefault(void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + size) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)size;
#endif
}

void
big_free(void *p)
{
	if (p == NULL)
		return;
	struct big_head *h = (struct big_head *)p - 1;
	if (h->map_len > 0)
		munmap(h, h->map_len);
	else
		free(h);
}
