/* mmap-backed read-only files (see mapfile.h). */
#include "config.h"
#include "env.h"
#include "mapfile.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
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

/*
 * A file shrunk while it is mapped: reading a page past its new end raises
 * SIGBUS, on whichever thread reads. The handler (async-signal-safe only)
 * says which file changed, lets the caller's hook put the terminal back,
 * and exits with status 1. Other SIGBUS keep their default action.
 */
#define GUARDS 64
static struct {
	const unsigned char *lo, *hi;
	char name[256];
} guards[GUARDS];
static void (*bus_hook)(void);
static bool guard_installed;

static void
put(const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
}

static void
on_bus(int sig, siginfo_t *si, void *ctx)
{
	const unsigned char *a = si != NULL ? si->si_addr : NULL;
	(void)ctx;
	for (int i = 0; i < GUARDS; i++)
		if (guards[i].lo != NULL && a >= guards[i].lo &&
		    a < guards[i].hi) {
			if (bus_hook != NULL)
				bus_hook();
			put("ttv: ");
			put(guards[i].name);
			put(": changed while being read (the file shrank)\n");
			_exit(1);
		}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
mapfile_on_bus(void (*hook)(void))
{
	bus_hook = hook;
}

static void
guard(const struct mapped_file *m, bool on)
{
	for (int i = 0; i < GUARDS; i++) {
		if (on && guards[i].lo == NULL) {
			/* The name first: the handler reads it once lo is set. */
			snprintf(guards[i].name, sizeof guards[i].name, "%s",
			    m->path);
			for (char *c = guards[i].name; *c != '\0'; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?';
			guards[i].hi = m->data + m->size;
			__atomic_store_n(&guards[i].lo, m->data, __ATOMIC_RELEASE);
			break;
		}
		if (!on && guards[i].lo == m->data) {
			__atomic_store_n(&guards[i].lo, NULL, __ATOMIC_RELEASE);
			break;
		}
	}
	if (on && !guard_installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		guard_installed = true;
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
		guard(out, true);
		/* Tests shrink the file here, as a writer still at work or a
		 * rotation would, to meet the guard. */
		if (ttv_getenv(TTV_ENV_TEST_SHRINK) != NULL && out->size > 8192)
			(void)!truncate(path, (off_t)(out->size / 2));
	}
	close(fd);
	return 0;
}

void
mapfile_close(struct mapped_file *m)
{
	if (m->data != NULL) {
		guard(m, false);
		munmap((void *)m->data, m->size);
	}
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
