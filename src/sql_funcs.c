/*
 * SQL functions Perfetto's trace processor has, for queries written for
 * it: regexp() (the REGEXP operator), the percentile() and median()
 * aggregates, and the functions of the time.conversion module (given by
 * INCLUDE PERFETTO MODULE, sql_include.c).
 *
 *  - `X REGEXP P` is regexp(P, X): 1 when the PCRE2 pattern P matches
 *    somewhere in X (as --search matches, without its smart case: case
 *    counts, `(?i)` or regexp(P, X, 'i') ignores it), 0 when not, NULL when
 *    either is NULL. A bad pattern is an error, and so is a match PCRE2
 *    gives up on (regex.c's limits: never a "no"). The pattern is
 *    compiled once per statement, through regex.c as every pattern of
 *    ttv is.
 *  - percentile(Y, P), median(Y): the rules of SQLite's percentile
 *    extension, which Perfetto builds in: P from 0 to 100, the same for
 *    every row; NULL Ys are skipped and other non-numbers are an error;
 *    the result is a real, linearly interpolated between the two nearest
 *    values (the value at rank P * (N - 1) / 100 of the sorted Ys), or
 *    NULL with no Y.
 *  - time_from_ms(v)... and time_to_ms(ns)...: see time_apply.
 * All are deterministic and innocuous, so views may use them.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "sql_int.h"
#include "xalloc.h"

/* -------------------------------------------------------------- regexp */

/* A pattern compiled for a statement (kept as the auxiliary data of
 * the pattern argument while it stays the same). */
struct compiled {
	struct regex *re;
	bool caseless;
};

static void
compiled_free(void *arg)
{
	struct compiled *c = arg;
	regex_free(c->re);
	free(c);
}

/* The one place SQL compiles and runs a pattern. */
static struct compiled *
regexp_compile(const char *pattern, bool caseless, char **err)
{
	char *p = caseless ? xasprintf("(?i)%s", pattern) : NULL;
	struct regex *re = regex_compile(p ? p : pattern, err);
	free(p);
	if (re == NULL)
		return NULL;
	struct compiled *c = xmalloc(sizeof *c);
	c->re = re;
	c->caseless = caseless;
	return c;
}

/* 1 match, 0 no match, -1 when the match could not be decided within
 * regex.c's limits (regex_error says why). */
static int
regexp_match(struct compiled *c, const char *s, size_t len)
{
	return regex_match(c->re, s, len);
}

/* regexp(pattern, input [, flags]): flags `i` (caseless) and `c` (case
 * counts), the last one winning, as in Perfetto. */
static void
regexp_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bool caseless = false;
	if (argc == 3) {
		const char *flags = (const char *)sqlite3_value_text(argv[2]);
		if (flags == NULL)
			return;
		for (const char *f = flags; *f != '\0'; f++) {
			if (*f != 'i' && *f != 'c') {
				sqlite3_result_error(ctx, "REGEXP: unknown flag "
				    "(the flags are i and c)", -1);
				return;
			}
			caseless = *f == 'i';
		}
	}
	const char *pattern = (const char *)sqlite3_value_text(argv[0]);
	const char *input = (const char *)sqlite3_value_text(argv[1]);
	if (pattern == NULL || input == NULL)
		return;
	struct compiled *c = sqlite3_get_auxdata(ctx, 0);
	bool fresh = c == NULL || c->caseless != caseless;
	if (fresh) {
		char *err = NULL;
		if ((c = regexp_compile(pattern, caseless, &err)) == NULL) {
			char *msg = xasprintf("REGEXP: %s", err);
			sqlite3_result_error(ctx, msg, -1);
			free(msg);
			free(err);
			return;
		}
	}
	int m = regexp_match(c, input, (size_t)sqlite3_value_bytes(argv[1]));
	if (m < 0) {
		/* a limit hit is no answer, never a "no" */
		char *msg = xasprintf("REGEXP: %s", regex_error(c->re));
		sqlite3_result_error(ctx, msg, -1);
		free(msg);
	} else {
		sqlite3_result_int(ctx, m);
	}
	/* kept for the next rows while the pattern stays the same; SQLite
	 * may free it at once, so it is not used after this */
	if (fresh)
		sqlite3_set_auxdata(ctx, 0, c, compiled_free);
}

/* ---------------------------------------------------------- percentile */

struct percentile {
	double p1;		/* 1 + P, once seen (0: not yet), computed as
				 * SQLite's extension does, to the last bit */
	double *y;
	size_t n, cap;
	bool failed;
};

static void
percentile_fail(sqlite3_context *ctx, struct percentile *a, const char *msg)
{
	a->failed = true;
	sqlite3_result_error(ctx, msg, -1);
}

static void
percentile_add(sqlite3_context *ctx, double p, sqlite3_value *y)
{
	struct percentile *a = sqlite3_aggregate_context(ctx, sizeof *a);
	if (a == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (a->failed)
		return;
	if (a->p1 == 0.0) {
		a->p1 = p + 1.0;
	} else if (fabs(a->p1 - (p + 1.0)) > 0.001) {
		percentile_fail(ctx, a, "2nd argument to percentile() is not "
		    "the same for all input rows");
		return;
	}
	int type = sqlite3_value_numeric_type(y);
	if (type == SQLITE_NULL)
		return;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		percentile_fail(ctx, a, "1st argument to percentile() is not "
		    "numeric");
		return;
	}
	double v = sqlite3_value_double(y);
	if (isinf(v)) {
		percentile_fail(ctx, a, "Inf input to percentile()");
		return;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		double *ny = sqlite3_realloc64(a->y, cap * sizeof *ny);
		if (ny == NULL) {
			sqlite3_result_error_nomem(ctx);
			a->failed = true;
			return;
		}
		a->y = ny;
		a->cap = cap;
	}
	a->y[a->n++] = v;
}

static void
percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int type = sqlite3_value_numeric_type(argv[1]);
	double p = sqlite3_value_double(argv[1]);
	if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !(p >= 0.0) ||
	    p > 100.0) {
		sqlite3_result_error(ctx, "2nd argument to percentile() is not a "
		    "number between 0.0 and 100.0", -1);
		return;
	}
	percentile_add(ctx, p, argv[0]);
}

static void
median_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_add(ctx, 50.0, argv[0]);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
percentile_final(sqlite3_context *ctx)
{
	struct percentile *a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL)
		return;		/* no row: NULL */
	if (!a->failed && a->n > 0) {
		qsort(a->y, a->n, sizeof *a->y, cmp_double);
		double ix = (a->p1 - 1.0) * (double)(a->n - 1) * 0.01;
		size_t i = (size_t)ix;
		if (i >= a->n - 1)
			i = a->n - 1;
		double v = a->y[i];
		if (i + 1 < a->n && ix > (double)i)
			v += (a->y[i + 1] - v) * (ix - (double)i);
		sqlite3_result_double(ctx, v);
	}
	sqlite3_free(a->y);
	a->y = NULL;
}

/* ------------------------------------------------------ time.conversion */

/* time_from_X(v) = v * ns per X, time_to_X(ns) = ns / ns per X, with
 * SQLite's arithmetic, as Perfetto's module writes them in SQL: integers
 * stay integers (the division truncates; a product past 64 bits becomes
 * a real), reals stay reals, NULL gives NULL. */
struct time_unit {
	const char *from, *to;	/* the functions' names */
	int64_t ns;		/* nanoseconds in the unit */
};

static const struct time_unit time_units[] = {
	{ "time_from_ns", "time_to_ns", 1 },
	{ "time_from_us", "time_to_us", 1000 },
	{ "time_from_ms", "time_to_ms", 1000000 },
	{ "time_from_s", "time_to_s", 1000000000 },
	{ "time_from_min", "time_to_min", 60000000000 },
	{ "time_from_hours", "time_to_hours", 3600000000000 },
	{ "time_from_days", "time_to_days", 86400000000000 },
};

static void
time_apply(sqlite3_context *ctx, sqlite3_value *v, bool to)
{
	const struct time_unit *u = sqlite3_user_data(ctx);
	int type = sqlite3_value_numeric_type(v);
	if (type == SQLITE_NULL)
		return;
	if (type == SQLITE_FLOAT) {
		double d = sqlite3_value_double(v);
		sqlite3_result_double(ctx, to ? d / (double)u->ns :
		    d * (double)u->ns);
		return;
	}
	/* an integer, or text that is no number (SQLite reads its numeric
	 * prefix, 0 when none) */
	int64_t x = sqlite3_value_int64(v), r;
	if (to)
		sqlite3_result_int64(ctx, x / u->ns);
	else if (__builtin_mul_overflow(x, u->ns, &r))
		sqlite3_result_double(ctx, (double)x * (double)u->ns);
	else
		sqlite3_result_int64(ctx, r);
}

static void
time_from(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	time_apply(ctx, argv[0], false);
}

static void
time_to(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	time_apply(ctx, argv[0], true);
}

int
sql_time_functions_register(struct sql *s)
{
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC |
	    SQLITE_INNOCUOUS;
	for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++) {
		void *u = (void *)&time_units[i];
		int rc = sqlite3_create_function(s->db, time_units[i].from, 1,
		    flags, u, time_from, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_create_function(s->db, time_units[i].to,
			    1, flags, u, time_to, NULL, NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* ------------------------------------------------------------ register */

int
sql_funcs_register(struct sql *s)
{
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC |
	    SQLITE_INNOCUOUS;
	int rc = sqlite3_create_function(s->db, "regexp", 2, flags, NULL,
	    regexp_func, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(s->db, "regexp", 3, flags, NULL,
		    regexp_func, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(s->db, "percentile", 2, flags,
		    NULL, NULL, percentile_step, percentile_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(s->db, "median", 1, flags, NULL,
		    NULL, median_step, percentile_final);
	return rc;
}
