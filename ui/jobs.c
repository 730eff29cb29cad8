/*
 * The worker thread behind slow queries (see jobs.h). One thread is
 * enough: the queries are each single-threaded, and the machine is shared.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "xalloc.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static bool started, stopping;
static struct job *queued[JOB_KINDS];
static struct job *done[JOB_KINDS];
static int running = -1;	/* kind being worked on */

static uint8_t *
copy_mask(const uint8_t *m, size_t n)
{
	uint8_t *c;

	if (m == NULL)
		return NULL;
	c = xmalloc(n ? n : 1);
	memcpy(c, m, n);
	return c;
}

struct job *
job_new(enum job_kind kind, const struct trace *t, const struct filter *f,
    uint64_t gen)
{
	struct job *j = xcalloc(1, sizeof *j);

	j->kind = kind;
	j->t = t;
	j->gen = gen;
	filter_init(&j->filter);
	if (f != NULL) {
		j->filter = *f;
		j->filter.track_on = copy_mask(f->track_on, t->ntracks);
		j->filter.func_on = copy_mask(f->func_on, t->nfuncs);
	}
	return j;
}

void
job_free(struct job *j)
{
	if (j == NULL)
		return;
	filter_clear(&j->filter);
	free(j->match);
	free(j->pattern);
	stats_free(&j->stats);
	call_tree_free(&j->tree);
	free(j->hits);
	free(j->results);
	free(j->log_match);
	if (j->arg_free != NULL)
		j->arg_free(j->arg);
	free(j);
}

static int
cmp_result(const void *a, const void *b)
{
	const struct search_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int
cmp_hit(const void *a, const void *b)
{
	const struct search_hit *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->ref.track != y->ref.track)
		return x->ref.track < y->ref.track ? -1 : 1;
	if (x->ref.depth != y->ref.depth)
		return x->ref.depth < y->ref.depth ? -1 : 1;
	return x->ref.index < y->ref.index ? -1 : x->ref.index > y->ref.index;
}

/* Whether a string arg of the run matches. */
static bool
args_match(const struct trace *t, const struct arg *a, size_t n,
    const struct regex *re)
{
	for (size_t i = 0; i < n; i++) {
		const char *s;
		if (a[i].type != ARG_STR)
			continue;
		s = trace_str(t, a[i].v.s);
		if (s[0] != '\0' && regex_match(re, s, strlen(s)))
			return true;
	}
	return false;
}

/* Slices and instants whose own function does not match but a string
 * arg does: added to the hits, which stay in time order. Runs here, per
 * slice with args, so a big trace is searched off the drawing thread. */
static void
search_args(struct job *j, const struct regex *re)
{
	const struct trace *t = j->t;
	VEC(struct search_hit) more = { 0 };

	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		if (!filter_track(&j->filter, ti))
			continue;
		for (size_t k = 0; k < tr->nslice_args; k++) {
			const struct slice_args *sa = &tr->slice_args[k];
			struct slice_ref r = { ti, sa->depth, sa->index };
			const struct slice *s;
			const struct arg *a;
			size_t n;
			if (sa->depth >= tr->ndepth ||
			    sa->index >= tr->depth[sa->depth].len)
				continue;
			s = trace_slice(t, r);
			if (j->match[s->func] || !filter_func(&j->filter,
			    s->func))
				continue;
			a = trace_args(t, sa->args, &n);
			if (args_match(t, a, n, re))
				VEC_PUSH(&more, ((struct search_hit){
				    s->start, r }));
		}
		for (size_t i = 0; i < tr->ninstants; i++) {
			const struct instant *in = &tr->instants[i];
			const struct arg *a;
			size_t n;
			if (in->args == 0 || j->match[in->func] ||
			    !filter_func(&j->filter, in->func))
				continue;
			a = trace_args(t, in->args, &n);
			if (args_match(t, a, n, re))
				VEC_PUSH(&more, ((struct search_hit){ in->t,
				    { ti, SEARCH_INSTANT, (uint32_t)i } }));
		}
	}
	if (more.len == 0)
		return;
	j->hits = xreallocarray(j->hits, j->nhits + more.len,
	    sizeof *j->hits);
	memcpy(j->hits + j->nhits, more.items, more.len * sizeof *more.items);
	j->nhits += more.len;
	VEC_FREE(&more);
	xqsort(j->hits, j->nhits, sizeof *j->hits, cmp_hit);
}

/* Log records whose text matches, for the log pane. */
static void
search_logs(struct job *j, const struct regex *re)
{
	const struct trace *t = j->t;

	j->log_match = xcalloc(t->nlogs ? t->nlogs : 1, 1);
	for (size_t i = 0; i < t->nlogs; i++) {
		const char *s = trace_str(t, t->logs[i].text);
		if (regex_match(re, s, strlen(s))) {
			j->log_match[i] = 1;
			j->nlog_matches++;
		}
	}
}

static void
run_search(struct job *j)
{
	const struct trace *t = j->t;
	struct search_row *per;

	query_search(t, &j->filter, j->match, &j->hits, &j->nhits);
	if (j->pattern != NULL) {
		char *err = NULL;
		struct regex *re = regex_compile(j->pattern, &err);
		free(err);
		if (re != NULL) {
			search_args(j, re);
			search_logs(j, re);
			regex_free(re);
		}
	}
	/* One row per matching function: its count and total time. */
	per = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof *per);
	for (size_t i = 0; i < j->nhits; i++) {
		const struct search_hit *h = &j->hits[i];
		func_id f;
		if (h->ref.depth == SEARCH_INSTANT)
			f = t->tracks[h->ref.track].instants[h->ref.index].func;
		else {
			const struct slice *s = trace_slice(t, h->ref);
			f = s->func;
			per[f].total += trace_slice_dur(t, h->ref);
		}
		per[f].func = f;
		per[f].count++;
	}
	j->results = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof *j->results);
	for (uint32_t f = 0; f < t->nfuncs; f++)
		if (per[f].count > 0)
			j->results[j->nresults++] = per[f];
	free(per);
	xqsort(j->results, j->nresults, sizeof *j->results, cmp_result);
}

void
job_run(struct job *j)
{
	switch (j->kind) {
	case JOB_STATS:
		query_stats(j->t, &j->filter, j->t0, j->t1, &j->stats);
		break;
	case JOB_TREE:
		query_call_tree(j->t, &j->filter, j->t0, j->t1, j->per_thread,
		    &j->tree);
		break;
	case JOB_SEARCH:
		run_search(j);
		break;
	case JOB_SQL:
		if (j->run != NULL)
			j->run(j);
		break;
	default:
		break;
	}
}

static void *
work(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct job *j = NULL;
		int k;

		while (!stopping) {
			for (k = 0; k < JOB_KINDS && j == NULL; k++)
				if (queued[k] != NULL) {
					j = queued[k];
					queued[k] = NULL;
					running = k;
				}
			if (j != NULL)
				break;
			pthread_cond_wait(&wake, &lock);
		}
		if (stopping)
			break;
		pthread_mutex_unlock(&lock);
		job_run(j);
		pthread_mutex_lock(&lock);
		running = -1;
		job_free(done[j->kind]);
		done[j->kind] = j;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

void
jobs_submit(struct job *j)
{
	pthread_mutex_lock(&lock);
	if (!started) {
		stopping = false;
		if (pthread_create(&worker, NULL, work, NULL) != 0) {
			/* No thread: do it here, late but correct. */
			pthread_mutex_unlock(&lock);
			job_run(j);
			pthread_mutex_lock(&lock);
			job_free(done[j->kind]);
			done[j->kind] = j;
			pthread_mutex_unlock(&lock);
			return;
		}
		started = true;
	}
	job_free(queued[j->kind]);
	queued[j->kind] = j;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

struct job *
jobs_take(enum job_kind kind)
{
	struct job *j;

	pthread_mutex_lock(&lock);
	j = done[kind];
	done[kind] = NULL;
	pthread_mutex_unlock(&lock);
	return j;
}

bool
jobs_busy(enum job_kind kind)
{
	bool busy = false;

	pthread_mutex_lock(&lock);
	for (int k = 0; k < JOB_KINDS; k++)
		if (kind == JOB_KINDS || kind == (enum job_kind)k)
			busy |= queued[k] != NULL || running == k ||
			    done[k] != NULL;
	pthread_mutex_unlock(&lock);
	return busy;
}

bool
jobs_stop(void)
{
	pthread_mutex_lock(&lock);
	if (!started) {
		pthread_mutex_unlock(&lock);
		return true;
	}
	stopping = true;
	for (int k = 0; k < JOB_KINDS; k++) {
		job_free(queued[k]);
		queued[k] = NULL;
	}
	pthread_cond_signal(&wake);
	if (running >= 0) {
		/* A query cannot be interrupted: rather than make the user
		 * wait for it on quit, leave it to die with the process.
		 * The caller must then keep the trace alive. */
		pthread_mutex_unlock(&lock);
		return false;
	}
	pthread_mutex_unlock(&lock);
	pthread_join(worker, NULL);
	pthread_mutex_lock(&lock);
	for (int k = 0; k < JOB_KINDS; k++) {
		job_free(done[k]);
		done[k] = NULL;
	}
	started = false;
	pthread_mutex_unlock(&lock);
	return true;
}
