/*
 * What FXT events mean, as the reference importer (Perfetto) reads them
 * (../shared/formats/fxt.md, section 3):
 *  - durations: one stack per thread; an end closes the innermost open
 *    begin whatever its name, its args merge into that slice;
 *  - complete events nest by time with the thread's other slices: they
 *    stay on the stack until an event at or after their end arrives, and a
 *    slice that would outlive its complete parent is cut at the parent's end
 *    (SLICE_TRUNCATED);
 *  - instants are builder instants on the thread's track (ticks in the
 *    timeline);
 *  - flows bind to the enclosing slice (innermost open one) of their thread
 *    at their time, then are linked in global time order, keyed by
 *    (pid, id) with a fallback to a unique other process;
 *  - async slices live on TRACK_ASYNC tracks under the begin's process,
 *    keyed by correlation id; an end closes the innermost open slice of the
 *    same (name, category) on a track of that id;
 *  - counters: one TRACK_COUNTER per (process, name, arg name, counter id),
 *    named "name:argname:id";
 *  - context switches: one TRACK_CPU per CPU, slices named after the
 *    running thread; wakeups are instants on the CPU lane.
 * Events of a thread must reach the builder in time order; threads whose
 * events came out of order were marked by the scan pass and are replayed
 * here from their sorted copies.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"
#include "env.h"

#define OPEN_END INT64_MIN	/* a begin's frame: end not known yet */

/*
 * The slices of a thread go to the builder in one of two ways. With flow
 * events in the trace, or end events with args on the thread, through the
 * builder's open stack (builder_push, builder_pop): flows bind to the
 * builder's open slices, and the args of an end merge into the begin's in
 * the builder. Otherwise (th->own) the open slices live only in this
 * mirror, with their function and args, and go over whole with
 * builder_slice when they close: one builder call instead of two, and the
 * same arrays, as slices close in the same order either way.
 */
static void
frame_push(struct fxt_stack *sk, int64_t start, int64_t end, func_id f,
    args_id a)
{
	struct fxt_frame *fr;

	if (sk->depth == sk->stack_cap) {
		sk->stack_cap = sk->stack_cap ? sk->stack_cap * 2 : 8;
		sk->stack = xreallocarray(sk->stack, sk->stack_cap,
		    sizeof *sk->stack);
	}
	fr = &sk->stack[sk->depth++];
	fr->start = start;
	fr->end = end;
	fr->func = f;
	fr->args = a;
}

/* Closes the innermost open slice at t. */
static inline void
frame_pop(struct fxt *x, const struct fxt_thread *th, struct fxt_stack *sk,
    int64_t t, uint32_t flags)
{
	const struct fxt_frame *fr = &sk->stack[--sk->depth];

	if (th->own)
		builder_slice(x->b, th->track, sk->depth, fr->start,
		    t - fr->start, fr->func, flags, fr->args);
	else
		builder_pop(x->b, th->track, t, flags);
}

/* The end a frame can have at most: the end of its innermost complete
 * ancestor (INT64_MAX if none). */
static int64_t
frame_limit(const struct fxt_stack *sk, uint32_t below)
{
	uint32_t i;

	for (i = below; i > 0; i--)
		if (sk->stack[i - 1].end != OPEN_END)
			return sk->stack[i - 1].end;
	return INT64_MAX;
}

/* Pops the complete events that ended at or before t. */
static inline void
close_completes(struct fxt *x, const struct fxt_thread *th,
    struct fxt_stack *sk, int64_t t)
{
	while (sk->depth > 0 && sk->stack[sk->depth - 1].end != OPEN_END &&
	    sk->stack[sk->depth - 1].end <= t)
		frame_pop(x, th, sk, sk->stack[sk->depth - 1].end, 0);
}

/* Opens a slice (begin or complete event). */
static inline void
frame_open(struct fxt *x, const struct fxt_thread *th, struct fxt_stack *sk,
    int64_t t, int64_t end, func_id f, args_id a)
{
	if (!th->own) {
		builder_push(x->b, th->track, t, f);
		if (a != 0)
			builder_push_args(x->b, th->track, a);
	}
	frame_push(sk, t, end, f, a);
}

static inline __attribute__((always_inline)) void
thread_run(struct fxt *x, uint32_t thread, unsigned type, int64_t t,
    int64_t xv, func_id f, args_id a, uint64_t *kinds)
{
	struct fxt_thread *th = &x->threads.items[thread];
	struct fxt_stack *sk = &x->stacks.items[thread];
	uint32_t track = fxt_thread_track(x, thread);
	struct fxt_flowev fe;
	int64_t limit, end;
	uint32_t i;

	close_completes(x, th, sk, t);
	switch (type) {
	case FXT_EV_INSTANT:
		builder_instant(x->b, track, t, f, a);
		return;
	case FXT_EV_BEGIN:
		if (sk->depth >= FXT_MAX_DEPTH) {
			kinds[K_TOO_DEEP]++;
			return;
		}
		frame_open(x, th, sk, t, OPEN_END, f, a);
		return;
	case FXT_EV_END:
		for (i = sk->depth; i > 0; i--)
			if (sk->stack[i - 1].end == OPEN_END)
				break;
		if (i == 0) {
			kinds[K_END_WITHOUT_BEGIN]++;
			return;
		}
		/* Complete events still open above the begin outlive it. */
		while (sk->depth > i) {
			kinds[K_COMPLETE_TRUNCATED]++;
			frame_pop(x, th, sk, t, SLICE_TRUNCATED);
		}
		limit = frame_limit(sk, i - 1);
		if (a != 0) {
			/* th->own: the scan pass saw no end with args. */
			if (th->own)
				sk->stack[i - 1].args = a;
			else
				builder_push_args(x->b, track, a);
		}
		if (t > limit) {
			kinds[K_COMPLETE_TRUNCATED]++;
			frame_pop(x, th, sk, limit, SLICE_TRUNCATED);
		} else
			frame_pop(x, th, sk, t, 0);
		return;
	case FXT_EV_COMPLETE:
		if (sk->depth >= FXT_MAX_DEPTH) {
			kinds[K_TOO_DEEP]++;
			return;
		}
		end = xv;
		limit = frame_limit(sk, sk->depth);
		if (end > limit) {
			/* Partly overlaps its parent: cut at the parent's end.
			 * The flag goes on when it is popped. */
			kinds[K_COMPLETE_TRUNCATED]++;
			end = limit;
		}
		frame_open(x, th, sk, t, end, f, a);
		return;
	default:	/* flows (never with th->own) */
		memset(&fe, 0, sizeof fe);
		fe.t = t;
		fe.id = (uint64_t)xv;
		fe.pid = th->pid;
		fe.type = (uint8_t)type;
		if (sk->depth > 0 && builder_open_slice(x->b, track, &fe.ref)) {
			fe.bound = true;
			fe.slice_start = sk->stack[sk->depth - 1].start;
		}
		VEC_PUSH(&x->flows, fe);
		return;
	}
}

void
fxt_thread_run(struct fxt *x, uint32_t thread, unsigned type, int64_t t,
    int64_t xv, func_id f, args_id a, uint64_t *kinds)
{
	thread_run(x, thread, type, t, xv, f, a, kinds);
}

const struct fxt_pev *
fxt_replay(struct fxt *x, const struct fxt_pev *e, const struct fxt_pev *end,
    unsigned max, uint64_t *kinds)
{
	struct fxt_pext ext;
	unsigned type;
	double v;

	for (; e < end && max > 0; e++, max--) {
		int64_t t = e->t;
		uint32_t f = e->f;
		type = (e->tt >> FXT_PIPE_TYPE_SHIFT) & 15;
		ext.x = 0;
		ext.args = 0;
		ext.thread = e->tt & FXT_PIPE_THREAD_MASK;
		if (e->tt & FXT_PIPE_EXT) {
			memcpy(&ext, e + 1, sizeof ext);
			e++;
		}
		if (type == FXT_PIPE_RELEASE) {
			/* The reading thread is past these pages. */
			mapfile_release(x->ctx->file, (size_t)t);
		} else if (type == FXT_EV_COUNTER) {
			memcpy(&v, &ext.x, sizeof v);
			builder_counter(x->b, f, t, v);
		} else
			thread_run(x, ext.thread, type, t, ext.x, f, ext.args,
			    kinds);
	}
	return e;
}

/* Ends what a thread has open once all its events are in: complete events
 * at their ends; begins inside a complete event at its end, flagged
 * unterminated. Begins outside any complete event stay open until the
 * track's last time, flagged unterminated, as builder_finish() ends them
 * (it does so itself for those on its stack). */
static void
thread_finish(struct fxt *x, uint32_t thread)
{
	struct fxt_thread *th = &x->threads.items[thread];
	struct fxt_stack *sk = &x->stacks.items[thread];
	int64_t limit;

	while (sk->depth > 0) {
		struct fxt_frame *fr = &sk->stack[sk->depth - 1];
		if (fr->end != OPEN_END)
			frame_pop(x, th, sk, fr->end, 0);
		else {
			limit = frame_limit(sk, sk->depth - 1);
			if (limit == INT64_MAX)
				break;
			frame_pop(x, th, sk, limit, SLICE_UNTERMINATED);
		}
	}
	if (th->own && sk->depth > 0) {
		/* The track's last time, as builder_finish() would see it:
		 * nothing touches a thread track after this, and open begins
		 * touched it at their start when they were pushed. */
		int64_t last = builder_track_last(x->b, th->track);
		if (last < sk->stack[sk->depth - 1].start)
			last = sk->stack[sk->depth - 1].start;
		while (sk->depth > 0)
			frame_pop(x, th, sk, last, SLICE_UNTERMINATED);
	}
}

void
fxt_events_start(struct fxt *x)
{
	/* For tests: the builder's stacks everywhere, to compare. */
	const char *env = ttv_getenv(TTV_ENV_FXT_BUILDER_STACKS);
	bool flows = env != NULL && *env != '\0' && *env != '0';
	size_t i;

	for (i = K_EV_FLOW_BEGIN; i <= K_EV_FLOW_END; i++)
		flows |= x->kinds[i] != 0;
	/* A file being written: its open slices run to now, as the
	 * builder ends those on its stacks (builder_open_to_now). */
	if (x->ctx->opts != NULL && x->ctx->opts->follow)
		flows = true;
	for (i = 0; i < x->threads.len; i++)
		x->threads.items[i].own = !flows &&
		    !x->threads.items[i].end_args;
}

/* ------------------------------------------------------------ counters */

/* One series per (process, name, arg name, counter id): the cache (c) did
 * not have it. */
static uint32_t
series_track_slow(struct fxt *x, uint32_t process,
    const struct fxt_event *ev, const struct fxt_arg *a,
    struct fxt_scache *c)
{
	uint64_t k1 = (uint64_t)ev->name << 32 | a->name;
	uint32_t i = FXT_NONE, head = FXT_NONE;
	struct fxt_series s;
	const char *name, *arg;
	size_t nlen, alen;
	char buf[512];
	int n;

	fxt_lock(x);
	if (fxt_map_get(&x->counters, k1, ev->x, &head))
		for (i = head; i != FXT_NONE; i = x->series.items[i].next)
			if (x->series.items[i].process == process)
				break;
	if (i != FXT_NONE) {
		*c = (struct fxt_scache){ k1, ev->x, process,
		    x->series.items[i].track, true };
		fxt_unlock(x);
		return c->track;
	}
	s.process = process;
	s.track = builder_track_new(x->b, TRACK_COUNTER, process,
	    (int64_t)ev->x);
	s.next = head;
	name = fxt_sref_text(x, ev->name_ref, ev->name_stream, &nlen);
	arg = fxt_sref_text(x, a->name_ref, a->name_stream, &alen);
	n = snprintf(buf, sizeof buf, "%.*s:%.*s:%" PRIu64,
	    (int)(nlen > 200 ? 200 : nlen), name,
	    (int)(alen > 200 ? 200 : alen), arg, ev->x);
	builder_track_name(x->b, s.track, builder_intern(x->b, buf,
	    (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1));
	fxt_map_put(&x->counters, k1, ev->x, (uint32_t)x->series.len);
	VEC_PUSH(&x->series, s);
	fxt_unlock(x);
	return s.track;
}

/* The track of a counter series, through a direct-mapped cache, as
 * fxt_func() (counters sample few series, on every counter event). */
static inline uint32_t
series_track(struct fxt *x, uint32_t process, const struct fxt_event *ev,
    const struct fxt_arg *a)
{
	uint64_t k1 = (uint64_t)ev->name << 32 | a->name;
	struct fxt_scache *c = &x->scache[(uint32_t)((k1 ^ ev->x ^ process) *
	    0x9E3779B97F4A7C15ULL >> (64 - FXT_SCACHE_BITS))];

	if (c->used && c->k1 == k1 && c->id == ev->x && c->process == process)
		return c->track;
	return series_track_slow(x, process, ev, a, c);
}

void
fxt_counter_sample(struct fxt *x, const struct fxt_event *ev,
    const struct fxt_arg *a, double v)
{
	struct fxt_thread *th = &x->threads.items[ev->thread];
	uint32_t track;

	if (th->process == FXT_NONE)
		th->process = fxt_process(x, th->pid);
	track = series_track(x, th->process, ev, a);
	if (x->pipe != NULL && !x->split) {
		int64_t bits;
		memcpy(&bits, &v, sizeof bits);
		fxt_pipe_put(x, FXT_EV_COUNTER, 0, ev->t, bits, track, 0);
	} else
		builder_counter(x->b, track, ev->t, v);
}

static void
counter(struct fxt *x, const struct fxt_event *ev)
{
	struct fxt_thread *th = &x->threads.items[ev->thread];
	const unsigned char *p = ev->args;
	struct fxt_arg a;
	unsigned i;
	double v;

	if (th->process == FXT_NONE)
		th->process = fxt_process(x, th->pid);
	for (i = 0; i < ev->nargs; i++) {
		if (!fxt_arg_next(x, &p, ev->args_end, &a))
			return;
		switch (a.type) {
		case 1: case 3: v = (double)(int64_t)a.bits; break;
		case 2: case 4: v = (double)a.bits; break;
		case 5: memcpy(&v, &a.bits, sizeof v); break;
		default:
			x->kinds[a.type <= 10 ? K_COUNTER_NON_NUMERIC :
			    K_ARG_UNKNOWN]++;
			continue;
		}
		fxt_counter_sample(x, ev, &a, v);
	}
}

/* --------------------------------------------------------------- events */

void
fxt_event(struct fxt *x, const struct fxt_event *ev)
{
	struct fxt_thread *th;
	struct fxt_async as;
	struct fxt_dev dev;
	func_id f = 0;
	args_id a = 0;
	int64_t xv = (int64_t)ev->x;

	if (ev->type == FXT_EV_COUNTER) {
		counter(x, ev);
		return;
	}
	/* Flow events only link slices: their names and args go nowhere. */
	if (ev->type < FXT_EV_FLOW_BEGIN)
		f = fxt_func(x, ev->name, ev->cat);
	if (ev->nargs > 0 && ev->type < FXT_EV_FLOW_BEGIN) {
		fxt_lock(x);
		builder_args_begin(x->b);
		if (!fxt_args(x, ev->args, ev->args_end, ev->nargs, ev->off)) {
			builder_args_end(x->b);
			fxt_malformed(x, ev->off, "argument past the record");
			fxt_unlock(x);
			return;
		}
		a = builder_args_end(x->b);
		fxt_unlock(x);
	}
	th = &x->threads.items[ev->thread];
	if (ev->type >= FXT_EV_ASYNC_BEGIN && ev->type <= FXT_EV_ASYNC_END) {
		if (th->process == FXT_NONE)
			th->process = fxt_process(x, th->pid);
		as.t = ev->t;
		as.id = ev->x;
		as.func = f;
		as.args = a;
		as.name = ev->name;
		as.process = th->process;
		as.type = (uint8_t)ev->type;
		VEC_PUSH(&x->async, as);
		return;
	}
	if (ev->type == FXT_EV_COMPLETE) {
		if (!fxt_ticks_to_ns(x->cur, ev->x, &xv) || xv < ev->t) {
			x->kinds[K_BAD_TIMESTAMP]++;
			return;
		}
		if (xv > x->max_t)
			x->max_t = xv;
	}
	if (ev->t > x->max_t)
		x->max_t = ev->t;
	/* Tracks are made in the order threads first appear, sorted or not. */
	fxt_thread_track(x, ev->thread);
	if (!th->defer) {
		if (x->pipe != NULL && !th->direct)
			fxt_pipe_put(x, ev->type, ev->thread, ev->t, xv, f, a);
		else if (a != 0 && ev->type == FXT_EV_END) {
			/* Its args may merge with the begin's into a new run,
			 * which is not a per-track call. */
			fxt_lock(x);
			fxt_thread_run(x, ev->thread, ev->type, ev->t, xv, f,
			    a, x->kinds);
			fxt_unlock(x);
		} else
			fxt_thread_run(x, ev->thread, ev->type, ev->t, xv, f,
			    a, x->kinds);
		return;
	}
	dev.t = ev->t;
	dev.x = xv;
	dev.func = f;
	dev.args = a;
	dev.type = (uint8_t)ev->type;
	VEC_PUSH(&th->dev, dev);
}

/* ---------------------------------------------------------------- flows */

struct flow_state {
	struct slice_ref ref;
	int64_t start;
	int64_t pid;
	bool live;
};

static void
flows_link(struct fxt *x)
{
	VEC(struct flow_state) st = { 0 };
	struct fxt_map live = { 0 }, by_id = { 0 };
	struct slice_ref from, to;
	uint32_t v;
	size_t i;

	fxt_sort_by_time(x->flows.items, x->flows.len, sizeof *x->flows.items);
	for (i = 0; i < x->flows.len; i++) {
		const struct fxt_flowev *fe = &x->flows.items[i];
		struct flow_state *s;

		if (!fe->bound) {
			x->kinds[K_FLOW_NO_SLICE]++;
			continue;
		}
		if (fe->type == FXT_EV_FLOW_BEGIN) {
			if (fxt_map_get(&live, (uint64_t)fe->pid, fe->id, &v) &&
			    v != FXT_NONE) {
				x->kinds[K_FLOW_DUPLICATE]++;
				continue;
			}
			v = (uint32_t)st.len;
			VEC_PUSH(&st, ((struct flow_state){ fe->ref,
			    fe->slice_start, fe->pid, true }));
			fxt_map_put(&live, (uint64_t)fe->pid, fe->id, v);
			/* An id begun in two processes cannot be resolved
			 * across processes any more. */
			{
				uint32_t w;
				if (fxt_map_get(&by_id, fe->id, 0, &w) &&
				    (w == FXT_NONE || st.items[w].pid != fe->pid))
					fxt_map_put(&by_id, fe->id, 0, FXT_NONE);
				else
					fxt_map_put(&by_id, fe->id, 0, v);
			}
			continue;
		}
		if (!fxt_map_get(&live, (uint64_t)fe->pid, fe->id, &v) ||
		    v == FXT_NONE) {
			if (!fxt_map_get(&by_id, fe->id, 0, &v) ||
			    v == FXT_NONE || !st.items[v].live) {
				x->kinds[K_FLOW_UNMATCHED]++;
				continue;
			}
		}
		s = &st.items[v];
		/* The arrow goes from the earlier slice to the later one. */
		if (s->start <= fe->slice_start) {
			from = s->ref;
			to = fe->ref;
		} else {
			from = fe->ref;
			to = s->ref;
		}
		builder_flow(x->b, fe->id, from, to);
		if (fe->type == FXT_EV_FLOW_STEP) {
			s->ref = fe->ref;
			s->start = fe->slice_start;
		} else {
			s->live = false;
			fxt_map_put(&live, (uint64_t)s->pid, fe->id, FXT_NONE);
		}
	}
	VEC_FREE(&st);
	fxt_map_free(&live);
	fxt_map_free(&by_id);
}

/* ---------------------------------------------------------------- async */

/* The track of async id `id` under `process` (FXT async ids are global:
 * an end may come from any process). Made on first use, named after the
 * first event seen with that id. */
static uint32_t
async_track(struct fxt *x, uint64_t id, uint32_t process, str_id name)
{
	uint32_t n = 0, k, idx;
	struct fxt_atrack at;

	fxt_map_get(&x->async_tracks, id, UINT64_MAX, &n);
	for (k = 0; k < n; k++) {
		fxt_map_get(&x->async_tracks, id, k, &idx);
		if (x->async_tr.items[idx].process == process)
			return x->async_tr.items[idx].track;
	}
	at.process = process;
	at.track = builder_track_new(x->b, TRACK_ASYNC, process, (int64_t)id);
	builder_track_name(x->b, at.track, name);
	fxt_map_put(&x->async_tracks, id, n, (uint32_t)x->async_tr.len);
	fxt_map_put(&x->async_tracks, id, UINT64_MAX, n + 1);
	VEC_PUSH(&x->async_tr, at);
	return at.track;
}

/* The track of id holding an open slice of f (its depth + 1 in *depth),
 * or FXT_NONE. */
static uint32_t
async_open_track(struct fxt *x, uint64_t id, func_id f, uint32_t *depth)
{
	uint32_t n = 0, k, idx, track, d;

	fxt_map_get(&x->async_tracks, id, UINT64_MAX, &n);
	for (k = 0; k < n; k++) {
		fxt_map_get(&x->async_tracks, id, k, &idx);
		track = x->async_tr.items[idx].track;
		for (d = builder_stack_depth(x->b, track); d > 0; d--)
			if (builder_stack_func(x->b, track, d - 1) == f) {
				*depth = d;
				return track;
			}
	}
	return FXT_NONE;
}

/* Closes the innermost open async slice of (id, f) on any track of id. */
static bool
async_end(struct fxt *x, const struct fxt_async *as)
{
	uint32_t track, d;

	track = async_open_track(x, as->id, as->func, &d);
	if (track == FXT_NONE)
		return false;
	/* End args merge into the slice only when it is the innermost. */
	if (as->args != 0 && d == builder_stack_depth(x->b, track))
		builder_push_args(x->b, track, as->args);
	builder_pop_func(x->b, track, as->t, as->func, SLICE_ASYNC);
	return true;
}

static void
async_run(struct fxt *x)
{
	size_t i;
	uint32_t track, d;

	fxt_sort_by_time(x->async.items, x->async.len, sizeof *x->async.items);
	for (i = 0; i < x->async.len; i++) {
		const struct fxt_async *as = &x->async.items[i];
		switch (as->type) {
		case FXT_EV_ASYNC_BEGIN:
			track = async_track(x, as->id, as->process, as->name);
			builder_push(x->b, track, as->t, as->func);
			if (as->args != 0)
				builder_push_args(x->b, track, as->args);
			break;
		case FXT_EV_ASYNC_INSTANT:
			/* On the track of the operation it belongs to, which
			 * may have begun in another process. */
			track = async_open_track(x, as->id, as->func, &d);
			if (track == FXT_NONE)
				track = async_track(x, as->id, as->process,
				    as->name);
			builder_instant(x->b, track, as->t, as->func, as->args);
			break;
		default:
			if (!async_end(x, as))
				x->kinds[K_ASYNC_UNMATCHED]++;
			break;
		}
	}
	/* Still open at the end: unfinished, shown up to the trace's end. */
	for (i = 0; i < x->async_tr.len; i++) {
		track = x->async_tr.items[i].track;
		while (builder_stack_depth(x->b, track) > 0) {
			int64_t t = x->max_t;
			if (t < builder_track_last(x->b, track))
				t = builder_track_last(x->b, track);
			builder_pop(x->b, track, t, SLICE_ASYNC |
			    SLICE_UNTERMINATED);
		}
	}
}

/* --------------------------------------------------------------- finish */

void
fxt_events_finish(struct fxt *x, bool keep)
{
	size_t i, j;

	for (i = 0; i < x->threads.len; i++) {
		struct fxt_thread *th = &x->threads.items[i];
		if (th->defer) {
			fxt_sort_by_time(th->dev.items, th->dev.len,
			    sizeof *th->dev.items);
			for (j = 0; j < th->dev.len; j++) {
				const struct fxt_dev *d = &th->dev.items[j];
				fxt_thread_run(x, (uint32_t)i, d->type, d->t,
				    d->x, d->func, d->args, x->kinds);
			}
			if (!keep)
				VEC_FREE(&th->dev);
		}
		if (th->track != FXT_NONE)
			thread_finish(x, (uint32_t)i);
	}
	flows_link(x);
	async_run(x);
}

/* ----------------------------------------------------------- scheduling */

/* State letters of the outgoing thread, by FXT thread state. */
static const char thread_state_letter[] = "RRTSZX";

/* The function a CPU lane slice is named by: the thread's name and tid. */
static func_id
thread_func(struct fxt *x, int64_t tid, const char *prefix)
{
	char buf[300];
	uint32_t name;
	int n;

	if (fxt_map_get(&x->koid_names, (uint64_t)tid, 0, &name))
		n = snprintf(buf, sizeof buf, "%s%.200s %" PRId64, prefix,
		    x->knames.items[name].text, tid);
	else
		n = snprintf(buf, sizeof buf, "%stid %" PRId64, prefix, tid);
	return fxt_func(x, builder_intern(x->b, buf,
	    (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1), x->s_sched);
}

static uint32_t
cpu_track(struct fxt *x, uint32_t cpu)
{
	uint32_t track;

	if (fxt_map_get(&x->cpu_tracks, cpu, 0, &track))
		return track;
	/* CPU lanes belong to no real process: they sit under a process
	 * with pid -1 named "CPUs" (koid 0 is never a real one either,
	 * but legacy records use pid 0 for idle threads). */
	if (x->kernel_process == FXT_NONE) {
		x->kernel_process = fxt_process(x, -1);
		builder_process_name(x->b, x->kernel_process,
		    builder_intern_cstr(x->b, "CPUs"));
	}
	track = builder_track(x->b, TRACK_CPU, x->kernel_process, cpu);
	fxt_map_put(&x->cpu_tracks, cpu, 0, track);
	return track;
}

void
fxt_sched_finish(struct fxt *x)
{
	struct fxt_map running = { 0 };	/* cpu -> 1 while a slice is open */
	str_id s_state, s_tid, s_prio, s_weight;
	uint32_t track, open;
	size_t i;
	char st[2];

	if (x->sched.len == 0)
		return;
	x->s_sched = builder_intern_cstr(x->b, "sched");
	s_state = builder_intern_cstr(x->b, "end_state");
	s_tid = builder_intern_cstr(x->b, "tid");
	s_prio = builder_intern_cstr(x->b, "priority");
	s_weight = builder_intern_cstr(x->b, "weight");
	fxt_sort_by_time(x->sched.items, x->sched.len, sizeof *x->sched.items);
	for (i = 0; i < x->sched.len; i++) {
		const struct fxt_sched *s = &x->sched.items[i];
		track = cpu_track(x, s->cpu);
		if (s->kind == 2) {
			builder_instant(x->b, track, s->t,
			    thread_func(x, s->in_tid, "wakeup "), s->args);
			continue;
		}
		if (fxt_map_get(&running, s->cpu, 0, &open) && open) {
			st[0] = s->out_state < 6 ?
			    thread_state_letter[s->out_state] : '?';
			st[1] = 0;
			builder_args_begin(x->b);
			builder_arg_str(x->b, s_state,
			    builder_intern_cstr(x->b, st));
			builder_push_args(x->b, track, builder_args_end(x->b));
			builder_pop(x->b, track, s->t, 0);
			fxt_map_put(&running, s->cpu, 0, 0);
		}
		if (!s->in_idle) {
			builder_push(x->b, track, s->t,
			    thread_func(x, s->in_tid, ""));
			builder_args_begin(x->b);
			builder_arg_i64(x->b, s_tid, s->in_tid);
			builder_arg_i64(x->b, s->kind == 0 ? s_prio : s_weight,
			    s->in_prio);
			builder_push_args(x->b, track, builder_args_end(x->b));
			fxt_map_put(&running, s->cpu, 0, 1);
		}
	}
	/* Threads still on a CPU run until the trace ends. */
	for (i = 0; i < running.cap; i++) {
		if (!running.slots[i].used || !running.slots[i].v)
			continue;
		track = cpu_track(x, (uint32_t)running.slots[i].a);
		builder_pop(x->b, track, x->max_t, SLICE_UNTERMINATED);
	}
	fxt_map_free(&running);
}

void
fxt_state_free(struct fxt *x)
{
	size_t i;

	for (i = 0; i < x->threads.len; i++) {
		free(x->stacks.items[i].stack);
		VEC_FREE(&x->threads.items[i].dev);
	}
	VEC_FREE(&x->threads);
	VEC_FREE(&x->stacks);
	for (i = 0; i < x->knames.len; i++)
		free(x->knames.items[i].text);
	VEC_FREE(&x->knames);
	fxt_map_free(&x->thread_map);
	fxt_map_free(&x->koid_names);
	fxt_map_free(&x->koid_type);
	fxt_map_free(&x->counters);
	fxt_map_free(&x->async_tracks);
	fxt_map_free(&x->cpu_tracks);
	VEC_FREE(&x->series);
	VEC_FREE(&x->async_tr);
	VEC_FREE(&x->async);
	VEC_FREE(&x->flows);
	VEC_FREE(&x->sched);
}
