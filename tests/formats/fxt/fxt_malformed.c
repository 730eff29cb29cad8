/*
 * Damaged FXT input: the reader must never crash, hang or read outside
 * the input, must keep every whole record before the damage, and must say
 * where the damage is.
 *
 *  - truncation at every byte of a fixture: the records counted equal the
 *    whole records of the prefix (found here by a framing walk of our own),
 *    a warning names the offset of the cut record unless the cut falls on a
 *    record boundary, and the slices never decrease as the prefix grows;
 *  - one flipped bit at every byte (a different bit each time): the load
 *    ends, and whatever it reports stays within what the input can hold;
 *  - hand-made damage with the exact message expected: a record of size 0,
 *    fields running past their record, a tail shorter than a header.
 *
 * The cuts and flips are the sweep of tests/lib/sweep.h. Inputs are fed
 * from memory (a mapped_file over a heap buffer): files this small never
 * reach the reader's page-release step.
 *
 * Usage: fxt_malformed [FIXTURE]  (default: $TTV_SRCDIR/tests/data/fxt/full.fxt,
 * as make check runs it)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "reader.h"
#include "sweep.h"
#include "xalloc.h"

extern const struct reader fxt_reader;

#define CHECK(cond, ...) do {                                             \
	if (!(cond))                                                          \
		sweep_fail(NULL, __VA_ARGS__);                                    \
} while (0)

static struct trace *
load_mem(const unsigned char *data, size_t len, int *rc)
{
	struct mapped_file m = { len ? data : NULL, len, (char *)"mem" };
	struct load_options opts = { 0 };
	struct builder *b = builder_new("mem");
	struct load_ctx ctx = { "mem", &m, b, &opts };

	*rc = fxt_reader.load(&ctx);
	return builder_finish(b);
}

/* Sum of the record kinds (not the kinds that count things inside
 * records, which the reader names in lower case with a parenthesis or
 * "argument"/"non-numeric"/... words). */
static uint64_t
records_counted(const struct trace *t)
{
	static const char *const not_records[] = {
		"argument of unknown type (skipped)",
		"non-numeric counter argument (dropped)",
		"malformed record (dropped)", "undefined string reference",
		"undefined thread reference (dropped)",
		"invalid timestamp (dropped)",
		"duration end without begin (dropped)",
		"duration nested too deep (dropped)",
		"overlapping slice truncated",
		"flow without enclosing slice (dropped)",
		"flow begin with a live id (dropped)",
		"flow step/end without begin (dropped)",
		"async end without begin (dropped)",
	};
	uint64_t n = 0;
	size_t i, j;

	for (i = 0; i < t->nrecords; i++) {
		for (j = 0; j < sizeof not_records / sizeof *not_records; j++)
			if (strcmp(t->records[i].kind, not_records[j]) == 0)
				break;
		if (j == sizeof not_records / sizeof *not_records)
			n += t->records[i].count;
	}
	return n;
}

static uint64_t
le64(const unsigned char *p)
{
	uint64_t w = 0;
	int i;

	for (i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	return w;
}

static bool
has_diag(const struct trace *t, const char *text)
{
	size_t i;

	for (i = 0; i < t->ndiags; i++)
		if (strstr(t->diags[i].text, text) != NULL)
			return true;
	return false;
}

/* The whole records of the fixture, by a framing walk of our own
 * (little-endian fixture), and the state of the cut being checked. */
struct cuts {
	size_t *ends, nends;	/* where each whole record ends */
	size_t k;		/* records ending at or before the cut */
	size_t prev_slices;	/* slices of the shorter cut */
};

static void
frame(struct cuts *c, const unsigned char *data, size_t size)
{
	size_t off = 0;

	while (off + 8 <= size) {
		uint64_t h = le64(data + off);
		uint64_t words = (h & 15) == 15 ? (h >> 4) & 0xffffffffu :
		    (h >> 4) & 0xfff;
		if (words == 0 || words * 8 > size - off)
			break;
		off += words * 8;
		c->ends = xreallocarray(c->ends, c->nends + 1, sizeof *c->ends);
		c->ends[c->nends++] = off;
	}
	CHECK(off == size, "fixture does not frame cleanly (%zu of %zu)", off,
	    size);
}

/* The cuts come in order of length, from 0. */
static void
check_cut(struct sweep *s, const unsigned char *data, size_t len)
{
	struct cuts *c = s->arg;
	int rc;
	struct trace *t = load_mem(data, len, &rc);
	size_t whole, slices = trace_nslices(t);
	char want[96];

	while (c->k < c->nends && c->ends[c->k] <= len)
		c->k++;
	whole = c->k;
	if (len < 8) {
		if (rc != -1)
			sweep_fail(s, "loaded");
	} else {
		if (rc != 0)
			sweep_fail(s, "load failed");
		if (records_counted(t) != whole)
			sweep_fail(s, "%" PRIu64 " records counted, %zu whole",
			    records_counted(t), whole);
		if (len != (whole ? c->ends[whole - 1] : 0)) {
			snprintf(want, sizeof want, "offset %zu: truncated "
			    "record", whole ? c->ends[whole - 1] : 0);
			if (!has_diag(t, want))
				sweep_fail(s, "no '%s'", want);
		} else if (t->ndiags != 0)
			sweep_fail(s, "at a boundary but %zu diagnostics",
			    t->ndiags);
		if (slices < c->prev_slices)
			sweep_fail(s, "%zu slices, fewer than the shorter "
			    "prefix's %zu", slices, c->prev_slices);
		c->prev_slices = slices;
	}
	trace_free(t);
}

/* Every slice needs a record of at least 16 bytes. */
static void
check_flip(struct sweep *s, const unsigned char *data, size_t len)
{
	int rc;
	struct trace *t = load_mem(data, len, &rc);

	if (trace_nslices(t) > len / 16)
		sweep_fail(s, "%zu slices", trace_nslices(t));
	if (t->nflows > len / 16)
		sweep_fail(s, "%zu flows", t->nflows);
	trace_free(t);
}

struct crafted {
	const char *what;
	uint64_t words[8];
	size_t nwords;
	size_t extra;		/* bytes appended after the words */
	const char *diag;
	int rc;
};

static void
crafted(void)
{
	static const struct crafted cases[] = {
		{ "size 0", { 0x0016547846040010ULL, 0x0000000000000004ULL },
		  2, 0, "offset 8: record of size 0 (type 4)", 0 },
		{ "argument past its event",
		  { 0x0016547846040010ULL,
		    /* instant, 1 arg, inline thread, size 4 */
		    0x0000000000100044ULL, 1000, 1, 2 },
		  5, 0, "offset 8: malformed record dropped", 0 },
		{ "argument size past the record",
		  { 0x0016547846040010ULL, 0x0000000000100054ULL, 1000, 1, 2,
		    0x0000000000000093ULL /* i64 arg of 9 words */ },
		  6, 0, "offset 8: malformed record dropped", 0 },
		{ "string longer than its record",
		  { 0x0016547846040010ULL,
		    0x0000006400010022ULL /* index 1, 100 bytes, 2 words */,
		    0x6867666564636261ULL },
		  3, 0, "offset 8: malformed record dropped: string", 0 },
		{ "inline name past the record",
		  { 0x0016547846040010ULL,
		    /* begin, inline thread, name inline 40 bytes, 4 words */
		    0x8028000000020044ULL, 5, 1, 2 },
		  5, 0, "offset 8: malformed record dropped", 0 },
		{ "tail shorter than a header",
		  { 0x0016547846040010ULL }, 1, 3,
		  "offset 8: truncated record (3 bytes", 0 },
		{ "large record past the end",
		  { 0x0016547846040010ULL, 0x000000000010000fULL, 0 }, 3, 0,
		  "offset 8: truncated record (declares 524288 bytes, 16 "
		  "present)", 0 },
	};
	size_t i, j;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct crafted *c = &cases[i];
		size_t len = c->nwords * 8 + c->extra;
		unsigned char *buf = calloc(1, len);
		struct trace *t;
		int rc;

		for (j = 0; j < c->nwords; j++)
			for (int k = 0; k < 8; k++)
				buf[j * 8 + k] = (unsigned char)(c->words[j] >>
				    (8 * k));
		t = load_mem(buf, len, &rc);
		CHECK(rc == c->rc, "%s: rc %d", c->what, rc);
		CHECK(has_diag(t, c->diag), "%s: no diagnostic '%s'%s%s",
		    c->what, c->diag, t->ndiags ? ", got: " : "",
		    t->ndiags ? t->diags[0].text : "");
		CHECK(records_counted(t) >= 1, "%s: the magic record was lost",
		    c->what);
		trace_free(t);
		free(buf);
	}
}

int
main(int argc, char **argv)
{
	char *path;
	struct cuts cuts = { 0 };
	struct sweep s;

	if (argc == 2)
		path = xstrdup(argv[1]);
	else if (argc == 1)
		path = sweep_fixture("fxt/full.fxt");
	else {
		fprintf(stderr, "usage: fxt_malformed [FIXTURE]\n");
		return 2;
	}
	crafted();
	sweep_open(&s, path, check_cut, &cuts);
	frame(&cuts, s.orig, s.n);
	sweep_cuts(&s, NULL);
	s.check = check_flip;
	sweep_flip_each(&s, NULL);
	sweep_close(&s);
	free(cuts.ends);
	free(path);
	if (sweep_failures())
		fprintf(stderr, "%d failures\n", sweep_failures());
	return sweep_failures() ? 1 : 0;
}
