/*
 * Runs of the events large function traces are made of: an LTTng event
 * header in its compact form (ctf_header_plan fast) and a class read raw
 * whose scopes sit at constant offsets. Only what ctf_event_next would
 * find for such an event is worked out, in one loop that keeps the
 * decoder's state in registers; the first other event ends the run and
 * is left to ctf_event_next.
 *
 * The loop is a template: a reader that does a little for every raw
 * event instantiates it with its own step (inlined into the loop), so
 * that an event it takes for itself is never written out as an item.
 */
#ifndef TTV_CTF_FAST_H
#define TTV_CTF_FAST_H

#include "ctf_decode.h"

/* What a run's user does with one raw event, given as the item
 * ctf_event_next's caller would make of it (a local: mark and picked
 * may be rewritten). True: the item goes on into the run's output. */
typedef bool (*ctf_raw_step)(void *arg, struct ctf_item *it);

/* Pick k of a raw body that has 8 bytes to read at every pick (an absent
 * pick reads at the body's start, and keeps nothing): no branch on the
 * pick's size, as ctf_read_whole has. */
static inline uint64_t
ctf_pick_wide(const struct ctf_event_class *e, const uint8_t *body, int k)
{
	const struct ctf_pick_cut *c = &e->pick_cut[k];
	uint32_t at = e->pick_at[k] == UINT32_MAX ? 0 : e->pick_at[k];
	uint64_t x;
	memcpy(&x, body + at, 8);
	x = c->be ? __builtin_bswap64(x) : x << c->lsh;
	x = c->is_signed ? (uint64_t)((int64_t)x >> c->rsh) : x >> c->rsh;
	return x & c->keep;
}

/*
 * The events from here on, while they are of raw classes with a constant
 * layout after an LTTng compact header, up to max kept items or budget
 * events: each handed to step, the kept ones written to out. The stream
 * is left as after the last event; *decoded says how many there were
 * (0: nothing changed, the next is any other event or the packet ends,
 * and ctf_event_next is the one to call).
 */
static inline __attribute__((always_inline)) size_t
ctf_run_raw_each(struct ctf_stream *s, const struct ctf_packet_info *pkt,
    struct ctf_item *out, size_t max, size_t budget, size_t *decoded,
    ctf_raw_step step, void *arg)
{
	struct ctf_dec *d = &s->d;
	const struct ctf_stream_class *sc = s->sc;
	const struct ctf_header_plan *hp = sc->hplan;
	*decoded = 0;
	if (hp == NULL || hp->fast == HP_SLOW || s->done)
		return 0;
	const struct ctf_clock *clk = sc->clock >= 0 ?
	    &s->trace->m->clocks[sc->clock] : NULL;
	const uint64_t a = hp->header->align, end = d->end;
	const uint64_t content_end = s->content_end;
	const uint64_t need = hp->fast == HP_PACKED32 ? 32 : 48;
	const uint32_t tsbits = hp->c_ts ? hp->c_ts->type->size : 0;
	const bool update_clock = hp->c_clock;
	const uint8_t *const buf = d->buf;
	/* the decoder's state in locals: the step's stores cannot alias
	 * them */
	uint64_t pos = d->pos, clock = d->clock, start = pos;
	bool clock_set = d->clock_set;
	const struct ctf_event_class *ev = NULL;
	bool has_ts = false;
	int64_t ns = INT64_MIN;
	size_t n = 0, nd = 0;
	while (n < max && nd < budget && pos < content_end) {
		uint64_t at = (pos + a - 1) & ~(a - 1);
		if (at > end || end - at < need)
			break;
		const uint8_t *p = buf + (at >> 3);
		/* the trace streams through: ask for what comes next early */
		__builtin_prefetch(p + 1024);
		uint64_t id, v;
		ctf_header_compact(hp, p, &id, &v);
		if (id > hp->compact_max || id == hp->ext_id)
			break;
		const struct ctf_event_class *e = id < sc->nby_id ?
		    sc->by_id[id] : ctf_event_by_id(sc, id);
		if (e == NULL || !e->raw || e->raw_const <= 0)
			break;
		at += need;
		/* as raw_scopes places a constant layout */
		if ((at & 7) != 0 || at > end || e->raw_bits > end - at)
			break;
		ev = e;
		start = pos;
		pos = at + e->raw_bits;
		if (update_clock) {
			if (tsbits >= 64 || !clock_set) {
				clock = v;
				clock_set = true;
			} else {
				uint64_t mask = ((uint64_t)1 << tsbits) - 1;
				uint64_t nv = (clock & ~mask) | v;
				if (v < (clock & mask))
					nv += mask + 1;
				clock = nv;
			}
		}
		has_ts = clk != NULL && clock_set;
		ns = !has_ts ? INT64_MIN : clk->ns_cycles ?
		    (int64_t)((uint64_t)clk->base_ns + clock) :
		    ctf_clock_ns(clk, clock);
		const uint8_t *body = buf + (at >> 3);
		struct ctf_item it;
		it.kind = CTF_ITEM_EVENT;
		it.has_ts = has_ts;
		it.is_raw = true;
		it.mark = 0;
		it.ns = ns;
		it.s = s;
		it.pkt = pkt;
		it.ev = e;
		if (end - at >= (uint64_t)e->raw_bits + 64) {
			/* 8 bytes readable at every pick */
			for (int k = 0; k < CTF_PICK_MAX; k++)
				it.u.picked[k] = ctf_pick_wide(e, body, k);
		} else {
			for (int k = 0; k < CTF_PICK_MAX; k++) {
				const struct ctf_pick *pk = &e->pick[k];
				it.u.picked[k] = e->pick_at[k] == UINT32_MAX ?
				    0 : ctf_read_whole(body + e->pick_at[k],
				    pk->size, pk->be, pk->is_signed);
			}
		}
		nd++;
		if (step(arg, &it))
			out[n++] = it;
	}
	*decoded = nd;
	if (nd > 0) {
		/* the stream as ctf_event_next leaves it after the last */
		d->pos = pos;
		d->clock = clock;
		d->clock_set = clock_set;
		s->ev_off = s->pkt_off + start / 8;
		d->event_id = ev->id;
		d->has_event_id = true;
		s->ev = ev;
		s->is_raw = true;
		s->has_ts = has_ts;
		s->ts = clock;
		s->ns = ns;
		const uint8_t *body = buf + (pos >> 3) - ev->raw_bits / 8;
		for (int k = 1; k < 4; k++)
			s->raw[k] = ev->raw_off[k] == UINT32_MAX ? NULL :
			    body + ev->raw_off[k];
	}
	return n;
}

#endif
