/*
 * The SQL tables' description (sql_schema.def) as the tables use it: the
 * column numbers of each table (enum TABLE_column, TABLE_NCOLS), and the
 * description itself for what is made from it: CREATE statements, the
 * lookups xBestIndex takes, the ttv_tables and ttv_columns listings.
 */
#ifndef TTV_SQL_SCHEMA_H
#define TTV_SQL_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* How a constraint on a column is answered (see sql_schema.def). */
enum sql_lookup {
	SQL_LOOKUP_NONE,	/* SQLite scans and tests */
	SQL_LOOKUP_ID,		/* = : the one row with that id */
	SQL_LOOKUP_KEY,		/* = : the rows with that key */
	SQL_LOOKUP_PARENT,	/* = : the children of a slice */
	SQL_LOOKUP_TRACK,	/* = : the rows of one track */
	SQL_LOOKUP_DEPTH,	/* = : the rows of one depth */
	SQL_LOOKUP_NAME,	/* = and ORDER BY: the name index and order */
	SQL_LOOKUP_TIME,	/* = < <= > >= : binary searches */
	SQL_LOOKUP_ARG,		/* = : a table function's argument */
};

enum sql_column_kind {
	SQL_COLUMN,		/* in SELECT * */
	SQL_COLUMN_HIDDEN,	/* named only */
	SQL_COLUMN_ARG,		/* a table function's argument (hidden) */
};

struct sql_column_desc {
	const char *name;
	const char *type;	/* declared: "INTEGER", "TEXT", "REAL", "" */
	enum sql_lookup lookup;
	enum sql_column_kind kind;
	const char *doc;
};

struct sql_table_desc {
	const char *name;
	const char *doc;
	/* A table function: the table whose columns (those SELECT * shows)
	 * come first (NULL: a table). */
	const char *columns_of;
	/* Its own columns (a table function's: its arguments). */
	const struct sql_column_desc *cols;
	size_t ncols;
};

/* Column numbers: enum slice_column { S_ID, ..., slice_NCOLS }... */
#define TABLE(t, doc) enum t##_column {
#define COL(t, e, name, type, lookup, doc) e,
#define HIDDEN(t, e, name, type, lookup, doc) e,
#define END(t) t##_NCOLS };
#define FUNCTION(t, like, doc)
#define ARG(t, name, type, doc)
#define END_FUNCTION(t)
#include "sql_schema.def"
#undef TABLE
#undef COL
#undef HIDDEN
#undef END
#undef FUNCTION
#undef ARG
#undef END_FUNCTION

/* Every table, in the order of the manual. */
extern const struct sql_table_desc sql_schema[];
extern const size_t sql_schema_len;

/* A table by name, or NULL. */
const struct sql_table_desc *sql_schema_table(const char *name);
/* Columns of a table, the shown ones of its columns_of first. */
size_t sql_schema_ncols(const struct sql_table_desc *d);
const struct sql_column_desc *sql_schema_column(
    const struct sql_table_desc *d, size_t i);
/* The lookup of column i of a table (NONE past its columns). */
enum sql_lookup sql_schema_lookup(const struct sql_table_desc *d, int i);
/* The table's CREATE statement for sqlite3_declare_vtab. Caller frees. */
char *sql_schema_create(const struct sql_table_desc *d);
/* The operators a lookup answers, as ttv_columns shows them (NULL for
 * none). */
const char *sql_lookup_ops(enum sql_lookup l);

/* A constraint's value on an INTEGER column, as the column's affinity
 * makes it before SQLite compares: text that reads as a number becomes
 * that number ('0' finds what 0 finds), a real without a fraction an
 * integer. False when no integer can equal it (NULL, other text, a blob,
 * a fraction). */
bool sql_value_integer(sqlite3_value *v, int64_t *out);

#endif
