/*
 * The column chooser and the column sets it edits (see columns.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "glyph.h"
#include "xalloc.h"

struct column_set *
pane_column_set(struct pane *p)
{
	return p->cls->columns != NULL ? p->cls->columns(p) : NULL;
}

uint32_t
columns_all(const struct column_set *cs)
{
	return cs->n >= 32 ? UINT32_MAX : ((uint32_t)1 << cs->n) - 1;
}

char *
columns_text(const struct column_set *cs)
{
	size_t len = 1;
	for (size_t i = 0; i < cs->n; i++)
		len += strlen(cs->names[i]) + 1;
	char *s = xmalloc(len), *p = s;
	*p = '\0';
	for (size_t i = 0; i < cs->n; i++)
		if (column_shown(cs, i))
			p += sprintf(p, "%s%s", p == s ? "" : ",",
			    cs->names[i]);
	return s;
}

int
columns_parse(const struct column_set *cs, const char *list, uint32_t *shown)
{
	uint32_t m = 0;

	while (*list != '\0') {
		size_t len = strcspn(list, ",");
		size_t i = 0;
		while (i < cs->n && (strlen(cs->names[i]) != len ||
		    memcmp(cs->names[i], list, len) != 0))
			i++;
		if (i == cs->n)
			return -1;
		m |= (uint32_t)1 << i;
		list += len;
		if (*list == ',' && *++list == '\0')
			return -1;	/* a list does not end in a comma */
	}
	*shown = m;
	return 0;
}

void
columns_draw(const struct column_set *cs, struct list_pos *pos,
    const char *pane_title, struct grid *g, struct rect r)
{
	char buf[96];
	int w = 44, h = (int)cs->n + 3;

	if (w > r.w)
		w = r.w;
	if (h > r.h)
		h = r.h;
	/* a box at the pane's right, over its rows */
	struct rect b = { r.x + r.w - w, r.y + 1, w, h };
	if (b.y + b.h > r.y + r.h)
		b.y = r.y + r.h - b.h;
	grid_fill(g, b, ' ', STYLE_NORMAL, 0);
	for (int x = 0; x < b.w; x++) {
		grid_set(g, b.x + x, b.y, GLYPH_HLINE(g->utf8), STYLE_BORDER,
		    0);
		grid_set(g, b.x + x, b.y + b.h - 1, GLYPH_HLINE(g->utf8),
		    STYLE_BORDER, 0);
	}
	for (int y = 0; y < b.h; y++)
		grid_set(g, b.x, b.y + y, y == 0 ? GLYPH(g->utf8, 0x250c,
		    '+') : y == b.h - 1 ? GLYPH(g->utf8, 0x2514, '+') :
		    GLYPH_VLINE(g->utf8), STYLE_BORDER, 0);
	snprintf(buf, sizeof buf, " Columns of %s ", pane_title);
	grid_puts(g, b.x + 2, b.y, b.w - 3, buf, STYLE_TITLE, 0);
	grid_puts(g, b.x + 2, b.y + 1, b.w - 3, "Space shows or hides, "
	    "Esc closes", STYLE_DIM, 0);
	int rows = b.h - 3;
	list_clamp(pos, cs->n, rows);
	for (int row = 0; row < rows && pos->top + (size_t)row < cs->n;
	    row++) {
		size_t i = pos->top + (size_t)row;
		int y = b.y + 2 + row;
		int style = i == pos->sel ? STYLE_SELECTED : STYLE_NORMAL;
		if (i == pos->sel)
			grid_fill(g, (struct rect){ b.x + 1, y, b.w - 1, 1 },
			    ' ', STYLE_SELECTED, 0);
		snprintf(buf, sizeof buf, "[%c] %s", column_shown(cs, i) ?
		    'x' : ' ', cs->names[i]);
		grid_puts(g, b.x + 2, y, b.w - 3, buf, style, 0);
	}
}

int
columns_command(struct column_set *cs, struct list_pos *pos, enum cmd c,
    const char **msg)
{
	*msg = NULL;
	if (c != CMD_COLUMN_TOGGLE)
		return list_command(pos, cs->n, c);
	if (pos->sel >= cs->n)
		return PANE_HANDLED;
	uint32_t bit = (uint32_t)1 << pos->sel;
	if ((cs->shown & ~bit) == 0) {
		*msg = "one column at least stays";
		return PANE_REDRAW;
	}
	cs->shown ^= bit;
	return PANE_REDRAW;
}
