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
	ttv_ns t0, t1;		/* the range (query_calls.h) */
};
/* --stats: one row per function. */
void cli_stats(const struct trace *t, const struct filter *f,
    const struct stats_options *o, FILE *out);

#endif
