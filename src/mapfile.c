/* mmap-backed read-only files (see mapfile.h). */
#include "config.h"
#include "mapfile.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int
mapfile_open(const char *path, struct mapped_file *out, char **err)
{
	memset(out, 0, sizeof *out);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = xstrdup(strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = xstrdup(strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		*err = xstrdup("is a directory");
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		/* Pipes and devices cannot be mapped; read them into memory. */
		size_t cap = 1 << 20, len = 0;
		unsigned char *buf = xmalloc(cap);
		for (;;) {
			if (len == cap)
				buf = xrealloc(buf, cap *= 2);
			ssize_t n = read(fd, buf + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				*err = xstrdup(strerror(errno));
				free(buf);
				close(fd);
				return -1;
			}
			if (n == 0)
				break;
			len += (size_t)n;
		}
		close(fd);
		/* Keep one ownership rule: copy into an anonymous mapping. */
		void *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
		if (len && p == MAP_FAILED) {
			*err = xstrdup(strerror(errno));
			free(buf);
			return -1;
		}
		if (len)
			memcpy(p, buf, len);
		free(buf);
		out->data = p;
		out->size = len;
		out->path = xstrdup(path);
		return 0;
	}
	out->size = (size_t)st.st_size;
	out->path = xstrdup(path);
	if (out->size > 0) {
		void *p = mmap(NULL, out->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			*err = xstrdup(strerror(errno));
			close(fd);
			free(out->path);
			out->path = NULL;
			return -1;
		}
		out->data = p;
	}
	close(fd);
	return 0;
}

void
mapfile_close(struct mapped_file *m)
{
	if (m->data != NULL)
		munmap((void *)m->data, m->size);
	free(m->path);
	memset(m, 0, sizeof *m);
}

void
mapfile_sequential(const struct mapped_file *m)
{
#ifdef HAVE_MADVISE
	if (m->data != NULL)
		madvise((void *)m->data, m->size, MADV_SEQUENTIAL);
#endif
}

void
mapfile_release(const struct mapped_file *m, size_t upto)
{
#ifdef HAVE_MADVISE
	long page = sysconf(_SC_PAGESIZE);
	if (m->data == NULL || page <= 0)
		return;
	if (upto > m->size)
		upto = m->size;
	size_t len = upto & ~((size_t)page - 1);
	if (len > 0)
		madvise((void *)m->data, len, MADV_DONTNEED);
#endif
}
