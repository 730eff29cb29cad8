/*
 * The CTF 2 metadata front end (CTF2-SPEC-2.0): a JSON text sequence
 * (RFC 7464, each fragment after a record separator 0x1E) of fragments --
 * a preamble, field class aliases, a trace class, clock classes, data
 * stream classes and event record classes -- read with jansson and mapped
 * into the same model as TSDL (ctf_meta.h), so that decoding, its speed
 * and its handling of damage are shared by both versions.
 *
 * The mapping: integers, enumerations (integers with mappings), bit
 * arrays, bit maps and booleans become CTF_INT/CTF_ENUM (variable-length
 * ones flagged varlen); strings of a static or dynamic length and BLOBs
 * become arrays and sequences of bytes (text for strings); variants and
 * optionals become variants selecting by ranges of their own; field
 * locations become struct ctf_loc; roles are put on the field classes for
 * the scope they are built for. Every use of an alias builds its own
 * types, as the roles and clocks of a use depend on where it is.
 *
 * What the model cannot hold is refused as "CTF 2: ... not supported":
 * UTF-16/32 strings, floats other than 32 and 64 bits, fixed-length
 * integers wider than 64 bits, bit orders against the byte order,
 * field locations going through variants, and any extension the
 * preamble declares (the specification forbids reading a trace whose
 * declared extensions are not all understood). Extensions elsewhere,
 * attributes and unknown properties are ignored.
 *
 * Errors unwind with longjmp to ctf2_parse(), which returns the message
 * and the byte offset of the fragment (or of the JSON syntax error).
 */
#include <jansson.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "types/ctf_meta.h"
#include "ctf2_json.h"
#include "types/ctf_names.h"

#define RS 0x1e
#define MAX_DEPTH 64
#define MAX_LENGTH ((uint64_t)1 << 32)	/* static lengths, as TSDL's */
#define MAX_ALIGN ((uint64_t)1 << 30)	/* bits */

struct c2 {
	struct ctf_meta *m;
	jmp_buf jb;
	char *err;
	size_t errsize;
	uint64_t off;		/* of the fragment being read */
	json_t *frag;		/* the fragment being read */
	json_t *aliases;	/* name -> field class */
	char where[384];	/* what is being read, for messages */
	int scope;		/* enum ctf_scope of the class being built, -1 */
	int clock;		/* the data stream class's default clock, -1 */
	struct ctf_names clock_ids;	/* id -> index in m->clocks */
	struct hashmap streams;		/* id -> index in m->streams */
	bool have_bo;
	bool have_tc;
};

static void fail(struct c2 *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void
fail(struct c2 *c, const char *fmt, ...)
{
	int n = 0;
	if (c->where[0] != '\0')
		n = snprintf(c->err, c->errsize, "%s: ", c->where);
	if (n < 0 || (size_t)n >= c->errsize)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(c->jb, 1);
}

/* Breadcrumbs: push returns the length to pop back to. */
static size_t push(struct c2 *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t
push(struct c2 *c, const char *fmt, ...)
{
	size_t n = strlen(c->where);
	if (n + 3 >= sizeof c->where)
		return n;
	if (n > 0) {
		strcpy(c->where + n, ", ");
		n += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->where + n, sizeof c->where - n, fmt, ap);
	va_end(ap);
	return n >= 2 ? n - 2 : 0;
}

static void
pop(struct c2 *c, size_t n)
{
	c->where[n] = '\0';
}

bool
ctf2_is_json(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];
		if (ch == RS)
			return true;
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			return false;
	}
	return false;
}

/* --- JSON values --- */

/* jansson holds integers as long long: a fragment's integers past
 * INT64_MAX (64-bit unsigned ranges) are turned into strings of a NUL
 * and their digits before parsing, and read back here. */
static bool
json_u64_big(const json_t *v, uint64_t *out)
{
	if (!json_is_string(v) || json_string_length(v) < 2 ||
	    json_string_value(v)[0] != '\0')
		return false;
	const char *s = json_string_value(v) + 1;
	uint64_t x = 0;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

/* An integer as a 64-bit pattern; *neg when negative. */
static bool
json_int64(const json_t *v, uint64_t *out, bool *neg)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		*out = (uint64_t)i;
		*neg = i < 0;
		return true;
	}
	*neg = false;
	return json_u64_big(v, out);
}

static const char *
kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return json_u64_big(v, &(uint64_t){ 0 }) ?
	    "an integer" : "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static const char *
want_str(struct c2 *c, const json_t *o, const char *key, bool required)
{
	json_t *v = json_object_get(o, key);
	if (v == NULL) {
		if (required)
			fail(c, "missing `%s`", key);
		return NULL;
	}
	if (!json_is_string(v) || json_u64_big(v, &(uint64_t){ 0 }))
		fail(c, "`%s` must be a string, not %s", key, kind_name(v));
	if (strlen(json_string_value(v)) != json_string_length(v))
		fail(c, "`%s` holds a NUL character", key);
	return json_string_value(v);
}

/* A string kept in the meta's arena. */
static const char *
keep_str(struct c2 *c, const char *s)
{
	return s ? ctf_strdup(c->m, s, strlen(s)) : NULL;
}

static uint64_t
want_uint(struct c2 *c, const json_t *o, const char *key, bool required,
    uint64_t dflt, uint64_t min, uint64_t max)
{
	json_t *v = json_object_get(o, key);
	if (v == NULL) {
		if (required)
			fail(c, "missing `%s`", key);
		return dflt;
	}
	uint64_t x;
	bool neg;
	if (!json_int64(v, &x, &neg))
		fail(c, "`%s` must be an integer, not %s", key, kind_name(v));
	if (neg || x < min || x > max)
		fail(c, "`%s` is %s%llu, out of %llu..%llu", key, neg ? "-" : "",
		    neg ? (unsigned long long)-x : (unsigned long long)x,
		    (unsigned long long)min, (unsigned long long)max);
	return x;
}

static int64_t
want_int(struct c2 *c, const json_t *o, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(o, key);
	if (v == NULL)
		return dflt;
	if (!json_is_integer(v))
		fail(c, "`%s` must be an integer in 64 bits, not %s", key,
		    kind_name(v));
	return (int64_t)json_integer_value(v);
}

static json_t *
want_obj(struct c2 *c, const json_t *o, const char *key, bool required)
{
	json_t *v = json_object_get(o, key);
	if (v == NULL) {
		if (required)
			fail(c, "missing `%s`", key);
		return NULL;
	}
	if (!json_is_object(v))
		fail(c, "`%s` must be an object, not %s", key, kind_name(v));
	return v;
}

static json_t *
want_arr(struct c2 *c, const json_t *o, const char *key, bool required)
{
	json_t *v = json_object_get(o, key);
	if (v == NULL) {
		if (required)
			fail(c, "missing `%s`", key);
		return NULL;
	}
	if (!json_is_array(v))
		fail(c, "`%s` must be an array, not %s", key, kind_name(v));
	return v;
}

/* --- field classes --- */

static const struct {
	int scope;
	const char *name;
	enum ctf_role role;
} roles[] = {
	{ SCOPE_PACKET_HEADER, "packet-magic-number", ROLE_MAGIC },
	{ SCOPE_PACKET_HEADER, "metadata-stream-uuid", ROLE_UUID },
	{ SCOPE_PACKET_HEADER, "data-stream-class-id", ROLE_STREAM_ID },
	{ SCOPE_PACKET_HEADER, "data-stream-id", ROLE_STREAM_INSTANCE_ID },
	{ SCOPE_PACKET_CONTEXT, "packet-total-length", ROLE_PACKET_SIZE },
	{ SCOPE_PACKET_CONTEXT, "packet-content-length", ROLE_CONTENT_SIZE },
	{ SCOPE_PACKET_CONTEXT, "default-clock-timestamp", ROLE_TS_BEGIN },
	{ SCOPE_PACKET_CONTEXT, "packet-end-default-clock-timestamp",
	    ROLE_TS_END },
	{ SCOPE_PACKET_CONTEXT, "discarded-event-record-counter-snapshot",
	    ROLE_EVENTS_DISCARDED },
	{ SCOPE_PACKET_CONTEXT, "packet-sequence-number",
	    ROLE_PACKET_SEQ_NUM },
	{ SCOPE_EVENT_HEADER, "event-record-class-id", ROLE_EVENT_ID },
	{ SCOPE_EVENT_HEADER, "default-clock-timestamp", ROLE_TIMESTAMP },
};

/* The role of an unsigned integer or BLOB in the scope being built: the
 * first one it declares that means something there (others, in other
 * scopes or unknown, mean nothing to a reader). */
static void
take_roles(struct c2 *c, const json_t *o, struct ctf_type *t, bool blob)
{
	json_t *rs = want_arr(c, o, "roles", false);
	size_t i;
	json_t *r;
	json_array_foreach(rs, i, r) {
		if (!json_is_string(r))
			fail(c, "a role must be a string, not %s", kind_name(r));
		for (size_t k = 0; k < sizeof roles / sizeof roles[0]; k++) {
			if (roles[k].scope != c->scope ||
			    strcmp(roles[k].name, json_string_value(r)) != 0 ||
			    t->role != ROLE_NONE)
				continue;
			enum ctf_role role = roles[k].role;
			if (blob != (role == ROLE_UUID))
				continue;
			t->role = (uint8_t)role;
			if (role == ROLE_TIMESTAMP || role == ROLE_TS_BEGIN ||
			    role == ROLE_TS_END)
				t->clock = c->clock;
		}
	}
}

static uint8_t
want_byte_order(struct c2 *c, const json_t *o)
{
	const char *bo = want_str(c, o, "byte-order", true);
	uint8_t r;
	if (!strcmp(bo, "little-endian"))
		r = CTF_BO_LE;
	else if (!strcmp(bo, "big-endian"))
		r = CTF_BO_BE;
	else
		fail(c, "unknown byte order `%s`", bo);
	const char *bito = want_str(c, o, "bit-order", false);
	if (bito != NULL) {
		const char *usual = r == CTF_BO_LE ? "first-to-last" :
		    "last-to-first";
		if (strcmp(bito, "first-to-last") != 0 &&
		    strcmp(bito, "last-to-first") != 0)
			fail(c, "unknown bit order `%s`", bito);
		if (strcmp(bito, usual) != 0)
			fail(c, "CTF 2: bit order `%s` with byte order `%s` "
			    "not supported", bito, bo);
	}
	if (!c->have_bo) {
		c->m->byte_order = r;
		c->have_bo = true;
	}
	return r;
}

static uint32_t
want_align(struct c2 *c, const json_t *o, const char *key)
{
	uint64_t a = want_uint(c, o, key, false, 1, 1, MAX_ALIGN);
	if ((a & (a - 1)) != 0)
		fail(c, "`%s` %llu is not a power of two", key,
		    (unsigned long long)a);
	return (uint32_t)a;
}

static void
want_utf8(struct c2 *c, const json_t *o)
{
	const char *enc = want_str(c, o, "encoding", false);
	if (enc != NULL && strcmp(enc, "utf-8") != 0) {
		if (!strcmp(enc, "utf-16be") || !strcmp(enc, "utf-16le") ||
		    !strcmp(enc, "utf-32be") || !strcmp(enc, "utf-32le"))
			fail(c, "CTF 2: %s strings not supported", enc);
		fail(c, "unknown string encoding `%s`", enc);
	}
}

/* One integer range [lo, hi] of a range set, as bit patterns; false
 * with *why set if it is not one. */
static bool
range_of(const json_t *r, int64_t *lo, int64_t *hi, const char **why)
{
	uint64_t a, b;
	bool na, nb;
	if (!json_is_array(r) || json_array_size(r) != 2 ||
	    !json_int64(json_array_get(r, 0), &a, &na) ||
	    !json_int64(json_array_get(r, 1), &b, &nb)) {
		*why = "an integer range must be an array of two integers";
		return false;
	}
	/* both as signed, or as unsigned past INT64_MAX */
	bool ok = na || nb ? !(b > INT64_MAX && !nb) && (int64_t)a <=
	    (int64_t)b : a <= b;
	if (!ok) {
		*why = "an integer range's lower bound is above its upper "
		    "bound (or the range mixes negative values and values "
		    "past 2^63 - 1)";
		return false;
	}
	*lo = (int64_t)a;
	*hi = (int64_t)b;
	return true;
}

/* The number of ranges of a range set (checked to be a non-empty array). */
static size_t
count_ranges(struct c2 *c, const json_t *set)
{
	if (!json_is_array(set) || json_array_size(set) == 0)
		fail(c, "an integer range set must be a non-empty array");
	return json_array_size(set);
}

/* Puts the ranges of a range set into maps[*n...], each labelled (the
 * room counted beforehand with count_ranges: maps are in the arena, so
 * nothing is lost if a range is wrong). */
static void
add_ranges(struct c2 *c, const json_t *set, const char *label,
    struct ctf_enum_map *maps, size_t *n)
{
	size_t i;
	json_t *r;
	json_array_foreach(set, i, r) {
		int64_t lo, hi;
		const char *why;
		if (!range_of(r, &lo, &hi, &why))
			fail(c, "%s", why);
		maps[(*n)++] = (struct ctf_enum_map){ label, lo, hi };
	}
}

static void
take_mappings(struct c2 *c, const json_t *o, struct ctf_type *t)
{
	json_t *mp = want_obj(c, o, "mappings", false);
	if (mp == NULL || json_object_size(mp) == 0)
		return;
	const char *label;
	json_t *set;
	size_t total = 0;
	json_object_foreach(mp, label, set) {
		size_t at = push(c, "mapping `%s`", label);
		total += count_ranges(c, set);
		pop(c, at);
	}
	t->maps = ctf_alloc(c->m, total * sizeof *t->maps);
	json_object_foreach(mp, label, set) {
		size_t at = push(c, "mapping `%s`", label);
		add_ranges(c, set, keep_str(c, label), t->maps, &t->nmaps);
		pop(c, at);
	}
	t->kind = CTF_ENUM;
}

static struct ctf_type *field_class(struct c2 *c, json_t *v, int depth);

static struct ctf_type *
new_type(struct c2 *c, enum ctf_kind kind)
{
	/* every use of an alias builds its types again: a chain of aliases
	 * of structures of the last one would build exponentially many */
	if (ctf_meta_over(c->m)) {
		char msg[200];
		fail(c, "%s", ctf_meta_over_msg(c->m, msg, sizeof msg));
	}
	struct ctf_type *t = ctf_type_new(c->m, kind);
	t->line = c->off > INT_MAX - 2 ? INT_MAX : (int)c->off + 1;
	t->col = 0;
	return t;
}

/* An 8-bit byte: the elements of strings and BLOBs. */
static struct ctf_type *
byte_type(struct c2 *c, bool text)
{
	struct ctf_type *e = new_type(c, CTF_INT);
	e->size = 8;
	e->align = 8;
	e->byte_order = CTF_BO_LE;
	e->encoding = text ? 1 : 0;
	return e;
}

static const struct {
	const char *name;
	int scope;
} origins[] = {
	{ "packet-header", SCOPE_PACKET_HEADER },
	{ "packet-context", SCOPE_PACKET_CONTEXT },
	{ "event-record-header", SCOPE_EVENT_HEADER },
	{ "event-record-common-context", SCOPE_STREAM_EVENT_CONTEXT },
	{ "event-record-specific-context", SCOPE_EVENT_CONTEXT },
	{ "event-record-payload", SCOPE_EVENT_FIELDS },
};

/* A field location, and how to show it in messages (*shown). */
static const struct ctf_loc *
want_loc(struct c2 *c, const json_t *o, const char *key, const char **shown)
{
	json_t *l = want_obj(c, o, key, true);
	size_t at = push(c, "%s", key);
	struct ctf_loc *loc = ctf_alloc(c->m, sizeof *loc);
	const char *origin = want_str(c, l, "origin", false);
	loc->scope = -1;
	if (origin != NULL) {
		for (size_t i = 0; i < sizeof origins / sizeof origins[0]; i++)
			if (!strcmp(origins[i].name, origin))
				loc->scope = origins[i].scope;
		if (loc->scope < 0)
			fail(c, "unknown origin `%s`", origin);
	}
	json_t *path = want_arr(c, l, "path", true);
	size_t n = json_array_size(path);
	if (n == 0)
		fail(c, "empty `path`");
	loc->names = ctf_alloc(c->m, n * sizeof *loc->names);
	char shown_buf[256];
	size_t sl = (size_t)snprintf(shown_buf, sizeof shown_buf, "%s%s",
	    origin ? origin : "", origin ? ":" : "");
	size_t i;
	json_t *e;
	json_array_foreach(path, i, e) {
		if (json_is_null(e)) {
			if (loc->nnames > 0)
				fail(c, "CTF 2: field locations going back up "
				    "(`null` after a name) not supported");
			if (origin != NULL)
				fail(c, "`null` in the path of a location with "
				    "an origin");
			loc->up++;
			if (sl < sizeof shown_buf)
				sl += (size_t)snprintf(shown_buf + sl,
				    sizeof shown_buf - sl, "../");
			continue;
		}
		if (!json_is_string(e) || json_u64_big(e, &(uint64_t){ 0 }))
			fail(c, "path elements are names or null, not %s",
			    kind_name(e));
		const char *name = json_string_value(e);
		loc->names[loc->nnames++] = keep_str(c, name);
		if (sl < sizeof shown_buf)
			sl += (size_t)snprintf(shown_buf + sl,
			    sizeof shown_buf - sl, "%s%s", name,
			    i + 1 < n ? "." : "");
	}
	if (loc->nnames == 0)
		fail(c, "the last element of `path` must be a name");
	*shown = keep_str(c, shown_buf);
	pop(c, at);
	return loc;
}

static struct ctf_type *
fixed_length(struct c2 *c, const json_t *o, const char *type)
{
	bool is_float = !strcmp(type, "fixed-length-floating-point-number");
	uint64_t len = want_uint(c, o, "length", true, 0, 1, UINT64_MAX);
	struct ctf_type *t = new_type(c, is_float ? CTF_FLOAT : CTF_INT);
	t->byte_order = want_byte_order(c, o);
	t->align = want_align(c, o, "alignment");
	if (is_float) {
		if (len != 32 && len != 64)
			fail(c, "CTF 2: %llu-bit floating point numbers not "
			    "supported", (unsigned long long)len);
		t->size = (uint32_t)len;
		t->exp_dig = len == 32 ? 8 : 11;
		t->mant_dig = len == 32 ? 24 : 53;
		return t;
	}
	if (len > 64)
		fail(c, "CTF 2: %s fields of %llu bits (more than 64) not "
		    "supported", type, (unsigned long long)len);
	t->size = (uint32_t)len;
	bool is_int = !strncmp(type, "fixed-length-", 13) &&
	    strstr(type, "-integer") != NULL;
	if (!is_int) {
		/* bit arrays and bit maps: unsigned, shown in hex; booleans */
		t->is_bool = !strcmp(type, "fixed-length-boolean");
		t->base = t->is_bool ? 10 : 16;
		if (!strcmp(type, "fixed-length-bit-map"))
			want_obj(c, o, "flags", true);
		return t;
	}
	t->is_signed = !strcmp(type, "fixed-length-signed-integer");
	return t;
}

static void
int_common(struct c2 *c, const json_t *o, struct ctf_type *t)
{
	uint64_t base = want_uint(c, o, "preferred-display-base", false, 10,
	    2, 16);
	if (base != 2 && base != 8 && base != 10 && base != 16)
		fail(c, "`preferred-display-base` must be 2, 8, 10 or 16");
	t->base = (uint8_t)base;
	take_mappings(c, o, t);
	if (!t->is_signed)
		take_roles(c, o, t, false);
}

static struct ctf_type *
structure(struct c2 *c, const json_t *o, int depth)
{
	struct ctf_type *t = new_type(c, CTF_STRUCT);
	t->align = want_align(c, o, "minimum-alignment");
	json_t *ms = want_arr(c, o, "member-classes", false);
	size_t i;
	json_t *mc;
	json_array_foreach(ms, i, mc) {
		if (!json_is_object(mc))
			fail(c, "a member class must be an object, not %s",
			    kind_name(mc));
		const char *name = want_str(c, mc, "name", true);
		if (ctf_field_find(t, t->nfields, name, strlen(name)) >= 0)
			fail(c, "two members named `%s`", name);
		size_t at = push(c, "member `%s`", name);
		json_t *fc = json_object_get(mc, "field-class");
		if (fc == NULL)
			fail(c, "missing `field-class`");
		struct ctf_type *ft = field_class(c, fc, depth + 1);
		ctf_field_add(c->m, t, keep_str(c, name), ft);
		pop(c, at);
	}
	if (t->fields == NULL)
		t->fields = ctf_alloc(c->m, sizeof *t->fields);
	return t;
}

static struct ctf_type *
variant(struct c2 *c, const json_t *o, int depth)
{
	struct ctf_type *t = new_type(c, CTF_VARIANT);
	t->loc = want_loc(c, o, "selector-field-location", &t->tag);
	json_t *opts = want_arr(c, o, "options", true);
	size_t n = json_array_size(opts);
	if (n == 0)
		fail(c, "a variant without options");
	t->fields = ctf_alloc(c->m, n * sizeof *t->fields);
	size_t total = 0, i;
	json_t *op;
	json_array_foreach(opts, i, op) {
		size_t at = push(c, "option %zu", i);
		if (!json_is_object(op))
			fail(c, "an option must be an object, not %s",
			    kind_name(op));
		json_t *set = json_object_get(op, "selector-field-ranges");
		if (set == NULL)
			fail(c, "missing `selector-field-ranges`");
		total += count_ranges(c, set);
		pop(c, at);
	}
	/* each map is one of an option's ranges, labelled with its name */
	t->maps = ctf_alloc(c->m, total * sizeof *t->maps);
	t->opt_of_map = ctf_alloc(c->m, total * sizeof *t->opt_of_map);
	json_array_foreach(opts, i, op) {
		const char *name = want_str(c, op, "name", false);
		size_t at = push(c, "option %zu%s%s%s", i, name ? " `" : "",
		    name ? name : "", name ? "`" : "");
		struct ctf_field *f = &t->fields[i];
		f->name = keep_str(c, name ? name : "");
		f->display = f->name;
		f->slot = -1;
		size_t from = t->nmaps;
		add_ranges(c, json_object_get(op, "selector-field-ranges"),
		    f->name, t->maps, &t->nmaps);
		for (size_t k = from; k < t->nmaps; k++)
			t->opt_of_map[k] = (int)i;
		json_t *fc = json_object_get(op, "field-class");
		if (fc == NULL)
			fail(c, "missing `field-class`");
		f->type = field_class(c, fc, depth + 1);
		t->nfields = i + 1;
		pop(c, at);
	}
	t->nopt_of_map = t->nmaps;
	return t;
}

static struct ctf_type *
optional(struct c2 *c, const json_t *o, int depth)
{
	struct ctf_type *t = new_type(c, CTF_VARIANT);
	t->optional = true;
	t->loc = want_loc(c, o, "selector-field-location", &t->tag);
	json_t *set = json_object_get(o, "selector-field-ranges");
	/* without ranges the selector must be a boolean (checked when
	 * locations are resolved, ctf_types.c) */
	if (set != NULL) {
		size_t n = count_ranges(c, set);
		t->maps = ctf_alloc(c->m, n * sizeof *t->maps);
		t->opt_of_map = ctf_alloc(c->m, n * sizeof *t->opt_of_map);
		add_ranges(c, set, "", t->maps, &t->nmaps);
		t->nopt_of_map = t->nmaps;
	}
	json_t *fc = json_object_get(o, "field-class");
	if (fc == NULL)
		fail(c, "missing `field-class`");
	t->fields = ctf_alloc(c->m, sizeof *t->fields);
	t->fields[0].name = "";
	t->fields[0].display = "";
	t->fields[0].slot = -1;
	t->fields[0].type = field_class(c, fc, depth + 1);
	t->nfields = 1;
	return t;
}

/* Arrays, strings and BLOBs of a static or dynamic length. */
static struct ctf_type *
sized(struct c2 *c, const json_t *o, const char *type, int depth)
{
	bool dynamic = !strncmp(type, "dynamic-", 8);
	bool string = strstr(type, "-string") != NULL;
	bool blob = strstr(type, "-blob") != NULL;
	struct ctf_type *t = new_type(c, dynamic ? CTF_SEQUENCE : CTF_ARRAY);
	if (dynamic)
		t->loc = want_loc(c, o, "length-field-location",
		    &t->length_path);
	else
		t->length = want_uint(c, o, "length", true, 0, 0, MAX_LENGTH);
	if (string || blob) {
		if (string)
			want_utf8(c, o);
		t->elem = byte_type(c, string);
		t->is_text = string;
		t->align = 8;
		if (blob && !dynamic)
			take_roles(c, o, t, true);
		if (t->role == ROLE_UUID && t->length != 16)
			t->role = ROLE_NONE;
		return t;
	}
	t->align = want_align(c, o, "minimum-alignment");
	json_t *ec = json_object_get(o, "element-field-class");
	if (ec == NULL)
		fail(c, "missing `element-field-class`");
	size_t at = push(c, "element-field-class");
	t->elem = field_class(c, ec, depth + 1);
	pop(c, at);
	return t;
}

static struct ctf_type *
field_class(struct c2 *c, json_t *v, int depth)
{
	if (depth > MAX_DEPTH)
		fail(c, "field classes nested too deeply");
	if (json_is_string(v)) {
		const char *name = json_string_value(v);
		json_t *a = json_object_get(c->aliases, name);
		if (a == NULL)
			fail(c, "unknown field class alias `%s`", name);
		size_t at = push(c, "alias `%s`", name);
		struct ctf_type *t = field_class(c, a, depth + 1);
		pop(c, at);
		return t;
	}
	if (!json_is_object(v))
		fail(c, "a field class must be an object or an alias name, "
		    "not %s", kind_name(v));
	const char *type = want_str(c, v, "type", true);
	struct ctf_type *t;
	if (!strcmp(type, "fixed-length-unsigned-integer") ||
	    !strcmp(type, "fixed-length-signed-integer")) {
		t = fixed_length(c, v, type);
		int_common(c, v, t);
	} else if (!strcmp(type, "fixed-length-bit-array") ||
	    !strcmp(type, "fixed-length-bit-map") ||
	    !strcmp(type, "fixed-length-boolean") ||
	    !strcmp(type, "fixed-length-floating-point-number"))
		t = fixed_length(c, v, type);
	else if (!strcmp(type, "variable-length-unsigned-integer") ||
	    !strcmp(type, "variable-length-signed-integer")) {
		t = new_type(c, CTF_INT);
		t->varlen = true;
		t->size = 64;
		t->align = 8;
		t->byte_order = CTF_BO_LE;
		t->is_signed = !strcmp(type, "variable-length-signed-integer");
		int_common(c, v, t);
	} else if (!strcmp(type, "null-terminated-string")) {
		want_utf8(c, v);
		t = new_type(c, CTF_STRING);
		t->align = 8;
		t->encoding = 1;
	} else if (!strcmp(type, "static-length-string") ||
	    !strcmp(type, "dynamic-length-string") ||
	    !strcmp(type, "static-length-blob") ||
	    !strcmp(type, "dynamic-length-blob") ||
	    !strcmp(type, "static-length-array") ||
	    !strcmp(type, "dynamic-length-array"))
		t = sized(c, v, type, depth);
	else if (!strcmp(type, "structure"))
		t = structure(c, v, depth);
	else if (!strcmp(type, "variant"))
		t = variant(c, v, depth);
	else if (!strcmp(type, "optional"))
		t = optional(c, v, depth);
	else
		fail(c, "CTF 2: field class type `%s` not supported", type);
	return t;
}

/* A root scope: a structure (or an alias of one). */
static struct ctf_type *
root_class(struct c2 *c, const json_t *frag, const char *key, int scope)
{
	json_t *v = json_object_get(frag, key);
	if (v == NULL)
		return NULL;
	size_t at = push(c, "%s", key);
	c->scope = scope;
	struct ctf_type *t = field_class(c, v, 0);
	if (t->kind != CTF_STRUCT)
		fail(c, "must be a structure");
	c->scope = -1;
	pop(c, at);
	return t;
}

/* --- fragments --- */

static void
preamble(struct c2 *c, const json_t *f)
{
	json_t *ver = json_object_get(f, "version");
	if (ver == NULL)
		fail(c, "missing `version`");
	if (!json_is_integer(ver) || json_integer_value(ver) != 2)
		fail(c, "CTF 2: preamble version %s not supported (expecting "
		    "2)", json_is_integer(ver) ? "other than 2" :
		    kind_name(ver));
	json_t *uuid = want_arr(c, f, "uuid", false);
	if (uuid != NULL) {
		if (json_array_size(uuid) != 16)
			fail(c, "`uuid` must hold 16 bytes");
		size_t i;
		json_t *b;
		json_array_foreach(uuid, i, b) {
			if (!json_is_integer(b) || json_integer_value(b) < 0 ||
			    json_integer_value(b) > 255)
				fail(c, "`uuid` must hold 16 integers of 0..255");
			c->m->uuid[i] = (uint8_t)json_integer_value(b);
		}
		c->m->has_uuid = true;
	}
	/* a declared extension may change the format: refuse the trace
	 * unless every one is understood, and none is */
	json_t *ext = want_obj(c, f, "extensions", false);
	const char *ns;
	json_t *names;
	json_object_foreach(ext, ns, names) {
		if (!json_is_object(names))
			fail(c, "extensions of namespace `%s` must be an object",
			    ns);
		const char *name;
		json_t *val;
		json_object_foreach(names, name, val)
			fail(c, "CTF 2: extension `%s` of namespace `%s` (which "
			    "the preamble declares, so the trace needs it) not "
			    "supported", name, ns);
	}
}

static void
field_class_alias(struct c2 *c, const json_t *f)
{
	const char *name = want_str(c, f, "name", true);
	size_t at = push(c, "`%s`", name);
	if (json_object_get(c->aliases, name) != NULL)
		fail(c, "a second field class alias named `%s`", name);
	json_t *fc = json_object_get(f, "field-class");
	if (fc == NULL)
		fail(c, "missing `field-class`");
	if (json_is_string(fc)) {
		json_t *a = json_object_get(c->aliases, json_string_value(fc));
		if (a == NULL)
			fail(c, "unknown field class alias `%s`",
			    json_string_value(fc));
		fc = a;
	}
	/* checked now, where its mistakes are; built again at each use */
	field_class(c, fc, 0);
	json_object_set(c->aliases, name, fc);
	pop(c, at);
}

static void
trace_class(struct c2 *c, const json_t *f)
{
	struct ctf_meta *m = c->m;
	if (c->have_tc)
		fail(c, "a second trace-class fragment");
	if (m->nstreams > 0)
		fail(c, "the trace-class fragment comes after a "
		    "data-stream-class one");
	c->have_tc = true;
	json_t *env = want_obj(c, f, "environment", false);
	size_t n = json_object_size(env);
	if (n > 0) {
		m->env = ctf_alloc(m, n * sizeof *m->env);
		const char *key;
		json_t *v;
		json_object_foreach(env, key, v) {
			struct ctf_env *e = &m->env[m->nenv];
			e->key = keep_str(c, key);
			if (json_is_integer(v))
				e->i = (int64_t)json_integer_value(v);
			else if (json_is_string(v) &&
			    !json_u64_big(v, &(uint64_t){ 0 }))
				e->str = keep_str(c, json_string_value(v));
			else
				fail(c, "environment entry `%s` must be an integer "
				    "or a string, not %s", key, kind_name(v));
			m->nenv++;
		}
	}
	m->packet_header = root_class(c, f, "packet-header-field-class",
	    SCOPE_PACKET_HEADER);
}

static void
clock_class(struct c2 *c, const json_t *f)
{
	struct ctf_meta *m = c->m;
	const char *id = want_str(c, f, "id", true);
	size_t at = push(c, "`%s`", id);
	if (ctf_names_get(&c->clock_ids, id, strlen(id)) >= 0)
		fail(c, "a second clock class with id `%s`", id);
	struct ctf_clock k = { 0 };
	const char *name = want_str(c, f, "name", false);
	k.name = keep_str(c, name ? name : id);
	k.freq = want_uint(c, f, "frequency", true, 0, 1, UINT64_MAX);
	k.description = keep_str(c, want_str(c, f, "description", false));
	k.uuid = keep_str(c, want_str(c, f, "uid", false));
	json_t *off = want_obj(c, f, "offset-from-origin", false);
	if (off != NULL) {
		size_t at2 = push(c, "offset-from-origin");
		k.offset_s = want_int(c, off, "seconds", 0);
		k.offset = (int64_t)want_uint(c, off, "cycles", false, 0, 0,
		    k.freq - 1 < (uint64_t)INT64_MAX ? k.freq - 1 :
		    (uint64_t)INT64_MAX);
		pop(c, at2);
	}
	json_t *origin = json_object_get(f, "origin");
	if (origin != NULL && !json_is_object(origin) &&
	    !(json_is_string(origin) &&
	    !strcmp(json_string_value(origin), "unix-epoch")))
		fail(c, "`origin` must be \"unix-epoch\" or an object");
	(void)want_uint(c, f, "precision", false, 0, 0, UINT64_MAX);
	(void)want_uint(c, f, "accuracy", false, 0, 0, UINT64_MAX);
	m->clocks = ctf_grow(m, m->clocks, m->nclocks, &m->clocks_cap,
	    sizeof *m->clocks);
	m->clocks[m->nclocks] = k;
	ctf_names_put(m, &c->clock_ids, keep_str(c, id), (uint32_t)m->nclocks,
	    false);
	m->nclocks++;
	pop(c, at);
}

static struct ctf_stream_class *
stream_by_id(const struct c2 *c, uint64_t id)
{
	uint32_t at;
	return hashmap_get(&c->streams, id, 0, &at) ? c->m->streams[at] : NULL;
}

static int
line_of(const struct c2 *c)
{
	return c->off > INT_MAX - 2 ? INT_MAX : (int)c->off + 1;
}

static void
data_stream_class(struct c2 *c, const json_t *f)
{
	struct ctf_meta *m = c->m;
	uint64_t id = want_uint(c, f, "id", false, 0, 0, UINT64_MAX);
	size_t at = push(c, "id %llu", (unsigned long long)id);
	if (stream_by_id(c, id) != NULL)
		fail(c, "a second data stream class with id %llu",
		    (unsigned long long)id);
	c->clock = -1;
	const char *ck = want_str(c, f, "default-clock-class-id", false);
	if (ck != NULL) {
		c->clock = (int)ctf_names_get(&c->clock_ids, ck, strlen(ck));
		if (c->clock < 0)
			fail(c, "no clock class with id `%s` before it", ck);
	}
	struct ctf_stream_class *s = ctf_alloc(m, sizeof *s);
	s->id = id;
	s->has_id = true;
	s->clock = c->clock;
	s->line = line_of(c);
	s->packet_context = root_class(c, f, "packet-context-field-class",
	    SCOPE_PACKET_CONTEXT);
	s->event_header = root_class(c, f, "event-record-header-field-class",
	    SCOPE_EVENT_HEADER);
	s->event_context = root_class(c, f,
	    "event-record-common-context-field-class",
	    SCOPE_STREAM_EVENT_CONTEXT);
	m->streams = ctf_grow(m, m->streams, m->nstreams, &m->streams_cap,
	    sizeof *m->streams);
	hashmap_put(&c->streams, id, 0, (uint32_t)m->nstreams);
	m->streams[m->nstreams++] = s;
	pop(c, at);
}

/* LTTng's log levels (its attribute), as numbers like TSDL's loglevel. */
static int64_t
lttng_log_level(const json_t *f)
{
	static const char *const levels[] = {
		"emergency", "alert", "critical", "error", "warning", "notice",
		"info", "debug-system", "debug-program", "debug-process",
		"debug-module", "debug-unit", "debug-function", "debug-line",
		"debug",
	};
	json_t *a = json_object_get(json_object_get(json_object_get(f,
	    "attributes"), "lttng.org,2009"), "log-level");
	if (json_is_integer(a))
		return (int64_t)json_integer_value(a);
	if (json_is_string(a))
		for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
			if (!strcmp(levels[i], json_string_value(a)))
				return (int64_t)i;
	return -1;
}

static void
event_record_class(struct c2 *c, const json_t *f)
{
	struct ctf_meta *m = c->m;
	struct ctf_event_class *e = ctf_alloc(m, sizeof *e);
	const char *name = want_str(c, f, "name", false);
	e->name = keep_str(c, name ? name : "");
	e->id = want_uint(c, f, "id", false, 0, 0, UINT64_MAX);
	e->has_id = true;
	size_t at = push(c, "`%s` (id %llu)", e->name,
	    (unsigned long long)e->id);
	e->stream_id = want_uint(c, f, "data-stream-class-id", false, 0, 0,
	    UINT64_MAX);
	e->has_stream_id = true;
	e->loglevel = lttng_log_level(f);
	e->line = line_of(c);
	struct ctf_stream_class *s = stream_by_id(c, e->stream_id);
	if (s == NULL)
		fail(c, "no data stream class with id %llu before it",
		    (unsigned long long)e->stream_id);
	c->clock = s->clock;
	e->context = root_class(c, f, "specific-context-field-class",
	    SCOPE_EVENT_CONTEXT);
	e->fields = root_class(c, f, "payload-field-class",
	    SCOPE_EVENT_FIELDS);
	s->events = ctf_grow(m, s->events, s->nevents, &s->events_cap,
	    sizeof *s->events);
	s->events[s->nevents++] = e;
	pop(c, at);
}

/* --- the sequence --- */

/* A copy of a fragment with its integers past INT64_MAX turned into
 * strings jansson keeps (json_u64_big), or NULL when it has none. */
static char *
quote_big_integers(const char *s, size_t len, size_t *outlen)
{
	char *out = NULL;
	size_t n = 0, done = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		if (ch == '"') {
			in_str = true;
			continue;
		}
		if (ch < '0' || ch > '9')
			continue;
		size_t j = i;
		while (j < len && s[j] >= '0' && s[j] <= '9')
			j++;
		size_t nd = j - i;
		bool plain = (i == 0 || s[i - 1] != '-') && s[i] != '0' &&
		    (j == len || (s[j] != '.' && s[j] != 'e' && s[j] != 'E'));
		/* above INT64_MAX, up to UINT64_MAX (larger ones are left
		 * for jansson to refuse) */
		if (plain && (nd == 20 ?
		    memcmp(s + i, "18446744073709551615", 20) <= 0 :
		    nd == 19 && memcmp(s + i, "9223372036854775807", 19) > 0)) {
			/* each such number grows by 8 bytes and takes 19 */
			if (out == NULL)
				out = xmalloc(len + len / 2 + 16);
			memcpy(out + n, s + done, i - done);
			n += i - done;
			memcpy(out + n, "\"\\u0000", 7);
			n += 7;
			memcpy(out + n, s + i, nd);
			n += nd;
			out[n++] = '"';
			done = j;
		}
		i = j - 1;
	}
	if (out == NULL)
		return NULL;
	memcpy(out + n, s + done, len - done);
	n += len - done;
	*outlen = n;
	return out;
}

static void
fragment(struct c2 *c, const char *text, size_t len, bool first)
{
	size_t qlen;
	char *q = quote_big_integers(text, len, &qlen);
	json_error_t je;
	c->frag = json_loadb(q ? q : text, q ? qlen : len,
	    JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	free(q);
	if (c->frag == NULL) {
		if (je.position > 0 && (size_t)je.position <= len)
			c->off += (uint64_t)je.position;
		fail(c, "CTF 2 metadata: invalid JSON: %s", je.text);
	}
	if (!json_is_object(c->frag))
		fail(c, "CTF 2 metadata: a fragment must be a JSON object, not "
		    "%s", kind_name(c->frag));
	const char *type = want_str(c, c->frag, "type", true);
	if (first != !strcmp(type, "preamble"))
		fail(c, first ? "CTF 2 metadata: the first fragment must be the "
		    "preamble, not `%s`" : "CTF 2 metadata: a second %s", type);
	push(c, "%s", type);
	if (!strcmp(type, "preamble"))
		preamble(c, c->frag);
	else if (!strcmp(type, "field-class-alias"))
		field_class_alias(c, c->frag);
	else if (!strcmp(type, "trace-class"))
		trace_class(c, c->frag);
	else if (!strcmp(type, "clock-class"))
		clock_class(c, c->frag);
	else if (!strcmp(type, "data-stream-class"))
		data_stream_class(c, c->frag);
	else if (!strcmp(type, "event-record-class"))
		event_record_class(c, c->frag);
	else
		fail(c, "CTF 2: fragment type `%s` not supported", type);
	pop(c, 0);
	json_decref(c->frag);
	c->frag = NULL;
}

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

int
ctf2_parse(struct ctf_meta *m, const char *text, size_t len, char *err,
    size_t errsize, uint64_t *erroff)
{
	struct c2 *c = xcalloc(1, sizeof *c);
	c->m = m;
	c->err = err;
	c->errsize = errsize;
	c->scope = -1;
	c->clock = -1;
	c->aliases = json_object();
	m->major = 2;
	m->minor = 0;
	m->has_major = m->has_minor = true;
	m->byte_order = CTF_BO_LE;
	if (m->arena_limit == 0)
		ctf_meta_limit(m, len);
	int rc = 0;
	if (setjmp(c->jb) == 0) {
		size_t i = 0, nfrag = 0;
		for (; i < len && text[i] != RS; i++)
			if (!is_space(text[i])) {
				c->off = i;
				fail(c, "CTF 2 metadata: data before the first "
				    "record separator");
			}
		while (i < len) {
			size_t start = ++i;	/* past the separator */
			while (i < len && text[i] != RS)
				i++;
			c->off = start;
			/* RFC 7464: an empty element is skipped */
			size_t k = start;
			while (k < i && is_space(text[k]))
				k++;
			if (k == i)
				continue;
			fragment(c, text + start, i - start, nfrag++ == 0);
		}
		c->off = len;
		if (nfrag == 0)
			fail(c, "CTF 2 metadata without a preamble");
		if (m->nstreams == 0)
			fail(c, "CTF 2 metadata without a data-stream-class "
			    "fragment");
	} else
		rc = -1;
	*erroff = c->off;
	if (c->frag != NULL)
		json_decref(c->frag);
	json_decref(c->aliases);
	hashmap_free(&c->streams);
	free(c);
	return rc;
}
