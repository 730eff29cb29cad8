/*
 * --diff BASE TRACE: both traces opened as every mode opens one
 * (cli_open), each with its range, compared by query_diff(), printed as an
 * aligned table or TSV; --fail-above makes it a CI gate (exit 3, the
 * offenders on stderr).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_diff.h"
#include "cli_open.h"
#include "escape.h"
#include "index.h"
#include "timefmt.h"
#include "xalloc.h"

void
cli_diff_init(struct diff_cli *o)
{
	memset(o, 0, sizeof *o);
	o->by = DIFF_BY_FUNCTION;
	o->norm = DIFF_NORM_NONE;
	o->min_abs = DIFF_MIN_ABS;
	o->min_rel = DIFF_MIN_REL;
}

int
cli_diff_option(struct diff_cli *o, const char *name, const char *arg,
    char **err)
{
	if (strcmp(name, "diff") == 0) {
		o->base = arg;
		return 0;
	}
	if (strcmp(name, "by") == 0) {
		int v = diff_by_parse(arg);
		if (v < 0) {
			*err = xasprintf("--by takes function or path, not "
			    "'%s'", arg);
			return -1;
		}
		o->by = v;
	} else if (strcmp(name, "normalize") == 0) {
		int v = diff_norm_parse(arg);
		if (v < 0) {
			*err = xasprintf("--normalize takes calls or total, "
			    "not '%s'", arg);
			return -1;
		}
		o->norm = v;
	} else if (strcmp(name, "match-strip") == 0) {
		o->strip = arg;
	} else if (strcmp(name, "min-change") == 0) {
		if (diff_min_change_parse(arg, &o->min_abs, &o->min_rel,
		    err) != 0)
			return -1;
		o->min_set = true;
	} else if (strcmp(name, "fail-above") == 0) {
		char *end;
		errno = 0;
		double v = strtod(arg, &end);
		if (end > arg && *end == '%')
			end++;
		if (end == arg || *end != '\0' || errno != 0 ||
		    !(v >= 0 && v <= 1e9)) {
			*err = xasprintf("--fail-above takes a percent (10, "
			    "2.5), not '%s'", arg);
			return -1;
		}
		o->fail = true;
		o->fail_above = v;
	} else if (strcmp(name, "fail-on-new") == 0) {
		o->fail_on_new = true;
	} else {
		*err = xasprintf("unknown option --%s", name);
		return -1;
	}
	return 0;
}

int
cli_diff_check(struct diff_cli *o, bool sort_set, enum stats_key sort,
    char **err)
{
	if (o->base == NULL)
		return 0;
	if (sort_set && o->by == DIFF_BY_PATH && !diff_key_by_path(sort)) {
		*err = xasprintf("--sort %s does not go with --by path (name, "
		    "count, total or self)", stats_key_name(sort));
		return -1;
	}
	if (o->strip != NULL) {
		char *why = NULL;
		o->strip_re = regex_compile(o->strip, &why);
		if (o->strip_re != NULL)
			o->strip_re_new = regex_compile(o->strip, &why);
		if (o->strip_re == NULL || o->strip_re_new == NULL) {
			*err = xasprintf("bad regex '%s': %s", o->strip, why);
			free(why);
			return -1;
		}
	}
	return 0;
}

void
cli_diff_free(struct diff_cli *o)
{
	regex_free(o->strip_re);
	regex_free(o->strip_re_new);
	o->strip_re = o->strip_re_new = NULL;
}

/* ------------------------------------------------------------- loading */

struct side {
	const char *path;
	struct trace *t;
	struct selection sel;
	struct index_report ir;	/* what became of its index */
};

static void
side_free(struct side *s)
{
	selection_clear(&s->sel);
	if (s->t != NULL)
		trace_free(s->t);
	s->t = NULL;
}

static void
sides_free(struct side s[2])
{
	for (int i = 0; i < 2; i++) {
		side_free(&s[i]);
		index_report_clear(&s[i].ir);
	}
}

/* Whether t has a thread of that tid. */
static bool
has_thread(const struct trace *t, int64_t tid)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		if (t->tracks[i].kind == TRACK_THREAD &&
		    t->tracks[i].tid == tid)
			return true;
	return false;
}

int
cli_diff_select(bool base, const struct trace *t, const struct trace *other,
    const struct scope *sc, struct selection *sel, char **err, char **warn,
    bool *about)
{
	const int64_t *tids = sc->tids;
	size_t n = sc->ntids, k = 0;

	*err = NULL;
	*about = false;
	/* --thread: the listed threads it has; once both are loaded, each
	 * tid must be in one */
	for (size_t j = 0; sc->threads != NULL && other != NULL && j < n; j++)
		if (!has_thread(t, tids[j]) && !has_thread(other, tids[j])) {
			*err = xasprintf("no thread with tid %lld in either "
			    "trace (--info lists them)", (long long)tids[j]);
			return TTV_EXIT_BAD_INPUT;
		}
	if (sc->threads != NULL) {
		int64_t *mine = xmalloc((n ? n : 1) * sizeof *mine);
		for (size_t j = 0; j < n; j++)
			if (has_thread(t, tids[j]))
				mine[k++] = tids[j];
		if (k > 0)
			filter_set_threads(&sel->f, t, mine, k, false);
		free(mine);
		if (k == 0) {
			*err = xasprintf("none of the threads %s in this trace "
			    "(--info lists them)", sc->threads);
			*about = true;
			return TTV_EXIT_BAD_INPUT;
		}
	}
	/* the range: --range for both, unless the base has --range-base */
	char *why = NULL, *past = NULL;
	int ranged = scope_range(sc, t, base, sel, &why, &past);
	if (warn != NULL)
		*warn = past;
	else
		free(past);
	if (ranged != 0) {
		*err = xasprintf("%s: %s", base && sc->range_base != NULL ?
		    "--range-base" : "--range", why);
		free(why);
		return TTV_EXIT_USAGE;
	}
	return TTV_EXIT_OK;
}

/* ---------------------------------------------------------------- sides */

/* A side's part worked out on a thread of its own. */
struct part_job {
	struct diff_side side;
	struct diff_options o;
	struct diff_part part;
	char *err;
	int rc;
	pthread_t thread;
	bool started;
};

static void *
part_run(void *arg)
{
	struct part_job *j = arg;
	j->rc = diff_part_compute(&j->side, &j->o, &j->part, &j->err);
	return NULL;
}

/* Waits for the job (or runs it here, when no thread could start). */
static void
part_wait(struct part_job *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		part_run(j);
	j->started = false;
}

/* A side's load on a thread of its own (cli_load_trace: it says
 * nothing; what it has to say comes after, in order). */
struct load_job {
	const char *path;
	struct open_options oo;
	struct trace *t;
	char *err;
	int rc;
	pthread_t thread;
	bool started;
};

static void *
load_run(void *arg)
{
	struct load_job *j = arg;
	j->rc = cli_load_trace(j->path, &j->oo, NULL, &j->t, &j->err);
	return NULL;
}

/* Side i's options: its own index report (its index's messages name it,
 * and damage met on first touch is known to be its own); a second read
 * (again) checks an index whole (one written meanwhile by another ttv). */
static void
side_options(struct side s[2], int i, const struct open_options *oo,
    bool again, struct open_options *so)
{
	*so = *oo;
	so->index_report = &s[i].ir;
	if (again)
		so->index_lazy = false;
}

/* Side i loaded (rc, err, t: its load's) and its part readied: its
 * threads, its range (--range for both, unless the base has
 * --range-base) and its copy of the pattern. again: read once more,
 * after its index was found damaged (what was said of its range is not
 * said twice). */
static int
side_finish(struct side s[2], int i, const struct diff_cli *o,
    const struct open_options *so, const struct scope *sc,
    struct part_job *j, bool again, int rc, char *lerr, struct trace *t)
{
	char *err = NULL;
	bool about;
	/* threads are chosen here, by the rule of the two traces */
	s[i].t = t;
	rc = cli_open_finish(s[i].path, so, sc, false, NULL, rc, lerr, &s[i].t,
	    &s[i].sel);
	if (rc != TTV_EXIT_OK)
		return rc;
	char *warn = NULL;
	rc = cli_diff_select(i == 0, s[i].t, i == 1 ? s[0].t : NULL, sc,
	    &s[i].sel, &err, &warn, &about);
	if (warn != NULL && !again)
		cli_warn(s[i].path, warn);
	free(warn);
	if (rc == TTV_EXIT_USAGE)
		rc = cli_usage_error(err);
	else if (rc != TTV_EXIT_OK)
		cli_say(about ? s[i].path : NULL, err);
	free(err);
	if (rc != TTV_EXIT_OK)
		return rc;
	j->side = (struct diff_side){ s[i].t, &s[i].sel.f, s[i].sel.t0,
	    s[i].sel.t1 };
	j->o = (struct diff_options){ .by = o->by, .norm = o->norm,
	    .min_abs = o->min_abs, .min_rel = o->min_rel,
	    .strip = i == 0 ? o->strip_re : o->strip_re_new };
	return TTV_EXIT_OK;
}

/* Side i loaded here and readied. */
static int
side_open(struct side s[2], int i, const struct diff_cli *o,
    const struct open_options *oo, const struct scope *sc,
    struct part_job *j, bool again)
{
	struct open_options so;
	struct trace *t = NULL;
	char *err = NULL;
	side_options(s, i, oo, again, &so);
	int rc = cli_load_trace(s[i].path, &so, NULL, &t, &err);
	return side_finish(s, i, o, &so, sc, j, again, rc, err, t);
}

/* Side i's part again, from the trace itself, when its index met damage
 * on first touch (the damaged blocks' values were replaced by safe ones:
 * the part may be wrong). The index is removed; the trace is read, and a
 * new index built as at any open. Nothing was printed yet, so the diff is
 * made from what the trace holds, as if the index had been found damaged
 * at open. Returns the exit status of the second read. */
static int
side_reread(struct side s[2], int i, const struct diff_cli *o,
    const struct open_options *oo, const struct scope *sc,
    struct part_job *j)
{
	if (s[i].ir.file != NULL)
		unlink(s[i].ir.file);
	cli_say(s[i].path, "its index was damaged: the index is removed, "
	    "the trace is read again");
	diff_part_free(&j->part);
	free(j->err);
	j->err = NULL;
	side_free(&s[i]);
	int rc = side_open(s, i, o, oo, sc, j, true);
	if (rc == TTV_EXIT_OK)
		part_run(j);
	return rc;
}

/* ------------------------------------------------------------- printing */

/* A change: "+1.20 ms", "-500 ns", "0 ns". */
static const char *
signed_duration(ttv_ns d, char *buf, size_t size)
{
	char b[32];
	if (d == 0)
		return timefmt_duration(0, buf, size);
	timefmt_duration(d < 0 ? (d == TTV_NS_MIN ? TTV_NS_MAX : -d) : d, b,
	    sizeof b);
	snprintf(buf, size, "%c%s", d < 0 ? '-' : '+', b);
	return buf;
}

/* A side's duration, "-" where the row is not in it. */
static const char *
side_duration(const struct diff_row *r, int s, ttv_ns v, char *buf,
    size_t size)
{
	if (r->s[s].count == 0)
		return "-";
	return timefmt_duration(v, buf, size);
}

static const char *
side_count(const struct diff_row *r, int s, char *buf, size_t size)
{
	if (r->s[s].count == 0)
		return "-";
	snprintf(buf, size, "%llu", (unsigned long long)r->s[s].count);
	return buf;
}

/* The row's name: a function, or a path's frames joined by ';' (each
 * written as a frame of --tree's paths: a ';' inside is \x3b). */
static void
put_name(const struct diff *d, const struct diff_row *r, bool tsv,
    bool guard, FILE *out)
{
	if (d->by == DIFF_BY_FUNCTION) {
		if (tsv)
			escape_cell(diff_name(d, r->key), guard, out);
		else
			escape_fputs(diff_name(d, r->key), out);
		return;
	}
	uint32_t *names;
	size_t n = diff_path(d, r, &names);
	/* a path is one cell: its first frame is where a spreadsheet
	 * would see a formula */
	if (tsv && guard && n > 0 && escape_is_formula(diff_name(d, names[0])))
		putc('\'', out);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			putc(';', out);
		escape_frame(diff_name(d, names[i]), out);
	}
	free(names);
}

static void
print_text(const struct diff *d, FILE *out)
{
	bool paths = d->by == DIFF_BY_PATH;
	static const char *const head[] = { "calls base", "calls new",
	    "total base", "total new", "delta", "change", "self base",
	    "self new", "p50 base", "p50 new", "p99 base", "p99 new" };
	int ncols = paths ? 8 : 12;
	for (int c = 0; c < ncols; c++) {
		cli_put_right(out, head[c], c == 5 ? 9 : 10);
		putc(' ', out);
	}
	fprintf(out, " %-9s  %s\n", "status", paths ? "path" : "function");
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct func_stats *b = &r->s[DIFF_BASE];
		const struct func_stats *n = &r->s[DIFF_NEW];
		char buf[12][40];
		const char *cell[12] = {
			side_count(r, DIFF_BASE, buf[0], sizeof buf[0]),
			side_count(r, DIFF_NEW, buf[1], sizeof buf[1]),
			side_duration(r, DIFF_BASE, b->total, buf[2],
			    sizeof buf[2]),
			side_duration(r, DIFF_NEW, n->total, buf[3],
			    sizeof buf[3]),
			signed_duration(r->delta, buf[4], sizeof buf[4]),
			"-",
			side_duration(r, DIFF_BASE, b->self, buf[6],
			    sizeof buf[6]),
			side_duration(r, DIFF_NEW, n->self, buf[7],
			    sizeof buf[7]),
			side_duration(r, DIFF_BASE, b->median, buf[8],
			    sizeof buf[8]),
			side_duration(r, DIFF_NEW, n->median, buf[9],
			    sizeof buf[9]),
			side_duration(r, DIFF_BASE, b->p99, buf[10],
			    sizeof buf[10]),
			side_duration(r, DIFF_NEW, n->p99, buf[11],
			    sizeof buf[11]),
		};
		double ratio = diff_ratio(r);
		if (!isnan(ratio)) {
			snprintf(buf[5], sizeof buf[5], "%+.1f%%",
			    (ratio - 1.0) * 100.0);
			cell[5] = buf[5];
		}
		for (int c = 0; c < ncols; c++) {
			cli_put_right(out, cell[c], c == 5 ? 9 : 10);
			putc(' ', out);
		}
		fprintf(out, " %-9s  ", diff_status_name(r->status));
		put_name(d, r, false, false, out);
		putc('\n', out);
	}
}

/* A side's percentile in TSV: empty where the row is not in it. */
static void
tsv_side(const struct diff_row *r, int s, ttv_ns v, FILE *out)
{
	putc('\t', out);
	if (r->s[s].count > 0)
		fprintf(out, "%lld", (long long)v);
}

static void
print_tsv(const struct diff *d, bool guard, FILE *out)
{
	bool paths = d->by == DIFF_BY_PATH;
	fprintf(out, "%s\tcalls_base\tcalls_new\ttotal_base_ns\ttotal_new_ns\t"
	    "self_base_ns\tself_new_ns\tdelta_ns\tratio\tstatus%s\n",
	    paths ? "path" : "function", paths ? "" : "\tp50_base_ns\t"
	    "p50_new_ns\tp99_base_ns\tp99_new_ns");
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct func_stats *b = &r->s[DIFF_BASE];
		const struct func_stats *n = &r->s[DIFF_NEW];
		put_name(d, r, true, guard, out);
		fprintf(out, "\t%llu\t%llu\t%lld\t%lld\t%lld\t%lld\t%lld\t",
		    (unsigned long long)b->count, (unsigned long long)n->count,
		    (long long)b->total, (long long)n->total,
		    (long long)b->self, (long long)n->self,
		    (long long)r->delta);
		double ratio = diff_ratio(r);
		if (!isnan(ratio))
			fprintf(out, "%.4f", ratio);
		fprintf(out, "\t%s", diff_status_name(r->status));
		if (!paths) {
			tsv_side(r, DIFF_BASE, b->median, out);
			tsv_side(r, DIFF_NEW, n->median, out);
			tsv_side(r, DIFF_BASE, b->p99, out);
			tsv_side(r, DIFF_NEW, n->p99, out);
		}
		putc('\n', out);
	}
}

/* The gate: each offender on stderr; returns how many. */
static size_t
gate(const struct diff *d, const struct diff_cli *o)
{
	size_t bad = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_row *r = &d->rows[i];
		if (!diff_row_fails(d, r, o->fail_above, o->fail_on_new))
			continue;
		char a[32], b[32], c[40];
		fputs("ttv: ", stderr);
		put_name(d, r, false, false, stderr);
		if (r->status == DIFF_ONLY_NEW)
			fprintf(stderr, ": only in the new trace, %s "
			    "(--fail-on-new)\n", timefmt_duration(
			    r->s[DIFF_NEW].total, a, sizeof a));
		else
			fprintf(stderr, ": total %+.1f%%, %s (%s -> %s), more "
			    "than %g%% (--fail-above)\n", isnan(diff_ratio(r)) ?
			    INFINITY : (diff_ratio(r) - 1.0) * 100.0,
			    signed_duration(r->delta, c, sizeof c),
			    timefmt_duration(r->s[DIFF_BASE].total, a,
			    sizeof a), timefmt_duration(r->s[DIFF_NEW].total,
			    b, sizeof b),
			    o->fail_above);
		bad++;
	}
	if (bad > 0)
		fprintf(stderr, "ttv: %zu of %zu %s over the gate\n", bad, d->n,
		    d->by == DIFF_BY_PATH ? "call paths" : "functions");
	return bad;
}

/* ------------------------------------------------------------------ run */

int
cli_diff(const struct diff_cli *o, const char *path,
    const struct open_options *oo, const struct scope *sc,
    const struct stats_options *so, const char *output)
{
	struct side s[2] = { { .path = o->base }, { .path = path } };
	struct part_job job[2];
	struct load_job lj;
	int rc;

	/* The two traces load side by side, and the base's part is worked
	 * out while the new trace's load ends: a load leaves cores idle in
	 * its phases. What each says is said in order, the base's first;
	 * the new trace's is not said when the base could not be used (as
	 * when the traces load one after the other). */
	memset(job, 0, sizeof job);
	memset(&lj, 0, sizeof lj);
	selection_init(&s[0].sel);
	selection_init(&s[1].sel);
	lj.path = s[1].path;
	side_options(s, 1, oo, false, &lj.oo);
	lj.started = pthread_create(&lj.thread, NULL, load_run, &lj) == 0;
	rc = side_open(s, 0, o, oo, sc, &job[0], false);
	if (rc == TTV_EXIT_OK)
		job[0].started = pthread_create(&job[0].thread, NULL,
		    part_run, &job[0]) == 0;
	if (lj.started)
		pthread_join(lj.thread, NULL);
	else if (rc == TTV_EXIT_OK)
		load_run(&lj);
	if (rc == TTV_EXIT_OK) {
		rc = side_finish(s, 1, o, &lj.oo, sc, &job[1], false, lj.rc,
		    lj.err, lj.t);
	} else {
		free(lj.err);
		if (lj.t != NULL)
			trace_free(lj.t);
	}
	if (rc == TTV_EXIT_OK)
		part_run(&job[1]);
	if (job[0].started || rc == TTV_EXIT_OK)
		part_wait(&job[0]);
	/* Both parts are made before anything is printed: damage one met
	 * in its index is mended here, base first. */
	for (int i = 0; i < 2 && rc == TTV_EXIT_OK; i++)
		if (s[i].ir.state == INDEX_STATE_USED &&
		    index_trace_damaged(s[i].t))
			rc = side_reread(s, i, o, oo, sc, &job[i]);
	for (int i = 0; i < 2 && rc == TTV_EXIT_OK; i++)
		if (job[i].rc != 0) {
			char *m = xasprintf("--match-strip %s", job[i].err);
			cli_say(NULL, m);
			free(m);
			rc = TTV_EXIT_USAGE;
		}
	for (int i = 0; i < 2; i++)
		free(job[i].err);
	if (rc != TTV_EXIT_OK) {
		diff_part_free(&job[0].part);
		diff_part_free(&job[1].part);
		sides_free(s);
		return rc;
	}
	struct diff d;
	struct diff_part parts[2] = { job[0].part, job[1].part };
	diff_join(parts, &job[0].o, &d);
	bool desc = so->sort == STATS_NAME ? so->ascending : !so->ascending;
	diff_sort(&d, so->sort, desc);

	FILE *out = stdout;
	const char *paths[2] = { s[0].path, s[1].path };
	const struct trace *ts[2] = { s[0].t, s[1].t };
	if (output != NULL && (out = cli_open_output(output, 2, paths, ts,
	    NULL)) == NULL) {
		diff_free(&d);
		sides_free(s);
		return TTV_EXIT_BAD_INPUT;
	}
	if (so->tsv)
		print_tsv(&d, so->guard, out);
	else
		print_text(&d, out);
	bool failed = cli_close_output(out, output) != 0;
	size_t bad = o->fail ? gate(&d, o) : 0;
	rc = bad > 0 ? CLI_EXIT_GATE : failed || s[0].t->has_errors ||
	    s[1].t->has_errors ? TTV_EXIT_BAD_INPUT : TTV_EXIT_OK;
	diff_free(&d);
	sides_free(s);
	return rc;
}
