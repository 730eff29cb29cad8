/*
 * Per-function statistics (see query.h).
 *
 * The slices a query visits (the window's index range at each depth of
 * each track the filter lets through) are laid end to end in (track,
 * depth, index) order and cut into one contiguous chunk per thread. Every
 * pass cuts them the same way, so what one chunk finds merges with the
 * next in the order a single walk would have met it: the results do not
 * depend on the number of threads.
 *
 * The passes:
 *  1. sum: count, total, self, weight, min, max and the longest slice.
 *  2. percentiles, for a batch of functions at a time: a function with
 *     many calls counts its durations into a log-linear histogram sized
 *     from its min and max; one with few calls copies its durations.
 *  3. where a wanted rank falls in a histogram bucket that holds more than
 *     one value, the durations in that bucket are copied and the rank is
 *     selected among them. A bucket of width one needs nothing more.
 * The histograms make the percentiles exact for a fraction of the memory
 * traffic of copying every duration and selecting among them.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunks.h"
#include "level.h"
#include "query.h"
#include "summary.h"
#include "threads.h"
#include "env.h"
#include "xalloc.h"

/* Below this many slices one thread does it all: starting threads would
 * cost more than it saves. */
#define THREAD_MIN_SLICES ((size_t)1 << 20)
#define THREADS_MAX 4
/* A batch holds at most this many copied durations (or the histogram
 * memory of as many), which bounds the extra memory. */
#define BATCH_MAX ((size_t)32 << 20)
/* Histograms: one bucket per value below 2^bits, then 2^(bits - 1) per
 * power of two, bits from HIST_BITS_MIN (coarser buckets would leave too
 * much to copy in pass 3) to HIST_BITS_MAX; at most HIST_BUCKETS_MAX
 * buckets for one function and HIST_BUDGET for all, 1 MB of counts per
 * thread that stay in cache. */
#define HIST_BUCKETS_MAX 8192
#define HIST_BUDGET ((uint64_t)256 << 10)
#define HIST_BITS_MIN 5
#define HIST_BITS_MAX 13

/* Pass 1's sums for one function, in one cache line: they are updated at
 * random, once a slice. */
struct sums {
	uint64_t count, weight;
	ttv_ns total, self, min, max;
	struct slice_ref longest;
	uint32_t unfinished;	/* saturates: the line has no room left */
};
_Static_assert(sizeof(struct sums) == 64, "sums must fill one cache line");

/* A run of slices at one depth of one track. */
struct span {
	uint32_t track, depth;
	size_t lo, hi;
	size_t pos;		/* where lo falls in the end-to-end order */
};

enum fn_mode { FN_NONE, FN_COPY, FN_HIST };

/* What the current batch does with a function. */
struct fn_plan {
	uint8_t mode;		/* enum fn_mode */
	uint8_t bits;		/* FN_HIST: mantissa bits */
	uint8_t ntargets;	/* FN_HIST: buckets to copy in pass 3 */
	uint32_t target;	/* FN_HIST: the first of them */
	uint32_t nbuckets;	/* FN_HIST */
	size_t off;		/* FN_COPY: into vals; FN_HIST: into hist */
	ttv_ns min;		/* FN_HIST: x = duration - min */
};

/* The targets of a function for the test in pass 3: three windows of
 * durations [lo, lo + span], unused ones a copy of the first. */
struct fn_window {
	ttv_ns lo[3];
	uint64_t span[3];
};

/* A histogram bucket that holds a wanted rank and more than one value:
 * pass 3 copies its durations to select the rank among them. */
struct target {
	uint32_t bucket;
	ttv_ns lo, hi;		/* its durations, inclusive */
	size_t n;		/* how many */
	size_t part[THREADS_MAX];	/* how many each worker meets */
	int nranks;
	size_t rank[3];		/* within the bucket, largest first */
	ttv_ns *out[3];		/* where each goes */
	size_t off;		/* its place in vals */
};

/* One query: what every pass reads. */
struct query {
	const struct trace *t;
	const struct filter *f;
	ttv_ns t0, t1;		/* the range: edge slices are clipped to it */
	struct span *spans;
	size_t nspans, total;	/* total: slices in all spans */
	int nthreads;
	/* Rows: one per function, or per group of functions (the
	 * function's row, row_of[func], NULL: the function itself). */
	const uint32_t *row_of;
	uint32_t nrows;
	struct func_stats *rows;	/* the result, nrows */

	struct fn_plan *plan;	/* nrows, for the current batch */
	size_t hist_len;	/* buckets in each worker's hist */
	struct target *targets;
	size_t ntargets;
	struct fn_window *windows;	/* nrows, FN_HIST with targets */
	size_t ta, tb;		/* the targets of the current pass 3 */
	ttv_ns *vals;		/* copied durations */
	size_t vals_cap;
};

struct worker {
	struct query *q;
	size_t from, to;	/* its chunk of the end-to-end order */
	struct sums *sums;	/* pass 1, per function, in its chunk */
	void *sums_mem;		/* what sums is aligned in */
	size_t *fill;		/* FN_COPY: next place, per function */
	uint32_t *hist;		/* FN_HIST counts, hist_len */
	size_t hist_cap;
	size_t *tfill;		/* next place, per target */
	/* The selection: functions [f0, f1) and targets [k0, k1). */
	uint32_t f0, f1;
	size_t k0, k1;
};

/* ------------------------------------------------------------- threads */

/* Threads for nslices slices of nrows rows: each thread has every row,
 * not worth it when there are few slices per row. */
static int
thread_count(size_t nslices, uint32_t nrows)
{
	if (nslices < THREAD_MIN_SLICES || nrows > nslices / 16)
		return 1;
	long n = ttv_cpus();
	if (n < 1)
		return 1;
	return n > THREADS_MAX ? THREADS_MAX : (int)n;
}

/* Runs fn on the first n workers, the first on this thread. */
static void
run_workers(struct worker *w, int n, void *(*fn)(void *))
{
	threads_run(fn, w, sizeof *w, (size_t)n);
}

/* --------------------------------------------------------------- spans */

static void
plan_spans(struct query *q, ttv_ns t0, ttv_ns t1)
{
	const struct trace *t = q->t;
	size_t cap = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		/* CPU lanes say what ran, not what was called. */
		if (!filter_track(q->f, ti) || tr->kind == TRACK_CPU)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			size_t lo, hi;
			query_window(tr, d, t0, t1, &lo, &hi);
			if (lo >= hi)
				continue;
			if (q->nspans == cap) {
				cap = cap ? cap * 2 : 64;
				q->spans = xreallocarray(q->spans, cap,
				    sizeof *q->spans);
			}
			q->spans[q->nspans++] = (struct span){ ti, d, lo, hi,
			    q->total };
			q->total += hi - lo;
		}
	}
}

/* The first span of a worker's chunk. */
static size_t
first_span(const struct worker *w)
{
	const struct query *q = w->q;
	size_t lo = 0, hi = q->nspans;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct span *s = &q->spans[mid];
		if (s->pos + (s->hi - s->lo) <= w->from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The part of span si in a worker's chunk; NULL once past the chunk. */
static const struct span *
chunk_span(const struct worker *w, size_t si, size_t *lo, size_t *hi)
{
	const struct query *q = w->q;
	if (si >= q->nspans || q->spans[si].pos >= w->to)
		return NULL;
	const struct span *s = &q->spans[si];
	size_t end = s->pos + (s->hi - s->lo);
	*lo = s->lo + (w->from > s->pos ? w->from - s->pos : 0);
	*hi = s->hi - (end > w->to ? end - w->to : 0);
	return s;
}

/* ---------------------------------------------------------- pass 1: sum */

/* The row of a function. Each pass is written once and made twice: with
 * rows NULL (a function is its row: the walk of --stats, compiled as it
 * was before groups) and with the groups' table, a load more a slice. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
static ALWAYS_INLINE uint32_t
row_of(const uint32_t *rows, func_id fn)
{
	return rows != NULL ? rows[fn] : fn;
}

/* Only the first and the last slice of a span can stick out of the range
 * (slices at one depth do not overlap): their durations are clipped. */
static inline bool
at_edge(const struct span *sp, size_t i)
{
	return i == sp->lo || i + 1 == sp->hi;
}

static ttv_ns
edge_dur(const struct query *q, const struct span *sp, size_t i, ttv_ns dur)
{
	if (!at_edge(sp, i))
		return dur;
	const struct depth_level *l =
	    &q->t->tracks[sp->track].depth[sp->depth];
	return level_clip(l, i, q->t0, q->t1);
}

/* The clipped time of the children of an edge slice. */
static ttv_ns
edge_children(const struct query *q, const struct depth_level *cl,
    ttv_ns start, ttv_ns end)
{
	ttv_ns child = 0;
	for (size_t k = level_first_start(cl, start);
	    k < cl->len && cl->slices[k].start < end; k++)
		child = add_ns(child, level_clip(cl, k, q->t0, q->t1));
	return child;
}

/* A call that never returned: counted apart, with no time (the count
 * rule of query_calls.h). Rare, so the filter is asked each time. */
static ALWAYS_INLINE void
count_unfinished(struct worker *w, const uint32_t *rows, func_id fn)
{
	if (!filter_func(w->q->f, fn))
		return;
	struct sums *fs = &w->sums[row_of(rows, fn)];
	if (fs->unfinished < UINT32_MAX)
		fs->unfinished++;
}

/* Self time comes from walking each depth beside the one below it: a
 * child belongs to the parent whose span holds its start. A chunk that
 * starts inside a depth finds its first child by search where a single
 * walk would have stepped to it: the same child, as slices at one depth
 * do not overlap. */
static ALWAYS_INLINE void
sum_walk(struct worker *w, const uint32_t *rows)
{
	const struct trace *t = w->q->t;
	const struct filter *f = w->q->f;
	const struct span *sp;
	size_t lo, hi;
	for (size_t si = first_span(w); (sp = chunk_span(w, si, &lo, &hi));
	    si++) {
		const struct track *tr = &t->tracks[sp->track];
		uint32_t d = sp->depth;
		const struct depth_level *l = &tr->depth[d];
		const struct depth_level *cl =
		    d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
		const struct slice *cs = cl ? cl->slices : NULL;
		size_t cn = cl ? cl->len : 0;
		size_t c = cl ? level_first_start(cl, l->slices[lo].start) : 0;
		size_t lc = 0, cc = 0;	/* cursors into long durations */
		size_t ahead = 0, cahead = 0;
		for (size_t i = lo; i < hi; i++) {
			const struct slice *s = &l->slices[i];
			trace_ahead(t, sp->track, d, i, &ahead);
			if (cl != NULL)
				trace_ahead(t, sp->track, d + 1, c, &cahead);
			ttv_ns dur = level_dur_walk(l, i, &lc);
			ttv_ns end = add_ns(s->start, dur);
			ttv_ns child = level_children_walk(cl, cs, cn, &c, &cc,
			    s->start, end);
			if (s->flags & SLICE_INEXACT) {
				count_unfinished(w, rows, s->func);
				continue;
			}
			if (__builtin_expect(at_edge(sp, i), 0)) {
				dur = level_clip(l, i, w->q->t0, w->q->t1);
				if (cl != NULL)
					child = edge_children(w->q, cl, s->start,
					    end);
			}
			struct sums *fs = &w->sums[row_of(rows, s->func)];
			if (fs->count == 0) {
				if (!filter_func(f, s->func))
					continue;
				fs->min = fs->max = dur;
				fs->longest = (struct slice_ref){ sp->track,
				    d, (uint32_t)i };
			} else if (dur < fs->min) {
				fs->min = dur;
			} else if (dur > fs->max) {
				fs->max = dur;
				fs->longest = (struct slice_ref){ sp->track,
				    d, (uint32_t)i };
			}
			fs->count++;
			fs->weight += l->weights ? l->weights[i] : 1;
			fs->total = add_ns(fs->total, dur);
			fs->self = add_ns(fs->self, child > dur ? 0 :
			    (ttv_ns)((uint64_t)dur - (uint64_t)child));
		}
	}
}

static void *
sum_pass(void *arg)
{
	sum_walk(arg, NULL);
	return NULL;
}

static void *
sum_pass_grouped(void *arg)
{
	struct worker *w = arg;
	sum_walk(w, w->q->row_of);
	return NULL;
}

/* Adds a chunk's sums to the earlier chunks' row: among equal maxima the
 * earlier slice stays the longest, as in a single walk. */
static void
merge_sums(struct func_stats *to, const struct sums *from)
{
	to->unfinished += from->unfinished;
	if (from->count == 0)
		return;
	if (to->count == 0 || from->min < to->min)
		to->min = from->min;
	if (to->count == 0 || from->max > to->max) {
		to->max = from->max;
		to->longest = from->longest;
	}
	to->count += from->count;
	to->weight += from->weight;
	to->total = add_ns(to->total, from->total);
	to->self = add_ns(to->self, from->self);
}

/* ---------------------------------------------------------- histograms */

/*
 * Log-linear buckets of x = duration - min, with `bits` mantissa bits:
 * one bucket per value below 2^bits, then 2^(bits - 1) buckets for each
 * power of two. Increasing in x, no gaps.
 */
static inline uint32_t
bucket_of(uint64_t x, unsigned bits)
{
	unsigned len = 64 - (unsigned)__builtin_clzll(x | 1);
	unsigned s = len > bits ? len - bits : 0;
	return (uint32_t)(((uint64_t)s << (bits - 1)) + (x >> s));
}

/* The first x of bucket b; *shift: log2 of its width. */
static uint64_t
bucket_start(uint32_t b, unsigned bits, unsigned *shift)
{
	if (b < (1u << bits)) {
		*shift = 0;
		return b;
	}
	unsigned s = (b >> (bits - 1)) - 1;
	*shift = s;
	return (uint64_t)(b - (s << (bits - 1))) << s;
}

/* The mantissa bits of a function's histogram, or 0 when copying its
 * durations is cheaper. A histogram pays while its counts stay in cache:
 * the histograms of all functions share HIST_BUDGET buckets in proportion
 * to their calls (`calls`: of all functions), and none has more buckets
 * than an eighth of its calls. */
static unsigned
hist_bits(const struct func_stats *fs, uint64_t calls)
{
	/* unsigned: a damaged model's durations may span more than int64 */
	uint64_t range = (uint64_t)fs->max - (uint64_t)fs->min;
	if (fs->count > UINT32_MAX)
		return 0;
	uint64_t cap = fs->count / 8;
	uint64_t share = HIST_BUDGET * fs->count / calls;
	if (cap > share)
		cap = share;
	if (cap > HIST_BUCKETS_MAX)
		cap = HIST_BUCKETS_MAX;
	for (unsigned bits = HIST_BITS_MAX; bits >= HIST_BITS_MIN; bits--)
		if ((uint64_t)bucket_of(range, bits) + 1 <= cap)
			return bits;
	return 0;
}

/* ------------------------------------------------------- passes 2 and 3 */

/* Pass 2: copies the durations of FN_COPY functions, counts those of
 * FN_HIST ones. */
static ALWAYS_INLINE void
count_walk(struct worker *w, const uint32_t *rows)
{
	const struct query *q = w->q;
	const struct fn_plan *plan = q->plan;
	ttv_ns *vals = q->vals;
	uint32_t *hist = w->hist;
	size_t *fill = w->fill;
	const struct span *sp;
	size_t lo, hi;
	if (q->hist_len > 0)
		memset(hist, 0, q->hist_len * sizeof *hist);
	for (size_t si = first_span(w); (sp = chunk_span(w, si, &lo, &hi));
	    si++) {
		const struct depth_level *l =
		    &q->t->tracks[sp->track].depth[sp->depth];
		const struct slice *s = l->slices;
		size_t lc = 0, ahead = 0;
		for (size_t i = lo; i < hi; i++) {
			trace_ahead(q->t, sp->track, sp->depth, i, &ahead);
			uint32_t fn = row_of(rows, s[i].func);
			const struct fn_plan *p = &plan[fn];
			if (p->mode == FN_NONE || (s[i].flags & SLICE_INEXACT))
				continue;
			ttv_ns dur = edge_dur(q, sp, i, level_dur_walk(l, i,
			    &lc));
			if (p->mode == FN_HIST)
				hist[p->off + bucket_of((uint64_t)(dur -
				    p->min), p->bits)]++;
			else
				vals[fill[fn]++] = dur;
		}
	}
}

static void *
count_pass(void *arg)
{
	count_walk(arg, NULL);
	return NULL;
}

static void *
count_pass_grouped(void *arg)
{
	struct worker *w = arg;
	count_walk(w, w->q->row_of);
	return NULL;
}

/* Pass 3: copies the durations in the targets [ta, tb). Almost no
 * duration is in a target, and which one it misses by is random: the test
 * has no branch per target. */
static ALWAYS_INLINE void
copy_walk(struct worker *w, const uint32_t *rows)
{
	const struct query *q = w->q;
	const struct span *sp;
	size_t lo, hi;
	for (size_t si = first_span(w); (sp = chunk_span(w, si, &lo, &hi));
	    si++) {
		const struct depth_level *l =
		    &q->t->tracks[sp->track].depth[sp->depth];
		const struct slice *s = l->slices;
		size_t lc = 0, ahead = 0;
		for (size_t i = lo; i < hi; i++) {
			trace_ahead(q->t, sp->track, sp->depth, i, &ahead);
			uint32_t fn = row_of(rows, s[i].func);
			const struct fn_plan *p = &q->plan[fn];
			if (p->ntargets == 0 || (s[i].flags & SLICE_INEXACT))
				continue;
			ttv_ns dur = edge_dur(q, sp, i, level_dur_walk(l, i,
			    &lc));
			const struct fn_window *fw = &q->windows[fn];
			bool in = ((uint64_t)(dur - fw->lo[0]) <= fw->span[0]) |
			    ((uint64_t)(dur - fw->lo[1]) <= fw->span[1]) |
			    ((uint64_t)(dur - fw->lo[2]) <= fw->span[2]);
			if (__builtin_expect(!in, 1))
				continue;
			for (size_t k = p->target; k < p->target +
			    p->ntargets; k++) {
				const struct target *g = &q->targets[k];
				if (dur >= g->lo && dur <= g->hi) {
					if (k >= q->ta && k < q->tb)
						q->vals[w->tfill[k]++] = dur;
					break;
				}
			}
		}
	}
}

static void *
copy_pass(void *arg)
{
	copy_walk(arg, NULL);
	return NULL;
}

static void *
copy_pass_grouped(void *arg)
{
	struct worker *w = arg;
	copy_walk(w, w->q->row_of);
	return NULL;
}

/* ----------------------------------------------------------- selection */

/* Puts the k-th smallest of a[0..n) at a[k], smaller ones before it. */
static void
select_kth(ttv_ns *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		/* median of three as pivot */
		if (a[mid] < a[lo]) { ttv_ns x = a[mid]; a[mid] = a[lo]; a[lo] = x; }
		if (a[hi] < a[lo]) { ttv_ns x = a[hi]; a[hi] = a[lo]; a[lo] = x; }
		if (a[hi] < a[mid]) { ttv_ns x = a[hi]; a[hi] = a[mid]; a[mid] = x; }
		ttv_ns pivot = a[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				ttv_ns x = a[i]; a[i] = a[j]; a[j] = x;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The ranks llvm-xray reports: floor(q * n) of the sorted durations,
 * p99 first. */
static void
ranks(size_t n, size_t k[3])
{
	k[0] = (size_t)(0.99 * (double)n);
	k[1] = (size_t)(0.9 * (double)n);
	k[2] = n / 2;
	for (int r = 0; r < 2; r++)
		if (k[r] >= n)
			k[r] = n - 1;
}

/* Selects ranks (largest first) among d[0..n): each selection works on
 * the part below the previous rank, which holds the smaller values. */
static void
select_ranks(ttv_ns *d, size_t n, const size_t *rank, ttv_ns *const *out,
    int nranks)
{
	for (int r = 0; r < nranks; r++) {
		select_kth(d, n, rank[r]);
		*out[r] = d[rank[r]];
		n = rank[r] + 1;
	}
}

static void *
select_pass(void *arg)
{
	struct worker *w = arg;
	struct query *q = w->q;
	for (uint32_t f = w->f0; f < w->f1; f++) {
		if (q->plan[f].mode != FN_COPY)
			continue;
		struct func_stats *fs = &q->rows[f];
		size_t k[3];
		ttv_ns *out[3] = { &fs->p99, &fs->p90, &fs->median };
		ranks(fs->count, k);
		select_ranks(q->vals + q->plan[f].off, fs->count, k, out, 3);
	}
	for (size_t k = w->k0; k < w->k1; k++) {
		const struct target *g = &q->targets[k];
		select_ranks(q->vals + g->off, g->n, g->rank, g->out,
		    g->nranks);
	}
	return NULL;
}

/* Selects in the FN_COPY functions [f0, f1) and the targets [k0, k1),
 * split between the workers by the values each has to go through. */
static void
select_all(struct query *q, struct worker *w, uint32_t f0, uint32_t f1,
    size_t k0, size_t k1)
{
	size_t work = 0;
	for (uint32_t f = f0; f < f1; f++)
		if (q->plan[f].mode == FN_COPY)
			work += q->rows[f].count;
	for (size_t k = k0; k < k1; k++)
		work += q->targets[k].n;
	int n = work >= THREAD_MIN_SLICES ? q->nthreads : 1;
	for (int i = 0; i < n; i++) {
		w[i].f0 = w[i].f1 = f1;
		w[i].k0 = w[i].k1 = k1;
	}
	/* Worker i + 1 starts where the work done reaches (i + 1) / n. */
	size_t done = 0;
	int i = 0;
	w[0].f0 = f0;
	w[0].k0 = k0;
	for (uint32_t f = f0; f < f1; f++) {
		while (i + 1 < n && done >= work * (size_t)(i + 1) / (size_t)n) {
			w[i].f1 = f;
			w[i].k1 = k0;
			i++;
			w[i].f0 = f;
			w[i].k0 = k0;
		}
		if (q->plan[f].mode == FN_COPY)
			done += q->rows[f].count;
	}
	w[i].f1 = f1;
	for (size_t k = k0; k < k1; k++) {
		while (i + 1 < n && done >= work * (size_t)(i + 1) / (size_t)n) {
			w[i].k1 = k;
			i++;
			w[i].k0 = k;
		}
		done += q->targets[k].n;
	}
	w[i].k1 = k1;
	run_workers(w, n, select_pass);
}

/* ------------------------------------------------------------- batches */

static void
reserve_vals(struct query *q, size_t n)
{
	if (n <= q->vals_cap)
		return;
	free(q->vals);
	q->vals = xreallocarray(NULL, n, sizeof *q->vals);
	q->vals_cap = n;
}

/* After pass 2: the wanted ranks of a FN_HIST function, read off the
 * histogram where their bucket is one value wide, else targets. */
static void
plan_targets(struct query *q, struct worker *w, func_id f, uint32_t *h)
{
	struct func_stats *fs = &q->rows[f];
	struct fn_plan *p = &q->plan[f];
	size_t want[3];
	ttv_ns *out[3] = { &fs->p99, &fs->p90, &fs->median };
	ranks(fs->count, want);
	memset(h, 0, p->nbuckets * sizeof *h);
	for (int i = 0; i < q->nthreads; i++) {
		const uint32_t *o = w[i].hist + p->off;
		for (uint32_t b = 0; b < p->nbuckets; b++)
			h[b] += o[b];
	}
	/* Down from the top: bucket b - 1 holds ranks [above - h[b - 1],
	 * above). */
	size_t above = fs->count;
	uint32_t b = p->nbuckets;
	p->target = (uint32_t)q->ntargets;
	for (int r = 0; r < 3; r++) {
		while (above - h[b - 1] > want[r])
			above -= h[--b];
		uint32_t bk = b - 1;
		unsigned shift;
		ttv_ns lo = fs->min + (ttv_ns)bucket_start(bk, p->bits, &shift);
		if (shift == 0) {
			*out[r] = lo;
			continue;
		}
		struct target *g = q->ntargets > p->target ?
		    &q->targets[q->ntargets - 1] : NULL;
		if (g == NULL || g->bucket != bk) {
			g = &q->targets[q->ntargets++];
			g->bucket = bk;
			g->lo = lo;
			/* Unsigned: the top of a bucket near 2^63 ns. */
			uint64_t top = (uint64_t)lo +
			    (((uint64_t)1 << shift) - 1);
			g->hi = top > (uint64_t)fs->max ? fs->max : (ttv_ns)top;
			g->n = h[bk];
			for (int i = 0; i < q->nthreads; i++)
				g->part[i] = w[i].hist[p->off + bk];
			g->nranks = 0;
		}
		g->rank[g->nranks] = want[r] - (above - h[bk]);
		g->out[g->nranks++] = out[r];
	}
	p->ntargets = (uint8_t)(q->ntargets - p->target);
	if (p->ntargets == 0)
		return;
	struct fn_window *fw = &q->windows[f];
	for (int k = 0; k < 3; k++) {
		const struct target *g = &q->targets[p->target +
		    (k < p->ntargets ? k : 0)];
		fw->lo[k] = g->lo;
		fw->span[k] = (uint64_t)(g->hi - g->lo);
	}
}

/* Percentiles of the functions planned in [first, next). */
static void
run_batch(struct query *q, struct worker *w, uint32_t first, uint32_t next,
    uint32_t *h)
{
	const int nt = q->nthreads;
	/* FN_COPY durations one function after another, each worker's
	 * after the earlier workers'. */
	size_t used = 0, hist_len = 0, nhist = 0;
	for (uint32_t f = first; f < next; f++) {
		struct fn_plan *p = &q->plan[f];
		if (p->mode == FN_COPY) {
			p->off = used;
			for (int i = 0; i < nt; i++) {
				w[i].fill[f] = used;
				used += w[i].sums[f].count;
			}
		} else if (p->mode == FN_HIST) {
			p->off = hist_len;
			hist_len += p->nbuckets;
			nhist++;
		}
	}
	q->hist_len = hist_len;
	for (int i = 0; i < nt; i++)
		if (w[i].hist_cap < hist_len) {
			free(w[i].hist);
			w[i].hist = xreallocarray(NULL, hist_len,
			    sizeof *w[i].hist);
			w[i].hist_cap = hist_len;
		}
	reserve_vals(q, used);
	run_workers(w, nt, q->row_of ? count_pass_grouped : count_pass);
	select_all(q, w, first, next, 0, 0);
	if (nhist == 0)
		return;

	q->targets = xreallocarray(q->targets, nhist * 3,
	    sizeof *q->targets);
	q->ntargets = 0;
	for (uint32_t f = first; f < next; f++)
		if (q->plan[f].mode == FN_HIST)
			plan_targets(q, w, f, h);
	/* Pass 3 for as many targets at a time as BATCH_MAX allows. */
	for (q->ta = 0; q->ta < q->ntargets; q->ta = q->tb) {
		used = 0;
		for (q->tb = q->ta; q->tb < q->ntargets; q->tb++) {
			struct target *g = &q->targets[q->tb];
			if (used > 0 && used + g->n > BATCH_MAX)
				break;
			g->off = used;
			for (int i = 0; i < nt; i++) {
				w[i].tfill[q->tb] = used;
				used += g->part[i];
			}
		}
		reserve_vals(q, used);
		run_workers(w, nt, q->row_of ? copy_pass_grouped :
		    copy_pass);
		select_all(q, w, next, next, q->ta, q->tb);
	}
}

static void stats_percentiles(struct query *q, struct worker *w,
    uint32_t nshown, struct stats_table *out);

/* The statistics of nrows rows, row_of[func] the row of a function (NULL:
 * its own). */
static void
stats_rows(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, const uint32_t *row_of, uint32_t nrows, uint32_t nshown,
    struct stats_table *out)
{
	memset(out, 0, sizeof *out);
	if (nrows == 0)
		return;
	struct query q = { .t = t, .f = f, .t0 = t0, .t1 = t1,
	    .row_of = row_of, .nrows = nrows };
	plan_spans(&q, t0, t1);
	q.nthreads = thread_count(q.total, nrows);
	q.rows = xcalloc(nrows, sizeof *q.rows);

	/* Pass 1, then the chunks' rows in order. */
	struct worker w[THREADS_MAX];
	memset(w, 0, sizeof w);
	for (int i = 0; i < q.nthreads; i++) {
		w[i].q = &q;
		w[i].from = q.total * (size_t)i / (size_t)q.nthreads;
		w[i].to = q.total * (size_t)(i + 1) / (size_t)q.nthreads;
		/* Aligned by hand: x*alloc have no aligned variant. */
		w[i].sums_mem = xcalloc((size_t)nrows + 1, sizeof *w[i].sums);
		w[i].sums = (struct sums *)(((uintptr_t)w[i].sums_mem +
		    sizeof *w[i].sums - 1) & ~(uintptr_t)(sizeof *w[i].sums - 1));
		w[i].fill = xmalloc(nrows * sizeof *w[i].fill);
	}
	run_workers(w, q.nthreads, row_of ? sum_pass_grouped : sum_pass);
	for (uint32_t fn = 0; fn < nrows; fn++)
		for (int i = 0; i < q.nthreads; i++)
			merge_sums(&q.rows[fn], &w[i].sums[fn]);
	stats_percentiles(&q, w, nshown, out);
}

/* After pass 1 (q->rows, and each worker's own sums): the percentiles,
 * then the table. Frees the query. */
static void
stats_percentiles(struct query *q, struct worker *w, uint32_t nshown,
    struct stats_table *out)
{
	const uint32_t nrows = q->nrows;
	/* Percentiles, for batches of functions whose copies and
	 * histograms fit BATCH_MAX (one larger function is a batch of its
	 * own). The function filter is in the counts already: a function
	 * out of it has count 0 and is in no batch. */
	q->plan = xcalloc(nrows, sizeof *q->plan);
	q->windows = xmalloc(nrows * sizeof *q->windows);
	uint32_t *h = xmalloc(HIST_BUCKETS_MAX * sizeof *h);
	size_t ntargets_max = 0;
	uint64_t calls = 0;
	for (uint32_t fn = 0; fn < nrows; fn++)
		calls += q->rows[fn].count;
	for (uint32_t next = 0; next < nrows;) {
		size_t used = 0, nhist = 0;
		uint32_t first = next;
		for (; next < nrows; next++) {
			struct func_stats *fs = &q->rows[next];
			struct fn_plan *p = &q->plan[next];
			p->mode = FN_NONE;
			p->ntargets = 0;
			if (fs->count == 0)
				continue;
			unsigned bits = hist_bits(fs, calls);
			size_t cost = fs->count;
			if (bits > 0) {
				p->nbuckets = bucket_of((uint64_t)(fs->max -
				    fs->min), bits) + 1;
				/* A bucket takes 4 bytes in each worker. */
				cost = (size_t)p->nbuckets *
				    (size_t)q->nthreads / 2 + 1;
			}
			if (used > 0 && used + cost > BATCH_MAX)
				break;
			used += cost;
			p->mode = bits > 0 ? FN_HIST : FN_COPY;
			p->bits = (uint8_t)bits;
			p->min = fs->min;
			nhist += bits > 0;
		}
		if (nhist * 3 > ntargets_max) {
			ntargets_max = nhist * 3;
			for (int i = 0; i < q->nthreads; i++) {
				free(w[i].tfill);
				w[i].tfill = xreallocarray(NULL, ntargets_max,
				    sizeof *w[i].tfill);
			}
		}
		if (used > 0)
			run_batch(q, w, first, next, h);
		for (uint32_t fn = first; fn < next; fn++) {
			q->plan[fn].mode = FN_NONE;
			q->plan[fn].ntargets = 0;
		}
	}
	free(h);
	for (int i = 0; i < q->nthreads; i++) {
		free(w[i].sums_mem);
		free(w[i].fill);
		free(w[i].hist);
		free(w[i].tfill);
	}
	free(q->plan);
	free(q->windows);
	free(q->targets);
	free(q->vals);
	free(q->spans);

	struct func_stats *rows = q->rows;
	size_t n = 0;
	for (uint32_t i = 0; i < nshown; i++)
		out->unfinished += rows[i].unfinished;
	for (uint32_t i = 0; i < nrows; i++) {
		if (rows[i].count == 0)
			continue;
		rows[i].func = i;
		rows[n++] = rows[i];
	}
	out->rows = rows;
	out->n = n;
}

void
query_stats_whole(const struct trace *t, struct func_stats *rows,
    const struct stats_parts *parts, struct stats_table *out)
{
	memset(out, 0, sizeof *out);
	if (t->nfuncs == 0) {
		free(rows);
		return;
	}
	struct query q = { .t = t, .t0 = TTV_NS_MIN, .t1 = TTV_NS_MAX,
	    .nrows = t->nfuncs, .rows = rows };
	/* The workers of the first pass, each on the tracks it walked:
	 * the counts of each part place its copied durations. One worker
	 * when the pass was made in one part, or when threads would not
	 * pay (thread_count). */
	size_t calls = 0;
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		if (t->tracks[ti].kind != TRACK_CPU)
			for (uint32_t d = 0; d < t->tracks[ti].ndepth; d++)
				calls += t->tracks[ti].depth[d].len;
	uint32_t np = parts != NULL && parts->n <= THREADS_MAX &&
	    thread_count(calls, q.nrows) > 1 ? parts->n : 1;
	struct worker w[THREADS_MAX];
	memset(w, 0, sizeof w);
	/* Every call of every track but the CPU lanes, the tracks of one
	 * part after another: the spans plan_spans would find, without
	 * searching for them. */
	size_t cap = 0;
	for (uint32_t p = 0; p < np; p++) {
		w[p].from = q.total;
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			if (tr->kind == TRACK_CPU || (np > 1 &&
			    parts->part_of[ti] != p))
				continue;
			for (uint32_t d = 0; d < tr->ndepth; d++) {
				size_t len = tr->depth[d].len;
				if (len == 0)
					continue;
				if (q.nspans == cap) {
					cap = cap ? cap * 2 : 64;
					q.spans = xreallocarray(q.spans, cap,
					    sizeof *q.spans);
				}
				q.spans[q.nspans++] = (struct span){ ti, d, 0,
				    len, q.total };
				q.total += len;
			}
		}
		w[p].to = q.total;
	}
	q.nthreads = (int)np;
	for (uint32_t p = 0; p < np; p++) {
		w[p].q = &q;
		w[p].sums_mem = xcalloc((size_t)q.nrows + 1,
		    sizeof *w[p].sums);
		w[p].sums = (struct sums *)(((uintptr_t)w[p].sums_mem +
		    sizeof *w[p].sums - 1) &
		    ~(uintptr_t)(sizeof *w[p].sums - 1));
		w[p].fill = xmalloc(q.nrows * sizeof *w[p].fill);
		for (uint32_t fn = 0; fn < q.nrows; fn++)
			w[p].sums[fn].count = np > 1 ? parts->counts[p][fn] :
			    rows[fn].count;
	}
	stats_percentiles(&q, w, q.nrows, out);
}

void
query_stats(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, struct stats_table *out)
{
	/* The whole trace, unfiltered: the table an index stored. */
	if (t->summary != NULL && t->summary->has_stats && t->nfuncs > 0 &&
	    summary_whole(f, t0, t1)) {
		memset(out, 0, sizeof *out);
		out->n = t->summary->nstats;
		out->rows = xcalloc(out->n + 1, sizeof *out->rows);
		if (out->n > 0)
			memcpy(out->rows, t->summary->stats, out->n *
			    sizeof *out->rows);
		out->unfinished = t->summary->stats_unfinished;
		return;
	}
	stats_rows(t, f, t0, t1, NULL, t->nfuncs, t->nfuncs, out);
}

void
query_stats_grouped(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, const uint32_t *group, uint32_t ngroups,
    struct stats_table *out)
{
	/* Pass 1 asks the function filter at a row's first call only (the
	 * rows of functions it leaves out then stay empty): here the
	 * functions it leaves out go to a row of their own past the
	 * groups, which stays empty, and a group never meets them. */
	uint32_t *row_of = xmalloc((t->nfuncs ? t->nfuncs : 1) *
	    sizeof *row_of);
	for (uint32_t fn = 0; fn < t->nfuncs; fn++)
		row_of[fn] = filter_func(f, fn) && group[fn] < ngroups ?
		    group[fn] : ngroups;
	stats_rows(t, f, t0, t1, row_of, ngroups + 1, ngroups, out);
	free(row_of);
	/* the row past the groups, last if it is there */
	if (out->n > 0 && out->rows[out->n - 1].func >= ngroups)
		out->n--;
}

static const char *const key_names[STATS_KEY_COUNT] = {
	"name", "count", "total", "self", "min", "median", "p90", "p99", "max",
	"samples",
};

const char *
stats_key_name(enum stats_key k)
{
	return (unsigned)k < STATS_KEY_COUNT ? key_names[k] : "?";
}

int
stats_key_parse(const char *name)
{
	for (int k = 0; k < STATS_KEY_COUNT; k++)
		if (strcmp(name, key_names[k]) == 0)
			return k;
	return -1;
}

/* What a sort compares by; passed to qsort_r so that sorts on different
 * threads (the viewer computes on a worker) do not share state. */
struct sort_by {
	const struct trace *t;
	enum stats_key key;
	bool desc;
};

ttv_ns
stats_value(const struct func_stats *s, enum stats_key key)
{
	switch (key) {
	case STATS_COUNT: return (ttv_ns)s->count;
	case STATS_TOTAL: return s->total;
	case STATS_SELF: return s->self;
	case STATS_MIN: return s->min;
	case STATS_MEDIAN: return s->median;
	case STATS_P90: return s->p90;
	case STATS_P99: return s->p99;
	case STATS_MAX: return s->max;
	case STATS_SAMPLES: return (ttv_ns)s->weight;
	default: return 0;
	}
}

static int
cmp_rows(const void *a, const void *b, void *arg)
{
	const struct func_stats *x = a, *y = b;
	const struct sort_by *by = arg;
	int c = 0;
	if (by->key == STATS_NAME)
		c = strcmp(trace_func_name(by->t, x->func),
		    trace_func_name(by->t, y->func));
	else {
		ttv_ns u = stats_value(x, by->key), v = stats_value(y, by->key);
		c = u < v ? -1 : u > v;
	}
	if (by->desc)
		c = -c;
	/* Ties by name: function ids depend on the order a reader met them,
	 * which parallel readers do not fix. */
	if (c == 0 && by->key != STATS_NAME)
		c = strcmp(trace_func_name(by->t, x->func),
		    trace_func_name(by->t, y->func));
	if (c == 0)
		c = x->func < y->func ? -1 : x->func > y->func;
	return c;
}

void
stats_sort(const struct trace *t, struct stats_table *st, enum stats_key key,
    bool descending)
{
	struct sort_by by = { t, key, descending };
	if (st->n > 1)
		qsort_r(st->rows, st->n, sizeof *st->rows, cmp_rows, &by);
}

void
stats_free(struct stats_table *st)
{
	free(st->rows);
	st->rows = NULL;
	st->n = 0;
}
