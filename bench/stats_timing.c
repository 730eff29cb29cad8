/*
 * Times query_stats() alone on a real trace, apart from loading it, and
 * prints a digest of every field of every row (longest slice included) so
 * that two builds can be shown to give the same table. It asserts
 * nothing, so it is not a test: `make bench/stats_timing` builds it.
 *
 * Usage: bench/stats_timing TRACE [RUNS] [T0 T1]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "load.h"
#include "query.h"

static double
now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: stats_timing TRACE [RUNS] [T0 T1]\n");
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	ttv_ns t0 = argc > 4 ? atoll(argv[3]) : TTV_NS_MIN;
	ttv_ns t1 = argc > 4 ? atoll(argv[4]) : TTV_NS_MAX;
	if (runs < 1 || runs > 100)
		runs = 5;
	struct load_options o = { 0 };
	char *err = NULL;
	double l0 = now(CLOCK_MONOTONIC);
	struct trace *t = load_trace(argv[1], NULL, &o, &err);
	if (t == NULL) {
		fprintf(stderr, "stats_timing: %s: %s\n", argv[1], err);
		return 1;
	}
	fprintf(stderr, "loaded in %.3f s: %zu slices, %u functions\n",
	    now(CLOCK_MONOTONIC) - l0, trace_nslices(t), t->nfuncs);

	double wall[100], cpu[100];
	uint64_t digest = 0;
	size_t nrows = 0;
	for (int r = 0; r < runs; r++) {
		struct stats_table st;
		double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
		query_stats(t, NULL, t0, t1, &st);
		wall[r] = now(CLOCK_MONOTONIC) - w;
		cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c;
		uint64_t h = 0xcbf29ce484222325ULL;
		for (size_t i = 0; i < st.n; i++) {
			const struct func_stats *s = &st.rows[i];
			uint64_t v[] = { s->func, s->count, s->weight,
			    (uint64_t)s->total, (uint64_t)s->self,
			    (uint64_t)s->min, (uint64_t)s->median,
			    (uint64_t)s->p90, (uint64_t)s->p99,
			    (uint64_t)s->max, s->longest.track,
			    s->longest.depth, s->longest.index };
			for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
				h = mix(h, v[k]);
		}
		if (r > 0 && h != digest)
			fprintf(stderr, "run %d: digest differs!\n", r);
		digest = h;
		nrows = st.n;
		stats_free(&st);
	}
	qsort(wall, (size_t)runs, sizeof *wall, cmp_double);
	qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
	printf("rows %zu digest %016llx\n", nrows, (unsigned long long)digest);
	printf("query_stats: median %.4f s wall (min %.4f), %.4f s cpu\n",
	    wall[runs / 2], wall[0], cpu[runs / 2]);
	trace_free(t);
	return 0;
}
