/*
 * The SQL pane (ui/sql.c): what the rest of the viewer asks of it. The
 * pane owns its connection, query and results.
 */
#ifndef TTV_UI_SQLPANE_H
#define TTV_UI_SQLPANE_H

#include "view.h"

/* Runs a query (`:sql QUERY`) over the view's window and filters, and
 * shows the SQL pane; PANE_* flags. */
int sql_pane_run(struct view *v, const char *query);
/* The query last run, or NULL: the `:sql` prompt starts from it. */
const char *sql_pane_query(const struct view *v);

#endif
