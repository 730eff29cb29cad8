/*
 * The CTF reader's growing load written as bytes and made again
 * (reader.h, grow_save and grow_load), so that a trace directory
 * appended to while ttv was not running is read on from where the last
 * run stopped.
 *
 * What is written: the loader's own state (ctf_loader.h: the event
 * classes' functions and counts, the CPUs running, the tracks named,
 * the keys of threads and functions and the model ids they became, the
 * origin and counts), LTTng's binaries and functions (ctf_lttng_save),
 * and the merge (ctf_reader_save: where each stream's walk is). What is
 * not: the metadata, parsed again from the trace's files, whose bytes
 * must be the same; the items held past the horizon, decoded again from
 * the start of the packet each stream's next item is in. Every id read
 * back is checked against the builder before it is used.
 */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_loader.h"

/* Which layout of the bytes: a state of another is not read. */
#define CTF_SAVE_VERSION 1
/* Times (ns from the origin) a saved state may hold: 146 years. */
#define TIME_BOUND ((int64_t)1 << 62)

static void
put_keys(struct blob *w, const struct ctf_keys *k)
{
	blob_u64(w, k->n);
	for (uint32_t i = 0; i < k->n; i++) {
		blob_u64(w, k->pairs[i][0]);
		blob_u64(w, k->pairs[i][1]);
	}
}

/* The same ids for the same pairs: made again in id order. */
static bool
get_keys(struct blob_in *in, struct ctf_keys *k)
{
	size_t n = blob_get_count(in, 16);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = blob_get_u64(in), b = blob_get_u64(in);
		if (in->bad || ctf_keys_get(k, a, b) != i)
			return false;
	}
	return !in->bad;
}

static void
put_u32s(struct blob *w, const uint32_t *p, size_t n)
{
	blob_array(w, p, n, sizeof *p);
}

/* n ids + 1 (0: none), each below max. */
static bool
ids_below(const uint32_t *p, size_t n, uint32_t max, bool plus_one)
{
	for (size_t i = 0; i < n; i++) {
		if (plus_one && p[i] == 0)
			continue;
		if ((plus_one ? p[i] - 1 : p[i]) >= max)
			return false;
	}
	return true;
}

bool
ctf_grow_save(void *state, struct blob *w)
{
	const struct ctf_grow *g = state;
	if (!g->opened || g->L == NULL || g->spent)
		return false;
	const struct loader *L = g->L;
	/* the calls kept apart wait in memory for the walk's end, which
	 * a growing load never reaches: they are not kept so; a whole read
	 * that keeps its state built those before its stop, and what it
	 * keeps is a walk's there */
	if (L->calls != NULL && !L->keeps)
		return false;
	blob_u32(w, CTF_SAVE_VERSION);
	if (!ctf_reader_save_meta(L->r, w))
		return false;
	blob_u64(w, L->infos.len);
	for (size_t i = 0; i < L->infos.len; i++) {
		const struct ev_info *in = L->infos.items[i];
		blob_u8(w, in->has_func);
		blob_u32(w, in->has_func ? in->func : 0);
		blob_u64(w, in->count);
	}
	blob_u64(w, L->cpus.len);
	for (size_t i = 0; i < L->cpus.len; i++) {
		const struct cpu_state *c = &L->cpus.items[i];
		blob_u8(w, c->running);
		blob_i64(w, c->running ? c->since : 0);
		blob_u32(w, c->running ? c->func : 0);
	}
	blob_u8(w, L->has_kernel_proc);
	blob_u32(w, L->has_kernel_proc ? L->kernel_proc : 0);
	BLOB_VEC(w, &L->named);
	BLOB_VEC(w, &L->no_addr);
	blob_u64(w, L->nseen);
	for (size_t i = 0; i < L->nseen; i++)
		put_u32s(w, L->seen[i].t, L->seen[i].n);
	BLOB_VEC(w, &L->stream_track);
	BLOB_VEC(w, &L->stream_text);
	put_keys(w, &L->thread_keys);
	put_keys(w, &L->func_keys);
	put_u32s(w, L->key_track.items, L->key_track.len);
	put_u32s(w, L->key_func.items, L->key_func.len);
	blob_u8(w, L->have_origin);
	blob_i64(w, L->origin);
	const uint64_t u[] = { L->seq, L->nitems, L->nevents, L->npackets,
	    L->ndiscarded, L->nlost, L->nskipped };
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		blob_u64(w, u[i]);
	blob_u8(w, L->stop);
	ctf_lttng_save(L->lt, w);
	return ctf_reader_save(L->r, w);
}

/* The loader's own state, checked against the builder. */
static bool
load_loader(struct loader *L, struct blob_in *in)
{
	const struct builder *b = L->b;
	uint32_t nfuncs = builder_nfuncs(b), ntracks = builder_ntracks(b);
	uint32_t nstrings = builder_nstrings(b);
	/* the metadata is as it was: so are the classes planned */
	if (blob_get_u64(in) != L->infos.len || in->bad)
		return false;
	for (size_t i = 0; i < L->infos.len; i++) {
		struct ev_info *ev = L->infos.items[i];
		ev->has_func = blob_get_bool(in);
		ev->func = blob_get_u32(in);
		ev->count = blob_get_u64(in);
		if (in->bad || (ev->has_func && ev->func >= nfuncs))
			return false;
	}
	size_t ncpus = blob_get_count(in, 13);
	for (size_t i = 0; i < ncpus; i++) {
		struct cpu_state c;
		c.running = blob_get_bool(in);
		c.since = blob_get_i64(in);
		c.func = blob_get_u32(in);
		/* a time the walk's times are taken from: within what
		 * a time of the walk may be, so that the difference
		 * fits */
		if (in->bad || (c.running && (c.func >= nfuncs ||
		    c.since < -TIME_BOUND || c.since > TIME_BOUND)))
			return false;
		VEC_PUSH(&L->cpus, c);
	}
	L->has_kernel_proc = blob_get_bool(in);
	L->kernel_proc = blob_get_u32(in);
	if (in->bad || (L->has_kernel_proc &&
	    L->kernel_proc >= builder_nprocesses(b)))
		return false;
	BLOB_GET_VEC(in, &L->named);
	BLOB_GET_VEC(in, &L->no_addr);
	if (in->bad || L->named.len > ntracks || L->no_addr.len > ntracks)
		return false;
	size_t nseen = blob_get_count(in, 8);
	if (in->bad)
		return false;
	if (nseen > 0)
		L->seen = xcalloc(nseen, sizeof *L->seen);
	L->nseen = nseen;
	for (size_t i = 0; i < nseen; i++) {
		struct seen *sn = &L->seen[i];
		sn->t = blob_get_array(in, sizeof *sn->t, &sn->n);
		sn->cap = sn->n;
		if (in->bad || !ids_below(sn->t, sn->n, ntracks, false))
			return false;
		for (size_t k = 0; k < sn->n; k++)
			if (!ctf_ids_add(&sn->has, sn->t[k]))
				return false;	/* each track once */
	}
	BLOB_GET_VEC(in, &L->stream_track);
	BLOB_GET_VEC(in, &L->stream_text);
	if (in->bad || !ids_below(L->stream_track.items, L->stream_track.len,
	    ntracks, true) || !ids_below(L->stream_text.items,
	    L->stream_text.len, nstrings, false))
		return false;
	if (!get_keys(in, &L->thread_keys) || !get_keys(in, &L->func_keys))
		return false;
	size_t n;
	L->key_track.items = blob_get_array(in, sizeof(uint32_t), &n);
	L->key_track.len = n;
	L->key_func.items = blob_get_array(in, sizeof(uint32_t), &n);
	L->key_func.len = n;
	if (in->bad || !ids_below(L->key_track.items, L->key_track.len,
	    ntracks, true) || !ids_below(L->key_func.items, L->key_func.len,
	    nfuncs, true))
		return false;
	L->have_origin = blob_get_bool(in);
	L->origin = blob_get_i64(in);
	uint64_t *u[] = { &L->seq, &L->nitems, &L->nevents, &L->npackets,
	    &L->ndiscarded, &L->nlost, &L->nskipped };
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		*u[i] = blob_get_u64(in);
	L->stop = blob_get_bool(in);
	return !in->bad && ctf_lttng_load(L->lt, b, in);
}

void *
ctf_grow_load(struct load_ctx *ctx, struct blob_in *in)
{
	if (blob_get_u32(in) != CTF_SAVE_VERSION || in->bad)
		return NULL;
	struct loader *L = ctf_loader_again(ctx);
	if (L == NULL)
		return NULL;
	bool ok = ctf_reader_restore_meta(L->r, in);
	if (ok)
		ctf_loader_ready(L);
	if (!ok || !load_loader(L, in) || !ctf_reader_restore(L->r, in) ||
	    in->bad) {
		ctf_loader_free(L);
		return NULL;
	}
	ctf_loader_speak(L);
	struct ctf_grow *g = xcalloc(1, sizeof *g);
	g->L = L;
	g->opened = true;
	return g;
}
