/*
 * The arithmetic behind the viewer's comparison of two traces, no
 * terminal: the two timelines' alignment (the offset, the base's window
 * from the trace's, saturated at the ends of the time axis; the first
 * call of a function and the same marker in two traces, built in-process
 * with the builder), the overlaid histograms' shared buckets and heights,
 * and the colour strength of a change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "diff.h"
#include "diff_align.h"
#include "diff_hist.h"

static void
test_offset(void **state)
{
	(void)state;
	assert_int_equal(diff_align_offset(97000, 52000), 45000);
	assert_int_equal(diff_align_offset(52000, 97000), -45000);
	assert_int_equal(diff_align_offset(5, 5), 0);
	/* clocks 2^63 apart: saturated, never wrapped */
	assert_true(diff_align_offset(TTV_NS_MAX, -10) == TTV_NS_MAX);
	assert_true(diff_align_offset(TTV_NS_MIN, 10) == TTV_NS_MIN);
	assert_true(diff_align_offset(TTV_NS_MAX, TTV_NS_MIN) == TTV_NS_MAX);
	assert_int_equal(diff_align_shift(100, -30), 70);
	assert_true(diff_align_shift(TTV_NS_MAX - 5, 10) == TTV_NS_MAX);
	assert_true(diff_align_shift(TTV_NS_MIN + 5, -10) == TTV_NS_MIN);
}

static void
test_window(void **state)
{
	ttv_ns b0, b1;

	(void)state;
	/* the base is drawn 45 us later: its window starts 45 us earlier */
	diff_align_window(48300, 534000, 45000, &b0, &b1);
	assert_int_equal(b0, 3300);
	assert_int_equal(b1, 489000);
	/* a base aligned before the trace: its window is later */
	diff_align_window(1000, 2000, -500, &b0, &b1);
	assert_int_equal(b0, 1500);
	assert_int_equal(b1, 2500);
	/* far apart, within the axis: moved whole */
	diff_align_window(1000, 2000, TTV_NS_MAX, &b0, &b1);
	assert_true(b0 == TTV_NS_MIN + 1001);
	assert_true(b1 == TTV_NS_MIN + 2001);
	/* an offset past the axis pins the window to its end, its span
	 * kept */
	diff_align_window(1000, 2000, TTV_NS_MIN, &b0, &b1);
	assert_true(b1 == TTV_NS_MAX);
	assert_true(b0 == TTV_NS_MAX - 1000);
	diff_align_window(-5000, -4000, TTV_NS_MAX, &b0, &b1);
	assert_true(b0 == TTV_NS_MIN);
	assert_true(b1 == TTV_NS_MIN + 1000);
	diff_align_window(TTV_NS_MAX - 10, TTV_NS_MAX, -100, &b0, &b1);
	assert_true(b1 == TTV_NS_MAX);
	assert_true(b0 == TTV_NS_MAX - 10);
	/* an empty window stays one ns wide */
	diff_align_window(500, 500, 100, &b0, &b1);
	assert_true(b1 > b0);
	/* the way back: a time of the base plus the offset is the trace's */
	diff_align_window(700, 900, 200, &b0, &b1);
	assert_int_equal(diff_align_shift(b0, 200), 700);
	assert_int_equal(diff_align_shift(b1, 200), 900);
}

/* Two runs: "work" first called at 300 (depth 1, track B) in the new one,
 * at 100 in the base; markers "frame" (custom events) at different
 * times, one "tick" of another kind between. */
static struct trace *
run(bool new_run)
{
	struct builder *b = builder_new(new_run ? "new" : "base");
	uint32_t p = builder_process(b, 1);
	uint32_t ta = builder_track(b, TRACK_THREAD, p, 1);
	uint32_t tb = builder_track(b, TRACK_THREAD, p, 2);
	func_id fmain = builder_func(b, builder_intern_cstr(b, "main"), 0, -1);
	func_id fwork = builder_func(b, builder_intern_cstr(b, "work"), 0, -1);
	str_id frame = builder_intern_cstr(b, "frame");
	ttv_ns d = new_run ? 200 : 0;

	builder_slice(b, ta, 0, 0, 2000, fmain, 0, 0);
	builder_slice(b, ta, 1, 500 + d, 100, fwork, 0, 0);
	builder_slice(b, tb, 0, 50, 1000, fmain, 0, 0);
	builder_slice(b, tb, 1, 100 + d, 50, fwork, 0, 0);
	builder_slice(b, tb, 1, 900, 50, fwork, 0, 0);
	builder_marker(b, MARKER_CUSTOM_EVENT, UINT32_MAX, 10 + d, 0, frame);
	builder_marker(b, MARKER_CPU_CHANGE, UINT32_MAX, 400 + d, 0, frame);
	builder_marker(b, MARKER_CUSTOM_EVENT, UINT32_MAX, 600 + d, 0, frame);
	builder_marker(b, MARKER_CUSTOM_EVENT, UINT32_MAX, 1200 + 2 * d, 0,
	    frame);
	struct trace *t = builder_finish(b);
	assert_non_null(t);
	return t;
}

static void
test_first_call(void **state)
{
	struct trace *base = run(false), *t = run(true);
	struct slice_ref r;
	struct filter f;

	(void)state;
	assert_true(diff_align_first_call(t, NULL, "work", &r));
	assert_int_equal(trace_slice(t, r)->start, 300);
	assert_int_equal(r.depth, 1);
	assert_true(diff_align_first_call(base, NULL, "work", &r));
	assert_int_equal(trace_slice(base, r)->start, 100);
	assert_int_equal(diff_align_offset(300, 100), 200);
	/* the outermost call counts too */
	assert_true(diff_align_first_call(t, NULL, "main", &r));
	assert_int_equal(trace_slice(t, r)->start, 0);
	assert_false(diff_align_first_call(t, NULL, "nothing", &r));
	/* a thread filtered out is not looked at */
	filter_init(&f);
	filter_set_threads(&f, t, (int64_t[]){ 1 }, 1, false);
	assert_true(diff_align_first_call(t, &f, "work", &r));
	assert_int_equal(trace_slice(t, r)->start, 700);
	filter_clear(&f);
	trace_free(base);
	trace_free(t);
}

static void
test_marker(void **state)
{
	struct trace *base = run(false), *t = run(true);
	size_t ia, ib;

	(void)state;
	/* the cursor at 700 in the new run: the custom event at 800, the
	 * second "frame" event (the CPU change between is another kind) */
	assert_true(diff_align_marker_at(t, 700, &ia));
	assert_int_equal(t->markers[ia].t, 800);
	assert_true(diff_align_marker_same(t, ia, base, &ib));
	assert_int_equal(base->markers[ib].t, 600);
	/* exactly on a marker: that one */
	assert_true(diff_align_marker_at(t, 1600, &ia));
	assert_int_equal(t->markers[ia].t, 1600);
	assert_true(diff_align_marker_same(t, ia, base, &ib));
	assert_int_equal(base->markers[ib].t, 1200);
	/* and back */
	assert_true(diff_align_marker_same(base, ib, t, &ia));
	assert_int_equal(t->markers[ia].t, 1600);
	/* the CPU change is its own kind */
	assert_true(diff_align_marker_at(t, 500, &ia));
	assert_int_equal(t->markers[ia].kind, MARKER_CPU_CHANGE);
	assert_true(diff_align_marker_same(t, ia, base, &ib));
	assert_int_equal(base->markers[ib].t, 400);
	/* past the last one: none */
	assert_false(diff_align_marker_at(t, 1601, &ia));
	trace_free(base);
	trace_free(t);
}

/* A list of durations with what the histograms read of one made by
 * query_instances (min, max, p50); list_free frees it. */
static void
list_of(struct instance_list *l, const ttv_ns *d, size_t n)
{
	memset(l, 0, sizeof *l);
	l->items = calloc(n ? n : 1, sizeof *l->items);
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		l->items[i].dur = d[i];
		if (i == 0 || d[i] < l->min)
			l->min = d[i];
		if (i == 0 || d[i] > l->max)
			l->max = d[i];
	}
	l->p50 = n ? d[n / 2] : 0;
}

static void
list_free(struct instance_list *l)
{
	free(l->items);
	memset(l, 0, sizeof *l);
}

static void
test_histograms(void **state)
{
	struct instance_list a, b;
	struct diff_hist h;
	/* the base: 10 calls of 20 us; the new one: 20 calls, 10 of 20 us
	 * and 10 of 60 us */
	ttv_ns da[10], db[20];

	(void)state;
	for (int i = 0; i < 10; i++)
		da[i] = 20000;
	for (int i = 0; i < 20; i++)
		db[i] = i < 10 ? 20000 : 60000;
	list_of(&a, da, 10);
	list_of(&b, db, 20);
	const struct instance_list *l[2] = { &a, &b };
	diff_hist_make(l, 10, &h);
	assert_int_equal(h.n, 10);
	/* one axis for both, from the shortest call to the longest */
	assert_int_equal(diff_hist_edge(&h, 0), 20000);
	assert_int_equal(diff_hist_edge(&h, 10), 60000);
	assert_int_equal(diff_hist_bucket(&h, 20000), 0);
	assert_int_equal(diff_hist_bucket(&h, 60000), 9);
	assert_int_equal(h.count[0][0], 10);
	assert_int_equal(h.count[1][0], 10);
	assert_int_equal(h.count[1][9], 10);
	/* as shares: the base's one bucket is all its calls, the tallest;
	 * the new trace's two are half as high */
	assert_int_equal(diff_hist_rows(&h, 0, 0, true, 8), 8);
	assert_int_equal(diff_hist_rows(&h, 1, 0, true, 8), 4);
	assert_int_equal(diff_hist_rows(&h, 1, 9, true, 8), 4);
	/* as counts: 10 and 10, as high */
	assert_int_equal(diff_hist_rows(&h, 0, 0, false, 8), 8);
	assert_int_equal(diff_hist_rows(&h, 1, 0, false, 8), 8);
	/* an empty bucket has no bar; a bucket with a call at least one */
	assert_int_equal(diff_hist_rows(&h, 0, 5, true, 8), 0);
	diff_hist_free(&h);
	/* every call alike: one bucket */
	list_free(&b);
	list_of(&b, da, 3);
	diff_hist_make(l, 10, &h);
	assert_int_equal(h.n, 1);
	assert_int_equal(diff_hist_rows(&h, 1, 0, false, 8), 2);
	diff_hist_free(&h);
	list_free(&b);
	/* no call on one side */
	list_of(&b, NULL, 0);
	diff_hist_make(l, 10, &h);
	assert_int_equal(h.calls[1], 0);
	assert_int_equal(diff_hist_rows(&h, 1, 0, true, 8), 0);
	assert_int_equal(h.median[1], h.n);
	diff_hist_free(&h);
	list_free(&a);
	list_free(&b);
}

static void
test_strength(void **state)
{
	(void)state;
	/* the change's share of the largest: thirds */
	assert_int_equal(diff_level(450500, 450500), 2);
	assert_int_equal(diff_level(400000, 450500), 2);
	assert_int_equal(diff_level(200000, 450500), 1);
	assert_int_equal(diff_level(-50000, 450500), 0);
	assert_int_equal(diff_level(TTV_NS_MIN, TTV_NS_MAX), 2);
	assert_int_equal(diff_level(5, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_first_call),
		cmocka_unit_test(test_marker),
		cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_strength),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
