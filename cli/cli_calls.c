/*
 * --calls, --callers, --callees and --tree: the queries of
 * query_calls.h and the call tree, as aligned tables or TSV. Times in TSV
 * are whole ns; ts_ns counts from the trace's start, as the viewer's +
 * times do. Long listings are written with a hand-made number formatter:
 * printf costs more than the query for ten million calls.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_calls.h"
#include "escape.h"
#include "export.h"
#include "query_calls.h"
#include "timefmt.h"
#include "xalloc.h"

int
cli_calls_check(struct calls_options *o, char **err)
{
	if (o->mode != CALLS_LIST)
		return 0;
	o->re = regex_compile(o->arg, err);
	if (o->re == NULL) {
		char *e = xasprintf("bad regex '%s': %s", o->arg, *err);
		free(*err);
		*err = e;
		return -1;
	}
	return 0;
}

void
cli_calls_free(struct calls_options *o)
{
	regex_free(o->re);
	o->re = NULL;
}

/* ------------------------------------------------------------- numbers */

/* Writes v in decimal at p; returns the end. */
static char *
put_i64(char *p, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (v < 0)
		*p++ = '-';
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* s right-aligned in width columns: "µs" takes two bytes, one column. */
void
cli_put_right(FILE *out, const char *s, int width)
{
	int cols = 0;
	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	for (; cols < width; cols++)
		putc(' ', out);
	fputs(s, out);
}

void
cli_unfinished_note(uint64_t n, const char *what, FILE *out)
{
	if (n > 0)
		fprintf(out, "+%llu unfinished (call%s that never returned: "
		    "not %s)\n", (unsigned long long)n, n == 1 ? "" : "s",
		    what);
}

/* Escaped names of the functions, made once each. */
static char **
escaped_names(const struct trace *t, const uint8_t *only)
{
	char **names = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof *names);
	for (uint32_t i = 0; i < t->nfuncs; i++) {
		if (only != NULL && !only[i])
			continue;
		const char *s = trace_func_name(t, i);
		size_t len = strlen(s), size = 4 * len + 1;
		names[i] = xmalloc(size);
		escape_text(s, len, names[i], size);
	}
	return names;
}

static void
free_names(const struct trace *t, char **names)
{
	for (uint32_t i = 0; i < t->nfuncs; i++)
		free(names[i]);
	free(names);
}

/* --------------------------------------------------------------- calls */

static int
list_calls(const struct trace *t, const struct selection *sel,
    const struct calls_options *o, FILE *out, char **err)
{
	uint8_t *match = regex_match_funcs(t, o->re);
	if (match == NULL) {
		/* the regex budget ran out: no list rather than a short one */
		*err = xstrdup(regex_error(o->re));
		return 2;
	}
	/* a name no function has is a mistake, as for --callers, not an
	 * answer of no calls */
	if (t->nfuncs == 0 || memchr(match, 1, t->nfuncs) == NULL) {
		*err = xasprintf("no function matches '%s' (names as --stats "
		    "prints them)", o->arg);
		free(match);
		return 1;
	}
	struct instance_list l;
	query_instances(t, &sel->f, match, sel->t0, sel->t1, &l);
	if (o->ascending)
		instances_sort(t, &l, INSTANCES_BY_DURATION, true);
	char **names = escaped_names(t, match);
	/* starts to the nanosecond, as the viewer's g takes them, and
	 * durations too (none is longer than the trace: one column less,
	 * the sign) */
	int sw = timefmt_trace_exact_width(t->first, t->last);
	int dw = sw - 1;
	if (o->tsv)
		fputs("ts_ns\tdur_ns\tself_ns\ttid\tdepth\tfunction\n", out);
	else
		fprintf(out, "%*s %*s %*s %8s %5s  %s\n", sw, "start", dw,
		    "dur", dw, "self", "tid", "depth", "function");
	/* TSV lines are made in a buffer written out in big pieces */
	size_t cap = (size_t)1 << 20, used = 0;
	char *buf = o->tsv ? xmalloc(cap) : NULL;
	size_t *nlen = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof *nlen);
	for (uint32_t i = 0; i < t->nfuncs; i++)
		nlen[i] = names[i] ? strlen(names[i]) : 0;
	for (size_t i = 0; i < l.n; i++) {
		const struct call_instance *c = &l.items[l.order[i]];
		const struct slice *s = trace_slice(t, c->ref);
		const struct track *tr = &t->tracks[c->ref.track];
		const char *name = names[s->func];
		if (o->tsv) {
			if (cap - used < 5 * 24 + nlen[s->func] + 9) {
				fwrite(buf, 1, used, out);
				used = 0;
				if (cap < 5 * 24 + nlen[s->func] + 9) {
					cap = 5 * 24 + nlen[s->func] + 9;
					buf = xrealloc(buf, cap);
				}
			}
			char *p = buf + used;
			p = put_i64(p, s->start - t->first);
			*p++ = '\t';
			p = put_i64(p, c->dur);
			*p++ = '\t';
			p = put_i64(p, call_instance_self(t, c, l.t0, l.t1));
			*p++ = '\t';
			p = put_i64(p, tr->tid);
			*p++ = '\t';
			p = put_i64(p, c->ref.depth);
			*p++ = '\t';
			if (o->guard && escape_is_formula(name))
				*p++ = '\'';
			memcpy(p, name, nlen[s->func]);
			p += nlen[s->func];
			*p++ = '\n';
			used = (size_t)(p - buf);
		} else {
			char b[48];
			cli_put_right(out, timefmt_time_exact(s->start, t->first,
			    b, sizeof b), sw);
			putc(' ', out);
			cli_put_right(out, timefmt_duration_exact(c->dur, b,
			    sizeof b), dw);
			putc(' ', out);
			cli_put_right(out, timefmt_duration_exact(
			    call_instance_self(t, c, l.t0, l.t1), b, sizeof b),
			    dw);
			fprintf(out, " %8lld %5u  %s\n", (long long)tr->tid,
			    c->ref.depth, name);
		}
	}
	if (used > 0)
		fwrite(buf, 1, used, out);
	if (!o->tsv)
		cli_unfinished_note(l.unfinished, "listed", out);
	free(buf);
	free(nlen);
	if (l.truncated)
		fputs("ttv: more than 4294967295 calls: the rest are left "
		    "out\n", stderr);
	free_names(t, names);
	instances_free(&l);
	free(match);
	return 0;
}

/* ----------------------------------------------------------- butterfly */

static int
edges(const struct trace *t, const struct selection *sel,
    const struct calls_options *o, FILE *out, char **err)
{
	uint8_t *match = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);
	func_id any = CALL_NONE;
	/* FUNC as --stats prints it: the text form of escape.h, which
	 * tells every name from every other. */
	size_t alen = strlen(o->arg);
	char *text = xmalloc(4 * alen + 1);
	for (uint32_t i = 0; i < t->nfuncs; i++) {
		const char *name = trace_func_name(t, i);
		size_t len = strlen(name);
		/* the text form is never shorter than the name */
		if (len <= alen && escape_text(name, len, text, 4 * len + 1) ==
		    alen && memcmp(text, o->arg, alen) == 0)
			match[i] = true, any = any == CALL_NONE ? i : any;
	}
	free(text);
	if (any == CALL_NONE) {
		free(match);
		*err = xasprintf("no function named '%s' (names as --stats "
		    "prints them)", o->arg);
		return 1;
	}
	struct butterfly bf;
	query_butterfly(t, &sel->f, match, sel->t0, sel->t1, &bf);
	bool callers = o->mode == CALLS_CALLERS;
	const struct call_edge *e = callers ? bf.callers : bf.callees;
	size_t n = callers ? bf.ncallers : bf.ncallees;
	if (o->tsv) {
		fputs("function\tcount\ttotal_ns\n", out);
	} else {
		char b[2][32];
		escape_fputs(trace_func_name(t, any), out);
		fprintf(out, ": %llu call%s", (unsigned long long)bf.count,
		    bf.count == 1 ? "" : "s");
		if (bf.unfinished > 0)
			fprintf(out, " +%llu unfinished",
			    (unsigned long long)bf.unfinished);
		fprintf(out, ", %llu outermost: total %s, self %s\n",
		    (unsigned long long)bf.outermost,
		    timefmt_duration(bf.total, b[0], sizeof b[0]),
		    timefmt_duration(bf.self, b[1], sizeof b[1]));
		fprintf(out, "%10s %10s  %s\n", "count", "total",
		    callers ? "caller" : "callee");
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = e[i].func == CALL_NONE ? "<root>" :
		    trace_func_name(t, e[i].func);
		if (o->tsv) {
			escape_cell(name, o->guard, out);
			fprintf(out, "\t%llu\t%lld\n",
			    (unsigned long long)e[i].count,
			    (long long)e[i].total);
		} else {
			char b[32];
			fprintf(out, "%10llu ", (unsigned long long)e[i].count);
			cli_put_right(out, timefmt_duration(e[i].total, b,
			    sizeof b), 10);
			fputs("  ", out);
			escape_fputs(name, out);
			putc('\n', out);
		}
	}
	butterfly_free(&bf);
	free(match);
	return 0;
}

/* ---------------------------------------------------------------- tree */

static const char *
node_name(const struct trace *t, const struct call_node *c, char *buf,
    size_t size)
{
	if (c->func != CALL_NONE)
		return trace_func_name(t, c->func);
	return track_label(t, &t->tracks[c->track], buf, size);
}

static void
tree_row_put(const struct trace *t, const struct call_tree *ct,
    const uint32_t *path, size_t npath, const struct calls_options *o,
    FILE *out)
{
	const struct call_node *c = &ct->nodes[path[npath - 1]];
	char buf[64];
	if (o->tsv) {
		/* the path is one cell: its first frame is where a
		 * spreadsheet would see a formula */
		if (o->guard && escape_is_formula(node_name(t,
		    &ct->nodes[path[0]], buf, sizeof buf)))
			putc('\'', out);
		for (size_t i = 0; i < npath; i++) {
			const struct call_node *p = &ct->nodes[path[i]];
			if (i > 0)
				putc(';', out);
			if (p->func == CALL_FOLDED)
				fprintf(out, "[%u frames]", p->track - p->depth +
				    1);
			else
				escape_frame(node_name(t, p, buf, sizeof buf),
				    out);
		}
		fprintf(out, "\t%llu\t%lld\t%lld\t%llu\n",
		    (unsigned long long)c->count, (long long)c->total,
		    (long long)c->self, (unsigned long long)c->unfinished);
		return;
	}
	char b[32];
	if (c->unfinished > 0) {
		/* "2+1": 2 calls, and 1 that never returned */
		snprintf(b, sizeof b, "%llu+%llu",
		    (unsigned long long)c->count,
		    (unsigned long long)c->unfinished);
		fprintf(out, "%10s ", b);
	} else {
		fprintf(out, "%10llu ", (unsigned long long)c->count);
	}
	cli_put_right(out, timefmt_duration(c->total, b, sizeof b), 10);
	putc(' ', out);
	cli_put_right(out, timefmt_duration(c->self, b, sizeof b), 10);
	fprintf(out, "  %*s", (int)(2 * (c->depth - 1)), "");
	if (c->func == CALL_FOLDED)
		fprintf(out, "[%u frames]", c->track - c->depth + 1);
	else
		escape_fputs(node_name(t, c, buf, sizeof buf), out);
	putc('\n', out);
}

/* --tree. A path is printed whole down to max_depth - 1 frames; what its
 * callees call below that is one row "[K frames]" (as --export collapsed
 * folds it), so that the output grows with the trace, not with the square
 * of its depth. Returns the number of rows folded so. */
static uint64_t
tree(const struct trace *t, const struct selection *sel,
    const struct calls_options *o, FILE *out)
{
	struct call_tree ct;
	uint32_t max_depth = o->max_depth >= 2 ? o->max_depth :
	    EXPORT_MAX_DEPTH;
	uint64_t folded = 0;
	query_call_tree_folded(t, &sel->f, sel->t0, sel->t1, o->per_thread,
	    max_depth, &ct);
	if (o->tsv)
		fputs("path\tcount\ttotal_ns\tself_ns\tunfinished\n", out);
	else
		fprintf(out, "%10s %10s %10s  %s\n", "count", "total", "self",
		    "path");
	/* Depth first, children in the tree's order (largest first); the
	 * path of the node on top is the stack of nodes above it. */
	VEC(uint32_t) stack = { 0 };
	VEC(uint32_t) path = { 0 };
	if (ct.n > 0 && ct.nodes[0].first_child != CALL_NONE)
		VEC_PUSH(&stack, ct.nodes[0].first_child);
	while (stack.len > 0) {
		uint32_t k = stack.items[--stack.len];
		const struct call_node *c = &ct.nodes[k];
		if (c->next_sibling != CALL_NONE)
			VEC_PUSH(&stack, c->next_sibling);
		if (c->first_child != CALL_NONE)
			VEC_PUSH(&stack, c->first_child);
		/* depth 1 is a child of the root */
		path.len = c->depth - 1;
		VEC_PUSH(&path, k);
		tree_row_put(t, &ct, path.items, path.len, o, out);
		folded += c->func == CALL_FOLDED;
	}
	if (!o->tsv && ct.n > 0)
		cli_unfinished_note(call_tree_unfinished(&ct), "in the counts, "
		    "their time in total and self", out);
	VEC_FREE(&stack);
	VEC_FREE(&path);
	call_tree_free(&ct);
	return folded;
}

int
cli_calls(const struct trace *t, const struct selection *sel,
    const struct calls_options *o, const char *path, FILE *out)
{
	char *err = NULL;
	int rc = 0;
	switch (o->mode) {
	case CALLS_LIST: rc = list_calls(t, sel, o, out, &err); break;
	case CALLS_CALLERS:
	case CALLS_CALLEES: rc = edges(t, sel, o, out, &err); break;
	case CALLS_TREE: {
		uint64_t folded = tree(t, sel, o, out);
		if (folded > 0)
			fprintf(stderr, "ttv: warning: %llu call paths deeper "
			    "than %u frames folded into one \"[N frames]\" "
			    "row each (--max-depth)\n",
			    (unsigned long long)folded, o->max_depth >= 2 ?
			    o->max_depth : EXPORT_MAX_DEPTH);
		break;
	}
	default: break;
	}
	if (err != NULL) {
		cli_say(path, err);
		free(err);
	}
	return rc;
}
