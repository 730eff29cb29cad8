/* Human-readable times (see timefmt.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timefmt.h"

static bool ascii_units;

void
timefmt_set_ascii(bool ascii)
{
	ascii_units = ascii;
}

const char *
timefmt_duration(ttv_ns ns, char *buf, size_t size)
{
	const char *sign = ns < 0 ? "-" : "";
	double v = ns < 0 ? -(double)ns : (double)ns;
	const char *us = ascii_units ? "us" : "\xc2\xb5s";
	if (v < 1e3)
		snprintf(buf, size, "%s%.0f ns", sign, v);
	else if (v < 1e6)
		snprintf(buf, size, "%s%.*f %s", sign, v < 1e4 ? 2 : v < 1e5 ? 1 : 0,
		    v / 1e3, us);
	else if (v < 1e9)
		snprintf(buf, size, "%s%.*f ms", sign, v < 1e7 ? 2 : v < 1e8 ? 1 : 0,
		    v / 1e6);
	else
		snprintf(buf, size, "%s%.3f s", sign, v / 1e9);
	return buf;
}

const char *
timefmt_time(ttv_ns t, ttv_ns origin, char *buf, size_t size)
{
	ttv_ns d = t - origin;
	char tmp[64];
	timefmt_duration(d < 0 ? -d : d, tmp, sizeof tmp);
	snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", tmp);
	return buf;
}

int
timefmt_parse(const char *s, ttv_ns *out, bool *relative)
{
	while (isspace((unsigned char)*s))
		s++;
	*relative = *s == '+' || *s == '-';
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	double scale;
	if (*end == '\0' || strcmp(end, "ns") == 0)
		scale = 1;
	else if (strcmp(end, "us") == 0 || strcmp(end, "\xc2\xb5s") == 0)
		scale = 1e3;
	else if (strcmp(end, "ms") == 0)
		scale = 1e6;
	else if (strcmp(end, "s") == 0)
		scale = 1e9;
	else
		return -1;
	double ns = v * scale;
	if (ns > 9.2e18 || ns < -9.2e18)
		return -1;
	*out = (ttv_ns)llround(ns);
	return 0;
}
