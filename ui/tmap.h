/*
 * Mapping between time and screen columns for the timeline and ruler, and
 * the window arithmetic behind zoom and pan. Pure functions, tested in
 * tests/ui/layout_test.c.
 */
#ifndef TTV_UI_TMAP_H
#define TTV_UI_TMAP_H

#include "model.h"

/* [t0, t1) spread over w columns. */
struct tmap {
	ttv_ns t0, t1;
	int w;
};

/* Smallest window: columns can not get finer than 1 ns each... but 10 ns
 * in total at least, so a zero-length trace still has a window. */
#define TMAP_MIN_SPAN 10

/* Position of t in columns (fractional; may be < 0 or >= w). */
double tmap_pos(const struct tmap *m, ttv_ns t);
/* The column holding t, clamped to [-1, w] so callers can clip. */
int tmap_col(const struct tmap *m, ttv_ns t);
/* The time where column c starts. */
ttv_ns tmap_time(const struct tmap *m, int c);

/* Window after zooming by factor (< 1 zooms in) keeping `at` on the same
 * column, clamped to [first, last]. */
void tmap_zoom(ttv_ns *t0, ttv_ns *t1, ttv_ns at, double factor,
    ttv_ns first, ttv_ns last);
/* Window moved by frac of its span (negative: left), clamped. */
void tmap_pan(ttv_ns *t0, ttv_ns *t1, double frac, ttv_ns first,
    ttv_ns last);
/* Window of the same span centred on t, clamped. */
void tmap_center(ttv_ns *t0, ttv_ns *t1, ttv_ns t, ttv_ns first,
    ttv_ns last);
/* A window showing [a, b) with a margin, at least TMAP_MIN_SPAN. */
void tmap_fit(ttv_ns *t0, ttv_ns *t1, ttv_ns a, ttv_ns b, ttv_ns first,
    ttv_ns last);

/* Ruler tick step: the smallest 1/2/5 x 10^k ns with at least min_cols
 * columns between ticks. */
ttv_ns tmap_tick_step(const struct tmap *m, int min_cols);

#endif
