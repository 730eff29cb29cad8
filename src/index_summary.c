/*
 * Making the summaries (see index_summary.h, summary.h).
 *
 * A depth is walked once, beside the depth below it, the way
 * query_stats' first pass walks it (the same child cursor, so the same
 * self times); each block of SUM_BLOCK calls becomes a node, and the
 * nodes of every height above are made as the ones below complete, so
 * nothing but the nodes and their entries is kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "index_int.h"
#include "index_summary.h"
#include "level.h"
#include "threads.h"
#include "xalloc.h"

_Static_assert(INDEX_BLOCK_SLICES % SUM_BLOCK == 0,
    "an index's check block ends where a summary block does");

/* Functions a node may list: a block, a node above. */
#define ENTRIES_BLOCK 8
#define ENTRIES_UP 32
#define HEIGHTS_MAX 16
/* A depth's summary costs at most this share of its calls' bytes. */
#define BUDGET_PERCENT 6

typedef VEC(struct idx_block) block_vec;
typedef VEC(struct sum_node) node_vec;
typedef VEC(struct sum_entry) entry_vec;
typedef VEC(struct sum_level) level_vec;

/* A node being made. */
struct acc {
	struct sum_entry e[ENTRIES_UP];
	uint32_t n, max;
	bool none;
	bool empty;
	ttv_ns first, last, busy, widest;
	uint32_t kids;
	uint64_t index;		/* its place among the nodes of its height */
};

/* One track's summaries, made on one worker. */
struct track_job {
	const struct trace *t;
	uint32_t track;
	/* The worker's first-pass rows (index_summary.h), NULL for a CPU
	 * lane (query_stats leaves them out). */
	struct func_stats *stats;
	bool clipped;		/* a call sticks out of the time axis */
	uint32_t part;		/* the worker that walked it */
	level_vec levels;
	node_vec nodes;
	entry_vec entries;
	struct sum_track flags;
	block_vec blocks;
	char *bad;
};

static void
acc_reset(struct acc *a, uint32_t max)
{
	a->n = 0;
	a->max = max;
	a->none = false;
	a->empty = true;
	a->busy = 0;
	a->widest = 0;
	a->kids = 0;
}

/* query_stats' first pass, for slice i of depth d: the same sums,
 * child the time of its children as that pass walks them. A worker's
 * tracks come in order, so its longest among equal maxima is its first;
 * workers are merged by place (stats_merge). */
static inline void
stats_add(struct track_job *j, uint32_t d, size_t i, const struct slice *s,
    ttv_ns dur, ttv_ns child, uint64_t weight)
{
	if (j->stats == NULL)
		return;
	/* The whole range clips no call inside the time axis. */
	if (s->start == TTV_NS_MAX || (uint64_t)dur > (uint64_t)TTV_NS_MAX -
	    (uint64_t)s->start)
		j->clipped = true;
	struct func_stats *fs = &j->stats[s->func < j->t->nfuncs ? s->func :
	    0];
	if (s->flags & SLICE_INEXACT) {
		fs->unfinished++;
		return;
	}
	if (fs->count == 0) {
		fs->min = fs->max = dur;
		fs->longest = (struct slice_ref){ j->track, d, (uint32_t)i };
	} else if (dur < fs->min) {
		fs->min = dur;
	} else if (dur > fs->max) {
		fs->max = dur;
		fs->longest = (struct slice_ref){ j->track, d, (uint32_t)i };
	}
	fs->count++;
	fs->weight += weight;
	fs->total = add_ns(fs->total, dur);
	fs->self = add_ns(fs->self, child > dur ? 0 :
	    (ttv_ns)((uint64_t)dur - (uint64_t)child));
}

/* The entry of f in a, made if there is room; NULL (and a->none) when
 * there is not. */
static inline struct sum_entry *
acc_entry(struct acc *a, func_id f, uint32_t *hint)
{
	if (*hint < a->n && a->e[*hint].func == f)
		return &a->e[*hint];
	for (uint32_t k = 0; k < a->n; k++)
		if (a->e[k].func == f) {
			*hint = k;
			return &a->e[k];
		}
	if (a->n == a->max) {
		a->none = true;
		return NULL;
	}
	struct sum_entry *e = &a->e[a->n];
	memset(e, 0, sizeof *e);
	e->func = f;
	*hint = a->n++;
	return e;
}

/* Adds node n (its entries at e) into the node a above it. */
static void
acc_merge(struct acc *a, const struct sum_node *n, const struct sum_entry *e)
{
	if (a->empty) {
		a->first = n->first_start;
		a->last = n->last_end;
		a->empty = false;
	}
	if (n->last_end > a->last)
		a->last = n->last_end;
	a->busy = add_ns(a->busy, n->busy);
	if (n->widest > a->widest)
		a->widest = n->widest;
	a->kids++;
	if (n->nentries == SUM_NONE) {
		a->none = true;
		return;
	}
	for (uint32_t k = 0; k < n->nentries && !a->none; k++) {
		uint32_t hint = 0;
		struct sum_entry *x = acc_entry(a, e[k].func, &hint);
		if (x == NULL)
			break;
		x->unfinished += e[k].unfinished;
		if (e[k].count == 0)
			continue;
		if (x->count == 0) {
			uint64_t unfinished = x->unfinished;
			*x = e[k];
			x->unfinished = unfinished;
			continue;
		}
		if (e[k].min < x->min)
			x->min = e[k].min;
		if (e[k].max > x->max) {
			x->max = e[k].max;
			x->longest = e[k].longest;
		}
		x->count += e[k].count;
		x->weight += e[k].weight;
		x->total = add_ns(x->total, e[k].total);
		x->self = add_ns(x->self, e[k].self);
	}
}

/* Writes a's node at its place among the nodes of height h. */
static void
acc_emit(struct track_job *j, struct acc *a, uint64_t base)
{
	struct sum_node *n = &j->nodes.items[base + a->index];
	n->first_start = a->first;
	n->last_end = a->last;
	n->busy = a->busy;
	n->widest = a->widest;
	n->pad = 0;
	if (a->none) {
		n->entry_first = 0;
		n->nentries = SUM_NONE;
	} else {
		n->entry_first = j->entries.len;
		n->nentries = a->n;
		if (a->n > 0) {
			VEC_RESERVE(&j->entries, a->n);
			memcpy(j->entries.items + j->entries.len, a->e,
			    a->n * sizeof *a->e);
			j->entries.len += a->n;
		}
	}
}

/* The check record of the block ending at slice i. */
static void
block_record(struct track_job *j, const struct depth_level *l, size_t i)
{
	size_t b0 = i / INDEX_BLOCK_SLICES * INDEX_BLOCK_SLICES;
	size_t n = i + 1 - b0;
	struct idx_block blk = { 0 };
	blk.hash = index_block_hash(l->slices + b0, l->weights ?
	    l->weights + b0 : NULL, n);
	blk.first_start = l->slices[b0].start;
	blk.last_start = l->slices[i].start;
	VEC_PUSH(&j->blocks, blk);
}

/* A depth not summarised still has its check records, rules and flag
 * counts. */
static void
level_blocks(struct track_job *j, uint32_t d)
{
	const struct track *tr = &j->t->tracks[j->track];
	const struct depth_level *l = &tr->depth[d];
	const struct depth_level *cl = d + 1 < tr->ndepth ?
	    &tr->depth[d + 1] : NULL;
	const struct slice *cs = cl ? cl->slices : NULL;
	size_t cn = cl ? cl->len : 0, c = 0, lc = 0, cc = 0;
	size_t ahead = 0, cahead = 0;
	ttv_ns prev = TTV_NS_MIN;
	for (size_t i = 0; i < l->len; i++) {
		const struct slice *s = &l->slices[i];
		trace_ahead(j->t, j->track, d, i, &ahead);
		if (j->stats != NULL) {
			if (cl != NULL)
				trace_ahead(j->t, j->track, d + 1, c, &cahead);
			ttv_ns dur = level_dur_walk(l, i, &lc);
			ttv_ns end = add_ns(s->start, dur), child = 0;
			while (c < cn && cs[c].start < s->start)
				c++;
			while (c < cn && cs[c].start < end)
				child = add_ns(child, level_dur_walk(cl, c++,
				    &cc));
			stats_add(j, d, i, s, dur, child, l->weights ?
			    l->weights[i] : 1);
		}
		for (uint32_t fl = s->flags; fl != 0; fl &= fl - 1)
			j->flags.flagged[__builtin_ctz(fl)]++;
		if ((s->start < prev || s->func >= j->t->nfuncs ||
		    s->start > TTV_NS_MAX - (ttv_ns)s->dur32) && j->bad == NULL)
			j->bad = xasprintf("track %u depth %u: slice %zu out "
			    "of order, past the time axis or without a "
			    "function", j->track, d, i);
		prev = s->start;
		if ((i + 1) % INDEX_BLOCK_SLICES == 0 || i + 1 == l->len)
			block_record(j, l, i);
	}
}

/* query_stats' first pass for the calls [b0, b1) of depth d, a block
 * whose node is a: from its entries, a few per block rather than a
 * row's update per call (the sums are the same in any grouping, and
 * blocks come in order, so the first longest stays the first). A block
 * of too many functions has no entries: its calls, with the durations
 * and children's times the walk kept. */
static void
block_stats(struct track_job *j, uint32_t d, size_t b0, size_t b1,
    const struct acc *a, const ttv_ns *dur, const ttv_ns *child)
{
	const struct depth_level *l = &j->t->tracks[j->track].depth[d];
	if (a->none) {
		for (size_t i = b0; i < b1; i++)
			stats_add(j, d, i, &l->slices[i], dur[i - b0],
			    child[i - b0], l->weights ? l->weights[i] : 1);
		return;
	}
	for (uint32_t k = 0; k < a->n; k++) {
		const struct sum_entry *e = &a->e[k];
		struct func_stats *fs = &j->stats[e->func < j->t->nfuncs ?
		    e->func : 0];
		fs->unfinished += e->unfinished;
		if (e->count == 0)
			continue;
		if (fs->count == 0) {
			fs->min = e->min;
			fs->max = e->max;
			fs->longest = (struct slice_ref){ j->track, d,
			    e->longest };
		} else {
			if (e->min < fs->min)
				fs->min = e->min;
			if (e->max > fs->max) {
				fs->max = e->max;
				fs->longest = (struct slice_ref){ j->track, d,
				    e->longest };
			}
		}
		fs->count += e->count;
		fs->weight += e->weight;
		fs->total = add_ns(fs->total, e->total);
		fs->self = add_ns(fs->self, e->self);
	}
}

static void
level_summary(struct track_job *j, uint32_t d, struct acc *acc)
{
	const struct track *tr = &j->t->tracks[j->track];
	const struct depth_level *l = &tr->depth[d];
	const struct depth_level *cl = d + 1 < tr->ndepth ?
	    &tr->depth[d + 1] : NULL;
	struct sum_level sl = { 0 };
	size_t node0 = j->nodes.len, entry0 = j->entries.len;

	/* How many nodes each height has. */
	uint64_t count[HEIGHTS_MAX], base[HEIGHTS_MAX];
	uint32_t nh = 0;
	uint64_t n = (l->len + SUM_BLOCK - 1) / SUM_BLOCK, total = 0;
	while (n > 0 && nh < HEIGHTS_MAX) {
		count[nh] = n;
		base[nh] = node0 + total;
		total += n;
		nh++;
		if (n == 1)
			break;
		n = (n + SUM_FANOUT - 1) / SUM_FANOUT;
	}
	/* A depth of a few blocks is read as fast as its summary (and a
	 * stack 10^6 calls deep has 10^6 depths of one call). */
	if (l->len < 2 * SUM_BLOCK || n != 1) {
		level_blocks(j, d);
		VEC_PUSH(&j->levels, sl);
		return;
	}
	VEC_RESERVE(&j->nodes, total);
	memset(j->nodes.items + node0, 0, total * sizeof *j->nodes.items);
	j->nodes.len = node0 + total;
	for (uint32_t h = 0; h < nh; h++) {
		acc_reset(&acc[h], h == 0 ? ENTRIES_BLOCK : ENTRIES_UP);
		acc[h].index = 0;
	}

	const struct slice *cs = cl ? cl->slices : NULL;
	size_t cn = cl ? cl->len : 0, c = 0, lc = 0, cc = 0;
	size_t ahead = 0, cahead = 0;
	uint32_t hint = 0;
	ttv_ns prev = TTV_NS_MIN;
	func_id fmax = 0;
	bool clipped = false;
	const uint32_t *weights = l->weights;
	/* A block's durations and children's times, for its first pass
	 * when it has too many functions for entries (block_stats). */
	ttv_ns bdur[SUM_BLOCK], bchild[SUM_BLOCK];
	for (size_t b0 = 0; b0 < l->len; b0 += SUM_BLOCK) {
		size_t b1 = l->len - b0 > SUM_BLOCK ? b0 + SUM_BLOCK : l->len;
		struct acc *a = &acc[0];
		for (size_t i = b0; i < b1; i++) {
			const struct slice *s = &l->slices[i];
			trace_ahead(j->t, j->track, d, i, &ahead);
			if (cl != NULL)
				trace_ahead(j->t, j->track, d + 1, c, &cahead);
			/* The index's rules. */
			fmax = s->func > fmax ? s->func : fmax;
			if ((s->start < prev || s->start > TTV_NS_MAX -
			    (ttv_ns)s->dur32) && j->bad == NULL)
				j->bad = xasprintf("track %u depth %u: slice %zu starts "
				    "before the one before it or ends past the time "
				    "axis", j->track, d, i);
			prev = s->start;
			ttv_ns dur = level_dur_walk(l, i, &lc);
			ttv_ns end = add_ns(s->start, dur);
			/* query_stats' first pass: the same children. */
			ttv_ns child = level_children_walk(cl, cs, cn, &c, &cc,
			    s->start, end);
			/* The whole range clips no call inside the time axis. */
			clipped |= (s->start == TTV_NS_MAX) | ((uint64_t)dur >
			    (uint64_t)TTV_NS_MAX - (uint64_t)s->start);
			bdur[i - b0] = dur;
			bchild[i - b0] = child;
			for (uint32_t fl = s->flags; fl != 0; fl &= fl - 1)
				j->flags.flagged[__builtin_ctz(fl)]++;
			if (a->empty) {
				a->first = s->start;
				a->last = end;
				a->empty = false;
			}
			if (end > a->last)
				a->last = end;
			a->busy = add_ns(a->busy, dur);
			if (dur > a->widest)
				a->widest = dur;
			if (a->none)
				continue;
			struct sum_entry *e = acc_entry(a, s->func, &hint);
			if (e == NULL)
				continue;
			if (s->flags & SLICE_INEXACT) {
				/* counted apart, with no time (query_calls.h) */
				e->unfinished++;
				continue;
			}
			if (e->count == 0) {
				e->min = e->max = dur;
				e->longest = (uint32_t)i;
			} else if (dur < e->min) {
				e->min = dur;
			} else if (dur > e->max) {
				e->max = dur;
				e->longest = (uint32_t)i;
			}
			e->count++;
			e->weight += weights ? weights[i] : 1;
			e->total = add_ns(e->total, dur);
			e->self = add_ns(e->self, child > dur ? 0 :
			    (ttv_ns)((uint64_t)dur - (uint64_t)child));
		}
		/* The check record of the index's block ending here. */
		if (b1 % INDEX_BLOCK_SLICES == 0 || b1 == l->len)
			block_record(j, l, b1 - 1);
		if (j->stats != NULL)
			block_stats(j, d, b0, b1, a, bdur, bchild);
		/* A block is complete: it and every node it completes. */
		bool last = b1 == l->len;
		for (uint32_t h = 0; h < nh; h++) {
			struct acc *x = &acc[h];
			if (h > 0 && x->kids < SUM_FANOUT && !last)
				break;
			acc_emit(j, x, base[h]);
			if (h + 1 < nh) {
				const struct sum_node *nd =
				    &j->nodes.items[base[h] + x->index];
				acc_merge(&acc[h + 1], nd, nd->nentries ==
				    SUM_NONE ? NULL :
				    j->entries.items + nd->entry_first);
			}
			uint64_t next = x->index + 1;
			acc_reset(x, x->max);
			x->index = next;
		}
		hint = 0;
	}
	if (j->stats != NULL)
		j->clipped |= clipped;
	if (fmax >= j->t->nfuncs && j->bad == NULL)
		j->bad = xasprintf("track %u depth %u: a slice has no "
		    "function", j->track, d);
	/* Worth it only when small beside the calls. Where the functions
	 * of its blocks cost too much, the nodes are kept without them
	 * (each one SUM_NONE): a depth of many functions still has its
	 * busy time and widest calls, from which the timeline shades a
	 * coarse zoom and a probe finds its block, without reading the
	 * calls; its function tables are read from the calls. */
	size_t budget = l->len * sizeof(struct slice) * BUDGET_PERCENT / 100;
	if ((j->entries.len - entry0) * sizeof(struct sum_entry) +
	    total * sizeof(struct sum_node) > budget) {
		j->entries.len = entry0;
		if (total * sizeof(struct sum_node) > budget) {
			j->nodes.len = node0;
			VEC_PUSH(&j->levels, sl);
			return;
		}
		for (uint64_t k = 0; k < total; k++) {
			j->nodes.items[node0 + k].entry_first = 0;
			j->nodes.items[node0 + k].nentries = SUM_NONE;
		}
	}
	sl.node_first = node0;
	sl.nblocks = (uint32_t)count[0];
	sl.nheights = nh;
	VEC_PUSH(&j->levels, sl);
}

/* The tracks, taken one at a time by as many workers as there are
 * cores. */
struct pool {
	struct track_job *jobs;
	uint32_t n;
	uint32_t next;		/* atomic */
};

/* A worker: the pool it takes tracks from, its first-pass rows. */
struct walker {
	struct pool *pool;
	uint32_t id;
	struct func_stats *stats;	/* nfuncs, or NULL */
};

static void *
track_work(void *arg)
{
	struct walker *wk = arg;
	struct pool *p = wk->pool;
	struct acc *acc = xcalloc(HEIGHTS_MAX, sizeof *acc);
	uint32_t i;
	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n) {
		struct track_job *j = &p->jobs[i];
		const struct track *tr = &j->t->tracks[j->track];
		j->stats = tr->kind == TRACK_CPU ? NULL : wk->stats;
		j->part = wk->id;
		for (uint32_t d = 0; d < tr->ndepth; d++)
			level_summary(j, d, acc);
	}
	free(acc);
	return NULL;
}

static bool
ref_before(struct slice_ref a, struct slice_ref b)
{
	if (a.track != b.track)
		return a.track < b.track;
	if (a.depth != b.depth)
		return a.depth < b.depth;
	return a.index < b.index;
}

/* Adds a worker's first-pass row to another's: the sums do not depend
 * on the order, and among equal maxima the longest is the first in
 * (track, depth, index) order, as in one walk. */
static void
stats_merge(struct func_stats *to, const struct func_stats *from)
{
	to->unfinished += from->unfinished;
	if (from->count == 0)
		return;
	if (to->count == 0) {
		uint64_t unfinished = to->unfinished;
		*to = *from;
		to->unfinished = unfinished;
		return;
	}
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max || (from->max == to->max &&
	    ref_before(from->longest, to->longest))) {
		to->max = from->max;
		to->longest = from->longest;
	}
	to->count += from->count;
	to->weight += from->weight;
	to->total = add_ns(to->total, from->total);
	to->self = add_ns(to->self, from->self);
}

/* memcpy, for vectors that may be empty (and NULL). */
static void
copy(void *dst, const void *src, size_t n)
{
	if (n > 0)
		memcpy(dst, src, n);
}

void
index_summary_build(const struct trace *t, struct summary_build *out)
{
	memset(out, 0, sizeof *out);
	struct track_job *jobs = xcalloc(t->ntracks + 1, sizeof *jobs);
	out->called = xcalloc(t->nfuncs + 1, 1);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		jobs[i].t = t;
		jobs[i].track = i;
	}
	struct pool pool = { jobs, t->ntracks, 0 };
	size_t nw = (size_t)ttv_cpus();
	if (nw > t->ntracks)
		nw = t->ntracks;
	if (nw < 1)
		nw = 1;
	struct walker *wk = xcalloc(nw, sizeof *wk);
	for (size_t k = 0; k < nw; k++) {
		wk[k].pool = &pool;
		wk[k].id = (uint32_t)k;
		if (t->nfuncs > 0)
			wk[k].stats = xcalloc(t->nfuncs, sizeof *wk[k].stats);
	}
	threads_run(track_work, wk, sizeof *wk, nw);
	/* --info's functions called: those with a call counted, or one
	 * counted apart as unfinished, in the first pass's rows (made for
	 * every track but the CPU lanes, as --info counts them). */
	for (size_t k = 0; k < nw; k++)
		for (func_id f = 0; f < t->nfuncs && wk[k].stats != NULL; f++)
			out->called[f] |= (wk[k].stats[f].count > 0 ?
			    SUM_CALLED : 0) | (wk[k].stats[f].unfinished > 0 ?
			    SUM_UNFINISHED : 0);
	bool clipped = false;
	for (uint32_t i = 0; i < t->ntracks; i++)
		clipped |= jobs[i].clipped;
	/* The percentiles' passes run in the same parts: each worker's
	 * tracks and counts, kept before the rows are merged. */
	if (!clipped && wk[0].stats != NULL && nw > 1) {
		out->part_of = xcalloc(t->ntracks + 1, sizeof *out->part_of);
		for (uint32_t i = 0; i < t->ntracks; i++)
			out->part_of[i] = jobs[i].part;
		out->counts = xcalloc(nw, sizeof *out->counts);
		for (size_t k = 0; k < nw; k++) {
			out->counts[k] = xcalloc(t->nfuncs,
			    sizeof *out->counts[k]);
			for (func_id f = 0; f < t->nfuncs; f++)
				out->counts[k][f] = wk[k].stats[f].count;
		}
		out->parts = (struct stats_parts){ (uint32_t)nw,
		    out->part_of, out->counts };
	}
	for (size_t k = 1; k < nw; k++) {
		if (!clipped && wk[0].stats != NULL)
			for (func_id f = 0; f < t->nfuncs; f++)
				stats_merge(&wk[0].stats[f], &wk[k].stats[f]);
		free(wk[k].stats);
	}
	if (clipped)
		free(wk[0].stats);
	else
		out->stats = wk[0].stats;
	free(wk);
	out->tracks = xcalloc(t->ntracks + 1, sizeof *out->tracks);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		out->nlevels += jobs[i].levels.len;
		out->nnodes += jobs[i].nodes.len;
		out->nentries += jobs[i].entries.len;
		out->nblocks += jobs[i].blocks.len;
	}
	out->blocks = xcalloc(out->nblocks + 1, sizeof *out->blocks);
	size_t nb = 0;
	out->levels = xcalloc(out->nlevels + 1, sizeof *out->levels);
	out->nodes = xcalloc(out->nnodes + 1, sizeof *out->nodes);
	out->entries = xcalloc(out->nentries + 1, sizeof *out->entries);
	size_t nl = 0, nn = 0, ne = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track_job *j = &jobs[i];
		for (size_t k = 0; k < j->nodes.len; k++)
			if (j->nodes.items[k].nentries != SUM_NONE)
				j->nodes.items[k].entry_first += ne;
		for (size_t k = 0; k < j->levels.len; k++)
			if (j->levels.items[k].nblocks > 0)
				j->levels.items[k].node_first += nn;
		copy(out->levels + nl, j->levels.items,
		    j->levels.len * sizeof *j->levels.items);
		copy(out->nodes + nn, j->nodes.items,
		    j->nodes.len * sizeof *j->nodes.items);
		copy(out->entries + ne, j->entries.items,
		    j->entries.len * sizeof *j->entries.items);
		nl += j->levels.len;
		nn += j->nodes.len;
		ne += j->entries.len;
		out->tracks[i] = j->flags;
		copy(out->blocks + nb, j->blocks.items,
		    j->blocks.len * sizeof *j->blocks.items);
		nb += j->blocks.len;
		if (out->bad == NULL)
			out->bad = j->bad;
		else
			free(j->bad);
		VEC_FREE(&j->blocks);
		VEC_FREE(&j->levels);
		VEC_FREE(&j->nodes);
		VEC_FREE(&j->entries);
	}
	free(jobs);
}

void
index_summary_free(struct summary_build *b)
{
	free(b->levels);
	free(b->nodes);
	free(b->entries);
	free(b->tracks);
	free(b->blocks);
	free(b->called);
	free(b->bad);
	free(b->stats);
	for (uint32_t k = 0; k < b->parts.n; k++)
		free(b->counts[k]);
	free(b->counts);
	free(b->part_of);
	memset(b, 0, sizeof *b);
}
