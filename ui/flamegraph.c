/*
 * A flame graph of any tree (flamegraph.h): nodes as blocks as wide as
 * their size, children over (or under) their parent, largest first, each
 * labelled with its name and what its owner says after it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flamegraph.h"
#include "glyph.h"
#include "pane.h"
#include "text.h"

struct fctx {
	const struct flame_src *s;
	struct flame_view *fv;
	struct grid *g;
	struct rect r;
	int64_t grand;
};

static void
draw_node(struct fctx *f, uint32_t n, int depth, double x0, double w)
{
	const struct flame_src *s = f->s;
	int y, c0, c1, style, c;
	char name[64], after[48];
	const char *label;
	int64_t total;

	if (w < 1.0 || depth >= f->r.h)
		return;
	y = f->fv->icicle ? f->r.y + depth : f->r.y + f->r.h - 1 - depth;
	c0 = (int)lround(x0);
	c1 = (int)lround(x0 + w);
	if (c1 <= c0)
		c1 = c0 + 1;
	if (c1 > f->r.w)
		c1 = f->r.w;
	style = n == f->fv->sel ? STYLE_SELECTED : s->style(s->arg, n);
	for (c = c0; c < c1; c++)
		grid_set(f->g, f->r.x + c, y, ' ', style, 0);
	VEC_PUSH(&f->fv->boxes, ((struct flame_box){ y, f->r.x + c0,
	    f->r.x + c1, n }));
	if (c1 - c0 >= 2 && c0 > 0)
		grid_set(f->g, f->r.x + c0, y, GLYPH_EDGE(f->g->utf8), style, 0),
		    c0++;
	total = s->size(s->arg, n);
	label = s->name(s->arg, n, name, sizeof name);
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
	after[0] = '\0';
	s->after(s->arg, n, f->grand, after, sizeof after);
	if (after[0] != '\0' && c + (int)strlen(after) <= c1 - c0)
		grid_puts(f->g, f->r.x + c0 + c, y, c1 - c0 - c, after, style,
		    0);
	/* Children left to right, in sibling order. */
	if (total <= 0)
		return;
	for (uint32_t ch = s->first_child(s->arg, n); ch != FLAME_NONE;
	    ch = s->next_sibling(s->arg, ch)) {
		double cw = w * (double)s->size(s->arg, ch) / (double)total;
		draw_node(f, ch, depth + 1, x0, cw);
		x0 += cw;
	}
}

void
flamegraph_draw(const struct flame_src *s, struct flame_view *fv,
    struct grid *g, struct rect r, int64_t grand)
{
	struct fctx f = { s, fv, g, r, grand };

	fv->boxes.len = 0;
	/* A zoomed node spans the width; its callers are not drawn. */
	draw_node(&f, fv->root, 0, 0, r.w);
}

static uint32_t
prev_sibling(const struct flame_src *s, uint32_t n)
{
	uint32_t p = s->parent(s->arg, n), prev = FLAME_NONE;

	if (p == FLAME_NONE)
		return FLAME_NONE;
	for (uint32_t c = s->first_child(s->arg, p); c != FLAME_NONE;
	    c = s->next_sibling(s->arg, c)) {
		if (c == n)
			return prev;
		prev = c;
	}
	return FLAME_NONE;
}

int
flamegraph_command(const struct flame_src *s, struct flame_view *fv,
    enum cmd c)
{
	uint32_t n = fv->sel, to = FLAME_NONE;
	bool toward_leaf;

	switch (c) {
	case CMD_FLAME_LEFT:
		if (n != fv->root)
			to = prev_sibling(s, n);
		break;
	case CMD_FLAME_RIGHT:
		if (n != fv->root)
			to = s->next_sibling(s->arg, n);
		break;
	case CMD_FLAME_UP:
	case CMD_FLAME_DOWN:
		/* Up and down move on screen: toward the leaves is up in a
		 * flame graph and down in an icicle. */
		toward_leaf = (c == CMD_FLAME_UP) != fv->icicle;
		if (toward_leaf)
			to = s->first_child(s->arg, n);
		else if (n != fv->root)
			to = s->parent(s->arg, n);
		break;
	case CMD_FLAME_ZOOM:
		fv->root = n;
		return PANE_REDRAW;
	case CMD_FLAME_UNZOOM:
		if (s->parent(s->arg, fv->root) != FLAME_NONE)
			fv->root = s->parent(s->arg, fv->root);
		return PANE_REDRAW;
	case CMD_FLAME_FLIP:
		fv->icicle = !fv->icicle;
		return PANE_REDRAW;
	default:
		return PANE_UNHANDLED;
	}
	if (to != FLAME_NONE)
		fv->sel = to;
	return PANE_REDRAW;
}

uint32_t
flamegraph_hit(const struct flame_view *fv, int x, int y)
{
	for (size_t i = 0; i < fv->boxes.len; i++) {
		const struct flame_box *bx = &fv->boxes.items[i];
		if (bx->y == y && x >= bx->c0 && x < bx->c1)
			return bx->node;
	}
	return FLAME_NONE;
}

void
flamegraph_free(struct flame_view *fv)
{
	VEC_FREE(&fv->boxes);
}
