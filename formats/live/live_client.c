/*
 * The live client (live.h), its connection half: the handshake, the
 * viewer session, the relay sessions of one URL attached to and their
 * streams, the reconnection when the relay goes away, the session list,
 * and what the client has to say. The fetch is live_fetch.c's.
 *
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
#include "live_client_int.h"
#include "xalloc.h"

int64_t
live_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
live_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
live_add_diag(struct live_client *c, bool error, char *text)
{
	c->diags = xreallocarray(c->diags, c->ndiags + 1, sizeof *c->diags);
	c->diags[c->ndiags++] = (struct live_diag){ error, text };
}

/* Damage or a failure: "message N: what" (N: the reply it is about). */
enum step
live_fail(struct live_client *c, const char *fmt, ...)
{
	va_list ap;
	char what[512];
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	live_add_diag(c, true, xasprintf("message %llu: %s",
	    (unsigned long long)c->messages, what));
	return STEP_FAIL;
}

/* A notice: said at once when the caller listens, else kept as a
 * warning. */
void
live_notice(struct live_client *c, const char *fmt, ...)
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
		live_add_diag(c, false, text);
	}
}

void
live_news(struct live_client *c)
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

uint8_t *
live_buffer(struct live_client *c, size_t len)
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
enum live_io_status
live_request(struct live_client *c, enum live_cmd cmd, const uint8_t *req,
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
enum live_io_status
live_reply(struct live_client *c, void *buf, size_t len, bool more)
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
	if ((s = live_request(c, LIVE_CMD_CONNECT, req, sizeof req)) != LIVE_IO_OK ||
	    (s = live_reply(c, rep, sizeof rep, false)) != LIVE_IO_OK) {
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

	if ((s = live_request(c, LIVE_CMD_LIST_SESSIONS, NULL, 0)) != LIVE_IO_OK ||
	    (s = live_reply(c, head, sizeof head, false)) != LIVE_IO_OK) {
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
		if ((s = live_reply(c, rec, sizeof rec, true)) != LIVE_IO_OK) {
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
enum live_io_status
live_read_streams(struct live_client *c, uint32_t n, char **err)
{
	uint8_t *rec = live_buffer(c, LIVE_STREAM_SIZE);
	char why[256];
	if (n > LIVE_MAX_STREAMS) {
		*err = xasprintf("%u streams announced, over the limit of %u",
		    n, LIVE_MAX_STREAMS);
		return LIVE_IO_ERROR;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct live_stream_info *si = xmalloc(sizeof *si);
		enum live_io_status s = live_reply(c, rec, LIVE_STREAM_SIZE, true);
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
	case LIVE_ATTACH_UNK: return "the session has ended (the relay no longer serves it)";
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
	if ((s = live_request(c, LIVE_CMD_CREATE_SESSION, NULL, 0)) != LIVE_IO_OK ||
	    (s = live_reply(c, rep, LIVE_STATUS_REPLY, false)) != LIVE_IO_OK) {
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
		if ((s = live_request(c, LIVE_CMD_ATTACH_SESSION, req,
		    sizeof req)) != LIVE_IO_OK ||
		    (s = live_reply(c, rep, sizeof rep, false)) != LIVE_IO_OK) {
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
		if ((s = live_read_streams(c, n, &why)) != LIVE_IO_OK) {
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
int
live_quiet_ms(const struct live_client *c)
{
	if (c->o.quiet_ms > 0)
		return c->o.quiet_ms;
	uint64_t ms = (uint64_t)c->live_timer_us * 3 / 1000;
	return ms < 200 ? 200 : ms > 3000 ? 3000 : (int)ms;
}

/* Between two rounds that brought nothing: a tenth of the quiet time,
 * at most 20 ms. */
int
live_pause_ms(const struct live_client *c)
{
	int ms = live_quiet_ms(c) / 10;
	return ms > 20 ? 20 : ms;
}

/* The relay went away: reconnect and attach again, from the beginning,
 * skipping what the mirror has. LIVE_RECONNECTS times at most between
 * two packets, so that a relay that goes away after every attach is
 * given up on too. */
enum step
live_reconnect(struct live_client *c, enum live_io_status why)
{
	enum live_cmd during = c->cmd;
	char *err = NULL;

	if (why == LIVE_IO_TIMEOUT)
		return live_fail(c, "no reply to %s within %d ms",
		    live_cmd_name(during), timeout_ms(c));
	if (why != LIVE_IO_CLOSED)
		return live_fail(c, "%s (%s)", io_why(why), live_cmd_name(during));
	while (c->lost < LIVE_RECONNECTS) {
		c->lost++;
		live_notice(c, "%s (%s), reconnecting (%d of %d)", io_why(why),
		    live_cmd_name(during), c->lost, LIVE_RECONNECTS);
		live_sleep_ms(250 << (c->lost - 1));
		c->io.close(c->io.arg);
		free(err);
		err = NULL;
		enum live_io_status s = attach(c, LIVE_SEEK_BEGINNING, &err);
		if (s == LIVE_IO_OK) {
			live_notice(c, "reconnected");
			c->quiet_at = live_now_ms() + live_quiet_ms(c);
			return STEP_RESTART;
		}
		if (s != LIVE_IO_CLOSED && s != LIVE_IO_TIMEOUT)
			break;
	}
	c->io.close(c->io.arg);
	enum step r = live_fail(c, "%s (%s) and ttv gave up after %d "
	    "reconnections%s%s; what was read is kept", io_why(why),
	    live_cmd_name(during), c->lost, err ? ": " : "", err ? err : "");
	free(err);
	return r;
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

uint64_t
live_client_beacon_moves(const struct live_client *c)
{
	return c->beacon_moves;
}

size_t
live_client_beacons(const struct live_client *c, struct stream_beacon **out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < c->nstreams; i++) {
		const struct lstream *st = &c->streams[i];
		if (!st->has_beacon || st->mstream < 0)
			continue;
		*out = xreallocarray(*out, n + 1, sizeof **out);
		(*out)[n++] = (struct stream_beacon){
			.file = live_mirror_stream_file(c->m, st->mstream),
			.cycles = st->beacon,
		};
	}
	if (n > 1)
		qsort(*out, n, sizeof **out, stream_beacon_cmp);
	return n;
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
		if (live_request(c, LIVE_CMD_DETACH_SESSION, req, sizeof req) !=
		    LIVE_IO_OK || live_reply(c, rep, sizeof rep, false) !=
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
