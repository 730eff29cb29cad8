/* From the command line's options to a loaded trace (see open_trace.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "load.h"
#include "open_index.h"
#include "open_trace.h"
#include "xalloc.h"

int
open_trace(const char *path, const struct open_options *o,
    struct trace **tp, char **err)
{
	*err = NULL;
	*tp = open_index_load(path, o, err);
	if (*tp == NULL)
		return TTV_EXIT_BAD_INPUT;
	if (o->load.strict && (*tp)->has_errors) {
		*err = xstrdup("stopped at the first damage (--strict)");
		return TTV_EXIT_BAD_INPUT;
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
