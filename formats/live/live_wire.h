/*
 * The LTTng live viewer protocol (lttng-relayd's live port, protocol 2.4
 * as lttng-tools 2.13 speaks it) on the wire: the commands, the statuses,
 * the fixed sizes of every request and reply, and the decoding of each
 * reply from its bytes, every field big-endian. Decoding checks what a
 * reply says against the limits below before anything is allocated from
 * it; nothing here does input or output, so the fuzz target and the mock
 * relay's tests reach every check without a socket.
 */
#ifndef TTV_LIVE_WIRE_H
#define TTV_LIVE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The protocol ttv speaks; the relay answers with its own version and
 * both use the lower minor. */
#define LIVE_MAJOR 2
#define LIVE_MINOR 4

enum live_cmd {
	LIVE_CMD_CONNECT = 1,
	LIVE_CMD_LIST_SESSIONS = 2,
	LIVE_CMD_ATTACH_SESSION = 3,
	LIVE_CMD_GET_NEXT_INDEX = 4,
	LIVE_CMD_GET_PACKET = 5,
	LIVE_CMD_GET_METADATA = 6,
	LIVE_CMD_GET_NEW_STREAMS = 7,
	LIVE_CMD_CREATE_SESSION = 8,
	LIVE_CMD_DETACH_SESSION = 9,
};

/* Flags of GET_NEXT_INDEX and GET_PACKET replies. */
#define LIVE_FLAG_NEW_METADATA 1u
#define LIVE_FLAG_NEW_STREAM 2u

enum { LIVE_CONNECT_COMMAND = 1 };
enum { LIVE_SEEK_BEGINNING = 1, LIVE_SEEK_LAST = 2 };
enum {
	LIVE_ATTACH_OK = 1, LIVE_ATTACH_ALREADY, LIVE_ATTACH_UNK,
	LIVE_ATTACH_NOT_LIVE, LIVE_ATTACH_SEEK_ERR, LIVE_ATTACH_NO_SESSION,
};
enum {
	LIVE_INDEX_OK = 1, LIVE_INDEX_RETRY, LIVE_INDEX_HUP, LIVE_INDEX_ERR,
	LIVE_INDEX_INACTIVE, LIVE_INDEX_EOF,
};
enum {
	LIVE_PACKET_OK = 1, LIVE_PACKET_RETRY, LIVE_PACKET_ERR,
	LIVE_PACKET_EOF,
};
enum { LIVE_METADATA_OK = 1, LIVE_METADATA_NO_NEW, LIVE_METADATA_ERR };
enum {
	LIVE_NEW_STREAMS_OK = 1, LIVE_NEW_STREAMS_NO_NEW,
	LIVE_NEW_STREAMS_ERR, LIVE_NEW_STREAMS_HUP,
};
enum { LIVE_CREATE_OK = 1, LIVE_CREATE_ERR };

/* Sizes on the wire. */
#define LIVE_CMD_HEADER 16		/* data size u64, cmd u32, version u32 */
#define LIVE_CONNECT_SIZE 20		/* session id u64, major, minor, type */
#define LIVE_LIST_HEADER 4		/* sessions count u32 */
#define LIVE_HOST_NAME_MAX 64
#define LIVE_NAME_MAX 255
#define LIVE_PATH_MAX 4096
#define LIVE_SESSION_SIZE (20 + LIVE_HOST_NAME_MAX + LIVE_NAME_MAX)	/* 339 */
#define LIVE_ATTACH_REQUEST 20		/* session id, offset, seek u32 */
#define LIVE_ATTACH_REPLY 8		/* status, streams count */
#define LIVE_STREAM_SIZE (20 + LIVE_PATH_MAX + LIVE_NAME_MAX)	/* 4371 */
#define LIVE_INDEX_SIZE 64		/* 7 u64, status, flags */
#define LIVE_GET_PACKET_REQUEST 20	/* stream id, offset u64, len u32 */
#define LIVE_PACKET_REPLY 12		/* status, len, flags */
#define LIVE_METADATA_REPLY 12		/* len u64, status u32 */
#define LIVE_STATUS_REPLY 4		/* create, detach */
#define LIVE_NEW_STREAMS_REPLY 8	/* status, streams count */

/*
 * What ttv takes from a relay, at most: each size a reply announces is
 * held to these before a byte is allocated or written for it. LTTng's
 * sub-buffers (a packet each) are 4 KiB to a few MiB and its metadata
 * under a few MiB; a session has a stream per CPU and channel (per
 * process too with per-process buffers).
 */
#define LIVE_MAX_PACKET (64u << 20)		/* one packet's bytes */
#define LIVE_MAX_METADATA_REPLY (64u << 20)	/* one metadata reply */
#define LIVE_MAX_METADATA (256u << 20)		/* one trace's metadata */
#define LIVE_MAX_STREAMS 16384			/* streams of a session */
#define LIVE_MAX_SESSIONS 16384			/* sessions listed */
/* A snapshot (what the relay has now) stops there, with a warning: a
 * relay that never runs dry does not keep ttv reading for ever. */
#define LIVE_MAX_SNAPSHOT_BYTES ((uint64_t)4 << 30)
#define LIVE_MAX_SNAPSHOT_SECONDS 120

/* A relay session as LIST_SESSIONS gives it. */
struct live_session_info {
	uint64_t id;
	uint32_t live_timer_us, clients, streams;
	char hostname[LIVE_HOST_NAME_MAX];	/* NUL-terminated, checked */
	char name[LIVE_NAME_MAX];
};

/* A stream as ATTACH_SESSION and GET_NEW_STREAMS give it. */
struct live_stream_info {
	uint64_t id, trace_id;
	bool metadata;
	char path[LIVE_PATH_MAX];		/* NUL-terminated, checked */
	char channel[LIVE_NAME_MAX];
};

/* A GET_NEXT_INDEX reply. */
struct live_index {
	uint64_t offset, packet_size, content_size;	/* sizes in bits */
	uint64_t ts_begin, ts_end, discarded, stream_class;
	uint32_t status, flags;
};

/* Big-endian fields. */
static inline uint32_t
live_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
live_be64(const uint8_t *p)
{
	return (uint64_t)live_be32(p) << 32 | live_be32(p + 4);
}

static inline void
live_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
live_put64(uint8_t *p, uint64_t v)
{
	live_put32(p, (uint32_t)(v >> 32));
	live_put32(p + 4, (uint32_t)v);
}

/* The command header, then the request's own bytes (len of them). */
void live_wire_cmd(uint8_t out[LIVE_CMD_HEADER], enum live_cmd cmd,
    uint64_t len);

/* Each decoder takes exactly its reply's size and returns 0, or -1 with
 * what is wrong in why (why_size bytes). */
int live_wire_session(const uint8_t p[LIVE_SESSION_SIZE],
    struct live_session_info *s, char *why, size_t why_size);
int live_wire_stream(const uint8_t p[LIVE_STREAM_SIZE],
    struct live_stream_info *s, char *why, size_t why_size);
/* An index, its sizes checked when its status is OK: whole bytes, the
 * content within the packet, the packet within LIVE_MAX_PACKET. */
int live_wire_index(const uint8_t p[LIVE_INDEX_SIZE], struct live_index *ix,
    char *why, size_t why_size);

/* The names of commands and statuses, for messages. */
const char *live_cmd_name(enum live_cmd cmd);
const char *live_index_status_name(uint32_t status);

#endif
