/* Reading a wall-clock time of day into trace time (see timeparse.h). */
#include <stdio.h>
#include <string.h>

#include "timeparse.h"

int
time_parse_wall(const struct trace *tr, const char *s, ttv_ns *out,
    const char **why)
{
	const ttv_ns day = 86400LL * 1000000000LL;
	long long h = 0, m = 0, sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;
	ttv_ns tod, base, t;

	if (tr->wall_origin == TTV_NS_MIN) {
		*why = "this trace has no wall-clock time";
		return -1;
	}
	while (*p == ' ')
		p++;
	if (sscanf(p, "%2lld:%2lld", &h, &m) != 2)
		goto bad;
	p = strchr(p, ':') + 1;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == ':') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		/* Capped: a long run of digits is bad, not an overflow. */
		for (; *p >= '0' && *p <= '9'; p++)
			if (sec <= 60)
				sec = sec * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				if (digits < 9) {
					frac = frac * 10 + (*p - '0');
					digits++;
				}
	}
	while (*p == ' ')
		p++;
	if (*p != '\0' && strcmp(p, "UTC") != 0)
		goto bad;
	if (h > 23 || m > 59 || sec > 60)
		goto bad;
	for (; digits < 9; digits++)
		frac *= 10;
	tod = ((h * 60 + m) * 60 + sec) * 1000000000LL + frac;
	/* The day the trace starts on, in wall-clock ns. */
	if (__builtin_add_overflow(tr->wall_origin, tr->first, &base))
		goto bad;
	base -= ((base % day) + day) % day;
	/* base + tod - origin, in range since both are near the origin. */
	if (__builtin_sub_overflow(base + tod, tr->wall_origin, &t))
		goto bad;
	if (t < tr->first && t <= TTV_NS_MAX - day)
		t += day;
	*out = t;
	return 0;
bad:
	*why = "not a time of day: try 13:05:01.250";
	return -1;
}
