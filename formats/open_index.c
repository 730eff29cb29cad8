/*
 * The index on the way to a loaded trace (see open_index.h,
 * doc/index-format.md).
 *
 * An index that matches the trace is used; one that does not is removed
 * and a new one built, whatever the trace's size (someone wanted one).
 * Without one, the trace is read as always and an index is written when
 * the read took long enough to be worth saving, or when --index asks.
 * Nothing here prints: what happened goes in the report, and the program
 * says it (cli/cli_open.c, cli/cli_info.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "index.h"
#include "index_cache.h"
#include "index_sources.h"
#include "index_store.h"
#include "live.h"
#include "load.h"
#include "load_resume.h"
#include "open_index.h"
#include "xalloc.h"

/* A trace read in less than this is not worth an index of its own. */
#define INDEX_MIN_SECONDS 0.3
/* Bytes an index and its mapping cost per depth, and what a model may
 * spend on depths whatever its size. */
#define INDEX_DEPTH_COST 160
#define INDEX_DEPTH_FREE ((size_t)16 << 20)
/* A trace this large gets an index without waiting to see how long it
 * takes to read (it takes 0.3 s or more anyway). */
#define INDEX_STORE_TRACE_MIN ((uint64_t)256 << 20)

void
index_report_clear(struct index_report *r)
{
	free(r->file);
	free(r->why);
	memset(r, 0, sizeof *r);
}

static void
report(struct index_report *r, enum index_state state, const char *file,
    char *why)
{
	free(r->file);
	free(r->why);
	r->state = state;
	r->file = file ? xstrdup(file) : NULL;
	r->why = why;
	r->size = 0;
	struct stat st;
	if (file != NULL && stat(file, &st) == 0)
		r->size = (uint64_t)st.st_size;
}

/* The variables that turn the index off unless --index asks: the test
 * suite's, and the readers' knobs (an index would answer instead of the
 * code path they force). NULL, or which one. */
static char *
env_says_no(void)
{
	static const enum ttv_env knobs[] = {
		TTV_ENV_NO_INDEX, TTV_ENV_CTF_CALLS, TTV_ENV_CTF_PIPE_MIN,
		TTV_ENV_CTF_BATCH, TTV_ENV_FXT_PIPE_MIN,
		TTV_ENV_FXT_READER_SHARE, TTV_ENV_FXT_BUILDER_STACKS,
		TTV_ENV_TEST_SHRINK,
	};
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		if (ttv_getenv(knobs[i]) != NULL)
			return xstrdup(ttv_env_name(knobs[i]));
	return NULL;
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Finishes the index of t on fd (a store's file, or a new one when
 * store is NULL) and publishes it as `file`; the reason there is none
 * in r when it cannot be. Closes fd. Returns the model to use: the index
 * just written, mapped (the same model every later open gets, with the
 * answers the index stored), or t when there is none. */
static struct trace *
finish(struct trace *t, int fd, char *tmp, const struct index_store *store,
    const char *path, const struct open_options *o, const char *dir,
    const char *file, struct index_ident *id, char *stale,
    struct index_report *r)
{
	char *why = NULL;
	/* Every file the reader read is part of what the index must
	 * match: an instrumentation map, the binaries a CTF trace's
	 * functions were named from. */
	for (size_t i = 0; i < t->nfiles; i++)
		index_sources_add(&id->sources, t->files[i].path);
	index_sources_done(&id->sources);
	/* An index holds about this much per depth (its tables, and the
	 * model's tables made at open): worth it only when that is small
	 * beside the calls. A stack 10^6 calls deep read from a few
	 * megabytes would cost more, and break the budget of memory. */
	uint64_t depths = 0;
	for (uint32_t i = 0; i < t->ntracks; i++)
		depths += t->tracks[i].ndepth;
	size_t model = trace_memory(t);
	if (depths * INDEX_DEPTH_COST > (model > INDEX_DEPTH_FREE ? model :
	    INDEX_DEPTH_FREE)) {
		index_cache_abandon(fd, tmp);
		report(r, INDEX_STATE_SKIPPED, NULL, xasprintf("the trace is "
		    "%llu depths deep: an index would cost more than it saves",
		    (unsigned long long)depths));
		goto out;
	}
	if (index_write(fd, t, id, store, &why) != 0) {
		index_cache_abandon(fd, tmp);
		report(r, INDEX_STATE_UNAVAILABLE, NULL, xasprintf("%s: %s",
		    dir, why));
		goto out;
	}
	/* What was read must still be what is there. */
	struct index_sources now, after;
	bool grew;
	bool listed = index_sources_of(path, id->trace, o, &now);
	index_sources_cover(&after, &now, &id->sources);
	index_sources_free(&now);
	if (!listed ||
	    (why = index_sources_diff(&id->sources, &after, &grew)) != NULL) {
		index_cache_abandon(fd, tmp);
		report(r, INDEX_STATE_SKIPPED, NULL, xasprintf("the trace "
		    "changed while being read (%s)", why ? why :
		    "too many files"));
		index_sources_free(&after);
		goto out;
	}
	index_sources_free(&after);
	if (index_cache_publish(fd, tmp, file, &why) != 0) {
		index_cache_abandon(fd, NULL);
		report(r, INDEX_STATE_UNAVAILABLE, NULL, why);
		why = NULL;
		goto out;
	}
	/* Mapped from our own descriptor: whatever another process renames
	 * over the name meanwhile, this is the file just written. */
	struct trace *m = NULL;
	if (index_map(fd, NULL, INDEX_CHECK_WRITTEN, &m, &why, NULL) == 0) {
		trace_free(t);
		t = m;
	}
	close(fd);
	index_cache_evict(dir, index_cache_max(), file);
	report(r, INDEX_STATE_BUILT, file, stale);
	stale = NULL;
out:
	free(why);
	free(tmp);
	free(stale);
	return t;
}

/* The trace read for its index, with the state to read on from once it
 * grows in *save where its reader keeps one (load_resume.h); as
 * load_trace_store otherwise. */
static struct trace *
read_for_index(const char *path, const struct open_options *o,
    const struct load_options *lo, struct index_store *store,
    struct blob *save, char **err)
{
	const struct reader *r = load_resume_reader(path, o->force_format);
	if (r != NULL) {
		struct trace *t = load_resume_first(path, r, lo, store, save,
		    err);
		if (t != NULL || *err != NULL)
			return t;
	}
	return load_trace_store(path, o->force_format, lo, store, err);
}

/* A new file for the index, or why there cannot be one (in r). */
static int
create(const struct index_ident *id, const char *dir, char **tmp,
    struct index_report *r)
{
	uint64_t max = index_cache_max();
	char *why = NULL;
	*tmp = NULL;
	if (id->sources.bytes > max) {
		report(r, INDEX_STATE_SKIPPED, NULL, xstrdup(max ? "the trace "
		    "is larger than TTV_CACHE_MAX" : "TTV_CACHE_MAX is 0"));
		return -1;
	}
	int fd = index_cache_create(dir, tmp, &why);
	if (fd < 0)
		report(r, INDEX_STATE_UNAVAILABLE, NULL, why);
	return fd;
}

/* Whether memory is short for the model of the trace (about its size):
 * then the index is built straight into its file, and the readers keep
 * memory bounded. */
static bool
memory_short(const struct index_ident *id)
{
	return ttv_getenv(TTV_ENV_INDEX_STORE) != NULL ||
	    id->sources.bytes > index_store_memory() / 2;
}

/* The index `file`, whose trace was only appended to since (stale says
 * so), replaced by one of the trace read on from where the old one's
 * read stopped (load_resume.h): the model, or NULL, nothing done, when
 * the old one keeps no state to go on from or the state does not fit
 * (the trace is then read whole). */
static struct trace *
extend(const char *path, const struct open_options *o, const char *dir,
    const char *file, struct index_ident *id, const char *stale,
    struct index_report *r)
{
	const struct reader *rd = load_resume_reader(path, o->force_format);
	int fd = rd != NULL ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) :
	    -1;
	if (fd < 0)
		return NULL;
	struct trace *from = NULL;
	const void *grow;
	size_t glen;
	char *why = NULL, *tmp = NULL, *err = NULL;
	int rc = index_map_grown(fd, id, &from, &grow, &glen, &why);
	close(fd);
	free(why);
	if (rc != 0)
		return NULL;
	/* a cache that takes no new file is said by the whole read */
	struct index_report none = { 0 };
	int ifd = create(id, dir, &tmp, &none);
	index_report_clear(&none);
	if (ifd < 0) {
		trace_free(from);
		return NULL;
	}
	struct index_store *store = index_store_new(ifd);
	bool short_memory = memory_short(id);
	index_store_set_resident(store, !short_memory);
	struct load_options lo = o->load;
	lo.bounded = short_memory;
	struct blob save = { 0 };
	double t0 = now();
	struct trace *t = load_resume_on(path, rd, &lo, from, grow, glen,
	    store, &save, &err);
	double secs = now() - t0;
	trace_free(from);
	free(err);
	if (t == NULL || (o->load.strict && t->has_errors)) {
		/* read whole: the same answer, said by that read */
		index_cache_abandon(ifd, tmp);
		free(tmp);
		blob_free(&save);
		trace_free(t);
		return NULL;
	}
	id->grow = save.len > 0 ? save.data : NULL;
	id->grow_len = save.len;
	t = finish(t, ifd, tmp, store, path, o, dir, file, id, xstrdup(stale),
	    r);
	id->grow = NULL;
	id->grow_len = 0;
	blob_free(&save);
	if (r->state == INDEX_STATE_BUILT)
		r->state = INDEX_STATE_EXTENDED;
	r->seconds = secs;
	return t;
}

/* What an index of path (canonical) must match: false when the trace
 * has too many files to list. */
static bool
ident_of(const char *path, const char *canonical,
    const struct open_options *o, struct index_ident *id)
{
	id->trace = canonical;
	id->program_id = index_program_id();
	id->options_hash = index_options_hash(o->force_format,
	    o->load.instr_map, o->load.sysroot);
	return index_sources_of(path, canonical, o, &id->sources);
}

struct trace *
open_index_state(const char *path, const struct open_options *o,
    const void **state, size_t *len, char **file)
{
	*file = NULL;
	if (o->index == OPEN_INDEX_OFF || live_url_is(path))
		return NULL;
	char *why = o->index == OPEN_INDEX_AUTO ? env_says_no() : NULL;
	char *canonical = why == NULL ? realpath(path, NULL) : NULL;
	char *dir = canonical != NULL ? index_cache_dir(&why) : NULL;
	struct index_ident id = { 0 };
	struct trace *t = NULL;
	if (dir != NULL && ident_of(path, canonical, o, &id)) {
		*file = index_cache_file(dir, canonical);
		int fd = open(*file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		/* unchanged or only appended to: the state is of a read
		 * the trace still begins with */
		if (fd >= 0 && index_map_grown(fd, &id, &t, state, len,
		    &why) == 0)
			index_cache_touch(*file);
		if (fd >= 0)
			close(fd);
	}
	if (t == NULL) {
		free(*file);
		*file = NULL;
	}
	index_sources_free(&id.sources);
	free(why);
	free(canonical);
	free(dir);
	return t;
}

struct trace *
open_index_load(const char *path, const struct open_options *o, char **err)
{
	struct index_report local = { 0 };
	struct index_report *r = o->index_report ? o->index_report : &local;
	char *canonical = NULL, *dir = NULL, *file = NULL, *why = NULL;
	char *stale = NULL;
	struct index_ident id = { 0 };
	struct blob save = { 0 };
	struct trace *t = NULL;

	/* Every way out goes through done: a report nobody asked for is
	 * freed there. */
	index_report_clear(r);
	if (o->index == OPEN_INDEX_OFF) {
		r->state = INDEX_STATE_OFF;
		goto plain;
	}
	/* A live session is what the relay has now: never the same twice. */
	if (live_url_is(path)) {
		report(r, INDEX_STATE_OFF, NULL, xstrdup("a live session"));
		goto plain;
	}
	if (o->index == OPEN_INDEX_AUTO && (why = env_says_no()) != NULL) {
		report(r, INDEX_STATE_OFF, NULL, why);
		goto plain;
	}
	/* A path that cannot be resolved is for load_trace to say. */
	if ((canonical = realpath(path, NULL)) == NULL)
		goto plain;
	if ((dir = index_cache_dir(&why)) == NULL) {
		report(r, INDEX_STATE_UNAVAILABLE, NULL, why);
		goto plain;
	}
	if (!ident_of(path, canonical, o, &id)) {
		report(r, INDEX_STATE_UNAVAILABLE, NULL, xstrdup("the trace "
		    "has too many files to follow"));
		goto plain;
	}
	file = index_cache_file(dir, canonical);
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		bool grew;
		int rc = index_map(fd, &id, o->index_lazy ? INDEX_CHECK_LAZY :
		    INDEX_CHECK_ALL, &t, &stale, &grew);
		close(fd);
		if (rc == 0) {
			/* The index is shared by every spelling of the
			 * path: the model speaks of the one given now. */
			free(t->path);
			t->path = xstrdup(path);
			index_cache_touch(file);
			report(r, INDEX_STATE_USED, file, NULL);
			goto done;
		}
		/* Only appended to: read on from where it stopped. */
		if (grew && (t = extend(path, o, dir, file, &id, stale, r)) !=
		    NULL)
			goto done;
		/* Of no use any more, whatever comes next. */
		unlink(file);
	}

	/* An index is wanted (asked for, replacing one, or a trace large
	 * enough to take 0.3 s or more to read). A large trace is built
	 * straight into the index's file: its arrays grow in the file's
	 * pages, where copying a model of hundreds of megabytes into the
	 * page cache at the end costs more CPU than the whole read of an
	 * XRay log. Where memory is short for the model (about the trace's
	 * size), the readers are also asked to keep memory bounded (CTF:
	 * calls through the merged walk, not kept per stream). A smaller
	 * trace is read in memory, as without an index, and written at the
	 * end. */
	bool wanted = o->index == OPEN_INDEX_ON || stale != NULL ||
	    id.sources.bytes >= INDEX_STORE_TRACE_MIN;
	bool short_memory = memory_short(&id);
	if (wanted && (short_memory ||
	    id.sources.bytes >= INDEX_STORE_TRACE_MIN)) {
		char *tmp;
		int ifd = create(&id, dir, &tmp, r);
		if (ifd < 0)
			goto plain;
		struct index_store *store = index_store_new(ifd);
		/* With memory to spare, what is written stays in the page
		 * cache: the index's passes need no read-ahead. */
		index_store_set_resident(store, !short_memory);
		struct load_options lo = o->load;
		lo.bounded = short_memory;
		double t0 = now();
		t = read_for_index(path, o, &lo, store, &save, err);
		double secs = now() - t0;
		if (t == NULL || (o->load.strict && t->has_errors)) {
			index_cache_abandon(ifd, tmp);
			free(tmp);
			report(r, INDEX_STATE_SKIPPED, NULL, xstrdup("the trace "
			    "could not be read"));
			goto done;
		}
		id.grow = save.len > 0 ? save.data : NULL;
		id.grow_len = save.len;
		t = finish(t, ifd, tmp, store, path, o, dir, file, &id, stale,
		    r);
		stale = NULL;
		r->seconds = secs;
		goto done;
	}
	double t0 = now();
	t = read_for_index(path, o, &o->load, NULL, &save, err);
	if (t == NULL)
		goto done;
	r->seconds = now() - t0;
	if (o->load.strict && t->has_errors)
		goto done;	/* refused: nothing to keep */
	if (wanted || r->seconds >= INDEX_MIN_SECONDS) {
		/* Written from memory. */
		double secs = r->seconds;
		char *tmp;
		int ifd = create(&id, dir, &tmp, r);
		if (ifd >= 0) {
			id.grow = save.len > 0 ? save.data : NULL;
			id.grow_len = save.len;
			t = finish(t, ifd, tmp, NULL, path, o, dir, file, &id,
			    stale, r);
			stale = NULL;
		}
		r->seconds = secs;
	} else {
		report(r, INDEX_STATE_SKIPPED, NULL, xstrdup("the trace "
		    "reads fast (--index makes one)"));
	}
	goto done;

plain:
	t = load_trace(path, o->force_format, &o->load, err);
done:
	blob_free(&save);
	free(stale);
	free(canonical);
	free(dir);
	free(file);
	index_sources_free(&id.sources);
	if (r == &local)
		index_report_clear(&local);
	return t;
}
