/*
 * The `slice` and `sched` tables: virtual tables reading the slices of the
 * model where they are stored (see sql.h, sql_int.h).
 *
 * `slice` holds the call-stack slices of every track but CPU lanes, and
 * the instants of every track; `sched` holds the CPU lanes' slices (what
 * ran on a CPU).
 *
 * The columns, and which of them a plan takes, come from the tables'
 * description (sql_schema.def). A scan is planned from what the model can
 * answer without a full pass:
 *  - id = X: one row, found by binary search over the id bases;
 *  - parent_id = X: the level below X's, inside X's time span;
 *  - track_id = X, depth = X, ts bounds: the index ranges of each depth
 *    of each track that the bounds give by binary search ("spans"), in
 *    id order;
 *  - name = 'x': the blocks of the name index holding x's slices, when
 *    the index fits its budget, else the spans with a test per row;
 *  - ORDER BY name (and GROUP BY name): rows delivered in name order,
 *    so SQLite neither sorts nor keeps groups: the spans are passed over
 *    once to count each function's rows, then again per batch of
 *    functions, whose rows' places are collected in a buffer of at most a
 *    tenth of the model's size.
 * Names and time bounds are met exactly (SQLite does not test them
 * again); every
 * other constraint is checked again by SQLite: a plan may give a superset
 * for those, never miss a row. The view (filter, window) is applied here:
 * rows it hides are never seen by SQLite.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "level.h"
#include "sql_int.h"
#include "sql_schema.h"
#include "xalloc.h"

enum table_kind { T_SLICE, T_SCHED };

/* What xBestIndex chose: bits of idxNum; the values come in argv in the
 * order of the bits. */
enum plan_bit {
	P_ID = 1 << 0, P_PARENT = 1 << 1, P_TRACK = 1 << 2, P_DEPTH = 1 << 3,
	P_NAME = 1 << 4, P_TS_EQ = 1 << 5, P_TS_GT = 1 << 6, P_TS_GE = 1 << 7,
	P_TS_LT = 1 << 8, P_TS_LE = 1 << 9,
	P_NARGS = 10,
	/* orders */
	P_BY_NAME = 1 << 12, P_DESC = 1 << 13,
};

struct table {
	sqlite3_vtab base;
	struct sql *s;
	enum table_kind kind;
	const struct sql_table_desc *desc;
};

/* A run of rows: index range [lo, hi) of one depth of one track, or of
 * its instants (depth SEARCH_INSTANT); pos: where lo falls when the spans
 * are laid end to end. */
struct span {
	uint32_t track, depth;
	size_t lo, hi;
	uint64_t pos;
};

enum mode { M_EOF, M_ONE, M_SPANS, M_BLOCKS, M_BY_NAME };

struct cursor {
	sqlite3_vtab_cursor base;
	struct sql *s;
	enum table_kind kind;
	enum mode mode;

	struct sql_row r;	/* the current row */

	/* Spans (M_SPANS, M_BY_NAME). */
	struct span *spans;
	size_t nspans, cap;
	size_t si, i;		/* M_SPANS: the next row */
	/* Time bounds every row meets (the blocks test them, the spans are
	 * cut to them). */
	ttv_ns ts_lo, ts_hi;
	/* Functions a row must have, by name rank [g0, g1) (P_NAME when it
	 * is not answered by the index). */
	bool by_rank;
	uint32_t g0, g1;

	/* M_ONE */
	bool one_left;

	/* M_BLOCKS: sorted block numbers, the next one and the next id. */
	uint32_t *blocks;
	size_t nblocks, bi;
	uint64_t next_id, block_end;
	struct slice_ref walk;	/* where next_id is */
	size_t walk_len;	/* rows of walk's level; 0: search again */
	const struct slice *walk_funcs;	/* its slices (NULL: instants) */

	/* M_BY_NAME: rows per function of the spans (by name rank), the
	 * ranks left, and the current batch: ranks [r0, r1) whose rows'
	 * places are in buf, at off[r - r0] .. off[r - r0 + 1]. */
	bool desc;
	uint64_t *count;	/* nfuncs + 1 */
	uint32_t *buf;
	uint64_t *off;
	size_t buf_cap;
	uint32_t r0, r1;	/* batch */
	uint32_t rnext;		/* next rank to batch (asc), or one past it
				 * (desc) */
	uint64_t resume;	/* a function too big for one batch: the place
				 * from which to go on collecting it */
	uint32_t cur_rank;	/* rank being delivered */
	uint64_t k, kend;	/* its rows: buf[k .. kend) */
	size_t sspan;		/* span of the last row */
};

/* ------------------------------------------------------------- helpers */

/* `slice` has the slices of every track but CPU lanes, and the instants
 * of every track (wake-ups sit on CPU lanes); `sched` the CPU lanes'
 * slices. */
static bool
track_in_table(const struct trace *t, enum table_kind kind, uint32_t i)
{
	return (t->tracks[i].kind == TRACK_CPU) == (kind == T_SCHED);
}

static bool
instants_in_table(enum table_kind kind)
{
	return kind == T_SLICE;
}

/* The function of a row. */
static func_id
row_func(const struct sql *s, const struct sql_row *r)
{
	const struct track *tr = &s->t->tracks[r->track];
	return r->level ? r->level->slices[r->index].func :
	    tr->instants[r->index].func;
}

static ttv_ns
row_ts(const struct sql *s, const struct sql_row *r)
{
	const struct track *tr = &s->t->tracks[r->track];
	return r->level ? r->level->slices[r->index].start :
	    tr->instants[r->index].t;
}

static ttv_ns
row_dur(const struct sql_row *r)
{
	return r->level ? level_dur(r->level, r->index) : 0;
}

/* A slice's dur: -1 for a call that never returned, as Perfetto gives a
 * slice that did not end (query_calls.h), so that the rows with dur >= 0
 * are the calls --stats counts. */
static ttv_ns
slice_dur(const struct sql_row *r)
{
	if (r->level != NULL &&
	    (r->level->slices[r->index].flags & SLICE_INEXACT))
		return -1;
	return row_dur(r);
}

/* True when a slice or an instant is in the view's window. */
static bool
in_window(const struct sql *s, ttv_ns start, ttv_ns dur)
{
	if (s->t0 == TTV_NS_MIN && s->t1 == TTV_NS_MAX)
		return true;
	if (start >= s->t1)
		return false;
	return start + dur > s->t0 || (dur == 0 && start >= s->t0);
}

void
sql_row_at(const struct sql *s, struct slice_ref ref, struct sql_row *out)
{
	out->track = ref.track;
	out->depth = ref.depth;
	out->index = ref.index;
	out->level = ref.depth == SEARCH_INSTANT ? NULL :
	    &s->t->tracks[ref.track].depth[ref.depth];
}

static void
set_row(struct cursor *c, uint32_t track, uint32_t depth, size_t index)
{
	sql_row_at(c->s, (struct slice_ref){ track, depth, (uint32_t)index },
	    &c->r);
}

/* Whether the row at a ref is one a table shows under the view. */
static bool
kind_visible(const struct sql *s, enum table_kind kind, struct slice_ref r)
{
	const struct trace *t = s->t;
	if (!sql_track_on(s, r.track))
		return false;
	const struct track *tr = &t->tracks[r.track];
	if (r.depth == SEARCH_INSTANT) {
		if (!instants_in_table(kind))
			return false;
		const struct instant *in = &tr->instants[r.index];
		return sql_func_on(s, in->func) && in_window(s, in->t, 0);
	}
	if (!track_in_table(t, kind, r.track))
		return false;
	const struct depth_level *l = &tr->depth[r.depth];
	return sql_func_on(s, l->slices[r.index].func) &&
	    in_window(s, l->slices[r.index].start, level_dur(l, r.index));
}

static bool
ref_visible(const struct cursor *c, struct slice_ref r)
{
	return kind_visible(c->s, c->kind, r);
}

bool
sql_slice_shown(const struct sql *s, struct slice_ref r)
{
	return kind_visible(s, T_SLICE, r);
}

/* The depth of an instant: one below the deepest slice of its track
 * that contains it. */
static uint32_t
instant_depth(const struct sql *s, const struct sql_row *r,
    struct slice_ref *parent, bool *has_parent)
{
	const struct trace *t = s->t;
	const struct track *tr = &t->tracks[r->track];
	ttv_ns when = tr->instants[r->index].t;
	*has_parent = false;
	/* a CPU lane's slices are in sched, not slice */
	if (tr->kind == TRACK_CPU)
		return 0;
	for (uint32_t d = tr->ndepth; d-- > 0;)
		if (query_slice_at(t, r->track, d, when, parent)) {
			*has_parent = true;
			return d + 1;
		}
	return 0;
}

/* The nearest ancestor of a slice that the view lets through. */
static bool
visible_parent(const struct sql *s, struct slice_ref r, struct slice_ref *out)
{
	while (query_parent(s->t, r, out)) {
		if (sql_func_on(s, trace_slice(s->t, *out)->func))
			return true;
		r = *out;
	}
	return false;
}

/* --------------------------------------------------------------- spans */

struct bounds {
	bool one_track;
	uint32_t track;
	uint32_t d0, d1;	/* depths [d0, d1) */
	ttv_ns lo, hi;		/* ts in [lo, hi] */
	bool instants;
};

static void
push_span(struct cursor *c, uint32_t track, uint32_t depth, size_t lo,
    size_t hi)
{
	if (lo >= hi)
		return;
	if (c->nspans == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->spans = xreallocarray(c->spans, c->cap, sizeof *c->spans);
	}
	uint64_t pos = c->nspans ? c->spans[c->nspans - 1].pos +
	    (c->spans[c->nspans - 1].hi - c->spans[c->nspans - 1].lo) : 0;
	c->spans[c->nspans++] = (struct span){ track, depth, lo, hi, pos };
}

static void
plan_spans(struct cursor *c, const struct bounds *b)
{
	const struct sql *s = c->s;
	const struct trace *t = s->t;
	c->nspans = 0;
	if (b->lo > b->hi)
		return;
	uint32_t a = b->one_track ? b->track : 0;
	uint32_t z = b->one_track ? b->track + 1 : t->ntracks;
	if (a >= t->ntracks)
		return;
	for (uint32_t i = a; i < z; i++) {
		const struct track *tr = &t->tracks[i];
		if (!track_in_table(t, c->kind, i) || !sql_track_on(s, i))
			continue;
		for (uint32_t d = b->d0; d < b->d1 && d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			size_t lo = 0, hi = l->len;
			if (s->t0 != TTV_NS_MIN || s->t1 != TTV_NS_MAX)
				query_window(tr, d, s->t0, s->t1, &lo, &hi);
			if (b->lo != TTV_NS_MIN) {
				size_t x = level_first_start(l, b->lo);
				if (x > lo)
					lo = x;
			}
			if (b->hi != TTV_NS_MAX) {
				size_t x = level_first_start(l, b->hi + 1);
				if (x < hi)
					hi = x;
			}
			push_span(c, i, d, lo, hi);
		}
	}
	if (!b->instants || !instants_in_table(c->kind))
		return;
	for (uint32_t i = a; i < z; i++) {
		const struct track *tr = &t->tracks[i];
		if (tr->ninstants == 0 || !sql_track_on(s, i))
			continue;
		ttv_ns lo = b->lo > s->t0 ? b->lo : s->t0;
		size_t x = lo == TTV_NS_MIN ? 0 : track_first_instant(tr, lo);
		size_t y = tr->ninstants;
		if (b->hi != TTV_NS_MAX)
			y = track_first_instant(tr, b->hi + 1);
		if (s->t1 != TTV_NS_MAX) {
			size_t w = track_first_instant(tr, s->t1);
			if (w < y)
				y = w;
		}
		push_span(c, i, SEARCH_INSTANT, x, y);
	}
}

/* Whether a row found by a span passes what the span does not test. */
static inline bool
span_row_ok(const struct cursor *c, func_id f)
{
	const struct sql *s = c->s;
	if (s->func_on != NULL && !sql_func_on(s, f))
		return false;
	if (c->by_rank) {
		uint32_t r = f < s->t->nfuncs ? s->name_rank[f] : UINT32_MAX;
		return r >= c->g0 && r < c->g1;
	}
	return true;
}

static void
spans_next(struct cursor *c)
{
	const struct trace *t = c->s->t;
	unsigned long long visited = 0;
	while (c->si < c->nspans) {
		const struct span *sp = &c->spans[c->si];
		const struct track *tr = &t->tracks[sp->track];
		if (sp->depth != SEARCH_INSTANT) {
			const struct slice *sl = tr->depth[sp->depth].slices;
			while (c->i < sp->hi) {
				size_t i = c->i++;
				visited++;
				if (span_row_ok(c, sl[i].func)) {
					set_row(c, sp->track, sp->depth, i);
					c->s->stats.slice_rows_visited +=
					    visited;
					return;
				}
				if ((visited & 0xfffff) == 0 &&
				    sql_cancelled(c->s))
					goto out;
			}
		} else {
			while (c->i < sp->hi) {
				size_t i = c->i++;
				visited++;
				if (span_row_ok(c, tr->instants[i].func)) {
					set_row(c, sp->track, SEARCH_INSTANT,
					    i);
					c->s->stats.slice_rows_visited +=
					    visited;
					return;
				}
			}
		}
		if (++c->si < c->nspans)
			c->i = c->spans[c->si].lo;
	}
out:
	c->s->stats.slice_rows_visited += visited;
	c->mode = M_EOF;
}

/* -------------------------------------------------------------- blocks */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The blocks of the functions of name ranks [g0, g1), sorted, unique. */
static void
plan_blocks(struct cursor *c)
{
	const struct sql *s = c->s;
	size_t n = 0;
	for (uint32_t r = c->g0; r < c->g1; r++) {
		uint32_t f = s->by_name[r];
		n += s->block_start[f + 1] - s->block_start[f];
	}
	c->blocks = xreallocarray(c->blocks, n ? n : 1, sizeof *c->blocks);
	c->nblocks = 0;
	for (uint32_t r = c->g0; r < c->g1; r++) {
		uint32_t f = s->by_name[r];
		for (uint64_t k = s->block_start[f]; k < s->block_start[f + 1];
		    k++)
			c->blocks[c->nblocks++] = s->blocks[k];
	}
	if (c->g1 - c->g0 > 1) {
		xqsort(c->blocks, c->nblocks, sizeof *c->blocks, cmp_u32);
		size_t w = 0;
		for (size_t k = 0; k < c->nblocks; k++)
			if (w == 0 || c->blocks[w - 1] != c->blocks[k])
				c->blocks[w++] = c->blocks[k];
		c->nblocks = w;
	}
	c->bi = 0;
	c->next_id = c->block_end = 0;
	c->walk_len = 0;
}

static void
blocks_next(struct cursor *c)
{
	struct sql *s = c->s;
	const struct trace *t = s->t;
	uint64_t nids = s->nslices + s->inst_base[t->ntracks];
	unsigned long long visited = 0;
	for (;;) {
		if (c->next_id >= c->block_end) {
			if (c->bi >= c->nblocks)
				break;
			c->next_id = (uint64_t)c->blocks[c->bi++] <<
			    SQL_BLOCK_SHIFT;
			c->block_end = c->next_id + SQL_BLOCK;
			if (c->block_end > nids)
				c->block_end = nids;
			c->walk_len = 0;
		}
		/* the ids of a block are walked in place: a search only
		 * where a block starts or crosses into another level */
		if (c->walk.index >= c->walk_len) {
			if (!sql_id_ref(s, (int64_t)c->next_id, &c->walk)) {
				c->next_id = c->block_end;
				continue;
			}
			const struct track *tr = &t->tracks[c->walk.track];
			c->walk_len = c->walk.depth == SEARCH_INSTANT ?
			    tr->ninstants : tr->depth[c->walk.depth].len;
			c->walk_funcs = c->walk.depth == SEARCH_INSTANT ? NULL :
			    tr->depth[c->walk.depth].slices;
		}
		struct slice_ref r = c->walk;
		c->walk.index++;
		c->next_id++;
		visited++;
		func_id f = c->walk_funcs != NULL ? c->walk_funcs[r.index].func :
		    t->tracks[r.track].instants[r.index].func;
		uint32_t rank = f < t->nfuncs ? s->name_rank[f] : UINT32_MAX;
		if (rank < c->g0 || rank >= c->g1 || !ref_visible(c, r))
			continue;
		ttv_ns ts = c->walk_funcs != NULL ? c->walk_funcs[r.index].start :
		    t->tracks[r.track].instants[r.index].t;
		if (ts < c->ts_lo || ts > c->ts_hi)
			continue;
		set_row(c, r.track, r.depth, r.index);
		s->stats.slice_rows_visited += visited;
		return;
	}
	s->stats.slice_rows_visited += visited;
	c->mode = M_EOF;
}

/* ------------------------------------------------------- rows by name */

/* Rows of a span's function: the name rank of the function at a place. */
static inline uint32_t
rank_at(const struct sql *s, const struct track *tr, const struct span *sp,
    size_t i)
{
	func_id f = sp->depth == SEARCH_INSTANT ? tr->instants[i].func :
	    tr->depth[sp->depth].slices[i].func;
	return f < s->t->nfuncs ? s->name_rank[f] : UINT32_MAX;
}

/* Pass 1: how many rows of each function the spans hold. */
static void
count_ranks(struct cursor *c)
{
	const struct sql *s = c->s;
	const struct trace *t = s->t;
	uint64_t *count = c->count;
	for (size_t k = 0; k < c->nspans; k++) {
		const struct span *sp = &c->spans[k];
		const struct track *tr = &t->tracks[sp->track];
		if (sp->depth == SEARCH_INSTANT) {
			for (size_t i = sp->lo; i < sp->hi; i++)
				count[rank_at(s, tr, sp, i)]++;
			continue;
		}
		const struct slice *sl = tr->depth[sp->depth].slices;
		const uint32_t *rank = s->name_rank;
		for (size_t i = sp->lo; i < sp->hi; i++)
			count[rank[sl[i].func]]++;
		if (sql_cancelled(s))
			return;
	}
	/* Functions the filter hides have no rows. */
	if (s->func_on != NULL)
		for (uint32_t f = 0; f < t->nfuncs; f++)
			if (!s->func_on[f])
				count[s->name_rank[f]] = 0;
}

/* Pass 2, per batch: collects the places of the rows of ranks [r0, r1),
 * from place `from` on, at most buf_cap of them. Returns where it
 * stopped (UINT64_MAX: at the end). */
static uint64_t
collect_batch(struct cursor *c, uint64_t from)
{
	const struct sql *s = c->s;
	const struct trace *t = s->t;
	uint32_t r0 = c->r0, width = c->r1 - c->r0;
	uint64_t *fill = c->off;	/* used as fill pointers, reset after */
	size_t k = 0;
	while (k < c->nspans && c->spans[k].pos + (c->spans[k].hi -
	    c->spans[k].lo) <= from)
		k++;
	for (; k < c->nspans; k++) {
		const struct span *sp = &c->spans[k];
		const struct track *tr = &t->tracks[sp->track];
		size_t i = sp->lo;
		if (from > sp->pos)
			i += from - sp->pos;
		if (sp->depth == SEARCH_INSTANT) {
			for (; i < sp->hi; i++) {
				uint32_t r = rank_at(s, tr, sp, i) - r0;
				if (r < width) {
					if (fill[r] == c->off[width + 1 + r]) {
						if (width == 1)
							return sp->pos +
							    (i - sp->lo);
						continue;
					}
					c->buf[fill[r]++] = (uint32_t)(sp->pos +
					    (i - sp->lo));
				}
			}
			continue;
		}
		const struct slice *sl = tr->depth[sp->depth].slices;
		const uint32_t *rank = s->name_rank;
		uint32_t base = (uint32_t)(sp->pos - sp->lo);
		for (; i < sp->hi; i++) {
			uint32_t r = rank[sl[i].func] - r0;
			if (__builtin_expect(r < width, 0)) {
				/* no room: a function the view hides (none
				 * kept), or a lone one filling the buffer */
				if (fill[r] == c->off[width + 1 + r]) {
					if (width == 1)
						return sp->pos + (i - sp->lo);
					continue;
				}
				c->buf[fill[r]++] = base + (uint32_t)i;
			}
		}
		if (sql_cancelled(s))
			return UINT64_MAX;
	}
	return UINT64_MAX;
}

/* Chooses and fills the next batch; false when no rank is left. */
static bool
next_batch(struct cursor *c)
{
	const struct sql *s = c->s;
	uint32_t nf = s->t->nfuncs;
	uint32_t r0, r1;
	uint64_t from = 0;
	if (c->resume != 0) {
		/* the rest of a function too big for the buffer */
		r0 = c->cur_rank;
		r1 = r0 + 1;
		from = c->resume;
	} else if (!c->desc) {
		while (c->rnext < nf && c->count[c->rnext] == 0)
			c->rnext++;
		if (c->rnext >= nf)
			return false;
		r0 = c->rnext;
		uint64_t n = 0;
		r1 = r0;
		while (r1 < nf && (r1 == r0 || n + c->count[r1] <= c->buf_cap))
			n += c->count[r1++];
		c->rnext = r1;
	} else {
		while (c->rnext > 0 && c->count[c->rnext - 1] == 0)
			c->rnext--;
		if (c->rnext == 0)
			return false;
		r1 = c->rnext;
		uint64_t n = 0;
		r0 = r1;
		while (r0 > 0 && (r0 == r1 || n + c->count[r0 - 1] <=
		    c->buf_cap))
			n += c->count[--r0];
		c->rnext = r0;
	}
	c->r0 = r0;
	c->r1 = r1;
	uint32_t width = r1 - r0;
	/* off[0..width]: where each rank's rows start; off[width + 1 + r]:
	 * where its room ends (the buffer's end for the last). */
	c->off = xreallocarray(c->off, 2 * (size_t)width + 2, sizeof *c->off);
	uint64_t at = 0;
	for (uint32_t r = 0; r < width; r++) {
		c->off[r] = at;
		uint64_t n = c->count[r0 + r];
		if (n > c->buf_cap)
			n = c->buf_cap;
		at += n;
		c->off[width + 1 + r] = at;
	}
	c->off[width] = at;
	uint64_t stop = collect_batch(c, from);
	/* off[r] were the fill pointers: they now say where each rank's rows
	 * end; the starts are recomputed. */
	uint64_t *ends = xmalloc(((size_t)width + 1) * sizeof *ends);
	memcpy(ends, c->off, (size_t)width * sizeof *ends);
	at = 0;
	for (uint32_t r = 0; r < width; r++) {
		c->off[r] = at;
		at = c->off[width + 1 + r];
	}
	if (stop != UINT64_MAX && width == 1 && !sql_cancelled(s)) {
		/* only a lone function can fill the buffer */
		c->count[r0] -= ends[0] - c->off[0];
		c->resume = stop;
		c->cur_rank = r0;
	} else {
		c->resume = 0;
	}
	for (uint32_t r = 0; r < width; r++)
		c->off[width + 1 + r] = ends[r];
	free(ends);
	/* deliver from the first rank of the batch (the last when
	 * descending) */
	c->cur_rank = c->desc ? r1 - 1 : r0;
	c->k = c->off[c->cur_rank - r0];
	c->kend = c->off[width + 1 + (c->cur_rank - r0)];
	c->sspan = 0;
	return !sql_cancelled(s);
}

/* The span holding place p, from the span of the previous row on. */
static size_t
span_of(const struct cursor *c, uint64_t p, size_t from)
{
	size_t k = from;
	if (k >= c->nspans || c->spans[k].pos > p) {
		size_t lo = 0, hi = c->nspans;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (c->spans[mid].pos <= p)
				lo = mid;
			else
				hi = mid;
		}
		return lo;
	}
	while (k + 1 < c->nspans && c->spans[k + 1].pos <= p)
		k++;
	return k;
}

static void
by_name_next(struct cursor *c)
{
	for (;;) {
		if (c->k < c->kend) {
			uint64_t p = c->buf[c->k++];
			size_t k = span_of(c, p, c->sspan);
			const struct span *sp = &c->spans[k];
			c->sspan = k;
			c->s->stats.slice_rows_visited++;
			set_row(c, sp->track, sp->depth, sp->lo + (p - sp->pos));
			return;
		}
		/* the next rank of the batch, or the next batch */
		uint32_t width = c->r1 - c->r0;
		if (c->resume == 0 && !c->desc && c->cur_rank + 1 < c->r1) {
			c->cur_rank++;
		} else if (c->resume == 0 && c->desc && c->cur_rank > c->r0) {
			c->cur_rank--;
		} else {
			if (!next_batch(c))
				break;
			continue;
		}
		c->k = c->off[c->cur_rank - c->r0];
		c->kend = c->off[width + 1 + (c->cur_rank - c->r0)];
		c->sspan = 0;
	}
	c->mode = M_EOF;
}

static void
plan_by_name(struct cursor *c)
{
	struct sql *s = c->s;
	uint32_t nf = s->t->nfuncs;
	uint64_t total = c->nspans ? c->spans[c->nspans - 1].pos +
	    (c->spans[c->nspans - 1].hi - c->spans[c->nspans - 1].lo) : 0;
	if (nf == 0 || total == 0) {
		c->mode = M_EOF;
		return;
	}
	c->count = xreallocarray(c->count, (size_t)nf + 1, sizeof *c->count);
	memset(c->count, 0, ((size_t)nf + 1) * sizeof *c->count);
	count_ranks(c);
	if (c->by_rank)
		for (uint32_t r = 0; r < nf; r++)
			if (r < c->g0 || r >= c->g1)
				c->count[r] = 0;
	/* The buffer: a sixteenth of the model (with the counts and SQLite's
	 * own memory, a query stays within a tenth more than the model), at
	 * least 1 M places, and never more than the rows. */
	size_t cap = trace_memory(s->t) / 16 / sizeof(uint32_t);
	if (cap < ((size_t)1 << 20))
		cap = (size_t)1 << 20;
	if (s->by_name_cap != 0)
		cap = s->by_name_cap;
	if (cap > total)
		cap = (size_t)total;
	if (cap != c->buf_cap) {
		free(c->buf);
		c->buf = xmalloc(cap * sizeof *c->buf);
		c->buf_cap = cap;
	}
	c->resume = 0;
	c->rnext = c->desc ? nf : 0;
	c->r0 = c->r1 = 0;
	c->k = c->kend = 0;
	c->cur_rank = 0;
	c->mode = M_BY_NAME;
	if (!next_batch(c)) {
		c->mode = M_EOF;
		return;
	}
	by_name_next(c);
}

/* ------------------------------------------------------------- vtab api */

static int
connect(sqlite3 *db, void *aux, enum table_kind kind, sqlite3_vtab **out)
{
	const struct sql_table_desc *d = sql_schema_table(kind == T_SLICE ?
	    "slice" : "sched");
	char *schema = sql_schema_create(d);
	int rc = sqlite3_declare_vtab(db, schema);
	free(schema);
	if (rc != SQLITE_OK)
		return rc;
	/* Reading the trace has no side effect: views and triggers may use
	 * the table even though the schema is not trusted (CREATE VIEW,
	 * the slices view). */
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	struct table *tb = sqlite3_malloc(sizeof *tb);
	if (tb == NULL)
		return SQLITE_NOMEM;
	memset(tb, 0, sizeof *tb);
	tb->s = aux;
	tb->kind = kind;
	tb->desc = d;
	*out = &tb->base;
	return SQLITE_OK;
}

static int
slice_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	return connect(db, aux, T_SLICE, out);
}

static int
sched_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	return connect(db, aux, T_SCHED, out);
}

static int
disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int
best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const struct table *tb = (const struct table *)vt;
	const struct sql *s = tb->s;
	int which[P_NARGS];
	for (int k = 0; k < P_NARGS; k++)
		which[k] = -1;
	/* which constraints a plan takes comes from the columns' lookups
	 * (sql_schema.def) */
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct = &info->aConstraint[i];
		if (!ct->usable)
			continue;
		enum sql_lookup l = sql_schema_lookup(tb->desc, ct->iColumn);
		int bit = -1;
		switch (ct->op) {
		case SQLITE_INDEX_CONSTRAINT_EQ:
			if (l == SQL_LOOKUP_ID)
				bit = 0;
			else if (l == SQL_LOOKUP_PARENT)
				bit = 1;
			else if (l == SQL_LOOKUP_TRACK)
				bit = 2;
			else if (l == SQL_LOOKUP_DEPTH)
				bit = 3;
			else if (l == SQL_LOOKUP_NAME &&
			    sqlite3_stricmp(sqlite3_vtab_collation(info, i),
			    "BINARY") == 0)
				bit = 4;
			else if (l == SQL_LOOKUP_TIME)
				bit = 5;
			break;
		case SQLITE_INDEX_CONSTRAINT_GT:
			bit = l == SQL_LOOKUP_TIME ? 6 : -1;
			break;
		case SQLITE_INDEX_CONSTRAINT_GE:
			bit = l == SQL_LOOKUP_TIME ? 7 : -1;
			break;
		case SQLITE_INDEX_CONSTRAINT_LT:
			bit = l == SQL_LOOKUP_TIME ? 8 : -1;
			break;
		case SQLITE_INDEX_CONSTRAINT_LE:
			bit = l == SQL_LOOKUP_TIME ? 9 : -1;
			break;
		default:
			break;
		}
		if (bit >= 0 && which[bit] < 0)
			which[bit] = i;
	}
	/* id or parent_id alone say where to look: the rest is checked by
	 * SQLite on the few rows they give. */
	if (which[0] >= 0) {
		for (int k = 1; k < P_NARGS; k++)
			which[k] = -1;
	} else if (which[1] >= 0) {
		for (int k = 2; k < P_NARGS; k++)
			which[k] = -1;
	}
	double rows = (double)(s->nslices + s->inst_base[s->t->ntracks]) + 1;
	int plan = 0, argv = 0;
	for (int k = 0; k < P_NARGS; k++) {
		if (which[k] < 0)
			continue;
		plan |= 1 << k;
		info->aConstraintUsage[which[k]].argvIndex = ++argv;
		/* names (in the BINARY collation) and time bounds are met
		 * exactly by every plan that takes them: SQLite need not test
		 * them again, row by row */
		info->aConstraintUsage[which[k]].omit = k >= 4;
	}
	if (plan & P_ID) {
		rows = 1;
		info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	} else if (plan & P_PARENT) {
		rows = 8;
	} else {
		if (plan & P_TRACK)
			rows /= s->t->ntracks > 1 ? s->t->ntracks : 2;
		if (plan & P_DEPTH)
			rows /= 4;
		if (plan & P_NAME)
			rows /= s->t->nfuncs > 1 ? s->t->nfuncs : 2;
		if (plan & P_TS_EQ)
			rows /= 1000;
		else if ((plan & (P_TS_GT | P_TS_GE)) &&
		    (plan & (P_TS_LT | P_TS_LE)))
			rows /= 20;
		else if (plan & (P_TS_GT | P_TS_GE | P_TS_LT | P_TS_LE))
			rows /= 3;
	}
	if (rows < 1)
		rows = 1;
	/* Orders the plan gives: id (every plan but by-name delivers rows
	 * in id order), name (by-name, or one name). */
	if (info->nOrderBy == 1) {
		const struct sqlite3_index_orderby *ob = &info->aOrderBy[0];
		enum sql_lookup l = sql_schema_lookup(tb->desc, ob->iColumn);
		if (l == SQL_LOOKUP_ID && !ob->desc) {
			info->orderByConsumed = 1;
		} else if (l == SQL_LOOKUP_NAME &&
		    !(plan & (P_ID | P_PARENT))) {
			if (!(plan & P_NAME))
				plan |= P_BY_NAME | (ob->desc ? P_DESC : 0);
			info->orderByConsumed = 1;
		} else if (l == SQL_LOOKUP_ID && (plan & P_ID)) {
			info->orderByConsumed = 1;
		}
	}
	info->idxNum = plan;
	info->estimatedRows = (sqlite3_int64)rows;
	/* by-name reads the spans twice and keeps places: a little more */
	info->estimatedCost = rows * ((plan & P_BY_NAME) ? 1.5 : 1.0) + 10;
	return SQLITE_OK;
}

static int
open_cursor(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	const struct table *tb = (const struct table *)vt;
	struct cursor *c = xcalloc(1, sizeof *c);
	c->s = tb->s;
	c->kind = tb->kind;
	c->mode = M_EOF;
	*out = &c->base;
	return SQLITE_OK;
}

static int
close_cursor(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	free(c->spans);
	free(c->blocks);
	free(c->count);
	free(c->buf);
	free(c->off);
	free(c);
	return SQLITE_OK;
}

/* The name ranks [g0, g1) of the functions named v (none: g0 = g1). */
static void
name_ranks(struct cursor *c, sqlite3_value *v)
{
	struct sql *s = c->s;
	sql_name_order(s);
	c->g0 = c->g1 = 0;
	/* as SQLite compares a TEXT column: a number as its text; NULL and
	 * blobs equal no name */
	if (sqlite3_value_type(v) == SQLITE_NULL ||
	    sqlite3_value_type(v) == SQLITE_BLOB)
		return;
	const char *want = (const char *)sqlite3_value_text(v);
	size_t wn = (size_t)sqlite3_value_bytes(v);
	if (want == NULL || memchr(want, 0, wn) != NULL)
		return;
	size_t lo = 0, hi = s->t->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(trace_func_name(s->t, s->by_name[mid]), want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < s->t->nfuncs &&
	    strcmp(trace_func_name(s->t, s->by_name[e]), want) == 0)
		e++;
	c->g0 = (uint32_t)lo;
	c->g1 = (uint32_t)e;
}

static int
filter(sqlite3_vtab_cursor *cur, int plan, const char *idx, int argc,
    sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)cur;
	struct sql *s = c->s;
	const struct trace *t = s->t;
	sqlite3_value *arg[P_NARGS] = { NULL };
	int a = 0;
	for (int k = 0; k < P_NARGS; k++)
		if ((plan & (1 << k)) && a < argc)
			arg[k] = argv[a++];
	s->stats.slice_filters++;
	s->stats.last_plan = plan;
	c->mode = M_EOF;
	c->by_rank = false;
	c->desc = (plan & P_DESC) != 0;

	if (plan & P_ID) {
		int64_t id;
		struct slice_ref r;
		if (sql_value_integer(arg[0], &id) && sql_id_ref(s, id, &r) &&
		    ref_visible(c, r)) {
			set_row(c, r.track, r.depth, r.index);
			s->stats.slice_rows_visited++;
			c->mode = M_ONE;
		}
		return SQLITE_OK;
	}

	struct bounds b = { .d0 = 0, .d1 = UINT32_MAX, .lo = TTV_NS_MIN,
	    .hi = TTV_NS_MAX, .instants = true };
	if (plan & P_PARENT) {
		int64_t id;
		struct slice_ref p;
		if (!sql_value_integer(arg[1], &id) || !sql_id_ref(s, id, &p) ||
		    p.depth == SEARCH_INSTANT || !ref_visible(c, p))
			return SQLITE_OK;
		/* its children: one depth below (any depth below when the
		 * view hides functions: a hidden child's children are
		 * then its), inside its time span */
		b.one_track = true;
		b.track = p.track;
		b.d0 = p.depth + 1;
		b.d1 = s->func_on != NULL ? UINT32_MAX : p.depth + 2;
		b.lo = trace_slice(t, p)->start;
		b.hi = trace_slice_end(t, p);
	}
	int64_t v;
	if (plan & P_TRACK) {
		if (!sql_value_integer(arg[2], &v) || v < 0 ||
		    v >= (int64_t)t->ntracks)
			return SQLITE_OK;
		b.one_track = true;
		b.track = (uint32_t)v;
	}
	if (plan & P_DEPTH) {
		/* instants' depths are computed: they stay in, SQLite tests
		 * them */
		if (!sql_value_integer(arg[3], &v) || v < 0 || v >= UINT32_MAX)
			return SQLITE_OK;
		b.d0 = (uint32_t)v;
		b.d1 = (uint32_t)v + 1;
	}
	static const int ts_op[P_NARGS] = {
		[5] = SQLITE_INDEX_CONSTRAINT_EQ, [6] = SQLITE_INDEX_CONSTRAINT_GT,
		[7] = SQLITE_INDEX_CONSTRAINT_GE, [8] = SQLITE_INDEX_CONSTRAINT_LT,
		[9] = SQLITE_INDEX_CONSTRAINT_LE,
	};
	for (int k = 5; k <= 9; k++)
		if ((plan & (1 << k)) && !sql_ts_bound(ts_op[k], arg[k], &b.lo,
		    &b.hi))
			return SQLITE_OK;
	c->ts_lo = b.lo;
	c->ts_hi = b.hi;

	if (plan & P_NAME) {
		name_ranks(c, arg[4]);
		if (c->g0 == c->g1)
			return SQLITE_OK;
		/* the name index pays when the rows are few: not when the
		 * other bounds already narrow the scan to one track */
		if (!(plan & (P_PARENT | P_TRACK)) && sql_name_index(s)) {
			plan_blocks(c);
			c->mode = M_BLOCKS;
			blocks_next(c);
			return SQLITE_OK;
		}
		c->by_rank = true;
	}
	plan_spans(c, &b);
	if (plan & P_BY_NAME) {
		sql_name_order(s);
		plan_by_name(c);
		return SQLITE_OK;
	}
	if (c->by_rank)
		sql_name_order(s);
	c->si = 0;
	c->i = c->nspans ? c->spans[0].lo : 0;
	c->mode = M_SPANS;
	spans_next(c);
	return SQLITE_OK;
}

static int
next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	switch (c->mode) {
	case M_ONE: c->mode = M_EOF; break;
	case M_SPANS: spans_next(c); break;
	case M_BLOCKS: blocks_next(c); break;
	case M_BY_NAME: by_name_next(c); break;
	default: break;
	}
	return SQLITE_OK;
}

static int
eof(sqlite3_vtab_cursor *cur)
{
	return ((struct cursor *)cur)->mode == M_EOF;
}

static int64_t
row_id(const struct sql *s, const struct sql_row *r)
{
	if (r->level == NULL)
		return (int64_t)sql_instant_id(s, r->track, r->index);
	return (int64_t)sql_slice_id(s, r->track, r->depth, r->index);
}

/* The args run of a row, 0 if none. */
static args_id
row_args(const struct sql *s, const struct sql_row *r)
{
	const struct trace *t = s->t;
	if (r->level == NULL)
		return t->tracks[r->track].instants[r->index].args;
	if (!(r->level->slices[r->index].flags & SLICE_HAS_ARGS))
		return 0;
	size_t n;
	const struct arg *a = trace_slice_args(t, (struct slice_ref){
	    r->track, r->depth, (uint32_t)r->index }, &n);
	return a != NULL ? (args_id)(a - t->args - 1) : 0;
}

bool
sql_slice_parent(const struct sql *s, struct slice_ref ref,
    struct slice_ref *out)
{
	struct sql_row r;
	bool has;
	sql_row_at(s, ref, &r);
	if (r.level != NULL)
		return visible_parent(s, ref, out);
	instant_depth(s, &r, out, &has);
	if (has && !sql_func_on(s, trace_slice(s->t, *out)->func))
		has = visible_parent(s, *out, out);
	return has;
}

static void
result_str(sqlite3_context *ctx, const struct trace *t, str_id s, bool null0)
{
	if (s == 0 && null0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_text(ctx, trace_str(t, s), -1, SQLITE_STATIC);
}

void
sql_slice_result(const struct sql *s, const struct sql_row *r, int col,
    sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct track *tr;
	func_id f;
	/* the hot columns first, before anything else is looked up */
	if (col == S_DUR) {
		sqlite3_result_int64(ctx, slice_dur(r));
		return;
	}
	if (col == S_TS) {
		sqlite3_result_int64(ctx, row_ts(s, r));
		return;
	}
	tr = &t->tracks[r->track];
	f = row_func(s, r);
	switch (col) {
	case S_ID:
	case S_SLICE_ID:
		sqlite3_result_int64(ctx, row_id(s, r));
		break;
	case S_TS:
		sqlite3_result_int64(ctx, row_ts(s, r));
		break;
	case S_DUR:
		sqlite3_result_int64(ctx, slice_dur(r));
		break;
	case S_TRACK_ID:
		sqlite3_result_int64(ctx, r->track);
		break;
	case S_CATEGORY:
	case S_CAT:
		result_str(ctx, t, f < t->nfuncs ? t->funcs[f].category : 0,
		    true);
		break;
	case S_NAME:
		sqlite3_result_text(ctx, trace_func_name(t, f), -1,
		    SQLITE_STATIC);
		break;
	case S_DEPTH:
	case S_PARENT_ID: {
		struct slice_ref p;
		bool has;
		uint32_t depth;
		if (r->level == NULL) {
			depth = instant_depth(s, r, &p, &has);
			if (has && !sql_func_on(s, trace_slice(t, p)->func))
				has = visible_parent(s, p, &p);
		} else {
			depth = r->depth;
			has = visible_parent(s, (struct slice_ref){ r->track,
			    r->depth, (uint32_t)r->index }, &p);
		}
		if (col == S_DEPTH)
			sqlite3_result_int64(ctx, depth);
		else if (has)
			sqlite3_result_int64(ctx, sql_ref_id(s, p));
		else
			sqlite3_result_null(ctx);
		break;
	}
	case S_ARG_SET_ID: {
		args_id a = row_args(s, r);
		if (a != 0)
			sqlite3_result_int64(ctx, a);
		else
			sqlite3_result_null(ctx);
		break;
	}
	case S_FLAGS: {
		uint32_t fl;
		if (r->level != NULL) {
			fl = r->level->slices[r->index].flags;
			if (r->level->weights != NULL)
				fl |= SLICE_SAMPLED;
		} else {
			fl = SLICE_INSTANT | SQL_FLAG_TRACK_INSTANT;
			if (tr->instants[r->index].args != 0)
				fl |= SLICE_HAS_ARGS;
		}
		if (tr->kind == TRACK_ASYNC)
			fl |= SLICE_ASYNC;
		sqlite3_result_int64(ctx, fl);
		break;
	}
	case S_DUR_IN_TRACE:
		sqlite3_result_int64(ctx, row_dur(r));
		break;
	case S_INCOMPLETE:
		sqlite3_result_int(ctx, r->level != NULL &&
		    (r->level->slices[r->index].flags & SLICE_INEXACT) != 0);
		break;
	default:
		sqlite3_result_null(ctx);
		break;
	}
}

/* An integer or string arg of a row, by name. */
static const struct arg *
row_arg(const struct sql *s, const struct sql_row *r, const char *name)
{
	const struct trace *t = s->t;
	size_t n;
	const struct arg *a = trace_args(t, row_args(s, r), &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(trace_str(t, a[i].name), name) == 0)
			return &a[i];
	return NULL;
}

static void
sched_column(struct sql *s, const struct sql_row *r, int col,
    sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct track *tr = &t->tracks[r->track];
	func_id f = row_func(s, r);
	switch (col) {
	case C_ID:
		sqlite3_result_int64(ctx, row_id(s, r));
		break;
	case C_TS:
		sqlite3_result_int64(ctx, row_ts(s, r));
		break;
	case C_DUR:
		sqlite3_result_int64(ctx, row_dur(r));
		break;
	case C_TS_END:
		sqlite3_result_int64(ctx, row_ts(s, r) + row_dur(r));
		break;
	case C_CPU:
		sqlite3_result_int64(ctx, tr->tid);
		break;
	case C_UTID: {
		/* the thread that ran: the function's own id (CTF), or the
		 * slice's tid argument (FXT) */
		int64_t tid = f < t->nfuncs ? t->funcs[f].source_id : -1;
		const struct arg *a;
		if (tid < 0 && (a = row_arg(s, r, "tid")) != NULL &&
		    (a->type == ARG_I64 || a->type == ARG_U64 ||
		    a->type == ARG_KOID))
			tid = a->v.i;
		int64_t u = tid >= 0 ? sql_tid_utid(s, tid) : -1;
		if (u >= 0)
			sqlite3_result_int64(ctx, u);
		else
			sqlite3_result_null(ctx);
		break;
	}
	case C_END_STATE: {
		const struct arg *a = row_arg(s, r, "end_state");
		if (a != NULL && a->type == ARG_STR)
			result_str(ctx, t, a->v.s, false);
		else
			sqlite3_result_null(ctx);
		break;
	}
	case C_PRIORITY: {
		const struct arg *a = row_arg(s, r, "priority");
		if (a != NULL && (a->type == ARG_I64 || a->type == ARG_U64))
			sqlite3_result_int64(ctx, a->v.i);
		else
			sqlite3_result_null(ctx);
		break;
	}
	case C_NAME:
		sqlite3_result_text(ctx, trace_func_name(t, f), -1,
		    SQLITE_STATIC);
		break;
	case C_ARG_SET_ID: {
		args_id a = row_args(s, r);
		if (a != 0)
			sqlite3_result_int64(ctx, a);
		else
			sqlite3_result_null(ctx);
		break;
	}
	default:
		sqlite3_result_null(ctx);
		break;
	}
}

static int
column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct cursor *c = (struct cursor *)cur;
	if (c->kind == T_SLICE)
		sql_slice_result(c->s, &c->r, col, ctx);
	else
		sched_column(c->s, &c->r, col, ctx);
	return SQLITE_OK;
}

static int
rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	const struct cursor *c = (const struct cursor *)cur;
	*out = row_id(c->s, &c->r);
	return SQLITE_OK;
}

#define MODULE(connect_fn) {						\
	.iVersion = 1, .xCreate = NULL, .xConnect = connect_fn,		\
	.xBestIndex = best_index, .xDisconnect = disconnect,		\
	.xDestroy = disconnect, .xOpen = open_cursor,			\
	.xClose = close_cursor, .xFilter = filter, .xNext = next,	\
	.xEof = eof, .xColumn = column, .xRowid = rowid,		\
}

static const sqlite3_module slice_module = MODULE(slice_connect);
static const sqlite3_module sched_module = MODULE(sched_connect);

int
sql_slice_register(struct sql *s)
{
	int rc = sqlite3_create_module(s->db, "slice", &slice_module, s);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(s->db, "sched", &sched_module, s);
	return rc;
}
