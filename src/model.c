/* The trace model: freeing it and small lookups (see model.h). */
#include "config.h"

#include "model.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* An array of the model's: freed unless it lives in the backing. */
static bool
own(const struct trace *t, const void *p)
{
	return p != NULL && (t->backing == NULL ||
	    !t->backing->owns(t->backing, p));
}

static void
drop(const struct trace *t, void *p)
{
	if (own(t, p))
		free(p);
}

void
trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		struct track *tr = &t->tracks[i];
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			if (own(t, tr->depth[d].slices))
				xbig_free(tr->depth[d].slices);
			drop(t, tr->depth[d].weights);
			drop(t, tr->depth[d].longs);
		}
		free(tr->depth);
		drop(t, tr->instants);
		drop(t, tr->samples);
		drop(t, tr->slice_args);
	}
	free(t->tracks);
	for (size_t i = 0; i < t->nstr_chunks; i++)
		drop(t, t->str_chunks[i]);
	free(t->str_chunks);
	free(t->strings);
	drop(t, t->funcs);
	drop(t, t->func_addrs);
	drop(t, t->processes);
	drop(t, t->markers);
	drop(t, t->flows);
	drop(t, t->logs);
	drop(t, t->args);
	for (size_t i = 0; i < t->nrecords; i++)
		free(t->records[i].kind);
	free(t->records);
	for (size_t i = 0; i < t->nmeta; i++) {
		free(t->meta_keys[i]);
		free(t->meta_values[i]);
	}
	free(t->meta_keys);
	free(t->meta_values);
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i].path);
	free(t->files);
	for (size_t i = 0; i < t->ndiags; i++)
		free(t->diags[i].text);
	free(t->diags);
	free(t->path);
	free(t->format);
	free(t->version);
	free(t->byte_order);
	if (t->backing != NULL)
		t->backing->release(t->backing);
	free(t);
}

ttv_ns
level_long_dur(const struct depth_level *l, size_t i)
{
	size_t lo = 0, hi = l->nlongs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->longs[mid].index < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->nlongs && l->longs[lo].index == i)
		return l->longs[lo].dur;
	return SLICE_DUR_LONG;	/* not listed: the value is what it says */
}

const struct arg *
trace_args(const struct trace *t, args_id a, size_t *n)
{
	if (a == 0 || a >= t->nargs) {
		*n = 0;
		return NULL;
	}
	*n = (size_t)t->args[a].v.u;
	if (*n > t->nargs - a - 1)
		*n = t->nargs - a - 1;
	return &t->args[a + 1];
}

const struct arg *
trace_slice_args(const struct trace *t, struct slice_ref r, size_t *n)
{
	const struct track *tr = &t->tracks[r.track];
	size_t lo = 0, hi = tr->nslice_args;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct slice_args *sa = &tr->slice_args[mid];
		if (sa->depth < r.depth ||
		    (sa->depth == r.depth && sa->index < r.index))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tr->nslice_args && tr->slice_args[lo].depth == r.depth &&
	    tr->slice_args[lo].index == r.index)
		return trace_args(t, tr->slice_args[lo].args, n);
	*n = 0;
	return NULL;
}

static const char *const marker_names[MARKER_KIND_COUNT] = {
	[MARKER_BUFFER_START] = "buffer-start",
	[MARKER_BUFFER_END] = "buffer-end",
	[MARKER_TSC_WRAP] = "tsc-wrap",
	[MARKER_CPU_CHANGE] = "cpu-change",
	[MARKER_CUSTOM_EVENT] = "custom-event",
	[MARKER_TYPED_EVENT] = "typed-event",
	[MARKER_DROPPED] = "dropped",
	[MARKER_PAUSE] = "pause",
	[MARKER_RESUME] = "resume",
	[MARKER_PACKET] = "packet",
};

const char *
marker_kind_name(enum marker_kind k)
{
	return (unsigned)k < MARKER_KIND_COUNT ? marker_names[k] : "unknown";
}

int
marker_kind_parse(const char *name)
{
	for (int k = 0; k < MARKER_KIND_COUNT; k++)
		if (strcmp(name, marker_names[k]) == 0)
			return k;
	return -1;
}

const char *
track_label(const struct trace *t, const struct track *tr, char *buf,
    size_t size)
{
	if (tr->name != 0)
		return trace_str(t, tr->name);
	static const char *const what[] = {
		[TRACK_THREAD] = "tid", [TRACK_ASYNC] = "async",
		[TRACK_CPU] = "cpu", [TRACK_COUNTER] = "counter",
	};
	snprintf(buf, size, "%s %lld", what[tr->kind], (long long)tr->tid);
	return buf;
}

size_t
trace_nslices(const struct trace *t)
{
	size_t n = 0;
	for (uint32_t i = 0; i < t->ntracks; i++)
		n += t->tracks[i].nslices;
	return n;
}

size_t
trace_memory(const struct trace *t)
{
	size_t n = sizeof *t;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		n += sizeof *tr + tr->ndepth * sizeof *tr->depth;
		for (uint32_t d = 0; d < tr->ndepth; d++)
			n += tr->depth[d].len * (sizeof(struct slice) +
			    (tr->depth[d].weights ? sizeof(uint32_t) : 0)) +
			    tr->depth[d].nlongs * sizeof(struct long_dur);
		n += tr->ninstants * sizeof *tr->instants;
		n += tr->nsamples * sizeof *tr->samples;
		n += tr->nslice_args * sizeof *tr->slice_args;
	}
	n += t->nstrings * sizeof *t->strings;
	for (uint32_t i = 0; i < t->nstrings; i++)
		n += strlen(t->strings[i]) + 1;
	n += t->nfuncs * sizeof *t->funcs;
	n += t->nfunc_addrs * sizeof *t->func_addrs;
	n += t->nprocesses * sizeof *t->processes;
	n += t->nmarkers * sizeof *t->markers;
	n += t->nflows * sizeof *t->flows;
	n += t->nlogs * sizeof *t->logs;
	n += t->nargs * sizeof *t->args;
	return n;
}

/* The pages of [p, p + len), advised. */
static void
advise(const void *p, size_t len, int adv)
{
#ifdef HAVE_MADVISE
	static long page;
	if (page == 0)
		page = sysconf(_SC_PAGESIZE);
	if (p == NULL || len == 0 || page <= 0)
		return;
	uintptr_t lo = (uintptr_t)p & ~((uintptr_t)page - 1);
	uintptr_t hi = ((uintptr_t)p + len + (uintptr_t)page - 1) &
	    ~((uintptr_t)page - 1);
	(void)madvise((void *)lo, hi - lo, adv);
#else
	(void)p;
	(void)len;
	(void)adv;
#endif
}

void
trace_advise(const struct trace *t, enum trace_access how)
{
#ifdef HAVE_MADVISE
	if (t->backing == NULL)
		return;
	int adv = how == TRACE_SCAN ? MADV_SEQUENTIAL : MADV_RANDOM;
	for (uint32_t i = 0; i < t->ntracks; i++)
		for (uint32_t d = 0; d < t->tracks[i].ndepth; d++) {
			const struct depth_level *l = &t->tracks[i].depth[d];
			advise(l->slices, l->len * sizeof *l->slices, adv);
			advise(l->weights, l->weights ? l->len *
			    sizeof *l->weights : 0, adv);
		}
#else
	(void)t;
	(void)how;
#endif
}

void
trace_prefetch(const struct trace *t, uint32_t track, uint32_t depth,
    size_t lo, size_t hi)
{
#ifdef HAVE_MADVISE
	if (t->backing == NULL || t->backing->resident ||
	    track >= t->ntracks || depth >= t->tracks[track].ndepth)
		return;
	const struct depth_level *l = &t->tracks[track].depth[depth];
	if (hi > l->len)
		hi = l->len;
	if (lo >= hi)
		return;
	advise(l->slices + lo, (hi - lo) * sizeof *l->slices, MADV_WILLNEED);
	if (l->weights != NULL)
		advise(l->weights + lo, (hi - lo) * sizeof *l->weights,
		    MADV_WILLNEED);
#else
	(void)t;
	(void)track;
	(void)depth;
	(void)lo;
	(void)hi;
#endif
}

const struct func_addr *
trace_func_addr(const struct trace *t, func_id f)
{
	size_t lo = 0, hi = t->nfunc_addrs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->func_addrs[mid].func < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nfunc_addrs && t->func_addrs[lo].func == f ?
	    &t->func_addrs[lo] : NULL;
}
