/*
 * A growing load's state (fxt_grow.c) written as bytes and made again
 * (reader.h, grow_save and grow_load), so that a trace appended to while
 * ttv was not running is read on from where the last run stopped.
 *
 * What is written: both passes' providers with their string and thread
 * tables, the threads with their open slices and sorted copies, the
 * kernel objects' names and types, the counter series, the async, flow
 * and scheduling events kept for the end, the times, the counts and the
 * flags. What is not: pointers (grow_feed sets them again), the caches in
 * front of the builder (fcache, scache: the builder gives the same ids
 * again for the same names), grow_end's scratch, and the hash maps, which
 * are made again from their entries. The async tracks and CPU lanes are
 * only ever made in grow_end's copy of the builder, and forgotten after
 * it: a state holding some (or a replay worker) is not written.
 *
 * Made again, every id the state will use as an index is checked against
 * the builder (its strings, functions, processes, tracks, open stacks and
 * args) or against the state's own vectors, every place in the file
 * against the file's size, and every time against the range below, so
 * that damaged bytes give NULL, never a state that reads out of bounds.
 * (An args id is only checked to be below the builder's count: the
 * builder does not say where its runs start.)
 */
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"

#define SAVE_TAG 0x53545846u	/* "FXTS" */
#define SAVE_END 0x444e4546u	/* "FEND" */
#define NCHUNKS (0x8000 / FXT_STR_CHUNK)

/*
 * The times a state keeps are within the half of the int64 range that
 * fxt_choose_tick_base keeps a trace's times in (or INT64_MIN where that
 * stands for none), so that the differences the builder takes of them
 * fit: a damaged time is caught, and a trace whose times go past that
 * keeps no state (it is read again from its start).
 */
#define TIME_MAX (INT64_MAX / 2)

static bool
time_ok(int64_t t)
{
	return t >= -TIME_MAX && t <= TIME_MAX;
}

static bool
time_or_none(int64_t t)
{
	return t == INT64_MIN || time_ok(t);
}

/* A sorted copy's event: its time, and a complete event's end. */
static bool
dev_times_ok(const struct fxt_dev *d)
{
	return time_ok(d->t) && (d->type != FXT_EV_COMPLETE ||
	    (time_ok(d->x) && d->x >= d->t));
}

/* An open slice: its start, and a complete event's end (OPEN_END, as
 * fxt_event.c calls INT64_MIN, for a begin's). */
static bool
frame_times_ok(const struct fxt_frame *fr)
{
	return time_ok(fr->start) && time_or_none(fr->end);
}

/* ----------------------------------------------------------- writing */

static int
cmp_slot(const void *p, const void *q)
{
	const struct fxt_map_slot *a = p, *b = q;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* A map's entries, in the order of their keys: the same map gives the
 * same bytes, however it was filled. */
static void
put_map(struct blob *w, const struct fxt_map *m)
{
	struct fxt_map_slot *e = xreallocarray(NULL, m->len + 1, sizeof *e);
	size_t n = 0, i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].used && n < m->len)
			e[n++] = m->slots[i];
	xqsort(e, n, sizeof *e, cmp_slot);
	blob_u64(w, n);
	for (i = 0; i < n; i++) {
		blob_u64(w, e[i].a);
		blob_u64(w, e[i].b);
		blob_u32(w, e[i].v);
	}
	free(e);
}

static void
put_provider(struct blob *w, const struct fxt_provider *p)
{
	size_t i, n = 0;

	blob_u32(w, p->id);
	blob_u32(w, p->name);
	blob_str(w, p->cname);
	blob_u64(w, p->tps);
	blob_u64(w, p->tick_base);
	blob_put(w, p->threads, sizeof p->threads);
	for (i = 0; i < NCHUNKS; i++)
		n += p->chunks[i] != NULL;
	blob_u64(w, n);
	for (i = 0; i < NCHUNKS; i++) {
		if (p->chunks[i] == NULL)
			continue;
		blob_u32(w, (uint32_t)i);
		blob_put(w, p->chunks[i]->strings, sizeof p->chunks[i]->strings);
		blob_put(w, p->chunks[i]->text, sizeof p->chunks[i]->text);
	}
}

/* One pass's providers, and which is current (FXT_NONE: none yet). */
static void
put_tables(struct blob *w, const struct fxt_tables *t)
{
	uint32_t cur = FXT_NONE;
	size_t i;

	blob_u64(w, t->providers.len);
	for (i = 0; i < t->providers.len; i++) {
		put_provider(w, t->providers.items[i]);
		if (t->providers.items[i] == t->cur)
			cur = (uint32_t)i;
	}
	blob_u32(w, cur);
}

static void
put_thread(struct blob *w, const struct fxt_thread *th,
    const struct fxt_stack *sk)
{
	size_t i;

	blob_i64(w, th->pid);
	blob_i64(w, th->tid);
	blob_u32(w, th->track);
	blob_u32(w, th->process);
	blob_i64(w, th->last_t);
	blob_u64(w, th->nev);
	blob_u8(w, th->defer);
	blob_u8(w, th->end_args);
	blob_u64(w, th->dev.len);
	for (i = 0; i < th->dev.len; i++) {
		const struct fxt_dev *d = &th->dev.items[i];
		blob_i64(w, d->t);
		blob_i64(w, d->x);
		blob_u32(w, d->func);
		blob_u32(w, d->args);
		blob_u8(w, d->type);
	}
	blob_u64(w, sk->depth);
	for (i = 0; i < sk->depth; i++) {
		const struct fxt_frame *fr = &sk->stack[i];
		blob_i64(w, fr->start);
		blob_i64(w, fr->end);
		blob_u32(w, fr->func);
		blob_u32(w, fr->args);
	}
}

static void
put_events(struct blob *w, const struct fxt *x)
{
	size_t i;

	blob_u64(w, x->async.len);
	for (i = 0; i < x->async.len; i++) {
		const struct fxt_async *a = &x->async.items[i];
		blob_i64(w, a->t);
		blob_u64(w, a->id);
		blob_u32(w, a->func);
		blob_u32(w, a->args);
		blob_u32(w, a->name);
		blob_u32(w, a->process);
		blob_u8(w, a->type);
	}
	blob_u64(w, x->flows.len);
	for (i = 0; i < x->flows.len; i++) {
		const struct fxt_flowev *f = &x->flows.items[i];
		blob_i64(w, f->t);
		blob_u64(w, f->id);
		blob_i64(w, f->pid);
		blob_i64(w, f->slice_start);
		blob_u32(w, f->ref.track);
		blob_u32(w, f->ref.depth);
		blob_u32(w, f->ref.index);
		blob_u8(w, f->type);
		blob_u8(w, f->bound);
	}
	blob_u64(w, x->sched.len);
	for (i = 0; i < x->sched.len; i++) {
		const struct fxt_sched *s = &x->sched.items[i];
		blob_i64(w, s->t);
		blob_i64(w, s->out_tid);
		blob_i64(w, s->in_tid);
		blob_u32(w, s->args);
		blob_u32(w, s->cpu);
		blob_u32(w, (uint32_t)s->in_prio);
		blob_u32(w, (uint32_t)s->out_prio);
		blob_u8(w, s->kind);
		blob_u8(w, s->out_state);
		blob_u8(w, s->out_idle);
		blob_u8(w, s->in_idle);
	}
}

/* The times of x (time_ok). */
static bool
times_ok(const struct fxt *x)
{
	size_t i, k;

	if (!time_or_none(x->last_t) || !time_or_none(x->max_t))
		return false;
	for (i = 0; i < x->threads.len; i++) {
		const struct fxt_thread *th = &x->threads.items[i];
		const struct fxt_stack *sk = &x->stacks.items[i];
		if (!time_or_none(th->last_t))
			return false;
		for (k = 0; k < th->dev.len; k++)
			if (!dev_times_ok(&th->dev.items[k]))
				return false;
		for (k = 0; k < sk->depth; k++)
			if (!frame_times_ok(&sk->stack[k]))
				return false;
	}
	for (i = 0; i < x->async.len; i++)
		if (!time_ok(x->async.items[i].t))
			return false;
	for (i = 0; i < x->flows.len; i++)
		if (!time_ok(x->flows.items[i].t) ||
		    !time_ok(x->flows.items[i].slice_start))
			return false;
	for (i = 0; i < x->sched.len; i++)
		if (!time_ok(x->sched.items[i].t))
			return false;
	return true;
}

/* What only a whole load or grow_end's copy holds is not written, nor
 * times that could not be told from damage. */
static bool
savable(const struct fxt *x)
{
	size_t i;

	if (x->pipe != NULL || x->split || x->lock_depth != 0 ||
	    x->async_tr.len != 0 || x->async_tracks.len != 0 ||
	    x->cpu_tracks.len != 0 || x->kernel_process != FXT_NONE ||
	    x->stacks.len != x->threads.len)
		return false;
	for (i = 0; i < x->threads.len; i++)
		if (x->threads.items[i].own || x->threads.items[i].direct)
			return false;
	return times_ok(x);
}

bool
fxt_grow_save(void *state, struct blob *w)
{
	const struct fxt_grow *G = state;
	const struct fxt *x = &G->x;
	struct fxt_tables events = { x->providers, x->cur };
	size_t i;

	if (G->started && !savable(x))
		return false;
	blob_u32(w, SAVE_TAG);
	blob_u8(w, G->started);
	blob_u8(w, G->base_known);
	blob_u8(w, G->broken);
	blob_u8(w, G->stale);
	if (G->started) {
		blob_u64(w, x->size);
		blob_u8(w, x->swap);
		blob_u8(w, x->scan);
		blob_u8(w, x->too_many_providers);
		blob_u64(w, x->first_tps);
		blob_u64(w, x->tick_base);
		blob_i64(w, x->last_t);
		blob_i64(w, x->max_t);
		blob_array(w, x->kinds, K_COUNT, sizeof x->kinds[0]);
		blob_u64(w, x->malformed_reported);
		blob_u64(w, x->threads.len);
		for (i = 0; i < x->threads.len; i++)
			put_thread(w, &x->threads.items[i], &x->stacks.items[i]);
		put_tables(w, &events);
		put_tables(w, &G->scan);
		blob_u64(w, x->knames.len);
		for (i = 0; i < x->knames.len; i++) {
			blob_u32(w, x->knames.items[i].sid);
			blob_str(w, x->knames.items[i].text);
		}
		put_map(w, &x->koid_names);
		put_map(w, &x->koid_type);
		blob_u64(w, x->series.len);
		for (i = 0; i < x->series.len; i++) {
			blob_u32(w, x->series.items[i].process);
			blob_u32(w, x->series.items[i].track);
			blob_u32(w, x->series.items[i].next);
		}
		put_map(w, &x->counters);
		put_events(w, x);
	}
	blob_u32(w, SAVE_END);
	return true;
}

/* ----------------------------------------------------------- reading */

/* What the ids of a state are checked against. */
struct limits {
	const struct builder *b;
	uint32_t nstrings, nfuncs, nprocesses, ntracks;
	size_t nargs;
	size_t file_size;
};

static bool
is_opt(uint32_t v, uint32_t n)
{
	return v == FXT_NONE || v < n;
}

/* A slice a flow is bound to: closed, or open on its track (the index
 * it will have once closed). */
static bool
ref_ok(const struct limits *L, struct slice_ref r)
{
	uint32_t len;

	if (r.track >= L->ntracks)
		return false;
	len = builder_depth_len(L->b, r.track, r.depth);
	return r.index < len || (r.index == len &&
	    r.depth < builder_stack_depth(L->b, r.track));
}

/* A map's entries, each value below limit and each key once. */
static bool
get_map(struct blob_in *r, struct fxt_map *m, uint64_t limit)
{
	size_t n = blob_get_count(r, 20), i;
	uint32_t v, was;
	uint64_t a, b;

	for (i = 0; i < n; i++) {
		a = blob_get_u64(r);
		b = blob_get_u64(r);
		v = blob_get_u32(r);
		if (r->bad || v >= limit || fxt_map_get(m, a, b, &was))
			return false;
		fxt_map_put(m, a, b, v);
	}
	return !r->bad;
}

/* A string slot's place in the file must be in it (fxt_sref_text reads
 * it from the mapping). */
static bool
chunk_ok(const struct limits *L, const struct fxt_strchunk *c)
{
	size_t i;

	for (i = 0; i < FXT_STR_CHUNK; i++) {
		uint64_t off = c->text[i] >> 16, len = c->text[i] & 0xffff;
		if ((c->strings[i] != FXT_STR_UNSET &&
		    c->strings[i] >= L->nstrings) || off > L->file_size ||
		    len > L->file_size - off)
			return false;
	}
	return true;
}

/* A provider into p (already in its vector, to be freed with it). */
static bool
get_provider(struct blob_in *r, const struct limits *L, size_t nthreads,
    struct fxt_provider *p)
{
	size_t n, i;
	const void *q;

	p->id = blob_get_u32(r);
	p->name = blob_get_u32(r);
	p->cname = blob_get_str(r);
	p->tps = blob_get_u64(r);
	p->tick_base = blob_get_u64(r);
	q = blob_take(r, sizeof p->threads);
	if (q == NULL || p->cname == NULL || p->name >= L->nstrings)
		return false;
	memcpy(p->threads, q, sizeof p->threads);
	for (i = 0; i < sizeof p->threads / sizeof p->threads[0]; i++)
		if (!is_opt(p->threads[i], (uint32_t)nthreads))
			return false;
	n = blob_get_count(r, 4 + sizeof(struct fxt_strchunk));
	for (; n > 0; n--) {
		uint32_t k = blob_get_u32(r);
		struct fxt_strchunk *c;
		if (r->bad || k >= NCHUNKS || p->chunks[k] != NULL)
			return false;
		c = p->chunks[k] = xmalloc(sizeof *c);
		if ((q = blob_take(r, sizeof c->strings)) == NULL)
			return false;
		memcpy(c->strings, q, sizeof c->strings);
		if ((q = blob_take(r, sizeof c->text)) == NULL)
			return false;
		memcpy(c->text, q, sizeof c->text);
		if (!chunk_ok(L, c))
			return false;
	}
	return !r->bad;
}

static bool
get_tables(struct blob_in *r, const struct limits *L, size_t nthreads,
    struct fxt_tables *t)
{
	size_t n = blob_get_count(r, 1064), i;
	uint32_t cur;

	if (n > FXT_MAX_PROVIDERS)
		return false;
	for (i = 0; i < n; i++) {
		struct fxt_provider *p = xcalloc(1, sizeof *p);
		VEC_PUSH(&t->providers, p);
		if (!get_provider(r, L, nthreads, p))
			return false;
	}
	cur = blob_get_u32(r);
	if (r->bad || !is_opt(cur, (uint32_t)n))
		return false;
	t->cur = cur == FXT_NONE ? NULL : t->providers.items[cur];
	return true;
}

/* Event types a thread's sorted copy holds (fxt_event). */
static bool
dev_type_ok(unsigned type)
{
	return type == FXT_EV_INSTANT || type == FXT_EV_BEGIN ||
	    type == FXT_EV_END || type == FXT_EV_COMPLETE ||
	    (type >= FXT_EV_FLOW_BEGIN && type <= FXT_EV_FLOW_END);
}

/* The open slices of a thread: those of the builder's stack of its track
 * (threads never keep their own in a growing load). */
static bool
get_stack(struct blob_in *r, const struct limits *L,
    const struct fxt_thread *th, struct fxt_stack *sk)
{
	size_t n = blob_get_count(r, 24), i;

	if (n > FXT_MAX_DEPTH || (n > 0 && th->track == FXT_NONE) ||
	    (th->track != FXT_NONE &&
	    builder_stack_depth(L->b, th->track) != n))
		return false;
	if (n > 0)
		sk->stack = xreallocarray(NULL, n, sizeof *sk->stack);
	sk->stack_cap = (uint32_t)n;
	for (i = 0; i < n; i++) {
		struct fxt_frame *fr = &sk->stack[i];
		fr->start = blob_get_i64(r);
		fr->end = blob_get_i64(r);
		fr->func = blob_get_u32(r);
		fr->args = blob_get_u32(r);
		if (r->bad || !frame_times_ok(fr) || fr->func >= L->nfuncs ||
		    fr->args >= L->nargs ||
		    builder_stack_func(L->b, th->track, (uint32_t)i) !=
		    fr->func)
			return false;
		sk->depth = (uint32_t)i + 1;
	}
	return !r->bad;
}

/* A thread and its stack, pushed on x's vectors first (to be freed with
 * them). */
static bool
get_thread(struct blob_in *r, const struct limits *L, struct fxt *x)
{
	struct fxt_thread th;
	struct fxt_stack sk;
	uint32_t i = (uint32_t)x->threads.len, was;
	size_t n, k;

	memset(&th, 0, sizeof th);
	memset(&sk, 0, sizeof sk);
	VEC_PUSH(&x->threads, th);
	VEC_PUSH(&x->stacks, sk);
	struct fxt_thread *t = &x->threads.items[i];
	t->pid = blob_get_i64(r);
	t->tid = blob_get_i64(r);
	t->track = blob_get_u32(r);
	t->process = blob_get_u32(r);
	t->last_t = blob_get_i64(r);
	t->nev = blob_get_u64(r);
	t->defer = blob_get_bool(r);
	t->end_args = blob_get_bool(r);
	if (r->bad || !time_or_none(t->last_t) ||
	    !is_opt(t->track, L->ntracks) ||
	    !is_opt(t->process, L->nprocesses) ||
	    fxt_map_get(&x->thread_map, (uint64_t)t->pid, (uint64_t)t->tid,
	    &was))
		return false;
	fxt_map_put(&x->thread_map, (uint64_t)t->pid, (uint64_t)t->tid, i);
	n = blob_get_count(r, 25);
	if (n > 0) {
		t->dev.items = xreallocarray(NULL, n, sizeof *t->dev.items);
		t->dev.cap = n;
	}
	for (k = 0; k < n; k++) {
		struct fxt_dev *d = &t->dev.items[k];
		memset(d, 0, sizeof *d);
		d->t = blob_get_i64(r);
		d->x = blob_get_i64(r);
		d->func = blob_get_u32(r);
		d->args = blob_get_u32(r);
		d->type = blob_get_u8(r);
		if (r->bad || d->func >= L->nfuncs || d->args >= L->nargs ||
		    !dev_type_ok(d->type) || !dev_times_ok(d))
			return false;
		t->dev.len = k + 1;
	}
	return !r->bad && get_stack(r, L, t, &x->stacks.items[i]);
}

static bool
get_events(struct blob_in *r, const struct limits *L, struct fxt *x)
{
	size_t n, i;

	/* (the counts say how many bytes each takes at least) */
	n = blob_get_count(r, 33);
	for (i = 0; i < n; i++) {
		struct fxt_async a;
		memset(&a, 0, sizeof a);
		a.t = blob_get_i64(r);
		a.id = blob_get_u64(r);
		a.func = blob_get_u32(r);
		a.args = blob_get_u32(r);
		a.name = blob_get_u32(r);
		a.process = blob_get_u32(r);
		a.type = blob_get_u8(r);
		if (r->bad || !time_ok(a.t) || a.func >= L->nfuncs ||
		    a.args >= L->nargs ||
		    a.name >= L->nstrings || a.process >= L->nprocesses ||
		    a.type < FXT_EV_ASYNC_BEGIN || a.type > FXT_EV_ASYNC_END)
			return false;
		VEC_PUSH(&x->async, a);
	}
	n = blob_get_count(r, 46);
	for (i = 0; i < n; i++) {
		struct fxt_flowev f;
		memset(&f, 0, sizeof f);
		f.t = blob_get_i64(r);
		f.id = blob_get_u64(r);
		f.pid = blob_get_i64(r);
		f.slice_start = blob_get_i64(r);
		f.ref.track = blob_get_u32(r);
		f.ref.depth = blob_get_u32(r);
		f.ref.index = blob_get_u32(r);
		f.type = blob_get_u8(r);
		f.bound = blob_get_bool(r);
		if (r->bad || !time_ok(f.t) || !time_ok(f.slice_start) ||
		    f.type < FXT_EV_FLOW_BEGIN ||
		    f.type > FXT_EV_FLOW_END || (f.bound && !ref_ok(L, f.ref)))
			return false;
		VEC_PUSH(&x->flows, f);
	}
	n = blob_get_count(r, 44);
	for (i = 0; i < n; i++) {
		struct fxt_sched s;
		memset(&s, 0, sizeof s);
		s.t = blob_get_i64(r);
		s.out_tid = blob_get_i64(r);
		s.in_tid = blob_get_i64(r);
		s.args = blob_get_u32(r);
		s.cpu = blob_get_u32(r);
		s.in_prio = (int32_t)blob_get_u32(r);
		s.out_prio = (int32_t)blob_get_u32(r);
		s.kind = blob_get_u8(r);
		s.out_state = blob_get_u8(r);
		s.out_idle = blob_get_bool(r);
		s.in_idle = blob_get_bool(r);
		if (r->bad || !time_ok(s.t) || s.args >= L->nargs ||
		    s.kind > 2)
			return false;
		VEC_PUSH(&x->sched, s);
	}
	return !r->bad;
}

/* The state of a load that has begun (G->started), into G. */
static bool
get_started(struct blob_in *r, const struct limits *L, struct fxt_grow *G)
{
	struct fxt *x = &G->x;
	struct fxt_tables events = { 0 };
	size_t n, i;
	const void *q;
	bool ok;

	x->size = blob_get_u64(r);
	x->swap = blob_get_bool(r);
	x->scan = blob_get_bool(r);
	x->too_many_providers = blob_get_bool(r);
	x->first_tps = blob_get_u64(r);
	x->tick_base = blob_get_u64(r);
	x->last_t = blob_get_i64(r);
	x->max_t = blob_get_i64(r);
	if (blob_get_count(r, sizeof x->kinds[0]) != K_COUNT ||
	    (q = blob_take(r, sizeof x->kinds)) == NULL)
		return false;
	memcpy(x->kinds, q, sizeof x->kinds);
	x->malformed_reported = blob_get_u64(r);
	if (r->bad || x->size > L->file_size || !time_or_none(x->last_t) ||
	    !time_or_none(x->max_t))
		return false;
	n = blob_get_count(r, 58);
	for (i = 0; i < n; i++)
		if (!get_thread(r, L, x))
			return false;
	/* the event pass's tables are x's own */
	ok = get_tables(r, L, x->threads.len, &events);
	x->providers.items = events.providers.items;
	x->providers.len = events.providers.len;
	x->providers.cap = events.providers.cap;
	x->cur = events.cur;
	if (!ok || !get_tables(r, L, x->threads.len, &G->scan))
		return false;
	n = blob_get_count(r, 12);
	for (i = 0; i < n; i++) {
		struct fxt_kname k;
		k.sid = blob_get_u32(r);
		k.text = blob_get_str(r);
		if (k.text == NULL)
			return false;
		VEC_PUSH(&x->knames, k);
		if (r->bad || k.sid >= L->nstrings)
			return false;
	}
	if (!get_map(r, &x->koid_names, x->knames.len) ||
	    !get_map(r, &x->koid_type, 256))
		return false;
	n = blob_get_count(r, 12);
	for (i = 0; i < n; i++) {
		struct fxt_series s;
		s.process = blob_get_u32(r);
		s.track = blob_get_u32(r);
		s.next = blob_get_u32(r);
		/* chains go to earlier series: a walk of one ends */
		if (r->bad || s.process >= L->nprocesses ||
		    s.track >= L->ntracks || !is_opt(s.next, (uint32_t)i))
			return false;
		VEC_PUSH(&x->series, s);
	}
	return get_map(r, &x->counters, x->series.len) &&
	    get_events(r, L, x);
}

void *
fxt_grow_load(struct load_ctx *ctx, struct blob_in *r)
{
	struct fxt_grow *G;
	struct limits L;

	if (ctx->file == NULL || blob_get_u32(r) != SAVE_TAG || r->bad)
		return NULL;
	L.b = ctx->b;
	L.nstrings = builder_nstrings(ctx->b);
	L.nfuncs = builder_nfuncs(ctx->b);
	L.nprocesses = builder_nprocesses(ctx->b);
	L.ntracks = builder_ntracks(ctx->b);
	L.nargs = builder_nargs(ctx->b);
	L.file_size = ctx->file->size;
	G = xcalloc(1, sizeof *G);
	G->started = blob_get_bool(r);
	G->base_known = blob_get_bool(r);
	G->broken = blob_get_bool(r);
	G->stale = blob_get_bool(r);
	if (G->started) {
		/* as fxt_open leaves them; grow_feed sets them again */
		G->x.ctx = ctx;
		G->x.b = ctx->b;
		G->x.data = ctx->file->data;
		G->x.kernel_process = FXT_NONE;
		if (!get_started(r, &L, G))
			goto bad;
	} else if (G->base_known || G->broken || G->stale)
		goto bad;
	if (blob_get_u32(r) != SAVE_END || r->bad)
		goto bad;
	return G;
bad:
	fxt_grow_free(G);
	return NULL;
}
