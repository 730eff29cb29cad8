/*
 * libFuzzer target for the FXT reader: the input bytes are the trace,
 * fed from memory (inputs stay far below the 64 MB step at which the reader
 * releases pages of its mapping). Then the model is walked a little, so
 * references the reader made (flows, args) are checked by the sanitizers.
 * The same bytes are then read as a file being written (--follow: the
 * reader's grow_* hooks), its first half and then the rest, the reader
 * going on from where it stopped, a trace made from a copy of the builder
 * after each.
 *
 *   make fuzz && tests/fuzz/fuzz_fxt -max_total_time=60 tests/data/fxt
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "reader.h"

extern const struct reader fxt_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk(struct trace *t)
{
	size_t i, n;
	volatile int64_t sink = 0;

	for (i = 0; i < t->nflows; i++)
		sink += trace_slice(t, t->flows[i].from)->start +
		    trace_slice(t, t->flows[i].to)->start;
	for (uint32_t k = 0; k < t->ntracks; k++)
		for (i = 0; i < t->tracks[k].nslice_args; i++) {
			const struct slice_args *sa = &t->tracks[k].slice_args[i];
			const struct arg *a = trace_args(t, sa->args, &n);
			if (n > 0)
				sink += a[n - 1].name;
			sink += level_dur(&t->tracks[k].depth[sa->depth],
			    sa->index);
		}
	(void)sink;
	trace_free(t);
}

/* As formats/load_grow.c reads a growing file, at two sizes. */
static void
grow(const unsigned char *copy, size_t size)
{
	struct mapped_file m = { copy, 0, (char *)"fuzz" };
	struct load_options opts = { .follow = true };
	struct builder *b = builder_new("fuzz");
	struct load_ctx ctx = { "fuzz", &m, b, &opts };
	size_t covered = 0, upto[2] = { size / 2, size };
	void *st;

	builder_open_to_now(b);
	st = fxt_reader.grow_begin(&ctx);
	for (int i = 0; i < 2; i++) {
		m.size = fxt_reader.complete_from(copy, upto[i], covered);
		if (m.size > covered) {
			size_t to = fxt_reader.grow_feed(st, &ctx, covered);
			if (to == SIZE_MAX) {
				/* read again from the start */
				fxt_reader.grow_free(st);
				builder_free(b);
				b = ctx.b = builder_new("fuzz");
				builder_open_to_now(b);
				st = fxt_reader.grow_begin(&ctx);
				to = fxt_reader.grow_feed(st, &ctx, 0);
				if (to == SIZE_MAX)
					abort();
			}
			covered = to;
		}
		ctx.b = builder_copy(b);
		fxt_reader.grow_end(st, &ctx);
		walk(builder_finish(ctx.b));
		ctx.b = b;
	}
	fxt_reader.grow_free(st);
	builder_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = size ? malloc(size) : NULL;
	struct mapped_file m = { copy, size, (char *)"fuzz" };
	struct load_options opts = { 0 };
	struct builder *b = builder_new("fuzz");
	struct load_ctx ctx = { "fuzz", &m, b, &opts };

	if (size)
		memcpy(copy, data, size);
	fxt_reader.load(&ctx);
	walk(builder_finish(b));
	grow(copy, size);
	free(copy);
	return 0;
}
