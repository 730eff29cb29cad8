/* --info: the lines of query_info (src/query_info.h), which the viewer's
 * info pane shows too. */
#include "cli.h"
#include "query_info.h"

void
cli_info(const struct trace *t, const struct selection *sel, FILE *out)
{
	struct info_lines l;

	query_info(t, sel, &l);
	for (size_t i = 0; i < l.n; i++) {
		fputs(l.lines[i], out);
		putc('\n', out);
	}
	info_lines_free(&l);
}
