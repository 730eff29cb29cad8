/*
 * For the CTF libFuzzer targets (fuzz_ctf_decode, fuzz_ctf_index): a few
 * metadata descriptions to decode fuzzed streams with, and the walk of a
 * stream packet by packet and event by event, as the reader does it.
 *
 * Descriptions: LTTng's large event header little-endian with bit-packed
 * payloads, the compact header big-endian, a barectf-like layout with odd
 * widths, variants and sequences and no packet header, and ctfgen's
 * cyg-profile layout (tests/gen/ctfgen.c, so its traces are good seeds)
 * in both byte orders, with events whose scopes are all fixed structs, so
 * that the decoder's raw path (ctf_stream.raw) has something to take.
 */
#ifndef TTV_FUZZ_CTF_H
#define TTV_FUZZ_CTF_H

#define _GNU_SOURCE	/* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/stream/ctf_packets.h"
#include "ctf/tsdl/tsdl_parse.h"
#include "../tools/ctf_runs.h"
#include "../tools/ctf_text.h"

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

/* ctfgen's layout (its metadata, with two more events: one whose body
 * is an empty struct aligned on 64 bits, which keeps the raw path off its
 * fixed layout, and one with a fixed event context) */
static const char *const cyg =
COMMON
"trace { major = 1; minor = 8; byte_order = %s; packet.header := struct {\n"
"  uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; }; };\n"
"stream { id = 0; event.header := struct {\n"
"  enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
"  variant <id> { struct { ts32 timestamp; } compact;\n"
"  struct { uint32_t id; ts64 timestamp; } extended; } v; } align(8);\n"
"  packet.context := struct { ts64 timestamp_begin; ts64 timestamp_end;\n"
"  uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
"  uint64_t events_discarded; uint32_t cpu_id; };\n"
"  event.context := struct { integer { size = 32; align = 8; signed = 1; }\n"
"  _vpid; integer { size = 32; align = 8; signed = 1; } _vtid; }; };\n"
"event { name = \"a:entry\"; id = 0; stream_id = 0; fields := struct {\n"
"  integer { size = 64; base = 16; } _addr; }; };\n"
"event { name = \"a:exit\"; id = 1; stream_id = 0; fields := struct { }; };\n"
"event { name = \"a:sample\"; id = 2; stream_id = 0; fields := struct {\n"
"  integer { size = 3; align = 1; signed = false; } _a;\n"
"  integer { size = 13; align = 1; signed = true; } _b;\n"
"  integer { size = 1; align = 1; signed = false; } _flag;\n"
"  enum : integer { size = 4; align = 1; signed = false; } {\n"
"  IDLE, RUN, \"WAIT IO\" = 5 ... 9, DONE = 15, } _state;\n"
"  integer { size = 64; align = 1; signed = false; base = 16; } _big;\n"
"  integer { size = 32; align = 8; signed = false; byte_order = network; }\n"
"  _net; floating_point { exp_dig = 8; mant_dig = 24; align = 8; } _ratio;\n"
"  floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _value;\n"
"  string _text; uint8_t __vals_length; uint16_t _vals[__vals_length];\n"
"  integer { size = 5; align = 1; signed = true; } _small[3]; }; };\n"
"event { name = \"a:pad\"; id = 3; stream_id = 0;\n"
"  context := struct { uint16_t c; }; fields := struct { } align(64); };\n"
"event { name = \"a:ctx\"; id = 4; stream_id = 0;\n"
"  context := struct { uint8_t k; uint32_t q; };\n"
"  fields := struct { uint64_t a; uint8_t b; integer { size = 16;\n"
"  byte_order = be; } c; }; };\n";

enum { FUZZ_LARGE, FUZZ_COMPACT, FUZZ_ODD, FUZZ_CYG_LE, FUZZ_CYG_BE,
    FUZZ_NMETA };

static struct ctf_meta *fuzz_metas[FUZZ_NMETA];
static FILE *fuzz_sink;

static struct ctf_meta *
fuzz_meta(int which)
{
	if (fuzz_metas[which] != NULL)
		return fuzz_metas[which];
	char *text = NULL;
	int rc = 0;
	switch (which) {
	case FUZZ_LARGE: rc = asprintf(&text, large, "le"); break;
	case FUZZ_COMPACT: rc = asprintf(&text, compact, "be"); break;
	case FUZZ_ODD: text = strdup(odd); break;
	case FUZZ_CYG_LE: rc = asprintf(&text, cyg, "le"); break;
	default: rc = asprintf(&text, cyg, "be"); break;
	}
	if (rc < 0 || text == NULL)
		abort();
	struct ctf_meta *m = ctf_meta_new();
	char err[512];
	if (tsdl_parse(m, text, strlen(text), err, sizeof err) != 0 ||
	    ctf_meta_resolve(m, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz metadata %d: %s\n", which, err);
		abort();
	}
	free(text);
	fuzz_metas[which] = m;
	return m;
}

/* Marks every event class raw or not, as formats/ctf/ctf.c marks those
 * whose scopes it reads itself, picking the first integers of its fields as
 * ctf.c picks a thread and an address: the decoder then takes its raw
 * path for those whose scopes are all fixed (in runs, ctf_fast.h), and the
 * generic one for the others. */
static void
fuzz_set_raw(struct ctf_meta *m, bool raw)
{
	for (size_t i = 0; i < m->nstreams; i++) {
		struct ctf_stream_class *sc = m->streams[i];
		for (size_t k = 0; k < sc->nevents; k++) {
			struct ctf_event_class *ev = sc->events[k];
			const struct ctf_type *t = ev->fields;
			ev->raw = raw;
			memset(ev->pick, 0, sizeof ev->pick);
			for (size_t f = 0; t != NULL && t->fixed &&
			    f < t->nfields && f < CTF_PICK_MAX; f++) {
				const struct ctf_flat_op *op = &t->ops[f];
				ev->pick[f] = (struct ctf_pick){ 3,
				    (uint8_t)op->size, op->be, op->is_signed,
				    op->off };
			}
		}
		ctf_stream_prepare(m, sc);
	}
}

/* Reads every field of a raw event's scopes where the decoder says they
 * are, as the reader would (ASan checks they are in the input). */
static uint64_t
fuzz_read_raw(const struct ctf_stream *s)
{
	const struct ctf_type *ts[4] = { NULL, s->sc->event_context,
	    s->ev->context, s->ev->fields };
	uint64_t sum = 0;
	for (int k = 1; k < 4; k++) {
		const struct ctf_type *t = ts[k];
		if (s->raw[k] == NULL || t == NULL || !t->fixed)
			continue;
		for (size_t i = 0; i < t->nfields; i++) {
			const struct ctf_flat_op *op = &t->ops[i];
			sum += ctf_read_whole(s->raw[k] + op->off, op->size,
			    op->be, op->is_signed);
		}
	}
	return sum;
}

/* Every packet and event of s, printed to /dev/null. */
static void
fuzz_walk(struct ctf_stream *s)
{
	if (fuzz_sink == NULL)
		fuzz_sink = fopen("/dev/null", "w");
	char err[256];
	uint64_t off;
	struct ctf_text_state st = { 0 };
	volatile uint64_t sum = 0;
	for (int packets = 0; packets < 1000; packets++) {
		if (ctf_packet_open(s, err, sizeof err, &off) != 1)
			break;
		/* as the reader's batches see a packet and its events */
		struct ctf_packet_info pk = { .off = s->pkt_off,
		    .vals = s->pvals.items, .root = s->pctx_root,
		    .cpu_id = s->cpu_id, .has_cpu_id = s->has_cpu_id };
		int rc = 0;
		struct ctf_item run[4];
		for (;;) {
			/* runs of raw events as the reader's batches take them,
			 * then one event the general way */
			size_t n = ctf_event_run_raw(s, &pk, run, 4);
			for (size_t i = 0; i < n; i++)
				sum += run[i].u.picked[0] + run[i].u.picked[2];
			if (n > 0) {
				sum += fuzz_read_raw(s);
				continue;
			}
			if ((rc = ctf_event_next(s, err, sizeof err, &off)) != 1)
				break;
			if (s->is_raw) {
				sum += fuzz_read_raw(s);
				continue;
			}
			struct ctf_item it = { .kind = CTF_ITEM_EVENT, .s = s,
			    .ns = s->ns, .has_ts = s->has_ts, .pkt = &pk,
			    .ev = s->ev };
			it.u.v.vals = s->evals.items;
			for (int k = 0; k < 4; k++)
				it.u.v.scope_root[k] = s->scope_root[k];
			ctf_text_event(fuzz_sink, &it, &st);
		}
		if (rc < 0)
			break;
	}
	(void)sum;
}

#endif
