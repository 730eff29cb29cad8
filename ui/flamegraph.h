/*
 * A flame graph of any tree: the drawing, the moves and the clicks that the
 * flame pane (the call tree of the span, ui/flame.c) and the differential
 * flame graph (a tree of call paths of two traces, ui/diff.c) share. The
 * tree is read through a table of functions (struct flame_src), so the
 * graph knows neither a trace nor a comparison; what it keeps between
 * draws (the zoomed node, the selected one, the orientation, where each
 * node went) is a struct flame_view of its owner's.
 */
#ifndef TTV_UI_FLAMEGRAPH_H
#define TTV_UI_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "keys.h"
#include "xalloc.h"

#define FLAME_NONE UINT32_MAX

/* A tree as the graph reads it. Nodes are numbers; FLAME_NONE is none. */
struct flame_src {
	const void *arg;
	uint32_t (*first_child)(const void *arg, uint32_t n);
	uint32_t (*next_sibling)(const void *arg, uint32_t n);
	uint32_t (*parent)(const void *arg, uint32_t n);
	/* What a node's width stands for (time, samples); children are
	 * drawn left to right in sibling order. */
	int64_t (*size)(const void *arg, uint32_t n);
	/* The node's name (text of a trace: escaped when drawn). */
	const char *(*name)(const void *arg, uint32_t n, char *buf,
	    size_t size);
	/* What follows the name where there is room (" 12.5%"); grand is
	 * the size of the whole tree. */
	void (*after)(const void *arg, uint32_t n, int64_t grand, char *buf,
	    size_t size);
	/* The node's style when it is not the selected one. */
	int (*style)(const void *arg, uint32_t n);
};

/* Where the graph drew a node, for clicks. */
struct flame_box {
	int y, c0, c1;
	uint32_t node;
};

struct flame_view {
	uint32_t root, sel;	/* the node spanning the width; the selected */
	bool icicle;		/* root on top */
	VEC(struct flame_box) boxes;
};

/* Draws the tree under fv->root over rectangle r (root row at the bottom,
 * or on top in an icicle), the whole tree's size being grand. */
void flamegraph_draw(const struct flame_src *s, struct flame_view *fv,
    struct grid *g, struct rect r, int64_t grand);
/* The moves (CMD_FLAME_LEFT .. CMD_FLAME_DOWN), zoom, unzoom and flip:
 * PANE_REDRAW, or PANE_UNHANDLED for another command. */
int flamegraph_command(const struct flame_src *s, struct flame_view *fv,
    enum cmd c);
/* The node drawn at screen (x, y) at the last draw, or FLAME_NONE. */
uint32_t flamegraph_hit(const struct flame_view *fv, int x, int y);
void flamegraph_free(struct flame_view *fv);

#endif
