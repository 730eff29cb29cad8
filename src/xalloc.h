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
 * slices, a reader's records): from 64 KiB on each lives in address space
 * reserved for it, where it grows in place, without copying, in steps of
 * 2 MiB; the steps reuse, while there are any, the blocks of arrays given
 * back by xbig_recycle, whose pages are mapped already: no page faults.
 * Only xbig_free or xbig_recycle frees what xbig_realloc gives (a header in
 * front says how it was got).
 */
void *xbig_realloc(void *p, size_t size);
void xbig_free(void *p);
/* Frees an array whose memory is to be reused soon by others. */
void xbig_recycle(void *p);
/* Gives the blocks kept for reuse back to the system. */
void xbig_pool_trim(void);
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

/* The same with a context argument for the comparison, so that a sort
 * needs no file-scope state and may run on several threads at once. */
void xqsort_r(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *, void *), void *arg);

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
