/*
 * --follow: --search or --markers on a trace being written. The input is
 * read again each time it grows (formats/follow.h), and only the rows not
 * told yet are written (src/told.h): a call once it is over, an instant,
 * a log record or a marker once everything before it is there. A search
 * looks only at what can be new (told_from): its cost per round is that
 * of what arrived, not of the whole trace. Each
 * round is flushed at once, so a pipe sees the rows as they come. It
 * ends when the input does (a live session destroyed: exit 0, or 1 when
 * the relay was lost or sent damage) or on SIGINT or SIGTERM (130).
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_follow.h"
#include "env.h"
#include "escape.h"
#include "follow.h"
#include "told.h"
#include "xalloc.h"

/* Exit status of a follower stopped by the user (as the shell's for
 * SIGINT). */
#define EXIT_INTERRUPTED 130

static volatile sig_atomic_t stop_asked;

static void
on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

/* What a live relay says as it happens (reconnecting, session ended). */
static void
notice(void *arg, const char *text)
{
	cli_say(arg, text);
}

/* The diagnostics of the trace read from index `from` on: a read of the
 * same input says again what the last one said, then what is new. */
static size_t
say_diags(const struct trace *t, const char *path, size_t from, bool *errors)
{
	for (size_t i = from; i < t->ndiags; i++) {
		fputs("ttv: ", stderr);
		escape_fputs(path, stderr);
		fputs(t->diags[i].level == DIAG_ERROR ? ": " : ": warning: ",
		    stderr);
		escape_fputs(t->diags[i].text, stderr);
		putc('\n', stderr);
		if (t->diags[i].level == DIAG_ERROR)
			*errors = true;
	}
	return t->ndiags > from ? t->ndiags : from;
}

/* One round on the trace as read now: the rows not told yet. Returns
 * 0, or an exit status (a pattern the regex budget could not decide). */
static int
round_rows(struct cli_args *c, const struct trace *t, struct told *told,
    bool *header_done, FILE *out)
{
	struct selection sel;
	char *err = NULL;
	int rc = 0;

	selection_init(&sel);
	int f = scope_filter(&c->scope, t, true, &sel, &err);
	if (f == SCOPE_NO_THREAD) {
		/* the thread may come later */
		free(err);
		selection_clear(&sel);
		return 0;
	}
	if (f == SCOPE_UNDECIDED) {
		cli_say(c->path, err);
		free(err);
		selection_clear(&sel);
		return TTV_EXIT_USAGE;
	}
	/* a range the trace does not reach yet is not worth a word: it
	 * may reach it later */
	char *warn = NULL;
	int ranged = scope_range(&c->scope, t, false, &sel, &err, &warn);
	free(warn);
	if (ranged != 0) {
		rc = cli_usage_error(err);
		free(err);
		selection_clear(&sel);
		return rc;
	}
	uint64_t examined = 0;
	struct cli_rows o = { .tsv = c->tsv, .guard = c->guard,
	    .no_header = *header_done, .told = told, .examined = &examined };
	told_round(told, t);
	if (c->mode == MODE_MARKERS) {
		cli_markers(t, &sel, &o, out);
	} else if (cli_search(t, &sel, c->search_re, &o, out, &err) != 0) {
		cli_say(c->path, err);
		free(err);
		rc = TTV_EXIT_USAGE;
	}
	*header_done = true;
	selection_clear(&sel);
	if (ttv_getenv(TTV_ENV_FOLLOW_STATS) != NULL)
		fprintf(stderr, "ttv: follow: %" PRIu64 " rows examined\n",
		    examined);
	return rc;
}

int
cli_follow(struct cli_args *c, FILE *out)
{
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term,
	    old_pipe, ign = { .sa_handler = SIG_IGN };
	char *err = NULL;

	/* no SA_RESTART: a wait in progress returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* a reader of the rows that goes away (| head) is a failed write,
	 * so that a live session is let go of and its lock removed */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	struct load_options lo = c->open.load;
	lo.notice = notice;
	lo.notice_arg = (void *)c->path;
	struct follow *f = follow_open(c->path, c->open.force_format, &lo,
	    &err);
	if (f == NULL) {
		cli_say(c->path, err);
		free(err);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGPIPE, &old_pipe, NULL);
		return TTV_EXIT_BAD_INPUT;
	}
	/* what the trace's index read is not read again */
	char *index = follow_from_index(f, &c->open);
	if (index != NULL) {
		char *what = xasprintf("index: read on from the state kept in "
		    "%s", index);
		cli_say(c->path, what);
		free(what);
		free(index);
	}
	struct told *told = told_new();
	bool header_done = false, errors = false;
	size_t diags_said = 0;
	char *last_wait = NULL;
	int rc = TTV_EXIT_OK;
	for (;;) {
		enum follow_wait w = follow_wait(f, &stop_asked);
		if (w == FOLLOW_STOPPED) {
			rc = EXIT_INTERRUPTED;
			break;
		}
		bool fresh;
		struct trace *t = follow_read(f, &stop_asked, &fresh, &err);
		if (t == NULL && stop_asked) {
			/* SIGINT in the middle of a read */
			free(err);
			err = NULL;
			rc = EXIT_INTERRUPTED;
			break;
		}
		if (t == NULL) {
			/* not yet: said once, as long as it stays the same */
			if (last_wait == NULL || strcmp(last_wait, err) != 0) {
				char *msg = xasprintf("waiting: %s", err);
				cli_say(c->path, msg);
				free(msg);
			}
			free(last_wait);
			last_wait = err;
			err = NULL;
		} else {
			free(last_wait);
			last_wait = NULL;
			if (fresh) {
				told_forget(told);
				diags_said = 0;
			}
			diags_said = say_diags(t, c->path, diags_said,
			    &errors);
			rc = round_rows(c, t, told, &header_done, out);
			trace_free(t);
		}
		if (fflush(out) != 0 || ferror(out)) {
			/* the reader of the rows went away */
			rc = TTV_EXIT_BAD_INPUT;
			break;
		}
		if (rc != TTV_EXIT_OK || w == FOLLOW_ENDED)
			break;
	}
	struct trace *said = follow_said(f, c->path);
	if (said != NULL) {
		say_diags(said, c->path, 0, &errors);
		trace_free(said);
	}
	free(last_wait);
	told_free(told);
	follow_close(f);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (rc == TTV_EXIT_OK && errors)
		rc = TTV_EXIT_BAD_INPUT;
	return rc;
}
