/*
 * The 2010 CTF RFC layout (ctf_rfc2010.h): its metadata packets, its
 * description language, and its fixed packet and event headers, all
 * turned into the resolved description the CTF decoder reads.
 *
 * The description language is read with the TSDL lexer (it is lexically
 * C too). Its grammar, as the RFC's examples write it and as read here:
 *
 *   trace { major = 1; minor = 1; }
 *   type NAME { parent = ABSTRACT-OR-NAMED-TYPE; ATTR = VALUE; ... }
 *   section { name = NAME; event { header_type = type1 | type2;
 *       context { event_size = true | false; fields = FIELDS; } } }
 *   event { name = NAME; id = N; section = NAME; fields = TYPE; }
 *
 * where FIELDS is `{ { TYPE, name }, ... }`, a TYPE is a type's name or
 * an unnamed `type { ... }`, and `;` and `,` after a closing brace may be
 * left out. The abstract types are integer, gcc_bitfield, enum,
 * floating_point, string, struct, array and sequence; a named type as
 * parent is copied, then changed by the attributes given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_rfc2010.h"
#include "stream/ctf_packets.h"
#include "tsdl/tsdl_lex.h"

static uint32_t
rd32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3] :
	    (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[1] << 8 | p[0];
}

bool
ctf_rfc_probe(const unsigned char *head, size_t len)
{
	return len >= 4 && (rd32(head, false) == RFC_MAGIC ||
	    rd32(head, true) == RFC_MAGIC);
}

uint32_t
ctf_rfc_crc32(const uint8_t *p, size_t n)
{
	/* the reflected polynomial a nibble at a time: RFC traces are not
	 * read for speed */
	static const uint32_t tab[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		c = (c >> 4) ^ tab[c & 15];
		c = (c >> 4) ^ tab[c & 15];
	}
	return ~c;
}

/* --- the parser --- */

enum rv_kind { RV_INT, RV_NAME, RV_STR, RV_TYPE, RV_LIST };

/* A type as the description gives it: a sequence carries its length's
 * integer type beside it (it becomes two fields of the struct using
 * it). */
struct built {
	struct ctf_type *t;
	struct ctf_type *len;
};

struct rpair;

/* Where a value was: its first token's line and column (the token
 * itself would make every value of a long list four times larger). */
struct rpos {
	int line, col;
};

struct rval {
	enum rv_kind kind;
	int64_t i;
	bool neg;
	const char *s;
	struct built type;
	struct rpair *pairs;
	size_t npairs;
	struct rpos tok;
};

struct rpair {
	struct rval a, b;
};

struct rattr {
	const char *name;
	struct rval v;
};

struct named {
	const char *name;
	struct built b;
	bool builtin;
};

struct section {
	const char *name;
	int header_type;	/* 1, 2, or 0: by its event ids */
	bool event_size;
	struct built ctx;	/* context fields: a struct, or NULL */
	struct rpos at;
};

struct pending {
	struct ctf_event_class *e;
	const char *section;
	struct rpos at;
};

struct rparser {
	struct tsdl_lexer lx;
	struct tsdl_token tk[2];
	int ntk;
	struct ctf_meta *m;
	jmp_buf jb;
	char *err;
	size_t errsize;
	int depth;
	VEC(struct named) types;
	VEC(struct section) secs;
	VEC(struct pending) evs;
	/* names -> positions in types and secs */
	struct ctf_names type_names, sec_names;
	/* what is being read, used as stacks: the attributes of the types
	 * being read, and the entries of the lists (each kept in the arena
	 * at its size once read) */
	VEC(struct rattr) attrs;
	VEC(struct rpair) pairs;
	/* the event headers, built once for every section: [type - 1] */
	struct ctf_type *headers[2];
	bool has_trace;
};

static struct rpos
pos_of(const struct tsdl_token *t)
{
	return (struct rpos){ t->line, t->col };
}

/* rerr(p, at, ...) and rwarn(p, at, ...) take anything with a line and
 * a column: a token or an rpos. */
#define rerr(p, at, ...) rerr_at((p), (at)->line, (at)->col, __VA_ARGS__)
#define rwarn(p, at, what, name) \
	rwarn_at((p), (at)->line, (at)->col, (what), (name))

static void rerr_at(struct rparser *p, int line, int col,
    const char *fmt, ...) __attribute__((format(printf, 4, 5), noreturn));

static void
rerr_at(struct rparser *p, int line, int col, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errsize, "line %d, column %d: ", line,
	    col);
	if (n < 0 || (size_t)n >= p->errsize)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(p->jb, 1);
}

static void
rwarn_at(struct rparser *p, int line, int col, const char *what,
    const char *name)
{
	ctf_meta_warn(p->m, "line %d, column %d: %s `%s`", line, col,
	    what, name);
}

static const struct tsdl_token *
peek(struct rparser *p, int k)
{
	while (p->ntk <= k) {
		struct tsdl_token *t = &p->tk[p->ntk];
		tsdl_lex_next(&p->lx, t);
		p->ntk++;
		if (t->kind == TOK_ERROR)
			rerr(p, t, "%s", t->err);
		if (t->warn != NULL)
			ctf_meta_warn(p->m, "line %d, column %d: %s", t->line,
			    t->col, t->warn);
	}
	return &p->tk[k];
}

static struct tsdl_token
next(struct rparser *p)
{
	struct tsdl_token t = *peek(p, 0);
	p->tk[0] = p->tk[1];
	p->ntk--;
	return t;
}

static bool
is_tok(struct rparser *p, enum tsdl_tok k)
{
	return peek(p, 0)->kind == k;
}

static bool
is_word(struct rparser *p, int k, const char *w)
{
	const struct tsdl_token *t = peek(p, k);
	return t->kind == TOK_IDENT && !strcmp(t->sval, w);
}

static bool
accept(struct rparser *p, enum tsdl_tok k)
{
	if (!is_tok(p, k))
		return false;
	next(p);
	return true;
}

static struct tsdl_token
expect(struct rparser *p, enum tsdl_tok k)
{
	const struct tsdl_token *t = peek(p, 0);
	if (t->kind != k) {
		if (t->kind == TOK_IDENT)
			rerr(p, t, "expected %s, found '%s'", tsdl_tok_name(k),
			    t->sval);
		rerr(p, t, "expected %s, found %s", tsdl_tok_name(k),
		    tsdl_tok_name(t->kind));
	}
	return next(p);
}

static const char *
keep(struct rparser *p, const char *s)
{
	return ctf_strdup(p->m, s, strlen(s));
}

static struct named *
find_type(struct rparser *p, const char *name)
{
	int64_t i = ctf_names_get(&p->type_names, name, strlen(name));
	return i >= 0 ? &p->types.items[i] : NULL;
}

static struct built parse_type_body(struct rparser *p,
    const struct tsdl_token *at);

/* A type where one is expected: a name, or `type { ... }`. */
static struct built
parse_typeref(struct rparser *p)
{
	struct tsdl_token t = *peek(p, 0);
	if (t.kind == TOK_IDENT && !strcmp(t.sval, "type") &&
	    peek(p, 1)->kind == TOK_LBRACE) {
		next(p);
		return parse_type_body(p, &t);
	}
	if (t.kind != TOK_IDENT)
		rerr(p, &t, "expected a type, found %s", tsdl_tok_name(t.kind));
	next(p);
	const struct named *n = find_type(p, t.sval);
	if (n == NULL)
		rerr(p, &t, "unknown type `%s`", t.sval);
	return n->b;
}

static void parse_value(struct rparser *p, struct rval *v);

/* `{ { a, b }, ... }`: struct fields or enum mappings. */
static void
parse_pairs(struct rparser *p, struct rval *v)
{
	v->kind = RV_LIST;
	if (++p->depth > 100)
		rerr(p, peek(p, 0), "lists nested too deeply");
	expect(p, TOK_LBRACE);
	/* the entries go on the parser's stack: a list inside one is read
	 * (and moved out) before the entry is pushed, so this list's are
	 * together at the top when it ends */
	size_t base = p->pairs.len;
	while (!accept(p, TOK_RBRACE)) {
		struct tsdl_token open = expect(p, TOK_LBRACE);
		struct rpair pr;
		memset(&pr, 0, sizeof pr);
		parse_value(p, &pr.a);
		expect(p, TOK_COMMA);
		parse_value(p, &pr.b);
		accept(p, TOK_COMMA);
		if (!is_tok(p, TOK_RBRACE))
			rerr(p, peek(p, 0), "expected '}' closing the entry "
			    "opened at line %d, column %d", open.line, open.col);
		next(p);
		VEC_PUSH(&p->pairs, pr);
		accept(p, TOK_COMMA);
	}
	v->npairs = p->pairs.len - base;
	if (v->npairs > 0) {
		v->pairs = ctf_alloc(p->m, v->npairs * sizeof *v->pairs);
		memcpy(v->pairs, p->pairs.items + base,
		    v->npairs * sizeof *v->pairs);
	}
	p->pairs.len = base;
	p->depth--;
}

static void
parse_value(struct rparser *p, struct rval *v)
{
	memset(v, 0, sizeof *v);
	struct tsdl_token tok = *peek(p, 0);
	v->tok = pos_of(&tok);
	switch (tok.kind) {
	case TOK_MINUS:
	case TOK_INT:
	case TOK_CHAR: {
		bool neg = accept(p, TOK_MINUS);
		struct tsdl_token t = next(p);
		if (t.kind != TOK_INT && t.kind != TOK_CHAR)
			rerr(p, &t, "expected an integer, found %s",
			    tsdl_tok_name(t.kind));
		if (neg && t.ival > (uint64_t)INT64_MAX + 1)
			rerr(p, &t, "integer literal out of range");
		v->kind = RV_INT;
		v->neg = neg;
		v->i = neg ? (int64_t)(0 - t.ival) : (int64_t)t.ival;
		break;
	}
	case TOK_STRING:
		v->kind = RV_STR;
		v->s = keep(p, tok.sval);
		next(p);
		break;
	case TOK_IDENT:
		if (!strcmp(tok.sval, "type") &&
		    peek(p, 1)->kind == TOK_LBRACE) {
			v->kind = RV_TYPE;
			v->type = parse_typeref(p);
		} else {
			v->kind = RV_NAME;
			v->s = keep(p, tok.sval);
			next(p);
		}
		break;
	case TOK_LBRACE:
		parse_pairs(p, v);
		break;
	default:
		rerr(p, &v->tok, "unexpected %s in a value",
		    tsdl_tok_name(tok.kind));
	}
}

/* `NAME = VALUE [;]` (a leading '.' as in the RFC's abstract types). */
static void
parse_attr(struct rparser *p, struct rattr *a)
{
	accept(p, TOK_DOT);
	struct tsdl_token n = expect(p, TOK_IDENT);
	a->name = keep(p, n.sval);
	expect(p, TOK_EQUAL);
	parse_value(p, &a->v);
	accept(p, TOK_SEMI);
}

static int64_t
want_int(struct rparser *p, const struct rval *v, const char *what)
{
	if (v->kind != RV_INT)
		rerr(p, &v->tok, "`%s` expects an integer", what);
	return v->i;
}

static uint64_t
want_uint(struct rparser *p, const struct rval *v, const char *what)
{
	int64_t i = want_int(p, v, what);
	if (v->neg)
		rerr(p, &v->tok, "`%s` cannot be negative", what);
	return (uint64_t)i;
}

static const char *
want_name(struct rparser *p, const struct rval *v, const char *what)
{
	if (v->kind != RV_NAME && v->kind != RV_STR)
		rerr(p, &v->tok, "`%s` expects a name", what);
	return v->s;
}

static bool
want_bool(struct rparser *p, const struct rval *v, const char *what)
{
	if (v->kind == RV_INT)
		return v->i != 0;
	if (v->kind == RV_NAME) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE"))
			return true;
		if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE"))
			return false;
	}
	rerr(p, &v->tok, "`%s` expects true or false", what);
}

static uint32_t
want_pow2(struct rparser *p, const struct rval *v, const char *what)
{
	uint64_t a = want_uint(p, v, what);
	if (a == 0 || (a & (a - 1)) != 0 || a > 1024)
		rerr(p, &v->tok, "`%s` must be a power of two", what);
	return (uint32_t)a;
}

/* A struct's fields from `{ { TYPE, name }, ... }`; a sequence becomes
 * its length (NAME_length) and its elements. */
static void
add_field(struct rparser *p, struct ctf_type *st, const char *name,
    struct ctf_type *t, const struct rpos *at)
{
	if (ctf_field_find(st, st->nfields, name, strlen(name)) >= 0)
		rerr(p, at, "duplicate field `%s`", name);
	ctf_field_add(p->m, st, keep(p, name), t);
}

static uint32_t
align_of(const struct ctf_type *t)
{
	return t->unit_size > t->align ? t->unit_size : t->align;
}

static void
fill_struct(struct rparser *p, struct ctf_type *st, const struct rval *v)
{
	if (v->kind != RV_LIST)
		rerr(p, &v->tok, "`fields` expects `{ { type, name }, ... }`");
	/* a copy of its parent's type shares the parent's fields: its own
	 * replace them */
	st->fields = NULL;
	st->nfields = 0;
	st->names = NULL;
	for (size_t i = 0; i < v->npairs; i++) {
		const struct rpair *pr = &v->pairs[i];
		struct built b;
		if (pr->a.kind == RV_TYPE)
			b = pr->a.type;
		else if (pr->a.kind == RV_NAME) {
			const struct named *n = find_type(p, pr->a.s);
			if (n == NULL)
				rerr(p, &pr->a.tok, "unknown type `%s`", pr->a.s);
			b = n->b;
		} else
			rerr(p, &pr->a.tok, "expected a type");
		if (pr->b.kind != RV_NAME)
			rerr(p, &pr->b.tok, "expected a field name");
		const char *name = pr->b.s;
		if (b.len != NULL) {
			char lname[300];
			snprintf(lname, sizeof lname, "%s_length", name);
			add_field(p, st, lname, b.len, &pr->b.tok);
			struct ctf_type *sq = ctf_type_copy(p->m, b.t);
			sq->length_path = keep(p, lname);
			add_field(p, st, name, sq, &pr->b.tok);
		} else
			add_field(p, st, name, b.t, &pr->b.tok);
	}
	for (size_t i = 0; i < st->nfields; i++)
		if (align_of(st->fields[i].type) > st->align)
			st->align = align_of(st->fields[i].type);
}

static struct built
parse_type_body(struct rparser *p, const struct tsdl_token *at)
{
	if (++p->depth > 100)
		rerr(p, at, "types nested too deeply");
	expect(p, TOK_LBRACE);
	/* on the parser's stack (a type inside is read before its
	 * attribute is pushed, and pops its own): this type's are
	 * items[base..] until it is built */
	size_t base = p->attrs.len;
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			rerr(p, peek(p, 0), "unterminated type");
		struct rattr ra;
		parse_attr(p, &ra);
		VEC_PUSH(&p->attrs, ra);
	}
	accept(p, TOK_SEMI);
	struct { struct rattr *items; size_t len; } attrs = {
	    p->attrs.items + base, p->attrs.len - base };
	/* the parent first, whatever its place */
	const struct rattr *par = NULL;
	for (size_t i = 0; i < attrs.len; i++)
		if (!strcmp(attrs.items[i].name, "parent"))
			par = &attrs.items[i];
	if (par == NULL)
		rerr(p, at, "type without a parent");
	const char *pn = want_name(p, &par->v, "parent");
	struct built b = { NULL, NULL };
	bool bitfield = false, has_size = false;
	enum ctf_kind kind;
	if (!strcmp(pn, "integer") || !strcmp(pn, "gcc_bitfield"))
		kind = CTF_INT, bitfield = pn[0] == 'g';
	else if (!strcmp(pn, "enum"))
		kind = CTF_ENUM;
	else if (!strcmp(pn, "floating_point"))
		kind = CTF_FLOAT;
	else if (!strcmp(pn, "string"))
		kind = CTF_STRING;
	else if (!strcmp(pn, "struct"))
		kind = CTF_STRUCT;
	else if (!strcmp(pn, "array"))
		kind = CTF_ARRAY;
	else if (!strcmp(pn, "sequence"))
		kind = CTF_SEQUENCE;
	else {
		const struct named *n = find_type(p, pn);
		if (n == NULL)
			rerr(p, &par->v.tok, "unknown parent type `%s`", pn);
		b.t = ctf_type_copy(p->m, n->b.t);
		b.len = n->b.len;
		kind = b.t->kind;
		has_size = true;
	}
	struct ctf_type *t = b.t;
	if (t == NULL) {
		t = b.t = ctf_type_new(p->m, kind);
		t->byte_order = CTF_BO_NATIVE;
		t->align = 0;	/* the default, below */
	}
	t->line = at->line;
	t->col = at->col;
	bool int_like = kind == CTF_INT || kind == CTF_ENUM;
	const struct rval *map = NULL;
	for (size_t i = 0; i < attrs.len; i++) {
		const char *a = attrs.items[i].name;
		const struct rval *v = &attrs.items[i].v;
		if (!strcmp(a, "parent"))
			continue;
		if ((int_like || kind == CTF_FLOAT) && !strcmp(a, "size")) {
			uint64_t s = want_uint(p, v, a);
			if (s < 1 || s > 64)
				rerr(p, &v->tok, "size %llu not in 1..64",
				    (unsigned long long)s);
			t->size = (uint32_t)s;
			has_size = true;
		} else if (int_like && !strcmp(a, "signed")) {
			t->is_signed = want_bool(p, v, a);
		} else if ((int_like || kind == CTF_FLOAT) &&
		    !strcmp(a, "byte_order")) {
			const char *s = want_name(p, v, a);
			if (!strcmp(s, "native"))
				t->byte_order = CTF_BO_NATIVE;
			else if (!strcmp(s, "network") || !strcmp(s, "be"))
				t->byte_order = CTF_BO_BE;
			else if (!strcmp(s, "le"))
				t->byte_order = CTF_BO_LE;
			else
				rerr(p, &v->tok, "invalid byte order `%s`", s);
		} else if (!strcmp(a, "align")) {
			t->align = want_pow2(p, v, a);
		} else if (int_like && !strcmp(a, "base")) {
			uint64_t x = want_uint(p, v, a);
			if (x != 2 && x != 8 && x != 10 && x != 16)
				rerr(p, &v->tok, "invalid integer base");
			t->base = (uint8_t)x;
		} else if (kind == CTF_INT && (bitfield || t->unit_size) &&
		    !strcmp(a, "unit_size")) {
			uint32_t u = want_pow2(p, v, a);
			if (u < 8 || u > 64)
				rerr(p, &v->tok, "unit_size must be 8, 16, 32 "
				    "or 64");
			t->unit_size = u;
		} else if (int_like && !strcmp(a, "map")) {
			map = v;
		} else if (kind == CTF_FLOAT && (!strcmp(a, "exp_dig") ||
		    !strcmp(a, "mant_dig"))) {
			uint64_t x = want_uint(p, v, a);
			if (x > 64)
				rerr(p, &v->tok, "`%s` too large", a);
			if (a[0] == 'e')
				t->exp_dig = (uint32_t)x;
			else
				t->mant_dig = (uint32_t)x;
			t->size = t->exp_dig + t->mant_dig;
			has_size = true;
		} else if (kind == CTF_STRING && !strcmp(a, "encoding")) {
			const char *s = want_name(p, v, a);
			if (strcmp(s, "UTF8") && strcmp(s, "ASCII") &&
			    strcmp(s, "utf8") && strcmp(s, "ascii"))
				rerr(p, &v->tok, "invalid encoding `%s`", s);
		} else if (kind == CTF_STRUCT && !strcmp(a, "fields")) {
			fill_struct(p, t, v);
		} else if (kind == CTF_ARRAY && !strcmp(a, "length")) {
			uint64_t n = want_uint(p, v, a);
			if (n > ((uint64_t)1 << 32))
				rerr(p, &v->tok, "array too long");
			t->length = n;
		} else if ((kind == CTF_ARRAY || kind == CTF_SEQUENCE) &&
		    !strcmp(a, "elem_type")) {
			if (v->kind != RV_NAME && v->kind != RV_TYPE)
				rerr(p, &v->tok, "`elem_type` expects a type");
			struct built e = v->type;
			if (v->kind == RV_NAME) {
				const struct named *n = find_type(p, v->s);
				if (n == NULL)
					rerr(p, &v->tok, "unknown type `%s`",
					    v->s);
				e = n->b;
			}
			if (e.len != NULL)
				rerr(p, &v->tok, "a sequence is only a field of "
				    "a struct");
			t->elem = e.t;
		} else if (kind == CTF_SEQUENCE && !strcmp(a, "length_type")) {
			const struct ctf_type *lt = NULL;
			if (v->kind == RV_TYPE)
				lt = v->type.t;
			else if (v->kind == RV_NAME) {
				const struct named *n = find_type(p, v->s);
				if (n == NULL)
					rerr(p, &v->tok, "unknown type `%s`",
					    v->s);
				lt = n->b.t;
			}
			if (lt == NULL || lt->kind != CTF_INT || lt->is_signed)
				rerr(p, &v->tok, "`length_type` must be an "
				    "unsigned integer type");
			b.len = (struct ctf_type *)lt;
		} else
			rwarn(p, &v->tok, "unknown type attribute", a);
	}
	if (map != NULL) {
		if (map->kind != RV_LIST || map->npairs == 0)
			rerr(p, &map->tok, "`map` expects `{ { value, label }, "
			    "... }`, not empty");
		t->kind = kind = CTF_ENUM;
		t->maps = ctf_alloc(p->m, map->npairs * sizeof *t->maps);
		t->nmaps = map->npairs;
		for (size_t i = 0; i < map->npairs; i++) {
			const struct rpair *pr = &map->pairs[i];
			int64_t v = want_int(p, &pr->a, "map");
			if (pr->b.kind != RV_NAME && pr->b.kind != RV_STR)
				rerr(p, &pr->b.tok, "expected a label");
			t->maps[i].label = pr->b.s;
			t->maps[i].lo = t->maps[i].hi = v;
			if (has_size && t->size < 64) {
				bool fits = t->is_signed ?
				    v >= -((int64_t)1 << (t->size - 1)) &&
				    v < ((int64_t)1 << (t->size - 1)) :
				    !pr->a.neg && (uint64_t)v < ((uint64_t)1 << t->size);
				if (!fits)
					rerr(p, &pr->a.tok, "value %lld of label "
					    "`%s` does not fit in %u bits",
					    (long long)v, pr->b.s, t->size);
			}
		}
	}
	switch (kind) {
	case CTF_INT:
	case CTF_ENUM:
		if (!has_size)
			rerr(p, at, "integer type without a size");
		if (kind == CTF_ENUM && t->nmaps == 0)
			rerr(p, at, "enum type without a map");
		if (t->unit_size != 0 && t->size > t->unit_size)
			rerr(p, at, "bitfield of %u bits in a unit of %u",
			    t->size, t->unit_size);
		if (t->align == 0)
			t->align = bitfield || t->size % 8 ? 1 : 8;
		break;
	case CTF_FLOAT:
		if (t->size != 32 && t->size != 64)
			rerr(p, at, "floating point size %u (32 or 64)",
			    t->size);
		if (t->mant_dig == 0)
			t->mant_dig = t->size == 32 ? 24 : 53;
		t->exp_dig = t->size - t->mant_dig;
		if (t->align == 0)
			t->align = 8;
		break;
	case CTF_STRING:
		t->align = 8;
		break;
	case CTF_STRUCT:
		if (t->align == 0)
			t->align = 1;
		for (size_t i = 0; i < t->nfields; i++)
			if (align_of(t->fields[i].type) > t->align)
				t->align = align_of(t->fields[i].type);
		break;
	case CTF_ARRAY:
	case CTF_SEQUENCE:
		if (t->elem == NULL)
			rerr(p, at, "%s type without `elem_type`",
			    kind == CTF_ARRAY ? "array" : "sequence");
		if (kind == CTF_SEQUENCE && b.len == NULL)
			rerr(p, at, "sequence type without `length_type`");
		t->align = align_of(t->elem);
		break;
	default:
		break;
	}
	p->attrs.len = base;
	p->depth--;
	return b;
}

static void
add_named(struct rparser *p, const char *name, struct built b, bool builtin,
    const struct tsdl_token *at)
{
	struct named *n = find_type(p, name);
	if (n != NULL && !n->builtin)
		rerr(p, at, "type `%s` is already defined", name);
	if (n != NULL) {
		n->b = b;
		n->builtin = false;
		return;
	}
	const char *k = keep(p, name);
	ctf_names_put(p->m, &p->type_names, k, (uint32_t)p->types.len, false);
	VEC_PUSH(&p->types, ((struct named){ k, b, builtin }));
}

static void
parse_type_decl(struct rparser *p)
{
	struct tsdl_token at = next(p);
	struct tsdl_token n = expect(p, TOK_IDENT);
	struct built b = parse_type_body(p, &at);
	add_named(p, n.sval, b, false, &n);
}

/* Skips a `{ ... }` block (what is not read: abstract type
 * definitions). */
static void
skip_block(struct rparser *p)
{
	int level = 0;
	do {
		struct tsdl_token t = next(p);
		if (t.kind == TOK_EOF)
			rerr(p, &t, "unterminated block");
		if (t.kind == TOK_LBRACE)
			level++;
		else if (t.kind == TOK_RBRACE)
			level--;
	} while (level > 0);
	accept(p, TOK_SEMI);
}

static void
parse_trace(struct rparser *p)
{
	struct tsdl_token at = next(p);
	struct ctf_meta *m = p->m;
	bool has_major = false, has_minor = false;
	expect(p, TOK_LBRACE);
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			rerr(p, peek(p, 0), "unterminated trace block");
		struct rattr a;
		parse_attr(p, &a);
		if (!strcmp(a.name, "major")) {
			m->major = (int)want_int(p, &a.v, a.name);
			has_major = true;
		} else if (!strcmp(a.name, "minor")) {
			m->minor = (int)want_int(p, &a.v, a.name);
			has_minor = true;
		} else
			rwarn(p, &a.v.tok, "unknown trace attribute", a.name);
	}
	accept(p, TOK_SEMI);
	if (!has_major || !has_minor)
		rerr(p, &at, "trace block without `major` and `minor`");
	if (m->major != 1 || m->minor != 1)
		rerr(p, &at, "unsupported RFC trace version %d.%d (expecting "
		    "1.1)", m->major, m->minor);
	if (p->has_trace)
		rerr(p, &at, "a second trace block");
	p->has_trace = true;
	m->has_major = m->has_minor = true;
}

static void
parse_context(struct rparser *p, struct section *s)
{
	next(p);
	expect(p, TOK_LBRACE);
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			rerr(p, peek(p, 0), "unterminated context block");
		struct rattr a;
		parse_attr(p, &a);
		if (!strcmp(a.name, "event_size"))
			s->event_size = want_bool(p, &a.v, a.name);
		else if (!strcmp(a.name, "fields")) {
			struct ctf_type *st = ctf_type_new(p->m, CTF_STRUCT);
			st->line = a.v.tok.line;
			st->col = a.v.tok.col;
			fill_struct(p, st, &a.v);
			s->ctx.t = st;
		} else
			rwarn(p, &a.v.tok, "unknown context attribute", a.name);
	}
	accept(p, TOK_SEMI);
}

static void
parse_section(struct rparser *p)
{
	struct section s;
	memset(&s, 0, sizeof s);
	struct tsdl_token kw = next(p);
	s.at = pos_of(&kw);
	expect(p, TOK_LBRACE);
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			rerr(p, peek(p, 0), "unterminated section block");
		if (is_word(p, 0, "event") && peek(p, 1)->kind == TOK_LBRACE) {
			next(p);
			next(p);
			while (!accept(p, TOK_RBRACE)) {
				if (is_tok(p, TOK_EOF))
					rerr(p, peek(p, 0), "unterminated event "
					    "block");
				if (is_word(p, 0, "context") &&
				    peek(p, 1)->kind == TOK_LBRACE) {
					parse_context(p, &s);
					continue;
				}
				struct rattr a;
				parse_attr(p, &a);
				if (!strcmp(a.name, "header_type")) {
					const char *h = want_name(p, &a.v, a.name);
					if (!strcmp(h, "type1"))
						s.header_type = 1;
					else if (!strcmp(h, "type2"))
						s.header_type = 2;
					else
						rerr(p, &a.v.tok, "invalid header "
						    "type `%s` (type1 or type2)", h);
				} else
					rwarn(p, &a.v.tok, "unknown section event "
					    "attribute", a.name);
			}
			accept(p, TOK_SEMI);
			continue;
		}
		struct rattr a;
		parse_attr(p, &a);
		if (!strcmp(a.name, "name"))
			s.name = want_name(p, &a.v, a.name);
		else
			rwarn(p, &a.v.tok, "unknown section attribute", a.name);
	}
	accept(p, TOK_SEMI);
	if (s.name == NULL)
		rerr(p, &s.at, "section without a name");
	if (ctf_names_put(p->m, &p->sec_names, s.name, (uint32_t)p->secs.len,
	    false) >= 0)
		rerr(p, &s.at, "a second section `%s`", s.name);
	VEC_PUSH(&p->secs, s);
}

static void
parse_event(struct rparser *p)
{
	struct pending pe;
	memset(&pe, 0, sizeof pe);
	struct tsdl_token kw = next(p);
	pe.at = pos_of(&kw);
	struct ctf_event_class *e = ctf_alloc(p->m, sizeof *e);
	e->line = pe.at.line;
	e->col = pe.at.col;
	e->loglevel = -1;
	pe.e = e;
	expect(p, TOK_LBRACE);
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			rerr(p, peek(p, 0), "unterminated event block");
		struct rattr a;
		parse_attr(p, &a);
		if (!strcmp(a.name, "name"))
			e->name = want_name(p, &a.v, a.name);
		else if (!strcmp(a.name, "id")) {
			e->id = want_uint(p, &a.v, a.name);
			e->has_id = true;
		} else if (!strcmp(a.name, "section"))
			pe.section = want_name(p, &a.v, a.name);
		else if (!strcmp(a.name, "fields")) {
			struct ctf_type *st;
			if (a.v.kind == RV_LIST) {
				st = ctf_type_new(p->m, CTF_STRUCT);
				st->line = a.v.tok.line;
				st->col = a.v.tok.col;
				fill_struct(p, st, &a.v);
			} else {
				struct built b = a.v.type;
				if (a.v.kind == RV_NAME) {
					const struct named *n = find_type(p, a.v.s);
					if (n == NULL)
						rerr(p, &a.v.tok, "unknown type "
						    "`%s`", a.v.s);
					b = n->b;
				} else if (a.v.kind != RV_TYPE)
					rerr(p, &a.v.tok, "`fields` expects a "
					    "struct type");
				st = b.t;
				if (st->kind != CTF_STRUCT)
					rerr(p, &a.v.tok, "`fields` must be a "
					    "struct type");
			}
			e->fields = st;
		} else
			rwarn(p, &a.v.tok, "unknown event attribute", a.name);
	}
	accept(p, TOK_SEMI);
	if (e->name == NULL)
		rerr(p, &pe.at, "event without a name");
	if (!e->has_id)
		rerr(p, &pe.at, "event `%s` without an id", e->name);
	if (pe.section == NULL)
		rerr(p, &pe.at, "event `%s` without a section", e->name);
	VEC_PUSH(&p->evs, pe);
}

/* --- the fixed layouts --- */

static struct ctf_type *
mk_int(struct ctf_meta *m, uint32_t size, uint32_t align)
{
	struct ctf_type *t = ctf_type_new(m, CTF_INT);
	t->size = size;
	t->align = align;
	t->byte_order = CTF_BO_NATIVE;
	return t;
}

static void
mk_field(struct ctf_meta *m, struct ctf_type *st, const char *name,
    struct ctf_type *t)
{
	ctf_field_add(m, st, name, t);
	if (align_of(t) > st->align)
		st->align = align_of(t);
}

static struct ctf_type *
mk_struct(struct ctf_meta *m, uint32_t align)
{
	struct ctf_type *t = ctf_type_new(m, CTF_STRUCT);
	t->align = align;
	return t;
}

/* The id enum of an event header: 0 .. esc - 1 compact, esc extended. */
static struct ctf_type *
mk_id_enum(struct ctf_meta *m, uint32_t size, uint32_t align, uint64_t esc)
{
	struct ctf_type *t = mk_int(m, size, align);
	t->kind = CTF_ENUM;
	t->maps = ctf_alloc(m, 2 * sizeof *t->maps);
	t->maps[0] = (struct ctf_enum_map){ "compact", 0, (int64_t)esc - 1 };
	t->maps[1] = (struct ctf_enum_map){ "extended", (int64_t)esc,
	    (int64_t)esc };
	t->nmaps = 2;
	return t;
}

/* Type 1: a 5-bit id and a 27-bit timestamp in 32 bits, id 31 followed
 * by a 32-bit id and a 64-bit timestamp. Type 2: a 32-bit timestamp and
 * a 16-bit id, id 65535 followed by a 64-bit timestamp and a 32-bit id.
 * Byte-packed (doc/ctf-rfc-2010.md): each starts on a byte, and the
 * extended part follows the whole header at once. (LTTng's compact
 * header, type 1's heir, drops the 27 bits when extended: not so here.) */
static struct ctf_type *
mk_event_header(struct ctf_meta *m, int type)
{
	struct ctf_type *h = mk_struct(m, 8);
	struct ctf_type *v = ctf_type_new(m, CTF_VARIANT);
	v->tag = "id";
	struct ctf_type *c = mk_struct(m, 1), *x = mk_struct(m, 8);
	if (type == 1) {
		mk_field(m, h, "id", mk_id_enum(m, 5, 1, 31));
		mk_field(m, h, "timestamp", mk_int(m, 27, 1));
		mk_field(m, x, "id", mk_int(m, 32, 8));
		mk_field(m, x, "timestamp", mk_int(m, 64, 8));
	} else {
		mk_field(m, h, "timestamp", mk_int(m, 32, 8));
		mk_field(m, h, "id", mk_id_enum(m, 16, 8, 65535));
		mk_field(m, x, "timestamp", mk_int(m, 64, 8));
		mk_field(m, x, "id", mk_int(m, 32, 8));
	}
	mk_field(m, v, "compact", c);
	mk_field(m, v, "extended", x);
	v->align = 1;
	mk_field(m, h, "v", v);
	return h;
}

/* Section 5's packet header, 48 bytes either way (every field is at a
 * multiple of its size): the magic as the CTF packet header, the rest
 * as the packet context, with the names CTF gives their roles (the
 * section packet count is the packet sequence number). */
static struct ctf_type *
mk_packet_context(struct ctf_meta *m)
{
	static const struct { const char *name; uint32_t size; } f[] = {
		{ "session_id", 32 }, { "content_size", 32 },
		{ "packet_size", 32 }, { "checksum", 32 },
		{ "packet_seq_num", 32 }, { "timestamp_begin", 64 },
		{ "timestamp_end", 64 }, { "events_discarded", 32 },
		{ "packet_seq_num_bits", 8 }, { "compression_scheme", 8 },
		{ "encryption_scheme", 8 }, { "checksum_scheme", 8 },
	};
	struct ctf_type *t = mk_struct(m, 8);
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		mk_field(m, t, f[i].name, mk_int(m, f[i].size, 8));
	return t;
}

enum { PC_SESSION, PC_CONTENT, PC_SIZE, PC_CHECKSUM, PC_SEQ, PC_TSB, PC_TSE,
    PC_DISC, PC_SEQ_BITS, PC_COMPRESSION, PC_ENCRYPTION, PC_CHECKSUM_SCHEME,
    PC_COUNT };

/* What a packet header says beyond its sizes: the session of the
 * metadata, no compression or encryption (refused: the content cannot be
 * read), and a CRC-32 that matches when it says it has one. */
static int
packet_check(const struct ctf_stream *s, char *err, size_t errsize)
{
	const struct ctf_rfc *rfc = s->trace->m->rfc;
	if (s->pctx_root < 0 ||
	    s->pvals.items[s->pctx_root].end < (uint32_t)s->pctx_root + 1 +
	    PC_COUNT) {
		snprintf(err, errsize, "packet header not read");
		return -1;
	}
	const struct ctf_val *v = &s->pvals.items[s->pctx_root + 1];
	static const char *const comp[] = { "none", "bzip2", "gzip" };
	uint64_t c = v[PC_COMPRESSION].v.u, e = v[PC_ENCRYPTION].v.u;
	uint64_t k = v[PC_CHECKSUM_SCHEME].v.u;
	if (v[PC_SESSION].v.u != rfc->session_id) {
		snprintf(err, errsize, "packet of session 0x%08llx, the "
		    "metadata's is 0x%08x", (unsigned long long)v[PC_SESSION].v.u,
		    rfc->session_id);
		return -1;
	}
	if (c != 0) {
		if (c < 3)
			snprintf(err, errsize, "packet compressed with %s: "
			    "compressed packets are not supported", comp[c]);
		else
			snprintf(err, errsize, "packet compressed with unknown "
			    "scheme %llu", (unsigned long long)c);
		return -1;
	}
	if (e != 0) {
		if (e == 1)
			snprintf(err, errsize, "packet encrypted with AES: "
			    "encrypted packets are not supported");
		else
			snprintf(err, errsize, "packet encrypted with unknown "
			    "scheme %llu", (unsigned long long)e);
		return -1;
	}
	if (k > 3) {
		snprintf(err, errsize, "unknown checksum scheme %llu",
		    (unsigned long long)k);
		return -1;
	}
	/* md5 and sha1 do not fit the 32-bit field: not checked */
	if (k == 3) {
		uint64_t end = s->content_end / 8;
		uint32_t crc = ctf_rfc_crc32(s->data + s->pkt_off + RFC_HEADER,
		    (size_t)(end - RFC_HEADER));
		if (crc != (uint32_t)v[PC_CHECKSUM].v.u) {
			snprintf(err, errsize, "packet content checksum 0x%08x, "
			    "its header says 0x%08llx", crc,
			    (unsigned long long)v[PC_CHECKSUM].v.u);
			return -1;
		}
	}
	return 0;
}

/* The description parsed: one stream class per section, its events. */
static void
build(struct rparser *p)
{
	struct ctf_meta *m = p->m;
	if (!p->has_trace)
		rerr(p, peek(p, 0), "metadata without a trace block");
	struct ctf_rfc *rfc = ctf_alloc(m, sizeof *rfc);
	rfc->nsections = p->secs.len;
	rfc->sections = ctf_alloc(m, (p->secs.len + 1) * sizeof *rfc->sections);
	rfc->by_name = p->sec_names;
	m->rfc = rfc;
	m->sizes_in_bytes = true;
	m->packet_check = packet_check;
	m->class_of_file = ctf_rfc_section_of;
	m->packet_header = mk_struct(m, 8);
	mk_field(m, m->packet_header, "magic", mk_int(m, 32, 8));
	m->streams = ctf_alloc(m, (p->secs.len + 1) * sizeof *m->streams);
	struct ctf_type *pc = mk_packet_context(m);
	for (size_t i = 0; i < p->secs.len; i++) {
		const struct section *sec = &p->secs.items[i];
		struct ctf_stream_class *sc = ctf_alloc(m, sizeof *sc);
		sc->id = i;
		sc->has_id = true;
		sc->clock = -1;
		sc->line = sec->at.line;
		sc->packet_context = pc;
		rfc->sections[i] = sec->name;
		m->streams[m->nstreams++] = sc;
	}
	for (size_t i = 0; i < p->evs.len; i++) {
		const struct pending *pe = &p->evs.items[i];
		int64_t si = ctf_names_get(&p->sec_names, pe->section,
		    strlen(pe->section));
		if (si < 0)
			rerr(p, &pe->at, "event `%s` of section `%s`, which is "
			    "not declared", pe->e->name, pe->section);
		struct ctf_stream_class *sc = m->streams[si];
		sc->events = ctf_grow(m, sc->events, sc->nevents,
		    &sc->events_cap, sizeof *sc->events);
		sc->events[sc->nevents++] = pe->e;
		pe->e->stream_id = (uint64_t)si;
		pe->e->has_stream_id = true;
	}
	for (size_t i = 0; i < p->secs.len; i++) {
		const struct section *sec = &p->secs.items[i];
		struct ctf_stream_class *sc = m->streams[i];
		/* no header type said: as the RFC chooses, type 1 for
		 * fewer than 31 event ids */
		int ht = sec->header_type;
		if (ht == 0) {
			ht = 1;
			for (size_t e = 0; e < sc->nevents; e++)
				if (sc->events[e]->id >= 31)
					ht = 2;
		}
		/* one of each type for all sections: resolved once too */
		if (p->headers[ht - 1] == NULL)
			p->headers[ht - 1] = mk_event_header(m, ht);
		sc->event_header = p->headers[ht - 1];
		struct ctf_type *ctx = NULL;
		if (sec->event_size || sec->ctx.t != NULL) {
			ctx = mk_struct(m, 1);
			if (sec->event_size) {
				mk_field(m, ctx, "payload_size", mk_int(m, 16, 8));
				sc->payload_size = true;
			}
			for (size_t f = 0; sec->ctx.t != NULL &&
			    f < sec->ctx.t->nfields; f++) {
				const char *fn = sec->ctx.t->fields[f].name;
				/* the context's own are distinct already */
				if (ctf_field_find(ctx, ctx->nfields, fn,
				    strlen(fn)) >= 0)
					rerr(p, &sec->at, "duplicate context "
					    "field `%s`", fn);
				mk_field(m, ctx, fn, sec->ctx.t->fields[f].type);
			}
		}
		sc->event_context = ctx;
	}
}

static void
builtins(struct rparser *p)
{
	/* C99's names, byte-packed in the writer's order: the RFC's
	 * examples use them as declared types; a description may declare
	 * its own instead */
	static const char *const names[] = {
		"uint8_t", "uint16_t", "uint32_t", "uint64_t",
		"int8_t", "int16_t", "int32_t", "int64_t",
	};
	for (int i = 0; i < 8; i++) {
		struct ctf_type *t = mk_int(p->m, 8u << (i % 4), 8);
		t->is_signed = i >= 4;
		add_named(p, names[i], (struct built){ t, NULL }, true, NULL);
	}
	struct ctf_type *s = ctf_type_new(p->m, CTF_STRING);
	s->align = 8;
	add_named(p, "string", (struct built){ s, NULL }, true, NULL);
}

int
ctf_rfc_parse(struct ctf_meta *m, const char *text, size_t len, char *err,
    size_t errsize)
{
	struct rparser *p = xcalloc(1, sizeof *p);
	int rc = 0;
	p->m = m;
	p->err = err;
	p->errsize = errsize;
	if (m->arena_limit == 0)
		ctf_meta_limit(m, len);
	tsdl_lex_init(&p->lx, text, len);
	if (setjmp(p->jb) == 0) {
		builtins(p);
		for (;;) {
			const struct tsdl_token *t = peek(p, 0);
			if (t->kind == TOK_EOF)
				break;
			if (ctf_meta_over(m)) {
				char msg[200];
				rerr(p, t, "%s", ctf_meta_over_msg(m, msg,
				    sizeof msg));
			}
			if (t->kind == TOK_SEMI) {
				next(p);
				continue;
			}
			if (t->kind != TOK_IDENT)
				rerr(p, t, "unexpected %s at top level",
				    tsdl_tok_name(t->kind));
			if (!strcmp(t->sval, "trace"))
				parse_trace(p);
			else if (!strcmp(t->sval, "section"))
				parse_section(p);
			else if (!strcmp(t->sval, "event"))
				parse_event(p);
			else if (!strcmp(t->sval, "type") &&
			    peek(p, 1)->kind == TOK_IDENT)
				parse_type_decl(p);
			else if (!strcmp(t->sval, "abstract_type")) {
				/* the RFC's own definitions of its abstract
				 * types: built in here */
				struct tsdl_token at = next(p);
				if (is_tok(p, TOK_IDENT))
					next(p);
				rwarn(p, &at, "abstract type definitions are "
				    "built in; ignored", "abstract_type");
				skip_block(p);
			} else
				rerr(p, t, "unexpected `%s` at top level",
				    t->sval);
		}
		build(p);
		if (ctf_meta_over(m)) {
			char msg[200];
			rerr(p, peek(p, 0), "%s", ctf_meta_over_msg(m, msg,
			    sizeof msg));
		}
	} else
		rc = -1;
	tsdl_lex_free(&p->lx);
	VEC_FREE(&p->attrs);
	VEC_FREE(&p->pairs);
	VEC_FREE(&p->types);
	VEC_FREE(&p->secs);
	VEC_FREE(&p->evs);
	free(p);
	return rc;
}

/* --- the metadata file --- */

struct ctf_meta *
ctf_rfc_metadata(const unsigned char *data, size_t size, char *err,
    size_t errsize, int64_t *erroff)
{
	*erroff = 0;
	if (!ctf_rfc_probe(data, size)) {
		snprintf(err, errsize, "not an RFC metadata file");
		return NULL;
	}
	bool be = rd32(data, true) == RFC_MAGIC;
	char *text = xmalloc(size + 1);
	size_t n = 0;
	uint32_t session = 0;
	for (uint64_t off = 0; off < size;) {
		const unsigned char *p = data + off;
		*erroff = (int64_t)off;
		if (size - off < RFC_HEADER) {
			snprintf(err, errsize, "truncated metadata packet header "
			    "(%llu bytes)", (unsigned long long)(size - off));
			goto bad;
		}
		if (rd32(p, be) != RFC_MAGIC) {
			snprintf(err, errsize, "invalid metadata packet magic "
			    "0x%08x", rd32(p, be));
			goto bad;
		}
		uint32_t sid = rd32(p + 4, be), content = rd32(p + 8, be),
		    psize = rd32(p + 12, be), sum = rd32(p + 16, be);
		if (off == 0)
			session = sid;
		else if (sid != session) {
			snprintf(err, errsize, "metadata packet of session 0x%08x, "
			    "the first's is 0x%08x", sid, session);
			goto bad;
		}
		if (content < RFC_HEADER || content > psize ||
		    psize > size - off) {
			snprintf(err, errsize, "invalid metadata packet sizes "
			    "(content %u bytes, packet %u bytes, %llu left)",
			    content, psize, (unsigned long long)(size - off));
			goto bad;
		}
		if (p[45] != 0 || p[46] != 0) {
			snprintf(err, errsize, "metadata packet %s (scheme %u): "
			    "not supported", p[45] ? "compressed" : "encrypted",
			    p[45] ? p[45] : p[46]);
			goto bad;
		}
		if (p[47] > 3) {
			snprintf(err, errsize, "unknown checksum scheme %u",
			    p[47]);
			goto bad;
		}
		if (p[47] == 3 && ctf_rfc_crc32(p + RFC_HEADER,
		    content - RFC_HEADER) != sum) {
			snprintf(err, errsize, "metadata packet content checksum "
			    "0x%08x, its header says 0x%08x",
			    ctf_rfc_crc32(p + RFC_HEADER, content - RFC_HEADER),
			    sum);
			goto bad;
		}
		/* the description strings, their NULs as line ends */
		for (uint32_t i = RFC_HEADER; i < content; i++)
			text[n++] = p[i] ? (char)p[i] : '\n';
		off += psize;
	}
	text[n] = '\0';
	struct ctf_meta *m = ctf_meta_new();
	m->byte_order = be ? CTF_BO_BE : CTF_BO_LE;
	*erroff = -1;
	if (ctf_rfc_parse(m, text, n, err, errsize) < 0 ||
	    ctf_meta_resolve(m, err, errsize) < 0) {
		ctf_meta_free(m);
		free(text);
		return NULL;
	}
	free(text);
	((struct ctf_rfc *)m->rfc)->session_id = session;
	return m;
bad:
	free(text);
	return NULL;
}

struct ctf_stream_class *
ctf_rfc_section_of(const struct ctf_meta *m, const char *file)
{
	const struct ctf_rfc *rfc = m->rfc;
	if (rfc == NULL)
		return NULL;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* the name whole, or before its last `_` when digits follow: of
	 * the two sections that may be, the first declared */
	size_t len = strlen(base);
	int64_t i = ctf_names_get(&rfc->by_name, base, len);
	const char *us = strrchr(base, '_');
	if (us != NULL && us[1] != '\0' &&
	    strspn(us + 1, "0123456789") == strlen(us + 1)) {
		int64_t k = ctf_names_get(&rfc->by_name, base,
		    (size_t)(us - base));
		if (k >= 0 && (i < 0 || k < i))
			i = k;
	}
	if (i >= 0)
		return m->streams[i];
	return rfc->nsections == 1 ? m->streams[0] : NULL;
}
