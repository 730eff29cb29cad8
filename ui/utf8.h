/*
 * Minimal UTF-8 decoding and encoding for putting text into cells.
 */
#ifndef TTV_UI_UTF8_H
#define TTV_UI_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_BAD 0xFFFDu

/* Decodes one code point from s[0..len); returns the bytes used (>= 1 when
 * len > 0). Malformed input gives UTF8_BAD and consumes one byte. */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Encodes cp into out (4 bytes room); returns the bytes written. */
size_t utf8_encode(uint32_t cp, char *out);

#endif
