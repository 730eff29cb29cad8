/* Indexes by decreasing weight (see order.h). */
#include "config.h"

#include "order.h"

#include <stdlib.h>

#include "xalloc.h"

struct weighted {
	uint64_t weight;
	uint32_t index;
};

static int
cmp_weighted(const void *a, const void *b)
{
	const struct weighted *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void
order_by_weight(uint32_t *order, const uint64_t *weight, uint32_t n)
{
	struct weighted *w = xcalloc(n ? n : 1, sizeof *w);
	for (uint32_t i = 0; i < n; i++)
		w[i] = (struct weighted){ weight[i], i };
	xqsort(w, n, sizeof *w, cmp_weighted);
	for (uint32_t i = 0; i < n; i++)
		order[i] = w[i].index;
	free(w);
}
