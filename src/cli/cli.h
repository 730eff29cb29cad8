/*
 * The batch modes of the command line: each prints one answer about a
 * loaded trace to a stream. They read the model through queries only.
 */
#ifndef TTV_CLI_H
#define TTV_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "query.h"

/* --info: what the file is and what is in it. */
void cli_info(const struct trace *t, const struct filter *f, FILE *out);

struct stats_options {
	bool tsv;
	enum stats_key sort;
	bool ascending;
};
/* --stats: one row per function. */
void cli_stats(const struct trace *t, const struct filter *f,
    const struct stats_options *o, FILE *out);

/* --markers: every marker in time order (ts_ns from the trace start,
 * kind, tid, value, text), the list of the markers pane. */
void cli_markers(const struct trace *t, const struct filter *f, bool tsv,
    FILE *out);

/* --search REGEX: every match in time order (ts_ns from the trace start,
 * dur_ns, tid, where it matched, name), as the viewer's / finds them
 * (smart-case). Returns -1 with *err for a bad pattern. */
int cli_search(const struct trace *t, const struct filter *f,
    const char *pattern, bool tsv, FILE *out, char **err);

#endif
