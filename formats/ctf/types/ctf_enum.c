/*
 * The label of an enum value, and of a variant's tag: the first of the
 * enum's maps (ranges, in the order declared, overlapping or not) that
 * holds it. Decoding asks it of every enum value and every variant, so
 * an enum of many maps gets an index once resolved (ctf_enum_prepare):
 * its values cut into disjoint runs, each with the first map holding it,
 * found by binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_meta.h"

/* A value as compared: signed ones moved up by 2^63 so that unsigned
 * order is theirs. */
static uint64_t
key_of(const struct ctf_type *t, int64_t v)
{
	return t->is_signed ? (uint64_t)v ^ ((uint64_t)1 << 63) : (uint64_t)v;
}

const char *
ctf_enum_label(const struct ctf_type *t, uint64_t raw, int *index)
{
	const struct ctf_enum_index *ix = t->enum_index;
	if (ix != NULL) {
		uint64_t k = key_of(t, (int64_t)raw);
		size_t lo = 0, hi = ix->nruns;
		/* the last run starting at or before k */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ix->runs[mid].lo <= k)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && k <= ix->runs[lo - 1].hi) {
			uint32_t mi = ix->runs[lo - 1].map;
			if (index)
				*index = (int)mi;
			return t->maps[mi].label;
		}
		if (index)
			*index = -1;
		return NULL;
	}
	for (size_t i = 0; i < t->nmaps; i++) {
		const struct ctf_enum_map *mp = &t->maps[i];
		bool in = t->is_signed ?
		    (int64_t)raw >= mp->lo && (int64_t)raw <= mp->hi :
		    raw >= (uint64_t)mp->lo && raw <= (uint64_t)mp->hi;
		if (in) {
			if (index)
				*index = (int)i;
			return mp->label;
		}
	}
	if (index)
		*index = -1;
	return NULL;
}

struct span {
	uint64_t lo, hi;
	uint32_t map;
};

static int
by_lo(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->map < y->map ? -1 : x->map > y->map;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A min-heap of spans by map index: the maps holding the values swept. */
struct heap {
	const struct span **items;
	size_t n;
};

static void
heap_push(struct heap *h, const struct span *s)
{
	size_t i = h->n++;
	while (i > 0 && h->items[(i - 1) / 2]->map > s->map) {
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = s;
}

static void
heap_pop(struct heap *h)
{
	const struct span *last = h->items[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->items[c + 1]->map < h->items[c]->map)
			c++;
		if (h->items[c]->map >= last->map)
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->n > 0)
		h->items[i] = last;
}

/* The runs of a set of spans sorted by lo: between two consecutive
 * bounds (a start, or one past an end) the maps holding a value do not
 * change, so the first of them is the heap's top once the spans that
 * ended are off it. */
static void
make_runs(struct ctf_meta *m, struct ctf_enum_index *ix,
    const struct span *sp, size_t n)
{
	uint64_t *bounds = xcalloc(2 * n + 1, sizeof *bounds);
	size_t nb = 0;
	for (size_t i = 0; i < n; i++) {
		bounds[nb++] = sp[i].lo;
		if (sp[i].hi != UINT64_MAX)
			bounds[nb++] = sp[i].hi + 1;
	}
	xqsort(bounds, nb, sizeof *bounds, by_value);
	struct heap h = { xcalloc(n + 1, sizeof *h.items), 0 };
	struct ctf_enum_run *runs = xcalloc(2 * n + 1, sizeof *runs);
	size_t nr = 0, next = 0;
	for (size_t b = 0; b < nb; b++) {
		if (b > 0 && bounds[b] == bounds[b - 1])
			continue;
		uint64_t at = bounds[b];
		while (next < n && sp[next].lo <= at)
			heap_push(&h, &sp[next++]);
		while (h.n > 0 && h.items[0]->hi < at)
			heap_pop(&h);
		if (h.n == 0)
			continue;
		/* up to the next bound, or to the end of the values */
		size_t e = b + 1;
		while (e < nb && bounds[e] == at)
			e++;
		uint64_t end = e < nb ? bounds[e] - 1 : UINT64_MAX;
		uint32_t mi = h.items[0]->map;
		if (nr > 0 && runs[nr - 1].map == mi && runs[nr - 1].hi + 1 == at)
			runs[nr - 1].hi = end;
		else
			runs[nr++] = (struct ctf_enum_run){ at, end, mi };
	}
	/* kept at their number, which the maps may not reach */
	ix->runs = ctf_alloc(m, (nr ? nr : 1) * sizeof *runs);
	memcpy(ix->runs, runs, nr * sizeof *runs);
	ix->nruns = nr;
	free(runs);
	free(h.items);
	free(bounds);
}

/* What the event header plan wants of an unsigned enum: how far the maps
 * cover 0, 1, 2... without a gap, maps that end at UINT64_MAX left out
 * (as header_plan's own loop over a few maps does). */
static void
prefix(struct ctf_enum_index *ix, const struct span *sp, size_t n)
{
	uint64_t next = 0;
	for (size_t i = 0; i < n && sp[i].lo <= next; i++) {
		if (sp[i].hi == UINT64_MAX || sp[i].hi < next)
			continue;
		ix->prefix_max = sp[i].hi;
		ix->prefix_any = true;
		next = sp[i].hi + 1;
	}
}

void
ctf_enum_prepare(struct ctf_meta *m, struct ctf_type *t)
{
	if (t->enum_index != NULL || t->nmaps < CTF_ENUM_INDEXED)
		return;
	uint64_t k1 = (uint64_t)(uintptr_t)t->maps;
	uint64_t k2 = (uint64_t)t->nmaps << 1 | t->is_signed;
	uint32_t pos;
	if (hashmap_get(&m->enum_maps, k1, k2, &pos)) {
		t->enum_index = m->enum_indexes[pos];
		return;
	}
	struct span *sp = xcalloc(t->nmaps, sizeof *sp);
	size_t n = 0;
	for (size_t i = 0; i < t->nmaps; i++) {
		uint64_t lo = key_of(t, t->maps[i].lo);
		uint64_t hi = key_of(t, t->maps[i].hi);
		if (lo <= hi)	/* else it holds no value */
			sp[n++] = (struct span){ lo, hi, (uint32_t)i };
	}
	xqsort(sp, n, sizeof *sp, by_lo);
	struct ctf_enum_index *ix = ctf_alloc(m, sizeof *ix);
	make_runs(m, ix, sp, n);
	if (!t->is_signed)
		prefix(ix, sp, n);
	free(sp);
	m->enum_indexes = ctf_grow(m, m->enum_indexes, m->nenum_indexes,
	    &m->enum_indexes_cap, sizeof *m->enum_indexes);
	m->enum_indexes[m->nenum_indexes] = ix;
	hashmap_put(&m->enum_maps, k1, k2, (uint32_t)m->nenum_indexes++);
	t->enum_index = ix;
}
