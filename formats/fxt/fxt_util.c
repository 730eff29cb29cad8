/*
 * Small helpers of the FXT reader: an open-addressing hash map keyed by two
 * 64-bit words (threads by pid and tid, counters, async ids...) and a
 * stable merge sort by time for the event arrays that must be replayed in
 * timestamp order.
 */
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ULL;
	h ^= h >> 32;
	return h;
}

bool
fxt_map_get(const struct fxt_map *m, uint64_t a, uint64_t b, uint32_t *v)
{
	size_t i;

	if (m->cap == 0)
		return false;
	for (i = mix(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct fxt_map_slot *s = &m->slots[i];
		if (!s->used)
			return false;
		if (s->a == a && s->b == b) {
			*v = s->v;
			return true;
		}
	}
}

static void
map_grow(struct fxt_map *m)
{
	struct fxt_map_slot *old = m->slots;
	size_t oldcap = m->cap, i, j;

	m->cap = oldcap ? oldcap * 2 : 64;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	for (i = 0; i < oldcap; i++) {
		if (!old[i].used)
			continue;
		for (j = mix(old[i].a, old[i].b) & (m->cap - 1); m->slots[j].used;
		    j = (j + 1) & (m->cap - 1))
			;
		m->slots[j] = old[i];
	}
	free(old);
}

void
fxt_map_put(struct fxt_map *m, uint64_t a, uint64_t b, uint32_t v)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap)
		map_grow(m);
	for (i = mix(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct fxt_map_slot *s = &m->slots[i];
		if (!s->used) {
			s->used = true;
			s->a = a;
			s->b = b;
			s->v = v;
			m->len++;
			return;
		}
		if (s->a == a && s->b == b) {
			s->v = v;
			return;
		}
	}
}

void
fxt_map_free(struct fxt_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

static int64_t
time_of(const unsigned char *e)
{
	int64_t t;

	memcpy(&t, e, sizeof t);
	return t;
}

/* Insertion sort of [lo, hi) by time, [lo, start) being sorted already;
 * stops (returning false) once it would move more than *budget elements.
 * Elements only move past strictly later ones: equal times keep their
 * order. */
static bool
insertion(unsigned char *a, size_t lo, size_t start, size_t hi, size_t size,
    size_t *budget)
{
	unsigned char e[64];
	size_t i, j;
	int64_t t;

	for (i = start > lo ? start : lo + 1; i < hi; i++) {
		t = time_of(a + i * size);
		if (t >= time_of(a + (i - 1) * size))
			continue;
		for (j = i - 1; j > lo && time_of(a + (j - 1) * size) > t; j--)
			;
		if (i - j > *budget)
			return false;
		*budget -= i - j;
		memcpy(e, a + i * size, size);
		memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
		memcpy(a + j * size, e, size);
	}
	return true;
}

/*
 * Stable sort by time. The arrays are nearly sorted in practice (complete
 * events arrive when their scope ends, a few places late), so an insertion
 * sort finishes them in one pass; if the input turns out to be far from
 * sorted, a bottom-up merge sort over runs of 32 takes over, so the worst
 * case stays O(n log n).
 */
void
fxt_sort_by_time(void *base, size_t n, size_t size)
{
	unsigned char *a = base, *tmp, *src, *dst, *swap;
	size_t width, i, budget = 8 * n, unlimited = SIZE_MAX;

	if (n < 2 || size > 64)
		return;
	for (i = 1; i < n; i++)
		if (time_of(a + i * size) < time_of(a + (i - 1) * size))
			break;
	if (i >= n || insertion(a, 0, i, n, size, &budget))
		return;
	for (i = 0; i < n; i += 32)
		insertion(a, i, i, i + 32 < n ? i + 32 : n, size, &unlimited);
	tmp = xreallocarray(NULL, n, size);
	src = a;
	dst = tmp;
	for (width = 32; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t l = i, lend = i + width < n ? i + width : n;
			size_t r = lend, rend = i + 2 * width < n ? i + 2 * width : n;
			size_t o = i;
			while (l < lend && r < rend) {
				if (time_of(src + r * size) < time_of(src + l * size))
					memcpy(dst + o++ * size, src + r++ * size, size);
				else
					memcpy(dst + o++ * size, src + l++ * size, size);
			}
			if (l < lend)
				memcpy(dst + o * size, src + l * size, (lend - l) * size);
			o += lend - l;
			if (r < rend)
				memcpy(dst + o * size, src + r * size, (rend - r) * size);
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(tmp);
}
