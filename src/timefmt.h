/*
 * Times for people: durations in ns/µs/ms/s with three significant
 * decimals, or every nanosecond. What a user types back is read by
 * timeparse.h.
 */
#ifndef TTV_TIMEFMT_H
#define TTV_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"

/* Use "us" instead of "µs" (for terminals without UTF-8). */
void timefmt_set_ascii(bool ascii);
/* Three significant digits whatever the unit: "830 ns", "12.3 µs",
 * "1.25 ms", "10.1 s" (whole numbers from 1000 s on); returns buf. */
const char *timefmt_duration(ttv_ns ns, char *buf, size_t size);
/* Every nanosecond, digits grouped by three after the point:
 * "1.500 000 ms", "151.234 µs", "12.345 678 901 s", "830 ns". */
const char *timefmt_duration_exact(ttv_ns ns, char *buf, size_t size);
/* A time on the axis with as many digits as it takes to tell apart two
 * times `resolution` ns apart: "+192.340 µs" for 156 ns windows. */
const char *timefmt_time_res(ttv_ns t, ttv_ns origin, ttv_ns resolution,
    char *buf, size_t size);
/* A time on the trace's axis, relative to origin: "+1.25 ms". */
const char *timefmt_time(ttv_ns t, ttv_ns origin, char *buf, size_t size);
/* The same to the nanosecond: "+1.500 000 ms". */
const char *timefmt_time_exact(ttv_ns t, ttv_ns origin, char *buf,
    size_t size);
/* The columns timefmt_time_exact takes at most for a time from 0 to
 * span past its origin: 18 ("+999.999 999 999 s") below 1000 s, one more
 * a digit of seconds past that. */
int timefmt_time_exact_width(ttv_ns span);
/* The same for the times of a trace from first to last. */
int timefmt_trace_exact_width(ttv_ns first, ttv_ns last);

#endif
