/*
 * The CTF field decoder: integers of any size at any bit, in either byte
 * order, floats, enums, strings, structs, variants, arrays and sequences,
 * driven only by a resolved layout (ctf_meta.h). Alignment is relative to
 * the packet start (d->buf). Values go into a flat pre-order tree
 * (struct ctf_val) that the model builder walks; lengths and tags into
 * slots, which a decoding thread lends to the stream it decodes
 * (ctf_slots_lend).
 *
 * Byte-aligned 8/16/32/64-bit integers take a fast path; everything else
 * goes through a 128-bit accumulator of at most 9 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf_decode.h"

static int
fail(struct ctf_dec *d, uint64_t pos, const char *why)
{
	d->err = why;
	d->err_pos = pos;
	return -1;
}

static inline uint64_t
align_up(uint64_t pos, uint32_t a)
{
	/* alignments are powers of two, at least 1 */
	return (pos + a - 1) & ~(uint64_t)(a - 1);
}

static inline __attribute__((always_inline)) int
read_bits(struct ctf_dec *d, const struct ctf_type *t, uint64_t *out)
{
	uint64_t pos = align_up(d->pos, t->align);
	uint32_t size = t->size;
	if (pos > d->end || size > d->end - pos)
		return fail(d, pos, "field past the end of the packet content");
	const uint8_t *p = d->buf + (pos >> 3);
	unsigned sh = (unsigned)(pos & 7);
	uint64_t v;
	bool be = t->byte_order == CTF_BO_BE;
	if (sh == 0 && (size & 7) == 0 && ((size - 1) & size) == 0) {
		v = ctf_read_whole(p, size, be, false);
	} else {
		unsigned nbytes = (sh + size + 7) / 8;
		unsigned __int128 acc = 0;
		if (be) {
			for (unsigned i = 0; i < nbytes; i++)
				acc = (acc << 8) | p[i];
			acc >>= nbytes * 8 - sh - size;
		} else {
			for (unsigned i = nbytes; i-- > 0;)
				acc = (acc << 8) | p[i];
			acc >>= sh;
		}
		v = (uint64_t)acc;
		if (size < 64)
			v &= ((uint64_t)1 << size) - 1;
	}
	if (t->is_signed && size < 64 && (v >> (size - 1)) & 1)
		v |= ~(uint64_t)0 << size;
	d->pos = pos + size;
	*out = v;
	return 0;
}

static inline struct ctf_val *
push(struct ctf_dec *d, const struct ctf_type *t, const struct ctf_field *f,
    uint32_t index)
{
	if (d->out == NULL)
		return NULL;
	VEC_RESERVE(d->out, 1);
	struct ctf_val *v = &d->out->items[d->out->len++];
	v->field = f;
	v->type = t;
	v->index = index;
	v->end = (uint32_t)d->out->len;
	v->str = NULL;
	v->len = 0;
	v->is_text = false;
	v->v.u = 0;
	return v;
}

/* What an integer's value does besides being one: a length or tag kept,
 * a role noted, the clock moved. */
static inline __attribute__((always_inline)) void
keep_int(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index, uint64_t v)
{
	if (f != NULL) {
		if (f->slot >= 0)
			ctf_slot_set(d, f->slot, v);
		if (f->role != ROLE_NONE) {
			d->roles[f->role] = v;
			d->roles_set |= 1u << f->role;
			if (f->role == ROLE_EVENT_ID) {
				d->event_id = v;
				d->has_event_id = true;
			}
		}
		if (t->clock >= 0 && f->role != ROLE_TS_END)
			ctf_update_clock(d, v, t->size);
	}
	struct ctf_val *o = push(d, t, f, index);
	if (o != NULL)
		o->v.u = v;
}

static inline __attribute__((always_inline)) int
decode_int(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	uint64_t v;
	if (read_bits(d, t, &v) < 0)
		return -1;
	keep_int(d, t, f, index, v);
	return 0;
}

/* A CTF 2 variable-length integer: LEB128 bytes, 7 bits each, the last
 * one's high bit clear; signed ones extended from its bit 6. */
static int
decode_varlen(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	uint64_t pos = align_up(d->pos, 8), v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (pos > d->end || d->end - pos < 8)
			return fail(d, pos, "variable-length integer past the "
			    "end of the packet content");
		b = d->buf[pos >> 3];
		pos += 8;
		uint64_t bits = b & 0x7f;
		if (shift >= 64 || (shift > 57 && bits >> (64 - shift) != 0 &&
		    !(t->is_signed && bits >> (64 - shift) ==
		    (0x7fu >> (64 - shift)))))
			return fail(d, d->pos, "variable-length integer wider "
			    "than 64 bits (not supported)");
		v |= bits << shift;
		shift += 7;
	} while (b & 0x80);
	if (t->is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	d->pos = pos;
	keep_int(d, t, f, index, v);
	return 0;
}

/* An integer wider than 64 bits: its bytes, as they are in the packet
 * (the metadata made it byte-aligned and whole bytes); v.u holds its
 * low 64 bits. */
static int
decode_bigint(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	uint64_t pos = align_up(d->pos, t->align);
	if ((pos & 7) != 0 || pos > d->end || t->size > d->end - pos)
		return fail(d, pos, "field past the end of the packet content");
	const uint8_t *p = d->buf + (pos >> 3);
	size_t n = t->size / 8;
	d->pos = pos + t->size;
	struct ctf_val *o = push(d, t, f, index);
	if (o != NULL) {
		o->str = (const char *)p;
		o->len = n;
		bool be = t->byte_order == CTF_BO_BE;
		o->v.u = ctf_read_whole(be ? p + n - 8 : p, 64, be, false);
	}
	return 0;
}

size_t
ctf_bigint_text(const struct ctf_type *t, const uint8_t *bytes, char *out,
    size_t size)
{
	size_t n = t->size / 8;
	if (size == 0)
		return 0;
	if (n == 0 || n > CTF_INT_MAX_BITS / 8 || size < 4) {
		out[0] = '\0';
		return 0;
	}
	/* little-endian work copy; negative decimal values negated */
	uint8_t w[CTF_INT_MAX_BITS / 8];
	bool be = t->byte_order == CTF_BO_BE;
	for (size_t i = 0; i < n; i++)
		w[i] = be ? bytes[n - 1 - i] : bytes[i];
	unsigned base = t->base == 16 || t->base == 8 || t->base == 2 ?
	    t->base : 10;
	bool neg = base == 10 && t->is_signed && (w[n - 1] & 0x80);
	if (neg) {
		unsigned carry = 1;
		for (size_t i = 0; i < n; i++) {
			unsigned x = (uint8_t)~w[i] + carry;
			w[i] = (uint8_t)x;
			carry = x >> 8;
		}
	}
	/* digits, least significant first, by long division */
	char dig[CTF_INT_MAX_BITS + 1];
	size_t nd = 0, top = n;
	while (top > 0 && w[top - 1] == 0)
		top--;
	do {
		unsigned rem = 0;
		for (size_t i = top; i-- > 0;) {
			unsigned x = rem << 8 | w[i];
			w[i] = (uint8_t)(x / base);
			rem = x % base;
		}
		dig[nd++] = "0123456789ABCDEF"[rem];
		while (top > 0 && w[top - 1] == 0)
			top--;
	} while (top > 0);
	const char *prefix = base == 16 ? "0x" : base == 8 ? "0" :
	    base == 2 ? "0b" : neg ? "-" : "";
	size_t k = 0;
	for (const char *c = prefix; *c && k + 1 < size; c++)
		out[k++] = *c;
	while (nd > 0 && k + 1 < size)
		out[k++] = dig[--nd];
	out[k] = '\0';
	return k;
}

static int
decode_float(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	uint64_t v;
	if (read_bits(d, t, &v) < 0)
		return -1;
	struct ctf_val *o = push(d, t, f, index);
	if (o != NULL) {
		if (t->size == 32) {
			uint32_t x = (uint32_t)v;
			float fl;
			memcpy(&fl, &x, 4);
			o->v.f = fl;
		} else
			memcpy(&o->v.f, &v, 8);
	}
	return 0;
}

static int
decode_string(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	uint64_t pos = align_up(d->pos, 8);
	if (pos >= d->end)
		return fail(d, pos, "string past the end of the packet content");
	const char *s = (const char *)d->buf + (pos >> 3);
	size_t avail = (size_t)((d->end - pos) >> 3);
	const char *nul = memchr(s, '\0', avail);
	if (nul == NULL)
		return fail(d, pos, "unterminated string");
	size_t len = (size_t)(nul - s);
	d->pos = pos + (uint64_t)(len + 1) * 8;
	struct ctf_val *o = push(d, t, f, index);
	if (o != NULL) {
		o->str = s;
		o->len = len;
		o->is_text = true;
	}
	return 0;
}

static int
decode_array(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index, uint64_t n)
{
	uint64_t pos = align_up(d->pos, t->align);
	if (pos > d->end)
		return fail(d, pos, "array past the end of the packet content");
	/* every element takes at least a bit, except empty structs: bound
	 * the loop by what is left either way */
	if (n > d->end - pos + 4096)
		return fail(d, pos, "array length past the end of the packet");
	const struct ctf_type *e = t->elem;
	if (t->is_text && (pos & 7) == 0) {
		if (n * 8 > d->end - pos)
			return fail(d, pos, "text array past the end of the "
			    "packet content");
		const char *s = (const char *)d->buf + (pos >> 3);
		const char *nul = memchr(s, '\0', (size_t)n);
		d->pos = pos + n * 8;
		struct ctf_val *o = push(d, t, f, index);
		if (o != NULL) {
			o->str = s;
			o->len = nul ? (size_t)(nul - s) : (size_t)n;
			o->is_text = true;
			o->v.u = n;
		}
		return 0;
	}
	d->pos = pos;
	if (f != NULL && f->role == ROLE_UUID && (pos & 7) == 0 &&
	    n * 8 <= d->end - pos)
		d->uuid = d->buf + (pos >> 3);
	size_t at = d->out ? d->out->len : 0;
	struct ctf_val *o = push(d, t, f, index);
	if (o != NULL)
		o->v.u = n;
	for (uint64_t i = 0; i < n; i++)
		if (ctf_decode(d, e, NULL, (uint32_t)i) < 0)
			return -1;
	if (d->out != NULL)
		d->out->items[at].end = (uint32_t)d->out->len;
	return 0;
}

/* The fields of a flat struct (the common case: contexts, most
 * payloads), with their layouts side by side in t->ops. */
static int
decode_flat(struct ctf_dec *d, const struct ctf_type *t)
{
	const struct ctf_flat_op *op = t->ops, *last = op + t->nfields;
	if (d->out != NULL)
		VEC_RESERVE(d->out, t->nfields);
	for (; op < last; op++) {
		if (op->special || op->is_float) {
			int rc = op->is_float ? decode_float(d, op->t, op->f, 0) :
			    decode_int(d, op->t, op->f, 0);
			if (rc < 0)
				return -1;
			continue;
		}
		uint64_t pos = align_up(d->pos, op->align), v;
		uint32_t size = op->size;
		if (pos > d->end || size > d->end - pos)
			return fail(d, pos, "field past the end of the packet "
			    "content");
		const uint8_t *p = d->buf + (pos >> 3);
		if ((pos & 7) == 0 && size == 32) {
			uint32_t x;
			memcpy(&x, p, 4);
			v = op->be ? __builtin_bswap32(x) : x;
		} else if ((pos & 7) == 0 && size == 64) {
			memcpy(&v, p, 8);
			if (op->be)
				v = __builtin_bswap64(v);
		} else if (read_bits(d, op->t, &v) < 0)
			return -1;
		if (op->is_signed && size < 64 && (v >> (size - 1)) & 1)
			v |= ~(uint64_t)0 << size;
		d->pos = pos + size;
		if (d->out != NULL) {
			struct ctf_val *o = &d->out->items[d->out->len++];
			o->field = op->f;
			o->type = op->t;
			o->index = 0;
			o->end = (uint32_t)d->out->len;
			o->v.u = v;
			o->str = NULL;
			o->len = 0;
			o->is_text = false;
		}
	}
	return 0;
}

/* A fixed struct (see ctf_meta.h) known to fit: plain loads at fixed
 * offsets, the struct's start being byte-aligned. */
static void
decode_fixed(struct ctf_dec *d, const struct ctf_type *t)
{
	const uint8_t *base = d->buf + (d->pos >> 3);
	const struct ctf_flat_op *op = t->ops, *last = op + t->nfields;
	d->pos += t->fixed_bits;
	if (d->out == NULL)
		return;
	VEC_RESERVE(d->out, t->nfields);
	struct ctf_val *o = &d->out->items[d->out->len];
	for (; op < last; op++, o++) {
		uint64_t v = ctf_read_whole(base + op->off, op->size, op->be,
		    op->is_signed);
		o->field = op->f;
		o->type = op->t;
		o->index = 0;
		o->v.u = v;
		o->str = NULL;
		o->len = 0;
		o->is_text = false;
		o->end = (uint32_t)(++d->out->len);
	}
}

int
ctf_decode(struct ctf_dec *d, const struct ctf_type *t,
    const struct ctf_field *f, uint32_t index)
{
	switch (t->kind) {
	case CTF_INT:
		if (__builtin_expect(t->varlen, 0))
			return decode_varlen(d, t, f, index);
		if (t->size > 64)
			return decode_bigint(d, t, f, index);
		if (t->unit_size != 0) {
			/* a GNU C bitfield that does not fit in what is left
			 * of its unit starts at the next one */
			uint64_t pos = align_up(d->pos, t->align);
			if (pos % t->unit_size + t->size > t->unit_size)
				pos = align_up(pos, t->unit_size);
			d->pos = pos;
		}
		return decode_int(d, t, f, index);
	case CTF_ENUM:
		if (__builtin_expect(t->varlen, 0))
			return decode_varlen(d, t, f, index);
		return decode_int(d, t, f, index);
	case CTF_FLOAT:
		return decode_float(d, t, f, index);
	case CTF_STRING:
		return decode_string(d, t, f, index);
	case CTF_STRUCT: {
		uint64_t pos = align_up(d->pos, t->align);
		if (pos > d->end)
			return fail(d, pos, "struct past the end of the packet "
			    "content");
		d->pos = pos;
		size_t at = d->out ? d->out->len : 0;
		push(d, t, f, index);
		if (t->fixed && t->fixed_bits <= d->end - pos) {
			decode_fixed(d, t);
		} else if (t->ops != NULL) {
			if (decode_flat(d, t) < 0)
				return -1;
		} else
			for (size_t i = 0; i < t->nfields; i++)
				if (ctf_decode(d, t->fields[i].type, &t->fields[i],
				    0) < 0)
					return -1;
		if (d->out != NULL)
			d->out->items[at].end = (uint32_t)d->out->len;
		return 0;
	}
	case CTF_VARIANT: {
		uint64_t tag = ctf_slot_get(d, t->tag_slot);
		int mi;
		ctf_enum_label(t->tag_type, tag, &mi);
		int opt = mi >= 0 && (size_t)mi < t->nopt_of_map ?
		    t->opt_of_map[mi] : -1;
		if (opt < 0 && t->optional) {
			/* an absent CTF 2 optional: nothing under it */
			push(d, t, f, index);
			return 0;
		}
		if (opt < 0)
			return fail(d, d->pos, "variant tag value selects no "
			    "option");
		size_t at = d->out ? d->out->len : 0;
		push(d, t, f, index);
		if (ctf_decode(d, t->fields[opt].type, &t->fields[opt], 0) < 0)
			return -1;
		if (d->out != NULL)
			d->out->items[at].end = (uint32_t)d->out->len;
		return 0;
	}
	case CTF_ARRAY:
		return decode_array(d, t, f, index, t->length);
	case CTF_SEQUENCE:
		return decode_array(d, t, f, index,
		    ctf_slot_get(d, t->length_slot));
	}
	return fail(d, d->pos, "unknown type");
}

int
ctf_decode_header(struct ctf_dec *d, const struct ctf_header_plan *hp)
{
	uint64_t start = d->pos;
	d->pos = align_up(d->pos, hp->header->align);
	uint64_t id, v;
	uint64_t need = hp->fast == HP_PACKED32 ? 32 : 48;
	if (hp->fast != HP_SLOW && d->pos <= d->end && d->end - d->pos >= need) {
		/* the compact form of LTTng's headers, read in one go */
		ctf_header_compact(hp, d->buf + (d->pos >> 3), &id, &v);
		if (id <= hp->compact_max && id != hp->ext_id) {
			d->pos += need;
			if (hp->c_clock)
				ctf_update_clock(d, v, hp->c_ts->type->size);
			d->event_id = id;
			d->has_event_id = true;
			return 0;
		}
	}
	if (read_bits(d, hp->id, &id) < 0)
		return -1;
	const struct ctf_type *o;
	if (id == hp->ext_id) {
		o = hp->extended;
		d->pos = align_up(d->pos, o->align);
		if (read_bits(d, hp->e_id->type, &id) < 0)
			return -1;
		if (read_bits(d, hp->e_ts->type, &v) < 0)
			return -1;
		if (hp->e_ts->type->clock >= 0)
			ctf_update_clock(d, v, hp->e_ts->type->size);
	} else {
		bool known = hp->compact_max != UINT64_MAX &&
		    id <= hp->compact_max;
		if (!known && ctf_enum_label(hp->id, id, NULL) == NULL) {
			/* let the generic path say what is wrong */
			d->pos = start;
			return ctf_decode(d, hp->header, NULL, 0);
		}
		o = hp->compact;
		d->pos = align_up(d->pos, o->align);
		if (read_bits(d, hp->c_ts->type, &v) < 0)
			return -1;
		if (hp->c_ts->type->clock >= 0)
			ctf_update_clock(d, v, hp->c_ts->type->size);
	}
	d->event_id = id;
	d->has_event_id = true;
	return 0;
}

/* --- slots lent to streams (ctf_slot_share) --- */

void
ctf_slots_init(struct ctf_slot_share *sh, size_t nslots)
{
	memset(sh, 0, sizeof *sh);
	sh->nslots = nslots;
	sh->v = xcalloc(nslots + 1, sizeof *sh->v);
	sh->mark = xcalloc(nslots + 1, sizeof *sh->mark);
	sh->gen = 2;
}

void
ctf_slots_grow(struct ctf_slot_share *sh, size_t nslots)
{
	if (nslots <= sh->nslots)
		return;
	sh->v = xreallocarray(sh->v, nslots + 1, sizeof *sh->v);
	sh->mark = xreallocarray(sh->mark, nslots + 1, sizeof *sh->mark);
	memset(sh->v + sh->nslots + 1, 0, (nslots - sh->nslots) *
	    sizeof *sh->v);
	memset(sh->mark + sh->nslots + 1, 0, (nslots - sh->nslots) *
	    sizeof *sh->mark);
	sh->nslots = nslots;
}

void
ctf_slots_free(struct ctf_slot_share *sh)
{
	free(sh->v);
	free(sh->mark);
	VEC_FREE(&sh->written);
	memset(sh, 0, sizeof *sh);
}

uint64_t
ctf_slot_miss(struct ctf_slot_share *sh, int slot)
{
	uint64_t v = 0;
	ctf_ids_get(sh->own, (uint32_t)slot, &v);
	sh->v[slot] = v;
	sh->mark[slot] = sh->gen;
	return v;
}

void
ctf_slots_lend(struct ctf_slot_share *sh, struct ctf_dec *d,
    struct ctf_ids *own)
{
	/* a new batch: every mark of the last ones is stale */
	sh->gen += 2;
	if (sh->gen >= UINT32_MAX - 2) {
		memset(sh->mark, 0, (sh->nslots + 1) * sizeof *sh->mark);
		sh->gen = 2;
	}
	sh->own = own;
	d->share = sh;
	d->slots = sh->v;
}

void
ctf_slots_return(struct ctf_slot_share *sh, struct ctf_dec *d)
{
	for (size_t i = 0; i < sh->written.len; i++) {
		uint32_t k = sh->written.items[i];
		ctf_ids_put(sh->own, k, sh->v[k]);
	}
	sh->written.len = 0;
	sh->own = NULL;
	d->share = NULL;
	d->slots = NULL;
}
