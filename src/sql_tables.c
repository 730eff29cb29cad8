/*
 * The small tables of the SQL connection (see sql.h): thread, process,
 * thread_track, process_track, track, counter_track, cpu_track, counter,
 * flow, args, trace_bounds, marker, log, metadata, ttv_tables and
 * ttv_columns, read from the model (or the description) in place.
 *
 * They share one virtual table implementation: a table is a numbered list
 * of rows (a row number is an index into one of the model's arrays) with
 * a column function; a scan visits ranges of row numbers, which the table
 * narrows by its id, by its key column (track, thread, arg set) and by
 * time bounds where the model keeps rows sorted by time. Which column is
 * which, and the columns themselves, are in the tables' description
 * (sql_schema.def), which ttv_tables and ttv_columns list. Rows outside
 * the view (filter, window) are skipped. As in sql_slice.c, time bounds
 * are met exactly and every other constraint is checked again by SQLite.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argtext.h"
#include "sql_int.h"
#include "sql_schema.h"
#include "xalloc.h"

/* What a scan is asked: an id, a key (track, thread, arg set...), time
 * bounds [lo, hi]. */
struct ask {
	bool has_id, has_key;
	int64_t id, key;
	ttv_ns lo, hi;
};

struct ranges {
	struct { uint64_t a, b; } *r;
	size_t n, cap;
};

static void
push_range(struct ranges *rs, uint64_t a, uint64_t b)
{
	if (a >= b)
		return;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->r = xreallocarray(rs->r, rs->cap, sizeof *rs->r);
	}
	rs->r[rs->n].a = a;
	rs->r[rs->n].b = b;
	rs->n++;
}

struct tdef {
	const char *name;
	/* Pushes the ranges of row numbers that may answer, in increasing
	 * order (so rows come in id order). */
	void (*ranges)(struct sql *s, const struct ask *q, struct ranges *out);
	/* Whether a row in a range is in the view (NULL: all are). */
	bool (*visible)(struct sql *s, uint64_t row);
	void (*column)(struct sql *s, uint64_t row, int col,
	    sqlite3_context *ctx);
	/* Rows of a full scan, for the planner. */
	uint64_t (*size)(const struct sql *s);
};

/* ------------------------------------------------------------- helpers */

static void
result_text(sqlite3_context *ctx, const char *s)
{
	sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
}

/* A string of the trace, NULL for the empty string (no name). */
static void
result_name(sqlite3_context *ctx, const struct trace *t, str_id s)
{
	if (s == 0)
		sqlite3_result_null(ctx);
	else
		result_text(ctx, trace_str(t, s));
}

static void
result_utid(sqlite3_context *ctx, const struct sql *s, uint32_t track)
{
	if (track < s->t->ntracks && s->utid_of_track[track] != UINT32_MAX)
		sqlite3_result_int64(ctx, s->utid_of_track[track]);
	else
		sqlite3_result_null(ctx);
}

static const char *const track_types[] = {
	[TRACK_THREAD] = "thread", [TRACK_ASYNC] = "async",
	[TRACK_CPU] = "cpu", [TRACK_COUNTER] = "counter",
};

/* Rows [0, n), or the one the id names. */
static void
id_ranges(const struct ask *q, uint64_t n, struct ranges *out)
{
	if (q->has_id) {
		if (q->id >= 0 && (uint64_t)q->id < n)
			push_range(out, (uint64_t)q->id, (uint64_t)q->id + 1);
		return;
	}
	push_range(out, 0, n);
}

/* The first index of a time-sorted array of n records of `size` bytes,
 * whose time is at `off`, with time >= t. */
static size_t
first_at(const void *base, size_t n, size_t size, size_t off, ttv_ns t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		ttv_ns v;
		memcpy(&v, (const char *)base + mid * size + off, sizeof v);
		if (v >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The index range of a time-sorted array inside [lo, hi] and the view's
 * window [t0, t1). */
static void
time_range(const struct sql *s, const void *base, size_t n, size_t size,
    size_t off, const struct ask *q, size_t *a, size_t *b)
{
	ttv_ns lo = q->lo > s->t0 ? q->lo : s->t0;
	*a = lo == TTV_NS_MIN ? 0 : first_at(base, n, size, off, lo);
	*b = n;
	if (q->hi != TTV_NS_MAX)
		*b = first_at(base, n, size, off, q->hi + 1);
	if (s->t1 != TTV_NS_MAX) {
		size_t w = first_at(base, n, size, off, s->t1);
		if (w < *b)
			*b = w;
	}
}

/* -------------------------------------------------------------- thread */

static void
thread_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	id_ranges(q, s->nthreads, out);
}

static bool
thread_visible(struct sql *s, uint64_t row)
{
	return sql_track_on(s, s->thread_track[row]);
}

static void
thread_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct track *tr = &t->tracks[s->thread_track[row]];
	switch (col) {
	case TH_UTID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case TH_TID: sqlite3_result_int64(ctx, tr->tid); break;
	case TH_NAME: result_name(ctx, t, tr->name); break;
	case TH_UPID: sqlite3_result_int64(ctx, tr->process); break;
	case TH_START_TS: sqlite3_result_int64(ctx, tr->first); break;
	case TH_END_TS: sqlite3_result_int64(ctx, tr->last); break;
	case TH_IS_MAIN:
		sqlite3_result_int(ctx, tr->process < t->nprocesses &&
		    t->processes[tr->process].pid == tr->tid);
		break;
	}
}

/* ------------------------------------------------------------- process */

static void
process_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	id_ranges(q, s->t->nprocesses, out);
}

static void
process_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct process *p = &s->t->processes[row];
	switch (col) {
	case PR_UPID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case PR_PID: sqlite3_result_int64(ctx, p->pid); break;
	case PR_NAME: result_name(ctx, s->t, p->name); break;
	}
}

/* -------------------------------------------------------------- tracks */

/* track, thread_track, process_track, counter_track, cpu_track: rows are
 * track indexes; the id is the track's index. The tables of one kind
 * show some of track's columns (track_column, by track's column
 * numbers) and their own type. */

static void
track_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	id_ranges(q, s->t->ntracks, out);
}

static bool
track_visible(struct sql *s, uint64_t row)
{
	return sql_track_on(s, (uint32_t)row);
}

static void
track_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct track *tr = &t->tracks[row];
	switch (col) {
	case TR_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case TR_NAME: {
		char buf[64];
		if (tr->name != 0)
			result_text(ctx, trace_str(t, tr->name));
		else
			sqlite3_result_text(ctx, track_label(t, tr, buf,
			    sizeof buf), -1, SQLITE_TRANSIENT);
		break;
	}
	case TR_TYPE: result_text(ctx, track_types[tr->kind]); break;
	case TR_UPID:
		if (tr->kind == TRACK_CPU)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, tr->process);
		break;
	case TR_UTID: result_utid(ctx, s, (uint32_t)row); break;
	case TR_CPU:
		if (tr->kind == TRACK_CPU)
			sqlite3_result_int64(ctx, tr->tid);
		else
			sqlite3_result_null(ctx);
		break;
	}
}

static bool
kind_visible(struct sql *s, uint64_t row, enum track_kind k)
{
	return s->t->tracks[row].kind == k && sql_track_on(s, (uint32_t)row);
}

static bool
thread_track_visible(struct sql *s, uint64_t row)
{
	return kind_visible(s, row, TRACK_THREAD);
}

static bool
process_track_visible(struct sql *s, uint64_t row)
{
	return kind_visible(s, row, TRACK_ASYNC);
}

static bool
counter_track_visible(struct sql *s, uint64_t row)
{
	return kind_visible(s, row, TRACK_COUNTER);
}

static bool
cpu_track_visible(struct sql *s, uint64_t row)
{
	return kind_visible(s, row, TRACK_CPU);
}

/* thread_track: the key is utid. */
static void
thread_track_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	if (q->has_key) {
		if (q->key >= 0 && q->key < s->nthreads) {
			uint32_t tr = s->thread_track[q->key];
			if (!q->has_id || q->id == tr)
				push_range(out, tr, (uint64_t)tr + 1);
		}
		return;
	}
	id_ranges(q, s->t->ntracks, out);
}

static void
thread_track_column(struct sql *s, uint64_t row, int col,
    sqlite3_context *ctx)
{
	static const int map[thread_track_NCOLS] = { [TT_ID] = TR_ID,
	    [TT_NAME] = TR_NAME, [TT_UTID] = TR_UTID, [TT_UPID] = TR_UPID };
	if (col == TT_TYPE)
		result_text(ctx, "thread_track");
	else
		track_column(s, row, map[col], ctx);
}

/* process_track: async tracks. */
static void
process_track_column(struct sql *s, uint64_t row, int col,
    sqlite3_context *ctx)
{
	static const int map[process_track_NCOLS] = { [PT_ID] = TR_ID,
	    [PT_NAME] = TR_NAME, [PT_UPID] = TR_UPID };
	if (col == PT_TYPE)
		result_text(ctx, "process_track");
	else
		track_column(s, row, map[col], ctx);
}

static void
counter_track_column(struct sql *s, uint64_t row, int col,
    sqlite3_context *ctx)
{
	static const int map[counter_track_NCOLS] = { [CT_ID] = TR_ID,
	    [CT_NAME] = TR_NAME, [CT_UPID] = TR_UPID };
	if (col == CT_TYPE)
		result_text(ctx, "counter_track");
	else
		track_column(s, row, map[col], ctx);
}

static void
cpu_track_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	static const int map[cpu_track_NCOLS] = { [CP_ID] = TR_ID,
	    [CP_NAME] = TR_NAME, [CP_CPU] = TR_CPU };
	if (col == CP_TYPE)
		result_text(ctx, "cpu_track");
	else
		track_column(s, row, map[col], ctx);
}

/* ------------------------------------------------------------- counter */

/* The counter track of a sample id. */
static uint32_t
counter_track_of(const struct sql *s, uint64_t row)
{
	size_t lo = 0, hi = s->t->ntracks;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->counter_base[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

static void
counter_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	const struct trace *t = s->t;
	uint64_t n = s->counter_base[t->ntracks];
	if (q->has_id) {
		if (q->id < 0 || (uint64_t)q->id >= n)
			return;
		uint32_t tr = counter_track_of(s, (uint64_t)q->id);
		const struct counter_sample *cs = &t->tracks[tr].samples[
		    q->id - (int64_t)s->counter_base[tr]];
		if (sql_track_on(s, tr) && cs->t >= s->t0 && cs->t < s->t1)
			push_range(out, (uint64_t)q->id, (uint64_t)q->id + 1);
		return;
	}
	uint32_t a = 0, z = t->ntracks;
	if (q->has_key) {
		if (q->key < 0 || q->key >= t->ntracks)
			return;
		a = (uint32_t)q->key;
		z = a + 1;
	}
	for (uint32_t i = a; i < z; i++) {
		const struct track *tr = &t->tracks[i];
		if (tr->nsamples == 0 || !sql_track_on(s, i))
			continue;
		size_t x, y;
		time_range(s, tr->samples, tr->nsamples, sizeof *tr->samples,
		    offsetof(struct counter_sample, t), q, &x, &y);
		push_range(out, s->counter_base[i] + x, s->counter_base[i] + y);
	}
}

static void
counter_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	uint32_t tr = counter_track_of(s, row);
	const struct counter_sample *cs =
	    &s->t->tracks[tr].samples[row - s->counter_base[tr]];
	switch (col) {
	case CO_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case CO_TS: sqlite3_result_int64(ctx, cs->t); break;
	case CO_TRACK_ID: sqlite3_result_int64(ctx, tr); break;
	case CO_VALUE:
		if (isnan(cs->value))
			sqlite3_result_null(ctx);
		else
			sqlite3_result_double(ctx, cs->value);
		break;
	}
}

/* ---------------------------------------------------------------- flow */

static bool
ref_ok(const struct trace *t, struct slice_ref r)
{
	return r.track < t->ntracks && r.depth < t->tracks[r.track].ndepth &&
	    r.index < t->tracks[r.track].depth[r.depth].len;
}

/* A slice the slice table shows. */
static bool
slice_shown(const struct sql *s, struct slice_ref r)
{
	const struct trace *t = s->t;
	if (!ref_ok(t, r) || t->tracks[r.track].kind == TRACK_CPU ||
	    !sql_track_on(s, r.track))
		return false;
	const struct depth_level *l = &t->tracks[r.track].depth[r.depth];
	const struct slice *sl = &l->slices[r.index];
	if (!sql_func_on(s, sl->func))
		return false;
	if (s->t0 == TTV_NS_MIN && s->t1 == TTV_NS_MAX)
		return true;
	ttv_ns end = level_end(l, r.index);
	return sl->start < s->t1 && (end > s->t0 || (end == sl->start &&
	    sl->start >= s->t0));
}

static void
flow_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	id_ranges(q, s->t->nflows, out);
}

static bool
flow_visible(struct sql *s, uint64_t row)
{
	const struct flow *f = &s->t->flows[row];
	return slice_shown(s, f->from) && slice_shown(s, f->to);
}

static void
flow_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct flow *f = &s->t->flows[row];
	switch (col) {
	case FL_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case FL_SLICE_OUT: sqlite3_result_int64(ctx, sql_ref_id(s, f->from));
		break;
	case FL_SLICE_IN: sqlite3_result_int64(ctx, sql_ref_id(s, f->to));
		break;
	case FL_TRACE_ID: sqlite3_result_int64(ctx, (int64_t)f->id); break;
	default: sqlite3_result_null(ctx); break;
	}
}

/* ---------------------------------------------------------------- args */

/* Marks the runs of args that rows in the view refer to: arg_head[i] is
 * the run holding entry i, 0 when no shown row refers to it. */
static uint32_t *
arg_heads(struct sql *s)
{
	if (s->arg_head != NULL)
		return s->arg_head;
	const struct trace *t = s->t;
	uint32_t *head = xcalloc(t->nargs ? t->nargs : 1, sizeof *head);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!sql_track_on(s, i))
			continue;
		for (size_t k = 0; k < tr->nslice_args; k++) {
			const struct slice_args *sa = &tr->slice_args[k];
			struct slice_ref r = { i, sa->depth, sa->index };
			if (tr->kind != TRACK_CPU && !slice_shown(s, r))
				continue;
			size_t n;
			const struct arg *a = trace_args(t, sa->args, &n);
			for (size_t j = 0; j < n; j++)
				head[(size_t)(a - t->args) + j] = sa->args;
		}
		for (size_t k = 0; k < tr->ninstants; k++) {
			const struct instant *in = &tr->instants[k];
			if (in->args == 0 || !sql_func_on(s, in->func) ||
			    in->t < s->t0 || in->t >= s->t1)
				continue;
			size_t n;
			const struct arg *a = trace_args(t, in->args, &n);
			for (size_t j = 0; j < n; j++)
				head[(size_t)(a - t->args) + j] = in->args;
		}
	}
	/* kept until the view changes */
	s->arg_head = head;
	return head;
}

static void
args_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	const struct trace *t = s->t;
	arg_heads(s);
	if (q->has_key) {
		size_t n;
		if (q->key <= 0 || (uint64_t)q->key >= t->nargs)
			return;
		const struct arg *a = trace_args(t, (args_id)q->key, &n);
		if (n > 0)
			push_range(out, (uint64_t)(a - t->args),
			    (uint64_t)(a - t->args) + n);
		return;
	}
	id_ranges(q, t->nargs, out);
}

static bool
args_visible(struct sql *s, uint64_t row)
{
	return s->arg_head[row] != 0;
}

static const char *const arg_types[] = {
	[ARG_NULL] = "null", [ARG_BOOL] = "bool", [ARG_I64] = "int",
	[ARG_U64] = "uint", [ARG_F64] = "real", [ARG_STR] = "string",
	[ARG_PTR] = "pointer", [ARG_KOID] = "uint",
};

static void
args_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct arg *a = &t->args[row];
	uint32_t type = a->type <= ARG_KOID ? a->type : ARG_NULL;
	bool is_int = type == ARG_BOOL || type == ARG_I64 || type == ARG_U64 ||
	    type == ARG_PTR || type == ARG_KOID;
	switch (col) {
	case AR_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case AR_ARG_SET_ID:
		sqlite3_result_int64(ctx, s->arg_head[row]);
		break;
	case AR_FLAT_KEY:
	case AR_KEY:
		result_text(ctx, trace_str(t, a->name));
		break;
	case AR_INT_VALUE:
		if (is_int)
			sqlite3_result_int64(ctx, type == ARG_BOOL ?
			    a->v.i != 0 : a->v.i);
		else
			sqlite3_result_null(ctx);
		break;
	case AR_STRING_VALUE:
		if (type == ARG_STR)
			result_text(ctx, trace_str(t, a->v.s));
		else
			sqlite3_result_null(ctx);
		break;
	case AR_REAL_VALUE:
		if (type == ARG_F64 && !isnan(a->v.f))
			sqlite3_result_double(ctx, a->v.f);
		else
			sqlite3_result_null(ctx);
		break;
	case AR_VALUE_TYPE: result_text(ctx, arg_types[type]); break;
	case AR_DISPLAY_VALUE: {
		char buf[64];
		switch (type) {
		case ARG_NULL: sqlite3_result_null(ctx); return;
		case ARG_BOOL: result_text(ctx, a->v.i ? "true" : "false");
			return;
		case ARG_I64: snprintf(buf, sizeof buf, "%lld",
		    (long long)a->v.i); break;
		case ARG_U64: case ARG_KOID: snprintf(buf, sizeof buf, "%llu",
		    (unsigned long long)a->v.u); break;
		case ARG_PTR: snprintf(buf, sizeof buf, "0x%llx",
		    (unsigned long long)a->v.u); break;
		case ARG_F64: real_text(a->v.f, buf, sizeof buf);
			break;
		default: result_text(ctx, trace_str(t, a->v.s)); return;
		}
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		break;
	}
	}
}

/* -------------------------------------------------------- trace_bounds */

static void
bounds_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	push_range(out, 0, 1);
}

static void
bounds_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, col == TB_START_TS ? s->t->first :
	    s->t->last);
}

/* -------------------------------------------------------------- marker */

static void
marker_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	const struct trace *t = s->t;
	if (q->has_id) {
		id_ranges(q, t->nmarkers, out);
		return;
	}
	size_t a, b;
	time_range(s, t->markers, t->nmarkers, sizeof *t->markers,
	    offsetof(struct marker, t), q, &a, &b);
	push_range(out, a, b);
}

static bool
marker_visible(struct sql *s, uint64_t row)
{
	const struct marker *m = &s->t->markers[row];
	if (m->t < s->t0 || m->t >= s->t1)
		return false;
	return m->track >= s->t->ntracks || sql_track_on(s, m->track);
}

static void
marker_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct marker *m = &t->markers[row];
	switch (col) {
	case MK_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case MK_TS: sqlite3_result_int64(ctx, m->t); break;
	case MK_KIND: result_text(ctx, marker_kind_name(m->kind)); break;
	case MK_UTID: result_utid(ctx, s, m->track); break;
	case MK_TRACK_ID:
		if (m->track < t->ntracks)
			sqlite3_result_int64(ctx, m->track);
		else
			sqlite3_result_null(ctx);
		break;
	case MK_VALUE: sqlite3_result_int64(ctx, m->value); break;
	case MK_TEXT: result_name(ctx, t, m->text); break;
	}
}

/* ----------------------------------------------------------------- log */

static void
log_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	const struct trace *t = s->t;
	if (q->has_id) {
		id_ranges(q, t->nlogs, out);
		return;
	}
	size_t a, b;
	time_range(s, t->logs, t->nlogs, sizeof *t->logs,
	    offsetof(struct log_entry, t), q, &a, &b);
	push_range(out, a, b);
}

static bool
log_visible(struct sql *s, uint64_t row)
{
	const struct log_entry *l = &s->t->logs[row];
	if (l->t < s->t0 || l->t >= s->t1)
		return false;
	return l->track >= s->t->ntracks || sql_track_on(s, l->track);
}

static void
log_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	const struct log_entry *l = &t->logs[row];
	switch (col) {
	case LG_ID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case LG_TS: sqlite3_result_int64(ctx, l->t); break;
	case LG_UTID: result_utid(ctx, s, l->track); break;
	case LG_TRACK_ID:
		if (l->track < t->ntracks)
			sqlite3_result_int64(ctx, l->track);
		else
			sqlite3_result_null(ctx);
		break;
	/* no format ttv reads gives log records a severity */
	case LG_SEVERITY: sqlite3_result_null(ctx); break;
	case LG_MESSAGE: result_text(ctx, trace_str(t, l->text)); break;
	}
}

/* ------------------------------------------------------------ metadata */

/* The facts --info prints, as (name, value) rows: first the fixed ones,
 * then a row per record kind, per marker kind, per metadata key. */
enum {
	MD_PATH, MD_FORMAT, MD_VERSION, MD_BYTE_ORDER, MD_TICK_RATE,
	MD_START, MD_END, MD_WALL_ORIGIN, MD_PROCESSES, MD_THREADS,
	MD_FUNCTIONS, MD_SLICES, MD_INSTANTS, MD_COUNTER_SAMPLES, MD_FLOWS,
	MD_LOGS, MD_MARKERS, MD_MODEL_MEMORY, MD_ERRORS, MD_WARNINGS,
	MD_FIXED
};
static const char *const md_names[MD_FIXED] = {
	"trace_path", "format", "version", "byte_order", "ticks_per_second",
	"trace_start", "trace_end", "wall_clock_origin", "processes",
	"threads", "functions", "slices", "instants", "counter_samples",
	"flows", "logs", "markers", "model_memory", "errors", "warnings",
};

static void
metadata_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	push_range(out, 0, MD_FIXED + s->t->nrecords + MARKER_KIND_COUNT +
	    s->t->nmeta);
}

static const uint64_t *
marker_counts(struct sql *s)
{
	if (!s->have_marker_counts) {
		for (size_t i = 0; i < s->t->nmarkers; i++)
			if (s->t->markers[i].kind < MARKER_KIND_COUNT)
				s->marker_counts[s->t->markers[i].kind]++;
		s->have_marker_counts = true;
	}
	return s->marker_counts;
}

/* Rows of facts the trace does not have are left out, as are marker
 * kinds it has none of (as --info does). */
static bool
metadata_visible(struct sql *s, uint64_t row)
{
	const struct trace *t = s->t;
	if (row == MD_VERSION)
		return t->version != NULL;
	if (row == MD_BYTE_ORDER)
		return t->byte_order != NULL;
	if (row == MD_WALL_ORIGIN)
		return t->wall_origin != TTV_NS_MIN;
	if (row >= MD_FIXED + t->nrecords &&
	    row < MD_FIXED + t->nrecords + MARKER_KIND_COUNT)
		return marker_counts(s)[row - MD_FIXED - t->nrecords] != 0;
	return true;
}

static void
metadata_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct trace *t = s->t;
	if (row >= MD_FIXED) {
		uint64_t r = row - MD_FIXED;
		char buf[128];
		if (r < t->nrecords) {
			if (col == MDC_NAME) {
				snprintf(buf, sizeof buf, "record.%s",
				    t->records[r].kind);
				sqlite3_result_text(ctx, buf, -1,
				    SQLITE_TRANSIENT);
			} else {
				sqlite3_result_int64(ctx,
				    (int64_t)t->records[r].count);
			}
			return;
		}
		r -= t->nrecords;
		if (r < MARKER_KIND_COUNT) {
			if (col == MDC_NAME) {
				snprintf(buf, sizeof buf, "marker.%s",
				    marker_kind_name((enum marker_kind)r));
				sqlite3_result_text(ctx, buf, -1,
				    SQLITE_TRANSIENT);
			} else {
				sqlite3_result_int64(ctx,
				    (int64_t)marker_counts(s)[r]);
			}
			return;
		}
		r -= MARKER_KIND_COUNT;
		if (col == MDC_NAME) {
			char *n = xasprintf("meta.%s", t->meta_keys[r]);
			sqlite3_result_text(ctx, n, -1, free);
		} else {
			result_text(ctx, t->meta_values[r]);
		}
		return;
	}
	if (col == MDC_NAME) {
		result_text(ctx, md_names[row]);
		return;
	}
	size_t n = 0;
	switch (row) {
	case MD_PATH: result_text(ctx, t->path ? t->path : ""); return;
	case MD_FORMAT: result_text(ctx, t->format ? t->format : ""); return;
	case MD_VERSION: result_text(ctx, t->version); return;
	case MD_BYTE_ORDER: result_text(ctx, t->byte_order); return;
	case MD_TICK_RATE:
		if (t->ticks_per_second > 0)
			sqlite3_result_double(ctx, t->ticks_per_second);
		else
			sqlite3_result_null(ctx);
		return;
	case MD_START: n = (size_t)t->first; break;
	case MD_END: n = (size_t)t->last; break;
	case MD_WALL_ORIGIN: n = (size_t)t->wall_origin; break;
	case MD_PROCESSES: n = t->nprocesses; break;
	case MD_THREADS: n = s->nthreads; break;
	case MD_FUNCTIONS: n = t->nfuncs; break;
	case MD_SLICES: n = trace_nslices(t); break;
	case MD_INSTANTS: n = s->inst_base[t->ntracks]; break;
	case MD_COUNTER_SAMPLES: n = s->counter_base[t->ntracks]; break;
	case MD_FLOWS: n = t->nflows; break;
	case MD_LOGS: n = t->nlogs; break;
	case MD_MARKERS: n = t->nmarkers; break;
	case MD_MODEL_MEMORY: n = trace_memory(t); break;
	case MD_ERRORS:
	case MD_WARNINGS:
		for (size_t i = 0; i < t->ndiags; i++)
			n += (t->diags[i].level == DIAG_ERROR) ==
			    (row == MD_ERRORS);
		if (row == MD_WARNINGS)
			n += (size_t)t->ndiags_dropped;
		break;
	}
	sqlite3_result_int64(ctx, (int64_t)n);
}

/* --------------------------------------------------------------- sizes */

static uint64_t
threads_size(const struct sql *s)
{
	return s->nthreads;
}

static uint64_t
processes_size(const struct sql *s)
{
	return s->t->nprocesses;
}

static uint64_t
tracks_size(const struct sql *s)
{
	return s->t->ntracks;
}

static uint64_t
counters_size(const struct sql *s)
{
	return s->counter_base[s->t->ntracks];
}

static uint64_t
flows_size(const struct sql *s)
{
	return s->t->nflows;
}

static uint64_t
args_size(const struct sql *s)
{
	return s->t->nargs;
}

static uint64_t
one_size(const struct sql *s)
{
	return 1;
}

static uint64_t
markers_size(const struct sql *s)
{
	return s->t->nmarkers;
}

static uint64_t
logs_size(const struct sql *s)
{
	return s->t->nlogs;
}

static uint64_t
metadata_size(const struct sql *s)
{
	return MD_FIXED + s->t->nrecords + MARKER_KIND_COUNT + s->t->nmeta;
}

/* ----------------------------------------------- ttv_tables, ttv_columns */

/* The description the tables are made from (sql_schema.def), as rows. */

static void
schema_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	push_range(out, 0, sql_schema_len);
}

static void
schema_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	const struct sql_table_desc *d = &sql_schema[row];
	switch (col) {
	case TN_NAME: result_text(ctx, d->name); break;
	case TN_KIND:
		result_text(ctx, d->columns_of ? "table function" : "table");
		break;
	case TN_COLUMNS_OF:
		if (d->columns_of != NULL)
			result_text(ctx, d->columns_of);
		else
			sqlite3_result_null(ctx);
		break;
	case TN_DESCRIPTION: result_text(ctx, d->doc); break;
	}
}

static uint64_t
schema_size(const struct sql *s)
{
	return sql_schema_len;
}

static uint64_t
columns_size(const struct sql *s)
{
	uint64_t n = 0;
	for (size_t i = 0; i < sql_schema_len; i++)
		n += sql_schema_ncols(&sql_schema[i]);
	return n;
}

static void
columns_ranges(struct sql *s, const struct ask *q, struct ranges *out)
{
	push_range(out, 0, columns_size(s));
}

static void
columns_column(struct sql *s, uint64_t row, int col, sqlite3_context *ctx)
{
	static const char *const kinds[] = {
		[SQL_COLUMN] = "column", [SQL_COLUMN_HIDDEN] = "hidden",
		[SQL_COLUMN_ARG] = "argument",
	};
	size_t t = 0;
	while (row >= sql_schema_ncols(&sql_schema[t]))
		row -= sql_schema_ncols(&sql_schema[t++]);
	const struct sql_table_desc *d = &sql_schema[t];
	const struct sql_column_desc *c = sql_schema_column(d, row);
	const char *ops;
	switch (col) {
	case TC_TABLE_NAME: result_text(ctx, d->name); break;
	case TC_CID: sqlite3_result_int64(ctx, (int64_t)row); break;
	case TC_NAME: result_text(ctx, c->name); break;
	case TC_TYPE: result_text(ctx, c->type); break;
	case TC_KIND: result_text(ctx, kinds[c->kind]); break;
	case TC_LOOKUP:
		if ((ops = sql_lookup_ops(sql_schema_lookup(d, (int)row))) !=
		    NULL)
			result_text(ctx, ops);
		else
			sqlite3_result_null(ctx);
		break;
	case TC_DESCRIPTION: result_text(ctx, c->doc); break;
	}
}

/* -------------------------------------------------------------- tables */

/* What each table reads; its columns and lookups are in its description
 * (sql_schema.def), found by name. */
static const struct tdef tables[] = {
	{ "thread", thread_ranges, thread_visible, thread_column,
	    threads_size },
	{ "process", process_ranges, NULL, process_column, processes_size },
	{ "track", track_ranges, track_visible, track_column, tracks_size },
	{ "thread_track", thread_track_ranges, thread_track_visible,
	    thread_track_column, threads_size },
	{ "process_track", track_ranges, process_track_visible,
	    process_track_column, tracks_size },
	{ "counter_track", track_ranges, counter_track_visible,
	    counter_track_column, tracks_size },
	{ "cpu_track", track_ranges, cpu_track_visible, cpu_track_column,
	    tracks_size },
	{ "counter", counter_ranges, NULL, counter_column, counters_size },
	{ "flow", flow_ranges, flow_visible, flow_column, flows_size },
	{ "args", args_ranges, args_visible, args_column, args_size },
	{ "trace_bounds", bounds_ranges, NULL, bounds_column, one_size },
	{ "marker", marker_ranges, marker_visible, marker_column,
	    markers_size },
	{ "log", log_ranges, log_visible, log_column, logs_size },
	{ "metadata", metadata_ranges, metadata_visible, metadata_column,
	    metadata_size },
	{ "ttv_tables", schema_ranges, NULL, schema_column, schema_size },
	{ "ttv_columns", columns_ranges, NULL, columns_column,
	    columns_size },
};

/* ---------------------------------------------------------- the module */

struct table {
	sqlite3_vtab base;
	struct sql *s;
	const struct tdef *def;
	const struct sql_table_desc *desc;
};

struct cursor {
	sqlite3_vtab_cursor base;
	struct sql *s;
	const struct tdef *def;
	struct ranges rs;
	size_t ri;
	uint64_t row;
	bool eof;
};

static int
connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	const struct tdef *def = NULL;
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
		if (strcmp(argv[0], tables[i].name) == 0)
			def = &tables[i];
	const struct sql_table_desc *desc = def ? sql_schema_table(def->name) :
	    NULL;
	if (desc == NULL)
		return SQLITE_ERROR;
	char *schema = sql_schema_create(desc);
	int rc = sqlite3_declare_vtab(db, schema);
	free(schema);
	if (rc != SQLITE_OK)
		return rc;
	/* Reading the trace has no side effect: views and triggers may use
	 * the table even though the schema is not trusted (CREATE VIEW,
	 * the slices view). */
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	struct table *tb = sqlite3_malloc(sizeof *tb);
	if (tb == NULL)
		return SQLITE_NOMEM;
	memset(tb, 0, sizeof *tb);
	tb->s = aux;
	tb->def = def;
	tb->desc = desc;
	*out = &tb->base;
	return SQLITE_OK;
}

static int
disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

enum { A_ID, A_KEY, A_EQ, A_GT, A_GE, A_LT, A_LE, A_N };

static int
best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const struct table *tb = (const struct table *)vt;
	const struct tdef *def = tb->def;
	int which[A_N];
	for (int k = 0; k < A_N; k++)
		which[k] = -1;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct = &info->aConstraint[i];
		if (!ct->usable)
			continue;
		/* the columns' lookups (sql_schema.def) say which
		 * constraints a scan takes */
		enum sql_lookup l = sql_schema_lookup(tb->desc, ct->iColumn);
		int k = -1;
		if (ct->op == SQLITE_INDEX_CONSTRAINT_EQ && l == SQL_LOOKUP_ID)
			k = A_ID;
		else if (ct->op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    l == SQL_LOOKUP_KEY)
			k = A_KEY;
		else if (l == SQL_LOOKUP_TIME)
			k = ct->op == SQLITE_INDEX_CONSTRAINT_EQ ? A_EQ :
			    ct->op == SQLITE_INDEX_CONSTRAINT_GT ? A_GT :
			    ct->op == SQLITE_INDEX_CONSTRAINT_GE ? A_GE :
			    ct->op == SQLITE_INDEX_CONSTRAINT_LT ? A_LT :
			    ct->op == SQLITE_INDEX_CONSTRAINT_LE ? A_LE : -1;
		if (k >= 0 && which[k] < 0)
			which[k] = i;
	}
	/* an id names one row: the ranges of an id ignore the rest */
	if (which[A_ID] >= 0)
		for (int k = A_KEY; k < A_N; k++)
			which[k] = -1;
	int plan = 0, argv = 0;
	double rows = (double)def->size(tb->s) + 1;
	for (int k = 0; k < A_N; k++) {
		if (which[k] < 0)
			continue;
		plan |= 1 << k;
		info->aConstraintUsage[which[k]].argvIndex = ++argv;
		/* time bounds are met exactly by the ranges */
		info->aConstraintUsage[which[k]].omit = k >= A_EQ;
	}
	if (plan & (1 << A_ID)) {
		rows = 1;
		info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	} else {
		if (plan & (1 << A_KEY))
			rows = rows / 20 + 1;
		if (plan & ((1 << A_EQ) | (1 << A_GT) | (1 << A_GE) |
		    (1 << A_LT) | (1 << A_LE)))
			rows /= 4;
	}
	/* rows come in row order, which is id order */
	if (info->nOrderBy == 1 && !info->aOrderBy[0].desc &&
	    sql_schema_lookup(tb->desc, info->aOrderBy[0].iColumn) ==
	    SQL_LOOKUP_ID)
		info->orderByConsumed = 1;
	info->idxNum = plan;
	info->estimatedRows = (sqlite3_int64)rows;
	info->estimatedCost = rows + 1;
	return SQLITE_OK;
}

static int
open_cursor(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	const struct table *tb = (const struct table *)vt;
	struct cursor *c = xcalloc(1, sizeof *c);
	c->s = tb->s;
	c->def = tb->def;
	c->eof = true;
	*out = &c->base;
	return SQLITE_OK;
}

static int
close_cursor(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	free(c->rs.r);
	free(c);
	return SQLITE_OK;
}

/* Moves to the first row at or after the current place that is shown. */
static void
settle(struct cursor *c)
{
	while (c->ri < c->rs.n) {
		if (c->row < c->rs.r[c->ri].a)
			c->row = c->rs.r[c->ri].a;
		for (; c->row < c->rs.r[c->ri].b; c->row++) {
			if (c->def->visible == NULL ||
			    c->def->visible(c->s, c->row))
				return;
			if ((c->row & 0xffff) == 0 && sql_cancelled(c->s))
				goto out;
		}
		c->ri++;
	}
out:
	c->eof = true;
}

static int
filter(sqlite3_vtab_cursor *cur, int plan, const char *idx, int argc,
    sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)cur;
	struct ask q = { .lo = TTV_NS_MIN, .hi = TTV_NS_MAX };
	sqlite3_value *arg[A_N] = { NULL };
	int a = 0;
	for (int k = 0; k < A_N; k++)
		if ((plan & (1 << k)) && a < argc)
			arg[k] = argv[a++];
	c->rs.n = 0;
	c->ri = 0;
	c->row = 0;
	c->eof = true;
	/* ids and keys are INTEGER columns: '0' finds what 0 finds */
	if (arg[A_ID] != NULL) {
		if (!sql_value_integer(arg[A_ID], &q.id))
			return SQLITE_OK;
		q.has_id = true;
	}
	if (arg[A_KEY] != NULL) {
		if (!sql_value_integer(arg[A_KEY], &q.key))
			return SQLITE_OK;
		q.has_key = true;
	}
	static const int ts_op[A_N] = {
		[A_EQ] = SQLITE_INDEX_CONSTRAINT_EQ,
		[A_GT] = SQLITE_INDEX_CONSTRAINT_GT,
		[A_GE] = SQLITE_INDEX_CONSTRAINT_GE,
		[A_LT] = SQLITE_INDEX_CONSTRAINT_LT,
		[A_LE] = SQLITE_INDEX_CONSTRAINT_LE,
	};
	for (int k = A_EQ; k < A_N; k++)
		if (arg[k] != NULL && !sql_ts_bound(ts_op[k], arg[k], &q.lo,
		    &q.hi))
			return SQLITE_OK;
	if (q.lo > q.hi)
		return SQLITE_OK;
	c->def->ranges(c->s, &q, &c->rs);
	c->eof = false;
	settle(c);
	return SQLITE_OK;
}

static int
next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	c->row++;
	settle(c);
	return SQLITE_OK;
}

static int
eof(sqlite3_vtab_cursor *cur)
{
	return ((struct cursor *)cur)->eof;
}

static int
column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct cursor *c = (struct cursor *)cur;
	c->def->column(c->s, c->row, col, ctx);
	return SQLITE_OK;
}

static int
rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = (sqlite3_int64)((struct cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module module = {
	.iVersion = 1, .xCreate = NULL, .xConnect = connect,
	.xBestIndex = best_index, .xDisconnect = disconnect,
	.xDestroy = disconnect, .xOpen = open_cursor,
	.xClose = close_cursor, .xFilter = filter, .xNext = next,
	.xEof = eof, .xColumn = column, .xRowid = rowid,
};

int
sql_tables_register(struct sql *s)
{
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		int rc = sqlite3_create_module(s->db, tables[i].name, &module,
		    s);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}
