/* Allocation wrappers that abort on exhaustion (see xalloc.h). */
#include "config.h"

#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Before each big array: how much is mapped for it, header included, or
 * 0 when it came from malloc; then the size malloc was asked for. 16
 * bytes keep the array as aligned as malloc's. */
struct big_head {
	size_t map_len;
	size_t size;
};

#if defined(MREMAP_MAYMOVE) && defined(MADV_HUGEPAGE)
#define BIG_MAPS 1
/* A transparent huge page: mappings grow in whole ones, which the kernel
 * places on a boundary of their size. */
#define BIG_STEP ((size_t)2 << 20)
/* From half of one on, an array is mapped on its own. */
#define BIG_MAP_MIN (BIG_STEP / 2)

static size_t
big_round(size_t n)
{
	return (n + BIG_STEP - 1) & ~(BIG_STEP - 1);
}

static void *
big_map(size_t len, size_t size)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		out_of_memory(size);
	/* a hint: where huge pages are off it changes nothing */
	(void)madvise(m, len, MADV_HUGEPAGE);
	return m;
}
#endif

void *
xbig_realloc(void *p, size_t size)
{
	struct big_head *h = p ? (struct big_head *)p - 1 : NULL;
	if (size > SIZE_MAX / 2)
		out_of_memory(size);
	size_t need = size + sizeof *h;
#ifdef BIG_MAPS
	if (h != NULL && h->map_len > 0) {
		/* once mapped, mapped for good: shrinking gives back the
		 * tail, growing moves page tables, never bytes */
		size_t len = big_round(need);
		if (len != h->map_len) {
			h = mremap(h, h->map_len, len, MREMAP_MAYMOVE);
			if (h == MAP_FAILED)
				out_of_memory(size);
			h->map_len = len;
		}
		h->size = size;
		return h + 1;
	}
	if (need >= BIG_MAP_MIN) {
		size_t len = big_round(need);
		struct big_head *m = big_map(len, size);
		if (h != NULL) {
			memcpy(m + 1, p, h->size < size ? h->size : size);
			free(h);
		}
		m->map_len = len;
		m->size = size;
		return m + 1;
	}
#endif
	h = realloc(h, need);
	if (h == NULL)
		out_of_memory(size);
	h->map_len = 0;
	h->size = size;
	return h + 1;
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
