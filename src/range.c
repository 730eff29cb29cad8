/* Time ranges typed by a user (see range.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "range.h"
#include "timefmt.h"
#include "xalloc.h"

/* One side: empty, or a time. */
static int
parse_side(const char *s, size_t len, bool *has, ttv_ns *v, bool *from_end)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	*has = len > 0;
	*v = 0;
	*from_end = false;
	if (len == 0)
		return 0;
	char *buf = xstrndup(s, len);
	bool rel;
	int rc = timefmt_parse(buf, v, &rel);
	*from_end = rc == 0 && buf[0] == '-';
	free(buf);
	return rc;
}

int
range_parse(const char *s, struct range_spec *out, char **err)
{
	memset(out, 0, sizeof *out);
	const char *dots = strstr(s, "..");
	if (dots == NULL) {
		*err = xasprintf("bad range '%s' (want START..END, e.g. "
		    "0..50us or +1.2ms..+3ms)", s);
		return -1;
	}
	if (parse_side(s, (size_t)(dots - s), &out->has_start, &out->start,
	    &out->start_from_end) != 0 || parse_side(dots + 2,
	    strlen(dots + 2), &out->has_end, &out->end,
	    &out->end_from_end) != 0) {
		*err = xasprintf("bad time in range '%s' (times are like "
		    "1.5ms, +20us, -1s)", s);
		return -1;
	}
	return 0;
}

/* first + v or last + v (v <= 0), saturating. */
static ttv_ns
place(const struct trace *t, ttv_ns v, bool from_end)
{
	ttv_ns base = from_end ? t->last : t->first;
	if (v > 0 && base > TTV_NS_MAX - v)
		return TTV_NS_MAX;
	if (v < 0 && base < TTV_NS_MIN - v)
		return TTV_NS_MIN;
	return base + v;
}

int
range_resolve(const struct trace *t, const struct range_spec *r,
    ttv_ns *t0, ttv_ns *t1, char **err)
{
	if (t->first > t->last) {
		/* nothing in the trace: any range is the whole of it */
		*t0 = TTV_NS_MIN;
		*t1 = TTV_NS_MAX;
		return 0;
	}
	*t0 = r->has_start ? place(t, r->start, r->start_from_end) : t->first;
	*t1 = r->has_end ? place(t, r->end, r->end_from_end) : t->last;
	/* An open end takes in a call that ends with the trace. */
	if (!r->has_end && *t1 < TTV_NS_MAX)
		(*t1)++;
	if (*t1 <= *t0) {
		*err = xasprintf("empty range: it ends (%+lld ns) before it "
		    "starts (%+lld ns from the trace's start)",
		    (long long)(*t1 - t->first), (long long)(*t0 - t->first));
		return -1;
	}
	return 0;
}
