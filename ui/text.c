/*
 * Trace text into cells, always escaped (see text.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* wcwidth */
#endif
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "escape.h"
#include "text.h"
#include "utf8.h"

/* Names longer than this are cut before escaping: no pane is wider. */
#define TEXT_MAX_IN 2048

#define cell_width grid_char_width

/* Escapes s into buf (NUL-terminated); returns the escaped length. */
static size_t
escape(const char *s, size_t len, char *buf, size_t size)
{
	if (len > TEXT_MAX_IN)
		len = TEXT_MAX_IN;
	buf[0] = '\0';
	escape_text(s, len, buf, size);
	buf[size - 1] = '\0';
	return strlen(buf);
}

int
text_put(struct grid *g, int x, int y, int maxw, const char *s, size_t len,
    int style, int attr)
{
	char buf[TEXT_MAX_IN * 4 + 16];
	size_t n = escape(s, len, buf, sizeof buf), i = 0;
	int col = 0;

	while (i < n && col < maxw) {
		uint32_t cp;
		size_t used = utf8_decode(buf + i, n - i, &cp);
		int w;

		i += used;
		w = cell_width(g, &cp);
		if (w == 0)
			continue;	/* combining marks: dropped, not merged */
		if (col + w > maxw)
			break;
		grid_set(g, x + col, y, cp, style, attr);
		if (w == 2)
			grid_set(g, x + col + 1, y, GRID_WIDE_TAIL, style,
			    attr);
		col += w;
	}
	return col;
}

int
text_width(const struct grid *g, const char *s, size_t len, int cap)
{
	char buf[TEXT_MAX_IN * 4 + 16];
	size_t n = escape(s, len, buf, sizeof buf), i = 0;
	int col = 0;

	while (i < n && col < cap) {
		uint32_t cp;
		i += utf8_decode(buf + i, n - i, &cp);
		col += cell_width(g, &cp);
	}
	return col;
}

/* Cells of escaped text: code point and width, combining marks dropped. */
struct tcell {
	uint32_t cp;
	int w;
};

int
text_put_mid(struct grid *g, int x, int y, int maxw, const char *s,
    size_t len, int style, int attr)
{
	char buf[TEXT_MAX_IN * 4 + 16];
	size_t n = escape(s, len, buf, sizeof buf), i = 0, nc = 0;
	int total = 0;

	/* Too narrow to keep both ends readable: plain cut. */
	if (maxw < 8)
		return text_put(g, x, y, maxw, s, len, style, attr);
	struct tcell *c = malloc((n + 1) * sizeof *c);
	if (c == NULL)
		return text_put(g, x, y, maxw, s, len, style, attr);
	while (i < n) {
		uint32_t cp;
		i += utf8_decode(buf + i, n - i, &cp);
		int w = cell_width(g, &cp);
		if (w == 0)
			continue;
		c[nc].cp = cp;
		c[nc++].w = w;
		total += w;
	}
	int col = 0;
	if (total <= maxw) {
		for (size_t k = 0; k < nc; col += c[k++].w) {
			grid_set(g, x + col, y, c[k].cp, style, attr);
			if (c[k].w == 2)
				grid_set(g, x + col + 1, y, GRID_WIDE_TAIL,
				    style, attr);
		}
		free(c);
		return col;
	}
	/* The end of a qualified name says which one it is: give it the
	 * larger part. */
	int room = maxw - 1, tailw = room * 3 / 5, headw = room - tailw;
	size_t head = 0, tail = nc;
	int hw = 0, tw = 0;
	while (head < nc && hw + c[head].w <= headw)
		hw += c[head++].w;
	while (tail > head && tw + c[tail - 1].w <= tailw + (headw - hw))
		tw += c[--tail].w;
	for (size_t k = 0; k < head; col += c[k++].w) {
		grid_set(g, x + col, y, c[k].cp, style, attr);
		if (c[k].w == 2)
			grid_set(g, x + col + 1, y, GRID_WIDE_TAIL, style,
			    attr);
	}
	grid_set(g, x + col, y, g->utf8 ? 0x2026 : '~', style, attr);
	col++;
	for (size_t k = tail; k < nc; col += c[k++].w) {
		grid_set(g, x + col, y, c[k].cp, style, attr);
		if (c[k].w == 2)
			grid_set(g, x + col + 1, y, GRID_WIDE_TAIL, style,
			    attr);
	}
	free(c);
	return col;
}
