/*
 * Direct callers and callees of a set of functions (see query_calls.h).
 *
 * A chunk is walked depth by depth. A call of the functions is outermost
 * when no shallower call of them contains it; the outermost calls of the
 * depths above form a sorted list of disjoint time spans, so that test is
 * a walk along that list. Each edge (caller -> functions, functions ->
 * callee) keeps such a list of its own, of the calls along it that were
 * counted with their time. A call's caller is the slice above it that
 * holds its start, its callees the slices below it that start inside it;
 * both are found with galloping searches from the previous call's, cheap
 * for dense and for rare functions alike.
 *
 * Each worker sums into rows indexed by function id; the rows of the
 * workers are added up at the end (sums do not depend on the order).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "level.h"
#include "query_calls.h"
#include "xalloc.h"

#define CHUNK_SLICES ((size_t)1 << 18)
#define WORKERS_MAX 8

struct edge_sum {
	uint64_t count;
	ttv_ns total;
};

struct span {
	ttv_ns start, end;
};

struct span_vec {
	struct span *items;
	size_t len, cap;
};

/* Time spans already counted, sorted and disjoint: those of the depths
 * above, and those found at this depth (fresh), merged after it. */
struct span_set {
	struct span_vec spans, fresh;
	size_t cursor;		/* for this depth's walk, in time order */
};

/* Span sets by function, for the edges: made on first use in a chunk. */
struct edge_sets {
	int32_t *slot;		/* nfuncs + 1, -1: none yet */
	VEC(struct span_set) sets;
	VEC(uint32_t) used;	/* functions with a set, to reset */
};

struct bf_worker {
	/* nfuncs + 1 rows each; the last is "no caller" */
	struct edge_sum *callers, *callees;
	uint64_t count, unfinished, outermost;
	ttv_ns total, self;
	struct span_set center;
	struct edge_sets in, out;	/* caller -> f, f -> callee */
	struct span_vec merged;
	/* the chunk's calls of the functions: one bit a slice, its depths
	 * end to end, depth d from bit dpos[d] */
	VEC(uint64_t) bits;
	VEC(size_t) dpos;
};

struct bf {
	const struct trace *t;
	const struct filter *f;
	const uint8_t *match;
	uint8_t *want;		/* match and let through by the filter: 0/1 */
	ttv_ns t0, t1;
	const struct chunk_set *cs;
	struct bf_worker w[WORKERS_MAX];
};

/* Whether start lies in a span of the set (calls come in time order). */
static bool
in_set(struct span_set *s, ttv_ns start)
{
	while (s->cursor < s->spans.len &&
	    s->spans.items[s->cursor].end <= start)
		s->cursor++;
	return s->cursor < s->spans.len &&
	    s->spans.items[s->cursor].start <= start &&
	    start < s->spans.items[s->cursor].end;
}

/* Counts a call of [start, end) once per outermost: true when it is in
 * no span of the set, which it then joins if deeper calls may be tested
 * against it (`keep`). */
static inline bool
first_time(struct span_set *s, ttv_ns start, ttv_ns end, bool keep)
{
	if (s->spans.len > 0 && in_set(s, start))
		return false;
	if (keep)
		VEC_PUSH(&s->fresh, ((struct span){ start, end }));
	return true;
}

/* After a depth: the fresh spans join the set, the cursor restarts. */
static void
merge_set(struct span_set *s, struct span_vec *tmp)
{
	s->cursor = 0;
	if (s->fresh.len == 0)
		return;
	tmp->len = 0;
	VEC_RESERVE(tmp, s->spans.len + s->fresh.len);
	size_t i = 0, j = 0;
	while (i < s->spans.len || j < s->fresh.len) {
		if (j >= s->fresh.len || (i < s->spans.len &&
		    s->spans.items[i].start <= s->fresh.items[j].start))
			tmp->items[tmp->len++] = s->spans.items[i++];
		else
			tmp->items[tmp->len++] = s->fresh.items[j++];
	}
	struct span *items = s->spans.items;
	size_t cap = s->spans.cap;
	s->spans.items = tmp->items;
	s->spans.len = tmp->len;
	s->spans.cap = tmp->cap;
	tmp->items = items;
	tmp->cap = cap;
	tmp->len = 0;
	s->fresh.len = 0;
}

static struct span_set *
edge_set(struct edge_sets *es, uint32_t fn)
{
	if (es->slot[fn] < 0) {
		if (es->used.len == es->sets.len) {
			struct span_set z = { 0 };
			VEC_PUSH(&es->sets, z);
		}
		es->slot[fn] = (int32_t)es->used.len;
		VEC_PUSH(&es->used, fn);
	}
	return &es->sets.items[es->slot[fn]];
}

static void
merge_edges(struct edge_sets *es, struct span_vec *tmp)
{
	for (size_t i = 0; i < es->used.len; i++)
		merge_set(&es->sets.items[i], tmp);
}

/* Empties the sets for the next chunk, keeping their memory. */
static void
reset_edges(struct edge_sets *es)
{
	for (size_t i = 0; i < es->used.len; i++) {
		es->slot[es->used.items[i]] = -1;
		es->sets.items[i].spans.len = 0;
		es->sets.items[i].fresh.len = 0;
		es->sets.items[i].cursor = 0;
	}
	es->used.len = 0;
}

/* The callees of a call ending at `end`, from index k of the level below
 * (the first that starts inside it): their edges, and their clipped time
 * in all (unfinished ones: their time, but in no edge). */
static ttv_ns
callees_from(struct bf *bf, struct bf_worker *w, const struct depth_level *cl,
    size_t k, ttv_ns start, ttv_ns end, bool keep)
{
	ttv_ns child = 0;
	/* a call that lasted no time holds those at its start that lasted
	 * none either (level_holds) */
	if (start == end)
		end++;
	for (; k < cl->len && cl->slices[k].start < end; k++) {
		func_id g = cl->slices[k].func;
		if (!level_in_range(cl, k, bf->t0, bf->t1))
			continue;
		ttv_ns cd = level_clip(cl, k, bf->t0, bf->t1);
		child = add_ns(child, cd);
		if (!filter_func(bf->f, g) ||
		    (cl->slices[k].flags & SLICE_INEXACT))
			continue;
		struct edge_sum *e = &w->callees[g];
		e->count++;
		if (first_time(edge_set(&w->out, g), cl->slices[k].start,
		    level_end(cl, k), keep))
			e->total = add_ns(e->total, cd);
	}
	return child;
}

/* The callees of a call that never returned (rare: no gallop kept). */
static void
callees(struct bf *bf, struct bf_worker *w, const struct depth_level *cl,
    ttv_ns start, ttv_ns end, bool keep)
{
	if (cl != NULL)
		callees_from(bf, w, cl, level_gallop(cl, 0, start), start, end,
		    keep);
}

static void
walk_chunk(int worker, void *arg, size_t ci)
{
	struct bf *bf = arg;
	const struct trace *t = bf->t;
	const struct chunk *ch = &bf->cs->c[ci];
	const struct track *tr = &t->tracks[ch->track];
	struct bf_worker *w = &bf->w[worker];
	const uint32_t none = t->nfuncs;
	w->center.spans.len = w->center.fresh.len = w->center.cursor = 0;
	reset_edges(&w->in);
	reset_edges(&w->out);
	/* Pass 1: which slices are calls of the functions, without a
	 * branch a slice; and the deepest depth that has one. Only calls
	 * above it can hold others, so only their spans are kept, and a
	 * function that never nests (the common case) keeps none. */
	w->dpos.len = 0;
	size_t nbits = 0;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, bf->t0, bf->t1, &lo, &hi);
		VEC_PUSH(&w->dpos, nbits);
		nbits += hi - lo;
	}
	VEC_PUSH(&w->dpos, nbits);
	w->bits.len = 0;
	VEC_RESERVE(&w->bits, nbits / 64 + 1);
	memset(w->bits.items, 0, (nbits / 64 + 1) * sizeof *w->bits.items);
	uint64_t *bits = w->bits.items;
	uint32_t deepest = 0;
	bool any = false;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		size_t lo, hi, pos = w->dpos.items[d], n = 0;
		chunk_level(t, ch, d, bf->t0, bf->t1, &lo, &hi);
		const struct slice *sl = tr->depth[d].slices;
		for (size_t i = lo; i < hi; i++, pos++) {
			uint64_t m = bf->want[sl[i].func];
			bits[pos >> 6] |= m << (pos & 63);
			n += m;
		}
		if (n > 0) {
			deepest = d;
			any = true;
		}
	}
	if (!any)
		return;
	for (uint32_t d = 0; d <= deepest; d++) {
		size_t lo, hi;
		chunk_level(t, ch, d, bf->t0, bf->t1, &lo, &hi);
		if (lo >= hi)
			continue;
		const struct depth_level *l = &tr->depth[d];
		const struct depth_level *pl = d > 0 ? &tr->depth[d - 1] : NULL;
		const struct depth_level *cl =
		    d + 1 < tr->ndepth ? &tr->depth[d + 1] : NULL;
		bool keep = d < deepest;
		size_t pc = 0, cc = 0, pos = w->dpos.items[d];
		for (size_t wd = pos >> 6; wd <= (pos + (hi - lo) - 1) >> 6;
		    wd++) {
		uint64_t x = bits[wd];
		while (x != 0) {
			size_t b = (wd << 6) + (size_t)__builtin_ctzll(x);
			x &= x - 1;
			if (b < pos || b >= pos + (hi - lo))
				continue;
			size_t i = lo + (b - pos);
			const struct slice *s = &l->slices[i];
			ttv_ns start = s->start, end = level_end(l, i);
			ttv_ns dur = level_clip(l, i, bf->t0, bf->t1);
			bool returned = (s->flags & SLICE_INEXACT) == 0;
			if (!returned) {
				/* counted apart, in no edge and no time; the
				 * calls it made are callees as any */
				w->unfinished++;
				callees(bf, w, cl, start, end, keep);
				continue;
			}
			w->count++;
			if (first_time(&w->center, start, end, keep)) {
				w->outermost++;
				w->total = add_ns(w->total, dur);
			}
			/* the caller: the slice above that holds the start */
			uint32_t caller = none;
			if (pl != NULL) {
				pc = level_gallop(pl, pc, start + 1);
				if (pc > 0 && level_holds(pl, pc - 1, start))
					caller = pl->slices[pc - 1].func;
			}
			if (caller == none || filter_func(bf->f, caller)) {
				struct edge_sum *e = &w->callers[caller];
				e->count++;
				if (first_time(edge_set(&w->in, caller), start,
				    end, keep))
					e->total = add_ns(e->total, dur);
			}
			/* the callees */
			ttv_ns child = 0;
			if (cl != NULL) {
				cc = level_gallop(cl, cc, start);
				child = callees_from(bf, w, cl, cc, start, end,
				    keep);
			}
			w->self = add_ns(w->self, child < dur ? dur - child : 0);
		}
		}
		merge_set(&w->center, &w->merged);
		merge_edges(&w->in, &w->merged);
		merge_edges(&w->out, &w->merged);
	}
}

static int
cmp_edges(const void *a, const void *b, void *arg)
{
	const struct trace *t = arg;
	const struct call_edge *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->func == CALL_NONE || y->func == CALL_NONE)
		return x->func == y->func ? 0 : x->func == CALL_NONE ? 1 : -1;
	int c = strcmp(trace_func_name(t, x->func), trace_func_name(t, y->func));
	if (c != 0)
		return c;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* The rows with calls, summed over the workers, sorted. */
static struct call_edge *
gather(const struct trace *t, const struct bf *bf, int nw, bool callers,
    size_t *n)
{
	size_t rows = (size_t)t->nfuncs + 1, m = 0;
	VEC(struct call_edge) v = { 0 };
	for (size_t fn = 0; fn < rows; fn++) {
		struct call_edge e = { fn == t->nfuncs ? CALL_NONE :
		    (func_id)fn, 0, 0 };
		for (int i = 0; i < nw; i++) {
			const struct edge_sum *s = callers ?
			    &bf->w[i].callers[fn] : &bf->w[i].callees[fn];
			e.count += s->count;
			e.total = add_ns(e.total, s->total);
		}
		if (e.count > 0) {
			VEC_PUSH(&v, e);
			m++;
		}
	}
	if (m > 1)
		qsort_r(v.items, m, sizeof *v.items, cmp_edges, (void *)t);
	*n = m;
	return v.items;
}

void
query_butterfly(const struct trace *t, const struct filter *f,
    const uint8_t *match, ttv_ns t0, ttv_ns t1, struct butterfly *out)
{
	memset(out, 0, sizeof *out);
	struct chunk_set cs;
	chunks_plan(t, f, t0, t1, CHUNK_SLICES, &cs);
	int nw = chunks_threads(cs.slices);
	if (nw > WORKERS_MAX)
		nw = WORKERS_MAX;
	struct bf *bf = xcalloc(1, sizeof *bf);
	*bf = (struct bf){ .t = t, .f = f, .match = match, .t0 = t0,
	    .t1 = t1, .cs = &cs };
	bf->want = xmalloc(t->nfuncs ? t->nfuncs : 1);
	for (uint32_t i = 0; i < t->nfuncs; i++)
		bf->want[i] = match[i] && filter_func(f, i);
	for (int i = 0; i < nw; i++) {
		/* calloc: rows never touched cost no memory */
		bf->w[i].callers = xcalloc((size_t)t->nfuncs + 1,
		    sizeof *bf->w[i].callers);
		bf->w[i].callees = xcalloc((size_t)t->nfuncs + 1,
		    sizeof *bf->w[i].callees);
		for (int k = 0; k < 2; k++) {
			struct edge_sets *es = k ? &bf->w[i].out : &bf->w[i].in;
			es->slot = xmalloc(((size_t)t->nfuncs + 1) *
			    sizeof *es->slot);
			memset(es->slot, 0xff, ((size_t)t->nfuncs + 1) *
			    sizeof *es->slot);
		}
	}
	chunks_run(&cs, nw, walk_chunk, bf);
	for (int i = 0; i < nw; i++) {
		struct bf_worker *w = &bf->w[i];
		out->count += w->count;
		out->unfinished += w->unfinished;
		out->outermost += w->outermost;
		out->total = add_ns(out->total, w->total);
		out->self = add_ns(out->self, w->self);
	}
	out->callers = gather(t, bf, nw, true, &out->ncallers);
	out->callees = gather(t, bf, nw, false, &out->ncallees);
	for (int i = 0; i < nw; i++) {
		free(bf->w[i].callers);
		free(bf->w[i].callees);
		struct bf_worker *w = &bf->w[i];
		VEC_FREE(&w->center.spans);
		VEC_FREE(&w->center.fresh);
		VEC_FREE(&w->merged);
		VEC_FREE(&w->bits);
		VEC_FREE(&w->dpos);
		for (int k = 0; k < 2; k++) {
			struct edge_sets *es = k ? &w->out : &w->in;
			for (size_t j = 0; j < es->sets.len; j++) {
				VEC_FREE(&es->sets.items[j].spans);
				VEC_FREE(&es->sets.items[j].fresh);
			}
			VEC_FREE(&es->sets);
			VEC_FREE(&es->used);
			free(es->slot);
		}
	}
	free(bf->want);
	free(bf);
	chunks_free(&cs);
}

void
butterfly_free(struct butterfly *b)
{
	free(b->callers);
	free(b->callees);
	memset(b, 0, sizeof *b);
}
