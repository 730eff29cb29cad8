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

#include "glyph.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* Where the pane drew a node, for mouse clicks. */
struct flame_box {
	int y, c0, c1;
	uint32_t node;
};

/* The pane's own state over the view's call tree (view->tree, shared with
 * the call tree pane): the zoomed node, the selected one, the drawing's
 * orientation and where the last draw put each node. */
struct flame_pane {
	struct pane base;
	uint64_t gen;		/* the view->tree_gen root and sel are for */
	uint32_t root, sel;
	bool icicle;
	VEC(struct flame_box) boxes;
};

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

	VEC_FREE(&fl->boxes);
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
		fl->root = fl->sel = 0;
	}
	return fl;
}

void
flame_pane_set_icicle(struct view *v, bool icicle)
{
	flame_sync(v->panes[PANE_FLAME], v)->icicle = icicle;
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

struct fctx {
	struct view *v;
	struct flame_pane *fl;
	struct grid *g;
	struct rect r;		/* rows for nodes (title excluded) */
	int64_t grand;		/* size of the whole tree, for % */
};

static void
draw_node(struct fctx *f, uint32_t n, int depth, double x0, double w)
{
	const struct call_node *nd = &f->v->tree.nodes[n];
	int y, c0, c1, style, c;
	char name[64], pct[32];
	const char *label;
	int64_t total;

	if (w < 1.0 || depth >= f->r.h)
		return;
	y = f->fl->icicle ? f->r.y + depth : f->r.y + f->r.h - 1 - depth;
	c0 = (int)lround(x0);
	c1 = (int)lround(x0 + w);
	if (c1 <= c0)
		c1 = c0 + 1;
	if (c1 > f->r.w)
		c1 = f->r.w;
	if (n == f->fl->sel)
		style = STYLE_SELECTED;
	else if (nd->func != CALL_NONE && view_func_matches(f->v, nd->func))
		style = STYLE_MATCH;
	else if (nd->func == CALL_NONE)
		style = STYLE_HEADER;
	else
		style = STYLE_SLICE0 + view_func_hue(nd->func);
	for (c = c0; c < c1; c++)
		grid_set(f->g, f->r.x + c, y, ' ', style, 0);
	VEC_PUSH(&f->fl->boxes, ((struct flame_box){ y, f->r.x + c0,
	    f->r.x + c1, n }));
	if (c1 - c0 >= 2 && c0 > 0)
		grid_set(f->g, f->r.x + c0, y, GLYPH_EDGE(f->g->utf8), style, 0),
		    c0++;
	total = node_size(f->v, n);
	label = node_name(f->v, n, name, sizeof name);
	if (c1 - c0 >= 8)
		c = text_puts_mid(f->g, f->r.x + c0, y, c1 - c0, label, style,
		    0);
	else if (c1 - c0 >= 3 && text_width(f->g, label, strlen(label),
	    c1 - c0 + 1) > c1 - c0) {
		c = text_puts(f->g, f->r.x + c0, y, c1 - c0 - 1, label, style, 0);
		grid_set(f->g, f->r.x + c0 + c, y, GLYPH_ELLIPSIS(f->g->utf8),
		    style, 0);
		c++;
	} else
		c = text_puts(f->g, f->r.x + c0, y, c1 - c0, label, style, 0);
	if (f->grand > 0) {
		snprintf(pct, sizeof pct, " %.1f%%", 100.0 * (double)total /
		    (double)f->grand);
		if (c + (int)strlen(pct) <= c1 - c0)
			grid_puts(f->g, f->r.x + c0 + c, y, c1 - c0 - c, pct,
			    style, 0);
	}
	/* Children left to right, largest first (query order). */
	if (total <= 0)
		return;
	for (uint32_t ch = nd->first_child; ch != CALL_NONE;
	    ch = f->v->tree.nodes[ch].next_sibling) {
		double cw = w * (double)node_size(f->v, ch) / (double)total;
		draw_node(f, ch, depth + 1, x0, cw);
		x0 += cw;
	}
}

static void
flame_draw(struct pane *p, struct view *v, struct grid *g, struct rect r)
{
	struct flame_pane *fl = flame_sync(p, v);
	struct fctx f;
	char buf[160], b2[48], b3[48], nb[64];

	refresh(v);
	ttv_ns s0, s1;
	view_span(v, &s0, &s1);
	snprintf(buf, sizeof buf, "%s%s, %s, %s .. %s%s; z/u zoom, I flip, "
	    "p threads", fl->icicle ? "icicle" : "flame graph",
	    v->sampled ? " by samples" : "",
	    v->flame_per_thread ? "per thread" : "threads merged",
	    view_time(v, s0, b2, sizeof b2),
	    view_time(v, s1, b3, sizeof b3), v->range_on ? " (range)" : "");
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
	f.v = v;
	f.fl = fl;
	f.g = g;
	f.r = (struct rect){ r.x, r.y + 2, r.w, r.h - 2 };
	f.grand = node_size(v, 0);
	fl->boxes.len = 0;
	/* A zoomed node spans the width; its callers are not drawn. */
	draw_node(&f, fl->root, 0, 0, r.w);
	if (fl->sel < v->tree.n) {
		/* The selected node, on its own line under the title. */
		const struct call_node *s = &v->tree.nodes[fl->sel];
		int c = text_puts_mid(g, r.x, r.y + 1, r.w, node_name(v,
		    fl->sel, nb, sizeof nb), STYLE_SELECTED, 0);
		snprintf(buf, sizeof buf, ": %llu calls, total %s, self %s",
		    (unsigned long long)s->count,
		    timefmt_duration(node_total(v, fl->sel), b2, sizeof b2),
		    timefmt_duration(s->self, b3, sizeof b3));
		if (v->sampled) {
			size_t n = strlen(buf);
			snprintf(buf + n, sizeof buf - n, ", %llu samples",
			    (unsigned long long)node_size(v, fl->sel));
		}
		grid_puts(g, r.x + c, r.y + 1, r.w - c, buf, STYLE_DIM, 0);
	}
}

static uint32_t
prev_sibling(const struct view *v, uint32_t n)
{
	uint32_t p = v->tree.nodes[n].parent, prev = CALL_NONE;

	if (p == CALL_NONE)
		return CALL_NONE;
	for (uint32_t c = v->tree.nodes[p].first_child; c != CALL_NONE;
	    c = v->tree.nodes[c].next_sibling) {
		if (c == n)
			return prev;
		prev = c;
	}
	return CALL_NONE;
}

static int
flame_command(struct pane *p, struct view *v, enum cmd c)
{
	struct flame_pane *fl = flame_sync(p, v);
	uint32_t s = fl->sel, to = CALL_NONE;
	bool toward_leaf;

	refresh(v);
	if (!v->tree_valid || v->tree.n == 0)
		return c >= CMD_FLAME_LEFT && c <= CMD_FLAME_THREADS ?
		    PANE_HANDLED : PANE_UNHANDLED;
	switch (c) {
	case CMD_FLAME_LEFT:
		if (s != fl->root)
			to = prev_sibling(v, s);
		break;
	case CMD_FLAME_RIGHT:
		if (s != fl->root)
			to = v->tree.nodes[s].next_sibling;
		break;
	case CMD_FLAME_UP:
	case CMD_FLAME_DOWN:
		/* Up and down move on screen: toward the leaves is up in a
		 * flame graph and down in an icicle. */
		toward_leaf = (c == CMD_FLAME_UP) != fl->icicle;
		if (toward_leaf)
			to = v->tree.nodes[s].first_child;
		else if (s != fl->root)
			to = v->tree.nodes[s].parent;
		break;
	case CMD_FLAME_ZOOM:
		fl->root = s;
		return PANE_REDRAW;
	case CMD_FLAME_UNZOOM:
		if (v->tree.nodes[fl->root].parent != CALL_NONE)
			fl->root = v->tree.nodes[fl->root].parent;
		return PANE_REDRAW;
	case CMD_FLAME_FLIP:
		fl->icicle = !fl->icicle;
		return PANE_REDRAW;
	case CMD_FLAME_THREADS:
		v->flame_per_thread = !v->flame_per_thread;
		view_data_changed(v);
		return PANE_REDRAW;
	default:
		return PANE_UNHANDLED;
	}
	if (to != CALL_NONE && to < v->tree.n)
		fl->sel = to;
	return PANE_REDRAW;
}

/* Click: select the node under the pointer; on the selected one, zoom. */
static int
flame_mouse(struct pane *p, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct flame_pane *fl = flame_sync(p, v);
	(void)r;
	if (b != MOUSE_CLICK || !v->tree_valid)
		return PANE_HANDLED;
	for (size_t i = 0; i < fl->boxes.len; i++) {
		const struct flame_box *bx = &fl->boxes.items[i];
		if (bx->y == y && x >= bx->c0 && x < bx->c1 &&
		    bx->node < v->tree.n) {
			if (bx->node == fl->sel)
				fl->root = fl->sel;
			fl->sel = bx->node;
			return PANE_REDRAW;
		}
	}
	return PANE_HANDLED;
}

static func_id
flame_selected(struct pane *p, struct view *v)
{
	struct flame_pane *fl = flame_sync(p, v);

	return v->tree_valid && fl->sel < v->tree.n ?
	    v->tree.nodes[fl->sel].func : CALL_NONE;
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
};
