/*
 * The flame pane: the call tree of the span (the range, or else the
 * visible window) and the filters (view->tree, shared with the call tree
 * pane) as a flame graph (root at the bottom) or an icicle (root on top),
 * widths in proportion to total time, labelled with name and share of the
 * total.
 * A node can be zoomed into (it then spans the width) and back out;
 * threads can be merged or kept apart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "tree_path.h"
#include "xalloc.h"

/* The pane's own state over the view's call tree (view->tree, shared with
 * the call tree pane): the graph's zoomed and selected nodes, its
 * orientation and where the last draw put each node. */
/* The zoomed and selected nodes of an older read's tree, by path (ttv
 * --follow): where the pane's first tree is shown from. */
struct flame_carry {
	struct pane_carry base;
	struct tree_path *root, *sel;
	bool icicle;
};

struct flame_pane {
	struct pane base;
	uint64_t gen;		/* the view->tree_gen fv's nodes are of */
	struct flame_view fv;
	struct flame_carry *carried;	/* until the pane is used, or NULL */
	bool applied;		/* to this tree */
};

static void
carry_free(struct pane_carry *pc)
{
	struct flame_carry *c = (struct flame_carry *)pc;

	tree_path_free(c->root);
	tree_path_free(c->sel);
	free(c);
}

static struct pane *
flame_create(struct view *v)
{
	struct flame_pane *fl = xcalloc(1, sizeof *fl);

	fl->gen = v->tree_gen;
	return &fl->base;
}

static void
flame_free(struct pane *p)
{
	struct flame_pane *fl = (struct flame_pane *)p;

	flamegraph_free(&fl->fv);
	if (fl->carried != NULL)
		carry_free(&fl->carried->base);
	free(fl);
}

/* The pane's state for the view's tree: a new tree has its nodes
 * numbered anew. */
static struct flame_pane *
flame_sync(struct pane *p, struct view *v)
{
	struct flame_pane *fl = (struct flame_pane *)p;

	if (fl->gen != v->tree_gen) {
		fl->gen = v->tree_gen;
		fl->fv.root = fl->fv.sel = 0;
		fl->applied = false;
	}
	if (fl->carried != NULL && v->tree_valid && !fl->applied) {
		/* the older read's zoom, where its nodes still are: on each
		 * tree of this read (the window it is carried to comes
		 * after the first) until the pane is used */
		uint32_t root = tree_path_find(v, fl->carried->root);
		uint32_t sel = tree_path_find(v, fl->carried->sel);
		fl->fv.root = root != CALL_NONE ? root : 0;
		fl->fv.sel = sel != CALL_NONE ? sel : fl->fv.root;
		fl->applied = true;
	}
	return fl;
}

/* The user moved in the pane: what was carried is theirs no more. */
static void
drop_carried(struct flame_pane *fl)
{
	if (fl->carried != NULL)
		carry_free(&fl->carried->base);
	fl->carried = NULL;
}

void
flame_pane_set_icicle(struct view *v, bool icicle)
{
	flame_sync(v->panes[PANE_FLAME], v)->fv.icicle = icicle;
}

static void
refresh(struct view *v)
{
	if (!v->tree_valid)
		view_tree_request(v);
}

static ttv_ns
node_total(const struct view *v, uint32_t n)
{
	const struct call_node *nd = &v->tree.nodes[n];
	ttv_ns sum = 0;

	if (nd->total > 0 || nd->first_child == CALL_NONE)
		return nd->total;
	/* The root and thread nodes may leave total to their children. */
	for (uint32_t c = nd->first_child; c != CALL_NONE;
	    c = v->tree.nodes[c].next_sibling)
		sum += node_total(v, c);
	return sum;
}

/* What a node's width stands for: samples in a sampled trace (so sampled
 * time shows even where slices are short), else time. */
static int64_t
node_size(const struct view *v, uint32_t n)
{
	const struct call_node *nd = &v->tree.nodes[n];
	int64_t sum = 0;

	if (!v->sampled)
		return node_total(v, n);
	if (nd->weight > 0 || nd->first_child == CALL_NONE)
		return (int64_t)nd->weight;
	for (uint32_t c = nd->first_child; c != CALL_NONE;
	    c = v->tree.nodes[c].next_sibling)
		sum += node_size(v, c);
	return sum;
}

static const char *
node_name(const struct view *v, uint32_t n, char *buf, size_t size)
{
	const struct call_node *nd = &v->tree.nodes[n];

	if (nd->func != CALL_NONE)
		return trace_func_name(v->trace, nd->func);
	if (nd->track != CALL_NONE && nd->track < v->trace->ntracks)
		return track_label(v->trace, &v->trace->tracks[nd->track], buf,
		    size);
	return "all";
}

/* The view's call tree as the flame graph reads it. */
static uint32_t
src_first_child(const void *arg, uint32_t n)
{
	return ((const struct view *)arg)->tree.nodes[n].first_child;
}

static uint32_t
src_next_sibling(const void *arg, uint32_t n)
{
	return ((const struct view *)arg)->tree.nodes[n].next_sibling;
}

static uint32_t
src_parent(const void *arg, uint32_t n)
{
	return ((const struct view *)arg)->tree.nodes[n].parent;
}

static int64_t
src_size(const void *arg, uint32_t n)
{
	return node_size(arg, n);
}

static const char *
src_name(const void *arg, uint32_t n, char *buf, size_t size)
{
	return node_name(arg, n, buf, size);
}

/* The node's share of the whole. */
static void
src_after(const void *arg, uint32_t n, int64_t grand, char *buf,
    size_t size)
{
	if (grand > 0)
		snprintf(buf, size, " %.1f%%", 100.0 *
		    (double)node_size(arg, n) / (double)grand);
}

static int
src_style(const void *arg, uint32_t n)
{
	const struct view *v = arg;
	const struct call_node *nd = &v->tree.nodes[n];

	if (nd->func != CALL_NONE && view_func_matches(v, nd->func))
		return STYLE_MATCH;
	if (nd->func == CALL_NONE)
		return STYLE_HEADER;
	return STYLE_SLICE0 + view_func_hue(nd->func);
}

static struct flame_src
tree_src(const struct view *v)
{
	return (struct flame_src){ v, src_first_child, src_next_sibling,
	    src_parent, src_size, src_name, src_after, src_style };
}

static void
flame_draw(struct pane *p, struct view *v, struct grid *g, struct rect r)
{
	struct flame_pane *fl = flame_sync(p, v);
	struct flame_src src = tree_src(v);
	uint32_t sel = fl->fv.sel;
	char buf[256], sp[96], b2[48], b3[48], nb[64];

	refresh(v);
	snprintf(buf, sizeof buf, "%s%s, %s, %s; z/u zoom, I flip, "
	    "p threads", fl->fv.icicle ? "icicle" : "flame graph",
	    v->sampled ? " by samples" : "",
	    v->flame_per_thread ? "per thread" : "threads merged",
	    view_span_text(v, sp, sizeof sp));
	pane_title(g, r, "Flame", buf);
	if (!v->tree_valid) {
		grid_puts(g, r.x, r.y + 1, r.w, "computing the call tree of "
		    "this window...", STYLE_DIM, 0);
		return;
	}
	if (v->tree.n == 0 || node_size(v, 0) <= 0) {
		grid_puts(g, r.x, r.y + 1, r.w, "no calls in this window",
		    STYLE_DIM, 0);
		return;
	}
	flamegraph_draw(&src, &fl->fv, g, (struct rect){ r.x, r.y + 2, r.w,
	    r.h - 2 }, node_size(v, 0));
	if (sel < v->tree.n) {
		/* The selected node, on its own line under the title. */
		const struct call_node *s = &v->tree.nodes[sel];
		int c = text_puts_mid(g, r.x, r.y + 1, r.w, node_name(v,
		    sel, nb, sizeof nb), STYLE_SELECTED, 0);
		char un[48] = "";
		if (s->unfinished > 0)
			snprintf(un, sizeof un, " +%llu unfinished",
			    (unsigned long long)s->unfinished);
		snprintf(buf, sizeof buf, ": %llu call%s%s, total %s, self %s",
		    (unsigned long long)s->count, s->count == 1 ? "" : "s", un,
		    timefmt_duration(node_total(v, sel), b2, sizeof b2),
		    timefmt_duration(s->self, b3, sizeof b3));
		if (v->sampled) {
			size_t n = strlen(buf);
			uint64_t ns = (uint64_t)node_size(v, sel);
			snprintf(buf + n, sizeof buf - n, ", %llu sample%s",
			    (unsigned long long)ns, ns == 1 ? "" : "s");
		}
		grid_puts(g, r.x + c, r.y + 1, r.w - c, buf, STYLE_DIM, 0);
	}
}

static int
flame_command(struct pane *p, struct view *v, enum cmd c)
{
	struct flame_pane *fl = flame_sync(p, v);
	struct flame_src src = tree_src(v);

	refresh(v);
	if (!v->tree_valid || v->tree.n == 0)
		return c >= CMD_FLAME_LEFT && c <= CMD_FLAME_THREADS ?
		    PANE_HANDLED : PANE_UNHANDLED;
	if (c == CMD_FLAME_THREADS) {
		v->flame_per_thread = !v->flame_per_thread;
		view_data_changed(v);
		return PANE_REDRAW;
	}
	int r = flamegraph_command(&src, &fl->fv, c);
	if (r != PANE_UNHANDLED)
		drop_carried(fl);
	return r;
}

/* Click: select the node under the pointer; on the selected one, zoom. */
static int
flame_mouse(struct pane *p, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct flame_pane *fl = flame_sync(p, v);
	uint32_t n;

	(void)r;
	if (b != MOUSE_CLICK || !v->tree_valid)
		return PANE_HANDLED;
	n = flamegraph_hit(&fl->fv, x, y);
	if (n == FLAME_NONE || n >= v->tree.n)
		return PANE_HANDLED;
	if (n == fl->fv.sel)
		fl->fv.root = n;
	fl->fv.sel = n;
	drop_carried(fl);
	return PANE_REDRAW;
}

static func_id
flame_selected(struct pane *p, struct view *v)
{
	struct flame_pane *fl = flame_sync(p, v);

	return v->tree_valid && fl->fv.sel < v->tree.n ?
	    v->tree.nodes[fl->fv.sel].func : CALL_NONE;
}

static struct flame_carry *
copy_carry(const struct flame_carry *from)
{
	struct flame_carry *c = xcalloc(1, sizeof *c);

	c->base.free = carry_free;
	c->root = tree_path_copy(from->root);
	c->sel = tree_path_copy(from->sel);
	c->icicle = from->icicle;
	return c;
}

static struct pane_carry *
flame_carry_take(struct pane *p, struct view *v)
{
	struct flame_pane *fl = (struct flame_pane *)p;

	/* what came from the read before and is not used yet goes on (this
	 * read's tree may not even be there yet); else the zoom on the
	 * tree the pane's nodes are of (v->tree stays while a newer one
	 * is computed) */
	if (fl->carried != NULL)
		return &copy_carry(fl->carried)->base;
	if (fl->gen != v->tree_gen || v->tree.n == 0)
		return NULL;
	struct flame_carry *c = xcalloc(1, sizeof *c);
	c->base.free = carry_free;
	c->root = tree_path_of(v, fl->fv.root);
	c->sel = tree_path_of(v, fl->fv.sel);
	c->icicle = fl->fv.icicle;
	return &c->base;
}

static void
flame_carry_apply(struct pane *p, struct view *v, const struct pane_carry *pc)
{
	struct flame_pane *fl = (struct flame_pane *)p;
	const struct flame_carry *from = (const struct flame_carry *)pc;
	struct flame_carry *c = copy_carry(from);

	(void)v;
	fl->fv.icicle = from->icicle;
	drop_carried(fl);
	fl->carried = c;
	fl->applied = false;
}

const struct pane_class pane_flame = {
	.title = "Flame",
	.ctx = CTX_FLAME,
	.hint = "? keys  h/j/k/l move  Enter zoom  u back  p per thread",
	.create = flame_create,
	.free = flame_free,
	.draw = flame_draw,
	.command = flame_command,
	.mouse = flame_mouse,
	.selected_func = flame_selected,
	.carry_take = flame_carry_take,
	.carry_apply = flame_carry_apply,
};
