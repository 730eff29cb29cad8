/*
 * Where the panes go on a screen of a given size: header line on top,
 * status line at the bottom, the main pane between, and the details pane
 * beside it on wide screens or below it on narrow ones.
 */
#ifndef TTV_UI_LAYOUT_H
#define TTV_UI_LAYOUT_H

#include <stdbool.h>

#include "grid.h"

/* Wide enough to put details beside the main pane. */
#define LAYOUT_BESIDE_MIN_W 150
#define LAYOUT_MIN_W 20
#define LAYOUT_MIN_H 6

struct layout {
	struct rect header, main, details, status;
	bool details_shown, details_beside;
	bool too_small;		/* below LAYOUT_MIN_W x LAYOUT_MIN_H */
};

void layout_compute(int w, int h, bool want_details, struct layout *out);

#endif
