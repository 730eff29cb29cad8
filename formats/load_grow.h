/*
 * A file read as it grows (--follow), for the readers that can go on
 * from where they stopped (reader.h, grow_*): the reader's state and
 * the builder are kept from one read to the next, each read reads only
 * the whole records appended since the last one, and the trace of a read
 * is made from a copy of the builder (builder_copy). The builder's large
 * arrays grow in a nameless file of the cache directory (index_store.h),
 * and a copy maps the pages written there: the cost of a read is what was
 * appended plus a page of each array, not a whole load, and the models
 * are on disk, not in the process's memory.
 *
 * A file that was not only appended to (shorter, another file under the
 * name, or its first or last read bytes changed) is read again from its
 * start, as a new load.
 *
 * A directory (a CTF trace's) is read as it grows by its reader, which
 * tells when it must be read again from its start (reader.h).
 */
#ifndef TTV_LOAD_GROW_H
#define TTV_LOAD_GROW_H

#include "model.h"
#include "reader.h"

struct load_grow;

/* Whether path's reader (by force_format, or by probing) can go on. */
const struct reader *load_grow_reader(const char *path,
    const char *force_format);
/* A growing load of path by reader r; o (kept, as its strings) as
 * load_trace's, o->follow taken as set. */
struct load_grow *load_grow_new(const char *path, const struct reader *r,
    const struct load_options *o);
/* The trace as the file is now, or NULL with *err (caller frees) when
 * nothing can be read yet (as load_trace). */
struct trace *load_grow_read(struct load_grow *g, char **err);
/* Before the first read: goes on from the state a trace's index keeps
 * (load_resume.h; state, len bytes, in from, the index's model), as the
 * read that kept it left it, so that the first read reads only what came
 * after. false, nothing done, when it does not fit (another reader's, or
 * the file is not what that read read). */
bool load_grow_resume(struct load_grow *g, const struct trace *from,
    const void *state, size_t len);
/* The quiet streams' beacons of the next reads (load_options.beacons;
 * kept, as the caller's until it gives others). */
void load_grow_beacons(struct load_grow *g, const struct stream_beacon *b,
    size_t n);
/* After each read, the reader's state saved and made again from the
 * bytes (reader.h, grow_save and grow_load), as a later run that finds
 * them in the trace's index does: for tests. A state that cannot be made
 * again fails the read ("the saved state ..."). */
void load_grow_reload(struct load_grow *g, bool on);
/* How many times the file was read from its start (tests, bench). */
uint64_t load_grow_restarts(const struct load_grow *g);
/* How many reads kept no state under load_grow_reload (the reader or
 * the builder could not save it): tests. */
uint64_t load_grow_unsaved(const struct load_grow *g);
void load_grow_free(struct load_grow *g);

#endif
