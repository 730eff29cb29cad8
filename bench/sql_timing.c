/*
 * Times SQL queries on a loaded trace, apart from loading it: each query
 * is run RUNS times on one connection (the first run builds what the
 * connection keeps, such as the name index, and is shown apart); prints
 * the first and the median time, the rows returned and the slice rows
 * the virtual table looked at. It asserts nothing: bench/sql.sh uses it.
 *
 * Usage: bench/sql_timing TRACE RUNS SQL...
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "load.h"
#include "sql.h"

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: sql_timing TRACE RUNS SQL...\n");
		return 2;
	}
	int runs = atoi(argv[2]);
	if (runs < 1 || runs > 100)
		runs = 5;
	struct load_options o = { 0 };
	char *err = NULL;
	struct trace *t = load_trace(argv[1], NULL, &o, &err);
	if (t == NULL) {
		fprintf(stderr, "sql_timing: %s: %s\n", argv[1], err);
		return 1;
	}
	struct sql *s = sql_open(t, NULL, &err);
	if (s == NULL) {
		fprintf(stderr, "sql_timing: %s\n", err);
		return 1;
	}
	for (int q = 3; q < argc; q++) {
		double ms[100];
		long long rows = 0;
		unsigned long long visited = 0;
		for (int r = 0; r < runs; r++) {
			struct sql_scan_stats *st = sql_scan_stats(s);
			st->slice_rows_visited = 0;
			sqlite3_stmt *stmt;
			double t0 = now();
			if (sqlite3_prepare_v2(sql_db(s), argv[q], -1, &stmt,
			    NULL) != SQLITE_OK) {
				fprintf(stderr, "sql_timing: %s\n",
				    sqlite3_errmsg(sql_db(s)));
				return 2;
			}
			rows = 0;
			while (sqlite3_step(stmt) == SQLITE_ROW)
				rows++;
			sqlite3_finalize(stmt);
			ms[r] = (now() - t0) * 1e3;
			visited = st->slice_rows_visited;
		}
		double first = ms[0];
		qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
		printf("%10.2f ms first %10.2f ms median  %8lld rows  %10llu "
		    "slices looked at  %s\n", first, ms[runs / 2], rows,
		    visited, argv[q]);
	}
	printf("indexes kept by the connection: %zu bytes\n",
	    sql_index_memory(s));
	sql_close(s);
	trace_free(t);
	return 0;
}
