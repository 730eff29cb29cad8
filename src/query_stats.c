/*
 * Per-function statistics (see query.h).
 *
 * Two kinds of passes over the slices: one that counts and sums, and one
 * that gathers durations for the percentiles. Durations are gathered for a
 * batch of functions at a time so that the extra memory stays bounded
 * (GATHER_MAX durations) however large the trace is.
 */
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "xalloc.h"

#define GATHER_MAX ((size_t)32 << 20)

/* Calls visit(slice, ref, self, ctx) for every slice in the window on the
 * filtered tracks whose function passes the filter. */
typedef void (*visit_fn)(const struct slice *s, struct slice_ref r,
    ttv_ns self, uint32_t weight, void *ctx);

static size_t
first_start_ge(const struct slice *s, size_t n, ttv_ns t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].start >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void
walk(const struct trace *t, const struct filter *f, ttv_ns t0, ttv_ns t1,
    bool want_self, visit_fn visit, void *ctx)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		if (!filter_track(f, ti))
			continue;
		const struct track *tr = &t->tracks[ti];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			size_t lo, hi;
			query_window(tr, d, t0, t1, &lo, &hi);
			if (lo >= hi)
				continue;
			const struct depth_level *cl =
			    d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
			size_t c = cl && want_self ? first_start_ge(cl->slices,
			    cl->len, l->slices[lo].start) : 0;
			for (size_t i = lo; i < hi; i++) {
				const struct slice *s = &l->slices[i];
				ttv_ns end = s->start + s->dur, child = 0;
				if (cl != NULL && want_self) {
					while (c < cl->len &&
					    cl->slices[c].start < s->start)
						c++;
					while (c < cl->len &&
					    cl->slices[c].start < end) {
						child += cl->slices[c].dur;
						c++;
					}
				}
				if (!filter_func(f, s->func))
					continue;
				ttv_ns self = child > s->dur ? 0 : s->dur - child;
				uint32_t w = l->weights ? l->weights[i] : 1;
				visit(s, (struct slice_ref){ ti, d, (uint32_t)i },
				    self, w, ctx);
			}
		}
	}
}

struct sum_ctx {
	struct func_stats *rows;	/* indexed by func */
};

static void
visit_sum(const struct slice *s, struct slice_ref r, ttv_ns self,
    uint32_t weight, void *arg)
{
	struct sum_ctx *ctx = arg;
	struct func_stats *fs = &ctx->rows[s->func];
	if (s->flags & SLICE_INEXACT)
		return;
	if (fs->count == 0 || s->dur < fs->min)
		fs->min = s->dur;
	if (fs->count == 0 || s->dur > fs->max) {
		fs->max = s->dur;
		fs->longest = r;
	}
	fs->count++;
	fs->weight += weight;
	fs->total += s->dur;
	fs->self += self;
}

struct gather_ctx {
	const uint32_t *batch_slot;	/* func -> offset in durs, or UINT32_MAX */
	size_t *fill;			/* func -> next free offset */
	ttv_ns *durs;
};

static void
visit_gather(const struct slice *s, struct slice_ref r, ttv_ns self,
    uint32_t weight, void *arg)
{
	struct gather_ctx *ctx = arg;
	if ((s->flags & SLICE_INEXACT) || ctx->batch_slot[s->func] == UINT32_MAX)
		return;
	ctx->durs[ctx->fill[s->func]++] = s->dur;
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
	struct sum_ctx sc = { rows };
	walk(t, f, t0, t1, true, visit_sum, &sc);

	uint32_t *slot = xmalloc(t->nfuncs * sizeof *slot);
	size_t *fill = xmalloc(t->nfuncs * sizeof *fill);
	ttv_ns *durs = NULL;
	size_t durs_cap = 0;
	for (uint32_t next = 0; next < t->nfuncs;) {
		/* A batch: functions whose durations fit GATHER_MAX (one
		 * function larger than that is a batch of its own). */
		size_t used = 0;
		uint32_t first = next;
		for (uint32_t i = 0; i < t->nfuncs; i++)
			slot[i] = UINT32_MAX;
		for (; next < t->nfuncs; next++) {
			size_t c = rows[next].count;
			if (c == 0)
				continue;
			if (used > 0 && used + c > GATHER_MAX)
				break;
			fill[next] = used;
			slot[next] = (uint32_t)(used > UINT32_MAX - 1 ?
			    UINT32_MAX - 1 : used);
			used += c;
		}
		if (used == 0)
			continue;
		if (used > durs_cap) {
			free(durs);
			durs = xreallocarray(NULL, used, sizeof *durs);
			durs_cap = used;
		}
		struct gather_ctx gc = { slot, fill, durs };
		walk(t, f, t0, t1, false, visit_gather, &gc);
		for (uint32_t i = first; i < next; i++) {
			if (slot[i] == UINT32_MAX)
				continue;
			size_t c = rows[i].count;
			percentiles(&rows[i], durs + (fill[i] - c), c);
		}
	}
	free(durs);
	free(slot);
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

static const struct trace *sort_trace;
static enum stats_key sort_key;
static bool sort_desc;

static ttv_ns
key_value(const struct func_stats *s)
{
	switch (sort_key) {
	case STATS_COUNT: return (ttv_ns)s->count;
	case STATS_TOTAL: return s->total;
	case STATS_SELF: return s->self;
	case STATS_MIN: return s->min;
	case STATS_MEDIAN: return s->median;
	case STATS_P90: return s->p90;
	case STATS_P99: return s->p99;
	case STATS_MAX: return s->max;
	default: return 0;
	}
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct func_stats *x = a, *y = b;
	int c = 0;
	if (sort_key == STATS_NAME)
		c = strcmp(trace_func_name(sort_trace, x->func),
		    trace_func_name(sort_trace, y->func));
	else {
		ttv_ns u = key_value(x), v = key_value(y);
		c = u < v ? -1 : u > v;
	}
	if (sort_desc)
		c = -c;
	if (c == 0)	/* ties in a stable, meaningful order */
		c = x->func < y->func ? -1 : x->func > y->func;
	return c;
}

void
stats_sort(const struct trace *t, struct stats_table *st, enum stats_key key,
    bool descending)
{
	sort_trace = t;
	sort_key = key;
	sort_desc = descending;
	qsort(st->rows, st->n, sizeof *st->rows, cmp_rows);
}

void
stats_free(struct stats_table *st)
{
	free(st->rows);
	st->rows = NULL;
	st->n = 0;
}
