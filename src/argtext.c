/* The text of an argument's value (see argtext.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "argtext.h"

const char *
real_text(double v, char *buf, size_t size)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "%g", v);
		return buf;
	}
	/* 17 significant digits always read back; fewer often do */
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

const char *
arg_text(const struct trace *t, const struct arg *a, char *buf, size_t size)
{
	switch (a->type) {
	case ARG_NULL: snprintf(buf, size, "null"); break;
	case ARG_BOOL: snprintf(buf, size, "%s", a->v.i ? "true" : "false");
		break;
	case ARG_I64: snprintf(buf, size, "%" PRId64, a->v.i); break;
	case ARG_U64: snprintf(buf, size, "%" PRIu64, a->v.u); break;
	case ARG_F64: return real_text(a->v.f, buf, size);
	case ARG_STR: return trace_str(t, a->v.s);
	case ARG_PTR: snprintf(buf, size, "0x%" PRIx64, a->v.u); break;
	case ARG_KOID: snprintf(buf, size, "koid %" PRIu64, a->v.u); break;
	default: snprintf(buf, size, "?"); break;
	}
	return buf;
}
