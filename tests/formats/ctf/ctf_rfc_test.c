/*
 * Unit tests of the 2010 RFC layout's front end (ctf_rfc2010.c): what its
 * description language becomes, the line and column of its errors, its
 * metadata packets and their damage, its fixed event headers and GNU C
 * bitfields as the CTF decoder reads them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctf/types/ctf_meta.h"
#include "ctf/stream/ctf_decode.h"
#include "ctf/rfc2010/ctf_rfc2010.h"

#define TRACE "trace { major = 1; minor = 1; }\n"

/* Description text into a resolved description (little-endian). */
static struct ctf_meta *
parse_ok(const char *text)
{
	struct ctf_meta *m = ctf_meta_new();
	m->byte_order = CTF_BO_LE;
	char err[512] = "";
	int rc = ctf_rfc_parse(m, text, strlen(text), err, sizeof err);
	if (rc == 0)
		rc = ctf_meta_resolve(m, err, sizeof err);
	if (rc != 0)
		fail_msg("unexpected error: %s", err);
	return m;
}

static const char *
parse_err(const char *text)
{
	static char err[512];
	struct ctf_meta *m = ctf_meta_new();
	m->byte_order = CTF_BO_LE;
	err[0] = '\0';
	int rc = ctf_rfc_parse(m, text, strlen(text), err, sizeof err);
	if (rc == 0)
		rc = ctf_meta_resolve(m, err, sizeof err);
	ctf_meta_free(m);
	assert_int_equal(rc, -1);
	return err;
}

static void
test_crc32(void **state)
{
	(void)state;
	/* the check value of CRC-32/IEEE */
	assert_int_equal(ctf_rfc_crc32((const uint8_t *)"123456789", 9),
	    0xCBF43926u);
	assert_int_equal(ctf_rfc_crc32(NULL, 0), 0);
}

static void
test_types(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(TRACE
	    "type u32be { parent = uint32_t; byte_order = network; }\n"
	    "type state { parent = enum; size = 4; align = 1;\n"
	    "  map = { { 0, IDLE }, { 5, \"WAIT IO\" }, { 6, \"WAIT IO\" } }; }\n"
	    "type seq { parent = sequence; length_type = uint8_t;\n"
	    "  elem_type = uint16_t; }\n"
	    "type bits { .parent = struct; fields = {\n"
	    "  { type { parent = gcc_bitfield; unit_size = 16; size = 12;\n"
	    "    signed = true; }, a, },\n"
	    "  { type { parent = gcc_bitfield; unit_size = 16; size = 5; }, b },\n"
	    "}; };\n"
	    "section { name = s; event { context { event_size = true;\n"
	    "  fields = { { int32_t, tid } }; } } }\n"
	    "event { name = \"p:e\"; id = 3; section = s; fields = {\n"
	    "  { u32be, x }, { state, st }, { seq, v }, { bits, b },\n"
	    "  { string, text } }; }\n"
	    "event { name = empty; id = 4; section = s; }\n");
	assert_non_null(m->rfc);
	assert_int_equal(m->nstreams, 1);
	const struct ctf_stream_class *sc = m->streams[0];
	assert_true(sc->payload_size);
	assert_int_equal(sc->event_context->nfields, 2);
	assert_string_equal(sc->event_context->fields[0].name, "payload_size");
	assert_string_equal(sc->event_context->fields[1].name, "tid");
	/* ids below 31: type 1, id, timestamp and the extended part */
	assert_int_equal(sc->event_header->nfields, 3);
	assert_string_equal(sc->event_header->fields[0].name, "id");
	assert_int_equal(sc->event_header->fields[0].type->size, 5);
	assert_int_equal(sc->event_header->fields[1].type->size, 27);
	const struct ctf_event_class *e = ctf_event_by_id(sc, 3);
	assert_non_null(e);
	assert_string_equal(e->name, "p:e");
	const struct ctf_type *f = e->fields;
	assert_int_equal(f->nfields, 6);	/* the sequence is two */
	assert_int_equal(f->fields[0].type->byte_order, CTF_BO_BE);
	assert_int_equal(f->fields[0].type->size, 32);
	assert_int_equal(f->fields[1].type->kind, CTF_ENUM);
	assert_string_equal(ctf_enum_label(f->fields[1].type, 6, NULL),
	    "WAIT IO");
	assert_string_equal(f->fields[2].name, "v_length");
	assert_string_equal(f->fields[3].name, "v");
	assert_int_equal(f->fields[3].type->kind, CTF_SEQUENCE);
	assert_int_equal(f->fields[3].type->length_slot, f->fields[2].slot);
	const struct ctf_type *b = f->fields[4].type;
	assert_int_equal(b->align, 16);		/* its unit */
	assert_int_equal(b->fields[0].type->unit_size, 16);
	assert_true(b->fields[0].type->is_signed);
	assert_int_equal(b->fields[0].type->align, 1);
	assert_int_equal(f->fields[5].type->kind, CTF_STRING);
	assert_null(ctf_event_by_id(sc, 4)->fields);
	ctf_meta_free(m);
	/* an id of 31 or more: type 2, the timestamp first */
	m = parse_ok(TRACE "section { name = s; }\n"
	    "event { name = a; id = 40; section = s; }\n");
	assert_int_equal(m->streams[0]->event_header->nfields, 3);
	assert_string_equal(m->streams[0]->event_header->fields[0].name,
	    "timestamp");
	assert_null(m->streams[0]->event_context);
	ctf_meta_free(m);
}

static void
test_errors(void **state)
{
	(void)state;
	assert_string_equal(parse_err("trace { major = 1; minor = 8; }\n"),
	    "line 1, column 1: unsupported RFC trace version 1.8 (expecting "
	    "1.1)");
	assert_string_equal(parse_err("section { name = s; }\n"),
	    "line 2, column 1: metadata without a trace block");
	assert_string_equal(parse_err(TRACE "type t { size = 8; }\n"),
	    "line 2, column 1: type without a parent");
	assert_string_equal(parse_err(TRACE "type t { parent = nope; }\n"),
	    "line 2, column 19: unknown parent type `nope`");
	assert_string_equal(parse_err(TRACE "type t { parent = integer; }\n"),
	    "line 2, column 1: integer type without a size");
	assert_string_equal(parse_err(TRACE
	    "type t { parent = integer; size = 8; }\n"
	    "type t { parent = integer; size = 16; }\n"),
	    "line 3, column 6: type `t` is already defined");
	assert_string_equal(parse_err(TRACE "type e { parent = enum; size = 2;\n"
	    "  map = { { 0, a }, { 4, b } }; }\n"),
	    "line 3, column 23: value 4 of label `b` does not fit in 2 bits");
	assert_string_equal(parse_err(TRACE
	    "type q { parent = sequence; length_type = uint8_t; "
	    "elem_type = uint8_t; }\n"
	    "type a { parent = array; length = 2; elem_type = q; }\n"),
	    "line 3, column 50: a sequence is only a field of a struct");
	assert_string_equal(parse_err(TRACE "section { name = s; event { "
	    "header_type = type3; } }\n"),
	    "line 2, column 43: invalid header type `type3` (type1 or type2)");
	assert_string_equal(parse_err(TRACE "section { name = s; }\n"
	    "event { name = e; id = 1; section = t; }\n"),
	    "line 3, column 1: event `e` of section `t`, which is not "
	    "declared");
	assert_string_equal(parse_err(TRACE "section { name = s; }\n"
	    "event { name = e; id = 1; section = s; fields = {\n"
	    "  { uint8_t, a }, { nope, b } }; }\n"),
	    "line 4, column 21: unknown type `nope`");
	assert_string_equal(parse_err(TRACE "section { name = s; }\n"
	    "event { name = e; id = 1; section = s; }\n"
	    "event { name = f; id = 1; section = s; }\n"),
	    "line 4, column 1: duplicate event id 1");
	assert_string_equal(parse_err(TRACE "event { name = e; section = s; }\n"),
	    "line 2, column 1: event `e` without an id");
}

/* --- metadata packets --- */

static size_t
put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (be ? 24 - 8 * i : 8 * i));
	return 4;
}

/* A metadata packet of psize bytes holding text, with a CRC-32. */
static size_t
meta_packet(uint8_t *out, const char *text, size_t psize, uint32_t session,
    bool be)
{
	size_t n = strlen(text) + 1, content = RFC_HEADER + n;
	memset(out, 0, psize);
	put32(out, RFC_MAGIC, be);
	put32(out + 4, session, be);
	put32(out + 8, (uint32_t)content, be);
	put32(out + 12, (uint32_t)psize, be);
	memcpy(out + RFC_HEADER, text, n);
	put32(out + 16, ctf_rfc_crc32(out + RFC_HEADER, n), be);
	out[44] = 32;
	out[47] = 3;
	return psize;
}

static void
test_metadata_packets(void **state)
{
	(void)state;
	uint8_t buf[1024];
	for (int be = 0; be < 2; be++) {
		size_t n = meta_packet(buf, TRACE, 256, 7, be);
		n += meta_packet(buf + n, "section { name = s; }", 256, 7, be);
		n += meta_packet(buf + n, "event { name = e; id = 0; "
		    "section = s; }", 256, 7, be);
		char err[256];
		int64_t off;
		struct ctf_meta *m = ctf_rfc_metadata(buf, n, err, sizeof err,
		    &off);
		if (m == NULL)
			fail_msg("%s", err);
		assert_int_equal(m->byte_order, be ? CTF_BO_BE : CTF_BO_LE);
		assert_int_equal(m->rfc->session_id, 7);
		assert_int_equal(m->streams[0]->nevents, 1);
		assert_true(m->sizes_in_bytes);
		ctf_meta_free(m);
	}
	char err[256];
	int64_t off;
	/* another session in the second packet */
	size_t n = meta_packet(buf, TRACE, 256, 7, false);
	n += meta_packet(buf + n, "section { name = s; }", 256, 8, false);
	assert_null(ctf_rfc_metadata(buf, n, err, sizeof err, &off));
	assert_int_equal(off, 256);
	assert_string_equal(err, "metadata packet of session 0x00000008, the "
	    "first's is 0x00000007");
	/* a changed byte: the checksum says so */
	n = meta_packet(buf, TRACE, 256, 7, false);
	buf[RFC_HEADER + 3] ^= 1;
	assert_null(ctf_rfc_metadata(buf, n, err, sizeof err, &off));
	assert_int_equal(off, 0);
	assert_non_null(strstr(err, "metadata packet content checksum"));
	/* compressed */
	n = meta_packet(buf, TRACE, 256, 7, false);
	buf[45] = 1;
	assert_null(ctf_rfc_metadata(buf, n, err, sizeof err, &off));
	assert_string_equal(err, "metadata packet compressed (scheme 1): not "
	    "supported");
	/* cut: the header, then the packet */
	n = meta_packet(buf, TRACE, 256, 7, false);
	assert_null(ctf_rfc_metadata(buf, 40, err, sizeof err, &off));
	assert_string_equal(err, "truncated metadata packet header (40 bytes)");
	assert_null(ctf_rfc_metadata(buf, 200, err, sizeof err, &off));
	assert_string_equal(err, "invalid metadata packet sizes (content 81 "
	    "bytes, packet 256 bytes, 200 left)");
	/* the strings' errors: lines counted by strings */
	n = meta_packet(buf, TRACE, 256, 7, false);
	n += meta_packet(buf + n, "section { name = s; }", 256, 7, false);
	n += meta_packet(buf + n, "event { id = 0; section = s; }", 256, 7,
	    false);
	assert_null(ctf_rfc_metadata(buf, n, err, sizeof err, &off));
	assert_int_equal(off, -1);
	assert_string_equal(err, "line 4, column 1: event without a name");
}

static void
test_section_of(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(TRACE "section { name = kernel; }\n"
	    "section { name = user; }\n");
	assert_ptr_equal(ctf_rfc_section_of(m, "kernel"), m->streams[0]);
	assert_ptr_equal(ctf_rfc_section_of(m, "dir/user_12"), m->streams[1]);
	assert_null(ctf_rfc_section_of(m, "user_"));
	assert_null(ctf_rfc_section_of(m, "user_1a"));
	assert_null(ctf_rfc_section_of(m, "other"));
	ctf_meta_free(m);
	m = parse_ok(TRACE "section { name = only; }\n");
	assert_ptr_equal(ctf_rfc_section_of(m, "anything"), m->streams[0]);
	ctf_meta_free(m);
}

/* --- the headers and bitfields, decoded --- */

static void
test_headers(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		struct ctf_meta *m = ctf_meta_new();
		m->byte_order = be ? CTF_BO_BE : CTF_BO_LE;
		char err[256];
		const char *text = TRACE
		    "section { name = a; event { header_type = type1; } }\n"
		    "section { name = b; event { header_type = type2; } }\n";
		assert_int_equal(ctf_rfc_parse(m, text, strlen(text), err,
		    sizeof err), 0);
		assert_int_equal(ctf_meta_resolve(m, err, sizeof err), 0);
		uint64_t slots[8] = { 0 };
		/* type 1: id 3, timestamp 0x123456; then id 31, the
		 * extended id 70000 and timestamp 2^40 */
		uint8_t b1[4 + 4 + 12];
		uint32_t w = be ? (3u << 27) | 0x123456 : 0x123456u << 5 | 3;
		put32(b1, w, be);
		put32(b1 + 4, be ? 31u << 27 : 31, be);
		put32(b1 + 8, 70000, be);
		put32(b1 + 12, be ? 0x100 : 0, be);
		put32(b1 + 16, be ? 0 : 0x100, be);
		const struct ctf_stream_class *sa = m->streams[0];
		struct ctf_dec d = { .buf = b1, .end = sizeof b1 * 8,
		    .slots = slots, .m = m };
		assert_int_equal(ctf_decode(&d, sa->event_header, NULL, 0), 0);
		assert_int_equal(d.event_id, 3);
		assert_int_equal(d.clock, 0x123456);
		assert_int_equal(d.pos, 32);
		assert_int_equal(ctf_decode(&d, sa->event_header, NULL, 0), 0);
		assert_int_equal(d.event_id, 70000);
		assert_int_equal(d.clock, (uint64_t)1 << 40);
		assert_int_equal(d.pos, 160);
		/* type 2: timestamp then id 9; then id 65535, timestamp
		 * 2^33 + 5 and id 123456 */
		uint8_t b2[6 + 6 + 12];
		put32(b2, 77, be);
		b2[4] = be ? 0 : 9;
		b2[5] = be ? 9 : 0;
		put32(b2 + 6, 5, be);
		b2[10] = b2[11] = 0xff;
		put32(b2 + 12, be ? 2 : 5, be);
		put32(b2 + 16, be ? 5 : 2, be);
		put32(b2 + 20, 123456, be);
		const struct ctf_stream_class *sb = m->streams[1];
		struct ctf_dec d2 = { .buf = b2, .end = sizeof b2 * 8,
		    .slots = slots, .m = m };
		assert_null(sb->hplan);
		assert_int_equal(ctf_decode(&d2, sb->event_header, NULL, 0), 0);
		assert_true(d2.has_event_id);
		assert_int_equal(d2.event_id, 9);
		assert_int_equal(d2.clock, 77);
		assert_int_equal(d2.pos, 48);
		assert_int_equal(ctf_decode(&d2, sb->event_header, NULL, 0), 0);
		assert_int_equal(d2.event_id, 123456);
		assert_int_equal(d2.clock, ((uint64_t)2 << 32) + 5);
		assert_int_equal(d2.pos, 48 + 48 + 96);
		ctf_meta_free(m);
	}
}

static void
test_bitfields(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(TRACE
	    "type bits { parent = struct; fields = {\n"
	    "  { type { parent = gcc_bitfield; unit_size = 16; size = 12;\n"
	    "    signed = true; }, a },\n"
	    "  { type { parent = gcc_bitfield; unit_size = 16; size = 5; }, b },\n"
	    "  { type { parent = gcc_bitfield; unit_size = 16; size = 3; }, c },\n"
	    "}; }\n"
	    "section { name = s; }\n"
	    "event { name = e; id = 0; section = s; fields = bits; }\n");
	const struct ctf_type *f = ctf_event_by_id(m->streams[0], 0)->fields;
	/* a = -2 in bits 0-11; b does not fit in the 4 bits left of the
	 * unit: bits 16-20; c fits after it: bits 21-23 */
	uint8_t buf[4] = { 0xfe, 0x0f, 0x13 | (5 << 5), 0 };
	ctf_vals vals = { 0 };
	uint64_t slots[4];
	struct ctf_dec d = { .buf = buf, .end = 32, .out = &vals,
	    .slots = slots };
	assert_int_equal(ctf_decode(&d, f, NULL, 0), 0);
	assert_int_equal(vals.len, 4);
	assert_int_equal(vals.items[1].v.i, -2);
	assert_int_equal(vals.items[2].v.u, 0x13);
	assert_int_equal(vals.items[3].v.u, 5);
	assert_int_equal(d.pos, 24);
	VEC_FREE(&vals);
	ctf_meta_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_metadata_packets),
		cmocka_unit_test(test_section_of),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_bitfields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
