/*
 * libFuzzer target for the XRay reader: each input is written to a file
 * in memory (memfd) and loaded as an XRay log through load_trace(), the
 * same path the command line takes. Build with `make fuzz-xray` (clang).
 * Seed it with tests/data/xray/ and the logs in ../shared/traces/xray.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct load_options opts = { 0 };
	char *err = NULL;

	if (fd < 0) {
		fd = memfd_create("fuzz-xray", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct trace *t = load_trace(path, "xray", &opts, &err);
	if (t != NULL)
		trace_free(t);
	free(err);
	return 0;
}
