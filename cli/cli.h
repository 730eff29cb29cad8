/*
 * The batch modes of the command line: each prints one answer about a
 * loaded trace to a stream, of the part the user selected (scope.h). They
 * read the model through queries only. And where the program writes: the
 * answer's file, and its messages on stderr.
 */
#ifndef TTV_CLI_H
#define TTV_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "query.h"
#include "scope.h"

/* Diagnostics of a load shown on stderr; the rest go to --info only. */
#define CLI_DIAGS_ON_STDERR 20

/* "ttv: PATH: WHAT" on stderr (without PATH: "ttv: WHAT"), escaped. */
void cli_say(const char *path, const char *what);
/* "ttv: PATH: warning: WHAT" on stderr. */
void cli_warn(const char *path, const char *what);
/* "ttv: WHAT" and where help is, on stderr; returns TTV_EXIT_USAGE. */
int cli_usage_error(const char *what);

/* The directory that would hold FILE exists and takes files: false after
 * a message (checked before a long load). */
bool cli_output_dir_ok(const char *file);
/* Opens FILE for a batch mode's answer, never over a file one of the n
 * traces was read from (ts[i], opened from paths[i]) nor the query file,
 * nor into a trace directory read: checked before FILE is opened, and
 * again by device and inode once it is open, before anything in it is
 * cut. NULL after a message on stderr. */
FILE *cli_open_output(const char *file, size_t n, const char *const paths[],
    const struct trace *const ts[], const char *query_file);
/* Flushes the answer and closes it (not stdout): 0, or -1 after a message
 * naming file (NULL: stdout) when it could not all be written. */
int cli_close_output(FILE *out, const char *file);
/* s right-aligned in width columns (a UTF-8 character is one column). */
void cli_put_right(FILE *out, const char *s, int width);
/* After a text table, when n > 0: "+N unfinished (calls that never
 * returned: not WHAT)", the count rule of query_calls.h. */
void cli_unfinished_note(uint64_t n, const char *what, FILE *out);

/* --info: what the file is and what is in it (with --range, the range
 * and what is in it). */
void cli_info(const struct trace *t, const struct selection *sel, FILE *out);
/* --info on a live relay's URL without a session (net://HOST[:PORT]):
 * its sessions, one URL a line. CLI_RUN when the URL names a session
 * (read it as a trace), else the exit status. */
int cli_info_relay(const char *url, FILE *out);

struct index_report;
/* --info's lines about the index: "index: ..." (open_trace.h). */
void cli_info_index(const struct index_report *r, FILE *out);
/* The lines a batch mode prints on err about the index: why there is
 * none (the cache cannot take one), why it was rebuilt. */
void cli_index_messages(const char *path, const struct index_report *r,
    FILE *err);
/* After a mode ran on an index checked on first touch: when a damaged
 * block was met (damaged: what index.h's index_trace_damaged or
 * index_damage_found said), says so on err, removes the index (the next
 * open rebuilds it) and returns true. */
bool cli_index_damage(const char *path, const struct index_report *r,
    bool damaged, FILE *err);

struct stats_options {
	bool tsv;
	bool guard;		/* --spreadsheet-safe (escape_cell) */
	enum stats_key sort;
	bool ascending;
};
/* --stats: one row per function. */
void cli_stats(const struct trace *t, const struct selection *sel,
    const struct stats_options *o, FILE *out);

struct told;

/* How the rows of a list (--markers, --search) are written. */
struct cli_rows {
	bool tsv;
	bool guard;		/* TSV text cells against spreadsheet formulas
				 * (escape_cell) */
	bool no_header;		/* a follower's later rounds */
	/* --follow: only the rows not told yet, and whole (told.h); NULL:
	 * all of them. A search then looks only at the rows that can be
	 * new (told_from), and adds how many it looked at to *examined
	 * (when not NULL). */
	struct told *told;
	uint64_t *examined;
};

/* --markers: every marker in time order (ts_ns from the trace start,
 * kind, tid, value, text), the list of the markers pane. */
void cli_markers(const struct trace *t, const struct selection *sel,
    const struct cli_rows *o, FILE *out);

/* --search REGEX: every match in time order (ts_ns from the trace start,
 * dur_ns, tid, where it matched, name), as the viewer's / finds them (re
 * from regex_compile_search: smart-case). Returns -1 with *err, having
 * written nothing, for a pattern the regex budget could not decide on
 * every string. */
int cli_search(const struct trace *t, const struct selection *sel,
    struct regex *re, const struct cli_rows *o, FILE *out, char **err);

enum query_format { QUERY_TABLE, QUERY_TSV, QUERY_CSV, QUERY_JSON };

struct query_options {
	const char *sql;	/* --query */
	const char *file;	/* --query-file (wins over sql) */
	enum query_format format;
	bool guard;		/* TSV, CSV: --spreadsheet-safe */
};
/* --query: runs the SQL and prints its rows; with a range, the tables see
 * the slices overlapping it and the events inside it. Returns 0, 2 for a
 * bad query or query file, 130 when interrupted (Ctrl-C). */
int cli_query(const struct trace *t, const struct selection *sel,
    const struct query_options *o, FILE *out);

struct sql;
/* Runs every statement of text on an open connection, printing the rows
 * of those that return some; same return values. guard: TSV and CSV text
 * cells against spreadsheet formulas (escape_cell). */
int cli_query_run(struct sql *s, const char *text, enum query_format fmt,
    bool guard, FILE *out);

#endif
