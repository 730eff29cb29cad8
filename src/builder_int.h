/*
 * The builder's insides, for the files that make one up: builder.c
 * (building), builder_save.c (kept across runs). Nothing else reads them.
 */
#ifndef TTV_BUILDER_INT_H
#define TTV_BUILDER_INT_H

#include <pthread.h>

#include "builder.h"
#include "hashmap.h"
#include "xalloc.h"

struct open_frame {
	ttv_ns start;
	func_id func;
	args_id args;
};

/* One level a depth: 48 bytes, as a stack 10^6 calls deep has 10^6 of
 * them (the README's budget); the rare long durations, and the arrays of
 * a large depth kept in an index file (index_store.h), live apart. */
typedef VEC(struct long_dur) long_vec;
struct level_side {
	long_vec longs;
	struct store_array *ss, *ws;	/* slices, weights when stored */
};
struct blevel {
	struct slice *s;
	uint32_t *w;		/* weights, parallel to s, or NULL */
	struct level_side *side;	/* NULL until needed */
	ttv_ns last_start;
	uint32_t len, cap;	/* slice_ref indexes are 32 bits anyway */
	bool unsorted;
};
_Static_assert(sizeof(struct blevel) <= 48, "a level stays small");

/* Tracks are built on several threads at once: each track's state, and
 * its levels, have cache lines of their own (see grow_lines). */
struct btrack {
	_Alignas(64) enum track_kind kind;
	uint32_t process;
	int64_t tid;
	str_id name;
	ttv_ns first, last;

	struct blevel *levels;
	uint32_t nlevels;

	VEC(struct open_frame) stack;
	VEC(struct instant) instants;
	bool instants_unsorted;
	VEC(struct counter_sample) samples;
	bool samples_unsorted;
	/* instants and samples once large, in the store (store_room) */
	struct store_array *instants_sa, *samples_sa;
	VEC(struct slice_args) sargs;

	bool has_last;
	struct slice_ref last_ref;
	uint32_t orphan_shifts;
	/* Times an array of the track stopped being only appended to (a
	 * depth, its instants or samples given out of order; its depths
	 * shifted): a saved builder is made again from the first items
	 * of its model's arrays only while this stays (builder_save.c). */
	uint32_t reorders;
	struct index_store *store;	/* where large depths grow, or NULL */
};

struct builder {
	pthread_mutex_t lock;
	struct strtab *strings;
	struct hashmap func_map, process_map, track_map, count_map;

	VEC(struct func) funcs;
	VEC(struct func_addr) func_addrs;
	VEC(uint8_t) has_addr;	/* by func: one of func_addrs is its */
	VEC(struct process) processes;
	struct btrack *tracks;
	uint32_t ntracks, captracks;

	VEC(struct marker) markers;
	VEC(struct flow) flows;
	VEC(struct log_entry) logs;
	VEC(struct arg) args;
	struct store_array *args_sa;	/* store_room */
	size_t args_start;	/* header of the run being built */
	VEC(struct record_count) records;
	VEC(char *) meta_keys;
	VEC(char *) meta_values;
	VEC(struct diag_msg) diags;
	uint64_t ndiags_dropped;
	bool has_errors;

	char *path, *format, *version, *byte_order;
	double ticks_per_second;
	ttv_ns wall_origin;
	struct index_store *store;
	bool owns_store;	/* a copy's (builder_copy), until finished */
	bool store_all;		/* builder_store_all */
	ttv_ns complete_until;
	/* a trace being written: calls open at its end run to now, the
	 * newest time of any thread (set by builder_finish) */
	bool open_to_now;
	ttv_ns now;
};

#endif
