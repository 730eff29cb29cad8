/* The viewer's follower thread (follower.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "follower.h"
#include "xalloc.h"

struct follower {
	struct viewer_follow road;
	pthread_t thread;
	volatile sig_atomic_t stop;	/* set by follower_stop only */
	pthread_mutex_t lock;
	/* The mailbox, under lock. */
	struct trace *ready;	/* read, not taken yet */
	char *waiting;		/* why the last look read nothing */
	bool ended;
	/* Said to the viewer: the viewer's thread only. */
	char *said;
	/* Traces the viewer is done with, freed on a thread of their own:
	 * a model of hundreds of megabytes takes tens of milliseconds to
	 * give back, which a key pressed meanwhile would wait for. */
	pthread_t reaper;
	bool has_reaper;
	pthread_cond_t reap_cond;	/* under lock */
	struct trace **reap;
	size_t nreap, capreap;
	bool reaper_stop;
};

static void *
follow_loop(void *arg)
{
	struct follower *fl = arg;

	for (;;) {
		struct trace *t = NULL;
		char *err = NULL;
		bool ended = false;
		if (fl->road.next(fl->road.arg, &fl->stop, &t, &err,
		    &ended) != 0) {
			free(err);
			break;
		}
		pthread_mutex_lock(&fl->lock);
		if (t != NULL) {
			/* the viewer missed the last one: this one holds
			 * all of it */
			if (fl->ready != NULL)
				trace_free(fl->ready);
			fl->ready = t;
		}
		/* why nothing was read, or why the input ended */
		free(fl->waiting);
		fl->waiting = err;
		fl->ended = ended;
		pthread_mutex_unlock(&fl->lock);
		if (ended)
			break;
	}
	return NULL;
}

static void *
reap_loop(void *arg)
{
	struct follower *fl = arg;

	pthread_mutex_lock(&fl->lock);
	for (;;) {
		while (fl->nreap == 0 && !fl->reaper_stop)
			pthread_cond_wait(&fl->reap_cond, &fl->lock);
		if (fl->nreap == 0)
			break;
		struct trace *t = fl->reap[--fl->nreap];
		pthread_mutex_unlock(&fl->lock);
		trace_free(t);
		pthread_mutex_lock(&fl->lock);
	}
	pthread_mutex_unlock(&fl->lock);
	return NULL;
}

struct follower *
follower_start(const struct viewer_follow *f)
{
	struct follower *fl = xcalloc(1, sizeof *fl);

	fl->road = *f;
	pthread_mutex_init(&fl->lock, NULL);
	pthread_cond_init(&fl->reap_cond, NULL);
	fl->has_reaper = pthread_create(&fl->reaper, NULL, reap_loop,
	    fl) == 0;
	if (pthread_create(&fl->thread, NULL, follow_loop, fl) != 0) {
		/* no thread: the trace stays as it was read, said so */
		fl->ended = true;
		fl->waiting = xstrdup("cannot start a thread to follow the "
		    "trace");
		fl->road.next = NULL;
	}
	return fl;
}

struct trace *
follower_take(struct follower *fl, const char **waiting, bool *ended)
{
	pthread_mutex_lock(&fl->lock);
	struct trace *t = fl->ready;
	fl->ready = NULL;
	free(fl->said);
	fl->said = fl->waiting != NULL ? xstrdup(fl->waiting) : NULL;
	*ended = fl->ended;
	pthread_mutex_unlock(&fl->lock);
	if (waiting != NULL)
		*waiting = fl->said;
	return t;
}

void
follower_discard(struct follower *fl, struct trace *t)
{
	if (t == NULL)
		return;
	if (fl == NULL || !fl->has_reaper) {
		trace_free(t);
		return;
	}
	pthread_mutex_lock(&fl->lock);
	if (fl->nreap == fl->capreap) {
		fl->capreap = fl->capreap ? 2 * fl->capreap : 4;
		fl->reap = xreallocarray(fl->reap, fl->capreap,
		    sizeof *fl->reap);
	}
	fl->reap[fl->nreap++] = t;
	pthread_cond_signal(&fl->reap_cond);
	pthread_mutex_unlock(&fl->lock);
}

void
follower_stop(struct follower *fl)
{
	if (fl == NULL)
		return;
	if (fl->road.next != NULL) {
		__atomic_store_n(&fl->stop, 1, __ATOMIC_RELAXED);
		pthread_join(fl->thread, NULL);
	}
	if (fl->ready != NULL)
		trace_free(fl->ready);
	if (fl->has_reaper) {
		/* what is left to free is freed before the thread ends */
		pthread_mutex_lock(&fl->lock);
		fl->reaper_stop = true;
		pthread_cond_signal(&fl->reap_cond);
		pthread_mutex_unlock(&fl->lock);
		pthread_join(fl->reaper, NULL);
	}
	free(fl->reap);
	pthread_cond_destroy(&fl->reap_cond);
	pthread_mutex_destroy(&fl->lock);
	free(fl->waiting);
	free(fl->said);
	free(fl);
}
