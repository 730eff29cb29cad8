/*
 * The call tree pane (uftrace's graph, Perfetto's top-down): the call
 * paths of the span from the outermost frames down, each with its calls,
 * total and self time and its share of the span, folded and unfolded in
 * place. It is the view's tree of the span (view->tree, which the flame
 * pane draws too, computed on the worker for big traces) shown as an
 * indented list; the pane owns only which nodes are open and where the
 * selection is.
 *
 * The tree's nodes are numbered depth first, children largest first, so
 * the rows shown are the nodes in index order, less the subtrees of the
 * folded ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyph.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "tree_path.h"
#include "xalloc.h"

/* The folds and the selected node of an older read's tree, by path
 * (ttv --follow): what the pane's first tree is opened as. */
struct calltree_carry {
	struct pane_carry base;
	struct tree_path **open;	/* the nodes whose children show */
	size_t nopen;
	struct tree_path *sel;
};

struct calltree_pane {
	struct pane base;	/* base.pos: the selected row */
	uint64_t gen;		/* the view->tree_gen the folds are for */
	uint8_t *open;		/* tree.n: the node's children are shown */
	uint32_t *rows;		/* the nodes shown, in order */
	size_t nrows;
	struct calltree_carry *carried;	/* until the pane is used, or NULL */
};

static void
carry_free(struct pane_carry *pc)
{
	struct calltree_carry *c = (struct calltree_carry *)pc;

	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nopen; i++)
		tree_path_free(c->open[i]);
	free(c->open);
	tree_path_free(c->sel);
	free(c);
}

#define NUM_W 10
#define PCT_W 7

static struct pane *
calltree_create(struct view *v)
{
	struct calltree_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	return &p->base;
}

static void
calltree_free(struct pane *pane)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;

	free(p->open);
	free(p->rows);
	if (p->carried != NULL)
		carry_free(&p->carried->base);
	free(p);
}

static void
rebuild_rows(const struct call_tree *ct, struct calltree_pane *p)
{
	size_t n = 0;

	for (uint32_t i = 1; i < ct->n;) {
		p->rows[n++] = i;
		if (p->open[i]) {
			i++;
			continue;
		}
		/* Past the folded node's subtree: the next node no deeper. */
		uint32_t d = ct->nodes[i].depth;
		for (i++; i < ct->n && ct->nodes[i].depth > d; i++)
			;
	}
	p->nrows = n;
}

/* Opens the hottest path below node n (children come largest first) and
 * returns its deepest node. */
static uint32_t
open_hottest(const struct call_tree *ct, struct calltree_pane *p, uint32_t n)
{
	while (ct->nodes[n].first_child != CALL_NONE) {
		p->open[n] = 1;
		n = ct->nodes[n].first_child;
	}
	return n;
}

static size_t
row_of(const struct calltree_pane *p, uint32_t node)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i] == node)
			return i;
	return 0;
}

/* The tree of the span, and folds that belong to it: a new tree starts
 * with the hottest path open. False while the tree is being computed. */
static bool
sync_tree(struct calltree_pane *p, struct view *v)
{
	const struct call_tree *ct = &v->tree;

	if (!v->tree_valid) {
		view_tree_request(v);
		if (!v->tree_valid)
			return false;
	}
	if (p->gen == v->tree_gen && p->open != NULL)
		return true;
	free(p->open);
	free(p->rows);
	p->open = xcalloc(ct->n ? ct->n : 1, 1);
	p->rows = xcalloc(ct->n ? ct->n : 1, sizeof *p->rows);
	p->gen = v->tree_gen;
	if (p->carried != NULL) {
		/* the folds of the older read, where its nodes still are: on
		 * each tree of this read (the window it is carried to comes
		 * after the first) until the pane is used */
		struct calltree_carry *c = p->carried;
		for (size_t i = 0; i < c->nopen; i++) {
			uint32_t n = tree_path_find(v, c->open[i]);
			if (n != CALL_NONE)
				p->open[n] = 1;
		}
		if (ct->n > 0)
			p->open[0] = 1;
		rebuild_rows(ct, p);
		uint32_t sel = tree_path_find(v, c->sel);
		p->base.pos.sel = sel != CALL_NONE ? row_of(p, sel) : 0;
		return true;
	}
	if (ct->n > 0)
		open_hottest(ct, p, 0);
	rebuild_rows(ct, p);
	p->base.pos.sel = p->base.pos.top = 0;
	return true;
}

static const char *
node_name(const struct view *v, const struct call_node *n, char *buf,
    size_t size)
{
	const struct trace *t = v->trace;

	if (n->func != CALL_NONE)
		return trace_func_name(t, n->func);
	if (n->track < t->ntracks) {
		const struct track *tr = &t->tracks[n->track];
		const char *name = tr->name ? trace_str(t, tr->name) : "";
		snprintf(buf, size, "thread %lld%s%s", (long long)tr->tid,
		    *name ? " " : "", name);
		return buf;
	}
	return "(all)";
}

static void
right(struct grid *g, int x_end, int y, const char *s, int style)
{
	int len = text_width(g, s, strlen(s), NUM_W);

	text_puts(g, x_end - len, y, len, s, style, 0);
}

static void
calltree_draw(struct pane *pane, struct view *v, struct grid *g,
    struct rect r)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;
	char buf[256], sp[96], b1[48], b2[48], b3[48];
	ttv_ns t0, t1;
	int rows = r.h - 2;

	view_span(v, &t0, &t1);
	if (!sync_tree(p, v)) {
		pane_title(g, r, "Call tree", "computing the call tree of this "
		    "span...");
		return;
	}
	const struct call_tree *ct = &v->tree;
	ttv_ns span = t1 > t0 ? t1 - t0 : 1;
	int ncols = r.w >= 20 + 3 * NUM_W + PCT_W ? 4 : r.w >= 20 + 2 * NUM_W ?
	    2 : 0;
	int cols_w = ncols == 4 ? 3 * NUM_W + PCT_W : ncols * NUM_W;
	int name_w = r.w - cols_w;

	/* calls that never returned: in the "2+1" of their rows */
	uint64_t un = call_tree_unfinished(ct);
	if (un > 0)
		snprintf(b3, sizeof b3, ", +%llu unfinished",
		    (unsigned long long)un);
	else
		b3[0] = '\0';
	/* A path longer than the span is the threads' times added up:
	 * say so, where it happens. */
	bool added = false;
	for (uint32_t c = ct->n > 0 ? ct->nodes[0].first_child : CALL_NONE;
	    c != CALL_NONE && c < ct->n && !added;
	    c = ct->nodes[c].next_sibling)
		added = ct->nodes[c].total > span;
	snprintf(buf, sizeof buf, "%zu path%s in %s, %s%s%s; Space "
	    "folds, * hottest path, p %s", ct->n > 0 ? ct->n - 1 : 0,
	    ct->n == 2 ? "" : "s", view_span_text(v, sp, sizeof sp),
	    v->flame_per_thread ? "per thread" : "threads merged",
	    added ? ", their times added up" : "", b3,
	    v->flame_per_thread ? "merges" : "per thread");
	pane_title(g, r, "Call tree", buf);
	grid_puts(g, r.x, r.y + 1, name_w, "function", STYLE_TITLE, 0);
	if (ncols >= 2) {
		right(g, r.x + name_w + NUM_W, r.y + 1, "calls", STYLE_TITLE);
		right(g, r.x + name_w + 2 * NUM_W, r.y + 1, "total",
		    STYLE_TITLE);
	}
	if (ncols == 4) {
		right(g, r.x + name_w + 3 * NUM_W, r.y + 1, "self",
		    STYLE_TITLE);
		right(g, r.x + r.w, r.y + 1, "%", STYLE_TITLE);
	}
	list_clamp(&p->base.pos, p->nrows, rows);
	if (p->nrows == 0)
		grid_puts(g, r.x, r.y + 2, r.w, "no calls in this span",
		    STYLE_DIM, 0);
	for (int row = 0; row < rows && p->base.pos.top + (size_t)row < p->nrows;
	    row++) {
		size_t i = p->base.pos.top + (size_t)row;
		uint32_t id = p->rows[i];
		const struct call_node *n = &ct->nodes[id];
		int y = r.y + 2 + row;
		bool sel = i == p->base.pos.sel;
		int style = sel ? STYLE_SELECTED : STYLE_NORMAL;
		int indent = 2 * (int)(n->depth > 0 ? n->depth - 1 : 0);

		if (sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ',
			    STYLE_SELECTED, 0);
		if (indent > name_w / 2)
			indent = name_w / 2;
		if (n->first_child != CALL_NONE)
			grid_set(g, r.x + indent, y, p->open[id] ?
			    GLYPH_OPEN(g->utf8) : GLYPH_CLOSED(g->utf8),
			    style, 0);
		text_puts_mid(g, r.x + indent + 2, y, name_w - indent - 3,
		    node_name(v, n, buf, sizeof buf),
		    n->func != CALL_NONE && view_func_matches(v, n->func) &&
		    !sel ? STYLE_MATCH : style, 0);
		if (ncols >= 2) {
			/* "2+1": 2 calls, and 1 that never returned */
			if (n->unfinished > 0)
				snprintf(b1, sizeof b1, "%llu+%llu",
				    (unsigned long long)n->count,
				    (unsigned long long)n->unfinished);
			else
				snprintf(b1, sizeof b1, "%llu",
				    (unsigned long long)n->count);
			right(g, r.x + name_w + NUM_W, y, b1, style);
			right(g, r.x + name_w + 2 * NUM_W, y,
			    timefmt_duration(n->total, b2, sizeof b2), style);
		}
		if (ncols == 4) {
			right(g, r.x + name_w + 3 * NUM_W, y,
			    timefmt_duration(n->self, b3, sizeof b3), style);
			snprintf(b1, sizeof b1, "%.1f",
			    100.0 * (double)n->total / (double)span);
			right(g, r.x + r.w, y, b1, style);
		}
	}
}

/* The next (or previous) node after the selected one, in tree order and
 * wrapping, whose function the search matches; its ancestors are
 * unfolded so that it shows. */
static int
match_step(struct view *v, struct calltree_pane *p, bool forward)
{
	const struct call_tree *ct = &v->tree;

	if (v->match == NULL) {
		view_message(v, true, "no search: / finds functions first");
		return PANE_REDRAW;
	}
	if (ct->n < 2)
		return PANE_HANDLED;
	uint32_t from = p->nrows > 0 ? p->rows[p->base.pos.sel] : 0;
	uint32_t m = ct->n - 1;		/* nodes 1 .. n-1 */
	for (uint32_t k = 1; k <= m; k++) {
		uint32_t i = forward ? 1 + (from - 1 + k) % m :
		    1 + (from - 1 + m - k % m) % m;
		if (ct->nodes[i].func == CALL_NONE ||
		    !view_func_matches(v, ct->nodes[i].func))
			continue;
		for (uint32_t a = ct->nodes[i].parent; a != CALL_NONE;
		    a = ct->nodes[a].parent)
			p->open[a] = 1;
		rebuild_rows(ct, p);
		p->base.pos.sel = row_of(p, i);
		list_clamp(&p->base.pos, p->nrows, p->base.pos.rows);
		if ((forward && i <= from) || (!forward && i >= from))
			view_message(v, false, "search wrapped");
		return PANE_REDRAW;
	}
	view_message(v, true, "no node of this tree matches the search");
	return PANE_REDRAW;
}

static int
calltree_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;
	const struct call_tree *ct = &v->tree;

	if (c == CMD_FLAME_THREADS) {
		v->flame_per_thread = !v->flame_per_thread;
		view_data_changed(v);
		return PANE_REDRAW;
	}
	if (!sync_tree(p, v) || p->nrows == 0)
		return c >= CMD_TREE_FOLD && c <= CMD_MATCH_PREV ?
		    PANE_HANDLED : list_command(&p->base.pos, 0, c);
	uint32_t id = p->rows[p->base.pos.sel];
	const struct call_node *n = &ct->nodes[id];
	bool has_children = n->first_child != CALL_NONE;

	/* the user moves in the pane: what was carried is theirs no more */
	if (p->carried != NULL)
		carry_free(&p->carried->base);
	p->carried = NULL;

	switch (c) {
	case CMD_TREE_FOLD:
		if (has_children && p->open[id])
			p->open[id] = 0;
		else if (n->parent != CALL_NONE && n->parent != 0) {
			rebuild_rows(ct, p);
			p->base.pos.sel = row_of(p, n->parent);
			list_clamp(&p->base.pos, p->nrows, p->base.pos.rows);
			return PANE_REDRAW;
		}
		break;
	case CMD_TREE_UNFOLD:
		if (has_children && !p->open[id])
			p->open[id] = 1;
		else if (has_children) {
			rebuild_rows(ct, p);
			p->base.pos.sel = row_of(p, n->first_child);
			list_clamp(&p->base.pos, p->nrows, p->base.pos.rows);
			return PANE_REDRAW;
		}
		break;
	case CMD_TREE_TOGGLE:
	case CMD_LIST_ENTER:
		if (has_children)
			p->open[id] = !p->open[id];
		break;
	case CMD_TREE_HOT: {
		uint32_t leaf = open_hottest(ct, p, id);
		rebuild_rows(ct, p);
		p->base.pos.sel = row_of(p, leaf);
		list_clamp(&p->base.pos, p->nrows, p->base.pos.rows);
		return PANE_REDRAW;
	}
	case CMD_MATCH_NEXT:
	case CMD_MATCH_PREV:
		return match_step(v, p, c == CMD_MATCH_NEXT);
	default:
		return list_command(&p->base.pos, p->nrows, c);
	}
	rebuild_rows(ct, p);
	p->base.pos.sel = row_of(p, id);
	return PANE_REDRAW;
}

static int
calltree_mouse(struct pane *pane, struct view *v, struct rect r, int x,
    int y, enum mouse_button b)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;

	(void)x;
	return list_mouse(pane, v, &pane->pos, p->nrows, r, y, b,
	    calltree_command);
}

static func_id
calltree_selected(struct pane *pane, struct view *v)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;

	if (!v->tree_valid || p->gen != v->tree_gen ||
	    p->nrows == 0 || p->base.pos.sel >= p->nrows)
		return CALL_NONE;
	return v->tree.nodes[p->rows[p->base.pos.sel]].func;
}

static struct calltree_carry *
copy_carry(const struct calltree_carry *from)
{
	struct calltree_carry *c = xcalloc(1, sizeof *c);

	c->base.free = carry_free;
	c->open = xcalloc(from->nopen ? from->nopen : 1, sizeof *c->open);
	for (size_t i = 0; i < from->nopen; i++)
		c->open[c->nopen++] = tree_path_copy(from->open[i]);
	c->sel = tree_path_copy(from->sel);
	return c;
}

static struct pane_carry *
calltree_carry_take(struct pane *pane, struct view *v)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;

	/* what came from the read before and is not used yet goes on (this
	 * read's tree may not even be there yet); else the folds of the
	 * tree the pane's nodes are of (v->tree stays while a newer one is
	 * computed) */
	if (p->carried != NULL)
		return &copy_carry(p->carried)->base;
	if (p->gen != v->tree_gen || p->open == NULL || v->tree.n == 0)
		return NULL;
	struct calltree_carry *c = xcalloc(1, sizeof *c);
	c->base.free = carry_free;
	for (uint32_t i = 1; i < v->tree.n; i++)
		if (p->open[i])
			c->nopen++;
	c->open = xcalloc(c->nopen ? c->nopen : 1, sizeof *c->open);
	c->nopen = 0;
	for (uint32_t i = 1; i < v->tree.n; i++)
		if (p->open[i])
			c->open[c->nopen++] = tree_path_of(v, i);
	if (p->nrows > 0 && p->base.pos.sel < p->nrows)
		c->sel = tree_path_of(v, p->rows[p->base.pos.sel]);
	return &c->base;
}

static void
calltree_carry_apply(struct pane *pane, struct view *v,
    const struct pane_carry *pc)
{
	struct calltree_pane *p = (struct calltree_pane *)pane;
	struct calltree_carry *c =
	    copy_carry((const struct calltree_carry *)pc);

	(void)v;
	if (p->carried != NULL)
		carry_free(&p->carried->base);
	p->carried = c;
}

const struct pane_class pane_calltree = {
	.title = "Call tree",
	.ctx = CTX_CALLTREE,
	.hint = "? keys  Space fold  * hottest  v callers  # calls",
	.create = calltree_create,
	.free = calltree_free,
	.draw = calltree_draw,
	.command = calltree_command,
	.mouse = calltree_mouse,
	.selected_func = calltree_selected,
	.carry_take = calltree_carry_take,
	.carry_apply = calltree_carry_apply,
};
