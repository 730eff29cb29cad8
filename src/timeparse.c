/* Reading a time the user typed or pasted (see timeparse.h). */
#include <string.h>

#include "timeparse.h"

#define NS_PER_DAY (86400LL * 1000000000LL)

/* The length of a blank at s (ASCII space or tab, no-break space U+00A0,
 * thin space U+2009, narrow no-break space U+202F), or 0: what a pasted
 * time may have between its digit groups and before its unit. */
static size_t
blank_len(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = (size_t)(end - s);
	if (n >= 1 && (p[0] == ' ' || p[0] == '\t'))
		return 1;
	if (n >= 2 && p[0] == 0xc2 && p[1] == 0xa0)
		return 2;
	if (n >= 3 && p[0] == 0xe2 && p[1] == 0x80 &&
	    (p[2] == 0x89 || p[2] == 0xaf))
		return 3;
	return 0;
}

static const char *
skip_blanks(const char *s, const char *end)
{
	size_t k;
	while (s < end && (k = blank_len(s, end)) > 0)
		s += k;
	return s;
}

static bool
is_digit(const char *s, const char *end)
{
	return s < end && *s >= '0' && *s <= '9';
}

/* Digits, perhaps grouped by blanks ("345 678"): a blank counts only
 * between two digits. Appends them to buf (at most cap, the rest counted
 * in *extra, which must be all zeros past what int64 holds). Returns the
 * end, or s when there is no digit. */
static const char *
digits(const char *s, const char *end, char *buf, size_t cap, size_t *n)
{
	const char *p = s;
	while (p < end) {
		if (is_digit(p, end)) {
			if (*n < cap)
				buf[*n] = *p;
			(*n)++;
			p++;
			continue;
		}
		const char *q = skip_blanks(p, end);
		if (q > p && p > s && is_digit(q, end)) {
			p = q;
			continue;
		}
		break;
	}
	return p;
}

/* value * 10^exp10 + what `frac` digits give at that scale, in ns;
 * false on overflow. */
static bool
scale(const char *whole, size_t nwhole, const char *frac, size_t nfrac,
    int unit_digits, ttv_ns *out)
{
	uint64_t v = 0, lim = (uint64_t)TTV_NS_MAX;
	for (size_t i = 0; i < nwhole; i++) {
		if (v > (lim - (uint64_t)(whole[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(whole[i] - '0');
	}
	for (int i = 0; i < unit_digits; i++) {
		uint64_t d = (size_t)i < nfrac ? (uint64_t)(frac[i] - '0') : 0;
		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	/* digits past the nanosecond: rounded half up */
	if ((size_t)unit_digits < nfrac && frac[unit_digits] >= '5') {
		if (v == lim)
			return false;
		v++;
	}
	*out = (ttv_ns)v;
	return true;
}

int
time_parse_duration(const char *s, size_t len, ttv_ns *out)
{
	const char *end = s + len;
	/* digits past 40 are zeros or too many for int64 ns anyway */
	char whole[40], frac[40];
	size_t nw = 0, nf = 0;
	s = skip_blanks(s, end);
	const char *p = digits(s, end, whole, sizeof whole, &nw);
	if (p < end && *p == '.') {
		const char *q = digits(p + 1, end, frac, sizeof frac, &nf);
		if (q == p + 1 && nw == 0)
			return -1;
		p = q;
	}
	if (nw == 0 && nf == 0)
		return -1;
	if (nw > sizeof whole || nf > sizeof frac) {
		/* so many digits: only leading or trailing zeros fit */
		if (nw > sizeof whole)
			return -1;
		nf = sizeof frac;
	}
	p = skip_blanks(p, end);
	size_t ulen = (size_t)(end - p);
	while (ulen > 0 && blank_len(p + ulen - 1, end) == 1)
		ulen--;
	int unit_digits;
	if (ulen == 0 || (ulen == 2 && memcmp(p, "ns", 2) == 0))
		unit_digits = 0;
	else if ((ulen == 2 && memcmp(p, "us", 2) == 0) ||
	    (ulen == 3 && memcmp(p, "\xc2\xb5s", 3) == 0) ||	/* µ */
	    (ulen == 3 && memcmp(p, "\xce\xbcs", 3) == 0))	/* μ */
		unit_digits = 3;
	else if (ulen == 2 && memcmp(p, "ms", 2) == 0)
		unit_digits = 6;
	else if (ulen == 1 && *p == 's')
		unit_digits = 9;
	else
		return -1;
	return scale(whole, nw, frac, nf, unit_digits, out) ? 0 : -1;
}

/* "HH:MM[:SS[.fff]] [UTC]" into ns since midnight. */
static int
time_of_day(const char *s, const char *end, ttv_ns *out)
{
	long long part[3] = { 0, 0, 0 };
	int n = 0;
	const char *p = s;
	for (;;) {
		int k = 0;
		while (p < end && *p >= '0' && *p <= '9' && k < 3) {
			part[n] = part[n] * 10 + (*p++ - '0');
			k++;
		}
		if (k == 0 || k > 2)
			return -1;
		n++;
		if (n == 3 || p >= end || *p != ':')
			break;
		p++;
	}
	if (n < 2 || part[0] > 23 || part[1] > 59 || part[2] > 60)
		return -1;
	ttv_ns frac = 0;
	if (n == 3 && p < end && *p == '.') {
		char buf[40];
		size_t nf = 0;
		const char *q = digits(p + 1, end, buf, sizeof buf, &nf);
		if (q == p + 1)
			return -1;
		if (nf > sizeof buf)
			nf = sizeof buf;
		if (!scale("", 0, buf, nf, 9, &frac))
			return -1;
		p = q;
	}
	p = skip_blanks(p, end);
	if (p < end && !((size_t)(end - p) == 3 && memcmp(p, "UTC", 3) == 0))
		return -1;
	*out = ((part[0] * 60 + part[1]) * 60 + part[2]) * 1000000000LL + frac;
	return 0;
}

static const char bad_time[] = "not a time: try 1.5ms, +12.345 678 ms "
    "(from the start), -1s (from the end), >5ms or <5ms (from the cursor), "
    "13:05:01.250";

int
time_point_parse(const char *s, size_t len, struct time_point *out,
    const char **why)
{
	const char *end = s + len;
	s = skip_blanks(s, end);
	while (end > s && blank_len(end - 1, end) == 1)
		end--;
	*why = bad_time;
	if (s == end)
		return -1;
	if (memchr(s, ':', (size_t)(end - s)) != NULL) {
		out->origin = TIME_OF_DAY;
		return time_of_day(s, end, &out->offset);
	}
	bool back = false;
	switch (*s) {
	case '+':
		out->origin = TIME_FROM_START;
		s++;
		break;
	case '-':
		out->origin = TIME_FROM_END;
		back = true;
		s++;
		break;
	case '>':
		out->origin = TIME_FROM_CURSOR;
		s++;
		break;
	case '<':
		out->origin = TIME_FROM_CURSOR;
		back = true;
		s++;
		break;
	default:
		out->origin = TIME_FROM_START;
		break;
	}
	ttv_ns v;
	if (time_parse_duration(s, (size_t)(end - s), &v) != 0)
		return -1;
	out->offset = back ? -v : v;
	return 0;
}

/* base + v, saturating. */
static ttv_ns
add_sat(ttv_ns base, ttv_ns v)
{
	ttv_ns r;
	if (__builtin_add_overflow(base, v, &r))
		return v > 0 ? TTV_NS_MAX : TTV_NS_MIN;
	return r;
}

/* The trace time of a time of day (ns since midnight, UTC). */
static int
resolve_wall(const struct trace *tr, ttv_ns tod, ttv_ns *out,
    const char **why)
{
	ttv_ns base, t;
	if (tr->wall_origin == TTV_NS_MIN) {
		*why = "this trace has no wall-clock time";
		return -1;
	}
	/* The day the trace starts on, in wall-clock ns. */
	if (__builtin_add_overflow(tr->wall_origin, tr->first, &base))
		goto bad;
	base -= ((base % NS_PER_DAY) + NS_PER_DAY) % NS_PER_DAY;
	/* base + tod - origin, in range since both are near the origin. */
	if (__builtin_add_overflow(base, tod, &t) ||
	    __builtin_sub_overflow(t, tr->wall_origin, &t))
		goto bad;
	if (t < tr->first && t <= TTV_NS_MAX - NS_PER_DAY)
		t += NS_PER_DAY;
	*out = t;
	return 0;
bad:
	*why = "not a time of day of this trace: try 13:05:01.250";
	return -1;
}

int
time_point_resolve(const struct trace *t, const struct time_point *p,
    const ttv_ns *cursor, ttv_ns *out, const char **why)
{
	switch (p->origin) {
	case TIME_FROM_START:
		*out = add_sat(t->first, p->offset);
		return 0;
	case TIME_FROM_END:
		*out = add_sat(t->last, p->offset);
		return 0;
	case TIME_FROM_CURSOR:
		if (cursor == NULL) {
			*why = ">T and <T move from the viewer's cursor: here, "
			    "+T counts from the start, -T from the end";
			return -1;
		}
		*out = add_sat(*cursor, p->offset);
		return 0;
	case TIME_OF_DAY:
		return resolve_wall(t, p->offset, out, why);
	}
	*why = bad_time;
	return -1;
}

int
time_parse_wall(const struct trace *tr, const char *s, ttv_ns *out,
    const char **why)
{
	struct time_point p;
	size_t len = strlen(s);
	if (memchr(s, ':', len) == NULL || time_point_parse(s, len, &p,
	    why) != 0 || p.origin != TIME_OF_DAY) {
		*why = tr->wall_origin == TTV_NS_MIN ? "this trace has no "
		    "wall-clock time" : "not a time of day: try 13:05:01.250";
		return -1;
	}
	return resolve_wall(tr, p.offset, out, why);
}
