/*
 * ctf_malformed [SRCDIR]: the CTF reader on damaged copies of the
 * project's fixtures (tests/data/ctf): a data stream and the metadata
 * (plain TSDL text, packetized, and CTF 2's JSON) cut at every byte, and
 * single bit flips in
 * both (the sweep of tests/lib/sweep.h). Nothing may crash or hang (run
 * it under ASan/UBSan to check memory too); a damaged stream keeps every
 * event before the damage and reports where it is ("offset N"), damaged
 * metadata is refused with a position ("line L" or "offset N") or read as
 * far as it makes sense.
 *
 * By default the sweep takes a sample: the cuts at every length within
 * the first 96 bytes of each packet (header, context, first events) and
 * the 16 before it, at the start and the end of each file, and at every
 * 11th length in between; and 300 bit flips per fixture. TTV_FULL_SWEEP=1
 * cuts at every byte and flips 1500 bits per fixture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "sweep.h"
#include "xalloc.h"

static int failures;

#define CHECK(cond, ...) do {                                             \
	if (!(cond)) {                                                        \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                     \
		fputc('\n', stderr);                                              \
		failures++;                                                       \
	}                                                                     \
} while (0)

static void
spit(const char *dir, const char *name, const unsigned char *p, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	free(path);
}

static size_t
events(const struct trace *t)
{
	size_t n = trace_nslices(t);
	for (uint32_t i = 0; i < t->ntracks; i++)
		n += t->tracks[i].ninstants;
	return n;
}

static bool
has_position(const struct trace *t)
{
	for (size_t i = 0; i < t->ndiags; i++)
		if (strstr(t->diags[i].text, "offset ") ||
		    strstr(t->diags[i].text, "line "))
			return true;
	return false;
}

/* Loads dir; returns the number of slices and instants, or -1. */
static long
load(const char *dir, bool *errors, bool *positioned, char **why)
{
	char *err = NULL;
	struct trace *t = load_trace(dir, "ctf", NULL, &err);
	*why = err;
	if (t == NULL) {
		*errors = true;
		*positioned = err && (strstr(err, "offset ") || strstr(err, "line "));
		return -1;
	}
	long n = (long)events(t);
	*errors = t->has_errors;
	*positioned = has_position(t);
	trace_free(t);
	return n;
}

/* One file of a trace directory being damaged. */
struct target {
	const char *name;	/* the fixture */
	const char *dir;	/* the scratch trace */
	const char *file;	/* chan_0 or metadata */
	long full;		/* events of the intact trace */
	long prev;		/* events of the shorter cut */
};

/* Places where packets start: a packet magic (data or metadata, either
 * byte order) at any offset. A chance match in the data only adds to the
 * sample. */
static size_t
packets(const struct sweep *s, size_t **marks)
{
	static const unsigned char magic[][4] = {
		{ 0xc1, 0x1f, 0xfc, 0xc1 }, { 0xc1, 0xfc, 0x1f, 0xc1 },
		{ 0x57, 0x1d, 0xd1, 0x75 }, { 0x75, 0xd1, 0x1d, 0x57 },
	};
	size_t n = 0;

	*marks = NULL;
	for (size_t off = 0; off + 4 <= s->n; off++)
		for (size_t m = 0; m < sizeof magic / sizeof *magic; m++)
			if (memcmp(s->orig + off, magic[m], 4) == 0) {
				*marks = xreallocarray(*marks, n + 1, sizeof **marks);
				(*marks)[n++] = off;
			}
	return n;
}

static void
check_stream_cut(struct sweep *s, const unsigned char *p, size_t n)
{
	struct target *g = s->arg;
	bool errs, pos;
	char *why;

	spit(g->dir, g->file, p, n);
	long got = load(g->dir, &errs, &pos, &why);
	free(why);
	CHECK(got >= 0 && got <= g->full, "%s: %s cut at %zu: %ld of %ld",
	    g->name, g->file, n, got, g->full);
	CHECK(got >= g->prev || n == s->n, "%s: %s cut at %zu keeps less "
	    "(%ld) than a shorter cut (%ld)", g->name, g->file, n, got, g->prev);
	if (errs)
		CHECK(pos, "%s: %s cut at %zu: error without offset", g->name,
		    g->file, n);
	g->prev = got;
}

static void
check_metadata_cut(struct sweep *s, const unsigned char *p, size_t n)
{
	struct target *g = s->arg;
	bool errs, pos;
	char *why;

	spit(g->dir, g->file, p, n);
	long got = load(g->dir, &errs, &pos, &why);
	CHECK(got <= g->full, "%s: metadata cut at %zu", g->name, n);
	if (errs)
		CHECK(pos || (why && strstr(why, "no CTF")) ||
		    (why && strstr(why, "metadata")),
		    "%s: metadata cut at %zu: error without position: %s",
		    g->name, n, why ? why : "");
	free(why);
}

/* Bit flips: nothing may crash or hang, whatever is read. */
static void
check_flip(struct sweep *s, const unsigned char *p, size_t n)
{
	struct target *g = s->arg;
	bool errs, pos;
	char *why;

	spit(g->dir, g->file, p, n);
	(void)load(g->dir, &errs, &pos, &why);
	free(why);
}

static void
damage_fixture(const char *src, const char *name, unsigned flips)
{
	char tmpl[] = "/tmp/ttv-ctf-bad.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (dir == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	struct target stream = { name, dir, "chan_0", 0, 0 };
	struct target meta = { name, dir, "metadata", 0, 0 };
	struct sweep ms, cs, c1s;
	char *p = xasprintf("%s/%s/metadata", src, name);
	sweep_open(&ms, p, check_metadata_cut, &meta);
	free(p);
	p = xasprintf("%s/%s/chan_0", src, name);
	sweep_open(&cs, p, check_stream_cut, &stream);
	free(p);
	p = xasprintf("%s/%s/chan_1", src, name);
	sweep_open(&c1s, p, NULL, NULL);
	free(p);
	spit(dir, "metadata", ms.orig, ms.n);
	spit(dir, "chan_0", cs.orig, cs.n);
	spit(dir, "chan_1", c1s.orig, c1s.n);
	bool errs, pos;
	char *why;
	long full = load(dir, &errs, &pos, &why);
	free(why);
	CHECK(full > 0 && !errs, "%s: the intact fixture reads (%ld)", name,
	    full);
	stream.full = meta.full = full;

	/* the data stream cut */
	size_t *marks;
	size_t nmarks = packets(&cs, &marks);
	struct sweep_plan plan = { 96, 16, 11, marks, nmarks };
	sweep_cuts(&cs, &plan);
	CHECK(stream.prev == full, "%s: whole chan_0 gives all events", name);
	free(marks);

	/* the metadata cut */
	nmarks = packets(&ms, &marks);
	plan.marks = marks;
	plan.nmarks = nmarks;
	sweep_cuts(&ms, &plan);
	spit(dir, "metadata", ms.orig, ms.n);
	free(marks);

	/* single bit flips, a quarter in the metadata */
	ms.check = cs.check = check_flip;
	sweep_flips(&ms, flips / 4, 1, 0x2545F4914F6CDD1Du);
	spit(dir, "metadata", ms.orig, ms.n);
	sweep_flips(&cs, flips - flips / 4, 1, 0x9e3779b97f4a7c15u);

	unsigned long runs = ms.runs + cs.runs;
	char *q = xasprintf("%s/metadata", dir);
	unlink(q);
	free(q);
	q = xasprintf("%s/chan_0", dir);
	unlink(q);
	free(q);
	q = xasprintf("%s/chan_1", dir);
	unlink(q);
	free(q);
	rmdir(dir);
	sweep_close(&ms);
	sweep_close(&cs);
	sweep_close(&c1s);
	printf("%s: %ld events intact, %lu damaged copies (cuts%s, %u bit "
	    "flips) survived\n", name, full, runs,
	    sweep_full() ? " at every byte" : " sampled", flips);
}

int
main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : getenv("TTV_SRCDIR");
	unsigned flips = sweep_full() ? 1500 : 300;
	if (src == NULL) {
		fprintf(stderr, "usage: ctf_malformed [SRCDIR]\n");
		return 2;
	}
	char *data = xasprintf("%s/tests/data/ctf", src);
	damage_fixture(data, "le-large", flips);
	damage_fixture(data, "be-compact-discards", flips);
	/* CTF 2: its JSON metadata cut and bit-flipped */
	damage_fixture(data, "le-large-ctf2", flips);
	free(data);
	return failures || sweep_failures() ? 1 : 0;
}
