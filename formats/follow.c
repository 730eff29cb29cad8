/* An input followed while it is written (follow.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "follow.h"
#include "live.h"
#include "load.h"
#include "load_grow.h"
#include "open_index.h"
#include "xalloc.h"

/* How often a file or directory is looked at, and a live relay asked
 * again after it had nothing: a tenth of a second, LTTng's shortest
 * usual live timer. */
#define POLL_MS 100
/* A directory's look stops this deep and after this many entries: a
 * follower must not walk a whole disk ten times a second. */
#define LOOK_DEPTH 16
#define LOOK_ENTRIES 100000

/* What a file or a directory tree looks like: any write changes it. */
struct look {
	uint64_t entries, bytes;
	uint64_t mtime_sum;	/* wraps: only compared */
};

/* A log of a directory of logs: taken (read and told) once its size
 * stayed the same from one look to the next. */
struct log_file {
	char *name;
	int64_t size, mtime_ns;
	bool taken;
};

struct follow {
	char *path;		/* what is read: the file, the directory,
				 * a live session's mirror */
	char *force_format;
	struct load_options o;
	struct live_client *live;
	uint64_t generation;	/* the live mirror's, at the last read */
	uint64_t beacon_moves;	/* the live client's, at the last read */
	bool holding;		/* the last read held rows back for a quiet
				 * stream (complete_until before its end) */
	bool ended;
	bool file;		/* a regular file */
	/* a file whose reader goes on from where it stopped: read as it
	 * grows, not whole each time (load_grow.h) */
	struct load_grow *grow;
	bool first;		/* nothing read yet: no waiting */
	struct look seen;
	/* a directory no reader took yet: a trace directory (CTF) to be,
	 * or a directory of logs (XRay's runtime writes one per run) */
	bool undecided;
	bool logs;
	struct log_file *files;
	size_t nfiles;
	size_t ready;		/* the log the next read takes */
};

static int64_t
mtime_of(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static void
look_dir(const char *dir, int depth, struct look *l)
{
	if (depth > LOOK_DEPTH)
		return;
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && l->entries < LOOK_ENTRIES) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0) {
			l->entries++;
			l->mtime_sum += (uint64_t)mtime_of(&st);
			if (S_ISREG(st.st_mode))
				l->bytes += (uint64_t)st.st_size;
			else if (S_ISDIR(st.st_mode))
				look_dir(p, depth + 1, l);
		}
		free(p);
	}
	closedir(d);
}

static struct look
look_at(const char *path)
{
	struct look l = { 0 };
	struct stat st;
	if (stat(path, &st) != 0)
		return l;
	if (S_ISDIR(st.st_mode)) {
		look_dir(path, 0, &l);
		return l;
	}
	l.entries = 1;
	l.bytes = (uint64_t)st.st_size;
	l.mtime_sum = (uint64_t)mtime_of(&st);
	return l;
}

static bool
same_look(const struct look *a, const struct look *b)
{
	return a->entries == b->entries && a->bytes == b->bytes &&
	    a->mtime_sum == b->mtime_sum;
}

/* Sleeps a poll's time, or less when a signal came (SIGINT). */
static void
pause_poll(void)
{
	struct timespec ts = { 0, POLL_MS * 1000000L };
	nanosleep(&ts, NULL);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Looks at a directory of logs: a log whose size and time stayed the
 * same since the last look is ready (f->ready). Returns whether one is. */
static bool
look_logs(struct follow *f)
{
	DIR *d = opendir(f->path);
	if (d == NULL)
		return false;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < LOOK_ENTRIES) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, cmp_name);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", f->path, names[i]);
		struct stat st;
		bool reg = stat(p, &st) == 0 && S_ISREG(st.st_mode);
		size_t k = 0;
		while (k < f->nfiles && strcmp(f->files[k].name, names[i]) != 0)
			k++;
		if (reg && k == f->nfiles) {
			f->files = xreallocarray(f->files, f->nfiles + 1,
			    sizeof *f->files);
			f->files[f->nfiles++] = (struct log_file){
				.name = xstrdup(names[i]), .size = -1,
			};
		}
		if (reg && !f->files[k].taken) {
			struct log_file *lf = &f->files[k];
			bool still = lf->size == (int64_t)st.st_size &&
			    lf->mtime_ns == mtime_of(&st) && st.st_size > 0;
			lf->size = (int64_t)st.st_size;
			lf->mtime_ns = mtime_of(&st);
			/* only the format's logs: whatever else the
			 * directory holds is none of the follower's */
			if (still && !found) {
				const struct reader *r = load_probe(p);
				bool ours = r != NULL && (f->force_format != NULL
				    ? strcmp(r->name, f->force_format) == 0 :
				    strcmp(r->name, "xray") == 0);
				if (ours) {
					f->ready = k;
					found = true;
				} else {
					lf->taken = true;
				}
			}
		}
		free(p);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return found;
}

struct follow *
follow_open(const char *path, const char *force_format,
    const struct load_options *o, char **err)
{
	struct follow *f = xcalloc(1, sizeof *f);
	f->o = *o;
	f->o.follow = true;
	f->first = true;
	f->force_format = force_format ? xstrdup(force_format) : NULL;
	*err = NULL;
	if (live_url_is(path)) {
		struct live_url u;
		if (live_url_parse(path, &u, err) != 0) {
			free(f->force_format);
			free(f);
			return NULL;
		}
		if (u.session == NULL) {
			live_url_free(&u);
			*err = xstrdup("a relay without a session: give "
			    "net://HOST[:PORT]/host/HOSTNAME/SESSION");
			free(f->force_format);
			free(f);
			return NULL;
		}
		struct live_options lo = {
			.from_now = o->live_from_now,
			.notice = o->notice, .notice_arg = o->notice_arg,
		};
		f->live = live_client_open(&u, &lo, NULL, NULL, err);
		live_url_free(&u);
		if (f->live == NULL) {
			free(f->force_format);
			free(f);
			return NULL;
		}
		f->path = xstrdup(live_client_dir(f->live));
		free(f->force_format);
		f->force_format = xstrdup("ctf");
		return f;
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xstrdup(strerror(errno));
		free(f->force_format);
		free(f);
		return NULL;
	}
	f->path = xstrdup(path);
	f->file = S_ISREG(st.st_mode);
	if (S_ISDIR(st.st_mode)) {
		f->logs = force_format != NULL && strcmp(force_format,
		    "xray") == 0;
		f->undecided = force_format == NULL;
	}
	return f;
}

/* Whether a file of the directory is a log of XRay's. */
static bool
has_log(const char *dir)
{
	size_t n;
	bool found = false;
	DIR *d = opendir(dir);
	if (d == NULL)
		return false;
	struct dirent *e;
	for (n = 0; !found && n < LOOK_ENTRIES && (e = readdir(d)) != NULL;
	    n++) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		const struct reader *r;
		found = stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    (r = load_probe(p)) != NULL && strcmp(r->name, "xray") == 0;
		free(p);
	}
	closedir(d);
	return found;
}

/* A directory becomes a trace directory when a reader takes it as one
 * (a CTF trace's metadata file appeared), a directory of logs when an
 * XRay log appears in it, whichever comes first. */
static void
decide(struct follow *f)
{
	if (load_probe(f->path) != NULL)
		f->undecided = false;
	else if (has_log(f->path)) {
		f->undecided = false;
		f->logs = true;
	}
}

/* Whether *stop was set: by a signal handler, or by another thread (the
 * viewer follows on a thread of its own), hence the atomic read. */
static bool
stopped(volatile sig_atomic_t *stop)
{
	return __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

static enum follow_wait
wait_live(struct follow *f, volatile sig_atomic_t *stop)
{
	for (;;) {
		if (stopped(stop))
			return FOLLOW_STOPPED;
		if (f->ended)
			return FOLLOW_ENDED;
		int rc = live_client_fetch(f->live);
		uint64_t g = live_client_generation(f->live);
		uint64_t b = live_client_beacon_moves(f->live);
		/* a relay lost for good ends the following as the session's
		 * end does, with what it said kept for follow_close */
		f->ended = live_client_ended(f->live) || rc != 0;
		/* a quiet stream's beacon that went forward is news too
		 * when rows were held back: they may be told (when none
		 * were, a session quiet everywhere is not read again at
		 * each live timer) */
		if (g != f->generation || (b != f->beacon_moves &&
		    f->holding) || f->ended) {
			f->generation = g;
			f->beacon_moves = b;
			return f->ended ? FOLLOW_ENDED : FOLLOW_MORE;
		}
		pause_poll();
	}
}

enum follow_wait
follow_wait(struct follow *f, volatile sig_atomic_t *stop)
{
	if (f->live != NULL)
		return wait_live(f, stop);
	for (;;) {
		if (stopped(stop))
			return FOLLOW_STOPPED;
		if (f->undecided)
			decide(f);
		if (f->undecided) {
			/* nothing to read yet */
		} else if (f->logs) {
			if (look_logs(f))
				return FOLLOW_MORE;
		} else {
			struct look l = look_at(f->path);
			if (f->first || !same_look(&l, &f->seen)) {
				f->first = false;
				f->seen = l;
				return FOLLOW_MORE;
			}
		}
		pause_poll();
	}
}

static struct trace *read_now(struct follow *f, bool *fresh, char **err);

struct trace *
follow_read(struct follow *f, volatile sig_atomic_t *stop, bool *fresh,
    char **err)
{
	f->o.cancel = stop;
	struct trace *t = read_now(f, fresh, err);
	f->o.cancel = NULL;
	if (stopped(stop)) {
		/* cut short: not what the input holds */
		trace_free(t);
		free(*err);
		*err = xstrdup("stopped");
		return NULL;
	}
	return t;
}

char *
follow_from_index(struct follow *f, const struct open_options *o)
{
	if (f->live != NULL || f->logs || f->grow != NULL)
		return NULL;
	const struct reader *r = load_grow_reader(f->path, f->force_format);
	if (r == NULL || r->grow_load == NULL)
		return NULL;
	const void *state;
	size_t len;
	char *file = NULL;
	struct trace *from = open_index_state(f->path, o, &state, &len,
	    &file);
	if (from == NULL)
		return NULL;
	struct load_grow *g = load_grow_new(f->path, r, &f->o);
	if (load_grow_resume(g, from, state, len)) {
		f->grow = g;
	} else {
		load_grow_free(g);
		free(file);
		file = NULL;
	}
	trace_free(from);
	return file;
}

static struct trace *
read_now(struct follow *f, bool *fresh, char **err)
{
	*fresh = false;
	*err = NULL;
	if (f->logs) {
		if (f->ready >= f->nfiles || f->files[f->ready].taken) {
			*err = xstrdup("no new log yet");
			return NULL;
		}
		struct log_file *lf = &f->files[f->ready];
		lf->taken = true;
		*fresh = true;
		char *p = xasprintf("%s/%s", f->path, lf->name);
		/* a log is read once, whole: it is no longer written */
		struct load_options o = f->o;
		o.follow = false;
		struct trace *t = load_trace(p, f->force_format, &o, err);
		if (t == NULL && *err != NULL) {
			char *e = xasprintf("%s: %s", lf->name, *err);
			free(*err);
			*err = e;
		}
		free(p);
		return t;
	}
	/* a file, a trace directory or a live session's mirror whose
	 * reader goes on from where it stopped: read as it grows */
	if (f->grow == NULL) {
		const struct reader *r = load_grow_reader(f->path,
		    f->force_format);
		if (r != NULL)
			f->grow = load_grow_new(f->path, r, &f->o);
	}
	if (f->grow != NULL && f->live == NULL)
		return load_grow_read(f->grow, err);
	if (f->live == NULL)
		return load_trace(f->path, f->force_format, &f->o, err);
	/* the quiet streams' beacons, as the client has them now: the
	 * reader's horizon moves up to them */
	struct load_options o = f->o;
	struct stream_beacon *b;
	o.nbeacons = live_client_beacons(f->live, &b);
	o.beacons = b;
	struct trace *t;
	if (f->grow != NULL) {
		load_grow_beacons(f->grow, b, o.nbeacons);
		t = load_grow_read(f->grow, err);
		load_grow_beacons(f->grow, NULL, 0);
	} else {
		t = load_trace(f->path, f->force_format, &o, err);
	}
	free(b);
	/* the session is over: nothing will come before any time now,
	 * whatever a stream's last packet */
	if (t != NULL && f->ended)
		t->complete_until = TTV_NS_MAX;
	f->holding = t != NULL && t->complete_until < t->last;
	return t;
}

struct trace *
follow_said(const struct follow *f, const char *name)
{
	if (f->live == NULL)
		return NULL;
	struct builder *b = builder_new(name);
	live_client_report(f->live, b);
	struct trace *t = builder_finish(b);
	if (t->ndiags == 0) {
		trace_free(t);
		return NULL;
	}
	return t;
}

void
follow_close(struct follow *f)
{
	if (f == NULL)
		return;
	if (f->live != NULL)
		live_client_close(f->live);
	load_grow_free(f->grow);
	for (size_t i = 0; i < f->nfiles; i++)
		free(f->files[i].name);
	free(f->files);
	free(f->force_format);
	free(f->path);
	free(f);
}
