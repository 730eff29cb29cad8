/* Hash sets and maps of 32-bit ids (see ctf_ids.h). */
#include <stdlib.h>

#include "ctf_ids.h"
#include "xalloc.h"

/* Room for one more id: twice the slots past half full (4 at first). */
static void
reserve(struct ctf_ids *s, bool with_vals)
{
	uint32_t slots = s->n ? s->mask + 1 : 0;
	if ((uint64_t)(s->n + 1) * 2 <= slots)
		return;
	uint32_t ns = slots ? slots * 2 : 4;
	struct ctf_ids g = { xcalloc(ns, sizeof *g.keys),
	    with_vals ? xcalloc(ns, sizeof *g.vals) : NULL, ns - 1, s->n };
	for (uint32_t i = 0; i < slots; i++) {
		if (s->keys[i] == 0)
			continue;
		uint32_t j = ctf_ids_slot(&g, s->keys[i] - 1);
		g.keys[j] = s->keys[i];
		if (with_vals)
			g.vals[j] = s->vals[i];
	}
	free(s->keys);
	free(s->vals);
	*s = g;
}

bool
ctf_ids_add(struct ctf_ids *s, uint32_t id)
{
	if (ctf_ids_has(s, id))
		return false;
	reserve(s, false);
	s->keys[ctf_ids_slot(s, id)] = id + 1;
	s->n++;
	return true;
}

bool
ctf_ids_get(const struct ctf_ids *s, uint32_t id, uint64_t *v)
{
	if (s->n == 0)
		return false;
	uint32_t i = ctf_ids_slot(s, id);
	if (s->keys[i] == 0)
		return false;
	*v = s->vals[i];
	return true;
}

void
ctf_ids_put(struct ctf_ids *s, uint32_t id, uint64_t v)
{
	if (s->n != 0) {
		uint32_t i = ctf_ids_slot(s, id);
		if (s->keys[i] != 0) {
			s->vals[i] = v;
			return;
		}
	}
	reserve(s, true);
	uint32_t i = ctf_ids_slot(s, id);
	s->keys[i] = id + 1;
	s->vals[i] = v;
	s->n++;
}

void
ctf_ids_free(struct ctf_ids *s)
{
	free(s->keys);
	free(s->vals);
	*s = (struct ctf_ids){ 0 };
}
