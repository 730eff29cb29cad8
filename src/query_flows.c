/*
 * The flow index (see query.h): flows sorted by the slice they leave and
 * by the one they reach, so following a flow from a slice is a binary
 * search rather than a walk over every flow.
 */
#include <stdlib.h>

#include "query.h"
#include "xalloc.h"

static int
cmp_ref(struct slice_ref a, struct slice_ref b)
{
	if (a.track != b.track)
		return a.track < b.track ? -1 : 1;
	if (a.depth != b.depth)
		return a.depth < b.depth ? -1 : 1;
	return a.index < b.index ? -1 : a.index > b.index;
}

static int
cmp_flow_key(const void *a, const void *b)
{
	const struct flow_key *x = a, *y = b;
	int c = cmp_ref(x->ref, y->ref);

	if (c != 0)
		return c;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

void
flow_index_build(const struct trace *t, struct flow_index *fi)
{
	size_t n = t->nflows;

	fi->n = n;
	fi->out = xcalloc(n ? n : 1, sizeof *fi->out);
	fi->in = xcalloc(n ? n : 1, sizeof *fi->in);
	for (size_t i = 0; i < n; i++) {
		fi->out[i] = (struct flow_key){ t->flows[i].from, 0, i };
		fi->in[i] = (struct flow_key){ t->flows[i].to, 0, i };
	}
	xqsort(fi->out, n, sizeof *fi->out, cmp_flow_key);
	xqsort(fi->in, n, sizeof *fi->in, cmp_flow_key);
}

void
flow_index_free(struct flow_index *fi)
{
	free(fi->out);
	free(fi->in);
	fi->out = fi->in = NULL;
	fi->n = 0;
}

const struct flow_key *
flow_index_at(const struct flow_index *fi, bool out, struct slice_ref r,
    size_t *n)
{
	const struct flow_key *k = out ? fi->out : fi->in;
	size_t lo = 0, hi = fi->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_ref(k[mid].ref, r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < fi->n && cmp_ref(k[end].ref, r) == 0; end++)
		;
	*n = end - lo;
	return k + lo;
}
