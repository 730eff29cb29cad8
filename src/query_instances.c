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
#include "threads.h"
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
	size_t *unfinished;	/* calls that never returned, left out */
	size_t *off;		/* pass 2: where each chunk's calls go */
	struct call_instance *items;
	uint64_t *durs;		/* their durations alone, for the sort */
	struct chunk_sums {
		ttv_ns min, max, total;
	} *sums;		/* per chunk */
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
	if (x->ref.depth != y->ref.depth)
		return x->ref.depth < y->ref.depth ? -1 : 1;
	return x->ref.index < y->ref.index ? -1 : x->ref.index > y->ref.index;
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
	size_t pos = 0, n = 0, u = 0;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, c->t0, c->t1, &lo, &hi);
		const struct slice *s = tr->depth[d].slices;
		for (size_t i = lo; i < hi; i++, pos++) {
			uint64_t w = c->want[s[i].func];
			uint64_t x = (s[i].flags & SLICE_INEXACT) != 0;
			uint64_t m = w & (x ^ 1);
			bits[pos >> 6] |= m << (pos & 63);
			n += m;
			u += w & x;
		}
	}
	c->bits[ci] = bits;
	c->count[ci] = n;
	c->unfinished[ci] = u;
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
	big_prefault(out, c->count[ci] * sizeof *out);
	big_prefault(c->durs + c->off[ci], c->count[ci] * sizeof *c->durs);
	uint32_t depths = 0;
	size_t pos = 0;
	for (uint32_t d = 0; d < tr->ndepth && c->count[ci] > 0; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, c->t0, c->t1, &lo, &hi);
		const struct depth_level *l = &tr->depth[d];
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
				ttv_ns dur = level_clip(l, i, c->t0, c->t1);
				*o++ = (struct call_instance){
					.ref = { ch->track, d, (uint32_t)i },
					.dur = dur,
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
	/* the durations alone, and the chunk's shortest, longest, sum */
	ttv_ns lo = TTV_NS_MAX, hi = 0, sum = 0;
	for (const struct call_instance *p = out; p < o; p++) {
		c->durs[p - c->items] = (uint64_t)p->dur;
		lo = p->dur < lo ? p->dur : lo;
		hi = p->dur > hi ? p->dur : hi;
		sum = (ttv_ns)((uint64_t)sum + (uint64_t)p->dur);
	}
	c->sums[ci] = (struct chunk_sums){ lo, hi, sum };
}

ttv_ns
call_instance_self(const struct trace *t, const struct call_instance *c,
    ttv_ns t0, ttv_ns t1)
{
	const struct track *tr = &t->tracks[c->ref.track];
	if (c->ref.depth + 1 >= tr->ndepth)
		return c->dur;
	const struct depth_level *l = &tr->depth[c->ref.depth];
	const struct depth_level *cl = &tr->depth[c->ref.depth + 1];
	ttv_ns start = l->slices[c->ref.index].start;
	ttv_ns end = level_end(l, c->ref.index), child = 0;
	for (size_t k = level_gallop(cl, 0, start); k < cl->len &&
	    cl->slices[k].start < end; k++)
		child += level_clip(cl, k, t0, t1);
	return child < c->dur ? c->dur - child : 0;
}

/* ------------------------------------------------------------ ordering */

/*
 * A stable sort of the indexes 0..n-1 by 64-bit keys, on all cores: one
 * counting pass when the keys span at most COUNTING_BITS bits (the counts
 * stay in cache), else least-significant-digit passes of 11 bits, the
 * keys moving along with the indexes. Each pass counts digits per worker
 * over its block of the input, then each worker puts its block where the
 * counts say: blocks in order, so equal keys keep their order.
 */
#define COUNTING_BITS 16
#define DIGIT_BITS 11
#define SORT_WORKERS 8
#define SORT_MIN_PER_WORKER ((size_t)1 << 18)

struct sort_pass {
	const uint64_t *kin;	/* keys in the input's order */
	const uint32_t *iin;	/* indexes, or NULL: i itself */
	uint64_t base;		/* key = kin[i] - base, or base - kin[i] */
	bool negate;
	uint64_t *kout;		/* NULL on the last pass */
	uint32_t *iout;
	unsigned shift, nbits;
	size_t n;
	int nw;
	size_t *count;		/* nw rows of 2^nbits */
};

struct sort_worker {
	struct sort_pass *p;
	int w;
	bool scatter;
};

static inline uint64_t
pass_key(const struct sort_pass *p, size_t i)
{
	return p->negate ? p->base - p->kin[i] : p->kin[i] - p->base;
}

static void *
sort_work(void *arg)
{
	struct sort_worker *sw = arg;
	struct sort_pass *p = sw->p;
	size_t from = p->n * (size_t)sw->w / (size_t)p->nw;
	size_t to = p->n * (size_t)(sw->w + 1) / (size_t)p->nw;
	size_t nb = (size_t)1 << p->nbits, mask = nb - 1;
	size_t *count = p->count + (size_t)sw->w * nb;
	if (!sw->scatter) {
		memset(count, 0, nb * sizeof *count);
		for (size_t i = from; i < to; i++)
			count[(pass_key(p, i) >> p->shift) & mask]++;
		return NULL;
	}
	for (size_t i = from; i < to; i++) {
		uint64_t k = pass_key(p, i);
		size_t at = count[(k >> p->shift) & mask]++;
		if (p->kout != NULL)
			p->kout[at] = k;
		p->iout[at] = p->iin ? p->iin[i] : (uint32_t)i;
	}
	return NULL;
}

static void
sort_phase(struct sort_pass *p, bool scatter)
{
	struct sort_worker sw[SORT_WORKERS];
	for (int i = 0; i < p->nw; i++)
		sw[i] = (struct sort_worker){ p, i, scatter };
	threads_run(sort_work, sw, sizeof sw[0], (size_t)p->nw);
}

/* One pass: digit (key >> shift) of nbits bits. */
static void
sort_pass_run(struct sort_pass *p)
{
	size_t nb = (size_t)1 << p->nbits;
	sort_phase(p, false);
	/* where each worker's keys of each digit go: digits in order, and
	 * within a digit the workers' blocks in order */
	size_t sum = 0;
	for (size_t b = 0; b < nb; b++)
		for (int w = 0; w < p->nw; w++) {
			size_t c = p->count[(size_t)w * nb + b];
			p->count[(size_t)w * nb + b] = sum;
			sum += c;
		}
	sort_phase(p, true);
}

/* idx = 0..n-1 stably ordered by key(i) = kin[i] - base (or base - kin[i]
 * with negate), whose values span `bits` bits. */
static void
sort_indexes(const uint64_t *kin, uint64_t base, bool negate, unsigned bits,
    uint32_t *idx, size_t n)
{
	int nw = chunks_threads(n * 4);
	if (nw > SORT_WORKERS)
		nw = SORT_WORKERS;
	while (nw > 1 && n / (size_t)nw < SORT_MIN_PER_WORKER)
		nw--;
	struct sort_pass p = { .kin = kin, .base = base, .negate = negate,
	    .n = n, .nw = nw };
	if (bits <= COUNTING_BITS) {
		p.nbits = bits ? bits : 1;
		p.count = xmalloc((size_t)nw * ((size_t)1 << p.nbits) *
		    sizeof *p.count);
		p.iout = idx;
		sort_pass_run(&p);
		free(p.count);
		return;
	}
	p.nbits = DIGIT_BITS;
	p.count = xmalloc((size_t)nw * ((size_t)1 << DIGIT_BITS) *
	    sizeof *p.count);
	unsigned passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
	uint64_t *k[2] = { big_alloc(n * sizeof **k), passes > 2 ?
	    big_alloc(n * sizeof **k) : NULL };
	uint32_t *ix[2] = { idx, big_alloc(n * sizeof **ix) };
	/* the last pass must write idx: start on the other array when the
	 * number of passes is even */
	int to = passes % 2 == 0;
	for (unsigned ps = 0; ps < passes; ps++) {
		p.shift = ps * DIGIT_BITS;
		p.iout = ix[to];
		p.kout = ps + 1 < passes ? k[ps % 2] : NULL;
		sort_pass_run(&p);
		/* later passes read the keys moved, already less base */
		p.kin = p.kout;
		p.iin = p.iout;
		p.base = 0;
		p.negate = false;
		to = !to;
	}
	big_free(k[0]);
	if (k[1] != NULL)
		big_free(k[1]);
	big_free(ix[1]);
	free(p.count);
}

/* idx = 0..n-1 ordered by k, increasing (durations: decreasing), stable;
 * durs: the items' durations, when known. */
static void
order_by(const struct trace *t, const struct instance_list *l,
    enum instance_key k, const uint64_t *durs, uint32_t *idx)
{
	size_t n = l->n;
	if (k == INSTANCES_BY_THREAD || n < 2) {
		for (size_t i = 0; i < n; i++)
			idx[i] = (uint32_t)i;
		return;	/* the items' own order */
	}
	uint64_t *keys = NULL, lo = 0, hi = 0;
	bool negate = false;
	if (k == INSTANCES_BY_DURATION) {
		if (durs == NULL) {
			keys = big_alloc(n * sizeof *keys);
			for (size_t i = 0; i < n; i++)
				keys[i] = (uint64_t)l->items[i].dur;
			durs = keys;
		}
		/* key = max - dur */
		lo = (uint64_t)l->max;
		hi = (uint64_t)l->max - (uint64_t)l->min;
		negate = true;
	} else {
		keys = big_alloc(n * sizeof *keys);
		lo = UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			/* order-preserving: signed to unsigned */
			keys[i] = (uint64_t)trace_slice(t, l->items[i].ref)->start ^
			    ((uint64_t)1 << 63);
			lo = keys[i] < lo ? keys[i] : lo;
			hi = keys[i] > hi ? keys[i] : hi;
		}
		hi -= lo;
		durs = keys;
	}
	unsigned bits = hi ? 64 - (unsigned)__builtin_clzll(hi) : 0;
	if (bits == 0) {
		for (size_t i = 0; i < n; i++)
			idx[i] = (uint32_t)i;
	} else {
		sort_indexes(durs, lo, negate, bits, idx, n);
	}
	if (keys != NULL)
		big_free(keys);
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
		.unfinished = xcalloc(cs.n ? cs.n : 1, sizeof *c.unfinished),
		.off = xcalloc(cs.n ? cs.n : 1, sizeof *c.off),
		.sums = xcalloc(cs.n ? cs.n : 1, sizeof *c.sums),
	};
	size_t ncs = cs.n;
	int nthreads = chunks_threads(cs.slices);
	chunks_run(&cs, nthreads, mark_chunk, &c);
	size_t n = 0;
	for (size_t i = 0; i < cs.n; i++) {
		c.off[i] = n;
		n += c.count[i];
		out->unfinished += c.unfinished[i];
	}
	free(c.unfinished);
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
	/* their pages are mapped by the workers, each its part */
	c.items = big_reserve((n ? n : 1) * sizeof *c.items);
	c.durs = big_reserve((n ? n : 1) * sizeof *c.durs);
	chunks_run(&cs, nthreads, fill_chunk, &c);
	for (size_t i = 0; i < cs.n; i++)
		free(c.bits[i]);
	free(c.bits);
	free(c.off);
	free(want);
	chunks_free(&cs);
	out->items = c.items;
	out->n = n;

	ttv_ns lo = TTV_NS_MAX, hi = 0;
	ttv_ns total = 0;
	for (size_t i = 0; i < ncs; i++) {
		if (c.count[i] == 0)
			continue;
		lo = c.sums[i].min < lo ? c.sums[i].min : lo;
		hi = c.sums[i].max > hi ? c.sums[i].max : hi;
		total = (ttv_ns)((uint64_t)total + (uint64_t)c.sums[i].total);
	}
	free(c.sums);
	free(c.count);
	out->min = n ? lo : 0;
	out->max = hi;
	out->total = total;
	out->by_dur = big_alloc((n ? n : 1) * sizeof *out->by_dur);
	order_by(t, out, INSTANCES_BY_DURATION, c.durs, out->by_dur);
	big_free(c.durs);
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
		order_by(t, l, key, NULL, l->order);
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

static bool
ref_ok(const struct trace *t, struct slice_ref r)
{
	return r.track < t->ntracks && r.depth < t->tracks[r.track].ndepth &&
	    r.index < t->tracks[r.track].depth[r.depth].len;
}

size_t
instances_place(const struct trace *t, const struct instance_list *l,
    struct slice_ref r, bool *found)
{
	*found = false;
	if (l->n == 0 || !ref_ok(t, r))
		return l->n;
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
	*found = lo < l->n && cmp_place(t, dur, r, start,
	    &l->items[l->by_dur[lo]]) == 0;
	return lo;
}

bool
instances_step(const struct trace *t, const struct instance_list *l,
    struct slice_ref r, bool slower, struct slice_ref *out)
{
	bool self;

	if (l->n == 0 || !ref_ok(t, r))
		return false;
	size_t lo = instances_place(t, l, r, &self), at;
	if (slower) {
		if (lo == 0)
			return false;
		at = lo - 1;
	} else {
		at = lo + (self ? 1 : 0);	/* past r itself */
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
