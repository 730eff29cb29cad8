/*
 * The command table and the key bindings (see keys.h). To add a command:
 * one row in commands[] naming its handler, one or more in bindings[]. A
 * command of one pane has no handler here: the pane's own command
 * function takes it.
 */
#include <stdio.h>
#include <string.h>

#include "keys.h"

const struct command commands[] = {
	{ CMD_NONE, "none", "", NULL },
	{ CMD_QUIT, "quit", "leave ttv", cmd_quit },
	{ CMD_HELP, "help", "show this list of keys", cmd_help },
	{ CMD_REDRAW, "redraw", "repaint the whole screen", cmd_redraw },
	{ CMD_PROMPT, "command", "type a command by name", cmd_prompt },
	{ CMD_PANE_TIMELINE, "timeline", "timeline pane", cmd_pane },
	{ CMD_PANE_FLAME, "flame", "flame graph pane", cmd_pane },
	{ CMD_PANE_FUNCTIONS, "functions", "functions (statistics) pane",
	    cmd_pane },
	{ CMD_PANE_SEARCH, "results", "search results pane", cmd_pane },
	{ CMD_PANE_MARKERS, "markers", "marker list pane", cmd_pane },
	{ CMD_PANE_THREADS, "threads", "thread filter pane", cmd_pane },
	{ CMD_PANE_LOGS, "logs", "log pane: log records with time and thread",
	    cmd_pane },
	{ CMD_PANE_SQL, "sql-pane", "SQL pane: the last query's rows",
	    cmd_pane },
	{ CMD_PANE_CALLTREE, "calltree",
	    "call tree: call paths with calls, total, self", cmd_pane },
	{ CMD_PANE_CALLERS, "callers",
	    "callers and callees of the selected function", cmd_calls },
	{ CMD_PANE_INSTANCES, "calls",
	    "every call of the selected function, slowest first", cmd_calls },
	{ CMD_PANE_BACKTRACE, "backtrace",
	    "backtrace: the selected call and its callers up to the root",
	    cmd_pane },
	{ CMD_PANE_INFO, "info",
	    "info: format, clock, threads, counts, metadata, warnings",
	    cmd_pane },
	{ CMD_PANE_DIFF, "diff",
	    "differential flame graph against a base trace (:diff BASE "
	    "loads one)", cmd_diff },
	{ CMD_PANE_DIFF_TABLE, "diff-table",
	    "the functions of both traces compared, largest change first",
	    cmd_diff },
	{ CMD_PANE_DIFF_CALLS, "diff-calls",
	    "the selected function in both traces: durations overlaid, calls",
	    cmd_diff },
	{ CMD_PANE_DIFF_TIMELINES, "diff-timelines",
	    "both traces' timelines stacked, scrolled and zoomed together",
	    cmd_diff },
	{ CMD_SQL, "sql", "SQL query over the window and filters (:sql ...)",
	    cmd_sql },
	{ CMD_COLUMNS, "columns",
	    "choose the columns of the functions or calls pane", cmd_columns },
	{ CMD_SOURCE, "source",
	    "open the selected function's source in $VISUAL or $EDITOR",
	    cmd_source },
	{ CMD_NEXT_PANE, "next-pane", "next pane", cmd_pane },
	{ CMD_PREV_PANE, "prev-pane", "previous pane", cmd_pane },
	{ CMD_TOGGLE_DETAILS, "details", "show or hide the details pane",
	    cmd_details },
	{ CMD_ZOOM_IN, "zoom-in", "zoom in around the cursor", cmd_window },
	{ CMD_ZOOM_OUT, "zoom-out", "zoom out around the cursor", cmd_window },
	{ CMD_PAN_LEFT, "pan-left", "pan left by a quarter of the window",
	    cmd_window },
	{ CMD_PAN_RIGHT, "pan-right", "pan right by a quarter of the window",
	    cmd_window },
	{ CMD_ZOOM_RESET, "zoom-reset", "show the whole trace", cmd_window },
	{ CMD_SEARCH, "search", "search function names (pcre2 regex)",
	    cmd_prompt },
	{ CMD_SEARCH_NEXT, "search-next", "next match in time",
	    cmd_search_step },
	{ CMD_SEARCH_PREV, "search-prev", "previous match in time",
	    cmd_search_step },
	{ CMD_SEARCH_CLEAR, "search-clear", "clear the search",
	    cmd_search_step },
	{ CMD_FILTER_SHOW, "filter-show",
	    "show only functions matching a regex", cmd_prompt },
	{ CMD_FILTER_HIDE, "filter-hide", "hide functions matching a regex",
	    cmd_prompt },
	{ CMD_FILTER_CLEAR, "filter-clear",
	    "clear thread and function filters", cmd_filter_clear },
	{ CMD_MARKER_NEXT, "marker-next", "next marker of any kind",
	    cmd_marker },
	{ CMD_MARKER_PREV, "marker-prev", "previous marker of any kind",
	    cmd_marker },
	{ CMD_WRAP_NEXT, "wrap-next", "next TSC wrap", cmd_marker },
	{ CMD_WRAP_PREV, "wrap-prev", "previous TSC wrap", cmd_marker },
	{ CMD_BUFFER_NEXT, "buffer-next", "next buffer boundary", cmd_marker },
	{ CMD_BUFFER_PREV, "buffer-prev", "previous buffer boundary",
	    cmd_marker },
	{ CMD_CPU_NEXT, "cpu-next", "next CPU change", cmd_marker },
	{ CMD_CPU_PREV, "cpu-prev", "previous CPU change", cmd_marker },
	{ CMD_EVENT_NEXT, "event-next", "next custom event", cmd_marker },
	{ CMD_EVENT_PREV, "event-prev", "previous custom event", cmd_marker },
	{ CMD_GOTO, "goto",
	    "go to a time: +1.5ms from the start, -1s from the end, >5ms or "
	    "<5ms from the cursor, 13:05:01.250", cmd_prompt },
	{ CMD_MARK_SET, "mark", "set bookmark a-z (then press the letter)",
	    cmd_bookmark },
	{ CMD_MARK_JUMP, "jump", "return to bookmark a-z", cmd_bookmark },
	{ CMD_RANGE_START, "range-start",
	    "start the range at the cursor (past its end: swapped)",
	    cmd_range },
	{ CMD_RANGE_END, "range-end",
	    "end the range at the cursor (before its start: swapped)",
	    cmd_range },
	{ CMD_RANGE_CALL, "range-call", "range: the selected call's span",
	    cmd_range },
	{ CMD_RANGE_CLEAR, "range-clear",
	    "clear the range: panes follow the window again", cmd_range },
	{ CMD_RANGE, "range", "type a range: 1ms..2ms, +1.2ms..+3ms, -1ms..",
	    cmd_prompt },
	{ CMD_FOLLOW, "follow",
	    "--follow: keep the window at the end as the trace grows, or "
	    "pause (a key that moves the window or cursor pauses too)",
	    cmd_follow },
	{ CMD_SLICE_PREV, "slice-prev", "previous slice at this depth", NULL },
	{ CMD_SLICE_NEXT, "slice-next", "next slice at this depth", NULL },
	{ CMD_SLICE_PARENT, "slice-parent", "parent slice (caller)", NULL },
	{ CMD_SLICE_CHILD, "slice-child",
	    "child slice at the cursor's time (callee)", NULL },
	{ CMD_LANE_NEXT, "lane-next",
	    "next thread lane, its call at the cursor's time", NULL },
	{ CMD_LANE_PREV, "lane-prev",
	    "previous thread lane, its call at the cursor's time", NULL },
	{ CMD_LANE_FOLD, "lane-fold", "collapse or expand the cursor's lane",
	    NULL },
	{ CMD_ZOOM_SLICE, "zoom-slice", "zoom to the selected slice", NULL },
	{ CMD_FLOW_NEXT, "flow-next",
	    "follow an outgoing flow to the next slice in it", NULL },
	{ CMD_FLOW_PREV, "flow-prev",
	    "follow an incoming flow back to the previous slice", NULL },
	{ CMD_WALL_CLOCK, "wall-clock",
	    "times since trace start or wall-clock time of day (UTC)",
	    cmd_wall_clock },
	{ CMD_CALL_SLOWER, "call-slower",
	    "next slower call of the selected function, by rank", NULL },
	{ CMD_CALL_FASTER, "call-faster",
	    "next faster call of the selected function, by rank", NULL },
	{ CMD_FLAME_LEFT, "node-left", "node to the left", NULL },
	{ CMD_FLAME_RIGHT, "node-right", "node to the right", NULL },
	{ CMD_FLAME_UP, "node-up", "node above", NULL },
	{ CMD_FLAME_DOWN, "node-down", "node below", NULL },
	{ CMD_FLAME_ZOOM, "node-zoom", "zoom into the selected node", NULL },
	{ CMD_FLAME_UNZOOM, "node-unzoom", "zoom back out one node", NULL },
	{ CMD_FLAME_FLIP, "flip",
	    "switch flame graph (root at bottom) and icicle", NULL },
	{ CMD_FLAME_THREADS, "per-thread",
	    "switch merged threads and per thread", NULL },
	{ CMD_LIST_UP, "up", "previous row", NULL },
	{ CMD_LIST_DOWN, "down", "next row", NULL },
	{ CMD_LIST_PGUP, "page-up", "previous page", NULL },
	{ CMD_LIST_PGDN, "page-down", "next page", NULL },
	{ CMD_LIST_TOP, "top", "first row", NULL },
	{ CMD_LIST_BOTTOM, "bottom", "last row", NULL },
	{ CMD_LIST_ENTER, "enter", "jump to the row in the timeline", NULL },
	{ CMD_SORT_NEXT, "sort-next", "sort by the next column", NULL },
	{ CMD_SORT_PREV, "sort-prev", "sort by the previous column", NULL },
	{ CMD_SORT_REVERSE, "sort-reverse", "reverse the sort order", NULL },
	{ CMD_THREAD_TOGGLE, "thread-toggle", "select or unselect the thread",
	    NULL },
	{ CMD_THREAD_INVERT, "thread-invert",
	    "invert: hide the selected threads", NULL },
	{ CMD_THREAD_ALL, "thread-all", "select all threads or none", NULL },
	{ CMD_TREE_FOLD, "fold", "fold the node, or go to its parent", NULL },
	{ CMD_TREE_UNFOLD, "unfold", "unfold the node, or go to its first child",
	    NULL },
	{ CMD_TREE_TOGGLE, "fold-toggle", "fold or unfold the node", NULL },
	{ CMD_TREE_HOT, "hot-path", "unfold the hottest path below the node",
	    NULL },
	{ CMD_MATCH_NEXT, "match-next", "next node matching the search", NULL },
	{ CMD_MATCH_PREV, "match-prev", "previous node matching the search",
	    NULL },
	{ CMD_DIFF_WIDTHS, "base-widths",
	    "widths of the new trace or of the base (shows what vanished)",
	    NULL },
	{ CMD_DIFF_ONLY, "only-paths",
	    "the graph, or the list of call paths only in one trace", NULL },
	{ CMD_DIFF_BASE_SIDE, "base-calls", "the base's calls (the left list)",
	    NULL },
	{ CMD_DIFF_NEW_SIDE, "new-calls",
	    "the new trace's calls (the right list)", NULL },
	{ CMD_DIFF_NORMALIZE, "normalize",
	    "histograms as shares of each trace's calls, or as counts", NULL },
	{ CMD_DIFF_SWAP, "swap", "swap the trace on top and the one below",
	    NULL },
	{ CMD_DIFF_ALIGN_START, "align-start",
	    "align the two timelines on their starts", NULL },
	{ CMD_DIFF_ALIGN_CALL, "align-call",
	    "align on the first call of the cursor's function in each trace",
	    NULL },
	{ CMD_DIFF_ALIGN_MARKER, "align-marker",
	    "align on the marker at the cursor and the same one in the other",
	    NULL },
	{ CMD_CLOSE, "close", "close this pane", NULL },
	{ CMD_COLUMN_TOGGLE, "column-toggle", "show or hide the column",
	    NULL },
	{ CMD_COUNT, NULL, NULL, NULL },
};

const struct binding bindings[] = {
	{ CTX_GLOBAL, 'q', CMD_QUIT },
	{ CTX_GLOBAL, '?', CMD_HELP },
	{ CTX_GLOBAL, TK_F1, CMD_HELP },
	{ CTX_GLOBAL, TK_CTRL('L'), CMD_REDRAW },
	{ CTX_GLOBAL, ':', CMD_PROMPT },
	{ CTX_GLOBAL, '1', CMD_PANE_TIMELINE },
	{ CTX_GLOBAL, '2', CMD_PANE_FLAME },
	{ CTX_GLOBAL, '3', CMD_PANE_FUNCTIONS },
	{ CTX_GLOBAL, '4', CMD_PANE_SEARCH },
	{ CTX_GLOBAL, '5', CMD_PANE_MARKERS },
	{ CTX_GLOBAL, '6', CMD_PANE_THREADS },
	{ CTX_GLOBAL, 'T', CMD_PANE_THREADS },
	{ CTX_GLOBAL, '7', CMD_PANE_LOGS },
	{ CTX_GLOBAL, '8', CMD_PANE_SQL },
	{ CTX_GLOBAL, '9', CMD_PANE_CALLTREE },
	{ CTX_GLOBAL, 'v', CMD_PANE_CALLERS },
	{ CTX_GLOBAL, '#', CMD_PANE_INSTANCES },
	{ CTX_GLOBAL, 't', CMD_PANE_BACKTRACE },
	{ CTX_GLOBAL, 'A', CMD_PANE_INFO },
	{ CTX_GLOBAL, 'D', CMD_PANE_DIFF },
	{ CTX_GLOBAL, '%', CMD_PANE_DIFF_TABLE },
	{ CTX_GLOBAL, '@', CMD_PANE_DIFF_CALLS },
	{ CTX_GLOBAL, '&', CMD_PANE_DIFF_TIMELINES },
	{ CTX_GLOBAL, 's', CMD_SQL },
	{ CTX_GLOBAL, 'V', CMD_COLUMNS },
	{ CTX_GLOBAL, 'O', CMD_SOURCE },
	{ CTX_GLOBAL, TK_TAB, CMD_NEXT_PANE },
	{ CTX_GLOBAL, TK_BTAB, CMD_PREV_PANE },
	{ CTX_GLOBAL, 'd', CMD_TOGGLE_DETAILS },
	{ CTX_GLOBAL, '+', CMD_ZOOM_IN },
	{ CTX_GLOBAL, '=', CMD_ZOOM_IN },
	{ CTX_GLOBAL, 'i', CMD_ZOOM_IN },
	{ CTX_GLOBAL, '-', CMD_ZOOM_OUT },
	{ CTX_GLOBAL, 'o', CMD_ZOOM_OUT },
	{ CTX_GLOBAL, 'H', CMD_PAN_LEFT },
	{ CTX_GLOBAL, TK_SLEFT, CMD_PAN_LEFT },
	{ CTX_GLOBAL, 'L', CMD_PAN_RIGHT },
	{ CTX_GLOBAL, TK_SRIGHT, CMD_PAN_RIGHT },
	{ CTX_GLOBAL, '0', CMD_ZOOM_RESET },
	{ CTX_GLOBAL, '/', CMD_SEARCH },
	{ CTX_GLOBAL, 'n', CMD_SEARCH_NEXT },
	{ CTX_GLOBAL, 'N', CMD_SEARCH_PREV },
	{ CTX_GLOBAL, '\\', CMD_SEARCH_CLEAR },
	{ CTX_GLOBAL, 'f', CMD_FILTER_SHOW },
	{ CTX_GLOBAL, 'F', CMD_FILTER_HIDE },
	{ CTX_GLOBAL, 'x', CMD_FILTER_CLEAR },
	{ CTX_GLOBAL, ']', CMD_MARKER_NEXT },
	{ CTX_GLOBAL, '[', CMD_MARKER_PREV },
	{ CTX_GLOBAL, 'w', CMD_WRAP_NEXT },
	{ CTX_GLOBAL, 'W', CMD_WRAP_PREV },
	{ CTX_GLOBAL, 'b', CMD_BUFFER_NEXT },
	{ CTX_GLOBAL, 'B', CMD_BUFFER_PREV },
	{ CTX_GLOBAL, 'c', CMD_CPU_NEXT },
	{ CTX_GLOBAL, 'C', CMD_CPU_PREV },
	{ CTX_GLOBAL, 'e', CMD_EVENT_NEXT },
	{ CTX_GLOBAL, 'E', CMD_EVENT_PREV },
	{ CTX_GLOBAL, 'g', CMD_GOTO },
	{ CTX_GLOBAL, 'm', CMD_MARK_SET },
	{ CTX_GLOBAL, '\'', CMD_MARK_JUMP },
	{ CTX_GLOBAL, 'U', CMD_WALL_CLOCK },
	{ CTX_GLOBAL, '{', CMD_RANGE_START },
	{ CTX_GLOBAL, '}', CMD_RANGE_END },
	{ CTX_GLOBAL, 'R', CMD_RANGE_CALL },
	{ CTX_GLOBAL, '|', CMD_RANGE_CLEAR },
	{ CTX_GLOBAL, TK_CTRL('R'), CMD_RANGE },
	{ CTX_GLOBAL, 'G', CMD_FOLLOW },

	{ CTX_TIMELINE, 'h', CMD_SLICE_PREV },
	{ CTX_TIMELINE, TK_LEFT, CMD_SLICE_PREV },
	{ CTX_TIMELINE, 'l', CMD_SLICE_NEXT },
	{ CTX_TIMELINE, TK_RIGHT, CMD_SLICE_NEXT },
	{ CTX_TIMELINE, 'k', CMD_SLICE_PARENT },
	{ CTX_TIMELINE, TK_UP, CMD_SLICE_PARENT },
	{ CTX_TIMELINE, 'j', CMD_SLICE_CHILD },
	{ CTX_TIMELINE, TK_DOWN, CMD_SLICE_CHILD },
	{ CTX_TIMELINE, 'J', CMD_LANE_NEXT },
	{ CTX_TIMELINE, TK_PGDN, CMD_LANE_NEXT },
	{ CTX_TIMELINE, 'K', CMD_LANE_PREV },
	{ CTX_TIMELINE, TK_PGUP, CMD_LANE_PREV },
	{ CTX_TIMELINE, ' ', CMD_LANE_FOLD },
	{ CTX_TIMELINE, 'z', CMD_ZOOM_SLICE },
	{ CTX_TIMELINE, TK_ENTER, CMD_ZOOM_SLICE },
	{ CTX_TIMELINE, '>', CMD_FLOW_NEXT },
	{ CTX_TIMELINE, '<', CMD_FLOW_PREV },
	{ CTX_TIMELINE, '.', CMD_CALL_SLOWER },
	{ CTX_TIMELINE, ',', CMD_CALL_FASTER },

	{ CTX_FLAME, 'h', CMD_FLAME_LEFT },
	{ CTX_FLAME, TK_LEFT, CMD_FLAME_LEFT },
	{ CTX_FLAME, 'l', CMD_FLAME_RIGHT },
	{ CTX_FLAME, TK_RIGHT, CMD_FLAME_RIGHT },
	{ CTX_FLAME, 'k', CMD_FLAME_UP },
	{ CTX_FLAME, TK_UP, CMD_FLAME_UP },
	{ CTX_FLAME, 'j', CMD_FLAME_DOWN },
	{ CTX_FLAME, TK_DOWN, CMD_FLAME_DOWN },
	{ CTX_FLAME, 'z', CMD_FLAME_ZOOM },
	{ CTX_FLAME, TK_ENTER, CMD_FLAME_ZOOM },
	{ CTX_FLAME, 'u', CMD_FLAME_UNZOOM },
	{ CTX_FLAME, TK_BACKSPACE, CMD_FLAME_UNZOOM },
	{ CTX_FLAME, 'I', CMD_FLAME_FLIP },
	{ CTX_FLAME, 'p', CMD_FLAME_THREADS },

	{ CTX_LIST, 'k', CMD_LIST_UP },
	{ CTX_LIST, TK_UP, CMD_LIST_UP },
	{ CTX_LIST, 'j', CMD_LIST_DOWN },
	{ CTX_LIST, TK_DOWN, CMD_LIST_DOWN },
	{ CTX_LIST, TK_PGUP, CMD_LIST_PGUP },
	{ CTX_LIST, TK_CTRL('B'), CMD_LIST_PGUP },
	{ CTX_LIST, TK_PGDN, CMD_LIST_PGDN },
	{ CTX_LIST, TK_CTRL('F'), CMD_LIST_PGDN },
	{ CTX_LIST, TK_HOME, CMD_LIST_TOP },
	{ CTX_LIST, TK_END, CMD_LIST_BOTTOM },
	{ CTX_LIST, TK_ENTER, CMD_LIST_ENTER },

	{ CTX_FUNCTIONS, 's', CMD_SORT_NEXT },
	{ CTX_FUNCTIONS, '>', CMD_SORT_NEXT },
	{ CTX_FUNCTIONS, 'S', CMD_SORT_PREV },
	{ CTX_FUNCTIONS, '<', CMD_SORT_PREV },
	{ CTX_FUNCTIONS, 'r', CMD_SORT_REVERSE },

	{ CTX_THREADS, ' ', CMD_THREAD_TOGGLE },
	{ CTX_THREADS, 'I', CMD_THREAD_INVERT },
	{ CTX_THREADS, 'a', CMD_THREAD_ALL },
	{ CTX_THREADS, TK_ENTER, CMD_PANE_TIMELINE },

	{ CTX_LOGS, '/', CMD_SEARCH },

	{ CTX_SQL, TK_ESC, CMD_CLOSE },

	{ CTX_CALLTREE, 'h', CMD_TREE_FOLD },
	{ CTX_CALLTREE, TK_LEFT, CMD_TREE_FOLD },
	{ CTX_CALLTREE, 'l', CMD_TREE_UNFOLD },
	{ CTX_CALLTREE, TK_RIGHT, CMD_TREE_UNFOLD },
	{ CTX_CALLTREE, ' ', CMD_TREE_TOGGLE },
	{ CTX_CALLTREE, TK_ENTER, CMD_TREE_TOGGLE },
	{ CTX_CALLTREE, '*', CMD_TREE_HOT },
	{ CTX_CALLTREE, 'n', CMD_MATCH_NEXT },
	{ CTX_CALLTREE, 'N', CMD_MATCH_PREV },
	{ CTX_CALLTREE, 'p', CMD_FLAME_THREADS },

	{ CTX_INSTANCES, 's', CMD_SORT_NEXT },
	{ CTX_INSTANCES, '>', CMD_SORT_NEXT },
	{ CTX_INSTANCES, 'S', CMD_SORT_PREV },
	{ CTX_INSTANCES, '<', CMD_SORT_PREV },
	{ CTX_INSTANCES, 'r', CMD_SORT_REVERSE },

	{ CTX_DIFF, 'h', CMD_FLAME_LEFT },
	{ CTX_DIFF, TK_LEFT, CMD_FLAME_LEFT },
	{ CTX_DIFF, 'l', CMD_FLAME_RIGHT },
	{ CTX_DIFF, TK_RIGHT, CMD_FLAME_RIGHT },
	{ CTX_DIFF, 'k', CMD_FLAME_UP },
	{ CTX_DIFF, TK_UP, CMD_FLAME_UP },
	{ CTX_DIFF, 'j', CMD_FLAME_DOWN },
	{ CTX_DIFF, TK_DOWN, CMD_FLAME_DOWN },
	{ CTX_DIFF, 'z', CMD_FLAME_ZOOM },
	{ CTX_DIFF, TK_ENTER, CMD_FLAME_ZOOM },
	{ CTX_DIFF, 'u', CMD_FLAME_UNZOOM },
	{ CTX_DIFF, TK_BACKSPACE, CMD_FLAME_UNZOOM },
	{ CTX_DIFF, 'I', CMD_FLAME_FLIP },
	{ CTX_DIFF, 't', CMD_DIFF_WIDTHS },
	{ CTX_DIFF, 'O', CMD_DIFF_ONLY },

	{ CTX_DIFF_TABLE, 's', CMD_SORT_NEXT },
	{ CTX_DIFF_TABLE, '>', CMD_SORT_NEXT },
	{ CTX_DIFF_TABLE, 'S', CMD_SORT_PREV },
	{ CTX_DIFF_TABLE, '<', CMD_SORT_PREV },
	{ CTX_DIFF_TABLE, 'r', CMD_SORT_REVERSE },

	{ CTX_DIFF_CALLS, 'h', CMD_DIFF_BASE_SIDE },
	{ CTX_DIFF_CALLS, TK_LEFT, CMD_DIFF_BASE_SIDE },
	{ CTX_DIFF_CALLS, 'l', CMD_DIFF_NEW_SIDE },
	{ CTX_DIFF_CALLS, TK_RIGHT, CMD_DIFF_NEW_SIDE },
	{ CTX_DIFF_CALLS, 'n', CMD_DIFF_NORMALIZE },

	{ CTX_DIFF_TIMELINES, 'h', CMD_SLICE_PREV },
	{ CTX_DIFF_TIMELINES, TK_LEFT, CMD_SLICE_PREV },
	{ CTX_DIFF_TIMELINES, 'l', CMD_SLICE_NEXT },
	{ CTX_DIFF_TIMELINES, TK_RIGHT, CMD_SLICE_NEXT },
	{ CTX_DIFF_TIMELINES, 'k', CMD_SLICE_PARENT },
	{ CTX_DIFF_TIMELINES, TK_UP, CMD_SLICE_PARENT },
	{ CTX_DIFF_TIMELINES, 'j', CMD_SLICE_CHILD },
	{ CTX_DIFF_TIMELINES, TK_DOWN, CMD_SLICE_CHILD },
	{ CTX_DIFF_TIMELINES, 'J', CMD_LANE_NEXT },
	{ CTX_DIFF_TIMELINES, TK_PGDN, CMD_LANE_NEXT },
	{ CTX_DIFF_TIMELINES, 'K', CMD_LANE_PREV },
	{ CTX_DIFF_TIMELINES, TK_PGUP, CMD_LANE_PREV },
	{ CTX_DIFF_TIMELINES, ' ', CMD_LANE_FOLD },
	{ CTX_DIFF_TIMELINES, 'z', CMD_ZOOM_SLICE },
	{ CTX_DIFF_TIMELINES, TK_ENTER, CMD_ZOOM_SLICE },
	{ CTX_DIFF_TIMELINES, 'S', CMD_DIFF_SWAP },
	{ CTX_DIFF_TIMELINES, 'a', CMD_DIFF_ALIGN_START },
	{ CTX_DIFF_TIMELINES, 'A', CMD_DIFF_ALIGN_CALL },
	{ CTX_DIFF_TIMELINES, 'M', CMD_DIFF_ALIGN_MARKER },

	{ CTX_HELP, 'q', CMD_CLOSE },
	{ CTX_HELP, TK_ESC, CMD_CLOSE },
	{ CTX_HELP, '?', CMD_CLOSE },

	{ CTX_COLUMNS, ' ', CMD_COLUMN_TOGGLE },
	{ CTX_COLUMNS, TK_ENTER, CMD_CLOSE },
	{ CTX_COLUMNS, TK_ESC, CMD_CLOSE },
	{ CTX_COLUMNS, 'q', CMD_CLOSE },
	{ CTX_COLUMNS, 'V', CMD_CLOSE },
};
const size_t nbindings = sizeof bindings / sizeof bindings[0];

const struct mouse_action mouse_actions[] = {
	{ "click", "timeline: select the call under the pointer, the cursor "
	    "at the time clicked" },
	{ "click again", "timeline: zoom to the selected call" },
	{ "click a lane", "timeline: fold or unfold the lane (its header row)" },
	{ "wheel", "timeline: zoom in or out around the pointer" },
	{ "click", "lists: select the row; on the selected row, as Enter" },
	{ "click", "flame graph: select the node; again: zoom into it" },
	{ "wheel", "lists and the key list: scroll" },
};
const size_t nmouse_actions = sizeof mouse_actions / sizeof mouse_actions[0];

static const char *const ctx_titles[CTX_COUNT] = {
	[CTX_GLOBAL] = "Everywhere",
	[CTX_TIMELINE] = "Timeline",
	[CTX_FLAME] = "Flame graph",
	[CTX_LIST] = "Lists (functions, results, markers, threads, logs, SQL, "
	    "call tree, callers, calls, backtrace, info, diff table, diff calls, "
	    "help, columns)",
	[CTX_FUNCTIONS] = "Functions",
	[CTX_SEARCH] = "Search results",
	[CTX_MARKERS] = "Markers",
	[CTX_THREADS] = "Thread filter",
	[CTX_LOGS] = "Logs",
	[CTX_SQL] = "SQL results (Esc stops a running query)",
	[CTX_CALLTREE] = "Call tree",
	[CTX_CALLERS] = "Callers and callees (Enter: that function's; # on "
	    "<root>: the title's calls)",
	[CTX_INSTANCES] = "Calls of a function",
	[CTX_DIFF] = "Differential flame graph (red grew, blue shrank)",
	[CTX_DIFF_TABLE] = "Diff table (Enter: the function in both traces)",
	[CTX_DIFF_CALLS] = "A function in both traces (Enter: the call in "
	    "the timelines)",
	[CTX_DIFF_TIMELINES] = "Two timelines (the trace on top moves)",
	[CTX_HELP] = "Help",
	[CTX_COLUMNS] = "Column chooser (V in the functions and calls panes)",
};

const char *
keys_ctx_title(enum key_ctx ctx)
{
	return ctx < CTX_COUNT ? ctx_titles[ctx] : "";
}

bool
keys_ctx_used(enum key_ctx ctx)
{
	for (size_t i = 0; i < nbindings; i++)
		if (bindings[i].ctx == ctx)
			return true;
	return false;
}

const struct command *
command_get(enum cmd c)
{
	if (c < 0 || c >= CMD_COUNT)
		return &commands[0];
	return &commands[c];
}

enum cmd
command_by_name(const char *name)
{
	for (int c = 1; c < CMD_COUNT; c++)
		if (strcmp(commands[c].name, name) == 0)
			return (enum cmd)c;
	return CMD_NONE;
}

size_t
command_complete(const char *prefix, char *common, size_t size,
    char *list, size_t list_size)
{
	size_t n = 0, plen = strlen(prefix), clen = 0, used = 0;

	if (list_size > 0)
		list[0] = '\0';
	for (int c = 1; c < CMD_COUNT; c++) {
		const char *name = commands[c].name;
		if (strncmp(name, prefix, plen) != 0)
			continue;
		if (n == 0) {
			clen = strlen(name);
			snprintf(common, size, "%s", name);
		} else {
			size_t k = 0;
			while (k < clen && common[k] == name[k])
				k++;
			clen = k;
			if (clen < size)
				common[clen] = '\0';
		}
		if (used < list_size) {
			int w = snprintf(list + used, list_size - used, "%s%s",
			    n > 0 ? " " : "", name);
			used += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	return n;
}

static enum cmd
lookup_in(enum key_ctx ctx, int key)
{
	for (size_t i = 0; i < nbindings; i++)
		if (bindings[i].ctx == ctx && bindings[i].key == key)
			return bindings[i].cmd;
	return CMD_NONE;
}

static int
is_list(enum key_ctx ctx)
{
	return ctx == CTX_FUNCTIONS || ctx == CTX_SEARCH ||
	    ctx == CTX_MARKERS || ctx == CTX_THREADS || ctx == CTX_LOGS ||
	    ctx == CTX_SQL || ctx == CTX_CALLTREE || ctx == CTX_CALLERS ||
	    ctx == CTX_INSTANCES || ctx == CTX_DIFF_TABLE ||
	    ctx == CTX_DIFF_CALLS || ctx == CTX_HELP || ctx == CTX_COLUMNS;
}

enum cmd
keys_lookup(enum key_ctx ctx, int key)
{
	enum cmd c = lookup_in(ctx, key);

	if (c == CMD_NONE && is_list(ctx))
		c = lookup_in(CTX_LIST, key);
	if (c == CMD_NONE)
		c = lookup_in(CTX_GLOBAL, key);
	return c;
}

const char *
keys_name(int key, char *buf, size_t size)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{ TK_UP, "Up" }, { TK_DOWN, "Down" }, { TK_LEFT, "Left" },
		{ TK_RIGHT, "Right" }, { TK_SLEFT, "Shift-Left" },
		{ TK_SRIGHT, "Shift-Right" }, { TK_HOME, "Home" },
		{ TK_END, "End" }, { TK_PGUP, "PageUp" },
		{ TK_PGDN, "PageDown" }, { TK_BTAB, "Shift-Tab" },
		{ TK_BACKSPACE, "Backspace" }, { TK_DELETE, "Delete" },
		{ TK_F1, "F1" }, { TK_ESC, "Esc" }, { TK_ENTER, "Enter" },
		{ TK_TAB, "Tab" }, { ' ', "Space" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].key == key) {
			snprintf(buf, size, "%s", names[i].name);
			return buf;
		}
	if (key > 0 && key < 0x20)
		snprintf(buf, size, "Ctrl-%c", key + '@');
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "key-%d", key);
	return buf;
}

const char *
keys_for(enum key_ctx ctx, enum cmd cmd, char *buf, size_t size)
{
	size_t n = 0;
	char name[32];

	buf[0] = '\0';
	for (size_t i = 0; i < nbindings && n + 1 < size; i++) {
		if (bindings[i].ctx != ctx || bindings[i].cmd != cmd)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
		    n ? ", " : "", keys_name(bindings[i].key, name,
		    sizeof name));
		if (n >= size)
			n = size - 1;
	}
	return buf;
}

/* Roff needs a backslash and a leading dot or quote escaped. */
static void
roff_text(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", fp);
		else if (*s == '-')
			fputs("\\-", fp);
		else if (*s == '\'')
			fputs("\\(aq", fp);
		else
			fputc(*s, fp);
	}
}

void
keys_write_man(FILE *fp)
{
	char keys[128];

	for (int ctx = 0; ctx < CTX_COUNT; ctx++) {
		if (!keys_ctx_used((enum key_ctx)ctx))
			continue;
		fputs(".SS ", fp);
		roff_text(fp, ctx_titles[ctx]);
		fputc('\n', fp);
		for (int c = 1; c < CMD_COUNT; c++) {
			keys_for((enum key_ctx)ctx, (enum cmd)c, keys,
			    sizeof keys);
			if (keys[0] == '\0')
				continue;
			fputs(".TP\n.B ", fp);
			roff_text(fp, keys);
			fputc('\n', fp);
			roff_text(fp, commands[c].help);
			fputs(" (\\fB", fp);
			roff_text(fp, commands[c].name);
			fputs("\\fR)\n", fp);
		}
	}
	fputs(".SS Mouse\n", fp);
	for (size_t i = 0; i < nmouse_actions; i++) {
		fputs(".TP\n.B ", fp);
		roff_text(fp, mouse_actions[i].where);
		fputc('\n', fp);
		roff_text(fp, mouse_actions[i].what);
		fputc('\n', fp);
	}
}
