/*
 * An FXT file read as it grows (--follow: formats/load_grow.c and
 * formats/fxt/fxt_grow.c). The file is written a record at a time, and
 * again with each record cut in two (its header, then the rest); after
 * each write it is read on from where the last read stopped, and that
 * trace must be the one a whole read of the file as it is then gives
 * (load_trace with --follow's options): the same functions, processes,
 * tracks and their slices, instants, samples and slice args, markers,
 * flows, logs, args, counts and diagnostics (strings compared by their
 * text: a read that goes on meets them in another order). The calls
 * still open run up to now, the newest time of any thread, in both.
 *
 * With -n before a file, it must be read on at every write, never again
 * from its start (its threads' events come in time order). With -r, the
 * files after it are read with the reader's state written as bytes and
 * made again after each read (load_grow_reload), as a run that finds it
 * in the trace's index does: the reads must be the same.
 *
 * Usage: fxt_grow [-r] [[-n] FILE]...  (default: full.fxt and full-be.fxt of
 * $TTV_SRCDIR/tests/data/fxt; fxt_grow.sh gives it the writer's too)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "load_grow.h"
#include "xalloc.h"

static int failures;
static const char *what;	/* the file and cut, for messages */
static const char *source;	/* the file written */
static bool reload;		/* -r */

#define CHECK(cond, ...) do {                                             \
	if (!(cond)) {                                                        \
		if (failures++ < 20) {                                            \
			fprintf(stderr, "FAIL %s: ", what);                           \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
		}                                                                 \
		return;                                                           \
	}                                                                     \
} while (0)

static bool
same_str(const struct trace *a, str_id x, const struct trace *b, str_id y)
{
	return strcmp(trace_str(a, x), trace_str(b, y)) == 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The diagnostics, in order of text: a read that goes on says what the
 * scan of each piece finds before what its events do. */
static void
same_diags(const struct trace *a, const struct trace *b)
{
	CHECK(a->ndiags == b->ndiags, "%zu diagnostics, want %zu", a->ndiags,
	    b->ndiags);
	char **x = xreallocarray(NULL, a->ndiags + 1, sizeof *x);
	char **y = xreallocarray(NULL, a->ndiags + 1, sizeof *y);
	for (size_t i = 0; i < a->ndiags; i++) {
		x[i] = a->diags[i].text;
		y[i] = b->diags[i].text;
	}
	qsort(x, a->ndiags, sizeof *x, cmp_str);
	qsort(y, a->ndiags, sizeof *y, cmp_str);
	size_t i;
	for (i = 0; i < a->ndiags; i++)
		if (strcmp(x[i], y[i]) != 0)
			break;
	bool same = i == a->ndiags;
	const char *xi = same ? "" : x[i], *yi = same ? "" : y[i];
	free(x);
	free(y);
	CHECK(same, "diagnostic \"%s\", want \"%s\"", xi, yi);
}

static void
same_track(const struct trace *a, const struct trace *b, uint32_t k)
{
	const struct track *x = &a->tracks[k], *y = &b->tracks[k];

	CHECK(x->kind == y->kind && x->process == y->process &&
	    x->tid == y->tid && same_str(a, x->name, b, y->name),
	    "track %u: not the same track", k);
	CHECK(x->first == y->first && x->last == y->last,
	    "track %u: times %" PRId64 "..%" PRId64 ", want %" PRId64 "..%"
	    PRId64, k, x->first, x->last, y->first, y->last);
	CHECK(x->ndepth == y->ndepth, "track %u: %u levels, want %u", k,
	    x->ndepth, y->ndepth);
	for (uint32_t d = 0; d < x->ndepth; d++) {
		const struct depth_level *l = &x->depth[d], *m = &y->depth[d];
		CHECK(l->len == m->len, "track %u depth %u: %zu slices, want "
		    "%zu", k, d, l->len, m->len);
		for (size_t i = 0; i < l->len; i++)
			CHECK(l->slices[i].start == m->slices[i].start &&
			    level_dur(l, i) == level_dur(m, i) &&
			    l->slices[i].func == m->slices[i].func &&
			    l->slices[i].flags == m->slices[i].flags,
			    "track %u depth %u slice %zu: %" PRId64 " +%" PRId64
			    " flags %u, want %" PRId64 " +%" PRId64 " flags %u",
			    k, d, i, l->slices[i].start, level_dur(l, i),
			    l->slices[i].flags, m->slices[i].start,
			    level_dur(m, i), m->slices[i].flags);
	}
	CHECK(x->ninstants == y->ninstants, "track %u: %zu instants, want %zu",
	    k, x->ninstants, y->ninstants);
	for (size_t i = 0; i < x->ninstants; i++)
		CHECK(x->instants[i].t == y->instants[i].t &&
		    x->instants[i].func == y->instants[i].func &&
		    x->instants[i].args == y->instants[i].args,
		    "track %u instant %zu", k, i);
	CHECK(x->nsamples == y->nsamples, "track %u: %zu samples, want %zu",
	    k, x->nsamples, y->nsamples);
	for (size_t i = 0; i < x->nsamples; i++)
		CHECK(x->samples[i].t == y->samples[i].t &&
		    x->samples[i].value == y->samples[i].value,
		    "track %u sample %zu", k, i);
	CHECK(x->nslice_args == y->nslice_args, "track %u: %zu slice args, "
	    "want %zu", k, x->nslice_args, y->nslice_args);
	for (size_t i = 0; i < x->nslice_args; i++)
		CHECK(memcmp(&x->slice_args[i], &y->slice_args[i],
		    sizeof x->slice_args[i]) == 0, "track %u slice args %zu",
		    k, i);
}

static void
same_trace(const struct trace *a, const struct trace *b)
{
	CHECK(a->first == b->first && a->last == b->last,
	    "times %" PRId64 "..%" PRId64 ", want %" PRId64 "..%" PRId64,
	    a->first, a->last, b->first, b->last);
	CHECK(a->ticks_per_second == b->ticks_per_second, "tick rate");
	CHECK(strcmp(a->byte_order, b->byte_order) == 0, "byte order");
	CHECK(a->nfuncs == b->nfuncs, "%u functions, want %u", a->nfuncs,
	    b->nfuncs);
	for (uint32_t i = 0; i < a->nfuncs; i++)
		CHECK(same_str(a, a->funcs[i].name, b, b->funcs[i].name) &&
		    same_str(a, a->funcs[i].category, b, b->funcs[i].category),
		    "function %u: %s, want %s", i, trace_func_name(a, i),
		    trace_func_name(b, i));
	CHECK(a->nprocesses == b->nprocesses, "%u processes, want %u",
	    a->nprocesses, b->nprocesses);
	for (uint32_t i = 0; i < a->nprocesses; i++)
		CHECK(a->processes[i].pid == b->processes[i].pid &&
		    same_str(a, a->processes[i].name, b, b->processes[i].name),
		    "process %u", i);
	CHECK(a->ntracks == b->ntracks, "%u tracks, want %u", a->ntracks,
	    b->ntracks);
	for (uint32_t k = 0; k < a->ntracks; k++)
		same_track(a, b, k);
	CHECK(a->nmarkers == b->nmarkers, "%zu markers, want %zu",
	    a->nmarkers, b->nmarkers);
	for (size_t i = 0; i < a->nmarkers; i++)
		CHECK(a->markers[i].t == b->markers[i].t &&
		    a->markers[i].kind == b->markers[i].kind &&
		    a->markers[i].track == b->markers[i].track &&
		    same_str(a, a->markers[i].text, b, b->markers[i].text),
		    "marker %zu", i);
	CHECK(a->nflows == b->nflows, "%zu flows, want %zu", a->nflows,
	    b->nflows);
	for (size_t i = 0; i < a->nflows; i++)
		CHECK(memcmp(&a->flows[i], &b->flows[i], sizeof a->flows[i]) == 0,
		    "flow %zu", i);
	CHECK(a->nlogs == b->nlogs, "%zu logs, want %zu", a->nlogs, b->nlogs);
	for (size_t i = 0; i < a->nlogs; i++)
		CHECK(a->logs[i].t == b->logs[i].t &&
		    a->logs[i].track == b->logs[i].track &&
		    same_str(a, a->logs[i].text, b, b->logs[i].text),
		    "log %zu", i);
	CHECK(a->nargs == b->nargs, "%zu args, want %zu", a->nargs, b->nargs);
	for (size_t i = 0; i < a->nargs; i++)
		CHECK(same_str(a, a->args[i].name, b, b->args[i].name) &&
		    a->args[i].type == b->args[i].type &&
		    (a->args[i].type == ARG_STR ?
		    same_str(a, a->args[i].v.s, b, b->args[i].v.s) :
		    a->args[i].v.u == b->args[i].v.u), "arg %zu", i);
	CHECK(a->nrecords == b->nrecords, "%zu kinds counted, want %zu",
	    a->nrecords, b->nrecords);
	for (size_t i = 0; i < a->nrecords; i++)
		CHECK(strcmp(a->records[i].kind, b->records[i].kind) == 0 &&
		    a->records[i].count == b->records[i].count,
		    "%s: %" PRIu64 ", want %s: %" PRIu64, a->records[i].kind,
		    a->records[i].count, b->records[i].kind,
		    b->records[i].count);
	CHECK(a->nmeta == b->nmeta, "%zu metadata, want %zu", a->nmeta,
	    b->nmeta);
	same_diags(a, b);
}

/* A call still open at the end runs to now: the trace's last time
 * (the newest of any thread). */
static void
open_to_now(const struct trace *t)
{
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		if (tr->kind != TRACK_THREAD)
			continue;
		/* (deeper, an open call may be inside a complete event,
		 * and end with it) */
		for (uint32_t d = 0; d < tr->ndepth && d < 1; d++) {
			const struct depth_level *l = &tr->depth[d];
			for (size_t i = 0; i < l->len; i++)
				CHECK(!(l->slices[i].flags & SLICE_UNTERMINATED) ||
				    level_end(l, i) >= t->last,
				    "track %u depth %u slice %zu: open, ends at "
				    "%" PRId64 ", before now (%" PRId64 ")", k, d,
				    i, level_end(l, i), t->last);
		}
	}
}

/* The ends of the whole records of data. */
static size_t
record_ends(const unsigned char *data, size_t n, size_t **ends)
{
	bool big = n >= 8 && data[0] == 0x00 && data[7] == 0x10;
	size_t off = 0, k = 0;

	*ends = xreallocarray(NULL, n / 8 + 1, sizeof **ends);
	while (n - off >= 8) {
		uint64_t h = 0;
		for (int i = 0; i < 8; i++)
			h = big ? h << 8 | data[off + (size_t)i] :
			    h | (uint64_t)data[off + (size_t)i] << (8 * i);
		uint64_t words = (h & 15) == 15 ? (h >> 4) & 0xffffffffu :
		    (h >> 4) & 0xfff;
		if (words == 0 || words > (n - off) / 8)
			break;
		off += words * 8;
		(*ends)[k++] = off;
	}
	return k;
}

static void
append(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0) {
			perror("write");
			exit(2);
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Writes data to path record by record (halved: each record in two
 * pieces), reading on after each write. */
static void
grow(const char *path, const unsigned char *data, size_t n, bool halved,
    bool on)
{
	struct load_options o = { .follow = true };
	size_t *ends, nrec = record_ends(data, n, &ends), done = 0;
	char buf[256];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	const struct reader *rd = load_grow_reader(path, "fxt");
	if (rd == NULL) {
		fprintf(stderr, "FAIL %s: not read as it grows\n", source);
		failures++;
		close(fd);
		free(ends);
		return;
	}
	if (reload && (rd->grow_save == NULL || rd->grow_load == NULL)) {
		fprintf(stderr, "FAIL %s: its state is not saved\n", source);
		failures++;
		close(fd);
		free(ends);
		return;
	}
	struct load_grow *g = load_grow_new(path, rd, &o);
	load_grow_reload(g, reload);
	for (size_t r = 0; r < nrec; r++) {
		size_t cut[2] = { done + (ends[r] - done) / 2, ends[r] };
		for (int c = halved ? 0 : 1; c < 2; c++) {
			append(fd, data + done, cut[c] - done);
			done = cut[c];
			snprintf(buf, sizeof buf, "%s, %s%zu bytes", source,
			    halved ? "halved records, " : "", done);
			what = buf;
			char *e1 = NULL, *e2 = NULL;
			struct trace *t = load_grow_read(g, &e1);
			struct trace *want = load_trace(path, "fxt", &o, &e2);
			if (t == NULL || want == NULL) {
				if (!(t == NULL && want == NULL) && failures++ < 20)
					fprintf(stderr, "FAIL %s: read: %s, want %s\n",
					    what, t ? "a trace" : e1,
					    want ? "a trace" : e2);
			} else {
				same_trace(t, want);
				open_to_now(t);
				open_to_now(want);
			}
			if (t != NULL)
				trace_free(t);
			if (want != NULL)
				trace_free(want);
			free(e1);
			free(e2);
		}
	}
	if (on && load_grow_restarts(g) != 0 && failures++ < 20)
		fprintf(stderr, "FAIL %s: read again from its start %" PRIu64
		    " times\n", source, load_grow_restarts(g));
	/* a trace in order keeps its state at every read */
	if (on && reload && load_grow_unsaved(g) != 0 && failures++ < 20)
		fprintf(stderr, "FAIL %s: no state kept %" PRIu64 " times\n",
		    source, load_grow_unsaved(g));
	printf("%s%s%s: %zu records, read again from the start %" PRIu64
	    " times\n", source, halved ? " (halved)" : "",
	    reload ? " (state made again)" : "", nrec, load_grow_restarts(g));
	load_grow_free(g);
	close(fd);
	free(ends);
}

static void
file(const char *src, bool on)
{
	FILE *f = fopen(src, "rb");
	unsigned char *data = NULL;
	size_t n = 0, cap = 0, r;

	source = src;
	if (f == NULL) {
		perror(src);
		exit(2);
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			data = xrealloc(data, cap);
		}
		r = fread(data + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	char path[] = "/tmp/fxt_grow.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	close(fd);
	grow(path, data, n, false, on);
	grow(path, data, n, true, on);
	unlink(path);
	free(data);
}

int
main(int argc, char **argv)
{
	const char *src = getenv("TTV_SRCDIR");
	char buf[4096];
	bool on = false;

	if (argc == 1) {
		snprintf(buf, sizeof buf, "%s/tests/data/fxt/full.fxt",
		    src ? src : ".");
		file(buf, false);
		snprintf(buf, sizeof buf, "%s/tests/data/fxt/full-be.fxt",
		    src ? src : ".");
		file(buf, false);
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0) {
			on = true;
			continue;
		}
		if (strcmp(argv[i], "-r") == 0) {
			reload = true;
			continue;
		}
		file(argv[i], on);
		on = false;
	}
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
