/*
 * What the parts of the LLVM XRay reader share: the decoded file header,
 * byte-order helpers, tick -> ns conversion, the function-id -> func_id
 * cache, the per-thread state and the record counters. xray.c reads the
 * header and owns this state; xray_fdr.c and xray_basic.c decode the two
 * record formats into the builder.
 */
#ifndef TTV_XRAY_PRIV_H
#define TTV_XRAY_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader.h"

struct xray_instrmap;

/* Record kinds counted for --info; xray.c has their names. */
enum xray_count {
	XC_ENTER, XC_EXIT, XC_TAIL_EXIT, XC_ENTER_ARGS,
	XC_NEW_BUFFER, XC_END_OF_BUFFER, XC_NEW_CPU, XC_TSC_WRAP,
	XC_WALLTIME, XC_CUSTOM, XC_CALL_ARG, XC_EXTENTS, XC_TYPED, XC_PID,
	XC_ARG_PAYLOAD, XC_UNKNOWN,
	XC_COUNT
};

/* One thread: (pid, tid) -> track, and what replay carries across its
 * buffers. */
struct xray_thread {
	int64_t pid, tid;
	uint32_t track;
	int32_t cpu;		/* last cpu seen, -1 before the first */
	bool have_last;
	bool arg_open;		/* the last function record opened a slice */
	uint32_t nargs;		/* args attached to that slice so far */
	ttv_ns last;		/* time of the last timestamped record */
	uint64_t orphans;	/* exits whose entry was never seen */
	uint64_t clamped;	/* timestamps that went backwards */
	/* Open frames looked through by exits that matched none of them:
	 * past a budget, exits only close the innermost frame (a damaged
	 * log could otherwise cost depth x exits). */
	uint64_t search_cost;
	bool no_search;
	/* Records counted while replaying (threads may replay in parallel),
	 * added into struct xray at the end. */
	uint64_t counts[XC_COUNT];
	/* FDR: this thread's buffers in replay (time) order. */
	uint32_t *bufs;
	uint32_t nbufs, capbufs, next;
	/* basic: the last function record, for its argument payloads. */
	int32_t last_fid;
	int last_type;
};

/* A small open-addressing map from a 64-bit key pair to an index. */
struct xray_map {
	uint64_t *k1, *k2;
	uint32_t *v;		/* value + 1; 0 = empty */
	uint32_t nslots, n;
};

struct xray {
	struct load_ctx *ctx;
	struct builder *b;
	const unsigned char *data;
	size_t size;
	bool be;		/* big-endian file */
	uint16_t version, type;
	uint32_t flags;
	uint64_t freq;		/* cycle_frequency, 0 = unknown */
	uint64_t buffer_size;	/* FDR header field */

	/* ns = ((ticks - tsc_base) * mul) >> shift: one 64x64->128 multiply
	 * per record. tsc_base is 0 unless absolute times would not fit in
	 * 63 bits (a low cycle frequency, a machine up for long); then it is
	 * the first timestamp and times count from there. */
	uint64_t mul;
	unsigned shift;
	uint64_t tsc_base;
	uint64_t clamped;	/* (atomic) times still out of range */

	struct xray_instrmap *map;
	char *map_path;		/* the binary map was read from */
	uint32_t *fcache;	/* small ids: func_id + 1, 0 = not yet */
	struct xray_map bigids;	/* other ids */
	str_id argnames[8];

	struct xray_thread *threads;
	uint32_t nthreads, capthreads;
	struct xray_map thread_index;

	uint64_t counts[XC_COUNT];
	unsigned nmsgs;		/* diagnostics emitted by the reader */
	uint64_t nmsgs_dropped;
	bool stop;		/* --strict and an error was seen, or the load
			 * is no longer wanted (atomic) */
	/* Threads replay on several workers: every builder call that is not
	 * about one track goes between xray_lock() and xray_unlock(). */
	bool parallel;
};

static inline void
xray_lock(struct xray *x)
{
	if (x->parallel)
		builder_lock(x->b);
}

static inline void
xray_unlock(struct xray *x)
{
	if (x->parallel)
		builder_unlock(x->b);
}

static inline bool
xray_stopped(const struct xray *x)
{
	return __atomic_load_n(&x->stop, __ATOMIC_RELAXED);
}

#define XRAY_FCACHE_SIZE 65536u
#define XRAY_MAX_MSGS 200u
/* Exits without entry that become the parent of their thread's track. */
#define XRAY_MAX_ORPHAN_PARENTS 64u
/* Frames a thread's unmatched exits may look through in all. */
#define XRAY_SEARCH_BUDGET (1ULL << 28)
/* Arguments kept per call (XRay logs one; more means damage). */
#define XRAY_MAX_ARGS 16u

static inline uint16_t
xr16(const struct xray *x, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return x->be ? __builtin_bswap16(v) : v;
}

static inline uint32_t
xr32(const struct xray *x, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return x->be ? __builtin_bswap32(v) : v;
}

static inline uint64_t
xr64(const struct xray *x, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return x->be ? __builtin_bswap64(v) : v;
}

/* Ticks to ns with the precomputed multiplier, saturating. */
static inline ttv_ns
xray_ns(const struct xray *x, uint64_t ticks)
{
	bool ahead = ticks >= x->tsc_base;
	uint64_t d = ahead ? ticks - x->tsc_base : x->tsc_base - ticks;
	unsigned __int128 r = ((unsigned __int128)d * x->mul) >> x->shift;

	if (r <= (unsigned __int128)INT64_MAX)
		return ahead ? (ttv_ns)r : -(ttv_ns)r;
	/* Counted, and said at the end: never a silent wrong time. */
	__atomic_fetch_add((uint64_t *)&x->clamped, 1, __ATOMIC_RELAXED);
	return ahead ? INT64_MAX : -INT64_MAX;
}

/* Chooses tsc_base from the earliest timestamp known before decoding:
 * kept at 0 (absolute times) while they fit with room to spare. */
void xray_time_base(struct xray *x, uint64_t first_ticks);

func_id xray_func_slow(struct xray *x, int64_t id);

static inline func_id
xray_func(struct xray *x, int64_t id)
{
	if ((uint64_t)id < XRAY_FCACHE_SIZE) {
		/* written once, under the lock, by xray_func_slow() */
		uint32_t v = __atomic_load_n(&x->fcache[id], __ATOMIC_ACQUIRE);
		if (v != 0)
			return v - 1;
	}
	return xray_func_slow(x, id);
}

struct xray_thread *xray_thread(struct xray *x, int64_t pid, int64_t tid);
uint32_t xray_thread_index(const struct xray *x, const struct xray_thread *t);
str_id xray_argname(struct xray *x, uint32_t i);
void xray_arg(struct xray *x, struct xray_thread *th, uint64_t v,
    uint64_t off);

/* Diagnostics with a cap, so a damaged 1 GB file does not print millions
 * of lines; the count of the ones left out is reported at the end. */
void xray_warn(struct xray *x, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void xray_error(struct xray *x, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The time of a thread's record: never before its previous one, because
 * the builder wants each track in time order (TSCs of different CPUs need
 * not agree exactly). */
static inline ttv_ns
xray_thread_time(struct xray_thread *th, ttv_ns t)
{
	/* before the first record, last is TTV_NS_MIN */
	if (t < th->last) {
		th->clamped++;
		return th->last;
	}
	return t;
}

/* Exits (see xray.c): the second is for an exit that builder_pop_func()
 * did not find open, the third for threads whose exits no longer search
 * the stack. */
void xray_exit_unmatched(struct xray *x, struct xray_thread *th, ttv_ns t,
    func_id f, uint32_t flags);
void xray_exit_nosearch(struct xray *x, struct xray_thread *th, ttv_ns t,
    func_id f, uint32_t flags);

static inline __attribute__((always_inline)) void
xray_exit(struct xray *x, struct xray_thread *th, ttv_ns t, func_id f,
    uint32_t flags)
{
	if (__builtin_expect(th->no_search, 0))
		xray_exit_nosearch(x, th, t, f, flags);
	else if (builder_pop_func(x->b, th->track, t, f, flags) ==
	    POP_NOT_FOUND)
		xray_exit_unmatched(x, th, t, f, flags);
}

/* The header read and the time and names set up (said into the builder
 * unless quiet: a state made again); -1 when it is no XRay log (said). */
int xray_open(struct xray *x, struct load_ctx *ctx, bool quiet);
/* The end of a load said into x->b: counts, clamped times, problems not
 * listed (dropped more than x's); x is only read. */
void xray_report(const struct xray *x, uint64_t dropped);
void xray_free(struct xray *x);

int xray_load_fdr(struct xray *x);
int xray_load_basic(struct xray *x);
/* Whether a log with this head can be read as it grows: basic mode (the
 * runtime appends buffers to it), not FDR (written whole at flush). */
bool xray_grows(const unsigned char *head, size_t len);
/* xray_grow.c: a basic-mode log read as it grows (reader.h, grow_*). */
size_t xray_complete(const unsigned char *data, size_t len);
void *xray_grow_begin(struct load_ctx *ctx);
size_t xray_grow_feed(void *state, struct load_ctx *ctx, size_t from);
int xray_grow_end(void *state, struct load_ctx *ctx);
void xray_grow_free(void *state);
bool xray_grow_save(void *state, struct blob *out);
void *xray_grow_load(struct load_ctx *ctx, struct blob_in *in);
/* Basic mode in pieces (a log read as it grows, xray_grow.c). */
void xray_basic_records(struct xray *x, size_t from, size_t to,
    uint32_t *prev);
void xray_basic_end(const struct xray *x, size_t to, uint64_t *dropped);

uint32_t xray_map_get(const struct xray_map *m, uint64_t k1, uint64_t k2);
void xray_map_put(struct xray_map *m, uint64_t k1, uint64_t k2, uint32_t v);
void xray_map_free(struct xray_map *m);

#endif
