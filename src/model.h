/*
 * The trace model: what every reader produces and every query and pane
 * reads. One model for all formats (XRay, FXT, CoreProfiler, CTF).
 *
 * A model is built once by a builder (builder.h), or mapped from an index
 * (index.h), and is immutable after; every pointer in it is owned by the
 * struct trace and freed by trace_free() (arrays that live in a mapping
 * belong to its backing, below).
 *
 * Time is int64 nanoseconds on the source's own time base (the reader
 * converts ticks with the source tick rate, which is kept in
 * trace->ticks_per_second for display).
 *
 * Slices live on tracks. A track keeps one array per stack depth, each
 * sorted by start time; slices at one depth never overlap, so their end
 * times are sorted too and a time window maps to a contiguous index range
 * found by binary search (query.h). A slice is 16 bytes: its depth and its
 * track are implied by where it is stored, its args and durations of more
 * than 4.29 s live in side tables.
 */
#ifndef TTV_MODEL_H
#define TTV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t ttv_ns;
#define TTV_NS_MAX INT64_MAX
#define TTV_NS_MIN INT64_MIN

/* Index into trace->strings; 0 is always the empty string. */
typedef uint32_t str_id;
/* Index into trace->funcs; a function is a (name, category) pair. */
typedef uint32_t func_id;
/* Offset into trace->args; 0 means "no args". */
typedef uint32_t args_id;

enum slice_flag {
	SLICE_UNTERMINATED = 1 << 0,	/* no end seen: ended at the track's last time */
	SLICE_TAIL_EXIT = 1 << 1,	/* closed by a tail-call exit */
	SLICE_NO_ENTRY = 1 << 2,	/* end seen without its begin: start is a guess */
	SLICE_UNWOUND = 1 << 3,	/* closed because an outer frame ended */
	SLICE_HAS_ARGS = 1 << 4,	/* look up args with trace_slice_args() */
	SLICE_INSTANT = 1 << 5,	/* zero-length event shown as a slice */
	SLICE_TRUNCATED = 1 << 6,	/* overlapped a sibling and was cut */
	/* Not stored (a slice has 8 bits of flags): readers may pass them,
	 * they are known from where a slice lives — sampled slices have
	 * weights in their depth_level, async ones are on TRACK_ASYNC. */
	SLICE_SAMPLED = 1 << 8,
	SLICE_ASYNC = 1 << 9,
};
#define SLICE_STORED_FLAGS 0xffu
/* Slices whose duration is not a measured one; statistics leave them out. */
#define SLICE_INEXACT (SLICE_UNTERMINATED | SLICE_NO_ENTRY)

/*
 * 16 bytes: most durations fit 32 bits of ns (4.29 s); a longer one is
 * stored as SLICE_DUR_LONG with the real value in its depth's `longs`
 * list. Read durations with slice_dur()/slice_end(), never dur32.
 */
#define SLICE_DUR_LONG UINT32_MAX
#define FUNC_ID_MAX ((1u << 24) - 1)

struct slice {
	ttv_ns start;
	uint32_t dur32;
	uint32_t func : 24;	/* func_id */
	uint32_t flags : 8;	/* enum slice_flag, stored ones */
};
_Static_assert(sizeof(struct slice) == 16, "a slice must stay 16 bytes");

/* A slice named by its place: track, depth, index in that depth's array. */
struct slice_ref {
	uint32_t track;
	uint32_t depth;
	uint32_t index;
};

/* A duration too long for dur32, by index in its depth. */
struct long_dur {
	uint32_t index;
	uint32_t pad;
	ttv_ns dur;
};

struct depth_level {
	struct slice *slices;	/* sorted by start, non-overlapping */
	size_t len;
	/* Sample weights, parallel to slices, or NULL (weight = 1 each). */
	uint32_t *weights;
	struct long_dur *longs;	/* sorted by index */
	size_t nlongs;
};

/* The duration of slice i of a depth: looked up when it is a long one. */
ttv_ns level_long_dur(const struct depth_level *l, size_t i);

static inline ttv_ns
level_dur(const struct depth_level *l, size_t i)
{
	uint32_t d = l->slices[i].dur32;
	return d != SLICE_DUR_LONG ? (ttv_ns)d : level_long_dur(l, i);
}

/* The same for a walk by increasing i: *cursor (start at 0) follows the
 * long durations so that each costs no search. */
static inline ttv_ns
level_dur_walk(const struct depth_level *l, size_t i, size_t *cursor)
{
	uint32_t d = l->slices[i].dur32;
	if (d != SLICE_DUR_LONG)
		return (ttv_ns)d;
	while (*cursor < l->nlongs && l->longs[*cursor].index < i)
		(*cursor)++;
	if (*cursor < l->nlongs && l->longs[*cursor].index == i)
		return l->longs[*cursor].dur;
	return (ttv_ns)d;
}

static inline ttv_ns
level_end(const struct depth_level *l, size_t i)
{
	return l->slices[i].start + level_dur(l, i);
}

struct instant {
	ttv_ns t;
	func_id func;
	args_id args;
};

struct counter_sample {
	ttv_ns t;
	double value;
};

/* Slices of a track that carry args: sorted by (depth, index). */
struct slice_args {
	uint32_t depth;
	uint32_t index;
	args_id args;
};

enum track_kind {
	TRACK_THREAD,	/* a thread: call stacks, instants */
	TRACK_ASYNC,	/* async slices of one id, under a process */
	TRACK_CPU,	/* what ran on a CPU: slices named after threads */
	TRACK_COUNTER,	/* a time series */
};

struct track {
	enum track_kind kind;
	uint32_t process;	/* index into trace->processes */
	int64_t tid;		/* thread id, async id, cpu number or counter id */
	str_id name;		/* may be 0: panes then show the id */
	ttv_ns first, last;	/* time range of everything on the track */

	struct depth_level *depth;
	uint32_t ndepth;
	size_t nslices;		/* over all depths */

	struct instant *instants;	/* sorted by t */
	size_t ninstants;

	struct counter_sample *samples;	/* sorted by t (counter tracks) */
	size_t nsamples;

	struct slice_args *slice_args;
	size_t nslice_args;
};

struct process {
	int64_t pid;
	str_id name;
};

struct func {
	str_id name;
	str_id category;
	/* The reader's own id (XRay function id, CLR function id...), or -1. */
	int64_t source_id;
};

/* Where a function's code is: its address in the binary it came from,
 * in the binary's own (link-time) addresses, which its debug info speaks
 * of (formats/srcline.c finds the source line there). Readers that know
 * it set it (XRay: the instrumentation map; CTF cyg-profile: the traced
 * binaries); trace->func_addrs is sorted by func, one entry at most per
 * function. */
struct func_addr {
	func_id func;
	str_id binary;		/* the binary's path, as it was opened */
	uint64_t addr;
};

enum marker_kind {
	MARKER_BUFFER_START,
	MARKER_BUFFER_END,
	MARKER_TSC_WRAP,
	MARKER_CPU_CHANGE,
	MARKER_CUSTOM_EVENT,
	MARKER_TYPED_EVENT,
	MARKER_DROPPED,	/* data lost: discarded events, buffer full, overwritten */
	MARKER_PAUSE,
	MARKER_RESUME,
	MARKER_PACKET,	/* CTF packet boundary */
	MARKER_KIND_COUNT
};

struct marker {
	ttv_ns t;
	uint32_t track;		/* UINT32_MAX: not tied to a track */
	uint16_t kind;		/* enum marker_kind */
	uint16_t pad;
	int64_t value;		/* kind-specific: cpu, event type, count lost */
	str_id text;		/* payload or description, may be 0 */
	uint32_t pad2;
};

struct flow {
	uint64_t id;
	struct slice_ref from, to;
};

struct log_entry {
	ttv_ns t;
	uint32_t track;
	str_id text;
};

/* Argument values, stored in trace->args as runs of {count} then entries. */
enum arg_type {
	ARG_NULL, ARG_BOOL, ARG_I64, ARG_U64, ARG_F64, ARG_STR, ARG_PTR, ARG_KOID,
};

struct arg {
	str_id name;
	uint32_t type;		/* enum arg_type */
	union {
		int64_t i;
		uint64_t u;
		double f;
		str_id s;
	} v;
};

/* Counts of the records a reader saw, by its own kind names (--info). */
struct record_count {
	char *kind;		/* the reader's name for the kind */
	uint64_t count;
};

/* A file the trace was read from (the trace, a CTF trace's metadata,
 * streams and indexes, a binary its names came from) as it was when
 * read: what an output must not overwrite, and what tells whether the
 * trace changed since. */
struct trace_file {
	char *path;
	uint64_t dev, ino;
	int64_t size, mtime_ns;
};

enum diag_level { DIAG_WARNING, DIAG_ERROR };

struct diag_msg {
	enum diag_level level;
	char *text;		/* "offset N: what" or "line N: what" */
};

/*
 * The memory a model's arrays live in when it is not the heap: a mapped
 * index (index_map.c), or the file a trace was built into
 * (index_store.c). trace_free() frees an array only when the backing does
 * not own it, then releases the backing (doc/index-format.md).
 */
struct trace_backing {
	bool (*owns)(const struct trace_backing *b, const void *p);
	void (*release)(struct trace_backing *b);
	/* Every array is in memory (a model just built, with memory to
	 * spare): trace_prefetch asks for no read-ahead. */
	bool resident;
};

struct trace {
	/* What the file was: set by the reader. */
	char *path;
	char *format;		/* "xray-fdr", "xray-basic", "fxt", ... */
	char *version;		/* e.g. "5" */
	char *byte_order;	/* "little-endian", "big-endian", or NULL (text) */
	double ticks_per_second;	/* 0: unknown, times are raw ticks */
	ttv_ns wall_origin;	/* ns since the Unix epoch of time 0, or TTV_NS_MIN */
	ttv_ns first, last;	/* time range of the whole trace */
	/* Read while being written (--follow): nothing that ends before
	 * this time is still to come (a stream of a CTF trace may lag
	 * behind another). TTV_NS_MAX: what was read is all there is up to
	 * its end. */
	ttv_ns complete_until;

	char **strings;		/* interned; strings[0] == "" */
	uint32_t nstrings;
	char **str_chunks;	/* the storage strings[] points into */
	size_t nstr_chunks;

	struct func *funcs;
	uint32_t nfuncs;

	struct func_addr *func_addrs;	/* sorted by func; few or none */
	size_t nfunc_addrs;

	struct process *processes;
	uint32_t nprocesses;

	struct track *tracks;
	uint32_t ntracks;

	struct marker *markers;	/* sorted by t */
	size_t nmarkers;

	struct flow *flows;
	size_t nflows;

	struct log_entry *logs;	/* sorted by t */
	size_t nlogs;

	struct arg *args;	/* args[a].v.u is the count of the run at a */
	size_t nargs;

	struct record_count *records;
	size_t nrecords;

	/* Key/value metadata for --info (modules, clocks, env...). */
	char **meta_keys, **meta_values;
	size_t nmeta;

	struct trace_file *files;	/* each file read, once, set by the loader */
	size_t nfiles;

	struct diag_msg *diags;
	size_t ndiags;
	uint64_t ndiags_dropped;	/* beyond the stored limit */
	bool has_errors;		/* at least one DIAG_ERROR */

	/* NULL: every array above is a heap block of the trace's own. */
	struct trace_backing *backing;
	/* Answers an index stored for the queries (summary.h), owned by
	 * the backing; NULL for a model read from a trace. */
	const struct trace_summary *summary;
};

void trace_free(struct trace *t);

static inline const char *
trace_str(const struct trace *t, str_id s)
{
	return s < t->nstrings ? t->strings[s] : "";
}

static inline const char *
trace_func_name(const struct trace *t, func_id f)
{
	return f < t->nfuncs ? trace_str(t, t->funcs[f].name) : "";
}

static inline const struct slice *
trace_slice(const struct trace *t, struct slice_ref r)
{
	return &t->tracks[r.track].depth[r.depth].slices[r.index];
}

static inline const struct depth_level *
trace_level(const struct trace *t, struct slice_ref r)
{
	return &t->tracks[r.track].depth[r.depth];
}

static inline ttv_ns
trace_slice_dur(const struct trace *t, struct slice_ref r)
{
	return level_dur(trace_level(t, r), r.index);
}

static inline ttv_ns
trace_slice_end(const struct trace *t, struct slice_ref r)
{
	return level_end(trace_level(t, r), r.index);
}

/* The address of function f in its binary, or NULL when unknown. */
const struct func_addr *trace_func_addr(const struct trace *t, func_id f);

/* Args of a slice (NULL and *n = 0 when it has none). */
const struct arg *trace_slice_args(const struct trace *t, struct slice_ref r,
    size_t *n);
/* Args of a run (instants, markers). */
const struct arg *trace_args(const struct trace *t, args_id a, size_t *n);

/* The sample weight of a slice (1 unless the track is sampled). */
static inline uint32_t
trace_slice_weight(const struct trace *t, struct slice_ref r)
{
	const struct depth_level *l = &t->tracks[r.track].depth[r.depth];
	return l->weights ? l->weights[r.index] : 1;
}

const char *marker_kind_name(enum marker_kind k);
/* Parses a marker kind name (as printed by marker_kind_name); -1 if unknown. */
int marker_kind_parse(const char *name);

/* A label for a track: its name, else "tid N" / "cpu N" / ... into buf. */
const char *track_label(const struct trace *t, const struct track *tr,
    char *buf, size_t size);

/* How the next operation will read the calls of a model that lives in a
 * file (a mapped index): passed on to the kernel, so that a scan reads
 * ahead and a probe does not. Nothing for a model in memory. */
enum trace_access { TRACE_SCAN, TRACE_PROBE };
void trace_advise(const struct trace *t, enum trace_access how);
/* The calls [lo, hi) of a depth will be read soon: the kernel starts
 * reading them now (one request, not a fault at a time). Nothing for a
 * model in memory. */
void trace_prefetch(const struct trace *t, uint32_t track, uint32_t depth,
    size_t lo, size_t hi);
/* A scan of a depth reads ahead of itself: at slice i, once every
 * TRACE_AHEAD slices (*next starts at 0), the slices up to 3 *
 * TRACE_AHEAD ahead are asked for (trace_prefetch), each once. Where the file's pages are not in memory
 * (a memory limit), the kernel's read-ahead of a fault, from a file whose
 * depths lie in interleaved chunks, reads a little at a time: a pass over
 * a 500 MB index took 5 s where it takes 0.9 s so. */
#define TRACE_AHEAD ((size_t)1 << 16)	/* slices: 1 MiB */
static inline void
trace_ahead(const struct trace *t, uint32_t track, uint32_t depth, size_t i,
    size_t *next)
{
	if (i >= *next) {
		trace_prefetch(t, track, depth, *next == 0 ? i : i + 2 *
		    TRACE_AHEAD, i + 3 * TRACE_AHEAD);
		*next = i + TRACE_AHEAD;
	}
}

/* Total slices in the trace. */
size_t trace_nslices(const struct trace *t);
/* Bytes the model holds in memory (arrays and strings, not allocator
 * overhead). */
size_t trace_memory(const struct trace *t);

#endif
