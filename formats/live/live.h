/*
 * LTTng live: ttv as a viewer of lttng-relayd's live port. A session
 * named by a URL (net://HOST[:PORT]/host/HOSTNAME/SESSION, babeltrace2's
 * form, port 5344 by default) is attached to and what the relay sends is
 * written into a local CTF directory under the cache
 * ($XDG_CACHE_HOME/ttv/live/HOST-PORT/HOSTNAME/SESSION, see
 * live_mirror.h), which the CTF reader then reads as any local trace.
 * doc/live.md has the design, and how following a session builds on it.
 *
 * The network is input like a file: every size a reply gives is bounded
 * before use (live_wire.h), every wait has a timeout, and what is wrong
 * is said as "message N: what" (N counting the relay's replies), what
 * was read before it kept.
 */
#ifndef TTV_LIVE_H
#define TTV_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "live_io.h"
#include "live_wire.h"
#include "reader.h"

#define LIVE_DEFAULT_PORT "5344"
/* Default wait for a connection or a reply (TTV_LIVE_TIMEOUT: ms). */
#define LIVE_TIMEOUT_MS 10000
/* Reconnections tried when the relay goes away, before giving up. */
#define LIVE_RECONNECTS 3

/* A parsed URL; hostname and session are NULL for a relay alone
 * (net://HOST[:PORT], which --info lists the sessions of). */
struct live_url {
	char *text;		/* the URL as given */
	char *host, *port;
	char *hostname, *session;
};

/* Whether s is a live URL at all (net://...). */
bool live_url_is(const char *s);
/* 0, or -1 with *err (caller frees) saying what is wrong. */
int live_url_parse(const char *s, struct live_url *u, char **err);
void live_url_free(struct live_url *u);

/* What a follower is told after each fetch that changed something (see
 * doc/live.md): the mirror grew (generation counts every append), the
 * session ended. */
struct live_news {
	uint64_t generation;	/* bumped after every packet or metadata
				 * append, once its bytes are written */
	uint64_t bytes;		/* mirrored so far */
	bool ended;		/* the relay said the session is over */
};

struct live_options {
	bool from_now;		/* attach at the relay's newest packets */
	int timeout_ms;		/* 0: LIVE_TIMEOUT_MS or TTV_LIVE_TIMEOUT */
	/* Said as it happens ("reconnecting", "session ended"); NULL:
	 * kept as warnings of the trace. */
	void (*notice)(void *arg, const char *text);
	void *notice_arg;
	/* The quiet time in ms (0: three live timers, see
	 * live_client_fetch); the fuzz target's is short. */
	int quiet_ms;
	/* Called when a fetch changed the mirror; may be NULL. */
	void (*news)(void *arg, const struct live_news *n);
	void *news_arg;
};

/* A session attached to, with its mirror. */
struct live_client;

/* Connects, attaches to the URL's session (every relay session of that
 * host and name, as a session traced in two domains has two) and opens
 * its mirror at root (NULL: under the cache). io NULL: a TCP socket.
 * NULL with *err when nothing could be attached to. */
struct live_client *live_client_open(const struct live_url *u,
    const struct live_options *o, const struct live_io *io,
    const char *root, char **err);
/* Fetches what the relay has now: until each stream has no packet
 * ready (RETRY after data or after a quiet time of a few live timers,
 * INACTIVE, HUP), the metadata they need, the streams that appeared.
 * Returns 0, or -1 after damage or a lost relay (said in the client's
 * diagnostics; what was mirrored stays). */
int live_client_fetch(struct live_client *c);
/* The mirror's directory. */
const char *live_client_dir(const struct live_client *c);
/* What the client has to say: added to b as diagnostics (damage as
 * errors; notices as warnings when no notice callback took them). */
void live_client_report(const struct live_client *c, struct builder *b);
bool live_client_has_data(const struct live_client *c);
bool live_client_ended(const struct live_client *c);
uint64_t live_client_generation(const struct live_client *c);
/* The beacons of the streams that said INACTIVE (load_options.beacons,
 * in its order): *out (caller frees the array; its names are the
 * client's, valid until it is closed) and their count. */
size_t live_client_beacons(const struct live_client *c,
    struct stream_beacon **out);
/* A counter bumped each time a beacon went forward: what a follower
 * holds back for a quiet stream may be told. */
uint64_t live_client_beacon_moves(const struct live_client *c);
/* Detaches (politely, when the relay is still there) and closes the
 * connection; the mirror and what the client had to say stay. */
void live_client_hangup(struct live_client *c);
/* Hangs up, unlocks the mirror and frees. */
void live_client_close(struct live_client *c);

/* The loader's road (formats/load.c): attach, fetch a snapshot, and
 * hand back the client whose mirror is to be read; NULL with *err when
 * nothing could be read. */
struct live_client *live_snapshot(const char *url,
    const struct load_options *opts, char **err);

/* LIST_SESSIONS of a relay (u without a session): *s (caller frees) and
 * *n, or -1 with *err. */
int live_list(const struct live_url *u, const struct live_options *o,
    const struct live_io *io, struct live_session_info **s, size_t *n,
    char **err);

#endif
