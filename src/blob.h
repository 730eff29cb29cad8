/*
 * A state written as bytes and read back (a growing load's, kept in its
 * trace's index so that a trace appended to is read on from where it
 * stopped: doc/index-format.md, "Ready to grow").
 *
 * The writer appends in the machine's layout: an index is only ever read
 * by the build of ttv that wrote it (index_program_id). The reader is
 * bounded: a read past the end, or a count larger than the bytes left
 * could hold, gives zeros and marks the input bad, so that a damaged
 * state never reads out of bounds nor allocates from an unchecked count.
 * Those who read one check `bad` once at the end, and check every id they
 * will use as an index against what they have.
 */
#ifndef TTV_BLOB_H
#define TTV_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blob {
	unsigned char *data;
	size_t len, cap;
};

void blob_free(struct blob *w);
void blob_put(struct blob *w, const void *p, size_t n);
void blob_u8(struct blob *w, uint8_t v);
void blob_u32(struct blob *w, uint32_t v);
void blob_u64(struct blob *w, uint64_t v);
void blob_i64(struct blob *w, int64_t v);
void blob_f64(struct blob *w, double v);
/* A string or NULL. */
void blob_str(struct blob *w, const char *s);
/* n items of `size` bytes each, after their count. */
void blob_array(struct blob *w, const void *items, size_t n, size_t size);

struct blob_in {
	const unsigned char *p, *end;
	bool bad;
};

void blob_in_init(struct blob_in *r, const void *data, size_t len);
/* n bytes, or NULL (r marked bad) when fewer are left. */
const void *blob_take(struct blob_in *r, size_t n);
uint8_t blob_get_u8(struct blob_in *r);
uint32_t blob_get_u32(struct blob_in *r);
uint64_t blob_get_u64(struct blob_in *r);
int64_t blob_get_i64(struct blob_in *r);
double blob_get_f64(struct blob_in *r);
bool blob_get_bool(struct blob_in *r);
/* A string put by blob_str (caller frees), NULL for a NULL or when bad. */
char *blob_get_str(struct blob_in *r);
/* An array put by blob_array of items of `size` bytes: a new copy
 * (caller frees; NULL when empty or bad) and its count in *n. */
void *blob_get_array(struct blob_in *r, size_t size, size_t *n);
/* A count of items each taking at least min_size bytes of what follows:
 * 0 and bad when the bytes left cannot hold them. */
size_t blob_get_count(struct blob_in *r, size_t min_size);

/* VEC(T) (xalloc.h) put whole and read back into an empty one. */
#define BLOB_VEC(w, v) \
	blob_array((w), (v)->items, (v)->len, sizeof *(v)->items)
#define BLOB_GET_VEC(r, v) do {                                           \
	size_t blob_n_;                                                       \
	(v)->items = blob_get_array((r), sizeof *(v)->items, &blob_n_);       \
	(v)->len = (v)->cap = blob_n_;                                        \
} while (0)

#endif
