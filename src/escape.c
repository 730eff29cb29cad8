/* Escaping of trace text for terminals and JSON (see escape.h). */
#include <stdint.h>
#include <string.h>

#include "escape.h"

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	else if ((c & 0xe0) == 0xc0)
		len = 2, cp = c & 0x1f;
	else if ((c & 0xf0) == 0xe0)
		len = 3, cp = c & 0x0f;
	else if ((c & 0xf8) == 0xf0)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)	/* C1 controls (CSI is U+009B) */
		return 0;
	return len;
}

/* Appends the escape for byte c; returns bytes needed. */
static size_t
escape_byte(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";
	switch (c) {
	case '\n': memcpy(out, "\\n", 2); return 2;
	case '\t': memcpy(out, "\\t", 2); return 2;
	case '\r': memcpy(out, "\\r", 2); return 2;
	case 0x1b: memcpy(out, "\\e", 2); return 2;
	case '\\': memcpy(out, "\\\\", 2); return 2;
	default:
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 15];
		return 4;
	}
}

static int
needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

size_t
escape_text(const char *s, size_t len, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0;
	if (size == 0)
		return 0;
	while (i < len) {
		char tmp[4];
		size_t n, adv;
		const char *src;
		size_t u = utf8_len(p + i, len - i);
		if (u == 1 && !needs_escape(p[i])) {
			src = (const char *)p + i, n = 1, adv = 1;
		} else if (u > 1) {
			src = (const char *)p + i, n = u, adv = u;
		} else {
			n = escape_byte(p[i], tmp), src = tmp, adv = 1;
		}
		if (o + n >= size)
			break;
		memcpy(out + o, src, n);
		o += n;
		i += adv;
	}
	out[o] = '\0';
	return o;
}

void
escape_fputs(const char *s, FILE *fp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		size_t u = utf8_len(p + i, len - i);
		if (u == 1 && !needs_escape(p[i])) {
			putc(p[i], fp);
			i++;
		} else if (u > 1) {
			fwrite(p + i, 1, u, fp);
			i += u;
		} else {
			char tmp[4];
			fwrite(tmp, 1, escape_byte(p[i], tmp), fp);
			i++;
		}
	}
}

void
escape_json(const char *s, FILE *fp)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		size_t u = utf8_len(p + i, len - i);
		if (c == '"' || c == '\\') {
			putc('\\', fp);
			putc(c, fp);
			i++;
		} else if (u == 1 && c >= 0x20 && c != 0x7f) {
			putc(c, fp);
			i++;
		} else if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 &&
		    p[i + 1] < 0xa0) {
			/* C1 controls (U+0080..U+009F): escaped, never raw. */
			fprintf(fp, "\\u00%c%c", hex[p[i + 1] >> 4],
			    hex[p[i + 1] & 15]);
			i += 2;
		} else if (u > 1) {
			fwrite(p + i, 1, u, fp);
			i += u;
		} else if (c < 0x80) {
			/* Controls as \u00XX. */
			fprintf(fp, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			i++;
		} else {
			/* A byte of invalid UTF-8 as the text \xNN, as the
			 * screen shows it: the name stays tellable from any
			 * other (U+FFFD would merge them). */
			fprintf(fp, "\\\\x%c%c", hex[c >> 4], hex[c & 15]);
			i++;
		}
	}
}
