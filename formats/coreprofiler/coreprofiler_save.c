/*
 * The CoreProfiler reader's state written as bytes and made again
 * (reader.h, grow_save and grow_load), so that a log appended to while
 * ttv was not running is read on from the line where the last run
 * stopped, with the state its trace's index keeps.
 *
 * Everything one line leaves for the next is here: the threads with
 * their shadow stacks and open JIT/GC intervals, the functions, classes,
 * pauses, the counters' last times, the ids the log's records name
 * things by, and the line number and damage counts. The line loop's own
 * counts are coreprofiler.c's. Scratch buffers are not written; the id
 * maps are made again from the vectors, except the functions by CLR id,
 * whose entries are not only the functions' present CLR ids (a function
 * given another keeps its old one too): those are written as pairs.
 *
 * Bytes that come back are trusted in nothing: every id kept is checked
 * against the builder or the vectors just read, and every time against
 * the range a log's ticks can give, so that the arithmetic on them stays
 * in range; a state that fails a check is freed whole (cp_free) and the
 * log read again from its start.
 */
#include "config.h"
#include "coreprofiler_int.h"

#include <stdlib.h>
#include <string.h>

/* Marks the bytes as this reader's state. */
#define CP_SAVE_MAGIC 0x31535043u	/* "CPS1" */

/* The latest time a log can give: its ticks (2^53 / 1000 ms at most, in
 * ns) plus the 1 ns each later record of a thread may add, with room to
 * spare; below it, a time plus 1, or one time less another, stays in
 * range. */
#define CP_T_MAX (INT64_MAX - ((int64_t)1 << 57))

static bool
time_ok(ttv_ns t)
{
	return t >= 0 && t <= CP_T_MAX;
}

/* An id the state keeps: none yet, or one of n. */
static bool
id_ok(uint32_t id, uint32_t n)
{
	return id == CP_NONE || id < n;
}

static bool
str_ok(str_id s, uint32_t nstrings)
{
	return s < nstrings;
}

/* ------------------------------------------------------------ writing */

static void
put_bool(struct blob *w, bool v)
{
	blob_u8(w, v ? 1 : 0);
}

static int
pair_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* An id map's entries as (key, value) pairs in the order of their keys,
 * so that a state made again writes the same bytes. */
static void
put_idmap(struct blob *w, const struct idmap *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->ndirect; i++)
		n += m->direct[i] != IDMAP_NONE;
	for (size_t i = 0; i < m->cap; i++)
		n += m->vals[i] != IDMAP_NONE;
	uint64_t *pairs = xreallocarray(NULL, n ? 2 * n : 1, sizeof *pairs);
	size_t k = 0;
	for (size_t i = 0; i < m->ndirect; i++)
		if (m->direct[i] != IDMAP_NONE) {
			pairs[2 * k] = i;
			pairs[2 * k++ + 1] = m->direct[i];
		}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] != IDMAP_NONE) {
			pairs[2 * k] = m->keys[i];
			pairs[2 * k++ + 1] = m->vals[i];
		}
	qsort(pairs, n, 2 * sizeof *pairs, pair_cmp);
	blob_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		blob_u64(w, pairs[2 * i]);
		blob_u32(w, (uint32_t)pairs[2 * i + 1]);
	}
	free(pairs);
}

/* Which id maps hold a thread: each holds it under one key at most (its
 * internal id, or its OS tid). */
enum {
	IN_BY_IID = 1,		/* thread_by_iid, as iid */
	IN_BY_OS = 2,		/* thread_by_os, as ostid (`thr aos`) */
	IN_NATIVE = 4,		/* native_by_os, as ostid */
	IN_ALL = 7
};

static void
put_thread(struct blob *w, const struct cp *cp, uint32_t th)
{
	const struct cp_thread *T = &cp->threads.items[th];
	uint8_t in = 0;
	if (idmap_get(&cp->thread_by_iid, T->iid) == th)
		in |= IN_BY_IID;
	if (T->ostid >= 0 &&
	    idmap_get(&cp->thread_by_os, (uint64_t)T->ostid) == th)
		in |= IN_BY_OS;
	if (idmap_get(&cp->native_by_os, (uint64_t)T->ostid) == th)
		in |= IN_NATIVE;
	blob_u8(w, in);
	blob_u64(w, T->iid);
	blob_u64(w, T->clr);
	blob_i64(w, T->ostid);
	put_bool(w, T->declared);
	put_bool(w, T->destroyed);
	put_bool(w, T->seen_t);
	blob_u32(w, T->nmoves);
	blob_u32(w, T->track);
	blob_u32(w, T->rt_track);
	blob_u32(w, T->cpu_track);
	blob_u32(w, T->alloc_track);
	/* cp_frame has no hidden padding: written as it is */
	BLOB_VEC(w, &T->stk);
	blob_u64(w, T->rt.len);
	for (size_t i = 0; i < T->rt.len; i++) {
		blob_u8(w, (uint8_t)T->rt.items[i].kind);
		blob_u64(w, T->rt.items[i].what);
		blob_i64(w, T->rt.items[i].start);
	}
	blob_i64(w, T->rt_last);
	put_bool(w, T->rt_seen);
	blob_i64(w, T->last_t);
	blob_u64(w, T->cum);
	blob_u64(w, T->next_pause);
	blob_i64(w, T->cpu_last);
	put_bool(w, T->cpu_seen);
	blob_u64(w, T->alloc_bytes);
	blob_u64(w, T->records);
	blob_u64(w, T->samples);
	blob_u64(w, T->weight);
	blob_u64(w, T->empty_weight);
	blob_u32(w, T->max_depth);
}

void
cp_save(const struct cp *cp, struct blob *w)
{
	blob_u32(w, CP_SAVE_MAGIC);
	blob_u64(w, cp->line);
	put_bool(w, cp->failed);
	blob_u64(w, cp->nbad);

	blob_u32(w, cp->process);
	blob_i64(w, cp->pid);
	blob_u32(w, cp->process_name);
	blob_u8(w, (uint8_t)cp->method);
	put_bool(w, cp->sampled);
	blob_i64(w, cp->cpu_interval);

	blob_u64(w, cp->funcs.len);
	for (size_t i = 0; i < cp->funcs.len; i++) {
		const struct cp_func *f = &cp->funcs.items[i];
		blob_u32(w, f->fid);
		blob_u32(w, f->name);
		blob_u32(w, f->category);
		blob_str(w, f->text);
		blob_u64(w, f->iid);
		blob_u64(w, f->clr);
	}
	put_idmap(w, &cp->func_by_clr);

	blob_u64(w, cp->classes.len);
	for (size_t i = 0; i < cp->classes.len; i++) {
		const struct cp_class *k = &cp->classes.items[i];
		blob_str(w, k->text);
		blob_u32(w, k->objs_key);
		blob_u32(w, k->bytes_key);
		blob_u64(w, k->iid);
	}

	BLOB_VEC(w, &cp->pauses);
	put_bool(w, cp->paused);

	blob_u64(w, cp->threads.len);
	for (size_t th = 0; th < cp->threads.len; th++)
		put_thread(w, cp, (uint32_t)th);

	blob_u32(w, cp->proc_cpu_track);
	blob_u32(w, cp->heap_track);
	blob_i64(w, cp->proc_cpu_last);
	put_bool(w, cp->proc_cpu_seen);
	blob_u32(w, cp->last_gc_thread);
	blob_i64(w, cp->next_counter);
	blob_u32(w, cp->f_alloc);
	blob_u32(w, cp->f_heap);
	blob_u32(w, cp->s_bytes);
	blob_u32(w, cp->s_objects);
	blob_u32(w, cp->s_function);
	blob_u32(w, cp->s_jit);
	blob_u32(w, cp->s_gc);
}

/* ------------------------------------------------------------ reading */

/* The bytes the smallest item of each vector takes. */
#define FUNC_MIN (4 + 4 + 4 + 8 + 8 + 8)
#define PAIR_MIN (8 + 4)
#define CLASS_MIN (8 + 4 + 4 + 8)
#define RT_MIN (1 + 8 + 8)
#define THREAD_MIN (1 + 8 + 8 + 8 + 3 + 5 * 4 + 8 + 8 + 8 + 1 + 8 + 8 + \
	8 + 8 + 1 + 5 * 8 + 4)

/* A map made again from (key, value) pairs, each value one of n. */
static bool
get_idmap(struct blob_in *in, struct idmap *m, size_t n)
{
	size_t count = blob_get_count(in, PAIR_MIN);
	for (size_t i = 0; i < count; i++) {
		uint64_t key = blob_get_u64(in);
		uint32_t val = blob_get_u32(in);
		if (in->bad || val >= n || idmap_get(m, key) != IDMAP_NONE)
			return false;
		idmap_put(m, key, val);
	}
	return !in->bad;
}

/* A thread's place in an id map, checked: no other thread there. */
static bool
map_thread(struct idmap *m, uint64_t key, uint32_t th)
{
	if (idmap_get(m, key) != IDMAP_NONE)
		return false;
	idmap_put(m, key, th);
	return true;
}

/* A thread's open frames: of known functions, each inside the one below
 * (it started no earlier), none after the thread's last record, none
 * holding samples the thread has not counted. */
static bool
frames_ok(const struct cp *cp, const struct cp_thread *T)
{
	ttv_ns below = 0;
	for (size_t d = 0; d < T->stk.len; d++) {
		const struct cp_frame *fr = &T->stk.items[d];
		if (fr->func >= cp->funcs.len || !time_ok(fr->start) ||
		    fr->start < below || fr->start > T->last_t ||
		    fr->cum0 > T->cum)
			return false;
		below = fr->start;
	}
	return true;
}

/* Reads thread number th (the vector holds th threads) into place. */
static bool
get_thread(struct blob_in *in, struct cp *cp, uint32_t th, size_t npauses)
{
	uint32_t ntracks = builder_ntracks(cp->b);
	struct cp_thread T;
	memset(&T, 0, sizeof T);
	uint8_t maps = blob_get_u8(in);
	T.iid = blob_get_u64(in);
	T.clr = blob_get_u64(in);
	T.ostid = blob_get_i64(in);
	T.declared = blob_get_bool(in);
	T.destroyed = blob_get_bool(in);
	T.seen_t = blob_get_bool(in);
	T.nmoves = blob_get_u32(in);
	T.track = blob_get_u32(in);
	T.rt_track = blob_get_u32(in);
	T.cpu_track = blob_get_u32(in);
	T.alloc_track = blob_get_u32(in);
	BLOB_GET_VEC(in, &T.stk);
	/* in the vector at once, so that cp_free frees what follows */
	VEC_PUSH(&cp->threads, T);
	struct cp_thread *P = &cp->threads.items[th];
	size_t nrt = blob_get_count(in, RT_MIN);
	VEC_RESERVE(&P->rt, nrt);
	for (size_t i = 0; i < nrt; i++) {
		struct cp_rt r;
		memset(&r, 0, sizeof r);
		uint8_t kind = blob_get_u8(in);
		r.what = blob_get_u64(in);
		r.start = blob_get_i64(in);
		if (in->bad || kind > CP_RT_GC || !time_ok(r.start))
			return false;
		r.kind = (enum cp_rt_kind)kind;
		P->rt.items[P->rt.len++] = r;
	}
	P->rt_last = blob_get_i64(in);
	P->rt_seen = blob_get_bool(in);
	P->last_t = blob_get_i64(in);
	P->cum = blob_get_u64(in);
	uint64_t next_pause = blob_get_u64(in);
	P->cpu_last = blob_get_i64(in);
	P->cpu_seen = blob_get_bool(in);
	P->alloc_bytes = blob_get_u64(in);
	P->records = blob_get_u64(in);
	P->samples = blob_get_u64(in);
	P->weight = blob_get_u64(in);
	P->empty_weight = blob_get_u64(in);
	P->max_depth = blob_get_u32(in);
	if (in->bad || (maps & ~IN_ALL) != 0 || next_pause > npauses ||
	    (P->ostid < 0 && P->ostid != -1) ||
	    !id_ok(P->track, ntracks) || !id_ok(P->rt_track, ntracks) ||
	    !id_ok(P->cpu_track, ntracks) || !id_ok(P->alloc_track, ntracks) ||
	    !time_ok(P->rt_last) || !time_ok(P->last_t) ||
	    !time_ok(P->cpu_last) || !frames_ok(cp, P) ||
	    /* open frames are drawn on the stack track, open intervals on
	     * the runtime one, and both began at a record of the thread */
	    (P->stk.len > 0 && (P->track == CP_NONE || !P->seen_t)) ||
	    (P->rt.len > 0 && (P->rt_track == CP_NONE || !P->rt_seen)))
		return false;
	P->next_pause = (size_t)next_pause;
	for (size_t i = 0; i < P->rt.len; i++)
		if (P->rt.items[i].start > P->rt_last)
			return false;
	/* the id maps, made again, each key held by one thread */
	if ((maps & IN_BY_IID) && !map_thread(&cp->thread_by_iid, P->iid, th))
		return false;
	if ((maps & IN_BY_OS) && (P->ostid < 0 ||
	    !map_thread(&cp->thread_by_os, (uint64_t)P->ostid, th)))
		return false;
	if ((maps & IN_NATIVE) &&
	    !map_thread(&cp->native_by_os, (uint64_t)P->ostid, th))
		return false;
	return true;
}

bool
cp_restore(struct cp *cp, struct blob_in *in)
{
	uint32_t nstrings = builder_nstrings(cp->b);
	uint32_t nfuncs = builder_nfuncs(cp->b);
	uint32_t ntracks = builder_ntracks(cp->b);

	if (blob_get_u32(in) != CP_SAVE_MAGIC)
		return false;
	cp->line = blob_get_u64(in);
	cp->failed = blob_get_bool(in);
	cp->nbad = blob_get_u64(in);

	cp->process = blob_get_u32(in);
	cp->pid = blob_get_i64(in);
	cp->process_name = blob_get_u32(in);
	uint8_t method = blob_get_u8(in);
	cp->sampled = blob_get_bool(in);
	cp->cpu_interval = blob_get_i64(in);
	/* CpuTraceTimeoutMs as rec_prf_cfg takes it */
	if (in->bad || !id_ok(cp->process, builder_nprocesses(cp->b)) ||
	    !str_ok(cp->process_name, nstrings) || method > CP_METHOD_INSTR ||
	    cp->cpu_interval <= 0 || cp->cpu_interval > 86400000ll * 1000000)
		return false;
	cp->method = (enum cp_method)method;

	size_t n = blob_get_count(in, FUNC_MIN);
	VEC_RESERVE(&cp->funcs, n);
	for (size_t i = 0; i < n; i++) {
		struct cp_func f;
		f.fid = blob_get_u32(in);
		f.name = blob_get_u32(in);
		f.category = blob_get_u32(in);
		f.text = blob_get_str(in);
		f.iid = blob_get_u64(in);
		f.clr = blob_get_u64(in);
		cp->funcs.items[cp->funcs.len++] = f;
		if (in->bad || !id_ok(f.fid, nfuncs) || !str_ok(f.name, nstrings) ||
		    !str_ok(f.category, nstrings) ||
		    idmap_get(&cp->func_by_iid, f.iid) != IDMAP_NONE)
			return false;
		idmap_put(&cp->func_by_iid, f.iid, (uint32_t)i);
	}
	if (!get_idmap(in, &cp->func_by_clr, cp->funcs.len))
		return false;

	n = blob_get_count(in, CLASS_MIN);
	VEC_RESERVE(&cp->classes, n);
	for (size_t i = 0; i < n; i++) {
		struct cp_class k;
		k.text = blob_get_str(in);
		k.objs_key = blob_get_u32(in);
		k.bytes_key = blob_get_u32(in);
		k.iid = blob_get_u64(in);
		cp->classes.items[cp->classes.len++] = k;
		if (in->bad || !str_ok(k.objs_key, nstrings) ||
		    !str_ok(k.bytes_key, nstrings) ||
		    idmap_get(&cp->class_by_iid, k.iid) != IDMAP_NONE)
			return false;
		idmap_put(&cp->class_by_iid, k.iid, (uint32_t)i);
	}

	/* the pauses: in order, each ended but the last, open while paused */
	BLOB_GET_VEC(in, &cp->pauses);
	cp->paused = blob_get_bool(in);
	if (in->bad || (cp->paused && cp->pauses.len == 0))
		return false;
	for (size_t i = 0; i < cp->pauses.len; i++) {
		const struct cp_pause *p = &cp->pauses.items[i];
		bool open = cp->paused && i == cp->pauses.len - 1;
		if (!time_ok(p->t0) || (open ? p->t1 != TTV_NS_MAX :
		    !time_ok(p->t1) || p->t1 < p->t0))
			return false;
	}

	n = blob_get_count(in, THREAD_MIN);
	if (n >= CP_NONE)
		return false;	/* CP_NONE is no thread */
	VEC_RESERVE(&cp->threads, n);
	for (size_t th = 0; th < n; th++)
		if (!get_thread(in, cp, (uint32_t)th, cp->pauses.len))
			return false;

	cp->proc_cpu_track = blob_get_u32(in);
	cp->heap_track = blob_get_u32(in);
	cp->proc_cpu_last = blob_get_i64(in);
	cp->proc_cpu_seen = blob_get_bool(in);
	cp->last_gc_thread = blob_get_u32(in);
	cp->next_counter = blob_get_i64(in);
	cp->f_alloc = blob_get_u32(in);
	cp->f_heap = blob_get_u32(in);
	cp->s_bytes = blob_get_u32(in);
	cp->s_objects = blob_get_u32(in);
	cp->s_function = blob_get_u32(in);
	cp->s_jit = blob_get_u32(in);
	cp->s_gc = blob_get_u32(in);
	/* f_alloc and f_heap are func_id + 1, 0 until made */
	return !in->bad && id_ok(cp->proc_cpu_track, ntracks) &&
	    id_ok(cp->heap_track, ntracks) && time_ok(cp->proc_cpu_last) &&
	    id_ok(cp->last_gc_thread, (uint32_t)cp->threads.len) &&
	    cp->next_counter >= 1 && cp->next_counter < INT64_MAX &&
	    cp->f_alloc <= nfuncs && cp->f_heap <= nfuncs &&
	    str_ok(cp->s_bytes, nstrings) && str_ok(cp->s_objects, nstrings) &&
	    str_ok(cp->s_function, nstrings) && str_ok(cp->s_jit, nstrings) &&
	    str_ok(cp->s_gc, nstrings);
}
