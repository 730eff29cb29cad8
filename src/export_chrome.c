/*
 * Chrome trace-event JSON export (see export.h). Slices are written in
 * pre-order per track (a parent before its children, siblings by time),
 * which is the order trace viewers need to nest "X" events that start at
 * the same microsecond.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "export.h"
#include "xalloc.h"

#define CPU_PID (-1)

struct out {
	FILE *fp;
	bool first;
	ttv_ns t0, t1;		/* the range: events in it, calls overlapping it */
};

static bool
time_in(const struct out *o, ttv_ns t)
{
	return t >= o->t0 && (t < o->t1 || o->t1 == TTV_NS_MAX);
}

/* The range rule of query_calls.h: a call that overlaps the range is
 * written, whole. */
static bool
slice_in(const struct out *o, const struct trace *t, struct slice_ref r)
{
	ttv_ns s = trace_slice(t, r)->start, e = trace_slice_end(t, r);
	return (s < o->t1 || o->t1 == TTV_NS_MAX) &&
	    (e > o->t0 || (e == s && s >= o->t0));
}

static void
sep(struct out *o)
{
	fputs(o->first ? "\n" : ",\n", o->fp);
	o->first = false;
}

/* ns as µs with three decimals, exactly. */
static void
put_us(FILE *fp, ttv_ns ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(fp, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
	    (unsigned)(a % 1000));
}

static void
put_str(FILE *fp, const char *s)
{
	putc('"', fp);
	escape_json(s, fp);
	putc('"', fp);
}

static void
put_value(const struct trace *t, const struct arg *a, FILE *fp)
{
	switch (a->type) {
	case ARG_NULL: fputs("null", fp); break;
	case ARG_BOOL: fputs(a->v.u ? "true" : "false", fp); break;
	case ARG_I64: fprintf(fp, "%" PRId64, a->v.i); break;
	case ARG_U64:
	case ARG_KOID: fprintf(fp, "%" PRIu64, a->v.u); break;
	case ARG_F64:
		if (isfinite(a->v.f))
			fprintf(fp, "%.17g", a->v.f);
		else
			fprintf(fp, "\"%f\"", a->v.f);
		break;
	case ARG_STR: put_str(fp, trace_str(t, a->v.s)); break;
	case ARG_PTR: fprintf(fp, "\"0x%" PRIx64 "\"", a->v.u); break;
	default: fputs("null", fp); break;
	}
}

/* The members of an args object; *comma says whether one came before. */
static void
put_members(const struct trace *t, const struct arg *a, size_t n, FILE *fp,
    bool *comma)
{
	for (size_t i = 0; i < n; i++) {
		if (*comma)
			putc(',', fp);
		*comma = true;
		put_str(fp, trace_str(t, a[i].name));
		putc(':', fp);
		put_value(t, &a[i], fp);
	}
}

static void
put_args(const struct trace *t, const struct arg *a, size_t n, FILE *fp)
{
	bool comma = false;
	fputs(",\"args\":{", fp);
	put_members(t, a, n, fp, &comma);
	putc('}', fp);
}

static int64_t
track_pid(const struct trace *t, const struct track *tr)
{
	return tr->kind == TRACK_CPU ? CPU_PID : t->processes[tr->process].pid;
}

static void
put_head(struct out *o, const char *ph, const char *name, const char *cat,
    ttv_ns ts, int64_t pid, int64_t tid)
{
	sep(o);
	fprintf(o->fp, "{\"ph\":\"%s\",\"name\":", ph);
	put_str(o->fp, name);
	if (cat && *cat) {
		fputs(",\"cat\":", o->fp);
		put_str(o->fp, cat);
	}
	fputs(",\"ts\":", o->fp);
	put_us(o->fp, ts);
	fprintf(o->fp, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, pid, tid);
}

static void
put_slice(struct out *o, const struct trace *t, struct slice_ref r)
{
	const struct track *tr = &t->tracks[r.track];
	const struct slice *s = trace_slice(t, r);
	ttv_ns dur = trace_slice_dur(t, r);
	const struct func *fn = &t->funcs[s->func];
	int64_t pid = track_pid(t, tr);
	if (tr->kind == TRACK_ASYNC) {
		put_head(o, "b", trace_str(t, fn->name), trace_str(t,
		    fn->category), s->start, pid, tr->tid);
		fprintf(o->fp, ",\"id\":\"0x%" PRIx64 "\"", (uint64_t)tr->tid);
		size_t n;
		const struct arg *a = trace_slice_args(t, r, &n);
		if (n)
			put_args(t, a, n, o->fp);
		fputs("}", o->fp);
		put_head(o, "e", trace_str(t, fn->name), trace_str(t,
		    fn->category), s->start + dur, pid, tr->tid);
		fprintf(o->fp, ",\"id\":\"0x%" PRIx64 "\"}", (uint64_t)tr->tid);
		return;
	}
	put_head(o, "X", trace_str(t, fn->name), trace_str(t, fn->category),
	    s->start, pid, tr->tid);
	fputs(",\"dur\":", o->fp);
	put_us(o->fp, dur);
	size_t n;
	const struct arg *a = trace_slice_args(t, r, &n);
	if (n || s->flags & (SLICE_INEXACT | SLICE_TAIL_EXIT)) {
		fputs(",\"args\":{", o->fp);
		bool comma = false;
		if (s->flags & SLICE_UNTERMINATED) {
			fputs("\"ttv.unterminated\":true", o->fp);
			comma = true;
		}
		if (s->flags & SLICE_NO_ENTRY) {
			fputs(comma ? "," : "", o->fp);
			fputs("\"ttv.no_entry\":true", o->fp);
			comma = true;
		}
		if (s->flags & SLICE_TAIL_EXIT) {
			fputs(comma ? "," : "", o->fp);
			fputs("\"ttv.tail_exit\":true", o->fp);
			comma = true;
		}
		put_members(t, a, n, o->fp, &comma);
		putc('}', o->fp);
	}
	putc('}', o->fp);
}

/* Whether slice (d, k) lies in the open slice of depth d - 1 that ends at
 * `end` and starts at `start`: it starts inside it, or, for a parent of no
 * length, at the same instant (a zero-length call holding another). */
static bool
child_of(const struct track *tr, uint32_t d, size_t k, ttv_ns start,
    ttv_ns end)
{
	ttv_ns s = tr->depth[d].slices[k].start;

	return s < end || (s == start && start == end);
}

/*
 * Pre-order walk of the slices below and including (d0, k0) on track ti:
 * a parent before its children, siblings by time. seen marks what was
 * written, so that the slices no walk from depth 0 reaches (a call whose
 * caller was lost in a damaged trace) are written by a walk of their own.
 */
static void
walk_from(struct out *o, const struct trace *t, const struct filter *f,
    uint32_t ti, uint32_t d0, size_t k0, uint64_t **seen, size_t *cur,
    ttv_ns *start, ttv_ns *end)
{
	const struct track *tr = &t->tracks[ti];
	struct slice_ref r = { ti, d0, (uint32_t)k0 };

	for (;;) {
		const struct slice *s = trace_slice(t, r);
		seen[r.depth][r.index >> 6] |= (uint64_t)1 << (r.index & 63);
		if (filter_func(f, s->func) && slice_in(o, t, r))
			put_slice(o, t, r);
		start[r.depth] = s->start;
		end[r.depth] = trace_slice_end(t, r);
		if (r.depth + 1 < tr->ndepth)
			cur[r.depth + 1] = level_first_start(
			    &tr->depth[r.depth + 1], s->start);
		/* the next child of the deepest open call, closing those
		 * that have none left; done when (d0, k0) closes */
		uint32_t top = r.depth + 1;	/* depths below top are open */
		for (;;) {
			if (top == d0)
				return;
			uint32_t d = top;
			/* a call already written (one of zero-length calls at
			 * one instant is claimed by each of them) is not again */
			while (d < tr->ndepth && cur[d] < tr->depth[d].len &&
			    (seen[d][cur[d] >> 6] >> (cur[d] & 63) & 1))
				cur[d]++;
			if (d < tr->ndepth && cur[d] < tr->depth[d].len &&
			    child_of(tr, d, cur[d], start[d - 1], end[d - 1])) {
				r = (struct slice_ref){ ti, d,
				    (uint32_t)cur[d]++ };
				break;
			}
			top--;
		}
	}
}

/* Every slice of one track in the window, in pre-order per call stack. */
static void
put_track_slices(struct out *o, const struct trace *t, const struct filter *f,
    uint32_t ti)
{
	const struct track *tr = &t->tracks[ti];
	if (tr->ndepth == 0)
		return;
	size_t *cur = xcalloc(tr->ndepth, sizeof *cur);
	ttv_ns *start = xcalloc(tr->ndepth, sizeof *start);
	ttv_ns *end = xcalloc(tr->ndepth, sizeof *end);
	uint64_t **seen = xcalloc(tr->ndepth, sizeof *seen);
	for (uint32_t d = 0; d < tr->ndepth; d++)
		seen[d] = xcalloc(tr->depth[d].len / 64 + 1, sizeof **seen);
	size_t i0, i1;
	query_window(tr, 0, o->t0, o->t1, &i0, &i1);
	for (size_t k = i0; k < i1; k++)
		walk_from(o, t, f, ti, 0, k, seen, cur, start, end);
	/* what no call at depth 0 holds, from the shallowest down */
	for (uint32_t d = 1; d < tr->ndepth; d++) {
		query_window(tr, d, o->t0, o->t1, &i0, &i1);
		for (size_t k = i0; k < i1; k++)
			if (!(seen[d][k >> 6] >> (k & 63) & 1))
				walk_from(o, t, f, ti, d, k, seen, cur, start,
				    end);
	}
	for (uint32_t d = 0; d < tr->ndepth; d++)
		free(seen[d]);
	free(seen);
	free(cur);
	free(start);
	free(end);
}

static int
cmp_flow(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a;
	const struct flow *y = *(const struct flow *const *)b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x < y ? -1 : x > y;	/* keep insertion order */
}

static void
put_flow_end(struct out *o, const struct trace *t, const char *ph,
    uint64_t id, struct slice_ref r)
{
	const struct track *tr = &t->tracks[r.track];
	const struct slice *s = trace_slice(t, r);
	put_head(o, ph, "flow", "flow", s->start, track_pid(t, tr), tr->tid);
	fprintf(o->fp, ",\"id\":\"0x%" PRIx64 "\"%s}", id,
	    ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

static bool
ref_ok(const struct trace *t, struct slice_ref r)
{
	return r.track < t->ntracks && r.depth < t->tracks[r.track].ndepth &&
	    r.index < t->tracks[r.track].depth[r.depth].len;
}

static void
put_flows(struct out *o, const struct trace *t, const struct filter *f)
{
	const struct flow **v = xmalloc((t->nflows ? t->nflows : 1) *
	    sizeof *v);
	for (size_t i = 0; i < t->nflows; i++)
		v[i] = &t->flows[i];
	xqsort(v, t->nflows, sizeof *v, cmp_flow);
	for (size_t i = 0; i < t->nflows; i++) {
		const struct flow *fl = v[i];
		if (!ref_ok(t, fl->from) || !ref_ok(t, fl->to) ||
		    !filter_track(f, fl->from.track) ||
		    !filter_track(f, fl->to.track) ||
		    !slice_in(o, t, fl->from) || !slice_in(o, t, fl->to))
			continue;
		bool first = i == 0 || v[i - 1]->id != fl->id;
		bool last = i + 1 == t->nflows || v[i + 1]->id != fl->id;
		if (first)
			put_flow_end(o, t, "s", fl->id, fl->from);
		put_flow_end(o, t, last ? "f" : "t", fl->id, fl->to);
	}
	free(v);
}

int
export_chrome_json(const struct trace *t, const struct filter *f, FILE *fp)
{
	return export_chrome_json_range(t, f, TTV_NS_MIN, TTV_NS_MAX, fp);
}

int
export_chrome_json_range(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, FILE *fp)
{
	struct out o = { fp, true, t0, t1 };
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":", fp);
	put_str(fp, t->format);
	fputs("},\"traceEvents\":[", fp);
	for (uint32_t p = 0; p < t->nprocesses; p++) {
		if (t->processes[p].name == 0)
			continue;
		sep(&o);
		fprintf(fp, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%"
		    PRId64 ",\"tid\":0,\"args\":{\"name\":",
		    t->processes[p].pid);
		put_str(fp, trace_str(t, t->processes[p].name));
		fputs("}}", fp);
	}
	bool cpus = false;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		cpus |= tr->kind == TRACK_CPU;
		if (tr->kind == TRACK_COUNTER || tr->kind == TRACK_ASYNC)
			continue;
		char buf[64];
		sep(&o);
		fprintf(fp, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%"
		    PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"name\":",
		    track_pid(t, tr), tr->tid);
		put_str(fp, track_label(t, tr, buf, sizeof buf));
		fputs("}}", fp);
	}
	if (cpus) {
		sep(&o);
		fprintf(fp, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
		    "\"tid\":0,\"args\":{\"name\":\"CPUs\"}}", CPU_PID);
	}
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		put_track_slices(&o, t, f, i);
		int64_t pid = track_pid(t, tr);
		for (size_t k = 0; k < tr->ninstants; k++) {
			const struct instant *in = &tr->instants[k];
			if (!filter_func(f, in->func) || !time_in(&o, in->t))
				continue;
			const struct func *fn = &t->funcs[in->func];
			put_head(&o, "i", trace_str(t, fn->name),
			    trace_str(t, fn->category), in->t, pid, tr->tid);
			fputs(",\"s\":\"t\"", fp);
			size_t n;
			const struct arg *a = trace_args(t, in->args, &n);
			if (n)
				put_args(t, a, n, fp);
			putc('}', fp);
		}
		char buf[64];
		const char *label = track_label(t, tr, buf, sizeof buf);
		for (size_t k = 0; k < tr->nsamples; k++) {
			if (!time_in(&o, tr->samples[k].t))
				continue;
			put_head(&o, "C", label, NULL, tr->samples[k].t, pid,
			    0);
			double v = tr->samples[k].value;
			if (isfinite(v))
				fprintf(fp, ",\"args\":{\"value\":%.17g}}", v);
			else
				fputs(",\"args\":{\"value\":null}}", fp);
		}
	}
	put_flows(&o, t, f);
	for (size_t i = 0; i < t->nmarkers; i++) {
		const struct marker *m = &t->markers[i];
		bool on_track = m->track < t->ntracks;
		if ((on_track && !filter_track(f, m->track)) ||
		    !time_in(&o, m->t))
			continue;
		const struct track *tr = on_track ? &t->tracks[m->track] : NULL;
		put_head(&o, "i", marker_kind_name(m->kind), "ttv.marker", m->t,
		    tr ? track_pid(t, tr) : 0, tr ? tr->tid : 0);
		fprintf(fp, ",\"s\":\"%s\",\"args\":{\"value\":%" PRId64,
		    tr ? "t" : "g", m->value);
		if (m->text) {
			fputs(",\"text\":", fp);
			put_str(fp, trace_str(t, m->text));
		}
		fputs("}}", fp);
	}
	fputs("\n]}\n", fp);
	return ferror(fp) ? -1 : 0;
}
