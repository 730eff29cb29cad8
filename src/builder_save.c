/*
 * A builder kept across runs (builder.h, builder_save and builder_load):
 * what a trace appended to while ttv was not running needs to be read on
 * from where the last run stopped (doc/index-format.md, "Ready to grow").
 *
 * The large arrays (the calls of each depth and their weights, instants,
 * counter samples, args) are not written: the builder only appends to
 * them, so they are the first items of the model it finishes into, which
 * the index holds already. Only their lengths are kept, and the builder
 * is made again from the model's. An array the builder no longer only
 * appends to (given out of order, so sorted at the end; a track's depths
 * shifted by an end without a begin) is written whole, or, when that
 * happens after the save, the save is not used (builder_save_holds).
 */
#include "blob.h"
#include "builder.h"
#include "builder_int.h"
#include "index_store.h"
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#define SAVE_MAGIC 0x31564153444c4955ULL	/* "UILDSAV1" */
/* Times a saved builder may hold (ns; 146 years), besides the "none"
 * ends of a range: what the builder computes from them stays in range. */
#define TIME_BOUND ((ttv_ns)1 << 62)

static bool
time_ok(ttv_ns t)
{
	return (t >= -TIME_BOUND && t <= TIME_BOUND) || t == TTV_NS_MIN ||
	    t == TTV_NS_MAX;
}

static void
put_map(struct blob *w, const struct hashmap *m)
{
	blob_u32(w, m->n);
	blob_array(w, m->slots, m->nslots, sizeof *m->slots);
}

static void
get_map(struct blob_in *r, struct hashmap *m)
{
	size_t n;
	m->n = blob_get_u32(r);
	m->slots = blob_get_array(r, sizeof *m->slots, &n);
	m->nslots = (uint32_t)n;
	if (n > UINT32_MAX)
		r->bad = true;
}

/* The number of reorders so far (builder_int.h): a save holds while it
 * stays. */
static uint64_t
reorders(const struct builder *b)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < b->ntracks; i++)
		n += b->tracks[i].reorders;
	return n;
}

static void
save_track(const struct btrack *bt, struct blob *w)
{
	blob_u32(w, bt->kind);
	blob_u32(w, bt->process);
	blob_i64(w, bt->tid);
	blob_u32(w, bt->name);
	blob_i64(w, bt->first);
	blob_i64(w, bt->last);
	blob_u32(w, bt->nlevels);
	for (uint32_t d = 0; d < bt->nlevels; d++) {
		const struct blevel *l = &bt->levels[d];
		blob_u32(w, l->len);
		blob_i64(w, l->last_start);
		blob_u8(w, l->unsorted);
		blob_u8(w, l->w != NULL);
		/* a depth given out of order is sorted at the end: its
		 * model is not what it holds now */
		if (l->unsorted) {
			blob_array(w, l->s, l->len, sizeof *l->s);
			if (l->w != NULL)
				blob_array(w, l->w, l->len, sizeof *l->w);
		}
		if (l->side != NULL)
			BLOB_VEC(w, &l->side->longs);
		else
			blob_u64(w, 0);
	}
	BLOB_VEC(w, &bt->stack);
	blob_u64(w, bt->instants.len);
	blob_u8(w, bt->instants_unsorted);
	if (bt->instants_unsorted)
		BLOB_VEC(w, &bt->instants);
	blob_u64(w, bt->samples.len);
	blob_u8(w, bt->samples_unsorted);
	if (bt->samples_unsorted)
		BLOB_VEC(w, &bt->samples);
	BLOB_VEC(w, &bt->sargs);
	blob_u8(w, bt->has_last);
	blob_put(w, &bt->last_ref, sizeof bt->last_ref);
	blob_u32(w, bt->orphan_shifts);
}

uint64_t
builder_save(const struct builder *b, struct blob *w)
{
	blob_u64(w, SAVE_MAGIC);
	uint32_t ns = strtab_count(b->strings);
	blob_u32(w, ns);
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t len = strtab_len(b->strings, i);
		blob_u32(w, len);
		blob_put(w, strtab_get(b->strings, i), len);
	}
	put_map(w, &b->func_map);
	put_map(w, &b->process_map);
	put_map(w, &b->track_map);
	put_map(w, &b->count_map);
	BLOB_VEC(w, &b->funcs);
	BLOB_VEC(w, &b->func_addrs);
	BLOB_VEC(w, &b->has_addr);
	BLOB_VEC(w, &b->processes);
	blob_u32(w, b->ntracks);
	for (uint32_t i = 0; i < b->ntracks; i++)
		save_track(&b->tracks[i], w);
	BLOB_VEC(w, &b->markers);
	BLOB_VEC(w, &b->flows);
	BLOB_VEC(w, &b->logs);
	blob_u64(w, b->args.len);
	blob_u64(w, b->args_start);
	blob_u64(w, b->records.len);
	for (size_t i = 0; i < b->records.len; i++) {
		blob_str(w, b->records.items[i].kind);
		blob_u64(w, b->records.items[i].count);
	}
	blob_u64(w, b->meta_keys.len);
	for (size_t i = 0; i < b->meta_keys.len; i++) {
		blob_str(w, b->meta_keys.items[i]);
		blob_str(w, b->meta_values.items[i]);
	}
	blob_u64(w, b->diags.len);
	for (size_t i = 0; i < b->diags.len; i++) {
		blob_u32(w, b->diags.items[i].level);
		blob_str(w, b->diags.items[i].text);
	}
	blob_u64(w, b->ndiags_dropped);
	blob_u8(w, b->has_errors);
	blob_str(w, b->format);
	blob_str(w, b->version);
	blob_str(w, b->byte_order);
	blob_f64(w, b->ticks_per_second);
	blob_i64(w, b->wall_origin);
	blob_i64(w, b->complete_until);
	blob_u8(w, b->open_to_now);
	blob_i64(w, b->now);
	return reorders(b);
}

bool
builder_save_holds(const struct builder *b, uint64_t mark)
{
	return reorders(b) == mark;
}

/* ------------------------------------------------------------ loading */

/* An array of n items copied from src, the builder's own: in the store
 * once large (store != NULL), as it would have grown there (store_room,
 * level_grow); else from xbig_realloc when big, else the heap. */
static void *
own_items(struct index_store *store, const void *src, size_t n, size_t elem,
    bool big, size_t *cap, struct store_array **sa)
{
	size_t bytes = n * elem;
	*sa = NULL;
	*cap = n;
	if (store != NULL && bytes >= INDEX_STORE_MIN) {
		*sa = index_store_array(store, elem, src, bytes);
		*cap = store_array_grow(*sa, bytes) / elem;
		return store_array_base(*sa);
	}
	if (n == 0)
		return NULL;
	void *p = big ? xbig_realloc(NULL, bytes) : xreallocarray(NULL, n,
	    elem);
	memcpy(p, src, bytes);
	return p;
}

/* Depth d of a track made again: its calls are the first len of the
 * model's depth (md, NULL when the model has none there) unless they
 * were written. */
static bool
load_level(struct blob_in *r, struct blevel *l, const struct depth_level *md,
    struct index_store *store, size_t nfuncs)
{
	uint32_t len = blob_get_u32(r);
	l->last_start = blob_get_i64(r);
	l->unsorted = blob_get_bool(r);
	bool weighted = blob_get_bool(r);
	const struct slice *s = NULL;
	const uint32_t *wt = NULL;
	size_t n = 0, nw = 0;
	struct slice *own_s = NULL;
	uint32_t *own_w = NULL;
	bool ok = !r->bad;
	if (ok && l->unsorted) {
		s = own_s = blob_get_array(r, sizeof *s, &n);
		if (weighted)
			wt = own_w = blob_get_array(r, sizeof *wt, &nw);
		ok = n == len && (!weighted || nw == len);
	} else if (ok && len > 0) {
		ok = md != NULL && md->len >= len &&
		    (!weighted || md->weights != NULL);
		s = ok ? md->slices : NULL;
		wt = ok && weighted ? md->weights : NULL;
	}
	/* the calls name functions the builder has (a model's were checked
	 * against the model's, which may have more) */
	for (uint32_t i = 0; ok && i < len; i++)
		ok = s[i].func < nfuncs;
	/* the longs name slices of the level: checked against len */
	l->side = xcalloc(1, sizeof *l->side);
	BLOB_GET_VEC(r, &l->side->longs);
	for (size_t i = 0; ok && i < l->side->longs.len; i++)
		ok = l->side->longs.items[i].index < len &&
		    l->side->longs.items[i].dur >= 0 &&
		    l->side->longs.items[i].dur <= TIME_BOUND;
	ok = ok && time_ok(l->last_start);
	if (!ok || r->bad) {
		free(own_s);
		free(own_w);
		return false;
	}
	size_t cap;
	l->s = own_items(store, s, len, sizeof *l->s, true, &cap,
	    &l->side->ss);
	l->len = len;
	l->cap = (uint32_t)(cap < UINT32_MAX ? cap : UINT32_MAX);
	if (weighted && l->side->ss != NULL) {
		/* the weights follow the slices into the store
		 * (level_grow_stored) */
		l->side->ws = index_store_array(store, sizeof *l->w, wt,
		    (size_t)len * sizeof *l->w);
		size_t wcap = store_array_grow(l->side->ws, (size_t)l->cap *
		    sizeof *l->w) / sizeof *l->w;
		l->w = store_array_base(l->side->ws);
		if (wcap < l->cap)
			l->cap = (uint32_t)wcap;
	} else if (weighted) {
		l->w = xreallocarray(NULL, l->cap ? l->cap : 1, sizeof *l->w);
		if (len > 0)
			memcpy(l->w, wt, (size_t)len * sizeof *l->w);
	}
	free(own_s);
	free(own_w);
	return true;
}

/* A vector of a track made again: the first n items of the model's
 * (src, which has `have`), or written whole. */
static bool
load_vec(struct blob_in *r, struct index_store *store, void **items,
    size_t *len, size_t *cap, size_t elem, const void *src, size_t have,
    bool *unsorted, struct store_array **sa)
{
	uint64_t n = blob_get_u64(r);
	*unsorted = blob_get_bool(r);
	if (r->bad)
		return false;
	if (*unsorted) {
		size_t got;
		void *own = blob_get_array(r, elem, &got);
		if (r->bad || got != n) {
			free(own);
			return false;
		}
		*items = own_items(store, own, got, elem, false, cap, sa);
		*len = got;
		free(own);
		return true;
	}
	if (n > have)
		return false;
	*items = own_items(store, src, (size_t)n, elem, false, cap, sa);
	*len = (size_t)n;
	return true;
}

/* Bytes a saved level takes at least: len, last_start, two flags, the
 * longs' count. */
#define LEVEL_MIN_BYTES 22

static bool
load_track(struct blob_in *r, struct builder *b, struct btrack *bt,
    const struct track *mt)
{
	bt->kind = (enum track_kind)blob_get_u32(r);
	bt->process = blob_get_u32(r);
	bt->tid = blob_get_i64(r);
	bt->name = blob_get_u32(r);
	bt->first = blob_get_i64(r);
	bt->last = blob_get_i64(r);
	bt->store = b->store;
	uint32_t nl = blob_get_u32(r);
	if (r->bad || nl > (size_t)(r->end - r->p) / LEVEL_MIN_BYTES ||
	    bt->kind > TRACK_COUNTER || bt->name >= strtab_count(b->strings) ||
	    bt->process >= b->processes.len)
		return false;
	if (nl > 0) {
		size_t bytes = ((size_t)nl * sizeof *bt->levels + 63) &
		    ~(size_t)63;
		bt->levels = xcalloc_aligned(64, bytes);
	}
	for (uint32_t d = 0; d < nl; d++) {
		bt->nlevels = d + 1;
		if (!load_level(r, &bt->levels[d], mt != NULL &&
		    d < mt->ndepth ? &mt->depth[d] : NULL, b->store,
		    b->funcs.len))
			return false;
	}
	struct index_store *vs = b->store_all ? b->store : NULL;
	BLOB_GET_VEC(r, &bt->stack);
	if (!load_vec(r, vs, (void **)&bt->instants.items, &bt->instants.len,
	    &bt->instants.cap, sizeof *bt->instants.items,
	    mt != NULL ? mt->instants : NULL, mt != NULL ? mt->ninstants : 0,
	    &bt->instants_unsorted, &bt->instants_sa) ||
	    !load_vec(r, vs, (void **)&bt->samples.items, &bt->samples.len,
	    &bt->samples.cap, sizeof *bt->samples.items,
	    mt != NULL ? mt->samples : NULL, mt != NULL ? mt->nsamples : 0,
	    &bt->samples_unsorted, &bt->samples_sa))
		return false;
	BLOB_GET_VEC(r, &bt->sargs);
	bt->has_last = blob_get_bool(r);
	const void *lr = blob_take(r, sizeof bt->last_ref);
	if (lr != NULL)
		memcpy(&bt->last_ref, lr, sizeof bt->last_ref);
	bt->orphan_shifts = blob_get_u32(r);
	if (r->bad)
		return false;
	for (size_t i = 0; i < bt->stack.len; i++)
		if (bt->stack.items[i].func >= b->funcs.len ||
		    !time_ok(bt->stack.items[i].start) ||
		    bt->stack.items[i].start == TTV_NS_MIN ||
		    bt->stack.items[i].start == TTV_NS_MAX)
			return false;
	if (!time_ok(bt->first) || !time_ok(bt->last))
		return false;
	for (size_t i = 0; i < bt->sargs.len; i++) {
		const struct slice_args *a = &bt->sargs.items[i];
		if (a->depth >= nl || a->index >= bt->levels[a->depth].len)
			return false;
	}
	for (size_t i = 0; i < bt->instants.len; i++)
		if (bt->instants.items[i].func >= b->funcs.len)
			return false;
	return true;
}

static bool
load_strings(struct blob_in *r, struct builder *b)
{
	uint32_t ns = blob_get_u32(r);
	/* each string takes its length's 4 bytes at least */
	if (r->bad || ns > (size_t)(r->end - r->p) / 4)
		return false;
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t len = blob_get_u32(r);
		const char *p = blob_take(r, len);
		/* the same ids as when saved: no string twice */
		if (p == NULL || strtab_intern_held(b->strings, p, len) != i)
			return false;
	}
	return true;
}

static bool
load_texts(struct blob_in *r, struct builder *b)
{
	size_t n = blob_get_count(r, 16);
	for (size_t i = 0; i < n && !r->bad; i++) {
		char *kind = blob_get_str(r);
		uint64_t count = blob_get_u64(r);
		if (kind == NULL)
			r->bad = true;
		else
			VEC_PUSH(&b->records, ((struct record_count){ kind,
			    count }));
	}
	n = blob_get_count(r, 16);
	for (size_t i = 0; i < n && !r->bad; i++) {
		char *k = blob_get_str(r), *v = blob_get_str(r);
		if (k == NULL || v == NULL) {
			free(k);
			free(v);
			r->bad = true;
			break;
		}
		VEC_PUSH(&b->meta_keys, k);
		VEC_PUSH(&b->meta_values, v);
	}
	n = blob_get_count(r, 12);
	for (size_t i = 0; i < n && !r->bad; i++) {
		uint32_t level = blob_get_u32(r);
		char *text = blob_get_str(r);
		if (text == NULL || level > DIAG_ERROR) {
			free(text);
			r->bad = true;
			break;
		}
		VEC_PUSH(&b->diags, ((struct diag_msg){
		    (enum diag_level)level, text }));
	}
	return !r->bad;
}

/* Every id the builder holds names something it has. */
static bool
ids_hold(const struct builder *b)
{
	uint32_t ns = strtab_count(b->strings);
	for (size_t i = 0; i < b->funcs.len; i++)
		if (b->funcs.items[i].name >= ns ||
		    b->funcs.items[i].category >= ns)
			return false;
	for (size_t i = 0; i < b->processes.len; i++)
		if (b->processes.items[i].name >= ns)
			return false;
	for (size_t i = 0; i < b->func_addrs.len; i++)
		if (b->func_addrs.items[i].func >= b->funcs.len ||
		    b->func_addrs.items[i].binary >= ns)
			return false;
	if (b->has_addr.len > b->funcs.len)
		return false;
	/* args are runs of the arena (read after the tracks) */
	for (uint32_t t = 0; t < b->ntracks; t++) {
		const struct btrack *bt = &b->tracks[t];
		for (size_t i = 0; i < bt->stack.len; i++)
			if (bt->stack.items[i].args >= b->args.len)
				return false;
		for (size_t i = 0; i < bt->instants.len; i++)
			if (bt->instants.items[i].args >= b->args.len)
				return false;
		for (size_t i = 0; i < bt->sargs.len; i++)
			if (bt->sargs.items[i].args >= b->args.len)
				return false;
	}
	for (size_t i = 0; i < b->markers.len; i++)
		if (b->markers.items[i].text >= ns)
			return false;
	for (size_t i = 0; i < b->logs.len; i++)
		if (b->logs.items[i].text >= ns ||
		    b->logs.items[i].track >= b->ntracks)
			return false;
	for (size_t i = 0; i < b->flows.len; i++) {
		const struct slice_ref *e[2] = { &b->flows.items[i].from,
		    &b->flows.items[i].to };
		for (int k = 0; k < 2; k++)
			if (e[k]->track >= b->ntracks)
				return false;
	}
	return b->args_start < b->args.len &&
	    hashmap_valid(&b->func_map, (uint32_t)b->funcs.len) &&
	    hashmap_valid(&b->process_map, (uint32_t)b->processes.len) &&
	    hashmap_valid(&b->track_map, b->ntracks) &&
	    hashmap_valid(&b->count_map, (uint32_t)b->records.len);
}

struct builder *
builder_load(struct blob_in *r, const struct trace *model, const char *path,
    struct index_store *store, bool store_all)
{
	struct builder *b = builder_new(path);
	b->store = store;
	b->store_all = store_all && store != NULL;
	VEC_FREE(&b->args);
	if (blob_get_u64(r) != SAVE_MAGIC || !load_strings(r, b))
		goto bad;
	/* the maps come first; their values are checked once what they
	 * name is read */
	get_map(r, &b->func_map);
	get_map(r, &b->process_map);
	get_map(r, &b->track_map);
	get_map(r, &b->count_map);
	BLOB_GET_VEC(r, &b->funcs);
	BLOB_GET_VEC(r, &b->func_addrs);
	BLOB_GET_VEC(r, &b->has_addr);
	BLOB_GET_VEC(r, &b->processes);
	uint32_t nt = blob_get_u32(r);
	if (r->bad || nt > (size_t)(r->end - r->p) / 64 || model == NULL ||
	    nt > model->ntracks)
		goto bad;
	if (nt > 0) {
		b->captracks = nt;
		b->tracks = xcalloc_aligned(64, ((size_t)nt * sizeof
		    *b->tracks + 63) & ~(size_t)63);
		memset(b->tracks, 0, (size_t)nt * sizeof *b->tracks);
	}
	for (uint32_t i = 0; i < nt; i++) {
		b->ntracks = i + 1;
		if (!load_track(r, b, &b->tracks[i], model != NULL &&
		    i < model->ntracks ? &model->tracks[i] : NULL))
			goto bad;
	}
	BLOB_GET_VEC(r, &b->markers);
	BLOB_GET_VEC(r, &b->flows);
	BLOB_GET_VEC(r, &b->logs);
	uint64_t nargs = blob_get_u64(r);
	b->args_start = (size_t)blob_get_u64(r);
	if (r->bad || model == NULL || nargs > model->nargs || nargs == 0)
		goto bad;
	b->args.items = own_items(b->store_all ? store : NULL, model->args,
	    (size_t)nargs, sizeof *b->args.items, false, &b->args.cap,
	    &b->args_sa);
	b->args.len = (size_t)nargs;
	if (!load_texts(r, b))
		goto bad;
	b->ndiags_dropped = blob_get_u64(r);
	b->has_errors = blob_get_bool(r);
	b->format = blob_get_str(r);
	b->version = blob_get_str(r);
	b->byte_order = blob_get_str(r);
	b->ticks_per_second = blob_get_f64(r);
	b->wall_origin = blob_get_i64(r);
	b->complete_until = blob_get_i64(r);
	b->open_to_now = blob_get_bool(r);
	b->now = blob_get_i64(r);
	if (r->bad || !ids_hold(b) || !time_ok(b->now) ||
	    !time_ok(b->complete_until) || !time_ok(b->wall_origin))
		goto bad;
	return b;
bad:
	r->bad = true;
	builder_free(b);
	return NULL;
}
