/*
 * The source lines of the trace's functions as the viewer shows them (the
 * details pane, the backtrace, O opening an editor there): asked once per
 * function of the finder the program gives, which reads the binaries'
 * debug info (formats/srcline.h: the viewer knows no ELF nor DWARF), and
 * kept for the session.
 */
#ifndef TTV_UI_SOURCE_H
#define TTV_UI_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* Where the code at addr of binary was written: 0 with *file (caller
 * frees) and *line, or -1 with *why (caller frees). */
typedef int (*source_find_fn)(void *arg, const char *binary, uint64_t addr,
    char **file, int *line, char **why);

struct source_cache;

/* For trace t (borrowed); find may be NULL: no source is ever known. */
struct source_cache *source_cache_new(const struct trace *t,
    source_find_fn find, void *arg);
void source_cache_free(struct source_cache *c);

/* Where function f was written: 0 with *file (owned by the cache) and
 * *line, or -1 with *why (owned by the cache): the trace has no address
 * for f (formats other than XRay and CTF cyg-profile, a binary not
 * found), or its binary no debug info. */
int source_of(struct source_cache *c, func_id f, const char **file,
    int *line, const char **why);

/* Opens the file at the line in the user's editor ($VISUAL, else
 * $EDITOR, else vi; as `EDITOR +LINE FILE`), the viewer suspended while
 * it runs. 0, or -1 with *why (caller frees). */
int source_edit(const char *file, int line, char **why);

#endif
