/*
 * The characters panes draw with: Unicode blocks and arrows on UTF-8
 * terminals, plain ASCII otherwise.
 */
#ifndef TTV_UI_GLYPH_H
#define TTV_UI_GLYPH_H

#include <stdbool.h>
#include <stdint.h>

/* Shade for a region too dense to draw: level 0 (sparse) .. 2 (full). */
static inline uint32_t
glyph_shade(bool utf8, int level)
{
	static const uint32_t u[3] = { 0x2591, 0x2592, 0x2593 };
	static const uint32_t a[3] = { '.', ':', '#' };

	if (level < 0)
		level = 0;
	if (level > 2)
		level = 2;
	return utf8 ? u[level] : a[level];
}

/* A block filling the left eighths/8 of a cell (1..8). */
static inline uint32_t
glyph_left_eighths(int eighths)
{
	static const uint32_t b[9] = { ' ', 0x258f, 0x258e, 0x258d, 0x258c,
	    0x258b, 0x258a, 0x2589, 0x2588 };

	if (eighths < 1)
		eighths = 1;
	if (eighths > 8)
		eighths = 8;
	return b[eighths];
}

/* A bar of height eighths/8 (1..8) for counters. */
static inline uint32_t
glyph_bar(bool utf8, int eighths)
{
	static const char a[9] = " ..--==##";

	if (eighths < 1)
		eighths = 1;
	if (eighths > 8)
		eighths = 8;
	return utf8 ? 0x2580 + (uint32_t)eighths : (uint32_t)a[eighths];
}

#define GLYPH_RIGHT_HALF 0x2590
#define GLYPH(utf8, u, a) ((utf8) ? (uint32_t)(u) : (uint32_t)(a))
#define GLYPH_EDGE(utf8) GLYPH(utf8, 0x258f, '|')	/* slice separator */
#define GLYPH_OPEN(utf8) GLYPH(utf8, 0x25be, 'v')	/* expanded lane */
#define GLYPH_CLOSED(utf8) GLYPH(utf8, 0x25b8, '>')	/* folded lane */
#define GLYPH_HLINE(utf8) GLYPH(utf8, 0x2500, '-')
#define GLYPH_VLINE(utf8) GLYPH(utf8, 0x2502, '|')
#define GLYPH_TICK(utf8) GLYPH(utf8, 0x253c, '+')
#define GLYPH_CURSOR(utf8) GLYPH(utf8, 0x25bc, 'v')
#define GLYPH_ELLIPSIS(utf8) GLYPH(utf8, 0x2026, '~')
#define GLYPH_INSTANT(utf8) GLYPH(utf8, 0x25c6, '*')
#define GLYPH_HIDDEN(utf8) GLYPH(utf8, 0x00b7, '.')
#define GLYPH_UP(utf8) GLYPH(utf8, 0x25b2, '^')
#define GLYPH_DOWN(utf8) GLYPH(utf8, 0x25bc, 'v')

#endif
