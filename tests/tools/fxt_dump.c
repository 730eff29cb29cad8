/*
 * fxt_dump: prints what the model holds of an FXT trace as one fact per
 * line, in the vocabulary of the generator summaries of
 * ../shared/traces/fxt (*.summary.json), so that fxt_conformance.sh and
 * fxt_fixtures.sh can compare the two with diff. With --cpu it also prints
 * the CPU lanes and flows in detail (for the project's own fixtures).
 *
 * Usage: fxt_dump [--cpu] TRACE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "model.h"
#include "xalloc.h"

/* Record kinds of the reader (fxt.c) by FXT record type. */
static const struct { const char *kind; int type; } kinds[] = {
	{ "magic number", 0 }, { "provider info", 0 },
	{ "provider section", 0 }, { "provider event", 0 },
	{ "trace info (unknown type)", 0 }, { "metadata (unknown type)", 0 },
	{ "initialization", 1 },
	{ "string", 2 }, { "string (index 0, ignored)", 2 },
	{ "thread", 3 }, { "thread (index 0, ignored)", 3 },
	{ "instant event", 4 }, { "counter event", 4 },
	{ "duration begin", 4 }, { "duration end", 4 },
	{ "duration complete", 4 }, { "async begin", 4 },
	{ "async instant", 4 }, { "async end", 4 }, { "flow begin", 4 },
	{ "flow step", 4 }, { "flow end", 4 }, { "event (unknown type)", 4 },
	{ "blob", 5 }, { "userspace object", 6 }, { "kernel object", 7 },
	{ "context switch (legacy)", 8 }, { "context switch", 8 },
	{ "thread wakeup", 8 }, { "scheduling (unknown type)", 8 },
	{ "log", 9 }, { "large blob", 15 },
	{ "large record (unknown type)", 15 },
	{ "unknown record type 10", 10 }, { "unknown record type 11", 11 },
	{ "unknown record type 12", 12 }, { "unknown record type 13", 13 },
	{ "unknown record type 14", 14 },
};

static uint64_t
count_of(const struct trace *t, const char *kind)
{
	size_t i;

	for (i = 0; i < t->nrecords; i++)
		if (strcmp(t->records[i].kind, kind) == 0)
			return t->records[i].count;
	return 0;
}

static int64_t
pid_of(const struct trace *t, const struct track *tr)
{
	return t->processes[tr->process].pid;
}

/* Per-name sums of one track: a small linear table is enough here. */
struct by_name {
	const char *name;
	int64_t dur;
	uint64_t count;
};

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct by_name *)a)->name,
	    ((const struct by_name *)b)->name);
}

static void
dump_thread(const struct trace *t, const struct track *tr)
{
	struct by_name *bn = NULL;
	size_t nbn = 0, i, j;
	uint64_t slices = 0, open = 0;
	uint32_t d, maxd = 0;
	char key[64];

	snprintf(key, sizeof key, "%" PRId64 "/%" PRId64, pid_of(t, tr),
	    tr->tid);
	for (d = 0; d < tr->ndepth; d++) {
		const struct depth_level *l = &tr->depth[d];
		if (l->len > 0)
			maxd = d + 1;
		for (i = 0; i < l->len; i++) {
			const struct slice *s = &l->slices[i];
			const char *name = trace_func_name(t, s->func);
			if (s->flags & SLICE_UNTERMINATED) {
				open++;
				continue;
			}
			slices++;
			for (j = 0; j < nbn; j++)
				if (strcmp(bn[j].name, name) == 0)
					break;
			if (j == nbn) {
				bn = realloc(bn, (nbn + 1) * sizeof *bn);
				bn[nbn].name = name;
				bn[nbn].dur = 0;
				bn[nbn].count = 0;
				nbn++;
			}
			bn[j].dur += level_dur(l, i);
			bn[j].count++;
		}
	}
	printf("thread %s slices %" PRIu64 "\n", key, slices);
	printf("thread %s max_depth %" PRIu32 "\n", key, maxd);
	printf("thread %s instants %zu\n", key, tr->ninstants);
	printf("thread %s open_at_end %" PRIu64 "\n", key, open);
	if (nbn > 0)
		xqsort(bn, nbn, sizeof *bn, cmp_name);
	for (j = 0; j < nbn; j++) {
		printf("thread %s dur %s %" PRId64 "\n", key, bn[j].name,
		    bn[j].dur);
		printf("thread %s count %s %" PRIu64 "\n", key, bn[j].name,
		    bn[j].count);
	}
	free(bn);
}

/* CPU lanes, flows and args in detail (the project's own fixtures). */
static void
dump_extra(const struct trace *t)
{
	uint32_t i, d;
	size_t k, n;

	for (i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		char buf[64];
		const char *label;
		if (tr->kind != TRACK_CPU && tr->kind != TRACK_ASYNC)
			continue;
		if (tr->kind == TRACK_ASYNC)
			snprintf(buf, sizeof buf, "%s pid %" PRId64 " id %" PRId64,
			    trace_str(t, tr->name), pid_of(t, tr), tr->tid);
		label = tr->kind == TRACK_ASYNC ? buf :
		    track_label(t, tr, buf, sizeof buf);
		for (d = 0; d < tr->ndepth; d++)
			for (k = 0; k < tr->depth[d].len; k++) {
				const struct slice *s = &tr->depth[d].slices[k];
				printf("%s %s depth %u %" PRId64 " +%" PRId64
				    " %s%s\n", tr->kind == TRACK_CPU ? "cpu" :
				    "async", label, d, s->start,
				    level_dur(&tr->depth[d], k),
				    trace_func_name(t, s->func),
				    s->flags & SLICE_UNTERMINATED ?
				    " (unterminated)" : "");
			}
		for (k = 0; k < tr->ninstants; k++)
			printf("%s %s instant %" PRId64 " %s\n",
			    tr->kind == TRACK_CPU ? "cpu" : "async", label,
			    tr->instants[k].t,
			    trace_func_name(t, tr->instants[k].func));
	}
	for (k = 0; k < t->nflows; k++) {
		const struct flow *f = &t->flows[k];
		printf("flow %" PRIu64 " %s@%" PRId64 " -> %s@%" PRId64 "\n",
		    f->id, trace_func_name(t, trace_slice(t, f->from)->func),
		    trace_slice(t, f->from)->start,
		    trace_func_name(t, trace_slice(t, f->to)->func),
		    trace_slice(t, f->to)->start);
	}
	/* Args of every slice and instant of thread tracks. */
	for (i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		for (k = 0; k < tr->nslice_args; k++) {
			const struct slice_args *sa = &tr->slice_args[k];
			const struct arg *a = trace_args(t, sa->args, &n);
			const struct slice *s =
			    &tr->depth[sa->depth].slices[sa->index];
			for (size_t m = 0; m < n; m++) {
				printf("arg %s %s=", trace_func_name(t, s->func),
				    trace_str(t, a[m].name));
				switch (a[m].type) {
				case ARG_NULL: printf("null"); break;
				case ARG_BOOL: printf("bool:%s", a[m].v.u ?
				    "true" : "false"); break;
				case ARG_I64: printf("i64:%" PRId64, a[m].v.i); break;
				case ARG_U64: printf("u64:%" PRIu64, a[m].v.u); break;
				case ARG_F64: printf("f64:%g", a[m].v.f); break;
				case ARG_STR: printf("str:%s",
				    trace_str(t, a[m].v.s)); break;
				case ARG_PTR: printf("ptr:0x%" PRIx64, a[m].v.u); break;
				case ARG_KOID: printf("koid:%" PRIu64, a[m].v.u); break;
				default: printf("?"); break;
				}
				printf("\n");
			}
		}
	}
}

int
main(int argc, char **argv)
{
	struct load_options opts = { 0 };
	struct trace *t;
	char *err = NULL;
	bool extra = false;
	uint64_t by_type[16] = { 0 }, async_slices = 0, async_open = 0;
	uint64_t async_instants = 0, samples = 0, instants = 0, chains = 0;
	uint32_t i, d;
	size_t k, j;

	if (argc > 1 && strcmp(argv[1], "--cpu") == 0) {
		extra = true;
		argc--;
		argv++;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: fxt_dump [--cpu] TRACE\n");
		return 2;
	}
	t = load_trace(argv[1], "fxt", &opts, &err);
	if (t == NULL) {
		fprintf(stderr, "fxt_dump: %s: %s\n", argv[1], err);
		return 1;
	}
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		by_type[kinds[k].type] += count_of(t, kinds[k].kind);
	for (k = 0; k < 16; k++)
		if (by_type[k] != 0)
			printf("records %zu %" PRIu64 "\n", k, by_type[k]);
	printf("event_records %" PRIu64 "\n", by_type[4]);
	printf("ignored_table_records %" PRIu64 "\n",
	    count_of(t, "string (index 0, ignored)") +
	    count_of(t, "thread (index 0, ignored)"));
	printf("skipped_args %" PRIu64 "\n",
	    count_of(t, "argument of unknown type (skipped)"));
	printf("blobs %" PRIu64 "\n", count_of(t, "blob"));
	printf("large_blobs %" PRIu64 "\n", count_of(t, "large blob"));
	printf("context_switches %" PRIu64 "\n", count_of(t, "context switch"));
	printf("legacy_context_switches %" PRIu64 "\n",
	    count_of(t, "context switch (legacy)"));
	printf("wakeups %" PRIu64 "\n", count_of(t, "thread wakeup"));
	printf("kernel_objects %" PRIu64 "\n", count_of(t, "kernel object"));
	printf("userspace_objects %" PRIu64 "\n",
	    count_of(t, "userspace object"));
	printf("counters non_numeric_args %" PRIu64 "\n",
	    count_of(t, "non-numeric counter argument (dropped)"));

	for (i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		switch (tr->kind) {
		case TRACK_THREAD:
			instants += tr->ninstants;
			if (tr->nslices > 0 || tr->ninstants > 0)
				dump_thread(t, tr);
			if (tr->name != 0)
				printf("thread_name %" PRId64 " %s\n", tr->tid,
				    trace_str(t, tr->name));
			break;
		case TRACK_ASYNC:
			async_instants += tr->ninstants;
			for (d = 0; d < tr->ndepth; d++)
				for (k = 0; k < tr->depth[d].len; k++) {
					if (tr->depth[d].slices[k].flags &
					    SLICE_UNTERMINATED)
						async_open++;
					else
						async_slices++;
				}
			break;
		case TRACK_COUNTER:
			samples += tr->nsamples;
			printf("counters series %s %zu\n",
			    trace_str(t, tr->name), tr->nsamples);
			break;
		case TRACK_CPU:
			break;
		}
	}
	printf("instants %" PRIu64 "\n", instants);
	printf("async slices %" PRIu64 "\n", async_slices);
	printf("async instants %" PRIu64 "\n", async_instants);
	printf("async open_at_end %" PRIu64 "\n", async_open);
	printf("counters samples %" PRIu64 "\n", samples);
	printf("flows arrows %zu\n", t->nflows);
	/* A chain is a flow id (the generator never reuses one). */
	for (k = 0; k < t->nflows; k++) {
		for (j = 0; j < k; j++)
			if (t->flows[j].id == t->flows[k].id)
				break;
		if (j == k)
			chains++;
	}
	printf("flows chains %" PRIu64 "\n", chains);
	for (k = 0; k < t->nlogs; k++) {
		const struct track *tr = &t->tracks[t->logs[k].track];
		printf("log %" PRId64 " %" PRId64 "/%" PRId64 " %s\n",
		    t->logs[k].t, pid_of(t, tr), tr->tid,
		    trace_str(t, t->logs[k].text));
	}
	for (i = 0; i < t->nprocesses; i++)
		if (t->processes[i].pid >= 0 && t->processes[i].name != 0)
			printf("process %" PRId64 " %s\n", t->processes[i].pid,
			    trace_str(t, t->processes[i].name));
	for (k = 0; k < t->nmarkers; k++)
		if (t->markers[k].kind == MARKER_DROPPED)
			printf("provider_event %" PRId64 "\n", t->markers[k].value);
	for (k = 0; k < t->nmeta; k++)
		if (strncmp(t->meta_keys[k], "provider ", 9) == 0)
			printf("%s: %s\n", t->meta_keys[k], t->meta_values[k]);
	for (k = 0; k < t->ndiags; k++)
		printf("diag %s %s\n", t->diags[k].level == DIAG_ERROR ?
		    "error" : "warning", t->diags[k].text);
	if (extra)
		dump_extra(t);
	trace_free(t);
	free(err);
	return 0;
}
