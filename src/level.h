/*
 * Searches and clips within one depth of one thread: the slices of a
 * depth are sorted and never overlap, so their starts and their ends are
 * both sorted and every lookup is a binary search (so is one in a
 * thread's instants, which are in time order). The ground floor of the
 * queries: the summaries (summary.c) and the chunked walks (chunks.c) both
 * stand on these, and the window queries (query_window.c) on all three.
 */
#ifndef TTV_LEVEL_H
#define TTV_LEVEL_H

#include <stddef.h>

#include "model.h"

/* Totals of durations near 2^63 ns wrap around (damaged input): defined
 * behaviour, and the same in any order of addition. */
static inline ttv_ns
add_ns(ttv_ns a, ttv_ns b)
{
	return (ttv_ns)((uint64_t)a + (uint64_t)b);
}

/* The first index of a depth whose slice starts at or after t. */
size_t level_first_start(const struct depth_level *l, ttv_ns t);
/* The same, knowing the answer is in [lo, hi]: a search of that part. */
size_t level_first_start_in(const struct depth_level *l, ttv_ns t,
    size_t lo, size_t hi);
/* The first index in [lo, hi) whose slice ends after t0 (or has no
 * length and starts at or after it), hi if none. */
size_t level_first_ending_in(const struct depth_level *l, ttv_ns t0,
    size_t lo, size_t hi);
/* The first instant of a track at or after t (a track's instants are in
 * time order). */
size_t track_first_instant(const struct track *tr, ttv_ns t);
/* The index range [*lo, *hi) of slices at one depth overlapping [t0, t1).
 * A zero-length slice at t0 counts as overlapping. O(log n). */
void query_window(const struct track *tr, uint32_t depth, ttv_ns t0,
    ttv_ns t1, size_t *lo, size_t *hi);

/* The part of [start, end) inside [t0, t1), as a length (0 if none). */
static inline ttv_ns
range_clip(ttv_ns start, ttv_ns end, ttv_ns t0, ttv_ns t1)
{
	ttv_ns a = start > t0 ? start : t0;
	ttv_ns b = end < t1 ? end : t1;
	return b > a ? b - a : 0;
}

/* The duration of slice i of l counted inside [t0, t1). */
static inline ttv_ns
level_clip(const struct depth_level *l, size_t i, ttv_ns t0, ttv_ns t1)
{
	ttv_ns s = l->slices[i].start, d = level_dur(l, i);
	if (s >= t0 && s <= t1 && (uint64_t)d <= (uint64_t)t1 - (uint64_t)s)
		return d;
	return range_clip(s, s + d, t0, t1);
}

/* Whether slice i of l is in [t0, t1) by the range rule: it overlaps the
 * range, or it has no length and lies in it. */
static inline bool
level_in_range(const struct depth_level *l, size_t i, ttv_ns t0, ttv_ns t1)
{
	ttv_ns s = l->slices[i].start;
	if (s >= t1)
		return false;
	ttv_ns e = level_end(l, i);
	return e > t0 || (e == s && s >= t0);
}

/* The time of the children, in cl (cs, cn: its slices and count), of a
 * call of [start, end) one depth above, for a walk of the parents by
 * increasing start: *c (start at 0) is where the children not passed yet
 * begin, *cc level_dur_walk's cursor in cl. Most calls have no child or
 * one, at random, and a loop mispredicts at random: the first child is
 * taken without a branch (k stays inside the level when *c is past its
 * end). */
static inline ttv_ns
level_children_walk(const struct depth_level *cl, const struct slice *cs,
    size_t cn, size_t *c, size_t *cc, ttv_ns start, ttv_ns end)
{
	ttv_ns child = 0;
	size_t i = *c;
	while (i < cn && cs[i].start < start)
		i++;
	if (cn > 0) {
		size_t k = i < cn ? i : cn - 1;
		ttv_ns take = -(ttv_ns)((i < cn) && (cs[k].start < end));
		child = add_ns(child, level_dur_walk(cl, k, cc) & take);
		i += (size_t)(take & 1);
	}
	while (i < cn && cs[i].start < end)
		child = add_ns(child, level_dur_walk(cl, i++, cc));
	*c = i;
	return child;
}

#endif
