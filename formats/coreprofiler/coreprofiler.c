/*
 * CoreProfiler TraceLog reader: the text log of Samsung's .NET Core
 * profiler for Tizen (see shared/formats/coreprofiler.md for the grammar).
 *
 * This file walks the mapping line by line (no copy, no per-line
 * allocation), dispatches on the two three-letter words that start every
 * record, and handles the descriptive records: profiler start time and
 * configuration, pauses, threads, app domains, assemblies, modules,
 * classes, function names, JIT and GC intervals, CPU usage. Stacks and
 * allocations are in coreprofiler_stack.c.
 *
 * Every field is checked before anything is changed, so a damaged line is
 * reported ("line N: what") and skipped as a whole; unknown record types
 * are counted and skipped.
 */
#include "config.h"
#include "coreprofiler_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K(a, b, c, d, e, f) ((uint64_t)(a) << 40 | (uint64_t)(b) << 32 | \
	(uint64_t)(c) << 24 | (uint64_t)(d) << 16 | (uint64_t)(e) << 8 | \
	(uint64_t)(f))

enum rec {
	R_PRF_STM, R_PRF_CFG, R_PRF_TPS, R_PRF_TRS, R_PRC_CPU,
	R_THR_CRT, R_THR_AOS, R_THR_DST, R_THR_CPU,
	R_APD_CRF, R_ASM_LDF, R_MOD_LDF, R_MOD_ATA,
	R_CLS_LDF, R_CLS_NAM, R_FUN_INF, R_FUN_NAM,
	R_JIT_CMS, R_JIT_CMF, R_JIT_CSS, R_JIT_CSF,
	R_GCH_GCS, R_GCH_GCF, R_GCH_ALT, R_GCH_GEN,
	R_SAM_STR, R_SAM_MEM, R_FIL_SRC, R_LIN_SRC,
	R_UNKNOWN, R_MALFORMED, R_COUNT
};

/* Names for --info; static, as builder_count() wants. */
static const char *const rec_name[R_COUNT] = {
	"prf stm", "prf cfg", "prf tps", "prf trs", "prc cpu",
	"thr crt", "thr aos", "thr dst", "thr cpu",
	"apd crf", "asm ldf", "mod ldf", "mod ata",
	"cls ldf", "cls nam", "fun inf", "fun nam",
	"jit cms", "jit cmf", "jit css", "jit csf",
	"gch gcs", "gch gcf", "gch alt", "gch gen",
	"sam str", "sam mem", "fil src", "lin src",
	"unknown", "malformed",
};

static const uint64_t rec_key[R_UNKNOWN] = {
	K('p','r','f','s','t','m'), K('p','r','f','c','f','g'),
	K('p','r','f','t','p','s'), K('p','r','f','t','r','s'),
	K('p','r','c','c','p','u'),
	K('t','h','r','c','r','t'), K('t','h','r','a','o','s'),
	K('t','h','r','d','s','t'), K('t','h','r','c','p','u'),
	K('a','p','d','c','r','f'), K('a','s','m','l','d','f'),
	K('m','o','d','l','d','f'), K('m','o','d','a','t','a'),
	K('c','l','s','l','d','f'), K('c','l','s','n','a','m'),
	K('f','u','n','i','n','f'), K('f','u','n','n','a','m'),
	K('j','i','t','c','m','s'), K('j','i','t','c','m','f'),
	K('j','i','t','c','s','s'), K('j','i','t','c','s','f'),
	K('g','c','h','g','c','s'), K('g','c','h','g','c','f'),
	K('g','c','h','a','l','t'), K('g','c','h','g','e','n'),
	K('s','a','m','s','t','r'), K('s','a','m','m','e','m'),
	K('f','i','l','s','r','c'), K('l','i','n','s','r','c'),
};

/* ------------------------------------------------------------ helpers */

void
cp_bad(struct cp *cp, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	builder_line_error(cp->b, cp->line, "%s", msg);
	cp->nbad++;
	if (cp->ctx->opts != NULL && cp->ctx->opts->strict)
		cp->failed = true;
}

void
cp_warn(struct cp *cp, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	builder_line_warn(cp->b, cp->line, "%s", msg);
}

/* Formats into the reusable scratch buffer (valid until the next call). */
const char *
cp_fmt(struct cp *cp, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(cp->buf, cp->bufcap, fmt, ap);
		va_end(ap);
		if (n < 0)
			return "";
		if ((size_t)n < cp->bufcap)
			return cp->buf;
		cp->bufcap = (size_t)n + 256;
		cp->buf = xrealloc(cp->buf, cp->bufcap);
	}
}

uint32_t
cp_process(struct cp *cp)
{
	if (cp->process == CP_NONE) {
		cp->process = builder_process(cp->b, cp->pid);
		if (cp->process_name != 0)
			builder_process_name(cp->b, cp->process, cp->process_name);
	}
	return cp->process;
}

static inline ttv_ns
ms_ns(int64_t ms)
{
	return ms * 1000000;
}

/* The rest of the line as one double-quoted string (no escaping: the
 * quotes are the first and the last character). */
static bool
quoted_rest(struct cp_cur *c, struct cp_tok *out)
{
	if (c->p + 3 > c->e || c->p[0] != ' ' || c->p[1] != '"' ||
	    c->e[-1] != '"')
		return false;
	out->s = c->p + 2;
	out->n = (size_t)(c->e - c->p - 3);
	c->p = c->e;
	return true;
}

/* Reports which field of a damaged record is wrong. `spec` lists the
 * fields as NAME/KIND separated by spaces, KIND being x (0x hex),
 * t (ticks), d (decimal), o (OS tid) or q (a quoted rest of the line);
 * c0 is the cursor at the start of the fields. Slow path only. */
void
cp_bad_fields(struct cp *cp, const char *rec, const struct cp_cur *c0,
    const char *spec)
{
	struct cp_cur c = *c0;
	const char *sp = spec;
	while (*sp) {
		const char *ne = strchr(sp, '/');
		int nlen = (int)(ne - sp);
		char kind = ne[1];
		sp = ne[2] ? ne + 3 : ne + 2;
		if (kind == 'q') {
			struct cp_tok q;
			if (!quoted_rest(&c, &q))
				cp_bad(cp, "%s: expected %.*s in double quotes",
				    rec, nlen, ne - nlen);
			else
				break;
			return;
		}
		struct cp_tok t;
		if (!cp_field(&c, &t)) {
			cp_bad(cp, "%s: missing %.*s", rec, nlen, ne - nlen);
			return;
		}
		uint64_t u;
		int64_t i;
		bool ok = kind == 'x' ? cp_hex(t.s, t.n, &u) :
		    kind == 't' ? cp_ticks(t.s, t.n, &i) :
		    kind == 'o' ? cp_dec(t.s, t.n, &u) && u <= INT64_MAX :
		    kind == 'd' ? cp_dec(t.s, t.n, &u) : true;
		if (!ok) {
			cp_bad(cp, "%s: bad %.*s \"%.*s\"", rec, nlen, ne - nlen,
			    (int)(t.n < 40 ? t.n : 40), t.s);
			return;
		}
	}
	struct cp_tok t;
	if (cp_field(&c, &t))
		cp_bad(cp, "%s: unexpected \"%.*s\" after the last field", rec,
		    (int)(t.n < 40 ? t.n : 40), t.s);
	else
		cp_bad(cp, "%s: malformed fields", rec);
}

#define hex_field cp_hex_field
#define dec_field cp_dec_field
#define ticks_field cp_ticks_field

/* OS thread ids are decimal; they must fit an int64 to be a tid. */
static bool
ostid_field(struct cp_cur *c, int64_t *v)
{
	uint64_t u;
	if (!dec_field(c, &u) || u > INT64_MAX)
		return false;
	*v = (int64_t)u;
	return true;
}

/* ------------------------------------------------------------ profiler */

static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool
digits(const char *s, size_t n, unsigned *v)
{
	uint64_t u;
	if (!cp_dec(s, n, &u) || u > 9999)
		return false;
	*v = (unsigned)u;
	return true;
}

/* prf stm YYYY-MM-DD HH:MM:SS.mmm[ +HH:MM] */
static void
rec_prf_stm(struct cp *cp, struct cp_cur *c)
{
	struct cp_tok d, t, z = { NULL, 0 };
	unsigned Y, M, D, h, mi, s, ms, zh = 0, zm = 0;
	int zsign = 0;
	if (!cp_field(c, &d) || !cp_field(c, &t) ||
	    (!cp_end(c) && !cp_field(c, &z)) || !cp_end(c) ||
	    d.n != 10 || d.s[4] != '-' || d.s[7] != '-' ||
	    !digits(d.s, 4, &Y) || !digits(d.s + 5, 2, &M) ||
	    !digits(d.s + 8, 2, &D) ||
	    t.n != 12 || t.s[2] != ':' || t.s[5] != ':' || t.s[8] != '.' ||
	    !digits(t.s, 2, &h) || !digits(t.s + 3, 2, &mi) ||
	    !digits(t.s + 6, 2, &s) || !digits(t.s + 9, 3, &ms) ||
	    M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || mi > 59 ||
	    s > 60) {
		cp_bad(cp, "prf stm: bad start time");
		return;
	}
	if (z.s != NULL) {
		if (z.n != 6 || (z.s[0] != '+' && z.s[0] != '-') ||
		    z.s[3] != ':' || !digits(z.s + 1, 2, &zh) ||
		    !digits(z.s + 4, 2, &zm) || zh > 14 || zm > 59) {
			cp_bad(cp, "prf stm: bad UTC offset");
			return;
		}
		zsign = z.s[0] == '+' ? 1 : -1;
	}
	int64_t secs = days_from_civil(Y, M, D) * 86400 + h * 3600 +
	    mi * 60 + s - zsign * (int64_t)(zh * 3600 + zm * 60);
	if (secs < -9000000000ll || secs > 9000000000ll) {
		/* ns since the epoch fit int64 only from 1678 to 2262 */
		cp_bad(cp, "prf stm: start time out of range");
		return;
	}
	builder_set_wall_origin(cp->b, secs * 1000000000 + (int64_t)ms * 1000000);
	builder_meta(cp->b, "start time", cp_fmt(cp, "%.*s %.*s%s%.*s%s",
	    (int)d.n, d.s, (int)t.n, t.s, z.s ? " " : "", (int)z.n,
	    z.s ? z.s : "", z.s ? "" : " (local time, zone unknown)"));
}

/* prf cfg NAME VALUE */
static void
rec_prf_cfg(struct cp *cp, struct cp_cur *c)
{
	struct cp_tok name, val;
	if (!cp_field(c, &name) || c->p + 1 >= c->e || c->p[0] != ' ') {
		cp_bad(cp, "prf cfg: expected a name and a value");
		return;
	}
	/* The value is the rest of the line (later versions may add more). */
	val.s = c->p + 1;
	val.n = (size_t)(c->e - val.s);
#define IS(tok, lit) ((tok).n == sizeof(lit) - 1 && \
	memcmp((tok).s, lit, sizeof(lit) - 1) == 0)
	if (IS(name, "CollectionMethod")) {
		if (IS(val, "Sampling"))
			cp->method = CP_METHOD_SAMPLING;
		else if (IS(val, "Instrumentation"))
			cp->method = CP_METHOD_INSTR;
		if (cp->method == CP_METHOD_SAMPLING)
			cp->sampled = true;
	} else if (IS(name, "CpuTraceTimeoutMs")) {
		uint64_t v;
		if (cp_dec(val.s, val.n, &v) && v > 0 && v < 86400000)
			cp->cpu_interval = ms_ns((int64_t)v);
	}
#undef IS
	char key[160];
	snprintf(key, sizeof key, "config %.*s", (int)name.n, name.s);
	builder_meta(cp->b, key, cp_fmt(cp, "%.*s", (int)val.n, val.s));
}

/* ------------------------------------------------------------ CPU */

/* CPU time used since the previous record, as a percentage of one CPU
 * over that interval (the first one uses CpuTraceTimeoutMs). */
static double
cpu_percent(struct cp *cp, ttv_ns t, ttv_ns *last, bool *seen, uint64_t us)
{
	ttv_ns dt = *seen ? t - *last : cp->cpu_interval;
	if (dt <= 0)
		dt = cp->cpu_interval;
	*last = t;
	*seen = true;
	return (double)us * 1000.0 * 100.0 / (double)dt;
}

static uint32_t
new_counter(struct cp *cp, const char *name)
{
	uint32_t tr = builder_track_new(cp->b, TRACK_COUNTER, cp_process(cp),
	    cp->next_counter++);
	builder_track_name(cp->b, tr, builder_intern_cstr(cp->b, name));
	return tr;
}

static void
rec_prc_cpu(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	int64_t t;
	uint64_t us;
	if (!ticks_field(c, &t) || !dec_field(c, &us) || !cp_end(c)) {
		cp_bad_fields(cp, "prc cpu", &c0, "TICKS/t USER_US/d");
		return;
	}
	if (cp->proc_cpu_track == CP_NONE)
		cp->proc_cpu_track = new_counter(cp, "process CPU %");
	ttv_ns ns = ms_ns(t);
	builder_counter(cp->b, cp->proc_cpu_track, ns, cpu_percent(cp, ns,
	    &cp->proc_cpu_last, &cp->proc_cpu_seen, us));
}

static void
rec_thr_cpu(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid, us;
	int64_t t;
	if (!hex_field(c, &iid) || !ticks_field(c, &t) || !dec_field(c, &us) ||
	    !cp_end(c)) {
		cp_bad_fields(cp, "thr cpu", &c0, "THREAD_IID/x TICKS/t USER_US/d");
		return;
	}
	uint32_t th = cp_thread_get(cp, iid);
	struct cp_thread *T = &cp->threads.items[th];
	if (T->cpu_track == CP_NONE) {
		cp_thread_track(cp, th);
		T = &cp->threads.items[th];
		T->cpu_track = new_counter(cp, cp_fmt(cp,
		    "thread 0x%08llx CPU %%", (unsigned long long)iid));
	}
	ttv_ns ns = ms_ns(t);
	builder_counter(cp->b, T->cpu_track, ns, cpu_percent(cp, ns,
	    &T->cpu_last, &T->cpu_seen, us));
}

/* ------------------------------------------------------------ threads */

static void
rec_thr_crt(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t clr, iid;
	if (!hex_field(c, &clr) || !hex_field(c, &iid) || !cp_end(c)) {
		cp_bad_fields(cp, "thr crt", &c0, "THREAD_ID/x THREAD_IID/x");
		return;
	}
	uint32_t th = cp_thread_get(cp, iid);
	struct cp_thread *T = &cp->threads.items[th];
	T->declared = true;
	T->clr = clr;
}

static void
rec_thr_aos(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid;
	int64_t os;
	if (!hex_field(c, &iid) || !ostid_field(c, &os) || !cp_end(c)) {
		cp_bad_fields(cp, "thr aos", &c0, "THREAD_IID/x OS_TID/o");
		return;
	}
	uint32_t th = cp_thread_get(cp, iid);
	struct cp_thread *T = &cp->threads.items[th];
	if (T->ostid >= 0 && T->ostid != os) {
		T->nmoves++;
		if (idmap_get(&cp->thread_by_os, (uint64_t)T->ostid) == th)
			idmap_del(&cp->thread_by_os, (uint64_t)T->ostid);
	}
	T->ostid = os;
	/* The OS thread now runs this managed thread and no other. */
	idmap_put(&cp->thread_by_os, (uint64_t)os, th);
}

static void
rec_thr_dst(struct cp *cp, struct cp_cur *c)
{
	uint64_t a, iid;
	/* One field (W1/W2) or two (Samsung's parser): the iid is the last. */
	if (!hex_field(c, &a)) {
		cp_bad(cp, "thr dst: expected THREAD_IID");
		return;
	}
	iid = a;
	if (!cp_end(c) && (!hex_field(c, &iid) || !cp_end(c))) {
		cp_bad(cp, "thr dst: expected THREAD_IID");
		return;
	}
	uint32_t th = idmap_get(&cp->thread_by_iid, iid);
	if (th == IDMAP_NONE) {
		cp_warn(cp, "thr dst: thread 0x%08llx was never seen",
		    (unsigned long long)iid);
		return;
	}
	cp_thread_destroyed(cp, th);
}

/* ------------------------------------------------------------ EE */

static void
rec_apd_crf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t id, pid, hr;
	struct cp_tok name;
	if (!hex_field(c, &id) || !hex_field(c, &pid) || !hex_field(c, &hr) ||
	    !quoted_rest(c, &name)) {
		cp_bad_fields(cp, "apd crf", &c0, "APPDOMAIN/x PROCESS/x HR/x NAME/q");
		return;
	}
	str_id s = builder_intern(cp->b, name.s, name.n);
	if (cp->process == CP_NONE) {
		cp->pid = pid <= INT64_MAX ? (int64_t)pid : 0;
		cp->process_name = s;
	}
	builder_meta(cp->b, "app domain", cp_fmt(cp, "%.*s (0x%llX)",
	    (int)name.n, name.s, (unsigned long long)id));
}

static void
rec_asm_ldf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t a, d, m, hr;
	struct cp_tok name;
	if (!hex_field(c, &a) || !hex_field(c, &d) || !hex_field(c, &m) ||
	    !hex_field(c, &hr) || !quoted_rest(c, &name)) {
		cp_bad_fields(cp, "asm ldf", &c0, "ASSEMBLY/x APPDOMAIN/x MODULE/x HR/x NAME/q");
		return;
	}
	builder_meta(cp->b, "assembly", cp_fmt(cp, "%.*s", (int)name.n, name.s));
}

static void
rec_mod_ldf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t m, base, a, hr;
	struct cp_tok name;
	if (!hex_field(c, &m) || !hex_field(c, &base) || !hex_field(c, &a) ||
	    !hex_field(c, &hr) || !quoted_rest(c, &name)) {
		cp_bad_fields(cp, "mod ldf", &c0, "MODULE/x BASE/x ASSEMBLY/x HR/x PATH/q");
		return;
	}
	builder_meta(cp->b, "module", cp_fmt(cp, "%.*s at 0x%llX%s",
	    (int)name.n, name.s, (unsigned long long)base,
	    hr != 0 ? " (load failed)" : ""));
}

static void
rec_mod_ata(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t m, a;
	if (!hex_field(c, &m) || !hex_field(c, &a) || !cp_end(c))
		cp_bad_fields(cp, "mod ata", &c0, "MODULE/x ASSEMBLY/x");
}

/* ------------------------------------------------------------ classes */

static void
rec_cls_ldf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t clr, iid, mod, tok, hr;
	if (!hex_field(c, &clr) || !hex_field(c, &iid) || !hex_field(c, &mod) ||
	    !hex_field(c, &tok) || !hex_field(c, &hr) || !cp_end(c)) {
		cp_bad_fields(cp, "cls ldf", &c0, "CLASS_ID/x CLASS_IID/x MODULE/x TOKEN/x HR/x");
		return;
	}
	/* Class names come from `cls nam` by internal id; the CLR ids are
	 * not needed for anything shown. */
	cp_class_get(cp, iid);
}

static void
rec_cls_nam(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid;
	struct cp_tok name;
	if (!hex_field(c, &iid) || !quoted_rest(c, &name)) {
		cp_bad_fields(cp, "cls nam", &c0, "CLASS_IID/x NAME/q");
		return;
	}
	uint32_t ci = cp_class_get(cp, iid);
	struct cp_class *k = &cp->classes.items[ci];
	if (k->text != NULL) {
		if (strlen(k->text) != name.n ||
		    memcmp(k->text, name.s, name.n) != 0)
			cp_warn(cp, "cls nam: class 0x%llx named again, keeping "
			    "the first name", (unsigned long long)iid);
		return;
	}
	k->text = xstrndup(name.s, name.n);
}

/* ------------------------------------------------------------ functions */

/* fun inf FUNC_IID FUNC_ID CLASS_ID MODULE_ID TOKEN [START:SIZE]...
 *     [IL:NATIVE_START:NATIVE_END]... */
static void
rec_fun_inf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid, clr, cls, mod, tok;
	if (!hex_field(c, &iid) || !hex_field(c, &clr) || !hex_field(c, &cls) ||
	    !hex_field(c, &mod) || !hex_field(c, &tok)) {
		cp_bad_fields(cp, "fun inf", &c0, "FUNC_IID/x FUNC_ID/x CLASS_ID/x MODULE/x TOKEN/x");
		return;
	}
	struct cp_tok t, parts[4];
	while (!cp_end(c)) {
		uint64_t v;
		size_t n;
		if (!cp_field(c, &t) ||
		    (n = cp_split(t.s, t.n, parts, 3)) < 2 || n > 3) {
			cp_bad(cp, "fun inf: bad code or IL map item");
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (!cp_hex(parts[i].s, parts[i].n, &v)) {
				cp_bad(cp, "fun inf: bad number in \"%.*s\"",
				    (int)t.n, t.s);
				return;
			}
	}
	uint32_t fi = cp_func_get(cp, iid);
	cp->funcs.items[fi].clr = clr;
	idmap_put(&cp->func_by_clr, clr, fi);
}

/* fun nam FUNC_IID "NAME" "RETURN" "SIGNATURE": no escaping, so split
 * from the right; the name may hold spaces and quotes. The older form
 * had the name only. */
static void
rec_fun_nam(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	uint64_t iid;
	struct cp_tok all;
	if (!hex_field(c, &iid) || !quoted_rest(c, &all)) {
		cp_bad_fields(cp, "fun nam", &c0, "FUNC_IID/x NAME/q");
		return;
	}
	/* all = NAME" "RET" "SIG  (outer quotes removed) */
	const char *s = all.s;
	size_t n = all.n, name_end = n;
	int seps = 0;
	for (size_t i = n; i >= 3 && seps < 2; i--) {
		if (s[i - 3] == '"' && s[i - 2] == ' ' && s[i - 1] == '"') {
			name_end = i - 3;
			seps++;
			i -= 2;
		}
	}
	uint32_t fi = cp_func_get(cp, iid);
	struct cp_func *f = &cp->funcs.items[fi];
	str_id name = builder_intern(cp->b, s, name_end);
	if (f->name != 0) {
		if (f->name != name)
			cp_warn(cp, "fun nam: function 0x%llx named again, "
			    "keeping the first name", (unsigned long long)iid);
		return;
	}
	f->name = name;
	f->text = xstrndup(s, name_end);
	/* The class is the part before the last "::" of the full name. */
	for (size_t i = name_end; i >= 2; i--)
		if (s[i - 2] == ':' && s[i - 1] == ':') {
			f->category = builder_intern(cp->b, s, i - 2);
			break;
		}
	if (f->fid != CP_NONE)
		builder_func_rename(cp->b, f->fid, name);
}

/* ------------------------------------------------------------ JIT, GC */

static void
rec_jit(struct cp *cp, struct cp_cur *c, enum rec r)
{
	const struct cp_cur c0 = *c;
	int64_t os, t;
	uint64_t func, hr;
	if (!ostid_field(c, &os) || !ticks_field(c, &t) ||
	    !hex_field(c, &func) ||
	    (r == R_JIT_CMF && !hex_field(c, &hr)) || !cp_end(c)) {
		cp_bad_fields(cp, rec_name[r], &c0, r == R_JIT_CMF ?
		    "OS_TID/o TICKS/t FUNC/x HR/x" : "OS_TID/o TICKS/t FUNC/x");
		return;
	}
	enum cp_rt_kind kind = r == R_JIT_CMS || r == R_JIT_CMF ? CP_RT_JIT :
	    CP_RT_SEARCH;
	if (r == R_JIT_CMS || r == R_JIT_CSS)
		cp_rt_begin(cp, os, ms_ns(t), kind, func);
	else
		cp_rt_end(cp, os, ms_ns(t), kind, func);
}

/* gch gcs OS_TID TICKS REASON GENS */
static void
rec_gch_gcs(struct cp *cp, struct cp_cur *c)
{
	int64_t os, t;
	struct cp_tok reason, gens;
	bool ok = ostid_field(c, &os) && ticks_field(c, &t) &&
	    cp_field(c, &reason) && cp_field(c, &gens) && cp_end(c) &&
	    gens.n >= 1 && gens.n <= 8;
	uint64_t what = 0;
	for (size_t i = 0; ok && i < gens.n; i++) {
		if (gens.s[i] == 't')
			what |= 1u << i;
		else if (gens.s[i] != 'f')
			ok = false;
	}
	if (!ok) {
		cp_bad(cp, "gch gcs: expected OS_TID TICKS REASON GENS");
		return;
	}
	if (reason.n == 7 && memcmp(reason.s, "induced", 7) == 0)
		what |= 1u << 8;
	cp_rt_begin(cp, os, ms_ns(t), CP_RT_GC, what);
}

static void
rec_gch_gcf(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	int64_t os, t;
	if (!ostid_field(c, &os) || !ticks_field(c, &t) || !cp_end(c)) {
		cp_bad_fields(cp, "gch gcf", &c0, "OS_TID/o TICKS/t");
		return;
	}
	cp_rt_end(cp, os, ms_ns(t), CP_RT_GC, 0);
}

/* gch gen TICKS NAME:ALLOC:RESERVED... (heap sizes by generation) */
static void
rec_gch_gen(struct cp *cp, struct cp_cur *c)
{
	const struct cp_cur c0 = *c;
	int64_t t;
	struct cp_tok it = { "", 0 }, p[4];
	uint64_t a = 0, r;
	if (!ticks_field(c, &t)) {
		cp_bad_fields(cp, "gch gen", &c0, "TICKS/t");
		return;
	}
	struct cp_cur c2 = *c;
	while (!cp_end(&c2))
		if (!cp_field(&c2, &it) || cp_split(it.s, it.n, p, 3) != 3 ||
		    p[0].n == 0 || !cp_dec(p[1].s, p[1].n, &a) ||
		    !cp_dec(p[2].s, p[2].n, &r)) {
			cp_bad(cp, "gch gen: bad NAME:ALLOC:RESERVED item");
			return;
		}
	uint64_t total = 0;
	while (!cp_end(c) && cp_field(c, &it) &&
	    cp_split(it.s, it.n, p, 3) == 3 && cp_dec(p[1].s, p[1].n, &a))
		total += a;
	if (cp->heap_track == CP_NONE)
		cp->heap_track = new_counter(cp, "GC heap bytes");
	builder_counter(cp->b, cp->heap_track, ms_ns(t), (double)total);
}

static void
rec_pause(struct cp *cp, struct cp_cur *c, bool resume)
{
	const struct cp_cur c0 = *c;
	int64_t t;
	if (!ticks_field(c, &t) || !cp_end(c)) {
		cp_bad_fields(cp, resume ? "prf trs" : "prf tps", &c0, "TICKS/t");
		return;
	}
	cp_pause(cp, ms_ns(t), resume);
}

/* ------------------------------------------------------------ the loop */

static enum rec
lookup(uint64_t key)
{
	for (int i = 0; i < R_UNKNOWN; i++)
		if (rec_key[i] == key)
			return (enum rec)i;
	return R_UNKNOWN;
}

/* A cache of unknown record types already reported, so each is said once. */
struct unknown_seen {
	uint64_t keys[16];
	size_t n;
};

static void
line(struct cp *cp, const char *p, const char *e, uint64_t *counts,
    struct unknown_seen *unk)
{
	size_t n = (size_t)(e - p);
	if (n < 7 || p[3] != ' ' || (n > 7 && p[7] != ' ')) {
		counts[R_MALFORMED]++;
		cp_bad(cp, "not a record: \"%.*s\"", (int)(n < 40 ? n : 40), p);
		return;
	}
	uint64_t key = K(p[0], p[1], p[2], p[4], p[5], p[6]);
	/* sam str dominates a log: test for it before the table. */
	enum rec r = key == K('s','a','m','s','t','r') ? R_SAM_STR : lookup(key);
	struct cp_cur c = { p + 7, e };
	uint64_t bad = cp->nbad;
	switch (r) {
	case R_SAM_STR: cp_sam_str(cp, &c); break;
	case R_SAM_MEM: cp_sam_mem(cp, &c); break;
	case R_PRF_STM: rec_prf_stm(cp, &c); break;
	case R_PRF_CFG: rec_prf_cfg(cp, &c); break;
	case R_PRF_TPS: rec_pause(cp, &c, false); break;
	case R_PRF_TRS: rec_pause(cp, &c, true); break;
	case R_PRC_CPU: rec_prc_cpu(cp, &c); break;
	case R_THR_CRT: rec_thr_crt(cp, &c); break;
	case R_THR_AOS: rec_thr_aos(cp, &c); break;
	case R_THR_DST: rec_thr_dst(cp, &c); break;
	case R_THR_CPU: rec_thr_cpu(cp, &c); break;
	case R_APD_CRF: rec_apd_crf(cp, &c); break;
	case R_ASM_LDF: rec_asm_ldf(cp, &c); break;
	case R_MOD_LDF: rec_mod_ldf(cp, &c); break;
	case R_MOD_ATA: rec_mod_ata(cp, &c); break;
	case R_CLS_LDF: rec_cls_ldf(cp, &c); break;
	case R_CLS_NAM: rec_cls_nam(cp, &c); break;
	case R_FUN_INF: rec_fun_inf(cp, &c); break;
	case R_FUN_NAM: rec_fun_nam(cp, &c); break;
	case R_JIT_CMS: case R_JIT_CMF: case R_JIT_CSS: case R_JIT_CSF:
		rec_jit(cp, &c, r);
		break;
	case R_GCH_GCS: rec_gch_gcs(cp, &c); break;
	case R_GCH_GCF: rec_gch_gcf(cp, &c); break;
	case R_GCH_ALT: cp_gch_alt(cp, &c); break;
	case R_GCH_GEN: rec_gch_gen(cp, &c); break;
	case R_FIL_SRC: case R_LIN_SRC:
		/* Source-line tables added on the host: not used (yet). */
		break;
	default: {
		size_t i;
		for (i = 0; i < unk->n; i++)
			if (unk->keys[i] == key)
				break;
		if (i == unk->n && unk->n < 16) {
			unk->keys[unk->n++] = key;
			builder_line_warn(cp->b, cp->line, "unknown record type "
			    "\"%.7s\" skipped (all such lines are counted as "
			    "\"unknown\")", p);
		}
		break;
	}
	}
	/* Counts are of good records; damaged ones are "malformed". */
	counts[cp->nbad == bad ? r : R_MALFORMED]++;
}

/* A record type at the start of the first line: "abc def" or "abc def ...". */
static bool
looks_like_record(const unsigned char *h, size_t len)
{
	if (len < 7 || h[3] != ' ' || (len > 7 && h[7] != ' ' && h[7] != '\n'))
		return false;
	for (int i = 0; i < 7; i++)
		if (i != 3 && (h[i] < 'a' || h[i] > 'z'))
			return false;
	return true;
}

static int
coreprofiler_probe(const char *path, const unsigned char *head, size_t len,
    bool is_dir)
{
	(void)path;
	if (is_dir || head == NULL || !looks_like_record(head, len))
		return 0;
	uint64_t key = K(head[0], head[1], head[2], head[4], head[5], head[6]);
	if (key == K('p','r','f','s','t','m'))
		return 95;
	return lookup(key) != R_UNKNOWN ? 60 : 0;
}

/* A load of a log: the reader's state, and what it counted. A log being
 * written (--follow) keeps it from one read to the next and goes on
 * from the last whole line read (reader.h, grow_*). */
struct cp_load {
	struct cp cp;
	uint64_t counts[R_COUNT];
	struct unknown_seen unk;
};

/* A load's state as a log's first line finds it. */
static struct cp_load *
cp_load_new(struct load_ctx *ctx)
{
	struct cp_load *L = xcalloc(1, sizeof *L);
	struct cp *cp = &L->cp;
	cp->ctx = ctx;
	cp->b = ctx->b;
	cp->process = CP_NONE;
	cp->proc_cpu_track = cp->heap_track = CP_NONE;
	cp->last_gc_thread = CP_NONE;
	cp->cpu_interval = ms_ns(10);
	cp->next_counter = 1;
	idmap_init(&cp->thread_by_iid);
	idmap_init(&cp->thread_by_os);
	idmap_init(&cp->native_by_os);
	idmap_init(&cp->func_by_iid);
	idmap_init(&cp->func_by_clr);
	idmap_init(&cp->class_by_iid);
	cp->bufcap = 256;
	cp->buf = xmalloc(cp->bufcap);
	return L;
}

static void *
cp_begin(struct load_ctx *ctx)
{
	struct cp_load *L = cp_load_new(ctx);
	struct cp *cp = &L->cp;
	builder_set_format(cp->b, "coreprofiler", "tracelog", NULL);
	builder_set_tick_rate(cp->b, 1000);
	return L;
}

/* Reads the lines of ctx->file from byte `from` on; returns where it
 * stopped (the file's end, or where it was cancelled). */
static size_t
cp_feed(void *state, struct load_ctx *ctx, size_t from)
{
	struct cp_load *L = state;
	struct cp *cp = &L->cp;
	cp->ctx = ctx;
	cp->b = ctx->b;
	const char *data = (const char *)ctx->file->data;
	size_t size = ctx->file->size;
	/* README's budget: 64 MiB + 16 x the input, at CP_LEVEL_COST a
	 * frame (this reader's, the builder's and the model's) */
	cp->max_depth = ((uint64_t)64 << 20) / CP_LEVEL_COST +
	    (uint64_t)size * 16 / CP_LEVEL_COST;
	size_t off = from, next_report = 0;
	const size_t chunk = 16u << 20;

	mapfile_sequential(ctx->file);
	while (off < size && !cp->failed) {
		const char *p = data + off;
		const char *nl = memchr(p, '\n', size - off);
		const char *e = nl ? nl : data + size;
		cp->line++;
		size_t next = (size_t)(e - data) + (nl != NULL);
		/* Tolerate CRLF and trailing blanks. */
		while (e > p && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		/* A last line without its newline may be cut anywhere
		 * ("12628" cut to "12"): not trusted as a record. */
		if (e > p && nl == NULL) {
			builder_line_error(cp->b, cp->line, "the last line has no "
			    "newline: cut while being written? (%zu bytes not "
			    "read)", (size_t)(data + size - p));
			off = next;
			break;
		}
		if (e > p) {
			line(cp, p, e, L->counts, &L->unk);
		}
		off = next;
		if ((cp->line & 0xfff) == 0 && load_cancelled(ctx))
			break;
		if (off >= next_report) {
			load_progress(ctx, off, size);
			if (off > chunk)
				mapfile_release(ctx->file, off - chunk);
			next_report = off + chunk;
		}
	}
	load_progress(ctx, size, size);
	return off;
}

/* The end of a load: what is still open, the counts. */
static int
cp_load_end(struct cp_load *L)
{
	struct cp *cp = &L->cp;
	cp_finish(cp);
	for (int i = 0; i < R_COUNT; i++)
		if (L->counts[i] != 0)
			builder_count(cp->b, rec_name[i], L->counts[i]);
	uint64_t good = 0;
	for (int i = 0; i < R_UNKNOWN; i++)
		good += L->counts[i];
	if (good == 0) {
		builder_note(cp->b, DIAG_ERROR, "no CoreProfiler records");
		return -1;
	}
	return 0;
}

/* The end of a load into ctx->b, a copy of the builder, the state left
 * to go on: the open frames and intervals are closed in the copy only,
 * and the functions first named there are named again in the builder
 * when their frames close (as a whole read names them then). */
static int
cp_grow_end(void *state, struct load_ctx *ctx)
{
	struct cp_load *L = state;
	struct cp *cp = &L->cp;
	struct builder *b = cp->b;
	struct load_ctx *was = cp->ctx;
	size_t nth = cp->threads.len;
	size_t *lens = xreallocarray(NULL, nth ? 2 * nth : 1, sizeof *lens);
	VEC(uint32_t) unnamed = { 0 };
	for (size_t th = 0; th < nth; th++) {
		struct cp_thread *T = &cp->threads.items[th];
		lens[2 * th] = T->stk.len;
		lens[2 * th + 1] = T->rt.len;
		for (size_t d = 0; d < T->stk.len; d++) {
			uint32_t fi = T->stk.items[d].func;
			if (cp->funcs.items[fi].fid == CP_NONE)
				VEC_PUSH(&unnamed, fi);
		}
	}
	str_id s_jit = cp->s_jit, s_gc = cp->s_gc;
	cp->b = ctx->b;
	cp->ctx = ctx;
	int rc = cp_load_end(L);
	cp->b = b;
	cp->ctx = was;
	cp->s_jit = s_jit;
	cp->s_gc = s_gc;
	for (size_t i = 0; i < unnamed.len; i++)
		cp->funcs.items[unnamed.items[i]].fid = CP_NONE;
	VEC_FREE(&unnamed);
	for (size_t th = 0; th < nth; th++) {
		cp->threads.items[th].stk.len = lens[2 * th];
		cp->threads.items[th].rt.len = lens[2 * th + 1];
	}
	free(lens);
	return rc;
}

static void
cp_grow_free(void *state)
{
	struct cp_load *L = state;
	if (L == NULL)
		return;
	cp_free(&L->cp);
	free(L);
}

/* The state between two feeds as bytes (reader.h, grow_save): the
 * reader's (coreprofiler_save.c), then the counts of the line loop. */
static bool
cp_grow_save(void *state, struct blob *out)
{
	const struct cp_load *L = state;
	cp_save(&L->cp, out);
	blob_array(out, L->counts, R_COUNT, sizeof L->counts[0]);
	blob_array(out, L->unk.keys, L->unk.n, sizeof L->unk.keys[0]);
	return true;
}

/* The state made again from cp_grow_save's bytes, for ctx->b the builder
 * as it was then; NULL when they are damaged. */
static void *
cp_grow_load(struct load_ctx *ctx, struct blob_in *in)
{
	struct cp_load *L = cp_load_new(ctx);
	const size_t maxunk = sizeof L->unk.keys / sizeof L->unk.keys[0];
	const void *counts = NULL, *keys = NULL;
	size_t nunk = 0;
	if (cp_restore(&L->cp, in) &&
	    blob_get_count(in, sizeof L->counts[0]) == R_COUNT)
		counts = blob_take(in, sizeof L->counts);
	if (counts != NULL && (nunk = blob_get_count(in,
	    sizeof L->unk.keys[0])) <= maxunk)
		keys = blob_take(in, nunk * sizeof L->unk.keys[0]);
	if (keys == NULL || in->bad) {
		cp_grow_free(L);
		return NULL;
	}
	memcpy(L->counts, counts, sizeof L->counts);
	memcpy(L->unk.keys, keys, nunk * sizeof L->unk.keys[0]);
	L->unk.n = nunk;
	return L;
}

static int
coreprofiler_load(struct load_ctx *ctx)
{
	struct cp_load *L = cp_begin(ctx);
	cp_feed(L, ctx, 0);
	int rc = cp_load_end(L);
	cp_grow_free(L);
	return rc;
}

/* A log being written: its whole lines, up to the last newline (the
 * line after it is still being written). */
static size_t
coreprofiler_complete(const unsigned char *data, size_t len)
{
	while (len > 0 && data[len - 1] != '\n')
		len--;
	return len;
}

const struct reader coreprofiler_reader = {
	.name = "coreprofiler",
	.description = "CoreProfiler TraceLog (.NET Core profiler for Tizen, text)",
	.probe = coreprofiler_probe,
	.load = coreprofiler_load,
	.complete = coreprofiler_complete,
	.grow_begin = cp_begin,
	.grow_feed = cp_feed,
	.grow_end = cp_grow_end,
	.grow_free = cp_grow_free,
	.grow_save = cp_grow_save,
	.grow_load = cp_grow_load,
};
