/*
 * ttv: the command line. Parses options, checks that each goes with the
 * mode asked for, then opens the trace through open_trace() (the one road
 * the viewer takes too) and runs one batch mode (--info, --stats,
 * --markers, --export) or the viewer. Errors from everything below are
 * reported here, as "ttv: FILE: what".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_calls.h"
#include "cli_diff.h"
#include "escape.h"
#include "export.h"
#include "open_trace.h"
#include "query.h"
#include "viewer.h"
#include "xalloc.h"

enum { EXIT_OK = TTV_EXIT_OK, EXIT_BAD_INPUT = TTV_EXIT_BAD_INPUT,
	EXIT_USAGE = TTV_EXIT_USAGE };

enum mode { MODE_VIEW, MODE_INFO, MODE_STATS, MODE_EXPORT, MODE_MARKERS,
	MODE_SEARCH, MODE_QUERY, MODE_CALLS, MODE_DIFF };
static const char *const mode_option[] = {
	[MODE_VIEW] = "", [MODE_INFO] = "--info", [MODE_STATS] = "--stats",
	[MODE_EXPORT] = "--export", [MODE_MARKERS] = "--markers",
	[MODE_SEARCH] = "--search", [MODE_QUERY] = "--query",
	[MODE_CALLS] = "--calls, --callers, --callees or --tree",
	[MODE_DIFF] = "--diff",
};

enum {
	OPT_TSV = 256, OPT_SORT, OPT_ASCENDING, OPT_INSTR_MAP, OPT_SYSROOT,
	OPT_FORMAT, OPT_STRICT, OPT_PER_THREAD, OPT_HIDE, OPT_MARKERS,
	OPT_SEARCH, OPT_MAX_DEPTH, OPT_QUERY, OPT_QUERY_FILE, OPT_CSV, OPT_JSON,
	OPT_CALLS, OPT_CALLERS, OPT_CALLEES, OPT_TREE, OPT_RANGE, OPT_NO_STATE,
	OPT_SPREADSHEET_SAFE, OPT_DIFF, OPT_DIFF_OPTION,
	OPT_INDEX, OPT_NO_INDEX,
};

static const struct option long_options[] = {
	{ "info", no_argument, NULL, 'i' },
	{ "stats", no_argument, NULL, 's' },
	{ "markers", no_argument, NULL, OPT_MARKERS },
	{ "search", required_argument, NULL, OPT_SEARCH },
	{ "query", required_argument, NULL, OPT_QUERY },
	{ "query-file", required_argument, NULL, OPT_QUERY_FILE },
	{ "tsv", no_argument, NULL, OPT_TSV },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "spreadsheet-safe", no_argument, NULL, OPT_SPREADSHEET_SAFE },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "ascending", no_argument, NULL, OPT_ASCENDING },
	{ "calls", required_argument, NULL, OPT_CALLS },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "diff", required_argument, NULL, OPT_DIFF },
	/* --diff's own, taken by cli_diff_option() by name */
	{ "by", required_argument, NULL, OPT_DIFF_OPTION },
	{ "normalize", required_argument, NULL, OPT_DIFF_OPTION },
	{ "match-strip", required_argument, NULL, OPT_DIFF_OPTION },
	{ "range-base", required_argument, NULL, OPT_DIFF_OPTION },
	{ "min-change", required_argument, NULL, OPT_DIFF_OPTION },
	{ "fail-above", required_argument, NULL, OPT_DIFF_OPTION },
	{ "fail-on-new", no_argument, NULL, OPT_DIFF_OPTION },
	{ "export", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "thread", required_argument, NULL, 't' },
	{ "function", required_argument, NULL, 'f' },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "instr-map", required_argument, NULL, OPT_INSTR_MAP },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "no-state", no_argument, NULL, OPT_NO_STATE },
	{ "index", no_argument, NULL, OPT_INDEX },
	{ "no-index", no_argument, NULL, OPT_NO_INDEX },
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
"                          only-new, largest change of total first\n"
"      --tsv               with --stats, --markers, --search, --query,\n"
"                          --calls, --callers, --callees, --tree or\n"
"                          --diff: tab-separated with a header line\n"
"      --csv, --json       with --query: CSV, or a JSON array of objects\n"
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
"                          to it; times as the viewer's g takes them,\n"
"                          from the start (0..50us, +1.2ms..+3ms) or, with\n"
"                          -, back from the end (-1ms..); an open side:\n"
"                          the end\n"
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
"query, 3 --fail-above failed, 130 query interrupted.\n"
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

/* Progress of a long load on stderr, when it is a terminal: after a
 * second, then a few times a second; the line is wiped at the end. */
struct progress {
	const char *path;
	struct timespec start, last;
	bool shown;
};

static double
since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
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
progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

/* The directory that would hold FILE exists and takes files. */
static bool
output_dir_ok(const char *file)
{
	char *dir = xstrdup(file);
	char *slash = strrchr(dir, '/');
	bool ok;

	if (slash == NULL)
		ok = access(".", W_OK) == 0;
	else {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		ok = access(dir, W_OK) == 0;
	}
	free(dir);
	return ok;
}

/* The directory part of path ("." for none). Caller frees. */
static char *
dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL) {
		free(dir);
		return xstrdup(".");
	}
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

static bool
same_file(const struct stat *a, uint64_t dev, uint64_t ino)
{
	return (uint64_t)a->st_dev == dev && (uint64_t)a->st_ino == ino;
}

/* The input file FILE would overwrite (by device and inode: a link or
 * another name of it is the same file), or NULL. */
static const char *
input_at(const struct stat *st, size_t n, const struct trace *const ts[],
    const char *query_file)
{
	struct stat q;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k]->nfiles; i++)
			if (same_file(st, ts[k]->files[i].dev,
			    ts[k]->files[i].ino))
				return ts[k]->files[i].path;
	if (query_file != NULL && stat(query_file, &q) == 0 &&
	    same_file(st, (uint64_t)q.st_dev, (uint64_t)q.st_ino))
		return query_file;
	return NULL;
}

/* For a trace directory: the file of the trace read in the directory
 * that would hold FILE (FILE would be read as part of that trace next
 * time), or NULL. */
static const char *
trace_dir_at(const char *file, const char *path, const struct trace *t)
{
	struct stat st, ds;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	char *dir = dir_of(file);
	bool ok = stat(dir, &st) == 0;
	free(dir);
	size_t plen = strlen(path);
	for (size_t i = 0; ok && i < t->nfiles; i++) {
		/* the files under the trace's directory, not the binaries
		 * found elsewhere */
		const char *f = t->files[i].path;
		if (strncmp(f, path, plen) != 0 || f[plen] != '/')
			continue;
		char *d = dir_of(f);
		bool same = stat(d, &ds) == 0 && same_file(&st,
		    (uint64_t)ds.st_dev, (uint64_t)ds.st_ino);
		free(d);
		if (same)
			return f;
	}
	return NULL;
}

static FILE *
output_refused(const char *file, const char *why, const char *input, int fd)
{
	fputs("ttv: ", stderr);
	escape_fputs(file, stderr);
	fprintf(stderr, ": %s", why);
	if (input != NULL) {
		fputs(" (", stderr);
		escape_fputs(input, stderr);
		fputs(")", stderr);
	}
	putc('\n', stderr);
	if (fd >= 0)
		close(fd);
	return NULL;
}

FILE *
cli_open_output(const char *file, size_t n, const char *const paths[],
    const struct trace *const ts[], const char *query_file)
{
	struct stat st;
	const char *input;
	if (stat(file, &st) == 0 &&
	    (input = input_at(&st, n, ts, query_file)) != NULL)
		return output_refused(file, "output would overwrite the input",
		    input, -1);
	for (size_t k = 0; k < n; k++)
		if ((input = trace_dir_at(file, paths[k], ts[k])) != NULL)
			return output_refused(file, "output would go into the "
			    "trace's directory, to be read as part of the "
			    "trace", input, -1);
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0 || fstat(fd, &st) != 0)
		return output_refused(file, strerror(errno), NULL, fd);
	if ((input = input_at(&st, n, ts, query_file)) != NULL)
		return output_refused(file, "output would overwrite the input",
		    input, fd);
	FILE *fp = NULL;
	if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) ||
	    (fp = fdopen(fd, "w")) == NULL)
		return output_refused(file, strerror(errno), NULL, fd);
	return fp;
}

/* Sets the mode once: two modes at a time is a usage error. */
static int
set_mode(enum mode *mode, enum mode m)
{
	if (*mode != MODE_VIEW && *mode != m) {
		fprintf(stderr, "ttv: %s and %s do not go together\n"
		    "Try 'ttv --help' for more information.\n",
		    mode_option[*mode], mode_option[m]);
		return EXIT_USAGE;
	}
	*mode = m;
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	enum mode mode = MODE_VIEW;
	struct stats_options so = { .sort = STATS_TOTAL };
	struct query_options qo = { .format = QUERY_TABLE };
	struct calls_options co = { 0 };
	const char *export_format = NULL, *output = NULL, *search = NULL;
	bool per_thread = false, tsv = false, sort = false, depth_set = false;
	bool csv_json = false, ascending = false, no_state = false;
	bool safe = false;
	struct diff_cli dc;
	int longindex = 0;
	uint32_t max_depth = EXPORT_MAX_DEPTH;
	struct open_options oo = { 0 };
	int c, rc;

	setlocale(LC_ALL, "");
	cli_diff_init(&dc);
	/* getopt's own messages then start with "ttv:", as ours do. */
	argv[0] = (char *)"ttv";
	while ((c = getopt_long(argc, argv, "ise:o:t:f:hV", long_options,
	    &longindex)) != -1) {
		rc = EXIT_OK;
		switch (c) {
		case 'i': rc = set_mode(&mode, MODE_INFO); break;
		case 's': rc = set_mode(&mode, MODE_STATS); break;
		case OPT_MARKERS: rc = set_mode(&mode, MODE_MARKERS); break;
		case OPT_SEARCH:
			rc = set_mode(&mode, MODE_SEARCH);
			search = optarg;
			break;
		case OPT_QUERY:
			rc = set_mode(&mode, MODE_QUERY);
			qo.sql = optarg;
			break;
		case OPT_QUERY_FILE:
			rc = set_mode(&mode, MODE_QUERY);
			qo.file = optarg;
			break;
		case OPT_CALLS: case OPT_CALLERS: case OPT_CALLEES:
		case OPT_TREE:
			rc = set_mode(&mode, MODE_CALLS);
			co.mode = c == OPT_CALLS ? CALLS_LIST : c == OPT_CALLERS ?
			    CALLS_CALLERS : c == OPT_CALLEES ? CALLS_CALLEES :
			    CALLS_TREE;
			co.arg = optarg;
			break;
		case OPT_RANGE: co.range = optarg; break;
		case OPT_DIFF:
		case OPT_DIFF_OPTION: {
			char *e = NULL;
			if (c == OPT_DIFF)
				rc = set_mode(&mode, MODE_DIFF);
			if (rc == EXIT_OK && cli_diff_option(&dc,
			    long_options[longindex].name, optarg, &e) != 0) {
				rc = usage_error("%s", e);
				free(e);
			}
			break;
		}
		case OPT_TSV:
			tsv = so.tsv = co.tsv = true;
			qo.format = QUERY_TSV;
			break;
		case OPT_CSV: csv_json = true; qo.format = QUERY_CSV; break;
		case OPT_JSON: csv_json = true; qo.format = QUERY_JSON; break;
		case OPT_SPREADSHEET_SAFE:
			safe = so.guard = co.guard = qo.guard = true;
			break;
		case OPT_SORT: {
			int k = stats_key_parse(optarg);
			if (k < 0)
				return usage_error("unknown sort key '%s'",
				    optarg);
			so.sort = k;
			sort = true;
			break;
		}
		case OPT_ASCENDING:
			so.ascending = co.ascending = true;
			ascending = true;
			break;
		case 'e':
			rc = set_mode(&mode, MODE_EXPORT);
			export_format = optarg;
			if (strcmp(optarg, "chrome-json") != 0 &&
			    strcmp(optarg, "collapsed") != 0)
				return usage_error("unknown export format '%s' "
				    "(chrome-json or collapsed)", optarg);
			break;
		case 'o': output = optarg; break;
		case OPT_PER_THREAD: per_thread = co.per_thread = true; break;
		case OPT_MAX_DEPTH: {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || n < 2 ||
			    n > 1000000)
				return usage_error("--max-depth takes a number "
				    "from 2 to 1000000, not '%s'", optarg);
			max_depth = co.max_depth = (uint32_t)n;
			depth_set = true;
			break;
		}
		case 't': oo.threads = optarg; break;
		case 'f': oo.function = optarg; break;
		case OPT_HIDE: oo.hide = optarg; break;
		case OPT_INSTR_MAP: oo.load.instr_map = optarg; break;
		case OPT_SYSROOT: oo.load.sysroot = optarg; break;
		case OPT_FORMAT: oo.force_format = optarg; break;
		case OPT_STRICT: oo.load.strict = true; break;
		case OPT_NO_STATE: no_state = true; break;
		case OPT_INDEX:
		case OPT_NO_INDEX: {
			enum open_index want = c == OPT_INDEX ? OPEN_INDEX_ON :
			    OPEN_INDEX_OFF;
			if (oo.index != OPEN_INDEX_AUTO && oo.index != want)
				return usage_error("%s", "--index and "
				    "--no-index do not go together");
			oo.index = want;
			break;
		}
		case 'h': usage(stdout); return EXIT_OK;
		case 'V':
			printf("ttv %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		default:
			fputs("Try 'ttv --help' for more information.\n",
			    stderr);
			return EXIT_USAGE;
		}
		if (rc != EXIT_OK)
			return rc;
	}
	if (optind != argc - 1)
		return usage_error("%s", optind >= argc ? "no trace given" :
		    "only one trace at a time");
	const char *path = argv[optind];

	/* Options that only mean something with a mode. */
	if (tsv && mode != MODE_STATS && mode != MODE_MARKERS &&
	    mode != MODE_SEARCH && mode != MODE_QUERY && mode != MODE_CALLS &&
	    mode != MODE_DIFF)
		return usage_error("%s", "--tsv goes with --stats, --markers, "
		    "--search, --query, --calls, --callers, --callees, --tree "
		    "or --diff");
	if (csv_json && mode != MODE_QUERY)
		return usage_error("%s", "--csv and --json go with --query");
	if (sort && mode != MODE_STATS && mode != MODE_DIFF)
		return usage_error("%s", "--sort goes with --stats or --diff");
	if (ascending && mode != MODE_STATS && mode != MODE_DIFF &&
	    !(mode == MODE_CALLS && co.mode == CALLS_LIST))
		return usage_error("%s", "--ascending goes with --stats, --diff "
		    "or --calls");
	if (no_state && mode != MODE_VIEW)
		return usage_error("%s", "--no-state goes with the viewer");
	if (co.range != NULL && mode == MODE_VIEW)
		return usage_error("%s", "--range goes with a batch mode");
	if (depth_set && !(mode == MODE_EXPORT && strcmp(export_format,
	    "collapsed") == 0) && !(mode == MODE_CALLS &&
	    co.mode == CALLS_TREE))
		return usage_error("%s", "--max-depth goes with --export "
		    "collapsed or --tree");
	if (safe && !tsv && !(mode == MODE_QUERY && qo.format == QUERY_CSV))
		return usage_error("%s", "--spreadsheet-safe goes with --tsv "
		    "or --csv");
	if (per_thread && !(mode == MODE_EXPORT && strcmp(export_format,
	    "collapsed") == 0) && !(mode == MODE_CALLS &&
	    co.mode == CALLS_TREE))
		return usage_error("%s", "--per-thread goes with --export "
		    "collapsed or --tree");
	if (output != NULL && mode == MODE_VIEW)
		return usage_error("%s", "--output goes with a batch mode "
		    "(--info, --stats, --markers, --search, --query, --export)");

	/* Check the filters and the pattern before the (possibly long)
	 * load. */
	char *err = NULL;
	if (search != NULL) {
		struct regex *re = regex_compile(search, &err);
		if (re == NULL) {
			fputs("ttv: bad regex '", stderr);
			escape_fputs(search, stderr);
			fprintf(stderr, "': %s\n", err);
			free(err);
			return EXIT_USAGE;
		}
		regex_free(re);
	}
	if (cli_calls_check(&co, &err) != 0) {
		rc = usage_error("%s", err);
		free(err);
		return rc;
	}
	if (cli_diff_check(&dc, sort, so.sort, &err) != 0) {
		rc = usage_error("%s", err);
		free(err);
		return rc;
	}
	if ((rc = open_trace_check(&oo, &err)) != EXIT_OK) {
		rc = usage_error("%s", err);
		free(err);
		return rc;
	}
	if (output != NULL && !output_dir_ok(output)) {
		fputs("ttv: ", stderr);
		escape_fputs(output, stderr);
		fprintf(stderr, ": %s\n", strerror(errno));
		return EXIT_BAD_INPUT;
	}

	/* The index's large arrays are checked on first touch where a mode
	 * may read few of them (the viewer; --stats and --info, which an
	 * index answers from its tables), else all at open, so that damage
	 * found never follows output. */
	struct index_report ir = { 0 };
	oo.index_report = &ir;
	oo.index_lazy = mode == MODE_VIEW || mode == MODE_STATS ||
	    mode == MODE_INFO;
	if (mode == MODE_VIEW) {
		rc = viewer_main(path, &oo, !no_state);
		if (cli_index_damage(path, &ir, stderr))
			rc = EXIT_BAD_INPUT;
		index_report_clear(&ir);
		return rc;
	}
	if (mode == MODE_DIFF) {
		/* Two traces: each opens (and reports) its own index. */
		oo.index_report = NULL;
		return cli_diff(&dc, path, &oo, &co, &so, output);
	}

	struct progress prog = { .path = path };
	if (isatty(STDERR_FILENO)) {
		clock_gettime(CLOCK_MONOTONIC, &prog.start);
		oo.load.progress = progress_cb;
		oo.load.progress_arg = &prog;
	}
	struct trace *t;
	struct filter f;
	rc = open_trace(path, &oo, &t, &f, &err);
	progress_end(&prog);
	cli_index_messages(path, &ir, stderr);
	if (t != NULL)
		open_trace_report(t, path, CLI_DIAGS_ON_STDERR, stderr);
	if (rc != EXIT_OK) {
		fputs("ttv: ", stderr);
		escape_fputs(path, stderr);
		fputs(": ", stderr);
		escape_fputs(err ? err : "unreadable", stderr);
		putc('\n', stderr);
		free(err);
		filter_clear(&f);
		if (t != NULL)
			trace_free(t);
		index_report_clear(&ir);
		return rc;
	}

	if (cli_range_resolve(t, &co, &err) != 0) {
		rc = usage_error("%s", err);
		free(err);
		filter_clear(&f);
		trace_free(t);
		index_report_clear(&ir);
		return rc;
	}
	so.t0 = co.t0;
	so.t1 = co.t1;
	qo.has_range = co.range != NULL;
	qo.t0 = co.t0;
	qo.t1 = co.t1;

	FILE *out = stdout;
	if (output != NULL && (out = cli_open_output(output, 1, &path,
	    (const struct trace *const *)&t, qo.file)) == NULL) {
		filter_clear(&f);
		trace_free(t);
		index_report_clear(&ir);
		return EXIT_BAD_INPUT;
	}
	rc = t->has_errors ? EXIT_BAD_INPUT : EXIT_OK;
	/* Every batch mode reads the calls in order, when it reads them. */
	trace_advise(t, TRACE_SCAN);
	switch (mode) {
	case MODE_INFO:
		cli_info(t, &f, out);
		cli_range_info(t, &f, &co, out);
		cli_info_index(&ir, out);
		break;
	case MODE_STATS: cli_stats(t, &f, &so, out); break;
	case MODE_MARKERS:
		cli_markers(t, &f, co.t0, co.t1, tsv, safe, out);
		break;
	case MODE_CALLS: {
		int calls_rc = cli_calls(t, &f, &co, path, out);
		rc = calls_rc != 0 ? calls_rc : rc;
		break;
	}
	case MODE_QUERY: {
		int q = cli_query(t, &f, &qo, out);
		rc = q != 0 ? q : rc;
		break;
	}
	case MODE_SEARCH:
		if (cli_search(t, &f, search, co.t0, co.t1, tsv, safe, out,
		    &err) != 0) {
			fputs("ttv: ", stderr);
			escape_fputs(path, stderr);
			fputs(": ", stderr);
			escape_fputs(err, stderr);
			putc('\n', stderr);
			free(err);
			rc = EXIT_USAGE;
		}
		break;
	case MODE_EXPORT:
		if (strcmp(export_format, "chrome-json") == 0) {
			export_chrome_json_range(t, &f, co.t0, co.t1, out);
			break;
		}
		uint64_t folded;
		export_collapsed_range(t, &f, co.t0, co.t1, per_thread,
		    max_depth, out, &folded);
		if (folded > 0)
			fprintf(stderr, "ttv: warning: %llu stacks deeper than "
			    "%u frames folded into one \"[N frames]\" frame "
			    "each (--max-depth)\n", (unsigned long long)folded,
			    max_depth);
		break;
	default: break;
	}
	if (fflush(out) != 0 || ferror(out)) {
		fputs("ttv: ", stderr);
		escape_fputs(output ? output : "stdout", stderr);
		fprintf(stderr, ": %s\n", strerror(errno));
		rc = EXIT_BAD_INPUT;
	}
	if (out != stdout)
		fclose(out);
	if (cli_index_damage(path, &ir, stderr))
		rc = EXIT_BAD_INPUT;
	index_report_clear(&ir);
	filter_clear(&f);
	trace_free(t);
	return rc;
}
