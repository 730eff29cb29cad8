/*
 * Address ranges of processes, each address to the first range that
 * covered it (see ctf_spans.h).
 *
 * Two treaps keyed by (process, first address): `pieces`, disjoint
 * pieces each giving its addresses to one range, only ever added to;
 * and `covered`, what all the ranges so far hold, as disjoint intervals
 * that a new range merges into one. A new range paints the gaps it finds
 * in `covered` as pieces of its own, and the intervals it met are gone
 * from `covered` after: each interval is met once, so that ranges piled
 * over each other cost no more than ranges side by side. The trees'
 * shape comes from priorities drawn here, never from the trace, so their
 * depth stays near the logarithm of their size whatever order the
 * ranges come in.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf_spans.h"
#include "xalloc.h"

void
ctf_spans_init(struct ctf_spans *s)
{
	memset(s, 0, sizeof *s);
	s->len = 1;		/* node 0 is "none" */
	s->seed = 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)s;
}

void
ctf_spans_free(struct ctf_spans *s)
{
	free(s->n);
	ctf_spans_init(s);
}

static uint32_t
node_new(struct ctf_spans *s, int64_t pid, uint64_t lo, uint64_t hi,
    uint32_t val)
{
	uint32_t i;
	if (s->free_list != 0) {
		i = s->free_list;
		s->free_list = s->n[i].left;
	} else {
		if (s->len >= s->cap) {
			s->cap = s->cap ? s->cap * 2 : 16;
			s->n = xreallocarray(s->n, s->cap, sizeof *s->n);
		}
		i = s->len++;
	}
	/* xorshift64 */
	s->seed ^= s->seed << 13;
	s->seed ^= s->seed >> 7;
	s->seed ^= s->seed << 17;
	s->n[i] = (struct ctf_span_node){ pid, lo, hi, val,
	    (uint32_t)(s->seed >> 32), 0, 0 };
	return i;
}

static void
node_put(struct ctf_spans *s, uint32_t i)
{
	s->n[i].left = s->free_list;
	s->free_list = i;
}

/* Splits tree t into the nodes whose key is before (pid, lo) (or at it,
 * with or_equal) and the rest. */
static void
split(struct ctf_spans *s, uint32_t t, int64_t pid, uint64_t lo,
    bool or_equal, uint32_t *l, uint32_t *r)
{
	if (t == 0) {
		*l = *r = 0;
		return;
	}
	const struct ctf_span_node *x = &s->n[t];
	if (x->pid < pid || (x->pid == pid && (x->lo < lo ||
	    (or_equal && x->lo == lo)))) {
		split(s, x->right, pid, lo, or_equal, &s->n[t].right, r);
		*l = t;
	} else {
		split(s, x->left, pid, lo, or_equal, l, &s->n[t].left);
		*r = t;
	}
}

/* Joins two trees, every key of a before every key of b. */
static uint32_t
merge(struct ctf_spans *s, uint32_t a, uint32_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	if (s->n[a].prio > s->n[b].prio) {
		uint32_t r = merge(s, s->n[a].right, b);
		s->n[a].right = r;
		return a;
	}
	uint32_t l = merge(s, a, s->n[b].left);
	s->n[b].left = l;
	return b;
}

static uint32_t
insert(struct ctf_spans *s, uint32_t t, uint32_t node)
{
	uint32_t l, r;
	split(s, t, s->n[node].pid, s->n[node].lo, false, &l, &r);
	return merge(s, merge(s, l, node), r);
}

/* The node of the largest key at or before (pid, lo), or 0. */
static uint32_t
find_le(const struct ctf_spans *s, uint32_t t, int64_t pid, uint64_t lo)
{
	uint32_t best = 0;
	while (t != 0) {
		const struct ctf_span_node *x = &s->n[t];
		if (x->pid < pid || (x->pid == pid && x->lo <= lo)) {
			best = t;
			t = x->right;
		} else
			t = x->left;
	}
	return best;
}

/* The nodes of tree t in key order, appended to v. */
typedef VEC(uint32_t) node_list;

static void
in_order(const struct ctf_spans *s, uint32_t t, node_list *v)
{
	while (t != 0) {
		in_order(s, s->n[t].left, v);
		VEC_PUSH(v, t);
		t = s->n[t].right;
	}
}

static void
paint(struct ctf_spans *s, int64_t pid, uint64_t lo, uint64_t hi,
    uint32_t val)
{
	uint32_t node = node_new(s, pid, lo, hi, val);
	s->pieces = insert(s, s->pieces, node);
}

/* Gives val what [a, b] of pid holds that nothing held before. */
static void
add_range(struct ctf_spans *s, int64_t pid, uint64_t a, uint64_t b,
    uint32_t val)
{
	uint32_t before, rest, within, after;
	split(s, s->covered, pid, a, false, &before, &rest);
	split(s, rest, pid, b, true, &within, &after);
	uint64_t cur = a, nlo = a, nhi = b;
	bool open = true;	/* [cur, b] may still have gaps */
	/* the interval starting before a may reach into the range */
	uint32_t last = before;
	while (last != 0 && s->n[last].right != 0)
		last = s->n[last].right;
	if (last != 0 && s->n[last].pid == pid && s->n[last].hi >= a) {
		nlo = s->n[last].lo;
		if (s->n[last].hi >= b) {
			nhi = s->n[last].hi;
			open = false;
		} else
			cur = s->n[last].hi + 1;
		uint32_t kept, one;
		split(s, before, pid, nlo, false, &kept, &one);
		node_put(s, one);
		before = kept;
	}
	node_list met = { 0 };
	in_order(s, within, &met);
	for (size_t i = 0; i < met.len; i++) {
		uint32_t m = met.items[i];
		uint64_t mlo = s->n[m].lo, mhi = s->n[m].hi;
		node_put(s, m);
		if (mhi > nhi)
			nhi = mhi;
		if (!open)
			continue;
		if (mlo > cur)
			paint(s, pid, cur, mlo - 1, val);
		if (mhi >= b)
			open = false;
		else
			cur = mhi + 1;
	}
	VEC_FREE(&met);
	if (open)
		paint(s, pid, cur, b, val);
	uint32_t c = node_new(s, pid, nlo, nhi, 0);
	s->covered = merge(s, merge(s, before, c), after);
}

void
ctf_spans_add(struct ctf_spans *s, int64_t pid, uint64_t lo, uint64_t size,
    uint32_t val)
{
	if (size == 0)
		return;
	uint64_t last = lo + (size - 1);
	if (last < lo) {
		/* past the top: the rest from address 0 */
		add_range(s, pid, lo, UINT64_MAX, val);
		add_range(s, pid, 0, last, val);
	} else
		add_range(s, pid, lo, last, val);
}

bool
ctf_spans_find(const struct ctf_spans *s, int64_t pid, uint64_t addr,
    uint32_t *val)
{
	uint32_t i = find_le(s, s->pieces, pid, addr);
	if (i == 0 || s->n[i].pid != pid || addr > s->n[i].hi)
		return false;
	*val = s->n[i].val;
	return true;
}
