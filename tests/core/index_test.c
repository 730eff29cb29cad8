/*
 * Unit tests of the persistent index (src/index_*.c): a model with every
 * kind of content written and mapped back is the same model, field by
 * field and through the queries, whether its large arrays are checked at
 * open or on first touch; damage anywhere in the file (flipped bits, cuts)
 * is refused or leaves the model unchanged, never crashes; the trace's
 * files are compared as the index recorded them.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builder.h"
#include "index.h"
#include "index_format.h"
#include "index_hash.h"
#include "index_store.h"
#include "query.h"
#include "query_info.h"
#include "scope.h"
#include "summary.h"
#include "xalloc.h"

/* ------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A model with every kind of content the index holds: nested calls,
 * depths of several blocks, a long duration, weights, instants with
 * args, counters, slice args, markers, flows, logs, records, metadata,
 * diagnostics, an async track, functions' addresses, calls that never
 * returned (one function has no other). */
static struct trace *
rich_trace_into(uint32_t deep_slices, struct index_store *store)
{
	struct builder *b = builder_new("/some/trace");
	builder_set_store(b, store);
	builder_set_format(b, "test", "1", "little-endian");
	builder_set_tick_rate(b, 1e9);
	builder_set_wall_origin(b, 1700000000000000000LL);
	func_id f[9];
	for (int i = 0; i < 9; i++) {
		char name[16];
		snprintf(name, sizeof name, "fn%d", i);
		f[i] = builder_func(b, builder_intern_cstr(b, name),
		    builder_intern_cstr(b, i % 2 ? "cat" : ""), i);
	}
	builder_func_addr(b, f[3], "/bin/prog", 0x401000);
	builder_func_addr(b, f[1], "/lib/libx.so", 0x2000);
	uint32_t p = builder_process(b, 42);
	builder_process_name(b, p, builder_intern_cstr(b, "proc"));
	uint32_t t0 = builder_track(b, TRACK_THREAD, p, 7);
	builder_track_name(b, t0, builder_intern_cstr(b, "main"));
	uint32_t t1 = builder_track(b, TRACK_THREAD, p, 8);
	uint32_t tc = builder_track(b, TRACK_COUNTER, p, 1);
	uint32_t ta = builder_track(b, TRACK_ASYNC, p, 99);
	uint32_t ts = builder_track(b, TRACK_THREAD, p, 9);

	ttv_ns now = 1000;
	struct slice_ref from = { 0 };
	for (uint32_t i = 0; i < deep_slices; i++) {
		builder_push(b, t0, now, f[0]);
		builder_push(b, t0, now + 1, f[1 + i % 3]);
		if (i % 100 == 0) {
			builder_args_begin(b);
			builder_arg_i64(b, builder_intern_cstr(b, "n"), i);
			builder_arg_str(b, builder_intern_cstr(b, "s"),
			    builder_intern_cstr(b, "text"));
			builder_push_args(b, t0, builder_args_end(b));
		}
		builder_pop(b, t0, now + 5 + (ttv_ns)(rng() % 7),
		    i % 701 == 3 ? SLICE_UNTERMINATED : 0);
		builder_pop(b, t0, now + 20, 0);
		if (i == 10)
			builder_last_slice(b, t0, &from);
		now += 25;
	}
	/* a long one (more than 4.29 s) */
	builder_push(b, t1, now, f[4]);
	builder_pop(b, t1, now + 6000000000LL, 0);
	builder_push(b, t1, now + 6000000001LL, f[5]);	/* left open */
	struct slice_ref to;
	builder_last_slice(b, t1, &to);
	builder_flow(b, 77, from, to);
	for (int i = 0; i < 50; i++) {
		builder_args_begin(b);
		builder_arg_f64(b, builder_intern_cstr(b, "x"), i * 0.5);
		builder_instant(b, t1, 2000 + i * 10, f[6],
		    builder_args_end(b));
		builder_counter(b, tc, 3000 + i, i * 1.25);
		builder_slice_weighted(b, ts, 0, 4000 + i * 10, 5, f[7], 0,
		    (uint32_t)i + 1);
	}
	builder_slice(b, ta, 0, 4000, 50, f[8], SLICE_NO_ENTRY, 0);
	builder_slice(b, ta, 0, 5000, 100, f[2], 0, 0);
	builder_marker(b, MARKER_BUFFER_START, t0, 1000, 0,
	    builder_intern_cstr(b, "buffer"));
	builder_marker(b, MARKER_DROPPED, UINT32_MAX, 1500, 12, 0);
	builder_log(b, t0, 1200, builder_intern_cstr(b, "a log line"));
	builder_count(b, "function-enter", 123);
	builder_count(b, "function-exit", 120);
	builder_meta(b, "key", "value");
	builder_warn(b, 64, "a warning");
	builder_error(b, 128, "an error");
	return builder_finish(b);
}

static struct trace *
rich_trace(uint32_t deep_slices)
{
	return rich_trace_into(deep_slices, NULL);
}

static void
same_bytes(const void *a, const void *b, size_t n)
{
	if (n > 0)
		assert_memory_equal(a, b, n);
}

static void
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static bool
same_trace(const struct trace *a, const struct trace *b, bool quiet)
{
#define EQ(x) do { if (quiet && (x) == 0) return false; assert_true(x); } \
	while (0)
#define MEM(p, q, n) do { if (quiet) { if ((n) > 0 && \
	memcmp((p), (q), (n)) != 0) return false; } else same_bytes(p, q, n); \
	} while (0)
	EQ(strcmp(a->path, b->path) == 0);
	EQ(strcmp(a->format, b->format) == 0);
	if (!quiet) {
		same_str(a->version, b->version);
		same_str(a->byte_order, b->byte_order);
	}
	EQ(a->ticks_per_second == b->ticks_per_second);
	EQ(a->wall_origin == b->wall_origin);
	EQ(a->first == b->first && a->last == b->last);
	EQ(a->complete_until == b->complete_until);
	EQ(a->nstrings == b->nstrings);
	for (uint32_t i = 0; i < a->nstrings; i++)
		EQ(strcmp(a->strings[i], b->strings[i]) == 0);
	EQ(a->nfuncs == b->nfuncs);
	MEM(a->funcs, b->funcs, a->nfuncs * sizeof *a->funcs);
	EQ(a->nfunc_addrs == b->nfunc_addrs);
	MEM(a->func_addrs, b->func_addrs,
	    a->nfunc_addrs * sizeof *a->func_addrs);
	EQ(a->nprocesses == b->nprocesses);
	for (uint32_t i = 0; i < a->nprocesses; i++)
		EQ(a->processes[i].pid == b->processes[i].pid &&
		    a->processes[i].name == b->processes[i].name);
	EQ(a->ntracks == b->ntracks);
	for (uint32_t i = 0; i < a->ntracks; i++) {
		const struct track *x = &a->tracks[i], *y = &b->tracks[i];
		EQ(x->kind == y->kind && x->process == y->process &&
		    x->tid == y->tid && x->name == y->name &&
		    x->first == y->first && x->last == y->last &&
		    x->ndepth == y->ndepth && x->nslices == y->nslices);
		for (uint32_t d = 0; d < x->ndepth; d++) {
			const struct depth_level *l = &x->depth[d],
			    *m = &y->depth[d];
			EQ(l->len == m->len && l->nlongs == m->nlongs);
			EQ((l->weights == NULL) == (m->weights == NULL));
			MEM(l->slices, m->slices, l->len * sizeof *l->slices);
			if (l->weights)
				MEM(l->weights, m->weights,
				    l->len * sizeof *l->weights);
			MEM(l->longs, m->longs, l->nlongs * sizeof *l->longs);
		}
		EQ(x->ninstants == y->ninstants);
		MEM(x->instants, y->instants, x->ninstants * sizeof *x->instants);
		EQ(x->nsamples == y->nsamples);
		MEM(x->samples, y->samples, x->nsamples * sizeof *x->samples);
		EQ(x->nslice_args == y->nslice_args);
		MEM(x->slice_args, y->slice_args,
		    x->nslice_args * sizeof *x->slice_args);
	}
	EQ(a->nmarkers == b->nmarkers);
	MEM(a->markers, b->markers, a->nmarkers * sizeof *a->markers);
	EQ(a->nflows == b->nflows);
	MEM(a->flows, b->flows, a->nflows * sizeof *a->flows);
	EQ(a->nlogs == b->nlogs);
	MEM(a->logs, b->logs, a->nlogs * sizeof *a->logs);
	EQ(a->nargs == b->nargs);
	MEM(a->args, b->args, a->nargs * sizeof *a->args);
	EQ(a->nrecords == b->nrecords);
	for (size_t i = 0; i < a->nrecords; i++)
		EQ(strcmp(a->records[i].kind, b->records[i].kind) == 0 &&
		    a->records[i].count == b->records[i].count);
	EQ(a->nmeta == b->nmeta);
	for (size_t i = 0; i < a->nmeta; i++)
		EQ(strcmp(a->meta_keys[i], b->meta_keys[i]) == 0 &&
		    strcmp(a->meta_values[i], b->meta_values[i]) == 0);
	EQ(a->ndiags == b->ndiags);
	for (size_t i = 0; i < a->ndiags; i++)
		EQ(a->diags[i].level == b->diags[i].level &&
		    strcmp(a->diags[i].text, b->diags[i].text) == 0);
	EQ(a->ndiags_dropped == b->ndiags_dropped);
	EQ(a->has_errors == b->has_errors);
	return true;
#undef EQ
#undef MEM
}

/* The index of t in a file of memory; returns its descriptor. */
static int
write_index(const struct trace *t)
{
	int fd = memfd_create("index", 0);
	char *err = NULL;
	assert_true(fd >= 0);
	assert_int_equal(index_write(fd, t, NULL, NULL, &err), 0);
	assert_null(err);
	return fd;
}

/* The same function tables: the stored one (whole trace) and one
 * computed from the mapped calls (a range over all of them). */
static void
same_stats(const struct trace *a, const struct trace *b)
{
	for (int range = 0; range < 2; range++) {
		struct stats_table x, y;
		ttv_ns t0 = range ? a->first : TTV_NS_MIN;
		ttv_ns t1 = range ? a->last + 1 : TTV_NS_MAX;
		query_stats(a, NULL, t0, t1, &x);
		query_stats(b, NULL, t0, t1, &y);
		assert_int_equal(x.n, y.n);
		assert_int_equal(x.unfinished, y.unfinished);
		same_bytes(x.rows, y.rows, x.n * sizeof *x.rows);
		stats_free(&x);
		stats_free(&y);
	}
}

/* The sums of a range (no percentiles) are query_stats' numbers. */
static void
same_sums(const struct stats_table *x, const struct stats_table *y)
{
	assert_int_equal(x->n, y->n);
	assert_int_equal(x->unfinished, y->unfinished);
	for (size_t i = 0; i < x->n; i++) {
		const struct func_stats *a = &x->rows[i], *b = &y->rows[i];
		assert_int_equal(a->func, b->func);
		assert_int_equal(a->count, b->count);
		assert_int_equal(a->unfinished, b->unfinished);
		assert_int_equal(a->weight, b->weight);
		assert_int_equal(a->total, b->total);
		assert_int_equal(a->self, b->self);
		assert_int_equal(a->min, b->min);
		assert_int_equal(a->max, b->max);
		assert_memory_equal(&a->longest, &b->longest,
		    sizeof a->longest);
	}
}

/* --info's lines (query_info.h): from the index's tables, over every
 * track, the same as from the calls; over some tracks, read from the
 * calls. With or without the tracks that have calls that never
 * returned (fn5 left open, fn8 whose entry is not in the trace: the
 * functions that have no other are counted apart). */
static void
same_info(const struct trace *a, const struct trace *b)
{
	for (int some = 0; some < 2; some++) {
		struct selection sel;
		struct info_lines x, y;
		selection_init(&sel);
		if (some) {
			sel.f.track_on = xcalloc(a->ntracks, 1);
			for (uint32_t i = 0; i < a->ntracks; i += 2)
				sel.f.track_on[i] = 1;
		}
		query_info(a, &sel, &x);
		query_info(b, &sel, &y);
		assert_int_equal(x.n, y.n);
		bool apart = false;
		for (size_t i = 0; i < x.n; i++) {
			assert_string_equal(x.lines[i], y.lines[i]);
			apart |= strcmp(x.lines[i], "  with unfinished calls "
			    "only: 2") == 0;
		}
		assert_true(apart || some);
		info_lines_free(&x);
		info_lines_free(&y);
		selection_clear(&sel);
	}
}

/* ------------------------------------------------------------ tests */

static void
test_roundtrip(void **state)
{
	(void)state;
	struct trace *t = rich_trace(3 * 4096 + 17);
	int fd = write_index(t);
	for (int check = 0; check < 2; check++) {
		struct trace *m = NULL;
		char *why = NULL;
		assert_int_equal(index_map(fd, NULL, check ? INDEX_CHECK_LAZY :
		    INDEX_CHECK_ALL, &m, &why, NULL), 0);
		assert_null(why);
		assert_non_null(m->backing);
		same_trace(t, m, false);
		same_stats(t, m);
		/* --info's flag counts, per track, as the calls say. */
		for (uint32_t i = 0; i < t->ntracks; i++) {
			uint64_t flagged[8] = { 0 };
			for (uint32_t d = 0; d < t->tracks[i].ndepth; d++)
				for (size_t k = 0; k < t->tracks[i].depth[d].len;
				    k++)
					for (uint32_t fl = t->tracks[i].depth[d].
					    slices[k].flags; fl; fl &= fl - 1)
						flagged[__builtin_ctz(fl)]++;
			assert_memory_equal(flagged,
			    m->summary->tracks[i].flagged, sizeof flagged);
		}
		assert_non_null(m->summary->called);
		same_info(t, m);
		/* Where functions' code is (source lines), by function. */
		assert_int_equal(m->nfunc_addrs, 2);
		const struct func_addr *fa = trace_func_addr(m, 3);
		assert_non_null(fa);
		assert_int_equal(fa->addr, 0x401000);
		assert_string_equal(m->strings[fa->binary], "/bin/prog");
		assert_null(trace_func_addr(m, 2));
		/* The calls that never returned, apart in the stored table. */
		struct stats_table st;
		query_stats(m, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
		assert_true(st.unfinished > 1);
		stats_free(&st);
		/* Ready to grow: the call left open on track 1 (fn5). */
		assert_non_null(m->summary);
		assert_int_equal(m->summary->nframes, 1);
		assert_int_equal(m->summary->frames[0].track, 1);
		assert_int_equal(m->summary->frames[0].depth, 0);
		assert_string_equal(trace_func_name(m,
		    m->summary->frames[0].func), "fn5");
		trace_free(m);
	}
	assert_false(index_damage_seen());
	close(fd);
	trace_free(t);
}

/* Built straight into the index's file (the store): the same model as
 * one built in memory, written and mapped back the same, also when a
 * depth grows past its first reservation and is sorted at the end. */
static void
test_store(void **state)
{
	(void)state;
	uint64_t seed = rng_state;
	struct trace *t = rich_trace(300 * 1024);
	rng_state = seed;
	int fd = memfd_create("store", 0);
	assert_true(fd >= 0);
	struct index_store *st = index_store_new(fd);
	struct trace *s = rich_trace_into(300 * 1024, st);
	assert_non_null(s->backing);
	same_trace(t, s, false);
	char *err = NULL;
	assert_int_equal(index_write(fd, s, NULL, st, &err), 0);
	struct trace *m = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &err, NULL),
	    0);
	same_trace(t, m, false);
	/* The depths of 300 K slices are in the file, in several extents,
	 * the file no larger than the model and its tables. */
	struct stat sb;
	assert_int_equal(fstat(fd, &sb), 0);
	assert_true((size_t)sb.st_size < trace_memory(t) * 11 / 10 + 65536);
	trace_free(m);
	trace_free(s);
	close(fd);

	/* Whole slices out of order in a stored depth: sorted in place. */
	fd = memfd_create("store", 0);
	st = index_store_new(fd);
	struct builder *b[2] = { builder_new("u"), builder_new("u") };
	builder_set_store(b[1], st);
	struct trace *u[2];
	for (int k = 0; k < 2; k++) {
		func_id f = builder_func(b[k], builder_intern_cstr(b[k], "f"),
		    0, -1);
		uint32_t tr = builder_track(b[k], TRACK_THREAD,
		    builder_process(b[k], 1), 1);
		for (uint32_t i = 0; i < 100000; i++) {
			uint32_t x = (i * 7919u) % 100000u;
			builder_slice(b[k], tr, 0, (ttv_ns)x * 10, 5, f, 0,
			    0);
		}
		u[k] = builder_finish(b[k]);
	}
	same_trace(u[0], u[1], false);
	for (size_t i = 1; i < u[1]->tracks[0].depth[0].len; i++)
		assert_true(u[1]->tracks[0].depth[0].slices[i - 1].start <=
		    u[1]->tracks[0].depth[0].slices[i].start);
	trace_free(u[0]);
	trace_free(u[1]);
	close(fd);

	/* A depth past its first reservation of addresses (64 MiB): moved,
	 * its chunks mapped again, its values where they were. */
	fd = memfd_create("store", 0);
	st = index_store_new(fd);
	struct builder *bb = builder_new("big");
	builder_set_store(bb, st);
	func_id f = builder_func(bb, builder_intern_cstr(bb, "f"), 0, -1);
	uint32_t tr = builder_track(bb, TRACK_THREAD, builder_process(bb, 1),
	    1);
	const uint32_t n = 4500000;
	for (uint32_t i = 0; i < n; i++)
		builder_slice(bb, tr, 0, (ttv_ns)i * 4, i % 3, f, 0, 0);
	struct trace *big = builder_finish(bb);
	assert_int_equal(big->tracks[0].depth[0].len, n);
	for (uint32_t i = 0; i < n; i += 1009) {
		assert_int_equal(big->tracks[0].depth[0].slices[i].start,
		    (ttv_ns)i * 4);
		assert_int_equal(big->tracks[0].depth[0].slices[i].dur32, i % 3);
	}
	assert_int_equal(index_write(fd, big, NULL, st, &err), 0);
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &err, NULL),
	    0);
	same_trace(big, m, false);
	trace_free(m);
	trace_free(big);
	close(fd);
	trace_free(t);
}

/* An empty model: no tracks, no functions. */
/* A range's table from the summaries: the same numbers as a scan, for
 * ranges anywhere, from a few calls to the whole trace; the summaries
 * are there (depths of several blocks and nodes above them). */
static void
test_summary_sums(void **state)
{
	(void)state;
	struct trace *t = rich_trace(40 * 1024 + 77);
	int fd = write_index(t);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &why, NULL),
	    0);
	assert_non_null(summary_level(m, 0, 0));
	uint64_t n;
	assert_non_null(summary_nodes(m, summary_level(m, 0, 0), 1, &n));
	assert_true(n > 1);
	for (int k = 0; k < 200; k++) {
		ttv_ns span = m->last - m->first + 1;
		ttv_ns t0 = m->first - 10 + (ttv_ns)(rng() % (uint64_t)span);
		ttv_ns len = k % 3 == 0 ? (ttv_ns)(rng() % 5000) :
		    (ttv_ns)(rng() % (uint64_t)span);
		struct stats_table x, y, z;
		query_stats(m, NULL, t0, t0 + len + 1, &x);
		query_stats_sums(m, NULL, t0, t0 + len + 1, &y);
		query_stats_sums(t, NULL, t0, t0 + len + 1, &z);
		same_sums(&x, &y);
		same_sums(&x, &z);
		stats_free(&x);
		stats_free(&y);
		stats_free(&z);
	}
	/* Self times of calls with many children: summed from the nodes. */
	for (uint32_t d = 0; d < t->tracks[0].ndepth; d++)
		for (size_t i = 0; i < t->tracks[0].depth[d].len; i += 997) {
			struct slice_ref r = { 0, d, (uint32_t)i };
			assert_int_equal(query_self_time(t, r),
			    query_self_time(m, r));
		}
	trace_free(m);
	close(fd);
	trace_free(t);
}

/* The self time of a call of thousands of children, from the nodes of
 * the depth below: the same as their sum. */
static void
test_summary_self(void **state)
{
	(void)state;
	struct builder *b = builder_new("wide");
	builder_set_format(b, "test", "1", NULL);
	func_id f = builder_func(b, builder_intern_cstr(b, "outer"), 0, -1);
	func_id g = builder_func(b, builder_intern_cstr(b, "inner"), 0, -1);
	uint32_t p = builder_process(b, 1);
	uint32_t tr = builder_track(b, TRACK_THREAD, p, 1);
	builder_push(b, tr, 0, f);
	for (int i = 0; i < 20000; i++) {
		builder_push(b, tr, 10 + i * 10, g);
		builder_pop(b, tr, 10 + i * 10 + 1 + (ttv_ns)(rng() % 8), 0);
	}
	builder_pop(b, tr, 300000, 0);
	struct trace *t = builder_finish(b);
	int fd = write_index(t);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &why, NULL),
	    0);
	assert_non_null(summary_level(m, 0, 1));
	struct slice_ref r = { 0, 0, 0 };
	assert_int_equal(query_self_time(t, r), query_self_time(m, r));
	ttv_ns sum = 0;
	for (size_t i = 0; i < t->tracks[0].depth[1].len; i++)
		sum += level_dur(&t->tracks[0].depth[1], i);
	assert_int_equal(query_self_time(m, r), 300000 - sum);
	trace_free(m);
	close(fd);
	trace_free(t);
}

/* A depth of many functions per block, whose entries would cost more
 * than the summaries' share of its calls: its nodes are kept without
 * them (SUM_NONE), so the timeline still shades it from their busy time
 * and widest calls, and the function tables read its calls. */
static void
test_summary_many(void **state)
{
	(void)state;
	struct builder *b = builder_new("many");
	builder_set_format(b, "test", "1", NULL);
	func_id f = builder_func(b, builder_intern_cstr(b, "outer"), 0, -1);
	func_id g[8];
	for (int k = 0; k < 8; k++) {
		char name[16];
		snprintf(name, sizeof name, "fn%d", k);
		g[k] = builder_func(b, builder_intern_cstr(b, name), 0, -1);
	}
	uint32_t p = builder_process(b, 1);
	uint32_t tr = builder_track(b, TRACK_THREAD, p, 1);
	builder_push(b, tr, 0, f);
	ttv_ns busy = 0, widest = 0;
	for (int i = 0; i < 20000; i++) {
		ttv_ns d = 1 + (ttv_ns)(rng() % 8);
		builder_push(b, tr, 10 + i * 10, g[i % 8]);
		builder_pop(b, tr, 10 + i * 10 + d, 0);
		busy += d;
		widest = d > widest ? d : widest;
	}
	builder_pop(b, tr, 300000, 0);
	struct trace *t = builder_finish(b);
	int fd = write_index(t);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &why, NULL),
	    0);
	const struct sum_level *sl = summary_level(m, 0, 1);
	assert_non_null(sl);
	uint64_t n;
	const struct sum_node *nd = summary_nodes(m, sl, 0, &n);
	assert_int_equal(n, (20000 + SUM_BLOCK - 1) / SUM_BLOCK);
	for (uint64_t k = 0; k < n; k++)
		assert_int_equal(nd[k].nentries, SUM_NONE);
	struct sum_column sc;
	assert_true(summary_column(m, 0, 1, 0, 300000, NULL, NULL, &sc));
	assert_int_equal(sc.busy, busy);
	assert_int_equal(sc.widest, widest);
	struct stats_table x, y;
	query_stats(t, NULL, 1000, 150000, &x);
	query_stats_sums(m, NULL, 1000, 150000, &y);
	same_sums(&x, &y);
	stats_free(&x);
	stats_free(&y);
	struct slice_ref r = { 0, 0, 0 };
	assert_int_equal(query_self_time(t, r), query_self_time(m, r));
	same_stats(t, m);
	trace_free(m);
	close(fd);
	trace_free(t);
}

/* A trace of more than a million calls on threads of unequal sizes: the
 * percentiles' passes run in the parts the summaries' walk made, each
 * worker on its own tracks, and the stored table is query_stats'
 * (durations copied and histogrammed, blocks with entries and blocks of
 * too many functions, calls that never returned, a CPU lane left out). */
static void
test_stats_parts(void **state)
{
	(void)state;
	setenv("TTV_THREADS", "2", 1);
	struct builder *b = builder_new("parts");
	builder_set_format(b, "test", "1", NULL);
	func_id f[40];
	for (int k = 0; k < 40; k++) {
		char name[16];
		snprintf(name, sizeof name, "fn%d", k);
		f[k] = builder_func(b, builder_intern_cstr(b, name), 0, -1);
	}
	uint32_t p = builder_process(b, 1);
	static const uint32_t calls[] = { 250000, 200000, 150000, 50000 };
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, p, 10 + k);
		ttv_ns now = 1000 + k;
		for (uint32_t i = 0; i < calls[k]; i++) {
			/* Blocks of a few functions, then of many; a few
			 * functions of rare calls (their durations copied). */
			uint32_t many = (i / 4096) % 2;
			bool rare = i % 1000 == 7;
			builder_push(b, tr, now, f[rng() % 3]);
			builder_push(b, tr, now + 1, f[rare ? 35 + (i / 1000) %
			    5 : 3 + rng() % (many ? 32 : 4)]);
			ttv_ns d = 1 + (ttv_ns)(rng() % (rare ? 1000000000 :
			    i % 5 ? 50 : 100000));
			builder_pop(b, tr, now + 1 + d, i % 997 == 5 ?
			    SLICE_UNTERMINATED : 0);
			builder_pop(b, tr, now + 2 + d + (ttv_ns)(rng() % 9),
			    0);
			now += d + 20;
		}
	}
	uint32_t cpu = builder_track(b, TRACK_CPU, p, 0);
	for (int i = 0; i < 1000; i++)
		builder_slice(b, cpu, 0, 1000 + i * 10, 5, f[i % 40], 0, 0);
	struct trace *t = builder_finish(b);
	int fd = write_index(t);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &why, NULL),
	    0);
	assert_true(m->summary->has_stats);
	same_stats(t, m);
	/* --info's functions called, as the calls say (no CPU lane's). */
	uint8_t *called = xcalloc(t->nfuncs, 1);
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t d = 0; d < t->tracks[i].ndepth &&
		    t->tracks[i].kind != TRACK_CPU; d++)
			for (size_t k = 0; k < t->tracks[i].depth[d].len; k++) {
				const struct slice *sl =
				    &t->tracks[i].depth[d].slices[k];
				called[sl->func] |= sl->flags & SLICE_INEXACT ?
				    SUM_UNFINISHED : SUM_CALLED;
			}
	assert_memory_equal(called, m->summary->called, t->nfuncs);
	assert_true(called[4] == (SUM_CALLED | SUM_UNFINISHED));
	free(called);
	trace_free(m);
	close(fd);
	trace_free(t);
	unsetenv("TTV_THREADS");
}

static void
test_empty(void **state)
{
	(void)state;
	struct trace *t = builder_finish(builder_new("empty"));
	int fd = write_index(t);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_equal(index_map(fd, NULL, INDEX_CHECK_ALL, &m, &why, NULL),
	    0);
	same_trace(t, m, false);
	trace_free(m);
	trace_free(t);
	close(fd);
}

/* The file's bytes, to damage copies of them. */
static unsigned char *
file_bytes(int fd, size_t *n)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	*n = (size_t)st.st_size;
	unsigned char *p = xmalloc(*n);
	assert_int_equal(pread(fd, p, *n, 0), (ssize_t)*n);
	return p;
}

static int
memfd_of(const unsigned char *p, size_t n)
{
	int fd = memfd_create("damaged", 0);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, p, n, 0), (ssize_t)n);
	return fd;
}

/* A flipped bit anywhere: refused, or (in bytes no check covers: the
 * gaps between tables) the same model. Checked at open. */
static void
test_flipped_bits(void **state)
{
	(void)state;
	struct trace *t = rich_trace(2 * 4096 + 5);
	int fd = write_index(t);
	size_t n;
	unsigned char *good = file_bytes(fd, &n);
	close(fd);
	size_t refused = 0, tried = 0;
	for (size_t off = 0; off < n; off += off < sizeof(struct idx_header) ?
	    1 : 1 + (size_t)(rng() % 997)) {
		unsigned char bit = (unsigned char)(1u << (rng() % 8));
		good[off] ^= bit;
		int dfd = memfd_of(good, n);
		good[off] ^= bit;
		struct trace *m = NULL;
		char *why = NULL;
		if (index_map(dfd, NULL, INDEX_CHECK_ALL, &m, &why, NULL) != 0) {
			assert_non_null(why);
			refused++;
			free(why);
		} else {
			assert_true(same_trace(t, m, true));
			trace_free(m);
		}
		close(dfd);
		tried++;
	}
	assert_true(refused > tried / 2);
	free(good);
	trace_free(t);
}

/* A cut anywhere is refused. */
static void
test_truncated(void **state)
{
	(void)state;
	struct trace *t = rich_trace(4096 + 3);
	int fd = write_index(t);
	size_t n;
	unsigned char *good = file_bytes(fd, &n);
	close(fd);
	for (size_t len = 0; len < n; len += 1 + (size_t)(rng() % 501)) {
		int dfd = memfd_of(good, len);
		struct trace *m = NULL;
		char *why = NULL;
		assert_int_not_equal(index_map(dfd, NULL, INDEX_CHECK_ALL, &m,
		    &why, NULL), 0);
		assert_non_null(why);
		free(why);
		close(dfd);
	}
	free(good);
	trace_free(t);
}

/* The header's own fields: each refused with its reason. */
static void
test_header(void **state)
{
	(void)state;
	struct trace *t = rich_trace(10);
	int fd = write_index(t);
	size_t n;
	unsigned char *good = file_bytes(fd, &n);
	close(fd);
	static const struct {
		size_t off;
		const char *why;
	} cases[] = {
		{ offsetof(struct idx_header, magic), "not an index" },
		{ offsetof(struct idx_header, bom), "byte order" },
		{ offsetof(struct idx_header, format_version), "another index "
		    "format" },
		{ offsetof(struct idx_header, model_version), "another model" },
		{ offsetof(struct idx_header, sizes), "structure layouts" },
		{ offsetof(struct idx_header, complete), "incomplete" },
		{ offsetof(struct idx_header, first), "damaged header" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned char *p = xmalloc(n);
		memcpy(p, good, n);
		p[cases[i].off] ^= 0x10;
		struct idx_header *h = (struct idx_header *)p;
		/* A foreign version comes with a good header hash: its
		 * writer made it so. */
		if (cases[i].off != offsetof(struct idx_header, first) &&
		    cases[i].off != offsetof(struct idx_header, complete))
			h->header_hash = index_hash(p + sizeof *h,
			    h->trace_len, index_hash(h,
			    offsetof(struct idx_header, header_hash), 0));
		int dfd = memfd_of(p, n);
		struct trace *m = NULL;
		char *why = NULL;
		assert_int_not_equal(index_map(dfd, NULL, INDEX_CHECK_ALL, &m,
		    &why, NULL), 0);
		assert_non_null(strstr(why, cases[i].why));
		free(why);
		close(dfd);
		free(p);
	}
	free(good);
	trace_free(t);
}

/* Damage in a large array seen only when a block is first read: the
 * block is replaced by safe values, damage is said, nothing crashes. */
static void
test_lazy_damage(void **state)
{
	(void)state;
	struct trace *t = rich_trace(4 * 4096);
	int fd = write_index(t);
	size_t n;
	unsigned char *p = file_bytes(fd, &n);
	close(fd);
	/* The first depth's slices start on page 1: a function id out of
	 * range and a start out of order in its second block. */
	struct slice *s = (struct slice *)(p + 4096) + 4096 + 10;
	s[0].func = 0xffffff;
	s[1].start = -5;
	int dfd = memfd_of(p, n);
	struct trace *m = NULL;
	char *why = NULL;
	assert_int_not_equal(index_map(dfd, NULL, INDEX_CHECK_ALL, &m, &why,
	    NULL), 0);
	free(why);
	assert_int_equal(index_map(dfd, NULL, INDEX_CHECK_LAZY, &m, &why,
	    NULL), 0);
	assert_false(index_damage_seen());
	/* The first block reads as written. */
	assert_int_equal(m->tracks[0].depth[0].slices[5].start,
	    t->tracks[0].depth[0].slices[5].start);
	assert_false(index_damage_seen());
	/* Over a range: the whole trace's table is stored and reads no
	 * call. */
	struct stats_table st;
	query_stats(m, NULL, m->first, m->last + 1, &st);
	stats_free(&st);
	assert_true(index_damage_seen());
	const struct slice *r = &m->tracks[0].depth[0].slices[4096 + 10];
	assert_true(r[0].func < m->nfuncs);
	assert_true(r[1].start >= r[0].start);
	trace_free(m);
	close(dfd);
	free(p);
	trace_free(t);
}

/* The trace's files: the same, changed, grown, gone. */
static void
test_sources(void **state)
{
	(void)state;
	char dir[] = "/tmp/ttv-index-test.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *file = xasprintf("%s/trace", dir);
	char *absent = xasprintf("%s/nothing", dir);
	FILE *fp = fopen(file, "w");
	for (int i = 0; i < 20000; i++)
		fprintf(fp, "line %d\n", i);
	fclose(fp);

	struct trace *t = rich_trace(10);
	struct index_ident id = { .program_id = 1, .options_hash = 2 };
	index_sources_add(&id.sources, file);
	index_sources_add(&id.sources, absent);
	index_sources_done(&id.sources);
	int fd = memfd_create("index", 0);
	char *err = NULL;
	assert_int_equal(index_write(fd, t, &id, NULL, &err), 0);

	struct trace *m = NULL;
	char *why = NULL;
	bool grew;
	assert_int_equal(index_map(fd, &id, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	trace_free(m);

	/* another build, other options */
	struct index_ident other = id;
	other.program_id = 9;
	assert_int_not_equal(index_map(fd, &other, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	assert_non_null(strstr(why, "another build"));
	free(why);
	other = id;
	other.options_hash = 9;
	assert_int_not_equal(index_map(fd, &other, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	assert_non_null(strstr(why, "other options"));
	free(why);

	/* appended to: said as growth */
	fp = fopen(file, "a");
	fputs("more\n", fp);
	fclose(fp);
	struct index_ident now = { .program_id = 1, .options_hash = 2 };
	index_sources_add(&now.sources, file);
	index_sources_add(&now.sources, absent);
	index_sources_done(&now.sources);
	assert_int_not_equal(index_map(fd, &now, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	assert_true(grew);
	assert_non_null(strstr(why, "grew"));
	free(why);
	index_sources_free(&now.sources);

	/* rewritten in its first bytes: not growth */
	fp = fopen(file, "r+");
	fputs("LINE", fp);
	fclose(fp);
	index_sources_add(&now.sources, file);
	index_sources_add(&now.sources, absent);
	index_sources_done(&now.sources);
	assert_int_not_equal(index_map(fd, &now, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	assert_false(grew);
	free(why);
	index_sources_free(&now.sources);

	/* a file that was absent appears */
	fp = fopen(absent, "w");
	fclose(fp);
	index_sources_add(&now.sources, file);
	index_sources_add(&now.sources, absent);
	index_sources_done(&now.sources);
	assert_int_not_equal(index_map(fd, &now, INDEX_CHECK_ALL, &m, &why,
	    &grew), 0);
	assert_non_null(strstr(why, "appeared"));
	free(why);
	index_sources_free(&now.sources);

	close(fd);
	index_sources_free(&id.sources);
	unlink(file);
	unlink(absent);
	rmdir(dir);
	free(file);
	free(absent);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_summary_sums),
		cmocka_unit_test(test_summary_self),
		cmocka_unit_test(test_summary_many),
		cmocka_unit_test(test_stats_parts),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped_bits),
		cmocka_unit_test(test_sources),
		/* last: damage, once seen, is seen for the process */
		cmocka_unit_test(test_lazy_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
