/*
 * The TSDL lexer. TSDL is lexically C: comments, identifiers, integer
 * literals in decimal, hex and octal (with C suffixes), string and
 * character literals with C escapes. Errors are tokens of their own, so the
 * parser reports them with its usual "line L, column C:" prefix.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "tsdl_lex.h"

void
tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len)
{
	memset(lx, 0, sizeof *lx);
	lx->p = text;
	lx->end = text + len;
	lx->line = 1;
	lx->line_start = text;
}

void
tsdl_lex_free(struct tsdl_lexer *lx)
{
	for (size_t i = 0; i < lx->nstrs; i++)
		free(lx->strs[i]);
	free(lx->strs);
	lx->strs = NULL;
	lx->nstrs = lx->capstrs = 0;
}

static char *
keep(struct tsdl_lexer *lx, char *s)
{
	if (lx->nstrs == lx->capstrs) {
		lx->capstrs = lx->capstrs ? lx->capstrs * 2 : 64;
		lx->strs = xreallocarray(lx->strs, lx->capstrs, sizeof *lx->strs);
	}
	lx->strs[lx->nstrs++] = s;
	return s;
}

static void
newline(struct tsdl_lexer *lx, const char *after)
{
	lx->line++;
	lx->line_start = after;
}

/* Skips blanks and comments; returns an error text for an unterminated
 * comment. */
static const char *
skip_space(struct tsdl_lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == '\n') {
			lx->p++;
			newline(lx, lx->p);
		} else if (isspace((unsigned char)c)) {
			lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			lx->comment_line = lx->line;
			lx->comment_col = (int)(lx->p - lx->line_start) + 1;
			lx->p += 2;
			for (;;) {
				if (lx->p + 1 >= lx->end) {
					lx->p = lx->end;
					return "unterminated comment";
				}
				if (lx->p[0] == '*' && lx->p[1] == '/') {
					lx->p += 2;
					break;
				}
				if (*lx->p == '\n')
					newline(lx, lx->p + 1);
				lx->p++;
			}
		} else
			break;
	}
	return NULL;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads one escape after the backslash at *pp; -1 if invalid, -2 for an
 * octal value that does not fit in a byte. *wide is set for a hex one
 * that does not (its low byte is returned). */
static int
escape(const char **pp, const char *end, bool *wide)
{
	const char *p = *pp;
	if (p >= end)
		return -1;
	char c = *p++;
	int v;
	switch (c) {
	case 'n': v = '\n'; break;
	case 't': v = '\t'; break;
	case 'r': v = '\r'; break;
	case 'a': v = '\a'; break;
	case 'b': v = '\b'; break;
	case 'f': v = '\f'; break;
	case 'v': v = '\v'; break;
	case '\\': case '\'': case '"': case '?': v = c; break;
	case 'x':
		/* as in C99: every hex digit that follows (\x023 is '#');
		 * a value past a byte keeps its low byte, with a warning,
		 * as C compilers do */
		v = 0;
		if (p >= end || hexval(*p) < 0)
			return -1;
		while (p < end && hexval(*p) >= 0) {
			v = (v & 0xfff) * 16 + hexval(*p++);
			if (v > 255)
				*wide = true;
		}
		v &= 0xff;
		break;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (int n = 0; n < 2 && p < end && *p >= '0' && *p <= '7'; n++)
				v = v * 8 + (*p++ - '0');
			if (v > 255)
				return -2;
			break;
		}
		return -1;
	}
	*pp = p;
	return v;
}

static void
lex_string(struct tsdl_lexer *lx, struct tsdl_token *t)
{
	const char *p = lx->p + 1;
	size_t cap = 32, n = 0;
	char *s = xmalloc(cap);
	for (;;) {
		if (p >= lx->end || *p == '\n') {
			free(s);
			t->kind = TOK_ERROR;
			t->err = "unterminated string";
			lx->p = p;
			return;
		}
		int c = (unsigned char)*p;
		if (c == '"') {
			p++;
			break;
		}
		if (c == '\\') {
			const char *q = p + 1;
			bool wide = false;
			c = escape(&q, lx->end, &wide);
			if (wide)
				t->warn = "hex escape sequence out of range, "
				    "its low byte kept";
			if (c < 0) {
				free(s);
				t->kind = TOK_ERROR;
				t->err = c == -2 ? "escape sequence out of range "
				    "(more than a byte) in string" :
				    "invalid escape sequence in string";
				lx->p = q;
				return;
			}
			p = q;
		} else
			p++;
		if (n + 2 > cap) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
		s[n++] = (char)c;
	}
	s[n] = '\0';
	t->kind = TOK_STRING;
	t->sval = keep(lx, s);
	lx->p = p;
}

static void
lex_number(struct tsdl_lexer *lx, struct tsdl_token *t)
{
	const char *p = lx->p;
	uint64_t v = 0;
	bool overflow = false;
	int base = 10;
	if (p[0] == '0' && p + 1 < lx->end && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && p + 1 < lx->end && (p[1] == 'b' || p[1] == 'B')) {
		base = 2;
		p += 2;
	} else if (p[0] == '0')
		base = 8;
	const char *digits = p;
	while (p < lx->end) {
		int d = hexval(*p);
		if (d < 0 || d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
		p++;
	}
	if (base == 16 && p == digits) {
		t->kind = TOK_ERROR;
		t->err = "hexadecimal literal without digits";
		lx->p = p;
		return;
	}
	while (p < lx->end && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L'))
		p++;
	if (p < lx->end && (isalnum((unsigned char)*p) || *p == '_')) {
		t->kind = TOK_ERROR;
		t->err = "invalid integer literal";
		while (p < lx->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		lx->p = p;
		return;
	}
	lx->p = p;
	if (overflow) {
		t->kind = TOK_ERROR;
		t->err = "integer literal out of range";
		return;
	}
	t->kind = TOK_INT;
	t->ival = v;
}

void
tsdl_lex_next(struct tsdl_lexer *lx, struct tsdl_token *t)
{
	memset(t, 0, sizeof *t);
	const char *err = skip_space(lx);
	t->line = lx->line;
	t->col = (int)(lx->p - lx->line_start) + 1;
	t->start = lx->p;
	if (err != NULL) {
		t->kind = TOK_ERROR;
		t->err = err;
		t->line = lx->comment_line;
		t->col = lx->comment_col;
		return;
	}
	if (lx->p >= lx->end) {
		t->kind = TOK_EOF;
		return;
	}
	const char *p = lx->p;
	char c = *p;
	if (isalpha((unsigned char)c) || c == '_') {
		while (p < lx->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		t->kind = TOK_IDENT;
		t->sval = keep(lx, xstrndup(lx->p, (size_t)(p - lx->p)));
		lx->p = p;
	} else if (isdigit((unsigned char)c)) {
		lex_number(lx, t);
	} else if (c == '"') {
		lex_string(lx, t);
	} else if (c == '\'') {
		p++;
		int v;
		if (p < lx->end && *p == '\\') {
			p++;
			bool wide = false;
			v = escape(&p, lx->end, &wide);
			if (wide)
				t->warn = "hex escape sequence out of range, "
				    "its low byte kept";
		} else if (p < lx->end && *p != '\'' && *p != '\n')
			v = (unsigned char)*p++;
		else
			v = -1;
		if (v < 0 || p >= lx->end || *p != '\'') {
			t->kind = TOK_ERROR;
			t->err = "invalid character literal";
			lx->p = p;
		} else {
			t->kind = TOK_CHAR;
			t->ival = (uint64_t)v;
			lx->p = p + 1;
		}
	} else {
		lx->p++;
		switch (c) {
		case '{': t->kind = TOK_LBRACE; break;
		case '}': t->kind = TOK_RBRACE; break;
		case '[': t->kind = TOK_LBRACKET; break;
		case ']': t->kind = TOK_RBRACKET; break;
		case '(': t->kind = TOK_LPAREN; break;
		case ')': t->kind = TOK_RPAREN; break;
		case ';': t->kind = TOK_SEMI; break;
		case ',': t->kind = TOK_COMMA; break;
		case '<': t->kind = TOK_LT; break;
		case '>': t->kind = TOK_GT; break;
		case '+': t->kind = TOK_PLUS; break;
		case '*': t->kind = TOK_STAR; break;
		case '=': t->kind = TOK_EQUAL; break;
		case ':':
			if (lx->p < lx->end && *lx->p == '=') {
				lx->p++;
				t->kind = TOK_ASSIGN_TYPE;
			} else
				t->kind = TOK_COLON;
			break;
		case '-':
			if (lx->p < lx->end && *lx->p == '>') {
				lx->p++;
				t->kind = TOK_ARROW;
			} else
				t->kind = TOK_MINUS;
			break;
		case '.':
			if (lx->end - lx->p >= 2 && lx->p[0] == '.' && lx->p[1] == '.') {
				lx->p += 2;
				t->kind = TOK_ELLIPSIS;
			} else
				t->kind = TOK_DOT;
			break;
		default:
			t->kind = TOK_ERROR;
			t->err = "unexpected character";
			break;
		}
	}
	t->len = (size_t)(lx->p - t->start);
}

const char *
tsdl_tok_name(enum tsdl_tok k)
{
	static const char *const names[] = {
		"end of metadata", "identifier", "integer", "string",
		"character", "'{'", "'}'", "'['", "']'", "'('", "')'", "';'",
		"','", "':'", "':='", "'='", "'<'", "'>'", "'.'", "'...'", "'-'",
		"'+'", "'*'", "'->'", "invalid token",
	};
	return (size_t)k < sizeof names / sizeof names[0] ? names[k] : "?";
}
