/* Marker jumps (see query.h): binary search to the time, then a scan for
 * the kind and the track filter. */
#include "query.h"
#include "xalloc.h"

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

size_t
query_markers(const struct trace *t, const struct filter *f, size_t **rows)
{
	return query_markers_from(t, f, 0, rows);
}

size_t
query_markers_from(const struct trace *t, const struct filter *f,
    size_t from, size_t **rows)
{
	size_t n = 0;

	if (from > t->nmarkers)
		from = t->nmarkers;
	*rows = xcalloc(t->nmarkers - from ? t->nmarkers - from : 1,
	    sizeof **rows);
	for (size_t i = from; i < t->nmarkers; i++) {
		uint32_t tr = t->markers[i].track;
		if (tr == UINT32_MAX || tr >= t->ntracks || filter_track(f, tr))
			(*rows)[n++] = i;
	}
	return n;
}
