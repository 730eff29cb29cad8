/* An index of names to positions (see ctf_names.h). */
#include <string.h>

#include "strtab.h"
#include "ctf_meta.h"
#include "ctf_names.h"

/* The slot of s: where it is, or the empty one it would go in. */
static size_t
slot_of(const struct ctf_names *ix, const char *s, size_t len)
{
	size_t mask = ix->nslots - 1;
	size_t i = (size_t)hash_bytes(s, len) & mask;
	for (;; i = (i + 1) & mask) {
		uint32_t e = ix->slots[i];
		if (e == 0)
			return i;
		const struct ctf_name *nm = &ix->names[e - 1];
		if (nm->len == len && memcmp(nm->key, s, len) == 0)
			return i;
	}
}

int64_t
ctf_names_get(const struct ctf_names *ix, const char *s, size_t len)
{
	if (ix == NULL || ix->n == 0 || len > UINT32_MAX)
		return -1;
	uint32_t e = ix->slots[slot_of(ix, s, len)];
	return e != 0 ? (int64_t)ix->names[e - 1].pos : -1;
}

int64_t
ctf_names_put(struct ctf_meta *m, struct ctf_names *ix, const char *name,
    uint32_t pos, bool replace)
{
	size_t len = strlen(name);
	if ((ix->n + 1) * 2 > ix->nslots) {
		/* at most half full: probes stay short */
		size_t ns = ix->nslots ? ix->nslots * 2 : 16;
		uint32_t *slots = ctf_alloc(m, ns * sizeof *slots);
		struct ctf_names grown = *ix;
		grown.slots = slots;
		grown.nslots = ns;
		for (size_t e = 0; e < ix->n; e++)
			slots[slot_of(&grown, ix->names[e].key,
			    ix->names[e].len)] = (uint32_t)e + 1;
		*ix = grown;
	}
	size_t i = slot_of(ix, name, len);
	if (ix->slots[i] != 0) {
		struct ctf_name *nm = &ix->names[ix->slots[i] - 1];
		int64_t old = nm->pos;
		if (replace)
			nm->pos = pos;
		return old;
	}
	ix->names = ctf_grow(m, ix->names, ix->n, &ix->cap, sizeof *ix->names);
	ix->names[ix->n] = (struct ctf_name){ name, (uint32_t)len, pos };
	ix->slots[i] = (uint32_t)++ix->n;
	return -1;
}
