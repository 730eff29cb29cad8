/*
 * First-touch checks of an index's large arrays (see index_guard.h).
 *
 * The handler runs on whichever thread faults, maybe on several at once:
 * it reads only what was set up before the depth was armed (slots,
 * depths, check records), changes only the per-block states (atomics)
 * and the mappings (mprotect, mmap: system calls that are safe in a
 * handler), and allocates nothing. One thread checks a block; the others
 * that fault on it wait for it to be opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "env.h"
#include "index.h"
#include "index_guard.h"
#include "xalloc.h"

enum { BLOCK_UNCHECKED, BLOCK_CHECKING, BLOCK_OPEN };

struct glevel {
	struct index_guard *g;
	const struct idx_level *il;	/* in the mapping */
	char *view, *wview;		/* guarded: slices, weights */
	uint64_t nblocks;
	uint8_t *state;			/* per block */
	int slot[2];			/* -1: none */
};

struct index_guard {
	struct index_view v;
	int fd;				/* the file, to read blocks from */
	uint32_t nfuncs;
	struct glevel **levels;
	size_t n, cap;
	struct index_damage *damage;	/* outlives the guard */
};

/* What a guard met, held by the guard and by whoever asks to keep it
 * (index_damage_of): a model's damage is asked after about once the
 * model is gone (the viewer frees the traces it is handed). Freed by the
 * last holder. */
struct index_damage {
	int seen;			/* a block failed its check */
	int refs;
};

/* Guarded ranges the handler answers for, in the whole process. */
#define SLOTS 8192
static struct {
	struct glevel *lv;	/* NULL: free (atomic) */
	char *lo, *hi;
	bool weights;
} slots[SLOTS];
static int slots_used;		/* one past the highest taken */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_segv;
static int damage_seen;

bool
index_damage_seen(void)
{
	return __atomic_load_n(&damage_seen, __ATOMIC_ACQUIRE) != 0;
}

struct index_damage *
index_guard_damage(const struct index_guard *g)
{
	if (g == NULL)
		return NULL;
	__atomic_add_fetch(&g->damage->refs, 1, __ATOMIC_ACQ_REL);
	return g->damage;
}

bool
index_damage_found(const struct index_damage *d)
{
	return d != NULL && __atomic_load_n(&d->seen, __ATOMIC_ACQUIRE) != 0;
}

void
index_damage_release(struct index_damage *d)
{
	if (d != NULL && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) ==
	    0)
		free(d);
}

bool
index_guard_usable(void)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *e = ttv_getenv(TTV_ENV_INDEX_CHECK);
	/* A block of weights (16 KiB) must be whole pages. */
	if (page <= 0 || (INDEX_BLOCK_SLICES * sizeof(uint32_t)) %
	    (size_t)page != 0)
		return false;
	return e == NULL || strcmp(e, "all") != 0;
}

bool
index_guard_wants(const struct index_view *v, const struct idx_level *l)
{
	const struct idx_extent *e = index_table(v, IDX_EXTENTS);
	if (l->len < 2 * INDEX_BLOCK_SLICES)
		return false;
	for (uint64_t i = 0; i < l->next; i++)
		if (e[l->ext_first + i].off % v->h->page_size != 0)
			return false;
	for (uint64_t i = 0; i < l->wnext; i++)
		if (e[l->wext_first + i].off % v->h->page_size != 0)
			return false;
	return true;
}

struct index_guard *
index_guard_new(const struct index_view *v, int fd)
{
	struct index_guard *g = xcalloc(1, sizeof *g);
	g->damage = xcalloc(1, sizeof *g->damage);
	g->damage->refs = 1;
	g->v = *v;
	g->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return g;
}

int
index_guard_add(struct index_guard *g, struct map_backing *mb,
    const struct index_view *v, int fd, const struct idx_level *l,
    struct depth_level *dl)
{
	struct glevel *lv = xcalloc(1, sizeof *lv);
	lv->g = g;
	lv->il = l;
	lv->slot[0] = lv->slot[1] = -1;
	lv->nblocks = (l->len + INDEX_BLOCK_SLICES - 1) / INDEX_BLOCK_SLICES;
	lv->state = xcalloc(lv->nblocks, 1);
	lv->view = index_stitch(mb, v, fd, l->ext_first, l->next, PROT_NONE);
	if (l->wnext > 0)
		lv->wview = index_stitch(mb, v, fd, l->wext_first, l->wnext,
		    PROT_NONE);
	if (g->fd < 0 || lv->view == NULL || (l->wnext > 0 &&
	    lv->wview == NULL)) {
		free(lv->state);
		free(lv);
		return -1;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->levels = xreallocarray(g->levels, g->cap, sizeof *g->levels);
	}
	g->levels[g->n++] = lv;
	dl->slices = (struct slice *)lv->view;
	dl->weights = (uint32_t *)lv->wview;
	return 0;
}

/* The pages of block b of an array of elem-byte elements at base. */
static void
block_span(const struct glevel *lv, char *base, size_t elem, uint64_t b,
    char **lo, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t first = b * INDEX_BLOCK_SLICES;
	uint64_t n = lv->il->len - first < INDEX_BLOCK_SLICES ?
	    lv->il->len - first : INDEX_BLOCK_SLICES;
	*lo = base + first * elem;
	*len = (size_t)((n * elem + (uint64_t)page - 1) &
	    ~((uint64_t)page - 1));
}

/* Block b of an array of extents [first, + n) of elem-byte elements,
 * mapped readable on its own, apart from the guarded view (so that no
 * other thread reads it before it is checked): *map and *maplen to
 * unmap. NULL when it cannot be mapped. */
static const void *
read_block(const struct glevel *lv, uint64_t first, uint64_t n, size_t elem,
    uint64_t b, void **map, size_t *maplen)
{
	const struct idx_extent *e = index_table(&lv->g->v, IDX_EXTENTS);
	uint64_t page = lv->g->v.h->page_size;
	uint64_t at = b * INDEX_BLOCK_SLICES * elem;
	uint64_t len = lv->il->len * elem - at;
	if (len > INDEX_BLOCK_SLICES * elem)
		len = INDEX_BLOCK_SLICES * elem;
	for (uint64_t i = first; i < first + n; i++) {
		uint64_t span = (e[i].bytes + page - 1) / page * page;
		if (at >= span) {
			at -= span;
			continue;
		}
		*maplen = (size_t)((len + page - 1) / page * page);
		*map = mmap(NULL, *maplen, PROT_READ, MAP_SHARED, lv->g->fd,
		    (off_t)(e[i].off + at));
		if (*map == MAP_FAILED)
			return NULL;
		/* The block is read whole: one read ahead, not a fault a
		 * page. */
		(void)madvise(*map, *maplen, MADV_WILLNEED);
		return *map;
	}
	return NULL;
}

/* A damaged block's replacement: the same values where they are safe,
 * functions out of range made 0, starts kept in order and inside the
 * block's bounds, which were checked against its neighbours at open. */
static void
replace_block(struct glevel *lv, uint64_t b, const struct slice *raw,
    const uint32_t *wraw)
{
	const struct idx_block *rec =
	    (const struct idx_block *)index_table(&lv->g->v, IDX_BLOCKS) +
	    lv->il->block_first + b;
	uint64_t first = b * INDEX_BLOCK_SLICES;
	uint64_t n = lv->il->len - first < INDEX_BLOCK_SLICES ?
	    lv->il->len - first : INDEX_BLOCK_SLICES;
	char *lo;
	size_t len;

	block_span(lv, lv->view, sizeof(struct slice), b, &lo, &len);
	struct slice *s = mmap(lo, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_FIXED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		abort();
	ttv_ns prev = rec->first_start;
	for (uint64_t i = 0; i < n; i++) {
		struct slice x = raw != NULL ? raw[i] :
		    (struct slice){ .start = prev };
		if (x.func >= lv->g->nfuncs)
			x.func = 0;
		if (x.start < prev)
			x.start = prev;
		if (x.start > rec->last_start)
			x.start = rec->last_start;
		prev = x.start;
		s[i] = x;
	}
	mprotect(lo, len, PROT_READ);
	if (lv->wview != NULL) {
		block_span(lv, lv->wview, sizeof(uint32_t), b, &lo, &len);
		uint32_t *w = mmap(lo, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
		if (w == MAP_FAILED)
			abort();
		for (uint64_t i = 0; i < n; i++)
			w[i] = wraw != NULL ? wraw[i] : 1;
		mprotect(lo, len, PROT_READ);
	}
	__atomic_store_n(&lv->g->damage->seen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&damage_seen, 1, __ATOMIC_RELEASE);
}

/* Checks block b and opens it (or its replacement) for reading. */
static void
open_block(struct glevel *lv, uint64_t b)
{
	uint8_t expect = BLOCK_UNCHECKED;
	if (!__atomic_compare_exchange_n(&lv->state[b], &expect,
	    BLOCK_CHECKING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&lv->state[b], __ATOMIC_ACQUIRE) !=
		    BLOCK_OPEN)
			sched_yield();
		return;
	}
	void *smap = NULL, *wmap = NULL;
	size_t slen = 0, wlen = 0;
	const struct slice *raw = read_block(lv, lv->il->ext_first,
	    lv->il->next, sizeof(struct slice), b, &smap, &slen);
	const uint32_t *wraw = lv->wview == NULL ? NULL : read_block(lv,
	    lv->il->wext_first, lv->il->wnext, sizeof(uint32_t), b, &wmap,
	    &wlen);
	const char *bad = raw == NULL || (lv->wview != NULL && wraw == NULL) ?
	    "unreadable" : index_check_block(&lv->g->v, lv->il, b, raw, wraw,
	    lv->g->nfuncs);
	if (bad != NULL) {
		replace_block(lv, b, raw, wraw);
	} else {
		char *lo;
		size_t len;
		block_span(lv, lv->view, sizeof(struct slice), b, &lo, &len);
		if (mprotect(lo, len, PROT_READ) != 0)
			abort();
		if (lv->wview != NULL) {
			block_span(lv, lv->wview, sizeof(uint32_t), b, &lo,
			    &len);
			if (mprotect(lo, len, PROT_READ) != 0)
				abort();
		}
	}
	if (smap != NULL)
		munmap(smap, slen);
	if (wmap != NULL)
		munmap(wmap, wlen);
	__atomic_store_n(&lv->state[b], BLOCK_OPEN, __ATOMIC_RELEASE);
}

static void
on_segv(int sig, siginfo_t *si, void *ctx)
{
	char *a = si != NULL ? si->si_addr : NULL;
	int n = __atomic_load_n(&slots_used, __ATOMIC_ACQUIRE);
	(void)ctx;
	for (int i = 0; i < n; i++) {
		struct glevel *lv = __atomic_load_n(&slots[i].lv,
		    __ATOMIC_ACQUIRE);
		if (lv == NULL || a < slots[i].lo || a >= slots[i].hi)
			continue;
		size_t per = INDEX_BLOCK_SLICES * (slots[i].weights ?
		    sizeof(uint32_t) : sizeof(struct slice));
		uint64_t b = (uint64_t)(a - slots[i].lo) / per;
		if (b < lv->nblocks) {
			open_block(lv, b);
			return;
		}
	}
	/* Not ours: the fault happens again under the action that was
	 * there before. */
	sigaction(sig, &old_segv, NULL);
}

/* Ours on top of whatever handler is there now (one installed after ours
 * would not pass our faults on). */
static void
install(void)
{
	struct sigaction sa, cur;
	if (sigaction(SIGSEGV, NULL, &cur) == 0 &&
	    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
}

/* A slot for [lo, lo + len) of lv; -1 when all are taken. */
static int
take_slot(struct glevel *lv, char *lo, size_t len, bool weights)
{
	for (int i = 0; i < SLOTS; i++) {
		if (slots[i].lv != NULL)
			continue;
		slots[i].lo = lo;
		slots[i].hi = lo + len;
		slots[i].weights = weights;
		__atomic_store_n(&slots[i].lv, lv, __ATOMIC_RELEASE);
		if (i >= slots_used)
			__atomic_store_n(&slots_used, i + 1, __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

void
index_guard_arm(struct index_guard *g, uint32_t nfuncs)
{
	g->nfuncs = nfuncs;
	pthread_mutex_lock(&slots_lock);
	install();
	for (size_t i = 0; i < g->n; i++) {
		struct glevel *lv = g->levels[i];
		uint64_t len = lv->il->len;
		lv->slot[0] = take_slot(lv, lv->view,
		    (size_t)(len * sizeof(struct slice)), false);
		if (lv->wview != NULL && lv->slot[0] >= 0)
			lv->slot[1] = take_slot(lv, lv->wview,
			    (size_t)(len * sizeof(uint32_t)), true);
		if (lv->slot[0] < 0 || (lv->wview != NULL &&
		    lv->slot[1] < 0)) {
			/* No slot left: every block now. */
			for (uint64_t b = 0; b < lv->nblocks; b++)
				open_block(lv, b);
		}
	}
	pthread_mutex_unlock(&slots_lock);
}

void
index_guard_free(struct index_guard *g)
{
	if (g == NULL)
		return;
	pthread_mutex_lock(&slots_lock);
	for (size_t i = 0; i < g->n; i++) {
		struct glevel *lv = g->levels[i];
		for (int k = 0; k < 2; k++)
			if (lv->slot[k] >= 0)
				__atomic_store_n(&slots[lv->slot[k]].lv, NULL,
				    __ATOMIC_RELEASE);
		free(lv->state);
		free(lv);
	}
	pthread_mutex_unlock(&slots_lock);
	if (g->fd >= 0)
		close(g->fd);
	index_damage_release(g->damage);
	free(g->levels);
	free(g);
}
