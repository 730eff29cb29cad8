/*
 * SQL over a trace: an SQLite connection whose tables are virtual tables
 * reading the immutable model in place, under Perfetto trace processor's
 * table names (slice, thread, process, thread_track, track, counter_track,
 * counter, flow, args, sched, trace_bounds) and ttv's own (marker, log,
 * metadata; sql_schema.def describes them all), with the functions of
 * Perfetto's that ttv has (sql_funcs.c, sql_ancestry.c, sql_include.c).
 * No row is copied into SQLite.
 *
 * The connection is contained: it has no file of its own, cannot attach
 * one, load an extension or run a statement that writes outside memory
 * (see sql.c for how), and SQLite's memory is bounded (sql_memory_limit).
 * A statement, running or being prepared, is stopped from another thread
 * or a signal handler with sql_cancel().
 *
 * The batch mode (cli_query.c) and the query pane both open one with
 * sql_open() and run statements with SQLite's own API.
 */
#ifndef TTV_SQL_H
#define TTV_SQL_H

#include <sqlite3.h>
#include <stdbool.h>

#include "model.h"
#include "query.h"

struct sql_view {
	/* What the tables let through: tracks and functions (copied at
	 * sql_open/sql_set_view; NULL: everything). */
	const struct filter *filter;
	/* The time window: slices overlapping [t0, t1), events inside it.
	 * TTV_NS_MIN, TTV_NS_MAX: the whole trace. */
	ttv_ns t0, t1;
};

struct sql;

/* A connection over t, which must outlive it. On failure returns NULL with
 * *err set (caller frees). */
struct sql *sql_open(const struct trace *t, const struct sql_view *v,
    char **err);
void sql_close(struct sql *s);
sqlite3 *sql_db(struct sql *s);

/* Changes what the tables let through, for the statements prepared
 * afterwards; not while a statement of the connection runs. */
void sql_set_view(struct sql *s, const struct sql_view *v);

/* Stops the statement running or being prepared on the connection
 * (SQLITE_INTERRUPT), and every later one until sql_cancel_clear(): the
 * caller's own loops over rows ask sql_cancel_requested(). Safe from a
 * signal handler (async-signal-safe) and from any thread. */
void sql_cancel(struct sql *s);
/* The owner, before the next statement, when none runs. */
void sql_cancel_clear(struct sql *s);
bool sql_cancel_requested(const struct sql *s);

/*
 * SQLite's memory, counted over every connection of the process, is
 * bounded so that a query cannot take more than the README's budget for a
 * run (64 MiB + 16 x the trace's size) leaves: 40 MiB + 16 x the trace's
 * size (its file; for a directory, its model's memory), less 1.25 x the
 * memory of the loaded trace, and at least 16 MiB. TTV_SQL_MEMORY (MiB;
 * 0: no limit) replaces it. sql_open() sets it; past it a statement fails with
 * SQLITE_NOMEM, and sql_errmsg() says the limit and how to raise it.
 * The limit in effect, in bytes (0: none).
 */
uint64_t sql_memory_limit(void);

/* sqlite3_prepare_v2 on the connection, which also runs Perfetto's
 * `INCLUDE PERFETTO MODULE name;` (then *st is NULL and *tail after it,
 * as for a blank statement). On failure its message and place are
 * sql_errmsg's. */
int sql_prepare(struct sql *s, const char *text, sqlite3_stmt **st,
    const char **tail);

/* SQLite's message for the last error of the connection, with its place
 * when SQLite knows it: "MESSAGE at offset N (line L, column C)". `text`
 * is the whole text run and `stmt` where in it the failing statement
 * starts (SQLite counts from there). Caller frees. */
char *sql_errmsg(struct sql *s, const char *text, const char *stmt);
/* Where the last error is in text (-1: unknown), as for sql_errmsg. */
long sql_error_offset(struct sql *s, const char *text, const char *stmt);

/* Where the slice table's id points: a slice, or an instant (depth
 * SEARCH_INSTANT, index into its track's instants); false when no row of
 * the trace has it. */
bool sql_id_slice(const struct sql *s, int64_t id, struct slice_ref *out);
/* The thread track of a utid, or -1. */
int64_t sql_utid_track(const struct sql *s, int64_t utid);

/* Bytes held by the connection's indexes over the model (built on first
 * use and kept while it is open). */
size_t sql_index_memory(const struct sql *s);

/* ------------------------------------------------------------ internals */

/* Statistics of the last statements' virtual table scans, for tests of
 * the query plans: rows the slice table looked at. */
struct sql_scan_stats {
	unsigned long long slice_rows_visited;
	unsigned long long slice_filters;	/* xFilter calls */
	int last_plan;	/* the idxNum of the last slice scan */
};
struct sql_scan_stats *sql_scan_stats(struct sql *s);

#endif
