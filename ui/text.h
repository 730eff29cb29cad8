/*
 * Putting text that came from a trace into cells. Trace text is never
 * trusted: it goes through escape_text() (control characters and escape
 * sequences become visible escapes), is decoded as UTF-8, measured with
 * wcwidth(), and shown as ASCII when the terminal is not UTF-8.
 */
#ifndef TTV_UI_TEXT_H
#define TTV_UI_TEXT_H

#include <string.h>

#include "grid.h"

/* Writes s[0..len) at (x, y) in at most maxw columns; returns the columns
 * used. */
int text_put(struct grid *g, int x, int y, int maxw, const char *s,
    size_t len, int style, int attr);
static inline int
text_puts(struct grid *g, int x, int y, int maxw, const char *s, int style,
    int attr)
{
	size_t n = 0;
	while (s[n] != '\0')
		n++;
	return text_put(g, x, y, maxw, s, n, style, attr);
}
/* The same, but a name too long for maxw loses its middle, not its end:
 * "Photos.Gallery.Core…ExifParser::ReadIfd" (a "~" without UTF-8). */
int text_put_mid(struct grid *g, int x, int y, int maxw, const char *s,
    size_t len, int style, int attr);
static inline int
text_puts_mid(struct grid *g, int x, int y, int maxw, const char *s,
    int style, int attr)
{
	return text_put_mid(g, x, y, maxw, s, strlen(s), style, attr);
}
/* The columns text_put would use without a limit (capped at cap). */
int text_width(const struct grid *g, const char *s, size_t len, int cap);

#endif
