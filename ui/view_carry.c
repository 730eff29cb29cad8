/* A view carried over to a newer read of its trace (view_carry.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "callpanes.h"
#include "columns.h"
#include "sqlpane.h"
#include "view_carry.h"
#include "xalloc.h"

/* A thread (or any track) as it stays from one read to the next: a
 * thread's lanes of one tid (its calls, its JIT/GC lane) differ by
 * name, compared by a hash of it. */
struct track_key {
	int kind;
	int64_t pid, tid;
	uint64_t name;
};

static uint64_t
name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* A call as it stays from one read to the next: an unfinished call
 * keeps its start once it returns. */
struct call_key {
	bool set;
	struct track_key track;
	uint32_t depth;
	ttv_ns start;
};

struct carried_mark {
	struct bookmark b;
	struct call_key call;
};

struct view_carry {
	ttv_ns t0, t1;
	bool range_on;
	ttv_ns range_t0, range_t1;
	enum pane_id pane;
	bool details, wall_clock, flame_per_thread;
	struct list_pos pos[PANE_COUNT];
	bool cols_set[PANE_COUNT];
	uint32_t cols[PANE_COUNT];
	char *calls_func_name, *calls_func_cat;
	/* the cursor */
	struct call_key cursor;
	bool has_track;
	struct track_key cursor_track;
	ttv_ns cursor_t;
	bool cursor_pinned;
	/* lanes folded, threads picked: by key */
	struct track_key *folded, *picked;
	size_t nfolded, npicked;
	bool thread_invert, thread_active;
	char *func_pattern;
	bool func_hide;
	char *search_pattern;
	char *sql_query;	/* the SQL pane's, run again */
	struct carried_mark marks[26];
	struct pane_carry *own[PANE_COUNT];	/* each pane's own state */
	char msg[256];
	bool msg_error;
};

static struct track_key
key_of(const struct trace *t, uint32_t track)
{
	const struct track *tr = &t->tracks[track];

	return (struct track_key){ .kind = (int)tr->kind, .tid = tr->tid,
	    .pid = tr->process < t->nprocesses ?
	    t->processes[tr->process].pid : -1,
	    .name = tr->name < t->nstrings ? name_hash(t->strings[tr->name]) :
	    0 };
}

static int
cmp_key(const void *a, const void *b)
{
	const struct track_key *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The new trace's tracks by key, to look up (n log n, not n * m). */
struct track_index {
	struct track_key *keys;	/* sorted */
	uint32_t *tracks;	/* parallel */
	uint32_t n;
};

struct keyed {
	struct track_key k;
	uint32_t track;
};

static int
cmp_keyed(const void *a, const void *b)
{
	return cmp_key(&((const struct keyed *)a)->k,
	    &((const struct keyed *)b)->k);
}

static void
index_build(const struct trace *t, struct track_index *ix)
{
	struct keyed *all = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *all);

	for (uint32_t i = 0; i < t->ntracks; i++)
		all[i] = (struct keyed){ key_of(t, i), i };
	qsort(all, t->ntracks, sizeof *all, cmp_keyed);
	ix->n = t->ntracks;
	ix->keys = xcalloc(ix->n ? ix->n : 1, sizeof *ix->keys);
	ix->tracks = xcalloc(ix->n ? ix->n : 1, sizeof *ix->tracks);
	for (uint32_t i = 0; i < ix->n; i++) {
		ix->keys[i] = all[i].k;
		ix->tracks[i] = all[i].track;
	}
	free(all);
}

/* The track of key k in the new trace, or UINT32_MAX. */
static uint32_t
index_find(const struct track_index *ix, const struct track_key *k)
{
	const struct track_key *p = bsearch(k, ix->keys, ix->n,
	    sizeof *ix->keys, cmp_key);

	return p != NULL ? ix->tracks[p - ix->keys] : UINT32_MAX;
}

static void
index_free(struct track_index *ix)
{
	free(ix->keys);
	free(ix->tracks);
}

static struct call_key
call_key_of(const struct trace *t, struct slice_ref r)
{
	return (struct call_key){ .set = true, .track = key_of(t, r.track),
	    .depth = r.depth, .start = trace_slice(t, r)->start };
}

/* The call of key k in the new trace: its thread, depth and start. */
static bool
call_find(const struct trace *t, const struct track_index *ix,
    const struct call_key *k, struct slice_ref *out)
{
	if (!k->set)
		return false;
	uint32_t track = index_find(ix, &k->track);
	if (track == UINT32_MAX || k->depth >= t->tracks[track].ndepth)
		return false;
	const struct depth_level *l = &t->tracks[track].depth[k->depth];
	size_t lo = 0, hi = l->len;
	while (lo < hi) {	/* the first slice starting at or after */
		size_t mid = lo + (hi - lo) / 2;
		if (l->slices[mid].start < k->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= l->len || l->slices[lo].start != k->start)
		return false;
	*out = (struct slice_ref){ track, k->depth, (uint32_t)lo };
	return true;
}

struct view_carry *
view_carry_take(const struct view *v)
{
	const struct trace *t = v->trace;
	struct view_carry *c = xcalloc(1, sizeof *c);

	c->t0 = v->t0;
	c->t1 = v->t1;
	c->range_on = v->range_on;
	c->range_t0 = v->range_t0;
	c->range_t1 = v->range_t1;
	c->pane = v->pane;
	c->details = v->details;
	c->wall_clock = v->wall_clock;
	c->flame_per_thread = v->flame_per_thread;
	for (int p = 0; p < PANE_COUNT; p++) {
		c->pos[p] = v->panes[p]->pos;
		struct column_set *cs = pane_column_set(v->panes[p]);
		if (cs != NULL) {
			c->cols_set[p] = true;
			c->cols[p] = cs->shown;
		}
	}
	if (v->pane == PANE_CALLERS || v->pane == PANE_INSTANCES) {
		func_id f = calls_pane_func(v, v->pane);
		if (f != CALL_NONE && f < t->nfuncs) {
			c->calls_func_name = xstrdup(t->strings[
			    t->funcs[f].name]);
			c->calls_func_cat = xstrdup(t->strings[
			    t->funcs[f].category]);
		}
	}
	if (v->has_cursor)
		c->cursor = call_key_of(t, v->cursor);
	if (v->cursor_track < t->ntracks) {
		c->has_track = true;
		c->cursor_track = key_of(t, v->cursor_track);
	}
	c->cursor_t = v->cursor_t;
	c->cursor_pinned = v->cursor_pinned;
	c->folded = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *c->folded);
	c->picked = xcalloc(t->ntracks ? t->ntracks : 1, sizeof *c->picked);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		if (v->folded[i])
			c->folded[c->nfolded++] = key_of(t, i);
		if (v->thread_pick[i])
			c->picked[c->npicked++] = key_of(t, i);
	}
	c->thread_invert = v->thread_invert;
	c->thread_active = v->thread_active;
	/* a filter still being matched is the one asked for */
	const char *fp = v->func_pending ? v->func_pending : v->func_pattern;
	c->func_pattern = fp ? xstrdup(fp) : NULL;
	c->func_hide = v->func_pending ? v->func_pending_hide : v->func_hide;
	c->search_pattern = v->search_pattern ? xstrdup(v->search_pattern) :
	    NULL;
	const char *q = sql_pane_query(v);
	c->sql_query = q ? xstrdup(q) : NULL;
	for (int i = 0; i < 26; i++) {
		c->marks[i].b = v->marks[i];
		if (v->marks[i].set && v->marks[i].has_cursor)
			c->marks[i].call = call_key_of(t, v->marks[i].cursor);
	}
	for (int p = 0; p < PANE_COUNT; p++)
		if (v->panes[p]->cls->carry_take != NULL)
			c->own[p] = v->panes[p]->cls->carry_take(v->panes[p],
			    (struct view *)v);
	memcpy(c->msg, v->msg, sizeof c->msg);
	c->msg_error = v->msg_error;
	return c;
}

/* A time of the old read inside the new one's span (a trace read again
 * may start later: a ring buffer, a stream that lost its first
 * packets). */
static ttv_ns
clamp_time(const struct trace *t, ttv_ns x)
{
	ttv_ns last = t->last;

	return x < t->first ? t->first : x > last ? last : x;
}

void
view_carry_apply(const struct view_carry *c, struct view *v)
{
	const struct trace *t = v->trace;
	struct track_index ix;
	struct slice_ref r;

	index_build(t, &ix);
	for (size_t i = 0; i < c->npicked; i++) {
		uint32_t tr = index_find(&ix, &c->picked[i]);
		if (tr != UINT32_MAX)
			v->thread_pick[tr] = 1;
	}
	v->thread_invert = c->thread_invert;
	if (c->thread_active)
		view_apply_threads(v);
	for (size_t i = 0; i < c->nfolded; i++) {
		uint32_t tr = index_find(&ix, &c->folded[i]);
		if (tr != UINT32_MAX)
			v->folded[tr] = 1;
	}
	if (c->func_pattern != NULL)
		view_filter_functions(v, c->func_pattern, c->func_hide);
	for (int i = 0; i < 26; i++) {
		if (!c->marks[i].b.set)
			continue;
		v->marks[i] = c->marks[i].b;
		v->marks[i].has_cursor = call_find(t, &ix, &c->marks[i].call,
		    &v->marks[i].cursor);
	}
	/* the window and the range as they were: a trace read again only
	 * grows, and what it does not reach yet is drawn empty */
	if (c->t0 < c->t1) {
		v->t0 = c->t0;
		v->t1 = c->t1;
	}
	v->details = c->details;
	v->wall_clock = c->wall_clock && t->wall_origin != TTV_NS_MIN;
	v->flame_per_thread = c->flame_per_thread;
	if (c->has_track)
		v->cursor_track = index_find(&ix, &c->cursor_track);
	if (call_find(t, &ix, &c->cursor, &r)) {
		view_set_cursor(v, r);
		v->cursor_t = c->cursor_t;
		v->cursor_pinned = c->cursor_pinned;
	} else {
		/* the call is gone (or there was none): what runs there */
		view_cursor_at_time(v, clamp_time(t, c->cursor_t));
		v->cursor_pinned = c->cursor_pinned || !v->has_cursor;
	}
	if (c->range_on)
		view_range_set(v, c->range_t0, c->range_t1);
	view_data_changed(v);
	if (c->sql_query != NULL)
		sql_pane_run(v, c->sql_query);
	for (int p = 0; p < PANE_COUNT; p++) {
		struct column_set *cs = pane_column_set(v->panes[p]);
		if (cs != NULL && c->cols_set[p])
			cs->shown = c->cols[p];
		/* each list clamps its row to what it holds at its draw */
		v->panes[p]->pos = c->pos[p];
		if (c->own[p] != NULL && v->panes[p]->cls->carry_apply != NULL)
			v->panes[p]->cls->carry_apply(v->panes[p], v,
			    c->own[p]);
	}
	func_id f = CALL_NONE;
	if (c->calls_func_name != NULL)
		for (func_id i = 0; i < t->nfuncs && f == CALL_NONE; i++)
			if (strcmp(t->strings[t->funcs[i].name],
			    c->calls_func_name) == 0 &&
			    strcmp(t->strings[t->funcs[i].category],
			    c->calls_func_cat) == 0)
				f = i;
	if ((c->pane == PANE_CALLERS || c->pane == PANE_INSTANCES) &&
	    f != CALL_NONE) {
		calls_pane_open(v, c->pane, f);
		v->panes[c->pane]->pos = c->pos[c->pane];
	} else if (c->pane != PANE_CALLERS && c->pane != PANE_INSTANCES)
		view_show_pane(v, c->pane);
	if (c->search_pattern != NULL)
		view_search(v, c->search_pattern);
	/* what the status line said stays (the search above spoke) */
	memcpy(v->msg, c->msg, sizeof v->msg);
	v->msg_error = c->msg_error;
	index_free(&ix);
}

void
view_carry_free(struct view_carry *c)
{
	if (c == NULL)
		return;
	free(c->calls_func_name);
	free(c->calls_func_cat);
	free(c->folded);
	free(c->picked);
	free(c->func_pattern);
	free(c->search_pattern);
	free(c->sql_query);
	for (int p = 0; p < PANE_COUNT; p++)
		if (c->own[p] != NULL)
			c->own[p]->free(c->own[p]);
	free(c);
}
