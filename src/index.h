/*
 * The persistent index of a trace (doc/index-format.md): the model written
 * to a file in its in-memory layout, mapped by later opens so that every
 * query runs on the mapping.
 *
 * The core's side knows files and models, no format: which files a trace
 * is made of and which options change its model come from the caller
 * (formats/open_index.c), as a struct index_ident.
 */
#ifndef TTV_INDEX_H
#define TTV_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "index_source.h"
#include "model.h"

/* What an index must match to be used for a trace. */
struct index_ident {
	const char *trace;	/* the trace's canonical path, or NULL */
	uint64_t program_id;	/* index_program_id() */
	uint64_t options_hash;	/* index_options_hash() */
	struct index_sources sources;	/* the trace's files */
	/* To write (index_write): the state a trace appended to is read on
	 * from (formats/load_resume.c), grow_len bytes, or NULL. */
	const void *grow;
	size_t grow_len;
};

/* This program's identity: its version and its executable's size and
 * modification time, so that a rebuilt ttv never reads what another
 * build wrote. */
uint64_t index_program_id(void);
/* The options that change a model, as given (NULL: not given). */
uint64_t index_options_hash(const char *format, const char *instr_map,
    const char *sysroot);

/* Writes t as an index into fd, a new empty file (or the file of the
 * store t was built with, whose large depths are in it already): the
 * header last, its "complete" mark the last bytes written. Returns 0, or
 * -1 with *err set (caller frees): a write that failed (errno kept), or a
 * model the index cannot hold. */
struct index_store;
int index_write(int fd, const struct trace *t, const struct index_ident *id,
    const struct index_store *store, char **err);

enum index_check {
	INDEX_CHECK_ALL,	/* every block of the large arrays at open */
	INDEX_CHECK_LAZY,	/* each block when first read (index_guard.c) */
	/* The tables only: for the file this process has just written from
	 * the model it has, mapped from its own descriptor. */
	INDEX_CHECK_WRITTEN,
};

/* Maps the index open on fd (the descriptor is not kept) and checks it
 * against id (NULL: identity not checked, for tests). Returns 0 and *out
 * (free with trace_free), or -1 with *why set (caller frees): what does
 * not match or is damaged, for one line of a message; *appended (may be
 * NULL) then says the trace's files only grew since. */
int index_map(int fd, const struct index_ident *id, enum index_check check,
    struct trace **out, char **why, bool *appended);

/* An index whose trace's files were only appended to since it was
 * written (index_map's *appended), mapped as index_map maps one that
 * matches (every block checked), to be read on from: 0 and *out, with
 * *grow and *grow_len (in *out's mapping) the state written with it
 * (index_ident.grow), or -1 and *why when it holds none or does not
 * match otherwise. */
int index_map_grown(int fd, const struct index_ident *id,
    struct trace **out, const void **grow, size_t *grow_len, char **why);

/* Whether a lazily checked index open in this process met a damaged
 * block (the damaged values were replaced by safe ones). */
bool index_damage_seen(void);
/* The same for the one index t is mapped from (false for a model that
 * is not a lazily checked index): which of several traces open at once
 * (--diff's two) met the damage. */
bool index_trace_damaged(const struct trace *t);
/* The record of it, held until index_damage_release() so that it may
 * outlive t (the viewer frees the traces it is handed): NULL for a model
 * that is not a lazily checked index; asked with index_damage_found()
 * (false for NULL). */
struct index_damage;
struct index_damage *index_damage_of(const struct trace *t);
bool index_damage_found(const struct index_damage *d);
void index_damage_release(struct index_damage *d);

#endif
