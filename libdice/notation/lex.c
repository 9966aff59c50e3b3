// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lex.c - the lexer of dice notation: the cursor, errors that point at a
 * byte, nesting depth, numbers and compare points
 *
 * Every error goes through lex_fail(), which keeps the first one only: the
 * first is the one whose byte offset the caret points at, and later ones
 * are consequences of it.  Numbers are read digit by digit with an
 * overflow check, never with strtoull(), which would accept signs, spaces
 * and prefixes the grammar does not have.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* ---- errors ------------------------------------------------------------ */

void lex_fail(struct parser *ps, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	ps->err->offset = at;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
}

void lex_warn(struct parser *ps, const char *fmt, ...)
{
	struct expr *e = ps->e;
	char msg[320];
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < e->nwarnings; i++) {
		if (!strcmp(e->warnings[i], msg))
			return;
	}
	e->warnings = xrealloc(e->warnings, e->nwarnings + 1,
			       sizeof(*e->warnings));
	e->warnings[e->nwarnings++] = xstrdup(msg);
}

/* How to name the byte at @at in a message: 'x', or the end, or hex. */
const char *lex_what(const struct parser *ps, size_t at, char *buf,
			size_t len)
{
	unsigned char c = (unsigned char)ps->s[at];

	if (!c)
		snprintf(buf, len, "end of expression");
	else if (isgraph(c))
		snprintf(buf, len, "'%c'", c);
	else if (c == ' ')
		snprintf(buf, len, "space");
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

void lex_skip_space(struct parser *ps)
{
	while (lex_is_space(lex_cur(ps)))
		ps->p++;
}

/* Enter a nesting construct that starts at @at; false past the limit. */
bool lex_enter(struct parser *ps, size_t at)
{
	if (++ps->depth > DICE_MAX_DEPTH) {
		lex_fail(ps, at, "nested too deeply (more than %d levels of parentheses, braces, functions and signs)",
			 DICE_MAX_DEPTH);
		return false;
	}
	return true;
}

void lex_leave(struct parser *ps)
{
	ps->depth--;
}

/* ---- numbers ----------------------------------------------------------- */

/* Decimal digits at the cursor into *@v; the cursor must be on a digit. */
bool lex_number(struct parser *ps, uint64_t *v)
{
	size_t start = ps->p;
	uint64_t x = 0;

	while (isdigit((unsigned char)lex_cur(ps))) {
		unsigned int dgt = (unsigned int)(lex_cur(ps) - '0');

		if (x > (UINT64_MAX - dgt) / 10) {
			lex_fail(ps, start, "number too large");
			return false;
		}
		x = x * 10 + dgt;
		ps->p++;
	}
	*v = x;
	return true;
}

/* A number that must follow @after (a modifier), written in messages. */
bool lex_need_number(struct parser *ps, uint64_t *v, const char *after,
			const char *hint)
{
	char buf[32];

	if (!isdigit((unsigned char)lex_cur(ps))) {
		lex_fail(ps, ps->p, "expected a number after '%s' but found %s%s",
			 after, lex_what(ps, ps->p, buf, sizeof(buf)), hint);
		return false;
	}
	return lex_number(ps, v);
}

/* An optionally negative integer within int64_t. */
bool lex_integer(struct parser *ps, int64_t *v, const char *after)
{
	size_t start = ps->p;
	bool neg = false;
	uint64_t u;

	if (lex_cur(ps) == '-') {
		neg = true;
		ps->p++;
	}
	/* "- 1" is a minus sign apart from its number: say which */
	if (!lex_need_number(ps, &u, neg ? "-" : after, ""))
		return false;
	if (u > (uint64_t)INT64_MAX + neg) {
		lex_fail(ps, start, "number too large");
		return false;
	}
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

/*
 * A compare point: '=', '<', '<=', '>' or '>=' and an integer, or a bare
 * number meaning '='.  @after names what it follows, for messages.  With
 * --roll20, '<' and '>' include their number.
 */
bool lex_is_cmp_start(char c)
{
	return c == '=' || c == '<' || c == '>';
}

bool lex_compare(struct parser *ps, struct cmp *c, const char *after)
{
	static const char *const names[] = {
		[CMP_NONE] = "", [CMP_EQ] = "=", [CMP_LT] = "<",
		[CMP_LE] = "<=", [CMP_GT] = ">", [CMP_GE] = ">=",
	};
	char buf[32];
	size_t q = ps->p;
	int64_t n;

	while (lex_is_space(ps->s[q]))		/* "f 1", "r < 3" */
		q++;
	if (q != ps->p && (lex_is_cmp_start(ps->s[q]) ||
			   isdigit((unsigned char)ps->s[q])))
		ps->p = q;
	switch (lex_cur(ps)) {
	case '=':
		c->op = CMP_EQ;
		ps->p++;
		break;
	case '<':
		ps->p++;
		c->op = lex_skip(ps, '=') ? CMP_LE : CMP_LT;
		break;
	case '>':
		ps->p++;
		c->op = lex_skip(ps, '=') ? CMP_GE : CMP_GT;
		break;
	default:
		if (!isdigit((unsigned char)lex_cur(ps))) {
			lex_fail(ps, ps->p,
				 "expected a compare point such as 1, <3 or >=5 after '%s' but found %s",
				 after, lex_what(ps, ps->p, buf, sizeof(buf)));
			return false;
		}
		c->op = CMP_EQ;
		break;
	}
	if (c->op != CMP_EQ || lex_is_space(lex_cur(ps))) {
		q = ps->p;		/* "3d6 >= 5" */
		while (lex_is_space(ps->s[q]))
			q++;
		if (isdigit((unsigned char)ps->s[q]) || ps->s[q] == '-')
			ps->p = q;
	}
	if (!lex_integer(ps, &n, names[c->op]))
		return false;
	c->n = n;
	if (notation_default(ps->o) && (c->op == CMP_GT || c->op == CMP_LT))
		lex_warn(ps, "'%s%lld' means %s %lld here (as on Foundry and Avrae); Roll20 reads it as %lld or %s: use --roll20, or write %s=%lld for that",
			 names[c->op], (long long)n,
			 c->op == CMP_GT ? "more than" : "less than",
			 (long long)n, (long long)n,
			 c->op == CMP_GT ? "more" : "less", names[c->op],
			 (long long)n);
	if (ps->o->roll20 && c->op == CMP_GT)
		c->op = CMP_GE;
	if (ps->o->roll20 && c->op == CMP_LT)
		c->op = CMP_LE;
	return true;
}
