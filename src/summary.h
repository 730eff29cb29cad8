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

struct trace_summary {
	/* The whole trace's function table: query_stats() over
	 * [TTV_NS_MIN, TTV_NS_MAX) with no filter, rows in function
	 * order. */
	const struct func_stats *stats;
	size_t nstats;
	bool has_stats;
	/* Per track, the calls open at the end of the input, outermost
	 * first. */
	const struct grow_frame *frames;
	size_t nframes;
};

/* Whether a query over [t0, t1) with filter f is over the whole trace,
 * unfiltered: the stored answers are its answers. */
static inline bool
summary_whole(const struct filter *f, ttv_ns t0, ttv_ns t1)
{
	return (f == NULL || (f->track_on == NULL && f->func_on == NULL)) &&
	    t0 == TTV_NS_MIN && t1 == TTV_NS_MAX;
}

#endif
