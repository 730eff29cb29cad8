/*
 * An input followed while it is written (--follow): a file or a CTF
 * directory that grows, a directory where XRay's runtime writes one log
 * after another, or a live session (net://, whose mirror is a growing
 * CTF directory). The follower says when there may be more to read and
 * reads the input as it is then, whole records only (load_options.follow):
 * what arrived since is the caller's to find (src/told.h keeps, per
 * thread, how far it has been told).
 *
 * An input whose reader can go on from where it stopped (a CoreProfiler
 * TraceLog, an XRay basic-mode log, an FXT file, a CTF directory or a
 * live session's mirror: load_grow.h) is read as it grows: each read
 * reads what was appended, and makes the trace from a copy of the
 * builder, which maps what the builder wrote to its file. An XRay FDR
 * log is read whole at each change; an XRay directory's logs are read
 * whole, each once it is complete. The follower reads
 * again only when the input changed.
 */
#ifndef TTV_FOLLOW_H
#define TTV_FOLLOW_H

#include <signal.h>
#include <stdbool.h>

#include "model.h"
#include "reader.h"

struct follow;

/* Opens path (a file, a directory, net://...) for following. force_format
 * as load_trace's. NULL with *err (caller frees) when it cannot be
 * followed at all (no such file, a relay that cannot be attached to). */
struct follow *follow_open(const char *path, const char *force_format,
    const struct load_options *o, char **err);

/* Before the first read of a file or trace directory whose reader goes
 * on from where it stopped: starts from the state its index keeps
 * (open_index_state, with o's index options), so that the first read
 * reads only what the index's read did not. The index's path (caller
 * frees), or NULL when there is none that fits: the first read reads
 * the trace whole. */
struct open_options;
char *follow_from_index(struct follow *f, const struct open_options *o);

enum follow_wait {
	FOLLOW_MORE,	/* the input changed: read it */
	FOLLOW_ENDED,	/* the input ends (a live session was destroyed):
			 * read it one last time */
	FOLLOW_STOPPED,	/* *stop was set */
};
/* Waits until the input changed (polled a few times a second; a live
 * session is fetched from) or *stop became non-zero. */
enum follow_wait follow_wait(struct follow *f, volatile sig_atomic_t *stop);

/* Reads the input as it is now, or NULL with *err (caller frees) when
 * nothing can be read yet. *fresh is set when the trace is a new one,
 * none of whose rows were told (an XRay directory's next log), clear when
 * it is the same input grown. A read that *stop interrupts (the readers
 * look at it as they go, load_options.cancel) returns NULL with *err
 * "stopped": a long read must not hold SIGINT back until it is over. */
struct trace *follow_read(struct follow *f, volatile sig_atomic_t *stop,
    bool *fresh, char **err);

/* What the input had to say apart from its traces (a live relay's
 * damage, said as the trace of name's diagnostics), or NULL when it had
 * nothing to say; the caller frees it. */
struct trace *follow_said(const struct follow *f, const char *name);
/* Detaches from a live session (its lock is let go), frees. */
void follow_close(struct follow *f);

#endif
