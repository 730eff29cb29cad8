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

/* Hex digit values, 0xff for anything else (coreprofiler_idmap.c). */
extern const unsigned char cp_hexval[256];

static inline int
cp_xdigit(unsigned char ch)
{
	return cp_hexval[ch] == 0xff ? -1 : cp_hexval[ch];
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

/* Fused forms for the hot records: parse straight from the cursor, one
 * pass, the field ending at a space, at `stop` (0 for none) or at the end
 * of the line. On success the cursor is left at that delimiter. */

/* Hex digits from p to a space, `stop` or the end; at least one. */
static inline bool
cp_hexdigits_at(struct cp_cur *c, const char *p, char stop, uint64_t *out)
{
	const char *e = c->e, *d = p;
	uint64_t v = 0;
	for (; p < e; p++) {
		unsigned x = cp_hexval[(unsigned char)*p];
		if (x == 0xff)
			break;
		if ((v >> 60) != 0)
			return false;
		v = v << 4 | x;
	}
	if (p == d || (p < e && *p != ' ' && *p != stop))
		return false;
	*out = v;
	c->p = p;
	return true;
}

static inline bool
cp_has_0x(const struct cp_cur *c)
{
	return c->e - c->p >= 2 && c->p[0] == '0' && (c->p[1] | 0x20) == 'x';
}

static inline bool
cp_hex_at(struct cp_cur *c, char stop, uint64_t *out)
{
	return cp_has_0x(c) && cp_hexdigits_at(c, c->p + 2, stop, out);
}

/* An IP: hex with or without "0x". */
static inline bool
cp_ip_at(struct cp_cur *c, char stop, uint64_t *out)
{
	return cp_hexdigits_at(c, cp_has_0x(c) ? c->p + 2 : c->p, stop, out);
}

static inline bool
cp_dec_at(struct cp_cur *c, char stop, uint64_t *out)
{
	const char *p = c->p, *e = c->e, *d = p;
	uint64_t v = 0;
	for (; p < e; p++) {
		unsigned x = (unsigned char)*p - '0';
		if (x > 9)
			break;
		if (v > (UINT64_MAX - x) / 10)
			return false;
		v = v * 10 + x;
	}
	if (p == d || (p < e && *p != ' ' && *p != stop))
		return false;
	*out = v;
	c->p = p;
	return true;
}

/* Skips the one space before a field. */
static inline bool
cp_sp(struct cp_cur *c)
{
	if (c->p >= c->e || *c->p != ' ')
		return false;
	c->p++;
	return true;
}

static inline bool
cp_hex_field(struct cp_cur *c, uint64_t *v)
{
	return cp_sp(c) && cp_hex_at(c, 0, v);
}

static inline bool
cp_dec_field(struct cp_cur *c, uint64_t *v)
{
	return cp_sp(c) && cp_dec_at(c, 0, v);
}

/* Ticks: unsigned decimal, or a wrapped negative DWORD (rare: slow path). */
static inline bool
cp_ticks_field(struct cp_cur *c, int64_t *v)
{
	if (!cp_sp(c))
		return false;
	if (c->p < c->e && *c->p == '-') {
		struct cp_cur c2 = *c;
		const char *s = c->p;
		c2.p++;
		uint64_t u;
		if (!cp_dec_at(&c2, 0, &u))
			return false;
		if (!cp_ticks(s, (size_t)(c2.p - s), v))
			return false;
		c->p = c2.p;
		return true;
	}
	uint64_t u;
	if (!cp_dec_at(c, 0, &u) || u > (1ull << 53) / 1000)
		return false;
	*v = (int64_t)u;
	return true;
}

#endif
