/*
 * A node of the view's call tree named so that it can be found again in
 * another tree: one of a newer read of the trace (ttv --follow), whose
 * nodes are numbered anew. The path is the names from the root down: a
 * function's name, a thread's id (per-thread trees), or "folded".
 */
#ifndef TTV_UI_TREE_PATH_H
#define TTV_UI_TREE_PATH_H

#include <stdint.h>

#include "view.h"

struct tree_path;

/* The path of node n of v's tree (valid); NULL for the root or no node. */
struct tree_path *tree_path_of(const struct view *v, uint32_t n);
/* The node of v's tree (valid) at path p: the root for NULL, CALL_NONE
 * when the tree has no such node. */
uint32_t tree_path_find(const struct view *v, const struct tree_path *p);
/* A copy of p (NULL for NULL). */
struct tree_path *tree_path_copy(const struct tree_path *p);
void tree_path_free(struct tree_path *p);

#endif
