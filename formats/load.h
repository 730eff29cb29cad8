/*
 * Opening a trace: picks the reader by probing, maps the file, runs the
 * reader into a builder and returns the model. The one entry point: the
 * program (through open_trace.h), the benchmarks, the tests' tools and
 * the fuzz targets all load through it.
 */
#ifndef TTV_LOAD_H
#define TTV_LOAD_H

#include "model.h"
#include "reader.h"

/* Loads path (a file or a directory). Returns the trace, possibly with
 * diagnostics in it (trace->diags, trace->has_errors), or NULL when nothing
 * could be read, with *err set to "offset N: what" or a system error
 * (caller frees). `force_format` names a reader to use without probing, or
 * is NULL. */
struct trace *load_trace(const char *path, const char *force_format,
    const struct load_options *opts, char **err);

/* The reader for a path, by probing (NULL if none recognises it). */
const struct reader *load_probe(const char *path);

#endif
