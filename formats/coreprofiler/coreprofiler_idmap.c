/*
 * Id maps for the CoreProfiler reader (see coreprofiler_idmap.h): a direct
 * array for the small dense ids, linear probing for the rest.
 */
#include "coreprofiler_idmap.h"
#include "coreprofiler_lex.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define IDMAP_DIRECT (1u << 20)

/* The hex digit table of coreprofiler_lex.h, kept here with the other
 * small shared pieces of the reader. */
#define HV(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : \
	(c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : \
	(c) >= 'A' && (c) <= 'F' ? (c) - 'A' + 10 : 0xff)
#define R4(b) HV(b), HV((b) + 1), HV((b) + 2), HV((b) + 3)
#define R16(b) R4(b), R4((b) + 4), R4((b) + 8), R4((b) + 12)
#define R64(b) R16(b), R16((b) + 16), R16((b) + 32), R16((b) + 48)
const unsigned char cp_hexval[256] = {
	R64(0), R64(64), R64(128), R64(192),
};
#undef HV
#undef R4
#undef R16
#undef R64

void
idmap_init(struct idmap *m)
{
	memset(m, 0, sizeof *m);
}

void
idmap_free(struct idmap *m)
{
	free(m->direct);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static size_t
idmap_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

uint32_t
idmap_get(const struct idmap *m, uint64_t key)
{
	if (key < IDMAP_DIRECT)
		return key < m->ndirect ? m->direct[key] : IDMAP_NONE;
	if (m->cap == 0)
		return IDMAP_NONE;
	for (size_t i = idmap_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == IDMAP_NONE)
			return IDMAP_NONE;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void
idmap_grow(struct idmap *m)
{
	size_t ocap = m->cap;
	uint64_t *okeys = m->keys;
	uint32_t *ovals = m->vals;
	m->cap = ocap ? ocap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof *m->keys);
	m->vals = xmalloc(m->cap * sizeof *m->vals);
	memset(m->vals, 0xff, m->cap * sizeof *m->vals);
	m->len = 0;
	for (size_t i = 0; i < ocap; i++)
		if (ovals[i] != IDMAP_NONE)
			idmap_put(m, okeys[i], ovals[i]);
	free(okeys);
	free(ovals);
}

void
idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	if (key < IDMAP_DIRECT) {
		if (key >= m->ndirect) {
			size_t n = m->ndirect ? m->ndirect : 64;
			while (n <= key)
				n *= 2;
			m->direct = xreallocarray(m->direct, n, sizeof *m->direct);
			memset(m->direct + m->ndirect, 0xff,
			    (n - m->ndirect) * sizeof *m->direct);
			m->ndirect = n;
		}
		m->direct[key] = val;
		return;
	}
	if ((m->len + 1) * 2 > m->cap)
		idmap_grow(m);
	size_t i = idmap_hash(key, m->cap);
	while (m->vals[i] != IDMAP_NONE && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->vals[i] == IDMAP_NONE)
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void
idmap_del(struct idmap *m, uint64_t key)
{
	if (key < IDMAP_DIRECT) {
		if (key < m->ndirect)
			m->direct[key] = IDMAP_NONE;
		return;
	}
	if (m->cap == 0)
		return;
	size_t i = idmap_hash(key, m->cap);
	while (m->vals[i] != IDMAP_NONE && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->vals[i] == IDMAP_NONE)
		return;
	/* Backward-shift deletion keeps probe chains intact. */
	size_t j = i;
	for (;;) {
		m->vals[i] = IDMAP_NONE;
		for (;;) {
			j = (j + 1) & (m->cap - 1);
			if (m->vals[j] == IDMAP_NONE) {
				m->len--;
				return;
			}
			size_t h = idmap_hash(m->keys[j], m->cap);
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
}
