/*
 * Unit tests of the TSDL front end (tsdl_lex.c, tsdl_parse.c), the layout
 * resolution (ctf_types.c) and the bit-level decoder (ctf_decode.c):
 * what each construct becomes, and the line and column of each error.
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
#include "ctf/tsdl/tsdl_parse.h"
#include "ctf/stream/ctf_decode.h"
#include "ctf/stream/ctf_fast.h"

#define HEAD "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n"

static struct ctf_meta *
parse_ok(const char *text)
{
	struct ctf_meta *m = ctf_meta_new();
	char err[512] = "";
	int rc = tsdl_parse(m, text, strlen(text), err, sizeof err);
	if (rc == 0)
		rc = ctf_meta_resolve(m, err, sizeof err);
	if (rc != 0)
		fail_msg("unexpected error: %s", err);
	return m;
}

/* The error message of text (parse or resolve). */
static const char *
parse_err(const char *text)
{
	static char err[512];
	struct ctf_meta *m = ctf_meta_new();
	err[0] = '\0';
	int rc = tsdl_parse(m, text, strlen(text), err, sizeof err);
	if (rc == 0)
		rc = ctf_meta_resolve(m, err, sizeof err);
	ctf_meta_free(m);
	assert_int_equal(rc, -1);
	return err;
}

static const struct ctf_type *
fields_of(struct ctf_meta *m, size_t ev)
{
	assert_true(m->nstreams >= 1);
	assert_true(m->streams[0]->nevents > ev);
	return m->streams[0]->events[ev]->fields;
}

static void
test_integers_and_aliases(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "typealias integer { size = 64; signed = false; base = hex; } "
	    ":= unsigned long;\n"
	    "typealias integer { size = 5; align = 1; signed = true; } := s5;\n"
	    "typealias integer { size = 16; byte_order = be; } := u16be;\n"
	    "event { name = e; fields := struct {\n"
	    "  unsigned long a; s5 b; u16be c;\n"
	    "  integer { size = 3; } d;\n"
	    "}; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	assert_int_equal(f->nfields, 4);
	assert_string_equal(f->fields[0].name, "a");
	assert_int_equal(f->fields[0].type->size, 64);
	assert_int_equal(f->fields[0].type->align, 8);	/* default */
	assert_int_equal(f->fields[0].type->base, 16);
	assert_int_equal(f->fields[0].type->byte_order, CTF_BO_LE);	/* native */
	assert_true(f->fields[1].type->is_signed);
	assert_int_equal(f->fields[1].type->align, 1);
	assert_int_equal(f->fields[2].type->byte_order, CTF_BO_BE);
	assert_int_equal(f->fields[3].type->align, 1);	/* not a byte multiple */
	assert_int_equal(f->align, 8);
	ctf_meta_free(m);
}

static void
test_lexical_scopes(void **state)
{
	(void)state;
	/* an alias declared in a struct is not seen outside it */
	const char *e = parse_err(HEAD
	    "event { name = e; fields := struct {\n"
	    "  typealias integer { size = 8; } := inner_t;\n"
	    "  inner_t x;\n"
	    "}; context := struct { inner_t y; }; };\n");
	assert_string_equal(e, "line 6, column 24: unknown type `inner_t`");
}

static void
test_enums(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "typealias integer { size = 8; signed = true; } := int;\n"
	    "enum colour { RED, GREEN, \"BLUE SKY\" = 10, X = -3 ... -1, Y, };\n"
	    "event { name = e; fields := struct { enum colour c; }; };\n");
	const struct ctf_type *t = fields_of(m, 0)->fields[0].type;
	assert_int_equal(t->kind, CTF_ENUM);
	assert_int_equal(t->nmaps, 5);
	assert_int_equal(t->maps[1].lo, 1);		/* implicit values */
	assert_string_equal(t->maps[2].label, "BLUE SKY");
	assert_int_equal(t->maps[3].lo, -3);
	assert_int_equal(t->maps[3].hi, -1);
	assert_int_equal(t->maps[4].lo, 0);		/* after -1 */
	assert_string_equal(ctf_enum_label(t, (uint64_t)-2, NULL), "X");
	assert_string_equal(ctf_enum_label(t, 10, NULL), "BLUE SKY");
	assert_null(ctf_enum_label(t, 11, NULL));
	ctf_meta_free(m);
	/* no container and no `int`: refused */
	assert_string_equal(parse_err(HEAD "enum a { A };\n"),
	    "line 3, column 1: enum without a container type and no `int` "
	    "type declared");
}

static void
test_arrays_and_sequences(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "typealias integer { size = 8; encoding = UTF8; } := char;\n"
	    "typealias integer { size = 32; } := u32;\n"
	    "event { name = e; fields := struct {\n"
	    "  u32 _len; u32 m[2][3]; char name[16]; u32 seq[_len];\n"
	    "  struct { u32 n; u32 v[n]; } inner;\n"
	    "}; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	const struct ctf_type *a = f->fields[1].type;
	assert_int_equal(a->kind, CTF_ARRAY);
	assert_int_equal(a->length, 2);		/* 2 arrays of 3 */
	assert_int_equal(a->elem->length, 3);
	assert_true(f->fields[2].type->is_text);
	const struct ctf_type *s = f->fields[3].type;
	assert_int_equal(s->kind, CTF_SEQUENCE);
	assert_int_equal(s->length_slot, f->fields[0].slot);
	assert_true(f->fields[0].slot >= 0);
	const struct ctf_type *in = f->fields[4].type;
	assert_int_equal(in->fields[1].type->length_slot, in->fields[0].slot);
	ctf_meta_free(m);
	/* a signed length is refused, as babeltrace2 does */
	assert_string_equal(parse_err(HEAD
	    "typealias integer { size = 8; signed = true; } := s8;\n"
	    "event { name = e; fields := struct { s8 n; s8 v[n]; }; };\n"),
	    "line 4, column 48: the length `n` of a sequence is not an "
	    "unsigned integer");
	assert_string_equal(parse_err(HEAD
	    "typealias integer { size = 8; } := u8;\n"
	    "event { name = e; fields := struct { u8 v[nope]; }; };\n"),
	    "line 4, column 42: cannot find the length `nope` of a sequence in "
	    "the fields of event `e`");
}

static void
test_variants_and_paths(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "typealias integer { size = 8; } := u8;\n"
	    "variant opts { u8 a; string b; };\n"
	    "stream { event.context := struct { enum : u8 { a, _b } sel; }; };\n"
	    "event { name = e; fields := struct {\n"
	    "  variant opts <stream.event.context.sel> v;\n"
	    "  enum : u8 { x = 1, y = 2 } t; variant <t> { u8 x; u8 y; } w;\n"
	    "}; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	const struct ctf_type *v = f->fields[0].type;
	assert_int_equal(v->kind, CTF_VARIANT);
	assert_int_equal(v->tag_slot, m->streams[0]->event_context->fields[0].slot);
	assert_int_equal(v->opt_of_map[0], 0);
	assert_int_equal(v->opt_of_map[1], 1);	/* `_b` matches option `b` */
	assert_int_equal(f->fields[2].type->tag_slot, f->fields[1].slot);
	ctf_meta_free(m);
	assert_string_equal(parse_err(HEAD
	    "typealias integer { size = 8; } := u8;\n"
	    "event { name = e; fields := struct { u8 t; variant <t> { u8 a; } "
	    "v; }; };\n"),
	    "line 4, column 44: the tag `t` of a variant is not an enum");
}

static void
test_blocks(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok("/* CTF 1.8 */\n"
	    "typealias integer { size = 64; map = clock.mono.value; } := ts_t;\n"
	    "trace { major = 1; minor = 8; byte_order = be;\n"
	    "  uuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\"; };\n"
	    "env { hostname = \"h\\\"x\"; n = -4; };\n"
	    "clock { name = mono; freq = 1000; offset_s = 10; offset = 500; };\n"
	    "stream { id = 3; event.header := struct { ts_t timestamp; "
	    "integer { size = 8; } id; }; };\n"
	    "event { name = \"a:b\"; id = 7; stream_id = 3; loglevel = 13; "
	    "model.emf.uri = \"x\"; fields := struct { string s; }; };\n"
	    "callsite { name = \"x\"; func = \"f\"; line = 3; };\n");
	assert_int_equal(m->byte_order, CTF_BO_BE);
	assert_int_equal(m->uuid[0], 0x2a);
	assert_int_equal(m->uuid[15], 0x64);
	assert_string_equal(ctf_env_str(m, "hostname"), "h\"x");
	assert_int_equal(m->env[1].i, -4);
	assert_int_equal(m->nclocks, 1);
	/* 10 s + 500 cycles at 1 kHz + 1 cycle */
	assert_int_equal(ctf_clock_ns(&m->clocks[0], 1), 10501000000);
	struct ctf_stream_class *s = ctf_stream_by_id(m, 3);
	assert_non_null(s);
	assert_int_equal(s->clock, 0);
	assert_int_equal(s->event_header->fields[0].role, ROLE_TIMESTAMP);
	assert_int_equal(s->event_header->fields[1].role, ROLE_EVENT_ID);
	struct ctf_event_class *e = ctf_event_by_id(s, 7);
	assert_non_null(e);
	assert_string_equal(e->name, "a:b");
	assert_int_equal(e->loglevel, 13);
	ctf_meta_free(m);
}

static void
test_warnings(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "event { name = e; colour = red; };\n");
	assert_int_equal(m->nwarns, 1);
	assert_string_equal(m->warns[0],
	    "line 3, column 28: unknown event attribute `colour`");
	ctf_meta_free(m);
}

static void
test_errors(void **state)
{
	(void)state;
	assert_string_equal(parse_err("/* CTF 1.8 */\n"
	    "typealias integer { size = 8; align = 8; ] := u8;\n"),
	    "line 2, column 42: expected identifier, found ']'");
	assert_string_equal(parse_err("/* CTF 1.8 */\r\ntrace {\r\n"
	    "  major = 2; minor = 8; };\r\n"),
	    "line 3, column 11: unsupported CTF major version 2 (expecting 1)");
	assert_string_equal(parse_err("trace { minor = 8; };"),
	    "line 1, column 1: trace block without `major`");
	assert_string_equal(parse_err("trace { major = 99999999999999999999; };"),
	    "line 1, column 17: integer literal out of range");
	assert_string_equal(parse_err("env { a = \"x\\q\"; };"),
	    "line 1, column 11: invalid escape sequence in string");
	assert_string_equal(parse_err("env { a = \"x"),
	    "line 1, column 11: unterminated string");
	assert_string_equal(parse_err("/* never closed"),
	    "line 1, column 1: unterminated comment");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 5000; } "
	    ":= x;"), "line 3, column 28: integer size 5000 not in 1..4096");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 65; } "
	    ":= x;"), "line 3, column 28: an integer wider than 64 bits must "
	    "be a whole number of bytes, byte-aligned");
	assert_string_equal(parse_err(HEAD "typealias integer { align = 3; "
	    "size = 8; } := x;"),
	    "line 3, column 29: alignment must be a power of two");
	assert_string_equal(parse_err(HEAD "event { name = e; fields := struct "
	    "{ string a; string a; }; };"),
	    "line 3, column 55: duplicate field `a`");
	assert_string_equal(parse_err(HEAD "event { name = e; id = 1; };\n"
	    "event { name = f; id = 1; };\n"),
	    "line 4, column 1: duplicate event id 1");
	assert_string_equal(parse_err(HEAD "stream { event.header := struct "
	    "{ integer { size = 8; map = clock.nope.value; } timestamp; }; };"),
	    "line 3, column 35: unknown clock `nope`");
	assert_string_equal(parse_err("@"),
	    "line 1, column 1: unexpected character");
}


/* --- the verdicts of the CTF test suite (CTF 1.8 regression/metadata) --- */

#define U8 "typealias integer { size = 8; } := u8;\n"
#define U32 "typealias integer { size = 32; } := u32;\n"

/* Accepted once, invalid: each is a metadata error at its place. */
static void
test_invalid_metadata(void **state)
{
	(void)state;
	/* a type name defined twice in one scope */
	assert_string_equal(parse_err(HEAD U32 U8 "typedef u32 a;\n"
	    "typedef u8 a;\n"),
	    "line 6, column 12: type `a` is already defined in this scope");
	assert_string_equal(parse_err(HEAD U32 U32),
	    "line 4, column 37: type `u32` is already defined in this scope");
	assert_string_equal(parse_err(HEAD U32 "struct s { u32 x; };\n"
	    "struct s { u32 y; };\n"),
	    "line 5, column 8: type `struct s` is already defined in this "
	    "scope");
	assert_string_equal(parse_err(HEAD U32 U8 "typedef u32 arr[10];\n"
	    "typedef u8 arr[4];\n"),
	    "line 6, column 12: type `arr` is already defined in this scope");
	/* ... but an inner scope may hide an outer one's */
	struct ctf_meta *m = parse_ok(HEAD U32 U8
	    "event { name = e; fields := struct { typedef u8 u32; u32 x; }; "
	    "};\n");
	assert_int_equal(fields_of(m, 0)->fields[0].type->size, 8);
	ctf_meta_free(m);
	/* reserved keywords as names */
	assert_string_equal(parse_err(HEAD U32 "struct s { u32 trace; };\n"),
	    "line 4, column 16: reserved keyword `trace` used as a name");
	assert_string_equal(parse_err(HEAD U32 "event { name = e; fields := "
	    "struct { u32 ok; u32 stream; }; };\n"),
	    "line 4, column 50: reserved keyword `stream` used as a name");
	assert_string_equal(parse_err(HEAD U32 "typedef u32 int;\n"),
	    "line 4, column 13: reserved keyword `int` used as a name");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 8; } "
	    ":= env;\n"),
	    "line 3, column 36: reserved keyword `env` used as a type name");
	assert_string_equal(parse_err(HEAD U32 "struct s { enum : u32 { a } t; "
	    "variant <variant> { u32 a; } v; };\n"),
	    "line 4, column 41: reserved keyword `variant` used as a variant "
	    "tag");
	/* ... while C type words may name a typealias, as in C */
	m = parse_ok(HEAD "typealias integer { size = 16; } := unsigned short;\n"
	    "typealias integer { size = 32; signed = true; } := int;\n"
	    "event { name = e; fields := struct { unsigned short a; int b; }; "
	    "};\n");
	assert_int_equal(fields_of(m, 0)->fields[1].type->size, 32);
	ctf_meta_free(m);
	/* enumerations: empty, values past the container */
	assert_string_equal(parse_err(HEAD U8 "event { name = e; fields := "
	    "struct { enum : u8 { } f; }; };\n"),
	    "line 4, column 38: empty enumeration");
	assert_string_equal(parse_err(HEAD U8 "enum e : u8 { x = 256 };\n"),
	    "line 4, column 19: value 256 of enum label `x` does not fit in "
	    "its unsigned 8-bit container (0 to 255)");
	assert_string_equal(parse_err(HEAD U32 "enum e : u32 { x = -1 };\n"),
	    "line 4, column 20: value -1 of enum label `x` does not fit in "
	    "its unsigned 32-bit container (0 to 4294967295)");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 8; "
	    "signed = true; } := s8;\nenum e : s8 { a = -128, b = 0 ... 200 "
	    "};\n"),
	    "line 4, column 35: value 200 of enum label `b` does not fit in "
	    "its signed 8-bit container (-128 to 127)");
	/* more labels than a 2-bit container holds */
	assert_string_equal(parse_err(HEAD "typealias integer { size = 2; } "
	    ":= u2;\nenum e : u2 { a, b, c, d, e };\n"),
	    "line 4, column 27: value 4 of enum label `e` does not fit in its "
	    "unsigned 2-bit container (0 to 3)");
	m = parse_ok(HEAD "typealias integer { size = 64; } := u64;\n"
	    "typealias integer { size = 64; signed = true; } := s64;\n"
	    "enum a : u64 { big = 18446744073709551615 };\n"
	    "enum b : s64 { lo = -9223372036854775808, hi = "
	    "9223372036854775807 };\n"
	    "event { name = e; fields := struct { enum a x; enum b y; }; };\n");
	assert_int_equal((uint64_t)fields_of(m, 0)->fields[0].type->maps[0].lo,
	    UINT64_MAX);
	assert_int_equal(fields_of(m, 0)->fields[1].type->maps[0].lo,
	    INT64_MIN);
	ctf_meta_free(m);
	/* base and encoding are numbers or names, not strings */
	assert_string_equal(parse_err(HEAD "typealias integer { size = 8; "
	    "base = \"hex\"; } := x;\n"),
	    "line 3, column 38: integer base given as a string");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 8; "
	    "encoding = \"UTF8\"; } := x;\n"),
	    "line 3, column 42: integer encoding given as a string");
	/* array sizes: an integer, or a field before the array */
	assert_string_equal(parse_err(HEAD U32 "typedef u32 a[x];\n"),
	    "line 4, column 15: array size `x` names no field (declared "
	    "outside any struct)");
	assert_string_equal(parse_err(HEAD U32 "typedef u32 a[typedef];\n"),
	    "line 4, column 15: reserved keyword `typedef` used as a "
	    "sequence length");
	assert_string_equal(parse_err(HEAD U32 "typedef u32 a[u32];\n"),
	    "line 4, column 15: array size `u32` is a type, not an integer or "
	    "a field");
	/* a variant none of whose options its tag can choose, even unused */
	assert_string_equal(parse_err(HEAD U32 "struct s {\n"
	    "  enum : u32 { \" a \", \" b \" } tag;\n"
	    "  variant <tag> { u32 a; u32 b; } v;\n};\n"),
	    "line 6, column 3: no label of the tag `tag` names an option of "
	    "the variant");
	/* ... though some labels and options may go unmatched */
	m = parse_ok(HEAD U32 "event { name = e; fields := struct {\n"
	    "  enum : u32 { a, c } tag; variant <tag> { u32 a; u32 b; } v;\n"
	    "}; };\n");
	assert_int_equal(fields_of(m, 0)->fields[1].type->opt_of_map[0], 0);
	assert_int_equal(fields_of(m, 0)->fields[1].type->opt_of_map[1], -1);
	ctf_meta_free(m);
}

/* Refused once, valid. */
static void
test_valid_metadata(void **state)
{
	(void)state;
	/* a sequence's length is looked up where its typedef is, not where
	 * it is used: `len` is the u8 before the typedef, not the string
	 * of the struct that uses it */
	struct ctf_meta *m = parse_ok(HEAD U8 U32
	    "event { name = e; fields := struct {\n"
	    "  u8 len;\n"
	    "  typedef struct { u32 a[len]; } with_seq;\n"
	    "  struct { string len; with_seq x; } field;\n"
	    "}; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	const struct ctf_type *seq =
	    f->fields[1].type->fields[1].type->fields[0].type;
	assert_int_equal(seq->kind, CTF_SEQUENCE);
	assert_true(f->fields[0].slot >= 0);
	assert_int_equal(seq->length_slot, f->fields[0].slot);
	ctf_meta_free(m);
	/* the same through a typealias of the sequence itself */
	m = parse_ok(HEAD U8 U32
	    "event { name = e; fields := struct {\n"
	    "  u8 n; typealias u32 [n] := nums; struct { u32 n; nums v; } s;\n"
	    "}; };\n");
	f = fields_of(m, 0);
	assert_int_equal(f->fields[1].type->fields[1].type->length_slot,
	    f->fields[0].slot);
	ctf_meta_free(m);
	/* a struct definition right after another, no ';' between */
	m = parse_ok(HEAD U32 "struct a { u32 x; }\n"
	    "struct b { u32 y; struct a z; };\n"
	    "event { name = e; fields := struct { struct b f; }; };\n");
	assert_int_equal(m->nwarns, 1);
	assert_string_equal(m->warns[0], "line 5, column 1: missing ';' before "
	    "`struct`, taken as the end of the struct definition above");
	ctf_meta_free(m);
	/* ... not anywhere else */
	assert_string_equal(parse_err(HEAD U32 "struct a { u32 x; } b\n"),
	    "line 4, column 21: expected ';', found 'b'");
	/* integers wider than 64 bits */
	m = parse_ok(HEAD "typealias integer { size = 128; base = hex; } := "
	    "u128;\nevent { name = e; fields := struct { u128 v; }; };\n");
	assert_int_equal(fields_of(m, 0)->fields[0].type->size, 128);
	assert_false(fields_of(m, 0)->flat);
	ctf_meta_free(m);
	assert_string_equal(parse_err(HEAD "typealias integer { size = 128; } "
	    ":= u128;\nevent { name = e; fields := struct { u128 n; "
	    "string s[n]; }; };\n"),
	    "line 4, column 54: the length `n` of a sequence is not an "
	    "unsigned integer");
	assert_string_equal(parse_err(HEAD "typealias integer { size = 96; } "
	    ":= u96;\nenum e : u96 { a };\n"),
	    "line 4, column 1: enum container wider than 64 bits");
}

/* \x takes every hex digit that follows, as in C99. */
static void
test_string_escapes(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD "env { a = \"\\x41\\x023\\x4a!\"; "
	    "b = \"\\101\\0431\"; c = \"\\x0231\"; };\n");
	assert_string_equal(ctf_env_str(m, "a"), "A#J!");
	assert_string_equal(ctf_env_str(m, "b"), "A#1");
	/* past a byte: its low byte, with a warning, as C compilers do */
	assert_string_equal(ctf_env_str(m, "c"), "1");
	assert_int_equal(m->nwarns, 1);
	assert_string_equal(m->warns[0], "line 3, column 50: hex escape "
	    "sequence out of range, its low byte kept");
	ctf_meta_free(m);
	assert_string_equal(parse_err(HEAD "env { a = \"\\400\"; };\n"),
	    "line 3, column 11: escape sequence out of range (more than a "
	    "byte) in string");
}

/* Integers wider than 64 bits decode to their bytes, shown as numbers. */
static void
test_wide_integers(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "typealias integer { size = 128; base = hex; } := x128;\n"
	    "typealias integer { size = 96; signed = true; } := s96;\n"
	    "typealias integer { size = 72; byte_order = be; } := u72be;\n"
	    "typealias integer { size = 8; } := u8;\n"
	    "event { name = e; fields := struct { u8 a; x128 h; s96 d; "
	    "u72be b; u8 z; }; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	unsigned char buf[1 + 16 + 12 + 9 + 1];
	memset(buf, 0, sizeof buf);
	buf[0] = 7;
	for (int i = 0; i < 16; i++)	/* little-endian 0x0F0E...0100 */
		buf[1 + i] = (unsigned char)i;
	memset(buf + 17, 0xff, 12);	/* -1 */
	buf[17] = 0xfe;			/* -2 */
	buf[29 + 7] = 1;		/* big-endian 2^8 + 2 */
	buf[29 + 8] = 2;
	buf[38] = 9;
	ctf_vals vals = { 0 };
	uint64_t slots[4];
	struct ctf_dec d = { .buf = buf, .end = sizeof buf * 8, .out = &vals,
	    .slots = slots };
	assert_int_equal(ctf_decode(&d, f, NULL, 0), 0);
	assert_int_equal(d.pos, sizeof buf * 8);
	assert_int_equal(vals.len, 6);
	char text[CTF_BIGINT_TEXT];
	ctf_bigint_text(vals.items[2].type, (const uint8_t *)vals.items[2].str,
	    text, sizeof text);
	assert_string_equal(text, "0xF0E0D0C0B0A09080706050403020100");
	ctf_bigint_text(vals.items[3].type, (const uint8_t *)vals.items[3].str,
	    text, sizeof text);
	assert_string_equal(text, "-2");
	ctf_bigint_text(vals.items[4].type, (const uint8_t *)vals.items[4].str,
	    text, sizeof text);
	assert_string_equal(text, "258");
	assert_int_equal(vals.items[5].v.u, 9);
	/* 2^96 - 2 unsigned: decimal digits past 64 bits */
	struct ctf_type u96 = *vals.items[3].type;
	u96.is_signed = false;
	ctf_bigint_text(&u96, (const uint8_t *)vals.items[3].str, text,
	    sizeof text);
	assert_string_equal(text, "79228162514264337593543950334");
	/* cut short: an error, not a read past the end */
	struct ctf_dec d2 = { .buf = buf, .end = 20 * 8, .slots = slots };
	assert_int_equal(ctf_decode(&d2, f, NULL, 0), -1);
	assert_string_equal(d2.err, "field past the end of the packet content");
	VEC_FREE(&vals);
	ctf_meta_free(m);
}

/* --- the bit reader --- */

static uint64_t
read_one(const unsigned char *buf, size_t len, uint64_t bitpos,
    unsigned size, bool be, bool is_signed)
{
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_type *t = ctf_type_new(m, CTF_INT);
	t->size = size;
	t->align = 1;
	t->byte_order = be ? CTF_BO_BE : CTF_BO_LE;
	t->is_signed = is_signed;
	ctf_vals vals = { 0 };
	struct ctf_dec d = { .buf = buf, .pos = bitpos, .end = len * 8,
	    .out = &vals };
	assert_int_equal(ctf_decode(&d, t, NULL, 0), 0);
	assert_int_equal(d.pos, bitpos + size);
	uint64_t v = vals.items[0].v.u;
	VEC_FREE(&vals);
	ctf_meta_free(m);
	return v;
}

static void
test_bits(void **state)
{
	(void)state;
	const unsigned char b[] = { 0xA5, 0x3C, 0xF0, 0x0F, 0x81, 0x7E, 0x55,
	    0xAA, 0x12, 0x34 };
	/* little endian: bits from each byte's LSB, low bits first */
	assert_int_equal(read_one(b, sizeof b, 0, 5, false, false), 0x05);
	assert_int_equal(read_one(b, sizeof b, 5, 27, false, false),
	    (0x0FF03CA5u >> 5) & 0x7FFFFFF);
	assert_int_equal(read_one(b, sizeof b, 4, 8, false, false), 0xCA);
	assert_int_equal(read_one(b, sizeof b, 0, 16, false, false), 0x3CA5);
	/* big endian: the value's MSB first, from each byte's MSB */
	assert_int_equal(read_one(b, sizeof b, 0, 5, true, false), 0x14);
	assert_int_equal(read_one(b, sizeof b, 4, 8, true, false), 0x53);
	assert_int_equal(read_one(b, sizeof b, 0, 16, true, false), 0xA53C);
	/* a 64-bit value at an odd bit, both orders, checked against shifts */
	uint64_t le = 0, be = 0;
	for (int i = 0; i < 8; i++)
		le |= i < 8 ? (uint64_t)b[i] << (8 * i) : 0;
	le = (le >> 3) | ((uint64_t)b[8] << 61);
	assert_int_equal(read_one(b, sizeof b, 3, 64, false, false), le);
	for (int i = 0; i < 8; i++)
		be = (be << 8) | b[i];
	be = (be << 3) | (b[8] >> 5);
	assert_int_equal(read_one(b, sizeof b, 3, 64, true, false), be);
	/* sign extension from the field's top bit */
	assert_int_equal((int64_t)read_one(b, sizeof b, 0, 3, false, true),
	    -3);
	assert_int_equal((int64_t)read_one(b, sizeof b, 0, 8, false, true),
	    (int8_t)0xA5);
}

/* The picks of raw runs read 8 bytes and cut the integer out of them
 * (ctf_pick_wide): every size, order and sign of the decoder's
 * ctf_read_whole, at odd byte offsets, with bytes of both signs; a pick
 * that is not there reads 0. */
static void
test_pick_wide(void **state)
{
	(void)state;
	static const char *const orders[] = { "le", "be" };
	for (int o = 0; o < 2; o++) {
		char text[1024];
		snprintf(text, sizeof text, "/* CTF 1.8 */\n"
		    "trace { major = 1; minor = 8; byte_order = %s; };\n"
		    "stream { event.context := struct {\n"
		    "  integer { size = 8; signed = true; } c8;\n"
		    "  integer { size = 16; align = 8; signed = true; } c16;\n"
		    "}; };\n"
		    "event { name = \"e\"; fields := struct {\n"
		    "  integer { size = 8; } u8;\n"
		    "  integer { size = 16; align = 8; } u16;\n"
		    "  integer { size = 32; align = 8; signed = true; } s32;\n"
		    "  integer { size = 32; align = 8; } u32;\n"
		    "  integer { size = 64; align = 8; signed = true; } s64;\n"
		    "  integer { size = 64; align = 8; } u64;\n"
		    "}; };\n", orders[o]);
		struct ctf_meta *m = parse_ok(text);
		struct ctf_stream_class *sc = m->streams[0];
		struct ctf_event_class *ev = sc->events[0];
		const struct ctf_type *scopes[] = { sc->event_context,
		    ev->fields };
		unsigned char body[64 + 32];
		for (size_t i = 0; i < sizeof body; i++)
			body[i] = (unsigned char)(0x81 + 37 * i);
		/* every field, three at a time, the third slot left empty
		 * in one round */
		for (int sk = 0; sk < 2; sk++) {
			const struct ctf_type *t = scopes[sk];
			assert_non_null(t);
			assert_true(t->fixed);
			for (size_t f = 0; f < t->nfields; f++) {
				memset(ev->pick, 0, sizeof ev->pick);
				const struct ctf_flat_op *op = &t->ops[f];
				int scope = sk == 0 ? 1 : 3;
				ev->pick[0] = (struct ctf_pick){ (uint8_t)scope,
				    (uint8_t)op->size, op->be, op->is_signed,
				    op->off };
				ev->pick[1] = ev->pick[0];
				ev->raw_const = 0;
				ctf_event_prepare(sc, ev);
				assert_int_equal(ev->raw_const, 1);
				assert_int_equal(ev->pick_at[2], UINT32_MAX);
				for (unsigned shift = 0; shift < 8; shift++) {
					const uint8_t *b = body + shift;
					uint64_t want = ctf_read_whole(
					    b + ev->pick_at[0], op->size,
					    op->be, op->is_signed);
					assert_true(op->be == (o == 1));
					assert_int_equal(ctf_pick_wide(ev, b,
					    0), want);
					assert_int_equal(ctf_pick_wide(ev, b,
					    1), want);
					assert_int_equal(ctf_pick_wide(ev, b,
					    2), 0);
				}
			}
		}
		/* the offsets: fields after the stream's context (3 bytes) */
		assert_int_equal(ev->raw_off[1], 0);
		assert_int_equal(ev->raw_off[3], 3);
		assert_int_equal(ev->pick_at[0], 3 + 1 + 2 + 4 + 4 + 8);
		ctf_meta_free(m);
	}

	/* picks of both byte orders in one class are not cut wide, and
	 * are read to size all the same */
	struct ctf_meta *m = parse_ok(HEAD
	    "event { name = \"mixed\"; fields := struct {\n"
	    "  integer { size = 16; align = 8; signed = true; } le;\n"
	    "  integer { size = 32; align = 8; byte_order = be; } be;\n"
	    "}; };\n");
	struct ctf_stream_class *sc = m->streams[0];
	struct ctf_event_class *ev = sc->events[0];
	const struct ctf_type *t = ev->fields;
	memset(ev->pick, 0, sizeof ev->pick);
	for (int k = 0; k < 2; k++) {
		const struct ctf_flat_op *op = &t->ops[k];
		ev->pick[k] = (struct ctf_pick){ 3, (uint8_t)op->size, op->be,
		    op->is_signed, op->off };
	}
	ev->raw_const = 0;
	ctf_event_prepare(sc, ev);
	assert_false(ev->picks_wide);
	const unsigned char body[6 + 64] = { 0xfe, 0xff, 0x12, 0x34, 0x56,
	    0x78 };
	uint64_t got[CTF_PICK_MAX];
	ctf_picks_read(ev, body, ev->picks_wide, got);
	assert_int_equal((int64_t)got[0], -2);
	assert_int_equal(got[1], 0x12345678);
	assert_int_equal(got[2], 0);
	ctf_meta_free(m);
}

static void
test_clock_wrap(void **state)
{
	(void)state;
	/* a 27-bit timestamp after a 64-bit one: one wrap when it goes
	 * backwards, none when it goes forward */
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_type *t = ctf_type_new(m, CTF_INT);
	t->size = 27;
	t->align = 1;
	t->byte_order = CTF_BO_LE;
	t->clock = 0;
	struct ctf_field f = { .name = "timestamp", .display = "timestamp",
	    .type = t, .slot = -1, .role = ROLE_TIMESTAMP };
	unsigned char buf[4] = { 0x10, 0, 0, 0 };	/* low bits 0x10 */
	struct ctf_dec d = { .buf = buf, .end = 32, .clock_set = true,
	    .clock = ((uint64_t)7 << 27) | 0x20 };
	assert_int_equal(ctf_decode(&d, t, &f, 0), 0);
	assert_int_equal(d.clock, ((uint64_t)8 << 27) | 0x10);
	d.pos = 0;
	d.clock = ((uint64_t)7 << 27) | 0x08;
	assert_int_equal(ctf_decode(&d, t, &f, 0), 0);
	assert_int_equal(d.clock, ((uint64_t)7 << 27) | 0x10);
	ctf_meta_free(m);
}

static void
test_truncated(void **state)
{
	(void)state;
	struct ctf_meta *m = parse_ok(HEAD
	    "event { name = e; fields := struct { string s; "
	    "integer { size = 32; } n; }; };\n");
	const struct ctf_type *f = fields_of(m, 0);
	const unsigned char buf[] = { 'a', 'b', 0, 1, 2 };
	uint64_t slots[4];
	struct ctf_dec d = { .buf = buf, .end = sizeof buf * 8, .slots = slots };
	assert_int_equal(ctf_decode(&d, f, NULL, 0), -1);
	assert_string_equal(d.err, "field past the end of the packet content");
	assert_int_equal(d.err_pos, 24);
	struct ctf_dec d2 = { .buf = buf, .end = 16, .slots = slots };
	assert_int_equal(ctf_decode(&d2, f, NULL, 0), -1);
	assert_string_equal(d2.err, "unterminated string");
	ctf_meta_free(m);
}

/* Times past the 64-bit ns range are clamped and counted in their own
 * trace's description: two traces read at once keep their counts apart. */
static void
test_clamps_per_trace(void **state)
{
	(void)state;
	struct ctf_meta *a = parse_ok(HEAD "clock { name = c; freq = 1; };\n");
	struct ctf_meta *b = parse_ok(HEAD "clock { name = c; freq = 1; };\n");
	/* 2^62 seconds: past 2262 */
	assert_int_equal(ctf_clock_ns(&a->clocks[0], (uint64_t)1 << 62),
	    INT64_MAX);
	assert_int_equal(ctf_clock_ns(&a->clocks[0], (uint64_t)1 << 63),
	    INT64_MAX);
	assert_int_equal(ctf_clock_ns(&b->clocks[0], 5), 5000000000);
	assert_int_equal(atomic_load(&a->clock_clamps), 2);
	assert_int_equal(atomic_load(&b->clock_clamps), 0);
	ctf_meta_free(a);
	ctf_meta_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_and_aliases),
		cmocka_unit_test(test_lexical_scopes),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_arrays_and_sequences),
		cmocka_unit_test(test_variants_and_paths),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_pick_wide),
		cmocka_unit_test(test_clock_wrap),
		cmocka_unit_test(test_clamps_per_trace),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_invalid_metadata),
		cmocka_unit_test(test_valid_metadata),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_wide_integers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
