/*
 * The aggregated call tree of a time window (see query.h): the model of
 * the flame pane and of the collapsed-stacks export.
 *
 * Stacks are walked with an explicit stack (traces can nest thousands of
 * frames deep). Nodes are found by (parent node, function) in a hash map.
 * With a focus filter, each walk reports how much of its subtree's time is
 * in focus, so ancestors of focused frames keep exactly that time.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "query.h"
#include "xalloc.h"

struct tree_builder {
	VEC(struct call_node) nodes;
	struct hashmap children;	/* (parent, func) -> node */
};

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
	size_t index;
	uint32_t node;
	size_t child;		/* next child index at depth + 1 */
	bool in_focus;
	ttv_ns clipped;
	ttv_ns focus_below;	/* focused time reported by children */
	ttv_ns child_clipped;	/* clipped time of visited children */
	uint64_t child_weight;
	bool has_focus_below;
};

struct walk {
	const struct trace *t;
	const struct filter *f;
	const struct track *tr;
	ttv_ns t0, t1;
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
	struct frame fr = {
		.depth = d, .index = i,
		.node = child_node(w->tb, parent, s->func, CALL_NONE),
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
	struct call_node *n = &w->tb->nodes.items[fr.node];
	ttv_ns focus = fr.in_focus ? fr.clipped : fr.focus_below;
	bool counted = fr.in_focus || fr.has_focus_below;
	if (counted) {
		n->count++;
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
			ttv_ns end = level_end(&tr->depth[fr->depth], fr->index);
			uint32_t cd = fr->depth + 1;
			if (cd < tr->ndepth) {
				const struct depth_level *cl = &tr->depth[cd];
				size_t c = fr->child;
				while (c < cl->len && cl->slices[c].start < end &&
				    clip(cl, c, w->t0, w->t1) == 0 &&
				    !(cl->slices[c].dur32 == 0 &&
				    cl->slices[c].start >= w->t0 &&
				    cl->slices[c].start < w->t1))
					c++;	/* outside the window */
				if (c < cl->len && cl->slices[c].start < end) {
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
		if (x->func == CALL_NONE || y->func == CALL_NONE)
			return x->func < y->func ? -1 : 1;
		int c = strcmp(trace_func_name(ctx->t, x->func),
		    trace_func_name(ctx->t, y->func));
		if (c != 0)
			return c;
		return x->func < y->func ? -1 : 1;
	}
	return x->track < y->track ? -1 : x->track > y->track;
}

void
query_call_tree(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, bool per_thread, struct call_tree *out)
{
	struct tree_builder tb = { 0 };
	struct call_node root = {
		.func = CALL_NONE, .track = CALL_NONE, .parent = CALL_NONE,
		.first_child = CALL_NONE, .next_sibling = CALL_NONE,
	};
	VEC_PUSH(&tb.nodes, root);
	struct walk w = { .t = t, .f = f, .t0 = t0, .t1 = t1, .tb = &tb };
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		if (!filter_track(f, ti) || t->tracks[ti].nslices == 0 ||
		    t->tracks[ti].kind == TRACK_CPU)
			continue;
		w.tr = &t->tracks[ti];
		uint32_t top = per_thread ? child_node(&tb, 0, CALL_NONE, ti) : 0;
		walk_track(&w, top);
	}
	VEC_FREE(&w.stack);
	hashmap_free(&tb.children);

	/* The root and thread nodes hold the sums of their stacks. */
	struct call_node *nodes = tb.nodes.items;
	size_t n = tb.nodes.len;
	for (size_t i = 1; i < n; i++) {
		struct call_node *p = &nodes[nodes[i].parent];
		if (nodes[i].func != CALL_NONE && p->func == CALL_NONE) {
			p->total += nodes[i].total;
			p->weight += nodes[i].weight;
			p->count += nodes[i].count;
		}
	}
	for (size_t i = 1; i < n; i++)
		if (nodes[i].func == CALL_NONE) {
			nodes[0].total += nodes[i].total;
			nodes[0].weight += nodes[i].weight;
			nodes[0].count += nodes[i].count;
		}

	/* Drop what a focus filter left empty; parents come before their
	 * children in the array, so one pass back marks the kept parents. */
	uint8_t *keep = xcalloc(n, 1);
	keep[0] = 1;
	for (size_t i = n; i-- > 1;)
		if (keep[i] || (nodes[i].func != CALL_NONE &&
		    nodes[i].count > 0)) {
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
	out->nodes = nodes;
	out->n = n;
}

void
call_tree_free(struct call_tree *ct)
{
	free(ct->nodes);
	ct->nodes = NULL;
	ct->n = 0;
}
