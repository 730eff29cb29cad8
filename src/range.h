/*
 * A time range typed by a user, "START..END", each side a time as
 * timeparse.h reads it: "0..50us", "+1.2ms..+3ms", "-1ms.." (the last
 * millisecond), "..2s", "13:05:01..13:05:02", and in the viewer ">0..>5ms"
 * (from the cursor). An empty side is the trace's start or end.
 */
#ifndef TTV_RANGE_H
#define TTV_RANGE_H

#include <stdbool.h>

#include "model.h"
#include "timeparse.h"

struct range_spec {
	bool has_start, has_end;
	struct time_point start, end;	/* as typed */
};

/* Returns 0, or -1 with *err set (caller frees) on a malformed range. */
int range_parse(const char *s, struct range_spec *out, char **err);

/* [*t0, *t1) on the trace's time axis; cursor: the viewer's, or NULL
 * (batch modes: a side from the cursor is refused). Returns 0, or -1 with
 * *err set (caller frees) when the range is empty or cannot be placed. */
int range_resolve(const struct trace *t, const struct range_spec *r,
    const ttv_ns *cursor, ttv_ns *t0, ttv_ns *t1, char **err);

/* When [t0, t1) holds nothing of the trace (it starts after the trace's
 * end or ends before its start): a warning that names the trace's span,
 * "the range is past the trace's end: the trace spans +0 ns .. +2.707 278
 * ms (2.71 ms)" (caller frees); else NULL. */
char *range_outside(const struct trace *t, ttv_ns t0, ttv_ns t1);

#endif
