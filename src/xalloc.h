/*
 * Allocation that cannot fail: ttv has nothing sensible to do when memory
 * runs out, so these abort with a message instead of returning NULL.
 * Growable arrays (VEC_*) are plain structs of {items, len, cap}; the owner
 * of the struct owns the items.
 */
#ifndef TTV_XALLOC_H
#define TTV_XALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/* Zeroed, at a multiple of align (a power of two, at least
 * sizeof(void *)): for data that threads must not share lines of. */
void *xcalloc_aligned(size_t align, size_t size);
void *xrealloc(void *p, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
/*
 * Arrays that grow to many megabytes and are written once (the model's
 * slices): from 1 MiB on each has a mapping of its own, grown in whole
 * 2 MiB transparent huge pages (a page fault then fills 2 MiB, not 4 KiB,
 * which is most of what writing fresh memory costs) and moved by mremap,
 * which moves page tables instead of copying. Only xbig_free frees what
 * xbig_realloc gives (a header in front says how it was got).
 */
void *xbig_realloc(void *p, size_t size);
void xbig_free(void *p);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* qsort that accepts an empty (NULL) array, which qsort itself may not. */
static inline void
xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *,
    const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#define VEC(type) struct { type *items; size_t len, cap; }

/* Make room for at least `extra` more items. */
#define VEC_RESERVE(v, extra) do {                                        \
	if ((v)->len + (extra) > (v)->cap) {                                  \
		size_t vec_nc_ = (v)->cap ? (v)->cap * 2 : 16;                    \
		while (vec_nc_ < (v)->len + (extra))                              \
			vec_nc_ *= 2;                                                 \
		(v)->items = xreallocarray((v)->items, vec_nc_,                   \
		    sizeof *(v)->items);                                          \
		(v)->cap = vec_nc_;                                               \
	}                                                                     \
} while (0)

#define VEC_PUSH(v, item) do {                                            \
	VEC_RESERVE(v, 1);                                                    \
	(v)->items[(v)->len++] = (item);                                      \
} while (0)

/* Give back the slack at the end of building. */
#define VEC_SHRINK(v) do {                                                \
	if ((v)->len < (v)->cap) {                                            \
		(v)->items = (v)->len ? xreallocarray((v)->items, (v)->len,       \
		    sizeof *(v)->items) : (free((v)->items), NULL);               \
		(v)->cap = (v)->len;                                              \
	}                                                                     \
} while (0)

#define VEC_FREE(v) do { free((v)->items); (v)->items = NULL;             \
	(v)->len = (v)->cap = 0; } while (0)

#endif
