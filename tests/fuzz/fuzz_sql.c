/*
 * libFuzzer target for the SQL engine: the input is the text of a query,
 * run by cli_query_run() (the batch mode's own loop and printers: the
 * aligned table, TSV, CSV or JSON by the input's length) on a fresh
 * connection over a small trace built here once: two threads of nested
 * calls with arguments, an async track, a CPU lane, a counter, instants,
 * flows, markers, logs and metadata, so that every table has rows.
 *
 * Each query has ttv's memory limit for SQLite (sql.h) and a budget of
 * virtual machine steps, past which it is stopped as Ctrl-C stops it; the
 * output goes to /dev/null.
 *
 *   make fuzz && tests/fuzz/fuzz_sql -dict=$(srcdir)/tests/fuzz/sql.dict \
 *       -max_total_time=300 CORPUS $(srcdir)/tests/fuzz/sql
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "cli.h"
#include "sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Progress handler calls (of 1000 steps each) a query may take. */
#define STEP_BUDGET 20000

static struct trace *trace;
static FILE *sink;

static struct trace *
make_trace(void)
{
	struct builder *b = builder_new("fuzz-sql");
	builder_set_format(b, "test", "1", NULL);
	builder_set_tick_rate(b, 1e9);
	builder_set_wall_origin(b, 1700000000000000000);
	builder_meta(b, "host", "fuzz");
	const char *names[] = { "main", "parse", "lex", "render", "draw",
		"io\x1b[31m", "caf\xc3\xa9", "" };
	func_id f[8];
	str_id cat = builder_intern_cstr(b, "cat");
	for (int i = 0; i < 8; i++)
		f[i] = builder_func(b, builder_intern_cstr(b, names[i]), cat, i);
	uint32_t p = builder_process(b, 100);
	builder_process_name(b, p, builder_intern_cstr(b, "proc"));
	str_id k = builder_intern_cstr(b, "k"), s = builder_intern_cstr(b, "s");
	uint32_t th[2];
	for (int t = 0; t < 2; t++) {
		th[t] = builder_track(b, TRACK_THREAD, p, 101 + t);
		builder_track_name(b, th[t], builder_intern_cstr(b,
		    t ? "worker" : "main-thread"));
		for (int i = 0; i < 50; i++) {
			ttv_ns at = (ttv_ns)i * 1000 + t * 7;
			builder_push(b, th[t], at, f[0]);
			builder_args_begin(b);
			builder_arg_i64(b, k, i - 25);
			builder_arg_f64(b, builder_intern_cstr(b, "f"), i / 3.0);
			builder_arg_str(b, s, builder_intern_cstr(b,
			    i % 2 ? "odd" : "even"));
			builder_push_args(b, th[t], builder_args_end(b));
			builder_push(b, th[t], at + 10, f[1 + i % 7]);
			builder_push(b, th[t], at + 20, f[2]);
			builder_pop(b, th[t], at + 30, 0);
			builder_pop(b, th[t], at + 300, 0);
			builder_pop(b, th[t], at + 900, 0);
			builder_args_begin(b);
			builder_arg_u64(b, k, (uint64_t)i);
			builder_instant(b, th[t], at + 950, f[5],
			    builder_args_end(b));
			builder_log(b, th[t], at + 960, builder_intern_cstr(b,
			    i % 3 ? "log line" : "log\nwith\tcontrols"));
		}
	}
	struct slice_ref from, to;
	if (builder_last_slice(b, th[0], &from) &&
	    builder_last_slice(b, th[1], &to))
		builder_flow(b, 1, from, to);
	uint32_t as = builder_track(b, TRACK_ASYNC, p, 7);
	builder_slice(b, as, 0, 100, 5000, f[3], 0, 0);
	uint32_t cpu = builder_track(b, TRACK_CPU, p, 0);
	for (int i = 0; i < 20; i++)
		builder_slice(b, cpu, 0, (ttv_ns)i * 2500, 2000,
		    f[i % 2 ? 0 : 4], 0, 0);
	uint32_t ctr = builder_track(b, TRACK_COUNTER, p, 1);
	builder_track_name(b, ctr, builder_intern_cstr(b, "queue"));
	for (int i = 0; i < 30; i++)
		builder_counter(b, ctr, (ttv_ns)i * 1700, i % 7 - 2.5);
	for (int i = 0; i < MARKER_KIND_COUNT; i++)
		builder_marker(b, (enum marker_kind)i, th[i % 2],
		    (ttv_ns)i * 3000, i, builder_intern_cstr(b, "m"));
	return builder_finish(b);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace = make_trace();
	sink = fopen("/dev/null", "w");
	if (sink == NULL)
		abort();
	return 0;
}

/* The step budget of the running query (arg NULL: a new query). */
static int
steps(void *arg)
{
	static unsigned n;
	if (arg == NULL) {
		n = 0;
		return 0;
	}
	if (++n < STEP_BUDGET)
		return 0;
	sql_cancel(arg);
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *err = NULL;
	struct sql_view v = { NULL, TTV_NS_MIN, TTV_NS_MAX };
	if (size % 5 == 4) {
		/* a window, as --range and the viewer give */
		v.t0 = 10000;
		v.t1 = 30000;
	}
	struct sql *s = sql_open(trace, &v, &err);
	if (s == NULL) {
		free(err);
		free(text);
		return 0;
	}
	steps(NULL);
	sqlite3_progress_handler(sql_db(s), 1000, steps, s);
	static const enum query_format fmts[] = { QUERY_TABLE, QUERY_TSV,
		QUERY_CSV, QUERY_JSON };
	cli_query_run(s, text, fmts[size % 4], false, sink);
	fflush(sink);
	clearerr(sink);
	sql_close(s);
	free(text);
	return 0;
}
