/*
 * Every call of a set of functions (see query_calls.h): found chunk by
 * chunk on all cores, put in (track, start, depth) order, then ordered by
 * duration with a radix sort of (key, index) pairs, stable, so that equal
 * durations keep that order. The same sort gives the other orders.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "query_calls.h"
#include "xalloc.h"

/* Chunks of about this many slices: enough to share out the work, few
 * enough that each costs little to set up. */
#define CHUNK_SLICES ((size_t)1 << 18)

struct collect {
	const struct trace *t;
	const struct filter *f;
	const uint8_t *want;	/* matched and let through by the filter */
	ttv_ns t0, t1;
	const struct chunk_set *cs;
	/* pass 1: which slices of each chunk are calls (one bit each, the
	 * chunk's depths end to end) and how many */
	uint64_t **bits;
	size_t *count;
	size_t *off;		/* pass 2: where each chunk's calls go */
	struct call_instance *items;
};

static int
cmp_start(const void *a, const void *b, void *arg)
{
	const struct trace *t = arg;
	const struct call_instance *x = a, *y = b;
	ttv_ns sx = trace_slice(t, x->ref)->start;
	ttv_ns sy = trace_slice(t, y->ref)->start;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->ref.depth < y->ref.depth ? -1 : x->ref.depth > y->ref.depth;
}

/* Pass 1: marks the calls of a chunk. Reading every slice's function is
 * most of the work: no branch for the common miss. */
static void
mark_chunk(int worker, void *arg, size_t ci)
{
	(void)worker;
	struct collect *c = arg;
	const struct trace *t = c->t;
	const struct chunk *ch = &c->cs->c[ci];
	const struct track *tr = &t->tracks[ch->track];
	size_t nbits = 0;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, c->t0, c->t1, &lo, &hi);
		nbits += hi - lo;
	}
	uint64_t *bits = xcalloc(nbits / 64 + 1, sizeof *bits);
	size_t pos = 0, n = 0;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, c->t0, c->t1, &lo, &hi);
		const struct slice *s = tr->depth[d].slices;
		for (size_t i = lo; i < hi; i++, pos++) {
			uint64_t m = c->want[s[i].func] &
			    ((s[i].flags & SLICE_INEXACT) == 0);
			bits[pos >> 6] |= m << (pos & 63);
			n += m;
		}
	}
	c->bits[ci] = bits;
	c->count[ci] = n;
}

/* Pass 2: the calls of a chunk, with their times, at their place. */
static void
fill_chunk(int worker, void *arg, size_t ci)
{
	(void)worker;
	struct collect *c = arg;
	const struct trace *t = c->t;
	const struct chunk *ch = &c->cs->c[ci];
	const struct track *tr = &t->tracks[ch->track];
	const uint64_t *bits = c->bits[ci];
	struct call_instance *out = c->items + c->off[ci], *o = out;
	uint32_t depths = 0;
	size_t pos = 0;
	for (uint32_t d = 0; d < tr->ndepth && c->count[ci] > 0; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, c->t0, c->t1, &lo, &hi);
		const struct depth_level *l = &tr->depth[d];
		const struct depth_level *cl =
		    d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
		size_t cc = 0;	/* child cursor */
		const struct call_instance *before = o;
		for (size_t w = pos >> 6; hi > lo && w <= (pos + (hi - lo) -
		    1) >> 6; w++) {
			uint64_t x = bits[w];
			while (x != 0) {
				size_t b = (w << 6) + (size_t)__builtin_ctzll(x);
				x &= x - 1;
				if (b < pos || b >= pos + (hi - lo))
					continue;
				size_t i = lo + b - pos;
				const struct slice *s = &l->slices[i];
				ttv_ns dur = level_clip(l, i, c->t0, c->t1);
				ttv_ns end = level_end(l, i), child = 0;
				if (cl != NULL) {
					cc = level_gallop(cl, cc, s->start);
					for (size_t k = cc; k < cl->len &&
					    cl->slices[k].start < end; k++)
						child += level_clip(cl, k, c->t0,
						    c->t1);
				}
				*o++ = (struct call_instance){
					.ref = { ch->track, d, (uint32_t)i },
					.flags = s->flags,
					.dur = dur,
					.self = child < dur ? dur - child : 0,
				};
			}
		}
		pos += hi - lo;
		depths += o > before;
	}
	/* One depth: in time order already. */
	if (depths > 1)
		qsort_r(out, (size_t)(o - out), sizeof *out, cmp_start,
		    (void *)t);
}

/* ------------------------------------------------------------ ordering */

/* Sorts idx[0..n) by key[] (parallel to idx), increasing, stable: 11
 * bits a pass, as many passes as the largest key has bits. Keys of 32
 * bits when they fit, which halves what each pass moves. */
#define RADIX_SORT(name, type)						\
static void								\
name(type *key, uint32_t *idx, size_t n, unsigned bits)			\
{									\
	type *k2 = bits > 11 ? big_alloc(n * sizeof *k2) : NULL;	\
	uint32_t *i2 = big_alloc(n * sizeof *i2);			\
	type *ka = key, *kb = k2;					\
	uint32_t *ia = idx, *ib = i2;					\
	size_t count[2048];						\
	for (unsigned shift = 0; shift < bits; shift += 11) {		\
		bool last = shift + 11 >= bits;				\
		memset(count, 0, sizeof count);				\
		for (size_t i = 0; i < n; i++)				\
			count[(ka[i] >> shift) & 2047]++;		\
		size_t sum = 0;						\
		for (size_t b = 0; b < 2048; b++) {			\
			size_t c = count[b];				\
			count[b] = sum;					\
			sum += c;					\
		}							\
		for (size_t i = 0; i < n; i++) {			\
			size_t p = count[(ka[i] >> shift) & 2047]++;	\
			if (!last)					\
				kb[p] = ka[i];				\
			ib[p] = ia[i];					\
		}							\
		type *tk = ka; ka = kb; kb = tk;			\
		uint32_t *ti = ia; ia = ib; ib = ti;			\
	}								\
	if (ia != idx)							\
		memcpy(idx, ia, n * sizeof *idx);			\
	if (k2 != NULL)							\
		big_free(k2);						\
	big_free(i2);							\
}
RADIX_SORT(radix_sort32, uint32_t)
RADIX_SORT(radix_sort64, uint64_t)

/* Key ranges this small are sorted in one counting pass (the counts,
 * 512 KiB at most, stay in cache). */
#define COUNTING_BITS 16

/* The sort key of item i, from 0 up: durations decreasing, or starts
 * increasing. */
static inline uint64_t
instance_key(const struct trace *t, const struct instance_list *l,
    enum instance_key k, size_t i)
{
	if (k == INSTANCES_BY_DURATION)
		return (uint64_t)l->max - (uint64_t)l->items[i].dur;
	return (uint64_t)trace_slice(t, l->items[i].ref)->start ^
	    ((uint64_t)1 << 63);
}

/* idx = 0..n-1 ordered by k: (ttv_ns)key(i) increasing, stable. */
static void
order_by(const struct trace *t, const struct instance_list *l,
    enum instance_key k, uint32_t *idx)
{
	size_t n = l->n;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (k == INSTANCES_BY_THREAD || n < 2)
		return;	/* the items' own order */
	/* the keys' range: known for durations, else one pass */
	uint64_t lo = 0, hi = (uint64_t)l->max - (uint64_t)l->min;
	if (k != INSTANCES_BY_DURATION) {
		lo = UINT64_MAX;
		hi = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t v = instance_key(t, l, k, i);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	uint64_t top = hi - lo;
	if (top == 0)
		return;
	unsigned bits = 64 - (unsigned)__builtin_clzll(top);
	if (bits <= COUNTING_BITS) {
		/* one counting pass straight from the items: no keys */
		size_t *count = xcalloc(((size_t)1 << bits) + 1, sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[instance_key(t, l, k, i) - lo + 1]++;
		for (size_t b = 1; b <= ((size_t)1 << bits); b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			idx[count[instance_key(t, l, k, i) - lo]++] =
			    (uint32_t)i;
		free(count);
	} else if (bits <= 32) {
		uint32_t *key = big_alloc(n * sizeof *key);
		for (size_t i = 0; i < n; i++)
			key[i] = (uint32_t)(instance_key(t, l, k, i) - lo);
		radix_sort32(key, idx, n, bits);
		big_free(key);
	} else {
		uint64_t *key = big_alloc(n * sizeof *key);
		for (size_t i = 0; i < n; i++)
			key[i] = instance_key(t, l, k, i) - lo;
		radix_sort64(key, idx, n, bits);
		big_free(key);
	}
}

/* ---------------------------------------------------------------- query */

void
query_instances(const struct trace *t, const struct filter *f,
    const uint8_t *match, ttv_ns t0, ttv_ns t1, struct instance_list *out)
{
	memset(out, 0, sizeof *out);
	out->t0 = t0;
	out->t1 = t1;
	struct chunk_set cs;
	chunks_plan(t, f, t0, t1, CHUNK_SLICES, &cs);
	uint8_t *want = xmalloc(t->nfuncs ? t->nfuncs : 1);
	for (uint32_t i = 0; i < t->nfuncs; i++)
		want[i] = match[i] && filter_func(f, i);
	struct collect c = {
		.t = t, .f = f, .want = want, .t0 = t0, .t1 = t1,
		.cs = &cs,
		.bits = xcalloc(cs.n ? cs.n : 1, sizeof *c.bits),
		.count = xcalloc(cs.n ? cs.n : 1, sizeof *c.count),
		.off = xcalloc(cs.n ? cs.n : 1, sizeof *c.off),
	};
	int nthreads = chunks_threads(cs.slices);
	chunks_run(&cs, nthreads, mark_chunk, &c);
	size_t n = 0;
	for (size_t i = 0; i < cs.n; i++) {
		c.off[i] = n;
		n += c.count[i];
	}
	if (n > UINT32_MAX) {
		/* the chunks past the limit are left out */
		out->truncated = true;
		for (size_t i = 0; i < cs.n; i++)
			if (c.off[i] + c.count[i] > UINT32_MAX)
				c.count[i] = 0;
		n = 0;
		for (size_t i = 0; i < cs.n; i++) {
			c.off[i] = n;
			n += c.count[i];
		}
	}
	c.items = big_alloc((n ? n : 1) * sizeof *c.items);
	chunks_run(&cs, nthreads, fill_chunk, &c);
	for (size_t i = 0; i < cs.n; i++)
		free(c.bits[i]);
	free(c.bits);
	free(c.count);
	free(c.off);
	free(want);
	chunks_free(&cs);
	out->items = c.items;
	out->n = n;

	ttv_ns lo = TTV_NS_MAX, hi = 0;
	ttv_ns total = 0;
	for (size_t i = 0; i < n; i++) {
		ttv_ns d = out->items[i].dur;
		if (d < lo)
			lo = d;
		if (d > hi)
			hi = d;
		total = (ttv_ns)((uint64_t)total + (uint64_t)d);
	}
	out->min = n ? lo : 0;
	out->max = hi;
	out->total = total;
	out->by_dur = big_alloc((n ? n : 1) * sizeof *out->by_dur);
	order_by(t, out, INSTANCES_BY_DURATION, out->by_dur);
	if (n > 0) {
		/* index floor(q * n) of the increasing order, from the end
		 * of the decreasing one */
		size_t q[3] = { n / 2, (size_t)(0.9 * (double)n),
		    (size_t)(0.99 * (double)n) };
		ttv_ns *p[3] = { &out->p50, &out->p90, &out->p99 };
		for (int i = 0; i < 3; i++) {
			size_t r = q[i] < n ? q[i] : n - 1;
			*p[i] = out->items[out->by_dur[n - 1 - r]].dur;
		}
	}
	/* shown by duration: the same array until another order is asked */
	out->order = out->by_dur;
	out->key = INSTANCES_BY_DURATION;
	out->reverse = false;
}

void
instances_sort(const struct trace *t, struct instance_list *l,
    enum instance_key key, bool reverse)
{
	if (key == INSTANCES_BY_DURATION && !reverse) {
		if (l->order != l->by_dur)
			big_free(l->order);
		l->order = l->by_dur;
		l->key = key;
		l->reverse = false;
		return;
	}
	if (l->order == l->by_dur)
		l->order = big_alloc((l->n ? l->n : 1) * sizeof *l->order);
	if (key == INSTANCES_BY_DURATION)
		memcpy(l->order, l->by_dur, l->n * sizeof *l->order);
	else
		order_by(t, l, key, l->order);
	l->key = key;
	l->reverse = reverse;
	if (reverse)
		for (size_t i = 0, j = l->n; i + 1 < j; i++, j--) {
			uint32_t x = l->order[i];
			l->order[i] = l->order[j - 1];
			l->order[j - 1] = x;
		}
}

static const char *const key_names[INSTANCES_KEY_COUNT] = {
	"duration", "start", "thread",
};

const char *
instances_key_name(enum instance_key k)
{
	return (unsigned)k < INSTANCES_KEY_COUNT ? key_names[k] : "?";
}

int
instances_key_parse(const char *name)
{
	for (int k = 0; k < INSTANCES_KEY_COUNT; k++)
		if (strcmp(name, key_names[k]) == 0)
			return k;
	return -1;
}

void
instances_free(struct instance_list *l)
{
	big_free(l->items);
	if (l->order != l->by_dur)
		big_free(l->order);
	big_free(l->by_dur);
	memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------- stepping */

/* Where a call falls in the duration order: <0 if (dur, r) comes before
 * the item (it is slower, or as slow and earlier in items order). */
static int
cmp_place(const struct trace *t, ttv_ns dur, struct slice_ref r,
    ttv_ns start, const struct call_instance *it)
{
	if (dur != it->dur)
		return dur > it->dur ? -1 : 1;
	if (r.track != it->ref.track)
		return r.track < it->ref.track ? -1 : 1;
	ttv_ns s = trace_slice(t, it->ref)->start;
	if (start != s)
		return start < s ? -1 : 1;
	if (r.depth != it->ref.depth)
		return r.depth < it->ref.depth ? -1 : 1;
	return r.index < it->ref.index ? -1 : r.index > it->ref.index;
}

bool
instances_step(const struct trace *t, const struct instance_list *l,
    struct slice_ref r, bool slower, struct slice_ref *out)
{
	if (l->n == 0 || r.track >= t->ntracks ||
	    r.depth >= t->tracks[r.track].ndepth ||
	    r.index >= t->tracks[r.track].depth[r.depth].len)
		return false;
	const struct depth_level *lv = &t->tracks[r.track].depth[r.depth];
	ttv_ns dur = level_clip(lv, r.index, l->t0, l->t1);
	ttv_ns start = lv->slices[r.index].start;
	/* lo: the first place whose item does not come before r */
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_place(t, dur, r, start, &l->items[l->by_dur[mid]]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t at;
	if (slower) {
		if (lo == 0)
			return false;
		at = lo - 1;
	} else {
		at = lo;
		if (at < l->n && cmp_place(t, dur, r, start,
		    &l->items[l->by_dur[at]]) == 0)
			at++;	/* r itself */
		if (at >= l->n)
			return false;
	}
	*out = l->items[l->by_dur[at]].ref;
	return true;
}

/* ------------------------------------------------------------ histogram */

/* How many calls last at least d: by_dur is in decreasing duration. */
static size_t
count_at_least(const struct instance_list *l, ttv_ns d)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->items[l->by_dur[mid]].dur >= d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
bucket_of(const struct instance_histogram *h, ttv_ns d)
{
	size_t lo = 0, hi = h->n;
	/* the last bucket whose lower edge is <= d */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->edge[mid] <= d)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void
instances_histogram(const struct instance_list *l, size_t nbuckets,
    struct instance_histogram *out)
{
	memset(out, 0, sizeof *out);
	if (l->n == 0 || nbuckets == 0)
		return;
	ttv_ns lo = l->min, hi = l->max;
	/* log scale from at least 1 ns; at most one bucket per value */
	double a = lo > 0 ? (double)lo : 1.0;
	double b = (double)hi + 1.0;
	if ((uint64_t)(hi - lo) + 1 < nbuckets)
		nbuckets = (size_t)(hi - lo) + 1;
	out->edge = xmalloc((nbuckets + 1) * sizeof *out->edge);
	size_t n = 0;
	out->edge[n++] = lo;
	for (size_t i = 1; i < nbuckets; i++) {
		ttv_ns e = (ttv_ns)llround(a * pow(b / a, (double)i /
		    (double)nbuckets));
		if (e > out->edge[n - 1] && e <= hi)
			out->edge[n++] = e;
	}
	out->edge[n] = hi;
	out->n = n;
	out->count = xcalloc(n, sizeof *out->count);
	for (size_t i = 0; i < n; i++) {
		size_t above = count_at_least(l, out->edge[i]);
		size_t next = i + 1 < n ? count_at_least(l, out->edge[i + 1]) :
		    0;
		out->count[i] = above - next;
		if (out->count[i] > out->peak)
			out->peak = out->count[i];
	}
	out->p50 = bucket_of(out, l->p50);
	out->p90 = bucket_of(out, l->p90);
	out->p99 = bucket_of(out, l->p99);
}

void
instance_histogram_free(struct instance_histogram *h)
{
	free(h->edge);
	free(h->count);
	memset(h, 0, sizeof *h);
}

/* --------------------------------------------------------------- search */

size_t
search_in_range(const struct trace *t, struct search_hit *hits, size_t n,
    ttv_ns t0, ttv_ns t1)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct search_hit *h = &hits[i];
		bool in;
		if (h->ref.depth == SEARCH_INSTANT) {
			in = h->t >= t0 && h->t < t1;
		} else {
			ttv_ns s = trace_slice(t, h->ref)->start;
			ttv_ns e = trace_slice_end(t, h->ref);
			in = s < t1 && (e > t0 || (e == s && s >= t0));
		}
		if (in)
			hits[k++] = *h;
	}
	return k;
}
