/*
 * The viewer state and the operations every pane shares: cursor, window,
 * filters, search, markers, bookmarks (see view.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "env.h"
#include "timefmt.h"
#include "timeparse.h"
#include "tmap.h"
#include "sqlpane.h"
#include "callpanes.h"
#include "panes.h"
#include "view.h"
#include "xalloc.h"

static ttv_ns
trace_last(const struct trace *t)
{
	return t->last > t->first + TMAP_MIN_SPAN ? t->last :
	    t->first + TMAP_MIN_SPAN;
}

const struct flow_key *
view_flows_at(const struct view *v, bool out, struct slice_ref r, size_t *n)
{
	return flow_index_at(&v->flows, out, r, n);
}

void
view_init(struct view *v, const struct trace *t, bool utf8)
{
	memset(v, 0, sizeof *v);
	v->trace = t;
	v->utf8 = utf8;
	v->t0 = t->first;
	v->t1 = trace_last(t);
	v->folded = xcalloc(t->ntracks ? t->ntracks : 1, 1);
	v->thread_pick = xcalloc(t->ntracks ? t->ntracks : 1, 1);
	timeline_pane_init(v);
	flow_index_build(t, &v->flows);
	filter_init(&v->filter);
	v->details = true;
	v->cursor_t = t->first;
	v->cursor_track = UINT32_MAX;
	v->sampled = trace_is_sampled(t);
	/* Below a few million slices every query answers within a frame:
	 * no thread, and screens that do not depend on timing. */
	{
		const char *e = ttv_getenv(TTV_ENV_ASYNC_SLICES);
		size_t limit = e != NULL ? (size_t)strtoull(e, NULL, 10) :
		    2000000;
		v->async = trace_nslices(t) >= limit;
	}
	for (int k = 0; k < JOB_KINDS; k++)
		v->requested[k] = UINT64_MAX;
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].ndepth > 0 && t->tracks[i].depth[0].len > 0) {
			struct slice_ref r = { i, 0, 0 };
			view_set_cursor(v, r);
			break;
		}
}

void
view_free(struct view *v)
{
	free(v->folded);
	free(v->thread_pick);
	timeline_pane_free(v);
	flow_index_free(&v->flows);
	filter_clear(&v->filter);
	free(v->func_pattern);
	free(v->func_pending);
	view_search_clear(v);
	functions_pane_free(v);
	flame_pane_free(v);
	call_tree_free(&v->tree);
	markers_pane_free(v);
	logs_pane_free(v);
	sql_pane_free(v);
	calltree_pane_free(v);
	calls_pane_free(v);
	memset(v, 0, sizeof *v);
}

void
view_span(const struct view *v, ttv_ns *t0, ttv_ns *t1)
{
	*t0 = v->range_on ? v->range_t0 : v->t0;
	*t1 = v->range_on ? v->range_t1 : v->t1;
}

void
view_range_set(struct view *v, ttv_ns t0, ttv_ns t1)
{
	if (t1 <= t0)
		return;
	v->range_on = true;
	v->range_t0 = t0;
	v->range_t1 = t1;
	/* The search results follow the range too. */
	view_filter_changed(v);
}

void
view_range_clear(struct view *v)
{
	if (!v->range_on)
		return;
	v->range_on = false;
	view_filter_changed(v);
}

void
view_data_changed(struct view *v)
{
	functions_pane_stale(v);
	v->tree_valid = false;
	markers_pane_stale(v);
	logs_pane_stale(v);
	v->data_gen++;
}

static void search_submit(struct view *v);

void
view_filter_changed(struct view *v)
{
	view_data_changed(v);
	v->filter_gen++;
	if (v->match != NULL)
		search_submit(v);
}

static void view_filter_install(struct view *v, const char *pattern,
    bool hide, uint8_t *match);

/* A function filter matched on the worker: applied if it is still the
 * one asked for last, or said why not. */
static void
install_filter(struct view *v, struct job *j)
{
	if (j->req != v->filter_req || v->func_pending == NULL)
		return;
	free(v->func_pending);
	v->func_pending = NULL;
	if (j->error != NULL) {
		view_message(v, true, "filter not applied: %s", j->error);
		return;
	}
	view_filter_install(v, j->pattern, j->hide, j->match);
	j->match = NULL;
}

static void
install(struct view *v, struct job *j)
{
	switch (j->kind) {
	case JOB_SQL:
		sql_pane_install(v, j);	/* takes the job */
		return;
	case JOB_CALLERS:
	case JOB_INSTANCES:
		calls_pane_install(v, j);	/* takes the job */
		return;
	case JOB_STATS:
		if (j->gen != v->data_gen)
			break;
		functions_pane_install(v, &j->stats);
		break;
	case JOB_TREE:
		if (j->gen != v->data_gen)
			break;
		call_tree_free(&v->tree);
		v->tree = j->tree;
		memset(&j->tree, 0, sizeof j->tree);
		v->tree_valid = true;
		v->tree_gen++;
		break;
	case JOB_FILTER:
		install_filter(v, j);
		break;
	case JOB_SEARCH:
		if (j->req != v->search_req)
			break;		/* an older search, or one cleared */
		if (j->error != NULL) {
			view_search_clear(v);
			view_message(v, true, "search not run: %s", j->error);
			break;
		}
		if (v->match == NULL) {
			/* The worker matched the pattern: its verdicts serve
			 * every later filter and range. */
			v->match = j->match;
			v->str_match = j->str;
			j->match = j->str = NULL;
			if (j->gen != v->filter_gen) {
				search_submit(v);
				break;
			}
		}
		if (j->gen != v->filter_gen)
			break;
		free(v->hits);
		free(v->results);
		v->hits = j->hits;
		v->nhits = j->nhits;
		v->results = j->results;
		v->nresults = j->nresults;
		j->hits = NULL;
		j->results = NULL;
		v->search_pending = false;
		v->list[PANE_SEARCH].sel = v->list[PANE_SEARCH].top = 0;
		/* Log text matches too, for the log pane. */
		free(v->log_match);
		v->log_match = j->log_match;
		v->nlog_matches = j->nlog_matches;
		j->log_match = NULL;
		logs_pane_stale(v);
		v->arg_hits = false;
		for (size_t i = 0; i < v->nhits && !v->arg_hits; i++)
			if (v->hits[i].ref.depth != SEARCH_INSTANT &&
			    !view_func_matches(v, trace_slice(v->trace,
			    v->hits[i].ref)->func))
				v->arg_hits = true;
		break;
	default:
		break;
	}
	job_free(j);
}

void
view_request(struct view *v, enum job_kind k)
{
	struct job *j;

	if (v->async && v->requested[k] == v->data_gen)
		return;		/* already on its way */
	j = job_new(k, v->trace, &v->filter, v->data_gen);
	view_span(v, &j->t0, &j->t1);
	j->per_thread = v->flame_per_thread;
	if (!v->async) {
		job_run(j);
		install(v, j);
		return;
	}
	v->requested[k] = v->data_gen;
	jobs_submit(j);
}

bool
view_collect(struct view *v)
{
	bool any = false;

	for (int k = 0; k < JOB_KINDS; k++) {
		/* small traces compute everything on this thread but SQL,
		 * which may run for ever and must stay stoppable, the call
		 * queries, submitted by their panes, and the patterns too
		 * costly to match within a frame */
		if (!v->async && k != JOB_SQL && k != JOB_CALLERS &&
		    k != JOB_INSTANCES && k != JOB_SEARCH && k != JOB_FILTER)
			continue;
		struct job *j = jobs_take((enum job_kind)k);
		if (j == NULL)
			continue;
		install(v, j);
		any = true;
	}
	return any;
}

void
view_message(struct view *v, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof v->msg, fmt, ap);
	va_end(ap);
	v->msg_error = error;
}

int
view_func_hue(func_id f)
{
	/* A stable hue per function: the same function has the same colour
	 * in every pane and every run. */
	uint32_t h = f * 2654435761u;
	return (int)((h >> 16) % STYLE_NHUES);
}

bool
view_track_shown(const struct view *v, uint32_t track)
{
	return filter_track(&v->filter, track);
}

bool
view_slice_shown(const struct view *v, const struct slice *s)
{
	return filter_func(&v->filter, s->func);
}

/* ------------------------------------------------------------- cursor */

void
view_set_cursor(struct view *v, struct slice_ref r)
{
	v->has_cursor = true;
	v->cursor = r;
	v->cursor_track = r.track;
	v->cursor_t = trace_slice(v->trace, r)->start;
	v->cursor_pinned = false;
}

ttv_ns
view_cursor_time(const struct view *v)
{
	if (v->has_cursor && !v->cursor_pinned) {
		const struct slice *s = trace_slice(v->trace, v->cursor);
		return s->start + trace_slice_dur(v->trace, v->cursor) / 2;
	}
	return v->cursor_t;
}

static uint32_t
first_shown_track(const struct view *v)
{
	for (uint32_t i = 0; i < v->trace->ntracks; i++)
		if (view_track_shown(v, i) && v->trace->tracks[i].ndepth > 0)
			return i;
	return UINT32_MAX;
}

void
view_cursor_at_time(struct view *v, ttv_ns t)
{
	const struct trace *tr = v->trace;
	uint32_t track = v->cursor_track;
	uint32_t depth = v->has_cursor ? v->cursor.depth : 0;
	struct slice_ref r;

	if (track >= tr->ntracks || !view_track_shown(v, track) ||
	    tr->tracks[track].ndepth == 0)
		track = first_shown_track(v);
	v->cursor_t = t;
	if (track == UINT32_MAX) {
		v->has_cursor = false;
		return;
	}
	v->cursor_track = track;
	if (depth >= tr->tracks[track].ndepth)
		depth = tr->tracks[track].ndepth - 1;
	/* The same depth if something runs there, else the nearest caller. */
	for (int64_t d = depth; d >= 0; d--)
		if (query_slice_at(tr, track, (uint32_t)d, t, &r)) {
			view_set_cursor(v, r);
			v->cursor_t = t;
			return;
		}
	v->has_cursor = false;
}

bool
view_slice_visible(const struct view *v, struct slice_ref r)
{
	const struct slice *s = trace_slice(v->trace, r);

	return s->start < v->t1 && trace_slice_end(v->trace, r) >= v->t0;
}

void
view_show_cursor(struct view *v)
{
	const struct slice *s;

	if (!v->has_cursor || v->cursor_pinned) {
		if (v->cursor_t < v->t0 || v->cursor_t >= v->t1)
			tmap_center(&v->t0, &v->t1, v->cursor_t,
			    v->trace->first, trace_last(v->trace));
		return;
	}
	if (view_slice_visible(v, v->cursor))
		return;
	s = trace_slice(v->trace, v->cursor);
	ttv_ns dur = trace_slice_dur(v->trace, v->cursor);
	if (dur > v->t1 - v->t0)
		tmap_fit(&v->t0, &v->t1, s->start, s->start + dur,
		    v->trace->first, trace_last(v->trace));
	else
		tmap_center(&v->t0, &v->t1, s->start + dur / 2,
		    v->trace->first, trace_last(v->trace));
	view_data_changed(v);
}

/* ------------------------------------------------------------- window */

void
view_zoom(struct view *v, double factor)
{
	ttv_ns at = view_cursor_time(v);

	if (at < v->t0 || at >= v->t1)
		at = v->t0 + (v->t1 - v->t0) / 2;
	tmap_zoom(&v->t0, &v->t1, at, factor, v->trace->first,
	    trace_last(v->trace));
	view_data_changed(v);
}

void
view_zoom_at(struct view *v, ttv_ns t, double factor)
{
	tmap_zoom(&v->t0, &v->t1, t, factor, v->trace->first,
	    trace_last(v->trace));
	view_data_changed(v);
}

void
view_pan(struct view *v, double frac)
{
	tmap_pan(&v->t0, &v->t1, frac, v->trace->first,
	    trace_last(v->trace));
	view_data_changed(v);
}

void
view_reset(struct view *v)
{
	v->t0 = v->trace->first;
	v->t1 = trace_last(v->trace);
	view_data_changed(v);
}

void
view_zoom_slice(struct view *v)
{
	const struct slice *s;

	if (!v->has_cursor)
		return;
	s = trace_slice(v->trace, v->cursor);
	tmap_fit(&v->t0, &v->t1, s->start, trace_slice_end(v->trace, v->cursor),
	    v->trace->first, trace_last(v->trace));
	view_data_changed(v);
}

void
view_goto_time(struct view *v, ttv_ns t)
{
	if (t < v->trace->first)
		t = v->trace->first;
	if (t > v->trace->last)
		t = v->trace->last;
	tmap_center(&v->t0, &v->t1, t, v->trace->first, trace_last(v->trace));
	view_cursor_at_time(v, t);
	v->cursor_t = t;
	v->cursor_pinned = true;
	view_data_changed(v);
}

/* ------------------------------------------------------------ filters */

/* What the viewer's own thread may spend on a pattern: a frame's work
 * (a few ms), counted so that whether it decides does not depend on the
 * machine; beyond it the worker takes the whole budget. */
static void
quick_budget(struct regex *re)
{
	struct regex_budget b;

	regex_budget_default(&b);
	b.steps = 2000000;
	b.seconds = 0;
	b.quick = true;
	b.max_len = 1024;
	b.max_bytes = 65536;
	regex_set_budget(re, &b);
}

static void
view_filter_install(struct view *v, const char *pattern, bool hide,
    uint8_t *match)
{
	filter_set_function_mask(&v->filter, v->trace, match, hide);
	free(v->func_pattern);
	v->func_pattern = match != NULL ? xstrdup(pattern) : NULL;
	v->func_hide = match != NULL && hide;
	view_filter_changed(v);
}

/* Forgets a function filter still being matched. */
static void
filter_pending_drop(struct view *v)
{
	v->filter_req++;
	if (v->func_pending == NULL)
		return;
	jobs_cancel(JOB_FILTER);
	free(v->func_pending);
	v->func_pending = NULL;
}

int
view_filter_functions(struct view *v, const char *pattern, bool hide)
{
	struct regex *re;
	char *err = NULL;

	if (pattern == NULL || pattern[0] == '\0') {
		filter_pending_drop(v);
		view_filter_install(v, NULL, false, NULL);
		return 0;
	}
	re = regex_compile(pattern, &err);
	if (re == NULL) {
		view_message(v, true, "bad regex: %s", err ? err : "?");
		free(err);
		return -1;
	}
	filter_pending_drop(v);
	quick_budget(re);
	uint8_t *m = regex_match_funcs_or_categories(v->trace, re);
	regex_free(re);
	if (m != NULL) {
		view_filter_install(v, pattern, hide, m);
		return 0;
	}
	/* Too costly for a frame: the worker matches it within the whole
	 * budget while the view keeps answering; Esc stops it. */
	struct job *j = job_new(JOB_FILTER, v->trace, NULL, v->filter_gen);
	j->pattern = xstrdup(pattern);
	j->hide = hide;
	j->req = v->filter_req;
	v->func_pending = xstrdup(pattern);
	v->func_pending_hide = hide;
	view_message(v, false, "filtering %s/%s/ ... (Esc stops)",
	    hide ? "hide" : "only", pattern);
	jobs_submit(j);
	return 0;
}

void
view_filter_take(struct view *v, const char *pattern, bool hide,
    uint8_t *func_on)
{
	filter_pending_drop(v);
	free(v->filter.func_on);
	v->filter.func_on = func_on;
	v->filter.hide_functions = func_on != NULL && hide;
	free(v->func_pattern);
	v->func_pattern = func_on != NULL ? xstrdup(pattern) : NULL;
	v->func_hide = func_on != NULL && hide;
	view_filter_changed(v);
}

bool
view_regex_stop(struct view *v)
{
	if (v->func_pending != NULL) {
		view_message(v, true, "filter %s/%s/ not applied: stopped",
		    v->func_pending_hide ? "hide" : "only", v->func_pending);
		filter_pending_drop(v);
		return true;
	}
	if (v->search_pending) {
		char *p = xstrdup(v->search_pattern ? v->search_pattern : "");
		view_search_clear(v);
		view_message(v, true, "search /%s/ stopped", p);
		free(p);
		return true;
	}
	return false;
}

void
view_apply_threads(struct view *v)
{
	const struct trace *t = v->trace;
	int64_t *tids = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *tids);
	size_t n = 0;

	for (uint32_t i = 0; i < t->ntracks; i++)
		if (v->thread_pick[i] && t->tracks[i].kind == TRACK_THREAD)
			tids[n++] = t->tracks[i].tid;
	if (n == 0 && !v->thread_invert) {
		filter_set_threads(&v->filter, t, NULL, 0, false);
		v->thread_active = false;
	} else {
		filter_set_threads(&v->filter, t, tids, n, v->thread_invert);
		v->thread_active = true;
	}
	free(tids);
	timeline_pane_rewind(v);
	if (v->has_cursor && !view_track_shown(v, v->cursor.track)) {
		v->cursor_track = UINT32_MAX;
		view_cursor_at_time(v, view_cursor_time(v));
	}
	view_filter_changed(v);
}

void
view_clear_filters(struct view *v)
{
	memset(v->thread_pick, 0, v->trace->ntracks ? v->trace->ntracks : 1);
	v->thread_invert = false;
	view_apply_threads(v);
	view_filter_functions(v, NULL, false);
}

void
view_filter_text(const struct view *v, char *buf, size_t size)
{
	const struct trace *t = v->trace;
	size_t shown = 0, all = 0, n;

	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].kind == TRACK_THREAD) {
			all++;
			shown += view_track_shown(v, i);
		}
	if (v->thread_active)
		n = (size_t)snprintf(buf, size, "threads %zu/%zu%s", shown,
		    all, v->thread_invert ? " (inverted)" : "");
	else
		n = (size_t)snprintf(buf, size, "threads all %zu", all);
	if (n >= size)
		return;
	if (v->func_pending != NULL)
		snprintf(buf + n, size - n, "  fn %s/%s/ (filtering...)",
		    v->func_pending_hide ? "hide" : "only", v->func_pending);
	else if (v->func_pattern != NULL)
		snprintf(buf + n, size - n, "  fn %s/%s/",
		    v->func_hide ? "hide" : "only", v->func_pattern);
}

/* ------------------------------------------------------------- search */

void
view_search_clear(struct view *v)
{
	/* A search still matching (or finding its hits) is of no use now. */
	if (v->search_pending)
		jobs_cancel(JOB_SEARCH);
	v->search_req++;
	free(v->search_pattern);
	free(v->match);
	free(v->str_match);
	v->str_match = NULL;
	free(v->hits);
	free(v->results);
	free(v->log_match);
	v->log_match = NULL;
	v->nlog_matches = 0;
	logs_pane_stale(v);
	v->search_pattern = NULL;
	v->match = NULL;
	v->hits = NULL;
	v->results = NULL;
	v->nhits = v->nresults = 0;
	v->search_pending = false;
	v->arg_hits = false;
}

static void
search_submit(struct view *v)
{
	struct job *j = job_new(JOB_SEARCH, v->trace, &v->filter,
	    v->filter_gen);
	size_t n = v->trace->nfuncs ? v->trace->nfuncs : 1;

	j->match = xmalloc(n);
	memcpy(j->match, v->match, n);
	n = v->trace->nstrings ? v->trace->nstrings : 1;
	j->str = xmalloc(n);
	memcpy(j->str, v->str_match, n);
	j->req = v->search_req;
	j->t0 = v->range_on ? v->range_t0 : TTV_NS_MIN;
	j->t1 = v->range_on ? v->range_t1 : TTV_NS_MAX;
	v->search_pending = true;
	if (!v->async) {
		job_run(j);
		install(v, j);
		return;
	}
	jobs_submit(j);
}

int
view_search(struct view *v, const char *pattern)
{
	const struct trace *t = v->trace;
	struct search_match m;
	struct regex *re;
	char *err = NULL;

	re = regex_compile_search(pattern, &err);
	if (re == NULL) {
		view_message(v, true, "bad regex: %s", err ? err : "?");
		free(err);
		return -1;
	}
	view_search_clear(v);
	v->search_pattern = xstrdup(pattern);
	quick_budget(re);
	int rc = query_search_match(t, re, &m);
	regex_free(re);
	if (rc == 0) {
		v->match = m.func;
		v->str_match = m.str;
		search_submit(v);
		return 0;
	}
	/* Too costly for a frame: the worker matches the pattern within the
	 * whole budget, then finds the hits; Esc stops it. */
	struct job *j = job_new(JOB_SEARCH, t, &v->filter, v->filter_gen);
	j->t0 = v->range_on ? v->range_t0 : TTV_NS_MIN;
	j->t1 = v->range_on ? v->range_t1 : TTV_NS_MAX;
	j->pattern = xstrdup(pattern);
	j->req = v->search_req;
	v->search_pending = true;
	jobs_submit(j);
	return 0;
}

static bool
same_ref(struct slice_ref a, struct slice_ref b)
{
	return a.track == b.track && a.depth == b.depth && a.index == b.index;
}

static void
go_hit(struct view *v, size_t i)
{
	const struct search_hit *h = &v->hits[i];

	if (h->ref.depth == SEARCH_INSTANT) {
		v->has_cursor = false;
		v->cursor_track = h->ref.track;
		v->cursor_t = h->t;
	} else
		view_set_cursor(v, h->ref);
	view_show_cursor(v);
	view_message(v, false, "match %zu of %zu", i + 1, v->nhits);
}

void
view_search_jump(struct view *v, bool forward)
{
	ttv_ns now = v->has_cursor ? trace_slice(v->trace, v->cursor)->start :
	    v->cursor_t;
	size_t lo = 0, hi = v->nhits, exact = SIZE_MAX;

	if (v->search_pending) {
		view_message(v, true, "still searching... (Esc stops)");
		return;
	}
	if (v->match == NULL) {
		view_message(v, true, "no search: press / first");
		return;
	}
	if (v->nhits == 0) {
		view_message(v, true, "no matches for /%s/", v->search_pattern);
		return;
	}
	while (lo < hi) {	/* first hit at or after now */
		size_t mid = lo + (hi - lo) / 2;
		if (v->hits[mid].t < now)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < v->nhits && v->hits[i].t == now; i++)
		if (v->has_cursor && same_ref(v->hits[i].ref, v->cursor))
			exact = i;
	if (forward) {
		size_t i = exact != SIZE_MAX ? exact + 1 : lo;
		if (exact == SIZE_MAX && !v->has_cursor)
			while (i < v->nhits && v->hits[i].t <= now)
				i++;
		if (i >= v->nhits) {
			go_hit(v, 0);
			view_message(v, false, "match 1 of %zu: search hit "
			    "the end, continued from the start", v->nhits);
			return;
		}
		go_hit(v, i);
	} else {
		size_t i = exact != SIZE_MAX ? exact : lo;
		if (i == 0) {
			go_hit(v, v->nhits - 1);
			view_message(v, false, "match %zu of %zu: search hit "
			    "the start, continued from the end", v->nhits,
			    v->nhits);
			return;
		}
		go_hit(v, i - 1);
	}
}

bool
view_slice_matches(const struct view *v, struct slice_ref r)
{
	const struct slice *s = trace_slice(v->trace, r);
	size_t lo = 0, hi = v->nhits;

	if (view_func_matches(v, s->func))
		return true;
	if (!v->arg_hits)
		return false;
	while (lo < hi) {	/* hits are in time order */
		size_t mid = lo + (hi - lo) / 2;
		if (v->hits[mid].t < s->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < v->nhits && v->hits[lo].t == s->start; lo++)
		if (same_ref(v->hits[lo].ref, r))
			return true;
	return false;
}

/* -------------------------------------------------------------- flows */

bool
view_flow_jump(struct view *v, bool forward)
{
	const struct trace *t = v->trace;
	const struct flow *best = NULL;
	size_t n;

	if (!v->has_cursor) {
		view_message(v, true, "no slice selected");
		return false;
	}
	const struct flow_key *k = view_flows_at(v, forward, v->cursor, &n);
	for (size_t i = 0; i < n; i++) {
		const struct flow *fl = &t->flows[k[i].flow];
		/* Along the chain being walked first, else the first. */
		if (best == NULL || (v->flow_valid && fl->id == v->flow_id &&
		    best->id != v->flow_id))
			best = fl;
	}
	if (best == NULL) {
		view_message(v, true, "no %s flow on this slice", forward ?
		    "outgoing" : "incoming");
		return false;
	}
	struct slice_ref to = forward ? best->to : best->from;
	if (to.track >= t->ntracks || to.depth >= t->tracks[to.track].ndepth ||
	    to.index >= t->tracks[to.track].depth[to.depth].len) {
		view_message(v, true, "flow %llu leads nowhere",
		    (unsigned long long)best->id);
		return false;
	}
	v->flow_valid = true;
	v->flow_id = best->id;
	view_set_cursor(v, to);
	v->folded[to.track] = 0;
	view_show_cursor(v);
	view_message(v, false, "flow %llu %s %s%s", (unsigned long long)best->id,
	    forward ? "to" : "from", trace_func_name(t,
	    trace_slice(t, to)->func), n > 1 ? " (one of several)" : "");
	return true;
}

/* --------------------------------------------------------------- logs */

/* ---------------------------------------------------------- wall clock */

/* Time of day of trace time t with `decimals` digits of the second (0 to
 * 9), or NULL when wall-clock time is off, unknown or out of range. */
static const char *
wall_time(const struct view *v, ttv_ns t, int decimals, char *buf,
    size_t size)
{
	const struct trace *tr = v->trace;
	ttv_ns ns;

	/* The origin is of time 0; a sum past int64 shows trace time. */
	if (!v->wall_clock || tr->wall_origin == TTV_NS_MIN ||
	    __builtin_add_overflow(tr->wall_origin, t, &ns))
		return NULL;
	ttv_ns day = 86400LL * 1000000000LL;
	ttv_ns in = ((ns % day) + day) % day;
	long long sec = (long long)(in / 1000000000);
	char digits[16], frac[24];
	size_t n = 0;

	/* Digits of the second, grouped by three past the first three as
	 * trace times are: 01.500 000 000. */
	snprintf(digits, sizeof digits, "%09lld",
	    (long long)(in % 1000000000));
	for (int i = 0; i < decimals && i < 9; i++) {
		if (i > 0 && i % 3 == 0)
			frac[n++] = ' ';
		frac[n++] = digits[i];
	}
	frac[n] = '\0';
	snprintf(buf, size, "%02lld:%02lld:%02lld%s%s", sec / 3600,
	    sec / 60 % 60, sec % 60, decimals > 0 ? "." : "", frac);
	return buf;
}

const char *
view_time(const struct view *v, ttv_ns t, char *buf, size_t size)
{
	if (wall_time(v, t, 3, buf, size) != NULL)
		return buf;
	return timefmt_time(t, v->trace->first, buf, size);
}

const char *
view_time_res(const struct view *v, ttv_ns t, ttv_ns resolution, char *buf,
    size_t size)
{
	int decimals = 0;

	for (ttv_ns step = 1000000000; step > 1 && step * 100 > resolution;
	    step /= 10)
		decimals++;
	if (decimals < 3)
		decimals = 3;
	if (wall_time(v, t, decimals, buf, size) != NULL)
		return buf;
	return timefmt_time_res(t, v->trace->first, resolution, buf, size);
}

const char *
view_time_exact(const struct view *v, ttv_ns t, char *buf, size_t size)
{
	if (wall_time(v, t, 9, buf, size) != NULL)
		return buf;
	return timefmt_time_exact(t, v->trace->first, buf, size);
}

int
view_parse_wall(struct view *v, const char *s, ttv_ns *out)
{
	const char *why;

	if (time_parse_wall(v->trace, s, out, &why) == 0)
		return 0;
	view_message(v, true, "%s", why);
	return -1;
}

/* ------------------------------------------------------------ markers */

/* The keys that repeat a jump, for the hint after one. */
static void
marker_keys(int kind, const char **next, const char **prev)
{
	switch (kind) {
	case VIEW_MARKER_BUFFER: *next = "b"; *prev = "B"; return;
	case MARKER_TSC_WRAP: *next = "w"; *prev = "W"; return;
	case MARKER_CPU_CHANGE: *next = "c"; *prev = "C"; return;
	case MARKER_CUSTOM_EVENT: *next = "e"; *prev = "E"; return;
	default: *next = "]"; *prev = "["; return;
	}
}

void
view_marker_jump(struct view *v, int kind, bool forward)
{
	/* From the cursor's time as the status line shows it: the marker
	 * last jumped to (pinned), else the middle of the selected call. */
	ttv_ns now = view_cursor_time(v);
	ssize_t i;
	const struct marker *m;

	if (kind == VIEW_MARKER_BUFFER) {
		/* A buffer boundary is where one buffer starts or ends:
		 * the nearer of the two kinds. */
		ssize_t a = forward ? query_marker_next(v->trace, &v->filter,
		    now, MARKER_BUFFER_START) : query_marker_prev(v->trace,
		    &v->filter, now, MARKER_BUFFER_START);
		ssize_t b = forward ? query_marker_next(v->trace, &v->filter,
		    now, MARKER_BUFFER_END) : query_marker_prev(v->trace,
		    &v->filter, now, MARKER_BUFFER_END);
		if (a < 0 || (b >= 0 && (forward ? b < a : b > a)))
			a = b;
		i = a;
	} else
		i = forward ? query_marker_next(v->trace, &v->filter, now,
		    kind) : query_marker_prev(v->trace, &v->filter, now, kind);
	if (i < 0) {
		view_message(v, true, "no %s %s", forward ? "later" :
		    "earlier", kind == VIEW_MARKER_BUFFER ? "buffer boundary" :
		    kind < 0 ? "marker" :
		    marker_kind_name((enum marker_kind)kind));
		return;
	}
	m = &v->trace->markers[i];
	if (m->track != UINT32_MAX && m->track < v->trace->ntracks)
		v->cursor_track = m->track;
	view_goto_time(v, m->t);
	const char *next, *prev;
	marker_keys(kind, &next, &prev);
	view_message(v, false, "%s at %zd of %zu (%s next, %s previous)",
	    marker_kind_name((enum marker_kind)m->kind), i + 1,
	    v->trace->nmarkers, next, prev);
}

/* ---------------------------------------------------------- bookmarks */

void
view_mark_set(struct view *v, int letter)
{
	struct bookmark *b;

	if (letter < 'a' || letter > 'z') {
		view_message(v, true, "bookmarks are a to z");
		return;
	}
	b = &v->marks[letter - 'a'];
	b->set = true;
	b->t0 = v->t0;
	b->t1 = v->t1;
	b->has_cursor = v->has_cursor;
	b->cursor = v->cursor;
	b->cursor_t = v->cursor_t;
	b->cursor_pinned = v->cursor_pinned;
	view_message(v, false, "bookmark '%c set", letter);
}

void
view_mark_jump(struct view *v, int letter)
{
	struct bookmark *b;

	if (letter < 'a' || letter > 'z' || !v->marks[letter - 'a'].set) {
		view_message(v, true, "no bookmark '%c", letter > 32 &&
		    letter < 127 ? letter : '?');
		return;
	}
	b = &v->marks[letter - 'a'];
	v->t0 = b->t0;
	v->t1 = b->t1;
	v->has_cursor = false;
	if (b->has_cursor)
		view_set_cursor(v, b->cursor);
	v->cursor_t = b->cursor_t;
	v->cursor_pinned = b->cursor_pinned;
	view_data_changed(v);
	view_message(v, false, "bookmark '%c", letter);
}
