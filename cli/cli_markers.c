/* --markers: every marker in time order, the list of the markers pane. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "escape.h"
#include "timefmt.h"
#include "told.h"

/* Bytes beyond one per column ("µ" is two bytes, one column): what a
 * printf width must add to line columns up. */
static int
utf8_extra(const char *s)
{
	int n = 0;
	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) == 0x80;
	return n;
}

void
cli_markers(const struct trace *t, const struct selection *sel,
    const struct cli_rows *o, FILE *out)
{
	/* following: only the markers that can be new */
	size_t *rows, n = query_markers_from(t, &sel->f, o->told != NULL ?
	    told_list_from(o->told, TOLD_MARKER) : 0, &rows);
	char lb[64], tb[64];
	bool tsv = o->tsv, guard = o->guard;

	if (o->no_header)
		;
	else if (tsv)
		fputs("ts_ns\tkind\ttid\tvalue\ttext\n", out);
	else
		fprintf(out, "%-18s %-14s %-10s %10s  %s\n", "time", "kind",
		    "tid", "value", "text");
	for (size_t i = 0; i < n; i++) {
		const struct marker *m = &t->markers[rows[i]];
		if (m->t < sel->t0 || m->t >= sel->t1)
			continue;
		const char *text = m->text != 0 ? trace_str(t, m->text) : "";
		if (o->told != NULL && !told_point(o->told, TOLD_MARKER,
		    m->track, text, m->t))
			continue;
		/* ns from the trace start: the viewer's "+" time. */
		long long ts = (long long)(m->t - t->first);

		if (m->track < t->ntracks)
			snprintf(lb, sizeof lb, "%lld",
			    (long long)t->tracks[m->track].tid);
		else
			snprintf(lb, sizeof lb, "-");
		if (tsv) {
			fprintf(out, "%lld\t%s\t%s\t%" PRId64 "\t", ts,
			    marker_kind_name((enum marker_kind)m->kind), lb,
			    m->value);
			escape_cell(text, guard, out);
		} else {
			timefmt_time_exact(m->t, t->first, tb, sizeof tb);
			fprintf(out, "%-*s %-14s %-10s %10" PRId64 "  ",
			    18 + utf8_extra(tb), tb,
			    marker_kind_name((enum marker_kind)m->kind), lb,
			    m->value);
			escape_fputs(text, out);
		}
		putc('\n', out);
	}
	free(rows);
	if (o->examined != NULL)
		*o->examined += n;
}
