/*
 * The live client (live.h): one connection to a relay, the relay
 * sessions of one URL attached to, their streams, and the fetch that
 * asks each stream for its next packet and writes it into the mirror.
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
 * The relay closing the connection is followed by LIVE_RECONNECTS
 * reconnections; each attaches again from the beginning and skips what
 * the mirror has (packets by their times, metadata by its length).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env.h"
#include "live.h"
#include "live_mirror.h"
#include "xalloc.h"

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

struct diag {
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
	bool ended, need_streams, detached;
	enum live_cmd cmd;	/* the command being answered */
	struct diag *diags;
	size_t ndiags;
	uint8_t *buf;
	size_t bufsize;
};

static int64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void
add_diag(struct live_client *c, bool error, char *text)
{
	c->diags = xreallocarray(c->diags, c->ndiags + 1, sizeof *c->diags);
	c->diags[c->ndiags++] = (struct diag){ error, text };
}

/* Damage or a failure: "message N: what" (N: the reply it is about). */
__attribute__((format(printf, 2, 3)))
static enum step
fail(struct live_client *c, const char *fmt, ...)
{
	va_list ap;
	char what[512];
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	add_diag(c, true, xasprintf("message %llu: %s",
	    (unsigned long long)c->messages, what));
	return STEP_FAIL;
}

/* A notice: said at once when the caller listens, else kept as a
 * warning. */
__attribute__((format(printf, 2, 3)))
static void
notice(struct live_client *c, const char *fmt, ...)
{
	va_list ap;
	char *text;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (text == NULL)
		return;
	if (c->o.notice != NULL) {
		c->o.notice(c->o.notice_arg, text);
		free(text);
	} else {
		add_diag(c, false, text);
	}
}

static void
news(struct live_client *c)
{
	if (c->o.news == NULL)
		return;
	struct live_news n = {
		.generation = c->generation,
		.bytes = live_mirror_bytes(c->m),
		.ended = c->ended,
	};
	c->o.news(c->o.news_arg, &n);
}

static uint8_t *
buffer(struct live_client *c, size_t len)
{
	if (len > c->bufsize) {
		free(c->buf);
		c->buf = xmalloc(len);
		c->bufsize = len;
	}
	return c->buf;
}

/* --- the conversation, one request and one reply at a time --- */

static const char *
io_why(enum live_io_status s)
{
	return s == LIVE_IO_CLOSED ? "the relay closed the connection" :
	    s == LIVE_IO_TIMEOUT ? "no answer from the relay" :
	    "the connection failed";
}

/* Sends a command and its request. */
static enum live_io_status
request(struct live_client *c, enum live_cmd cmd, const uint8_t *req,
    size_t len)
{
	uint8_t msg[LIVE_CMD_HEADER + 32];
	live_wire_cmd(msg, cmd, len);
	if (len > 0)
		memcpy(msg + LIVE_CMD_HEADER, req, len);
	c->cmd = cmd;
	return c->io.send(c->io.arg, msg, LIVE_CMD_HEADER + len);
}

/* Receives a reply's fixed part (a new message) or, with more, what
 * follows it in the same message. */
static enum live_io_status
reply(struct live_client *c, void *buf, size_t len, bool more)
{
	if (!more)
		c->messages++;
	return len == 0 ? LIVE_IO_OK : c->io.recv(c->io.arg, buf, len);
}

static int
timeout_ms(const struct live_client *c)
{
	return c->o.timeout_ms;
}

/* The connection handshake, a viewer session, the relay sessions of the
 * URL (their ids into c->sessions): 0, or -1 with *err. */
static enum live_io_status
hello(struct live_client *c, char **err)
{
	uint8_t req[LIVE_CONNECT_SIZE] = { 0 }, rep[LIVE_CONNECT_SIZE];
	live_put64(req, UINT64_MAX);
	live_put32(req + 8, LIVE_MAJOR);
	live_put32(req + 12, LIVE_MINOR);
	live_put32(req + 16, LIVE_CONNECT_COMMAND);
	enum live_io_status s = c->io.connect(c->io.arg, err);
	if (s != LIVE_IO_OK)
		return s;
	if ((s = request(c, LIVE_CMD_CONNECT, req, sizeof req)) != LIVE_IO_OK ||
	    (s = reply(c, rep, sizeof rep, false)) != LIVE_IO_OK) {
		*err = xasprintf("message %llu: %s (CONNECT)",
		    (unsigned long long)c->messages, io_why(s));
		return s;
	}
	uint32_t major = live_be32(rep + 8), minor = live_be32(rep + 12);
	if (major != LIVE_MAJOR) {
		*err = xasprintf("message %llu: the relay speaks the live "
		    "protocol %u.%u, ttv %u.%u", (unsigned long long)c->messages,
		    major, minor, LIVE_MAJOR, LIVE_MINOR);
		return LIVE_IO_ERROR;
	}
	return LIVE_IO_OK;
}

/* Reads a LIST_SESSIONS reply into *out (NULL: matched against the URL
 * into c->sessions). */
static enum live_io_status
list_sessions(struct live_client *c, struct live_session_info **out,
    size_t *nout, char **err)
{
	uint8_t head[LIVE_LIST_HEADER], rec[LIVE_SESSION_SIZE];
	char why[256];
	enum live_io_status s;

	if ((s = request(c, LIVE_CMD_LIST_SESSIONS, NULL, 0)) != LIVE_IO_OK ||
	    (s = reply(c, head, sizeof head, false)) != LIVE_IO_OK) {
		*err = xasprintf("message %llu: %s (LIST_SESSIONS)",
		    (unsigned long long)c->messages, io_why(s));
		return s;
	}
	uint32_t n = live_be32(head);
	if (n > LIVE_MAX_SESSIONS) {
		*err = xasprintf("message %llu: %u sessions listed, over the "
		    "limit of %u", (unsigned long long)c->messages, n,
		    LIVE_MAX_SESSIONS);
		return LIVE_IO_ERROR;
	}
	c->nsessions = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct live_session_info si;
		if ((s = reply(c, rec, sizeof rec, true)) != LIVE_IO_OK) {
			*err = xasprintf("message %llu: %s (session %u of %u "
			    "listed)", (unsigned long long)c->messages,
			    io_why(s), i + 1, n);
			return s;
		}
		if (live_wire_session(rec, &si, why, sizeof why) != 0) {
			*err = xasprintf("message %llu: session %u of %u: %s",
			    (unsigned long long)c->messages, i + 1, n, why);
			return LIVE_IO_ERROR;
		}
		if (out != NULL) {
			*out = xreallocarray(*out, *nout + 1, sizeof **out);
			(*out)[(*nout)++] = si;
		} else if (strcmp(si.hostname, c->url.hostname) == 0 &&
		    strcmp(si.name, c->url.session) == 0) {
			c->sessions = xreallocarray(c->sessions,
			    c->nsessions + 1, sizeof *c->sessions);
			c->sessions[c->nsessions++] = si.id;
			if (si.live_timer_us > c->live_timer_us)
				c->live_timer_us = si.live_timer_us;
		}
	}
	return LIVE_IO_OK;
}

static struct lstream *
find_stream(struct live_client *c, uint64_t id)
{
	for (size_t i = 0; i < c->nstreams; i++)
		if (c->streams[i].id == id)
			return &c->streams[i];
	return NULL;
}

/* A stream the relay announced: known ones (after a reconnection) go
 * on from what the mirror has. */
static int
add_stream(struct live_client *c, const struct live_stream_info *si,
    char **err)
{
	struct lstream *st = find_stream(c, si->id);
	if (st != NULL) {
		struct ltrace *t = &c->traces[st->trace];
		if (st->mstream < 0) {
			t->skip_bytes = live_mirror_metadata_size(c->m,
			    st->trace);
			t->need_meta = true;
			t->meta_closed = false;
		} else {
			/* A RETRY now is the new attach's, not a stream
			 * caught up. */
			st->state = S_ACTIVE;
			st->skip = st->has_last;
			st->pending = false;
			st->fetched = 0;
		}
		return 0;
	}
	if (c->nstreams >= LIVE_MAX_STREAMS) {
		*err = xasprintf("more than %u streams", LIVE_MAX_STREAMS);
		return -1;
	}
	int trace = live_mirror_trace(c->m, si->trace_id, si->path, err);
	if (trace < 0)
		return -1;
	if ((size_t)trace >= c->ntraces) {
		c->traces = xreallocarray(c->traces, (size_t)trace + 1,
		    sizeof *c->traces);
		for (size_t i = c->ntraces; i <= (size_t)trace; i++)
			c->traces[i] = (struct ltrace){ 0 };
		c->ntraces = (size_t)trace + 1;
	}
	int ms = -1;
	if (si->metadata) {
		struct ltrace *t = &c->traces[trace];
		if (t->has_meta && t->meta_stream != si->id) {
			*err = xasprintf("a second metadata stream (%llu) for "
			    "trace %llu", (unsigned long long)si->id,
			    (unsigned long long)si->trace_id);
			return -1;
		}
		t->has_meta = true;
		t->meta_stream = si->id;
		t->need_meta = true;
	} else if ((ms = live_mirror_stream(c->m, trace, si->id, si->channel,
	    err)) < 0) {
		return -1;
	}
	c->streams = xreallocarray(c->streams, c->nstreams + 1,
	    sizeof *c->streams);
	c->streams[c->nstreams++] = (struct lstream){
		.id = si->id, .trace = trace, .mstream = ms,
		.state = si->metadata ? S_ENDED : S_ACTIVE,
	};
	return 0;
}

/* The streams following an ATTACH_SESSION or GET_NEW_STREAMS reply. */
static enum live_io_status
read_streams(struct live_client *c, uint32_t n, char **err)
{
	uint8_t *rec = buffer(c, LIVE_STREAM_SIZE);
	char why[256];
	if (n > LIVE_MAX_STREAMS) {
		*err = xasprintf("%u streams announced, over the limit of %u",
		    n, LIVE_MAX_STREAMS);
		return LIVE_IO_ERROR;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct live_stream_info *si = xmalloc(sizeof *si);
		enum live_io_status s = reply(c, rec, LIVE_STREAM_SIZE, true);
		if (s != LIVE_IO_OK) {
			free(si);
			*err = xasprintf("%s (stream %u of %u)", io_why(s),
			    i + 1, n);
			return s;
		}
		if (live_wire_stream(rec, si, why, sizeof why) != 0) {
			free(si);
			*err = xasprintf("stream %u of %u: %s", i + 1, n, why);
			return LIVE_IO_ERROR;
		}
		int rc = add_stream(c, si, err);
		free(si);
		if (rc != 0)
			return LIVE_IO_ERROR;
	}
	return LIVE_IO_OK;
}

static const char *
attach_why(uint32_t status)
{
	switch (status) {
	case LIVE_ATTACH_ALREADY: return "another viewer is attached to it";
	case LIVE_ATTACH_UNK: return "the relay does not know it (any more)";
	case LIVE_ATTACH_NOT_LIVE: return "it is not a live session";
	case LIVE_ATTACH_SEEK_ERR: return "the relay refused the seek";
	case LIVE_ATTACH_NO_SESSION: return "no viewer session";
	default: return NULL;
	}
}

/* Connects and attaches to every relay session of the URL. */
static enum live_io_status
attach(struct live_client *c, uint32_t seek, char **err)
{
	uint8_t rep[LIVE_ATTACH_REPLY];
	enum live_io_status s = hello(c, err);
	if (s != LIVE_IO_OK)
		return s;
	if ((s = request(c, LIVE_CMD_CREATE_SESSION, NULL, 0)) != LIVE_IO_OK ||
	    (s = reply(c, rep, LIVE_STATUS_REPLY, false)) != LIVE_IO_OK) {
		*err = xasprintf("message %llu: %s (CREATE_SESSION)",
		    (unsigned long long)c->messages, io_why(s));
		return s;
	}
	if (live_be32(rep) != LIVE_CREATE_OK) {
		*err = xasprintf("message %llu: the relay refused a viewer "
		    "session (status %u)", (unsigned long long)c->messages,
		    live_be32(rep));
		return LIVE_IO_ERROR;
	}
	if ((s = list_sessions(c, NULL, NULL, err)) != LIVE_IO_OK)
		return s;
	if (c->nsessions == 0) {
		*err = xasprintf("no live session '%s' of host '%s' on the "
		    "relay (ttv --info net://%s%s%s:%s lists them)",
		    c->url.session, c->url.hostname,
		    strchr(c->url.host, ':') ? "[" : "", c->url.host,
		    strchr(c->url.host, ':') ? "]" : "", c->url.port);
		return LIVE_IO_ERROR;
	}
	for (size_t i = 0; i < c->nsessions; i++) {
		uint8_t req[LIVE_ATTACH_REQUEST] = { 0 };
		live_put64(req, c->sessions[i]);
		live_put32(req + 16, seek);
		if ((s = request(c, LIVE_CMD_ATTACH_SESSION, req,
		    sizeof req)) != LIVE_IO_OK ||
		    (s = reply(c, rep, sizeof rep, false)) != LIVE_IO_OK) {
			*err = xasprintf("message %llu: %s (ATTACH_SESSION)",
			    (unsigned long long)c->messages, io_why(s));
			return s;
		}
		uint32_t status = live_be32(rep), n = live_be32(rep + 4);
		if (status != LIVE_ATTACH_OK) {
			const char *why = attach_why(status);
			*err = why ? xasprintf("message %llu: cannot attach "
			    "to the session: %s", (unsigned long long)
			    c->messages, why) : xasprintf("message %llu: "
			    "unknown ATTACH_SESSION status %u",
			    (unsigned long long)c->messages, status);
			return status == LIVE_ATTACH_ALREADY ?
			    LIVE_IO_CLOSED : LIVE_IO_ERROR;
		}
		char *why = NULL;
		if ((s = read_streams(c, n, &why)) != LIVE_IO_OK) {
			*err = xasprintf("message %llu: %s",
			    (unsigned long long)c->messages, why);
			free(why);
			return s;
		}
	}
	c->need_streams = false;
	return LIVE_IO_OK;
}

/* How long streams that never answered may say RETRY before they count
 * as quiet: three live timers (the relay sends a beacon each), within
 * 0.2 and 3 s. */
static int
quiet_ms(const struct live_client *c)
{
	if (c->o.quiet_ms > 0)
		return c->o.quiet_ms;
	uint64_t ms = (uint64_t)c->live_timer_us * 3 / 1000;
	return ms < 200 ? 200 : ms > 3000 ? 3000 : (int)ms;
}

/* Between two rounds that brought nothing: a tenth of the quiet time,
 * at most 20 ms. */
static int
pause_ms(const struct live_client *c)
{
	int ms = quiet_ms(c) / 10;
	return ms > 20 ? 20 : ms;
}

/* The relay went away: reconnect and attach again, from the beginning,
 * skipping what the mirror has. LIVE_RECONNECTS times at most between
 * two packets, so that a relay that goes away after every attach is
 * given up on too. */
static enum step
reconnect(struct live_client *c, enum live_io_status why)
{
	enum live_cmd during = c->cmd;
	char *err = NULL;

	if (why == LIVE_IO_TIMEOUT)
		return fail(c, "no reply to %s within %d ms",
		    live_cmd_name(during), timeout_ms(c));
	if (why != LIVE_IO_CLOSED)
		return fail(c, "%s (%s)", io_why(why), live_cmd_name(during));
	while (c->lost < LIVE_RECONNECTS) {
		c->lost++;
		notice(c, "%s (%s), reconnecting (%d of %d)", io_why(why),
		    live_cmd_name(during), c->lost, LIVE_RECONNECTS);
		sleep_ms(250 << (c->lost - 1));
		c->io.close(c->io.arg);
		free(err);
		err = NULL;
		enum live_io_status s = attach(c, LIVE_SEEK_BEGINNING, &err);
		if (s == LIVE_IO_OK) {
			notice(c, "reconnected");
			c->quiet_at = now_ms() + quiet_ms(c);
			return STEP_RESTART;
		}
		if (s != LIVE_IO_CLOSED && s != LIVE_IO_TIMEOUT)
			break;
	}
	c->io.close(c->io.arg);
	enum step r = fail(c, "%s (%s) and ttv gave up after %d "
	    "reconnections%s%s; what was read is kept", io_why(why),
	    live_cmd_name(during), c->lost, err ? ": " : "", err ? err : "");
	free(err);
	return r;
}

/* --- fetching --- */

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
		if ((s = request(c, LIVE_CMD_GET_METADATA, req, sizeof req)) !=
		    LIVE_IO_OK || (s = reply(c, rep, sizeof rep, false)) !=
		    LIVE_IO_OK)
			return reconnect(c, s);
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
			return fail(c, "unknown GET_METADATA status %u",
			    status);
		if (len == 0) {
			/* Asked again, a bounded number of times. */
			if (++empty > 100)
				return fail(c, "GET_METADATA answered OK with "
				    "no bytes 100 times");
			continue;
		}
		uint64_t have = live_mirror_metadata_size(c->m, trace);
		if (len > LIVE_MAX_METADATA_REPLY || have + len >
		    LIVE_MAX_METADATA + t->skip_bytes)
			return fail(c, "metadata of %llu bytes over the limit "
			    "of %u MiB", (unsigned long long)(have + len),
			    len > LIVE_MAX_METADATA_REPLY ?
			    LIVE_MAX_METADATA_REPLY >> 20 :
			    LIVE_MAX_METADATA >> 20);
		uint8_t *buf = buffer(c, (size_t)len);
		if ((s = reply(c, buf, (size_t)len, true)) != LIVE_IO_OK)
			return reconnect(c, s);
		size_t skip = t->skip_bytes < len ? (size_t)t->skip_bytes :
		    (size_t)len;
		t->skip_bytes -= skip;
		char *err = NULL;
		if (len > skip && live_mirror_metadata(c->m, trace,
		    buf + skip, (size_t)len - skip, &err) != 0) {
			add_diag(c, true, err);
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
		if ((s = request(c, LIVE_CMD_GET_NEW_STREAMS, req,
		    sizeof req)) != LIVE_IO_OK ||
		    (s = reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
			return reconnect(c, s);
		uint32_t status = live_be32(rep), n = live_be32(rep + 4);
		switch (status) {
		case LIVE_NEW_STREAMS_OK: {
			char *err = NULL;
			if ((s = read_streams(c, n, &err)) == LIVE_IO_OK)
				break;
			if (s == LIVE_IO_ERROR) {
				enum step r = fail(c, "%s", err);
				free(err);
				return r;
			}
			free(err);
			return reconnect(c, s);
		}
		case LIVE_NEW_STREAMS_NO_NEW:
			break;
		case LIVE_NEW_STREAMS_HUP:
			hup++;
			break;
		case LIVE_NEW_STREAMS_ERR:
			return fail(c, "the relay failed to list new streams "
			    "(GET_NEW_STREAMS: ERR)");
		default:
			return fail(c, "unknown GET_NEW_STREAMS status %u",
			    status);
		}
	}
	if (hup == c->nsessions && hup > 0 && !c->ended) {
		c->ended = true;
		notice(c, "session ended");
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
	if ((s = request(c, LIVE_CMD_GET_PACKET, req, sizeof req)) !=
	    LIVE_IO_OK || (s = reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
		return reconnect(c, s);
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
		return fail(c, "the relay could not send the packet at offset "
		    "%llu of stream %llu (GET_PACKET: ERR)",
		    (unsigned long long)ix->offset, (unsigned long long)st->id);
	default:
		return fail(c, "unknown GET_PACKET status %u", status);
	}
	if (rlen != len)
		return fail(c, "GET_PACKET: %u bytes where %llu were asked",
		    rlen, (unsigned long long)len);
	uint8_t *buf = buffer(c, (size_t)len);
	if ((s = reply(c, buf, (size_t)len, true)) != LIVE_IO_OK)
		return reconnect(c, s);
	char *err = NULL;
	if (live_mirror_packet(c->m, st->mstream, buf, (size_t)len, ix,
	    &err) != 0) {
		add_diag(c, true, err);
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
	if ((s = request(c, LIVE_CMD_GET_NEXT_INDEX, req, sizeof req)) !=
	    LIVE_IO_OK || (s = reply(c, rep, sizeof rep, false)) != LIVE_IO_OK)
		return reconnect(c, s);
	if (live_wire_index(rep, &st->pend, why, sizeof why) != 0)
		return fail(c, "GET_NEXT_INDEX of stream %llu: %s",
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
		st->state = S_CAUGHT_UP;
		return STEP_OK;
	case LIVE_INDEX_HUP:
	case LIVE_INDEX_EOF:
		st->state = S_ENDED;
		return STEP_OK;
	case LIVE_INDEX_ERR:
		notice(c, "the relay failed to give stream %llu's next "
		    "packet (GET_NEXT_INDEX: ERR); the stream is left out",
		    (unsigned long long)st->id);
		st->state = S_ENDED;
		return STEP_OK;
	default:
		return fail(c, "unknown GET_NEXT_INDEX status %u of stream "
		    "%llu", ix->status, (unsigned long long)st->id);
	}
}

int
live_client_fetch(struct live_client *c)
{
	int64_t start = now_ms();
	uint64_t bytes0 = live_mirror_bytes(c->m), gen0 = c->generation;
	bool checked_streams = false;
	enum step r = STEP_OK;

	c->quiet_at = start + quiet_ms(c);
	for (size_t i = 0; i < c->nstreams; i++) {
		c->streams[i].fetched = 0;
		if (c->streams[i].state == S_CAUGHT_UP)
			c->streams[i].state = S_ACTIVE;
	}
	while (!c->ended) {
		if (r == STEP_FAIL)
			break;
		if (live_mirror_bytes(c->m) - bytes0 >
		    LIVE_MAX_SNAPSHOT_BYTES || now_ms() - start >
		    (int64_t)LIVE_MAX_SNAPSHOT_SECONDS * 1000) {
			notice(c, "the relay had more to send than ttv reads at "
			    "once (%llu MB in %lld s): what was read is shown",
			    (unsigned long long)((live_mirror_bytes(c->m) -
			    bytes0) / 1000000), (long long)((now_ms() - start) /
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
		bool quiet = now_ms() >= c->quiet_at, active = false;
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
			news(c);
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
				sleep_ms(pause_ms(c));
				checked_streams = false;
				continue;
			}
			break;
		}
		sleep_ms(pause_ms(c));
	}
	if (r != STEP_FAIL && (r = fetch_all_metadata(c)) == STEP_RESTART)
		r = STEP_OK;
	/* A reply that made no sense leaves the conversation out of step,
	 * and a relay that stopped answering would make the goodbye wait
	 * too. */
	if (r == STEP_FAIL)
		c->detached = true;
	if (c->generation != gen0 || c->ended)
		news(c);
	return r == STEP_FAIL ? -1 : 0;
}

/* --- the client --- */

static int
env_timeout(void)
{
	const char *s = ttv_getenv(TTV_ENV_LIVE_TIMEOUT);
	if (s == NULL || *s == '\0')
		return LIVE_TIMEOUT_MS;
	long v = strtol(s, NULL, 10);
	return v < 1 ? 1 : v > 3600000 ? 3600000 : (int)v;
}

/* The mirror's place: $XDG_CACHE_HOME (or ~/.cache)/ttv/live/HOST-PORT/
 * HOSTNAME/SESSION, each part reduced to a safe name. */
static char *
cache_root(const struct live_url *u, char **err)
{
	const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;
	if (base != NULL && base[0] == '/')
		dir = xasprintf("%s/ttv/live", base);
	else if (home != NULL && home[0] == '/')
		dir = xasprintf("%s/.cache/ttv/live", home);
	else {
		*err = xstrdup("no cache directory (set XDG_CACHE_HOME or "
		    "HOME)");
		return NULL;
	}
	const char *parts[3] = { NULL, u->hostname, u->session };
	char *hp = xasprintf("%s-%s", u->host, u->port);
	parts[0] = hp;
	for (int i = 0; i < 3; i++) {
		char safe[LIVE_NAME_MAX + 1];
		size_t n = 0;
		for (const char *p = parts[i]; *p != '\0' && n < LIVE_NAME_MAX;
		    p++) {
			unsigned char ch = (unsigned char)*p;
			bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' &&
			    ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			    ch == '.' || ch == '_' || ch == '-';
			safe[n++] = ok ? (char)ch : '_';
		}
		safe[n] = '\0';
		if (safe[0] == '.')
			safe[0] = '_';
		char *d = xasprintf("%s/%s", dir, safe);
		free(dir);
		dir = d;
	}
	free(hp);
	return dir;
}

struct live_client *
live_client_open(const struct live_url *u, const struct live_options *o,
    const struct live_io *io, const char *root, char **err)
{
	struct live_client *c = xcalloc(1, sizeof *c);
	*err = NULL;
	c->url.text = xstrdup(u->text);
	c->url.host = xstrdup(u->host);
	c->url.port = xstrdup(u->port);
	c->url.hostname = xstrdup(u->hostname ? u->hostname : "");
	c->url.session = xstrdup(u->session ? u->session : "");
	c->o = *o;
	if (c->o.timeout_ms <= 0)
		c->o.timeout_ms = env_timeout();
	if (io != NULL) {
		c->io = *io;
	} else {
		c->sock = live_sock_new(u->host, u->port, c->o.timeout_ms);
		live_sock_io(c->sock, &c->io);
	}
	char *r = root ? xstrdup(root) : cache_root(u, err);
	if (r == NULL) {
		c->detached = true;
		live_client_close(c);
		return NULL;
	}
	c->m = live_mirror_open(r, err);
	free(r);
	if (c->m == NULL) {
		c->detached = true;
		live_client_close(c);
		return NULL;
	}
	enum live_io_status s = attach(c, o->from_now ? LIVE_SEEK_LAST :
	    LIVE_SEEK_BEGINNING, err);
	if (s != LIVE_IO_OK) {
		c->detached = true;
		live_client_close(c);
		return NULL;
	}
	return c;
}

const char *
live_client_dir(const struct live_client *c)
{
	return live_mirror_root(c->m);
}

bool
live_client_has_data(const struct live_client *c)
{
	return live_mirror_has_data(c->m);
}

bool
live_client_ended(const struct live_client *c)
{
	return c->ended;
}

uint64_t
live_client_generation(const struct live_client *c)
{
	return c->generation;
}

void
live_client_report(const struct live_client *c, struct builder *b)
{
	for (size_t i = 0; i < c->ndiags; i++)
		builder_note(b, c->diags[i].error ? DIAG_ERROR : DIAG_WARNING,
		    "%s", c->diags[i].text);
}

/* DETACH_SESSION of each relay session, when the connection is still
 * good: the relay frees its viewer streams at once. */
static void
detach(struct live_client *c)
{
	for (size_t i = 0; i < c->nsessions; i++) {
		uint8_t req[8], rep[LIVE_STATUS_REPLY];
		live_put64(req, c->sessions[i]);
		if (request(c, LIVE_CMD_DETACH_SESSION, req, sizeof req) !=
		    LIVE_IO_OK || reply(c, rep, sizeof rep, false) !=
		    LIVE_IO_OK)
			break;
	}
}

void
live_client_hangup(struct live_client *c)
{
	if (!c->detached)
		detach(c);
	c->detached = true;
	if (c->io.close != NULL)
		c->io.close(c->io.arg);
}

void
live_client_close(struct live_client *c)
{
	if (c == NULL)
		return;
	live_client_hangup(c);
	live_sock_free(c->sock);
	live_mirror_close(c->m);
	live_url_free(&c->url);
	for (size_t i = 0; i < c->ndiags; i++)
		free(c->diags[i].text);
	free(c->diags);
	free(c->sessions);
	free(c->streams);
	free(c->traces);
	free(c->buf);
	free(c);
}

int
live_list(const struct live_url *u, const struct live_options *o,
    const struct live_io *io, struct live_session_info **s, size_t *n,
    char **err)
{
	struct live_client c = { 0 };
	*s = NULL;
	*n = 0;
	*err = NULL;
	c.o = *o;
	if (c.o.timeout_ms <= 0)
		c.o.timeout_ms = env_timeout();
	if (io != NULL) {
		c.io = *io;
	} else {
		c.sock = live_sock_new(u->host, u->port, c.o.timeout_ms);
		live_sock_io(c.sock, &c.io);
	}
	enum live_io_status st = hello(&c, err);
	if (st == LIVE_IO_OK)
		st = list_sessions(&c, s, n, err);
	c.io.close(c.io.arg);
	live_sock_free(c.sock);
	if (st != LIVE_IO_OK) {
		free(*s);
		*s = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}
