/*
 * The CoreProfiler reader's state as bytes (reader.h, grow_save and
 * grow_load), as a trace's index keeps it: saved partway through a log,
 * it must be written (grow_save says true), made again whole, and
 * written again the same. Damaged (run it under ASan/UBSan too), it must
 * give NULL or a state that reads the rest of the log and ends: cut
 * short at every length (always NULL: every byte is needed), each byte
 * overwritten with values that matter to numbers and counts, one bit
 * flipped at each offset, random bits flipped (the sweep of
 * tests/lib/sweep.h). Never a crash, a read out of bounds, or an
 * allocation from a count the bytes cannot hold.
 *
 * The states: the log of coreprofiler_edge.h at each of three lines, and
 * the fixtures tiny.tracelog and malformed.tracelog at half their lines.
 *
 * Usage: coreprofiler_state  (the fixtures of $TTV_SRCDIR/tests/data)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coreprofiler_edge.h"
#include "load.h"
#include "sweep.h"
#include "xalloc.h"

/* A log read to a line end, its state saved: what each damaged copy of
 * the bytes is made again against. */
struct saved {
	const struct reader *rd;
	struct load_options o;
	struct mapped_file whole;	/* the log */
	struct mapped_file part;	/* its first `cut` bytes */
	size_t cut;
	struct builder *b;		/* as the state left it */
	struct blob bytes;
	unsigned long made;	/* damaged copies made again */
};

/* The state made again from p[0, n) against a copy of the builder;
 * when it is made, the rest of the log read on with it (to *to) and
 * ended. Whether it was made. */
static bool
load_and_go_on(struct saved *sv, const unsigned char *p, size_t n,
    size_t *to)
{
	struct builder *b = builder_copy(sv->b);
	struct load_ctx ctx = { .path = "state", .file = &sv->part, .b = b,
	    .opts = &sv->o };
	struct blob_in in;
	blob_in_init(&in, p, n);
	void *st = sv->rd->grow_load(&ctx, &in);
	if (st == NULL) {
		builder_free(b);
		return false;
	}
	ctx.file = &sv->whole;
	*to = sv->rd->grow_feed(st, &ctx, sv->cut);
	sv->rd->grow_end(st, &ctx);
	sv->rd->grow_free(st);
	trace_free(builder_finish(b));
	return true;
}

static void
check(struct sweep *s, const unsigned char *p, size_t n)
{
	struct saved *sv = s->arg;
	size_t to;
	sv->made += load_and_go_on(sv, p, n, &to);
}

static void
check_cut(struct sweep *s, const unsigned char *p, size_t n)
{
	size_t to;
	if (n < s->n && load_and_go_on(s->arg, p, n, &to))
		sweep_fail(s, "a state cut short was made again");
}

/* The state of the log data after its first `lines` lines. */
static void
save(struct saved *sv, const char *path, size_t lines)
{
	char *err = NULL;
	memset(sv, 0, sizeof *sv);
	sv->rd = load_reader_named("coreprofiler");
	sv->o.follow = true;
	if (mapfile_open(path, &sv->whole, &err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(2);
	}
	const char *d = (const char *)sv->whole.data;
	for (size_t l = 0; l < lines && sv->cut < sv->whole.size; l++) {
		const char *nl = memchr(d + sv->cut, '\n', sv->whole.size - sv->cut);
		sv->cut = nl ? (size_t)(nl - d) + 1 : sv->whole.size;
	}
	sv->part = sv->whole;
	sv->part.size = sv->cut;
	sv->b = builder_new(path);
	builder_open_to_now(sv->b);
	struct load_ctx ctx = { .path = path, .file = &sv->part, .b = sv->b,
	    .opts = &sv->o };
	if (sv->rd->grow_save == NULL || sv->rd->grow_load == NULL) {
		sweep_fail(NULL, "%s: the reader's state cannot be kept", path);
		return;
	}
	void *st = sv->rd->grow_begin(&ctx);
	if (sv->rd->grow_feed(st, &ctx, 0) != sv->cut)
		sweep_fail(NULL, "%s: not read to line %zu", path, lines);
	if (!sv->rd->grow_save(st, &sv->bytes))
		sweep_fail(NULL, "%s: the state was not written", path);
	sv->rd->grow_free(st);

	/* made again whole, it writes the same bytes */
	struct blob_in in;
	blob_in_init(&in, sv->bytes.data, sv->bytes.len);
	st = sv->rd->grow_load(&ctx, &in);
	if (st == NULL || in.bad || in.p != in.end) {
		sweep_fail(NULL, "%s, line %zu: the state was not made again",
		    path, lines);
	} else {
		struct blob again = { 0 };
		sv->rd->grow_save(st, &again);
		if (again.len != sv->bytes.len ||
		    memcmp(again.data, sv->bytes.data, again.len) != 0)
			sweep_fail(NULL, "%s, line %zu: the state made again is "
			    "written otherwise", path, lines);
		blob_free(&again);
	}
	if (st != NULL)
		sv->rd->grow_free(st);
	free(err);
}

static void
unsave(struct saved *sv)
{
	blob_free(&sv->bytes);
	if (sv->b != NULL)
		builder_free(sv->b);
	mapfile_close(&sv->whole);
}

/* The damage sweep over the state of path after `lines` lines. */
static unsigned long
sweep_state(const char *path, const char *name, size_t lines)
{
	static const unsigned char vals[] = { 0x00, 0xff, 0x01, 0x7f, 0x80,
	    0xfe };
	struct saved sv;
	struct sweep s;

	save(&sv, path, lines);
	if (sv.bytes.len == 0) {
		unsave(&sv);
		return 0;
	}
	const char *tmp = sweep_memfile(sv.bytes.data, sv.bytes.len);
	sweep_open(&s, tmp, check_cut, &sv);
	char *what = xasprintf("%s, line %zu", name, lines);
	s.name = what;
	size_t to = 0;
	if (!load_and_go_on(&sv, s.orig, s.n, &to) || to != sv.whole.size)
		sweep_fail(&s, "the whole state did not read the log on to its "
		    "end (%zu of %zu bytes)", to, sv.whole.size);
	sweep_cuts(&s, NULL);
	s.check = check;
	sweep_bytes(&s, vals, sizeof vals, 2, NULL);
	sweep_flip_each(&s, NULL);
	sweep_flips(&s, 1000, 8, 0x9e3779b97f4a7c15ull);
	unsigned long runs = s.runs + 1;
	printf("%s: a state of %zu bytes, %lu damaged copies, %lu made "
	    "again\n", what, s.n, runs - 1, sv.made);
	sweep_close(&s);
	free(what);
	unsave(&sv);
	return runs;
}

static size_t
count_lines(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	int c;
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int
main(void)
{
	static const char *const fixtures[] = {
		"coreprofiler/tiny.tracelog",
		"coreprofiler/malformed.tracelog",
	};
	unsigned long runs = 0;

	/* the edge log from a file of its own: the sweep's is the state's */
	char edge[] = "/tmp/coreprofiler_state.XXXXXX";
	int fd = mkstemp(edge);
	if (fd < 0 || write(fd, cp_edge_log, sizeof cp_edge_log - 1) !=
	    (ssize_t)(sizeof cp_edge_log - 1)) {
		perror(edge);
		exit(2);
	}
	close(fd);
	/* open JIT intervals and frames, then a pause and a GC open too,
	 * then all but the last line */
	size_t lines[] = { 18, 27, 41 };
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		runs += sweep_state(edge, "the edge log", lines[i]);
	unlink(edge);
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		char *path = sweep_fixture(fixtures[i]);
		runs += sweep_state(path, fixtures[i], count_lines(path) / 2);
		free(path);
	}
	printf("%lu states, %d failures\n", runs,
	    sweep_failures());
	return sweep_failures() ? 1 : 0;
}
