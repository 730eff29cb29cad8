/*
 * A pane is an object: its own state, a struct that starts with a struct
 * pane (its class and its list position), and a class, one const table of
 * entries per kind of pane — as tmux's window modes and htop's
 * PanelClass. The view holds one object of each class (view->panes, in
 * enum pane_id order, made by panes_create(), freed by view_free()) and
 * calls them through the class only: it knows no pane by name. How to
 * add a pane: ui/README.
 *
 * Every entry gets the pane and the view; the pane reads the view's
 * shared state (window, cursor, filters, search...) and changes it
 * through view.h.
 */
#ifndef TTV_UI_PANE_H
#define TTV_UI_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include "grid.h"
#include "keys.h"
#include "model.h"

struct view;

/* The panes, in the order Tab walks them and the pane keys 1 to 9, v,
 * #, t and A name them (CMD_PANE_TIMELINE + id: keys.h); each has its row in the
 * class table (ui/panes.c). */
enum pane_id {
	PANE_TIMELINE, PANE_FLAME, PANE_FUNCTIONS, PANE_SEARCH,
	PANE_MARKERS, PANE_THREADS, PANE_LOGS, PANE_SQL, PANE_CALLTREE,
	PANE_CALLERS, PANE_INSTANCES, PANE_BACKTRACE, PANE_INFO, PANE_DIFF,
	PANE_DIFF_TABLE, PANE_DIFF_CALLS, PANE_DIFF_TIMELINES, PANE_COUNT
};

/* What a command handler tells the main loop. */
#define PANE_UNHANDLED 0x0
#define PANE_HANDLED 0x1
#define PANE_REDRAW 0x2		/* redraw what changed */
#define PANE_DATA 0x4		/* window or filters changed: recompute */
#define PANE_QUIT 0x8

/* What changed in the view, for a pane's stale entry (view_changed). */
#define VIEW_CHANGED_DATA 0x1	/* the window, range or filters: what
				 * was computed of the span is stale */
#define VIEW_CHANGED_THREADS 0x2	/* the threads picked */
#define VIEW_CHANGED_SEARCH 0x4	/* the search's hits */

/* Mouse buttons as panes see them. */
enum mouse_button { MOUSE_CLICK = 1, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN };

/* A scrollable list position. */
struct list_pos {
	size_t sel, top;
	int rows;		/* rows shown at the last draw */
};

struct pane_class;
struct column_set;

/* A pane's own state carried over to a newer read of its trace (ttv
 * --follow, view_carry.h), in terms that outlast the old read (names,
 * not node numbers): made by its class's carry_take, freed by free. */
struct pane_carry {
	void (*free)(struct pane_carry *c);
};

/* The first member of every pane's state. */
struct pane {
	const struct pane_class *cls;
	struct list_pos pos;	/* the selected row, in a list pane */
};

struct pane_class {
	const char *title;	/* in the header line: [Timeline] */
	enum key_ctx ctx;	/* the key context its keys live in */
	/* On the status line when there is nothing else to say. */
	const char *hint;
	/* Its state for the view's trace, which starts with a zeroed
	 * struct pane (panes_create sets cls); free releases it. */
	struct pane *(*create)(struct view *v);
	void (*free)(struct pane *p);
	/* The view changed (VIEW_CHANGED_*): what the pane computed of it
	 * is out of date. NULL: nothing is. Results of background jobs
	 * are installed by the job's own install (jobs.h), which the pane
	 * writes. */
	void (*stale)(struct pane *p, struct view *v, unsigned changed);
	/* Renders into rectangle r of the grid, asking for what it lacks. */
	void (*draw)(struct pane *p, struct view *v, struct grid *g,
	    struct rect r);
	/* A command (a key or :NAME) while the pane is in front: PANE_*
	 * flags, PANE_UNHANDLED to leave it to the viewer. */
	int (*command)(struct pane *p, struct view *v, enum cmd c);
	/* A click or wheel at screen (x, y) inside the pane's rectangle r
	 * (as last drawn); PANE_* flags. */
	int (*mouse)(struct pane *p, struct view *v, struct rect r, int x,
	    int y, enum mouse_button b);
	/* The function the pane's selection is about (what v and # open
	 * the callers and calls of), or CALL_NONE; NULL: the cursor's
	 * call. */
	func_id (*selected_func)(struct pane *p, struct view *v);
	/* The columns the user may choose (columns.h), or NULL: none. */
	struct column_set *(*columns)(struct pane *p);
	/* Whether the pane has anything to show (the comparison's panes
	 * need a second trace): when not, Tab passes it by. NULL: always; a
	 * pane that has the entry needs more than the trace, and the saved
	 * state never names it. */
	bool (*available)(struct pane *p, struct view *v);
	/* Its own state (a zoom, folds) taken from the view of the old
	 * read while that is alive, or NULL; NULL: nothing to carry. */
	struct pane_carry *(*carry_take)(struct pane *p, struct view *v);
	/* What carry_take made, given to the pane of the newer read's
	 * view (just made): it is applied once that view's data is there
	 * (a call tree computed). */
	void (*carry_apply)(struct pane *p, struct view *v,
	    const struct pane_carry *c);
};

/* Shared by list panes (ui/list.c): moves pos over n rows; PANE_*
 * flags. */
int list_command(struct list_pos *pos, size_t n, enum cmd c);
/* A click on a list whose rows start at r.y + 2: selects the row, and a
 * click on the selected row runs `enter`; the wheel scrolls. */
int list_mouse(struct pane *p, struct view *v, struct list_pos *pos,
    size_t n, struct rect r, int y, enum mouse_button b,
    int (*command)(struct pane *, struct view *, enum cmd));
/* Keeps pos->sel inside [0, n) and visible in rows rows. */
void list_clamp(struct list_pos *pos, size_t n, int rows);
/* A pane title line: "title" then detail, in STYLE_TITLE. */
void pane_title(struct grid *g, struct rect r, const char *title,
    const char *detail);

#endif
