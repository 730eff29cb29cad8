/*
 * The SQL connection over a trace (see sql.h): opening it contained,
 * the id spaces its tables share, and the indexes built on first use.
 *
 * Containment, in layers, so that a query file from someone else can
 * never touch a file:
 *  - the database is ":memory:", opened without URI support, temporary
 *    storage (temp tables, sorter spills) kept in memory;
 *  - SQLITE_LIMIT_ATTACHED is 0: ATTACH and VACUUM INTO (which attaches
 *    its target) cannot open a file;
 *  - extension loading stays off, and the authorizer refuses ATTACH,
 *    DETACH, pragmas that set something, load_extension() and creating
 *    virtual tables;
 *  - SQLITE_DBCONFIG_DEFENSIVE, and the schema is not trusted.
 * Creating tables, views and indexes, temporary or not, and writing to
 * them, is allowed: all of it lives in memory (temp_store is MEMORY and
 * cannot be set) and goes away with the connection. The virtual tables
 * are innocuous (no side effect), so views may read them although the
 * schema is not trusted. SQLite's heap has a hard limit (sql_memory_limit
 * in sql.h): a query that sorts or stores without end fails with "out of
 * memory" at the limit instead of taking the machine's.
 *
 * Stopping: the progress handler polls the cancel flag while a statement
 * runs, the tables' long loops poll it too, and sqlite3_interrupt() reaches
 * the parser, which the progress handler does not (a statement of
 * 100,000 common table expressions takes a minute to prepare).
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef HAVE_MALLOC_USABLE_SIZE
#include <malloc.h>
#endif

#include "env.h"
#include "sql_int.h"
#include "xalloc.h"

/* sql_cancel() runs in signal handlers: its store must not take a lock. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");

#define MIB ((uint64_t)1 << 20)

/* --------------------------------------------------------------- guard */

/* Pragmas that only describe the schema: allowed with an argument. */
static const char *const describe_pragmas[] = {
	"table_info", "table_xinfo", "table_list", "index_list", "index_info",
	"index_xinfo", "foreign_key_list", "function_list", "module_list",
	"pragma_list", "collation_list", "database_list", "compile_options",
	NULL,
};

static bool
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (sqlite3_stricmp(*list, s) == 0)
			return true;
	return false;
}

static int
authorize(void *arg, int action, const char *a1, const char *a2,
    const char *db, const char *trigger)
{
	(void)arg;
	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
	case SQLITE_CREATE_VTABLE:
	case SQLITE_DROP_VTABLE:
		return SQLITE_DENY;
	case SQLITE_PRAGMA:
		/* Reading a setting is harmless; setting one is not (files,
		 * journal, temp_store, writable_schema...). */
		if (a2 == NULL || (a1 != NULL && in_list(describe_pragmas, a1)))
			return SQLITE_OK;
		return SQLITE_DENY;
	case SQLITE_FUNCTION:
		if (a2 != NULL && (sqlite3_stricmp(a2, "load_extension") == 0 ||
		    sqlite3_stricmp(a2, "fts3_tokenizer") == 0 ||
		    sqlite3_stricmp(a2, "readfile") == 0 ||
		    sqlite3_stricmp(a2, "writefile") == 0))
			return SQLITE_DENY;
		return SQLITE_OK;
	default:
		return SQLITE_OK;
	}
}

static int
progress(void *arg)
{
	const struct sql *s = arg;
	return sql_cancelled(s);
}

/* ------------------------------------------------------------- memory */

/* The limit in bytes (0: none), for sql_memory_limit() and the
 * allocator below. */
static _Atomic uint64_t heap_limit;

#ifdef HAVE_MALLOC_USABLE_SIZE
/*
 * SQLite's memory, counted and limited as the C library hands it out:
 * SQLite's own count (sqlite3_hard_heap_limit64) is of the bytes asked
 * for, and a sort of small records then takes twice its count (40 MiB
 * counted, 80 MiB resident). Here a block counts its usable size and its
 * header, and one that would pass the limit is refused (SQLITE_NOMEM).
 */
static _Atomic uint64_t heap_used;

#define BLOCK_HEADER 8

static uint64_t
block_cost(void *p)
{
	return (uint64_t)malloc_usable_size(p) + BLOCK_HEADER;
}

static bool
fits(uint64_t more)
{
	uint64_t limit = atomic_load_explicit(&heap_limit,
	    memory_order_relaxed);
	return limit == 0 || atomic_load_explicit(&heap_used,
	    memory_order_relaxed) + more <= limit;
}

static void *
mem_malloc(int n)
{
	if (!fits((uint64_t)n + BLOCK_HEADER))
		return NULL;
	void *p = malloc((size_t)n);
	if (p != NULL)
		atomic_fetch_add_explicit(&heap_used, block_cost(p),
		    memory_order_relaxed);
	return p;
}

static void
mem_free(void *p)
{
	if (p == NULL)
		return;
	atomic_fetch_sub_explicit(&heap_used, block_cost(p),
	    memory_order_relaxed);
	free(p);
}

static void *
mem_realloc(void *p, int n)
{
	uint64_t old = block_cost(p);
	if ((uint64_t)n + BLOCK_HEADER > old &&
	    !fits((uint64_t)n + BLOCK_HEADER - old))
		return NULL;
	void *q = realloc(p, (size_t)n);
	if (q == NULL)
		return NULL;
	atomic_fetch_sub_explicit(&heap_used, old, memory_order_relaxed);
	atomic_fetch_add_explicit(&heap_used, block_cost(q),
	    memory_order_relaxed);
	return q;
}

static int
mem_size(void *p)
{
	return p != NULL ? (int)malloc_usable_size(p) : 0;
}

/* What a block asked for n bytes holds (glibc: 16-byte steps with an
 * 8-byte header, 24 bytes at least). */
static int
mem_roundup(int n)
{
	if (n <= 24)
		return 24;
	return n > INT32_MAX - 32 ? n : ((n + 8 + 15) & ~15) - 8;
}

static int
mem_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void
mem_shutdown(void *arg)
{
	(void)arg;
}

static void
set_allocator(void)
{
	static const sqlite3_mem_methods m = { mem_malloc, mem_free,
	    mem_realloc, mem_size, mem_roundup, mem_init, mem_shutdown, NULL };
	/* refused (and harmless) once SQLite has started: then SQLite's
	 * own limit alone holds */
	sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
}
#else
static void
set_allocator(void)
{
}
#endif

/* The trace's size, as the budget counts it: its file's; a directory's
 * traces (or a file gone since) count as the memory of their model. */
static uint64_t
input_bytes(const struct trace *t, uint64_t model)
{
	struct stat st;
	if (t->path != NULL && stat(t->path, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	return model;
}

/* What the budget of a run (64 MiB + 16 x the input) leaves SQLite once
 * the program (24 MiB) and the loaded trace
 * (its model, and a quarter more for the indexes the tables build over
 * it) have their share: whole MiB, at least 16. */
static uint64_t
default_limit(const struct trace *t)
{
	uint64_t model = trace_memory(t);
	uint64_t in = input_bytes(t, model);
	uint64_t budget = 40 * MIB + (in < ((uint64_t)1 << 58) ? 16 * in :
	    (uint64_t)1 << 62);
	uint64_t taken = model + model / 4;
	uint64_t limit = budget > taken + 16 * MIB ? budget - taken :
	    16 * MIB;
	return limit / MIB * MIB;
}

/* Sets SQLite's heap limit for t: TTV_SQL_MEMORY, else the default. */
static int
set_memory_limit(const struct trace *t, char **err)
{
	uint64_t mib = 0, limit;
	int e = ttv_env_mib(TTV_ENV_SQL_MEMORY, &mib);
	if (e < 0) {
		*err = xasprintf("%s must be a number of MiB (0: no limit), "
		    "not '%s'", ttv_env_name(TTV_ENV_SQL_MEMORY),
		    ttv_getenv(TTV_ENV_SQL_MEMORY));
		return -1;
	}
	limit = e > 0 ? mib * MIB : default_limit(t);
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, set_allocator);
	atomic_store(&heap_limit, limit);
	sqlite3_hard_heap_limit64((sqlite3_int64)limit);
	return 0;
}

uint64_t
sql_memory_limit(void)
{
	return atomic_load(&heap_limit);
}

/* -------------------------------------------------------------- id maps */

static void
build_ids(struct sql *s)
{
	const struct trace *t = s->t;
	s->track_level = xcalloc((size_t)t->ntracks + 1,
	    sizeof *s->track_level);
	s->inst_base = xcalloc((size_t)t->ntracks + 1, sizeof *s->inst_base);
	s->counter_base = xcalloc((size_t)t->ntracks + 1,
	    sizeof *s->counter_base);
	s->utid_of_track = xcalloc(t->ntracks ? t->ntracks : 1,
	    sizeof *s->utid_of_track);
	s->thread_track = xcalloc(t->ntracks ? t->ntracks : 1,
	    sizeof *s->thread_track);
	uint64_t nlevels = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		s->track_level[i] = (uint32_t)nlevels;
		nlevels += t->tracks[i].ndepth;
	}
	s->track_level[t->ntracks] = (uint32_t)nlevels;
	s->nlevels = (uint32_t)nlevels;
	s->level_base = xcalloc(nlevels + 1, sizeof *s->level_base);
	uint64_t id = 0, inst = 0, cnt = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			s->level_base[s->track_level[i] + d] = id;
			id += tr->depth[d].len;
		}
		s->inst_base[i] = inst;
		inst += tr->ninstants;
		s->counter_base[i] = cnt;
		cnt += tr->nsamples;
		if (tr->kind == TRACK_THREAD) {
			s->utid_of_track[i] = s->nthreads;
			s->thread_track[s->nthreads++] = i;
		} else {
			s->utid_of_track[i] = UINT32_MAX;
		}
	}
	s->level_base[nlevels] = id;
	s->nslices = id;
	s->inst_base[t->ntracks] = inst;
	s->counter_base[t->ntracks] = cnt;
}

/* The last i in [0, n) with a[i] <= v (a sorted, a[0] <= v). */
static size_t
last_le(const uint64_t *a, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

bool
sql_id_ref(const struct sql *s, int64_t id, struct slice_ref *out)
{
	const struct trace *t = s->t;
	if (id < 0)
		return false;
	uint64_t u = (uint64_t)id;
	if (u < s->nslices) {
		/* the last level starting at or before u: empty levels share
		 * their base with the next, so it is the one holding u; its
		 * track is the last one whose first level is at or before L */
		size_t L = last_le(s->level_base, s->nlevels, u);
		size_t lo = 0, hi = t->ntracks;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->track_level[mid] <= L)
				lo = mid;
			else
				hi = mid;
		}
		size_t tr = lo;
		*out = (struct slice_ref){ (uint32_t)tr,
		    (uint32_t)(L - s->track_level[tr]),
		    (uint32_t)(u - s->level_base[L]) };
		return true;
	}
	u -= s->nslices;
	if (u >= s->inst_base[t->ntracks])
		return false;
	size_t tr = last_le(s->inst_base, t->ntracks, u);
	*out = (struct slice_ref){ (uint32_t)tr, SEARCH_INSTANT,
	    (uint32_t)(u - s->inst_base[tr]) };
	return true;
}

bool
sql_id_slice(const struct sql *s, int64_t id, struct slice_ref *out)
{
	return sql_id_ref(s, id, out);
}

int64_t
sql_utid_track(const struct sql *s, int64_t utid)
{
	return utid >= 0 && utid < (int64_t)s->nthreads ?
	    (int64_t)s->thread_track[utid] : -1;
}

static int
cmp_tid(const void *a, const void *b)
{
	const struct sql_tid *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->utid > y->utid) - (x->utid < y->utid);
}

int64_t
sql_tid_utid(struct sql *s, int64_t tid)
{
	if (s->by_tid == NULL) {
		s->by_tid = xmalloc((s->nthreads ? s->nthreads : 1) *
		    sizeof *s->by_tid);
		for (uint32_t u = 0; u < s->nthreads; u++)
			s->by_tid[u] = (struct sql_tid){
			    s->t->tracks[s->thread_track[u]].tid, u };
		xqsort(s->by_tid, s->nthreads, sizeof *s->by_tid, cmp_tid);
	}
	size_t lo = 0, hi = s->nthreads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->by_tid[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nthreads && s->by_tid[lo].tid == tid ?
	    (int64_t)s->by_tid[lo].utid : -1;
}

int64_t
sql_ref_id(const struct sql *s, struct slice_ref r)
{
	if (r.depth == SEARCH_INSTANT)
		return (int64_t)sql_instant_id(s, r.track, r.index);
	return (int64_t)sql_slice_id(s, r.track, r.depth, r.index);
}

/* ---------------------------------------------------------- name order */

static int
cmp_func_name(const void *a, const void *b, void *arg)
{
	const struct trace *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(trace_func_name(t, x), trace_func_name(t, y));
	return c != 0 ? c : (x > y) - (x < y);
}

void
sql_name_order(struct sql *s)
{
	if (s->by_name != NULL)
		return;
	const struct trace *t = s->t;
	size_t n = t->nfuncs ? t->nfuncs : 1;
	s->by_name = xmalloc(n * sizeof *s->by_name);
	s->name_rank = xmalloc(n * sizeof *s->name_rank);
	s->name_group = xmalloc(n * sizeof *s->name_group);
	for (uint32_t i = 0; i < t->nfuncs; i++)
		s->by_name[i] = i;
	/* strcmp orders as SQLite's BINARY collation does: names hold no
	 * NUL byte. Sorted once per connection, not per query. */
	if (t->nfuncs > 1)
		qsort_r(s->by_name, t->nfuncs, sizeof *s->by_name,
		    cmp_func_name, (void *)t);
	uint32_t group = 0;
	for (uint32_t r = 0; r < t->nfuncs; r++) {
		uint32_t f = s->by_name[r];
		if (r > 0 && strcmp(trace_func_name(t, f),
		    trace_func_name(t, s->by_name[r - 1])) != 0)
			group = r;
		s->name_rank[f] = r;
		s->name_group[f] = group;
	}
}

/* ---------------------------------------------------------- name index */

/* Calls fn(arg, id, func) for every slice and instant in id order. */
static void
each_func(const struct sql *s, void (*fn)(void *, uint64_t, func_id),
    void *arg)
{
	const struct trace *t = s->t;
	uint64_t id = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct slice *sl = tr->depth[d].slices;
			for (size_t k = 0; k < tr->depth[d].len; k++)
				fn(arg, id++, sl[k].func);
		}
	}
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		for (size_t k = 0; k < tr->ninstants; k++)
			fn(arg, id++, tr->instants[k].func);
	}
}

struct index_build {
	uint32_t *last;		/* per function: 1 + the last block seen */
	uint64_t *count;	/* pass 1: blocks per function */
	uint64_t *fill;		/* pass 2: next place per function */
	uint32_t *blocks;
	uint32_t nfuncs;
};

static void
count_block(void *arg, uint64_t id, func_id f)
{
	struct index_build *b = arg;
	uint32_t blk = (uint32_t)(id >> SQL_BLOCK_SHIFT) + 1;
	if (f < b->nfuncs && b->last[f] != blk) {
		b->last[f] = blk;
		b->count[f]++;
	}
}

static void
fill_block(void *arg, uint64_t id, func_id f)
{
	struct index_build *b = arg;
	uint32_t blk = (uint32_t)(id >> SQL_BLOCK_SHIFT) + 1;
	if (f < b->nfuncs && b->last[f] != blk) {
		b->last[f] = blk;
		b->blocks[b->fill[f]++] = blk - 1;
	}
}

bool
sql_name_index(struct sql *s)
{
	if (s->name_index_tried)
		return s->blocks != NULL;
	s->name_index_tried = true;
	const struct trace *t = s->t;
	uint64_t nids = s->nslices + s->inst_base[t->ntracks];
	if (t->nfuncs == 0 || (nids >> SQL_BLOCK_SHIFT) >= UINT32_MAX)
		return false;
	/* The index may cost a tenth of the model, no more: past that a
	 * scan of the model answers as well as a big index would. */
	size_t budget = trace_memory(t) / 10 / sizeof(uint32_t);
	struct index_build b = { .nfuncs = t->nfuncs };
	b.last = xcalloc(t->nfuncs, sizeof *b.last);
	b.count = xcalloc((size_t)t->nfuncs + 1, sizeof *b.count);
	each_func(s, count_block, &b);
	uint64_t total = 0;
	for (uint32_t f = 0; f < t->nfuncs; f++)
		total += b.count[f];
	if (total > budget) {
		free(b.last);
		free(b.count);
		return false;
	}
	s->block_start = xmalloc(((size_t)t->nfuncs + 1) *
	    sizeof *s->block_start);
	uint64_t at = 0;
	for (uint32_t f = 0; f < t->nfuncs; f++) {
		s->block_start[f] = at;
		at += b.count[f];
	}
	s->block_start[t->nfuncs] = at;
	free(b.count);
	b.fill = xmalloc((size_t)t->nfuncs * sizeof *b.fill);
	memcpy(b.fill, s->block_start, (size_t)t->nfuncs * sizeof *b.fill);
	b.blocks = xmalloc((total ? total : 1) * sizeof *b.blocks);
	memset(b.last, 0, t->nfuncs * sizeof *b.last);
	each_func(s, fill_block, &b);
	s->blocks = b.blocks;
	free(b.fill);
	free(b.last);
	return true;
}

size_t
sql_index_memory(const struct sql *s)
{
	size_t n = 0, nf = s->t->nfuncs;
	if (s->by_name != NULL)
		n += 3 * nf * sizeof(uint32_t);
	if (s->blocks != NULL)
		n += (nf + 1) * sizeof(uint64_t) +
		    s->block_start[nf] * sizeof(uint32_t);
	if (s->arg_head != NULL)
		n += s->t->nargs * sizeof(uint32_t);
	return n;
}

/* -------------------------------------------------------------- values */

bool
sql_value_floor(sqlite3_value *v, int64_t *out)
{
	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return true;
	case SQLITE_FLOAT: {
		double d = floor(sqlite3_value_double(v));
		if (d != d)
			return false;
		*out = d <= -9.2e18 ? INT64_MIN : d >= 9.2e18 ? INT64_MAX :
		    (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}

bool
sql_value_ceil(sqlite3_value *v, int64_t *out)
{
	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return true;
	case SQLITE_FLOAT: {
		double d = ceil(sqlite3_value_double(v));
		if (d != d)
			return false;
		*out = d <= -9.2e18 ? INT64_MIN : d >= 9.2e18 ? INT64_MAX :
		    (int64_t)d;
		return true;
	}
	default:
		return false;
	}
}

bool
sql_ts_bound(int op, sqlite3_value *v, ttv_ns *lo, ttv_ns *hi)
{
	int64_t x;
	int type = sqlite3_value_numeric_type(v);
	if (type == SQLITE_NULL)
		return false;	/* a comparison with NULL is never true */
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		/* SQLite orders every number before text and blobs */
		return op == SQLITE_INDEX_CONSTRAINT_LT ||
		    op == SQLITE_INDEX_CONSTRAINT_LE;
	}
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
		if (!sql_value_ceil(v, &x) || x > *hi)
			return false;
		if (x > *lo)
			*lo = x;
		if (!sql_value_floor(v, &x) || x < *lo)
			return false;
		if (x < *hi)
			*hi = x;
		return true;
	case SQLITE_INDEX_CONSTRAINT_GT:
		if (!sql_value_floor(v, &x) || x == INT64_MAX)
			return false;
		if (x + 1 > *lo)
			*lo = x + 1;
		return true;
	case SQLITE_INDEX_CONSTRAINT_GE:
		if (!sql_value_ceil(v, &x))
			return false;
		if (x > *lo)
			*lo = x;
		return true;
	case SQLITE_INDEX_CONSTRAINT_LT:
		if (!sql_value_ceil(v, &x) || x == INT64_MIN)
			return false;
		if (x - 1 < *hi)
			*hi = x - 1;
		return true;
	case SQLITE_INDEX_CONSTRAINT_LE:
		if (!sql_value_floor(v, &x))
			return false;
		if (x < *hi)
			*hi = x;
		return true;
	default:
		return true;
	}
}

/* ------------------------------------------------------------- the api */

void
sql_set_view(struct sql *s, const struct sql_view *v)
{
	const struct trace *t = s->t;
	free(s->track_on);
	free(s->func_on);
	s->track_on = s->func_on = NULL;
	free(s->arg_head);
	s->arg_head = NULL;
	s->t0 = TTV_NS_MIN;
	s->t1 = TTV_NS_MAX;
	if (v == NULL)
		return;
	if (v->filter != NULL && v->filter->track_on != NULL) {
		s->track_on = xmalloc(t->ntracks ? t->ntracks : 1);
		memcpy(s->track_on, v->filter->track_on, t->ntracks);
	}
	if (v->filter != NULL && v->filter->func_on != NULL) {
		s->func_on = xmalloc(t->nfuncs ? t->nfuncs : 1);
		memcpy(s->func_on, v->filter->func_on, t->nfuncs);
	}
	s->t0 = v->t0;
	s->t1 = v->t1;
	if (s->t1 <= s->t0 && !(s->t0 == TTV_NS_MIN && s->t1 == TTV_NS_MIN))
		s->t1 = s->t0;
}

static char *
db_error(sqlite3 *db, const char *what)
{
	return xasprintf("%s: %s", what, db ? sqlite3_errmsg(db) :
	    "out of memory");
}

struct sql *
sql_open(const struct trace *t, const struct sql_view *v, char **err)
{
	if (set_memory_limit(t, err) != 0)
		return NULL;
	struct sql *s = xcalloc(1, sizeof *s);
	s->t = t;
	atomic_init(&s->cancel, 0);
	s->t0 = TTV_NS_MIN;
	s->t1 = TTV_NS_MAX;
	build_ids(s);
	sql_set_view(s, v);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(":memory:", &s->db, flags, NULL) != SQLITE_OK) {
		*err = db_error(s->db, "cannot open SQLite");
		sql_close(s);
		return NULL;
	}
	sqlite3 *db = s->db;
	sqlite3_extended_result_codes(db, 1);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	char *msg = NULL;
	if (sqlite3_exec(db, "PRAGMA temp_store = MEMORY", NULL, NULL,
	    &msg) != SQLITE_OK || sql_slice_register(s) != SQLITE_OK ||
	    sql_tables_register(s) != SQLITE_OK ||
	    sql_ancestry_register(s) != SQLITE_OK ||
	    sql_funcs_register(s) != SQLITE_OK ||
	    sqlite3_exec(db, "CREATE VIEW slices AS SELECT * FROM slice",
	    NULL, NULL, &msg) != SQLITE_OK) {
		*err = msg ? xasprintf("cannot set up SQLite: %s", msg) :
		    db_error(db, "cannot set up SQLite");
		sqlite3_free(msg);
		sql_close(s);
		return NULL;
	}
	sqlite3_set_authorizer(db, authorize, s);
	/* Polled every 1000 virtual machine steps: a cancel stops a query
	 * within microseconds; the tables' own long loops poll too. */
	sqlite3_progress_handler(db, 1000, progress, s);
	return s;
}

void
sql_close(struct sql *s)
{
	if (s == NULL)
		return;
	sqlite3_close(s->db);
	free(s->track_on);
	free(s->func_on);
	free(s->level_base);
	free(s->track_level);
	free(s->inst_base);
	free(s->counter_base);
	free(s->utid_of_track);
	free(s->thread_track);
	free(s->by_tid);
	free(s->name_rank);
	free(s->by_name);
	free(s->name_group);
	free(s->block_start);
	free(s->blocks);
	free(s->arg_head);
	free(s->prepare_err);
	free(s);
}

sqlite3 *
sql_db(struct sql *s)
{
	return s->db;
}

void
sql_cancel(struct sql *s)
{
	atomic_store_explicit(&s->cancel, 1, memory_order_relaxed);
	if (s->db != NULL)
		sqlite3_interrupt(s->db);
}

void
sql_cancel_clear(struct sql *s)
{
	atomic_store_explicit(&s->cancel, 0, memory_order_relaxed);
}

bool
sql_cancel_requested(const struct sql *s)
{
	return sql_cancelled(s);
}

struct sql_scan_stats *
sql_scan_stats(struct sql *s)
{
	return &s->stats;
}

long
sql_error_offset(struct sql *s, const char *text, const char *stmt)
{
	int off = s->prepare_err != NULL ? (int)s->prepare_err_off :
	    sqlite3_error_offset(s->db);
	if (off < 0 || text == NULL || stmt == NULL || stmt < text ||
	    (size_t)off > strlen(stmt))
		return -1;
	return (long)(stmt - text) + off;
}

char *
sql_errmsg(struct sql *s, const char *text, const char *stmt)
{
	const char *m = s->prepare_err != NULL ? s->prepare_err :
	    sqlite3_errmsg(s->db);
	uint64_t limit = sql_memory_limit();
	if (s->prepare_err == NULL &&
	    (sqlite3_errcode(s->db) & 0xff) == SQLITE_NOMEM && limit > 0)
		return xasprintf("out of memory (limit %llu MiB; raise it with "
		    "%s=MIB)", (unsigned long long)((limit + MIB - 1) / MIB),
		    ttv_env_name(TTV_ENV_SQL_MEMORY));
	const char *hint = s->prepare_err == NULL &&
	    (sqlite3_errcode(s->db) & 0xff) == SQLITE_AUTH ?
	    " (queries may not attach files, load extensions, change "
	    "settings or create virtual tables)" : "";
	long off = sql_error_offset(s, text, stmt);
	if (off < 0)
		return xasprintf("%s%s", m, hint);
	int line = 1, col = 1;
	for (long i = 0; i < off; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	return xasprintf("%s%s at offset %ld (line %d, column %d)", m, hint,
	    off, line, col);
}
