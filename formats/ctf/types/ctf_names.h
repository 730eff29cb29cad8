/*
 * An index of names to positions, for the metadata front ends and the
 * resolution of paths: the members of a struct, the options of a variant,
 * clocks, type names, sections. Metadata may hold tens of thousands of
 * any of them, so no look-up walks them all.
 *
 * Open addressing over hash_bytes(); the names are not copied (they are
 * strings of the meta's arena, or anything that outlives the index), and
 * the table itself is arena memory: it is freed with the meta, so a
 * front end that unwinds with longjmp leaks nothing. Growing by doubling
 * leaves the old tables in the arena: at most as much again as the last.
 * About 40 bytes a name.
 */
#ifndef TTV_CTF_NAMES_H
#define TTV_CTF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctf_meta;

struct ctf_names {
	struct ctf_name {
		const char *key;
		uint32_t len, pos;
	} *names;		/* in the order added */
	size_t n, cap;
	uint32_t *slots;	/* index in names + 1; 0: empty */
	size_t nslots;		/* 0 or a power of two */
};

/* The position of the name s[0..len) (no NUL needed), or -1. */
int64_t ctf_names_get(const struct ctf_names *ix, const char *s, size_t len);
/* Adds name (NUL-terminated, kept by pointer) at pos. When it is there
 * already: returns its position, changed to pos if replace. Else -1. */
int64_t ctf_names_put(struct ctf_meta *m, struct ctf_names *ix,
    const char *name, uint32_t pos, bool replace);

#endif
