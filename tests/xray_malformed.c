/*
 * Malformed XRay logs must never crash, hang or read out of bounds (run
 * it under ASan/UBSan too): every truncation of small FDR and basic
 * fixtures, single-byte damage at every offset, random bit flips, and
 * headers with wrong versions, types, frequencies and buffer sizes. For
 * each input the loader must either refuse it or return a model whose
 * slices are sane (non-negative durations, each depth sorted and not
 * overlapping), and damage must be reported with an offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"

static int failures;
static char tmppath[4096];
static unsigned long loads;

static void
fail(const char *what, const char *detail, size_t n)
{
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

/* Loads bytes as an XRay log and checks what comes back. */
static void
check(const char *what, const unsigned char *p, size_t n)
{
	FILE *f = fopen(tmppath, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(tmppath);
		exit(1);
	}
	struct load_options opts = { 0 };
	char *err = NULL;
	struct trace *t = load_trace(tmppath, "xray", &opts, &err);
	loads++;
	if (t == NULL) {
		if (err == NULL || *err == 0)
			fail(what, "refused without a message", n);
		free(err);
		return;
	}
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			for (size_t i = 0; i < l->len; i++) {
				const struct slice *s = &l->slices[i];
				if (level_dur(l, i) < 0)
					fail(what, "negative duration", n);
				if (i > 0 && s->start < l->slices[i - 1].start)
					fail(what, "depth not sorted", n);
				if (s->func >= t->nfuncs)
					fail(what, "bad function", n);
			}
		}
	}
	for (size_t i = 0; i < t->ndiags; i++)
		if (strstr(t->diags[i].text, "offset") == NULL &&
		    strstr(t->diags[i].text, "cycle_frequency") == NULL &&
		    strstr(t->diags[i].text, "timestamps went backwards") == NULL &&
		    strstr(t->diags[i].text, "more problems") == NULL &&
		    strstr(t->diags[i].text, "instrumentation map") == NULL)
			fail(what, t->diags[i].text, n);
	trace_free(t);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
torture(const char *path, size_t trunc_step)
{
	size_t n;
	unsigned char *orig = slurp(path, &n);
	unsigned char *p = malloc(n + 64);
	char what[4400];

	if (p == NULL)
		exit(1);
	snprintf(what, sizeof what, "%s truncated", path);
	for (size_t len = 0; len <= n; len += len < 96 ? 1 : trunc_step)
		check(what, orig, len);
	/* every byte set to values that break framing or sizes */
	static const unsigned char vals[] = { 0x00, 0xff, 0x0f, 0x01, 0x11,
		0x13, 0x7f };
	snprintf(what, sizeof what, "%s byte damage", path);
	for (size_t off = 0; off < n; off++) {
		memcpy(p, orig, n);
		p[off] = vals[off % sizeof vals];
		check(what, p, n);
	}
	snprintf(what, sizeof what, "%s bit flips", path);
	for (int round = 0; round < 300; round++) {
		memcpy(p, orig, n);
		int flips = 1 + (int)(next_rand() % 8);
		for (int i = 0; i < flips; i++) {
			uint64_t r = next_rand();
			p[r % n] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		check(what, p, n);
	}
	/* header fields: version, type, frequency, buffer_size */
	snprintf(what, sizeof what, "%s header", path);
	static const uint16_t versions[] = { 0, 1, 2, 3, 4, 5, 6, 0xffff };
	for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
		for (uint16_t type = 0; type < 3; type++) {
			memcpy(p, orig, n);
			p[0] = (unsigned char)versions[v];
			p[1] = (unsigned char)(versions[v] >> 8);
			p[2] = (unsigned char)type;
			p[3] = 0;
			check(what, p, n);
		}
	}
	static const uint64_t big[] = { 0, 1, 16, 47, 48, 1ULL << 40,
		UINT64_MAX, 3 };
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		memcpy(p, orig, n);
		for (int k = 0; k < 8; k++)
			p[16 + k] = (unsigned char)(big[i] >> (8 * k));
		check(what, p, n);
		memcpy(p, orig, n);
		for (int k = 0; k < 8; k++)
			p[8 + k] = (unsigned char)(big[i] >> (8 * k));
		check(what, p, n);
	}
	free(p);
	free(orig);
}

int
main(void)
{
	const char *src = getenv("TTV_SRCDIR");
	const char *tmpdir = getenv("TMPDIR");
	static const char *const fixtures[] = {
		"fdr-v5-le", "fdr-v1-be", "fdr-v3-ring-be", "fdr-v4-le",
		"basic-v3-le", "basic-v1-le",
	};
	char path[4096];

	if (src == NULL)
		src = ".";
	/* tens of thousands of small files: memory is much faster */
	if (tmpdir == NULL)
		tmpdir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(tmppath, sizeof tmppath, "%s/ttv-xray-malformed.%ld.log",
	    tmpdir, (long)getpid());
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		snprintf(path, sizeof path, "%s/tests/data/xray/%s.xray", src,
		    fixtures[i]);
		torture(path, i == 0 ? 1 : 13);
	}
	unlink(tmppath);
	printf("%lu damaged logs loaded, %d failures\n", loads, failures);
	return failures ? 1 : 0;
}
