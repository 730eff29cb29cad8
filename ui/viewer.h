/*
 * The interactive viewer: runs the full-screen panes on a loaded trace.
 * The program opens the terminal first (viewer_open), so that the load it
 * then makes shows its progress on the status line (viewer_progress), and
 * hands over the trace loaded (viewer_run), or closes the terminal before
 * it says why the load failed (viewer_close).
 */
#ifndef TTV_VIEWER_H
#define TTV_VIEWER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "query_diff.h"
#include "scope.h"
#include "source.h"

struct viewer;

/* Opens the terminal for the trace at path. NULL after a message on
 * stderr when there is no usable terminal (exit status 2). */
struct viewer *viewer_open(const char *path);
/* A load's progress on the status line (a load_options progress, arg the
 * viewer). Ctrl-C while the load runs leaves the program (130), the
 * terminal restored. */
void viewer_progress(void *arg, uint64_t done, uint64_t total);
/* How the viewer finds the source line of a function (the program gives
 * the readers' layer's, formats/srcline.h); without it none is known. */
void viewer_set_source(struct viewer *w, source_find_fn find, void *arg);
/* The line ttv --info gives of the trace's index (used, built or
 * skipped, its file and size), shown last in the info pane; copied.
 * NULL: none. */
void viewer_set_index(struct viewer *w, const char *line);
/* The path the progress names while the program loads another trace
 * than the one viewed (the base of ttv --diff); NULL: the trace's own. */
void viewer_loading(struct viewer *w, const char *path);
/* Closes the terminal and frees w: the load failed, and what is written
 * next stays on the screen. */
void viewer_close(struct viewer *w);
/*
 * Comparing the trace with another (ttv --diff BASE TRACE, or :diff BASE
 * in the viewer): the comparison's options as the command line gave them,
 * and the program's road to a second trace, which the viewer takes on its
 * worker thread, as it cannot open a trace by itself.
 */
struct viewer_diff {
	enum diff_by by;		/* the table's rows (--by) */
	enum diff_norm norm;		/* --normalize */
	ttv_ns min_abs;			/* --min-change */
	double min_rel;
	const char *strip;		/* --match-strip, or NULL */
	enum stats_key sort;		/* the table's first order (--sort, */
	bool ascending;			/* --ascending) */
	/* Loads path as the base of a comparison with the trace `other`:
	 * the command line's options and scope, the base's range. Called on
	 * the worker thread, so it writes nothing (the terminal is the
	 * viewer's): 0, or -1 with *err (caller frees). progress(parg, done,
	 * total) as the load goes. *t and *sel are the caller's. */
	int (*open)(void *arg, const char *path, const struct trace *other,
	    void (*progress)(void *, uint64_t, uint64_t), void *parg,
	    struct trace **t, struct selection *sel, char **err);
	void *arg;
	/* A base the program loaded already (ttv --diff), which the viewer
	 * takes, and its selection; NULL: none yet. */
	const char *base_path;
	struct trace *base;
	struct selection base_sel;
	/* The trace's own range in the comparison (--range), TTV_NS_MIN and
	 * TTV_NS_MAX without one. */
	ttv_ns t0, t1;
};

/*
 * Following a trace while it is written (ttv --follow): the program's
 * road to the trace as it is now, which the viewer takes on a thread of
 * its own (ui/follower.h) as it cannot open a trace by itself.
 */
struct viewer_follow {
	/* Waits until the input changed (or *stop became non-zero: then
	 * -1) and reads it whole: 0 with *t, the trace as it is now (the
	 * caller's), or with *t NULL and *err (caller frees) saying why
	 * nothing can be read yet. *ended: the input ends here (a live
	 * session destroyed; or lost, *err then saying why), no call will
	 * come after. Writes nothing. */
	int (*next)(void *arg, volatile sig_atomic_t *stop, struct trace **t,
	    char **err, bool *ended);
	void *arg;
	/* A live session (net://): its end is said "session ended". */
	bool live;
};
/* Follows the trace viewer_run is given: f (copied) reads it again as it
 * grows, and the view moves to each newer trace, keeping its window,
 * range, filters, search, cursor and selections. */
void viewer_set_follow(struct viewer *w, const struct viewer_follow *f);

/* Runs the panes on t, which it takes, with the filter sel made from sc
 * (its function mask taken too), until the user quits; frees w. With
 * keep_state the state saved for the trace (state.h) is restored at the
 * start and saved at the end. diff (NULL: no comparison can be made)
 * holds the comparison's options and the road to a base; with a base
 * loaded, the viewer opens on the differential flame graph. Returns the
 * process exit status: 0 ok, 1 for a damaged trace (shown as far as it
 * could be read; a damaged base says so on the status line). */
int viewer_run(struct viewer *w, struct trace *t, struct selection *sel,
    const struct scope *sc, bool keep_state, struct viewer_diff *diff);

#endif
