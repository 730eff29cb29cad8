/*
 * instrmap_dump: prints the function ids of an XRay instrumentation map as
 * "ID<TAB>NAME" lines (warnings on stderr), the form the tests compare with
 * `llvm-xray extract --symbolize`. Exit 1 when the map cannot be read.
 *
 *	instrmap_dump [-a] BINARY	(-a: "ID<TAB>ADDR<TAB>NAME")
 *	instrmap_dump -d LOG		(print what discovery finds for LOG)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xray_instrmap.h"

int
main(int argc, char **argv)
{
	struct xray_instrmap *m;
	int with_addr = 0;
	size_t i, n;
	char *err, *found;

	if (argc == 3 && strcmp(argv[1], "-d") == 0) {
		found = xray_instrmap_discover(argv[2]);
		if (found == NULL)
			return 1;
		printf("%s\n", found);
		free(found);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "-a") == 0) {
		with_addr = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: instrmap_dump [-a] BINARY | -d LOG\n");
		return 2;
	}
	m = xray_instrmap_load(argv[1], &err);
	if (m == NULL) {
		fprintf(stderr, "instrmap_dump: %s: %s\n", argv[1], err);
		free(err);
		return 1;
	}
	n = xray_instrmap_nfuncs(m);
	for (i = 1; i <= n; i++) {
		if (with_addr)
			printf("%zu\t0x%" PRIx64 "\t%s\n", i,
			    xray_instrmap_addr(m, (int32_t)i),
			    xray_instrmap_name(m, (int32_t)i));
		else
			printf("%zu\t%s\n", i, xray_instrmap_name(m, (int32_t)i));
	}
	for (i = 0; i < xray_instrmap_nwarnings(m); i++)
		fprintf(stderr, "instrmap_dump: %s: warning: %s\n", argv[1],
		    xray_instrmap_warning(m, i));
	xray_instrmap_free(m);
	return 0;
}
