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

#endif
