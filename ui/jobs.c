/*
 * The worker thread behind slow queries (see jobs.h). One thread is
 * enough: the queries are each single-threaded, and the machine is shared.
 * Jobs wait in submission order; a key has at most one job waiting and
 * one finished.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "xalloc.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static bool started, stopping;
static struct job *queued;	/* oldest first */
static struct job *done;	/* oldest first */
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
job_new(void *key, const struct trace *t, const struct filter *f,
    uint64_t gen)
{
	struct job *j = xcalloc(1, sizeof *j);

	j->key = key;
	j->t = t;
	j->gen = gen;
	j->t0 = TTV_NS_MIN;
	j->t1 = TTV_NS_MAX;
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
	if (j->arg_free != NULL)
		j->arg_free(j->arg);
	free(j);
}

/* Appends j to a list, dropping a job of the same key on it (the lock
 * held). */
static void
put(struct job **list, struct job *j)
{
	struct job **p = list;

	while (*p != NULL) {
		if ((*p)->key == j->key) {
			struct job *old = *p;
			*p = old->next;
			job_free(old);
			continue;
		}
		p = &(*p)->next;
	}
	j->next = NULL;
	*p = j;
}

static void
free_all(struct job **list)
{
	while (*list != NULL) {
		struct job *j = *list;
		*list = j->next;
		job_free(j);
	}
}

static void *
work(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!stopping && queued == NULL)
			pthread_cond_wait(&wake, &lock);
		if (stopping)
			break;
		struct job *j = queued;
		queued = j->next;
		current = j;
		pthread_mutex_unlock(&lock);
		j->run(j);
		pthread_mutex_lock(&lock);
		current = NULL;
		put(&done, j);
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
			j->run(j);
			pthread_mutex_lock(&lock);
			put(&done, j);
			pthread_mutex_unlock(&lock);
			return;
		}
		started = true;
	}
	put(&queued, j);
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

void
jobs_cancel(void *key)
{
	pthread_mutex_lock(&lock);
	for (struct job **p = &queued; *p != NULL;) {
		if ((*p)->key == key) {
			struct job *j = *p;
			*p = j->next;
			job_free(j);
		} else
			p = &(*p)->next;
	}
	if (current != NULL && current->key == key)
		atomic_store(&current->cancel, 1);
	pthread_mutex_unlock(&lock);
}

struct job *
jobs_take(void)
{
	struct job *j;

	pthread_mutex_lock(&lock);
	j = done;
	if (j != NULL) {
		done = j->next;
		j->next = NULL;
	}
	pthread_mutex_unlock(&lock);
	return j;
}

static bool
has_key(const struct job *list, const void *key)
{
	for (; list != NULL; list = list->next)
		if (key == NULL || list->key == key)
			return true;
	return false;
}

bool
jobs_busy(const void *key)
{
	bool busy;

	pthread_mutex_lock(&lock);
	busy = has_key(queued, key) || has_key(done, key) ||
	    (current != NULL && (key == NULL || current->key == key));
	pthread_mutex_unlock(&lock);
	return busy;
}

bool
jobs_stop(void)
{
	pthread_mutex_lock(&lock);
	if (!started) {
		free_all(&done);
		pthread_mutex_unlock(&lock);
		return true;
	}
	stopping = true;
	free_all(&queued);
	pthread_cond_signal(&wake);
	if (current != NULL) {
		/* A query cannot be interrupted: rather than make the user
		 * wait for it on quit, leave it to die with the process.
		 * The caller must then keep the trace alive. */
		pthread_mutex_unlock(&lock);
		return false;
	}
	pthread_mutex_unlock(&lock);
	pthread_join(worker, NULL);
	pthread_mutex_lock(&lock);
	free_all(&done);
	started = false;
	pthread_mutex_unlock(&lock);
	return true;
}