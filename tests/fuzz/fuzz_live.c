/*
 * libFuzzer target for the LTTng live client (formats/live/): the input is
 * what a relay answers, played back byte after byte to the client's
 * requests, so every reply's decoding and bounds (sessions, streams,
 * indexes, packets, metadata) and the fetch's handling of each status are
 * reached without a socket. The first byte chooses: bit 0, a session list
 * (--info on a relay) instead of an attach and a fetch; bit 1, attach
 * from now. The mirror is written under $TMPDIR. A reply cut short ends
 * the conversation as a failed connection would (no reconnection: its
 * pauses would slow the fuzzer down).
 *   make fuzz && tests/fuzz/fuzz_live -max_total_time=60 SEEDS
 * Seeds: tests/formats/live/live_mock_relay.py's replies, or by hand:
 * CONNECT (20 bytes: id, major 2, minor 13, type), CREATE (status 1),
 * LIST (a count, 339-byte sessions of host "h" and name "s"), ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct replay {
	const uint8_t *p;
	size_t left;
};

static enum live_io_status
r_connect(void *arg, char **err)
{
	(void)arg;
	(void)err;
	return LIVE_IO_OK;
}

static enum live_io_status
r_send(void *arg, const void *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return LIVE_IO_OK;
}

static enum live_io_status
r_recv(void *arg, void *buf, size_t len)
{
	struct replay *r = arg;
	if (len > r->left)
		return LIVE_IO_ERROR;
	memcpy(buf, r->p, len);
	r->p += len;
	r->left -= len;
	return LIVE_IO_OK;
}

static void
r_close(void *arg)
{
	(void)arg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[256];
	if (size < 1)
		return 0;
	if (root[0] == '\0') {
		const char *t = getenv("TMPDIR");
		snprintf(root, sizeof root, "%s/fuzz_live.%ld",
		    t && *t ? t : "/tmp", (long)getpid());
	}
	struct replay r = { data + 1, size - 1 };
	struct live_io io = { r_connect, r_send, r_recv, r_close, &r };
	struct live_options o = { .from_now = data[0] & 2, .timeout_ms = 1,
	    .quiet_ms = 1 };
	struct live_url u;
	char *err = NULL;
	if (live_url_parse(data[0] & 1 ? "net://relay" :
	    "net://relay/host/h/s", &u, &err) != 0)
		abort();
	if (data[0] & 1) {
		struct live_session_info *s;
		size_t n;
		if (live_list(&u, &o, &io, &s, &n, &err) == 0)
			free(s);
	} else {
		struct live_client *c = live_client_open(&u, &o, &io, root,
		    &err);
		if (c != NULL) {
			live_client_fetch(c);
			struct builder *b = builder_new("net://relay/host/h/s");
			live_client_report(c, b);
			trace_free(builder_finish(b));
			live_client_close(c);
		}
	}
	free(err);
	live_url_free(&u);
	return 0;
}
