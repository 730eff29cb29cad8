/*
 * The viewer on two traces (ttv --diff BASE TRACE on a terminal, without
 * --tsv, --output or --fail-above): both loaded by the road every mode
 * takes, their progress on the viewer's status line, then the viewer with
 * the differential flame graph in front. And the road the viewer's
 * :diff BASE takes to its base: the same, run on the viewer's worker
 * thread, saying nothing (the terminal is the viewer's) but why it failed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_diff.h"
#include "cli_open.h"
#include "cli_options.h"
#include "index.h"
#include "live.h"
#include "xalloc.h"

void
cli_diff_viewer_options(const struct cli_args *c, struct viewer_diff *vd)
{
	memset(vd, 0, sizeof *vd);
	vd->by = c->diff.by;
	vd->norm = c->diff.norm;
	vd->min_abs = c->diff.min_abs;
	vd->min_rel = c->diff.min_rel;
	vd->strip = c->diff.strip;
	vd->sort = c->stats.sort;
	vd->ascending = c->stats.ascending;
	vd->open = cli_diff_open_base;
	vd->arg = (void *)c;
	vd->t0 = TTV_NS_MIN;
	vd->t1 = TTV_NS_MAX;
	selection_init(&vd->base_sel);
}

int
cli_diff_open_base(void *arg, const char *path, const struct trace *other,
    void (*progress)(void *, uint64_t, uint64_t), void *parg,
    struct trace **t, struct selection *sel, char **err)
{
	const struct cli_args *c = arg;
	struct cli_display d = { .progress = progress, .arg = parg,
	    .diags_elsewhere = true };
	bool about;
	/* The base takes the index's road too, but its index is checked
	 * whole at open and reports nothing: a viewer may compare with
	 * several bases in turn, and what is said once it ends is the
	 * viewed trace's. */
	struct open_options o = c->open;
	o.index_report = NULL;
	o.index_lazy = false;
	int rc = cli_load(path, &o, &c->scope, false, &d, t, sel, err);

	if (rc == TTV_EXIT_OK)
		rc = cli_diff_select(true, *t, other, &c->scope, sel, err,
		    NULL, &about);
	if (rc == TTV_EXIT_OK)
		return 0;
	selection_clear(sel);
	if (*t != NULL)
		trace_free(*t);
	*t = NULL;
	return -1;
}

int
cli_diff_view(struct cli_args *c)
{
	const char *paths[2] = { c->diff.base, c->path };
	struct trace *t[2] = { NULL, NULL };
	struct selection sel[2];
	struct index_report ir[2];
	char *err = NULL;
	bool about = true, loaded = true;
	int rc = TTV_EXIT_OK, i;

	selection_init(&sel[0]);
	selection_init(&sel[1]);
	memset(ir, 0, sizeof ir);
	/* An unreadable path is said plainly, before the screen flashes. */
	for (i = 0; i < 2; i++)
		if (!live_url_is(paths[i]) && access(paths[i], R_OK) != 0) {
			cli_say(paths[i], strerror(errno));
			return TTV_EXIT_BAD_INPUT;
		}
	struct viewer *w = viewer_open(c->path);
	if (w == NULL)
		return TTV_EXIT_USAGE;
	for (i = 0; i < 2; i++) {
		struct cli_display d = { .progress = viewer_progress,
		    .arg = w, .diags_elsewhere = true };
		/* Each index checked on first touch, as the viewer's, and
		 * with its own report: what each met is said of its own
		 * trace once the screen is given back. */
		struct open_options oo = c->open;
		oo.index_lazy = true;
		oo.index_report = &ir[i];
		viewer_loading(w, paths[i]);
		rc = cli_load(paths[i], &oo, &c->scope, false, &d, &t[i],
		    &sel[i], &err);
		if (rc != TTV_EXIT_OK)
			break;
		loaded = false;
		rc = cli_diff_select(i == 0, t[i], i == 1 ? t[0] : NULL,
		    &c->scope, &sel[i], &err, NULL, &about);
		if (rc != TTV_EXIT_OK)
			break;
		loaded = true;
	}
	viewer_loading(w, NULL);
	if (rc != TTV_EXIT_OK) {
		/* As cli_open says it, the terminal given back first. */
		viewer_close(w);
		if (loaded && t[i] != NULL)
			open_trace_report(t[i], paths[i], CLI_DIAGS_ON_STDERR,
			    stderr);
		if (!loaded && rc == TTV_EXIT_USAGE)
			rc = cli_usage_error(err);
		else
			cli_say(about ? paths[i] : NULL, err);
		free(err);
		for (i = 0; i < 2; i++) {
			selection_clear(&sel[i]);
			if (t[i] != NULL)
				trace_free(t[i]);
			index_report_clear(&ir[i]);
		}
		return rc;
	}
	struct viewer_diff vd;
	bool base_damaged = t[0]->has_errors;
	/* the viewer frees both traces: what their indexes meet is held
	 * apart */
	struct index_damage *damage[2] = { index_damage_of(t[0]),
	    index_damage_of(t[1]) };
	cli_diff_viewer_options(c, &vd);
	vd.base_path = paths[0];
	vd.base = t[0];
	vd.base_sel = sel[0];
	vd.t0 = sel[1].t0;
	vd.t1 = sel[1].t1;
	/* A comparison's window is not the trace's: no state kept. */
	rc = viewer_run(w, t[1], &sel[1], &c->scope, false, &vd);
	selection_clear(&sel[1]);
	/* A damaged base says so too, as the batch diff does. */
	if (rc == TTV_EXIT_OK && base_damaged)
		rc = TTV_EXIT_BAD_INPUT;
	/* Said once the screen is given back, base first; a damaged index
	 * cannot be mended under the screen: said, removed, exit 1. */
	for (i = 0; i < 2; i++) {
		cli_index_messages(paths[i], &ir[i], stderr);
		if (cli_index_damage(paths[i], &ir[i],
		    index_damage_found(damage[i]), stderr) &&
		    rc == TTV_EXIT_OK)
			rc = TTV_EXIT_BAD_INPUT;
		index_damage_release(damage[i]);
		index_report_clear(&ir[i]);
	}
	return rc;
}
