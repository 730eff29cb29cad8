/*
 * Exports of a trace to other tools' formats.
 */
#ifndef TTV_EXPORT_H
#define TTV_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "query.h"

/* Chrome trace-event JSON (Perfetto and chrome://tracing load it):
 * slices as "X", instants "i", async "b"/"e", flows "s"/"t"/"f",
 * counters "C", markers as global instants; ts and dur in µs. */
int export_chrome_json(const struct trace *t, const struct filter *f,
    FILE *out);
/* The same restricted to [t0, t1): the calls that overlap it (whole, not
 * clipped), the instants, samples and markers in it, the flows between
 * calls in it. */
int export_chrome_json_range(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, FILE *out);

/* Folded stacks, one line "a;b;c WEIGHT" per call path, for flamegraph
 * tools: self time in ns, or self samples when the trace is sampled. A
 * line has max_depth frames at most: the frames below are one frame
 * "[N frames]" carrying their weight (*folded counts such lines). A ';'
 * inside a name is written as \x3b (it would split the frame). */
#define EXPORT_MAX_DEPTH 1024
int export_collapsed(const struct trace *t, const struct filter *f,
    bool per_thread, uint32_t max_depth, FILE *out, uint64_t *folded);
/* The same for [t0, t1), times clipped to it (query_calls.h). */
int export_collapsed_range(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, bool per_thread, uint32_t max_depth, FILE *out,
    uint64_t *folded);

/* True when any slice of the trace carries sample weights. */
bool trace_is_sampled(const struct trace *t);

#endif
