/*
 * ttv: the program, on top of the core, the readers and the viewer. Reads
 * the command line (cli_options.c: one table of options and their rules),
 * opens the trace by the one road every mode takes (cli_open.c: the load,
 * the scope's filter, the messages), then runs the viewer or one batch
 * mode on the trace's selection. Errors from everything below are
 * reported here, as "ttv: FILE: what".
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_follow.h"
#include "cli_open.h"
#include "cli_options.h"
#include "export.h"
#include "index.h"
#include "live.h"
#include "srcline.h"
#include "viewer.h"

/* The viewer's load ends: a failed one closes the terminal first, so that
 * the messages that follow stay on the screen. */
static void
view_loaded(void *arg, bool failed)
{
	if (failed)
		viewer_close(arg);
}

static int
view(struct cli_args *c)
{
	struct trace *t;
	struct selection sel;

	/* An unreadable path is said plainly, before the screen flashes. */
	if (!live_url_is(c->path) && access(c->path, R_OK) != 0) {
		cli_say(c->path, strerror(errno));
		return TTV_EXIT_BAD_INPUT;
	}
	struct viewer *w = viewer_open(c->path);
	if (w == NULL)
		return TTV_EXIT_USAGE;
	struct cli_display d = { viewer_progress, view_loaded, NULL, w, true };
	int rc = cli_open(c->path, &c->open, &c->scope, true, &d, &t, &sel);
	if (rc != TTV_EXIT_OK)
		return rc;
	/* the viewer frees the trace: what its index meets is held apart */
	struct index_damage *damage = index_damage_of(t);
	/* The viewer probes: a window's ends, a column's calls, a call's
	 * children; read ahead of them, a mapped index would fill memory
	 * with calls no frame draws. */
	trace_advise(t, TRACE_PROBE);
	/* the info pane's last line, as --info prints it */
	char *line = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&line, &len);
	if (mem != NULL) {
		cli_info_index(c->open.index_report, mem);
		if (fclose(mem) == 0 && len > 0) {
			line[strcspn(line, "\n")] = '\0';
			viewer_set_index(w, line);
		}
		free(line);
	}
	/* source lines from the binaries' debug info, for the details pane
	 * and O */
	struct srcline *src = srcline_new();
	viewer_set_source(w, srcline_find_fn, src);
	/* :diff BASE takes the same road. */
	struct viewer_diff vd;
	cli_diff_viewer_options(c, &vd);
	rc = viewer_run(w, t, &sel, &c->scope, !cli_given(c, OPT_NO_STATE),
	    &vd);
	srcline_free(src);
	selection_clear(&sel);
	/* Said once the screen is given back, not under it. */
	cli_index_messages(c->path, c->open.index_report, stderr);
	if (cli_index_damage(c->path, c->open.index_report,
	    index_damage_found(damage), stderr))
		rc = TTV_EXIT_BAD_INPUT;
	index_damage_release(damage);
	return rc;
}

/* --diff on a terminal without an output for a script (--tsv, --output,
 * --fail-above) is the viewer's; elsewhere, the table. */
static bool
diff_viewed(const struct cli_args *c)
{
	return !cli_given(c, OPT_TSV) && !cli_given(c, OPT_OUTPUT) &&
	    !cli_given(c, OPT_FAIL_ABOVE) && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO);
}

/* Runs the batch mode on the selection: its exit status, 0 when it has
 * nothing to say of its own. */
static int
run_mode(struct cli_args *c, const struct trace *t,
    const struct selection *sel, FILE *out)
{
	char *err = NULL;
	uint64_t folded;

	switch (c->mode) {
	case MODE_INFO:
		cli_info(t, sel, out);
		cli_info_index(c->open.index_report, out);
		return 0;
	case MODE_STATS: cli_stats(t, sel, &c->stats, out); return 0;
	case MODE_MARKERS:
		cli_markers(t, sel, &(struct cli_rows){ .tsv = c->tsv,
		    .guard = c->guard }, out);
		return 0;
	case MODE_CALLS: case MODE_CALLERS: case MODE_CALLEES: case MODE_TREE:
		return cli_calls(t, sel, &c->calls, c->path, out);
	case MODE_QUERY: return cli_query(t, sel, &c->query, out);
	case MODE_SEARCH:
		if (cli_search(t, sel, c->search_re, &(struct cli_rows){
		    .tsv = c->tsv, .guard = c->guard }, out, &err) == 0)
			return 0;
		cli_say(c->path, err);
		free(err);
		return TTV_EXIT_USAGE;
	case MODE_CHROME:
		export_chrome_json_range(t, &sel->f, sel->t0, sel->t1, out);
		return 0;
	case MODE_COLLAPSED:
		export_collapsed_range(t, &sel->f, sel->t0, sel->t1,
		    c->per_thread, c->max_depth, out, &folded);
		if (folded > 0)
			fprintf(stderr, "ttv: warning: %llu stacks deeper than "
			    "%u frames folded into one \"[N frames]\" frame "
			    "each (--max-depth)\n", (unsigned long long)folded,
			    c->max_depth);
		return 0;
	default: return 0;
	}
}

static int
batch(struct cli_args *c)
{
	struct cli_progress prog;
	struct cli_display d;
	struct trace *t;
	struct selection sel;
	char *err = NULL;
	FILE *out = stdout;

	/* A live relay's URL alone: its sessions. */
	if (c->mode == MODE_INFO && live_url_is(c->path)) {
		int rc = cli_info_relay(c->path, stdout);
		if (rc != CLI_RUN)
			return rc;
	}
	cli_progress_stderr(&prog, c->path, &d);
	int rc = cli_open(c->path, &c->open, &c->scope, true, &d, &t, &sel);
	if (rc != TTV_EXIT_OK)
		return rc;
	char *warn = NULL;
	int ranged = scope_range(&c->scope, t, false, &sel, &err, &warn);
	if (warn != NULL) {
		/* an answer about nothing, said so: the range is past it */
		cli_warn(c->path, warn);
		free(warn);
	}
	if (ranged != 0) {
		rc = cli_usage_error(err);
		free(err);
	} else if (c->output != NULL && (out = cli_open_output(c->output, 1,
	    &c->path, (const struct trace *const *)&t, c->query.file)) ==
	    NULL) {
		rc = TTV_EXIT_BAD_INPUT;
	} else {
		/* Every batch mode reads the calls in order, when it reads
		 * them. */
		trace_advise(t, TRACE_SCAN);
		int mode_rc = run_mode(c, t, &sel, out);
		rc = mode_rc != 0 ? mode_rc : t->has_errors ?
		    TTV_EXIT_BAD_INPUT : TTV_EXIT_OK;
		if (cli_close_output(out, c->output) != 0)
			rc = TTV_EXIT_BAD_INPUT;
		if (cli_index_damage(c->path, c->open.index_report,
		    index_trace_damaged(t), stderr))
			rc = TTV_EXIT_BAD_INPUT;
	}
	selection_clear(&sel);
	trace_free(t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct cli_args c;
	struct index_report ir = { 0 };

	setlocale(LC_ALL, "");
	int rc = cli_parse(argc, argv, &c);
	if (rc == CLI_RUN)
		rc = cli_check(&c);
	/* The index's large arrays are checked on first touch where a mode
	 * may read few of them (the viewer; --stats and --info, which an
	 * index answers from its tables; --diff, which prints only once
	 * both sides are worked out and reads a damaged side again), else
	 * all at open, so that damage found never follows output. A diff
	 * by path of the whole traces reads every call: one pass at open
	 * costs less than a fault per block (0.45 s against 1.1 s on two
	 * 500 MB logs). --diff's two traces each open (and report) their
	 * own. */
	c.open.index_report = c.mode == MODE_DIFF ? NULL : &ir;
	c.open.index_lazy = c.mode == MODE_VIEW || c.mode == MODE_STATS ||
	    c.mode == MODE_INFO || (c.mode == MODE_DIFF &&
	    (c.diff.by == DIFF_BY_FUNCTION || c.scope.range != NULL ||
	    c.scope.range_base != NULL));
	if (rc == CLI_RUN && c.mode == MODE_VIEW && c.follow)
		rc = cli_follow_view(&c);
	else if (rc == CLI_RUN && c.mode == MODE_VIEW)
		rc = view(&c);
	else if (rc == CLI_RUN && c.mode == MODE_DIFF && diff_viewed(&c))
		rc = cli_diff_view(&c);
	else if (rc == CLI_RUN && c.mode == MODE_DIFF)
		rc = cli_diff(&c.diff, c.path, &c.open, &c.scope, &c.stats,
		    c.output);
	else if (rc == CLI_RUN && c.follow)
		rc = cli_follow(&c, stdout);
	else if (rc == CLI_RUN)
		rc = batch(&c);
	index_report_clear(&ir);
	cli_args_free(&c);
	return rc;
}
