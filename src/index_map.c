/*
 * Reading an index (see index.h, doc/index-format.md): the file is mapped
 * read-only, checked (index_check.c), and a struct trace is made whose
 * arrays point into the mapping. Only the small parts are made on the
 * heap: the trace, its tracks and depth tables, the strings' pointer
 * table, and the C strings the model owns (records, metadata,
 * diagnostics, path, format).
 *
 * A depth written in several extents is mapped extent by extent, side by
 * side, into one range of addresses reserved for it, so that the model
 * sees one array.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index.h"
#include "index_guard.h"
#include "index_int.h"
#include "xalloc.h"


static bool
map_owns(const struct trace_backing *b, const void *p)
{
	const struct map_backing *mb = (const struct map_backing *)b;
	const char *c = p;
	if (c >= (const char *)mb->map && c < (const char *)mb->map + mb->size)
		return true;
	size_t lo = 0, hi = mb->nregions;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c < mb->regions[mid].lo)
			hi = mid;
		else if (c >= mb->regions[mid].lo + mb->regions[mid].len)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static void
map_release(struct trace_backing *b)
{
	struct map_backing *mb = (struct map_backing *)b;
	index_guard_free(mb->guard);
	if (mb->summary != NULL)
		free((void *)mb->summary->level_first);
	free(mb->summary);
	for (size_t i = 0; i < mb->nregions; i++)
		munmap(mb->regions[i].lo, mb->regions[i].len);
	free(mb->regions);
	if (mb->map != NULL)
		munmap((void *)mb->map, mb->size);
	free(mb);
}

struct index_damage *
index_damage_of(const struct trace *t)
{
	if (t == NULL || t->backing == NULL || t->backing->owns != map_owns)
		return NULL;
	return index_guard_damage(((const struct map_backing *)
	    t->backing)->guard);
}

bool
index_trace_damaged(const struct trace *t)
{
	struct index_damage *d = index_damage_of(t);
	bool found = index_damage_found(d);
	index_damage_release(d);
	return found;
}

void
index_add_region(struct map_backing *mb, char *lo, size_t len)
{
	if (mb->nregions == mb->capregions) {
		mb->capregions = mb->capregions ? mb->capregions * 2 : 16;
		mb->regions = xreallocarray(mb->regions, mb->capregions,
		    sizeof *mb->regions);
	}
	size_t i = mb->nregions++;
	while (i > 0 && mb->regions[i - 1].lo > lo) {
		mb->regions[i] = mb->regions[i - 1];
		i--;
	}
	mb->regions[i] = (struct region){ lo, len };
}

/* An array of extents as one range: in place when it is one extent and
 * not guarded, else mapped side by side (every extent then starts on a
 * page: index_check.c and index_guard_wants() see to it) with prot
 * (PROT_NONE: guarded). NULL when mapping failed (errno set). */
void *
index_stitch(struct map_backing *mb, const struct index_view *v, int fd,
    uint64_t first, uint64_t n, int prot)
{
	const struct idx_extent *e = index_table(v, IDX_EXTENTS);
	if (n == 0)
		return NULL;
	if (n == 1 && prot == PROT_READ)
		return (void *)(v->base + e[first].off);
	uint64_t page = v->h->page_size, total = 0;
	for (uint64_t i = first; i < first + n; i++) {
		if (e[i].off % page != 0) {
			errno = EINVAL;
			return NULL;
		}
		total += (e[i].bytes + page - 1) & ~(page - 1);
	}
	char *lo = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	if (lo == MAP_FAILED)
		return NULL;
	uint64_t at = 0;
	for (uint64_t i = first; i < first + n; i++) {
		size_t len = (size_t)((e[i].bytes + page - 1) & ~(page - 1));
		if (mmap(lo + at, len, prot, MAP_SHARED | MAP_FIXED, fd,
		    (off_t)e[i].off) == MAP_FAILED) {
			int err = errno;
			munmap(lo, total);
			errno = err;
			return NULL;
		}
		at += len;
	}
	index_add_region(mb, lo, total);
	return lo;
}

static char *
copy_text(const struct index_view *v, uint64_t off)
{
	return off == IDX_NO_TEXT ? NULL : xstrdup(index_text(v, off));
}

/* The trace's heap parts and pointers into the mapping. */
static int
make_trace(struct trace *t, struct map_backing *mb,
    const struct index_view *v, int fd, bool guarded)
{
	const struct idx_header *h = v->h;
	t->path = copy_text(v, h->path);
	t->format = copy_text(v, h->format);
	t->version = copy_text(v, h->version);
	t->byte_order = copy_text(v, h->byte_order);
	t->ticks_per_second = h->ticks_per_second;
	t->wall_origin = h->wall_origin;
	t->first = h->first;
	t->last = h->last;
	t->ndiags_dropped = h->ndiags_dropped;
	t->has_errors = h->has_errors != 0;
	/* An index is of a trace read whole: --follow reads the trace
	 * itself, never an index. */
	t->complete_until = TTV_NS_MAX;

	t->nstrings = (uint32_t)index_count(v, IDX_STR_OFF);
	t->strings = xreallocarray(NULL, t->nstrings, sizeof *t->strings);
	const uint64_t *so = index_table(v, IDX_STR_OFF);
	for (uint32_t i = 0; i < t->nstrings; i++)
		t->strings[i] = (char *)index_text(v, so[i]);

	t->funcs = (struct func *)index_table(v, IDX_FUNCS);
	t->nfuncs = (uint32_t)index_count(v, IDX_FUNCS);
	t->func_addrs = (struct func_addr *)index_table(v, IDX_FUNC_ADDRS);
	t->nfunc_addrs = index_count(v, IDX_FUNC_ADDRS);
	t->processes = (struct process *)index_table(v, IDX_PROCESSES);
	t->nprocesses = (uint32_t)index_count(v, IDX_PROCESSES);
	t->markers = (struct marker *)index_table(v, IDX_MARKERS);
	t->nmarkers = index_count(v, IDX_MARKERS);
	t->flows = (struct flow *)index_table(v, IDX_FLOWS);
	t->nflows = index_count(v, IDX_FLOWS);
	t->logs = (struct log_entry *)index_table(v, IDX_LOGS);
	t->nlogs = index_count(v, IDX_LOGS);
	t->args = (struct arg *)index_table(v, IDX_ARGS);
	t->nargs = index_count(v, IDX_ARGS);

	t->nrecords = index_count(v, IDX_RECORDS);
	t->records = xcalloc(t->nrecords + 1, sizeof *t->records);
	const struct idx_record *rec = index_table(v, IDX_RECORDS);
	for (size_t i = 0; i < t->nrecords; i++) {
		t->records[i].kind = xstrdup(index_text(v, rec[i].kind));
		t->records[i].count = rec[i].count;
	}
	t->nmeta = index_count(v, IDX_META);
	t->meta_keys = xcalloc(t->nmeta + 1, sizeof *t->meta_keys);
	t->meta_values = xcalloc(t->nmeta + 1, sizeof *t->meta_values);
	const struct idx_meta *meta = index_table(v, IDX_META);
	for (size_t i = 0; i < t->nmeta; i++) {
		t->meta_keys[i] = xstrdup(index_text(v, meta[i].key));
		t->meta_values[i] = xstrdup(index_text(v, meta[i].value));
	}
	t->nfiles = index_count(v, IDX_FILES);
	t->files = xcalloc(t->nfiles + 1, sizeof *t->files);
	const struct idx_file *fl = index_table(v, IDX_FILES);
	for (size_t i = 0; i < t->nfiles; i++) {
		t->files[i].path = xstrdup(index_text(v, fl[i].path));
		t->files[i].dev = fl[i].dev;
		t->files[i].ino = fl[i].ino;
		t->files[i].size = fl[i].size;
		t->files[i].mtime_ns = fl[i].mtime_ns;
	}
	t->ndiags = index_count(v, IDX_DIAGS);
	t->diags = xcalloc(t->ndiags + 1, sizeof *t->diags);
	const struct idx_diag *dg = index_table(v, IDX_DIAGS);
	for (size_t i = 0; i < t->ndiags; i++) {
		t->diags[i].level = (enum diag_level)dg[i].level;
		t->diags[i].text = xstrdup(index_text(v, dg[i].text));
	}

	mb->summary = xcalloc(1, sizeof *mb->summary);
	mb->summary->has_stats = (h->flags & IDX_HAS_STATS) != 0;
	mb->summary->stats = index_table(v, IDX_STATS);
	mb->summary->nstats = index_count(v, IDX_STATS);
	mb->summary->stats_unfinished = h->stats_unfinished;
	if (index_count(v, IDX_CALLED) > 0)
		mb->summary->called = index_table(v, IDX_CALLED);
	mb->summary->frames = index_table(v, IDX_STACKS);
	mb->summary->nframes = index_count(v, IDX_STACKS);
	if (index_count(v, IDX_SUM_LEVELS) > 0) {
		uint64_t *first = xcalloc(index_count(v, IDX_TRACKS) + 1,
		    sizeof *first);
		const struct idx_track *it = index_table(v, IDX_TRACKS);
		for (uint64_t i = 0; i < index_count(v, IDX_TRACKS); i++)
			first[i] = it[i].level_first;
		mb->summary->level_first = first;
		mb->summary->levels = index_table(v, IDX_SUM_LEVELS);
		mb->summary->nodes = index_table(v, IDX_SUM_NODES);
		mb->summary->entries = index_table(v, IDX_SUM_ENTRIES);
	}
	if (index_count(v, IDX_SUM_TRACKS) > 0)
		mb->summary->tracks = index_table(v, IDX_SUM_TRACKS);
	t->summary = mb->summary;

	const struct idx_track *tk = index_table(v, IDX_TRACKS);
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	const struct long_dur *lg = index_table(v, IDX_LONGS);
	const struct instant *ins = index_table(v, IDX_INSTANTS);
	const struct counter_sample *cs = index_table(v, IDX_SAMPLES);
	const struct slice_args *sa = index_table(v, IDX_SLICE_ARGS);
	t->ntracks = (uint32_t)index_count(v, IDX_TRACKS);
	t->tracks = xcalloc(t->ntracks + 1, sizeof *t->tracks);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track *tr = &t->tracks[i];
		const struct idx_track *it = &tk[i];
		tr->kind = (enum track_kind)it->kind;
		tr->process = it->process;
		tr->tid = it->tid;
		tr->name = it->name;
		tr->first = it->first;
		tr->last = it->last;
		tr->nslices = it->nslices;
		tr->instants = it->ninstants ?
		    (struct instant *)ins + it->instants_first : NULL;
		tr->ninstants = it->ninstants;
		tr->samples = it->nsamples ?
		    (struct counter_sample *)cs + it->samples_first : NULL;
		tr->nsamples = it->nsamples;
		tr->slice_args = it->nsargs ?
		    (struct slice_args *)sa + it->sargs_first : NULL;
		tr->nslice_args = it->nsargs;
		tr->ndepth = it->ndepth;
		tr->depth = xcalloc(it->ndepth + 1, sizeof *tr->depth);
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct idx_level *l = &lv[it->level_first + d];
			struct depth_level *dl = &tr->depth[d];
			/* A guarded depth is mapped apart, with no access
			 * until a block is checked. */
			dl->len = l->len;
			if (guarded && index_guard_wants(v, l)) {
				if (index_guard_add(mb->guard, mb, v, fd, l,
				    dl) != 0)
					return -1;
			} else {
				dl->slices = index_stitch(mb, v, fd,
				    l->ext_first, l->next, PROT_READ);
				dl->weights = index_stitch(mb, v, fd,
				    l->wext_first, l->wnext, PROT_READ);
				if ((l->next > 0 && dl->slices == NULL) ||
				    (l->wnext > 0 && dl->weights == NULL))
					return -1;
			}
			dl->longs = l->nlongs ?
			    (struct long_dur *)lg + l->longs_first : NULL;
			dl->nlongs = l->nlongs;
		}
	}
		return 0;
}

/* Every block of every depth not guarded, checked now: NULL or what is
 * wrong. */
static char *
check_blocks(const struct trace *t, const struct index_view *v,
    bool skip_guarded, bool guarded)
{
	const struct idx_track *tk = index_table(v, IDX_TRACKS);
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t d = 0; d < t->tracks[i].ndepth; d++) {
			const struct idx_level *l = &lv[tk[i].level_first + d];
			const struct depth_level *dl = &t->tracks[i].depth[d];
			if (skip_guarded && guarded && index_guard_wants(v, l))
				continue;
#ifdef HAVE_MADVISE
			/* Read once, in order: ahead, and dropped after. */
			if (l->len * sizeof(struct slice) >= v->h->page_size)
				(void)madvise((void *)((uintptr_t)dl->slices &
				    ~((uintptr_t)v->h->page_size - 1)),
				    l->len * sizeof(struct slice),
				    MADV_SEQUENTIAL);
#endif
			for (uint64_t b = 0; b * INDEX_BLOCK_SLICES < l->len;
			    b++) {
				size_t at = (size_t)(b * INDEX_BLOCK_SLICES);
				const char *why = index_check_block(v, l, b,
				    dl->slices + at, dl->weights ?
				    dl->weights + at : NULL, t->nfuncs);
				if (why != NULL)
					return xasprintf("track %u depth %u: %s",
					    i, d, why);
			}
		}
	return NULL;
}

/* The trace's files as the index recorded them. */
static void
stored_sources(const struct index_view *v, struct index_sources *out)
{
	const struct idx_source *s = index_table(v, IDX_SOURCES);
	uint64_t n = index_count(v, IDX_SOURCES);
	memset(out, 0, sizeof *out);
	out->v = xcalloc(n + 1, sizeof *out->v);
	for (uint64_t i = 0; i < n; i++) {
		struct index_source *e = &out->v[out->n++];
		e->path = xstrdup(index_text(v, s[i].path));
		e->kind = (enum idx_source_kind)s[i].kind;
		e->dev = s[i].dev;
		e->ino = s[i].ino;
		e->size = s[i].size;
		e->mtime_ns = s[i].mtime_ns;
		e->head_hash = s[i].head_hash;
		e->covered = s[i].covered;
		e->tail_hash = s[i].tail_hash;
	}
	out->cap = out->n;
}

/* index_map, and index_map_grown when grown: files only appended to
 * are then no reason to refuse. */
static int
map_index(int fd, const struct index_ident *id, enum index_check check,
    bool grown, struct trace **out, char **why, bool *appended)
{
	struct stat st;
	bool grew = false;

	*out = NULL;
	*why = NULL;
	if (appended != NULL)
		*appended = false;
	if (fstat(fd, &st) != 0) {
		*why = xstrdup(strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size <
	    sizeof(struct idx_header)) {
		*why = xstrdup(S_ISREG(st.st_mode) ? "truncated" :
		    "not a file");
		return -1;
	}
	struct map_backing *mb = xcalloc(1, sizeof *mb);
	mb->base.owns = map_owns;
	mb->base.release = map_release;
	mb->size = (size_t)st.st_size;
	void *p = mmap(NULL, mb->size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*why = xasprintf("cannot map it: %s", strerror(errno));
		free(mb);
		return -1;
	}
	mb->map = p;
	struct index_view v = { mb->map, mb->size,
	    (const struct idx_header *)mb->map };
	const char *bad = index_check_header(&v);
	if (bad != NULL) {
		*why = xstrdup(bad);
		goto fail;
	}
	if (id != NULL && v.h->program_id != id->program_id) {
		*why = xstrdup("written by another build of ttv");
		goto fail;
	}
	if (id != NULL && v.h->options_hash != id->options_hash) {
		*why = xstrdup("built with other options (--format, "
		    "--instr-map, --sysroot)");
		goto fail;
	}
	if ((*why = index_check_tables(&v)) != NULL)
		goto fail;
	if (id != NULL) {
		struct index_sources was, cur;
		stored_sources(&v, &was);
		index_sources_cover(&cur, &id->sources, &was);
		*why = index_sources_diff(&was, &cur, &grew);
		index_sources_free(&cur);
		index_sources_free(&was);
		if (*why != NULL && !(grown && grew))
			goto fail;
		free(*why);
		*why = NULL;
	}
	if (grown && index_count(&v, IDX_GROW) == 0) {
		*why = xstrdup("it keeps no state to read on from");
		goto fail;
	}
	mb->grow = index_count(&v, IDX_GROW) > 0 ? index_table(&v, IDX_GROW) :
	    NULL;
	mb->grow_len = (size_t)index_count(&v, IDX_GROW);

	bool guarded = check == INDEX_CHECK_LAZY && index_guard_usable();
	if (guarded)
		mb->guard = index_guard_new(&v, fd);
	struct trace *t = xcalloc(1, sizeof *t);
	t->backing = &mb->base;
	if (make_trace(t, mb, &v, fd, guarded) != 0) {
		*why = xasprintf("cannot map it: %s", strerror(errno));
		trace_free(t);
		return -1;
	}
	if (check != INDEX_CHECK_WRITTEN &&
	    (*why = check_blocks(t, &v, true, guarded)) != NULL) {
		trace_free(t);
		return -1;
	}
	if (guarded)
		index_guard_arm(mb->guard, t->nfuncs);
	*out = t;
	return 0;

fail:
	if (appended != NULL)
		*appended = grew;
	munmap((void *)mb->map, mb->size);
	free(mb);
	return -1;
}

int
index_map(int fd, const struct index_ident *id, enum index_check check,
    struct trace **out, char **why, bool *appended)
{
	return map_index(fd, id, check, false, out, why, appended);
}

int
index_map_grown(int fd, const struct index_ident *id, struct trace **out,
    const void **grow, size_t *grow_len, char **why)
{
	*grow = NULL;
	*grow_len = 0;
	if (map_index(fd, id, INDEX_CHECK_ALL, true, out, why, NULL) != 0)
		return -1;
	const struct map_backing *mb = (const struct map_backing *)
	    (*out)->backing;
	*grow = mb->grow;
	*grow_len = mb->grow_len;
	return 0;
}
