/* Opening a trace: probe, map, read, build (see load.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_store.h"
#include "live.h"
#include "load.h"
#include "xalloc.h"

#define PROBE_BYTES 4096

static const struct reader *
probe(const char *path, const struct mapped_file *m, bool is_dir)
{
	const struct reader *best = NULL;
	int best_score = 0;
	size_t n = m ? (m->size < PROBE_BYTES ? m->size : PROBE_BYTES) : 0;
	for (size_t i = 0; ttv_readers[i] != NULL; i++) {
		int score = ttv_readers[i]->probe(path, m ? m->data : NULL, n,
		    is_dir);
		if (score > best_score) {
			best_score = score;
			best = ttv_readers[i];
		}
	}
	return best;
}

const struct reader *
load_reader_named(const char *name)
{
	for (size_t i = 0; ttv_readers[i] != NULL; i++)
		if (strcmp(ttv_readers[i]->name, name) == 0)
			return ttv_readers[i];
	return NULL;
}

const struct reader *
load_probe(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	if (S_ISDIR(st.st_mode))
		return probe(path, NULL, true);
	struct mapped_file m;
	char *err = NULL;
	if (mapfile_open(path, &m, &err) != 0) {
		free(err);
		return NULL;
	}
	const struct reader *r = probe(path, &m, false);
	mapfile_close(&m);
	return r;
}

bool
load_file_grows(const struct reader *r, const char *path)
{
	struct stat st;
	if (r->grows == NULL)
		return true;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	unsigned char head[64];
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	/* a head not written yet: too soon to tell, read whole until it
	 * is */
	return n > 0 && r->grows(head, (size_t)n);
}

struct trace *
load_trace(const char *path, const char *force_format,
    const struct load_options *opts, char **err)
{
	return load_trace_store(path, force_format, opts, NULL, err);
}

struct trace *
load_result(struct trace *t, const struct reader *r, int rc, char **err)
{
	t->files = mapfile_record_end(&t->nfiles);
	if (rc == 0)
		return t;
	/* Nothing usable: hand back the first error as the reason. */
	for (size_t i = 0; i < t->ndiags; i++)
		if (t->diags[i].level == DIAG_ERROR) {
			*err = xstrdup(t->diags[i].text);
			break;
		}
	if (*err == NULL)
		*err = xasprintf("cannot read this %s trace", r->name);
	trace_free(t);
	return NULL;
}

struct trace *
load_trace_store(const char *path, const char *force_format,
    const struct load_options *opts, struct index_store *store, char **err)
{
	static const struct load_options no_opts;
	if (opts == NULL)
		opts = &no_opts;
	*err = NULL;
	/* A live session is fetched into a CTF directory, then read as one
	 * under its URL's name (formats/live/live.h). */
	const char *name = path;
	struct live_client *live = NULL;
	if (live_url_is(path)) {
		if ((live = live_snapshot(path, opts, err)) == NULL)
			goto fail;
		path = live_client_dir(live);
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xstrdup(strerror(errno));
		goto fail;
	}
	bool is_dir = S_ISDIR(st.st_mode);
	struct mapped_file m = { 0 };
	/* every file the reader reads is listed in the trace */
	mapfile_record_begin();
	if (!is_dir && mapfile_open(path, &m, err) != 0) {
		mapfile_record_drop();
		goto fail;
	}

	const struct reader *r;
	if (force_format != NULL) {
		r = load_reader_named(force_format);
		if (r == NULL) {
			*err = xasprintf("unknown format '%s'", force_format);
			mapfile_close(&m);
			mapfile_record_drop();
			goto fail;
		}
	} else {
		r = probe(path, is_dir ? NULL : &m, is_dir);
		if (r == NULL) {
			*err = xstrdup(is_dir ? "no trace found in this "
			    "directory" : m.size == 0 ? "empty file" :
			    "not a trace format ttv knows");
			mapfile_close(&m);
			mapfile_record_drop();
			goto fail;
		}
	}

	/* A file being written is read up to its last whole record; the
	 * mapping stays whole (it is unmapped by its own size). */
	struct mapped_file whole = m;
	if (!is_dir && opts->follow && r->complete != NULL)
		whole.size = r->complete(m.data, m.size);
	struct builder *b = builder_new(name);
	if (opts->follow)
		builder_open_to_now(b);
	builder_set_store(b, store);
	store = NULL;	/* the model's from here */
	struct load_ctx ctx = {
		.path = path, .file = is_dir ? NULL : &whole, .b = b,
		.opts = opts,
	};
	int rc = r->load(&ctx);
	mapfile_close(&m);
	if (live != NULL) {
		live_client_report(live, b);
		live_client_close(live);
	}
	return load_result(builder_finish(b), r, rc, err);
fail:
	live_client_close(live);
	index_store_free(store);
	return NULL;
}
