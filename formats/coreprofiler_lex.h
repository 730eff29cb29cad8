/*
 * Field lexing for CoreProfiler TraceLog lines: a cursor over one line of
 * the mapping, fields separated by exactly one space, and the number
 * spellings the profiler writes (decimal, "0x" hex, IPs with or without
 * "0x"). Every function is strict: a token with anything left over, an
 * empty part or an overflow is rejected, because a damaged copy of a
 * record must never be mistaken for a good one.
 */
#ifndef TTV_COREPROFILER_LEX_H
#define TTV_COREPROFILER_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_cur {
	const char *p;	/* at the space before the next field, or at e */
	const char *e;
};

struct cp_tok {
	const char *s;
	size_t n;
};

/* The next field: exactly one space, then a non-empty run of non-spaces. */
static inline bool
cp_field(struct cp_cur *c, struct cp_tok *t)
{
	if (c->p >= c->e || *c->p != ' ')
		return false;
	const char *q = c->p + 1, *r = q;
	while (r < c->e && *r != ' ')
		r++;
	if (r == q)
		return false;
	t->s = q;
	t->n = (size_t)(r - q);
	c->p = r;
	return true;
}

static inline bool
cp_end(const struct cp_cur *c)
{
	return c->p >= c->e;
}

/* Unsigned decimal, no sign, no overflow. */
static inline bool
cp_dec(const char *s, size_t n, uint64_t *out)
{
	if (n == 0 || n > 20)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return false;
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static inline int
cp_xdigit(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* Hex digits only (at least one, at most 16 significant). */
static inline bool
cp_hexdigits(const char *s, size_t n, uint64_t *out)
{
	if (n == 0)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = cp_xdigit((unsigned char)s[i]);
		if (d < 0 || (v >> 60) != 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* "0x" followed by hex digits. */
static inline bool
cp_hex(const char *s, size_t n, uint64_t *out)
{
	if (n < 3 || s[0] != '0' || (s[1] | 0x20) != 'x')
		return false;
	return cp_hexdigits(s + 2, n - 2, out);
}

/* An instruction pointer: hex with or without "0x" (older writers). */
static inline bool
cp_ip(const char *s, size_t n, uint64_t *out)
{
	if (n >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		return cp_hex(s, n, out);
	return cp_hexdigits(s, n, out);
}

/* A tick count: "%d" of a DWORD, so a negative value is a wrapped one. */
static inline bool
cp_ticks(const char *s, size_t n, int64_t *out)
{
	uint64_t v;
	if (n > 1 && s[0] == '-') {
		if (!cp_dec(s + 1, n - 1, &v) || v == 0 || v > 0x80000000u)
			return false;
		*out = (int64_t)(0x100000000ull - v);
		return true;
	}
	/* 2^53 ms is far beyond any session and keeps ns in range. */
	if (!cp_dec(s, n, &v) || v > (1ull << 53) / 1000)
		return false;
	*out = (int64_t)v;
	return true;
}

/* Splits a token at ':' into at most max parts; returns the count, or
 * max + 1 when there are more. Empty parts are kept (and rejected by the
 * number parsers). */
static inline size_t
cp_split(const char *s, size_t n, struct cp_tok *parts, size_t max)
{
	size_t k = 0;
	const char *p = s, *e = s + n;
	for (;;) {
		const char *q = p;
		while (q < e && *q != ':')
			q++;
		if (k == max)
			return max + 1;
		parts[k].s = p;
		parts[k].n = (size_t)(q - p);
		k++;
		if (q == e)
			return k;
		p = q + 1;
	}
}

#endif
