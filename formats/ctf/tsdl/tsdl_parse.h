/*
 * The CTF 1.8 front end (tsdl_parse.c): TSDL text into the description of
 * ctf_meta.h, to be resolved (ctf_meta_resolve).
 */
#ifndef TTV_TSDL_PARSE_H
#define TTV_TSDL_PARSE_H

#include <stddef.h>

#include "types/ctf_meta.h"

/* Parses TSDL text into m. Returns 0, or -1 with "line L, column C: what"
 * in err. */
int tsdl_parse(struct ctf_meta *m, const char *text, size_t len,
    char *err, size_t errsize);

#endif
