/*
 * pcre2 patterns for --function, --hide, --calls, --search, --match-strip,
 * SQL's REGEXP and the viewer's /, f and F (see query.h). Every compile and every match of the
 * program goes through here, so every match is held to one budget:
 *
 * - a trace's strings are interned, so a pattern is matched against each
 *   distinct string once (by str_id) and its verdict kept;
 * - PCRE2's match limit for one string is the budget's steps shared out
 *   among the strings asked (within [REGEX_LIMIT_MIN, REGEX_LIMIT_MAX]):
 *   however the pattern backtracks, all the strings together take at most
 *   the budget's steps (a tenth as many without JIT, ten times slower a
 *   step); the heap and the JIT stack are bounded too;
 * - a match error of any kind (a limit hit) ends the work: the answer
 *   would be wrong, so it is not given, and regex_error() says which
 *   limit was hit on which string;
 * - the thread's CPU clock and a stop flag are looked at between
 *   strings: work that PCRE2 does not count as steps (rescans of long
 *   strings) still ends within the budget's seconds, and another thread
 *   can stop it (Esc).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env.h"
#include "query.h"
#include "xalloc.h"

/* Bounded, as everything a trace can make ttv do: 16 MiB of heap for the
 * interpreter's backtracking (PCRE2's default is 20 GB). The JIT keeps
 * its default stack of 32 KiB: a bigger one only lets a pattern such as
 * (?:\w)+x spend seconds on one long string before it fails, in work
 * that PCRE2 does not count as steps. */
#define HEAP_LIMIT_KIB 16384

struct regex {
	char *pattern;			/* for messages */
	pcre2_code *code;
	pcre2_match_data *match;
	pcre2_match_context *ctx;
	bool jit;
	uint32_t limit;			/* the match limit set in ctx */
	struct regex_budget budget;
	char *error;			/* why the last match failed */
};

static void
set_limit(struct regex *r, uint32_t limit)
{
	if (limit == r->limit)
		return;
	r->limit = limit;
	pcre2_set_match_limit(r->ctx, limit);
	pcre2_set_depth_limit(r->ctx, limit);
}

static struct regex *
compile(const char *pattern, uint32_t extra, char **err)
{
	int code;
	PCRE2_SIZE at;
	/* UTF mode when the pattern is valid UTF-8, so that "." matches a
	 * whole character in names; byte mode otherwise. */
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | extra;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern,
	    PCRE2_ZERO_TERMINATED, opts, &code, &at, NULL);
	if (re == NULL && code <= PCRE2_ERROR_UTF8_ERR1 &&
	    code >= PCRE2_ERROR_UTF8_ERR21)
		re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
		    extra, &code, &at, NULL);
	if (re == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		*err = xasprintf("%s at column %zu", (char *)msg,
		    (size_t)at + 1);
		return NULL;
	}
	struct regex *r = xcalloc(1, sizeof *r);
	size_t jit_size = 0;
	r->pattern = xstrdup(pattern);
	r->code = re;
	/* A pattern may say (*NO_JIT); JIT may be unavailable: then the
	 * interpreter, and the budget takes it into account. */
	if (pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0 &&
	    pcre2_pattern_info(re, PCRE2_INFO_JITSIZE, &jit_size) == 0 &&
	    jit_size > 0)
		r->jit = true;
	r->match = pcre2_match_data_create_from_pattern(re, NULL);
	r->ctx = pcre2_match_context_create(NULL);
	if (r->match == NULL || r->ctx == NULL) {
		regex_free(r);
		*err = xstrdup("out of memory");
		return NULL;
	}
	pcre2_set_heap_limit(r->ctx, HEAP_LIMIT_KIB);
	regex_budget_default(&r->budget);
	set_limit(r, REGEX_LIMIT_MAX);
	return r;
}

struct regex *
regex_compile(const char *pattern, char **err)
{
	return compile(pattern, 0, err);
}

bool
regex_smart_caseless(const char *pattern)
{
	for (const char *p = pattern; *p != '\0'; p++) {
		/* \S, \W, \D... are classes, not letters typed. */
		if (*p == '\\' && p[1] != '\0') {
			p++;
			continue;
		}
		if (*p >= 'A' && *p <= 'Z')
			return false;
	}
	return true;
}

struct regex *
regex_compile_search(const char *pattern, char **err)
{
	return compile(pattern, regex_smart_caseless(pattern) ?
	    PCRE2_CASELESS : 0, err);
}

void
regex_free(struct regex *re)
{
	if (re == NULL)
		return;
	pcre2_match_data_free(re->match);
	pcre2_match_context_free(re->ctx);
	pcre2_code_free(re->code);
	free(re->pattern);
	free(re->error);
	free(re);
}

bool
regex_jit(const struct regex *re)
{
	return re->jit;
}

/* ------------------------------------------------------------- budget */

void
regex_budget_default(struct regex_budget *b)
{
	const char *e = ttv_getenv(TTV_ENV_REGEX_SECONDS);

	memset(b, 0, sizeof *b);
	b->steps = REGEX_STEPS;
	b->seconds = REGEX_SECONDS;
	if (e != NULL && strtod(e, NULL) > 0)
		b->seconds = strtod(e, NULL);
}

void
regex_set_budget(struct regex *re, const struct regex_budget *b)
{
	re->budget = *b;
}

const char *
regex_error(const struct regex *re)
{
	return re->error != NULL ? re->error : "no error";
}

static void
fail(struct regex *re, char *why)
{
	free(re->error);
	re->error = why;
}

/* The match limit of one string when n are asked: the steps shared out,
 * within the floor that any sane pattern needs and PCRE2's default. */
static uint32_t
limit_for(const struct regex *re, size_t n)
{
	uint64_t steps = re->budget.steps;
	uint64_t l;

	if (!re->jit)
		steps /= 10;
	l = n > 0 ? steps / n : steps;
	if (!re->budget.quick && l < REGEX_LIMIT_MIN)
		l = REGEX_LIMIT_MIN;
	if (l > REGEX_LIMIT_MAX)
		l = REGEX_LIMIT_MAX;
	return l > 0 ? (uint32_t)l : 1;
}

/* Why PCRE2 gave up on string `which` of n, as a message. */
static char *
why(const struct regex *re, int rc, size_t which, size_t n)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
	case PCRE2_ERROR_DEPTHLIMIT:
		return xasprintf("regex '%s' too costly: %s limit of %lu%s "
		    "hit on string %zu of %zu (the budget of %llu steps "
		    "shared among them%s)", re->pattern,
		    rc == PCRE2_ERROR_MATCHLIMIT ? "match" : "depth",
		    (unsigned long)re->limit,
		    rc == PCRE2_ERROR_MATCHLIMIT ? " steps" : "", which, n,
		    (unsigned long long)(re->jit ? re->budget.steps :
		    re->budget.steps / 10), re->jit ? "" : ", without JIT");
	case PCRE2_ERROR_HEAPLIMIT:
		return xasprintf("regex '%s' too costly: heap limit of %d MiB "
		    "hit on string %zu of %zu", re->pattern,
		    HEAP_LIMIT_KIB / 1024, which, n);
	case PCRE2_ERROR_JIT_STACKLIMIT:
		return xasprintf("regex '%s' too costly: JIT stack limit of "
		    "32 KiB hit on string %zu of %zu", re->pattern, which, n);
	default: {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(rc, msg, sizeof msg);
		return xasprintf("regex '%s': match error on string %zu of "
		    "%zu: %s", re->pattern, which, n, (char *)msg);
	}
	}
}

int
regex_match(struct regex *re, const char *s, size_t len)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, re->match,
	    re->ctx);

	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	fail(re, why(re, rc, 1, 1));
	return -1;
}

/* The time this thread has worked: the budget is of the work done, not
 * of the time other programs took on a busy machine. */
static double
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Appends s[0..n) to the growing buffer *buf (*len used, *cap held). */
static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* cut_string's "out of CPU time", apart from PCRE2's codes (all > -100). */
#define CUT_OUT_OF_TIME (-100000)

/* The length of the character at s[at] (UTF-8; a stray byte is one). */
static size_t
char_len(const char *s, size_t len, size_t at)
{
	size_t k = at + 1;
	while (k < len && ((unsigned char)s[k] & 0xc0) == 0x80 && k - at < 4)
		k++;
	return k - at;
}

/* str with every match of re cut out, into *cut (NULL when nothing
 * matched). Each search is one pcre2_match under the string's limit; a
 * string has at most one search per character (an empty match steps over
 * one), and the CPU time is looked at between them. Returns 1 (a match),
 * PCRE2_ERROR_NOMATCH, a PCRE2 error code or CUT_OUT_OF_TIME, after which
 * *cut is NULL. */
static int
cut_string(struct regex *re, const char *str, size_t len, double start,
    char **cut)
{
	const struct regex_budget *b = &re->budget;
	size_t at = 0, from = 0, n = 0, cap = 0;
	char *buf = NULL;
	int rc;

	*cut = NULL;
	while ((rc = pcre2_match(re->code, (PCRE2_SPTR)str, len, from, 0,
	    re->match, re->ctx)) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->match);
		/* \K in a lookahead can put a match's start after its end,
		 * or before where the last one ended: kept within bounds */
		size_t ms = ov[0] < at ? at : ov[0] > len ? len : ov[0];
		size_t me = ov[1] < ms ? ms : ov[1] > len ? len : ov[1];
		append(&buf, &n, &cap, str + at, ms - at);
		at = me;
		if (me == ms) {
			/* an empty match: the next search starts a character
			 * further, the character kept */
			if (me >= len)
				break;
			size_t k = char_len(str, len, me);
			append(&buf, &n, &cap, str + me, k);
			at = me + k;
		}
		from = at;
		if (b->seconds > 0 && now() - start > b->seconds) {
			free(buf);
			return CUT_OUT_OF_TIME;
		}
	}
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
		free(buf);
		return rc;
	}
	if (buf == NULL)
		return PCRE2_ERROR_NOMATCH;
	append(&buf, &n, &cap, str + at, len - at);
	*cut = buf;
	return 1;
}

/* The walk of regex_match_strings and regex_cut_strings: with cut NULL,
 * one match a string; else every match cut out. */
static int
match_strings(struct regex *re, const struct trace *t, uint8_t *v,
    char **cut)
{
	const struct regex_budget *b = &re->budget;
	size_t n = 0, bytes = 0, done = 0;

	for (uint32_t s = 0; s < t->nstrings; s++) {
		if (v[s] != REGEX_ASK)
			continue;
		size_t len = strlen(trace_str(t, s));
		n++;
		bytes += len;
		if (b->max_len > 0 && len > b->max_len) {
			fail(re, xasprintf("regex '%s': a string of %zu bytes, "
			    "more than %zu", re->pattern, len, b->max_len));
			return -1;
		}
	}
	if (b->max_bytes > 0 && bytes > b->max_bytes) {
		fail(re, xasprintf("regex '%s': %zu bytes to match, more than "
		    "%zu", re->pattern, bytes, b->max_bytes));
		return -1;
	}
	set_limit(re, limit_for(re, n));
	double start = b->seconds > 0 ? now() : 0;
	for (uint32_t s = 0; s < t->nstrings; s++) {
		if (v[s] != REGEX_ASK)
			continue;
		const char *str = trace_str(t, s);
		int rc = cut != NULL ? cut_string(re, str, strlen(str), start,
		    &cut[s]) : pcre2_match(re->code, (PCRE2_SPTR)str,
		    strlen(str), 0, 0, re->match, re->ctx);
		done++;
		if (rc >= 0)
			v[s] = REGEX_YES;
		else if (rc == PCRE2_ERROR_NOMATCH)
			v[s] = REGEX_NO;
		else if (rc == CUT_OUT_OF_TIME) {
			fail(re, xasprintf("regex '%s' too costly: stopped "
			    "after %g s of work, at string %zu of %zu",
			    re->pattern, b->seconds, done, n));
			return -1;
		} else {
			fail(re, why(re, rc, done, n));
			return -1;
		}
		if (b->stop != NULL && atomic_load(b->stop)) {
			fail(re, xasprintf("regex '%s': stopped at string %zu "
			    "of %zu", re->pattern, done, n));
			return -1;
		}
		if (b->seconds > 0 && done < n && now() - start > b->seconds) {
			fail(re, xasprintf("regex '%s' too costly: stopped "
			    "after %g s of work, at string %zu of %zu",
			    re->pattern, b->seconds, done, n));
			return -1;
		}
	}
	return 0;
}

int
regex_match_strings(struct regex *re, const struct trace *t, uint8_t *v)
{
	return match_strings(re, t, v, NULL);
}

int
regex_cut_strings(struct regex *re, const struct trace *t, uint8_t *v,
    char **cut)
{
	int rc = match_strings(re, t, v, cut);
	if (rc != 0)
		for (uint32_t s = 0; s < t->nstrings; s++) {
			free(cut[s]);
			cut[s] = NULL;
		}
	return rc;
}

uint8_t *
regex_verdicts_new(const struct trace *t)
{
	return xcalloc(t->nstrings ? t->nstrings : 1, 1);
}

uint8_t *
regex_funcs_from(const struct trace *t, const uint8_t *v, bool categories)
{
	uint8_t *m = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);

	for (uint32_t f = 0; f < t->nfuncs; f++) {
		const struct func *fn = &t->funcs[f];
		m[f] = (fn->name < t->nstrings && v[fn->name] == REGEX_YES) ||
		    (categories && fn->category != 0 &&
		    fn->category < t->nstrings &&
		    v[fn->category] == REGEX_YES);
	}
	return m;
}

void
regex_ask_funcs(const struct trace *t, uint8_t *v, bool categories)
{
	for (uint32_t f = 0; f < t->nfuncs; f++) {
		regex_ask(t, v, t->funcs[f].name);
		/* An empty category is no category: it never matches. */
		if (categories && t->funcs[f].category != 0)
			regex_ask(t, v, t->funcs[f].category);
	}
}

/* One byte per function from fresh verdicts over its name (and
 * category); NULL when the budget ran out. */
static uint8_t *
match_funcs(const struct trace *t, struct regex *re, bool categories)
{
	uint8_t *v = regex_verdicts_new(t);
	uint8_t *m = NULL;

	regex_ask_funcs(t, v, categories);
	if (regex_match_strings(re, t, v) == 0)
		m = regex_funcs_from(t, v, categories);
	free(v);
	return m;
}

uint8_t *
regex_match_funcs(const struct trace *t, struct regex *re)
{
	return match_funcs(t, re, false);
}

uint8_t *
regex_match_funcs_or_categories(const struct trace *t, struct regex *re)
{
	return match_funcs(t, re, true);
}
