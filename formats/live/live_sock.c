/*
 * The socket transport (live_io.h): a non-blocking TCP socket, connected
 * with a timeout, every send and receive waited for with poll() and the
 * same timeout, so that a relay that stalls or a host that drops packets
 * never holds ttv: the call fails with LIVE_IO_TIMEOUT. SIGPIPE is not
 * raised (MSG_NOSIGNAL): a relay gone is an answer, not a signal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live_io.h"
#include "xalloc.h"

struct live_sock {
	char *host, *port;
	int timeout_ms;
	int fd;
};

struct live_sock *
live_sock_new(const char *host, const char *port, int timeout_ms)
{
	struct live_sock *s = xcalloc(1, sizeof *s);
	s->host = xstrdup(host);
	s->port = xstrdup(port);
	s->timeout_ms = timeout_ms;
	s->fd = -1;
	return s;
}

static void
sock_close(void *arg)
{
	struct live_sock *s = arg;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

void
live_sock_free(struct live_sock *s)
{
	if (s == NULL)
		return;
	sock_close(s);
	free(s->host);
	free(s->port);
	free(s);
}

static int64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline: 1 ready, 0 timed out, -1
 * error (errno). */
static int
wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static bool
refused(int e)
{
	return e == ECONNREFUSED || e == ECONNRESET || e == EPIPE ||
	    e == ECONNABORTED || e == ENETUNREACH || e == EHOSTUNREACH;
}

/* One address: 0 connected, else the errno (ETIMEDOUT on timeout). */
static int
try_addr(struct live_sock *s, const struct addrinfo *ai, int64_t deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return errno;
	int e = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		e = errno;
		if (e == EINPROGRESS) {
			int r = wait_fd(fd, POLLOUT, deadline);
			socklen_t len = sizeof e;
			if (r == 0)
				e = ETIMEDOUT;
			else if (r < 0)
				e = errno;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
			    &len) != 0)
				e = errno;
		}
	}
	if (e != 0) {
		close(fd);
		return e;
	}
	/* Requests are small and answered one by one. */
	int one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	s->fd = fd;
	return 0;
}

static enum live_io_status
sock_connect(void *arg, char **err)
{
	struct live_sock *s = arg;
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_ADDRCONFIG,
	}, *res = NULL;

	sock_close(s);
	int g = getaddrinfo(s->host, s->port, &hints, &res);
	if (g != 0) {
		*err = xasprintf("cannot resolve the host: %s",
		    g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
		return LIVE_IO_ERROR;
	}
	int64_t deadline = now_ms() + s->timeout_ms;
	int e = ENOENT;
	for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next)
		if ((e = try_addr(s, ai, deadline)) == 0)
			break;
	freeaddrinfo(res);
	if (e == 0)
		return LIVE_IO_OK;
	if (e == ETIMEDOUT) {
		*err = xasprintf("no answer to the connection within %d ms",
		    s->timeout_ms);
		return LIVE_IO_TIMEOUT;
	}
	*err = xasprintf("cannot connect: %s", strerror(e));
	return refused(e) ? LIVE_IO_CLOSED : LIVE_IO_ERROR;
}

static enum live_io_status
sock_send(void *arg, const void *buf, size_t len)
{
	struct live_sock *s = arg;
	const char *p = buf;
	int64_t deadline = now_ms() + s->timeout_ms;

	if (s->fd < 0)
		return LIVE_IO_CLOSED;
	while (len > 0) {
		ssize_t n = send(s->fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int r = wait_fd(s->fd, POLLOUT, deadline);
			if (r == 0)
				return LIVE_IO_TIMEOUT;
			if (r < 0)
				return LIVE_IO_ERROR;
			continue;
		}
		return n < 0 && !refused(errno) ? LIVE_IO_ERROR :
		    LIVE_IO_CLOSED;
	}
	return LIVE_IO_OK;
}

static enum live_io_status
sock_recv(void *arg, void *buf, size_t len)
{
	struct live_sock *s = arg;
	char *p = buf;
	/* One deadline for the whole reply, so that a relay trickling a
	 * byte at a time cannot hold ttv either: the timeout, plus a
	 * millisecond a KiB (a large packet at 1 MB/s still comes). */
	int64_t deadline = now_ms() + s->timeout_ms + (int64_t)(len >> 10);

	if (s->fd < 0)
		return LIVE_IO_CLOSED;
	while (len > 0) {
		ssize_t n = recv(s->fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return LIVE_IO_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = wait_fd(s->fd, POLLIN, deadline);
			if (r == 0)
				return LIVE_IO_TIMEOUT;
			if (r < 0)
				return LIVE_IO_ERROR;
			continue;
		}
		return refused(errno) ? LIVE_IO_CLOSED : LIVE_IO_ERROR;
	}
	return LIVE_IO_OK;
}

void
live_sock_io(struct live_sock *s, struct live_io *io)
{
	*io = (struct live_io){
		.connect = sock_connect, .send = sock_send, .recv = sock_recv,
		.close = sock_close, .arg = s,
	};
}
