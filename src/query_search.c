/* Search (see query.h): every slice and instant whose function's name
 * or category, or one of whose string args, matches; and log records
 * whose text matches. Each track depth is already sorted, so the hits of
 * one list are sorted and the lists are merged by one sort of the
 * collected hits. The viewer's / and --search both run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "level.h"
#include "query.h"
#include "xalloc.h"

static int
cmp_hit(const void *a, const void *b)
{
	const struct search_hit *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->ref.track != y->ref.track)
		return x->ref.track < y->ref.track ? -1 : 1;
	if (x->ref.depth != y->ref.depth)
		return x->ref.depth < y->ref.depth ? -1 : 1;
	return x->ref.index < y->ref.index ? -1 : x->ref.index > y->ref.index;
}

/* Where the rows of interest begin (search_from). */
static ttv_ns
call_floor(const struct search_from *from, uint32_t ti)
{
	return from != NULL && from->call_end != NULL ? from->call_end[ti] :
	    TTV_NS_MIN;
}

static ttv_ns
instant_floor(const struct search_from *from, uint32_t ti)
{
	return from != NULL && from->instant != NULL ? from->instant[ti] :
	    TTV_NS_MIN;
}

/* The first call of a depth that ends at or after `floor` (the ends of a
 * depth are sorted as its starts are). */
static size_t
calls_from(const struct depth_level *l, ttv_ns floor)
{
	if (floor == TTV_NS_MIN)
		return 0;
	return level_first_ending_in(l, floor - 1, 0, l->len);
}

/* The first instant of a track at or after `floor`. */
static size_t
instants_from(const struct track *tr, ttv_ns floor)
{
	return floor == TTV_NS_MIN ? 0 : track_first_instant(tr, floor);
}

/* The first log record looked at. */
static size_t
logs_from(const struct trace *t, const struct search_from *from)
{
	if (from == NULL || from->logs > t->nlogs)
		return 0;
	return from->logs;
}

/* The first of a track's slice args (in depth, then index order) at
 * depth d and index idx or after. */
static size_t
sargs_from(const struct track *tr, uint32_t d, size_t idx)
{
	size_t lo = 0, hi = tr->nslice_args;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct slice_args *sa = &tr->slice_args[mid];
		if (sa->depth > d || (sa->depth == d && sa->index >= idx))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void
examined(struct search_from *from, size_t n)
{
	if (from != NULL)
		from->examined += n;
}

/* query_search from `from` on. */
static void
search_funcs(const struct trace *t, const struct filter *f,
    const uint8_t *match, struct search_from *from,
    struct search_hit **hits, size_t *n)
{
	VEC(struct search_hit) v = { 0 };
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		if (!filter_track(f, ti))
			continue;
		const struct track *tr = &t->tracks[ti];
		ttv_ns cf = call_floor(from, ti);
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			const struct depth_level *l = &tr->depth[d];
			size_t i0 = calls_from(l, cf);
			examined(from, l->len - i0);
			for (size_t i = i0; i < l->len; i++) {
				func_id fn = l->slices[i].func;
				if (match[fn] && filter_func(f, fn))
					VEC_PUSH(&v, ((struct search_hit){
					    l->slices[i].start,
					    { ti, d, (uint32_t)i } }));
			}
		}
		size_t i0 = instants_from(tr, instant_floor(from, ti));
		examined(from, tr->ninstants - i0);
		for (size_t i = i0; i < tr->ninstants; i++) {
			func_id fn = tr->instants[i].func;
			if (match[fn] && filter_func(f, fn))
				VEC_PUSH(&v, ((struct search_hit){
				    tr->instants[i].t,
				    { ti, SEARCH_INSTANT, (uint32_t)i } }));
		}
	}
	xqsort(v.items, v.len, sizeof *v.items, cmp_hit);
	*hits = v.items;
	*n = v.len;
}

void
query_search(const struct trace *t, const struct filter *f,
    const uint8_t *match, struct search_hit **hits, size_t *n)
{
	search_funcs(t, f, match, NULL, hits, n);
}

/* The first of track ti's slice args entries at or after k whose call
 * is of interest (`from`): the entries of a depth before its first call
 * of interest are skipped by a binary search. */
static size_t
sargs_next(const struct track *tr, ttv_ns floor, size_t k)
{
	if (floor == TTV_NS_MIN)
		return k;
	while (k < tr->nslice_args) {
		const struct slice_args *sa = &tr->slice_args[k];
		if (sa->depth >= tr->ndepth)
			return k;	/* the callers skip it */
		size_t i0 = calls_from(&tr->depth[sa->depth], floor);
		if (sa->index >= i0)
			return k;
		k = sargs_from(tr, sa->depth, i0);
	}
	return k;
}

/* Asks the string args of a run (empty strings never match). */
static void
ask_args(const struct trace *t, uint8_t *v, const struct arg *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].type == ARG_STR && a[i].v.s != 0)
			regex_ask(t, v, a[i].v.s);
}

int
query_search_match(const struct trace *t, struct regex *re,
    struct search_match *m)
{
	return query_search_match_from(t, re, NULL, m);
}

int
query_search_match_from(const struct trace *t, struct regex *re,
    struct search_from *from, struct search_match *m)
{
	uint8_t *v = regex_verdicts_new(t);
	const struct arg *a;
	size_t n;

	memset(m, 0, sizeof *m);
	/* Every string a search may look at, on every track (the verdicts
	 * outlive the filters), asked at once: one budget for them all. */
	regex_ask_funcs(t, v, true);
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		ttv_ns cf = call_floor(from, ti);
		for (size_t k = sargs_next(tr, cf, 0); k < tr->nslice_args;
		    k = sargs_next(tr, cf, k + 1)) {
			a = trace_args(t, tr->slice_args[k].args, &n);
			ask_args(t, v, a, n);
		}
		for (size_t i = instants_from(tr, instant_floor(from, ti));
		    i < tr->ninstants; i++) {
			a = trace_args(t, tr->instants[i].args, &n);
			ask_args(t, v, a, n);
		}
	}
	for (size_t i = logs_from(t, from); i < t->nlogs; i++)
		regex_ask(t, v, t->logs[i].text);
	if (regex_match_strings(re, t, v) != 0) {
		free(v);
		return -1;
	}
	m->str = v;
	m->func = regex_funcs_from(t, v, true);
	return 0;
}

void
search_match_free(struct search_match *m)
{
	free(m->func);
	free(m->str);
	memset(m, 0, sizeof *m);
}

static bool
str_yes(const struct trace *t, const struct search_match *m, str_id s)
{
	return s != 0 && s < t->nstrings && m->str[s] == REGEX_YES;
}

/* The first string arg of the run that matches, or NULL. */
static const struct arg *
arg_matching(const struct trace *t, const struct arg *a, size_t n,
    const struct search_match *m)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].type == ARG_STR && str_yes(t, m, a[i].v.s))
			return &a[i];
	return NULL;
}

/* Slices and instants whose own function does not match but a string
 * arg does: added to the hits, which stay in time order. */
static void
search_args(const struct trace *t, const struct filter *f,
    const struct search_match *m, struct search_from *from,
    struct search_hit **hits, size_t *nhits)
{
	VEC(struct search_hit) more = { 0 };
	const uint8_t *match = m->func;

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (!filter_track(f, ti))
			continue;
		ttv_ns cf = call_floor(from, ti);
		for (size_t k = sargs_next(tr, cf, 0); k < tr->nslice_args;
		    k = sargs_next(tr, cf, k + 1)) {
			const struct slice_args *sa = &tr->slice_args[k];
			struct slice_ref r = { ti, sa->depth, sa->index };
			const struct slice *s;
			const struct arg *a;
			size_t n;
			examined(from, 1);
			if (sa->depth >= tr->ndepth ||
			    sa->index >= tr->depth[sa->depth].len)
				continue;
			s = trace_slice(t, r);
			if (match[s->func] || !filter_func(f, s->func))
				continue;
			a = trace_args(t, sa->args, &n);
			if (arg_matching(t, a, n, m) != NULL)
				VEC_PUSH(&more, ((struct search_hit){
				    s->start, r }));
		}
		for (size_t i = instants_from(tr, instant_floor(from, ti));
		    i < tr->ninstants; i++) {
			const struct instant *in = &tr->instants[i];
			const struct arg *a;
			size_t n;
			if (in->args == 0 || match[in->func] ||
			    !filter_func(f, in->func))
				continue;
			a = trace_args(t, in->args, &n);
			if (arg_matching(t, a, n, m) != NULL)
				VEC_PUSH(&more, ((struct search_hit){ in->t,
				    { ti, SEARCH_INSTANT, (uint32_t)i } }));
		}
	}
	if (more.len == 0)
		return;
	*hits = xreallocarray(*hits, *nhits + more.len, sizeof **hits);
	memcpy(*hits + *nhits, more.items, more.len * sizeof *more.items);
	*nhits += more.len;
	VEC_FREE(&more);
	xqsort(*hits, *nhits, sizeof **hits, cmp_hit);
}

void
query_search_all(const struct trace *t, const struct filter *f,
    const struct search_match *m, struct search_result *out)
{
	query_search_all_from(t, f, m, NULL, out);
}

void
query_search_all_from(const struct trace *t, const struct filter *f,
    const struct search_match *m, struct search_from *from,
    struct search_result *out)
{
	memset(out, 0, sizeof *out);
	search_funcs(t, f, m->func, from, &out->hits, &out->nhits);
	if (m->str == NULL)
		return;
	search_args(t, f, m, from, &out->hits, &out->nhits);
	/* Log records of shown tracks (or of none) whose text matches. */
	out->log_match = xcalloc(t->nlogs ? t->nlogs : 1, 1);
	out->log_from = logs_from(t, from);
	examined(from, t->nlogs - out->log_from);
	for (size_t i = out->log_from; i < t->nlogs; i++) {
		str_id s = t->logs[i].text;
		uint32_t tr = t->logs[i].track;
		if (tr < t->ntracks && !filter_track(f, tr))
			continue;
		/* An empty text is asked too: ^$ finds it. */
		if (s < t->nstrings && m->str[s] == REGEX_YES) {
			out->log_match[i] = 1;
			out->nlog_matches++;
		}
	}
}

void
search_result_free(struct search_result *r)
{
	free(r->hits);
	free(r->log_match);
	memset(r, 0, sizeof *r);
}

static int
cmp_row(const void *a, const void *b)
{
	const struct search_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

size_t
query_search_rows(const struct trace *t, const struct search_hit *hits,
    size_t nhits, struct search_row **rows)
{
	struct search_row *per = xcalloc(t->nfuncs ? t->nfuncs : 1,
	    sizeof *per);
	size_t n = 0;

	for (size_t i = 0; i < nhits; i++) {
		const struct search_hit *h = &hits[i];
		func_id f;
		if (h->ref.depth == SEARCH_INSTANT)
			f = t->tracks[h->ref.track].instants[h->ref.index].func;
		else {
			f = trace_slice(t, h->ref)->func;
			per[f].total += trace_slice_dur(t, h->ref);
		}
		per[f].func = f;
		per[f].count++;
	}
	*rows = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof **rows);
	for (uint32_t f = 0; f < t->nfuncs; f++)
		if (per[f].count > 0)
			(*rows)[n++] = per[f];
	free(per);
	xqsort(*rows, n, sizeof **rows, cmp_row);
	return n;
}

const char *
query_search_where(const struct trace *t, const struct search_match *m,
    const struct search_hit *h, char *buf, size_t size)
{
	func_id fn;
	const struct arg *a;
	size_t n;

	if (h->ref.depth == SEARCH_INSTANT) {
		const struct instant *in =
		    &t->tracks[h->ref.track].instants[h->ref.index];
		fn = in->func;
		a = trace_args(t, in->args, &n);
	} else {
		fn = trace_slice(t, h->ref)->func;
		a = trace_slice_args(t, h->ref, &n);
	}
	if (m->str == NULL || fn >= t->nfuncs)
		return "name";
	str_id name = t->funcs[fn].name;
	if (name < t->nstrings && m->str[name] == REGEX_YES)
		return "name";
	if (str_yes(t, m, t->funcs[fn].category))
		return "category";
	const struct arg *hit = arg_matching(t, a, n, m);
	if (hit != NULL) {
		snprintf(buf, size, "arg %s", trace_str(t, hit->name));
		return buf;
	}
	return "name";
}
