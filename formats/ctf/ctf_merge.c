/*
 * Every CTF trace below a directory, merged into one time-ordered walk.
 *
 * LTTng writes one trace per user and bitness, or per process, and one
 * per rotation chunk: any directory holding a `metadata` file is a trace,
 * and its other regular files are its data streams. Each stream keeps one
 * pending item (a packet start or a decoded event); a binary heap keyed by
 * (time, trace, stream) hands out the earliest, and the stream it came
 * from is advanced only when the next item is asked for, so the values of
 * the item handed out stay valid until then.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mapfile.h"
#include "ctf_decode.h"
#include "ctf_index.h"
#include "xalloc.h"

struct ctf_stream_slot {
	struct ctf_stream s;
	struct mapped_file mf;
	bool pending;		/* holds an item to hand out */
	struct ctf_item item;
	bool in_packet;
	uint64_t released;
};

struct ctf_reader {
	char *root;
	ctf_diag_fn diag;
	void *arg;
	struct ctf_trace **traces;
	size_t ntraces;
	struct ctf_stream_slot **streams;
	size_t nstreams;
	struct ctf_stream_slot **heap;
	size_t nheap;
	struct ctf_stream_slot *last;
	uint64_t bytes_total, bytes_done;
};

static void
diag(struct ctf_reader *r, bool error, const char *file, int64_t off,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
diag(struct ctf_reader *r, bool error, const char *file, int64_t off,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (r->diag)
		r->diag(r->arg, error, file, off, buf);
}

static char *
join(const char *a, const char *b)
{
	if (a[0] == '\0')
		return xstrdup(b);
	return xasprintf("%s/%s", a, b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in a directory, sorted, without "." entries. */
static char **
list_dir(const char *path, size_t *n)
{
	*n = 0;
	DIR *dir = opendir(path);
	if (dir == NULL)
		return NULL;
	VEC(char *) v = { 0 };
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		VEC_PUSH(&v, xstrdup(de->d_name));
	}
	closedir(dir);
	if (v.len)
		xqsort(v.items, v.len, sizeof *v.items, cmp_str);
	*n = v.len;
	return v.items;
}

static void add_trace(struct ctf_reader *r, const char *rel);

static void
walk(struct ctf_reader *r, const char *rel, int depth)
{
	if (depth > 12)
		return;
	char *full = join(r->root, rel);
	size_t n;
	char **names = list_dir(full, &n);
	bool has_meta = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], "metadata")) {
			char *p = join(full, names[i]);
			struct stat st;
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				has_meta = true;
			free(p);
		}
	if (has_meta)
		add_trace(r, rel);
	for (size_t i = 0; i < n; i++) {
		char *p = join(full, names[i]);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *sub = join(rel, names[i]);
			walk(r, sub, depth + 1);
			free(sub);
		}
		free(p);
		free(names[i]);
	}
	free(names);
	free(full);
}

static void
add_stream(struct ctf_reader *r, struct ctf_trace *t, const char *rel)
{
	char *full = join(r->root, rel);
	struct ctf_stream_slot *ss = xcalloc(1, sizeof *ss);
	char *err = NULL;
	if (mapfile_open(full, &ss->mf, &err) < 0) {
		diag(r, true, rel, -1, "%s", err ? err : "cannot open");
		free(err);
		free(ss);
		free(full);
		return;
	}
	free(full);
	mapfile_sequential(&ss->mf);
	ss->s.trace = t;
	ss->s.path = xstrdup(rel);
	ss->s.data = ss->mf.data;
	ss->s.size = ss->mf.size;
	ss->s.index = (int)r->nstreams;
	ctf_stream_index_load(&ss->s, r->root, r->diag, r->arg);
	ss->s.d.slots = xcalloc((size_t)t->m->nslots + 1, sizeof(uint64_t));
	r->bytes_total += ss->mf.size;
	r->streams = xreallocarray(r->streams, r->nstreams + 1,
	    sizeof *r->streams);
	r->streams[r->nstreams++] = ss;
}

static void
add_trace(struct ctf_reader *r, const char *rel)
{
	char *mpath = join(rel, "metadata");
	char *full = join(r->root, mpath);
	struct mapped_file mf;
	char *err = NULL;
	if (mapfile_open(full, &mf, &err) < 0) {
		diag(r, true, mpath, -1, "%s", err ? err : "cannot open");
		free(err);
		free(full);
		free(mpath);
		return;
	}
	free(full);
	char *text;
	size_t len;
	uint8_t uuid[16];
	bool packetized;
	char msg[512];
	uint64_t off;
	if (ctf_metadata_text(mf.data, mf.size, &text, &len, uuid, &packetized,
	    msg, sizeof msg, &off) < 0) {
		diag(r, true, mpath, (int64_t)off, "%s", msg);
		mapfile_close(&mf);
		free(mpath);
		return;
	}
	mapfile_close(&mf);
	if (!packetized) {
		if (len < 10 || memcmp(text, "/* CTF 1.8", 10) != 0) {
			if (len >= 6 && memcmp(text, "/* CTF", 6) == 0) {
				diag(r, true, mpath, 0, "unsupported metadata "
				    "version signature (expecting \"/* CTF 1.8\")");
				free(text);
				free(mpath);
				return;
			}
			diag(r, false, mpath, 0, "metadata without the "
			    "\"/* CTF 1.8\" signature");
		}
	}
	struct ctf_meta *m = ctf_meta_new();
	if (tsdl_parse(m, text, len, msg, sizeof msg) < 0 ||
	    ctf_meta_resolve(m, msg, sizeof msg) < 0) {
		diag(r, true, mpath, -1, "%s", msg);
		ctf_meta_free(m);
		free(text);
		free(mpath);
		return;
	}
	free(text);
	for (size_t i = 0; i < m->nwarns; i++)
		diag(r, false, mpath, -1, "%s", m->warns[i]);
	if (packetized && m->has_uuid && memcmp(uuid, m->uuid, 16) != 0)
		diag(r, false, mpath, 0, "metadata packets' uuid differs from "
		    "the trace's");
	struct ctf_trace *t = xcalloc(1, sizeof *t);
	t->dir = xstrdup(rel);
	t->metadata_path = mpath;
	t->m = m;
	t->hostname = ctf_env_str(m, "hostname");
	t->index = (int)r->ntraces;
	r->traces = xreallocarray(r->traces, r->ntraces + 1,
	    sizeof *r->traces);
	r->traces[r->ntraces++] = t;

	char *dfull = join(r->root, rel);
	size_t n;
	char **names = list_dir(dfull, &n);
	for (size_t i = 0; i < n; i++) {
		char *p = join(dfull, names[i]);
		struct stat st;
		if (strcmp(names[i], "metadata") != 0 && stat(p, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			char *srel = join(rel, names[i]);
			add_stream(r, t, srel);
			free(srel);
		}
		free(p);
		free(names[i]);
	}
	free(names);
	free(dfull);
}

/* --- the heap --- */

static bool
before(const struct ctf_stream_slot *a, const struct ctf_stream_slot *b)
{
	if (a->item.ns != b->item.ns)
		return a->item.ns < b->item.ns;
	if (a->s.trace->index != b->s.trace->index)
		return a->s.trace->index < b->s.trace->index;
	return a->s.index < b->s.index;
}

static void
heap_push(struct ctf_reader *r, struct ctf_stream_slot *s)
{
	size_t i = r->nheap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(s, r->heap[p]))
			break;
		r->heap[i] = r->heap[p];
		i = p;
	}
	r->heap[i] = s;
}

static struct ctf_stream_slot *
heap_pop(struct ctf_reader *r)
{
	struct ctf_stream_slot *top = r->heap[0];
	struct ctf_stream_slot *last = r->heap[--r->nheap];
	size_t i = 0, n = r->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r->heap[c], last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (n > 0)
		r->heap[i] = last;
	return top;
}

/* Puts s in the heap in place of its top, which is returned: one sift
 * instead of a push and a pop when streams take turns. */
static struct ctf_stream_slot *
heap_replace_top(struct ctf_reader *r, struct ctf_stream_slot *s)
{
	struct ctf_stream_slot *top = r->heap[0];
	size_t i = 0, n = r->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r->heap[c], s))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = s;
	return top;
}

/* Moves a stream to its next item; false when it has none. */
static bool
advance(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	struct ctf_stream *s = &ss->s;
	char msg[256];
	uint64_t off;
	for (;;) {
		if (!ss->in_packet) {
			int rc = ctf_packet_open(s, msg, sizeof msg, &off);
			if (rc < 0) {
				diag(r, true, s->path, (int64_t)off, "%s", msg);
				return false;
			}
			if (rc == 0)
				return false;
			ss->in_packet = true;
			struct ctf_item *it = &ss->item;
			memset(it, 0, sizeof *it);
			it->kind = CTF_ITEM_PACKET;
			it->s = s;
			const struct ctf_meta *m = s->trace->m;
			int clk = s->sc->clock;
			if (clk >= 0 && s->has_ts_begin) {
				it->has_ts = true;
				it->ns = ctf_clock_ns(&m->clocks[clk], s->ts_begin);
			} else if (clk >= 0 && s->d.clock_set) {
				it->has_ts = true;
				it->ns = ctf_clock_ns(&m->clocks[clk], s->d.clock);
			} else
				it->ns = INT64_MIN;
			if (s->has_disc && s->disc != s->disc_prev) {
				uint64_t d = s->disc - s->disc_prev;
				it->discarded = d;
			}
			if (s->has_seq && s->packets > 1 &&
			    s->seq != s->seq_prev + 1 && s->seq > s->seq_prev)
				it->lost_packets = s->seq - s->seq_prev - 1;
			ss->pending = true;
			return true;
		}
		int rc = ctf_event_next(s, msg, sizeof msg, &off);
		if (rc < 0) {
			diag(r, true, s->path, (int64_t)off, "%s", msg);
			return false;
		}
		if (rc == 0) {
			ss->in_packet = false;
			/* give back the pages of finished packets */
			if (s->pkt_off - ss->released >= (16u << 20)) {
				mapfile_release(&ss->mf, (size_t)s->pkt_off);
				r->bytes_done += s->pkt_off - ss->released;
				ss->released = s->pkt_off;
			}
			continue;
		}
		struct ctf_item *it = &ss->item;
		it->kind = CTF_ITEM_EVENT;
		it->s = s;
		it->has_ts = s->has_ts;
		it->ns = s->has_ts ? s->ns : INT64_MIN;
		it->discarded = it->lost_packets = 0;
		ss->pending = true;
		return true;
	}
}

static bool
has_trace(const char *path, int depth)
{
	if (depth > 12)
		return false;
	size_t n;
	char **names = list_dir(path, &n);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		char *p = join(path, names[i]);
		struct stat st;
		if (!found && stat(p, &st) == 0) {
			if (S_ISREG(st.st_mode) && !strcmp(names[i], "metadata"))
				found = true;
			else if (S_ISDIR(st.st_mode))
				found = has_trace(p, depth + 1);
		}
		free(p);
		free(names[i]);
	}
	free(names);
	return found;
}

bool
ctf_dir_has_trace(const char *path)
{
	return has_trace(path, 0);
}

struct ctf_reader *
ctf_reader_open(const char *path, ctf_diag_fn dfn, void *arg)
{
	struct ctf_reader *r = xcalloc(1, sizeof *r);
	r->diag = dfn;
	r->arg = arg;
	struct stat st;
	if (stat(path, &st) < 0) {
		diag(r, true, path, -1, "%s", strerror(errno));
		free(r);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		r->root = xstrdup(path);
		walk(r, "", 0);
	} else {
		/* the metadata file itself: its directory is the trace */
		const char *slash = strrchr(path, '/');
		r->root = slash ? xstrndup(path, (size_t)(slash - path)) :
		    xstrdup(".");
		if (r->root[0] == '\0') {
			free(r->root);
			r->root = xstrdup("/");
		}
		add_trace(r, "");
	}
	if (r->ntraces == 0) {
		ctf_reader_free(r);
		return NULL;
	}
	r->heap = xcalloc(r->nstreams + 1, sizeof *r->heap);
	for (size_t i = 0; i < r->nstreams; i++)
		if (advance(r, r->streams[i]))
			heap_push(r, r->streams[i]);
	return r;
}

bool
ctf_reader_next(struct ctf_reader *r, struct ctf_item *it)
{
	struct ctf_stream_slot *ss = NULL;
	if (r->last != NULL) {
		struct ctf_stream_slot *l = r->last;
		r->last = NULL;
		if (advance(r, l)) {
			/* still the earliest: no heap work (long runs of one
			 * stream are the common case) */
			if (r->nheap == 0 || before(l, r->heap[0]))
				ss = l;
			else
				ss = heap_replace_top(r, l);
		}
	}
	if (ss == NULL) {
		if (r->nheap == 0)
			return false;
		ss = heap_pop(r);
	}
	*it = ss->item;
	ss->pending = false;
	r->last = ss;
	return true;
}

void
ctf_reader_free(struct ctf_reader *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		mapfile_close(&ss->mf);
		ctf_stream_index_free(&ss->s);
		free(ss->s.path);
		free(ss->s.d.slots);
		VEC_FREE(&ss->s.pvals);
		VEC_FREE(&ss->s.evals);
		free(ss);
	}
	free(r->streams);
	for (size_t i = 0; i < r->ntraces; i++) {
		ctf_meta_free(r->traces[i]->m);
		free(r->traces[i]->dir);
		free(r->traces[i]->metadata_path);
		free(r->traces[i]);
	}
	free(r->traces);
	free(r->heap);
	free(r->root);
	free(r);
}

size_t
ctf_reader_ntraces(const struct ctf_reader *r)
{
	return r->ntraces;
}

struct ctf_trace *
ctf_reader_trace(const struct ctf_reader *r, size_t i)
{
	return r->traces[i];
}

uint64_t
ctf_reader_bytes_total(const struct ctf_reader *r)
{
	return r->bytes_total;
}

uint64_t
ctf_reader_bytes_done(const struct ctf_reader *r)
{
	uint64_t d = 0;
	for (size_t i = 0; i < r->nstreams; i++)
		d += r->streams[i]->s.pkt_off;
	return d;
}
