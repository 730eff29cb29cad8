/*
 * Finding CTF traces below a directory, safely: the walk never leaves the
 * file system it starts on, never follows a link to a directory, visits a
 * directory once (device and inode), stops at a depth and an entry budget,
 * and sorts what a trace directory holds into streams and what is not
 * read (FIFOs, devices, links out of the tree, dangling links), so the
 * reader can say so. `ttv /` ends within seconds.
 */
#ifndef TTV_CTF_DIR_H
#define TTV_CTF_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Deeper than this, nothing is looked at (LTTng nests 5 or 6 levels). */
#define CTF_DIR_MAX_DEPTH 16
/* Directory entries looked at, at most, in one walk. */
#define CTF_DIR_MAX_ENTRIES 200000

struct ctf_dir_walk {
	/* Called for each directory holding a regular `metadata` file,
	 * root-relative ("" for the root), in name order; return false to
	 * stop the walk. */
	bool (*trace)(void *arg, const char *rel);
	/* Called for what was not entered or not read, with why. */
	void (*skipped)(void *arg, const char *rel, const char *why);
	/* Called about every 4096 entries, with how many so far. */
	void (*progress)(void *arg, size_t entries);
	void *arg;
};

/* Walks root (a directory). Returns false when the walk stopped early
 * (the budget or the depth ran out; skipped() said where). */
bool ctf_dir_walk(const char *root, const struct ctf_dir_walk *w);

/* What a file of a trace directory is to the reader. */
enum ctf_dir_file {
	CTF_FILE_STREAM,	/* a regular file, or a link to one in the tree */
	CTF_FILE_SUBDIR,	/* a directory (walked on its own) */
	CTF_FILE_SKIP,		/* not read: *why says why */
};
/* Classifies name in root/rel (without following links out of root). */
enum ctf_dir_file ctf_dir_classify(const char *root, const char *rel,
    const char *name, const char **why);

/* Names in a directory, sorted, without "." entries (caller frees each and
 * the array); NULL when it cannot be read. */
char **ctf_dir_list(const char *path, size_t *n);

#endif
