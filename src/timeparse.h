/*
 * Reading a time the user typed or pasted: the one parser of the viewer's
 * goto prompt, its range prompt (:range), --range and --min-change.
 *
 * A time is read back exactly as ttv prints it (timefmt.h, the viewer's
 * wall clock): "12.345 678 ms", "+2.373 750 ms", "830 ns", "1.5ms",
 * "151.234 µs" (or us, or μs), "13:05:01.250 123 456"; the digits may be
 * grouped by spaces, thin spaces or no-break spaces, and every digit
 * counts (integer arithmetic, to the nanosecond). A number without a unit
 * is in nanoseconds.
 *
 * Where it counts from:
 *   T, +T     from the trace's start (ttv prints times as +T)
 *   -T        back from the trace's end
 *   >T, <T    forward or back from the viewer's cursor
 *   HH:MM[:SS[.fff]] [UTC]
 *             a wall-clock time of day, on the day the trace starts (or
 *             the next, for a time earlier in the day than its start)
 */
#ifndef TTV_TIMEPARSE_H
#define TTV_TIMEPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* A duration: a number and an optional unit, no sign. Returns 0, or -1
 * when s[0..len) is not one (or does not fit in int64 ns). */
int time_parse_duration(const char *s, size_t len, ttv_ns *out);

enum time_origin {
	TIME_FROM_START,	/* T or +T */
	TIME_FROM_END,		/* -T */
	TIME_FROM_CURSOR,	/* >T (offset > 0) or <T (offset < 0) */
	TIME_OF_DAY,		/* offset: ns since midnight, UTC */
};

struct time_point {
	enum time_origin origin;
	ttv_ns offset;		/* from the origin; negative back from it */
};

/* Parses s[0..len) (blanks around it ignored). Returns 0, or -1 with
 * *why set to a static message saying what a time looks like. */
int time_point_parse(const char *s, size_t len, struct time_point *out,
    const char **why);

/* The trace time a point names. cursor: the viewer's cursor, or NULL
 * where there is none (>T and <T are then refused). Saturates at the
 * ends of int64. Returns 0, or -1 with *why (a static message). */
int time_point_resolve(const struct trace *t, const struct time_point *p,
    const ttv_ns *cursor, ttv_ns *out, const char **why);

/* The trace time of the first moment at or after the trace's start whose
 * wall-clock time of day is s (a time earlier in the day than the start
 * is taken on the next day). Returns 0, or -1 with *why set to a static
 * message. */
int time_parse_wall(const struct trace *t, const char *s, ttv_ns *out,
    const char **why);

#endif
