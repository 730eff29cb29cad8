/* Pair-keyed open-addressing map (see hashmap.h). */
#include "hashmap.h"
#include "xalloc.h"

#include <stdlib.h>

static uint32_t
slot_of(uint64_t k1, uint64_t k2, uint32_t mask)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ULL ^ (k2 + 0x632be59bd9b4e019ULL)
	    * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	return (uint32_t)h & mask;
}

bool
hashmap_get(const struct hashmap *m, uint64_t k1, uint64_t k2,
    uint32_t *value)
{
	if (m->nslots == 0)
		return false;
	uint32_t mask = m->nslots - 1;
	for (uint32_t i = slot_of(k1, k2, mask);; i = (i + 1) & mask) {
		const struct hashmap_slot *s = &m->slots[i];
		if (!s->used)
			return false;
		if (s->k1 == k1 && s->k2 == k2) {
			*value = s->value;
			return true;
		}
	}
}

static void
insert(struct hashmap_slot *slots, uint32_t mask, uint64_t k1, uint64_t k2,
    uint32_t value)
{
	uint32_t i = slot_of(k1, k2, mask);
	while (slots[i].used && !(slots[i].k1 == k1 && slots[i].k2 == k2))
		i = (i + 1) & mask;
	slots[i] = (struct hashmap_slot){ k1, k2, value, 1 };
}

void
hashmap_put(struct hashmap *m, uint64_t k1, uint64_t k2, uint32_t value)
{
	if ((uint64_t)(m->n + 1) * 2 > m->nslots) {
		uint32_t n = m->nslots ? m->nslots * 2 : 64;
		struct hashmap_slot *slots = xcalloc(n, sizeof *slots);
		for (uint32_t i = 0; i < m->nslots; i++)
			if (m->slots[i].used)
				insert(slots, n - 1, m->slots[i].k1,
				    m->slots[i].k2, m->slots[i].value);
		free(m->slots);
		m->slots = slots;
		m->nslots = n;
	}
	uint32_t old;
	if (!hashmap_get(m, k1, k2, &old))
		m->n++;
	insert(m->slots, m->nslots - 1, k1, k2, value);
}

void
hashmap_free(struct hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->nslots = m->n = 0;
}

bool
hashmap_valid(const struct hashmap *m, uint32_t nvalues)
{
	if (m->nslots == 0)
		return m->n == 0 && m->slots == NULL;
	if ((m->nslots & (m->nslots - 1)) != 0 || m->n > m->nslots / 2)
		return false;
	uint32_t used = 0;
	for (uint32_t i = 0; i < m->nslots; i++) {
		if (m->slots[i].used > 1 || (m->slots[i].used &&
		    m->slots[i].value >= nvalues))
			return false;
		used += m->slots[i].used;
	}
	return used == m->n;
}
