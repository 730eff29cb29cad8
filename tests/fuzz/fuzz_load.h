/*
 * For libFuzzer targets: loads the input bytes as a trace of one format
 * through load_trace(), the path the command line takes, from a file in
 * memory (memfd) that is reused for every input.
 */
#ifndef TTV_FUZZ_LOAD_H
#define TTV_FUZZ_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"

/* Returns the trace (caller frees) or NULL when it could not be read. */
static inline struct trace *
fuzz_load(const char *format, const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct load_options opts = { 0 };
	char *err = NULL;

	if (fd < 0) {
		fd = memfd_create("fuzz", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct trace *t = load_trace(path, format, &opts, &err);
	free(err);
	return t;
}

#endif
