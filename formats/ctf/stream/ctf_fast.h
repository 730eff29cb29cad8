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

#include "ctf_packets.h"

/* What a run's user does with one raw event, given as the item
 * ctf_event_next's caller would make of it (a local: mark and picked
 * may be rewritten). True: the item goes on into the run's output. */
typedef bool (*ctf_raw_step)(void *arg, struct ctf_item *it);

/* Pick k of a raw body that has 8 bytes to read at every pick (an absent
 * pick reads at the body's start, and keeps nothing), the event class's
 * picks all of one byte order (picks_wide): cut out with shifts and a
 * mask, no branch on the pick's size or sign. */
static inline uint64_t
ctf_pick_cut(const struct ctf_pick_cut *c, const uint8_t *body, bool be)
{
	uint64_t x;
	memcpy(&x, body + c->at, 8);
	x = be ? __builtin_bswap64(x) : x;
	return (uint64_t)((int64_t)(x << c->lsh) >> c->rsh) & c->mask;
}

static inline uint64_t
ctf_pick_wide(const struct ctf_event_class *e, const uint8_t *body, int k)
{
	return ctf_pick_cut(&e->pick_cut[k], body, e->picks_be);
}

/* The picks of a raw event into out. */
static inline __attribute__((always_inline)) void
ctf_picks_read(const struct ctf_event_class *e, const uint8_t *body,
    bool wide, uint64_t out[CTF_PICK_MAX])
{
	if (wide && !e->picks_be) {
		for (int k = 0; k < CTF_PICK_MAX; k++)
			out[k] = ctf_pick_cut(&e->pick_cut[k], body, false);
	} else if (wide) {
		for (int k = 0; k < CTF_PICK_MAX; k++)
			out[k] = ctf_pick_cut(&e->pick_cut[k], body, true);
	} else {
		for (int k = 0; k < CTF_PICK_MAX; k++) {
			const struct ctf_pick *pk = &e->pick[k];
			out[k] = e->pick_at[k] == UINT32_MAX ? 0 :
			    ctf_read_whole(body + e->pick_at[k], pk->size,
			    pk->be, pk->is_signed);
		}
	}
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
	/* the fast forms' headers are byte-aligned, as are the bodies
	 * after them (need is whole bytes) */
	if (hp == NULL || hp->fast == HP_SLOW || s->done ||
	    (hp->header->align & 7) != 0)
		return 0;
	/* the clock went back at the packet's start: the next event is
	 * counted as going backwards by ctf_event_next (a run's events
	 * only go forward from the clock) */
	if (s->has_prev_ts && d->clock < s->prev_ts)
		return 0;
	const struct ctf_clock *clk = sc->clock >= 0 ?
	    &s->trace->m->clocks[sc->clock] : NULL;
	const uint64_t a = hp->header->align, end = d->end;
	const uint64_t content_end = s->content_end;
	const uint64_t need = hp->fast == HP_PACKED32 ? 32 : 48;
	const uint32_t tsbits = hp->c_ts ? hp->c_ts->type->size : 0;
	const uint64_t tsmask = tsbits >= 64 ? ~(uint64_t)0 :
	    ((uint64_t)1 << tsbits) - 1;
	const bool update_clock = hp->c_clock;
	const bool ns_cycles = clk != NULL && clk->ns_cycles;
	const uint64_t base_ns = clk != NULL ? (uint64_t)clk->base_ns : 0;
	const uint8_t *const buf = d->buf;
	/* what each event is looked up in, in registers: the step's stores
	 * could otherwise be taken to change them */
	const uint32_t *const adv = sc->raw_adv;
	const uint64_t nadv = sc->nraw_adv;
	struct ctf_event_class *const *const by_id = sc->by_id;
	/* below this, any raw event fits with its header and 8 bytes
	 * more (the wide picks): one test where there would be four */
	const uint64_t slack = need + sc->raw_adv_max + 64;
	const uint64_t safe = end > slack ? end - slack : 0;
	const bool packed = hp->fast == HP_PACKED32, be = hp->fast_be;
	const unsigned idbits = packed ? (unsigned)hp->id->size : 16;
	/* the decoder's state in locals: the step's stores cannot alias
	 * them */
	uint64_t pos = d->pos, clock = d->clock, start = pos;
	bool clock_set = d->clock_set;
	const struct ctf_event_class *ev = NULL;
	bool has_ts = false;
	int64_t ns = INT64_MIN;
	size_t n = 0, nd = 0;
	if (max == 0)
		return 0;
	while (nd < budget && pos < content_end) {
		uint64_t at = (pos + a - 1) & ~(a - 1);
		bool roomy = at <= safe;
		if (!roomy && (at > end || end - at < need))
			break;
		const uint8_t *p = buf + (at >> 3);
		/* the trace streams through: ask for what comes next early */
		__builtin_prefetch(p + 1024);
		uint64_t id, v;
		ctf_header_compact_as(packed, be, idbits, p, &id, &v);
		/* (ids past nadv, the escape included, are not fast) */
		if (id >= nadv)
			break;
		/* the next event's place hangs on this one's size: one
		 * look-up, not the class and then its size (UINT32_MAX: not
		 * a raw class with a constant layout) */
		uint32_t bits = adv[id];
		at += need;
		if (bits == UINT32_MAX || (!roomy && bits > end - at))
			break;
		const struct ctf_event_class *e = by_id[id];
		ev = e;
		start = pos;
		pos = at + bits;
		if (update_clock) {
			/* as ctf_update_clock */
			if (__builtin_expect(clock_set && tsbits < 64, 1)) {
				uint64_t nv = (clock & ~tsmask) | v;
				if (v < (clock & tsmask))
					nv += tsmask + 1;
				clock = nv;
			} else {
				clock = v;
				clock_set = true;
			}
		}
		has_ts = clk != NULL && clock_set;
		ns = !has_ts ? INT64_MIN : ns_cycles && clock <= INT64_MAX &&
		    (int64_t)base_ns >= 0 && clock <= (uint64_t)INT64_MAX -
		    base_ns ? (int64_t)(base_ns + clock) :
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
		/* 8 bytes readable at every pick, or each read to size */
		ctf_picks_read(e, body, e->picks_wide && (roomy ||
		    end - at >= (uint64_t)bits + 64), it.u.picked);
		nd++;
		if (step(arg, &it)) {
			out[n++] = it;
			if (n == max)
				break;
		}
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
		if (has_ts) {
			s->prev_ts = clock;
			s->has_prev_ts = true;
		}
		const uint8_t *body = buf + (pos >> 3) - ev->raw_bits / 8;
		for (int k = 1; k < 4; k++)
			s->raw[k] = ev->raw_off[k] == UINT32_MAX ? NULL :
			    body + ev->raw_off[k];
	}
	return n;
}

#endif
