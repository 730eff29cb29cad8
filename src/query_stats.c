/*
 * Per-function statistics (see query.h).
 *
 * Two kinds of passes over the slices: one that counts and sums, and one
 * that gathers durations for the percentiles. Durations are gathered for a
 * batch of functions at a time so that the extra memory stays bounded
 * (GATHER_MAX durations) however large the trace is.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "xalloc.h"

#define GATHER_MAX ((size_t)32 << 20)

/* The first pass: counts, sums, self times, min and max. Self time comes
 * from walking each depth beside the one below it: a child belongs to the
 * parent whose span holds its start. */
static void
sum_pass(const struct trace *t, const struct filter *f, ttv_ns t0, ttv_ns t1,
    struct func_stats *rows)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		/* CPU lanes say what ran, not what was called. */
		if (!filter_track(f, ti) || tr->kind == TRACK_CPU)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			size_t lo, hi;
			query_window(tr, d, t0, t1, &lo, &hi);
			if (lo >= hi)
				continue;
			const struct depth_level *cl =
			    d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
			const struct slice *cs = cl ? cl->slices : NULL;
			size_t cn = cl ? cl->len : 0;
			size_t c = cl ? level_first_start(cl,
			    l->slices[lo].start) : 0;
			size_t lc = 0, cc = 0;	/* cursors into long durations */
			for (size_t i = lo; i < hi; i++) {
				const struct slice *s = &l->slices[i];
				ttv_ns dur = level_dur_walk(l, i, &lc);
				ttv_ns end = s->start + dur, child = 0;
				while (c < cn && cs[c].start < s->start)
					c++;
				while (c < cn && cs[c].start < end)
					child += level_dur_walk(cl, c++, &cc);
				if ((s->flags & SLICE_INEXACT) ||
				    !filter_func(f, s->func))
					continue;
				struct func_stats *fs = &rows[s->func];
				if (fs->count == 0 || dur < fs->min)
					fs->min = dur;
				if (fs->count == 0 || dur > fs->max) {
					fs->max = dur;
					fs->longest = (struct slice_ref){ ti, d,
					    (uint32_t)i };
				}
				fs->count++;
				fs->weight += l->weights ? l->weights[i] : 1;
				fs->total += dur;
				fs->self += child > dur ? 0 : dur - child;
			}
		}
	}
}

/* The second pass: the durations of the functions in this batch (in[f])
 * into durs at fill[f]. */
static void
gather_pass(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, const uint8_t *in, size_t *fill, ttv_ns *durs)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		/* CPU lanes say what ran, not what was called. */
		if (!filter_track(f, ti) || tr->kind == TRACK_CPU)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			const struct slice *s = l->slices;
			size_t lo, hi;
			query_window(tr, d, t0, t1, &lo, &hi);
			size_t lc = 0;
			for (size_t i = lo; i < hi; i++) {
				func_id fn = s[i].func;
				if (in[fn] && !(s[i].flags & SLICE_INEXACT))
					durs[fill[fn]++] =
					    level_dur_walk(l, i, &lc);
			}
		}
	}
}

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

static void
percentiles(struct func_stats *fs, ttv_ns *d, size_t n)
{
	size_t k50 = n / 2, k90 = (size_t)(0.9 * (double)n),
	    k99 = (size_t)(0.99 * (double)n);
	if (k90 >= n)
		k90 = n - 1;
	if (k99 >= n)
		k99 = n - 1;
	select_kth(d, n, k99);
	fs->p99 = d[k99];
	select_kth(d, k99 + 1, k90);
	fs->p90 = d[k90];
	select_kth(d, k90 + 1, k50);
	fs->median = d[k50];
}

void
query_stats(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, struct stats_table *out)
{
	memset(out, 0, sizeof *out);
	if (t->nfuncs == 0)
		return;
	struct func_stats *rows = xcalloc(t->nfuncs, sizeof *rows);
	sum_pass(t, f, t0, t1, rows);

	/* The function filter is already in the counts: a function out of
	 * the filter has count 0 and is never in a batch. */
	uint8_t *in = xmalloc(t->nfuncs);
	size_t *fill = xmalloc(t->nfuncs * sizeof *fill);
	ttv_ns *durs = NULL;
	size_t durs_cap = 0;
	for (uint32_t next = 0; next < t->nfuncs;) {
		/* A batch: functions whose durations fit GATHER_MAX (one
		 * function larger than that is a batch of its own). */
		size_t used = 0;
		uint32_t first = next;
		memset(in, 0, t->nfuncs);
		for (; next < t->nfuncs; next++) {
			size_t c = rows[next].count;
			if (c == 0)
				continue;
			if (used > 0 && used + c > GATHER_MAX)
				break;
			fill[next] = used;
			in[next] = 1;
			used += c;
		}
		if (used == 0)
			continue;
		if (used > durs_cap) {
			free(durs);
			durs = xreallocarray(NULL, used, sizeof *durs);
			durs_cap = used;
		}
		gather_pass(t, f, t0, t1, in, fill, durs);
		for (uint32_t i = first; i < next; i++)
			if (in[i])
				percentiles(&rows[i], durs + (fill[i] -
				    rows[i].count), rows[i].count);
	}
	free(durs);
	free(in);
	free(fill);

	size_t n = 0;
	for (uint32_t i = 0; i < t->nfuncs; i++) {
		if (rows[i].count == 0)
			continue;
		rows[i].func = i;
		rows[n++] = rows[i];
	}
	out->rows = rows;
	out->n = n;
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

static ttv_ns
key_value(const struct func_stats *s, enum stats_key key)
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
		ttv_ns u = key_value(x, by->key), v = key_value(y, by->key);
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
