/*
 * One road from the command line to a loaded trace and its filter, taken
 * by every batch mode and by the viewer: check the options that can be
 * checked before a long load (thread list, regexes), load, refuse damage
 * under --strict, and build the filter (--thread, --function, --hide).
 */
#ifndef TTV_OPEN_TRACE_H
#define TTV_OPEN_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "query.h"
#include "reader.h"

/* What became of the trace's index (doc/index-format.md), for --info
 * and the messages the program prints. */
enum index_state {
	INDEX_STATE_OFF,	/* --no-index */
	INDEX_STATE_USED,	/* mapped: the trace was not read */
	INDEX_STATE_BUILT,	/* written at this open */
	INDEX_STATE_SKIPPED,	/* none: the trace loads fast */
	INDEX_STATE_UNAVAILABLE,	/* none: the cache cannot take one */
};

struct index_report {
	enum index_state state;
	char *file;		/* USED, BUILT: the index file */
	uint64_t size;		/* its bytes */
	/* BUILT: why an index there was replaced (NULL: there was none);
	 * SKIPPED, UNAVAILABLE: why there is none. */
	char *why;
	double seconds;		/* BUILT, SKIPPED: the load's time */
};
void index_report_clear(struct index_report *r);

enum open_index { OPEN_INDEX_AUTO, OPEN_INDEX_OFF, OPEN_INDEX_ON };

struct open_options {
	const char *force_format;	/* --format NAME, or NULL */
	struct load_options load;	/* --instr-map, --sysroot, --strict,
					 * progress */
	const char *threads;		/* --thread "TID[,TID...]", or NULL */
	const char *function;		/* --function REGEX, or NULL */
	const char *hide;		/* --hide REGEX, or NULL */
	/* The index: AUTO uses one, and builds one for a trace that loads
	 * slowly; OFF (--no-index) neither reads nor writes one; ON
	 * (--index) builds one whatever the trace. */
	enum open_index index;
	/* Check the index's large arrays on first touch (the viewer,
	 * --stats: modes that may not read every call), not at open. */
	bool index_lazy;
	struct index_report *index_report;	/* filled, or NULL */
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
