/*
 * The live client's insides, shared by its two halves: live_client.c
 * (the connection, the attach, the reconnections, the session list) and
 * live_fetch.c (the fetch: indexes, packets, metadata, new streams). Not
 * for use outside formats/live/.
 */
#ifndef TTV_LIVE_CLIENT_INT_H
#define TTV_LIVE_CLIENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live.h"
#include "live_mirror.h"

/* What a step of the conversation came to. */
enum step { STEP_OK, STEP_RESTART, STEP_FAIL };

enum sstate { S_ACTIVE, S_CAUGHT_UP, S_ENDED };

struct lstream {
	uint64_t id;
	int trace;		/* the mirror's trace slot */
	int mstream;		/* the mirror's stream slot, -1: metadata */
	enum sstate state;
	uint64_t fetched;	/* packets in this fetch */
	bool has_last;		/* the last packet mirrored: its times */
	uint64_t last_begin, last_end;
	/* INACTIVE's beacon, the latest: the stream has nothing before it
	 * (in its clock's cycles) */
	bool has_beacon;
	uint64_t beacon;
	bool skip;		/* attached again: skip what is mirrored */
	bool pending;		/* an index whose packet is still to come */
	struct live_index pend;
};

struct ltrace {
	bool has_meta;		/* its metadata stream is known */
	uint64_t meta_stream;
	bool need_meta;
	bool meta_closed;	/* the relay answered METADATA_ERR */
	uint64_t skip_bytes;	/* metadata the relay sends again */
};

struct live_diag {
	bool error;
	char *text;
};

struct live_client {
	struct live_url url;
	struct live_options o;
	struct live_io io;
	struct live_sock *sock;
	struct live_mirror *m;
	uint64_t *sessions;
	size_t nsessions;
	uint32_t live_timer_us;
	struct lstream *streams;
	size_t nstreams;
	struct ltrace *traces;
	size_t ntraces;
	uint64_t messages;	/* the relay's replies so far */
	int lost;		/* reconnections since the last packet */
	int64_t quiet_at;	/* from then on, a RETRY means no data */
	uint64_t generation;
	uint64_t beacon_moves;	/* a quiet stream's beacon went forward */
	bool ended, need_streams, detached;
	enum live_cmd cmd;	/* the command being answered */
	struct live_diag *diags;
	size_t ndiags;
	uint8_t *buf;
	size_t bufsize;
};

/* Monotonic milliseconds, and a pause that signals do not cut short. */
int64_t live_now_ms(void);
void live_sleep_ms(int ms);

/* What the client has to say: damage ("message N: what", the reply it
 * is about; returns STEP_FAIL), a notice (said at once when the caller
 * listens, else kept as a warning), a diagnostic of its own. */
enum step live_fail(struct live_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void live_notice(struct live_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void live_add_diag(struct live_client *c, bool error, char *text);
/* Tells the caller the mirror changed. */
void live_news(struct live_client *c);
/* The client's reply buffer, at least len bytes. */
uint8_t *live_buffer(struct live_client *c, size_t len);

/* A command and its request; a reply's fixed part (a new message) or,
 * with more, what follows it in the same message. */
enum live_io_status live_request(struct live_client *c, enum live_cmd cmd,
    const uint8_t *req, size_t len);
enum live_io_status live_reply(struct live_client *c, void *buf, size_t len,
    bool more);
/* The n streams following an ATTACH_SESSION or GET_NEW_STREAMS reply. */
enum live_io_status live_read_streams(struct live_client *c, uint32_t n,
    char **err);
/* What a failed request or reply comes to: a reconnection (STEP_RESTART)
 * or a failure. */
enum step live_reconnect(struct live_client *c, enum live_io_status why);
/* The quiet time, and the pause between two rounds that brought
 * nothing. */
int live_quiet_ms(const struct live_client *c);
int live_pause_ms(const struct live_client *c);

#endif
