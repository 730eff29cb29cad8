/*
 * Every CTF trace below a directory, merged into one time-ordered walk.
 *
 * LTTng writes one trace per user and bitness, or per process, and one
 * per rotation chunk: any directory holding a `metadata` file is a trace
 * (found by ctf_dir.c, its metadata read by ctf_metadata.c), and its
 * other regular files are its data streams (stream/).
 *
 * Streams are decoded in batches of items (packet starts and events, each
 * complete in itself: values copied, raw events with the integers their
 * class picks). The user's raw hook sees raw events on the thread that
 * decoded them and may take them out of the walk (ctf.c keeps function
 * calls apart that way). On a trace of some size, worker threads decode
 * batches ahead while the caller merges: each stream has a few batches in
 * flight, one being read, the others ready or being filled. A heap keyed by
 * (time, trace, stream) hands out the earliest head. A stream is decoded
 * by one thread at a time, always in order, so the merged walk is the
 * same whatever the threads' timing; a stream's error travels at the end
 * of its last batch and is reported where the walk meets it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapfile.h"
#include "strtab.h"
#include "reader.h"
#include "env.h"
#include "ctf_dir.h"
#include "stream/ctf_index.h"
#include "ctf_merge.h"
#include "ctf_metadata.h"
#include "xalloc.h"

/* Batches per stream: one being read, the others ready or being filled. */
#define NBATCH 4
/* A batch closes at this many values kept for events and packets... */
#define BATCH_VALS 65536
/* ... or fewer when there are many streams: what the batches of all
 * streams may keep, values and items. Every stream has a batch in flight
 * from the start (the merge needs its first item), so what a batch may
 * hold shrinks as streams are many, to a floor that still carries a few
 * events. Batches grow to that as they are filled: a stream of one
 * packet takes what that packet holds. */
#define BATCH_VALS_BUDGET ((size_t)BATCH_VALS * NBATCH * 16)
#define BATCH_BUDGET ((size_t)48 << 20)
#define BATCH_MIN_ITEMS 16
#define BATCH_MIN_VALS 64
#define PIPE_MIN_BYTES ((uint64_t)16 << 20)
/* The first bytes of a stream file hashed: a file rewritten rather than
 * appended to is told there (ctf_reader_grow). */
#define HEAD_BYTES 4096

/* What a stream's walk carries from one packet to the next, taken just
 * before a packet opens (a reader that goes on): the walk starts again
 * from there when its state is made again from bytes (ctf_reader_save).
 * Values only: at a packet's boundary the decoder holds no pointer that
 * the next packet's open does not set again. */
struct ctf_ck {
	uint64_t item;		/* the stream's items filled before it */
	uint64_t pkt_off, packets, disc, disc_prev, seq, seq_prev, clock;
	uint64_t ts_begin, ts_end, cpu_id, prev_ts;
	uint64_t ts_back, ts_back_off, ts_back_from, ts_back_to;
	uint64_t skip_off, skip_bytes, idx_next;
	uint32_t disc_bits;
	int32_t sc;		/* its index in the metadata's, or -1 */
	bool has_disc, has_seq, clock_set, done, has_ts_begin, has_ts_end;
	bool has_cpu_id, has_prev_ts, idx_disagreed;
};

/* A message met while filling a batch, said when the walk gets there. */
struct batch_msg {
	size_t before;		/* the item it comes before */
	bool error;
	int64_t off;
	char *text;
};

struct batch {
	struct ctf_item *items;
	size_t n, cap;		/* cap: at most; nitems: allocated */
	size_t nitems;
	struct ctf_packet_info *pkts;	/* items point into it */
	size_t npkts, cappkts;
	ctf_vals vals;		/* values of events and packet contexts */
	uint64_t start_off;	/* the packet holding the first item */
	bool end;		/* the stream has nothing after these items */
	bool dry;		/* ...yet: the end of what it holds now (a
				 * reader that goes on, ctf_reader_grow) */
	uint32_t gen;		/* the oldest bytes of the file it points
				 * into (ctf_stream_slot.map_gen) */
	char *err;		/* why it ended, if by an error */
	int64_t err_off;
	VEC(struct batch_msg) msgs;
	/* a reader that goes on: the stream's items filled before its
	 * first, and the walk's state before each packet whose items it
	 * holds (the first: the one it began in) */
	uint64_t first_item;
	VEC(struct ctf_ck) cks;
};

/* A stream file's bytes before it grew, and which mapping they were. */
struct old_bytes {
	struct mapped_file mf;
	unsigned char *copy;
	uint32_t gen;
};

struct ctf_stream_slot {
	struct ctf_stream s;
	struct mapped_file mf;
	unsigned char *copy;	/* a small file's bytes, read (else mf) */
	/* the filler's (one thread at a time: busy) */
	struct batch *filling;
	bool in_packet;
	bool pkt_noted;		/* the open packet has a batch record */
	/* between batches, what the stream's decoding keeps of the
	 * fillers' shared state: the slots it wrote, and inside a packet
	 * the packet context's values */
	struct ctf_ids own_slots;
	struct ctf_val *pctx;
	size_t npctx;
	/* under the reader's lock */
	struct batch *ring[NBATCH];	/* allocated lazily */
	size_t nalloc;
	size_t ready_head, nready;	/* ready batches, ring order */
	struct batch *spare[NBATCH];	/* allocated, free */
	size_t nspare;
	bool busy;		/* being filled */
	bool ended;		/* its last batch is ready */
	/* the workers' queue of streams to fill, by batches ready */
	struct ctf_stream_slot *qprev, *qnext;
	int qlevel;		/* -1: not queued */
	/* the caller's, on lines of their own: the filler writes the
	 * stream's decoding state above all the time */
	_Alignas(64) struct batch *cur;
	size_t pos;
	const struct ctf_item *head;
	int64_t head_ns;	/* head->ns, where the heap looks */
	size_t msg_next;	/* cur->msgs said so far */
	size_t msg_at;		/* the item the next is said before */
	uint64_t order;		/* (trace, stream): ties in time */
	uint64_t released;
	uint64_t done;		/* its share of ctf_reader_bytes_done */
	bool retired;		/* ended and given back */
	/* the last packet its index lists (a growing trace's horizon),
	 * kept apart: the index goes when the stream ends */
	bool has_last;
	uint64_t last_end, last_class;
	/* a reader that goes on (ctf_reader_grow): the stream read all it
	 * held, at a packet's end, and waits for more (parked: out of the
	 * heap, its bytes and state kept); the file as it was mapped, and a
	 * hash of its first bytes, to tell a file rewritten */
	bool dry, parked;
	uint64_t file_size, dev, ino, head_hash;
	/* a reader that goes on decodes all a stream holds ahead (the
	 * batches after cur, in order), for the walk of what is held past
	 * the horizon (ctf_reader_tail); the mappings of the file before
	 * it grew, which what is held may point into */
	VEC(struct batch *) pend;
	VEC(struct old_bytes) old;
	uint32_t map_gen;	/* mappings made before the one in use */
	uint32_t pkt_gen;	/* the one the open packet began in */
	/* a reader that goes on: the items filled so far, the walk's
	 * state before the open packet (ctf_ck), and the bytes mapped */
	uint64_t nfilled;
	struct ctf_ck pkt_ck;
	size_t data_size;
	/* a whole read that keeps its state (ctf_reader_keep_state): the
	 * walk's state before its last packet that starts before the time
	 * it stops at (unsure: a packet without a time), and its packet
	 * index as it was read, kept when the stream ends */
	struct ctf_ck cut_ck;
	bool has_cut, cut_unsure;
	bool kept_idx;
	uint64_t kept_nidx, kept_ihash;
};

/* What a filling thread takes along: its scratch for the raw hook, and
 * the decoding state every stream it fills borrows in turn (the current
 * event's and packet's values, the slots), so that a stream between its
 * batches holds only what it must keep. */
struct filler {
	struct ctf_reader *r;
	void *scratch;
	ctf_vals evals, pvals;
	struct ctf_slot_share share;
};

struct ctf_reader {
	char *root;
	ctf_diag_fn diag;
	void *arg;
	/* the trace is being written (ctf_reader_open_growing): only what
	 * the indexes list is read, an empty metadata file is no trace yet */
	bool growing;
	/* goes on from where it stopped (ctf_reader_grow): no workers, and
	 * a stream at the end of what it holds waits instead of ending;
	 * unresumable: something was said or seen that a read going on
	 * could not say as a whole read would (read again from the start) */
	bool resumable, unresumable;
	/* a whole read that keeps the state of its walk stopped at
	 * keep_until (ctf_reader_keep_state); settled: its workers
	 * stopped, what they decoded ahead pending (ctf_reader_settle) */
	bool keep, settled;
	int64_t keep_until;
	/* the greatest (time, order) the walk handed out */
	bool any_out;
	int64_t max_ns;
	uint64_t max_order;
	size_t nwalk_skipped;	/* what the walk for traces did not enter */
	bool opened_file;	/* a metadata file, not a directory */
	size_t nslots;		/* the fillers' slots are for this many */
	/* called when a trace's metadata grew, before anything is decoded
	 * with it: the new event classes are planned (ctf_reader_grow) */
	void (*meta_hook)(void *arg);
	void *meta_hook_arg;
	ctf_progress_fn progress;	/* while looking for traces */
	void *progress_arg;
	struct ctf_trace **traces;
	size_t ntraces, captraces;
	struct ctf_stream_slot **streams;
	size_t nstreams, capstreams;
	struct ctf_stream_slot **heap;
	size_t nheap;
	struct ctf_stream_slot *last;
	uint64_t bytes_total;
	uint64_t bytes_done;	/* the sum of the streams' done */
	size_t batch_cap;	/* items a batch holds */
	size_t batch_vals;	/* values after which it closes */
	bool started;
	/* the workers */
	pthread_t *workers;
	size_t nworkers;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a batch was freed, or stop */
	pthread_cond_t ready;	/* a batch was filled */
	bool stop;
	/* streams a worker may fill, by how many batches they have ready
	 * (the fewest first), each level in the order they came in */
	struct ctf_stream_slot *qhead[NBATCH], *qtail[NBATCH];
	/* the raw hook, and what each filling thread gives it */
	ctf_raw_hook hook;
	ctf_raw_run run;	/* the hook's own raw runs, or NULL */
	void *hook_arg;
	bool light_walk;	/* the caller does little per item */
	size_t scratch_size;
	struct filler *fillers;	/* one per worker, then the caller's */
	size_t nfillers;
	struct filler *self;	/* the caller's: the last */
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

static void batch_diag(void *arg, bool error, const char *file, int64_t off,
    const char *msg);
static void batch_free(struct batch *bt);
static void add_trace(struct ctf_reader *r, const char *rel);

/* The walk's callbacks: each trace directory is opened as it is met. */
static bool
walk_trace(void *arg, const char *rel)
{
	add_trace(arg, rel);
	return true;
}

static void
walk_skipped(void *arg, const char *rel, const char *why)
{
	struct ctf_reader *r = arg;
	r->nwalk_skipped++;
	diag(r, false, rel[0] ? rel : ".", -1, "%s", why);
}

static void
walk_progress(void *arg, size_t entries)
{
	struct ctf_reader *r = arg;
	if (r->progress != NULL)
		r->progress(r->progress_arg, entries, 0);
}

/* Reads a file smaller than a page into ss->copy; false if it is not
 * one, or cannot be read so (then it is mapped, and what is wrong said
 * as for any file). */
static bool
read_small(const char *full, struct ctf_stream_slot *ss)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	if (page <= 0 || stat(full, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size >= page)
		return false;
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size >= page) {
		close(fd);
		return false;
	}
	size_t want = (size_t)st.st_size, got = 0;
	unsigned char *buf = xmalloc(want ? want : 1);
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			close(fd);
			return false;
		}
		if (n == 0)
			break;	/* it shrank: what is there */
		got += (size_t)n;
	}
	mapfile_note(full, fd);
	close(fd);
	ss->copy = buf;
	ss->s.data = buf;
	ss->s.size = got;
	return true;
}

/* A stream file's bytes: a mapping (with its SIGBUS guard), or for a
 * file smaller than a page a copy, as a mapping would take a page of
 * memory however small the file, and a trace may hold thousands of files
 * of one small packet. No file stays open. */
static int
open_data(const char *full, struct ctf_stream_slot *ss, char **err)
{
	struct stat st;
	if (stat(full, &st) == 0) {
		ss->file_size = (uint64_t)st.st_size;
		ss->dev = (uint64_t)st.st_dev;
		ss->ino = (uint64_t)st.st_ino;
	}
	if (read_small(full, ss)) {
		ss->data_size = ss->s.size;
		return 0;
	}
	if (mapfile_open(full, &ss->mf, err) < 0)
		return -1;
	mapfile_sequential(&ss->mf);
	ss->s.data = ss->mf.data;
	ss->s.size = ss->mf.size;
	ss->data_size = ss->s.size;
	return 0;
}

/* What a stream holds that its end no longer needs: its batches, its
 * bytes, its index, its decoding state. What the walk's items named
 * (path, trace, index) stays. */
/* The bytes of the file before it grew, no longer pointed into. */
static void
old_bytes_free(struct ctf_stream_slot *ss)
{
	for (size_t i = 0; i < ss->old.len; i++) {
		mapfile_close(&ss->old.items[i].mf);
		free(ss->old.items[i].copy);
	}
	VEC_FREE(&ss->old);
}

/* The oldest mapping what a stream holds points into. */
static uint32_t
oldest_gen(const struct ctf_stream_slot *ss)
{
	uint32_t g = ss->in_packet ? ss->pkt_gen : ss->map_gen;
	if (ss->cur != NULL && ss->cur->gen < g)
		g = ss->cur->gen;
	for (size_t i = 0; i < ss->pend.len; i++)
		if (ss->pend.items[i]->gen < g)
			g = ss->pend.items[i]->gen;
	return g;
}

/* Unmaps the bytes nothing points into any more: a stream always held
 * past the horizon keeps only the mappings its held items need. */
static void
old_bytes_trim(struct ctf_stream_slot *ss)
{
	uint32_t g = oldest_gen(ss);
	size_t k = 0;
	for (size_t i = 0; i < ss->old.len; i++) {
		struct old_bytes *o = &ss->old.items[i];
		if (o->gen < g) {
			mapfile_close(&o->mf);
			free(o->copy);
		} else {
			ss->old.items[k++] = *o;
		}
	}
	ss->old.len = k;
}

static void
stream_release(struct ctf_stream_slot *ss)
{
	batch_free(ss->cur);
	ss->cur = NULL;
	for (size_t k = 0; k < ss->pend.len; k++)
		batch_free(ss->pend.items[k]);
	VEC_FREE(&ss->pend);
	old_bytes_free(ss);
	for (size_t k = 0; k < ss->nready; k++)
		batch_free(ss->ring[(ss->ready_head + k) % NBATCH]);
	ss->nready = 0;
	for (size_t k = 0; k < ss->nspare; k++)
		batch_free(ss->spare[k]);
	ss->nspare = 0;
	mapfile_close(&ss->mf);
	free(ss->copy);
	ss->copy = NULL;
	ss->s.data = NULL;
	ctf_index_free(ss->s.idx);
	ss->s.idx = NULL;
	ctf_ids_free(&ss->own_slots);
	free(ss->pctx);
	ss->pctx = NULL;
	ss->npctx = 0;
	VEC_FREE(&ss->s.pvals);
	VEC_FREE(&ss->s.evals);
}

/* What a warning-free index load drops: an index being written has a
 * partial last entry, or no whole header yet, as a matter of course. */
static void
drop_warning(void *arg, bool error, const char *file, int64_t off,
    const char *msg)
{
	struct ctf_reader *r = arg;
	if (error && r->diag)
		r->diag(r->arg, error, file, off, msg);
}

/* A stream being written is read up to the end of the last packet its
 * index lists: LTTng (and the live mirror) write a packet's bytes before
 * its index entry, so those are whole, and the bytes after them may be a
 * packet still being written. A stream whose index file is there but
 * lists nothing yet has nothing to read yet; one without an index file,
 * or with a damaged one, is read as it is. */
static void
growing_index(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	ss->s.idx = ctf_index_load(ss->s.path, ss->s.size, r->root,
	    drop_warning, r);
	if (ss->s.idx != NULL) {
		/* the warnings that come later are the walk's own */
		ss->s.idx->diag = r->diag;
		ss->s.idx->arg = r->arg;
		const struct ctf_index *ix = ss->s.idx;
		ss->s.size = ix->n == 0 ? 0 : (size_t)(ix->e[ix->n - 1].off +
		    ix->e[ix->n - 1].psize / 8);
		return;
	}
	const char *slash = strrchr(ss->s.path, '/');
	const char *base = slash ? slash + 1 : ss->s.path;
	int dlen = slash ? (int)(slash - ss->s.path) + 1 : 0;
	char *full = xasprintf("%s/%.*sindex/%s.idx", r->root, dlen,
	    ss->s.path, base);
	struct stat st;
	if (stat(full, &st) == 0 && st.st_size < CTF_INDEX_HEADER +
	    CTF_INDEX_ENTRY_1_0) {
		/* no whole header and entry yet: no packet yet */
		ss->s.size = 0;
	} else if (stat(full, &st) == 0) {
		/* an index that is not one: said, and the stream read as it
		 * is, as without --follow */
		ss->s.idx = ctf_index_load(ss->s.path, ss->s.size, r->root,
		    r->diag, r->arg);
	}
	free(full);
}

static void
add_stream(struct ctf_reader *r, struct ctf_trace *t, const char *rel)
{
	char *full = join(r->root, rel);
	struct ctf_stream_slot *ss = xcalloc_aligned(64, sizeof *ss);
	char *err = NULL;
	if (open_data(full, ss, &err) < 0) {
		diag(r, true, rel, -1, "%s", err ? err : "cannot open");
		free(err);
		free(ss);
		free(full);
		return;
	}
	free(full);
	ss->s.trace = t;
	ss->s.path = xstrdup(rel);
	ss->s.index = (int)r->nstreams;
	ss->qlevel = -1;
	ss->order = (uint64_t)t->index << 32 | r->nstreams;
	if (r->growing)
		growing_index(r, ss);
	else
		ss->s.idx = ctf_index_load(ss->s.path, ss->s.size, r->root,
		    r->diag, r->arg);
	/* from here on, what the index has to say comes up while filling
	 * batches, maybe on a worker: it travels in the batch */
	if (ss->s.idx != NULL && ss->s.idx->n > 0) {
		const struct ctf_index_entry *e =
		    &ss->s.idx->e[ss->s.idx->n - 1];
		ss->has_last = true;
		ss->last_end = e->ts_end;
		ss->last_class = e->stream_id;
	}
	if (ss->s.idx != NULL) {
		ss->s.idx->diag = batch_diag;
		ss->s.idx->arg = ss;
	}
	ss->s.diag = batch_diag;
	ss->s.diag_arg = ss;
	/* what tells a file rewritten from one appended to, when a reader
	 * goes on (ctf_reader_grow) */
	ss->head_hash = hash_bytes(ss->s.data, ss->s.size <
		    HEAD_BYTES ? ss->s.size : HEAD_BYTES);
	r->bytes_total += ss->s.size;
	if (r->nstreams == r->capstreams) {
		r->capstreams = r->capstreams ? 2 * r->capstreams : 16;
		r->streams = xreallocarray(r->streams, r->capstreams,
		    sizeof *r->streams);
	}
	r->streams[r->nstreams++] = ss;
}

static void
push_trace(struct ctf_reader *r, struct ctf_trace *t)
{
	if (r->ntraces == r->captraces) {
		r->captraces = r->captraces ? 2 * r->captraces : 4;
		r->traces = xreallocarray(r->traces, r->captraces,
		    sizeof *r->traces);
	}
	r->traces[r->ntraces++] = t;
}

/* A data file of trace t: in the 2010 RFC's layout, of the section its
 * name says (the metadata's class_of_file), else what its packets say. */
static void
add_stream_of(struct ctf_reader *r, struct ctf_trace *t, const char *srel,
    const char *name)
{
	if (t->m->class_of_file == NULL) {
		add_stream(r, t, srel);
		return;
	}
	struct ctf_stream_class *sc = t->m->class_of_file(t->m, name);
	if (sc == NULL) {
		diag(r, false, srel, -1, "not read: its name is none of the "
		    "metadata's sections");
		return;
	}
	size_t k = r->nstreams;
	add_stream(r, t, srel);
	if (r->nstreams > k) {
		r->streams[k]->s.sc = sc;
		r->streams[k]->s.sc_fixed = true;
	}
}

/* A hash of the first size bytes of a file (the metadata): false when
 * they cannot be read. */
static bool
file_hash(const char *path, uint64_t size, uint64_t *h)
{
	struct mapped_file mf;
	char *err = NULL;
	if (mapfile_open(path, &mf, &err) != 0) {
		free(err);
		return false;
	}
	bool ok = mf.size >= size;
	if (ok)
		*h = hash_bytes(mf.data, (size_t)size);
	mapfile_close(&mf);
	return ok;
}

static void
add_trace(struct ctf_reader *r, const char *rel)
{
	char *mpath = join(rel, "metadata");
	char *full = join(r->root, mpath);
	struct stat st;
	if (r->growing && stat(full, &st) == 0 && st.st_size == 0) {
		/* created before its first bytes are written: not yet */
		free(full);
		free(mpath);
		return;
	}
	bool known = stat(full, &st) == 0;
	struct ctf_meta *m = ctf_metadata_load(full, mpath, r->growing,
	    r->diag, r->arg);
	if (m == NULL) {
		free(full);
		free(mpath);
		return;
	}
	struct ctf_trace *t = xcalloc(1, sizeof *t);
	t->dir = xstrdup(rel);
	t->metadata_path = mpath;
	t->m = m;
	t->hostname = ctf_env_str(m, "hostname");
	t->index = (int)r->ntraces;
	/* what tells its metadata grew, when a reader goes on (a trace
	 * being written, or one read again from a state kept) */
	if (known &&
	    file_hash(full, (uint64_t)st.st_size, &t->meta_hash)) {
		t->meta_size = (uint64_t)st.st_size;
		t->meta_dev = (uint64_t)st.st_dev;
		t->meta_ino = (uint64_t)st.st_ino;
		t->meta_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
	}
	free(full);
	push_trace(r, t);

	char *dfull = join(r->root, rel);
	size_t n;
	char **names = ctf_dir_list(dfull, &n);
	for (size_t i = 0; i < n; i++) {
		const char *why;
		char *srel = join(rel, names[i]);
		if (strcmp(names[i], "metadata") != 0) {
			switch (ctf_dir_classify(r->root, rel, names[i], &why)) {
			case CTF_FILE_STREAM:
				add_stream_of(r, t, srel, names[i]);
				break;
			case CTF_FILE_SKIP:
				/* Said, never read: a FIFO would block, a
				 * device never end, a link out of the tree
				 * would show another file's bytes. */
				diag(r, false, srel, -1, "not a stream: %s, "
				    "skipped", why);
				t->nskipped++;
				break;
			case CTF_FILE_SUBDIR:
				break;
			}
		}
		free(srel);
		free(names[i]);
	}
	free(names);
	free(dfull);
}

/* --- filling batches (on a worker, or on the caller) --- */

/* A batch of at most cap items; its arrays grow as it is filled. */
static struct batch *
batch_new(size_t cap)
{
	struct batch *bt = xcalloc(1, sizeof *bt);
	bt->cap = cap;
	return bt;
}

/* Room for the next item, or for as many as the items allocated (up to
 * cap) when a run fills them. */
static inline void
batch_room(struct batch *bt)
{
	if (bt->n < bt->nitems)
		return;
	size_t n = bt->nitems ? 2 * bt->nitems : 2;
	if (n > bt->cap)
		n = bt->cap;
	bt->items = xreallocarray(bt->items, n, sizeof *bt->items);
	bt->nitems = n;
}

/* Packet records for n: the items that point to the records are moved
 * along with them. */
static void
batch_pkts_to(struct batch *bt, size_t n)
{
	struct ctf_packet_info *np = xreallocarray(NULL, n, sizeof *np);
	if (bt->npkts > 0)
		memcpy(np, bt->pkts, bt->npkts * sizeof *np);
	for (size_t i = 0; i < bt->n; i++)
		bt->items[i].pkt = np + (bt->items[i].pkt - bt->pkts);
	free(bt->pkts);
	bt->pkts = np;
	bt->cappkts = n;
}

static void
batch_room_pkt(struct batch *bt)
{
	if (bt->npkts == bt->cappkts)
		batch_pkts_to(bt, bt->cappkts ? 2 * bt->cappkts : 1);
}

/* A stream's last batch is read and never filled again: it keeps what
 * it holds and no more (many streams of one small packet each hold
 * theirs at once). Before the values' indexes become pointers. */
static void
batch_trim(struct batch *bt)
{
	if (bt->n < bt->nitems) {
		bt->items = bt->n ? xreallocarray(bt->items, bt->n,
		    sizeof *bt->items) : (free(bt->items), NULL);
		bt->nitems = bt->n;
	}
	if (bt->npkts < bt->cappkts) {
		if (bt->npkts > 0)
			batch_pkts_to(bt, bt->npkts);
		else {
			free(bt->pkts);
			bt->pkts = NULL;
			bt->cappkts = 0;
		}
	}
	VEC_SHRINK(&bt->vals);
}

static void
batch_free(struct batch *bt)
{
	if (bt == NULL)
		return;
	free(bt->items);
	free(bt->pkts);
	VEC_FREE(&bt->vals);
	free(bt->err);
	for (size_t i = 0; i < bt->msgs.len; i++)
		free(bt->msgs.items[i].text);
	VEC_FREE(&bt->msgs);
	VEC_FREE(&bt->cks);
	free(bt);
}

/* The diag function of a stream's decoding (its index's): the message
 * goes into the batch being filled, before the next item. */
static void
batch_diag(void *arg, bool error, const char *file, int64_t off,
    const char *msg)
{
	struct ctf_stream_slot *ss = arg;
	struct batch *bt = ss->filling;
	(void)file;		/* the stream's path, known when said */
	VEC_PUSH(&bt->msgs, ((struct batch_msg){ bt->n, error, off,
	    xstrdup(msg) }));
}

/* Copies the first n values of src into the batch; returns where they
 * start there. Their indexes (ends, roots) stay relative to that start,
 * which becomes a pointer once the batch is full and nothing moves. */
static size_t
keep_vals(struct batch *bt, const struct ctf_val *src, size_t n)
{
	size_t at = bt->vals.len;
	if (n == 0)
		return at;	/* src may be NULL */
	if (at + n > bt->vals.cap) {
		/* from what the first needs: a batch of one small event
		 * takes little */
		size_t nc = bt->vals.cap ? 2 * bt->vals.cap : 4;
		while (nc < at + n)
			nc *= 2;
		bt->vals.items = xreallocarray(bt->vals.items, nc,
		    sizeof *bt->vals.items);
		bt->vals.cap = nc;
	}
	memcpy(bt->vals.items + at, src, n * sizeof *src);
	bt->vals.len += n;
	return at;
}

/* A record of the stream's open packet in the batch. */
static void
note_packet(struct ctf_stream_slot *ss, struct batch *bt, uint64_t discarded,
    uint64_t lost)
{
	struct ctf_stream *s = &ss->s;
	batch_room_pkt(bt);
	struct ctf_packet_info *p = &bt->pkts[bt->npkts++];
	p->off = s->pkt_off;
	p->vals = NULL;
	p->root = s->pctx_root;
	p->vals = NULL;
	if (s->pctx_root >= 0)
		p->vals = (const void *)(uintptr_t)keep_vals(bt, s->pvals.items,
		    s->pvals.items[s->pctx_root].end);
	p->cpu_id = s->cpu_id;
	p->has_cpu_id = s->has_cpu_id;
	p->discarded = discarded;
	p->lost_packets = lost;
	p->skipped_off = s->skip_off;
	p->skipped_bytes = s->skip_bytes;
	s->skip_off = s->skip_bytes = 0;
	ss->pkt_noted = true;
}

static void
batch_error(struct batch *bt, const char *msg, uint64_t off)
{
	bt->end = true;
	bt->err = xstrdup(msg);
	bt->err_off = (int64_t)off;
}

/* The index of a stream class in its trace's metadata (or in the one it
 * grew from, whose classes keep their places), -1 if none. */
static int32_t
class_index(const struct ctf_trace *t, const struct ctf_stream_class *sc)
{
	if (sc == NULL)
		return -1;
	for (size_t k = 0; k <= t->nold_m; k++) {
		const struct ctf_meta *m = k == 0 ? t->m : t->old_m[k - 1];
		for (size_t i = 0; i < m->nstreams; i++)
			if (m->streams[i] == sc)
				return (int32_t)i;
	}
	return -1;
}

static void
ck_take(const struct ctf_stream_slot *ss, uint64_t item, struct ctf_ck *c)
{
	const struct ctf_stream *s = &ss->s;
	*c = (struct ctf_ck){
		.item = item, .pkt_off = s->pkt_off, .packets = s->packets,
		.disc = s->disc, .disc_prev = s->disc_prev, .seq = s->seq,
		.seq_prev = s->seq_prev, .clock = s->d.clock,
		.ts_begin = s->ts_begin, .ts_end = s->ts_end,
		.cpu_id = s->cpu_id, .prev_ts = s->prev_ts,
		.ts_back = s->ts_back, .ts_back_off = s->ts_back_off,
		.ts_back_from = s->ts_back_from, .ts_back_to = s->ts_back_to,
		.skip_off = s->skip_off, .skip_bytes = s->skip_bytes,
		.idx_next = s->idx != NULL ? s->idx->next : 0,
		.disc_bits = s->disc_bits, .sc = class_index(s->trace, s->sc),
		.has_disc = s->has_disc, .has_seq = s->has_seq,
		.clock_set = s->d.clock_set, .done = s->done,
		.has_ts_begin = s->has_ts_begin, .has_ts_end = s->has_ts_end,
		.has_cpu_id = s->has_cpu_id, .has_prev_ts = s->has_prev_ts,
		.idx_disagreed = s->idx != NULL && s->idx->disagreed,
	};
}

/* Puts a stream's walk where c was taken; false when c does not fit
 * the stream (damaged bytes). */
static bool
ck_put(struct ctf_stream_slot *ss, const struct ctf_ck *c)
{
	struct ctf_stream *s = &ss->s;
	const struct ctf_meta *m = s->trace->m;
	if (c->sc >= 0 && (size_t)c->sc >= m->nstreams)
		return false;
	if (s->idx != NULL ? c->idx_next > s->idx->n :
	    (c->idx_next != 0 || c->idx_disagreed))
		return false;
	if (c->pkt_off > s->size || c->skip_off > c->pkt_off ||
	    c->disc_bits > 64)
		return false;
	s->sc = c->sc >= 0 ? m->streams[c->sc] : NULL;
	s->pkt_off = c->pkt_off;
	s->packets = c->packets;
	s->disc = c->disc;
	s->disc_prev = c->disc_prev;
	s->seq = c->seq;
	s->seq_prev = c->seq_prev;
	s->d.clock = c->clock;
	s->d.clock_set = c->clock_set;
	s->ts_begin = c->ts_begin;
	s->ts_end = c->ts_end;
	s->cpu_id = c->cpu_id;
	s->prev_ts = c->prev_ts;
	s->ts_back = c->ts_back;
	s->ts_back_off = c->ts_back_off;
	s->ts_back_from = c->ts_back_from;
	s->ts_back_to = c->ts_back_to;
	s->skip_off = c->skip_off;
	s->skip_bytes = c->skip_bytes;
	if (s->idx != NULL) {
		s->idx->next = (size_t)c->idx_next;
		s->idx->disagreed = c->idx_disagreed;
	}
	s->disc_bits = c->disc_bits;
	s->has_disc = c->has_disc;
	s->has_seq = c->has_seq;
	s->done = c->done;
	s->has_ts_begin = c->has_ts_begin;
	s->has_ts_end = c->has_ts_end;
	s->has_cpu_id = c->has_cpu_id;
	s->has_prev_ts = c->has_prev_ts;
	ss->nfilled = c->item;
	return true;
}

/* Lends the filler's decoding state to stream ss for a batch: its
 * slots, and value arrays holding the open packet's context again. */
static void
lend(struct filler *fl, struct ctf_stream_slot *ss)
{
	struct ctf_stream *s = &ss->s;
	ctf_slots_lend(&fl->share, &s->d, &ss->own_slots);
	s->evals = fl->evals;
	s->pvals = fl->pvals;
	s->pvals.len = 0;
	if (ss->npctx > 0) {
		VEC_RESERVE(&s->pvals, ss->npctx);
		memcpy(s->pvals.items, ss->pctx, ss->npctx * sizeof *ss->pctx);
		s->pvals.len = ss->npctx;
	}
}

/* Takes it back: inside a packet, the stream keeps its context's values
 * (the next batch records the packet again). */
static void
take_back(struct filler *fl, struct ctf_stream_slot *ss)
{
	struct ctf_stream *s = &ss->s;
	size_t n = ss->in_packet ? s->pvals.len : 0;
	if (n != ss->npctx) {
		free(ss->pctx);
		ss->pctx = n ? xreallocarray(NULL, n, sizeof *ss->pctx) : NULL;
		ss->npctx = n;
	}
	if (n > 0)
		memcpy(ss->pctx, s->pvals.items, n * sizeof *ss->pctx);
	fl->pvals = s->pvals;
	fl->evals = s->evals;
	s->pvals = (ctf_vals){ 0 };
	s->evals = (ctf_vals){ 0 };
	ctf_slots_return(&fl->share, &s->d);
}

/* A packet opened (it its item) in a whole read that keeps its state:
 * the state before it is where a read that goes on starts this stream
 * again, if it starts before the walk stops (or is the first). */
static void
keep_cut(const struct ctf_reader *r, struct ctf_stream_slot *ss,
    const struct ctf_item *it)
{
	if (!it->has_ts)
		ss->cut_unsure = true;
	else if (!ss->has_cut || it->ns < r->keep_until) {
		ss->cut_ck = ss->pkt_ck;
		ss->has_cut = true;
	}
}

/* Decodes the stream's next items into bt, until it is full or the
 * stream ends. */
static void
fill(struct filler *fl, struct ctf_stream_slot *ss, struct batch *bt)
{
	const struct ctf_reader *r = fl->r;
	struct ctf_stream *s = &ss->s;
	const struct ctf_meta *m = s->trace->m;
	int clk = s->sc ? s->sc->clock : -1;
	char msg[256];
	uint64_t off;
	bt->n = bt->npkts = 0;
	bt->vals.len = 0;
	bt->end = bt->dry = false;
	free(bt->err);
	bt->err = NULL;
	for (size_t i = 0; i < bt->msgs.len; i++)
		free(bt->msgs.items[i].text);
	bt->msgs.len = 0;
	ss->filling = bt;
	bt->start_off = s->pkt_off;
	bt->gen = ss->in_packet ? ss->pkt_gen : ss->map_gen;
	bt->first_item = ss->nfilled;
	bt->cks.len = 0;
	if (r->resumable && ss->in_packet)
		VEC_PUSH(&bt->cks, ss->pkt_ck);
	ss->pkt_noted = false;
	lend(fl, ss);
	/* events the hook takes make no items: a bound of their own keeps
	 * batches coming */
	size_t decoded = 0;
	while (bt->n < bt->cap && bt->vals.len < r->batch_vals &&
	    decoded < 4 * bt->cap) {
		batch_room(bt);
		if (!ss->in_packet) {
			if (r->resumable || r->keep)
				ck_take(ss, bt->first_item + bt->n,
				    &ss->pkt_ck);
			int rc = ctf_packet_open(s, msg, sizeof msg, &off);
			if (rc == 0 && r->resumable) {
				/* the end of what it holds now: a whole read
				 * would say what ctf_stream_end says here, and
				 * a read going on could not say it again */
				if (s->ts_back > 0)
					fl->r->unresumable = true;
				ctf_stream_end(s);
				bt->end = bt->dry = true;
				break;
			}
			if (rc == 0 && r->keep && !ss->has_cut) {
				/* no packet: read on from its start */
				ss->cut_ck = ss->pkt_ck;
				ss->has_cut = true;
			}
			if (rc <= 0)
				ctf_stream_end(s);
			if (rc < 0) {
				batch_error(bt, msg, off);
				break;
			}
			if (rc == 0) {
				bt->end = true;
				break;
			}
			ss->in_packet = true;
			ss->pkt_gen = ss->map_gen;
			if (r->resumable)
				VEC_PUSH(&bt->cks, ss->pkt_ck);
			clk = s->sc->clock;
			uint64_t disc = 0, lost = 0;
			if (s->has_disc && s->disc != s->disc_prev)
				disc = s->disc - s->disc_prev;
			if (s->has_seq && s->packets > 1 &&
			    s->seq != s->seq_prev + 1 && s->seq > s->seq_prev)
				lost = s->seq - s->seq_prev - 1;
			note_packet(ss, bt, disc, lost);
			struct ctf_item *it = &bt->items[bt->n++];
			memset(it, 0, sizeof *it);
			it->kind = CTF_ITEM_PACKET;
			it->s = s;
			it->pkt = &bt->pkts[bt->npkts - 1];
			if (clk >= 0 && s->has_ts_begin) {
				it->has_ts = true;
				it->ns = ctf_clock_ns(&m->clocks[clk],
				    s->ts_begin);
			} else if (clk >= 0 && s->d.clock_set) {
				it->has_ts = true;
				it->ns = ctf_clock_ns(&m->clocks[clk],
				    s->d.clock);
			} else
				it->ns = INT64_MIN;
			if (r->keep)
				keep_cut(r, ss, it);
			if (r->hook != NULL && r->hook(r->hook_arg,
			    fl->scratch, it, 1) == 0)
				bt->n--;
			continue;
		}
		/* runs of raw events in the user's loop, which does the
		 * hook's work on each; what it keeps goes on into the
		 * batch */
		if (!ss->pkt_noted)
			note_packet(ss, bt, 0, 0);
		if (s->sc->has_raw && r->run != NULL) {
			size_t nrun;
			bt->n += r->run(r->hook_arg, fl->scratch, s,
			    &bt->pkts[bt->npkts - 1], bt->items + bt->n,
			    bt->nitems - bt->n, &nrun);
			if (nrun > 0) {
				decoded += nrun;
				continue;
			}
		}
		int rc = ctf_event_next(s, msg, sizeof msg, &off);
		if (rc < 0) {
			ctf_stream_end(s);
			batch_error(bt, msg, off);
			break;
		}
		if (rc == 0) {
			ss->in_packet = false;
			ss->pkt_noted = false;
			continue;
		}
		if (!ss->pkt_noted)
			note_packet(ss, bt, 0, 0);
		decoded++;
		struct ctf_item e = {
			.kind = CTF_ITEM_EVENT,
			.has_ts = s->has_ts,
			.ns = s->has_ts ? s->ns : INT64_MIN,
			.s = s,
			.pkt = &bt->pkts[bt->npkts - 1],
			.ev = s->ev,
			.is_raw = s->is_raw,
		};
		if (s->is_raw) {
			const struct ctf_pick *pk = s->ev->pick;
			for (int k = 0; k < CTF_PICK_MAX; k++)
				e.u.picked[k] = pk[k].scope == 0 ||
				    s->raw[pk[k].scope] == NULL ? 0 :
				    ctf_read_whole(s->raw[pk[k].scope] +
				    pk[k].off, pk[k].size, pk[k].be,
				    pk[k].is_signed);
			/* an event the hook takes never reaches the batch */
			if (r->hook == NULL ||
			    r->hook(r->hook_arg, fl->scratch, &e, 1) == 1)
				bt->items[bt->n++] = e;
		} else {
			struct ctf_item *it = &bt->items[bt->n++];
			*it = e;
			/* the scopes are consecutive in evals: one copy */
			it->u.v.vals = (const void *)(uintptr_t)keep_vals(bt,
			    s->evals.items, s->evals.len);
			it->u.v.scope_root[0] = -1;
			for (int k = 1; k < 4; k++)
				it->u.v.scope_root[k] = s->scope_root[k];
		}
	}
	take_back(fl, ss);
	ss->nfilled = bt->first_item + bt->n;
	if (r->hook != NULL)
		r->hook(r->hook_arg, fl->scratch, NULL, 0);
	if (bt->end)
		batch_trim(bt);
	/* indexes to pointers, now that nothing moves */
	for (size_t i = 0; i < bt->npkts; i++)
		if (bt->pkts[i].root >= 0)
			bt->pkts[i].vals = bt->vals.items == NULL ? NULL :
			    bt->vals.items + (uintptr_t)bt->pkts[i].vals;
	for (size_t i = 0; i < bt->n; i++) {
		struct ctf_item *it = &bt->items[i];
		if (it->kind == CTF_ITEM_EVENT && !it->is_raw)
			it->u.v.vals = bt->vals.items == NULL ? NULL :
			    bt->vals.items + (uintptr_t)it->u.v.vals;
	}
}

/* --- handing batches over (under r->lock) --- */

static struct batch *
take_spare(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	if (ss->nspare > 0)
		return ss->spare[--ss->nspare];
	if (ss->nalloc < NBATCH) {
		ss->nalloc++;
		return batch_new(r->batch_cap);
	}
	return NULL;
}

static void
publish(struct ctf_stream_slot *ss, struct batch *bt)
{
	ss->ring[(ss->ready_head + ss->nready) % NBATCH] = bt;
	ss->nready++;
	if (bt->end)
		ss->ended = true;
	ss->busy = false;
}

/* Can a worker fill a batch of this stream now? */
static bool
wants_fill(const struct ctf_stream_slot *ss)
{
	return !ss->busy && !ss->ended &&
	    (ss->nspare > 0 || ss->nalloc < NBATCH);
}

static void
queue_out(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	int l = ss->qlevel;
	if (l < 0)
		return;
	if (ss->qprev != NULL)
		ss->qprev->qnext = ss->qnext;
	else
		r->qhead[l] = ss->qnext;
	if (ss->qnext != NULL)
		ss->qnext->qprev = ss->qprev;
	else
		r->qtail[l] = ss->qprev;
	ss->qprev = ss->qnext = NULL;
	ss->qlevel = -1;
}

/* After a change of what a stream has: where a worker looks for it, the
 * queue of its number of batches ready if it may be filled. */
static void
requeue(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	int want = wants_fill(ss) ? (int)ss->nready : -1;
	if (want == ss->qlevel)
		return;
	queue_out(r, ss);
	if (want < 0)
		return;
	ss->qlevel = want;
	ss->qprev = r->qtail[want];
	ss->qnext = NULL;
	if (r->qtail[want] != NULL)
		r->qtail[want]->qnext = ss;
	else
		r->qhead[want] = ss;
	r->qtail[want] = ss;
}

static void *
worker_main(void *arg)
{
	struct filler *fl = arg;
	struct ctf_reader *r = fl->r;
	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		/* a stream with the fewest batches ready, the one waiting
		 * longest among those: the merge will need it first */
		struct ctf_stream_slot *best = NULL;
		for (int l = 0; l < NBATCH && best == NULL; l++)
			best = r->qhead[l];
		if (best == NULL) {
			pthread_cond_wait(&r->work, &r->lock);
			continue;
		}
		struct batch *bt = take_spare(r, best);
		best->busy = true;
		queue_out(r, best);
		pthread_mutex_unlock(&r->lock);
		fill(fl, best, bt);
		pthread_mutex_lock(&r->lock);
		publish(best, bt);
		requeue(r, best);
		pthread_cond_broadcast(&r->ready);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* The caller's next batch of a stream: a ready one, else one it fills
 * itself, else it waits for the worker filling one. NULL when the stream
 * has ended. */
static struct batch *
next_batch(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	if (r->resumable || r->settled) {
		/* decoded ahead, else now */
		if (ss->pend.len > 0) {
			struct batch *bt = ss->pend.items[0];
			memmove(ss->pend.items, ss->pend.items + 1,
			    (ss->pend.len - 1) * sizeof *ss->pend.items);
			ss->pend.len--;
			return bt;
		}
		if (ss->ended)
			return NULL;
		struct batch *bt = batch_new(r->batch_cap);
		fill(r->self, ss, bt);
		if (bt->end)
			ss->ended = true;
		return bt;
	}
	if (r->nworkers > 0)
		pthread_mutex_lock(&r->lock);
	struct batch *bt = NULL;
	for (;;) {
		if (ss->nready > 0) {
			bt = ss->ring[ss->ready_head];
			ss->ready_head = (ss->ready_head + 1) % NBATCH;
			ss->nready--;
			if (r->nworkers > 0)
				requeue(r, ss);
			break;
		}
		if (ss->ended)
			break;
		if (!ss->busy) {
			bt = take_spare(r, ss);
			ss->busy = true;
			if (r->nworkers > 0) {
				queue_out(r, ss);
				pthread_mutex_unlock(&r->lock);
			}
			fill(r->self, ss, bt);
			if (r->nworkers > 0)
				pthread_mutex_lock(&r->lock);
			ss->busy = false;
			if (bt->end)
				ss->ended = true;
			if (r->nworkers > 0)
				requeue(r, ss);
			break;
		}
		pthread_cond_wait(&r->ready, &r->lock);
	}
	if (r->nworkers > 0) {
		/* the worker may fill ahead again */
		pthread_cond_signal(&r->work);
		pthread_mutex_unlock(&r->lock);
	}
	return bt;
}

static void
give_back(struct ctf_reader *r, struct ctf_stream_slot *ss, struct batch *bt)
{
	if (r->resumable || r->settled) {
		batch_free(bt);
		return;
	}
	if (r->nworkers > 0)
		pthread_mutex_lock(&r->lock);
	ss->spare[ss->nspare++] = bt;
	if (r->nworkers > 0) {
		requeue(r, ss);
		pthread_cond_signal(&r->work);
		pthread_mutex_unlock(&r->lock);
	}
}

/* Says the messages of the current batch that come before item upto. */
static void
say_msgs(struct ctf_reader *r, struct ctf_stream_slot *ss, size_t upto)
{
	const struct batch *bt = ss->cur;
	while (ss->msg_next < bt->msgs.len &&
	    bt->msgs.items[ss->msg_next].before <= upto) {
		const struct batch_msg *m = &bt->msgs.items[ss->msg_next++];
		diag(r, m->error, ss->s.path, m->off, "%s", m->text);
	}
	ss->msg_at = ss->msg_next < bt->msgs.len ?
	    bt->msgs.items[ss->msg_next].before : SIZE_MAX;
}

/* Moves a stream to its next batch; false when it has none, after
 * reporting why if an error ended it. */
static bool
next_head(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	for (;;) {
		struct batch *bt = ss->cur;
		if (bt != NULL) {
			say_msgs(r, ss, SIZE_MAX);
			ss->cur = NULL;
			bool end = bt->end;
			ss->dry = bt->dry;
			if (bt->err != NULL)
				diag(r, true, ss->s.path, bt->err_off, "%s",
				    bt->err);
			give_back(r, ss, bt);
			if (end)
				return false;
		}
		bt = next_batch(r, ss);
		if (bt == NULL)
			return false;
		ss->cur = bt;
		ss->pos = 0;
		ss->msg_next = 0;
		say_msgs(r, ss, 0);
		/* give back the pages of packets already read */
		if (bt->start_off > ss->released &&
		    bt->start_off - ss->released >= (16u << 20)) {
			mapfile_release(&ss->mf, (size_t)bt->start_off);
			ss->released = bt->start_off;
		}
		if (bt->n > 0) {
			ss->head = &bt->items[0];
			ss->head_ns = ss->head->ns;
			return true;
		}
	}
}

/* The same, keeping the sum of what the streams have reached (their
 * batch's first packet, else what was given back) as it changes: the
 * progress a load reports at every packet costs no walk over the
 * streams. */
static bool
advance_batch(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	bool more = next_head(r, ss);
	uint64_t d = ss->cur != NULL ? ss->cur->start_off : ss->released;
	r->bytes_done += d - ss->done;
	ss->done = d;
	return more;
}

static uint64_t index_hash(const struct ctf_index *ix, size_t n);

/* A stream that has ended gives back what it held: with many streams,
 * what the walk holds is what the streams still going hold. */
static void
retire(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	if (r->nworkers > 0)
		pthread_mutex_lock(&r->lock);
	queue_out(r, ss);
	if (r->keep && ss->s.idx != NULL) {
		ss->kept_idx = true;
		ss->kept_nidx = ss->s.idx->n;
		ss->kept_ihash = index_hash(ss->s.idx, ss->s.idx->n);
	}
	stream_release(ss);
	ss->retired = true;
	if (r->nworkers > 0)
		pthread_mutex_unlock(&r->lock);
}

/* A stream with nothing more for now: parked, to go on when its file
 * grows (a reader that goes on), else done with. */
static void
stream_done(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	if (r->resumable && ss->dry)
		ss->parked = true;
	else
		retire(r, ss);
}

/* Moves a stream to its next item (ss->head); false when it has none. */
static inline bool
advance(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	if (ss->cur != NULL && ++ss->pos < ss->cur->n) {
		if (ss->pos == ss->msg_at)
			say_msgs(r, ss, ss->pos);
		ss->head = &ss->cur->items[ss->pos];
		/* the items were written on another core */
		__builtin_prefetch(ss->head + 8);
		ss->head_ns = ss->head->ns;
		return true;
	}
	return advance_batch(r, ss);
}

/* --- the heap --- */

static bool
before(const struct ctf_stream_slot *a, const struct ctf_stream_slot *b)
{
	if (a->head_ns != b->head_ns)
		return a->head_ns < b->head_ns;
	return a->order < b->order;
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

/* Puts s at the top of the heap and sifts it down to its place. */
static void
sift_down(struct ctf_reader *r, struct ctf_stream_slot *s)
{
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
}

static struct ctf_stream_slot *
heap_pop(struct ctf_reader *r)
{
	struct ctf_stream_slot *top = r->heap[0];
	struct ctf_stream_slot *last = r->heap[--r->nheap];
	if (r->nheap > 0)
		sift_down(r, last);
	return top;
}

/* Puts s in the heap in place of its top, which is returned: one sift
 * instead of a push and a pop when streams take turns. */
static struct ctf_stream_slot *
heap_replace_top(struct ctf_reader *r, struct ctf_stream_slot *s)
{
	struct ctf_stream_slot *top = r->heap[0];
	sift_down(r, s);
	return top;
}

static bool
found_one(void *arg, const char *rel)
{
	(void)rel;
	*(bool *)arg = true;
	return false;
}

bool
ctf_dir_has_trace(const char *path)
{
	bool found = false;
	struct ctf_dir_walk w = { .trace = found_one, .arg = &found };
	ctf_dir_walk(path, &w);
	return found;
}

static struct ctf_reader *
open_reader(const char *path, bool growing, ctf_diag_fn dfn, void *arg,
    ctf_progress_fn progress, void *progress_arg)
{
	struct ctf_reader *r = xcalloc(1, sizeof *r);
	r->growing = growing;
	r->diag = dfn;
	r->arg = arg;
	r->progress = progress;
	r->progress_arg = progress_arg;
	struct stat st;
	if (stat(path, &st) < 0) {
		diag(r, true, path, -1, "%s", strerror(errno));
		free(r);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		r->root = xstrdup(path);
		struct ctf_dir_walk w = {
			.trace = walk_trace, .skipped = walk_skipped,
			.progress = walk_progress, .arg = r,
		};
		ctf_dir_walk(path, &w);
	} else {
		/* the metadata file itself: its directory is the trace */
		r->opened_file = true;
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
	return r;
}

struct ctf_reader *
ctf_reader_open(const char *path, ctf_diag_fn dfn, void *arg,
    ctf_progress_fn progress, void *progress_arg)
{
	return open_reader(path, false, dfn, arg, progress, progress_arg);
}

struct ctf_reader *
ctf_reader_open_growing(const char *path, ctf_diag_fn dfn, void *arg,
    ctf_progress_fn progress, void *progress_arg)
{
	return open_reader(path, true, dfn, arg, progress, progress_arg);
}

bool
ctf_reader_horizon(const struct ctf_reader *r,
    const struct stream_beacon *beacons, size_t nbeacons, int64_t *ns)
{
	bool any = false;
	for (size_t i = 0; i < r->nstreams; i++) {
		const struct ctf_stream_slot *ss = r->streams[i];
		const struct ctf_stream *s = &ss->s;
		if (!ss->has_last)
			continue;
		const struct ctf_meta *m = s->trace->m;
		const struct ctf_stream_class *sc = ctf_stream_by_id(m,
		    ss->last_class);
		if (sc == NULL || sc->clock < 0 || (size_t)sc->clock >=
		    m->nclocks)
			continue;
		uint64_t until = ss->last_end;
		struct stream_beacon key = { .file = s->path };
		const struct stream_beacon *b = nbeacons == 0 ? NULL :
		    bsearch(&key, beacons, nbeacons, sizeof *beacons,
		    stream_beacon_cmp);
		if (b != NULL && b->cycles > until)
			until = b->cycles;
		int64_t t = ctf_clock_ns(&m->clocks[sc->clock], until);
		if (!any || t < *ns)
			*ns = t;
		any = true;
	}
	return any;
}

/* How many threads decode ahead: none for small traces (they cost more
 * than they save) or on one core. */
static size_t
worker_count(const struct ctf_reader *r)
{
	uint64_t min = PIPE_MIN_BYTES;
	const char *env = ttv_getenv(TTV_ENV_CTF_PIPE_MIN);
	if (env != NULL && *env != '\0')
		min = strtoull(env, NULL, 10);
	long cpus = ttv_cpus();
	/* a reader that goes on parks its streams between reads, which
	 * the workers' queues do not know of */
	if (r->resumable)
		return 0;
	if (r->bytes_total < min || r->nstreams == 0)
		return 0;
	if (env == NULL && cpus < 2)
		return 0;
	/* the caller merges and builds: the other cores decode; if the
	 * hook takes most events, the caller mostly waits: all of them */
	size_t n = r->light_walk ? (size_t)(cpus > 1 ? cpus : 1) :
	    cpus > 2 ? (size_t)cpus - 1 : 1;
	if (n > 4)
		n = 4;
	if (n > r->nstreams)
		n = r->nstreams;
	return n;
}

/* ctf_reader_start up to the streams' first items. */
static void
start_setup(struct ctf_reader *r)
{
	r->started = true;
	/* what decoding would find out lazily, found now: the classes are
	 * read by several threads from here on */
	for (size_t ti = 0; ti < r->ntraces; ti++) {
		struct ctf_meta *m = r->traces[ti]->m;
		for (size_t i = 0; i < m->nstreams; i++)
			ctf_stream_prepare(m, m->streams[i]);
	}
	size_t ns = r->nstreams ? r->nstreams : 1;
	size_t cap = BATCH_BUDGET / (NBATCH * (sizeof(struct ctf_item) +
	    sizeof(struct ctf_packet_info)) * ns);
	r->batch_cap = cap < BATCH_MIN_ITEMS ? BATCH_MIN_ITEMS :
	    cap > 16384 ? 16384 : cap;
	size_t vals = BATCH_VALS_BUDGET / (NBATCH * ns);
	r->batch_vals = vals < BATCH_MIN_VALS ? BATCH_MIN_VALS :
	    vals > BATCH_VALS ? BATCH_VALS : vals;
	/* tests make batches small to cross many batch boundaries */
	const char *env = ttv_getenv(TTV_ENV_CTF_BATCH);
	if (env != NULL && strtoul(env, NULL, 10) > 0)
		r->batch_cap = strtoul(env, NULL, 10);
	size_t nslots = 0;
	for (size_t ti = 0; ti < r->ntraces; ti++)
		if ((size_t)r->traces[ti]->m->nslots > nslots)
			nslots = (size_t)r->traces[ti]->m->nslots;
	r->nslots = nslots;
	size_t n = worker_count(r);
	r->nfillers = n + 1;
	r->fillers = xcalloc(n + 1, sizeof *r->fillers);
	for (size_t i = 0; i <= n; i++) {
		r->fillers[i].r = r;
		r->fillers[i].scratch = r->scratch_size ?
		    xcalloc(1, r->scratch_size) : NULL;
		ctf_slots_init(&r->fillers[i].share, nslots);
	}
	r->self = &r->fillers[n];
	if (n > 0) {
		/* every stream waits for a worker at first */
		for (size_t i = 0; i < r->nstreams; i++)
			requeue(r, r->streams[i]);
		pthread_mutex_init(&r->lock, NULL);
		pthread_cond_init(&r->work, NULL);
		pthread_cond_init(&r->ready, NULL);
		r->workers = xcalloc(n, sizeof *r->workers);
		for (size_t i = 0; i < n; i++) {
			if (pthread_create(&r->workers[i], NULL, worker_main,
			    &r->fillers[i]) != 0)
				break;
			r->nworkers++;
		}
		if (r->nworkers == 0) {
			pthread_cond_destroy(&r->ready);
			pthread_cond_destroy(&r->work);
			pthread_mutex_destroy(&r->lock);
		}
	}
}

void
ctf_reader_start(struct ctf_reader *r)
{
	if (r->started)
		return;
	start_setup(r);
	for (size_t i = 0; i < r->nstreams; i++) {
		if (advance(r, r->streams[i]))
			heap_push(r, r->streams[i]);
		else
			stream_done(r, r->streams[i]);
	}
}

void
ctf_reader_set_raw_hook(struct ctf_reader *r, ctf_raw_hook fn, void *arg,
    size_t scratch_size)
{
	r->hook = fn;
	r->hook_arg = arg;
	r->scratch_size = scratch_size;
}

void
ctf_reader_set_raw_run(struct ctf_reader *r, ctf_raw_run fn)
{
	r->run = fn;
}

void
ctf_reader_light_walk(struct ctf_reader *r)
{
	r->light_walk = true;
}

const struct ctf_item *
ctf_reader_next(struct ctf_reader *r)
{
	if (!r->started)
		ctf_reader_start(r);
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
		} else
			stream_done(r, l);
	}
	if (ss == NULL) {
		if (r->nheap == 0)
			return NULL;
		ss = heap_pop(r);
	}
	r->last = ss;
	if ((r->resumable || r->keep) && (!r->any_out ||
	    ss->head_ns > r->max_ns ||
	    (ss->head_ns == r->max_ns && ss->order > r->max_order))) {
		r->any_out = true;
		r->max_ns = ss->head_ns;
		r->max_order = ss->order;
	}
	return ss->head;
}

static void
stop_workers(struct ctf_reader *r)
{
	if (r->nworkers == 0)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->lock);
	for (size_t i = 0; i < r->nworkers; i++)
		pthread_join(r->workers[i], NULL);
	r->nworkers = 0;
	pthread_cond_destroy(&r->ready);
	pthread_cond_destroy(&r->work);
	pthread_mutex_destroy(&r->lock);
}

void
ctf_reader_stop(struct ctf_reader *r)
{
	stop_workers(r);
}

void
ctf_reader_keep_state(struct ctf_reader *r, int64_t until)
{
	if (r->resumable || r->started)
		return;
	r->keep = true;
	r->keep_until = until;
}

void
ctf_reader_settle(struct ctf_reader *r)
{
	stop_workers(r);
	/* the batches they decoded ahead, in order, before what the
	 * caller decodes itself from now on (next_batch, ctf_reader_tail) */
	for (size_t i = 0; i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		for (size_t k = 0; k < ss->nready; k++)
			VEC_PUSH(&ss->pend,
			    ss->ring[(ss->ready_head + k) % NBATCH]);
		ss->nready = 0;
	}
	r->settled = true;
}

void
ctf_reader_note_out(struct ctf_reader *r, int64_t ns)
{
	if (!r->any_out || ns > r->max_ns) {
		r->any_out = true;
		r->max_ns = ns;
		r->max_order = UINT64_MAX;
	}
}

void
ctf_reader_free(struct ctf_reader *r)
{
	if (r == NULL)
		return;
	stop_workers(r);
	free(r->workers);
	for (size_t i = 0; i < r->nfillers; i++) {
		struct filler *fl = &r->fillers[i];
		free(fl->scratch);
		VEC_FREE(&fl->evals);
		VEC_FREE(&fl->pvals);
		ctf_slots_free(&fl->share);
	}
	free(r->fillers);
	for (size_t i = 0; i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		if (!ss->retired)
			stream_release(ss);
		free(ss->s.path);
		free(ss);
	}
	free(r->streams);
	for (size_t i = 0; i < r->ntraces; i++) {
		ctf_meta_free(r->traces[i]->m);
		for (size_t k = 0; k < r->traces[i]->nold_m; k++)
			ctf_meta_free(r->traces[i]->old_m[k]);
		free(r->traces[i]->old_m);
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

size_t
ctf_reader_nstreams(const struct ctf_reader *r)
{
	return r->nstreams;
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
	/* what the walk has reached, not what the workers have */
	return r->bytes_done;
}

/* --- a reader that goes on (ctf_reader_grow) --- */

void
ctf_reader_set_meta_hook(struct ctf_reader *r, void (*fn)(void *arg),
    void *arg)
{
	r->meta_hook = fn;
	r->meta_hook_arg = arg;
}

uint64_t
ctf_reader_clamps(const struct ctf_reader *r)
{
	uint64_t n = 0;
	for (size_t ti = 0; ti < r->ntraces; ti++) {
		const struct ctf_trace *t = r->traces[ti];
		n += atomic_load(&t->m->clock_clamps);
		for (size_t k = 0; k < t->nold_m; k++)
			n += atomic_load(&t->old_m[k]->clock_clamps);
	}
	return n;
}

void
ctf_reader_resumable(struct ctf_reader *r)
{
	r->resumable = true;
	/* the 2010 RFC's sections are given by file names, and their
	 * messages about names at the open: read whole each time */
	for (size_t i = 0; i < r->ntraces; i++)
		if (r->traces[i]->m->class_of_file != NULL)
			r->unresumable = true;
}

/* What is said while looking at the directory again only counts: said,
 * it would come after what the walk said, where a whole read says it
 * first, so the directory is read again from its start instead. */
static void
count_diag(void *arg, bool error, const char *file, int64_t off,
    const char *msg)
{
	(void)error;
	(void)file;
	(void)off;
	(void)msg;
	(*(size_t *)arg)++;
}

/* The traces a walk finds, and how many entries it did not enter. */
struct found {
	VEC(char *) rels;
	size_t nskip;
};

static bool
collect_trace(void *arg, const char *rel)
{
	struct found *f = arg;
	VEC_PUSH(&f->rels, xstrdup(rel));
	return true;
}

static void
collect_skipped(void *arg, const char *rel, const char *why)
{
	(void)rel;
	(void)why;
	((struct found *)arg)->nskip++;
}

/* A parked stream's file again, up to what it holds whole now. False
 * when it was not only appended to. */
static bool
regrow(struct ctf_reader *r, struct ctf_stream_slot *ss)
{
	struct ctf_stream *s = &ss->s;
	char *full = join(r->root, s->path);
	struct stat st;
	if (stat(full, &st) != 0 || (uint64_t)st.st_dev != ss->dev ||
	    (uint64_t)st.st_ino != ss->ino ||
	    (uint64_t)st.st_size < ss->file_size) {
		free(full);
		return false;
	}
	size_t old_size = s->size;
	struct ctf_index *old = s->idx;
	const uint8_t *old_data = s->data;
	s->idx = NULL;
	if (ss->parked) {
		old_bytes_free(ss);
		mapfile_close(&ss->mf);
		free(ss->copy);
	} else {
		/* what is held and the packet being decoded may point
		 * into them */
		VEC_PUSH(&ss->old, ((struct old_bytes){ ss->mf, ss->copy,
		    ss->map_gen }));
		ss->map_gen++;
		old_bytes_trim(ss);
	}
	memset(&ss->mf, 0, sizeof ss->mf);
	ss->copy = NULL;
	s->data = NULL;
	s->size = 0;
	char *err = NULL;
	int rc = open_data(full, ss, &err);
	free(full);
	free(err);
	if (rc < 0) {
		ctf_index_free(old);
		return false;
	}
	growing_index(r, ss);
	/* the packet being decoded goes on in the new bytes */
	if (s->d.buf != NULL && old_data != NULL && s->d.buf >= old_data &&
	    s->d.buf <= old_data + old_size)
		s->d.buf = s->data + (s->d.buf - old_data);
	bool same = s->size >= old_size &&
	    hash_bytes(s->data, old_size < HEAD_BYTES ? old_size :
	    HEAD_BYTES) == ss->head_hash;
	if (same && old != NULL)
		same = s->idx != NULL && s->idx->n >= old->n &&
		    (old->n == 0 || memcmp(s->idx->e, old->e,
		    old->n * sizeof *old->e) == 0);
	else if (same)
		same = s->idx == NULL;
	if (same && s->idx != NULL) {
		s->idx->next = old != NULL ? old->next : 0;
		s->idx->disagreed = old != NULL && old->disagreed;
		s->idx->diag = batch_diag;
		s->idx->arg = ss;
		if (s->idx->n > 0) {
			const struct ctf_index_entry *e =
			    &s->idx->e[s->idx->n - 1];
			ss->has_last = true;
			ss->last_end = e->ts_end;
			ss->last_class = e->stream_id;
		}
	}
	ctf_index_free(old);
	if (!same)
		return false;
	/* the next growth checks the first bytes there are now, when they
	 * were fewer than HEAD_BYTES */
	if (old_size < HEAD_BYTES)
		ss->head_hash = hash_bytes(s->data, s->size < HEAD_BYTES ?
		    s->size : HEAD_BYTES);
	r->bytes_total += s->size - old_size;
	return true;
}

/* The stream files of trace t as a whole read would take them now, in
 * its order; *nskip: those it would not read. */
static char **
trace_files(struct ctf_reader *r, const struct ctf_trace *t, size_t *n,
    size_t *nskip)
{
	char *dfull = join(r->root, t->dir);
	size_t nn;
	char **names = ctf_dir_list(dfull, &nn);
	free(dfull);
	char **out = xcalloc(nn + 1, sizeof *out);
	*n = 0;
	*nskip = 0;
	for (size_t i = 0; i < nn; i++) {
		const char *why;
		if (strcmp(names[i], "metadata") != 0) {
			switch (ctf_dir_classify(r->root, t->dir, names[i],
			    &why)) {
			case CTF_FILE_STREAM:
				out[(*n)++] = join(t->dir, names[i]);
				break;
			case CTF_FILE_SKIP:
				(*nskip)++;
				break;
			case CTF_FILE_SUBDIR:
				break;
			}
		}
		free(names[i]);
	}
	free(names);
	return out;
}

/* Does a grown metadata describe what the old one did, the same way,
 * and more event classes after them (in the order the loader plans
 * classes: stream class, then event class)? Then m2 takes the old
 * classes' user data and raw plans. */
static bool
meta_extends(const struct ctf_meta *m, struct ctf_meta *m2, size_t nslots)
{
	if (m2->major != m->major || m2->byte_order != m->byte_order ||
	    m2->rfc != NULL || m->rfc != NULL ||
	    m2->class_of_file != NULL || m2->nenv != m->nenv ||
	    m2->nclocks != m->nclocks || m2->nstreams < m->nstreams ||
	    (size_t)m2->nslots > nslots)
		return false;
	for (size_t i = 0; i < m->nenv; i++) {
		const struct ctf_env *a = &m->env[i], *b = &m2->env[i];
		if (strcmp(a->key, b->key) != 0 || (a->str == NULL) !=
		    (b->str == NULL) || (a->str != NULL ?
		    strcmp(a->str, b->str) != 0 : a->i != b->i))
			return false;
	}
	for (size_t i = 0; i < m->nclocks; i++) {
		const struct ctf_clock *a = &m->clocks[i], *b = &m2->clocks[i];
		if (strcmp(a->name, b->name) != 0 || a->freq != b->freq ||
		    a->offset_s != b->offset_s || a->offset != b->offset)
			return false;
	}
	/* the old classes first, in the same places */
	for (size_t si = 0; si < m->nstreams; si++) {
		const struct ctf_stream_class *sc = m->streams[si];
		const struct ctf_stream_class *sc2 = m2->streams[si];
		if (sc2->id != sc->id || sc2->nevents < sc->nevents ||
		    sc2->clock != sc->clock)
			return false;
		for (size_t ei = 0; ei < sc->nevents; ei++)
			if (sc2->events[ei]->id != sc->events[ei]->id ||
			    strcmp(sc2->events[ei]->name,
			    sc->events[ei]->name) != 0)
				return false;
		/* new events of a stream class before older classes' */
		if (sc2->nevents > sc->nevents && si + 1 < m->nstreams)
			return false;
	}
	for (size_t si = 0; si < m->nstreams; si++) {
		const struct ctf_stream_class *sc = m->streams[si];
		for (size_t ei = 0; ei < sc->nevents; ei++) {
			const struct ctf_event_class *ec = sc->events[ei];
			struct ctf_event_class *ec2 = m2->streams[si]->events[ei];
			ec2->user = ec->user;
			ec2->raw = ec->raw;
			memcpy(ec2->pick, ec->pick, sizeof ec2->pick);
		}
	}
	return true;
}

/* The metadata as it is now: 0 the same, 1 grown (and taken: the old
 * kept, the new one the trace's), -1 changed otherwise (or grown as it
 * cannot be taken). */
static int
same_metadata(struct ctf_reader *r, struct ctf_trace *t)
{
	char *full = join(r->root, t->metadata_path);
	struct stat st;
	int rc = -1;
	uint64_t h;
	if (stat(full, &st) != 0 || (uint64_t)st.st_dev != t->meta_dev ||
	    (uint64_t)st.st_ino != t->meta_ino)
		rc = -1;
	else if ((uint64_t)st.st_size == t->meta_size &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec ==
	    t->meta_mtime_ns)
		rc = 0;
	else if ((uint64_t)st.st_size > t->meta_size &&
	    file_hash(full, t->meta_size, &h) && h == t->meta_hash &&
	    r->meta_hook != NULL) {
		/* grown: new event classes appended, as LTTng does when a
		 * program registers more */
		size_t said = 0;
		ctf_diag_fn d = r->diag;
		void *a = r->arg;
		r->diag = count_diag;
		r->arg = &said;
		struct ctf_meta *m2 = ctf_metadata_load(full,
		    t->metadata_path, r->growing, r->diag, r->arg);
		r->diag = d;
		r->arg = a;
		uint64_t h2;
		if (m2 != NULL && (size_t)m2->nslots > r->nslots) {
			/* no filler holds a stream between batches */
			for (size_t i = 0; i < r->nfillers; i++)
				ctf_slots_grow(&r->fillers[i].share,
				    (size_t)m2->nslots);
			r->nslots = (size_t)m2->nslots;
		}
		if (m2 != NULL && said == 0 && meta_extends(t->m, m2,
		    r->nslots) && file_hash(full, (uint64_t)st.st_size, &h2)) {
			t->old_m = xreallocarray(t->old_m, t->nold_m + 1,
			    sizeof *t->old_m);
			t->old_m[t->nold_m++] = t->m;
			t->m = m2;
			t->meta_size = (uint64_t)st.st_size;
			t->meta_hash = h2;
			t->meta_mtime_ns = (int64_t)st.st_mtim.tv_sec *
			    1000000000 + st.st_mtim.tv_nsec;
			/* the new classes planned, then readied for
			 * decoding */
			r->meta_hook(r->meta_hook_arg);
			for (size_t i = 0; i < m2->nstreams; i++)
				ctf_stream_prepare(m2, m2->streams[i]);
			rc = 1;
		} else {
			ctf_meta_free(m2);
		}
	}
	free(full);
	return rc;
}

/* The directory's traces as they are now: the same as when opened, the
 * streams of the last one maybe more. New streams are added (they come
 * last in a whole read's order too). */
static bool
same_traces(struct ctf_reader *r)
{
	struct found f = { 0 };
	if (r->opened_file) {
		/* a metadata file opened: its directory is the trace */
		VEC_PUSH(&f.rels, xstrdup(""));
	} else {
		ctf_dir_walk(r->root, &(struct ctf_dir_walk){
		    .trace = collect_trace, .skipped = collect_skipped,
		    .arg = &f });
	}
	bool ok = f.nskip == r->nwalk_skipped && f.rels.len == r->ntraces;
	for (size_t i = 0; ok && i < f.rels.len; i++)
		ok = strcmp(f.rels.items[i], r->traces[i]->dir) == 0 &&
		    same_metadata(r, r->traces[i]) >= 0;
	for (size_t i = 0; i < f.rels.len; i++)
		free(f.rels.items[i]);
	VEC_FREE(&f.rels);
	if (!ok)
		return false;
	/* each trace's streams: those read, then (the last trace only) new
	 * ones */
	size_t k = 0;
	for (size_t ti = 0; ok && ti < r->ntraces; ti++) {
		struct ctf_trace *t = r->traces[ti];
		size_t n, ns;
		char **files = trace_files(r, t, &n, &ns);
		size_t j = 0;
		ok = ns == t->nskipped;
		for (; ok && k < r->nstreams && r->streams[k]->s.trace == t;
		    k++, j++)
			ok = j < n && strcmp(files[j], r->streams[k]->s.path) ==
			    0;
		if (ok && j < n && ti + 1 < r->ntraces)
			ok = false;	/* would come before other streams */
		for (; ok && j < n; j++) {
			size_t before = r->nstreams;
			size_t said = 0;
			ctf_diag_fn d = r->diag;
			void *a = r->arg;
			r->diag = count_diag;
			r->arg = &said;
			add_stream(r, t, files[j]);
			r->diag = d;
			r->arg = a;
			ok = r->nstreams == before + 1 && said == 0;
		}
		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
	}
	return ok;
}

/* The batch a stream's decoding filled last (NULL: none held). */
static struct batch *
last_held(struct ctf_stream_slot *ss)
{
	return ss->pend.len > 0 ? ss->pend.items[ss->pend.len - 1] : ss->cur;
}

bool
ctf_reader_grow(struct ctf_reader *r)
{
	if (!r->resumable || r->unresumable || r->last != NULL)
		return false;
	size_t had = r->nstreams;
	if (!same_traces(r))
		return false;
	r->heap = xreallocarray(r->heap, r->nstreams + 1, sizeof *r->heap);
	size_t said = 0;
	ctf_diag_fn d = r->diag;
	void *a = r->arg;
	r->diag = count_diag;
	r->arg = &said;
	bool ok = true;
	/* the earliest first item of the streams that go on now */
	bool any_new = false;
	int64_t new_ns = 0;
	uint64_t new_order = 0;
	for (size_t i = 0; ok && i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		if (i < had && ss->retired) {
			/* ended by damage: the same file, or read again */
			char *full = join(r->root, ss->s.path);
			struct stat st;
			ok = stat(full, &st) == 0 &&
			    (uint64_t)st.st_size == ss->file_size &&
			    (uint64_t)st.st_ino == ss->ino;
			free(full);
			continue;
		}
		if (i < had) {
			size_t size = ss->s.size;
			ok = regrow(r, ss);
			if (!ok || ss->s.size == size)
				continue;
			if (!ss->parked) {
				/* held past the horizon: its decoding goes
				 * on after what it holds */
				struct batch *bt = last_held(ss);
				if (bt != NULL && bt->dry)
					bt->end = bt->dry = false;
				ss->ended = ss->dry = false;
				continue;
			}
			ss->parked = ss->dry = ss->ended = false;
		}
		if (advance(r, ss)) {
			heap_push(r, ss);
			if (!any_new || ss->head_ns < new_ns ||
			    (ss->head_ns == new_ns && ss->order < new_order)) {
				new_ns = ss->head_ns;
				new_order = ss->order;
			}
			any_new = true;
		} else {
			stream_done(r, ss);
		}
	}
	r->diag = d;
	r->arg = a;
	if (!ok || said > 0 || r->unresumable)
		return false;
	/* what comes now must come after all that the walk handed out, as
	 * in a whole read's merge: a stream's first new item earlier than
	 * that would have come before some of it */
	if (any_new && r->any_out && (new_ns < r->max_ns ||
	    (new_ns == r->max_ns && new_order < r->max_order)))
		return false;
	return true;
}

const struct ctf_item *
ctf_reader_next_before(struct ctf_reader *r, int64_t until)
{
	if (!r->started)
		ctf_reader_start(r);
	if (r->last != NULL) {
		struct ctf_stream_slot *l = r->last;
		r->last = NULL;
		if (advance(r, l))
			heap_push(r, l);
		else
			stream_done(r, l);
	}
	if (r->nheap == 0 || r->heap[0]->head_ns >= until)
		return NULL;
	struct ctf_stream_slot *ss = heap_pop(r);
	r->last = ss;
	if (!r->any_out || ss->head_ns > r->max_ns ||
	    (ss->head_ns == r->max_ns && ss->order > r->max_order)) {
		r->any_out = true;
		r->max_ns = ss->head_ns;
		r->max_order = ss->order;
	}
	return ss->head;
}

/* A place in what a stream holds past the horizon, for the walk of it
 * that leaves the reader as it was (ctf_reader_tail). */
struct cursor {
	struct ctf_stream_slot *ss;
	size_t b;		/* 0: ss->cur, k: ss->pend.items[k - 1] */
	size_t pos, msg_next;
	const struct ctf_item *head;
};

static struct batch *
cursor_batch(const struct cursor *c)
{
	return c->b == 0 ? c->ss->cur : c->ss->pend.items[c->b - 1];
}

/* say_msgs, from the cursor's place. */
static void
cursor_msgs(struct ctf_reader *r, struct cursor *c, size_t upto)
{
	const struct batch *bt = cursor_batch(c);
	while (c->msg_next < bt->msgs.len &&
	    bt->msgs.items[c->msg_next].before <= upto) {
		const struct batch_msg *m = &bt->msgs.items[c->msg_next++];
		diag(r, m->error, c->ss->s.path, m->off, "%s", m->text);
	}
}

/* advance() and next_head(), on a cursor. */
static bool
cursor_advance(struct ctf_reader *r, struct cursor *c)
{
	struct batch *bt = cursor_batch(c);
	if (++c->pos < bt->n) {
		cursor_msgs(r, c, c->pos);
		c->head = &bt->items[c->pos];
		return true;
	}
	for (;;) {
		cursor_msgs(r, c, SIZE_MAX);
		if (bt->err != NULL)
			diag(r, true, c->ss->s.path, bt->err_off, "%s",
			    bt->err);
		if (bt->end || c->b >= c->ss->pend.len)
			return false;
		c->b++;
		c->pos = 0;
		c->msg_next = 0;
		bt = cursor_batch(c);
		cursor_msgs(r, c, 0);
		if (bt->n > 0) {
			c->head = &bt->items[0];
			return true;
		}
	}
}

static bool
cursor_before(const struct cursor *a, const struct cursor *b)
{
	if (a->head->ns != b->head->ns)
		return a->head->ns < b->head->ns;
	return a->ss->order < b->ss->order;
}

static void
cursor_sift(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1;
		if (l < n && cursor_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && cursor_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cursor *t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void
ctf_reader_tail(struct ctf_reader *r,
    void (*fn)(void *arg, const struct ctf_item *it), void *arg)
{
	if (r->last != NULL || r->nheap == 0)
		return;
	size_t n = r->nheap;
	struct cursor *cs = xcalloc(n, sizeof *cs);
	struct cursor **h = xcalloc(n, sizeof *h);
	for (size_t i = 0; i < n; i++) {
		struct ctf_stream_slot *ss = r->heap[i];
		/* all it holds, decoded */
		while (!ss->ended) {
			struct batch *bt = batch_new(r->batch_cap);
			fill(r->self, ss, bt);
			if (bt->end)
				ss->ended = true;
			VEC_PUSH(&ss->pend, bt);
		}
		cs[i] = (struct cursor){ ss, 0, ss->pos, ss->msg_next,
		    ss->head };
		h[i] = &cs[i];
	}
	for (size_t i = n / 2; i-- > 0;)
		cursor_sift(h, n, i);
	struct cursor *last = NULL;
	for (;;) {
		if (last != NULL && !cursor_advance(r, last)) {
			h[0] = h[--n];
		}
		if (n == 0)
			break;
		cursor_sift(h, n, 0);
		last = h[0];
		fn(arg, last->head);
	}
	free(h);
	free(cs);
}


/* --- a reader that goes on, as bytes (ctf_reader_save) --- */

void
ctf_reader_set_diag(struct ctf_reader *r, ctf_diag_fn dfn, void *arg)
{
	r->diag = dfn;
	r->arg = arg;
}

/* SAVED_FROM: a whole read's stream (ctf_reader_keep_state), decoded
 * again from the state before a packet up to its first item at or after
 * the time its walk stopped at. */
enum { SAVED_RETIRED, SAVED_PARKED, SAVED_HELD, SAVED_FROM };

static void
ck_write(struct blob *w, const struct ctf_ck *c)
{
	const uint64_t u[] = { c->item, c->pkt_off, c->packets, c->disc,
	    c->disc_prev, c->seq, c->seq_prev, c->clock, c->ts_begin,
	    c->ts_end, c->cpu_id, c->prev_ts, c->ts_back, c->ts_back_off,
	    c->ts_back_from, c->ts_back_to, c->skip_off, c->skip_bytes,
	    c->idx_next };
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		blob_u64(w, u[i]);
	blob_u32(w, c->disc_bits);
	blob_u32(w, (uint32_t)c->sc);
	const bool f[] = { c->has_disc, c->has_seq, c->clock_set, c->done,
	    c->has_ts_begin, c->has_ts_end, c->has_cpu_id, c->has_prev_ts,
	    c->idx_disagreed };
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		blob_u8(w, f[i]);
}

static void
ck_read(struct blob_in *in, struct ctf_ck *c)
{
	uint64_t *u[] = { &c->item, &c->pkt_off, &c->packets, &c->disc,
	    &c->disc_prev, &c->seq, &c->seq_prev, &c->clock, &c->ts_begin,
	    &c->ts_end, &c->cpu_id, &c->prev_ts, &c->ts_back, &c->ts_back_off,
	    &c->ts_back_from, &c->ts_back_to, &c->skip_off, &c->skip_bytes,
	    &c->idx_next };
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		*u[i] = blob_get_u64(in);
	c->disc_bits = blob_get_u32(in);
	c->sc = (int32_t)blob_get_u32(in);
	bool *f[] = { &c->has_disc, &c->has_seq, &c->clock_set, &c->done,
	    &c->has_ts_begin, &c->has_ts_end, &c->has_cpu_id, &c->has_prev_ts,
	    &c->idx_disagreed };
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		*f[i] = blob_get_bool(in);
}

static uint64_t
index_hash(const struct ctf_index *ix, size_t n)
{
	return n == 0 ? 0 : hash_bytes(ix->e, n * sizeof *ix->e);
}

/* The state before the packet holding a held stream's next item. */
static const struct ctf_ck *
head_ck(const struct ctf_stream_slot *ss, uint64_t head)
{
	const struct batch *bt = ss->cur;
	const struct ctf_ck *c = NULL;
	for (size_t i = 0; i < bt->cks.len; i++)
		if (bt->cks.items[i].item <= head)
			c = &bt->cks.items[i];
	return c;
}

bool
ctf_reader_save_meta(const struct ctf_reader *r, struct blob *w)
{
	if (!(r->resumable || r->settled) || r->unresumable || !r->started ||
	    r->last != NULL || r->nworkers > 0 || ctf_reader_clamps(r) > 0)
		return false;
	for (size_t i = 0; i < r->ntraces; i++)
		if (r->traces[i]->meta_size == 0 ||
		    r->traces[i]->m->class_of_file != NULL)
			return false;
	blob_u64(w, r->nwalk_skipped);
	blob_u64(w, r->ntraces);
	for (size_t i = 0; i < r->ntraces; i++) {
		const struct ctf_trace *t = r->traces[i];
		blob_str(w, t->dir);
		blob_u64(w, t->meta_size);
		blob_u64(w, t->meta_hash);
		blob_u64(w, t->nskipped);
	}
	return true;
}

bool
ctf_reader_save(const struct ctf_reader *r, struct blob *w)
{
	blob_u8(w, r->any_out);
	blob_i64(w, r->max_ns);
	blob_u64(w, r->max_order);
	blob_u64(w, r->batch_cap);
	blob_u64(w, r->batch_vals);
	blob_u64(w, r->nstreams);
	for (size_t i = 0; i < r->nstreams; i++) {
		const struct ctf_stream_slot *ss = r->streams[i];
		const struct ctf_stream *s = &ss->s;
		uint8_t st = ss->retired ? SAVED_RETIRED : ss->parked ?
		    SAVED_PARKED : SAVED_HELD;
		struct ctf_ck ck;
		uint64_t head = 0;
		bool has_idx = s->idx != NULL;
		uint64_t nidx = has_idx ? s->idx->n : 0;
		uint64_t ihash = has_idx ? index_hash(s->idx, s->idx->n) : 0;
		if (r->keep) {
			/* times that went back: what comes before the
			 * stop cannot be told by its time */
			if (!ss->has_cut || ss->cut_unsure || s->ts_back > 0)
				return false;
			if (ss->retired) {
				has_idx = ss->kept_idx;
				nidx = ss->kept_nidx;
				ihash = ss->kept_ihash;
			}
			st = SAVED_FROM;
			ck = ss->cut_ck;
		} else if (st == SAVED_PARKED) {
			if (ss->in_packet || ss->cur != NULL)
				return false;
			ck_take(ss, ss->nfilled, &ck);
		} else if (st == SAVED_HELD) {
			if (ss->cur == NULL || ss->pos >= ss->cur->n)
				return false;
			head = ss->cur->first_item + ss->pos;
			const struct ctf_ck *c = head_ck(ss, head);
			if (c == NULL)
				return false;
			ck = *c;
		}
		blob_str(w, s->path);
		blob_u32(w, (uint32_t)s->trace->index);
		blob_u8(w, st);
		blob_u64(w, s->size);
		blob_u64(w, ss->file_size);
		blob_u64(w, ss->dev);
		blob_u64(w, ss->ino);
		blob_u64(w, ss->head_hash);
		blob_u8(w, ss->has_last);
		blob_u64(w, ss->last_end);
		blob_u64(w, ss->last_class);
		if (st == SAVED_RETIRED)
			continue;
		blob_u8(w, has_idx);
		blob_u64(w, nidx);
		blob_u64(w, ihash);
		ck_write(w, &ck);
		if (st == SAVED_HELD)
			blob_u64(w, head);
		if (st == SAVED_FROM)
			blob_i64(w, r->keep_until);
	}
	return true;
}

static void
slot_free(struct ctf_stream_slot *ss)
{
	if (!ss->retired)
		stream_release(ss);
	free(ss->s.path);
	free(ss);
}

/* A stream's files as they were saved (its bytes cut to what was read
 * then); false when they are not so any more. */
static bool
restore_files(struct ctf_reader *r, struct ctf_stream_slot *ss,
    struct blob_in *in, uint8_t st)
{
	struct ctf_stream *s = &ss->s;
	uint64_t size = blob_get_u64(in);
	uint64_t file_size = blob_get_u64(in);
	uint64_t dev = blob_get_u64(in), ino = blob_get_u64(in);
	uint64_t head_hash = blob_get_u64(in);
	bool has_last = blob_get_bool(in);
	uint64_t last_end = blob_get_u64(in), last_class = blob_get_u64(in);
	if (in->bad || dev != ss->dev || ino != ss->ino)
		return false;
	ss->file_size = file_size;
	ss->has_last = has_last;
	ss->last_end = last_end;
	ss->last_class = last_class;
	if (st == SAVED_RETIRED) {
		/* its bytes are given back: only its share of the total */
		r->bytes_total += size - s->size;
		s->size = (size_t)size;
		return true;
	}
	bool has_idx = blob_get_bool(in);
	uint64_t nidx = blob_get_u64(in), ihash = blob_get_u64(in);
	if (in->bad || size > ss->data_size || has_idx != (s->idx != NULL))
		return false;
	if (s->idx != NULL && (nidx > s->idx->n ||
	    index_hash(s->idx, (size_t)nidx) != ihash))
		return false;
	if (s->idx != NULL)
		s->idx->n = (size_t)nidx;
	if (hash_bytes(s->data, size < HEAD_BYTES ? (size_t)size :
	    HEAD_BYTES) != head_hash)
		return false;
	ss->head_hash = head_hash;
	r->bytes_total += size - s->size;
	s->size = (size_t)size;
	return true;
}

/* Decodes a held stream again from the state before its head's packet
 * up to its head, saying nothing: all of that was said before. */
static bool
replay(struct ctf_reader *r, struct ctf_stream_slot *ss, uint64_t head)
{
	ss->in_packet = ss->ended = ss->dry = false;
	for (;;) {
		if (!advance(r, ss))
			return false;
		uint64_t at = ss->cur->first_item + ss->pos;
		if (at == head)
			return true;
		if (at > head)
			return false;
	}
}

/* Decodes a whole read's stream again from the state before a packet up
 * to its first item at or after `from`, saying nothing: its walk stopped
 * there, what came before was walked (ctf_reader_keep_state). *held:
 * there is one; else the stream read all it holds now, at a packet's end
 * (false when it ended otherwise). */
static bool
replay_from(struct ctf_reader *r, struct ctf_stream_slot *ss, int64_t from,
    bool *held)
{
	ss->in_packet = ss->ended = ss->dry = false;
	for (;;) {
		if (!advance(r, ss)) {
			*held = false;
			return ss->dry;
		}
		/* a stream's items come in time order (one that went back
		 * keeps no state) */
		if (ss->head_ns >= from) {
			*held = true;
			return true;
		}
	}
}

/* The metadata of trace t as it was when saved: its first size bytes,
 * whose hash was hash. What was appended since is taken, as new event
 * classes, by the next ctf_reader_grow, as if it had been appended
 * while the reader went on. */
static bool
restore_meta(struct ctf_reader *r, struct ctf_trace *t, uint64_t size,
    uint64_t hash)
{
	if (t->meta_size == 0 || size == 0 || size > t->meta_size)
		return false;
	if (size == t->meta_size)
		return hash == t->meta_hash;
	char *full = join(r->root, t->metadata_path);
	uint64_t h;
	struct ctf_meta *m = NULL;
	if (file_hash(full, size, &h) && h == hash)
		m = ctf_metadata_load_first(full, t->metadata_path, r->growing,
		    (size_t)size, r->diag, r->arg);
	free(full);
	if (m == NULL || m->class_of_file != NULL) {
		ctf_meta_free(m);
		return false;
	}
	ctf_meta_free(t->m);
	t->m = m;
	t->hostname = ctf_env_str(m, "hostname");
	t->meta_size = size;
	t->meta_hash = hash;
	/* its time, as the size, no longer the file's: it grew */
	t->meta_mtime_ns = INT64_MIN;
	return true;
}

bool
ctf_reader_restore_meta(struct ctf_reader *r, struct blob_in *in)
{
	uint64_t nwalk_skipped = blob_get_u64(in);
	uint64_t ntraces = blob_get_u64(in);
	if (in->bad || nwalk_skipped != r->nwalk_skipped ||
	    ntraces != r->ntraces || r->unresumable || r->started)
		return false;
	for (size_t i = 0; i < r->ntraces; i++) {
		struct ctf_trace *t = r->traces[i];
		char *dir = blob_get_str(in);
		bool same = dir != NULL && strcmp(dir, t->dir) == 0;
		free(dir);
		uint64_t size = blob_get_u64(in), hash = blob_get_u64(in);
		uint64_t nskipped = blob_get_u64(in);
		/* the metadata is parsed again: its bytes must be the same */
		if (in->bad || !same || nskipped != t->nskipped ||
		    !restore_meta(r, t, size, hash))
			return false;
	}
	return true;
}

bool
ctf_reader_restore(struct ctf_reader *r, struct blob_in *in)
{
	r->any_out = blob_get_bool(in);
	r->max_ns = blob_get_i64(in);
	r->max_order = blob_get_u64(in);
	uint64_t batch_cap = blob_get_u64(in), batch_vals = blob_get_u64(in);
	if (in->bad || batch_cap == 0 || batch_cap > ((size_t)1 << 20) ||
	    batch_vals == 0 || batch_vals > BATCH_VALS)
		return false;
	uint64_t nstreams = blob_get_u64(in);
	if (in->bad || nstreams > r->nstreams)
		return false;
	/* streams come after those read then (the directory grew): the
	 * next ctf_reader_grow takes them as it would have */
	for (size_t i = (size_t)nstreams; i < r->nstreams; i++) {
		r->bytes_total -= r->streams[i]->s.size;
		slot_free(r->streams[i]);
	}
	r->nstreams = (size_t)nstreams;
	uint8_t *state = xcalloc(nstreams ? nstreams : 1, sizeof *state);
	struct ctf_ck *cks = xcalloc(nstreams ? nstreams : 1, sizeof *cks);
	uint64_t *heads = xcalloc(nstreams ? nstreams : 1, sizeof *heads);
	bool ok = true;
	for (size_t i = 0; ok && i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		char *path = blob_get_str(in);
		uint32_t ti = blob_get_u32(in);
		state[i] = blob_get_u8(in);
		ok = !in->bad && path != NULL && strcmp(path, ss->s.path) == 0 &&
		    ti == (uint32_t)ss->s.trace->index &&
		    state[i] <= SAVED_FROM &&
		    restore_files(r, ss, in, state[i]);
		free(path);
		if (!ok || state[i] == SAVED_RETIRED)
			continue;
		ck_read(in, &cks[i]);
		if (state[i] == SAVED_HELD || state[i] == SAVED_FROM)
			heads[i] = blob_get_u64(in);
		ok = !in->bad;
	}
	if (ok) {
		start_setup(r);
		r->batch_cap = (size_t)batch_cap;
		r->batch_vals = (size_t)batch_vals;
	}
	for (size_t i = 0; ok && i < r->nstreams; i++) {
		struct ctf_stream_slot *ss = r->streams[i];
		switch (state[i]) {
		case SAVED_RETIRED:
			retire(r, ss);
			break;
		case SAVED_PARKED:
			ok = ck_put(ss, &cks[i]);
			ss->ended = ss->dry = ss->parked = true;
			break;
		case SAVED_FROM: {
			bool held = false;
			ok = ck_put(ss, &cks[i]) && replay_from(r, ss,
			    (int64_t)heads[i], &held);
			if (ok && held)
				heap_push(r, ss);
			else if (ok)
				stream_done(r, ss);
			break;
		}
		default:
			ok = ck_put(ss, &cks[i]) && cks[i].item <= heads[i] &&
			    replay(r, ss, heads[i]);
			if (ok)
				heap_push(r, ss);
			break;
		}
	}
	free(state);
	free(cks);
	free(heads);
	return ok;
}
