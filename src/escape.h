/*
 * How text from a trace is held and written: one rule for every reader and
 * every output, so that two distinct names never print alike and text
 * never reaches a terminal raw.
 *
 * Held (the model): a string keeps the bytes the trace gave, as a C
 * string. The two bytes a C string cannot tell apart from others are
 * coded with 0xC0, which never occurs in UTF-8: a NUL is held as C0 80
 * (as in Java's modified UTF-8) and a byte C0 as C0 C0. Valid UTF-8 is
 * never changed.
 *
 * Written (the text form, in every output and on screen): valid UTF-8 as
 * it is, except a backslash, written \\; the bytes that are not text are
 * escapes: \n \t \r \e for those controls, \xNN for any other control (C0,
 * DEL), for each byte of a C1 control (U+0080..U+009F), of invalid UTF-8,
 * and for a held NUL (\x00) or C0 (\xc0). Since the backslash is escaped
 * too, the text form tells every string from every other.
 *
 * Formats add their own layer on the text form: JSON quotes it (its
 * value is the text form, backslashes and all), folded stacks and call
 * paths write ';', their frame separator, as \x3b, and a TSV or CSV cell
 * may start with a ' against spreadsheet formulas (escape_cell).
 */
#ifndef TTV_ESCAPE_H
#define TTV_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The text form of s[0..len) into out (always NUL-terminated, cut to fit
 * at a whole escape); returns the length written. size 4 * len + 1 is
 * always enough. */
size_t escape_text(const char *s, size_t len, char *out, size_t size);
/* Writes the text form of s to a stream. */
void escape_fputs(const char *s, FILE *fp);
/* Writes the inside of a JSON string whose value is the text form of s
 * (quotes not included). */
void escape_json(const char *s, FILE *fp);
/* The text form with ';' written as \x3b: a frame of a folded stack or of
 * a call path, which ';' separates. */
void escape_frame(const char *s, FILE *fp);

/* A TSV cell: the text form (it has no tab nor newline). With guard, a
 * cell a spreadsheet would take for a formula (escape_is_formula) starts
 * with a '. */
void escape_cell(const char *s, bool guard, FILE *fp);
#define escape_tsv(s, fp) escape_cell((s), false, (fp))
/* Text (in the text form) starting with =, +, - or @: a spreadsheet
 * opening the file would evaluate it. */
bool escape_is_formula(const char *s);

/* How the model holds s[0..len) (see above): the bytes to store into out,
 * which has room for 2 * len bytes; returns their count. */
size_t escape_hold(const char *s, size_t len, char *out);
/* Whether escape_hold would change s[0..len). */
bool escape_hold_needed(const char *s, size_t len);

#endif
