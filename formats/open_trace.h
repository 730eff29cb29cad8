/*
 * From the command line's options to a loaded trace, for every mode (the
 * program's road, cli/cli_open.c, takes it): load (through the trace's
 * index, formats/open_index.h), refuse damage under
 * --strict, and write what the load had to say. What part of the trace
 * is then shown (--thread, --function, --hide, --range) is the scope's
 * (src/scope.h).
 */
#ifndef TTV_OPEN_TRACE_H
#define TTV_OPEN_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "reader.h"

/* What became of the trace's index (doc/index-format.md), for --info
 * and the messages the program prints. */
enum index_state {
	INDEX_STATE_OFF,	/* --no-index */
	INDEX_STATE_USED,	/* mapped: the trace was not read */
	INDEX_STATE_BUILT,	/* written at this open */
	/* written at this open from the one there, the trace read on from
	 * where that one's read stopped (only what was appended read) */
	INDEX_STATE_EXTENDED,
	INDEX_STATE_SKIPPED,	/* none: the trace loads fast */
	INDEX_STATE_UNAVAILABLE,	/* none: the cache cannot take one */
};

struct index_report {
	enum index_state state;
	char *file;		/* USED, BUILT: the index file */
	uint64_t size;		/* its bytes */
	/* BUILT: why an index there was replaced (NULL: there was none);
	 * EXTENDED: why it was (the trace grew);
	 * SKIPPED, UNAVAILABLE: why there is none. */
	char *why;
	double seconds;		/* BUILT, EXTENDED, SKIPPED: the load's time */
};
void index_report_clear(struct index_report *r);

enum open_index { OPEN_INDEX_AUTO, OPEN_INDEX_OFF, OPEN_INDEX_ON };

struct open_options {
	const char *force_format;	/* --format NAME, or NULL */
	struct load_options load;	/* --instr-map, --sysroot, --strict,
					 * progress */
	/* The index: AUTO uses one, and builds one for a trace that loads
	 * slowly; OFF (--no-index) neither reads nor writes one; ON
	 * (--index) builds one whatever the trace. */
	enum open_index index;
	/* Check the index's large arrays on first touch (the viewer,
	 * --stats: modes that may not read every call), not at open. */
	bool index_lazy;
	struct index_report *index_report;	/* filled, or NULL */
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
