/* The cache of indexes (see index_cache.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "index_cache.h"
#include "index_format.h"
#include "index_hash.h"
#include "xalloc.h"

/* A file left by a writer that died is dropped after this long. */
#define LEFTOVER_SECONDS (60 * 60)

/* mkdir -p of one missing level at a time, mode 0700. */
static int
make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *c = p + 1; ; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		char was = *c;
		*c = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			rc = -1;
			break;
		}
		*c = was;
		if (was == '\0')
			break;
	}
	int err = errno;
	free(p);
	errno = err;
	return rc;
}

char *
index_cache_dir(char **err)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;
	/* XDG: a relative path in the variable is to be ignored. */
	if (xdg != NULL && xdg[0] == '/')
		dir = xasprintf("%s/ttv", xdg);
	else if (home != NULL && home[0] == '/')
		dir = xasprintf("%s/.cache/ttv", home);
	else {
		*err = xstrdup("no cache directory (HOME is not set)");
		return NULL;
	}
	struct stat st;
	if (stat(dir, &st) != 0 && make_dirs(dir) != 0) {
		*err = xasprintf("%s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

char *
index_cache_file(const char *dir, const char *canonical)
{
	const char *base = strrchr(canonical, '/');
	base = base != NULL && base[1] != '\0' ? base + 1 : canonical;
	char name[41];
	size_t n = 0;
	for (const char *c = base; *c != '\0' && n < sizeof name - 1; c++)
		name[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' &&
		    *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
		    *c == '-' || *c == '_' ? *c : '_';
	name[n] = '\0';
	uint64_t h = index_hash(canonical, strlen(canonical) + 1, 0);
	return xasprintf("%s/%s-%016llx%s", dir, n ? name : "trace",
	    (unsigned long long)h, INDEX_SUFFIX);
}

uint64_t
index_cache_max(void)
{
	const char *s = ttv_getenv(TTV_ENV_CACHE_MAX);
	if (s == NULL || *s == '\0')
		return INDEX_CACHE_MAX_DEFAULT;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return INDEX_CACHE_MAX_DEFAULT;
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0')
		return INDEX_CACHE_MAX_DEFAULT;
	if (shift > 0 && v > (UINT64_MAX >> shift))
		return UINT64_MAX;
	return (uint64_t)v << shift;
}

void
index_cache_touch(const char *file)
{
	(void)utimensat(AT_FDCWD, file, NULL, 0);
}

/* Whether fd's file system maps its files shared and writable, as the
 * index store needs (some network and FUSE file systems do not): a
 * directory that cannot is one without an index, said, not an abort
 * halfway through a read. */
static bool
mappable(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page > 0 ? (size_t)page : 4096, PROT_READ |
	    PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, page > 0 ? (size_t)page : 4096);
	return true;
}

static int
create_file(const char *dir, char **tmp, char **err)
{
	*tmp = NULL;
#ifdef O_TMPFILE
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* Only a file system without unnamed files goes on to a named
	 * one; a directory that takes no file at all is said. */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		*err = xasprintf("%s: %s", dir, strerror(errno));
		return -1;
	}
#endif
	char *name = xasprintf("%s/.new-%ld-XXXXXX", dir, (long)getpid());
	int nfd = mkostemp(name, O_CLOEXEC);
	if (nfd < 0) {
		int e = errno;
		*err = xasprintf("%s: %s", dir, strerror(e));
		free(name);
		errno = e;
		return -1;
	}
	*tmp = name;
	return nfd;
}

int
index_cache_create(const char *dir, char **tmp, char **err)
{
	int fd = create_file(dir, tmp, err);
	if (fd < 0 || mappable(fd))
		return fd;
	int e = errno;
	*err = xasprintf("%s: its files cannot be mapped (%s)", dir,
	    strerror(e));
	close(fd);
	if (*tmp != NULL) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	errno = e;
	return -1;
}

int
index_cache_publish(int fd, const char *tmp, const char *file, char **err)
{
	char *named = NULL;
	int rc = -1;
	if (tmp == NULL) {
		/* An unnamed file gets a name of its own first: link cannot
		 * replace a file, rename can. */
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		named = xasprintf("%s.%ld.new", file, (long)getpid());
		unlink(named);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, named,
		    AT_SYMLINK_FOLLOW) != 0) {
			*err = xasprintf("%s: %s", named, strerror(errno));
			goto out;
		}
		tmp = named;
	}
	if (rename(tmp, file) != 0) {
		*err = xasprintf("%s: %s", file, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(named);
	return rc;
}

void
index_cache_abandon(int fd, const char *tmp)
{
	if (tmp != NULL)
		unlink(tmp);
	if (fd >= 0)
		close(fd);
}

struct entry {
	char *path;
	uint64_t bytes;
	int64_t used;		/* ns */
};

static int
by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Whether the index at path names a trace that is gone: its canonical
 * path, after the header, no longer exists. An index that cannot be read
 * as one is left to the opens that meet it (they replace it). */
static bool
trace_gone(const char *path)
{
	struct idx_header h;
	char trace[PATH_MAX];
	bool gone = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
	    memcmp(h.magic, INDEX_MAGIC, sizeof h.magic) == 0 &&
	    h.bom == INDEX_BOM && h.trace_len > 0 &&
	    h.trace_len < sizeof trace &&
	    pread(fd, trace, h.trace_len, sizeof h) == (ssize_t)h.trace_len) {
		struct stat st;
		trace[h.trace_len] = '\0';
		gone = trace[0] == '/' && lstat(trace, &st) != 0 &&
		    errno == ENOENT;
	}
	close(fd);
	return gone;
}

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

void
index_cache_evict(const char *dir, uint64_t max, const char *keep)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		bool index = ends_with(name, INDEX_SUFFIX);
		bool leftover = strncmp(name, ".new-", 5) == 0 ||
		    ends_with(name, ".new");
		if (!index && !leftover)
			continue;
		char *path = xasprintf("%s/%s", dir, name);
		struct stat st;
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (leftover) {
			if (now - st.st_mtime > LEFTOVER_SECONDS)
				unlink(path);
			free(path);
			continue;
		}
		if ((keep == NULL || strcmp(path, keep) != 0) &&
		    trace_gone(path)) {
			unlink(path);
			free(path);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			v = xreallocarray(v, cap, sizeof *v);
		}
		v[n].bytes = (uint64_t)st.st_size;
		v[n].used = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
		v[n].path = path;
		total += v[n].bytes;
		n++;
	}
	closedir(d);
	xqsort(v, n, sizeof *v, by_use);
	for (size_t i = 0; i < n && total > max; i++) {
		if (keep != NULL && strcmp(v[i].path, keep) == 0)
			continue;
		if (unlink(v[i].path) == 0)
			total -= v[i].bytes;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}
