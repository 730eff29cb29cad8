/*
 * The panes. Each is a class: a title, the key context its keys live in,
 * a draw function that renders into a rectangle of the grid, and a
 * command handler that returns PANE_* flags (view.h). The viewer loop
 * knows panes only through this table.
 */
#ifndef TTV_UI_PANES_H
#define TTV_UI_PANES_H

#include "grid.h"
#include "keys.h"
#include "view.h"

/* Mouse buttons as panes see them. */
enum mouse_button { MOUSE_CLICK = 1, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN };

struct pane_class {
	const char *title;
	enum key_ctx ctx;
	void (*draw)(struct view *v, struct grid *g, struct rect r);
	int (*command)(struct view *v, enum cmd c);
	/* A click or wheel at screen (x, y) inside the pane's rectangle r
	 * (as last drawn); PANE_* flags. */
	int (*mouse)(struct view *v, struct rect r, int x, int y,
	    enum mouse_button b);
	/* The function the pane's selection is about (what v and # open
	 * the callers and calls of), or CALL_NONE; NULL: none ever. */
	func_id (*selected_func)(struct view *v);
};

extern const struct pane_class pane_timeline;
extern const struct pane_class pane_flame;
extern const struct pane_class pane_functions;
extern const struct pane_class pane_search;
extern const struct pane_class pane_markers;
extern const struct pane_class pane_threads;
extern const struct pane_class pane_logs;
extern const struct pane_class pane_sql;
extern const struct pane_class pane_calltree;
extern const struct pane_class pane_callers;
extern const struct pane_class pane_instances;

const struct pane_class *pane_get(enum pane_id id);

/* The panes' own state (view.h holds it, each file owns its own):
 * results taken from the worker, marked stale when the span or the
 * filters change, freed with the view. */
void timeline_pane_init(struct view *v);
void timeline_pane_rewind(struct view *v);
void timeline_pane_free(struct view *v);
void functions_pane_stale(struct view *v);
void functions_pane_free(struct view *v);
void flame_pane_free(struct view *v);
void markers_pane_stale(struct view *v);
void markers_pane_free(struct view *v);
void logs_pane_stale(struct view *v);
void logs_pane_free(struct view *v);
/* For tests: the functions pane's table (NULL while computing) and its
 * order; the log pane's rows; the flame pane's orientation. */
const struct stats_table *functions_pane_stats(struct view *v,
    enum stats_key *key, bool *desc);
size_t logs_pane_rows(struct view *v, const size_t **rows);
void flame_pane_set_icicle(struct view *v, bool icicle);

/* Not panes of their own: drawn beside/over the others. */
void details_draw(struct view *v, struct grid *g, struct rect r);
void help_draw(struct view *v, struct grid *g, struct rect r);
int help_command(struct view *v, enum cmd c);

/* Shared by list panes: moves pos over n rows; PANE_* flags. */
int list_command(struct list_pos *pos, size_t n, enum cmd c);
/* A click on a list whose rows start at r.y + 2: selects the row, and a
 * click on the selected row runs `enter`; the wheel scrolls. */
int list_mouse(struct view *v, struct list_pos *pos, size_t n,
    struct rect r, int y, enum mouse_button b,
    int (*command)(struct view *, enum cmd));
/* Keeps pos->sel inside [0, n) and visible in rows rows. */
void list_clamp(struct list_pos *pos, size_t n, int rows);
/* A pane title line: "title" then detail, in STYLE_TITLE. */
void pane_title(struct grid *g, struct rect r, const char *title,
    const char *detail);

/* Timeline internals exposed for tests. */
struct lane_row {
	uint32_t track;
	int32_t depth;		/* -1: the lane header */
};
/* The rows the timeline shows, in order (caller frees *rows). */
size_t timeline_rows(const struct view *v, struct lane_row **rows);
/* Draws one depth row of a track over [x, x + w). */
void timeline_draw_depth(struct view *v, struct grid *g, int x, int y,
    int w, uint32_t track, uint32_t depth);
void timeline_draw_ruler(struct view *v, struct grid *g, int x, int y,
    int w);

#endif
