/* --search: every match of a pattern in time order, the viewer's / as a
 * list: slices and instants (by name, category or string arg) and log
 * records. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "escape.h"
#include "query_calls.h"
#include "timefmt.h"
#include "told.h"
#include "xalloc.h"

/* Bytes beyond one per column, for printf widths ("µ" is two bytes). */
static int
extra_bytes(const char *s)
{
	int n = 0;
	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) == 0x80;
	return n;
}

static void
row(const struct trace *t, bool tsv, bool guard, ttv_ns when, ttv_ns dur, uint32_t track,
    const char *where, const char *name, FILE *out)
{
	char tid[32], tb[64], db[64];

	if (track < t->ntracks)
		snprintf(tid, sizeof tid, "%lld",
		    (long long)t->tracks[track].tid);
	else
		snprintf(tid, sizeof tid, "-");
	if (tsv) {
		fprintf(out, "%lld\t%lld\t%s\t", (long long)(when - t->first),
		    (long long)dur, tid);
		escape_cell(where, guard, out);
		putc('\t', out);
		escape_cell(name, guard, out);
	} else {
		timefmt_time_exact(when, t->first, tb, sizeof tb);
		timefmt_duration_exact(dur, db, sizeof db);
		fprintf(out, "%-*s %*s %-10s %-14s ", 22 + extra_bytes(tb), tb,
		    20 + extra_bytes(db), db, tid, where);
		escape_fputs(name, out);
	}
	putc('\n', out);
}

int
cli_search(const struct trace *t, const struct selection *sel,
    struct regex *re, const struct cli_rows *o, FILE *out, char **err)
{
	bool tsv = o->tsv, guard = o->guard;
	struct search_match m;
	struct search_result res;
	char wb[256];
	ttv_ns t0 = sel->t0, t1 = sel->t1;

	/* Following: only what can be new, each track from where its
	 * rows were told or seen whole (the same rows are then told). */
	struct search_from from = { 0 }, *fp = NULL;
	ttv_ns *floors = NULL;
	if (o->told != NULL) {
		floors = xcalloc(2 * (t->ntracks ? t->ntracks : 1),
		    sizeof *floors);
		for (uint32_t i = 0; i < t->ntracks; i++) {
			floors[i] = told_from(o->told, TOLD_CALL, i);
			floors[t->ntracks + i] = told_from(o->told,
			    TOLD_INSTANT, i);
		}
		from.call_end = floors;
		from.instant = floors + t->ntracks;
		from.logs = told_list_from(o->told, TOLD_LOG);
		fp = &from;
	}
	/* No answer rather than a wrong one: a string the budget could not
	 * decide is an error, before anything is written. */
	if (query_search_match_from(t, re, fp, &m) != 0) {
		*err = xstrdup(regex_error(re));
		free(floors);
		return -1;
	}
	query_search_all_from(t, &sel->f, &m, fp, &res);
	free(floors);
	if (o->examined != NULL)
		*o->examined += from.examined;
	res.nhits = search_in_range(t, res.hits, res.nhits, t0, t1);
	if (o->no_header)
		;
	else if (tsv)
		fputs("ts_ns\tdur_ns\ttid\tmatch\tname\n", out);
	else
		fprintf(out, "%-22s %20s %-10s %-14s %s\n", "time", "duration",
		    "tid", "match", "name");
	/* Hits and log records are each in time order: merge them. */
	size_t h = 0, l = res.log_from;
	for (;;) {
		while (l < t->nlogs && !res.log_match[l])
			l++;
		bool take_log = l < t->nlogs && (h >= res.nhits ||
		    t->logs[l].t < res.hits[h].t);
		if (take_log) {
			const struct log_entry *e = &t->logs[l++];
			if (e->t < t0 || e->t >= t1)
				continue;
			if (o->told != NULL && !told_point(o->told, TOLD_LOG,
			    e->track, NULL, e->t))
				continue;
			row(t, tsv, guard, e->t, 0, e->track, "log",
			    trace_str(t, e->text), out);
			continue;
		}
		if (h >= res.nhits)
			break;
		const struct search_hit *hit = &res.hits[h++];
		if (o->told != NULL && !(hit->ref.depth == SEARCH_INSTANT ?
		    told_point(o->told, TOLD_INSTANT, hit->ref.track, NULL,
		    t->tracks[hit->ref.track].instants[hit->ref.index].t) :
		    told_call(o->told, hit->ref)))
			continue;
		const char *where = query_search_where(t, &m, hit, wb,
		    sizeof wb);
		if (hit->ref.depth == SEARCH_INSTANT) {
			const struct instant *in = &t->tracks[hit->ref.track]
			    .instants[hit->ref.index];
			row(t, tsv, guard, in->t, 0, hit->ref.track, where,
			    trace_func_name(t, in->func), out);
		} else {
			const struct slice *s = trace_slice(t, hit->ref);
			row(t, tsv, guard, s->start, trace_slice_dur(t, hit->ref),
			    hit->ref.track, where, trace_func_name(t, s->func),
			    out);
		}
	}
	search_result_free(&res);
	search_match_free(&m);
	return 0;
}
