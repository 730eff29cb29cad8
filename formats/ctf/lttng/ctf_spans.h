/*
 * Address ranges of processes, each address given to the first range
 * that covered it: where a traced process loaded its binaries, as
 * LTTng's statedump and dlopen events say (ctf_lttng.c). A range added
 * later takes only what no earlier one of its process holds, so finding
 * an address's range is one look-up in disjoint pieces, however many
 * ranges overlap; adding one costs in proportion to the pieces it fills.
 */
#ifndef TTV_CTF_SPANS_H
#define TTV_CTF_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Two balanced trees (treaps) of nodes kept in one array, linked by
 * index (0: none). */
struct ctf_span_node {
	int64_t pid;
	uint64_t lo, hi;	/* inclusive */
	uint32_t val;
	uint32_t prio;
	uint32_t left, right;
};

struct ctf_spans {
	struct ctf_span_node *n;	/* n[0] unused */
	uint32_t len, cap;
	uint32_t free_list;	/* nodes given back, through .left */
	uint32_t pieces;	/* what each address belongs to */
	uint32_t covered;	/* what is held at all, merged */
	uint64_t seed;
};

void ctf_spans_init(struct ctf_spans *s);
void ctf_spans_free(struct ctf_spans *s);
/* Adds val over [lo, lo + size) of process pid, wrapping past the top of
 * the address space as unsigned arithmetic does (nothing when size is
 * 0), where no range added before holds it. */
void ctf_spans_add(struct ctf_spans *s, int64_t pid, uint64_t lo,
    uint64_t size, uint32_t val);
/* The val of the range that holds addr in process pid; false if none. */
bool ctf_spans_find(const struct ctf_spans *s, int64_t pid, uint64_t addr,
    uint32_t *val);

#endif
