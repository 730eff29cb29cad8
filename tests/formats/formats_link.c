/*
 * A wall between layers, checked by the linker: this program links the
 * readers and the core alone (libttvformats.a, libttvcore.a), with no
 * ncurses and no viewer. A reader that called into ui/ would not link,
 * and `make check` would fail here (tests/layers.sh checks every layer
 * so). Run, it loads the trace given (or none) through open_trace(), as
 * the command line does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "open_trace.h"

int
main(int argc, char **argv)
{
	struct open_options o = { 0 };
	struct trace *t = NULL;
	char *err = NULL;

	if (argc < 2) {
		puts("PASS: the readers and the core link without the viewer");
		return 0;
	}
	int rc = open_trace(argv[1], &o, &t, &err);
	if (rc == 0)
		printf("%s: %zu slices\n", t->format, trace_nslices(t));
	else
		fprintf(stderr, "%s\n", err ? err : "?");
	free(err);
	if (t != NULL)
		trace_free(t);
	return rc;
}
