/*
 * What the CTF reader's walk into the model keeps (ctf.c), for the file
 * that writes a growing load's state as bytes and makes it again
 * (ctf_save.c).
 */
#ifndef TTV_CTF_LOADER_H
#define TTV_CTF_LOADER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "builder.h"
#include "reader.h"
#include "ctf_merge.h"
#include "lttng/ctf_calls.h"
#include "lttng/ctf_keys.h"
#include "lttng/ctf_lttng.h"

/* What a stream class's events mean to the model, found once per class. */
enum ev_kind { EV_PLAIN, EV_ENTRY, EV_EXIT, EV_SCHED_SWITCH, EV_BIN_INFO };

/* Where a named top-level field was last found in a scope's values: it
 * is at the same place while the scope has the same type, unless a
 * variable-size field comes before it (then the check fails and it is
 * looked up by name again). */
struct fcache {
	const struct ctf_type *type;
	const struct ctf_field *f;
	uint32_t off;
};

/* A cyg-profile event whose scopes are all fixed structs is read raw:
 * the decoder picks its thread, process and address (ctf_pick), no
 * values are built. */
enum { PICK_VTID, PICK_VPID, PICK_ADDR };

struct raw_plan {
	bool has_vpid, has_addr;
	uint64_t vpid_env;	/* when no vpid field: from the env */
	bool has_vpid_env;
	enum ctf_call_kind call;	/* what its calls are kept as */
};

struct ev_info {
	struct fcache addr;
	struct raw_plan raw;
	func_id func;
	bool has_func;		/* func made (at the class's first event) */
	enum ev_kind kind;
	uint64_t count;
	const char *name;
	size_t index;		/* in loader.infos */
};

/* Keys to model ids (+ 1; 0: not made yet). */
struct key_map {
	uint32_t *items;
	size_t len;
};

struct cpu_state {
	bool running;
	ttv_ns since;
	func_id func;
};

struct loader {
	struct load_ctx *ctx;
	struct builder *b;
	struct ctf_reader *r;
	struct ctf_lttng *lt;
	char name[1024];	/* arg name being built */
	VEC(struct ev_info *) infos;
	VEC(struct cpu_state) cpus;
	uint32_t kernel_proc;
	bool has_kernel_proc;
	VEC(uint8_t) named;	/* per track: name given */
	VEC(uint8_t) no_addr;	/* per track: exits without an address */
	/* per stream: the thread tracks its events went to, in order and
	 * as a set */
	struct seen {
		uint32_t *t;
		size_t n, cap;
		struct ctf_ids has;
	} *seen;
	size_t nseen;
	VEC(uint32_t) stream_track;	/* per stream index + 1 */
	VEC(str_id) stream_text;
	struct fcache c_vtid[2], c_tid[2], c_vpid[2], c_pid[2];
	/* (vpid, vtid) -> track, direct-mapped: spares the builder's own
	 * lookups for nearly every event */
	struct thread_cache {
		bool valid;
		bool named;	/* the generic path has named it */
		uint64_t vtid, vpid;
		uint32_t track;
	} tcache[256];
	/* raw events come with ids of their thread's (vpid, vtid) and their
	 * function's (vpid, addr), made on the decoding threads; here the
	 * ids become tracks and functions (+ 1; 0: not yet) */
	struct ctf_keys thread_keys, func_keys;
	struct key_map key_track, key_func;
	/* when every call is raw: the calls, kept apart from the walk and
	 * built after it (ctf_calls.h), and the events the decoding threads
	 * took, by class: a row of counts per decoding thread (taken_rows,
	 * each made at the thread's first event) */
	struct ctf_calls *calls;
	pthread_mutex_t taken_lock;
	VEC(uint64_t *) taken_rows;
	/* per stream, its decoding thread's: the function keys and the
	 * event classes it has carried, and the classes met last (+ 1):
	 * entries and exits take turns */
	struct fseen {
		struct ctf_ids funcs, classes;
		uint32_t recent[2];
	} *fseen;
	uint64_t nitems;	/* items the walk handed out */
	ttv_ns origin;
	bool have_origin;
	uint64_t seq;		/* time of events without a clock */
	bool stop;		/* --strict and an error was seen */
	bool goes_on;		/* a reader that goes on (grow_*) */
	/* a whole read that keeps the state of its walk stopped at
	 * keep_until (ctf_reader_keep_state): with the calls kept apart,
	 * those before it are built there (the rest after the walk's end),
	 * the counts of what the decoding threads took split there too
	 * (each row: before it, then from it on), and by thread key those
	 * whose exits had no address (kept from one build to the next) */
	bool keeps;
	int64_t keep_until;
	bool *no_addr_of;
	uint64_t nevents, npackets, ndiscarded, nlost, nskipped;
	str_id s_cpu;
};

/* A trace directory read as it grows (ctf.c, grow_*). */
struct ctf_grow {
	struct loader *L;
	bool opened;
	bool spent;		/* the loader cannot go on (loader_restore) */
};

/* A loader for a state made again (ctf_save.c): the trace opened as at
 * the first read, with nothing said into ctx->b and nothing decoded yet;
 * NULL when there is no trace. Then, once its metadata is as it was
 * (ctf_reader_restore_meta), its event classes planned and the hooks
 * set (ctf_loader_ready). */
struct loader *ctf_loader_again(struct load_ctx *ctx);
void ctf_loader_ready(struct loader *L);
/* Its messages go into its builder from here on. */
void ctf_loader_speak(struct loader *L);
void ctf_loader_free(struct loader *L);

/* grow_save and grow_load (reader.h) of the CTF reader: ctf_save.c. */
bool ctf_grow_save(void *state, struct blob *out);
void *ctf_grow_load(struct load_ctx *ctx, struct blob_in *in);

#endif
