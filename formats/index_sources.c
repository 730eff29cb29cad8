/* Which files a trace is made of (see index_sources.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf_dir.h"
#include "index_sources.h"
#include "load.h"
#include "xalloc.h"
#include "xray_instrmap.h"

/* Files followed at most: a directory holding more is not indexed. */
#define SOURCES_MAX 100000

struct walk {
	const char *root;
	struct index_sources *out;
	bool too_many;
};

static void
add(struct walk *w, char *path)
{
	if (w->out->n >= SOURCES_MAX)
		w->too_many = true;
	else
		index_sources_add(w->out, path);
	free(path);
}

/* The files of one trace directory (rel to the root) and of its index/. */
static bool
on_trace(void *arg, const char *rel)
{
	struct walk *w = arg;
	char *dir = rel[0] ? xasprintf("%s/%s", w->root, rel) :
	    xstrdup(w->root);
	size_t n = 0;
	char **names = ctf_dir_list(dir, &n);
	for (size_t i = 0; i < n; i++) {
		const char *why;
		enum ctf_dir_file k = ctf_dir_classify(w->root, rel, names[i],
		    &why);
		if (k == CTF_FILE_STREAM)
			add(w, xasprintf("%s/%s", dir, names[i]));
		else if (k == CTF_FILE_SUBDIR && strcmp(names[i], "index") == 0) {
			char *sub = xasprintf("%s/%s", dir, names[i]);
			size_t m = 0;
			char **idx = ctf_dir_list(sub, &m);
			for (size_t j = 0; j < m; j++) {
				char *p = xasprintf("%s/%s", sub, idx[j]);
				struct stat st;
				if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
					add(w, p);
				else
					free(p);
				free(idx[j]);
			}
			free(idx);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return !w->too_many;
}

static void
on_skipped(void *arg, const char *rel, const char *why)
{
	(void)arg;
	(void)rel;
	(void)why;
}

/* XRay's instrumentation map: the one given, else the one the reader
 * finds beside the log, else the places it would look, as they are. */
static void
instr_map(const char *path, const struct open_options *o,
    struct index_sources *out)
{
	if (o->load.instr_map != NULL) {
		index_sources_add(out, o->load.instr_map);
		return;
	}
	char *found = xray_instrmap_discover(path);
	if (found != NULL) {
		index_sources_add(out, found);
		free(found);
		return;
	}
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (strncmp(base, "xray-log.", 9) != 0 || dot == NULL ||
	    dot <= base + 9)
		return;
	char *prog = xstrndup(base + 9, (size_t)(dot - base - 9));
	if (slash != NULL) {
		char *beside = xasprintf("%.*s/%s", (int)(slash - path), path,
		    prog);
		index_sources_add(out, beside);
		free(beside);
	}
	index_sources_add(out, prog);
	free(prog);
}

bool
index_sources_of(const char *path, const char *canonical,
    const struct open_options *o, struct index_sources *out)
{
	struct stat st;
	memset(out, 0, sizeof *out);
	if (stat(canonical, &st) != 0)
		return false;
	if (S_ISDIR(st.st_mode)) {
		struct walk w = { canonical, out, false };
		struct ctf_dir_walk dw = { on_trace, on_skipped, NULL, &w };
		ctf_dir_walk(canonical, &dw);
		index_sources_done(out);
		return !w.too_many;
	}
	index_sources_add(out, canonical);
	const struct reader *r = NULL;
	if (o->force_format == NULL)
		r = load_probe(path);
	if ((o->force_format != NULL && strcmp(o->force_format, "xray") == 0) ||
	    (r != NULL && strcmp(r->name, "xray") == 0))
		instr_map(path, o, out);
	index_sources_done(out);
	return true;
}
