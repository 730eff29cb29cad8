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
 * read's. Packets smaller than the first bytes hashed to tell a file
 * rewritten do not make it read again.
 *
 * The same runs again with each read's state saved as bytes and made
 * again (reader.h, grow_save and grow_load; load_grow_reload), every
 * state kept; and made again only at the next read, once the directory
 * grew, as a later run that finds it in the trace's index does. A saved
 * state cut short or with a byte flipped gives NULL or a state that
 * reads on. A whole read (an index's: its streams decoded on worker
 * threads, its calls kept apart) keeps the state of its walk stopped at
 * the horizon, which a later run goes on from the same way.
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

#include "blob.h"
#include "builder.h"
#include "load.h"
#include "load_grow.h"
#include "model.h"
#include "reader.h"

static char tmp[256];

/* The runs with each read's state saved and made again (load_grow_reload)
 * go through a copy of the CTF reader whose grow_save counts what it
 * was asked and what it kept; its grow_load may first try the bytes
 * damaged (cut short at every length, each byte flipped), which must
 * give NULL or a state that reads on. */
static bool reload;
static const struct reader *ctf;
static struct reader wrapped;
static size_t nsaves, nsaved;
static bool damage_next;
static size_t nreads, damage_read = SIZE_MAX;
static size_t ndamaged_loaded;

static bool
counted_save(void *state, struct blob *out)
{
	nsaves++;
	bool ok = ctf->grow_save(state, out);
	nsaved += ok;
	return ok;
}

/* A damaged state that loaded: read on with it into copies of the
 * builder, never into the one kept. */
static void
use_state(void *st, struct load_ctx *ctx)
{
	struct builder *c = builder_copy(ctx->b);
	struct load_ctx c1 = *ctx;
	c1.b = c;
	ctf->grow_feed(st, &c1, 0);
	struct builder *c2 = builder_copy(c);
	struct load_ctx c3 = *ctx;
	c3.b = c2;
	ctf->grow_end(st, &c3);
	trace_free(builder_finish(c2));
	builder_free(c);
	ctf->grow_free(st);
	ndamaged_loaded++;
}

static void
try_damaged(struct load_ctx *ctx, const unsigned char *data, size_t len)
{
	struct blob_in in;
	/* cut short: NULL, each time */
	for (size_t cut = 0; cut < len; cut++) {
		blob_in_init(&in, data, cut);
		assert_null(ctf->grow_load(ctx, &in));
	}
	unsigned char *d = malloc(len);
	assert_non_null(d);
	for (size_t i = 0; i < len; i++) {
		memcpy(d, data, len);
		d[i] ^= (unsigned char)(i % 7 == 0 ? 0xff : 1u << (i % 8));
		blob_in_init(&in, d, len);
		void *st = ctf->grow_load(ctx, &in);
		if (st != NULL)
			use_state(st, ctx);
	}
	free(d);
}

static void *
damaged_load(struct load_ctx *ctx, struct blob_in *in)
{
	if (damage_next) {
		damage_next = false;
		try_damaged(ctx, in->p, (size_t)(in->end - in->p));
	}
	return ctf->grow_load(ctx, in);
}

/* The reader of a growing load of dir: the CTF reader, or with reload
 * its counting copy. */
static struct load_grow *
grow_new(const char *dir)
{
	struct load_options o = { .follow = true };
	ctf = load_grow_reader(dir, "ctf");
	assert_non_null(ctf);
	if (!reload)
		return load_grow_new(dir, ctf, &o);
	wrapped = *ctf;
	wrapped.grow_save = ctf->grow_save != NULL ? counted_save : NULL;
	wrapped.grow_load = damaged_load;
	struct load_grow *g = load_grow_new(dir, &wrapped, &o);
	load_grow_reload(g, true);
	return g;
}

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
	size_t asked = nsaves, kept = nsaved;
	damage_next = reload && nreads++ == damage_read;
	struct trace *grown = load_grow_read(g, &e2);
	assert_true((whole == NULL) == (grown == NULL));
	if (reload && whole != NULL) {
		/* each read's state kept, and made again */
		assert_int_equal(nsaves, asked + 1);
		assert_int_equal(nsaved, kept + 1);
	}
	if (whole != NULL)
		same_trace(grown, whole);
	trace_free(whole);
	trace_free(grown);
	free(e1);
	free(e2);
}

/* A later run: each read's state saved at its end, and made again from
 * the bytes only at the next read, once the directory grew, on the
 * builder kept (as a run that finds both in the trace's index does). */
static bool later;
/* a trace's index reads it with its state kept, but not as a trace
 * being written (load_resume.h): follow unset */
static bool later_whole;
static struct later {
	struct builder *b;
	struct blob saved;
	bool has;
	uint64_t restarts;
} lr;

static void
later_begin(struct load_ctx *ctx, const char *dir, void **st)
{
	if (lr.b != NULL)
		builder_free(lr.b);
	lr.b = builder_new(dir);
	/* as load_grow does; an index's read ends its slices */
	if (!later_whole)
		builder_open_to_now(lr.b);
	ctx->b = lr.b;
	*st = ctf->grow_begin(ctx);
}

static void
later_read(const char *dir)
{
	static struct load_options o;
	o.follow = !later_whole;
	struct load_ctx ctx = { .path = dir, .opts = &o };
	void *st;
	ctf = load_grow_reader(dir, "ctf");
	assert_non_null(ctf);
	assert_non_null(ctf->grow_save);
	assert_non_null(ctf->grow_load);
	if (!lr.has) {
		later_begin(&ctx, dir, &st);
	} else {
		ctx.b = lr.b;
		struct blob_in in;
		blob_in_init(&in, lr.saved.data, lr.saved.len);
		st = ctf->grow_load(&ctx, &in);
		assert_non_null(st);
		assert_false(in.bad);
		assert_true(in.p == in.end);
	}
	if (ctf->grow_feed(st, &ctx, 0) == SIZE_MAX) {
		ctf->grow_free(st);
		later_begin(&ctx, dir, &st);
		lr.restarts++;
		assert_int_not_equal(ctf->grow_feed(st, &ctx, 0), SIZE_MAX);
	}
	blob_free(&lr.saved);
	lr.has = ctf->grow_save(st, &lr.saved);
	struct builder *copy = builder_copy(lr.b);
	ctx.b = copy;
	int rc = ctf->grow_end(st, &ctx);
	ctf->grow_free(st);
	struct trace *grown = builder_finish(copy);
	char *e1 = NULL;
	struct trace *whole = load_trace(dir, "ctf", &o, &e1);
	assert_true((whole == NULL) == (rc != 0));
	if (whole != NULL) {
		assert_true(lr.has);
		same_trace(grown, whole);
	}
	trace_free(whole);
	trace_free(grown);
	free(e1);
}

static void
later_end(void)
{
	if (lr.b != NULL)
		builder_free(lr.b);
	blob_free(&lr.saved);
	lr = (struct later){ 0 };
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
	later_end();	/* a test that failed may have left its own */
	struct load_grow *g = later ? NULL : grow_new(dst);
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
		if ((i % every == every - 1 || i + 1 == n) && later)
			later_read(dst);
		else if (i % every == every - 1 || i + 1 == n)
			compare(g, dst);
	}
	if (later) {
		uint64_t restarts = lr.restarts;
		later_end();
		return restarts;
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

/* Packets smaller than the bytes whose hash tells a file rewritten:
 * a stream that grows from one of them still goes on. */
static void
test_small_packets(void **state)
{
	(void)state;
	assert_int_equal(follow_copy("-t 1 -n 3000 -P 2048 -s 6", 1,
	    (size_t)-1, false), 0);
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
	struct load_grow *g = grow_new(dst);
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

/* A saved state damaged (cut short at every length, each byte flipped)
 * gives NULL or a state that reads on, never a crash; the read with the
 * whole state is still the whole read's. */
static void
test_damaged_state(void **state)
{
	(void)state;
	nreads = 0;
	damage_read = 3;
	ndamaged_loaded = 0;
	follow_copy("-n 400 -s 5 -m 50", 2, (size_t)-1, true);
	damage_read = SIZE_MAX;
	assert_true(nreads > 3);
	/* some flipped bytes are counts or times, not ids: those load */
	assert_true(ndamaged_loaded > 0);
}

/* The state saved, and made again from its bytes now. */
static void *
later_load(const char *dir)
{
	static struct load_options o;
	o.follow = !later_whole;
	struct load_ctx ctx = { .path = dir, .opts = &o, .b = lr.b };
	struct blob_in in;
	blob_in_init(&in, lr.saved.data, lr.saved.len);
	return ctf->grow_load(&ctx, &in);
}

/* What was read changed between the runs (the metadata in its middle, a
 * stream file rewritten shorter): the state is not made again (the
 * trace is then read from its start), and is once it is as it was. */
static void
test_later_changed(void **state)
{
	(void)state;
	char dir[300];
	snprintf(dir, sizeof dir, "%s/lc", tmp);
	run("rm -rf '%s'", dir);
	run("'%s/tests/gen/ctfgen' -i -t 1 -n 4000 -s 2 '%s' >/dev/null",
	    getenv("TTV_BUILDDIR"), dir);
	later_read(dir);
	assert_true(lr.has);
	void *st = later_load(dir);
	assert_non_null(st);
	ctf->grow_free(st);
	run("cp '%s/metadata' '%s/m' && sed -i 's/func_entry/func_enter/' "
	    "'%s/metadata'", dir, dir, dir);
	assert_null(later_load(dir));
	run("mv '%s/m' '%s/metadata'", dir, dir);
	st = later_load(dir);
	assert_non_null(st);
	ctf->grow_free(st);
	run("head -c 8192 '%s/chan_0' >'%s/x' && cat '%s/x' >'%s/chan_0'",
	    dir, dir, dir, dir);
	assert_null(later_load(dir));
	later_end();
}

/* LTTng's binaries and the functions named from them (statedump
 * bin_info, cyg-profile calls) made again: a binary whose symbols were
 * read (ttv itself), and binaries that cannot be read, said again at
 * each read's end. */
static void
test_later_binaries(void **state)
{
	(void)state;
	const char *src = getenv("TTV_SRCDIR");
	if (src == NULL)
		skip();
	char dir[300];
	snprintf(dir, sizeof dir, "%s/lb", tmp);
	for (int k = 0; k < 2; k++) {
		run("rm -rf '%s' && python3 '%s/tests/gen/hostile_ctf_meta.py' "
		    "tsdl-bins '%s' 20 %s%s%s", dir, src, dir, k ? "'" : "",
		    k ? getenv("TTV_BUILDDIR") : "", k ? "/ttv'" : "");
		for (int i = 0; i < 3; i++) {
			later_read(dir);
			assert_true(lr.has);
			if (k == 0 && i == 0) {
				/* the binaries' part of a state damaged */
				static struct load_options o;
				o.follow = !later_whole;
				struct load_ctx ctx = { .path = dir, .opts = &o,
				    .b = lr.b };
				try_damaged(&ctx, lr.saved.data, lr.saved.len);
			}
		}
		later_end();
	}
}

static int
later_on(void **state)
{
	(void)state;
	reload = false;
	later = true;
	return 0;
}

static int
later_whole_on(void **state)
{
	(void)state;
	later = later_whole = true;
	return 0;
}

static int
reload_on(void **state)
{
	(void)state;
	reload = true;
	return 0;
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
		cmocka_unit_test(test_small_packets),
		cmocka_unit_test(test_one_stream),
		cmocka_unit_test(test_one_stream_compact),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_streams_apart),
		cmocka_unit_test(test_metadata_grows),
		cmocka_unit_test(test_rewritten),
	};
	int rc = cmocka_run_group_tests_name("read on", tests, NULL, NULL);
	/* the same with each read's state saved and made again */
	const struct CMUnitTest again[] = {
		cmocka_unit_test(test_small_packets),
		cmocka_unit_test(test_one_stream),
		cmocka_unit_test(test_one_stream_compact),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_streams_apart),
		cmocka_unit_test(test_metadata_grows),
		cmocka_unit_test(test_rewritten),
		cmocka_unit_test(test_damaged_state),
	};
	rc |= cmocka_run_group_tests_name("saved and made again", again,
	    reload_on, NULL);
	/* and made again only once the directory grew (a later run) */
	const struct CMUnitTest on_later[] = {
		cmocka_unit_test(test_small_packets),
		cmocka_unit_test(test_one_stream_compact),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_streams_apart),
		cmocka_unit_test(test_metadata_grows),
		cmocka_unit_test(test_later_changed),
		cmocka_unit_test(test_later_binaries),
	};
	rc |= cmocka_run_group_tests_name("made again after it grew", on_later,
	    later_on, NULL);
	/* the same, read as an index reads it: whole reads, their state
	 * kept */
	const struct CMUnitTest on_later_whole[] = {
		cmocka_unit_test(test_one_stream_compact),
		cmocka_unit_test(test_two_streams),
		cmocka_unit_test(test_metadata_grows),
		cmocka_unit_test(test_later_binaries),
	};
	rc |= cmocka_run_group_tests_name("whole reads made again after it "
	    "grew", on_later_whole, later_whole_on, NULL);
	/* and with the whole reads' streams decoded by worker threads, in
	 * small batches: what they decoded ahead of the horizon is kept
	 * for the rest of the walk */
	setenv("TTV_CTF_PIPE_MIN", "0", 1);
	setenv("TTV_CTF_BATCH", "5", 1);
	rc |= cmocka_run_group_tests_name("whole reads on worker threads "
	    "made again after it grew", on_later_whole, later_whole_on, NULL);
	unsetenv("TTV_CTF_PIPE_MIN");
	unsetenv("TTV_CTF_BATCH");
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
