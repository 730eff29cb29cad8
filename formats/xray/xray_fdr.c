/*
 * XRay FDR ("flight data recorder") logs, versions 1 to 5.
 *
 * The file is a sequence of per-thread buffers in the runtime's slot
 * order, not in time order. A first pass finds the buffers (BufferExtents
 * from version 2, fixed buffer_size in version 1) and reads only their
 * preambles: thread, pid and the TSC of the first NewCPUId. Each thread's
 * buffers are then ordered by that TSC and replayed through one call
 * stack. Replay walks the file front to back as far as it can — a buffer
 * is replayed as soon as it is its thread's next one — so the pages behind
 * the lowest unreplayed buffer can be dropped (mapfile_release) and a
 * large log is decoded straight from the mapping with no per-record
 * allocation. Big logs split their threads among one worker per CPU.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "order.h"
#include "threads.h"
#include "env.h"
#include "xalloc.h"
#include "xray_priv.h"

/* Metadata record kinds (first byte = kind << 1 | 1). */
enum {
	MK_NEW_BUFFER, MK_END_OF_BUFFER, MK_NEW_CPU, MK_TSC_WRAP,
	MK_WALLTIME, MK_CUSTOM, MK_CALL_ARG, MK_EXTENTS, MK_TYPED, MK_PID,
};
#define META_BYTE(k) ((unsigned char)((k) << 1 | 1))

struct fdr_buf {
	size_t off;		/* where the buffer starts in the file */
	size_t start, end;	/* its records: [start, end) */
	uint64_t key;		/* TSC of its first NewCPUId */
	uint32_t thread;
	bool done;
	bool cut;		/* extents ran past the end of the file */
};

struct worker;

struct fdr {
	struct xray *x;
	struct fdr_buf *bufs;
	uint32_t nbufs, capbufs;
	uint64_t progress_at;
	size_t released;	/* pass 1: pages dropped up to here */
	struct worker *workers;
	uint32_t nworkers;
	uint32_t *owner;	/* thread index -> worker */
};

/* How often (bytes) to report progress and to drop decoded pages. */
#define PROGRESS_STEP (4u << 20)
#define RELEASE_STEP (32u << 20)
/* How often (bytes replayed by one worker) to ask whether the load is
 * still wanted: a few milliseconds of work. */
#define CANCEL_STEP (1u << 20)
/* Logs this big replay their threads on several CPUs. */
#ifndef PARALLEL_MIN_BYTES
#define PARALLEL_MIN_BYTES (64u << 20)
#endif
#define MAX_WORKERS 8u

/* Whether the load is no longer wanted (load_cancelled): if so every
 * loop of the read and every worker stops at its next check, as after a
 * --strict error, and the load ends with what was read. */
static bool
cancelled(struct xray *x)
{
	if (!load_cancelled(x->ctx))
		return false;
	__atomic_store_n(&x->stop, true, __ATOMIC_RELAXED);
	return true;
}

/* ---------------------------------------------------------------- pass 1 */

/* Reads a buffer's preamble from `start`: NewBuffer, WalltimeMarker, Pid,
 * then the first NewCPUId (or TSCWrap) gives the ordering key. Only a few
 * records are looked at. Returns false if there is no NewBuffer. */
static bool
read_preamble(struct xray *x, size_t start, size_t end, int32_t *tid,
    int32_t *pid, uint64_t *key, bool *have_key)
{
	const unsigned char *d = x->data;
	size_t off = start;

	*have_key = false;
	*pid = 0;
	if (end - start < 16 || d[start] != META_BYTE(MK_NEW_BUFFER))
		return false;
	*tid = (int32_t)xr32(x, d + start + 1);
	off += 16;
	for (int i = 0; i < 8 && end - off >= 16; i++, off += 16) {
		unsigned char c = d[off];
		if (c == META_BYTE(MK_WALLTIME))
			continue;
		if (c == META_BYTE(MK_PID)) {
			*pid = (int32_t)xr32(x, d + off + 1);
			continue;
		}
		if (c == META_BYTE(MK_NEW_CPU)) {
			*key = xr64(x, d + off + 3);
			*have_key = true;
		} else if (c == META_BYTE(MK_TSC_WRAP)) {
			*key = xr64(x, d + off + 1);
			*have_key = true;
		}
		break;
	}
	/* Versions 1 and 2 have no Pid record: the pid is unknown. */
	if (x->version < 3)
		*pid = 0;
	return true;
}

static void
add_buf(struct fdr *F, size_t off, size_t start, size_t end, bool cut)
{
	struct xray *x = F->x;
	int32_t tid, pid;
	uint64_t key = 0;
	bool have_key;

	if (!read_preamble(x, start, end, &tid, &pid, &key, &have_key)) {
		xray_error(x, start, "buffer does not start with NewBuffer "
		    "(byte 0x%02x); %zu bytes skipped", x->data[start],
		    end - start);
		return;
	}
	struct xray_thread *th = xray_thread(x, pid, tid);
	uint32_t ti = xray_thread_index(x, th);
	if (F->nbufs == F->capbufs) {
		F->capbufs = F->capbufs ? F->capbufs * 2 : 64;
		F->bufs = xreallocarray(F->bufs, F->capbufs, sizeof *F->bufs);
	}
	/* A buffer with no NewCPUId before its first record keeps its place
	 * in file order behind the thread's previous buffer. */
	if (!have_key && th->nbufs > 0)
		key = F->bufs[th->bufs[th->nbufs - 1]].key;
	struct fdr_buf *fb = &F->bufs[F->nbufs];
	fb->off = off;
	fb->start = start;
	fb->end = end;
	fb->key = key;
	fb->thread = ti;
	fb->done = false;
	fb->cut = cut;
	if (th->nbufs == th->capbufs) {
		th->capbufs = th->capbufs ? th->capbufs * 2 : 8;
		th->bufs = xreallocarray(th->bufs, th->capbufs,
		    sizeof *th->bufs);
	}
	th->bufs[th->nbufs++] = F->nbufs++;
}

/* After a damaged extents record: the next offset that looks like a
 * buffer (0x0F, then sane extents followed by NewBuffer or nothing). */
static size_t
resync(struct xray *x, size_t off)
{
	const unsigned char *d = x->data;

	for (; off + 16 <= x->size; off++) {
		if (d[off] != META_BYTE(MK_EXTENTS))
			continue;
		uint64_t n = xr64(x, d + off + 1);
		if (n == 0 && off + 16 == x->size)
			return off;
		if (n >= 16 && n <= x->size - off - 16 &&
		    d[off + 16] == META_BYTE(MK_NEW_BUFFER))
			return off;
	}
	return x->size;
}

/* Version 2+: each buffer is BufferExtents(n) and n bytes. */
static void
scan_extents(struct fdr *F)
{
	struct xray *x = F->x;
	const unsigned char *d = x->data;
	size_t off = 32;

	while (off < x->size && !xray_stopped(x)) {
		if (x->size - off < 16) {
			xray_error(x, off, "%zu bytes at the end of the file "
			    "are not a whole record", x->size - off);
			break;
		}
		if (d[off] != META_BYTE(MK_EXTENTS)) {
			size_t next = resync(x, off + 1);
			xray_error(x, off, "expected BufferExtents, found byte "
			    "0x%02x; %zu bytes skipped", d[off], next - off);
			off = next;
			continue;
		}
		x->counts[XC_EXTENTS]++;
		uint64_t n = xr64(x, d + off + 1);
		size_t start = off + 16;
		if (n == 0) {		/* an empty slot: legal */
			off = start;
			continue;
		}
		bool cut = false;
		size_t end;
		if (n > x->size - start) {
			xray_error(x, off, "buffer extents of %" PRIu64 " bytes "
			    "run %" PRIu64 " bytes past the end of the file "
			    "(truncated log)", n, n - (x->size - start));
			end = x->size;
			cut = true;
		} else {
			end = start + (size_t)n;
		}
		add_buf(F, off, start, end, cut);
		off = end;
		if (off - F->released >= RELEASE_STEP) {
			mapfile_release(x->ctx->file, off & ~(size_t)4095);
			F->released = off;
			cancelled(x);
		}
	}
}

/* Size of the record at off for a sequential walk (0 if it cannot be
 * framed). */
static size_t
record_size(struct xray *x, size_t off)
{
	const unsigned char *d = x->data;

	if ((d[off] & 1) == 0)
		return 8;
	unsigned k = d[off] >> 1;
	if (k == MK_CUSTOM || k == MK_TYPED) {
		if (x->size - off < 16)
			return 0;
		int32_t n = (int32_t)xr32(x, d + off + 1);
		if (n <= 0)
			return 0;
		return 16 + (size_t)n;
	}
	return 16;
}

/*
 * Version 1 without a usable buffer_size: like llvm-xray, walk the
 * records; each NewBuffer starts a buffer, EndOfBuffer ends it and what
 * follows up to the next NewBuffer byte is filler.
 */
static void
scan_sequential(struct fdr *F)
{
	struct xray *x = F->x;
	const unsigned char *d = x->data;
	size_t off = 32, start = SIZE_MAX, ask_at = CANCEL_STEP;

	while (off < x->size) {
		if (off >= ask_at) {
			if (cancelled(x))
				return;
			ask_at = off + CANCEL_STEP;
		}
		if (d[off] == META_BYTE(MK_NEW_BUFFER) || d[off] ==
		    META_BYTE(MK_END_OF_BUFFER)) {
			if (start != SIZE_MAX)
				add_buf(F, start, start, off, false);
			start = SIZE_MAX;
			if (d[off] == META_BYTE(MK_NEW_BUFFER)) {
				start = off;
				off += 16;
				continue;
			}
			/* skip the filler */
			off += 16;
			while (off < x->size && d[off] != META_BYTE(MK_NEW_BUFFER))
				off++;
			continue;
		}
		size_t n = record_size(x, off);
		if (n == 0 || n > x->size - off) {
			if (start != SIZE_MAX)
				add_buf(F, start, start, x->size, false);
			start = SIZE_MAX;
			break;
		}
		if (start == SIZE_MAX) {
			xray_error(x, off, "record outside any buffer (no "
			    "NewBuffer before it)");
			while (off < x->size && d[off] != META_BYTE(MK_NEW_BUFFER))
				off++;
			continue;
		}
		off += n;
	}
	if (start != SIZE_MAX)
		add_buf(F, start, start, x->size, false);
}

/* Version 1: fixed-size buffers of buffer_size bytes. */
static void
scan_fixed(struct fdr *F)
{
	struct xray *x = F->x;
	size_t bs = (size_t)x->buffer_size;
	size_t off = 32;

	while (off < x->size && !xray_stopped(x)) {
		size_t end = bs > x->size - off ? x->size : off + bs;
		bool cut = end - off < bs;
		if (cut && x->data[off] == META_BYTE(MK_NEW_BUFFER))
			xray_warn(x, off, "last buffer is %zu of %zu bytes "
			    "(truncated log?)", end - off, bs);
		if (x->data[off] != META_BYTE(MK_NEW_BUFFER)) {
			xray_error(x, off, "buffer does not start with "
			    "NewBuffer (byte 0x%02x); %zu bytes skipped",
			    x->data[off], end - off);
		} else {
			add_buf(F, off, off, end, cut);
		}
		off = end;
		if ((F->nbufs & 0xfff) == 0)
			cancelled(x);
	}
}

/* ---------------------------------------------------------------- replay */

static inline __attribute__((always_inline)) void
on_function(struct fdr *F, struct xray_thread *th, uint32_t w, ttv_ns t,
    size_t off)
{
	struct xray *x = F->x;
	unsigned kind = (w >> 1) & 7;
	func_id f = xray_func(x, (int64_t)(w >> 4));

	switch (kind) {
	case 0:
	case 3:
		th->counts[kind == 0 ? XC_ENTER : XC_ENTER_ARGS]++;
		builder_push(x->b, th->track, t, f);
		th->arg_open = true;
		th->nargs = 0;
		break;
	case 1:
	case 2:
		th->counts[kind == 1 ? XC_EXIT : XC_TAIL_EXIT]++;
		xray_exit(x, th, t, f, kind == 2 ? SLICE_TAIL_EXIT : 0);
		th->arg_open = false;
		break;
	default:
		th->counts[XC_UNKNOWN]++;
		xray_warn(x, off, "function record of unknown kind %u "
		    "(function id %" PRIu32 ") ignored", kind, w >> 4);
		return;
	}
	th->last = t;
	th->have_last = true;
}

static void
on_event(struct fdr *F, struct xray_thread *th, enum marker_kind kind,
    ttv_ns t, int64_t value, const unsigned char *payload, size_t n)
{
	struct xray *x = F->x;
	xray_lock(x);
	str_id text = builder_intern(x->b, (const char *)payload, n);
	builder_marker(x->b, kind, th->track, t, value, text);
	xray_unlock(x);
	th->last = t;
	th->have_last = true;
}

static inline uint16_t
rd16(bool be, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return be ? __builtin_bswap16(v) : v;
}

static inline uint32_t
rd32(bool be, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return be ? __builtin_bswap32(v) : v;
}

static inline uint64_t
rd64(bool be, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return be ? __builtin_bswap64(v) : v;
}

/* Data lost at the end of a buffer: a marker at the thread's last time. */
static void
lost(struct fdr *F, struct xray_thread *th, bool any, size_t bytes,
    const char *why)
{
	if (!any)
		return;
	xray_lock(F->x);
	builder_marker(F->x->b, MARKER_DROPPED, th->track,
	    builder_track_last(F->x->b, th->track), (int64_t)bytes,
	    builder_intern_cstr(F->x->b, why));
	xray_unlock(F->x);
}

/* Replays one buffer's records into its thread. Inlined twice, once per
 * byte order, so the hot loop has no byte-order test. */
static inline __attribute__((always_inline)) void
replay_order(struct fdr *F, struct fdr_buf *fb, const bool be)
{
	struct xray *x = F->x;
	struct xray_thread *th = &x->threads[fb->thread];
	const unsigned char *d = x->data;
	size_t off = fb->start, end = fb->end;
	/* a buffer can be big (version 1's buffer_size): the stop flag is
	 * asked inside it too */
	size_t ask_at = off + CANCEL_STEP;
	uint64_t tsc = 0;
	bool known = false, any = false, warned_base = false;
	ttv_ns first = 0, t;

	th->arg_open = false;
	/* the preamble was checked by pass 1 */
	th->counts[XC_NEW_BUFFER]++;
	off += 16;

	while (off < end) {
		unsigned char c = d[off];

		if (off >= ask_at) {
			if (cancelled(x))
				goto done;
			ask_at = off + CANCEL_STEP;
		}
		if ((c & 1) == 0) {
			if (end - off < 8)
				goto cut;
			uint32_t w = rd32(be, d + off);
			if (!known && !warned_base) {
				xray_warn(x, off, "function record before any "
				    "NewCPUId in its buffer: TSC base taken "
				    "as 0");
				warned_base = true;
			}
			tsc += rd32(be, d + off + 4);
			t = xray_thread_time(th, xray_ns(x, tsc));
			if (!any) {
				first = t;
				any = true;
			}
			on_function(F, th, w, t, off);
			off += 8;
			continue;
		}
		if (end - off < 16)
			goto cut;
		switch (c >> 1) {
		case MK_NEW_CPU: {
			th->counts[XC_NEW_CPU]++;
			int32_t cpu = rd16(be, d + off + 1);
			tsc = rd64(be, d + off + 3);
			known = true;
			t = xray_thread_time(th, xray_ns(x, tsc));
			if (th->cpu >= 0 && cpu != th->cpu) {
				xray_lock(x);
				builder_marker(x->b, MARKER_CPU_CHANGE,
				    th->track, t, cpu, 0);
				xray_unlock(x);
			}
			th->cpu = cpu;
			if (!any) {
				first = t;
				any = true;
				builder_track_touch(x->b, th->track, t);
			}
			off += 16;
			break;
		}
		case MK_TSC_WRAP:
			th->counts[XC_TSC_WRAP]++;
			tsc = rd64(be, d + off + 1);
			known = true;
			t = xray_thread_time(th, xray_ns(x, tsc));
			xray_lock(x);
			builder_marker(x->b, MARKER_TSC_WRAP, th->track, t, 0, 0);
			xray_unlock(x);
			if (!any) {
				first = t;
				any = true;
				builder_track_touch(x->b, th->track, t);
			}
			off += 16;
			break;
		case MK_CALL_ARG: {
			th->counts[XC_CALL_ARG]++;
			uint64_t v = rd64(be, d + off + 1);
			if (th->arg_open) {
				xray_arg(x, th, v, off);
			} else {
				xray_warn(x, off, "CallArgument (%" PRIu64 ") "
				    "without a function entry before it", v);
			}
			off += 16;
			break;
		}
		case MK_CUSTOM:
		case MK_TYPED: {
			bool typed = c >> 1 == MK_TYPED;
			int32_t n = (int32_t)rd32(be, d + off + 1);
			th->counts[typed ? XC_TYPED : XC_CUSTOM]++;
			if (n <= 0) {
				xray_error(x, off, "%s event of size %" PRId32
				    "; rest of the buffer (%zu bytes) skipped",
				    typed ? "typed" : "custom", n, end - off);
				goto done;
			}
			if ((size_t)n > end - off - 16) {
				/* Damage, even where a known runtime bug put it
				 * there: what follows in the buffer is lost. */
				xray_error(x, off, "%s event payload of %" PRId32
				    " bytes crosses the end of its buffer at "
				    "offset %zu", typed ? "typed" : "custom",
				    n, end);
				goto cut;
			}
			int64_t value = 0;
			if (typed || x->version >= 5) {
				tsc += rd32(be, d + off + 5);
				if (typed)
					value = rd16(be, d + off + 9);
				t = xray_ns(x, tsc);
			} else {
				/* v1-4: absolute, and the base stays */
				t = xray_ns(x, rd64(be, d + off + 5));
			}
			t = xray_thread_time(th, t);
			if (!any) {
				first = t;
				any = true;
			}
			on_event(F, th, typed ? MARKER_TYPED_EVENT :
			    MARKER_CUSTOM_EVENT, t, value, d + off + 16,
			    (size_t)n);
			off += 16 + (size_t)n;
			break;
		}
		case MK_WALLTIME:
			th->counts[XC_WALLTIME]++;
			off += 16;
			break;
		case MK_PID:
			th->counts[XC_PID]++;
			if (x->version < 3)
				xray_warn(x, off, "Pid record in a version %u "
				    "log", x->version);
			else if (known)
				xray_warn(x, off, "Pid record inside a buffer "
				    "ignored");
			off += 16;
			break;
		case MK_END_OF_BUFFER:
			th->counts[XC_END_OF_BUFFER]++;
			if (x->version >= 2)
				xray_error(x, off, "EndOfBuffer in a version "
				    "%u log; rest of the buffer (%zu bytes) "
				    "skipped", x->version, end - off - 16);
			goto done;
		case MK_NEW_BUFFER:
			th->counts[XC_NEW_BUFFER]++;
			xray_warn(x, off, "NewBuffer inside a buffer ignored");
			off += 16;
			break;
		case MK_EXTENTS:
			th->counts[XC_EXTENTS]++;
			xray_warn(x, off, "BufferExtents inside a buffer "
			    "ignored");
			off += 16;
			break;
		default:
			th->counts[XC_UNKNOWN]++;
			xray_error(x, off, "unknown metadata record kind %u; "
			    "rest of the buffer (%zu bytes) skipped", c >> 1,
			    end - off);
			goto done;
		}
	}
	if (fb->cut)
		lost(F, th, any, 0, "log truncated");
	goto done;
cut:
	/* A cut buffer was reported when it was found. */
	if (!fb->cut)
		xray_warn(x, off, "record crosses the end of its buffer at "
		    "offset %zu; %zu bytes skipped", end, end - off);
	lost(F, th, any, end - off, fb->cut ? "log truncated" :
	    "buffer tail cut");
done:
	if (any) {
		ttv_ns last = th->have_last && th->last > first ? th->last :
		    first;
		xray_lock(x);
		builder_marker(x->b, MARKER_BUFFER_START, th->track, first,
		    (int64_t)fb->off, 0);
		builder_marker(x->b, MARKER_BUFFER_END, th->track, last,
		    (int64_t)fb->off, 0);
		xray_unlock(x);
	} else {
		xray_warn(x, fb->start, "buffer of thread %" PRId64 " has no "
		    "timestamped record", th->tid);
	}
	fb->done = true;
}

static void
replay(struct fdr *F, struct fdr_buf *fb)
{
	if (F->x->be)
		replay_order(F, fb, true);
	else
		replay_order(F, fb, false);
}

/* Indices into a thread's buffers (arg), by key, then file offset. */
static int
cmp_buf(const void *a, const void *b, void *arg)
{
	const struct fdr_buf *sort_bufs = arg;
	const struct fdr_buf *x = &sort_bufs[*(const uint32_t *)a];
	const struct fdr_buf *y = &sort_bufs[*(const uint32_t *)b];
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* One replaying thread of control: the log's threads are split among
 * workers, each replays its own (the builder allows concurrent calls on
 * distinct tracks). */
struct worker {
	struct fdr *F;
	uint32_t id;
	size_t pos;		/* (atomic) its buffers before this are done */
	size_t release_at;
	size_t since_asked;	/* bytes replayed since load_cancelled */
};

/* Where every worker is: the lowest offset some worker still needs. */
static size_t
all_done(const struct fdr *F)
{
	size_t m = SIZE_MAX;
	for (uint32_t i = 0; i < F->nworkers; i++) {
		size_t p = __atomic_load_n(&F->workers[i].pos, __ATOMIC_ACQUIRE);
		if (p < m)
			m = p;
	}
	return m;
}

/*
 * Replays a worker's buffers as close to file order as each thread's time
 * order allows: when a buffer is reached in the file, its thread replays
 * every buffer that is both next in its time order and already reached
 * (the buffers are in file order, so "reached" is index <= cursor). The
 * pages before the lowest buffer any worker still needs can go.
 */
static void *
run_worker(void *arg)
{
	struct worker *w = arg;
	struct fdr *F = w->F;
	struct xray *x = F->x;
	uint32_t low = 0;	/* its first buffer (file order) not replayed */

	for (uint32_t cur = 0; cur < F->nbufs && !xray_stopped(x); cur++) {
		if (F->owner[F->bufs[cur].thread] != w->id)
			continue;
		struct xray_thread *th = &x->threads[F->bufs[cur].thread];
		while (th->next < th->nbufs && th->bufs[th->next] <= cur &&
		    !xray_stopped(x)) {
			struct fdr_buf *fb = &F->bufs[th->bufs[th->next]];
			replay(F, fb);
			th->next++;
			w->since_asked += fb->end - fb->start;
		}
		if (w->since_asked >= CANCEL_STEP) {
			w->since_asked = 0;
			cancelled(x);
		}
		while (low < F->nbufs && (F->owner[F->bufs[low].thread] !=
		    w->id || F->bufs[low].done))
			low++;
		__atomic_store_n(&w->pos, low < F->nbufs ? F->bufs[low].off :
		    x->size, __ATOMIC_RELEASE);
		size_t done = all_done(F);
		if (w->id == 0 && done >= F->progress_at) {
			/* the caller's thread: progress is reported there */
			load_progress(x->ctx, done, x->size);
			F->progress_at = done + PROGRESS_STEP;
		}
		if (done >= w->release_at && done != SIZE_MAX) {
			mapfile_release(x->ctx->file, done & ~(size_t)4095);
			w->release_at = done + RELEASE_STEP;
		}
	}
	builder_thread_done(x->b);
	__atomic_store_n(&w->pos, SIZE_MAX, __ATOMIC_RELEASE);
	return NULL;
}

/* How many workers: one per CPU and thread of the log, for big logs. */
static uint32_t
count_workers(const struct fdr *F)
{
	const struct xray *x = F->x;
	long cpus = ttv_cpus();
	uint32_t busy = 0;

	if (x->size < PARALLEL_MIN_BYTES || cpus < 2)
		return 1;
	for (uint32_t i = 0; i < x->nthreads; i++)
		busy += x->threads[i].nbufs > 0;
	uint32_t n = busy < (uint32_t)cpus ? busy : (uint32_t)cpus;
	return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : n;
}

/* Gives each thread of the log to a worker, largest first to the least
 * loaded, so the workers finish together. */
static void
split_threads(struct fdr *F)
{
	struct xray *x = F->x;
	uint64_t *bytes = xcalloc(x->nthreads ? x->nthreads : 1, sizeof *bytes);
	uint32_t *order = xcalloc(x->nthreads ? x->nthreads : 1, sizeof *order);
	uint64_t load[MAX_WORKERS] = { 0 };

	for (uint32_t i = 0; i < F->nbufs; i++)
		bytes[F->bufs[i].thread] += F->bufs[i].end - F->bufs[i].start;
	order_by_weight(order, bytes, x->nthreads);
	for (uint32_t i = 0; i < x->nthreads; i++) {
		uint32_t best = 0;
		for (uint32_t k = 1; k < F->nworkers; k++)
			if (load[k] < load[best])
				best = k;
		F->owner[order[i]] = best;
		load[best] += bytes[order[i]];
	}
	free(order);
	free(bytes);
}

static void
replay_all(struct fdr *F)
{
	struct xray *x = F->x;

	for (uint32_t i = 0; i < x->nthreads; i++) {
		struct xray_thread *th = &x->threads[i];
		xqsort_r(th->bufs, th->nbufs, sizeof *th->bufs, cmp_buf,
		    (void *)F->bufs);
	}
	F->nworkers = count_workers(F);
	F->owner = xcalloc(x->nthreads ? x->nthreads : 1, sizeof *F->owner);
	F->workers = xcalloc(F->nworkers, sizeof *F->workers);
	if (F->nworkers > 1)
		split_threads(F);
	for (uint32_t i = 0; i < F->nworkers; i++) {
		F->workers[i].F = F;
		F->workers[i].id = i;
		F->workers[i].release_at = RELEASE_STEP;
	}
	x->parallel = F->nworkers > 1;
	threads_run(run_worker, F->workers, sizeof *F->workers, F->nworkers);
	x->parallel = false;
	free(F->workers);
	free(F->owner);
	load_progress(x->ctx, x->size, x->size);
}

int
xray_load_fdr(struct xray *x)
{
	struct fdr F;

	memset(&F, 0, sizeof F);
	F.x = x;
	if (x->version == 1) {
		if (x->buffer_size >= 48 && x->buffer_size <= (1ULL << 40)) {
			scan_fixed(&F);
		} else {
			builder_warn(x->b, 16, "buffer_size %" PRIu64 " is not "
			    "usable: reading records sequentially",
			    x->buffer_size);
			scan_sequential(&F);
		}
	} else {
		scan_extents(&F);
	}
	if (F.nbufs > 0 && !xray_stopped(x)) {
		/* The earliest timestamp a buffer starts at sets the base,
		 * before any worker converts a time. */
		uint64_t first = UINT64_MAX;
		for (size_t i = 0; i < F.nbufs; i++)
			if (F.bufs[i].key != 0 && F.bufs[i].key < first)
				first = F.bufs[i].key;
		if (first != UINT64_MAX)
			xray_time_base(x, first);
		/* pass 1 touched a page per buffer: drop them */
		if (x->size > RELEASE_STEP)
			mapfile_release(x->ctx->file, x->size & ~(size_t)4095);
		replay_all(&F);
	}

	/* Exits with no entry at the start of a thread mean its beginning
	 * is missing: a wrapped buffer ring overwrote it. */
	for (uint32_t i = 0; i < x->nthreads; i++) {
		struct xray_thread *th = &x->threads[i];
		if (th->orphans == 0)
			continue;
		builder_marker(x->b, MARKER_DROPPED, th->track,
		    builder_track_first(x->b, th->track), (int64_t)th->orphans,
		    builder_intern_cstr(x->b, "exits without entry: the start "
		    "of this thread is missing (buffer ring wrapped?)"));
	}
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu32, F.nbufs);
	builder_meta(x->b, "buffers", buf);
	if (F.nbufs == 0)
		builder_warn(x->b, 32, "no buffers in the log");
	free(F.bufs);
	return 0;
}
