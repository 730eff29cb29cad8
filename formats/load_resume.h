/*
 * A trace read for its index with the state kept to read on from, and
 * read on from that state once it was appended to (doc/index-format.md,
 * "Ready to grow"): the readers that go on from where they stopped
 * (reader.h, grow_* and grow_save/grow_load) read it, the builder and the
 * reader's state are saved as they are after the last whole record, and
 * the next open of the trace, longer, loads them and reads only what was
 * appended, instead of the whole trace again.
 *
 * The models are the ones load_trace gives (not --follow's): a file whose
 * end is not a whole record is read whole, as always, and keeps no state.
 */
#ifndef TTV_LOAD_RESUME_H
#define TTV_LOAD_RESUME_H

#include "blob.h"
#include "model.h"
#include "reader.h"

struct index_store;

/* The reader of path (force_format, or by probing) when it keeps its
 * state across runs; NULL when the trace is read whole each time. */
const struct reader *load_resume_reader(const char *path,
    const char *force_format);

/* Reads path with r as load_trace_store does (the same model), its large
 * arrays in store (may be NULL), and puts in *save (empty at the call)
 * the state to read on from, or nothing when there is none to keep.
 * Returns the trace (which owns store), or NULL: with *err set when
 * nothing could be read (store freed), or with *err NULL when this trace
 * is for load_trace_store to read (its end is no whole record; store
 * untouched, the caller's). */
struct trace *load_resume_first(const char *path, const struct reader *r,
    const struct load_options *o, struct index_store *store,
    struct blob *save, char **err);

/* Reads path on from `from`, the model an earlier read gave (its index
 * mapped by index_map_grown) and `state` (its size `len`), the state
 * that read kept: only what was appended since is read. The same as
 * load_resume_first otherwise; NULL with *err NULL when the state does
 * not fit the trace (damaged, of another reader, or the appended bytes
 * change what was read before): the trace is then read whole. */
struct trace *load_resume_on(const char *path, const struct reader *r,
    const struct load_options *o, const struct trace *from,
    const void *state, size_t len, struct index_store *store,
    struct blob *save, char **err);

/* The builder a kept state (state, len bytes) makes again over from, the
 * model it finished into, with path and store as load_resume_on's (and
 * builder_store_all when store_all: --follow's); NULL when the state does
 * not fit, or is of another reader than `reader` (NULL: any). *rstate
 * and *rlen are then the reader's part (in state), *covered the bytes of
 * the file that were read. */
struct builder *load_resume_builder(const void *state, size_t len,
    const char *reader, const struct trace *from, const char *path,
    struct index_store *store, bool store_all, const void **rstate,
    size_t *rlen, size_t *covered);

#endif
