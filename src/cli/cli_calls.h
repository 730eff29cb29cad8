/*
 * The batch modes about calls: --calls (every call of some functions,
 * slowest first), --callers and --callees (direct edges of a function),
 * --tree (the call tree), and --range, which restricts every batch mode.
 */
#ifndef TTV_CLI_CALLS_H
#define TTV_CLI_CALLS_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "query.h"
#include "range.h"

enum calls_mode {
	CALLS_NONE, CALLS_LIST, CALLS_CALLERS, CALLS_CALLEES, CALLS_TREE,
};

struct calls_options {
	enum calls_mode mode;
	const char *arg;	/* --calls REGEX, --callers/--callees FUNC */
	bool tsv;
	bool ascending;		/* --calls: fastest first */
	bool per_thread;	/* --tree: one root per thread */
	uint32_t max_depth;	/* --tree: frames a path shows whole (0:
				 * EXPORT_MAX_DEPTH) */
	bool guard;		/* TSV: ' before a name that starts like a
				 * spreadsheet formula */
	const char *range;	/* --range text, or NULL */
	struct range_spec spec;	/* parsed by cli_range_check */
	ttv_ns t0, t1;		/* resolved by cli_range_resolve */
};

/* Checks what can be checked before loading (the regex, the range):
 * returns 0, or -1 with *err set (a usage error). */
int cli_calls_check(struct calls_options *o, char **err);
/* Resolves o->range against the loaded trace into o->t0, o->t1 (the
 * whole trace without --range): 0, or -1 with *err (an empty range). */
int cli_range_resolve(const struct trace *t, struct calls_options *o,
    char **err);
/* --info --range: the range resolved, its length and what is in it. */
void cli_range_info(const struct trace *t, const struct filter *f,
    const struct calls_options *o, FILE *out);
/* Runs o->mode: 0, or the exit status after "ttv: PATH: ..." on stderr:
 * 1 for no function named so, 2 for a --calls pattern the regex budget
 * could not decide. */
int cli_calls(const struct trace *t, const struct filter *f,
    const struct calls_options *o, const char *path, FILE *out);

#endif
