/*
 * Pane logic that needs no terminal: the screen layout and the mapping
 * between time and columns (zoom, pan, ticks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout.h"
#include "tmap.h"

static void
test_layout_80x24(void **state)
{
	struct layout l;

	(void)state;
	layout_compute(80, 24, true, &l);
	assert_false(l.too_small);
	assert_int_equal(l.header.y, 0);
	assert_int_equal(l.status.y, 23);
	assert_true(l.details_shown);
	assert_false(l.details_beside);	/* 80 columns: details below */
	assert_int_equal(l.main.y, 1);
	assert_int_equal(l.main.y + l.main.h, l.details.y);
	assert_int_equal(l.details.y + l.details.h, 23);
	assert_true(l.main.h >= 2 * l.details.h);
	assert_int_equal(l.main.w, 80);
}

static void
test_layout_wide(void **state)
{
	struct layout l;

	(void)state;
	layout_compute(200, 50, true, &l);
	assert_true(l.details_beside);
	assert_int_equal(l.main.w + l.details.w, 200);
	assert_int_equal(l.details.x, l.main.w);
	assert_int_equal(l.details.h, 48);
	layout_compute(200, 50, false, &l);
	assert_false(l.details_shown);
	assert_int_equal(l.main.w, 200);
	assert_int_equal(l.main.h, 48);
}

static void
test_layout_small(void **state)
{
	struct layout l;

	(void)state;
	layout_compute(10, 3, true, &l);
	assert_true(l.too_small);
	/* Too short for details below: the main pane keeps the room. */
	layout_compute(80, 12, true, &l);
	assert_false(l.too_small);
	assert_false(l.details_shown);
	assert_int_equal(l.main.h, 10);
}

static void
test_tmap_columns(void **state)
{
	struct tmap m = { 1000, 2000, 100 };	/* 10 ns per column */

	(void)state;
	assert_int_equal(tmap_col(&m, 1000), 0);
	assert_int_equal(tmap_col(&m, 1009), 0);
	assert_int_equal(tmap_col(&m, 1010), 1);
	assert_int_equal(tmap_col(&m, 1999), 99);
	assert_int_equal(tmap_col(&m, 2000), 100);
	assert_int_equal(tmap_col(&m, 0), -1);	/* clamped for clipping */
	assert_int_equal(tmap_col(&m, 999999), 100);
	assert_int_equal(tmap_time(&m, 0), 1000);
	assert_int_equal(tmap_time(&m, 50), 1500);
	assert_int_equal(tmap_time(&m, 100), 2000);
	assert_true(tmap_pos(&m, 1005) > 0.49 && tmap_pos(&m, 1005) < 0.51);
}

static void
test_tmap_huge_span(void **state)
{
	/* Spans near 2^63 must not overflow. */
	struct tmap m = { INT64_MIN / 2, INT64_MAX / 2, 200 };

	(void)state;
	assert_int_equal(tmap_col(&m, 0), 100);
	assert_true(tmap_time(&m, 200) == INT64_MAX / 2 ||
	    tmap_time(&m, 200) == INT64_MAX / 2 - 1);
}

static void
test_tmap_zoom_keeps_point(void **state)
{
	ttv_ns t0 = 0, t1 = 1000000;

	(void)state;
	/* Zooming in around 250000 keeps it at a quarter of the window. */
	tmap_zoom(&t0, &t1, 250000, 0.5, 0, 1000000);
	assert_int_equal(t1 - t0, 500000);
	assert_int_equal(t0, 125000);
	/* Zooming out past the trace clamps to the trace. */
	tmap_zoom(&t0, &t1, 250000, 100, 0, 1000000);
	assert_int_equal(t0, 0);
	assert_int_equal(t1, 1000000);
	/* Zooming in never goes below the minimum span. */
	for (int i = 0; i < 100; i++)
		tmap_zoom(&t0, &t1, 500, 0.5, 0, 1000000);
	assert_int_equal(t1 - t0, TMAP_MIN_SPAN);
	assert_true(t0 <= 500 && t1 >= 500);
}

static void
test_tmap_pan_clamps(void **state)
{
	ttv_ns t0 = 0, t1 = 100;

	(void)state;
	tmap_pan(&t0, &t1, -0.25, 0, 1000);
	assert_int_equal(t0, 0);	/* already at the start */
	tmap_pan(&t0, &t1, 0.25, 0, 1000);
	assert_int_equal(t0, 25);
	assert_int_equal(t1, 125);
	for (int i = 0; i < 100; i++)
		tmap_pan(&t0, &t1, 0.25, 0, 1000);
	assert_int_equal(t1, 1000);
	assert_int_equal(t1 - t0, 100);
	tmap_center(&t0, &t1, 500, 0, 1000);
	assert_int_equal(t0, 450);
	tmap_fit(&t0, &t1, 200, 300, 0, 1000);
	assert_true(t0 < 200 && t1 > 300 && t1 - t0 <= 130);
}

static void
test_tmap_ticks(void **state)
{
	struct tmap m = { 0, 1000000, 100 };	/* 1 ms over 100 columns */
	ttv_ns s;

	(void)state;
	s = tmap_tick_step(&m, 14);
	/* At least 14 columns apart, and a 1/2/5 x 10^k value. */
	assert_true(s * 100 >= 1000000 * 14);
	assert_int_equal(s, 200000);
	m.t1 = 7;
	m.w = 80;
	assert_int_equal(tmap_tick_step(&m, 14), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_80x24),
		cmocka_unit_test(test_layout_wide),
		cmocka_unit_test(test_layout_small),
		cmocka_unit_test(test_tmap_columns),
		cmocka_unit_test(test_tmap_huge_span),
		cmocka_unit_test(test_tmap_zoom_keeps_point),
		cmocka_unit_test(test_tmap_pan_clamps),
		cmocka_unit_test(test_tmap_ticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
