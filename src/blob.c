/* A state written as bytes and read back (blob.h). */
#include "blob.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void
blob_free(struct blob *w)
{
	free(w->data);
	w->data = NULL;
	w->len = w->cap = 0;
}

void
blob_put(struct blob *w, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (w->len + n > w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 256;
		while (nc < w->len + n)
			nc *= 2;
		w->data = xrealloc(w->data, nc);
		w->cap = nc;
	}
	memcpy(w->data + w->len, p, n);
	w->len += n;
}

void
blob_u8(struct blob *w, uint8_t v)
{
	blob_put(w, &v, sizeof v);
}

void
blob_u32(struct blob *w, uint32_t v)
{
	blob_put(w, &v, sizeof v);
}

void
blob_u64(struct blob *w, uint64_t v)
{
	blob_put(w, &v, sizeof v);
}

void
blob_i64(struct blob *w, int64_t v)
{
	blob_put(w, &v, sizeof v);
}

void
blob_f64(struct blob *w, double v)
{
	blob_put(w, &v, sizeof v);
}

void
blob_str(struct blob *w, const char *s)
{
	/* 0: NULL; else the length plus one, then the bytes */
	size_t n = s != NULL ? strlen(s) : 0;
	blob_u64(w, s != NULL ? (uint64_t)n + 1 : 0);
	blob_put(w, s, n);
}

void
blob_array(struct blob *w, const void *items, size_t n, size_t size)
{
	blob_u64(w, n);
	blob_put(w, items, n * size);
}

void
blob_in_init(struct blob_in *r, const void *data, size_t len)
{
	r->p = data;
	r->end = r->p + len;
	r->bad = false;
}

const void *
blob_take(struct blob_in *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	const void *p = r->p;
	r->p += n;
	return p;
}

#define GET(r, type) do {                                                 \
	type v_ = 0;                                                          \
	const void *p_ = blob_take((r), sizeof v_);                           \
	if (p_ != NULL)                                                       \
		memcpy(&v_, p_, sizeof v_);                                       \
	return v_;                                                            \
} while (0)

uint8_t
blob_get_u8(struct blob_in *r)
{
	GET(r, uint8_t);
}

uint32_t
blob_get_u32(struct blob_in *r)
{
	GET(r, uint32_t);
}

uint64_t
blob_get_u64(struct blob_in *r)
{
	GET(r, uint64_t);
}

int64_t
blob_get_i64(struct blob_in *r)
{
	GET(r, int64_t);
}

double
blob_get_f64(struct blob_in *r)
{
	GET(r, double);
}

bool
blob_get_bool(struct blob_in *r)
{
	uint8_t v = blob_get_u8(r);
	if (v > 1)
		r->bad = true;
	return v == 1;
}

size_t
blob_get_count(struct blob_in *r, size_t min_size)
{
	uint64_t n = blob_get_u64(r);
	size_t left = (size_t)(r->end - r->p);
	if (r->bad || (min_size > 0 && n > left / min_size) ||
	    (min_size == 0 && n > left + 1)) {
		r->bad = true;
		return 0;
	}
	return (size_t)n;
}

char *
blob_get_str(struct blob_in *r)
{
	uint64_t n = blob_get_u64(r);
	if (n == 0 || r->bad)
		return NULL;
	const char *p = blob_take(r, n - 1 <= SIZE_MAX ? (size_t)(n - 1) :
	    SIZE_MAX);
	if (p == NULL || memchr(p, '\0', (size_t)(n - 1)) != NULL) {
		r->bad = true;
		return NULL;
	}
	char *s = xmalloc((size_t)n);
	memcpy(s, p, (size_t)(n - 1));
	s[n - 1] = '\0';
	return s;
}

void *
blob_get_array(struct blob_in *r, size_t size, size_t *n)
{
	*n = blob_get_count(r, size);
	if (*n == 0)
		return NULL;
	const void *p = blob_take(r, *n * size);
	if (p == NULL) {
		*n = 0;
		return NULL;
	}
	void *a = xmalloc(*n * size);
	memcpy(a, p, *n * size);
	return a;
}
