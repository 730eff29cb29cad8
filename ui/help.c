/*
 * The key list (`?`), drawn over the pane in front: generated from the
 * command and key tables in keys.c — the same tables the manual's key
 * list comes from. The viewer keeps its scroll position and closes it.
 */
#include <stdio.h>
#include <string.h>

#include "panes.h"

struct help_line {
	int ctx;		/* CTX_COUNT: the mouse */
	enum cmd cmd;		/* CMD_NONE: a section title */
	int mouse;		/* a row of mouse_actions, or -1 */
};

static size_t
help_lines(struct help_line *out, size_t max)
{
	size_t n = 0;
	char keys[96];

	for (int ctx = 0; ctx < CTX_COUNT; ctx++) {
		if (!keys_ctx_used((enum key_ctx)ctx))
			continue;
		if (n < max)
			out[n] = (struct help_line){ ctx, CMD_NONE, -1 };
		n++;
		for (int c = 1; c < CMD_COUNT; c++) {
			keys_for((enum key_ctx)ctx, (enum cmd)c, keys,
			    sizeof keys);
			if (keys[0] == '\0')
				continue;
			if (n < max)
				out[n] = (struct help_line){ ctx, (enum cmd)c,
				    -1 };
			n++;
		}
	}
	for (int i = -1; i < (int)nmouse_actions; i++) {
		if (n < max)
			out[n] = (struct help_line){ CTX_COUNT, CMD_NONE, i };
		n++;
	}
	return n;
}

void
help_draw(struct list_pos *p, struct grid *g, struct rect r)
{
	struct help_line lines[256];
	size_t n = help_lines(lines, 256);
	int rows = r.h - 1;
	char keys[96];

	if (n > 256)
		n = 256;
	grid_fill(g, r, ' ', STYLE_NORMAL, 0);
	pane_title(g, r, "Keys", "j/k scroll, q or Esc closes; :NAME runs a "
	    "command (Tab completes); the same list is in man ttv");
	list_clamp(p, n, rows);
	/* The selection is the top line: help scrolls, nothing to pick. */
	p->top = p->sel;
	if (n > (size_t)rows && p->top > n - (size_t)rows)
		p->top = n - (size_t)rows;
	for (int row = 0; row < rows && p->top + (size_t)row < n; row++) {
		const struct help_line *l = &lines[p->top + (size_t)row];
		int y = r.y + 1 + row;
		if (l->ctx == CTX_COUNT && l->mouse < 0) {
			grid_puts(g, r.x, y, r.w, "Mouse", STYLE_TITLE, 0);
			continue;
		}
		if (l->ctx == CTX_COUNT) {
			const struct mouse_action *m = &mouse_actions[l->mouse];
			grid_puts(g, r.x + 2, y, 18, m->where, STYLE_NORMAL,
			    ATTR_BOLD);
			grid_puts(g, r.x + 21, y, r.w - 21, m->what,
			    STYLE_NORMAL, 0);
			continue;
		}
		if (l->cmd == CMD_NONE) {
			grid_puts(g, r.x, y, r.w, keys_ctx_title(
			    (enum key_ctx)l->ctx), STYLE_TITLE, 0);
			continue;
		}
		/* Keys, then the name to type after ':', then what it does. */
		keys_for((enum key_ctx)l->ctx, l->cmd, keys, sizeof keys);
		grid_puts(g, r.x + 2, y, 18, keys, STYLE_NORMAL, ATTR_BOLD);
		grid_printf(g, r.x + 21, y, 15, STYLE_DIM, 0, ":%s",
		    command_get(l->cmd)->name);
		grid_puts(g, r.x + 37, y, r.w - 37, command_get(l->cmd)->help,
		    STYLE_NORMAL, 0);
	}
}

int
help_command(struct list_pos *p, enum cmd c)
{
	struct help_line lines[256];
	size_t n = help_lines(lines, 256);

	if (c == CMD_LIST_DOWN || c == CMD_LIST_PGDN) {
		/* Scrolling stops when the last line is on screen. */
		size_t last = n > (size_t)p->rows ? n - (size_t)p->rows : 0;
		size_t step = c == CMD_LIST_DOWN ? 1 : (size_t)p->rows;
		p->sel = p->sel + step > last ? last : p->sel + step;
		return PANE_REDRAW;
	}
	return list_command(p, n, c);
}
