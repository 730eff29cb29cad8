/*
 * A small open-addressing map from a pair of 64-bit keys to a 32-bit
 * value: the builder finds tracks, functions and processes with it, the
 * call trees a node's child, the diff a key, the file mappings a file
 * read (by device and inode), and the CTF reader its names and types.
 */
#ifndef TTV_HASHMAP_H
#define TTV_HASHMAP_H

#include <stdbool.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t k1, k2;
	uint32_t value;
	uint32_t used;
};

struct hashmap {
	struct hashmap_slot *slots;
	uint32_t nslots, n;
};

bool hashmap_get(const struct hashmap *m, uint64_t k1, uint64_t k2,
    uint32_t *value);
void hashmap_put(struct hashmap *m, uint64_t k1, uint64_t k2, uint32_t value);
void hashmap_free(struct hashmap *m);
/* Whether a map read back from bytes (its slots as they were) is one
 * that hashmap_get ends on: a power of two of slots, at most half used,
 * n the used ones, every value below nvalues. */
bool hashmap_valid(const struct hashmap *m, uint32_t nvalues);

#endif
