/*
 * What the SQL connection (sql.c) shares with its virtual tables
 * (sql_slice.c, sql_tables.c, sql_ancestry.c) and its functions
 * (sql_funcs.c, sql_include.c): the trace, what the view lets through,
 * the id spaces of the tables, and the indexes built on first use.
 *
 * Ids are stable for a trace, whatever the filter or window: a slice's id
 * is its place in (track, depth, index) order over every track, an
 * instant's comes after all slices in (track, index) order, a counter
 * sample's in (track, index) order. Tracks, threads and processes are
 * numbered by their index in the model.
 */
#ifndef TTV_SQL_INT_H
#define TTV_SQL_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "sql.h"

/* Flags of the slice table's `flags` column beyond the stored ones
 * (enum slice_flag): an instant of the track rather than a slice of a
 * call stack (--stats does not count it). */
#define SQL_FLAG_TRACK_INSTANT (1u << 10)

/* The name index: for each function, the blocks of SQL_BLOCK slice ids
 * that hold at least one of its slices. */
#define SQL_BLOCK_SHIFT 6
#define SQL_BLOCK ((uint64_t)1 << SQL_BLOCK_SHIFT)

struct sql {
	sqlite3 *db;
	const struct trace *t;

	/* The view: copies of the filter's masks, and the window. */
	uint8_t *track_on, *func_on;	/* NULL: all */
	ttv_ns t0, t1;

	atomic_int cancel;	/* sql_cancel(): set from any thread */
	struct sql_scan_stats stats;

	/* Slice ids: level L (the depths of all tracks end to end, track by
	 * track) starts at level_base[L]; track_level[track] is the first
	 * level of the track. level_base has nlevels + 1 entries. */
	uint64_t *level_base;
	uint32_t *track_level;	/* ntracks + 1 */
	uint32_t nlevels;
	uint64_t nslices;
	/* Instant ids: nslices + inst_base[track] + k (ntracks + 1). */
	uint64_t *inst_base;
	/* Counter sample ids: counter_base[track] + k (ntracks + 1). */
	uint64_t *counter_base;

	/* Threads: utid of a track (UINT32_MAX if not a thread track) and
	 * the thread tracks in utid order. */
	uint32_t *utid_of_track;
	uint32_t *thread_track;
	uint32_t nthreads;
	/* utids by tid, sorted by tid (built on first use). */
	struct sql_tid { int64_t tid; uint32_t utid; } *by_tid;

	/* Built on first use. */
	uint32_t *name_rank;	/* nfuncs: place of a function by name */
	uint32_t *by_name;	/* functions in name order */
	uint32_t *name_group;	/* nfuncs: rank of the first function with
				 * the same name */
	/* The name index: func f's blocks are blocks[block_start[f] ..
	 * block_start[f + 1]). */
	uint64_t *block_start;	/* nfuncs + 1 */
	uint32_t *blocks;
	bool name_index_tried;
	/* Places the by-name buffer holds; 0: its budget (a sixteenth of
	 * the model). Tests set it small to make many batches. */
	size_t by_name_cap;
	/* Args: per entry of trace->args, the run holding it when a row in
	 * the view refers to the run, else 0. */
	uint32_t *arg_head;
	uint64_t marker_counts[MARKER_KIND_COUNT];
	bool have_marker_counts;
	/* sql_prepare's own error (INCLUDE PERFETTO MODULE), and where in
	 * the statement; NULL: SQLite's. */
	char *prepare_err;
	long prepare_err_off;
};

static inline bool
sql_track_on(const struct sql *s, uint32_t track)
{
	return s->track_on == NULL || s->track_on[track];
}

static inline bool
sql_func_on(const struct sql *s, func_id f)
{
	return s->func_on == NULL || (f < s->t->nfuncs && s->func_on[f]);
}

static inline uint64_t
sql_slice_id(const struct sql *s, uint32_t track, uint32_t depth,
    size_t index)
{
	return s->level_base[s->track_level[track] + depth] + index;
}

static inline uint64_t
sql_instant_id(const struct sql *s, uint32_t track, size_t k)
{
	return s->nslices + s->inst_base[track] + k;
}

/* Where a slice id points: a slice (depth < UINT32_MAX) or an instant
 * (depth = SEARCH_INSTANT, index into the track's instants). False when
 * no row has the id. */
bool sql_id_ref(const struct sql *s, int64_t id, struct slice_ref *out);
/* The id of what a flow or search names (a slice, or an instant). */
int64_t sql_ref_id(const struct sql *s, struct slice_ref r);

/* The utid of the first thread with a tid, or -1. */
int64_t sql_tid_utid(struct sql *s, int64_t tid);

/* The name order of functions (builds it on first use). */
void sql_name_order(struct sql *s);
/* The name index (builds it on first use); false when it would be too
 * big for its budget (then scans are used). */
bool sql_name_index(struct sql *s);

/* Polled by long loops of the virtual tables. */
static inline bool
sql_cancelled(const struct sql *s)
{
	return atomic_load_explicit(&s->cancel, memory_order_relaxed) != 0;
}

/* A row of the slice or sched table: a slice (level: its depth's array)
 * or an instant (depth SEARCH_INSTANT, level NULL). */
struct sql_row {
	uint32_t track, depth;
	size_t index;
	const struct depth_level *level;
};
void sql_row_at(const struct sql *s, struct slice_ref ref,
    struct sql_row *out);
/* Whether the slice table shows the row at ref under the view. */
bool sql_slice_shown(const struct sql *s, struct slice_ref ref);
/* The row's parent_id: the nearest enclosing slice the view shows. */
bool sql_slice_parent(const struct sql *s, struct slice_ref ref,
    struct slice_ref *out);
/* Column col (enum slice_column) of a row of the slice table. */
void sql_slice_result(const struct sql *s, const struct sql_row *r, int col,
    sqlite3_context *ctx);

/* Modules: each registers its eponymous tables (or functions). */
int sql_slice_register(struct sql *s);
int sql_tables_register(struct sql *s);
int sql_ancestry_register(struct sql *s);
int sql_funcs_register(struct sql *s);
/* The functions of Perfetto's time.conversion module (sql_funcs.c). */
int sql_time_functions_register(struct sql *s);

/* Reading an integer (or a real, rounded toward -inf or +inf) from a
 * constraint's value; false when it is neither. */
bool sql_value_floor(sqlite3_value *v, int64_t *out);
bool sql_value_ceil(sqlite3_value *v, int64_t *out);
/* Narrows the time bounds [*lo, *hi] by "ts OP v" (OP an
 * SQLITE_INDEX_CONSTRAINT_ one), exactly as SQLite compares an integer
 * column: false when no row can pass. */
bool sql_ts_bound(int op, sqlite3_value *v, ttv_ns *lo, ttv_ns *hi);

#endif
