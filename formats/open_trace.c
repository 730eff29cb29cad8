/* One road from options to a loaded, filtered trace (see open_trace.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "load.h"
#include "open_index.h"
#include "open_trace.h"
#include "xalloc.h"

int
open_trace_check(const struct open_options *o, char **err)
{
	int64_t *tids = NULL;
	size_t ntids = 0;
	const char *pattern = o->function ? o->function : o->hide;

	*err = NULL;
	if (o->function != NULL && o->hide != NULL) {
		*err = xstrdup("--function and --hide do not go together");
		return TTV_EXIT_USAGE;
	}
	if (o->threads != NULL && filter_parse_tids(o->threads, &tids, &ntids,
	    err) != 0)
		return TTV_EXIT_USAGE;
	free(tids);
	if (pattern != NULL) {
		char *why = NULL;
		struct regex *re = regex_compile(pattern, &why);
		if (re == NULL) {
			*err = xasprintf("bad regex '%s': %s", pattern, why);
			free(why);
			return TTV_EXIT_USAGE;
		}
		regex_free(re);
	}
	return TTV_EXIT_OK;
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
open_trace(const char *path, const struct open_options *o,
    struct trace **tp, struct filter *f, char **err)
{
	int64_t *tids = NULL;
	size_t ntids = 0;
	struct regex *re = NULL;
	const char *pattern = o->function ? o->function : o->hide;
	int rc;

	*tp = NULL;
	filter_init(f);
	if ((rc = open_trace_check(o, err)) != TTV_EXIT_OK)
		return rc;
	struct trace *t = open_index_load(path, o, err);
	if (t == NULL)
		return TTV_EXIT_BAD_INPUT;
	*tp = t;
	if (o->load.strict && t->has_errors) {
		*err = xstrdup("stopped at the first damage (--strict)");
		return TTV_EXIT_BAD_INPUT;
	}
	if (o->threads != NULL) {
		filter_parse_tids(o->threads, &tids, &ntids, err);
		char *missing = missing_threads(t, tids, ntids);
		if (missing != NULL) {
			*err = xasprintf("no thread with tid %s in this trace "
			    "(--info lists them)", missing);
			free(missing);
			free(tids);
			return TTV_EXIT_BAD_INPUT;
		}
		filter_set_threads(f, t, tids, ntids, false);
		free(tids);
	}
	if (pattern != NULL) {
		char *why = NULL;
		re = regex_compile(pattern, &why);
		free(why);
		/* A filter the regex budget cannot decide is not applied,
		 * and not silently: --hide would show what it hides. */
		if (re != NULL && filter_set_functions(f, t, re,
		    o->hide != NULL) != 0) {
			*err = xasprintf("%s %s", o->hide != NULL ? "--hide" :
			    "--function", regex_error(re));
			regex_free(re);
			return TTV_EXIT_USAGE;
		}
		regex_free(re);
	}
	return TTV_EXIT_OK;
}

void
open_trace_report(const struct trace *t, const char *path, size_t max,
    FILE *fp)
{
	size_t shown = 0;

	for (size_t i = 0; i < t->ndiags && shown < max; i++) {
		fputs("ttv: ", fp);
		escape_fputs(path, fp);
		fputs(t->diags[i].level == DIAG_ERROR ? ": " : ": warning: ",
		    fp);
		escape_fputs(t->diags[i].text, fp);
		putc('\n', fp);
		shown++;
	}
	uint64_t more = t->ndiags - shown + t->ndiags_dropped;
	if (more > 0)
		fprintf(fp, "ttv: %llu more messages (see --info)\n",
		    (unsigned long long)more);
}
