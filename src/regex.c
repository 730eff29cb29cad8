/* pcre2 patterns for --function, search and filters (see query.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "xalloc.h"

struct regex {
	pcre2_code *code;
	pcre2_match_data *match;
};

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
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	struct regex *r = xcalloc(1, sizeof *r);
	r->code = re;
	r->match = pcre2_match_data_create_from_pattern(re, NULL);
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

bool
regex_match(const struct regex *re, const char *s, size_t len)
{
	return pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, re->match,
	    NULL) >= 0;
}

void
regex_free(struct regex *re)
{
	if (re == NULL)
		return;
	pcre2_match_data_free(re->match);
	pcre2_code_free(re->code);
	free(re);
}

uint8_t *
regex_match_funcs(const struct trace *t, const struct regex *re)
{
	uint8_t *m = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);
	for (uint32_t f = 0; f < t->nfuncs; f++) {
		const char *name = trace_func_name(t, f);
		m[f] = regex_match(re, name, strlen(name));
	}
	return m;
}
