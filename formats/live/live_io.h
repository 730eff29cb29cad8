/*
 * How the live client reaches a relay: a transport that connects, sends
 * whole requests and receives exact byte counts, each bounded in time.
 * The socket transport (live_sock.c) is the real one; the fuzz target
 * plays a relay's replies from a buffer through the same table.
 */
#ifndef TTV_LIVE_IO_H
#define TTV_LIVE_IO_H

#include <stddef.h>

enum live_io_status {
	LIVE_IO_OK,
	LIVE_IO_CLOSED,		/* the relay closed or reset the connection,
				 * or refused it: worth a reconnection */
	LIVE_IO_TIMEOUT,	/* no answer within the timeout */
	LIVE_IO_ERROR,		/* anything else (a name that does not
				 * resolve...) */
};

struct live_io {
	/* Connects (again, after a close): on failure *err says why
	 * (caller frees). */
	enum live_io_status (*connect)(void *arg, char **err);
	enum live_io_status (*send)(void *arg, const void *buf, size_t len);
	/* Exactly len bytes, or a failure. */
	enum live_io_status (*recv)(void *arg, void *buf, size_t len);
	void (*close)(void *arg);
	void *arg;
};

/* A socket transport to host:port with a timeout (ms) for the connection
 * and for each send and receive; live_sock_free() closes and frees it. */
struct live_sock;
struct live_sock *live_sock_new(const char *host, const char *port,
    int timeout_ms);
void live_sock_free(struct live_sock *s);
void live_sock_io(struct live_sock *s, struct live_io *io);

#endif
