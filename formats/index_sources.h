/*
 * Which files a trace is made of, for its index (index_source.h): the
 * trace file, or every file of every CTF trace under a directory
 * (metadata, streams, LTTng index files); for XRay also the
 * instrumentation map, given or found beside the log (its absence is
 * recorded too, so that a binary put there later is read).
 */
#ifndef TTV_INDEX_SOURCES_H
#define TTV_INDEX_SOURCES_H

#include <stdbool.h>

#include "index_source.h"
#include "open_trace.h"

/* Fills out (sorted) with the files of the trace at path (canonical: its
 * canonical path). false when there are too many to follow. */
bool index_sources_of(const char *path, const char *canonical,
    const struct open_options *o, struct index_sources *out);

#endif
