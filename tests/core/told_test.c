/*
 * Unit tests of what a follower has told (told.h): a trace read again as
 * it grows gives each whole row once, whatever the order its tracks come
 * in, however many rows share a time, and a row waits while it is not
 * whole (a call still open, a time past what every stream has written).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "told.h"

/* A row of a test trace: a call ('c'), a call still open ('u'), an
 * instant ('i') or a marker tied to no thread ('m', its stream named by
 * `lane`), on thread tid. */
struct row {
	char kind;
	int64_t tid;
	uint32_t depth;
	ttv_ns start, end;
	const char *name;
	const char *lane;
};

/* The trace of rows (threads made in the order given: `reversed` makes
 * them in the other order, as a later read may meet them), complete up
 * to `until`. */
static struct trace *
make(const struct row *r, size_t n, ttv_ns until, bool reversed)
{
	struct builder *b = builder_new("told");
	builder_set_format(b, "test", "1", NULL);
	builder_set_wall_origin(b, 1000);
	builder_set_complete_until(b, until);
	uint32_t proc = builder_process(b, 1);
	for (size_t k = 0; k < n; k++) {
		const struct row *w = &r[reversed ? n - 1 - k : k];
		if (w->kind != 'm')
			builder_track(b, TRACK_THREAD, proc, w->tid);
	}
	for (size_t k = 0; k < n; k++) {
		const struct row *w = &r[k];
		func_id f = builder_func(b, builder_intern_cstr(b, w->name), 0,
		    -1);
		if (w->kind == 'm') {
			builder_marker(b, MARKER_PACKET, UINT32_MAX, w->start, 0,
			    builder_intern_cstr(b, w->lane));
			continue;
		}
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, w->tid);
		if (w->kind == 'i')
			builder_instant(b, tr, w->start, f, 0);
		else
			builder_slice(b, tr, w->depth, w->start,
			    w->end - w->start, f, w->kind == 'u' ?
			    SLICE_UNTERMINATED : 0, 0);
	}
	return builder_finish(b);
}

/* One round: the names of the rows told, calls by track and depth in
 * start order, then instants, then markers, each followed by a space. */
static void
round_of(struct told *k, const struct trace *t, char *out, size_t size)
{
	out[0] = '\0';
	told_round(k, t);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t d = 0; d < t->tracks[i].ndepth; d++)
			for (uint32_t j = 0; j < t->tracks[i].depth[d].len; j++) {
				struct slice_ref r = { i, d, j };
				if (told_call(k, r)) {
					strncat(out, trace_func_name(t,
					    trace_slice(t, r)->func), size -
					    strlen(out) - 1);
					strncat(out, " ", size - strlen(out) - 1);
				}
			}
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (size_t j = 0; j < t->tracks[i].ninstants; j++) {
			const struct instant *in = &t->tracks[i].instants[j];
			if (told_point(k, TOLD_INSTANT, i, NULL, in->t)) {
				strncat(out, trace_func_name(t, in->func), size -
				    strlen(out) - 1);
				strncat(out, " ", size - strlen(out) - 1);
			}
		}
	for (size_t j = 0; j < t->nmarkers; j++) {
		const struct marker *m = &t->markers[j];
		const char *lane = trace_str(t, m->text);
		if (told_point(k, TOLD_MARKER, m->track, lane, m->t)) {
			strncat(out, lane, size - strlen(out) - 1);
			strncat(out, " ", size - strlen(out) - 1);
		}
	}
}

/* Reads rows[0..n) as a trace and says what is new. */
static void
expect(struct told *k, const struct row *r, size_t n, ttv_ns until,
    bool reversed, const char *want)
{
	char got[512];
	struct trace *t = make(r, n, until, reversed);
	round_of(k, t, got, sizeof got);
	assert_string_equal(got, want);
	trace_free(t);
}

/* Calls come once each, an outer one after its inner ones, an open one
 * once it has ended, whatever order the threads are read in. */
static void
test_calls_once(void **state)
{
	(void)state;
	struct told *k = told_new();
	const struct row r[] = {
		{ 'c', 7, 0, 0, 100, "a", NULL },
		{ 'c', 7, 1, 10, 50, "b", NULL },
		{ 'u', 7, 0, 200, 210, "c", NULL },
		{ 'c', 9, 0, 5, 20, "x", NULL },
	};
	expect(k, r, 4, TTV_NS_MAX, false, "a b x ");
	/* read again, the threads in the other order: nothing new */
	expect(k, r, 4, TTV_NS_MAX, true, "");
	/* c ended, with a call inside it; y came on thread 9 */
	const struct row r2[] = {
		{ 'c', 7, 0, 0, 100, "a", NULL },
		{ 'c', 7, 1, 10, 50, "b", NULL },
		{ 'c', 7, 0, 200, 300, "c", NULL },
		{ 'c', 7, 1, 220, 300, "d", NULL },
		{ 'c', 9, 0, 5, 20, "x", NULL },
		{ 'c', 9, 0, 400, 500, "y", NULL },
	};
	expect(k, r2, 6, TTV_NS_MAX, true, "y c d ");
	expect(k, r2, 6, TTV_NS_MAX, false, "");
	told_free(k);
}

/* A call that ends past what every stream has written waits for it. */
static void
test_complete_until(void **state)
{
	(void)state;
	struct told *k = told_new();
	const struct row r[] = {
		{ 'c', 7, 0, 0, 100, "a", NULL },
		{ 'c', 7, 0, 150, 250, "b", NULL },
		{ 'i', 7, 0, 120, 120, "i1", NULL },
		{ 'i', 7, 0, 260, 260, "i2", NULL },
	};
	expect(k, r, 4, 200, false, "a i1 ");
	expect(k, r, 4, 300, false, "b i2 ");
	expect(k, r, 4, TTV_NS_MAX, false, "");
	told_free(k);
}

/* Rows at one time: the ones told come first, the others are new. */
static void
test_same_time(void **state)
{
	(void)state;
	struct told *k = told_new();
	const struct row r[] = {
		{ 'i', 7, 0, 50, 50, "p", NULL },
		{ 'i', 7, 0, 50, 50, "q", NULL },
	};
	expect(k, r, 1, TTV_NS_MAX, false, "p ");
	expect(k, r, 2, TTV_NS_MAX, false, "q ");
	expect(k, r, 2, TTV_NS_MAX, false, "");
	told_free(k);
}

/* Markers of no thread: each stream's by itself, so a stream whose
 * packets come late still has them told. */
static void
test_lanes(void **state)
{
	(void)state;
	struct told *k = told_new();
	const struct row r[] = {
		{ 'm', 0, 0, 100, 100, "m", "chan_0" },
		{ 'm', 0, 0, 10, 10, "m", "chan_1" },
	};
	expect(k, r, 1, TTV_NS_MAX, false, "chan_0 ");
	expect(k, r, 2, TTV_NS_MAX, false, "chan_1 ");
	/* forgotten: another trace, all of it new */
	told_forget(k);
	expect(k, r, 2, TTV_NS_MAX, false, "chan_1 chan_0 ");
	told_free(k);
}

/* Where a round's rows can be new (told_from): nothing is known at
 * first; then, per track, from the end of the last call told or seen
 * whole in an earlier round (told or not: a search that matched none of
 * them looks at no more), never past a call still open or one past what
 * every stream has written; instants alike. */
static void
test_from(void **state)
{
	(void)state;
	struct told *k = told_new();
	const struct row r[] = {
		{ 'c', 7, 0, 0, 100, "a", NULL },
		{ 'c', 7, 0, 150, 250, "b", NULL },
		{ 'u', 7, 0, 300, 310, "u", NULL },
		{ 'i', 7, 0, 120, 120, "i1", NULL },
		{ 'c', 9, 0, 5, 20, "x", NULL },
	};
	struct trace *t = make(r, 5, 200, false);
	told_round(k, t);
	assert_true(told_from(k, TOLD_CALL, 0) == TTV_NS_MIN);
	assert_true(told_from(k, TOLD_INSTANT, 0) == TTV_NS_MIN);
	trace_free(t);
	/* b ends past what is complete: a is the last whole call */
	t = make(r, 5, TTV_NS_MAX, false);
	told_round(k, t);
	assert_int_equal(told_from(k, TOLD_CALL, 0), 100);
	assert_int_equal(told_from(k, TOLD_INSTANT, 0), 120);
	assert_int_equal(told_from(k, TOLD_CALL, 1), 20);
	trace_free(t);
	/* now b was whole; the open call u is still to come */
	t = make(r, 5, TTV_NS_MAX, false);
	told_round(k, t);
	assert_int_equal(told_from(k, TOLD_CALL, 0), 250);
	trace_free(t);
	/* a told call later than what was seen whole counts too */
	char got[64];
	const struct row r2[] = {
		{ 'c', 7, 0, 0, 100, "a", NULL },
		{ 'c', 7, 0, 150, 250, "b", NULL },
		{ 'c', 7, 0, 300, 400, "u", NULL },
	};
	t = make(r2, 3, TTV_NS_MAX, false);
	round_of(k, t, got, sizeof got);
	assert_string_equal(got, "a b u ");
	trace_free(t);
	t = make(r2, 3, TTV_NS_MAX, false);
	told_round(k, t);
	assert_int_equal(told_from(k, TOLD_CALL, 0), 400);
	trace_free(t);
	/* forgotten: all of another trace may be new */
	told_forget(k);
	t = make(r2, 3, TTV_NS_MAX, false);
	told_round(k, t);
	assert_true(told_from(k, TOLD_CALL, 0) == TTV_NS_MIN);
	trace_free(t);
	told_free(k);
}

/* Where a round's markers can be new (told_list_from): after the ones
 * an earlier round went through, up to where its read was complete;
 * from the start again when one came since among them (a stream behind
 * the others), which is then told. */
static void
test_list_from(void **state)
{
	(void)state;
	struct told *k = told_new();
	char got[64];
	const struct row r[] = {
		{ 'm', 0, 0, 10, 10, "m", "chan_0" },
		{ 'm', 0, 0, 20, 20, "m", "chan_1" },
		{ 'm', 0, 0, 30, 30, "m", "chan_0" },
		{ 'm', 0, 0, 5, 5, "m", "chan_2" },
	};
	struct trace *t = make(r, 3, 25, false);
	round_of(k, t, got, sizeof got);
	assert_string_equal(got, "chan_0 chan_1 ");
	assert_int_equal(told_list_from(k, TOLD_MARKER), 0);
	trace_free(t);
	/* the one at 30 was past what was complete: looked at again */
	t = make(r, 3, TTV_NS_MAX, false);
	round_of(k, t, got, sizeof got);
	assert_int_equal(told_list_from(k, TOLD_MARKER), 1);
	assert_string_equal(got, "chan_0 ");
	trace_free(t);
	t = make(r, 3, TTV_NS_MAX, false);
	round_of(k, t, got, sizeof got);
	assert_int_equal(told_list_from(k, TOLD_MARKER), 2);
	assert_string_equal(got, "");
	trace_free(t);
	/* one came before them: all may be new */
	t = make(r, 4, TTV_NS_MAX, false);
	round_of(k, t, got, sizeof got);
	assert_int_equal(told_list_from(k, TOLD_MARKER), 0);
	assert_string_equal(got, "chan_2 ");
	trace_free(t);
	told_free(k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_once),
		cmocka_unit_test(test_complete_until),
		cmocka_unit_test(test_same_time),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_from),
		cmocka_unit_test(test_list_from),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
