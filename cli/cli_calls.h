/*
 * The batch modes about calls: --calls (every call of some functions,
 * slowest first), --callers and --callees (direct edges of a function),
 * --tree (the call tree).
 */
#ifndef TTV_CLI_CALLS_H
#define TTV_CLI_CALLS_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "query.h"
#include "scope.h"

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
	struct regex *re;	/* --calls: arg compiled by cli_calls_check */
};

/* What can be checked before loading: compiles the --calls pattern, 0,
 * or -1 with *err set (a usage error). */
int cli_calls_check(struct calls_options *o, char **err);
void cli_calls_free(struct calls_options *o);
/* Runs o->mode on sel: 0, or the exit status after "ttv: PATH: ..." on
 * stderr: 1 for no function named so, 2 for a --calls pattern the regex
 * budget could not decide. */
int cli_calls(const struct trace *t, const struct selection *sel,
    const struct calls_options *o, const char *path, FILE *out);

#endif
