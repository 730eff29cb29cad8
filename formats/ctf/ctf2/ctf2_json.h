/*
 * The CTF 2 front end (ctf2_json.c): a JSON text sequence of fragments
 * (CTF2-SPEC-2.0) into the description of ctf_meta.h, to be resolved
 * (ctf_meta_resolve).
 */
#ifndef TTV_CTF2_JSON_H
#define TTV_CTF2_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/ctf_meta.h"

/* Is this metadata text CTF 2 (a JSON text sequence: its first byte
 * past white space is the record separator 0x1E)? */
bool ctf2_is_json(const char *text, size_t len);
/* Parses CTF 2 metadata (CTF2-SPEC-2.0) into m (major 2, minor 0, roles
 * declared by the field classes). Returns 0, or -1 with what is wrong in
 * err and its byte offset in the text in *erroff. */
int ctf2_parse(struct ctf_meta *m, const char *text, size_t len,
    char *err, size_t errsize, uint64_t *erroff);

#endif
