/* What a trace is and what is in it (query_info.h): the lines are
 * written to a stream in memory, as a report is written, then cut at
 * their newlines (text from the trace never holds one: it is written in
 * the text form). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "query.h"
#include "query_info.h"
#include "summary.h"
#include "timefmt.h"
#include "xalloc.h"

static void
print_time_range(const struct trace *t, FILE *out)
{
	char d[64];
	fprintf(out, "time range: %lld .. %lld ns (%s)\n", (long long)t->first,
	    (long long)t->last, timefmt_duration(t->last - t->first, d,
	    sizeof d));
}

/* --range: the range resolved, its length and how many slices of the
 * tracks shown overlap it. */
static void
print_range(const struct trace *t, const struct selection *sel, FILE *out)
{
	char d[64];
	fprintf(out, "range: %lld .. %lld ns (%s), from the start: +%lld .. "
	    "+%lld ns\n", (long long)sel->t0, (long long)sel->t1,
	    timefmt_duration(sel->t1 - sel->t0, d, sizeof d),
	    (long long)(sel->t0 - t->first), (long long)(sel->t1 - t->first));
	size_t n = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		if (!filter_track(&sel->f, i))
			continue;
		const struct track *tr = &t->tracks[i];
		for (uint32_t dd = 0; dd < tr->ndepth; dd++) {
			size_t lo, hi;
			query_window(tr, dd, sel->t0, sel->t1, &lo, &hi);
			n += hi - lo;
		}
	}
	fprintf(out, "slices in range: %zu\n", n);
}

static const char *const kind_names[] = {
	[TRACK_THREAD] = "thread", [TRACK_ASYNC] = "async",
	[TRACK_CPU] = "cpu", [TRACK_COUNTER] = "counter",
};

static void
write_info(const struct trace *t, const struct selection *sel, FILE *out)
{
	const struct filter *f = &sel->f;

	fputs("file: ", out);
	escape_fputs(t->path, out);
	fprintf(out, "\nformat: %s\n", t->format);
	if (t->version)
		fprintf(out, "version: %s\n", t->version);
	if (t->byte_order)
		fprintf(out, "byte order: %s\n", t->byte_order);
	if (t->ticks_per_second > 0)
		fprintf(out, "tick rate: %.0f Hz\n", t->ticks_per_second);
	else
		fputs("tick rate: unknown (times are raw ticks)\n", out);
	print_time_range(t, out);
	if (t->wall_origin != TTV_NS_MIN)
		fprintf(out, "wall clock origin: %lld ns since the epoch\n",
		    (long long)t->wall_origin);

	size_t counts[4] = { 0 }, slices = 0, instants = 0, samples = 0;
	size_t flagged[8] = { 0 };
	uint32_t maxdepth = 0;
	/* per function: 1 a call that returned, 2 one that never did (on
	 * the tracks --stats reads: not CPU lanes, which say what ran) */
	uint8_t *called = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);
	_Static_assert(SUM_CALLED == 1 && SUM_UNFINISHED == 2, "the bits above");
	/* An index counted both when it was written (summary.h): the
	 * calls are not read, but for the functions of some tracks. */
	const struct trace_summary *sum = t->summary;
	bool stored_flags = sum != NULL && sum->tracks != NULL;
	bool stored_called = sum != NULL && sum->called != NULL &&
	    (f == NULL || f->track_on == NULL);
	if (stored_called && t->nfuncs > 0)
		memcpy(called, sum->called, t->nfuncs);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		counts[tr->kind]++;
		slices += tr->nslices;
		instants += tr->ninstants;
		samples += tr->nsamples;
		if (tr->ndepth > maxdepth)
			maxdepth = tr->ndepth;
		uint8_t calls = tr->kind == TRACK_CPU || stored_called ? 0 : 1;
		if (stored_flags)
			for (int b = 0; b < 8; b++)
				flagged[b] += sum->tracks[i].flagged[b];
		if (stored_flags && stored_called)
			continue;
		for (uint32_t d = 0; d < tr->ndepth; d++)
			for (size_t k = 0; k < tr->depth[d].len; k++) {
				const struct slice *s = &tr->depth[d].slices[k];
				if (s->func < t->nfuncs)
					called[s->func] |= (uint8_t)(calls <<
				    ((s->flags & SLICE_INEXACT) != 0));
				/* most slices have no flag: one test for them */
				for (uint32_t fl = stored_flags ? 0 : s->flags;
				    fl != 0; fl &= fl - 1)
					flagged[__builtin_ctz(fl)]++;
			}
	}
	/* the functions the functions pane and --stats list: a call that
	 * returned; the others, apart */
	uint32_t nfuncs = 0, unfinished_only = 0, other = 0;
	for (uint32_t fn = 0; fn < t->nfuncs; fn++) {
		if (!filter_func(f, fn))
			continue;
		if (called[fn] & 1)
			nfuncs++;
		else if (called[fn] & 2)
			unfinished_only++;
		else
			other++;
	}
	free(called);
	fprintf(out, "processes: %u\n", t->nprocesses);
	fprintf(out, "threads: %zu\n", counts[TRACK_THREAD]);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		char buf[64];
		const struct process *p = &t->processes[tr->process];
		fprintf(out, "  %s pid %lld tid %lld \"", kind_names[tr->kind],
		    (long long)p->pid, (long long)tr->tid);
		escape_fputs(track_label(t, tr, buf, sizeof buf), out);
		fprintf(out, "\": %zu slice%s, depth %u, %zu instant%s, "
		    "%zu sample%s\n", tr->nslices, tr->nslices == 1 ? "" : "s",
		    tr->ndepth, tr->ninstants, tr->ninstants == 1 ? "" : "s",
		    tr->nsamples, tr->nsamples == 1 ? "" : "s");
	}
	if (counts[TRACK_ASYNC])
		fprintf(out, "async tracks: %zu\n", counts[TRACK_ASYNC]);
	if (counts[TRACK_CPU])
		fprintf(out, "cpu tracks: %zu\n", counts[TRACK_CPU]);
	if (counts[TRACK_COUNTER])
		fprintf(out, "counter tracks: %zu\n", counts[TRACK_COUNTER]);
	fprintf(out, "functions: %u\n", nfuncs);
	if (unfinished_only > 0)
		fprintf(out, "  with unfinished calls only: %u\n",
		    unfinished_only);
	if (other > 0)
		fprintf(out, "  other names (instants, CPU lanes): %u\n", other);
	fprintf(out, "slices: %zu\n", slices);
	static const char *const flag_names[8] = {
		"unterminated", "tail exit", "no entry", "unwound", "with args",
		"instant", "truncated", "?",
	};
	for (int b = 0; b < 8; b++)
		if (flagged[b])
			fprintf(out, "  %s: %zu\n", flag_names[b], flagged[b]);
	fprintf(out, "max depth: %u\n", maxdepth);
	size_t all = trace_nslices(t), mem = trace_memory(t);
	fprintf(out, "model memory: %zu bytes", mem);
	if (all > 0)
		fprintf(out, " (%.1f bytes per slice)", (double)mem / (double)all);
	putc('\n', out);
	fprintf(out, "instants: %zu\n", instants);
	fprintf(out, "counter samples: %zu\n", samples);
	fprintf(out, "flows: %zu\n", t->nflows);
	fprintf(out, "logs: %zu\n", t->nlogs);

	fputs("records:\n", out);
	for (size_t i = 0; i < t->nrecords; i++) {
		fputs("  ", out);
		escape_fputs(t->records[i].kind, out);
		fprintf(out, ": %llu\n", (unsigned long long)t->records[i].count);
	}
	size_t mk[MARKER_KIND_COUNT] = { 0 };
	for (size_t i = 0; i < t->nmarkers; i++)
		if (t->markers[i].track >= t->ntracks ||
		    filter_track(f, t->markers[i].track))
			mk[t->markers[i].kind < MARKER_KIND_COUNT ?
			    t->markers[i].kind : 0]++;
	fputs("markers:\n", out);
	for (int k = 0; k < MARKER_KIND_COUNT; k++)
		if (mk[k])
			fprintf(out, "  %s: %zu\n", marker_kind_name(k), mk[k]);
	if (t->nmeta > 0) {
		fputs("metadata:\n", out);
		for (size_t i = 0; i < t->nmeta; i++) {
			fputs("  ", out);
			escape_fputs(t->meta_keys[i], out);
			fputs(": ", out);
			escape_fputs(t->meta_values[i], out);
			putc('\n', out);
		}
	}
	size_t nwarn = 0, nerr = 0;
	for (size_t i = 0; i < t->ndiags; i++)
		if (t->diags[i].level == DIAG_ERROR)
			nerr++;
		else
			nwarn++;
	fprintf(out, "errors: %zu\nwarnings: %zu\n", nerr, nwarn);
	for (size_t i = 0; i < t->ndiags; i++) {
		fputs(t->diags[i].level == DIAG_ERROR ? "  error: " :
		    "  warning: ", out);
		escape_fputs(t->diags[i].text, out);
		putc('\n', out);
	}
	if (t->ndiags_dropped)
		fprintf(out, "  (%llu more not shown)\n",
		    (unsigned long long)t->ndiags_dropped);
	if (sel->ranged)
		print_range(t, sel, out);
}

void
query_info(const struct trace *t, const struct selection *sel,
    struct info_lines *out)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *fp = open_memstream(&text, &len);

	out->lines = NULL;
	out->n = 0;
	if (fp == NULL) {
		/* nothing but memory can fail a stream in memory */
		fputs("ttv: out of memory\n", stderr);
		abort();
	}
	write_info(t, sel, fp);
	fclose(fp);
	for (char *line = text, *nl; line < text + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (nl == NULL)
			nl = text + len;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			out->lines = xreallocarray(out->lines, cap,
			    sizeof *out->lines);
		}
		out->lines[out->n++] = xstrndup(line, (size_t)(nl - line));
	}
	free(text);
}

void
info_lines_free(struct info_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->lines[i]);
	free(l->lines);
	l->lines = NULL;
	l->n = 0;
}
