/*
 * Keys and commands. One table names every command (name, help text) and
 * one table binds keys to commands per context; dispatch, the `?` help
 * pane, the `:` prompt and the key list of man/ttv.1 (ui/keys_man.c) all
 * come from these two tables, so they cannot disagree.
 *
 * Keys are curses-independent: printable characters are themselves,
 * Ctrl-X is 1..26, special keys are TK_* above the Unicode range
 * (term.c translates curses key codes).
 */
#ifndef TTV_UI_KEYS_H
#define TTV_UI_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TK_CTRL(c) ((c) & 0x1f)
#define TK_ESC 27
#define TK_ENTER 13
#define TK_TAB 9

enum {
	TK_UP = 0x110000, TK_DOWN, TK_LEFT, TK_RIGHT, TK_SLEFT, TK_SRIGHT,
	TK_HOME, TK_END, TK_PGUP, TK_PGDN, TK_BTAB, TK_BACKSPACE, TK_DELETE,
	TK_RESIZE, TK_MOUSE, TK_F1,
	TK_NONE = -1,
};

/* Where a binding applies; CTX_GLOBAL applies everywhere unless the
 * current context binds the same key. */
enum key_ctx {
	CTX_GLOBAL,
	CTX_TIMELINE,
	CTX_FLAME,
	CTX_LIST,		/* every list pane */
	CTX_FUNCTIONS,
	CTX_SEARCH,
	CTX_MARKERS,
	CTX_THREADS,
	CTX_LOGS,
	CTX_SQL,
	CTX_CALLTREE,
	CTX_CALLERS,
	CTX_INSTANCES,
	CTX_DIFF,
	CTX_DIFF_TABLE,
	CTX_DIFF_CALLS,
	CTX_DIFF_TIMELINES,
	CTX_HELP,
	CTX_COLUMNS,
	CTX_COUNT
};

enum cmd {
	CMD_NONE,
	/* global */
	CMD_QUIT, CMD_HELP, CMD_REDRAW, CMD_PROMPT,
	CMD_PANE_TIMELINE, CMD_PANE_FLAME, CMD_PANE_FUNCTIONS,
	CMD_PANE_SEARCH, CMD_PANE_MARKERS, CMD_PANE_THREADS, CMD_PANE_LOGS,
	CMD_PANE_SQL, CMD_PANE_CALLTREE, CMD_PANE_CALLERS, CMD_PANE_INSTANCES,
	CMD_PANE_BACKTRACE, CMD_PANE_INFO,
	CMD_PANE_DIFF, CMD_PANE_DIFF_TABLE, CMD_PANE_DIFF_CALLS,
	CMD_PANE_DIFF_TIMELINES,
	CMD_SQL, CMD_COLUMNS, CMD_SOURCE,
	CMD_NEXT_PANE, CMD_PREV_PANE, CMD_TOGGLE_DETAILS,
	CMD_ZOOM_IN, CMD_ZOOM_OUT, CMD_PAN_LEFT, CMD_PAN_RIGHT, CMD_ZOOM_RESET,
	CMD_SEARCH, CMD_SEARCH_NEXT, CMD_SEARCH_PREV, CMD_SEARCH_CLEAR,
	CMD_FILTER_SHOW, CMD_FILTER_HIDE, CMD_FILTER_CLEAR,
	CMD_MARKER_NEXT, CMD_MARKER_PREV, CMD_WRAP_NEXT, CMD_WRAP_PREV,
	CMD_BUFFER_NEXT, CMD_BUFFER_PREV, CMD_CPU_NEXT, CMD_CPU_PREV,
	CMD_EVENT_NEXT, CMD_EVENT_PREV,
	CMD_GOTO, CMD_MARK_SET, CMD_MARK_JUMP,
	CMD_RANGE_START, CMD_RANGE_END, CMD_RANGE_CALL, CMD_RANGE_CLEAR,
	CMD_RANGE, CMD_FOLLOW,
	/* timeline */
	CMD_SLICE_PREV, CMD_SLICE_NEXT, CMD_SLICE_PARENT, CMD_SLICE_CHILD,
	CMD_LANE_NEXT, CMD_LANE_PREV, CMD_LANE_FOLD, CMD_ZOOM_SLICE,
	CMD_FLOW_NEXT, CMD_FLOW_PREV, CMD_WALL_CLOCK,
	CMD_CALL_SLOWER, CMD_CALL_FASTER,
	/* flame */
	CMD_FLAME_LEFT, CMD_FLAME_RIGHT, CMD_FLAME_UP, CMD_FLAME_DOWN,
	CMD_FLAME_ZOOM, CMD_FLAME_UNZOOM, CMD_FLAME_FLIP, CMD_FLAME_THREADS,
	/* lists */
	CMD_LIST_UP, CMD_LIST_DOWN, CMD_LIST_PGUP, CMD_LIST_PGDN,
	CMD_LIST_TOP, CMD_LIST_BOTTOM, CMD_LIST_ENTER,
	CMD_SORT_NEXT, CMD_SORT_PREV, CMD_SORT_REVERSE,
	CMD_THREAD_TOGGLE, CMD_THREAD_INVERT, CMD_THREAD_ALL,
	/* call tree */
	CMD_TREE_FOLD, CMD_TREE_UNFOLD, CMD_TREE_TOGGLE, CMD_TREE_HOT,
	CMD_MATCH_NEXT, CMD_MATCH_PREV,
	/* two traces compared */
	CMD_DIFF_WIDTHS, CMD_DIFF_ONLY, CMD_DIFF_BASE_SIDE, CMD_DIFF_NEW_SIDE,
	CMD_DIFF_NORMALIZE,
	CMD_DIFF_SWAP, CMD_DIFF_ALIGN_START, CMD_DIFF_ALIGN_CALL,
	CMD_DIFF_ALIGN_MARKER,
	CMD_CLOSE, CMD_COLUMN_TOGGLE,
	CMD_COUNT
};

struct viewer;
/* What a command does, given the viewer and the command's own id (one
 * handler may serve a family: the pane keys, the marker jumps). Returns
 * PANE_* flags (view.h). */
typedef int (*cmd_fn)(struct viewer *w, enum cmd c);

/* One row per command, as tmux's command table: its name for `:`, its
 * help for `?` and the manual, and its handler. A NULL handler means the
 * pane in front handles it (moving in a list, in the flame graph...). */
struct command {
	enum cmd cmd;
	const char *name;	/* for the `:` prompt */
	const char *help;
	cmd_fn run;
};

/* The viewer's own commands (viewer.c). */
int cmd_quit(struct viewer *w, enum cmd c);
int cmd_help(struct viewer *w, enum cmd c);
int cmd_redraw(struct viewer *w, enum cmd c);
int cmd_prompt(struct viewer *w, enum cmd c);
int cmd_pane(struct viewer *w, enum cmd c);
int cmd_details(struct viewer *w, enum cmd c);
int cmd_window(struct viewer *w, enum cmd c);
int cmd_search_step(struct viewer *w, enum cmd c);
int cmd_filter_clear(struct viewer *w, enum cmd c);
int cmd_marker(struct viewer *w, enum cmd c);
int cmd_wall_clock(struct viewer *w, enum cmd c);
int cmd_bookmark(struct viewer *w, enum cmd c);
int cmd_sql(struct viewer *w, enum cmd c);
int cmd_calls(struct viewer *w, enum cmd c);
int cmd_diff(struct viewer *w, enum cmd c);
int cmd_range(struct viewer *w, enum cmd c);
int cmd_columns(struct viewer *w, enum cmd c);
int cmd_source(struct viewer *w, enum cmd c);
int cmd_follow(struct viewer *w, enum cmd c);

struct binding {
	enum key_ctx ctx;
	int key;
	enum cmd cmd;
};

extern const struct command commands[];
extern const struct binding bindings[];
extern const size_t nbindings;

/* What the mouse does, for `?` and the manual (the panes' mouse entries
 * do it): where, and what happens. */
struct mouse_action {
	const char *where;
	const char *what;
};
extern const struct mouse_action mouse_actions[];
extern const size_t nmouse_actions;

const struct command *command_get(enum cmd c);
enum cmd command_by_name(const char *name);
/* Command names starting with prefix: how many, their longest common
 * beginning in common, and the names themselves, space-separated, in list
 * (cut at list_size). */
size_t command_complete(const char *prefix, char *common, size_t size,
    char *list, size_t list_size);
/* The command a key runs in a context (falls back to CTX_LIST for list
 * panes, then to CTX_GLOBAL); CMD_NONE if unbound. */
enum cmd keys_lookup(enum key_ctx ctx, int key);
const char *keys_ctx_title(enum key_ctx ctx);
/* Whether a context binds any key of its own (else it only inherits). */
bool keys_ctx_used(enum key_ctx ctx);
/* "q", "Space", "Ctrl-L", "Left"... */
const char *keys_name(int key, char *buf, size_t size);
/* The keys bound to cmd in ctx, as "h, Left"; returns buf. */
const char *keys_for(enum key_ctx ctx, enum cmd cmd, char *buf,
    size_t size);
/* The key list of man/ttv.1, in roff. */
void keys_write_man(FILE *fp);

#endif
