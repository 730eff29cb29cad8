/*
 * Source lines of a trace's functions: the file and line where the code
 * at an address of a binary was written, from the binary's debug info
 * (DWARF, through elfutils' libdw, which also finds separate debug files
 * by build id or debuglink). The addresses are the binary's own, as the
 * readers keep them (model.h, struct func_addr). It knows ELF and DWARF
 * and no terminal: the viewer asks it through a function pointer the
 * program gives (ui/source.h).
 *
 * A binary named by a trace is input like the trace: only a regular file
 * is opened, without waiting (never a FIFO), and debug info that libdw
 * cannot read is "no debug info", never a crash.
 */
#ifndef TTV_SRCLINE_H
#define TTV_SRCLINE_H

#include <stdint.h>

/* The binaries opened so far, each once. */
struct srcline;

struct srcline *srcline_new(void);
void srcline_free(struct srcline *s);

/* Where the function holding addr in binary was written: 0 with *file
 * (caller frees) and *line, or -1 with *why (caller frees): the binary
 * could not be read, has no debug info (built without -g?), or none for
 * that address. */
int srcline_find(struct srcline *s, const char *binary, uint64_t addr,
    char **file, int *line, char **why);
/* The same with s as a void * (the viewer's function pointer). */
int srcline_find_fn(void *s, const char *binary, uint64_t addr, char **file,
    int *line, char **why);

#endif
