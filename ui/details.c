/*
 * The details pane, drawn beside the timeline (not a pane of the table:
 * it has no keys of its own): everything about the selected slice —
 * name, thread, start, duration, self time, depth, args, flags — and its
 * call path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "argtext.h"
#include "glyph.h"
#include "panes.h"
#include "source.h"
#include "text.h"
#include "timefmt.h"

struct dctx {
	struct grid *g;
	struct rect r;
	int y;
};

static bool
room(struct dctx *d)
{
	return d->y < d->r.y + d->r.h;
}

/* "key: value" with value from the trace (escaped). */
static void
field(struct dctx *d, const char *key, const char *value, int style)
{
	int c;

	if (!room(d))
		return;
	c = grid_printf(d->g, d->r.x, d->y, d->r.w, STYLE_DIM, 0, "%-9s",
	    key);
	text_puts_mid(d->g, d->r.x + c, d->y, d->r.w - c, value, style, 0);
	d->y++;
}

/* As SQL's args.display_value has it (argtext.h). */
static void
arg_value(const struct trace *t, const struct arg *a, char *buf, size_t n)
{
	const char *s = arg_text(t, a, buf, n);
	if (s != buf)
		snprintf(buf, n, "%s", s);
}

static void
flags_text(uint32_t f, char *buf, size_t n)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ SLICE_UNTERMINATED, "unterminated" },
		{ SLICE_TAIL_EXIT, "tail exit" },
		{ SLICE_NO_ENTRY, "no entry" },
		{ SLICE_UNWOUND, "unwound" },
		{ SLICE_SAMPLED, "sampled" },
		{ SLICE_ASYNC, "async" },
		{ SLICE_INSTANT, "instant" },
		{ SLICE_TRUNCATED, "truncated" },
	};
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((f & names[i].bit) && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
			    len ? ", " : "", names[i].name);
	if (buf[0] == '\0')
		snprintf(buf, n, "-");
}

static bool
valid_ref(const struct trace *t, struct slice_ref r)
{
	return r.track < t->ntracks && r.depth < t->tracks[r.track].ndepth &&
	    r.index < t->tracks[r.track].depth[r.depth].len;
}

/* The selected slice's flows: incoming ones (< to walk back) then
 * outgoing ones (> to follow), each with the slice at its other end. */
static void
flows_draw(struct view *v, struct dctx *d)
{
	const struct trace *t = v->trace;
	char buf[256], tb[48], lb[64];

	for (int out = 0; out < 2; out++) {
		size_t n;
		const struct flow_key *k = view_flows_at(v, out, v->cursor,
		    &n);
		for (size_t i = 0; i < n && room(d); i++) {
			const struct flow *fl = &t->flows[k[i].flow];
			struct slice_ref there = out ? fl->to : fl->from;
			if (!valid_ref(t, there))
				continue;
			snprintf(buf, sizeof buf, "%s %llu %s (%s) at %s",
			    out ? "->" : "<-", (unsigned long long)fl->id,
			    trace_func_name(t, trace_slice(t, there)->func),
			    track_label(t, &t->tracks[there.track], lb,
			    sizeof lb), view_time_exact(v, trace_slice(t,
			    there)->start, tb, sizeof tb));
			field(d, out ? "flow out" : "flow in", buf,
			    STYLE_NORMAL);
		}
	}
}

static void
args_draw(const struct trace *t, struct dctx *d, const struct arg *args,
    size_t nargs)
{
	char buf[256];

	for (size_t i = 0; i < nargs && room(d); i++) {
		int c;
		arg_value(t, &args[i], buf, sizeof buf);
		c = grid_puts(d->g, d->r.x, d->y, d->r.w, i == 0 ?
		    "args     " : "         ", STYLE_DIM, 0);
		c += text_puts(d->g, d->r.x + c, d->y, d->r.w - c,
		    trace_str(t, args[i].name), STYLE_NORMAL, 0);
		c += grid_puts(d->g, d->r.x + c, d->y, d->r.w - c, " = ",
		    STYLE_DIM, 0);
		text_puts(d->g, d->r.x + c, d->y, d->r.w - c, buf,
		    STYLE_NORMAL, 0);
		d->y++;
	}
}

/* No slice selected: an instant at the cursor's time on its track (a
 * search hit on an instant goes there), with its args. */
/* "tid 19154", or "render (tid 19154)" for a named thread. */
static void
thread_text(const struct trace *t, const struct track *tr, char *buf,
    size_t size)
{
	char lb[128];
	const char *label = track_label(t, tr, lb, sizeof lb);

	if (tr->name == 0)
		snprintf(buf, size, "%s", label);
	else
		snprintf(buf, size, "%s (tid %lld)", label,
		    (long long)tr->tid);
}

/* A start time as the trace's own clock has it (ns and, where the
 * source counted ticks, ticks) and as wall-clock time to the ns. */
static void
clock_fields(const struct view *v, struct dctx *d, ttv_ns when)
{
	const struct trace *t = v->trace;
	char buf[128];
	ttv_ns wall;
	int n;

	n = snprintf(buf, sizeof buf, "%lld ns", (long long)when);
	if (t->ticks_per_second > 0 && t->ticks_per_second != 1e9)
		snprintf(buf + n, sizeof buf - (size_t)n, " = %.0f ticks",
		    (double)when * t->ticks_per_second / 1e9);
	field(d, "clock", buf, STYLE_DIM);
	if (t->wall_origin != TTV_NS_MIN &&
	    !__builtin_add_overflow(t->wall_origin, when, &wall)) {
		time_t sec = (time_t)(wall >= 0 ? wall / 1000000000 :
		    (wall - 999999999) / 1000000000);
		long long frac = (long long)(wall - (ttv_ns)sec * 1000000000);
		struct tm tm;
		char day[64];
		if (gmtime_r(&sec, &tm) != NULL &&
		    strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm) > 0) {
			snprintf(buf, sizeof buf, "%s.%09lld UTC", day, frac);
			field(d, "wall", buf, STYLE_DIM);
		}
	}
}

/* Where the function was written, for functions whose binary the trace
 * names (XRay, CTF cyg-profile): FILE:LINE (O opens it), or why not. */
static void
source_field(struct view *v, struct dctx *d, func_id f)
{
	const char *file, *why;
	char buf[512];
	int line;

	if (trace_func_addr(v->trace, f) == NULL)
		return;
	if (source_of(v->source, f, &file, &line, &why) != 0) {
		field(d, "source", why, STYLE_DIM);
		return;
	}
	snprintf(buf, sizeof buf, "%s:%d", file, line);
	field(d, "source", buf, STYLE_NORMAL);
}

/* The name, and after it where it was written when that is known
 * ("quadtree  demo.c:161"): a short pane keeps it in view. */
static void
name_field(struct view *v, struct dctx *d, func_id f, int style)
{
	const char *file, *why;
	char buf[64];
	int line;

	if (!room(d))
		return;
	int c = grid_printf(d->g, d->r.x, d->y, d->r.w, STYLE_DIM, 0, "%-9s",
	    "name");
	c += text_puts_mid(d->g, d->r.x + c, d->y, d->r.w - c,
	    trace_func_name(v->trace, f), style, 0);
	if (trace_func_addr(v->trace, f) != NULL &&
	    source_of(v->source, f, &file, &line, &why) == 0) {
		const char *base = strrchr(file, '/');
		snprintf(buf, sizeof buf, "  %s:%d", base ? base + 1 : file,
		    line);
		if (c + 8 < d->r.w)
			text_puts(d->g, d->r.x + c, d->y, d->r.w - c, buf,
			    STYLE_DIM, 0);
	}
	d->y++;
}

static bool
instant_draw(struct view *v, struct dctx *d)
{
	const struct trace *t = v->trace;
	const struct track *tr;
	const struct instant *in;
	const struct arg *args;
	size_t lo = 0, hi, nargs;
	char buf[128], b2[64];

	if (v->cursor_track >= t->ntracks)
		return false;
	tr = &t->tracks[v->cursor_track];
	hi = tr->ninstants;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tr->instants[mid].t < v->cursor_t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= tr->ninstants || tr->instants[lo].t != v->cursor_t)
		return false;
	in = &tr->instants[lo];
	field(d, "instant", trace_func_name(t, in->func),
	    view_func_matches(v, in->func) ? STYLE_MATCH : STYLE_TITLE);
	thread_text(t, tr, buf, sizeof buf);
	field(d, "thread", buf, STYLE_NORMAL);
	field(d, "time", view_time_exact(v, in->t, b2, sizeof b2),
	    STYLE_NORMAL);
	clock_fields(v, d, in->t);
	args = trace_args(t, in->args, &nargs);
	args_draw(t, d, args, nargs);
	if (in->func < t->nfuncs && t->funcs[in->func].category != 0)
		field(d, "category", trace_str(t, t->funcs[in->func].category),
		    STYLE_NORMAL);
	return true;
}

void
details_draw(struct view *v, struct grid *g, struct rect r)
{
	const struct trace *t = v->trace;
	struct dctx d;
	char buf[256], b2[64];
	const struct slice *s;
	const struct track *tr;
	struct slice_ref *path = NULL;
	size_t npath, nargs;
	const struct arg *args;

	/* A rule separates the pane from the one it sits beside/under. */
	if (r.y > 1 && r.x == 0) {
		for (int c = 0; c < r.w; c++)
			grid_set(g, r.x + c, r.y, GLYPH_HLINE(g->utf8),
			    STYLE_BORDER, 0);
		grid_puts(g, r.x + 2, r.y, r.w - 2, " Details ", STYLE_TITLE, 0);
		r.y++;
		r.h--;
	} else {
		for (int y = 0; y < r.h; y++)
			grid_set(g, r.x, r.y + y, GLYPH_VLINE(g->utf8),
			    STYLE_BORDER, 0);
		r.x += 2;
		r.w -= 2;
		grid_puts(g, r.x, r.y, r.w, "Details", STYLE_TITLE, 0);
		r.y++;
		r.h--;
	}
	d.g = g;
	d.r = r;
	d.y = r.y;
	if (!v->has_cursor) {
		if (instant_draw(v, &d))
			return;
		snprintf(buf, sizeof buf, "no slice selected at %s",
		    view_time_exact(v, v->cursor_t, b2, sizeof b2));
		field(&d, "", buf, STYLE_DIM);
		return;
	}
	s = trace_slice(t, v->cursor);
	tr = &t->tracks[v->cursor.track];
	name_field(v, &d, s->func, view_slice_matches(v, v->cursor) ?
	    STYLE_MATCH : STYLE_TITLE);
	npath = query_call_path(t, v->cursor, &path);
	if (npath > 1 && room(&d)) {
		int c = grid_puts(g, r.x, d.y, r.w, "path     ", STYLE_DIM, 0);
		/* One line, outermost first, as much as fits; on a tall pane
		 * the rest follows one frame per line. */
		for (size_t i = 0; i < npath && c < r.w; i++) {
			const struct slice *p = trace_slice(t, path[i]);
			if (i > 0)
				c += grid_puts(g, r.x + c, d.y, r.w - c, " > ",
				    STYLE_DIM, 0);
			c += text_puts(g, r.x + c, d.y, r.w - c,
			    trace_func_name(t, p->func),
			    i + 1 == npath ? STYLE_TITLE : STYLE_NORMAL, 0);
		}
		d.y++;
	}
	free(path);
	thread_text(t, tr, buf, sizeof buf);
	field(&d, "thread", buf, STYLE_NORMAL);
	ttv_ns end = trace_slice_end(t, v->cursor);
	/* Start and end on one line where they fit: a short pane keeps
	 * room for the args. */
	char b3[64];
	view_time_exact(v, s->start, b2, sizeof b2);
	view_time_exact(v, end, b3, sizeof b3);
	if (9 + text_width(g, b2, strlen(b2), r.w) + 7 +
	    text_width(g, b3, strlen(b3), r.w) <= r.w) {
		snprintf(buf, sizeof buf, "%s   end %s", b2, b3);
		field(&d, "start", buf, STYLE_NORMAL);
	} else {
		field(&d, "start", b2, STYLE_NORMAL);
		field(&d, "end", b3, STYLE_NORMAL);
	}
	field(&d, "duration", timefmt_duration_exact(end - s->start, b2,
	    sizeof b2), STYLE_NORMAL);
	field(&d, "self", timefmt_duration_exact(query_self_time(t, v->cursor),
	    b2, sizeof b2), STYLE_NORMAL);
	/* Args before the rest: on a short pane they matter more. */
	args = trace_slice_args(t, v->cursor, &nargs);
	args_draw(t, &d, args, nargs);
	flows_draw(v, &d);
	clock_fields(v, &d, s->start);
	snprintf(buf, sizeof buf, "%u", v->cursor.depth);
	field(&d, "depth", buf, STYLE_NORMAL);
	/* Sampled and async are known from where the slice lives. */
	uint32_t flags = s->flags;
	if (trace_level(t, v->cursor)->weights != NULL)
		flags |= SLICE_SAMPLED;
	if (tr->kind == TRACK_ASYNC)
		flags |= SLICE_ASYNC;
	flags_text(flags, buf, sizeof buf);
	field(&d, "flags", buf, s->flags & (SLICE_UNTERMINATED |
	    SLICE_NO_ENTRY | SLICE_TRUNCATED) ? STYLE_ERROR : STYLE_NORMAL);
	if (t->funcs[s->func].category != 0)
		field(&d, "category", trace_str(t, t->funcs[s->func].category),
		    STYLE_NORMAL);
	source_field(v, &d, s->func);
	if (trace_slice_weight(t, v->cursor) != 1) {
		snprintf(buf, sizeof buf, "%u samples",
		    trace_slice_weight(t, v->cursor));
		field(&d, "weight", buf, STYLE_NORMAL);
	}
}
