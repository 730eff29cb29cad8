/*
 * One road from the command line to a loaded trace and its filter, taken
 * by every batch mode and by the viewer: check the options that can be
 * checked before a long load (thread list, regexes), load, refuse damage
 * under --strict, and build the filter (--thread, --function, --hide).
 */
#ifndef TTV_OPEN_TRACE_H
#define TTV_OPEN_TRACE_H

#include <stdio.h>

#include "model.h"
#include "query.h"
#include "reader.h"

struct open_options {
	const char *force_format;	/* --format NAME, or NULL */
	struct load_options load;	/* --instr-map, --sysroot, --strict,
					 * progress */
	const char *threads;		/* --thread "TID[,TID...]", or NULL */
	const char *function;		/* --function REGEX, or NULL */
	const char *hide;		/* --hide REGEX, or NULL */
};

/* The exit statuses the command line and the viewer share. */
enum { TTV_EXIT_OK = 0, TTV_EXIT_BAD_INPUT = 1, TTV_EXIT_USAGE = 2 };

/* Checks the options that need no trace: returns TTV_EXIT_OK, or
 * TTV_EXIT_USAGE with *err set (caller frees). Cheap: call it before
 * opening a terminal. */
int open_trace_check(const struct open_options *o, char **err);

/* Loads path and fills *f (filter_clear() it, trace_free() *t). Returns
 * TTV_EXIT_OK, or with *err set (caller frees): TTV_EXIT_USAGE for a bad
 * option or a --function/--hide pattern the regex budget could not decide
 * (query.h), TTV_EXIT_BAD_INPUT when nothing could be read, when --strict
 * meets damage (*t is then set, for its diagnostics), or when --thread
 * names a thread the trace does not have. */
int open_trace(const char *path, const struct open_options *o,
    struct trace **t, struct filter *f, char **err);

/* Writes the trace's diagnostics to fp as "ttv: PATH: ..." lines, the
 * first `max` of them, then how many more --info lists. */
void open_trace_report(const struct trace *t, const char *path, size_t max,
    FILE *fp);

#endif
