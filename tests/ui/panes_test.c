/*
 * Panes rendered into an in-memory grid, no terminal: the timeline's
 * blocks, labels, density shading, escaping and wide characters; cursor
 * walking, search highlight, marker jumps, filters; and the other panes'
 * text. The trace is built in-process with the builder.
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
#include "columns.h"
#include "glyph.h"
#include "grid.h"
#include "jobs.h"
#include "panes.h"
#include "text.h"
#include "view.h"

struct fixture {
	struct trace *t;
	struct view v;
	struct grid *g;
	uint32_t a, b;		/* tracks */
};

static const char evil[] = "\x1b[31mevil\x07";

/* Track A (tid 1): main [0,1000) > foo [100,400) > 100 tiny slices,
 *                               > bar [500,900) > baz [600,700)
 * Track B (tid 2): evil [0,500), "wide日本" [500,1000)
 * A TSC wrap marker at 450. */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct builder *b = builder_new("test");
	uint32_t p = builder_process(b, 10);
	func_id fmain, ffoo, fbar, fbaz, ftiny, fevil, fwide;

	f->a = builder_track(b, TRACK_THREAD, p, 1);
	f->b = builder_track(b, TRACK_THREAD, p, 2);
#define FN(s) builder_func(b, builder_intern_cstr(b, s), 0, -1)
	fmain = FN("main");
	ffoo = FN("foo");
	fbar = FN("bar");
	fbaz = FN("baz");
	ftiny = FN("tiny");
	fevil = FN(evil);
	fwide = FN("wide\xe6\x97\xa5\xe6\x9c\xac");
	builder_slice(b, f->a, 0, 0, 1000, fmain, 0, 0);
	builder_slice(b, f->a, 1, 100, 300, ffoo, 0, 0);
	builder_slice(b, f->a, 1, 500, 400, fbar, 0, 0);
	for (int i = 0; i < 100; i++)
		builder_slice(b, f->a, 2, 100 + 2 * i, 1, ftiny, 0, 0);
	builder_slice(b, f->a, 2, 600, 100, fbaz, 0, 0);
	builder_slice(b, f->b, 0, 0, 500, fevil, 0, 0);
	builder_slice(b, f->b, 0, 500, 500, fwide, 0, 0);
	builder_marker(b, MARKER_TSC_WRAP, UINT32_MAX, 450, 0, 0);
	f->t = builder_finish(b);
	assert_non_null(f->t);
	view_init(&f->v, f->t, true);
	panes_create(&f->v);
	f->g = grid_new(100, 30, true);
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

static char *
row(struct fixture *f, int y)
{
	static char *last;

	free(last);
	last = grid_row_text(f->g, y);
	return last;
}

static void
test_rows_and_folding(void **state)
{
	struct fixture *f = *state;
	struct lane_row *rows;
	size_t n = timeline_rows(&f->v, &rows);

	/* A: header + 3 depths; B: header + 1 depth. */
	assert_int_equal(n, 6);
	assert_int_equal(rows[0].depth, -1);
	assert_int_equal(rows[3].depth, 2);
	assert_int_equal(rows[4].track, f->b);
	free(rows);
	f->v.folded[f->a] = 1;
	n = timeline_rows(&f->v, &rows);
	assert_int_equal(n, 3);
	free(rows);
	f->v.folded[f->a] = 0;
}

static void
test_blocks_and_labels(void **state)
{
	struct fixture *f = *state;
	struct cell *c;

	/* Window [0, 1000) over 100 columns: 10 ns per column. */
	timeline_draw_depth(&f->v, f->g, 0, 0, 100, f->a, 0);
	assert_string_equal(row(f, 0), "main");
	c = grid_cell(f->g, 99, 0);
	/* The cursor starts on the first slice: drawn selected. */
	assert_int_equal(c->style, STYLE_SELECTED);
	timeline_draw_depth(&f->v, f->g, 0, 1, 100, f->a, 1);
	assert_memory_equal(row(f, 1), "          foo", 13);
	assert_int_equal(grid_cell(f->g, 10, 1)->ch, 'f');
	assert_int_equal(grid_cell(f->g, 9, 1)->style, STYLE_NORMAL);
	assert_true(grid_cell(f->g, 39, 1)->style >= STYLE_SLICE0);
	assert_int_equal(grid_cell(f->g, 40, 1)->style, STYLE_NORMAL);
	assert_int_equal(grid_cell(f->g, 50, 1)->ch, 'b');
	assert_true(grid_cell(f->g, 89, 1)->style >= STYLE_SLICE0);
	assert_int_equal(grid_cell(f->g, 90, 1)->style, STYLE_NORMAL);
	/* One function, one colour, whatever the pane. */
	assert_int_equal(grid_cell(f->g, 10, 1)->style,
	    STYLE_SLICE0 + view_func_hue(trace_slice(f->t,
	    (struct slice_ref){ f->a, 1, 0 })->func));
}

static void
test_density_never_dropped(void **state)
{
	struct fixture *f = *state;

	/* 100 slices of 1 ns every 2 ns in columns 10..29: half busy. */
	timeline_draw_depth(&f->v, f->g, 0, 2, 100, f->a, 2);
	for (int x = 10; x < 30; x++) {
		struct cell *c = grid_cell(f->g, x, 2);
		assert_int_equal(c->style, STYLE_DENSITY);
		assert_int_equal(c->ch, glyph_shade(true, 1));
	}
	assert_int_equal(grid_cell(f->g, 9, 2)->ch, ' ');
	assert_int_equal(grid_cell(f->g, 30, 2)->ch, ' ');
	assert_int_equal(grid_cell(f->g, 60, 2)->ch, 'b');	/* baz */

	/* Zoomed in to [100, 120): slices are 5 columns wide, labelled. */
	f->v.t0 = 100;
	f->v.t1 = 120;
	grid_clear(f->g);
	timeline_draw_depth(&f->v, f->g, 0, 2, 100, f->a, 2);
	assert_int_equal(grid_cell(f->g, 0, 2)->ch, 't');
	assert_int_equal(grid_cell(f->g, 5, 2)->ch, ' ');
	assert_int_equal(grid_cell(f->g, 10, 2)->ch, 't');
	view_reset(&f->v);
}

static void
test_ascii_fallback(void **state)
{
	struct fixture *f = *state;
	struct grid *g = grid_new(100, 3, false);

	timeline_draw_depth(&f->v, g, 0, 0, 100, f->a, 2);
	for (int x = 10; x < 30; x++)
		assert_int_equal(grid_cell(g, x, 0)->ch, ':');
	timeline_draw_depth(&f->v, g, 0, 1, 100, f->b, 0);
	for (int x = 0; x < 100; x++)
		assert_true(grid_cell(g, x, 1)->ch < 0x7f);
	grid_free(g);
}

static void
test_trace_text_escaped(void **state)
{
	struct fixture *f = *state;
	char *text;

	timeline_draw_depth(&f->v, f->g, 0, 5, 100, f->b, 0);
	for (int x = 0; x < 100; x++) {
		uint32_t ch = grid_cell(f->g, x, 5)->ch;
		assert_true(ch >= 0x20 && ch != 0x7f && !(ch >= 0x80 &&
		    ch < 0xa0));
	}
	text = row(f, 5);
	assert_int_equal(text[0], '\\');	/* ESC shown as an escape */
	assert_non_null(strstr(text, "[31mevil"));
	/* The second block touches the first: a thin edge, then its
	 * label, where double-width characters take two cells. */
	assert_int_equal(grid_cell(f->g, 50, 5)->ch, GLYPH_EDGE(true));
	assert_int_equal(grid_cell(f->g, 51, 5)->ch, 'w');
	assert_int_equal(grid_cell(f->g, 55, 5)->ch, 0x65e5);
	assert_int_equal(grid_cell(f->g, 56, 5)->ch, GRID_WIDE_TAIL);
	assert_int_equal(grid_cell(f->g, 57, 5)->ch, 0x672c);
	assert_int_equal(text_width(f->g, evil, strlen(evil), 100),
	    (int)strlen(text_puts(f->g, 0, 6, 100, evil, 0, 0) ? row(f, 6) :
	    ""));
}

static void
test_cursor_walk(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;

	assert_true(v->has_cursor);
	assert_int_equal(v->cursor.depth, 0);
	/* The callee running at the cursor's time (main's middle, 500),
	 * which stays the cursor's. */
	pane_command(v, PANE_TIMELINE, CMD_SLICE_CHILD);
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "bar");
	assert_int_equal(view_cursor_time(v), 500);
	pane_command(v, PANE_TIMELINE, CMD_SLICE_PREV);
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "foo");
	pane_command(v, PANE_TIMELINE, CMD_SLICE_NEXT);
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "bar");
	pane_command(v, PANE_TIMELINE, CMD_SLICE_NEXT);	/* none: stays */
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "bar");
	assert_true(v->msg_error);
	pane_command(v, PANE_TIMELINE, CMD_SLICE_CHILD);
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "baz");
	pane_command(v, PANE_TIMELINE, CMD_SLICE_PARENT);
	pane_command(v, PANE_TIMELINE, CMD_SLICE_PARENT);
	assert_int_equal(v->cursor.depth, 0);
	/* Next lane: the slice running at the same time on thread 2. */
	pane_command(v, PANE_TIMELINE, CMD_LANE_NEXT);
	assert_int_equal(v->cursor.track, f->b);
	pane_command(v, PANE_TIMELINE, CMD_LANE_PREV);
	assert_int_equal(v->cursor.track, f->a);
	/* Zoom to the slice: the window covers it with a margin. */
	pane_command(v, PANE_TIMELINE, CMD_SLICE_CHILD);
	pane_command(v, PANE_TIMELINE, CMD_SLICE_PREV);	/* foo */
	pane_command(v, PANE_TIMELINE, CMD_ZOOM_SLICE);
	assert_true(v->t0 < 100 && v->t0 >= 60);
	assert_true(v->t1 > 400 && v->t1 <= 440);
	view_reset(v);
	assert_int_equal(v->t0, 0);
	assert_int_equal(v->t1, 1000);
}

static void
test_search(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;

	assert_int_equal(view_search(v, "^ba"), 0);
	assert_int_equal(v->nhits, 2);
	assert_int_equal(v->nresults, 2);
	/* Results by total time: bar (400) before baz (100). */
	assert_string_equal(trace_func_name(f->t, v->results[0].func), "bar");
	assert_int_equal(v->results[0].total, 400);
	assert_int_equal(v->results[1].count, 1);
	timeline_draw_depth(v, f->g, 0, 1, 100, f->a, 1);
	assert_int_equal(grid_cell(f->g, 60, 1)->style, STYLE_MATCH);
	assert_int_equal(grid_cell(f->g, 20, 1)->style, STYLE_SLICE0 +
	    view_func_hue(trace_slice(f->t, (struct slice_ref){ f->a, 1, 0 })
	    ->func));
	/* n from main (t=0): bar, then baz; N back to bar. */
	view_search_jump(v, true);
	assert_int_equal(trace_slice(f->t, v->cursor)->start, 500);
	view_search_jump(v, true);
	assert_int_equal(trace_slice(f->t, v->cursor)->start, 600);
	/* Past the last match: back to the first, and said. */
	view_search_jump(v, true);
	assert_false(v->msg_error);
	assert_non_null(strstr(v->msg, "continued from the start"));
	assert_int_equal(trace_slice(f->t, v->cursor)->start, 500);
	/* Before the first: to the last. */
	view_search_jump(v, false);
	assert_non_null(strstr(v->msg, "continued from the end"));
	assert_int_equal(trace_slice(f->t, v->cursor)->start, 600);
	view_search_jump(v, false);
	assert_int_equal(trace_slice(f->t, v->cursor)->start, 500);
	/* Smart case: lower case ignores case, upper case is exact. */
	assert_int_equal(view_search(v, "BAR"), 0);
	assert_int_equal(v->nhits, 0);
	assert_int_equal(view_search(v, "^ba"), 0);
	/* A bad pattern says what and where, and keeps the old search. */
	assert_int_equal(view_search(v, "ab(c"), -1);
	assert_non_null(strstr(v->msg, "at column"));
	assert_int_equal(v->nhits, 2);
	view_search_clear(v);
	assert_null(v->match);
}

static void
test_markers_and_goto(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;

	view_goto_time(v, 0);
	view_marker_jump(v, MARKER_TSC_WRAP, true);
	assert_false(v->msg_error);
	assert_int_equal(v->cursor_t, 450);
	view_marker_jump(v, MARKER_TSC_WRAP, true);
	assert_true(v->msg_error);
	view_marker_jump(v, MARKER_CPU_CHANGE, false);
	assert_true(v->msg_error);
	view_goto_time(v, 650);
	assert_true(v->has_cursor);
	assert_true(trace_slice(f->t, v->cursor)->start <= 650);
	/* Bookmarks bring back window and cursor. */
	view_zoom(v, 0.5);
	view_mark_set(v, 'a');
	ttv_ns t0 = v->t0;
	view_reset(v);
	view_mark_jump(v, 'a');
	assert_int_equal(v->t0, t0);
	view_mark_jump(v, 'q');
	assert_true(v->msg_error);
	view_reset(v);
}

static void
test_filters(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct lane_row *rows;
	char buf[128];
	size_t n;

	v->thread_pick[f->b] = 1;
	view_apply_threads(v);
	n = timeline_rows(v, &rows);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].track, f->b);
	free(rows);
	view_filter_text(v, buf, sizeof buf);
	assert_non_null(strstr(buf, "threads 1/2"));
	v->thread_invert = true;
	view_apply_threads(v);
	n = timeline_rows(v, &rows);
	assert_int_equal(rows[0].track, f->a);
	free(rows);
	assert_int_equal(view_filter_functions(v, "^foo$", true), 0);
	view_filter_text(v, buf, sizeof buf);
	assert_non_null(strstr(buf, "hide/^foo$/"));
	/* A hidden function is drawn faint and unlabelled, not dropped. */
	timeline_draw_depth(v, f->g, 0, 1, 100, f->a, 1);
	assert_int_equal(grid_cell(f->g, 10, 1)->style, STYLE_DIM);
	assert_int_equal(grid_cell(f->g, 10, 1)->ch, GLYPH_HIDDEN(true));
	assert_int_equal(view_filter_functions(v, "(", false), -1);
	view_clear_filters(v);
	n = timeline_rows(v, &rows);
	assert_int_equal(n, 6);
	free(rows);
}

static bool
grid_has(struct fixture *f, const char *s)
{
	for (int y = 0; y < f->g->h; y++)
		if (strstr(row(f, y), s) != NULL)
			return true;
	return false;
}

static void
test_other_panes(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct rect r = { 0, 0, 100, 30 };

	grid_clear(f->g);
	pane_draw(v, PANE_FUNCTIONS, f->g, r);
	assert_true(grid_has(f, "Functions"));
	assert_true(grid_has(f, "tiny"));
	assert_true(grid_has(f, "median"));
	/* Sorted by total, largest first: main on the first row. */
	assert_memory_equal(row(f, 2), "main", 4);
	pane_command(v, PANE_FUNCTIONS, CMD_SORT_PREV);	/* by count */
	pane_command(v, PANE_FUNCTIONS, CMD_SORT_PREV);	/* by name */
	{
		enum stats_key key;
		bool desc;
		functions_pane_stats(v, &key, &desc);
		assert_int_equal(key, STATS_NAME);
		assert_false(desc);
	}
	grid_clear(f->g);
	pane_draw(v, PANE_FUNCTIONS, f->g, r);
	assert_memory_equal(row(f, 2), "\\e[31mevil", 10);
	pane_command(v, PANE_FUNCTIONS, CMD_LIST_DOWN);
	pane_command(v, PANE_FUNCTIONS, CMD_LIST_ENTER);	/* bar's longest */
	assert_int_equal(v->pane, PANE_TIMELINE);
	assert_string_equal(trace_func_name(f->t,
	    trace_slice(f->t, v->cursor)->func), "bar");
	view_reset(v);

	grid_clear(f->g);
	flame_pane_set_icicle(v, true);
	pane_draw(v, PANE_FLAME, f->g, r);
	assert_true(grid_has(f, "all 100.0%"));
	assert_true(grid_has(f, "main 50.0%"));
	pane_command(v, PANE_FLAME, CMD_FLAME_DOWN);
	pane_command(v, PANE_FLAME, CMD_FLAME_ZOOM);
	grid_clear(f->g);
	pane_draw(v, PANE_FLAME, f->g, r);
	assert_false(grid_has(f, "all 100.0%"));
	pane_command(v, PANE_FLAME, CMD_FLAME_UNZOOM);

	grid_clear(f->g);
	struct list_pos help_pos = { 0 };
	help_draw(&help_pos, f->g, r);
	assert_true(grid_has(f, "q                  :quit           leave ttv"));
	help_command(&help_pos, CMD_LIST_PGDN);
	grid_clear(f->g);
	help_draw(&help_pos, f->g, r);
	assert_true(grid_has(f,
	    "H, Shift-Left      :pan-left       pan left by a quarter of the window"));

	grid_clear(f->g);
	v->has_cursor = false;
	pane_command(v, PANE_TIMELINE, CMD_SLICE_NEXT);
	details_draw(v, f->g, (struct rect){ 0, 2, 100, 10 });
	assert_true(grid_has(f, "duration"));
	assert_true(grid_has(f, "self"));

	grid_clear(f->g);
	pane_draw(v, PANE_MARKERS, f->g, r);
	assert_true(grid_has(f, "tsc-wrap") || grid_has(f, "tsc_wrap") ||
	    grid_has(f, "wrap"));
	grid_clear(f->g);
	pane_draw(v, PANE_THREADS, f->g, r);
	assert_true(grid_has(f, "[ ] tid 1"));
	pane_command(v, PANE_THREADS, CMD_THREAD_TOGGLE);
	assert_true(v->thread_active);
	view_clear_filters(v);
}

static void
test_background_jobs(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct stats_table sync;
	struct timespec ts = { 0, 1000000 };

	/* The same trace, queries on the worker thread. */
	v->async = true;
	query_stats(f->t, &v->filter, v->t0, v->t1, &sync);
	pane_draw(v, PANE_FUNCTIONS, f->g, (struct rect){ 0, 0, 100, 30 });
	enum stats_key key;
	bool desc;
	const struct stats_table *st = NULL;
	for (int i = 0; i < 5000 && (st = functions_pane_stats(v, &key,
	    &desc)) == NULL; i++) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_non_null(st);
	assert_int_equal(st->n, sync.n);
	stats_free(&sync);

	/* A result asked for an older window is dropped, not shown. */
	view_tree_request(v);
	view_zoom(v, 0.5);
	while (jobs_busy(&v->tree)) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_false(v->tree_valid);
	view_tree_request(v);
	while (!v->tree_valid) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_true(v->tree.n > 1);

	/* Searches too; a filter change redoes them. */
	assert_int_equal(view_search(v, "^tiny$"), 0);
	while (v->search_pending) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_int_equal(v->nhits, 100);
	v->thread_pick[f->b] = 1;
	view_apply_threads(v);
	assert_true(v->search_pending);
	while (v->search_pending) {
		view_collect(v);
		nanosleep(&ts, NULL);
	}
	assert_int_equal(v->nhits, 0);
	assert_true(jobs_stop());
}

/* The backtrace pane: baz's chain up to main, innermost first; Enter
 * selects a frame, and the chain stays while the cursor is on it. */
static void
test_backtrace(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct rect r = { 0, 0, 100, 30 };
	struct slice_ref baz = { f->a, 2, 100 };

	assert_string_equal(trace_func_name(f->t, trace_slice(f->t,
	    baz)->func), "baz");
	view_set_cursor(v, baz);
	grid_clear(f->g);
	pane_draw(v, PANE_BACKTRACE, f->g, r);
	assert_true(grid_has(f, "baz: 3 frames up to the root of tid 1"));
	assert_non_null(strstr(row(f, 2), ">0"));
	assert_non_null(strstr(row(f, 2), "baz"));
	assert_non_null(strstr(row(f, 3), "bar"));
	assert_non_null(strstr(row(f, 4), "main"));
	pane_command(v, PANE_BACKTRACE, CMD_LIST_DOWN);
	pane_command(v, PANE_BACKTRACE, CMD_LIST_ENTER);
	assert_int_equal(v->pane, PANE_TIMELINE);
	assert_int_equal(v->cursor.depth, 1);
	assert_string_equal(trace_func_name(f->t, trace_slice(f->t,
	    v->cursor)->func), "bar");
	grid_clear(f->g);
	pane_draw(v, PANE_BACKTRACE, f->g, r);
	assert_true(grid_has(f, "baz: 3 frames"));
	assert_non_null(strstr(row(f, 3), ">1"));
	/* v and # act on the frame selected */
	assert_string_equal(trace_func_name(f->t, pane_selected_func(v,
	    PANE_BACKTRACE)), "bar");
}

/* The columns of the functions pane: chosen, written and read back as
 * the state file keeps them, and drawn. */
static void
test_columns(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->v;
	struct rect r = { 0, 0, 100, 30 };
	struct column_set *cs = pane_column_set(v->panes[PANE_FUNCTIONS]);
	uint32_t shown;

	assert_non_null(cs);
	assert_null(pane_column_set(v->panes[PANE_TIMELINE]));
	assert_int_equal(cs->shown, columns_all(cs));
	assert_int_equal(columns_parse(cs, "count,max", &shown), 0);
	cs->shown = shown;
	char *text = columns_text(cs);
	assert_string_equal(text, "count,max");
	free(text);
	assert_int_equal(columns_parse(cs, "count,colour", &shown), -1);
	assert_int_equal(columns_parse(cs, "count,", &shown), -1);
	assert_int_equal(columns_parse(cs, "", &shown), 0);
	assert_int_equal(shown, 0);
	grid_clear(f->g);
	pane_draw(v, PANE_FUNCTIONS, f->g, r);
	assert_true(grid_has(f, "count"));
	assert_true(grid_has(f, "max"));
	assert_false(grid_has(f, "median"));
	/* the chooser keeps one column at least */
	struct list_pos pos = { 0 };
	const char *msg;
	cs->shown = 1;
	columns_command(cs, &pos, CMD_COLUMN_TOGGLE, &msg);
	assert_non_null(msg);
	assert_int_equal(cs->shown, 1);
	pos.sel = 3;
	columns_command(cs, &pos, CMD_COLUMN_TOGGLE, &msg);
	assert_null(msg);
	assert_int_equal(cs->shown, 1 | 1 << 3);
}

int
main(void)
{
	/* Width of CJK characters needs a UTF-8 locale. */
	setlocale(LC_ALL, "C.UTF-8");
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_rows_and_folding),
		T(test_blocks_and_labels),
		T(test_density_never_dropped),
		T(test_ascii_fallback),
		T(test_trace_text_escaped),
		T(test_cursor_walk),
		T(test_search),
		T(test_markers_and_goto),
		T(test_filters),
		T(test_other_panes),
		T(test_background_jobs),
		T(test_backtrace),
		T(test_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
