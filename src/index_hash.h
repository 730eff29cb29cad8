/*
 * The hash of the index's checks: 64 bits, four independent lanes of
 * 8-byte words so that hashing runs at memory speed (a block of 64 KiB
 * of slices in a few microseconds). Not cryptographic: it finds damage,
 * not forgery (doc/index-format.md).
 */
#ifndef TTV_INDEX_HASH_H
#define TTV_INDEX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of len bytes, continuing from seed (0 to start). */
uint64_t index_hash(const void *p, size_t len, uint64_t seed);

#endif
