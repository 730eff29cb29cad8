/*
 * An XRay basic-mode log read as it grows (formats/xray/xray_grow.c), its
 * reader's state written as bytes and made again after every read
 * (load_grow_reload), as a run that finds it in the trace's index does:
 * each read must give the trace a whole read of the log as it is then
 * gives (load_trace with --follow's options). The fixtures of every
 * version and byte order, and the one cut short, are written a record at
 * a time and with each record cut in two (the first half left for the
 * next read); every read keeps its state, and none reads the log again
 * from its start. A state cut short or with a byte changed is refused
 * or reads on without harm. An FDR log is not read so: the runtime
 * writes it whole.
 *
 * Usage: xray_grow  (the fixtures of $TTV_SRCDIR/tests/data/xray)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "blob.h"
#include "builder.h"
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

/* Writes data to a new file up to each of its record ends (and with
 * halved, the middle of each record first), reading on after each write
 * with the state made again from its bytes. */
static void
grow(const char *name, const unsigned char *data, size_t size, bool halved)
{
	struct load_options o = { .follow = true };
	char path[] = "/tmp/xray_grow.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f == NULL) {
		perror("mkstemp");
		exit(2);
	}
	/* the header first: a log is told by it */
	if (fwrite(data, 1, 32, f) != 32 || fflush(f) != 0) {
		perror(path);
		exit(2);
	}
	const struct reader *rd = load_grow_reader(path, "xray");
	if (rd == NULL || rd->grow_save == NULL || rd->grow_load == NULL) {
		FAIL("%s: not read as it grows, or its state not kept", name);
		fclose(f);
		unlink(path);
		return;
	}
	struct load_grow *g = load_grow_new(path, rd, &o);
	load_grow_reload(g, true);
	size_t done = 32, reads = 0;
	while (done < size) {
		size_t end = done + 32 < size ? done + 32 : size;
		for (int half = halved ? 0 : 1; half < 2; half++) {
			size_t to = half == 0 ? done + (end - done) / 2 : end;
			if (fwrite(data + done, 1, to - done, f) != to - done ||
			    fflush(f) != 0) {
				perror(path);
				exit(2);
			}
			done = to;
			char *e1 = NULL, *e2 = NULL;
			struct trace *t = load_grow_read(g, &e1);
			struct trace *want = load_trace(path, "xray", &o, &e2);
			if (t == NULL || want == NULL) {
				if (t != NULL || want != NULL)
					FAIL("%s, %zu bytes: read: %s, want %s",
					    name, done, t ? "a trace" : e1,
					    want ? "a trace" : e2);
			} else {
				char *x = trace_dump(t), *y = trace_dump(want);
				char *why = trace_dump_diff(x, y);
				if (why != NULL)
					FAIL("%s, %zu bytes: %s", name, done,
					    why);
				free(why);
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
		}
	}
	/* a log is only appended to: every read went on from the last, and
	 * kept its state */
	if (load_grow_restarts(g) != 0)
		FAIL("%s: read again from its start %" PRIu64 " times", name,
		    load_grow_restarts(g));
	if (load_grow_unsaved(g) != 0)
		FAIL("%s: no state kept %" PRIu64 " times", name,
		    load_grow_unsaved(g));
	printf("%s%s: %zu reads\n", name, halved ? ", records cut in two" :
	    "", reads);
	load_grow_free(g);
	fclose(f);
	unlink(path);
}

/* The state of a read of the first two thirds of a log, as bytes: cut
 * short at every length it is refused; with any one byte changed it is
 * refused, or made again and read on to the end without harm (what
 * comes of it is not checked: the index that holds it is hashed). */
static void
damaged(const char *name, const unsigned char *data, size_t size)
{
	struct load_options o = { .follow = true };
	char path[] = "/tmp/xray_grow.XXXXXX";
	int fd = mkstemp(path);
	size_t cut = 32 + (size - 32) / 32 * 2 / 3 * 32;
	if (fd < 0 || write(fd, data, cut) != (ssize_t)cut) {
		perror(path);
		exit(2);
	}
	close(fd);
	struct mapped_file m;
	char *err = NULL;
	if (mapfile_open(path, &m, &err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(2);
	}
	const struct reader *rd = load_grow_reader(path, "xray");
	struct builder *b = builder_new(path);
	struct load_ctx ctx = { .path = path, .file = &m, .b = b, .opts = &o };
	void *st = rd->grow_begin(&ctx);
	rd->grow_feed(st, &ctx, 0);
	struct blob w = { 0 };
	if (!rd->grow_save(st, &w))
		FAIL("%s: no state kept", name);
	rd->grow_free(st);
	size_t refused = 0, loaded = 0;
	for (size_t len = 0; len < w.len; len++) {
		struct blob_in in;
		blob_in_init(&in, w.data, len);
		void *s2 = rd->grow_load(&ctx, &in);
		if (s2 != NULL && !in.bad)
			FAIL("%s: a state cut to %zu bytes taken", name, len);
		rd->grow_free(s2);
	}
	unsigned char *copy = xmalloc(w.len ? w.len : 1);
	for (size_t i = 0; i < w.len; i++) {
		memcpy(copy, w.data, w.len);
		copy[i] ^= (unsigned char)(0x5a + i % 7);
		struct blob_in in;
		blob_in_init(&in, copy, w.len);
		void *s2 = rd->grow_load(&ctx, &in);
		if (s2 == NULL || in.bad || in.p != in.end) {
			rd->grow_free(s2);
			refused++;
			continue;
		}
		/* read on into copies of the builder, to the log's end */
		struct mapped_file whole = { .data = (unsigned char *)data,
		    .size = size };
		struct load_ctx c2 = { .path = path, .file = &whole,
		    .b = builder_copy(b), .opts = &o };
		rd->grow_feed(s2, &c2, cut);
		struct builder *end = builder_copy(c2.b);
		struct load_ctx c3 = c2;
		c3.b = end;
		rd->grow_end(s2, &c3);
		trace_free(builder_finish(end));
		builder_free(c2.b);
		rd->grow_free(s2);
		loaded++;
	}
	printf("%s: %zu bytes of state cut short at every length: refused; "
	    "a byte changed: %zu refused, %zu read on\n", name, w.len, refused,
	    loaded);
	free(copy);
	blob_free(&w);
	builder_free(b);
	mapfile_close(&m);
	unlink(path);
}

int
main(void)
{
	static const char *const basic[] = {
		"xray/basic-v1-le.xray", "xray/basic-v2-le.xray",
		"xray/basic-v3-le.xray", "xray/basic-v3-be.xray",
		"xray/damaged-basic-truncated.xray",
	};
	for (size_t i = 0; i < sizeof basic / sizeof basic[0]; i++) {
		char *path = sweep_fixture(basic[i]), *err = NULL;
		struct mapped_file m;
		if (mapfile_open(path, &m, &err) != 0) {
			fprintf(stderr, "%s: %s\n", path, err);
			return 2;
		}
		grow(basic[i], m.data, m.size, false);
		grow(basic[i], m.data, m.size, true);
		damaged(basic[i], m.data, m.size);
		mapfile_close(&m);
		free(path);
	}
	/* FDR: written whole at flush, read whole */
	char *fdr = sweep_fixture("xray/fdr-v4-le.xray");
	if (load_grow_reader(fdr, "xray") != NULL)
		FAIL("an FDR log is taken to be read as it grows");
	free(fdr);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
