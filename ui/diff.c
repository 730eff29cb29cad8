/*
 * The trace compared with a base: the session the comparison's panes share
 * (diff.h) — the base loaded by the program's road on the worker, its
 * view, the two comparisons of query_diff.h — and the first of those
 * panes, the differential flame graph.
 *
 * The graph is the tree of call paths of both traces (query_diff --by
 * path, on the call trees of query_tree.c), drawn by the flame pane's code
 * (flamegraph.h): frame widths are the new trace's time on the path (or
 * the base's, with t, so that what vanished shows), the colour is the
 * path's status by the --min-change rule of the batch diff — red grew,
 * blue shrank, neutral the same — its strength the change's share of the
 * largest change, as difffolded's differential graphs. O lists the paths
 * found in one trace only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "env.h"
#include "flamegraph.h"
#include "panes.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

/* The pane's state: the session, and the graph of its paths. */
struct diff_pane {
	struct pane base;
	struct diff_session s;

	uint64_t gen;		/* the session's gen the graph is of */
	bool built;
	bool base_widths;	/* widths of the base, not the new trace */
	size_t nn;		/* nodes of s.paths, 0 the root */
	uint32_t *row;		/* a node's row in s.paths, or UINT32_MAX */
	uint32_t *first, *next;	/* children, widest first */
	int64_t *size;		/* the node's width */
	ttv_ns max_delta;
	struct flame_view fv;

	bool only;		/* the list of paths in one trace only */
	uint32_t *only_rows;	/* rows of s.paths */
	size_t nonly;
	struct list_pos only_pos;
};

static struct diff_pane *
pane_of(struct view *v)
{
	return (struct diff_pane *)v->panes[PANE_DIFF];
}

struct diff_session *
diff_session(struct view *v)
{
	return &pane_of(v)->s;
}

bool
diff_busy(struct view *v)
{
	return jobs_busy(diff_session(v)) || jobs_busy(v->panes[PANE_DIFF_CALLS]);
}

/* ------------------------------------------------------------ helpers */

int
diff_level(ttv_ns delta, ttv_ns max)
{
	double f;

	if (max <= 0)
		return 0;
	f = fabs((double)delta) / (double)max;
	return f > 2.0 / 3.0 ? 2 : f > 1.0 / 3.0 ? 1 : 0;
}

ttv_ns
diff_max_delta(const struct diff *d)
{
	ttv_ns max = 0;

	for (size_t i = 0; i < d->n; i++) {
		ttv_ns x = d->rows[i].delta;
		x = x < 0 ? (x == TTV_NS_MIN ? TTV_NS_MAX : -x) : x;
		if (d->rows[i].status != DIFF_SAME && x > max)
			max = x;
	}
	return max;
}

int
diff_style(const struct diff_row *r, ttv_ns max)
{
	switch (r->status) {
	case DIFF_GREW:
	case DIFF_ONLY_NEW:
		return STYLE_DIFF_GREW0 + diff_level(r->delta, max);
	case DIFF_SHRANK:
	case DIFF_ONLY_BASE:
		return STYLE_DIFF_SHRANK0 + diff_level(r->delta, max);
	default:
		return STYLE_DIFF_SAME;
	}
}

const char *
diff_signed_duration(ttv_ns d, char *buf, size_t size)
{
	if (d == 0 || size < 2)
		return timefmt_duration(0, buf, size);
	buf[0] = d < 0 ? '-' : '+';
	timefmt_duration(d < 0 ? (d == TTV_NS_MIN ? TTV_NS_MAX : -d) : d,
	    buf + 1, size - 1);
	return buf;
}

const char *
diff_change_text(const struct diff_row *r, char *buf, size_t size)
{
	double ratio = diff_ratio(r);

	if (r->status == DIFF_ONLY_NEW)
		snprintf(buf, size, "new");
	else if (r->status == DIFF_ONLY_BASE)
		snprintf(buf, size, "gone");
	else if (isnan(ratio))
		diff_signed_duration(r->delta, buf, size);
	else
		snprintf(buf, size, "%+.1f%%", (ratio - 1.0) * 100.0);
	return buf;
}

func_id
diff_func_named(const struct trace *t, const char *name)
{
	for (func_id f = 0; f < t->nfuncs; f++)
		if (strcmp(trace_func_name(t, f), name) == 0)
			return f;
	return CALL_NONE;
}

const char *
diff_trace_name(const struct trace *t, const char *fallback)
{
	return t != NULL && t->path != NULL ? t->path : fallback ? fallback :
	    "";
}

static uint8_t *
copy_mask(const uint8_t *m, size_t n)
{
	uint8_t *c;

	if (m == NULL)
		return NULL;
	c = xmalloc(n ? n : 1);
	memcpy(c, m, n);
	return c;
}

void
diff_filter_copy(struct filter *to, const struct filter *from,
    const struct trace *t)
{
	*to = *from;
	to->track_on = copy_mask(from->track_on, t->ntracks);
	to->func_on = copy_mask(from->func_on, t->nfuncs);
}

/* ------------------------------------------------------------ session */

/* Drops the base and what was made of it (nothing on the worker reads it:
 * diff_busy). */
static void
session_drop(struct diff_session *s)
{
	if (s->base != NULL) {
		view_free(&s->bview);
		trace_free(s->base);
		s->base = NULL;
	}
	filter_clear(&s->bf);
	free(s->path);
	s->path = NULL;
	diff_free(&s->table);
	diff_free(&s->paths);
	s->ready = false;
	s->gen++;
}

/* The base is t, loaded from path with selection sel (its filter taken). */
static void
session_take(struct diff_session *s, struct view *v, const char *path,
    struct trace *t, struct selection *sel)
{
	session_drop(s);
	s->path = xstrdup(path);
	s->base = t;
	s->bf = sel->f;
	filter_init(&sel->f);
	s->b0 = sel->t0;
	s->b1 = sel->t1;
	/* The base's own view, with only a timeline: the timelines pane
	 * draws it into half the screen. */
	view_init(&s->bview, t, v->utf8);
	s->bview.details = false;
	filter_clear(&s->bview.filter);
	diff_filter_copy(&s->bview.filter, &s->bf, t);
	s->bview.panes[PANE_TIMELINE] = pane_timeline.create(&s->bview);
	s->bview.panes[PANE_TIMELINE]->cls = &pane_timeline;
	s->gen++;
}

static void
session_free(struct diff_session *s)
{
	session_drop(s);
	filter_clear(&s->nf);
	free(s->loading);
	free(s->error);
}

static void
set_error(struct diff_session *s, const char *fmt, const char *a,
    const char *b)
{
	free(s->error);
	s->error = xasprintf(fmt, a, b);
}

/* -------------------------------------------------------- the comparison */

/* A comparison on the worker: the base loaded by the program's road
 * first when path is set, then both comparisons. */
struct compare_job {
	struct viewer_diff opt;
	char *path;			/* to load, or NULL */
	const struct trace *base;	/* else the session's */
	struct filter bf;
	ttv_ns b0, b1, t0, t1;
	struct diff_progress *prog;
	struct trace *loaded;
	struct selection sel;
	struct diff table, paths;
	char *err;
	bool load_failed;
};

static void
compare_job_free(void *arg)
{
	struct compare_job *a = arg;

	free(a->path);
	filter_clear(&a->bf);
	selection_clear(&a->sel);
	if (a->loaded != NULL)
		trace_free(a->loaded);
	diff_free(&a->table);
	diff_free(&a->paths);
	free(a->err);
	free(a->prog);
	free(a);
}

static void
progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct diff_progress *p = arg;

	atomic_store(&p->done, done);
	atomic_store(&p->total, total);
}

static void
compare_run(struct job *j)
{
	struct compare_job *a = j->arg;
	const struct trace *base = a->base;
	const struct filter *bf = &a->bf;
	ttv_ns b0 = a->b0, b1 = a->b1;
	struct regex *re = NULL;
	char *why = NULL;

	if (a->path != NULL) {
		selection_init(&a->sel);
		if (a->opt.open(a->opt.arg, a->path, j->t, progress_cb,
		    a->prog, &a->loaded, &a->sel, &a->err) != 0) {
			a->load_failed = true;
			if (a->err == NULL)
				a->err = xstrdup("unreadable");
			return;
		}
		base = a->loaded;
		bf = &a->sel.f;
		b0 = a->sel.t0;
		b1 = a->sel.t1;
	}
	atomic_store(&a->prog->loaded, true);
	/* Esc while the load ran: its result is dropped, no need to
	 * compare. */
	if (atomic_load(&j->cancel))
		return;
	/* A pattern of its own: a regex is used by one thread at a time. */
	if (a->opt.strip != NULL &&
	    (re = regex_compile(a->opt.strip, &why)) == NULL) {
		a->err = xasprintf("--match-strip: %s", why);
		free(why);
		return;
	}
	struct diff_side side[2] = {
		{ base, bf, b0, b1 }, { j->t, &j->filter, a->t0, a->t1 },
	};
	struct diff_options o = { .by = a->opt.by, .norm = a->opt.norm,
	    .strip = re, .min_abs = a->opt.min_abs, .min_rel = a->opt.min_rel };
	if (query_diff(side, &o, &a->table, &why) == 0) {
		o.by = DIFF_BY_PATH;
		if (query_diff(side, &o, &a->paths, &why) != 0)
			diff_free(&a->table);
	}
	if (why != NULL) {
		a->err = xasprintf("--match-strip %s", why);
		free(why);
	}
	regex_free(re);
}

static void
compare_install(struct job *j, struct view *v)
{
	struct diff_session *s = diff_session(v);
	struct compare_job *a = j->arg;

	if (s->prog == a->prog)
		s->prog = NULL;
	if (j->gen != s->gen)
		return;		/* stopped, or another base since */
	s->work = DIFF_IDLE;
	free(s->loading);
	s->loading = NULL;
	if (a->load_failed) {
		set_error(s, "%s: %s", a->path, a->err);
		view_message(v, true, "%s", s->error);
		return;
	}
	if (a->path != NULL) {
		session_take(s, v, a->path, a->loaded, &a->sel);
		a->loaded = NULL;
	}
	if (a->err != NULL) {
		set_error(s, "%s%s", a->err, "");
		view_message(v, true, "%s", s->error);
		return;
	}
	s->table = a->table;
	s->paths = a->paths;
	memset(&a->table, 0, sizeof a->table);
	memset(&a->paths, 0, sizeof a->paths);
	diff_sort(&s->table, s->sort, s->desc);
	s->ready = true;
	s->gen++;
	free(s->error);
	s->error = NULL;
	if (s->base->ndiags > 0)
		view_message(v, s->base->has_errors, "%s: %zu problem%s while "
		    "reading: %s", s->path, s->base->ndiags,
		    s->base->ndiags == 1 ? "" : "s", s->base->diags[0].text);
	else if (s->table.by == DIFF_BY_PATH)
		view_message(v, false, "compared with %s: %zu call paths",
		    s->path, s->paths.n);
	else
		view_message(v, false, "compared with %s: %zu functions, %zu "
		    "call paths", s->path, s->table.n, s->paths.n);
}

void
diff_submit(struct view *v, struct job *j)
{
	struct diff_session *s = diff_session(v);
	const char *e = ttv_getenv(TTV_ENV_ASYNC_SLICES);
	size_t limit = e != NULL ? (size_t)strtoull(e, NULL, 10) : 2000000;

	if (v->async || (s->base != NULL && trace_nslices(s->base) >= limit))
		jobs_submit(j);
	else {
		j->run(j);
		j->install(j, v);
		job_free(j);
	}
}

/* Submits the comparison (and the load first, for path: always on the
 * worker, as the base's size is not known). */
static void
submit(struct view *v, const char *path)
{
	struct diff_session *s = diff_session(v);
	struct compare_job *a = xcalloc(1, sizeof *a);
	struct job *j = job_new(s, v->trace, &s->nf, s->gen);

	a->opt = s->opt;
	a->t0 = s->t0;
	a->t1 = s->t1;
	a->prog = xcalloc(1, sizeof *a->prog);
	if (path != NULL) {
		a->path = xstrdup(path);
	} else {
		a->base = s->base;
		diff_filter_copy(&a->bf, &s->bf, s->base);
		a->b0 = s->b0;
		a->b1 = s->b1;
	}
	j->run = compare_run;
	j->install = compare_install;
	j->arg = a;
	j->arg_free = compare_job_free;
	s->prog = a->prog;
	s->work = path != NULL ? DIFF_LOADING : DIFF_COMPARING;
	if (path != NULL)
		jobs_submit(j);
	else
		diff_submit(v, j);
}

void
diff_pane_setup(struct view *v, struct viewer_diff *diff,
    const struct selection *sel)
{
	struct diff_session *s = diff_session(v);

	if (diff == NULL)
		return;
	s->can = true;
	s->opt = *diff;
	s->opt.base = NULL;
	s->opt.base_path = NULL;
	selection_init(&s->opt.base_sel);
	s->sort = diff->sort;
	s->desc = diff->sort == STATS_NAME ? diff->ascending : !diff->ascending;
	diff_filter_copy(&s->nf, &sel->f, v->trace);
	s->t0 = diff->t0;
	s->t1 = diff->t1;
	if (diff->base == NULL)
		return;
	session_take(s, v, diff->base_path, diff->base, &diff->base_sel);
	diff->base = NULL;
	selection_clear(&diff->base_sel);
	submit(v, NULL);
	view_show_pane(v, PANE_DIFF);
}

int
diff_pane_load(struct view *v, const char *path)
{
	struct diff_session *s = diff_session(v);

	if (!s->can) {
		view_message(v, true, "no second trace can be opened here");
		return PANE_REDRAW;
	}
	if (s->work != DIFF_IDLE || diff_busy(v)) {
		view_message(v, true, "a comparison is still being made%s",
		    s->work != DIFF_IDLE ? " (Esc stops it)" : ": stopped, "
		    "it ends in the background");
		return PANE_REDRAW;
	}
	session_drop(s);
	free(s->error);
	s->error = NULL;
	free(s->loading);
	s->loading = xstrdup(path);
	submit(v, path);
	view_show_pane(v, PANE_DIFF);
	view_message(v, false, "loading %s (Esc stops)", path);
	return PANE_REDRAW;
}

bool
diff_pane_stop(struct view *v)
{
	struct diff_session *s = diff_session(v);

	if (s->work == DIFF_IDLE)
		return false;
	/* The job's result is dropped when it comes (its gen is old); a
	 * load cannot be cut short and ends on the worker. */
	s->prog = NULL;
	jobs_cancel(s);
	s->gen++;
	view_message(v, false, "%s of %s stopped", s->work == DIFF_LOADING ?
	    "the load" : "the comparison", s->loading ? s->loading : s->path);
	s->work = DIFF_IDLE;
	free(s->loading);
	s->loading = NULL;
	return true;
}

bool
diff_pane_busy(struct view *v)
{
	return diff_session(v)->work != DIFF_IDLE || diff_busy(v);
}

int
diff_pane_hand_over(struct view *v, struct viewer_diff *to, char **path)
{
	struct diff_session *s = diff_session(v);

	*path = NULL;
	if (diff_pane_busy(v))
		return -1;
	if (s->base == NULL)
		return 0;
	/* the base, its filter and range move to `to`; what was made of
	 * them against this trace goes with the session */
	*path = s->path;
	s->path = NULL;
	to->base_path = *path;
	to->base = s->base;
	selection_init(&to->base_sel);
	to->base_sel.f = s->bf;
	to->base_sel.t0 = s->b0;
	to->base_sel.t1 = s->b1;
	filter_init(&s->bf);
	view_free(&s->bview);
	s->base = NULL;
	session_drop(s);
	return 1;
}

bool
diff_pane_idle(struct view *v)
{
	struct diff_session *s = diff_session(v);

	return s->base == NULL && s->work == DIFF_IDLE;
}

void
diff_title(struct grid *g, struct rect r, const char *title,
    const char *detail)
{
	int c = grid_puts(g, r.x, r.y, r.w, title, STYLE_TITLE, 0);

	if (detail != NULL && c + 2 < r.w)
		text_puts(g, r.x + c + 2, r.y, r.w - c - 2, detail, STYLE_DIM,
		    0);
}

bool
diff_draw_state(struct view *v, struct grid *g, struct rect r,
    const char *title)
{
	struct diff_session *s = diff_session(v);
	char buf[256];

	if (s->ready && s->work == DIFF_IDLE)
		return false;
	if (s->work == DIFF_LOADING && s->prog != NULL &&
	    !atomic_load(&s->prog->loaded)) {
		uint64_t done = atomic_load(&s->prog->done);
		uint64_t total = atomic_load(&s->prog->total);
		if (total == 0)
			snprintf(buf, sizeof buf, "loading %s: looking for "
			    "traces, %llu entries (Esc stops)", s->loading,
			    (unsigned long long)done);
		else
			snprintf(buf, sizeof buf, "loading %s: %3.0f%% of "
			    "%.0f MB (Esc stops)", s->loading, 100.0 *
			    (double)done / (double)total, (double)total / 1e6);
	} else if (s->work != DIFF_IDLE)
		snprintf(buf, sizeof buf, "comparing %s with %s... (Esc "
		    "stops)", diff_trace_name(v->trace, NULL),
		    s->loading ? s->loading : s->path);
	else if (s->error != NULL)
		snprintf(buf, sizeof buf, "%s", s->error);
	else if (s->base != NULL)
		snprintf(buf, sizeof buf, "the comparison with %s was stopped: "
		    ":diff %s makes it again", s->path, s->path);
	else
		snprintf(buf, sizeof buf, "no base trace: :diff BASE (or D) "
		    "compares this trace with another");
	pane_title(g, r, title, NULL);
	text_puts(g, r.x, r.y + 1, r.w, buf, s->error != NULL &&
	    s->work == DIFF_IDLE ? STYLE_ERROR : STYLE_DIM, 0);
	return true;
}

/* ------------------------------------------------------------ the graph */

static const struct diff_row *
node_row(const struct diff_pane *p, uint32_t n)
{
	return n < p->nn && p->row[n] != UINT32_MAX ?
	    &p->s.paths.rows[p->row[n]] : NULL;
}

static int64_t
row_size(const struct diff_pane *p, uint32_t n)
{
	const struct diff_row *r = node_row(p, n);

	return r == NULL ? 0 : r->s[p->base_widths ? DIFF_BASE : DIFF_NEW].total;
}

/* Siblings widest first, then by name. */
static int
cmp_children(const void *x, const void *y, void *arg)
{
	const struct diff_pane *p = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct diff_node *na = &p->s.paths.nodes[a];
	const struct diff_node *nb = &p->s.paths.nodes[b];

	if (na->parent != nb->parent)
		return na->parent < nb->parent ? -1 : 1;
	if (p->size[a] != p->size[b])
		return p->size[a] > p->size[b] ? -1 : 1;
	const struct diff_row *ra = node_row(p, a), *rb = node_row(p, b);
	uint32_t oa = ra ? ra->order : 0, ob = rb ? rb->order : 0;
	return oa < ob ? -1 : oa > ob ? 1 : (a > b) - (a < b);
}

/* The children lists for the widths shown. */
static void
link_children(struct diff_pane *p)
{
	size_t nn = p->nn;
	uint32_t *order = xmalloc(nn * sizeof *order);

	for (size_t i = 0; i < nn; i++) {
		p->first[i] = p->next[i] = FLAME_NONE;
		p->size[i] = row_size(p, (uint32_t)i);
	}
	/* The root's width: its children's. */
	p->size[0] = 0;
	for (size_t i = 1; i < nn; i++)
		if (p->s.paths.nodes[i].parent == 0)
			p->size[0] += p->size[i];
	for (size_t i = 0; i + 1 < nn; i++)
		order[i] = (uint32_t)(i + 1);
	if (nn > 1)
		xqsort_r(order, nn - 1, sizeof *order, cmp_children, p);
	for (size_t i = nn - 1; i-- > 0;) {
		uint32_t n = order[i], par = p->s.paths.nodes[n].parent;
		p->next[n] = p->first[par];
		p->first[par] = n;
	}
	free(order);
}

static int
cmp_only(const void *x, const void *y, void *arg)
{
	const struct diff_pane *p = arg;
	const struct diff_row *a = &p->s.paths.rows[*(const uint32_t *)x];
	const struct diff_row *b = &p->s.paths.rows[*(const uint32_t *)y];

	if (a->status != b->status)
		return a->status == DIFF_ONLY_BASE ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The graph of the session's paths, when they changed. */
static void
build(struct diff_pane *p)
{
	const struct diff *d = &p->s.paths;

	if (p->built && p->gen == p->s.gen)
		return;
	free(p->row);
	free(p->first);
	free(p->next);
	free(p->size);
	free(p->only_rows);
	p->row = p->first = p->next = p->only_rows = NULL;
	p->size = NULL;
	p->nn = p->nonly = 0;
	p->gen = p->s.gen;
	p->built = true;
	p->fv.root = p->fv.sel = 0;
	p->only_pos = (struct list_pos){ 0 };
	if (!p->s.ready || d->nnodes == 0)
		return;
	p->nn = d->nnodes;
	p->row = xmalloc(p->nn * sizeof *p->row);
	p->first = xmalloc(p->nn * sizeof *p->first);
	p->next = xmalloc(p->nn * sizeof *p->next);
	p->size = xmalloc(p->nn * sizeof *p->size);
	p->only_rows = xmalloc((d->n ? d->n : 1) * sizeof *p->only_rows);
	for (size_t i = 0; i < p->nn; i++)
		p->row[i] = UINT32_MAX;
	for (size_t i = 0; i < d->n; i++) {
		if (d->rows[i].key < p->nn)
			p->row[d->rows[i].key] = (uint32_t)i;
		if (d->rows[i].status == DIFF_ONLY_BASE ||
		    d->rows[i].status == DIFF_ONLY_NEW)
			p->only_rows[p->nonly++] = (uint32_t)i;
	}
	if (p->nonly > 1)
		xqsort_r(p->only_rows, p->nonly, sizeof *p->only_rows,
		    cmp_only, p);
	p->max_delta = diff_max_delta(d);
	link_children(p);
}

static uint32_t
src_first_child(const void *arg, uint32_t n)
{
	return ((const struct diff_pane *)arg)->first[n];
}

static uint32_t
src_next_sibling(const void *arg, uint32_t n)
{
	return ((const struct diff_pane *)arg)->next[n];
}

static uint32_t
src_parent(const void *arg, uint32_t n)
{
	const struct diff_pane *p = arg;

	return n == 0 ? FLAME_NONE : p->s.paths.nodes[n].parent;
}

static int64_t
src_size(const void *arg, uint32_t n)
{
	return ((const struct diff_pane *)arg)->size[n];
}

static const char *
src_name(const void *arg, uint32_t n, char *buf, size_t size)
{
	const struct diff_pane *p = arg;

	(void)buf;
	(void)size;
	return n == 0 ? "all" : diff_name(&p->s.paths, p->s.paths.nodes[n].name);
}

/* The change after the name: "+200.0%", "new", "gone". */
static void
src_after(const void *arg, uint32_t n, int64_t grand, char *buf, size_t size)
{
	const struct diff_row *r = node_row(arg, n);
	char b[32];

	(void)grand;
	if (r != NULL && r->status != DIFF_SAME)
		snprintf(buf, size, " %s", diff_change_text(r, b, sizeof b));
}

static int
src_style(const void *arg, uint32_t n)
{
	const struct diff_pane *p = arg;
	const struct diff_row *r = node_row(p, n);

	return r == NULL ? STYLE_HEADER : diff_style(r, p->max_delta);
}

static struct flame_src
paths_src(const struct diff_pane *p)
{
	return (struct flame_src){ p, src_first_child, src_next_sibling,
	    src_parent, src_size, src_name, src_after, src_style };
}

/* A path's frames joined by ';' (names escaped when drawn). */
static void
path_text(const struct diff *d, const struct diff_row *r, char *buf,
    size_t size)
{
	uint32_t *names;
	size_t n = diff_path(d, r, &names), len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ";" : "",
		    diff_name(d, names[i]));
		len = w < 0 ? len : len + (size_t)w >= size ? size - 1 :
		    len + (size_t)w;
	}
	free(names);
}

/* What a row holds in each trace: "10 -> 10 calls, total 200 us -> 600 us
 * (+400 us, +200.0%), grew". */
static void
row_text(const struct diff_row *r, char *buf, size_t size)
{
	char a[32], b[32], c[32], d[32];

	snprintf(buf, size, ": %llu -> %llu calls, total %s -> %s (%s, %s), "
	    "%s", (unsigned long long)r->s[DIFF_BASE].count,
	    (unsigned long long)r->s[DIFF_NEW].count,
	    timefmt_duration(r->s[DIFF_BASE].total, a, sizeof a),
	    timefmt_duration(r->s[DIFF_NEW].total, b, sizeof b),
	    diff_signed_duration(r->delta, c, sizeof c),
	    diff_change_text(r, d, sizeof d), diff_status_name(r->status));
}

static void
draw_only(struct diff_pane *p, struct grid *g, struct rect r)
{
	const struct diff *d = &p->s.paths;
	int rows = r.h;
	char buf[1024], b[32];

	list_clamp(&p->only_pos, p->nonly, rows);
	if (p->nonly == 0) {
		grid_puts(g, r.x, r.y, r.w, "every call path is in both traces",
		    STYLE_DIM, 0);
		return;
	}
	for (int row = 0; row < rows && p->only_pos.top + (size_t)row <
	    p->nonly; row++) {
		size_t i = p->only_pos.top + (size_t)row;
		const struct diff_row *dr = &d->rows[p->only_rows[i]];
		bool sel = i == p->only_pos.sel;
		int y = r.y + row, style = sel ? STYLE_SELECTED : STYLE_NORMAL;
		bool gone = dr->status == DIFF_ONLY_BASE;

		if (sel)
			grid_fill(g, (struct rect){ r.x, y, r.w, 1 }, ' ', style,
			    0);
		grid_puts(g, r.x, y, 5, gone ? "gone" : "new", sel ? style :
		    diff_style(dr, p->max_delta), 0);
		timefmt_duration(dr->s[gone ? DIFF_BASE : DIFF_NEW].total, b,
		    sizeof b);
		int len = text_width(g, b, strlen(b), 12);
		text_puts(g, r.x + 16 - len, y, len, b, style, 0);
		path_text(d, dr, buf, sizeof buf);
		text_puts_mid(g, r.x + 18, y, r.w - 18, buf, style, 0);
	}
}

static struct pane *
diff_create(struct view *v)
{
	struct diff_pane *p = xcalloc(1, sizeof *p);

	(void)v;
	filter_init(&p->s.nf);
	filter_init(&p->s.bf);
	p->s.t0 = TTV_NS_MIN;
	p->s.t1 = TTV_NS_MAX;
	p->s.sort = STATS_TOTAL;
	p->s.desc = true;
	return &p->base;
}

static void
diff_pane_free(struct pane *pane)
{
	struct diff_pane *p = (struct diff_pane *)pane;

	session_free(&p->s);
	free(p->row);
	free(p->first);
	free(p->next);
	free(p->size);
	free(p->only_rows);
	flamegraph_free(&p->fv);
	free(p);
}

static void
diff_draw(struct pane *pane, struct view *v, struct grid *g, struct rect r)
{
	struct diff_pane *p = (struct diff_pane *)pane;
	struct diff_session *s = &p->s;
	char buf[512], b1[32], b2[32];

	if (diff_draw_state(v, g, r, "Diff"))
		return;
	build(p);
	timefmt_duration(s->opt.min_abs, b1, sizeof b1);
	snprintf(b2, sizeof b2, "%g%%", s->opt.min_rel * 100.0);
	snprintf(buf, sizeof buf, "%s vs %s: %s%s, red grew, blue shrank "
	    "(beyond %s or %s); t %s widths, O %s",
	    diff_trace_name(v->trace, NULL), s->path, p->only ?
	    "paths in one trace only" : p->base_widths ? "widths of the base" :
	    "widths of the new trace",
	    s->opt.norm == DIFF_NORM_CALLS ? " (per call)" :
	    s->opt.norm == DIFF_NORM_TOTAL ? " (normalised)" : "",
	    b1, b2, p->base_widths ? "new" : "base",
	    p->only ? "the graph" : "one-trace paths");
	diff_title(g, r, "Diff", buf);
	if (p->only) {
		draw_only(p, g, (struct rect){ r.x, r.y + 1, r.w, r.h - 1 });
		return;
	}
	if (p->nn == 0 || p->size[0] <= 0) {
		grid_puts(g, r.x, r.y + 1, r.w, p->base_widths ? "no calls in "
		    "the base" : "no calls in the new trace (t: the base's)",
		    STYLE_DIM, 0);
		return;
	}
	struct flame_src src = paths_src(p);
	flamegraph_draw(&src, &p->fv, g, (struct rect){ r.x, r.y + 2, r.w,
	    r.h - 2 }, p->size[0]);
	/* The selected frame, on its own line under the title. */
	const struct diff_row *sr = node_row(p, p->fv.sel);
	struct diff_row all = { .status = DIFF_SAME };
	if (sr == NULL) {
		/* the root: both traces' time on the paths */
		for (uint32_t c = p->first[0]; c != FLAME_NONE; c = p->next[c]) {
			/* a path whose calls all never returned has no row */
			const struct diff_row *cr = node_row(p, c);
			for (int k = 0; cr != NULL && k < 2; k++) {
				all.s[k].count += cr->s[k].count;
				all.s[k].total += cr->s[k].total;
			}
		}
		all.delta = all.s[DIFF_NEW].total - all.s[DIFF_BASE].total;
		sr = &all;
	}
	char nb[8];
	int c = text_puts_mid(g, r.x, r.y + 1, r.w / 2, src_name(p, p->fv.sel,
	    nb, sizeof nb), STYLE_SELECTED, 0);
	row_text(sr, buf, sizeof buf);
	if (sr == &all)	/* no status of its own */
		*strrchr(buf, ',') = '\0';
	grid_puts(g, r.x + c, r.y + 1, r.w - c, buf, STYLE_DIM, 0);
}

/* Shows node n in the graph: zoomed out, with the widths it has. */
static void
show_node(struct diff_pane *p, uint32_t n)
{
	const struct diff_row *r = node_row(p, n);

	if (r != NULL && (r->status == DIFF_ONLY_BASE) != p->base_widths) {
		p->base_widths = r->status == DIFF_ONLY_BASE;
		link_children(p);
	}
	p->fv.root = 0;
	p->fv.sel = n;
	p->only = false;
}

static int
diff_command(struct pane *pane, struct view *v, enum cmd c)
{
	struct diff_pane *p = (struct diff_pane *)pane;

	if (!p->s.ready || p->s.work != DIFF_IDLE)
		return c >= CMD_FLAME_LEFT && c <= CMD_FLAME_THREADS ?
		    PANE_HANDLED : PANE_UNHANDLED;
	build(p);
	if (p->nn == 0)
		return PANE_UNHANDLED;
	switch (c) {
	case CMD_DIFF_WIDTHS:
		p->base_widths = !p->base_widths;
		link_children(p);
		view_message(v, false, "widths of %s", p->base_widths ?
		    "the base: what vanished shows" : "the new trace");
		return PANE_REDRAW;
	case CMD_DIFF_ONLY:
		p->only = !p->only;
		return PANE_REDRAW;
	default:
		break;
	}
	if (p->only) {
		/* The list: j and k move, Enter shows the path. */
		switch (c) {
		case CMD_FLAME_UP:
			return list_command(&p->only_pos, p->nonly,
			    CMD_LIST_UP);
		case CMD_FLAME_DOWN:
			return list_command(&p->only_pos, p->nonly,
			    CMD_LIST_DOWN);
		case CMD_FLAME_ZOOM:
			if (p->only_pos.sel < p->nonly)
				show_node(p, p->s.paths.rows[
				    p->only_rows[p->only_pos.sel]].key);
			return PANE_REDRAW;
		default:
			return c >= CMD_FLAME_LEFT && c <= CMD_FLAME_THREADS ?
			    PANE_HANDLED : PANE_UNHANDLED;
		}
	}
	struct flame_src src = paths_src(p);
	return flamegraph_command(&src, &p->fv, c);
}

static int
diff_mouse(struct pane *pane, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct diff_pane *p = (struct diff_pane *)pane;
	uint32_t n;

	(void)v;
	(void)r;
	if (b != MOUSE_CLICK || !p->s.ready || p->only || p->nn == 0)
		return PANE_HANDLED;
	n = flamegraph_hit(&p->fv, x, y);
	if (n == FLAME_NONE || n >= p->nn)
		return PANE_HANDLED;
	if (n == p->fv.sel)
		p->fv.root = n;
	p->fv.sel = n;
	return PANE_REDRAW;
}

const char *
diff_flame_selected(struct view *v)
{
	struct diff_pane *p = pane_of(v);
	char nb[8];

	if (!p->s.ready || p->s.work != DIFF_IDLE)
		return NULL;
	build(p);
	if (p->nn == 0 || p->fv.sel == 0 || p->fv.sel >= p->nn)
		return NULL;
	return src_name(p, p->fv.sel, nb, sizeof nb);
}

/* v and #: the selected frame's function in the new trace. */
static func_id
diff_selected(struct pane *pane, struct view *v)
{
	struct diff_pane *p = (struct diff_pane *)pane;
	char nb[8];

	if (!p->s.ready || p->nn == 0 || p->fv.sel == 0 || p->fv.sel >= p->nn)
		return CALL_NONE;
	return diff_func_named(v->trace, src_name(p, p->fv.sel, nb,
	    sizeof nb));
}

static bool
diff_available(struct pane *pane, struct view *v)
{
	struct diff_pane *p = (struct diff_pane *)pane;

	(void)v;
	return p->s.base != NULL || p->s.work != DIFF_IDLE;
}

const struct pane_class pane_diff = {
	.title = "Diff",
	.ctx = CTX_DIFF,
	.hint = "? keys  h/j/k/l move  Enter zoom  t base widths  O only in "
	    "one  % table",
	.create = diff_create,
	.free = diff_pane_free,
	.draw = diff_draw,
	.command = diff_command,
	.mouse = diff_mouse,
	.selected_func = diff_selected,
	.available = diff_available,
};
