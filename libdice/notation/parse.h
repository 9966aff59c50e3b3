/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parse.h - private to the notation code: the parser's state, the lexer,
 * and what the grammar (parse.c), the dice groups (parse_group.c), the
 * bounds (bounds.c) and the syntax tree (expr.c) call across files.
 *
 * Nothing here is for the rest of the engine nor for dice(1): roll.c,
 * dist*.c, api*.c and tools/dice.c see notation.h only.
 */
#ifndef _DICE_NOTATION_PARSE_H
#define _DICE_NOTATION_PARSE_H

#include <stdbool.h>
#include <string.h>

#include "notation.h"

/**
 * struct parser - the state of one notation_parse()
 * @s: the text (the expression's own copy)
 * @p: the cursor, a byte offset into @s
 * @o: the options
 * @err: where the first error goes
 * @e: the expression being built
 * @failed: an error was reported (later ones are dropped: the first one
 *	is the one that names the offending byte)
 * @depth: nesting levels entered (see lex_enter())
 */
struct parser {
	const char *s;
	size_t p;
	const struct notation_opts *o;
	struct notation_error *err;
	struct expr *e;
	bool failed;
	unsigned int depth;
};

/* ---- lex.c: the cursor, errors, numbers, compare points ------------------ */

/* The first error wins; its byte offset is where the caret goes. */
void lex_fail(struct parser *ps, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A warning that the text means something else in another roller: kept
 * once in the expression's @warnings (the caller shows them).
 */
void lex_warn(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* How to name the byte at @at in a message: 'x', or the end, or hex. */
const char *lex_what(const struct parser *ps, size_t at, char *buf,
		     size_t len);
void lex_skip_space(struct parser *ps);
/* Enter a nesting construct that starts at @at; false past the limit. */
bool lex_enter(struct parser *ps, size_t at);
void lex_leave(struct parser *ps);
/* Decimal digits at the cursor into *@v; the cursor must be on a digit. */
bool lex_number(struct parser *ps, uint64_t *v);
/* A number that must follow @after (a modifier), written in messages. */
bool lex_need_number(struct parser *ps, uint64_t *v, const char *after,
		     const char *hint);
/* An optionally negative integer within int64_t. */
bool lex_integer(struct parser *ps, int64_t *v, const char *after);
/* @c starts a compare point ('=', '<', '>'). */
bool lex_is_cmp_start(char c);
/*
 * A compare point: '=', '<', '<=', '>' or '>=' and an integer, or a bare
 * number meaning '='.  @after names what it follows, for messages.  With
 * --roll20, '<' and '>' include their number.
 */
bool lex_compare(struct parser *ps, struct cmp *c, const char *after);

static inline char lex_cur(const struct parser *ps)
{
	return ps->s[ps->p];
}

/* Step over @c if it comes next. */
static inline bool lex_skip(struct parser *ps, char c)
{
	if (lex_cur(ps) != c)
		return false;
	ps->p++;
	return true;
}

static inline char lex_peek(const struct parser *ps, size_t ahead)
{
	size_t i;

	for (i = 0; i < ahead; i++) {
		if (!ps->s[ps->p + i])
			return '\0';
	}
	return ps->s[ps->p + ahead];
}

static inline bool lex_looking_at(const struct parser *ps, const char *word)
{
	return !strncmp(ps->s + ps->p, word, strlen(word));
}

static inline bool lex_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- expr.c: the syntax tree's parts --------------------------------------- */

/* Does a face of @g (after min/max) match any / every one of @c[0..n-1]? */
bool group_any(const struct group *g, const struct cmp *c, unsigned int n);
bool group_all(const struct group *g, const struct cmp *c, unsigned int n);
/* The least and greatest face of @g, after min/max. */
val_t group_min(const struct group *g);
val_t group_max(const struct group *g);
void die_copy(struct die *to, const struct die *from);
void die_free(struct die *d);
void node_free(struct node *n);
void group_free(struct group *g);

/* ---- parse_group.c: dice groups and their modifiers ------------------------ */

struct mods;

/*
 * The group whose 'd' is at the cursor: @count dice, or as many as
 * @count_node (then @count is the most it can give); @start is where the
 * group's text starts.
 */
struct group *group_parse(struct parser *ps, uint64_t count,
			  struct node *count_node, size_t start);
/*
 * A keep/drop modifier for a pool of @pool dice (@exact: the pool is
 * always that large; otherwise it may be smaller, down to none).
 */
bool mod_keep_drop(struct parser *ps, struct keep *k, uint64_t pool,
		   bool exact, const char *what_pool, const char *noun,
		   const char *hint_s);
/*
 * A success target @s and an optional failure target @f; @m (NULL for a
 * grouped roll) collects the checks that wait for the whole group.
 */
bool mod_success(struct parser *ps, struct cmp *s, struct cmp *f,
		 struct mods *m);
/* Can a die of @g (explosions included) take a value that matches @c? */
bool group_target_possible(const struct group *g, const struct cmp *c);
/* Both compare points are intervals of integers: do they share one? */
bool mod_overlap(const struct cmp *s, const struct cmp *f);
/* Letters that start a modifier, for the "no spaces" hint. */
bool mod_char(char c);

/* ---- paste.c: what players paste ------------------------------------------ */

/*
 * @typed with pasted characters (Unicode minus, spaces, full-width forms)
 * as ASCII and rolldice's NdS*M+KsD as (NdSsD)*M+K, into *@text; *@map
 * gets, for each byte of it and one past its end, the offset of the typed
 * byte it came from.  True when *@text differs from @typed.
 */
bool paste_text(const char *typed, char **text, size_t **map);
/* Lower-case @s, but for labels, the comment and the dice dF and dW. */
void paste_fold(char *s);

/* ---- bounds.c ---------------------------------------------------------------- */

/* Set @n->lo and @n->hi from its kids' (which must be set already). */
void bound_node(struct node *n);

#endif /* _DICE_NOTATION_PARSE_H */
