/*
 * An FXT file being written (--follow), read from where the last read
 * stopped (reader.h, grow_*): each read takes the whole records appended
 * since the last one through both passes (fxt_int.h), with what the
 * reader keeps from one read to the next (each pass's providers with
 * their string and thread tables, the threads, their stacks and sorted
 * copies, the async, flow and scheduling events; fxt_save.c writes it as
 * bytes, for a run that goes on later). What the end of a load
 * does (sorting, closing what is open, naming, counting) goes into a copy
 * of the builder, and what it changes in the reader's state is put back.
 *
 * A read gives the trace a whole read of the file as it is then would.
 * Where what comes later changes how the records before it are read, the
 * file is read again from its start (the feed returns SIZE_MAX): a thread
 * whose events went to the builder in time order until one came earlier
 * than those (a whole read sorts all of that thread's events), and times
 * that count from the first event (fxt_choose_tick_base) while the first
 * event was not there yet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"

static void
swap_tables(struct fxt *x, struct fxt_tables *t)
{
	struct fxt_tables was = { x->providers, x->cur };

	x->providers = t->providers;
	x->cur = t->cur;
	*t = was;
}

void *
fxt_grow_begin(struct load_ctx *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct fxt_grow));
}

/* The threads whose events went to the builder as they came. */
static bool *
threads_fed(const struct fxt *x)
{
	bool *fed = xcalloc(x->threads.len ? x->threads.len : 1, sizeof *fed);

	for (size_t i = 0; i < x->threads.len; i++)
		fed[i] = !x->threads.items[i].defer &&
		    x->threads.items[i].nev > 0;
	return fed;
}

size_t
fxt_grow_feed(void *state, struct load_ctx *ctx, size_t from)
{
	struct fxt_grow *G = state;
	struct fxt *x = &G->x;
	const struct mapped_file *f = ctx->file;
	size_t end, nth;
	bool broken, *fed;

	if (G->stale)
		return SIZE_MAX;
	if (G->broken)
		return f->size;
	if (!G->started) {
		fxt_open(x, ctx);
		G->started = true;
		G->base_known = fxt_choose_tick_base(x);
	} else {
		x->ctx = ctx;
		x->b = ctx->b;
		x->data = f->data;
		if (!G->base_known) {
			G->base_known = fxt_choose_tick_base(x);
			if (x->tick_base != 0)
				return SIZE_MAX;
		}
	}
	mapfile_sequential(f);
	nth = x->threads.len;
	fed = threads_fed(x);
	x->scan = true;
	swap_tables(x, &G->scan);
	end = fxt_scan_from(x, from, &broken);
	swap_tables(x, &G->scan);
	for (size_t i = 0; i < nth; i++)
		if (fed[i] && x->threads.items[i].defer) {
			free(fed);
			return SIZE_MAX;
		}
	free(fed);
	if (load_cancelled(ctx)) {
		G->stale = true;
		return end;
	}
	G->broken = broken;
	x->size = end;
	x->scan = false;
	/* a big read replays on a second thread, as a whole load does:
	 * ended before the feed returns, so the state kept is the serial
	 * pass's */
	fxt_pipe_start(x, end - from);
	fxt_events_from(x, from);
	fxt_pipe_finish(x);
	if (load_cancelled(ctx))
		G->stale = true;
	/* past damage, nothing is read: the bytes after it are no record */
	return G->broken ? f->size : end;
}

int
fxt_grow_end(void *state, struct load_ctx *ctx)
{
	struct fxt_grow *G = state;
	struct fxt *x = &G->x;
	struct builder *b = x->b;
	struct load_ctx *was = x->ctx;
	uint64_t kinds[K_COUNT], malformed;
	size_t i;

	if (!G->started) {
		builder_error(ctx->b, 0, "not an FXT trace: %zu bytes",
		    ctx->file != NULL ? ctx->file->size : 0);
		return -1;
	}
	if (x->size == 0)
		return -1;
	memcpy(kinds, x->kinds, sizeof kinds);
	malformed = x->malformed_reported;
	memcpy(G->fcache, x->fcache, sizeof G->fcache);
	G->depths.len = 0;
	for (i = 0; i < x->stacks.len; i++)
		VEC_PUSH(&G->depths, x->stacks.items[i].depth);
	/* the deferred threads' flows are added, and all are sorted */
	G->flows.len = 0;
	for (i = 0; i < x->flows.len; i++)
		VEC_PUSH(&G->flows, x->flows.items[i]);

	x->b = ctx->b;
	x->ctx = ctx;
	x->data = ctx->file->data;
	fxt_events_finish(x, true);
	fxt_sched_finish(x);
	fxt_name_things(x);
	fxt_report(x);

	x->b = b;
	x->ctx = was;
	memcpy(x->kinds, kinds, sizeof kinds);
	x->malformed_reported = malformed;
	memcpy(x->fcache, G->fcache, sizeof G->fcache);
	for (i = 0; i < x->stacks.len; i++)
		x->stacks.items[i].depth = G->depths.items[i];
	x->flows.len = 0;
	for (i = 0; i < G->flows.len; i++)
		VEC_PUSH(&x->flows, G->flows.items[i]);
	/* tracks and processes made in the copy only */
	fxt_map_free(&x->async_tracks);
	x->async_tr.len = 0;
	fxt_map_free(&x->cpu_tracks);
	x->kernel_process = FXT_NONE;
	return 0;
}

void
fxt_grow_free(void *state)
{
	struct fxt_grow *G = state;

	if (G == NULL)
		return;
	fxt_providers_free(&G->x);
	swap_tables(&G->x, &G->scan);
	fxt_providers_free(&G->x);
	fxt_state_free(&G->x);
	VEC_FREE(&G->depths);
	VEC_FREE(&G->flows);
	free(G);
}
