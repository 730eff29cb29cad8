/*
 * The TSDL parser: recursive descent over tsdl_lex tokens, building the
 * resolved description of ctf_meta.h (types, clocks, streams, events).
 *
 * Type names live in lexical scopes (a typealias inside a struct is seen
 * only there); "struct X", "variant X" and "enum X" are kept in the same
 * tables under their prefixed names. Multi-word alias names ("unsigned
 * long", "void *") are matched greedily against the names in scope.
 *
 * Errors unwind with longjmp to tsdl_parse(), which returns them as
 * "line L, column C: what"; everything allocated is in the meta's arena or
 * the lexer, so nothing leaks on the way out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "types/ctf_meta.h"
#include "tsdl_lex.h"
#include "tsdl_parse.h"

struct alias {
	const char *name;
	struct ctf_type *type;
};

/* A scope's names, and two hash indexes over them (open addressing, slot
 * = index + 1): by whole name, and by every leading run of words of a
 * many-word name ("unsigned" and "unsigned long" for "unsigned long
 * int"). Metadata may declare tens of thousands of aliases: each look-up
 * must not walk them all. */
struct scope {
	struct scope *up;
	struct alias *items;
	size_t n, cap;
	uint32_t *by_name, *by_prefix;
	size_t nslots, nprefix, prefix_slots;
	const char **prefixes;
	size_t prefix_cap;
};

#define LOOKAHEAD 8

struct parser {
	struct tsdl_lexer lx;
	struct tsdl_token toks[LOOKAHEAD];	/* ring of lexed tokens */
	unsigned head, count;
	struct ctf_meta *m;
	struct scope *sc;
	struct scope *spare;	/* an empty one popped, for the next push */
	/* the struct whose body is being read (NULL: none), and where it
	 * sits itself: the lexical scope of lengths and tags */
	struct ctf_type *cur;
	const struct ctf_lex *cur_up;
	/* the last token taken */
	enum tsdl_tok prev;
	/* the stream classes by (id, has_id): positions in m->streams */
	struct hashmap streams;
	jmp_buf jb;
	char *err;
	size_t errsize;
	int depth;
};

static void perr(struct parser *p, const struct tsdl_token *t,
    const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));

static void
perr(struct parser *p, const struct tsdl_token *t, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errsize, "line %d, column %d: ", t->line,
	    t->col);
	if (n < 0 || (size_t)n >= p->errsize)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(p->jb, 1);
}

static const struct tsdl_token *
peek(struct parser *p, unsigned k)
{
	while (p->count <= k) {
		struct tsdl_token *t = &p->toks[(p->head + p->count) % LOOKAHEAD];
		tsdl_lex_next(&p->lx, t);
		p->count++;
		if (t->kind == TOK_ERROR)
			perr(p, t, "%s", t->err);
		if (t->warn != NULL)
			ctf_meta_warn(p->m, "line %d, column %d: %s", t->line,
			    t->col, t->warn);
	}
	return &p->toks[(p->head + k) % LOOKAHEAD];
}

static struct tsdl_token
next(struct parser *p)
{
	struct tsdl_token t = *peek(p, 0);
	p->head = (p->head + 1) % LOOKAHEAD;
	p->count--;
	p->prev = t.kind;
	return t;
}

static bool
is_tok(struct parser *p, enum tsdl_tok k)
{
	return peek(p, 0)->kind == k;
}

static bool
is_word(struct parser *p, unsigned k, const char *w)
{
	const struct tsdl_token *t = peek(p, k);
	return t->kind == TOK_IDENT && strcmp(t->sval, w) == 0;
}

static bool
accept(struct parser *p, enum tsdl_tok k)
{
	if (!is_tok(p, k))
		return false;
	next(p);
	return true;
}

static struct tsdl_token
expect(struct parser *p, enum tsdl_tok k)
{
	const struct tsdl_token *t = peek(p, 0);
	if (t->kind != k) {
		if (t->kind == TOK_IDENT)
			perr(p, t, "expected %s, found '%s'", tsdl_tok_name(k),
			    t->sval);
		perr(p, t, "expected %s, found %s", tsdl_tok_name(k),
		    tsdl_tok_name(t->kind));
	}
	return next(p);
}

/* --- scopes --- */

/* Every block and struct body has a scope, most of them never naming a
 * type: a scope left empty is used again (nothing points to a scope
 * once popped), not one more piece of the arena per block. */
static void
scope_push(struct parser *p)
{
	struct scope *s = p->spare;
	if (s != NULL)
		p->spare = NULL;
	else
		s = ctf_alloc(p->m, sizeof *s);
	s->up = p->sc;
	p->sc = s;
}

static void
scope_pop(struct parser *p)
{
	struct scope *s = p->sc;
	p->sc = s->up;
	if (s->n == 0 && s->nprefix == 0) {
		memset(s, 0, sizeof *s);
		p->spare = s;
	}
}

static uint64_t
name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The slot of name in a by-name index: where it is, or the empty one it
 * would go in. */
static size_t
name_slot(const struct scope *s, const char *name)
{
	size_t mask = s->nslots - 1;
	size_t i = (size_t)name_hash(name, strlen(name)) & mask;
	while (s->by_name[i] != 0 &&
	    strcmp(s->items[s->by_name[i] - 1].name, name) != 0)
		i = (i + 1) & mask;
	return i;
}

static size_t
prefix_slot(const struct scope *s, const char *w, size_t n)
{
	size_t mask = s->prefix_slots - 1;
	size_t i = (size_t)name_hash(w, n) & mask;
	while (s->by_prefix[i] != 0) {
		const char *q = s->prefixes[s->by_prefix[i] - 1];
		if (strlen(q) == n && memcmp(q, w, n) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static void
index_names(struct parser *p, struct scope *s)
{
	s->nslots = s->cap * 2;
	s->by_name = ctf_alloc(p->m, s->nslots * sizeof *s->by_name);
	memset(s->by_name, 0, s->nslots * sizeof *s->by_name);
	for (size_t i = 0; i < s->n; i++)
		s->by_name[name_slot(s, s->items[i].name)] = (uint32_t)i + 1;
}

static void
add_prefix(struct parser *p, struct scope *s, const char *w, size_t n)
{
	if (s->nprefix * 2 >= s->prefix_slots) {
		size_t ns = s->prefix_slots ? s->prefix_slots * 2 : 32;
		s->by_prefix = ctf_alloc(p->m, ns * sizeof *s->by_prefix);
		memset(s->by_prefix, 0, ns * sizeof *s->by_prefix);
		s->prefix_slots = ns;
		for (size_t i = 0; i < s->nprefix; i++)
			s->by_prefix[prefix_slot(s, s->prefixes[i],
			    strlen(s->prefixes[i]))] = (uint32_t)i + 1;
	}
	size_t slot = prefix_slot(s, w, n);
	if (s->by_prefix[slot] != 0)
		return;
	if (s->nprefix == s->prefix_cap) {
		size_t nc = s->prefix_cap ? s->prefix_cap * 2 : 16;
		const char **a = ctf_alloc(p->m, nc * sizeof *a);
		if (s->nprefix)
			memcpy(a, s->prefixes, s->nprefix * sizeof *a);
		s->prefixes = a;
		s->prefix_cap = nc;
	}
	s->prefixes[s->nprefix] = ctf_strdup(p->m, w, n);
	s->by_prefix[slot] = (uint32_t)++s->nprefix;
}

/* Names a type in the innermost scope; a name already given there is a
 * redefinition, refused as C does (an inner scope may hide an outer
 * one's). */
static void
scope_add(struct parser *p, const char *name, struct ctf_type *t,
    const struct tsdl_token *at)
{
	struct scope *s = p->sc;
	if (s->n > 0 && s->by_name[name_slot(s, name)] != 0) {
		perr(p, at, "type `%s` is already defined in this scope",
		    name);
		return;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct alias *a = ctf_alloc(p->m, nc * sizeof *a);
		if (s->n)
			memcpy(a, s->items, s->n * sizeof *a);
		s->items = a;
		s->cap = nc;
		index_names(p, s);
	}
	s->items[s->n].name = ctf_strdup(p->m, name, strlen(name));
	s->items[s->n].type = t;
	s->by_name[name_slot(s, name)] = (uint32_t)s->n + 1;
	s->n++;
	/* "a b c" makes "a" and "a b" known prefixes. */
	for (const char *sp = strchr(name, ' '); sp != NULL;
	    sp = strchr(sp + 1, ' '))
		add_prefix(p, s, name, (size_t)(sp - name));
}

static struct ctf_type *
scope_find(struct parser *p, const char *name)
{
	for (struct scope *s = p->sc; s != NULL; s = s->up) {
		if (s->n == 0)
			continue;
		size_t slot = name_slot(s, name);
		if (s->by_name[slot] != 0)
			return s->items[s->by_name[slot] - 1].type;
	}
	return NULL;
}

/* Is `prefix` followed by a space the start of some alias name? */
static bool
scope_has_prefix(struct parser *p, const char *prefix)
{
	size_t n = strlen(prefix);
	for (struct scope *s = p->sc; s != NULL; s = s->up)
		if (s->nprefix > 0 &&
		    s->by_prefix[prefix_slot(s, prefix, n)] != 0)
			return true;
	return false;
}

/* --- reserved words --- */

/* TSDL's keywords (CTF 1.8 section 7.1): never the name of a field, a
 * typedef or a variant tag. */
static const char *const keywords[] = {
	"align", "callsite", "const", "char", "clock", "double", "enum",
	"env", "event", "floating_point", "float", "integer", "int", "long",
	"short", "signed", "stream", "string", "struct", "trace",
	"typealias", "typedef", "unsigned", "variant", "void", "_Bool",
	"_Complex", "_Imaginary",
};

static bool
is_keyword(const char *w)
{
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (!strcmp(w, keywords[i]))
			return true;
	return false;
}

/* The words of C type names, which a typealias may give a type as
 * ("unsigned long", "int"): its target is C declaration specifiers. */
static bool
is_c_type_word(const char *w)
{
	static const char *const words[] = {
		"char", "const", "double", "float", "int", "long", "short",
		"signed", "unsigned", "void", "_Bool", "_Complex",
		"_Imaginary",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

static const char *const abs_scopes[] = {
	"trace.packet.header.", "stream.packet.context.",
	"stream.event.header.", "stream.event.context.", "event.context.",
	"event.fields.", "env.",
};

static bool
is_absolute(const char *path)
{
	for (size_t i = 0; i < sizeof abs_scopes / sizeof abs_scopes[0]; i++)
		if (!strncmp(path, abs_scopes[i], strlen(abs_scopes[i])))
			return true;
	return false;
}

/* A path naming a field (sequence length, variant tag): a relative one
 * cannot start with a keyword. */
static void
check_field_path(struct parser *p, const struct tsdl_token *at,
    const char *path, const char *what)
{
	if (is_absolute(path))
		return;
	char first[64];
	size_t n = strcspn(path, ".");
	if (n >= sizeof first)
		return;
	memcpy(first, path, n);
	first[n] = '\0';
	if (is_keyword(first))
		perr(p, at, "reserved keyword `%s` used as a %s", first, what);
}

/* Where the parser is in the struct being read, for a length or tag
 * declared here (NULL outside any struct). */
static const struct ctf_lex *
lex_here(struct parser *p)
{
	if (p->cur == NULL)
		return NULL;
	struct ctf_lex *l = ctf_alloc(p->m, sizeof *l);
	l->st = p->cur;
	l->upto = p->cur->nfields;
	l->up = p->cur_up;
	return l;
}

/* --- values --- */

enum val_kind { VAL_INT, VAL_STR, VAL_IDENT, VAL_TYPE };

struct value {
	enum val_kind kind;
	int64_t i;		/* VAL_INT: the value as written (two's complement) */
	bool negative;
	const char *s;		/* VAL_STR, VAL_IDENT (dotted path) */
	struct ctf_type *type;
	struct tsdl_token tok;
};

static struct ctf_type *parse_type_spec(struct parser *p);
static struct ctf_type *parse_declarator(struct parser *p,
    struct ctf_type *base, const char **name);

/* A dotted path, into buf (PATH_MAX_LEN bytes); its length. */
#define PATH_MAX_LEN 512

static size_t
parse_path_into(struct parser *p, char *buf)
{
	size_t n = 0;
	for (;;) {
		struct tsdl_token t = expect(p, TOK_IDENT);
		size_t l = strlen(t.sval);
		if (n + l + 2 > PATH_MAX_LEN)
			perr(p, &t, "path too long");
		memcpy(buf + n, t.sval, l);
		n += l;
		if (is_tok(p, TOK_DOT) || is_tok(p, TOK_ARROW)) {
			next(p);
			buf[n++] = '.';
			continue;
		}
		break;
	}
	buf[n] = '\0';
	return n;
}

static const char *
parse_path(struct parser *p)
{
	char buf[PATH_MAX_LEN];
	size_t n = parse_path_into(p, buf);
	return ctf_strdup(p->m, buf, n);
}

static void
parse_int_value(struct parser *p, struct value *v)
{
	bool neg = false;
	if (accept(p, TOK_MINUS))
		neg = true;
	else
		accept(p, TOK_PLUS);
	struct tsdl_token t = next(p);
	if (t.kind != TOK_INT && t.kind != TOK_CHAR)
		perr(p, &t, "expected an integer, found %s",
		    tsdl_tok_name(t.kind));
	if (neg && t.ival > (uint64_t)INT64_MAX + 1)
		perr(p, &t, "integer literal out of range");
	v->kind = VAL_INT;
	v->negative = neg;
	v->i = neg ? (int64_t)(0 - t.ival) : (int64_t)t.ival;
}

/* `lhs = value ;` or `lhs := type ;` -- the part after the lhs. */
static void
parse_value(struct parser *p, bool type_assign, struct value *v)
{
	memset(v, 0, sizeof *v);
	v->tok = *peek(p, 0);
	if (type_assign) {
		v->kind = VAL_TYPE;
		struct ctf_type *t = parse_type_spec(p);
		/* an abstract declarator may follow, e.g. `:= uint8_t [16]` */
		if (is_tok(p, TOK_LBRACKET))
			t = parse_declarator(p, t, NULL);
		v->type = t;
		return;
	}
	switch (v->tok.kind) {
	case TOK_STRING:
		v->kind = VAL_STR;
		v->s = ctf_strdup(p->m, v->tok.sval, strlen(v->tok.sval));
		next(p);
		break;
	case TOK_INT: case TOK_CHAR: case TOK_MINUS: case TOK_PLUS:
		parse_int_value(p, v);
		break;
	case TOK_IDENT:
		v->kind = VAL_IDENT;
		v->s = parse_path(p);
		break;
	default:
		perr(p, &v->tok, "unexpected %s in a value",
		    tsdl_tok_name(v->tok.kind));
	}
}

static int64_t
want_int(struct parser *p, const struct value *v, const char *what)
{
	if (v->kind != VAL_INT)
		perr(p, &v->tok, "`%s` expects an integer", what);
	return v->i;
}

static uint64_t
want_uint(struct parser *p, const struct value *v, const char *what)
{
	int64_t i = want_int(p, v, what);
	if (v->negative)
		perr(p, &v->tok, "`%s` cannot be negative", what);
	return (uint64_t)i;
}

static const char *
want_str(struct parser *p, const struct value *v, const char *what)
{
	if (v->kind != VAL_STR && v->kind != VAL_IDENT)
		perr(p, &v->tok, "`%s` expects a string", what);
	return v->s;
}

static bool
want_bool(struct parser *p, const struct value *v, const char *what)
{
	if (v->kind == VAL_INT)
		return v->i != 0;
	if (v->kind == VAL_IDENT) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE"))
			return true;
		if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE"))
			return false;
	}
	perr(p, &v->tok, "`%s` expects true or false", what);
}

static uint8_t
want_byte_order(struct parser *p, const struct value *v, bool allow_native)
{
	const char *s = v->kind == VAL_IDENT ? v->s : "";
	if (!strcmp(s, "le") || !strcmp(s, "little_endian") ||
	    !strcmp(s, "little-endian"))
		return CTF_BO_LE;
	if (!strcmp(s, "be") || !strcmp(s, "network") ||
	    !strcmp(s, "big_endian") || !strcmp(s, "big-endian"))
		return CTF_BO_BE;
	if (allow_native && !strcmp(s, "native"))
		return CTF_BO_NATIVE;
	perr(p, &v->tok, "invalid byte order");
}

/* One attribute: `a.b.c = value;` or `a.b := type;`. Returns the dotted
 * name (in name, PATH_MAX_LEN bytes: most are only compared, so they are
 * not kept in the arena) and fills v. */
static const char *
parse_attr(struct parser *p, struct value *v, char *name)
{
	parse_path_into(p, name);
	struct tsdl_token t = next(p);
	if (t.kind == TOK_EQUAL)
		parse_value(p, false, v);
	else if (t.kind == TOK_ASSIGN_TYPE)
		parse_value(p, true, v);
	else
		perr(p, &t, "expected '=' or ':=' after `%s`", name);
	expect(p, TOK_SEMI);
	return name;
}

static void
unknown_attr(struct parser *p, const struct value *v, const char *what,
    const char *name)
{
	ctf_meta_warn(p->m, "line %d, column %d: unknown %s attribute `%s`",
	    v->tok.line, v->tok.col, what, name);
}

/* --- types --- */

static struct ctf_type *
parse_integer(struct parser *p, bool floating)
{
	struct tsdl_token start = next(p);
	struct ctf_type *t = ctf_type_new(p->m, floating ? CTF_FLOAT : CTF_INT);
	t->line = start.line;
	t->col = start.col;
	t->base = 10;
	t->byte_order = CTF_BO_NATIVE;
	bool has_size = false, has_align = false;
	struct tsdl_token size_tok = start;
	expect(p, TOK_LBRACE);
	while (!accept(p, TOK_RBRACE)) {
		struct value v;
		char abuf[PATH_MAX_LEN];
		const char *a = parse_attr(p, &v, abuf);
		if (!floating && !strcmp(a, "size")) {
			uint64_t s = want_uint(p, &v, a);
			if (s < 1 || s > CTF_INT_MAX_BITS)
				perr(p, &v.tok, "integer size %llu not in 1..%d",
				    (unsigned long long)s, CTF_INT_MAX_BITS);
			t->size = (uint32_t)s;
			has_size = true;
			size_tok = v.tok;
		} else if (!strcmp(a, "align")) {
			uint64_t al = want_uint(p, &v, a);
			if (al == 0 || (al & (al - 1)) != 0 || al > 1024)
				perr(p, &v.tok, "alignment must be a power of two");
			t->align = (uint32_t)al;
			has_align = true;
		} else if (!floating && !strcmp(a, "signed")) {
			t->is_signed = want_bool(p, &v, a);
		} else if (!strcmp(a, "byte_order")) {
			t->byte_order = want_byte_order(p, &v, true);
		} else if (!floating && !strcmp(a, "base")) {
			/* a number or a name: "hex" in quotes is neither */
			if (v.kind == VAL_STR)
				perr(p, &v.tok, "integer base given as a string");
			if (v.kind == VAL_INT) {
				if (v.i != 2 && v.i != 8 && v.i != 10 && v.i != 16)
					perr(p, &v.tok, "invalid integer base");
				t->base = (uint8_t)v.i;
			} else {
				const char *s = want_str(p, &v, a);
				if (!strcmp(s, "decimal") || !strcmp(s, "dec") ||
				    !strcmp(s, "d") || !strcmp(s, "i") ||
				    !strcmp(s, "u"))
					t->base = 10;
				else if (!strcmp(s, "hexadecimal") ||
				    !strcmp(s, "hex") || !strcmp(s, "x") ||
				    !strcmp(s, "X") || !strcmp(s, "p"))
					t->base = 16;
				else if (!strcmp(s, "octal") || !strcmp(s, "oct") ||
				    !strcmp(s, "o"))
					t->base = 8;
				else if (!strcmp(s, "binary") || !strcmp(s, "b"))
					t->base = 2;
				else
					perr(p, &v.tok, "invalid integer base `%s`", s);
			}
		} else if (!floating && !strcmp(a, "encoding")) {
			if (v.kind == VAL_STR)
				perr(p, &v.tok, "integer encoding given as a "
				    "string");
			const char *s = want_str(p, &v, a);
			if (!strcmp(s, "UTF8") || !strcmp(s, "utf8") ||
			    !strcmp(s, "ASCII") || !strcmp(s, "ascii"))
				t->encoding = 1;
			else if (!strcmp(s, "none"))
				t->encoding = 0;
			else
				perr(p, &v.tok, "invalid encoding `%s`", s);
		} else if (!floating && !strcmp(a, "map")) {
			const char *s = want_str(p, &v, a);
			size_t n = strlen(s);
			if (strncmp(s, "clock.", 6) != 0 || n < 13 ||
			    strcmp(s + n - 6, ".value") != 0)
				perr(p, &v.tok, "invalid mapping `%s`", s);
			/* the clock may be declared later: keep its name and
			 * resolve it at the end, through the arena string */
			t->clock_name = ctf_strdup(p->m, s + 6, n - 12);
		} else if (floating && !strcmp(a, "exp_dig")) {
			t->exp_dig = (uint32_t)want_uint(p, &v, a);
		} else if (floating && !strcmp(a, "mant_dig")) {
			t->mant_dig = (uint32_t)want_uint(p, &v, a);
		} else
			unknown_attr(p, &v, floating ? "floating point" :
			    "integer", a);
	}
	if (floating) {
		uint64_t s = (uint64_t)t->exp_dig + t->mant_dig;
		if (s != 32 && s != 64)
			perr(p, &start, "unsupported floating point size %llu "
			    "(exp_dig + mant_dig must be 32 or 64)",
			    (unsigned long long)s);
		t->size = (uint32_t)s;
	} else if (!has_size)
		perr(p, &start, "integer without a size");
	if (!has_align)
		t->align = t->size % 8 == 0 ? 8 : 1;
	/* wider than 64 bits: read as its bytes, which must be whole */
	if (t->size > 64 && (t->size % 8 != 0 || t->align % 8 != 0))
		perr(p, &size_tok, "an integer wider than 64 bits must be a "
		    "whole number of bytes, byte-aligned");
	if (t->size > 64 && t->clock_name != NULL)
		perr(p, &size_tok, "a clock value wider than 64 bits");
	return t;
}

static struct ctf_type *
parse_string(struct parser *p)
{
	struct tsdl_token start = next(p);
	struct ctf_type *t = ctf_type_new(p->m, CTF_STRING);
	t->line = start.line;
	t->col = start.col;
	t->align = 8;
	if (accept(p, TOK_LBRACE)) {
		while (!accept(p, TOK_RBRACE)) {
			struct value v;
			char abuf[PATH_MAX_LEN];
			const char *a = parse_attr(p, &v, abuf);
			if (strcmp(a, "encoding") != 0)
				unknown_attr(p, &v, "string", a);
		}
	}
	return t;
}

static void parse_struct_body(struct parser *p, struct ctf_type *t);

static struct ctf_type *
parse_struct(struct parser *p)
{
	struct tsdl_token start = next(p), name_tok = start;
	const char *name = NULL;
	if (is_tok(p, TOK_IDENT)) {
		name_tok = next(p);
		name = name_tok.sval;
	}
	struct ctf_type *t;
	if (is_tok(p, TOK_LBRACE)) {
		t = ctf_type_new(p->m, CTF_STRUCT);
		t->line = start.line;
		t->col = start.col;
		t->align = 1;
		next(p);
		struct ctf_type *cur = p->cur;
		const struct ctf_lex *cur_up = p->cur_up;
		p->cur_up = lex_here(p);
		p->cur = t;
		scope_push(p);
		parse_struct_body(p, t);
		scope_pop(p);
		p->cur = cur;
		p->cur_up = cur_up;
		if (is_word(p, 0, "align")) {
			next(p);
			expect(p, TOK_LPAREN);
			struct tsdl_token a = expect(p, TOK_INT);
			if (a.ival == 0 || (a.ival & (a.ival - 1)) != 0 ||
			    a.ival > 1024)
				perr(p, &a, "alignment must be a power of two");
			expect(p, TOK_RPAREN);
			if (a.ival > t->align)
				t->align = (uint32_t)a.ival;
		}
		for (size_t i = 0; i < t->nfields; i++)
			if (t->fields[i].type->align > t->align)
				t->align = t->fields[i].type->align;
		if (name != NULL) {
			char buf[300];
			snprintf(buf, sizeof buf, "struct %s", name);
			scope_add(p, buf, t, &name_tok);
		}
	} else {
		if (name == NULL)
			perr(p, &start, "struct without a name or a body");
		char buf[300];
		snprintf(buf, sizeof buf, "struct %s", name);
		t = scope_find(p, buf);
		if (t == NULL)
			perr(p, &start, "unknown type `struct %s`", name);
		if (is_word(p, 0, "align")) {
			/* `struct x align(N)` on a reference: a copy */
			next(p);
			expect(p, TOK_LPAREN);
			struct tsdl_token a = expect(p, TOK_INT);
			expect(p, TOK_RPAREN);
			if (a.ival == 0 || (a.ival & (a.ival - 1)) != 0 ||
			    a.ival > 1024)
				perr(p, &a, "alignment must be a power of two");
			if (a.ival > t->align) {
				t = ctf_type_copy(p->m, t);
				t->align = (uint32_t)a.ival;
			}
		}
	}
	return t;
}

/* A variant whose tag is an enum declared before it, in a struct around
 * it, is checked here, used or not: none of its options can be chosen
 * when no label of the enum names one. (A tag found elsewhere is
 * checked when the variant is resolved.) */
static void
check_variant_options(struct parser *p, const struct ctf_type *v,
    const struct tsdl_token *at)
{
	if (strchr(v->tag, '.') != NULL)
		return;
	/* names equal, or equal but for one leading '_' (how options and
	 * labels are matched: ctf_types.c); each look-up by the names'
	 * indexes, the enum may have as many labels as the variant options */
	const struct ctf_field *tf = NULL;
	size_t taglen = strlen(v->tag);
	for (const struct ctf_lex *l = v->lex; l != NULL && tf == NULL;
	    l = l->up) {
		int64_t i = ctf_field_find_loose(l->st, l->upto, v->tag, taglen,
		    true);
		if (i >= 0)
			tf = &l->st->fields[i];
	}
	if (tf == NULL || tf->type->kind != CTF_ENUM)
		return;
	for (size_t i = 0; i < tf->type->nmaps; i++) {
		const char *lab = tf->type->maps[i].label;
		if (ctf_field_find_loose(v, v->nfields, lab, strlen(lab),
		    false) >= 0)
			return;
	}
	perr(p, at, "no label of the tag `%s` names an option of the variant",
	    v->tag);
}

static struct ctf_type *
parse_variant(struct parser *p)
{
	struct tsdl_token start = next(p), name_tok = start;
	const char *name = NULL, *tag = NULL;
	if (is_tok(p, TOK_IDENT)) {
		name_tok = next(p);
		name = name_tok.sval;
	}
	if (accept(p, TOK_LT)) {
		struct tsdl_token at = *peek(p, 0);
		tag = parse_path(p);
		check_field_path(p, &at, tag, "variant tag");
		expect(p, TOK_GT);
	}
	struct ctf_type *t;
	char buf[300];
	if (is_tok(p, TOK_LBRACE)) {
		next(p);
		t = ctf_type_new(p->m, CTF_VARIANT);
		t->line = start.line;
		t->col = start.col;
		t->align = 1;
		t->tag = tag;
		t->lex = lex_here(p);
		scope_push(p);
		parse_struct_body(p, t);
		scope_pop(p);
		if (t->nfields == 0)
			perr(p, &start, "variant without options");
		if (tag != NULL)
			check_variant_options(p, t, &start);
		if (name != NULL) {
			snprintf(buf, sizeof buf, "variant %s", name);
			scope_add(p, buf, t, &name_tok);
		}
	} else {
		if (name == NULL)
			perr(p, &start, "variant without a name or a body");
		snprintf(buf, sizeof buf, "variant %s", name);
		t = scope_find(p, buf);
		if (t == NULL)
			perr(p, &start, "unknown type `variant %s`", name);
		if (tag != NULL) {
			if (t->tag != NULL)
				perr(p, &start, "variant `%s` already has a tag",
				    name);
			t = ctf_type_copy(p->m, t);
			t->tag = tag;
			t->lex = lex_here(p);
		}
	}
	return t;
}

/* The text of a 128-bit value, for messages. */
static const char *
i128_text(__int128 v, char buf[48])
{
	char tmp[48];
	size_t n = 0;
	bool neg = v < 0;
	unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u != 0);
	size_t k = 0;
	if (neg)
		buf[k++] = '-';
	while (n > 0)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
	return buf;
}

static __int128
enum_value(struct parser *p, struct value *v)
{
	v->tok = *peek(p, 0);
	parse_int_value(p, v);
	return v->negative ? (__int128)v->i : (__int128)(uint64_t)v->i;
}

static struct ctf_type *
parse_enum(struct parser *p)
{
	struct tsdl_token start = next(p), name_tok = start;
	const char *name = NULL;
	char buf[300];
	if (is_tok(p, TOK_IDENT)) {
		name_tok = next(p);
		name = name_tok.sval;
	}
	struct ctf_type *container = NULL;
	if (accept(p, TOK_COLON))
		container = parse_type_spec(p);
	if (!is_tok(p, TOK_LBRACE)) {
		if (name == NULL)
			perr(p, &start, "enum without a name or a body");
		snprintf(buf, sizeof buf, "enum %s", name);
		struct ctf_type *t = scope_find(p, buf);
		if (t == NULL)
			perr(p, &start, "unknown type `enum %s`", name);
		return t;
	}
	next(p);
	if (container == NULL) {
		container = scope_find(p, "int");
		if (container == NULL)
			perr(p, &start, "enum without a container type and no "
			    "`int` type declared");
	}
	if (container->kind != CTF_INT)
		perr(p, &start, "enum container must be an integer type");
	if (container->size > 64)
		perr(p, &start, "enum container wider than 64 bits");
	struct ctf_type *t = ctf_type_copy(p->m, container);
	t->kind = CTF_ENUM;
	t->line = start.line;
	t->col = start.col;
	/* what the container holds: every value must fit in it */
	uint32_t bits = t->size;
	__int128 lo_ok = t->is_signed ? -((__int128)1 << (bits - 1)) : 0;
	__int128 hi_ok = t->is_signed ? ((__int128)1 << (bits - 1)) - 1 :
	    ((__int128)1 << bits) - 1;
	size_t cap = 0;
	__int128 nextv = 0;
	while (!accept(p, TOK_RBRACE)) {
		struct tsdl_token lt = next(p);
		if (lt.kind != TOK_IDENT && lt.kind != TOK_STRING)
			perr(p, &lt, "expected an enum label, found %s",
			    tsdl_tok_name(lt.kind));
		struct ctf_enum_map mp;
		mp.label = ctf_strdup(p->m, lt.sval, strlen(lt.sval));
		__int128 lo = nextv, hi = nextv;
		struct tsdl_token lo_tok = lt, hi_tok = lt;
		if (accept(p, TOK_EQUAL)) {
			struct value v;
			lo = hi = enum_value(p, &v);
			lo_tok = hi_tok = v.tok;
			if (accept(p, TOK_ELLIPSIS)) {
				hi = enum_value(p, &v);
				hi_tok = v.tok;
			}
		}
		const struct tsdl_token *at = lo < lo_ok || lo > hi_ok ?
		    &lo_tok : &hi_tok;
		char b1[48], b2[48], b3[48];
		if (lo < lo_ok || lo > hi_ok || hi < lo_ok || hi > hi_ok)
			perr(p, at, "value %s of enum label `%s` does not fit "
			    "in its %s %u-bit container (%s to %s)",
			    i128_text(lo < lo_ok || lo > hi_ok ? lo : hi, b1),
			    mp.label, t->is_signed ? "signed" : "unsigned",
			    bits, i128_text(lo_ok, b2), i128_text(hi_ok, b3));
		if (hi < lo)
			perr(p, &lt, "enum range of `%s` is reversed", mp.label);
		mp.lo = (int64_t)lo;
		mp.hi = (int64_t)hi;
		nextv = hi + 1;
		if (t->nmaps == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct ctf_enum_map *a = ctf_alloc(p->m, nc * sizeof *a);
			if (t->nmaps)
				memcpy(a, t->maps, t->nmaps * sizeof *a);
			t->maps = a;
			cap = nc;
		}
		t->maps[t->nmaps++] = mp;
		if (!accept(p, TOK_COMMA)) {
			expect(p, TOK_RBRACE);
			break;
		}
	}
	if (t->nmaps == 0)
		perr(p, &start, "empty enumeration");
	if (name != NULL) {
		snprintf(buf, sizeof buf, "enum %s", name);
		scope_add(p, buf, t, &name_tok);
	}
	return t;
}

static bool
is_type_keyword(const char *s)
{
	return !strcmp(s, "integer") || !strcmp(s, "floating_point") ||
	    !strcmp(s, "string") || !strcmp(s, "struct") ||
	    !strcmp(s, "variant") || !strcmp(s, "enum");
}

/* A type name made of words in scope: the longest one that exists. */
static struct ctf_type *
parse_alias_ref(struct parser *p)
{
	char buf[512], best_buf[512];
	size_t n = 0;
	unsigned k = 0, best_k = 0;
	struct ctf_type *best = NULL;
	for (;;) {
		const struct tsdl_token *t = peek(p, k);
		const char *w;
		if (t->kind == TOK_IDENT)
			w = t->sval;
		else if (t->kind == TOK_STAR)
			w = "*";
		else
			break;
		size_t l = strlen(w);
		if (n + l + 2 > sizeof buf)
			break;
		size_t save = n;
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, w, l);
		n += l;
		buf[n] = '\0';
		struct ctf_type *ty = scope_find(p, buf);
		bool prefix = scope_has_prefix(p, buf);
		if (ty == NULL && !prefix) {
			n = save;
			break;
		}
		k++;
		if (ty != NULL) {
			best = ty;
			best_k = k;
			memcpy(best_buf, buf, n + 1);
		}
		if (!prefix || k + 1 >= LOOKAHEAD)
			break;
	}
	if (best == NULL) {
		const struct tsdl_token *t = peek(p, 0);
		if (t->kind == TOK_IDENT)
			perr(p, t, "unknown type `%s`", t->sval);
		perr(p, t, "expected a type, found %s", tsdl_tok_name(t->kind));
	}
	(void)best_buf;
	for (unsigned i = 0; i < best_k; i++)
		next(p);
	return best;
}

static struct ctf_type *
parse_type_spec(struct parser *p)
{
	if (++p->depth > 200)
		perr(p, peek(p, 0), "types nested too deeply");
	const struct tsdl_token *t = peek(p, 0);
	struct ctf_type *r;
	/* C qualifiers mean nothing here */
	while (is_word(p, 0, "const") || is_word(p, 0, "volatile"))
		next(p);
	t = peek(p, 0);
	if (t->kind != TOK_IDENT)
		perr(p, t, "expected a type, found %s", tsdl_tok_name(t->kind));
	if (!strcmp(t->sval, "integer"))
		r = parse_integer(p, false);
	else if (!strcmp(t->sval, "floating_point"))
		r = parse_integer(p, true);
	else if (!strcmp(t->sval, "string"))
		r = parse_string(p);
	else if (!strcmp(t->sval, "struct"))
		r = parse_struct(p);
	else if (!strcmp(t->sval, "variant"))
		r = parse_variant(p);
	else if (!strcmp(t->sval, "enum"))
		r = parse_enum(p);
	else
		r = parse_alias_ref(p);
	p->depth--;
	return r;
}

/* `name[10][len]`: wraps base in arrays/sequences. name may be NULL for
 * an abstract declarator. */
static struct ctf_type *
parse_declarator(struct parser *p, struct ctf_type *base, const char **name)
{
	while (accept(p, TOK_STAR))
		;
	if (name != NULL) {
		struct tsdl_token t = expect(p, TOK_IDENT);
		if (is_keyword(t.sval))
			perr(p, &t, "reserved keyword `%s` used as a name",
			    t.sval);
		*name = t.sval;
	}
	/* dimensions apply right to left: a[2][3] is 2 arrays of 3 */
	struct ctf_type *dims[16];
	int nd = 0;
	while (is_tok(p, TOK_LBRACKET)) {
		struct tsdl_token lb = next(p);
		if (nd == 16)
			perr(p, &lb, "too many array dimensions");
		struct ctf_type *a;
		if (is_tok(p, TOK_INT)) {
			struct tsdl_token n = next(p);
			a = ctf_type_new(p->m, CTF_ARRAY);
			a->length = n.ival;
		} else if (is_tok(p, TOK_IDENT)) {
			struct tsdl_token at = *peek(p, 0);
			a = ctf_type_new(p->m, CTF_SEQUENCE);
			a->length_path = parse_path(p);
			check_field_path(p, &at, a->length_path,
			    "sequence length");
			/* a relative length names a field declared before it
			 * in an enclosing struct: outside any, nothing */
			if (p->cur == NULL && !is_absolute(a->length_path)) {
				if (strchr(a->length_path, '.') == NULL &&
				    scope_find(p, a->length_path) != NULL)
					perr(p, &at, "array size `%s` is a type, "
					    "not an integer or a field",
					    a->length_path);
				perr(p, &at, "array size `%s` names no field "
				    "(declared outside any struct)",
				    a->length_path);
			}
			a->lex = lex_here(p);
		} else
			perr(p, peek(p, 0), "expected an array length, found %s",
			    tsdl_tok_name(peek(p, 0)->kind));
		a->line = lb.line;
		a->col = lb.col;
		expect(p, TOK_RBRACKET);
		dims[nd++] = a;
	}
	struct ctf_type *t = base;
	for (int i = nd - 1; i >= 0; i--) {
		dims[i]->elem = t;
		dims[i]->align = t->align;
		dims[i]->is_text = t->kind == CTF_INT && t->size == 8 &&
		    t->encoding != 0 && t->align <= 8;
		if (dims[i]->kind == CTF_ARRAY && t->kind != CTF_STRING &&
		    dims[i]->length > ((uint64_t)1 << 32))
			perr(p, peek(p, 0), "array too long");
		t = dims[i];
	}
	return t;
}

static void
add_field(struct parser *p, struct ctf_type *st, const char *name,
    struct ctf_type *t, const struct tsdl_token *at)
{
	size_t len = strlen(name);
	if (ctf_field_find(st, st->nfields, name, len) >= 0)
		perr(p, at, "duplicate field `%s`", name);
	struct ctf_field *f = ctf_field_add(p->m, st,
	    ctf_strdup(p->m, name, len), t);
	f->display = f->name[0] == '_' ? f->name + 1 : f->name;
}

static void
parse_typealias(struct parser *p)
{
	next(p);
	struct ctf_type *t = parse_type_spec(p);
	if (is_tok(p, TOK_LBRACKET) || is_tok(p, TOK_STAR))
		t = parse_declarator(p, t, NULL);
	expect(p, TOK_ASSIGN_TYPE);
	char buf[512];
	size_t n = 0;
	const struct tsdl_token *first = peek(p, 0);
	int line = first->line, col = first->col;
	while (is_tok(p, TOK_IDENT) || is_tok(p, TOK_STAR)) {
		struct tsdl_token w = next(p);
		const char *s = w.kind == TOK_STAR ? "*" : w.sval;
		if (w.kind == TOK_IDENT && is_keyword(s) && !is_c_type_word(s))
			perr(p, &w, "reserved keyword `%s` used as a type name",
			    s);
		size_t l = strlen(s);
		if (n + l + 2 > sizeof buf)
			perr(p, &w, "type name too long");
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, s, l);
		n += l;
	}
	if (n == 0) {
		struct tsdl_token at = { .line = line, .col = col };
		perr(p, &at, "typealias without a name");
	}
	buf[n] = '\0';
	expect(p, TOK_SEMI);
	struct tsdl_token at = { .line = line, .col = col };
	scope_add(p, buf, t, &at);
}

static void
parse_typedef(struct parser *p)
{
	next(p);
	struct ctf_type *base = parse_type_spec(p);
	for (;;) {
		const char *name;
		struct tsdl_token at = *peek(p, 0);
		while (at.kind == TOK_STAR) {
			next(p);
			at = *peek(p, 0);
		}
		struct ctf_type *t = parse_declarator(p, base, &name);
		scope_add(p, name, t, &at);
		if (!accept(p, TOK_COMMA))
			break;
	}
	expect(p, TOK_SEMI);
}

/* Declarations of a struct or variant body, up to and with the '}'. */
static void
parse_struct_body(struct parser *p, struct ctf_type *st)
{
	while (!accept(p, TOK_RBRACE)) {
		if (is_tok(p, TOK_EOF))
			perr(p, peek(p, 0), "unterminated struct or variant");
		if (is_word(p, 0, "typealias")) {
			parse_typealias(p);
			continue;
		}
		if (is_word(p, 0, "typedef")) {
			parse_typedef(p);
			continue;
		}
		struct ctf_type *base = parse_type_spec(p);
		if (accept(p, TOK_SEMI))
			continue;	/* a declaration of a named type */
		for (;;) {
			struct tsdl_token at = *peek(p, 0);
			const char *name;
			struct ctf_type *t = parse_declarator(p, base, &name);
			add_field(p, st, name, t, &at);
			if (!accept(p, TOK_COMMA))
				break;
		}
		expect(p, TOK_SEMI);
	}
}

/* --- top-level blocks --- */

static int
parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;
	for (const char *c = s; *c; c++) {
		if (*c == '-')
			continue;
		int hi = -1, lo = -1;
		if (c[0] >= '0' && c[0] <= '9') hi = c[0] - '0';
		else if (c[0] >= 'a' && c[0] <= 'f') hi = c[0] - 'a' + 10;
		else if (c[0] >= 'A' && c[0] <= 'F') hi = c[0] - 'A' + 10;
		if (c[1] >= '0' && c[1] <= '9') lo = c[1] - '0';
		else if (c[1] >= 'a' && c[1] <= 'f') lo = c[1] - 'a' + 10;
		else if (c[1] >= 'A' && c[1] <= 'F') lo = c[1] - 'A' + 10;
		if (hi < 0 || lo < 0 || n == 16)
			return -1;
		out[n++] = (uint8_t)(hi * 16 + lo);
		c++;
	}
	return n == 16 ? 0 : -1;
}

/* Runs f for each attribute of a `{ ... };` block; typealias and typedef
 * are allowed inside and scoped to the block. */
#define BLOCK_BEGIN(p) do { \
	expect(p, TOK_LBRACE); \
	scope_push(p); \
	while (!accept(p, TOK_RBRACE)) { \
		if (is_tok(p, TOK_EOF)) \
			perr(p, peek(p, 0), "unterminated block"); \
		if (is_word(p, 0, "typealias")) { parse_typealias(p); continue; } \
		if (is_word(p, 0, "typedef")) { parse_typedef(p); continue; } \
		struct value v; \
		char abuf[PATH_MAX_LEN]; \
		const char *a = parse_attr(p, &v, abuf);
#define BLOCK_END(p) \
	} \
	scope_pop(p); \
	expect(p, TOK_SEMI); \
} while (0)

static struct ctf_type *
want_struct(struct parser *p, const struct value *v, const char *what)
{
	if (v->kind != VAL_TYPE || v->type->kind != CTF_STRUCT)
		perr(p, &v->tok, "`%s` must be a struct", what);
	return v->type;
}

static void
parse_trace(struct parser *p)
{
	struct tsdl_token start = next(p);
	struct ctf_meta *m = p->m;
	BLOCK_BEGIN(p)
		if (!strcmp(a, "major")) {
			m->major = (int)want_int(p, &v, a);
			m->has_major = true;
			if (m->major != 1)
				perr(p, &v.tok, "unsupported CTF major version "
				    "%lld (expecting 1)", (long long)v.i);
		} else if (!strcmp(a, "minor")) {
			m->minor = (int)want_int(p, &v, a);
			m->has_minor = true;
			if (m->minor != 8)
				perr(p, &v.tok, "unsupported CTF minor version "
				    "%lld (expecting 8)", (long long)v.i);
		} else if (!strcmp(a, "uuid")) {
			if (parse_uuid(want_str(p, &v, a), m->uuid) < 0)
				perr(p, &v.tok, "invalid uuid");
			m->has_uuid = true;
		} else if (!strcmp(a, "byte_order")) {
			m->byte_order = want_byte_order(p, &v, false);
			m->bo_line = v.tok.line;
			m->bo_col = v.tok.col;
		} else if (!strcmp(a, "packet.header")) {
			m->packet_header = want_struct(p, &v, a);
		} else
			unknown_attr(p, &v, "trace", a);
	BLOCK_END(p);
	if (!m->has_major)
		perr(p, &start, "trace block without `major`");
	if (!m->has_minor)
		perr(p, &start, "trace block without `minor`");
}

static void
parse_env(struct parser *p)
{
	next(p);
	struct ctf_meta *m = p->m;
	BLOCK_BEGIN(p)
		struct ctf_env e = { .key = ctf_strdup(m, a, strlen(a)) };
		if (v.kind == VAL_INT)
			e.i = v.i;
		else if (v.kind == VAL_STR || v.kind == VAL_IDENT)
			e.str = v.s;
		else
			perr(p, &v.tok, "env values are strings or integers");
		m->env = ctf_grow(m, m->env, m->nenv, &m->env_cap,
		    sizeof *m->env);
		m->env[m->nenv++] = e;
	BLOCK_END(p);
}

static void
parse_clock(struct parser *p)
{
	struct tsdl_token start = next(p);
	struct ctf_meta *m = p->m;
	struct ctf_clock c = { .freq = 1000000000 };
	BLOCK_BEGIN(p)
		if (!strcmp(a, "name"))
			c.name = want_str(p, &v, a);
		else if (!strcmp(a, "freq")) {
			c.freq = want_uint(p, &v, a);
			if (c.freq == 0)
				perr(p, &v.tok, "clock frequency is 0");
		} else if (!strcmp(a, "offset_s"))
			c.offset_s = want_int(p, &v, a);
		else if (!strcmp(a, "offset"))
			c.offset = want_int(p, &v, a);
		else if (!strcmp(a, "description"))
			c.description = want_str(p, &v, a);
		else if (!strcmp(a, "uuid"))
			c.uuid = want_str(p, &v, a);
		else if (!strcmp(a, "precision") || !strcmp(a, "absolute"))
			;
		else
			unknown_attr(p, &v, "clock", a);
	BLOCK_END(p);
	if (c.name == NULL)
		perr(p, &start, "clock without a name");
	m->clocks = ctf_grow(m, m->clocks, m->nclocks, &m->clocks_cap,
	    sizeof *m->clocks);
	m->clocks[m->nclocks++] = c;
}

/* The stream class of an id (has_id false: the one without), found by
 * the parser's index of them or added. */
static struct ctf_stream_class *
stream_find_or_add(struct parser *p, bool has_id, uint64_t id)
{
	struct ctf_meta *m = p->m;
	uint32_t at;
	if (hashmap_get(&p->streams, has_id ? id : 0, has_id, &at))
		return m->streams[at];
	struct ctf_stream_class *s = ctf_alloc(m, sizeof *s);
	s->has_id = has_id;
	s->id = id;
	s->clock = -1;
	m->streams = ctf_grow(m, m->streams, m->nstreams, &m->streams_cap,
	    sizeof *m->streams);
	hashmap_put(&p->streams, has_id ? id : 0, has_id,
	    (uint32_t)m->nstreams);
	m->streams[m->nstreams++] = s;
	return s;
}

static void
parse_stream(struct parser *p)
{
	struct tsdl_token start = next(p);
	struct ctf_stream_class tmp = { .clock = -1 };
	BLOCK_BEGIN(p)
		if (!strcmp(a, "id")) {
			tmp.id = want_uint(p, &v, a);
			tmp.has_id = true;
		} else if (!strcmp(a, "packet.context"))
			tmp.packet_context = want_struct(p, &v, a);
		else if (!strcmp(a, "event.header"))
			tmp.event_header = want_struct(p, &v, a);
		else if (!strcmp(a, "event.context"))
			tmp.event_context = want_struct(p, &v, a);
		else
			unknown_attr(p, &v, "stream", a);
	BLOCK_END(p);
	/* one declared already, not only named by an event */
	struct ctf_stream_class *s = stream_find_or_add(p, tmp.has_id, tmp.id);
	if (s->line != 0)
		perr(p, &start, "duplicate stream class %llu",
		    (unsigned long long)tmp.id);
	s->packet_context = tmp.packet_context;
	s->event_header = tmp.event_header;
	s->event_context = tmp.event_context;
	s->line = start.line;
}

static void
parse_event(struct parser *p)
{
	struct tsdl_token start = next(p);
	struct ctf_meta *m = p->m;
	struct ctf_event_class *e = ctf_alloc(m, sizeof *e);
	e->line = start.line;
	e->col = start.col;
	e->loglevel = -1;
	BLOCK_BEGIN(p)
		if (!strcmp(a, "name"))
			e->name = want_str(p, &v, a);
		else if (!strcmp(a, "id")) {
			e->id = want_uint(p, &v, a);
			e->has_id = true;
		} else if (!strcmp(a, "stream_id")) {
			e->stream_id = want_uint(p, &v, a);
			e->has_stream_id = true;
		} else if (!strcmp(a, "loglevel"))
			e->loglevel = want_int(p, &v, a);
		else if (!strcmp(a, "context"))
			e->context = want_struct(p, &v, a);
		else if (!strcmp(a, "fields"))
			e->fields = want_struct(p, &v, a);
		else if (!strcmp(a, "model.emf.uri"))
			;
		else
			unknown_attr(p, &v, "event", a);
	BLOCK_END(p);
	if (e->name == NULL)
		perr(p, &start, "event without a name");
	/* attach to its stream class; a stream declared later with the same
	 * id fills in the same class */
	struct ctf_stream_class *s;
	if (e->has_stream_id)
		s = stream_find_or_add(p, true, e->stream_id);
	else if (m->nstreams == 1)
		s = m->streams[0];
	else if (m->nstreams == 0)
		s = stream_find_or_add(p, false, 0);
	else
		perr(p, &start, "event `%s` without stream_id in a trace with "
		    "several stream classes", e->name);
	s->events = ctf_grow(m, s->events, s->nevents, &s->events_cap,
	    sizeof *s->events);
	s->events[s->nevents++] = e;
}

static void
parse_callsite(struct parser *p)
{
	next(p);
	BLOCK_BEGIN(p)
		(void)a;
	BLOCK_END(p);
}

/* Can this word begin an item at the top level? */
static bool
starts_top_item(const char *w)
{
	static const char *const words[] = {
		"typealias", "typedef", "trace", "env", "clock", "stream",
		"event", "callsite", "integer", "floating_point", "string",
		"struct", "variant", "enum",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

static void
parse_top(struct parser *p)
{
	for (;;) {
		const struct tsdl_token *t = peek(p, 0);
		if (t->kind == TOK_EOF)
			return;
		if (t->kind == TOK_SEMI) {
			next(p);
			continue;
		}
		if (t->kind != TOK_IDENT)
			perr(p, t, "unexpected %s at top level",
			    tsdl_tok_name(t->kind));
		if (ctf_meta_over(p->m)) {
			char msg[200];
			perr(p, t, "%s", ctf_meta_over_msg(p->m, msg, sizeof msg));
		}
		const char *w = t->sval;
		bool block = peek(p, 1)->kind == TOK_LBRACE;
		if (!strcmp(w, "typealias"))
			parse_typealias(p);
		else if (!strcmp(w, "typedef"))
			parse_typedef(p);
		else if (block && !strcmp(w, "trace"))
			parse_trace(p);
		else if (block && !strcmp(w, "env"))
			parse_env(p);
		else if (block && !strcmp(w, "clock"))
			parse_clock(p);
		else if (block && !strcmp(w, "stream"))
			parse_stream(p);
		else if (block && !strcmp(w, "event"))
			parse_event(p);
		else if (block && !strcmp(w, "callsite"))
			parse_callsite(p);
		else if (is_type_keyword(w)) {
			parse_type_spec(p);
			/* `struct a { ... }` then `struct b ...` with no ';'
			 * between: what was meant is plain, so it is read
			 * with a warning (the CTF test suite counts it
			 * valid; C would not) */
			const struct tsdl_token *n = peek(p, 0);
			if (p->prev == TOK_RBRACE && n->kind == TOK_IDENT &&
			    starts_top_item(n->sval)) {
				ctf_meta_warn(p->m, "line %d, column %d: missing "
				    "';' before `%s`, taken as the end of the "
				    "%s definition above", n->line, n->col,
				    n->sval, w);
				continue;
			}
			expect(p, TOK_SEMI);
		} else
			perr(p, t, "unexpected `%s` at top level", w);
	}
}

int
tsdl_parse(struct ctf_meta *m, const char *text, size_t len, char *err,
    size_t errsize)
{
	struct parser *p = xcalloc(1, sizeof *p);
	int rc = 0;
	p->m = m;
	p->err = err;
	p->errsize = errsize;
	if (m->arena_limit == 0)
		ctf_meta_limit(m, len);
	tsdl_lex_init(&p->lx, text, len);
	scope_push(p);
	if (setjmp(p->jb) == 0)
		parse_top(p);
	else
		rc = -1;
	tsdl_lex_free(&p->lx);
	hashmap_free(&p->streams);
	free(p);
	return rc;
}
