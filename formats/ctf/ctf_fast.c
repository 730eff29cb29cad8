/*
 * Runs of the events large function traces are made of: an LTTng event
 * header in its compact form (ctf_header_plan fast) and a class read raw
 * whose scopes sit at constant offsets. Only what ctf_event_next would
 * find for such an event is worked out, in one loop that keeps the
 * decoder's state in registers; the first other event ends the run and
 * is left to ctf_event_next.
 */
#include "config.h"

#include "ctf_decode.h"

size_t
ctf_event_run_raw(struct ctf_stream *s, const struct ctf_packet_info *pkt,
    struct ctf_item *out, size_t max)
{
	struct ctf_dec *d = &s->d;
	const struct ctf_stream_class *sc = s->sc;
	const struct ctf_header_plan *hp = sc->hplan;
	if (hp == NULL || hp->fast == HP_SLOW || s->done)
		return 0;
	const struct ctf_clock *clk = sc->clock >= 0 ?
	    &s->trace->m->clocks[sc->clock] : NULL;
	const uint64_t a = hp->header->align, end = d->end;
	const uint64_t need = hp->fast == HP_PACKED32 ? 32 : 48;
	const unsigned idbits = hp->id->size;
	const uint32_t tsbits = hp->c_ts ? hp->c_ts->type->size : 0;
	const struct ctf_event_class *ev = NULL;
	uint64_t start = d->pos;
	size_t n = 0;
	while (n < max && d->pos < s->content_end) {
		uint64_t pos = (d->pos + a - 1) & ~(a - 1);
		if (pos > end || end - pos < need)
			break;
		/* as ctf_decode_header reads the compact form */
		const uint8_t *p = d->buf + (pos >> 3);
		uint64_t id, v;
		uint32_t x;
		memcpy(&x, p, 4);
		if (hp->fast == HP_PACKED32) {
			if (hp->fast_be) {
				x = __builtin_bswap32(x);
				id = x >> (32 - idbits);
				v = x & (((uint32_t)1 << (32 - idbits)) - 1);
			} else {
				id = x & (((uint32_t)1 << idbits) - 1);
				v = x >> idbits;
			}
		} else {
			uint16_t y;
			memcpy(&y, p, 2);
			memcpy(&x, p + 2, 4);
			id = hp->fast_be ? __builtin_bswap16(y) : y;
			v = hp->fast_be ? __builtin_bswap32(x) : x;
		}
		if (id > hp->compact_max || id == hp->ext_id)
			break;
		ev = id < sc->nby_id ? sc->by_id[id] : ctf_event_by_id(sc, id);
		if (ev == NULL || !ev->raw || ev->raw_const <= 0)
			break;
		pos += need;
		/* as raw_scopes places a constant layout */
		if ((pos & 7) != 0 || pos > end || ev->raw_bits > end - pos)
			break;
		start = d->pos;
		if (hp->c_clock)
			ctf_update_clock(d, v, tsbits);
		const uint8_t *body = d->buf + (pos >> 3);
		d->pos = pos + ev->raw_bits;
		struct ctf_item *it = &out[n++];
		it->kind = CTF_ITEM_EVENT;
		it->is_raw = true;
		it->mark = 0;
		it->has_ts = clk != NULL && d->clock_set;
		it->ns = !it->has_ts ? INT64_MIN : clk->ns_cycles ?
		    (int64_t)((uint64_t)clk->base_ns + d->clock) :
		    ctf_clock_ns(clk, d->clock);
		it->s = s;
		it->pkt = pkt;
		it->ev = ev;
		for (int k = 0; k < CTF_PICK_MAX; k++) {
			const struct ctf_pick *pk = &ev->pick[k];
			uint32_t off = pk->scope ? ev->raw_off[pk->scope] :
			    UINT32_MAX;
			it->u.picked[k] = off == UINT32_MAX ? 0 :
			    ctf_read_whole(body + off + pk->off, pk->size,
			    pk->be, pk->is_signed);
		}
	}
	if (n > 0) {
		/* the stream as ctf_event_next leaves it after the last */
		const struct ctf_item *last = &out[n - 1];
		s->ev_off = s->pkt_off + start / 8;
		d->event_id = last->ev->id;
		d->has_event_id = true;
		s->ev = last->ev;
		s->is_raw = true;
		s->has_ts = last->has_ts;
		s->ts = d->clock;
		s->ns = last->ns;
		const uint8_t *body = d->buf + (d->pos >> 3) -
		    last->ev->raw_bits / 8;
		for (int k = 1; k < 4; k++)
			s->raw[k] = last->ev->raw_off[k] == UINT32_MAX ? NULL :
			    body + last->ev->raw_off[k];
	}
	return n;
}
