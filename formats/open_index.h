/*
 * The index on the road from the command line to a loaded trace
 * (open_trace.c): look it up, use it, build it or do without, as
 * doc/index-format.md says.
 */
#ifndef TTV_OPEN_INDEX_H
#define TTV_OPEN_INDEX_H

#include "open_trace.h"

/* Loads path as load_trace() does, through its index when it has one,
 * and writes one when it should (o->index_report says which). */
struct trace *open_index_load(const char *path, const struct open_options *o,
    char **err);

/* The model of path's index (mapped, every block checked; trace_free)
 * and in *state and *len the state it keeps to read on from
 * (load_resume.h), when the trace is what that index was made of or was
 * only appended to since: --follow starts from there. *file (caller
 * frees) is the index. NULL when there is none (no index, or it is off,
 * damaged, of a trace changed otherwise, or keeps no state). */
struct trace *open_index_state(const char *path,
    const struct open_options *o, const void **state, size_t *len,
    char **file);

#endif
