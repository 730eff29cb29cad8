/* --stats: the per-function table, as text or TSV. */
#include "cli.h"
#include "export.h"
#include "escape.h"
#include "timefmt.h"

void
cli_stats(const struct trace *t, const struct selection *sel,
    const struct stats_options *o, FILE *out)
{
	struct stats_table st;
	query_stats(t, &sel->f, sel->t0, sel->t1, &st);
	bool desc = o->sort == STATS_NAME ? o->ascending : !o->ascending;
	stats_sort(t, &st, o->sort, desc);
	if (o->tsv) {
		fputs("name\tcount\ttotal_ns\tself_ns\tmin_ns\tmedian_ns\t"
		    "p90_ns\tp99_ns\tmax_ns\n", out);
		for (size_t i = 0; i < st.n; i++) {
			const struct func_stats *s = &st.rows[i];
			escape_cell(trace_func_name(t, s->func), o->guard, out);
			fprintf(out, "\t%llu\t%lld\t%lld\t%lld\t%lld\t%lld\t"
			    "%lld\t%lld\n", (unsigned long long)s->count,
			    (long long)s->total, (long long)s->self,
			    (long long)s->min, (long long)s->median,
			    (long long)s->p90, (long long)s->p99,
			    (long long)s->max);
		}
	} else {
		/* Sampled traces: how many samples each function was in. */
		bool sampled = trace_is_sampled(t);
		if (sampled)
			fprintf(out, "%10s ", "samples");
		fprintf(out, "%10s %10s %10s %10s %10s %10s %10s %10s  %s\n",
		    "count", "total", "self", "min", "median", "p90", "p99",
		    "max", "function");
		for (size_t i = 0; i < st.n; i++) {
			const struct func_stats *s = &st.rows[i];
			char b[8][32];
			ttv_ns v[8] = { s->total, s->self, s->min, s->median,
			    s->p90, s->p99, s->max, 0 };
			for (int k = 0; k < 7; k++)
				timefmt_duration(v[k], b[k], sizeof b[k]);
			if (sampled)
				fprintf(out, "%10llu ",
				    (unsigned long long)s->weight);
			fprintf(out, "%10llu %10s %10s %10s %10s %10s %10s %10s  ",
			    (unsigned long long)s->count, b[0], b[1], b[2], b[3],
			    b[4], b[5], b[6]);
			escape_fputs(trace_func_name(t, s->func), out);
			putc('\n', out);
		}
		cli_unfinished_note(st.unfinished, "counted", out);
	}
	stats_free(&st);
}
