/*
 * Unit tests of the trace model, the builder and the queries. Random
 * traces are built through the builder while the test keeps its own plain
 * list of the calls; every query is then checked against a brute-force
 * answer computed from that list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/resource.h>

#include "builder.h"
#include "escape.h"
#include "export.h"
#include "order.h"
#include "query.h"
#include "timefmt.h"
#include "timeparse.h"
#include "threads.h"
#include "env.h"
#include "xalloc.h"

/* ------------------------------------------------------------ helpers */

struct ref_call {
	uint32_t track, depth;
	ttv_ns start, end;
	func_id func;
	ttv_ns child;		/* sum of direct children's durations */
};

struct ref_trace {
	struct ref_call *calls;
	size_t n, cap;
};

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Builds a random nested trace on ntracks threads with nfuncs functions,
 * recording every call in ref. */
static struct trace *
random_trace(struct ref_trace *ref, uint32_t ntracks, uint32_t nfuncs,
    int events)
{
	struct builder *b = builder_new("random");
	builder_set_format(b, "test", "1", NULL);
	func_id funcs[16];
	for (uint32_t i = 0; i < nfuncs; i++) {
		char name[16];
		snprintf(name, sizeof name, "fn%u", i);
		funcs[i] = builder_func(b, builder_intern_cstr(b, name), 0, i);
	}
	uint32_t proc = builder_process(b, 100);
	memset(ref, 0, sizeof *ref);
	for (uint32_t tr = 0; tr < ntracks; tr++) {
		uint32_t track = builder_track(b, TRACK_THREAD, proc, 1000 + tr);
		size_t open[64], nopen = 0;
		ttv_ns now = 1000 * (tr + 1);
		for (int e = 0; e < events || nopen > 0; e++) {
			now += (ttv_ns)(rng() % 50);
			bool push = e < events && nopen < 64 &&
			    (nopen == 0 || rng() % 2 == 0);
			if (push) {
				func_id f = funcs[rng() % nfuncs];
				builder_push(b, track, now, f);
				if (ref->n == ref->cap) {
					ref->cap = ref->cap ? ref->cap * 2 : 256;
					ref->calls = xreallocarray(ref->calls,
					    ref->cap, sizeof *ref->calls);
				}
				ref->calls[ref->n] = (struct ref_call){ tr,
				    (uint32_t)nopen, now, 0, f, 0 };
				open[nopen++] = ref->n++;
			} else {
				struct ref_call *c = &ref->calls[open[--nopen]];
				c->end = now;
				if (nopen > 0)
					ref->calls[open[nopen - 1]].child +=
					    c->end - c->start;
				assert_true(builder_pop(b, track, now, 0));
			}
		}
	}
	return builder_finish(b);
}

/* --------------------------------------------------------------- tests */

static void
test_builder_nesting(void **state)
{
	struct builder *b = builder_new("t");
	func_id a = builder_func(b, builder_intern_cstr(b, "a"), 0, 1);
	func_id c = builder_func(b, builder_intern_cstr(b, "c"), 0, 2);
	assert_int_equal(a, builder_func(b, builder_intern_cstr(b, "a"), 0, 9));
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 7);
	builder_push(b, tr, 10, a);
	builder_push(b, tr, 20, c);
	builder_args_begin(b);
	builder_arg_u64(b, builder_intern_cstr(b, "arg0"), 42);
	builder_push_args(b, tr, builder_args_end(b));
	assert_int_equal(builder_pop_func(b, tr, 30, c, SLICE_TAIL_EXIT),
	    POP_MATCHED);
	builder_push(b, tr, 40, c);
	builder_push(b, tr, 45, c);
	builder_push(b, tr, 46, a);
	/* An exit closes the nearest frame of its function and the ones
	 * opened after it. */
	builder_push(b, tr, 47, c);
	assert_int_equal(builder_pop_func(b, tr, 50, a, 0), POP_UNWOUND);
	assert_int_equal(builder_pop_func(b, tr, 51, a, 0), POP_UNWOUND);
	assert_int_equal(builder_pop_func(b, tr, 52, a, 0), POP_NOT_FOUND);
	builder_push(b, tr, 60, c);
	builder_track_touch(b, tr, 99);
	struct trace *t = builder_finish(b);

	const struct track *k = &t->tracks[tr];
	assert_int_equal(k->ndepth, 5);
	assert_int_equal(k->nslices, 7);
	assert_int_equal(k->depth[0].len, 2);
	const struct slice *s0 = &k->depth[0].slices[0];
	assert_int_equal(s0->start, 10);
	assert_int_equal(level_dur(&k->depth[0], 0), 41);
	assert_int_equal(s0->flags, 0);
	assert_int_equal(k->depth[3].slices[0].func, a);
	assert_int_equal(level_dur(&k->depth[3], 0), 4);
	assert_int_equal(k->depth[3].slices[0].flags, 0);
	/* the c opened at 60 never ended: it ends at the track's end */
	assert_int_equal(k->depth[0].slices[1].start, 60);
	assert_int_equal(level_dur(&k->depth[0], 1), 39);
	assert_true(k->depth[0].slices[1].flags & SLICE_UNTERMINATED);
	const struct slice *s1 = &k->depth[1].slices[0];
	assert_int_equal(level_dur(&k->depth[1], 0), 10);
	assert_true(s1->flags & SLICE_TAIL_EXIT);
	assert_true(s1->flags & SLICE_HAS_ARGS);
	assert_true(k->depth[1].slices[1].flags & SLICE_UNWOUND);
	assert_true(k->depth[2].slices[0].flags & SLICE_UNWOUND);
	assert_true(k->depth[4].slices[0].flags & SLICE_UNWOUND);

	size_t n;
	const struct arg *args = trace_slice_args(t,
	    (struct slice_ref){ tr, 1, 0 }, &n);
	assert_int_equal(n, 1);
	assert_string_equal(trace_str(t, args[0].name), "arg0");
	assert_int_equal(args[0].v.u, 42);
	trace_slice_args(t, (struct slice_ref){ tr, 1, 1 }, &n);
	assert_int_equal(n, 0);
	assert_int_equal(t->first, 10);
	assert_int_equal(t->last, 99);
	trace_free(t);
}

static void
test_builder_orphans(void **state)
{
	/* A log that starts inside two frames: exits with no entry. */
	struct builder *b = builder_new("t");
	func_id f[3];
	for (int i = 0; i < 3; i++) {
		char nm[2] = { (char)('x' + i), 0 };
		f[i] = builder_func(b, builder_intern_cstr(b, nm), 0, i);
	}
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_push(b, tr, 100, f[0]);
	builder_pop(b, tr, 110, 0);
	assert_int_equal(builder_pop_func(b, tr, 120, f[1], 0), POP_NOT_FOUND);
	builder_pop_orphan(b, tr, 120, f[1], 0);
	builder_push(b, tr, 125, f[0]);
	builder_pop(b, tr, 126, 0);
	builder_pop_orphan(b, tr, 130, f[2], 0);
	struct trace *t = builder_finish(b);
	const struct track *k = &t->tracks[tr];
	assert_int_equal(k->ndepth, 3);
	/* z encloses everything, y the first call, x is at the bottom */
	assert_int_equal(k->depth[0].slices[0].func, f[2]);
	assert_int_equal(k->depth[0].slices[0].start, 100);
	assert_int_equal(level_dur(&k->depth[0], 0), 30);
	assert_true(k->depth[0].slices[0].flags & SLICE_NO_ENTRY);
	assert_int_equal(k->depth[1].len, 2);
	assert_int_equal(k->depth[1].slices[0].func, f[1]);
	assert_int_equal(k->depth[1].slices[1].func, f[0]);
	assert_int_equal(k->depth[2].slices[0].func, f[0]);
	/* inexact slices stay out of the statistics */
	struct stats_table st;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.rows[0].func, f[0]);
	assert_int_equal(st.rows[0].count, 2);
	stats_free(&st);
	trace_free(t);
}

static void
test_damage_bounds(void **state)
{
	/* Ends without begins re-parent the track only so many times. */
	struct builder *b = builder_new("t");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	func_id g = builder_func(b, builder_intern_cstr(b, "g"), 0, -1);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	for (int i = 0; i < 200; i++)
		builder_pop_orphan(b, tr, 10 * (i + 1), f, 0);
	/* A deep stack and ends that match nothing: bounded search. */
	uint32_t deep = builder_track(b, TRACK_THREAD, builder_process(b, 1), 2);
	for (int i = 0; i < 20000; i++)
		builder_push(b, deep, i, f);
	for (int i = 0; i < 20000; i++)
		assert_int_equal(builder_pop_func(b, deep, 20000 + i, g, 0),
		    POP_NOT_FOUND);
	struct trace *t = builder_finish(b);
	const struct track *k = &t->tracks[tr];
	assert_int_equal(k->nslices, 200);
	assert_true(k->ndepth <= 65);
	for (uint32_t d = 0; d < k->ndepth; d++)
		for (size_t i = 1; i < k->depth[d].len; i++)
			assert_true(k->depth[d].slices[i].start >=
			    level_end(&k->depth[d], i - 1));
	assert_int_equal(t->tracks[deep].nslices, 20000);
	size_t warnings = 0;
	for (size_t i = 0; i < t->ndiags; i++)
		warnings += strstr(t->diags[i].text, "without a begin") != NULL;
	assert_int_equal(warnings, 1);
	trace_free(t);
}

static void
test_unsorted_whole_slices(void **state)
{
	struct builder *b = builder_new("t");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_args_begin(b);
	builder_arg_i64(b, builder_intern_cstr(b, "k"), -5);
	args_id a = builder_args_end(b);
	builder_slice(b, tr, 0, 300, 10, f, 0, a);
	builder_slice(b, tr, 0, 100, 10, f, 0, 0);
	builder_slice(b, tr, 0, 200, 10, f, 0, 0);
	struct slice_ref r300;
	assert_true(builder_last_slice(b, tr, &r300));
	struct trace *t = builder_finish(b);
	const struct depth_level *l = &t->tracks[tr].depth[0];
	assert_int_equal(l->slices[0].start, 100);
	assert_int_equal(l->slices[1].start, 200);
	assert_int_equal(l->slices[2].start, 300);
	size_t n;
	const struct arg *args = trace_slice_args(t,
	    (struct slice_ref){ tr, 0, 2 }, &n);
	assert_int_equal(n, 1);
	assert_int_equal(args[0].v.i, -5);
	trace_free(t);
}

/* Arrays past 64 KiB move from malloc to mappings of their own and
 * grow, shrink and move there: what they held stays. */
static void
test_big_arrays(void **state)
{
	static const size_t sizes[] = { 16, 4000, ((size_t)1 << 20) - 100,
	    (size_t)3 << 20, ((size_t)5 << 20) + 7, (size_t)2 << 20, 100,
	    (size_t)9 << 20 };
	unsigned char *p = NULL;
	size_t have = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		p = xbig_realloc(p, sizes[k]);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		size_t kept = have < sizes[k] ? have : sizes[k];
		for (size_t i = 0; i < kept; i++)
			if (p[i] != (unsigned char)(i * 7 + i / 4099))
				fail_msg("size %zu: byte %zu lost", sizes[k], i);
		for (size_t i = kept; i < sizes[k]; i++)
			p[i] = (unsigned char)(i * 7 + i / 4099);
		have = sizes[k];
	}
	xbig_free(p);
	xbig_free(NULL);
	void *small = xbig_realloc(NULL, 0);
	xbig_free(small);

	/* blocks given back are reused by an array that grows past its
	 * reservation: what it holds is its own, whatever it reused */
	unsigned char *old = xbig_realloc(NULL, (size_t)6 << 20);
	memset(old, 0xab, (size_t)6 << 20);
	xbig_recycle(old);
	xbig_recycle(NULL);
	p = NULL;
	have = 0;
	for (size_t size = (size_t)1 << 20; size <= ((size_t)40 << 20);
	    size += (size_t)3 << 20) {
		p = xbig_realloc(p, size);
		for (size_t i = have; i < size; i++)
			p[i] = (unsigned char)(i * 7 + i / 4099);
		have = size;
	}
	for (size_t i = 0; i < have; i++)
		if (p[i] != (unsigned char)(i * 7 + i / 4099))
			fail_msg("grown array: byte %zu lost", i);
	xbig_recycle(p);
	xbig_pool_trim();
}

/* Work given out largest first: decreasing weight, ties by index. */
static void
test_order_by_weight(void **state)
{
	(void)state;
	const uint64_t w[] = { 5, 9, 0, 9, UINT64_MAX, 5, 1 };
	const uint32_t want[] = { 4, 1, 3, 0, 5, 6, 2 };
	uint32_t got[7];
	order_by_weight(got, w, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(got[i], want[i]);
	order_by_weight(got, NULL, 0);
}

static long
minor_faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* What a big array gives back is reused with its pages: an array that
 * grows into the blocks of one recycled costs (nearly) no page faults,
 * one that grows into fresh memory costs one a page; the block an array
 * did not fill is not reused (its pages were never all mapped). The
 * bounds leave room for a sanitizer's shadow pages. */
static void
test_big_recycle_faults(void **state)
{
	(void)state;
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer's shadow of a block moved in is fresh memory:
	 * every page of it faults */
	skip();
#endif
#ifdef __linux__
	const size_t step = (size_t)2 << 20, head = 32;
	const long pages = (long)(3 * step / 4096);
	unsigned char *old = xbig_realloc(NULL, 3 * step - head);
	memset(old, 0x5a, 3 * step - head);
	/* three steps filled (its header included), a fourth begun */
	old = xbig_realloc(old, 3 * step + 4096);
	old[3 * step] = 1;
	xbig_recycle(old);
	long before = minor_faults();
	unsigned char *p = xbig_realloc(NULL, step - head);
	memset(p, 1, step - head);
	p = xbig_realloc(p, 3 * step - head);
	memset(p, 2, 3 * step - head);
	long reused = minor_faults() - before;
	before = minor_faults();
	p = xbig_realloc(p, 6 * step - head);
	memset(p + 3 * step - head, 3, 3 * step);
	long fresh = minor_faults() - before;
	if (reused > pages / 4 || fresh < pages / 2)
		fail_msg("%ld pages: %ld faults into recycled blocks, %ld into "
		    "fresh memory", pages, reused, fresh);
	xbig_free(p);
	xbig_pool_trim();
#endif
}

/* A level of a few MB given in order, and one given out of order and
 * sorted: both held in big arrays, trimmed at the end. */
static void
test_builder_big_levels(void **state)
{
	enum { N = 200000 };
	struct builder *b = builder_new("t");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	func_id g = builder_func(b, builder_intern_cstr(b, "g"), 0, -1);
	uint32_t p = builder_process(b, 1);
	uint32_t t1 = builder_track(b, TRACK_THREAD, p, 1);
	uint32_t t2 = builder_track(b, TRACK_THREAD, p, 2);
	for (ttv_ns i = 0; i < N; i++) {
		builder_push(b, t1, 10 * i, f);
		builder_push(b, t1, 10 * i + 1, g);
		builder_pop(b, t1, 10 * i + 2 + i % 3, 0);
		builder_pop(b, t1, 10 * i + 9, 0);
		/* backwards: sorted in builder_finish */
		builder_slice(b, t2, 0, 10 * (N - 1 - i), 5, g, 0, 0);
	}
	struct trace *t = builder_finish(b);
	const struct depth_level *l0 = &t->tracks[t1].depth[0];
	const struct depth_level *l1 = &t->tracks[t1].depth[1];
	const struct depth_level *l2 = &t->tracks[t2].depth[0];
	assert_int_equal(l0->len, N);
	assert_int_equal(l1->len, N);
	assert_int_equal(l2->len, N);
	for (size_t i = 0; i < N; i++) {
		if (l0->slices[i].start != 10 * (ttv_ns)i ||
		    level_dur(l0, i) != 9 || l0->slices[i].func != f)
			fail_msg("depth 0, slice %zu", i);
		if (l1->slices[i].start != 10 * (ttv_ns)i + 1 ||
		    level_dur(l1, i) != 1 + (ttv_ns)(i % 3) ||
		    l1->slices[i].func != g)
			fail_msg("depth 1, slice %zu", i);
		if (l2->slices[i].start != 10 * (ttv_ns)i ||
		    level_dur(l2, i) != 5)
			fail_msg("sorted track, slice %zu", i);
	}
	assert_int_equal(trace_nslices(t), 3 * (size_t)N);
	trace_free(t);
}

/* builder_calls does what the single calls do, whatever the batches:
 * random begins, ends of the right function, of another one (unwinding or
 * nothing), ends with nothing open (orphans) and ends of any function. */
static void
test_builder_calls_batch(void **state)
{
	enum { N = 20000 };
	struct builder_call *c = xmalloc(N * sizeof *c);
	struct builder *one = builder_new("t"), *many = builder_new("t");
	struct builder *bs[2] = { one, many };
	func_id fn[2][5];
	uint32_t tr[2];
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 5; i++) {
			char name[16];
			snprintf(name, sizeof name, "f%d", i);
			fn[k][i] = builder_func(bs[k], builder_intern_cstr(bs[k],
			    name), 0, -1);
		}
		tr[k] = builder_track(bs[k], TRACK_THREAD,
		    builder_process(bs[k], 1), 1);
	}
	unsigned seed = 12345;
	ttv_ns t = 1000;
	for (size_t i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = seed >> 16;
		t += r % 50;
		c[i].t = t;
		c[i].func = fn[1][r % 5];
		c[i].kind = r % 7 < 4 ? BUILDER_CALL_ENTRY : r % 7 < 6 ?
		    BUILDER_CALL_EXIT : BUILDER_CALL_EXIT_ANY;
	}
	for (size_t i = 0; i < N; i++) {
		func_id f = fn[0][c[i].func - fn[1][0]];
		if (c[i].kind == BUILDER_CALL_ENTRY)
			builder_push(one, tr[0], c[i].t, f);
		else if (c[i].kind == BUILDER_CALL_EXIT_ANY)
			builder_pop(one, tr[0], c[i].t, 0);
		else if (builder_pop_func(one, tr[0], c[i].t, f, 0) ==
		    POP_NOT_FOUND && builder_stack_depth(one, tr[0]) == 0)
			builder_pop_orphan(one, tr[0], c[i].t, f, 0);
	}
	for (size_t i = 0, n; i < N; i += n) {
		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 300;
		if (n > N - i)
			n = N - i;
		builder_calls(many, tr[1], c + i, n);
	}
	struct trace *a = builder_finish(one), *b = builder_finish(many);
	const struct track *x = &a->tracks[tr[0]], *y = &b->tracks[tr[1]];
	assert_int_equal(x->ndepth, y->ndepth);
	assert_int_equal(x->first, y->first);
	assert_int_equal(x->last, y->last);
	assert_true(x->ndepth > 3);
	for (uint32_t d = 0; d < x->ndepth; d++) {
		const struct depth_level *l = &x->depth[d], *m = &y->depth[d];
		assert_int_equal(l->len, m->len);
		for (size_t i = 0; i < l->len; i++)
			if (l->slices[i].start != m->slices[i].start ||
			    level_dur(l, i) != level_dur(m, i) ||
			    l->slices[i].func - fn[0][0] !=
			    m->slices[i].func - fn[1][0] ||
			    l->slices[i].flags != m->slices[i].flags)
				fail_msg("depth %u, slice %zu differs", d, i);
	}
	trace_free(a);
	trace_free(b);
	free(c);
}

static void
test_long_durations(void **state)
{
	/* Durations beyond 32 bits of ns live beside the slices. */
	struct builder *b = builder_new("t");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	ttv_ns hour = 3600LL * 1000000000LL;
	builder_slice(b, tr, 0, 5 * hour, 10, f, 0, 0);
	builder_slice(b, tr, 0, 0, 2 * hour, f, 0, 0);	/* out of order */
	builder_slice(b, tr, 0, 3 * hour, (ttv_ns)UINT32_MAX, f, 0, 0);
	builder_push(b, tr, 6 * hour, f);
	builder_pop(b, tr, 9 * hour, 0);
	struct trace *t = builder_finish(b);
	const struct depth_level *l = &t->tracks[tr].depth[0];
	assert_int_equal(l->len, 4);
	assert_int_equal(level_dur(l, 0), 2 * hour);
	assert_int_equal(level_dur(l, 1), (ttv_ns)UINT32_MAX);
	assert_int_equal(level_dur(l, 2), 10);
	assert_int_equal(level_end(l, 3), 9 * hour);
	size_t lo, hi;
	query_window(&t->tracks[tr], 0, hour, hour + 1, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 1);
	struct stats_table st;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
	assert_int_equal(st.rows[0].max, 3 * hour);
	assert_int_equal(st.rows[0].total, 5 * hour + (ttv_ns)UINT32_MAX + 10);
	stats_free(&st);
	trace_free(t);
}

static void
test_window_random(void **state)
{
	struct ref_trace ref;
	struct trace *t = random_trace(&ref, 3, 5, 3000);
	size_t total = 0;
	for (uint32_t i = 0; i < t->ntracks; i++)
		total += t->tracks[i].nslices;
	assert_int_equal(total, ref.n);
	for (int q = 0; q < 200; q++) {
		ttv_ns t0 = (ttv_ns)(rng() % 80000), t1 = t0 + (ttv_ns)(rng() % 5000);
		for (uint32_t tr = 0; tr < t->ntracks; tr++)
			for (uint32_t d = 0; d < t->tracks[tr].ndepth; d++) {
				size_t lo, hi, want = 0;
				query_window(&t->tracks[tr], d, t0, t1, &lo, &hi);
				for (size_t i = 0; i < ref.n; i++) {
					struct ref_call *c = &ref.calls[i];
					if (c->track == tr && c->depth == d &&
					    c->start < t1 && (c->end > t0 ||
					    (c->end == c->start && c->start >= t0)))
						want++;
				}
				assert_int_equal(hi - lo, want);
				const struct depth_level *l = &t->tracks[tr].depth[d];
				for (size_t i = lo; i < hi; i++)
					assert_true(l->slices[i].start < t1);
			}
	}
	free(ref.calls);
	trace_free(t);
}

static void
test_navigation(void **state)
{
	struct ref_trace ref;
	struct trace *t = random_trace(&ref, 1, 4, 2000);
	const struct track *k = &t->tracks[0];
	for (uint32_t d = 1; d < k->ndepth; d++)
		for (size_t i = 0; i < k->depth[d].len; i += 7) {
			struct slice_ref r = { 0, d, (uint32_t)i }, p, c;
			assert_true(query_parent(t, r, &p));
			const struct slice *s = trace_slice(t, r);
			const struct slice *ps = trace_slice(t, p);
			assert_true(ps->start <= s->start);
			assert_true(trace_slice_end(t, p) >= trace_slice_end(t, r));
			assert_true(query_first_child(t, p, &c));
			assert_true(trace_slice(t, c)->start <= s->start);
			struct slice_ref *path;
			size_t n = query_call_path(t, r, &path);
			assert_int_equal(n, d + 1);
			assert_int_equal(path[d].index, i);
			free(path);
		}
	/* self time = duration minus children, as recorded */
	for (size_t i = 0; i < ref.n; i += 11) {
		struct ref_call *c = &ref.calls[i];
		struct slice_ref r;
		assert_true(query_slice_at(t, 0, c->depth, c->start, &r));
		if (trace_slice(t, r)->start != c->start)
			continue;	/* a zero-length neighbour */
		assert_int_equal(query_self_time(t, r),
		    (c->end - c->start) - c->child);
	}
	free(ref.calls);
	trace_free(t);
}

static int
cmp_ns(const void *a, const void *b)
{
	ttv_ns x = *(const ttv_ns *)a, y = *(const ttv_ns *)b;
	return x < y ? -1 : x > y;
}

static void
test_stats_random(void **state)
{
	struct ref_trace ref;
	struct trace *t = random_trace(&ref, 3, 6, 4000);
	struct stats_table st;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
	for (size_t r = 0; r < st.n; r++) {
		const struct func_stats *s = &st.rows[r];
		ttv_ns *d = NULL, total = 0, self = 0;
		size_t n = 0;
		for (size_t i = 0; i < ref.n; i++) {
			if (ref.calls[i].func != s->func)
				continue;
			d = xreallocarray(d, n + 1, sizeof *d);
			d[n++] = ref.calls[i].end - ref.calls[i].start;
			total += d[n - 1];
			self += d[n - 1] - ref.calls[i].child;
		}
		xqsort(d, n, sizeof *d, cmp_ns);
		assert_int_equal(s->count, n);
		assert_int_equal(s->total, total);
		assert_int_equal(s->self, self);
		assert_int_equal(s->min, d[0]);
		assert_int_equal(s->max, d[n - 1]);
		assert_int_equal(s->median, d[n / 2]);
		assert_int_equal(s->p90, d[(size_t)(0.9 * (double)n)]);
		assert_int_equal(s->p99, d[(size_t)(0.99 * (double)n)]);
		assert_int_equal(trace_slice_dur(t, s->longest), s->max);
		free(d);
	}
	stats_sort(t, &st, STATS_TOTAL, true);
	for (size_t r = 1; r < st.n; r++)
		assert_true(st.rows[r - 1].total >= st.rows[r].total);
	stats_free(&st);

	/* thread and function filters */
	struct filter f;
	filter_init(&f);
	int64_t tid = 1001;
	filter_set_threads(&f, t, &tid, 1, false);
	char *err = NULL;
	struct regex *re = regex_compile("^fn[12]$", &err);
	assert_non_null(re);
	filter_set_functions(&f, t, re, false);
	query_stats(t, &f, TTV_NS_MIN, TTV_NS_MAX, &st);
	assert_true(st.n <= 2);
	for (size_t r = 0; r < st.n; r++) {
		size_t n = 0;
		for (size_t i = 0; i < ref.n; i++)
			n += ref.calls[i].func == st.rows[r].func &&
			    ref.calls[i].track == 1;
		assert_int_equal(st.rows[r].count, n);
	}
	stats_free(&st);
	regex_free(re);
	filter_clear(&f);
	free(ref.calls);
	trace_free(t);
}

/* A call for the brute-force statistics of a big trace. */
struct stats_call {
	uint32_t track, depth;
	ttv_ns start, end, child;
	func_id func;
	bool inexact;
};

struct stats_ref {
	struct stats_call *calls;
	size_t n, cap;
};

static struct stats_call *
stats_ref_add(struct stats_ref *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 4096;
		r->calls = xreallocarray(r->calls, r->cap, sizeof *r->calls);
	}
	return &r->calls[r->n++];
}

#define BIG_LEAF 3	/* a leaf of nearly constant duration */

/* A trace big enough for query_stats to share its passes between threads:
 * a few functions called very often (histograms) and many called rarely
 * (copied durations); durations from 0 to beyond 2^32 ns, many equal, a
 * function whose values crowd into one bucket beside far outliers, and
 * some slices flagged unterminated (left out of the statistics). */
static struct trace *
big_stats_trace(struct stats_ref *ref, uint32_t ntracks, size_t per_track,
    uint32_t nfuncs)
{
	struct builder *b = builder_new("big");
	builder_set_format(b, "test", "1", NULL);
	func_id *funcs = xreallocarray(NULL, nfuncs, sizeof *funcs);
	for (uint32_t i = 0; i < nfuncs; i++) {
		char name[16];
		snprintf(name, sizeof name, "s%u", i);
		funcs[i] = builder_func(b, builder_intern_cstr(b, name), 0, i);
	}
	uint32_t proc = builder_process(b, 100);
	memset(ref, 0, sizeof *ref);
	for (uint32_t tr = 0; tr < ntracks; tr++) {
		uint32_t track = builder_track(b, TRACK_THREAD, proc, 1000 + tr);
		size_t open[64], nopen = 0, made = 0;
		ttv_ns now = 1000 * (ttv_ns)(tr + 1);
		while (made < per_track || nopen > 0) {
			uint64_t r = rng() % 1000;
			if (r >= 300)
				now += (ttv_ns)(rng() % 40);
			if (r == 999 && rng() % 64 == 0)
				now += ((ttv_ns)1 << 32) + (ttv_ns)(rng() % 5000);
			bool push = made < per_track && nopen < 64 &&
			    (nopen == 0 || rng() % 2 == 0);
			if (!push) {
				struct stats_call *c = &ref->calls[open[--nopen]];
				bool inexact = rng() % 1000 == 0;
				c->end = now;
				c->inexact = inexact;
				if (nopen > 0)
					ref->calls[open[nopen - 1]].child +=
					    c->end - c->start;
				assert_true(builder_pop(b, track, now,
				    inexact ? SLICE_UNTERMINATED : 0));
				continue;
			}
			uint32_t fi = rng() % 4 == 0 ?
			    (uint32_t)(rng() % nfuncs) : (uint32_t)(rng() % 4);
			struct stats_call *c = stats_ref_add(ref);
			*c = (struct stats_call){ tr, (uint32_t)nopen, now, 0, 0,
			    funcs[fi], false };
			made++;
			builder_push(b, track, now, funcs[fi]);
			if (fi != BIG_LEAF) {
				open[nopen++] = ref->n - 1;
				continue;
			}
			ttv_ns d = 100000 + (ttv_ns)(rng() % 3);
			if (rng() % 5000 == 0)
				d = rng() % 2 ? 1 : ((ttv_ns)1 << 33);
			now += d;
			c->end = now;
			if (nopen > 0)
				ref->calls[open[nopen - 1]].child += d;
			assert_true(builder_pop(b, track, now, 0));
		}
	}
	free(funcs);
	return builder_finish(b);
}

/* The part of call i inside [t0, t1), and that of its children (*child):
 * the range rule of query_calls.h. */
static ttv_ns
ref_clip(const struct stats_ref *ref, size_t i, ttv_ns t0, ttv_ns t1,
    ttv_ns *child)
{
	const struct stats_call *c = &ref->calls[i];
	ttv_ns a = c->start > t0 ? c->start : t0;
	ttv_ns b = c->end < t1 ? c->end : t1;
	if (c->start >= t0 && c->end <= t1) {
		*child = c->child;
		return c->end - c->start;
	}
	/* calls are in pre-order: the children follow, one level down */
	*child = 0;
	for (size_t j = i + 1; j < ref->n && ref->calls[j].track == c->track &&
	    ref->calls[j].depth > c->depth; j++) {
		const struct stats_call *k = &ref->calls[j];
		if (k->depth != c->depth + 1)
			continue;
		ttv_ns ka = k->start > t0 ? k->start : t0;
		ttv_ns kb = k->end < t1 ? k->end : t1;
		*child += kb > ka ? kb - ka : 0;
	}
	return b > a ? b - a : 0;
}

/* Checks query_stats against the calls: those on tracks in `tracks` (NULL:
 * all) of functions in `funcs` (NULL: all) overlapping [t0, t1), their
 * times clipped to it. */
static void
check_stats(const struct trace *t, const struct filter *f,
    const struct stats_ref *ref, const uint8_t *tracks, const uint8_t *funcs,
    ttv_ns t0, ttv_ns t1)
{
	struct stats_table st;
	query_stats(t, f, t0, t1, &st);
	/* The durations of each function, by counting sort. */
	size_t *start = xcalloc(t->nfuncs + 1, sizeof *start);
	uint32_t *index = xcalloc(ref->n, sizeof *index);
	uint32_t next[8][64] = { { 0 } };
	bool *in = xcalloc(ref->n, sizeof *in);
	for (size_t i = 0; i < ref->n; i++) {
		const struct stats_call *c = &ref->calls[i];
		assert_true(c->track < 8);
		index[i] = next[c->track][c->depth]++;
		in[i] = !c->inexact && c->start < t1 && (c->end > t0 ||
		    (c->end == c->start && c->start >= t0)) &&
		    (tracks == NULL || tracks[c->track]) &&
		    (funcs == NULL || funcs[c->func]);
		if (in[i])
			start[c->func + 1]++;
	}
	for (uint32_t fn = 0; fn < t->nfuncs; fn++)
		start[fn + 1] += start[fn];
	ttv_ns *durs = xreallocarray(NULL, ref->n + 1, sizeof *durs);
	size_t *fill = xreallocarray(NULL, t->nfuncs, sizeof *fill);
	memcpy(fill, start, t->nfuncs * sizeof *fill);
	ttv_ns child;
	for (size_t i = 0; i < ref->n; i++)
		if (in[i])
			durs[fill[ref->calls[i].func]++] =
			    ref_clip(ref, i, t0, t1, &child);

	/* Totals, self times and the longest call: the first in (track,
	 * depth, index) order among equal maxima. */
	ttv_ns *total = xcalloc(t->nfuncs, sizeof *total);
	ttv_ns *self = xcalloc(t->nfuncs, sizeof *self);
	ttv_ns *max = xcalloc(t->nfuncs, sizeof *max);
	size_t *first = xreallocarray(NULL, t->nfuncs, sizeof *first);
	for (uint32_t fn = 0; fn < t->nfuncs; fn++)
		first[fn] = SIZE_MAX;
	for (size_t i = 0; i < ref->n; i++) {
		const struct stats_call *c = &ref->calls[i];
		if (!in[i])
			continue;
		ttv_ns d = ref_clip(ref, i, t0, t1, &child);
		total[c->func] += d;
		self[c->func] += d > child ? d - child : 0;
		size_t *b = &first[c->func];
		if (*b == SIZE_MAX || d > max[c->func] || (d == max[c->func] &&
		    (c->track < ref->calls[*b].track ||
		    (c->track == ref->calls[*b].track &&
		    c->depth < ref->calls[*b].depth)))) {
			max[c->func] = d;
			*b = i;
		}
	}

	size_t nrows = 0;
	for (uint32_t fn = 0; fn < t->nfuncs; fn++)
		nrows += start[fn + 1] > start[fn];
	assert_int_equal(st.n, nrows);
	for (size_t r = 0; r < st.n; r++) {
		const struct func_stats *s = &st.rows[r];
		ttv_ns *d = durs + start[s->func];
		size_t n = start[s->func + 1] - start[s->func];
		assert_true(n > 0);
		xqsort(d, n, sizeof *d, cmp_ns);
		const struct stats_call *lc = &ref->calls[first[s->func]];
		assert_int_equal(s->count, n);
		assert_int_equal(s->weight, n);
		assert_int_equal(s->total, total[s->func]);
		assert_int_equal(s->self, self[s->func]);
		assert_int_equal(s->min, d[0]);
		assert_int_equal(s->max, d[n - 1]);
		assert_int_equal(s->median, d[n / 2]);
		assert_int_equal(s->p90, d[(size_t)(0.9 * (double)n)]);
		assert_int_equal(s->p99, d[(size_t)(0.99 * (double)n)]);
		assert_int_equal(s->longest.track, lc->track);
		assert_int_equal(s->longest.depth, lc->depth);
		assert_int_equal(s->longest.index, index[first[s->func]]);
	}
	stats_free(&st);
	free(total);
	free(self);
	free(max);
	free(first);
	free(start);
	free(index);
	free(in);
	free(durs);
	free(fill);
}

/* Big enough for the threaded passes (more than 2^20 slices): the table
 * must be the brute-force one, whole, in a window, and filtered. */
static void
test_stats_big(void **state)
{
	struct stats_ref ref;
	struct trace *t = big_stats_trace(&ref, 5, 280000, 2000);
	assert_int_equal(trace_nslices(t), ref.n);
	/* The trace has what the test is about. */
	bool has_long = false, has_inexact = false;
	for (size_t i = 0; i < ref.n; i++) {
		has_long |= ref.calls[i].end - ref.calls[i].start > UINT32_MAX;
		has_inexact |= ref.calls[i].inexact;
	}
	assert_true(has_long);
	assert_true(has_inexact);

	check_stats(t, NULL, &ref, NULL, NULL, TTV_NS_MIN, TTV_NS_MAX);
	ttv_ns span = t->last - t->first;
	check_stats(t, NULL, &ref, NULL, NULL, t->first + span / 20,
	    t->last - span / 50);

	/* Four threads of five, functions s1, s3 and s1xxx. */
	struct filter f;
	filter_init(&f);
	int64_t tids[] = { 1000, 1002, 1003, 1004 };
	filter_set_threads(&f, t, tids, 4, false);
	char *err = NULL;
	struct regex *re = regex_compile("^s(1|3|1...)$", &err);
	assert_non_null(re);
	filter_set_functions(&f, t, re, false);
	uint8_t tracks[5] = { 1, 0, 1, 1, 1 };
	check_stats(t, &f, &ref, tracks, f.func_on, TTV_NS_MIN, TTV_NS_MAX);
	regex_free(re);
	filter_clear(&f);
	free(ref.calls);
	trace_free(t);
}

/* Functions whose durations are all equal (one histogram bucket), short
 * and beyond 2^32 ns, beside one with few calls (copied durations). */
static void
test_stats_equal(void **state)
{
	struct builder *b = builder_new("t");
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id same = builder_func(b, builder_intern_cstr(b, "same"), 0, -1);
	func_id lng = builder_func(b, builder_intern_cstr(b, "long"), 0, -1);
	func_id few = builder_func(b, builder_intern_cstr(b, "few"), 0, -1);
	ttv_ns big = ((ttv_ns)1 << 33) + 5, now = 0;
	for (int i = 0; i < 100; i++, now += big + 10)
		builder_slice(b, tr, 0, now, i % 2 ? 7 : big, i % 2 ? same :
		    lng, 0, 0);
	ttv_ns split = now;
	ttv_ns fews[] = { 3, 3, 1000000, 3 };
	for (int i = 0; i < 4; i++, now += 2000000)
		builder_slice(b, tr, 0, now, fews[i], few, 0, 0);
	struct trace *t = builder_finish(b);
	struct stats_table st;
	/* Without "few", then with it. */
	for (int pass = 0; pass < 2; pass++) {
		query_stats(t, NULL, TTV_NS_MIN, pass ? TTV_NS_MAX : split,
		    &st);
		assert_int_equal(st.n, pass ? 3 : 2);
		for (size_t r = 0; r < st.n; r++) {
			const struct func_stats *s = &st.rows[r];
			bool f4 = s->func == few;
			ttv_ns v = s->func == same ? 7 : s->func == lng ? big : 3;
			assert_int_equal(s->count, f4 ? 4 : 50);
			assert_int_equal(s->min, v);
			assert_int_equal(s->median, v);
			assert_int_equal(s->p90, f4 ? 1000000 : v);
			assert_int_equal(s->p99, f4 ? 1000000 : v);
			assert_int_equal(s->max, f4 ? 1000000 : v);
			/* The first of equal maxima. */
			assert_int_equal(s->longest.index, s->func == same ? 1 :
			    s->func == lng ? 0 : 102);
		}
		if (pass == 0)
			stats_free(&st);
	}
	stats_free(&st);
	trace_free(t);
}

/* Durations up to nearly 2^63 ns: the top histogram buckets reach the
 * end of the time type. */
static void
test_stats_extreme(void **state)
{
	struct builder *b = builder_new("t");
	func_id fn = builder_func(b, builder_intern_cstr(b, "f"), 0, -1);
	uint32_t proc = builder_process(b, 1);
	ttv_ns *d = xreallocarray(NULL, 8000, sizeof *d);
	size_t n = 0;
	for (int i = 0; i < 2000; i++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, i);
		for (int k = 0; k < 3; k++) {
			d[n] = 1 + (ttv_ns)(rng() % 100);
			builder_slice(b, tr, 0, 200 * k, d[n++], fn, 0, 0);
		}
		d[n] = TTV_NS_MAX - 1000 - (ttv_ns)(rng() % ((uint64_t)1 << 59));
		builder_slice(b, tr, 0, 1000, d[n++], fn, 0, 0);
	}
	struct trace *t = builder_finish(b);
	struct stats_table st;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
	xqsort(d, n, sizeof *d, cmp_ns);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.rows[0].count, n);
	assert_int_equal(st.rows[0].min, d[0]);
	assert_int_equal(st.rows[0].median, d[n / 2]);
	assert_int_equal(st.rows[0].p90, d[(size_t)(0.9 * (double)n)]);
	assert_int_equal(st.rows[0].p99, d[(size_t)(0.99 * (double)n)]);
	assert_int_equal(st.rows[0].max, d[n - 1]);
	stats_free(&st);
	free(d);
	trace_free(t);
}

static void
test_call_tree(void **state)
{
	struct ref_trace ref;
	struct trace *t = random_trace(&ref, 2, 4, 3000);
	struct call_tree ct;
	query_call_tree(t, NULL, TTV_NS_MIN, TTV_NS_MAX, false, &ct);
	/* the root holds the time of all depth-0 calls */
	ttv_ns top = 0, all_self = 0;
	for (size_t i = 0; i < ref.n; i++) {
		if (ref.calls[i].depth == 0)
			top += ref.calls[i].end - ref.calls[i].start;
		all_self += ref.calls[i].end - ref.calls[i].start -
		    ref.calls[i].child;
	}
	assert_int_equal(ct.nodes[0].total, top);
	ttv_ns self = 0;
	uint64_t count = 0;
	for (size_t i = 1; i < ct.n; i++) {
		self += ct.nodes[i].self;
		count += ct.nodes[i].count;
		/* children are sorted by total, largest first */
		uint32_t c = ct.nodes[i].first_child;
		while (c != CALL_NONE && ct.nodes[c].next_sibling != CALL_NONE) {
			assert_true(ct.nodes[c].total >=
			    ct.nodes[ct.nodes[c].next_sibling].total);
			c = ct.nodes[c].next_sibling;
		}
	}
	assert_int_equal(self, all_self);
	assert_int_equal(count, ref.n);
	call_tree_free(&ct);

	/* per thread: one node per thread under the root */
	query_call_tree(t, NULL, TTV_NS_MIN, TTV_NS_MAX, true, &ct);
	int threads = 0;
	for (uint32_t c = ct.nodes[0].first_child; c != CALL_NONE;
	    c = ct.nodes[c].next_sibling) {
		assert_int_equal(ct.nodes[c].func, CALL_NONE);
		threads++;
	}
	assert_int_equal(threads, 2);
	assert_int_equal(ct.nodes[0].total, top);
	call_tree_free(&ct);

	/* a window clips times */
	ttv_ns t0 = t->first + (t->last - t->first) / 3;
	ttv_ns t1 = t0 + (t->last - t->first) / 5;
	query_call_tree(t, NULL, t0, t1, false, &ct);
	ttv_ns want = 0;
	for (size_t i = 0; i < ref.n; i++) {
		if (ref.calls[i].depth != 0)
			continue;
		ttv_ns a = ref.calls[i].start > t0 ? ref.calls[i].start : t0;
		ttv_ns e = ref.calls[i].end < t1 ? ref.calls[i].end : t1;
		if (e > a)
			want += e - a;
	}
	assert_int_equal(ct.nodes[0].total, want);
	call_tree_free(&ct);

	/* focus: only stacks through fn2; the root gets fn2's outermost time */
	struct filter f;
	filter_init(&f);
	char *err;
	struct regex *re = regex_compile("^fn2$", &err);
	filter_set_functions(&f, t, re, false);
	query_call_tree(t, &f, TTV_NS_MIN, TTV_NS_MAX, false, &ct);
	want = 0;
	for (size_t i = 0; i < ref.n; i++) {
		if (ref.calls[i].func != ct.nodes[0].func &&
		    strcmp(trace_func_name(t, ref.calls[i].func), "fn2") == 0) {
			/* count only outermost fn2 frames */
			bool inner = false;
			for (size_t j = 0; j < ref.n; j++)
				if (j != i && ref.calls[j].track ==
				    ref.calls[i].track && ref.calls[j].depth <
				    ref.calls[i].depth && ref.calls[j].start <=
				    ref.calls[i].start && ref.calls[j].end >=
				    ref.calls[i].end && strcmp(trace_func_name(t,
				    ref.calls[j].func), "fn2") == 0)
					inner = true;
			if (!inner)
				want += ref.calls[i].end - ref.calls[i].start;
		}
	}
	assert_int_equal(ct.nodes[0].total, want);
	call_tree_free(&ct);
	regex_free(re);
	filter_clear(&f);
	free(ref.calls);
	trace_free(t);
}

static void
test_markers(void **state)
{
	struct builder *b = builder_new("t");
	uint32_t p = builder_process(b, 1);
	uint32_t t1 = builder_track(b, TRACK_THREAD, p, 1);
	uint32_t t2 = builder_track(b, TRACK_THREAD, p, 2);
	builder_marker(b, MARKER_TSC_WRAP, t1, 50, 0, 0);
	builder_marker(b, MARKER_BUFFER_START, t1, 10, 0, 0);
	builder_marker(b, MARKER_BUFFER_START, t2, 30, 0, 0);
	builder_marker(b, MARKER_CPU_CHANGE, t2, 30, 3, 0);
	struct trace *t = builder_finish(b);
	assert_int_equal(t->markers[0].t, 10);
	assert_int_equal(query_marker_next(t, NULL, 10, -1), 1);
	assert_int_equal(t->markers[query_marker_next(t, NULL, 0,
	    MARKER_TSC_WRAP)].t, 50);
	assert_int_equal(query_marker_next(t, NULL, 50, -1), -1);
	assert_int_equal(query_marker_prev(t, NULL, 30, -1), 0);
	assert_int_equal(t->markers[query_marker_prev(t, NULL, 100,
	    MARKER_BUFFER_START)].t, 30);
	struct filter f;
	filter_init(&f);
	int64_t tid = 1;
	filter_set_threads(&f, t, &tid, 1, false);
	assert_int_equal(t->markers[query_marker_prev(t, &f, 100,
	    MARKER_BUFFER_START)].t, 10);
	filter_set_threads(&f, t, &tid, 1, true);
	assert_int_equal(query_marker_next(t, &f, 30, -1), -1);
	filter_clear(&f);
	assert_string_equal(marker_kind_name(MARKER_TSC_WRAP), "tsc-wrap");
	assert_int_equal(marker_kind_parse("cpu-change"), MARKER_CPU_CHANGE);
	trace_free(t);
}

static void
test_search_and_regex(void **state)
{
	struct ref_trace ref;
	struct trace *t = random_trace(&ref, 2, 5, 1000);
	char *err = NULL;
	assert_null(regex_compile("fn(", &err));
	assert_non_null(strstr(err, "column 4"));
	free(err);
	struct regex *re = regex_compile("fn[03]", &err);
	uint8_t *m = regex_match_funcs(t, re);
	struct search_hit *hits;
	size_t n, want = 0;
	query_search(t, NULL, m, &hits, &n);
	for (size_t i = 0; i < ref.n; i++) {
		const char *name = trace_func_name(t, ref.calls[i].func);
		want += strcmp(name, "fn0") == 0 || strcmp(name, "fn3") == 0;
	}
	assert_int_equal(n, want);
	for (size_t i = 1; i < n; i++)
		assert_true(hits[i - 1].t <= hits[i].t);
	free(hits);
	free(m);
	regex_free(re);
	free(ref.calls);
	trace_free(t);
}

/* The search the viewer's / and --search share: names, categories,
 * string args and logs, where each hit matched, smart case, filters. */
static void
test_search_all(void **state)
{
	struct builder *b = builder_new("t");
	uint32_t p = builder_process(b, 1);
	uint32_t t1 = builder_track(b, TRACK_THREAD, p, 1);
	uint32_t t2 = builder_track(b, TRACK_THREAD, p, 2);
	func_id parse = builder_func(b, builder_intern_cstr(b, "Parse"), 0, -1);
	func_id draw = builder_func(b, builder_intern_cstr(b, "draw"), 0, -1);
	func_id tick = builder_func(b, builder_intern_cstr(b, "tick"), 0, -1);
	builder_slice(b, t1, 0, 100, 50, parse, 0, 0);
	builder_args_begin(b);
	builder_arg_str(b, builder_intern_cstr(b, "file"),
	    builder_intern_cstr(b, "parser.c"));
	builder_slice(b, t1, 0, 200, 50, draw, 0, builder_args_end(b));
	builder_instant(b, t2, 150, tick, 0);
	builder_log(b, t2, 120, builder_intern_cstr(b, "parse failed"));
	builder_log(b, t1, 300, builder_intern_cstr(b, "all good"));
	struct trace *t = builder_finish(b);
	char *err = NULL, buf[64];
	struct search_result res;

	/* Lower case ignores case: Parse by name, draw by its arg. */
	assert_true(regex_smart_caseless("pars"));
	assert_false(regex_smart_caseless("Pars"));
	assert_true(regex_smart_caseless("\\Spars"));
	struct regex *re = regex_compile_search("pars", &err);
	struct search_match m;
	assert_int_equal(query_search_match(t, re, &m), 0);
	query_search_all(t, NULL, &m, &res);
	assert_int_equal(res.nhits, 2);
	assert_int_equal(res.hits[0].t, 100);
	assert_string_equal(query_search_where(t, &m, &res.hits[0], buf,
	    sizeof buf), "name");
	assert_int_equal(res.hits[1].t, 200);
	assert_string_equal(query_search_where(t, &m, &res.hits[1], buf,
	    sizeof buf), "arg file");
	assert_int_equal(res.nlog_matches, 1);
	assert_true(res.log_match[0]);
	struct search_row *rows;
	assert_int_equal(query_search_rows(t, res.hits, res.nhits, &rows), 2);
	assert_int_equal(rows[0].total, 50);
	free(rows);
	search_result_free(&res);
	/* Thread 2 only: no call of it matches, its log does. */
	struct filter f;
	filter_init(&f);
	int64_t tid = 2;
	filter_set_threads(&f, t, &tid, 1, false);
	query_search_all(t, &f, &m, &res);
	assert_int_equal(res.nhits, 0);
	assert_int_equal(res.nlog_matches, 1);
	search_result_free(&res);
	filter_clear(&f);
	search_match_free(&m);
	regex_free(re);
	/* The function filter sees categories as the viewer's does: draw's
	 * category is "gfx". */
	{
		struct builder *b2 = builder_new("c");
		uint32_t tr2 = builder_track(b2, TRACK_THREAD,
		    builder_process(b2, 1), 1);
		func_id fa = builder_func(b2, builder_intern_cstr(b2, "a"), 0,
		    -1);
		func_id fd = builder_func(b2, builder_intern_cstr(b2, "draw"),
		    builder_intern_cstr(b2, "gfx"), -1);
		builder_slice(b2, tr2, 0, 0, 10, fa, 0, 0);
		builder_slice(b2, tr2, 0, 20, 10, fd, 0, 0);
		struct trace *tc = builder_finish(b2);
		struct regex *gfx = regex_compile("^gfx$", &err);
		struct filter ff;
		filter_init(&ff);
		filter_set_functions(&ff, tc, gfx, false);
		assert_false(filter_func(&ff, fa));
		assert_true(filter_func(&ff, fd));
		filter_set_functions(&ff, tc, gfx, true);
		assert_true(filter_func(&ff, fa));
		assert_false(filter_func(&ff, fd));
		filter_clear(&ff);
		regex_free(gfx);
		trace_free(tc);
	}
	/* An upper-case letter makes it exact. */
	re = regex_compile_search("PARSE", &err);
	assert_int_equal(query_search_match(t, re, &m), 0);
	query_search_all(t, NULL, &m, &res);
	assert_int_equal(res.nhits + res.nlog_matches, 0);
	search_result_free(&res);
	search_match_free(&m);
	regex_free(re);
	/* The markers list: time order, the filter's tracks. */
	size_t *mrows;
	assert_int_equal(query_markers(t, NULL, &mrows), 0);
	free(mrows);
	trace_free(t);
}


/* n functions named A letters a, "!" and a number, each called once, and
 * as many log records "log!N" and instants with an arg text=A a's + "?N":
 * (a+)+$ backtracks 2^(A+1) steps on each name and arg. */
static struct trace *
regex_trace(int n, int a)
{
	struct builder *b = builder_new("r");
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id tick = builder_func(b, builder_intern_cstr(b, "tick"), 0, -1);
	char name[128];

	for (int i = 0; i < n; i++) {
		memset(name, 'a', (size_t)a);
		snprintf(name + a, sizeof name - (size_t)a, "!%d", i);
		func_id f = builder_func(b, builder_intern_cstr(b, name), 0, -1);
		builder_slice(b, tr, 0, 10 * i, 5, f, 0, 0);
		snprintf(name + a, sizeof name - (size_t)a, "?%d", i);
		builder_args_begin(b);
		builder_arg_str(b, builder_intern_cstr(b, "text"),
		    builder_intern_cstr(b, name));
		builder_instant(b, tr, 10 * i + 6, tick, builder_args_end(b));
		snprintf(name, sizeof name, "log!%d", i);
		builder_log(b, tr, 10 * i + 7, builder_intern_cstr(b, name));
	}
	return builder_finish(b);
}

/* The regex budget: a limit hit is an error that says which and where,
 * never a "no"; the match limit of one string is the budget shared among
 * the strings; the clock, a stop flag and the quick try end the work;
 * a filter or a search that cannot be decided is not applied. */
static void
test_regex_budget(void **state)
{
	struct trace *t = regex_trace(10, 25);
	struct regex_budget b;
	char *err = NULL;
	struct regex *re = regex_compile("(a+)+$", &err);

	(void)state;
	assert_true(regex_jit(re));
	/* One string, PCRE2's default limit of 10^7 steps: 2^26 is more. */
	assert_int_equal(regex_match(re, "aaaa!", 5), 0);
	assert_int_equal(regex_match(re, "aaaa", 4), 1);
	assert_int_equal(regex_match(re, trace_func_name(t, 1), 27), -1);
	assert_non_null(strstr(regex_error(re), "match limit of 10000000 "
	    "steps hit"));

	/* 11 names (tick, first, and 10 others): 10^8 steps shared. */
	regex_budget_default(&b);
	b.steps = 100000000;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_string_equal(regex_error(re), "regex '(a+)+$' too costly: "
	    "match limit of 9090909 steps hit on string 2 of 11 (the budget "
	    "of 100000000 steps shared among them)");
	/* 2 * 10^6 steps: 181,818 each, not enough for 12 letters a
	 * (2^13 steps) on 11 names: then they all match or not. */
	b.steps = 2000000;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "match limit of 181818 "));
	trace_free(t);
	t = regex_trace(10, 12);
	uint8_t *m = regex_match_funcs(t, re);
	assert_non_null(m);
	for (uint32_t f = 0; f < t->nfuncs; f++)
		assert_false(m[f]);
	free(m);
	/* The floor: however many strings, 10^4 steps each, enough for
	 * 12 letters a... */
	b.steps = 1;
	regex_set_budget(re, &b);
	m = regex_match_funcs(t, re);
	assert_non_null(m);
	free(m);
	/* ... but not for a quick try, which gives up sooner. */
	b.quick = true;
	b.steps = 11;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "match limit of 1 steps"));
	/* A quick try does not even start on more bytes than it may. */
	b.steps = REGEX_STEPS;
	b.max_bytes = 100;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "bytes to match, more than "
	    "100"));
	b.max_bytes = 0;
	b.max_len = 10;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "more than 10"));

	/* The clock and the stop flag, read between strings. */
	regex_budget_default(&b);
	b.seconds = 1e-9;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "too costly: stopped after "));
	assert_non_null(strstr(regex_error(re), " s of work"));
	assert_non_null(strstr(regex_error(re), ", at string 1 of 11"));
	atomic_int stop = 1;
	regex_budget_default(&b);
	b.stop = &stop;
	regex_set_budget(re, &b);
	assert_null(regex_match_funcs(t, re));
	assert_string_equal(regex_error(re), "regex '(a+)+$': stopped at "
	    "string 1 of 11");
	regex_free(re);

	/* Without JIT, ten times slower a step: a tenth of the steps. */
	re = regex_compile("(*NO_JIT)(a+)+$", &err);
	assert_false(regex_jit(re));
	regex_budget_default(&b);
	b.steps = 110000000;
	regex_set_budget(re, &b);
	trace_free(t);
	t = regex_trace(10, 25);
	assert_null(regex_match_funcs(t, re));
	assert_non_null(strstr(regex_error(re), "match limit of 1000000 "
	    "steps hit on string 2 of 11"));
	assert_non_null(strstr(regex_error(re), "without JIT"));
	regex_free(re);

	/* A filter that cannot be decided is not applied: the last one
	 * stays (--hide never shows what it hides by running out). */
	struct filter f;
	filter_init(&f);
	re = regex_compile("!3$", &err);
	assert_int_equal(filter_set_functions(&f, t, re, true), 0);
	regex_free(re);
	uint8_t *before = xmalloc(t->nfuncs);
	memcpy(before, f.func_on, t->nfuncs);
	re = regex_compile("(a+)+$", &err);
	assert_int_equal(filter_set_functions(&f, t, re, true), -1);
	assert_true(f.hide_functions);
	assert_memory_equal(f.func_on, before, t->nfuncs);
	free(before);
	filter_clear(&f);

	/* So is a search: no verdicts at all. Every string it looks at is
	 * asked once: names, string args, logs (25 + 25 letters: the arg
	 * "text" is no answer). */
	struct search_match sm;
	assert_int_equal(query_search_match(t, re, &sm), -1);
	assert_null(sm.func);
	assert_null(sm.str);
	regex_free(re);
	re = regex_compile_search("!|\\?", &err);
	assert_int_equal(query_search_match(t, re, &sm), 0);
	size_t yes = 0, no = 0, unasked = 0;
	for (uint32_t s = 0; s < t->nstrings; s++) {
		yes += sm.str[s] == REGEX_YES;
		no += sm.str[s] == REGEX_NO;
		unasked += sm.str[s] == REGEX_UNASKED;
	}
	assert_int_equal(yes, 30);	/* names, args and logs */
	assert_int_equal(no, 1);	/* tick */
	assert_int_equal(unasked, t->nstrings - 31);	/* "", "text" */
	struct search_result res;
	query_search_all(t, NULL, &sm, &res);
	assert_int_equal(res.nhits, 20);
	assert_int_equal(res.nlog_matches, 10);
	search_result_free(&res);
	search_match_free(&sm);
	regex_free(re);
	trace_free(t);
}

/* A small trace for the flow index and the wall-clock parser.
 * Track A (tid 1): send [0,100), done [600,700) with path=/tmp/needle
 * Track B (tid 2): other [150,200), recv [300,400) (category "net")
 * Instant tick (category "ui") on A at 800 with msg=haystack, n=-3.
 * Flows: 7 send->recv, 9 send->other, 7 recv->done.
 * Logs: 50 A "hello world", 350 B "error: disk full", 650 A "needle log".
 * Wall-clock origin 01:00:02.500 UTC, 20000 days after the epoch. */
#define WALL (20000LL * 86400 * 1000000000 + 3602500000000LL)

static struct trace *
small_trace(uint32_t *ta, uint32_t *tb)
{
	struct builder *b = builder_new("small");
	uint32_t p = builder_process(b, 10);
	args_id args;
#define S(s) builder_intern_cstr(b, s)
	uint32_t a = builder_track(b, TRACK_THREAD, p, 1);
	uint32_t c = builder_track(b, TRACK_THREAD, p, 2);
	func_id fsend = builder_func(b, S("send"), 0, -1);
	func_id frecv = builder_func(b, S("recv"), S("net"), -1);
	func_id fdone = builder_func(b, S("done"), 0, -1);
	func_id fother = builder_func(b, S("other"), 0, -1);
	builder_args_begin(b);
	builder_arg_str(b, S("path"), S("/tmp/needle"));
	args = builder_args_end(b);
	builder_slice(b, a, 0, 0, 100, fsend, 0, 0);
	builder_slice(b, a, 0, 600, 100, fdone, 0, args);
	builder_slice(b, c, 0, 150, 50, fother, 0, 0);
	builder_slice(b, c, 0, 300, 100, frecv, 0, 0);
	builder_flow(b, 7, (struct slice_ref){ a, 0, 0 },
	    (struct slice_ref){ c, 0, 1 });
	builder_flow(b, 9, (struct slice_ref){ a, 0, 0 },
	    (struct slice_ref){ c, 0, 0 });
	builder_flow(b, 7, (struct slice_ref){ c, 0, 1 },
	    (struct slice_ref){ a, 0, 1 });
	builder_log(b, a, 50, S("hello world"));
	builder_log(b, c, 350, S("error: disk full"));
	builder_log(b, a, 650, S("needle log"));
	builder_args_begin(b);
	builder_arg_i64(b, S("n"), -3);
	builder_arg_str(b, S("msg"), S("haystack"));
	args = builder_args_end(b);
	builder_instant(b, a, 800, builder_func(b, S("tick"), S("ui"), -1),
	    args);
	builder_set_wall_origin(b, WALL);
#undef S
	*ta = a;
	*tb = c;
	struct trace *t = builder_finish(b);
	assert_non_null(t);
	return t;
}

static void
test_flow_index(void **state)
{
	uint32_t a, b;
	struct trace *t = small_trace(&a, &b);
	struct flow_index fi;
	size_t n;
	const struct flow_key *k;

	flow_index_build(t, &fi);
	k = flow_index_at(&fi, true, (struct slice_ref){ a, 0, 0 }, &n);
	assert_int_equal(n, 2);
	assert_int_equal(t->flows[k[0].flow].id, 7);
	assert_int_equal(t->flows[k[1].flow].id, 9);
	k = flow_index_at(&fi, false, (struct slice_ref){ a, 0, 0 }, &n);
	assert_int_equal(n, 0);
	k = flow_index_at(&fi, false, (struct slice_ref){ b, 0, 1 }, &n);
	assert_int_equal(n, 1);
	assert_int_equal(t->flows[k[0].flow].to.track, b);
	k = flow_index_at(&fi, true, (struct slice_ref){ b, 0, 1 }, &n);
	assert_int_equal(n, 1);
	assert_int_equal(t->flows[k[0].flow].to.index, 1);
	flow_index_free(&fi);
	/* A trace without flows. */
	struct builder *bu = builder_new("none");
	struct trace *e = builder_finish(bu);
	flow_index_build(e, &fi);
	flow_index_at(&fi, true, (struct slice_ref){ 0, 0, 0 }, &n);
	assert_int_equal(n, 0);
	flow_index_free(&fi);
	trace_free(e);
	trace_free(t);
	(void)state;
}

static void
test_wall_parse(void **state)
{
	uint32_t a, b;
	struct trace *t = small_trace(&a, &b);
	const char *why = NULL;
	ttv_ns v = -1;

	assert_int_equal(time_parse_wall(t, "01:00:03.150", &v, &why), 0);
	assert_int_equal(v, 650000000);
	assert_int_equal(time_parse_wall(t, " 01:00:02.5000001 UTC", &v,
	    &why), 0);
	assert_int_equal(v, 100);
	/* Earlier in the day than the start: the next day. */
	assert_int_equal(time_parse_wall(t, "1:00", &v, &why), 0);
	assert_int_equal(v, -2500000000LL + 86400000000000LL);
	assert_int_equal(time_parse_wall(t, "25:00", &v, &why), -1);
	assert_non_null(strstr(why, "time of day"));
	assert_int_equal(time_parse_wall(t, "01:00:x", &v, &why), -1);
	assert_int_equal(time_parse_wall(t, "01:00 PST", &v, &why), -1);
	assert_int_equal(time_parse_wall(t, "1.5ms", &v, &why), -1);
	/* A run of digits is refused, not overflowed. */
	assert_int_equal(time_parse_wall(t,
	    "01:00:99999999999999999999999999", &v, &why), -1);
	trace_free(t);
	/* No wall clock at all. */
	struct trace *e = builder_finish(builder_new("none"));
	assert_int_equal(time_parse_wall(e, "01:00", &v, &why), -1);
	assert_non_null(strstr(why, "no wall-clock"));
	trace_free(e);
	(void)state;
}

static void
test_stats_value(void **state)
{
	struct func_stats s = { 0 };

	s.count = 3;
	s.total = 30;
	s.self = 20;
	s.min = 1;
	s.median = 5;
	s.p90 = 9;
	s.p99 = 19;
	s.max = 29;
	s.weight = 7;
	assert_int_equal(stats_value(&s, STATS_COUNT), 3);
	assert_int_equal(stats_value(&s, STATS_TOTAL), 30);
	assert_int_equal(stats_value(&s, STATS_SELF), 20);
	assert_int_equal(stats_value(&s, STATS_MIN), 1);
	assert_int_equal(stats_value(&s, STATS_MEDIAN), 5);
	assert_int_equal(stats_value(&s, STATS_P90), 9);
	assert_int_equal(stats_value(&s, STATS_P99), 19);
	assert_int_equal(stats_value(&s, STATS_MAX), 29);
	assert_int_equal(stats_value(&s, STATS_SAMPLES), 7);
	assert_int_equal(stats_value(&s, STATS_NAME), 0);
	for (int k = 0; k < STATS_KEY_COUNT; k++)
		assert_int_equal(stats_key_parse(stats_key_name(k)), k);
	(void)state;
}


static void *
add_index(void *arg)
{
	int *slot = arg;
	*slot += 1;
	return NULL;
}

/* Workers: every one runs once, on a thread or here; the core count
 * follows TTV_THREADS. */
static void
test_threads(void **state)
{
	int slots[9] = { 0 };
	threads_run(add_index, slots, sizeof slots[0], 9);
	for (int i = 0; i < 9; i++)
		assert_int_equal(slots[i], 1);
	int shared = 0;
	threads_run(add_index, &shared, 0, 1);
	assert_int_equal(shared, 1);
	setenv("TTV_THREADS", "3", 1);
	assert_int_equal(ttv_cpus(), 3);
	setenv("TTV_THREADS", "0", 1);
	assert_true(ttv_cpus() >= 1);
	unsetenv("TTV_THREADS");
	assert_true(ttv_cpus() >= 1);
	assert_string_equal(ttv_env_name(TTV_ENV_THREADS), "TTV_THREADS");
	(void)state;
}

/* What escape_json writes for s. */
static char *
json_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	escape_json(s, fp);
	fclose(fp);
	return buf;
}

static char *
text_of(const char *s, size_t len)
{
	char *out = malloc(4 * len + 1);
	escape_text(s, len, out, 4 * len + 1);
	return out;
}

/* Names keep what they are, and distinct names stay distinct in every
 * output (escape.h): a NUL is held as C0 80 and written \x00, a byte C0
 * held as C0 C0, a backslash written \\, so that the text \x00 or \xff in
 * a name never meets the byte it spells. */
static void
test_faithful_names(void **state)
{
	struct builder *b = builder_new("t");
	str_id nul = builder_intern(b, "ab\0cd", 5);
	str_id lit = builder_intern(b, "ab\\x00cd", 8);
	str_id c0 = builder_intern(b, "ab\xc0\x80" "cd", 6);
	str_id c = builder_intern(b, "ab\0\0", 4);
	struct trace *t = builder_finish(b);
	assert_int_not_equal(nul, lit);
	assert_int_not_equal(nul, c0);
	assert_string_equal(trace_str(t, nul), "ab\xc0\x80" "cd");
	assert_string_equal(trace_str(t, c0), "ab\xc0\xc0\x80" "cd");
	assert_string_equal(trace_str(t, c), "ab");
	const char *names[] = { trace_str(t, nul), trace_str(t, lit),
	    trace_str(t, c0), "ab\xff", "ab\\xff", "ab\\\\xff", "ab\\" };
	const char *want_text[] = { "ab\\x00cd", "ab\\\\x00cd",
	    "ab\\xc0\\x80cd", "ab\\xff", "ab\\\\xff", "ab\\\\\\\\xff",
	    "ab\\\\" };
	const char *want_json[] = { "ab\\\\x00cd", "ab\\\\\\\\x00cd",
	    "ab\\\\xc0\\\\x80cd", "ab\\\\xff", "ab\\\\\\\\xff",
	    "ab\\\\\\\\\\\\\\\\xff", "ab\\\\\\\\" };
	size_t n = sizeof names / sizeof *names;
	char *text[7], *json[7];
	for (size_t i = 0; i < n; i++) {
		text[i] = text_of(names[i], strlen(names[i]));
		json[i] = json_of(names[i]);
		assert_string_equal(text[i], want_text[i]);
		assert_string_equal(json[i], want_json[i]);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++) {
			assert_string_not_equal(text[i], text[k]);
			assert_string_not_equal(json[i], json[k]);
		}
	for (size_t i = 0; i < n; i++) {
		free(text[i]);
		free(json[i]);
	}
	trace_free(t);
	/* Controls and C1 in JSON: the text form, quoted. */
	char *j = json_of("x\xe9y\xc2\x85z\x01\"\t");
	assert_string_equal(j, "x\\\\xe9y\\\\xc2\\\\x85z\\\\x01\\\"\\\\t");
	free(j);
	(void)state;
}

/* Frames of folded stacks and call paths keep ';' from splitting them;
 * the spreadsheet guard marks only what a spreadsheet would evaluate. */
static void
test_escape_frames_and_cells(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	escape_frame("a;b\\x3b\n", fp);
	fputc('|', fp);
	escape_cell("=1+2", true, fp);
	fputc('|', fp);
	escape_cell("-x", true, fp);
	fputc('|', fp);
	escape_cell("@SUM", true, fp);
	fputc('|', fp);
	escape_cell("+x", false, fp);
	fputc('|', fp);
	escape_cell("a=b", true, fp);
	fputc('|', fp);
	escape_cell("\t=x", true, fp);
	fclose(fp);
	assert_string_equal(buf, "a\\x3bb\\\\x3b\\n|'=1+2|'-x|'@SUM|+x|a=b|"
	    "\\t=x");
	free(buf);
	(void)state;
}

static void
test_escape_and_time(void **state)
{
	char out[64];
	escape_text("a\x1b[31mb\n\x7f\xc2\x9b", 11, out, sizeof out);
	assert_string_equal(out, "a\\e[31mb\\n\\x7f\\xc2\\x9b");
	escape_text("caf\xc3\xa9", 5, out, sizeof out);
	assert_string_equal(out, "caf\xc3\xa9");
	escape_text("abcdef", 6, out, 4);
	assert_string_equal(out, "abc");

	char buf[32];
	timefmt_set_ascii(true);
	assert_string_equal(timefmt_duration(830, buf, sizeof buf), "830 ns");
	assert_string_equal(timefmt_duration(12345, buf, sizeof buf), "12.3 us");
	assert_string_equal(timefmt_duration(1250000, buf, sizeof buf), "1.25 ms");
	assert_string_equal(timefmt_duration(2000000000, buf, sizeof buf),
	    "2.00 s");
	/* One rule, three significant digits, in every unit. */
	assert_string_equal(timefmt_duration(10057000000LL, buf, sizeof buf),
	    "10.1 s");
	assert_string_equal(timefmt_duration(58000000, buf, sizeof buf),
	    "58.0 ms");
	assert_string_equal(timefmt_duration(999600, buf, sizeof buf),
	    "1.00 ms");
	assert_string_equal(timefmt_duration(-1500, buf, sizeof buf),
	    "-1.50 us");
	assert_string_equal(timefmt_duration(1234000000000LL, buf, sizeof buf),
	    "1234 s");
	/* Every nanosecond, grouped by three. */
	assert_string_equal(timefmt_duration_exact(3560, buf, sizeof buf),
	    "3.560 us");
	assert_string_equal(timefmt_duration_exact(12345678901LL, buf,
	    sizeof buf), "12.345 678 901 s");
	assert_string_equal(timefmt_duration_exact(830, buf, sizeof buf),
	    "830 ns");
	assert_string_equal(timefmt_time_exact(1001500000, 1000000000, buf,
	    sizeof buf), "+1.500 000 ms");
	assert_string_equal(timefmt_time_exact(999999000, 1000000000, buf,
	    sizeof buf), "-1.000 us");
	/* As many digits as a window needs to tell its ends apart. */
	assert_string_equal(timefmt_time_res(192340, 0, 156, buf, sizeof buf),
	    "+192.340 us");
	assert_string_equal(timefmt_time_res(192496, 0, 156, buf, sizeof buf),
	    "+192.496 us");
	assert_string_equal(timefmt_time_res(1500000, 0, 2000000, buf,
	    sizeof buf), "+1.50 ms");
	assert_string_equal(timefmt_time_res(1234567890, 0, 5, buf,
	    sizeof buf), "+1.234 567 890 s");
	/* a time column as wide as the longest time: past 1000 s, one
	 * column a digit */
	assert_int_equal(timefmt_time_exact_width(0), 18);
	assert_int_equal(timefmt_time_exact_width(999999999999LL), 18);
	assert_int_equal((int)strlen(timefmt_time_exact(999999999999LL, 0,
	    buf, sizeof buf)), 18);
	assert_int_equal(timefmt_time_exact_width(1234500000000LL), 19);
	assert_string_equal(timefmt_time_exact(1234567890123LL, 0, buf,
	    sizeof buf), "+1234.567 890 123 s");
	assert_int_equal(timefmt_trace_exact_width(-5, TTV_NS_MAX), 25);
	assert_int_equal((int)strlen(timefmt_time_exact(TTV_NS_MAX, -5, buf,
	    sizeof buf)), 25);
}

/* A time read back as ttv prints it, whatever timefmt wrote. */
static void
parse_back(ttv_ns v, const char *s)
{
	struct time_point p;
	const char *why = NULL;
	assert_int_equal(time_point_parse(s, strlen(s), &p, &why), 0);
	assert_int_equal(p.origin, TIME_FROM_START);
	assert_int_equal(p.offset, v);
}

static void
test_time_parse(void **state)
{
	(void)state;
	struct time_point p;
	const char *why = NULL;
	char buf[64];
	ttv_ns v;
#define PARSE(s) time_point_parse(s, strlen(s), &p, &why)
	/* durations, exact to the ns */
	assert_int_equal(time_parse_duration("1.5ms", 5, &v), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(time_parse_duration("200 us", 6, &v), 0);
	assert_int_equal(v, 200000);
	assert_int_equal(time_parse_duration("42", 2, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(time_parse_duration("3parsecs", 8, &v), -1);
	assert_int_equal(time_parse_duration("", 0, &v), -1);
	assert_int_equal(time_parse_duration(".", 1, &v), -1);
	assert_int_equal(time_parse_duration("-1ms", 4, &v), -1);
	assert_int_equal(time_parse_duration("1.ms", 4, &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(time_parse_duration(".5us", 4, &v), 0);
	assert_int_equal(v, 500);
	/* past the ns: rounded; past int64: refused */
	assert_int_equal(time_parse_duration("1.2345us", 8, &v), 0);
	assert_int_equal(v, 1235);
	assert_int_equal(time_parse_duration("9223372036.854775807 s", 22,
	    &v), 0);
	assert_int_equal(v, TTV_NS_MAX);
	assert_int_equal(time_parse_duration("9223372036.854775808 s", 22,
	    &v), -1);
	assert_int_equal(time_parse_duration("99999999999999999999", 20,
	    &v), -1);

	/* what ttv prints, pasted back: groups of digits with spaces, thin
	 * spaces or no-break spaces, µs or us (or the Greek mu) */
	assert_int_equal(PARSE("12.345 678 ms"), 0);
	assert_int_equal(p.origin, TIME_FROM_START);
	assert_int_equal(p.offset, 12345678);
	assert_int_equal(PARSE("+2.373 750 ms"), 0);
	assert_int_equal(p.origin, TIME_FROM_START);
	assert_int_equal(p.offset, 2373750);
	assert_int_equal(PARSE("+2.373\xe2\x80\x89" "750\xe2\x80\x89ms"), 0);
	assert_int_equal(p.offset, 2373750);
	assert_int_equal(PARSE("+2.373\xc2\xa0" "750\xe2\x80\xaf" "ms"), 0);
	assert_int_equal(p.offset, 2373750);
	assert_int_equal(PARSE(" 151.234 \xc2\xb5s "), 0);
	assert_int_equal(p.offset, 151234);
	assert_int_equal(PARSE("151.234\xce\xbcs"), 0);
	assert_int_equal(p.offset, 151234);
	assert_int_equal(PARSE("151.234 us"), 0);
	assert_int_equal(p.offset, 151234);
	assert_int_equal(PARSE("+12.345 678 901 s"), 0);
	assert_int_equal(p.offset, 12345678901LL);
	/* a space that is not between digits ends the number */
	assert_int_equal(PARSE("12. 5 ms"), -1);
	assert_int_equal(PARSE("12 .5 ms"), -1);
	assert_int_equal(PARSE("1 2 3 x"), -1);
	assert_non_null(strstr(why, ">5ms"));
	/* every time timefmt writes reads back to itself */
	ttv_ns samples[] = { 0, 7, 999, 1000, 1001, 151234, 999999,
	    1000000, 2373750, 12345678, 999999999, 1000000000,
	    12345678901LL, 1234567890123LL, TTV_NS_MAX };
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		parse_back(samples[i], timefmt_time_exact(samples[i], 0, buf,
		    sizeof buf));
		parse_back(samples[i], timefmt_duration_exact(samples[i], buf,
		    sizeof buf));
		timefmt_set_ascii(true);
		parse_back(samples[i], timefmt_time_exact(samples[i], 0, buf,
		    sizeof buf));
		timefmt_set_ascii(false);
	}

	/* where each spelling counts from */
	assert_int_equal(PARSE("-1s"), 0);
	assert_int_equal(p.origin, TIME_FROM_END);
	assert_int_equal(p.offset, -1000000000);
	assert_int_equal(PARSE(">5ms"), 0);
	assert_int_equal(p.origin, TIME_FROM_CURSOR);
	assert_int_equal(p.offset, 5000000);
	assert_int_equal(PARSE("< 5 ms"), 0);
	assert_int_equal(p.origin, TIME_FROM_CURSOR);
	assert_int_equal(p.offset, -5000000);
	assert_int_equal(PARSE("13:05:01.250 123 456"), 0);
	assert_int_equal(p.origin, TIME_OF_DAY);
	assert_int_equal(p.offset, (13 * 3600 + 5 * 60 + 1) * 1000000000LL +
	    250123456);
	assert_int_equal(PARSE("+-1ms"), -1);
	assert_int_equal(PARSE("><1ms"), -1);
	assert_int_equal(PARSE(""), -1);

	struct builder *b = builder_new("t");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, 0);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_push(b, tr, 1000000, f);
	builder_pop(b, tr, 11000000, 0);
	struct trace *t = builder_finish(b);	/* 1 ms .. 11 ms */
	ttv_ns cursor = 4000000;
	assert_int_equal(PARSE("+2.5ms"), 0);
	assert_int_equal(time_point_resolve(t, &p, &cursor, &v, &why), 0);
	assert_int_equal(v, 3500000);
	assert_int_equal(PARSE("2.5ms"), 0);
	assert_int_equal(time_point_resolve(t, &p, NULL, &v, &why), 0);
	assert_int_equal(v, 3500000);
	assert_int_equal(PARSE("-1ms"), 0);
	assert_int_equal(time_point_resolve(t, &p, &cursor, &v, &why), 0);
	assert_int_equal(v, 10000000);
	assert_int_equal(PARSE(">1ms"), 0);
	assert_int_equal(time_point_resolve(t, &p, &cursor, &v, &why), 0);
	assert_int_equal(v, 5000000);
	assert_int_equal(PARSE("<1ms"), 0);
	assert_int_equal(time_point_resolve(t, &p, &cursor, &v, &why), 0);
	assert_int_equal(v, 3000000);
	/* no cursor (batch modes): refused, saying what counts from where */
	assert_int_equal(time_point_resolve(t, &p, NULL, &v, &why), -1);
	assert_non_null(strstr(why, "cursor"));
	/* saturated, never wrapped */
	assert_int_equal(PARSE("9223372036.854775807 s"), 0);
	assert_int_equal(time_point_resolve(t, &p, NULL, &v, &why), 0);
	assert_int_equal(v, TTV_NS_MAX);
	/* a time of day on a trace without a clock */
	assert_int_equal(PARSE("13:05"), 0);
	assert_int_equal(time_point_resolve(t, &p, NULL, &v, &why), -1);
	assert_non_null(strstr(why, "no wall-clock"));
	trace_free(t);
#undef PARSE
}

static void
test_collapsed_export(void **state)
{
	struct builder *b = builder_new("t");
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id a = builder_func(b, builder_intern_cstr(b, "a"), 0, -1);
	func_id c = builder_func(b, builder_intern_cstr(b, "c"), 0, -1);
	builder_push(b, tr, 0, a);
	builder_push(b, tr, 10, c);
	builder_pop(b, tr, 40, 0);
	builder_pop(b, tr, 100, 0);
	struct trace *t = builder_finish(b);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint64_t folded;
	export_collapsed(t, NULL, false, EXPORT_MAX_DEPTH, fp, &folded);
	assert_int_equal(folded, 0);
	fclose(fp);
	assert_string_equal(buf, "a 70\na;c 30\n");
	free(buf);
	trace_free(t);

	/* Five deep, two frames a line at most: the rest is one frame with
	 * its weight; a ';' in a name does not split its frame. */
	b = builder_new("t");
	tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id semi = builder_func(b, builder_intern_cstr(b, "ns;f"), 0, -1);
	for (int i = 0; i < 5; i++)
		builder_push(b, tr, i * 10, semi);
	for (int i = 5; i-- > 0;)
		builder_pop(b, tr, 100 - i * 10, 0);
	t = builder_finish(b);
	fp = open_memstream(&buf, &len);
	export_collapsed(t, NULL, false, 2, fp, &folded);
	fclose(fp);
	assert_int_equal(folded, 1);
	assert_string_equal(buf, "ns\\x3bf 20\nns\\x3bf;[4 frames] 80\n");
	free(buf);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builder_nesting),
		cmocka_unit_test(test_builder_orphans),
		cmocka_unit_test(test_damage_bounds),
		cmocka_unit_test(test_unsorted_whole_slices),
		cmocka_unit_test(test_long_durations),
		cmocka_unit_test(test_order_by_weight),
		cmocka_unit_test(test_big_arrays),
		cmocka_unit_test(test_big_recycle_faults),
		cmocka_unit_test(test_builder_calls_batch),
		cmocka_unit_test(test_builder_big_levels),
		cmocka_unit_test(test_window_random),
		cmocka_unit_test(test_navigation),
		cmocka_unit_test(test_stats_random),
		cmocka_unit_test(test_stats_big),
		cmocka_unit_test(test_stats_equal),
		cmocka_unit_test(test_stats_extreme),
		cmocka_unit_test(test_call_tree),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_search_and_regex),
		cmocka_unit_test(test_search_all),
		cmocka_unit_test(test_regex_budget),
		cmocka_unit_test(test_flow_index),
		cmocka_unit_test(test_wall_parse),
		cmocka_unit_test(test_time_parse),
		cmocka_unit_test(test_stats_value),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_faithful_names),
		cmocka_unit_test(test_escape_and_time),
		cmocka_unit_test(test_escape_frames_and_cells),
		cmocka_unit_test(test_collapsed_export),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
