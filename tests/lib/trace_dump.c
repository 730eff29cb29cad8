/*
 * All a trace holds that a reader gives, as text, for tests that compare
 * two reads of the same input (trace_dump.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_dump.h"
#include "xalloc.h"

static void
dump_args(FILE *f, const struct trace *t, args_id a)
{
	size_t n;
	const struct arg *v = trace_args(t, a, &n);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, " %s=", trace_str(t, v[i].name));
		if (v[i].type == ARG_STR)
			fprintf(f, "\"%s\"", trace_str(t, v[i].v.s));
		else
			fprintf(f, "%u:%" PRIu64, v[i].type, v[i].v.u);
	}
}

static void
dump_track(FILE *f, const struct trace *t, uint32_t k)
{
	const struct track *tr = &t->tracks[k];
	fprintf(f, "track %u: kind %d process %u tid %" PRId64 " \"%s\" %"
	    PRId64 "..%" PRId64 "\n", k, (int)tr->kind, tr->process, tr->tid,
	    trace_str(t, tr->name), tr->first, tr->last);
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		const struct depth_level *l = &tr->depth[d];
		for (size_t i = 0; i < l->len; i++) {
			struct slice_ref r = { k, d, (uint32_t)i };
			fprintf(f, "  slice %u.%zu: %" PRId64 " +%" PRId64
			    " %s flags %u weight %u\n", d, i, l->slices[i].start,
			    level_dur(l, i), trace_func_name(t, l->slices[i].func),
			    l->slices[i].flags, trace_slice_weight(t, r));
		}
	}
	for (size_t i = 0; i < tr->ninstants; i++) {
		fprintf(f, "  instant %" PRId64 " %s", tr->instants[i].t,
		    trace_func_name(t, tr->instants[i].func));
		dump_args(f, t, tr->instants[i].args);
		fputc('\n', f);
	}
	for (size_t i = 0; i < tr->nsamples; i++)
		fprintf(f, "  sample %" PRId64 " %.17g\n", tr->samples[i].t,
		    tr->samples[i].value);
	for (size_t i = 0; i < tr->nslice_args; i++) {
		fprintf(f, "  slice args %u.%u", tr->slice_args[i].depth,
		    tr->slice_args[i].index);
		dump_args(f, t, tr->slice_args[i].args);
		fputc('\n', f);
	}
}

char *
trace_dump(const struct trace *t)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	if (f == NULL) {
		perror("open_memstream");
		exit(2);
	}
	fprintf(f, "%s %s %s %.17g wall %" PRId64 " times %" PRId64 "..%"
	    PRId64 " complete %" PRId64 "\n", t->format ? t->format : "-",
	    t->version ? t->version : "-", t->byte_order ? t->byte_order : "-",
	    t->ticks_per_second, t->wall_origin, t->first, t->last,
	    t->complete_until);
	for (uint32_t i = 0; i < t->nfuncs; i++)
		fprintf(f, "func %u: \"%s\" \"%s\" %" PRId64 "\n", i,
		    trace_str(t, t->funcs[i].name),
		    trace_str(t, t->funcs[i].category), t->funcs[i].source_id);
	for (uint32_t i = 0; i < t->nprocesses; i++)
		fprintf(f, "process %u: %" PRId64 " \"%s\"\n", i,
		    t->processes[i].pid, trace_str(t, t->processes[i].name));
	for (uint32_t k = 0; k < t->ntracks; k++)
		dump_track(f, t, k);
	for (size_t i = 0; i < t->nmarkers; i++)
		fprintf(f, "marker %" PRId64 " kind %u track %u value %" PRId64
		    " \"%s\"\n", t->markers[i].t, t->markers[i].kind,
		    t->markers[i].track, t->markers[i].value,
		    trace_str(t, t->markers[i].text));
	for (size_t i = 0; i < t->nflows; i++)
		fprintf(f, "flow %" PRIu64 "\n", t->flows[i].id);
	for (size_t i = 0; i < t->nlogs; i++)
		fprintf(f, "log %" PRId64 " track %u \"%s\"\n", t->logs[i].t,
		    t->logs[i].track, trace_str(t, t->logs[i].text));
	for (size_t i = 0; i < t->nrecords; i++)
		fprintf(f, "count %s %" PRIu64 "\n", t->records[i].kind,
		    t->records[i].count);
	for (size_t i = 0; i < t->nmeta; i++)
		fprintf(f, "meta %s = %s\n", t->meta_keys[i], t->meta_values[i]);
	for (size_t i = 0; i < t->ndiags; i++)
		fprintf(f, "diag %d %s\n", (int)t->diags[i].level,
		    t->diags[i].text);
	fprintf(f, "diags dropped %" PRIu64 "\n", t->ndiags_dropped);
	fclose(f);
	return s;
}

char *
trace_dump_diff(const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return NULL;
	size_t line = 1;
	const char *g = got, *w = want;
	for (;;) {
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		size_t gn = ge ? (size_t)(ge - g) : strlen(g);
		size_t wn = we ? (size_t)(we - w) : strlen(w);
		if (gn != wn || memcmp(g, w, gn) != 0 || !ge || !we)
			return xasprintf("line %zu of the trace: \"%.*s\", "
			    "want \"%.*s\"", line, (int)gn, g, (int)wn, w);
		g = ge + 1;
		w = we + 1;
		line++;
	}
}
