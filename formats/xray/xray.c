/*
 * The LLVM XRay reader: FDR logs (versions 1-5) and basic-mode logs
 * (versions 1-3), either byte order. This file probes, reads the 32-byte
 * header, sets up the time conversion and the function names (through the
 * binary's instrumentation map when there is one) and hands the records to
 * xray_fdr.c or xray_basic.c. See ../shared/formats/xray-fdr.md.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "xalloc.h"
#include "xray_instrmap.h"
#include "xray_priv.h"

static const char *const count_names[XC_COUNT] = {
	[XC_ENTER] = "function-enter",
	[XC_EXIT] = "function-exit",
	[XC_TAIL_EXIT] = "function-tail-exit",
	[XC_ENTER_ARGS] = "function-enter-args",
	[XC_NEW_BUFFER] = "NewBuffer",
	[XC_END_OF_BUFFER] = "EndOfBuffer",
	[XC_NEW_CPU] = "NewCPUId",
	[XC_TSC_WRAP] = "TSCWrap",
	[XC_WALLTIME] = "WalltimeMarker",
	[XC_CUSTOM] = "CustomEvent",
	[XC_CALL_ARG] = "CallArgument",
	[XC_EXTENTS] = "BufferExtents",
	[XC_TYPED] = "TypedEvent",
	[XC_PID] = "Pid",
	[XC_ARG_PAYLOAD] = "arg-payload",
	[XC_UNKNOWN] = "unknown",
};

/* ------------------------------------------------------------------ maps */

static uint64_t
map_hash(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ULL ^ (k2 + 0x632be59bd9b4e019ULL);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

uint32_t
xray_map_get(const struct xray_map *m, uint64_t k1, uint64_t k2)
{
	if (m->nslots == 0)
		return 0;
	uint32_t mask = m->nslots - 1;
	for (uint32_t i = map_hash(k1, k2) & mask;; i = (i + 1) & mask) {
		if (m->v[i] == 0)
			return 0;
		if (m->k1[i] == k1 && m->k2[i] == k2)
			return m->v[i];
	}
}

void
xray_map_put(struct xray_map *m, uint64_t k1, uint64_t k2, uint32_t v)
{
	if ((m->n + 1) * 2 > m->nslots) {
		struct xray_map old = *m;
		m->nslots = old.nslots ? old.nslots * 2 : 64;
		m->k1 = xcalloc(m->nslots, sizeof *m->k1);
		m->k2 = xcalloc(m->nslots, sizeof *m->k2);
		m->v = xcalloc(m->nslots, sizeof *m->v);
		m->n = 0;
		for (uint32_t i = 0; i < old.nslots; i++)
			if (old.v[i] != 0)
				xray_map_put(m, old.k1[i], old.k2[i], old.v[i]);
		xray_map_free(&old);
	}
	uint32_t mask = m->nslots - 1;
	uint32_t i = map_hash(k1, k2) & mask;
	while (m->v[i] != 0 && !(m->k1[i] == k1 && m->k2[i] == k2))
		i = (i + 1) & mask;
	if (m->v[i] == 0)
		m->n++;
	m->k1[i] = k1;
	m->k2[i] = k2;
	m->v[i] = v;
}

void
xray_map_free(struct xray_map *m)
{
	free(m->k1);
	free(m->k2);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ diagnostics */

static bool
msg_room(struct xray *x)
{
	if (x->nmsgs >= XRAY_MAX_MSGS) {
		x->nmsgs_dropped++;
		return false;
	}
	x->nmsgs++;
	return true;
}

void
xray_warn(struct xray *x, uint64_t off, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	xray_lock(x);
	if (msg_room(x)) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof buf, fmt, ap);
		va_end(ap);
		builder_warn(x->b, off, "%s", buf);
	}
	xray_unlock(x);
}

void
xray_error(struct xray *x, uint64_t off, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (x->ctx->opts != NULL && x->ctx->opts->strict)
		__atomic_store_n(&x->stop, true, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	xray_lock(x);
	/* past the cap, errors must still count as errors: keep one */
	if (msg_room(x) || !builder_has_errors(x->b))
		builder_error(x->b, off, "%s", buf);
	xray_unlock(x);
}

/* ------------------------------------------------------- names, threads */

func_id
xray_func_slow(struct xray *x, int64_t id)
{
	uint32_t v;

	xray_lock(x);
	if ((uint64_t)id < XRAY_FCACHE_SIZE)
		v = x->fcache[id];	/* another worker may have made it */
	else
		v = xray_map_get(&x->bigids, (uint64_t)id, 0);
	if (v != 0) {
		xray_unlock(x);
		return v - 1;
	}

	const char *name = NULL;
	char buf[32];
	if (x->map != NULL && id >= INT32_MIN && id <= INT32_MAX)
		name = xray_instrmap_name(x->map, (int32_t)id);
	if (name == NULL) {
		snprintf(buf, sizeof buf, "#%" PRId64, id);
		name = buf;
	}
	func_id f = builder_func(x->b, builder_intern_cstr(x->b, name), 0, id);
	/* where its code is, for its source line */
	uint64_t addr = x->map != NULL && id >= 1 && id <= INT32_MAX ?
	    xray_instrmap_addr(x->map, (int32_t)id) : 0;
	if (addr != 0)
		builder_func_addr(x->b, f, x->map_path, addr);
	if ((uint64_t)id < XRAY_FCACHE_SIZE)
		__atomic_store_n(&x->fcache[id], f + 1, __ATOMIC_RELEASE);
	else
		xray_map_put(&x->bigids, (uint64_t)id, 0, f + 1);
	xray_unlock(x);
	return f;
}

struct xray_thread *
xray_thread(struct xray *x, int64_t pid, int64_t tid)
{
	uint32_t v = xray_map_get(&x->thread_index, (uint64_t)pid,
	    (uint64_t)tid);
	if (v != 0)
		return &x->threads[v - 1];
	if (x->nthreads == x->capthreads) {
		x->capthreads = x->capthreads ? x->capthreads * 2 : 8;
		x->threads = xreallocarray(x->threads, x->capthreads,
		    sizeof *x->threads);
	}
	struct xray_thread *th = &x->threads[x->nthreads++];
	memset(th, 0, sizeof *th);
	th->pid = pid;
	th->tid = tid;
	th->cpu = -1;
	th->last_type = -1;
	th->last = TTV_NS_MIN;
	uint32_t proc = builder_process(x->b, pid);
	th->track = builder_track(x->b, TRACK_THREAD, proc, tid);
	xray_map_put(&x->thread_index, (uint64_t)pid, (uint64_t)tid,
	    x->nthreads);
	return th;
}

uint32_t
xray_thread_index(const struct xray *x, const struct xray_thread *t)
{
	return (uint32_t)(t - x->threads);
}

str_id
xray_argname(struct xray *x, uint32_t i)
{
	char buf[24];

	if (i < 8 && x->argnames[i] != 0)
		return x->argnames[i];
	snprintf(buf, sizeof buf, "arg%" PRIu32, i);
	str_id s = builder_intern_cstr(x->b, buf);
	if (i < 8)
		x->argnames[i] = s;
	return s;
}

/* An argument of the innermost open slice (which the caller checked is
 * the entry just read). Merging a run costs its length, so a damaged log
 * with endless arguments is cut off at XRAY_MAX_ARGS. */
void
xray_arg(struct xray *x, struct xray_thread *th, uint64_t v, uint64_t off)
{
	if (th->nargs >= XRAY_MAX_ARGS) {
		if (th->nargs++ == XRAY_MAX_ARGS)
			xray_warn(x, off, "more than %u arguments for one call; "
			    "the rest are ignored", XRAY_MAX_ARGS);
		return;
	}
	xray_lock(x);
	builder_args_begin(x->b);
	builder_arg_u64(x->b, xray_argname(x, th->nargs), v);
	args_id a = builder_args_end(x->b);
	xray_unlock(x);
	builder_push_args(x->b, th->track, a);
	th->nargs++;
}

/*
 * An exit (or tail exit) at time t. The innermost matching open slice is
 * closed (frames opened after it are closed too: their exits were lost).
 * An exit whose entry was never seen still counts: with nothing open it
 * becomes the parent of what the track already has (the entry predates
 * the log, e.g. a ring wrap); with other frames open it becomes a short
 * slice from the thread's previous timestamp, so counts stay right.
 */
void
xray_exit_unmatched(struct xray *x, struct xray_thread *th, ttv_ns t,
    func_id f, uint32_t flags)
{
	uint32_t depth = builder_stack_depth(x->b, th->track);
	/* builder_pop_func() just looked through every open frame */
	th->search_cost += depth;
	if (th->search_cost > XRAY_SEARCH_BUDGET && !th->no_search) {
		th->no_search = true;
		xray_lock(x);
		builder_note(x->b, DIAG_WARNING, "thread %" PRId64 ": too "
		    "many exits match no open call; from here on an exit "
		    "only closes the innermost call of its function",
		    th->tid);
		xray_unlock(x);
	}
	if (depth == 0 && th->orphans < XRAY_MAX_ORPHAN_PARENTS) {
		xray_lock(x);
		builder_pop_orphan(x->b, th->track, t, f,
		    flags | SLICE_NO_ENTRY);
		xray_unlock(x);
		th->orphans++;
	} else if (depth == 0) {
		/* Each orphan parent pushes the whole track one level down:
		 * past a few, the log is damaged, not wrapped, and that would
		 * be quadratic. Keep the exit as a short slice instead. */
		if (th->orphans++ == XRAY_MAX_ORPHAN_PARENTS) {
			xray_lock(x);
			builder_note(x->b, DIAG_WARNING, "thread %" PRId64 ": "
			    "more than %u exits without entry; later ones are "
			    "kept as short slices", th->tid,
			    XRAY_MAX_ORPHAN_PARENTS);
			xray_unlock(x);
		}
		ttv_ns start = th->have_last ? th->last : t;
		builder_slice(x->b, th->track, 0, start, t - start, f,
		    flags | SLICE_NO_ENTRY, 0);
	} else {
		ttv_ns start = th->have_last ? th->last : t;
		builder_slice(x->b, th->track, depth, start, t - start, f,
		    flags | SLICE_NO_ENTRY, 0);
	}
}

void
xray_exit_nosearch(struct xray *x, struct xray_thread *th, ttv_ns t,
    func_id f, uint32_t flags)
{
	uint32_t depth = builder_stack_depth(x->b, th->track);
	if (depth > 0 && builder_stack_func(x->b, th->track, depth - 1) == f)
		builder_pop_func(x->b, th->track, t, f, flags);
	else
		xray_exit_unmatched(x, th, t, f, flags);
}

/* ---------------------------------------------------------------- header */

static bool
header_ok(uint16_t version, uint16_t type)
{
	return (type == 1 && version >= 1 && version <= 5) ||
	    (type == 0 && version >= 1 && version <= 3);
}

/* Decides the byte order from version/type (there is no byte-order mark).
 * Returns false when neither order gives a known header. */
static bool
header_order(const unsigned char *p, bool *be)
{
	uint16_t v = (uint16_t)(p[0] | p[1] << 8);
	uint16_t t = (uint16_t)(p[2] | p[3] << 8);
	if (header_ok(v, t)) {
		*be = false;
		return true;
	}
	v = (uint16_t)(p[0] << 8 | p[1]);
	t = (uint16_t)(p[2] << 8 | p[3]);
	if (header_ok(v, t)) {
		*be = true;
		return true;
	}
	return false;
}

static int
xray_probe(const char *path, const unsigned char *head, size_t len,
    bool is_dir)
{
	bool be;

	if (is_dir || head == NULL || len < 4 || !header_order(head, &be))
		return 0;
	int score = 60;
	if (len >= 32) {
		uint32_t flags = be ? (uint32_t)head[4] << 24 | head[5] << 16 |
		    head[6] << 8 | head[7] : (uint32_t)head[7] << 24 |
		    head[6] << 16 | head[5] << 8 | head[4];
		uint16_t type = be ? head[3] : head[2];
		/* FDR writes exactly 0..3 in the flag word; basic leaves
		 * garbage above bit 1, so it says nothing there. */
		score = type == 1 && (flags & ~3u) == 0 ? 100 : 85;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "xray-log.", 9) == 0 && score < 100)
		score += 10;
	return score;
}

/* The tick -> ns conversion of x->freq; said into the builder unless
 * quiet (a state made again: said by the first read). */
static void
setup_time(struct xray *x, bool quiet)
{
	uint64_t f = x->freq;

	if (f == 0) {
		if (!quiet) {
			builder_note(x->b, DIAG_WARNING, "cycle_frequency is 0 "
			    "(unknown): times are raw ticks, shown as ns");
			builder_set_tick_rate(x->b, 0);
		}
		x->mul = 1;
		x->shift = 0;
		return;
	}
	/* The largest shift (at most 64) that keeps the multiplier in 64
	 * bits: exact whenever freq divides 1e9 * 2^shift (1, 2, 4 GHz,
	 * 500 MHz...), otherwise off by far less than 1 ns per second. */
	unsigned s = 64;
	while (s > 0 && (((unsigned __int128)1000000000u << s) / f) >>
	    64 != 0)
		s--;
	x->shift = s;
	x->mul = (uint64_t)(((unsigned __int128)1000000000u << s) / f);
	if (!quiet)
		builder_set_tick_rate(x->b, (double)f);
}

void
xray_time_base(struct xray *x, uint64_t first)
{
	unsigned __int128 r = ((unsigned __int128)first * x->mul) >> x->shift;

	/* Absolute times while they leave room for centuries more; beyond,
	 * times count from the first timestamp, as llvm-xray's own do. */
	if (r < (unsigned __int128)INT64_MAX / 4)
		return;
	x->tsc_base = first;
	builder_note(x->b, DIAG_WARNING, "timestamps (%" PRIu64 " ticks at "
	    "%" PRIu64 " Hz) are past 2^62 ns: times count from the first "
	    "one", first, x->freq);
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, first);
	builder_meta(x->b, "tsc_base", buf);
}

static void
load_map(struct xray *x, bool quiet)
{
	const char *given = x->ctx->opts ? x->ctx->opts->instr_map : NULL;
	char *found = NULL;
	const char *path = given;
	char *err = NULL;

	if (path == NULL)
		path = found = xray_instrmap_discover(x->ctx->path);
	if (path == NULL)
		return;
	x->map = xray_instrmap_load(path, &err);
	if (x->map == NULL) {
		if (!quiet)
			builder_note(x->b, DIAG_WARNING, "instrumentation map "
			    "%s: %s; functions are shown by id", path,
			    err ? err : "unreadable");
	} else {
		x->map_path = xstrdup(path);
		size_t n = xray_instrmap_nwarnings(x->map);
		if (!quiet)
			builder_meta(x->b, "instr_map", path);
		for (size_t i = 0; i < n && !quiet; i++)
			builder_note(x->b, DIAG_WARNING, "instrumentation map "
			    "%s: %s", path, xray_instrmap_warning(x->map, i));
	}
	free(err);
	free(found);
}

int
xray_open(struct xray *x, struct load_ctx *ctx, bool quiet)
{
	char buf[64];

	memset(x, 0, sizeof *x);
	x->ctx = ctx;
	x->b = ctx->b;
	if (ctx->file == NULL) {
		builder_note(ctx->b, DIAG_ERROR, "not an XRay log (a directory)");
		return -1;
	}
	x->data = ctx->file->data;
	x->size = ctx->file->size;
	if (x->size < 32 || x->data == NULL) {
		builder_error(ctx->b, 0, "file of %zu bytes is shorter than the "
		    "32-byte XRay header", x->size);
		return -1;
	}
	if (!header_order(x->data, &x->be)) {
		builder_error(ctx->b, 0, "not an XRay log: version %u, type %u",
		    (unsigned)(x->data[0] | x->data[1] << 8),
		    (unsigned)(x->data[2] | x->data[3] << 8));
		return -1;
	}
	x->version = xr16(x, x->data);
	x->type = xr16(x, x->data + 2);
	x->flags = xr32(x, x->data + 4) & 3;	/* other bits are garbage */
	x->freq = xr64(x, x->data + 8);
	x->buffer_size = xr64(x, x->data + 16);
	x->fcache = xcalloc(XRAY_FCACHE_SIZE, sizeof *x->fcache);
	if (quiet) {
		setup_time(x, true);
		load_map(x, true);
		return 0;
	}
	snprintf(buf, sizeof buf, "%u", x->version);
	builder_set_format(x->b, x->type == 1 ? "xray-fdr" : "xray-basic", buf,
	    x->be ? "big-endian" : "little-endian");
	snprintf(buf, sizeof buf, "%" PRIu64, x->freq);
	builder_meta(x->b, "cycle_frequency", buf);
	builder_meta(x->b, "constant_tsc", x->flags & 1 ? "yes" : "no");
	builder_meta(x->b, "nonstop_tsc", x->flags & 2 ? "yes" : "no");
	if (x->type == 1) {
		snprintf(buf, sizeof buf, "%" PRIu64, x->buffer_size);
		builder_meta(x->b, "buffer_size", buf);
	}
	setup_time(x, false);
	load_map(x, false);
	return 0;
}

void
xray_report(const struct xray *x, uint64_t dropped)
{
	uint64_t clamped = 0, counts[XC_COUNT];

	memcpy(counts, x->counts, sizeof counts);
	for (uint32_t i = 0; i < x->nthreads; i++) {
		const struct xray_thread *th = &x->threads[i];
		clamped += th->clamped;
		for (int k = 0; k < XC_COUNT; k++)
			counts[k] += th->counts[k];
	}
	if (clamped != 0)
		builder_note(x->b, DIAG_WARNING, "%" PRIu64 " timestamps went "
		    "backwards within their thread and were moved up to the "
		    "previous one", clamped);
	if (x->clamped != 0)
		builder_note(x->b, DIAG_WARNING, "%" PRIu64 " timestamps beyond "
		    "2^63 ns from the first were clamped", x->clamped);
	for (int i = 0; i < XC_COUNT; i++)
		if (counts[i] != 0)
			builder_count(x->b, count_names[i], counts[i]);
	if (x->nmsgs_dropped + dropped != 0)
		builder_note(x->b, DIAG_WARNING, "%" PRIu64 " more problems in "
		    "the log were not listed", x->nmsgs_dropped + dropped);
	/* Emulated TSC: ticks are CLOCK_REALTIME ns, so time 0 is the epoch. */
	if (x->freq == 1000000000ULL && x->nthreads > 0 &&
	    builder_track_first(x->b, x->threads[0].track) > 1000000000000000000LL)
		builder_set_wall_origin(x->b, 0);
}

void
xray_free(struct xray *x)
{
	for (uint32_t i = 0; i < x->nthreads; i++)
		free(x->threads[i].bufs);
	free(x->threads);
	xray_map_free(&x->thread_index);
	xray_map_free(&x->bigids);
	free(x->fcache);
	if (x->map != NULL)
		xray_instrmap_free(x->map);
	free(x->map_path);
	memset(x, 0, sizeof *x);
}

static int
xray_load(struct load_ctx *ctx)
{
	struct xray x;
	int rc = xray_open(&x, ctx, false);

	if (rc == 0) {
		mapfile_sequential(ctx->file);
		rc = x.type == 1 ? xray_load_fdr(&x) : xray_load_basic(&x);
		xray_report(&x, 0);
	}
	xray_free(&x);
	return rc;
}

bool
xray_grows(const unsigned char *head, size_t len)
{
	struct xray x = { 0 };

	return len >= 32 && header_order(head, &x.be) &&
	    xr16(&x, head + 2) == 0;
}

const struct reader xray_reader = {
	.name = "xray",
	.description = "LLVM XRay logs (FDR v1-5, basic v1-3, either byte order)",
	.probe = xray_probe,
	.load = xray_load,
	.complete = xray_complete,
	.grows = xray_grows,
	.grow_begin = xray_grow_begin,
	.grow_feed = xray_grow_feed,
	.grow_end = xray_grow_end,
	.grow_free = xray_grow_free,
	.grow_save = xray_grow_save,
	.grow_load = xray_grow_load,
};
