/* The user's scope, checked once and applied to each trace (scope.h). */
#include <stdlib.h>
#include <string.h>

#include "scope.h"
#include "xalloc.h"

int
scope_check(struct scope *s, char **err)
{
	const char *pattern = s->function ? s->function : s->hide;

	*err = NULL;
	if (s->range != NULL && range_parse(s->range, &s->spec, err) != 0)
		return -1;
	if (s->range_base != NULL && range_parse(s->range_base,
	    &s->spec_base, err) != 0)
		return -1;
	if (s->threads != NULL && filter_parse_tids(s->threads, &s->tids,
	    &s->ntids, err) != 0)
		return -1;
	if (pattern != NULL) {
		char *why = NULL;
		s->re = regex_compile(pattern, &why);
		if (s->re == NULL) {
			*err = xasprintf("bad regex '%s': %s", pattern, why);
			free(why);
			return -1;
		}
	}
	return 0;
}

void
scope_free(struct scope *s)
{
	free(s->tids);
	s->tids = NULL;
	s->ntids = 0;
	regex_free(s->re);
	s->re = NULL;
}

bool
scope_filters(const struct scope *s)
{
	return s->threads != NULL || s->function != NULL || s->hide != NULL;
}

void
selection_init(struct selection *sel)
{
	filter_init(&sel->f);
	sel->ranged = false;
	sel->t0 = TTV_NS_MIN;
	sel->t1 = TTV_NS_MAX;
}

void
selection_clear(struct selection *sel)
{
	filter_clear(&sel->f);
}

/* Tids of the list that no thread of the trace has, as "7, 99999". */
static char *
missing_threads(const struct trace *t, const int64_t *tids, size_t n)
{
	char *out = NULL;

	for (size_t j = 0; j < n; j++) {
		bool found = false;
		for (uint32_t i = 0; i < t->ntracks && !found; i++)
			found = t->tracks[i].kind == TRACK_THREAD &&
			    t->tracks[i].tid == tids[j];
		if (found)
			continue;
		char *next = xasprintf("%s%s%lld", out ? out : "",
		    out ? ", " : "", (long long)tids[j]);
		free(out);
		out = next;
	}
	return out;
}

int
scope_filter(const struct scope *s, const struct trace *t, bool threads,
    struct selection *sel, char **err)
{
	*err = NULL;
	if (threads && s->threads != NULL) {
		char *missing = missing_threads(t, s->tids, s->ntids);
		if (missing != NULL) {
			*err = xasprintf("no thread with tid %s in this trace "
			    "(--info lists them)", missing);
			free(missing);
			return SCOPE_NO_THREAD;
		}
		filter_set_threads(&sel->f, t, s->tids, s->ntids, false);
	}
	/* Not applied, and not silently: --hide would show what it hides. */
	if (s->re != NULL && filter_set_functions(&sel->f, t, s->re,
	    s->hide != NULL) != 0) {
		*err = xasprintf("%s %s", s->hide != NULL ? "--hide" :
		    "--function", regex_error(s->re));
		return SCOPE_UNDECIDED;
	}
	return 0;
}

int
scope_range(const struct scope *s, const struct trace *t, bool base,
    struct selection *sel, char **err, char **warn)
{
	const struct range_spec *spec = base && s->range_base != NULL ?
	    &s->spec_base : s->range != NULL ? &s->spec : NULL;

	*warn = NULL;
	sel->ranged = spec != NULL;
	sel->t0 = TTV_NS_MIN;
	sel->t1 = TTV_NS_MAX;
	if (spec == NULL)
		return 0;
	/* no cursor here: a side from the cursor (>T) is refused */
	if (range_resolve(t, spec, NULL, &sel->t0, &sel->t1, err) != 0)
		return -1;
	*warn = range_outside(t, sel->t0, sel->t1);
	return 0;
}
