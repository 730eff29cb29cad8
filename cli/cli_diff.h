/*
 * --diff BASE: two traces compared (query_diff.h), as an aligned table or
 * TSV, and the CI gate --fail-above. Its own options are taken here by
 * name, so that the command line only lists them; its scope is every
 * mode's, --range-base the base's range.
 */
#ifndef TTV_CLI_DIFF_H
#define TTV_CLI_DIFF_H

#include <stdbool.h>

#include "cli.h"
#include "open_trace.h"
#include "query_diff.h"
#include "scope.h"
#include "viewer.h"

/* The gate failed: some row grew beyond --fail-above. */
#define CLI_EXIT_GATE 3

struct diff_cli {
	const char *base;		/* --diff BASE, NULL: not asked */
	const char *strip;		/* --match-strip */
	/* compiled by cli_diff_check, twice: a regex is used by one
	 * thread at a time, and the two traces' parts are made at once */
	struct regex *strip_re, *strip_re_new;
	enum diff_by by;
	enum diff_norm norm;
	ttv_ns min_abs;
	double min_rel;
	bool min_set;
	bool fail;			/* --fail-above given */
	double fail_above;		/* percent */
	bool fail_on_new;
};

/* Defaults: by function, no normalisation, the noise of query_diff.h. */
void cli_diff_init(struct diff_cli *o);
/* One option of --diff by its long name ("diff", "by", "normalize",
 * "match-strip", "min-change", "fail-above", "fail-on-new") with its
 * argument: 0, or -1 with *err (usage error). */
int cli_diff_option(struct diff_cli *o, const char *name, const char *arg,
    char **err);
/* What can be checked before loading (the options' rules are the
 * command line's): the sort key by path, and the pattern, compiled: 0, or
 * -1 with *err (usage error). */
int cli_diff_check(struct diff_cli *o, bool sort_set, enum stats_key sort,
    char **err);
void cli_diff_free(struct diff_cli *o);
/* Runs --diff: BASE and path opened as every mode opens a trace, each
 * with sc's filter (its --thread aside: see below) and range (--range,
 * for both unless --range-base), output as so says (tsv, guard, sort,
 * ascending) to `output` or stdout. A thread list keeps in each trace the
 * threads of the list it has (two runs seldom share tids: list both); a
 * tid neither has, or a trace with none of them, is an error. Returns the
 * exit status: 0, 1 (input), 2 (usage, regex budget), CLI_EXIT_GATE. */
int cli_diff(const struct diff_cli *o, const char *path,
    const struct open_options *oo, const struct scope *sc,
    const struct stats_options *so, const char *output);

/* One side's selection beyond the scope's filter (cli_load with threads
 * false): the threads of sc's list that t has (other, the trace loaded
 * before, NULL for the first: a tid must be in one of the two), then its
 * range (base: --range-base when given). Returns the exit status, with
 * *err (caller frees) when not 0; *about: the message is about t (else
 * about both traces); *warn (caller frees; NULL: none, or not wanted
 * when warn is NULL): a range reaching past t's span. Says nothing
 * itself: the viewer's road takes it too. */
int cli_diff_select(bool base, const struct trace *t,
    const struct trace *other, const struct scope *sc, struct selection *sel,
    char **err, char **warn, bool *about);

/* The viewer on two traces (ttv --diff without --tsv, --output or
 * --fail-above, on a terminal): BASE and TRACE loaded with their progress
 * on the status line, then the differential flame graph. And the road
 * that :diff BASE takes in any viewer (arg: the cli_args). */
struct cli_args;
int cli_diff_view(struct cli_args *c);
int cli_diff_open_base(void *arg, const char *path,
    const struct trace *other, void (*progress)(void *, uint64_t, uint64_t),
    void *parg, struct trace **t, struct selection *sel, char **err);
void cli_diff_viewer_options(const struct cli_args *c, struct viewer_diff *vd);

#endif
