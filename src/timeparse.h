/*
 * Reading a time the user typed: a wall-clock time of day ("13:05:01.250",
 * optionally followed by "UTC") into trace time, for the viewer's goto
 * prompt and any mode that takes a time.
 */
#ifndef TTV_TIMEPARSE_H
#define TTV_TIMEPARSE_H

#include "model.h"

/* The trace time of the first moment at or after the trace's start whose
 * wall-clock time of day is s (a time earlier in the day than the start
 * is taken on the next day). Returns 0, or -1 with *why set to a static
 * message. */
int time_parse_wall(const struct trace *t, const char *s, ttv_ns *out,
    const char **why);

#endif
