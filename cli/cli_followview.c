/*
 * The viewer on a trace being written (ttv --follow TRACE on a
 * terminal): the road the batch --follow takes (formats/follow.h: look
 * ten times a second, read the whole input again when it changed, a tail
 * not whole yet being "not yet"), handed to the viewer, which runs it on
 * a thread of its own and moves its panes to each newer read. A file is
 * read once here first, with its progress on the status line; a
 * directory or a live session may have nothing to read for a while, so
 * the viewer starts on an empty trace and says it waits.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builder.h"
#include "cli.h"
#include "cli_diff.h"
#include "cli_follow.h"
#include "cli_open.h"
#include "follow.h"
#include "live.h"
#include "load.h"
#include "srcline.h"
#include "xalloc.h"
#include "viewer.h"

static bool
stopped_now(volatile sig_atomic_t *stop)
{
	return __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

/* The viewer's road: on the follower's thread, so it says nothing. */
static int
next_read(void *arg, volatile sig_atomic_t *stop, struct trace **t,
    char **err, bool *ended)
{
	struct follow *f = arg;
	bool fresh;

	*t = NULL;
	*err = NULL;
	*ended = false;
	enum follow_wait w = follow_wait(f, stop);
	if (w == FOLLOW_STOPPED)
		return -1;
	/* a fresh trace (an XRay directory's next log) replaces the
	 * shown one as a grown one does */
	*t = follow_read(f, stop, &fresh, err);
	if (*t == NULL && stopped_now(stop))
		return -1;
	*ended = w == FOLLOW_ENDED;
	if (*ended) {
		/* a relay lost, or one that sent damage, ends it too: why */
		struct trace *said = follow_said(f, "");
		for (size_t i = 0; said != NULL && *err == NULL &&
		    i < said->ndiags; i++)
			if (said->diags[i].level == DIAG_ERROR)
				*err = xstrdup(said->diags[i].text);
		if (said != NULL)
			trace_free(said);
	}
	return 0;
}

int
cli_follow_view(struct cli_args *c)
{
	struct stat st;
	char *err = NULL;
	bool file = false;

	/* An unreadable path is said plainly, before the screen flashes. */
	if (!live_url_is(c->path)) {
		if (stat(c->path, &st) != 0 || access(c->path, R_OK) != 0) {
			cli_say(c->path, strerror(errno));
			return TTV_EXIT_BAD_INPUT;
		}
		file = S_ISREG(st.st_mode);
	}
	struct viewer *w = viewer_open(c->path);
	if (w == NULL)
		return TTV_EXIT_USAGE;
	/* Nothing is written while the terminal is the viewer's: what a
	 * relay says comes with the trace's warnings. */
	struct load_options lo = c->open.load;
	lo.notice = NULL;
	lo.notice_arg = NULL;
	lo.progress = NULL;
	lo.progress_arg = NULL;
	struct follow *f = follow_open(c->path, c->open.force_format, &lo,
	    &err);
	if (f == NULL) {
		viewer_close(w);
		cli_say(c->path, err);
		free(err);
		return TTV_EXIT_BAD_INPUT;
	}
	/* what the trace's index read is not read again */
	free(follow_from_index(f, &c->open));
	struct trace *t = NULL;
	if (file) {
		/* a file's first look is at once: read what is there */
		volatile sig_atomic_t never = 0;
		if (follow_wait(f, &never) != FOLLOW_STOPPED) {
			/* its progress on the status line, here only:
			 * the follower's reads write nothing */
			struct load_options first = lo;
			first.progress = viewer_progress;
			first.progress_arg = w;
			first.follow = true;
			t = load_trace(c->path, c->open.force_format, &first,
			    &err);
			free(err);
			err = NULL;
		}
	}
	if (t == NULL) {
		/* nothing yet: an empty trace, until the first read */
		t = builder_finish(builder_new(c->path));
	}
	struct selection sel;
	selection_init(&sel);
	/* the threads named may come later: then the thread pane picks */
	int fr = scope_filter(&c->scope, t, true, &sel, &err);
	if (fr == SCOPE_NO_THREAD) {
		free(err);
		err = NULL;
		selection_clear(&sel);
		selection_init(&sel);
		fr = scope_filter(&c->scope, t, false, &sel, &err);
	}
	if (fr != 0) {
		viewer_close(w);
		cli_say(c->path, err);
		free(err);
		selection_clear(&sel);
		trace_free(t);
		follow_close(f);
		return fr == SCOPE_UNDECIDED ? TTV_EXIT_USAGE :
		    TTV_EXIT_BAD_INPUT;
	}
	struct srcline *src = srcline_new();
	viewer_set_source(w, srcline_find_fn, src);
	struct viewer_follow vf = { .next = next_read, .arg = f,
	    .live = live_url_is(c->path) };
	viewer_set_follow(w, &vf);
	struct viewer_diff vd;
	cli_diff_viewer_options(c, &vd);
	/* the saved state: what is not a time of one read (ui/state.h) */
	int rc = viewer_run(w, t, &sel, &c->scope,
	    !cli_given(c, OPT_NO_STATE), &vd);
	srcline_free(src);
	selection_clear(&sel);
	/* the follower's thread is stopped: the live session let go */
	follow_close(f);
	return rc;
}
