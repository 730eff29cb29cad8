/*
 * Unit tests of a builder's snapshot (builder_copy, builder_snapshot):
 * the trace made from a copy while the builder goes on is the trace a
 * builder given the same calls up to then would make, open stacks
 * included, and the builder, gone on after it, makes the same trace as
 * one given all the calls at once; what is done to the copy never shows
 * in the builder. A builder whose large depths grow in a file
 * (builder_set_store, as --follow's) makes the same traces, its copies
 * map the file's pages instead of copying them, and a trace made earlier
 * stays as it was while the builder and later copies go on.
 *
 * A builder saved (builder_save) and made again from the bytes and the
 * trace it finished into (builder_load), as a later run that finds them
 * in the trace's index does, goes on to make the trace the first one
 * would; a damaged save is refused, never read out of bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blob.h"
#include "builder.h"
#include "index_store.h"

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

/* ------------------------------------------------- depths kept in a file */

#define BIG_STEPS 300000

/* Step k of a busy session: a call at depth 1 on every step, one at
 * depth 0 open over four steps (so copies find it open), enough calls
 * for a depth to fill many of the store's chunks. */
static void
step_big(struct builder *b, int k)
{
	uint32_t proc = builder_process(b, 9);
	uint32_t th = builder_track(b, TRACK_THREAD, proc, 90 + k % 2);
	func_id outer = builder_func(b, builder_intern_cstr(b, "outer"), 0, -1);
	func_id inner = builder_func(b, builder_intern_cstr(b,
	    k % 1000 == 0 ? "rare" : "inner"), 0, -1);
	ttv_ns t = (ttv_ns)k * 40;
	if (k % 8 < 2)
		builder_push(b, th, t, outer);
	builder_push(b, th, t + 1, inner);
	builder_pop(b, th, t + 2 + k % 5, 0);
	if (k % 8 >= 6)
		builder_pop(b, th, t + 30, 0);
	if (k % 4 == 1) {
		builder_args_begin(b);
		builder_arg_i64(b, builder_intern_cstr(b, "k"), k);
		builder_instant(b, th, t + 3, inner, builder_args_end(b));
	}
	if (k % 2 == 0)
		builder_counter(b, builder_track(b, TRACK_COUNTER, proc, 1), t,
		    (double)k);
}

static struct trace *
made_big(int n)
{
	struct builder *b = started();
	for (int k = 0; k < n; k++)
		step_big(b, k);
	return builder_finish(b);
}

static struct builder *
started_stored(struct index_store **store, FILE **fp)
{
	*fp = tmpfile();
	assert_non_null(*fp);
	*store = index_store_new(fileno(*fp));
	struct builder *b = started();
	builder_set_store(b, *store);
	builder_store_all(b);
	return b;
}

/* Whether the trace's deepest-filled depth lives in its backing (mapped
 * from the file), not on the heap. */
static bool
depth_mapped(const struct trace *t, uint32_t track, uint32_t depth)
{
	return t->backing != NULL && t->backing->owns(t->backing,
	    t->tracks[track].depth[depth].slices);
}

static void
test_stored_snapshots(void **state)
{
	(void)state;
	struct index_store *store;
	FILE *fp;
	struct builder *b = started_stored(&store, &fp);
	static const int at[] = { 100, 4097, 16411, 50001, 100000, 131072,
	    200003, BIG_STEPS };
	struct trace *kept[8];
	int k = 0;
	for (size_t i = 0; i < 8; i++) {
		for (; k < at[i]; k++)
			step_big(b, k);
		kept[i] = builder_snapshot(b);
		struct trace *want = made_big(at[i]);
		same_trace(kept[i], want);
		trace_free(want);
	}
	/* large depths, instants, samples and args are the file's pages in
	 * the copies (tracks: thread 90, the counter, thread 91) */
	assert_int_equal(kept[7]->tracks[1].kind, TRACK_COUNTER);
	assert_true(depth_mapped(kept[7], 0, 1));
	assert_true(depth_mapped(kept[7], 2, 1));
	assert_true(kept[7]->backing->owns(kept[7]->backing,
	    kept[7]->tracks[2].instants));
	assert_true(kept[7]->backing->owns(kept[7]->backing, kept[7]->args));
	assert_true(kept[7]->backing->owns(kept[7]->backing,
	    kept[7]->tracks[1].samples));
	/* the builder went on: what was made earlier did not change */
	for (size_t i = 0; i < 8; i++) {
		struct trace *want = made_big(at[i]);
		same_trace(kept[i], want);
		trace_free(want);
		trace_free(kept[i]);
	}
	for (; k < BIG_STEPS + 777; k++)
		step_big(b, k);
	struct trace *all = builder_snapshot(b);
	builder_free(b);
	index_store_free(store);
	fclose(fp);
	/* the copy outlives the builder, its store and its file */
	struct trace *want = made_big(BIG_STEPS + 777);
	same_trace(all, want);
	trace_free(want);
	trace_free(all);
}

/* A copy of a stored builder that goes on far (past the room its copy
 * of a depth was given: it moves) stays apart from the builder. */
static void
test_stored_copy_apart(void **state)
{
	(void)state;
	struct index_store *store;
	FILE *fp;
	struct builder *b = started_stored(&store, &fp);
	int k = 0;
	for (; k < 70001; k++)
		step_big(b, k);
	struct builder *c = builder_copy(b);
	for (int j = k; j < 70001 + 9000000; j++)
		step_big(c, j);
	for (; k < 90000; k++)
		step_big(b, k);
	struct trace *ct = builder_finish(c);
	struct trace *want = made_big(70001 + 9000000);
	same_trace(ct, want);
	trace_free(want);
	trace_free(ct);
	struct trace *bt = builder_snapshot(b);
	want = made_big(90000);
	same_trace(bt, want);
	trace_free(want);
	trace_free(bt);
	/* a copy given up unfinished frees its store with it */
	builder_free(builder_copy(b));
	builder_free(b);
	index_store_free(store);
	fclose(fp);
}

/* Odd things the builder must keep across a save: instants given out
 * of order, weighted slices given whole and out of order, long calls,
 * a flow, ends without a begin (which shift a track's depths). */
static void
step_odd(struct builder *b, int k, bool orphans)
{
	step(b, k);
	uint32_t proc = builder_process(b, 8);
	uint32_t th = builder_track(b, TRACK_THREAD, proc, 80);
	uint32_t sampled = builder_track(b, TRACK_THREAD, proc, 81);
	func_id f = builder_func(b, builder_intern_cstr(b, "odd"), 0, -1);
	ttv_ns t = (ttv_ns)k * 100;
	if (k % 9 == 0)
		builder_instant(b, th, k % 18 ? t : t - 5000, f, 0);
	builder_slice_weighted(b, sampled, 0, k % 4 == 3 ? t - 250 : t, 10,
	    f, 0, (uint32_t)k % 5 + 1);
	if (k % 40 == 0) {
		builder_push(b, th, t, f);
		builder_pop(b, th, t + ((ttv_ns)1 << 33), 0);
		struct slice_ref from, to;
		if (builder_last_slice(b, th, &from) &&
		    builder_last_slice(b, sampled, &to))
			builder_flow(b, (uint64_t)k, from, to);
	}
	if (orphans && k % 31 == 0)
		builder_pop_orphan(b, th, t + 7, f, 0);
}

static struct trace *
made_odd(int n, bool orphans)
{
	struct builder *b = started();
	for (int k = 0; k < n; k++)
		step_odd(b, k, orphans);
	return builder_finish(b);
}

/* b saved, finished (a copy, as the read of a trace is) and made again:
 * the builder that goes on. NULL when the save does not hold. */
static struct builder *
saved_and_loaded(struct builder *b, struct index_store *store)
{
	struct blob w = { 0 };
	uint64_t mark = builder_save(b, &w);
	struct builder *c = builder_copy(b);
	bool holds = builder_save_holds(c, mark);
	struct trace *t = builder_finish(c);
	struct builder *nb = NULL;
	if (holds) {
		struct blob_in in;
		blob_in_init(&in, w.data, w.len);
		nb = builder_load(&in, t, "snap", store, store != NULL);
		assert_non_null(nb);
		assert_false(in.bad);
		assert_ptr_equal(in.p, in.end);
	}
	trace_free(t);
	blob_free(&w);
	return nb;
}

static void
test_saved_builder(void **state)
{
	(void)state;
	static const int cuts[] = { 0, 1, 37, 200, 399 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		struct builder *b = started();
		for (int k = 0; k < cuts[i]; k++)
			step_odd(b, k, false);
		struct builder *nb = saved_and_loaded(b, NULL);
		builder_free(b);
		assert_non_null(nb);
		/* saved again at once: the same bytes */
		for (int k = cuts[i]; k < STEPS; k++)
			step_odd(nb, k, false);
		struct trace *got = builder_finish(nb);
		struct trace *want = made_odd(STEPS, false);
		same_trace(got, want);
		for (uint32_t t = 0; t < got->ntracks; t++)
			for (uint32_t d = 0; d < got->tracks[t].ndepth; d++) {
				const struct depth_level *x =
				    &got->tracks[t].depth[d];
				const struct depth_level *y =
				    &want->tracks[t].depth[d];
				assert_int_equal(x->nlongs, y->nlongs);
				assert_int_equal(x->weights != NULL,
				    y->weights != NULL);
				if (x->weights != NULL)
					assert_memory_equal(x->weights,
					    y->weights, x->len *
					    sizeof *x->weights);
			}
		assert_int_equal(got->nflows, want->nflows);
		assert_memory_equal(got->flows, want->flows, got->nflows *
		    sizeof *got->flows);
		trace_free(got);
		trace_free(want);
	}
	/* ends without a begin after the save shift a track's depths: the
	 * model no longer begins with what was saved */
	struct builder *b = started();
	for (int k = 0; k < 100; k++)
		step_odd(b, k, true);
	struct blob w = { 0 };
	uint64_t mark = builder_save(b, &w);
	assert_true(builder_save_holds(b, mark));
	step_odd(b, 124, true);
	assert_false(builder_save_holds(b, mark));
	blob_free(&w);
	builder_free(b);
}

/* A large builder in a file saved and made again in another file. */
static void
test_saved_stored(void **state)
{
	(void)state;
	struct index_store *store, *store2;
	FILE *fp, *fp2;
	struct builder *b = started_stored(&store, &fp);
	int k = 0;
	for (; k < 150000; k++)
		step_big(b, k);
	fp2 = tmpfile();
	assert_non_null(fp2);
	store2 = index_store_new(fileno(fp2));
	struct builder *nb = saved_and_loaded(b, store2);
	builder_free(b);
	index_store_free(store);
	fclose(fp);
	assert_non_null(nb);
	for (; k < 250000; k++)
		step_big(nb, k);
	struct trace *got = builder_finish(nb);
	assert_true(depth_mapped(got, 0, 1));
	struct trace *want = made_big(250000);
	same_trace(got, want);
	trace_free(want);
	trace_free(got);
	fclose(fp2);
}

/* A save cut short anywhere, or with a byte changed, is refused or
 * makes a builder that finishes: never a read out of bounds. */
static void
test_saved_damaged(void **state)
{
	(void)state;
	struct builder *b = started();
	for (int k = 0; k < 120; k++)
		step_odd(b, k, false);
	struct blob w = { 0 };
	(void)builder_save(b, &w);
	struct trace *t = builder_snapshot(b);
	builder_free(b);
	for (size_t n = 0; n < w.len; n++) {
		struct blob_in in;
		blob_in_init(&in, w.data, n);
		struct builder *nb = builder_load(&in, t, "cut", NULL, false);
		assert_null(nb);
		assert_true(in.bad);
	}
	unsigned char *d = malloc(w.len);
	assert_non_null(d);
	for (size_t i = 0; i < w.len; i++) {
		memcpy(d, w.data, w.len);
		d[i] ^= (unsigned char)(0x5a + i % 7);
		struct blob_in in;
		blob_in_init(&in, d, w.len);
		struct builder *nb = builder_load(&in, t, "flipped", NULL,
		    false);
		if (nb != NULL) {
			step_odd(nb, 120, false);
			trace_free(builder_finish(nb));
		}
	}
	free(d);
	trace_free(t);
	blob_free(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_then_go_on),
		cmocka_unit_test(test_open_stack),
		cmocka_unit_test(test_copy_apart),
		cmocka_unit_test(test_stored_snapshots),
		cmocka_unit_test(test_stored_copy_apart),
		cmocka_unit_test(test_saved_builder),
		cmocka_unit_test(test_saved_stored),
		cmocka_unit_test(test_saved_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
