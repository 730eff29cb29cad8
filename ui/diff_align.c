/* Two timelines aligned: the arithmetic and the instants (diff_align.h). */
#include <stdlib.h>
#include <string.h>

#include "diff_align.h"

ttv_ns
diff_align_offset(ttv_ns at_new, ttv_ns at_base)
{
	ttv_ns off;

	if (!__builtin_sub_overflow(at_new, at_base, &off))
		return off;
	return at_new > at_base ? TTV_NS_MAX : TTV_NS_MIN;
}

ttv_ns
diff_align_shift(ttv_ns t, ttv_ns off)
{
	ttv_ns r;

	if (!__builtin_add_overflow(t, off, &r))
		return r;
	return off > 0 ? TTV_NS_MAX : TTV_NS_MIN;
}

void
diff_align_window(ttv_ns t0, ttv_ns t1, ttv_ns off, ttv_ns *b0, ttv_ns *b1)
{
	/* -off saturated: -TTV_NS_MIN does not exist. */
	ttv_ns back = off == TTV_NS_MIN ? TTV_NS_MAX : -off;
	ttv_ns span;

	if (__builtin_sub_overflow(t1, t0, &span) || span <= 0)
		span = 1;
	if (!__builtin_add_overflow(t0, back, b0) &&
	    !__builtin_add_overflow(t1, back, b1) && *b1 > *b0)
		return;
	/* Past an end of the time axis: pinned to it, the span kept. */
	if (back < 0) {
		*b0 = TTV_NS_MIN;
		*b1 = TTV_NS_MIN + span;
	} else {
		*b1 = TTV_NS_MAX;
		*b0 = TTV_NS_MAX - span;
	}
}

bool
diff_align_first_call(const struct trace *t, const struct filter *f,
    const char *name, struct slice_ref *ref)
{
	uint8_t *named = NULL;
	bool found = false;
	ttv_ns best = TTV_NS_MAX;

	for (func_id fn = 0; fn < t->nfuncs; fn++) {
		if (strcmp(trace_func_name(t, fn), name) != 0 ||
		    !filter_func(f, fn))
			continue;
		if (named == NULL) {
			named = calloc(t->nfuncs, 1);
			if (named == NULL)
				return false;
		}
		named[fn] = 1;
	}
	if (named == NULL)
		return false;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i) || tr->kind == TRACK_COUNTER)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			/* by start: the first of the function is the
			 * earliest at this depth */
			for (size_t k = 0; k < l->len &&
			    l->slices[k].start < best; k++) {
				if (l->slices[k].func >= t->nfuncs ||
				    !named[l->slices[k].func])
					continue;
				best = l->slices[k].start;
				*ref = (struct slice_ref){ i, d, (uint32_t)k };
				found = true;
				break;
			}
		}
	}
	free(named);
	return found;
}

bool
diff_align_marker_at(const struct trace *a, ttv_ns at, size_t *ia)
{
	size_t lo = 0, hi = a->nmarkers;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->markers[mid].t < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= a->nmarkers)
		return false;
	*ia = lo;
	return true;
}

static bool
same_marker(const struct trace *a, const struct marker *x,
    const struct trace *b, const struct marker *y)
{
	return x->kind == y->kind && strcmp(trace_str(a, x->text),
	    trace_str(b, y->text)) == 0;
}

bool
diff_align_marker_same(const struct trace *a, size_t ia,
    const struct trace *b, size_t *ib)
{
	const struct marker *m;
	size_t nth = 0;

	if (ia >= a->nmarkers)
		return false;
	m = &a->markers[ia];
	for (size_t i = 0; i < ia; i++)
		nth += same_marker(a, &a->markers[i], a, m);
	for (size_t i = 0; i < b->nmarkers; i++)
		if (same_marker(a, m, b, &b->markers[i]) && nth-- == 0) {
			*ib = i;
			return true;
		}
	return false;
}
