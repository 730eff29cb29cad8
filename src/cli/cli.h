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

struct index_report;
/* --info's lines about the index: "index: ..." (open_trace.h). */
void cli_info_index(const struct index_report *r, FILE *out);
/* The lines a batch mode prints on err about the index: why there is
 * none (the cache cannot take one), why it was rebuilt. */
void cli_index_messages(const char *path, const struct index_report *r,
    FILE *err);
/* After a mode ran on an index checked on first touch: when a damaged
 * block was met, says so on err, removes the index (the next open
 * rebuilds it) and returns true. */
bool cli_index_damage(const char *path, const struct index_report *r,
    FILE *err);

struct stats_options {
	bool tsv;
	enum stats_key sort;
	bool ascending;
	ttv_ns t0, t1;		/* the range (query_calls.h) */
};
/* --stats: one row per function. */
void cli_stats(const struct trace *t, const struct filter *f,
    const struct stats_options *o, FILE *out);

/* --markers: every marker in time order (ts_ns from the trace start,
 * kind, tid, value, text), the list of the markers pane. */
void cli_markers(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, bool tsv, FILE *out);

/* --search REGEX: every match in time order (ts_ns from the trace start,
 * dur_ns, tid, where it matched, name), as the viewer's / finds them
 * (smart-case). Returns -1 with *err for a bad pattern. */
int cli_search(const struct trace *t, const struct filter *f,
    const char *pattern, ttv_ns t0, ttv_ns t1, bool tsv, FILE *out,
    char **err);

enum query_format { QUERY_TABLE, QUERY_TSV, QUERY_CSV, QUERY_JSON };

struct query_options {
	const char *sql;	/* --query */
	const char *file;	/* --query-file (wins over sql) */
	enum query_format format;
	/* The window the tables see: slices overlapping [t0, t1), events
	 * inside it (a --range). */
	bool has_range;
	ttv_ns t0, t1;
};
/* --query: runs the SQL and prints its rows. Returns 0, 2 for a bad query
 * or query file, 130 when interrupted (Ctrl-C). */
int cli_query(const struct trace *t, const struct filter *f,
    const struct query_options *o, FILE *out);

struct sql;
/* Runs every statement of text on an open connection, printing the rows
 * of those that return some; same return values. */
int cli_query_run(struct sql *s, const char *text, enum query_format fmt,
    FILE *out);

#endif
