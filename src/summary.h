/*
 * What an index adds to a model (doc/index-format.md, "Summaries"):
 * answers computed once, when the index was written, that the queries
 * take instead of walking every call. A model read from a trace has none
 * (trace->summary is NULL) and every query works without it.
 */
#ifndef TTV_SUMMARY_H
#define TTV_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "query.h"

/* A call still open when the input ended: the builder (or the reader)
 * closed it as unterminated. A reader resuming on data appended to the
 * trace starts from these (doc/index-format.md, "Ready to grow"). */
struct grow_frame {
	uint32_t track;
	uint32_t depth;
	ttv_ns start;
	func_id func;
	args_id args;
};

/*
 * Summaries of calls, per depth of a track: blocks of SUM_BLOCK calls
 * (consecutive at that depth), then nodes that each summarise SUM_FANOUT
 * nodes of the height below, up to one. A node says where its calls
 * start and end, how much time they take (busy), and per function in it
 * what query_stats' first pass would count: calls, samples, total, self,
 * min, max and the first longest call, and apart the calls that never
 * returned (the count rule of query_calls.h). A node with too many functions to
 * be worth it is not summarised (nentries SUM_NONE): its calls are read.
 */
#define SUM_BLOCK 512u
#define SUM_FANOUT 16u
#define SUM_NONE UINT32_MAX

enum { SUM_CALLED = 1, SUM_UNFINISHED = 2 };

struct sum_node {
	ttv_ns first_start, last_end;
	ttv_ns busy;		/* durations of all its calls */
	ttv_ns widest;		/* the longest of all its calls */
	uint64_t entry_first;	/* into the entries */
	uint32_t nentries;	/* SUM_NONE: not summarised */
	uint32_t pad;
};

struct sum_entry {
	func_id func;
	uint32_t longest;	/* index at the depth of the first longest */
	uint64_t count, weight;	/* exact calls, as query_stats counts them */
	ttv_ns total, self, min, max;	/* of the exact calls */
	uint64_t unfinished;	/* calls that never returned (SLICE_INEXACT) */
};

/* A depth's nodes: heights 0 (blocks) up, one after the other. */
struct sum_level {
	uint64_t node_first;	/* into the nodes */
	uint32_t nblocks;	/* 0: the depth is not summarised */
	uint32_t nheights;
};

/* Per track: the calls carrying each stored flag (bit b: 1 << b), for
 * --info. */
struct sum_track {
	uint64_t flagged[8];
};

struct trace_summary {
	/* The whole trace's function table: query_stats() over
	 * [TTV_NS_MIN, TTV_NS_MAX) with no filter, rows in function
	 * order. */
	const struct func_stats *stats;
	size_t nstats;
	bool has_stats;
	uint64_t stats_unfinished;	/* the table's unfinished */
	/* Per function (nfuncs of them, or NULL): SUM_CALLED if it has a
	 * call that returned on a track other than a CPU lane's,
	 * SUM_UNFINISHED one that never did, as --info counts them. */
	const uint8_t *called;
	/* Per track, the calls open at the end of the input, outermost
	 * first. */
	const struct grow_frame *frames;
	size_t nframes;
	/* Per depth (in track order, level_first[track] + depth), and per
	 * track; NULL when not stored. */
	const struct sum_level *levels;
	const uint64_t *level_first;
	const struct sum_node *nodes;
	const struct sum_entry *entries;
	const struct sum_track *tracks;
};

/* The summary of a depth of a track, or NULL. */
static inline const struct sum_level *
summary_level(const struct trace *t, uint32_t track, uint32_t depth)
{
	const struct trace_summary *s = t->summary;
	if (s == NULL || s->levels == NULL || track >= t->ntracks ||
	    depth >= t->tracks[track].ndepth)
		return NULL;
	const struct sum_level *l = &s->levels[s->level_first[track] + depth];
	return l->nblocks > 0 ? l : NULL;
}

/* The nodes of height h of a level, and how many. */
const struct sum_node *summary_nodes(const struct trace *t,
    const struct sum_level *l, uint32_t h, uint64_t *n);

/* The calls of a depth in [t0, t1) as a column of the timeline sees
 * them, from the summary's blocks alone: how many and how busy they keep
 * it (the blocks at its two ends counted in proportion to their overlap),
 * the longest of them, and whether a function `match` says yes to is
 * among them (match NULL: not asked). false when the summary cannot say:
 * no summary, no block there, or, when match is asked, a block whose
 * functions were too many to be listed. */
struct sum_column {
	double calls;
	ttv_ns busy;
	ttv_ns widest;
	bool matched;
};
bool summary_column(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns t0, ttv_ns t1, bool (*match)(const void *arg, func_id f),
    const void *arg, struct sum_column *out);

/* level_first_start() and query_window() of a depth, the search first
 * over its summary's blocks (in the index's tables) and then inside the
 * one or two blocks the answer is in: a probe that reads 8 KiB of calls,
 * not one page in every part of the depth (the same answers). Without a
 * summary, the plain searches. */
size_t summary_first_start(const struct trace *t, uint32_t track,
    uint32_t depth, ttv_ns when);
void summary_window(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns t0, ttv_ns t1, size_t *lo, size_t *hi);

/* The durations of calls [i0, i1) of a depth, summed: from the
 * summary's nodes inside, the rest read. */
ttv_ns summary_busy(const struct trace *t, uint32_t track, uint32_t depth,
    size_t i0, size_t i1);

/* query_stats() without the percentiles (median, p90, p99 are 0): the
 * calls, samples, total, self, min, max and longest call per function of
 * [t0, t1) on the filter's tracks, the same numbers, and the calls that
 * never returned counted apart (unfinished). From the summaries
 * where the model has them, reading only the calls at the range's two
 * ends of each depth (and the blocks a summary leaves out). */
void query_stats_sums(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, struct stats_table *out);

/* Whether a query over [t0, t1) with filter f is over the whole trace,
 * unfiltered: the stored answers are its answers. */
static inline bool
summary_whole(const struct filter *f, ttv_ns t0, ttv_ns t1)
{
	return (f == NULL || (f->track_on == NULL && f->func_on == NULL)) &&
	    t0 == TTV_NS_MIN && t1 == TTV_NS_MAX;
}

#endif
