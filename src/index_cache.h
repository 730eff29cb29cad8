/*
 * Where indexes live and how many are kept (doc/index-format.md): the
 * directory $XDG_CACHE_HOME/ttv (default ~/.cache/ttv), one file per
 * trace path, written to an unnamed file and published by a rename, the
 * least recently used ones evicted past TTV_CACHE_MAX, the ones of
 * traces that no longer exist dropped.
 */
#ifndef TTV_INDEX_CACHE_H
#define TTV_INDEX_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#define INDEX_CACHE_MAX_DEFAULT ((uint64_t)4 << 30)
#define INDEX_SUFFIX ".ttvi"

/* The cache directory, made (mode 0700) if missing. NULL with *err set
 * (caller frees) when there is none: no HOME, or it cannot be made. */
char *index_cache_dir(char **err);
/* The index file of a trace: DIR/NAME-HASH.ttvi, NAME from the trace's
 * base name, HASH of its canonical path: every spelling of a path (./t,
 * t, a symbolic link) shares one index (the model mapped from it is
 * given the path as the user spelt it). */
char *index_cache_file(const char *dir, const char *canonical);
/* The bytes the cache may hold: TTV_CACHE_MAX (a number with an optional
 * K, M, G or T), else INDEX_CACHE_MAX_DEFAULT. 0: no index is kept. */
uint64_t index_cache_max(void);

/* Marks an index as used now (its modification time: least recently
 * used goes first). */
void index_cache_touch(const char *file);

/* A new unnamed file in dir to write an index into; -1 with *err set
 * (caller frees) and errno kept when dir cannot take one. *tmp is set
 * (caller frees) when the file had to be named. A directory whose files
 * cannot be mapped shared (as the index store maps them) takes none. */
int index_cache_create(const char *dir, char **tmp, char **err);
/* Publishes the file written on fd as `file`, atomically: a reader sees
 * the old index or the new one, whole. 0, or -1 with *err set. fd stays
 * open (it is the caller's). */
int index_cache_publish(int fd, const char *tmp, const char *file,
    char **err);
/* Gives up a file being written (closes fd: the file goes when its last
 * mapping does). */
void index_cache_abandon(int fd, const char *tmp);

/* Drops indexes of traces that no longer exist and the leftovers of
 * writers that died, then the least recently used indexes until the
 * directory holds at most max bytes; `keep` (may be NULL) is kept. */
void index_cache_evict(const char *dir, uint64_t max, const char *keep);

#endif
