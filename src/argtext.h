/*
 * The text of an argument's value, one rule for the details pane and
 * SQL's args.display_value; and a real number as few digits as read back
 * to the same double (3.1415, not 3.1415000000000002), for them and for
 * --query --json.
 */
#ifndef TTV_ARGTEXT_H
#define TTV_ARGTEXT_H

#include <stddef.h>

#include "model.h"

/* The shortest "%.Ng" (N up to 17) that strtod reads back to v: "3.1415",
 * "0.1", "1e+300"; "nan", "inf" or "-inf" as printf writes them. Returns
 * buf. */
const char *real_text(double v, char *buf, size_t size);

/* "null", "true", "42", "3.1415", "0x7f00", "koid 5", or the string's
 * text (not escaped). Returns buf, or the trace's own string. */
const char *arg_text(const struct trace *t, const struct arg *a, char *buf,
    size_t size);

#endif
