/*
 * The reader interface: one per format, in formats/. A reader knows its
 * file format and the builder API, nothing about output or terminals.
 *
 * probe() looks at the first bytes of a file (or at a directory) and says
 * how sure it is that the input is its format; load() decodes the input
 * into the builder. load() reports damage through builder_warn/error with
 * the offset (or line) where it was found, keeps everything readable
 * before it, and returns -1 only when nothing useful could be read.
 */
#ifndef TTV_READER_H
#define TTV_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "blob.h"
#include "builder.h"
#include "mapfile.h"

struct load_options {
	const char *instr_map;	/* --instr-map BINARY, or NULL */
	const char *sysroot;	/* --sysroot DIR, or NULL */
	bool strict;		/* stop at the first error */
	/* Memory is short (the model is built into its index's file):
	 * take the road that keeps less in memory where there is a choice. */
	bool bounded;
	/* Called now and then with bytes done out of total; may be NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* A live session (net://...): attach at its newest packets
	 * (--from-now) instead of its beginning. */
	bool live_from_now;
	/* Called with what a load has to say as it happens (a live relay
	 * reconnecting, a session ended); NULL: said as warnings of the
	 * trace. */
	void (*notice)(void *arg, const char *text);
	void *notice_arg;
	/* The input is being written (--follow): what is not whole yet at
	 * its end (a line without its newline, a record cut short, a packet
	 * its index does not list yet, an empty metadata file) is "not yet",
	 * left out without a word, never damage. */
	bool follow;
	/* Set (by a signal handler or another thread) when the reading is
	 * no longer wanted (SIGINT during --follow): readers look at it in
	 * their loops and stop as at the end of their input, so that a long
	 * read stops promptly; what they built is then thrown away. NULL:
	 * never. */
	const volatile sig_atomic_t *cancel;
	/* Following a live session: streams that said they have nothing
	 * before a time (the relay's INACTIVE beacons), so that a quiet
	 * stream does not hold back what the others wrote (a CTF reader's
	 * complete_until); NULL when none did. */
	const struct stream_beacon *beacons;
	size_t nbeacons;
};

/* A stream's beacon: its file, relative to the directory read, and the
 * time (in its clock's cycles, as its packets' times) before which it
 * will write nothing more. */
struct stream_beacon {
	const char *file;
	uint64_t cycles;
};

/* The order of load_options.beacons: by file (strcmp). */
static inline int
stream_beacon_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stream_beacon *)a)->file,
	    ((const struct stream_beacon *)b)->file);
}

struct load_ctx {
	const char *path;
	const struct mapped_file *file;	/* NULL when path is a directory */
	struct builder *b;
	const struct load_options *opts;
};

struct reader {
	const char *name;		/* "xray", "fxt", "coreprofiler", "ctf" */
	const char *description;	/* one line for --help */
	/* 0 = not mine, 100 = certainly mine. head is NULL for a directory. */
	int (*probe)(const char *path, const unsigned char *head, size_t len,
	    bool is_dir);
	int (*load)(struct load_ctx *ctx);
	/* For a file being written (load_options.follow): how many of its
	 * first len bytes are whole records, which is what load() is then
	 * given. NULL: the reader takes what is there as it is. */
	size_t (*complete)(const unsigned char *data, size_t len);
	/* Whether a file beginning with head (its first len bytes, at
	 * most 64) may be read as it grows (grow_*): a format with kinds
	 * written whole (XRay's FDR logs). NULL: every file may. */
	bool (*grows)(const unsigned char *head, size_t len);
	/* A file being written, read as it grows (--follow) instead of
	 * whole each time: grow_begin starts a load that goes on (its state
	 * is handed back to the others); grow_feed reads ctx->file's whole
	 * records from byte `from` on into ctx->b and returns where it
	 * stopped (its end, or where load_cancelled stopped it), or
	 * SIZE_MAX when what was appended changes how what came before
	 * is read (the file is then read again from its start); grow_end
	 * does what the end of load() does, into ctx->b, a copy of the
	 * builder (builder_copy), the state left to go on, and returns as
	 * load() does. NULL (all four): the reader reads the whole input.
	 * A directory (ctx->file NULL): grow_feed reads what was added to
	 * it since the last call (from is 0) and returns 0, or SIZE_MAX
	 * when it was not only added to and must be read again from its
	 * start (its state then freed and begun again). */
	void *(*grow_begin)(struct load_ctx *ctx);
	size_t (*grow_feed)(void *state, struct load_ctx *ctx, size_t from);
	int (*grow_end)(void *state, struct load_ctx *ctx);
	void (*grow_free)(void *state);
	/* For a growing load: complete(), knowing that the first `from`
	 * bytes are whole records, so that the records read before are
	 * not walked again. NULL: complete() is asked. */
	size_t (*complete_from)(const unsigned char *data, size_t len,
	    size_t from);
	/* Ready to grow across runs (doc/index-format.md): grow_save
	 * writes a growing load's state, as it is after a grow_feed and
	 * before grow_end, to out (blob.h), and says false when it cannot
	 * (the index then keeps none, and the trace, once appended to, is
	 * read again from its start). grow_load makes the state again from
	 * those bytes, for ctx->b a builder made again as it was then
	 * (builder_load: the same strings, functions, processes, tracks and
	 * open stacks, so the ids the state holds are the builder's), ready
	 * for grow_feed from where the saved one stopped; NULL when the
	 * bytes are damaged (every id it keeps is checked against the
	 * builder). NULL (both): the reader's state is not kept. */
	bool (*grow_save)(void *state, struct blob *out);
	void *(*grow_load)(struct load_ctx *ctx, struct blob_in *in);
};

/* All readers, NULL-terminated (formats/readers.c). */
extern const struct reader *const ttv_readers[];

/* Reports progress if the caller asked for it (cheap when it did not). */
static inline void
load_progress(const struct load_ctx *ctx, uint64_t done, uint64_t total)
{
	if (ctx->opts != NULL && ctx->opts->progress != NULL)
		ctx->opts->progress(ctx->opts->progress_arg, done, total);
}

/* Whether the load is no longer wanted (load_options.cancel): cheap
 * enough for a reader's loop every few thousand records. */
static inline bool
load_cancelled(const struct load_ctx *ctx)
{
	return ctx->opts != NULL && ctx->opts->cancel != NULL &&
	    __atomic_load_n(ctx->opts->cancel, __ATOMIC_RELAXED) != 0;
}

#endif
