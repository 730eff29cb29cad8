/*
 * libFuzzer target for the XRay reader: each input is loaded as an XRay
 * log through load_trace(), the same path the command line takes. Build
 * with `make fuzz` (clang). Seed it with tests/data/xray/ and the logs
 * in ../shared/traces/xray.
 */
#define _GNU_SOURCE
#include "fuzz_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = fuzz_load("xray", data, size);
	if (t != NULL)
		trace_free(t);
	return 0;
}
