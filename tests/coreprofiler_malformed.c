/*
 * Damaged CoreProfiler logs must never crash, hang or read out of bounds
 * (run it under ASan/UBSan too). A small good log (tests/data/coreprofiler/
 * tiny.tracelog) is cut at every byte, each byte is replaced by characters that
 * matter to the grammar (space, newline, ':', quote, 'x', digits, 0xff),
 * and random bits are flipped. Every model that comes back must be sane:
 * non-negative durations, each depth sorted and not overlapping, every
 * slice inside its parent. A cut at a line boundary leaves a good log, so
 * it must load with no error at all; a cut inside a line may only damage
 * that last line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"
#include "query.h"

static int failures;
static char tmppath[64];	/* the in-memory file, by /proc path */
static int memfd = -1;
static unsigned long loads;

static void
fail(const char *what, const char *detail, size_t n)
{
	if (failures < 20)
		fprintf(stderr, "FAIL: %s (%zu): %s\n", what, n, detail);
	failures++;
}

static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	unsigned char *p = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(p, cap);
			if (p == NULL)
				exit(1);
		}
		size_t r = fread(p + *n, 1, cap - *n, f);
		if (r == 0)
			break;
		*n += r;
	}
	fclose(f);
	return p;
}

/* The model is sane: slices sorted, non-overlapping, nested. */
static void
sane(const char *what, const struct trace *t, size_t n)
{
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			for (size_t i = 0; i < l->len; i++) {
				const struct slice *s = &l->slices[i];
				if (level_dur(l, i) < 0)
					fail(what, "negative duration", n);
				if (s->func >= t->nfuncs)
					fail(what, "function out of range", n);
				if (i > 0 && s->start < level_end(l, i - 1))
					fail(what, "overlapping slices", n);
				if (d > 0) {
					struct slice_ref r = { k, d, (uint32_t)i }, p;
					if (!query_parent(t, r, &p))
						fail(what, "slice without a parent", n);
				}
			}
		}
	}
}

/* Loads bytes as a CoreProfiler log; returns the number of errors, or -1
 * if the loader refused the input. */
static long
check(const char *what, const unsigned char *p, size_t n)
{
	if (ftruncate(memfd, 0) != 0 ||
	    pwrite(memfd, p, n, 0) != (ssize_t)n) {
		perror("memfd");
		exit(1);
	}
	struct load_options opts = { 0 };
	char *err = NULL;
	struct trace *t = load_trace(tmppath, "coreprofiler", &opts, &err);
	loads++;
	if (t == NULL) {
		if (err == NULL || *err == 0)
			fail(what, "refused without a message", n);
		free(err);
		return -1;
	}
	sane(what, t, n);
	long errors = 0;
	for (size_t i = 0; i < t->ndiags; i++)
		if (t->diags[i].level == DIAG_ERROR) {
			errors++;
			if (strncmp(t->diags[i].text, "line ", 5) != 0)
				fail(what, "error without a line number", n);
		}
	errors += (long)t->ndiags_dropped;
	trace_free(t);
	return errors;
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("TTV_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/coreprofiler/tiny.tracelog",
	    argc > 1 ? argv[1] : srcdir ? srcdir : ".");
	size_t n;
	unsigned char *good = slurp(path, &n);
	memfd = memfd_create("cp-malformed", 0);
	if (memfd < 0) {
		perror("memfd_create");
		return 1;
	}
	snprintf(tmppath, sizeof tmppath, "/proc/self/fd/%d", memfd);

	if (check("whole", good, n) != 0)
		fail("whole", "the good log has errors", n);

	/* Every truncation. */
	for (size_t k = 1; k < n; k++) {
		long e = check("truncated", good, k);
		bool at_line = good[k - 1] == '\n';
		if (at_line && e != 0)
			fail("truncated at a line end", "errors", k);
		if (!at_line && e > 1)
			fail("truncated inside a line", "more than one error", k);
	}

	/* Each byte replaced by characters that matter to the grammar. */
	static const unsigned char subst[] = { ' ', '\n', ':', '"', 'x', '0',
	    '9', 0xff };
	unsigned char *buf = malloc(n);
	memcpy(buf, good, n);
	for (size_t k = 0; k < n; k++) {
		/* Two of them at each offset, in turn. */
		for (size_t s = k % 4; s < sizeof subst; s += 4) {
			if (good[k] == subst[s])
				continue;
			buf[k] = subst[s];
			check("byte replaced", buf, n);
		}
		buf[k] = good[k];
	}

	/* Random bit flips, several at a time. */
	uint64_t x = 88172645463325252ull;
	for (int r = 0; r < 2000; r++) {
		memcpy(buf, good, n);
		for (int k = 0; k < 1 + r % 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[(x >> 8) % n] ^= (unsigned char)(1u << (x & 7));
		}
		check("bits flipped", buf, n);
	}
	free(buf);
	free(good);
	close(memfd);
	printf("%lu loads, %d failures\n", loads, failures);
	return failures ? 1 : 0;
}
