/*
 * The command line's table and its rules (cli_options.h). Each row says
 * what an option is to getopt and what it asks of the rest of the line:
 * the mode it selects (one mode at a time: a second is refused as it is
 * read), the modes it goes with, the options one of which it needs and
 * those it excludes. Once the line is read, one loop holds every option
 * given to its row, and the message names what the row names; --help
 * (usage() below) says the same in words, and tests/cli/cli_contract.sh
 * holds the two together.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "export.h"
#include "live.h"
#include "xalloc.h"

#define M(m) (1u << (m))
#define O(o) ((uint64_t)1 << (o))
/* Every mode but the viewer. */
#define BATCH (M(MODE_COUNT) - 1 - M(MODE_VIEW))
/* The modes that print a table, which --tsv makes tab-separated. */
#define TABLES (M(MODE_STATS) | M(MODE_MARKERS) | M(MODE_SEARCH) | \
	M(MODE_QUERY) | M(MODE_CALLS) | M(MODE_CALLERS) | M(MODE_CALLEES) | \
	M(MODE_TREE) | M(MODE_DIFF))
#define FOLDED (M(MODE_COLLAPSED) | M(MODE_TREE))

/* The modes as the rules name them. Modes of one family (same `family`)
 * replace each other, and a second family is named by `apart`. */
static const struct {
	const char *name;
	enum cli_mode family;
	const char *apart;
} modes[MODE_COUNT] = {
	[MODE_VIEW] = { "the viewer", MODE_VIEW, "" },
	[MODE_INFO] = { "--info", MODE_INFO, "--info" },
	[MODE_STATS] = { "--stats", MODE_STATS, "--stats" },
	[MODE_MARKERS] = { "--markers", MODE_MARKERS, "--markers" },
	[MODE_SEARCH] = { "--search", MODE_SEARCH, "--search" },
	[MODE_QUERY] = { "--query", MODE_QUERY, "--query" },
	[MODE_CHROME] = { "--export chrome-json", MODE_CHROME, "--export" },
	[MODE_COLLAPSED] = { "--export collapsed", MODE_CHROME, "--export" },
#define CALLS_FAMILY "--calls, --callers, --callees or --tree"
	[MODE_CALLS] = { "--calls", MODE_CALLS, CALLS_FAMILY },
	[MODE_CALLERS] = { "--callers", MODE_CALLS, CALLS_FAMILY },
	[MODE_CALLEES] = { "--callees", MODE_CALLS, CALLS_FAMILY },
	[MODE_TREE] = { "--tree", MODE_CALLS, CALLS_FAMILY },
	[MODE_DIFF] = { "--diff", MODE_DIFF, "--diff" },
};

struct cli_option {
	const char *name;	/* --NAME */
	char letter;		/* -L, or 0 */
	bool arg;		/* takes a value */
	enum cli_mode sets;	/* the mode it asks for (MODE_VIEW: none) */
	uint32_t with;		/* M(modes) it goes with (0: every mode) */
	uint64_t needs;		/* O(options) one of which it needs */
	uint64_t excludes;	/* O(options) it does not go with */
};

static const struct cli_option options[OPT_COUNT] = {
	[OPT_INFO] = { "info", 'i', false, MODE_INFO, 0, 0, 0 },
	[OPT_STATS] = { "stats", 's', false, MODE_STATS, 0, 0, 0 },
	[OPT_MARKERS] = { "markers", 0, false, MODE_MARKERS, 0, 0, 0 },
	[OPT_SEARCH] = { "search", 0, true, MODE_SEARCH, 0, 0, 0 },
	[OPT_QUERY] = { "query", 0, true, MODE_QUERY, 0, 0, 0 },
	[OPT_QUERY_FILE] = { "query-file", 0, true, MODE_QUERY, 0, 0, 0 },
	[OPT_TSV] = { "tsv", 0, false, MODE_VIEW, TABLES, 0, 0 },
	[OPT_CSV] = { "csv", 0, false, MODE_VIEW, M(MODE_QUERY), 0, 0 },
	[OPT_JSON] = { "json", 0, false, MODE_VIEW, M(MODE_QUERY), 0, 0 },
	[OPT_SPREADSHEET_SAFE] = { "spreadsheet-safe", 0, false, MODE_VIEW,
	    0, O(OPT_TSV) | O(OPT_CSV), 0 },
	[OPT_SORT] = { "sort", 0, true, MODE_VIEW,
	    M(MODE_STATS) | M(MODE_DIFF), 0, 0 },
	[OPT_ASCENDING] = { "ascending", 0, false, MODE_VIEW,
	    M(MODE_STATS) | M(MODE_CALLS) | M(MODE_DIFF), 0, 0 },
	[OPT_CALLS] = { "calls", 0, true, MODE_CALLS, 0, 0, 0 },
	[OPT_CALLERS] = { "callers", 0, true, MODE_CALLERS, 0, 0, 0 },
	[OPT_CALLEES] = { "callees", 0, true, MODE_CALLEES, 0, 0, 0 },
	[OPT_TREE] = { "tree", 0, false, MODE_TREE, 0, 0, 0 },
	[OPT_RANGE] = { "range", 0, true, MODE_VIEW, BATCH, 0, 0 },
	[OPT_DIFF] = { "diff", 0, true, MODE_DIFF, 0, 0, 0 },
	[OPT_BY] = { "by", 0, true, MODE_VIEW, M(MODE_DIFF), 0, 0 },
	[OPT_NORMALIZE] = { "normalize", 0, true, MODE_VIEW, M(MODE_DIFF),
	    0, 0 },
	[OPT_MATCH_STRIP] = { "match-strip", 0, true, MODE_VIEW,
	    M(MODE_DIFF), 0, 0 },
	[OPT_RANGE_BASE] = { "range-base", 0, true, MODE_VIEW, M(MODE_DIFF),
	    0, 0 },
	[OPT_MIN_CHANGE] = { "min-change", 0, true, MODE_VIEW, M(MODE_DIFF),
	    0, 0 },
	[OPT_FAIL_ABOVE] = { "fail-above", 0, true, MODE_VIEW, M(MODE_DIFF),
	    0, 0 },
	[OPT_FAIL_ON_NEW] = { "fail-on-new", 0, false, MODE_VIEW,
	    M(MODE_DIFF), O(OPT_FAIL_ABOVE), 0 },
	[OPT_EXPORT] = { "export", 'e', true, MODE_CHROME, 0, 0, 0 },
	[OPT_OUTPUT] = { "output", 'o', true, MODE_VIEW, BATCH, 0, 0 },
	[OPT_PER_THREAD] = { "per-thread", 0, false, MODE_VIEW, FOLDED, 0,
	    0 },
	[OPT_MAX_DEPTH] = { "max-depth", 0, true, MODE_VIEW, FOLDED, 0, 0 },
	[OPT_THREAD] = { "thread", 't', true, MODE_VIEW, 0, 0, 0 },
	[OPT_FUNCTION] = { "function", 'f', true, MODE_VIEW, 0, 0,
	    O(OPT_HIDE) },
	[OPT_HIDE] = { "hide", 0, true, MODE_VIEW, 0, 0, 0 },
	[OPT_INSTR_MAP] = { "instr-map", 0, true, MODE_VIEW, 0, 0, 0 },
	[OPT_SYSROOT] = { "sysroot", 0, true, MODE_VIEW, 0, 0, 0 },
	[OPT_FORMAT] = { "format", 0, true, MODE_VIEW, 0, 0, 0 },
	[OPT_STRICT] = { "strict", 0, false, MODE_VIEW, 0, 0, 0 },
	[OPT_FROM_NOW] = { "from-now", 0, false, MODE_VIEW, 0, 0, 0 },
	[OPT_FOLLOW] = { "follow", 0, false, MODE_VIEW,
	    M(MODE_VIEW) | M(MODE_SEARCH) | M(MODE_MARKERS), 0, O(OPT_STRICT) |
	    O(OPT_OUTPUT) },
	[OPT_NO_STATE] = { "no-state", 0, false, MODE_VIEW, M(MODE_VIEW), 0,
	    0 },
	[OPT_INDEX] = { "index", 0, false, MODE_VIEW, 0, 0, 0 },
	[OPT_NO_INDEX] = { "no-index", 0, false, MODE_VIEW, 0, 0,
	    O(OPT_INDEX) },
	[OPT_HELP] = { "help", 'h', false, MODE_VIEW, 0, 0, 0 },
	[OPT_VERSION] = { "version", 'V', false, MODE_VIEW, 0, 0, 0 },
};

static void
usage(FILE *fp)
{
	fputs(
"Usage: ttv [OPTIONS] TRACE\n"
"Browse a trace in the terminal, or answer a question about it.\n"
"\n"
"TRACE is an LLVM XRay log (FDR or basic mode), a Fuchsia trace (FXT),\n"
"a CoreProfiler TraceLog, a CTF trace directory, or an LTTng live\n"
"session: net://HOST[:PORT]/host/HOSTNAME/SESSION (what the relay has\n"
"now; ttv --info net://HOST[:PORT] lists the sessions).\n"
"\n"
"Modes (default: the interactive viewer):\n"
"  -i, --info              format, time range, threads, record and marker\n"
"                          counts, warnings\n"
"  -s, --stats             one row per function: count, total, self, min,\n"
"                          median, p90, p99, max\n"
"      --markers           every marker in time order (TSC wraps, buffer\n"
"                          boundaries, CPU changes, events, lost data)\n"
"      --search REGEX      every match in time order, as / finds them in\n"
"                          the viewer: calls and instants by name, category\n"
"                          or string argument, and log records (smart-case)\n"
"      --query SQL         run SQL over the trace (Perfetto's tables: slice,\n"
"                          thread, process, thread_track, track, counter,\n"
"                          flow, args, sched, ...; see ttv-sql(7)); print\n"
"                          an aligned table\n"
"      --query-file FILE   the same, the SQL read from FILE\n"
"      --calls REGEX       every call of the matching functions, slowest\n"
"                          first: start, duration, self time, thread, depth\n"
"      --callers FUNC      the direct callers of FUNC: calls and time\n"
"      --callees FUNC      the functions FUNC calls directly: calls and time\n"
"      --tree              the call tree: each call path with its calls,\n"
"                          total and self time (--per-thread: by thread)\n"
"      --diff BASE         compare TRACE with BASE (any formats): per\n"
"                          function calls, total, self, p50, p99 in each,\n"
"                          the change and grew/shrank/same/only-base/\n"
"                          only-new, largest change of total first; on\n"
"                          a terminal without --tsv, -o or --fail-above,\n"
"                          the viewer on both (differential flame graph,\n"
"                          table, timelines)\n"
"      --tsv               with --stats, --markers, --search, --query,\n"
"                          --calls, --callers, --callees, --tree or\n"
"                          --diff: tab-separated with a header line\n"
"      --csv, --json       with --query: CSV, or JSON Lines (an array of\n"
"                          row objects per statement, one a line)\n"
"      --spreadsheet-safe  with --tsv or --csv: a ' before each name or\n"
"                          text that starts with =, +, - or @, which a\n"
"                          spreadsheet would run as a formula\n"
"      --sort KEY          with --stats: name, count, total (default), self,\n"
"                          min, median, p90, p99, max or samples; with\n"
"                          --diff: by the change of that key\n"
"      --ascending         with --stats or --diff: smallest first; with\n"
"                          --calls: fastest first\n"
"      --range START..END  only [START, END) of the trace, in every batch\n"
"                          mode: calls overlapping it, their times clipped\n"
"                          to it; times as ttv prints them and g takes\n"
"                          them, from the start (0..50us, +1.2ms..+3ms,\n"
"                          +2.373 750 ms) or, with -, back from the end\n"
"                          (-1ms..), or times of day (13:05:01.250); an\n"
"                          open side: the end\n"
"  -e, --export FORMAT     chrome-json (Perfetto, chrome://tracing) or\n"
"                          collapsed (folded stacks for flamegraph tools)\n"
"  -o, --output FILE       write the answer to FILE instead of stdout\n"
"      --per-thread        with --export collapsed or --tree: thread as\n"
"                          root frame\n"
"      --max-depth N       with --export collapsed or --tree: at most N\n"
"                          frames a path, deeper ones folded into one\n"
"                          \"[K frames]\" (default 1024)\n"
"\n"
"Diff (with --diff BASE):\n"
"      --by function|path  one row per function (default) or call path\n"
"      --normalize calls|total  compare per call, or as if both traces\n"
"                          took the same time\n"
"      --match-strip REGEX  cut what matches out of names before pairing\n"
"                          them (template arguments, JIT addresses)\n"
"      --range-base START..END  BASE's range (--range: both, else TRACE's)\n"
"      --min-change T[,P%] a change within T or P% of BASE's total is\n"
"                          \"same\" (default 10us,1%)\n"
"      --fail-above PCT    exit 3 when a function in both grew its total\n"
"                          by more than PCT% and --min-change\n"
"      --fail-on-new       with --fail-above: a function only in TRACE\n"
"                          fails too\n"
"\n"
"Filters (every mode):\n"
"  -t, --thread TID[,TID...]  only these threads\n"
"  -f, --function REGEX    only functions whose name matches (pcre2)\n"
"      --hide REGEX        leave out functions whose name matches\n"
"\n"
"Input:\n"
"      --instr-map BINARY  XRay: read function names from this binary\n"
"                          (default: PROG for a log named xray-log.PROG.*)\n"
"      --sysroot DIR       CTF: look for traced binaries under DIR\n"
"      --format NAME       skip detection: xray, fxt, coreprofiler, ctf\n"
"      --strict            fail on any damage instead of showing what\n"
"                          was readable\n"
"      --from-now          a live session (net://...): from the relay's\n"
"                          newest packets instead of the session's start\n"
"      --follow            go on reading what is written to the trace: the\n"
"                          viewer keeps to its end (G); with --search or\n"
"                          --markers, each row once its call is over, until\n"
"                          a live session ends or Ctrl-C (exit 130)\n"
"      --no-state          viewer: neither restore nor save the window,\n"
"                          range, pane, filters and bookmarks of the last\n"
"                          session on this trace\n"
"      --index             keep an index of the trace (in ~/.cache/ttv)\n"
"                          even when it reads fast; a trace that takes\n"
"                          0.3 s or more to read gets one anyway\n"
"      --no-index          neither read nor write the trace's index\n"
"\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Exit status: 0 ok, 1 unreadable or damaged input, 2 usage error or bad\n"
"query, 3 --fail-above failed, 130 query or --follow interrupted.\n"
"In the viewer, press ? for the keys, :diff BASE to compare; see ttv(1).\n",
	    fp);
}

/* --------------------------------------------------------------- reading */

/* Sets the mode once: a mode of another family is a usage error. */
static int
set_mode(struct cli_args *c, enum cli_mode m)
{
	if (c->mode != MODE_VIEW && modes[c->mode].family != modes[m].family) {
		char *msg = xasprintf("%s and %s do not go together",
		    modes[c->mode].apart, modes[m].apart);
		int rc = cli_usage_error(msg);
		free(msg);
		return rc;
	}
	c->mode = m;
	return CLI_RUN;
}

/* A value refused: the message made from fmt and the value. */
static int
refused(const char *fmt, const char *arg)
{
	char *msg = xasprintf(fmt, arg);
	int rc = cli_usage_error(msg);
	free(msg);
	return rc;
}

/* Takes one option and its value (NULL for none). */
static int
take(struct cli_args *c, enum cli_opt id, const char *arg)
{
	const struct cli_option *o = &options[id];
	char *err = NULL, *end;
	int rc;

	if (o->sets != MODE_VIEW && (rc = set_mode(c, o->sets)) != CLI_RUN)
		return rc;
	c->given |= O(id);
	switch (id) {
	case OPT_SEARCH: c->search = arg; break;
	case OPT_QUERY: c->query.sql = arg; break;
	case OPT_QUERY_FILE: c->query.file = arg; break;
	case OPT_CALLS: case OPT_CALLERS: case OPT_CALLEES: case OPT_TREE:
		c->calls.mode = id == OPT_CALLS ? CALLS_LIST :
		    id == OPT_CALLERS ? CALLS_CALLERS :
		    id == OPT_CALLEES ? CALLS_CALLEES : CALLS_TREE;
		c->calls.arg = arg;
		break;
	case OPT_RANGE: c->scope.range = arg; break;
	case OPT_RANGE_BASE: c->scope.range_base = arg; break;
	case OPT_DIFF: case OPT_BY: case OPT_NORMALIZE: case OPT_MATCH_STRIP:
	case OPT_MIN_CHANGE: case OPT_FAIL_ABOVE: case OPT_FAIL_ON_NEW:
		if (cli_diff_option(&c->diff, o->name, arg, &err) != 0) {
			rc = cli_usage_error(err);
			free(err);
			return rc;
		}
		break;
	case OPT_TSV:
		c->tsv = c->stats.tsv = c->calls.tsv = true;
		c->query.format = QUERY_TSV;
		break;
	/* --csv and --json: the last one says */
	case OPT_CSV:
		c->query.format = QUERY_CSV;
		c->given &= ~O(OPT_JSON);
		break;
	case OPT_JSON:
		c->query.format = QUERY_JSON;
		c->given &= ~O(OPT_CSV);
		break;
	case OPT_SPREADSHEET_SAFE:
		c->guard = c->stats.guard = c->calls.guard = true;
		c->query.guard = true;
		break;
	case OPT_SORT: {
		int k = stats_key_parse(arg);
		if (k < 0)
			return refused("unknown sort key '%s'", arg);
		c->stats.sort = k;
		break;
	}
	case OPT_ASCENDING: c->stats.ascending = c->calls.ascending = true;
		break;
	case OPT_EXPORT:
		if (strcmp(arg, "collapsed") == 0)
			c->mode = MODE_COLLAPSED;
		else if (strcmp(arg, "chrome-json") != 0)
			return refused("unknown export format '%s' (chrome-json "
			    "or collapsed)", arg);
		break;
	case OPT_OUTPUT: c->output = arg; break;
	case OPT_PER_THREAD: c->per_thread = c->calls.per_thread = true;
		break;
	case OPT_MAX_DEPTH: {
		unsigned long n = strtoul(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || n < 2 || n > 1000000)
			return refused("--max-depth takes a number from 2 to "
			    "1000000, not '%s'", arg);
		c->max_depth = c->calls.max_depth = (uint32_t)n;
		break;
	}
	case OPT_THREAD: c->scope.threads = arg; break;
	case OPT_FUNCTION: c->scope.function = arg; break;
	case OPT_HIDE: c->scope.hide = arg; break;
	case OPT_INSTR_MAP: c->open.load.instr_map = arg; break;
	case OPT_SYSROOT: c->open.load.sysroot = arg; break;
	case OPT_FORMAT: c->open.force_format = arg; break;
	case OPT_STRICT: c->open.load.strict = true; break;
	case OPT_FROM_NOW: c->open.load.live_from_now = true; break;
	case OPT_FOLLOW: c->follow = true; break;
	case OPT_INDEX: c->open.index = OPEN_INDEX_ON; break;
	case OPT_NO_INDEX: c->open.index = OPEN_INDEX_OFF; break;
	case OPT_HELP: usage(stdout); return TTV_EXIT_OK;
	case OPT_VERSION: printf("ttv %s\n", PACKAGE_VERSION); return TTV_EXIT_OK;
	default: break;
	}
	return CLI_RUN;
}

int
cli_parse(int argc, char **argv, struct cli_args *c)
{
	struct option lo[OPT_COUNT + 1];
	char letters[2 * OPT_COUNT + 1];
	size_t nl = 0;
	int ch, rc;

	memset(c, 0, sizeof *c);
	c->stats.sort = STATS_TOTAL;
	c->query.format = QUERY_TABLE;
	c->max_depth = EXPORT_MAX_DEPTH;
	cli_diff_init(&c->diff);
	/* getopt's list, from the table: a long option answers 256 + its
	 * row, a letter itself. */
	for (int i = 0; i < OPT_COUNT; i++) {
		const struct cli_option *o = &options[i];
		lo[i] = (struct option){ o->name, o->arg ? required_argument :
		    no_argument, NULL, 256 + i };
		if (o->letter != 0) {
			letters[nl++] = o->letter;
			if (o->arg)
				letters[nl++] = ':';
		}
	}
	lo[OPT_COUNT] = (struct option){ NULL, 0, NULL, 0 };
	letters[nl] = '\0';
	/* getopt's own messages then start with "ttv:", as ours do. */
	argv[0] = (char *)"ttv";
	while ((ch = getopt_long(argc, argv, letters, lo, NULL)) != -1) {
		int id = ch >= 256 ? ch - 256 : -1;
		for (int i = 0; id < 0 && ch != '?' && i < OPT_COUNT; i++)
			if (options[i].letter == ch)
				id = i;
		if (id < 0) {
			fputs("Try 'ttv --help' for more information.\n",
			    stderr);
			return TTV_EXIT_USAGE;
		}
		if ((rc = take(c, (enum cli_opt)id, optarg)) != CLI_RUN)
			return rc;
	}
	if (optind != argc - 1)
		return cli_usage_error(optind >= argc ? "no trace given" :
		    "only one trace at a time");
	c->path = argv[optind];
	return CLI_RUN;
}

/* --------------------------------------------------------------- checking */

/* The names of the rows or modes in mask, "A", "A or B", "A, B or C". */
static char *
names(uint64_t mask, bool of_modes)
{
	char *out = xstrdup("");
	int n = of_modes ? MODE_COUNT : OPT_COUNT, left = 0;

	for (int i = 0; i < n; i++)
		left += (mask >> i) & 1;
	for (int i = 0; i < n; i++) {
		if (!((mask >> i) & 1))
			continue;
		char *next = xasprintf("%s%s%s%s", out, *out == '\0' ? "" :
		    left == 1 ? " or " : ", ", of_modes ? "" : "--",
		    of_modes ? modes[i].name : options[i].name);
		free(out);
		out = next;
		left--;
	}
	return out;
}

/* What the first rule that option id breaks says, or NULL. */
static char *
broken(const struct cli_args *c, int id)
{
	const struct cli_option *o = &options[id];
	char *list, *msg;

	if (o->with != 0 && !(o->with & M(c->mode))) {
		list = o->with == BATCH ? xstrdup("a batch mode") :
		    names(o->with, true);
	} else if (o->needs != 0 && !(c->given & o->needs)) {
		list = names(o->needs, false);
	} else if (c->given & o->excludes) {
		int x = __builtin_ctzll(c->given & o->excludes);
		return xasprintf("--%s and --%s do not go together", o->name,
		    options[x].name);
	} else
		return NULL;
	msg = xasprintf("--%s goes with %s", o->name, list);
	free(list);
	return msg;
}

int
cli_check(struct cli_args *c)
{
	char *err = NULL;
	int rc = CLI_RUN;

	/* the table's rules, one option after another */
	for (int i = 0; i < OPT_COUNT; i++)
		if ((c->given & O(i)) && (err = broken(c, i)) != NULL) {
			rc = cli_usage_error(err);
			free(err);
			return rc;
		}
	if (cli_given(c, OPT_FROM_NOW) && !live_url_is(c->path))
		return cli_usage_error("--from-now goes with a live session "
		    "(net://HOST/host/HOSTNAME/SESSION)");
	/* the patterns compiled, the ranges and the threads read before the
	 * (possibly long) load */
	if (c->search != NULL &&
	    (c->search_re = regex_compile_search(c->search, &err)) == NULL) {
		char *msg = xasprintf("bad regex '%s': %s", c->search, err);
		cli_say(NULL, msg);
		free(msg);
		free(err);
		return TTV_EXIT_USAGE;
	}
	if (cli_calls_check(&c->calls, &err) != 0 ||
	    cli_diff_check(&c->diff, cli_given(c, OPT_SORT), c->stats.sort,
	    &err) != 0 || scope_check(&c->scope, &err) != 0) {
		rc = cli_usage_error(err);
		free(err);
		return rc;
	}
	if (c->output != NULL && !cli_output_dir_ok(c->output))
		return TTV_EXIT_BAD_INPUT;
	return CLI_RUN;
}

void
cli_args_free(struct cli_args *c)
{
	scope_free(&c->scope);
	regex_free(c->search_re);
	c->search_re = NULL;
	cli_calls_free(&c->calls);
	cli_diff_free(&c->diff);
}
