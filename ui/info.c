/*
 * The info pane: what the trace is and what is in it, the lines `ttv
 * --info` prints (src/query_info.h makes them for both): format, version,
 * clock, time span, threads, record and marker counts, the metadata the
 * reader kept (program, command line, environment where the format
 * records them), the warnings, and the state of the trace's index (the
 * program's line, viewer_set_index). It follows the thread filter and the
 * range, as --info follows --thread and --range.
 *
 * Long lines wrap, their continuation indented; the lines are made again
 * when the filters or the range change (on the worker for big traces: the
 * counts walk every slice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes.h"
#include "query_info.h"
#include "utf8.h"
#include "xalloc.h"

/* A screen row: a piece of a line. */
struct info_row {
	size_t line;
	size_t off, len;	/* bytes of the line */
	bool cont;		/* a continuation: indented */
};

struct info_pane {
	struct pane base;	/* base.pos: the top row (sel follows it) */
	struct info_lines lines;
	bool valid;
	uint64_t asked;		/* the data_gen of the lines on their way */
	struct info_row *rows;
	size_t nrows;
	int rows_w;		/* the width the rows were cut for */
};

#define CONT_INDENT 4

static struct pane *
info_create(struct view *v)
{
	struct info_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	p->asked = UINT64_MAX;
	return &p->base;
}

static void
info_free(struct pane *pane)
{
	struct info_pane *p = (struct info_pane *)pane;

	info_lines_free(&p->lines);
	free(p->rows);
	free(p);
}

static void
info_stale(struct pane *pane, struct view *v, unsigned changed)
{
	(void)v;
	/* The window alone does not change it: the range and the threads
	 * do (VIEW_CHANGED_DATA covers both). */
	if (changed & (VIEW_CHANGED_DATA | VIEW_CHANGED_THREADS))
		((struct info_pane *)pane)->valid = false;
}

struct info_job {
	bool ranged;
	struct info_lines lines;
};

static void
info_job_free(void *arg)
{
	struct info_job *a = arg;

	info_lines_free(&a->lines);
	free(a);
}

static void
info_run(struct job *j)
{
	struct info_job *a = j->arg;
	struct selection sel = { .f = j->filter, .ranged = a->ranged,
	    .t0 = j->t0, .t1 = j->t1 };

	query_info(j->t, &sel, &a->lines);
}

static void
info_install(struct job *j, struct view *v)
{
	struct info_pane *p = j->key;
	struct info_job *a = j->arg;

	if (j->gen != v->data_gen)
		return;
	info_lines_free(&p->lines);
	p->lines = a->lines;
	memset(&a->lines, 0, sizeof a->lines);
	/* Last, as --info prints it. */
	if (v->index_line != NULL) {
		struct info_lines *l = &p->lines;
		l->lines = xreallocarray(l->lines, l->n + 1, sizeof *l->lines);
		l->lines[l->n++] = xstrdup(v->index_line);
	}
	p->valid = true;
	p->rows_w = -1;
}

static void
refresh(struct info_pane *p, struct view *v)
{
	if (p->valid)
		return;
	if (v->async) {
		if (p->asked == v->data_gen)
			return;
		p->asked = v->data_gen;
	}
	struct job *j = job_new(p, v->trace, &v->filter, v->data_gen);
	struct info_job *a = xcalloc(1, sizeof *a);
	/* --info's rule: the whole trace, or the range when one is set */
	a->ranged = v->range_on;
	j->t0 = v->range_on ? v->range_t0 : TTV_NS_MIN;
	j->t1 = v->range_on ? v->range_t1 : TTV_NS_MAX;
	j->run = info_run;
	j->install = info_install;
	j->arg = a;
	j->arg_free = info_job_free;
	view_submit(v, j);
}

/* The lines cut into rows of at most w columns. */
static void
wrap(struct info_pane *p, const struct grid *g, int w)
{
	size_t cap = p->lines.n + 16;

	free(p->rows);
	p->rows = xreallocarray(NULL, cap, sizeof *p->rows);
	p->nrows = 0;
	p->rows_w = w;
	for (size_t i = 0; i < p->lines.n; i++) {
		const char *s = p->lines.lines[i];
		size_t len = strlen(s), off = 0;
		do {
			int room = off == 0 ? w : w - CONT_INDENT, col = 0;
			size_t k = off;
			if (room < 8)
				room = 8;
			while (k < len) {
				uint32_t cp;
				size_t used = utf8_decode(s + k, len - k, &cp);
				int cw = grid_char_width(g, &cp);
				if (col + cw > room)
					break;
				col += cw;
				k += used;
			}
			if (p->nrows == cap) {
				cap *= 2;
				p->rows = xreallocarray(p->rows, cap,
				    sizeof *p->rows);
			}
			p->rows[p->nrows++] = (struct info_row){ i, off,
			    k - off, off > 0 };
			off = k;
		} while (off < len);
	}
}

static void
info_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct info_pane *p = (struct info_pane *)pane;
	struct list_pos *pos = &pane->pos;
	int rows = r.h - 1;

	refresh(p, v);
	if (!p->valid) {
		pane_title(g, r, "Info", "counting...");
		return;
	}
	if (p->rows_w != r.w)
		wrap(p, g, r.w);
	pane_title(g, r, "Info", v->range_on ? "what ttv --info prints; "
	    "the threads and the range shown" : "what ttv --info prints; "
	    "the threads shown");
	/* A page of text: the selection is its top row. */
	if (pos->sel + (size_t)rows > p->nrows)
		pos->sel = p->nrows > (size_t)rows ? p->nrows - (size_t)rows :
		    0;
	pos->top = pos->sel;
	pos->rows = rows;
	for (int row = 0; row < rows && pos->top + (size_t)row < p->nrows;
	    row++) {
		const struct info_row *ir = &p->rows[pos->top + (size_t)row];
		const char *s = p->lines.lines[ir->line] + ir->off;
		int y = r.y + 1 + row, x = r.x + (ir->cont ? CONT_INDENT : 0);
		char buf[1024];
		size_t n = ir->len < sizeof buf - 1 ? ir->len : sizeof buf - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		/* "key: value": the key dim, as in the details pane */
		const char *colon = ir->cont ? NULL : strstr(buf, ": ");
		if (colon == NULL && !ir->cont && n > 0 && buf[n - 1] == ':')
			colon = buf + n - 1;
		if (colon != NULL && buf[0] != ' ') {
			int c = grid_puts(g, x, y, (int)(colon - buf) + 1, buf,
			    STYLE_DIM, 0);
			grid_puts(g, x + c, y, r.w - c, colon + 1,
			    STYLE_NORMAL, 0);
		} else {
			grid_puts(g, x, y, r.w - (x - r.x), buf, STYLE_NORMAL,
			    0);
		}
	}
}

static int
info_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct info_pane *p = (struct info_pane *)pane;
	struct list_pos *pos = &pane->pos;
	size_t page = pos->rows > 1 ? (size_t)pos->rows - 1 : 1;

	(void)v;
	switch (c) {
	case CMD_LIST_UP:
		if (pos->sel > 0)
			pos->sel--;
		return PANE_REDRAW;
	case CMD_LIST_DOWN:
		pos->sel++;		/* the draw keeps the last page full */
		return PANE_REDRAW;
	case CMD_LIST_PGUP:
		pos->sel = pos->sel > page ? pos->sel - page : 0;
		return PANE_REDRAW;
	case CMD_LIST_PGDN:
		pos->sel += page;
		return PANE_REDRAW;
	case CMD_LIST_TOP:
		pos->sel = 0;
		return PANE_REDRAW;
	case CMD_LIST_BOTTOM:
		pos->sel = p->nrows;
		return PANE_REDRAW;
	default:
		return PANE_UNHANDLED;
	}
}

static int
info_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	(void)r;
	(void)x;
	(void)y;
	if (b == MOUSE_CLICK)
		return PANE_HANDLED;
	for (int i = 0; i < 3; i++)
		info_command(pane, v, b == MOUSE_WHEEL_UP ? CMD_LIST_UP :
		    CMD_LIST_DOWN);
	return PANE_REDRAW;
}

const struct pane_class pane_info = {
	.title = "Info",
	.ctx = CTX_LIST,
	.hint = "? keys  j/k scroll  1 timeline",
	.create = info_create,
	.free = info_free,
	.stale = info_stale,
	.draw = info_draw,
	.command = info_command,
	.mouse = info_mouse,
};
