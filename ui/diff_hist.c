/* Two traces' durations on one log-scale axis (diff_hist.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_hist.h"
#include "xalloc.h"

size_t
diff_hist_bucket(const struct diff_hist *h, ttv_ns d)
{
	double x;

	if (h->n <= 1 || (double)d <= h->lo)
		return 0;
	if ((double)d >= h->hi)
		return h->n - 1;
	x = log((double)d / h->lo) / log(h->hi / h->lo) * (double)h->n;
	return x >= (double)(h->n - 1) ? h->n - 1 : (size_t)x;
}

ttv_ns
diff_hist_edge(const struct diff_hist *h, size_t b)
{
	if (h->n == 0)
		return 0;
	if (b >= h->n)
		return (ttv_ns)llround(h->hi);
	return (ttv_ns)llround(h->lo * pow(h->hi / h->lo, (double)b /
	    (double)h->n));
}

void
diff_hist_make(const struct instance_list *const l[2], size_t n,
    struct diff_hist *out)
{
	bool any = false;

	memset(out, 0, sizeof *out);
	for (int s = 0; s < 2; s++) {
		if (l[s]->n == 0)
			continue;
		/* The axis starts at 1 ns: a log scale has no 0. */
		double lo = l[s]->min > 1 ? (double)l[s]->min : 1.0;
		double hi = l[s]->max > 1 ? (double)l[s]->max : 1.0;
		if (!any || lo < out->lo)
			out->lo = lo;
		if (!any || hi > out->hi)
			out->hi = hi;
		any = true;
	}
	if (!any || n == 0)
		return;
	out->n = out->hi > out->lo ? n : 1;
	for (int s = 0; s < 2; s++) {
		out->count[s] = xcalloc(out->n, sizeof *out->count[s]);
		out->calls[s] = l[s]->n;
		for (size_t i = 0; i < l[s]->n; i++)
			out->count[s][diff_hist_bucket(out,
			    l[s]->items[i].dur)]++;
		out->median[s] = l[s]->n > 0 ? diff_hist_bucket(out,
		    l[s]->p50) : out->n;
	}
}

static double
height(const struct diff_hist *h, int s, size_t b, bool normalized)
{
	if (h->calls[s] == 0)
		return 0;
	return normalized ? (double)h->count[s][b] / (double)h->calls[s] :
	    (double)h->count[s][b];
}

int
diff_hist_rows(const struct diff_hist *h, int s, size_t b, bool normalized,
    int rows)
{
	double peak = 0;

	if (b >= h->n || h->count[s][b] == 0)
		return 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < h->n; i++)
			if (height(h, k, i, normalized) > peak)
				peak = height(h, k, i, normalized);
	int r = (int)lround(height(h, s, b, normalized) / peak *
	    (double)rows);
	return r < 1 ? 1 : r > rows ? rows : r;
}

void
diff_hist_free(struct diff_hist *h)
{
	free(h->count[0]);
	free(h->count[1]);
	memset(h, 0, sizeof *h);
}
