/*
 * The worker thread behind slow queries (see jobs.h). One thread is
 * enough: the queries are each single-threaded, and the machine is shared.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "query_calls.h"
#include "xalloc.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static bool started, stopping;
static struct job *queued[JOB_KINDS];
static struct job *done[JOB_KINDS];
static int running = -1;	/* kind being worked on */
static struct job *current;	/* the job being worked on */

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
	free(j->str);
	free(j->pattern);
	free(j->error);
	stats_free(&j->stats);
	call_tree_free(&j->tree);
	free(j->hits);
	free(j->results);
	free(j->log_match);
	if (j->arg_free != NULL)
		j->arg_free(j->arg);
	free(j);
}

/* A regex held to the budget, stopped by jobs_cancel; NULL with
 * j->error when it does not compile (the view compiled it first). */
static struct regex *
job_regex(struct job *j, bool search)
{
	char *err = NULL;
	struct regex *re = search ? regex_compile_search(j->pattern, &err) :
	    regex_compile(j->pattern, &err);
	struct regex_budget b;

	if (re == NULL) {
		j->error = xasprintf("bad regex: %s", err);
		free(err);
		return NULL;
	}
	regex_budget_default(&b);
	b.stop = &j->cancel;
	regex_set_budget(re, &b);
	return re;
}

/* The search itself is a query (query_search_all): here it only runs
 * off the drawing thread, after the pattern's matching when the view
 * left that to the worker. */
static void
run_search(struct job *j)
{
	struct search_result res;

	if (j->match == NULL && j->pattern != NULL) {
		struct regex *re = job_regex(j, true);
		struct search_match m;
		if (re == NULL)
			return;
		if (query_search_match(j->t, re, &m) != 0) {
			j->error = xstrdup(regex_error(re));
			regex_free(re);
			return;
		}
		regex_free(re);
		j->match = m.func;
		j->str = m.str;
	}
	struct search_match m = { j->match, j->str };
	query_search_all(j->t, &j->filter, &m, &res);
	j->hits = res.hits;
	/* The range, when one is set: the hits in it by the range rule. */
	j->nhits = res.nhits;
	if (j->t0 != TTV_NS_MIN || j->t1 != TTV_NS_MAX)
		j->nhits = search_in_range(j->t, res.hits, res.nhits, j->t0,
		    j->t1);
	j->log_match = res.log_match;
	j->nlog_matches = res.nlog_matches;
	j->nresults = query_search_rows(j->t, j->hits, j->nhits, &j->results);
}

/* f and F: the functions whose name or category matches. */
static void
run_filter(struct job *j)
{
	struct regex *re = job_regex(j, false);

	if (re == NULL)
		return;
	j->match = regex_match_funcs_or_categories(j->t, re);
	if (j->match == NULL)
		j->error = xstrdup(regex_error(re));
	regex_free(re);
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
	case JOB_FILTER:
		run_filter(j);
		break;
	default:
		if (j->run != NULL)
			j->run(j);
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
		current = j;
		pthread_mutex_unlock(&lock);
		job_run(j);
		pthread_mutex_lock(&lock);
		running = -1;
		current = NULL;
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
		/* The terminal's signals (Ctrl-C, resize, Ctrl-Z...) go to
		 * the drawing thread, whose wait for a key they cut short:
		 * the worker is started with them blocked. */
		sigset_t async, old;
		sigemptyset(&async);
		int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
			SIGTSTP, SIGCONT };
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
			sigaddset(&async, sigs[i]);
		pthread_sigmask(SIG_BLOCK, &async, &old);
		stopping = false;
		int rc = pthread_create(&worker, NULL, work, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc != 0) {
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

void
jobs_cancel(enum job_kind kind)
{
	pthread_mutex_lock(&lock);
	job_free(queued[kind]);
	queued[kind] = NULL;
	if (current != NULL && running == (int)kind)
		atomic_store(&current->cancel, 1);
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
