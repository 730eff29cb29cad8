/* The live viewer protocol's replies, decoded and checked (live_wire.h). */
#include <stdio.h>
#include <string.h>

#include "live_wire.h"

void
live_wire_cmd(uint8_t out[LIVE_CMD_HEADER], enum live_cmd cmd, uint64_t len)
{
	live_put64(out, len);
	live_put32(out + 8, (uint32_t)cmd);
	live_put32(out + 12, 0);
}

/* A fixed-size string field: it must end within its bytes (the relay
 * pads with NULs); copied whole into dst (size bytes). */
static int
field(const uint8_t *p, size_t size, char *dst, const char *what, char *why,
    size_t why_size)
{
	if (memchr(p, 0, size) == NULL) {
		snprintf(why, why_size, "%s of %zu bytes without its end "
		    "(no NUL)", what, size);
		return -1;
	}
	memcpy(dst, p, size);
	return 0;
}

int
live_wire_session(const uint8_t p[LIVE_SESSION_SIZE],
    struct live_session_info *s, char *why, size_t why_size)
{
	s->id = live_be64(p);
	s->live_timer_us = live_be32(p + 8);
	s->clients = live_be32(p + 12);
	s->streams = live_be32(p + 16);
	if (field(p + 20, LIVE_HOST_NAME_MAX, s->hostname, "host name", why,
	    why_size) != 0 || field(p + 20 + LIVE_HOST_NAME_MAX,
	    LIVE_NAME_MAX, s->name, "session name", why, why_size) != 0)
		return -1;
	return 0;
}

int
live_wire_stream(const uint8_t p[LIVE_STREAM_SIZE],
    struct live_stream_info *s, char *why, size_t why_size)
{
	s->id = live_be64(p);
	s->trace_id = live_be64(p + 8);
	uint32_t flag = live_be32(p + 16);
	if (flag > 1) {
		snprintf(why, why_size, "stream %llu: metadata flag %u (0 or 1 "
		    "expected)", (unsigned long long)s->id, flag);
		return -1;
	}
	s->metadata = flag == 1;
	if (field(p + 20, LIVE_PATH_MAX, s->path, "stream path", why,
	    why_size) != 0 || field(p + 20 + LIVE_PATH_MAX, LIVE_NAME_MAX,
	    s->channel, "channel name", why, why_size) != 0)
		return -1;
	return 0;
}

int
live_wire_index(const uint8_t p[LIVE_INDEX_SIZE], struct live_index *ix,
    char *why, size_t why_size)
{
	ix->offset = live_be64(p);
	ix->packet_size = live_be64(p + 8);
	ix->content_size = live_be64(p + 16);
	ix->ts_begin = live_be64(p + 24);
	ix->ts_end = live_be64(p + 32);
	ix->discarded = live_be64(p + 40);
	ix->stream_class = live_be64(p + 48);
	ix->status = live_be32(p + 56);
	ix->flags = live_be32(p + 60);
	if (ix->status != LIVE_INDEX_OK)
		return 0;
	if (ix->packet_size == 0 || ix->packet_size % 8 != 0) {
		snprintf(why, why_size, "packet size of %llu bits (a whole "
		    "number of bytes, not 0, expected)",
		    (unsigned long long)ix->packet_size);
		return -1;
	}
	if (ix->packet_size / 8 > LIVE_MAX_PACKET) {
		snprintf(why, why_size, "packet size of %llu bytes over the "
		    "limit of %u MiB", (unsigned long long)(ix->packet_size / 8),
		    LIVE_MAX_PACKET >> 20);
		return -1;
	}
	if (ix->content_size > ix->packet_size) {
		snprintf(why, why_size, "content size of %llu bits over the "
		    "packet size of %llu bits",
		    (unsigned long long)ix->content_size,
		    (unsigned long long)ix->packet_size);
		return -1;
	}
	return 0;
}

const char *
live_cmd_name(enum live_cmd cmd)
{
	static const char *const names[] = {
		[LIVE_CMD_CONNECT] = "CONNECT",
		[LIVE_CMD_LIST_SESSIONS] = "LIST_SESSIONS",
		[LIVE_CMD_ATTACH_SESSION] = "ATTACH_SESSION",
		[LIVE_CMD_GET_NEXT_INDEX] = "GET_NEXT_INDEX",
		[LIVE_CMD_GET_PACKET] = "GET_PACKET",
		[LIVE_CMD_GET_METADATA] = "GET_METADATA",
		[LIVE_CMD_GET_NEW_STREAMS] = "GET_NEW_STREAMS",
		[LIVE_CMD_CREATE_SESSION] = "CREATE_SESSION",
		[LIVE_CMD_DETACH_SESSION] = "DETACH_SESSION",
	};
	if ((unsigned)cmd < sizeof names / sizeof names[0] &&
	    names[cmd] != NULL)
		return names[cmd];
	return "?";
}

const char *
live_index_status_name(uint32_t status)
{
	static const char *const names[] = {
		[LIVE_INDEX_OK] = "OK", [LIVE_INDEX_RETRY] = "RETRY",
		[LIVE_INDEX_HUP] = "HUP", [LIVE_INDEX_ERR] = "ERR",
		[LIVE_INDEX_INACTIVE] = "INACTIVE", [LIVE_INDEX_EOF] = "EOF",
	};
	if (status < sizeof names / sizeof names[0] && names[status] != NULL)
		return names[status];
	return "?";
}
