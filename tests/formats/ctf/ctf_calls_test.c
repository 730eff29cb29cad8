/*
 * Unit tests of formats/ctf/lttng/ctf_calls.c: calls kept per stream and
 * thread and built after the walk. Each test adds calls as the decoding threads
 * would, builds them, and compares the model's slices with what the
 * calls say: steps from nanoseconds to past 32 bits (short and long
 * records) and a clock going back, function keys past 10 and 16 bits, a thread's
 * calls in two streams merged in time order (ties to the first stream),
 * exits that match an outer call, exits without an address, and lost
 * events ending open calls; and calls built in two steps, stopped at a
 * time and gone on from there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "model.h"
#include "ctf/lttng/ctf_calls.h"

#define NFUNCS 70000		/* keys past 16 bits */

struct fixture {
	struct builder *b;
	uint32_t track_of[4];
	func_id *func_of;
	struct ctf_calls *c;
};

static void
setup(struct fixture *f, size_t nstreams)
{
	f->b = builder_new("calls");
	uint32_t proc = builder_process(f->b, 100);
	for (int i = 0; i < 4; i++)
		f->track_of[i] = builder_track(f->b, TRACK_THREAD, proc, 101 + i);
	f->func_of = calloc(NFUNCS, sizeof *f->func_of);
	char name[32];
	for (uint32_t k = 0; k < NFUNCS; k++) {
		snprintf(name, sizeof name, "f%u", k);
		f->func_of[k] = builder_func(f->b,
		    builder_intern_cstr(f->b, name), 0, k);
	}
	f->c = ctf_calls_new(nstreams);
}

/* A call on stream si's run of thread key tkey, as the reader's decoding
 * threads make them. */
static void
ctf_calls_add(struct ctf_calls *c, size_t si, uint32_t tkey, int64_t ns,
    enum ctf_call_kind kind, uint32_t fkey)
{
	bool first;
	ctf_run_add(ctf_calls_run(c, si, tkey, &first), ns, kind, fkey);
}

static struct trace *
build(struct fixture *f, int64_t origin)
{
	ctf_calls_fence();
	ctf_calls_build(f->c, f->b, origin, f->track_of, f->func_of);
	ctf_calls_free(f->c);
	return builder_finish(f->b);
}

static void
done(struct fixture *f, struct trace *t)
{
	free(f->func_of);
	trace_free(t);
}

/* The slice at depth d, index i of thread track k. */
static const struct slice *
slice_at(const struct trace *t, const struct fixture *f, int k, uint32_t d,
    size_t i)
{
	const struct track *tr = &t->tracks[f->track_of[k]];
	assert_true(d < tr->ndepth);
	assert_true(i < tr->depth[d].len);
	return &tr->depth[d].slices[i];
}

static ttv_ns
dur_at(const struct trace *t, const struct fixture *f, int k, uint32_t d,
    size_t i)
{
	return trace_slice_dur(t, (struct slice_ref){ f->track_of[k], d,
	    (uint32_t)i });
}

static void
test_steps(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, 1);
	/* short steps, steps past 20 and 32 bits, keys below and past 10
	 * and 16 bits */
	int64_t t0 = 1000000;
	int64_t ts[] = { t0, t0 + 5, t0 + 5 + 8191, t0 + 5 + 8191 + 3000000,
	    t0 + 5 + 8191 + 3000000 + ((int64_t)1 << 33) + 7 };
	ctf_calls_add(f.c, 0, 0, ts[0], CALL_ENTRY, 3);
	ctf_calls_add(f.c, 0, 0, ts[1], CALL_ENTRY, 65535);
	ctf_calls_add(f.c, 0, 0, ts[2], CALL_EXIT, 65535);
	ctf_calls_add(f.c, 0, 0, ts[3], CALL_ENTRY, 69999);
	ctf_calls_add(f.c, 0, 0, ts[4], CALL_EXIT, 69999);
	ctf_calls_add(f.c, 0, 0, ts[4] + 1, CALL_EXIT, 3);
	struct trace *t = build(&f, t0);
	const struct slice *outer = slice_at(t, &f, 0, 0, 0);
	assert_int_equal(outer->start, 0);
	assert_int_equal(dur_at(t, &f, 0, 0, 0), ts[4] + 1 - t0);
	assert_int_equal(outer->func, f.func_of[3]);
	const struct slice *a = slice_at(t, &f, 0, 1, 0);
	assert_int_equal(a->start, ts[1] - t0);
	assert_int_equal(dur_at(t, &f, 0, 1, 0), 8191);
	assert_int_equal(a->func, f.func_of[65535]);
	const struct slice *b = slice_at(t, &f, 0, 1, 1);
	assert_int_equal(b->start, ts[3] - t0);
	assert_int_equal(dur_at(t, &f, 0, 1, 1), ts[4] - ts[3]);
	assert_int_equal(b->func, f.func_of[69999]);
	done(&f, t);
}

/* A clock that goes back (a damaged trace): the step wraps and the time
 * read back is the one given. */
static void
test_backwards(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, 1);
	ctf_calls_add(f.c, 0, 1, 5000, CALL_ENTRY, 1);
	ctf_calls_add(f.c, 0, 1, 3000, CALL_EXIT, 1);
	ctf_calls_add(f.c, 0, 1, 4000, CALL_ENTRY, 2);
	ctf_calls_add(f.c, 0, 1, 4100, CALL_EXIT, 2);
	struct trace *t = build(&f, 0);
	/* the builder keeps a slice whose end went back as a point */
	const struct track *tr = &t->tracks[f.track_of[1]];
	assert_int_equal(tr->depth[0].len, 2);
	ttv_ns s0 = tr->depth[0].slices[0].start;
	ttv_ns s1 = tr->depth[0].slices[1].start;
	assert_true((s0 == 5000 && s1 == 4000) || (s0 == 4000 && s1 == 5000));
	done(&f, t);
}

/* One thread's calls in two streams: merged in time order, a tie going to
 * the first stream. */
static void
test_two_streams(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, 2);
	ctf_calls_add(f.c, 0, 2, 100, CALL_ENTRY, 10);
	ctf_calls_add(f.c, 1, 2, 200, CALL_ENTRY, 11);
	ctf_calls_add(f.c, 0, 2, 300, CALL_EXIT, 11);
	ctf_calls_add(f.c, 1, 2, 400, CALL_EXIT, 10);
	/* the same time in both: stream 0's entry comes first */
	ctf_calls_add(f.c, 1, 2, 500, CALL_EXIT, 20);
	ctf_calls_add(f.c, 0, 2, 500, CALL_ENTRY, 20);
	struct trace *t = build(&f, 0);
	const struct track *tr = &t->tracks[f.track_of[2]];
	assert_int_equal(tr->ndepth, 2);
	assert_int_equal(tr->depth[0].len, 2);
	assert_int_equal(tr->depth[0].slices[0].start, 100);
	assert_int_equal(dur_at(t, &f, 2, 0, 0), 300);
	assert_int_equal(tr->depth[1].slices[0].start, 200);
	assert_int_equal(dur_at(t, &f, 2, 1, 0), 100);
	/* entry then exit at 500: a slice of 0 ns, not an orphan exit */
	assert_int_equal(tr->depth[0].slices[1].start, 500);
	assert_int_equal(dur_at(t, &f, 2, 0, 1), 0);
	assert_int_equal(tr->depth[0].slices[1].flags & SLICE_NO_ENTRY, 0);
	done(&f, t);
}

/* An exit that matches an outer call unwinds the inner ones; exits
 * without an address pop the innermost; lost events end the open calls
 * of threads whose exits have no address, and only theirs. */
static void
test_unwind_and_resync(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, 1);
	ctf_calls_add(f.c, 0, 0, 10, CALL_ENTRY, 1);
	ctf_calls_add(f.c, 0, 0, 20, CALL_ENTRY, 2);
	ctf_calls_add(f.c, 0, 0, 30, CALL_EXIT, 1);	/* unwinds 2 */
	ctf_calls_add(f.c, 0, 3, 10, CALL_ENTRY, 5);
	ctf_calls_add(f.c, 0, 3, 20, CALL_ENTRY, 6);
	ctf_calls_add(f.c, 0, 3, 30, CALL_EXIT_ANY, 0);	/* pops 6 */
	ctf_calls_add(f.c, 0, 3, 40, CALL_ENTRY, 7);
	ctf_calls_add(f.c, 0, 0, 40, CALL_ENTRY, 8);
	ctf_calls_resync(f.c, 0, 50);
	struct trace *t = build(&f, 0);
	const struct track *a = &t->tracks[f.track_of[0]];
	assert_true(a->depth[1].slices[0].flags & SLICE_UNWOUND);
	assert_int_equal(dur_at(t, &f, 0, 1, 0), 10);
	/* thread 0's exits had addresses: its call of 8 stays open */
	assert_true(a->depth[0].slices[1].flags & SLICE_UNTERMINATED);
	const struct track *b = &t->tracks[f.track_of[3]];
	assert_int_equal(dur_at(t, &f, 3, 1, 0), 10);
	assert_int_equal(b->depth[1].slices[0].func, f.func_of[6]);
	/* thread 3's were without: its calls end at the loss, truncated */
	assert_int_equal(b->depth[1].slices[1].start, 40);
	assert_int_equal(dur_at(t, &f, 3, 1, 1), 10);
	assert_true(b->depth[1].slices[1].flags & SLICE_TRUNCATED);
	assert_true(b->depth[0].slices[0].flags & SLICE_TRUNCATED);
	done(&f, t);
}

/* Many calls (several chunks, steps short and long) on several threads
 * built at once: every slice where the calls put it. */
static void
test_many(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, 2);
	uint64_t x = 12345;
	int64_t now[4] = { 0, 0, 0, 0 };
	enum { N = 200000 };
	static int64_t start[4][N], dur[4][N];
	static uint32_t fkey[4][N];
	size_t count[4] = { 0, 0, 0, 0 };
	for (uint32_t i = 0; i < N; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		int k = (int)(x >> 62);
		int64_t step = (x >> 40) & 1 ? (int64_t)(x >> 50) % 7000 :
		    (int64_t)(x >> 30) % 5000000;
		uint32_t fk = (uint32_t)(x >> 20) % NFUNCS;
		size_t si = (size_t)k % 2, c = count[k]++;
		start[k][c] = now[k] += step + 1;
		ctf_calls_add(f.c, si, (uint32_t)k, now[k], CALL_ENTRY, fk);
		ctf_calls_add(f.c, si, (uint32_t)k, now[k] += step / 3,
		    CALL_EXIT, fk);
		dur[k][c] = step / 3;
		fkey[k][c] = fk;
	}
	struct trace *t = build(&f, 0);
	for (int k = 0; k < 4; k++) {
		const struct track *tr = &t->tracks[f.track_of[k]];
		assert_int_equal(tr->ndepth, 1);
		assert_int_equal(tr->depth[0].len, count[k]);
		for (size_t i = 0; i < count[k]; i++) {
			const struct slice *s = &tr->depth[0].slices[i];
			assert_int_equal(s->start, start[k][i]);
			assert_int_equal(dur_at(t, &f, k, 0, i), dur[k][i]);
			assert_int_equal(s->func, f.func_of[fkey[k][i]]);
		}
	}
	done(&f, t);
}

/* Calls of 4 threads spread over 10 streams (a thread in more than 8
 * merged by a heap), nested, with exits without an address and losses,
 * in time order: ops[i] at time ops[i].ns, the same for a given seed. */
struct op {
	int64_t ns;
	size_t si;
	int k;			/* thread key, -1: a loss in stream si */
	enum ctf_call_kind kind;
	uint32_t fk;
};
#define NOPS 20000

static void
random_calls(struct op *ops, uint64_t x)
{
	int64_t now = 0;
	int depth[4] = { 0, 0, 0, 0 };
	for (uint32_t i = 0; i < NOPS; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		int k = (int)(x >> 62);
		now += (int64_t)(x >> 40) % 100 + ((x >> 20) & 1);
		struct op o = { now, (size_t)(x >> 33) % 10, k, CALL_ENTRY,
		    (uint32_t)(x >> 21) % 40 };
		unsigned what = (unsigned)(x >> 50) % 16;
		if (what == 0) {
			o.k = -1;
		} else if (depth[k] > 0 && what < 7) {
			o.kind = k == 3 ? CALL_EXIT_ANY : CALL_EXIT;
			depth[k]--;
		} else {
			depth[k]++;
		}
		ops[i] = o;
	}
}

static void
add_ops(struct fixture *f, const struct op *ops, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (ops[i].k < 0)
			ctf_calls_resync(f->c, ops[i].si, ops[i].ns);
		else
			ctf_calls_add(f->c, ops[i].si, (uint32_t)ops[i].k,
			    ops[i].ns, ops[i].kind, ops[i].fk);
	}
	ctf_calls_fence();
}

/* Built in two steps, stopped at a time and gone on from there (a walk
 * whose state is kept at its horizon, ctf.c), the calls make the model
 * one build makes, at any time (before them all, among them, after),
 * with the calls decoded after the first step (all from its time on)
 * added between the two. */
static void
test_two_builds(void **state)
{
	(void)state;
	static struct op ops[NOPS];
	random_calls(ops, 99);
	const int64_t untils[] = { INT64_MIN, 0, 1, 977, 50000, 263000,
	    400000, INT64_MAX };
	for (size_t u = 0; u < sizeof untils / sizeof *untils; u++) {
		int64_t until = untils[u];
		/* the calls there before the first step: those before its
		 * time and some after */
		size_t cut = 0;
		while (cut < NOPS && ops[cut].ns < until)
			cut++;
		cut += (NOPS - cut) / 3;
		struct fixture one, two;
		setup(&one, 10);
		setup(&two, 10);
		add_ops(&one, ops, 0, NOPS);
		struct trace *want = build(&one, 0);
		bool no_addr[4] = { false, false, false, false };
		add_ops(&two, ops, 0, cut);
		ctf_calls_build_until(two.c, two.b, 0, two.track_of,
		    two.func_of, until, no_addr);
		add_ops(&two, ops, cut, NOPS);
		ctf_calls_build_until(two.c, two.b, 0, two.track_of,
		    two.func_of, INT64_MAX, no_addr);
		assert_true(no_addr[3]);
		assert_false(no_addr[0]);
		ctf_calls_free(two.c);
		struct trace *got = builder_finish(two.b);
		for (int k = 0; k < 4; k++) {
			const struct track *a = &want->tracks[one.track_of[k]];
			const struct track *b = &got->tracks[two.track_of[k]];
			assert_int_equal(a->ndepth, b->ndepth);
			for (uint32_t d = 0; d < a->ndepth; d++) {
				assert_int_equal(a->depth[d].len,
				    b->depth[d].len);
				for (size_t i = 0; i < a->depth[d].len; i++) {
					const struct slice *p =
					    &a->depth[d].slices[i];
					const struct slice *q =
					    &b->depth[d].slices[i];
					assert_int_equal(p->start, q->start);
					assert_int_equal(p->func, q->func);
					assert_int_equal(p->flags, q->flags);
					assert_int_equal(dur_at(want, &one, k,
					    d, i), dur_at(got, &two, k, d, i));
				}
			}
		}
		done(&one, want);
		done(&two, got);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_unwind_and_resync),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_two_builds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
