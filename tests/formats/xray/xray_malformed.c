/*
 * Malformed XRay logs must never crash, hang or read out of bounds (run
 * it under ASan/UBSan too): every truncation of small FDR and basic
 * fixtures, single-byte damage at every offset, random bit flips (the
 * sweep of tests/lib/sweep.h), and headers with wrong versions, types,
 * frequencies and buffer sizes. For each input the loader must either
 * refuse it with a message or return a model whose slices are sane, and
 * damage must be reported with an offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "sweep.h"
#include "xalloc.h"

/* Loads bytes as an XRay log and checks what comes back. */
static void
check(struct sweep *s, const unsigned char *p, size_t n)
{
	struct load_options opts = { 0 };
	char *err = NULL;
	struct trace *t = load_trace(sweep_memfile(p, n), "xray", &opts, &err);

	if (t == NULL) {
		if (err == NULL || *err == 0)
			sweep_fail(s, "refused without a message");
		free(err);
		return;
	}
	sweep_sane_slices(s, t, false);
	for (size_t i = 0; i < t->ndiags; i++)
		if (strstr(t->diags[i].text, "offset") == NULL &&
		    strstr(t->diags[i].text, "cycle_frequency") == NULL &&
		    strstr(t->diags[i].text, "timestamps went backwards") == NULL &&
		    strstr(t->diags[i].text, "more problems") == NULL &&
		    strstr(t->diags[i].text, "instrumentation map") == NULL)
			sweep_fail(s, "%s", t->diags[i].text);
	trace_free(t);
}

/* The header's fields: version, type, frequency, buffer_size. */
static void
headers(struct sweep *s)
{
	static const uint16_t versions[] = { 0, 1, 2, 3, 4, 5, 6, 0xffff };
	static const uint64_t big[] = { 0, 1, 16, 47, 48, 1ULL << 40,
		UINT64_MAX, 3 };
	unsigned char *p = s->buf;

	s->what = "header, case";
	s->at = 0;
	for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
		for (uint16_t type = 0; type < 3; type++) {
			memcpy(p, s->orig, s->n);
			p[0] = (unsigned char)versions[v];
			p[1] = (unsigned char)(versions[v] >> 8);
			p[2] = (unsigned char)type;
			p[3] = 0;
			s->runs++;
			check(s, p, s->n);
			s->at++;
		}
	}
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		memcpy(p, s->orig, s->n);
		for (int k = 0; k < 8; k++)
			p[16 + k] = (unsigned char)(big[i] >> (8 * k));
		check(s, p, s->n);
		memcpy(p, s->orig, s->n);
		for (int k = 0; k < 8; k++)
			p[8 + k] = (unsigned char)(big[i] >> (8 * k));
		check(s, p, s->n);
		s->runs += 2;
		s->at++;
	}
	memcpy(p, s->orig, s->n);
}

int
main(void)
{
	static const char *const fixtures[] = {
		"fdr-v5-le", "fdr-v1-be", "fdr-v3-ring-be", "fdr-v4-le",
		"basic-v3-le", "basic-v1-le",
	};
	/* Values that break framing or sizes, one per offset. */
	static const unsigned char vals[] = { 0x00, 0xff, 0x0f, 0x01, 0x11,
		0x13, 0x7f };
	/* The first fixture is cut at every byte, the others at every byte
	 * of their start and then every 13th. */
	const struct sweep_plan sparse = { .head = 96, .stride = 13 };
	unsigned long loads = 0;

	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		char *rel = xasprintf("xray/%s.xray", fixtures[i]);
		char *path = sweep_fixture(rel);
		struct sweep s;

		sweep_open(&s, path, check, NULL);
		sweep_cuts(&s, i == 0 ? NULL : &sparse);
		sweep_bytes(&s, vals, sizeof vals, 1, NULL);
		sweep_flips(&s, 300, 8, 0x9e3779b97f4a7c15ULL);
		headers(&s);
		loads += s.runs;
		sweep_close(&s);
		free(path);
		free(rel);
	}
	printf("%lu damaged logs loaded, %d failures\n", loads,
	    sweep_failures());
	return sweep_failures() ? 1 : 0;
}
