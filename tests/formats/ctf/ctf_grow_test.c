/*
 * A CTF directory read as it grows (load_grow.h with the CTF reader's
 * grow_* hooks): ctfgen's traces are copied into a directory packet by
 * packet, each packet's bytes before its index entry, as LTTng writes
 * them, and at each cut the trace of the read that goes on is the trace
 * of a whole read of the directory then, slice for slice. A stream only
 * appended to, and a stream that appears empty, go on without reading
 * the directory again; so do streams whose packets overlap in time,
 * written in the order they fill, what is past the horizon held for the
 * next read, and metadata that grows by event classes. Streams written
 * one after the other, metadata that changed in its middle and a file
 * rewritten are read again from the start, and are still the whole
 * read's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "load.h"
#include "load_grow.h"
#include "model.h"
#include "reader.h"

static char tmp[256];

static void
run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void
same_trace(const struct trace *a, const struct trace *b)
{
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->last, b->last);
	assert_int_equal(a->complete_until, b->complete_until);
	assert_int_equal(a->nstrings, b->nstrings);
	for (uint32_t i = 0; i < a->nstrings; i++)
		assert_string_equal(a->strings[i], b->strings[i]);
	assert_int_equal(a->nfuncs, b->nfuncs);
	for (size_t i = 0; i < a->nfuncs; i++)
		assert_int_equal(a->funcs[i].name, b->funcs[i].name);
	assert_int_equal(a->ntracks, b->ntracks);
	for (uint32_t i = 0; i < a->ntracks; i++) {
		const struct track *x = &a->tracks[i], *y = &b->tracks[i];
		assert_int_equal(x->name, y->name);
		assert_int_equal(x->ndepth, y->ndepth);
		for (uint32_t d = 0; d < x->ndepth; d++) {
			assert_int_equal(x->depth[d].len, y->depth[d].len);
			assert_memory_equal(x->depth[d].slices,
			    y->depth[d].slices, x->depth[d].len *
			    sizeof *x->depth[d].slices);
		}
		assert_int_equal(x->ninstants, y->ninstants);
		for (size_t j = 0; j < x->ninstants; j++) {
			assert_int_equal(x->instants[j].t, y->instants[j].t);
			assert_int_equal(x->instants[j].args,
			    y->instants[j].args);
		}
	}
	assert_int_equal(a->nmarkers, b->nmarkers);
	for (size_t i = 0; i < a->nmarkers; i++) {
		assert_int_equal(a->markers[i].t, b->markers[i].t);
		assert_int_equal(a->markers[i].text, b->markers[i].text);
	}
	assert_int_equal(a->nargs, b->nargs);
	for (size_t i = 0; i < a->nargs; i++)
		assert_int_equal(a->args[i].v.u, b->args[i].v.u);
	assert_int_equal(a->nrecords, b->nrecords);
	for (size_t i = 0; i < a->nrecords; i++)
		assert_int_equal(a->records[i].count, b->records[i].count);
	assert_int_equal(a->ndiags, b->ndiags);
	for (size_t i = 0; i < a->ndiags; i++)
		assert_string_equal(a->diags[i].text, b->diags[i].text);
}

/* The read that goes on and a whole read of dir, compared. */
static void
compare(struct load_grow *g, const char *dir)
{
	struct load_options o = { .follow = true };
	char *e1 = NULL, *e2 = NULL;
	struct trace *whole = load_trace(dir, "ctf", &o, &e1);
	struct trace *grown = load_grow_read(g, &e2);
	assert_true((whole == NULL) == (grown == NULL));
	if (whole != NULL)
		same_trace(grown, whole);
	trace_free(whole);
	trace_free(grown);
	free(e1);
	free(e2);
}

/* The packets of ctfgen's -L list (stream, offset, bytes), in the order
 * given. */
struct packet {
	char stream[32];
	long off, len;
	uint64_t begin;		/* its index entry's timestamp_begin */
	size_t k;		/* the kth of its stream */
};

static int
by_begin(const void *a, const void *b)
{
	const struct packet *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return strcmp(x->stream, y->stream);
}

static size_t
packets(const char *list, struct packet *p, size_t max)
{
	FILE *f = fopen(list, "r");
	assert_non_null(f);
	size_t n = 0;
	long ev;
	while (n < max && fscanf(f, "%31s %ld %ld %ld", p[n].stream, &p[n].off,
	    &p[n].len, &ev) == 4)
		n++;
	fclose(f);
	return n;
}

/* The index entry of packet p (the kth of its stream) appended, after
 * its bytes. */
static void
copy_packet(const char *src, const char *dst, const struct packet *p,
    long k, long entry)
{
	run("tail -c +%ld '%s/%s' | head -c %ld >>'%s/%s'", p->off + 1, src,
	    p->stream, p->len, dst, p->stream);
	run("tail -c +%ld '%s/index/%s.idx' | head -c %ld >>'%s/index/%s.idx'",
	    16 + k * entry + 1, src, p->stream, entry, dst, p->stream);
}

static long
file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* ctfgen ARGS into tmp/src, copied packet by packet into tmp/dst (a
 * stream's file and index made at its first packet; the streams named
 * in empty_at made empty when packet empty_at is copied), compared at
 * each cut; returns how many times the directory was read again from
 * its start. */
static uint64_t
follow_copy_meta(const char *args, size_t every, size_t empty_at,
    bool in_time, long meta_lines, size_t meta_at)
{
	char src[300], dst[300], list[300];
	snprintf(src, sizeof src, "%s/src", tmp);
	snprintf(dst, sizeof dst, "%s/dst", tmp);
	snprintf(list, sizeof list, "%s/packets", tmp);
	run("rm -rf '%s' '%s'", src, dst);
	run("'%s/tests/gen/ctfgen' -i %s -L '%s' '%s' >/dev/null",
	    getenv("TTV_BUILDDIR"), args, list, src);
	run("mkdir -p '%s/index' && cp '%s/metadata' '%s/metadata'", dst, src,
	    dst);
	if (meta_lines > 0)
		run("head -n %ld '%s/metadata' >'%s/metadata'", meta_lines, src,
		    dst);
	static struct packet p[4096];
	size_t n = packets(list, p, 4096);
	assert_true(n > 4);
	long count[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		int si = strcmp(p[i].stream, "chan_0") == 0 ? 0 : 1;
		p[i].k = (size_t)count[si]++;
		char idx[1024];
		snprintf(idx, sizeof idx, "%s/index/%.31s.idx", src,
		    p[i].stream);
		long np = 0;
		for (size_t j = 0; j < n; j++)
			np += strcmp(p[j].stream, p[i].stream) == 0;
		long entry = (file_size(idx) - 16) / np;
		FILE *f = fopen(idx, "rb");
		assert_non_null(f);
		unsigned char e[8];
		assert_int_equal(fseek(f, 16 + (long)p[i].k * entry + 24,
		    SEEK_SET), 0);
		assert_int_equal(fread(e, 1, 8, f), 8);
		fclose(f);
		p[i].begin = 0;
		for (int b = 0; b < 8; b++)
			p[i].begin = p[i].begin << 8 | e[b];
	}
	if (in_time)
		qsort(p, n, sizeof *p, by_begin);
	struct load_options o = { .follow = true };
	const struct reader *r = load_grow_reader(dst, "ctf");
	assert_non_null(r);
	struct load_grow *g = load_grow_new(dst, r, &o);
	for (size_t i = 0; i < n; i++) {
		char f[1024];
		snprintf(f, sizeof f, "%s/%.31s", dst, p[i].stream);
		char idx[1024];
		snprintf(idx, sizeof idx, "%s/index/%.31s.idx", src,
		    p[i].stream);
		long np = 0;
		for (size_t j = 0; j < n; j++)
			np += strcmp(p[j].stream, p[i].stream) == 0;
		long entry = (file_size(idx) - 16) / np;
		if (file_size(f) < 0)
			run("touch '%s' && head -c 16 '%s' >'%s/index/%s.idx'",
			    f, idx, dst, p[i].stream);
		copy_packet(src, dst, &p[i], (long)p[i].k, entry);
		if (meta_lines > 0 && i == meta_at)
			run("tail -n +%ld '%s/metadata' >>'%s/metadata'",
			    meta_lines + 1, src, dst);
		if (i == empty_at)
			run("touch '%s/chan_1' && head -c 16 "
			    "'%s/index/chan_1.idx' >'%s/index/chan_1.idx'",
			    dst, src, dst);
		if (i % every == every - 1 || i + 1 == n)
			compare(g, dst);
	}
	uint64_t restarts = load_grow_restarts(g);
	load_grow_free(g);
	return restarts;
}

static uint64_t
follow_copy(const char *args, size_t every, size_t empty_at, bool in_time)
{
	return follow_copy_meta(args, every, empty_at, in_time, 0, 0);
}

/* Metadata that grows by an event class (ctfgen's last, unused with
 * -S 0) while packets come: read on with the grown metadata. */
static void
test_metadata_grows(void **state)
{
	(void)state;
	assert_int_equal(follow_copy_meta("-t 1 -S 0 -n 20000 -s 3", 3,
	    (size_t)-1, false, 101, 12), 0);
	/* two streams: as many reads start again as without the metadata
	 * growing (the second stream's first packet may start before the
	 * horizon) */
	uint64_t plain = follow_copy("-S 0 -n 6000 -s 3", 2, (size_t)-1, true);
	assert_true(plain <= 1);
	assert_int_equal(follow_copy_meta("-S 0 -n 6000 -s 3", 2,
	    (size_t)-1, true, 101, 20), plain);
}

/* One stream written packet by packet, a second appearing empty midway:
 * every read goes on from the last. */
static void
test_one_stream(void **state)
{
	(void)state;
	assert_int_equal(follow_copy("-t 1 -n 30000 -s 4", 7, 40, false), 0);
}

/* The compact header and the metadata in packets. */
static void
test_one_stream_compact(void **state)
{
	(void)state;
	assert_int_equal(follow_copy("-t 1 -c -p -n 20000 -s 9", 5, 10, false),
	    0);
}

/* Two streams whose packets overlap in time, written as they fill (in
 * the order of their start): what is past the horizon is held, and the
 * reads go on from it. The second stream's first packet starts before
 * the first stream's last end: that read starts again, once. */
static void
test_two_streams(void **state)
{
	(void)state;
	assert_true(follow_copy("-n 6000 -s 5", 1, (size_t)-1, true) <= 2);
	/* threads moving from one stream to the other */
	assert_int_equal(follow_copy("-n 6000 -s 5 -m 50", 3, (size_t)-1, true),
	    0);
}

/* The streams one after the other (ctfgen's order): the second stream's
 * packets all come before what was read, each read starts again, and is
 * still the whole read's. */
static void
test_streams_apart(void **state)
{
	(void)state;
	follow_copy("-n 2000 -s 5", 1, (size_t)-1, false);
}

/* Metadata that changed, and a stream file rewritten shorter: read again
 * from the start, the trace the whole read's. */
static void
test_rewritten(void **state)
{
	(void)state;
	char src[300], dst[300];
	snprintf(src, sizeof src, "%s/r", tmp);
	snprintf(dst, sizeof dst, "%s/rd", tmp);
	run("rm -rf '%s' '%s'", src, dst);
	run("'%s/tests/gen/ctfgen' -i -t 1 -n 4000 -s 2 '%s' >/dev/null",
	    getenv("TTV_BUILDDIR"), src);
	run("cp -r '%s' '%s'", src, dst);
	struct load_options o = { .follow = true };
	struct load_grow *g = load_grow_new(dst, load_grow_reader(dst, "ctf"),
	    &o);
	compare(g, dst);
	/* metadata grown: no new class, the same, read on */
	run("printf '\\n' >>'%s/metadata'", dst);
	compare(g, dst);
	assert_int_equal(load_grow_restarts(g), 0);
	/* metadata changed in its middle */
	run("sed -i 's/func_entry/func_enter/' '%s/metadata'", dst);
	compare(g, dst);
	assert_int_equal(load_grow_restarts(g), 1);
	run("head -c 8192 '%s/chan_0' >'%s/x' && mv '%s/x' '%s/chan_0'", src,
	    dst, dst, dst);
	compare(g, dst);
	assert_int_equal(load_grow_restarts(g), 2);
	load_grow_free(g);
}

int
main(void)
{
	if (getenv("TTV_BUILDDIR") == NULL) {
		fprintf(stderr, "TTV_BUILDDIR unset\n");
		return 77;
	}
	const char *t = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/ctfgrowXXXXXX", t ? t : "/tmp");
	if (mkdtemp(tmp) == NULL)
		return 1;
	setenv("TTV_NO_INDEX", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_stream),
		cmocka_unit_test(test_one_stream_compact),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_streams_apart),
		cmocka_unit_test(test_metadata_grows),
		cmocka_unit_test(test_rewritten),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
