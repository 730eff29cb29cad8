/*
 * Unit tests of the SQL tables' query plans (src/sql*.c): that each
 * lookup the model can answer touches only the rows it must (the slice
 * table counts the rows it looks at), that the plans give what a plain
 * scan gives, that GROUP BY / ORDER BY name need no sort, and that the
 * view (filter, window) and the connection's containment hold.
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
