/*
 * Unit tests of the SQL tables' query plans (src/sql*.c): that each
 * lookup the model can answer touches only the rows it must (the slice
 * table counts the rows it looks at), that the plans give what a plain
 * scan gives, that GROUP BY / ORDER BY name need no sort, and that the
 * view (filter, window) and the connection's containment hold; and the
 * parts of Perfetto's SQL ttv has (ancestor_slice, descendant_slice,
 * slices.with_context, views, SQLite's type rules on constraints).
 *
 * The trace: 4 threads, each 4000 top-level calls 1000 ns apart of
 * 300 ns, each with 2 children of 100 ns (depth 1) and under the first a
 * grandchild of 10 ns (depth 2); functions "top", "a", "b", "leaf" and a
 * rare "rare" (every 1000th top-level call is "rare").
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "builder.h"
#include "sql.h"
#include "sql_int.h"

#define NTHREADS 4
#define NTOP 4000
#define STEP 1000

static struct trace *
make_trace(void)
{
	struct builder *b = builder_new("sql-test");
	builder_set_format(b, "test", "1", NULL);
	const char *names[] = { "top", "a", "b", "leaf", "rare" };
	func_id f[5];
	for (int i = 0; i < 5; i++)
		f[i] = builder_func(b, builder_intern_cstr(b, names[i]),
		    builder_intern_cstr(b, "cat"), i);
	uint32_t proc = builder_process(b, 100);
	for (int th = 0; th < NTHREADS; th++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, 1000 + th);
		for (int i = 0; i < NTOP; i++) {
			ttv_ns t = (ttv_ns)i * STEP;
			builder_push(b, tr, t, i % 1000 == 999 ? f[4] : f[0]);
			builder_push(b, tr, t + 10, f[1]);
			builder_push(b, tr, t + 20, f[3]);
			builder_pop(b, tr, t + 30, 0);
			builder_pop(b, tr, t + 110, 0);
			builder_push(b, tr, t + 150, f[2]);
			builder_pop(b, tr, t + 250, 0);
			builder_pop(b, tr, t + 300, 0);
		}
	}
	return builder_finish(b);
}

struct fixture {
	struct trace *t;
	struct sql *s;
};

static int
setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	fx->t = make_trace();
	char *err = NULL;
	fx->s = sql_open(fx->t, NULL, &err);
	assert_non_null(fx->s);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;
	sql_close(fx->s);
	trace_free(fx->t);
	free(fx);
	return 0;
}

/* Runs a query; returns the first column of the first row (an integer)
 * and the number of rows in *nrows. */
static long long
run(struct sql *s, const char *q, long long *nrows)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(sql_db(s), q, -1, &st, NULL);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", q, sqlite3_errmsg(sql_db(s)));
	long long first = -1, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == 0)
			first = sqlite3_column_int64(st, 0);
		n++;
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	if (nrows)
		*nrows = n;
	return first;
}

/* Rows the slice table looked at while running q. */
static unsigned long long
visited(struct sql *s, const char *q, long long *result)
{
	sql_scan_stats(s)->slice_rows_visited = 0;
	long long r = run(s, q, NULL);
	if (result)
		*result = r;
	return sql_scan_stats(s)->slice_rows_visited;
}

static void
test_counts(void **state)
{
	struct fixture *fx = *state;
	/* 4 slices a top-level call */
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM slice", NULL),
	    NTHREADS * NTOP * 4);
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM thread", NULL),
	    NTHREADS);
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM slice WHERE "
	    "name = 'rare'", NULL), NTHREADS * (NTOP / 1000));
}

/* A time window visits the rows in it and no other: per depth of each
 * track, a binary search gives the index range. */
static void
test_ts_window(void **state)
{
	struct fixture *fx = *state;
	long long n;
	/* top-level calls 100..109 of each thread and their children */
	unsigned long long v = visited(fx->s, "SELECT COUNT(*) FROM slice "
	    "WHERE ts BETWEEN 100000 AND 109999", &n);
	assert_int_equal(n, NTHREADS * 10 * 4);
	assert_int_equal(v, (unsigned long long)n);
	/* one-sided, and with a real bound */
	v = visited(fx->s, "SELECT COUNT(*) FROM slice WHERE ts > 3989999.5",
	    &n);
	assert_int_equal(n, NTHREADS * 10 * 4);
	assert_int_equal(v, (unsigned long long)n);
	/* nothing in it */
	v = visited(fx->s, "SELECT COUNT(*) FROM slice WHERE ts BETWEEN 400 "
	    "AND 900", &n);
	assert_int_equal(n, 0);
	assert_int_equal(v, 0);
}

static void
test_id_lookup(void **state)
{
	struct fixture *fx = *state;
	long long ts;
	unsigned long long v = visited(fx->s, "SELECT ts FROM slice WHERE "
	    "id = 5", &ts);
	assert_int_equal(v, 1);
	assert_int_equal(ts, 5 * STEP);	/* ids go by track, depth, time */
	long long n;
	run(fx->s, "SELECT * FROM slice WHERE id IN (1, 2, 3, -1, 1e12)", &n);
	assert_int_equal(n, 3);
}

/* parent_id looks at the level below the parent, inside its span. */
static void
test_parent(void **state)
{
	struct fixture *fx = *state;
	long long n;
	long long top = run(fx->s, "SELECT id FROM slice WHERE depth = 0 AND "
	    "ts = 2000000 AND track_id = 1", NULL);
	char q[200];
	snprintf(q, sizeof q, "SELECT COUNT(*) FROM slice WHERE parent_id = "
	    "%lld", top);
	unsigned long long v = visited(fx->s, q, &n);
	assert_int_equal(n, 2);
	assert_int_equal(v, 2);
	/* the join of a child to its parent is one id lookup a row */
	v = visited(fx->s, "SELECT COUNT(*) FROM slice c JOIN slice p ON "
	    "c.parent_id = p.id WHERE c.ts BETWEEN 0 AND 999", &n);
	assert_int_equal(n, NTHREADS * 3);
	assert_true(v <= (unsigned long long)NTHREADS * 4 * 2);
}

static void
test_track_depth(void **state)
{
	struct fixture *fx = *state;
	long long n;
	unsigned long long v = visited(fx->s, "SELECT COUNT(*) FROM slice "
	    "WHERE track_id = 2 AND depth = 2", &n);
	assert_int_equal(n, NTOP);
	assert_int_equal(v, NTOP);
	v = visited(fx->s, "SELECT COUNT(*) FROM slice s JOIN thread_track "
	    "t ON s.track_id = t.id JOIN thread USING (utid) WHERE tid = 1003",
	    &n);
	assert_int_equal(n, NTOP * 4);
	assert_int_equal(v, NTOP * 4);
}

/* name = 'x' looks at the blocks of the name index that hold x: rows in
 * proportion to x's calls, not to the trace. */
static void
test_name_index(void **state)
{
	struct fixture *fx = *state;
	long long n;
	unsigned long long v = visited(fx->s, "SELECT COUNT(*) FROM slice "
	    "WHERE name = 'rare'", &n);
	assert_int_equal(n, NTHREADS * 4);
	assert_true(v <= (unsigned long long)n * 64);
	assert_true(v < NTHREADS * NTOP * 4 / 50);
	assert_true(sql_index_memory(fx->s) > 0);
	/* with a time bound the index still answers, and exactly */
	v = visited(fx->s, "SELECT COUNT(*) FROM slice WHERE name = 'rare' "
	    "AND ts < 1500000", &n);
	assert_int_equal(n, NTHREADS);
	long long m = run(fx->s, "SELECT COUNT(*) FROM slice WHERE "
	    "+name = 'rare' AND +ts < 1500000", NULL);
	assert_int_equal(n, m);
	/* a name no function has: nothing looked at */
	v = visited(fx->s, "SELECT COUNT(*) FROM slice WHERE name = 'none'",
	    &n);
	assert_int_equal(n, 0);
	assert_int_equal(v, 0);
}

/* GROUP BY name and ORDER BY name: rows come in name order, SQLite does
 * not sort (no temporary b-tree in the plan). */
static void
test_by_name(void **state)
{
	struct fixture *fx = *state;
	const char *queries[] = {
		"SELECT name, COUNT(*) FROM slice GROUP BY name",
		"SELECT name FROM slice ORDER BY name",
		"SELECT name FROM slice ORDER BY name DESC",
	};
	for (size_t i = 0; i < 3; i++) {
		char q[200];
		snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", queries[i]);
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(sql_db(fx->s), q, -1, &st,
		    NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st,
			    3);
			assert_null(strstr(d, "TEMP B-TREE"));
		}
		sqlite3_finalize(st);
	}
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(sql_db(fx->s), queries[0], -1,
	    &st, NULL), SQLITE_OK);
	const char *want[] = { "a", "b", "leaf", "rare", "top" };
	long long counts[] = { NTOP, NTOP, NTOP, 4, NTOP - 4 };
	int k = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(k < 5);
		assert_string_equal(sqlite3_column_text(st, 0), want[k]);
		assert_int_equal(sqlite3_column_int64(st, 1),
		    counts[k] * NTHREADS);
		k++;
	}
	assert_int_equal(k, 5);
	sqlite3_finalize(st);
}

/* Rows by name in batches: a buffer of 1000 places makes every function
 * a batch of its own, split in parts (16000 rows each but "rare"); the
 * rows must be those SQLite's own grouping finds, in the same order. */
static void
test_by_name_batches(void **state)
{
	struct fixture *fx = *state;
	const char *q[] = {
		"SELECT name, COUNT(*), SUM(dur), SUM(id), MIN(ts) FROM slice "
		"GROUP BY name",
		"SELECT name, COUNT(*), SUM(dur), SUM(id), MIN(ts) FROM slice "
		"GROUP BY name || '' ORDER BY name",
		"SELECT name, COUNT(*), SUM(id) FROM slice GROUP BY name "
		"ORDER BY name DESC",
		"SELECT name, COUNT(*), SUM(id) FROM slice GROUP BY name || '' "
		"ORDER BY name DESC",
	};
	for (int pair = 0; pair < 2; pair++) {
		fx->s->by_name_cap = pair == 0 ? 1000 : 0;
		sqlite3_stmt *a, *b;
		for (int k = 0; k < 4; k += 2) {
			assert_int_equal(sqlite3_prepare_v2(sql_db(fx->s),
			    q[k], -1, &a, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_prepare_v2(sql_db(fx->s),
			    q[k + 1], -1, &b, NULL), SQLITE_OK);
			long long rows = 0;
			for (;;) {
				int ra = sqlite3_step(a), rb = sqlite3_step(b);
				assert_int_equal(ra, rb);
				if (ra != SQLITE_ROW)
					break;
				for (int c = 0; c < sqlite3_column_count(a);
				    c++)
					assert_string_equal(
					    sqlite3_column_text(a, c),
					    sqlite3_column_text(b, c));
				rows++;
			}
			assert_int_equal(rows, 5);
			sqlite3_finalize(a);
			sqlite3_finalize(b);
		}
	}
	fx->s->by_name_cap = 0;
}

/* The view: a filter hides tracks and functions, a window keeps what
 * overlaps it. */
static void
test_view(void **state)
{
	struct fixture *fx = *state;
	struct filter f;
	filter_init(&f);
	int64_t tid = 1001;
	filter_set_threads(&f, fx->t, &tid, 1, false);
	char *err = NULL;
	struct regex *re = regex_compile("^leaf$", &err);
	filter_set_functions(&f, fx->t, re, true);
	struct sql_view v = { .filter = &f, .t0 = 1000000, .t1 = 1002000 };
	sql_set_view(fx->s, &v);
	long long n;
	run(fx->s, "SELECT * FROM slice", &n);
	assert_int_equal(n, 2 * 3);	/* 2 calls, 3 slices without leaf */
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM thread", NULL), 1);
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM slice WHERE "
	    "name = 'leaf'", NULL), 0);
	/* the window holds whole slices: one ending inside it is in */
	v.filter = NULL;
	v.t0 = 1000240;
	v.t1 = 1000260;
	sql_set_view(fx->s, &v);
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM slice", NULL),
	    NTHREADS * 2);
	sql_set_view(fx->s, NULL);
	assert_int_equal(run(fx->s, "SELECT COUNT(*) FROM slice", NULL),
	    NTHREADS * NTOP * 4);
	regex_free(re);
	filter_clear(&f);
}

static void
test_refused(void **state)
{
	struct fixture *fx = *state;
	const char *bad[] = {
		"ATTACH 'x.db' AS x", "VACUUM INTO 'y.db'",
		"SELECT load_extension('z')", "PRAGMA journal_mode = WAL",
		"CREATE VIRTUAL TABLE temp.v USING fts5(a)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(sql_db(fx->s), bad[i], -1, &st,
		    NULL);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		assert_true(rc != SQLITE_OK && rc != SQLITE_DONE);
	}
	/* a cancelled query stops */
	sql_cancel(fx->s);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(sql_db(fx->s), "SELECT COUNT(*) "
	    "FROM slice a, slice b", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st) & 0xff, SQLITE_INTERRUPT);
	sqlite3_finalize(st);
	sql_cancel_clear(fx->s);
}

static void *
cancel_soon(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	sql_cancel(arg);
	return NULL;
}

/* sql_cancel() from another thread stops a statement being prepared: one
 * of 100,000 common table expressions takes SQLite a minute to parse (it
 * checks each name against all before it), and the progress handler is
 * not called while it does. */
static void
test_cancel_prepare(void **state)
{
	struct fixture *fx = *state;
	size_t n = 100000, len = 0, cap = n * 32;
	char *q = malloc(cap);
	assert_non_null(q);
	len += (size_t)snprintf(q, cap, "WITH c0(x) AS (SELECT 1)");
	for (size_t i = 1; i < n; i++)
		len += (size_t)snprintf(q + len, cap - len,
		    ", c%zu(x) AS (SELECT 1)", i);
	snprintf(q + len, cap - len, " SELECT 1");
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, cancel_soon, fx->s), 0);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(sql_db(fx->s), q, -1, &st, NULL);
	pthread_join(th, NULL);
	sqlite3_finalize(st);
	free(q);
	assert_int_equal(rc & 0xff, SQLITE_INTERRUPT);
	assert_true(sql_cancel_requested(fx->s));
	/* cleared, the connection answers again */
	sql_cancel_clear(fx->s);
	assert_int_equal(run(fx->s, "SELECT 42", NULL), 42);
}

/* ---------------------------------------------- Perfetto's SQL, in ttv */

/* The trace of Perfetto's ancestor_slice and descendant_slice diagrams,
 * on the main thread of process "app": A holds B (which holds C) and D
 * (which holds E, which holds the instant I); F stands alone. An async
 * track of the process holds G. */
static struct trace *
make_doc_trace(void)
{
	struct builder *b = builder_new("doc-test");
	builder_set_format(b, "test", "1", NULL);
	const char *names[] = { "A", "B", "C", "D", "E", "F", "G", "I" };
	func_id f[8];
	for (int i = 0; i < 8; i++)
		f[i] = builder_func(b, builder_intern_cstr(b, names[i]), 0, i);
	uint32_t proc = builder_process(b, 70);
	builder_process_name(b, proc, builder_intern_cstr(b, "app"));
	uint32_t tr = builder_track(b, TRACK_THREAD, proc, 70);
	builder_track_name(b, tr, builder_intern_cstr(b, "main"));
	builder_push(b, tr, 0, f[0]);
	builder_push(b, tr, 10, f[1]);
	builder_push(b, tr, 20, f[2]);
	builder_pop(b, tr, 30, 0);
	builder_pop(b, tr, 50, 0);
	builder_push(b, tr, 60, f[3]);
	builder_push(b, tr, 70, f[4]);
	builder_instant(b, tr, 75, f[7], 0);
	builder_pop(b, tr, 80, 0);
	builder_pop(b, tr, 90, 0);
	builder_pop(b, tr, 100, 0);
	builder_push(b, tr, 200, f[5]);
	builder_pop(b, tr, 300, 0);
	uint32_t as = builder_track(b, TRACK_ASYNC, proc, 1);
	builder_push(b, as, 0, f[6]);
	builder_pop(b, as, 10, 0);
	return builder_finish(b);
}

static int
doc_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	fx->t = make_doc_trace();
	char *err = NULL;
	fx->s = sql_open(fx->t, NULL, &err);
	assert_non_null(fx->s);
	*state = fx;
	return 0;
}

/* The first column of every row, joined by ','. */
static const char *
rows(struct sql *s, const char *q)
{
	static char buf[512];
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(sql_db(s), q, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", q, sqlite3_errmsg(sql_db(s)));
	buf[0] = '\0';
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "",
		    v ? v : "NULL");
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	return buf;
}

/* The error a query stops with ("" when it runs). */
static const char *
error_of(struct sql *s, const char *q)
{
	static char buf[256];
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(sql_db(s), q, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
	}
	snprintf(buf, sizeof buf, "%s", rc == SQLITE_DONE || rc == SQLITE_OK ?
	    "" : sqlite3_errmsg(sql_db(s)));
	return buf;
}

/* ancestor_slice: the parent_id chain, outermost first (Perfetto's
 * diagram: ancestor_slice(C) is A, B); the columns of slice. */
static void
test_ancestor_slice(void **state)
{
	struct fixture *fx = *state;
	struct sql *s = fx->s;
	assert_string_equal(rows(s, "SELECT name FROM ancestor_slice("
	    "(SELECT id FROM slice WHERE name = 'C'))"), "A,B");
	assert_string_equal(rows(s, "SELECT depth FROM ancestor_slice("
	    "(SELECT id FROM slice WHERE name = 'C'))"), "0,1");
	/* each row's parent_id is the row before it */
	assert_string_equal(rows(s, "SELECT a.parent_id IS (SELECT id FROM "
	    "slice WHERE name = 'A') FROM ancestor_slice((SELECT id FROM slice "
	    "WHERE name = 'C')) a WHERE a.depth = 1"), "1");
	assert_string_equal(rows(s, "SELECT name FROM ancestor_slice("
	    "(SELECT id FROM slice WHERE name = 'I'))"), "A,D,E");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM ancestor_slice("
	    "(SELECT id FROM slice WHERE name = 'A'))"), "0");
	/* as a join: every slice with its root */
	assert_string_equal(rows(s, "SELECT s.name || a.name FROM slice s "
	    "JOIN ancestor_slice(s.id) a ON a.depth = 0 ORDER BY s.ts"),
	    "BA,CA,DA,EA,IA");
	/* the columns of slice that SELECT * shows, in its order */
	assert_string_equal(rows(s, "SELECT group_concat(name || ' ' || type)"
	    " FROM pragma_table_info('ancestor_slice')"),
	    rows(s, "SELECT group_concat(name || ' ' || type) FROM "
	    "pragma_table_info('slice')"));
	/* NULL: no row; an id as text: the id; no such id: an error */
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM "
	    "ancestor_slice(NULL)"), "0");
	assert_string_equal(rows(s, "SELECT group_concat(name) FROM "
	    "ancestor_slice((SELECT CAST(id AS TEXT) FROM slice WHERE "
	    "name = 'C'))"), "A,B");
	assert_string_equal(error_of(s, "SELECT * FROM ancestor_slice(999)"),
	    "ancestor_slice: no row with id 999");
	assert_string_equal(error_of(s, "SELECT * FROM ancestor_slice('x')"),
	    "ancestor_slice: start id should be an integer");
	assert_string_equal(error_of(s, "SELECT * FROM descendant_slice"),
	    "descendant_slice() needs a slice id");
	/* the argument may come from a table scanned first, whatever the
	 * order the query names them in */
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM ancestor_slice(s.id)"
	    " a, slice s"), "9");
}

/* descendant_slice: the rows whose parent_id chain reaches the slice, in
 * time order, a slice before those it holds (Perfetto's diagram:
 * descendant_slice(A) is B, C, D, E), instants with them. */
static void
test_descendant_slice(void **state)
{
	struct fixture *fx = *state;
	struct sql *s = fx->s;
	assert_string_equal(rows(s, "SELECT name FROM descendant_slice("
	    "(SELECT id FROM slice WHERE name = 'A'))"), "B,C,D,E,I");
	assert_string_equal(rows(s, "SELECT name FROM descendant_slice("
	    "(SELECT id FROM slice WHERE name = 'D'))"), "E,I");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM descendant_slice("
	    "(SELECT id FROM slice WHERE name = 'F'))"), "0");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM descendant_slice("
	    "(SELECT id FROM slice WHERE name = 'I'))"), "0");
	assert_string_equal(rows(s, "SELECT s.name || ':' || (SELECT COUNT(*) "
	    "FROM descendant_slice(s.id)) FROM slice s WHERE s.depth = 0 "
	    "ORDER BY s.ts, s.name"), "A:5,G:0,F:0");
	/* a filter that hides D: E is A's child now, in both directions */
	struct filter f;
	filter_init(&f);
	char *err = NULL;
	struct regex *re = regex_compile("^D$", &err);
	filter_set_functions(&f, fx->t, re, true);
	struct sql_view v = { .filter = &f, .t0 = TTV_NS_MIN,
	    .t1 = TTV_NS_MAX };
	sql_set_view(s, &v);
	assert_string_equal(rows(s, "SELECT name FROM descendant_slice("
	    "(SELECT id FROM slice WHERE name = 'A'))"), "B,C,E,I");
	assert_string_equal(rows(s, "SELECT name FROM ancestor_slice("
	    "(SELECT id FROM slice WHERE name = 'I'))"), "A,E");
	sql_set_view(s, NULL);
	regex_free(re);
	filter_clear(&f);
}

/* INCLUDE PERFETTO MODULE slices.with_context: thread_slice and
 * process_slice, with Perfetto's columns. */
static void
test_with_context(void **state)
{
	struct fixture *fx = *state;
	struct sql *s = fx->s;
	const char *q = "INCLUDE PERFETTO MODULE slices.with_context;";
	sqlite3_stmt *st = (sqlite3_stmt *)1;
	const char *tail = NULL;
	assert_int_equal(sql_prepare(s, q, &st, &tail), SQLITE_OK);
	assert_null(st);
	assert_string_equal(tail, "");
	assert_string_equal(rows(s, "SELECT group_concat(name) FROM "
	    "pragma_table_info('thread_slice')"), "id,ts,dur,category,name,"
	    "track_id,track_name,thread_name,utid,tid,is_main_thread,"
	    "process_name,upid,pid,depth,parent_id,arg_set_id,thread_ts,"
	    "thread_dur");
	assert_string_equal(rows(s, "SELECT group_concat(name) FROM "
	    "pragma_table_info('process_slice')"), "id,ts,dur,category,name,"
	    "track_id,track_name,process_name,upid,pid,depth,parent_id,"
	    "arg_set_id,thread_ts,thread_dur");
	assert_string_equal(rows(s, "SELECT group_concat(name || thread_name "
	    "|| process_name || tid || pid || is_main_thread) FROM "
	    "thread_slice WHERE depth = 0"), "Amainapp70701,Fmainapp70701");
	assert_string_equal(rows(s, "SELECT name || process_name FROM "
	    "process_slice"), "Gapp");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM "
	    "thread_or_process_slice"), "8");
	/* an unknown module: an error naming what there is */
	assert_int_equal(sql_prepare(s, "INCLUDE PERFETTO MODULE android.x",
	    &st, &tail), SQLITE_ERROR);
	char *m = sql_errmsg(s, "INCLUDE PERFETTO MODULE android.x",
	    "INCLUDE PERFETTO MODULE android.x");
	assert_non_null(strstr(m, "slices.with_context"));
	assert_non_null(strstr(m, "at offset 24"));
	free(m);
}

/* Views over the tables in the main schema (the tables are innocuous),
 * and what SQLite's type rules say a constraint on an INTEGER column
 * means: the same as on a real table with the same rows. */
static void
test_views_and_affinity(void **state)
{
	struct fixture *fx = *state;
	struct sql *s = fx->s;
	assert_string_equal(error_of(s, "CREATE VIEW v AS SELECT * FROM slice "
	    "JOIN thread_track ON slice.track_id = thread_track.id"), "");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM v"), "7");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM slices"), "8");
	const char *tables[][2] = {
		{ "slice", "id" }, { "slice", "parent_id" },
		{ "slice", "track_id" }, { "slice", "depth" },
		{ "slice", "slice_id" }, { "thread", "utid" },
		{ "process", "upid" }, { "thread_track", "utid" },
		{ "track", "id" },
	};
	const char *values[] = { "'1'", "1.0", "' 1 '", "'1.0'", "'1e0'",
	    "1.5", "'x'", "NULL", "x'01'", "'0'", "0" };
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		char q[256];
		snprintf(q, sizeof q, "DROP TABLE IF EXISTS temp.copy; CREATE "
		    "TEMP TABLE copy AS SELECT *, %s AS k FROM %s",
		    tables[i][1], tables[i][0]);
		assert_int_equal(sqlite3_exec(sql_db(s), q, NULL, NULL, NULL),
		    SQLITE_OK);
		for (size_t j = 0; j < sizeof values / sizeof *values; j++) {
			char a[128], b[128], want[16];
			snprintf(a, sizeof a, "SELECT COUNT(*) FROM %s WHERE "
			    "%s = %s", tables[i][0], tables[i][1], values[j]);
			snprintf(b, sizeof b, "SELECT COUNT(*) FROM copy WHERE "
			    "k = %s", values[j]);
			snprintf(want, sizeof want, "%s", rows(s, b));
			if (strcmp(rows(s, a), want) != 0)
				fail_msg("%s: %s rows, a table holds %s", a,
				    rows(s, a), want);
		}
	}
	/* the bug this fixes: utid = '0' found nothing */
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM thread WHERE "
	    "utid = '0'"), "1");
}

/* Temporary tables, views, sorts and indexes stay in memory: no file is
 * opened however big they grow. */
static sqlite3_vfs shim;
static sqlite3_vfs *real_vfs;
static int files_opened;

static int
shim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *out)
{
	files_opened++;
	return real_vfs->xOpen(real_vfs, name, f, flags, out);
}

static void
test_memory_only(void **state)
{
	struct fixture *fx = *state;
	real_vfs = sqlite3_vfs_find(NULL);
	shim = *real_vfs;
	shim.zName = "ttv-test-count-opens";
	shim.xOpen = shim_open;
	assert_int_equal(sqlite3_vfs_register(&shim, 1), SQLITE_OK);
	char *err = NULL;
	struct sql *s = sql_open(fx->t, NULL, &err);
	assert_non_null(s);
	files_opened = 0;
	/* 64 K rows of some 100 bytes: past SQLite's default cache, where a
	 * file-backed temp store would spill */
	const char *q =
	    "CREATE TEMP TABLE big AS SELECT a.*, b.name AS other,"
	    " printf('%.80c', 'x') AS pad FROM slice a, slice b"
	    " WHERE a.track_id < 2 LIMIT 65536;"
	    "CREATE INDEX temp.big_name ON big(pad, other, id);"
	    "CREATE TEMP VIEW bv AS SELECT * FROM big ORDER BY pad || id DESC;"
	    "CREATE TABLE main.copy AS SELECT * FROM bv;"
	    "CREATE VIEW main.cv AS SELECT COUNT(*) FROM slice;"
	    "SELECT COUNT(DISTINCT pad || id || other) FROM copy;";
	assert_int_equal(sqlite3_exec(sql_db(s), q, NULL, NULL, NULL),
	    SQLITE_OK);
	assert_string_equal(rows(s, "PRAGMA temp_store"), "2");
	assert_int_equal(files_opened, 0);
	sql_close(s);
	sqlite3_vfs_unregister(&shim);
}

/* A call that never returned has dur -1, as Perfetto gives a slice that
 * did not end, and dur_in_trace the time drawn; a real argument reads as
 * the details pane shows it, its shortest form. */
static void
test_unfinished_and_reals(void **state)
{
	(void)state;
	struct builder *b = builder_new("unfinished");
	func_id f = builder_func(b, builder_intern_cstr(b, "main"), 0, 0);
	func_id g = builder_func(b, builder_intern_cstr(b, "g"), 0, 1);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_args_begin(b);
	builder_arg_f64(b, builder_intern_cstr(b, "pi"), 3.1415);
	builder_arg_f64(b, builder_intern_cstr(b, "third"), 1.0 / 3);
	args_id a = builder_args_end(b);
	builder_push(b, tr, 100, f);	/* never returns */
	builder_slice(b, tr, 1, 200, 50, g, 0, a);
	builder_instant(b, tr, 900, g, 0);
	struct trace *t = builder_finish(b);
	char *err = NULL;
	struct sql *s = sql_open(t, NULL, &err);
	assert_non_null(s);
	assert_string_equal(rows(s, "SELECT dur || ' ' || dur_in_trace || ' ' "
	    "|| incomplete FROM slice WHERE name = 'main'"), "-1 800 1");
	assert_string_equal(rows(s, "SELECT dur || ' ' || dur_in_trace FROM "
	    "slice WHERE name = 'g' AND flags & 1024 = 0"), "50 50");
	assert_string_equal(rows(s, "SELECT COUNT(*) FROM slice WHERE dur >= 0 "
	    "AND flags & 1024 = 0"), "1");
	assert_string_equal(rows(s, "SELECT display_value FROM args "
	    "ORDER BY key"), "3.1415,0.3333333333333333");
	sql_close(s);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cancel_prepare, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ts_window, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_id_lookup, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_track_depth, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_name_index, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_name_batches, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ancestor_slice, doc_setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_descendant_slice,
		    doc_setup, teardown),
		cmocka_unit_test_setup_teardown(test_with_context, doc_setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_views_and_affinity,
		    doc_setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_only, setup,
		    teardown),
		cmocka_unit_test(test_unfinished_and_reals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
