/*
 * The index file's structures, as they are on disk (doc/index-format.md).
 * Shared by the writer (index_write.c), the reader (index_map.c) and the
 * checks (index_check.c); nothing else reads them.
 *
 * Numbers are in the writing machine's byte order (a file of the other
 * order is refused by its byte-order mark). Every table is an idx_array
 * {offset, count, hash} in the header; every offset into another table or
 * into the shared byte area (blob) is checked before it is used.
 */
#ifndef TTV_INDEX_FORMAT_H
#define TTV_INDEX_FORMAT_H

#include <stdint.h>

#include "model.h"
#include "query.h"
#include "summary.h"

#define INDEX_MAGIC "TTVINDEX"
/* The file's layout: raised with any change of the structures below. */
#define INDEX_FORMAT_VERSION 3u
/* What the readers and the builder make: raised when either changes the
 * model a trace gives (an index of an older model is rebuilt). */
#define INDEX_MODEL_VERSION 2u
#define INDEX_BOM UINT64_C(0x0102030405060708)
/* "COMPLETE" in the writer's byte order: written last. */
#define INDEX_COMPLETE UINT64_C(0x4554454c504d4f43)

/* Slices a check record covers: 64 KiB of slices. */
#define INDEX_BLOCK_SLICES 4096u
/* Strings in the byte area: none longer than this is written. */
#define INDEX_TEXT_MAX ((uint64_t)1 << 30)

/* A table: count elements from offset (bytes from the file's start). */
struct idx_array {
	uint64_t off;
	uint64_t count;
	uint64_t hash;		/* of the table's bytes (0 for the large arrays) */
};

enum idx_table {
	IDX_BLOB,		/* bytes: NUL-terminated strings */
	IDX_STR_OFF,		/* uint64_t per string: offset into the blob */
	IDX_FUNCS,		/* struct func */
	IDX_PROCESSES,		/* struct process */
	IDX_TRACKS,		/* struct idx_track */
	IDX_LEVELS,		/* struct idx_level */
	IDX_EXTENTS,		/* struct idx_extent */
	IDX_BLOCKS,		/* struct idx_block */
	IDX_LONGS,		/* struct long_dur */
	IDX_INSTANTS,		/* struct instant */
	IDX_SAMPLES,		/* struct counter_sample */
	IDX_SLICE_ARGS,		/* struct slice_args */
	IDX_MARKERS,		/* struct marker */
	IDX_FLOWS,		/* struct flow */
	IDX_LOGS,		/* struct log_entry */
	IDX_ARGS,		/* struct arg */
	IDX_RECORDS,		/* struct idx_record */
	IDX_META,		/* struct idx_meta */
	IDX_DIAGS,		/* struct idx_diag */
	IDX_SOURCES,		/* struct idx_source */
	IDX_STACKS,		/* struct idx_frame: open frames at the end */
	IDX_STATS,		/* struct func_stats: the whole trace's table */
	IDX_SUM_LEVELS,		/* struct sum_level, one per depth (or none) */
	IDX_SUM_NODES,		/* struct sum_node */
	IDX_SUM_ENTRIES,	/* struct sum_entry */
	IDX_SUM_TRACKS,		/* struct sum_track, one per track (or none) */
	IDX_FILES,		/* struct idx_file: the files the reader read */
	IDX_FUNC_ADDRS,		/* struct func_addr, by function */
	IDX_CALLED,		/* uint8_t per function: summary.h's called */
	/* bytes: the state a trace appended to is read on from (index.h,
	 * index_ident.grow), or none */
	IDX_GROW,
	IDX_TABLE_COUNT
};

/* Sizes of the stored structures, in the header: a build whose layouts
 * differ reads another format. */
enum idx_size {
	IDX_SIZE_SLICE, IDX_SIZE_LONG, IDX_SIZE_INSTANT, IDX_SIZE_SAMPLE,
	IDX_SIZE_SLICE_ARGS, IDX_SIZE_MARKER, IDX_SIZE_FLOW, IDX_SIZE_LOG,
	IDX_SIZE_ARG, IDX_SIZE_FUNC, IDX_SIZE_PROCESS, IDX_SIZE_TRACK,
	IDX_SIZE_LEVEL, IDX_SIZE_EXTENT, IDX_SIZE_BLOCK, IDX_SIZE_SOURCE,
	IDX_SIZE_FRAME, IDX_SIZE_STAT, IDX_SIZE_SUM_LEVEL, IDX_SIZE_SUM_NODE,
	IDX_SIZE_SUM_ENTRY, IDX_SIZE_SUM_TRACK, IDX_SIZE_FILE, IDX_SIZE_HEADER,
	IDX_SIZE_FUNC_ADDR, IDX_SIZE_COUNT
};

#define IDX_NO_TEXT UINT64_MAX	/* a NULL string */

struct idx_header {
	char magic[8];
	uint64_t bom;
	uint32_t format_version;
	uint32_t model_version;
	uint32_t page_size;	/* extents are in pages of this size */
	uint32_t nsizes;
	uint16_t sizes[IDX_SIZE_COUNT];
	uint16_t pad[32 - IDX_SIZE_COUNT];
	uint64_t program_id;	/* index_program_id() of the writer */
	uint64_t options_hash;	/* the options that change the model */
	uint64_t file_size;	/* the whole file */

	/* The model's scalars. */
	double ticks_per_second;
	int64_t wall_origin, first, last;
	uint64_t ndiags_dropped;
	uint32_t has_errors;
	uint32_t flags;		/* enum idx_flag */
	uint64_t path, format, version, byte_order;	/* blob offsets */
	/* The trace's canonical path follows the header in page 0 (for the
	 * cache's eviction, which reads nothing else): its length. */
	uint32_t trace_len;
	uint32_t pad2;
	/* IDX_HAS_STATS: the calls of the table's functions that never
	 * returned (struct stats_table's unfinished). */
	uint64_t stats_unfinished;

	struct idx_array tables[IDX_TABLE_COUNT];

	uint64_t header_hash;	/* of every byte above, then the trace path */
	uint64_t complete;	/* INDEX_COMPLETE, written last */
};

enum idx_flag {
	IDX_HAS_STATS = 1 << 0,	/* IDX_STATS holds the table (maybe empty) */
};

struct idx_track {
	uint32_t kind;		/* enum track_kind */
	uint32_t process;
	int64_t tid;
	uint32_t name;
	uint32_t ndepth;
	int64_t first, last;
	uint64_t nslices;
	uint64_t level_first;	/* into IDX_LEVELS */
	uint64_t instants_first, ninstants;
	uint64_t samples_first, nsamples;
	uint64_t sargs_first, nsargs;
};

struct idx_level {
	uint64_t len;		/* slices */
	uint64_t ext_first;	/* the slices: IDX_EXTENTS [first, + next) */
	uint64_t next;
	uint64_t wext_first;	/* the weights (wnext 0: none) */
	uint64_t wnext;
	uint64_t longs_first, nlongs;
	uint64_t block_first;	/* into IDX_BLOCKS: ceil(len / BLOCK) */
};

struct idx_extent {
	uint64_t off;
	uint64_t bytes;
};

/* The check record of INDEX_BLOCK_SLICES slices of a depth. */
struct idx_block {
	uint64_t hash;		/* of the slices' bytes, then the weights' */
	int64_t first_start;
	int64_t last_start;
};

struct idx_record {
	uint64_t count;
	uint64_t kind;		/* blob offset */
};

struct idx_meta {
	uint64_t key, value;	/* blob offsets */
};

struct idx_diag {
	uint32_t level;		/* enum diag_level */
	uint32_t pad;
	uint64_t text;		/* blob offset */
};

/* A file the reader read (struct trace_file). */
struct idx_file {
	uint64_t path;		/* blob offset */
	uint64_t dev, ino;
	int64_t size, mtime_ns;
};

enum idx_source_kind {
	IDX_SOURCE_FILE,	/* a file read */
	IDX_SOURCE_ABSENT,	/* a file looked for and not there */
};

/* A file the trace was read from (index_source.h). */
struct idx_source {
	uint64_t path;		/* blob offset */
	uint32_t kind;		/* enum idx_source_kind */
	uint32_t pad;
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	uint64_t head_hash;	/* first 64 KiB */
	uint64_t covered;	/* bytes read (the size when read whole) */
	uint64_t tail_hash;	/* the 4 KiB before covered */
	/* Where a reader may resume on appended data: covered, or before
	 * a partial record at the end. */
	uint64_t resume;
};

/* A frame still open when the input ended: struct grow_frame
 * (summary.h), as it is in memory. */
#define idx_frame grow_frame

#endif
