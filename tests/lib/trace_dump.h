/*
 * A trace as text, for tests that compare two reads of the same input (a
 * read that goes on and a whole read): all a reader gives, strings by
 * their text (a read that goes on interns them in another order).
 */
#ifndef TTV_TRACE_DUMP_H
#define TTV_TRACE_DUMP_H

#include "model.h"

/* The trace as text (caller frees). */
char *trace_dump(const struct trace *t);
/* NULL when two dumps are the same, else where they first differ (caller
 * frees). */
char *trace_dump_diff(const char *got, const char *want);

#endif
