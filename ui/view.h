/*
 * The viewer's state that several panes share: the trace, the visible
 * time window and the range, the cursor, the filters, the search, the
 * call tree of the span, bookmarks, the status message, and which pane
 * is up. Panes read it and change it only through the functions here and
 * their own command handlers, which return PANE_* flags saying what to
 * redraw; what only one pane needs is in the pane's own state
 * (view->panes, see pane.h).
 *
 * The view borrows the trace (the caller owns it) and owns everything
 * else it points to, its panes included; view_free() releases it.
 */
#ifndef TTV_UI_VIEW_H
#define TTV_UI_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "jobs.h"
#include "keys.h"
#include "model.h"
#include "pane.h"
#include "query.h"
#include "xalloc.h"

struct bookmark {
	bool set;
	ttv_ns t0, t1;
	bool has_cursor;
	struct slice_ref cursor;
	ttv_ns cursor_t;
	bool cursor_pinned;
};

struct view {
	const struct trace *trace;
	bool utf8;

	/* Visible window [t0, t1). */
	ttv_ns t0, t1;

	/* The time range [range_t0, range_t1) the aggregate panes follow
	 * (functions, flame, call tree, callers/callees, calls, search
	 * results) while range_on; without it they follow the window. */
	bool range_on;
	ttv_ns range_t0, range_t1;

	/* The cursor: a slice, or just a time on a track when there is
	 * none (empty trace, filtered out). */
	bool has_cursor;
	struct slice_ref cursor;
	ttv_ns cursor_t;
	uint32_t cursor_track;
	/* cursor_t was put there on purpose (goto, a marker, a log line, a
	 * search hit): it is the cursor's time, not the selected call's
	 * middle, so zooming keeps that instant in view. */
	bool cursor_pinned;

	/* Lanes folded in the timeline (any pane unfolds the one it goes
	 * to). */
	uint8_t *folded;	/* ntracks */

	/* Filters, applied by every pane. */
	struct filter filter;
	uint8_t *thread_pick;	/* ntracks: picked in the thread pane */
	bool thread_invert;
	bool thread_active;
	char *func_pattern;	/* NULL: no function filter */
	bool func_hide;
	/* A function filter too costly to decide on this thread: being
	 * matched on the worker (NULL: none); filter_req counts the
	 * function filters asked for, so only the last one is applied. */
	char *func_pending;
	bool func_pending_hide;
	uint64_t filter_req;

	/* Search. */
	char *search_pattern;
	uint8_t *match;		/* nfuncs, NULL: no search (yet) */
	uint8_t *str_match;	/* nstrings verdicts (query.h), with match */
	uint64_t search_req;	/* searches asked for (or cleared) */
	struct search_hit *hits;
	size_t nhits;
	struct search_row *results;	/* per matching function */
	size_t nresults;
	bool search_pending;	/* hits (or the matching) being computed */
	bool arg_hits;		/* some hits match by an arg, not by name */
	uint8_t *log_match;	/* nlogs, NULL: no search */
	size_t nlog_matches;


	/* Flows by the slice they leave and the one they reach. */
	struct flow_index flows;
	/* Flows: the id last followed, so a chain is walked along one id
	 * where a slice has several. */
	bool flow_valid;
	uint64_t flow_id;

	/* Slices carry sample weights (CoreProfiler sampling): the
	 * functions pane adds a samples column, the flame pane sizes nodes
	 * by samples. */
	bool sampled;

	/* Times shown as wall-clock time of day (trace->wall_origin). */
	bool wall_clock;

	/* Slow queries run on a worker thread for big traces (jobs.h).
	 * data_gen counts window/filter changes, filter_gen changes of
	 * the filters or the range (what the calls pane follows); a
	 * result is used only if asked for the current one. */
	bool async;
	uint64_t data_gen, filter_gen;

	/* The panes, one of each class (panes_create), and the one in
	 * front (view_show_pane); the details pane shown beside the
	 * timeline. */
	struct pane *panes[PANE_COUNT];
	enum pane_id pane;
	bool details;

	/* The call tree of the span, shared by the flame and call tree
	 * panes: one root per thread or threads merged. */
	struct call_tree tree;
	bool tree_valid;
	bool flame_per_thread;
	uint64_t tree_gen;	/* call trees installed so far */
	uint64_t tree_asked;	/* the data_gen of the tree on its way */

	struct bookmark marks[26];

	/* The source lines of functions (source.h), borrowed from the
	 * viewer; NULL: none known. */
	struct source_cache *source;
	/* The line ttv --info gives of the trace's index (viewer_set_index),
	 * borrowed from the viewer; NULL: none. */
	const char *index_line;

	/* Status line message. */
	char msg[256];
	bool msg_error;
};

/* The view of trace t, with no panes yet (panes_create makes them). */
void view_init(struct view *v, const struct trace *t, bool utf8);
/* Frees the view and its panes (through their class). */
void view_free(struct view *v);
/* Puts pane id in front. */
void view_show_pane(struct view *v, enum pane_id id);
/* The entries of pane id, through its class. */
void pane_draw(struct view *v, enum pane_id id, struct grid *g,
    struct rect r);
int pane_command(struct view *v, enum pane_id id, enum cmd c);
int pane_mouse(struct view *v, enum pane_id id, struct rect r, int x, int y,
    enum mouse_button b);
/* The selected function (the cursor's call where the pane has none of
 * its own), or CALL_NONE. */
func_id pane_selected_func(struct view *v, enum pane_id id);

/* The span the aggregate panes cover: the range when one is set, else
 * the visible window. */
void view_span(const struct view *v, ttv_ns *t0, ttv_ns *t1);

/* Tells every pane what changed (VIEW_CHANGED_*, pane.h): the stale
 * entry of its class. */
void view_changed(struct view *v, unsigned changed);
/* Marks derived data (the tree, and what panes computed of the span)
 * stale: the window, the range or the filters changed. */
void view_data_changed(struct view *v);
/* Runs job j (jobs.h): now for small traces, so that screens do not
 * depend on timing, else on the worker. */
void view_submit(struct view *v, struct job *j);
/* Installs the finished jobs; true if there were any. */
bool view_collect(struct view *v);
/* Asks for the call tree (v->tree) of the span and filters. */
void view_tree_request(struct view *v);
void view_message(struct view *v, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Cursor. */
void view_set_cursor(struct view *v, struct slice_ref r);
/* Puts the cursor on the slice at time t on the cursor's track (or the
 * first visible track), outermost depth first. */
void view_cursor_at_time(struct view *v, ttv_ns t);
/* Time the cursor points at: cursor_t when pinned or when no call is
 * selected, else the middle of the selected call. */
ttv_ns view_cursor_time(const struct view *v);
/* Moves the window so the cursor slice is visible (no zoom change unless
 * the slice is not on screen at all). */
void view_show_cursor(struct view *v);
bool view_slice_visible(const struct view *v, struct slice_ref r);

/* Window. */
/* The end of the whole trace's window (the trace's last time, at least
 * the smallest span shown). */
ttv_ns view_last(const struct view *v);
void view_zoom(struct view *v, double factor);
/* Zoom keeping time t where it is on screen (the mouse wheel). */
void view_zoom_at(struct view *v, ttv_ns t, double factor);
void view_pan(struct view *v, double frac);
void view_reset(struct view *v);
void view_zoom_slice(struct view *v);
void view_goto_time(struct view *v, ttv_ns t);

/* The range, the filters and the search: ui/view_filter.c. */

/* Sets (t0 < t1) or clears the range; the aggregates follow. */
void view_range_set(struct view *v, ttv_ns t0, ttv_ns t1);
void view_range_clear(struct view *v);
/* view_data_changed after a filter or range change; also redoes a
 * search. */
void view_filter_changed(struct view *v);

/* Filters: return 0, or -1 with a message set. A function filter is
 * matched on this thread when that takes a frame's work at most, else on
 * the worker (func_pending), within the regex budget; one the budget
 * cannot decide is not applied, and the status line says why. */
int view_filter_functions(struct view *v, const char *pattern, bool hide);
/* The function filter of the command line (--function, --hide): its mask
 * (func_on of a struct filter, taken) becomes the view's. */
void view_filter_take(struct view *v, const char *pattern, bool hide,
    uint8_t *func_on);
/* Esc: stops the matching of a search or a function filter; false when
 * none runs. */
bool view_regex_stop(struct view *v);
void view_apply_threads(struct view *v);
void view_clear_filters(struct view *v);
/* "threads: 2 of 5  functions: only /re/" for the header line. */
void view_filter_text(const struct view *v, char *buf, size_t size);

/* Search. */
int view_search(struct view *v, const char *pattern);
void view_search_clear(struct view *v);
/* Finds the search's hits again (the filters or the range changed). */
void view_search_refresh(struct view *v);
void view_search_jump(struct view *v, bool forward);
static inline bool
view_func_matches(const struct view *v, func_id f)
{
	return v->match != NULL && f < v->trace->nfuncs && v->match[f];
}

/* Flows: follows the cursor slice's outgoing flow (forward) or incoming
 * one back; false with a message when there is none. */
bool view_flow_jump(struct view *v, bool forward);
/* The flows leaving (out) or reaching slice r: *n keys, in flow order. */
const struct flow_key *view_flows_at(const struct view *v, bool out,
    struct slice_ref r, size_t *n);

/* Logs. */
static inline bool
view_log_matches(const struct view *v, size_t i)
{
	return v->log_match != NULL && v->log_match[i];
}

/* A time for display: from the trace start, or wall-clock time of day
 * when switched on and known. */
const char *view_time(const struct view *v, ttv_ns t, char *buf,
    size_t size);
/* The same with the digits needed to tell apart times `resolution` ns
 * apart (the header's window ends), or with every nanosecond. */
const char *view_time_res(const struct view *v, ttv_ns t, ttv_ns resolution,
    char *buf, size_t size);
const char *view_time_exact(const struct view *v, ttv_ns t, char *buf,
    size_t size);
/* Columns that view_time_exact takes for any time of the trace: a list's
 * time column. */
int view_time_exact_width(const struct view *v);
/* The span for a pane's title, as the header shows it: "T0 .. T1
 * (range)" with the range to the nanosecond, or the window to its
 * resolution; times that g takes back as they are. */
const char *view_span_text(const struct view *v, char *buf, size_t size);

/* Parses a UTC time of day "HH:MM[:SS[.fff...]]" into the trace time
 * it names (the day of the trace's start, or the next one when the trace
 * runs past midnight); -1 with a message if malformed or the trace has
 * no wall-clock origin. */
int view_parse_wall(struct view *v, const char *s, ttv_ns *out);

/* Whether slice r is a search hit (by name, category or arg). */
bool view_slice_matches(const struct view *v, struct slice_ref r);

/* Markers: kind -1 for any, VIEW_MARKER_BUFFER for a buffer start or
 * end. */
#define VIEW_MARKER_BUFFER (-2)
void view_marker_jump(struct view *v, int kind, bool forward);

/* Bookmarks. */
void view_mark_set(struct view *v, int letter);
void view_mark_jump(struct view *v, int letter);

/* Helpers for panes. */
int view_func_hue(func_id f);
bool view_track_shown(const struct view *v, uint32_t track);
bool view_slice_shown(const struct view *v, const struct slice *s);

#endif
