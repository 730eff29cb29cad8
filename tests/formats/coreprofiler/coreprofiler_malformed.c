/*
 * Damaged CoreProfiler logs must never crash, hang or read out of bounds
 * (run it under ASan/UBSan too). A small good log (tests/data/coreprofiler/
 * tiny.tracelog) is cut at every byte, each byte is replaced by characters
 * that matter to the grammar (space, newline, ':', quote, 'x', digits,
 * 0xff), and random bits are flipped (the sweep of tests/lib/sweep.h).
 * Every model that comes back must be sane: non-negative durations, each
 * depth sorted and not overlapping, every slice inside its parent. A cut
 * at a line boundary leaves a good log, so it must load with no error at
 * all; a cut inside a line may only damage that last line.
 *
 * Usage: coreprofiler_malformed [SRCDIR]  (default: $TTV_SRCDIR)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "sweep.h"
#include "xalloc.h"

/* Loads bytes as a CoreProfiler log; returns the number of errors, or -1
 * if the loader refused the input. */
static long
load(struct sweep *s, const unsigned char *p, size_t n)
{
	struct load_options opts = { 0 };
	char *err = NULL;
	struct trace *t = load_trace(sweep_memfile(p, n), "coreprofiler",
	    &opts, &err);

	if (t == NULL) {
		if (err == NULL || *err == 0)
			sweep_fail(s, "refused without a message");
		free(err);
		return -1;
	}
	sweep_sane_slices(s, t, true);
	long errors = 0;
	for (size_t i = 0; i < t->ndiags; i++)
		if (t->diags[i].level == DIAG_ERROR) {
			errors++;
			if (strncmp(t->diags[i].text, "line ", 5) != 0)
				sweep_fail(s, "error without a line number");
		}
	errors += (long)t->ndiags_dropped;
	trace_free(t);
	return errors;
}

static void
check(struct sweep *s, const unsigned char *p, size_t n)
{
	(void)load(s, p, n);
}

/* A cut at a line end is a good log; inside a line, only that line may
 * be damaged. */
static void
check_cut(struct sweep *s, const unsigned char *p, size_t n)
{
	if (n == 0 || n == s->n)
		return;		/* nothing, or the whole log (checked alone) */
	long e = load(s, p, n);
	if (p[n - 1] == '\n' && e != 0)
		sweep_fail(s, "errors at a line end");
	if (p[n - 1] != '\n' && e > 1)
		sweep_fail(s, "more than one error inside a line");
}

int
main(int argc, char **argv)
{
	static const unsigned char subst[] = { ' ', '\n', ':', '"', 'x', '0',
	    '9', 0xff };
	char *path;
	struct sweep s;

	if (argc > 1)
		path = xasprintf("%s/tests/data/coreprofiler/tiny.tracelog",
		    argv[1]);
	else
		path = sweep_fixture("coreprofiler/tiny.tracelog");
	sweep_open(&s, path, check_cut, NULL);
	if (load(&s, s.orig, s.n) != 0)
		sweep_fail(&s, "the good log has errors");
	sweep_cuts(&s, NULL);
	s.check = check;
	/* Two of the characters at each offset, in turn. */
	sweep_bytes(&s, subst, sizeof subst, 2, NULL);
	sweep_flips(&s, 2000, 8, 88172645463325252ull);
	printf("%lu loads, %d failures\n", s.runs + 1, sweep_failures());
	sweep_close(&s);
	free(path);
	return sweep_failures() ? 1 : 0;
}
