/*
 * The next event of a packet when it is what large function traces are
 * made of: an LTTng event header in its compact form (ctf_header_plan
 * fast) and a class read raw whose scopes sit at constant offsets. Only
 * what ctf_event_next would find for such an event is worked out; any
 * other event is left to ctf_event_next.
 */
#include "config.h"

#include "ctf_decode.h"

int
ctf_event_next_raw(struct ctf_stream *s)
{
	struct ctf_dec *d = &s->d;
	const struct ctf_stream_class *sc = s->sc;
	const struct ctf_header_plan *hp = sc->hplan;
	if (hp == NULL || hp->fast == HP_SLOW || s->done ||
	    d->pos >= s->content_end)
		return 0;
	uint64_t a = hp->header->align;
	uint64_t pos = (d->pos + a - 1) & ~(a - 1);
	uint64_t need = hp->fast == HP_PACKED32 ? 32 : 48;
	if (pos > d->end || d->end - pos < need)
		return 0;
	/* as ctf_decode_header reads the compact form */
	const uint8_t *p = d->buf + (pos >> 3);
	uint64_t id, v;
	uint32_t x;
	memcpy(&x, p, 4);
	if (hp->fast == HP_PACKED32) {
		unsigned n = hp->id->size;
		if (hp->fast_be) {
			x = __builtin_bswap32(x);
			id = x >> (32 - n);
			v = x & (((uint32_t)1 << (32 - n)) - 1);
		} else {
			id = x & (((uint32_t)1 << n) - 1);
			v = x >> n;
		}
	} else {
		uint16_t y;
		memcpy(&y, p, 2);
		memcpy(&x, p + 2, 4);
		id = hp->fast_be ? __builtin_bswap16(y) : y;
		v = hp->fast_be ? __builtin_bswap32(x) : x;
	}
	if (id > hp->compact_max || id == hp->ext_id)
		return 0;
	const struct ctf_event_class *ev = ctf_event_by_id(sc, id);
	if (ev == NULL || !ev->raw || ev->raw_const <= 0)
		return 0;
	pos += need;
	/* as raw_scopes places a constant layout */
	if ((pos & 7) != 0 || pos > d->end || ev->raw_bits > d->end - pos)
		return 0;
	s->ev_off = s->pkt_off + d->pos / 8;
	if (hp->c_clock)
		ctf_update_clock(d, v, hp->c_ts->type->size);
	d->event_id = id;
	d->has_event_id = true;
	const uint8_t *body = d->buf + (pos >> 3);
	for (int k = 1; k < 4; k++)
		s->raw[k] = ev->raw_off[k] == UINT32_MAX ? NULL :
		    body + ev->raw_off[k];
	d->pos = pos + ev->raw_bits;
	s->ev = ev;
	s->is_raw = true;
	s->has_ts = sc->clock >= 0 && d->clock_set;
	s->ts = d->clock;
	if (s->has_ts)
		s->ns = ctf_clock_ns(&s->trace->m->clocks[sc->clock], d->clock);
	return 1;
}
