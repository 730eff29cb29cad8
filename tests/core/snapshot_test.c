/*
 * Unit tests of a builder's snapshot (builder_copy, builder_snapshot):
 * the trace made from a copy while the builder goes on is the trace a
 * builder given the same calls up to then would make, open stacks
 * included, and the builder, gone on after it, makes the same trace as
 * one given all the calls at once; what is done to the copy never shows
 * in the builder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"

#define STEPS 400

/* Step k of a made-up session: two threads with nested calls (some left
 * open for a while), instants with args, markers, logs, counters, a
 * name that comes late, diagnostics and counts. */
static void
step(struct builder *b, int k)
{
	uint32_t proc = builder_process(b, 7);
	uint32_t tr[2] = {
		builder_track(b, TRACK_THREAD, proc, 70),
		builder_track(b, TRACK_THREAD, proc, 71),
	};
	uint32_t cnt = builder_track(b, TRACK_COUNTER, proc, 1);
	ttv_ns t = (ttv_ns)k * 100;
	char name[32];
	snprintf(name, sizeof name, "fn%d", k % 13);
	func_id f = builder_func(b, builder_intern_cstr(b, name),
	    builder_intern_cstr(b, "cat"), k % 13);
	uint32_t th = tr[k % 2];
	/* a stack that goes up for five steps and down for five */
	if ((k / 2) % 10 < 5) {
		builder_push(b, th, t, f);
	} else if (builder_stack_depth(b, th) > 0) {
		builder_pop(b, th, t, 0);
	}
	if (k % 7 == 0) {
		builder_args_begin(b);
		builder_arg_i64(b, builder_intern_cstr(b, "k"), k);
		builder_arg_str(b, builder_intern_cstr(b, "s"),
		    builder_intern_cstr(b, name));
		builder_instant(b, th, t + 1, f, builder_args_end(b));
	}
	if (k % 11 == 0)
		builder_marker(b, MARKER_CUSTOM_EVENT, k % 22 ? th : UINT32_MAX, t + 2,
		    k, builder_intern_cstr(b, name));
	if (k % 17 == 0)
		builder_log(b, th, t + 3, builder_intern_cstr(b, "a log line"));
	if (k % 5 == 0)
		builder_counter(b, cnt, t, (double)k / 3);
	if (k == 123)
		builder_track_name(b, tr[1], builder_intern_cstr(b, "late"));
	if (k % 97 == 0)
		builder_line_warn(b, (uint64_t)k, "odd line %d", k);
	if (k % 50 == 0)
		builder_count(b, "records", 50);
}

static struct builder *
started(void)
{
	struct builder *b = builder_new("snap");
	builder_set_format(b, "test", "1", NULL);
	builder_set_wall_origin(b, 5000);
	builder_open_to_now(b);
	return b;
}

/* The trace of steps [0, n) made at once. */
static struct trace *
made(int n)
{
	struct builder *b = started();
	for (int k = 0; k < n; k++)
		step(b, k);
	return builder_finish(b);
}

static void
same_trace(const struct trace *a, const struct trace *b)
{
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->last, b->last);
	assert_int_equal(a->nstrings, b->nstrings);
	for (uint32_t i = 0; i < a->nstrings; i++)
		assert_string_equal(a->strings[i], b->strings[i]);
	assert_int_equal(a->nfuncs, b->nfuncs);
	for (size_t i = 0; i < a->nfuncs; i++) {
		assert_int_equal(a->funcs[i].name, b->funcs[i].name);
		assert_int_equal(a->funcs[i].source_id, b->funcs[i].source_id);
	}
	assert_int_equal(a->ntracks, b->ntracks);
	for (uint32_t i = 0; i < a->ntracks; i++) {
		const struct track *x = &a->tracks[i], *y = &b->tracks[i];
		assert_int_equal(x->name, y->name);
		assert_int_equal(x->first, y->first);
		assert_int_equal(x->last, y->last);
		assert_int_equal(x->ndepth, y->ndepth);
		for (uint32_t d = 0; d < x->ndepth; d++) {
			assert_int_equal(x->depth[d].len, y->depth[d].len);
			assert_memory_equal(x->depth[d].slices,
			    y->depth[d].slices, x->depth[d].len *
			    sizeof *x->depth[d].slices);
		}
		assert_int_equal(x->ninstants, y->ninstants);
		for (size_t j = 0; j < x->ninstants; j++) {
			assert_int_equal(x->instants[j].t, y->instants[j].t);
			assert_int_equal(x->instants[j].args,
			    y->instants[j].args);
		}
		assert_int_equal(x->nsamples, y->nsamples);
		for (size_t j = 0; j < x->nsamples; j++)
			assert_true(x->samples[j].value == y->samples[j].value);
	}
	assert_int_equal(a->nmarkers, b->nmarkers);
	for (size_t i = 0; i < a->nmarkers; i++) {
		assert_int_equal(a->markers[i].t, b->markers[i].t);
		assert_int_equal(a->markers[i].text, b->markers[i].text);
	}
	assert_int_equal(a->nlogs, b->nlogs);
	assert_int_equal(a->nargs, b->nargs);
	for (size_t i = 0; i < a->nargs; i++)
		assert_int_equal(a->args[i].v.u, b->args[i].v.u);
	assert_int_equal(a->nrecords, b->nrecords);
	for (size_t i = 0; i < a->nrecords; i++)
		assert_int_equal(a->records[i].count, b->records[i].count);
	assert_int_equal(a->ndiags, b->ndiags);
	for (size_t i = 0; i < a->ndiags; i++)
		assert_string_equal(a->diags[i].text, b->diags[i].text);
}

/* Snapshots at many points, the builder going on between them. */
static void
test_snapshot_then_go_on(void **state)
{
	(void)state;
	struct builder *b = started();
	int k = 0;
	for (int upto = 1; upto <= STEPS; upto += upto / 3 + 1) {
		for (; k < upto; k++)
			step(b, k);
		struct trace *s = builder_snapshot(b);
		struct trace *want = made(upto);
		assert_non_null(s);
		same_trace(s, want);
		trace_free(s);
		trace_free(want);
	}
	for (; k < STEPS; k++)
		step(b, k);
	struct trace *all = builder_finish(b);
	struct trace *want = made(STEPS);
	same_trace(all, want);
	trace_free(all);
	trace_free(want);
}

/* A call open at the snapshot is there as running to now (unterminated),
 * and closes later in the builder as if no snapshot had been made. */
static void
test_open_stack(void **state)
{
	(void)state;
	struct builder *b = started();
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id f = builder_func(b, builder_intern_cstr(b, "outer"), 0, -1);
	builder_push(b, tr, 10, f);
	builder_push(b, tr, 20, f);
	builder_pop(b, tr, 30, 0);
	struct trace *s = builder_snapshot(b);
	assert_int_equal(s->tracks[0].ndepth, 2);
	assert_int_equal(s->tracks[0].depth[0].len, 1);
	struct slice_ref r = { .track = 0, .depth = 0, .index = 0 };
	assert_true(trace_slice(s, r)->flags & SLICE_UNTERMINATED);
	trace_free(s);
	assert_int_equal(builder_stack_depth(b, tr), 1);
	builder_pop(b, tr, 50, 0);
	struct trace *t = builder_finish(b);
	assert_false(trace_slice(t, r)->flags & SLICE_UNTERMINATED);
	assert_int_equal(trace_slice_dur(t, r), 40);
	trace_free(t);
}

/* What is done to a copy stays there. */
static void
test_copy_apart(void **state)
{
	(void)state;
	struct builder *b = started();
	for (int k = 0; k < STEPS / 2; k++)
		step(b, k);
	struct builder *c = builder_copy(b);
	for (int k = STEPS / 2; k < STEPS; k++)
		step(c, k);
	builder_intern_cstr(c, "only in the copy");
	builder_note(c, DIAG_ERROR, "only in the copy");
	struct trace *ct = builder_finish(c);
	struct trace *want = made(STEPS);
	assert_int_equal(ct->ndiags, want->ndiags + 1);
	trace_free(ct);
	trace_free(want);
	struct trace *bt = builder_finish(b);
	want = made(STEPS / 2);
	same_trace(bt, want);
	trace_free(bt);
	trace_free(want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_then_go_on),
		cmocka_unit_test(test_open_stack),
		cmocka_unit_test(test_copy_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
