/* A call tree node named by its path, found again in another tree
 * (tree_path.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_path.h"
#include "xalloc.h"

struct tree_path {
	char **names;		/* from the root's child down */
	uint32_t n;
};

/* What stays of a node from one tree to the next. */
static char *
node_key(const struct view *v, uint32_t n)
{
	const struct trace *t = v->trace;
	const struct call_node *nd = &v->tree.nodes[n];

	if (nd->func == CALL_FOLDED)
		return xstrdup("\001folded");
	if (nd->func != CALL_NONE)
		return xstrdup(trace_func_name(t, nd->func));
	if (nd->track < t->ntracks)
		return xasprintf("\002%lld", (long long)t->tracks[nd->track].tid);
	return xstrdup("\003");
}

struct tree_path *
tree_path_of(const struct view *v, uint32_t n)
{
	const struct call_tree *ct = &v->tree;

	if (n == 0 || n >= ct->n)
		return NULL;
	uint32_t depth = 0;
	for (uint32_t a = n; a != 0 && a < ct->n; a = ct->nodes[a].parent)
		depth++;
	struct tree_path *p = xcalloc(1, sizeof *p);
	p->names = xcalloc(depth, sizeof *p->names);
	p->n = depth;
	for (uint32_t a = n, k = depth; a != 0 && a < ct->n && k > 0;
	    a = ct->nodes[a].parent)
		p->names[--k] = node_key(v, a);
	return p;
}

uint32_t
tree_path_find(const struct view *v, const struct tree_path *p)
{
	const struct call_tree *ct = &v->tree;

	if (ct->n == 0)
		return CALL_NONE;
	uint32_t at = 0;
	for (uint32_t k = 0; p != NULL && k < p->n; k++) {
		uint32_t c = ct->nodes[at].first_child;
		for (; c != CALL_NONE && c < ct->n; c = ct->nodes[c].next_sibling) {
			char *key = node_key(v, c);
			bool same = strcmp(key, p->names[k]) == 0;
			free(key);
			if (same)
				break;
		}
		if (c == CALL_NONE || c >= ct->n)
			return CALL_NONE;
		at = c;
	}
	return at;
}

struct tree_path *
tree_path_copy(const struct tree_path *p)
{
	if (p == NULL)
		return NULL;
	struct tree_path *c = xcalloc(1, sizeof *c);
	c->names = xcalloc(p->n ? p->n : 1, sizeof *c->names);
	c->n = p->n;
	for (uint32_t k = 0; k < p->n; k++)
		c->names[k] = xstrdup(p->names[k]);
	return c;
}

void
tree_path_free(struct tree_path *p)
{
	if (p == NULL)
		return;
	for (uint32_t k = 0; k < p->n; k++)
		free(p->names[k]);
	free(p->names);
	free(p);
}
