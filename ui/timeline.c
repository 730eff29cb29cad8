/*
 * The timeline pane: a time ruler with markers, then one lane group per
 * track (a header row with the thread's name, then one row per stack
 * depth). Slices wide enough to see are blocks labelled with their name;
 * columns holding several slices too small to draw are shaded by how busy
 * they are, so nothing is silently dropped.
 *
 * Drawing a row costs O(columns * log slices): runs of tiny slices are
 * skipped with a binary search, never walked, so a 1 GB trace draws as
 * fast as a small one. With an index, dense columns come from its
 * summaries and their calls are not read at all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callpanes.h"
#include "glyph.h"
#include "panes.h"
#include "summary.h"
#include "text.h"
#include "timefmt.h"
#include "tmap.h"
#include "xalloc.h"

/* How many slices of a dense column are looked at to estimate how busy it
 * is: enough for a stable shade, few enough to stay O(1) per column. */
#define DENSITY_SAMPLE 16

/* The pane's own state: the lanes in the order they are shown (each
 * process's threads, then its async tracks and counters; CPU lanes last),
 * a track's place in it, and the first row shown. */
struct timeline_pane {
	struct pane base;
	uint32_t *order;	/* ntracks */
	uint32_t *pos;		/* ntracks: index of a track in order */
	int top;
};

static struct timeline_pane *
lanes(const struct view *v)
{
	return (struct timeline_pane *)v->panes[PANE_TIMELINE];
}

static struct pane *
timeline_create(struct view *v)
{
	const struct trace *t = v->trace;
	uint32_t n = t->ntracks;
	struct timeline_pane *tp = xcalloc(1, sizeof *tp);

	tp->order = xcalloc(n ? n : 1, sizeof *tp->order);
	tp->pos = xcalloc(n ? n : 1, sizeof *tp->pos);
	trace_lane_order(t, tp->order, tp->pos);
	return &tp->base;
}

static void
timeline_free(struct pane *p)
{
	struct timeline_pane *tp = (struct timeline_pane *)p;

	free(tp->order);
	free(tp->pos);
	free(tp);
}

/* Other threads picked: the lanes are shown from the first again. */
static void
timeline_stale(struct pane *p, struct view *v, unsigned changed)
{
	(void)v;
	if (changed & VIEW_CHANGED_THREADS)
		((struct timeline_pane *)p)->top = 0;
}

size_t
timeline_rows(const struct view *v, struct lane_row **rows)
{
	const struct trace *t = v->trace;
	size_t n = 0, cap = 0;
	struct lane_row *r = NULL;

	for (uint32_t k = 0; k < t->ntracks; k++) {
		uint32_t i = lanes(v)->order[k];
		const struct track *tr = &t->tracks[i];
		uint32_t nd = tr->kind == TRACK_COUNTER ? 1 : tr->ndepth;

		if (!view_track_shown(v, i))
			continue;
		if (nd == 0 && tr->ninstants == 0)
			continue;
		if (n + nd + 1 > cap) {
			cap = (n + nd + 1) * 2;
			r = xreallocarray(r, cap, sizeof *r);
		}
		r[n++] = (struct lane_row){ i, -1 };
		if (v->folded[i])
			continue;
		for (uint32_t d = 0; d < nd; d++)
			r[n++] = (struct lane_row){ i, (int32_t)d };
	}
	*rows = r;
	return n;
}

static int
slice_style(const struct view *v, const struct slice *s, struct slice_ref r,
    bool *hidden)
{
	*hidden = !view_slice_shown(v, s);
	if (v->has_cursor && v->cursor.track == r.track &&
	    v->cursor.depth == r.depth && v->cursor.index == r.index)
		return STYLE_SELECTED;
	if (view_slice_matches(v, r))
		return STYLE_MATCH;
	if (*hidden)
		return STYLE_DIM;
	return STYLE_SLICE0 + view_func_hue(s->func);
}

/* First index in [lo, hi) whose slice starts at or after t. */
static size_t
first_start_at(const struct slice *sl, size_t lo, size_t hi, ttv_ns t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sl[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
draw_block(struct view *v, struct grid *g, int x, int y, int w,
    const struct slice *s, struct slice_ref ref, double p0, double p1,
    int from, bool joined)
{
	bool hidden, utf8 = g->utf8;
	int style = slice_style(v, s, ref, &hidden);
	int c0, c1, label_at, avail, used;
	const char *name;

	if (utf8) {
		c0 = (int)floor(p0);
		c1 = (int)ceil(p1);	/* exclusive */
	} else {
		c0 = (int)lround(p0);
		c1 = (int)lround(p1);
		if (c1 <= c0)
			c1 = c0 + 1;
	}
	if (c0 < from)
		c0 = from;
	if (c1 > w)
		c1 = w;
	if (c0 >= c1)
		return;
	for (int c = c0; c < c1; c++)
		grid_set(g, x + c, y, hidden ? GLYPH_HIDDEN(utf8) : ' ', style,
		    0);
	label_at = c0;
	if (utf8 && !hidden && c1 - c0 >= 2) {
		/* Sub-cell edges: a slice ending early in its last cell
		 * fills only the eighths it covers; one starting late in its
		 * first cell shows a right half block. */
		double end_frac = p1 - floor(p1);
		int edge = style == STYLE_SELECTED || style == STYLE_MATCH ?
		    style : STYLE_EDGE0 + view_func_hue(s->func);
		if (c1 == (int)ceil(p1) && end_frac > 0 && end_frac < 0.875)
			grid_set(g, x + c1 - 1, y, glyph_left_eighths(
			    (int)lround(end_frac * 8)), edge, 0), c1--;
		if (c0 == (int)floor(p0) && p0 - floor(p0) >= 0.5 && c1 - c0 >= 2)
			grid_set(g, x + c0, y, GLYPH_RIGHT_HALF, edge, 0),
			    label_at++;
	}
	if (hidden)
		return;
	if (joined && label_at == c0 && c1 - c0 >= 2) {
		/* Touches the block before it: draw a thin edge so two
		 * calls of one function do not look like one. */
		grid_set(g, x + c0, y, GLYPH_EDGE(utf8), style, 0);
		label_at++;
	}
	avail = c1 - label_at;
	if (avail <= 0)
		return;
	name = trace_func_name(v->trace, s->func);
	if (avail >= 8)
		text_puts_mid(g, x + label_at, y, avail, name, style, 0);
	else if (avail >= 3 && text_width(g, name, strlen(name), avail + 1) >
	    avail) {
		/* Cut: end with an ellipsis so a cut name is not taken
		 * for a whole one. */
		used = text_puts(g, x + label_at, y, avail - 1, name, style, 0);
		grid_set(g, x + label_at + used, y, GLYPH_ELLIPSIS(utf8), style,
		    0);
	} else
		text_puts(g, x + label_at, y, avail, name, style, 0);
}

/* Where a row's drawing is: the first column no slice has drawn yet, and
 * where the last block ended (-1: none). */
struct row_pen {
	int next_free;
	int last_block_end;
};

/* Draws the slices [i, hi) of a row, up to the first that starts at or
 * after column `stop`. */
static void
draw_slices(struct view *v, struct grid *g, int x, int y, int w,
    uint32_t track, uint32_t depth, size_t i, size_t hi, int stop,
    struct row_pen *pen)
{
	const struct trace *t = v->trace;
	const struct depth_level *l = &t->tracks[track].depth[depth];
	struct tmap m = { v->t0, v->t1, w };
	size_t j;

	while (i < hi) {
		const struct slice *s = &l->slices[i];
		struct slice_ref ref = { track, depth, (uint32_t)i };
		double p0 = tmap_pos(&m, s->start);
		double p1 = tmap_pos(&m, level_end(l, i));
		int c = p0 < 0 ? 0 : (int)floor(p0);
		ttv_ns col_end;

		if (c >= w || c >= stop)
			break;
		if (p1 - p0 >= 1.0 || p1 >= w) {
			draw_block(v, g, x, y, w, s, ref, p0, p1, pen->next_free,
			    pen->last_block_end >= 0 && pen->last_block_end ==
			    (int)floor(p0 < 0 ? 0 : p0));
			pen->next_free = (int)ceil(p1);
			pen->last_block_end = pen->next_free;
			i++;
			continue;
		}
		/* A slice narrower than a column: see how many start in
		 * this column. */
		col_end = tmap_time(&m, c + 1);
		j = first_start_at(l->slices, i, hi, col_end);
		if (j <= i)
			j = i + 1;
		if (j - i > 1) {
			const struct slice *last = &l->slices[j - 1];
			if (tmap_pos(&m, level_end(l, j - 1)) -
			    tmap_pos(&m, last->start) >= 1.0)
				j--;	/* a wide one starting here: a block */
		}
		if (c >= pen->next_free) {
			bool hidden;
			int style;
			if (j - i == 1) {
				/* One narrow slice: a partial block as wide
				 * as its duration, in eighths. */
				style = slice_style(v, s, ref, &hidden);
				if (style >= STYLE_SLICE0)
					style = STYLE_EDGE0 +
					    view_func_hue(s->func);
				grid_set(g, x + c, y, hidden ?
				    GLYPH_HIDDEN(g->utf8) : g->utf8 ?
				    glyph_left_eighths((int)ceil((p1 - p0) *
				    8)) : '|', style, 0);
			} else {
				ttv_ns col_start = tmap_time(&m, c), busy = 0;
				size_t n = j - i, k, step;
				double frac;
				int level;
				style = STYLE_DENSITY;
				step = n > DENSITY_SAMPLE ? n / DENSITY_SAMPLE : 1;
				for (k = i; k < j; k += step) {
					const struct slice *q = &l->slices[k];
					ttv_ns a = q->start < col_start ?
					    col_start : q->start;
					ttv_ns qe = level_end(l, k);
					ttv_ns b = qe > col_end ? col_end : qe;
					if (b > a)
						busy += b - a;
					if (view_func_matches(v, q->func))
						style = STYLE_MATCH;
				}
				frac = (double)busy * (double)step /
				    (double)(col_end - col_start > 0 ?
				    col_end - col_start : 1);
				level = frac < 0.34 ? 0 : frac < 0.67 ? 1 : 2;
				if (v->has_cursor && v->cursor.track == track &&
				    v->cursor.depth == depth &&
				    v->cursor.index >= i && v->cursor.index < j)
					style = STYLE_SELECTED;
				grid_set(g, x + c, y,
				    glyph_shade(g->utf8, level), style, 0);
			}
			pen->next_free = c + 1;
		}
		pen->last_block_end = -1;
		i = j;
	}
}

static bool
func_matches(const void *arg, func_id f)
{
	return view_func_matches(arg, f);
}

/* Calls a column must hold, by the summary's count, to be shaded from
 * it: a column of fewer is drawn call by call, as a narrow call alone in
 * its column is drawn to its width. */
#define SUMMARY_COLUMN_CALLS 8.0

/* Whether a row has, in the window, at least a summarised block of calls
 * for every SUM_BLOCK / SUMMARY_COLUMN_CALLS columns. */
static bool
summary_dense(const struct view *v, uint32_t track, uint32_t depth, int w)
{
	const struct sum_level *sl = summary_level(v->trace, track, depth);
	uint64_t nb, lo = 0, hi, first;
	if (sl == NULL)
		return false;
	const struct sum_node *b = summary_nodes(v->trace, sl, 0, &nb);
	for (hi = nb; lo < hi;) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (b[mid].first_start < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (hi = nb; lo < hi;) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (b[mid].first_start < v->t1)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (double)(lo - first) * SUM_BLOCK >=
	    (double)w * SUMMARY_COLUMN_CALLS;
}

/* A row of many calls per column, drawn from the index's summaries
 * (summary.h) where a column holds many narrow calls, call by call where
 * it does not: at a coarse zoom of a large trace the calls are never
 * read, so the first screen of an index costs what is on it. false when
 * there is no summary or the row is not dense. */
static bool
draw_depth_summary(struct view *v, struct grid *g, int x, int y, int w,
    uint32_t track, uint32_t depth)
{
	const struct trace *t = v->trace;
	const struct sum_level *sl = summary_level(t, track, depth);
	struct tmap m = { v->t0, v->t1, w };
	struct row_pen pen = { 0, -1 };

	if (sl == NULL || w <= 0)
		return false;
	if (!summary_dense(v, track, depth, w))
		return false;
	for (int c = 0; c < w; c++) {
		ttv_ns ct0 = tmap_time(&m, c), ct1 = tmap_time(&m, c + 1);
		struct sum_column sc;
		if (c < pen.next_free)
			continue;
		if (summary_column(t, track, depth, ct0, ct1, v->match ?
		    func_matches : NULL, v, &sc) && sc.widest < ct1 - ct0 &&
		    sc.calls >= SUMMARY_COLUMN_CALLS) {
			double frac = (double)sc.busy / (double)(ct1 - ct0);
			int level = frac < 0.34 ? 0 : frac < 0.67 ? 1 : 2;
			int style = sc.matched ? STYLE_MATCH : STYLE_DENSITY;
			if (v->has_cursor && v->cursor.track == track &&
			    v->cursor.depth == depth) {
				ttv_ns cs = trace_slice(t, v->cursor)->start;
				if (cs >= ct0 && cs < ct1)
					style = STYLE_SELECTED;
			}
			grid_set(g, x + c, y, glyph_shade(g->utf8, level),
			    style, 0);
			pen.next_free = c + 1;
			pen.last_block_end = -1;
			continue;
		}
		/* Sparse here, or a call as wide as the column: the calls
		 * of this column one by one (a wide one draws on). */
		size_t lo, hi;
		summary_window(t, track, depth, ct0, ct1, &lo, &hi);
		draw_slices(v, g, x, y, w, track, depth, lo, hi, c + 1, &pen);
	}
	return true;
}

void
timeline_draw_depth(struct view *v, struct grid *g, int x, int y, int w,
    uint32_t track, uint32_t depth)
{
	const struct trace *t = v->trace;
	const struct track *tr = &t->tracks[track];
	struct row_pen pen = { 0, -1 };
	size_t lo, hi;

	if (depth >= tr->ndepth)
		return;
	if (draw_depth_summary(v, g, x, y, w, track, depth))
		return;
	summary_window(t, track, depth, v->t0, v->t1, &lo, &hi);
	draw_slices(v, g, x, y, w, track, depth, lo, hi, w, &pen);
}

static uint32_t
marker_glyph(enum marker_kind k)
{
	static const char g[MARKER_KIND_COUNT] = {
		[MARKER_BUFFER_START] = 'B', [MARKER_BUFFER_END] = 'b',
		[MARKER_TSC_WRAP] = 'W', [MARKER_CPU_CHANGE] = 'C',
		[MARKER_CUSTOM_EVENT] = 'E', [MARKER_TYPED_EVENT] = 'T',
		[MARKER_DROPPED] = 'D', [MARKER_PAUSE] = 'P',
		[MARKER_RESUME] = 'R', [MARKER_PACKET] = 'K',
	};
	return k < MARKER_KIND_COUNT ? (uint32_t)g[k] : '?';
}

/* A tick label with as many decimals as the tick step needs, so that
 * neighbouring ticks never read the same ("+249.4 µs", "+249.6 µs"). */
static void
ruler_label(ttv_ns off, ttv_ns step, bool utf8, char *buf, size_t size)
{
	static const ttv_ns unit_ns[] = { 1000000000, 1000000, 1000, 1 };
	static const char *const names[] = { "s", "ms", "us", "ns" };
	ttv_ns mag = off < 0 ? -off : off;
	size_t u = 0;
	int dec = 0;

	while (u < 3 && mag < unit_ns[u])
		u++;
	for (ttv_ns q = unit_ns[u]; q > step && dec < 9; q /= 10)
		dec++;
	snprintf(buf, size, "%s%.*f %s", off < 0 ? "-" : "+", dec,
	    (double)mag / (double)unit_ns[u],
	    u == 2 && utf8 ? "\u00b5s" : names[u]);
}

/* A tick as UTC time of day, with the decimals the step needs. */
static void
wall_label(ttv_ns ns, ttv_ns step, char *buf, size_t size)
{
	const ttv_ns day = 86400LL * 1000000000LL;
	ttv_ns in = ((ns % day) + day) % day;
	long long sec = (long long)(in / 1000000000);
	long long frac = (long long)(in % 1000000000);
	int dec = 0;

	for (ttv_ns q = 1000000000; q > step && dec < 9; q /= 10)
		dec++;
	if (dec < 3)
		dec = 3;
	for (int i = dec; i < 9; i++)
		frac /= 10;
	snprintf(buf, size, "%02lld:%02lld:%02lld.%0*lld", sec / 3600,
	    sec / 60 % 60, sec % 60, dec, frac);
}

/* Two rows: tick labels, then a rule with ticks, the cursor and the
 * markers (one letter per kind, '*' for several kinds in a column). */
void
timeline_draw_ruler(struct view *v, struct grid *g, int x, int y, int w)
{
	const struct trace *t = v->trace;
	struct tmap m = { v->t0, v->t1, w };
	ttv_ns step = tmap_tick_step(&m, 14), tick;
	int label_end = -1;
	size_t mi;

	for (int c = 0; c < w; c++)
		grid_set(g, x + c, y + 1, GLYPH_HLINE(g->utf8), STYLE_TICK, 0);
	/* Ticks at multiples of step from the trace start. */
	tick = t->first + ((v->t0 - t->first + step - 1) / step) * step;
	for (int guard = 0; tick < v->t1 && guard < w + 2; guard++,
	    tick += step) {
		char buf[48];
		int c = tmap_col(&m, tick), len;
		if (c < 0 || c >= w)
			continue;
		grid_set(g, x + c, y + 1, GLYPH_TICK(g->utf8), STYLE_TICK, 0);
		ttv_ns wall;
		if (v->wall_clock && t->wall_origin != TTV_NS_MIN &&
		    !__builtin_add_overflow(t->wall_origin, tick, &wall))
			wall_label(wall, step, buf, sizeof buf);
		else
			ruler_label(tick - t->first, step, g->utf8, buf,
			    sizeof buf);
		len = text_width(g, buf, strlen(buf), w);
		if (c <= label_end || c + len > w)
			continue;
		label_end = c + text_puts(g, x + c, y, w - c, buf, STYLE_RULER,
		    0);
	}
	/* The range: its columns underlined, its ends bracketed. */
	if (v->range_on && v->range_t1 > v->t0 && v->range_t0 < v->t1) {
		int c0 = v->range_t0 <= v->t0 ? 0 : tmap_col(&m, v->range_t0);
		int c1 = v->range_t1 >= v->t1 ? w - 1 :
		    tmap_col(&m, v->range_t1 - 1);
		if (c0 < 0)
			c0 = 0;
		if (c1 >= w)
			c1 = w - 1;
		for (int c = c0; c <= c1; c++)
			grid_set(g, x + c, y + 1, GLYPH(g->utf8, 0x2550, '='),
			    STYLE_SELECTED, 0);
		if (v->range_t0 >= v->t0)
			grid_set(g, x + c0, y + 1, '[', STYLE_SELECTED, 0);
		if (v->range_t1 <= v->t1)
			grid_set(g, x + c1, y + 1, ']', STYLE_SELECTED, 0);
	}
	/* The cursor's column. */
	if (v->has_cursor || (v->cursor_t >= v->t0 && v->cursor_t < v->t1)) {
		int c = tmap_col(&m, view_cursor_time(v));
		if (c >= 0 && c < w)
			grid_set(g, x + c, y + 1, GLYPH_CURSOR(g->utf8),
			    STYLE_SELECTED, 0);
	}
	/* Markers: per column, a binary search then at most a few looks. */
	mi = 0;
	{
		size_t lo = 0, hi = t->nmarkers;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->markers[mid].t < v->t0)
				lo = mid + 1;
			else
				hi = mid;
		}
		mi = lo;
	}
	for (int c = 0; c < w && mi < t->nmarkers; c++) {
		ttv_ns end = tmap_time(&m, c + 1);
		int kind = -1, looked = 0;
		bool several = false;
		size_t lo = mi, hi = t->nmarkers;

		for (; mi < t->nmarkers && t->markers[mi].t < end &&
		    looked < 16; mi++, looked++) {
			const struct marker *mk = &t->markers[mi];
			if (mk->track != UINT32_MAX && mk->track < t->ntracks &&
			    !view_track_shown(v, mk->track))
				continue;
			if (kind >= 0 && kind != mk->kind)
				several = true;
			kind = mk->kind;
		}
		if (mi < t->nmarkers && t->markers[mi].t < end) {
			/* Skip the rest of this column's markers. */
			lo = mi;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (t->markers[mid].t < end)
					lo = mid + 1;
				else
					hi = mid;
			}
			mi = lo;
		}
		if (kind >= 0)
			grid_set(g, x + c, y + 1, several ? '*' :
			    marker_glyph((enum marker_kind)kind),
			    STYLE_MARKER, 0);
	}
}

static void
draw_lane_header(struct view *v, struct grid *g, int x, int y, int w,
    uint32_t track)
{
	const struct trace *t = v->trace;
	const struct track *tr = &t->tracks[track];
	char buf[64], info[96];
	const char *label = track_label(t, tr, buf, sizeof buf);
	struct tmap m = { v->t0, v->t1, w };
	int c = 0;
	bool cur = v->cursor_track == track;

	grid_set(g, x, y, v->folded[track] ? GLYPH_CLOSED(g->utf8) :
	    GLYPH_OPEN(g->utf8), STYLE_LANE, cur ? ATTR_UNDERLINE : 0);
	c = 2;
	c += text_puts(g, x + c, y, w - c, label, STYLE_LANE,
	    cur ? ATTR_UNDERLINE : 0);
	if (tr->kind == TRACK_ASYNC) {
		int64_t pid = tr->process < t->nprocesses ?
		    t->processes[tr->process].pid : -1;
		/* Under its process's threads: say whose it is. */
		snprintf(info, sizeof info, "  async %lld of pid %lld, %zu "
		    "slice%s%s", (long long)tr->tid, (long long)pid,
		    tr->nslices, tr->nslices == 1 ? "" : "s",
		    v->folded[track] ? " (folded)" : "");
	} else if (tr->kind == TRACK_THREAD) {
		int64_t pid = tr->process < t->nprocesses ?
		    t->processes[tr->process].pid : -1;
		if (tr->name != 0)
			snprintf(info, sizeof info, "  tid %lld pid %lld, "
			    "%zu slice%s%s", (long long)tr->tid,
			    (long long)pid, tr->nslices, tr->nslices == 1 ?
			    "" : "s", v->folded[track] ? " (folded)" : "");
		else	/* the label already says "tid N" */
			snprintf(info, sizeof info, "  pid %lld, %zu slice%s%s",
			    (long long)pid, tr->nslices, tr->nslices == 1 ?
			    "" : "s", v->folded[track] ? " (folded)" : "");
	} else if (tr->kind == TRACK_COUNTER) {
		double lo = 0, hi = 0;
		for (size_t i = 0; i < tr->nsamples; i++) {
			double val = tr->samples[i].value;
			if (i == 0 || val < lo)
				lo = val;
			if (i == 0 || val > hi)
				hi = val;
		}
		snprintf(info, sizeof info, "  %zu sample%s, %g .. %g%s",
		    tr->nsamples, tr->nsamples == 1 ? "" : "s", lo, hi,
		    v->folded[track] ? " (folded)" : "");
	} else
		snprintf(info, sizeof info, "  %zu slice%s%s", tr->nslices,
		    tr->nslices == 1 ? "" : "s",
		    v->folded[track] ? " (folded)" : "");
	c += grid_puts(g, x + c, y, w - c, info, STYLE_DIM, 0);
	/* Instants of the track, right of the label. */
	if (tr->ninstants > 0) {
		size_t lo = 0, hi = tr->ninstants;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (tr->instants[mid].t < v->t0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int col = c + 1; col < w && lo < tr->ninstants; col++) {
			ttv_ns s = tmap_time(&m, col), e = tmap_time(&m, col + 1);
			size_t a = lo, b = tr->ninstants;
			while (a < b) {	/* first instant at or after s */
				size_t mid = a + (b - a) / 2;
				if (tr->instants[mid].t < s)
					a = mid + 1;
				else
					b = mid;
			}
			lo = a;
			if (lo < tr->ninstants && tr->instants[lo].t < e)
				grid_set(g, x + col, y, GLYPH_INSTANT(g->utf8),
				    view_func_matches(v,
				    tr->instants[lo].func) ? STYLE_MATCH :
				    STYLE_MARKER, 0);
		}
	}
}

static void
draw_counter(struct view *v, struct grid *g, int x, int y, int w,
    uint32_t track)
{
	const struct track *tr = &v->trace->tracks[track];
	struct tmap m = { v->t0, v->t1, w };
	double lo = INFINITY, hi = -INFINITY;
	size_t k = 0;

	for (size_t i = 0; i < tr->nsamples; i++) {
		if (tr->samples[i].value < lo)
			lo = tr->samples[i].value;
		if (tr->samples[i].value > hi)
			hi = tr->samples[i].value;
	}
	if (tr->nsamples == 0)
		return;
	for (int c = 0; c < w; c++) {
		ttv_ns e = tmap_time(&m, c + 1);
		double val;
		while (k + 1 < tr->nsamples && tr->samples[k + 1].t < e)
			k++;
		if (tr->samples[k].t >= e)
			continue;
		val = tr->samples[k].value;
		grid_set(g, x + c, y, glyph_bar(g->utf8, hi > lo ?
		    1 + (int)((val - lo) / (hi - lo) * 7) : 4),
		    STYLE_EDGE0 + (int)(track % STYLE_NHUES), 0);
	}
}

static void
timeline_draw(struct pane *p, struct view *v, struct grid *g, struct rect r)
{
	struct timeline_pane *tp = (struct timeline_pane *)p;
	struct lane_row *rows;
	size_t n = timeline_rows(v, &rows), cur = SIZE_MAX;
	int body = r.h - 2;

	if (r.h < 3) {
		free(rows);
		return;
	}
	timeline_draw_ruler(v, g, r.x, r.y, r.w);
	if (n == 0) {
		grid_puts(g, r.x + 1, r.y + 2, r.w - 1,
		    v->trace->ntracks ? "no track passes the filters (x clears them)"
		    : "this trace has no slices", STYLE_DIM, 0);
		free(rows);
		return;
	}
	/* Keep the cursor's row on screen. */
	for (size_t i = 0; i < n; i++) {
		if (rows[i].track != v->cursor_track)
			continue;
		if (rows[i].depth == -1 || (v->has_cursor &&
		    rows[i].depth == (int32_t)v->cursor.depth)) {
			cur = i;
			if (rows[i].depth != -1)
				break;
		}
	}
	if (tp->top > (int)n - 1)
		tp->top = (int)n - 1;
	if (tp->top < 0)
		tp->top = 0;
	if (cur != SIZE_MAX) {
		if ((int)cur < tp->top)
			tp->top = (int)cur;
		if ((int)cur >= tp->top + body)
			tp->top = (int)cur - body + 1;
	}
	/* The calls of the rows drawn one by one, asked of the kernel all at
	 * once: with an index not in memory, one wait instead of a read a
	 * row. */
	for (int row = 0; row < body && (size_t)(tp->top + row) < n;
	    row++) {
		const struct lane_row *lr = &rows[tp->top + row];
		const struct track *tr = &v->trace->tracks[lr->track];
		size_t lo, hi;
		if (lr->depth < 0 || v->trace->backing == NULL ||
		    (uint32_t)lr->depth >= tr->ndepth ||
		    summary_dense(v, lr->track, (uint32_t)lr->depth, r.w))
			continue;
		summary_window(v->trace, lr->track, (uint32_t)lr->depth, v->t0,
		    v->t1, &lo, &hi);
		trace_prefetch(v->trace, lr->track, (uint32_t)lr->depth, lo,
		    hi);
	}
	for (int row = 0; row < body && (size_t)(tp->top + row) < n;
	    row++) {
		const struct lane_row *lr = &rows[tp->top + row];
		int y = r.y + 2 + row;
		if (lr->depth < 0)
			draw_lane_header(v, g, r.x, y, r.w, lr->track);
		else if (v->trace->tracks[lr->track].kind == TRACK_COUNTER)
			draw_counter(v, g, r.x, y, r.w, lr->track);
		else
			timeline_draw_depth(v, g, r.x, y, r.w, lr->track,
			    (uint32_t)lr->depth);
	}
	free(rows);
}

/* Steps over slices the function filter hides, at most `limit` of them. */
static bool
step_shown(struct view *v, struct slice_ref r, bool next,
    struct slice_ref *out)
{
	const struct trace *t = v->trace;

	for (int limit = 0; limit < 100000; limit++) {
		if (!(next ? query_next_sibling(t, r, &r) :
		    query_prev_sibling(t, r, &r)))
			return false;
		if (view_slice_shown(v, trace_slice(t, r))) {
			*out = r;
			return true;
		}
	}
	return false;
}

/* The cursor on call r, at time t inside it: the time asked for (by g, a
 * click, a marker) stays the cursor's through k, j, J and K, and the
 * window moves only when t is not in it. */
static void
cursor_keep_time(struct view *v, struct slice_ref r, ttv_ns t)
{
	view_set_cursor(v, r);
	v->cursor_t = t;
	v->cursor_pinned = true;
	view_show_cursor(v);
}

/* The cursor's time when it lies in the cursor's call, else the call's
 * middle. */
static ttv_ns
time_in_call(const struct view *v)
{
	const struct slice *s = trace_slice(v->trace, v->cursor);
	ttv_ns t = view_cursor_time(v);

	if (t < s->start || t >= trace_slice_end(v->trace, v->cursor))
		t = s->start + trace_slice_dur(v->trace, v->cursor) / 2;
	return t;
}

/* j: the callee running at the cursor's time, else the callee in the
 * window nearest to it (the cursor's time becomes that call's); false
 * with a message when there is none. */
static bool
to_callee(struct view *v)
{
	const struct trace *t = v->trace;
	struct slice_ref c = v->cursor, r;
	ttv_ns at = time_in_call(v);
	const struct track *tr = &t->tracks[c.track];

	if (c.depth + 1 >= tr->ndepth) {
		view_message(v, true, "no callee");
		return false;
	}
	if (query_slice_at(t, c.track, c.depth + 1, at, &r)) {
		cursor_keep_time(v, r, at);
		return true;
	}
	/* The callees are the calls one deeper that start inside this one
	 * (a zero-length one at its start too); those in the window are
	 * candidates. */
	const struct depth_level *l = &tr->depth[c.depth + 1];
	ttv_ns start = trace_slice(t, c)->start, end = trace_slice_end(t, c);
	size_t lo = level_first_start(l, start);
	size_t hi = level_first_start(l, end > start ? end : end + 1);
	if (lo >= hi) {
		view_message(v, true, "no callee");
		return false;
	}
	size_t wlo, whi;
	query_window(tr, c.depth + 1, v->t0, v->t1, &wlo, &whi);
	lo = wlo > lo ? wlo : lo;
	hi = whi < hi ? whi : hi;
	if (lo >= hi) {
		view_message(v, true, "no callee in the window (o zooms out)");
		return false;
	}
	/* i - 1 ended before at (none runs then), i starts after it */
	size_t i = level_first_start(l, at);
	if (i >= hi)
		i = hi - 1;
	else if (i <= lo)
		i = lo;
	else if (at - level_end(l, i - 1) < l->slices[i].start - at)
		i--;
	view_set_cursor(v, (struct slice_ref){ c.track, c.depth + 1,
	    (uint32_t)i });
	view_show_cursor(v);
	return true;
}

/* h or l with no call selected (a lane with nothing at the cursor's
 * time): the outermost call before or after that time on the lane. */
static bool
from_time(struct view *v, bool next)
{
	const struct trace *t = v->trace;

	if (v->cursor_track >= t->ntracks ||
	    t->tracks[v->cursor_track].ndepth == 0)
		return false;
	const struct depth_level *l = &t->tracks[v->cursor_track].depth[0];
	size_t i = level_first_start(l, v->cursor_t);
	if (next ? i >= l->len : i == 0)
		return false;
	view_set_cursor(v, (struct slice_ref){ v->cursor_track, 0,
	    (uint32_t)(next ? i : i - 1) });
	view_show_cursor(v);
	return true;
}

/* The lane after/before the cursor's that passes the filter: its call
 * at the cursor's time, or the lane itself when nothing runs on it then
 * (h and l go on from there). */
static void
lane_step(struct view *v, int dir)
{
	const struct trace *t = v->trace;
	/* In the order the lanes are shown. */
	int64_t k = v->cursor_track >= t->ntracks ? -1 :
	    (int64_t)lanes(v)->pos[v->cursor_track];
	ttv_ns when = view_cursor_time(v);

	for (k += dir; k >= 0 && k < (int64_t)t->ntracks; k += dir) {
		int64_t i = lanes(v)->order[k];
		if (!view_track_shown(v, (uint32_t)i) ||
		    t->tracks[i].ndepth == 0)
			continue;
		v->cursor_track = (uint32_t)i;
		v->has_cursor = false;
		if (v->folded[i])
			v->folded[i] = 0;
		view_cursor_at_time(v, when);
		v->cursor_t = when;
		v->cursor_pinned = true;
		if (!v->has_cursor) {
			char buf[64], b2[48];
			view_message(v, false, "%s: no call at %s (h, l: the "
			    "calls before and after)", track_label(t,
			    &t->tracks[i], buf, sizeof buf),
			    view_time_exact(v, when, b2, sizeof b2));
		}
		view_show_cursor(v);
		return;
	}
	view_message(v, true, "no %s lane", dir > 0 ? "next" : "previous");
}

static int
timeline_command(struct pane *p, struct view *v, enum cmd c)
{
	const struct trace *t = v->trace;
	struct slice_ref r;

	switch (c) {
	case CMD_SLICE_NEXT:
	case CMD_SLICE_PREV:
		if (!v->has_cursor) {
			view_cursor_at_time(v, v->cursor_t);
			if (!v->has_cursor && !from_time(v, c == CMD_SLICE_NEXT))
				view_message(v, true, "no %s call on this lane",
				    c == CMD_SLICE_NEXT ? "later" : "earlier");
			return PANE_REDRAW;
		}
		if (step_shown(v, v->cursor, c == CMD_SLICE_NEXT, &r)) {
			view_set_cursor(v, r);
			view_show_cursor(v);
		} else
			view_message(v, true, "no %s slice at this depth",
			    c == CMD_SLICE_NEXT ? "next" : "previous");
		return PANE_REDRAW;
	case CMD_SLICE_PARENT:
	case CMD_SLICE_CHILD:
		/* Caller and callee stay on the thread: at either end of the
		 * stack the cursor stays put and says so (J/K change lanes). */
		if (!v->has_cursor) {
			view_cursor_at_time(v, v->cursor_t);
			return PANE_REDRAW;
		}
		if (c == CMD_SLICE_PARENT && query_parent(t, v->cursor, &r))
			cursor_keep_time(v, r, time_in_call(v));
		else if (c == CMD_SLICE_PARENT)
			view_message(v, true, "no caller");
		else
			to_callee(v);
		return PANE_REDRAW;
	case CMD_LANE_NEXT:
		lane_step(v, 1);
		return PANE_REDRAW;
	case CMD_LANE_PREV:
		lane_step(v, -1);
		return PANE_REDRAW;
	case CMD_LANE_FOLD:
		if (v->cursor_track < t->ntracks) {
			v->folded[v->cursor_track] ^= 1;
			if (v->folded[v->cursor_track] && v->has_cursor) {
				v->cursor_t = view_cursor_time(v);
				v->has_cursor = false;
			} else if (!v->folded[v->cursor_track])
				view_cursor_at_time(v, v->cursor_t);
		}
		return PANE_REDRAW;
	case CMD_ZOOM_SLICE:
		view_zoom_slice(v);
		return PANE_REDRAW | PANE_DATA;
	case CMD_FLOW_NEXT:
	case CMD_FLOW_PREV:
		/* view_show_cursor may have moved the window. */
		view_flow_jump(v, c == CMD_FLOW_NEXT);
		return PANE_REDRAW | PANE_DATA;
	case CMD_CALL_SLOWER:
	case CMD_CALL_FASTER:
		return calls_pane_step(v, c == CMD_CALL_SLOWER);
	default:
		return PANE_UNHANDLED;
	}
}

/* Wheel: zoom around the time under the pointer. Click: the slice under
 * it (or the one drawn in that column when they are dense), the cursor
 * at the clicked time; a click on the selected slice zooms to it; on a
 * lane header, fold or unfold. */
static int
timeline_mouse(struct pane *p, struct view *v, struct rect r, int x, int y,
    enum mouse_button b)
{
	struct timeline_pane *tp = (struct timeline_pane *)p;
	struct tmap m = { v->t0, v->t1, r.w };
	int col = x - r.x;
	ttv_ns a = tmap_time(&m, col), e = tmap_time(&m, col + 1);
	struct lane_row *rows;
	size_t n, row;
	int flags = PANE_HANDLED;

	if (b != MOUSE_CLICK) {
		view_zoom_at(v, a + (e - a) / 2, b == MOUSE_WHEEL_UP ? 0.5 :
		    2.0);
		return PANE_REDRAW | PANE_DATA;
	}
	if (y < r.y + 2)
		return PANE_HANDLED;
	n = timeline_rows(v, &rows);
	row = (size_t)tp->top + (size_t)(y - r.y - 2);
	if (row < n) {
		const struct lane_row *lr = &rows[row];
		const struct track *tr = &v->trace->tracks[lr->track];
		struct slice_ref ref;
		size_t lo, hi;

		if (lr->depth < 0) {
			v->folded[lr->track] ^= 1;
			flags = PANE_REDRAW;
		} else if (tr->kind != TRACK_COUNTER &&
		    (uint32_t)lr->depth < tr->ndepth) {
			ttv_ns at = a + (e - a) / 2;
			bool found = query_slice_at(v->trace, lr->track,
			    (uint32_t)lr->depth, at, &ref);
			if (!found) {
				query_window(tr, (uint32_t)lr->depth, a, e, &lo,
				    &hi);
				found = lo < hi;
				ref = (struct slice_ref){ lr->track,
				    (uint32_t)lr->depth, (uint32_t)lo };
			}
			if (found && v->has_cursor && ref.track ==
			    v->cursor.track && ref.depth == v->cursor.depth &&
			    ref.index == v->cursor.index) {
				/* A second click on the call: zoom to it. */
				view_zoom_slice(v);
				flags = PANE_REDRAW | PANE_DATA;
			} else if (found) {
				/* The cursor where the click was: zooming
				 * keeps that instant in view. */
				view_set_cursor(v, ref);
				v->cursor_t = at;
				v->cursor_pinned = true;
				flags = PANE_REDRAW;
			}
		}
	}
	free(rows);
	return flags;
}

const struct pane_class pane_timeline = {
	.title = "Timeline",
	.ctx = CTX_TIMELINE,
	.hint = "? keys  / search  g go to  ] marker  : command  q quit",
	.create = timeline_create,
	.free = timeline_free,
	.stale = timeline_stale,
	.draw = timeline_draw,
	.command = timeline_command,
	.mouse = timeline_mouse,
	/* v and #: the selected call's function (pane_selected_func) */
};
