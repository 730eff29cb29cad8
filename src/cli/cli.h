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

/* Diagnostics of a load shown on stderr; the rest go to --info only. */
#define CLI_DIAGS_ON_STDERR 20

/* Opens FILE for a batch mode's answer, never over a file one of the n
 * traces was read from (ts[i], opened from paths[i]) nor the query file,
 * nor into a trace directory read: checked before FILE is opened, and
 * again by device and inode once it is open, before anything in it is
 * cut. NULL after a message on stderr. */
FILE *cli_open_output(const char *file, size_t n, const char *const paths[],
    const struct trace *const ts[], const char *query_file);
/* s right-aligned in width columns (a UTF-8 character is one column). */
void cli_put_right(FILE *out, const char *s, int width);

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
	bool guard;		/* --spreadsheet-safe (escape_cell) */
	enum stats_key sort;
	bool ascending;
	ttv_ns t0, t1;		/* the range (query_calls.h) */
};
/* --stats: one row per function. */
void cli_stats(const struct trace *t, const struct filter *f,
    const struct stats_options *o, FILE *out);

/* --markers: every marker in time order (ts_ns from the trace start,
 * kind, tid, value, text), the list of the markers pane. guard: TSV text
 * cells against spreadsheet formulas (escape_cell). */
void cli_markers(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, bool tsv, bool guard, FILE *out);

/* --search REGEX: every match in time order (ts_ns from the trace start,
 * dur_ns, tid, where it matched, name), as the viewer's / finds them
 * (smart-case). Returns -1 with *err, having written nothing, for a bad
 * pattern or one the regex budget could not decide on every string. */
int cli_search(const struct trace *t, const struct filter *f,
    const char *pattern, ttv_ns t0, ttv_ns t1, bool tsv, bool guard,
    FILE *out, char **err);

enum query_format { QUERY_TABLE, QUERY_TSV, QUERY_CSV, QUERY_JSON };

struct query_options {
	const char *sql;	/* --query */
	const char *file;	/* --query-file (wins over sql) */
	enum query_format format;
	bool guard;		/* TSV, CSV: --spreadsheet-safe */
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
 * of those that return some; same return values. guard: TSV and CSV text
 * cells against spreadsheet formulas (escape_cell). */
int cli_query_run(struct sql *s, const char *text, enum query_format fmt,
    bool guard, FILE *out);

#endif
