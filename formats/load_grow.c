/* A file read as it grows (load_grow.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_cache.h"
#include "blob.h"
#include "index_store.h"
#include "load.h"
#include "load_grow.h"
#include "load_resume.h"
#include "strtab.h"
#include "xalloc.h"

/* The bytes hashed at each end of what was read: a file rewritten, not
 * appended to, is noticed there (a log started again, another file
 * copied over it) without reading all of it again. */
#define EDGE_BYTES 4096

struct load_grow {
	char *path;
	const struct reader *r;
	struct load_options o;
	struct builder *b;	/* NULL: nothing read yet */
	/* where b's large depths grow (NULL: in memory), on file fd */
	struct index_store *store;
	int fd;
	void *state;
	size_t covered;		/* whole records read */
	uint64_t dev, ino;
	uint64_t head, tail;	/* hashes of the edges of what was read */
	uint64_t restarts;
	uint64_t unsaved;	/* reads whose state was not kept */
	bool reload;		/* load_grow_reload */
};

const struct reader *
load_grow_reader(const char *path, const char *force_format)
{
	const struct reader *r = force_format != NULL ?
	    load_reader_named(force_format) : load_probe(path);
	struct stat st;
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	return r != NULL && r->grow_begin != NULL &&
	    (dir ? true : r->complete != NULL && load_file_grows(r, path)) ?
	    r : NULL;
}

struct load_grow *
load_grow_new(const char *path, const struct reader *r,
    const struct load_options *o)
{
	struct load_grow *g = xcalloc(1, sizeof *g);
	g->path = xstrdup(path);
	g->r = r;
	g->o = *o;
	g->o.follow = true;
	g->fd = -1;
	return g;
}

/* What a read keeps, let go of (all may be there or not yet). */
static void
forget(struct load_grow *g)
{
	g->r->grow_free(g->state);
	builder_free(g->b);
	index_store_free(g->store);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	g->store = NULL;
	g->state = NULL;
	g->b = NULL;
	g->covered = 0;
}

static uint64_t
hash_head(const unsigned char *d, size_t covered)
{
	return hash_bytes(d, covered < EDGE_BYTES ? covered : EDGE_BYTES);
}

static uint64_t
hash_tail(const unsigned char *d, size_t covered)
{
	size_t n = covered < EDGE_BYTES ? covered : EDGE_BYTES;
	return hash_bytes(d + covered - n, n);
}

/* The file a followed trace's large depths grow in (index_store.h), in
 * the cache directory, nameless: a trace followed for hours keeps its
 * model on disk rather than in memory, and each read's model maps the
 * pages written there rather than copying them (builder_copy). -1 (the
 * model in memory) when the directory takes no file. */
static int
scratch_file(void)
{
	char *err = NULL, *tmp = NULL;
	char *dir = index_cache_dir(&err);
	int fd = dir != NULL ? index_cache_create(dir, &tmp, &err) : -1;
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	free(err);
	return fd;
}

/* The file the builder's large arrays grow in, if it can be made. */
static void
make_store(struct load_grow *g)
{
	g->fd = scratch_file();
	if (g->fd >= 0)
		g->store = index_store_new(g->fd);
}

/* A read from the start: a new builder, the reader's state begun on it. */
static void
begin(struct load_grow *g, struct load_ctx *ctx)
{
	g->b = builder_new(g->path);
	builder_open_to_now(g->b);
	make_store(g);
	if (g->store != NULL) {
		builder_set_store(g->b, g->store);
		builder_store_all(g->b);
	}
	ctx->b = g->b;
	g->state = g->r->grow_begin(ctx);
}

/* The trace of a copy of the builder, with the reader's end said into
 * it (the end of load_grow_read). With load_grow_reload, the builder and
 * the reader's state are saved first, as they are after the read, and
 * made again from the bytes and the trace once it is made, as a later
 * run that finds them in the trace's index does (load_resume.c): false
 * in *lost when they could not be. */
static struct trace *
finish_copy(struct load_grow *g, struct load_ctx *ctx, struct mapped_file *m,
    bool *lost, char **err)
{
	struct blob wb = { 0 }, wr = { 0 };
	bool reload = g->reload && g->r->grow_save != NULL &&
	    g->r->grow_save(g->state, &wr);
	uint64_t mark = reload ? builder_save(g->b, &wb) : 0;
	struct builder *copy = builder_copy(g->b);
	ctx->b = copy;
	int rc = g->r->grow_end(g->state, ctx);
	bool holds = reload && builder_save_holds(copy, mark);
	if (g->reload && !holds)
		g->unsaved++;
	struct trace *t = load_result(builder_finish(copy), g->r, rc, err);
	*lost = false;
	if (reload) {
		struct builder *nb = NULL;
		struct blob_in in;
		if (holds && t != NULL) {
			blob_in_init(&in, wb.data, wb.len);
			nb = builder_load(&in, t, g->path, NULL, false);
			*lost = nb == NULL || in.p != in.end;
		}
		if (nb != NULL) {
			builder_free(g->b);
			index_store_free(g->store);
			g->store = NULL;
			if (g->fd >= 0)
				close(g->fd);
			g->fd = -1;
			g->b = nb;
		}
		blob_in_init(&in, wr.data, wr.len);
		ctx->b = g->b;
		void *again = g->r->grow_load(ctx, &in);
		if (again == NULL || in.bad || in.p != in.end)
			*lost = true;
		if (again != NULL) {
			g->r->grow_free(g->state);
			g->state = again;
		}
	}
	blob_free(&wb);
	blob_free(&wr);
	if (m != NULL)
		mapfile_close(m);
	return t;
}

/* The trace of a read, or NULL with *err when the state the read saved
 * could not be made again (load_grow_reload). */
static struct trace *
finish_read(struct load_grow *g, struct load_ctx *ctx, struct mapped_file *m,
    char **err)
{
	bool lost;
	struct trace *t = finish_copy(g, ctx, m, &lost, err);
	if (lost) {
		trace_free(t);
		free(*err);
		*err = xstrdup("the saved state could not be loaded");
		return NULL;
	}
	return t;
}

/* A directory (a CTF trace's): the reader tells what changed in it, and
 * says when it must be read again from its start (grow_feed gives
 * SIZE_MAX). */
static struct trace *
read_dir(struct load_grow *g, char **err)
{
	struct load_ctx ctx = { .path = g->path, .opts = &g->o };
	mapfile_record_begin();
	for (int pass = 0; pass < 2; pass++) {
		if (g->b == NULL)
			begin(g, &ctx);
		ctx.b = g->b;
		if (g->r->grow_feed(g->state, &ctx, 0) != SIZE_MAX)
			break;
		forget(g);
		g->restarts++;
	}
	if (g->b == NULL || load_cancelled(&ctx)) {
		mapfile_record_drop();
		*err = xstrdup("stopped");
		return NULL;
	}
	return finish_read(g, &ctx, NULL, err);
}

bool
load_grow_resume(struct load_grow *g, const struct trace *from,
    const void *state, size_t len)
{
	struct stat st;
	if (g->b != NULL || stat(g->path, &st) != 0)
		return false;
	bool dir = S_ISDIR(st.st_mode);
	struct mapped_file m = { 0 };
	char *err = NULL;
	mapfile_record_begin();
	if (!dir && mapfile_open(g->path, &m, &err) != 0) {
		free(err);
		mapfile_record_drop();
		return false;
	}
	make_store(g);
	const void *rstate;
	size_t rlen, covered;
	struct builder *b = load_resume_builder(state, len, g->r->name, from,
	    g->path, g->store, g->store != NULL, &rstate, &rlen, &covered);
	struct load_ctx ctx = { .path = g->path, .file = dir ? NULL : &m,
	    .b = b, .opts = &g->o };
	void *rs = NULL;
	if (b != NULL && (dir ? covered == 0 : covered > 0 &&
	    covered <= m.size)) {
		builder_open_to_now(b);
		struct blob_in in;
		blob_in_init(&in, rstate, rlen);
		rs = g->r->grow_load(&ctx, &in);
		if (rs != NULL && (in.bad || in.p != in.end)) {
			g->r->grow_free(rs);
			rs = NULL;
		}
	}
	if (rs == NULL) {
		g->b = b;
		forget(g);
		mapfile_close(&m);
		mapfile_record_drop();
		return false;
	}
	g->b = b;
	g->state = rs;
	g->covered = covered;
	g->dev = (uint64_t)st.st_dev;
	g->ino = (uint64_t)st.st_ino;
	if (!dir) {
		g->head = hash_head(m.data, covered);
		g->tail = hash_tail(m.data, covered);
	}
	mapfile_close(&m);
	mapfile_record_drop();
	return true;
}

void
load_grow_beacons(struct load_grow *g, const struct stream_beacon *b,
    size_t n)
{
	g->o.beacons = b;
	g->o.nbeacons = n;
}

struct trace *
load_grow_read(struct load_grow *g, char **err)
{
	*err = NULL;
	struct stat st;
	if (stat(g->path, &st) != 0) {
		*err = xstrdup(strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return read_dir(g, err);
	struct mapped_file m;
	mapfile_record_begin();
	if (mapfile_open(g->path, &m, err) != 0) {
		mapfile_record_drop();
		return NULL;
	}
	if (m.size == 0) {
		mapfile_close(&m);
		mapfile_record_drop();
		forget(g);
		*err = xstrdup("empty file");
		return NULL;
	}
	/* only appended to since the last read, or read again whole */
	if (g->b != NULL && (m.size < g->covered ||
	    (uint64_t)st.st_dev != g->dev || (uint64_t)st.st_ino != g->ino ||
	    (g->covered > 0 && (hash_head(m.data, g->covered) != g->head ||
	    hash_tail(m.data, g->covered) != g->tail)))) {
		forget(g);
		g->restarts++;
	}
	struct mapped_file whole = m;
	whole.size = g->r->complete_from != NULL ?
	    g->r->complete_from(m.data, m.size, g->covered) :
	    g->r->complete(m.data, m.size);
	struct load_ctx ctx = { .path = g->path, .file = &whole,
	    .opts = &g->o };
	/* twice at most: a read from the start never asks for another */
	for (int pass = 0; pass < 2; pass++) {
		if (g->b == NULL) {
			begin(g, &ctx);
			g->dev = (uint64_t)st.st_dev;
			g->ino = (uint64_t)st.st_ino;
		}
		ctx.b = g->b;
		if (whole.size <= g->covered)
			break;
		size_t to = g->r->grow_feed(g->state, &ctx, g->covered);
		if (to == SIZE_MAX) {
			/* what was appended changes what was read */
			forget(g);
			g->restarts++;
			continue;
		}
		g->covered = to;
		g->head = hash_head(m.data, g->covered);
		g->tail = hash_tail(m.data, g->covered);
		break;
	}
	if (g->b == NULL) {
		/* asked twice (never from the start): nothing to show */
		mapfile_close(&m);
		mapfile_record_drop();
		*err = xstrdup("cannot be read on from where it stopped");
		return NULL;
	}
	if (load_cancelled(&ctx)) {
		/* the caller throws the read away: no need to make it */
		mapfile_close(&m);
		mapfile_record_drop();
		*err = xstrdup("stopped");
		return NULL;
	}
	return finish_read(g, &ctx, &m, err);
}

void
load_grow_reload(struct load_grow *g, bool on)
{
	g->reload = on;
}

uint64_t
load_grow_restarts(const struct load_grow *g)
{
	return g->restarts;
}

uint64_t
load_grow_unsaved(const struct load_grow *g)
{
	return g->unsaved;
}

void
load_grow_free(struct load_grow *g)
{
	if (g == NULL)
		return;
	forget(g);
	free(g->path);
	free(g);
}
