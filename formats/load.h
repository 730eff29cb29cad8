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
/* The same, the large depths growing in an index file being written
 * (builder_set_store); the model owns the store (also when it returns
 * NULL: the store is then freed). */
struct index_store;
struct trace *load_trace_store(const char *path, const char *force_format,
    const struct load_options *opts, struct index_store *store, char **err);

/* The end of a load by reader r that returned rc: t (just finished)
 * with the files the load mapped, or, when rc says nothing is usable, NULL
 * with *err the first error t holds (caller frees) and t freed. */
struct trace *load_result(struct trace *t, const struct reader *r, int rc,
    char **err);
/* The reader of that name (--format), NULL if none. */
const struct reader *load_reader_named(const char *name);
/* The reader for a path, by probing (NULL if none recognises it). */
const struct reader *load_probe(const char *path);
/* Whether the file at path may be read as it grows by r (reader.h,
 * grows): r's kind of file, as its head says. */
bool load_file_grows(const struct reader *r, const char *path);

#endif
