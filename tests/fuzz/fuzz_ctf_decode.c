/*
 * libFuzzer target for the CTF decoder: the first input byte picks one of
 * a few metadata descriptions (LTTng's large header little-endian with
 * bit-packed payloads, the compact header big-endian, a barectf-like
 * layout with odd widths, variants and sequences, no packet header), the
 * rest is a data stream walked packet by packet and event by event, each
 * event printed in babeltrace2's layout to /dev/null.
 *   make fuzz-ctf && tests/fuzz/fuzz_ctf_decode -max_total_time=60
 */
#define _GNU_SOURCE	/* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_decode.h"
#include "ctf/ctf_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COMMON \
"/* CTF 1.8 */\n" \
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n" \
"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n" \
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n" \
"typealias integer { size = 27; align = 1; signed = false; " \
"map = clock.c.value; } := ts27;\n" \
"typealias integer { size = 32; align = 8; signed = false; " \
"map = clock.c.value; } := ts32;\n" \
"typealias integer { size = 64; align = 8; signed = false; " \
"map = clock.c.value; } := ts64;\n" \
"clock { name = c; freq = 1000000000; offset = 77; };\n" \
"env { hostname = \"f\"; };\n"

#define LTTNG_STREAM(hdr) \
"trace { major = 1; minor = 8; byte_order = %s; packet.header := struct {\n" \
"  uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; }; };\n" \
"stream { id = 0; event.header := struct {\n" \
hdr \
"  packet.context := struct { ts64 timestamp_begin; ts64 timestamp_end;\n" \
"  uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n" \
"  uint64_t events_discarded; uint32_t cpu_id; };\n" \
"  event.context := struct { uint32_t _vpid; uint32_t _vtid;\n" \
"  integer { size = 8; encoding = UTF8; } _procname[17]; }; };\n"

#define EVENTS \
"event { name = \"a:entry\"; id = 0; stream_id = 0; fields := struct {\n" \
"  integer { size = 64; base = 16; } _addr; }; };\n" \
"event { name = \"a:exit\"; id = 1; stream_id = 0; fields := struct { }; };\n" \
"event { name = \"a:sample\"; id = 2; stream_id = 0; fields := struct {\n" \
"  integer { size = 3; align = 1; } a; integer { size = 13; align = 1;\n" \
"  signed = true; } b; enum : integer { size = 4; align = 1; } { X, Y = 2 ...\n" \
"  9 } e; integer { size = 64; align = 1; base = 16; } big;\n" \
"  integer { size = 32; byte_order = network; } net;\n" \
"  floating_point { exp_dig = 8; mant_dig = 24; align = 8; } f;\n" \
"  floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d;\n" \
"  string s; uint8_t n; uint16_t v[n];\n" \
"  integer { size = 5; align = 1; signed = true; } small[3];\n" \
"  variant <e> { string X; struct { uint8_t k; uint8_t q[k]; } Y; } w; };\n" \
"};\n"

static const char *const large =
    COMMON LTTNG_STREAM(
"  enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
"  variant <id> { struct { ts32 timestamp; } compact;\n"
"  struct { uint32_t id; ts64 timestamp; } extended; } v; } align(8);\n")
    EVENTS;

static const char *const compact =
    COMMON LTTNG_STREAM(
"  enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
"  variant <id> { struct { ts27 timestamp; } compact;\n"
"  struct { uint32_t id; ts64 timestamp; } extended; } v; } align(8);\n")
    EVENTS;

static const char *const odd =
COMMON
"trace { major = 1; minor = 8; byte_order = be; };\n"
"stream { packet.context := struct { integer { size = 12; align = 1; }\n"
"  packet_size; integer { size = 12; align = 1; } content_size;\n"
"  integer { size = 7; align = 1; map = clock.c.value; } timestamp_begin;\n"
"  integer { size = 3; align = 1; } events_discarded; };\n"
"  event.header := struct { integer { size = 2; align = 1; } id;\n"
"  integer { size = 9; align = 1; map = clock.c.value; } timestamp; }; };\n"
"event { name = p; id = 0; fields := struct { integer { size = 1; align = 1; }\n"
"  t; string s[2]; }; };\n"
"event { name = q; id = 1; context := struct { uint8_t len; };\n"
"  fields := struct { integer { size = 7; align = 1; signed = true; }\n"
"  v[event.context.len]; }; };\n"
"event { name = r; id = 2; fields := struct { enum : integer { size = 2;\n"
"  align = 1; } { A, B } t; variant <t> { uint8_t A; uint16_t B; } v; }; };\n";

static struct ctf_meta *metas[3];
static FILE *sink;

static struct ctf_meta *
meta(int which)
{
	if (metas[which] != NULL)
		return metas[which];
	char *text = NULL;
	if (which == 0 && asprintf(&text, large, "le") < 0)
		abort();
	if (which == 1 && asprintf(&text, compact, "be") < 0)
		abort();
	if (which == 2)
		text = strdup(odd);
	struct ctf_meta *m = ctf_meta_new();
	char err[512];
	if (tsdl_parse(m, text, strlen(text), err, sizeof err) != 0 ||
	    ctf_meta_resolve(m, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz metadata %d: %s\n", which, err);
		abort();
	}
	free(text);
	metas[which] = m;
	return m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (sink == NULL)
		sink = fopen("/dev/null", "w");
	struct ctf_trace tr = { .dir = "", .m = meta(data[0] % 3) };
	struct ctf_stream s;
	memset(&s, 0, sizeof s);
	s.trace = &tr;
	s.path = "fuzz";
	s.data = data + 1;
	s.size = size - 1;
	s.d.slots = calloc((size_t)tr.m->nslots + 1, sizeof(uint64_t));
	char err[256];
	uint64_t off;
	struct ctf_text_state st = { 0 };
	for (int packets = 0; packets < 1000; packets++) {
		if (ctf_packet_open(&s, err, sizeof err, &off) != 1)
			break;
		int rc;
		while ((rc = ctf_event_next(&s, err, sizeof err, &off)) == 1) {
			struct ctf_item it = { .kind = CTF_ITEM_EVENT, .s = &s,
			    .ns = s.ns, .has_ts = s.has_ts };
			ctf_text_event(sink, &it, &st);
		}
		if (rc < 0)
			break;
	}
	free(s.d.slots);
	VEC_FREE(&s.pvals);
	VEC_FREE(&s.evals);
	return 0;
}
