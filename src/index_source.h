/*
 * What a trace is made of, as files: the identity of each file a trace was
 * read from (device, inode, size, modification time, a hash of its first
 * 64 KiB), or the note that a file looked for was not there. An index is
 * used only while its trace's files are what they were when it was built
 * (doc/index-format.md). Which files a trace of a format is made of is
 * the readers' knowledge (formats/index_sources.c); this is files only.
 */
#ifndef TTV_INDEX_SOURCE_H
#define TTV_INDEX_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index_format.h"

#define INDEX_HEAD_BYTES ((size_t)64 << 10)
#define INDEX_TAIL_BYTES ((size_t)4 << 10)

struct index_source {
	char *path;
	enum idx_source_kind kind;
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	uint64_t head_hash;
	uint64_t covered;	/* bytes read: the size */
	uint64_t tail_hash;	/* of the INDEX_TAIL_BYTES before covered */
};

/* The files of one trace, sorted by path once complete. */
struct index_sources {
	struct index_source *v;
	size_t n, cap;
	uint64_t bytes;		/* the files' sizes, summed */
};

/* Adds a file: a regular file is read for its hashes, anything else
 * (absent, unreadable, not a file) is kept as IDX_SOURCE_ABSENT. */
void index_sources_add(struct index_sources *s, const char *path);
/* Sorts by path and drops repeated paths. */
void index_sources_done(struct index_sources *s);
void index_sources_free(struct index_sources *s);

/* cur: the files now (now), and every file of `was` that `now` does not
 * list, as it is now: the files a reader read beyond those a trace is
 * made of (an instrumentation map, traced binaries) are held to their
 * identity too, without `now` knowing of them. */
void index_sources_cover(struct index_sources *cur,
    const struct index_sources *now, const struct index_sources *was);

/* How the files now (cur) differ from the ones an index was built from
 * (was): NULL when they are the same, else a reason ("FILE changed"...).
 * *appended is set when the only change is data appended to files. The
 * reason is for one line of a message; caller frees. */
char *index_sources_diff(const struct index_sources *was,
    const struct index_sources *cur, bool *appended);

#endif
