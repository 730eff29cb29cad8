/*
 * The command line: one table of options (name, letter, argument, the mode
 * an option asks for, the modes it goes with, the options it needs or
 * excludes), from which getopt's list is made and every rule is checked,
 * by one loop, once the line is read; --help's text beside it. What the
 * line says is kept in a struct cli_args, the modes' own options and the
 * scope (scope.h) that every mode is given.
 */
#ifndef TTV_CLI_OPTIONS_H
#define TTV_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "cli_calls.h"
#include "cli_diff.h"
#include "open_trace.h"
#include "scope.h"

/* What the program is asked to do: the viewer, or one batch mode. The
 * modes of one option (--export, the calls family) replace each other;
 * any other two are refused. */
enum cli_mode {
	MODE_VIEW, MODE_INFO, MODE_STATS, MODE_MARKERS, MODE_SEARCH,
	MODE_QUERY, MODE_CHROME, MODE_COLLAPSED, MODE_CALLS, MODE_CALLERS,
	MODE_CALLEES, MODE_TREE, MODE_DIFF, MODE_COUNT
};

/* Every option, in the order of getopt's list (which orders the
 * "possibilities" of an ambiguous abbreviation) and of the rule checks. */
enum cli_opt {
	OPT_INFO, OPT_STATS, OPT_MARKERS, OPT_SEARCH, OPT_QUERY,
	OPT_QUERY_FILE, OPT_TSV, OPT_CSV, OPT_JSON, OPT_SPREADSHEET_SAFE,
	OPT_SORT, OPT_ASCENDING, OPT_CALLS, OPT_CALLERS, OPT_CALLEES,
	OPT_TREE, OPT_RANGE, OPT_DIFF, OPT_BY, OPT_NORMALIZE,
	OPT_MATCH_STRIP, OPT_RANGE_BASE, OPT_MIN_CHANGE, OPT_FAIL_ABOVE,
	OPT_FAIL_ON_NEW, OPT_EXPORT, OPT_OUTPUT, OPT_PER_THREAD,
	OPT_MAX_DEPTH, OPT_THREAD, OPT_FUNCTION, OPT_HIDE, OPT_INSTR_MAP,
	OPT_SYSROOT, OPT_FORMAT, OPT_STRICT, OPT_FROM_NOW, OPT_FOLLOW,
	OPT_NO_STATE, OPT_INDEX, OPT_NO_INDEX, OPT_HELP, OPT_VERSION,
	OPT_COUNT
};

struct cli_args {
	enum cli_mode mode;
	const char *path;		/* the trace */
	uint64_t given;			/* 1 << enum cli_opt, per option */
	struct open_options open;	/* --format, --instr-map, ... */
	struct scope scope;		/* --thread, --function, --hide,
					 * --range, --range-base */
	const char *output;		/* --output FILE, or NULL: stdout */
	bool tsv, guard;		/* --tsv, --spreadsheet-safe */
	bool follow;			/* --follow */
	const char *search;		/* --search REGEX */
	struct regex *search_re;	/* ... compiled by cli_check */
	bool per_thread;		/* --export collapsed's */
	uint32_t max_depth;
	struct stats_options stats;
	struct query_options query;
	struct calls_options calls;
	struct diff_cli diff;
};

static inline bool
cli_given(const struct cli_args *c, enum cli_opt o)
{
	return (c->given >> o) & 1;
}

/* cli_parse and cli_check: go on (else the exit status). */
#define CLI_RUN (-1)

/* Reads argv into *c (cli_args_free it, whatever the answer): CLI_RUN,
 * or the exit status after --help, --version or a usage error (a value
 * not taken, a second mode, not one trace). */
int cli_parse(int argc, char **argv, struct cli_args *c);
/* Every rule of the table, then what can be checked before a load (the
 * patterns compiled, the ranges and the thread list parsed, the
 * output's directory): CLI_RUN, or the exit status after a message. */
int cli_check(struct cli_args *c);
void cli_args_free(struct cli_args *c);

#endif
