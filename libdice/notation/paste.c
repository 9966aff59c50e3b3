// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * paste.c - what players paste, made into the notation the grammar reads,
 * before parsing
 *
 * Text copied from a chat, a character sheet or a word processor carries
 * characters a keyboard does not: U+2212 MINUS SIGN and dashes for '-',
 * U+00D7 for '*', no-break and thin spaces, and full-width forms (U+FF01 to
 * U+FF5E: '３ｄ６＋２').  paste_text() writes each as its ASCII character;
 * every other byte is left alone, so what is still not ASCII is refused
 * by the parser, naming the byte.
 *
 * rolldice(6) writes its modifiers in a fixed order after one group,
 * NdS*M+KsD, and drops the lowest D dice before it multiplies and adds:
 * that whole shape is read as (NdSsD)*M+K, and shown so.
 *
 * Every byte of the result remembers the byte of the typed text it came
 * from (@map), so that an error points at what the player typed.  Case is
 * not changed here (labels and comments keep theirs); paste_fold() gives
 * the lower-case copy the parser reads.
 */
#include <ctype.h>
#include <string.h>

#include "parse.h"

struct paste_buf {
	char *s;
	size_t *map;
	size_t n, cap;
};

static void paste_put(struct paste_buf *b, char c, size_t from)
{
	if (b->n + 1 >= b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->s = xrealloc(b->s, b->cap, 1);
		b->map = xrealloc(b->map, b->cap, sizeof(*b->map));
	}
	b->s[b->n] = c;
	b->map[b->n] = from;
	b->n++;
	b->s[b->n] = '\0';
	b->map[b->n] = from + 1;
}

/*
 * The ASCII character the UTF-8 sequence at @s stands for, with its length
 * in *@len; 0 when it is not one of those paste_text() rewrites.
 */
static char paste_char(const unsigned char *s, size_t *len)
{
	unsigned int cp;

	if (s[0] == 0xc2 && s[1] == 0xa0) {		/* no-break space */
		*len = 2;
		return ' ';
	}
	if (s[0] == 0xc3 && s[1] == 0x97) {		/* U+00D7 times */
		*len = 2;
		return '*';
	}
	if ((s[0] & 0xf0) != 0xe0 || (s[1] & 0xc0) != 0x80 ||
	    (s[2] & 0xc0) != 0x80)
		return 0;
	cp = (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	*len = 3;
	if (cp >= 0xff01 && cp <= 0xff5e)		/* full-width forms */
		return (char)(cp - 0xff01 + 0x21);
	switch (cp) {
	case 0x2212:	/* minus sign */
	case 0x2010:	/* hyphen */
	case 0x2011:	/* non-breaking hyphen */
	case 0x2012:	/* figure dash */
	case 0x2013:	/* en dash */
	case 0x2014:	/* em dash */
	case 0xfe63:	/* small hyphen-minus */
		return '-';
	case 0x2007:	/* figure space */
	case 0x2008:	/* punctuation space */
	case 0x2009:	/* thin space */
	case 0x200a:	/* hair space */
	case 0x202f:	/* narrow no-break space */
	case 0x3000:	/* ideographic space */
		return ' ';
	case 0x2217:	/* asterisk operator */
	case 0x22c5:	/* dot operator */
		return '*';
	}
	return 0;
}

/*
 * rolldice's NdS*M+KsD (with *M, +K or both; N, Nx and d% as usual) over
 * the whole text: the offsets of its parts, or false.
 */
struct paste_rolldice {
	size_t group;		/* where NdS starts, after Nx */
	size_t group_end;	/* just past NdS */
	size_t mods, mods_end;	/* *M+K */
	size_t s, s_end;	/* sD */
};

static size_t paste_digits(const char *t, size_t i)
{
	while (isdigit((unsigned char)t[i]))
		i++;
	return i;
}

static bool paste_is_rolldice(const char *t, struct paste_rolldice *r)
{
	size_t i = 0, j;

	while (t[i] == ' ' || t[i] == '\t')
		i++;
	j = paste_digits(t, i);
	if (j > i && (t[j] == 'x' || t[j] == 'X'))
		i = j + 1;
	r->group = i;
	i = paste_digits(t, i);
	if (t[i] != 'd' && t[i] != 'D')
		return false;
	i++;
	if (t[i] == '%') {
		i++;
	} else {
		j = paste_digits(t, i);
		if (j == i)
			return false;
		i = j;
	}
	r->group_end = r->mods = i;
	if (t[i] == '*') {
		j = paste_digits(t, i + 1);
		if (j == i + 1)
			return false;
		i = j;
	}
	if (t[i] == '+' || t[i] == '-') {
		j = paste_digits(t, i + 1);
		if (j == i + 1)
			return false;
		i = j;
	}
	if (i == r->mods || (t[i] != 's' && t[i] != 'S'))
		return false;
	r->mods_end = r->s = i;
	j = paste_digits(t, i + 1);
	if (j == i + 1)
		return false;
	r->s_end = j;
	while (t[j] == ' ' || t[j] == '\t')
		j++;
	return !t[j];
}

bool paste_text(const char *typed, char **text, size_t **map)
{
	struct paste_buf b = { 0 }, r = { 0 };
	struct paste_rolldice rd;
	bool changed = false;
	size_t i, len;

	for (i = 0; typed[i]; ) {
		char c = paste_char((const unsigned char *)typed + i, &len);

		if (c) {
			paste_put(&b, c, i);
			b.map[b.n] = i + len;
			i += len;
			changed = true;
		} else {
			paste_put(&b, typed[i], i);
			i++;
		}
	}
	if (!b.s) {		/* the empty text */
		paste_put(&b, ' ', 0);
		b.n = 0;
		b.s[0] = '\0';
	}
	if (paste_is_rolldice(b.s, &rd)) {
		/* [Nx] ( NdS sD ) *M+K */
		for (i = 0; i < rd.group; i++)
			paste_put(&r, b.s[i], b.map[i]);
		paste_put(&r, '(', b.map[rd.group]);
		for (i = rd.group; i < rd.group_end; i++)
			paste_put(&r, b.s[i], b.map[i]);
		for (i = rd.s; i < rd.s_end; i++)
			paste_put(&r, b.s[i], b.map[i]);
		paste_put(&r, ')', b.map[rd.s]);
		for (i = rd.mods; i < rd.mods_end; i++)
			paste_put(&r, b.s[i], b.map[i]);
		for (i = rd.s_end; i < b.n; i++)
			paste_put(&r, b.s[i], b.map[i]);
		xfree(b.s);
		xfree(b.map);
		b = r;
		changed = true;
	}
	*text = b.s;
	*map = b.map;
	return changed;
}

void paste_fold(char *s)
{
	bool label = false;
	size_t i;

	for (i = 0; s[i] && s[i] != '#'; i++) {
		if (label) {
			label = s[i] != ']';
			continue;
		}
		if (s[i] == '[') {
			label = true;
			continue;
		}
		s[i] = (char)tolower((unsigned char)s[i]);
		/*
		 * the dice dF and dW keep their capitals: a 'd' that is not
		 * the end of a word ("oddf1" is odd, then f1), or after the
		 * repeat ("6xdF")
		 */
		if (i && s[i - 1] == 'd' && (s[i] == 'f' || s[i] == 'w') &&
		    (i < 2 || !isalpha((unsigned char)s[i - 2]) ||
		     (s[i - 2] == 'x' && i >= 3 &&
		      isdigit((unsigned char)s[i - 3]))))
			s[i] = (char)toupper((unsigned char)s[i]);
	}
}
