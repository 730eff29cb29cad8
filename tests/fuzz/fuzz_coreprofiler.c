/*
 * libFuzzer target for the CoreProfiler TraceLog reader: each input is
 * loaded through load_trace() as the command line does, then the model's
 * call tree is built (the path the flame and collapsed export take). Build
 * with `make fuzz` (clang); seed it with
 * tests/data/coreprofiler/ and the logs in ../shared/traces/coreprofiler.
 */
#define _GNU_SOURCE
#include "fuzz_load.h"
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = fuzz_load("coreprofiler", data, size);
	if (t != NULL) {
		struct call_tree ct;
		query_call_tree(t, NULL, TTV_NS_MIN, TTV_NS_MAX, true, &ct);
		call_tree_free(&ct);
		trace_free(t);
	}
	return 0;
}
