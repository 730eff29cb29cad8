/*
 * ctf_text_dump [-c] TRACE: prints every event of a CTF trace (a directory
 * of traces or a metadata file) in babeltrace2's text layout, through
 * ttv's own CTF decoder, and the reader's diagnostics on stderr. The
 * conformance test (ctf_conformance.sh) diffs this output with
 * babeltrace2's. With -c, only decodes and prints the number of events
 * (bench/ctf.sh compares that with babeltrace2's dummy sink).
 * Exit status: 0, or 1 if any error was reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_merge.h"
#include "ctf_text.h"

static int errors;

static void
on_diag(void *arg, bool error, const char *file, int64_t off, const char *msg)
{
	(void)arg;
	if (error)
		errors++;
	if (off >= 0)
		fprintf(stderr, "%s: %s: offset %lld: %s\n",
		    error ? "error" : "warning", file, (long long)off, msg);
	else
		fprintf(stderr, "%s: %s: %s\n", error ? "error" : "warning",
		    file, msg);
}

int
main(int argc, char **argv)
{
	bool count = argc == 3 && strcmp(argv[1], "-c") == 0;
	if (argc != 2 && !count) {
		fprintf(stderr, "usage: ctf_text_dump [-c] TRACE\n");
		return 2;
	}
	struct ctf_reader *r = ctf_reader_open(argv[argc - 1], on_diag, NULL,
	    NULL, NULL);
	if (r == NULL)
		return 1;
	const struct ctf_item *it;
	struct ctf_text_state st = { 0 };
	unsigned long long n = 0;
	if (count)
		ctf_reader_light_walk(r);
	while ((it = ctf_reader_next(r)) != NULL)
		if (it->kind == CTF_ITEM_EVENT) {
			n++;
			if (!count)
				ctf_text_event(stdout, it, &st);
		}
	if (count)
		printf("%llu events\n", n);
	ctf_reader_free(r);
	return errors ? 1 : 0;
}
