/*
 * ctf_malformed SRCDIR: the CTF reader on damaged copies of the project's
 * fixtures (tests/data/ctf): a data stream cut at every byte, the metadata
 * (plain TSDL text, packetized, and CTF 2's JSON) cut at every byte, and
 * thousands of single bit flips in both. Nothing may crash or hang (run it under ASan/UBSan to
 * check memory too); a damaged stream keeps every event before the damage
 * and reports where it is ("offset N"), damaged metadata is refused with a
 * position ("line L" or "offset N") or read as far as it makes sense.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "xalloc.h"


/* Cut points: every byte with TTV_FULL_SWEEP=1 in the environment;
 * otherwise every byte of the first and last 256 (headers, the tail) and
 * every seventh between, which meets every field at every alignment over
 * the packets while keeping `make check` quick. */
static size_t
next_cut(size_t n, size_t size)
{
	static int full = -1;
	if (full < 0) {
		const char *e = getenv("TTV_FULL_SWEEP");
		full = e != NULL && *e != '\0' && *e != '0';
	}
	if (full || n < 256 || n + 256 >= size)
		return n + 1;
	return n + 7 < size - 256 ? n + 7 : size - 256;
}

static int failures;

#define CHECK(cond, ...) do {                                             \
	if (!(cond)) {                                                        \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                     \
		fputc('\n', stderr);                                              \
		failures++;                                                       \
	}                                                                     \
} while (0)

struct blob {
	unsigned char *p;
	size_t n;
};

static struct blob
slurp(const char *path)
{
	struct blob b = { 0 };
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	b.n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	b.p = xmalloc(b.n ? b.n : 1);
	if (fread(b.p, 1, b.n, f) != b.n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return b;
}

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

static uint64_t rng = 0x2545F4914F6CDD1Du;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
damage_fixture(const char *src, const char *name, int flips)
{
	char tmpl[] = "/tmp/ttv-ctf-bad.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (dir == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	char *p = xasprintf("%s/%s/metadata", src, name);
	struct blob meta = slurp(p);
	free(p);
	p = xasprintf("%s/%s/chan_0", src, name);
	struct blob c0 = slurp(p);
	free(p);
	p = xasprintf("%s/%s/chan_1", src, name);
	struct blob c1 = slurp(p);
	free(p);
	spit(dir, "metadata", meta.p, meta.n);
	spit(dir, "chan_0", c0.p, c0.n);
	spit(dir, "chan_1", c1.p, c1.n);
	bool errs, pos;
	char *why;
	long full = load(dir, &errs, &pos, &why);
	free(why);
	CHECK(full > 0 && !errs, "%s: the intact fixture reads (%ld)", name,
	    full);

	/* the data stream cut at every byte */
	long prev = 0;
	for (size_t n = 0; n <= c0.n; n = next_cut(n, c0.n)) {
		spit(dir, "chan_0", c0.p, n);
		long got = load(dir, &errs, &pos, &why);
		free(why);
		CHECK(got >= 0 && got <= full, "%s: chan_0 cut at %zu: %ld of %ld",
		    name, n, got, full);
		CHECK(got >= prev || n == c0.n, "%s: chan_0 cut at %zu keeps less "
		    "(%ld) than a shorter cut (%ld)", name, n, got, prev);
		if (errs)
			CHECK(pos, "%s: chan_0 cut at %zu: error without offset",
			    name, n);
		prev = got;
	}
	CHECK(prev == full, "%s: whole chan_0 gives all events", name);
	spit(dir, "chan_0", c0.p, c0.n);

	/* the metadata cut at every byte */
	for (size_t n = 0; n < meta.n; n = next_cut(n, meta.n)) {
		spit(dir, "metadata", meta.p, n);
		long got = load(dir, &errs, &pos, &why);
		CHECK(got <= full, "%s: metadata cut at %zu", name, n);
		if (errs)
			CHECK(pos || (why && strstr(why, "no CTF")) ||
			    (why && strstr(why, "metadata")),
			    "%s: metadata cut at %zu: error without position: %s",
			    name, n, why ? why : "");
		free(why);
	}
	spit(dir, "metadata", meta.p, meta.n);

	/* single bit flips, in the data and in the metadata */
	for (int i = 0; i < flips; i++) {
		bool in_meta = i % 4 == 0;
		struct blob *b = in_meta ? &meta : &c0;
		size_t at = (size_t)(rnd() % b->n);
		unsigned bit = (unsigned)(rnd() % 8);
		b->p[at] ^= (unsigned char)(1u << bit);
		spit(dir, in_meta ? "metadata" : "chan_0", b->p, b->n);
		long got = load(dir, &errs, &pos, &why);
		free(why);
		(void)got;
		b->p[at] ^= (unsigned char)(1u << bit);
		spit(dir, in_meta ? "metadata" : "chan_0", b->p, b->n);
	}

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
	free(meta.p);
	free(c0.p);
	free(c1.p);
	printf("%s: %ld events intact, cuts and %d bit flips survived\n", name,
	    full, flips);
}

int
main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : getenv("TTV_SRCDIR");
	if (src == NULL) {
		fprintf(stderr, "usage: ctf_malformed SRCDIR\n");
		return 2;
	}
	char *data = xasprintf("%s/tests/data/ctf", src);
	damage_fixture(data, "le-large", 1500);
	damage_fixture(data, "be-compact-discards", 1500);
	/* CTF 2: its JSON metadata cut at every byte and bit-flipped */
	damage_fixture(data, "le-large-ctf2", 1500);
	free(data);
	return failures ? 1 : 0;
}
