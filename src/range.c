/* Time ranges typed by a user (see range.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "range.h"
#include "timefmt.h"
#include "xalloc.h"

/* One side: empty (blanks only), or a time. */
static int
parse_side(const char *s, size_t len, bool *has, struct time_point *p,
    const char **why)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	*has = i < len;
	memset(p, 0, sizeof *p);
	if (!*has)
		return 0;
	return time_point_parse(s, len, p, why);
}

int
range_parse(const char *s, struct range_spec *out, char **err)
{
	const char *why = NULL;
	memset(out, 0, sizeof *out);
	const char *dots = strstr(s, "..");
	if (dots == NULL) {
		*err = xasprintf("bad range '%s' (want START..END, e.g. "
		    "0..50us or +1.2ms..+3ms)", s);
		return -1;
	}
	if (parse_side(s, (size_t)(dots - s), &out->has_start, &out->start,
	    &why) != 0 || parse_side(dots + 2, strlen(dots + 2),
	    &out->has_end, &out->end, &why) != 0) {
		*err = xasprintf("bad time in range '%s' (%s)", s, why);
		return -1;
	}
	return 0;
}

int
range_resolve(const struct trace *t, const struct range_spec *r,
    const ttv_ns *cursor, ttv_ns *t0, ttv_ns *t1, char **err)
{
	const char *why = NULL;
	if (t->first > t->last) {
		/* nothing in the trace: any range is the whole of it */
		*t0 = TTV_NS_MIN;
		*t1 = TTV_NS_MAX;
		return 0;
	}
	*t0 = t->first;
	*t1 = t->last;
	if ((r->has_start && time_point_resolve(t, &r->start, cursor, t0,
	    &why) != 0) || (r->has_end && time_point_resolve(t, &r->end,
	    cursor, t1, &why) != 0)) {
		*err = xasprintf("%s", why);
		return -1;
	}
	/* An open end takes in a call that ends with the trace. */
	if (!r->has_end && *t1 < TTV_NS_MAX)
		(*t1)++;
	if (*t1 <= *t0) {
		char b0[48], b1[48];
		*err = xasprintf("empty range: it ends (%s) before it starts "
		    "(%s)", timefmt_time_exact(*t1, t->first, b1, sizeof b1),
		    timefmt_time_exact(*t0, t->first, b0, sizeof b0));
		return -1;
	}
	return 0;
}

char *
range_outside(const struct trace *t, ttv_ns t0, ttv_ns t1)
{
	if (t->first > t->last || (t0 <= t->last && t1 > t->first))
		return NULL;
	char a[48], b[48], c[48];
	ttv_ns span;
	if (__builtin_sub_overflow(t->last, t->first, &span))
		span = TTV_NS_MAX;
	return xasprintf("the range is %s: the trace spans %s .. %s (%s)",
	    t0 > t->last ? "past the trace's end" : "before the trace's start",
	    timefmt_time_exact(t->first, t->first, a, sizeof a),
	    timefmt_time_exact(t->last, t->first, b, sizeof b),
	    timefmt_duration(span, c, sizeof c));
}
