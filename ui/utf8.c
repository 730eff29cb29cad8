/*
 * UTF-8 decoding that never reads past the end and rejects overlong forms,
 * surrogates and values above U+10FFFF.
 */
#include "utf8.h"

size_t
utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	size_t n;

	if (len == 0) {
		*cp = UTF8_BAD;
		return 0;
	}
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		c = s[0] & 0x1f;
		n = 2;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		c = s[0] & 0x0f;
		n = 3;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		c = s[0] & 0x07;
		n = 4;
		min = 0x10000;
	} else {
		*cp = UTF8_BAD;
		return 1;
	}
	if (n > len) {
		*cp = UTF8_BAD;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = UTF8_BAD;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = UTF8_BAD;
		return 1;
	}
	*cp = c;
	return n;
}

size_t
utf8_encode(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		c = UTF8_BAD;
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}
