/*
 * Background work for the viewer: statistics, call trees, searches, SQL
 * queries and the callers and calls of a function take seconds on a big
 * trace, so they run on one worker thread while the viewer keeps
 * answering keys and shows "computing". Small traces skip the thread
 * (view_submit() decides), so what the screen shows does not depend on
 * timing there.
 *
 * A job is a closure: run() does the work on the worker, reading the
 * immutable trace and what the job owns (a copy of the filter's masks,
 * its arg), and install() takes the result on the viewer's thread. Who
 * submits a job writes both; the runner knows nobody by name. A job
 * carries the generation of the view state it was asked for, and its
 * install drops a result that is out of date.
 */
#ifndef TTV_UI_JOBS_H
#define TTV_UI_JOBS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "query.h"

struct view;

struct job {
	/* Whose job it is (a pane, or a part of the view): a job queued
	 * and not started is replaced by a newer one of the same key, a
	 * finished one not yet installed too; jobs_cancel() stops those
	 * of a key. Its install may find its owner through it. */
	void *key;
	uint64_t gen;		/* the view state it was asked for */
	const struct trace *t;
	/* Inputs, owned: the filter (its masks copied) and the span. */
	struct filter filter;
	ttv_ns t0, t1;
	atomic_int cancel;	/* set by jobs_cancel: a regex stops */
	/* The work, on the worker (or on the viewer's thread for small
	 * traces), reading and filling arg. */
	void (*run)(struct job *j);
	/* On the viewer's thread, once run has returned: takes what it
	 * keeps out of arg; the job is freed after. */
	void (*install)(struct job *j, struct view *v);
	void *arg;
	void (*arg_free)(void *arg);
	struct job *next;	/* the runner's: its queue or finished list */
};

/* A job for key with a copy of the filter's masks (f may be NULL: no
 * filter) over the whole trace; the caller sets run, install, arg and
 * arg_free, and t0/t1 where it covers a span. */
struct job *job_new(void *key, const struct trace *t, const struct filter *f,
    uint64_t gen);
void job_free(struct job *j);

/* Queues j (owned by the queue from now), replacing a queued job of the
 * same key that has not started. Starts the worker on first use. */
void jobs_submit(struct job *j);
/* Drops a queued job of that key and tells a running one to stop (a
 * regex stops between two strings; other work runs to its end, and its
 * install drops the result). */
void jobs_cancel(void *key);
/* A finished job (caller owns it; oldest first), or NULL. */
struct job *jobs_take(void);
/* Jobs of that key (of any key: NULL) queued, running, or finished and
 * not yet taken. */
bool jobs_busy(const void *key);
/* Drops everything queued and stops the worker. Returns false when a job
 * is still running: the worker then ends with the process, and the trace
 * it reads must not be freed. */
bool jobs_stop(void);

#endif
