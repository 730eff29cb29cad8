/*
 * libFuzzer target for the XRay instrumentation-map reader: the input is
 * taken as an ELF binary. It goes through an in-memory file (memfd), since
 * the reader opens a path with libelf.
 *
 *	make fuzz && tests/fuzz/fuzz_instrmap -max_total_time=60 \
 *	    tests/data/instrmap
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "xray_instrmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct xray_instrmap *m;
	char *err = NULL;
	size_t i, n;

	if (fd < 0) {
		fd = memfd_create("fuzz_instrmap", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	m = xray_instrmap_load(path, &err);
	if (m == NULL) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	n = xray_instrmap_nfuncs(m);
	for (i = 1; i <= n; i++)
		if (xray_instrmap_name(m, (int32_t)i) == NULL)
			abort();
	for (i = 0; i < xray_instrmap_nwarnings(m); i++)
		(void)xray_instrmap_warning(m, i);
	xray_instrmap_free(m);
	return 0;
}
