/*
 * Text from a trace never reaches a terminal raw: control characters,
 * escape sequences (C0, DEL, C1) and invalid UTF-8 are shown as visible
 * escapes (\n, \t, \e, \xNN).
 */
#ifndef TTV_ESCAPE_H
#define TTV_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Escapes s[0..len) into out (always NUL-terminated, cut to fit);
 * returns the length written. */
size_t escape_text(const char *s, size_t len, char *out, size_t size);
/* Writes the escaped string to a stream. */
void escape_fputs(const char *s, FILE *fp);
/* Writes s as the inside of a JSON string (quotes not included). */
void escape_json(const char *s, FILE *fp);
/* Writes s for a TSV cell: as escape_fputs, and tabs/newlines escaped. */
#define escape_tsv escape_fputs

#endif
