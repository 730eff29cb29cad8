/*
 * The Fuchsia trace format (FXT) reader: record framing, byte order,
 * providers with their string and thread tables, kernel objects, logs,
 * scheduling records, and the two passes described in fxt_int.h. What
 * events mean (slices, flows, async, counters, CPU lanes) is fxt_event.c.
 *
 * Format notes: ../shared/formats/fxt.md and the Fuchsia trace-format
 * reference. Words are in the writer's byte order, told by the magic
 * number record; streams (strings, blobs) are bytes and never swapped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_int.h"

#define RELEASE_STEP (64u << 20)	/* drop decoded pages every 64 MB */
#define PROGRESS_STEP (16u << 20)
#define MALFORMED_REPORTS 20	/* then only counted */

const char *const fxt_kind_names[K_COUNT] = {
	[K_MAGIC] = "magic number",
	[K_PROVIDER_INFO] = "provider info",
	[K_PROVIDER_SECTION] = "provider section",
	[K_PROVIDER_EVENT] = "provider event",
	[K_TRACE_INFO_UNKNOWN] = "trace info (unknown type)",
	[K_METADATA_UNKNOWN] = "metadata (unknown type)",
	[K_INIT] = "initialization",
	[K_STRING] = "string",
	[K_STRING_IGNORED] = "string (index 0, ignored)",
	[K_THREAD] = "thread",
	[K_THREAD_IGNORED] = "thread (index 0, ignored)",
	[K_EV_INSTANT] = "instant event",
	[K_EV_COUNTER] = "counter event",
	[K_EV_BEGIN] = "duration begin",
	[K_EV_END] = "duration end",
	[K_EV_COMPLETE] = "duration complete",
	[K_EV_ASYNC_BEGIN] = "async begin",
	[K_EV_ASYNC_INSTANT] = "async instant",
	[K_EV_ASYNC_END] = "async end",
	[K_EV_FLOW_BEGIN] = "flow begin",
	[K_EV_FLOW_STEP] = "flow step",
	[K_EV_FLOW_END] = "flow end",
	[K_EV_UNKNOWN] = "event (unknown type)",
	[K_BLOB] = "blob",
	[K_USEROBJ] = "userspace object",
	[K_KOBJ] = "kernel object",
	[K_CSWITCH_LEGACY] = "context switch (legacy)",
	[K_CSWITCH] = "context switch",
	[K_WAKEUP] = "thread wakeup",
	[K_SCHED_UNKNOWN] = "scheduling (unknown type)",
	[K_LOG] = "log",
	[K_LARGE_BLOB] = "large blob",
	[K_LARGE_UNKNOWN] = "large record (unknown type)",
	[K_UNKNOWN10] = "unknown record type 10",
	[K_UNKNOWN11] = "unknown record type 11",
	[K_UNKNOWN12] = "unknown record type 12",
	[K_UNKNOWN13] = "unknown record type 13",
	[K_UNKNOWN14] = "unknown record type 14",
	[K_ARG_UNKNOWN] = "argument of unknown type (skipped)",
	[K_COUNTER_NON_NUMERIC] = "non-numeric counter argument (dropped)",
	[K_MALFORMED] = "malformed record (dropped)",
	[K_BAD_STRING_REF] = "undefined string reference",
	[K_BAD_THREAD_REF] = "undefined thread reference (dropped)",
	[K_BAD_TIMESTAMP] = "invalid timestamp (dropped)",
	[K_END_WITHOUT_BEGIN] = "duration end without begin (dropped)",
	[K_TOO_DEEP] = "duration nested too deep (dropped)",
	[K_COMPLETE_TRUNCATED] = "overlapping slice truncated",
	[K_FLOW_NO_SLICE] = "flow without enclosing slice (dropped)",
	[K_FLOW_DUPLICATE] = "flow begin with a live id (dropped)",
	[K_FLOW_UNMATCHED] = "flow step/end without begin (dropped)",
	[K_ASYNC_UNMATCHED] = "async end without begin (dropped)",
};

bool
fxt_ticks_to_ns(const struct fxt_provider *p, uint64_t ticks, int64_t *ns)
{
	uint64_t tps = p->tps, base = p->tick_base;
	unsigned __int128 v;

	if (tps == 0)
		return false;
	if (base == 0 && tps == 1000000000u) {
		if (ticks > INT64_MAX)
			return false;
		*ns = (int64_t)ticks;
		return true;
	}
	/* from the base, either way (a time before the first event) */
	bool neg = ticks < base;
	v = (unsigned __int128)(neg ? base - ticks : ticks - base) *
	    1000000000u / tps;
	if (v > INT64_MAX)
		return false;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/*
 * Times are ticks * 10^9 / ticks-per-second in int64 ns: a low tick rate
 * with large tick counts passes 2^63 ns, and every event would be dropped
 * as out of range. Looks at the records before the first event (the
 * initialization record's rate, the event's time); when that time would
 * not fit with room to spare, times count from it, and a warning says so.
 * False when the records there end before the first event (a file being
 * written: the first event is still to come).
 */
bool
fxt_choose_tick_base(struct fxt *x)
{
	const struct mapped_file *f = x->ctx->file;
	uint64_t tps = 1000000000u;
	bool tps_seen = false;
	size_t off = 8;		/* past the magic record */

	for (int n = 0; n < 100000 && off + 16 <= f->size; n++) {
		uint64_t h = fxt_word(x, x->data + off);
		unsigned type = h & 15;
		uint64_t words = type == 15 ? (h >> 4) & 0xffffffffu :
		    (h >> 4) & 0xfff;
		if (words == 0)
			return true;
		if (words > (f->size - off) / 8)
			return false;
		if (type == 1 && !tps_seen && fxt_word(x, x->data + off + 8)) {
			tps = fxt_word(x, x->data + off + 8);
			tps_seen = true;
		}
		if (type == 4 && words >= 2) {
			uint64_t ticks = fxt_word(x, x->data + off + 8);
			unsigned __int128 v = (unsigned __int128)ticks *
			    1000000000u / tps;
			if (v <= INT64_MAX / 2)
				return true;
			x->tick_base = ticks;
			builder_warn(x->b, off, "times count from the first "
			    "event: %llu ticks at %llu a second pass 2^63 ns",
			    (unsigned long long)ticks,
			    (unsigned long long)tps);
			return true;
		}
		off += words * 8;
	}
	return off + 16 <= f->size;
}

void
fxt_malformed(struct fxt *x, uint64_t off, const char *what)
{
	x->kinds[K_MALFORMED]++;
	fxt_lock(x);
	if (x->malformed_reported++ < MALFORMED_REPORTS)
		builder_warn(x->b, off, "malformed record dropped: %s", what);
	else if (x->malformed_reported == MALFORMED_REPORTS + 1)
		builder_warn(x->b, off, "more malformed records: counted only");
	fxt_unlock(x);
}

/* ---------------------------------------------------------------- names */

uint32_t
fxt_process(struct fxt *x, int64_t pid)
{
	uint32_t v;

	fxt_lock(x);
	v = builder_process(x->b, pid);
	fxt_unlock(x);
	return v;
}

uint32_t
fxt_thread_get(struct fxt *x, int64_t pid, int64_t tid)
{
	uint32_t v;
	struct fxt_thread th;

	if (fxt_map_get(&x->thread_map, (uint64_t)pid, (uint64_t)tid, &v))
		return v;
	memset(&th, 0, sizeof th);
	th.pid = pid;
	th.tid = tid;
	th.track = FXT_NONE;
	th.process = FXT_NONE;
	th.last_t = INT64_MIN;
	v = (uint32_t)x->threads.len;
	VEC_PUSH(&x->threads, th);
	{
		struct fxt_stack sk;
		memset(&sk, 0, sizeof sk);
		VEC_PUSH(&x->stacks, sk);
	}
	fxt_map_put(&x->thread_map, (uint64_t)pid, (uint64_t)tid, v);
	return v;
}

uint32_t
fxt_thread_track_new(struct fxt *x, uint32_t thread)
{
	struct fxt_thread *th = &x->threads.items[thread];

	if (th->process == FXT_NONE)
		th->process = fxt_process(x, th->pid);
	fxt_lock(x);
	th->track = builder_track(x->b, TRACK_THREAD, th->process, th->tid);
	fxt_unlock(x);
	return th->track;
}

func_id
fxt_func_new(struct fxt *x, struct fxt_fcache *c, str_id name, str_id cat)
{
	c->used = true;
	c->name = name;
	c->cat = cat;
	fxt_lock(x);
	c->func = builder_func(x->b, name, cat, -1);
	fxt_unlock(x);
	return c->func;
}

/* ------------------------------------------------------------ providers */

static struct fxt_provider *
provider_find(struct fxt *x, uint32_t id)
{
	size_t i;

	for (i = 0; i < x->providers.len; i++)
		if (x->providers.items[i]->id == id)
			return x->providers.items[i];
	return NULL;
}

void
fxt_pstr_set(struct fxt_provider *p, unsigned idx, str_id s, uint64_t text)
{
	struct fxt_strchunk **c = &p->chunks[idx / FXT_STR_CHUNK];

	if (*c == NULL) {
		*c = xmalloc(sizeof **c);
		memset((*c)->strings, 0xff, sizeof (*c)->strings);
		memset((*c)->text, 0, sizeof (*c)->text);
	}
	(*c)->strings[idx % FXT_STR_CHUNK] = s;
	(*c)->text[idx % FXT_STR_CHUNK] = text;
}

static void
provider_clear_strings(struct fxt_provider *p)
{
	for (size_t i = 0; i < sizeof p->chunks / sizeof p->chunks[0]; i++) {
		free(p->chunks[i]);
		p->chunks[i] = NULL;
	}
}

/* Creates the provider, or resets it (a provider info record starts it
 * afresh: new tables, 1 tick = 1 ns until its initialization record).
 * Past FXT_MAX_PROVIDERS the last one stands in for the rest: a file of
 * provider records must not make memory grow without bound. */
static struct fxt_provider *
provider_reset(struct fxt *x, uint32_t id)
{
	struct fxt_provider *p = provider_find(x, id);

	if (p == NULL && x->providers.len >= FXT_MAX_PROVIDERS) {
		if (!x->too_many_providers && x->scan)
			builder_error(x->b, 0, "more than %d providers: the "
			    "rest share the last one's tables",
			    FXT_MAX_PROVIDERS);
		x->too_many_providers = true;
		p = x->providers.items[x->providers.len - 1];
	}
	if (p == NULL) {
		p = xcalloc(1, sizeof *p);
		VEC_PUSH(&x->providers, p);
	}
	p->id = id;
	p->name = 0;
	free(p->cname);
	p->cname = xstrdup("");
	p->tps = 1000000000u;
	p->tick_base = x->tick_base;
	provider_clear_strings(p);
	memset(p->threads, 0xff, sizeof p->threads);
	return p;
}

/* Records other than metadata before any provider belong to provider 0
 * (as in the reference importer). */
struct fxt_provider *
fxt_provider0(struct fxt *x)
{
	x->cur = provider_reset(x, 0);
	return x->cur;
}

#define cur(x) fxt_cur(x)

void
fxt_providers_free(struct fxt *x)
{
	size_t i;

	for (i = 0; i < x->providers.len; i++) {
		provider_clear_strings(x->providers.items[i]);
		free(x->providers.items[i]->cname);
		free(x->providers.items[i]);
	}
	VEC_FREE(&x->providers);
	x->cur = NULL;
}

/* --------------------------------------------------------- references */

bool
fxt_sref_inline(struct fxt *x, unsigned ref, const unsigned char **p,
    const unsigned char *end, str_id *out)
{
	size_t n = ref & 0x7fff, padded = (n + 7) & ~(size_t)7;

	if ((size_t)(end - *p) < padded)
		return false;
	if (out != NULL) {
		fxt_lock(x);
		*out = builder_intern(x->b, (const char *)*p, n);
		fxt_unlock(x);
	}
	*p += padded;
	return true;
}

str_id
fxt_sref_unset(struct fxt *x)
{
	if (!x->scan)
		x->kinds[K_BAD_STRING_REF]++;
	return 0;
}

const char *
fxt_sref_text(struct fxt *x, unsigned ref, const unsigned char *stream,
    size_t *len)
{
	uint64_t tx;

	if (ref == 0) {
		*len = 0;
		return "";
	}
	if (ref & 0x8000) {
		*len = ref & 0x7fff;
		return (const char *)stream;
	}
	tx = fxt_ptext(cur(x), ref);
	*len = tx & 0xffff;
	return (const char *)x->data + (tx >> 16);
}

/* A thread ref: inline pid and tid words, or a thread table slot. Sets
 * *thread to FXT_NONE for an undefined slot. */
static inline __attribute__((always_inline)) bool
tref(struct fxt *x, unsigned ref, const unsigned char **p,
    const unsigned char *end, uint32_t *thread)
{
	if (__builtin_expect(ref != 0, 1)) {
		*thread = cur(x)->threads[ref];
		if (*thread == FXT_NONE && !x->scan)
			x->kinds[K_BAD_THREAD_REF]++;
		return true;
	}
	if (end - *p < 16)
		return false;
	*thread = fxt_thread_get(x, (int64_t)fxt_word(x, *p),
	    (int64_t)fxt_word(x, *p + 8));
	*p += 16;
	return true;
}

bool
fxt_arg_next(struct fxt *x, const unsigned char **pp, const unsigned char *end,
    struct fxt_arg *a)
{
	const unsigned char *p = *pp, *q, *qend;
	uint64_t h, words;

	if (end - p < 8)
		return false;
	h = fxt_word(x, p);
	words = (h >> 4) & 0xfff;
	if (words == 0 || words > (uint64_t)(end - p) / 8)
		return false;
	q = p + 8;
	qend = p + words * 8;
	a->type = h & 15;
	a->bits = 0;
	a->s = 0;
	a->blob = NULL;
	a->bloblen = 0;
	a->name_ref = (h >> 16) & 0xffff;
	a->name_stream = q;
	if (!fxt_sref(x, a->name_ref, &q, qend, &a->name))
		return false;
	switch (a->type) {
	case 0:		/* null */
		break;
	case 1:		/* int32 */
		a->bits = (uint64_t)(int64_t)(int32_t)(uint32_t)(h >> 32);
		break;
	case 2:		/* uint32 */
	case 9:		/* bool: the value sits in the header */
		a->bits = h >> 32;
		if (a->type == 9)
			a->bits &= 1;
		break;
	case 3: case 4: case 5: case 7: case 8:	/* one value word */
		if (qend - q < 8)
			return false;
		a->bits = fxt_word(x, q);
		break;
	case 6:		/* string */
		if (!fxt_sref(x, (h >> 32) & 0xffff, &q, qend, &a->s))
			return false;
		break;
	case 10:	/* blob: size in the header, bytes follow the name */
		a->bloblen = (size_t)(h >> 32);
		if ((size_t)(qend - q) < a->bloblen)
			return false;
		a->blob = q;
		break;
	default:	/* unknown: skipped by its size */
		break;
	}
	*pp = qend;
	return true;
}

/* A blob argument shown as text: its size and first bytes in hex. */
static str_id
blob_text(struct fxt *x, const unsigned char *p, size_t n)
{
	char buf[128];
	size_t i, len;

	len = (size_t)snprintf(buf, sizeof buf, "<blob %zu bytes:", n);
	for (i = 0; i < n && i < 24; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, " %02x",
		    p[i]);
	len += (size_t)snprintf(buf + len, sizeof buf - len, "%s>",
	    n > 24 ? " ..." : "");
	return builder_intern(x->b, buf, len);
}

bool
fxt_args(struct fxt *x, const unsigned char *p, const unsigned char *end,
    unsigned n, uint64_t off)
{
	struct fxt_arg a;
	unsigned i;
	bool ok = true;

	fxt_lock(x);
	for (i = 0; i < n && ok; i++) {
		if (!fxt_arg_next(x, &p, end, &a)) {
			ok = false;
			break;
		}
		switch (a.type) {
		case 0: builder_arg(x->b, a.name, ARG_NULL, 0); break;
		case 1: case 3: builder_arg(x->b, a.name, ARG_I64, a.bits); break;
		case 2: case 4: builder_arg(x->b, a.name, ARG_U64, a.bits); break;
		case 5: builder_arg(x->b, a.name, ARG_F64, a.bits); break;
		case 6: builder_arg(x->b, a.name, ARG_STR, a.s); break;
		case 7: builder_arg(x->b, a.name, ARG_PTR, a.bits); break;
		case 8: builder_arg(x->b, a.name, ARG_KOID, a.bits); break;
		case 9: builder_arg(x->b, a.name, ARG_BOOL, a.bits); break;
		case 10:
			builder_arg(x->b, a.name, ARG_STR,
			    blob_text(x, a.blob, a.bloblen));
			break;
		default:
			x->kinds[K_ARG_UNKNOWN]++;
			break;
		}
	}
	fxt_unlock(x);
	return ok;
}

/* Skips n args, checking only their sizes. */
static bool
args_skip(struct fxt *x, const unsigned char **pp, const unsigned char *end,
    unsigned n)
{
	const unsigned char *p = *pp;
	unsigned i;
	uint64_t words;

	for (i = 0; i < n; i++) {
		if (end - p < 8)
			return false;
		words = (fxt_word(x, p) >> 4) & 0xfff;
		if (words == 0 || words > (uint64_t)(end - p) / 8)
			return false;
		p += words * 8;
	}
	*pp = p;
	return true;
}

/* ------------------------------------------------------------- records */

static void
metadata(struct fxt *x, uint64_t off, uint64_t h, const unsigned char *r,
    const unsigned char *end)
{
	unsigned mt = (h >> 16) & 15;
	uint32_t id = (uint32_t)(h >> 20);
	struct fxt_provider *p;
	size_t n;

	switch (mt) {
	case 1:		/* provider info */
		n = (h >> 52) & 0xff;
		if ((size_t)(end - r - 8) < n) {
			if (x->scan)
				fxt_malformed(x, off, "provider name past the record");
			return;
		}
		p = provider_reset(x, id);
		fxt_lock(x);
		p->name = builder_intern(x->b, (const char *)r + 8, n);
		fxt_unlock(x);
		free(p->cname);
		p->cname = xstrndup((const char *)r + 8, n);
		x->cur = p;
		if (x->scan)
			x->kinds[K_PROVIDER_INFO]++;
		return;
	case 2:		/* provider section */
		p = provider_find(x, id);
		if (p == NULL) {
			if (x->scan)
				builder_warn(x->b, off, "section of provider %"
				    PRIu32 " that was never announced", id);
			p = provider_reset(x, id);
		}
		x->cur = p;
		if (x->scan)
			x->kinds[K_PROVIDER_SECTION]++;
		return;
	case 3:		/* provider event */
		if (x->scan) {
			x->kinds[K_PROVIDER_EVENT]++;
			return;
		}
		if (((h >> 52) & 15) == 0) {
			char buf[160];
			p = provider_find(x, id);
			fxt_lock(x);
			snprintf(buf, sizeof buf, "buffer full, records were "
			    "likely dropped (provider %" PRIu32 "%s%s)", id,
			    p != NULL && p->cname[0] ? " " : "",
			    p != NULL ? p->cname : "");
			builder_marker(x->b, MARKER_DROPPED, UINT32_MAX,
			    x->last_t == INT64_MIN ? 0 : x->last_t, id,
			    builder_intern_cstr(x->b, buf));
			fxt_unlock(x);
		}
		return;
	case 4:		/* trace info */
		if (!x->scan)
			return;
		if (((h >> 20) & 15) == 0) {
			if (h != FXT_MAGIC)
				fxt_malformed(x, off, "bad magic number record");
			else
				x->kinds[K_MAGIC]++;
		} else
			x->kinds[K_TRACE_INFO_UNKNOWN]++;
		return;
	default:
		if (x->scan)
			x->kinds[K_METADATA_UNKNOWN]++;
		return;
	}
}

static void
initialization(struct fxt *x, uint64_t off, const unsigned char *r,
    const unsigned char *end)
{
	uint64_t tps;

	if (end - r < 16) {
		if (x->scan)
			fxt_malformed(x, off, "initialization record too short");
		return;
	}
	tps = fxt_word(x, r + 8);
	if (tps == 0) {
		if (x->scan)
			builder_warn(x->b, off, "0 ticks per second: ignored");
		return;
	}
	cur(x)->tps = tps;
	if (x->scan) {
		x->kinds[K_INIT]++;
		if (x->first_tps == 0)
			x->first_tps = tps;
	}
}

static void
string_record(struct fxt *x, uint64_t off, uint64_t h,
    const unsigned char *r, const unsigned char *end)
{
	unsigned idx = (h >> 16) & 0x7fff;
	size_t n = (h >> 32) & 0x7fff;

	if ((size_t)(end - r - 8) < n) {
		if (x->scan)
			fxt_malformed(x, off, "string past the record");
		return;
	}
	if (idx == 0) {
		if (x->scan)
			x->kinds[K_STRING_IGNORED]++;
		return;
	}
	fxt_lock(x);
	str_id s = builder_intern(x->b, (const char *)r + 8, n);
	fxt_unlock(x);
	fxt_pstr_set(cur(x), idx, s, (uint64_t)(r + 8 - x->data) << 16 | n);
	if (x->scan)
		x->kinds[K_STRING]++;
}

static void
thread_record(struct fxt *x, uint64_t off, uint64_t h,
    const unsigned char *r, const unsigned char *end)
{
	unsigned idx = (h >> 16) & 0xff;

	if (end - r < 24) {
		if (x->scan)
			fxt_malformed(x, off, "thread record too short");
		return;
	}
	if (idx == 0) {
		if (x->scan)
			x->kinds[K_THREAD_IGNORED]++;
		return;
	}
	cur(x)->threads[idx] = fxt_thread_get(x, (int64_t)fxt_word(x, r + 8),
	    (int64_t)fxt_word(x, r + 16));
	if (x->scan)
		x->kinds[K_THREAD]++;
}

static void
event_record(struct fxt *x, uint64_t off, uint64_t h,
    const unsigned char *r, const unsigned char *end)
{
	struct fxt_event ev;
	const unsigned char *p = r + 8;
	uint64_t ticks;

	ev.type = (h >> 16) & 15;
	if (x->scan)
		x->kinds[ev.type <= FXT_EV_FLOW_END ? K_EV_INSTANT + ev.type :
		    K_EV_UNKNOWN]++;
	if (ev.type > FXT_EV_FLOW_END)
		return;		/* unknown event types are skipped by size */
	if (end - p < 8)
		goto bad;
	ticks = fxt_word(x, p);
	p += 8;
	if (!tref(x, (h >> 24) & 0xff, &p, end, &ev.thread))
		goto bad;
	if (ev.thread == FXT_NONE)
		return;
	if (!fxt_ticks_to_ns(cur(x), ticks, &ev.t)) {
		if (!x->scan)
			x->kinds[K_BAD_TIMESTAMP]++;
		return;
	}
	if (x->scan) {
		/* Only the order of events bound to a thread's stack matters:
		 * counters and async events are not. */
		if (ev.type != FXT_EV_COUNTER && (ev.type < FXT_EV_ASYNC_BEGIN ||
		    ev.type > FXT_EV_ASYNC_END)) {
			struct fxt_thread *th = &x->threads.items[ev.thread];
			th->nev++;
			if (ev.type == FXT_EV_END && ((h >> 20) & 15) != 0)
				th->end_args = true;
			if (ev.t < th->last_t)
				th->defer = true;
			else
				th->last_t = ev.t;
		}
		return;
	}
	ev.off = off;
	ev.nargs = (h >> 20) & 15;
	if (!fxt_sref(x, (h >> 32) & 0xffff, &p, end, &ev.cat))
		goto bad;
	ev.name_ref = (h >> 48) & 0xffff;
	ev.name_stream = p;
	if (!fxt_sref(x, ev.name_ref, &p, end, &ev.name))
		goto bad;
	ev.args = p;
	if (!args_skip(x, &p, end, ev.nargs))
		goto bad;
	ev.args_end = p;
	ev.x = 0;
	if (ev.type != FXT_EV_INSTANT && ev.type != FXT_EV_BEGIN &&
	    ev.type != FXT_EV_END) {
		if (end - p < 8)
			goto bad;
		ev.x = fxt_word(x, p);
	}
	if (ev.t > x->last_t)
		x->last_t = ev.t;
	fxt_event(x, &ev);
	return;
bad:
	if (!x->scan)
		fxt_malformed(x, off, "event fields run past the record");
}

static void
kernel_object(struct fxt *x, uint64_t off, uint64_t h,
    const unsigned char *r, const unsigned char *end)
{
	const unsigned char *p = r + 8;
	unsigned otype = (h >> 16) & 0xff, nargs = (h >> 40) & 15;
	uint64_t koid;
	str_id name;
	struct fxt_kname kn;

	if (!x->scan)
		return;
	if (end - p < 8)
		goto bad;
	koid = fxt_word(x, p);
	p += 8;
	{
		const unsigned char *stream = p;
		const char *text;
		size_t len;
		if (!fxt_sref(x, (h >> 24) & 0xffff, &p, end, &name))
			goto bad;
		text = fxt_sref_text(x, (h >> 24) & 0xffff, stream, &len);
		kn.sid = name;
		kn.text = xstrndup(text, len);
	}
	/* Thread objects name their process with a "process" koid argument;
	 * threads are named by their koid alone, so it is only checked. */
	if (!args_skip(x, &p, end, nargs)) {
		free(kn.text);
		goto bad;
	}
	x->kinds[K_KOBJ]++;
	if (name != 0) {
		fxt_map_put(&x->koid_names, koid, 0, (uint32_t)x->knames.len);
		VEC_PUSH(&x->knames, kn);
	} else
		free(kn.text);
	fxt_map_put(&x->koid_type, koid, 0, otype);
	return;
bad:
	fxt_malformed(x, off, "kernel object fields run past the record");
}

static void
log_record(struct fxt *x, uint64_t off, uint64_t h, const unsigned char *r,
    const unsigned char *end)
{
	const unsigned char *p = r + 8;
	size_t n = (h >> 16) & 0x7fff;
	uint32_t thread;
	uint64_t ticks;
	int64_t t;

	if (x->scan)
		x->kinds[K_LOG]++;
	if (end - p < 8)
		goto bad;
	ticks = fxt_word(x, p);
	p += 8;
	/* The scan pass makes every thread the event pass will see, so the
	 * thread array stays put while the replay worker reads it. */
	if (!tref(x, (h >> 32) & 0xff, &p, end, &thread))
		goto bad;
	if (x->scan)
		return;
	if ((size_t)(end - p) < n)
		goto bad;
	if (thread == FXT_NONE)
		return;
	if (!fxt_ticks_to_ns(cur(x), ticks, &t)) {
		x->kinds[K_BAD_TIMESTAMP]++;
		return;
	}
	if (t > x->max_t)
		x->max_t = t;
	fxt_thread_track(x, thread);
	fxt_lock(x);
	builder_log(x->b, fxt_thread_track(x, thread), t,
	    builder_intern(x->b, (const char *)p, n));
	fxt_unlock(x);
	return;
bad:
	if (!x->scan)
		fxt_malformed(x, off, "log fields run past the record");
}

/* Reads a named int32 weight from a scheduling record's args. */
static bool
sched_args(struct fxt *x, const unsigned char *p, const unsigned char *end,
    unsigned n, struct fxt_sched *s)
{
	str_id in_w = builder_intern_cstr(x->b, "incoming_weight");
	str_id out_w = builder_intern_cstr(x->b, "outgoing_weight");
	str_id w = builder_intern_cstr(x->b, "weight");
	struct fxt_arg a;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (!fxt_arg_next(x, &p, end, &a))
			return false;
		if (a.type != 1)
			continue;
		if (a.name == in_w || a.name == w)
			s->in_prio = (int32_t)a.bits;
		else if (a.name == out_w)
			s->out_prio = (int32_t)a.bits;
	}
	return true;
}

static void
sched_record(struct fxt *x, uint64_t off, uint64_t h, const unsigned char *r,
    const unsigned char *end)
{
	const unsigned char *p = r + 8;
	unsigned sub = (unsigned)(h >> 60), nargs;
	struct fxt_sched s;
	uint32_t out_th, in_th;
	uint64_t ticks;

	if (x->scan) {
		x->kinds[sub == 0 ? K_CSWITCH_LEGACY : sub == 1 ? K_CSWITCH :
		    sub == 2 ? K_WAKEUP : K_SCHED_UNKNOWN]++;
		/* Makes the threads of legacy records (see log_record). */
		if (sub == 0 && end - p >= 8) {
			p += 8;
			if (tref(x, (h >> 28) & 0xff, &p, end, &out_th))
				tref(x, (h >> 36) & 0xff, &p, end, &in_th);
		}
		return;
	}
	if (sub > 2)
		return;
	memset(&s, 0, sizeof s);
	s.kind = (uint8_t)sub;
	if (end - p < 8)
		goto bad;
	ticks = fxt_word(x, p);
	p += 8;
	if (sub == 0) {
		s.cpu = (h >> 16) & 0xff;
		s.out_state = (h >> 24) & 15;
		s.out_prio = (h >> 44) & 0xff;
		s.in_prio = (h >> 52) & 0xff;
		if (!tref(x, (h >> 28) & 0xff, &p, end, &out_th) ||
		    !tref(x, (h >> 36) & 0xff, &p, end, &in_th))
			goto bad;
		if (out_th == FXT_NONE || in_th == FXT_NONE)
			return;
		s.out_tid = x->threads.items[out_th].tid;
		s.in_tid = x->threads.items[in_th].tid;
		/* Legacy records mark the idle thread with pid 0, priority 0. */
		s.out_idle = x->threads.items[out_th].pid == 0 &&
		    s.out_prio == 0;
		s.in_idle = x->threads.items[in_th].pid == 0 && s.in_prio == 0;
	} else {
		nargs = (h >> 16) & 15;
		s.cpu = (h >> 20) & 0xffff;
		s.out_state = (h >> 36) & 15;
		if (end - p < (sub == 1 ? 16 : 8))
			goto bad;
		if (sub == 1) {
			s.out_tid = (int64_t)fxt_word(x, p);
			s.in_tid = (int64_t)fxt_word(x, p + 8);
			p += 16;
		} else {
			s.in_tid = (int64_t)fxt_word(x, p);
			p += 8;
		}
		fxt_lock(x);
		if (!sched_args(x, p, end, nargs, &s)) {
			fxt_unlock(x);
			goto bad;
		}
		if (sub == 2 && nargs > 0) {
			builder_args_begin(x->b);
			fxt_args(x, p, end, nargs, off);
			s.args = builder_args_end(x->b);
		}
		fxt_unlock(x);
		/* New records mark idle with the weight INT32_MIN. */
		s.out_idle = s.out_tid == 0 || s.out_prio == INT32_MIN;
		s.in_idle = s.in_tid == 0 || s.in_prio == INT32_MIN;
	}
	if (!fxt_ticks_to_ns(cur(x), ticks, &s.t)) {
		x->kinds[K_BAD_TIMESTAMP]++;
		return;
	}
	if (s.t > x->max_t)
		x->max_t = s.t;
	VEC_PUSH(&x->sched, s);
	return;
bad:
	fxt_malformed(x, off, "scheduling record fields run past the record");
}

static void
large_record(struct fxt *x, uint64_t h)
{
	if (x->scan)
		x->kinds[((h >> 36) & 15) == 0 ? K_LARGE_BLOB :
		    K_LARGE_UNKNOWN]++;
}

static void
record(struct fxt *x, uint64_t off, uint64_t h, unsigned type,
    const unsigned char *r, size_t len)
{
	const unsigned char *end = r + len;

	switch (type) {
	case 0: metadata(x, off, h, r, end); break;
	case 1: initialization(x, off, r, end); break;
	case 2: string_record(x, off, h, r, end); break;
	case 3: thread_record(x, off, h, r, end); break;
	case 4: event_record(x, off, h, r, end); break;
	case 5: if (x->scan) x->kinds[K_BLOB]++; break;
	case 6: if (x->scan) x->kinds[K_USEROBJ]++; break;
	case 7: kernel_object(x, off, h, r, end); break;
	case 8: sched_record(x, off, h, r, end); break;
	case 9: log_record(x, off, h, r, end); break;
	case 15: large_record(x, h); break;
	default:
		if (x->scan)
			x->kinds[K_UNKNOWN10 + (type - 10)]++;
		break;
	}
}

/*
 * The scan pass's share of the commonest record: an event on an indexed
 * thread. It counts the event and checks the thread's time order, as
 * event_record() does in the scan pass, without its decoding; false
 * (nothing done) for what it does not cover.
 */
static inline __attribute__((always_inline)) bool
scan_event(struct fxt *x, uint64_t h, const unsigned char *r, uint64_t words)
{
	unsigned et = (h >> 16) & 15, ref = (h >> 24) & 0xff;
	struct fxt_thread *th;
	uint32_t thread;
	int64_t t;

	if (et > FXT_EV_FLOW_END || ref == 0 || x->cur == NULL)
		return false;
	x->kinds[K_EV_INSTANT + et]++;
	/* As in event_record(): only the order of events bound to a
	 * thread's stack matters, and a record too short to hold a time
	 * is left to the event pass to report. */
	if (et == FXT_EV_COUNTER || (et >= FXT_EV_ASYNC_BEGIN &&
	    et <= FXT_EV_ASYNC_END) || words < 2)
		return true;
	thread = x->cur->threads[ref];
	if (thread == FXT_NONE ||
	    !fxt_ticks_to_ns(x->cur, fxt_word(x, r + 8), &t))
		return true;
	th = &x->threads.items[thread];
	th->nev++;
	if (et == FXT_EV_END && ((h >> 20) & 15) != 0)
		th->end_args = true;
	if (t < th->last_t)
		th->defer = true;
	else
		th->last_t = t;
	return true;
}

/* An indexed string ref of an event (counted if undefined). */
static inline str_id
sref_index(struct fxt *x, const struct fxt_provider *cur, unsigned ref)
{
	str_id s = ref ? fxt_pstr(cur, ref) : 0;

	return __builtin_expect(s != FXT_STR_UNSET, 1) ? s :
	    fxt_sref_unset(x);
}

/*
 * A counter event with one numeric argument, all indexed (see
 * event_fast); false if it is not one.
 */
static bool
counter_fast(struct fxt *x, uint64_t h, const unsigned char *r,
    uint64_t words)
{
	struct fxt_provider *cur = x->cur;
	struct fxt_event ev;
	struct fxt_arg a;
	uint64_t ah, aw;
	double v;

	ah = fxt_word(x, r + 16);
	aw = (ah >> 4) & 0xfff;
	a.type = ah & 15;
	a.name_ref = (ah >> 16) & 0xffff;
	/* The argument, then the counter id, within the record. */
	if (aw == 0 || aw > words - 3 || (a.name_ref & 0x8000) != 0 ||
	    a.type == 0 || a.type > 5 || (a.type >= 3 && aw < 2))
		return false;
	ev.thread = cur->threads[(h >> 24) & 0xff];
	if (ev.thread == FXT_NONE) {
		x->kinds[K_BAD_THREAD_REF]++;
		return true;
	}
	if (!fxt_ticks_to_ns(cur, fxt_word(x, r + 8), &ev.t)) {
		x->kinds[K_BAD_TIMESTAMP]++;
		return true;
	}
	ev.cat = sref_index(x, cur, (h >> 32) & 0xffff);
	ev.name_ref = (unsigned)(h >> 48);
	ev.name = sref_index(x, cur, ev.name_ref);
	ev.name_stream = NULL;
	ev.x = fxt_word(x, r + 16 + aw * 8);
	if (ev.t > x->last_t)
		x->last_t = ev.t;
	a.name = sref_index(x, cur, a.name_ref);
	a.name_stream = NULL;
	switch (a.type) {
	case 1: v = (double)(int32_t)(uint32_t)(ah >> 32); break;
	case 2: v = (double)(uint32_t)(ah >> 32); break;
	case 3: v = (double)(int64_t)fxt_word(x, r + 24); break;
	case 4: v = (double)fxt_word(x, r + 24); break;
	default: {
		uint64_t bits = fxt_word(x, r + 24);
		memcpy(&v, &bits, sizeof v);
		break;
	}
	}
	fxt_counter_sample(x, &ev, &a, v);
	return true;
}

/*
 * The event pass's share of the commonest records: a duration or instant
 * event on an indexed thread, with indexed names and no args, or a counter
 * with one numeric argument. It does what event_record() and fxt_event()
 * do with one, in the same order (the counts of bad references and
 * timestamps included), without their generic decoding; false (nothing
 * done) for anything else.
 */
static inline __attribute__((always_inline)) bool
event_fast(struct fxt *x, uint64_t h, const unsigned char *r, uint64_t words)
{
	unsigned et = (h >> 16) & 15, ref = (h >> 24) & 0xff;
	unsigned cref = (h >> 32) & 0xffff, nref = (unsigned)(h >> 48);
	struct fxt_provider *cur = x->cur;
	struct fxt_thread *th;
	struct fxt_dev dev;
	uint32_t thread;
	str_id cat, name;
	int64_t t, xv = 0;
	func_id f;

	if (cur == NULL || ref == 0 || ((cref | nref) & 0x8000) != 0)
		return false;
	if (et == FXT_EV_COUNTER)
		return ((h >> 20) & 15) == 1 && words >= 4 &&
		    counter_fast(x, h, r, words);
	if (((h >> 20) & 15) != 0 || (et != FXT_EV_INSTANT &&
	    et != FXT_EV_BEGIN && et != FXT_EV_END && et != FXT_EV_COMPLETE) ||
	    words < (et == FXT_EV_COMPLETE ? 3u : 2u))
		return false;
	thread = cur->threads[ref];
	if (thread == FXT_NONE) {
		x->kinds[K_BAD_THREAD_REF]++;
		return true;
	}
	if (!fxt_ticks_to_ns(cur, fxt_word(x, r + 8), &t)) {
		x->kinds[K_BAD_TIMESTAMP]++;
		return true;
	}
	cat = sref_index(x, cur, cref);
	name = sref_index(x, cur, nref);
	if (t > x->last_t)
		x->last_t = t;
	f = fxt_func(x, name, cat);
	if (et == FXT_EV_COMPLETE) {
		if (!fxt_ticks_to_ns(cur, fxt_word(x, r + 16), &xv) ||
		    xv < t) {
			x->kinds[K_BAD_TIMESTAMP]++;
			return true;
		}
		if (xv > x->max_t)
			x->max_t = xv;
	}
	if (t > x->max_t)
		x->max_t = t;
	fxt_thread_track(x, thread);
	th = &x->threads.items[thread];
	if (__builtin_expect(th->defer, 0)) {
		dev.t = t;
		dev.x = xv;
		dev.func = f;
		dev.args = 0;
		dev.type = (uint8_t)et;
		VEC_PUSH(&th->dev, dev);
	} else if (x->pipe != NULL && !th->direct)
		fxt_pipe_put(x, et, thread, t, xv, f, 0);
	else
		fxt_thread_run(x, thread, et, t, xv, f, 0, x->kinds);
	return true;
}

/*
 * One pass over the records in file order, from off to the first record
 * at or past limit; returns where it stopped. The scan pass finds where the
 * well-formed records end and reports framing damage (*broken: it cannot
 * go on); the event pass stops there without reporting it again. Inlined
 * once per pass, so that each loop is specialised for its pass.
 */
static inline __attribute__((always_inline)) size_t
walk(struct fxt *x, const bool scan, size_t off, size_t limit, bool *broken)
{
	const struct mapped_file *f = x->ctx->file;
	const unsigned char *d = x->data;
	size_t size = scan ? f->size : x->size;
	size_t next_progress = off + PROGRESS_STEP;
	size_t next_release = off + RELEASE_STEP;
	uint64_t total = (uint64_t)f->size * 2;

	*broken = false;
	while (off < limit && size - off >= 8) {
		uint64_t h = fxt_word(x, d + off), words;
		unsigned type = h & 15;

		/* Records are small: fetch ahead of the page the hardware
		 * prefetcher will not cross into. */
		__builtin_prefetch(d + off + 2048);

		/* Large records (type 15) have a 32-bit size in words. */
		words = type == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		if (words == 0) {
			if (scan)
				builder_error(x->b, off, "record of size 0 "
				    "(type %u): cannot go on", type);
			*broken = true;
			break;
		}
		if (words > (size - off) / 8) {
			if (scan)
				builder_error(x->b, off, "truncated record "
				    "(declares %" PRIu64 " bytes, %zu present)",
				    words * 8, size - off);
			*broken = true;
			break;
		}
		if (type != 4 || !(scan ? scan_event(x, h, d + off, words) :
		    event_fast(x, h, d + off, words)))
			record(x, off, h, type, d + off, (size_t)words * 8);
		off += (size_t)words * 8;
		if (off >= next_progress) {
			load_progress(x->ctx, (scan ? 0 : f->size) + off,
			    total);
			next_progress = off + PROGRESS_STEP;
			/* not wanted any more: stops as where the records
			 * end (the event pass then stops there too) */
			if (load_cancelled(x->ctx)) {
				*broken = true;
				break;
			}
		}
		/* The scan pass keeps its pages: the event pass reads them
		 * again and drops them behind itself, so the mapping and the
		 * growing model never both hold the whole file. */
		if (!scan && off >= next_release) {
			/* On the replay worker when there is one: the reading
			 * thread has more to do. Handed over now, as the ring
			 * may fill slowly (threads whose events are sorted at
			 * the end do not go through it). */
			size_t upto = off & ~(size_t)(RELEASE_STEP - 1);
			if (x->pipe != NULL) {
				fxt_pipe_put(x, FXT_PIPE_RELEASE, 0,
				    (int64_t)upto, 0, 0, 0);
				fxt_pipe_flush(x, true);
			} else
				mapfile_release(f, upto);
			next_release = off + RELEASE_STEP;
		}
	}
	return off;
}

/*
 * The scan pass. On a big trace a second thread scans the second half
 * meanwhile (fxt_half.c), from a record boundary it guesses; its result
 * is taken only if this thread's walk lands exactly there, and only as
 * far as it could go without the tables (this thread goes on from there).
 * Otherwise the pages are mapped in on the second CPU ahead of this
 * thread (fxt_prefault.c).
 */
size_t
fxt_scan_from(struct fxt *x, size_t off, bool *broken)
{
	const struct mapped_file *f = x->ctx->file;
	struct fxt_prefault *pf = NULL;
	struct fxt_half *hf = NULL;
	size_t mid;

	*broken = false;
	/* the halves of a read from the start: a read that goes on has the
	 * tables of what it read before, which the second half lacks */
	if (off == 0)
		hf = fxt_half_start(x, &mid);
	if (hf != NULL) {
		off = walk(x, true, 0, mid, broken);
		fxt_half_merge(x, hf, off == mid && !*broken, &off);
	} else
		pf = fxt_prefault_start(x->data + off, f->size - off);
	if (!*broken)
		off = walk(x, true, off, SIZE_MAX, broken);
	fxt_prefault_stop(pf);
	return off;
}

static void
scan_walk(struct fxt *x)
{
	const struct mapped_file *f = x->ctx->file;
	bool broken;
	size_t off = fxt_scan_from(x, 0, &broken);

	if (off < f->size && f->size - off < 8)
		builder_error(x->b, off, "truncated record (%zu bytes, "
		    "less than a record header)", f->size - off);
	x->size = off;
}

static void
event_walk(struct fxt *x)
{
	bool broken;

	walk(x, false, 0, SIZE_MAX, &broken);
}

void
fxt_events_from(struct fxt *x, size_t off)
{
	bool broken;

	walk(x, false, off, SIZE_MAX, &broken);
}

/* ------------------------------------------------------------ the load */

static int
fxt_probe(const char *path, const unsigned char *head, size_t len,
    bool is_dir)
{
	uint64_t le = 0, be = 0, h;
	size_t i;

	if (is_dir || head == NULL || len < 8)
		return 0;
	for (i = 0; i < 8; i++) {
		le |= (uint64_t)head[i] << (8 * i);
		be = be << 8 | head[i];
	}
	if (le == FXT_MAGIC || be == FXT_MAGIC)
		return 100;
	/* Older traces start with a provider info record. */
	h = le;
	if ((h & 15) == 0 && ((h >> 16) & 15) == 1 && ((h >> 4) & 0xfff) >= 1 &&
	    ((h >> 4) & 0xfff) <= 33 && (h >> 60) == 0 &&
	    ((((h >> 52) & 0xff) + 7) / 8 + 1 == ((h >> 4) & 0xfff)))
		return 60;
	return 0;
}

void
fxt_name_things(struct fxt *x)
{
	size_t i;
	uint32_t type, name;

	/* Process objects name processes, even those without events. */
	for (i = 0; i < x->koid_type.cap; i++) {
		const struct fxt_map_slot *s = &x->koid_type.slots[i];
		if (!s->used || s->v != 1)
			continue;
		if (fxt_map_get(&x->koid_names, s->a, 0, &name))
			builder_process_name(x->b,
			    fxt_process(x, (int64_t)s->a),
			    x->knames.items[name].sid);
	}
	/* Thread objects name the tracks of the threads that have one. */
	for (i = 0; i < x->threads.len; i++) {
		struct fxt_thread *th = &x->threads.items[i];
		if (th->track == FXT_NONE)
			continue;
		if (fxt_map_get(&x->koid_type, (uint64_t)th->tid, 0, &type) &&
		    type == 2 && fxt_map_get(&x->koid_names,
		    (uint64_t)th->tid, 0, &name))
			builder_track_name(x->b, th->track,
			    x->knames.items[name].sid);
	}
}

void
fxt_report(struct fxt *x)
{
	char key[48], val[160];
	size_t i;

	for (i = 0; i < K_COUNT; i++)
		if (x->kinds[i] != 0)
			builder_count(x->b, fxt_kind_names[i], x->kinds[i]);
	/* Counted above, and said: calls were lost. */
	if (x->kinds[K_TOO_DEEP] != 0)
		builder_note(x->b, DIAG_WARNING, "%" PRIu64 " duration events "
		    "nested deeper than %d levels were dropped",
		    x->kinds[K_TOO_DEEP], FXT_MAX_DEPTH);
	for (i = 0; i < x->providers.len; i++) {
		const struct fxt_provider *p = x->providers.items[i];
		snprintf(key, sizeof key, "provider %" PRIu32, p->id);
		snprintf(val, sizeof val, "%s, %" PRIu64 " ticks/s",
		    p->cname[0] ? p->cname : "(unnamed)", p->tps);
		builder_meta(x->b, key, val);
	}
	builder_set_tick_rate(x->b, x->first_tps ? (double)x->first_tps :
	    1e9);
}

void
fxt_open(struct fxt *x, struct load_ctx *ctx)
{
	const struct mapped_file *f = ctx->file;
	uint64_t le = 0, be = 0, native;
	size_t i;

	memset(x, 0, sizeof *x);
	x->ctx = ctx;
	x->b = ctx->b;
	x->data = f->data;
	x->last_t = INT64_MIN;
	x->max_t = INT64_MIN;
	x->kernel_process = FXT_NONE;
	for (i = 0; i < 8; i++) {
		le |= (uint64_t)f->data[i] << (8 * i);
		be = be << 8 | f->data[i];
	}
	/* The magic number tells the byte order; without it, little-endian
	 * (every writer so far). */
	memcpy(&native, f->data, 8);
	bool big = be == FXT_MAGIC && le != FXT_MAGIC;
	x->swap = big ? native != be : native != le;
	builder_set_format(x->b, "fxt", NULL,
	    big ? "big-endian" : "little-endian");
}

static int
fxt_load(struct load_ctx *ctx)
{
	const struct mapped_file *f = ctx->file;
	struct fxt x;

	if (f == NULL || f->size < 8) {
		builder_error(ctx->b, 0, "not an FXT trace: %zu bytes",
		    f ? f->size : 0);
		return -1;
	}
	fxt_open(&x, ctx);
	mapfile_sequential(f);

	fxt_choose_tick_base(&x);
	x.scan = true;
	scan_walk(&x);
	if (x.size == 0) {
		fxt_state_free(&x);
		return -1;
	}
	fxt_providers_free(&x);
	x.scan = false;
	x.kernel_process = FXT_NONE;
	fxt_events_start(&x);
	fxt_pipe_start(&x, x.size);
	event_walk(&x);
	fxt_pipe_finish(&x);
	fxt_events_finish(&x, false);
	fxt_sched_finish(&x);
	fxt_name_things(&x);
	fxt_report(&x);
	fxt_providers_free(&x);
	fxt_state_free(&x);
	load_progress(ctx, (uint64_t)f->size * 2, (uint64_t)f->size * 2);
	return 0;
}

/*
 * A file being written: records one after the other, each announcing its
 * size in its header, so the whole ones are those whose announced words
 * are all there. A header that announces nothing (0 words) ends the walk
 * there, and the reader then says it is damage. The walk starts at from,
 * a record's start (the records before it were found whole by a read
 * before).
 */
static size_t
fxt_complete_from(const unsigned char *data, size_t len, size_t from)
{
	uint64_t le = 0, be = 0;
	if (len < 8)
		return 0;
	for (int i = 0; i < 8; i++) {
		le |= (uint64_t)data[i] << (8 * i);
		be = be << 8 | data[i];
	}
	bool big = be == FXT_MAGIC && le != FXT_MAGIC;
	size_t off = from < len ? from : len;
	while (len - off >= 8) {
		uint64_t h = 0;
		for (int i = 0; i < 8; i++)
			h = big ? h << 8 | data[off + (size_t)i] :
			    h | (uint64_t)data[off + (size_t)i] << (8 * i);
		unsigned type = h & 15;
		uint64_t words = type == 15 ? (h >> 4) & 0xffffffffu :
		    (h >> 4) & 0xfff;
		if (words == 0)
			return len;
		if (words > (len - off) / 8)
			break;
		off += (size_t)words * 8;
	}
	return off;
}

static size_t
fxt_complete(const unsigned char *data, size_t len)
{
	return fxt_complete_from(data, len, 0);
}

const struct reader fxt_reader = {
	.name = "fxt",
	.description = "Fuchsia trace format (FXT), either byte order",
	.probe = fxt_probe,
	.load = fxt_load,
	.complete = fxt_complete,
	.grow_begin = fxt_grow_begin,
	.grow_feed = fxt_grow_feed,
	.grow_end = fxt_grow_end,
	.grow_free = fxt_grow_free,
	.complete_from = fxt_complete_from,
	.grow_save = fxt_grow_save,
	.grow_load = fxt_grow_load,
};
