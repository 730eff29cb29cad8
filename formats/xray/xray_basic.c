/*
 * XRay basic-mode ("naive") logs, versions 1 to 3: after the header, one
 * 32-byte record per event with an absolute TSC, thread id and (version 3)
 * process id. Each thread appends its own chunks in time order, so records
 * go straight to their thread's stack in file order. An argument payload
 * follows its enter-with-args record.
 */
#include <inttypes.h>

#include "xray_priv.h"

enum { BT_ENTER, BT_EXIT, BT_TAIL, BT_ENTER_ARGS };

static void
arg_payload(struct xray *x, size_t off, const struct xray_thread *prev)
{
	const unsigned char *p = x->data + off;
	int32_t fid = (int32_t)xr32(x, p + 4);
	int64_t tid = xr32(x, p + 8);
	int64_t pid = x->version >= 3 ? xr32(x, p + 12) : 0;
	uint64_t v = xr64(x, p + 16);

	x->counts[XC_ARG_PAYLOAD]++;
	uint32_t ti = xray_map_get(&x->thread_index, (uint64_t)pid,
	    (uint64_t)tid);
	struct xray_thread *th = ti ? &x->threads[ti - 1] : NULL;
	if (th == NULL || th != prev || !th->arg_open || th->last_fid != fid) {
		xray_warn(x, off, "argument payload (function %" PRId32
		    ", thread %" PRId64 ") does not follow an entry of that "
		    "function and thread; ignored", fid, tid);
		return;
	}
	xray_arg(x, th, v, off);
}

/* The records from byte from to byte to (whole ones), into the builder;
 * *prev (a thread index + 1, 0: none) is the thread whose entry an
 * argument payload may follow, carried from one call to the next. */
void
xray_basic_records(struct xray *x, size_t from, size_t to, uint32_t *prev_i)
{
	struct xray_thread *prev = *prev_i ? &x->threads[*prev_i - 1] : NULL;
	uint64_t progress_at = from;

	if (from == 32 && to > 32 && xr16(x, x->data + 32) == 0)
		xray_time_base(x, xr64(x, x->data + 32 + 8));
	for (size_t off = from; off + 32 <= to && !x->stop; off += 32) {
		const unsigned char *p = x->data + off;
		uint16_t rt = xr16(x, p);

		if (off >= progress_at) {
			load_progress(x->ctx, off, x->size);
			if (off >= (64u << 20))
				mapfile_release(x->ctx->file, off & ~(size_t)4095);
			progress_at = off + (4u << 20);
			if (load_cancelled(x->ctx))
				break;
		}
		if (rt == 1) {
			/* payloads must follow their entry directly */
			arg_payload(x, off, prev);
			continue;
		}
		if (prev != NULL)
			prev->arg_open = false;
		prev = NULL;
		if (rt != 0) {
			x->counts[XC_UNKNOWN]++;
			xray_warn(x, off, "record of unknown type %u ignored", rt);
			continue;
		}
		int cpu = p[2];
		int type = p[3];
		int32_t fid = (int32_t)xr32(x, p + 4);
		uint64_t tsc = xr64(x, p + 8);
		int64_t tid = xr32(x, p + 16);
		int64_t pid = x->version >= 3 ? xr32(x, p + 20) : 0;

		if (type > BT_ENTER_ARGS) {
			x->counts[XC_UNKNOWN]++;
			xray_warn(x, off, "function record of unknown kind %d "
			    "(function id %" PRId32 ") ignored", type, fid);
			continue;
		}
		struct xray_thread *th = xray_thread(x, pid, tid);
		ttv_ns t = xray_thread_time(th, xray_ns(x, tsc));
		if (th->cpu >= 0 && cpu != th->cpu)
			builder_marker(x->b, MARKER_CPU_CHANGE, th->track, t, cpu,
			    0);
		th->cpu = cpu;
		func_id f = xray_func(x, fid);
		switch (type) {
		case BT_ENTER:
		case BT_ENTER_ARGS:
			x->counts[type == BT_ENTER ? XC_ENTER : XC_ENTER_ARGS]++;
			builder_push(x->b, th->track, t, f);
			th->arg_open = true;
			th->nargs = 0;
			th->last_fid = fid;
			prev = th;
			break;
		default:
			x->counts[type == BT_EXIT ? XC_EXIT : XC_TAIL_EXIT]++;
			xray_exit(x, th, t, f, type == BT_TAIL ?
			    SLICE_TAIL_EXIT : 0);
			th->arg_open = false;
			break;
		}
		th->last = t;
		th->have_last = true;
	}
	*prev_i = prev != NULL ? xray_thread_index(x, prev) + 1 : 0;
}

/* What the end of a read of the first `to` bytes says, into x->b (the
 * reader's state is only read: a problem past the cap of messages is
 * counted in *dropped). */
void
xray_basic_end(const struct xray *x, size_t to, uint64_t *dropped)
{
	size_t tail = (to - 32) % 32;

	*dropped = 0;
	if ((to - 32) / 32 == 0)
		builder_warn(x->b, 32, "no records in the log");
	if (tail != 0) {
		/* as xray_error: past the cap, one error is still said */
		bool room = x->nmsgs < XRAY_MAX_MSGS;
		if (!room)
			*dropped = 1;
		if (room || !builder_has_errors(x->b))
			builder_error(x->b, to - tail, "%zu bytes at the end "
			    "of the file are not a whole 32-byte record "
			    "(truncated log)", tail);
	}
	load_progress(x->ctx, x->size, x->size);
	for (uint32_t i = 0; i < x->nthreads; i++) {
		const struct xray_thread *th = &x->threads[i];
		if (th->orphans != 0)
			builder_marker(x->b, MARKER_DROPPED, th->track,
			    builder_track_first(x->b, th->track),
			    (int64_t)th->orphans, builder_intern_cstr(x->b,
			    "exits without entry: the start of this thread "
			    "is missing"));
	}
}

int
xray_load_basic(struct xray *x)
{
	uint32_t prev = 0;
	uint64_t dropped;

	xray_basic_records(x, 32, x->size, &prev);
	xray_basic_end(x, x->size, &dropped);
	x->nmsgs_dropped += dropped;
	if (dropped && x->ctx->opts != NULL && x->ctx->opts->strict)
		x->stop = true;
	return 0;
}
