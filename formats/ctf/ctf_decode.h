/*
 * Decoding CTF binary data from a resolved layout (ctf_meta.h): the bit
 * reader, the value tree of one event, packets walked from their headers
 * in one stream file, and several traces' streams merged in time order.
 */
#ifndef TTV_CTF_DECODE_H
#define TTV_CTF_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_ids.h"
#include "ctf_meta.h"

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

/* --- metadata files --- */

/* Gets the TSDL text of a metadata file, plain or packetized (*text is
 * malloc'd). Returns 0, or -1 with a message and *erroff = the offset. */
int ctf_metadata_text(const unsigned char *data, size_t size, char **text,
    size_t *len, uint8_t uuid[16], bool *packetized, char *err,
    size_t errsize, uint64_t *erroff);
/* Are the packets of packetized metadata big-endian? */
bool ctf_metadata_be(const unsigned char *data, size_t size);
/* Does this look like a metadata file? */
bool ctf_metadata_probe(const unsigned char *head, size_t len);

/* --- packets of one stream file --- */

/* A message about a file: an error (damage) or a warning, at a file
 * offset (-1: none). */
typedef void (*ctf_diag_fn)(void *arg, bool error, const char *file,
    int64_t offset, const char *msg);

struct ctf_trace;

struct ctf_stream {
	struct ctf_trace *trace;
	char *path;		/* relative to the directory opened */
	const uint8_t *data;
	size_t size;
	int index;		/* in the reader, for tie-breaking */

	/* the current packet */
	uint64_t pkt_off;	/* bytes */
	uint64_t pkt_size;	/* bytes */
	uint64_t content_end;	/* bits from the packet start */
	/* no event starts at or past this: content_end, or for sizes in
	 * bytes (the 2010 RFC) its last byte's first bit + 1, the bits of
	 * the last byte after an event being padding */
	uint64_t events_end;
	const struct ctf_stream_class *sc;
	ctf_vals pvals;		/* packet context values */
	int pctx_root;		/* index in pvals, or -1 */
	bool has_ts_begin, has_ts_end;
	uint64_t ts_begin, ts_end;	/* cycles */
	uint64_t cpu_id;
	bool has_cpu_id;
	uint64_t packets;	/* packets seen */
	bool has_disc;
	uint64_t disc, disc_prev;	/* events_discarded snapshots */
	uint32_t disc_bits;
	bool has_seq;
	uint64_t seq, seq_prev;

	/* the current event */
	struct ctf_dec d;
	ctf_vals evals;
	int scope_root[4];	/* header, stream ctx, event ctx, fields */
	const struct ctf_event_class *ev;
	uint64_t ts;		/* cycles */
	int64_t ns;		/* from the clock's origin */
	bool has_ts;
	/* an event of a class marked raw whose scopes are all fixed: no
	 * values (scope_root all -1); raw[k] is where scope k (1 stream
	 * event context, 2 event context, 3 fields) starts, or NULL */
	bool is_raw;
	const uint8_t *raw[4];
	uint64_t ev_off;	/* file offset of the event */
	bool done;
	/* LTTng's packet index of this file, or NULL (ctf_index.h): a hint
	 * to resume past a damaged packet and a cross-check of the walk */
	struct ctf_index *idx;
	/* where the walk's messages about this stream go (may be NULL):
	 * a resumption past damage, timestamps that went backwards */
	ctf_diag_fn diag;
	void *diag_arg;
	/* bytes skipped past damage since the last packet opened, from
	 * file offset skip_off: the next packet's record says so */
	uint64_t skip_off, skip_bytes;
	/* the last event's timestamp (cycles), and the events whose
	 * timestamp was earlier than the one before them: how many, the
	 * first's offset and its times */
	uint64_t prev_ts;
	bool has_prev_ts;
	uint64_t ts_back, ts_back_off, ts_back_from, ts_back_to;
	/* the stream class was given by the file's name (the 2010 RFC's
	 * sections), not by its packets */
	bool sc_fixed;
	/* a packet is being tried as a place to resume: its header need
	 * only be sound (a packet the layout cannot read, compressed say,
	 * is then reported and skipped in turn) */
	bool in_trial;
};

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

enum ctf_item_kind { CTF_ITEM_PACKET, CTF_ITEM_EVENT };

/* Opens the packet at s->pkt_off. 1: ready, 0: end of file, -1: error
 * (message in err, offset in *erroff). */
int ctf_packet_open(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff);
/* Works out once what ctf_event_next would on an event class's first
 * event, so that streams of one class can be decoded on several threads
 * without writing to the class. */
void ctf_event_prepare(const struct ctf_stream_class *sc,
    struct ctf_event_class *ev);
/* The same for every event class of sc, and what raw runs look up by
 * event id (raw_adv, has_raw): after the reader has marked its raw
 * classes, before decoding starts. */
void ctf_stream_prepare(struct ctf_meta *m, struct ctf_stream_class *sc);
/* Runs of raw events, decoded in one loop: ctf_fast.h. */
/* Decodes the next event of the packet. 1: an event, 0: end of the
 * packet, -1: error. */
int ctf_event_next(struct ctf_stream *s, char *err, size_t errsize,
    uint64_t *erroff);
/* Damage does not end a stream: where a packet header or an event
 * cannot be read, the error goes to s->diag with how far the walk
 * skipped (ctf_packet_open and ctf_event_next then go on from there),
 * to the next packet that LTTng's index names and whose header agrees
 * with it, else the packet after the damaged one (by its size), else the
 * next place holding a sound packet header (by its magic). Only when
 * none is found do they return -1 (the stream ends there). */
/* Says what is left to say when the stream has ended: timestamps that
 * went backwards (a warning through s->diag). */
void ctf_stream_end(struct ctf_stream *s);

/* --- traces under a directory, merged --- */

struct ctf_trace {
	char *dir;		/* relative to the path opened ("" for itself) */
	char *metadata_path;
	struct ctf_meta *m;
	const char *hostname;
	int index;
};

/* A packet as the items decoded in it see it: the stream's live packet
 * state belongs to whichever thread is decoding ahead. */
struct ctf_packet_info {
	uint64_t off;		/* file offset of the packet */
	const struct ctf_val *vals;	/* its context's values, or NULL */
	int root;		/* index of the context in vals, or -1 */
	uint64_t cpu_id;
	bool has_cpu_id;
	/* losses found when the packet opened */
	uint64_t discarded;	/* events discarded since the last packet */
	uint64_t lost_packets;
	/* damaged bytes skipped to reach it, from file offset skipped_off */
	uint64_t skipped_off, skipped_bytes;
};

/* One item of the merged walk: a packet start or an event, complete in
 * itself (streams are decoded ahead, on other threads when the trace is
 * large), valid until the next call of ctf_reader_next. */
struct ctf_item {
	enum ctf_item_kind kind;
	bool has_ts;
	bool is_raw;		/* an event of a class marked raw */
	uint8_t mark;		/* the raw hook's */
	int64_t ns;
	struct ctf_stream *s;	/* its stream: path, index and trace only */
	const struct ctf_packet_info *pkt;
	const struct ctf_event_class *ev;	/* events */
	union {
		/* raw events: the integers of the class's pick (0 for
		 * an unused pick) */
		uint64_t picked[CTF_PICK_MAX];
		/* other events: the values of scope k start at
		 * vals[scope_root[k]] (-1: absent) */
		struct {
			const struct ctf_val *vals;
			int32_t scope_root[4];
		} v;
	} u;
};

struct ctf_reader;

typedef void (*ctf_diag_fn)(void *arg, bool error, const char *file,
    int64_t offset, const char *msg);

/* Entries looked at so far while looking for traces (total is 0). */
typedef void (*ctf_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Opens a directory (every trace below it, see ctf_dir.h) or a metadata
 * file. Metadata problems, and files not read, are reported through diag;
 * returns NULL if no trace could be opened (and says why through diag).
 * progress may be NULL. */
struct ctf_reader *ctf_reader_open(const char *path, ctf_diag_fn diag,
    void *arg, ctf_progress_fn progress, void *progress_arg);
void ctf_reader_free(struct ctf_reader *r);
/* Stops the workers (they finish the batch they are filling): nothing is
 * decoded, nor the raw hook called, after it returns. */
void ctf_reader_stop(struct ctf_reader *r);
/* Is there a trace (a `metadata` file) in this directory or below? */
bool ctf_dir_has_trace(const char *path);
/* What the reader's user makes of raw events (ctf_item.u.picked) or a
 * packet start, on the thread that decoded them, before they are handed
 * over: work taken off the merging thread. It runs on several threads at
 * once (scratch is the calling thread's own, scratch_size zeroed bytes;
 * the events of one stream always on one thread at a time, in order).
 * Given n items of one stream, it may rewrite their picked and mark, and
 * keeps at the front, in order, the ones that go on into the walk (the
 * others it has taken): it returns how many. It is called with n 0 when
 * a thread ends a batch: what it wrote may be read elsewhere from then
 * on. */
typedef size_t (*ctf_raw_hook)(void *arg, void *scratch,
    struct ctf_item *items, size_t n);
/* Before ctf_reader_start. */
void ctf_reader_set_raw_hook(struct ctf_reader *r, ctf_raw_hook fn,
    void *arg, size_t scratch_size);
/* The hook's work on runs of raw events done in the decoding loop itself
 * (ctf_fast.h's ctf_run_raw_each with the hook's step): given the hook's
 * arg and scratch, it decodes from stream s and keeps at most max items
 * in out, returning how many, with the events decoded in *decoded (0:
 * ctf_event_next is the one to call). Without it, raw events are decoded
 * one at a time; the hook sees those, and packets, either way. Before
 * ctf_reader_start. */
typedef size_t (*ctf_raw_run)(void *arg, void *scratch,
    struct ctf_stream *s, const struct ctf_packet_info *pkt,
    struct ctf_item *out, size_t max, size_t *decoded);
void ctf_reader_set_raw_run(struct ctf_reader *r, ctf_raw_run fn);
/* The caller does little with each item (or the hook takes most): as
 * many decoding threads as cores, not one fewer. Before ctf_reader_start. */
void ctf_reader_light_walk(struct ctf_reader *r);
/* Sets the workers that decode streams ahead going: call once, after the
 * event classes' raw flags are set and before the first item; the first
 * ctf_reader_next calls it if nobody did. Traces smaller than
 * TTV_CTF_PIPE_MIN bytes (default 16 MiB), or a machine with one core,
 * are decoded on the calling thread alone. TTV_CTF_BATCH sets how many
 * items a batch holds (tests use it to cross many batch boundaries). */
void ctf_reader_start(struct ctf_reader *r);
/* The next item in time order; NULL at the end. Errors in a stream are
 * reported through diag (on the calling thread, where the walk meets
 * them) and end that stream. */
const struct ctf_item *ctf_reader_next(struct ctf_reader *r);
size_t ctf_reader_ntraces(const struct ctf_reader *r);
struct ctf_trace *ctf_reader_trace(const struct ctf_reader *r, size_t i);
size_t ctf_reader_nstreams(const struct ctf_reader *r);
uint64_t ctf_reader_bytes_total(const struct ctf_reader *r);
uint64_t ctf_reader_bytes_done(const struct ctf_reader *r);

#endif
