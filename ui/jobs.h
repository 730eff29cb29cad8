/*
 * Background work for the viewer: statistics, call trees and searches
 * over a big trace take seconds, so they run on one worker thread while
 * the viewer keeps answering keys and shows "computing". Small traces
 * skip the thread entirely (view.c decides), so what the screen shows
 * does not depend on timing there.
 *
 * A job owns copies of its inputs (filter masks, match bytes), so the
 * view may change while it runs; results carry the generation they were
 * asked for, and the view drops results that are out of date. The trace
 * is immutable and only read.
 */
#ifndef TTV_UI_JOBS_H
#define TTV_UI_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "query.h"

enum job_kind { JOB_STATS, JOB_TREE, JOB_SEARCH, JOB_SQL, JOB_CALLERS,
	JOB_INSTANCES, JOB_FILTER, JOB_KINDS };

struct job {
	enum job_kind kind;
	uint64_t gen;
	const struct trace *t;
	/* Inputs, owned. */
	struct filter filter;
	ttv_ns t0, t1;
	bool per_thread;
	/* Searches: the functions and strings matched (a search_match),
	 * or, both NULL, the pattern to match first, within the regex
	 * budget (the viewer's own thread found it too costly to try).
	 * Filters (JOB_FILTER): the pattern, whose functions' mask comes
	 * back in match. */
	uint8_t *match;
	uint8_t *str;
	char *pattern;
	bool hide;
	uint64_t req;		/* the view's search or filter it was for */
	atomic_int cancel;	/* set by jobs_cancel: the regex stops */
	char *error;		/* why the pattern got no answer */
	/* Outputs, owned until taken. */
	struct stats_table stats;
	struct call_tree tree;
	struct search_hit *hits;
	size_t nhits;
	struct search_row *results;
	size_t nresults;
	uint8_t *log_match;	/* nlogs: log text matches pattern */
	size_t nlog_matches;
	/* Work the queries above do not cover (JOB_SQL, JOB_CALLERS,
	 * JOB_INSTANCES): run(j) does it,
	 * reading and filling arg, which arg_free frees with the job. */
	void (*run)(struct job *j);
	void *arg;
	void (*arg_free)(void *arg);
};

/* A job with copies of the filter's masks (and of match, for searches). */
struct job *job_new(enum job_kind kind, const struct trace *t,
    const struct filter *f, uint64_t gen);
void job_free(struct job *j);
/* Does the work in the calling thread. */
void job_run(struct job *j);

/* Queues j (owned by the queue from now), replacing a queued job of the
 * same kind that has not started. Starts the worker on first use. */
void jobs_submit(struct job *j);
/* Drops a queued job of that kind and tells a running one to stop (a
 * regex stops between two strings; other work runs to its end, and the
 * view ignores its result). */
void jobs_cancel(enum job_kind kind);
/* A finished job of that kind (caller owns it), or NULL. */
struct job *jobs_take(enum job_kind kind);
/* Jobs of that kind (any kind: JOB_KINDS) queued, running, or finished
 * and not yet taken. */
bool jobs_busy(enum job_kind kind);
/* Drops everything queued and stops the worker. Returns false when a job
 * is still running: the worker then ends with the process, and the trace
 * it reads must not be freed. */
bool jobs_stop(void);

#endif
