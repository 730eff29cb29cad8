/*
 * srcline_check BINARY ADDR pie|exec [BAD...]: what the viewer's source
 * lines rest on, for a cyg-profile trace. The binary is said to be loaded
 * where an LTTng statedump would say (ctf_lttng_bin): a PIE at a run-time
 * base, an executable where it was linked; the function at ADDR (the
 * binary's own address of it, as nm gives it) as the program ran it is
 * made through the reader's
 * path (ctf_lttng_func, ctf_lttng_finish), and the model must keep its
 * address in the binary (trace_func_addr); srcline then finds its line.
 * Prints "NAME FILE LINE" (or "NAME - why"), then for each BAD path the
 * answer for that binary.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "lttng/ctf_lttng.h"
#include "srcline.h"

int
main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: srcline_check BINARY ADDR pie|exec "
		    "[BAD...]\n");
		return 2;
	}
	const char *bin = argv[1];
	uint64_t addr = strtoull(argv[2], NULL, 0);
	bool pie = strcmp(argv[3], "pie") == 0;
	/* a PIE where ASLR would put it; an executable at its own place */
	uint64_t base = pie ? 0x5600000000ULL : 0x400000;
	struct builder *b = builder_new("srcline-check");
	struct ctf_lttng *l = ctf_lttng_new(NULL);
	ctf_lttng_bin(l, 7, base, 1 << 24, bin, strlen(bin), pie);
	func_id f = ctf_lttng_func(l, b, 7, pie ? base + addr : addr);
	/* an address in no binary: named by its address, none kept */
	func_id g = ctf_lttng_func(l, b, 7, 0x10);
	ctf_lttng_finish(l, b);
	ctf_lttng_free(l);
	struct trace *t = builder_finish(b);
	int rc = 0;

	const struct func_addr *fa = trace_func_addr(t, f);
	if (fa == NULL || fa->addr != addr ||
	    strcmp(trace_str(t, fa->binary), bin) != 0) {
		fprintf(stderr, "srcline_check: no address 0x%" PRIx64 " in %s "
		    "kept for %s\n", addr, bin, trace_func_name(t, f));
		rc = 1;
	}
	if (trace_func_addr(t, g) != NULL) {
		fprintf(stderr, "srcline_check: an address kept for %s\n",
		    trace_func_name(t, g));
		rc = 1;
	}
	struct srcline *s = srcline_new();
	char *file, *why;
	int line;
	if (fa != NULL && srcline_find(s, trace_str(t, fa->binary), fa->addr,
	    &file, &line, &why) == 0) {
		printf("%s %s %d\n", trace_func_name(t, f), file, line);
		free(file);
	} else if (fa != NULL) {
		printf("%s - %s\n", trace_func_name(t, f), why);
		free(why);
	}
	for (int i = 4; i < argc; i++) {
		if (srcline_find(s, argv[i], addr, &file, &line, &why) == 0) {
			printf("%s %s %d\n", argv[i], file, line);
			free(file);
		} else {
			printf("%s - %s\n", argv[i], why);
			free(why);
		}
	}
	srcline_free(s);
	trace_free(t);
	return rc;
}
