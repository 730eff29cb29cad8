/*
 * A CoreProfiler log read as it grows, its reader's state written as
 * bytes and made again after every read (load_grow_reload), as a run
 * that finds it in the trace's index does: each read must give the trace
 * a whole read of the log as it is then gives (load_trace with --follow's
 * options). The log is written a line at a time, a line in two pieces
 * (the first not yet whole, left for the next read), and in pieces cut
 * anywhere; the logs are the project's fixtures and one with what they
 * do not all hold (coreprofiler_edge.h).
 *
 * The traces are compared as text (trace_dump.h).
 *
 * Usage: coreprofiler_grow  (the fixtures of $TTV_SRCDIR/tests/data; the
 * larger ones line by line too with TTV_FULL_SWEEP=1)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coreprofiler_edge.h"
#include "load.h"
#include "load_grow.h"
#include "sweep.h"
#include "trace_dump.h"
#include "xalloc.h"

static int failures;

#define FAIL(...) do {                                                    \
	if (failures++ < 20) {                                                \
		fprintf(stderr, "FAIL ");                                         \
		fprintf(stderr, __VA_ARGS__);                                     \
		fputc('\n', stderr);                                              \
	}                                                                     \
} while (0)

/* The first line where two dumps differ, said. */
static void
same_dump(const char *what, const char *got, const char *want)
{
	char *why = trace_dump_diff(got, want);
	if (why != NULL)
		FAIL("%s: %s", what, why);
	free(why);
}

/* ------------------------------------------------------------ growth */

/* Writes data to a new file up to each of the ncuts offsets in turn
 * (the last one its end), reading on after each write with the state
 * made again from its bytes. */
static void
grow(const char *name, const char *how, const char *data,
    const size_t *cuts, size_t ncuts)
{
	struct load_options o = { .follow = true };
	char path[] = "/tmp/coreprofiler_grow.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f == NULL) {
		perror("mkstemp");
		exit(2);
	}
	const struct reader *rd = load_grow_reader(path, "coreprofiler");
	/* without them the state would not be kept, and nothing tested */
	if (rd == NULL || rd->grow_save == NULL || rd->grow_load == NULL) {
		FAIL("%s: the reader's state cannot be kept", name);
		fclose(f);
		unlink(path);
		return;
	}
	struct load_grow *g = load_grow_new(path, rd, &o);
	load_grow_reload(g, true);
	size_t done = 0, reads = 0;
	for (size_t c = 0; c < ncuts; c++) {
		if (fwrite(data + done, 1, cuts[c] - done, f) != cuts[c] - done ||
		    fflush(f) != 0) {
			perror(path);
			exit(2);
		}
		done = cuts[c];
		char *what = xasprintf("%s, %s, %zu bytes", name, how, done);
		char *e1 = NULL, *e2 = NULL;
		struct trace *t = load_grow_read(g, &e1);
		struct trace *want = load_trace(path, "coreprofiler", &o, &e2);
		if (t == NULL || want == NULL) {
			/* nothing whole yet: neither has a trace */
			if (t != NULL || want != NULL)
				FAIL("%s: read: %s, want %s", what,
				    t ? "a trace" : e1, want ? "a trace" : e2);
		} else {
			char *x = trace_dump(t), *y = trace_dump(want);
			same_dump(what, x, y);
			free(x);
			free(y);
			reads++;
		}
		if (t != NULL)
			trace_free(t);
		if (want != NULL)
			trace_free(want);
		free(e1);
		free(e2);
		free(what);
	}
	/* a log is only appended to: every read went on from the last */
	if (load_grow_restarts(g) != 0)
		FAIL("%s, %s: read again from its start %" PRIu64 " times", name,
		    how, load_grow_restarts(g));
	printf("%s, %s: %zu reads\n", name, how, reads);
	load_grow_free(g);
	fclose(f);
	unlink(path);
}

/* The ends of the lines of data, and with halved the middle of each
 * line before its end. */
static size_t
line_cuts(const char *data, size_t n, bool halved, size_t **cuts)
{
	*cuts = xreallocarray(NULL, 2 * n + 1, sizeof **cuts);
	size_t k = 0, start = 0;
	for (size_t i = 0; i < n; i++)
		if (data[i] == '\n') {
			if (halved && i > start)
				(*cuts)[k++] = start + (i - start) / 2;
			(*cuts)[k++] = i + 1;
			start = i + 1;
		}
	if (k == 0 || (*cuts)[k - 1] != n)
		(*cuts)[k++] = n;
	return k;
}

/* pieces cuts spread evenly over n bytes, each moved back by a few
 * bytes that vary, so that they fall anywhere in a line; the last is the
 * end. n is much more than 64 bytes a piece. */
static size_t
piece_cuts(size_t n, size_t pieces, size_t **cuts)
{
	*cuts = xreallocarray(NULL, pieces, sizeof **cuts);
	for (size_t i = 0; i < pieces; i++)
		(*cuts)[i] = i + 1 == pieces ? n :
		    n / pieces * (i + 1) - (i * 37) % 61;
	return pieces;
}

/* The fixture at tests/data/rel, mapped (exits when it cannot be). */
static void
fixture(const char *rel, struct mapped_file *m)
{
	char *path = sweep_fixture(rel), *err = NULL;
	if (mapfile_open(path, m, &err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(2);
	}
	free(path);
}

/* A log line by line, and (halved) its lines cut in two. */
static void
by_lines(const char *name, const char *data, size_t n)
{
	size_t *cuts, k = line_cuts(data, n, false, &cuts);
	grow(name, "line by line", data, cuts, k);
	free(cuts);
	k = line_cuts(data, n, true, &cuts);
	grow(name, "lines cut in two", data, cuts, k);
	free(cuts);
}

int
main(void)
{
	static const char *const lined[] = { "coreprofiler/tiny.tracelog" };
	static const char *const pieced[] = {
		"coreprofiler/sampling.tracelog",
		"coreprofiler/instrumentation.tracelog",
		"coreprofiler/malformed.tracelog",
		"coreprofiler/malformed_instr.tracelog",
	};

	by_lines("the edge log", cp_edge_log, sizeof cp_edge_log - 1);
	for (size_t i = 0; i < sizeof lined / sizeof lined[0]; i++) {
		struct mapped_file m;
		fixture(lined[i], &m);
		by_lines(lined[i], (const char *)m.data, m.size);
		mapfile_close(&m);
	}
	for (size_t i = 0; i < sizeof pieced / sizeof pieced[0]; i++) {
		struct mapped_file m;
		size_t *cuts;
		fixture(pieced[i], &m);
		size_t k = piece_cuts(m.size, 97, &cuts);
		grow(pieced[i], "in 97 pieces", (const char *)m.data, cuts, k);
		free(cuts);
		/* a whole read at each line of thousands: a minute */
		if (sweep_full())
			by_lines(pieced[i], (const char *)m.data, m.size);
		mapfile_close(&m);
	}
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
