/*
 * A time range typed by a user, "START..END", in the syntax of the
 * viewer's goto prompt (timefmt_parse): "0..50us", "+1.2ms..+3ms",
 * "-1ms.." (the last millisecond), "..2s". A time with no sign or with +
 * counts from the trace's start, one with - back from its end; an empty
 * side is the trace's start or end.
 */
#ifndef TTV_RANGE_H
#define TTV_RANGE_H

#include <stdbool.h>

#include "model.h"

struct range_spec {
	bool has_start, has_end;
	ttv_ns start, end;	/* as typed: offsets */
	bool start_from_end, end_from_end;
};

/* Returns 0, or -1 with *err set (caller frees) on a malformed range. */
int range_parse(const char *s, struct range_spec *out, char **err);

/* [*t0, *t1) on the trace's time axis. Returns 0, or -1 with *err set
 * when the range is empty. */
int range_resolve(const struct trace *t, const struct range_spec *r,
    ttv_ns *t0, ttv_ns *t1, char **err);

#endif
