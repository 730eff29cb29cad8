/*
 * ctf2_test: the CTF 2 front end on what babeltrace's CTF 2 traces and
 * ctfgen's do not hold: small traces written here (metadata and a data
 * stream whose bytes are spelled out) with variable-length integers,
 * booleans, bit arrays, strings and BLOBs of static and dynamic lengths,
 * optionals on boolean and integer selectors, relative field locations
 * going up a struct, variants on a signed selector, aliases and 64-bit
 * unsigned mappings; each event is printed in babeltrace2's text layout
 * and compared with what it must be. Then metadata the reader must refuse,
 * each with its message: wrong locations, bad selectors, unsupported
 * features, JSON errors at their offsets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"
#include "ctf/ctf2/ctf2_json.h"
#include "ctf/ctf_merge.h"
#include "../../tools/ctf_text.h"

static int failures;

#define CHECK(cond, ...) do {                                             \
	if (!(cond)) {                                                        \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                     \
		fputc('\n', stderr);                                              \
		failures++;                                                       \
	}                                                                     \
} while (0)

#define RS "\x1e"
#define U8 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8," \
	"\"alignment\":8,\"byte-order\":\"little-endian\"}"
#define U16 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16," \
	"\"alignment\":8,\"byte-order\":\"little-endian\"}"
#define PREAMBLE RS "{\"type\":\"preamble\",\"version\":2}\n"

struct diags {
	char text[4096];
	int errors;
};

static void
on_diag(void *arg, bool error, const char *file, int64_t off, const char *msg)
{
	struct diags *d = arg;
	(void)file;
	size_t n = strlen(d->text);
	snprintf(d->text + n, sizeof d->text - n, "%s offset %lld: %s\n",
	    error ? "error" : "warning", (long long)off, msg);
	if (error)
		d->errors++;
}

static void
put(const char *dir, const char *name, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	free(path);
}

/* Reads a trace of one metadata and one stream file: its events in the
 * text layout, one a line, and the diagnostics. */
static char *
read_trace(const char *meta, const unsigned char *data, size_t n,
    struct diags *d)
{
	char tmpl[] = "/tmp/ttv-ctf2-test.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (dir == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	put(dir, "metadata", meta, strlen(meta));
	put(dir, "stream", data, n);
	memset(d, 0, sizeof *d);
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	struct ctf_reader *r = ctf_reader_open(dir, on_diag, d, NULL, NULL);
	if (r != NULL) {
		struct ctf_text_state st = { 0 };
		const struct ctf_item *it;
		while ((it = ctf_reader_next(r)) != NULL)
			if (it->kind == CTF_ITEM_EVENT)
				ctf_text_event(f, it, &st);
		ctf_reader_free(r);
	}
	fclose(f);
	char *p = xasprintf("%s/metadata", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/stream", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	return out;
}

/* Every kind of field class the corpus lacks, in one payload. */
static void
test_features(void)
{
	const char *meta = PREAMBLE
	    RS "{\"type\":\"field-class-alias\",\"name\":\"u8a\","
	    "\"field-class\":" U8 "}\n"
	    RS "{\"type\":\"field-class-alias\",\"name\":\"u8b\","
	    "\"field-class\":\"u8a\"}\n"
	    RS "{\"type\":\"data-stream-class\"}\n"
	    RS "{\"type\":\"event-record-class\",\"name\":\"ev\","
	    "\"payload-field-class\":{\"type\":\"structure\","
	    "\"member-classes\":["
	    "{\"name\":\"vu\",\"field-class\":{\"type\":"
	    "\"variable-length-unsigned-integer\"}},"
	    "{\"name\":\"vs\",\"field-class\":{\"type\":"
	    "\"variable-length-signed-integer\"}},"
	    "{\"name\":\"flag\",\"field-class\":{\"type\":"
	    "\"fixed-length-boolean\",\"length\":8,\"alignment\":8,"
	    "\"byte-order\":\"little-endian\"}},"
	    "{\"name\":\"bits\",\"field-class\":{\"type\":"
	    "\"fixed-length-bit-array\",\"length\":12,"
	    "\"byte-order\":\"little-endian\"}},"
	    "{\"name\":\"n\",\"field-class\":{\"type\":"
	    "\"variable-length-unsigned-integer\"}},"
	    "{\"name\":\"dstr\",\"field-class\":{\"type\":"
	    "\"dynamic-length-string\",\"length-field-location\":"
	    "{\"path\":[\"n\"]}}},"
	    "{\"name\":\"sstr\",\"field-class\":{\"type\":"
	    "\"static-length-string\",\"length\":5}},"
	    "{\"name\":\"blob\",\"field-class\":{\"type\":"
	    "\"dynamic-length-blob\",\"length-field-location\":"
	    "{\"origin\":\"event-record-payload\",\"path\":[\"n\"]}}},"
	    "{\"name\":\"opt_b\",\"field-class\":{\"type\":\"optional\","
	    "\"selector-field-location\":{\"path\":[\"flag\"]},"
	    "\"field-class\":" U8 "}},"
	    "{\"name\":\"opt_i\",\"field-class\":{\"type\":\"optional\","
	    "\"selector-field-location\":{\"path\":[\"vu\"]},"
	    "\"selector-field-ranges\":[[0,10]],\"field-class\":" U8 "}},"
	    "{\"name\":\"inner\",\"field-class\":{\"type\":\"structure\","
	    "\"member-classes\":[{\"name\":\"k\",\"field-class\":\"u8b\"},"
	    "{\"name\":\"arr\",\"field-class\":{\"type\":"
	    "\"dynamic-length-array\",\"length-field-location\":"
	    "{\"path\":[null,\"n\"]},\"element-field-class\":\"u8a\"}}]}},"
	    "{\"name\":\"var\",\"field-class\":{\"type\":\"variant\","
	    "\"selector-field-location\":{\"origin\":\"event-record-payload\","
	    "\"path\":[\"vs\"]},\"options\":["
	    "{\"name\":\"neg\",\"selector-field-ranges\":[[-5,-1]],"
	    "\"field-class\":" U16 "},"
	    "{\"name\":\"pos\",\"selector-field-ranges\":[[0,100]],"
	    "\"field-class\":{\"type\":\"null-terminated-string\"}}]}},"
	    "{\"name\":\"big\",\"field-class\":{\"type\":"
	    "\"fixed-length-unsigned-integer\",\"length\":64,\"alignment\":8,"
	    "\"byte-order\":\"little-endian\",\"mappings\":{\"top\":"
	    "[[18446744073709551614,18446744073709551615]],"
	    "\"low\":[[0,9223372036854775808]]}}},"
	    "{\"name\":\"sbig\",\"field-class\":{\"type\":"
	    "\"variable-length-signed-integer\"}}"
	    "]}}\n";
	static const unsigned char data[] = {
		0xac, 0x02,		/* vu = 300 */
		0x7d,			/* vs = -3 */
		0x01,			/* flag = true */
		0xbc, 0x0a,		/* bits = 0xabc (12 bits) */
		0x03,			/* n = 3 */
		'a', 'b', 'c',		/* dstr */
		'h', 'i', 0, 'x', 'x',	/* sstr */
		1, 2, 3,		/* blob */
		7,			/* opt_b: there (flag) */
					/* opt_i: absent (vu = 300) */
		9, 10, 11, 12,		/* inner: k, arr[n] */
		0x34, 0x12,		/* var: neg (vs = -3) */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* big */
		/* sbig = INT64_MIN in 10 bytes */
		0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f,
	};
	struct diags d;
	char *out = read_trace(meta, data, sizeof data, &d);
	const char *want = "ev: { vu = 300, vs = -3, flag = true, "
	    "bits = 0xABC, n = 3, dstr = \"abc\", sstr = \"hi\", "
	    "blob = [ [0] = 1, [1] = 2, [2] = 3 ], opt_b = { 7 }, "
	    "opt_i = {  }, inner = { k = 9, arr = [ [0] = 10, [1] = 11, "
	    "[2] = 12 ] }, var = { 4660 }, "
	    "big = ( \"top\" : container = 18446744073709551615 ), "
	    "sbig = -9223372036854775808 }\n";
	CHECK(d.errors == 0, "features: errors: %s", d.text);
	CHECK(out && !strcmp(out, want), "features:\n got  %s want %s",
	    out ? out : "(nothing)\n", want);
	free(out);
}

/* A variable-length integer of more than 64 bits is an error in the
 * data, at its offset, after the events before it. */
static void
test_varlen_overflow(void)
{
	const char *meta = PREAMBLE
	    RS "{\"type\":\"data-stream-class\"}\n"
	    RS "{\"type\":\"event-record-class\",\"name\":\"v\","
	    "\"payload-field-class\":{\"type\":\"structure\","
	    "\"member-classes\":[{\"name\":\"x\",\"field-class\":{\"type\":"
	    "\"variable-length-unsigned-integer\"}}]}}\n";
	static const unsigned char data[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02,
	};
	struct diags d;
	char *out = read_trace(meta, data, sizeof data, &d);
	CHECK(out && !strcmp(out, "v: { x = 18446744073709551615 }\n"),
	    "varlen: got %s", out ? out : "(nothing)");
	CHECK(d.errors == 1 && strstr(d.text, "offset 10: variable-length "
	    "integer wider than 64 bits"), "varlen overflow: %s", d.text);
	free(out);
}

/* Metadata that must be refused, and how. */
static void
test_refused(void)
{
	static const struct {
		const char *what;
		const char *payload;	/* member classes of the payload */
		const char *want;
	} cases[] = {
		{ "selector through a variant",
		    "{\"name\":\"s\",\"field-class\":" U8 "},"
		    "{\"name\":\"v\",\"field-class\":{\"type\":\"variant\","
		    "\"selector-field-location\":{\"path\":[\"s\"]},\"options\":"
		    "[{\"selector-field-ranges\":[[0,255]],\"field-class\":"
		    "{\"type\":\"structure\",\"member-classes\":[{\"name\":\"in\","
		    "\"field-class\":" U8 "}]}}]}},"
		    "{\"name\":\"a\",\"field-class\":{\"type\":"
		    "\"dynamic-length-array\",\"length-field-location\":"
		    "{\"path\":[\"v\",\"in\"]},\"element-field-class\":" U8 "}}",
		    "cannot find the length `v.in`" },
		{ "length after the array",
		    "{\"name\":\"a\",\"field-class\":{\"type\":"
		    "\"dynamic-length-array\",\"length-field-location\":"
		    "{\"path\":[\"n\"]},\"element-field-class\":" U8 "}},"
		    "{\"name\":\"n\",\"field-class\":" U8 "}",
		    "cannot find the length `n`" },
		{ "boolean selector of a variant",
		    "{\"name\":\"b\",\"field-class\":{\"type\":"
		    "\"fixed-length-boolean\",\"length\":8,"
		    "\"byte-order\":\"little-endian\"}},"
		    "{\"name\":\"v\",\"field-class\":{\"type\":\"variant\","
		    "\"selector-field-location\":{\"path\":[\"b\"]},\"options\":"
		    "[{\"selector-field-ranges\":[[0,1]],\"field-class\":" U8 "}]}}",
		    "the selector `b` of a variant is not an integer" },
		{ "integer selector without ranges",
		    "{\"name\":\"s\",\"field-class\":" U8 "},"
		    "{\"name\":\"o\",\"field-class\":{\"type\":\"optional\","
		    "\"selector-field-location\":{\"path\":[\"s\"]},"
		    "\"field-class\":" U8 "}}",
		    "is an integer but it has no selector-field-ranges" },
		{ "going back up",
		    "{\"name\":\"n\",\"field-class\":" U8 "},"
		    "{\"name\":\"a\",\"field-class\":{\"type\":"
		    "\"dynamic-length-array\",\"length-field-location\":"
		    "{\"path\":[\"x\",null,\"n\"]},\"element-field-class\":" U8 "}}",
		    "CTF 2: field locations going back up" },
		{ "unknown alias",
		    "{\"name\":\"n\",\"field-class\":\"nope\"}",
		    "member `n`: unknown field class alias `nope`" },
		{ "two members of one name",
		    "{\"name\":\"n\",\"field-class\":" U8 "},"
		    "{\"name\":\"n\",\"field-class\":" U8 "}",
		    "two members named `n`" },
		{ "128-bit float",
		    "{\"name\":\"f\",\"field-class\":{\"type\":"
		    "\"fixed-length-floating-point-number\",\"length\":128,"
		    "\"byte-order\":\"little-endian\"}}",
		    "CTF 2: 128-bit floating point numbers not supported" },
		{ "bit order",
		    "{\"name\":\"f\",\"field-class\":{\"type\":"
		    "\"fixed-length-unsigned-integer\",\"length\":8,"
		    "\"byte-order\":\"little-endian\","
		    "\"bit-order\":\"last-to-first\"}}",
		    "CTF 2: bit order `last-to-first` with byte order "
		    "`little-endian` not supported" },
		{ "unknown type",
		    "{\"name\":\"f\",\"field-class\":{\"type\":\"quaternion\"}}",
		    "CTF 2: field class type `quaternion` not supported" },
		{ "deep nesting",
		    "{\"name\":\"f\",\"field-class\":{\"type\":\"static-length-array\","
		    "\"length\":1,\"element-field-class\":{\"type\":"
		    "\"static-length-array\",\"length\":1,\"element-field-class\":"
		    "{\"type\":\"static-length-array\",\"length\":1,"
		    "\"element-field-class\":{\"type\":\"static-length-array\","
		    "\"length\":1,\"element-field-class\":\"deep\"}}}}}",
		    "field classes nested too deeply" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* for the last case, an alias of arrays 70 deep */
		char *deep = xstrdup(U8);
		for (int k = 0; k < 70 && i + 1 == sizeof cases /
		    sizeof cases[0]; k++) {
			char *n = xasprintf("{\"type\":\"static-length-array\","
			    "\"length\":1,\"element-field-class\":%s}", deep);
			free(deep);
			deep = n;
		}
		char *meta = xasprintf(PREAMBLE
		    RS "{\"type\":\"field-class-alias\",\"name\":\"deep\","
		    "\"field-class\":%s}\n"
		    RS "{\"type\":\"data-stream-class\"}\n"
		    RS "{\"type\":\"event-record-class\",\"name\":\"e\","
		    "\"payload-field-class\":{\"type\":\"structure\","
		    "\"member-classes\":[%s]}}\n", deep, cases[i].payload);
		free(deep);
		struct ctf_meta *m = ctf_meta_new();
		char err[512];
		uint64_t off = 0;
		int rc = ctf2_parse(m, meta, strlen(meta), err, sizeof err, &off);
		if (rc == 0)
			rc = ctf_meta_resolve(m, err, sizeof err);
		CHECK(rc < 0, "%s: accepted", cases[i].what);
		if (rc < 0)
			CHECK(strstr(err, cases[i].want) != NULL,
			    "%s: message \"%s\", not \"%s\"", cases[i].what, err,
			    cases[i].want);
		ctf_meta_free(m);
		free(meta);
	}
}

/* Errors at the offset of their fragment (its first byte past the
 * separator), or where the JSON goes wrong. */
static void
test_json_errors(void)
{
	static const struct {
		const char *text;
		uint64_t off;
		const char *want;
	} cases[] = {
		{ PREAMBLE RS "{\"type\":\"data-stream-class\",}\n", 63,
		    "invalid JSON" },
		{ "junk" PREAMBLE, 0, "data before the first record separator" },
		{ RS "{\"type\":\"trace-class\"}\n", 1,
		    "the first fragment must be the preamble" },
		{ PREAMBLE RS "[1,2]\n", 34, "must be a JSON object, not an array" },
		{ PREAMBLE RS "{\"type\":\"data-stream-class\",\"id\":-1}\n", 34,
		    "`id` is -1, out of" },
		{ PREAMBLE RS "{\"type\":\"data-stream-class\",\"id\":1,\"id\":2}\n",
		    73, "duplicate object key" },
		{ PREAMBLE RS "{\"type\":\"event-record-class\"}\n", 34,
		    "no data stream class with id 0 before it" },
		{ PREAMBLE RS "{\"type\":\"data-stream-class\","
		    "\"default-clock-class-id\":\"c\"}\n", 34,
		    "no clock class with id `c` before it" },
		{ PREAMBLE, 33, "without a data-stream-class" },
		{ "", 0, "without a preamble" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ctf_meta *m = ctf_meta_new();
		char err[512] = "";
		uint64_t off = 0;
		int rc = ctf2_parse(m, cases[i].text, strlen(cases[i].text), err,
		    sizeof err, &off);
		CHECK(rc < 0 && strstr(err, cases[i].want) != NULL &&
		    off == cases[i].off, "json case %zu: rc %d, offset %llu "
		    "(want %llu): %s", i, rc, (unsigned long long)off,
		    (unsigned long long)cases[i].off, err);
		ctf_meta_free(m);
	}
}

int
main(void)
{
	test_features();
	test_varlen_overflow();
	test_refused();
	test_json_errors();
	if (failures == 0)
		printf("PASS\n");
	return failures ? 1 : 0;
}
