/*
 * What part of a trace the user asked for, the same for every mode:
 * --thread, --function or --hide, and --range (with --diff, --range-base
 * for the base). A scope is made once from the command line and checked
 * before any load (the thread list parsed, the pattern compiled once, the
 * ranges parsed); each trace loaded then gets its selection from it: the
 * filter (query.h) and the range's [t0, t1), which every mode reads.
 */
#ifndef TTV_SCOPE_H
#define TTV_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "query.h"
#include "range.h"

struct scope {
	/* As typed (the strings are the caller's), or NULL. */
	const char *threads;		/* --thread TID[,TID...] */
	const char *function;		/* --function REGEX */
	const char *hide;		/* --hide REGEX */
	const char *range;		/* --range START..END */
	const char *range_base;		/* --range-base: the base's (--diff) */
	/* Made by scope_check, freed by scope_free. */
	int64_t *tids;
	size_t ntids;
	struct regex *re;		/* --function's or --hide's */
	struct range_spec spec, spec_base;
};

/* Parses the ranges and the thread list and compiles the pattern, in that
 * order: 0, or -1 with *err (a usage error; caller frees). */
int scope_check(struct scope *s, char **err);
void scope_free(struct scope *s);
/* A filter was asked for: --thread, --function or --hide. */
bool scope_filters(const struct scope *s);

/* A scope on one loaded trace: what a mode shows of it. */
struct selection {
	struct filter f;
	bool ranged;		/* a range was given */
	ttv_ns t0, t1;		/* the range; without one, TTV_NS_MIN and
				 * TTV_NS_MAX */
};

void selection_init(struct selection *sel);
void selection_clear(struct selection *sel);

/* Why scope_filter refused. */
enum { SCOPE_NO_THREAD = -1, SCOPE_UNDECIDED = -2 };

/* sel's filter on t: the listed threads (all of them must be in t; with
 * threads false, the caller chooses them), then the functions. Returns
 * 0, or with *err set (caller frees) SCOPE_NO_THREAD for tids t lacks,
 * SCOPE_UNDECIDED for a pattern the regex budget could not settle for
 * every name (a filter left unsettled is not applied). */
int scope_filter(const struct scope *s, const struct trace *t, bool threads,
    struct selection *sel, char **err);
/* sel's range on t: --range, or for the base of --diff (base true)
 * --range-base when given. 0, or -1 with *err (an empty range, a side
 * from the viewer's cursor). *warn (caller frees), NULL when all is well:
 * the range holds nothing of the trace (range_outside). */
int scope_range(const struct scope *s, const struct trace *t, bool base,
    struct selection *sel, char **err, char **warn);

#endif
