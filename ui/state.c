/*
 * The viewer's state between sessions (see state.h). The file is text,
 * one setting a line:
 *
 *   ttv-state 2
 *   trace SIZE MTIME_NS REALPATH   the path in the text form (escape.h)
 *   window T0 T1              times in ns on the trace's clock
 *   range T0 T1
 *   pane NAME                 the pane's command name (timeline, calls...)
 *   details 0|1               the details pane shown
 *   function NAME             of the callers and calls panes, in the
 *                             text form
 *   filter show|hide REGEX
 *   threads INVERT TID...
 *   mark LETTER T0 T1 CURSOR_T PINNED [TRACK DEPTH INDEX]
 *   columns PANE NAME,NAME... the columns chosen (V) of a pane that
 *                             has them (columns.h), when not all
 *
 * The file is named by a hash of the trace's real path alone, so a trace
 * rewritten in place has one state file, replaced when the viewer quits;
 * the size and time stamp of line 2 tell that the trace changed since,
 * and its state is then not restored.
 *
 * Reading builds a candidate state and applies it only when every line
 * passed; writing goes to a new temporary file renamed into place, so a
 * crash never leaves half a file. Version 1 had the path and the name
 * raw (a path with a newline in it could not be read back); it is still
 * read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callpanes.h"
#include "columns.h"
#include "escape.h"
#include "keys.h"
#include "state.h"
#include "xalloc.h"

#define STATE_MAX_BYTES (1 << 20)
/* More lines than a state has settings: a state file holds at most 37. */
#define STATE_MAX_LINES 64
#define STATE_VERSION "ttv-state 2"
#define STATE_VERSION_1 "ttv-state 1"

struct identity {
	char *real;
	long long size;
	long long mtime_ns;
};

struct saved_mark {
	bool set, has_cursor, pinned;
	ttv_ns t0, t1, cursor_t;
	struct slice_ref cursor;
};

/* A state read from a file, applied only when all of it was sound. */
struct candidate {
	bool window, range, pane_set, details_set, details;
	ttv_ns w0, w1, r0, r1;
	enum pane_id pane;
	const char *func_name;	/* in the file's text, looked up once */
	int func_line;
	func_id func;
	char *filter;
	bool filter_hide;
	bool threads, invert;
	int64_t *tids;
	size_t ntids;
	struct saved_mark marks[26];
	bool cols_set[PANE_COUNT];
	uint32_t cols[PANE_COUNT];
	int lineno;		/* of the line being read */
	bool text_form;		/* version 2: names and path escaped */
};

static bool
identify(const char *path, struct identity *id)
{
	struct stat st;

	if (strstr(path, "://") != NULL) {
		/* a live session (net://...): its URL, which never changes
		 * size */
		id->real = xstrdup(path);
		id->size = id->mtime_ns = 0;
		return true;
	}
	id->real = realpath(path, NULL);
	if (id->real == NULL || stat(id->real, &st) != 0) {
		free(id->real);
		id->real = NULL;
		return false;
	}
	id->size = (long long)st.st_size;
	id->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL +
	    st.st_mtim.tv_nsec;
	return true;
}

/* $XDG_STATE_HOME/ttv, or ~/.local/state/ttv; NULL without either. The
 * XDG base directory rule: a relative XDG_STATE_HOME is ignored. */
static char *
state_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/ttv", x);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/ttv", home);
	return NULL;
}

static char *
state_file(const struct identity *id)
{
	char *dir = state_dir();
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	if (dir == NULL)
		return NULL;
	for (const char *s = id->real; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	char *f = xasprintf("%s/%016llx.state", dir, (unsigned long long)h);
	free(dir);
	return f;
}

/* The file's text, NUL-terminated, when it is a regular file of at most
 * STATE_MAX_BYTES: a FIFO or a device put there never blocks us. */
static char *
read_text(const char *file, size_t *len, char **why)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	*why = NULL;
	if (fd < 0)
		return NULL;	/* none saved: not worth a word */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > STATE_MAX_BYTES) {
		*why = xstrdup(S_ISREG(st.st_mode) ? "larger than 1 MiB" :
		    "not a regular file");
		close(fd);
		return NULL;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A decimal integer field followed by a space or the end; advances *s. */
static bool
field_ll(char **s, long long *out)
{
	char *end;

	if (**s == '\0' || **s == ' ')
		return false;
	errno = 0;
	long long x = strtoll(*s, &end, 10);
	if (errno != 0 || end == *s || (*end != '\0' && *end != ' '))
		return false;
	*out = x;
	*s = *end == ' ' ? end + 1 : end;
	return true;
}

/* Times of the state must lie near the trace: inside it, or a trace's
 * length either side (a window zoomed out past its ends). */
static bool
time_ok(const struct trace *t, long long x)
{
	ttv_ns span = t->last - t->first + 1;

	return x >= t->first - span && x <= t->last + span;
}

static bool
pair_ok(const struct trace *t, long long a, long long b)
{
	return time_ok(t, a) && time_ok(t, b) && a < b;
}

static enum pane_id
pane_by_name(const char *name)
{
	for (int p = 0; p < PANE_COUNT; p++)
		if (strcmp(command_get((enum cmd)(CMD_PANE_TIMELINE + p))->name,
		    name) == 0)
			return (enum pane_id)p;
	return PANE_COUNT;
}

/* The function named name: its text form (escape.h), or, in a file of
 * version 1, its bytes. */
static func_id
func_by_name(const struct trace *t, const char *name, bool text_form)
{
	size_t want = strlen(name);
	char *buf = xmalloc(4 * want + 1);
	func_id found = CALL_NONE;
	for (func_id f = 0; f < t->nfuncs && found == CALL_NONE; f++) {
		const char *s = trace_func_name(t, f);
		size_t len = strlen(s);
		if (!text_form) {
			if (strcmp(s, name) == 0)
				found = f;
		} else if (len <= want && escape_text(s, len, buf,
		    4 * len + 1) == want && memcmp(buf, name, want) == 0) {
			found = f;
		}
	}
	free(buf);
	return found;
}

/* s in the text form; caller frees. */
static char *
text_form(const char *s)
{
	size_t len = strlen(s);
	char *out = xmalloc(4 * len + 1);
	escape_text(s, len, out, 4 * len + 1);
	return out;
}

/* "columns PANE NAME,NAME...": the pane must have those columns, and
 * one at least is shown. */
static const char *
parse_columns(const struct view *v, char *rest, struct candidate *c)
{
	char *sp = strchr(rest, ' ');
	if (sp == NULL)
		return "columns name a pane and its columns";
	*sp = '\0';
	enum pane_id p = pane_by_name(rest);
	struct column_set *cs = p < PANE_COUNT ?
	    pane_column_set(v->panes[p]) : NULL;
	uint32_t shown;
	if (cs == NULL)
		return "no pane with columns of that name";
	if (columns_parse(cs, sp + 1, &shown) != 0 || shown == 0)
		return "columns the pane does not have";
	c->cols_set[p] = true;
	c->cols[p] = shown;
	return NULL;
}

/* One line into the candidate; NULL, or what is wrong with it. */
static const char *
parse_line(const struct view *v, char *line, struct candidate *c)
{
	const struct trace *t = v->trace;
	char *sp = strchr(line, ' ');
	char *rest = sp ? sp + 1 : line + strlen(line);
	long long a, b, x, y;

	if (sp != NULL)
		*sp = '\0';
	if (strcmp(line, "window") == 0 || strcmp(line, "range") == 0) {
		if (!field_ll(&rest, &a) || !field_ll(&rest, &b) ||
		    *rest != '\0' || !pair_ok(t, a, b))
			return "a time span outside the trace";
		if (line[0] == 'w') {
			c->window = true;
			c->w0 = a;
			c->w1 = b;
		} else {
			c->range = true;
			c->r0 = a;
			c->r1 = b;
		}
		return NULL;
	}
	if (strcmp(line, "pane") == 0) {
		c->pane = pane_by_name(rest);
		c->pane_set = true;
		return c->pane == PANE_COUNT ? "no such pane" : NULL;
	}
	if (strcmp(line, "details") == 0) {
		if (strcmp(rest, "0") != 0 && strcmp(rest, "1") != 0)
			return "details is 0 or 1";
		c->details_set = true;
		c->details = rest[0] == '1';
		return NULL;
	}
	if (strcmp(line, "function") == 0) {
		/* found when all lines passed, once: the lookup walks every
		 * function of the trace */
		c->func_name = rest;
		c->func_line = c->lineno;
		return NULL;
	}
	if (strcmp(line, "filter") == 0) {
		bool hide = strncmp(rest, "hide ", 5) == 0;
		if (!hide && strncmp(rest, "show ", 5) != 0)
			return "a filter is show or hide";
		free(c->filter);
		c->filter = xstrdup(rest + 5);
		c->filter_hide = hide;
		return NULL;
	}
	if (strcmp(line, "threads") == 0) {
		if (!field_ll(&rest, &a) || (a != 0 && a != 1))
			return "a thread list starts with 0 or 1";
		c->threads = true;
		c->invert = a == 1;
		free(c->tids);
		c->tids = xcalloc(t->ntracks ? t->ntracks : 1,
		    sizeof *c->tids);
		c->ntids = 0;
		while (*rest != '\0') {
			if (!field_ll(&rest, &x))
				return "a thread id is a number";
			if (c->ntids >= t->ntracks)
				return "more threads than the trace has";
			c->tids[c->ntids++] = x;
		}
		return NULL;
	}
	if (strcmp(line, "columns") == 0)
		return parse_columns(v, rest, c);
	if (strcmp(line, "mark") == 0) {
		if (rest[0] < 'a' || rest[0] > 'z' || rest[1] != ' ')
			return "bookmarks are a to z";
		struct saved_mark *m = &c->marks[rest[0] - 'a'];
		rest += 2;
		if (!field_ll(&rest, &a) || !field_ll(&rest, &b) ||
		    !pair_ok(t, a, b) || !field_ll(&rest, &x) ||
		    !time_ok(t, x) || !field_ll(&rest, &y) ||
		    (y != 0 && y != 1))
			return "a bookmark out of the trace";
		*m = (struct saved_mark){ .set = true, .t0 = a, .t1 = b,
		    .cursor_t = x, .pinned = y == 1 };
		if (*rest == '\0')
			return NULL;
		long long tr, d, i;
		if (!field_ll(&rest, &tr) || !field_ll(&rest, &d) ||
		    !field_ll(&rest, &i) || *rest != '\0' || tr < 0 ||
		    tr >= (long long)t->ntracks || d < 0 ||
		    d >= (long long)t->tracks[tr].ndepth || i < 0 ||
		    (size_t)i >= t->tracks[tr].depth[d].len)
			return "a bookmark on a call the trace does not have";
		m->has_cursor = true;
		m->cursor = (struct slice_ref){ .track = (uint32_t)tr,
		    .depth = (uint32_t)d, .index = (uint32_t)i };
		return NULL;
	}
	return "unknown setting";
}

static int
cmp_tid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether one of the saved threads is in the trace. */
static bool
any_thread(const struct trace *t, const struct candidate *c)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].kind == TRACK_THREAD &&
		    bsearch(&t->tracks[i].tid, c->tids, c->ntids,
		    sizeof *c->tids, cmp_tid) != NULL)
			return true;
	return false;
}

static void
apply(struct view *v, struct candidate *c, bool keep_filters, bool follow)
{
	const struct trace *t = v->trace;

	if (c->threads)
		qsort(c->tids, c->ntids, sizeof *c->tids, cmp_tid);
	/* a trace being written may not have its threads yet: a pick of
	 * none of them would hide them all */
	if (!keep_filters && c->threads && (!follow || any_thread(t, c))) {
		/* sorted, then looked up: a trace of many threads and a
		 * list of them all stay linear-logarithmic */
		for (uint32_t i = 0; i < t->ntracks; i++)
			if (t->tracks[i].kind == TRACK_THREAD &&
			    bsearch(&t->tracks[i].tid, c->tids, c->ntids,
			    sizeof *c->tids, cmp_tid) != NULL)
				v->thread_pick[i] = 1;
		v->thread_invert = c->invert;
		view_apply_threads(v);
	}
	if (!keep_filters && c->filter != NULL)
		view_filter_functions(v, c->filter, c->filter_hide);
	for (int i = 0; i < 26; i++) {
		struct saved_mark *m = &c->marks[i];
		if (!m->set)
			continue;
		v->marks[i] = (struct bookmark){ .set = true, .t0 = m->t0,
		    .t1 = m->t1, .has_cursor = m->has_cursor,
		    .cursor = m->cursor, .cursor_t = m->cursor_t,
		    .cursor_pinned = m->pinned };
	}
	if (c->window) {
		v->t0 = c->w0;
		v->t1 = c->w1;
		/* The cursor inside the window: in its middle when the
		 * session's first cursor is not in it. */
		ttv_ns at = view_cursor_time(v);
		if (at < v->t0 || at >= v->t1) {
			at = v->t0 + (v->t1 - v->t0) / 2;
			view_cursor_at_time(v, at);
			v->cursor_t = at;
			v->cursor_pinned = true;
		}
		view_data_changed(v);
	}
	if (c->range)
		view_range_set(v, c->r0, c->r1);
	if (c->details_set)
		v->details = c->details;
	for (int p = 0; p < PANE_COUNT; p++)
		if (c->cols_set[p])
			pane_column_set(v->panes[p])->shown = c->cols[p];
	if (c->pane_set) {
		if ((c->pane == PANE_CALLERS || c->pane == PANE_INSTANCES) &&
		    c->func != CALL_NONE)
			calls_pane_open(v, c->pane, c->func);
		else if (c->pane != PANE_CALLERS && c->pane != PANE_INSTANCES)
			view_show_pane(v, c->pane);
	}
}

/* What a trace being written keeps of its saved state: the settings
 * that are not times or calls of one read. */
static bool
follow_keeps(const char *line)
{
	static const char *const times[] = { "window ", "range ", "mark " };

	for (size_t i = 0; i < sizeof times / sizeof *times; i++)
		if (strncmp(line, times[i], strlen(times[i])) == 0)
			return false;
	return true;
}

bool
state_load(struct view *v, const char *path, bool keep_filters, bool follow)
{
	struct identity id;
	char *why = NULL, *file;
	size_t len = 0;
	bool ok = false;

	if (!identify(path, &id))
		return false;
	if ((file = state_file(&id)) == NULL) {
		free(id.real);
		return false;
	}
	char *text = read_text(file, &len, &why);
	struct candidate c = { .func = CALL_NONE };
	int lineno = 0;
	bool changed = false;
	if (text != NULL && memchr(text, '\0', len) != NULL)
		why = xstrdup("a NUL byte");
	for (char *line = text, *next; why == NULL && line != NULL &&
	    *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		c.lineno = ++lineno;
		if (lineno > STATE_MAX_LINES) {
			why = xasprintf("more than %d lines", STATE_MAX_LINES);
			break;
		}
		if (lineno == 1) {
			c.text_form = strcmp(line, STATE_VERSION) == 0;
			if (!c.text_form && strcmp(line, STATE_VERSION_1) != 0)
				why = xstrdup("not a ttv state file");
			continue;
		}
		if (lineno == 2) {
			char *real = c.text_form ? text_form(id.real) :
			    xstrdup(id.real);
			char *want = xasprintf("trace %lld %lld %s", id.size,
			    id.mtime_ns, real);
			/* The same path, another size or time stamp: the
			 * trace was rewritten since. Another path: a hash
			 * shared with another trace. */
			char *s = line;
			long long size, mtime;
			if (strcmp(line, want) != 0) {
				s += strncmp(s, "trace ", 6) == 0 ? 6 : 0;
				/* a trace being written changes all the
				 * time: its path is what it is known by */
				if (field_ll(&s, &size) && field_ll(&s, &mtime) &&
				    strcmp(s, real) == 0)
					changed = !follow;
				else
					why = xstrdup("saved for another "
					    "trace");
			}
			free(want);
			free(real);
			if (changed)
				break;
			continue;
		}
		if (follow && !follow_keeps(line))
			continue;
		const char *bad = parse_line(v, line, &c);
		if (bad != NULL)
			why = xasprintf("line %d: %s", lineno, bad);
	}
	if (text != NULL && why == NULL && lineno < 2)
		why = xstrdup("not a ttv state file");
	if (why == NULL && c.func_name != NULL &&
	    (c.func = func_by_name(v->trace, c.func_name, c.text_form)) ==
	    CALL_NONE && !follow)
		why = xasprintf("line %d: no such function", c.func_line);
	if (changed)
		view_message(v, false, "the trace changed since its state was "
		    "saved: not restored");
	else if (why != NULL)
		view_message(v, true, "saved state %s ignored: %s", file, why);
	else if (text != NULL) {
		apply(v, &c, keep_filters, follow);
		ok = true;
	}
	free(why);
	free(text);
	free(c.filter);
	free(c.tids);
	free(file);
	free(id.real);
	return ok;
}

static int
mkdirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(dir, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static void
write_state(FILE *fp, const struct view *v, const struct identity *id)
{
	const struct trace *t = v->trace;

	char *real = text_form(id->real);
	fprintf(fp, "%s\ntrace %lld %lld %s\n", STATE_VERSION, id->size,
	    id->mtime_ns, real);
	free(real);
	fprintf(fp, "window %lld %lld\n", (long long)v->t0, (long long)v->t1);
	if (v->range_on)
		fprintf(fp, "range %lld %lld\n", (long long)v->range_t0,
		    (long long)v->range_t1);
	fprintf(fp, "pane %s\n", command_get((enum cmd)(CMD_PANE_TIMELINE +
	    v->pane))->name);
	fprintf(fp, "details %d\n", v->details ? 1 : 0);
	if (v->pane == PANE_CALLERS || v->pane == PANE_INSTANCES) {
		func_id f = calls_pane_func(v, v->pane);
		if (f != CALL_NONE) {
			char *name = text_form(trace_func_name(t, f));
			fprintf(fp, "function %s\n", name);
			free(name);
		}
	}
	if (v->func_pattern != NULL && strchr(v->func_pattern, '\n') == NULL)
		fprintf(fp, "filter %s %s\n", v->func_hide ? "hide" : "show",
		    v->func_pattern);
	if (v->thread_active) {
		fprintf(fp, "threads %d", v->thread_invert ? 1 : 0);
		for (uint32_t i = 0; i < t->ntracks; i++)
			if (v->thread_pick[i] &&
			    t->tracks[i].kind == TRACK_THREAD)
				fprintf(fp, " %lld",
				    (long long)t->tracks[i].tid);
		putc('\n', fp);
	}
	for (int p = 0; p < PANE_COUNT; p++) {
		struct column_set *cs = pane_column_set(v->panes[p]);
		if (cs == NULL || cs->shown == columns_all(cs))
			continue;
		char *names = columns_text(cs);
		fprintf(fp, "columns %s %s\n", command_get((enum cmd)
		    (CMD_PANE_TIMELINE + p))->name, names);
		free(names);
	}
	for (int i = 0; i < 26; i++) {
		const struct bookmark *b = &v->marks[i];
		if (!b->set)
			continue;
		fprintf(fp, "mark %c %lld %lld %lld %d", 'a' + i,
		    (long long)b->t0, (long long)b->t1,
		    (long long)b->cursor_t, b->cursor_pinned ? 1 : 0);
		if (b->has_cursor)
			fprintf(fp, " %u %u %u", b->cursor.track,
			    b->cursor.depth, b->cursor.index);
		putc('\n', fp);
	}
}

int
state_save(const struct view *v, const char *path, char **err)
{
	struct identity id;
	char *file, *tmp, *dir;
	int rc = -1;

	*err = NULL;
	if (!identify(path, &id))
		return 0;	/* nothing to key it by: nothing saved */
	if ((file = state_file(&id)) == NULL) {
		free(id.real);
		return 0;
	}
	dir = xstrdup(file);
	*strrchr(dir, '/') = '\0';
	/* A fresh name, made with O_EXCL: whatever sits at a name already
	 * (a FIFO, a link) is never opened nor followed. */
	tmp = xasprintf("%s.XXXXXX", file);
	FILE *fp = NULL;
	int fd = -1;
	if (mkdirs(dir) != 0 || (fd = mkstemp(tmp)) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
	    (fp = fdopen(fd, "w")) == NULL) {
		*err = xasprintf("%s: %s", fd < 0 ? dir : tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		goto out;
	}
	write_state(fp, v, &id);
	bool bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		*err = xasprintf("%s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, file) != 0) {
		*err = xasprintf("%s: %s", file, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(dir);
	free(file);
	free(id.real);
	return rc;
}
