/*
 * XRay instrumentation maps: function id -> function name, read from the
 * `xray_instr_map` section and the symbol tables of an instrumented ELF
 * binary with libelf, the way `llvm-xray -instr_map` does.
 */
#ifndef TTV_XRAY_INSTRMAP_H
#define TTV_XRAY_INSTRMAP_H

#include <stddef.h>
#include <stdint.h>

struct xray_instrmap;

/* Reads the map of an ELF binary. On failure returns NULL and sets *err to
 * a message (caller frees). Oddities that do not stop it (unknown sled
 * kinds, missing symbols) are kept as warnings. */
struct xray_instrmap *xray_instrmap_load(const char *path, char **err);
void xray_instrmap_free(struct xray_instrmap *m);

/* The (demangled) name of function id, or NULL when the id is not in the
 * map. An id whose address has no symbol gets "@(hexaddr)". */
const char *xray_instrmap_name(const struct xray_instrmap *m, int32_t id);
/* The function address of an id, or 0. */
uint64_t xray_instrmap_addr(const struct xray_instrmap *m, int32_t id);
/* Number of function ids (ids are 1..n). */
size_t xray_instrmap_nfuncs(const struct xray_instrmap *m);
size_t xray_instrmap_nwarnings(const struct xray_instrmap *m);
const char *xray_instrmap_warning(const struct xray_instrmap *m, size_t i);

/* The binary a log was written by, found without being asked: for a log
 * named `xray-log.PROG.XXXXXX`, PROG beside the log or in the current
 * directory, if it is an ELF file with an xray_instr_map section.
 * Returns a new string or NULL. */
char *xray_instrmap_discover(const char *log_path);

#endif
