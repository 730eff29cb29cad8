/*
 * CoreProfiler TraceLog: threads and what happens on them.
 *
 * `sam str` records are deltas against the thread's previous record: the
 * bottom MPS frames are kept, the frame just below the cut may get a new
 * call point, and the listed frames are pushed. Each thread keeps its
 * shadow stack here, from an empty one; a frame becomes a slice when it is
 * popped, from the record that pushed it to the record that dropped it, so
 * a run of samples with the same frames is one slice and instrumentation
 * logs (count 0, one record per enter/leave) give exact calls. In sampling
 * mode every frame carries the sample counts taken while it was on the
 * stack (the thread's running sum when popped minus the sum when pushed).
 *
 * Lines of different threads are not in global time order (the profiler
 * drains per-thread buffers), but each thread's are; everything here is
 * per thread, and slices are given whole, so their order across threads
 * does not matter. Pauses cut every open frame of a thread when its next
 * record shows that the pause fell inside.
 *
 * JIT and GC intervals are slices on a second track per thread (found by
 * OS thread id), so they never collide with the sampled frames.
 */
#include "config.h"
#include "coreprofiler_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ lookups */

/* Length of the field at s (to the next space), for messages, at most 40. */
static int
tok_len(const char *s, const char *e)
{
	const char *p = s;
	while (p < e && *p != ' ' && p - s < 40)
		p++;
	return (int)(p - s);
}

static uint32_t
thread_new(struct cp *cp, uint64_t iid, int64_t ostid)
{
	struct cp_thread T;
	memset(&T, 0, sizeof T);
	T.iid = iid;
	T.ostid = ostid;
	T.track = T.rt_track = T.cpu_track = T.alloc_track = CP_NONE;
	VEC_PUSH(&cp->threads, T);
	return (uint32_t)(cp->threads.len - 1);
}

uint32_t
cp_thread_get(struct cp *cp, uint64_t iid)
{
	uint32_t th = idmap_get(&cp->thread_by_iid, iid);
	if (th == IDMAP_NONE) {
		th = thread_new(cp, iid, -1);
		idmap_put(&cp->thread_by_iid, iid, th);
	}
	return th;
}

/* The managed thread now on this OS thread, or an entry for the OS thread
 * alone (the GC may run on a thread the profiler never reported). */
uint32_t
cp_thread_by_os(struct cp *cp, int64_t ostid)
{
	uint32_t th = idmap_get(&cp->thread_by_os, (uint64_t)ostid);
	if (th != IDMAP_NONE)
		return th;
	th = idmap_get(&cp->native_by_os, (uint64_t)ostid);
	if (th == IDMAP_NONE) {
		th = thread_new(cp, UINT64_MAX, ostid);
		idmap_put(&cp->native_by_os, (uint64_t)ostid, th);
	}
	return th;
}

/* A thread's name into buf (not cp->buf, so it can feed cp_fmt). */
static const char *
thread_label(const struct cp_thread *T, char *buf, size_t size)
{
	if (T->iid == UINT64_MAX && T->ostid < 0)
		snprintf(buf, size, "GC");
	else if (T->iid == UINT64_MAX)
		snprintf(buf, size, "os thread %lld", (long long)T->ostid);
	else
		snprintf(buf, size, "thread 0x%08llx", (unsigned long long)T->iid);
	return buf;
}
#define LABEL(T) thread_label((T), (char[48]){ 0 }, 48)

/* The stack track of a managed thread: its OS tid when known, else its
 * internal id (a thread that samples without `thr aos`). */
uint32_t
cp_thread_track(struct cp *cp, uint32_t th)
{
	struct cp_thread *T = &cp->threads.items[th];
	if (T->track == CP_NONE) {
		int64_t tid = T->ostid >= 0 ? T->ostid : (int64_t)T->iid;
		uint32_t tr = builder_track_new(cp->b, TRACK_THREAD,
		    cp_process(cp), tid);
		T = &cp->threads.items[th];
		T->track = tr;
		builder_track_name(cp->b, tr,
		    builder_intern_cstr(cp->b, LABEL(T)));
	}
	return T->track;
}

static uint32_t
rt_track(struct cp *cp, uint32_t th)
{
	struct cp_thread *T = &cp->threads.items[th];
	if (T->rt_track == CP_NONE) {
		/* The thread's stack track first, so the two stay in that
		 * order on screen. */
		if (T->iid != UINT64_MAX) {
			cp_thread_track(cp, th);
			T = &cp->threads.items[th];
		}
		int64_t tid = T->ostid >= 0 ? T->ostid : (int64_t)T->iid;
		if (T->iid == UINT64_MAX && T->ostid < 0)
			tid = -1;
		uint32_t tr = builder_track_new(cp->b, TRACK_THREAD,
		    cp_process(cp), tid);
		T = &cp->threads.items[th];
		T->rt_track = tr;
		const char *l = LABEL(T);
		builder_track_name(cp->b, tr, builder_intern_cstr(cp->b,
		    cp_fmt(cp, "%s JIT/GC", l)));
	}
	return T->rt_track;
}

uint32_t
cp_func_get(struct cp *cp, uint64_t iid)
{
	uint32_t fi = idmap_get(&cp->func_by_iid, iid);
	if (fi == IDMAP_NONE) {
		struct cp_func f = { .fid = CP_NONE, .iid = iid };
		VEC_PUSH(&cp->funcs, f);
		fi = (uint32_t)(cp->funcs.len - 1);
		idmap_put(&cp->func_by_iid, iid, fi);
	}
	return fi;
}

/* The builder function of an internal id: its `fun nam` name, or the id
 * as 0x%x until (or unless) one arrives. */
func_id
cp_func_fid(struct cp *cp, uint32_t fi)
{
	struct cp_func *f = &cp->funcs.items[fi];
	if (f->fid == CP_NONE) {
		str_id name = f->name;
		if (name == 0)
			name = builder_intern_cstr(cp->b, cp_fmt(cp, "0x%llx",
			    (unsigned long long)f->iid));
		f->fid = builder_func(cp->b, name, f->category, (int64_t)f->iid);
	}
	return f->fid;
}

uint32_t
cp_class_get(struct cp *cp, uint64_t iid)
{
	uint32_t ci = idmap_get(&cp->class_by_iid, iid);
	if (ci == IDMAP_NONE) {
		struct cp_class k = { .iid = iid };
		VEC_PUSH(&cp->classes, k);
		ci = (uint32_t)(cp->classes.len - 1);
		idmap_put(&cp->class_by_iid, iid, ci);
	}
	return ci;
}

/* Arg names "CLASS objects" / "CLASS bytes", made once per class. */
static void
class_keys(struct cp *cp, struct cp_class *k)
{
	if (k->objs_key != 0)
		return;
	char idbuf[32];
	const char *n = k->text;
	if (n == NULL) {
		snprintf(idbuf, sizeof idbuf, "class 0x%llx",
		    (unsigned long long)k->iid);
		n = idbuf;
	}
	k->objs_key = builder_intern_cstr(cp->b, cp_fmt(cp, "%s objects", n));
	k->bytes_key = builder_intern_cstr(cp->b, cp_fmt(cp, "%s bytes", n));
}

/* ------------------------------------------------------------ frames */

static void
emit(struct cp *cp, uint32_t track, uint32_t depth, ttv_ns start, ttv_ns end,
    func_id f, uint32_t flags, uint64_t weight)
{
	if (cp->sampled)
		builder_slice_weighted(cp->b, track, depth, start, end - start, f,
		    flags | SLICE_SAMPLED,
		    weight > UINT32_MAX ? UINT32_MAX : (uint32_t)weight);
	else
		builder_slice(cp->b, track, depth, start, end - start, f, flags, 0);
}

/* Pops the frames above `keep` at time t. */
static void
close_frames(struct cp *cp, struct cp_thread *T, size_t keep, ttv_ns t,
    uint32_t flags)
{
	while (T->stk.len > keep) {
		struct cp_frame *fr = &T->stk.items[T->stk.len - 1];
		emit(cp, T->track, (uint32_t)(T->stk.len - 1), fr->start, t,
		    cp_func_fid(cp, fr->func), flags, T->cum - fr->cum0);
		T->stk.len--;
	}
}

/* Cuts the open frames at every pause that began since the thread's last
 * record and before t; they go on when the pause ends. */
static void
apply_pauses(struct cp *cp, struct cp_thread *T, ttv_ns t)
{
	while (T->next_pause < cp->pauses.len) {
		const struct cp_pause *P = &cp->pauses.items[T->next_pause];
		if (P->t0 >= t)
			break;
		if (T->seen_t && P->t0 > T->last_t && T->stk.len > 0) {
			ttv_ns again = P->t1 < t ? P->t1 : t;
			for (size_t d = T->stk.len; d-- > 0;) {
				struct cp_frame *fr = &T->stk.items[d];
				emit(cp, T->track, (uint32_t)d, fr->start, P->t0,
				    cp_func_fid(cp, fr->func), 0,
				    T->cum - fr->cum0);
				fr->start = again;
				fr->cum0 = T->cum;
			}
		}
		T->next_pause++;
	}
}

/* A record's time on its thread. Per thread the log is sorted, so a step
 * back is damage. The log counts whole milliseconds and many records can
 * share one; each later record of a thread is placed 1 ns after the one
 * before, so every frame lasts at least 1 ns and nesting stays exact. */
static ttv_ns
thread_time(struct cp *cp, struct cp_thread *T, ttv_ns t, const char *rec)
{
	if (!T->seen_t)
		return t;
	if (t < T->last_t - T->last_t % 1000000)
		cp_warn(cp, "%s: time goes back on %s (%lld ms after %lld ms)",
		    rec, LABEL(T), (long long)(t / 1000000),
		    (long long)(T->last_t / 1000000));
	return t > T->last_t ? t : T->last_t + 1;
}

/* sam str THREAD TICKS COUNT MPS:STACKSIZE[:IP|:?] [FUNC[:IP]]... */
void
cp_sam_str(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid, count, mps, ss, ip = 0;
	int64_t ms;
	bool has_ip = false;

	if (!cp_hex_field(c, &iid) || !cp_ticks_field(c, &ms) ||
	    !cp_dec_field(c, &count) || !cp_sp(c)) {
		cp_bad_fields(cp, "sam str", &c0,
		    "THREAD_IID/x TICKS/t COUNT/d MPS:STACKSIZE/s");
		return;
	}
	const char *mstart = c->p;
	if (!cp_dec_at(c, ':', &mps) || c->p >= c->e || *c->p != ':' ||
	    (c->p++, !cp_dec_at(c, ':', &ss)) || ss > UINT32_MAX) {
		cp_bad(cp, "sam str: bad MPS:STACKSIZE \"%.*s\"",
		    tok_len(mstart, c->e), mstart);
		return;
	}
	if (c->p < c->e && *c->p == ':') {
		c->p++;
		has_ip = true;
		if (c->p < c->e && *c->p == '?' &&
		    (c->p + 1 == c->e || c->p[1] == ' ')) {
			c->p++;
		} else if (!cp_ip_at(c, 0, &ip)) {
			cp_bad(cp, "sam str: bad call point in \"%.*s\"",
			    tok_len(mstart, c->e), mstart);
			return;
		}
	}
	if (mps > ss) {
		cp_bad(cp, "sam str: match prefix %llu larger than the stack "
		    "size %llu", (unsigned long long)mps, (unsigned long long)ss);
		return;
	}
	size_t nfr = 0;
	while (!cp_end(c)) {
		uint64_t fiid, fip = 0;
		bool fhas = false;
		const char *fs = c->p + 1;
		if (!cp_sp(c) || !cp_hex_at(c, ':', &fiid) ||
		    (c->p < c->e && *c->p == ':' &&
		    (c->p++, fhas = true, !cp_ip_at(c, 0, &fip)))) {
			cp_bad(cp, "sam str: bad frame \"%.*s\"",
			    tok_len(fs, c->e), fs);
			return;
		}
		if (nfr == cp->frcap) {
			cp->frcap = cp->frcap ? cp->frcap * 2 : 64;
			cp->fr = xreallocarray(cp->fr, cp->frcap, sizeof *cp->fr);
		}
		cp->fr[nfr].iid = fiid;
		cp->fr[nfr].ip = fip;
		cp->fr[nfr].has_ip = fhas;
		nfr++;
	}

	/* The line is good: apply it. */
	uint32_t th = cp_thread_get(cp, iid);
	cp_thread_track(cp, th);
	struct cp_thread *T = &cp->threads.items[th];
	ttv_ns t = thread_time(cp, T, ms * 1000000, "sam str");
	apply_pauses(cp, T, t);
	size_t depth = T->stk.len;
	if (mps > depth) {
		cp_warn(cp, "sam str: %s keeps %llu frames but only %zu are "
		    "known (records lost?); stack restarted", LABEL(T),
		    (unsigned long long)mps, depth);
		close_frames(cp, T, 0, t, SLICE_TRUNCATED);
		mps = 0;
		has_ip = false;
	} else if (ss != depth) {
		cp_warn(cp, "sam str: %s had %zu frames, the record says %llu "
		    "(records lost?)", LABEL(T), depth,
		    (unsigned long long)ss);
	}
	if (mps + nfr > cp->max_depth) {
		/* a declared depth past the budget is damage: what fits is
		 * kept, the deeper frames are not */
		cp_bad(cp, "sam str: a stack of %llu frames, deeper than the "
		    "%llu the memory budget allows for a file of this size; "
		    "the frames past it are dropped",
		    (unsigned long long)(mps + nfr),
		    (unsigned long long)cp->max_depth);
		nfr = mps < cp->max_depth ? (size_t)(cp->max_depth - mps) : 0;
	}
	close_frames(cp, T, (size_t)mps, t, 0);
	if (has_ip) {
		if (mps >= 1)
			T->stk.items[mps - 1].ip = ip;
		else
			cp_warn(cp, "sam str: call point given with an empty "
			    "match prefix; ignored");
	}
	VEC_RESERVE(&T->stk, nfr);
	for (size_t i = 0; i < nfr; i++) {
		struct cp_frame fr = {
			.func = cp_func_get(cp, cp->fr[i].iid),
			.ip = cp->fr[i].ip,
			.start = t,
			.cum0 = T->cum,
		};
		T = &cp->threads.items[th];
		T->stk.items[T->stk.len++] = fr;
	}
	if (count > 0) {
		if (cp->method != CP_METHOD_INSTR)
			cp->sampled = true;
		T->samples++;
		T->weight += count;
		if (T->stk.len == 0)
			T->empty_weight += count;
		else
			T->cum += count;
	}
	T->records++;
	if (T->stk.len > T->max_depth)
		T->max_depth = (uint32_t)T->stk.len;
	T->last_t = t;
	T->seen_t = true;
}

/* ------------------------------------------------------------ memory */

/* Items CLASS:N:BYTES[:IP] (with_ip) or CLASS:N:BYTES, checked in full
 * before use and summed per class into cp->al; returns the count of
 * classes, or -1 on a damaged item. */
static long
alloc_items(struct cp *cp, struct cp_cur *c, bool with_ip, const char *rec)
{
	size_t nal = 0;
	while (!cp_end(c)) {
		uint64_t ciid, objs, bytes, ip;
		const char *is = c->p + 1;
		if (!cp_sp(c) || !cp_hex_at(c, ':', &ciid) ||
		    c->p >= c->e || *c->p++ != ':' ||
		    !cp_dec_at(c, ':', &objs) ||
		    c->p >= c->e || *c->p++ != ':' ||
		    !cp_dec_at(c, ':', &bytes) ||
		    (c->p < c->e && *c->p == ':' &&
		    (!with_ip || (c->p++, !cp_ip_at(c, 0, &ip))))) {
			cp_bad(cp, "%s: bad allocation item \"%.*s\"", rec,
			    tok_len(is, c->e), is);
			return -1;
		}
		uint32_t ci = cp_class_get(cp, ciid);
		size_t i;
		for (i = 0; i < nal && cp->al[i].cls != ci; i++)
			;
		if (i == nal) {
			if (nal == cp->alcap) {
				cp->alcap = cp->alcap ? cp->alcap * 2 : 16;
				cp->al = xreallocarray(cp->al, cp->alcap,
				    sizeof *cp->al);
			}
			cp->al[nal].cls = ci;
			cp->al[nal].objs = cp->al[nal].bytes = 0;
			nal++;
		}
		cp->al[i].objs += objs;
		cp->al[i].bytes += bytes;
	}
	return (long)nal;
}

/* Args: total bytes and objects, then per class. */
static args_id
alloc_args(struct cp *cp, size_t nal, str_id where, uint64_t *total)
{
	uint64_t bytes = 0, objs = 0;
	for (size_t i = 0; i < nal; i++) {
		bytes += cp->al[i].bytes;
		objs += cp->al[i].objs;
	}
	if (cp->s_bytes == 0) {
		cp->s_bytes = builder_intern_cstr(cp->b, "bytes");
		cp->s_objects = builder_intern_cstr(cp->b, "objects");
		cp->s_function = builder_intern_cstr(cp->b, "function");
	}
	builder_args_begin(cp->b);
	builder_arg_u64(cp->b, cp->s_bytes, bytes);
	builder_arg_u64(cp->b, cp->s_objects, objs);
	if (where != 0)
		builder_arg_str(cp->b, cp->s_function, where);
	for (size_t i = 0; i < nal; i++) {
		struct cp_class *k = &cp->classes.items[cp->al[i].cls];
		class_keys(cp, k);
		builder_arg_u64(cp->b, k->objs_key, cp->al[i].objs);
		builder_arg_u64(cp->b, k->bytes_key, cp->al[i].bytes);
	}
	*total = bytes;
	return builder_args_end(cp->b);
}

/* sam mem THREAD TICKS [CLASS:COUNT:BYTES[:IP]]... — allocations since the
 * thread's previous one, made by its current stack. */
void
cp_sam_mem(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	struct cp_tok tok;
	uint64_t iid;
	int64_t ms;
	if (!cp_field(c, &tok) || !cp_hex(tok.s, tok.n, &iid) ||
	    !cp_field(c, &tok) || !cp_ticks(tok.s, tok.n, &ms)) {
		cp_bad_fields(cp, "sam mem", &c0, "THREAD_IID/x TICKS/t");
		return;
	}
	long nal = alloc_items(cp, c, true, "sam mem");
	if (nal < 0)
		return;
	uint32_t th = cp_thread_get(cp, iid);
	uint32_t track = cp_thread_track(cp, th);
	struct cp_thread *T = &cp->threads.items[th];
	ttv_ns t = ms * 1000000;
	if (T->seen_t && t < T->last_t)
		t = T->last_t;
	str_id where = 0;
	if (T->stk.len > 0) {
		struct cp_func *f = &cp->funcs.items[T->stk.items[T->stk.len - 1].func];
		where = f->name;
	}
	if (cp->f_alloc == 0) {
		cp->f_alloc = builder_func(cp->b,
		    builder_intern_cstr(cp->b, "allocations"),
		    builder_intern_cstr(cp->b, "memory"), -1) + 1;
	}
	uint64_t total;
	args_id a = alloc_args(cp, (size_t)nal, where, &total);
	builder_instant(cp->b, track, t, cp->f_alloc - 1, a);
	T = &cp->threads.items[th];
	T->alloc_bytes += total;
	if (T->alloc_track == CP_NONE) {
		uint32_t tr = builder_track_new(cp->b, TRACK_COUNTER,
		    cp_process(cp), cp->next_counter++);
		builder_track_name(cp->b, tr, builder_intern_cstr(cp->b,
		    cp_fmt(cp, "%s allocated bytes", LABEL(T))));
		T = &cp->threads.items[th];
		T->alloc_track = tr;
	}
	builder_counter(cp->b, T->alloc_track, t, (double)T->alloc_bytes);
}

/* gch alt TICKS [CLASS:OBJECTS:BYTES]... — what survived the last GC. */
void
cp_gch_alt(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	struct cp_tok tok;
	int64_t ms;
	if (!cp_field(c, &tok) || !cp_ticks(tok.s, tok.n, &ms)) {
		cp_bad_fields(cp, "gch alt", &c0, "TICKS/t");
		return;
	}
	long nal = alloc_items(cp, c, false, "gch alt");
	if (nal < 0)
		return;
	ttv_ns t = ms * 1000000;
	uint32_t th = cp->last_gc_thread;
	if (th == CP_NONE)
		th = cp_thread_by_os(cp, -1);
	uint32_t track = rt_track(cp, th);
	if (cp->f_heap == 0)
		cp->f_heap = builder_func(cp->b,
		    builder_intern_cstr(cp->b, "GC heap after collection"),
		    builder_intern_cstr(cp->b, "gc"), -1) + 1;
	uint64_t total;
	args_id a = alloc_args(cp, (size_t)nal, 0, &total);
	builder_instant(cp->b, track, t, cp->f_heap - 1, a);
	if (cp->heap_track == CP_NONE) {
		cp->heap_track = builder_track_new(cp->b, TRACK_COUNTER,
		    cp_process(cp), cp->next_counter++);
		builder_track_name(cp->b, cp->heap_track,
		    builder_intern_cstr(cp->b, "GC heap bytes"));
	}
	builder_counter(cp->b, cp->heap_track, t, (double)total);
}

/* ------------------------------------------------------------ JIT, GC */

/* JIT records may name the function by internal or by CLR id. */
static const char *
func_text(struct cp *cp, uint64_t id)
{
	uint32_t fi = idmap_get(&cp->func_by_iid, id);
	if (fi != IDMAP_NONE && cp->funcs.items[fi].text != NULL)
		return cp->funcs.items[fi].text;
	fi = idmap_get(&cp->func_by_clr, id);
	if (fi != IDMAP_NONE && cp->funcs.items[fi].text != NULL)
		return cp->funcs.items[fi].text;
	return NULL;
}

static void
rt_emit(struct cp *cp, uint32_t th, size_t depth, const struct cp_rt *r,
    ttv_ns end, uint32_t flags)
{
	struct cp_thread *T = &cp->threads.items[th];
	char gens[48];
	const char *name;
	if (r->kind == CP_RT_GC) {
		static const char *const g[] = { "0", "1", "2", "LOH" };
		size_t k = 0;
		gens[0] = 0;
		for (int i = 0; i < 8; i++)
			if (r->what & (1u << i))
				k += (size_t)snprintf(gens + k, sizeof gens - k,
				    "%s%s", k ? "," : " gen ",
				    i < 4 ? g[i] : "?");
		name = cp_fmt(cp, "GC%s%s", gens,
		    (r->what & (1u << 8)) ? " (induced)" : "");
	} else {
		const char *what = r->kind == CP_RT_JIT ? "JIT" : "JIT search";
		const char *fn = func_text(cp, r->what);
		if (fn != NULL)
			name = cp_fmt(cp, "%s %s", what, fn);
		else
			name = cp_fmt(cp, "%s 0x%llx", what,
			    (unsigned long long)r->what);
	}
	if (cp->s_jit == 0) {
		cp->s_jit = builder_intern_cstr(cp->b, "jit");
		cp->s_gc = builder_intern_cstr(cp->b, "gc");
	}
	func_id f = builder_func(cp->b, builder_intern_cstr(cp->b, name),
	    r->kind == CP_RT_GC ? cp->s_gc : cp->s_jit, -1);
	/* Runtime work carries no samples: weight 0 keeps sampled views
	 * (flame, functions, collapsed) to the sampled stacks. */
	if (cp->sampled)
		builder_slice_weighted(cp->b, T->rt_track, (uint32_t)depth,
		    r->start, end - r->start, f, flags, 0);
	else
		builder_slice(cp->b, T->rt_track, (uint32_t)depth, r->start,
		    end - r->start, f, flags, 0);
}

/* As thread_time(), for the JIT/GC events of an OS thread: strictly
 * increasing, so intervals at one depth never overlap. */
static ttv_ns
rt_time(struct cp_thread *T, ttv_ns t)
{
	if (T->rt_seen && t <= T->rt_last)
		t = T->rt_last + 1;
	T->rt_seen = true;
	T->rt_last = t;
	return t;
}

void
cp_rt_begin(struct cp *cp, int64_t ostid, ttv_ns t, enum cp_rt_kind kind,
    uint64_t what)
{
	uint32_t th = cp_thread_by_os(cp, ostid);
	rt_track(cp, th);
	struct cp_thread *T = &cp->threads.items[th];
	t = rt_time(T, t);
	if (T->rt.len >= 256) {
		cp_warn(cp, "too many nested JIT/GC intervals on %s; ignored",
		    LABEL(T));
		return;
	}
	struct cp_rt r = { .kind = kind, .what = what, .start = t };
	VEC_PUSH(&T->rt, r);
}

void
cp_rt_end(struct cp *cp, int64_t ostid, ttv_ns t, enum cp_rt_kind kind,
    uint64_t what)
{
	uint32_t th = cp_thread_by_os(cp, ostid);
	rt_track(cp, th);
	struct cp_thread *T = &cp->threads.items[th];
	size_t i = T->rt.len;
	while (i > 0) {
		const struct cp_rt *r = &T->rt.items[i - 1];
		if (r->kind == kind && (kind == CP_RT_GC || r->what == what))
			break;
		i--;
	}
	if (kind == CP_RT_GC)
		cp->last_gc_thread = th;
	if (i == 0) {
		cp_warn(cp, "%s end without its start on %s",
		    kind == CP_RT_GC ? "GC" : "JIT", LABEL(T));
		return;
	}
	/* At least 1 ns each, and an outer one ends no earlier than the
	 * ones inside it. */
	ttv_ns end = rt_time(T, t);
	for (size_t d = T->rt.len; d-- > i - 1;) {
		struct cp_rt r = T->rt.items[d];
		if (end <= r.start)
			end = r.start + 1;
		rt_emit(cp, th, d, &r, end, d == i - 1 ? 0 : SLICE_UNWOUND);
		T = &cp->threads.items[th];
	}
	T->rt_last = end;
	T->rt.len = i - 1;
}

/* ------------------------------------------------------------ pauses */

void
cp_pause(struct cp *cp, ttv_ns t, bool resume)
{
	if (!resume) {
		if (cp->paused) {
			cp_warn(cp, "prf tps: already paused");
			return;
		}
		struct cp_pause p = { t, TTV_NS_MAX };
		VEC_PUSH(&cp->pauses, p);
		cp->paused = true;
		builder_marker(cp->b, MARKER_PAUSE, UINT32_MAX, t, 0, 0);
	} else {
		if (!cp->paused) {
			cp_warn(cp, "prf trs: not paused");
			return;
		}
		struct cp_pause *p = &cp->pauses.items[cp->pauses.len - 1];
		p->t1 = t < p->t0 ? p->t0 : t;
		cp->paused = false;
		builder_marker(cp->b, MARKER_RESUME, UINT32_MAX, p->t1, 0, 0);
	}
}

/* ------------------------------------------------------------ the end */

/* `thr dst` carries no time: the frames end at the thread's last record. */
void
cp_thread_destroyed(struct cp *cp, uint32_t th)
{
	struct cp_thread *T = &cp->threads.items[th];
	T->destroyed = true;
	if (T->track != CP_NONE)
		close_frames(cp, T, 0, T->last_t + 1, SLICE_UNTERMINATED);
}

void
cp_finish(struct cp *cp)
{
	/* A log being written (--follow): a thread's open frames are still
	 * running, up to now, the newest record of any thread. */
	ttv_ns now = TTV_NS_MIN;
	bool follow = cp->ctx->opts != NULL && cp->ctx->opts->follow;
	for (size_t th = 0; follow && th < cp->threads.len; th++)
		if (cp->threads.items[th].track != CP_NONE &&
		    cp->threads.items[th].last_t + 1 > now)
			now = cp->threads.items[th].last_t + 1;
	for (size_t th = 0; th < cp->threads.len; th++) {
		struct cp_thread *T = &cp->threads.items[th];
		/* The last record's stack is known to its time, not after:
		 * 1 ns keeps its frames (and their samples) in the tree. */
		if (T->track != CP_NONE)
			close_frames(cp, T, 0, T->last_t + 1 > now ?
			    T->last_t + 1 : now, SLICE_UNTERMINATED);
		if (T->rt.len > 0) {
			/* Open intervals end with the track, or at the start
			 * of the innermost one if that is later. */
			ttv_ns end = builder_track_last(cp->b, T->rt_track);
			for (size_t d = T->rt.len; d-- > 0;) {
				struct cp_rt r = T->rt.items[d];
				if (end <= r.start)
					end = r.start + 1;
				rt_emit(cp, (uint32_t)th, d, &r, end,
				    SLICE_UNTERMINATED);
				T = &cp->threads.items[th];
			}
			T->rt.len = 0;
		}
		if (T->iid == UINT64_MAX)
			continue;
		char key[48];
		snprintf(key, sizeof key, "thread 0x%08llx",
		    (unsigned long long)T->iid);
		char os[64] = "os tid unknown";
		if (T->ostid >= 0)
			snprintf(os, sizeof os, "os tid %lld%s", (long long)T->ostid,
			    T->nmoves ? " (moved)" : "");
		builder_meta(cp->b, key, cp_fmt(cp, "%s, clr 0x%llX, %llu sam "
		    "str, %llu samples, weight %llu (%llu on an empty stack), "
		    "max depth %u%s%s", os, (unsigned long long)T->clr,
		    (unsigned long long)T->records,
		    (unsigned long long)T->samples,
		    (unsigned long long)T->weight,
		    (unsigned long long)T->empty_weight, T->max_depth,
		    T->declared ? "" : ", no thr crt",
		    T->destroyed ? ", destroyed" : ""));
	}
}

void
cp_free(struct cp *cp)
{
	for (size_t i = 0; i < cp->threads.len; i++) {
		VEC_FREE(&cp->threads.items[i].stk);
		VEC_FREE(&cp->threads.items[i].rt);
	}
	for (size_t i = 0; i < cp->funcs.len; i++)
		free(cp->funcs.items[i].text);
	VEC_FREE(&cp->threads);
	for (size_t i = 0; i < cp->classes.len; i++)
		free(cp->classes.items[i].text);
	VEC_FREE(&cp->classes);
	VEC_FREE(&cp->funcs);
	VEC_FREE(&cp->pauses);
	idmap_free(&cp->thread_by_iid);
	idmap_free(&cp->thread_by_os);
	idmap_free(&cp->native_by_os);
	idmap_free(&cp->func_by_iid);
	idmap_free(&cp->func_by_clr);
	idmap_free(&cp->class_by_iid);
	free(cp->fr);
	free(cp->al);
	free(cp->buf);
}
