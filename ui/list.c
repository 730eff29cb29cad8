/*
 * What every list pane shares: moving a selection over n rows, keeping
 * it on screen, and the title line.
 */
#include <string.h>

#include "pane.h"

void
list_clamp(struct list_pos *p, size_t n, int rows)
{
	if (rows < 1)
		rows = 1;
	p->rows = rows;
	if (n == 0) {
		p->sel = p->top = 0;
		return;
	}
	if (p->sel >= n)
		p->sel = n - 1;
	if (p->top > p->sel)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)rows)
		p->top = p->sel - (size_t)rows + 1;
}

int
list_command(struct list_pos *p, size_t n, enum cmd c)
{
	size_t page = p->rows > 1 ? (size_t)p->rows - 1 : 1;

	switch (c) {
	case CMD_LIST_UP:
		if (p->sel > 0)
			p->sel--;
		break;
	case CMD_LIST_DOWN:
		if (p->sel + 1 < n)
			p->sel++;
		break;
	case CMD_LIST_PGUP:
		p->sel = p->sel > page ? p->sel - page : 0;
		break;
	case CMD_LIST_PGDN:
		p->sel = n == 0 ? 0 : p->sel + page < n ? p->sel + page : n - 1;
		break;
	case CMD_LIST_TOP:
		p->sel = 0;
		break;
	case CMD_LIST_BOTTOM:
		p->sel = n ? n - 1 : 0;
		break;
	default:
		return PANE_UNHANDLED;
	}
	list_clamp(p, n, p->rows);
	return PANE_REDRAW;
}

int
list_mouse(struct pane *pane, struct view *v, struct list_pos *p, size_t n,
    struct rect r, int y, enum mouse_button b,
    int (*command)(struct pane *, struct view *, enum cmd))
{
	size_t row;

	if (b == MOUSE_WHEEL_UP || b == MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			list_command(p, n, b == MOUSE_WHEEL_UP ? CMD_LIST_UP :
			    CMD_LIST_DOWN);
		return PANE_REDRAW;
	}
	if (y < r.y + 2)
		return PANE_HANDLED;
	row = p->top + (size_t)(y - r.y - 2);
	if (row >= n)
		return PANE_HANDLED;
	if (row == p->sel)
		return command(pane, v, CMD_LIST_ENTER);
	p->sel = row;
	return PANE_REDRAW;
}

void
pane_title(struct grid *g, struct rect r, const char *title,
    const char *detail)
{
	int c = grid_puts(g, r.x, r.y, r.w, title, STYLE_TITLE, 0);

	if (detail != NULL && c + 2 < r.w)
		grid_puts(g, r.x + c + 2, r.y, r.w - c - 2, detail, STYLE_DIM,
		    0);
}
