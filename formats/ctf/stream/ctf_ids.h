/*
 * Small hash sets and maps of 32-bit ids (a stream's threads, functions
 * or event classes met, a stream's slot values), for what the reader
 * keeps per data stream: they start empty and grow with what the stream
 * holds, where an array indexed by id would grow with the ids of every
 * other stream too.
 */
#ifndef TTV_CTF_IDS_H
#define TTV_CTF_IDS_H

#include <stdbool.h>
#include <stdint.h>

/* Open addressing: keys stored + 1 (0: empty), so an id is below
 * UINT32_MAX; vals only in maps. */
struct ctf_ids {
	uint32_t *keys;
	uint64_t *vals;		/* NULL in a set */
	uint32_t mask;		/* slots - 1; no slots while n == 0 */
	uint32_t n;
};

static inline uint32_t
ctf_ids_slot(const struct ctf_ids *s, uint32_t id)
{
	uint32_t i = (uint32_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> 32) &
	    s->mask;
	while (s->keys[i] != 0 && s->keys[i] != id + 1)
		i = (i + 1) & s->mask;
	return i;
}

static inline bool
ctf_ids_has(const struct ctf_ids *s, uint32_t id)
{
	return s->n != 0 && s->keys[ctf_ids_slot(s, id)] != 0;
}

/* Adds id to a set; true if it was not there. */
bool ctf_ids_add(struct ctf_ids *s, uint32_t id);
/* A map's value of id; false (and *v untouched) if it has none. */
bool ctf_ids_get(const struct ctf_ids *s, uint32_t id, uint64_t *v);
/* Sets a map's value of id. */
void ctf_ids_put(struct ctf_ids *s, uint32_t id, uint64_t v);
void ctf_ids_free(struct ctf_ids *s);

#endif
