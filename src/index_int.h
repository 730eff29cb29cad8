/*
 * What the index's files share and nothing else uses: the hashing of
 * tables and blocks, the header's fixed part, the checks (index_check.c).
 */
#ifndef TTV_INDEX_INT_H
#define TTV_INDEX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index_format.h"
#include "model.h"
#include "summary.h"

/* A table's hash chains index_hash() over pieces of this many bytes. */
#define INDEX_HASH_PIECE ((size_t)1 << 20)

/* The header's fixed fields: magic, versions, sizes, page size. */
void index_header_init(struct idx_header *h);

/* The hash of a block of n slices and their weights (NULL: none). */
uint64_t index_block_hash(const struct slice *s, const uint32_t *w,
    size_t n);

/* A mapped file being checked: the header's tables, checked one by one
 * before any is read. */
struct index_view {
	const unsigned char *base;
	uint64_t size;
	const struct idx_header *h;
};

/* The table k as an array of its elements; NULL when empty. Only after
 * index_check_tables() said yes. */
static inline const void *
index_table(const struct index_view *v, enum idx_table k)
{
	return v->h->tables[k].count ? v->base + v->h->tables[k].off : NULL;
}

static inline uint64_t
index_count(const struct index_view *v, enum idx_table k)
{
	return v->h->tables[k].count;
}

/* The header's own fields: NULL when they are the ones this build
 * writes, else what differs (a static string). */
const char *index_check_header(const struct index_view *v);
/* Every table within the file, aligned, hashed as recorded, and every
 * value that indexes another table in range: NULL or what is wrong
 * (caller frees). */
char *index_check_tables(const struct index_view *v);
/* The block b of depth level li: NULL or what is wrong (static). s and w
 * are its slices and weights as mapped (readable). */
const char *index_check_block(const struct index_view *v,
    const struct idx_level *lv, uint64_t b, const struct slice *s,
    const uint32_t *w, uint32_t nfuncs);

/* A mapped index's memory: the file, and the ranges of addresses its
 * depths of several extents (and its guarded depths) are mapped into. */
struct region {
	char *lo;
	size_t len;
};

struct map_backing {
	struct trace_backing base;
	struct trace_summary *summary;
	const unsigned char *map;
	size_t size;
	struct region *regions;	/* sorted by address */
	size_t nregions, capregions;
	struct index_guard *guard;
	/* IDX_GROW's bytes, or NULL */
	const unsigned char *grow;
	size_t grow_len;
};

void index_add_region(struct map_backing *mb, char *lo, size_t len);
void *index_stitch(struct map_backing *mb, const struct index_view *v,
    int fd, uint64_t first, uint64_t n, int prot);

/* A text of the blob (checked to end inside it). */
static inline const char *
index_text(const struct index_view *v, uint64_t off)
{
	return (const char *)v->base + v->h->tables[IDX_BLOB].off + off;
}

#endif
