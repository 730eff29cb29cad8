/*
 * diffpair.h: one small program traced twice, a base run and a new run
 * whose differences are known by construction, for the tests of
 * `ttv --diff`. fxtgen and ctfgen write it (fxtgen -D, ctfgen -D), so the
 * same program can be compared within a format and across two.
 *
 * Thread A (tid 101 in the base, 201 in the new run: two runs seldom
 * share tids) runs main, which does ten rounds of, 1 µs apart:
 *
 *   steady     10 µs, calling helper (1 µs) 2 µs in      the same
 *   slower     20 µs, calling helper (1 µs) 5 µs in      3 x slower: 60 µs,
 *                                                        its helper 21 µs
 *   removed    5 µs                                      gone
 *   added      -                                         7 µs, new
 *   render<1>  3 µs                                      render<2>
 *   jit@0x7f0000a000  4 µs                               jit@0x7f0000b000
 *   often      2 µs, once                                twice
 *   jitter     1 µs                                      1.05 µs
 *
 * then returns 1 µs later. Thread B (tid 102 / 202) calls worker (20 µs)
 * five times, 30 µs apart, the same in both. Both threads start at 1 µs.
 * tests/cli/diff_*.sh hold the rows that follow.
 *
 * With addresses (fxtgen -A, and ctfgen, whose cyg-profile traces name
 * functions by address), function k is named as ttv names an address
 * without its binary, 0x55550000a000 + 0x40 k: render and jit then have
 * one name in both runs.
 */
#ifndef TTV_GEN_DIFFPAIR_H
#define TTV_GEN_DIFFPAIR_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum {
	DP_MAIN, DP_STEADY, DP_HELPER, DP_SLOWER, DP_REMOVED, DP_ADDED,
	DP_RENDER, DP_JIT, DP_OFTEN, DP_JITTER, DP_WORKER, DP_NFUNCS
};

/* An entry or an exit, in time order. */
struct dp_event {
	uint64_t ns;
	int thread;		/* 0: A, 1: B */
	bool enter;
	int func;
};

struct dp_trace {
	struct dp_event *ev;
	size_t n, cap;
};

static inline void
dp_push(struct dp_trace *t, int thread, bool enter, int func, uint64_t ns)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->ev = realloc(t->ev, t->cap * sizeof *t->ev);
		if (t->ev == NULL)
			abort();
	}
	t->ev[t->n++] = (struct dp_event){ ns, thread, enter, func };
}

/* A call of func at *now lasting dur, optionally with one inner call of
 * inner at +at lasting idur; *now moves to its end. */
static inline void
dp_call(struct dp_trace *t, int th, int func, uint64_t *now, uint64_t dur,
    int inner, uint64_t at, uint64_t idur)
{
	dp_push(t, th, true, func, *now);
	if (inner >= 0) {
		dp_push(t, th, true, inner, *now + at);
		dp_push(t, th, false, inner, *now + at + idur);
	}
	dp_push(t, th, false, func, *now + dur);
	*now += dur;
}

static int
dp_cmp(const void *a, const void *b)
{
	const struct dp_event *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->thread - y->thread;
}

/* The run's events, both threads merged in time order (within a thread
 * no two events share a time). */
static inline void
dp_program(bool new_run, struct dp_trace *t)
{
	uint64_t now = 1000;
	t->n = 0;
	dp_push(t, 0, true, DP_MAIN, now);
	for (int i = 0; i < 10; i++) {
		now += 1000;
		dp_call(t, 0, DP_STEADY, &now, 10000, DP_HELPER, 2000, 1000);
		now += 1000;
		dp_call(t, 0, DP_SLOWER, &now, new_run ? 60000 : 20000,
		    DP_HELPER, 5000, new_run ? 21000 : 1000);
		now += 1000;
		dp_call(t, 0, new_run ? DP_ADDED : DP_REMOVED, &now,
		    new_run ? 7000 : 5000, -1, 0, 0);
		now += 1000;
		dp_call(t, 0, DP_RENDER, &now, 3000, -1, 0, 0);
		now += 1000;
		dp_call(t, 0, DP_JIT, &now, 4000, -1, 0, 0);
		now += 1000;
		dp_call(t, 0, DP_OFTEN, &now, 2000, -1, 0, 0);
		if (new_run) {
			now += 1000;
			dp_call(t, 0, DP_OFTEN, &now, 2000, -1, 0, 0);
		}
		now += 1000;
		dp_call(t, 0, DP_JITTER, &now, new_run ? 1050 : 1000, -1, 0,
		    0);
	}
	now += 1000;
	dp_push(t, 0, false, DP_MAIN, now);
	for (int k = 0; k < 5; k++) {
		uint64_t at = 1000 + 30000 * (uint64_t)k;
		dp_call(t, 1, DP_WORKER, &at, 20000, -1, 0, 0);
	}
	qsort(t->ev, t->n, sizeof *t->ev, dp_cmp);
}

static inline int64_t
dp_tid(bool new_run, int thread)
{
	return (new_run ? 201 : 101) + thread;
}

/* The address that names function k (as ctfgen's func_addr). */
static inline uint64_t
dp_addr(int k)
{
	return 0x55550000a000u + (uint64_t)k * 0x40;
}

/* Function k's name in a run: its own, or its address (buf). */
static inline const char *
dp_name(bool new_run, bool addresses, int k, char *buf, size_t size)
{
	static const char *const names[DP_NFUNCS] = {
		"main", "steady", "helper", "slower", "removed", "added",
		NULL, NULL, "often", "jitter", "worker",
	};
	if (addresses)
		snprintf(buf, size, "0x%" PRIx64, dp_addr(k));
	else if (k == DP_RENDER)
		snprintf(buf, size, "render<%d>", new_run ? 2 : 1);
	else if (k == DP_JIT)
		snprintf(buf, size, "jit@0x7f0000%s000", new_run ? "b" : "a");
	else
		snprintf(buf, size, "%s", names[k]);
	return buf;
}

#endif
