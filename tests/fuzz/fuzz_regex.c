/*
 * libFuzzer target for the regex paths (src/regex.c and the filters and
 * searches over it): the first line of the input is the pattern, each
 * further line a string, made in turn a function name, a category, a
 * string argument and a log text of a small trace. The pattern then goes
 * through what --function, --hide, --calls, --search and the viewer's /
 * run, under a small budget (so that costly patterns take milliseconds
 * and the error paths are walked too) and a quick one; every verdict
 * kept is checked against a match of the string on its own.
 *
 *   make fuzz && tests/fuzz/fuzz_regex -max_total_time=300
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trace *
make_trace(const char *p, const char *end)
{
	struct builder *b = builder_new("fuzz");
	uint32_t tr = builder_track(b, TRACK_THREAD, builder_process(b, 1), 1);
	func_id tick = builder_func(b, builder_intern_cstr(b, "tick"), 0, -1);
	str_id last = 0;
	ttv_ns t = 0;

	for (unsigned i = 0; p < end && i < 64; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		str_id s = builder_intern(b, p, len);
		func_id f;
		switch (i % 4) {
		case 0:		/* a name */
			f = builder_func(b, s, 0, -1);
			builder_slice(b, tr, 0, t, 5, f, 0, 0);
			break;
		case 1:		/* a category of the last name */
			f = builder_func(b, last, s, -1);
			builder_slice(b, tr, 0, t, 5, f, 0, 0);
			break;
		case 2:		/* a string argument */
			builder_args_begin(b);
			builder_arg_str(b, builder_intern_cstr(b, "k"), s);
			builder_instant(b, tr, t, tick, builder_args_end(b));
			break;
		default:	/* a log text */
			builder_log(b, tr, t, s);
			break;
		}
		last = s;
		t += 10;
		p += len + (nl != NULL);
	}
	return builder_finish(b);
}

/* What one string on its own says, or -1 when PCRE2 gives up on it. */
static int
alone(struct regex *re, const struct trace *t, str_id s)
{
	const char *str = trace_str(t, s);

	return regex_match(re, str, strlen(str));
}

static void
check_search(struct regex *re, const struct trace *t)
{
	struct search_match m;
	struct search_result res;
	char buf[64];

	if (query_search_match(t, re, &m) != 0) {
		/* no answer: nothing half made, a message */
		if (m.func != NULL || m.str != NULL || regex_error(re)[0] == 0)
			abort();
		return;
	}
	for (str_id s = 0; s < t->nstrings; s++) {
		if (m.str[s] == REGEX_UNASKED)
			continue;
		if (m.str[s] != REGEX_YES && m.str[s] != REGEX_NO)
			abort();
		int one = alone(re, t, s);
		if (one >= 0 && one != (m.str[s] == REGEX_YES))
			abort();
	}
	query_search_all(t, NULL, &m, &res);
	for (size_t i = 0; i < res.nhits; i++)
		if (query_search_where(t, &m, &res.hits[i], buf,
		    sizeof buf) == NULL)
			abort();
	struct search_row *rows;
	query_search_rows(t, res.hits, res.nhits, &rows);
	free(rows);
	search_result_free(&res);
	search_match_free(&m);
}

static void
check_filter(struct regex *re, const struct trace *t)
{
	struct filter f;
	uint8_t *names = regex_match_funcs(t, re);

	filter_init(&f);
	if (filter_set_functions(&f, t, re, true) == 0) {
		for (func_id fn = 0; fn < t->nfuncs; fn++) {
			int one = alone(re, t, t->funcs[fn].name);
			if (one == 1 && filter_func(&f, fn))
				abort();	/* hidden by its name */
			if (names != NULL && one >= 0 && names[fn] != one)
				abort();
		}
	} else if (f.func_on != NULL)
		abort();	/* a filter not decided is not applied */
	filter_clear(&f);
	free(names);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	const char *nl = memchr(p, '\n', size);
	size_t plen = nl != NULL ? (size_t)(nl - p) : size;
	char *pattern;
	char *err = NULL;

	if (plen > 256 || memchr(p, '\0', plen) != NULL)
		return 0;
	pattern = strndup(p, plen);
	if (pattern == NULL)
		return 0;
	struct trace *t = make_trace(nl != NULL ? nl + 1 : end, end);
	for (int search = 0; search < 2; search++) {
		struct regex *re = search ? regex_compile_search(pattern,
		    &err) : regex_compile(pattern, &err);
		if (re == NULL) {
			free(err);
			err = NULL;
			continue;
		}
		/* A small budget (10^6 steps, 0.2 s) and a quick one. */
		struct regex_budget b;
		regex_budget_default(&b);
		b.steps = 1000000;
		b.seconds = 0.2;
		regex_set_budget(re, &b);
		check_filter(re, t);
		check_search(re, t);
		b.quick = true;
		b.steps = 1000;
		b.max_len = 64;
		b.max_bytes = 512;
		regex_set_budget(re, &b);
		check_filter(re, t);
		check_search(re, t);
		regex_free(re);
	}
	trace_free(t);
	free(pattern);
	return 0;
}
