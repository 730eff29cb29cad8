/*
 * Reading the summaries an index stores (see summary.h): a range's
 * function table from the nodes that lie inside it, the calls at its two
 * ends (and in blocks a summary leaves out) read one by one, the way
 * query_stats' first pass reads them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "level.h"
#include "summary.h"
#include "xalloc.h"

const struct sum_node *
summary_nodes(const struct trace *t, const struct sum_level *l, uint32_t h,
    uint64_t *n)
{
	uint64_t c = l->nblocks, at = l->node_first;
	for (uint32_t k = 0; k < h; k++) {
		at += c;
		c = (c + SUM_FANOUT - 1) / SUM_FANOUT;
	}
	*n = h < l->nheights ? c : 0;
	return *n ? t->summary->nodes + at : NULL;
}

bool
summary_column(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns t0, ttv_ns t1, bool (*match)(const void *arg, func_id f),
    const void *arg, struct sum_column *out)
{
	const struct sum_level *sl = summary_level(t, track, depth);
	uint64_t n;
	memset(out, 0, sizeof *out);
	if (sl == NULL || t1 <= t0)
		return false;
	const struct sum_node *b = summary_nodes(t, sl, 0, &n);
	/* The blocks that start before t1, from the one holding t0. */
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (b[mid].first_start < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t k = lo > 0 ? lo - 1 : 0;
	bool any = false;
	for (; k < n && b[k].first_start < t1; k++) {
		if (b[k].last_end <= t0)
			continue;
		/* Busy time and widest call are there whatever its
		 * functions; which functions, only where they were few. */
		if (b[k].nentries == SUM_NONE && match != NULL)
			return false;
		uint64_t ncalls = k + 1 < n ? SUM_BLOCK :
		    t->tracks[track].depth[depth].len - k * SUM_BLOCK;
		ttv_ns a = b[k].first_start > t0 ? b[k].first_start : t0;
		ttv_ns e = b[k].last_end < t1 ? b[k].last_end : t1;
		ttv_ns span = b[k].last_end - b[k].first_start;
		any = true;
		if (b[k].first_start >= t0 && b[k].last_end <= t1) {
			out->busy += b[k].busy;
			out->calls += (double)ncalls;
		} else if (span > 0 && e > a) {
			double part = (double)(e - a) / (double)span;
			out->busy += (ttv_ns)((double)b[k].busy * part);
			out->calls += (double)ncalls * part;
		}
		if (b[k].widest > out->widest)
			out->widest = b[k].widest;
		if (match != NULL && !out->matched &&
		    b[k].nentries != SUM_NONE) {
			const struct sum_entry *en = t->summary->entries +
			    b[k].entry_first;
			for (uint32_t i = 0; i < b[k].nentries; i++)
				if (match(arg, en[i].func)) {
					out->matched = true;
					break;
				}
		}
	}
	return any;
}

/* The first block whose first start is >= t (blocks: n of them). */
static uint64_t
block_starting_at(const struct sum_node *b, uint64_t n, ttv_ns t)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (b[mid].first_start >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t
summary_first_start(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns when)
{
	const struct depth_level *l = &t->tracks[track].depth[depth];
	const struct sum_level *sl = summary_level(t, track, depth);
	uint64_t n;
	if (sl == NULL)
		return level_first_start(l, when);
	const struct sum_node *b = summary_nodes(t, sl, 0, &n);
	/* Block k starts at or after `when`: the answer is at its first
	 * call or in the block before. */
	uint64_t k = block_starting_at(b, n, when);
	size_t hi = k < n ? (size_t)k * SUM_BLOCK : l->len;
	size_t lo = k > 0 ? (size_t)(k - 1) * SUM_BLOCK : 0;
	return level_first_start_in(l, when, lo, hi);
}

void
summary_window(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns t0, ttv_ns t1, size_t *lo, size_t *hi)
{
	const struct track *tr = &t->tracks[track];
	const struct sum_level *sl = summary_level(t, track, depth);
	uint64_t n;
	if (sl == NULL) {
		query_window(tr, depth, t0, t1, lo, hi);
		return;
	}
	const struct depth_level *l = &tr->depth[depth];
	const struct sum_node *b = summary_nodes(t, sl, 0, &n);
	/* The first call ending after t0 is at or before the first call
	 * of the first block starting at or after t0, and past every block
	 * that ends before t0. */
	uint64_t k = block_starting_at(b, n, t0);
	uint64_t a = 0, z = k;
	while (a < z) {
		uint64_t mid = a + (z - a) / 2;
		if (b[mid].last_end >= t0)
			z = mid;
		else
			a = mid + 1;
	}
	size_t from = (size_t)a * SUM_BLOCK;
	size_t to = k < n ? (size_t)k * SUM_BLOCK : l->len;
	if (to < from)
		to = from;
	*lo = level_first_ending_in(l, t0, from, to);
	*hi = summary_first_start(t, track, depth, t1);
	if (*hi < *lo)
		*hi = *lo;
}

ttv_ns
summary_busy(const struct trace *t, uint32_t track, uint32_t depth,
    size_t i0, size_t i1)
{
	const struct depth_level *l = &t->tracks[track].depth[depth];
	const struct sum_level *sl = summary_level(t, track, depth);
	ttv_ns sum = 0;
	size_t i = i0;
	while (i < i1) {
		bool done = false;
		for (uint32_t h = sl ? sl->nheights : 0; h-- > 0 && !done;) {
			uint64_t size = SUM_BLOCK, n;
			for (uint32_t k = 0; k < h; k++)
				size *= SUM_FANOUT;
			if (i % size != 0 || i + size > i1)
				continue;
			sum = add_ns(sum, summary_nodes(t, sl, h, &n)[i /
			    size].busy);
			i += size;
			done = true;
		}
		if (done)
			continue;
		size_t next = sl ? (i / SUM_BLOCK + 1) * SUM_BLOCK : i1;
		for (; i < next && i < i1; i++)
			sum = add_ns(sum, level_dur(l, i));
	}
	return sum;
}

/* One call counted into its function's row (query_stats' rules). */
static inline void
take(struct func_stats *rows, const struct filter *f, func_id fn,
    ttv_ns dur, ttv_ns child, uint64_t weight, struct slice_ref ref)
{
	struct func_stats *fs = &rows[fn];
	if (fs->count == 0) {
		if (!filter_func(f, fn))
			return;
		fs->min = fs->max = dur;
		fs->longest = ref;
	} else if (dur < fs->min) {
		fs->min = dur;
	} else if (dur > fs->max) {
		fs->max = dur;
		fs->longest = ref;
	}
	fs->count++;
	fs->weight += weight;
	fs->total = add_ns(fs->total, dur);
	fs->self = add_ns(fs->self, child > dur ? 0 :
	    (ttv_ns)((uint64_t)dur - (uint64_t)child));
}

/* A node's entries counted into the rows. */
static void
take_node(struct func_stats *rows, const struct filter *f,
    const struct sum_entry *e, uint32_t n, uint32_t track, uint32_t depth)
{
	for (uint32_t k = 0; k < n; k++) {
		struct func_stats *fs = &rows[e[k].func];
		struct slice_ref ref = { track, depth, e[k].longest };
		if (e[k].unfinished > 0 && filter_func(f, e[k].func))
			fs->unfinished += e[k].unfinished;
		if (e[k].count == 0)
			continue;
		if (fs->count == 0) {
			if (!filter_func(f, e[k].func))
				continue;
			fs->min = e[k].min;
			fs->max = e[k].max;
			fs->longest = ref;
		} else {
			if (e[k].min < fs->min)
				fs->min = e[k].min;
			if (e[k].max > fs->max) {
				fs->max = e[k].max;
				fs->longest = ref;
			}
		}
		fs->count += e[k].count;
		fs->weight += e[k].weight;
		fs->total = add_ns(fs->total, e[k].total);
		fs->self = add_ns(fs->self, e[k].self);
	}
}

struct walk {
	const struct trace *t;
	const struct filter *f;
	struct func_stats *rows;
	ttv_ns t0, t1;
	uint32_t track, depth;
	const struct depth_level *l, *cl;
	size_t lo, hi;		/* the window: lo and hi - 1 are its edges */
};

/* Calls [i0, i1) of the depth, one by one. */
static void
scan(const struct walk *w, size_t i0, size_t i1)
{
	const struct depth_level *l = w->l, *cl = w->cl;
	const struct slice *cs = cl ? cl->slices : NULL;
	size_t cn = cl ? cl->len : 0;
	size_t c = cl ? level_first_start(cl, l->slices[i0].start) : 0;
	for (size_t i = i0; i < i1; i++) {
		const struct slice *s = &l->slices[i];
		ttv_ns dur = level_dur(l, i);
		ttv_ns end = add_ns(s->start, dur), child = 0;
		while (c < cn && cs[c].start < s->start)
			c++;
		while (c < cn && cs[c].start < end)
			child = add_ns(child, level_dur(cl, c++));
		if (s->flags & SLICE_INEXACT) {
			/* counted apart, with no time (query_calls.h) */
			if (filter_func(w->f, s->func))
				w->rows[s->func].unfinished++;
			continue;
		}
		if (i == w->lo || i + 1 == w->hi) {
			/* An end of the range: clipped, and its children. */
			dur = level_clip(l, i, w->t0, w->t1);
			if (cl != NULL) {
				child = 0;
				for (size_t k = level_first_start(cl, s->start);
				    k < cn && cs[k].start < end; k++)
					child = add_ns(child, level_clip(cl, k,
					    w->t0, w->t1));
			}
		}
		take(w->rows, w->f, s->func, dur, child, l->weights ?
		    l->weights[i] : 1, (struct slice_ref){ w->track, w->depth,
		    (uint32_t)i });
	}
}

/* The calls [a, b) of the depth, inside the range: from the largest
 * summarised nodes that fit, the rest one by one. */
static void
interior(const struct walk *w, const struct sum_level *sl, size_t a, size_t b)
{
	size_t i = a;
	while (i < b) {
		bool done = false;
		for (uint32_t h = sl ? sl->nheights : 0; h-- > 0 && !done;) {
			uint64_t size = SUM_BLOCK, n;
			for (uint32_t k = 0; k < h; k++)
				size *= SUM_FANOUT;
			if (i % size != 0 || i + size > b)
				continue;
			const struct sum_node *nd = summary_nodes(w->t, sl, h,
			    &n);
			const struct sum_node *x = &nd[i / size];
			if (x->nentries == SUM_NONE)
				continue;
			take_node(w->rows, w->f, w->t->summary->entries +
			    x->entry_first, x->nentries, w->track, w->depth);
			i += size;
			done = true;
		}
		if (done)
			continue;
		size_t next = sl ? (i / SUM_BLOCK + 1) * SUM_BLOCK : b;
		if (next > b)
			next = b;
		scan(w, i, next);
		i = next;
	}
}

void
query_stats_sums(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, struct stats_table *out)
{
	memset(out, 0, sizeof *out);
	if (t->nfuncs == 0)
		return;
	struct func_stats *rows = xcalloc(t->nfuncs, sizeof *rows);
	struct walk w = { t, f, rows, t0, t1, 0, 0, NULL, NULL, 0, 0 };
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		/* CPU lanes say what ran, not what was called. */
		if (!filter_track(f, ti) || tr->kind == TRACK_CPU)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			size_t lo, hi;
			summary_window(t, ti, d, t0, t1, &lo, &hi);
			if (lo >= hi)
				continue;
			w.track = ti;
			w.depth = d;
			w.l = &tr->depth[d];
			w.cl = d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
			w.lo = lo;
			w.hi = hi;
			scan(&w, lo, lo + 1);
			if (hi - lo > 2)
				interior(&w, summary_level(t, ti, d), lo + 1,
				    hi - 1);
			if (hi - lo > 1)
				scan(&w, hi - 1, hi);
		}
	}
	size_t n = 0;
	for (uint32_t i = 0; i < t->nfuncs; i++) {
		out->unfinished += rows[i].unfinished;
		if (rows[i].count == 0)
			continue;
		rows[i].func = i;
		rows[n++] = rows[i];
	}
	out->rows = rows;
	out->n = n;
}
