/*
 * Internals of the Fuchsia trace format (FXT) reader, shared by its files:
 * fxt.c walks the records (framing, providers, string and thread tables,
 * kernel objects), fxt_half.c scans the second half on a thread of its
 * own, fxt_event.c turns events into slices, flows, async slices,
 * counters and CPU lanes, fxt_grow.c reads a file being written from
 * where it stopped, fxt_save.c writes that state as bytes and makes it
 * again, fxt_pipe.c replays them on a worker,
 * fxt_prefault.c maps the pages in ahead of the scan, and fxt_util.c has
 * the small hash and sort helpers.
 *
 * The reader makes two passes over the mapping, both in file order:
 *  - the scan pass keeps the tables, counts records, reports framing damage,
 *    collects names, and checks per thread whether events arrive in
 *    timestamp order;
 *  - the event pass replays the tables (so every reference resolves against
 *    the table state at that point of the file, as the format requires) and
 *    feeds the builder. Threads whose events are in order go straight to the
 *    builder; the others keep a compact decoded copy (fxt_dev, 32 bytes per
 *    event) that is sorted by time (stable) at the end. Async, flow and
 *    scheduling events, which tie several threads together, are kept in
 *    small side arrays and sorted the same way.
 */
#ifndef TTV_FXT_INT_H
#define TTV_FXT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "reader.h"
#include "xalloc.h"

#define FXT_MAGIC 0x0016547846040010ULL
#define FXT_NONE UINT32_MAX
#define FXT_STR_UNSET UINT32_MAX	/* string slot never defined */
#define FXT_MAX_DEPTH 512	/* deeper duration begins are dropped */
#define FXT_FCACHE_BITS 10	/* function cache: 1024 entries */
#define FXT_SCACHE_BITS 8	/* counter series cache: 256 entries */

enum fxt_event_type {
	FXT_EV_INSTANT, FXT_EV_COUNTER, FXT_EV_BEGIN, FXT_EV_END,
	FXT_EV_COMPLETE, FXT_EV_ASYNC_BEGIN, FXT_EV_ASYNC_INSTANT,
	FXT_EV_ASYNC_END, FXT_EV_FLOW_BEGIN, FXT_EV_FLOW_STEP, FXT_EV_FLOW_END,
	FXT_EV_COUNT
};

/* Record kinds counted for --info (index into fxt_kind_names). */
enum fxt_kind {
	K_MAGIC, K_PROVIDER_INFO, K_PROVIDER_SECTION, K_PROVIDER_EVENT,
	K_TRACE_INFO_UNKNOWN, K_METADATA_UNKNOWN,
	K_INIT, K_STRING, K_STRING_IGNORED, K_THREAD, K_THREAD_IGNORED,
	K_EV_INSTANT, K_EV_COUNTER, K_EV_BEGIN, K_EV_END, K_EV_COMPLETE,
	K_EV_ASYNC_BEGIN, K_EV_ASYNC_INSTANT, K_EV_ASYNC_END,
	K_EV_FLOW_BEGIN, K_EV_FLOW_STEP, K_EV_FLOW_END, K_EV_UNKNOWN,
	K_BLOB, K_USEROBJ, K_KOBJ,
	K_CSWITCH_LEGACY, K_CSWITCH, K_WAKEUP, K_SCHED_UNKNOWN,
	K_LOG, K_LARGE_BLOB, K_LARGE_UNKNOWN,
	K_UNKNOWN10, K_UNKNOWN11, K_UNKNOWN12, K_UNKNOWN13, K_UNKNOWN14,
	/* Things inside records that were dropped or skipped. */
	K_ARG_UNKNOWN, K_COUNTER_NON_NUMERIC, K_MALFORMED,
	K_BAD_STRING_REF, K_BAD_THREAD_REF, K_BAD_TIMESTAMP,
	K_END_WITHOUT_BEGIN, K_TOO_DEEP, K_COMPLETE_TRUNCATED,
	K_FLOW_NO_SLICE, K_FLOW_DUPLICATE, K_FLOW_UNMATCHED,
	K_ASYNC_UNMATCHED,
	K_COUNT
};
extern const char *const fxt_kind_names[K_COUNT];

/* ------------------------------------------------------------ helpers */

/* Open-addressing map from a 128-bit key to a 32-bit value. */
struct fxt_map {
	struct fxt_map_slot { uint64_t a, b; uint32_t v; bool used; } *slots;
	size_t cap, len;
};
bool fxt_map_get(const struct fxt_map *m, uint64_t a, uint64_t b,
    uint32_t *v);
void fxt_map_put(struct fxt_map *m, uint64_t a, uint64_t b, uint32_t v);
void fxt_map_free(struct fxt_map *m);

/* Stable sort by the int64 time that must be the first member of each
 * element. */
void fxt_sort_by_time(void *base, size_t n, size_t size);

/* ------------------------------------------------------------- state */

/* A provider's string table in chunks of 256 slots, each allocated when a
 * string record first lands in it: a provider costs what it uses, so a
 * file of bare provider records stays small. */
#define FXT_STR_CHUNK 256
struct fxt_strchunk {
	str_id strings[FXT_STR_CHUNK];	/* FXT_STR_UNSET if undefined */
	uint64_t text[FXT_STR_CHUNK];	/* offset << 16 | length */
};

/* Providers a trace may have: beyond, the last is reused (and said). */
#define FXT_MAX_PROVIDERS 1024

struct fxt_provider {
	uint32_t id;
	str_id name;
	char *cname;			/* the name, for messages */
	uint64_t tps;			/* ticks per second */
	/* Ticks counted from here (the first event's) when absolute ones
	 * would pass 2^63 ns; 0 otherwise. */
	uint64_t tick_base;
	struct fxt_strchunk *chunks[0x8000 / FXT_STR_CHUNK];
	uint32_t threads[256];		/* thread index, FXT_NONE if undefined */
};

/* String slot idx (1..0x7fff) of a provider. */
static inline str_id
fxt_pstr(const struct fxt_provider *p, unsigned idx)
{
	const struct fxt_strchunk *c = p->chunks[idx / FXT_STR_CHUNK];
	return c != NULL ? c->strings[idx % FXT_STR_CHUNK] : FXT_STR_UNSET;
}

static inline uint64_t
fxt_ptext(const struct fxt_provider *p, unsigned idx)
{
	const struct fxt_strchunk *c = p->chunks[idx / FXT_STR_CHUNK];
	return c != NULL ? c->text[idx % FXT_STR_CHUNK] : 0;
}

/* Defines slot idx (fxt.c). */
void fxt_pstr_set(struct fxt_provider *p, unsigned idx, str_id s,
    uint64_t text);

/* An open slice on a thread, mirroring the builder's stack (or standing
 * in for it: fxt_thread.own). */
struct fxt_frame {
	int64_t start;
	int64_t end;		/* complete events: their end; else INT64_MIN */
	func_id func;
	args_id args;
};

/* A thread event kept for sorting (threads whose events arrive out of
 * order). x is the end time, or the flow id. */
struct fxt_dev {
	int64_t t;
	int64_t x;
	func_id func;
	args_id args;
	uint8_t type;
};

struct fxt_thread {
	int64_t pid, tid;
	uint32_t track;		/* FXT_NONE until first used */
	uint32_t process;	/* builder process index, FXT_NONE until used */
	int64_t last_t;		/* scan pass: last event time seen */
	uint64_t nev;		/* scan pass: events bound to its stack */
	bool defer;		/* events out of order: sort before feeding */
	bool direct;		/* replayed by the reading thread itself
				 * while the replay worker runs */
	bool end_args;		/* scan pass: an end event has args */
	bool own;		/* open slices kept here, not in the builder
				 * (fxt_event.c) */
	VEC(struct fxt_dev) dev;
};

/* The open slices of a thread (x->stacks, by thread index). Apart from
 * struct fxt_thread, which the reading thread reads on every event, and a
 * cache line each: the replay worker writes them on every event. */
struct fxt_stack {
	struct fxt_frame *stack;
	uint32_t depth, stack_cap;
	unsigned char pad[64 - sizeof(struct fxt_frame *) - 8];
};

/* Async event, processed after sorting by time. */
struct fxt_async {
	int64_t t;
	uint64_t id;
	func_id func;
	args_id args;
	str_id name;
	uint32_t process;
	uint8_t type;
};

/* An async track: the tracks of one id are found through async_tracks. */
struct fxt_atrack {
	uint32_t track, process;
};

/* A counter series; series of the same key in other processes chain. */
struct fxt_series {
	uint32_t process, track, next;
};

/* A kernel object's name. */
struct fxt_kname {
	str_id sid;
	char *text;
};

/* A flow event bound to its enclosing slice (bound = false: none). */
struct fxt_flowev {
	int64_t t;
	uint64_t id;
	int64_t pid;
	int64_t slice_start;
	struct slice_ref ref;
	uint8_t type;
	bool bound;
};

/* A scheduling record, processed after sorting by time. */
struct fxt_sched {
	int64_t t;
	int64_t out_tid, in_tid;	/* wakeup: in_tid is the woken thread */
	args_id args;			/* wakeup args */
	uint32_t cpu;
	int32_t in_prio, out_prio;	/* priority or weight */
	uint8_t kind;			/* 0 legacy, 1 switch, 2 wakeup */
	uint8_t out_state;
	bool out_idle, in_idle;
};

/* fxt_sort_by_time() moves elements through a 64-byte buffer. */
_Static_assert(sizeof(struct fxt_dev) <= 64 &&
    sizeof(struct fxt_async) <= 64 && sizeof(struct fxt_flowev) <= 64 &&
    sizeof(struct fxt_sched) <= 64, "sorted elements must fit 64 bytes");

/* What the event pass needs of a decoded event record. */
struct fxt_event {
	uint64_t off;
	unsigned type, nargs;
	uint32_t thread;
	str_id cat, name;
	unsigned name_ref;	/* to find the name's bytes (fxt_sref_text) */
	const unsigned char *name_stream;
	int64_t t;
	uint64_t x;
	const unsigned char *args, *args_end;
};

struct fxt_pipe;

/*
 * An entry of the replay worker's ring (fxt_pipe.c) is 16 bytes, as the
 * ring's stores are what the handover costs: the time, the function (or
 * counter track), and the type with the thread index. An event with args,
 * an end time, a flow id, a counter value or a thread index of 2^27 or
 * more has a second entry with them (FXT_PIPE_EXT).
 */
struct fxt_pev {
	int64_t t;
	uint32_t f;
	uint32_t tt;		/* EXT | type << TYPE_SHIFT | thread */
};

struct fxt_pext {
	int64_t x;
	uint32_t args;
	uint32_t thread;
};

#define FXT_PIPE_EXT (1u << 31)
#define FXT_PIPE_TYPE_SHIFT 27
#define FXT_PIPE_THREAD_MASK ((1u << FXT_PIPE_TYPE_SHIFT) - 1)
/* Not an event: the worker drops the mapping's pages up to t. */
#define FXT_PIPE_RELEASE 15
_Static_assert(FXT_EV_COUNT < FXT_PIPE_RELEASE, "event types fit 4 bits");

struct fxt {
	struct load_ctx *ctx;
	struct builder *b;
	const unsigned char *data;
	size_t size;		/* bytes up to the end of the last whole record */
	bool swap;		/* words are in the other byte order */
	bool scan;		/* true in the scan pass, false in the event pass */

	VEC(struct fxt_provider *) providers;
	struct fxt_provider *cur;
	bool too_many_providers;	/* said once */
	uint64_t first_tps;	/* for builder_set_tick_rate */
	uint64_t tick_base;	/* every provider's (fxt_provider) */

	VEC(struct fxt_thread) threads;
	VEC(struct fxt_stack) stacks;	/* one per thread */
	struct fxt_map thread_map;	/* (pid, tid) -> thread index */
	struct fxt_map koid_names;	/* (koid, 0) -> index in knames */
	VEC(struct fxt_kname) knames;
	struct fxt_map koid_type;	/* (koid, 0) -> kernel object type */
	struct fxt_map counters;	/* (name<<32|arg, id) -> first series */
	VEC(struct fxt_series) series;
	struct fxt_map async_tracks;	/* (id, k) -> k-th async_tr of id,
					 * (id, ~0) -> how many */
	VEC(struct fxt_atrack) async_tr;
	struct fxt_map cpu_tracks;	/* (cpu, 0) -> track */
	uint32_t kernel_process;	/* process holding the CPU lanes */

	VEC(struct fxt_async) async;
	VEC(struct fxt_flowev) flows;
	VEC(struct fxt_sched) sched;

	int64_t last_t;		/* latest event time in file order */
	int64_t max_t;		/* latest time of anything */
	uint64_t kinds[K_COUNT];
	uint64_t malformed_reported;
	/* The event pass of a big trace replays thread stacks and counter
	 * samples on a second thread (fxt_pipe.c); the calls the reader makes
	 * meanwhile that are not per track go under the builder lock, taken
	 * through fxt_lock() (nested calls lock once). */
	struct fxt_pipe *pipe;
	struct fxt_pev *put, *put_end;	/* the batch being filled */
	bool split;		/* the reading thread replays some tracks */
	unsigned lock_depth;
	str_id s_sched;		/* "sched" category */
	struct fxt_fcache {
		str_id name, cat;
		func_id func;
		bool used;
	} fcache[1 << FXT_FCACHE_BITS];
	struct fxt_scache {
		uint64_t k1, id;
		uint32_t process, track;
		bool used;
	} scache[1 << FXT_SCACHE_BITS];
};

/* The builder lock around calls that are not per track, while the replay
 * worker runs (only the reading thread calls these). */
static inline void
fxt_lock(struct fxt *x)
{
	if (x->pipe != NULL && x->lock_depth++ == 0)
		builder_lock(x->b);
}

static inline void
fxt_unlock(struct fxt *x)
{
	if (x->pipe != NULL && --x->lock_depth == 0)
		builder_unlock(x->b);
}

/* One word in the trace's byte order (records are 8-aligned in the
 * mapping, so this is a plain load plus, for foreign traces, a swap). */
static inline uint64_t
fxt_word(const struct fxt *x, const unsigned char *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, sizeof w);
	return x->swap ? __builtin_bswap64(w) : w;
}

/* A decoded argument. */
struct fxt_arg {
	unsigned type;		/* FXT argument type 0..10, or more if unknown */
	str_id name;
	uint64_t bits;		/* integer, pointer, koid, bool or double bits */
	str_id s;		/* string value (type 6) */
	const unsigned char *blob;	/* type 10 */
	size_t bloblen;
	unsigned name_ref;	/* to find the name's bytes (fxt_sref_text) */
	const unsigned char *name_stream;
};

/* fxt.c */
/* Decodes the argument at *p (advancing it); false if it runs past end. */
bool fxt_arg_next(struct fxt *x, const unsigned char **p,
    const unsigned char *end, struct fxt_arg *a);
bool fxt_ticks_to_ns(const struct fxt_provider *p, uint64_t ticks,
    int64_t *ns);
void fxt_malformed(struct fxt *x, uint64_t off, const char *what);
struct fxt_provider *fxt_provider0(struct fxt *x);
bool fxt_sref_inline(struct fxt *x, unsigned ref, const unsigned char **p,
    const unsigned char *end, str_id *out);
str_id fxt_sref_unset(struct fxt *x);
uint32_t fxt_thread_track_new(struct fxt *x, uint32_t thread);
func_id fxt_func_new(struct fxt *x, struct fxt_fcache *c, str_id name,
    str_id cat);
/* The bytes of a string ref whose inline stream (if any) is at stream. */
const char *fxt_sref_text(struct fxt *x, unsigned ref,
    const unsigned char *stream, size_t *len);
uint32_t fxt_thread_get(struct fxt *x, int64_t pid, int64_t tid);
uint32_t fxt_process(struct fxt *x, int64_t pid);
/* Adds the args of an event to the builder's current run; false if one
 * runs past the record. */
bool fxt_args(struct fxt *x, const unsigned char *p, const unsigned char *end,
    unsigned n, uint64_t off);

/* The current provider. */
static inline struct fxt_provider *
fxt_cur(struct fxt *x)
{
	return __builtin_expect(x->cur != NULL, 1) ? x->cur :
	    fxt_provider0(x);
}

/* Resolves a string ref (out may be NULL to only skip it): indexed refs
 * inline, inline strings out of line. False if its stream runs past end. */
static inline __attribute__((always_inline)) bool
fxt_sref(struct fxt *x, unsigned ref, const unsigned char **p,
    const unsigned char *end, str_id *out)
{
	str_id s;

	if (ref & 0x8000)
		return fxt_sref_inline(x, ref, p, end, out);
	if (out != NULL) {
		s = ref ? fxt_pstr(fxt_cur(x), ref) : 0;
		*out = __builtin_expect(s != FXT_STR_UNSET, 1) ? s :
		    fxt_sref_unset(x);
	}
	return true;
}

static inline uint32_t
fxt_thread_track(struct fxt *x, uint32_t thread)
{
	uint32_t t = x->threads.items[thread].track;

	return t != FXT_NONE ? t : fxt_thread_track_new(x, thread);
}

/* The function of (name, category): a direct-mapped cache in front of the
 * builder, as events name few functions and this is on every event. */
static inline func_id
fxt_func(struct fxt *x, str_id name, str_id cat)
{
	struct fxt_fcache *c = &x->fcache[(name * 0x9E3779B1u ^ cat) >>
	    (32 - FXT_FCACHE_BITS)];

	if (__builtin_expect(c->used && c->name == name && c->cat == cat, 1))
		return c->func;
	return fxt_func_new(x, c, name, cat);
}

/* Starts a load of ctx's file (at least 8 bytes): its byte order. */
void fxt_open(struct fxt *x, struct load_ctx *ctx);
/* Sets the tick base (see fxt.c); false when the file ends before its
 * first event, so that it cannot be told yet. */
bool fxt_choose_tick_base(struct fxt *x);
/* The scan pass from off on; returns where the well-formed records end
 * (*broken: damage, or the load was cancelled). */
size_t fxt_scan_from(struct fxt *x, size_t off, bool *broken);
/* The event pass from off up to x->size. */
void fxt_events_from(struct fxt *x, size_t off);
void fxt_providers_free(struct fxt *x);
/* The end of a load: processes and threads named, the counts. */
void fxt_name_things(struct fxt *x);
void fxt_report(struct fxt *x);

/* fxt_grow.c: a file being written, read from where the last read
 * stopped (reader.h, grow_*). */

/* The providers of one pass: each pass replays the tables in file order,
 * so each has its own. */
struct fxt_tables {
	__typeof__(((struct fxt *)0)->providers) providers;
	struct fxt_provider *cur;
};

/* What a growing load keeps from one read to the next (fxt_save.c writes
 * it as bytes and makes it again). */
struct fxt_grow {
	struct fxt x;			/* the event pass's tables in it */
	struct fxt_tables scan;		/* the scan pass's */
	bool started;			/* the first records are read */
	bool base_known;		/* the tick base is told */
	bool broken;			/* damage: nothing after it is read */
	bool stale;			/* a read stopped halfway (cancelled) */
	/* grow_end's: what it puts back */
	VEC(uint32_t) depths;
	VEC(struct fxt_flowev) flows;
	struct fxt_fcache fcache[1 << FXT_FCACHE_BITS];
};

void *fxt_grow_begin(struct load_ctx *ctx);
size_t fxt_grow_feed(void *state, struct load_ctx *ctx, size_t from);
int fxt_grow_end(void *state, struct load_ctx *ctx);
void fxt_grow_free(void *state);
/* fxt_save.c: a growing load's state as bytes and made again from them
 * (reader.h, grow_save and grow_load). */
bool fxt_grow_save(void *state, struct blob *out);
void *fxt_grow_load(struct load_ctx *ctx, struct blob_in *in);

/* fxt_event.c */
void fxt_event(struct fxt *x, const struct fxt_event *ev);
/* One sample of a counter event (of its numeric argument a). */
void fxt_counter_sample(struct fxt *x, const struct fxt_event *ev,
    const struct fxt_arg *a, double v);
/* One event of a thread, in the thread's time order; kinds gets the
 * counts of what was dropped or cut. */
void fxt_thread_run(struct fxt *x, uint32_t thread, unsigned type, int64_t t,
    int64_t xv, func_id f, args_id a, uint64_t *kinds);
/* Before the event pass: how each thread's slices go to the builder. */
void fxt_events_start(struct fxt *x);
/* keep: the sorted copies stay, for a file being read as it grows. */
void fxt_events_finish(struct fxt *x, bool keep);
void fxt_sched_finish(struct fxt *x);
void fxt_state_free(struct fxt *x);

/* fxt_pipe.c: the replay worker of the event pass. */
/* Whether a read of size bytes replays its events on a worker thread
 * (fxt_pipe_start): a big enough read, with a second CPU there. */
bool fxt_pipe_wanted(size_t size);
/* Starts it for an event pass over bytes bytes, if wanted; each pass
 * (a whole load, or a read that goes on) ends it (fxt_pipe_finish). */
void fxt_pipe_start(struct fxt *x, size_t bytes);
void fxt_pipe_flush(struct fxt *x, bool now);
/* fxt_event.c: replays up to max ring entries from e (the worker holds
 * the builder lock); returns the next one. */
const struct fxt_pev *fxt_replay(struct fxt *x, const struct fxt_pev *e,
    const struct fxt_pev *end, unsigned max, uint64_t *kinds);
/* Hands over one thread event (as fxt_thread_run takes it), with type
 * FXT_EV_COUNTER a counter sample (f: the counter track, xv: the value's
 * bits), or with FXT_PIPE_RELEASE pages to drop. In file order. */
static inline void
fxt_pipe_put(struct fxt *x, unsigned type, uint32_t thread, int64_t t,
    int64_t xv, func_id f, args_id a)
{
	struct fxt_pev *e = x->put;

	e->t = t;
	e->f = f;
	if (xv == 0 && a == 0 && thread <= FXT_PIPE_THREAD_MASK) {
		e->tt = (uint32_t)type << FXT_PIPE_TYPE_SHIFT | thread;
		x->put = e + 1;
	} else {
		struct fxt_pext ext = { xv, a, thread };
		e->tt = FXT_PIPE_EXT | (uint32_t)type << FXT_PIPE_TYPE_SHIFT;
		__builtin_memcpy(e + 1, &ext, sizeof ext);
		x->put = e + 2;
	}
	if (x->put >= x->put_end)
		fxt_pipe_flush(x, false);
}
/* Waits for the worker to replay everything, adds its counts. */
void fxt_pipe_finish(struct fxt *x);

/* fxt_half.c: the second half of the scan pass on another thread. */
struct fxt_half;
/* NULL if the trace is small, there is one CPU, or no boundary was found
 * near the middle; else the scan of the second half runs from *mid. */
struct fxt_half *fxt_half_start(struct fxt *x, size_t *mid);
/* Once the reading thread has scanned up to the middle (landed: exactly,
 * without damage): adds what the second half found to the scan's state
 * and sets *off to where the reading thread goes on; false (nothing done)
 * if it cannot be used. Frees hf. */
bool fxt_half_merge(struct fxt *x, struct fxt_half *hf, bool landed,
    size_t *off);

/* fxt_prefault.c: maps a big trace in on another CPU during the scan. */
struct fxt_prefault;
/* NULL if the trace is small or there is one CPU. */
struct fxt_prefault *fxt_prefault_start(const unsigned char *data,
    size_t size);
/* Stops it (if still going) and frees it; pf may be NULL. */
void fxt_prefault_stop(struct fxt_prefault *pf);

#endif
