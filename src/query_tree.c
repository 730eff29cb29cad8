/*
 * The aggregated call tree of a time window (see query.h): the model of
 * the flame pane, the --tree mode and the collapsed-stacks export.
 *
 * Without a focus filter the tree is built depth by depth: a slice's node
 * is its parent slice's node's child for its function, and the parent is
 * found by walking the level above beside the slice's own. Each thread
 * does chunks of whole outermost calls (chunks.h) into a tree of its own;
 * the trees are merged, then every node's self time is its total minus
 * its children's.
 *
 * With a focus filter stacks are walked frame by frame with an explicit
 * stack (traces can nest thousands of frames deep), and each walk reports
 * how much of its subtree's time is in focus, so ancestors of focused
 * frames keep exactly that time.
 *
 * Folded (query_call_tree_folded), a call at the depth limit gets the
 * CALL_FOLDED node of its caller's, and every call inside it that same
 * node: it counts them all, and the time of the outermost.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "chunks.h"
#include "hashmap.h"
#include "query.h"
#include "xalloc.h"

struct tree_builder {
	VEC(struct call_node) nodes;
	struct hashmap children;	/* (parent, func) -> node */
};

/* The node for func under parent: a function, a thread node (CALL_NONE
 * and its track) or the folded node (CALL_FOLDED, track its depth). */
static uint32_t
child_node(struct tree_builder *tb, uint32_t parent, func_id func,
    uint32_t track)
{
	uint32_t n;
	uint64_t k2 = func == CALL_NONE ? (uint64_t)1 << 40 | track : func;
	if (hashmap_get(&tb->children, parent, k2, &n))
		return n;
	n = (uint32_t)tb->nodes.len;
	struct call_node node = {
		.func = func, .track = track, .parent = parent,
		.first_child = CALL_NONE, .next_sibling = CALL_NONE,
		.depth = tb->nodes.items[parent].depth + 1,
	};
	VEC_PUSH(&tb->nodes, node);
	hashmap_put(&tb->children, parent, k2, n);
	return n;
}

/* A call in its node: among the calls, or apart when it never returned
 * (query_calls.h); its time is the node's either way. */
static inline void
count_call(struct call_node *n, bool returned)
{
	if (returned)
		n->count++;
	else
		n->unfinished++;
}

static ttv_ns
clip(const struct depth_level *l, size_t i, ttv_ns t0, ttv_ns t1)
{
	const struct slice *s = &l->slices[i];
	ttv_ns a = s->start > t0 ? s->start : t0;
	ttv_ns e = level_end(l, i);
	ttv_ns b = e < t1 ? e : t1;
	return b > a ? b - a : 0;
}

struct frame {
	uint32_t depth;
	uint32_t node;
	size_t index;
	size_t child;		/* next child index at depth + 1 */
	ttv_ns clipped;
	ttv_ns focus_below;	/* focused time reported by children */
	ttv_ns child_clipped;	/* clipped time of visited children */
	uint64_t child_weight;
	/* last, packed: a frame a level, and stacks go 10^6 deep */
	bool in_focus;
	bool has_focus_below;
	uint8_t fold;		/* FOLD_TOP, FOLD_INSIDE, or 0 */
};

enum { FOLD_TOP = 1, FOLD_INSIDE = 2 };

struct walk {
	const struct trace *t;
	const struct filter *f;
	const struct track *tr;
	ttv_ns t0, t1;
	uint32_t base;		/* the node depth of level 0, less one */
	uint32_t fold;		/* the node depth calls fold at */
	struct tree_builder *tb;
	VEC(struct frame) stack;
};

/* Opens a frame for slice (d, i) under node `parent`; false if hidden. */
static bool
open_frame(struct walk *w, uint32_t parent, uint32_t d, size_t i,
    bool parent_focus)
{
	const struct depth_level *l = &w->tr->depth[d];
	const struct slice *s = &l->slices[i];
	bool on = filter_func(w->f, s->func);
	if (w->f != NULL && w->f->hide_functions && !on)
		return false;
	uint32_t nd = d + 1 + w->base, node = parent;
	uint8_t fold = 0;
	if (nd < w->fold) {
		node = child_node(w->tb, parent, s->func, CALL_NONE);
	} else if (nd == w->fold) {
		node = child_node(w->tb, parent, CALL_FOLDED, nd);
		fold = FOLD_TOP;
	} else {
		/* inside a folded call: its node, one level deeper */
		struct call_node *c = &w->tb->nodes.items[node];
		if (nd > c->track)
			c->track = nd;
		fold = FOLD_INSIDE;
	}
	struct frame fr = {
		.depth = d, .index = i, .node = node, .fold = fold,
		.in_focus = parent_focus || on,
		.clipped = clip(l, i, w->t0, w->t1),
	};
	if (d + 1 < w->tr->ndepth) {
		const struct depth_level *cl = &w->tr->depth[d + 1];
		fr.child = level_first_start(cl, s->start);
	}
	VEC_PUSH(&w->stack, fr);
	return true;
}

/* Closes the top frame and reports to its parent frame. */
static void
close_frame(struct walk *w)
{
	struct frame fr = w->stack.items[--w->stack.len];
	const struct depth_level *l = &w->tr->depth[fr.depth];
	uint32_t weight = l->weights ? l->weights[fr.index] : 1;
	bool returned = (l->slices[fr.index].flags & SLICE_INEXACT) == 0;
	struct call_node *n = &w->tb->nodes.items[fr.node];
	ttv_ns focus = fr.in_focus ? fr.clipped : fr.focus_below;
	bool counted = fr.in_focus || fr.has_focus_below;
	if (counted && fr.fold == FOLD_INSIDE) {
		/* the outermost folded call holds its time */
		count_call(n, returned);
	} else if (counted && fr.fold == FOLD_TOP) {
		/* all of it is self time: nothing below is a node */
		count_call(n, returned);
		n->total += focus;
		n->self += focus;
		n->weight += weight;
		n->self_weight += weight;
	} else if (counted) {
		count_call(n, returned);
		n->total += focus;
		n->weight += weight;
		if (fr.in_focus) {
			n->self += fr.clipped > fr.child_clipped ?
			    fr.clipped - fr.child_clipped : 0;
			n->self_weight += weight > fr.child_weight ?
			    weight - fr.child_weight : 0;
		}
	}
	if (w->stack.len > 0) {
		struct frame *p = &w->stack.items[w->stack.len - 1];
		p->child_clipped += fr.clipped;
		p->focus_below += focus;
		p->has_focus_below |= counted;
		p->child_weight += weight;
	}
}

static void
walk_track(struct walk *w, uint32_t root)
{
	const struct track *tr = w->tr;
	if (tr->ndepth == 0)
		return;
	size_t lo, hi;
	query_window(tr, 0, w->t0, w->t1, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		if (!open_frame(w, root, 0, i, false))
			continue;
		while (w->stack.len > 0) {
			struct frame *fr = &w->stack.items[w->stack.len - 1];
			const struct depth_level *fl = &tr->depth[fr->depth];
			uint32_t cd = fr->depth + 1;
			if (cd < tr->ndepth) {
				const struct depth_level *cl = &tr->depth[cd];
				size_t c = fr->child;
				while (c < cl->len &&
				    level_holds(fl, fr->index,
				    cl->slices[c].start) &&
				    clip(cl, c, w->t0, w->t1) == 0 &&
				    !(cl->slices[c].dur32 == 0 &&
				    cl->slices[c].start >= w->t0 &&
				    cl->slices[c].start < w->t1))
					c++;	/* outside the window */
				if (c < cl->len && level_holds(fl, fr->index,
				    cl->slices[c].start)) {
					fr->child = c + 1;
					uint32_t node = fr->node;
					bool focus = fr->in_focus;
					open_frame(w, node, cd, c, focus);
					continue;
				}
			}
			close_frame(w);
		}
	}
}

/* ------------------------------------------------------- depth by depth */

#define CHUNK_SLICES ((size_t)1 << 18)
#define WORKERS_MAX 8

/* (parent node, function) -> node, open addressing: the hot lookup, one
 * a slice; the table stays small (one entry a node) and in cache. */
struct node_table {
	uint64_t *keys;		/* parent << 32 | func, UINT64_MAX: empty */
	uint32_t *vals;
	uint32_t cap, n;	/* cap a power of two */
};

static inline uint32_t
table_slot(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static void
table_grow(struct node_table *nt)
{
	uint32_t cap = nt->cap ? nt->cap * 2 : 256;
	uint64_t *keys = xmalloc(cap * sizeof *keys);
	uint32_t *vals = xmalloc(cap * sizeof *vals);
	for (uint32_t i = 0; i < cap; i++)
		keys[i] = UINT64_MAX;
	for (uint32_t i = 0; i < nt->cap; i++) {
		if (nt->keys[i] == UINT64_MAX)
			continue;
		uint32_t j = table_slot(nt->keys[i], cap);
		while (keys[j] != UINT64_MAX)
			j = (j + 1) & (cap - 1);
		keys[j] = nt->keys[i];
		vals[j] = nt->vals[i];
	}
	free(nt->keys);
	free(nt->vals);
	nt->keys = keys;
	nt->vals = vals;
	nt->cap = cap;
}

struct u32_vec {
	uint32_t *items;
	size_t len, cap;
};

struct level_tree {
	VEC(struct call_node) nodes;
	struct node_table table;
	struct u32_vec above, here;	/* nodes of the slices of two levels */
};

/* The node for func under parent (func may be a track's thread node:
 * THREAD_KEY | track, or the folded node, FOLD_KEY). */
#define THREAD_KEY ((uint64_t)1 << 31)
#define FOLD_KEY ((uint64_t)1 << 30)

static uint32_t
level_node(struct level_tree *lt, uint32_t parent, uint64_t k)
{
	struct node_table *nt = &lt->table;
	uint64_t key = (uint64_t)parent << 32 | k;
	if (nt->cap > 0) {
		uint32_t j = table_slot(key, nt->cap);
		for (; nt->keys[j] != UINT64_MAX; j = (j + 1) & (nt->cap - 1))
			if (nt->keys[j] == key)
				return nt->vals[j];
	}
	if ((nt->n + 1) * 2 > nt->cap)
		table_grow(nt);
	uint32_t j = table_slot(key, nt->cap);
	while (nt->keys[j] != UINT64_MAX)
		j = (j + 1) & (nt->cap - 1);
	uint32_t n = (uint32_t)lt->nodes.len;
	nt->keys[j] = key;
	nt->vals[j] = n;
	nt->n++;
	bool thread = k & THREAD_KEY;
	uint32_t depth = lt->nodes.items[parent].depth + 1;
	struct call_node node = {
		.func = thread ? CALL_NONE : k == FOLD_KEY ? CALL_FOLDED :
		    (func_id)k,
		.track = thread ? (uint32_t)(k & ~THREAD_KEY) : k == FOLD_KEY ?
		    depth : CALL_NONE,
		.parent = parent,
		.first_child = CALL_NONE, .next_sibling = CALL_NONE,
		.depth = depth,
	};
	VEC_PUSH(&lt->nodes, node);
	return n;
}

static void
level_tree_init(struct level_tree *lt)
{
	memset(lt, 0, sizeof *lt);
	struct call_node root = {
		.func = CALL_NONE, .track = CALL_NONE, .parent = CALL_NONE,
		.first_child = CALL_NONE, .next_sibling = CALL_NONE,
	};
	VEC_PUSH(&lt->nodes, root);
}

static void
level_tree_free(struct level_tree *lt)
{
	VEC_FREE(&lt->nodes);
	VEC_FREE(&lt->above);
	VEC_FREE(&lt->here);
	free(lt->table.keys);
	free(lt->table.vals);
}

struct level_walk {
	const struct trace *t;
	const struct filter *f;
	ttv_ns t0, t1;
	bool per_thread;
	uint32_t fold;		/* the node depth calls fold at */
	const struct chunk_set *cs;
	struct level_tree w[WORKERS_MAX];
};

static void
level_chunk(int worker, void *arg, size_t ci)
{
	struct level_walk *lw = arg;
	const struct trace *t = lw->t;
	const struct filter *f = lw->f;
	const struct chunk *ch = &lw->cs->c[ci];
	const struct track *tr = &t->tracks[ch->track];
	struct level_tree *lt = &lw->w[worker];
	bool hide = f != NULL && f->hide_functions && f->func_on != NULL;
	uint32_t top = lw->per_thread ?
	    level_node(lt, 0, THREAD_KEY | ch->track) : 0;
	size_t plo = 0, phi = 0;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		uint32_t nd = d + 1 + (lw->per_thread ? 1 : 0);
		size_t lo, hi;
		chunk_level(t, ch, d, lw->t0, lw->t1, &lo, &hi);
		if (lo >= hi)
			break;	/* nothing deeper either */
		const struct depth_level *l = &tr->depth[d];
		const struct depth_level *pl = d > 0 ? &tr->depth[d - 1] : NULL;
		lt->here.len = 0;
		VEC_RESERVE(&lt->here, hi - lo);
		uint32_t *here = lt->here.items;
		const uint32_t *above = lt->above.items;
		size_t p = plo;
		for (size_t i = lo; i < hi; i++) {
			const struct slice *s = &l->slices[i];
			uint32_t parent = top;
			if (pl != NULL) {
				/* the last slice above starting at or before
				 * this one holds it, if it is long enough */
				while (p + 1 < phi &&
				    pl->slices[p + 1].start <= s->start)
					p++;
				if (p >= phi || !level_holds(pl, p, s->start))
					parent = CALL_NONE;
				else
					parent = above[p - plo];
			}
			if (parent == CALL_NONE ||
			    (hide && !f->func_on[s->func])) {
				/* a hidden frame goes with all it called:
				 * its time stays its caller's */
				here[i - lo] = CALL_NONE;
				continue;
			}
			bool returned = (s->flags & SLICE_INEXACT) == 0;
			if (nd > lw->fold) {
				/* inside a folded call: counted there */
				struct call_node *c = &lt->nodes.items[parent];
				count_call(c, returned);
				if (nd > c->track)
					c->track = nd;
				here[i - lo] = parent;
				continue;
			}
			uint32_t n = level_node(lt, parent, nd == lw->fold ?
			    FOLD_KEY : s->func);
			struct call_node *c = &lt->nodes.items[n];
			count_call(c, returned);
			c->total += level_clip(l, i, lw->t0, lw->t1);
			c->weight += l->weights ? l->weights[i] : 1;
			here[i - lo] = n;
		}
		lt->here.len = hi - lo;
		/* this level is the next one's "above" */
		struct u32_vec tmp = lt->above;
		lt->above = lt->here;
		lt->here = tmp;
		plo = lo;
		phi = hi;
	}
}

/* Adds worker tree `from` into `to` (nodes come after their parents). */
static void
merge_tree(struct level_tree *to, const struct level_tree *from)
{
	size_t n = from->nodes.len;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof *map);
	map[0] = 0;
	for (size_t i = 1; i < n; i++) {
		const struct call_node *c = &from->nodes.items[i];
		uint64_t k = c->func == CALL_NONE ? THREAD_KEY | c->track :
		    c->func == CALL_FOLDED ? FOLD_KEY : c->func;
		uint32_t m = level_node(to, map[c->parent], k);
		map[i] = m;
		struct call_node *d = &to->nodes.items[m];
		d->count += c->count;
		d->unfinished += c->unfinished;
		d->total += c->total;
		d->weight += c->weight;
		if (c->func == CALL_FOLDED && c->track > d->track)
			d->track = c->track;
	}
	free(map);
}

/* The tree without a focus filter, self times included, into tb. */
static void
level_tree_build(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, bool per_thread, uint32_t fold, struct tree_builder *tb)
{
	struct chunk_set cs;
	chunks_plan(t, f, t0, t1, CHUNK_SLICES, &cs);
	int nw = chunks_threads(cs.slices);
	if (nw > WORKERS_MAX)
		nw = WORKERS_MAX;
	struct level_walk *lw = xcalloc(1, sizeof *lw);
	*lw = (struct level_walk){ .t = t, .f = f, .t0 = t0, .t1 = t1,
	    .per_thread = per_thread, .fold = fold, .cs = &cs };
	for (int i = 0; i < nw; i++)
		level_tree_init(&lw->w[i]);
	chunks_run(&cs, nw, level_chunk, lw);
	struct level_tree *all = &lw->w[0];
	for (int i = 1; i < nw; i++) {
		merge_tree(all, &lw->w[i]);
		level_tree_free(&lw->w[i]);
	}
	chunks_free(&cs);
	/* self: what the children do not cover */
	struct call_node *nodes = all->nodes.items;
	size_t n = all->nodes.len;
	ttv_ns *child = xcalloc(n ? n : 1, sizeof *child);
	uint64_t *cw = xcalloc(n ? n : 1, sizeof *cw);
	for (size_t i = 1; i < n; i++) {
		child[nodes[i].parent] += nodes[i].total;
		cw[nodes[i].parent] += nodes[i].weight;
	}
	for (size_t i = 1; i < n; i++) {
		if (nodes[i].func == CALL_NONE)
			continue;
		nodes[i].self = nodes[i].total > child[i] ?
		    nodes[i].total - child[i] : 0;
		nodes[i].self_weight = nodes[i].weight > cw[i] ?
		    nodes[i].weight - cw[i] : 0;
	}
	free(child);
	free(cw);
	tb->nodes.items = all->nodes.items;
	tb->nodes.len = all->nodes.len;
	tb->nodes.cap = all->nodes.cap;
	all->nodes.items = NULL;
	all->nodes.len = all->nodes.cap = 0;
	level_tree_free(all);
	free(lw);
}

struct sort_ctx {
	const struct trace *t;
	const struct call_node *nodes;
};

static int
cmp_children(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct call_node *x = &ctx->nodes[*(const uint32_t *)a];
	const struct call_node *y = &ctx->nodes[*(const uint32_t *)b];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	/* Equal times by name: function ids follow the order a reader met
	 * the functions, which parallel readers do not fix. */
	if (x->func != y->func) {
		if (x->func >= CALL_FOLDED || y->func >= CALL_FOLDED)
			return x->func < y->func ? -1 : 1;
		int c = strcmp(trace_func_name(ctx->t, x->func),
		    trace_func_name(ctx->t, y->func));
		if (c != 0)
			return c;
		return x->func < y->func ? -1 : 1;
	}
	return x->track < y->track ? -1 : x->track > y->track;
}

/* The nodes in depth-first order (parents before children, siblings in
 * their order): threads may have made them in any order. */
static struct call_node *
renumber(struct call_node *nodes, size_t n)
{
	if (n < 2)
		return nodes;
	uint32_t *to = xmalloc(n * sizeof *to);
	uint32_t *stack = xmalloc(n * sizeof *stack);
	size_t sp = 0, k = 0;
	stack[sp++] = 0;
	while (sp > 0) {
		uint32_t i = stack[--sp];
		to[i] = (uint32_t)k++;
		if (nodes[i].next_sibling != CALL_NONE && i != 0)
			stack[sp++] = nodes[i].next_sibling;
		if (nodes[i].first_child != CALL_NONE)
			stack[sp++] = nodes[i].first_child;
	}
	struct call_node *out = xmalloc(n * sizeof *out);
	for (size_t i = 0; i < n; i++) {
		struct call_node c = nodes[i];
#define MAP(x) ((x) == CALL_NONE ? CALL_NONE : to[x])
		c.parent = MAP(c.parent);
		c.first_child = MAP(c.first_child);
		c.next_sibling = MAP(c.next_sibling);
#undef MAP
		out[to[i]] = c;
	}
	free(to);
	free(stack);
	free(nodes);
	return out;
}

void
query_call_tree(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, bool per_thread, struct call_tree *out)
{
	query_call_tree_folded(t, f, t0, t1, per_thread, UINT32_MAX, out);
}

void
query_call_tree_folded(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, bool per_thread, uint32_t max_depth,
    struct call_tree *out)
{
	/* calls fold at max_depth, never above the first level of calls */
	uint32_t base = per_thread ? 1 : 0;
	uint32_t fold = max_depth > base + 1 ? max_depth : base + 1;
	struct tree_builder tb = { 0 };
	struct call_node root = {
		.func = CALL_NONE, .track = CALL_NONE, .parent = CALL_NONE,
		.first_child = CALL_NONE, .next_sibling = CALL_NONE,
	};
	bool focus = f != NULL && f->func_on != NULL && !f->hide_functions;
	if (!focus) {
		level_tree_build(t, f, t0, t1, per_thread, fold, &tb);
	} else {
		VEC_PUSH(&tb.nodes, root);
		struct walk w = { .t = t, .f = f, .t0 = t0, .t1 = t1,
		    .base = base, .fold = fold, .tb = &tb };
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			if (!filter_track(f, ti) || t->tracks[ti].nslices == 0 ||
			    t->tracks[ti].kind == TRACK_CPU)
				continue;
			w.tr = &t->tracks[ti];
			uint32_t top = per_thread ? child_node(&tb, 0, CALL_NONE,
			    ti) : 0;
			walk_track(&w, top);
		}
		VEC_FREE(&w.stack);
		hashmap_free(&tb.children);
	}

	/* The root and thread nodes hold the sums of their stacks. */
	struct call_node *nodes = tb.nodes.items;
	size_t n = tb.nodes.len;
	for (size_t i = 1; i < n; i++) {
		struct call_node *p = &nodes[nodes[i].parent];
		if (nodes[i].func != CALL_NONE && p->func == CALL_NONE) {
			p->total += nodes[i].total;
			p->weight += nodes[i].weight;
			p->count += nodes[i].count;
			p->unfinished += nodes[i].unfinished;
		}
	}
	for (size_t i = 1; i < n; i++)
		if (nodes[i].func == CALL_NONE) {
			nodes[0].total += nodes[i].total;
			nodes[0].weight += nodes[i].weight;
			nodes[0].count += nodes[i].count;
			nodes[0].unfinished += nodes[i].unfinished;
		}

	/* Drop what a focus filter left empty; parents come before their
	 * children in the array, so one pass back marks the kept parents. */
	uint8_t *keep = xcalloc(n, 1);
	keep[0] = 1;
	for (size_t i = n; i-- > 1;)
		if (keep[i] || (nodes[i].func != CALL_NONE &&
		    (nodes[i].count > 0 || nodes[i].unfinished > 0))) {
			keep[i] = 1;
			keep[nodes[i].parent] = 1;
		}
	uint32_t *map = xmalloc(n * sizeof *map);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		map[i] = keep[i] ? (uint32_t)m : CALL_NONE;
		if (!keep[i])
			continue;
		nodes[m] = nodes[i];
		if (nodes[m].parent != CALL_NONE)
			nodes[m].parent = map[nodes[m].parent];
		m++;
	}
	free(map);
	free(keep);
	n = m;

	uint32_t *order = xmalloc((n ? n : 1) * sizeof *order);
	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		nodes[i].first_child = nodes[i].next_sibling = CALL_NONE;
	}
	if (n > 2)
		qsort_r(order + 1, n - 1, sizeof *order, cmp_children,
		    &(struct sort_ctx){ t, nodes });
	for (size_t k = n; k-- > 1;) {
		struct call_node *c = &nodes[order[k]];
		struct call_node *p = &nodes[c->parent];
		c->next_sibling = p->first_child;
		p->first_child = order[k];
	}
	free(order);
	out->nodes = renumber(nodes, n);
	out->n = n;
}

void
call_tree_free(struct call_tree *ct)
{
	free(ct->nodes);
	ct->nodes = NULL;
	ct->n = 0;
}

uint64_t
call_tree_unfinished(const struct call_tree *ct)
{
	uint64_t n = 0;
	/* thread and root nodes repeat their stacks' outermost calls */
	for (size_t i = 1; i < ct->n; i++)
		if (ct->nodes[i].func != CALL_NONE)
			n += ct->nodes[i].unfinished;
	return n;
}
