/*
 * cpgen: the project's own CoreProfiler TraceLog writer, for fixtures,
 * fuzz seeds and benchmarks.
 *
 * It simulates managed threads walking a call graph and writes the log the
 * way the profiler does (shared/formats/coreprofiler.md): `sam str` deltas
 * from a per-thread event channel (match prefix = lowest depth since the
 * previous record, stack size = depth at the previous record, new frames
 * above the prefix), per-thread lines drained from buffers at random so
 * that threads interleave out of time order, every record type, and on
 * request damaged lines. Beside the log it writes what a reader must find
 * (a summary JSON in the layout of shared/traces/coreprofiler), computed
 * from the simulation's own state, never by reading the log back.
 *
 *   cpgen [--seed N] [--lines N] [--mode sampling|instrumentation]
 *         [--threads N] [--malformed] [--stack-track] [--ptr-bits 32|64]
 *         [--ip-style 0x|bare] [--out FILE] [--summary FILE|none]
 *
 * The summary goes beside the log (X.log or X.tracelog -> X.summary.json)
 * unless --summary says otherwise.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* ------------------------------------------------------------ randomness */

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t
rint_(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static double
rfrac(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static void *
xmalloc_(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "cpgen: out of memory\n");
		exit(1);
	}
	return p;
}

static void *
xrealloc_(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "cpgen: out of memory\n");
		exit(1);
	}
	return p;
}

/* ------------------------------------------------------------ catalogue */

/* Names as the profiler writes them: generics with backticks and angle
 * brackets, one with spaces and double quotes. No ';' (collapsed stacks). */
static const char *const classes[] = {
	"System.Threading.ThreadHelper",
	"System.Threading.ExecutionContext",
	"System.String",
	"System.Collections.Generic.List`1<System.String>",
	"System.Collections.Generic.Dictionary`2<System.String,System.Int32>",
	"System.Linq.Enumerable",
	"Demo.Viewer.App",
	"Demo.Viewer.Decoder",
	"Demo.Viewer.Script",
	"System.Byte[]",
};
#define NCLASSES (sizeof classes / sizeof classes[0])

struct fdef {
	const char *meth;
	int cls;
	const char *ret, *sig;
	int callees[4];		/* -1 terminated */
};

static const struct fdef fdefs[] = {
	{ "Main", 6, "void", "(System.String[])", { 2, 3, 4, -1 } },
	{ "ThreadStart", 0, "void", "()", { 2, -1 } },
	{ "RunInternal", 1, "void", "(System.Threading.ExecutionContext, System.Object)", { 3, 5, 7, -1 } },
	{ "Decode", 7, "System.Byte[]", "(System.Byte[], System.Int32)", { 5, 6, 8, -1 } },
	{ "Render", 6, "void", "(System.Collections.Generic.List`1<System.String>)", { 9, 10, 8, -1 } },
	{ "ReadBlock", 7, "System.Int32", "(System.Byte[], System.Int32&)", { 5, 11, -1 } },
	{ "Huffman", 7, "System.Int32", "(System.Byte[])", { 11, -1 } },
	{ "run \"quoted\" step", 8, "System.String", "(System.String, System.Int32)", { 10, 8, -1 } },
	{ "Concat", 2, "System.String", "(System.String, System.String)", { -1 } },
	{ "Add", 3, "void", "(System.String)", { -1 } },
	{ "TryGetValue", 4, "bool", "(System.String, System.Int32&)", { 8, -1 } },
	{ "ToList", 5, "System.Collections.Generic.List`1<System.String>", "(System.Collections.Generic.IEnumerable`1<System.String>)", { 9, -1 } },
};
#define NFUNCS ((int)(sizeof fdefs / sizeof fdefs[0]))
#define GHOST NFUNCS		/* malformed mode: an id never named */

/* ------------------------------------------------------------ options */

static struct {
	uint64_t seed, lines;
	bool instr, malformed, stack_track, bare_ip;
	int threads, ptr_bits;
	const char *out, *summary;
} opt = { 1, 3000, false, false, false, false, 3, 32, "-", NULL };

/* ------------------------------------------------------------ output */

static FILE *fo;
static uint64_t nlines, nbytes;

enum { K_TRUNC, K_UNKNOWN, K_NUMBER, K_VALUE, K_EOF, K_NKINDS };
static const char *const kind_name[] = {
	"truncated", "unknown_type", "bad_number", "bad_value", "truncated_eof",
};
static uint64_t kind_count[K_NKINDS];
static struct { uint64_t line; int kind; } *bad;
static size_t nbad, badcap;

/* Record kinds, for the counts in the summary. */
static const char *const rec_names[] = {
	"prf stm", "prf cfg", "prf tps", "prf trs", "prc cpu",
	"thr crt", "thr aos", "thr dst", "thr cpu",
	"apd crf", "asm ldf", "mod ldf", "mod ata",
	"cls ldf", "cls nam", "fun inf", "fun nam",
	"jit cms", "jit cmf", "jit css", "jit csf",
	"gch gcs", "gch gcf", "gch alt", "gch gen", "sam str", "sam mem",
};
#define NREC (sizeof rec_names / sizeof rec_names[0])
static uint64_t rec_count[NREC];

static int
rec_index(const char *line)
{
	for (size_t i = 0; i < NREC; i++)
		if (strncmp(line, rec_names[i], 7) == 0)
			return (int)i;
	return -1;
}

static void emit_damage(const char *line);

/* A good record, written now. */
static void
rec(const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf)
		abort();
	fputs(buf, fo);
	putc('\n', fo);
	nlines++;
	nbytes += (uint64_t)n + 1;
	rec_count[rec_index(buf)]++;
	if (opt.malformed && rfrac() < 0.004)
		emit_damage(buf);
}

static void
bad_line(int kind, const char *text)
{
	fputs(text, fo);
	putc('\n', fo);
	nlines++;
	nbytes += strlen(text) + 1;
	kind_count[kind]++;
	if (nbad == badcap) {
		badcap = badcap ? badcap * 2 : 64;
		bad = xrealloc_(bad, badcap * sizeof *bad);
	}
	bad[nbad].line = nlines;
	bad[nbad].kind = kind;
	nbad++;
}

/* A damaged copy of a good line, written after it: a reader that skips it
 * must get exactly what it would get without it. */
static void
emit_damage(const char *line)
{
	char b[8192];
	size_t len = strlen(line);
	double r = rfrac();
	if (r < 0.3) {
		/* Cut after the record type and the first field, or right
		 * after a "0x" of the last hex field: never parseable. */
		const char *lastx = NULL;
		for (const char *p = strstr(line, " 0x"); p; p = strstr(p + 1, " 0x"))
			lastx = p;
		if (lastx != NULL && lastx - line > 8 && rfrac() < 0.5 &&
		    strchr(line, '"') == NULL)
			snprintf(b, sizeof b, "%.*s", (int)(lastx - line + 3), line);
		else
			snprintf(b, sizeof b, "%.7s 0x", line);
		bad_line(K_TRUNC, b);
	} else if (r < 0.5) {
		static const char *const u[] = {
			"zzz qqq 17 0x00000001", "sam foo 0x00000001 1234 1",
			"prf xyz something new", "thr sus 0x00000003 88",
		};
		bad_line(K_UNKNOWN, u[rnd() % 4]);
	} else if (r < 0.85) {
		/* Damage the first numeric field after the record type. */
		const char *p = line + 8;
		if (len <= 8 || !(*p >= '0' && *p <= '9') ||
		    strncmp(line, "prf cfg", 7) == 0 ||
		    strncmp(line, "prf stm", 7) == 0) {
			snprintf(b, sizeof b, "%.7s 12x4", line);
		} else {
			const char *e = strchr(p, ' ');
			size_t fl = e ? (size_t)(e - p) : strlen(p);
			switch (rnd() % 3) {
			case 0:	/* a non-hex digit */
				snprintf(b, sizeof b, "%.8s%s%.*s%s", line,
				    p[1] == 'x' ? "0xG" : "7q",
				    (int)(fl > 3 ? fl - 3 : 0), p + 3, e ? e : "");
				break;
			case 1:	/* letters after the digits (not hex ones) */
				snprintf(b, sizeof b, "%.*s%s%s", (int)(8 + fl),
				    line, p[1] == 'x' ? "g7" : "a7", e ? e : "");
				break;
			default: /* an overflow */
				snprintf(b, sizeof b, "%.8s184467440737095516160%s",
				    line, e ? e : "");
				break;
			}
		}
		bad_line(K_NUMBER, b);
	} else {
		if (strncmp(line, "sam str", 7) == 0) {
			/* THREAD TICKS kept, then a match prefix larger
			 * than the stack size: an impossible record. */
			const char *p = strchr(strchr(line + 8, ' ') + 1, ' ');
			snprintf(b, sizeof b, "%.*s 1 9:3", (int)(p - line), line);
		} else {
			snprintf(b, sizeof b, "sam str 0x00000000 5 1 2");
		}
		bad_line(K_VALUE, b);
	}
}

/* ------------------------------------------------------------ oracle */

/* Stack -> value, per thread: a small open hash on the stack's text. */
struct acc {
	char **keys;
	uint64_t *vals;
	size_t cap, len;
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void
acc_add(struct acc *a, const char *key, uint64_t v)
{
	if ((a->len + 1) * 2 > a->cap) {
		struct acc n = { 0 };
		n.cap = a->cap ? a->cap * 2 : 64;
		n.keys = calloc(n.cap, sizeof *n.keys);
		n.vals = calloc(n.cap, sizeof *n.vals);
		for (size_t i = 0; i < a->cap; i++)
			if (a->keys[i]) {
				size_t j = hash_str(a->keys[i]) & (n.cap - 1);
				while (n.keys[j])
					j = (j + 1) & (n.cap - 1);
				n.keys[j] = a->keys[i];
				n.vals[j] = a->vals[i];
			}
		n.len = a->len;
		free(a->keys);
		free(a->vals);
		*a = n;
	}
	size_t j = hash_str(key) & (a->cap - 1);
	while (a->keys[j] && strcmp(a->keys[j], key) != 0)
		j = (j + 1) & (a->cap - 1);
	if (!a->keys[j]) {
		a->keys[j] = strcpy(xmalloc_(strlen(key) + 1), key);
		a->len++;
	}
	a->vals[j] += v;
}

/* ------------------------------------------------------------ simulation */

struct frame {
	int f;
	uint64_t ip;
};

struct thread {
	uint32_t iid;
	uint64_t clr;
	int64_t os;
	bool alive, declared;
	int root;
	struct frame stk[64];
	int depth, mps, ss;
	bool ipchg;
	int64_t last_t;
	/* buffered lines, drained at random */
	char *buf;
	size_t blen, bcap;
	/* oracle */
	uint64_t records, samples, weight, empty_weight;
	int maxd;
	struct acc coll, coll_time;
	bool have_prev;
	char *prev_key;
	int64_t prev_t;
};

static struct thread threads[64];
static int nthreads;
static int64_t func_iid[NFUNCS + 1];	/* -1 until compiled */
static uint32_t next_fiid, next_ciid;
static int64_t class_iid[NCLASSES];
static struct { int64_t t0, t1; } pauses[8];
static int npauses;
static bool oracle;

static const char *
P(uint64_t v)
{
	static char b[4][24];
	static int k;
	k = (k + 1) & 3;
	snprintf(b[k], sizeof b[k], opt.ptr_bits == 32 ? "0x%08" PRIX64 :
	    "0x%016" PRIX64, v);
	return b[k];
}

static const char *
IP(uint64_t v)
{
	static char b[4][24];
	static int k;
	k = (k + 1) & 3;
	snprintf(b[k], sizeof b[k], opt.ptr_bits == 32 ?
	    (opt.bare_ip ? ":%08" PRIX64 : ":0x%08" PRIX64) :
	    (opt.bare_ip ? ":%016" PRIX64 : ":0x%016" PRIX64), v);
	return b[k];
}

static uint64_t base;

static void
th_line(struct thread *th, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf)
		abort();
	if (th->blen + (size_t)n + 1 > th->bcap) {
		th->bcap = (th->blen + (size_t)n + 1) * 2;
		th->buf = xrealloc_(th->buf, th->bcap);
	}
	memcpy(th->buf + th->blen, buf, (size_t)n);
	th->blen += (size_t)n;
	th->buf[th->blen++] = '\n';
}

/* Writes a thread's buffered lines (what the profiler's logger does when
 * signalled); they are good records, so they are counted as such. */
static void
drain(struct thread *th)
{
	size_t i = 0;
	while (i < th->blen) {
		char *nl = memchr(th->buf + i, '\n', th->blen - i);
		*nl = 0;
		rec("%s", th->buf + i);
		i = (size_t)(nl - th->buf) + 1;
	}
	th->blen = 0;
}

static void
load_class(int c)
{
	if (class_iid[c] >= 0)
		return;
	class_iid[c] = next_ciid++;
	rec("cls ldf %s 0x%08x %s 0x%08x 0x%08x", P(base + 0xE00000 + c * 0x120),
	    (unsigned)class_iid[c], P(base + 0xC00000), 0x02000002 + c, 0);
	rec("cls nam 0x%08x \"%s\"", (unsigned)class_iid[c], classes[c]);
}

static void
name_of(int f, char *out, size_t size)
{
	if (f == GHOST)
		snprintf(out, size, "0x%" PRIx64, func_iid[f]);
	else
		snprintf(out, size, "%s::%s", classes[fdefs[f].cls], fdefs[f].meth);
}

static void
ensure_func(int f, struct thread *th, int64_t t)
{
	if (func_iid[f] >= 0)
		return;
	func_iid[f] = next_fiid++;
	if (f == GHOST)
		return;
	load_class(fdefs[f].cls);
	bool cached = f % 4 == 3;
	unsigned id = (unsigned)func_iid[f];
	uint64_t code = base + 0x2000000 + (uint64_t)f * 0x2000;
	rec("jit %s %" PRId64 " %" PRId64 " 0x%08x", cached ? "css" : "cms",
	    th->os, t, id);
	rec("fun inf 0x%08x %s %s %s 0x%08x %s:0x%x 0xfffffffe:0x0:0x10 "
	    "0x0:0x10:0x80 0x%x:0x80:0x1f0 0xfffffffd:0x1f0:0x200",
	    id, P(base + 0x1000000 + (uint64_t)f * 0x58),
	    P(base + 0xE00000 + fdefs[f].cls * 0x120), P(base + 0xC00000),
	    0x06000001 + f * 3, P(code), 0x200, 3 + f);
	char name[256];
	name_of(f, name, sizeof name);
	rec("fun nam 0x%08x \"%s\" \"%s\" \"%s\"", id, name, fdefs[f].ret,
	    fdefs[f].sig);
	if (cached)
		rec("jit csf %" PRId64 " %" PRId64 " 0x%08x", th->os, t, id);
	else
		rec("jit cmf %" PRId64 " %" PRId64 " 0x%08x 0x%08x", th->os, t,
		    id, 0);
}

static uint64_t
ip_in(int f)
{
	if (rfrac() < 0.3)
		return 0;
	return base + 0x2000000 + (uint64_t)f * 0x2000 + (uint64_t)rint_(0x10, 0x1f0);
}

static void
push(struct thread *th, int f, int64_t t)
{
	ensure_func(f, th, t);
	th->stk[th->depth].f = f;
	th->stk[th->depth].ip = ip_in(f);
	th->depth++;
}

static void
pop(struct thread *th)
{
	th->depth--;
	if (th->depth < th->mps) {
		th->mps = th->depth;
		th->ipchg = false;
	}
}

static void
chip(struct thread *th)
{
	if (th->depth == 0)
		return;
	uint64_t ip = ip_in(th->stk[th->depth - 1].f);
	if (th->stk[th->depth - 1].ip != ip) {
		if (th->depth == th->mps)
			th->ipchg = true;
		th->stk[th->depth - 1].ip = ip;
	}
}

static void
step(struct thread *th, int64_t t, int n)
{
	while (n-- > 0) {
		if (th->depth == 0) {
			push(th, th->root, t);
			continue;
		}
		int top = th->stk[th->depth - 1].f;
		int nc = 0;
		if (top != GHOST)
			while (nc < 4 && fdefs[top].callees[nc] >= 0)
				nc++;
		double r = rfrac();
		double pp = nc == 0 || th->depth >= 40 ? 0 : 0.55 - th->depth * 0.02;
		if (pp < 0.2 && nc > 0 && th->depth < 40)
			pp = 0.2;
		if (r < pp) {
			int c = top == GHOST ? 8 : fdefs[top].callees[rnd() % (uint64_t)nc];
			if (opt.malformed && c == 8 && top == 7 && rfrac() < 0.5)
				c = GHOST;
			if (th->depth == th->mps)
				th->ipchg = true;
			th->stk[th->depth - 1].ip = ip_in(top);
			push(th, c, t);
		} else if (r < pp + 0.3 && th->depth > 1) {
			pop(th);
		} else {
			chip(th);
		}
	}
}

static int64_t
clip(int64_t t0, int64_t t1)
{
	int64_t d = t1 - t0;
	for (int i = 0; i < npauses; i++) {
		int64_t lo = t0 > pauses[i].t0 ? t0 : pauses[i].t0;
		int64_t hi = t1 < pauses[i].t1 ? t1 : pauses[i].t1;
		if (hi > lo)
			d -= hi - lo;
	}
	return d;
}

static char *
stack_key(const struct thread *th)
{
	size_t cap = 64, len = 0;
	char *s = xmalloc_(cap);
	s[0] = 0;
	for (int i = 0; i < th->depth; i++) {
		char name[256];
		name_of(th->stk[i].f, name, sizeof name);
		size_t n = strlen(name);
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			s = xrealloc_(s, cap);
		}
		if (i > 0)
			s[len++] = ';';
		memcpy(s + len, name, n + 1);
		len += n;
	}
	return s;
}

/* The profiler's Sample(): a `sam str` if anything changed or ticks were
 * counted, then a `sam mem` for pending allocations. */
static void
sample(struct thread *th, int64_t t, uint64_t count, bool allocs)
{
	bool changed = count > 0 || th->mps != th->ss || th->ipchg ||
	    th->depth > th->mps;
	if (changed) {
		char line[4096];
		int n = snprintf(line, sizeof line, "sam str 0x%08x %" PRId64
		    " %" PRIu64 " %d:%d", th->iid, t, count, th->mps, th->ss);
		if (th->ipchg) {
			uint64_t ip = th->stk[th->mps - 1].ip;
			n += snprintf(line + n, sizeof line - (size_t)n, "%s",
			    ip ? IP(ip) : ":?");
		}
		for (int i = th->mps; i < th->depth; i++)
			n += snprintf(line + n, sizeof line - (size_t)n,
			    " 0x%" PRIx64 "%s", func_iid[th->stk[i].f],
			    th->stk[i].ip ? IP(th->stk[i].ip) : "");
		th_line(th, "%s", line);
		if (oracle) {
			char *key = stack_key(th);
			if (th->have_prev && th->prev_key[0]) {
				int64_t d = clip(th->prev_t, t);
				if (d > 0)
					acc_add(&th->coll_time, th->prev_key,
					    (uint64_t)d);
			}
			free(th->prev_key);
			th->prev_key = key;
			th->prev_t = t;
			th->have_prev = true;
			th->records++;
			if (th->depth > th->maxd)
				th->maxd = th->depth;
			if (count > 0) {
				th->samples++;
				th->weight += count;
				if (th->depth > 0)
					acc_add(&th->coll, key, count);
				else
					th->empty_weight += count;
			}
		}
	}
	th->mps = th->ss = th->depth;
	th->ipchg = false;
	if (allocs && th->depth > 0) {
		char line[1024];
		int n = snprintf(line, sizeof line, "sam mem 0x%08x %" PRId64,
		    th->iid, t);
		for (int k = 0; k < 2; k++) {
			int c = k == 0 ? 2 : 9;
			load_class(c);
			uint64_t ip = ip_in(th->stk[th->depth - 1].f);
			n += snprintf(line + n, sizeof line - (size_t)n,
			    " 0x%" PRIx64 ":%d:%d%s", class_iid[c],
			    (int)rint_(1, 20), (int)rint_(24, 9000),
			    ip ? IP(ip) : "");
		}
		th_line(th, "%s", line);
	}
}

static struct thread *
new_thread(int root)
{
	struct thread *th = &threads[nthreads];
	memset(th, 0, sizeof *th);
	th->iid = (uint32_t)nthreads++;
	th->clr = base + 0xF00000 + th->iid * 0x3C0;
	th->os = 3000 + th->iid * 7;
	th->alive = true;
	th->root = root;
	th->declared = !(opt.malformed && th->iid == 2);
	if (th->declared) {
		rec("thr crt %s 0x%08x", P(th->clr), th->iid);
		rec("thr aos 0x%08x %" PRId64, th->iid, th->os);
	}
	return th;
}

/* ------------------------------------------------------------ summary */

static void
json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', f);
		putc(*s, f);
	}
	putc('"', f);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
json_acc(FILE *f, const struct acc *a)
{
	char **items = xmalloc_((a->len + 1) * sizeof *items);
	size_t n = 0;
	for (size_t i = 0; i < a->cap; i++)
		if (a->keys[i]) {
			char v[32];
			snprintf(v, sizeof v, " %" PRIu64, a->vals[i]);
			items[n] = xmalloc_(strlen(a->keys[i]) + strlen(v) + 1);
			strcpy(items[n], a->keys[i]);
			strcat(items[n], v);
			n++;
		}
	xqsort(items, n, sizeof *items, cmp_str);
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_str(f, items[i]);
		free(items[i]);
	}
	fputs(n ? "\n   ]" : "]", f);
	free(items);
}

static void
write_summary(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\n \"generator\": \"cpgen\",\n \"args\": {\"seed\": %" PRIu64
	    ", \"lines\": %" PRIu64 ", \"mode\": \"%s\", \"threads\": %d, "
	    "\"ptr_bits\": %d, \"ip_style\": \"%s\", \"stack_track\": %s, "
	    "\"malformed\": %s},\n", opt.seed, opt.lines,
	    opt.instr ? "instrumentation" : "sampling", opt.threads,
	    opt.ptr_bits, opt.bare_ip ? "bare" : "0x",
	    opt.stack_track ? "true" : "false", opt.malformed ? "true" : "false");
	fprintf(f, " \"lines\": %" PRIu64 ",\n \"bytes\": %" PRIu64 ",\n",
	    nlines, nbytes);
	fputs(" \"record_counts\": {", f);
	bool first = true;
	for (size_t i = 0; i < NREC; i++)
		if (rec_count[i]) {
			fprintf(f, "%s\n  \"%s\": %" PRIu64, first ? "" : ",",
			    rec_names[i], rec_count[i]);
			first = false;
		}
	fputs("\n },\n \"malformed\": {\"counts\": {", f);
	for (int k = 0; k < K_NKINDS - 1; k++)
		fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "", kind_name[k],
		    kind_count[k] + (k == K_TRUNC ? kind_count[K_EOF] : 0));
	fputs("}, \"lines\": [", f);
	for (size_t i = 0; i < nbad && i < 2000; i++)
		fprintf(f, "%s{\"line\": %" PRIu64 ", \"kind\": \"%s\"}",
		    i ? ", " : "", bad[i].line, kind_name[bad[i].kind]);
	fputs("], \"lines_listed_max\": 2000},\n \"pauses_ms\": [", f);
	for (int i = 0; i < npauses; i++)
		fprintf(f, "%s[%" PRId64 ", %" PRId64 "]", i ? ", " : "",
		    pauses[i].t0, pauses[i].t1);
	fputs("],\n \"threads\": [", f);
	for (int i = 0; i < nthreads; i++) {
		struct thread *th = &threads[i];
		fprintf(f, "%s\n  {\"thread_iid\": \"0x%08x\", \"os_thread_id\": %"
		    PRId64 ", \"declared\": %s, \"sam_str_records\": %" PRIu64
		    ", \"samples\": %" PRIu64 ", \"sample_weight\": %" PRIu64
		    ", \"empty_stack_weight\": %" PRIu64 ", \"max_depth\": %d,\n"
		    "   \"collapsed\": ", i ? "," : "", th->iid, th->os,
		    th->declared ? "true" : "false", th->records, th->samples,
		    th->weight, th->empty_weight, th->maxd);
		json_acc(f, &th->coll);
		fputs(",\n   \"collapsed_time_ms\": ", f);
		json_acc(f, &th->coll_time);
		fputs("}", f);
	}
	fputs("\n ]\n}\n", f);
	fclose(f);
}

/* ------------------------------------------------------------ main */

static void
usage(void)
{
	fprintf(stderr, "usage: cpgen [--seed N] [--lines N] [--mode "
	    "sampling|instrumentation] [--threads N] [--malformed] "
	    "[--stack-track] [--ptr-bits 32|64] [--ip-style 0x|bare] "
	    "[--out FILE] [--summary FILE|none]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && (v != NULL || (usage(), 0)) && ++i)
		if (ARG("--seed"))
			opt.seed = strtoull(v, NULL, 0);
		else if (ARG("--lines"))
			opt.lines = strtoull(v, NULL, 0);
		else if (ARG("--mode"))
			opt.instr = strcmp(v, "instrumentation") == 0;
		else if (ARG("--threads"))
			opt.threads = atoi(v);
		else if (ARG("--ptr-bits"))
			opt.ptr_bits = atoi(v) == 64 ? 64 : 32;
		else if (ARG("--ip-style"))
			opt.bare_ip = strcmp(v, "bare") == 0;
		else if (ARG("--out"))
			opt.out = v;
		else if (ARG("--summary"))
			opt.summary = v;
		else if (strcmp(a, "--malformed") == 0)
			opt.malformed = true;
		else if (strcmp(a, "--stack-track") == 0)
			opt.stack_track = true;
		else
			usage();
	}
	if (opt.threads < 1 || opt.threads > 16)
		usage();
	rng_state = opt.seed * 0x2545F4914F6CDD1Dull + 1;
	fo = strcmp(opt.out, "-") == 0 ? stdout : fopen(opt.out, "w");
	if (fo == NULL) {
		perror(opt.out);
		return 1;
	}
	setvbuf(fo, NULL, _IOFBF, 1 << 20);
	char *summary = NULL;
	if (opt.summary == NULL && strcmp(opt.out, "-") != 0) {
		size_t n = strlen(opt.out);
		summary = xmalloc_(n + 16);
		memcpy(summary, opt.out, n + 1);
		if (n > 4 && strcmp(summary + n - 4, ".log") == 0)
			summary[n - 4] = 0;
		else if (n > 9 && strcmp(summary + n - 9, ".tracelog") == 0)
			summary[n - 9] = 0;
		strcat(summary, ".summary.json");
	} else if (opt.summary != NULL && strcmp(opt.summary, "none") != 0) {
		summary = strcpy(xmalloc_(strlen(opt.summary) + 1), opt.summary);
	}
	oracle = summary != NULL;
	base = opt.ptr_bits == 32 ? 0xA3000000u : 0x00007F1200000000ull;
	memset(func_iid, 0xff, sizeof func_iid);
	memset(class_iid, 0xff, sizeof class_iid);
	int tick = opt.instr ? 1 : 10;

	rec("prf stm 2024-02-29 23:59:58.250 -03:30");
	rec("prf cfg CollectionMethod %s", opt.instr ? "Instrumentation" : "Sampling");
	rec("prf cfg SamplingTimeoutMs %d", opt.instr ? 0 : tick);
	rec("prf cfg CpuTraceTimeoutMs 20");
	rec("prf cfg StackTrackingEnabled %s", opt.stack_track ? "true" : "false");
	rec("prf cfg SomeFutureSetting value with spaces");
	rec("apd crf %s %s 0x%08x \"Demo Viewer.dll\"", P(base + 0xABC120),
	    P(4242), 0);
	rec("mod ldf %s %s %s 0x%08x \"/opt/demo/bin/Demo Viewer.dll\"",
	    P(base + 0xC00000), P(base + 0x10000000), P(base + 0xD00000), 0);
	rec("mod ata %s %s", P(base + 0xC00000), P(base + 0xD00000));
	rec("asm ldf %s %s %s 0x%08x \"Demo.Viewer\"", P(base + 0xD00000),
	    P(base + 0xABC120), P(base + 0xC00000), 0);

	int64_t t = 5;
	new_thread(0);
	for (int i = 1; i < opt.threads; i++)
		new_thread(1);
	bool paused = false;
	int64_t pause_t0 = 0, next_spawn = 400, next_cpu = 20, next_gc = 300;
	int64_t gc_end = -1;
	struct thread *gc_th = NULL;
	uint64_t budget = opt.lines;

	while (nlines < budget) {
		t += tick;
		if (!paused && npauses < 3 && t > 150 &&
		    rfrac() < (opt.instr ? 0.002 : 0.01)) {
			rec("prf tps %" PRId64, t);
			paused = true;
			pause_t0 = t;
		} else if (paused && t - pause_t0 > 40) {
			rec("prf trs %" PRId64, t);
			pauses[npauses].t0 = pause_t0;
			pauses[npauses].t1 = t;
			npauses++;
			paused = false;
		}
		if (t >= next_spawn) {
			next_spawn = t + rint_(300, 1500);
			int alive = 0;
			for (int i = 0; i < nthreads; i++)
				alive += threads[i].alive;
			/* Threads come and go while ids last (64), then stay. */
			if (alive > 2 && nthreads < 64) {
				struct thread *v = &threads[1 + rnd() % (uint64_t)(nthreads - 1)];
				if (v->alive && v->declared) {
					drain(v);
					v->alive = false;
					if (rfrac() < 0.5)
						rec("thr dst 0x%08x", v->iid);
					else	/* the two-field spelling */
						rec("thr dst %s 0x%08x", P(v->clr), v->iid);
				}
			}
			if (nthreads < 64 && alive <= opt.threads)
				new_thread(1);
			struct thread *m = &threads[rnd() % (uint64_t)nthreads];
			if (m->alive && m->declared && rfrac() < 0.3) {
				m->os += 1000;
				rec("thr aos 0x%08x %" PRId64, m->iid, m->os);
			}
		}
		for (int i = 0; i < nthreads; i++) {
			struct thread *th = &threads[i];
			if (!th->alive)
				continue;
			if (opt.instr) {
				int n = (int)rint_(0, 3);
				for (int k = 0; k < n; k++) {
					step(th, t, 1);
					if (!paused)
						sample(th, t, 0, false);
				}
				th->last_t = t;
			} else {
				step(th, t, (int)rint_(0, 3));
				if (paused || rfrac() < 0.08)
					continue;	/* a missed tick */
				int64_t ts = t + rint_(0, tick - 1);
				if (ts < th->last_t)
					ts = th->last_t;
				uint64_t count = th->samples ?
				    (uint64_t)((ts - th->last_t) / tick) : 1;
				if (count == 0)
					count = 1;
				bool al = rfrac() < 0.15;
				if (al && opt.stack_track)
					sample(th, ts, 0, false);
				sample(th, ts, count, al);
				th->last_t = ts;
			}
			if (rfrac() < 0.3 || th->blen > 65536)
				drain(th);
		}
		if (paused)
			continue;
		if (t >= next_cpu) {
			next_cpu = t + 20;
			uint64_t tot = 0;
			for (int i = 0; i < nthreads; i++)
				if (threads[i].alive && threads[i].declared) {
					uint64_t us = (uint64_t)rint_(100, 19000);
					tot += us;
					rec("thr cpu 0x%08x %" PRId64 " %" PRIu64,
					    threads[i].iid, t, us);
				}
			rec("prc cpu %" PRId64 " %" PRIu64, t, tot);
		}
		if (gc_th == NULL && t >= next_gc) {
			gc_th = &threads[rnd() % (uint64_t)nthreads];
			rec("gch gcs %" PRId64 " %" PRId64 " %s %s", gc_th->os, t,
			    rfrac() < 0.2 ? "induced" : "?",
			    rfrac() < 0.5 ? "tfff" : "tttt");
			gc_end = t + rint_(1, 15);
		} else if (gc_th != NULL && t >= gc_end) {
			rec("gch gcf %" PRId64 " %" PRId64, gc_th->os, t);
			rec("gch gen %" PRId64 " LOH:%d:%d gen2:%d:%d gen1:%d:%d "
			    "gen0:%d:%d", t, (int)rint_(0, 1 << 20), 1 << 21,
			    (int)rint_(0, 1 << 20), 1 << 21, (int)rint_(0, 1 << 18),
			    1 << 20, (int)rint_(0, 1 << 16), 1 << 20);
			char items[512];
			int n = 0;
			items[0] = 0;
			for (size_t c = 0; c < NCLASSES; c++)
				if (class_iid[c] >= 0)
					n += snprintf(items + n, sizeof items - (size_t)n,
					    " 0x%" PRIx64 ":%d:%d", class_iid[c],
					    (int)rint_(1, 5000), (int)rint_(24, 1 << 20));
			rec("gch alt %" PRId64 "%s", t, items);
			gc_th = NULL;
			next_gc = t + rint_(200, 900);
		}
	}
	if (paused) {
		rec("prf trs %" PRId64, t + 1);
		pauses[npauses].t0 = pause_t0;
		pauses[npauses].t1 = t + 1;
		npauses++;
	}
	for (int i = 0; i < nthreads; i++)
		drain(&threads[i]);
	if (opt.malformed) {
		/* A last line cut while being written: no newline. */
		fprintf(fo, "sam str 0x00000000 %" PRId64, t);
		nlines++;
		kind_count[K_EOF]++;
		if (nbad == badcap) {
			badcap = badcap ? badcap * 2 : 64;
			bad = xrealloc_(bad, badcap * sizeof *bad);
		}
		bad[nbad].line = nlines;
		bad[nbad].kind = K_EOF;
		nbad++;
	}
	if (fo != stdout)
		fclose(fo);
	else
		fflush(fo);
	if (summary != NULL)
		write_summary(summary);
	free(summary);
	return 0;
}
