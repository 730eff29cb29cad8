/* The damage sweep of the malformed-input tests (see sweep.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "query.h"
#include "sweep.h"
#include "xalloc.h"

/* Failures printed in full; the rest are only counted. */
#define SHOWN 50

static int failures;

void
sweep_open(struct sweep *s, const char *path, sweep_check_fn *check,
    void *arg)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: %s (TTV_SRCDIR?)\n", path, strerror(errno));
		exit(1);
	}
	memset(s, 0, sizeof *s);
	s->name = path;
	s->check = check;
	s->arg = arg;
	for (;;) {
		if (s->n == cap) {
			cap = cap ? cap * 2 : 65536;
			s->orig = xrealloc(s->orig, cap);
		}
		size_t r = fread(s->orig + s->n, 1, cap - s->n, f);
		if (r == 0)
			break;
		s->n += r;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		exit(1);
	}
	fclose(f);
	/* Never empty: the damage below always has a byte to work on. */
	if (s->n == 0) {
		fprintf(stderr, "%s: empty fixture\n", path);
		exit(1);
	}
	s->buf = xmalloc(s->n);
	memcpy(s->buf, s->orig, s->n);
}

void
sweep_close(struct sweep *s)
{
	free(s->orig);
	free(s->buf);
	s->orig = s->buf = NULL;
}

char *
sweep_fixture(const char *rel)
{
	const char *src = getenv("TTV_SRCDIR");

	return xasprintf("%s/tests/data/%s", src != NULL ? src : ".", rel);
}

bool
sweep_full(void)
{
	const char *v = getenv("TTV_FULL_SWEEP");

	return v != NULL && strcmp(v, "1") == 0;
}

static bool
near(size_t off, size_t mark, size_t head, size_t tail)
{
	return (off >= mark && off - mark < head) ||
	    (off < mark && mark - off <= tail);
}

bool
sweep_takes(const struct sweep_plan *plan, size_t off, size_t n)
{
	if (plan == NULL || plan->stride <= 1 || sweep_full())
		return true;
	/* The end counts as a mark: the whole input is always taken. */
	if (off % plan->stride == 0 || off < plan->head ||
	    off + plan->tail >= n)
		return true;
	for (size_t i = 0; i < plan->nmarks; i++)
		if (near(off, plan->marks[i], plan->head, plan->tail))
			return true;
	return false;
}

static void
run(struct sweep *s, const char *what, size_t at, const unsigned char *p,
    size_t len)
{
	s->what = what;
	s->at = at;
	s->runs++;
	s->check(s, p, len);
}

void
sweep_cuts(struct sweep *s, const struct sweep_plan *plan)
{
	for (size_t len = 0; len <= s->n; len++)
		if (sweep_takes(plan, len, s->n))
			run(s, "cut at", len, s->orig, len);
}

void
sweep_bytes(struct sweep *s, const unsigned char *vals, size_t nvals,
    size_t per, const struct sweep_plan *plan)
{
	size_t group = nvals / per;

	memcpy(s->buf, s->orig, s->n);
	for (size_t off = 0; off < s->n; off++) {
		if (!sweep_takes(plan, off, s->n))
			continue;
		for (size_t i = 0; i < per; i++) {
			unsigned char v = vals[off % group + i * group];
			if (v == s->orig[off])
				continue;
			s->buf[off] = v;
			run(s, "byte set at", off, s->buf, s->n);
		}
		s->buf[off] = s->orig[off];
	}
}

void
sweep_flip_each(struct sweep *s, const struct sweep_plan *plan)
{
	uint32_t r = 12345;

	memcpy(s->buf, s->orig, s->n);
	for (size_t off = 0; off < s->n; off++) {
		r = r * 1103515245u + 12345u;
		if (!sweep_takes(plan, off, s->n))
			continue;
		s->buf[off] ^= (unsigned char)(1u << ((r >> 16) & 7));
		run(s, "bit flipped at", off, s->buf, s->n);
		s->buf[off] = s->orig[off];
	}
}

void
sweep_flips(struct sweep *s, unsigned rounds, unsigned most, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15u;

	for (unsigned r = 0; r < rounds; r++) {
		memcpy(s->buf, s->orig, s->n);
		for (unsigned k = 0; k < 1 + r % most; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s->buf[(x >> 8) % s->n] ^= (unsigned char)(1u << (x & 7));
		}
		run(s, "bits flipped, round", r, s->buf, s->n);
	}
	memcpy(s->buf, s->orig, s->n);
}

void
sweep_fail(const struct sweep *s, const char *fmt, ...)
{
	va_list ap;

	if (failures++ >= SHOWN)
		return;
	if (s != NULL && s->what != NULL)
		fprintf(stderr, "FAIL: %s: %s %zu: ", s->name, s->what, s->at);
	else if (s != NULL)
		fprintf(stderr, "FAIL: %s: ", s->name);
	else
		fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (failures == SHOWN)
		fprintf(stderr, "(further failures only counted)\n");
}

int
sweep_failures(void)
{
	return failures;
}

const char *
sweep_memfile(const unsigned char *p, size_t n)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		/* Tens of thousands of small files: memory, not the disk. */
		fd = memfd_create("ttv-sweep", 0);
		if (fd < 0) {
			perror("memfd_create");
			exit(1);
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    (n > 0 && pwrite(fd, p, n, 0) != (ssize_t)n)) {
		perror("memfd");
		exit(1);
	}
	return path;
}

void
sweep_sane_slices(const struct sweep *s, const struct trace *t,
    bool nested)
{
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			for (size_t i = 0; i < l->len; i++) {
				const struct slice *sl = &l->slices[i];
				struct slice_ref r = { k, d, (uint32_t)i }, p;

				if (level_dur(l, i) < 0)
					sweep_fail(s, "negative duration");
				if (sl->func >= t->nfuncs)
					sweep_fail(s, "function out of range");
				if (i > 0 && sl->start < l->slices[i - 1].start)
					sweep_fail(s, "depth %u not sorted", d);
				else if (nested && i > 0 &&
				    sl->start < level_end(l, i - 1))
					sweep_fail(s, "overlapping slices");
				if (nested && d > 0 && !query_parent(t, r, &p))
					sweep_fail(s, "slice without a parent");
			}
		}
	}
}
