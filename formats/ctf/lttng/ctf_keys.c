/*
 * Dense ids for pairs of values, shared by decoding threads (see
 * ctf_keys.h).
 */
#include "config.h"

#include "ctf_keys.h"
#include "xalloc.h"

void
ctf_keys_init(struct ctf_keys *k)
{
	*k = (struct ctf_keys){ 0 };
	pthread_mutex_init(&k->lock, NULL);
}

void
ctf_keys_free(struct ctf_keys *k)
{
	hashmap_free(&k->map);
	free(k->pairs);
	pthread_mutex_destroy(&k->lock);
}

uint32_t
ctf_keys_get(struct ctf_keys *k, uint64_t a, uint64_t b)
{
	uint32_t id;
	pthread_mutex_lock(&k->lock);
	if (!hashmap_get(&k->map, a, b, &id)) {
		if (k->n == k->cap) {
			k->cap = k->cap ? k->cap * 2 : 64;
			k->pairs = xreallocarray(k->pairs, k->cap,
			    sizeof *k->pairs);
		}
		id = k->n++;
		k->pairs[id][0] = a;
		k->pairs[id][1] = b;
		hashmap_put(&k->map, a, b, id);
	}
	pthread_mutex_unlock(&k->lock);
	return id;
}

void
ctf_keys_pair(struct ctf_keys *k, uint32_t id, uint64_t *a, uint64_t *b)
{
	pthread_mutex_lock(&k->lock);
	*a = k->pairs[id][0];
	*b = k->pairs[id][1];
	pthread_mutex_unlock(&k->lock);
}
