/*
 * Times for people: durations in ns/µs/ms/s with three significant
 * decimals, and the parser for times typed at the viewer's goto prompt.
 */
#ifndef TTV_TIMEFMT_H
#define TTV_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"

/* Use "us" instead of "µs" (for terminals without UTF-8). */
void timefmt_set_ascii(bool ascii);
/* "830 ns", "12.3 µs", "1.25 ms", "2.000 s"; returns buf. */
const char *timefmt_duration(ttv_ns ns, char *buf, size_t size);
/* A time on the trace's axis, relative to origin: "+1.250 ms". */
const char *timefmt_time(ttv_ns t, ttv_ns origin, char *buf, size_t size);
/* Parses "1.5ms", "200 us", "3s", "42" (ns), "+10ms", "-2ms". Sets
 * *relative for a leading + or -. Returns 0, or -1 if malformed. */
int timefmt_parse(const char *s, ttv_ns *out, bool *relative);

#endif
