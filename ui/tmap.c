/*
 * Time <-> column arithmetic (see tmap.h). Spans can be up to 2^63 ns, so
 * products go through 128-bit integers or doubles, never int64.
 */
#include <math.h>

#include "tmap.h"

double
tmap_pos(const struct tmap *m, ttv_ns t)
{
	double span = (double)((__int128)m->t1 - m->t0);

	if (span <= 0)
		return 0;
	return (double)((__int128)t - m->t0) * m->w / span;
}

int
tmap_col(const struct tmap *m, ttv_ns t)
{
	double p = floor(tmap_pos(m, t));

	if (p < -1)
		return -1;
	if (p > m->w)
		return m->w;
	return (int)p;
}

ttv_ns
tmap_time(const struct tmap *m, int c)
{
	__int128 span = (__int128)m->t1 - m->t0;

	if (m->w <= 0)
		return m->t0;
	return (ttv_ns)(m->t0 + span * c / m->w);
}

/* Keeps [*t0, *t1) inside [first, last] (when it fits) and at least
 * TMAP_MIN_SPAN long. */
static void
clamp(ttv_ns *t0, ttv_ns *t1, ttv_ns first, ttv_ns last)
{
	__int128 span = (__int128)*t1 - *t0, full = (__int128)last - first;

	if (full < TMAP_MIN_SPAN)
		full = TMAP_MIN_SPAN;
	if (span < TMAP_MIN_SPAN)
		span = TMAP_MIN_SPAN;
	if (span > full)
		span = full;
	if (*t0 < first)
		*t0 = first;
	if ((__int128)*t0 + span > (__int128)first + full)
		*t0 = (ttv_ns)((__int128)first + full - span);
	*t1 = (ttv_ns)((__int128)*t0 + span);
}

void
tmap_zoom(ttv_ns *t0, ttv_ns *t1, ttv_ns at, double factor, ttv_ns first,
    ttv_ns last)
{
	double span = (double)((__int128)*t1 - *t0);
	double left = (double)((__int128)at - *t0);
	double nspan = span * factor;

	if (at < *t0 || at > *t1)
		left = span / 2, at = (ttv_ns)(*t0 + (ttv_ns)left);
	if (nspan < TMAP_MIN_SPAN)
		nspan = TMAP_MIN_SPAN;
	if (nspan > 9.0e18)
		nspan = 9.0e18;
	*t0 = at - (ttv_ns)(span > 0 ? left * (nspan / span) : 0);
	*t1 = *t0 + (ttv_ns)nspan;
	clamp(t0, t1, first, last);
}

void
tmap_pan(ttv_ns *t0, ttv_ns *t1, double frac, ttv_ns first, ttv_ns last)
{
	ttv_ns span = *t1 - *t0;
	ttv_ns d = (ttv_ns)((double)span * frac);

	if (d == 0)
		d = frac < 0 ? -1 : 1;
	*t0 += d;
	*t1 += d;
	clamp(t0, t1, first, last);
}

void
tmap_center(ttv_ns *t0, ttv_ns *t1, ttv_ns t, ttv_ns first, ttv_ns last)
{
	ttv_ns span = *t1 - *t0;

	*t0 = t - span / 2;
	*t1 = *t0 + span;
	clamp(t0, t1, first, last);
}

void
tmap_fit(ttv_ns *t0, ttv_ns *t1, ttv_ns a, ttv_ns b, ttv_ns first,
    ttv_ns last)
{
	ttv_ns span = b - a, margin;

	if (span < TMAP_MIN_SPAN)
		span = TMAP_MIN_SPAN;
	/* A tenth on each side, so the edges of the slice are seen. */
	margin = span / 10;
	*t0 = a - margin;
	*t1 = a + span + margin;
	clamp(t0, t1, first, last);
}

ttv_ns
tmap_tick_step(const struct tmap *m, int min_cols)
{
	__int128 span = (__int128)m->t1 - m->t0;
	ttv_ns step = 1;

	if (m->w <= 0 || span <= 0)
		return 1;
	for (int i = 0; i < 60; i++) {
		static const int mult[] = { 1, 2, 5 };
		for (int k = 0; k < 3; k++) {
			__int128 s = (__int128)step * mult[k];
			if (s * m->w >= span * min_cols)
				return (ttv_ns)s;
		}
		if (step > INT64_MAX / 10)
			break;
		step *= 10;
	}
	return step;
}
