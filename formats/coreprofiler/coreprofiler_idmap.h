/*
 * Maps the ids of a CoreProfiler log (internal ids, CLR ids, OS thread ids)
 * to small indexes. Internal ids are dense counters from 0, so small keys
 * live in a plain array; anything else (CLR pointers, damaged values) goes
 * to an open-addressing hash, so a hostile id cannot make a huge array.
 */
#ifndef TTV_COREPROFILER_IDMAP_H
#define TTV_COREPROFILER_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

struct idmap {
	uint32_t *direct;	/* keys below IDMAP_DIRECT */
	size_t ndirect;
	uint64_t *keys;		/* hash part */
	uint32_t *vals;		/* IDMAP_NONE marks an empty slot */
	size_t cap, len;
};

void idmap_init(struct idmap *m);
void idmap_free(struct idmap *m);
/* IDMAP_NONE when absent. */
uint32_t idmap_get(const struct idmap *m, uint64_t key);
/* Sets or replaces (val must not be IDMAP_NONE). */
void idmap_put(struct idmap *m, uint64_t key, uint32_t val);
void idmap_del(struct idmap *m, uint64_t key);

#endif
