/*
 * From a function to its calls: every call of a set of functions (the
 * instances, with a histogram of their durations and stepping from one
 * call to the next slower one), and the direct callers and callees of a
 * set of functions (the butterfly). Shared by the panes and the batch
 * modes --calls, --callers and --callees.
 *
 * Time ranges. Every aggregate query (query_stats, query_call_tree,
 * query_instances, query_butterfly, search_in_range and the exports built
 * on them) takes a range [t0, t1); (TTV_NS_MIN, TTV_NS_MAX) is the whole
 * trace. One rule for all of them: a call is in the range when it overlaps
 * it (a zero-length call when it lies in it), and its time is clipped to
 * the range: a call that starts before t0 counts from t0, one that ends
 * after t1 counts up to t1. Counts count every call in the range; totals,
 * self times, durations, percentiles and the order "slowest first" are of
 * the clipped times. A call's start is never changed.
 *
 * Calls that never returned. A call whose end is not in the trace (it
 * stopped inside the call) or whose beginning is not (it started inside
 * it), SLICE_INEXACT, has no duration. One rule for every query, pane and
 * batch mode: such a call is not a call in any count (query_stats,
 * query_instances, query_butterfly, the call tree, and what is built on
 * them: the functions, calls and callers panes, the flame graph, --stats,
 * --calls, --callers, --callees, --tree, --diff), and has no time in any
 * per-call number (durations, totals, self times, percentiles). It is
 * counted apart, as unfinished, for the views to say "+N unfinished". The
 * one place it keeps time is the call tree (and the flame graph, --tree,
 * the collapsed export): there time is shared out along the stacks, and a
 * call that never returned still holds the time it ran inside the range
 * and the calls it made, so that every moment is in one stack and the
 * widths add up, as a range cuts a call at its edges. Edges of the
 * butterfly are calls that returned (a call made by one that never
 * returned is a callee of it). SQL's slice table lists them, with dur -1
 * as Perfetto gives a slice that did not end.
 *
 * Recursion (butterfly), as a flame graph counts it: once per outermost
 * call. A call along an edge (a caller calling one of the functions, or
 * one of them calling a callee) made inside another call along the same
 * edge adds to the edge's count, not to its time, which the outer call
 * holds already; the functions' total is that of their outermost calls.
 * No time is counted twice on one row; without recursion the callers'
 * times add up to the total, and so do the callees' times and the self
 * time. The self time is the functions' own time in all their calls.
 * Where no call is nested along an edge, the edge's count and time are
 * what llvm-xray graph gives it.
 */
#ifndef TTV_QUERY_CALLS_H
#define TTV_QUERY_CALLS_H

#include "query.h"

/* ------------------------------------------------------------ instances */

/* 24 bytes: a list holds every call of a function, 10^7 of them and
 * more; the self time is worked out for the rows that are shown
 * (call_instance_self), not for all. */
struct call_instance {
	struct slice_ref ref;
	ttv_ns dur;		/* inside the range */
};

/* A call's self time in [t0, t1) (its list's range): its duration less
 * its direct children's, each clipped to the range. */
ttv_ns call_instance_self(const struct trace *t, const struct call_instance *c,
    ttv_ns t0, ttv_ns t1);

enum instance_key {
	INSTANCES_BY_DURATION,	/* slowest first */
	INSTANCES_BY_START,	/* earliest first */
	INSTANCES_BY_THREAD,	/* by track, then start */
	INSTANCES_KEY_COUNT
};

struct instance_list {
	/* Every call, by track then start then depth: the order of ties in
	 * every sort. */
	struct call_instance *items;
	size_t n;
	ttv_ns t0, t1;		/* the range asked for */
	/* items by decreasing duration, ties in items order: the order
	 * instances_step walks. */
	uint32_t *by_dur;
	/* The order shown: instances_sort() sets it (by duration at first,
	 * when it is by_dur itself). */
	uint32_t *order;
	enum instance_key key;
	bool reverse;
	bool truncated;		/* more than UINT32_MAX calls: the rest left out */
	ttv_ns total, min, max;
	/* Calls of the functions in the range that never returned: not in
	 * the list. */
	uint64_t unfinished;
	/* llvm-xray account's percentiles: the duration at index
	 * floor(q * n) of the durations in increasing order. */
	ttv_ns p50, p90, p99;
};

/* Every call of a function in `match` (one byte per function) that the
 * filter lets through, on its tracks, in [t0, t1). As query_stats, leaves
 * out the calls that never returned (counted in l->unfinished), so its
 * count is the --stats count. */
void query_instances(const struct trace *t, const struct filter *f,
    const uint8_t *match, ttv_ns t0, ttv_ns t1, struct instance_list *out);
/* Sets l->order; reverse turns it around (fastest first, latest first). */
void instances_sort(const struct trace *t, struct instance_list *l,
    enum instance_key key, bool reverse);
const char *instances_key_name(enum instance_key k);
int instances_key_parse(const char *name);
void instances_free(struct instance_list *l);

/* Stepping through a function's calls in duration order from a call r
 * (one of the list's, or any slice: it is placed by its clipped duration,
 * then track, start, depth): the next slower call (slower = true) or the
 * next faster one. False at either end. */
bool instances_step(const struct trace *t, const struct instance_list *l,
    struct slice_ref r, bool slower, struct slice_ref *out);
/* Where call r falls in that order: the index in by_dur of the first call
 * that does not come before it, which is r's own rank (0: the slowest)
 * when *found says the list holds r. */
size_t instances_place(const struct trace *t, const struct instance_list *l,
    struct slice_ref r, bool *found);

/* A duration histogram of the list for a pane: nbuckets buckets on a log
 * scale from the shortest call to the longest (fewer when the durations
 * span fewer distinct values). */
struct instance_histogram {
	size_t n;		/* buckets */
	ttv_ns *edge;		/* n + 1: bucket i holds [edge[i], edge[i + 1]),
				 * the last one its top edge too */
	uint64_t *count;
	uint64_t peak;		/* the largest count */
	size_t p50, p90, p99;	/* the buckets of the percentiles */
};
void instances_histogram(const struct instance_list *l, size_t nbuckets,
    struct instance_histogram *out);
void instance_histogram_free(struct instance_histogram *h);

/* ------------------------------------------------------------ butterfly */

/* One direct caller or callee. */
struct call_edge {
	func_id func;		/* CALL_NONE: no caller (an outermost frame) */
	uint64_t count;		/* calls along this edge */
	ttv_ns total;		/* their time, once per outermost call */
};

struct butterfly {
	uint64_t count;		/* calls of the functions that returned */
	uint64_t unfinished;	/* and those that never did: in no edge */
	uint64_t outermost;	/* of them, those not inside another */
	ttv_ns total;		/* of the outermost calls */
	ttv_ns self;		/* of all calls: the functions' own time */
	/* By total time, largest first (then count, then name). */
	struct call_edge *callers, *callees;
	size_t ncallers, ncallees;
};

/* The callers and callees of the functions in `match`, on the tracks the
 * filter lets through, in [t0, t1) (see the rules at the top). Edges to
 * functions the function filter leaves out are not listed. A call that
 * never returned is in no count and no time: neither one of the
 * functions' (they count it in unfinished) nor a callee's; a call it made
 * is its callee as any other. */
void query_butterfly(const struct trace *t, const struct filter *f,
    const uint8_t *match, ttv_ns t0, ttv_ns t1, struct butterfly *out);
void butterfly_free(struct butterfly *b);

/* --------------------------------------------------------------- search */

/* Keeps the hits of query_search that are in [t0, t1) by the range rule
 * (slices that overlap it, instants in it); returns the new count. */
size_t search_in_range(const struct trace *t, struct search_hit *hits,
    size_t n, ttv_ns t0, ttv_ns t1);

#endif
