/*
 * Two timelines aligned (ui/diff_timelines.c): the instant chosen in each
 * trace (their starts, the first call of a function, one marker) is drawn
 * in the same column, so the base's window is the trace's shifted by the
 * difference of the two instants. The arithmetic saturates: two traces
 * may come from clocks 2^62 ns apart. Pure functions of the model, tested
 * in tests/ui/diffview_test.c.
 */
#ifndef TTV_UI_DIFF_ALIGN_H
#define TTV_UI_DIFF_ALIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "query.h"

/* What a time of the base is moved by to fall where the same instant of
 * the trace does: at_new - at_base, saturated to the int64 range. */
ttv_ns diff_align_offset(ttv_ns at_new, ttv_ns at_base);
/* t moved by off (t + off), saturated. */
ttv_ns diff_align_shift(ttv_ns t, ttv_ns off);
/* The base's window for the trace's window [t0, t1): each end moved back
 * by off, saturated; never empty (a window pinned to an end of the time
 * axis keeps its span from that end). */
void diff_align_window(ttv_ns t0, ttv_ns t1, ttv_ns off, ttv_ns *b0,
    ttv_ns *b1);
/* The earliest call (by start, then track and depth) of a function named
 * name on a track the filter (NULL: all) shows: true with it in *ref. */
bool diff_align_first_call(const struct trace *t, const struct filter *f,
    const char *name, struct slice_ref *ref);
/* The marker of trace a at time at or after it (the one a marker jump put
 * the cursor on): true with its index in *ia; and the same marker in b,
 * of the same kind and text and the same number among those (the third
 * "frame" event of each trace): true with its index in *ib. */
bool diff_align_marker_at(const struct trace *a, ttv_ns at, size_t *ia);
bool diff_align_marker_same(const struct trace *a, size_t ia,
    const struct trace *b, size_t *ib);

#endif
