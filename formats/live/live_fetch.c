/*
 * The live client's fetch (live.h): each stream asked for its next
 * packet, written into the mirror, with the metadata it needs and the
 * streams that appear.
 *
 * How each answer is taken (lttng-tools 2.13's relay, as babeltrace2's
 * client takes them):
 *   GET_NEXT_INDEX  OK: the packet is fetched (after the metadata, when
 *                   the reply says there is new metadata); RETRY: no
 *                   packet yet, the stream has caught up once it gave
 *                   data in this fetch or a quiet time went by;
 *                   INACTIVE: a quiet stream (a beacon): caught up; HUP
 *                   or EOF: the stream is over; ERR: over, said.
 *   NEW_STREAM flag asks for GET_NEW_STREAMS, whose HUP (no stream left
 *                   with data, the session closed) ends the session.
 *   GET_METADATA    read until NO_NEW; an OK of 0 bytes is asked again
 *                   (a relay does so after `lttng clear`).
 *   GET_PACKET      OK with exactly the bytes asked; ERR with a flag:
 *                   new metadata or streams first, then again; RETRY:
 *                   again later; EOF: the stream is over.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "live_client_int.h"

/* All new metadata of a trace. */
static enum step
fetch_metadata(struct live_client *c, int trace)
{
	struct ltrace *t = &c->traces[trace];
	uint8_t req[8], rep[LIVE_METADATA_REPLY];
	int empty = 0;

	if (!t->has_meta || t->meta_closed) {
		t->need_meta = false;
		return STEP_OK;
	}
	for (;;) {
		live_put64(req, t->meta_stream);
		enum live_io_status s;
		if ((s = live_request(c, LIVE_CMD_GET_METADATA, req, sizeof req)) !=
		    LIVE_IO_OK || (s = live_reply(c, rep, sizeof rep, false)) !=
		    LIVE_IO_OK)
			return live_reconnect(c, s);
		uint64_t len = live_be64(rep);
		uint32_t status = live_be32(rep + 8);
		if (status == LIVE_METADATA_NO_NEW)
			break;
		if (status == LIVE_METADATA_ERR) {
			/* The stream is gone (a process's buffers, ended):
			 * what was sent stays. */
			t->meta_closed = true;
			break;
		}
		if (status != LIVE_METADATA_OK)
			return live_fail(c, "unknown GET_METADATA status %u",
			    status);
		if (len == 0) {
			/* Asked again, a bounded number of times. */
			if (++empty > 100)
				return live_fail(c, "GET_METADATA answered OK with "
				    "no bytes 100 times");
			continue;
		}
		uint64_t have = live_mirror_metadata_size(c->m, trace);
		if (len > LIVE_MAX_METADATA_REPLY || have + len >
		    LIVE_MAX_METADATA + t->skip_bytes)
			return live_fail(c, "metadata of %llu bytes over the limit "
			    "of %u MiB", (unsigned long long)(have + len),
			    len > LIVE_MAX_METADATA_REPLY ?
			    LIVE_MAX_METADATA_REPLY >> 20 :
			    LIVE_MAX_METADATA >> 20);
		uint8_t *buf = live_buffer(c, (size_t)len);
		if ((s = live_reply(c, buf, (size_t)len, true)) != LIVE_IO_OK)
			return live_reconnect(c, s);
		size_t skip = t->skip_bytes < len ? (size_t)t->skip_bytes :
		    (size_t)len;
		t->skip_bytes -= skip;
		char *err = NULL;
		if (len > skip && live_mirror_metadata(c->m, trace,
		    buf + skip, (size_t)len - skip, &err) != 0) {
			live_add_diag(c, true, err);
			return STEP_FAIL;
		}
		c->generation++;
	}
	t->need_meta = false;
	return STEP_OK;
}

static enum step
fetch_all_metadata(struct live_client *c)
{
	for (size_t i = 0; i < c->ntraces; i++)
		if (c->traces[i].need_meta) {
			enum step r = fetch_metadata(c, (int)i);
			if (r != STEP_OK)
				return r;
		}
	return STEP_OK;
}

/* GET_NEW_STREAMS of every relay session; all of them HUP: the session
 * is over. */
static enum step
new_streams(struct live_client *c)
{
	size_t hup = 0;
	c->need_streams = false;
	for (size_t i = 0; i < c->nsessions; i++) {
		uint8_t req[8], rep[LIVE_NEW_STREAMS_REPLY];
		enum live_io_status s;
		live_put64(req, c->sessions[i]);
		if ((s = live_request(c, LIVE_CMD_GET_NEW_STREAMS, req,
		    sizeof req)) != LIVE_IO_OK ||
		    (s = live_reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
			return live_reconnect(c, s);
		uint32_t status = live_be32(rep), n = live_be32(rep + 4);
		switch (status) {
		case LIVE_NEW_STREAMS_OK: {
			char *err = NULL;
			if ((s = live_read_streams(c, n, &err)) == LIVE_IO_OK)
				break;
			if (s == LIVE_IO_ERROR) {
				enum step r = live_fail(c, "%s", err);
				free(err);
				return r;
			}
			free(err);
			return live_reconnect(c, s);
		}
		case LIVE_NEW_STREAMS_NO_NEW:
			break;
		case LIVE_NEW_STREAMS_HUP:
			hup++;
			break;
		case LIVE_NEW_STREAMS_ERR:
			return live_fail(c, "the relay failed to list new streams "
			    "(GET_NEW_STREAMS: ERR)");
		default:
			return live_fail(c, "unknown GET_NEW_STREAMS status %u",
			    status);
		}
	}
	if (hup == c->nsessions && hup > 0 && !c->ended) {
		c->ended = true;
		live_notice(c, "session ended");
		for (size_t i = 0; i < c->nstreams; i++)
			c->streams[i].state = S_ENDED;
	}
	return fetch_all_metadata(c);
}

/* Already mirrored (attached again from the beginning)? */
static bool
mirrored(const struct lstream *st, const struct live_index *ix)
{
	return st->has_last && (ix->ts_end < st->last_end ||
	    (ix->ts_end == st->last_end && ix->ts_begin <= st->last_begin));
}

/* The packet of an index: 1 fetched, 0 to ask again later. */
static enum step
fetch_packet(struct live_client *c, struct lstream *st, bool quiet, int *got)
{
	struct live_index *ix = &st->pend;
	uint64_t len = ix->packet_size / 8;
	uint8_t req[LIVE_GET_PACKET_REQUEST], rep[LIVE_PACKET_REPLY];
	enum live_io_status s;

	*got = 0;
	live_put64(req, st->id);
	live_put64(req + 8, ix->offset);
	live_put32(req + 16, (uint32_t)len);
	if ((s = live_request(c, LIVE_CMD_GET_PACKET, req, sizeof req)) !=
	    LIVE_IO_OK || (s = live_reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
		return live_reconnect(c, s);
	uint32_t status = live_be32(rep), rlen = live_be32(rep + 4),
	    flags = live_be32(rep + 8);
	switch (status) {
	case LIVE_PACKET_OK:
		break;
	case LIVE_PACKET_RETRY:
		/* Asked again in the next fetch, once quiet. */
		if (st->fetched > 0 || quiet)
			st->state = S_CAUGHT_UP;
		return STEP_OK;
	case LIVE_PACKET_EOF:
		st->state = S_ENDED;
		st->pending = false;
		return STEP_OK;
	case LIVE_PACKET_ERR:
		if (flags & LIVE_FLAG_NEW_STREAM)
			c->need_streams = true;
		if (flags & LIVE_FLAG_NEW_METADATA)
			c->traces[st->trace].need_meta = true;
		if (flags & (LIVE_FLAG_NEW_STREAM | LIVE_FLAG_NEW_METADATA))
			return STEP_OK;
		return live_fail(c, "the relay could not send the packet at offset "
		    "%llu of stream %llu (GET_PACKET: ERR)",
		    (unsigned long long)ix->offset, (unsigned long long)st->id);
	default:
		return live_fail(c, "unknown GET_PACKET status %u", status);
	}
	if (rlen != len)
		return live_fail(c, "GET_PACKET: %u bytes where %llu were asked",
		    rlen, (unsigned long long)len);
	uint8_t *buf = live_buffer(c, (size_t)len);
	if ((s = live_reply(c, buf, (size_t)len, true)) != LIVE_IO_OK)
		return live_reconnect(c, s);
	char *err = NULL;
	if (live_mirror_packet(c->m, st->mstream, buf, (size_t)len, ix,
	    &err) != 0) {
		live_add_diag(c, true, err);
		return STEP_FAIL;
	}
	st->has_last = true;
	st->last_begin = ix->ts_begin;
	st->last_end = ix->ts_end;
	st->pending = false;
	st->fetched++;
	c->generation++;
	c->lost = 0;
	*got = 1;
	return STEP_OK;
}

/* One stream, one step: its next index and packet. *got: a packet. */
static enum step
step_stream(struct live_client *c, struct lstream *st, bool quiet,
    int *got)
{
	uint8_t req[8], rep[LIVE_INDEX_SIZE];
	char why[256];
	enum live_io_status s;

	*got = 0;
	if (st->pending)
		return fetch_packet(c, st, quiet, got);
	live_put64(req, st->id);
	if ((s = live_request(c, LIVE_CMD_GET_NEXT_INDEX, req, sizeof req)) !=
	    LIVE_IO_OK || (s = live_reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
		return live_reconnect(c, s);
	if (live_wire_index(rep, &st->pend, why, sizeof why) != 0)
		return live_fail(c, "GET_NEXT_INDEX of stream %llu: %s",
		    (unsigned long long)st->id, why);
	const struct live_index *ix = &st->pend;
	if (ix->flags & LIVE_FLAG_NEW_STREAM)
		c->need_streams = true;
	switch (ix->status) {
	case LIVE_INDEX_OK:
		if (ix->flags & LIVE_FLAG_NEW_METADATA) {
			enum step r = fetch_metadata(c, st->trace);
			if (r != STEP_OK)
				return r;
		}
		if (st->skip && mirrored(st, ix))
			return STEP_OK;
		st->skip = false;
		st->pending = true;
		return fetch_packet(c, st, quiet, got);
	case LIVE_INDEX_RETRY:
		if (st->fetched > 0 || quiet)
			st->state = S_CAUGHT_UP;
		return STEP_OK;
	case LIVE_INDEX_INACTIVE:
		/* the beacon: what the stream will write comes after it,
		 * so the time merge need not wait for it up to there */
		if (!st->has_beacon || ix->ts_end > st->beacon) {
			st->beacon = ix->ts_end;
			c->beacon_moves++;
		}
		st->has_beacon = true;
		st->state = S_CAUGHT_UP;
		return STEP_OK;
	case LIVE_INDEX_HUP:
	case LIVE_INDEX_EOF:
		st->state = S_ENDED;
		return STEP_OK;
	case LIVE_INDEX_ERR:
		live_notice(c, "the relay failed to give stream %llu's next "
		    "packet (GET_NEXT_INDEX: ERR); the stream is left out",
		    (unsigned long long)st->id);
		st->state = S_ENDED;
		return STEP_OK;
	default:
		return live_fail(c, "unknown GET_NEXT_INDEX status %u of stream "
		    "%llu", ix->status, (unsigned long long)st->id);
	}
}

int
live_client_fetch(struct live_client *c)
{
	int64_t start = live_now_ms();
	uint64_t bytes0 = live_mirror_bytes(c->m), gen0 = c->generation;
	bool checked_streams = false;
	enum step r = STEP_OK;

	c->quiet_at = start + live_quiet_ms(c);
	for (size_t i = 0; i < c->nstreams; i++) {
		c->streams[i].fetched = 0;
		if (c->streams[i].state == S_CAUGHT_UP)
			c->streams[i].state = S_ACTIVE;
	}
	while (!c->ended) {
		if (r == STEP_FAIL)
			break;
		if (live_mirror_bytes(c->m) - bytes0 >
		    LIVE_MAX_SNAPSHOT_BYTES || live_now_ms() - start >
		    (int64_t)LIVE_MAX_SNAPSHOT_SECONDS * 1000) {
			live_notice(c, "the relay had more to send than ttv reads at "
			    "once (%llu MB in %lld s): what was read is shown",
			    (unsigned long long)((live_mirror_bytes(c->m) -
			    bytes0) / 1000000), (long long)((live_now_ms() - start) /
			    1000));
			break;
		}
		r = fetch_all_metadata(c);
		if (r == STEP_OK && c->need_streams)
			r = new_streams(c);
		if (r == STEP_FAIL)
			break;
		if (r == STEP_RESTART) {
			r = STEP_OK;
			continue;
		}
		bool quiet = live_now_ms() >= c->quiet_at, active = false;
		int progress = 0;
		for (size_t i = 0; i < c->nstreams && r == STEP_OK; i++) {
			struct lstream *st = &c->streams[i];
			if (st->state != S_ACTIVE)
				continue;
			int got = 0;
			r = step_stream(c, &c->streams[i], quiet, &got);
			progress += got;
			if (c->streams[i].state == S_ACTIVE)
				active = true;
		}
		if (r == STEP_RESTART) {
			r = STEP_OK;
			continue;
		}
		if (r == STEP_FAIL)
			break;
		if (progress > 0) {
			live_news(c);
			continue;
		}
		if (!active) {
			/* Every stream has caught up: the streams that
			 * appeared meanwhile are asked for (and whether the
			 * session is over), once. */
			if (!checked_streams || c->need_streams) {
				checked_streams = true;
				r = new_streams(c);
				if (r == STEP_FAIL)
					break;
				r = STEP_OK;
				continue;
			}
			/* Nothing to read at all yet: wait for the quiet
			 * time, asking again for streams. */
			if (!live_mirror_has_data(c->m) && !quiet) {
				live_sleep_ms(live_pause_ms(c));
				checked_streams = false;
				continue;
			}
			break;
		}
		live_sleep_ms(live_pause_ms(c));
	}
	if (r != STEP_FAIL && (r = fetch_all_metadata(c)) == STEP_RESTART)
		r = STEP_OK;
	/* A reply that made no sense leaves the conversation out of step,
	 * and a relay that stopped answering would make the goodbye wait
	 * too. */
	if (r == STEP_FAIL)
		c->detached = true;
	if (c->generation != gen0 || c->ended)
		live_news(c);
	return r == STEP_FAIL ? -1 : 0;
}

