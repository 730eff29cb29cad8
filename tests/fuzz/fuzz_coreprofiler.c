/*
 * libFuzzer target for the CoreProfiler TraceLog reader: each input is
 * written to a file in memory (memfd) and loaded through load_trace() as
 * the command line does, then the model's call tree is built (the path
 * the flame and collapsed export take). Build with `make fuzz-coreprofiler`
 * (clang); seed it with tests/data/coreprofiler/ and the logs in
 * ../shared/traces/coreprofiler.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct load_options opts = { 0 };
	char *err = NULL;

	if (fd < 0) {
		fd = memfd_create("fuzz-coreprofiler", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct trace *t = load_trace(path, "coreprofiler", &opts, &err);
	if (t != NULL) {
		struct call_tree ct;
		query_call_tree(t, NULL, TTV_NS_MIN, TTV_NS_MAX, true, &ct);
		call_tree_free(&ct);
		trace_free(t);
	}
	free(err);
	return 0;
}
