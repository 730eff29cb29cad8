/*
 * An XRay basic-mode log read as it grows (reader.h, grow_*): the
 * runtime appends each thread's buffer of 32-byte records to the log as
 * it fills, so a log is read on from its last whole record, the records
 * going to their threads' stacks in file order as a whole read takes
 * them. What the end of a load says (counts, threads whose start is
 * missing) goes into a copy of the builder. An FDR log is written whole
 * at flush: it is not read so (xray_grows).
 *
 * The state between two reads is also kept as bytes (grow_save and
 * grow_load, for an index: doc/index-format.md): the bytes read, the
 * thread an argument payload may follow, the time base, the functions
 * and argument names made, and the threads with what they carry from one
 * record to the next. The header and the instrumentation map are read
 * again, and the map must be the same file.
 */
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "xalloc.h"
#include "xray_priv.h"

#define SAVE_TAG 0x58475231u	/* "XGR1" */
/* Times a state may hold: what the reader makes stays within these. */
#define TIME_BOUND ((ttv_ns)1 << 62)

struct xray_grow {
	struct xray x;
	bool started;
	size_t to;		/* bytes read: the header and whole records */
	uint32_t prev;		/* xray_basic_records' */
};

size_t
xray_complete(const unsigned char *data, size_t len)
{
	if (len < 32)
		return 0;
	/* an FDR log is read whole, as it is */
	if (!xray_grows(data, len))
		return len;
	return 32 + (len - 32) / 32 * 32;
}

void *
xray_grow_begin(struct load_ctx *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct xray_grow));
}

size_t
xray_grow_feed(void *state, struct load_ctx *ctx, size_t from)
{
	struct xray_grow *G = state;
	struct xray *x = &G->x;
	const struct mapped_file *f = ctx->file;

	if (f == NULL || f->size < 32)
		return SIZE_MAX;
	if (!G->started) {
		if (xray_open(x, ctx, false) != 0 || x->type == 1)
			return SIZE_MAX;
		G->started = true;
		G->to = 32;
	}
	x->ctx = ctx;
	x->b = ctx->b;
	x->data = f->data;
	x->size = f->size;
	if (from < G->to)
		from = G->to;
	size_t to = 32 + (f->size - 32) / 32 * 32;
	xray_basic_records(x, from, to, &G->prev);
	G->to = to;
	return to;
}

int
xray_grow_end(void *state, struct load_ctx *ctx)
{
	struct xray_grow *G = state;
	struct xray *x = &G->x;
	struct builder *b = x->b;
	struct load_ctx *was = x->ctx;
	uint64_t dropped;

	if (!G->started)
		return -1;
	x->b = ctx->b;
	x->ctx = ctx;
	xray_basic_end(x, G->to, &dropped);
	xray_report(x, dropped);
	x->b = b;
	x->ctx = was;
	return 0;
}

void
xray_grow_free(void *state)
{
	struct xray_grow *G = state;

	if (G == NULL)
		return;
	xray_free(&G->x);
	free(G);
}

/* ------------------------------------------------------------ as bytes */

static void
put_thread(struct blob *w, const struct xray_thread *th)
{
	blob_i64(w, th->pid);
	blob_i64(w, th->tid);
	blob_u32(w, th->track);
	blob_i64(w, th->cpu);
	blob_u8(w, th->have_last);
	blob_u8(w, th->arg_open);
	blob_u32(w, th->nargs);
	blob_i64(w, th->last);
	blob_u64(w, th->orphans);
	blob_u64(w, th->clamped);
	blob_u64(w, th->search_cost);
	blob_u8(w, th->no_search);
	for (int k = 0; k < XC_COUNT; k++)
		blob_u64(w, th->counts[k]);
	blob_i64(w, th->last_fid);
	blob_i64(w, th->last_type);
}

bool
xray_grow_save(void *state, struct blob *w)
{
	const struct xray_grow *G = state;
	const struct xray *x = &G->x;

	if (!G->started || x->stop)
		return false;
	blob_u32(w, SAVE_TAG);
	blob_u64(w, G->to);
	blob_u32(w, G->prev);
	blob_u64(w, x->tsc_base);
	blob_u64(w, x->clamped);
	blob_str(w, x->map_path);
	uint64_t n = 0;
	for (uint32_t i = 0; i < XRAY_FCACHE_SIZE; i++)
		n += x->fcache[i] != 0;
	blob_u64(w, n);
	for (uint32_t i = 0; i < XRAY_FCACHE_SIZE; i++)
		if (x->fcache[i] != 0) {
			blob_u32(w, i);
			blob_u32(w, x->fcache[i]);
		}
	blob_u64(w, x->bigids.n);
	for (uint32_t i = 0; i < x->bigids.nslots; i++)
		if (x->bigids.v[i] != 0) {
			blob_u64(w, x->bigids.k1[i]);
			blob_u32(w, x->bigids.v[i]);
		}
	for (int i = 0; i < 8; i++)
		blob_u32(w, x->argnames[i]);
	blob_u64(w, x->nthreads);
	for (uint32_t i = 0; i < x->nthreads; i++)
		put_thread(w, &x->threads[i]);
	for (int k = 0; k < XC_COUNT; k++)
		blob_u64(w, x->counts[k]);
	blob_u32(w, x->nmsgs);
	blob_u64(w, x->nmsgs_dropped);
	return true;
}

/* A thread as put_thread wrote it, checked against the builder. */
static bool
get_thread(struct blob_in *in, struct xray *x)
{
	int64_t pid = blob_get_i64(in), tid = blob_get_i64(in);
	if (in->bad || xray_map_get(&x->thread_index, (uint64_t)pid,
	    (uint64_t)tid) != 0)
		return false;
	uint32_t ntracks = builder_ntracks(x->b);
	if (x->nthreads == x->capthreads) {
		x->capthreads = x->capthreads ? x->capthreads * 2 : 8;
		x->threads = xreallocarray(x->threads, x->capthreads,
		    sizeof *x->threads);
	}
	struct xray_thread *th = &x->threads[x->nthreads];
	memset(th, 0, sizeof *th);
	th->pid = pid;
	th->tid = tid;
	th->track = blob_get_u32(in);
	int64_t cpu = blob_get_i64(in);
	th->have_last = blob_get_bool(in);
	th->arg_open = blob_get_bool(in);
	th->nargs = blob_get_u32(in);
	th->last = blob_get_i64(in);
	th->orphans = blob_get_u64(in);
	th->clamped = blob_get_u64(in);
	th->search_cost = blob_get_u64(in);
	th->no_search = blob_get_bool(in);
	for (int k = 0; k < XC_COUNT; k++)
		th->counts[k] = blob_get_u64(in);
	int64_t fid = blob_get_i64(in), type = blob_get_i64(in);
	if (in->bad || th->track >= ntracks || cpu < -1 || cpu > 255 ||
	    th->nargs > XRAY_MAX_ARGS + 1 || fid < INT32_MIN ||
	    fid > INT32_MAX || type < -1 || type > 3)
		return false;
	/* the times the next records are compared with, and subtracted
	 * from */
	if (th->have_last ? th->last < -TIME_BOUND || th->last > TIME_BOUND :
	    th->last != TTV_NS_MIN)
		return false;
	th->cpu = (int32_t)cpu;
	th->last_fid = (int32_t)fid;
	th->last_type = (int)type;
	x->nthreads++;
	xray_map_put(&x->thread_index, (uint64_t)pid, (uint64_t)tid,
	    x->nthreads);
	return true;
}

static bool
load_state(struct xray_grow *G, struct blob_in *in, size_t size)
{
	struct xray *x = &G->x;
	uint32_t nfuncs = builder_nfuncs(x->b);
	uint32_t nstrings = builder_nstrings(x->b);

	G->to = (size_t)blob_get_u64(in);
	G->prev = blob_get_u32(in);
	x->tsc_base = blob_get_u64(in);
	x->clamped = blob_get_u64(in);
	char *map = blob_get_str(in);
	bool same = (map == NULL) == (x->map_path == NULL) &&
	    (map == NULL || strcmp(map, x->map_path) == 0);
	free(map);
	if (in->bad || !same || G->to < 32 || G->to > size ||
	    (G->to - 32) % 32 != 0)
		return false;
	size_t n = blob_get_count(in, 8);
	for (size_t i = 0; i < n && !in->bad; i++) {
		uint32_t id = blob_get_u32(in), v = blob_get_u32(in);
		if (id >= XRAY_FCACHE_SIZE || v == 0 || v > nfuncs)
			return false;
		x->fcache[id] = v;
	}
	n = blob_get_count(in, 12);
	for (size_t i = 0; i < n && !in->bad; i++) {
		uint64_t id = blob_get_u64(in);
		uint32_t v = blob_get_u32(in);
		if (id < XRAY_FCACHE_SIZE || v == 0 || v > nfuncs ||
		    xray_map_get(&x->bigids, id, 0) != 0)
			return false;
		xray_map_put(&x->bigids, id, 0, v);
	}
	for (int i = 0; i < 8; i++) {
		x->argnames[i] = blob_get_u32(in);
		if (x->argnames[i] >= nstrings)
			return false;
	}
	n = blob_get_count(in, 8);
	for (size_t i = 0; i < n && !in->bad; i++)
		if (!get_thread(in, x))
			return false;
	if (in->bad || G->prev > x->nthreads)
		return false;
	for (int k = 0; k < XC_COUNT; k++)
		x->counts[k] = blob_get_u64(in);
	x->nmsgs = blob_get_u32(in);
	x->nmsgs_dropped = blob_get_u64(in);
	return !in->bad && x->nmsgs <= XRAY_MAX_MSGS;
}

void *
xray_grow_load(struct load_ctx *ctx, struct blob_in *in)
{
	if (blob_get_u32(in) != SAVE_TAG || in->bad || ctx->file == NULL)
		return NULL;
	struct xray_grow *G = xcalloc(1, sizeof *G);
	if (xray_open(&G->x, ctx, true) != 0 || G->x.type == 1 ||
	    !load_state(G, in, ctx->file->size)) {
		xray_grow_free(G);
		return NULL;
	}
	G->started = true;
	return G;
}
