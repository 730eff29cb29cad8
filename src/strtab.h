/*
 * String interning, for the builder (a trace's strings) and the diff (the
 * keys both traces share): each distinct byte string gets one small id. Strings are stored NUL-terminated in large chunks (no
 * per-string allocation); the chunks and the id -> string array move into
 * the trace at the end (strtab_release).
 */
#ifndef TTV_STRTAB_H
#define TTV_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab_new(void);
void strtab_free(struct strtab *st);
uint32_t strtab_intern(struct strtab *st, const char *s, size_t len);
/* The same for a string already held (a model's string, escape.h): kept
 * byte for byte, so that it reads back as it was given. */
uint32_t strtab_intern_held(struct strtab *st, const char *s, size_t len);
/* A table with the same strings under the same ids, that goes on apart
 * (a snapshot of a builder, builder_copy). */
struct strtab *strtab_copy(const struct strtab *st);
const char *strtab_get(const struct strtab *st, uint32_t id);
uint32_t strtab_count(const struct strtab *st);
/* The length of string id (it may hold NULs: strtab_intern_held). */
uint32_t strtab_len(const struct strtab *st, uint32_t id);
/* Hands the strings and their chunks to the caller and frees the table. */
void strtab_release(struct strtab *st, char ***strings, uint32_t *n,
    char ***chunks, size_t *nchunks);

/* A fast hash for short byte strings. */
uint64_t hash_bytes(const void *p, size_t len);

#endif
