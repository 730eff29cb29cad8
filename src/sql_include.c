/*
 * Perfetto's `INCLUDE PERFETTO MODULE name;`, which SQLite does not parse:
 * sql_prepare() (see sql.h) recognises the statement ahead of SQLite and
 * gives what the module gives in Perfetto for the tables ttv has, or
 * fails naming what ttv offers instead.
 *
 * The modules ttv has:
 *  - slices.with_context: the views thread_slice, process_slice and
 *    thread_or_process_slice (a slice with its thread's and process's
 *    names and ids), with the columns of Perfetto's;
 *  - time.conversion: time_from_ns() ... time_from_days(),
 *    time_to_ns() ... time_to_days().
 * A name may end in `*` (`slices.*`, `*`): every module under it.
 * Including a module twice is harmless.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql_int.h"
#include "xalloc.h"

/* thread_slice: every slice of a thread track, its thread (and process,
 * NULL when the thread has none). process_slice: every slice of a
 * process (async) track. thread_or_process_slice: both. Perfetto's
 * columns, in its order. */
static const char with_context[] =
    "CREATE VIEW IF NOT EXISTS thread_slice(id, ts, dur, category, name,"
    " track_id, track_name, thread_name, utid, tid, is_main_thread,"
    " process_name, upid, pid, depth, parent_id, arg_set_id, thread_ts,"
    " thread_dur) AS"
    " SELECT slice.id, slice.ts, slice.dur, slice.category, slice.name,"
    " slice.track_id, thread_track.name, thread.name, thread.utid,"
    " thread.tid, thread.is_main_thread, process.name, process.upid,"
    " process.pid, slice.depth, slice.parent_id, slice.arg_set_id,"
    " slice.thread_ts, slice.thread_dur"
    " FROM thread_track JOIN thread USING (utid)"
    " LEFT JOIN process ON process.upid = thread.upid"
    " JOIN slice ON slice.track_id = thread_track.id;"
    "CREATE VIEW IF NOT EXISTS process_slice(id, ts, dur, category, name,"
    " track_id, track_name, process_name, upid, pid, depth, parent_id,"
    " arg_set_id, thread_ts, thread_dur) AS"
    " SELECT slice.id, slice.ts, slice.dur, slice.category, slice.name,"
    " slice.track_id, process_track.name, process.name, process.upid,"
    " process.pid, slice.depth, slice.parent_id, slice.arg_set_id,"
    " slice.thread_ts, slice.thread_dur"
    " FROM slice JOIN process_track ON slice.track_id = process_track.id"
    " JOIN process ON process.upid = process_track.upid;"
    "CREATE VIEW IF NOT EXISTS thread_or_process_slice(id, ts, dur,"
    " category, name, track_id, track_name, thread_name, utid, tid,"
    " process_name, upid, pid, depth, parent_id, arg_set_id) AS"
    " SELECT id, ts, dur, category, name, track_id, track_name,"
    " thread_name, utid, tid, process_name, upid, pid, depth, parent_id,"
    " arg_set_id FROM thread_slice"
    " UNION ALL"
    " SELECT id, ts, dur, category, name, track_id, track_name, NULL,"
    " NULL, NULL, process_name, upid, pid, depth, parent_id, arg_set_id"
    " FROM process_slice;";

static int
include_with_context(struct sql *s)
{
	return sqlite3_exec(s->db, with_context, NULL, NULL, NULL);
}

static int
include_time_conversion(struct sql *s)
{
	return sql_time_functions_register(s);
}

static const struct module {
	const char *name;
	const char *gives;	/* for the message naming what ttv has */
	int (*include)(struct sql *s);
} modules[] = {
	{ "slices.with_context", "thread_slice, process_slice, "
	    "thread_or_process_slice", include_with_context },
	{ "time.conversion", "time_to_ms() and the like",
	    include_time_conversion },
};
#define NMODULES (sizeof modules / sizeof *modules)

/* ------------------------------------------------------------- parsing */

/* Past blanks and comments (an unterminated block comment runs to the
 * end, as SQLite reads it). */
static const char *
skip_blank(const char *p)
{
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e != NULL ? e + 2 : p + strlen(p);
		} else {
			return p;
		}
	}
}

static bool
ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The keyword kw at p (any case, then not an identifier's character):
 * where it ends, or NULL. */
static const char *
keyword(const char *p, const char *kw)
{
	size_t n = strlen(kw);
	if (strncasecmp(p, kw, n) != 0 || ident_char(p[n]))
		return NULL;
	return p + n;
}

static int
fail(struct sql *s, const char *stmt, const char *at, char *msg)
{
	free(s->prepare_err);
	s->prepare_err = msg;
	s->prepare_err_off = (long)(at - stmt);
	return SQLITE_ERROR;
}

/* What ttv has, for a message: "slices.with_context (thread_slice...),
 * time.conversion (...)". */
static char *
offered(void)
{
	char *list = xstrdup("");
	for (size_t i = 0; i < NMODULES; i++) {
		char *n = xasprintf("%s%s%s (%s)", list, i ? ", " : "",
		    modules[i].name, modules[i].gives);
		free(list);
		list = n;
	}
	return list;
}

/* Includes the modules a name (or a name ending in `*`) names. */
static int
include(struct sql *s, const char *stmt, const char *name, size_t len)
{
	bool wild = len > 0 && name[len - 1] == '*';
	size_t prefix = wild ? len - 1 : len;
	if (wild && prefix > 0 && name[prefix - 1] != '.')
		wild = false;	/* "sli*" names no module */
	size_t found = 0;
	for (size_t i = 0; i < NMODULES; i++) {
		const char *m = modules[i].name;
		if (wild ? strncmp(m, name, prefix) != 0 :
		    strlen(m) != len || strncmp(m, name, len) != 0)
			continue;
		found++;
		if (modules[i].include(s) != SQLITE_OK)
			return fail(s, stmt, name, xasprintf("INCLUDE PERFETTO "
			    "MODULE %s: %s", m, sqlite3_errmsg(s->db)));
	}
	if (found > 0)
		return SQLITE_OK;
	char *list = offered();
	int rc = fail(s, stmt, name, xasprintf("INCLUDE PERFETTO MODULE "
	    "%.*s: ttv has no such module; it has %s, and its tables are "
	    "listed in ttv_tables (ttv-sql(7))", (int)len, name, list));
	free(list);
	return rc;
}

int
sql_prepare(struct sql *s, const char *text, sqlite3_stmt **st,
    const char **tail)
{
	free(s->prepare_err);
	s->prepare_err = NULL;
	*st = NULL;
	const char *p = skip_blank(text), *q;
	if ((q = keyword(p, "INCLUDE")) == NULL)
		return sqlite3_prepare_v2(s->db, text, -1, st, tail);
	p = skip_blank(q);
	if ((q = keyword(p, "PERFETTO")) == NULL ||
	    (q = keyword(skip_blank(q), "MODULE")) == NULL)
		return fail(s, text, p, xstrdup("INCLUDE: expected "
		    "INCLUDE PERFETTO MODULE name"));
	const char *name = skip_blank(q);
	size_t len = 0;
	while (ident_char(name[len]) || name[len] == '.' || name[len] == '*')
		len++;
	p = skip_blank(name + len);
	if (len == 0 || (*p != ';' && *p != '\0'))
		return fail(s, text, len == 0 ? name : p, xstrdup("INCLUDE "
		    "PERFETTO MODULE: expected a module name, then ';'"));
	int rc = include(s, text, name, len);
	if (rc == SQLITE_OK)
		*tail = *p == ';' ? p + 1 : p;
	return rc;
}
