/*
 * The lines of query_info (src/query_info.h), which --info prints and the
 * viewer's info pane shows: what they say of a small trace, the thread
 * filter and the range they follow, and that trace text in them is in
 * the text form (no control character, no line broken by a name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "query.h"
#include "query_info.h"

static struct trace *
small_trace(void)
{
	struct builder *b = builder_new("info\ntest");
	builder_set_format(b, "test", "2", "little-endian");
	builder_set_tick_rate(b, 1e9);
	builder_meta(b, "cmdline", "prog --flag \033[2J");
	builder_count(b, "function-enter", 3);
	builder_note(b, DIAG_WARNING, "a warning with a\nnewline");
	func_id f = builder_func(b, builder_intern_cstr(b, "main"), 0, 1);
	uint32_t proc = builder_process(b, 42);
	for (int k = 0; k < 2; k++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, 42 + k);
		builder_push(b, tr, 100 + k * 1000, f);
		builder_pop(b, tr, 600 + k * 1000, 0);
	}
	return builder_finish(b);
}

static bool
has_line(const struct info_lines *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->lines[i], s) == 0)
			return true;
	return false;
}

static void
test_lines(void **state)
{
	(void)state;
	struct trace *t = small_trace();
	struct selection sel;
	struct info_lines l;

	selection_init(&sel);
	query_info(t, &sel, &l);
	assert_string_equal(l.lines[0], "file: info\\ntest");
	assert_true(has_line(&l, "format: test"));
	assert_true(has_line(&l, "version: 2"));
	assert_true(has_line(&l, "threads: 2"));
	assert_true(has_line(&l, "slices: 2"));
	assert_true(has_line(&l, "  function-enter: 3"));
	assert_true(has_line(&l, "  cmdline: prog --flag \\e[2J"));
	assert_true(has_line(&l, "  warning: a warning with a\\nnewline"));
	assert_false(has_line(&l, "range: 100 .. 600 ns (500 ns), from the "
	    "start: +0 .. +500 ns"));
	for (size_t i = 0; i < l.n; i++)
		for (const char *c = l.lines[i]; *c; c++)
			assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	info_lines_free(&l);

	/* one thread of the two, and a range */
	int64_t tid = 43;
	filter_set_threads(&sel.f, t, &tid, 1, false);
	sel.ranged = true;
	sel.t0 = 1000;
	sel.t1 = 1300;
	query_info(t, &sel, &l);
	assert_true(has_line(&l, "threads: 1"));
	assert_true(has_line(&l, "slices: 1"));
	assert_true(has_line(&l, "range: 1000 .. 1300 ns (300 ns), from the "
	    "start: +900 .. +1200 ns"));
	assert_true(has_line(&l, "slices in range: 1"));
	info_lines_free(&l);
	selection_clear(&sel);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
