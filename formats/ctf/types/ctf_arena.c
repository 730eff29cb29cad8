/*
 * A trace description (ctf_meta.h) and the arena that owns all it holds:
 * every front end (TSDL, CTF 2, the 2010 RFC layout) and the resolution
 * build the description's types, names and arrays out of it, and freeing
 * the description frees them. The arena is held to a limit in proportion
 * to the metadata's size (ctf_meta_limit), so that types that expand
 * without end are refused, not built.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_meta.h"

struct ctf_meta *
ctf_meta_new(void)
{
	struct ctf_meta *m = xcalloc(1, sizeof *m);
	m->byte_order = CTF_BO_NATIVE;
	return m;
}

void
ctf_meta_free(struct ctf_meta *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->nallocs; i++)
		free(m->allocs[i]);
	free(m->allocs);
	free(m->types);
	free(m->warns);
	hashmap_free(&m->enum_maps);
	free(m);
}

void
ctf_meta_limit(struct ctf_meta *m, size_t len)
{
	m->arena_limit = CTF_META_ARENA_BASE +
	    (uint64_t)len * CTF_META_ARENA_PER_BYTE;
}

bool
ctf_meta_over(const struct ctf_meta *m)
{
	return m->arena_limit != 0 && m->arena_bytes > m->arena_limit;
}

const char *
ctf_meta_over_msg(const struct ctf_meta *m, char *buf, size_t size)
{
	snprintf(buf, size, "its types expand to more than %llu MiB (%llu "
	    "MiB and %d bytes for each byte of metadata): too many copies of "
	    "shared types", (unsigned long long)(m->arena_limit >> 20),
	    (unsigned long long)(CTF_META_ARENA_BASE >> 20),
	    CTF_META_ARENA_PER_BYTE);
	return buf;
}

/* The arena hands out small pieces of zeroed chunks (most of what
 * metadata makes is small: a malloc each would cost its header and a
 * pointer more); larger ones are blocks of their own. Under
 * AddressSanitizer every piece is a block, so that it still sees a piece
 * overrun. What is counted against the limit is the pieces either way. */
#define ARENA_CHUNK ((size_t)64 << 10)
#define ARENA_BIG ((size_t)4 << 10)
#define ARENA_ALIGN ((size_t)16)
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_PIECES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_PIECES 0
#endif
#endif
#ifndef ARENA_PIECES
#define ARENA_PIECES 1
#endif

static void *
arena_block(struct ctf_meta *m, size_t size)
{
	void *p = xcalloc(1, size);
	if (m->nallocs == m->capallocs) {
		m->capallocs = m->capallocs ? m->capallocs * 2 : 64;
		m->allocs = xreallocarray(m->allocs, m->capallocs,
		    sizeof *m->allocs);
	}
	m->allocs[m->nallocs++] = p;
	return p;
}

void *
ctf_alloc(struct ctf_meta *m, size_t size)
{
	size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	if (size == 0)
		size = ARENA_ALIGN;
	m->arena_bytes += size;
	if (size > ARENA_BIG || !ARENA_PIECES)
		return arena_block(m, size);
	if (size > m->chunk_left) {
		m->chunk = arena_block(m, ARENA_CHUNK);
		m->chunk_left = ARENA_CHUNK;
	}
	void *p = m->chunk;
	m->chunk += size;
	m->chunk_left -= size;
	return p;
}

char *
ctf_strdup(struct ctf_meta *m, const char *s, size_t len)
{
	char *d = ctf_alloc(m, len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

void *
ctf_grow(struct ctf_meta *m, void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	/* the arena gives nothing back: a copy per item would cost the
	 * square of the count, doubling twice the last size */
	size_t nc = *cap ? *cap * 2 : 8;
	void *a = ctf_alloc(m, nc * size);
	if (n > 0)
		memcpy(a, items, n * size);
	*cap = nc;
	return a;
}

void
ctf_meta_warn(struct ctf_meta *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (m->nwarns == m->capwarns) {
		m->capwarns = m->capwarns ? m->capwarns * 2 : 8;
		m->warns = xreallocarray(m->warns, m->capwarns, sizeof *m->warns);
	}
	m->warns[m->nwarns++] = ctf_strdup(m, buf, strlen(buf));
}
