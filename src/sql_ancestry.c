/*
 * ancestor_slice(id) and descendant_slice(id): Perfetto's table functions
 * over the slice table, with its columns (sql_schema.def).
 *
 *  - ancestor_slice(id): the slices found by following parent_id from the
 *    slice (or instant) up to depth 0, outermost first (in id order, as
 *    Perfetto gives them);
 *  - descendant_slice(id): every row of slice whose parent_id chain
 *    reaches the slice: its children, theirs... and the instants inside
 *    them, in start time order, a slice before the slices it holds (the
 *    order of Perfetto's ids).
 * Both see what the slice table sees: under a filter that hides
 * functions the chain skips them, as parent_id does. A NULL id gives no
 * row; an id the slice table does not show is an error ("no row with
 * id N"), as is an argument that is not an integer.
 *
 * The descendants are found depth by depth inside the slice's time span:
 * a candidate is kept when its parent (one binary search) was kept one
 * depth up, so a deep subtree costs O(rows log rows), not rows x depth.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "level.h"
#include "sql_int.h"
#include "sql_schema.h"
#include "xalloc.h"

enum fn { F_ANCESTOR, F_DESCENDANT };

struct table {
	sqlite3_vtab base;
	struct sql *s;
	enum fn fn;
	int arg_col;	/* the argument: the column after slice's */
};

/* A row found, with what orders it. */
struct hit {
	ttv_ns ts;
	uint32_t depth;		/* the row's depth (an instant's: computed) */
	bool instant;
	struct slice_ref ref;
};

struct cursor {
	sqlite3_vtab_cursor base;
	struct sql *s;
	enum fn fn;
	int arg_col;
	int64_t arg;		/* the id asked for */
	VEC(struct hit) hits;
	size_t at;
	struct sql_row row;	/* hits[at] */
};

/* ------------------------------------------------------------ ancestors */

static void
ancestors(struct cursor *c, struct slice_ref r)
{
	struct slice_ref p;
	while (sql_slice_parent(c->s, r, &p)) {
		struct hit h = { .depth = p.depth, .ref = p };
		VEC_PUSH(&c->hits, h);
		r = p;
	}
	/* outermost first */
	for (size_t i = 0, j = c->hits.len; i + 1 < j; i++, j--) {
		struct hit tmp = c->hits.items[i];
		c->hits.items[i] = c->hits.items[j - 1];
		c->hits.items[j - 1] = tmp;
	}
}

/* ---------------------------------------------------------- descendants */

/* Whether index i is in the sorted run a[lo, hi). */
static bool
in_run(const uint32_t *a, size_t lo, size_t hi, uint32_t i)
{
	size_t end = hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && a[lo] == i;
}

static int
cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->instant != y->instant)
		return x->instant ? 1 : -1;
	return (x->ref.index > y->ref.index) - (x->ref.index < y->ref.index);
}

static void
descendants(struct cursor *c, struct slice_ref x)
{
	const struct sql *s = c->s;
	const struct trace *t = s->t;
	if (x.depth == SEARCH_INSTANT)
		return;		/* an instant holds nothing */
	const struct track *tr = &t->tracks[x.track];
	ttv_ns start = trace_slice(t, x)->start, end = trace_slice_end(t, x);
	/* kept[run[d - x.depth - 1] .. run[d - x.depth]): the structural
	 * descendants at depth d, by index (a filter's hidden functions
	 * too: they carry the chain) */
	VEC(uint32_t) kept = { 0 };
	VEC(size_t) run = { 0 };
	VEC_PUSH(&run, 0);
	for (uint32_t d = x.depth + 1; d < tr->ndepth; d++) {
		const struct depth_level *l = &tr->depth[d];
		size_t lo = level_first_start(l, start);
		size_t hi = end == TTV_NS_MAX ? l->len :
		    level_first_start(l, end + 1);
		size_t up0 = run.len >= 2 ? run.items[run.len - 2] : 0;
		size_t up1 = run.items[run.len - 1];
		for (size_t i = lo; i < hi; i++) {
			struct slice_ref r = { x.track, d, (uint32_t)i }, p;
			if (!query_parent(t, r, &p))
				continue;
			if (d == x.depth + 1 ? p.index != x.index :
			    !in_run(kept.items, up0, up1, p.index))
				continue;
			VEC_PUSH(&kept, (uint32_t)i);
			if (sql_slice_shown(s, r)) {
				struct hit h = { l->slices[i].start, d, false,
				    r };
				VEC_PUSH(&c->hits, h);
			}
			if ((i & 0xffff) == 0 && sql_cancelled(s))
				goto out;
		}
		if (kept.len == up1)
			break;		/* nothing at this depth: none below */
		VEC_PUSH(&run, kept.len);
	}
	/* the instants inside it whose parent_id chain reaches it: their
	 * nearest shown ancestor is the slice or a shown descendant */
	for (size_t k = track_first_instant(tr, start); k < tr->ninstants; k++) {
		const struct instant *in = &tr->instants[k];
		if (in->t > end)
			break;
		struct slice_ref r = { x.track, SEARCH_INSTANT, (uint32_t)k }, p;
		if (!sql_slice_shown(s, r) || !sql_slice_parent(s, r, &p))
			continue;
		uint32_t rel = p.depth - x.depth;
		bool under = p.depth == x.depth ? p.index == x.index :
		    p.depth > x.depth && rel < run.len &&
		    in_run(kept.items, run.items[rel - 1], run.items[rel],
		    p.index);
		if (under) {
			struct hit h = { in->t, p.depth + 1, true, r };
			VEC_PUSH(&c->hits, h);
		}
	}
	xqsort(c->hits.items, c->hits.len, sizeof *c->hits.items, cmp_hit);
out:
	VEC_FREE(&kept);
	VEC_FREE(&run);
}

/* ------------------------------------------------------------- vtab api */

static int
connect(sqlite3 *db, void *aux, enum fn fn, sqlite3_vtab **out)
{
	const struct sql_table_desc *d = sql_schema_table(fn == F_ANCESTOR ?
	    "ancestor_slice" : "descendant_slice");
	char *schema = sql_schema_create(d);
	int rc = sqlite3_declare_vtab(db, schema);
	free(schema);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	struct table *tb = sqlite3_malloc(sizeof *tb);
	if (tb == NULL)
		return SQLITE_NOMEM;
	memset(tb, 0, sizeof *tb);
	tb->s = aux;
	tb->fn = fn;
	tb->arg_col = (int)sql_schema_ncols(d) - 1;
	*out = &tb->base;
	return SQLITE_OK;
}

static int
ancestor_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	return connect(db, aux, F_ANCESTOR, out);
}

static int
descendant_connect(sqlite3 *db, void *aux, int argc,
    const char *const *argv, sqlite3_vtab **out, char **err)
{
	return connect(db, aux, F_DESCENDANT, out);
}

static int
disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The argument (the hidden column after slice's shown ones) is
 * required: a plan without it is refused, so SQLite finds one that
 * passes it. */
static int
best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const struct table *tb = (const struct table *)vt;
	int arg = -1;
	bool later = false;	/* given, but by a table not yet scanned */
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *ct = &info->aConstraint[i];
		if (ct->iColumn != tb->arg_col ||
		    ct->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (ct->usable)
			arg = i;
		else
			later = true;
	}
	if (arg < 0 && later)
		return SQLITE_CONSTRAINT;
	if (arg < 0) {
		sqlite3_free(vt->zErrMsg);
		vt->zErrMsg = sqlite3_mprintf("%s() needs a slice id",
		    tb->fn == F_ANCESTOR ? "ancestor_slice" : "descendant_slice");
		return SQLITE_ERROR;
	}
	info->aConstraintUsage[arg].argvIndex = 1;
	info->aConstraintUsage[arg].omit = 1;
	info->estimatedRows = tb->fn == F_ANCESTOR ? 8 : 100;
	info->estimatedCost = (double)info->estimatedRows;
	/* ancestors come in id order */
	if (tb->fn == F_ANCESTOR && info->nOrderBy == 1 &&
	    info->aOrderBy[0].iColumn == S_ID && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int
open_cursor(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	const struct table *tb = (const struct table *)vt;
	struct cursor *c = xcalloc(1, sizeof *c);
	c->s = tb->s;
	c->fn = tb->fn;
	c->arg_col = tb->arg_col;
	*out = &c->base;
	return SQLITE_OK;
}

static int
close_cursor(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	VEC_FREE(&c->hits);
	free(c);
	return SQLITE_OK;
}

static void
settle(struct cursor *c)
{
	if (c->at < c->hits.len)
		sql_row_at(c->s, c->hits.items[c->at].ref, &c->row);
}

/* Fails the statement with msg (from sqlite3_mprintf, taken). */
static int
fail(sqlite3_vtab_cursor *cur, char *msg)
{
	sqlite3_free(cur->pVtab->zErrMsg);
	cur->pVtab->zErrMsg = msg;
	return msg != NULL ? SQLITE_ERROR : SQLITE_NOMEM;
}

static int
filter(sqlite3_vtab_cursor *cur, int plan, const char *idx, int argc,
    sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)cur;
	const char *name = c->fn == F_ANCESTOR ? "ancestor_slice" :
	    "descendant_slice";
	c->hits.len = 0;
	c->at = 0;
	if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return SQLITE_OK;	/* nothing has a NULL id */
	int64_t id;
	struct slice_ref r;
	if (!sql_value_integer(argv[0], &id))
		return fail(cur, sqlite3_mprintf("%s: start id should be an "
		    "integer", name));
	if (!sql_id_ref(c->s, id, &r) || !sql_slice_shown(c->s, r))
		return fail(cur, sqlite3_mprintf("%s: no row with id %lld",
		    name, (long long)id));
	c->arg = id;
	if (c->fn == F_ANCESTOR)
		ancestors(c, r);
	else
		descendants(c, r);
	if (sql_cancelled(c->s))
		c->hits.len = 0;
	settle(c);
	return SQLITE_OK;
}

static int
next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	c->at++;
	settle(c);
	return SQLITE_OK;
}

static int
eof(sqlite3_vtab_cursor *cur)
{
	const struct cursor *c = (const struct cursor *)cur;
	return c->at >= c->hits.len;
}

static int
column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct cursor *c = (struct cursor *)cur;
	if (col < c->arg_col)
		sql_slice_result(c->s, &c->row, col, ctx);
	else
		sqlite3_result_int64(ctx, c->arg);
	return SQLITE_OK;
}

static int
rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	const struct cursor *c = (const struct cursor *)cur;
	*out = sql_ref_id(c->s, c->hits.items[c->at].ref);
	return SQLITE_OK;
}

#define MODULE(connect_fn) {						\
	.iVersion = 1, .xCreate = NULL, .xConnect = connect_fn,		\
	.xBestIndex = best_index, .xDisconnect = disconnect,		\
	.xDestroy = disconnect, .xOpen = open_cursor,			\
	.xClose = close_cursor, .xFilter = filter, .xNext = next,	\
	.xEof = eof, .xColumn = column, .xRowid = rowid,		\
}

static const sqlite3_module ancestor_module = MODULE(ancestor_connect);
static const sqlite3_module descendant_module = MODULE(descendant_connect);

int
sql_ancestry_register(struct sql *s)
{
	int rc = sqlite3_create_module(s->db, "ancestor_slice",
	    &ancestor_module, s);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(s->db, "descendant_slice",
		    &descendant_module, s);
	return rc;
}
