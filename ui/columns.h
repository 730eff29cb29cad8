/*
 * The columns a table pane lets the user choose (uftrace's `f`): the
 * functions pane's statistics and the calls pane's fields. A pane that
 * has them holds a struct column_set and hands it out through its class
 * (pane.h, columns); the chooser is drawn over the pane by the viewer, as
 * the key list is, and the saved state keeps the choice per pane
 * (ui/state.c: "columns PANE NAME,NAME...").
 */
#ifndef TTV_UI_COLUMNS_H
#define TTV_UI_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "keys.h"
#include "pane.h"

#define COLUMNS_MAX 32

struct column_set {
	const char *const *names;	/* n names, in screen order */
	size_t n;
	uint32_t shown;			/* bit i: names[i] shown */
};

static inline bool
column_shown(const struct column_set *cs, size_t i)
{
	return i < cs->n && (cs->shown >> i & 1u);
}

/* The columns of a pane, or NULL when it has none to choose. */
struct column_set *pane_column_set(struct pane *p);
/* Every column shown. */
uint32_t columns_all(const struct column_set *cs);
/* "count,total,self": the columns shown, by name (caller frees). */
char *columns_text(const struct column_set *cs);
/* Parses a list as columns_text writes it (an empty one: none shown)
 * into *shown; -1 on a name the set does not have. */
int columns_parse(const struct column_set *cs, const char *list,
    uint32_t *shown);

/* The chooser over rectangle r: one row per column, [x] when shown,
 * the selected row at pos. */
void columns_draw(const struct column_set *cs, struct list_pos *pos,
    const char *pane_title, struct grid *g, struct rect r);
/* Moves in the chooser and toggles a column (CMD_COLUMN_TOGGLE);
 * PANE_UNHANDLED for the rest (closing it is the viewer's). A message
 * for the status line, or NULL, in *msg. */
int columns_command(struct column_set *cs, struct list_pos *pos,
    enum cmd c, const char **msg);

#endif
