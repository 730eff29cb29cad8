/*
 * ttv: the command line. Parses options, loads the trace, and either runs
 * one batch mode (--info, --stats, --export) or opens the viewer. Errors
 * from everything below are reported here, as "ttv: FILE: what".
 */
#include "config.h"

#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_calls.h"
#include "escape.h"
#include "export.h"
#include "load.h"
#include "query.h"
#include "viewer.h"
#include "xalloc.h"

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

/* Diagnostics shown on stderr before the rest go to --info only. */
#define DIAGS_ON_STDERR 20

enum mode { MODE_VIEW, MODE_INFO, MODE_STATS, MODE_EXPORT, MODE_CALLS };

enum {
	OPT_TSV = 256, OPT_SORT, OPT_ASCENDING, OPT_INSTR_MAP, OPT_SYSROOT,
	OPT_FORMAT, OPT_STRICT, OPT_PER_THREAD, OPT_HIDE,
	OPT_CALLS, OPT_CALLERS, OPT_CALLEES, OPT_TREE, OPT_RANGE,
};

static const struct option long_options[] = {
	{ "info", no_argument, NULL, 'i' },
	{ "stats", no_argument, NULL, 's' },
	{ "tsv", no_argument, NULL, OPT_TSV },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "ascending", no_argument, NULL, OPT_ASCENDING },
	{ "calls", required_argument, NULL, OPT_CALLS },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "export", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "thread", required_argument, NULL, 't' },
	{ "function", required_argument, NULL, 'f' },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "instr-map", required_argument, NULL, OPT_INSTR_MAP },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *fp)
{
	fputs(
"Usage: ttv [OPTIONS] TRACE\n"
"Browse a trace in the terminal, or answer a question about it.\n"
"\n"
"TRACE is an LLVM XRay log (FDR or basic mode), a Fuchsia trace (FXT),\n"
"a CoreProfiler TraceLog, or a CTF trace directory.\n"
"\n"
"Modes (default: the interactive viewer):\n"
"  -i, --info              format, time range, threads, record and marker\n"
"                          counts, warnings\n"
"  -s, --stats             one row per function: count, total, self, min,\n"
"                          median, p90, p99, max\n"
"      --tsv               with --stats, --calls, --callers, --callees,\n"
"                          --tree: tab-separated with a header line\n"
"      --sort KEY          with --stats: name, count, total (default), self,\n"
"                          min, median, p90, p99, max or samples\n"
"      --ascending         with --stats: smallest first; with --calls:\n"
"                          fastest first\n"
"      --calls REGEX       every call of the matching functions, slowest\n"
"                          first: start, duration, self time, thread, depth\n"
"      --callers FUNC      the direct callers of FUNC: calls and time\n"
"      --callees FUNC      the functions FUNC calls directly: calls and time\n"
"      --tree              the call tree: each call path with its calls,\n"
"                          total and self time (--per-thread: by thread)\n"
"      --range START..END  only [START, END) of the trace, in every batch\n"
"                          mode: calls overlapping it, their times clipped\n"
"                          to it; times as the viewer's g takes them,\n"
"                          from the start (0..50us, +1.2ms..+3ms) or, with\n"
"                          -, back from the end (-1ms..); an open side:\n"
"                          the end\n"
"  -e, --export FORMAT     chrome-json (Perfetto, chrome://tracing) or\n"
"                          collapsed (folded stacks for flamegraph tools)\n"
"  -o, --output FILE       write the export to FILE instead of stdout\n"
"      --per-thread        with --export collapsed or --tree: thread as\n"
"                          root frame\n"
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
"\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Exit status: 0 ok, 1 unreadable or damaged input, 2 usage error.\n"
"In the viewer, press ? for the keys; see ttv(1).\n", fp);
}

static int
usage_error(const char *fmt, const char *arg)
{
	fputs("ttv: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'ttv --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

static void
report_diags(const struct trace *t, const char *path)
{
	size_t shown = 0;
	for (size_t i = 0; i < t->ndiags && shown < DIAGS_ON_STDERR; i++) {
		fputs("ttv: ", stderr);
		escape_fputs(path, stderr);
		fputs(t->diags[i].level == DIAG_ERROR ? ": " : ": warning: ",
		    stderr);
		escape_fputs(t->diags[i].text, stderr);
		putc('\n', stderr);
		shown++;
	}
	uint64_t more = t->ndiags - shown + t->ndiags_dropped;
	if (more > 0)
		fprintf(stderr, "ttv: %llu more messages (see --info)\n",
		    (unsigned long long)more);
}

int
main(int argc, char **argv)
{
	enum mode mode = MODE_VIEW;
	struct stats_options so = { .sort = STATS_TOTAL };
	const char *export_format = NULL, *output = NULL, *threads = NULL;
	const char *function = NULL, *hide = NULL, *format = NULL;
	bool per_thread = false;
	struct load_options lo = { 0 };
	struct calls_options co = { 0 };
	int c;

	setlocale(LC_ALL, "");
	while ((c = getopt_long(argc, argv, "ise:o:t:f:hV", long_options,
	    NULL)) != -1) {
		switch (c) {
		case 'i': mode = MODE_INFO; break;
		case 's': mode = MODE_STATS; break;
		case OPT_TSV: so.tsv = co.tsv = true; break;
		case OPT_CALLS: case OPT_CALLERS: case OPT_CALLEES: case OPT_TREE:
			mode = MODE_CALLS;
			co.mode = c == OPT_CALLS ? CALLS_LIST : c == OPT_CALLERS ?
			    CALLS_CALLERS : c == OPT_CALLEES ? CALLS_CALLEES :
			    CALLS_TREE;
			co.arg = optarg;
			break;
		case OPT_RANGE: co.range = optarg; break;
		case OPT_SORT: {
			int k = stats_key_parse(optarg);
			if (k < 0)
				return usage_error("unknown sort key '%s'",
				    optarg);
			so.sort = k;
			break;
		}
		case OPT_ASCENDING: so.ascending = co.ascending = true; break;
		case 'e':
			mode = MODE_EXPORT;
			export_format = optarg;
			if (strcmp(optarg, "chrome-json") != 0 &&
			    strcmp(optarg, "collapsed") != 0)
				return usage_error("unknown export format '%s' "
				    "(chrome-json or collapsed)", optarg);
			break;
		case 'o': output = optarg; break;
		case OPT_PER_THREAD: per_thread = co.per_thread = true; break;
		case 't': threads = optarg; break;
		case 'f': function = optarg; break;
		case OPT_HIDE: hide = optarg; break;
		case OPT_INSTR_MAP: lo.instr_map = optarg; break;
		case OPT_SYSROOT: lo.sysroot = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case OPT_STRICT: lo.strict = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V':
			printf("ttv %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		default:
			fputs("Try 'ttv --help' for more information.\n",
			    stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return usage_error("%s", optind >= argc ? "no trace given" :
		    "only one trace at a time");
	const char *path = argv[optind];
	if (function != NULL && hide != NULL)
		return usage_error("%s", "--function and --hide do not go "
		    "together");

	/* Check the filters before the (possibly long) load. */
	int64_t *tids = NULL;
	size_t ntids = 0;
	char *err = NULL;
	if (mode == MODE_VIEW && co.range != NULL)
		return usage_error("%s", "--range goes with a batch mode (--info, "
		    "--stats, --calls, --callers, --callees, --tree, --export)");
	if (cli_calls_check(&co, &err) != 0) {
		int rc = usage_error("%s", err);
		free(err);
		return rc;
	}
	if (threads != NULL && filter_parse_tids(threads, &tids, &ntids,
	    &err) != 0) {
		int rc = usage_error("%s", err);
		free(err);
		return rc;
	}
	struct regex *re = NULL;
	const char *pattern = function ? function : hide;
	if (pattern != NULL && (re = regex_compile(pattern, &err)) == NULL) {
		fprintf(stderr, "ttv: bad regex '%s': %s\n", pattern, err);
		free(err);
		free(tids);
		return EXIT_USAGE;
	}

	if (mode == MODE_VIEW) {
		regex_free(re);
		struct viewer_options vo = {
			.force_format = format, .tids = tids, .ntids = ntids,
			.function_regex = function,
		};
		int rc = viewer_main(path, &lo, &vo);
		free(tids);
		return rc;
	}

	struct trace *t = load_trace(path, format, &lo, &err);
	if (t == NULL) {
		fputs("ttv: ", stderr);
		escape_fputs(path, stderr);
		fputs(": ", stderr);
		escape_fputs(err, stderr);
		putc('\n', stderr);
		free(err);
		regex_free(re);
		free(tids);
		return EXIT_BAD_INPUT;
	}
	report_diags(t, path);
	if (lo.strict && t->has_errors) {
		fputs("ttv: stopped (--strict)\n", stderr);
		trace_free(t);
		regex_free(re);
		free(tids);
		return EXIT_BAD_INPUT;
	}

	struct filter f;
	filter_init(&f);
	if (tids != NULL)
		filter_set_threads(&f, t, tids, ntids, false);
	if (re != NULL)
		filter_set_functions(&f, t, re, hide != NULL);

	if (cli_range_resolve(t, &co, &err) != 0) {
		usage_error("%s", err);
		free(err);
		filter_clear(&f);
		regex_free(re);
		free(tids);
		trace_free(t);
		return EXIT_USAGE;
	}
	so.t0 = co.t0;
	so.t1 = co.t1;

	FILE *out = stdout;
	if (output != NULL && (out = fopen(output, "w")) == NULL) {
		perror(output);
		out = NULL;
	}
	int rc = t->has_errors ? EXIT_BAD_INPUT : EXIT_OK;
	if (out != NULL) {
		switch (mode) {
		case MODE_INFO:
			cli_info(t, &f, out);
			cli_range_info(t, &f, &co, out);
			break;
		case MODE_STATS: cli_stats(t, &f, &so, out); break;
		case MODE_EXPORT:
			if (strcmp(export_format, "chrome-json") == 0)
				export_chrome_json_range(t, &f, co.t0, co.t1, out);
			else
				export_collapsed_range(t, &f, co.t0, co.t1,
				    per_thread, out);
			break;
		case MODE_CALLS:
			if (cli_calls(t, &f, &co, path, out) != 0)
				rc = EXIT_BAD_INPUT;
			break;
		default: break;
		}
		if (fflush(out) != 0 || ferror(out)) {
			perror(output ? output : "stdout");
			rc = EXIT_BAD_INPUT;
		}
		if (out != stdout)
			fclose(out);
	} else {
		rc = EXIT_USAGE;
	}
	filter_clear(&f);
	regex_free(re);
	free(tids);
	trace_free(t);
	return rc;
}
