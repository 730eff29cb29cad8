/*
 * What the panes follow and what they highlight: the range, the thread
 * and function filters, and the search (see view.h). A change to any of
 * them makes what was computed of the span stale and finds the search's
 * hits again.
 *
 * The function filter (f and F, --function, --hide) and the search (/)
 * are regexes, matched on the viewer's thread when that takes a frame's
 * work at most, else on the worker (jobs.h) within the whole regex
 * budget, where Esc stops them; the search's hits are found on the worker
 * for big traces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_calls.h"
#include "view.h"
#include "xalloc.h"

/* ------------------------------------------------------------- range */

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
view_filter_changed(struct view *v)
{
	view_data_changed(v);
	v->filter_gen++;
	if (v->match != NULL)
		view_search_refresh(v);
}

/* ----------------------------------------------------------- threads */

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
	view_changed(v, VIEW_CHANGED_THREADS);
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

/* ---------------------------------------------------------- functions */
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
	jobs_cancel(&v->func_pending);
	free(v->func_pending);
	v->func_pending = NULL;
}

/* A function filter too costly for a frame, matched on the worker: the
 * functions whose name or category matches. */
struct filter_job {
	uint64_t req;		/* the view's filter_req it was for */
	char *pattern;
	bool hide;
	uint8_t *match;		/* out: nfuncs */
	char *error;		/* out: why the pattern got no answer */
};

static void
filter_job_free(void *arg)
{
	struct filter_job *a = arg;

	free(a->pattern);
	free(a->match);
	free(a->error);
	free(a);
}

/* A regex held to the whole budget, stopped by jobs_cancel; NULL with
 * *error when it does not compile (the view compiled it first). */
static struct regex *
job_regex(struct job *j, const char *pattern, bool search, char **error)
{
	char *err = NULL;
	struct regex *re = search ? regex_compile_search(pattern, &err) :
	    regex_compile(pattern, &err);
	struct regex_budget b;

	if (re == NULL) {
		*error = xasprintf("bad regex: %s", err);
		free(err);
		return NULL;
	}
	regex_budget_default(&b);
	b.stop = &j->cancel;
	regex_set_budget(re, &b);
	return re;
}

static void
filter_run(struct job *j)
{
	struct filter_job *a = j->arg;
	struct regex *re = job_regex(j, a->pattern, false, &a->error);

	if (re == NULL)
		return;
	a->match = regex_match_funcs_or_categories(j->t, re);
	if (a->match == NULL)
		a->error = xstrdup(regex_error(re));
	regex_free(re);
}

/* Applied if it is still the filter asked for last, or said why not. */
static void
filter_install(struct job *j, struct view *v)
{
	struct filter_job *a = j->arg;

	if (a->req != v->filter_req || v->func_pending == NULL)
		return;
	free(v->func_pending);
	v->func_pending = NULL;
	if (a->error != NULL) {
		view_message(v, true, "filter not applied: %s", a->error);
		return;
	}
	view_filter_install(v, a->pattern, a->hide, a->match);
	a->match = NULL;
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
	struct job *j = job_new(&v->func_pending, v->trace, NULL,
	    v->filter_gen);
	struct filter_job *a = xcalloc(1, sizeof *a);
	a->pattern = xstrdup(pattern);
	a->hide = hide;
	a->req = v->filter_req;
	j->run = filter_run;
	j->install = filter_install;
	j->arg = a;
	j->arg_free = filter_job_free;
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

/* ------------------------------------------------------------ search */
void
view_search_clear(struct view *v)
{
	/* A search still matching (or finding its hits) is of no use now. */
	if (v->search_pending)
		jobs_cancel(&v->search_req);
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
	view_changed(v, VIEW_CHANGED_SEARCH);
	v->search_pattern = NULL;
	v->match = NULL;
	v->hits = NULL;
	v->results = NULL;
	v->nhits = v->nresults = 0;
	v->search_pending = false;
	v->arg_hits = false;
}

/* A search's hits (and, when the viewer's thread found the pattern too
 * costly, its matching first) on the worker. The search itself is a
 * query (query_search_all): here it only runs off the drawing thread. */
struct search_job {
	uint64_t req;		/* the view's search_req it was for */
	/* In: the functions and strings matched (a search_match), or,
	 * both NULL, the pattern to match first within the budget. */
	uint8_t *match;
	uint8_t *str;
	char *pattern;
	/* Out. */
	char *error;		/* why the pattern got no answer */
	struct search_hit *hits;
	size_t nhits;
	struct search_row *results;
	size_t nresults;
	uint8_t *log_match;	/* nlogs: log text matches the pattern */
	size_t nlog_matches;
};

static void
search_job_free(void *arg)
{
	struct search_job *a = arg;

	free(a->match);
	free(a->str);
	free(a->pattern);
	free(a->error);
	free(a->hits);
	free(a->results);
	free(a->log_match);
	free(a);
}

static void
search_run(struct job *j)
{
	struct search_job *a = j->arg;
	struct search_result res;

	if (a->match == NULL && a->pattern != NULL) {
		struct regex *re = job_regex(j, a->pattern, true, &a->error);
		struct search_match m;
		if (re == NULL)
			return;
		if (query_search_match(j->t, re, &m) != 0) {
			a->error = xstrdup(regex_error(re));
			regex_free(re);
			return;
		}
		regex_free(re);
		a->match = m.func;
		a->str = m.str;
	}
	struct search_match m = { a->match, a->str };
	query_search_all(j->t, &j->filter, &m, &res);
	a->hits = res.hits;
	/* The range, when one is set: the hits in it by the range rule. */
	a->nhits = res.nhits;
	if (j->t0 != TTV_NS_MIN || j->t1 != TTV_NS_MAX)
		a->nhits = search_in_range(j->t, res.hits, res.nhits, j->t0,
		    j->t1);
	a->log_match = res.log_match;
	a->nlog_matches = res.nlog_matches;
	a->nresults = query_search_rows(j->t, a->hits, a->nhits,
	    &a->results);
}

static void
search_install(struct job *j, struct view *v)
{
	struct search_job *a = j->arg;

	if (a->req != v->search_req)
		return;		/* an older search, or one cleared */
	if (a->error != NULL) {
		view_search_clear(v);
		view_message(v, true, "search not run: %s", a->error);
		return;
	}
	if (v->match == NULL) {
		/* The worker matched the pattern: its verdicts serve every
		 * later filter and range. */
		v->match = a->match;
		v->str_match = a->str;
		a->match = a->str = NULL;
		if (j->gen != v->filter_gen) {
			view_search_refresh(v);
			return;
		}
	}
	if (j->gen != v->filter_gen)
		return;
	free(v->hits);
	free(v->results);
	v->hits = a->hits;
	v->nhits = a->nhits;
	v->results = a->results;
	v->nresults = a->nresults;
	a->hits = NULL;
	a->results = NULL;
	v->search_pending = false;
	/* Log text matches too, for the log pane. */
	free(v->log_match);
	v->log_match = a->log_match;
	v->nlog_matches = a->nlog_matches;
	a->log_match = NULL;
	view_changed(v, VIEW_CHANGED_SEARCH);
	v->arg_hits = false;
	for (size_t i = 0; i < v->nhits && !v->arg_hits; i++)
		if (v->hits[i].ref.depth != SEARCH_INSTANT &&
		    !view_func_matches(v, trace_slice(v->trace,
		    v->hits[i].ref)->func))
			v->arg_hits = true;
}

/* A search job over the view's filters and range. */
static struct job *
search_job(struct view *v, struct search_job **arg)
{
	struct job *j = job_new(&v->search_req, v->trace, &v->filter,
	    v->filter_gen);
	struct search_job *a = xcalloc(1, sizeof *a);

	a->req = v->search_req;
	j->t0 = v->range_on ? v->range_t0 : TTV_NS_MIN;
	j->t1 = v->range_on ? v->range_t1 : TTV_NS_MAX;
	j->run = search_run;
	j->install = search_install;
	j->arg = a;
	j->arg_free = search_job_free;
	*arg = a;
	return j;
}

void
view_search_refresh(struct view *v)
{
	struct search_job *a;
	struct job *j = search_job(v, &a);
	size_t n = v->trace->nfuncs ? v->trace->nfuncs : 1;

	a->match = xmalloc(n);
	memcpy(a->match, v->match, n);
	n = v->trace->nstrings ? v->trace->nstrings : 1;
	a->str = xmalloc(n);
	memcpy(a->str, v->str_match, n);
	v->search_pending = true;
	view_submit(v, j);
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
		view_search_refresh(v);
		return 0;
	}
	/* Too costly for a frame: the worker matches the pattern within the
	 * whole budget, then finds the hits; Esc stops it. */
	struct search_job *a;
	struct job *j = search_job(v, &a);
	a->pattern = xstrdup(pattern);
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
