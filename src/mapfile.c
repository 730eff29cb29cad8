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

const char *
mapfile_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a file";
	}
}

int
mapfile_open(const char *path, struct mapped_file *out, char **err)
{
	memset(out, 0, sizeof *out);
	/* Never wait on a FIFO or a device: O_NONBLOCK opens at once, and
	 * only a regular file is read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
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
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("not a regular file (%s): only files are read",
		    mapfile_kind(st.st_mode));
		close(fd);
		return -1;
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
