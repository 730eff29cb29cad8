/*
 * libFuzzer target for the index reader (src/index_map.c, index_check.c,
 * index_guard.c): the input bytes are an index file, mapped from a file
 * in memory. What the checks let through is then read the way the modes
 * read a model (statistics, the call tree, search, --info's lines, flows,
 * args, strings, functions' addresses, markers, logs, every slice), so a value the checks missed shows as a
 * sanitizer's report. The last byte of the first page picks the checks:
 * every block at open, or each block on first touch (damaged blocks
 * replaced). An index that keeps a state to read on from (IDX_GROW) has
 * its builder made again from it (load_resume_builder), and finished.
 *
 * Seeds: indexes of the test traces, made by the program itself: for
 * each trace T of tests/data, XDG_CACHE_HOME=seeds/c ./ttv --index
 * --info T; then the .ttvi files of seeds/c/ttv are the corpus:
 *   make fuzz && tests/fuzz/fuzz_index -max_total_time=300 seeds/c/ttv
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "index.h"
#include "load_resume.h"
#include "query.h"
#include "query_info.h"
#include "scope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk(const struct trace *t)
{
	/* What was read, summed (unsigned: values are anything). */
	volatile uint64_t sink = 0;
	size_t n;
	struct stats_table st;
	struct call_tree ct;
	query_stats(t, NULL, TTV_NS_MIN, TTV_NS_MAX, &st);
	stats_free(&st);
	query_call_tree(t, NULL, t->first, t->last + 1, true, &ct);
	call_tree_free(&ct);
	uint8_t *all = calloc(t->nfuncs + 1, 1);
	memset(all, 1, t->nfuncs);
	struct search_hit *hits;
	query_search(t, NULL, all, &hits, &n);
	free(hits);
	free(all);
	sink += (uint64_t)trace_memory(t) + (uint64_t)trace_nslices(t);
	struct selection sel;
	struct info_lines info;
	selection_init(&sel);
	query_info(t, &sel, &info);
	sink += info.n;
	info_lines_free(&info);
	for (uint32_t f = 0; f < t->nfuncs; f++) {
		const struct func_addr *a = trace_func_addr(t, f);
		if (a != NULL)
			sink += a->addr + (uint64_t)strlen(trace_str(t,
			    a->binary));
	}
	for (size_t i = 0; i < t->nflows; i++)
		sink += (uint64_t)trace_slice(t, t->flows[i].from)->start +
		    (uint64_t)trace_slice(t, t->flows[i].to)->start;
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		char buf[64];
		sink += (uint64_t)strlen(track_label(t, tr, buf, sizeof buf));
		sink += (uint64_t)t->processes[tr->process].pid;
		for (size_t i = 0; i < tr->nslice_args; i++) {
			const struct arg *a = trace_args(t,
			    tr->slice_args[i].args, &n);
			if (n > 0)
				sink += (uint64_t)strlen(trace_str(t,
				    a[n - 1].name));
		}
		for (uint32_t d = 0; d < tr->ndepth; d++)
			for (size_t i = 0; i < tr->depth[d].len; i++)
				sink += (uint64_t)level_end(&tr->depth[d], i) +
				    (int64_t)strlen(trace_func_name(t,
				    tr->depth[d].slices[i].func));
		for (size_t i = 0; i < tr->ninstants; i++)
			sink += (uint64_t)strlen(trace_func_name(t,
			    tr->instants[i].func));
	}
	for (size_t i = 0; i < t->nmarkers; i++)
		sink += (uint64_t)strlen(marker_kind_name(t->markers[i].kind)) +
		    (int64_t)strlen(trace_str(t, t->markers[i].text));
	for (size_t i = 0; i < t->nlogs; i++)
		sink += (uint64_t)strlen(trace_str(t, t->logs[i].text));
	for (size_t i = 0; i < t->ndiags; i++)
		sink += (uint64_t)strlen(t->diags[i].text);
	sink += (uint64_t)strlen(t->format) + (uint64_t)strlen(t->path);
	(void)sink;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct trace *t = NULL;
	char *why = NULL;

	if (fd < 0 && (fd = memfd_create("fuzz-index", 0)) < 0) {
		perror("memfd_create");
		abort();
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) !=
	    (ssize_t)size)
		abort();
	/* The last byte of page 0 is outside every check (the header and
	 * the trace's path end before it): it picks the checks. */
	enum index_check check = size > 4095 && data[4095] != 0 ?
	    INDEX_CHECK_LAZY : INDEX_CHECK_ALL;
	if (index_map(fd, NULL, check, &t, &why, NULL) == 0) {
		walk(t);
		trace_free(t);
	}
	free(why);
	why = NULL;
	const void *grow, *rstate;
	size_t glen, rlen, covered;
	if (index_map_grown(fd, NULL, &t, &grow, &glen, &why) == 0) {
		struct builder *b = load_resume_builder(grow, glen, NULL, t,
		    "fuzz", NULL, false, &rstate, &rlen, &covered);
		if (b != NULL) {
			struct trace *made = builder_finish(b);
			walk(made);
			trace_free(made);
		}
		trace_free(t);
	}
	free(why);
	return 0;
}
