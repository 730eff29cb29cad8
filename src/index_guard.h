/*
 * Checking an index's large arrays on first touch (doc/index-format.md).
 *
 * A guarded depth's slices and weights are mapped with no access; a
 * second mapping of the same pages stays readable. The first read of a
 * block faults: the SIGSEGV handler checks the block from the readable
 * mapping (index_check_block), opens the block for reading and returns,
 * and the read is made again. A block that fails its check is replaced by
 * a copy whose values are made safe (functions in range, starts in
 * order), and index_damage_seen() says so from then on. Faults anywhere
 * else go to the handler that was there before (or the default action).
 *
 * So a reopen costs the blocks a query reads, not a pass over the file,
 * and no query ever reads a value that was not checked.
 */
#ifndef TTV_INDEX_GUARD_H
#define TTV_INDEX_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "index_int.h"

struct index_guard;

/* Whether first-touch checks can be used here (page size, and
 * TTV_INDEX_CHECK not asking for every block at open). */
bool index_guard_usable(void);
/* Whether a depth is worth guarding: two blocks or more, every extent on
 * a page (smaller ones are checked at open). */
bool index_guard_wants(const struct index_view *v, const struct idx_level *l);

struct index_guard *index_guard_new(const struct index_view *v, int fd);
/* Maps the depth l guarded: dl's slices and weights get their guarded
 * addresses. Returns 0, or -1 (errno set) when mapping failed. */
int index_guard_add(struct index_guard *g, struct map_backing *mb,
    const struct index_view *v, int fd, const struct idx_level *l,
    struct depth_level *dl);
/* Starts answering faults in the depths added. */
void index_guard_arm(struct index_guard *g, uint32_t nfuncs);
/* What g's depths met, a hold on it (index.h: index_damage_of); NULL
 * when g is. */
struct index_damage *index_guard_damage(const struct index_guard *g);
/* Stops answering them (before the mappings go). */
void index_guard_free(struct index_guard *g);

#endif
