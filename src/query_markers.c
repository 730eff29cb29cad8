/* Marker jumps (see query.h): binary search to the time, then a scan for
 * the kind and the track filter. */
#include "query.h"

static size_t
first_after(const struct trace *t, ttv_ns when)
{
	size_t lo = 0, hi = t->nmarkers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->markers[mid].t > when)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool
wanted(const struct trace *t, const struct filter *f, size_t i, int kind)
{
	const struct marker *m = &t->markers[i];
	if (kind >= 0 && m->kind != kind)
		return false;
	return m->track >= t->ntracks || filter_track(f, m->track);
}

ssize_t
query_marker_next(const struct trace *t, const struct filter *f, ttv_ns when,
    int kind)
{
	for (size_t i = first_after(t, when); i < t->nmarkers; i++)
		if (wanted(t, f, i, kind))
			return (ssize_t)i;
	return -1;
}

ssize_t
query_marker_prev(const struct trace *t, const struct filter *f, ttv_ns when,
    int kind)
{
	/* Markers at exactly `when` are not "before" it. */
	size_t lo = 0, hi = t->nmarkers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->markers[mid].t >= when)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (size_t i = lo; i-- > 0;)
		if (wanted(t, f, i, kind))
			return (ssize_t)i;
	return -1;
}
