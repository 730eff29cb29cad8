/*
 * What the comparison's panes share (ui/diff*.c, the viewer's view of them
 * is diffpane.h): the session — the base trace, its own view for the
 * timelines, the two comparisons (by the table's rows and by call path),
 * the work under way — held by the differential flame graph's pane and
 * reached by the others through diff_session().
 *
 * The comparison is of the traces as the command line selects them
 * (--function, --hide, --thread by the rule of two traces, --range and
 * --range-base), not of the viewer's window or filters: the base has no
 * window of its own to follow.
 */
#ifndef TTV_UI_DIFF_H
#define TTV_UI_DIFF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "diffpane.h"
#include "query_diff.h"
#include "view.h"
#include "viewer.h"

/* A load's progress, written on the worker, read when drawing. */
struct diff_progress {
	atomic_uint_fast64_t done, total;
	atomic_bool loaded;		/* the load is over: comparing */
};

enum diff_work { DIFF_IDLE, DIFF_LOADING, DIFF_COMPARING };

struct diff_session {
	bool can;			/* the program gave a road to a base */
	struct viewer_diff opt;		/* its options (base fields unused) */
	/* The trace's side: the command line's filter and range. */
	struct filter nf;
	ttv_ns t0, t1;
	/* The base: its path, the trace, its filter and range, and its
	 * view (the timelines' second; its filter is a copy). */
	char *path;
	struct trace *base;
	struct filter bf;
	ttv_ns b0, b1;
	struct view bview;
	/* The comparisons: the table's rows (opt.by) and call paths (the
	 * flame graph), ready together. */
	struct diff table, paths;
	bool ready;
	/* The table's order (the diff table pane's keys change it). */
	enum stats_key sort;
	bool desc;
	/* Bumped whenever the base or its comparisons change: what a pane
	 * derived of them is stale, a job asked before is dropped. */
	uint64_t gen;
	/* Work under way, and how the last try ended. */
	enum diff_work work;
	char *loading;			/* the path being loaded */
	struct diff_progress *prog;	/* the running job's, or NULL */
	char *error;
};

struct diff_session *diff_session(struct view *v);
/* Whether the worker still reads the base (a comparison or a pane's job,
 * stopped or not): it must not be freed until then. */
bool diff_busy(struct view *v);
/* Runs a job of the comparison's panes: on the worker when either trace
 * is big (view_submit's rule), else at once. */
void diff_submit(struct view *v, struct job *j);
/* A pane's title line whose detail holds text of a trace (names, paths),
 * escaped as such text always is. */
void diff_title(struct grid *g, struct rect r, const char *title,
    const char *detail);
/* Draws what stands instead of a comparison (none yet, loading, failed)
 * under title over r; false when the comparison is ready. */
bool diff_draw_state(struct view *v, struct grid *g, struct rect r,
    const char *title);
/* The style of a row's change: neutral, or red or blue as strong as the
 * change's share of the largest one, max (diff_level). */
int diff_style(const struct diff_row *r, ttv_ns max);
/* 0 to STYLE_DIFF_LEVELS - 1: |delta| against the largest change. */
int diff_level(ttv_ns delta, ttv_ns max);
/* The largest |delta| of the rows that changed. */
ttv_ns diff_max_delta(const struct diff *d);
/* "+200.0%", "-50.0%", "new", "gone", "=" for a row. */
const char *diff_change_text(const struct diff_row *r, char *buf,
    size_t size);
/* "+1.20 ms", "-500 ns". */
const char *diff_signed_duration(ttv_ns d, char *buf, size_t size);
/* *to: a copy of t's filter from (its masks copied). */
void diff_filter_copy(struct filter *to, const struct filter *from,
    const struct trace *t);
/* The function of t named name (the first), or CALL_NONE. */
func_id diff_func_named(const struct trace *t, const char *name);
/* The trace or its base, as the panes name them. */
const char *diff_trace_name(const struct trace *t, const char *fallback);

/* The name selected in the graph, or in the table's row (a path's last
 * frame), or NULL. */
const char *diff_flame_selected(struct view *v);
const char *diff_table_selected(struct view *v);

/* The comparison's panes, opened on something. */
/* The function of key (a row's name) in both traces. */
int diff_calls_show(struct view *v, const char *key);
/* The timelines with a call of the trace (base false) or of the base
 * selected, that trace on top. */
int diff_timelines_show(struct view *v, bool base, struct slice_ref r);

#endif
