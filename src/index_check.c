/*
 * The checks of an index read back (see index_int.h, doc/index-format.md):
 * the index is input like any trace. Every table is checked to lie inside
 * the file and to hash as recorded, then every value that indexes another
 * table, or that a query relies on (time order, function ids), is checked
 * against what it indexes. Nothing here trusts a count before comparing
 * it with the bytes there are.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "index_hash.h"
#include "index_int.h"
#include "xalloc.h"

/* A fuzzer's mutations would almost never get past the hashes, and it is
 * what the checks behind them do with damage that it is to try: fuzz
 * builds (the libFuzzer convention's macro, tests/fuzz/fuzz.am) take any
 * hash as right. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define HASH_OK(got, want) ((void)(got), (void)(want), true)
#else
#define HASH_OK(got, want) ((got) == (want))
#endif

static const size_t table_size[IDX_TABLE_COUNT] = {
	[IDX_BLOB] = 1,
	[IDX_STR_OFF] = sizeof(uint64_t),
	[IDX_FUNCS] = sizeof(struct func),
	[IDX_PROCESSES] = sizeof(struct process),
	[IDX_TRACKS] = sizeof(struct idx_track),
	[IDX_LEVELS] = sizeof(struct idx_level),
	[IDX_EXTENTS] = sizeof(struct idx_extent),
	[IDX_BLOCKS] = sizeof(struct idx_block),
	[IDX_LONGS] = sizeof(struct long_dur),
	[IDX_INSTANTS] = sizeof(struct instant),
	[IDX_SAMPLES] = sizeof(struct counter_sample),
	[IDX_SLICE_ARGS] = sizeof(struct slice_args),
	[IDX_MARKERS] = sizeof(struct marker),
	[IDX_FLOWS] = sizeof(struct flow),
	[IDX_LOGS] = sizeof(struct log_entry),
	[IDX_ARGS] = sizeof(struct arg),
	[IDX_RECORDS] = sizeof(struct idx_record),
	[IDX_META] = sizeof(struct idx_meta),
	[IDX_DIAGS] = sizeof(struct idx_diag),
	[IDX_SOURCES] = sizeof(struct idx_source),
	[IDX_STACKS] = sizeof(struct idx_frame),
	[IDX_STATS] = sizeof(struct func_stats),
	[IDX_SUM_LEVELS] = sizeof(struct sum_level),
	[IDX_SUM_NODES] = sizeof(struct sum_node),
	[IDX_SUM_ENTRIES] = sizeof(struct sum_entry),
	[IDX_SUM_TRACKS] = sizeof(struct sum_track),
	[IDX_FILES] = sizeof(struct idx_file),
	[IDX_FUNC_ADDRS] = sizeof(struct func_addr),
	[IDX_CALLED] = 1,
	[IDX_GROW] = 1,
};

static const char *const table_name[IDX_TABLE_COUNT] = {
	[IDX_BLOB] = "texts", [IDX_STR_OFF] = "string offsets",
	[IDX_FUNCS] = "functions", [IDX_PROCESSES] = "processes",
	[IDX_TRACKS] = "tracks", [IDX_LEVELS] = "depths",
	[IDX_EXTENTS] = "extents", [IDX_BLOCKS] = "check records",
	[IDX_LONGS] = "long durations", [IDX_INSTANTS] = "instants",
	[IDX_SAMPLES] = "counter samples", [IDX_SLICE_ARGS] = "slice args",
	[IDX_MARKERS] = "markers", [IDX_FLOWS] = "flows", [IDX_LOGS] = "logs",
	[IDX_ARGS] = "args", [IDX_RECORDS] = "record counts",
	[IDX_META] = "metadata", [IDX_DIAGS] = "diagnostics",
	[IDX_SOURCES] = "trace files", [IDX_STACKS] = "open frames",
	[IDX_STATS] = "function table", [IDX_SUM_LEVELS] = "summaries",
	[IDX_SUM_NODES] = "summary nodes",
	[IDX_SUM_ENTRIES] = "summary entries",
	[IDX_SUM_TRACKS] = "track summaries", [IDX_FILES] = "files read",
	[IDX_FUNC_ADDRS] = "function addresses",
	[IDX_CALLED] = "functions called",
	[IDX_GROW] = "state to read on from",
};

uint64_t
index_block_hash(const struct slice *s, const uint32_t *w, size_t n)
{
	uint64_t h = index_hash(s, n * sizeof *s, 0);
	return w != NULL ? index_hash(w, n * sizeof *w, h) : h;
}

const char *
index_check_header(const struct index_view *v)
{
	const struct idx_header *h = v->h;
	struct idx_header want;

	if (v->size < sizeof *h)
		return "too short for its header";
	if (memcmp(h->magic, INDEX_MAGIC, sizeof h->magic) != 0)
		return "not an index of ttv's";
	if (h->bom != INDEX_BOM)
		return "written on a machine of the other byte order";
	if (h->format_version != INDEX_FORMAT_VERSION)
		return "written by another version of ttv (another index "
		    "format)";
	if (h->model_version != INDEX_MODEL_VERSION)
		return "written by another version of ttv (another model)";
	index_header_init(&want);
	if (h->nsizes != want.nsizes || memcmp(h->sizes, want.sizes,
	    sizeof want.sizes) != 0)
		return "written by a build of other structure layouts";
	if (h->page_size != want.page_size)
		return "written on a machine of another page size";
	if (h->complete != INDEX_COMPLETE)
		return "incomplete (its writer stopped before the end)";
	if (h->trace_len > h->page_size - sizeof *h - 1 ||
	    v->size < sizeof *h + h->trace_len ||
	    !HASH_OK(index_hash(v->base + sizeof *h, h->trace_len,
	    index_hash(h, offsetof(struct idx_header, header_hash), 0)),
	    h->header_hash))
		return "damaged header";
	if (h->file_size != v->size)
		return h->file_size > v->size ? "truncated" :
		    "longer than written";
	return NULL;
}

/* [first, first + n) within [0, count), overflow-checked. */
static bool
in_range(uint64_t first, uint64_t n, uint64_t count)
{
	return first <= count && n <= count - first;
}

/* The table's place in the file and its hash. */
static char *
check_table(const struct index_view *v, enum idx_table k)
{
	const struct idx_array *a = &v->h->tables[k];
	uint64_t size = table_size[k];
	if (a->count == 0)
		return NULL;
	if (a->off % 8 != 0 || a->off < sizeof *v->h || a->off > v->size ||
	    a->count > (v->size - a->off) / size)
		return xasprintf("table of %s outside the file",
		    table_name[k]);
	uint64_t h = 0, len = a->count * size;
	const unsigned char *p = v->base + a->off;
	for (uint64_t done = 0; done < len; done += INDEX_HASH_PIECE) {
		size_t n = len - done < INDEX_HASH_PIECE ?
		    (size_t)(len - done) : INDEX_HASH_PIECE;
		h = index_hash(p + done, n, h);
	}
	if (!HASH_OK(h, a->hash))
		return xasprintf("table of %s damaged (hash)", table_name[k]);
	return NULL;
}

/* A blob offset (or IDX_NO_TEXT when allowed). */
static bool
text_ok(const struct index_view *v, uint64_t off, bool may_be_null)
{
	if (off == IDX_NO_TEXT)
		return may_be_null;
	return off < index_count(v, IDX_BLOB);
}

static char *
check_texts(const struct index_view *v)
{
	uint64_t nblob = index_count(v, IDX_BLOB);
	const char *blob = index_table(v, IDX_BLOB);
	if (nblob > 0 && blob[nblob - 1] != '\0')
		return xstrdup("texts do not end with a NUL");
	uint64_t n = index_count(v, IDX_STR_OFF);
	const uint64_t *so = index_table(v, IDX_STR_OFF);
	if (n == 0 || n > UINT32_MAX)
		return xstrdup("bad string count");
	for (uint64_t i = 0; i < n; i++)
		if (so[i] >= nblob)
			return xasprintf("string %llu outside the texts",
			    (unsigned long long)i);
	if (blob[so[0]] != '\0')
		return xstrdup("string 0 is not empty");
	const struct idx_header *h = v->h;
	if (!text_ok(v, h->path, false) || !text_ok(v, h->format, false) ||
	    !text_ok(v, h->version, true) || !text_ok(v, h->byte_order, true))
		return xstrdup("bad path or format text");
	const struct idx_record *rec = index_table(v, IDX_RECORDS);
	for (uint64_t i = 0; i < index_count(v, IDX_RECORDS); i++)
		if (!text_ok(v, rec[i].kind, false))
			return xstrdup("bad record kind");
	const struct idx_meta *meta = index_table(v, IDX_META);
	for (uint64_t i = 0; i < index_count(v, IDX_META); i++)
		if (!text_ok(v, meta[i].key, false) ||
		    !text_ok(v, meta[i].value, false))
			return xstrdup("bad metadata text");
	const struct idx_diag *dg = index_table(v, IDX_DIAGS);
	for (uint64_t i = 0; i < index_count(v, IDX_DIAGS); i++)
		if (dg[i].level > DIAG_ERROR || !text_ok(v, dg[i].text, false))
			return xstrdup("bad diagnostic");
	const struct idx_file *fl = index_table(v, IDX_FILES);
	for (uint64_t i = 0; i < index_count(v, IDX_FILES); i++)
		if (!text_ok(v, fl[i].path, false))
			return xstrdup("bad file read");
	const struct idx_source *src = index_table(v, IDX_SOURCES);
	for (uint64_t i = 0; i < index_count(v, IDX_SOURCES); i++)
		if (!text_ok(v, src[i].path, false) ||
		    src[i].kind > IDX_SOURCE_ABSENT)
			return xstrdup("bad trace file entry");
	return NULL;
}

/* The extents of one array of want bytes: inside the file, aligned, and
 * (when more than one) page-aligned and whole pages but the last. */
static bool
extents_ok(const struct index_view *v, uint64_t first, uint64_t n,
    uint64_t want)
{
	const struct idx_extent *e = index_table(v, IDX_EXTENTS);
	uint64_t page = v->h->page_size, sum = 0;
	if (!in_range(first, n, index_count(v, IDX_EXTENTS)))
		return false;
	if (n == 0)
		return want == 0;
	for (uint64_t i = first; i < first + n; i++) {
		if (e[i].off % 16 != 0 || e[i].off < v->h->page_size ||
		    e[i].off > v->size || e[i].bytes > v->size - e[i].off)
			return false;
		if (n > 1 && (e[i].off % page != 0 || (i + 1 < first + n &&
		    e[i].bytes % page != 0)))
			return false;
		if (e[i].bytes > want - sum)
			return false;
		sum += e[i].bytes;
	}
	return sum == want;
}

static uint64_t
nblocks(uint64_t len)
{
	return len / INDEX_BLOCK_SLICES + (len % INDEX_BLOCK_SLICES != 0);
}

static char *
check_levels(const struct index_view *v)
{
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	const struct idx_block *blk = index_table(v, IDX_BLOCKS);
	const struct long_dur *lg = index_table(v, IDX_LONGS);
	for (uint64_t i = 0; i < index_count(v, IDX_LEVELS); i++) {
		const struct idx_level *l = &lv[i];
		if (l->len > UINT32_MAX ||
		    !extents_ok(v, l->ext_first, l->next,
		    l->len * sizeof(struct slice)) ||
		    (l->wnext != 0 && !extents_ok(v, l->wext_first, l->wnext,
		    l->len * sizeof(uint32_t))))
			return xasprintf("depth %llu: slices outside the file",
			    (unsigned long long)i);
		uint64_t nb = nblocks(l->len);
		if (!in_range(l->block_first, nb, index_count(v, IDX_BLOCKS)))
			return xasprintf("depth %llu: check records missing",
			    (unsigned long long)i);
		for (uint64_t b = l->block_first; b < l->block_first + nb;
		    b++) {
			if (blk[b].first_start > blk[b].last_start ||
			    (b > l->block_first &&
			    blk[b - 1].last_start > blk[b].first_start))
				return xasprintf("depth %llu: blocks out of "
				    "order", (unsigned long long)i);
		}
		if (!in_range(l->longs_first, l->nlongs,
		    index_count(v, IDX_LONGS)))
			return xasprintf("depth %llu: long durations outside "
			    "their table", (unsigned long long)i);
		for (uint64_t k = l->longs_first; k < l->longs_first +
		    l->nlongs; k++)
			if (lg[k].index >= l->len || lg[k].dur < 0 ||
			    (k > l->longs_first &&
			    lg[k - 1].index >= lg[k].index))
				return xasprintf("depth %llu: bad long "
				    "duration", (unsigned long long)i);
	}
	return NULL;
}

static char *
check_tracks(const struct index_view *v)
{
	const struct idx_track *tk = index_table(v, IDX_TRACKS);
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	uint64_t nstr = index_count(v, IDX_STR_OFF);
	uint64_t nfuncs = index_count(v, IDX_FUNCS);
	uint64_t nargs = index_count(v, IDX_ARGS);
	uint64_t ntracks = index_count(v, IDX_TRACKS);
	const struct instant *ins = index_table(v, IDX_INSTANTS);
	const struct counter_sample *cs = index_table(v, IDX_SAMPLES);
	const struct slice_args *sa = index_table(v, IDX_SLICE_ARGS);
	uint64_t levels_used = 0;

	if (ntracks > UINT32_MAX - 1)
		return xstrdup("too many tracks");
	for (uint64_t i = 0; i < ntracks; i++) {
		const struct idx_track *t = &tk[i];
		if (t->kind > TRACK_COUNTER ||
		    t->process >= index_count(v, IDX_PROCESSES) ||
		    t->name >= nstr)
			return xasprintf("track %llu: bad kind, process or "
			    "name", (unsigned long long)i);
		/* Tracks take their depths in order, without gaps. */
		if (t->level_first != levels_used ||
		    !in_range(t->level_first, t->ndepth,
		    index_count(v, IDX_LEVELS)))
			return xasprintf("track %llu: depths outside their "
			    "table", (unsigned long long)i);
		levels_used += t->ndepth;
		uint64_t n = 0;
		for (uint64_t d = 0; d < t->ndepth; d++)
			n += lv[t->level_first + d].len;
		if (n != t->nslices)
			return xasprintf("track %llu: slice count",
			    (unsigned long long)i);
		if (!in_range(t->instants_first, t->ninstants,
		    index_count(v, IDX_INSTANTS)) ||
		    !in_range(t->samples_first, t->nsamples,
		    index_count(v, IDX_SAMPLES)) ||
		    !in_range(t->sargs_first, t->nsargs,
		    index_count(v, IDX_SLICE_ARGS)))
			return xasprintf("track %llu: events outside their "
			    "tables", (unsigned long long)i);
		for (uint64_t k = 0; k < t->ninstants; k++) {
			const struct instant *in = &ins[t->instants_first + k];
			if (in->func >= nfuncs || in->args >= nargs ||
			    (k > 0 && in[-1].t > in->t))
				return xasprintf("track %llu: bad instant",
				    (unsigned long long)i);
		}
		for (uint64_t k = 1; k < t->nsamples; k++)
			if (cs[t->samples_first + k - 1].t >
			    cs[t->samples_first + k].t)
				return xasprintf("track %llu: counter samples "
				    "out of order", (unsigned long long)i);
		for (uint64_t k = 0; k < t->nsargs; k++) {
			const struct slice_args *a = &sa[t->sargs_first + k];
			if (a->depth >= t->ndepth ||
			    a->index >= lv[t->level_first + a->depth].len ||
			    a->args == 0 || a->args >= nargs)
				return xasprintf("track %llu: bad slice args",
				    (unsigned long long)i);
			if (k > 0 && (a[-1].depth > a->depth ||
			    (a[-1].depth == a->depth &&
			    a[-1].index >= a->index)))
				return xasprintf("track %llu: slice args out "
				    "of order", (unsigned long long)i);
		}
	}
	if (levels_used != index_count(v, IDX_LEVELS))
		return xstrdup("depths no track owns");
	return NULL;
}

/* A slice named by a flow, in range. */
static bool
ref_ok(const struct index_view *v, struct slice_ref r)
{
	const struct idx_track *tk = index_table(v, IDX_TRACKS);
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	if (r.track >= index_count(v, IDX_TRACKS) ||
	    r.depth >= tk[r.track].ndepth)
		return false;
	return r.index < lv[tk[r.track].level_first + r.depth].len;
}

static char *
check_globals(const struct index_view *v)
{
	uint64_t nstr = index_count(v, IDX_STR_OFF);
	uint64_t ntracks = index_count(v, IDX_TRACKS);
	uint64_t nfuncs = index_count(v, IDX_FUNCS);
	const struct func *fn = index_table(v, IDX_FUNCS);
	if (nfuncs > (uint64_t)FUNC_ID_MAX + 1)
		return xstrdup("too many functions");
	for (uint64_t i = 0; i < nfuncs; i++)
		if (fn[i].name >= nstr || fn[i].category >= nstr)
			return xasprintf("function %llu: bad name",
			    (unsigned long long)i);
	/* one address at most per function, in function order (the
	 * search of trace_func_addr) */
	const struct func_addr *fa = index_table(v, IDX_FUNC_ADDRS);
	for (uint64_t i = 0; i < index_count(v, IDX_FUNC_ADDRS); i++)
		if (fa[i].func >= nfuncs || fa[i].binary >= nstr ||
		    (i > 0 && fa[i - 1].func >= fa[i].func))
			return xasprintf("function address %llu: bad function, "
			    "binary or order", (unsigned long long)i);
	const uint8_t *called = index_table(v, IDX_CALLED);
	if (index_count(v, IDX_CALLED) != 0 &&
	    index_count(v, IDX_CALLED) != nfuncs)
		return xstrdup("functions called do not match the functions");
	for (uint64_t i = 0; i < index_count(v, IDX_CALLED); i++)
		if (called[i] & ~(SUM_CALLED | SUM_UNFINISHED))
			return xasprintf("function %llu: bad calls",
			    (unsigned long long)i);
	const struct process *pr = index_table(v, IDX_PROCESSES);
	if (index_count(v, IDX_PROCESSES) > UINT32_MAX)
		return xstrdup("too many processes");
	for (uint64_t i = 0; i < index_count(v, IDX_PROCESSES); i++)
		if (pr[i].name >= nstr)
			return xasprintf("process %llu: bad name",
			    (unsigned long long)i);
	const struct marker *mk = index_table(v, IDX_MARKERS);
	for (uint64_t i = 0; i < index_count(v, IDX_MARKERS); i++)
		if (mk[i].kind >= MARKER_KIND_COUNT || mk[i].text >= nstr ||
		    (mk[i].track >= ntracks && mk[i].track != UINT32_MAX) ||
		    (i > 0 && mk[i - 1].t > mk[i].t))
			return xasprintf("marker %llu: bad kind, track, text "
			    "or order", (unsigned long long)i);
	const struct flow *fl = index_table(v, IDX_FLOWS);
	for (uint64_t i = 0; i < index_count(v, IDX_FLOWS); i++)
		if (!ref_ok(v, fl[i].from) || !ref_ok(v, fl[i].to))
			return xasprintf("flow %llu: an end names no slice",
			    (unsigned long long)i);
	const struct log_entry *lg = index_table(v, IDX_LOGS);
	for (uint64_t i = 0; i < index_count(v, IDX_LOGS); i++)
		if (lg[i].text >= nstr || (lg[i].track >= ntracks &&
		    lg[i].track != UINT32_MAX) ||
		    (i > 0 && lg[i - 1].t > lg[i].t))
			return xasprintf("log %llu: bad track, text or order",
			    (unsigned long long)i);
	uint64_t nargs = index_count(v, IDX_ARGS);
	const struct arg *ar = index_table(v, IDX_ARGS);
	if (nargs == 0 || nargs > (uint64_t)UINT32_MAX + 1)
		return xstrdup("bad args count");
	for (uint64_t i = 0; i < nargs; i++)
		if (ar[i].name >= nstr || ar[i].type > ARG_KOID ||
		    (ar[i].type == ARG_STR && ar[i].v.s >= nstr))
			return xasprintf("arg %llu: bad name, type or text",
			    (unsigned long long)i);
	const struct func_stats *st = index_table(v, IDX_STATS);
	for (uint64_t i = 0; i < index_count(v, IDX_STATS); i++)
		if (st[i].func >= nfuncs || (i > 0 && st[i - 1].func >=
		    st[i].func) || !ref_ok(v, st[i].longest))
			return xasprintf("function table row %llu: bad function "
			    "or longest call", (unsigned long long)i);
	if (index_count(v, IDX_STATS) > 0 && !(v->h->flags & IDX_HAS_STATS))
		return xstrdup("a function table without its flag");
	const struct idx_frame *fr = index_table(v, IDX_STACKS);
	for (uint64_t i = 0; i < index_count(v, IDX_STACKS); i++)
		if (fr[i].track >= ntracks || fr[i].func >= nfuncs ||
		    fr[i].args >= nargs ||
		    fr[i].depth >= ((const struct idx_track *)index_table(v,
		    IDX_TRACKS))[fr[i].track].ndepth)
			return xasprintf("open frame %llu: bad track, "
			    "function or args", (unsigned long long)i);
	return NULL;
}

/* The summaries: one per depth or none, each depth's nodes where its
 * heights say, entries naming functions and calls of the depth. */
static char *
check_summaries(const struct index_view *v)
{
	uint64_t nl = index_count(v, IDX_SUM_LEVELS);
	uint64_t nn = index_count(v, IDX_SUM_NODES);
	uint64_t ne = index_count(v, IDX_SUM_ENTRIES);
	uint64_t nfuncs = index_count(v, IDX_FUNCS);
	const struct sum_level *sl = index_table(v, IDX_SUM_LEVELS);
	const struct sum_node *nd = index_table(v, IDX_SUM_NODES);
	const struct sum_entry *en = index_table(v, IDX_SUM_ENTRIES);
	const struct idx_level *lv = index_table(v, IDX_LEVELS);
	if (index_count(v, IDX_SUM_TRACKS) != 0 &&
	    index_count(v, IDX_SUM_TRACKS) != index_count(v, IDX_TRACKS))
		return xstrdup("track summaries do not match the tracks");
	if (nl != 0 && nl != index_count(v, IDX_LEVELS))
		return xstrdup("summaries do not match the depths");
	for (uint64_t i = 0; i < nl; i++) {
		if (sl[i].nblocks == 0)
			continue;
		uint64_t n = (lv[i].len + SUM_BLOCK - 1) / SUM_BLOCK, total = 0;
		uint32_t h = 0;
		if (n != sl[i].nblocks)
			return xasprintf("summary of depth %llu: block count",
			    (unsigned long long)i);
		for (;;) {
			total += n;
			h++;
			if (n == 1 || h > 64)
				break;
			n = (n + SUM_FANOUT - 1) / SUM_FANOUT;
		}
		if (h != sl[i].nheights || !in_range(sl[i].node_first, total,
		    nn))
			return xasprintf("summary of depth %llu: heights or "
			    "nodes", (unsigned long long)i);
		for (uint64_t k = sl[i].node_first; k < sl[i].node_first +
		    total; k++) {
			if (nd[k].nentries == SUM_NONE)
				continue;
			if (!in_range(nd[k].entry_first, nd[k].nentries, ne))
				return xasprintf("summary node %llu: entries",
				    (unsigned long long)k);
			for (uint64_t e = nd[k].entry_first; e <
			    nd[k].entry_first + nd[k].nentries; e++)
				if (en[e].func >= nfuncs || en[e].longest >=
				    lv[i].len)
					return xasprintf("summary entry %llu: "
					    "function or call",
					    (unsigned long long)e);
		}
	}
	return NULL;
}

char *
index_check_tables(const struct index_view *v)
{
	char *why;
	for (int k = 0; k < IDX_TABLE_COUNT; k++)
		if ((why = check_table(v, k)) != NULL)
			return why;
	if ((why = check_texts(v)) != NULL ||
	    (why = check_levels(v)) != NULL ||
	    (why = check_tracks(v)) != NULL ||
	    (why = check_globals(v)) != NULL ||
	    (why = check_summaries(v)) != NULL)
		return why;
	return NULL;
}

const char *
index_check_block(const struct index_view *v, const struct idx_level *lv,
    uint64_t b, const struct slice *s, const uint32_t *w, uint32_t nfuncs)
{
	const struct idx_block *rec =
	    (const struct idx_block *)index_table(v, IDX_BLOCKS) +
	    lv->block_first + b;
	uint64_t n = lv->len - b * INDEX_BLOCK_SLICES;
	if (n > INDEX_BLOCK_SLICES)
		n = INDEX_BLOCK_SLICES;
	if (!HASH_OK(index_block_hash(s, w, n), rec->hash))
		return "slices damaged (hash)";
	if (s[0].start != rec->first_start || s[n - 1].start !=
	    rec->last_start)
		return "slices damaged (bounds)";
	uint32_t bad_func = 0;
	uint64_t bad_order = 0, bad_end = 0;
	for (uint64_t i = 0; i < n; i++) {
		bad_func |= s[i].func >= nfuncs;
		bad_order |= i > 0 && s[i - 1].start > s[i].start;
		/* An end past the time axis: a query adding them would
		 * overflow. */
		bad_end |= s[i].start > TTV_NS_MAX - (ttv_ns)s[i].dur32;
	}
	if (bad_func)
		return "slices damaged (function ids)";
	if (bad_order)
		return "slices damaged (order)";
	if (bad_end)
		return "slices damaged (ends)";
	return NULL;
}
