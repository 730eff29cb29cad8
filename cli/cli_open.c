/* The road from the command line to a loaded trace (cli_open.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "cli_open.h"
#include "escape.h"
#include "xalloc.h"

static double
since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct cli_progress *p = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&p->start, &now) < 1.0 || (p->shown &&
	    since(&p->last, &now) < 0.25))
		return;
	p->last = now;
	p->shown = true;
	fputs("\rttv: ", stderr);
	escape_fputs(p->path, stderr);
	if (total == 0)
		fprintf(stderr, ": looking for traces, %llu entries\033[K",
		    (unsigned long long)done);
	else
		fprintf(stderr, ": reading, %.0f%% of %.0f MB\033[K",
		    100.0 * (double)done / (double)total,
		    (double)total / 1e6);
	fflush(stderr);
}

static void
progress_end(void *arg, bool failed)
{
	struct cli_progress *p = arg;

	(void)failed;
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

/* What a load says as it happens (a live relay reconnecting, a session
 * ended), on stderr at once. */
static void
notice_cb(void *arg, const char *text)
{
	struct cli_progress *p = arg;
	if (p != NULL && p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = false;
	}
	cli_say(p != NULL ? p->path : NULL, text);
}

void
cli_progress_stderr(struct cli_progress *p, const char *path,
    struct cli_display *d)
{
	*p = (struct cli_progress){ .path = path };
	*d = (struct cli_display){ .done = progress_end, .notice = notice_cb,
	    .arg = p };
	if (isatty(STDERR_FILENO)) {
		clock_gettime(CLOCK_MONOTONIC, &p->start);
		d->progress = progress_cb;
	}
}

int
cli_load_trace(const char *path, const struct open_options *oo,
    const struct cli_display *d, struct trace **t, char **err)
{
	struct open_options o = *oo;

	*err = NULL;
	if (d != NULL) {
		o.load.progress = d->progress;
		o.load.progress_arg = d->arg;
	}
	if (d != NULL && d->notice != NULL) {
		o.load.notice = d->notice;
		o.load.notice_arg = d->arg;
	}
	int rc = open_trace(path, &o, t, err);
	if (rc != TTV_EXIT_OK && *err == NULL)
		*err = xstrdup("unreadable");
	return rc;
}

/* The scope's filter on what a load (rc) gave: the exit status, *err
 * set when it is not TTV_EXIT_OK. */
static int
load_filter(int rc, const struct scope *sc, bool threads, struct trace *t,
    struct selection *sel, char **err)
{
	selection_init(sel);
	if (rc == TTV_EXIT_OK) {
		int f = scope_filter(sc, t, threads, sel, err);
		rc = f == SCOPE_NO_THREAD ? TTV_EXIT_BAD_INPUT :
		    f == SCOPE_UNDECIDED ? TTV_EXIT_USAGE : TTV_EXIT_OK;
	}
	if (rc != TTV_EXIT_OK) {
		selection_clear(sel);
		if (*err == NULL)
			*err = xstrdup("unreadable");
	}
	return rc;
}

int
cli_load(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    struct trace **t, struct selection *sel, char **err)
{
	int rc = cli_load_trace(path, oo, d, t, err);
	return load_filter(rc, sc, threads, *t, sel, err);
}

int
cli_open_finish(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    int rc, char *err, struct trace **t, struct selection *sel)
{
	rc = load_filter(rc, sc, threads, *t, sel, &err);
	if (d != NULL && d->done != NULL)
		d->done(d->arg, rc != TTV_EXIT_OK);
	if (oo->index_report != NULL && (d == NULL || !d->diags_elsewhere))
		cli_index_messages(path, oo->index_report, stderr);
	if (*t != NULL && (rc != TTV_EXIT_OK || d == NULL ||
	    !d->diags_elsewhere))
		open_trace_report(*t, path, CLI_DIAGS_ON_STDERR, stderr);
	if (rc == TTV_EXIT_OK)
		return rc;
	cli_say(path, err);
	free(err);
	if (*t != NULL)
		trace_free(*t);
	*t = NULL;
	return rc;
}

int
cli_open(const char *path, const struct open_options *oo,
    const struct scope *sc, bool threads, const struct cli_display *d,
    struct trace **t, struct selection *sel)
{
	char *err = NULL;
	int rc = cli_load_trace(path, oo, d, t, &err);
	return cli_open_finish(path, oo, sc, threads, d, rc, err, t, sel);
}
