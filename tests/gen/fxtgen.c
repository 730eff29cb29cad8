/*
 * fxtgen: writes Fuchsia trace format (FXT) files for ttv's tests and
 * benchmark, with what a reader must find in them.
 *
 *   fxtgen [-b] [-t] full OUT EXPECTED   the scenario below; -b big-endian,
 *                                        -t ends in a truncated record
 *   fxtgen [-b] [-O] [-L] [-R N] -B BYTES OUT
 *                                        a big trace for the benchmark;
 *                                        -O: scoped durations written as
 *                                        complete events, inner first;
 *                                        -L: the last thread's calls made
 *                                        inside one that lasts the whole
 *                                        trace (begun first, ended last);
 *                                        -R: stop after N rounds
 *   fxtgen [-A] -D base|new OUT          one run of diffpair.h's program
 *                                        (ttv --diff's tests); -A: its
 *                                        functions named by address
 *   fxtgen --pace RATE SECONDS OUT       a trace written as it happens:
 *                                        RATE calls a second for SECONDS,
 *                                        a chunk every 100 ms (the
 *                                        benchmark of ttv --follow)
 *
 * The scenario touches every record type (metadata: magic, provider
 * info/section/event, unknown trace info; initialization with three tick
 * rates; string and thread records incl. index 0 and replacement; events of
 * all 11 types; blobs; userspace and kernel objects; legacy and new context
 * switches, wakeups; logs; large blobs of both formats) and every argument
 * type (null, i32, u32, i64, u64, double, string inline and indexed,
 * pointer, koid, bool, blob), inline and indexed names and thread refs,
 * plus items a reader must skip by size (unknown record, event, argument,
 * scheduling and large-record types) or drop (end without begin, complete
 * ending before it starts, undefined thread ref, timestamp overflow, flow
 * without enclosing slice or without begin, unmatched async end). Nested
 * complete events are written inner first, as Fuchsia's scoped durations
 * are, and a flow step is written before its begin, so a reader must sort
 * by time.
 *
 * EXPECTED gets the facts in the vocabulary of tests/tools/fxt_dump.c (--cpu),
 * from the writer's own bookkeeping of what it meant to write — it never
 * reads the trace back.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diffpair.h"

#define MAGIC 0x0016547846040010ULL

static bool big;
static unsigned char *out;
static size_t outlen, outcap;

static void
put(const void *p, size_t n)
{
	if (outlen + n > outcap) {
		outcap = (outlen + n) * 2;
		out = realloc(out, outcap);
		if (out == NULL)
			abort();
	}
	memcpy(out + outlen, p, n);
	outlen += n;
}

static void
word(uint64_t w)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = big ? (unsigned char)(w >> (56 - 8 * i)) :
		    (unsigned char)(w >> (8 * i));
	put(b, 8);
}

/* A byte stream padded with zeros to 8 bytes. */
static void
stream(const void *p, size_t n)
{
	static const unsigned char zero[8];

	put(p, n);
	put(zero, (8 - n % 8) % 8);
}

static size_t
words_of(size_t n)
{
	return (n + 7) / 8;
}

/* ------------------------------------------------------- expectations */

static char **exp_lines;
static size_t nexp;

static void
expect(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	exp_lines = realloc(exp_lines, (nexp + 1) * sizeof *exp_lines);
	exp_lines[nexp++] = s;
}

static uint64_t records_by_type[16];
static uint64_t n_ignored, n_skipped_args, n_blobs, n_large, n_cs, n_legacy;
static uint64_t n_wakeups, n_kobj, n_uobj, n_non_numeric, n_instants;
static uint64_t n_async_slices, n_async_instants, n_async_open;
static uint64_t n_arrows, n_chains, n_samples;

/* A thread as the writer books it. */
struct bthread {
	int64_t pid, tid;
	const char *names[8];	/* open begins */
	int64_t starts[8];
	int depth, max_depth;
	uint64_t slices, instants;
	struct { const char *name; int64_t dur; uint64_t n; } by[16];
	int nby;
};
static struct bthread bth[8];
static int nbth;

static struct bthread *
bt(int64_t pid, int64_t tid)
{
	int i;

	for (i = 0; i < nbth; i++)
		if (bth[i].pid == pid && bth[i].tid == tid)
			return &bth[i];
	bth[nbth].pid = pid;
	bth[nbth].tid = tid;
	return &bth[nbth++];
}

static void
book_slice(struct bthread *t, const char *name, int64_t dur, int depth)
{
	int i;

	t->slices++;
	if (depth + 1 > t->max_depth)
		t->max_depth = depth + 1;
	for (i = 0; i < t->nby; i++)
		if (strcmp(t->by[i].name, name) == 0)
			break;
	if (i == t->nby) {
		t->by[i].name = name;
		t->nby++;
	}
	t->by[i].dur += dur;
	t->by[i].n++;
}

/* ------------------------------------------------------------- tables */

/* A string ref as the scenario names it: an index, or inline text. */
struct sref {
	unsigned idx;
	const char *s;
};
#define IDX(i) ((struct sref){ (i), NULL })
#define STR(t) ((struct sref){ 0, (t) })

/* A thread ref: a slot, or inline pid and tid. */
struct tref {
	unsigned idx;
	int64_t pid, tid;
};
#define SLOT(i) ((struct tref){ (i), 0, 0 })
#define INL(p, t) ((struct tref){ 0, (p), (t) })

struct prov {
	uint32_t id;
	uint64_t tps;
	const char *strings[0x8000];
	int64_t tpid[256], ttid[256];
};
static struct prov provs[4];
static int nprovs;
static struct prov *cur;

static uint16_t
sref_bits(struct sref r)
{
	if (r.s == NULL)
		return (uint16_t)r.idx;
	if (r.s[0] == 0)
		return 0;
	return (uint16_t)(0x8000 | strlen(r.s));
}

static void
sref_stream(struct sref r)
{
	if (r.s != NULL && r.s[0] != 0)
		stream(r.s, strlen(r.s));
}

static size_t
sref_words(struct sref r)
{
	return r.s != NULL && r.s[0] != 0 ? words_of(strlen(r.s)) : 0;
}

static const char *
sref_text(struct sref r)
{
	if (r.s != NULL)
		return r.s;
	return r.idx && cur->strings[r.idx] ? cur->strings[r.idx] : "";
}

static struct bthread *
tref_thread(struct tref r)
{
	if (r.idx == 0)
		return bt(r.pid, r.tid);
	return bt(cur->tpid[r.idx], cur->ttid[r.idx]);
}

static uint64_t
ticks(int64_t ns)
{
	uint64_t t = (uint64_t)ns * cur->tps / 1000000000u;

	if (t * 1000000000u / cur->tps != (uint64_t)ns) {
		fprintf(stderr, "fxtgen: %" PRId64 " ns is not a whole tick\n",
		    ns);
		exit(1);
	}
	return t;
}

/* ----------------------------------------------------------- records */

static void
header(unsigned type, size_t words, uint64_t bits)
{
	records_by_type[type]++;
	word(type | (uint64_t)words << 4 | bits);
}

static void
magic(void)
{
	records_by_type[0]++;
	word(MAGIC);
}

static void
init_record(uint64_t tps)
{
	header(1, 2, 0);
	word(tps);
	cur->tps = tps;
}

static void
provider_info(uint32_t id, const char *name, uint64_t tps)
{
	size_t n = strlen(name);

	header(0, 1 + words_of(n), 1u << 16 | (uint64_t)id << 20 |
	    (uint64_t)n << 52);
	stream(name, n);
	cur = &provs[nprovs++];
	cur->id = id;
	cur->tps = 1000000000u;
	expect("provider %" PRIu32 ": %s, %" PRIu64 " ticks/s", id, name, tps);
	init_record(tps);
}

static void
provider_section(uint32_t id)
{
	int i;

	header(0, 1, 2u << 16 | (uint64_t)id << 20);
	for (i = 0; i < nprovs; i++)
		if (provs[i].id == id)
			cur = &provs[i];
}

static void
string_record(unsigned idx, const char *s)
{
	size_t n = strlen(s);

	header(2, 1 + words_of(n), (uint64_t)idx << 16 | (uint64_t)n << 32);
	stream(s, n);
	if (idx == 0)
		n_ignored++;
	else
		cur->strings[idx] = s;
}

static void
thread_record(unsigned idx, int64_t pid, int64_t tid)
{
	header(3, 3, (uint64_t)idx << 16);
	word((uint64_t)pid);
	word((uint64_t)tid);
	if (idx == 0)
		n_ignored++;
	else {
		cur->tpid[idx] = pid;
		cur->ttid[idx] = tid;
	}
}

/* Arguments are built into a side buffer, then copied into the record. */
static unsigned char abuf[4096];
static size_t alen;
static unsigned nargs;

static void
args_reset(void)
{
	alen = 0;
	nargs = 0;
}

static void
arg(unsigned type, struct sref name, uint32_t hi, const uint64_t *vals,
    size_t nvals, const void *bytes, size_t nbytes)
{
	unsigned char *save = out;
	size_t savelen = outlen, savecap = outcap, words, i;

	/* Encode with the record writer into a scratch buffer. */
	out = NULL;
	outlen = outcap = 0;
	words = 1 + sref_words(name) + nvals + words_of(nbytes);
	if (type == 6)
		words += sref_words(*(const struct sref *)bytes);
	word(type | (uint64_t)words << 4 | (uint64_t)sref_bits(name) << 16 |
	    (uint64_t)hi << 32);
	sref_stream(name);
	if (type == 6)
		sref_stream(*(const struct sref *)bytes);
	for (i = 0; i < nvals; i++)
		word(vals[i]);
	if (type != 6 && nbytes > 0)
		stream(bytes, nbytes);
	memcpy(abuf + alen, out, outlen);
	alen += outlen;
	nargs++;
	free(out);
	out = save;
	outlen = savelen;
	outcap = savecap;
}

static void
arg_i32(struct sref n, int32_t v) { arg(1, n, (uint32_t)v, NULL, 0, NULL, 0); }
static void
arg_u32(struct sref n, uint32_t v) { arg(2, n, v, NULL, 0, NULL, 0); }
static void
arg_i64(struct sref n, int64_t v)
{
	uint64_t w = (uint64_t)v;
	arg(3, n, 0, &w, 1, NULL, 0);
}
static void
arg_u64(struct sref n, uint64_t v) { arg(4, n, 0, &v, 1, NULL, 0); }
static void
arg_f64(struct sref n, double v)
{
	uint64_t w;
	memcpy(&w, &v, sizeof w);
	arg(5, n, 0, &w, 1, NULL, 0);
}
static void
arg_str(struct sref n, struct sref v)
{
	arg(6, n, sref_bits(v), NULL, 0, &v, 0);
}

static void
event(unsigned etype, struct tref th, struct sref cat, struct sref name,
    int64_t ns, const uint64_t *tail, size_t ntail)
{
	size_t words = 2 + (th.idx == 0 ? 2 : 0) + sref_words(cat) +
	    sref_words(name) + alen / 8 + ntail, i;

	header(4, words, (uint64_t)etype << 16 | (uint64_t)nargs << 20 |
	    (uint64_t)th.idx << 24 | (uint64_t)sref_bits(cat) << 32 |
	    (uint64_t)sref_bits(name) << 48);
	word(ticks(ns));
	if (th.idx == 0) {
		word((uint64_t)th.pid);
		word((uint64_t)th.tid);
	}
	sref_stream(cat);
	sref_stream(name);
	put(abuf, alen);
	for (i = 0; i < ntail; i++)
		word(tail[i]);
	args_reset();
}

/* --------------------------------------------------- booked event kinds */

static void
begin(struct tref th, struct sref name, int64_t ns)
{
	struct bthread *t = tref_thread(th);

	event(2, th, STR("cat"), name, ns, NULL, 0);
	t->names[t->depth] = sref_text(name);
	t->starts[t->depth++] = ns;
	if (t->depth > t->max_depth)
		t->max_depth = t->depth;
}

/* An end closes the innermost begin, whatever name it carries. */
static void
end(struct tref th, struct sref name, int64_t ns)
{
	struct bthread *t = tref_thread(th);

	event(3, th, STR("cat"), name, ns, NULL, 0);
	t->depth--;
	book_slice(t, t->names[t->depth], ns - t->starts[t->depth], t->depth);
}

/* depth: where the writer means the complete event to nest. */
static void
complete(struct tref th, struct sref name, int64_t ns, int64_t end_ns,
    int depth)
{
	uint64_t e = ticks(end_ns);

	event(4, th, STR("cat"), name, ns, &e, 1);
	book_slice(tref_thread(th), sref_text(name), end_ns - ns, depth);
}

static void
instant(struct tref th, struct sref name, int64_t ns)
{
	event(0, th, STR("cat"), name, ns, NULL, 0);
	tref_thread(th)->instants++;
	n_instants++;
}

static void
flow(unsigned type, struct tref th, int64_t ns, uint64_t id)
{
	event(type, th, STR("cat"), STR("flow"), ns, &id, 1);
}

static void
async_ev(unsigned type, struct tref th, struct sref name, int64_t ns,
    uint64_t id)
{
	event(type, th, STR("cat"), name, ns, &id, 1);
}

static void
kobj(unsigned otype, uint64_t koid, struct sref name, int64_t process)
{
	uint64_t w = (uint64_t)process;

	args_reset();
	if (process != 0)
		arg(8, STR("process"), 0, &w, 1, NULL, 0);
	header(7, 2 + sref_words(name) + alen / 8, (uint64_t)otype << 16 |
	    (uint64_t)sref_bits(name) << 24 | (uint64_t)nargs << 40);
	word(koid);
	sref_stream(name);
	put(abuf, alen);
	args_reset();
	n_kobj++;
}

static void
uobj(struct tref proc, uint64_t ptr, struct sref name)
{
	header(6, 2 + (proc.idx == 0 ? 1 : 0) + sref_words(name) + alen / 8,
	    (uint64_t)proc.idx << 16 | (uint64_t)sref_bits(name) << 24 |
	    (uint64_t)nargs << 40);
	word(ptr);
	if (proc.idx == 0)
		word((uint64_t)proc.pid);
	sref_stream(name);
	put(abuf, alen);
	args_reset();
	n_uobj++;
}

static void
blob(struct sref name, unsigned btype, const void *p, size_t n)
{
	header(5, 1 + sref_words(name) + words_of(n), (uint64_t)sref_bits(name)
	    << 16 | (uint64_t)n << 32 | (uint64_t)btype << 48);
	sref_stream(name);
	stream(p, n);
	n_blobs++;
}

static void
large_blob(unsigned fmt, struct tref th, int64_t ns, const void *p, size_t n)
{
	size_t words = 2 + sref_words(STR("cat")) + sref_words(STR("big")) + 1 +
	    words_of(n);

	if (fmt == 0)
		words += 1 + (th.idx == 0 ? 2 : 0) + alen / 8;
	records_by_type[15]++;
	word(15 | (uint64_t)words << 4 | (uint64_t)fmt << 40);
	word(sref_bits(STR("cat")) | (uint64_t)sref_bits(STR("big")) << 16 |
	    (fmt == 0 ? (uint64_t)nargs << 32 | (uint64_t)th.idx << 36 : 0));
	sref_stream(STR("cat"));
	sref_stream(STR("big"));
	if (fmt == 0) {
		word(ticks(ns));
		if (th.idx == 0) {
			word((uint64_t)th.pid);
			word((uint64_t)th.tid);
		}
		put(abuf, alen);
	}
	word(n);
	stream(p, n);
	args_reset();
	n_large++;
}

static void
log_record(struct tref th, int64_t ns, const char *msg)
{
	struct bthread *t = tref_thread(th);
	size_t n = strlen(msg);

	header(9, 2 + (th.idx == 0 ? 2 : 0) + words_of(n), (uint64_t)n << 16 |
	    (uint64_t)th.idx << 32);
	word(ticks(ns));
	if (th.idx == 0) {
		word((uint64_t)th.pid);
		word((uint64_t)th.tid);
	}
	stream(msg, n);
	expect("log %" PRId64 " %" PRId64 "/%" PRId64 " %s", ns, t->pid, t->tid,
	    msg);
}

static void
cswitch_legacy(unsigned cpu, int64_t ns, struct tref o, struct tref i,
    unsigned state, unsigned oprio, unsigned iprio)
{
	header(8, 2 + (o.idx == 0 ? 2 : 0) + (i.idx == 0 ? 2 : 0),
	    (uint64_t)cpu << 16 | (uint64_t)state << 24 | (uint64_t)o.idx << 28 |
	    (uint64_t)i.idx << 36 | (uint64_t)oprio << 44 |
	    (uint64_t)iprio << 52);
	word(ticks(ns));
	if (o.idx == 0) {
		word((uint64_t)o.pid);
		word((uint64_t)o.tid);
	}
	if (i.idx == 0) {
		word((uint64_t)i.pid);
		word((uint64_t)i.tid);
	}
	n_legacy++;
}

static void
cswitch(unsigned cpu, int64_t ns, int64_t otid, int64_t itid, unsigned state,
    int32_t iw, int32_t ow)
{
	args_reset();
	arg_i32(STR("incoming_weight"), iw);
	arg_i32(STR("outgoing_weight"), ow);
	header(8, 4 + alen / 8, (uint64_t)nargs << 16 | (uint64_t)cpu << 20 |
	    (uint64_t)state << 36 | 1ULL << 60);
	word(ticks(ns));
	word((uint64_t)otid);
	word((uint64_t)itid);
	put(abuf, alen);
	args_reset();
	n_cs++;
}

static void
wakeup(unsigned cpu, int64_t ns, int64_t tid, int32_t w)
{
	args_reset();
	arg_i32(STR("weight"), w);
	header(8, 3 + alen / 8, (uint64_t)nargs << 16 | (uint64_t)cpu << 20 |
	    2ULL << 60);
	word(ticks(ns));
	word((uint64_t)tid);
	put(abuf, alen);
	args_reset();
	n_wakeups++;
}

/* ------------------------------------------------------------ scenario */

static void
scenario(bool truncate)
{
	const struct tref T1 = SLOT(1), T2 = SLOT(2), T3 = INL(20, 21);
	const struct tref T2i = INL(10, 12), T4 = SLOT(2);
	uint64_t w[2];
	unsigned char bytes[40];
	int i;

	for (i = 0; i < 40; i++)
		bytes[i] = (unsigned char)(i * 7);
	magic();
	provider_info(1, "one", 1000000000u);
	string_record(1, "cat");
	string_record(2, "outer");
	string_record(3, "inner");
	string_record(4, "argname");
	string_record(5, "t_twelve");
	string_record(0, "ignored");
	thread_record(1, 10, 11);
	thread_record(2, 10, 12);
	thread_record(0, 99, 99);

	/* Names: processes, threads (indexed and inline names), others. */
	kobj(1, 10, STR("proc_ten"), 0);
	kobj(1, 20, STR("proc_twenty"), 0);
	kobj(2, 11, STR("t_eleven"), 10);
	kobj(2, 12, IDX(5), 10);
	kobj(2, 21, STR("t_twentyone"), 20);
	kobj(2, 13, STR("t_thirteen"), 10);
	kobj(5, 4242, STR("a_channel"), 0);
	expect("process 10 proc_ten");
	expect("process 20 proc_twenty");
	expect("thread_name 11 t_eleven");
	expect("thread_name 12 t_twelve");
	expect("thread_name 13 t_thirteen");
	expect("thread_name 21 t_twentyone");
	args_reset();
	arg_str(STR("kind"), STR("button"));
	uobj(SLOT(1), 0x1234, STR("Widget"));
	uobj(INL(10, 0), 0x5678, IDX(2));

	/* Durations on T1, every argument type on the outer slice; the end
	 * carries another name (it closes "inner" all the same) and args
	 * merged into the slice it closes. */
	args_reset();
	arg(0, STR("a_null"), 0, NULL, 0, NULL, 0);
	arg_i32(STR("a_i32"), -7);
	arg_u32(IDX(4), 4000000000u);
	arg_i64(STR("a_i64"), -1234567890123LL);
	arg_u64(STR("a_u64"), 18000000000000000000ULL);
	arg_f64(STR("a_f64"), 3.25);
	arg_str(STR("a_str"), STR("inline value"));
	arg_str(STR("a_stri"), IDX(3));
	w[0] = 0xdeadbeef;
	arg(7, STR("a_ptr"), 0, w, 1, NULL, 0);
	w[0] = 4242;
	arg(8, STR("a_koid"), 0, w, 1, NULL, 0);
	arg(9, STR("a_bool"), 1, NULL, 0, NULL, 0);
	arg(9, STR("a_false"), 0, NULL, 0, NULL, 0);
	arg(10, STR("a_blob"), 5, NULL, 0, "\x01\x02\x03\x04\x05", 5);
	begin(T1, IDX(2), 1000);
	expect("arg outer a_null=null");
	expect("arg outer a_i32=i64:-7");
	expect("arg outer argname=u64:4000000000");
	expect("arg outer a_i64=i64:-1234567890123");
	expect("arg outer a_u64=u64:18000000000000000000");
	expect("arg outer a_f64=f64:3.25");
	expect("arg outer a_str=str:inline value");
	expect("arg outer a_stri=str:inner");
	expect("arg outer a_ptr=ptr:0xdeadbeef");
	expect("arg outer a_koid=koid:4242");
	expect("arg outer a_bool=bool:true");
	expect("arg outer a_false=bool:false");
	expect("arg outer a_blob=str:<blob 5 bytes: 01 02 03 04 05>");
	begin(T1, IDX(3), 1100);
	instant(T1, STR("tick"), 1150);
	arg_i32(STR("endarg"), 5);
	end(T1, STR("another_name"), 1300);
	expect("arg inner endarg=i64:5");
	end(T1, IDX(2), 2000);

	/* T2: a slice whose flow step is written before the flow begins. */
	begin(T2, STR("recv"), 3400);
	flow(9, T2, 3450, 5);
	end(T2, STR("recv"), 3480);
	flow(8, T2, 3490, 6);			/* no enclosing slice: dropped */

	/* T1: complete events written inner first (their end order), then
	 * the flow begin inside the innermost one. */
	complete(T1, STR("c_inner"), 3100, 3200, 2);
	complete(T1, STR("c_mid"), 3050, 3300, 1);
	flow(8, T1, 3150, 5);
	complete(T1, STR("c_outer"), 3000, 3500, 0);
	begin(T1, STR("after"), 3600);
	end(T1, STR("after"), 3700);
	/* T3, another process: the flow ends there (found across processes
	 * because only one process began id 5); a step of a flow never begun
	 * is dropped. */
	begin(T3, STR("handle"), 3600);
	flow(10, T3, 3650, 5);
	flow(9, T3, 3660, 77);
	end(T3, STR("handle"), 3700);
	n_chains = 1;
	n_arrows = 2;
	expect("flow 5 c_inner@3100 -> recv@3400");
	expect("flow 5 recv@3400 -> handle@3600");

	/* Async: begun on T1 (process 10), instants on T2 and on T3
	 * (process 20), ended on T3; another left open; an end that
	 * matches nothing. */
	arg_u32(STR("bytes"), 10);
	async_ev(5, T1, STR("fetch"), 4000, 0x10);
	async_ev(6, T2, STR("fetch"), 4100, 0x10);
	async_ev(5, T2, STR("fetch"), 4200, 0x11);
	async_ev(6, T3, STR("fetch"), 4300, 0x10);	/* from process 20 */
	async_ev(7, T3, STR("fetch"), 4500, 0x10);
	async_ev(7, T3, STR("other"), 4600, 0x12);
	n_async_slices = 1;
	n_async_instants = 2;
	n_async_open = 1;
	expect("async fetch pid 10 id 16 depth 0 4000 +500 fetch");
	expect("async fetch pid 10 id 16 instant 4100 fetch");
	expect("async fetch pid 10 id 16 instant 4300 fetch");
	expect("async fetch pid 10 id 17 depth 0 4200 +7800 fetch "
	    "(unterminated)");
	expect("arg fetch bytes=u64:10");

	/* Counters: one series per numeric arg, per process. */
	arg_u64(STR("a"), 1);
	arg_f64(STR("b"), 0.5);
	arg_str(STR("c"), STR("not a number"));
	arg_i32(STR("d"), -2);
	w[0] = 3;
	event(1, T1, STR("cat"), STR("load"), 5000, w, 1);
	arg_u32(STR("a"), 7);
	arg_i64(STR("d"), 9);
	arg(9, STR("e"), 1, NULL, 0, NULL, 0);
	event(1, T1, STR("cat"), STR("load"), 5100, w, 1);
	arg_u32(STR("a"), 1);
	event(1, T3, STR("cat"), STR("load"), 5200, w, 1);
	n_non_numeric = 2;
	n_samples = 6;
	expect("counters series load:a:3 2");
	expect("counters series load:b:3 1");
	expect("counters series load:d:3 2");
	expect("counters series load:a:3 1");

	/* Table replacement: string 2 and thread slot 2. */
	string_record(2, "outer2");
	thread_record(2, 10, 13);
	begin(T1, IDX(2), 6000);
	end(T1, IDX(2), 6100);
	begin(T4, STR("x"), 6200);
	end(T4, STR("x"), 6300);

	/* Provider 2: own tables under the same indices, 24 MHz ticks. */
	provider_info(2, "two", 24000000u);
	string_record(1, "gfx");
	string_record(2, "compose");
	thread_record(1, 20, 21);
	begin(SLOT(1), IDX(2), 7000);
	complete(SLOT(1), STR("blend"), 7125, 7500, 1);
	end(SLOT(1), IDX(2), 8000);
	header(0, 1, 3u << 16 | 2ULL << 20);	/* provider 2: buffer full */
	expect("provider_event 2");
	log_record(SLOT(1), 8125, "log from two");

	/* Back to provider 1: its tables are still in force. */
	provider_section(1);
	log_record(T2i, 9000, "log from one");
	instant(T1, STR("tick2"), 9100);
	/* A timestamp past INT64_MAX ns: dropped. */
	header(4, 2, 0u << 16 | 1ULL << 24);
	word(0x8000000000000000ULL);

	/* Provider 3 at 2 GHz. */
	provider_info(3, "three", 2000000000u);
	instant(T2i, STR("fast"), 9500);
	provider_section(1);

	/* Scheduling: legacy switches (slot and inline refs, idle = pid 0
	 * priority 0), new ones (idle = tid 0), a wakeup. */
	cswitch_legacy(0, 10000, T1, T2i, 3, 20, 20);
	cswitch_legacy(0, 10500, T2i, INL(0, 0), 3, 20, 0);
	cswitch(1, 10200, 11, 21, 2, 6, 5);
	wakeup(1, 10700, 12, 3);
	cswitch(1, 10800, 21, 0, 1, 0, 6);
	expect("cpu cpu 0 depth 0 10000 +500 t_twelve 12");
	expect("cpu cpu 1 depth 0 10200 +600 t_twentyone 21");
	expect("cpu cpu 1 instant 10700 wakeup t_twelve 12");
	expect("arg t_twelve 12 tid=i64:12");
	expect("arg t_twelve 12 priority=i64:20");
	expect("arg t_twelve 12 end_state=str:S");
	expect("arg t_twentyone 21 tid=i64:21");
	expect("arg t_twentyone 21 weight=i64:6");
	expect("arg t_twentyone 21 end_state=str:R");

	/* Blobs and large blobs. */
	blob(STR("blob_inline"), 1, "raw", 3);
	blob(IDX(3), 2, bytes, 40);
	arg_i32(STR("n"), 1);
	large_blob(0, T1, 11000, bytes, 40);
	{
		static unsigned char big_payload[33000];
		large_blob(1, T1, 0, big_payload, sizeof big_payload);
	}

	/* Things to skip by size. */
	header(11, 3, 0);
	word(1);
	word(2);
	header(4, 2, 14u << 16 | 1ULL << 24);	/* event type 14 */
	word(ticks(11050));
	header(8, 2, 5ULL << 60);		/* scheduling type 5 */
	word(0);
	records_by_type[15]++;
	word(15 | 3ULL << 4 | 3ULL << 36);	/* large record type 3 */
	word(0);
	word(0);
	header(0, 1, 4u << 16 | 7u << 20);	/* trace info type 7 */
	w[0] = 1;
	arg(12, STR("mystery"), 0, w, 1, NULL, 0);
	arg_i32(STR("after"), 1);
	instant(T2i, STR("with_unknown"), 11100);
	n_skipped_args = 1;

	/* Things to drop: end without begin, complete ending before it
	 * starts, undefined thread slot. */
	event(3, T4, STR("cat"), STR("x"), 11200, NULL, 0);
	w[0] = 11250;
	event(4, T4, STR("cat"), STR("backwards"), 11300, w, 1);
	event(0, SLOT(200), STR("cat"), STR("nobody"), 11400, NULL, 0);

	/* Left open: the latest time of the trace. */
	begin(T1, STR("leak"), 12000);
	if (truncate) {
		/* An end whose header promises 3 words; 2 are written. */
		size_t off = outlen;
		word(4 | 3 << 4 | 3u << 16 | 1ULL << 24);
		word(ticks(12100));
		expect("diag error offset %zu: truncated record (declares "
		    "24 bytes, 16 present)", off);
	}
}

static void
write_expected(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int k, j;
	uint64_t ev = records_by_type[4];

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	for (i = 0; i < 16; i++)
		if (records_by_type[i])
			fprintf(f, "records %zu %" PRIu64 "\n", i,
			    records_by_type[i]);
	fprintf(f, "event_records %" PRIu64 "\n", ev);
	fprintf(f, "ignored_table_records %" PRIu64 "\n", n_ignored);
	fprintf(f, "skipped_args %" PRIu64 "\n", n_skipped_args);
	fprintf(f, "blobs %" PRIu64 "\n", n_blobs);
	fprintf(f, "large_blobs %" PRIu64 "\n", n_large);
	fprintf(f, "context_switches %" PRIu64 "\n", n_cs);
	fprintf(f, "legacy_context_switches %" PRIu64 "\n", n_legacy);
	fprintf(f, "wakeups %" PRIu64 "\n", n_wakeups);
	fprintf(f, "kernel_objects %" PRIu64 "\n", n_kobj);
	fprintf(f, "userspace_objects %" PRIu64 "\n", n_uobj);
	fprintf(f, "counters non_numeric_args %" PRIu64 "\n", n_non_numeric);
	fprintf(f, "counters samples %" PRIu64 "\n", n_samples);
	fprintf(f, "instants %" PRIu64 "\n", n_instants);
	fprintf(f, "async slices %" PRIu64 "\n", n_async_slices);
	fprintf(f, "async instants %" PRIu64 "\n", n_async_instants);
	fprintf(f, "async open_at_end %" PRIu64 "\n", n_async_open);
	fprintf(f, "flows arrows %" PRIu64 "\n", n_arrows);
	fprintf(f, "flows chains %" PRIu64 "\n", n_chains);
	for (k = 0; k < nbth; k++) {
		struct bthread *t = &bth[k];
		if (t->slices == 0 && t->instants == 0 && t->depth == 0)
			continue;
		fprintf(f, "thread %" PRId64 "/%" PRId64 " slices %" PRIu64 "\n",
		    t->pid, t->tid, t->slices);
		fprintf(f, "thread %" PRId64 "/%" PRId64 " max_depth %d\n",
		    t->pid, t->tid, t->max_depth);
		fprintf(f, "thread %" PRId64 "/%" PRId64 " instants %" PRIu64
		    "\n", t->pid, t->tid, t->instants);
		fprintf(f, "thread %" PRId64 "/%" PRId64 " open_at_end %d\n",
		    t->pid, t->tid, t->depth);
		for (j = 0; j < t->nby; j++) {
			fprintf(f, "thread %" PRId64 "/%" PRId64 " dur %s %"
			    PRId64 "\n", t->pid, t->tid, t->by[j].name,
			    t->by[j].dur);
			fprintf(f, "thread %" PRId64 "/%" PRId64 " count %s %"
			    PRIu64 "\n", t->pid, t->tid, t->by[j].name,
			    t->by[j].n);
		}
	}
	for (i = 0; i < nexp; i++)
		fprintf(f, "%s\n", exp_lines[i]);
	fclose(f);
}

/* ----------------------------------------------------------- benchmark */

/*
 * A big trace: string and thread tables, then rounds of seven events on
 * one of 8 threads (begin, begin, complete, end, end, instant, counter
 * with one argument), all indexed, like a busy instrumented program. With
 * ooo, the three nested durations are complete events written when their
 * scopes end (inner first), as Fuchsia's TRACE_DURATION writes them: every
 * thread is then out of time order and the reader must sort.
 */
static void
bulk(const char *path, uint64_t bytes, bool ooo, bool long_call,
    uint64_t rounds)
{
	FILE *f = fopen(path, "wb");
	static const char *names[] = { "parse", "layout", "paint", "commit",
	    "io", "send", "recv", "hash" };
	uint64_t t = 1000, it = 0, done;
	int i;

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	magic();
	provider_info(1, "bulk", 1000000000u);
	string_record(1, "bench");
	for (i = 0; i < 8; i++)
		string_record(2 + (unsigned)i, names[i]);
	string_record(10, "load");
	string_record(11, "v");
	for (i = 0; i < 8; i++)
		thread_record(1 + (unsigned)i, 100, 101 + i);
	kobj(1, 100, STR("bench_proc"), 0);
	/* "bench" on thread 8, open while the others come and go */
	if (long_call) {
		word(4 | 2 << 4 | 2u << 16 | 8ULL << 24 | 1ULL << 32 |
		    1ULL << 48);
		word(t - 1);
	}
	fwrite(out, 1, outlen, f);
	done = outlen;
	while (done < bytes && (rounds == 0 || it < rounds)) {
		outlen = 0;
		while (outlen < (1u << 20) && (rounds == 0 || it < rounds)) {
			unsigned th = 1 + (unsigned)(it & 7);
			unsigned a = 2 + (unsigned)(it % 8), b = 2 + (unsigned)((it + 3) % 8);
			unsigned c = 2 + (unsigned)((it + 5) % 8);
			uint64_t d = 10 + (it * 7919) % 5000;
			uint64_t h = 4 | 2 << 4 | (uint64_t)th << 24 | 1ULL << 32;
			if (ooo) {
				word((h + (1 << 4)) | 4u << 16 | (uint64_t)c << 48);
				word(t + 20);
				word(t + 20 + d);
				word((h + (1 << 4)) | 4u << 16 | (uint64_t)b << 48);
				word(t + 10);
				word(t + 30 + d);
				word((h + (1 << 4)) | 4u << 16 | (uint64_t)a << 48);
				word(t);
				word(t + 40 + d);
				goto tail;
			}
			word(h | 2u << 16 | (uint64_t)a << 48);
			word(t);
			word(h | 2u << 16 | (uint64_t)b << 48);
			word(t + 10);
			word((h + (1 << 4)) | 4u << 16 | (uint64_t)c << 48);
			word(t + 20);
			word(t + 20 + d);
			word(h | 3u << 16 | (uint64_t)b << 48);
			word(t + 30 + d);
			word(h | 3u << 16 | (uint64_t)a << 48);
			word(t + 40 + d);
		tail:
			word(h | 0u << 16 | 10ULL << 48);
			word(t + 50 + d);
			word((h + (2 << 4)) | 1u << 16 | 1u << 20 | 10ULL << 48);
			word(t + 50 + d);
			word(1 | 1 << 4 | 11u << 16 | (uint64_t)(it & 0xffff) << 32);
			word(th);
			t += 60 + d;
			it++;
		}
		fwrite(out, 1, outlen, f);
		done += outlen;
	}
	if (long_call) {
		outlen = 0;
		word(4 | 2 << 4 | 3u << 16 | 8ULL << 24 | 1ULL << 32 |
		    1ULL << 48);
		word(t);
		fwrite(out, 1, outlen, f);
		done += outlen;
	}
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	printf("%" PRIu64 " bytes, %" PRIu64 " records\n", done,
	    it * (ooo ? 5 : 7) + 23 + (long_call ? 2 : 0));
}

/* One run of diffpair.h's program: begin and end events of inline
 * threads and names, in time order, 1 tick a ns. */
static void
diff_run(const char *path, bool new_run, bool addresses)
{
	struct dp_trace dp = { 0 };
	char names[DP_NFUNCS][64];
	FILE *f;

	for (int k = 0; k < DP_NFUNCS; k++)
		dp_name(new_run, addresses, k, names[k], sizeof names[k]);
	magic();
	provider_info(1, "diffpair", 1000000000u);
	dp_program(new_run, &dp);
	for (size_t i = 0; i < dp.n; i++) {
		const struct dp_event *e = &dp.ev[i];
		struct tref th = INL(100, dp_tid(new_run, e->thread));
		if (e->enter)
			begin(th, STR(names[e->func]), (int64_t)e->ns);
		else
			end(th, STR(names[e->func]), (int64_t)e->ns);
	}
	free(dp.ev);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(out, 1, outlen, f) != outlen || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* ------------------------------------------------------ paced producer */

/*
 * A program traced as it runs: every 100 ms, the records of the calls
 * made since the last chunk, written with one write(2) of whole records
 * to the end of OUT, as a tracer flushing its buffer does. A call is a
 * begin and an end with indexed thread, category and name (16 bytes
 * each), so a call costs 32 bytes. Six threads interleave, each running
 * the same tree of five calls three deep, outer(mid(leaf), side(inner)),
 * so the threads' calls overlap in time. A record's time is the wall
 * clock's since the start (1 tick a ns), spread evenly over the chunk's
 * 100 ms, so the trace's time goes on with the wall clock. One call in
 * PACE_RARE is named rare_call, for a search whose output stays small.
 */
#define PACE_THREADS 6
#define PACE_RARE 10000
/* A thread's tree, as (begin?, name index) steps: 5 calls, 10 records. */
static const struct { bool begin; unsigned name; } pace_tree[] = {
	{ true, 2 }, { true, 3 }, { true, 4 }, { false, 4 }, { false, 3 },
	{ true, 5 }, { true, 6 }, { false, 6 }, { false, 5 }, { false, 2 },
};
#define PACE_STEPS (sizeof pace_tree / sizeof pace_tree[0])
/* records a round: every thread one whole tree, so a chunk of whole
 * rounds leaves no call open across chunks */
#define PACE_ROUND (PACE_THREADS * PACE_STEPS)

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
write_all(int fd, const char *path)
{
	size_t off = 0;

	while (off < outlen) {
		ssize_t n = write(fd, out + off, outlen - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fxtgen: %s: %s\n", path,
			    n < 0 ? strerror(errno) : "short write");
			exit(1);
		}
		off += (size_t)n;
	}
	outlen = 0;
}

static void
pace(const char *path, uint64_t rate, double seconds)
{
	static const char *names[] = { "outer", "mid", "leaf", "side",
	    "inner" };
	const int64_t period = 100000000;	/* ns between chunks */
	int64_t t0, last = 0, end_ns = (int64_t)(seconds * 1e9), late = 0;
	uint64_t calls = 0, records = 0, chunks = 0, rare = 0, k;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	unsigned i;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	magic();
	provider_info(1, "pace", 1000000000u);
	string_record(1, "cat");
	for (i = 0; i < 5; i++)
		string_record(2 + i, names[i]);
	string_record(7, "rare_call");
	for (i = 0; i < PACE_THREADS; i++)
		thread_record(1 + i, 100, 101 + i);
	write_all(fd, path);
	t0 = mono_ns();
	for (;;) {
		int64_t due = (int64_t)(chunks + 1) * period, now;
		uint64_t want, n;

		now = mono_ns() - t0;
		if (now < due) {
			struct timespec d = { 0, (long)(due - now) };

			while (nanosleep(&d, &d) != 0 && errno == EINTR)
				;
		}
		now = mono_ns() - t0;
		if (now > end_ns)
			now = end_ns;
		/* the calls the wall clock says are made by now, in whole
		 * rounds (what falls short of a round goes in the next) */
		want = (uint64_t)((double)rate * (double)now / 1e9) * 2;
		n = want > records ? (want - records) / PACE_ROUND * PACE_ROUND :
		    0;
		for (k = 0; k < n; k++) {
			uint64_t r = records + k;
			unsigned th = (unsigned)(r % PACE_THREADS);
			unsigned step = (unsigned)(r / PACE_THREADS % PACE_STEPS);
			unsigned name = pace_tree[step].name;
			int64_t ts = last + (int64_t)((double)(now - last) *
			    (double)k / (double)n);

			if (pace_tree[step].begin && ++calls % PACE_RARE == 0) {
				name = 7;
				rare++;
			}
			/* an event (type 4) of 2 words: duration begin (2) or
			 * end (3), thread, category 1, name */
			word(4 | 2 << 4 | (pace_tree[step].begin ? 2u : 3u) << 16 |
			    (uint64_t)(1 + th) << 24 | 1ULL << 32 |
			    (uint64_t)name << 48);
			word((uint64_t)ts);
			/* flush a big catch-up chunk on the way */
			if (outlen >= (64u << 20) && (k + 1) % PACE_ROUND == 0)
				write_all(fd, path);
		}
		records += n;
		write_all(fd, path);
		/* behind: the chunk written after it was due */
		if (mono_ns() - t0 - due > late)
			late = mono_ns() - t0 - due;
		last = now;
		chunks++;
		if (now >= end_ns)
			break;
	}
	if (close(fd) != 0) {
		perror(path);
		exit(1);
	}
	printf("%" PRIu64 " calls (%" PRIu64 " named rare_call) in %.1f s, "
	    "%" PRIu64 " bytes; %.0f calls/s asked; at worst %.1f ms behind "
	    "the wall clock\n", calls, rare, (double)end_ns / 1e9,
	    records * 16, (double)rate, (double)late / 1e6);
}

int
main(int argc, char **argv)
{
	bool truncate = false, ooo = false, addresses = false;
	bool long_call = false;
	const char *diff = NULL;
	uint64_t bulk_bytes = 0, rounds = 0;
	FILE *f;

	if (argc == 5 && strcmp(argv[1], "--pace") == 0) {
		uint64_t rate = strtoull(argv[2], NULL, 0);
		double seconds = atof(argv[3]);

		if (rate == 0 || !(seconds > 0 && seconds < 1e6)) {
			fprintf(stderr, "fxtgen: --pace: a rate above 0 and "
			    "seconds between 0 and 1e6\n");
			return 2;
		}
		pace(argv[4], rate, seconds);
		return 0;
	}
	while (argc > 1 && argv[1][0] == '-') {
		if (strcmp(argv[1], "-b") == 0)
			big = true;
		else if (strcmp(argv[1], "-t") == 0)
			truncate = true;
		else if (strcmp(argv[1], "-O") == 0)
			ooo = true;
		else if (strcmp(argv[1], "-A") == 0)
			addresses = true;
		else if (strcmp(argv[1], "-L") == 0)
			long_call = true;
		else if (strcmp(argv[1], "-D") == 0 && argc > 2) {
			diff = argv[2];
			argc--;
			argv++;
		}
		else if (strcmp(argv[1], "-B") == 0 && argc > 2) {
			bulk_bytes = strtoull(argv[2], NULL, 0);
			argc--;
			argv++;
		} else if (strcmp(argv[1], "-R") == 0 && argc > 2) {
			rounds = strtoull(argv[2], NULL, 0);
			argc--;
			argv++;
		} else
			break;
		argc--;
		argv++;
	}
	if (bulk_bytes > 0 && argc == 2) {
		bulk(argv[1], bulk_bytes, ooo, long_call, rounds);
		return 0;
	}
	if (diff != NULL && argc == 2 && (strcmp(diff, "base") == 0 ||
	    strcmp(diff, "new") == 0)) {
		diff_run(argv[1], strcmp(diff, "new") == 0, addresses);
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "full") != 0) {
		fprintf(stderr, "usage: fxtgen [-b] [-t] full OUT EXPECTED\n"
		    "       fxtgen [-b] [-O] [-L] [-R N] -B BYTES OUT\n"
		    "       fxtgen [-A] -D base|new OUT\n"
		    "       fxtgen --pace RATE SECONDS OUT\n");
		return 2;
	}
	scenario(truncate);
	f = fopen(argv[2], "wb");
	if (f == NULL || fwrite(out, 1, outlen, f) != outlen || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	write_expected(argv[3]);
	return 0;
}
