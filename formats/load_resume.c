/* A trace read for its index with the state to read on from (see
 * load_resume.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_store.h"
#include "load.h"
#include "load_resume.h"
#include "xalloc.h"

#define RESUME_MAGIC UINT64_C(0x31454d5553455254)	/* "TRESUME1" */

const struct reader *
load_resume_reader(const char *path, const char *force_format)
{
	const struct reader *r = force_format != NULL ?
	    load_reader_named(force_format) : load_probe(path);
	struct stat st;
	if (r == NULL || r->grow_begin == NULL || r->grow_save == NULL ||
	    stat(path, &st) != 0)
		return NULL;
	/* a file: the reader must tell its whole records, and read it so */
	return S_ISDIR(st.st_mode) || (r->complete != NULL &&
	    load_file_grows(r, path)) ? r : NULL;
}

/* What a read goes on with: a builder, the reader's state (NULL: begun
 * by the read) and the bytes of the file read before. */
struct start {
	struct builder *b;
	const void *state;
	size_t len;
	size_t covered;
	bool finished;		/* the builder (and its store) went to a model */
};

/* The files a read read, with those the earlier read read and this one
 * did not (a binary functions were named from): the index must match
 * them all. */
static void
add_files(struct trace *t, const struct trace *from)
{
	for (size_t i = 0; from != NULL && i < from->nfiles; i++) {
		bool have = false;
		for (size_t j = 0; j < t->nfiles && !have; j++)
			have = strcmp(t->files[j].path, from->files[i].path) ==
			    0;
		if (have)
			continue;
		t->files = xreallocarray(t->files, t->nfiles + 1,
		    sizeof *t->files);
		t->files[t->nfiles] = from->files[i];
		t->files[t->nfiles++].path = xstrdup(from->files[i].path);
	}
}

/* The state to keep: the reader's name, the bytes read, the builder's
 * and the reader's states. */
static void
put_state(struct blob *save, const char *reader, size_t covered,
    const struct blob *wb, const struct blob *wr)
{
	blob_u64(save, RESUME_MAGIC);
	blob_str(save, reader);
	blob_u64(save, covered);
	blob_array(save, wb->data, wb->len, 1);
	blob_array(save, wr->data, wr->len, 1);
}

/* Reads the trace from s (a builder, and a state or none) to its end:
 * the model, or NULL with *err (nothing read) or without (s does not fit:
 * read whole instead). Frees s's builder. */
static struct trace *
read_from(const char *path, const struct reader *r,
    const struct load_options *o, struct start *s, const struct trace *from,
    struct blob *save, char **err)
{
	struct load_options lo = *o;
	lo.follow = false;
	struct stat st;
	*err = NULL;
	if (stat(path, &st) != 0) {
		builder_free(s->b);
		*err = xstrdup(strerror(errno));
		return NULL;
	}
	bool is_dir = S_ISDIR(st.st_mode);
	struct mapped_file m = { 0 };
	mapfile_record_begin();
	if (!is_dir && mapfile_open(path, &m, err) != 0) {
		mapfile_record_drop();
		builder_free(s->b);
		return NULL;
	}
	struct load_ctx ctx = { .path = path, .file = is_dir ? NULL : &m,
	    .b = s->b, .opts = &lo };
	void *state = NULL;
	size_t to = SIZE_MAX;
	/* A file whose end is no whole record is read whole: the read
	 * says what is wrong there, as always. */
	bool whole = is_dir || (m.size >= s->covered && (r->complete_from ?
	    r->complete_from(m.data, m.size, s->covered) :
	    r->complete(m.data, m.size)) == m.size);
	if (whole && s->state != NULL) {
		struct blob_in in;
		blob_in_init(&in, s->state, s->len);
		state = r->grow_load(&ctx, &in);
		if (state != NULL && (in.bad || in.p != in.end)) {
			r->grow_free(state);
			state = NULL;
		}
	} else if (whole) {
		state = r->grow_begin(&ctx);
	}
	if (state != NULL)
		to = r->grow_feed(state, &ctx, s->covered);
	if (to == SIZE_MAX || load_cancelled(&ctx)) {
		/* what was appended changes what was read before */
		if (state != NULL)
			r->grow_free(state);
		mapfile_close(&m);
		mapfile_record_drop();
		builder_free(s->b);
		if (load_cancelled(&ctx))
			*err = xstrdup("stopped");
		return NULL;
	}
	struct blob wb = { 0 }, wr = { 0 };
	bool kept = r->grow_save(state, &wr);
	/* nothing to keep without the reader's part */
	uint64_t mark = kept ? builder_save(s->b, &wb) : 0;
	/* the end of the read into the builder itself: nothing goes on
	 * after it in this run */
	int rc = r->grow_end(state, &ctx);
	kept = kept && builder_save_holds(s->b, mark);
	r->grow_free(state);
	mapfile_close(&m);
	s->finished = true;
	struct trace *t = load_result(builder_finish(s->b), r, rc, err);
	if (t != NULL) {
		add_files(t, from);
		if (kept && !t->has_errors)
			put_state(save, r->name, is_dir ? 0 : to, &wb, &wr);
	}
	blob_free(&wb);
	blob_free(&wr);
	return t;
}

struct trace *
load_resume_first(const char *path, const struct reader *r,
    const struct load_options *o, struct index_store *store,
    struct blob *save, char **err)
{
	struct start s = { .b = builder_new(path) };
	builder_set_store(s.b, store);
	struct trace *t = read_from(path, r, o, &s, NULL, save, err);
	/* A first read asks for no other (reader.h): the store was not
	 * written to when the trace is for load_trace_store. */
	if (t == NULL && *err != NULL && !s.finished)
		index_store_free(store);
	return t;
}

struct builder *
load_resume_builder(const void *state, size_t len, const char *reader,
    const struct trace *from, const char *path, struct index_store *store,
    bool store_all, const void **rstate, size_t *rlen, size_t *covered)
{
	struct blob_in in;
	blob_in_init(&in, state, len);
	char *name = NULL;
	struct builder *b = NULL;
	if (blob_get_u64(&in) != RESUME_MAGIC ||
	    (name = blob_get_str(&in)) == NULL ||
	    (reader != NULL && strcmp(name, reader) != 0)) {
		free(name);
		return NULL;
	}
	free(name);
	*covered = (size_t)blob_get_u64(&in);
	size_t nb = blob_get_count(&in, 1);
	const void *pb = blob_take(&in, nb);
	*rlen = blob_get_count(&in, 1);
	*rstate = blob_take(&in, *rlen);
	if (in.bad || in.p != in.end)
		return NULL;
	struct blob_in bin;
	blob_in_init(&bin, pb, nb);
	b = builder_load(&bin, from, path, store, store_all);
	if (b != NULL && bin.p != bin.end) {
		builder_free(b);
		b = NULL;
	}
	return b;
}

struct trace *
load_resume_on(const char *path, const struct reader *r,
    const struct load_options *o, const struct trace *from,
    const void *state, size_t len, struct index_store *store,
    struct blob *save, char **err)
{
	struct start s = { 0 };
	*err = NULL;
	s.b = load_resume_builder(state, len, r->name, from, path, store,
	    false, &s.state, &s.len, &s.covered);
	struct trace *t = s.b != NULL ? read_from(path, r, o, &s, from, save,
	    err) : NULL;
	if (t == NULL && !s.finished)
		index_store_free(store);
	return t;
}
