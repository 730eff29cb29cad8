/*
 * Packets of CTF data stream files, walked packet by packet from what
 * each packet header and context say, then event by event within a
 * packet's content. LTTng's index/ files (ctf_index.c) are
 * not needed: when there is one, the walk is checked against it. Where a
 * packet header or an event is damaged the walk resumes, instead of
 * ending, at the next packet the index lists whose header agrees with
 * it, else at the end of the damaged packet when its header was sound,
 * else at the next place where the packet magic starts a sound header.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_packets.h"
#include "ctf_index.h"

#define PACKET_MAGIC 0xC1FC1FC1u

static int
serr(struct ctf_stream *s, char *err, size_t errsize, uint64_t *erroff,
    uint64_t off, const char *msg)
{
	snprintf(err, errsize, "%s", msg);
	*erroff = off;
	s->done = true;
	return -1;
}

static int
derr(struct ctf_stream *s, char *err, size_t errsize, uint64_t *erroff)
{
	return serr(s, err, errsize, erroff,
	    s->pkt_off + s->d.err_pos / 8, s->d.err);
}

static int
find_cpu_id(struct ctf_stream *s)
{
	s->has_cpu_id = false;
	if (s->pctx_root < 0)
		return 0;
	const struct ctf_val *root = &s->pvals.items[s->pctx_root];
	for (uint32_t i = (uint32_t)s->pctx_root + 1; i < root->end;) {
		const struct ctf_val *v = &s->pvals.items[i];
		if (v->field && !strcmp(v->field->name, "cpu_id") &&
		    v->type->kind == CTF_INT) {
			s->cpu_id = v->v.u;
			s->has_cpu_id = true;
		}
		i = v->end > i ? v->end : i + 1;
	}
	return 0;
}

static int
packet_open(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff)
{
	const struct ctf_meta *m = s->trace->m;
	if (s->done || s->pkt_off >= s->size)
		return 0;
	struct ctf_dec *d = &s->d;
	d->buf = s->data + s->pkt_off;
	d->pos = 0;
	d->end = (uint64_t)(s->size - s->pkt_off) * 8;
	d->base_off = s->pkt_off;
	d->out = NULL;
	d->roles_set = 0;
	d->uuid = NULL;
	d->m = m;
	if (m->packet_header != NULL &&
	    ctf_decode(d, m->packet_header, NULL, 0) < 0)
		return derr(s, err, errsize, erroff);
	if ((d->roles_set & (1u << ROLE_MAGIC)) &&
	    d->roles[ROLE_MAGIC] != PACKET_MAGIC) {
		char msg[80];
		snprintf(msg, sizeof msg, "invalid packet magic 0x%llx",
		    (unsigned long long)d->roles[ROLE_MAGIC]);
		return serr(s, err, errsize, erroff, s->pkt_off, msg);
	}
	/* a packet's uuid is not checked against the trace's: babeltrace2
	 * reads traces whose packets say otherwise (intersection/) */
	const struct ctf_stream_class *sc;
	if (d->roles_set & (1u << ROLE_STREAM_ID)) {
		sc = ctf_stream_by_id(m, d->roles[ROLE_STREAM_ID]);
		if (sc == NULL) {
			char msg[80];
			snprintf(msg, sizeof msg, "unknown stream id %llu",
			    (unsigned long long)d->roles[ROLE_STREAM_ID]);
			return serr(s, err, errsize, erroff, s->pkt_off, msg);
		}
	} else if (s->sc_fixed)
		sc = s->sc;
	else if (m->nstreams == 1)
		sc = m->streams[0];
	else
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "packet without stream_id in a trace with several "
		    "stream classes");
	/* by id: metadata that grew while read on (ctf_reader_grow) gives
	 * the same class anew */
	if (s->sc != NULL && s->sc->id != sc->id)
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "packet of another stream class in the same stream");
	s->sc = sc;
	s->pvals.len = 0;
	s->pctx_root = -1;
	if (sc->packet_context != NULL) {
		d->out = &s->pvals;
		s->pctx_root = 0;
		if (ctf_decode(d, sc->packet_context, NULL, 0) < 0)
			return derr(s, err, errsize, erroff);
		d->out = NULL;
	}
	uint64_t avail = (uint64_t)(s->size - s->pkt_off) * 8;
	uint64_t psize = avail, csize = avail;
	/* the 2010 RFC counts sizes in bytes */
	unsigned unit = m->sizes_in_bytes ? 8 : 1;
	if (unit == 8) {
		d->roles[ROLE_PACKET_SIZE] = d->roles[ROLE_PACKET_SIZE] >= 1ull << 60 ?
		    UINT64_MAX : d->roles[ROLE_PACKET_SIZE] * 8;
		d->roles[ROLE_CONTENT_SIZE] = d->roles[ROLE_CONTENT_SIZE] >= 1ull << 60 ?
		    UINT64_MAX : d->roles[ROLE_CONTENT_SIZE] * 8;
	}
	if (d->roles_set & (1u << ROLE_PACKET_SIZE)) {
		psize = d->roles[ROLE_PACKET_SIZE];
		if (psize > avail) {
			char msg[120];
			snprintf(msg, sizeof msg, "packet size of %llu bits goes "
			    "past the end of the file (%llu bits left)",
			    (unsigned long long)psize,
			    (unsigned long long)avail);
			return serr(s, err, errsize, erroff, s->pkt_off, msg);
		}
		csize = psize;
	}
	if (d->roles_set & (1u << ROLE_CONTENT_SIZE))
		csize = d->roles[ROLE_CONTENT_SIZE];
	if (!(d->roles_set & (1u << ROLE_PACKET_SIZE)) &&
	    (d->roles_set & (1u << ROLE_CONTENT_SIZE)))
		psize = (csize + 7) & ~(uint64_t)7;
	if (csize > psize || psize > avail)
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "packet content size larger than the packet");
	if (psize % 8 != 0)
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "packet size is not a whole number of bytes");
	if (d->pos > csize)
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "packet header and context larger than the packet content");
	if (psize == 0)
		return serr(s, err, errsize, erroff, s->pkt_off,
		    "empty packet");
	s->pkt_size = psize / 8;
	s->content_end = csize;
	s->events_end = unit == 8 && csize >= 7 ? csize - 7 : csize;
	d->end = csize;
	s->has_ts_begin = (d->roles_set & (1u << ROLE_TS_BEGIN)) != 0;
	s->has_ts_end = (d->roles_set & (1u << ROLE_TS_END)) != 0;
	s->ts_begin = d->roles[ROLE_TS_BEGIN];
	s->ts_end = d->roles[ROLE_TS_END];
	if (d->roles_set & (1u << ROLE_EVENTS_DISCARDED)) {
		s->disc_prev = s->has_disc ? s->disc : 0;
		s->disc = d->roles[ROLE_EVENTS_DISCARDED];
		s->has_disc = true;
	}
	if (d->roles_set & (1u << ROLE_PACKET_SEQ_NUM)) {
		s->seq_prev = s->seq;
		s->seq = d->roles[ROLE_PACKET_SEQ_NUM];
		s->has_seq = true;
	}
	find_cpu_id(s);
	if (m->packet_check != NULL && !s->in_trial) {
		char msg[200];
		if (m->packet_check(s, msg, sizeof msg) < 0)
			return serr(s, err, errsize, erroff, s->pkt_off, msg);
	}
	s->packets++;
	return 1;
}

/* The scopes of a raw event, if all are fixed and fit in the packet:
 * their starts noted, nothing decoded (fixed structs hold no lengths,
 * tags or clocks, so nothing later depends on their values). Else false
 * with the position untouched, for the generic path. */
static void
raw_layout(struct ctf_event_class *ev, const struct ctf_type *const ts[4])
{
	uint32_t bits = 0;
	for (int k = 1; k < 4; k++) {
		const struct ctf_type *t = ts[k];
		ev->raw_off[k] = UINT32_MAX;
		if (t == NULL)
			continue;
		/* fixed structs are byte-aligned and whole bytes long */
		if (!ctf_type_raw(t) || t->align > 8) {
			ev->raw_const = -1;
			return;
		}
		if (t->fixed) {
			ev->raw_off[k] = bits / 8;
			bits += t->fixed_bits;
		}
	}
	ev->raw_bits = bits;
	for (int k = 0; k < CTF_PICK_MAX; k++) {
		const struct ctf_pick *pk = &ev->pick[k];
		ev->pick_at[k] = pk->scope == 0 ||
		    ev->raw_off[pk->scope] == UINT32_MAX ? UINT32_MAX :
		    ev->raw_off[pk->scope] + pk->off;
		struct ctf_pick_cut *c = &ev->pick_cut[k];
		unsigned size = pk->size >= 8 && pk->size <= 64 ? pk->size : 64;
		bool none = ev->pick_at[k] == UINT32_MAX;
		if (!none)
			ev->picks_be = pk->be;
		c->at = none ? 0 : ev->pick_at[k];
		c->lsh = (uint8_t)(pk->be ? 0 : 64 - size);
		c->rsh = (uint8_t)(64 - size);
		c->mask = none ? 0 : pk->is_signed ? ~(uint64_t)0 :
		    ~(uint64_t)0 >> c->rsh;
	}
	/* one byte order for all picks, or none is cut wide */
	ev->picks_wide = true;
	for (int k = 0; k < CTF_PICK_MAX; k++)
		if (ev->pick_at[k] != UINT32_MAX &&
		    ev->pick[k].be != ev->picks_be)
			ev->picks_wide = false;
	ev->raw_const = 1;
}

void
ctf_event_prepare(const struct ctf_stream_class *sc,
    struct ctf_event_class *ev)
{
	const struct ctf_type *ts[4] = { NULL, sc->event_context,
	    ev->context, ev->fields };
	if (ev->raw_const == 0)
		raw_layout(ev, ts);
}

/* Ids past this have no entry in raw_adv (they take the run's slow
 * exit): LTTng's compact headers have 31, large ones few in use. */
#define RAW_ADV_MAX 1024

void
ctf_stream_prepare(struct ctf_meta *m, struct ctf_stream_class *sc)
{
	for (size_t j = 0; j < sc->nevents; j++) {
		ctf_event_prepare(sc, sc->events[j]);
		if (sc->events[j]->raw)
			sc->has_raw = true;
	}
	/* only ids a compact header can give, the escape to the extended
	 * form not one of them */
	const struct ctf_header_plan *hp = sc->hplan;
	size_t n = sc->nby_id < RAW_ADV_MAX ? sc->nby_id : RAW_ADV_MAX;
	if (hp == NULL || hp->fast == HP_SLOW)
		n = 0;
	else if (hp->compact_max < n)
		n = hp->compact_max + 1;
	/* made once: the classes' raw marks may change between calls, not
	 * their ids */
	if (sc->raw_adv == NULL && n > 0)
		sc->raw_adv = ctf_alloc(m, n * sizeof *sc->raw_adv);
	sc->nraw_adv = sc->raw_adv != NULL ? n : 0;
	sc->raw_adv_max = 0;
	for (size_t id = 0; id < n; id++) {
		const struct ctf_event_class *ev = sc->by_id[id];
		bool fast = ev != NULL && ev->raw && ev->raw_const > 0 &&
		    id != hp->ext_id;
		sc->raw_adv[id] = fast ? ev->raw_bits : UINT32_MAX;
		if (fast && ev->raw_bits > sc->raw_adv_max)
			sc->raw_adv_max = ev->raw_bits;
	}
}

static bool
raw_scopes(struct ctf_stream *s, struct ctf_event_class *ev)
{
	struct ctf_dec *d = &s->d;
	const struct ctf_type *ts[4] = { NULL, s->sc->event_context,
	    ev->context, ev->fields };
	if (ev->raw_const == 0)
		raw_layout(ev, ts);
	if (ev->raw_const > 0 && (d->pos & 7) == 0 && d->pos <= d->end &&
	    ev->raw_bits <= d->end - d->pos) {
		const uint8_t *b = d->buf + (d->pos >> 3);
		for (int k = 1; k < 4; k++)
			s->raw[k] = ev->raw_off[k] == UINT32_MAX ? NULL :
			    b + ev->raw_off[k];
		d->pos += ev->raw_bits;
		s->is_raw = true;
		return true;
	}
	uint64_t pos = d->pos;
	for (int k = 1; k < 4; k++) {
		const struct ctf_type *t = ts[k];
		s->raw[k] = NULL;
		if (t == NULL)
			continue;
		if (!ctf_type_raw(t))
			return false;
		pos = (pos + t->align - 1) & ~(uint64_t)(t->align - 1);
		if (pos > d->end)
			return false;
		if (!t->fixed)
			continue;	/* empty: only aligned */
		if (t->fixed_bits > d->end - pos)
			return false;
		s->raw[k] = d->buf + (pos >> 3);
		pos += t->fixed_bits;
	}
	d->pos = pos;
	s->is_raw = true;
	return true;
}

static inline int
event_next(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff)
{
	struct ctf_dec *d = &s->d;
	const struct ctf_stream_class *sc = s->sc;
	if (s->done)
		return 0;
	if (d->pos >= s->events_end) {
		s->pkt_off += s->pkt_size;
		return 0;
	}
	uint64_t start = d->pos;
	s->ev_off = s->pkt_off + start / 8;
	s->evals.len = 0;
	d->out = &s->evals;
	d->has_event_id = false;
	d->roles_set = 0;
	for (int i = 0; i < 4; i++)
		s->scope_root[i] = -1;
	if (sc->event_header != NULL) {
		/* only its id and timestamp matter: no values kept */
		d->out = NULL;
		if ((sc->hplan ? ctf_decode_header(d, sc->hplan) :
		    ctf_decode(d, sc->event_header, NULL, 0)) < 0)
			return derr(s, err, errsize, erroff);
		d->out = &s->evals;
	}
	const struct ctf_event_class *ev;
	if (d->has_event_id) {
		ev = ctf_event_by_id(sc, d->event_id);
		if (ev == NULL) {
			char msg[80];
			snprintf(msg, sizeof msg, "unknown event id %llu",
			    (unsigned long long)d->event_id);
			return serr(s, err, errsize, erroff, s->ev_off, msg);
		}
	} else if (sc->nevents == 1)
		ev = sc->events[0];
	else if (sc->nevents == 0)
		return serr(s, err, errsize, erroff, s->ev_off,
		    "event in a stream class without event classes");
	else
		return serr(s, err, errsize, erroff, s->ev_off,
		    "event header without an id in a stream class with "
		    "several event classes");
	s->ev = ev;
	s->is_raw = false;
	if (ev->raw && raw_scopes(s, (struct ctf_event_class *)ev))
		goto done;
	if (sc->event_context != NULL) {
		s->scope_root[1] = (int)s->evals.len;
		if (ctf_decode(d, sc->event_context, NULL, 0) < 0)
			return derr(s, err, errsize, erroff);
	}
	if (ev->context != NULL) {
		s->scope_root[2] = (int)s->evals.len;
		if (ctf_decode(d, ev->context, NULL, 0) < 0)
			return derr(s, err, errsize, erroff);
	}
	uint64_t payload = d->pos;
	if (ev->fields != NULL) {
		s->scope_root[3] = (int)s->evals.len;
		if (ctf_decode(d, ev->fields, NULL, 0) < 0)
			return derr(s, err, errsize, erroff);
	}
	if (sc->payload_size && s->scope_root[1] >= 0) {
		/* the 2010 RFC's event_size: the payload's bytes, the
		 * padding before it included */
		uint64_t want = s->evals.items[s->scope_root[1] + 1].v.u;
		uint64_t got = (d->pos - payload + 7) / 8;
		if (got != want) {
			char msg[120];
			snprintf(msg, sizeof msg, "event payload of %llu bytes, "
			    "its context says %llu", (unsigned long long)got,
			    (unsigned long long)want);
			return serr(s, err, errsize, erroff, s->ev_off, msg);
		}
	}
done:
	if (d->pos == start)
		return serr(s, err, errsize, erroff, s->ev_off,
		    "event of size zero");
	s->has_ts = sc->clock >= 0 && d->clock_set;
	s->ts = d->clock;
	if (s->has_ts) {
		s->ns = ctf_clock_ns(&s->trace->m->clocks[sc->clock], d->clock);
		/* a full-width timestamp (extended header, packet start)
		 * may go backwards; babeltrace2 stops there, the walk goes
		 * on and counts them */
		if (s->has_prev_ts && d->clock < s->prev_ts &&
		    s->ts_back++ == 0) {
			s->ts_back_off = s->ev_off;
			s->ts_back_from = s->prev_ts;
			s->ts_back_to = d->clock;
		}
		s->prev_ts = d->clock;
		s->has_prev_ts = true;
	}
	return 1;
}

/* --- past damage: the index as a hint, the size chain, the magic --- */

/* What opening a packet changes that the walk carries from packet to
 * packet: kept aside while a packet is tried. */
struct walk_state {
	const struct ctf_stream_class *sc;
	uint64_t pkt_off, packets, disc, disc_prev, seq, seq_prev, clock;
	uint64_t ts_begin, ts_end;
	bool has_disc, has_seq, clock_set, done, has_ts_begin, has_ts_end;
};

static void
walk_save(const struct ctf_stream *s, struct walk_state *w)
{
	*w = (struct walk_state){ s->sc, s->pkt_off, s->packets, s->disc,
	    s->disc_prev, s->seq, s->seq_prev, s->d.clock, s->ts_begin,
	    s->ts_end, s->has_disc, s->has_seq, s->d.clock_set, s->done,
	    s->has_ts_begin, s->has_ts_end };
}

static void
walk_restore(struct ctf_stream *s, const struct walk_state *w)
{
	s->sc = w->sc;
	s->pkt_off = w->pkt_off;
	s->packets = w->packets;
	s->disc = w->disc;
	s->disc_prev = w->disc_prev;
	s->seq = w->seq;
	s->seq_prev = w->seq_prev;
	s->d.clock = w->clock;
	s->ts_begin = w->ts_begin;
	s->ts_end = w->ts_end;
	s->has_disc = w->has_disc;
	s->has_seq = w->has_seq;
	s->d.clock_set = w->clock_set;
	s->done = w->done;
	s->has_ts_begin = w->has_ts_begin;
	s->has_ts_end = w->has_ts_end;
}

/* Does a packet of this stream open at off: a header that decodes, of
 * the stream's class, with sizes that fit? With an index entry x, it
 * must also agree with it (sizes, stream id, first timestamp). A place
 * found by its magic alone must also say so with a magic, carry the
 * trace's uuid when both have one, and not begin before the last sound
 * packet did. Leaves the walk as it was. */
static bool
packet_trial(struct ctf_stream *s, uint64_t off, const struct ctf_index_entry *x,
    bool by_magic)
{
	struct walk_state w;
	walk_save(s, &w);
	s->pkt_off = off;
	s->done = false;
	char err[8];
	uint64_t eoff;
	const struct ctf_dec *d = &s->d;
	const struct ctf_meta *m = s->trace->m;
	s->in_trial = true;
	bool ok = packet_open(s, err, sizeof err, &eoff) == 1;
	s->in_trial = false;
	if (ok && x != NULL)
		ok = s->pkt_size * 8 == x->psize && s->content_end == x->csize &&
		    (!(d->roles_set & (1u << ROLE_STREAM_ID)) ||
		    d->roles[ROLE_STREAM_ID] == x->stream_id) &&
		    (!s->has_ts_begin || s->ts_begin == x->ts_begin);
	if (ok && by_magic)
		ok = (d->roles_set & (1u << ROLE_MAGIC)) &&
		    (!m->has_uuid || d->uuid == NULL ||
		    memcmp(d->uuid, m->uuid, 16) == 0) &&
		    (!w.has_ts_begin || !s->has_ts_begin ||
		    s->ts_begin >= w.ts_begin);
	walk_restore(s, &w);
	return ok;
}

/* Past damage at file offset bad: the first packet of the index after
 * it whose header agrees with its entry, or ix->n. Each entry is tried
 * at most once per damage, and the walk only moves forward. */
static size_t
index_resume(struct ctf_stream *s, uint64_t bad)
{
	struct ctf_index *ix = s->idx;
	for (size_t i = ctf_index_after(ix, bad); i < ix->n; i++)
		if (packet_trial(s, ix->e[i].off, &ix->e[i], false))
			return i;
	return ix->n;
}

/* The packet header's magic as it is in the file, when the header
 * starts with it (the place to look for packets past damage). */
static bool
magic_bytes(const struct ctf_meta *m, uint8_t out[4])
{
	const struct ctf_type *h = m->packet_header;
	if (h == NULL || h->kind != CTF_STRUCT || h->nfields == 0 ||
	    h->fields[0].role != ROLE_MAGIC || h->fields[0].type->size != 32)
		return false;
	bool be = h->fields[0].type->byte_order == CTF_BO_BE;
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(PACKET_MAGIC >> (be ? 24 - 8 * i : 8 * i));
	return true;
}

/* The first place at or after from where the magic starts a sound
 * packet of this stream (packet_trial), or UINT64_MAX. */
static uint64_t
magic_resume(struct ctf_stream *s, uint64_t from)
{
	uint8_t mg[4];
	if (!magic_bytes(s->trace->m, mg))
		return UINT64_MAX;
	for (uint64_t off = from; off < s->size && s->size - off >= 4;) {
		const uint8_t *p = memmem(s->data + off, s->size - off, mg, 4);
		if (p == NULL)
			break;
		off = (uint64_t)(p - s->data);
		if (packet_trial(s, off, NULL, true))
			return off;
		off++;
	}
	return UINT64_MAX;
}

/* Reports the damage (err at erroff) and moves the walk to the packet at
 * `to`, noting what was skipped for that packet's record. */
static void
jump(struct ctf_stream *s, uint64_t to, const char *err, uint64_t erroff,
    uint64_t from, const char *how)
{
	if (s->diag) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s; %llu bytes skipped to %s, at "
		    "offset %llu", err, (unsigned long long)(to - from), how,
		    (unsigned long long)to);
		s->diag(s->diag_arg, true, s->path, (int64_t)erroff, msg);
	}
	s->skip_off = s->skip_bytes ? s->skip_off : from;
	s->skip_bytes = to - s->skip_off;
	s->pkt_off = to;
	s->done = false;
	if (s->idx != NULL)
		s->idx->next = ctf_index_after(s->idx, to - 1);
}

/* Where the walk goes on after damage at file offset bad: the index's
 * next agreeing packet, else `next` when a packet opens there (the size
 * chain: the end of a packet whose header was sound), else the next
 * magic. UINT64_MAX: nowhere (err says why the index gave nothing). */
static uint64_t
resume_at(struct ctf_stream *s, uint64_t bad, uint64_t next,
    const char **how, char *err, size_t errsize)
{
	if (s->idx != NULL) {
		struct ctf_index *ix = s->idx;
		size_t i = index_resume(s, bad);
		if (i < ix->n) {
			*how = "the next packet of the index that agrees with "
			    "its header";
			return ix->e[i].off;
		}
		if (ctf_index_after(ix, bad) < ix->n) {
			size_t l = strlen(err);
			snprintf(err + l, errsize - l, "; no later packet of %s "
			    "agrees with its header", ix->path);
		}
	}
	if (next != UINT64_MAX && next > bad && next < s->size &&
	    packet_trial(s, next, NULL, false)) {
		*how = "the next packet";
		return next;
	}
	uint64_t to = magic_resume(s, bad + 1);
	*how = "the next packet header found";
	return to;
}

/* The walk just opened the packet at s->pkt_off: does the index say the
 * same? Warns once per stream, and the headers are what is used. An
 * index that stops before the stream does is not a disagreement (a
 * partial last entry, a tracer stopped before writing it). */
static void
index_check(struct ctf_stream *s)
{
	struct ctf_index *ix = s->idx;
	if (ix->disagreed || ix->next >= ix->n)
		return;
	const struct ctf_index_entry *x = &ix->e[ix->next];
	char what[200];
	uint64_t at = s->pkt_off;
	if (x->off < s->pkt_off) {
		at = x->off;
		snprintf(what, sizeof what, "it lists a packet there that the "
		    "walk passed over");
	} else if (x->off > s->pkt_off)
		snprintf(what, sizeof what, "a packet it does not list");
	else if (x->psize != s->pkt_size * 8 || x->csize != s->content_end)
		snprintf(what, sizeof what, "packet of %llu bits with %llu of "
		    "content; the index says %llu and %llu",
		    (unsigned long long)(s->pkt_size * 8),
		    (unsigned long long)s->content_end,
		    (unsigned long long)x->psize,
		    (unsigned long long)x->csize);
	else {
		ix->next++;
		return;
	}
	ix->disagreed = true;
	if (ix->diag) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s disagrees with the packet headers "
		    "at offset %llu (%s); packet headers used", ix->path,
		    (unsigned long long)at, what);
		ix->diag(ix->arg, false, s->path, (int64_t)at, msg);
	}
}

int
ctf_packet_open(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff)
{
	int rc = packet_open(s, err, errsize, erroff);
	/* a header that cannot be read may be followed by sound packets:
	 * each damaged one found on the way is said and skipped */
	while (rc < 0) {
		const char *how;
		uint64_t bad = s->pkt_off;
		uint64_t to = resume_at(s, bad, UINT64_MAX, &how, err, errsize);
		if (to == UINT64_MAX)
			return -1;
		jump(s, to, err, *erroff, bad, how);
		rc = packet_open(s, err, errsize, erroff);
	}
	if (rc > 0 && s->idx != NULL)
		index_check(s);
	return rc;
}

int
ctf_event_next(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff)
{
	int rc = event_next(s, err, errsize, erroff);
	if (rc >= 0)
		return rc;
	/* the rest of this packet is lost; the next one may not be */
	const char *how;
	uint64_t to = resume_at(s, s->ev_off, s->pkt_off + s->pkt_size, &how,
	    err, errsize);
	if (to == UINT64_MAX)
		return -1;
	jump(s, to, err, *erroff, *erroff, how);
	return 0;
}

void
ctf_stream_end(struct ctf_stream *s)
{
	if (s->ts_back == 0 || s->diag == NULL)
		return;
	char msg[300];
	snprintf(msg, sizeof msg, "timestamps go backwards at %llu event%s of "
	    "this stream, the first here (clock value %llu after %llu); events "
	    "are kept in the stream's order", (unsigned long long)s->ts_back,
	    s->ts_back == 1 ? "" : "s", (unsigned long long)s->ts_back_to,
	    (unsigned long long)s->ts_back_from);
	s->diag(s->diag_arg, false, s->path, (int64_t)s->ts_back_off, msg);
	s->ts_back = 0;
}
