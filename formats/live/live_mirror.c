/* The local copy of a live session (live_mirror.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live_mirror.h"
#include "xalloc.h"

/* LTTng's packet index, version 1.0: a header (magic, major, minor,
 * entry size) and 7 big-endian u64 an entry, the fields a live index
 * gives (1.1 adds two the relay does not send). */
#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HEADER 16
#define IDX_ENTRY 56

/* How deep the relay's path for a trace goes, at most (its own layout
 * is 6 deep), and the longest name kept of each of its parts. */
#define PATH_PARTS 12
#define PART_MAX 128

struct mtrace {
	uint64_t id;
	char *dir;		/* relative to the root */
	uint64_t metadata_size;
};

struct mstream {
	char *data, *index;	/* relative to the root */
	uint64_t size;
};

struct live_mirror {
	char *root;
	int rootfd, lockfd;
	struct mtrace *traces;
	size_t ntraces;
	struct mstream *streams;
	size_t nstreams;
	uint64_t bytes;
};

/* Removes what dirfd/name holds, never following a link (a link is
 * removed, not what it names), at most 32 directories deep. */
static int
remove_tree(int dirfd, const char *name, int depth)
{
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth > 32)
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	DIR *d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (remove_tree(fd, e->d_name, depth + 1) != 0)
			rc = -1;
	}
	closedir(d);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0)
		rc = -1;
	return rc;
}

/* mkdir -p of path (absolute or relative to dirfd), mode 0700. */
static int
make_dirs(int dirfd, const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdirat(dirfd, p, 0700) != 0 && errno != EEXIST) {
			rc = -1;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

struct live_mirror *
live_mirror_open(const char *root, char **err)
{
	struct live_mirror *m = xcalloc(1, sizeof *m);
	m->root = xstrdup(root);
	m->rootfd = m->lockfd = -1;

	char *parent = xstrdup(root);
	char *slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent)
		*slash = '\0';
	if (make_dirs(AT_FDCWD, parent) != 0) {
		*err = xasprintf("cannot make the directory %s: %s", parent,
		    strerror(errno));
		free(parent);
		live_mirror_close(m);
		return NULL;
	}
	free(parent);
	char *lock = xasprintf("%s.lock", root);
	m->lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (m->lockfd < 0 || flock(m->lockfd, LOCK_EX | LOCK_NB) != 0) {
		*err = m->lockfd < 0 ? xasprintf("cannot open %s: %s", lock,
		    strerror(errno)) : xasprintf("another ttv is reading "
		    "this session into %s", root);
		free(lock);
		live_mirror_close(m);
		return NULL;
	}
	free(lock);
	if (remove_tree(AT_FDCWD, root, 0) != 0 || mkdir(root, 0700) != 0 ||
	    (m->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		*err = xasprintf("cannot make an empty directory %s: %s", root,
		    strerror(errno));
		live_mirror_close(m);
		return NULL;
	}
	return m;
}

void
live_mirror_close(struct live_mirror *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->ntraces; i++)
		free(m->traces[i].dir);
	for (size_t i = 0; i < m->nstreams; i++) {
		free(m->streams[i].data);
		free(m->streams[i].index);
	}
	free(m->traces);
	free(m->streams);
	if (m->rootfd >= 0)
		close(m->rootfd);
	if (m->lockfd >= 0)
		close(m->lockfd);
	free(m->root);
	free(m);
}

const char *
live_mirror_root(const struct live_mirror *m)
{
	return m->root;
}

/* A safe file name from a relay's name: at most PART_MAX bytes of
 * [A-Za-z0-9._+@-], others made '_', no leading dot. Empty when nothing
 * is left. */
static void
safe_name(const char *s, size_t len, char *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < PART_MAX; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '+' || c == '@' || c == '-';
		out[n++] = ok ? (char)c : '_';
	}
	out[n] = '\0';
	if (out[0] == '.')
		out[0] = '_';
}

/* The relay's path, part by part made safe ("." and ".." parts left
 * out): a relative path, "" when nothing is left. */
static char *
safe_path(const char *path)
{
	char *out = xmalloc(PATH_PARTS * (PART_MAX + 1) + 1);
	size_t n = 0, parts = 0;
	const char *p = path;
	out[0] = '\0';
	while (*p != '\0' && parts < PATH_PARTS) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > 0 && !(len == 1 && p[0] == '.') &&
		    !(len == 2 && p[0] == '.' && p[1] == '.')) {
			char part[PART_MAX + 1];
			safe_name(p, len, part);
			n += (size_t)sprintf(out + n, "%s%s", n ? "/" : "",
			    part);
			parts++;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	return out;
}

int
live_mirror_trace(struct live_mirror *m, uint64_t trace_id,
    const char *path, char **err)
{
	for (size_t i = 0; i < m->ntraces; i++)
		if (m->traces[i].id == trace_id)
			return (int)i;
	char *dir = safe_path(path);
	if (dir[0] == '\0') {
		free(dir);
		dir = xasprintf("trace-%llu", (unsigned long long)trace_id);
	}
	/* Two relay traces in one place would mix their streams. */
	for (size_t i = 0; i < m->ntraces; i++)
		if (strcmp(m->traces[i].dir, dir) == 0) {
			char *d = xasprintf("%s-%llu", dir,
			    (unsigned long long)trace_id);
			free(dir);
			dir = d;
			break;
		}
	if (make_dirs(m->rootfd, dir) != 0) {
		*err = xasprintf("cannot make the directory %s/%s: %s",
		    m->root, dir, strerror(errno));
		free(dir);
		return -1;
	}
	m->traces = xreallocarray(m->traces, m->ntraces + 1,
	    sizeof *m->traces);
	m->traces[m->ntraces] = (struct mtrace){ .id = trace_id, .dir = dir };
	return (int)m->ntraces++;
}

/* Writes all of buf to fd. */
static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Appends to root/rel (created when flags say so). */
static int
append(struct live_mirror *m, const char *rel, int flags, const void *buf,
    size_t len, char **err)
{
	int fd = openat(m->rootfd, rel, O_WRONLY | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW | flags, 0600);
	if (fd < 0 || write_all(fd, buf, len) != 0) {
		*err = xasprintf("cannot write %s/%s: %s", m->root, rel,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (close(fd) != 0) {
		*err = xasprintf("cannot write %s/%s: %s", m->root, rel,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
live_mirror_metadata(struct live_mirror *m, int trace, const void *buf,
    size_t len, char **err)
{
	struct mtrace *t = &m->traces[trace];
	char *rel = xasprintf("%s/metadata", t->dir);
	int rc = append(m, rel, O_CREAT, buf, len, err);
	free(rel);
	if (rc == 0) {
		t->metadata_size += len;
		m->bytes += len;
	}
	return rc;
}

uint64_t
live_mirror_metadata_size(const struct live_mirror *m, int trace)
{
	return m->traces[trace].metadata_size;
}

int
live_mirror_stream(struct live_mirror *m, int trace, uint64_t stream_id,
    const char *channel, char **err)
{
	const char *dir = m->traces[trace].dir;
	char name[PART_MAX + 32];
	safe_name(channel, strlen(channel), name);
	/* A stream file may not take the trace's own names. */
	if (name[0] == '\0' || strcmp(name, "metadata") == 0 ||
	    strcmp(name, "index") == 0)
		snprintf(name, sizeof name, "stream-%llu",
		    (unsigned long long)stream_id);
	char *data = xasprintf("%s/%s", dir, name);
	int fd = openat(m->rootfd, data, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* Two streams of one channel name: the id tells them
		 * apart. */
		free(data);
		snprintf(name + strlen(name), sizeof name - strlen(name),
		    "-%llu", (unsigned long long)stream_id);
		data = xasprintf("%s/%s", dir, name);
		fd = openat(m->rootfd, data, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0) {
		*err = xasprintf("cannot make %s/%s: %s", m->root, data,
		    strerror(errno));
		free(data);
		return -1;
	}
	close(fd);
	char *idir = xasprintf("%s/index", dir);
	if (mkdirat(m->rootfd, idir, 0700) != 0 && errno != EEXIST) {
		*err = xasprintf("cannot make %s/%s: %s", m->root, idir,
		    strerror(errno));
		free(idir);
		free(data);
		return -1;
	}
	free(idir);
	char *index = xasprintf("%s/index/%s.idx", dir, name);
	uint8_t head[IDX_HEADER];
	live_put32(head, IDX_MAGIC);
	live_put32(head + 4, 1);
	live_put32(head + 8, 0);
	live_put32(head + 12, IDX_ENTRY);
	if (append(m, index, O_CREAT | O_EXCL, head, sizeof head, err) != 0) {
		free(index);
		free(data);
		return -1;
	}
	m->streams = xreallocarray(m->streams, m->nstreams + 1,
	    sizeof *m->streams);
	m->streams[m->nstreams] = (struct mstream){ .data = data,
	    .index = index };
	return (int)m->nstreams++;
}

int
live_mirror_packet(struct live_mirror *m, int stream, const void *buf,
    size_t len, const struct live_index *ix, char **err)
{
	struct mstream *s = &m->streams[stream];
	/* The packet first: an index entry never names bytes not there. */
	if (append(m, s->data, 0, buf, len, err) != 0)
		return -1;
	uint8_t e[IDX_ENTRY];
	live_put64(e, s->size);
	live_put64(e + 8, ix->packet_size);
	live_put64(e + 16, ix->content_size);
	live_put64(e + 24, ix->ts_begin);
	live_put64(e + 32, ix->ts_end);
	live_put64(e + 40, ix->discarded);
	live_put64(e + 48, ix->stream_class);
	if (append(m, s->index, 0, e, sizeof e, err) != 0)
		return -1;
	s->size += len;
	m->bytes += len;
	return 0;
}

const char *
live_mirror_stream_file(const struct live_mirror *m, int stream)
{
	return m->streams[stream].data;
}

uint64_t
live_mirror_bytes(const struct live_mirror *m)
{
	return m->bytes;
}

int
live_mirror_has_data(const struct live_mirror *m)
{
	for (size_t i = 0; i < m->ntraces; i++)
		if (m->traces[i].metadata_size > 0)
			return 1;
	return 0;
}
