/*
 * Making the summaries an index stores (summary.h): one walk over every
 * depth beside the depth below it, tracks spread over the cores, in
 * memory until the writer puts them in the file. A depth whose summary
 * would cost more than a few percent of its calls is left unsummarised.
 */
#ifndef TTV_INDEX_SUMMARY_H
#define TTV_INDEX_SUMMARY_H

#include <stddef.h>

#include "index_format.h"
#include "query.h"
#include "summary.h"

/* The summaries, and on the same walk the check records of the index's
 * blocks (index_format.h) and the rules the index holds a model to
 * (starts in order, functions in range). */
struct summary_build {
	struct sum_level *levels;	/* one per depth, in track order */
	size_t nlevels;
	struct sum_node *nodes;
	size_t nnodes;
	struct sum_entry *entries;
	size_t nentries;
	struct sum_track *tracks;	/* one per track */
	uint8_t *called;		/* one per function (summary.h) */
	struct idx_block *blocks;	/* per depth, in track order */
	size_t nblocks;
	char *bad;			/* the first rule broken, or NULL */
	/* query_stats' first pass over the whole trace, made on the same
	 * walk (query_stats_whole), one row per function; NULL when a
	 * call sticks out of the time axis (the whole range would clip
	 * it) or there are no functions. */
	struct func_stats *stats;
	/* How that pass was split among the workers (parts.n 0: in one),
	 * for the percentiles' passes; part_of and counts are its arrays. */
	struct stats_parts parts;
	uint32_t *part_of;
	uint64_t **counts;
};

void index_summary_build(const struct trace *t, struct summary_build *out);
void index_summary_free(struct summary_build *b);

#endif
