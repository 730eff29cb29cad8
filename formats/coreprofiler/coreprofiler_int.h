/*
 * State shared by the parts of the CoreProfiler TraceLog reader:
 * coreprofiler.c (the line loop and the descriptive records),
 * coreprofiler_stack.c (threads, `sam str` stacks, pauses, JIT and GC
 * slices, allocations). Internal to formats/.
 */
#ifndef TTV_COREPROFILER_INT_H
#define TTV_COREPROFILER_INT_H

#include "builder.h"
#include "coreprofiler_idmap.h"
#include "coreprofiler_lex.h"
#include "reader.h"
#include "xalloc.h"

#define CP_NONE UINT32_MAX

/* One open frame of a thread's shadow stack. */
struct cp_frame {
	uint32_t func;		/* index into cp->funcs */
	uint32_t pad;
	uint64_t ip;		/* call point, 0 = unknown */
	ttv_ns start;
	uint64_t cum0;		/* thread's cumulative weight when opened */
};

enum cp_rt_kind { CP_RT_JIT, CP_RT_SEARCH, CP_RT_GC };

/* An open JIT or GC interval on a thread's runtime track. */
struct cp_rt {
	enum cp_rt_kind kind;
	uint64_t what;		/* function (JIT) or gens/reason bits (GC) */
	ttv_ns start;
};

struct cp_thread {
	uint64_t iid;		/* UINT64_MAX for an OS thread with no managed one */
	uint64_t clr;
	int64_t ostid;		/* -1 until `thr aos` */
	bool declared, destroyed, seen_t;
	uint32_t nmoves;	/* `thr aos` after the first */
	uint32_t track, rt_track, cpu_track, alloc_track;

	VEC(struct cp_frame) stk;
	VEC(struct cp_rt) rt;
	ttv_ns rt_last;		/* last JIT/GC time used */
	bool rt_seen;
	ttv_ns last_t;
	uint64_t cum;		/* sum of sample counts so far */
	size_t next_pause;	/* first pause not yet applied */

	ttv_ns cpu_last;
	bool cpu_seen;
	uint64_t alloc_bytes;

	/* what --info reports per thread */
	uint64_t records, samples, weight, empty_weight;
	uint32_t max_depth;
};

struct cp_func {
	uint32_t fid;		/* builder func_id, CP_NONE until first use */
	str_id name;		/* 0 until `fun nam` */
	str_id category;
	char *text;		/* owned copy of the name, for JIT labels */
	uint64_t iid, clr;
};

struct cp_class {
	char *text;		/* owned; NULL until `cls nam` */
	str_id objs_key, bytes_key;	/* arg names, interned on first use */
	uint64_t iid;
};

struct cp_pause {
	ttv_ns t0, t1;		/* t1 = TTV_NS_MAX while open */
};

enum cp_method { CP_METHOD_UNKNOWN, CP_METHOD_SAMPLING, CP_METHOD_INSTR };

/* What one open frame costs from the line to the model, rounded up: the
 * reader's frame (32 bytes), the builder's level (48) and its slice and
 * weight (64 + 32 in malloc's chunks), the model's level (40), and the
 * reader's scratch (24). */
#define CP_LEVEL_COST 256

struct cp {
	struct load_ctx *ctx;
	struct builder *b;
	uint64_t line;		/* 1-based number of the line being read */
	bool failed;		/* strict mode hit an error */
	uint64_t nbad;		/* damaged lines so far */
	/* The deepest stack the memory budget allows for this file (see
	 * CP_LEVEL_COST): one line of a few MB can declare 10^6 frames. */
	uint64_t max_depth;

	uint32_t process;	/* CP_NONE until first needed */
	int64_t pid;
	str_id process_name;

	enum cp_method method;
	bool sampled;		/* slices carry sample weights */
	ttv_ns cpu_interval;	/* CpuTraceTimeoutMs */

	VEC(struct cp_thread) threads;
	struct idmap thread_by_iid, thread_by_os, native_by_os;

	VEC(struct cp_func) funcs;
	struct idmap func_by_iid, func_by_clr;

	VEC(struct cp_class) classes;
	struct idmap class_by_iid;

	VEC(struct cp_pause) pauses;
	bool paused;

	uint32_t proc_cpu_track, heap_track;
	ttv_ns proc_cpu_last;
	bool proc_cpu_seen;
	uint32_t last_gc_thread;	/* CP_NONE */
	int64_t next_counter;

	/* scratch, reused for every line */
	struct {
		uint64_t iid, ip;
		bool has_ip;
	} *fr;
	size_t frcap;
	char *buf;
	size_t bufcap;
	struct {
		uint32_t cls;
		uint64_t objs, bytes;
	} *al;
	size_t alcap;
	func_id f_alloc, f_heap;	/* func_id + 1, 0 until made */

	/* names used again and again */
	str_id s_bytes, s_objects, s_function, s_jit, s_gc;
};

/* coreprofiler.c */
void cp_bad(struct cp *cp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cp_warn(struct cp *cp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cp_bad_fields(struct cp *cp, const char *rec, const struct cp_cur *c0,
    const char *spec);
uint32_t cp_process(struct cp *cp);
const char *cp_fmt(struct cp *cp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* coreprofiler_stack.c */
uint32_t cp_thread_get(struct cp *cp, uint64_t iid);
uint32_t cp_thread_by_os(struct cp *cp, int64_t ostid);
uint32_t cp_thread_track(struct cp *cp, uint32_t th);
uint32_t cp_func_get(struct cp *cp, uint64_t iid);
func_id cp_func_fid(struct cp *cp, uint32_t fi);
uint32_t cp_class_get(struct cp *cp, uint64_t iid);
void cp_thread_destroyed(struct cp *cp, uint32_t th);
void cp_sam_str(struct cp *cp, struct cp_cur *c);
void cp_sam_mem(struct cp *cp, struct cp_cur *c);
void cp_gch_alt(struct cp *cp, struct cp_cur *c);
void cp_rt_begin(struct cp *cp, int64_t ostid, ttv_ns t,
    enum cp_rt_kind kind, uint64_t what);
void cp_rt_end(struct cp *cp, int64_t ostid, ttv_ns t,
    enum cp_rt_kind kind, uint64_t what);
void cp_pause(struct cp *cp, ttv_ns t, bool resume);
void cp_finish(struct cp *cp);
void cp_free(struct cp *cp);

/* coreprofiler_save.c: the state written as bytes (reader.h, grow_save)
 * and read back into a cp as cp_begin leaves it, for cp->b the builder
 * made again; false when the bytes are damaged (the caller frees cp). */
void cp_save(const struct cp *cp, struct blob *w);
bool cp_restore(struct cp *cp, struct blob_in *in);

#endif
