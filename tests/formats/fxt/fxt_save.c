/*
 * An FXT growing load's state written as bytes and made again
 * (formats/fxt/fxt_save.c), through the reader's hooks as a run that
 * keeps it in a trace's index uses them. The file is read on at every
 * record; after each read:
 *  - grow_save writes the state (never says it cannot), grow_load makes
 *    it again from all of its bytes, and the state made again writes the
 *    same bytes (nothing written is lost on the way back); the reads go
 *    on from the state made again (fxt_grow -r compares such reads with
 *    whole reads);
 *  - at the middle of the file, the bytes damaged: cut short at every
 *    length, they give no state; with each byte flipped (three ways),
 *    they give none, or one that reads the rest of the file and ends
 *    into a copy of the builder without reading out of bounds (run it
 *    under ASan and UBSan).
 *
 * Usage: fxt_save [FILE]...  (default: full.fxt and full-be.fxt of
 * $TTV_SRCDIR/tests/data/fxt)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "mapfile.h"
#include "reader.h"
#include "xalloc.h"

static int failures;
static const char *source;

#define FAIL(...) do {                                                    \
	if (failures++ < 20) {                                                \
		fprintf(stderr, "FAIL %s: ", source);                             \
		fprintf(stderr, __VA_ARGS__);                                     \
		fputc('\n', stderr);                                              \
	}                                                                     \
} while (0)

static const struct load_options opts = { .follow = true };

/* A growing load as load_grow.c drives it: its builder and state. */
struct run {
	const struct reader *r;
	const char *path;
	struct builder *b;
	void *state;
	size_t covered;
	unsigned restarts;
};

static void
run_begin(struct run *g, struct load_ctx *ctx)
{
	g->b = builder_new(g->path);
	builder_open_to_now(g->b);
	ctx->b = g->b;
	g->state = g->r->grow_begin(ctx);
	g->covered = 0;
}

static void
run_forget(struct run *g)
{
	if (g->b == NULL)
		return;
	g->r->grow_free(g->state);
	builder_free(g->b);
	g->b = NULL;
	g->state = NULL;
}

/* Reads on to the end of whole's records (again from the start when
 * the reader asks). */
static void
run_feed(struct run *g, const struct mapped_file *whole)
{
	struct load_ctx ctx = { .path = g->path, .file = whole,
	    .opts = &opts };

	for (int pass = 0; pass < 2; pass++) {
		if (g->b == NULL)
			run_begin(g, &ctx);
		ctx.b = g->b;
		size_t to = g->r->grow_feed(g->state, &ctx, g->covered);
		if (to != SIZE_MAX) {
			g->covered = to;
			return;
		}
		run_forget(g);
		g->restarts++;
	}
	FAIL("asked twice to read again from the start");
}

/* A state made again from bytes, used as the next read would: the rest
 * of the file read into a copy of the builder, its end into another,
 * and that finished. */
static void
use(const struct run *g, void *state, const struct mapped_file *m)
{
	struct builder *b = builder_copy(g->b);
	struct load_ctx ctx = { .path = g->path, .file = m, .b = b,
	    .opts = &opts };

	if (g->r->grow_feed(state, &ctx, g->covered) != SIZE_MAX) {
		struct builder *c = builder_copy(b);
		ctx.b = c;
		char *err = NULL;
		struct trace *t = load_result(builder_finish(c), g->r,
		    g->r->grow_end(state, &ctx), &err);
		if (t != NULL)
			trace_free(t);
		free(err);
	}
	g->r->grow_free(state);
	builder_free(b);
}

static void *
load(const struct run *g, const struct mapped_file *whole,
    const unsigned char *p, size_t n, bool *whole_read)
{
	struct load_ctx ctx = { .path = g->path, .file = whole, .b = g->b,
	    .opts = &opts };
	struct blob_in in;

	blob_in_init(&in, p, n);
	void *s = g->r->grow_load(&ctx, &in);
	*whole_read = s != NULL && !in.bad && in.p == in.end;
	return s;
}

/* The saved bytes of g's state, damaged. */
static void
damage(const struct run *g, const struct mapped_file *whole,
    const struct mapped_file *m, const struct blob *w)
{
	static const unsigned char flips[] = { 0x01, 0x80, 0xff };
	unsigned char *copy = xmalloc(w->len);
	size_t used = 0, none = 0;
	bool all;

	for (size_t n = 0; n < w->len; n++) {
		memcpy(copy, w->data, n);
		void *s = load(g, whole, copy, n, &all);
		if (s != NULL) {
			FAIL("a state made from its first %zu bytes of %zu", n,
			    w->len);
			g->r->grow_free(s);
		}
	}
	for (size_t i = 0; i < w->len; i++)
		for (size_t k = 0; k < sizeof flips; k++) {
			memcpy(copy, w->data, w->len);
			copy[i] ^= flips[k];
			void *s = load(g, whole, copy, w->len, &all);
			if (s == NULL) {
				none++;
				continue;
			}
			used++;
			use(g, s, m);
		}
	printf("%s: %zu bytes cut short at every length: no state; "
	    "flipped: %zu no state, %zu read on\n", source, w->len, none,
	    used);
	free(copy);
}

static void
file(const struct reader *r, const char *src)
{
	struct mapped_file m;
	char *err = NULL;
	struct run g = { .r = r, .path = src };
	size_t saved = 0, size = 0;
	bool damaged = false;

	source = src;
	if (mapfile_open(src, &m, &err) != 0) {
		fprintf(stderr, "%s: %s\n", src, err);
		exit(2);
	}
	/* the file as it grows: its whole records up to each 8 bytes */
	for (size_t k = 8; k <= m.size; k += 8) {
		struct mapped_file whole = m;
		whole.size = r->complete_from(m.data, k, g.covered);
		if (g.b != NULL && whole.size <= g.covered)
			continue;
		run_feed(&g, &whole);
		if (g.b == NULL)
			break;

		struct blob w = { 0 }, again = { 0 };
		bool all;
		if (!r->grow_save(g.state, &w)) {
			FAIL("not saved at %zu bytes", whole.size);
			blob_free(&w);
			continue;
		}
		void *s = load(&g, &whole, w.data, w.len, &all);
		if (s == NULL || !all) {
			FAIL("not made again at %zu bytes (%zu saved)",
			    whole.size, w.len);
			if (s != NULL)
				r->grow_free(s);
			blob_free(&w);
			continue;
		}
		r->grow_free(g.state);
		g.state = s;
		saved++;
		if (size < w.len)
			size = w.len;
		if (!r->grow_save(s, &again) || again.len != w.len ||
		    memcmp(again.data, w.data, w.len) != 0)
			FAIL("made again at %zu bytes, saves other bytes",
			    whole.size);
		if (!damaged && whole.size >= m.size / 2) {
			damage(&g, &whole, &m, &w);
			damaged = true;
		}
		blob_free(&w);
		blob_free(&again);
	}
	printf("%s: %zu states saved and made again (at most %zu bytes), "
	    "read again from the start %u times\n", src, saved, size,
	    g.restarts);
	if (saved == 0)
		FAIL("no state saved");
	run_forget(&g);
	mapfile_close(&m);
}

int
main(int argc, char **argv)
{
	const struct reader *r = load_reader_named("fxt");
	const char *src = getenv("TTV_SRCDIR");
	char buf[2][4096];

	if (r == NULL || r->grow_save == NULL || r->grow_load == NULL) {
		fprintf(stderr, "FAIL: the FXT reader's state is not saved\n");
		return 1;
	}
	if (argc == 1) {
		snprintf(buf[0], sizeof buf[0], "%s/tests/data/fxt/full.fxt",
		    src ? src : ".");
		snprintf(buf[1], sizeof buf[1], "%s/tests/data/fxt/full-be.fxt",
		    src ? src : ".");
		file(r, buf[0]);
		file(r, buf[1]);
	}
	for (int i = 1; i < argc; i++)
		file(r, argv[i]);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
