/*
 * Dense ids for pairs of 64-bit values (a thread's (vpid, vtid), a
 * function's (vpid, address)), handed out to the threads that decode
 * streams ahead: each looks pairs up in a small cache of its own and
 * takes the table's lock only for pairs it has not met. The ids carry no
 * order; whoever consumes them turns them into model ids in time order.
 */
#ifndef TTV_CTF_KEYS_H
#define TTV_CTF_KEYS_H

#include <pthread.h>
#include <stdint.h>

#include "hashmap.h"

struct ctf_keys {
	pthread_mutex_t lock;
	struct hashmap map;
	uint64_t (*pairs)[2];	/* by id */
	uint32_t n, cap;
};

#define CTF_KEY_CACHE_BITS 10
#define CTF_KEY_CACHE (1u << CTF_KEY_CACHE_BITS)

/* One thread's cache in front of a table. */
struct ctf_key_cache {
	struct {
		uint64_t a, b;
		uint32_t id;	/* + 1; 0: empty */
	} e[CTF_KEY_CACHE];
};

void ctf_keys_init(struct ctf_keys *k);
void ctf_keys_free(struct ctf_keys *k);
/* The id of (a, b), made if new. Thread-safe. */
uint32_t ctf_keys_get(struct ctf_keys *k, uint64_t a, uint64_t b);
/* The pair of an id that ctf_keys_get returned. Thread-safe. */
void ctf_keys_pair(struct ctf_keys *k, uint32_t id, uint64_t *a,
    uint64_t *b);

static inline uint32_t
ctf_keys_cached(struct ctf_keys *k, struct ctf_key_cache *c, uint64_t a,
    uint64_t b)
{
	/* once an event: one multiply, whose top bits depend on every bit
	 * below (addresses vary in their middle bits, pids in their low) */
	uint64_t h = (b ^ (a << 40) ^ (a >> 24)) * 0x9E3779B97F4A7C15u;
	size_t i = h >> (64 - CTF_KEY_CACHE_BITS);
	if (c->e[i].id != 0 && c->e[i].a == a && c->e[i].b == b)
		return c->e[i].id - 1;
	uint32_t id = ctf_keys_get(k, a, b);
	c->e[i].a = a;
	c->e[i].b = b;
	c->e[i].id = id + 1;
	return id;
}

#endif
