/*
 * Two traces compared (ttv --diff): one row per function, or per call
 * path, with what each trace spent there, the change and a status. The
 * traces may come from different formats; the query reads them through
 * the model and the other queries only, so a trace loaded, mapped or
 * indexed is all the same to it.
 *
 * Pairing. A function's key is its name, or with a strip pattern its name
 * with every match cut out (regex_cut_strings, within the regex budget),
 * so that template instances, lambdas numbered by the compiler or JIT
 * addresses pair across runs. Functions of one trace that share a key are
 * one row, their calls together (query_stats_grouped: percentiles of all
 * their calls). A call path's key is the keys of its frames from the
 * outermost one: the call trees of both traces (query_call_tree_folded)
 * are laid onto one tree of keys.
 *
 * Each side has its trace, filter and range (the range rule of
 * query_calls.h). A function's numbers are query_stats': calls measured,
 * total and self time, p50 and p99; a path's are the call tree's: calls,
 * total and self time (the tree keeps no single call's duration, so a
 * path has no percentiles).
 *
 * Normalisation compares as if the base had had the new trace's number of
 * calls of each row (DIFF_NORM_CALLS: the base's total and self times
 * scaled by calls_new / calls_base, so the change is that of the time per
 * call), or the new trace's time (DIFF_NORM_TOTAL: the base's totals and
 * self times scaled by time_new / time_base, a trace's time being the
 * self times of its rows summed, the time of the calls compared). The
 * base's numbers in a row are the normalised ones: delta = new - base in
 * every row.
 *
 * Noise: a row in both traces is "same" when its total changed by at most
 * max(min_abs, min_rel * the base's total), else "grew" or "shrank". The
 * default, DIFF_MIN_ABS 10 µs and DIFF_MIN_REL 1 %, keeps the jitter of
 * short functions and the scheduling noise of long ones out of "grew".
 */
#ifndef TTV_QUERY_DIFF_H
#define TTV_QUERY_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "query.h"

enum diff_by { DIFF_BY_FUNCTION, DIFF_BY_PATH };
enum diff_norm { DIFF_NORM_NONE, DIFF_NORM_CALLS, DIFF_NORM_TOTAL };
enum diff_status {
	DIFF_SAME, DIFF_GREW, DIFF_SHRANK, DIFF_ONLY_BASE, DIFF_ONLY_NEW,
	DIFF_STATUS_COUNT
};
enum { DIFF_BASE, DIFF_NEW };

#define DIFF_MIN_ABS ((ttv_ns)10000)
#define DIFF_MIN_REL 0.01

/* One trace as compared: what the filter lets through in [t0, t1). */
struct diff_side {
	const struct trace *t;
	const struct filter *f;
	ttv_ns t0, t1;
};

struct diff_options {
	enum diff_by by;
	enum diff_norm norm;
	struct regex *strip;	/* cut out of names before pairing, or NULL */
	ttv_ns min_abs;		/* noise: see above */
	double min_rel;
	uint32_t max_depth;	/* by path: frames a path shows whole (as
				 * query_call_tree_folded; 0: 1024) */
};

struct diff_row {
	uint32_t key;		/* a name (by function) or a node (by path) */
	uint32_t order;		/* its rank by name (by path: frame by
				 * frame) */
	/* Each side's numbers, count 0 where the row is not in it; func is
	 * not used. The base's total and self are normalised. */
	struct func_stats s[2];
	ttv_ns delta;		/* s[DIFF_NEW].total - s[DIFF_BASE].total */
	enum diff_status status;
};

/* A node of the tree of paths: its caller's node (0 is the root, whose
 * parent is UINT32_MAX) and its name. */
struct diff_node {
	uint32_t parent;
	uint32_t name;
};

struct diff {
	enum diff_by by;
	struct diff_row *rows;
	size_t n;
	struct strtab *names;	/* the keys */
	uint32_t folded;	/* the name of the "[deeper frames]" of paths
				 * deeper than max_depth, or UINT32_MAX */
	struct diff_node *nodes;	/* by path */
	size_t nnodes;
	ttv_ns time[2];		/* each side's time, before normalisation */
	double scale;		/* DIFF_NORM_TOTAL: the base's times times */
	ttv_ns min_abs;
	double min_rel;
};

/* Compares side[DIFF_BASE] with side[DIFF_NEW] into *out (diff_free it),
 * rows by decreasing absolute change of total time. Returns 0, or -1 with
 * *err (caller frees) when the strip pattern could not be matched within
 * the regex budget. */
int query_diff(const struct diff_side side[2], const struct diff_options *o,
    struct diff *out, char **err);

/* The same in two steps: each side's part alone (its keys, statistics or
 * tree of keys), then the join. A part needs its trace only, so the base's
 * can be worked out while the new trace loads; a regex (o->strip) is used
 * by one part at a time. */
struct diff_part {
	enum diff_by by;
	struct strtab *names;		/* the side's keys */
	struct func_stats *stats;	/* per key (by path: per node) */
	struct diff_node *nodes;	/* by path: the tree of keys */
	size_t n;
};
/* Returns 0, or -1 with *err as query_diff. */
int diff_part_compute(const struct diff_side *side,
    const struct diff_options *o, struct diff_part *out, char **err);
/* Joins p[DIFF_BASE] and p[DIFF_NEW] (which it frees) into *out. */
void diff_join(struct diff_part p[2], const struct diff_options *o,
    struct diff *out);
void diff_part_free(struct diff_part *p);
/* Sorts the rows by the absolute change of a --stats key (by path: name,
 * count, total or self), largest first; STATS_NAME by name or path, A
 * first. descending false turns it around. Ties by name. */
void diff_sort(struct diff *d, enum stats_key key, bool descending);
/* The keys a diff by path has (name, count, total, self). */
bool diff_key_by_path(enum stats_key key);
void diff_free(struct diff *d);

/* A key's text (the name, or the name with the pattern's matches cut). */
const char *diff_name(const struct diff *d, uint32_t name);
/* The names of a path row from its outermost frame (*names: caller
 * frees); returns how many. */
size_t diff_path(const struct diff *d, const struct diff_row *r,
    uint32_t **names);

/* The functions of t whose key (their name, with strip's matches cut when
 * strip is not NULL) is key, a row's name: one byte per function, 1 for
 * those (caller frees); what a row is made of in one trace, for its
 * calls. NULL with *err (caller frees) as query_diff. */
uint8_t *diff_key_funcs(const struct trace *t, struct regex *strip,
    const char *key, char **err);

/* total new / total base; NAN when the base's total is 0. */
double diff_ratio(const struct diff_row *r);
/* The CI gate: a row in both traces that grew (beyond the noise) by more
 * than pct percent of the base's total; with on_new, also a row only in
 * the new trace whose total is above the noise floor (min_abs). */
bool diff_row_fails(const struct diff *d, const struct diff_row *r,
    double pct, bool on_new);

const char *diff_status_name(enum diff_status s);
/* "function" or "path"; "calls" or "total": the value, or -1. */
int diff_by_parse(const char *s);
int diff_norm_parse(const char *s);
/* "10us", "2%", "10us,2%" (a duration as timeparse.h reads it, a percent of
 * the base's total; either may be missing, and is then 0): 0, or -1 with
 * *err (caller frees). */
int diff_min_change_parse(const char *s, ttv_ns *min_abs, double *min_rel,
    char **err);

#endif
