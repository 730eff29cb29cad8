/*
 * Decoding CTF binary data from a resolved layout (ctf_meta.h): the bit
 * reader, the value tree of one event, the lengths and tags kept while
 * decoding (slots), and the fast reads of LTTng's compact event header
 * and of whole-byte integers. Packets and streams are ctf_packets.h.
 */
#ifndef TTV_CTF_DECODE_H
#define TTV_CTF_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_ids.h"
#include "types/ctf_meta.h"

/* One decoded value. A tree in pre-order: a compound value is followed by
 * its children, up to index `end`. Strings and text arrays point into the
 * mapped file (len bytes, no NUL needed). */
struct ctf_val {
	const struct ctf_field *field;	/* NULL for array elements */
	const struct ctf_type *type;
	uint32_t end;
	uint32_t index;		/* position in its array */
	union {
		uint64_t u;
		int64_t i;
		double f;
	} v;
	const char *str;
	size_t len;
	bool is_text;		/* a string (or text array) value */
};

typedef VEC(struct ctf_val) ctf_vals;

/* Lengths and tags (ctf_dec.slots) of the streams one thread decodes in
 * turn: the thread's array of slots, lent to a stream for a batch of its
 * events. A slot is the stream's when its mark is the batch's (gen to
 * read, gen + 1 written), else its value is in the stream's own map (or
 * 0: never written); what is written is listed, for the stream to keep
 * when the batch is done (ctf_slots_return). A stream then holds the
 * slots it wrote, however many its metadata has. */
struct ctf_slot_share {
	uint64_t *v;		/* by slot */
	uint32_t *mark;		/* by slot */
	uint32_t gen;		/* even, from 2 */
	size_t nslots;
	VEC(uint32_t) written;
	struct ctf_ids *own;	/* the stream's */
};

struct ctf_dec {
	const uint8_t *buf;	/* packet start: alignment is relative to it */
	uint64_t pos, end;	/* bits */
	uint64_t base_off;	/* file offset of buf, for messages */
	uint64_t *slots;	/* lengths and tags, when share is NULL */
	struct ctf_slot_share *share;	/* else there */
	ctf_vals *out;		/* NULL: decode without keeping values */
	const struct ctf_meta *m;
	uint64_t clock;		/* the stream clock, in cycles */
	bool clock_set;
	uint64_t event_id;
	bool has_event_id;
	uint64_t roles[ROLE_TIMESTAMP + 1];
	uint32_t roles_set;
	const uint8_t *uuid;
	const char *err;
	uint64_t err_pos;	/* bits from buf */
};

/* A message about a file: an error (damage) or a warning, at a file
 * offset (-1: none); what the walks of packets, the index and the merge
 * have to say goes through one of these. */
typedef void (*ctf_diag_fn)(void *arg, bool error, const char *file,
    int64_t offset, const char *msg);

/* A slot's value from the stream's own map (ctf_decode.c). */
uint64_t ctf_slot_miss(struct ctf_slot_share *sh, int slot);

static inline uint64_t
ctf_slot_get(const struct ctf_dec *d, int slot)
{
	struct ctf_slot_share *sh = d->share;
	if (sh == NULL)
		return d->slots[slot];
	if (sh->mark[slot] - sh->gen < 2)
		return sh->v[slot];
	return ctf_slot_miss(sh, slot);
}

static inline void
ctf_slot_set(struct ctf_dec *d, int slot, uint64_t v)
{
	struct ctf_slot_share *sh = d->share;
	if (sh == NULL) {
		d->slots[slot] = v;
		return;
	}
	sh->v[slot] = v;
	if (sh->mark[slot] != sh->gen + 1) {
		sh->mark[slot] = sh->gen + 1;
		VEC_PUSH(&sh->written, (uint32_t)slot);
	}
}

/* A thread's slots for traces of at most nslots each. */
void ctf_slots_init(struct ctf_slot_share *sh, size_t nslots);
/* Room for traces of nslots each, while no stream holds it (metadata
 * that grew, read on). */
void ctf_slots_grow(struct ctf_slot_share *sh, size_t nslots);
void ctf_slots_free(struct ctf_slot_share *sh);
/* Lends the slots to the stream whose own map is own, for decoder d. */
void ctf_slots_lend(struct ctf_slot_share *sh, struct ctf_dec *d,
    struct ctf_ids *own);
/* Takes them back: the stream keeps what it wrote in its own map. */
void ctf_slots_return(struct ctf_slot_share *sh, struct ctf_dec *d);

/* Applies the clock-update rule (CTF 1.8 section 8): an N-bit value
 * replaces the low N bits of the clock and counts one wrap if it went
 * backwards. */
static inline void
ctf_update_clock(struct ctf_dec *d, uint64_t v, uint32_t size)
{
	if (size >= 64 || !d->clock_set) {
		d->clock = v;
		d->clock_set = true;
		return;
	}
	uint64_t mask = ((uint64_t)1 << size) - 1;
	uint64_t prev = d->clock;
	uint64_t nv = (prev & ~mask) | v;
	if (v < (prev & mask))
		nv += mask + 1;
	d->clock = nv;
}

/* The id and timestamp of an LTTng event header in its compact form, read
 * in one go at p (the plan's fast forms: ctf_meta.h). */
static inline void
ctf_header_compact_as(bool packed, bool be, unsigned a, const uint8_t *p,
    uint64_t *id, uint64_t *v)
{
	uint32_t x;
	memcpy(&x, p, 4);
	if (packed) {
		if (be) {
			x = __builtin_bswap32(x);
			*id = x >> (32 - a);
			*v = x & (((uint32_t)1 << (32 - a)) - 1);
		} else {
			*id = x & (((uint32_t)1 << a) - 1);
			*v = x >> a;
		}
	} else {
		uint16_t y;
		memcpy(&y, p, 2);
		memcpy(&x, p + 2, 4);
		*id = be ? __builtin_bswap16(y) : y;
		*v = be ? __builtin_bswap32(x) : x;
	}
}

/* The same, as the plan says (a: the packed id's bits). */
static inline void
ctf_header_compact(const struct ctf_header_plan *hp, const uint8_t *p,
    uint64_t *id, uint64_t *v)
{
	bool packed = hp->fast == HP_PACKED32;
	ctf_header_compact_as(packed, hp->fast_be,
	    packed ? (unsigned)hp->id->size : 16, p, id, v);
}

/* Decodes one value of type t (named by f, may be NULL). -1 on error with
 * d->err and d->err_pos set. */
int ctf_decode(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index);

/* The text of an integer wider than 64 bits from its bytes (ctf_val.str)
 * in its base: "0x..." hexadecimal, "0..." octal, "0b..." binary (the
 * bits as they are), else decimal with a sign when signed. Writes at
 * most size bytes with the NUL (CTF_BIGINT_TEXT is always enough);
 * returns the length. */
#define CTF_BIGINT_TEXT (CTF_INT_MAX_BITS + 4)
size_t ctf_bigint_text(const struct ctf_type *t, const uint8_t *bytes,
    char *out, size_t size);

/* The same for an event header of a known shape (faster). */
int ctf_decode_header(struct ctf_dec *d, const struct ctf_header_plan *hp);

/* A whole-byte integer of 8, 16, 32 or 64 bits at p (any alignment), in
 * either byte order, sign-extended when signed. */
static inline uint64_t
ctf_read_whole(const uint8_t *p, unsigned size, bool be, bool is_signed)
{
	uint64_t v;
	switch (size) {
	case 8:
		v = p[0];
		break;
	case 16: {
		uint16_t x;
		memcpy(&x, p, 2);
		v = be ? __builtin_bswap16(x) : x;
		break;
	}
	case 32: {
		uint32_t x;
		memcpy(&x, p, 4);
		v = be ? __builtin_bswap32(x) : x;
		break;
	}
	default:
		memcpy(&v, p, 8);
		if (be)
			v = __builtin_bswap64(v);
		break;
	}
	if (is_signed && size < 64 && (v >> (size - 1)) & 1)
		v |= ~(uint64_t)0 << size;
	return v;
}

/* Can a scope of this type be read raw (ctf_stream.raw)? Fixed structs
 * and empty ones (only aligned); NULL is an absent scope. */
static inline bool
ctf_type_raw(const struct ctf_type *t)
{
	return t == NULL || t->fixed ||
	    (t->kind == CTF_STRUCT && t->nfields == 0);
}

#endif
