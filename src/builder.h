/*
 * The builder: the only way a reader puts data into a trace model.
 *
 * Readers intern strings, declare processes, tracks and functions, and then
 * feed events. Slices can be given whole (builder_slice) or as begin/end
 * pairs through the builder's per-track open stack (builder_push and the
 * builder_pop* family); in both cases the events of one track must come in
 * time order of their start, except that whole slices may come in any
 * order (the builder sorts a depth that arrived out of order).
 *
 * A reader may replay several tracks at once from several threads: the
 * calls that touch only one track (builder_push, builder_push_args with an
 * args id already made, builder_pop, builder_pop_func, builder_calls,
 * builder_slice,
 * builder_slice_weighted, builder_instant, builder_counter,
 * builder_track_touch, builder_stack_*, builder_last_slice,
 * builder_open_slice) may run concurrently on distinct tracks; every other
 * call (names, functions, tracks, args runs, markers, flows, logs, counts,
 * diagnostics, builder_func_addr, builder_pop_orphan) must then be made between
 * builder_lock() and builder_unlock().
 *
 * builder_finish() hands over a struct trace that the caller owns and frees
 * with trace_free(), and frees the builder; builder_free() is for a
 * builder that is given up without finishing.
 */
#ifndef TTV_BUILDER_H
#define TTV_BUILDER_H

#include <stdarg.h>
#include <stdbool.h>
#include "model.h"

struct builder;

struct builder *builder_new(const char *path);
struct index_store;
/* Large depths grow in the index file being written (index_store.h)
 * instead of in memory; the model builder_finish returns then owns the
 * store (its backing). Call before anything else. */
void builder_set_store(struct builder *b, struct index_store *store);
/* A builder copied as it goes (builder_copy, --follow): its instants,
 * counter samples and args also grow in the store once large, so that
 * the copies map them too. After builder_set_store. */
void builder_store_all(struct builder *b);
void builder_free(struct builder *b);
/* A builder with all that b holds, open stacks included, that goes on
 * apart from it: a trace being read as it grows (--follow) is made by
 * finishing a copy, while b goes on with what is appended. When b's
 * large depths grow in a file (builder_set_store), the copy maps the
 * pages written there rather than copying them (index_store_fork): it
 * costs the part not written yet, and its model's memory is the file's.
 * The copy owns its store; b must not grow while it is being made. */
struct builder *builder_copy(const struct builder *b);
/* The trace b would make if it were finished now (builder_finish of a
 * copy), b left as it was. */
struct trace *builder_snapshot(const struct builder *b);
/* Ends any slice still open (flagged unterminated at its track's last time),
 * sorts what needs sorting and returns the model. */
struct trace *builder_finish(struct builder *b);
/* A thread other than the one that calls builder_finish, done making
 * per-track calls: makes what it built visible to the others (before it
 * signals them, or exits to be joined). */
void builder_thread_done(struct builder *b);

/* For readers that replay tracks in parallel (see above). */
void builder_lock(struct builder *b);
void builder_unlock(struct builder *b);

/* --- what the file is (for --info) --- */
void builder_set_format(struct builder *b, const char *format,
    const char *version, const char *byte_order);
void builder_set_tick_rate(struct builder *b, double ticks_per_second);
void builder_set_wall_origin(struct builder *b, ttv_ns ns_since_epoch);
/* A trace being written whose parts arrive apart (CTF's streams): the
 * time up to which everything is known to be there (trace->
 * complete_until). */
void builder_set_complete_until(struct builder *b, ttv_ns t);
/* A trace being written (--follow): a call still open on the builder's
 * stack when the trace ends runs up to now, the newest event of any
 * thread, rather than to its own thread's last event (readers that keep
 * their own stacks do the same with load_options.follow). */
void builder_open_to_now(struct builder *b);
void builder_meta(struct builder *b, const char *key, const char *value);
/* Adds n to the count of records of a kind (names are copied). Readers
 * should count locally and call this once per kind at the end. */
void builder_count(struct builder *b, const char *kind, uint64_t n);

/* --- diagnostics: "offset N: what" for binary formats --- */
void builder_warn(struct builder *b, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void builder_error(struct builder *b, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "line N: what" for text formats */
void builder_line_warn(struct builder *b, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void builder_line_error(struct builder *b, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A message with no position (e.g. about a side file). */
void builder_note(struct builder *b, enum diag_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool builder_has_errors(const struct builder *b);

/* --- names --- */
str_id builder_intern(struct builder *b, const char *s, size_t len);
str_id builder_intern_cstr(struct builder *b, const char *s);
/* The function for a (name, category) pair; the same pair gives the same id.
 * source_id is the reader's id for it (kept on first use), or -1. */
func_id builder_func(struct builder *b, str_id name, str_id category,
    int64_t source_id);
/* Renames a function after the fact (e.g. once a symbol map is read). */
void builder_func_rename(struct builder *b, func_id f, str_id name);
/* Where function f's code is: addr in the binary at path (model.h,
 * struct func_addr). The first one given for a function is kept. */
void builder_func_addr(struct builder *b, func_id f, const char *binary,
    uint64_t addr);

/* --- processes and tracks --- */
uint32_t builder_process(struct builder *b, int64_t pid);
void builder_process_name(struct builder *b, uint32_t process, str_id name);
/* Finds or creates the track of this kind and id within a process. */
uint32_t builder_track(struct builder *b, enum track_kind kind,
    uint32_t process, int64_t tid);
/* Always creates a new track (e.g. a reused thread id). */
uint32_t builder_track_new(struct builder *b, enum track_kind kind,
    uint32_t process, int64_t tid);
void builder_track_name(struct builder *b, uint32_t track, str_id name);
/* Widens the track's time range (e.g. to the first timestamp of a buffer). */
void builder_track_touch(struct builder *b, uint32_t track, ttv_ns t);
ttv_ns builder_track_first(const struct builder *b, uint32_t track);
ttv_ns builder_track_last(const struct builder *b, uint32_t track);

/* --- args: build a run, then attach it --- */
void builder_args_begin(struct builder *b);
void builder_arg(struct builder *b, str_id name, enum arg_type type,
    uint64_t bits);
void builder_arg_i64(struct builder *b, str_id name, int64_t v);
void builder_arg_u64(struct builder *b, str_id name, uint64_t v);
void builder_arg_f64(struct builder *b, str_id name, double v);
void builder_arg_str(struct builder *b, str_id name, str_id v);
/* Returns 0 if no arg was added since builder_args_begin. */
args_id builder_args_end(struct builder *b);

/* --- slices through the open stack --- */
/* Opens a slice at depth = current stack size. */
void builder_push(struct builder *b, uint32_t track, ttv_ns t, func_id f);
/* Attaches args to the innermost open slice (merging with earlier ones). */
void builder_push_args(struct builder *b, uint32_t track, args_id a);
/* Closes the innermost open slice. Returns false if the stack was empty. */
bool builder_pop(struct builder *b, uint32_t track, ttv_ns t, uint32_t flags);

enum pop_result {
	POP_MATCHED,	/* the innermost slice had this function */
	POP_UNWOUND,	/* found deeper: the ones above it were closed too */
	POP_NOT_FOUND,	/* not open at all: nothing closed */
};
/* Closes the innermost open slice of function f, closing (flag UNWOUND) any
 * opened after it. `flags` go on the slice of f. Only the 4096 innermost
 * frames are searched (damaged input must not cost quadratic time). */
enum pop_result builder_pop_func(struct builder *b, uint32_t track, ttv_ns t,
    func_id f, uint32_t flags);
/* An end whose begin was lost while nothing is open: the slice becomes the
 * parent of everything already on the track, from the track's first time
 * to t, flagged NO_ENTRY. Only valid when the stack is empty. After 64 of
 * them on one track, later ones only span the time since the track's last
 * event (with one warning). */
void builder_pop_orphan(struct builder *b, uint32_t track, ttv_ns t,
    func_id f, uint32_t flags);
/* Many begins and ends of one track at once, for readers that keep
 * calls apart and build them later: each does what builder_push,
 * builder_pop_func (an end not open while nothing is: builder_pop_orphan,
 * under the lock) or builder_pop does, in one loop. Like them it may run
 * concurrently with calls on other tracks. */
enum builder_call_kind {
	BUILDER_CALL_ENTRY,
	BUILDER_CALL_EXIT,	/* of func */
	BUILDER_CALL_EXIT_ANY,	/* of the innermost open slice */
};
struct builder_call {
	ttv_ns t;
	func_id func;
	uint32_t kind;		/* enum builder_call_kind */
};
void builder_calls(struct builder *b, uint32_t track,
    const struct builder_call *c, size_t n);
uint32_t builder_stack_depth(const struct builder *b, uint32_t track);
/* Function of the open slice at depth d (0 = outermost). */
func_id builder_stack_func(const struct builder *b, uint32_t track,
    uint32_t d);

/* --- whole things --- */
void builder_slice(struct builder *b, uint32_t track, uint32_t depth,
    ttv_ns start, ttv_ns dur, func_id f, uint32_t flags, args_id a);
/* The same with a sample weight (the track becomes a sampled one). */
void builder_slice_weighted(struct builder *b, uint32_t track, uint32_t depth,
    ttv_ns start, ttv_ns dur, func_id f, uint32_t flags, uint32_t weight);
void builder_instant(struct builder *b, uint32_t track, ttv_ns t, func_id f,
    args_id a);
void builder_counter(struct builder *b, uint32_t track, ttv_ns t, double v);
void builder_marker(struct builder *b, enum marker_kind kind, uint32_t track,
    ttv_ns t, int64_t value, str_id text);
void builder_flow(struct builder *b, uint64_t id, struct slice_ref from,
    struct slice_ref to);
void builder_log(struct builder *b, uint32_t track, ttv_ns t, str_id text);

/* --- a builder kept across runs (reader.h, grow_save/grow_load) --- */
/* How many of each b holds: a saved state's ids are checked against
 * them. */
uint32_t builder_nstrings(const struct builder *b);
uint32_t builder_nfuncs(const struct builder *b);
uint32_t builder_nprocesses(const struct builder *b);
uint32_t builder_ntracks(const struct builder *b);
/* The depths of track t's levels (the slices at each, for slice_refs a
 * state keeps). */
uint32_t builder_ndepth(const struct builder *b, uint32_t track);
uint32_t builder_depth_len(const struct builder *b, uint32_t track,
    uint32_t depth);
size_t builder_nargs(const struct builder *b);

/* Writes b's state to out (blob.h) for builder_load, except its large
 * arrays (the calls of each depth, instants, counter samples, args), of
 * which only the lengths: the model b finishes into holds them first.
 * Returns a mark for builder_save_holds. */
struct blob;
struct blob_in;
uint64_t builder_save(const struct builder *b, struct blob *out);
/* Whether the model b finishes into (nothing done to b but going on and
 * finishing) still begins with the arrays saved with mark: false when one
 * was given out of order since, to be sorted at the end. */
bool builder_save_holds(const struct builder *b, uint64_t mark);
/* The builder builder_save wrote, made again, its large arrays the first
 * items of model's (the trace the saved one finished into, as its index
 * maps it), with path; the arrays in store (as builder_set_store; and
 * builder_store_all when store_all) once large. NULL (in->bad set) when
 * the bytes or the model do not fit. */
struct builder *builder_load(struct blob_in *in, const struct trace *model,
    const char *path, struct index_store *store, bool store_all);

/* The slice most recently closed or added on a track, for flows. */
bool builder_last_slice(const struct builder *b, uint32_t track,
    struct slice_ref *out);
/* The innermost open slice on a track as a future slice_ref: valid once it
 * closes (its index is reserved). false if nothing is open. */
bool builder_open_slice(struct builder *b, uint32_t track,
    struct slice_ref *out);

#endif
