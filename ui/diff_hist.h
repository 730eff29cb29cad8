/*
 * One function's call durations in two traces on one axis, for the
 * overlaid histograms of ui/diff_calls.c (Tracy's compare window): the
 * same log-scale buckets for both, from the shortest call of either to
 * the longest, and each bucket's height as a share of its trace's calls
 * (normalised: two traces with different numbers of calls compare by
 * shape) or as a count. Pure functions, tested in tests/ui/diffview_test.c.
 */
#ifndef TTV_UI_DIFF_HIST_H
#define TTV_UI_DIFF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query_calls.h"

struct diff_hist {
	size_t n;		/* buckets (0: no call on either side) */
	double lo, hi;		/* the axis: the shortest and longest call */
	uint64_t *count[2];	/* per trace (DIFF_BASE, DIFF_NEW), n each */
	uint64_t calls[2];
	size_t median[2];	/* the bucket of each trace's p50, or n */
};

/* Buckets the durations of l[0] (the base) and l[1] (the new trace) into
 * at most n buckets (one when every call lasts the same). */
void diff_hist_make(const struct instance_list *const l[2], size_t n,
    struct diff_hist *out);
/* The bucket of a duration. */
size_t diff_hist_bucket(const struct diff_hist *h, ttv_ns d);
/* The lower edge of bucket b (b == n: the top of the axis). */
ttv_ns diff_hist_edge(const struct diff_hist *h, size_t b);
/* Bucket b of trace s in rows out of `rows`, against the tallest bucket
 * of both: its share of the trace's calls when normalized, else its
 * count; a bucket with a call is one row at least. */
int diff_hist_rows(const struct diff_hist *h, int s, size_t b,
    bool normalized, int rows);
void diff_hist_free(struct diff_hist *h);

#endif
