/*
 * The damage sweep of the readers' malformed-input tests: a fixture read
 * into memory, and copies of it cut at every length, with a byte
 * overwritten at every offset, or with random bits flipped, each handed to
 * the test's own check, which loads it with its reader and says what must
 * hold. How the damage is made is here, once; what must hold is each
 * test's own.
 *
 * A sweep may take a sample of the offsets (struct sweep_plan): every
 * offset near the start and the end of the input and near the boundaries
 * the test names (packet starts, say), and a stride in between. With
 * TTV_FULL_SWEEP=1 in the environment every plan takes every offset.
 */
#ifndef TTV_TESTS_SWEEP_H
#define TTV_TESTS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct sweep;

/* Loads p[0, len) (s->buf or s->orig) and checks what comes back. */
typedef void sweep_check_fn(struct sweep *s, const unsigned char *p,
    size_t len);

struct sweep {
	const char *name;	/* the fixture, for messages */
	unsigned char *orig;	/* the intact bytes */
	size_t n;
	unsigned char *buf;	/* the damaged copy, n bytes */
	sweep_check_fn *check;
	void *arg;		/* the test's own state, for check */
	const char *what;	/* the damage being made: "cut at", ... */
	size_t at;		/* the cut's length, the damaged offset, the
				   round of flips */
	unsigned long runs;	/* damaged copies checked */
};

/* Which offsets a sweep takes; a NULL plan takes them all. */
struct sweep_plan {
	size_t head, tail;	/* every offset this close to the start, the
				   end, and after and before each mark */
	size_t stride;		/* and every stride-th offset (0 or 1: all) */
	const size_t *marks;	/* boundaries inside the input */
	size_t nmarks;
};

/* Reads the fixture at path (exits on failure); check gets each copy. */
void sweep_open(struct sweep *s, const char *path, sweep_check_fn *check,
    void *arg);
void sweep_close(struct sweep *s);

/* $TTV_SRCDIR/tests/data/REL (. without TTV_SRCDIR); caller frees. */
char *sweep_fixture(const char *rel);

/* Whether TTV_FULL_SWEEP=1 asks for every offset. */
bool sweep_full(void);
/* Whether the plan takes offset off of an input of n bytes. */
bool sweep_takes(const struct sweep_plan *plan, size_t off, size_t n);

/* The input cut at each length from 0 to n (whole). */
void sweep_cuts(struct sweep *s, const struct sweep_plan *plan);
/* The byte at each offset overwritten with `per` of the nvals values in
 * turn (vals[off % (nvals / per) + i * (nvals / per)], i < per), skipping
 * a value equal to the byte. */
void sweep_bytes(struct sweep *s, const unsigned char *vals, size_t nvals,
    size_t per, const struct sweep_plan *plan);
/* One bit flipped at each offset, a different bit each time. */
void sweep_flip_each(struct sweep *s, const struct sweep_plan *plan);
/* rounds copies, each with 1 to `most` random bits flipped (round r flips
 * 1 + r % most), from a fixed seed. */
void sweep_flips(struct sweep *s, unsigned rounds, unsigned most,
    uint64_t seed);

/* Reports a failure of the copy being checked (s may be NULL for checks
 * outside a sweep): "FAIL: NAME: WHAT AT: message". */
void sweep_fail(const struct sweep *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Failures so far. */
int sweep_failures(void);

/* A file in memory holding p[0, n), by a path any loader can open; the
 * same file is rewritten by every call. */
const char *sweep_memfile(const unsigned char *p, size_t n);

/* The model's slices are sane: no negative duration, functions in range,
 * each depth sorted by start; with `nested`, also no two slices of a depth
 * overlapping and every slice below the top inside a parent (not so for
 * readers whose tail calls leave a callee past its caller's end). Failures
 * are reported against s. */
void sweep_sane_slices(const struct sweep *s, const struct trace *t,
    bool nested);

#endif
