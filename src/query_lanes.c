/* The order of a trace's lanes, as the timeline shows them and as lists
 * sorted by thread follow them. */
#include <stdint.h>
#include <stdlib.h>

#include "query.h"
#include "xalloc.h"

/* By process, in the order processes first appear among the tracks;
 * within one, threads before async tracks and counters, the process's
 * main thread (tid = pid) first, then by the time of each lane's first
 * event, then as the reader made them. CPU lanes last. */
static int
kind_rank(enum track_kind k)
{
	switch (k) {
	case TRACK_THREAD: return 0;
	case TRACK_ASYNC: return 1;
	case TRACK_COUNTER: return 2;
	default: return 3;
	}
}

struct lane_key {
	uint64_t group;		/* CPU lane, process rank, kind, main thread */
	ttv_ns first;
	uint32_t index;
};

static int
cmp_lane_key(const void *a, const void *b)
{
	const struct lane_key *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void
trace_lane_order(const struct trace *t, uint32_t *order, uint32_t *pos)
{
	uint32_t n = t->ntracks;
	uint32_t *first = xcalloc((size_t)t->nprocesses + 1, sizeof *first);
	struct lane_key *key = xcalloc(n ? n : 1, sizeof *key);

	for (uint32_t i = 0; i < n; i++) {
		const struct track *tr = &t->tracks[i];
		uint32_t p = tr->process < t->nprocesses ? tr->process :
		    t->nprocesses;
		bool cpu = tr->kind == TRACK_CPU;
		bool main_thread = tr->kind == TRACK_THREAD &&
		    p < t->nprocesses && t->processes[p].pid == tr->tid;
		if (first[p] == 0)
			first[p] = i + 1;
		key[i].group = (uint64_t)cpu << 63 |
		    (uint64_t)(cpu ? 0 : first[p]) << 3 |
		    (uint64_t)kind_rank(tr->kind) << 1 | !main_thread;
		/* CPU lanes stay in the reader's (CPU number) order. */
		key[i].first = cpu ? 0 : tr->first;
		key[i].index = i;
	}
	xqsort(key, n, sizeof *key, cmp_lane_key);
	for (uint32_t i = 0; i < n; i++) {
		if (order != NULL)
			order[i] = key[i].index;
		if (pos != NULL)
			pos[key[i].index] = i;
	}
	free(key);
	free(first);
}
