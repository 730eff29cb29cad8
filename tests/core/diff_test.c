/*
 * Unit tests of two traces compared (query_diff.h) and of what it stands
 * on: the statistics of groups of functions (query_stats_grouped) against
 * a brute-force count of the calls, the cutting of a pattern's matches
 * out of names (regex_cut_strings), the join by name and by call path,
 * the noise threshold at its edges, the normalisations, the ranges of
 * each side, the CI gate and the parsing of --min-change.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "query.h"
#include "query_diff.h"
#include "xalloc.h"

/* ------------------------------------------------------------- traces */

/* A call written as text: "name start end" on one track, calls nested
 * by time (a call inside another starts after it and ends before it).
 * Category: "name/cat" gives the function a category, so that two
 * functions can share a name. */
struct call {
	const char *name;
	ttv_ns start, end;
};

static func_id
func_of(struct builder *b, const char *spec)
{
	const char *slash = strchr(spec, '/');
	str_id name = slash ? builder_intern(b, spec, (size_t)(slash - spec)) :
	    builder_intern_cstr(b, spec);
	str_id cat = slash ? builder_intern_cstr(b, slash + 1) : 0;
	return builder_func(b, name, cat, -1);
}

/* Calls in start order per track (tracks: a list per tid, ended by a
 * call with a NULL name). */
static struct trace *
make(const int64_t *tids, const struct call *const *tracks, size_t ntracks)
{
	struct builder *b = builder_new("diff");
	builder_set_format(b, "test", "1", NULL);
	uint32_t proc = builder_process(b, 1);
	for (size_t k = 0; k < ntracks; k++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, tids[k]);
		/* ends of the open calls, innermost last */
		ttv_ns open[16];
		size_t nopen = 0;
		ttv_ns last = 0;
		for (const struct call *c = tracks[k]; c->name != NULL; c++) {
			while (nopen > 0 && open[nopen - 1] <= c->start) {
				assert_true(builder_pop(b, tr, open[--nopen],
				    0));
			}
			builder_push(b, tr, c->start, func_of(b, c->name));
			open[nopen++] = c->end;
			if (c->end > last)
				last = c->end;
		}
		while (nopen > 0)
			assert_true(builder_pop(b, tr, open[--nopen], 0));
		builder_track_touch(b, tr, last);
	}
	return builder_finish(b);
}

static const struct diff_row *
row_named(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->by == DIFF_BY_FUNCTION) {
			if (strcmp(diff_name(d, d->rows[i].key), name) == 0)
				return &d->rows[i];
			continue;
		}
		/* by path: frames joined by ';' */
		uint32_t *names;
		size_t n = diff_path(d, &d->rows[i], &names);
		char buf[256] = "";
		for (size_t k = 0; k < n; k++) {
			if (k > 0)
				strcat(buf, ";");
			strcat(buf, diff_name(d, names[k]));
		}
		free(names);
		if (strcmp(buf, name) == 0)
			return &d->rows[i];
	}
	return NULL;
}

static void
diff_of(const struct trace *b, const struct trace *n,
    const struct diff_options *o, struct diff *d)
{
	struct diff_side s[2] = {
		{ b, NULL, TTV_NS_MIN, TTV_NS_MAX },
		{ n, NULL, TTV_NS_MIN, TTV_NS_MAX },
	};
	char *err = NULL;
	assert_int_equal(query_diff(s, o, d, &err), 0);
	assert_null(err);
}

static struct diff_options
opts(void)
{
	return (struct diff_options){ .min_abs = DIFF_MIN_ABS,
	    .min_rel = DIFF_MIN_REL };
}

/* -------------------------------------------------------- the pair */

/* The base: main calling a (twice), b, gone; the new: main calling a
 * (twice, one slower), b, added; a thread 2 with c, the same in both. */
static const struct call base_main[] = {
	{ "main", 0, 100000 },
	{ "a", 1000, 11000 }, { "a", 12000, 22000 },
	{ "b", 30000, 50000 },
	{ "gone", 60000, 65000 },
	{ NULL, 0, 0 },
};
static const struct call new_main[] = {
	{ "main", 0, 200000 },
	{ "a", 1000, 11000 }, { "a", 12000, 52000 },
	{ "b", 60000, 80000 },
	{ "added", 90000, 97000 },
	{ NULL, 0, 0 },
};
static const struct call both_c[] = {
	{ "c", 0, 30000 }, { NULL, 0, 0 },
};

static struct trace *
pair(bool new_run)
{
	int64_t tids[2] = { new_run ? 201 : 101, new_run ? 202 : 102 };
	const struct call *tracks[2] = { new_run ? new_main : base_main,
	    both_c };
	return make(tids, tracks, 2);
}

static void
test_join_by_name(void **state)
{
	(void)state;
	struct trace *b = pair(false), *n = pair(true);
	struct diff_options o = opts();
	struct diff d;
	diff_of(b, n, &o, &d);
	assert_int_equal(d.n, 6);
	/* by |delta| of total, largest first, ties by name */
	const char *order[] = { "main", "a", "added", "gone", "b", "c" };
	for (size_t i = 0; i < d.n; i++)
		assert_string_equal(diff_name(&d, d.rows[i].key), order[i]);
	const struct diff_row *r = row_named(&d, "a");
	assert_int_equal(r->s[DIFF_BASE].count, 2);
	assert_int_equal(r->s[DIFF_NEW].count, 2);
	assert_int_equal(r->s[DIFF_BASE].total, 20000);
	assert_int_equal(r->s[DIFF_NEW].total, 50000);
	assert_int_equal(r->delta, 30000);
	assert_int_equal(r->status, DIFF_GREW);
	assert_true(fabs(diff_ratio(r) - 2.5) < 1e-9);
	/* p50: floor(0.5 * 2) = index 1 of the sorted durations */
	assert_int_equal(r->s[DIFF_NEW].median, 40000);
	assert_int_equal(r->s[DIFF_BASE].median, 10000);
	r = row_named(&d, "main");
	assert_int_equal(r->s[DIFF_BASE].self, 100000 - 20000 - 20000 - 5000);
	assert_int_equal(r->s[DIFF_NEW].self, 200000 - 50000 - 20000 - 7000);
	r = row_named(&d, "gone");
	assert_int_equal(r->status, DIFF_ONLY_BASE);
	assert_int_equal(r->delta, -5000);
	assert_true(fabs(diff_ratio(r)) < 1e-9);
	r = row_named(&d, "added");
	assert_int_equal(r->status, DIFF_ONLY_NEW);
	assert_true(isnan(diff_ratio(r)));
	assert_int_equal(row_named(&d, "b")->status, DIFF_SAME);
	assert_int_equal(row_named(&d, "c")->status, DIFF_SAME);
	/* each side's time: its self times summed */
	assert_int_equal(d.time[DIFF_BASE], 100000 + 30000);
	assert_int_equal(d.time[DIFF_NEW], 200000 + 30000);
	diff_free(&d);
	trace_free(b);
	trace_free(n);
}

/* The noise: a change of exactly max(min_abs, min_rel * base) is the
 * same, one more ns is not. */
static void
test_noise_edges(void **state)
{
	(void)state;
	static const struct call b1[] = { { "f", 0, 100000 }, { NULL, 0, 0 } };
	static const struct call n1[] = { { "f", 0, 110000 }, { NULL, 0, 0 } };
	static const struct call n2[] = { { "f", 0, 110001 }, { NULL, 0, 0 } };
	static const struct call n3[] = { { "f", 0, 89999 }, { NULL, 0, 0 } };
	int64_t tid = 1;
	const struct call *t1[] = { b1 }, *t2[] = { n1 }, *t3[] = { n2 },
	    *t4[] = { n3 };
	struct trace *b = make(&tid, t1, 1), *x = make(&tid, t2, 1),
	    *y = make(&tid, t3, 1), *z = make(&tid, t4, 1);
	struct diff d;
	/* relative: 10 % of 100 µs is 10 µs */
	struct diff_options o = { .min_abs = 0, .min_rel = 0.10 };
	diff_of(b, x, &o, &d);
	assert_int_equal(d.rows[0].status, DIFF_SAME);
	diff_free(&d);
	diff_of(b, y, &o, &d);
	assert_int_equal(d.rows[0].status, DIFF_GREW);
	diff_free(&d);
	diff_of(b, z, &o, &d);
	assert_int_equal(d.rows[0].status, DIFF_SHRANK);
	diff_free(&d);
	/* absolute: the larger of the two counts */
	o = (struct diff_options){ .min_abs = 10001, .min_rel = 0.01 };
	diff_of(b, y, &o, &d);
	assert_int_equal(d.rows[0].status, DIFF_SAME);
	diff_free(&d);
	o = (struct diff_options){ .min_abs = 0, .min_rel = 0 };
	diff_of(b, b, &o, &d);
	assert_int_equal(d.rows[0].status, DIFF_SAME);
	assert_int_equal(d.rows[0].delta, 0);
	diff_free(&d);
	trace_free(b);
	trace_free(x);
	trace_free(y);
	trace_free(z);
}

/* The gate: more than pct percent, beyond the noise; only-new rows with
 * on_new when above the floor; only-base rows never. */
static void
test_gate(void **state)
{
	(void)state;
	struct trace *b = pair(false), *n = pair(true);
	struct diff_options o = opts();
	struct diff d;
	diff_of(b, n, &o, &d);
	const struct diff_row *a = row_named(&d, "a");	/* +150 % */
	assert_true(diff_row_fails(&d, a, 149.9, false));
	assert_false(diff_row_fails(&d, a, 150, false));	/* not more */
	const struct diff_row *added = row_named(&d, "added");
	assert_false(diff_row_fails(&d, added, 10, false));
	assert_false(diff_row_fails(&d, added, 10, true));	/* 7 µs */
	assert_false(diff_row_fails(&d, row_named(&d, "gone"), 0, true));
	assert_false(diff_row_fails(&d, row_named(&d, "b"), 0, true));
	diff_free(&d);
	o.min_abs = 5000;
	diff_of(b, n, &o, &d);
	assert_true(diff_row_fails(&d, row_named(&d, "added"), 10, true));
	diff_free(&d);
	trace_free(b);
	trace_free(n);
}

/* Per call: the base as if it had made the new trace's calls; of the
 * total: as if it had taken the new trace's time. */
static void
test_normalize(void **state)
{
	(void)state;
	static const struct call b1[] = { { "f", 0, 1000 }, { "g", 2000, 5000 },
	    { NULL, 0, 0 } };
	static const struct call n1[] = { { "f", 0, 1000 }, { "f", 1000, 2000 },
	    { "g", 2000, 8000 }, { NULL, 0, 0 } };
	int64_t tid = 1;
	const struct call *tb[] = { b1 }, *tn[] = { n1 };
	struct trace *b = make(&tid, tb, 1), *n = make(&tid, tn, 1);
	struct diff_options o = { .norm = DIFF_NORM_CALLS };
	struct diff d;
	diff_of(b, n, &o, &d);
	const struct diff_row *f = row_named(&d, "f");
	assert_int_equal(f->s[DIFF_BASE].total, 2000);	/* 1000 x 2 calls */
	assert_int_equal(f->delta, 0);
	assert_int_equal(f->status, DIFF_SAME);
	assert_int_equal(row_named(&d, "g")->delta, 3000);
	diff_free(&d);
	/* base time 4000, new time 8000: the base's times doubled */
	o = (struct diff_options){ .norm = DIFF_NORM_TOTAL };
	diff_of(b, n, &o, &d);
	assert_true(fabs(d.scale - 2.0) < 1e-12);
	f = row_named(&d, "f");
	assert_int_equal(f->s[DIFF_BASE].total, 2000);
	assert_int_equal(f->s[DIFF_BASE].self, 2000);
	assert_int_equal(f->s[DIFF_BASE].count, 1);	/* not scaled */
	assert_int_equal(row_named(&d, "g")->s[DIFF_BASE].total, 6000);
	assert_int_equal(row_named(&d, "g")->delta, 0);
	diff_free(&d);
	trace_free(b);
	trace_free(n);
}

/* By path: one tree of keys; the same function under two callers is two
 * rows; a path only in one trace; the sort by name walks the paths. */
static void
test_by_path(void **state)
{
	(void)state;
	static const struct call b1[] = {
		{ "m", 0, 10000 }, { "x", 100, 1100 }, { "h", 200, 300 },
		{ "y", 2000, 3000 }, { "h", 2100, 2200 },
		{ NULL, 0, 0 } };
	static const struct call n1[] = {
		{ "m", 0, 10000 }, { "x", 100, 1100 }, { "h", 200, 300 },
		{ "y", 2000, 5000 }, { "h", 2100, 4200 },
		{ "z", 6000, 6500 }, { "h", 6100, 6200 },
		{ NULL, 0, 0 } };
	int64_t tid = 1;
	const struct call *tb[] = { b1 }, *tn[] = { n1 };
	struct trace *b = make(&tid, tb, 1), *n = make(&tid, tn, 1);
	struct diff_options o = { .by = DIFF_BY_PATH };
	struct diff d;
	diff_of(b, n, &o, &d);
	assert_int_equal(d.n, 7);
	const struct diff_row *r = row_named(&d, "m;y;h");
	assert_non_null(r);
	assert_int_equal(r->s[DIFF_BASE].total, 100);
	assert_int_equal(r->s[DIFF_NEW].total, 2100);
	assert_int_equal(r->status, DIFF_GREW);
	r = row_named(&d, "m;x;h");
	assert_int_equal(r->delta, 0);
	assert_int_equal(row_named(&d, "m;z;h")->status, DIFF_ONLY_NEW);
	assert_int_equal(row_named(&d, "m;z")->status, DIFF_ONLY_NEW);
	assert_int_equal(row_named(&d, "m")->s[DIFF_NEW].self,
	    10000 - 1000 - 3000 - 500);
	/* by name: a path before its callees, callees by name */
	diff_sort(&d, STATS_NAME, false);
	const char *names[] = { "m", "m;x", "m;x;h", "m;y", "m;y;h", "m;z",
	    "m;z;h" };
	for (size_t i = 0; i < d.n; i++)
		assert_ptr_equal(row_named(&d, names[i]), &d.rows[i]);
	diff_free(&d);
	/* folded below max_depth 2: m;[deeper frames] holds x, y, z */
	o.max_depth = 2;
	diff_of(b, n, &o, &d);
	r = row_named(&d, "m;[deeper frames]");
	assert_non_null(r);
	assert_int_equal(r->s[DIFF_BASE].total, 2000);
	assert_int_equal(r->s[DIFF_NEW].total, 4500);
	assert_int_equal(d.n, 2);
	diff_free(&d);
	trace_free(b);
	trace_free(n);
}

/* A pattern cut out of names pairs them; two functions of one trace with
 * one key are one row, their calls together; a function filter keeps its
 * functions only, even inside a group. */
static void
test_strip_and_groups(void **state)
{
	(void)state;
	static const struct call b1[] = {
		{ "tpl<1>", 0, 1000 }, { "tpl<22>", 2000, 5000 },
		{ "jit@0x7f01", 6000, 6400 }, { "same/c1", 7000, 7100 },
		{ "same/c2", 8000, 8300 }, { NULL, 0, 0 } };
	static const struct call n1[] = {
		{ "tpl<3>", 0, 2000 }, { "jit@0x7f99", 6000, 6400 },
		{ "same/c1", 7000, 7100 }, { NULL, 0, 0 } };
	int64_t tid = 1;
	const struct call *tb[] = { b1 }, *tn[] = { n1 };
	struct trace *b = make(&tid, tb, 1), *n = make(&tid, tn, 1);
	char *err = NULL;
	struct regex *re = regex_compile("0x[0-9a-f]+|[0-9]+", &err);
	assert_non_null(re);
	struct diff_options o = { .strip = re };
	struct diff d;
	diff_of(b, n, &o, &d);
	assert_int_equal(d.n, 3);
	const struct diff_row *r = row_named(&d, "tpl<>");
	assert_non_null(r);
	assert_int_equal(r->s[DIFF_BASE].count, 2);
	assert_int_equal(r->s[DIFF_BASE].total, 4000);
	assert_int_equal(r->s[DIFF_BASE].min, 1000);
	assert_int_equal(r->s[DIFF_BASE].max, 3000);
	assert_int_equal(r->s[DIFF_BASE].median, 3000);
	assert_int_equal(r->s[DIFF_NEW].total, 2000);
	assert_int_equal(row_named(&d, "jit@")->status, DIFF_SAME);
	/* same name, two categories: one row without any pattern */
	r = row_named(&d, "same");
	assert_int_equal(r->s[DIFF_BASE].count, 2);
	assert_int_equal(r->s[DIFF_BASE].total, 400);
	diff_free(&d);
	/* a filter keeps tpl<1> only: its group counts it alone */
	struct filter f;
	filter_init(&f);
	struct regex *only = regex_compile("^tpl<1>$", &err);
	assert_int_equal(filter_set_functions(&f, b, only, false), 0);
	struct diff_side s[2] = {
		{ b, &f, TTV_NS_MIN, TTV_NS_MAX },
		{ n, NULL, TTV_NS_MIN, TTV_NS_MAX },
	};
	assert_int_equal(query_diff(s, &o, &d, &err), 0);
	r = row_named(&d, "tpl<>");
	assert_int_equal(r->s[DIFF_BASE].count, 1);
	assert_int_equal(r->s[DIFF_BASE].total, 1000);
	assert_int_equal(row_named(&d, "same")->status, DIFF_ONLY_NEW);
	diff_free(&d);
	filter_clear(&f);
	regex_free(only);
	regex_free(re);
	trace_free(b);
	trace_free(n);
}

/* The functions of a row in one trace: those whose key is the row's name,
 * the pattern cut out of their names when there is one. */
static void
test_key_funcs(void **state)
{
	(void)state;
	static const struct call b1[] = {
		{ "tpl<1>", 0, 1000 }, { "tpl<22>", 2000, 5000 },
		{ "jit@0x7f01", 6000, 6400 }, { "same/c1", 7000, 7100 },
		{ "same/c2", 8000, 8300 }, { NULL, 0, 0 } };
	int64_t tid = 1;
	const struct call *tb[] = { b1 };
	struct trace *b = make(&tid, tb, 1);
	char *err = NULL;
	struct regex *re = regex_compile("0x[0-9a-f]+|[0-9]+", &err);
	assert_non_null(re);
	/* counts the functions marked, and those of a name */
	uint8_t *on = diff_key_funcs(b, re, "tpl<>", &err);
	assert_non_null(on);
	size_t n = 0;
	for (func_id f = 0; f < b->nfuncs; f++) {
		n += on[f];
		if (on[f])
			assert_memory_equal(trace_func_name(b, f), "tpl<", 4);
	}
	assert_int_equal(n, 2);
	free(on);
	/* without the pattern: names as they are */
	on = diff_key_funcs(b, NULL, "tpl<>", &err);
	for (func_id f = 0; f < b->nfuncs; f++)
		assert_int_equal(on[f], 0);
	free(on);
	on = diff_key_funcs(b, NULL, "tpl<22>", &err);
	n = 0;
	for (func_id f = 0; f < b->nfuncs; f++)
		n += on[f];
	assert_int_equal(n, 1);
	free(on);
	/* two functions of one name (two categories): both */
	on = diff_key_funcs(b, re, "same", &err);
	n = 0;
	for (func_id f = 0; f < b->nfuncs; f++)
		n += on[f];
	assert_int_equal(n, 2);
	free(on);
	regex_free(re);
	trace_free(b);
}

/* Each side's range, from its own trace. */
static void
test_ranges(void **state)
{
	(void)state;
	struct trace *b = pair(false), *n = pair(true);
	struct diff_side s[2] = {
		{ b, NULL, b->first + 1000, b->first + 22000 },
		{ n, NULL, n->first + 1000, n->first + 32000 },
	};
	struct diff_options o = opts();
	struct diff d;
	char *err = NULL;
	assert_int_equal(query_diff(s, &o, &d, &err), 0);
	const struct diff_row *r = row_named(&d, "a");
	assert_int_equal(r->s[DIFF_BASE].total, 20000);
	assert_int_equal(r->s[DIFF_NEW].total, 10000 + 20000);	/* clipped */
	assert_int_equal(row_named(&d, "main")->s[DIFF_NEW].total, 31000);
	assert_null(row_named(&d, "b"));
	diff_free(&d);
	trace_free(b);
	trace_free(n);
}

/* Names the model holds escaped (a NUL, a byte C0: escape.h) are keys as
 * they are: a row's name is the function's, byte for byte, and pairs with
 * the same name in the other trace. */
static void
test_held_names(void **state)
{
	(void)state;
	static const char *const raw[] = { "n\0ul", "a\xc0z", "plain" };
	static const size_t len[] = { 4, 3, 5 };
	struct trace *t[2];
	for (int s = 0; s < 2; s++) {
		struct builder *b = builder_new("held");
		uint32_t tr = builder_track(b, TRACK_THREAD,
		    builder_process(b, 1), 1);
		for (int i = 0; i < 3; i++) {
			func_id f = builder_func(b, builder_intern(b, raw[i],
			    len[i]), 0, -1);
			builder_push(b, tr, 100 * i, f);
			assert_true(builder_pop(b, tr, 100 * i + 10 + s, 0));
		}
		t[s] = builder_finish(b);
	}
	struct diff_options o = { .by = DIFF_BY_FUNCTION };
	for (int by = 0; by < 2; by++) {
		struct diff d;
		o.by = by ? DIFF_BY_PATH : DIFF_BY_FUNCTION;
		diff_of(t[0], t[1], &o, &d);
		assert_int_equal(d.n, 3);
		for (uint32_t f = 0; f < 3; f++) {
			const struct diff_row *r = row_named(&d,
			    trace_func_name(t[0], f));
			assert_non_null(r);
			assert_int_equal(r->s[DIFF_BASE].count, 1);
			assert_int_equal(r->s[DIFF_NEW].count, 1);
		}
		diff_free(&d);
	}
	trace_free(t[0]);
	trace_free(t[1]);
}

/* ------------------------------------------------- grouped statistics */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int
cmp_ns(const void *a, const void *b)
{
	ttv_ns x = *(const ttv_ns *)a, y = *(const ttv_ns *)b;
	return x < y ? -1 : x > y;
}

/* Random flat calls of 12 functions in 4 groups: each group's count,
 * total, min, max and percentiles against the sorted durations. */
static void
test_stats_grouped(void **state)
{
	(void)state;
	enum { NCALLS = 3000, NF = 12, NG = 4 };
	struct call *calls = xcalloc(NCALLS + 1, sizeof *calls);
	char names[NF][16];
	for (int i = 0; i < NF; i++)
		snprintf(names[i], sizeof names[i], "f%d", i);
	ttv_ns now = 0;
	int fn[NCALLS];
	for (int i = 0; i < NCALLS; i++) {
		fn[i] = (int)(rng() % NF);
		ttv_ns dur = 1 + (ttv_ns)(rng() % 5000);
		calls[i] = (struct call){ names[fn[i]], now, now + dur };
		now += dur + 1;
	}
	int64_t tid = 1;
	const struct call *tr[] = { calls };
	struct trace *t = make(&tid, tr, 1);
	uint32_t group[NF];
	for (uint32_t f = 0; f < t->nfuncs; f++)
		group[f] = (uint32_t)(atoi(trace_func_name(t, f) + 1) % NG);
	struct stats_table st;
	query_stats_grouped(t, NULL, TTV_NS_MIN, TTV_NS_MAX, group, NG, &st);
	assert_int_equal(st.n, NG);
	for (size_t r = 0; r < st.n; r++) {
		const struct func_stats *s = &st.rows[r];
		ttv_ns *d = xmalloc(NCALLS * sizeof *d);
		size_t n = 0;
		ttv_ns total = 0;
		for (int i = 0; i < NCALLS; i++)
			if ((uint32_t)(atoi(calls[i].name + 1) % NG) == s->func) {
				d[n++] = calls[i].end - calls[i].start;
				total += calls[i].end - calls[i].start;
			}
		qsort(d, n, sizeof *d, cmp_ns);
		assert_int_equal(s->count, n);
		assert_int_equal(s->total, total);
		assert_int_equal(s->self, total);
		assert_int_equal(s->min, d[0]);
		assert_int_equal(s->max, d[n - 1]);
		assert_int_equal(s->median, d[n / 2]);
		assert_int_equal(s->p90, d[(size_t)(0.9 * (double)n)]);
		assert_int_equal(s->p99, d[(size_t)(0.99 * (double)n)]);
		free(d);
	}
	stats_free(&st);
	/* each function its own group: query_stats' rows */
	struct stats_table plain;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &plain);
	for (uint32_t f = 0; f < t->nfuncs; f++)
		group[f] = f;
	query_stats_grouped(t, NULL, TTV_NS_MIN, TTV_NS_MAX, group, t->nfuncs,
	    &st);
	assert_int_equal(st.n, plain.n);
	assert_memory_equal(st.rows, plain.rows, st.n * sizeof *st.rows);
	stats_free(&st);
	stats_free(&plain);
	/* a group past ngroups leaves its functions out */
	for (uint32_t f = 0; f < t->nfuncs; f++)
		group[f] = f == 0 ? 0 : NG;
	query_stats_grouped(t, NULL, TTV_NS_MIN, TTV_NS_MAX, group, NG, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.rows[0].func, 0);
	stats_free(&st);
	trace_free(t);
	free(calls);
}

/* ---------------------------------------------------------- cut, parse */

static void
cut_one(const char *pattern, const char *name, const char *want)
{
	struct builder *b = builder_new("cut");
	builder_func(b, builder_intern_cstr(b, name), 0, -1);
	struct trace *t = builder_finish(b);
	char *err = NULL;
	struct regex *re = regex_compile(pattern, &err);
	assert_non_null(re);
	uint8_t *v = regex_verdicts_new(t);
	regex_ask(t, v, t->funcs[0].name);
	char **cut = xcalloc(t->nstrings, sizeof *cut);
	assert_int_equal(regex_cut_strings(re, t, v, cut), 0);
	const char *got = cut[t->funcs[0].name] ? cut[t->funcs[0].name] :
	    trace_func_name(t, 0);
	if (strcmp(got, want) != 0)
		fail_msg("cut '%s' out of '%s': '%s', want '%s'", pattern, name,
		    got, want);
	for (uint32_t s = 0; s < t->nstrings; s++)
		free(cut[s]);
	free(cut);
	free(v);
	regex_free(re);
	trace_free(t);
}

static void
test_cut(void **state)
{
	(void)state;
	cut_one("[0-9]+", "render<12, 3>", "render<, >");
	cut_one("0x[0-9a-f]+", "jit@0x7f00ab stub", "jit@ stub");
	cut_one("[0-9]*", "a1b22c", "abc");	/* empty matches step over */
	cut_one("x*", "abc", "abc");
	cut_one("(?=b)", "abc", "abc");
	cut_one("é", "caféé!", "caf!");
	cut_one("[0-9]*", "ü1ü", "üü");	/* a character at a time */
	cut_one("a\\Kb", "abab", "aa");
	cut_one("^", "", "");
	cut_one("zz", "abc", "abc");
}

static void
test_min_change(void **state)
{
	(void)state;
	ttv_ns abs;
	double rel;
	char *err = NULL;
	assert_int_equal(diff_min_change_parse("10us,2%", &abs, &rel, &err), 0);
	assert_int_equal(abs, 10000);
	assert_true(fabs(rel - 0.02) < 1e-12);
	assert_int_equal(diff_min_change_parse("2.5%", &abs, &rel, &err), 0);
	assert_int_equal(abs, 0);
	assert_true(fabs(rel - 0.025) < 1e-12);
	assert_int_equal(diff_min_change_parse("0", &abs, &rel, &err), 0);
	assert_int_equal(abs, 0);
	assert_true(rel == 0);
	assert_int_equal(diff_min_change_parse("1ms", &abs, &rel, &err), 0);
	assert_int_equal(abs, 1000000);
	const char *bad[] = { "", ",", "1us,", "1us,2us", "1%,2%", "-1us",
	    "+1us", "x%", "%", "1us,,2%", "abc" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = NULL;
		if (diff_min_change_parse(bad[i], &abs, &rel, &err) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_non_null(err);
		free(err);
	}
	assert_int_equal(diff_by_parse("path"), DIFF_BY_PATH);
	assert_int_equal(diff_by_parse("paths"), -1);
	assert_int_equal(diff_norm_parse("total"), DIFF_NORM_TOTAL);
	assert_int_equal(diff_norm_parse(""), -1);
	assert_string_equal(diff_status_name(DIFF_ONLY_BASE), "only-base");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_by_name),
		cmocka_unit_test(test_key_funcs),
		cmocka_unit_test(test_noise_edges),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_by_path),
		cmocka_unit_test(test_strip_and_groups),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_held_names),
		cmocka_unit_test(test_stats_grouped),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_min_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
