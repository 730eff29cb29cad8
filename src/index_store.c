/*
 * The builder's large arrays in the index file (see index_store.h).
 *
 * An array: a reserved range of addresses holding chunks one after the
 * other. The chunk being filled is anonymous memory; a full one is
 * written to the file at its free end (one copy into the page cache, in
 * large pages: much cheaper than a fault per page of a shared file
 * mapping) and the same addresses are then mapped onto what was written,
 * its anonymous pages moved on to the next chunk. A chunk is a sixteenth
 * of the array so far (256 KiB up, whole 64 KiB blocks); the last is
 * written as far as it is used. When an array outgrows its reservation, a
 * larger one is reserved and its chunks are mapped there again: page
 * tables move, not bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "index_store.h"
#include "xalloc.h"

#define CHUNK_MIN ((size_t)256 << 10)
#define CHUNK_MAX ((size_t)16 << 20)
#define CHUNK_UNIT ((size_t)64 << 10)
#define RESERVE_MIN ((size_t)64 << 20)
/* Chunks handed to writeback and not yet known written, at most. */
#define RING 64

/* A chunk's place in the file: written there, or not (yet). */
#define CHUNK_FILLING UINT64_MAX	/* anonymous, being filled */
#define CHUNK_ANON (UINT64_MAX - 1)	/* anonymous for good: no room */

struct chunk {
	uint64_t off;
	size_t len;		/* bytes of address space */
	size_t bytes;		/* written (from its start) */
	/* A chunk being filled that a copy of the array was made of
	 * (store_array_fork): its place in the file, taken early, and the
	 * bytes of its start already written there. */
	uint64_t at;		/* 0: none yet */
	size_t synced;
	/* The bytes of its start that are the file's pages (in a copy,
	 * privately mapped; in the array copied, those synced), anonymous
	 * memory after them: two mappings. */
	size_t split;
};

struct store_array {
	struct index_store *s;
	size_t elem;
	char *va;
	size_t reserved;
	struct chunk *chunks;
	size_t nchunks, capchunks;
	size_t cap;		/* bytes of all chunks */
	struct idx_extent *ext;	/* after seal */
	size_t next;
	bool sealed;
};

struct index_store {
	struct trace_backing backing;
	int fd;
	size_t page;
	uint64_t end;		/* next free byte of the file (atomic) */
	int err;		/* first failure to extend the file (atomic) */
	pthread_mutex_t lock;	/* arrays, ring */
	struct store_array **arrays;
	size_t narrays, caparrays;
	/* full chunks, oldest first: dirty, then in writeback */
	struct { uint64_t off; size_t len; bool started; } ring[RING];
	size_t ring_head, ring_n;
	size_t dirty, inflight, window;
	size_t chunk_max;	/* a sixteenth of the window, 256 KiB up */
};

/* ------------------------------------------------------------- memory */

/* The memory a build may leave dirty before waiting for writeback: an
 * eighth of what the process may use (its memory cgroup's limit, v2 or
 * v1, else what the system has available), 16 MiB to 1 GiB. */
static size_t
read_number(const char *path)
{
	FILE *fp = fopen(path, "re");
	unsigned long long v = 0;
	char buf[64];
	if (fp == NULL)
		return 0;
	if (fgets(buf, sizeof buf, fp) != NULL && strncmp(buf, "max", 3) != 0)
		v = strtoull(buf, NULL, 10);
	fclose(fp);
	return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

static size_t
cgroup_limit(void)
{
	FILE *fp = fopen("/proc/self/cgroup", "re");
	char line[512];
	size_t limit = 0;
	if (fp == NULL)
		return 0;
	while (limit == 0 && fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		char *path = NULL, *file = NULL;
		/* v2: "0::/path"; v1: "N:...memory...:/path" */
		if (strncmp(line, "0::", 3) == 0) {
			path = line + 3;
			file = "memory.max";
			char *p = xasprintf("/sys/fs/cgroup%s/%s",
			    strcmp(path, "/") == 0 ? "" : path, file);
			limit = read_number(p);
			free(p);
		} else {
			char *c1 = strchr(line, ':');
			char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (c2 == NULL)
				continue;
			*c2 = '\0';
			if (strstr(c1 + 1, "memory") == NULL)
				continue;
			path = c2 + 1;
			char *p = xasprintf("/sys/fs/cgroup/memory%s/"
			    "memory.limit_in_bytes", strcmp(path, "/") == 0 ?
			    "" : path);
			limit = read_number(p);
			free(p);
		}
	}
	fclose(fp);
	return limit;
}

static size_t
available(void)
{
	FILE *fp = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb = 0;
	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof line, fp) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return (size_t)kb << 10;
}

size_t
index_store_memory(void)
{
	size_t lim = cgroup_limit(), avail = available();
	/* v1 says "no limit" with a number near 2^63. */
	if (lim == 0 || lim > ((size_t)1 << 50) || (avail > 0 && avail < lim))
		lim = avail;
	return lim;
}

static size_t
dirty_window(void)
{
	size_t w = index_store_memory() / 8;
	if (w < ((size_t)16 << 20))
		w = (size_t)16 << 20;
	if (w > ((size_t)1 << 30))
		w = (size_t)1 << 30;
	return w;
}

/* ------------------------------------------------------------- backing */

static bool
store_owns(const struct trace_backing *b, const void *p)
{
	const struct index_store *s = (const struct index_store *)b;
	return index_store_find(s, p) != NULL;
}

static void
store_release(struct trace_backing *b)
{
	index_store_free((struct index_store *)b);
}

struct index_store *
index_store_new(int fd)
{
	struct index_store *s = xcalloc(1, sizeof *s);
	long page = sysconf(_SC_PAGESIZE);
	s->backing.owns = store_owns;
	s->backing.release = store_release;
	s->fd = fd;
	s->page = page > 0 ? (size_t)page : 4096;
	s->end = s->page;
	s->window = dirty_window();
	/* Every depth being filled has a chunk of its own in memory, not
	 * yet written: under a limit they must stay small. */
	s->chunk_max = s->window / 16 / CHUNK_UNIT * CHUNK_UNIT;
	if (s->chunk_max > CHUNK_MAX)
		s->chunk_max = CHUNK_MAX;
	if (s->chunk_max < CHUNK_MIN)
		s->chunk_max = CHUNK_MIN;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

struct trace_backing *
index_store_backing(struct index_store *s)
{
	return &s->backing;
}

void
index_store_set_resident(struct index_store *s, bool resident)
{
	s->backing.resident = resident;
}

void
index_store_free(struct index_store *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->narrays; i++) {
		struct store_array *a = s->arrays[i];
		munmap(a->va, a->reserved);
		free(a->chunks);
		free(a->ext);
		free(a);
	}
	free(s->arrays);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

uint64_t
index_store_end(const struct index_store *s)
{
	return __atomic_load_n(&s->end, __ATOMIC_ACQUIRE);
}

int
index_store_error(const struct index_store *s)
{
	return __atomic_load_n(&s->err, __ATOMIC_ACQUIRE);
}

/* ----------------------------------------------------------- writeback */

/* Stops following the oldest chunk handed to writeback, after waiting
 * for it to be written when wait is true. Under s->lock. */
static void
ring_retire(struct index_store *s, bool wait)
{
	size_t i = s->ring_head;
	if (wait)
		sync_file_range(s->fd, (off_t)s->ring[i].off,
		    (off_t)s->ring[i].len, SYNC_FILE_RANGE_WAIT_BEFORE |
		    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	if (s->ring[i].started)
		s->inflight -= s->ring[i].len;
	else
		s->dirty -= s->ring[i].len;
	s->ring_head = (i + 1) % RING;
	s->ring_n--;
}

/* A full chunk: past half the window of dirty memory, the full chunks
 * go to writeback; past the window, the oldest are waited for, so that
 * what is dirty stays bounded. With memory to spare nothing happens: the
 * kernel writes the file back in its own time. */
static void
written(struct index_store *s, uint64_t off, size_t len)
{
	pthread_mutex_lock(&s->lock);
	if (s->ring_n == RING) {
		/* The oldest is no longer followed: waited for when memory
		 * is short, left to the kernel otherwise. */
		ring_retire(s, s->dirty + s->inflight > s->window / 2);
	}
	size_t k = (s->ring_head + s->ring_n) % RING;
	s->ring[k].off = off;
	s->ring[k].len = len;
	s->ring[k].started = false;
	s->ring_n++;
	s->dirty += len;
	if (s->dirty + s->inflight > s->window / 2)
		for (size_t n = 0; n < s->ring_n; n++) {
			size_t i = (s->ring_head + n) % RING;
			if (s->ring[i].started)
				continue;
			sync_file_range(s->fd, (off_t)s->ring[i].off,
			    (off_t)s->ring[i].len, SYNC_FILE_RANGE_WRITE);
			s->ring[i].started = true;
			s->dirty -= s->ring[i].len;
			s->inflight += s->ring[i].len;
		}
	while (s->ring_n > 0 && s->inflight > s->window) {
		ring_retire(s, true);
	}
	pthread_mutex_unlock(&s->lock);
}

/* -------------------------------------------------------------- arrays */

static size_t
round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static void
set_error(struct index_store *s, int e)
{
	int expect = 0;
	__atomic_compare_exchange_n(&s->err, &expect, e, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Writes bytes [from, to) of the chunk at va to the file at off + from;
 * false (the store's error set) when the file cannot take them. */
static bool
write_at(struct index_store *s, const char *va, uint64_t off, size_t from,
    size_t to)
{
	size_t done = from;
	while (done < to) {
		ssize_t n = pwrite(s->fd, va + done, to - done,
		    (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			set_error(s, n < 0 ? errno : ENOSPC);
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

/* Maps len bytes of s's file at off onto va (MAP_SHARED: the store's
 * own; MAP_PRIVATE: a copy's, its own once written to), or aborts: the
 * addresses are reserved and the file maps (index_cache_create tried),
 * so only a lack of memory can refuse it. */
static void
map_file(const struct index_store *s, char *va, size_t len, uint64_t off,
    int share)
{
	if (mmap(va, len, PROT_READ | PROT_WRITE, share | MAP_FIXED, s->fd,
	    (off_t)off) == MAP_FAILED) {
		fprintf(stderr, "ttv: cannot map the index: %s\n",
		    strerror(errno));
		abort();
	}
}

/* Writes the first `bytes` of a filled chunk at va to the file and maps
 * them there; past what is written the chunk's memory goes back. When
 * the file cannot take it, the chunk stays in memory. With `to`, the
 * next chunk of the array (to_len bytes, not mapped yet), the chunk's
 * pages are moved there once written, rather than freed: the next chunk
 * starts with its memory present, no fault and no zeroing a page (its
 * old bytes are written over before they are read). Returns the bytes
 * of `to` given pages. */
static size_t
flush_chunk(struct store_array *a, char *va, struct chunk *c, size_t bytes,
    char *to, size_t to_len)
{
	struct index_store *s = a->s;
	size_t span = round_up(bytes, s->page);
	/* Past what is used the memory goes back; the addresses stay
	 * reserved (unmapped, they could be given to another mapping). */
	if (span < c->len)
		(void)mmap(va + span, c->len - span, PROT_NONE, MAP_PRIVATE |
		    MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	c->bytes = bytes;
	if (bytes == 0 || index_store_error(s) != 0) {
		c->off = CHUNK_ANON;
		return 0;
	}
	/* A chunk copies were made of has its place already, and the
	 * start written there. */
	uint64_t off = c->at != 0 ? c->at :
	    __atomic_fetch_add(&s->end, span, __ATOMIC_ACQ_REL);
	size_t from = c->at != 0 && c->synced < bytes ? c->synced : 0;
	if (!write_at(s, va, off, from, bytes)) {
		c->off = CHUNK_ANON;
		return 0;
	}
	/* The pages move and the chunk's addresses stay mapped (empty),
	 * so no other mapping can take them before the file's does. */
	size_t moved = span < to_len ? span : to_len;
	/* only anonymous pages move: a chunk whose start is the file's
	 * already (split) has its next chunk fault its own */
	if (c->split > 0)
		moved = 0;
#ifdef MREMAP_DONTUNMAP
	if (to != NULL && moved > 0 && mremap(va, moved, moved,
	    MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, to) ==
	    MAP_FAILED)
		moved = 0;
#else
	/* headers older than Linux 5.7's: the next chunk faults its own */
	moved = 0;
#endif
	if (to == NULL)
		moved = 0;
	map_file(s, va, span, off, MAP_SHARED);
	c->off = off;
	c->split = 0;	/* one mapping of the file now */
	written(s, off + from, bytes - from);
	return moved;
}

/* Moves the array to a reservation of `reserve` bytes. */
static void
move_array(struct store_array *a, size_t reserve)
{
	char *nva = mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (nva == MAP_FAILED) {
		fprintf(stderr, "ttv: out of address space (%zu bytes)\n",
		    reserve);
		abort();
	}
	size_t at = 0;
	for (size_t i = 0; i < a->nchunks; i++) {
		struct chunk *c = &a->chunks[i];
		void *p;
		size_t len = c->off == CHUNK_FILLING ? c->len :
		    round_up(c->bytes, a->s->page);
		if (c->off < CHUNK_ANON)
			p = mmap(nva + at, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, a->s->fd, (off_t)c->off);
		else if (c->split > 0 && c->split < len &&
		    mremap(a->va + at, c->split, c->split, MREMAP_MAYMOVE |
		    MREMAP_FIXED, nva + at) == MAP_FAILED)
			p = MAP_FAILED;
		else
			/* a chunk of two mappings (split): one at a time */
			p = c->split > 0 && c->split < len ?
			    mremap(a->va + at + c->split, len - c->split,
			    len - c->split, MREMAP_MAYMOVE | MREMAP_FIXED,
			    nva + at + c->split) :
			    mremap(a->va + at, len, len, MREMAP_MAYMOVE |
			    MREMAP_FIXED, nva + at);
		if (p == MAP_FAILED) {
			fprintf(stderr, "ttv: cannot remap a chunk: %s\n",
			    strerror(errno));
			abort();
		}
		at += c->len;
	}
	munmap(a->va, a->reserved);
	a->va = nva;
	a->reserved = reserve;
}

/* An empty array of s: `reserve` bytes of addresses, none mapped. */
static struct store_array *
new_array(struct index_store *s, size_t elem, size_t reserve)
{
	struct store_array *a = xcalloc(1, sizeof *a);
	a->s = s;
	a->elem = elem;
	a->reserved = round_up(reserve, s->page);
	a->va = mmap(NULL, a->reserved, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->va == MAP_FAILED) {
		fprintf(stderr, "ttv: out of address space\n");
		abort();
	}
	pthread_mutex_lock(&s->lock);
	if (s->narrays == s->caparrays) {
		s->caparrays = s->caparrays ? s->caparrays * 2 : 16;
		s->arrays = xreallocarray(s->arrays, s->caparrays,
		    sizeof *s->arrays);
	}
	s->arrays[s->narrays++] = a;
	pthread_mutex_unlock(&s->lock);
	return a;
}

struct store_array *
index_store_array(struct index_store *s, size_t elem, const void *init,
    size_t bytes)
{
	struct store_array *a = new_array(s, elem, bytes * 4 > RESERVE_MIN ?
	    bytes * 4 : RESERVE_MIN);
	/* a chunk at a time, each filled before the next is made (which
	 * writes it to the file): grown whole first, the full chunks would
	 * go to the file empty and their bytes then be copied into its
	 * pages through faults */
	const char *src = init;
	size_t done = 0;
	while (done < bytes) {
		size_t cap = store_array_grow(a, done + 1);
		size_t n = (cap < bytes ? cap : bytes) - done;
		memcpy(a->va + done, src + done, n);
		done += n;
	}
	return a;
}

void *
store_array_base(const struct store_array *a)
{
	return a->va;
}

size_t
store_array_grow(struct store_array *a, size_t need)
{
	while (a->cap < need) {
		size_t len = round_up(a->cap / 16, CHUNK_UNIT);
		if (len < CHUNK_MIN)
			len = CHUNK_MIN;
		if (len > a->s->chunk_max)
			len = a->s->chunk_max;
		if (a->cap + len > a->reserved)
			move_array(a, a->reserved * 2 > a->cap + len ?
			    a->reserved * 2 : round_up(a->cap + len, a->s->page));
		/* The chunk before this one is full: to the file, its
		 * pages to this one. */
		size_t present = 0;
		if (a->nchunks > 0) {
			struct chunk *p = &a->chunks[a->nchunks - 1];
			present = flush_chunk(a, a->va + a->cap - p->len, p,
			    p->len, a->va + a->cap, len);
		}
		if (a->nchunks == a->capchunks) {
			a->capchunks = a->capchunks ? a->capchunks * 2 : 8;
			a->chunks = xreallocarray(a->chunks, a->capchunks,
			    sizeof *a->chunks);
		}
		struct chunk *c = &a->chunks[a->nchunks];
		*c = (struct chunk){ .off = CHUNK_FILLING, .len = len };
		if (present < len && mmap(a->va + a->cap + present,
		    len - present, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
			fprintf(stderr, "ttv: out of memory (%zu bytes)\n",
			    len);
			abort();
		}
		a->nchunks++;
		a->cap += len;
	}
	return a->cap;
}

void
store_array_seal(struct store_array *a, size_t used)
{
	size_t at = 0;
	bool in_file = true;
	free(a->ext);
	a->ext = xcalloc(a->nchunks + 1, sizeof *a->ext);
	a->next = 0;
	for (size_t i = 0; i < a->nchunks; i++) {
		struct chunk *c = &a->chunks[i];
		size_t n = used - at < c->len ? used - at : c->len;
		if (c->off == CHUNK_FILLING)
			(void)flush_chunk(a, a->va + at, c, n, NULL, 0);
		if (c->off >= CHUNK_ANON)
			in_file = in_file && n == 0;
		else if (n > 0)
			a->ext[a->next++] = (struct idx_extent){ c->off, n };
		at += c->len;
	}
	if (!in_file)
		a->next = 0;
	a->sealed = true;
}

struct store_array *
index_store_find(const struct index_store *s, const void *p)
{
	const char *c = p;
	for (size_t i = 0; i < s->narrays; i++) {
		const struct store_array *a = s->arrays[i];
		if (c >= a->va && c < a->va + a->reserved)
			return s->arrays[i];
	}
	return NULL;
}

const struct idx_extent *
store_array_extents(const struct store_array *a, size_t *n)
{
	*n = a->sealed ? a->next : 0;
	return *n ? a->ext : NULL;
}

/* --------------------------------------------------------------- copies */

struct index_store *
index_store_fork(const struct index_store *parent)
{
	struct index_store *s = xcalloc(1, sizeof *s);
	s->backing.owns = store_owns;
	s->backing.release = store_release;
	/* A copy writes nothing to a file: its own chunks stay in
	 * memory (the parent's pages are mapped from the parent's file). */
	s->fd = -1;
	s->page = parent->page;
	s->end = parent->page;
	s->err = EROFS;
	s->window = parent->window;
	s->chunk_max = parent->chunk_max;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

/* Writes the whole pages of the chunk being filled that are not in the
 * file yet to its place there (taken now if it has none): a copy maps
 * them rather than copying them. */
static void
sync_filling(struct store_array *a, char *va, struct chunk *c, size_t used)
{
	struct index_store *s = a->s;
	size_t full = used / s->page * s->page;
	if (full <= c->synced || index_store_error(s) != 0)
		return;
	if (c->at == 0)
		c->at = __atomic_fetch_add(&s->end, c->len, __ATOMIC_ACQ_REL);
	if (!write_at(s, va, c->at, c->synced, full))
		return;
	written(s, c->at + c->synced, full - c->synced);
	c->synced = full;
	/* What is written is the file's from now on: the memory goes back
	 * (a builder followed for hours would otherwise keep up to a chunk
	 * of every array in it), the chunk is two mappings (see split). */
	map_file(s, va, full, c->at, MAP_SHARED);
	c->split = full;
}

static void
map_anon(char *va, size_t len)
{
	if (len > 0 && mmap(va, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
		fprintf(stderr, "ttv: out of memory (%zu bytes)\n", len);
		abort();
	}
}

struct store_array *
store_array_fork(struct index_store *copy, struct store_array *a,
    size_t used)
{
	struct index_store *s = a->s;
	/* room for what the copy adds (the calls still open, a reader's
	 * held events) without moving */
	struct store_array *c = new_array(copy, a->elem, a->cap +
	    (a->cap > RESERVE_MIN ? a->cap : RESERVE_MIN));
	c->chunks = xcalloc(a->nchunks ? a->nchunks : 1, sizeof *c->chunks);
	c->capchunks = a->nchunks ? a->nchunks : 1;
	size_t at = 0;
	for (size_t i = 0; i < a->nchunks; i++) {
		struct chunk *pc = &a->chunks[i];
		struct chunk *cc = &c->chunks[c->nchunks++];
		size_t n = used > at ? used - at : 0;
		if (n > pc->len)
			n = pc->len;
		cc->len = pc->len;
		if (pc->off < CHUNK_ANON) {
			/* in the file: its pages, not a copy */
			cc->off = CHUNK_ANON;
			cc->bytes = pc->bytes;
			map_file(s, c->va + at, round_up(pc->bytes, s->page),
			    pc->off, MAP_PRIVATE);
		} else if (pc->off == CHUNK_ANON) {
			cc->off = CHUNK_ANON;
			cc->bytes = pc->bytes;
			map_anon(c->va + at, round_up(pc->bytes, s->page));
			memcpy(c->va + at, a->va + at, pc->bytes);
		} else {
			/* being filled: what is in whole pages goes to the
			 * file and is mapped from there, the last page is
			 * copied */
			sync_filling(a, a->va + at, pc, n);
			size_t split = pc->at != 0 ? pc->synced : 0;
			cc->off = CHUNK_FILLING;
			cc->split = split;
			if (split > 0)
				map_file(s, c->va + at, split, pc->at,
				    MAP_PRIVATE);
			map_anon(c->va + at + split, pc->len - split);
			if (n > split)
				memcpy(c->va + at + split, a->va + at + split,
				    n - split);
		}
		at += pc->len;
	}
	c->cap = a->cap;
	return c;
}
