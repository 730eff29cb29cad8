/*
 * The data streams of CTF traces (ctf_packets.c): a stream file walked
 * packet by packet from what each packet header and context say, then
 * event by event within a packet's content, past damage; the trace a
 * stream belongs to; and the items a stream's walk gives (a packet start
 * or an event, complete in itself), which the merge of all streams hands
 * out in time order (ctf_merge.h).
 */
#ifndef TTV_CTF_PACKETS_H
#define TTV_CTF_PACKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf_decode.h"

struct ctf_trace;

/* One data stream file and the state of its walk. */
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

/* A trace: a directory holding a metadata file and its data streams. */
struct ctf_trace {
	char *dir;		/* relative to the path opened ("" for itself) */
	char *metadata_path;
	struct ctf_meta *m;
	const char *hostname;
	int index;
	/* the metadata file as it was read, and how many of the
	 * directory's files were not read: a reader that goes on reads
	 * again from the start when either changes (ctf_reader_grow) */
	uint64_t meta_size, meta_dev, meta_ino, meta_hash;
	int64_t meta_mtime_ns;
	size_t nskipped;
	/* the metadata before it grew: what was decoded with it, held or
	 * in a packet still open, points into it */
	struct ctf_meta **old_m;
	size_t nold_m;
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

enum ctf_item_kind { CTF_ITEM_PACKET, CTF_ITEM_EVENT };

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

#endif
