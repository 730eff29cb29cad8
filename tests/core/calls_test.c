/*
 * Unit tests of the call queries (query_calls.h) and of the call tree and
 * statistics under a time range: random traces with recursion are built
 * through the builder while the test keeps its own list of the calls
 * (with each call's parent), and every answer is checked against a
 * brute-force one computed from that list, whole, in random ranges and
 * with filters; a few small traces check the rules by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "export.h"
#include "query.h"
#include "query_calls.h"
#include "range.h"
#include "xalloc.h"

/* ------------------------------------------------------------ reference */

struct call {
	uint32_t track, depth;
	ttv_ns start, end;
	func_id func;
	size_t parent;		/* SIZE_MAX: outermost */
	uint32_t index;		/* in its depth's array */
	bool inexact;
};

struct ref {
	struct call *c;
	size_t n, cap;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A random trace: ntracks threads, nfuncs functions (few: recursion is
 * common), calls nested up to 12 deep; a child may start with its parent,
 * no call has zero length; one call in 200 is left unterminated at the
 * end of its track. */
static struct trace *
make_trace(struct ref *ref, uint32_t ntracks, uint32_t nfuncs, int events)
{
	struct builder *b = builder_new("calls");
	builder_set_format(b, "test", "1", NULL);
	func_id funcs[32];
	for (uint32_t i = 0; i < nfuncs; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%u", i);
		funcs[i] = builder_func(b, builder_intern_cstr(b, name), 0, i);
	}
	uint32_t proc = builder_process(b, 7);
	memset(ref, 0, sizeof *ref);
	for (uint32_t tr = 0; tr < ntracks; tr++) {
		uint32_t track = builder_track(b, TRACK_THREAD, proc, 500 + tr);
		size_t open[16], nopen = 0;
		uint32_t next_index[16] = { 0 };
		ttv_ns now = 1000 + 37 * (ttv_ns)tr;
		bool leave_open = false;
		for (int e = 0; e < events || (nopen > 0 && !leave_open); e++) {
			bool push = e < events && nopen < 12 &&
			    (nopen == 0 || rng() % 2 == 0);
			if (push) {
				now += (ttv_ns)(rng() % 30);
				func_id f = funcs[rng() % nfuncs];
				builder_push(b, track, now, f);
				if (ref->n == ref->cap) {
					ref->cap = ref->cap ? ref->cap * 2 : 256;
					ref->c = xreallocarray(ref->c, ref->cap,
					    sizeof *ref->c);
				}
				ref->c[ref->n] = (struct call){ tr,
				    (uint32_t)nopen, now, 0, f,
				    nopen ? open[nopen - 1] : SIZE_MAX,
				    next_index[nopen]++, false };
				open[nopen++] = ref->n++;
			} else {
				if (e >= events && rng() % 200 == 0) {
					leave_open = true;
					break;
				}
				now += 1 + (ttv_ns)(rng() % 30);
				ref->c[open[--nopen]].end = now;
				assert_true(builder_pop(b, track, now, 0));
			}
		}
		/* still open: they end at the track's end, unmeasured */
		builder_track_touch(b, track, now + 5);
		while (nopen > 0) {
			struct call *c = &ref->c[open[--nopen]];
			c->end = now + 5;
			c->inexact = true;
		}
	}
	return builder_finish(b);
}

static ttv_ns
clip(const struct call *c, ttv_ns t0, ttv_ns t1)
{
	ttv_ns a = c->start > t0 ? c->start : t0;
	ttv_ns b = c->end < t1 ? c->end : t1;
	return b > a ? b - a : 0;
}

static bool
in_range(const struct call *c, ttv_ns t0, ttv_ns t1)
{
	return c->start < t1 && (c->end > t0 ||
	    (c->end == c->start && c->start >= t0));
}

/* The clipped time of a call's direct children. */
static ttv_ns
children_time(const struct ref *ref, size_t i, ttv_ns t0, ttv_ns t1)
{
	ttv_ns sum = 0;
	for (size_t j = i + 1; j < ref->n && ref->c[j].track == ref->c[i].track &&
	    ref->c[j].depth > ref->c[i].depth; j++)
		if (ref->c[j].parent == i)
			sum += clip(&ref->c[j], t0, t1);
	return sum;
}

static struct slice_ref
ref_of(const struct call *c)
{
	return (struct slice_ref){ c->track, c->depth, c->index };
}

/* The call of a slice: calls at one depth of a track are made in the
 * order of their index, so a binary search on (track, depth, index) in a
 * sorted copy finds it. */
static const struct ref *find_ref;
static size_t *find_order;

static int
cmp_place(const void *a, const void *b)
{
	const struct call *x = &find_ref->c[*(const size_t *)a];
	const struct call *y = &find_ref->c[*(const size_t *)b];
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static const struct call *
find_call(const struct ref *ref, struct slice_ref r)
{
	if (find_ref != ref) {
		free(find_order);
		find_ref = ref;
		find_order = xmalloc(ref->n * sizeof *find_order);
		for (size_t i = 0; i < ref->n; i++)
			find_order[i] = i;
		qsort(find_order, ref->n, sizeof *find_order, cmp_place);
	}
	size_t lo = 0, hi = ref->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct call *c = &ref->c[find_order[mid]];
		int d = c->track != r.track ? (c->track < r.track ? -1 : 1) :
		    c->depth != r.depth ? (c->depth < r.depth ? -1 : 1) :
		    c->index != r.index ? (c->index < r.index ? -1 : 1) : 0;
		if (d == 0)
			return c;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Forgets the index of a ref about to be freed. */
static void
find_forget(void)
{
	free(find_order);
	find_order = NULL;
	find_ref = NULL;
}

/* ------------------------------------------------------------ instances */

static void check_butterfly(const struct trace *t, const struct ref *ref,
    const uint8_t *match, ttv_ns t0, ttv_ns t1);

static void
check_instances(const struct trace *t, const struct ref *ref,
    const struct filter *f, const uint8_t *match, const uint8_t *tracks,
    ttv_ns t0, ttv_ns t1)
{
	struct instance_list l;
	query_instances(t, f, match, t0, t1, &l);
	size_t want = 0;
	ttv_ns total = 0;
	for (size_t i = 0; i < ref->n; i++) {
		const struct call *c = &ref->c[i];
		if (!match[c->func] || c->inexact || !in_range(c, t0, t1) ||
		    (tracks && !tracks[c->track]) ||
		    (f && f->func_on && !f->func_on[c->func]))
			continue;
		want++;
		total += clip(c, t0, t1);
	}
	assert_int_equal(l.n, want);
	assert_int_equal(l.total, total);
	/* each item is the call it names, with its clipped times */
	for (size_t k = 0; k < l.n; k++) {
		const struct call_instance *it = &l.items[k];
		const struct call *c = find_call(ref, it->ref);
		assert_non_null(c);
		assert_true(match[c->func]);
		ttv_ns d = clip(c, t0, t1);
		ttv_ns ch = children_time(ref, (size_t)(c - ref->c), t0, t1);
		assert_int_equal(it->dur, d);
		assert_int_equal(call_instance_self(t, it, t0, t1),
		    d > ch ? d - ch : 0);
		/* items by track, then start, then depth */
		if (k > 0) {
			const struct call_instance *p = &l.items[k - 1];
			ttv_ns ps = trace_slice(t, p->ref)->start;
			assert_true(p->ref.track < it->ref.track ||
			    (p->ref.track == it->ref.track && (ps < c->start ||
			    (ps == c->start && (p->ref.depth < it->ref.depth ||
			    (p->ref.depth == it->ref.depth &&
			    p->ref.index < it->ref.index))))));
		}
	}
	/* slowest first, ties in items order; percentiles as account's */
	for (size_t k = 1; k < l.n; k++) {
		const struct call_instance *a = &l.items[l.order[k - 1]];
		const struct call_instance *b = &l.items[l.order[k]];
		assert_true(a->dur > b->dur || (a->dur == b->dur &&
		    l.order[k - 1] < l.order[k]));
	}
	if (l.n > 0) {
		ttv_ns *d = xmalloc(l.n * sizeof *d);
		for (size_t k = 0; k < l.n; k++)
			d[k] = l.items[l.order[l.n - 1 - k]].dur;
		assert_int_equal(l.min, d[0]);
		assert_int_equal(l.max, d[l.n - 1]);
		assert_int_equal(l.p50, d[l.n / 2]);
		assert_int_equal(l.p90, d[(size_t)(0.9 * (double)l.n)]);
		assert_int_equal(l.p99, d[(size_t)(0.99 * (double)l.n)]);
		free(d);
	}
	instances_free(&l);
}

static uint8_t *
mask_of(const struct trace *t, const char *re_text)
{
	char *err = NULL;
	struct regex *re = regex_compile(re_text, &err);
	assert_non_null(re);
	uint8_t *m = regex_match_funcs(t, re);
	regex_free(re);
	return m;
}

static void
test_instances_random(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 3, 4, 3000);
	uint8_t *m = mask_of(t, "^f[12]$");
	check_instances(t, &ref, NULL, m, NULL, TTV_NS_MIN, TTV_NS_MAX);
	/* ranges: edges cut calls, the zero-width edge cases */
	for (int r = 0; r < 20; r++) {
		ttv_ns len = t->last - t->first;
		ttv_ns t0 = t->first + (ttv_ns)(rng() % (uint64_t)len);
		ttv_ns t1 = t0 + 1 + (ttv_ns)(rng() % (uint64_t)(len / 4));
		check_instances(t, &ref, NULL, m, NULL, t0, t1);
	}
	/* a thread filter, and a function filter hiding f2 */
	struct filter f;
	filter_init(&f);
	int64_t tid = 501;
	filter_set_threads(&f, t, &tid, 1, false);
	uint8_t tracks[3] = { 0, 1, 0 };
	check_instances(t, &ref, &f, m, tracks, TTV_NS_MIN, TTV_NS_MAX);
	filter_clear(&f);
	char *err = NULL;
	struct regex *re = regex_compile("^f2$", &err);
	filter_set_functions(&f, t, re, true);
	check_instances(t, &ref, &f, m, NULL, t->first + 500, t->last - 900);
	regex_free(re);
	filter_clear(&f);
	free(m);
	find_forget();
	free(ref.c);
	trace_free(t);
}

/* More than 2^20 slices: the chunks are shared out between threads and
 * the answer must not change. */
static void
test_instances_big(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 4, 3, 700000);
	assert_true(trace_nslices(t) > (1u << 20));
	uint8_t *m = mask_of(t, "^f0$");
	check_instances(t, &ref, NULL, m, NULL, TTV_NS_MIN, TTV_NS_MAX);
	ttv_ns len = t->last - t->first;
	check_instances(t, &ref, NULL, m, NULL, t->first + len / 3,
	    t->first + len / 2);
	check_butterfly(t, &ref, m, TTV_NS_MIN, TTV_NS_MAX);
	check_butterfly(t, &ref, m, t->first + len / 5, t->first + len / 2);
	free(m);
	find_forget();
	free(ref.c);
	trace_free(t);
}

/* Durations and starts spread over 20 to 44 bits: the sorts take one to
 * four passes of digits, an odd and an even number, on several workers. */
static void
test_instances_wide_keys(void **state)
{
	(void)state;
	for (unsigned bits = 20; bits <= 44; bits += 8) {
		struct builder *b = builder_new("wide");
		func_id fn[2] = {
			builder_func(b, builder_intern_cstr(b, "a"), 0, 0),
			builder_func(b, builder_intern_cstr(b, "b"), 0, 1),
		};
		uint32_t proc = builder_process(b, 1);
		struct ref ref = { 0 };
		for (uint32_t tr = 0; tr < 2; tr++) {
			uint32_t track = builder_track(b, TRACK_THREAD, proc,
			    10 + tr);
			ttv_ns now = 0;
			for (uint32_t i = 0; i < 160000; i++) {
				ttv_ns d = (ttv_ns)(rng() % ((uint64_t)1 << bits));
				if (i % 7 == 0)
					d = 12345;	/* ties */
				func_id f = fn[rng() % 2];
				builder_push(b, track, now, f);
				builder_pop(b, track, now + d, 0);
				if (ref.n == ref.cap) {
					ref.cap = ref.cap ? ref.cap * 2 : 1024;
					ref.c = xreallocarray(ref.c, ref.cap,
					    sizeof *ref.c);
				}
				ref.c[ref.n++] = (struct call){ tr, 0, now,
				    now + d, f, SIZE_MAX, i, false };
				now += d + (ttv_ns)(rng() % 3);
			}
		}
		struct trace *t = builder_finish(b);
		uint8_t m[2] = { 1, 1 };
		check_instances(t, &ref, NULL, m, NULL, TTV_NS_MIN, TTV_NS_MAX);
		struct instance_list l;
		query_instances(t, NULL, m, TTV_NS_MIN, TTV_NS_MAX, &l);
		instances_sort(t, &l, INSTANCES_BY_START, false);
		for (size_t k = 1; k < l.n; k++) {
			const struct call_instance *x = &l.items[l.order[k - 1]];
			const struct call_instance *y = &l.items[l.order[k]];
			ttv_ns sx = trace_slice(t, x->ref)->start;
			ttv_ns sy = trace_slice(t, y->ref)->start;
			assert_true(sx < sy || (sx == sy &&
			    l.order[k - 1] < l.order[k]));
		}
		instances_free(&l);
		find_forget();
		free(ref.c);
		trace_free(t);
	}
}

static void
test_instances_order_and_step(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 2, 3, 2000);
	uint8_t *m = mask_of(t, "^f1$");
	struct instance_list l;
	query_instances(t, NULL, m, TTV_NS_MIN, TTV_NS_MAX, &l);
	assert_true(l.n > 100);
	/* by start: never decreasing; by thread: the items' order */
	instances_sort(t, &l, INSTANCES_BY_START, false);
	for (size_t k = 1; k < l.n; k++)
		assert_true(trace_slice(t, l.items[l.order[k - 1]].ref)->start <=
		    trace_slice(t, l.items[l.order[k]].ref)->start);
	instances_sort(t, &l, INSTANCES_BY_THREAD, true);
	for (size_t k = 0; k < l.n; k++)
		assert_int_equal(l.order[k], l.n - 1 - k);
	instances_sort(t, &l, INSTANCES_BY_DURATION, true);
	for (size_t k = 0; k < l.n; k++)
		assert_int_equal(l.order[k], l.by_dur[l.n - 1 - k]);
	instances_sort(t, &l, INSTANCES_BY_DURATION, false);
	assert_ptr_equal(l.order, l.by_dur);
	assert_int_equal(instances_key_parse("start"), INSTANCES_BY_START);
	assert_int_equal(instances_key_parse("bogus"), -1);

	/* stepping faster from the slowest visits the whole list in order,
	 * and slower from the fastest visits it backwards */
	struct slice_ref r = l.items[l.by_dur[0]].ref, nx;
	assert_false(instances_step(t, &l, r, true, &nx));
	for (size_t k = 1; k < l.n; k++) {
		assert_true(instances_step(t, &l, r, false, &nx));
		assert_memory_equal(&nx, &l.items[l.by_dur[k]].ref, sizeof nx);
		r = nx;
	}
	assert_false(instances_step(t, &l, r, false, &nx));
	for (size_t k = l.n - 1; k-- > 0;) {
		assert_true(instances_step(t, &l, r, true, &nx));
		assert_memory_equal(&nx, &l.items[l.by_dur[k]].ref, sizeof nx);
		r = nx;
	}
	/* from a call of another function: placed by its duration */
	for (size_t i = 0; i < ref.n; i++) {
		const struct call *c = &ref.c[i];
		if (m[c->func])
			continue;
		ttv_ns d = c->end - c->start;
		bool up = instances_step(t, &l, ref_of(c), true, &nx);
		if (up)
			assert_true(trace_slice_dur(t, nx) >= d);
		else
			assert_true(l.max <= d);
		bool down = instances_step(t, &l, ref_of(c), false, &nx);
		if (down)
			assert_true(trace_slice_dur(t, nx) <= d);
		else
			assert_true(l.min >= d);
	}

	/* the histogram holds every call once, on increasing edges */
	struct instance_histogram h;
	instances_histogram(&l, 20, &h);
	assert_true(h.n >= 1 && h.n <= 20);
	uint64_t sum = 0, peak = 0;
	for (size_t b = 0; b < h.n; b++) {
		assert_true(h.edge[b] < h.edge[b + 1] ||
		    (b + 1 == h.n && h.edge[b] <= h.edge[b + 1]));
		sum += h.count[b];
		peak = h.count[b] > peak ? h.count[b] : peak;
		uint64_t in = 0;
		for (size_t k = 0; k < l.n; k++) {
			ttv_ns d = l.items[k].dur;
			in += d >= h.edge[b] && (d < h.edge[b + 1] ||
			    (b + 1 == h.n && d == h.edge[b + 1]));
		}
		assert_int_equal(h.count[b], in);
	}
	assert_int_equal(sum, l.n);
	assert_int_equal(h.peak, peak);
	assert_int_equal(h.edge[0], l.min);
	assert_int_equal(h.edge[h.n], l.max);
	assert_true(l.p50 >= h.edge[h.p50] && (h.p50 + 1 == h.n ||
	    l.p50 < h.edge[h.p50 + 1]));
	assert_true(l.p99 >= h.edge[h.p99] && (h.p99 + 1 == h.n ||
	    l.p99 < h.edge[h.p99 + 1]));
	instance_histogram_free(&h);
	instances_free(&l);
	free(m);
	find_forget();
	free(ref.c);
	trace_free(t);
}

/* ------------------------------------------------------------ butterfly */

/* An ancestor of call i (not i) with a function in `is` whose parent's
 * function is `pf` (UINT32_MAX: any parent, or none). */
static bool
has_ancestor(const struct ref *ref, size_t i, const uint8_t *is, uint32_t pf)
{
	for (size_t a = ref->c[i].parent; a != SIZE_MAX; a = ref->c[a].parent) {
		if (!is[ref->c[a].func])
			continue;
		if (pf == UINT32_MAX)
			return true;
		size_t p = ref->c[a].parent;
		if (p != SIZE_MAX && ref->c[p].func == pf)
			return true;
	}
	return false;
}

static const struct call_edge *
find_edge(const struct call_edge *e, size_t n, func_id f)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].func == f)
			return &e[i];
	return NULL;
}

static void
check_butterfly(const struct trace *t, const struct ref *ref,
    const uint8_t *match, ttv_ns t0, ttv_ns t1)
{
	struct butterfly bf;
	query_butterfly(t, NULL, match, t0, t1, &bf);
	uint32_t nf = t->nfuncs;
	uint64_t *cc = xcalloc(nf + 1, sizeof *cc), *ec = xcalloc(nf, sizeof *ec);
	ttv_ns *ct = xcalloc(nf + 1, sizeof *ct), *et = xcalloc(nf, sizeof *et);
	uint64_t count = 0, outer = 0;
	ttv_ns total = 0, self = 0;
	uint8_t *one = xcalloc(nf, 1);
	for (size_t i = 0; i < ref->n; i++) {
		const struct call *c = &ref->c[i];
		if (!match[c->func] || !in_range(c, t0, t1))
			continue;
		ttv_ns d = clip(c, t0, t1);
		count++;
		if (!has_ancestor(ref, i, match, UINT32_MAX)) {
			outer++;
			total += d;
		}
		ttv_ns ch = children_time(ref, i, t0, t1);
		self += d > ch ? d - ch : 0;
		/* the caller edge: once per outermost call along it */
		uint32_t pf = c->parent == SIZE_MAX ? nf :
		    ref->c[c->parent].func;
		cc[pf]++;
		if (pf == nf || !has_ancestor(ref, i, match, pf))
			ct[pf] += d;
		/* the callee edges */
		for (size_t j = i + 1; j < ref->n && ref->c[j].track == c->track &&
		    ref->c[j].depth > c->depth; j++) {
			const struct call *k = &ref->c[j];
			if (k->parent != i || !in_range(k, t0, t1))
				continue;
			ec[k->func]++;
			memset(one, 0, nf);
			one[k->func] = 1;
			/* inside another call of k's function made by one
			 * of the functions? */
			bool nested = false;
			for (size_t a = k->parent; a != SIZE_MAX;
			    a = ref->c[a].parent) {
				size_t p = ref->c[a].parent;
				if (one[ref->c[a].func] && p != SIZE_MAX &&
				    match[ref->c[p].func])
					nested = true;
			}
			if (!nested)
				et[k->func] += clip(k, t0, t1);
		}
	}
	assert_int_equal(bf.count, count);
	assert_int_equal(bf.outermost, outer);
	assert_int_equal(bf.total, total);
	assert_int_equal(bf.self, self);
	size_t ncallers = 0, ncallees = 0;
	for (uint32_t f = 0; f <= nf; f++) {
		if (cc[f] == 0)
			continue;
		ncallers++;
		const struct call_edge *e = find_edge(bf.callers, bf.ncallers,
		    f == nf ? CALL_NONE : f);
		assert_non_null(e);
		assert_int_equal(e->count, cc[f]);
		assert_int_equal(e->total, ct[f]);
	}
	for (uint32_t f = 0; f < nf; f++) {
		if (ec[f] == 0)
			continue;
		ncallees++;
		const struct call_edge *e = find_edge(bf.callees, bf.ncallees, f);
		assert_non_null(e);
		assert_int_equal(e->count, ec[f]);
		assert_int_equal(e->total, et[f]);
	}
	assert_int_equal(bf.ncallers, ncallers);
	assert_int_equal(bf.ncallees, ncallees);
	for (size_t i = 1; i < bf.ncallers; i++)
		assert_true(bf.callers[i - 1].total >= bf.callers[i].total);
	butterfly_free(&bf);
	free(cc);
	free(ec);
	free(ct);
	free(et);
	free(one);
}

static void
test_butterfly_random(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 2, 4, 2500);
	const char *sets[] = { "^f0$", "^f[13]$", "." };
	for (size_t s = 0; s < 3; s++) {
		uint8_t *m = mask_of(t, sets[s]);
		check_butterfly(t, &ref, m, TTV_NS_MIN, TTV_NS_MAX);
		for (int r = 0; r < 8; r++) {
			ttv_ns len = t->last - t->first;
			ttv_ns t0 = t->first + (ttv_ns)(rng() % (uint64_t)len);
			ttv_ns t1 = t0 + 1 + (ttv_ns)(rng() %
			    (uint64_t)(len / 3));
			check_butterfly(t, &ref, m, t0, t1);
		}
		free(m);
	}
	free(ref.c);
	trace_free(t);
}

/* The rules by hand: main -> f -> f -> g, and main -> f -> g -> f -> g. */
static void
test_butterfly_recursion(void **state)
{
	(void)state;
	struct builder *b = builder_new("rec");
	func_id mn = builder_func(b, builder_intern_cstr(b, "main"), 0, 0);
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, 1);
	func_id g = builder_func(b, builder_intern_cstr(b, "g"), 0, 2);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_push(b, tr, 0, mn);
	builder_push(b, tr, 10, f);	/* f: 10..100 */
	builder_push(b, tr, 20, f);	/* f: 20..80 */
	builder_push(b, tr, 30, g);	/* g: 30..40 */
	builder_pop(b, tr, 40, 0);
	builder_pop(b, tr, 80, 0);
	builder_pop(b, tr, 100, 0);
	builder_push(b, tr, 200, f);	/* f: 200..300 */
	builder_push(b, tr, 210, g);	/* g: 210..290 */
	builder_push(b, tr, 220, f);	/* f: 220..280 */
	builder_push(b, tr, 230, g);	/* g: 230..250 */
	builder_pop(b, tr, 250, 0);
	builder_pop(b, tr, 280, 0);
	builder_pop(b, tr, 290, 0);
	builder_pop(b, tr, 300, 0);
	builder_pop(b, tr, 400, 0);
	struct trace *t = builder_finish(b);
	uint8_t m[3] = { 0, 1, 0 };
	struct butterfly bf;
	query_butterfly(t, NULL, m, TTV_NS_MIN, TTV_NS_MAX, &bf);
	assert_int_equal(bf.count, 4);
	assert_int_equal(bf.outermost, 2);
	assert_int_equal(bf.total, 90 + 100);
	/* self: 10..20 + 80..100, 20..30 + 40..80, 200..210 + 290..300,
	 * 220..230 + 250..280 */
	assert_int_equal(bf.self, 30 + 50 + 20 + 40);
	const struct call_edge *e = find_edge(bf.callers, bf.ncallers, mn);
	assert_int_equal(e->count, 2);
	assert_int_equal(e->total, 190);
	e = find_edge(bf.callers, bf.ncallers, f);	/* f -> f */
	assert_int_equal(e->count, 1);
	assert_int_equal(e->total, 60);
	e = find_edge(bf.callers, bf.ncallers, g);	/* g -> f */
	assert_int_equal(e->count, 1);
	assert_int_equal(e->total, 60);
	assert_int_equal(bf.ncallers, 3);
	e = find_edge(bf.callees, bf.ncallees, g);	/* f -> g: the inner
							 * one is in the outer */
	assert_int_equal(e->count, 3);
	assert_int_equal(e->total, 10 + 80);
	e = find_edge(bf.callees, bf.ncallees, f);
	assert_int_equal(e->count, 1);
	assert_int_equal(e->total, 60);
	butterfly_free(&bf);

	/* a range cuts the second outer f: 250..400 */
	query_butterfly(t, NULL, m, 250, 400, &bf);
	assert_int_equal(bf.count, 2);	/* f 200..300 and f 220..280 */
	assert_int_equal(bf.total, 50);
	e = find_edge(bf.callees, bf.ncallees, g);
	assert_int_equal(e->count, 1);	/* g 230..250 is out */
	assert_int_equal(e->total, 40);
	butterfly_free(&bf);

	/* the call tree in the same range: times clipped */
	struct call_tree ct;
	query_call_tree(t, NULL, 250, 400, false, &ct);
	assert_int_equal(ct.nodes[0].total, 150);	/* main 250..400 */
	call_tree_free(&ct);
	trace_free(t);
}

/* ------------------------------------------------------------ call tree */

/* The brute-force tree: for each call, its path of (kept) functions;
 * nodes are compared by path. */
struct path_row {
	char path[256];
	uint64_t count;
	ttv_ns total, self;
};

static void
path_of(const struct trace *t, const struct ref *ref, size_t i,
    const uint8_t *hidden, bool per_thread, char *out, size_t size)
{
	size_t chain[64], n = 0;
	for (size_t a = i; a != SIZE_MAX; a = ref->c[a].parent)
		if (hidden == NULL || !hidden[ref->c[a].func])
			chain[n++] = a;
	out[0] = 0;
	if (per_thread)
		snprintf(out, size, "T%u", ref->c[i].track);
	while (n > 0) {
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s%s", len ? ";" : "",
		    trace_func_name(t, ref->c[chain[--n]].func));
	}
}

static void
check_tree(const struct trace *t, const struct ref *ref,
    const struct filter *f, const uint8_t *hidden, bool per_thread,
    ttv_ns t0, ttv_ns t1)
{
	VEC(struct path_row) rows = { 0 };
	for (size_t i = 0; i < ref->n; i++) {
		const struct call *c = &ref->c[i];
		if (!in_range(c, t0, t1))
			continue;
		/* a hidden call goes with all it called, its time stays in
		 * its caller's self */
		bool gone = false;
		for (size_t a = i; hidden && a != SIZE_MAX; a = ref->c[a].parent)
			gone |= hidden[ref->c[a].func];
		if (gone)
			continue;
		char p[256];
		path_of(t, ref, i, NULL, per_thread, p, sizeof p);
		size_t k = 0;
		while (k < rows.len && strcmp(rows.items[k].path, p) != 0)
			k++;
		if (k == rows.len) {
			struct path_row z = { .count = 0 };
			snprintf(z.path, sizeof z.path, "%s", p);
			VEC_PUSH(&rows, z);
		}
		ttv_ns d = clip(c, t0, t1);
		rows.items[k].count++;
		rows.items[k].total += d;
		ttv_ns ch = 0;
		for (size_t j = i + 1; j < ref->n &&
		    ref->c[j].track == c->track && ref->c[j].depth > c->depth;
		    j++)
			if (ref->c[j].parent == i && !(hidden &&
			    hidden[ref->c[j].func]))
				ch += clip(&ref->c[j], t0, t1);
		rows.items[k].self += d > ch ? d - ch : 0;
	}
	struct call_tree ct;
	query_call_tree(t, f, t0, t1, per_thread, &ct);
	/* nodes in depth-first order */
	for (size_t n = 1; n < ct.n; n++) {
		assert_true(ct.nodes[n].parent < n);
		if (ct.nodes[n].first_child != CALL_NONE)
			assert_int_equal(ct.nodes[n].first_child, n + 1);
	}
	size_t nodes = 0;
	for (size_t n = 1; n < ct.n; n++) {
		const struct call_node *c = &ct.nodes[n];
		if (c->func == CALL_NONE)
			continue;
		nodes++;
		char p[256] = "", tmp[320];
		for (uint32_t k = (uint32_t)n; k != 0 && k != CALL_NONE;
		    k = ct.nodes[k].parent) {
			const struct call_node *a = &ct.nodes[k];
			if (a->func == CALL_NONE)
				snprintf(tmp, sizeof tmp, "T%u%s%.255s",
				    a->track, p[0] ? ";" : "", p);
			else
				snprintf(tmp, sizeof tmp, "%.40s%s%.255s",
				    trace_func_name(t, a->func), p[0] ? ";" : "",
				    p);
			memcpy(p, tmp, sizeof p - 1);
			p[sizeof p - 1] = 0;
		}
		size_t k = 0;
		while (k < rows.len && strcmp(rows.items[k].path, p) != 0)
			k++;
		assert_true(k < rows.len);
		assert_int_equal(c->count, rows.items[k].count);
		assert_int_equal(c->total, rows.items[k].total);
		assert_int_equal(c->self, rows.items[k].self);
	}
	assert_int_equal(nodes, rows.len);
	call_tree_free(&ct);
	VEC_FREE(&rows);
}

static void
test_tree_random(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 3, 3, 1500);
	check_tree(t, &ref, NULL, NULL, false, TTV_NS_MIN, TTV_NS_MAX);
	check_tree(t, &ref, NULL, NULL, true, TTV_NS_MIN, TTV_NS_MAX);
	for (int r = 0; r < 6; r++) {
		ttv_ns len = t->last - t->first;
		ttv_ns t0 = t->first + (ttv_ns)(rng() % (uint64_t)len);
		ttv_ns t1 = t0 + 1 + (ttv_ns)(rng() % (uint64_t)(len / 3));
		check_tree(t, &ref, NULL, NULL, r % 2, t0, t1);
	}
	/* hiding f1: its frames and all they called are gone */
	struct filter f;
	filter_init(&f);
	char *err = NULL;
	struct regex *re = regex_compile("^f1$", &err);
	filter_set_functions(&f, t, re, true);
	uint8_t hidden[3] = { 0, 1, 0 };
	check_tree(t, &ref, &f, hidden, false, TTV_NS_MIN, TTV_NS_MAX);
	check_tree(t, &ref, &f, hidden, true, t->first + 300, t->last - 700);
	regex_free(re);
	filter_clear(&f);
	free(ref.c);
	trace_free(t);
}

/* The same tree whatever the number of chunks and threads. */
static void
test_tree_big(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 3, 3, 900000);
	assert_true(trace_nslices(t) > (1u << 20));
	struct call_tree ct;
	query_call_tree(t, NULL, TTV_NS_MIN, TTV_NS_MAX, false, &ct);
	/* the root's time is that of the outermost calls; every call is
	 * counted once and the self times add up to the root's time */
	ttv_ns top = 0, self = 0;
	uint64_t count = 0;
	for (size_t i = 0; i < ref.n; i++)
		if (ref.c[i].parent == SIZE_MAX)
			top += ref.c[i].end - ref.c[i].start;
	for (size_t n = 1; n < ct.n; n++) {
		count += ct.nodes[n].count;
		self += ct.nodes[n].self;
	}
	assert_int_equal(ct.nodes[0].total, top);
	assert_int_equal(count, ref.n);
	assert_int_equal(self, top);
	call_tree_free(&ct);
	free(ref.c);
	trace_free(t);
}

/* ----------------------------------------------------------- the range */

static void
test_range_parse(void **state)
{
	(void)state;
	struct builder *b = builder_new("r");
	func_id f = builder_func(b, builder_intern_cstr(b, "f"), 0, 0);
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	builder_push(b, tr, 1000000, f);
	builder_pop(b, tr, 11000000, 0);
	struct trace *t = builder_finish(b);	/* 1 ms .. 11 ms */
	struct range_spec r;
	char *err = NULL;
	ttv_ns t0, t1;
	assert_int_equal(range_parse("0..50us", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	assert_int_equal(t0, 1000000);
	assert_int_equal(t1, 1050000);
	assert_int_equal(range_parse("+1.2ms..+3ms", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	assert_int_equal(t0, 2200000);
	assert_int_equal(t1, 4000000);
	assert_int_equal(range_parse("-1ms..", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	assert_int_equal(t0, 10000000);
	assert_int_equal(t1, 11000001);	/* takes in what ends with it */
	assert_int_equal(range_parse(" .. 2 ms", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	assert_int_equal(t0, 1000000);
	assert_int_equal(t1, 3000000);
	assert_int_equal(range_parse("5ms..2ms", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), -1);
	assert_non_null(strstr(err, "empty range"));
	free(err);
	assert_int_equal(range_parse("5ms", &r, &err), -1);
	free(err);
	assert_int_equal(range_parse("5xs..6ms", &r, &err), -1);
	free(err);
	assert_int_equal(range_parse("1ms..2ms..3ms", &r, &err), -1);
	free(err);
	/* times as ttv prints them, +T from the start as T */
	assert_int_equal(range_parse("+1.200 000 ms..+3.000 000 ms", &r, &err),
	    0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	assert_int_equal(t0, 2200000);
	assert_int_equal(t1, 4000000);
	/* from the cursor: only where there is one */
	assert_int_equal(range_parse("<1ms..>1ms", &r, &err), 0);
	ttv_ns cursor = 5000000;
	assert_int_equal(range_resolve(t, &r, &cursor, &t0, &t1, &err), 0);
	assert_int_equal(t0, 4000000);
	assert_int_equal(t1, 6000000);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), -1);
	assert_non_null(strstr(err, "cursor"));
	free(err);
	/* past the end: a range of nothing, which a warning names */
	assert_int_equal(range_parse("20ms..30ms", &r, &err), 0);
	assert_int_equal(range_resolve(t, &r, NULL, &t0, &t1, &err), 0);
	char *w = range_outside(t, t0, t1);
	assert_non_null(w);
	assert_string_equal(w, "the range is past the trace's end: the trace "
	    "spans +0 ns .. +10.000 000 ms (10.0 ms)");
	free(w);
	assert_null(range_outside(t, 2000000, 30000000));

	/* search hits by the range rule */
	struct search_hit hits[3] = {
		{ 1000000, { tr, 0, 0 } },
		{ 5, { tr, SEARCH_INSTANT, 0 } },
		{ 20000000, { tr, SEARCH_INSTANT, 1 } },
	};
	assert_int_equal(search_in_range(t, hits, 3, 10000000, 10000001), 1);
	assert_int_equal(hits[0].ref.depth, 0);
	trace_free(t);
}

/* Statistics, call tree, instances and butterfly agree on one range. */
static void
test_range_agrees(void **state)
{
	(void)state;
	struct ref ref;
	struct trace *t = make_trace(&ref, 2, 3, 2000);
	ttv_ns len = t->last - t->first;
	ttv_ns t0 = t->first + len / 4, t1 = t->first + len / 2;
	struct stats_table st;
	query_stats(t, NULL, t0, t1, &st);
	for (size_t r = 0; r < st.n; r++) {
		uint8_t *m = xcalloc(t->nfuncs, 1);
		m[st.rows[r].func] = 1;
		struct instance_list l;
		query_instances(t, NULL, m, t0, t1, &l);
		assert_int_equal(l.n, st.rows[r].count);
		assert_int_equal(l.total, st.rows[r].total);
		assert_int_equal(l.max, st.rows[r].max);
		assert_int_equal(l.p90, st.rows[r].p90);
		ttv_ns self = 0;
		for (size_t k = 0; k < l.n; k++)
			self += call_instance_self(t, &l.items[k], t0, t1);
		assert_int_equal(self, st.rows[r].self);
		instances_free(&l);
		free(m);
	}
	stats_free(&st);
	free(ref.c);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances_random),
		cmocka_unit_test(test_instances_big),
		cmocka_unit_test(test_instances_wide_keys),
		cmocka_unit_test(test_instances_order_and_step),
		cmocka_unit_test(test_butterfly_random),
		cmocka_unit_test(test_butterfly_recursion),
		cmocka_unit_test(test_tree_random),
		cmocka_unit_test(test_tree_big),
		cmocka_unit_test(test_range_parse),
		cmocka_unit_test(test_range_agrees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
