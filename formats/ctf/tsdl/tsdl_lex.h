/*
 * The TSDL lexer: C-like tokens with their line and column, so that every
 * metadata error can say where it is. The 2010 RFC's description language
 * (rfc2010/), TSDL's ancestor, is read with it too.
 */
#ifndef TTV_TSDL_LEX_H
#define TTV_TSDL_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum tsdl_tok {
	TOK_EOF, TOK_IDENT, TOK_INT, TOK_STRING, TOK_CHAR,
	TOK_LBRACE, TOK_RBRACE, TOK_LBRACKET, TOK_RBRACKET, TOK_LPAREN,
	TOK_RPAREN, TOK_SEMI, TOK_COMMA, TOK_COLON, TOK_ASSIGN_TYPE /* := */,
	TOK_EQUAL, TOK_LT, TOK_GT, TOK_DOT, TOK_ELLIPSIS, TOK_MINUS, TOK_PLUS,
	TOK_STAR, TOK_ARROW, TOK_ERROR,
};

struct tsdl_token {
	enum tsdl_tok kind;
	int line, col;
	const char *start;	/* in the source text */
	size_t len;
	uint64_t ival;		/* TOK_INT, TOK_CHAR */
	char *sval;		/* TOK_STRING, TOK_IDENT: owned by the lexer */
	const char *err;	/* TOK_ERROR: why */
	const char *warn;	/* a warning about a valid token, or NULL */
};

struct tsdl_lexer {
	const char *p, *end;
	int line;
	const char *line_start;
	int comment_line, comment_col;	/* where the last comment began */
	/* strings handed out, freed with the lexer */
	char **strs;
	size_t nstrs, capstrs;
};

void tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len);
void tsdl_lex_free(struct tsdl_lexer *lx);
void tsdl_lex_next(struct tsdl_lexer *lx, struct tsdl_token *t);
const char *tsdl_tok_name(enum tsdl_tok k);

#endif
