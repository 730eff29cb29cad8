/* Folded stacks for flamegraph tools (see export.h), from the call tree. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "export.h"
#include "xalloc.h"

bool
trace_is_sampled(const struct trace *t)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t d = 0; d < t->tracks[i].ndepth; d++)
			if (t->tracks[i].depth[d].weights != NULL)
				return true;
	return false;
}

/* A frame's name: in the text form, ';' (the frame separator of the
 * format) written as \x3b, so that one frame stays one (escape.h). */
#define put_name escape_frame

static void
put_path(const struct trace *t, const struct call_tree *ct, uint32_t n,
    FILE *fp)
{
	/* Frames from the root: collect then print in reverse. */
	uint32_t path[64], len = 0, *big = NULL;
	uint32_t *p = path;
	for (uint32_t k = n; k != 0 && k != CALL_NONE; k = ct->nodes[k].parent) {
		if (len == 64 && big == NULL) {
			big = xmalloc((ct->nodes[n].depth + 1) * sizeof *big);
			memcpy(big, path, sizeof path);
			p = big;
		}
		p[len++] = k;
	}
	for (uint32_t i = len; i-- > 0;) {
		const struct call_node *c = &ct->nodes[p[i]];
		if (c->func == CALL_NONE) {
			char buf[64];
			put_name(track_label(t, &t->tracks[c->track], buf,
			    sizeof buf), fp);
		} else {
			put_name(trace_func_name(t, c->func), fp);
		}
		if (i > 0)
			putc(';', fp);
	}
	free(big);
}

int
export_collapsed(const struct trace *t, const struct filter *f,
    bool per_thread, uint32_t max_depth, FILE *fp, uint64_t *folded)
{
	return export_collapsed_range(t, f, TTV_NS_MIN, TTV_NS_MAX, per_thread,
	    max_depth, fp, folded);
}

int
export_collapsed_range(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, bool per_thread, uint32_t max_depth, FILE *fp,
    uint64_t *folded)
{
	struct call_tree ct;
	bool sampled = trace_is_sampled(t);
	if (max_depth < 2)
		max_depth = 2;
	/* A line of max_depth frames at most: what lies deeper is one
	 * frame "[N frames]" with all its weight, so that the output (and
	 * the tree) stays linear in the trace however deep its stacks. */
	query_call_tree_folded(t, f, t0, t1, per_thread, max_depth, &ct);
	*folded = 0;
	/* Depth-first, children in the tree's order (largest first). */
	VEC(uint32_t) stack = { 0 };
	if (ct.n > 0 && ct.nodes[0].first_child != CALL_NONE)
		VEC_PUSH(&stack, ct.nodes[0].first_child);
	while (stack.len > 0) {
		uint32_t n = stack.items[--stack.len];
		const struct call_node *c = &ct.nodes[n];
		if (c->next_sibling != CALL_NONE)
			VEC_PUSH(&stack, c->next_sibling);
		if (c->first_child != CALL_NONE)
			VEC_PUSH(&stack, c->first_child);
		if (c->func == CALL_NONE)
			continue;
		uint64_t w = sampled ? c->self_weight : (uint64_t)c->self;
		if (w == 0)
			continue;
		if (c->func == CALL_FOLDED) {
			put_path(t, &ct, c->parent, fp);
			fprintf(fp, ";[%" PRIu32 " frames] %" PRIu64 "\n",
			    c->track - c->depth + 1, w);
			(*folded)++;
			continue;
		}
		put_path(t, &ct, n, fp);
		fprintf(fp, " %" PRIu64 "\n", w);
	}
	VEC_FREE(&stack);
	call_tree_free(&ct);
	return ferror(fp) ? -1 : 0;
}
