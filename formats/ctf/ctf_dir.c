/* A bounded, cycle-free walk for CTF trace directories (see ctf_dir.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf_dir.h"
#include "hashmap.h"
#include "mapfile.h"
#include "xalloc.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
ctf_dir_list(const char *path, size_t *n)
{
	*n = 0;
	DIR *dir = opendir(path);
	if (dir == NULL)
		return NULL;
	VEC(char *) v = { 0 };
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		VEC_PUSH(&v, xstrdup(de->d_name));
	}
	closedir(dir);
	if (v.len)
		xqsort(v.items, v.len, sizeof *v.items, cmp_str);
	*n = v.len;
	return v.items;
}

static char *
join(const char *a, const char *b)
{
	if (a[0] == '\0')
		return xstrdup(b);
	return xasprintf("%s/%s", a, b);
}

struct walk_state {
	const struct ctf_dir_walk *w;
	const char *root;
	dev_t dev;		/* the root's file system */
	struct hashmap seen;	/* (device, inode) of the directories met */
	size_t entries;
	bool stopped;		/* by the callback, the budget or the depth */
	bool done;		/* the callback asked to stop */
};

static void
skip(struct walk_state *s, const char *rel, const char *why)
{
	if (s->w->skipped != NULL)
		s->w->skipped(s->w->arg, rel, why);
}

/* A directory met before (a hard-linked or bind-mounted one): found by
 * its identity in a hash, as the walk may meet up to its entry budget of
 * directories. */
static bool
seen_before(struct walk_state *s, const struct stat *st)
{
	uint32_t unused;
	if (hashmap_get(&s->seen, (uint64_t)st->st_dev, (uint64_t)st->st_ino,
	    &unused))
		return true;
	hashmap_put(&s->seen, (uint64_t)st->st_dev, (uint64_t)st->st_ino, 0);
	return false;
}

static void
walk(struct walk_state *s, const char *rel, const struct stat *dst,
    int depth)
{
	if (s->done)
		return;
	if (depth > CTF_DIR_MAX_DEPTH) {
		skip(s, rel, "deeper than the walk goes");
		s->stopped = true;
		return;
	}
	if (seen_before(s, dst))
		return;
	char *full = join(s->root, rel);
	size_t n;
	char **names = ctf_dir_list(full, &n);
	if (names == NULL && n == 0) {
		/* Unreadable directories below the root are common
		 * (/root, /proc/1/...): passed over quietly. */
		free(full);
		return;
	}
	bool has_meta = false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "metadata") == 0) {
			char *p = join(full, names[i]);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
				has_meta = true;
			free(p);
		}
	if (has_meta && !s->w->trace(s->w->arg, rel)) {
		s->done = s->stopped = true;
	}
	for (size_t i = 0; i < n; i++) {
		if (!s->done && s->entries >= CTF_DIR_MAX_ENTRIES) {
			char why[96];
			snprintf(why, sizeof why, "stopped looking for traces "
			    "after %d entries", CTF_DIR_MAX_ENTRIES);
			skip(s, rel, why);
			s->done = s->stopped = true;
		}
		if (!s->done) {
			s->entries++;
			if (s->w->progress != NULL && s->entries % 4096 == 0)
				s->w->progress(s->w->arg, s->entries);
			char *p = join(full, names[i]);
			struct stat st;
			/* lstat: a link to a directory is not followed (it
			 * could lead anywhere, or back here). */
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
				char *sub = join(rel, names[i]);
				if (st.st_dev != s->dev)
					skip(s, sub, "on another file system, "
					    "not entered");
				else
					walk(s, sub, &st, depth + 1);
				free(sub);
			}
			free(p);
		}
		free(names[i]);
	}
	free(names);
	free(full);
}

bool
ctf_dir_walk(const char *root, const struct ctf_dir_walk *w)
{
	struct walk_state s = { .w = w, .root = root };
	struct stat st;

	/* The root itself may be a link: the user named it. */
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	s.dev = st.st_dev;
	walk(&s, "", &st, 0);
	hashmap_free(&s.seen);
	return !s.stopped;
}

/* Whether real (a resolved path) lies inside the tree rooted at rroot. */
static bool
inside(const char *rroot, const char *real)
{
	size_t n = strlen(rroot);
	if (strcmp(rroot, "/") == 0)
		return true;
	return strncmp(real, rroot, n) == 0 && (real[n] == '/' ||
	    real[n] == '\0');
}

enum ctf_dir_file
ctf_dir_classify(const char *root, const char *rel, const char *name,
    const char **why)
{
	char *dir = join(root, rel);
	char *p = join(dir, name);
	struct stat st;
	enum ctf_dir_file kind = CTF_FILE_SKIP;

	*why = NULL;
	if (lstat(p, &st) != 0) {
		*why = "cannot be examined";
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		kind = CTF_FILE_SUBDIR;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		char *rroot = realpath(root, NULL);
		char *real = realpath(p, NULL);
		if (real == NULL)
			*why = "a dangling link";
		else if (rroot == NULL || !inside(rroot, real))
			*why = "a link to a file outside the trace, not read";
		else if (stat(real, &st) != 0)
			*why = "a link that cannot be followed";
		else if (!S_ISREG(st.st_mode))
			*why = "a link to something that is not a file";
		else
			kind = CTF_FILE_STREAM;
		free(rroot);
		free(real);
		goto out;
	}
	if (S_ISREG(st.st_mode))
		kind = CTF_FILE_STREAM;
	else
		*why = mapfile_kind(st.st_mode);
out:
	free(p);
	free(dir);
	return kind;
}
