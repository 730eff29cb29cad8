/*
 * The stable time sort the FXT reader replays out-of-order threads with
 * (formats/fxt/fxt_util.c): sorted by time, equal times in their first order,
 * on inputs that take each of its paths — already sorted, nearly sorted
 * (insertion), far from sorted (merge sort over runs), reversed, all
 * equal, many duplicates — and several element sizes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"

struct e16 { int64_t t; uint64_t seq; };
struct e40 { int64_t t; uint64_t seq; char pad[24]; };

static int failures;

static uint64_t rnd = 88172645463325252ULL;

static uint64_t
next(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return rnd;
}

/* Fills n times by pattern; seq numbers record the original order. */
static void
fill(int64_t *t, size_t n, int pattern)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (pattern) {
		case 0: t[i] = (int64_t)i; break;			/* sorted */
		case 1: t[i] = (int64_t)(i * 10) - (int64_t)(next() % 25); break;
		case 2: t[i] = (int64_t)(next() % 1000000); break;	/* random */
		case 3: t[i] = (int64_t)(n - i); break;		/* reversed */
		case 4: t[i] = 7; break;				/* equal */
		case 5: t[i] = (int64_t)(next() % 5); break;		/* dups */
		default:	/* one far-late element per 1000 (an outer
				 * scope written at its end) */
			t[i] = i % 1000 == 999 ? (int64_t)(i - 990) * 3 :
			    (int64_t)i * 3;
			break;
		}
	}
}

#define CHECK_SORT(type, n, pattern) do {                                 \
	type *a = calloc(n, sizeof *a);                                       \
	int64_t *tt = malloc((n) * sizeof *tt);                               \
	fill(tt, n, pattern);                                                 \
	for (size_t i = 0; i < (n); i++) {                                    \
		a[i].t = tt[i];                                                   \
		a[i].seq = i;                                                     \
	}                                                                     \
	fxt_sort_by_time(a, n, sizeof *a);                                    \
	for (size_t i = 1; i < (n); i++)                                      \
		if (a[i].t < a[i - 1].t || (a[i].t == a[i - 1].t &&               \
		    a[i].seq < a[i - 1].seq)) {                                   \
			fprintf(stderr, "FAIL: %s n=%zu pattern %d at %zu\n",         \
			    #type, (size_t)(n), pattern, i);                          \
			failures++;                                                   \
			break;                                                        \
		}                                                                 \
	/* A permutation: the seq numbers are all there. */                   \
	uint64_t sum = 0;                                                     \
	for (size_t i = 0; i < (n); i++)                                      \
		sum += a[i].seq;                                                  \
	if ((n) > 0 && sum != (uint64_t)(n) * ((n) - 1) / 2) {                \
		fprintf(stderr, "FAIL: %s n=%zu pattern %d: lost elements\n",   \
		    #type, (size_t)(n), pattern);                                 \
		failures++;                                                       \
	}                                                                     \
	free(a);                                                              \
	free(tt);                                                             \
} while (0)

int
main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 31, 32, 33, 100, 1000,
	    4099, 100000 };
	size_t k;
	int p;

	for (k = 0; k < sizeof sizes / sizeof *sizes; k++)
		for (p = 0; p <= 6; p++) {
			CHECK_SORT(struct e16, sizes[k], p);
			CHECK_SORT(struct e40, sizes[k], p);
		}
	return failures ? 1 : 0;
}
