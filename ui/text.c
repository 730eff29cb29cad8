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
