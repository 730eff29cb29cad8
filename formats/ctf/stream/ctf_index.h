/*
 * LTTng's packet index files (DIR/index/STREAM.idx): where each packet of
 * a stream file starts and how long it is. The reader walks packets from
 * their headers; an index is only a hint, used to resume past a damaged
 * packet and to cross-check the walk, and a place it names is used only
 * when the packet header found there agrees with it.
 */
#ifndef TTV_CTF_INDEX_H
#define TTV_CTF_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf_decode.h"

#define CTF_INDEX_MAGIC 0xC1F1DCC1u
#define CTF_INDEX_HEADER 16	/* magic, major, minor, entry size */
#define CTF_INDEX_ENTRY_1_0 56	/* 7 u64; 1.1 adds 2 more (72) */

/* One entry, as the file gives it (all big-endian u64 there). */
struct ctf_index_entry {
	uint64_t off;		/* bytes from the stream file's start */
	uint64_t psize, csize;	/* packet and content sizes, bits */
	uint64_t ts_begin, ts_end;	/* cycles */
	uint64_t stream_id;
};

struct ctf_index {
	char *path;		/* the index file, for messages */
	struct ctf_index_entry *e;	/* increasing offsets, no overlaps */
	size_t n;
	size_t next;		/* cross-check: first entry not met yet */
	bool disagreed;		/* the cross-check warned already */
	ctf_diag_fn diag;
	void *arg;
};

/* Checks and reads an index file's bytes for a stream file of
 * stream_size bytes into ix->e/n. 1: good; 0: usable, with a warning in
 * msg (a partial last entry, left out); -1: unusable, msg says why, at
 * file offset *msgoff (ix untouched). */
int ctf_index_parse(const uint8_t *data, size_t size, uint64_t stream_size,
    struct ctf_index *ix, char *msg, size_t msgsize, uint64_t *msgoff);

/* The first entry whose offset is above off (ix->n if none). */
size_t ctf_index_after(const struct ctf_index *ix, uint64_t off);

/* The index of the stream file `stream` (of stream_size bytes; its path
 * relative to root, "" for the current directory), if there is one, for
 * its ctf_stream.idx. A missing index is no news (NULL); a bad one is
 * reported through diag as a warning and left out (NULL). */
struct ctf_index *ctf_index_load(const char *stream, uint64_t stream_size,
    const char *root, ctf_diag_fn diag, void *arg);
void ctf_index_free(struct ctf_index *ix);

#endif
