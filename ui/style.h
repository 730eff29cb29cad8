/*
 * What a cell looks like, said by meaning rather than by colour: panes pick
 * a style (header, slice of hue 3, search match...) and the terminal
 * backend (term.c) decides how that looks on an 8-colour, 256-colour,
 * direct-colour or colourless terminal.
 */
#ifndef TTV_UI_STYLE_H
#define TTV_UI_STYLE_H

enum style {
	STYLE_NORMAL,
	STYLE_HEADER,		/* top line: file, window, filters */
	STYLE_STATUS,		/* bottom line */
	STYLE_ERROR,		/* status line error */
	STYLE_RULER,		/* time ruler text */
	STYLE_TICK,		/* ruler tick marks */
	STYLE_MARKER,		/* marker glyphs on the ruler */
	STYLE_LANE,		/* thread lane header */
	STYLE_DIM,		/* secondary text */
	STYLE_DENSITY,		/* shaded too-dense regions */
	STYLE_SELECTED,		/* the cursor slice / row */
	STYLE_MATCH,		/* search hit */
	STYLE_TITLE,		/* pane titles, table headers */
	STYLE_BORDER,
	STYLE_BAR,		/* partial-cell edge of a block (fg = hue) */
	STYLE_SLICE0,		/* STYLE_SLICE0 + hue: slice blocks */
	STYLE_SLICE_LAST = STYLE_SLICE0 + 11,
	STYLE_EDGE0,		/* STYLE_EDGE0 + hue: partial blocks, fg = hue */
	STYLE_EDGE_LAST = STYLE_EDGE0 + 11,
	/* Two traces compared (ui/diff*.c): what grew in red, what shrank
	 * in blue, each in STYLE_DIFF_LEVELS strengths (the last the
	 * strongest), what stayed the same neutral. */
	STYLE_DIFF_GREW0,
	STYLE_DIFF_SHRANK0 = STYLE_DIFF_GREW0 + 3,
	STYLE_DIFF_SAME = STYLE_DIFF_SHRANK0 + 3,
	STYLE_COUNT
};
#define STYLE_NHUES 12
#define STYLE_DIFF_LEVELS 3

/* Extra attributes a pane may add to any style. */
#define ATTR_BOLD	0x1
#define ATTR_REVERSE	0x2
#define ATTR_UNDERLINE	0x4

#endif
