/*
 * The SQL tables' description (sql_schema.def) as data: the list the
 * modules, ttv_tables, ttv_columns and the manual are made from, and the
 * CREATE statements built from it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_schema.h"
#include "xalloc.h"

/* Each table's own columns: slice_cols[]... */
#define TABLE(t, doc) static const struct sql_column_desc t##_cols[] = {
#define COL(t, e, name, type, lookup, doc) \
	{ #name, type, SQL_LOOKUP_##lookup, SQL_COLUMN, doc },
#define HIDDEN(t, e, name, type, lookup, doc) \
	{ #name, type, SQL_LOOKUP_##lookup, SQL_COLUMN_HIDDEN, doc },
#define END(t) };
#define FUNCTION(t, like, doc) TABLE(t, doc)
#define ARG(t, name, type, doc) \
	{ #name, type, SQL_LOOKUP_ARG, SQL_COLUMN_ARG, doc },
#define END_FUNCTION(t) END(t)
#include "sql_schema.def"
#undef TABLE
#undef COL
#undef HIDDEN
#undef END
#undef FUNCTION
#undef ARG
#undef END_FUNCTION

#define TABLE(t, doc) { #t, doc, NULL, t##_cols, \
	sizeof t##_cols / sizeof *t##_cols },
#define COL(t, e, name, type, lookup, doc)
#define HIDDEN(t, e, name, type, lookup, doc)
#define END(t)
#define FUNCTION(t, like, doc) { #t, doc, #like, t##_cols, \
	sizeof t##_cols / sizeof *t##_cols },
#define ARG(t, name, type, doc)
#define END_FUNCTION(t)
const struct sql_table_desc sql_schema[] = {
#include "sql_schema.def"
};
#undef TABLE
#undef COL
#undef HIDDEN
#undef END
#undef FUNCTION
#undef ARG
#undef END_FUNCTION

const size_t sql_schema_len = sizeof sql_schema / sizeof *sql_schema;

const struct sql_table_desc *
sql_schema_table(const char *name)
{
	for (size_t i = 0; i < sql_schema_len; i++)
		if (strcmp(sql_schema[i].name, name) == 0)
			return &sql_schema[i];
	return NULL;
}

static const struct sql_table_desc *
base_of(const struct sql_table_desc *d)
{
	return d->columns_of != NULL ? sql_schema_table(d->columns_of) : NULL;
}

/* The columns a table function takes from its base: those SELECT *
 * shows, which come before the hidden ones (the hidden columns would
 * take the function's arguments: SQLite gives them to the hidden columns
 * in order). */
static size_t
shown_cols(const struct sql_table_desc *b)
{
	size_t n = 0;
	while (n < b->ncols && b->cols[n].kind == SQL_COLUMN)
		n++;
	return n;
}

size_t
sql_schema_ncols(const struct sql_table_desc *d)
{
	const struct sql_table_desc *b = base_of(d);
	return (b != NULL ? shown_cols(b) : 0) + d->ncols;
}

const struct sql_column_desc *
sql_schema_column(const struct sql_table_desc *d, size_t i)
{
	const struct sql_table_desc *b = base_of(d);
	if (b != NULL) {
		if (i < shown_cols(b))
			return &b->cols[i];
		i -= shown_cols(b);
	}
	return i < d->ncols ? &d->cols[i] : NULL;
}

enum sql_lookup
sql_schema_lookup(const struct sql_table_desc *d, int i)
{
	const struct sql_column_desc *c = i >= 0 ?
	    sql_schema_column(d, (size_t)i) : NULL;
	if (c == NULL || (d->columns_of != NULL && c->kind != SQL_COLUMN_ARG))
		return SQL_LOOKUP_NONE;	/* a function's rows are its own */
	return c->lookup;
}

char *
sql_schema_create(const struct sql_table_desc *d)
{
	size_t n = sql_schema_ncols(d), len = 32;
	for (size_t i = 0; i < n; i++) {
		const struct sql_column_desc *c = sql_schema_column(d, i);
		len += strlen(c->name) + strlen(c->type) + 16;
	}
	char *sql = xmalloc(len), *p = sql;
	p += sprintf(p, "CREATE TABLE x(");
	for (size_t i = 0; i < n; i++) {
		const struct sql_column_desc *c = sql_schema_column(d, i);
		p += sprintf(p, "%s%s%s%s%s", i ? ", " : "", c->name,
		    *c->type ? " " : "", c->type,
		    c->kind != SQL_COLUMN ? " HIDDEN" : "");
	}
	strcpy(p, ")");
	return sql;
}

const char *
sql_lookup_ops(enum sql_lookup l)
{
	switch (l) {
	case SQL_LOOKUP_ID:
	case SQL_LOOKUP_KEY:
	case SQL_LOOKUP_PARENT:
	case SQL_LOOKUP_TRACK:
	case SQL_LOOKUP_DEPTH:
		return "=";
	case SQL_LOOKUP_NAME:
		return "=, ORDER BY";
	case SQL_LOOKUP_TIME:
		return "=, <, <=, >, >=";
	default:
		return NULL;
	}
}

bool
sql_value_integer(sqlite3_value *v, int64_t *out)
{
	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return true;
	case SQLITE_FLOAT: {
		/* exactly an integer of int64's range: -2^63 <= d < 2^63 */
		double d = sqlite3_value_double(v);
		if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
			return false;
		int64_t x = (int64_t)d;
		if ((double)x != d)
			return false;
		*out = x;
		return true;
	}
	default:
		return false;
	}
}
