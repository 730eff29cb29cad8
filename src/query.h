/*
 * Queries over an immutable trace model: what the panes and the batch
 * modes ask. None of them changes the trace; results are owned by the
 * caller and freed with the matching *_free().
 */
#ifndef TTV_QUERY_H
#define TTV_QUERY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "level.h"
#include "model.h"

/* ---------------------------------------------------------------- regex */

/*
 * Patterns (src/regex.c, the one place that compiles and matches them):
 * matched against the trace's interned strings, each distinct string
 * once, within a budget (README, "budget"). A match that PCRE2 gives up
 * on (a limit hit) is an error, never a "no": whatever asked then gets no
 * answer, and regex_error() says why.
 */
struct regex;
/* Compiles a pcre2 pattern (UTF-8 when valid). On error returns NULL and
 * sets *err to "MESSAGE at column N" (caller frees). */
struct regex *regex_compile(const char *pattern, char **err);
/* Searches are smart-case, as in vim and less: a pattern without an
 * upper-case letter (escapes such as \S aside) ignores case. */
bool regex_smart_caseless(const char *pattern);
struct regex *regex_compile_search(const char *pattern, char **err);
void regex_free(struct regex *re);
/* Whether PCRE2 compiled it to machine code (not with (*NO_JIT)). */
bool regex_jit(const struct regex *re);

/* The work one pattern may do over a trace's strings, per question asked
 * of them. The match limit of one string is steps / strings (a tenth of
 * that without JIT, ten times slower a step), at least REGEX_LIMIT_MIN
 * (unless quick) and at most REGEX_LIMIT_MAX: together the strings take
 * at most `steps`, about 2 s. The thread's CPU time (seconds, 0: no
 * limit) and *stop (another thread's Esc) are looked at between strings. A quick budget
 * is the viewer's try on its own thread: no floor under the limit, and
 * strings longer than max_len or more than max_bytes in all (0: any) are
 * not even tried, so it answers within a frame or not at all. */
#define REGEX_STEPS 1000000000ULL
#define REGEX_SECONDS 3.0
#define REGEX_LIMIT_MIN 10000u
#define REGEX_LIMIT_MAX 10000000u
struct regex_budget {
	uint64_t steps;
	double seconds;
	bool quick;
	size_t max_len, max_bytes;
	const atomic_int *stop;		/* not NULL: stop when it is set */
};
/* The README's budget: REGEX_STEPS, REGEX_SECONDS (TTV_REGEX_SECONDS
 * for tests, env.h), no stop flag. */
void regex_budget_default(struct regex_budget *b);
/* What the regex's next questions may cost (a copy is kept). */
void regex_set_budget(struct regex *re, const struct regex_budget *b);
/* Why the last question got no answer: "regex 'P' too costly: match
 * limit of N steps hit on string I of N (...)", "... too costly: stopped
 * after 3 s of work, ...", "regex 'P': stopped ..." (owned by re). */
const char *regex_error(const struct regex *re);

/* One string, with the match limit of the last question (PCRE2's
 * default at first): 1 match, 0 no match, -1 error (regex_error). */
int regex_match(struct regex *re, const char *s, size_t len);

/* Verdicts over a trace's strings, one byte per str_id (t->nstrings
 * bytes, from regex_verdicts_new): mark the strings a question needs with
 * regex_ask; regex_match_strings turns each into REGEX_YES or REGEX_NO
 * (in str_id order, one budget for them all) and returns 0, or -1 when it
 * could not (regex_error): the verdicts are then not to be used. */
enum { REGEX_UNASKED, REGEX_ASK, REGEX_NO, REGEX_YES };
uint8_t *regex_verdicts_new(const struct trace *t);
static inline void
regex_ask(const struct trace *t, uint8_t *v, str_id s)
{
	if (s < t->nstrings && v[s] == REGEX_UNASKED)
		v[s] = REGEX_ASK;
}
int regex_match_strings(struct regex *re, const struct trace *t,
    uint8_t *v);
/* The same, each string asked with every match cut out: cut (t->nstrings
 * pointers, NULL at first) gets at cut[s] the string without its matches
 * (caller frees), and stays NULL where nothing matched. A search per
 * character at most (an empty match steps over one character), each
 * within the string's share of the steps, and the CPU time looked at
 * between them. Returns 0, or -1 (regex_error) with every cut[s] NULL. */
int regex_cut_strings(struct regex *re, const struct trace *t, uint8_t *v,
    char **cut);
/* Asks every function's name (and non-empty category). */
void regex_ask_funcs(const struct trace *t, uint8_t *v, bool categories);
/* One byte per function from the verdicts: 1 where its name (or, with
 * categories, its category) matched (caller frees). */
uint8_t *regex_funcs_from(const struct trace *t, const uint8_t *v,
    bool categories);
/* One byte per function: 1 where the name matches (--calls); or the name
 * or the category (filters). NULL when the budget ran out (regex_error);
 * caller frees. */
uint8_t *regex_match_funcs(const struct trace *t, struct regex *re);
uint8_t *regex_match_funcs_or_categories(const struct trace *t,
    struct regex *re);

/* --------------------------------------------------------------- filter */

/* What every pane and batch mode shows: tracks and functions. A NULL mask
 * lets everything through. */
struct filter {
	uint8_t *track_on;	/* ntracks bytes */
	uint8_t *func_on;	/* nfuncs bytes */
	/* How func_on applies to call stacks: false keeps the stacks that
	 * pass through a function that is on (focus); true drops the frames
	 * that are off, their time going to their caller. */
	bool hide_functions;
};

void filter_init(struct filter *f);
void filter_clear(struct filter *f);
/* Keeps the thread tracks whose tid is in the list (or not, with invert);
 * other tracks of the same processes follow their threads' fate only when
 * invert is false and none of their process's threads is kept. */
void filter_set_threads(struct filter *f, const struct trace *t,
    const int64_t *tids, size_t n, bool invert);
/* Keeps only functions whose name or category matches re, or hides them
 * (hide = true). Returns 0, or -1 when re could not be matched within its
 * budget (regex_error says why): the filter is then left as it was, for a
 * filter that cannot be decided is not applied. */
int filter_set_functions(struct filter *f, const struct trace *t,
    struct regex *re, bool hide);
/* The same from the functions a pattern matched (one byte per function,
 * from regex_match_funcs_or_categories), which the filter takes; NULL
 * clears the function filter. */
void filter_set_function_mask(struct filter *f, const struct trace *t,
    uint8_t *match, bool hide);
/* Parses "TID[,TID...]" into a new array; -1 with *err on a bad list. */
int filter_parse_tids(const char *list, int64_t **tids, size_t *n, char **err);

static inline bool
filter_track(const struct filter *f, uint32_t track)
{
	return f == NULL || f->track_on == NULL || f->track_on[track];
}

static inline bool
filter_func(const struct filter *f, func_id fn)
{
	return f == NULL || f->func_on == NULL || f->func_on[fn];
}

/* --------------------------------------------------------------- window */

/* The slice at one depth that contains time t (start <= t < end, or a
 * zero-length slice at t). */
bool query_slice_at(const struct trace *t, uint32_t track, uint32_t depth,
    ttv_ns when, struct slice_ref *out);
bool query_parent(const struct trace *t, struct slice_ref r,
    struct slice_ref *out);
/* Whether slice i of a level holds a call of the level below that starts
 * at t: t inside it, or both at the same time when it lasted no time (a
 * zero-length call in a zero-length one). query_parent's rule, for the
 * walks that find parents themselves. */
static inline bool
level_holds(const struct depth_level *l, size_t i, ttv_ns t)
{
	const struct slice *s = &l->slices[i];
	return s->start <= t && (t < level_end(l, i) ||
	    (s->dur32 == 0 && s->start == t));
}
bool query_first_child(const struct trace *t, struct slice_ref r,
    struct slice_ref *out);
/* Next/previous slice in time on the same track and depth. */
bool query_next_sibling(const struct trace *t, struct slice_ref r,
    struct slice_ref *out);
bool query_prev_sibling(const struct trace *t, struct slice_ref r,
    struct slice_ref *out);
/* Duration minus the durations of direct children. */
ttv_ns query_self_time(const struct trace *t, struct slice_ref r);
/* Functions from the outermost frame down to r (caller frees *path). */
size_t query_call_path(const struct trace *t, struct slice_ref r,
    struct slice_ref **path);

/* ---------------------------------------------------------------- stats */

struct func_stats {
	func_id func;
	uint64_t count;		/* calls that returned (the count rule of
				 * query_calls.h) */
	uint64_t unfinished;	/* calls that never returned, not counted */
	uint64_t weight;	/* samples (sampled tracks), else = count */
	ttv_ns total, self, min, median, p90, p99, max;
	struct slice_ref longest;
};

struct stats_table {
	struct func_stats *rows;	/* the functions with a call counted */
	size_t n;
	uint64_t unfinished;	/* calls of every function left out as
				 * unfinished, rows or not */
};

enum stats_key {
	STATS_NAME, STATS_COUNT, STATS_TOTAL, STATS_SELF, STATS_MIN,
	STATS_MEDIAN, STATS_P90, STATS_P99, STATS_MAX,
	STATS_SAMPLES,	/* func_stats.weight: samples on sampled tracks */
	STATS_KEY_COUNT
};

/* One row per function with at least one call overlapping [t0, t1) on the
 * tracks and functions the filter lets through, times clipped to the range
 * (the rules of query_calls.h: a call that never returned is counted apart,
 * as unfinished, with no time). Percentiles follow llvm-xray account: the
 * value at index floor(q * n) of the sorted list. */
void query_stats(const struct trace *t, const struct filter *f, ttv_ns t0,
    ttv_ns t1, struct stats_table *out);
/* A first pass made in parts, each a set of whole tracks walked on a
 * worker of its own: part_of[track] is a track's part (every track but
 * the CPU lanes), counts[p][f] the calls of function f that part counted
 * (func_stats.count). The passes left are made in the same parts, on as
 * many workers. */
struct stats_parts {
	uint32_t n;
	const uint32_t *part_of;
	uint64_t *const *counts;
};
/* query_stats() of the whole trace, unfiltered, from its first pass
 * made elsewhere: rows (nfuncs, taken) hold each function's count,
 * unfinished, weight, total, self, min, max and longest as that pass
 * makes them over every track but the CPU lanes; the percentiles are
 * added. For a walk that already reads every call (the index's), when
 * every call lies inside the time axis (the whole range clips none).
 * parts: how that pass was split (NULL: one part). */
void query_stats_whole(const struct trace *t, struct func_stats *rows,
    const struct stats_parts *parts, struct stats_table *out);
/* The same with one row per group of functions: group[func] (nfuncs
 * entries) is the row of a function, below ngroups (ngroups or more: the
 * function is left out). A row's func is its group; the percentiles are
 * those of all the group's calls. Functions that share a name, or names
 * that pair once numbers are cut out of them (query_diff.h), are one row
 * so. */
void query_stats_grouped(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, const uint32_t *group, uint32_t ngroups,
    struct stats_table *out);
void stats_sort(const struct trace *t, struct stats_table *st,
    enum stats_key key, bool descending);
const char *stats_key_name(enum stats_key k);
int stats_key_parse(const char *name);
/* The value a row is sorted by for key (0 for STATS_NAME). */
ttv_ns stats_value(const struct func_stats *s, enum stats_key key);
void stats_free(struct stats_table *st);

/* ------------------------------------------------------------ call tree */

#define CALL_NONE UINT32_MAX
/* The func of a node that stands for every call below a depth limit. */
#define CALL_FOLDED (UINT32_MAX - 1)

struct call_node {
	func_id func;		/* CALL_NONE for the root and thread nodes,
				 * CALL_FOLDED for folded calls */
	uint32_t track;		/* thread nodes (per-thread trees): the track;
				 * folded nodes: the depth of the deepest
				 * call folded; else CALL_NONE */
	uint32_t parent, first_child, next_sibling;	/* CALL_NONE if none */
	uint32_t depth;
	uint64_t count;		/* calls that returned */
	uint64_t unfinished;	/* calls that never returned (query_calls.h):
				 * not in count, their time in total */
	uint64_t weight;	/* samples, or count where not sampled */
	uint64_t self_weight;	/* weight not in children */
	ttv_ns total;		/* time inside [t0, t1) */
	ttv_ns self;
};

struct call_tree {
	struct call_node *nodes;	/* nodes[0] is the root */
	size_t n;
};

/* The call tree of the slices overlapping [t0, t1), times clipped to the
 * window (the range rule of query_calls.h). A call that never returned
 * is a node as any other, holding its callees and the time it ran in the
 * window, but counted in its node's unfinished, not its count (the count
 * rule of query_calls.h). With a function filter, the
 * stacks that pass through a kept function (focus), or without the hidden
 * frames and all they called, their time left to their callers. Children
 * are sorted by total time, largest first (ties by name); nodes are
 * numbered in that depth-first order, whatever the threads did. */
void query_call_tree(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, bool per_thread, struct call_tree *out);
/* The same with nodes down to depth max_depth - 1 (at least 1): below a
 * node of that depth, every call is one node, CALL_FOLDED, with the count
 * of all those calls, and the total, self time and weight of the
 * outermost ones (what they take of their caller's); its track is the
 * depth of the deepest. The tree then has at most max_depth levels, and
 * its memory keeps in proportion to the trace's however deep the stacks
 * (batch outputs; the whole tree is query_call_tree's). */
void query_call_tree_folded(const struct trace *t, const struct filter *f,
    ttv_ns t0, ttv_ns t1, bool per_thread, uint32_t max_depth,
    struct call_tree *out);
void call_tree_free(struct call_tree *ct);
/* The calls of a tree that never returned, in all its nodes. */
uint64_t call_tree_unfinished(const struct call_tree *ct);

/* -------------------------------------------------------------- markers */

/* Index of the first marker after `when` (strictly), of `kind` (-1: any),
 * on a track the filter lets through (or on no track); -1 if none. */
ssize_t query_marker_next(const struct trace *t, const struct filter *f,
    ttv_ns when, int kind);
/* The markers on tracks the filter lets through (or on no track), in
 * time order, as indices into t->markers (*rows: caller frees); returns
 * how many. The markers pane and --markers list the same. */
size_t query_markers(const struct trace *t, const struct filter *f,
    size_t **rows);
/* The same from marker `from` on (a follower's: the ones before are not
 * news). */
size_t query_markers_from(const struct trace *t, const struct filter *f,
    size_t from, size_t **rows);
/* The last marker strictly before `when`. */
ssize_t query_marker_prev(const struct trace *t, const struct filter *f,
    ttv_ns when, int kind);

/* --------------------------------------------------------------- search */

#define SEARCH_INSTANT UINT32_MAX	/* ref.depth of an instant hit */

struct search_hit {
	ttv_ns t;
	struct slice_ref ref;	/* an instant: depth = SEARCH_INSTANT */
};

/* Every slice and instant whose function is in `match` (one byte per
 * function) on tracks the filter lets through, in time order. */
void query_search(const struct trace *t, const struct filter *f,
    const uint8_t *match, struct search_hit **hits, size_t *n);

/* What a search pattern matches, each distinct string matched once: the
 * functions by name or category, and the verdicts of every string a
 * search looks at (names, categories, string args, log texts), so that
 * the hits can be made again (another filter, another range) without
 * matching anything. */
struct search_match {
	uint8_t *func;		/* nfuncs bytes: 1 where name or category matches */
	uint8_t *str;		/* nstrings verdicts (REGEX_YES...) */
};
/* Returns 0, or -1 when re could not be matched within its budget
 * (regex_error says why; *m is then empty). */
int query_search_match(const struct trace *t, struct regex *re,
    struct search_match *m);
void search_match_free(struct search_match *m);

/* What a search finds: the slices and instants of the matching functions,
 * and those whose string args match, in time order; and the log records
 * whose text matches. The viewer's / and --search run the same. m->str
 * NULL: the functions' hits alone. */
struct search_result {
	struct search_hit *hits;
	size_t nhits;
	uint8_t *log_match;	/* nlogs bytes, NULL without string verdicts */
	size_t nlog_matches;
	size_t log_from;	/* the logs before it were not looked at */
};
void query_search_all(const struct trace *t, const struct filter *f,
    const struct search_match *m, struct search_result *out);

/* A search of a trace being followed (--follow) looks only at the rows
 * that can be new, each depth and list entered by a binary search: per
 * track, the calls that end at or after call_end[track] and the
 * instants at or after instant[track] (TTV_NS_MIN: all of them), and
 * the log records from index `logs` on. What is before is left out as
 * if it did not match. */
struct search_from {
	const ttv_ns *call_end;	/* one per track */
	const ttv_ns *instant;	/* one per track */
	size_t logs;
	uint64_t examined;	/* rows the search looked at (for tests) */
};
/* query_search_match and query_search_all on the rows from `from` on
 * (NULL: all); from->examined counts the rows looked at. */
int query_search_match_from(const struct trace *t, struct regex *re,
    struct search_from *from, struct search_match *m);
void query_search_all_from(const struct trace *t, const struct filter *f,
    const struct search_match *m, struct search_from *from,
    struct search_result *out);
void search_result_free(struct search_result *r);

/* One row per function with hits: how many, their total time; by total,
 * largest first. Returns the number of rows (*rows: caller frees). */
struct search_row {
	func_id func;
	uint64_t count;
	ttv_ns total;
};
size_t query_search_rows(const struct trace *t, const struct search_hit *hits,
    size_t nhits, struct search_row **rows);

/* Where a hit matched: "name", "category" or "arg KEY" (in buf). */
const char *query_search_where(const struct trace *t,
    const struct search_match *m, const struct search_hit *h, char *buf,
    size_t size);

/* ----------------------------------------------------------------- flows */

/* A flow found by one of its ends. */
struct flow_key {
	struct slice_ref ref;
	uint32_t pad;
	size_t flow;		/* index into trace->flows */
};

/* Flows by the slice they leave (out) and the one they reach (in), sorted
 * by slice, for lookups in O(log flows). */
struct flow_index {
	struct flow_key *out, *in;
	size_t n;
};
/* The timeline's order of t's lanes: order[k] is the k-th lane's track,
 * pos[track] its place (each ntracks long; either may be NULL). */
void trace_lane_order(const struct trace *t, uint32_t *order,
    uint32_t *pos);

void flow_index_build(const struct trace *t, struct flow_index *fi);
void flow_index_free(struct flow_index *fi);
/* The flows leaving (out) or reaching slice r: *n keys, in flow order. */
const struct flow_key *flow_index_at(const struct flow_index *fi, bool out,
    struct slice_ref r, size_t *n);

#endif
