/*
 * The program's one road to a loaded trace, taken by every mode (the
 * viewer and --diff's two traces too): the load (open_trace) with its
 * progress shown where the mode shows it, the scope's filter, and what is
 * said of it on stderr: the load's diagnostics and, when it failed, why,
 * as "ttv: PATH: ...".
 */
#ifndef TTV_CLI_OPEN_H
#define TTV_CLI_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "open_trace.h"
#include "scope.h"

/* Where a load shows its progress. */
struct cli_display {
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	/* The load and the filter are over (failed: a message follows). */
	void (*done)(void *arg, bool failed);
	/* What the load says as it happens (a live relay reconnecting, a
	 * session ended); NULL: it comes with the diagnostics. */
	void (*notice)(void *arg, const char *text);
	void *arg;
	/* The diagnostics are shown elsewhere (the viewer's status line):
	 * on stderr only when the load failed. */
	bool diags_elsewhere;
};

/* The progress of a batch mode's load on stderr, when it is a terminal:
 * after a second, then a few times a second; the line is wiped at the
 * end. */
struct cli_progress {
	const char *path;
	struct timespec start, last;
	bool shown;
};
/* d shows the load of path on stderr, in p (no progress when stderr is
 * not a terminal). */
void cli_progress_stderr(struct cli_progress *p, const char *path,
    struct cli_display *d);

/* Loads path (d: its progress, or NULL for none) and makes *sel from sc:
 * its filter, the listed threads too when threads is true (--diff chooses
 * them itself); the range is the caller's (scope_range). Returns
 * TTV_EXIT_OK, or after the messages the exit status: TTV_EXIT_BAD_INPUT
 * (nothing readable, --strict, a thread the trace lacks) or
 * TTV_EXIT_USAGE (a pattern the regex budget could not decide), *t then
 * NULL. *t is the caller's (trace_free), as is *sel (selection_clear). */
int cli_open(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    struct trace **t, struct selection *sel);
/* The same road saying nothing (the viewer's second trace, loaded while
 * the terminal is the viewer's): the exit status, and why it failed in
 * *err (caller frees). On failure *t holds what could be read, or NULL
 * (caller frees it); d->done is not called. */
int cli_load(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    struct trace **t, struct selection *sel, char **err);

/* cli_open in two steps, for loads made side by side (--diff's two
 * traces, each on a thread of its own): the load alone, which says
 * nothing and touches nothing shared (the scope's pattern is not
 * thread-safe), its exit status and *err as cli_load's; then on one
 * thread, in the order the messages should come, the rest of the road
 * (the filter, the messages), given the load's rc and err (freed), which
 * returns as cli_open. */
int cli_load_trace(const char *path, const struct open_options *oo,
    const struct cli_display *d, struct trace **t, char **err);
int cli_open_finish(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    int rc, char *err, struct trace **t, struct selection *sel);

#endif
