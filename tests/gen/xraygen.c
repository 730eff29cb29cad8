/*
 * xraygen: writes synthetic LLVM XRay logs for ttv's tests and benchmark.
 *
 *   xraygen [-v VERSION] [-b] [-f FREQ] [-s BUFSIZE] [-e EXPECT] SCENARIO OUT
 *   xraygen [-X] -B BYTES OUT       (a big FDR v5 log for the benchmark;
 *                                    -X: a changed run of the same program,
 *                                    for ttv --diff: function #6's exits
 *                                    take twice as long, #27 is #29)
 *
 * Scenarios: "full" (FDR: every record kind, nested calls, args, tail
 * exits, lost exits, an unterminated call, TSC wrap, CPU changes, custom
 * and typed events, many buffers of three threads interleaved), "ring"
 * (the same, but the buffer ring wrapped: the oldest buffers are gone and
 * the file order of the rest is not their time order), "basic" (basic
 * mode). -b writes big-endian; -v picks the format version (FDR 1-5,
 * basic 1-3); "deep" (FDR: -N calls each inside the last, default
 * 100000); -f the cycle frequency (0 = unknown); -O adds an offset to
 * every TSC (with -e only if times stay below 2^63 ns). -T N cuts the file to
 * N bytes; -Y reproduces the clang 14 typed-event extents bug.
 *
 * Each scenario is a script of calls per thread with absolute TSCs. The
 * writer encodes it the way the runtime does (deltas, TSCWrap when a
 * delta exceeds INT32_MAX, NewCPUId at each buffer start and CPU change,
 * a new buffer when one is full) and, with -e, writes what a reader must
 * rebuild from the buffers it kept — slices with depth, flags and args,
 * markers and record counts — from the script, in the canonical text
 * printed by tests/tools/xray_dump.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* ----------------------------------------------------------- the script */

enum op { OP_ENTER, OP_EXIT, OP_TAIL, OP_ENTER_ARGS, OP_ARG, OP_CUSTOM,
	OP_TYPED, OP_CPU };

struct ev {
	int op;
	uint32_t fid;
	uint64_t tsc;
	uint64_t arg;		/* OP_ARG value, OP_CPU cpu, OP_TYPED type */
	const char *payload;
	size_t plen;
};

struct thr {
	int32_t pid, tid;
	int cpu;		/* cpu at the start */
	struct ev *ev;
	size_t n, cap;
	uint64_t now;
};

static struct thr threads[8];
static int nthreads;
static int version = 5;
static bool big_endian;
static uint64_t freq = 2000000000ULL;
static size_t bufsize = 512;
static bool basic_mode;
static bool typed_bug;
/* -O: added to every TSC, as a machine up for months gives (with a low
 * -f, times in ns pass 2^63). */
static uint64_t tsc_offset;

static void *
xmalloc0(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "xraygen: out of memory\n");
		exit(1);
	}
	return p;
}

static struct thr *
thread(int32_t pid, int32_t tid, int cpu, uint64_t t0)
{
	struct thr *t = &threads[nthreads++];
	t->pid = pid;
	t->tid = tid;
	t->cpu = cpu;
	t->now = t0 + tsc_offset;
	return t;
}

static void
ev(struct thr *t, int op, uint32_t fid, uint64_t dt, uint64_t arg,
    const char *payload, size_t plen)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->ev = realloc(t->ev, t->cap * sizeof *t->ev);
		if (t->ev == NULL)
			exit(1);
	}
	t->now += dt;
	t->ev[t->n++] = (struct ev){ op, fid, t->now, arg, payload, plen };
}

#define ENTER(t, f, dt) ev(t, OP_ENTER, f, dt, 0, NULL, 0)
#define EXIT(t, f, dt) ev(t, OP_EXIT, f, dt, 0, NULL, 0)
#define TAIL(t, f, dt) ev(t, OP_TAIL, f, dt, 0, NULL, 0)
#define ENTER_ARGS(t, f, dt) ev(t, OP_ENTER_ARGS, f, dt, 0, NULL, 0)
#define ARG(t, v) ev(t, OP_ARG, 0, 0, v, NULL, 0)
#define CPU(t, c, dt) ev(t, OP_CPU, 0, dt, c, NULL, 0)
#define CUSTOM(t, s, n, dt) ev(t, OP_CUSTOM, 0, dt, 0, s, n)
#define TYPED(t, ty, s, n, dt) ev(t, OP_TYPED, 0, dt, ty, s, n)

/* "deep": one thread, deep_n calls each inside the last, then their
 * exits: the stack a runaway recursion leaves (8 bytes a record). */
static uint64_t deep_n = 100000;

static void
script_deep(void)
{
	struct thr *a = thread(version >= 3 ? 100 : 0, 11, 0, 5000000);

	for (uint64_t i = 0; i < deep_n; i++)
		ENTER(a, 1 + (uint32_t)(i % 7), 10);
	for (uint64_t i = 0; i < deep_n; i++)
		EXIT(a, 1 + (uint32_t)((deep_n - 1 - i) % 7), 10);
}

static void
script_full(bool ring)
{
	bool fdr = !basic_mode;
	/* v1/v2 logs have no pid: keep the threads apart by tid */
	bool pids = basic_mode ? version >= 3 : version >= 3;
	struct thr *a = thread(pids ? 100 : 0, 11, 0, 5000000);
	struct thr *b = thread(pids ? 100 : 0, 12, 1, 5000100);
	struct thr *c = thread(pids ? 200 : 0, pids ? 11 : 13, 0, 5000200);

	/* a: args, tail exits, events, cpu change, TSC wrap */
	ENTER(a, 1, 0);
	ENTER_ARGS(a, 2, 100);
	ARG(a, 42);
	if (fdr)
		ARG(a, UINT64_MAX - 6);	/* a second argument, "-7" */
	EXIT(a, 2, 200);
	ENTER(a, 3, 100);
	if (version >= 2 || fdr) {
		TAIL(a, 3, 100);	/* 3 jumps to 4 */
		ENTER(a, 4, 0);
		EXIT(a, 4, 200);
	} else {
		EXIT(a, 3, 300);
	}
	if (fdr)
		CUSTOM(a, "hello\x01\xff world", 14, 50);
	EXIT(a, 1, 50);
	if (fdr)
		CPU(a, 1, 200);
	ENTER(a, 5, fdr ? 0 : 200);
	EXIT(a, 5, 100);
	/* silence longer than INT32_MAX ticks: a TSCWrap record */
	ENTER(a, 6, 3000000000ULL);
	if (fdr && version >= 5)
		TYPED(a, 3, "typed\0evt", 9, 100);
	EXIT(a, 6, 500);
	if (fdr)
		CPU(a, 0, 100);
	/* many small calls: several buffers. A large id, but with bit 20
	 * clear: in a big-endian log that bit is the low bit of a function
	 * record's first byte, which framing reads as "metadata". */
	for (int i = 0; i < 40; i++) {
		ENTER(a, 7, 100);
		ENTER(a, 0x0fefffff, 10 + (uint64_t)i);
		EXIT(a, 0x0fefffff, 20);
		EXIT(a, 7, 30);
	}
	/* an exit whose entry is not open: a NO_ENTRY slice */
	ENTER(a, 9, 100);
	EXIT(a, 10, 40);
	EXIT(a, 9, 60);
	/* an exit that closes a frame whose own exit was lost */
	ENTER(a, 11, 100);
	ENTER(a, 12, 10);
	EXIT(a, 11, 90);
	/* never exits: unterminated, ends at the thread's last time */
	ENTER(a, 13, 100);
	ENTER(a, 14, 10);
	EXIT(a, 14, 80);

	/* b: recursion 20 deep, twice */
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < 20; i++)
			ENTER(b, 20, 7);
		for (int i = 0; i < 20; i++)
			EXIT(b, 20, 5);
	}
	ENTER(b, 0, 1000);		/* function id 0 */
	EXIT(b, 0, 1);

	/* c: a pipeline, with a custom event in the middle */
	for (int i = 0; i < 15; i++) {
		ENTER(c, 30, 50);
		ENTER(c, 31, 10);
		if (fdr && i == 7)
			CUSTOM(c, "step 7", 6, 1);
		EXIT(c, 31, 20);
		ENTER(c, 32, 10);
		EXIT(c, 32, 20);
		EXIT(c, 30, 5);
	}
	(void)ring;
}

/* ------------------------------------------------------------- encoding */

struct out {
	unsigned char *p;
	size_t n, cap;
};

static void
put(struct out *o, const void *src, size_t n)
{
	if (o->n + n > o->cap) {
		while (o->n + n > o->cap)
			o->cap = o->cap ? o->cap * 2 : 4096;
		o->p = realloc(o->p, o->cap);
		if (o->p == NULL)
			exit(1);
	}
	memcpy(o->p + o->n, src, n);
	o->n += n;
}

static void
put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[big_endian ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void
meta(struct out *o, int kind, const void *body, size_t len)
{
	unsigned char r[16];
	/* unused bytes are not zero in real logs */
	memset(r, 0xa5, sizeof r);
	r[0] = (unsigned char)(kind << 1 | 1);
	memcpy(r + 1, body, len);
	put(o, r, 16);
}

static void
header(struct out *o, int type)
{
	unsigned char h[32] = { 0 };
	put_le(h, (uint64_t)version, 2);
	put_le(h + 2, (uint64_t)type, 2);
	put_le(h + 4, type == 1 ? 3 : 0xfffffffc | 3, 4);
	put_le(h + 8, freq, 8);
	if (type == 1)
		put_le(h + 16, bufsize, 8);
	put(o, h, 32);
}

/* What the writer put in a buffer, at the level a reader interprets. */
enum item_kind { IT_FUNC, IT_ARG, IT_CPU, IT_WRAP, IT_CUSTOM, IT_TYPED };
struct item {
	int kind;
	const struct ev *e;	/* IT_FUNC/ARG/CUSTOM/TYPED */
	uint64_t tsc;		/* IT_CPU, IT_WRAP, and event times */
	int cpu;
};

struct gbuf {
	int thr;
	struct out bytes;	/* from NewBuffer (or extents) on */
	struct item *it;
	size_t nit, capit;
	uint64_t first_tsc;
	size_t off;		/* offset in the file */
	int ntyped;
	bool keep;
};

static struct gbuf *bufs;
static size_t nbufs, capbufs;

static void
item(struct gbuf *g, int kind, const struct ev *e, uint64_t tsc, int cpu)
{
	if (g->nit == g->capit) {
		g->capit = g->capit ? g->capit * 2 : 32;
		g->it = realloc(g->it, g->capit * sizeof *g->it);
		if (g->it == NULL)
			exit(1);
	}
	g->it[g->nit++] = (struct item){ kind, e, tsc, cpu };
}

/* Counts of record kinds written into kept buffers (for the expectation). */
static uint64_t cnt_meta[10], cnt_func[4];

static struct gbuf *
new_buf(int ti, uint64_t tsc, int cpu)
{
	struct thr *t = &threads[ti];
	unsigned char b[16];

	if (nbufs == capbufs) {
		capbufs = capbufs ? capbufs * 2 : 32;
		bufs = realloc(bufs, capbufs * sizeof *bufs);
		if (bufs == NULL)
			exit(1);
	}
	struct gbuf *g = &bufs[nbufs++];
	memset(g, 0, sizeof *g);
	g->thr = ti;
	g->first_tsc = tsc;
	g->keep = true;
	put_le(b, (uint32_t)t->tid, 4);
	meta(&g->bytes, 0, b, 4);
	put_le(b, tsc / (freq ? freq : 1), 8);
	put_le(b + 8, 123456, 4);
	meta(&g->bytes, 4, b, 12);
	if (version >= 3) {
		put_le(b, (uint32_t)t->pid, 4);
		meta(&g->bytes, 9, b, 4);
	}
	put_le(b, (uint64_t)cpu, 2);
	put_le(b + 2, tsc, 8);
	meta(&g->bytes, 2, b, 10);
	item(g, IT_CPU, NULL, tsc, cpu);
	return g;
}

/* Bytes an event unit (an entry with its arguments) needs at most. */
static size_t
unit_size(const struct thr *t, size_t i, size_t *nev)
{
	const struct ev *e = &t->ev[i];
	size_t n = 0, k = 1;
	switch (e->op) {
	case OP_CUSTOM:
	case OP_TYPED:
		n = 32 + e->plen;
		break;
	case OP_CPU:
		n = 16;
		break;
	default:
		n = 24;		/* function record and a possible TSCWrap */
		while (i + k < t->n && t->ev[i + k].op == OP_ARG) {
			n += 16;
			k++;
		}
	}
	*nev = k;
	return n;
}

static void
encode_thread(int ti)
{
	struct thr *t = &threads[ti];
	struct gbuf *g = NULL;
	uint64_t base = 0;
	int cpu = t->cpu;
	unsigned char b[16];
	/* room for records after the preamble; v1 keeps 16 for EndOfBuffer */
	size_t cap = bufsize - 16;

	for (size_t i = 0; i < t->n;) {
		size_t nev;
		size_t need = unit_size(t, i, &nev);
		const struct ev *e = &t->ev[i];
		if (g == NULL || g->bytes.n + need > cap) {
			if (e->op == OP_CPU) {
				cpu = (int)e->arg;
				g = new_buf(ti, e->tsc, cpu);
				base = e->tsc;
				i++;
				continue;
			}
			g = new_buf(ti, e->tsc, cpu);
			base = e->tsc;
		}
		for (size_t k = 0; k < nev; k++, i++) {
			e = &t->ev[i];
			switch (e->op) {
			case OP_ARG:
				put_le(b, e->arg, 8);
				meta(&g->bytes, 6, b, 8);
				item(g, IT_ARG, e, 0, cpu);
				continue;
			case OP_CPU:
				cpu = (int)e->arg;
				put_le(b, (uint64_t)cpu, 2);
				put_le(b + 2, e->tsc, 8);
				meta(&g->bytes, 2, b, 10);
				base = e->tsc;
				item(g, IT_CPU, e, e->tsc, cpu);
				continue;
			case OP_CUSTOM:
				if (version < 5) {
					/* absolute TSC; the base stays */
					put_le(b, e->plen, 4);
					put_le(b + 4, e->tsc, 8);
					if (version == 4)
						put_le(b + 12, (uint64_t)cpu, 2);
					meta(&g->bytes, 5, b, version == 4 ? 14 :
					    12);
					put(&g->bytes, e->payload, e->plen);
					item(g, IT_CUSTOM, e, e->tsc, cpu);
					continue;
				}
				/* FALLTHROUGH */
			default:
				if (e->tsc < base || e->tsc - base > INT32_MAX) {
					put_le(b, e->tsc, 8);
					meta(&g->bytes, 3, b, 8);
					item(g, IT_WRAP, e, e->tsc, cpu);
					base = e->tsc;
				}
				break;
			}
			uint32_t delta = (uint32_t)(e->tsc - base);
			base = e->tsc;
			if (e->op == OP_CUSTOM || e->op == OP_TYPED) {
				put_le(b, e->plen, 4);
				put_le(b + 4, delta, 4);
				if (e->op == OP_TYPED)
					put_le(b + 8, e->arg, 2);
				meta(&g->bytes, e->op == OP_TYPED ? 8 : 5, b,
				    e->op == OP_TYPED ? 10 : 8);
				put(&g->bytes, e->payload, e->plen);
				item(g, e->op == OP_TYPED ? IT_TYPED : IT_CUSTOM,
				    e, e->tsc, cpu);
				if (e->op == OP_TYPED)
					g->ntyped++;
				continue;
			}
			unsigned char r[8];
			put_le(r, (uint32_t)e->fid << 4 | (uint32_t)e->op << 1, 4);
			put_le(r + 4, delta, 4);
			put(&g->bytes, r, 8);
			item(g, IT_FUNC, e, e->tsc, cpu);
		}
	}
}

static int
cmp_first(const void *a, const void *b)
{
	const struct gbuf *x = a, *y = b;
	/* round-robin by each thread's buffer number, like a shared queue */
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Lays the buffers out in file order: round-robin over the threads; for a
 * ring, the two oldest buffers of thread 0 and the oldest of thread 1 are
 * gone and each round is written in reverse. Returns the file. */
static struct out
layout_fdr(bool ring)
{
	struct out o = { 0 };
	size_t per[8] = { 0 };

	/* off temporarily holds the sort key */
	for (size_t i = 0; i < nbufs; i++) {
		struct gbuf *g = &bufs[i];
		size_t round = per[g->thr]++;
		/* a ring hands slots out again: scramble the order */
		size_t perm = ring ? (round * 2654435761u + (size_t)g->thr *
		    40503u) % 1000003 : round;
		g->off = perm << 12 | round << 4 | (size_t)g->thr;
		if (ring && ((g->thr == 0 && round < 2) ||
		    (g->thr == 1 && round < 1)))
			g->keep = false;
	}
	xqsort(bufs, nbufs, sizeof *bufs, cmp_first);
	header(&o, 1);
	for (size_t i = 0; i < nbufs; i++) {
		struct gbuf *g = &bufs[i];
		unsigned char b[16];
		if (!g->keep)
			continue;
		g->off = o.n;
		if (version >= 2) {
			/* an empty slot before the second buffer */
			if (i == 1) {
				put_le(b, 0, 8);
				meta(&o, 7, b, 8);
				cnt_meta[7]++;
				g->off = o.n;
			}
			size_t n = g->bytes.n;
			if (typed_bug)
				n -= 16 * (size_t)g->ntyped;
			put_le(b, n, 8);
			meta(&o, 7, b, 8);
			cnt_meta[7]++;
			/* with the bug, the records past n never reach the
			 * file */
			put(&o, g->bytes.p, n);
		} else {
			put(&o, g->bytes.p, g->bytes.n);
			memset(b, 0, sizeof b);
			meta(&o, 1, b, 0);
			cnt_meta[1]++;
			unsigned char zero[64] = { 0 };
			for (size_t k = g->bytes.n + 16; k < bufsize; k += 64)
				put(&o, zero, bufsize - k < 64 ? bufsize - k : 64);
		}
	}
	return o;
}

/* ----------------------------------------------------------- expectation */

static FILE *expect_fp;

static int64_t
ns(uint64_t ticks)
{
	if (freq == 0)
		return ticks > INT64_MAX ? INT64_MAX : (int64_t)ticks;
	unsigned __int128 r = (unsigned __int128)ticks * 1000000000u / freq;
	return r > INT64_MAX ? INT64_MAX : (int64_t)r;
}

struct xslice {
	int depth;
	int64_t start, dur;
	uint32_t fid;
	unsigned flags;
	uint64_t args[4];
	int nargs;
};

enum { F_UNTERM = 1, F_TAIL = 2, F_NOENTRY = 4, F_UNWOUND = 8 };

struct xthread {
	struct xslice *done;
	size_t ndone, capdone;
	struct xslice stack[256];
	int depth;
	int64_t first, last, prev;
	bool have_first, have_prev;
	int cpu;
	uint64_t orphans;
	bool arg_open;
};

static void
close_slice(struct xthread *x, struct xslice s)
{
	if (x->ndone == x->capdone) {
		x->capdone = x->capdone ? x->capdone * 2 : 64;
		x->done = realloc(x->done, x->capdone * sizeof *x->done);
		if (x->done == NULL)
			exit(1);
	}
	x->done[x->ndone++] = s;
}

static void
touch(struct xthread *x, int64_t t)
{
	if (!x->have_first) {
		x->first = t;
		x->have_first = true;
	}
	if (t > x->last)
		x->last = t;
}

static void
x_func(struct xthread *x, const struct ev *e, int64_t t)
{
	touch(x, t);
	if (e->op == OP_ENTER || e->op == OP_ENTER_ARGS) {
		struct xslice s = { .depth = x->depth, .start = t,
			.fid = e->fid };
		x->stack[x->depth++] = s;
		x->arg_open = true;
	} else {
		unsigned fl = e->op == OP_TAIL ? F_TAIL : 0;
		int k = x->depth - 1;
		while (k >= 0 && x->stack[k].fid != e->fid)
			k--;
		if (k >= 0) {
			while (x->depth > k) {
				struct xslice s = x->stack[--x->depth];
				s.dur = t - s.start;
				s.flags |= x->depth == k ? fl : F_UNWOUND;
				close_slice(x, s);
			}
		} else if (x->depth == 0) {
			/* parent of everything already on the track */
			for (size_t i = 0; i < x->ndone; i++)
				x->done[i].depth++;
			struct xslice s = { .depth = 0, .start = x->first,
				.dur = t - x->first, .fid = e->fid,
				.flags = fl | F_NOENTRY };
			close_slice(x, s);
			x->orphans++;
		} else {
			int64_t st = x->have_prev ? x->prev : t;
			struct xslice s = { .depth = x->depth, .start = st,
				.dur = t - st, .fid = e->fid,
				.flags = fl | F_NOENTRY };
			close_slice(x, s);
		}
		x->arg_open = false;
	}
	x->prev = t;
	x->have_prev = true;
}

static void
thread_key(int ti, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRId32 " %" PRId32, threads[ti].pid,
	    threads[ti].tid);
}

static void
payload_text(char *dst, const char *p, size_t n)
{
	/* The model drops the NULs that end a payload and keeps one inside
	 * (the dump writes it \x00). */
	while (n > 0 && p[n - 1] == 0)
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c >= 0x21 && c < 0x7f && c != '\\')
			*dst++ = (char)c;
		else
			dst += sprintf(dst, "\\x%02x", c);
	}
	*dst = 0;
}

static void
finish_thread(int ti, struct xthread *x)
{
	char key[64];
	thread_key(ti, key, sizeof key);
	while (x->depth > 0) {
		struct xslice s = x->stack[--x->depth];
		s.dur = x->last - s.start;
		s.flags |= F_UNTERM;
		close_slice(x, s);
	}
	for (size_t i = 0; i < x->ndone; i++) {
		struct xslice *s = &x->done[i];
		char fl[8], *f = fl;
		if (s->flags & F_UNTERM)
			*f++ = 'U';
		if (s->flags & F_TAIL)
			*f++ = 'T';
		if (s->flags & F_NOENTRY)
			*f++ = 'N';
		if (s->flags & F_UNWOUND)
			*f++ = 'W';
		if (s->nargs)
			*f++ = 'A';
		if (f == fl)
			*f++ = '-';
		*f = 0;
		fprintf(expect_fp, "slice %s %d %" PRId64 " %" PRId64 " #%" PRIu32
		    " %s\n", key, s->depth, s->start, s->dur, s->fid, fl);
		for (int k = 0; k < s->nargs; k++)
			fprintf(expect_fp, "arg %s %d %" PRId64 " arg%d %" PRIu64 "\n",
			    key, s->depth, s->start, k, s->args[k]);
	}
	if (x->orphans)
		fprintf(expect_fp, "marker dropped %s %" PRId64 " %" PRIu64 "\n",
		    key, x->first, x->orphans);
	free(x->done);
}

static void
marker(int ti, const char *kind, int64_t t, int64_t value, const char *text)
{
	char key[64];
	thread_key(ti, key, sizeof key);
	fprintf(expect_fp, "marker %s %s %" PRId64 " %" PRId64 "%s%s\n", kind, key,
	    t, value, text ? " " : "", text ? text : "");
}

static void
count(const char *kind, uint64_t n)
{
	if (n)
		fprintf(expect_fp, "count %s %" PRIu64 "\n", kind, n);
}

static int
cmp_time(const void *a, const void *b)
{
	const struct gbuf *x = *(struct gbuf *const *)a;
	const struct gbuf *y = *(struct gbuf *const *)b;
	if (x->first_tsc != y->first_tsc)
		return x->first_tsc < y->first_tsc ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void
expect_fdr(void)
{
	struct gbuf **order = xmalloc0(nbufs * sizeof *order);
	size_t n = 0;
	for (size_t i = 0; i < nbufs; i++)
		if (bufs[i].keep)
			order[n++] = &bufs[i];
	xqsort(order, n, sizeof *order, cmp_time);

	fprintf(expect_fp, "format xray-fdr %d %s\n", version, big_endian ?
	    "big-endian" : "little-endian");
	for (int ti = 0; ti < nthreads; ti++) {
		struct xthread x = { .cpu = -1 };
		for (size_t bi = 0; bi < n; bi++) {
			struct gbuf *g = order[bi];
			if (g->thr != ti)
				continue;
			int64_t bfirst = 0, blast = 0;
			bool any = false;
			cnt_meta[0]++;
			cnt_meta[4]++;
			if (version >= 3)
				cnt_meta[9]++;
			x.arg_open = false;
			for (size_t k = 0; k < g->nit; k++) {
				struct item *it = &g->it[k];
				int64_t t = ns(it->tsc);
				if (t < x.prev && x.have_prev)
					t = x.prev;
				switch (it->kind) {
				case IT_CPU:
					cnt_meta[2]++;
					if (x.cpu >= 0 && it->cpu != x.cpu)
						marker(ti, "cpu-change", t,
						    it->cpu, NULL);
					x.cpu = it->cpu;
					touch(&x, t);
					break;
				case IT_WRAP:
					cnt_meta[3]++;
					marker(ti, "tsc-wrap", t, 0, NULL);
					touch(&x, t);
					break;
				case IT_ARG:
					cnt_meta[6]++;
					if (x.arg_open && x.depth > 0) {
						struct xslice *s =
						    &x.stack[x.depth - 1];
						s->args[s->nargs++] = it->e->arg;
					}
					continue;
				case IT_CUSTOM:
				case IT_TYPED: {
					char text[256];
					cnt_meta[it->kind == IT_TYPED ? 8 : 5]++;
					payload_text(text, it->e->payload,
					    it->e->plen);
					marker(ti, it->kind == IT_TYPED ?
					    "typed-event" : "custom-event", t,
					    it->kind == IT_TYPED ?
					    (int64_t)it->e->arg : 0, text);
					touch(&x, t);
					x.prev = t;
					x.have_prev = true;
					break;
				}
				case IT_FUNC:
					cnt_func[it->e->op]++;
					x_func(&x, it->e, t);
					break;
				}
				if (!any)
					bfirst = t;
				any = true;
				/* the last timestamped record, not a NewCPUId */
				if (it->kind != IT_CPU && it->kind != IT_WRAP)
					blast = t;
			}
			marker(ti, "buffer-start", bfirst, (int64_t)g->off, NULL);
			marker(ti, "buffer-end", blast > bfirst ? blast : bfirst,
			    (int64_t)g->off, NULL);
		}
		if (x.have_first)
			finish_thread(ti, &x);
	}
	count("function-enter", cnt_func[OP_ENTER]);
	count("function-exit", cnt_func[OP_EXIT]);
	count("function-tail-exit", cnt_func[OP_TAIL]);
	count("function-enter-args", cnt_func[OP_ENTER_ARGS]);
	static const char *const mnames[10] = { "NewBuffer", "EndOfBuffer",
		"NewCPUId", "TSCWrap", "WalltimeMarker", "CustomEvent",
		"CallArgument", "BufferExtents", "TypedEvent", "Pid" };
	for (int i = 0; i < 10; i++)
		count(mnames[i], cnt_meta[i]);
	free(order);
}

/* ---------------------------------------------------------------- basic */

struct brec {
	const struct ev *e;
	int ti;
};

static struct out
write_basic(void)
{
	struct out o = { 0 };
	size_t pos[8] = { 0 };
	const size_t chunk = 24;	/* records per flushed chunk */
	struct xthread xs[8];
	uint64_t nfunc[4] = { 0 }, npay = 0;

	memset(xs, 0, sizeof xs);
	for (int i = 0; i < nthreads; i++)
		xs[i].cpu = -1;
	header(&o, 0);
	if (expect_fp)
		fprintf(expect_fp, "format xray-basic %d %s\n", version, big_endian ?
		    "big-endian" : "little-endian");
	/* chunks of the threads in turn, like per-thread buffers flushed
	 * when full */
	for (bool more = true; more;) {
		more = false;
		for (int ti = 0; ti < nthreads; ti++) {
			struct thr *t = &threads[ti];
			struct xthread *x = &xs[ti];
			size_t written = 0;
			/* an argument payload stays with its entry */
			while (pos[ti] < t->n && (written < chunk ||
			    t->ev[pos[ti]].op == OP_ARG)) {
				const struct ev *e = &t->ev[pos[ti]++];
				unsigned char r[32];
				memset(r, 0, sizeof r);
				written++;
				int64_t tm = ns(e->tsc);
				if (e->op == OP_ARG) {
					put_le(r, 1, 2);
					put_le(r + 4, t->ev[pos[ti] - 2].fid, 4);
					put_le(r + 8, (uint32_t)t->tid, 4);
					put_le(r + 12, (uint32_t)t->pid, 4);
					put_le(r + 16, e->arg, 8);
					put(&o, r, 32);
					npay++;
					if (x->arg_open && x->depth > 0) {
						struct xslice *s =
						    &x->stack[x->depth - 1];
						s->args[s->nargs++] = e->arg;
					}
					continue;
				}
				int cpu = (int)((pos[ti] / 7) & 1);
				put_le(r, 0, 2);
				r[2] = (unsigned char)cpu;
				r[3] = (unsigned char)e->op;
				put_le(r + 4, e->fid, 4);
				put_le(r + 8, e->tsc, 8);
				put_le(r + 16, (uint32_t)t->tid, 4);
				if (version >= 3)
					put_le(r + 20, (uint32_t)t->pid, 4);
				put(&o, r, 32);
				nfunc[e->op]++;
				if (x->cpu >= 0 && cpu != x->cpu && expect_fp)
					marker(ti, "cpu-change", tm, cpu, NULL);
				x->cpu = cpu;
				x_func(x, e, tm);
			}
			if (pos[ti] < t->n)
				more = true;
		}
	}
	if (expect_fp) {
		for (int ti = 0; ti < nthreads; ti++)
			if (xs[ti].have_first)
				finish_thread(ti, &xs[ti]);
		count("function-enter", nfunc[OP_ENTER]);
		count("function-exit", nfunc[OP_EXIT]);
		count("function-tail-exit", nfunc[OP_TAIL]);
		count("function-enter-args", nfunc[OP_ENTER_ARGS]);
		count("arg-payload", npay);
	} else {
		/* what finish_thread frees */
		for (int ti = 0; ti < nthreads; ti++)
			free(xs[ti].done);
	}
	return o;
}

/* ------------------------------------------------------------------ big */

/* -X: the big log's changed run. */
static bool big_changed;

/* The function id of call depth d of call group s of the big log. */
static uint32_t
big_fid(uint32_t s, int d)
{
	uint32_t f = (uint32_t)(1 + d + (int)(s % 7) * 4);
	return big_changed && f == 27 ? 29 : f;
}

/* A big FDR v5 log, streamed: 4 threads, 16 KiB buffers in turn, calls
 * nested 1-4 deep. Prints the number of function records. */
static int
write_big(const char *path, uint64_t bytes)
{
	FILE *f = fopen(path, "wb");
	struct out o = { 0 };
	uint64_t tsc[4] = { 1000000, 1000500, 1001000, 1001500 };
	uint64_t nrec = 0, written = 32;
	uint32_t step[4] = { 0 };

	if (f == NULL) {
		perror(path);
		return 1;
	}
	version = 5;
	bufsize = 16384;
	header(&o, 1);
	fwrite(o.p, 1, o.n, f);
	o.n = 0;
	while (written < bytes) {
		for (int ti = 0; ti < 4 && written < bytes; ti++) {
			unsigned char b[16];
			struct out g = o;
			g.n = 0;
			meta(&g, 7, b, 8);	/* extents, patched below */
			put_le(b, (uint32_t)(1000 + ti), 4);
			meta(&g, 0, b, 4);
			put_le(b, 1, 8);
			put_le(b + 8, 0, 4);
			meta(&g, 4, b, 12);
			put_le(b, 4242, 4);
			meta(&g, 9, b, 4);
			put_le(b, (uint64_t)ti, 2);
			put_le(b + 2, tsc[ti], 8);
			meta(&g, 2, b, 10);
			/* whole call groups while they fit */
			while (g.n + 8 * 8 <= bufsize) {
				uint32_t s = step[ti]++;
				int depth = 1 + (int)(s % 4);
				unsigned char r[8];
				for (int d = 0; d < depth; d++) {
					put_le(r, big_fid(s, d) << 4, 4);
					put_le(r + 4, 10 + (uint64_t)d, 4);
					put(&g, r, 8);
					tsc[ti] += 10 + (uint64_t)d;
				}
				for (int d = depth - 1; d >= 0; d--) {
					uint32_t fid = big_fid(s, d);
					uint32_t dt = big_changed && fid == 6 ?
					    60 : 30;
					put_le(r, fid << 4 | 2, 4);
					put_le(r + 4, dt, 4);
					put(&g, r, 8);
					tsc[ti] += dt;
				}
				nrec += 2 * (uint64_t)depth;
			}
			g.p[0] = 7 << 1 | 1;
			put_le(g.p + 1, g.n - 16, 8);
			fwrite(g.p, 1, g.n, f);
			written += g.n;
			o = g;
		}
	}
	if (fclose(f) != 0) {
		perror(path);
		return 1;
	}
	printf("%" PRIu64 "\n", nrec);
	free(o.p);
	return 0;
}

/* ----------------------------------------------------------------- main */

static void
usage(void)
{
	fprintf(stderr, "usage: xraygen [-v VERSION] [-b] [-f FREQ] [-s BUFSIZE] "
	    "[-T BYTES] [-Y] [-e EXPECT] full|ring|basic OUT\n"
	    "       xraygen [-X] -B BYTES OUT\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *expect = NULL;
	long long truncate_to = -1;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];
		if (strcmp(o, "-b") == 0)
			big_endian = true;
		else if (strcmp(o, "-X") == 0)
			big_changed = true;
		else if (strcmp(o, "-Y") == 0)
			typed_bug = true;
		else if (i + 1 >= argc)
			usage();
		else if (strcmp(o, "-v") == 0)
			version = atoi(argv[++i]);
		else if (strcmp(o, "-f") == 0)
			freq = strtoull(argv[++i], NULL, 0);
		else if (strcmp(o, "-N") == 0)
			deep_n = strtoull(argv[++i], NULL, 0);
		else if (strcmp(o, "-O") == 0)
			tsc_offset = strtoull(argv[++i], NULL, 0);
		else if (strcmp(o, "-s") == 0)
			bufsize = strtoull(argv[++i], NULL, 0);
		else if (strcmp(o, "-e") == 0)
			expect = argv[++i];
		else if (strcmp(o, "-T") == 0)
			truncate_to = atoll(argv[++i]);
		else if (strcmp(o, "-B") == 0) {
			uint64_t n = strtoull(argv[++i], NULL, 0);
			if (i + 1 >= argc)
				usage();
			return write_big(argv[i + 1], n);
		} else
			usage();
	}
	if (argc - i != 2)
		usage();
	const char *scen = argv[i], *out = argv[i + 1];
	basic_mode = strcmp(scen, "basic") == 0;
	bool ring = strcmp(scen, "ring") == 0;
	bool deep = strcmp(scen, "deep") == 0;
	if (!basic_mode && !ring && !deep && strcmp(scen, "full") != 0)
		usage();
	if (basic_mode ? version < 1 || version > 3 : version < 1 || version > 5)
		usage();
	if (bufsize < 128)
		usage();
	if (expect != NULL && (expect_fp = fopen(expect, "w")) == NULL) {
		perror(expect);
		return 1;
	}
	if (deep)
		script_deep();
	else
		script_full(ring);
	struct out o;
	if (basic_mode) {
		o = write_basic();
	} else {
		for (int t = 0; t < nthreads; t++)
			encode_thread(t);
		o = layout_fdr(ring);
		if (expect_fp)
			expect_fdr();
	}
	if (truncate_to >= 0 && (size_t)truncate_to < o.n)
		o.n = (size_t)truncate_to;
	FILE *f = fopen(out, "wb");
	if (f == NULL || fwrite(o.p, 1, o.n, f) != o.n || fclose(f) != 0) {
		perror(out);
		return 1;
	}
	free(o.p);
	if (expect_fp && fclose(expect_fp) != 0) {
		perror(expect);
		return 1;
	}
	return 0;
}
