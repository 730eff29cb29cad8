/* mmap-backed read-only files (see mapfile.h). */
#include "config.h"
#include "env.h"
#include "hashmap.h"
#include "mapfile.h"
#include "model.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
 * SIGBUS, on whichever thread reads. The handler says which file changed,
 * lets the caller's hook put the terminal back, and exits with status 1.
 * Other SIGBUS keep their default action.
 *
 * Every mapping has a guard: blocks of GUARDS_PER_BLOCK slots in a list
 * that only grows (a block is never freed, a slot is reused), so that the
 * handler can walk it without a lock or an allocation, whatever thread it
 * interrupts. A slot is taken and given back under guard_lock (the free
 * ones on a stack, each mapping's found by its start in a hash: no walk,
 * however many files are mapped), filled while its lo is NULL, then
 * published by storing lo; the handler reads lo first (acquire) and
 * skips what is not published.
 */
#define GUARDS_PER_BLOCK 64
struct mapfile_guard {
	const unsigned char *lo;	/* atomic: NULL or the start */
	const unsigned char *hi;
	char name[256];
};
struct guard_block {
	struct mapfile_guard g[GUARDS_PER_BLOCK];
	struct guard_block *next;	/* atomic */
};
static struct guard_block guards;
static void (*bus_hook)(void);
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct guard_block *guard_last = &guards;	/* the list's end */
static int guard_used;		/* slots of guard_last handed out */
static VEC(struct mapfile_guard *) guard_all;	/* every slot, by number */
static VEC(uint32_t) guard_free;	/* the numbers of slots given back */
static struct hashmap guard_of;	/* a mapping's start -> its slot's number */
#define GUARD_NONE UINT32_MAX

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
	for (struct guard_block *b = &guards; b != NULL;
	    b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE))
		for (int i = 0; i < GUARDS_PER_BLOCK; i++) {
			struct mapfile_guard *g = &b->g[i];
			const unsigned char *lo = __atomic_load_n(&g->lo,
			    __ATOMIC_ACQUIRE);
			if (lo == NULL || a < lo || a >= g->hi)
				continue;
			if (bus_hook != NULL)
				bus_hook();
			put("ttv: ");
			put(g->name);
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
install_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static void
guard_on(const struct mapped_file *m)
{
	pthread_once(&guard_once, install_handler);
	pthread_mutex_lock(&guard_lock);
	uint32_t k;
	if (guard_free.len > 0)
		k = guard_free.items[--guard_free.len];
	else {
		if (guard_used == GUARDS_PER_BLOCK) {
			/* every slot taken: a new block at the end */
			struct guard_block *nb = xcalloc(1, sizeof *nb);
			__atomic_store_n(&guard_last->next, nb,
			    __ATOMIC_RELEASE);
			guard_last = nb;
			guard_used = 0;
		}
		k = (uint32_t)guard_all.len;
		VEC_PUSH(&guard_all, &guard_last->g[guard_used++]);
	}
	hashmap_put(&guard_of, (uint64_t)(uintptr_t)m->data, 0, k);
	pthread_mutex_unlock(&guard_lock);
	struct mapfile_guard *g = guard_all.items[k];
	snprintf(g->name, sizeof g->name, "%s", m->path);
	for (char *c = g->name; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	g->hi = m->data + m->size;
	__atomic_store_n(&g->lo, m->data, __ATOMIC_RELEASE);
}

static void
guard_off(const struct mapped_file *m)
{
	uint64_t key = (uint64_t)(uintptr_t)m->data;
	uint32_t k;
	pthread_mutex_lock(&guard_lock);
	if (hashmap_get(&guard_of, key, 0, &k) && k != GUARD_NONE) {
		__atomic_store_n(&guard_all.items[k]->lo, NULL,
		    __ATOMIC_RELEASE);
		hashmap_put(&guard_of, key, 0, GUARD_NONE);
		VEC_PUSH(&guard_free, k);
	}
	pthread_mutex_unlock(&guard_lock);
}

/* ------------------------------------------------------------ recording */

static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
static bool recording;
static VEC(struct trace_file) recorded;
static struct hashmap recorded_ids;	/* (dev, ino) -> index */

static void
record(const char *path, const struct stat *st)
{
	pthread_mutex_lock(&record_lock);
	uint32_t k;
	if (recording && !hashmap_get(&recorded_ids, (uint64_t)st->st_dev,
	    (uint64_t)st->st_ino, &k)) {
		struct trace_file f = {
			.path = xstrdup(path), .dev = (uint64_t)st->st_dev,
			.ino = (uint64_t)st->st_ino,
			.size = (int64_t)st->st_size,
			.mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 +
			    st->st_mtim.tv_nsec,
		};
		hashmap_put(&recorded_ids, f.dev, f.ino,
		    (uint32_t)recorded.len);
		VEC_PUSH(&recorded, f);
	}
	pthread_mutex_unlock(&record_lock);
}

void
mapfile_record_begin(void)
{
	pthread_mutex_lock(&record_lock);
	recording = true;
	pthread_mutex_unlock(&record_lock);
}

struct trace_file *
mapfile_record_end(size_t *n)
{
	pthread_mutex_lock(&record_lock);
	struct trace_file *files = recorded.items;
	*n = recorded.len;
	recorded.items = NULL;
	recorded.len = recorded.cap = 0;
	hashmap_free(&recorded_ids);
	recording = false;
	pthread_mutex_unlock(&record_lock);
	return files;
}

void
mapfile_record_drop(void)
{
	size_t n;
	struct trace_file *f = mapfile_record_end(&n);
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	free(f);
}

void
mapfile_note(const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		record(path, &st);
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
	record(path, &st);
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
		guard_on(out);
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
		guard_off(m);
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
