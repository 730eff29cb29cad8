/*
 * The cell grid: an in-memory screen that panes draw into (see grid.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* wcwidth */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "grid.h"
#include "utf8.h"
#include "xalloc.h"

struct grid *
grid_new(int w, int h, bool utf8)
{
	struct grid *g = xcalloc(1, sizeof *g);

	g->utf8 = utf8;
	grid_resize(g, w, h);
	return g;
}

void
grid_free(struct grid *g)
{
	if (g == NULL)
		return;
	free(g->cells);
	free(g);
}

void
grid_resize(struct grid *g, int w, int h)
{
	if (w < 1)
		w = 1;
	if (h < 1)
		h = 1;
	free(g->cells);
	g->w = w;
	g->h = h;
	g->cells = xcalloc((size_t)w * (size_t)h, sizeof *g->cells);
	grid_clear(g);
}

struct cell *
grid_cell(struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

void
grid_set(struct grid *g, int x, int y, uint32_t ch, int style, int attr)
{
	struct cell *c = grid_cell(g, x, y);

	if (c == NULL)
		return;
	c->ch = ch;
	c->style = (uint8_t)style;
	c->attr = (uint8_t)attr;
}

struct rect
rect_clip(struct rect r, struct rect b)
{
	int x0 = r.x > b.x ? r.x : b.x;
	int y0 = r.y > b.y ? r.y : b.y;
	int x1 = r.x + r.w < b.x + b.w ? r.x + r.w : b.x + b.w;
	int y1 = r.y + r.h < b.y + b.h ? r.y + r.h : b.y + b.h;
	struct rect o = { x0, y0, x1 - x0, y1 - y0 };

	if (o.w < 0)
		o.w = 0;
	if (o.h < 0)
		o.h = 0;
	return o;
}

void
grid_fill(struct grid *g, struct rect r, uint32_t ch, int style, int attr)
{
	struct rect all = { 0, 0, g->w, g->h };

	r = rect_clip(r, all);
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			grid_set(g, x, y, ch, style, attr);
}

void
grid_clear(struct grid *g)
{
	struct rect all = { 0, 0, g->w, g->h };

	grid_fill(g, all, ' ', STYLE_NORMAL, 0);
}

void
grid_attr(struct grid *g, int x, int y, int n, int attr)
{
	for (int i = 0; i < n; i++) {
		struct cell *c = grid_cell(g, x + i, y);
		if (c != NULL)
			c->attr |= (uint8_t)attr;
	}
}

void
grid_restyle(struct grid *g, int x, int y, int n, int style)
{
	for (int i = 0; i < n; i++) {
		struct cell *c = grid_cell(g, x + i, y);
		if (c != NULL)
			c->style = (uint8_t)style;
	}
}

int
grid_puts(struct grid *g, int x, int y, int maxw, const char *s, int style,
    int attr)
{
	size_t len = strlen(s), i = 0;
	int n = 0;

	while (i < len && n < maxw) {
		uint32_t cp;
		int w;

		i += utf8_decode(s + i, len - i, &cp);
		w = grid_char_width(g, &cp);
		if (w == 0)
			continue;
		if (n + w > maxw)
			break;
		grid_set(g, x + n, y, cp, style, attr);
		if (w == 2)
			grid_set(g, x + n + 1, y, GRID_WIDE_TAIL, style, attr);
		n += w;
	}
	return n;
}

int
grid_char_width(const struct grid *g, uint32_t *cp)
{
	int w;

	/* Control characters never reach the terminal, whoever wrote
	 * them: C0, DEL and C1 become '?'. */
	if (*cp < 0x20 || (*cp >= 0x7f && *cp < 0xa0)) {
		*cp = '?';
		return 1;
	}
	if (*cp < 0x7f)
		return 1;
	if (!g->utf8) {
		*cp = '?';
		return 1;
	}
	w = wcwidth((wchar_t)*cp);
	if (w < 0) {
		*cp = UTF8_BAD;
		w = 1;
	}
	return w;
}

int
grid_printf(struct grid *g, int x, int y, int maxw, int style, int attr,
    const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return grid_puts(g, x, y, maxw, buf, style, attr);
}

char *
grid_row_text(const struct grid *g, int y)
{
	char *out = xmalloc((size_t)g->w * 4 + 1);
	size_t n = 0, keep = 0;

	for (int x = 0; x < g->w && y >= 0 && y < g->h; x++) {
		uint32_t ch = g->cells[(size_t)y * (size_t)g->w + (size_t)x].ch;
		if (ch == GRID_WIDE_TAIL)
			continue;
		n += utf8_encode(ch, out + n);
		if (ch != ' ')
			keep = n;
	}
	out[keep] = '\0';
	return out;
}
