/* Track and function filters shared by every pane and batch mode. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "xalloc.h"

void
filter_init(struct filter *f)
{
	memset(f, 0, sizeof *f);
}

void
filter_clear(struct filter *f)
{
	free(f->track_on);
	free(f->func_on);
	memset(f, 0, sizeof *f);
}

void
filter_set_threads(struct filter *f, const struct trace *t,
    const int64_t *tids, size_t n, bool invert)
{
	free(f->track_on);
	f->track_on = NULL;
	if (tids == NULL)
		return;
	f->track_on = xcalloc(t->ntracks ? t->ntracks : 1, 1);
	uint8_t *kept_process = xcalloc(t->nprocesses ? t->nprocesses : 1, 1);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (tr->kind != TRACK_THREAD)
			continue;
		bool listed = false;
		for (size_t j = 0; j < n; j++)
			if (tids[j] == tr->tid)
				listed = true;
		f->track_on[i] = listed != invert;
		if (f->track_on[i])
			kept_process[tr->process] = 1;
	}
	/* Async and counter tracks go with their process; CPU lanes stay. */
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (tr->kind == TRACK_ASYNC || tr->kind == TRACK_COUNTER)
			f->track_on[i] = kept_process[tr->process];
		else if (tr->kind == TRACK_CPU)
			f->track_on[i] = 1;
	}
	free(kept_process);
}

void
filter_set_function_mask(struct filter *f, const struct trace *t,
    uint8_t *match, bool hide)
{
	free(f->func_on);
	f->func_on = match;
	f->hide_functions = match != NULL && hide;
	if (f->hide_functions)
		for (uint32_t i = 0; i < t->nfuncs; i++)
			f->func_on[i] = !f->func_on[i];
}

int
filter_set_functions(struct filter *f, const struct trace *t,
    struct regex *re, bool hide)
{
	if (re == NULL) {
		filter_set_function_mask(f, t, NULL, false);
		return 0;
	}
	/* A function's category counts like its name, in the viewer and in
	 * every batch mode alike. */
	uint8_t *m = regex_match_funcs_or_categories(t, re);
	if (m == NULL)
		return -1;
	filter_set_function_mask(f, t, m, hide);
	return 0;
}

int
filter_parse_tids(const char *list, int64_t **tids, size_t *n, char **err)
{
	*tids = NULL;
	*n = 0;
	const char *p = list;
	for (;;) {
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 0);
		if (end == p || errno != 0 || (*end != ',' && *end != '\0')) {
			*err = xasprintf("bad thread id list '%s' (want "
			    "TID[,TID...])", list);
			free(*tids);
			*tids = NULL;
			*n = 0;
			return -1;
		}
		*tids = xreallocarray(*tids, *n + 1, sizeof **tids);
		(*tids)[(*n)++] = v;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}
