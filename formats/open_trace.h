/*
 * From the command line's options to a loaded trace, for every mode (the
 * program's road, cli/cli_open.c, takes it): load, refuse damage under
 * --strict, and write what the load had to say. What part of the trace
 * is then shown (--thread, --function, --hide, --range) is the scope's
 * (src/scope.h).
 */
#ifndef TTV_OPEN_TRACE_H
#define TTV_OPEN_TRACE_H

#include <stdio.h>

#include "model.h"
#include "reader.h"

struct open_options {
	const char *force_format;	/* --format NAME, or NULL */
	struct load_options load;	/* --instr-map, --sysroot, --strict,
					 * progress */
};

/* The program's exit statuses (ttv(1)), two of them open_trace()'s. */
enum { TTV_EXIT_OK = 0, TTV_EXIT_BAD_INPUT = 1, TTV_EXIT_USAGE = 2 };

/* Loads path into *t (trace_free() it). Returns TTV_EXIT_OK, or
 * TTV_EXIT_BAD_INPUT with *err set (caller frees) when nothing could be
 * read, or when --strict meets damage (*t is then set, for its
 * diagnostics). */
int open_trace(const char *path, const struct open_options *o,
    struct trace **t, char **err);

/* Writes the trace's diagnostics to fp as "ttv: PATH: ..." lines, the
 * first `max` of them, then how many more --info lists. */
void open_trace_report(const struct trace *t, const char *path, size_t max,
    FILE *fp);

#endif
