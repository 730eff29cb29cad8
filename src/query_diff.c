/*
 * Two traces compared (see query_diff.h): each side's functions get keys,
 * each side's statistics or call tree come from the queries that --stats
 * and --tree run, and the rows are joined on the keys, which both sides
 * intern in one table.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "hashmap.h"
#include "query_diff.h"
#include "strtab.h"
#include "timefmt.h"
#include "timeparse.h"
#include "xalloc.h"

/* The key of the "[deeper frames]" node: a held name never has C0 01 in
 * it (escape.h), so no function can take it. Keys are held names, interned
 * as they are (strtab_intern_held). */
static const char folded_key[] = "\xc0\x01";

/* ----------------------------------------------------------------- keys */

/* The key of each function of t in names (nfuncs entries, caller
 * frees), or NULL with *err when the strip pattern ran out of budget.
 * *shared: two functions of t have one key. */
static uint32_t *
side_keys(struct strtab *names, const struct trace *t, struct regex *strip,
    bool *shared, char **err)
{
	char **cut = NULL;
	*shared = false;
	if (strip != NULL) {
		uint8_t *v = regex_verdicts_new(t);
		for (uint32_t f = 0; f < t->nfuncs; f++)
			regex_ask(t, v, t->funcs[f].name);
		cut = xcalloc(t->nstrings ? t->nstrings : 1, sizeof *cut);
		int rc = regex_cut_strings(strip, t, v, cut);
		free(v);
		if (rc != 0) {
			*err = xstrdup(regex_error(strip));
			free(cut);
			return NULL;
		}
	}
	uint32_t *key = xmalloc((t->nfuncs ? t->nfuncs : 1) * sizeof *key);
	for (uint32_t f = 0; f < t->nfuncs; f++) {
		str_id s = t->funcs[f].name;
		const char *name = cut != NULL && s < t->nstrings &&
		    cut[s] != NULL ? cut[s] : trace_func_name(t, f);
		uint32_t before = strtab_count(names);
		key[f] = strtab_intern_held(names, name, strlen(name));
		/* the table holds this side's keys alone: a key met before
		 * is one of an earlier function */
		if (key[f] < before)
			*shared = true;
	}
	if (cut != NULL) {
		for (uint32_t s = 0; s < t->nstrings; s++)
			free(cut[s]);
		free(cut);
	}
	return key;
}

uint8_t *
diff_key_funcs(const struct trace *t, struct regex *strip, const char *key,
    char **err)
{
	struct strtab *names = strtab_new();
	bool shared;
	uint32_t *keys = side_keys(names, t, strip, &shared, err);
	if (keys == NULL) {
		strtab_free(names);
		return NULL;
	}
	uint32_t before = strtab_count(names);
	uint32_t k = strtab_intern_held(names, key, strlen(key));
	uint8_t *on = xcalloc(t->nfuncs ? t->nfuncs : 1, 1);
	for (uint32_t f = 0; k < before && f < t->nfuncs; f++)
		on[f] = keys[f] == k;
	free(keys);
	strtab_free(names);
	return on;
}

/* ---------------------------------------------------------------- parts */

/* Each side's statistics by key (count 0: no call). */
static void
part_functions(struct diff_part *p, const struct diff_side *side,
    const uint32_t *key, bool shared)
{
	struct stats_table st;
	const struct trace *t = side->t;
	p->n = strtab_count(p->names);
	p->stats = xcalloc(p->n ? p->n : 1, sizeof *p->stats);
	/* Keys of their own: the plain statistics, whose rows are mapped
	 * to keys after; shared ones: one row per key. */
	if (shared)
		query_stats_grouped(t, side->f, side->t0, side->t1, key,
		    (uint32_t)p->n, &st);
	else
		query_stats(t, side->f, side->t0, side->t1, &st);
	for (size_t i = 0; i < st.n; i++) {
		uint32_t k = shared ? st.rows[i].func : key[st.rows[i].func];
		p->stats[k] = st.rows[i];
	}
	stats_free(&st);
}

/* A tree of keys: nodes with their numbers, children found by (parent,
 * name). */
struct key_tree {
	VEC(struct diff_node) nodes;
	VEC(struct func_stats) acc[2];
	int nacc;
	struct hashmap children;	/* (parent, name) -> node */
};

static void
key_tree_init(struct key_tree *kt, int nacc)
{
	memset(kt, 0, sizeof *kt);
	kt->nacc = nacc;
	struct diff_node root = { UINT32_MAX, UINT32_MAX };
	struct func_stats zero = { 0 };
	VEC_PUSH(&kt->nodes, root);
	for (int s = 0; s < nacc; s++)
		VEC_PUSH(&kt->acc[s], zero);
}

static uint32_t
key_child(struct key_tree *kt, uint32_t parent, uint32_t name)
{
	uint32_t n;
	if (hashmap_get(&kt->children, parent, name, &n))
		return n;
	n = (uint32_t)kt->nodes.len;
	struct diff_node node = { parent, name };
	struct func_stats zero = { 0 };
	VEC_PUSH(&kt->nodes, node);
	for (int s = 0; s < kt->nacc; s++)
		VEC_PUSH(&kt->acc[s], zero);
	hashmap_put(&kt->children, parent, name, n);
	return n;
}

static void
add_stats(struct func_stats *a, const struct func_stats *b)
{
	a->count += b->count;
	a->weight += b->weight;
	a->total += b->total;
	a->self += b->self;
}

/* The side's call tree laid onto a tree of its keys. */
static void
part_paths(struct diff_part *p, const struct diff_side *side,
    const uint32_t *key, uint32_t max_depth)
{
	struct call_tree ct;
	struct key_tree kt;
	uint32_t folded = UINT32_MAX;
	query_call_tree_folded(side->t, side->f, side->t0, side->t1, false,
	    max_depth, &ct);
	key_tree_init(&kt, 1);
	uint32_t *map = xmalloc((ct.n ? ct.n : 1) * sizeof *map);
	map[0] = 0;
	/* parents come before their children in the tree's order */
	for (size_t i = 1; i < ct.n; i++) {
		const struct call_node *c = &ct.nodes[i];
		uint32_t name;
		if (c->func == CALL_FOLDED) {
			if (folded == UINT32_MAX)
				folded = strtab_intern_held(p->names, folded_key,
				    strlen(folded_key));
			name = folded;
		} else if (c->func < side->t->nfuncs) {
			name = key[c->func];
		} else {
			map[i] = map[c->parent];	/* no function: none */
			continue;
		}
		map[i] = key_child(&kt, map[c->parent], name);
		struct func_stats one = { .count = c->count,
		    .weight = c->weight, .total = c->total, .self = c->self };
		add_stats(&kt.acc[0].items[map[i]], &one);
	}
	free(map);
	call_tree_free(&ct);
	p->nodes = kt.nodes.items;
	p->stats = kt.acc[0].items;
	p->n = kt.nodes.len;
	hashmap_free(&kt.children);
}

int
diff_part_compute(const struct diff_side *side, const struct diff_options *o,
    struct diff_part *out, char **err)
{
	bool shared;
	memset(out, 0, sizeof *out);
	out->by = o->by;
	out->names = strtab_new();
	uint32_t *key = side_keys(out->names, side->t, o->strip, &shared, err);
	if (key == NULL) {
		diff_part_free(out);
		return -1;
	}
	if (o->by == DIFF_BY_PATH)
		part_paths(out, side, key, o->max_depth >= 2 ? o->max_depth :
		    EXPORT_MAX_DEPTH);
	else
		part_functions(out, side, key, shared);
	free(key);
	return 0;
}

void
diff_part_free(struct diff_part *p)
{
	free(p->stats);
	free(p->nodes);
	if (p->names != NULL)
		strtab_free(p->names);
	memset(p, 0, sizeof *p);
}

/* ----------------------------------------------------------------- join */

/* Each of a part's names in the diff's table. */
static uint32_t *
join_names(struct diff *d, const struct diff_part *p)
{
	uint32_t n = strtab_count(p->names);
	uint32_t *to = xmalloc((n ? n : 1) * sizeof *to);
	for (uint32_t k = 0; k < n; k++) {
		const char *s = strtab_get(p->names, k);
		to[k] = strtab_intern_held(d->names, s, strlen(s));
	}
	return to;
}

/* The rows of the functions: one per key with calls on either side. */
static void
join_functions(struct diff *d, const struct diff_part p[2])
{
	uint32_t *to[2] = { join_names(d, &p[0]), join_names(d, &p[1]) };
	uint32_t nkeys = strtab_count(d->names);
	struct func_stats *by[2];
	for (int s = 0; s < 2; s++) {
		by[s] = xcalloc(nkeys ? nkeys : 1, sizeof *by[s]);
		for (size_t k = 0; k < p[s].n; k++)
			by[s][to[s][k]] = p[s].stats[k];
	}
	d->rows = xcalloc(nkeys ? nkeys : 1, sizeof *d->rows);
	for (uint32_t k = 0; k < nkeys; k++) {
		if (by[0][k].count == 0 && by[1][k].count == 0)
			continue;
		struct diff_row *r = &d->rows[d->n++];
		r->key = k;
		r->s[0] = by[0][k];
		r->s[1] = by[1][k];
	}
	for (int s = 0; s < 2; s++) {
		free(by[s]);
		free(to[s]);
	}
}

/* The rows of the paths: both sides' trees of keys laid onto one. */
static void
join_paths(struct diff *d, const struct diff_part p[2])
{
	struct key_tree kt;
	key_tree_init(&kt, 2);
	for (int s = 0; s < 2; s++) {
		uint32_t *to = join_names(d, &p[s]);
		uint32_t *map = xmalloc((p[s].n ? p[s].n : 1) * sizeof *map);
		map[0] = 0;
		for (size_t i = 1; i < p[s].n; i++) {
			const struct diff_node *c = &p[s].nodes[i];
			map[i] = key_child(&kt, map[c->parent], to[c->name]);
			add_stats(&kt.acc[s].items[map[i]], &p[s].stats[i]);
		}
		free(map);
		free(to);
	}
	size_t n = kt.nodes.len;
	d->rows = xcalloc(n, sizeof *d->rows);
	for (size_t k = 1; k < n; k++) {
		if (kt.acc[0].items[k].count == 0 &&
		    kt.acc[1].items[k].count == 0)
			continue;
		struct diff_row *r = &d->rows[d->n++];
		r->key = (uint32_t)k;
		r->s[0] = kt.acc[0].items[k];
		r->s[1] = kt.acc[1].items[k];
	}
	d->nodes = kt.nodes.items;
	d->nnodes = n;
	VEC_FREE(&kt.acc[0]);
	VEC_FREE(&kt.acc[1]);
	hashmap_free(&kt.children);
}

/* ---------------------------------------------------------------- order */

static int
cmp_names(const void *a, const void *b, void *arg)
{
	const struct diff *d = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(diff_name(d, x), diff_name(d, y));
	return c != 0 ? c : x < y ? -1 : x > y;
}

/* Nodes by caller, then name. */
static int
cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct diff *d = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct diff_node *p = &d->nodes[x], *q = &d->nodes[y];
	if (p->parent != q->parent)
		return p->parent < q->parent ? -1 : 1;
	int c = strcmp(diff_name(d, p->name), diff_name(d, q->name));
	return c != 0 ? c : x < y ? -1 : x > y;
}

/* Each row's rank by name; by path, a walk of the tree of keys with
 * callees by name gives paths in the order of their frames. */
static void
rank_rows(struct diff *d)
{
	if (d->by == DIFF_BY_FUNCTION) {
		uint32_t nkeys = strtab_count(d->names);
		uint32_t *keys = xmalloc((nkeys ? nkeys : 1) * sizeof *keys);
		uint32_t *rank = xmalloc((nkeys ? nkeys : 1) * sizeof *rank);
		for (uint32_t k = 0; k < nkeys; k++)
			keys[k] = k;
		xqsort_r(keys, nkeys, sizeof *keys, cmp_names, d);
		for (uint32_t i = 0; i < nkeys; i++)
			rank[keys[i]] = i;
		for (size_t i = 0; i < d->n; i++)
			d->rows[i].order = rank[d->rows[i].key];
		free(keys);
		free(rank);
		return;
	}
	size_t n = d->nnodes;
	uint32_t *sorted = xmalloc(n * sizeof *sorted);
	uint32_t *first = xmalloc(n * sizeof *first);
	uint32_t *rank = xmalloc(n * sizeof *rank);
	uint32_t *stack = xmalloc(n * sizeof *stack);
	for (size_t i = 0; i + 1 < n; i++)
		sorted[i] = (uint32_t)(i + 1);
	xqsort_r(sorted, n - 1, sizeof *sorted, cmp_nodes, d);
	for (size_t i = 0; i < n; i++)
		first[i] = UINT32_MAX;
	for (size_t i = n - 1; i-- > 0;)
		first[d->nodes[sorted[i]].parent] = (uint32_t)i;
	/* depth first: a node's callees pushed last first */
	size_t sp = 0;
	uint32_t next = 0;
	stack[sp++] = 0;
	while (sp > 0) {
		uint32_t k = stack[--sp];
		rank[k] = next++;
		if (first[k] == UINT32_MAX)
			continue;
		size_t e = first[k];
		while (e + 1 < n - 1 && d->nodes[sorted[e + 1]].parent == k)
			e++;
		for (size_t i = e + 1; i-- > first[k];)
			stack[sp++] = sorted[i];
	}
	for (size_t i = 0; i < d->n; i++)
		d->rows[i].order = rank[d->rows[i].key];
	free(sorted);
	free(first);
	free(rank);
	free(stack);
}

/* ------------------------------------------------------------- compare */

static ttv_ns
scaled(ttv_ns v, double by)
{
	double x = (double)v * by;
	return x >= 9.2e18 ? TTV_NS_MAX : (ttv_ns)llround(x);
}

static void
compare(struct diff *d, const struct diff_options *o)
{
	for (int s = 0; s < 2; s++) {
		d->time[s] = 0;
		for (size_t i = 0; i < d->n; i++)
			d->time[s] += d->rows[i].s[s].self;
	}
	d->scale = 1.0;
	if (o->norm == DIFF_NORM_TOTAL && d->time[DIFF_BASE] > 0)
		d->scale = (double)d->time[DIFF_NEW] /
		    (double)d->time[DIFF_BASE];
	for (size_t i = 0; i < d->n; i++) {
		struct diff_row *r = &d->rows[i];
		struct func_stats *b = &r->s[DIFF_BASE], *n = &r->s[DIFF_NEW];
		double by = d->scale;
		if (o->norm == DIFF_NORM_CALLS && b->count > 0 && n->count > 0)
			by = (double)n->count / (double)b->count;
		if (by != 1.0) {
			b->total = scaled(b->total, by);
			b->self = scaled(b->self, by);
		}
		r->delta = (ttv_ns)((uint64_t)n->total - (uint64_t)b->total);
		if (n->count == 0)
			r->status = DIFF_ONLY_BASE;
		else if (b->count == 0)
			r->status = DIFF_ONLY_NEW;
		else {
			double noise = o->min_rel * (double)b->total;
			double abs = r->delta < 0 ? -(double)r->delta :
			    (double)r->delta;
			r->status = abs <= noise || abs <= (double)o->min_abs ?
			    DIFF_SAME : r->delta > 0 ? DIFF_GREW : DIFF_SHRANK;
		}
	}
}

void
diff_join(struct diff_part p[2], const struct diff_options *o,
    struct diff *out)
{
	memset(out, 0, sizeof *out);
	out->by = o->by;
	out->names = strtab_new();
	out->min_abs = o->min_abs;
	out->min_rel = o->min_rel;
	if (o->by == DIFF_BY_PATH)
		join_paths(out, p);
	else
		join_functions(out, p);
	/* the folded frames' name, if a path was folded */
	uint32_t before = strtab_count(out->names);
	uint32_t f = strtab_intern_held(out->names, folded_key,
	    strlen(folded_key));
	out->folded = f < before ? f : UINT32_MAX;
	diff_part_free(&p[0]);
	diff_part_free(&p[1]);
	rank_rows(out);
	compare(out, o);
	diff_sort(out, STATS_TOTAL, true);
}

int
query_diff(const struct diff_side side[2], const struct diff_options *o,
    struct diff *out, char **err)
{
	struct diff_part p[2];
	memset(out, 0, sizeof *out);
	if (diff_part_compute(&side[0], o, &p[0], err) != 0)
		return -1;
	if (diff_part_compute(&side[1], o, &p[1], err) != 0) {
		diff_part_free(&p[0]);
		return -1;
	}
	diff_join(p, o, out);
	return 0;
}

/* ----------------------------------------------------------------- sort */

struct sort_by {
	enum stats_key key;
	bool desc;
};

/* |new - base| of a key, unsigned: both may be near 2^63 ns. */
static uint64_t
change(const struct diff_row *r, enum stats_key key)
{
	uint64_t a = (uint64_t)stats_value(&r->s[DIFF_BASE], key);
	uint64_t b = (uint64_t)stats_value(&r->s[DIFF_NEW], key);
	if (key == STATS_TOTAL)
		return r->delta < 0 ? (uint64_t)0 - (uint64_t)r->delta :
		    (uint64_t)r->delta;
	return a > b ? a - b : b - a;
}

static int
cmp_rows(const void *a, const void *b, void *arg)
{
	const struct diff_row *x = a, *y = b;
	const struct sort_by *by = arg;
	int c = 0;
	if (by->key == STATS_NAME) {
		c = x->order < y->order ? -1 : x->order > y->order;
	} else {
		uint64_t u = change(x, by->key), v = change(y, by->key);
		c = u < v ? -1 : u > v;
	}
	if (by->desc)
		c = -c;
	if (c == 0)
		c = x->order < y->order ? -1 : x->order > y->order;
	return c;
}

void
diff_sort(struct diff *d, enum stats_key key, bool descending)
{
	struct sort_by by = { key, descending };
	if (d->n > 1)
		xqsort_r(d->rows, d->n, sizeof *d->rows, cmp_rows, &by);
}

bool
diff_key_by_path(enum stats_key key)
{
	return key == STATS_NAME || key == STATS_COUNT || key == STATS_TOTAL ||
	    key == STATS_SELF;
}

void
diff_free(struct diff *d)
{
	free(d->rows);
	free(d->nodes);
	if (d->names != NULL)
		strtab_free(d->names);
	memset(d, 0, sizeof *d);
}

/* -------------------------------------------------------------- answers */

const char *
diff_name(const struct diff *d, uint32_t name)
{
	if (name == d->folded)
		return "[deeper frames]";
	return strtab_get(d->names, name);
}

size_t
diff_path(const struct diff *d, const struct diff_row *r, uint32_t **names)
{
	size_t n = 0;
	*names = NULL;
	if (d->by != DIFF_BY_PATH)
		return 0;
	for (uint32_t k = r->key; k != 0 && k < d->nnodes;
	    k = d->nodes[k].parent)
		n++;
	*names = xmalloc((n ? n : 1) * sizeof **names);
	size_t i = n;
	for (uint32_t k = r->key; k != 0 && k < d->nnodes;
	    k = d->nodes[k].parent)
		(*names)[--i] = d->nodes[k].name;
	return n;
}

double
diff_ratio(const struct diff_row *r)
{
	if (r->s[DIFF_BASE].total == 0)
		return NAN;
	return (double)r->s[DIFF_NEW].total / (double)r->s[DIFF_BASE].total;
}

bool
diff_row_fails(const struct diff *d, const struct diff_row *r, double pct,
    bool on_new)
{
	if (r->status == DIFF_GREW)
		return (double)r->delta * 100.0 >
		    pct * (double)r->s[DIFF_BASE].total;
	if (r->status == DIFF_ONLY_NEW && on_new)
		return r->s[DIFF_NEW].total > d->min_abs;
	return false;
}

static const char *const status_names[DIFF_STATUS_COUNT] = {
	"same", "grew", "shrank", "only-base", "only-new",
};

const char *
diff_status_name(enum diff_status s)
{
	return (unsigned)s < DIFF_STATUS_COUNT ? status_names[s] : "?";
}

int
diff_by_parse(const char *s)
{
	return strcmp(s, "function") == 0 ? DIFF_BY_FUNCTION :
	    strcmp(s, "path") == 0 ? DIFF_BY_PATH : -1;
}

int
diff_norm_parse(const char *s)
{
	return strcmp(s, "calls") == 0 ? DIFF_NORM_CALLS :
	    strcmp(s, "total") == 0 ? DIFF_NORM_TOTAL : -1;
}

int
diff_min_change_parse(const char *s, ttv_ns *min_abs, double *min_rel,
    char **err)
{
	bool have_abs = false, have_rel = false;
	ttv_ns abs = 0;
	double rel = 0;
	char *copy = xstrdup(s);
	int rc = 0;
	/* parts between commas, none empty */
	for (char *p = copy, *next; p != NULL && rc == 0; p = next) {
		char *comma = strchr(p, ',');
		next = comma ? comma + 1 : NULL;
		if (comma != NULL)
			*comma = '\0';
		size_t len = strlen(p);
		if (len == 0) {
			rc = -1;
		} else if (p[len - 1] == '%') {
			char *end;
			p[len - 1] = '\0';
			rel = strtod(p, &end) / 100.0;
			if (have_rel || end == p || *end != '\0' ||
			    !(rel >= 0 && rel <= 1e6))
				rc = -1;
			have_rel = true;
		} else {
			if (have_abs || time_parse_duration(p, len, &abs) != 0)
				rc = -1;
			have_abs = true;
		}
	}
	free(copy);
	if (rc != 0) {
		*err = xasprintf("--min-change takes a time, a percent or "
		    "both (10us, 2%%, 10us,2%%), not '%s'", s);
		return -1;
	}
	*min_abs = abs;
	*min_rel = rel;
	return 0;
}
