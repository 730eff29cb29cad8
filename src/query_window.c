/* Navigation queries on one track (see query.h): the slice at a time, its
 * parent, children and siblings, its self time and its call path, built on
 * the searches of one depth (level.c) and, where an index has them, the
 * summaries (summary.c). */
#include <stdlib.h>

#include "level.h"
#include "query.h"
#include "summary.h"
#include "xalloc.h"

bool
query_slice_at(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns when, struct slice_ref *out)
{
	const struct track *tr = &t->tracks[track];
	if (depth >= tr->ndepth)
		return false;
	const struct depth_level *l = &tr->depth[depth];
	/* The last slice starting at or before `when`. */
	size_t i = level_first_start(l, when + 1);
	if (i == 0)
		return false;
	const struct slice *s = &l->slices[i - 1];
	if (when < level_end(l, i - 1) || (s->dur32 == 0 && s->start == when)) {
		*out = (struct slice_ref){ track, depth, (uint32_t)(i - 1) };
		return true;
	}
	return false;
}

bool
query_parent(const struct trace *t, struct slice_ref r, struct slice_ref *out)
{
	if (r.depth == 0)
		return false;
	ttv_ns start = trace_slice(t, r)->start;
	if (query_slice_at(t, r.track, r.depth - 1, start, out))
		return true;
	/* A call of no length at the very end of its caller (a clock too
	 * coarse to tell them apart) starts where the caller ends: the
	 * caller is then the last one starting before it that reaches its
	 * time. */
	const struct depth_level *l = &t->tracks[r.track].depth[r.depth - 1];
	size_t i = level_first_start(l, start + 1);
	if (i == 0 || level_end(l, i - 1) < trace_slice_end(t, r))
		return false;
	*out = (struct slice_ref){ r.track, r.depth - 1, (uint32_t)(i - 1) };
	return true;
}

bool
query_first_child(const struct trace *t, struct slice_ref r,
    struct slice_ref *out)
{
	const struct track *tr = &t->tracks[r.track];
	if (r.depth + 1 >= tr->ndepth)
		return false;
	const struct slice *s = trace_slice(t, r);
	ttv_ns end = trace_slice_end(t, r);
	const struct depth_level *l = &tr->depth[r.depth + 1];
	size_t i = level_first_start(l, s->start);
	if (i < l->len && l->slices[i].start <= end &&
	    (l->slices[i].start < end || end == s->start)) {
		*out = (struct slice_ref){ r.track, r.depth + 1, (uint32_t)i };
		return true;
	}
	return false;
}

bool
query_next_sibling(const struct trace *t, struct slice_ref r,
    struct slice_ref *out)
{
	const struct depth_level *l = &t->tracks[r.track].depth[r.depth];
	if ((size_t)r.index + 1 >= l->len)
		return false;
	*out = r;
	out->index++;
	return true;
}

bool
query_prev_sibling(const struct trace *t, struct slice_ref r,
    struct slice_ref *out)
{
	if (r.index == 0)
		return false;
	*out = r;
	out->index--;
	return true;
}

ttv_ns
query_self_time(const struct trace *t, struct slice_ref r)
{
	const struct track *tr = &t->tracks[r.track];
	const struct slice *s = trace_slice(t, r);
	ttv_ns dur = trace_slice_dur(t, r);
	if (r.depth + 1 >= tr->ndepth)
		return dur;
	const struct depth_level *l = &tr->depth[r.depth + 1];
	ttv_ns end = s->start + dur, child = 0;
	/* A call of many children: an index has their time summed, and
	 * finds them reading no more than the blocks at their two ends. */
	if (summary_level(t, r.track, r.depth + 1) != NULL) {
		size_t i = summary_first_start(t, r.track, r.depth + 1,
		    s->start);
		size_t j = summary_first_start(t, r.track, r.depth + 1, end);
		child = summary_busy(t, r.track, r.depth + 1, i, j);
		return child > dur ? 0 : dur - child;
	}
	size_t i = level_first_start(l, s->start);
	for (; i < l->len && l->slices[i].start < end; i++)
		child += level_dur(l, i);
	return child > dur ? 0 : dur - child;
}

size_t
query_call_path(const struct trace *t, struct slice_ref r,
    struct slice_ref **path)
{
	size_t n = (size_t)r.depth + 1, k = n;
	*path = xreallocarray(NULL, n, sizeof **path);
	struct slice_ref cur = r;
	(*path)[--k] = cur;
	while (k > 0 && query_parent(t, cur, &cur))
		(*path)[--k] = cur;
	if (k > 0) {
		/* A hole in the stack (should not happen): compact. */
		for (size_t i = 0; i < n - k; i++)
			(*path)[i] = (*path)[k + i];
		n -= k;
	}
	return n;
}
