/*
 * The CTF reader (1.8 and 2): LTTng (user space and kernel) and barectf
 * traces, from a directory holding one or many traces, or a metadata file.
 *
 * The rest of formats/ctf/ does the format (ctf.am lists its parts: the
 * front ends of the metadata, its resolved types, the decoding of
 * streams, the merged walk, LTTng's function traces); this file turns
 * the merged events into the model:
 * - lttng_ust_cyg_profile(_fast) func_entry/func_exit become slices on the
 *   thread (vtid) track, named from the traced binary (lttng/ctf_lttng.c);
 *   when all of them are read raw, the decoding threads keep them apart
 *   per stream and thread and they are built after the walk
 *   (lttng/ctf_calls.h);
 * - sched_switch becomes slices on CPU tracks, named after the thread;
 * - every other event is an instant on its thread (vtid), else its CPU
 *   (packet context cpu_id), else its stream, with all its fields as args
 *   ("a.b" for struct members, "a[0]" for elements);
 * - packet starts are MARKER_PACKET, discarded events, lost packets and
 *   damaged bytes skipped MARKER_DROPPED at the packet where the loss was
 *   counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "env.h"
#include "reader.h"
#include "stream/ctf_fast.h"
#include "ctf_merge.h"
#include "ctf_metadata.h"
#include "lttng/ctf_calls.h"
#include "lttng/ctf_keys.h"
#include "lttng/ctf_lttng.h"
#include "ctf_loader.h"

static int
ctf_probe(const char *path, const unsigned char *head, size_t len,
    bool is_dir)
{
	if (is_dir)
		/* a trace directory, or any directory with traces below */
		return ctf_dir_has_trace(path) ? 90 : 0;
	if (head == NULL)
		return 0;
	return ctf_metadata_probe(head, len) ? 90 : 0;
}

static void
on_diag(void *arg, bool error, const char *file, int64_t off, const char *msg)
{
	struct loader *L = arg;
	enum diag_level lv = error ? DIAG_ERROR : DIAG_WARNING;
	if (error && L->ctx->opts != NULL && L->ctx->opts->strict)
		L->stop = true;
	if (off >= 0)
		builder_note(L->b, lv, "%s: offset %lld: %s", file,
		    (long long)off, msg);
	else
		builder_note(L->b, lv, "%s: %s", file, msg);
}

/* A top-level integer field of a fixed struct, by its displayed name. */
static bool
raw_find(const struct ctf_type *t, int scope, const char *name,
    struct ctf_pick *out)
{
	if (t == NULL || !t->fixed)
		return false;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct ctf_flat_op *op = &t->ops[i];
		if (strcmp(t->fields[i].display, name) != 0)
			continue;
		if (op->t->kind != CTF_INT && op->t->kind != CTF_ENUM)
			return false;
		*out = (struct ctf_pick){ (uint8_t)scope, (uint8_t)op->size,
		    op->be, op->is_signed, op->off };
		return true;
	}
	return false;
}

/* A context field as ctx_cached finds it: the stream's event context
 * first, then the event's. */
static bool
raw_ctx(const struct ctf_stream_class *sc, const struct ctf_event_class *ec,
    const char *name, struct ctf_pick *out)
{
	return raw_find(sc->event_context, 1, name, out) ||
	    raw_find(ec->context, 2, name, out);
}

/* The trace's `vpid` from its env (the last integer entry of the name),
 * found once per trace and not once per event class: an env may be as
 * long as the classes are many. */
struct env_vpid {
	uint64_t v;
	bool has;
};

static struct env_vpid
env_vpid(const struct ctf_meta *m)
{
	struct env_vpid r = { 0, false };
	for (size_t i = 0; i < m->nenv; i++)
		if (!strcmp(m->env[i].key, "vpid") && m->env[i].str == NULL) {
			r.v = (uint64_t)m->env[i].i;
			r.has = true;
		}
	return r;
}

/* Marks a cyg-profile event class raw when its scopes are all fixed and
 * its thread and address are found in them as the generic path would. */
static void
raw_plan(struct ev_info *in, struct env_vpid ev,
    const struct ctf_stream_class *sc, struct ctf_event_class *ec)
{
	struct raw_plan *p = &in->raw;
	struct ctf_pick pick[CTF_PICK_MAX] = { { 0 } };
	const struct ctf_type *ts[3] = { sc->event_context, ec->context,
	    ec->fields };
	/* a payload size to check (the 2010 RFC's event_size) wants the
	 * general path */
	if (sc->payload_size)
		return;
	for (int k = 0; k < 3; k++)
		if (!ctf_type_raw(ts[k]))
			return;
	/* the generic path takes the first field of that name */
	if (ec->fields != NULL &&
	    !raw_find(ec->fields, 3, "addr", &pick[PICK_ADDR])) {
		for (size_t i = 0; i < ec->fields->nfields; i++)
			if (!strcmp(ec->fields->fields[i].display, "addr"))
				return;
	}
	p->has_addr = pick[PICK_ADDR].scope != 0;
	if (in->kind == EV_ENTRY && !p->has_addr)
		return;
	if (!raw_ctx(sc, ec, "vtid", &pick[PICK_VTID]) &&
	    !raw_ctx(sc, ec, "tid", &pick[PICK_VTID]))
		return;
	p->has_vpid = raw_ctx(sc, ec, "vpid", &pick[PICK_VPID]) ||
	    raw_ctx(sc, ec, "pid", &pick[PICK_VPID]);
	if (!p->has_vpid) {
		p->vpid_env = ev.v;
		p->has_vpid_env = ev.has;
	}
	p->call = in->kind == EV_ENTRY ? CALL_ENTRY : p->has_addr ?
	    CALL_EXIT : CALL_EXIT_ANY;
	memcpy(ec->pick, pick, sizeof pick);
	ec->raw = true;
}

static enum ev_kind
event_kind(const char *n)
{
	if (!strcmp(n, "lttng_ust_cyg_profile:func_entry") ||
	    !strcmp(n, "lttng_ust_cyg_profile_fast:func_entry"))
		return EV_ENTRY;
	if (!strcmp(n, "lttng_ust_cyg_profile:func_exit") ||
	    !strcmp(n, "lttng_ust_cyg_profile_fast:func_exit"))
		return EV_EXIT;
	if (!strcmp(n, "sched_switch"))
		return EV_SCHED_SWITCH;
	if (!strcmp(n, "lttng_ust_statedump:bin_info") ||
	    !strcmp(n, "lttng_ust_dl:dlopen") ||
	    !strcmp(n, "lttng_ust_dl:dlmopen") ||
	    !strcmp(n, "lttng_ust_lib:load"))
		return EV_BIN_INFO;
	return EV_PLAIN;
}

/* What each event class means to the model, and which are read raw:
 * decided before decoding starts, as the classes are shared with the
 * threads that decode ahead. */
static void
plan_classes(struct loader *L)
{
	for (size_t ti = 0; ti < ctf_reader_ntraces(L->r); ti++) {
		const struct ctf_meta *m = ctf_reader_trace(L->r, ti)->m;
		struct env_vpid ev = env_vpid(m);
		for (size_t si = 0; si < m->nstreams; si++) {
			const struct ctf_stream_class *sc = m->streams[si];
			for (size_t ei = 0; ei < sc->nevents; ei++) {
				struct ctf_event_class *ec = sc->events[ei];
				if (ec->user != NULL)
					continue;
				struct ev_info *in = xcalloc(1, sizeof *in);
				in->name = ec->name;
				in->kind = event_kind(ec->name);
				if (in->kind == EV_ENTRY || in->kind == EV_EXIT)
					raw_plan(in, ev, sc, ec);
				ec->user = in;
				in->index = L->infos.len;
				VEC_PUSH(&L->infos, in);
			}
		}
	}
}

static inline struct ev_info *
info_of(struct loader *L, const struct ctf_item *it)
{
	const struct ctf_event_class *ec = it->ev;
	struct ev_info *in = ec->user;
	if (!in->has_func) {
		in->func = builder_func(L->b, builder_intern_cstr(L->b,
		    ec->name), 0, (int64_t)ec->id);
		in->has_func = true;
	}
	return in;
}

/* A top-level field of a scope by its displayed name. */
static const struct ctf_val *
field(const struct ctf_item *it, int scope, const char *name)
{
	if (it->is_raw)
		return NULL;
	int r = it->u.v.scope_root[scope];
	if (r < 0)
		return NULL;
	const struct ctf_val *vals = it->u.v.vals;
	uint32_t end = vals[r].end;
	for (uint32_t i = (uint32_t)r + 1; i < end;) {
		const struct ctf_val *v = &vals[i];
		if (v->field != NULL && !strcmp(v->field->display, name))
			return v;
		i = v->end > i ? v->end : i + 1;
	}
	return NULL;
}

static const struct ctf_val *
field_cached(const struct ctf_item *it, int scope, const char *name,
    struct fcache *c)
{
	if (it->is_raw)
		return NULL;
	int r = it->u.v.scope_root[scope];
	if (r < 0)
		return NULL;
	const struct ctf_val *vals = it->u.v.vals;
	const struct ctf_val *root = &vals[r];
	if (c->type == root->type) {
		if (c->f == NULL)
			return NULL;
		uint32_t i = (uint32_t)r + c->off;
		if (i < root->end && vals[i].field == c->f)
			return &vals[i];
	}
	const struct ctf_val *v = field(it, scope, name);
	c->type = root->type;
	c->f = v ? v->field : NULL;
	c->off = v ? (uint32_t)(v - root) : 0;
	return v;
}

static const struct ctf_val *
ctx_field(const struct ctf_item *it, const char *name)
{
	const struct ctf_val *v = field(it, 1, name);
	return v ? v : field(it, 2, name);
}

/* A context field, from the stream's event context or the event's. */
static const struct ctf_val *
ctx_cached(const struct ctf_item *it, const char *name, struct fcache c[2])
{
	const struct ctf_val *v = field_cached(it, 1, name, &c[0]);
	return v ? v : field_cached(it, 2, name, &c[1]);
}

static bool
int_of(const struct ctf_val *v, uint64_t *out)
{
	if (v == NULL || (v->type->kind != CTF_INT &&
	    v->type->kind != CTF_ENUM) || v->is_text)
		return false;
	*out = v->v.u;
	return true;
}

static void
name_track(struct loader *L, uint32_t track, const struct ctf_item *it,
    uint32_t proc, bool is_main)
{
	while (L->named.len <= track)
		VEC_PUSH(&L->named, 0);
	if (L->named.items[track])
		return;
	L->named.items[track] = 1;
	const struct ctf_val *pn = ctx_field(it, "procname");
	if (pn == NULL || !pn->is_text)
		return;
	str_id n = builder_intern(L->b, pn->str, pn->len);
	builder_track_name(L->b, track, n);
	if (is_main)
		builder_process_name(L->b, proc, n);
}

static uint32_t
kernel_proc(struct loader *L, const struct ctf_stream *s)
{
	/* CPUs and streams without threads go under one pseudo-process,
	 * named after the trace's domain (LTTng: "kernel") or host */
	if (!L->has_kernel_proc) {
		const struct ctf_meta *m = s->trace->m;
		const char *name = ctf_env_str(m, "domain");
		if (name == NULL)
			name = ctf_env_str(m, "hostname");
		if (name == NULL)
			name = "trace";
		L->kernel_proc = builder_process(L->b, -1);
		builder_process_name(L->b, L->kernel_proc,
		    builder_intern_cstr(L->b, name));
		L->has_kernel_proc = true;
	}
	return L->kernel_proc;
}

/* The track of thread (vpid, vtid), named after the procname of event
 * it (NULL for raw events, which have none: the thread's first generic
 * event names it). */
static uint32_t
thread_track(struct loader *L, uint64_t vpid, uint64_t vtid,
    const struct ctf_item *it)
{
	struct thread_cache *lt =
	    &L->tcache[(vtid ^ (vtid >> 8) ^ (vpid * 31)) & 255];
	if (!lt->valid || lt->vtid != vtid || lt->vpid != vpid) {
		uint32_t proc = builder_process(L->b, (int64_t)vpid);
		*lt = (struct thread_cache){ true, false, vtid, vpid,
		    builder_track(L->b, TRACK_THREAD, proc, (int64_t)vtid) };
	}
	if (it != NULL && !lt->named) {
		name_track(L, lt->track, it,
		    builder_process(L->b, (int64_t)vpid), vtid == vpid);
		lt->named = true;
	}
	return lt->track;
}

/* The track of an event: its thread, else its CPU, else its stream. */
static uint32_t
track_of(struct loader *L, const struct ctf_item *it, int64_t *vpid_out)
{
	const struct ctf_stream *s = it->s;
	uint64_t vtid, vpid;
	const struct ctf_val *tv = ctx_cached(it, "vtid", L->c_vtid);
	if (tv == NULL)
		tv = ctx_cached(it, "tid", L->c_tid);
	*vpid_out = -1;
	if (int_of(tv, &vtid)) {
		const struct ctf_val *pv = ctx_cached(it, "vpid", L->c_vpid);
		if (pv == NULL)
			pv = ctx_cached(it, "pid", L->c_pid);
		if (!int_of(pv, &vpid)) {
			/* per-process buffers say it in the env */
			vpid = vtid;
			const struct ctf_meta *m = s->trace->m;
			for (size_t i = 0; i < m->nenv; i++)
				if (!strcmp(m->env[i].key, "vpid") &&
				    m->env[i].str == NULL)
					vpid = (uint64_t)m->env[i].i;
		}
		*vpid_out = (int64_t)vpid;
		return thread_track(L, vpid, vtid, it);
	}
	if (it->pkt->has_cpu_id)
		return builder_track(L->b, TRACK_CPU, kernel_proc(L, s),
		    (int64_t)it->pkt->cpu_id);
	size_t i = (size_t)s->index;
	while (L->stream_track.len <= i)
		VEC_PUSH(&L->stream_track, 0);
	if (L->stream_track.items[i] == 0) {
		uint32_t t = builder_track(L->b, TRACK_THREAD, kernel_proc(L, s),
		    (int64_t)i);
		builder_track_name(L->b, t, builder_intern_cstr(L->b, s->path));
		L->stream_track.items[i] = t + 1;
	}
	return L->stream_track.items[i] - 1;
}

/* --- args --- */

static void add_args(struct loader *L, const struct ctf_val *vals,
    uint32_t i, size_t nlen);

static void
add_leaf(struct loader *L, const struct ctf_val *v)
{
	struct builder *b = L->b;
	str_id name = builder_intern(b, L->name, strlen(L->name));
	if (v->is_text) {
		builder_arg_str(b, name, builder_intern(b, v->str, v->len));
		return;
	}
	const struct ctf_type *t = v->type;
	switch (t->kind) {
	case CTF_INT:
		if (t->is_bool)
			builder_arg_str(b, name, builder_intern_cstr(b,
			    v->v.u ? "true" : "false"));
		else if (t->size > 64) {
			/* wider than any arg: its digits */
			char buf[CTF_BIGINT_TEXT];
			size_t n = ctf_bigint_text(t, (const uint8_t *)v->str,
			    buf, sizeof buf);
			builder_arg_str(b, name, builder_intern(b, buf, n));
		} else if (t->base == 16)
			builder_arg(b, name, ARG_PTR, v->v.u);
		else if (t->is_signed)
			builder_arg_i64(b, name, v->v.i);
		else
			builder_arg_u64(b, name, v->v.u);
		break;
	case CTF_ENUM: {
		const char *lab = ctf_enum_label(t, v->v.u, NULL);
		if (lab != NULL)
			builder_arg_str(b, name, builder_intern_cstr(b, lab));
		else if (t->is_signed)
			builder_arg_i64(b, name, v->v.i);
		else
			builder_arg_u64(b, name, v->v.u);
		break;
	}
	case CTF_FLOAT:
		builder_arg_f64(b, name, v->v.f);
		break;
	default:
		break;
	}
}

/* Adds the value at i under the name in L->name[0..nlen). */
static void
add_args(struct loader *L, const struct ctf_val *vals, uint32_t i, size_t nlen)
{
	const struct ctf_val *v = &vals[i];
	if (v->is_text || v->type->kind == CTF_INT ||
	    v->type->kind == CTF_ENUM || v->type->kind == CTF_FLOAT ||
	    v->type->kind == CTF_STRING) {
		add_leaf(L, v);
		return;
	}
	for (uint32_t j = i + 1; j < v->end;) {
		const struct ctf_val *c = &vals[j];
		int n;
		if (v->type->kind == CTF_STRUCT)
			n = snprintf(L->name + nlen, sizeof L->name - nlen, "%s%s",
			    nlen ? "." : "", c->field->display);
		else if (v->type->kind == CTF_VARIANT)
			n = 0;
		else
			n = snprintf(L->name + nlen, sizeof L->name - nlen,
			    "[%u]", c->index);
		if (n < 0 || (size_t)n >= sizeof L->name - nlen)
			n = 0;
		add_args(L, vals, j, nlen + (size_t)n);
		L->name[nlen] = '\0';
		j = c->end > j ? c->end : j + 1;
	}
}

static args_id
event_args(struct loader *L, const struct ctf_item *it)
{
	builder_args_begin(L->b);
	const int32_t *root = it->u.v.scope_root;
	if (root[3] >= 0) {
		L->name[0] = '\0';
		add_args(L, it->u.v.vals, (uint32_t)root[3], 0);
	}
	for (int k = 1; k <= 2; k++)
		if (root[k] >= 0) {
			strcpy(L->name, "context");
			add_args(L, it->u.v.vals, (uint32_t)root[k], 7);
		}
	if (it->pkt->has_cpu_id)
		builder_arg_u64(L->b, L->s_cpu, it->pkt->cpu_id);
	return builder_args_end(L->b);
}

/* --- events --- */

static void
sched_switch(struct loader *L, const struct ctf_item *it, ttv_ns t)
{
	const struct ctf_packet_info *pk = it->pkt;
	if (!pk->has_cpu_id || pk->cpu_id > 65536)
		return;
	while (L->cpus.len <= pk->cpu_id)
		VEC_PUSH(&L->cpus, ((struct cpu_state){ 0 }));
	struct cpu_state *c = &L->cpus.items[pk->cpu_id];
	uint32_t track = builder_track(L->b, TRACK_CPU, kernel_proc(L, it->s),
	    (int64_t)pk->cpu_id);
	if (c->running && t >= c->since)
		builder_slice(L->b, track, 0, c->since, t - c->since, c->func,
		    0, 0);
	c->running = false;
	uint64_t tid;
	const struct ctf_val *comm = field(it, 3, "next_comm");
	if (!int_of(field(it, 3, "next_tid"), &tid) || tid == 0)
		return;
	char buf[64];
	str_id n = comm && comm->is_text ? builder_intern(L->b, comm->str,
	    comm->len) : (snprintf(buf, sizeof buf, "tid %llu",
	    (unsigned long long)tid), builder_intern_cstr(L->b, buf));
	c->func = builder_func(L->b, n, builder_intern_cstr(L->b, "thread"),
	    (int64_t)tid);
	c->running = true;
	c->since = t;
}

static void
bin_info(struct loader *L, const struct ctf_item *it, int64_t vpid)
{
	uint64_t baddr, memsz = 0, pic = 1;
	const struct ctf_val *path = field(it, 3, "path");
	if (!int_of(field(it, 3, "baddr"), &baddr) || path == NULL ||
	    !path->is_text)
		return;
	int_of(field(it, 3, "memsz"), &memsz);
	int_of(field(it, 3, "is_pic"), &pic);
	if (memsz == 0)
		return;
	ctf_lttng_bin(L->lt, vpid, baddr, memsz, path->str, path->len,
	    pic != 0);
}

/* Remembers that a stream carried a thread's calls (for resync). */
static void
note_seen_slow(struct loader *L, size_t i, uint32_t track)
{
	if (i >= L->nseen) {
		size_t n = i + 16 > 2 * L->nseen ? i + 16 : 2 * L->nseen;
		L->seen = xreallocarray(L->seen, n, sizeof *L->seen);
		memset(L->seen + L->nseen, 0, (n - L->nseen) * sizeof *L->seen);
		L->nseen = n;
	}
	struct seen *sn = &L->seen[i];
	if (!ctf_ids_add(&sn->has, track))
		return;
	if (sn->n == sn->cap) {
		sn->cap = sn->cap ? sn->cap * 2 : 8;
		sn->t = xreallocarray(sn->t, sn->cap, sizeof *sn->t);
	}
	sn->t[sn->n++] = track;
}

static inline void
note_seen(struct loader *L, const struct ctf_stream *s, uint32_t track)
{
	size_t i = (size_t)s->index;
	/* nearly always a track the stream has carried already */
	if (i < L->nseen && ctf_ids_has(&L->seen[i].has, track))
		return;
	note_seen_slow(L, i, track);
}

/* Events of a stream were lost at t: the -fast cyg-profile exits carry
 * no address, so the stacks of its threads cannot be matched across the
 * gap; their open frames end here, flagged truncated. (With addresses,
 * builder_pop_func matches exits to entries and resynchronises.) */
static void
resync(struct loader *L, const struct ctf_stream *s, ttv_ns t)
{
	/* calls kept apart are ended by the calls' own record of the loss
	 * (ctf_calls_resync), in their order */
	if (L->calls != NULL || (size_t)s->index >= L->nseen)
		return;
	struct seen *sn = &L->seen[s->index];
	for (size_t k = 0; k < sn->n; k++) {
		uint32_t tr = sn->t[k];
		if (tr >= L->no_addr.len || !L->no_addr.items[tr])
			continue;
		while (builder_stack_depth(L->b, tr) > 0 &&
		    builder_pop(L->b, tr, t, SLICE_TRUNCATED))
			;
	}
}

/* A stream's threads met last, with their keys and runs: most events
 * find their run here, without looking up their thread's key. */
#define RUN_CACHE 64
struct run_slot {
	uint64_t vtid, vpid;
	size_t si;
	uint32_t tkey;
	struct ctf_run *run;	/* NULL: empty */
};

/* What a raw event kept apart still brings to the walk (ctf_item.mark). */
enum { MARK_CLASS = 1, MARK_THREAD = 2, MARK_FUNC = 4 };

/* A decoding thread's caches in front of the loader's key tables, its
 * streams' threads met last (by stream and thread), the (stream,
 * function key) pairs it knows a stream has carried (+ 1), and its row
 * of counts of events taken (by class; NULL until its first). */
#define FSEEN_CACHE_BITS 10
struct raw_scratch {
	struct ctf_key_cache threads, funcs;
	struct run_slot runs[RUN_CACHE];
	uint64_t fseen[1u << FSEEN_CACHE_BITS];
	uint64_t *taken;
};

/* What raw events of one stream are given to, on the thread decoding
 * it: the loader's tables and that stream's rows of them. */
struct raw_ctx {
	struct loader *L;
	struct raw_scratch *rs;
	size_t si;
	struct ctf_calls *calls;	/* NULL: calls go through the walk */
	uint64_t *taken;	/* the thread's row */
	struct fseen *fs;	/* &L->fseen[si] */
};

/* The decoding thread's row of counts, made at its first event. */
static uint64_t *
taken_row(struct loader *L, struct raw_scratch *rs)
{
	if (rs->taken == NULL) {
		/* before keep_until, then from it on */
		rs->taken = xcalloc(2 * (L->infos.len + 1),
		    sizeof *rs->taken);
		pthread_mutex_lock(&L->taken_lock);
		VEC_PUSH(&L->taken_rows, rs->taken);
		pthread_mutex_unlock(&L->taken_lock);
	}
	return rs->taken;
}

static inline struct raw_ctx
raw_ctx_of(struct loader *L, struct raw_scratch *rs, size_t si)
{
	struct raw_ctx c = { L, rs, si, L->calls, NULL, NULL };
	if (L->calls != NULL) {
		c.taken = taken_row(L, rs);
		c.fs = &L->fseen[si];
	}
	return c;
}

/* One raw event: keys for its thread and function; kept apart (true)
 * when the calls are. */
static inline __attribute__((always_inline)) bool
raw_event(const struct raw_ctx *c, struct ctf_item *it)
{
	struct loader *L = c->L;
	struct raw_scratch *rs = c->rs;
	const struct ev_info *in = it->ev->user;
	const struct raw_plan *p = &in->raw;
	uint64_t vtid = it->u.picked[PICK_VTID], vpid;
	if (p->has_vpid)
		vpid = it->u.picked[PICK_VPID];
	else
		vpid = p->has_vpid_env ? p->vpid_env : vtid;
	uint64_t addr = it->u.picked[PICK_ADDR];
	uint32_t fkey = p->has_addr ? ctf_keys_cached(&L->func_keys,
	    &rs->funcs, vpid, addr) : 0;
	it->u.picked[1] = fkey;
	if (c->calls == NULL) {
		it->u.picked[0] = ctf_keys_cached(&L->thread_keys,
		    &rs->threads, vpid, vtid);
		return false;
	}
	c->taken[in->index + (it->ns >= L->keep_until ?
	    L->infos.len + 1 : 0)]++;
	it->mark = 0;
	uint32_t ci = (uint32_t)in->index + 1;
	struct fseen *fs = c->fs;
	if (fs->recent[0] != ci && fs->recent[1] != ci) {
		if (ctf_ids_add(&fs->classes, ci - 1))
			it->mark = MARK_CLASS;
		fs->recent[1] = fs->recent[0];
		fs->recent[0] = ci;
	}
	struct run_slot *rc = &rs->runs[(vtid ^ (vtid >> 6) ^ vpid ^
	    c->si * 7) & (RUN_CACHE - 1)];
	if (rc->run == NULL || rc->vtid != vtid || rc->vpid != vpid ||
	    rc->si != c->si) {
		bool first;
		uint32_t tkey = ctf_keys_cached(&L->thread_keys, &rs->threads,
		    vpid, vtid);
		rc->run = ctf_calls_run(c->calls, c->si, tkey, &first);
		rc->vtid = vtid;
		rc->vpid = vpid;
		rc->si = c->si;
		rc->tkey = tkey;
		if (first)
			it->mark |= MARK_THREAD;
	}
	it->u.picked[0] = rc->tkey;
	ctf_run_add(rc->run, it->ns, p->call, fkey);
	if (p->has_addr) {
		uint64_t k = ((uint64_t)c->si << 32 | fkey) + 1;
		uint64_t *seen = &rs->fseen[((fkey ^ (uint32_t)c->si * 7) *
		    0x9E3779B1u) >> (32 - FSEEN_CACHE_BITS)];
		if (*seen != k) {
			if (ctf_ids_add(&fs->funcs, fkey))
				it->mark |= MARK_FUNC;
			*seen = k;
		}
	}
	/* a thread's, function's or class's first call in a stream still
	 * goes through the walk, to make its track or function where a walk
	 * with every call would: the model's order does not change */
	return it->mark == 0;
}

/* On the thread that decoded them (ctf_raw_hook): raw cyg-profile
 * events get keys for their thread and function, and are kept apart
 * when the calls are; a packet that lost events tells the calls. */
static size_t
raw_hook(void *arg, void *scratch, struct ctf_item *items, size_t n)
{
	struct loader *L = arg;
	struct raw_scratch *rs = scratch;
	if (n == 0) {
		/* a batch done: its calls may be built on other threads */
		if (L->calls != NULL)
			ctf_calls_fence();
		return 0;
	}
	size_t si = (size_t)items[0].s->index;
	if (items[0].kind == CTF_ITEM_PACKET) {
		if (L->calls != NULL && (items[0].pkt->discarded ||
		    items[0].pkt->lost_packets))
			ctf_calls_resync(L->calls, si, items[0].ns);
		return n;
	}
	size_t kept = 0;
	const struct raw_ctx c = raw_ctx_of(L, rs, si);
	for (size_t i = 0; i < n; i++)
		if (!raw_event(&c, &items[i])) {
			if (kept != i)
				items[kept] = items[i];
			kept++;
		}
	return kept;
}

/* Raw events a run decodes on a stream, each through raw_event in the
 * decoding loop itself (ctf_fast.h): most are taken, and never become
 * items. */
static inline bool
raw_step(void *arg, struct ctf_item *it)
{
	return !raw_event(arg, it);
}

/* Events a run may decode before the batch being filled looks at its
 * bounds again. */
#define RAW_RUN_BUDGET 1024

static size_t
raw_run(void *arg, void *scratch, struct ctf_stream *s,
    const struct ctf_packet_info *pkt, struct ctf_item *out, size_t max,
    size_t *decoded)
{
	struct raw_ctx c = raw_ctx_of(arg, scratch, (size_t)s->index);
	return ctf_run_raw_each(s, pkt, out, max, RAW_RUN_BUDGET, decoded,
	    raw_step, &c);
}

/* Where a key's model id is kept. */
static inline uint32_t *
key_slot(struct key_map *m, uint32_t key)
{
	if (key >= m->len) {
		size_t n = key + 64 > 2 * m->len ? key + 64 : 2 * m->len;
		m->items = xreallocarray(m->items, n, sizeof *m->items);
		memset(m->items + m->len, 0, (n - m->len) * sizeof *m->items);
		m->len = n;
	}
	return &m->items[key];
}

/* The thread track of a thread key. */
static inline uint32_t
key_track(struct loader *L, uint32_t key)
{
	uint32_t *slot = key_slot(&L->key_track, key);
	if (*slot != 0)
		return *slot - 1;
	uint64_t vpid, vtid;
	ctf_keys_pair(&L->thread_keys, key, &vpid, &vtid);
	uint32_t t = thread_track(L, vpid, vtid, NULL);
	*key_slot(&L->key_track, key) = t + 1;
	return t;
}

static inline func_id
key_func(struct loader *L, uint32_t key)
{
	uint32_t *slot = key_slot(&L->key_func, key);
	if (*slot != 0)
		return *slot - 1;
	uint64_t vpid, addr;
	ctf_keys_pair(&L->func_keys, key, &vpid, &addr);
	func_id f = ctf_lttng_func(L->lt, L->b, (int64_t)vpid, addr);
	*key_slot(&L->key_func, key) = f + 1;
	return f;
}

/* A func_exit: matched to its entry by address, else the innermost. */
static void
call_exit(struct loader *L, uint32_t track, ttv_ns t, bool has_addr,
    func_id f)
{
	if (has_addr) {
		if (builder_pop_func(L->b, track, t, f, 0) == POP_NOT_FOUND &&
		    builder_stack_depth(L->b, track) == 0)
			builder_pop_orphan(L->b, track, t, f, 0);
	} else {
		while (L->no_addr.len <= track)
			VEC_PUSH(&L->no_addr, 0);
		L->no_addr.items[track] = 1;
		builder_pop(L->b, track, t, 0);
	}
}

/* The model's time of an item: from the first item with a time (the
 * trace's origin), or its place among events without a clock. */
static ttv_ns
item_time(struct loader *L, const struct ctf_item *it)
{
	if (!it->has_ts)
		return (ttv_ns)L->seq;
	if (!L->have_origin) {
		L->origin = it->ns;
		L->have_origin = true;
	}
	return (ttv_ns)((uint64_t)it->ns - (uint64_t)L->origin);
}

static void
on_event(struct loader *L, const struct ctf_item *it)
{
	const struct ctf_stream *s = it->s;
	if (it->is_raw && it->mark != 0) {
		/* a call kept apart, shown only for what it makes first,
		 * in the order on_event would make them */
		if (it->mark & MARK_CLASS)
			info_of(L, it);
		if (it->mark & MARK_THREAD)
			key_track(L, (uint32_t)it->u.picked[0]);
		if (it->mark & MARK_FUNC)
			key_func(L, (uint32_t)it->u.picked[1]);
		return;
	}
	struct ev_info *in = info_of(L, it);
	in->count++;
	L->nevents++;
	ttv_ns t = item_time(L, it);
	if (!it->has_ts)
		L->seq++;
	int64_t vpid;
	if (it->is_raw) {
		/* the common cyg-profile layouts: keys made by the decoding
		 * thread (raw_hook), no values */
		uint32_t track = key_track(L, (uint32_t)it->u.picked[0]);
		note_seen(L, s, track);
		if (in->kind == EV_ENTRY)
			builder_push(L->b, track, t,
			    key_func(L, (uint32_t)it->u.picked[1]));
		else
			call_exit(L, track, t, in->raw.has_addr,
			    in->raw.has_addr ?
			    key_func(L, (uint32_t)it->u.picked[1]) : 0);
		return;
	}
	uint32_t track = track_of(L, it, &vpid);
	uint64_t addr;
	if (in->kind == EV_ENTRY || in->kind == EV_EXIT)
		note_seen(L, s, track);
	switch (in->kind) {
	case EV_ENTRY:
		if (!int_of(field_cached(it, 3, "addr", &in->addr), &addr))
			break;
		builder_push(L->b, track, t,
		    ctf_lttng_func(L->lt, L->b, vpid, addr));
		return;
	case EV_EXIT: {
		bool has = int_of(field_cached(it, 3, "addr", &in->addr), &addr);
		call_exit(L, track, t, has, has ? ctf_lttng_func(L->lt, L->b,
		    vpid, addr) : 0);
		return;
	}
	case EV_SCHED_SWITCH:
		sched_switch(L, it, t);
		break;
	case EV_BIN_INFO:
		bin_info(L, it, vpid);
		break;
	case EV_PLAIN:
		break;
	}
	builder_instant(L->b, track, t, in->func, event_args(L, it));
}

static void
on_packet(struct loader *L, const struct ctf_item *it)
{
	const struct ctf_stream *s = it->s;
	L->npackets++;
	ttv_ns t = item_time(L, it);
	size_t i = (size_t)s->index;
	while (L->stream_text.len <= i)
		VEC_PUSH(&L->stream_text, 0);
	if (L->stream_text.items[i] == 0)
		L->stream_text.items[i] = builder_intern_cstr(L->b, s->path);
	/* a packet of a per-CPU buffer holds many threads: no one track */
	uint32_t track = UINT32_MAX;
	const struct ctf_packet_info *pk = it->pkt;
	builder_marker(L->b, MARKER_PACKET, track, t, (int64_t)pk->off,
	    L->stream_text.items[i]);
	char buf[512];
	if (pk->discarded || pk->lost_packets || pk->skipped_bytes)
		resync(L, s, t);
	if (pk->discarded) {
		L->ndiscarded += pk->discarded;
		snprintf(buf, sizeof buf, "%llu events discarded in %s",
		    (unsigned long long)pk->discarded, s->path);
		builder_marker(L->b, MARKER_DROPPED, track, t,
		    (int64_t)pk->discarded, builder_intern_cstr(L->b, buf));
	}
	if (pk->lost_packets) {
		L->nlost += pk->lost_packets;
		snprintf(buf, sizeof buf, "%llu packets lost in %s",
		    (unsigned long long)pk->lost_packets, s->path);
		builder_marker(L->b, MARKER_DROPPED, track, t,
		    (int64_t)pk->lost_packets, builder_intern_cstr(L->b, buf));
	}
	if (pk->skipped_bytes) {
		/* damage the walk skipped to reach this packet: what was
		 * there is lost, the rest of the stream is not */
		L->nskipped += pk->skipped_bytes;
		snprintf(buf, sizeof buf, "%llu damaged bytes skipped in %s "
		    "(offsets %llu to %llu)",
		    (unsigned long long)pk->skipped_bytes, s->path,
		    (unsigned long long)pk->skipped_off,
		    (unsigned long long)(pk->skipped_off + pk->skipped_bytes));
		builder_marker(L->b, MARKER_DROPPED, track, t,
		    (int64_t)pk->skipped_bytes, builder_intern_cstr(L->b, buf));
	}
}

static void
describe(struct loader *L)
{
	struct builder *b = L->b;
	const struct ctf_meta *m = ctf_reader_trace(L->r, 0)->m;
	/* CTF 1.8 (TSDL) or 2 (JSON), or both among several traces */
	bool v1 = false, v2 = false;
	for (size_t i = 0; i < ctf_reader_ntraces(L->r); i++) {
		if (ctf_reader_trace(L->r, i)->m->major == 2)
			v2 = true;
		else
			v1 = true;
	}
	builder_set_format(b, "ctf", v1 && v2 ? "1.8 and 2" : v2 ? "2" : "1.8",
	    m->byte_order == CTF_BO_BE ? "big-endian" : "little-endian");
	char buf[64];
	snprintf(buf, sizeof buf, "%zu", ctf_reader_ntraces(L->r));
	builder_meta(b, "traces", buf);
	bool absolute = false;
	for (size_t ti = 0; ti < ctf_reader_ntraces(L->r); ti++) {
		const struct ctf_trace *tr = ctf_reader_trace(L->r, ti);
		char key[300];
		snprintf(key, sizeof key, "trace %zu", ti);
		builder_meta(b, key, tr->dir[0] ? tr->dir : ".");
		for (size_t i = 0; i < tr->m->nenv; i++) {
			const struct ctf_env *e = &tr->m->env[i];
			char val[64];
			snprintf(key, sizeof key, "trace %zu env.%s", ti, e->key);
			if (e->str == NULL)
				snprintf(val, sizeof val, "%lld", (long long)e->i);
			builder_meta(b, key, e->str ? e->str : val);
		}
		for (size_t i = 0; i < tr->m->nclocks; i++) {
			const struct ctf_clock *c = &tr->m->clocks[i];
			char val[160];
			snprintf(key, sizeof key, "trace %zu clock.%s", ti, c->name);
			snprintf(val, sizeof val, "freq %llu Hz, offset %llds + "
			    "%lld cycles", (unsigned long long)c->freq,
			    (long long)c->offset_s, (long long)c->offset);
			builder_meta(b, key, val);
			if (c->offset_s != 0 || c->offset != 0)
				absolute = true;
			if (ti == 0 && i == 0)
				builder_set_tick_rate(b, (double)c->freq);
		}
	}
	(void)absolute;
}

/* Can the calls be kept apart from the walk and built after it? When
 * every cyg-profile class is read raw (nothing of theirs goes through
 * the walk) and every packet says when it starts (the walk's first item,
 * whose time is the model's origin, comes before any call). Tests set
 * TTV_CTF_CALLS=walk to have them built in the walk, the reference. */
static bool
calls_apart(struct loader *L)
{
	const char *env = ttv_getenv(TTV_ENV_CTF_CALLS);
	if (env != NULL && strcmp(env, "walk") == 0)
		return false;
	/* Kept apart, every call waits in memory until the walk ends; a
	 * trace being written is read as it grows, its walk never ends
	 * (and a whole read of it makes the same model that way); nor does
	 * the walk of a read that keeps its state to go on from (an
	 * index's, load_resume.h). */
	if (L->goes_on || (L->ctx->opts != NULL && (L->ctx->opts->bounded ||
	    L->ctx->opts->follow)))
		return false;
	bool any = false;
	for (size_t ti = 0; ti < ctf_reader_ntraces(L->r); ti++) {
		const struct ctf_meta *m = ctf_reader_trace(L->r, ti)->m;
		for (size_t si = 0; si < m->nstreams; si++) {
			const struct ctf_stream_class *sc = m->streams[si];
			bool begins = false;
			const struct ctf_type *pc = sc->packet_context;
			bool is_struct = pc != NULL && pc->kind == CTF_STRUCT;
			for (size_t i = 0; is_struct && i < pc->nfields; i++)
				if (pc->fields[i].role == ROLE_TS_BEGIN)
					begins = true;
			if (sc->nevents > 0 && (sc->clock < 0 || !begins))
				return false;
			for (size_t ei = 0; ei < sc->nevents; ei++) {
				const struct ctf_event_class *ec =
				    sc->events[ei];
				const struct ev_info *in = ec->user;
				if (in->kind != EV_ENTRY && in->kind != EV_EXIT)
					continue;
				if (!ec->raw)
					return false;
				any = true;
			}
		}
	}
	return any;
}

/* Indices into a key table (arg), by their pairs. */
static int
cmp_key(const void *a, const void *b, void *arg)
{
	const struct ctf_keys *sort_keys = arg;
	const uint64_t *x = sort_keys->pairs[*(const uint32_t *)a];
	const uint64_t *y = sort_keys->pairs[*(const uint32_t *)b];
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* A table's keys in the order of their pairs: tracks and functions are
 * made in an order that does not depend on the threads' timing. */
static uint32_t *
keys_in_order(const struct ctf_keys *k)
{
	uint32_t *o = xcalloc(k->n ? k->n : 1, sizeof *o);
	for (uint32_t i = 0; i < k->n; i++)
		o[i] = i;
	xqsort_r(o, k->n, sizeof *o, cmp_key, (void *)k);
	return o;
}

/* The counts of the events the decoding threads took: before keep_until
 * (late false), or from it on. */
static void
count_taken(struct loader *L, bool late)
{
	size_t at = late ? L->infos.len + 1 : 0;
	for (size_t k = 0; k < L->taken_rows.len; k++)
		for (size_t i = 0; i < L->infos.len; i++) {
			uint64_t n = L->taken_rows.items[k][at + i];
			L->infos.items[i]->count += n;
			L->nevents += n;
		}
}

/* A key's model id (+ 1) if it has one yet, else 0. */
static uint32_t
key_known(const struct key_map *m, uint32_t key)
{
	return key < m->len ? m->items[key] : 0;
}

struct before_stop {
	struct loader *L;
	const uint32_t *track_of;
	bool any;
	int64_t last;
};

/* A (stream, thread) that carried calls: what the walk would have
 * noted of it had it walked those before the stop. */
static void
run_before_stop(void *arg, size_t si, uint32_t tkey, int64_t first_ns,
    int64_t last_ns)
{
	struct before_stop *bs = arg;
	int64_t until = bs->L->keep_until;
	if (first_ns >= until || bs->track_of[tkey] == UINT32_MAX)
		return;
	note_seen_slow(bs->L, si, bs->track_of[tkey]);
	/* its last before the stop, or just before it */
	int64_t v = last_ns < until ? last_ns : until - 1;
	if (!bs->any || v > bs->last)
		bs->last = v;
	bs->any = true;
}

/* A whole read that keeps its state, its walk stopped at keep_until:
 * the calls kept apart before it become slices, as the walk would have
 * made them (what it notes of streams, threads and losses too), so that
 * the state is a walk's at that time. Only threads the walk met have
 * tracks yet, and only they have calls before the stop. */
static void
build_calls_before_stop(struct loader *L)
{
	uint32_t nt = L->thread_keys.n, nf = L->func_keys.n;
	uint32_t *track_of = xcalloc(nt ? nt : 1, sizeof *track_of);
	func_id *func_of = xcalloc(nf ? nf : 1, sizeof *func_of);
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t v = key_known(&L->key_track, i);
		track_of[i] = v ? v - 1 : UINT32_MAX;
	}
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t v = key_known(&L->key_func, i);
		func_of[i] = v ? v - 1 : UINT32_MAX;
	}
	uint32_t n = ctf_calls_nthreads(L->calls);
	L->no_addr_of = xcalloc(n ? n : 1, sizeof *L->no_addr_of);
	ctf_calls_build_until(L->calls, L->b, L->have_origin ? L->origin : 0,
	    track_of, func_of, L->keep_until, L->no_addr_of);
	for (uint32_t k = 0; k < n && k < nt; k++)
		if (L->no_addr_of[k] && track_of[k] != UINT32_MAX) {
			while (L->no_addr.len <= track_of[k])
				VEC_PUSH(&L->no_addr, 0);
			L->no_addr.items[track_of[k]] = 1;
		}
	struct before_stop bs = { L, track_of, false, 0 };
	ctf_calls_each_run(L->calls, run_before_stop, &bs);
	if (bs.any)
		ctf_reader_note_out(L->r, bs.last);
	count_taken(L, false);
	free(track_of);
	free(func_of);
}

/* After the walk: the calls kept apart become slices. */
static void
build_calls(struct loader *L)
{
	uint32_t *o = keys_in_order(&L->thread_keys);
	uint32_t *track_of = xcalloc(L->thread_keys.n ? L->thread_keys.n : 1,
	    sizeof *track_of);
	for (uint32_t i = 0; i < L->thread_keys.n; i++)
		track_of[o[i]] = key_track(L, o[i]);
	free(o);
	o = keys_in_order(&L->func_keys);
	func_id *func_of = xcalloc(L->func_keys.n ? L->func_keys.n : 1,
	    sizeof *func_of);
	for (uint32_t i = 0; i < L->func_keys.n; i++)
		func_of[o[i]] = key_func(L, o[i]);
	free(o);
	ctf_calls_build_until(L->calls, L->b, L->have_origin ? L->origin : 0,
	    track_of, func_of, INT64_MAX, L->no_addr_of);
	free(track_of);
	free(func_of);
	/* a read that kept its state counted those before the stop then */
	if (!L->keeps)
		count_taken(L, false);
	count_taken(L, true);
}

/* Metadata that grew while read on: its new event classes planned. */
static void
plan_more(void *arg)
{
	plan_classes(arg);
}

/* What is said while a trace is opened again for a state made again
 * was said into the builder the first time: not again. */
static void
quiet_diag(void *arg, bool error, const char *file, int64_t off,
    const char *msg)
{
	(void)arg;
	(void)error;
	(void)file;
	(void)off;
	(void)msg;
}

/* Opens the trace and readies the walk (resumable: a reader that goes
 * on, ctf_reader_resumable); NULL when there is no trace (said). Again:
 * for a state made again (ctf_loader_again), nothing said, nothing
 * started. */
static void loader_ready(struct loader *L);

static struct loader *
loader_open_as(struct load_ctx *ctx, bool resumable, bool again, bool keep)
{
	struct loader *L = xcalloc(1, sizeof *L);
	L->ctx = ctx;
	L->b = ctx->b;
	L->goes_on = resumable;
	L->keep_until = INT64_MAX;
	bool growing = ctx->opts != NULL && ctx->opts->follow;
	L->r = (growing ? ctf_reader_open_growing : ctf_reader_open)(ctx->path,
	    again ? quiet_diag : on_diag, L,
	    ctx->opts != NULL ? ctx->opts->progress : NULL,
	    ctx->opts != NULL ? ctx->opts->progress_arg : NULL);
	if (L->r == NULL) {
		if (!again && !builder_has_errors(ctx->b))
			builder_note(ctx->b, DIAG_ERROR, "no CTF trace found");
		free(L);
		return NULL;
	}
	if (resumable) {
		ctf_reader_resumable(L->r);
		ctf_reader_set_meta_hook(L->r, plan_more, L);
	} else if (keep) {
		/* stopped at the horizon as a read that goes on would be,
		 * else at the end */
		int64_t h;
		L->keeps = true;
		if (ctf_reader_horizon(L->r, NULL, 0, &h))
			L->keep_until = h;
		ctf_reader_keep_state(L->r, L->keep_until);
	}
	L->lt = ctf_lttng_new(ctx->opts ? ctx->opts->sysroot : NULL);
	L->s_cpu = builder_intern_cstr(L->b, "cpu_id");
	ctf_keys_init(&L->thread_keys);
	ctf_keys_init(&L->func_keys);
	if (again)
		return L;
	describe(L);
	/* the 2010 RFC's layout, CTF's ancestor (its proposal's version) */
	if (ctf_reader_trace(L->r, 0)->m->rfc != NULL)
		builder_set_format(L->b, "ctf", "RFC 1.1 (2010)",
		    ctf_reader_trace(L->r, 0)->m->byte_order == CTF_BO_BE ?
		    "big-endian" : "little-endian");
	loader_ready(L);
	ctf_reader_start(L->r);
	return L;
}

/* The event classes planned and the hooks set: the walk may start. */
static void
loader_ready(struct loader *L)
{
	plan_classes(L);
	if (calls_apart(L)) {
		size_t ns = ctf_reader_nstreams(L->r);
		L->calls = ctf_calls_new(ns);
		/* each decoding thread counts in a row of its own: two
		 * threads counting into one line would pass it back and
		 * forth at every event */
		pthread_mutex_init(&L->taken_lock, NULL);
		L->fseen = xcalloc(ns ? ns : 1, sizeof *L->fseen);
	}
	ctf_reader_set_raw_hook(L->r, raw_hook, L, sizeof(struct raw_scratch));
	ctf_reader_set_raw_run(L->r, raw_run);
	if (L->calls != NULL)
		ctf_reader_light_walk(L->r);	/* the hook takes the calls */
}

static struct loader *
loader_open(struct load_ctx *ctx, bool resumable)
{
	return loader_open_as(ctx, resumable, false, false);
}

struct loader *
ctf_loader_again(struct load_ctx *ctx)
{
	return loader_open_as(ctx, true, true, false);
}

void
ctf_loader_ready(struct loader *L)
{
	loader_ready(L);
}

void
ctf_loader_speak(struct loader *L)
{
	ctf_reader_set_diag(L->r, on_diag, L);
}

/* The walk over: the calls kept apart become slices, and what kept them
 * goes. */
static void
end_calls(struct loader *L, bool build)
{
	/* no decoding thread may be adding calls any more */
	ctf_reader_stop(L->r);
	if (build)
		build_calls(L);
	ctf_calls_free(L->calls);
	L->calls = NULL;
	for (size_t k = 0; k < L->taken_rows.len; k++)
		free(L->taken_rows.items[k]);
	VEC_FREE(&L->taken_rows);
	pthread_mutex_destroy(&L->taken_lock);
	for (size_t i = 0; i < ctf_reader_nstreams(L->r); i++) {
		ctf_ids_free(&L->fseen[i].funcs);
		ctf_ids_free(&L->fseen[i].classes);
	}
	free(L->fseen);
	L->fseen = NULL;
	free(L->no_addr_of);
	L->no_addr_of = NULL;
}

/* Walks what the reader has, into L->b: all of it, or (a reader that
 * goes on) what comes before until. */
static void
loader_walk(struct loader *L, bool all, int64_t until)
{
	struct load_ctx *ctx = L->ctx;
	uint64_t total = ctf_reader_bytes_total(L->r), next_report = 0;
	const struct ctf_item *it;
	while (!L->stop && (it = all ? ctf_reader_next(L->r) :
	    ctf_reader_next_before(L->r, until)) != NULL) {
		bool packet = it->kind == CTF_ITEM_PACKET;
		if (!packet)
			on_event(L, it);
		else
			on_packet(L, it);
		/* with the calls kept apart, packets may be nearly all the
		 * walk sees */
		if ((++L->nitems & 0xffff) == 0 || packet) {
			uint64_t done = ctf_reader_bytes_done(L->r);
			if (done >= next_report) {
				load_progress(ctx, done, total);
				next_report = done + (8u << 20);
			}
			if (load_cancelled(ctx))
				break;
		}
	}
	/* a read that keeps its state builds them once it is kept */
	if (L->calls != NULL && !L->keeps)
		end_calls(L, true);
}

/* What the end of a load says, into L->b: the walk's state is only
 * read, so that a reader that goes on may say it at each read, into a
 * copy of its builder. */
static int
loader_end(struct loader *L)
{
	struct load_ctx *ctx = L->ctx;
	bool growing = ctx->opts != NULL && ctx->opts->follow;
	uint64_t total = ctf_reader_bytes_total(L->r);
	/* with a zero clock offset this is the clock's own origin, which is
	 * what babeltrace2 prints as the time too */
	if (L->have_origin)
		builder_set_wall_origin(L->b, L->origin);
	int64_t horizon;
	if (growing && L->have_origin && ctf_reader_horizon(L->r,
	    ctx->opts->beacons, ctx->opts->nbeacons, &horizon))
		builder_set_complete_until(L->b, (ttv_ns)((uint64_t)horizon -
		    (uint64_t)L->origin));
	ctf_lttng_finish(L->lt, L->b);
	for (size_t i = 0; i < L->infos.len; i++)
		if (L->infos.items[i]->count)
			builder_count(L->b, L->infos.items[i]->name,
			    L->infos.items[i]->count);
	builder_count(L->b, "packets", L->npackets);
	if (L->ndiscarded)
		builder_count(L->b, "discarded events", L->ndiscarded);
	if (L->nlost)
		builder_count(L->b, "lost packets", L->nlost);
	if (L->nskipped)
		builder_count(L->b, "damaged bytes skipped", L->nskipped);
	uint64_t clamps = ctf_reader_clamps(L->r);
	if (clamps > 0)
		builder_note(L->b, DIAG_WARNING, "%llu timestamps out of the "
		    "64-bit ns range (before 1678 or after 2262) were clamped "
		    "to it", (unsigned long long)clamps);
	load_progress(ctx, total, total);
	return L->nevents == 0 && L->npackets == 0 &&
	    builder_has_errors(L->b) ? -1 : 0;
}

static void
loader_free(struct loader *L)
{
	if (L == NULL)
		return;
	for (size_t i = 0; i < L->infos.len; i++)
		free(L->infos.items[i]);
	VEC_FREE(&L->infos);
	VEC_FREE(&L->cpus);
	VEC_FREE(&L->named);
	VEC_FREE(&L->stream_track);
	VEC_FREE(&L->stream_text);
	for (size_t i = 0; i < L->nseen; i++) {
		free(L->seen[i].t);
		ctf_ids_free(&L->seen[i].has);
	}
	free(L->seen);
	VEC_FREE(&L->no_addr);
	/* kept for a build that did not come (a read that kept its state
	 * and was not ended) */
	if (L->calls != NULL)
		end_calls(L, false);
	ctf_lttng_free(L->lt);
	/* the workers use the key tables until they are stopped */
	ctf_reader_free(L->r);
	ctf_keys_free(&L->thread_keys);
	ctf_keys_free(&L->func_keys);
	free(L->key_track.items);
	free(L->key_func.items);
	free(L);
}

void
ctf_loader_free(struct loader *L)
{
	loader_free(L);
}

static int
ctf_load(struct load_ctx *ctx)
{
	struct loader *L = loader_open(ctx, false);
	if (L == NULL)
		return -1;
	loader_walk(L, true, 0);
	int rc = loader_end(L);
	loader_free(L);
	return rc;
}

/* What the walk of the items held past the horizon changes in a loader,
 * kept to be put back after it: that walk goes into a copy of the
 * builder (a read's trace), the loader goes on from the horizon. */
#define SAVE_VEC(sv, v) do {                                              \
	(sv).n = (v).len;                                                 \
	(sv).p = xmalloc(((v).len ? (v).len : 1) * sizeof *(v).items);   \
	if ((v).len)                                                      \
		memcpy((sv).p, (v).items, (v).len * sizeof *(v).items);  \
} while (0)
#define RESTORE_VEC(sv, v) do {                                           \
	if ((sv).n)                                                       \
		memcpy((v).items, (sv).p, (sv).n * sizeof *(v).items);   \
	(v).len = (sv).n;                                                 \
	free((sv).p);                                                     \
} while (0)

struct saved_vec {
	void *p;
	size_t n;
};

struct loader_save {
	struct loader L;	/* the scalars and caches */
	struct ev_info *infos;
	struct saved_vec cpus, named, no_addr, stream_track, stream_text;
	size_t nseen, *seen_n;
	uint32_t *key_track, *key_func;
	size_t nkey_track, nkey_func;
	size_t lt_size;
};

static uint32_t *
copy_u32(const uint32_t *p, size_t n)
{
	uint32_t *c = xmalloc((n ? n : 1) * sizeof *c);
	if (n)
		memcpy(c, p, n * sizeof *c);
	return c;
}

static void
loader_save(const struct loader *L, struct loader_save *s)
{
	s->L = *L;
	s->infos = xmalloc((L->infos.len ? L->infos.len : 1) *
	    sizeof *s->infos);
	for (size_t i = 0; i < L->infos.len; i++)
		s->infos[i] = *L->infos.items[i];
	SAVE_VEC(s->cpus, L->cpus);
	SAVE_VEC(s->named, L->named);
	SAVE_VEC(s->no_addr, L->no_addr);
	SAVE_VEC(s->stream_track, L->stream_track);
	SAVE_VEC(s->stream_text, L->stream_text);
	s->nseen = L->nseen;
	s->seen_n = xmalloc((L->nseen ? L->nseen : 1) * sizeof *s->seen_n);
	for (size_t i = 0; i < L->nseen; i++)
		s->seen_n[i] = L->seen[i].n;
	s->key_track = copy_u32(L->key_track.items, L->key_track.len);
	s->nkey_track = L->key_track.len;
	s->key_func = copy_u32(L->key_func.items, L->key_func.len);
	s->nkey_func = L->key_func.len;
	s->lt_size = ctf_lttng_size(L->lt);
}

static void
restore_keys(struct key_map *m, uint32_t *saved, size_t n)
{
	if (m->len > n)
		memset(m->items + n, 0, (m->len - n) * sizeof *m->items);
	if (n)
		memcpy(m->items, saved, n * sizeof *m->items);
	free(saved);
}

/* Puts back what loader_save kept; false when the walk changed what it
 * cannot put back (the functions and binaries of the cyg-profile
 * events): the loader is then of no more use. */
static bool
loader_restore(struct loader *L, struct loader_save *s)
{
	bool same = ctf_lttng_size(L->lt) == s->lt_size;
	for (size_t i = 0; i < L->infos.len; i++)
		*L->infos.items[i] = s->infos[i];
	free(s->infos);
	RESTORE_VEC(s->cpus, L->cpus);
	RESTORE_VEC(s->named, L->named);
	RESTORE_VEC(s->no_addr, L->no_addr);
	RESTORE_VEC(s->stream_track, L->stream_track);
	RESTORE_VEC(s->stream_text, L->stream_text);
	for (size_t i = 0; i < L->nseen; i++) {
		struct seen *sn = &L->seen[i];
		size_t n = i < s->nseen ? s->seen_n[i] : 0;
		if (sn->n == n)
			continue;
		/* a track met first past the horizon: the set again */
		ctf_ids_free(&sn->has);
		memset(&sn->has, 0, sizeof sn->has);
		sn->n = n;
		for (size_t k = 0; k < n; k++)
			ctf_ids_add(&sn->has, sn->t[k]);
	}
	free(s->seen_n);
	restore_keys(&L->key_track, s->key_track, s->nkey_track);
	restore_keys(&L->key_func, s->key_func, s->nkey_func);
	L->kernel_proc = s->L.kernel_proc;
	L->has_kernel_proc = s->L.has_kernel_proc;
	memcpy(L->tcache, s->L.tcache, sizeof L->tcache);
	L->origin = s->L.origin;
	L->have_origin = s->L.have_origin;
	L->seq = s->L.seq;
	L->stop = s->L.stop;
	L->nitems = s->L.nitems;
	L->nevents = s->L.nevents;
	L->npackets = s->L.npackets;
	L->ndiscarded = s->L.ndiscarded;
	L->nlost = s->L.nlost;
	L->nskipped = s->L.nskipped;
	return same;
}

/* A trace directory read as it grows (reader.h, grow_*): the reader and
 * the loader are kept from one read to the next. Each read walks, into
 * the builder kept, what comes before the horizon (where every indexed
 * stream is known whole: nothing still to come goes before it), and the
 * items held past it into the copy of the builder the read's trace is
 * made from, with the end of the load: the next read walks on from the
 * horizon with what was appended (ctf_reader_grow). */
static void *
ctf_grow_begin(struct load_ctx *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct ctf_grow));
}

/* Is a first read the whole read a load makes (its streams decoded on
 * other threads, the calls kept apart), its state kept where its walk
 * stops (ctf_reader_keep_state)? Not for --follow's reads, which go on,
 * nor where memory is short (the calls walked, not kept), nor when the
 * walk is asked for. */
static bool
whole_keeps(const struct load_ctx *ctx)
{
	const char *env = ttv_getenv(TTV_ENV_CTF_CALLS);
	return ctx->opts == NULL || (!ctx->opts->bounded &&
	    !ctx->opts->follow && (env == NULL || strcmp(env, "walk") != 0));
}

/* Up to where the builder kept may be walked: the horizon, or all when
 * there is none (then going on needs nothing new before what was
 * walked, which ctf_reader_grow checks). */
static int64_t
walk_until(const struct loader *L, const struct load_ctx *ctx)
{
	int64_t h;
	if (!ctf_reader_horizon(L->r, ctx->opts->beacons, ctx->opts->nbeacons,
	    &h))
		return INT64_MAX;
	return h;
}

static size_t
ctf_grow_feed(void *state, struct load_ctx *ctx, size_t from)
{
	struct ctf_grow *g = state;
	(void)from;
	if (!g->opened) {
		bool whole = whole_keeps(ctx);
		g->opened = true;
		g->L = loader_open_as(ctx, !whole, false, whole);
		if (g->L != NULL && g->L->keeps) {
			/* a whole read, its walk stopped where a read that
			 * goes on would stop it: the state kept there */
			loader_walk(g->L, false, g->L->keep_until);
			ctf_reader_settle(g->L->r);
			if (g->L->calls != NULL)
				build_calls_before_stop(g->L);
			return 0;
		}
	} else if (g->L == NULL || g->spent || g->L->keeps) {
		return SIZE_MAX;
	} else {
		g->L->ctx = ctx;
		g->L->b = ctx->b;
		if (!ctf_reader_grow(g->L->r))
			return SIZE_MAX;
	}
	if (g->L != NULL)
		loader_walk(g->L, false, walk_until(g->L, ctx));
	return 0;
}

static void
tail_item(void *arg, const struct ctf_item *it)
{
	struct loader *L = arg;
	if (L->stop)
		return;
	if (it->kind == CTF_ITEM_PACKET)
		on_packet(L, it);
	else
		on_event(L, it);
}

static int
ctf_grow_end(void *state, struct load_ctx *ctx)
{
	struct ctf_grow *g = state;
	if (g->L == NULL)
		return -1;	/* said at the open */
	struct builder *b = g->L->b;
	g->L->ctx = ctx;
	g->L->b = ctx->b;
	struct loader_save sv;
	loader_save(g->L, &sv);
	ctf_reader_tail(g->L->r, tail_item, g->L);
	if (g->L->calls != NULL)
		end_calls(g->L, true);
	int rc = loader_end(g->L);
	if (!loader_restore(g->L, &sv))
		g->spent = true;
	g->L->b = b;
	return rc;
}

static void
ctf_grow_free(void *state)
{
	struct ctf_grow *g = state;
	if (g == NULL)
		return;
	loader_free(g->L);
	free(g);
}

const struct reader ctf_reader = {
	.name = "ctf",
	.description = "CTF 1.8 and 2 (LTTng, barectf): a trace directory or "
	    "its metadata file",
	.probe = ctf_probe,
	.load = ctf_load,
	.grow_begin = ctf_grow_begin,
	.grow_feed = ctf_grow_feed,
	.grow_end = ctf_grow_end,
	.grow_free = ctf_grow_free,
	.grow_save = ctf_grow_save,
	.grow_load = ctf_grow_load,
};
