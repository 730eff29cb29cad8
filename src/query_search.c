/* Name search (see query.h): every matching slice and instant, in time
 * order. Each track depth is already sorted, so the hits of one list are
 * sorted and the lists are merged by one sort of the collected hits. */
#include <stdlib.h>

#include "query.h"
#include "xalloc.h"

static int
cmp_hit(const void *a, const void *b)
{
	const struct search_hit *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->ref.track != y->ref.track)
		return x->ref.track < y->ref.track ? -1 : 1;
	if (x->ref.depth != y->ref.depth)
		return x->ref.depth < y->ref.depth ? -1 : 1;
	return x->ref.index < y->ref.index ? -1 : x->ref.index > y->ref.index;
}

void
query_search(const struct trace *t, const struct filter *f,
    const uint8_t *match, struct search_hit **hits, size_t *n)
{
	VEC(struct search_hit) v = { 0 };
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		if (!filter_track(f, ti))
			continue;
		const struct track *tr = &t->tracks[ti];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			for (size_t i = 0; i < l->len; i++) {
				func_id fn = l->slices[i].func;
				if (match[fn] && filter_func(f, fn))
					VEC_PUSH(&v, ((struct search_hit){
					    l->slices[i].start,
					    { ti, d, (uint32_t)i } }));
			}
		}
		for (size_t i = 0; i < tr->ninstants; i++) {
			func_id fn = tr->instants[i].func;
			if (match[fn] && filter_func(f, fn))
				VEC_PUSH(&v, ((struct search_hit){
				    tr->instants[i].t,
				    { ti, SEARCH_INSTANT, (uint32_t)i } }));
		}
	}
	xqsort(v.items, v.len, sizeof *v.items, cmp_hit);
	*hits = v.items;
	*n = v.len;
}
