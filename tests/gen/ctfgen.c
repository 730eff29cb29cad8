/*
 * ctfgen: writes CTF 1.8 or CTF 2 traces for ttv's tests and benchmark,
 * in the shape LTTng-UST gives cyg-profile traces (threads calling
 * functions, per-CPU streams, vpid/vtid contexts), with what a reader
 * must find in them.
 *
 *   ctfgen [options] OUTDIR
 *     -2          CTF 2 metadata (JSON fragments, CTF2-SPEC-2.0) describing
 *                 the same data streams, byte for byte, as CTF 1.8's
 *     -b          big-endian (default little-endian)
 *     -c          LTTng's compact event header (5-bit id, 27-bit time);
 *                 default the large one (16-bit id, 32-bit time)
 *     -p          packetized metadata (default plain text)
 *     -n CALLS    function calls to write (default 200)
 *     -t THREADS  threads (default 3), spread over 2 streams
 *     -P BYTES    packet size (default 4096)
 *     -d N        discard the instants due right after every Nth packet
 *                 starts, counted in events_discarded (default: none)
 *     -s SEED     random seed
 *     -S N        a sample event after one call event in N (default 7;
 *                 0: none, a pure function trace)
 *     -T NS       times as a busy instrumented program gives them: steps
 *                 of 1..NS ns, and a jump past the header's range only
 *                 once in 65536 events (default: steps up to 3 ms, or
 *                 40 us with -c, and a jump once in 97 events, so slices
 *                 are long and the extended header and wraps frequent)
 *     -e FILE     expected facts (see below)
 *     -i          also write LTTng's packet index (OUTDIR/index/chan_N.idx,
 *                 version 1.1, big-endian whatever the trace's order)
 *     -L FILE     the packets written, one a line: "chan_N OFFSET BYTES
 *                 EVENTS" (for tests that damage a packet)
 *     -B N        one sample event in N written 5 ms before the event
 *                 before it (a full timestamp that goes backwards)
 *     -W          a 128-bit integer field in the sample event, (k + 1)
 *                 * 2^64 + 0xFEDCBA9876543210 for the kth sample
 *     -M          with -p: metadata packets in the other byte order than
 *                 the trace's (an invalid trace, for the tests)
 *     -R          the 2010 RFC's layout instead (doc/ctf-rfc-2010.md): a
 *                 metadata section of description strings, one section
 *                 "app" in files app_0 and app_1, 48-byte packet headers
 *                 with a CRC-32 of the content; type 1 event headers with
 *                 -c, else type 2 with an event_size context; the sample
 *                 event ends with two GNU C bitfields (12 and 5 bits in
 *                 16-bit units). -d, -i, -p, -W and -M do not apply.
 *     -Z N        with -R: the Nth packet written (from 0) says it is
 *                 gzip-compressed
 *     -E N        with -R: the Nth packet written says it is encrypted
 *     -m N        a thread moves to the other stream after every N of its
 *                 events, as a scheduler moves it to another CPU (default:
 *                 each thread stays on one stream)
 *     -D RUN      instead of random calls, the base or the new run of
 *                 diffpair.h's program (ttv --diff's tests): its threads
 *                 on streams 0 and 1, functions named by their addresses,
 *                 no sample event
 *
 * Every few calls a thread also writes a "ttvgen:sample" event whose
 * fields are bit-packed (3, 13, 1 and 4-bit integers, signed and not, an
 * enum, a 64-bit integer at an odd bit, a network-order integer, a float,
 * a double, a string, a sequence and an array of 5-bit signed integers),
 * so every path of a decoder is taken. Times advance by random steps with
 * now and then a jump past the header's timestamp range (so the extended
 * header is written, as LTTng does) and they start just below a wrap of
 * the narrow timestamp, so wraps are frequent.
 *
 * The expected facts come from the writer's own bookkeeping, never from
 * reading the trace back: "events NAME N", "slices N", "slices TID N",
 * "instants N", "discarded N", "packets N", "function NAME N", and with
 * -B "backwards STREAM N" (events going backwards in each stream).
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diffpair.h"

#define NSTREAMS 2
#define MAXDEPTH 12
#define NFUNCS 24

static bool be;
static bool compact;
static bool ctf2;
static bool wide;		/* -W */
static uint64_t back_every;	/* -B */
static uint64_t migrate_every;	/* -m */
static bool rfc;		/* -R */
static uint64_t first_ts = UINT64_MAX, last_ts;	/* of all events */
static int64_t zip_packet = -1, aes_packet = -1;	/* -Z, -E */
#define RFC_SESSION 0x5E55101Du

/* --- bit writer --- */

struct wbuf {
	unsigned char *p;
	size_t cap;
	uint64_t pos;		/* bits from the packet start */
};

static void
wgrow(struct wbuf *w, uint64_t bits)
{
	size_t need = (size_t)((bits + 7) / 8) + 16;
	if (need <= w->cap)
		return;
	size_t nc = w->cap ? w->cap * 2 : 8192;
	while (nc < need)
		nc *= 2;
	w->p = realloc(w->p, nc);
	if (w->p == NULL) {
		perror("realloc");
		exit(1);
	}
	memset(w->p + w->cap, 0, nc - w->cap);
	w->cap = nc;
}

static void
walign(struct wbuf *w, unsigned a)
{
	w->pos = (w->pos + a - 1) / a * a;
	wgrow(w, w->pos);
}

/* Writes the low `size` bits of v at bit `at`, in byte order `big`. */
static void
wput_at(struct wbuf *w, uint64_t at, uint64_t v, unsigned size, bool big)
{
	wgrow(w, at + size);
	for (unsigned i = 0; i < size; i++) {
		uint64_t bit = at + i;
		unsigned char *b = &w->p[bit / 8];
		unsigned in = (unsigned)(bit % 8);
		/* little endian: bit i of the value at bit o+i counted from
		 * each byte's LSB; big endian: the value's MSB first, bits
		 * counted from each byte's MSB */
		unsigned vb = big ? (unsigned)((v >> (size - 1 - i)) & 1) :
		    (unsigned)((v >> i) & 1);
		unsigned mask = big ? 0x80u >> in : 1u << in;
		if (vb)
			*b |= (unsigned char)mask;
		else
			*b &= (unsigned char)~mask;
	}
}

static uint64_t
wput(struct wbuf *w, uint64_t v, unsigned size, unsigned align)
{
	walign(w, align);
	uint64_t at = w->pos;
	wput_at(w, at, v, size, be);
	w->pos += size;
	return at;
}

static void
wput_be(struct wbuf *w, uint64_t v, unsigned size, unsigned align)
{
	walign(w, align);
	wput_at(w, w->pos, v, size, true);
	w->pos += size;
}

static void
wstr(struct wbuf *w, const char *s)
{
	walign(w, 8);
	size_t n = strlen(s) + 1;
	wgrow(w, w->pos + n * 8);
	memcpy(w->p + w->pos / 8, s, n);
	w->pos += n * 8;
}

/* --- random --- */

static uint64_t rng = 88172645463325252u;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* --- streams and packets --- */

/* One packet as LTTng's index describes it (version 1.1). */
struct idx_entry {
	uint64_t off, psize, csize, ts_begin, ts_end, discarded, seq;
	uint64_t events;
};

struct stream {
	FILE *f;
	uint64_t file_off;	/* bytes written */
	uint64_t ts_begin;	/* of the open packet */
	uint64_t events;	/* in the open packet */
	struct idx_entry *idx;
	size_t nidx;
	struct wbuf w;
	bool open;
	uint64_t at_ts_end, at_content, at_size;
	uint64_t seq;
	uint64_t discarded;
	uint64_t last_ts;	/* time of the last event written */
	bool have_last;
	uint64_t packets;
	uint64_t backwards;	/* events earlier than the one before */
	/* -R: where the header's checksum goes, and the open event's
	 * payload_size and where its payload starts (0: none open) */
	uint64_t at_checksum;
	uint64_t at_psize, payload_start;
};

static struct stream streams[NSTREAMS];
static size_t packet_size = 4096;
static uint64_t npackets, discard_every, ndiscarded, sample_every = 7;
static unsigned discard_pending;

/* CRC-32 as zlib computes it (the RFC's checksum scheme 3). */
static uint32_t
crc32_of(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
	}
	return ~c;
}

/* -R: the payload_size of the event just written, now that its payload
 * is: its bytes from the end of the context. */
static void
payload_done(struct stream *s)
{
	if (s->at_psize == 0)
		return;
	wput_at(&s->w, s->at_psize, (s->w.pos - s->payload_start + 7) / 8, 16,
	    be);
	s->at_psize = 0;
}

static void
packet_close(struct stream *s, uint64_t ts_end)
{
	struct wbuf *w = &s->w;
	payload_done(s);
	/* the RFC counts in bytes, CTF in bits */
	uint64_t content = rfc ? (w->pos + 7) / 8 * 8 : w->pos;
	uint64_t size = (content + packet_size * 8 - 1) / (packet_size * 8) *
	    (packet_size * 8);
	wgrow(w, size);	/* the padding is zero: buffers are kept zeroed */
	wput_at(w, s->at_ts_end, ts_end, 64, be);
	if (rfc) {
		wput_at(w, s->at_content, content / 8, 32, be);
		wput_at(w, s->at_size, size / 8, 32, be);
		wput_at(w, s->at_checksum, crc32_of(w->p + 48,
		    (size_t)(content / 8 - 48)), 32, be);
	} else {
		wput_at(w, s->at_content, content, 64, be);
		wput_at(w, s->at_size, size, 64, be);
	}
	if (fwrite(w->p, 1, (size_t)(size / 8), s->f) != size / 8) {
		perror("fwrite");
		exit(1);
	}
	s->idx = realloc(s->idx, (s->nidx + 1) * sizeof *s->idx);
	if (s->idx == NULL) {
		perror("realloc");
		exit(1);
	}
	s->idx[s->nidx++] = (struct idx_entry){ s->file_off, size, content,
	    s->ts_begin, ts_end, s->discarded, s->seq - 1, s->events };
	s->file_off += size / 8;
	memset(w->p, 0, w->cap);
	w->pos = 0;
	s->open = false;
}

/* The RFC's 48-byte packet header (section 5). */
static void
rfc_packet_open(struct stream *s, uint64_t ts)
{
	struct wbuf *w = &s->w;
	w->pos = 0;
	wput(w, 0xC1FC1FC1u, 32, 8);
	wput(w, RFC_SESSION, 32, 8);
	s->at_content = wput(w, 0, 32, 8);
	s->at_size = wput(w, 0, 32, 8);
	s->at_checksum = wput(w, 0, 32, 8);
	wput(w, s->seq++, 32, 8);	/* section packet count */
	wput(w, ts, 64, 8);		/* timestamp_begin */
	s->ts_begin = ts;
	s->events = 0;
	s->at_ts_end = wput(w, 0, 64, 8);
	wput(w, s->discarded, 32, 8);
	wput(w, 32, 8, 8);		/* significant bits of the count */
	wput(w, (int64_t)npackets == zip_packet ? 2 : 0, 8, 8);	/* gzip */
	wput(w, (int64_t)npackets == aes_packet ? 1 : 0, 8, 8);	/* AES */
	wput(w, 3, 8, 8);		/* crc32 */
	s->open = true;
	s->packets++;
	npackets++;
}

static void
packet_open(struct stream *s, int id, uint64_t ts)
{
	struct wbuf *w = &s->w;
	if (rfc) {
		rfc_packet_open(s, ts);
		return;
	}
	w->pos = 0;
	wput(w, 0xC1FC1FC1u, 32, 8);
	for (int i = 0; i < 16; i++)
		wput(w, (uint64_t)(0x10 + i), 8, 8);
	wput(w, 0, 32, 8);		/* stream_id */
	wput(w, ts, 64, 8);		/* timestamp_begin */
	s->ts_begin = ts;
	s->events = 0;
	s->at_ts_end = wput(w, 0, 64, 8);
	s->at_content = wput(w, 0, 64, 8);
	s->at_size = wput(w, 0, 64, 8);
	wput(w, s->seq++, 64, 8);	/* packet_seq_num */
	if (discard_every && npackets > 0 && npackets % discard_every == 0)
		discard_pending = 2;
	/* events_discarded is the count as of the end of the packet: the
	 * events dropped right after this start are counted here */
	s->discarded += discard_pending;
	ndiscarded += discard_pending;
	wput(w, s->discarded, 64, 8);
	wput(w, (uint64_t)id, 32, 8);	/* cpu_id */
	s->open = true;
	s->packets++;
	npackets++;
}

/* Room for a worst-case event before the packet's end? */
static void
ensure_room(struct stream *s, int id, uint64_t ts)
{
	if (s->open && s->w.pos + 1024 * 8 > packet_size * 8)
		packet_close(s, s->last_ts);
	if (!s->open)
		packet_open(s, id, ts);
}

static void
event_header(struct stream *s, unsigned id, uint64_t ts)
{
	struct wbuf *w = &s->w;
	unsigned tsbits = compact ? 27 : 32;
	bool ext = s->have_last && (ts < s->last_ts ||
	    ts - s->last_ts >= ((uint64_t)1 << tsbits));
	if (!s->have_last)
		ext = true;
	payload_done(s);
	if (rfc && compact) {
		/* type 1: the whole 32 bits, then the extended part */
		walign(w, 8);
		wput(w, ext ? 31 : id, 5, 1);
		wput(w, ts & ((1u << 27) - 1), 27, 1);
		if (ext) {
			wput(w, id, 32, 8);
			wput(w, ts, 64, 8);
		}
	} else if (rfc) {
		/* type 2: timestamp then id; extended: 64-bit timestamp then
		 * 32-bit id */
		walign(w, 8);
		wput(w, ts & 0xffffffffu, 32, 8);
		wput(w, ext ? 65535 : id, 16, 8);
		if (ext) {
			wput(w, ts, 64, 8);
			wput(w, id, 32, 8);
		}
	} else if (compact) {
		walign(w, 8);
		if (ext) {
			wput(w, 31, 5, 1);
			wput(w, id, 32, 8);
			wput(w, ts, 64, 8);
		} else {
			wput(w, id, 5, 1);
			wput(w, ts & ((1u << 27) - 1), 27, 1);
		}
	} else {
		walign(w, 8);
		if (ext) {
			wput(w, 65535, 16, 8);
			wput(w, id, 32, 8);
			wput(w, ts, 64, 8);
		} else {
			wput(w, id, 16, 8);
			wput(w, ts & 0xffffffffu, 32, 8);
		}
	}
	if (s->have_last && ts < s->last_ts)
		s->backwards++;
	if (ts < first_ts)
		first_ts = ts;
	if (ts > last_ts)
		last_ts = ts;
	s->last_ts = ts;
	s->have_last = true;
	s->events++;
}

static void
context(struct stream *s, uint32_t pid, uint32_t tid)
{
	/* -R type 2 sections say their payloads' sizes */
	if (rfc && !compact)
		s->at_psize = wput(&s->w, 0, 16, 8);
	wput(&s->w, pid, 32, 8);
	wput(&s->w, tid, 32, 8);
	s->payload_start = s->w.pos;
}

/* --- metadata --- */

static const char *metadata_fmt =
"/* CTF 1.8 */\n"
"\n"
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 64; align = 8; signed = false; base = 16; } "
":= unsigned long;\n"
"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
"typealias integer { size = 27; align = 1; signed = false; "
"map = clock.monotonic.value; } := uint27_clock_monotonic_t;\n"
"typealias integer { size = 32; align = 8; signed = false; "
"map = clock.monotonic.value; } := uint32_clock_monotonic_t;\n"
"typealias integer { size = 64; align = 8; signed = false; "
"map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n"
"\n"
"trace {\n"
"\tmajor = 1;\n"
"\tminor = 8;\n"
"\tuuid = \"10111213-1415-1617-1819-1a1b1c1d1e1f\";\n"
"\tbyte_order = %s;\n"
"\tpacket.header := struct {\n"
"\t\tuint32_t magic;\n"
"\t\tuint8_t  uuid[16];\n"
"\t\tuint32_t stream_id;\n"
"\t};\n"
"};\n"
"\n"
"env {\n"
"\thostname = \"ctfgen\";\n"
"\tdomain = \"ust\";\n"
"\ttracer_name = \"ctfgen\";\n"
"};\n"
"\n"
"clock {\n"
"\tname = \"monotonic\";\n"
"\tdescription = \"ctfgen's clock\";\n"
"\tfreq = 1000000000;\n"
"\toffset_s = 1700000000;\n"
"\toffset = 123456789;\n"
"};\n"
"\n"
"struct event_header_compact {\n"
"\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
"\tvariant <id> {\n"
"\t\tstruct {\n"
"\t\t\tuint27_clock_monotonic_t timestamp;\n"
"\t\t} compact;\n"
"\t\tstruct {\n"
"\t\t\tuint32_t id;\n"
"\t\t\tuint64_clock_monotonic_t timestamp;\n"
"\t\t} extended;\n"
"\t} v;\n"
"} align(8);\n"
"\n"
"struct event_header_large {\n"
"\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
"\tvariant <id> {\n"
"\t\tstruct {\n"
"\t\t\tuint32_clock_monotonic_t timestamp;\n"
"\t\t} compact;\n"
"\t\tstruct {\n"
"\t\t\tuint32_t id;\n"
"\t\t\tuint64_clock_monotonic_t timestamp;\n"
"\t\t} extended;\n"
"\t} v;\n"
"} align(8);\n"
"\n"
"stream {\n"
"\tid = 0;\n"
"\tevent.header := struct event_header_%s;\n"
"\tpacket.context := struct {\n"
"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
"\t\tuint64_clock_monotonic_t timestamp_end;\n"
"\t\tuint64_t content_size;\n"
"\t\tuint64_t packet_size;\n"
"\t\tuint64_t packet_seq_num;\n"
"\t\tunsigned long events_discarded;\n"
"\t\tuint32_t cpu_id;\n"
"\t};\n"
"\tevent.context := struct {\n"
"\t\tinteger { size = 32; align = 8; signed = 1; } _vpid;\n"
"\t\tinteger { size = 32; align = 8; signed = 1; } _vtid;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"lttng_ust_cyg_profile_fast:func_entry\";\n"
"\tid = 0;\n"
"\tstream_id = 0;\n"
"\tloglevel = 12;\n"
"\tfields := struct {\n"
"\t\tunsigned long _addr;\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"lttng_ust_cyg_profile_fast:func_exit\";\n"
"\tid = 1;\n"
"\tstream_id = 0;\n"
"\tloglevel = 12;\n"
"\tfields := struct {\n"
"\t};\n"
"};\n"
"\n"
"event {\n"
"\tname = \"ttvgen:sample\";\n"
"\tid = 2;\n"
"\tstream_id = 0;\n"
"\tfields := struct {\n"
"\t\tinteger { size = 3; align = 1; signed = false; } _a;\n"
"\t\tinteger { size = 13; align = 1; signed = true; } _b;\n"
"\t\tinteger { size = 1; align = 1; signed = false; } _flag;\n"
"\t\tenum : integer { size = 4; align = 1; signed = false; } {\n"
"\t\t\tIDLE, RUN, \"WAIT IO\" = 5 ... 9, DONE = 15,\n"
"\t\t} _state;\n"
"\t\tinteger { size = 64; align = 1; signed = false; base = 16; } _big;\n"
"\t\tinteger { size = 32; align = 8; signed = false; "
"byte_order = network; } _net;\n"
"\t\tfloating_point { exp_dig = 8; mant_dig = 24; align = 8; } _ratio;\n"
"\t\tfloating_point { exp_dig = 11; mant_dig = 53; align = 8; } _value;\n"
"\t\tstring _text;\n"
"\t\tuint8_t __vals_length;\n"
"\t\tuint16_t _vals[__vals_length];\n"
"\t\tinteger { size = 5; align = 1; signed = true; } _small[3];\n"
"%s"
"\t};\n"
"};\n";

/* The same layout in CTF 2: roles instead of reserved names, the event
 * header's variant selecting by ranges, member names as TSDL shows them
 * (one leading underscore off). One fragment a line, each after RS. */
static const char *metadata2_fmt =
"\x1e{\"type\":\"preamble\",\"version\":2,\"uuid\":[16,17,18,19,20,21,22,23,"
"24,25,26,27,28,29,30,31]}\n"
"\x1e{\"type\":\"field-class-alias\",\"name\":\"uint32_t\",\"field-class\":"
"{\"type\":\"fixed-length-unsigned-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}}\n"
"\x1e{\"type\":\"trace-class\",\"environment\":{\"hostname\":\"ctfgen\","
"\"domain\":\"ust\",\"tracer_name\":\"ctfgen\"},"
"\"packet-header-field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"magic\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"preferred-display-base\":16,"
"\"roles\":[\"packet-magic-number\"]}},"
"{\"name\":\"uuid\",\"field-class\":{\"type\":\"static-length-blob\","
"\"length\":16,\"roles\":[\"metadata-stream-uuid\"]}},"
"{\"name\":\"stream_id\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"data-stream-class-id\"]}}]}}\n"
"\x1e{\"type\":\"clock-class\",\"id\":\"monotonic\",\"name\":\"monotonic\","
"\"description\":\"ctfgen's clock\",\"frequency\":1000000000,"
"\"offset-from-origin\":{\"seconds\":1700000000,\"cycles\":123456789}}\n"
"\x1e{\"type\":\"data-stream-class\",\"id\":0,"
"\"default-clock-class-id\":\"monotonic\","
"\"packet-context-field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"timestamp_begin\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"default-clock-timestamp\"]}},"
"{\"name\":\"timestamp_end\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"packet-end-default-clock-timestamp\"]"
"}},"
"{\"name\":\"content_size\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"packet-content-length\"]}},"
"{\"name\":\"packet_size\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"packet-total-length\"]}},"
"{\"name\":\"packet_seq_num\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"packet-sequence-number\"]}},"
"{\"name\":\"events_discarded\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"preferred-display-base\":16,"
"\"roles\":[\"discarded-event-record-counter-snapshot\"]}},"
"{\"name\":\"cpu_id\",\"field-class\":\"uint32_t\"}]},"
"\"event-record-header-field-class\":{\"type\":\"structure\","
"\"minimum-alignment\":8,\"member-classes\":["
"{\"name\":\"id\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":%2$d,\"alignment\":%3$d,"
"\"byte-order\":\"%1$s\",\"mappings\":{\"compact\":[[0,%4$d]],"
"\"extended\":[[%5$d,%5$d]]},\"roles\":[\"event-record-class-id\"]}},"
"{\"name\":\"v\",\"field-class\":{\"type\":\"variant\","
"\"selector-field-location\":{\"origin\":\"event-record-header\","
"\"path\":[\"id\"]},\"options\":["
"{\"name\":\"compact\",\"selector-field-ranges\":[[0,%4$d]],"
"\"field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"timestamp\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":%6$d,\"alignment\":%3$d,"
"\"byte-order\":\"%1$s\",\"roles\":[\"default-clock-timestamp\"]}}]}},"
"{\"name\":\"extended\",\"selector-field-ranges\":[[%5$d,%5$d]],"
"\"field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"id\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"event-record-class-id\"]}},"
"{\"name\":\"timestamp\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"roles\":[\"default-clock-timestamp\"]}}]}}]}}]},"
"\"event-record-common-context-field-class\":{\"type\":\"structure\","
"\"member-classes\":["
"{\"name\":\"vpid\",\"field-class\":{\"type\":"
"\"fixed-length-signed-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}},"
"{\"name\":\"vtid\",\"field-class\":{\"type\":"
"\"fixed-length-signed-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}}]}}\n"
"\x1e{\"type\":\"event-record-class\",\"id\":0,\"data-stream-class-id\":0,"
"\"name\":\"lttng_ust_cyg_profile_fast:func_entry\","
"\"attributes\":{\"lttng.org,2009\":{\"log-level\":\"debug-function\"}},"
"\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"addr\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\",\"preferred-display-base\":16}}]}}\n"
"\x1e{\"type\":\"event-record-class\",\"id\":1,\"data-stream-class-id\":0,"
"\"name\":\"lttng_ust_cyg_profile_fast:func_exit\","
"\"attributes\":{\"lttng.org,2009\":{\"log-level\":\"debug-function\"}},"
"\"payload-field-class\":{\"type\":\"structure\"}}\n"
"\x1e{\"type\":\"event-record-class\",\"id\":2,\"data-stream-class-id\":0,"
"\"name\":\"ttvgen:sample\","
"\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":["
"{\"name\":\"a\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":3,\"byte-order\":\"%1$s\"}},"
"{\"name\":\"b\",\"field-class\":{\"type\":"
"\"fixed-length-signed-integer\",\"length\":13,\"byte-order\":\"%1$s\"}},"
"{\"name\":\"flag\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":1,\"byte-order\":\"%1$s\"}},"
"{\"name\":\"state\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":4,\"byte-order\":\"%1$s\","
"\"mappings\":{\"IDLE\":[[0,0]],\"RUN\":[[1,1]],\"WAIT IO\":[[5,9]],"
"\"DONE\":[[15,15]]}}},"
"{\"name\":\"big\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":64,\"byte-order\":\"%1$s\","
"\"preferred-display-base\":16}},"
"{\"name\":\"net\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"big-endian\"}},"
"{\"name\":\"ratio\",\"field-class\":{\"type\":"
"\"fixed-length-floating-point-number\",\"length\":32,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}},"
"{\"name\":\"value\",\"field-class\":{\"type\":"
"\"fixed-length-floating-point-number\",\"length\":64,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}},"
"{\"name\":\"text\",\"field-class\":{\"type\":\"null-terminated-string\"}},"
"{\"name\":\"_vals_length\",\"field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":8,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}},"
"{\"name\":\"vals\",\"field-class\":{\"type\":\"dynamic-length-array\","
"\"length-field-location\":{\"origin\":\"event-record-payload\","
"\"path\":[\"_vals_length\"]},\"element-field-class\":{\"type\":"
"\"fixed-length-unsigned-integer\",\"length\":16,\"alignment\":8,"
"\"byte-order\":\"%1$s\"}}},"
"{\"name\":\"small\",\"field-class\":{\"type\":\"static-length-array\","
"\"length\":3,\"element-field-class\":{\"type\":"
"\"fixed-length-signed-integer\",\"length\":5,\"byte-order\":\"%1$s\"}}}"
"]}}\n";
/* -R: the description strings of the metadata section, one entry each;
 * the section's header type and event_size go in with printf. */
static const char *const rfc_entries[] = {
"trace {\n"
"\tmajor = 1;\n"
"\tminor = 1;\n"
"}\n",
"type state_t {\n"
"\tparent = enum;\n"
"\tsize = 4;\n"
"\tsigned = false;\n"
"\talign = 1;\n"
"\tmap = {\n"
"\t\t{ 0, IDLE },\n"
"\t\t{ 1, RUN },\n"
"\t\t{ 5, \"WAIT IO\" }, { 6, \"WAIT IO\" }, { 7, \"WAIT IO\" },\n"
"\t\t{ 8, \"WAIT IO\" }, { 9, \"WAIT IO\" },\n"
"\t\t{ 15, DONE },\n"
"\t};\n"
"}\n",
"type addr_t {\n"
"\tparent = uint64_t;\n"
"\tbase = 16;\n"
"}\n",
"type vals_t {\n"
"\tparent = sequence;\n"
"\tlength_type = uint8_t;\n"
"\telem_type = uint16_t;\n"
"}\n",
"type small_t {\n"
"\tparent = array;\n"
"\tlength = 3;\n"
"\telem_type = type {\n"
"\t\tparent = integer;\n"
"\t\tsize = 5;\n"
"\t\tsigned = true;\n"
"\t\talign = 1;\n"
"\t};\n"
"}\n",
"type pair_t {\n"
"\tparent = struct;\n"
"\tfields = {\n"
"\t\t{\n"
"\t\t\ttype {\n"
"\t\t\t\tparent = gcc_bitfield;\n"
"\t\t\t\tunit_size = 16;\n"
"\t\t\t\tsize = 12;\n"
"\t\t\t\tsigned = true;\n"
"\t\t\t\talign = 1;\n"
"\t\t\t},\n"
"\t\t\tlo,\n"
"\t\t},\n"
"\t\t{\n"
"\t\t\ttype {\n"
"\t\t\t\tparent = gcc_bitfield;\n"
"\t\t\t\tunit_size = 16;\n"
"\t\t\t\tsize = 5;\n"
"\t\t\t\tsigned = true;\n"
"\t\t\t\talign = 1;\n"
"\t\t\t},\n"
"\t\t\thi,\n"
"\t\t},\n"
"\t};\n"
"}\n",
"type sample_t {\n"
"\tparent = struct;\n"
"\tfields = {\n"
"\t\t{ type { parent = integer; size = 3; signed = false; align = 1; }, a },\n"
"\t\t{ type { parent = integer; size = 13; signed = true; align = 1; }, b },\n"
"\t\t{ type { parent = integer; size = 1; align = 1; }, flag },\n"
"\t\t{ state_t, state },\n"
"\t\t{ type { parent = integer; size = 64; align = 1; base = 16; }, "
"big },\n"
"\t\t{ type { parent = integer; size = 32; byte_order = network; "
"align = 8; }, net },\n"
"\t\t{ type { parent = floating_point; size = 32; align = 8; }, ratio },\n"
"\t\t{ type { parent = floating_point; size = 64; align = 8; }, value },\n"
"\t\t{ string, text },\n"
"\t\t{ vals_t, vals },\n"
"\t\t{ small_t, small },\n"
"\t\t{ pair_t, pair },\n"
"\t};\n"
"}\n",
"section {\n"
"\tname = app;\n"
"\tevent {\n"
"\t\theader_type = %s;\n"
"\t\tcontext {\n"
"\t\t\tevent_size = %s;\n"
"\t\t\tfields = {\n"
"\t\t\t\t{ int32_t, vpid },\n"
"\t\t\t\t{ int32_t, vtid },\n"
"\t\t\t};\n"
"\t\t}\n"
"\t}\n"
"}\n",
"event {\n"
"\tname = \"lttng_ust_cyg_profile_fast:func_entry\";\n"
"\tid = 0;\n"
"\tsection = app;\n"
"\tfields = {\n"
"\t\t{ addr_t, addr },\n"
"\t};\n"
"}\n",
"event {\n"
"\tname = \"lttng_ust_cyg_profile_fast:func_exit\";\n"
"\tid = 1;\n"
"\tsection = app;\n"
"\tfields = { };\n"
"}\n",
"event {\n"
"\tname = \"ttvgen:sample\";\n"
"\tid = 2;\n"
"\tsection = app;\n"
"\tfields = sample_t;\n"
"}\n",
};

/* -R: the metadata section, packets of whole NUL-terminated entries. */
static void
write_rfc_metadata(const char *path)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	const size_t psize = 1024;	/* small: several packets */
	size_t ne = sizeof rfc_entries / sizeof rfc_entries[0], e = 0;
	uint32_t count = 0;
	while (e < ne) {
		struct wbuf w = { 0 };
		wgrow(&w, psize * 8);
		w.pos = 48 * 8;
		for (; e < ne; e++) {
			char *text = NULL;
			if (asprintf(&text, rfc_entries[e], compact ? "type1" :
			    "type2", compact ? "false" : "true") < 0)
				exit(1);
			size_t n = strlen(text) + 1;
			if (n > psize - 48) {
				fprintf(stderr, "ctfgen: metadata entry too "
				    "long\n");
				exit(1);
			}
			if (w.pos / 8 + n > psize) {
				free(text);
				break;
			}
			memcpy(w.p + w.pos / 8, text, n);
			w.pos += n * 8;
			free(text);
		}
		uint64_t content = w.pos / 8;
		w.pos = 0;
		wput(&w, 0xC1FC1FC1u, 32, 8);
		wput(&w, RFC_SESSION, 32, 8);
		wput(&w, content, 32, 8);
		wput(&w, psize, 32, 8);
		wput(&w, crc32_of(w.p + 48, (size_t)content - 48), 32, 8);
		wput(&w, count++, 32, 8);
		wput(&w, 0, 64, 8);
		wput(&w, 0, 64, 8);
		wput(&w, 0, 32, 8);
		wput(&w, 32, 8, 8);
		wput(&w, 0, 8, 8);
		wput(&w, 0, 8, 8);
		wput(&w, 3, 8, 8);
		if (fwrite(w.p, 1, psize, f) != psize) {
			perror("fwrite");
			exit(1);
		}
		free(w.p);
	}
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
write_packetized(const char *path, const char *text, bool other_order)
{
	bool trace_be = be;
	be = other_order ? !be : be;	/* wput's order */
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	size_t len = strlen(text), off = 0;
	const size_t psize = 4096, room = psize - 37;
	while (off < len) {
		size_t n = len - off < room ? len - off : room;
		struct wbuf w = { 0 };
		wput(&w, 0x75D11D57u, 32, 8);
		for (int i = 0; i < 16; i++)
			wput(&w, (uint64_t)(0x10 + i), 8, 8);
		wput(&w, 0, 32, 8);			/* checksum */
		wput(&w, (37 + n) * 8, 32, 8);		/* content_size */
		wput(&w, psize * 8, 32, 8);		/* packet_size */
		wput(&w, 0, 8, 8);	/* compression, encryption, checksum */
		wput(&w, 0, 8, 8);
		wput(&w, 0, 8, 8);
		wput(&w, ctf2 ? 2 : 1, 8, 8);		/* major */
		wput(&w, ctf2 ? 0 : 8, 8, 8);		/* minor */
		wgrow(&w, psize * 8);
		memcpy(w.p + 37, text + off, n);
		memset(w.p + 37 + n, 0, psize - 37 - n);
		if (fwrite(w.p, 1, psize, f) != psize) {
			perror("fwrite");
			exit(1);
		}
		free(w.p);
		off += n;
	}
	be = trace_be;
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* --- the threads --- */

struct thread {
	uint32_t tid;
	int stack[MAXDEPTH];
	int depth;
	uint64_t slices;
	unsigned stream;	/* where its events go now (-m) */
	uint64_t events;
};

static uint64_t func_count[NFUNCS];
static uint64_t nentry, nexit, nsample, nslices;

static uint64_t
func_addr(int f)
{
	return 0x55550000a000u + (uint64_t)f * 0x40;
}

static void
write_sample(struct stream *s, uint64_t ts, uint32_t pid, uint32_t tid,
    uint64_t k)
{
	struct wbuf *w = &s->w;
	event_header(s, 2, ts);
	context(s, pid, tid);
	if (rfc)
		walign(w, 16);	/* the struct holds 16-bit units */
	wput(w, k & 7, 3, 1);
	wput(w, (uint64_t)(int64_t)((int)(k % 8000) - 4000) & 0x1fff, 13, 1);
	wput(w, k & 1, 1, 1);
	static const unsigned states[] = { 0, 1, 5, 7, 9, 15, 3 };
	wput(w, states[k % 7], 4, 1);
	wput(w, 0x8000000000000001u ^ (k * 0x9E3779B97F4A7C15u), 64, 1);
	wput_be(w, (uint32_t)(k * 2654435761u), 32, 8);
	float r = (float)(k % 1000) / 8.0f;
	uint32_t rb;
	memcpy(&rb, &r, 4);
	wput(w, rb, 32, 8);
	double v = (double)k * 1.5 - 1000.25;
	uint64_t vb;
	memcpy(&vb, &v, 8);
	wput(w, vb, 64, 8);
	char text[64];
	snprintf(text, sizeof text, "sample %" PRIu64 " of thread %u", k, tid);
	wstr(w, text);
	unsigned n = (unsigned)(k % 5);
	wput(w, n, 8, 8);
	for (unsigned i = 0; i < n; i++)
		wput(w, (k + i) & 0xffff, 16, 8);
	for (int i = 0; i < 3; i++)
		wput(w, (uint64_t)(int64_t)((int)((k + (uint64_t)i) % 32) - 16) &
		    0x1f, 5, 1);
	if (rfc) {
		/* GNU C bitfields: a 12-bit one, then a 5-bit one that does
		 * not fit in what is left of the 16-bit unit */
		walign(w, 16);
		wput(w, (uint64_t)((int64_t)(k % 4000) - 2000) & 0xfff, 12, 1);
		walign(w, 16);
		wput(w, (uint64_t)((int64_t)(k % 32) - 16) & 0x1f, 5, 1);
	}
	if (wide) {
		/* 128 bits in the trace's order: the low half first in
		 * little-endian */
		walign(w, 8);
		uint64_t lo = 0xFEDCBA9876543210u, hi = k + 1;
		wput_at(w, w->pos, be ? hi : lo, 64, be);
		wput_at(w, w->pos + 64, be ? lo : hi, 64, be);
		w->pos += 128;
	}
}

static void
put_be(FILE *f, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		fputc((int)(v >> (8 * (bytes - 1 - i)) & 0xff), f);
}

/* LTTng's index of each stream: a big-endian 16-byte header (magic,
 * version 1.1, entry size 72) and one entry per packet. */
static void
write_index(const char *out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/index", out);
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < NSTREAMS; i++) {
		snprintf(path, sizeof path, "%s/index/chan_%d.idx", out, i);
		FILE *f = fopen(path, "wb");
		if (f == NULL) {
			perror(path);
			exit(1);
		}
		put_be(f, 0xC1F1DCC1u, 4);
		put_be(f, 1, 4);
		put_be(f, 1, 4);
		put_be(f, 72, 4);
		for (size_t k = 0; k < streams[i].nidx; k++) {
			const struct idx_entry *x = &streams[i].idx[k];
			put_be(f, x->off, 8);
			put_be(f, x->psize, 8);
			put_be(f, x->csize, 8);
			put_be(f, x->ts_begin, 8);
			put_be(f, x->ts_end, 8);
			put_be(f, x->discarded, 8);
			put_be(f, 0, 8);		/* stream_id */
			put_be(f, (uint64_t)i, 8);	/* stream_instance_id */
			put_be(f, x->seq, 8);
		}
		if (fclose(f) != 0) {
			perror(path);
			exit(1);
		}
	}
}

static void
write_packet_list(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < NSTREAMS; i++)
		for (size_t k = 0; k < streams[i].nidx; k++)
			fprintf(f, "%s_%d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			    rfc ? "app" : "chan", i, streams[i].idx[k].off,
			    streams[i].idx[k].psize / 8,
			    streams[i].idx[k].events);
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: ctfgen [-2] [-b] [-c] [-p] [-n CALLS] [-t THREADS] "
	    "[-P BYTES] [-d N] [-s SEED] [-S N] [-T NS] [-e FILE] [-i] [-L FILE] "
	    "[-B N] [-W] [-M] [-R] [-Z N] [-E N] [-D base|new] [-m N] OUTDIR\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	uint64_t calls = 200;
	uint64_t max_step = 0;	/* -T */
	unsigned nthreads = 3;
	bool packetized = false;
	const char *expected = NULL, *packet_list = NULL;
	bool index = false, other_order = false;
	int diff_run = -1;	/* -D: 0 base, 1 new */
	int c;
	while ((c = getopt(argc, argv, "2bcpn:t:P:d:s:S:T:e:iL:B:WMRZ:E:D:m:")) != -1) {
		switch (c) {
		case '2': ctf2 = true; break;
		case 'b': be = true; break;
		case 'c': compact = true; break;
		case 'p': packetized = true; break;
		case 'n': calls = strtoull(optarg, NULL, 0); break;
		case 't': nthreads = (unsigned)atoi(optarg); break;
		case 'P': packet_size = strtoull(optarg, NULL, 0); break;
		case 'd': discard_every = strtoull(optarg, NULL, 0); break;
		case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
		case 'S': sample_every = strtoull(optarg, NULL, 0); break;
		case 'T': max_step = strtoull(optarg, NULL, 0); break;
		case 'e': expected = optarg; break;
		case 'i': index = true; break;
		case 'L': packet_list = optarg; break;
		case 'B': back_every = strtoull(optarg, NULL, 0); break;
		case 'W': wide = true; break;
		case 'm': migrate_every = strtoull(optarg, NULL, 0); break;
		case 'M': other_order = true; break;
		case 'R': rfc = true; break;
		case 'Z': zip_packet = (int64_t)strtoull(optarg, NULL, 0); break;
		case 'E': aes_packet = (int64_t)strtoull(optarg, NULL, 0); break;
		case 'D':
			diff_run = strcmp(optarg, "new") == 0 ? 1 :
			    strcmp(optarg, "base") == 0 ? 0 : -2;
			if (diff_run < 0)
				usage();
			break;
		default: usage();
		}
	}
	if (optind + 1 != argc || nthreads < 1 || nthreads > 64 ||
	    packet_size < 2048 || packet_size % 8 != 0 ||
	    (rfc && (discard_every || index || packetized || wide ||
	    other_order)))
		usage();
	const char *out = argv[optind];
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		perror(out);
		return 1;
	}
	char path[4096];
	char *meta = NULL;
	if (ctf2 && (wide || rfc)) {
		fprintf(stderr, "ctfgen: -2 goes with neither -W nor -R\n");
		return 2;
	}
	if (ctf2 ? asprintf(&meta, metadata2_fmt,
	    be ? "big-endian" : "little-endian", compact ? 5 : 16,
	    compact ? 1 : 8, compact ? 30 : 65534, compact ? 31 : 65535,
	    compact ? 27 : 32) < 0 : asprintf(&meta, metadata_fmt,
	    be ? "be" : "le", compact ? "compact" : "large", wide ?
	    "\t\tinteger { size = 128; align = 8; signed = false; base = 16; "
	    "} _wide;\n" : "") < 0)
		return 1;
	snprintf(path, sizeof path, "%s/metadata", out);
	if (rfc)
		write_rfc_metadata(path);
	else if (packetized)
		write_packetized(path, meta, other_order);
	else
		write_text(path, meta);
	free(meta);
	for (int i = 0; i < NSTREAMS; i++) {
		snprintf(path, sizeof path, rfc ? "%s/app_%d" : "%s/chan_%d",
		    out, i);
		streams[i].f = fopen(path, "wb");
		if (streams[i].f == NULL) {
			perror(path);
			return 1;
		}
	}

	struct thread th[64];
	memset(th, 0, sizeof th);
	const uint32_t pid = 4242;
	for (unsigned i = 0; i < nthreads; i++) {
		th[i].tid = pid + i;
		th[i].stream = i % NSTREAMS;
	}
	/* just below a wrap of the narrow timestamp, so it wraps early */
	uint64_t ts = compact ? ((uint64_t)5 << 27) - 5000 :
	    ((uint64_t)3 << 32) - 50000;
	uint64_t written = 0, k = 0;
	if (diff_run >= 0) {
		/* diffpair.h's program, 1 cycle a ns from ts */
		struct dp_trace dp = { 0 };
		dp_program(diff_run == 1, &dp);
		for (size_t i = 0; i < dp.n; i++) {
			const struct dp_event *e = &dp.ev[i];
			struct stream *s = &streams[e->thread];
			uint32_t tid = (uint32_t)dp_tid(diff_run == 1, e->thread);
			uint64_t at = ts + e->ns;
			ensure_room(s, e->thread, at);
			event_header(s, e->enter ? 0 : 1, at);
			context(s, pid, tid);
			if (e->enter) {
				wput(&s->w, dp_addr(e->func), 64, 8);
				func_count[e->func]++;
				nentry++;
			} else {
				nexit++;
				nslices++;
			}
		}
		free(dp.ev);
		written = calls;
	}
	for (;;) {
		bool any_open = false;
		for (unsigned i = 0; i < nthreads; i++)
			if (th[i].depth > 0)
				any_open = true;
		if (written >= calls && !any_open)
			break;
		unsigned ti = (unsigned)(rnd() % nthreads);
		struct thread *t = &th[ti];
		unsigned si = migrate_every ? t->stream : ti % NSTREAMS;
		struct stream *s = &streams[si];
		/* steps: mostly short, now and then past the header's range */
		uint64_t r = rnd();
		if (r % (max_step ? 65536 : 97) == 0)
			ts += compact ? ((uint64_t)1 << 27) + (r >> 40) :
			    ((uint64_t)1 << 32) + (r >> 36);
		else
			ts += 1 + (r >> 20) % (max_step ? max_step :
			    compact ? 40000 : 3000000);
		ensure_room(s, (int)si, ts);
		bool enter = written < calls && t->depth < MAXDEPTH &&
		    (t->depth == 0 || rnd() % 100 < 45);
		if (enter) {
			int f = (int)(rnd() % NFUNCS);
			event_header(s, 0, ts);
			context(s, pid, t->tid);
			wput(&s->w, func_addr(f), 64, 8);
			t->stack[t->depth++] = f;
			func_count[f]++;
			nentry++;
			written++;
		} else if (t->depth > 0) {
			event_header(s, 1, ts);
			context(s, pid, t->tid);
			t->depth--;
			t->slices++;
			nslices++;
			nexit++;
		} else
			continue;
		if (sample_every && rnd() % sample_every == 0) {
			ts += 1 + rnd() % 1000;
			ensure_room(s, (int)si, ts);
			if (discard_pending > 0) {
				discard_pending--;	/* dropped, as a full
							 * buffer would */
				k++;
			} else {
				/* now and then, earlier than the event just
				 * written (-B) */
				bool back = back_every &&
				    (nsample + 1) % back_every == 0;
				write_sample(s, back ? ts - 5000000 : ts, pid,
				    t->tid, k++);
				nsample++;
			}
		}
		if (migrate_every && ++t->events % migrate_every == 0)
			t->stream = (t->stream + 1) % NSTREAMS;
	}
	for (int i = 0; i < NSTREAMS; i++) {
		if (streams[i].open)
			packet_close(&streams[i], streams[i].last_ts);
		if (fclose(streams[i].f) != 0) {
			perror("fclose");
			return 1;
		}
		free(streams[i].w.p);
	}
	if (index)
		write_index(out);
	if (packet_list != NULL)
		write_packet_list(packet_list);
	for (int i = 0; i < NSTREAMS; i++)
		free(streams[i].idx);
	/* "discarded" is what the packets' counters say, which is what a
	 * reader can know */
	if (expected != NULL) {
		FILE *f = fopen(expected, "w");
		if (f == NULL) {
			perror(expected);
			return 1;
		}
		fprintf(f, "events lttng_ust_cyg_profile_fast:func_entry %" PRIu64
		    "\n", nentry);
		fprintf(f, "events lttng_ust_cyg_profile_fast:func_exit %" PRIu64
		    "\n", nexit);
		fprintf(f, "events ttvgen:sample %" PRIu64 "\n", nsample);
		fprintf(f, "slices %" PRIu64 "\n", nslices);
		for (unsigned i = 0; i < nthreads; i++)
			fprintf(f, "slices %u %" PRIu64 "\n", th[i].tid,
			    th[i].slices);
		fprintf(f, "instants %" PRIu64 "\n", nsample);
		fprintf(f, "discarded %" PRIu64 "\n", ndiscarded);
		fprintf(f, "packets %" PRIu64 "\n", npackets);
		/* -R: the first and last event's times (ticks) */
		if (rfc)
			fprintf(f, "times %" PRIu64 " %" PRIu64 "\n", first_ts,
			    last_ts);
		for (int i = 0; back_every && i < NSTREAMS; i++)
			fprintf(f, "backwards chan_%d %" PRIu64 "\n", i,
			    streams[i].backwards);
		for (int i = 0; i < NFUNCS; i++)
			if (func_count[i])
				fprintf(f, "function 0x%" PRIx64 " %" PRIu64 "\n",
				    func_addr(i), func_count[i]);
		if (fclose(f) != 0) {
			perror(expected);
			return 1;
		}
	}
	return 0;
}
