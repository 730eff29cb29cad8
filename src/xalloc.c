/* Allocation wrappers that abort on exhaustion (see xalloc.h). */
#include "config.h"

#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>

static void
out_of_memory(size_t size)
{
	fprintf(stderr, "ttv: out of memory (%zu bytes)\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		out_of_memory(n * size);
	return p;
}

void *
xcalloc_aligned(size_t align, size_t size)
{
	void *p;
	if (posix_memalign(&p, align, size ? size : 1) != 0)
		out_of_memory(size);
	memset(p, 0, size);
	return p;
}

void *
xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (p == NULL)
		out_of_memory(size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* ---------------------------------------------------------- big arrays */

/*
 * A big array lives in a reservation of address space several times its
 * size: it grows by committing the next steps in place, so that growing
 * neither copies nor moves it. The steps it commits come, while there are
 * any, from the blocks that other big arrays gave back (xbig_recycle):
 * their pages are mapped already, so filling them costs no page faults,
 * which are most of what writing fresh memory costs.
 */

/* Before each big array (its first 32 bytes, which keeps it as aligned
 * as malloc's): map_len is 0 when it came from malloc. */
struct big_head {
	size_t map_len;		/* reserved, header included */
	size_t rw_len;		/* committed: the first rw_len bytes */
	size_t size;		/* asked for */
	size_t pad;
};

#if defined(MREMAP_FIXED) && defined(MAP_NORESERVE)
#define BIG_MAPS 1
/* Steps of 2 MiB: a reservation of whole steps starts on a boundary of
 * one, so that blocks move between arrays by whole page tables. */
#define BIG_STEP ((size_t)2 << 20)
/* From 64 KiB on, an array is mapped on its own: below, malloc's
 * reallocations copy little; above, each one would copy into fresh
 * memory what growing in place does not (the model's levels pass
 * through every size on their way to many megabytes). */
#define BIG_MAP_MIN ((size_t)64 << 10)
/* From half a step on, a new array takes pooled blocks: below, most of
 * a block's pages, mapped already, could stay unused. */
#define BIG_POOL_MIN (BIG_STEP / 2)
/* Reserved: this many times what is committed at first. */
#define BIG_RESERVE 8
/* Blocks kept for reuse at most (1 GiB). */
#define POOL_MAX 512

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static void *pool[POOL_MAX];
static size_t pool_len;

static size_t
big_round(size_t n)
{
	return (n + BIG_STEP - 1) & ~(BIG_STEP - 1);
}

static void *
pool_take(void)
{
	void *b = NULL;
	pthread_mutex_lock(&pool_lock);
	if (pool_len > 0)
		b = pool[--pool_len];
	pthread_mutex_unlock(&pool_lock);
	return b;
}

/* Commits [from, to) of a reservation: pooled blocks moved in while
 * there are any (if pooled), fresh pages for the rest. */
static bool
big_commit(char *base, size_t from, size_t to, bool pooled)
{
	for (; pooled && from < to; from += BIG_STEP) {
		void *b = pool_take();
		if (b == NULL)
			break;
		if (mremap(b, BIG_STEP, BIG_STEP, MREMAP_MAYMOVE |
		    MREMAP_FIXED, base + from) == MAP_FAILED) {
			munmap(b, BIG_STEP);
			break;
		}
	}
	return from >= to || mmap(base + from, to - from, PROT_READ |
	    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    MAP_FAILED;
}

/* A new big array of size bytes, or NULL when the system will not map
 * one (too many mappings): malloc's then. */
static struct big_head *
big_new(size_t size)
{
	size_t rw = big_round(size + sizeof(struct big_head));
	size_t len = rw <= SIZE_MAX / BIG_RESERVE / 2 ? rw * BIG_RESERVE : rw;
	char *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (!big_commit(base, 0, rw, size >= BIG_POOL_MIN)) {
		munmap(base, len);
		return NULL;
	}
	struct big_head *h = (struct big_head *)base;
	h->map_len = len;
	h->rw_len = rw;
	h->size = size;
	return h;
}
#endif

static void *
small_realloc(struct big_head *h, size_t size)
{
	h = realloc(h, size + sizeof *h);
	if (h == NULL)
		out_of_memory(size);
	h->map_len = 0;
	h->size = size;
	return h + 1;
}

void *
xbig_realloc(void *p, size_t size)
{
	struct big_head *h = p ? (struct big_head *)p - 1 : NULL;
	if (size > SIZE_MAX / 4)
		out_of_memory(size);
#ifdef BIG_MAPS
	size_t need = size + sizeof *h;
	if (h != NULL && h->map_len > 0) {
		size_t rw = big_round(need);
		if (rw > h->rw_len && rw <= h->map_len) {
			if (!big_commit((char *)h, h->rw_len, rw, true))
				out_of_memory(size);
			h->rw_len = rw;
		} else if (rw < h->rw_len) {
			/* shrinking: the rest goes back, reservation too */
			munmap((char *)h + rw, h->map_len - rw);
			h->map_len = h->rw_len = rw;
		} else if (rw > h->map_len) {
			/* past its reservation: moved whole where it is one
			 * mapping (page tables move, not bytes), copied where
			 * blocks were moved in */
			if (h->map_len > h->rw_len) {
				munmap((char *)h + h->rw_len,
				    h->map_len - h->rw_len);
				h->map_len = h->rw_len;
			}
			void *m = mremap(h, h->rw_len, rw, MREMAP_MAYMOVE);
			if (m != MAP_FAILED) {
				h = m;
				h->map_len = h->rw_len = rw;
			} else {
				struct big_head *n = big_new(size);
				if (n == NULL)
					out_of_memory(size);
				memcpy(n + 1, h + 1, h->size);
				munmap(h, h->map_len);
				h = n;
			}
		}
		h->size = size;
		return h + 1;
	}
	if (need >= BIG_MAP_MIN) {
		struct big_head *n = big_new(size);
		if (n != NULL) {
			if (h != NULL) {
				memcpy(n + 1, h + 1, h->size < size ?
				    h->size : size);
				free(h);
			}
			return n + 1;
		}
	}
#endif
	return small_realloc(h, size);
}

void
xbig_free(void *p)
{
	if (p == NULL)
		return;
	struct big_head *h = (struct big_head *)p - 1;
#ifdef BIG_MAPS
	if (h->map_len > 0) {
		munmap(h, h->map_len);
		return;
	}
#endif
	free(h);
}

void
xbig_recycle(void *p)
{
	if (p == NULL)
		return;
#ifdef BIG_MAPS
	struct big_head *h = (struct big_head *)p - 1;
	if (h->map_len > 0) {
		char *base = (char *)h;
		if (h->map_len > h->rw_len)
			munmap(base + h->rw_len, h->map_len - h->rw_len);
		/* block by block: each moves out to a place of its own; only
		 * the blocks the array filled, whose pages are all mapped */
		size_t off = 0, rw = h->rw_len;
		size_t full = (h->size + sizeof *h) & ~(BIG_STEP - 1);
		pthread_mutex_lock(&pool_lock);
		for (; off < full && pool_len < POOL_MAX; off += BIG_STEP) {
			void *b = off == 0 ? base : mremap(base + off,
			    BIG_STEP, BIG_STEP, MREMAP_MAYMOVE);
			if (b == MAP_FAILED)
				break;
			pool[pool_len++] = b;
		}
		pthread_mutex_unlock(&pool_lock);
		if (off < rw)
			munmap(base + off, rw - off);
		return;
	}
#endif
	xbig_free(p);
}

void
xbig_pool_trim(void)
{
#ifdef BIG_MAPS
	pthread_mutex_lock(&pool_lock);
	while (pool_len > 0)
		munmap(pool[--pool_len], BIG_STEP);
	pthread_mutex_unlock(&pool_lock);
#endif
}

void
xqsort_r(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, arg);
}
