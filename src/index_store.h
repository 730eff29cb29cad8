/*
 * The builder's large arrays kept in the index file while a trace is read
 * (doc/index-format.md, "Built straight into the file"), so that the first
 * open of a trace larger than memory is one pass with bounded memory.
 *
 * A stored array is one range of reserved addresses; it grows by chunks
 * of the file (fallocated, mapped shared and writable, their pages made
 * present in one call) appended at the file's end, so the array is
 * contiguous in memory and a list of extents in the file. Full chunks are
 * handed to the kernel's writeback as they fill, and when memory is
 * limited (a memory cgroup, or little available) the builder waits for
 * the oldest to be written once too much is in flight: written pages are
 * clean and the kernel drops them as it needs.
 *
 * Which arrays go there is the builder's choice (builder_set_store);
 * the store only holds them, and owns their memory in the model it ends
 * in (it is that model's backing). A file that cannot grow (a full disk)
 * is not an error for the model: the array goes on in anonymous memory,
 * and index_store_error() says the index cannot be written.
 */
#ifndef TTV_INDEX_STORE_H
#define TTV_INDEX_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "index_format.h"
#include "model.h"

struct index_store;
struct store_array;

/* Arrays smaller than this stay on the heap. */
#define INDEX_STORE_MIN ((size_t)64 << 10)

/* The memory this process may use: its memory cgroup's limit (v2 or
 * v1), or what the system has available, whichever is less. */
size_t index_store_memory(void);

/* A store on fd, a new empty file; page 0 is left for the header. */
struct index_store *index_store_new(int fd);
/* The model's backing: owns the stored arrays, releases them (and the
 * store, not fd) with the model. */
struct trace_backing *index_store_backing(struct index_store *s);
/* The arrays stay in memory once written (memory to spare for the
 * whole model): the model's passes ask for no read-ahead
 * (trace_backing.resident). */
void index_store_set_resident(struct index_store *s, bool resident);
/* Frees a store no model took. */
void index_store_free(struct index_store *s);

/* A new array of elem-byte elements, holding the first `bytes` of init. */
struct store_array *index_store_array(struct index_store *s, size_t elem,
    const void *init, size_t bytes);
/* The array's memory (it moves when the array grows). */
void *store_array_base(const struct store_array *a);
/* Makes room for `need` bytes; returns the bytes there is room for. */
size_t store_array_grow(struct store_array *a, size_t need);
/* The array is done at `used` bytes: the rest of its last chunk goes
 * back to the file system. */
void store_array_seal(struct store_array *a, size_t used);
/* The array whose memory starts at p, or NULL. */
struct store_array *index_store_find(const struct index_store *s,
    const void *p);
/* Its extents in the file (after store_array_seal); NULL, 0 when part of
 * it had to stay in memory. */
const struct idx_extent *store_array_extents(const struct store_array *a,
    size_t *n);

/* A store for a copy of the arrays of s (a builder copied while it
 * goes on: builder_copy, --follow): it maps the pages s has written to
 * its file, privately, instead of copying them, so a copy costs what was
 * not written yet, not the arrays' size. It writes nothing to the file
 * (what the copy adds stays in memory) and owns its mappings; it needs
 * s's file only while arrays are copied. */
struct index_store *index_store_fork(const struct index_store *s);
/* A copy in `copy` (index_store_fork of a's store) of a's first `used`
 * bytes, growing apart from a. The whole pages of a's chunk being
 * filled are written to the file first (a's place there taken early). */
struct store_array *store_array_fork(struct index_store *copy,
    struct store_array *a, size_t used);

/* Where the file's free space starts (the tables go there). */
uint64_t index_store_end(const struct index_store *s);
/* 0, or the errno of the first failure to extend the file: the model is
 * whole, the index cannot be written. */
int index_store_error(const struct index_store *s);

#endif
