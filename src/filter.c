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
filter_set_functions(struct filter *f, const struct trace *t,
    const struct regex *re, bool hide)
{
	free(f->func_on);
	f->func_on = NULL;
	f->hide_functions = false;
	if (re == NULL)
		return;
	f->func_on = regex_match_funcs(t, re);
	/* A function's category counts like its name, in the viewer and in
	 * every batch mode alike. */
	for (uint32_t i = 0; i < t->nfuncs; i++) {
		const char *c = trace_str(t, t->funcs[i].category);
		if (!f->func_on[i] && c[0] != '\0' &&
		    regex_match(re, c, strlen(c)))
			f->func_on[i] = 1;
	}
	f->hide_functions = hide;
	if (hide)
		for (uint32_t i = 0; i < t->nfuncs; i++)
			f->func_on[i] = !f->func_on[i];
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
