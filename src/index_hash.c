/* The index's hash (see index_hash.h). */
#include "index_hash.h"

#include <string.h>

#define P1 UINT64_C(0x9e3779b185ebca87)
#define P2 UINT64_C(0xc2b2ae3d27d4eb4f)
#define P3 UINT64_C(0x165667b19e3779f9)

static inline uint64_t
rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
word(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
	return w;
}

static inline uint64_t
round1(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * P2, 31) * P1;
}

uint64_t
index_hash(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	size_t n = len;
	uint64_t h;

	if (n >= 32) {
		uint64_t a = seed + P1 + P2, b = seed + P2, c = seed,
		    d = seed - P1;
		do {
			a = round1(a, word(p));
			b = round1(b, word(p + 8));
			c = round1(c, word(p + 16));
			d = round1(d, word(p + 24));
			p += 32;
			n -= 32;
		} while (n >= 32);
		h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
		h = (h ^ round1(0, a)) * P1 + P3;
		h = (h ^ round1(0, b)) * P1 + P3;
		h = (h ^ round1(0, c)) * P1 + P3;
		h = (h ^ round1(0, d)) * P1 + P3;
	} else {
		h = seed + P3;
	}
	h += (uint64_t)len;
	for (; n >= 8; p += 8, n -= 8)
		h = rotl(h ^ round1(0, word(p)), 27) * P1 + P3;
	for (; n > 0; p++, n--)
		h = rotl(h ^ (*p * P3), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}
