/* Binary searches within one depth (see level.h). */
#include "level.h"

size_t
level_first_ending_in(const struct depth_level *l, ttv_ns t0, size_t lo,
    size_t hi)
{
	const struct slice *s = l->slices;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		ttv_ns end = level_end(l, mid);
		if (end > t0 || (s[mid].dur32 == 0 && s[mid].start >= t0))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First index whose end is > t0 (or a zero-length slice at t0). */
static size_t
first_ending_after(const struct depth_level *l, ttv_ns t0)
{
	return level_first_ending_in(l, t0, 0, l->len);
}

size_t
level_first_start(const struct depth_level *l, ttv_ns t)
{
	return level_first_start_in(l, t, 0, l->len);
}

size_t
level_first_start_in(const struct depth_level *l, ttv_ns t, size_t lo,
    size_t hi)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->slices[mid].start >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void
query_window(const struct track *tr, uint32_t depth, ttv_ns t0, ttv_ns t1,
    size_t *lo, size_t *hi)
{
	*lo = *hi = 0;
	if (depth >= tr->ndepth)
		return;
	const struct depth_level *l = &tr->depth[depth];
	*lo = first_ending_after(l, t0);
	*hi = level_first_start(l, t1);
	if (*hi < *lo)
		*hi = *lo;
}

size_t
track_first_instant(const struct track *tr, ttv_ns t)
{
	size_t lo = 0, hi = tr->ninstants;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tr->instants[mid].t >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
