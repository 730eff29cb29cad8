/*
 * Screen layout (see layout.h). Pure arithmetic, tested in
 * tests/ui/layout_test.c.
 */
#include <string.h>

#include "layout.h"

void
layout_compute(int w, int h, bool want_details, struct layout *o)
{
	int mh;

	memset(o, 0, sizeof *o);
	if (w < LAYOUT_MIN_W || h < LAYOUT_MIN_H) {
		o->too_small = true;
		o->status = (struct rect){ 0, h > 0 ? h - 1 : 0, w, h > 0 };
		return;
	}
	o->header = (struct rect){ 0, 0, w, 1 };
	o->status = (struct rect){ 0, h - 1, w, 1 };
	mh = h - 2;
	o->main = (struct rect){ 0, 1, w, mh };
	if (!want_details)
		return;
	if (w >= LAYOUT_BESIDE_MIN_W) {
		/* A third of the width, at least 48 columns of text. */
		int dw = w / 3 < 48 ? 48 : w / 3;
		o->details_shown = o->details_beside = true;
		o->main.w = w - dw;
		o->details = (struct rect){ o->main.w, 1, dw, mh };
	} else if (mh >= 12) {
		/* Below: a third of the height, between 6 and 12 rows, so
		 * the timeline keeps at least two thirds. */
		int dh = mh / 3;
		if (dh < 6)
			dh = 6;
		if (dh > 12)
			dh = 12;
		o->details_shown = true;
		o->main.h = mh - dh;
		o->details = (struct rect){ 0, 1 + o->main.h, w, dh };
	}
}
