/*
 * libFuzzer target for the FXT reader: the input bytes are the trace,
 * fed from memory (inputs stay far below the 64 MB step at which the reader
 * releases pages of its mapping). Then the model is walked a little, so
 * references the reader made (flows, args) are checked by the sanitizers.
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = size ? malloc(size) : NULL;
	struct mapped_file m = { copy, size, (char *)"fuzz" };
	struct load_options opts = { 0 };
	struct builder *b = builder_new("fuzz");
	struct load_ctx ctx = { "fuzz", &m, b, &opts };
	struct trace *t;
	size_t i, n;
	volatile int64_t sink = 0;

	if (size)
		memcpy(copy, data, size);
	fxt_reader.load(&ctx);
	t = builder_finish(b);
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
	free(copy);
	return 0;
}
