/*
 * The viewer state and the operations every pane shares: cursor, window,
 * flows, markers, bookmarks, the call tree of the span and the background
 * jobs' collector (see view.h); the range, the filters and the search are
 * in view_filter.c. The panes are reached through their class only.
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
#include "view.h"
#include "xalloc.h"

static ttv_ns
trace_last(const struct trace *t)
{
	return t->last > t->first + TMAP_MIN_SPAN ? t->last :
	    t->first + TMAP_MIN_SPAN;
}

ttv_ns
view_last(const struct view *v)
{
	return trace_last(v->trace);
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
	v->tree_asked = UINT64_MAX;
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
	/* A pattern still being matched is of no use now. */
	if (v->search_pending)
		jobs_cancel(&v->search_req);
	if (v->func_pending != NULL)
		jobs_cancel(&v->func_pending);
	free(v->folded);
	free(v->thread_pick);
	flow_index_free(&v->flows);
	filter_clear(&v->filter);
	free(v->func_pattern);
	free(v->func_pending);
	free(v->search_pattern);
	free(v->match);
	free(v->str_match);
	free(v->hits);
	free(v->results);
	free(v->log_match);
	call_tree_free(&v->tree);
	/* Each pane frees itself, as its class knows how. */
	for (int i = 0; i < PANE_COUNT; i++)
		if (v->panes[i] != NULL)
			v->panes[i]->cls->free(v->panes[i]);
	memset(v, 0, sizeof *v);
}

void
view_show_pane(struct view *v, enum pane_id id)
{
	v->pane = id;
}

/* ------------------------------------------------------------- panes */

void
pane_draw(struct view *v, enum pane_id id, struct grid *g, struct rect r)
{
	struct pane *p = v->panes[id];

	p->cls->draw(p, v, g, r);
}

int
pane_command(struct view *v, enum pane_id id, enum cmd c)
{
	struct pane *p = v->panes[id];

	return p->cls->command(p, v, c);
}

int
pane_mouse(struct view *v, enum pane_id id, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct pane *p = v->panes[id];

	return p->cls->mouse(p, v, r, x, y, b);
}

func_id
pane_selected_func(struct view *v, enum pane_id id)
{
	struct pane *p = v->panes[id];

	if (p->cls->selected_func != NULL)
		return p->cls->selected_func(p, v);
	return v->has_cursor ? trace_slice(v->trace, v->cursor)->func :
	    CALL_NONE;
}

void
view_span(const struct view *v, ttv_ns *t0, ttv_ns *t1)
{
	*t0 = v->range_on ? v->range_t0 : v->t0;
	*t1 = v->range_on ? v->range_t1 : v->t1;
}

void
view_changed(struct view *v, unsigned changed)
{
	for (int i = 0; i < PANE_COUNT; i++) {
		struct pane *p = v->panes[i];
		if (p != NULL && p->cls->stale != NULL)
			p->cls->stale(p, v, changed);
	}
}

void
view_data_changed(struct view *v)
{
	v->tree_valid = false;
	view_changed(v, VIEW_CHANGED_DATA);
	v->data_gen++;
}

void
view_submit(struct view *v, struct job *j)
{
	if (v->async) {
		jobs_submit(j);
		return;
	}
	j->run(j);
	j->install(j, v);
	job_free(j);
}

bool
view_collect(struct view *v)
{
	struct job *j;
	bool any = false;

	while ((j = jobs_take()) != NULL) {
		j->install(j, v);
		job_free(j);
		any = true;
	}
	return any;
}

/* ---------------------------------------------------------- call tree */

struct tree_job {
	bool per_thread;
	struct call_tree tree;
};

static void
tree_job_free(void *arg)
{
	struct tree_job *a = arg;

	call_tree_free(&a->tree);
	free(a);
}

static void
tree_run(struct job *j)
{
	struct tree_job *a = j->arg;

	query_call_tree(j->t, &j->filter, j->t0, j->t1, a->per_thread,
	    &a->tree);
}

static void
tree_install(struct job *j, struct view *v)
{
	struct tree_job *a = j->arg;

	if (j->gen != v->data_gen)
		return;
	call_tree_free(&v->tree);
	v->tree = a->tree;
	memset(&a->tree, 0, sizeof a->tree);
	v->tree_valid = true;
	v->tree_gen++;
}

void
view_tree_request(struct view *v)
{
	struct job *j;
	struct tree_job *a;

	if (v->async) {
		if (v->tree_asked == v->data_gen)
			return;		/* already on its way */
		v->tree_asked = v->data_gen;
	}
	j = job_new(&v->tree, v->trace, &v->filter, v->data_gen);
	a = xcalloc(1, sizeof *a);
	a->per_thread = v->flame_per_thread;
	view_span(v, &j->t0, &j->t1);
	j->run = tree_run;
	j->install = tree_install;
	j->arg = a;
	j->arg_free = tree_job_free;
	view_submit(v, j);
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
		if (v->cursor_t < v->t0 || v->cursor_t >= v->t1) {
			tmap_center(&v->t0, &v->t1, v->cursor_t,
			    v->trace->first, trace_last(v->trace));
			view_data_changed(v);
		}
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
view_time_exact_width(const struct view *v)
{
	/* a time of day: HH:MM:SS.nnn nnn nnn */
	int w = v->wall_clock && v->trace->wall_origin != TTV_NS_MIN ? 20 : 0;
	int e = timefmt_trace_exact_width(v->trace->first, v->trace->last);
	return e > w ? e : w;
}

const char *
view_span_text(const struct view *v, char *buf, size_t size)
{
	char b1[48], b2[48];

	if (v->range_on)
		snprintf(buf, size, "%s .. %s (range)", view_time_exact(v,
		    v->range_t0, b1, sizeof b1), view_time_exact(v,
		    v->range_t1, b2, sizeof b2));
	else
		snprintf(buf, size, "%s .. %s", view_time_res(v, v->t0,
		    v->t1 - v->t0, b1, sizeof b1), view_time_res(v, v->t1,
		    v->t1 - v->t0, b2, sizeof b2));
	return buf;
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
