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

struct follower *
follower_start(const struct viewer_follow *f)
{
	struct follower *fl = xcalloc(1, sizeof *fl);

	fl->road = *f;
	pthread_mutex_init(&fl->lock, NULL);
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
	pthread_mutex_destroy(&fl->lock);
	free(fl->waiting);
	free(fl->said);
	free(fl);
}
