/*
 * An in-memory screen of cells. Every pane draws into a grid; only the
 * terminal backend (term.c) copies a grid to the real terminal, so tests
 * can render a pane and read it back cell by cell.
 *
 * A cell holds one Unicode code point. A double-width character occupies
 * its cell and the next one, which holds GRID_WIDE_TAIL.
 */
#ifndef TTV_UI_GRID_H
#define TTV_UI_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "style.h"

#define GRID_WIDE_TAIL 0xFFFFFFFFu

struct cell {
	uint32_t ch;
	uint8_t style;		/* enum style */
	uint8_t attr;		/* ATTR_* */
};

struct rect {
	int x, y, w, h;
};

struct grid {
	int w, h;
	struct cell *cells;	/* w * h, row-major; owned */
	bool utf8;		/* may hold non-ASCII characters */
};

struct grid *grid_new(int w, int h, bool utf8);
void grid_free(struct grid *g);
void grid_resize(struct grid *g, int w, int h);
/* Blanks every cell of a rectangle (clipped). */
void grid_fill(struct grid *g, struct rect r, uint32_t ch, int style,
    int attr);
void grid_clear(struct grid *g);
/* Sets one cell; outside the grid it does nothing. */
void grid_set(struct grid *g, int x, int y, uint32_t ch, int style, int attr);
struct cell *grid_cell(struct grid *g, int x, int y);
/* Adds attributes / changes the style of a run of cells on one row. */
void grid_attr(struct grid *g, int x, int y, int n, int attr);
void grid_restyle(struct grid *g, int x, int y, int n, int style);
/* Writes the program's own UTF-8 text (no escaping, but control
 * characters still become '?') clipped to maxw columns; returns the
 * columns used. */
int grid_puts(struct grid *g, int x, int y, int maxw, const char *s,
    int style, int attr);
int grid_printf(struct grid *g, int x, int y, int maxw, int style, int attr,
    const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* A row as UTF-8 text without trailing blanks (tests, captures); returns
 * a string the caller frees. */
/* Columns a code point takes (0, 1, 2); replaces what can not be shown
 * (controls, non-ASCII on an ASCII grid) in *cp. */
int grid_char_width(const struct grid *g, uint32_t *cp);
char *grid_row_text(const struct grid *g, int y);

/* A sub-rectangle clipped to another. */
struct rect rect_clip(struct rect r, struct rect bound);

#endif
