/*
 * Viewer features for what FXT and CoreProfiler traces carry beyond call
 * stacks, on a trace built in-process: flows in the details pane and the
 * keys that walk them, the log pane and its search, search and filters
 * over categories and string args, sample weights in the functions and
 * flame panes, and wall-clock times.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "builder.h"
#include "grid.h"
#include "jobs.h"
#include "panes.h"
#include "view.h"

struct fixture {
	struct trace *t;
	struct view v;
	struct grid *g;
	uint32_t a, b, s;	/* tracks */
};

/* Wall-clock origin: 1970-01-01 01:00:02.500 UTC plus whole days. */
#define WALL (20000LL * 86400 * 1000000000 + 3602500000000LL)

/* Track A (tid 1): send [0,100), done [600,700) with arg path=/tmp/needle
 * Track B (tid 2): recv [300,400) (category "net"), other [150,200)
 * Flows: 7 send->recv, 7 recv->done, 9 send->other.
 * Logs: 50 A "hello world", 350 B "error: disk full", 650 A "bye".
 * Track S (tid 3, sampled): hot [0,10) x 50 samples, cold [10,900) x 1.
 * An instant "tick" (category "ui") on A at 800 with msg=haystack. */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct builder *b = builder_new("events");
	uint32_t p = builder_process(b, 10);
	func_id fsend, frecv, fdone, fother, fhot, fcold;
	args_id args;

	f->a = builder_track(b, TRACK_THREAD, p, 1);
	f->b = builder_track(b, TRACK_THREAD, p, 2);
	f->s = builder_track(b, TRACK_THREAD, p, 3);
#define S(s) builder_intern_cstr(b, s)
	fsend = builder_func(b, S("send"), 0, -1);
	frecv = builder_func(b, S("recv"), S("net"), -1);
	fdone = builder_func(b, S("done"), 0, -1);
	fother = builder_func(b, S("other"), 0, -1);
	fhot = builder_func(b, S("hot"), 0, -1);
	fcold = builder_func(b, S("cold"), 0, -1);
	builder_args_begin(b);
	builder_arg_str(b, S("path"), S("/tmp/needle"));
	args = builder_args_end(b);
	builder_slice(b, f->a, 0, 0, 100, fsend, 0, 0);
	builder_slice(b, f->a, 0, 600, 100, fdone, 0, args);
	builder_slice(b, f->b, 0, 150, 50, fother, 0, 0);
	builder_slice(b, f->b, 0, 300, 100, frecv, 0, 0);
	builder_slice_weighted(b, f->s, 0, 0, 10, fhot, 0, 50);
	builder_slice_weighted(b, f->s, 0, 10, 890, fcold, 0, 1);
	builder_flow(b, 7, (struct slice_ref){ f->a, 0, 0 },
	    (struct slice_ref){ f->b, 0, 1 });
	builder_flow(b, 9, (struct slice_ref){ f->a, 0, 0 },
	    (struct slice_ref){ f->b, 0, 0 });
	builder_flow(b, 7, (struct slice_ref){ f->b, 0, 1 },
	    (struct slice_ref){ f->a, 0, 1 });
	builder_log(b, f->a, 50, S("hello world"));
	builder_log(b, f->b, 350, S("error: disk full"));
	builder_log(b, f->a, 650, S("bye"));
	builder_args_begin(b);
	builder_arg_str(b, S("msg"), S("haystack"));
	builder_arg_i64(b, S("n"), -3);
	args = builder_args_end(b);
	builder_instant(b, f->a, 800, builder_func(b, S("tick"), S("ui"), -1),
	    args);
	builder_set_wall_origin(b, WALL);
	f->t = builder_finish(b);
	assert_non_null(f->t);
	view_init(&f->v, f->t, true);
	panes_create(&f->v);
	f->g = grid_new(120, 30, true);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	view_free(&f->v);
	grid_free(f->g);
	trace_free(f->t);
	free(f);
	return 0;
}

static const char *
cursor_name(struct fixture *f)
{
	assert_true(f->v.has_cursor);
	return trace_func_name(f->t, trace_slice(f->t, f->v.cursor)->func);
}

/* The whole grid as text, one line per row. */
static char *
screen(struct fixture *f)
{
	static char buf[30 * 400];
	size_t n = 0;

	buf[0] = '\0';
	for (int y = 0; y < f->g->h; y++) {
		char *r = grid_row_text(f->g, y);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", r);
		free(r);
	}
	return buf;
}

static void
test_flow_details(void **state)
{
	struct fixture *f = *state;
	char *s;

	assert_string_equal(cursor_name(f), "send");
	details_draw(&f->v, f->g, (struct rect){ 0, 0, 100, 30 });
	s = screen(f);
	assert_non_null(strstr(s, "flow out -> 7 recv (tid 2) at"));
	assert_non_null(strstr(s, "flow out -> 9 other (tid 2) at"));
	assert_null(strstr(s, "flow in"));
	/* recv has one flow in and one out, of the same chain. */
	view_set_cursor(&f->v, (struct slice_ref){ f->b, 0, 1 });
	grid_clear(f->g);
	details_draw(&f->v, f->g, (struct rect){ 0, 0, 100, 30 });
	s = screen(f);
	assert_non_null(strstr(s, "flow in  <- 7 send (tid 1) at"));
	assert_non_null(strstr(s, "flow out -> 7 done (tid 1) at"));
}

static void
test_flow_walk(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;

	assert_string_equal(cursor_name(f), "send");
	/* Nothing flows into the first slice. */
	pane_command(v, PANE_TIMELINE, CMD_FLOW_PREV);
	assert_true(v->msg_error);
	assert_string_equal(cursor_name(f), "send");
	/* Two flows out of send: the first one, id 7, then along id 7. */
	pane_command(v, PANE_TIMELINE, CMD_FLOW_NEXT);
	assert_false(v->msg_error);
	assert_string_equal(cursor_name(f), "recv");
	assert_non_null(strstr(v->msg, "flow 7"));
	pane_command(v, PANE_TIMELINE, CMD_FLOW_NEXT);
	assert_string_equal(cursor_name(f), "done");
	pane_command(v, PANE_TIMELINE, CMD_FLOW_NEXT);
	assert_true(v->msg_error);
	assert_string_equal(cursor_name(f), "done");
	pane_command(v, PANE_TIMELINE, CMD_FLOW_PREV);
	assert_string_equal(cursor_name(f), "recv");
	pane_command(v, PANE_TIMELINE, CMD_FLOW_PREV);
	assert_string_equal(cursor_name(f), "send");
	/* The keys: > and < in the timeline; the functions pane keeps them
	 * for sorting. */
	assert_int_equal(keys_lookup(CTX_TIMELINE, '>'), CMD_FLOW_NEXT);
	assert_int_equal(keys_lookup(CTX_TIMELINE, '<'), CMD_FLOW_PREV);
	assert_int_equal(keys_lookup(CTX_FUNCTIONS, '>'), CMD_SORT_NEXT);
}

static void
test_logs_pane(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct rect r = { 0, 0, 100, 20 };
	char *s;

	pane_draw(v, PANE_LOGS, f->g, r);
	s = screen(f);
	assert_non_null(strstr(s, "3 of 3 records"));
	assert_non_null(strstr(s, "hello world"));
	assert_non_null(strstr(s, "error: disk full"));
	assert_non_null(strstr(s, "tid 2"));
	/* A search keeps the records whose text matches. */
	assert_int_equal(view_search(v, "disk"), 0);
	assert_int_equal(v->nlog_matches, 1);
	grid_clear(f->g);
	pane_draw(v, PANE_LOGS, f->g, r);
	s = screen(f);
	assert_non_null(strstr(s, "1 of 3 records match /disk/"));
	assert_null(strstr(s, "hello world"));
	/* Enter: the record's time on its thread. */
	pane_command(v, PANE_LOGS, CMD_LIST_ENTER);
	assert_int_equal(v->pane, PANE_TIMELINE);
	assert_int_equal(v->cursor_t, 350);
	assert_int_equal(v->cursor_track, f->b);
	assert_string_equal(cursor_name(f), "recv");
	/* A thread filter hides the other thread's records. */
	view_search_clear(v);
	v->thread_pick[f->a] = 1;
	view_apply_threads(v);
	grid_clear(f->g);
	pane_draw(v, PANE_LOGS, f->g, r);
	assert_non_null(strstr(screen(f), "2 of 3 records"));
	assert_int_equal(keys_lookup(CTX_GLOBAL, '7'), CMD_PANE_LOGS);
}

static void
test_search_categories_and_args(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;

	/* "net" is recv's category, in no name. */
	assert_int_equal(view_search(v, "^net$"), 0);
	assert_int_equal(v->nhits, 1);
	assert_int_equal(v->hits[0].t, 300);
	/* "needle" is in a string arg of done only. */
	assert_int_equal(view_search(v, "needle"), 0);
	assert_int_equal(v->nhits, 1);
	assert_int_equal(v->hits[0].t, 600);
	assert_string_equal(trace_func_name(f->t, v->results[0].func),
	    "done");
	view_search_jump(v, true);
	assert_string_equal(cursor_name(f), "done");
	/* The timeline marks the hit though its name does not match. */
	assert_true(v->arg_hits);
	assert_true(view_slice_matches(v, (struct slice_ref){ f->a, 0, 1 }));
	assert_false(view_slice_matches(v, (struct slice_ref){ f->a, 0, 0 }));
	view_set_cursor(v, (struct slice_ref){ f->a, 0, 0 });
	timeline_draw_depth(v, f->g, 0, 0, 100, f->a, 0);
	/* done [600, 700) covers column 70 whatever the trace end. */
	assert_int_equal(grid_cell(f->g, 70, 0)->style, STYLE_MATCH);
	assert_int_equal(grid_cell(f->g, 5, 0)->style, STYLE_SELECTED);
	/* Name and arg hits together stay in time order. */
	assert_int_equal(view_search(v, "^send$|needle|^net$"), 0);
	assert_int_equal(v->nhits, 3);
	assert_int_equal(v->hits[0].t, 0);
	assert_int_equal(v->hits[1].t, 300);
	assert_int_equal(v->hits[2].t, 600);
	/* An instant's string arg: the hit puts the cursor on its time,
	 * and the details pane shows the instant with its args. */
	assert_int_equal(view_search(v, "hay"), 0);
	assert_int_equal(v->nhits, 1);
	assert_int_equal(v->hits[0].ref.depth, SEARCH_INSTANT);
	view_search_jump(v, true);
	assert_false(v->has_cursor);
	assert_int_equal(v->cursor_t, 800);
	details_draw(v, f->g, (struct rect){ 0, 0, 100, 30 });
	{
		char *s = screen(f);
		assert_non_null(strstr(s, "instant  tick"));
		assert_non_null(strstr(s, "args     msg = haystack"));
		assert_non_null(strstr(s, "         n = -3"));
		assert_non_null(strstr(s, "category ui"));
	}
	view_search_clear(v);
	/* A function filter by category. */
	assert_int_equal(view_filter_functions(v, "^net$", false), 0);
	assert_true(filter_func(&v->filter, trace_slice(f->t,
	    (struct slice_ref){ f->b, 0, 1 })->func));
	assert_false(filter_func(&v->filter, trace_slice(f->t,
	    (struct slice_ref){ f->b, 0, 0 })->func));
	assert_int_equal(view_filter_functions(v, "^net$", true), 0);
	assert_false(filter_func(&v->filter, trace_slice(f->t,
	    (struct slice_ref){ f->b, 0, 1 })->func));
	view_filter_functions(v, NULL, false);
}

static void
test_wall_clock(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	char buf[64];

	assert_string_equal(view_time(v, 0, buf, sizeof buf), "+0 ns");
	v->wall_clock = true;
	assert_string_equal(view_time(v, 0, buf, sizeof buf),
	    "01:00:02.500");
	assert_string_equal(view_time(v, 650000000, buf, sizeof buf),
	    "01:00:03.150");
	/* The ruler's labels too. */
	timeline_draw_ruler(v, f->g, 0, 0, 120);
	{
		char *r = grid_row_text(f->g, 0);
		assert_non_null(strstr(r, "01:00:02.500"));
		free(r);
	}
	assert_int_equal(keys_lookup(CTX_TIMELINE, 'U'), CMD_WALL_CLOCK);
	/* The goto prompt takes a time of day. */
	{
		ttv_ns t = -1;
		assert_int_equal(view_parse_wall(v, "01:00:03.150", &t), 0);
		assert_int_equal(t, 650000000);
		assert_int_equal(view_parse_wall(v, "01:00:02.5000001 UTC",
		    &t), 0);
		assert_int_equal(t, 100);
		assert_int_equal(view_parse_wall(v, "1:00", &t), 0);
		assert_int_equal(t, -2500000000LL + 86400000000000LL);
		assert_int_equal(view_parse_wall(v, "25:00", &t), -1);
		assert_int_equal(view_parse_wall(v, "01:00:x", &t), -1);
		assert_int_equal(view_parse_wall(v, "1.5ms", &t), -1);
	}
}

static void
test_samples(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct rect r = { 0, 0, 120, 20 };
	char *s, *line;

	assert_true(v->sampled);
	pane_draw(v, PANE_FUNCTIONS, f->g, r);
	s = screen(f);
	assert_non_null(strstr(s, "samples"));
	/* hot: 50 samples in 10 ns; cold: 1 in 890 ns. */
	line = strstr(s, "\nhot ");
	assert_non_null(line);
	assert_non_null(strstr(line, "        50 "));
	/* The flame pane sizes by samples: hot is 50 of 55 (the four
	 * calls of the unsampled threads weigh one each), though it ran
	 * for 10 of 1260 ns. */
	grid_clear(f->g);
	pane_draw(v, PANE_FLAME, f->g, r);
	s = screen(f);
	assert_non_null(strstr(s, "by samples"));
	assert_non_null(strstr(s, "hot 90.9%"));
	assert_non_null(strstr(s, "55 samples"));
}

/* On the worker thread (big traces), arg and log matches arrive with the
 * name hits. */
static void
test_search_in_background(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct timespec ts = { 0, 1000000 };

	v->async = true;
	assert_int_equal(view_search(v, "needle|disk"), 0);
	for (int i = 0; i < 5000 && v->search_pending; i++) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_false(v->search_pending);
	assert_int_equal(v->nhits, 1);
	assert_int_equal(v->hits[0].t, 600);
	assert_int_equal(v->nlog_matches, 1);
	const size_t *rows;
	assert_int_equal(logs_pane_rows(v, &rows), 1);
	assert_int_equal(f->t->logs[rows[0]].t, 350);
	assert_true(jobs_stop());
}

/* Lanes: each process's threads, then its async tracks and counters,
 * whatever order the reader made them in; CPU lanes last. J follows. */
static void
test_lane_order(void **state)
{
	struct builder *b = builder_new("lanes");
	uint32_t p1 = builder_process(b, 1), p2 = builder_process(b, 2);
	uint32_t ta, tc, tb, tx, tcpu, td;
	func_id fn;
	struct trace *t;
	struct view v;
	struct lane_row *rows;
	size_t n;
	uint32_t want[6];

	(void)state;
	fn = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	ta = builder_track(b, TRACK_THREAD, p1, 11);
	tc = builder_track(b, TRACK_COUNTER, p1, 1);
	tb = builder_track(b, TRACK_THREAD, p2, 21);
	tx = builder_track(b, TRACK_ASYNC, p1, 5);
	tcpu = builder_track(b, TRACK_CPU, p1, 0);
	td = builder_track(b, TRACK_THREAD, p1, 12);
	builder_slice(b, ta, 0, 0, 10, fn, 0, 0);
	builder_counter(b, tc, 0, 1.0);
	builder_slice(b, tb, 0, 0, 10, fn, 0, 0);
	builder_slice(b, tx, 0, 0, 10, fn, 0, 0);
	builder_slice(b, tcpu, 0, 0, 10, fn, 0, 0);
	builder_slice(b, td, 0, 0, 10, fn, 0, 0);
	t = builder_finish(b);
	assert_non_null(t);
	view_init(&v, t, true);
	panes_create(&v);
	want[0] = ta; want[1] = td; want[2] = tx; want[3] = tc;
	want[4] = tb; want[5] = tcpu;
	n = timeline_rows(&v, &rows);
	assert_int_equal(n, 12);	/* six headers, six rows */
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(rows[2 * i].depth, -1);
		assert_int_equal(rows[2 * i].track, want[i]);
	}
	free(rows);
	/* J from A: D, X, then B (a counter has no slices to stand on). */
	assert_int_equal(v.cursor.track, ta);
	pane_command(&v, PANE_TIMELINE, CMD_LANE_NEXT);
	assert_int_equal(v.cursor.track, td);
	pane_command(&v, PANE_TIMELINE, CMD_LANE_NEXT);
	assert_int_equal(v.cursor.track, tx);
	pane_command(&v, PANE_TIMELINE, CMD_LANE_NEXT);
	assert_int_equal(v.cursor.track, tb);
	pane_command(&v, PANE_TIMELINE, CMD_LANE_NEXT);
	assert_int_equal(v.cursor.track, tcpu);
	pane_command(&v, PANE_TIMELINE, CMD_LANE_PREV);
	assert_int_equal(v.cursor.track, tb);
	view_free(&v);
	trace_free(t);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_flow_details),
		T(test_flow_walk),
		T(test_logs_pane),
		T(test_search_categories_and_args),
		T(test_wall_clock),
		T(test_samples),
		T(test_search_in_background),
		cmocka_unit_test(test_lane_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
