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

/* Decimals that keep three significant digits of v (v >= 1). */
static int
sig3_decimals(double v)
{
	return v < 10 ? 2 : v < 100 ? 1 : 0;
}

const char *
timefmt_duration(ttv_ns ns, char *buf, size_t size)
{
	const char *sign = ns < 0 ? "-" : "";
	double v = ns < 0 ? -(double)ns : (double)ns;
	const char *us = ascii_units ? "us" : "\xc2\xb5s";
	double scaled;
	const char *unit;

	if (v < 1e3) {
		snprintf(buf, size, "%s%.0f ns", sign, v);
		return buf;
	}
	/* Rounding can carry into the next unit: 999.6 µs is 1.00 ms. */
	if (v < 999.5e3)
		scaled = v / 1e3, unit = us;
	else if (v < 999.5e6)
		scaled = v / 1e6, unit = "ms";
	else
		scaled = v / 1e9, unit = "s";
	snprintf(buf, size, "%s%.*f %s", sign, sig3_decimals(scaled), scaled,
	    unit);
	return buf;
}

/* The unit of a magnitude: its size in ns and its name. */
static ttv_ns
unit_of(uint64_t mag, const char **name)
{
	if (mag < 1000) {
		*name = "ns";
		return 1;
	}
	if (mag < 1000000) {
		*name = ascii_units ? "us" : "\xc2\xb5s";
		return 1000;
	}
	if (mag < 1000000000) {
		*name = "ms";
		return 1000000;
	}
	*name = "s";
	return 1000000000;
}

/* Writes mag in `unit` with `decimals` digits after the point, grouped by
 * three; integer arithmetic, so every nanosecond is exact. */
static void
put_fixed(char *buf, size_t size, const char *sign, uint64_t mag,
    ttv_ns unit, int decimals, const char *name)
{
	char frac[32];
	uint64_t whole = mag / (uint64_t)unit, rest = mag % (uint64_t)unit;
	int udigits = unit == 1 ? 0 : unit == 1000 ? 3 : unit == 1000000 ?
	    6 : 9;
	size_t n = 0;

	if (decimals > udigits)
		decimals = udigits;
	/* Round rest to `decimals` digits. */
	uint64_t div = 1;
	for (int i = decimals; i < udigits; i++)
		div *= 10;
	rest = (rest + div / 2) / div;
	uint64_t lim = 1;
	for (int i = 0; i < decimals; i++)
		lim *= 10;
	if (rest >= lim) {
		whole++;
		rest -= lim;
	}
	for (int i = decimals - 1; i >= 0; i--) {
		frac[i] = (char)('0' + rest % 10);
		rest /= 10;
	}
	char out[48];
	for (int i = 0; i < decimals; i++) {
		if (i > 0 && i % 3 == 0)
			out[n++] = ' ';
		out[n++] = frac[i];
	}
	out[n] = '\0';
	if (decimals > 0)
		snprintf(buf, size, "%s%llu.%s %s", sign,
		    (unsigned long long)whole, out, name);
	else
		snprintf(buf, size, "%s%llu %s", sign,
		    (unsigned long long)whole, name);
}

static uint64_t
magnitude(ttv_ns ns)
{
	return ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
}

/* t - origin, saturated: a time far from a trace's start (a range's open
 * end) is still written. */
static ttv_ns
since(ttv_ns t, ttv_ns origin)
{
	ttv_ns d;
	if (__builtin_sub_overflow(t, origin, &d))
		return t > origin ? TTV_NS_MAX : TTV_NS_MIN;
	return d;
}

const char *
timefmt_duration_exact(ttv_ns ns, char *buf, size_t size)
{
	uint64_t mag = magnitude(ns);
	const char *name;
	ttv_ns unit = unit_of(mag, &name);

	put_fixed(buf, size, ns < 0 ? "-" : "", mag, unit, 9, name);
	return buf;
}

const char *
timefmt_time(ttv_ns t, ttv_ns origin, char *buf, size_t size)
{
	ttv_ns d = since(t, origin);
	char tmp[64];
	timefmt_duration(d < 0 ? (d == TTV_NS_MIN ? TTV_NS_MAX : -d) : d, tmp,
	    sizeof tmp);
	snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", tmp);
	return buf;
}

const char *
timefmt_time_exact(ttv_ns t, ttv_ns origin, char *buf, size_t size)
{
	ttv_ns d = since(t, origin);
	uint64_t mag = magnitude(d);
	const char *name;
	ttv_ns unit = unit_of(mag, &name);

	put_fixed(buf, size, d < 0 ? "-" : "+", mag, unit, 9, name);
	return buf;
}

int
timefmt_time_exact_width(ttv_ns span)
{
	uint64_t s = magnitude(span) / 1000000000u;
	int digits = 1;
	for (; s >= 10; s /= 10)
		digits++;
	/* sign, the whole seconds, ".999 999 999 s" */
	return 1 + (digits > 3 ? digits : 3) + 14;
}

int
timefmt_trace_exact_width(ttv_ns first, ttv_ns last)
{
	ttv_ns span;
	if (last <= first)
		return timefmt_time_exact_width(0);
	if (__builtin_sub_overflow(last, first, &span))
		span = TTV_NS_MAX;
	return timefmt_time_exact_width(span);
}

const char *
timefmt_time_res(ttv_ns t, ttv_ns origin, ttv_ns resolution, char *buf,
    size_t size)
{
	ttv_ns d = since(t, origin);
	uint64_t mag = magnitude(d);
	const char *name;
	ttv_ns unit = unit_of(mag, &name);
	int decimals = 0;

	/* Enough digits that one step of the last is at most 1 % of
	 * the resolution, and never fewer than three significant ones. */
	if (resolution < 1)
		resolution = 1;
	for (ttv_ns step = unit; step > 1 && step * 100 > resolution;
	    step /= 10)
		decimals++;
	double scaled = (double)mag / (double)unit;
	int sig = scaled >= 1 ? sig3_decimals(scaled) : 2;
	if (decimals < sig)
		decimals = sig;
	/* Past three, whole groups: "2.336 700 ms", not "2.336 7 ms". */
	if (decimals > 3)
		decimals = (decimals + 2) / 3 * 3;
	put_fixed(buf, size, d < 0 ? "-" : "+", mag, unit, decimals, name);
	return buf;
}
