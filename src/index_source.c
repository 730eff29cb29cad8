/* The identities of a trace's files (see index_source.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_hash.h"
#include "index_source.h"
#include "xalloc.h"

/* A file's path whatever way it was spelt (./t, t, a symbolic link), so
 * that every spelling of a trace's path lists the same files: the
 * file's canonical path, else (a file looked for and absent) its
 * directory's and its name, else the path as it is. */
static char *
canonical(const char *path)
{
	char *c = realpath(path, NULL);
	if (c != NULL)
		return c;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) :
	    xstrdup(".");
	c = realpath(dir, NULL);
	free(dir);
	if (c == NULL)
		return xstrdup(path);
	char *out = xasprintf("%s/%s", strcmp(c, "/") == 0 ? "" : c,
	    slash ? slash + 1 : path);
	free(c);
	return out;
}

/* The hash of [off, off + len) of an open file, reading what is there. */
static uint64_t
hash_range(int fd, uint64_t off, size_t len)
{
	unsigned char *buf = xmalloc(len ? len : 1);
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	uint64_t h = index_hash(buf, got, 0);
	free(buf);
	return h;
}

void
index_sources_add(struct index_sources *s, const char *path)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	struct index_source *e = &s->v[s->n++];
	memset(e, 0, sizeof *e);
	e->path = canonical(path);
	e->kind = IDX_SOURCE_ABSENT;
	/* Never blocks: a FIFO or a device is only looked at. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	e->kind = IDX_SOURCE_FILE;
	e->dev = (uint64_t)st.st_dev;
	e->ino = (uint64_t)st.st_ino;
	e->size = (uint64_t)st.st_size;
	e->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	e->head_hash = hash_range(fd, 0, e->size < INDEX_HEAD_BYTES ?
	    (size_t)e->size : INDEX_HEAD_BYTES);
	e->covered = e->size;
	size_t tail = e->size < INDEX_TAIL_BYTES ? (size_t)e->size :
	    INDEX_TAIL_BYTES;
	e->tail_hash = hash_range(fd, e->size - tail, tail);
	s->bytes += e->size;
	close(fd);
}

static int
cmp_path(const void *a, const void *b)
{
	const struct index_source *x = a, *y = b;
	return strcmp(x->path, y->path);
}

void
index_sources_done(struct index_sources *s)
{
	xqsort(s->v, s->n, sizeof *s->v, cmp_path);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k > 0 && strcmp(s->v[k - 1].path, s->v[i].path) == 0) {
			free(s->v[i].path);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
}

void
index_sources_free(struct index_sources *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* Whether the file now is the one read then with data appended: same
 * file, longer, and the bytes read then still the same at both ends. */
static bool
grew(const struct index_source *was, const struct index_source *cur)
{
	if (was->kind != IDX_SOURCE_FILE || cur->kind != IDX_SOURCE_FILE ||
	    was->dev != cur->dev || was->ino != cur->ino ||
	    cur->size <= was->covered)
		return false;
	if (was->covered >= INDEX_HEAD_BYTES &&
	    was->head_hash != cur->head_hash)
		return false;
	int fd = open(cur->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	size_t tail = was->covered < INDEX_TAIL_BYTES ?
	    (size_t)was->covered : INDEX_TAIL_BYTES;
	uint64_t th = hash_range(fd, was->covered - tail, tail);
	size_t head = was->covered < INDEX_HEAD_BYTES ?
	    (size_t)was->covered : INDEX_HEAD_BYTES;
	uint64_t hh = hash_range(fd, 0, head);
	close(fd);
	return th == was->tail_hash && hh == was->head_hash;
}

char *
index_sources_diff(const struct index_sources *was,
    const struct index_sources *cur, bool *appended)
{
	size_t i = 0, j = 0;
	bool any_grew = false;

	*appended = false;
	while (i < was->n || j < cur->n) {
		int c = i >= was->n ? 1 : j >= cur->n ? -1 :
		    strcmp(was->v[i].path, cur->v[j].path);
		if (c < 0)
			return xasprintf("%s is no longer part of the trace",
			    was->v[i].path);
		if (c > 0 && cur->v[j].kind == IDX_SOURCE_FILE &&
		    cur->v[j].size > 0 && was->n > 0) {
			/* a file not looked for before (a CTF directory's
			 * new stream): appended data too */
			j++;
			any_grew = true;
			continue;
		}
		if (c > 0)
			return xasprintf("%s is new", cur->v[j].path);
		const struct index_source *a = &was->v[i++], *b = &cur->v[j++];
		if (a->kind != b->kind)
			return xasprintf(b->kind == IDX_SOURCE_ABSENT ?
			    "%s is gone" : "%s appeared", b->path);
		if (a->kind == IDX_SOURCE_ABSENT || (a->dev == b->dev &&
		    a->ino == b->ino && a->size == b->size &&
		    a->mtime_ns == b->mtime_ns && a->head_hash == b->head_hash))
			continue;
		if (grew(a, b)) {
			any_grew = true;
			continue;
		}
		if (a->dev != b->dev || a->ino != b->ino)
			return xasprintf("%s was replaced", b->path);
		if (a->size != b->size)
			return xasprintf("%s changed size (%llu to %llu bytes)",
			    b->path, (unsigned long long)a->size,
			    (unsigned long long)b->size);
		return xasprintf("%s was modified", b->path);
	}
	if (!any_grew)
		return NULL;
	*appended = true;
	return xstrdup("the trace grew (data was appended)");
}

void
index_sources_cover(struct index_sources *cur,
    const struct index_sources *now, const struct index_sources *was)
{
	memset(cur, 0, sizeof *cur);
	for (size_t i = 0; i < now->n; i++) {
		if (cur->n == cur->cap) {
			cur->cap = cur->cap ? cur->cap * 2 : 8;
			cur->v = xreallocarray(cur->v, cur->cap, sizeof *cur->v);
		}
		cur->v[cur->n] = now->v[i];
		cur->v[cur->n++].path = xstrdup(now->v[i].path);
	}
	cur->bytes = now->bytes;
	/* Both sorted by path: one walk finds what now lacks. */
	size_t j = 0;
	for (size_t i = 0; i < was->n; i++) {
		while (j < now->n && strcmp(now->v[j].path, was->v[i].path) < 0)
			j++;
		if (j < now->n && strcmp(now->v[j].path, was->v[i].path) == 0)
			continue;
		index_sources_add(cur, was->v[i].path);
	}
	index_sources_done(cur);
}
