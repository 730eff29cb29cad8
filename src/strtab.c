/* String interning (see strtab.h). */
#include "escape.h"
#include "strtab.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)

struct strtab {
	char **strings;		/* id -> string */
	uint32_t *lens;
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	uint32_t nslots;
	char **chunks;
	size_t nchunks;
	char *cur;		/* free space in the newest chunk */
	size_t left;
};

uint64_t
hash_bytes(const void *p, size_t len)
{
	/* FNV-1a over 8-byte words then bytes, with a final mix. */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	while (len-- > 0)
		h = (h ^ *s++) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static char *
store(struct strtab *st, const char *s, size_t len)
{
	if (len + 1 > st->left) {
		size_t size = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;
		st->chunks = xreallocarray(st->chunks, st->nchunks + 1,
		    sizeof *st->chunks);
		st->cur = st->chunks[st->nchunks++] = xmalloc(size);
		st->left = size;
	}
	char *p = st->cur;
	memcpy(p, s, len);
	p[len] = '\0';
	st->cur += len + 1;
	st->left -= len + 1;
	return p;
}

static void
rehash(struct strtab *st)
{
	uint32_t n = st->nslots ? st->nslots * 2 : 1024;
	free(st->slots);
	st->slots = xcalloc(n, sizeof *st->slots);
	st->nslots = n;
	for (uint32_t id = 0; id < st->n; id++) {
		uint64_t h = hash_bytes(st->strings[id], st->lens[id]);
		uint32_t i = (uint32_t)h & (n - 1);
		while (st->slots[i] != 0)
			i = (i + 1) & (n - 1);
		st->slots[i] = id + 1;
	}
}

struct strtab *
strtab_new(void)
{
	struct strtab *st = xcalloc(1, sizeof *st);
	strtab_intern(st, "", 0);
	return st;
}

static uint32_t
intern(struct strtab *st, const char *s, size_t len)
{
	if ((uint64_t)(st->n + 1) * 2 > st->nslots)
		rehash(st);
	uint64_t h = hash_bytes(s, len);
	uint32_t mask = st->nslots - 1, i = (uint32_t)h & mask;
	while (st->slots[i] != 0) {
		uint32_t id = st->slots[i] - 1;
		if (st->lens[id] == len && memcmp(st->strings[id], s, len) == 0)
			return id;
		i = (i + 1) & mask;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 1024;
		st->strings = xreallocarray(st->strings, st->cap,
		    sizeof *st->strings);
		st->lens = xreallocarray(st->lens, st->cap, sizeof *st->lens);
	}
	uint32_t id = st->n++;
	st->strings[id] = store(st, s, len);
	st->lens[id] = (uint32_t)len;
	st->slots[i] = id + 1;
	return id;
}

uint32_t
strtab_intern(struct strtab *st, const char *s, size_t len)
{
	if (len > UINT32_MAX - 1)
		len = UINT32_MAX - 1;
	/* NULs at the end terminate a C string the traced program wrote:
	 * not part of it. */
	while (len > 0 && s[len - 1] == '\0')
		len--;
	if (len == 0 || !escape_hold_needed(s, len))
		return intern(st, s, len);
	/* Strings are read back as C strings: a NUL inside one would cut
	 * it short wherever it goes. It is held as escape.h says, so that
	 * it stays apart from every other string. */
	if (len > (UINT32_MAX - 1) / 2)
		len = (UINT32_MAX - 1) / 2;
	char *w = xmalloc(len * 2 + 1);
	size_t n = escape_hold(s, len, w);
	uint32_t id = intern(st, w, n);
	free(w);
	return id;
}

uint32_t
strtab_intern_held(struct strtab *st, const char *s, size_t len)
{
	if (len > UINT32_MAX - 1)
		len = UINT32_MAX - 1;
	return intern(st, s, len);
}

struct strtab *
strtab_copy(const struct strtab *st)
{
	struct strtab *c = xcalloc(1, sizeof *c);
	size_t total = 0;
	for (uint32_t id = 0; id < st->n; id++)
		total += (size_t)st->lens[id] + 1;
	c->n = st->n;
	c->cap = st->cap;
	c->strings = xreallocarray(NULL, c->cap ? c->cap : 1,
	    sizeof *c->strings);
	c->lens = xreallocarray(NULL, c->cap ? c->cap : 1, sizeof *c->lens);
	if (st->n > 0)
		memcpy(c->lens, st->lens, st->n * sizeof *c->lens);
	/* the same ids: the same slots */
	c->nslots = st->nslots;
	c->slots = xreallocarray(NULL, c->nslots ? c->nslots : 1,
	    sizeof *c->slots);
	if (st->nslots > 0)
		memcpy(c->slots, st->slots, st->nslots * sizeof *c->slots);
	/* all of them in one chunk; the next string starts a new one */
	c->chunks = xmalloc(sizeof *c->chunks);
	c->chunks[0] = xmalloc(total ? total : 1);
	c->nchunks = 1;
	char *p = c->chunks[0];
	for (uint32_t id = 0; id < st->n; id++) {
		memcpy(p, st->strings[id], (size_t)st->lens[id] + 1);
		c->strings[id] = p;
		p += (size_t)st->lens[id] + 1;
	}
	return c;
}

const char *
strtab_get(const struct strtab *st, uint32_t id)
{
	return id < st->n ? st->strings[id] : "";
}

uint32_t
strtab_count(const struct strtab *st)
{
	return st->n;
}

void
strtab_release(struct strtab *st, char ***strings, uint32_t *n,
    char ***chunks, size_t *nchunks)
{
	*strings = st->strings;
	*n = st->n;
	*chunks = st->chunks;
	*nchunks = st->nchunks;
	free(st->lens);
	free(st->slots);
	free(st);
}

void
strtab_free(struct strtab *st)
{
	if (st == NULL)
		return;
	for (size_t i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->strings);
	free(st->lens);
	free(st->slots);
	free(st);
}

uint32_t
strtab_len(const struct strtab *st, uint32_t id)
{
	return st->lens[id];
}
