/*
 * The builder (see builder.h): collects what readers decode and turns it
 * into an immutable struct trace.
 *
 * Slices are appended to one growable array per (track, depth). A stack of
 * open frames per track pairs begins with ends; because slices at one
 * depth close in start order, appending keeps each depth sorted without a
 * sort at the end. Whole slices given out of order mark their depth for a
 * sort in builder_finish, which then also remaps the references (args,
 * flows) into that depth.
 */
#include "builder.h"
#include "builder_int.h"
#include "hashmap.h"
#include "index_store.h"
#include "strtab.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif
#include <string.h>

#define MAX_DIAGS 1000
/* Bounds that keep damaged input from costing quadratic time: how deep
 * below the top an end looks for its begin, and how many ends without a
 * begin may re-parent a whole track. */
#define POP_SEARCH_MAX 4096
#define ORPHAN_SHIFT_MAX 64

/* An array moved to whole cache lines of its own (its first old_size
 * bytes kept, the rest zeroed): threads that build different tracks then
 * never write to one line. */
static void *
grow_lines(void *old, size_t old_size, size_t new_size)
{
	void *p = xcalloc_aligned(64, (new_size + 63) & ~(size_t)63);
	if (old_size > 0)
		memcpy(p, old, old_size);
	free(old);
	return p;
}

/* Room for `need` more items in an append-only vector (items, len, cap)
 * that moves to the store once large, as a depth does (level_grow):
 * the copies of a builder that grows in a file (--follow) then map it
 * rather than copy it. *sa is the vector's array there, or NULL. */
static void
store_room(struct index_store *store, void **items, size_t *cap, size_t len,
    size_t elem, size_t need, struct store_array **sa)
{
	if (*sa == NULL && (store == NULL ||
	    (len + need) * elem < INDEX_STORE_MIN)) {
		size_t nc = *cap ? *cap * 2 : 16;
		while (nc < len + need)
			nc *= 2;
		*items = xreallocarray(*items, nc, elem);
		*cap = nc;
		return;
	}
	if (*sa == NULL) {
		*sa = index_store_array(store, elem, *items, len * elem);
		free(*items);
	}
	*cap = store_array_grow(*sa, (len + need) * elem) / elem;
	*items = store_array_base(*sa);
}

/* (the call only when the vector is full: it is on every instant's and
 * arg's way) */
#define STORE_ROOM(store, v, sa, need) do {                               \
	if ((v)->len + (need) > (v)->cap)                                     \
		store_room((store), (void **)&(v)->items, &(v)->cap, (v)->len,    \
		    sizeof *(v)->items, (need), &(sa));                           \
} while (0)

/* A stored vector is the store's: its memory is not freed. */
#define STORE_VEC_FREE(v, sa) do {                                        \
	if ((sa) != NULL)                                                     \
		(v)->items = NULL;                                                \
	VEC_FREE(v);                                                          \
} while (0)

struct builder *
builder_new(const char *path)
{
	struct builder *b = xcalloc(1, sizeof *b);
	pthread_mutex_init(&b->lock, NULL);
	b->strings = strtab_new();
	b->path = xstrdup(path ? path : "");
	b->wall_origin = TTV_NS_MIN;
	b->complete_until = TTV_NS_MAX;
	b->now = TTV_NS_MIN;
	/* args_id 0 means "none": keep an empty run at offset 0. */
	VEC_PUSH(&b->args, ((struct arg){ .type = ARG_NULL }));
	return b;
}

void
builder_set_store(struct builder *b, struct index_store *store)
{
	b->store = store;
}

void
builder_store_all(struct builder *b)
{
	b->store_all = true;
}

/* Where store_room's vectors grow once large: only a builder that is
 * copied as it goes keeps them in its store; an index being built
 * writes them after its depths, from memory. */
static inline struct index_store *
vec_store(const struct builder *b)
{
	return b->store_all ? b->store : NULL;
}

static void
btrack_free(struct btrack *bt)
{
	for (uint32_t d = 0; d < bt->nlevels; d++) {
		struct level_side *side = bt->levels[d].side;
		/* Stored arrays are the store's. */
		if (side == NULL || side->ss == NULL)
			xbig_free(bt->levels[d].s);
		if (side == NULL || side->ws == NULL)
			free(bt->levels[d].w);
		if (side != NULL)
			VEC_FREE(&side->longs);
		free(side);
	}
	free(bt->levels);
	VEC_FREE(&bt->stack);
	STORE_VEC_FREE(&bt->instants, bt->instants_sa);
	STORE_VEC_FREE(&bt->samples, bt->samples_sa);
	VEC_FREE(&bt->sargs);
}

void
builder_free(struct builder *b)
{
	if (b == NULL)
		return;
	strtab_free(b->strings);
	hashmap_free(&b->func_map);
	hashmap_free(&b->process_map);
	hashmap_free(&b->track_map);
	hashmap_free(&b->count_map);
	VEC_FREE(&b->funcs);
	VEC_FREE(&b->func_addrs);
	VEC_FREE(&b->has_addr);
	VEC_FREE(&b->processes);
	for (uint32_t i = 0; i < b->ntracks; i++)
		btrack_free(&b->tracks[i]);
	free(b->tracks);
	VEC_FREE(&b->markers);
	VEC_FREE(&b->flows);
	VEC_FREE(&b->logs);
	STORE_VEC_FREE(&b->args, b->args_sa);
	for (size_t i = 0; i < b->records.len; i++)
		free(b->records.items[i].kind);
	VEC_FREE(&b->records);
	for (size_t i = 0; i < b->meta_keys.len; i++) {
		free(b->meta_keys.items[i]);
		free(b->meta_values.items[i]);
	}
	VEC_FREE(&b->meta_keys);
	VEC_FREE(&b->meta_values);
	for (size_t i = 0; i < b->diags.len; i++)
		free(b->diags.items[i].text);
	VEC_FREE(&b->diags);
	free(b->path);
	free(b->format);
	free(b->version);
	free(b->byte_order);
	pthread_mutex_destroy(&b->lock);
	if (b->owns_store)
		index_store_free(b->store);
	free(b);
}

static inline void fence_stores(void);

/* A copy of n items (NULL for none). */
static void *
dup_items(const void *p, size_t n, size_t size)
{
	if (n == 0 || p == NULL)
		return NULL;
	void *c = xreallocarray(NULL, n, size);
	memcpy(c, p, n * size);
	return c;
}

#define VEC_COPY(dst, src) do {                                           \
	(dst)->items = dup_items((src)->items, (src)->len,                    \
	    sizeof *(src)->items);                                            \
	(dst)->len = (dst)->cap = (src)->len;                                 \
} while (0)

/* A copy of a vector of store_room's: a stored one is forked (its
 * written pages mapped), another copied. */
#define STORE_VEC_COPY(store, dst, dsa, src, ssa) do {                     \
	if ((ssa) != NULL) {                                                  \
		(dsa) = store_array_fork((store), (ssa), (src)->len *             \
		    sizeof *(src)->items);                                        \
		(dst)->items = store_array_base(dsa);                             \
		(dst)->len = (src)->len;                                          \
		(dst)->cap = (src)->cap;                                          \
	} else {                                                              \
		(dsa) = NULL;                                                     \
		VEC_COPY(dst, src);                                               \
	}                                                                     \
} while (0)

static struct hashmap
hashmap_copy(const struct hashmap *m)
{
	struct hashmap c = *m;
	c.slots = dup_items(m->slots, m->nslots, sizeof *m->slots);
	return c;
}

static char *
dup_str(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* A copy of a level kept in the index file: its written pages are
 * mapped, not copied (index_store_fork). */
static void
level_copy_stored(const struct blevel *l, struct blevel *cl,
    struct index_store *store)
{
	size_t n = l->len;
	cl->side->ss = store_array_fork(store, l->side->ss, n * sizeof *l->s);
	cl->s = store_array_base(cl->side->ss);
	size_t cap = l->cap;
	if (l->side->ws != NULL) {
		cl->side->ws = store_array_fork(store, l->side->ws,
		    n * sizeof *l->w);
		cl->w = store_array_base(cl->side->ws);
	} else if (l->w != NULL) {
		cl->w = dup_items(l->w, cap, sizeof *l->w);
	}
	cl->cap = (uint32_t)cap;
}

static void
btrack_copy(const struct btrack *bt, struct btrack *c,
    struct index_store *store)
{
	/* the plain fields; the arrays below are c's own */
	memcpy(c, bt, sizeof *c);
	c->store = store;
	c->levels = bt->nlevels ? grow_lines(NULL, 0, bt->nlevels *
	    sizeof *c->levels) : NULL;
	for (uint32_t d = 0; d < bt->nlevels; d++) {
		const struct blevel *l = &bt->levels[d];
		struct blevel *cl = &c->levels[d];
		*cl = *l;
		cl->cap = l->len;
		cl->s = NULL;
		cl->w = NULL;
		cl->side = NULL;
		if (l->side != NULL) {
			cl->side = xcalloc(1, sizeof *cl->side);
			VEC_COPY(&cl->side->longs, &l->side->longs);
		}
		if (l->side != NULL && l->side->ss != NULL) {
			level_copy_stored(l, cl, store);
		} else if (l->len > 0) {
			cl->s = xbig_realloc(NULL, (size_t)l->len *
			    sizeof *cl->s);
			memcpy(cl->s, l->s, (size_t)l->len * sizeof *cl->s);
			cl->w = dup_items(l->w, l->len, sizeof *l->w);
		}
	}
	VEC_COPY(&c->stack, &bt->stack);
	STORE_VEC_COPY(store, &c->instants, c->instants_sa, &bt->instants,
	    bt->instants_sa);
	STORE_VEC_COPY(store, &c->samples, c->samples_sa, &bt->samples,
	    bt->samples_sa);
	VEC_COPY(&c->sargs, &bt->sargs);
}

struct builder *
builder_copy(const struct builder *b)
{
	/* what was stored from other threads is seen (builder_thread_done)
	 * and this one's own, with the written pages copied or synced */
	fence_stores();
	struct builder *c = xcalloc(1, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	if (b->store != NULL) {
		c->store = index_store_fork(b->store);
		c->owns_store = true;
	}
	c->strings = strtab_copy(b->strings);
	c->func_map = hashmap_copy(&b->func_map);
	c->process_map = hashmap_copy(&b->process_map);
	c->track_map = hashmap_copy(&b->track_map);
	c->count_map = hashmap_copy(&b->count_map);
	VEC_COPY(&c->funcs, &b->funcs);
	VEC_COPY(&c->func_addrs, &b->func_addrs);
	VEC_COPY(&c->has_addr, &b->has_addr);
	VEC_COPY(&c->processes, &b->processes);
	c->ntracks = c->captracks = b->ntracks;
	c->tracks = b->ntracks ? grow_lines(NULL, 0, b->ntracks *
	    sizeof *c->tracks) : NULL;
	for (uint32_t i = 0; i < b->ntracks; i++)
		btrack_copy(&b->tracks[i], &c->tracks[i], c->store);
	VEC_COPY(&c->markers, &b->markers);
	VEC_COPY(&c->flows, &b->flows);
	VEC_COPY(&c->logs, &b->logs);
	STORE_VEC_COPY(c->store, &c->args, c->args_sa, &b->args, b->args_sa);
	c->args_start = b->args_start;
	VEC_COPY(&c->records, &b->records);
	for (size_t i = 0; i < c->records.len; i++)
		c->records.items[i].kind = xstrdup(b->records.items[i].kind);
	VEC_COPY(&c->meta_keys, &b->meta_keys);
	VEC_COPY(&c->meta_values, &b->meta_values);
	for (size_t i = 0; i < c->meta_keys.len; i++) {
		c->meta_keys.items[i] = xstrdup(b->meta_keys.items[i]);
		c->meta_values.items[i] = xstrdup(b->meta_values.items[i]);
	}
	VEC_COPY(&c->diags, &b->diags);
	for (size_t i = 0; i < c->diags.len; i++)
		c->diags.items[i].text = xstrdup(b->diags.items[i].text);
	c->ndiags_dropped = b->ndiags_dropped;
	c->has_errors = b->has_errors;
	c->path = dup_str(b->path);
	c->format = dup_str(b->format);
	c->version = dup_str(b->version);
	c->byte_order = dup_str(b->byte_order);
	c->ticks_per_second = b->ticks_per_second;
	c->wall_origin = b->wall_origin;
	c->complete_until = b->complete_until;
	c->open_to_now = b->open_to_now;
	c->store_all = b->store_all;
	c->now = b->now;
	return c;
}

struct trace *
builder_snapshot(const struct builder *b)
{
	struct builder *c = builder_copy(b);
	return c != NULL ? builder_finish(c) : NULL;
}

void
builder_lock(struct builder *b)
{
	pthread_mutex_lock(&b->lock);
}

void
builder_unlock(struct builder *b)
{
	pthread_mutex_unlock(&b->lock);
}

/* ------------------------------------------------------------ metadata */

static void
replace(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

void
builder_set_format(struct builder *b, const char *format, const char *version,
    const char *byte_order)
{
	replace(&b->format, format);
	replace(&b->version, version);
	replace(&b->byte_order, byte_order);
}

void
builder_set_tick_rate(struct builder *b, double ticks_per_second)
{
	b->ticks_per_second = ticks_per_second;
}

void
builder_set_wall_origin(struct builder *b, ttv_ns ns_since_epoch)
{
	b->wall_origin = ns_since_epoch;
}

void
builder_open_to_now(struct builder *b)
{
	b->open_to_now = true;
}

void
builder_set_complete_until(struct builder *b, ttv_ns t)
{
	b->complete_until = t;
}

void
builder_meta(struct builder *b, const char *key, const char *value)
{
	VEC_PUSH(&b->meta_keys, xstrdup(key));
	VEC_PUSH(&b->meta_values, xstrdup(value ? value : ""));
}

void
builder_count(struct builder *b, const char *kind, uint64_t n)
{
	size_t len = strlen(kind);
	uint64_t h = hash_bytes(kind, len);
	uint32_t idx;
	/* Collisions of the 64-bit hash are checked by name. */
	for (uint64_t k2 = 0;; k2++) {
		if (!hashmap_get(&b->count_map, h, k2, &idx))
			break;
		if (strcmp(b->records.items[idx].kind, kind) == 0) {
			b->records.items[idx].count += n;
			return;
		}
	}
	uint64_t k2 = 0;
	while (hashmap_get(&b->count_map, h, k2, &idx))
		k2++;
	hashmap_put(&b->count_map, h, k2, (uint32_t)b->records.len);
	VEC_PUSH(&b->records, ((struct record_count){ xstrdup(kind), n }));
}

/* --------------------------------------------------------- diagnostics */

static void
diag(struct builder *b, enum diag_level level, const char *where,
    uint64_t pos, const char *fmt, va_list ap)
{
	if (level == DIAG_ERROR)
		b->has_errors = true;
	if (b->diags.len >= MAX_DIAGS) {
		b->ndiags_dropped++;
		return;
	}
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	char *text = where ? xasprintf("%s %llu: %s", where,
	    (unsigned long long)pos, msg) : xstrdup(msg);
	VEC_PUSH(&b->diags, ((struct diag_msg){ level, text }));
}

#define DIAG_FN(fn, level, where)                                         \
void                                                                      \
fn(struct builder *b, uint64_t pos, const char *fmt, ...)                 \
{                                                                         \
	va_list ap;                                                           \
	va_start(ap, fmt);                                                    \
	diag(b, level, where, pos, fmt, ap);                                  \
	va_end(ap);                                                           \
}

DIAG_FN(builder_warn, DIAG_WARNING, "offset")
DIAG_FN(builder_error, DIAG_ERROR, "offset")
DIAG_FN(builder_line_warn, DIAG_WARNING, "line")
DIAG_FN(builder_line_error, DIAG_ERROR, "line")

void
builder_note(struct builder *b, enum diag_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag(b, level, NULL, 0, fmt, ap);
	va_end(ap);
}

bool
builder_has_errors(const struct builder *b)
{
	return b->has_errors;
}

/* --------------------------------------------------------------- names */

str_id
builder_intern(struct builder *b, const char *s, size_t len)
{
	return strtab_intern(b->strings, s, len);
}

str_id
builder_intern_cstr(struct builder *b, const char *s)
{
	return strtab_intern(b->strings, s, strlen(s));
}

func_id
builder_func(struct builder *b, str_id name, str_id category,
    int64_t source_id)
{
	uint32_t f;
	if (hashmap_get(&b->func_map, name, category, &f))
		return f;
	if (b->funcs.len >= FUNC_ID_MAX) {
		/* A slice has 24 bits for its function: the rest share one. */
		if (b->funcs.len == FUNC_ID_MAX) {
			VEC_PUSH(&b->funcs, ((struct func){ builder_intern_cstr(b,
			    "(more functions than ttv can name)"), 0, -1 }));
			builder_note(b, DIAG_WARNING, "more than %u distinct "
			    "function names: the rest are shown as one",
			    FUNC_ID_MAX);
		}
		return FUNC_ID_MAX;
	}
	f = (uint32_t)b->funcs.len;
	VEC_PUSH(&b->funcs, ((struct func){ name, category, source_id }));
	hashmap_put(&b->func_map, name, category, f);
	return f;
}

void
builder_func_rename(struct builder *b, func_id f, str_id name)
{
	if (f < b->funcs.len)
		b->funcs.items[f].name = name;
}

void
builder_func_addr(struct builder *b, func_id f, const char *binary,
    uint64_t addr)
{
	if (f >= b->funcs.len || binary == NULL)
		return;
	if (f >= b->has_addr.len) {
		size_t n = b->funcs.len;
		VEC_RESERVE(&b->has_addr, n - b->has_addr.len);
		memset(b->has_addr.items + b->has_addr.len, 0,
		    n - b->has_addr.len);
		b->has_addr.len = n;
	}
	if (b->has_addr.items[f])
		return;
	b->has_addr.items[f] = 1;
	VEC_PUSH(&b->func_addrs, ((struct func_addr){ f,
	    builder_intern_cstr(b, binary), addr }));
}

static int
cmp_func_addr(const void *a, const void *b)
{
	const struct func_addr *x = a, *y = b;
	return (x->func > y->func) - (x->func < y->func);
}

/* ---------------------------------------------------- processes, tracks */

uint32_t
builder_process(struct builder *b, int64_t pid)
{
	uint32_t p;
	if (hashmap_get(&b->process_map, (uint64_t)pid, 0, &p))
		return p;
	p = (uint32_t)b->processes.len;
	VEC_PUSH(&b->processes, ((struct process){ pid, 0 }));
	hashmap_put(&b->process_map, (uint64_t)pid, 0, p);
	return p;
}

void
builder_process_name(struct builder *b, uint32_t process, str_id name)
{
	if (process < b->processes.len)
		b->processes.items[process].name = name;
}

static uint64_t
track_key(enum track_kind kind, uint32_t process)
{
	return (uint64_t)kind << 32 | process;
}

uint32_t
builder_track_new(struct builder *b, enum track_kind kind, uint32_t process,
    int64_t tid)
{
	if (b->ntracks == b->captracks) {
		b->captracks = b->captracks ? b->captracks * 2 : 16;
		b->tracks = grow_lines(b->tracks, b->ntracks *
		    sizeof *b->tracks, b->captracks * sizeof *b->tracks);
	}
	uint32_t t = b->ntracks++;
	struct btrack *bt = &b->tracks[t];
	memset(bt, 0, sizeof *bt);
	bt->kind = kind;
	bt->process = process;
	bt->tid = tid;
	bt->first = TTV_NS_MAX;
	bt->last = TTV_NS_MIN;
	bt->store = b->store;
	/* The newest track of an id is the one later events go to. */
	hashmap_put(&b->track_map, (uint64_t)tid, track_key(kind, process), t);
	return t;
}

uint32_t
builder_track(struct builder *b, enum track_kind kind, uint32_t process,
    int64_t tid)
{
	uint32_t t;
	if (hashmap_get(&b->track_map, (uint64_t)tid, track_key(kind, process),
	    &t))
		return t;
	return builder_track_new(b, kind, process, tid);
}

void
builder_track_name(struct builder *b, uint32_t track, str_id name)
{
	b->tracks[track].name = name;
}

static inline void
touch(struct btrack *bt, ttv_ns t)
{
	if (t < bt->first)
		bt->first = t;
	if (t > bt->last)
		bt->last = t;
}

void
builder_track_touch(struct builder *b, uint32_t track, ttv_ns t)
{
	touch(&b->tracks[track], t);
}

ttv_ns
builder_track_first(const struct builder *b, uint32_t track)
{
	return b->tracks[track].first;
}

ttv_ns
builder_track_last(const struct builder *b, uint32_t track)
{
	return b->tracks[track].last;
}

/* ---------------------------------------------------------------- args */

void
builder_args_begin(struct builder *b)
{
	b->args_start = b->args.len;
	STORE_ROOM(vec_store(b), &b->args, b->args_sa, 1);
	b->args.items[b->args.len++] = (struct arg){ .type = ARG_NULL };
}

void
builder_arg(struct builder *b, str_id name, enum arg_type type, uint64_t bits)
{
	struct arg a = { .name = name, .type = type };
	a.v.u = bits;
	STORE_ROOM(vec_store(b), &b->args, b->args_sa, 1);
	b->args.items[b->args.len++] = a;
}

void
builder_arg_i64(struct builder *b, str_id name, int64_t v)
{
	builder_arg(b, name, ARG_I64, (uint64_t)v);
}

void
builder_arg_u64(struct builder *b, str_id name, uint64_t v)
{
	builder_arg(b, name, ARG_U64, v);
}

void
builder_arg_f64(struct builder *b, str_id name, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	builder_arg(b, name, ARG_F64, bits);
}

void
builder_arg_str(struct builder *b, str_id name, str_id v)
{
	builder_arg(b, name, ARG_STR, v);
}

args_id
builder_args_end(struct builder *b)
{
	size_t n = b->args.len - b->args_start - 1;
	if (n == 0) {
		b->args.len = b->args_start;
		return 0;
	}
	if (b->args_start > UINT32_MAX) {
		/* The arena is full: drop the run rather than alias. */
		b->args.len = b->args_start;
		return 0;
	}
	b->args.items[b->args_start].v.u = n;
	return (args_id)b->args_start;
}

/* The args of run a, bounded by the arena as trace_args does: a run id
 * kept across runs (builder_load, a reader's grow_load) is checked to
 * be below the arena's length, not to start a run. */
static size_t
run_len(const struct builder *b, args_id a)
{
	if (a >= b->args.len)
		return 0;
	uint64_t n = b->args.items[a].v.u;
	return n > b->args.len - a - 1 ? b->args.len - a - 1 : (size_t)n;
}

/* A new run holding the args of a then those of c. */
static args_id
args_merge(struct builder *b, args_id a, args_id c)
{
	if (a == 0)
		return c;
	if (c == 0)
		return a;
	size_t na = run_len(b, a), nc = run_len(b, c);
	builder_args_begin(b);
	STORE_ROOM(vec_store(b), &b->args, b->args_sa, na + nc);
	for (size_t i = 0; i < na; i++)
		b->args.items[b->args.len++] = b->args.items[a + 1 + i];
	for (size_t i = 0; i < nc; i++)
		b->args.items[b->args.len++] = b->args.items[c + 1 + i];
	return builder_args_end(b);
}

/* -------------------------------------------------------------- slices */

static struct blevel *
level_slow(struct btrack *bt, uint32_t depth)
{
	{
		bt->levels = grow_lines(bt->levels, bt->nlevels *
		    sizeof *bt->levels, (depth + 1) * sizeof *bt->levels);
		memset(bt->levels + bt->nlevels, 0,
		    (depth + 1 - bt->nlevels) * sizeof *bt->levels);
		for (uint32_t d = bt->nlevels; d <= depth; d++)
			bt->levels[d].last_start = TTV_NS_MIN;
		bt->nlevels = depth + 1;
	}
	return &bt->levels[depth];
}

static inline struct blevel *
level(struct btrack *bt, uint32_t depth)
{
	return depth < bt->nlevels ? &bt->levels[depth] :
	    level_slow(bt, depth);
}

static struct level_side *
side_of(struct blevel *l)
{
	if (l->side == NULL)
		l->side = xcalloc(1, sizeof *l->side);
	return l->side;
}

/* Grows a level kept in the index file to at least nc slices. */
static void
level_grow_stored(struct index_store *store, struct blevel *l, size_t nc)
{
	struct level_side *side = side_of(l);
	if (side->ss == NULL) {
		side->ss = index_store_array(store, sizeof *l->s, l->s,
		    (size_t)l->len * sizeof *l->s);
		xbig_free(l->s);
	}
	size_t cap = store_array_grow(side->ss, nc * sizeof *l->s) /
	    sizeof *l->s;
	l->s = store_array_base(side->ss);
	if (l->w != NULL) {
		if (side->ws == NULL) {
			side->ws = index_store_array(store, sizeof *l->w, l->w,
			    (size_t)l->len * sizeof *l->w);
			free(l->w);
		}
		size_t wcap = store_array_grow(side->ws, cap * sizeof *l->w) /
		    sizeof *l->w;
		l->w = store_array_base(side->ws);
		if (wcap < cap)
			cap = wcap;
	}
	l->cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
}

static void
level_grow(struct index_store *store, struct blevel *l)
{
	/* Small at first: a stack 10^6 calls deep has 10^6 levels of one
	 * slice each, and 64 slots a level cost 1 KB each (the budget). */
	size_t nc = l->cap ? (size_t)l->cap + l->cap / 2 + 1 : 1;
	if (nc > UINT32_MAX) {
		/* 2^32 slices at one depth of one track (a 64 GB level):
		 * past what a slice_ref can name */
		if (l->cap == UINT32_MAX)
			abort();
		nc = UINT32_MAX;
	}
	if (store != NULL && ((l->side != NULL && l->side->ss != NULL) ||
	    nc * sizeof *l->s >= INDEX_STORE_MIN)) {
		/* One chunk at a time: what a stored depth holds beyond its
		 * slices is file space (the store sizes its chunks). */
		level_grow_stored(store, l, (size_t)l->len + 1);
		return;
	}
	l->s = xbig_realloc(l->s, nc * sizeof *l->s);
	if (l->w != NULL)
		l->w = xreallocarray(l->w, nc, sizeof *l->w);
	l->cap = (uint32_t)nc;
}

/* Slices go to new memory, many levels at once, and are read only after
 * the load: streaming stores fill their lines without reading each one
 * in first, which otherwise costs most of the builder's time on large
 * traces. They are weakly ordered: builder_finish and
 * builder_thread_done fence them. */
static inline void
store_slice(struct slice *dst, struct slice s)
{
#ifdef __SSE2__
	long long w[2];
	memcpy(w, &s, sizeof w);
	_mm_stream_si64((long long *)dst, w[0]);
	_mm_stream_si64((long long *)dst + 1, w[1]);
#else
	*dst = s;
#endif
}

static inline void
fence_stores(void)
{
#ifdef __SSE2__
	_mm_sfence();
#endif
}

void
builder_thread_done(struct builder *b)
{
	(void)b;
	fence_stores();
}

/* Appends a slice; returns its index. The caller widens the track's
 * time range (for stacked slices the start was seen at the push). */
static inline size_t
append(struct btrack *bt, uint32_t depth, ttv_ns start, ttv_ns dur,
    func_id f, uint32_t flags)
{
	struct blevel *l = level(bt, depth);
	if (l->len == l->cap)
		level_grow(bt->store, l);
	if (start < l->last_start && !l->unsorted) {
		l->unsorted = true;
		bt->reorders++;
	}
	l->last_start = start;
	size_t i = l->len++;
	/* built whole and stored once: setting the bit-fields in place
	 * would first read the new, not yet cached line */
	struct slice s = { .start = start, .func = f,
	    .flags = flags & SLICE_STORED_FLAGS };
	if (dur >= (ttv_ns)SLICE_DUR_LONG) {
		s.dur32 = SLICE_DUR_LONG;
		VEC_PUSH(&side_of(l)->longs,
		    ((struct long_dur){ (uint32_t)i, 0, dur }));
	} else {
		s.dur32 = (uint32_t)dur;
	}
	store_slice(&l->s[i], s);
	if (l->w != NULL)
		l->w[i] = 1;
	return i;
}

static inline void
close_frame(struct builder *b, uint32_t track, ttv_ns t, uint32_t flags)
{
	struct btrack *bt = &b->tracks[track];
	if ((flags & SLICE_UNTERMINATED) && b->open_to_now && b->now > t)
		t = b->now;
	struct open_frame fr = bt->stack.items[--bt->stack.len];
	uint32_t depth = (uint32_t)bt->stack.len;
	if (t < fr.start)
		t = fr.start;	/* time went backwards: keep it a point */
	if (fr.args != 0)
		flags |= SLICE_HAS_ARGS;
	size_t i = append(bt, depth, fr.start, t - fr.start, fr.func, flags);
	if (fr.args != 0)
		VEC_PUSH(&bt->sargs, ((struct slice_args){ depth, (uint32_t)i,
		    fr.args }));
	bt->has_last = true;
	bt->last_ref = (struct slice_ref){ track, depth, (uint32_t)i };
}

void
builder_push(struct builder *b, uint32_t track, ttv_ns t, func_id f)
{
	struct btrack *bt = &b->tracks[track];
	VEC_PUSH(&bt->stack, ((struct open_frame){ t, f, 0 }));
	touch(bt, t);
}

void
builder_push_args(struct builder *b, uint32_t track, args_id a)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->stack.len == 0 || a == 0)
		return;
	struct open_frame *fr = &bt->stack.items[bt->stack.len - 1];
	fr->args = args_merge(b, fr->args, a);
}

bool
builder_pop(struct builder *b, uint32_t track, ttv_ns t, uint32_t flags)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->stack.len == 0)
		return false;
	close_frame(b, track, t, flags);
	touch(bt, t);
	return true;
}

enum pop_result
builder_pop_func(struct builder *b, uint32_t track, ttv_ns t, func_id f,
    uint32_t flags)
{
	struct btrack *bt = &b->tracks[track];
	size_t n = bt->stack.len;
	if (n > 0 && bt->stack.items[n - 1].func == f) {
		close_frame(b, track, t, flags);
		touch(bt, t);
		return POP_MATCHED;
	}
	size_t i = n, floor = n > POP_SEARCH_MAX ? n - POP_SEARCH_MAX : 0;
	while (i > floor && bt->stack.items[i - 1].func != f)
		i--;
	if (i == floor)
		return POP_NOT_FOUND;
	while (bt->stack.len > i)
		close_frame(b, track, t, SLICE_UNWOUND);
	close_frame(b, track, t, flags);
	touch(bt, t);
	return POP_UNWOUND;
}

void
builder_pop_orphan(struct builder *b, uint32_t track, ttv_ns t, func_id f,
    uint32_t flags)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->stack.len != 0)
		return;
	if (bt->orphan_shifts >= ORPHAN_SHIFT_MAX) {
		/* Past the bound the end only gets the time since the
		 * track's last event. */
		if (bt->orphan_shifts++ == ORPHAN_SHIFT_MAX)
			builder_note(b, DIAG_WARNING, "more than %d ends "
			    "without a begin on one track: later ones are "
			    "kept as short slices", ORPHAN_SHIFT_MAX);
		ttv_ns from = bt->last < t ? bt->last : t;
		size_t i = append(bt, 0, from, t - from, f,
		    flags | SLICE_NO_ENTRY);
		touch(bt, t);
		bt->has_last = true;
		bt->last_ref = (struct slice_ref){ track, 0, (uint32_t)i };
		return;
	}
	bt->orphan_shifts++;
	bt->reorders++;
	touch(bt, t);
	/* Everything so far happened inside this frame: it becomes depth 0
	 * and every existing depth moves one down. */
	if (bt->nlevels > 0) {
		level(bt, bt->nlevels);
		memmove(bt->levels + 1, bt->levels,
		    (bt->nlevels - 1) * sizeof *bt->levels);
		memset(&bt->levels[0], 0, sizeof bt->levels[0]);
		bt->levels[0].last_start = TTV_NS_MIN;
		for (size_t i = 0; i < bt->sargs.len; i++)
			bt->sargs.items[i].depth++;
		if (bt->has_last)
			bt->last_ref.depth++;
		for (size_t i = 0; i < b->flows.len; i++) {
			struct flow *fl = &b->flows.items[i];
			if (fl->from.track == track)
				fl->from.depth++;
			if (fl->to.track == track)
				fl->to.depth++;
		}
	}
	size_t i = append(bt, 0, bt->first, t - bt->first, f,
	    flags | SLICE_NO_ENTRY);
	touch(bt, t);
	bt->has_last = true;
	bt->last_ref = (struct slice_ref){ track, 0, (uint32_t)i };
}

void
builder_calls(struct builder *b, uint32_t track,
    const struct builder_call *c, size_t n)
{
	struct btrack *bt = &b->tracks[track];
	/* the track's time range kept in registers, written back before
	 * anything that reads it */
	ttv_ns first = bt->first, last = bt->last;
	for (size_t i = 0; i < n; i++) {
		ttv_ns t = c[i].t;
		size_t depth = bt->stack.len;
		switch ((enum builder_call_kind)c[i].kind) {
		case BUILDER_CALL_ENTRY:
			VEC_PUSH(&bt->stack, ((struct open_frame){ t,
			    c[i].func, 0 }));
			break;
		case BUILDER_CALL_EXIT:
			if (depth > 0 &&
			    bt->stack.items[depth - 1].func == c[i].func) {
				close_frame(b, track, t, 0);
				break;
			}
			bt->first = first;
			bt->last = last;
			if (builder_pop_func(b, track, t, c[i].func, 0) ==
			    POP_NOT_FOUND && bt->stack.len == 0) {
				builder_lock(b);
				builder_pop_orphan(b, track, t, c[i].func, 0);
				builder_unlock(b);
			}
			first = bt->first;
			last = bt->last;
			continue;
		case BUILDER_CALL_EXIT_ANY:
			if (depth == 0)
				continue;
			close_frame(b, track, t, 0);
			break;
		}
		first = t < first ? t : first;
		last = t > last ? t : last;
	}
	bt->first = first;
	bt->last = last;
}

uint32_t
builder_stack_depth(const struct builder *b, uint32_t track)
{
	return (uint32_t)b->tracks[track].stack.len;
}

func_id
builder_stack_func(const struct builder *b, uint32_t track, uint32_t d)
{
	const struct btrack *bt = &b->tracks[track];
	return d < bt->stack.len ? bt->stack.items[d].func : 0;
}

void
builder_slice(struct builder *b, uint32_t track, uint32_t depth,
    ttv_ns start, ttv_ns dur, func_id f, uint32_t flags, args_id a)
{
	struct btrack *bt = &b->tracks[track];
	if (dur < 0)
		dur = 0;
	if (a != 0)
		flags |= SLICE_HAS_ARGS;
	size_t i = append(bt, depth, start, dur, f, flags);
	touch(bt, start);
	touch(bt, start + dur);
	if (a != 0)
		VEC_PUSH(&bt->sargs, ((struct slice_args){ depth, (uint32_t)i,
		    a }));
	bt->has_last = true;
	bt->last_ref = (struct slice_ref){ track, depth, (uint32_t)i };
}

void
builder_slice_weighted(struct builder *b, uint32_t track, uint32_t depth,
    ttv_ns start, ttv_ns dur, func_id f, uint32_t flags, uint32_t weight)
{
	struct btrack *bt = &b->tracks[track];
	struct blevel *l = level(bt, depth);
	if (l->w == NULL) {
		l->w = xreallocarray(NULL, l->cap ? l->cap : 1, sizeof *l->w);
		for (size_t i = 0; i < l->len; i++)
			l->w[i] = 1;
		if (l->side != NULL && l->side->ss != NULL) {
			/* A stored depth: its weights are stored too. */
			l->side->ws = index_store_array(bt->store, sizeof *l->w,
			    l->w, (size_t)l->len * sizeof *l->w);
			free(l->w);
			store_array_grow(l->side->ws, (size_t)l->cap *
			    sizeof *l->w);
			l->w = store_array_base(l->side->ws);
		}
	}
	builder_slice(b, track, depth, start, dur, f, flags | SLICE_SAMPLED, 0);
	l = &bt->levels[depth];
	l->w[l->len - 1] = weight;
}

void
builder_instant(struct builder *b, uint32_t track, ttv_ns t, func_id f,
    args_id a)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->instants.len > 0 &&
	    t < bt->instants.items[bt->instants.len - 1].t &&
	    !bt->instants_unsorted) {
		bt->instants_unsorted = true;
		bt->reorders++;
	}
	STORE_ROOM(vec_store(b), &bt->instants, bt->instants_sa, 1);
	bt->instants.items[bt->instants.len++] = (struct instant){ t, f, a };
	touch(bt, t);
}

void
builder_counter(struct builder *b, uint32_t track, ttv_ns t, double v)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->samples.len > 0 &&
	    t < bt->samples.items[bt->samples.len - 1].t &&
	    !bt->samples_unsorted) {
		bt->samples_unsorted = true;
		bt->reorders++;
	}
	STORE_ROOM(vec_store(b), &bt->samples, bt->samples_sa, 1);
	bt->samples.items[bt->samples.len++] =
	    (struct counter_sample){ t, v };
	touch(bt, t);
}

void
builder_marker(struct builder *b, enum marker_kind kind, uint32_t track,
    ttv_ns t, int64_t value, str_id text)
{
	struct marker m = { .t = t, .track = track, .kind = (uint16_t)kind,
	    .value = value, .text = text };
	VEC_PUSH(&b->markers, m);
	if (track < b->ntracks)
		touch(&b->tracks[track], t);
}

void
builder_flow(struct builder *b, uint64_t id, struct slice_ref from,
    struct slice_ref to)
{
	VEC_PUSH(&b->flows, ((struct flow){ id, from, to }));
}

void
builder_log(struct builder *b, uint32_t track, ttv_ns t, str_id text)
{
	VEC_PUSH(&b->logs, ((struct log_entry){ t, track, text }));
	if (track < b->ntracks)
		touch(&b->tracks[track], t);
}

bool
builder_last_slice(const struct builder *b, uint32_t track,
    struct slice_ref *out)
{
	const struct btrack *bt = &b->tracks[track];
	if (!bt->has_last)
		return false;
	*out = bt->last_ref;
	return true;
}

bool
builder_open_slice(struct builder *b, uint32_t track, struct slice_ref *out)
{
	struct btrack *bt = &b->tracks[track];
	if (bt->stack.len == 0)
		return false;
	uint32_t depth = (uint32_t)bt->stack.len - 1;
	struct blevel *l = level(bt, depth);
	*out = (struct slice_ref){ track, depth, (uint32_t)l->len };
	return true;
}

/* -------------------------------------------------------------- finish */

/* Indices into a level's slices (arg), by start. */
static int
cmp_index_by_start(const void *a, const void *c, void *arg)
{
	const struct slice *sort_base = arg;
	const struct slice *x = &sort_base[*(const uint32_t *)a];
	const struct slice *y = &sort_base[*(const uint32_t *)c];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)c;
	return i < j ? -1 : i > j;
}

static int
cmp_long(const void *a, const void *c)
{
	const struct long_dur *x = a, *y = c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts a depth given out of order and remaps references into it. */
static void
sort_level(struct builder *b, uint32_t track, uint32_t depth)
{
	struct blevel *l = &b->tracks[track].levels[depth];
	uint32_t *order = xreallocarray(NULL, l->len, sizeof *order);
	for (size_t i = 0; i < l->len; i++)
		order[i] = (uint32_t)i;
	xqsort_r(order, l->len, sizeof *order, cmp_index_by_start, l->s);
	uint32_t *where = xreallocarray(NULL, l->len, sizeof *where);
	for (size_t i = 0; i < l->len; i++)
		where[order[i]] = (uint32_t)i;
	if (l->side != NULL && l->side->ss != NULL) {
		/* Stored: permuted in place, cycle by cycle, without a second
		 * copy of the depth in memory. */
		for (size_t i = 0; i < l->len; i++) {
			if (where[i] == UINT32_MAX)
				continue;
			struct slice sv = l->s[i];
			uint32_t wv = l->w ? l->w[i] : 0;
			size_t j = i;
			for (;;) {
				size_t to = where[j];
				where[j] = UINT32_MAX;
				if (to == i) {
					l->s[to] = sv;
					if (l->w)
						l->w[to] = wv;
					break;
				}
				struct slice sn = l->s[to];
				uint32_t wn = l->w ? l->w[to] : 0;
				l->s[to] = sv;
				if (l->w)
					l->w[to] = wv;
				sv = sn;
				wv = wn;
				j = to;
			}
		}
		for (size_t i = 0; i < l->len; i++)
			where[order[i]] = (uint32_t)i;
	} else {
		struct slice *s = xbig_realloc(NULL, l->len * sizeof *s);
		uint32_t *w = l->w ? xreallocarray(NULL, l->len, sizeof *w) :
		    NULL;
		for (size_t i = 0; i < l->len; i++) {
			s[i] = l->s[order[i]];
			if (w)
				w[i] = l->w[order[i]];
		}
		xbig_free(l->s);
		free(l->w);
		l->s = s;
		l->w = w;
		l->cap = l->len;
	}
	if (l->side != NULL) {
		long_vec *lv = &l->side->longs;
		for (size_t i = 0; i < lv->len; i++)
			lv->items[i].index = where[lv->items[i].index];
		xqsort(lv->items, lv->len, sizeof *lv->items, cmp_long);
	}
	struct btrack *bt = &b->tracks[track];
	for (size_t i = 0; i < bt->sargs.len; i++)
		if (bt->sargs.items[i].depth == depth)
			bt->sargs.items[i].index = where[bt->sargs.items[i].index];
	for (size_t i = 0; i < b->flows.len; i++) {
		struct flow *fl = &b->flows.items[i];
		if (fl->from.track == track && fl->from.depth == depth &&
		    fl->from.index < l->len)
			fl->from.index = where[fl->from.index];
		if (fl->to.track == track && fl->to.depth == depth &&
		    fl->to.index < l->len)
			fl->to.index = where[fl->to.index];
	}
	free(order);
	free(where);
}

static int
cmp_sargs(const void *a, const void *c)
{
	const struct slice_args *x = a, *y = c;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int
cmp_instant(const void *a, const void *c)
{
	const struct instant *x = a, *y = c;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int
cmp_sample(const void *a, const void *c)
{
	const struct counter_sample *x = a, *y = c;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int
cmp_marker(const void *a, const void *c)
{
	const struct marker *x = a, *y = c;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->pad2 < y->pad2 ? -1 : x->pad2 > y->pad2;	/* keep order */
}

static int
cmp_log(const void *a, const void *c)
{
	const struct log_entry *x = a, *y = c;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->track < y->track ? -1 : x->track > y->track;
}

/* A vector of store_room's at the end: the slack goes back (a stored
 * one's to the file system). */
#define STORE_VEC_END(v, sa) do {                                         \
	if ((sa) != NULL)                                                     \
		store_array_seal((sa), (v)->len * sizeof *(v)->items);            \
	else                                                                  \
		VEC_SHRINK(v);                                                    \
} while (0)

static void
finish_track(struct builder *b, uint32_t t, struct track *out)
{
	struct btrack *bt = &b->tracks[t];
	/* Whatever is still open ends where the track's data ends (or,
	 * in a trace being written, now: close_frame). */
	while (bt->stack.len > 0)
		close_frame(b, t, bt->last, SLICE_UNTERMINATED);
	for (uint32_t d = 0; d < bt->nlevels; d++)
		if (bt->levels[d].unsorted)
			sort_level(b, t, d);
	if (bt->instants_unsorted)
		xqsort(bt->instants.items, bt->instants.len,
		    sizeof *bt->instants.items, cmp_instant);
	if (bt->samples_unsorted)
		xqsort(bt->samples.items, bt->samples.len,
		    sizeof *bt->samples.items, cmp_sample);
	xqsort(bt->sargs.items, bt->sargs.len, sizeof *bt->sargs.items,
	    cmp_sargs);

	memset(out, 0, sizeof *out);
	out->kind = bt->kind;
	out->process = bt->process;
	out->tid = bt->tid;
	out->name = bt->name;
	out->first = bt->first;
	out->last = bt->last;
	if (out->first > out->last)
		out->first = out->last = 0;
	/* Depths left empty by an orphan shift are trimmed from the end. */
	uint32_t nd = bt->nlevels;
	while (nd > 0 && bt->levels[nd - 1].len == 0)
		nd--;
	out->ndepth = nd;
	out->depth = nd ? xcalloc(nd, sizeof *out->depth) : NULL;
	for (uint32_t d = 0; d < nd; d++) {
		struct blevel *l = &bt->levels[d];
		struct level_side *side = l->side;
		if (side != NULL && side->ss != NULL) {
			/* Stored: the unused end of the file goes back. */
			store_array_seal(side->ss, (size_t)l->len *
			    sizeof *l->s);
			if (side->ws != NULL)
				store_array_seal(side->ws, (size_t)l->len *
				    sizeof *l->w);
		} else if (l->len < l->cap && l->len > 0) {
			/* Shrinking a large block returns its tail to the
			 * system. */
			l->s = xbig_realloc(l->s, l->len * sizeof *l->s);
			if (l->w)
				l->w = xreallocarray(l->w, l->len, sizeof *l->w);
		}
		out->depth[d].slices = l->s;
		out->depth[d].len = l->len;
		out->depth[d].weights = l->w;
		if (side != NULL) {
			VEC_SHRINK(&side->longs);
			out->depth[d].longs = side->longs.items;
			out->depth[d].nlongs = side->longs.len;
			free(side);
			l->side = NULL;
		}
		out->nslices += l->len;
		l->s = NULL;
		l->w = NULL;
	}
	STORE_VEC_END(&bt->instants, bt->instants_sa);
	out->instants = bt->instants.items;
	out->ninstants = bt->instants.len;
	bt->instants.items = NULL;
	STORE_VEC_END(&bt->samples, bt->samples_sa);
	out->samples = bt->samples.items;
	out->nsamples = bt->samples.len;
	bt->samples.items = NULL;
	VEC_SHRINK(&bt->sargs);
	out->slice_args = bt->sargs.items;
	out->nslice_args = bt->sargs.len;
	bt->sargs.items = NULL;
}

struct trace *
builder_finish(struct builder *b)
{
	fence_stores();
	struct trace *t = xcalloc(1, sizeof *t);
	t->path = b->path;
	b->path = NULL;
	t->format = b->format ? b->format : xstrdup("unknown");
	b->format = NULL;
	t->version = b->version;
	b->version = NULL;
	t->byte_order = b->byte_order;
	b->byte_order = NULL;
	t->ticks_per_second = b->ticks_per_second;
	t->wall_origin = b->wall_origin;
	t->complete_until = b->complete_until;

	b->now = TTV_NS_MIN;
	for (uint32_t i = 0; b->open_to_now && i < b->ntracks; i++)
		if (b->tracks[i].last > b->now)
			b->now = b->tracks[i].last;
	/* Streams that are quiet (a live relay's beacons) still say that
	 * time went on: nothing happened anywhere before complete_until, so
	 * what is open runs at least up to it. */
	if (b->open_to_now && b->ntracks > 0 &&
	    b->complete_until != TTV_NS_MAX && b->complete_until > b->now)
		b->now = b->complete_until;
	t->ntracks = b->ntracks;
	t->tracks = b->ntracks ? xcalloc(b->ntracks, sizeof *t->tracks) : NULL;
	for (uint32_t i = 0; i < b->ntracks; i++)
		finish_track(b, i, &t->tracks[i]);

	for (size_t i = 0; i < b->markers.len; i++)
		b->markers.items[i].pad2 = (uint32_t)i;
	xqsort(b->markers.items, b->markers.len, sizeof *b->markers.items,
	    cmp_marker);
	for (size_t i = 0; i < b->markers.len; i++)
		b->markers.items[i].pad2 = 0;
	xqsort(b->logs.items, b->logs.len, sizeof *b->logs.items, cmp_log);

#define MOVE(dst, ndst, vec) do {                                         \
	VEC_SHRINK(&(vec));                                                   \
	(dst) = (vec).items;                                                  \
	(ndst) = (vec).len;                                                   \
	(vec).items = NULL;                                                   \
	(vec).len = (vec).cap = 0;                                            \
} while (0)
	MOVE(t->funcs, t->nfuncs, b->funcs);
	/* one per function (builder_func_addr keeps the first) */
	xqsort(b->func_addrs.items, b->func_addrs.len,
	    sizeof *b->func_addrs.items, cmp_func_addr);
	MOVE(t->func_addrs, t->nfunc_addrs, b->func_addrs);
	MOVE(t->processes, t->nprocesses, b->processes);
	MOVE(t->markers, t->nmarkers, b->markers);
	MOVE(t->flows, t->nflows, b->flows);
	MOVE(t->logs, t->nlogs, b->logs);
	STORE_VEC_END(&b->args, b->args_sa);
	t->args = b->args.items;
	t->nargs = b->args.len;
	b->args.items = NULL;
	b->args.len = b->args.cap = 0;
	b->args_sa = NULL;
	MOVE(t->records, t->nrecords, b->records);
	MOVE(t->meta_keys, t->nmeta, b->meta_keys);
	MOVE(t->meta_values, t->nmeta, b->meta_values);
	MOVE(t->diags, t->ndiags, b->diags);
#undef MOVE
	t->ndiags_dropped = b->ndiags_dropped;
	t->has_errors = b->has_errors;
	/* The stored arrays are the store's: it goes with the model. */
	if (b->store != NULL)
		t->backing = index_store_backing(b->store);
	b->owns_store = false;

	strtab_release(b->strings, &t->strings, &t->nstrings, &t->str_chunks,
	    &t->nstr_chunks);
	b->strings = NULL;

	t->first = TTV_NS_MAX;
	t->last = TTV_NS_MIN;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (tr->nslices == 0 && tr->ninstants == 0 &&
		    tr->nsamples == 0 && tr->first == tr->last && tr->first == 0)
			continue;
		if (tr->first < t->first)
			t->first = tr->first;
		if (tr->last > t->last)
			t->last = tr->last;
	}
	if (t->nmarkers > 0) {
		if (t->markers[0].t < t->first)
			t->first = t->markers[0].t;
		if (t->markers[t->nmarkers - 1].t > t->last)
			t->last = t->markers[t->nmarkers - 1].t;
	}
	/* the timeline of a trace being written reaches now */
	if (b->open_to_now && t->first <= t->last && b->now > t->last)
		t->last = b->now;
	if (t->first > t->last)
		t->first = t->last = 0;
	builder_free(b);
	return t;
}

/* ------------------------------------------------- counts, for checks */

uint32_t
builder_nstrings(const struct builder *b)
{
	return strtab_count(b->strings);
}

uint32_t
builder_nfuncs(const struct builder *b)
{
	return (uint32_t)b->funcs.len;
}

uint32_t
builder_nprocesses(const struct builder *b)
{
	return (uint32_t)b->processes.len;
}

uint32_t
builder_ntracks(const struct builder *b)
{
	return b->ntracks;
}

uint32_t
builder_ndepth(const struct builder *b, uint32_t track)
{
	return track < b->ntracks ? b->tracks[track].nlevels : 0;
}

uint32_t
builder_depth_len(const struct builder *b, uint32_t track, uint32_t depth)
{
	return track < b->ntracks && depth < b->tracks[track].nlevels ?
	    b->tracks[track].levels[depth].len : 0;
}

size_t
builder_nargs(const struct builder *b)
{
	return b->args.len;
}
