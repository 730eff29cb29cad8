/* The text form and the model's holding of strings (see escape.h). */
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

/* The escape of byte c into out; returns its length. */
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

/*
 * The text form of what starts at p[i] (of n bytes): either bytes of p
 * kept as they are (*src points into p) or an escape made in tmp. Returns
 * how many bytes of p it stands for; *len is the length of the text.
 */
static size_t
piece(const unsigned char *p, size_t i, size_t n, char tmp[4],
    const char **src, size_t *len)
{
	unsigned char c = p[i];
	if (c == 0xc0 && i + 1 < n && (p[i + 1] == 0x80 || p[i + 1] == 0xc0)) {
		/* a held NUL or C0 */
		*len = escape_byte(p[i + 1] == 0x80 ? 0 : 0xc0, tmp);
		*src = tmp;
		return 2;
	}
	size_t u = utf8_len(p + i, n - i);
	if (u > 1 || (u == 1 && c >= 0x20 && c != 0x7f && c != '\\')) {
		*src = (const char *)p + i;
		*len = u;
		return u;
	}
	*len = escape_byte(c, tmp);
	*src = tmp;
	return 1;
}

size_t
escape_text(const char *s, size_t len, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	if (size == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		char tmp[4];
		const char *src;
		size_t n, adv = piece(p, i, len, tmp, &src, &n);
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
		char tmp[4];
		const char *src;
		size_t n;
		i += piece(p, i, len, tmp, &src, &n);
		fwrite(src, 1, n, fp);
	}
}

void
escape_frame(const char *s, FILE *fp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		char tmp[4];
		const char *src;
		size_t n;
		if (p[i] == ';') {
			fputs("\\x3b", fp);
			i++;
			continue;
		}
		i += piece(p, i, len, tmp, &src, &n);
		fwrite(src, 1, n, fp);
	}
}

void
escape_json(const char *s, FILE *fp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		char tmp[4];
		const char *src;
		size_t n;
		i += piece(p, i, len, tmp, &src, &n);
		/* The text form holds no control: only the backslash and the
		 * quote need JSON's escapes. */
		for (size_t k = 0; k < n; k++) {
			if (src[k] == '\\' || src[k] == '"')
				putc('\\', fp);
			putc(src[k], fp);
		}
	}
}

bool
escape_is_formula(const char *s)
{
	return s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@';
}

void
escape_cell(const char *s, bool guard, FILE *fp)
{
	if (guard && escape_is_formula(s))
		putc('\'', fp);
	escape_fputs(s, fp);
}

bool
escape_hold_needed(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL || memchr(s, 0xc0, len) != NULL;
}

size_t
escape_hold(const char *s, size_t len, char *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0 || c == 0xc0) {
			out[n++] = (char)0xc0;
			out[n++] = c == 0 ? (char)0x80 : (char)0xc0;
		} else {
			out[n++] = (char)c;
		}
	}
	return n;
}
