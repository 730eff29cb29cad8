/*
 * Times the call queries alone on a real trace, apart from loading it:
 * the instances of the functions matching a regex (listed and sorted
 * slowest first), their butterfly, the call tree of the whole trace and
 * of a range, and the statistics of that range. Prints a digest of each
 * answer so that two builds (or thread counts) can be shown to agree. It
 * asserts nothing, so it is not a test: `make bench/calls_timing`.
 *
 * Usage: bench/calls_timing TRACE REGEX [RUNS] [RANGE_PERCENT] [WHICH]
 * WHICH picks queries by letter: i(nstances) b(utterfly) t(ree) r(ange
 * tree) s(tats of the range); all by default.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "load.h"
#include "query.h"
#include "query_calls.h"

static double
clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the whole process (all threads): what a query costs
 * whatever else the machine runs. */
static double
cpu(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
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

enum { Q_INSTANCES, Q_BUTTERFLY, Q_TREE, Q_TREE_RANGE, Q_STATS_RANGE, NQ };
static const char *const qname[NQ] = {
	"instances (listed, slowest first)", "butterfly",
	"call tree, whole trace", "call tree, range", "stats, range",
};

static uint64_t
tree_digest(const struct call_tree *ct)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	/* pre-order over the sorted tree: independent of node numbering */
	uint32_t stack[4096];
	size_t sp = 0;
	if (ct->n > 0 && ct->nodes[0].first_child != CALL_NONE)
		stack[sp++] = ct->nodes[0].first_child;
	while (sp > 0) {
		const struct call_node *c = &ct->nodes[stack[--sp]];
		h = mix(h, c->func);
		h = mix(h, c->depth);
		h = mix(h, c->count);
		h = mix(h, (uint64_t)c->total);
		h = mix(h, (uint64_t)c->self);
		if (c->next_sibling != CALL_NONE && sp < 4096)
			stack[sp++] = c->next_sibling;
		if (c->first_child != CALL_NONE && sp < 4096)
			stack[sp++] = c->first_child;
	}
	return h;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: calls_timing TRACE REGEX [RUNS] "
		    "[RANGE_PERCENT]\n");
		return 2;
	}
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	double pct = argc > 4 ? atof(argv[4]) : 1.0;
	const char *which = argc > 5 ? argv[5] : "ibtrs";
	if (runs < 1 || runs > 100)
		runs = 5;
	struct load_options o = { 0 };
	char *err = NULL;
	double l0 = now();
	struct trace *t = load_trace(argv[1], NULL, &o, &err);
	if (t == NULL) {
		fprintf(stderr, "calls_timing: %s: %s\n", argv[1], err);
		return 1;
	}
	fprintf(stderr, "loaded in %.3f s: %zu slices, %u functions\n",
	    now() - l0, trace_nslices(t), t->nfuncs);
	struct regex *re = regex_compile(argv[2], &err);
	if (re == NULL) {
		fprintf(stderr, "calls_timing: bad regex: %s\n", err);
		return 2;
	}
	uint8_t *match = regex_match_funcs(t, re);
	/* a range of pct % of the trace, in its middle */
	ttv_ns len = t->last - t->first;
	ttv_ns r0 = t->first + len / 2;
	ttv_ns r1 = r0 + (ttv_ns)((double)len * pct / 100.0);

	double wall[NQ][100], cpus[NQ][100];
	uint64_t digest[NQ] = { 0 };
	double first[NQ] = { 0 };
	size_t size[NQ] = { 0 };
	for (int r = 0; r < runs; r++) {
		for (int q = 0; q < NQ; q++) {
			if (strchr(which, "ibtrs"[q]) == NULL)
				continue;
			uint64_t h = 0xcbf29ce484222325ULL;
			double w = now(), c0 = cpu();
			if (q == Q_INSTANCES) {
				struct instance_list l;
				query_instances(t, NULL, match, TTV_NS_MIN,
				    TTV_NS_MAX, &l);
				wall[q][r] = now() - w;
				cpus[q][r] = cpu() - c0;
				for (size_t i = 0; i < l.n; i++) {
					const struct call_instance *c =
					    &l.items[l.order[i]];
					h = mix(h, (uint64_t)c->dur);
					h = mix(h, (uint64_t)call_instance_self(t,
					    c, l.t0, l.t1));
					h = mix(h, c->ref.index);
				}
				h = mix(h, (uint64_t)l.p99);
				size[q] = l.n;
				instances_free(&l);
			} else if (q == Q_BUTTERFLY) {
				struct butterfly b;
				query_butterfly(t, NULL, match, TTV_NS_MIN,
				    TTV_NS_MAX, &b);
				wall[q][r] = now() - w;
				cpus[q][r] = cpu() - c0;
				h = mix(h, b.count);
				h = mix(h, (uint64_t)b.total);
				h = mix(h, (uint64_t)b.self);
				for (size_t i = 0; i < b.ncallers; i++) {
					h = mix(h, b.callers[i].count);
					h = mix(h, (uint64_t)b.callers[i].total);
				}
				for (size_t i = 0; i < b.ncallees; i++) {
					h = mix(h, b.callees[i].count);
					h = mix(h, (uint64_t)b.callees[i].total);
				}
				size[q] = b.ncallers + b.ncallees;
				butterfly_free(&b);
			} else if (q == Q_TREE || q == Q_TREE_RANGE) {
				struct call_tree ct;
				bool all = q == Q_TREE;
				query_call_tree(t, NULL, all ? TTV_NS_MIN : r0,
				    all ? TTV_NS_MAX : r1, false, &ct);
				wall[q][r] = now() - w;
				cpus[q][r] = cpu() - c0;
				h = tree_digest(&ct);
				size[q] = ct.n;
				call_tree_free(&ct);
			} else {
				struct stats_table st;
				query_stats(t, NULL, r0, r1, &st);
				wall[q][r] = now() - w;
				cpus[q][r] = cpu() - c0;
				for (size_t i = 0; i < st.n; i++) {
					h = mix(h, st.rows[i].count);
					h = mix(h, (uint64_t)st.rows[i].total);
					h = mix(h, (uint64_t)st.rows[i].p99);
				}
				size[q] = st.n;
				stats_free(&st);
			}
			if (r == 0)
				first[q] = wall[q][0];
			if (r > 0 && h != digest[q])
				fprintf(stderr, "%s: run %d: digest differs!\n",
				    qname[q], r);
			digest[q] = h;
		}
	}
	printf("range: %.2f %% of the trace (%lld ns)\n", pct,
	    (long long)(r1 - r0));
	for (int q = 0; q < NQ; q++) {
		if (strchr(which, "ibtrs"[q]) == NULL)
			continue;
		qsort(wall[q], (size_t)runs, sizeof wall[q][0], cmp_double);
		qsort(cpus[q], (size_t)runs, sizeof cpus[q][0], cmp_double);
		printf("%-34s median %7.1f ms (min %7.1f, first %7.1f), "
		    "cpu %7.1f ms  %9zu rows  digest %016llx\n", qname[q],
		    wall[q][runs / 2] * 1e3, wall[q][0] * 1e3, first[q] * 1e3,
		    cpus[q][runs / 2] * 1e3, size[q],
		    (unsigned long long)digest[q]);
	}
	free(match);
	regex_free(re);
	trace_free(t);
	return 0;
}
