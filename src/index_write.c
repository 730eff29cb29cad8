/*
 * Writing a model as an index (see index.h, doc/index-format.md): the large
 * arrays first, each depth's slices and weights in page-aligned extents,
 * then the tables, then the header with its "complete" mark last.
 *
 * What is written is checked as the reader will check it (starts in order,
 * functions in range): a model the reader would refuse is never written,
 * so no index is rebuilt at every open.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index.h"
#include "index_format.h"
#include "index_hash.h"
#include "index_int.h"
#include "index_summary.h"
#include "index_store.h"
#include "xalloc.h"

struct writer {
	int fd;
	const struct index_store *store;	/* where large depths are, or NULL */
	uint64_t off;		/* next free byte of the file */
	int errnum;		/* the first write error */
	char *bad;		/* the first rule the model breaks */
	struct idx_header h;

	/* The table being written: pieces of INDEX_HASH_PIECE bytes are
	 * hashed and written as they fill. */
	enum idx_table tk;
	size_t tsize;
	uint64_t tcount;
	unsigned char *buf;
	size_t buflen;
	uint64_t bufoff;	/* where the buffer goes in the file */
	uint64_t thash;
};

static void
wr(struct writer *w, const void *p, size_t len, uint64_t at)
{
	const char *c = p;
	while (len > 0 && w->errnum == 0) {
		ssize_t n = pwrite(w->fd, c, len, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->errnum = n < 0 ? errno : ENOSPC;
			return;
		}
		c += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
}

static uint64_t
align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ------------------------------------------------------------- tables */

static void
tbl_begin(struct writer *w, enum idx_table k, size_t size)
{
	w->tk = k;
	w->tsize = size;
	w->tcount = 0;
	w->off = align_up(w->off, 16);
	w->bufoff = w->off;
	w->buflen = 0;
	w->thash = 0;
	w->h.tables[k].off = w->off;
}

static void
tbl_flush(struct writer *w)
{
	if (w->buflen == 0)
		return;
	w->thash = index_hash(w->buf, w->buflen, w->thash);
	wr(w, w->buf, w->buflen, w->bufoff);
	w->bufoff += w->buflen;
	w->buflen = 0;
}

static void
tbl_bytes(struct writer *w, const void *p, size_t len)
{
	const unsigned char *c = p;
	while (len > 0) {
		size_t n = INDEX_HASH_PIECE - w->buflen;
		if (n > len)
			n = len;
		memcpy(w->buf + w->buflen, c, n);
		w->buflen += n;
		c += n;
		len -= n;
		if (w->buflen == INDEX_HASH_PIECE)
			tbl_flush(w);
	}
}

static void
tbl_add(struct writer *w, const void *p, size_t count)
{
	tbl_bytes(w, p, count * w->tsize);
	w->tcount += count;
}

static void
tbl_end(struct writer *w)
{
	tbl_flush(w);
	struct idx_array *a = &w->h.tables[w->tk];
	a->count = w->tcount;
	a->hash = w->thash;
	w->off = a->off + w->tcount * w->tsize;
}

static void
tbl_whole(struct writer *w, enum idx_table k, const void *p, size_t count,
    size_t size)
{
	tbl_begin(w, k, size);
	tbl_add(w, p, count);
	tbl_end(w);
}

/* ------------------------------------------------------------- blob */

/* Texts go to the blob, which is written first among the tables; each
 * gets its offset in it. */
struct blob {
	struct writer *w;
	uint64_t len;
};

static uint64_t
blob_add(struct blob *b, const char *s)
{
	if (s == NULL)
		return IDX_NO_TEXT;
	size_t n = strlen(s);
	if (n >= INDEX_TEXT_MAX)
		n = INDEX_TEXT_MAX - 1;
	uint64_t at = b->len;
	tbl_bytes(b->w, s, n);
	tbl_bytes(b->w, "", 1);
	b->len += n + 1;
	b->w->tcount += n + 1;
	return at;
}

/* ----------------------------------------------------------- large arrays */

static void
bad(struct writer *w, char *why)
{
	if (w->bad == NULL)
		w->bad = why;
	else
		free(why);
}

/* Where an array of the large ones goes: page-aligned when it is at
 * least a block long (so that its blocks can be guarded page by page),
 * else where the file is. The same walk places them when they are
 * written and when their extents are listed, so nothing is kept per
 * depth in between (a stack 10^6 calls deep has 10^6 depths). */
static struct idx_extent
place_large(struct writer *w, uint64_t *at, size_t bytes, bool page)
{
	*at = align_up(*at, page ? w->h.page_size : 16);
	struct idx_extent e = { *at, bytes };
	*at += bytes;
	return e;
}

/* One array of the large ones: its extents in the file already when it
 * was built there, else where the walk places it (and writes it). */
static uint64_t
large_array(struct writer *w, const void *p, size_t bytes, bool page,
    uint64_t at, bool write)
{
	struct store_array *sa = w->store ? index_store_find(w->store, p) :
	    NULL;
	if (sa != NULL) {
		size_t n;
		const struct idx_extent *e = store_array_extents(sa, &n);
		if (!write)
			tbl_add(w, e, n);
		return at;
	}
	struct idx_extent e = place_large(w, &at, bytes, page);
	if (write)
		wr(w, p, e.bytes, e.off);
	else
		tbl_add(w, &e, 1);
	return at;
}

/* The number of extents of an array (see large_array). */
static uint64_t
large_extents(const struct writer *w, const void *p)
{
	struct store_array *sa = w->store ? index_store_find(w->store, p) :
	    NULL;
	size_t n = 1;
	if (sa != NULL)
		store_array_extents(sa, &n);
	return n;
}

/* Walks the depths' arrays: writes them (write) or lists their extents
 * in the table being written. Returns the offset after the last. */
static uint64_t
walk_large(struct writer *w, const struct trace *t, uint64_t at, bool write)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			bool page = l->len >= INDEX_BLOCK_SLICES;
			if (l->len == 0)
				continue;
			at = large_array(w, l->slices, l->len *
			    sizeof *l->slices, page, at, write);
			if (l->weights != NULL)
				at = large_array(w, l->weights, l->len *
				    sizeof *l->weights, page, at, write);
		}
	}
	return at;
}

/* The large arrays, then the tables that describe them, each written
 * whole before the next. */
static void
write_levels(struct writer *w, const struct trace *t,
    const struct summary_build *sb)
{
	uint64_t start = w->off;
	w->off = walk_large(w, t, start, true);

	tbl_begin(w, IDX_EXTENTS, sizeof(struct idx_extent));
	walk_large(w, t, start, false);
	tbl_end(w);

	uint64_t ext = 0, blocks = 0, longs = 0;
	tbl_begin(w, IDX_LEVELS, sizeof(struct idx_level));
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		for (uint32_t d = 0; d < t->tracks[ti].ndepth; d++) {
			const struct depth_level *l = &t->tracks[ti].depth[d];
			struct idx_level il = { 0 };
			il.len = l->len;
			il.ext_first = ext;
			il.next = l->len > 0 ? large_extents(w, l->slices) : 0;
			ext += il.next;
			il.wext_first = ext;
			il.wnext = l->len > 0 && l->weights != NULL ?
			    large_extents(w, l->weights) : 0;
			ext += il.wnext;
			il.longs_first = longs;
			il.nlongs = l->nlongs;
			longs += l->nlongs;
			il.block_first = blocks;
			blocks += (l->len + INDEX_BLOCK_SLICES - 1) /
			    INDEX_BLOCK_SLICES;
			tbl_add(w, &il, 1);
		}
	tbl_end(w);

	/* The check records, made on the summaries' walk. */
	tbl_whole(w, IDX_BLOCKS, sb->blocks, sb->nblocks, sizeof *sb->blocks);

	tbl_begin(w, IDX_LONGS, sizeof(struct long_dur));
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		for (uint32_t d = 0; d < t->tracks[ti].ndepth; d++) {
			const struct depth_level *l = &t->tracks[ti].depth[d];
			tbl_add(w, l->longs, l->nlongs);
		}
	tbl_end(w);
}

/* The per-track tables, one after the other; each track's part found by
 * its first index and count. */
static void
write_tracks(struct writer *w, const struct trace *t)
{
	struct idx_track *it = xcalloc(t->ntracks ? t->ntracks : 1,
	    sizeof *it);
	uint64_t level = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		it[i].kind = (uint32_t)tr->kind;
		it[i].process = tr->process;
		it[i].tid = tr->tid;
		it[i].name = tr->name;
		it[i].ndepth = tr->ndepth;
		it[i].first = tr->first;
		it[i].last = tr->last;
		it[i].nslices = tr->nslices;
		it[i].level_first = level;
		level += tr->ndepth;
	}
	uint64_t n = 0;
	tbl_begin(w, IDX_INSTANTS, sizeof(struct instant));
	for (uint32_t i = 0; i < t->ntracks; i++) {
		it[i].instants_first = n;
		it[i].ninstants = t->tracks[i].ninstants;
		tbl_add(w, t->tracks[i].instants, t->tracks[i].ninstants);
		n += t->tracks[i].ninstants;
	}
	tbl_end(w);
	n = 0;
	tbl_begin(w, IDX_SAMPLES, sizeof(struct counter_sample));
	for (uint32_t i = 0; i < t->ntracks; i++) {
		it[i].samples_first = n;
		it[i].nsamples = t->tracks[i].nsamples;
		tbl_add(w, t->tracks[i].samples, t->tracks[i].nsamples);
		n += t->tracks[i].nsamples;
	}
	tbl_end(w);
	n = 0;
	tbl_begin(w, IDX_SLICE_ARGS, sizeof(struct slice_args));
	for (uint32_t i = 0; i < t->ntracks; i++) {
		it[i].sargs_first = n;
		it[i].nsargs = t->tracks[i].nslice_args;
		tbl_add(w, t->tracks[i].slice_args, t->tracks[i].nslice_args);
		n += t->tracks[i].nslice_args;
	}
	tbl_end(w);
	tbl_whole(w, IDX_TRACKS, it, t->ntracks, sizeof *it);
	free(it);
}

/* The texts: strings, then the header's, the records', the metadata's,
 * the diagnostics' and the sources' paths, with the tables that point
 * into them. */
static void
write_texts(struct writer *w, const struct trace *t,
    const struct index_ident *id)
{
	uint64_t *soff = xcalloc(t->nstrings ? t->nstrings : 1, sizeof *soff);
	size_t nrec = t->nrecords, nmeta = t->nmeta, ndiag = t->ndiags;
	size_t nsrc = id ? id->sources.n : 0;
	struct idx_record *rec = xcalloc(nrec + 1, sizeof *rec);
	struct idx_meta *meta = xcalloc(nmeta + 1, sizeof *meta);
	struct idx_diag *diag = xcalloc(ndiag + 1, sizeof *diag);
	struct idx_source *src = xcalloc(nsrc + 1, sizeof *src);
	struct idx_file *files = xcalloc(t->nfiles + 1, sizeof *files);
	struct blob b = { w, 0 };

	tbl_begin(w, IDX_BLOB, 1);
	w->tcount = 0;
	for (uint32_t i = 0; i < t->nstrings; i++)
		soff[i] = blob_add(&b, t->strings[i]);
	w->h.path = blob_add(&b, t->path);
	w->h.format = blob_add(&b, t->format);
	w->h.version = blob_add(&b, t->version);
	w->h.byte_order = blob_add(&b, t->byte_order);
	for (size_t i = 0; i < nrec; i++) {
		rec[i].count = t->records[i].count;
		rec[i].kind = blob_add(&b, t->records[i].kind);
	}
	for (size_t i = 0; i < nmeta; i++) {
		meta[i].key = blob_add(&b, t->meta_keys[i]);
		meta[i].value = blob_add(&b, t->meta_values[i]);
	}
	for (size_t i = 0; i < ndiag; i++) {
		diag[i].level = (uint32_t)t->diags[i].level;
		diag[i].text = blob_add(&b, t->diags[i].text);
	}
	for (size_t i = 0; i < nsrc; i++) {
		const struct index_source *s = &id->sources.v[i];
		src[i].path = blob_add(&b, s->path);
		src[i].kind = (uint32_t)s->kind;
		src[i].dev = s->dev;
		src[i].ino = s->ino;
		src[i].size = s->size;
		src[i].mtime_ns = s->mtime_ns;
		src[i].head_hash = s->head_hash;
		src[i].covered = s->covered;
		src[i].tail_hash = s->tail_hash;
		src[i].resume = s->covered;
	}
	for (size_t i = 0; i < t->nfiles; i++) {
		files[i].path = blob_add(&b, t->files[i].path);
		files[i].dev = t->files[i].dev;
		files[i].ino = t->files[i].ino;
		files[i].size = t->files[i].size;
		files[i].mtime_ns = t->files[i].mtime_ns;
	}
	tbl_end(w);
	tbl_whole(w, IDX_STR_OFF, soff, t->nstrings, sizeof *soff);
	tbl_whole(w, IDX_RECORDS, rec, nrec, sizeof *rec);
	tbl_whole(w, IDX_META, meta, nmeta, sizeof *meta);
	tbl_whole(w, IDX_DIAGS, diag, ndiag, sizeof *diag);
	tbl_whole(w, IDX_SOURCES, src, nsrc, sizeof *src);
	tbl_whole(w, IDX_FILES, files, t->nfiles, sizeof *files);
	free(files);
	free(soff);
	free(rec);
	free(meta);
	free(diag);
	free(src);
}

/* The calls open at the end of the input: per track, from depth 0 down,
 * the last call of each depth while it is unterminated and inside the
 * one above. */
static void
write_frames(struct writer *w, const struct trace *t)
{
	tbl_begin(w, IDX_STACKS, sizeof(struct idx_frame));
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		ttv_ns outer = TTV_NS_MIN;
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			if (l->len == 0)
				break;
			const struct slice *s = &l->slices[l->len - 1];
			if (!(s->flags & SLICE_UNTERMINATED) || s->start < outer)
				break;
			struct slice_ref r = { ti, d, (uint32_t)(l->len - 1) };
			size_t n;
			const struct arg *a = trace_slice_args(t, r, &n);
			struct idx_frame f = { ti, d, s->start, s->func,
			    a != NULL ? (args_id)(a - t->args - 1) : 0 };
			tbl_add(w, &f, 1);
			outer = s->start;
		}
	}
	tbl_end(w);
}

void
index_header_init(struct idx_header *h)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, INDEX_MAGIC, sizeof h->magic);
	h->bom = INDEX_BOM;
	h->format_version = INDEX_FORMAT_VERSION;
	h->model_version = INDEX_MODEL_VERSION;
	long page = sysconf(_SC_PAGESIZE);
	h->page_size = page > 0 ? (uint32_t)page : 4096;
	h->nsizes = IDX_SIZE_COUNT;
	static const uint16_t sizes[IDX_SIZE_COUNT] = {
		[IDX_SIZE_SLICE] = sizeof(struct slice),
		[IDX_SIZE_LONG] = sizeof(struct long_dur),
		[IDX_SIZE_INSTANT] = sizeof(struct instant),
		[IDX_SIZE_SAMPLE] = sizeof(struct counter_sample),
		[IDX_SIZE_SLICE_ARGS] = sizeof(struct slice_args),
		[IDX_SIZE_MARKER] = sizeof(struct marker),
		[IDX_SIZE_FLOW] = sizeof(struct flow),
		[IDX_SIZE_LOG] = sizeof(struct log_entry),
		[IDX_SIZE_ARG] = sizeof(struct arg),
		[IDX_SIZE_FUNC] = sizeof(struct func),
		[IDX_SIZE_PROCESS] = sizeof(struct process),
		[IDX_SIZE_TRACK] = sizeof(struct idx_track),
		[IDX_SIZE_LEVEL] = sizeof(struct idx_level),
		[IDX_SIZE_EXTENT] = sizeof(struct idx_extent),
		[IDX_SIZE_BLOCK] = sizeof(struct idx_block),
		[IDX_SIZE_SOURCE] = sizeof(struct idx_source),
		[IDX_SIZE_FRAME] = sizeof(struct idx_frame),
		[IDX_SIZE_STAT] = sizeof(struct func_stats),
		[IDX_SIZE_SUM_LEVEL] = sizeof(struct sum_level),
		[IDX_SIZE_SUM_NODE] = sizeof(struct sum_node),
		[IDX_SIZE_SUM_ENTRY] = sizeof(struct sum_entry),
		[IDX_SIZE_SUM_TRACK] = sizeof(struct sum_track),
		[IDX_SIZE_FILE] = sizeof(struct idx_file),
		[IDX_SIZE_HEADER] = sizeof(struct idx_header),
		[IDX_SIZE_FUNC_ADDR] = sizeof(struct func_addr),
	};
	memcpy(h->sizes, sizes, sizeof sizes);
}

int
index_write(int fd, const struct trace *t, const struct index_ident *id,
    const struct index_store *store, char **err)
{
	struct writer w = { .fd = fd, .store = store };
	*err = NULL;
	if (store != NULL && index_store_error(store) != 0) {
		*err = xstrdup(strerror(index_store_error(store)));
		errno = index_store_error(store);
		return -1;
	}
	index_header_init(&w.h);
	w.buf = xmalloc(INDEX_HASH_PIECE);
	if (id != NULL) {
		w.h.program_id = id->program_id;
		w.h.options_hash = id->options_hash;
	}
	w.h.ticks_per_second = t->ticks_per_second;
	w.h.wall_origin = t->wall_origin;
	w.h.first = t->first;
	w.h.last = t->last;
	w.h.ndiags_dropped = t->ndiags_dropped;
	w.h.has_errors = t->has_errors;

	/* The passes below read every call in order. */
	trace_advise(t, TRACE_SCAN);
	/* Page 0 is the header's, written last; a store has the large
	 * depths after it. */
	w.off = store ? index_store_end(store) : w.h.page_size;
	/* One walk over every call: summaries, check records, rules. */
	struct summary_build sb;
	index_summary_build(t, &sb);
	if (sb.bad != NULL)
		bad(&w, xstrdup(sb.bad));
	write_levels(&w, t, &sb);
	write_tracks(&w, t);
	write_texts(&w, t, id);
	tbl_whole(&w, IDX_FUNCS, t->funcs, t->nfuncs, sizeof *t->funcs);
	tbl_whole(&w, IDX_FUNC_ADDRS, t->func_addrs, t->nfunc_addrs,
	    sizeof *t->func_addrs);
	tbl_whole(&w, IDX_PROCESSES, t->processes, t->nprocesses,
	    sizeof *t->processes);
	tbl_whole(&w, IDX_MARKERS, t->markers, t->nmarkers,
	    sizeof *t->markers);
	tbl_whole(&w, IDX_FLOWS, t->flows, t->nflows, sizeof *t->flows);
	tbl_whole(&w, IDX_LOGS, t->logs, t->nlogs, sizeof *t->logs);
	tbl_whole(&w, IDX_ARGS, t->args, t->nargs, sizeof *t->args);
	write_frames(&w, t);
	if (id != NULL && id->grow != NULL)
		tbl_whole(&w, IDX_GROW, id->grow, id->grow_len, 1);
	/* The whole trace's function table, as query_stats() gives it
	 * (exact percentiles): a reopen's --stats is this table. Only for a
	 * model the index can hold: the query trusts what it reads. */
	if (w.bad == NULL) {
		struct stats_table st;
		/* Its first pass was made on the walk above: the calls are
		 * read once more, not twice (under a memory limit each
		 * reading is from the disk). */
		if (sb.stats != NULL) {
			query_stats_whole(t, sb.stats, sb.parts.n > 1 ?
			    &sb.parts : NULL, &st);
			sb.stats = NULL;
		} else {
			query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
		}
		tbl_whole(&w, IDX_STATS, st.rows, st.n, sizeof *st.rows);
		w.h.stats_unfinished = st.unfinished;
		stats_free(&st);
		w.h.flags |= IDX_HAS_STATS;
		tbl_whole(&w, IDX_CALLED, sb.called, t->nfuncs, 1);
		tbl_whole(&w, IDX_SUM_LEVELS, sb.levels, sb.nlevels,
		    sizeof *sb.levels);
		tbl_whole(&w, IDX_SUM_NODES, sb.nodes, sb.nnodes,
		    sizeof *sb.nodes);
		tbl_whole(&w, IDX_SUM_ENTRIES, sb.entries, sb.nentries,
		    sizeof *sb.entries);
		tbl_whole(&w, IDX_SUM_TRACKS, sb.tracks, t->ntracks,
		    sizeof *sb.tracks);
	}
	index_summary_free(&sb);
	free(w.buf);

	w.h.file_size = w.off;
	if (w.errnum == 0 && ftruncate(fd, (off_t)w.off) != 0)
		w.errnum = errno;
	/* The header, then its mark: a reader that sees the mark sees a
	 * whole file (the rename that publishes it comes after). */
	const char *trace = id != NULL && id->trace != NULL ? id->trace : "";
	size_t tlen = strlen(trace);
	if (tlen > w.h.page_size - sizeof w.h - 1)
		tlen = 0;	/* too long to be told: never evicted as gone */
	w.h.trace_len = (uint32_t)tlen;
	w.h.header_hash = index_hash(trace, tlen, index_hash(&w.h,
	    offsetof(struct idx_header, header_hash), 0));
	w.h.complete = 0;
	wr(&w, &w.h, sizeof w.h, 0);
	wr(&w, trace, tlen, sizeof w.h);
	uint64_t mark = INDEX_COMPLETE;
	wr(&w, &mark, sizeof mark, offsetof(struct idx_header, complete));
	if (w.bad != NULL) {
		*err = xasprintf("the model breaks the index's rules: %s",
		    w.bad);
		free(w.bad);
		return -1;
	}
	if (w.errnum != 0) {
		*err = xstrdup(strerror(w.errnum));
		errno = w.errnum;
		return -1;
	}
	return 0;
}
