// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parse.c - the grammar of dice notation (see notation.h): expressions,
 * terms, unary minus, labels, functions, grouped rolls and computed
 * counts, and notation_parse()
 *
 * A recursive-descent parser.  It accepts what it fully understands and
 * nothing else: every other input is an error that names the offending
 * byte, and nothing is ever guessed (no default die for garbage, no
 * silent reordering, no clamping).
 *
 * Recursion follows nesting only (parentheses, braces, functions, unary
 * minus, computed counts), which DICE_MAX_DEPTH bounds; chains of
 * operators are read in loops into n-ary nodes, so a sum of a hundred
 * thousand terms is as shallow as one of two.  Dice groups are read by
 * parse_group.c, numbers and compare points by lex.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* ---- expressions ------------------------------------------------------- */

static struct node *parse_new_node(struct parser *ps, enum node_type type,
				   size_t start)
{
	struct node *n;

	if (ps->e->nnodes >= DICE_MAX_NODES) {
		lex_fail(ps, start, "expression too long: more than %u numbers, dice groups and operators",
			 DICE_MAX_NODES);
		return NULL;
	}
	ps->e->nnodes++;
	n = xcalloc(1, sizeof(*n));
	n->type = type;
	n->start = start;
	return n;
}


static void node_add_kid(struct node *n, struct node *kid, char op)
{
	if (!(n->nkids & (n->nkids - 1)) || n->nkids < 4) {
		/* grow at powers of two */
		unsigned int cap = n->nkids < 4 ? 4 : n->nkids * 2;

		n->kids = xrealloc(n->kids, cap, sizeof(*n->kids));
		n->ops = xrealloc(n->ops, cap, 1);
	}
	n->kids[n->nkids] = kid;
	n->ops[n->nkids] = op;
	n->nkids++;
}

static struct node *parse_expr(struct parser *ps);
static struct node *parse_term(struct parser *ps);
static struct node *parse_unary(struct parser *ps);

static void parse_unexpected(struct parser *ps, const char *expected)
{
	char buf[32];
	size_t at = ps->p;
	char c = lex_cur(ps);
	const char *hint = "";

	if (c == 'x')
		hint = " (a repeat, as in 6x3d6, goes only at the start)";
	else if (c == '/')	/* rolldice(6) documents no '/' either */
		hint = " (division must be rounded: write floor(A/B), ceil(A/B) or round(A/B), as in floor(3d6/2))";
	else if (c == '}')
		hint = " (no '{' opens this '}')";
	else if (c == '[' && ps->s[at + 1] == '[')
		hint = " (an inline roll [[...]] is read alone, closed by ']]')";
	else if (c == '[')
		hint = " (a label [...] follows a number, a dice group or ')')";
	else if (at && mod_char(c) && ps->s[at - 1] != '(' &&
		 !strchr("+-*%,{", ps->s[at - 1]))
		hint = " (modifiers must directly follow their dice group, as in 4d6s1+2)";
	else if (isalpha((unsigned char)c))
		hint = " (functions: floor, ceil, round, abs, max, min)";
	if (!c && at) {
		lex_fail(ps, at, "expression ends too early: expected %s", expected);
		return;
	}
	lex_fail(ps, at, "unexpected %s: expected %s%s",
		 lex_what(ps, at, buf, sizeof(buf)), expected, hint);
}

/*
 * The closing @c of what opened at @open: stepped over, and the nesting
 * left; or false, with the message.
 */
static bool parse_closing(struct parser *ps, char c, size_t open,
			  const char *expected)
{
	if (lex_skip(ps, c)) {
		lex_leave(ps);
		return true;
	}
	if (!lex_cur(ps))
		lex_fail(ps, open, "missing '%c' for this '%c'", c,
			 c == ')' ? '(' : '{');
	else
		parse_unexpected(ps, expected);
	return false;
}

static bool parse_count_dice(struct parser *ps, struct group *g)
{
	struct expr *e = ps->e;

	if (g->count > ps->o->max_dice ||
	    e->ndice + g->count > ps->o->max_dice) {
		lex_fail(ps, g->start,
			 "too many dice: more than %llu in one expression (see --max-dice)",
			 (unsigned long long)ps->o->max_dice);
		return false;
	}
	e->ndice += g->count;
	return true;
}

static struct node *parse_group_node(struct parser *ps, uint64_t count,
				     struct node *count_node, size_t start)
{
	struct group *g = group_parse(ps, count, count_node, start);
	struct expr *e = ps->e;
	struct node *n;

	if (!g) {
		node_free(count_node);
		return NULL;
	}
	if (!(e->ngroups & (e->ngroups - 1)))
		e->groups = xrealloc(e->groups, e->ngroups ? e->ngroups * 2 : 1,
				     sizeof(*e->groups));
	g->index = e->ngroups;
	e->groups[e->ngroups++] = g;
	if (!parse_count_dice(ps, g))
		return NULL;
	n = parse_new_node(ps, NODE_GROUP, start);
	if (!n)
		return NULL;
	n->group = g;
	n->end = ps->p;
	bound_node(n);
	return n;
}

/* (EXPR)dS: @cn, just read, is the count. */
static struct node *parse_computed_group(struct parser *ps, struct node *cn)
{
	char lo[VAL_BUFSZ];

	if (cn->lo < 0) {
		lex_fail(ps, cn->start, "the number of dice can be negative (down to %s)",
			 val_str(cn->lo, lo));
		node_free(cn);
		return NULL;
	}
	if (cn->hi < 1) {
		lex_fail(ps, cn->start,
			 "a dice group needs at least one die (this count is always 0)");
		node_free(cn);
		return NULL;
	}
	if (cn->hi > (val_t)ps->o->max_dice) {
		lex_fail(ps, cn->start,
			 "too many dice: the count can exceed %llu (see --max-dice)",
			 (unsigned long long)ps->o->max_dice);
		node_free(cn);
		return NULL;
	}
	return parse_group_node(ps, (uint64_t)cn->hi, cn, cn->start);
}

/* Add a pooled brace's group or constant @k, with sign @op; false if not. */
static bool parse_pool_part(struct parser *ps, struct brace *br, struct node *k,
			    char op)
{
	if (op != '+' || k->paren || k->label)
		return false;
	if (k->type == NODE_CONST) {
		if (__builtin_add_overflow(br->constant, k->value, &br->constant)) {
			lex_fail(ps, k->start, "number too large");
			return false;
		}
		return true;
	}
	if (k->type != NODE_GROUP)
		return false;
	if (k->group->success.op != CMP_NONE || k->group->match_count) {
		lex_fail(ps, k->start,
			 "a dice group inside {...} cannot count successes or matches: put the target after the '}'");
		return false;
	}
	br->groups = xrealloc(br->groups, br->ngroups + 1, sizeof(*br->groups));
	br->groups[br->ngroups++] = k->group;
	br->ndice += k->group->count;
	return true;
}

/*
 * Can an element of @br (@n) take a value that matches @c?  Its dice
 * when pooled, else the elements' totals.
 */
static bool brace_target_possible(const struct node *n, const struct brace *br,
				  const struct cmp *c)
{
	unsigned int i;

	for (i = 0; br->pooled && i < br->ngroups; i++) {
		if (group_target_possible(br->groups[i], c))
			return true;
	}
	for (i = 0; !br->pooled && i < n->nkids; i++) {
		val_t lo = n->kids[i]->lo, hi = n->kids[i]->hi;

		if ((c->op == CMP_EQ && c->n >= lo && c->n <= hi) ||
		    (c->op != CMP_EQ && (cmp_match(c, lo) || cmp_match(c, hi))))
			return true;
	}
	return false;
}

/*
 * The '{' is at the cursor; or, for Avrae's set (a, b) (README of
 * github.com/avrae/d20: a set of expressions, kept and dropped by its
 * selectors, (3d6,) a set of one), @first is its first element, read
 * after the '(' at @start, and the cursor is on the ',' after it.  A set
 * is never pooled, and a comparison after it compares its total.
 */
static struct node *parse_brace(struct parser *ps, size_t start,
				struct node *first)
{
	bool set = first != NULL;
	char close = set ? ')' : '}';
	struct node *n = parse_new_node(ps, NODE_BRACE, start);
	struct brace *br;
	struct expr *e = ps->e;
	char buf[32];
	bool simple;
	unsigned int i;

	if (!n) {
		node_free(first);
		return NULL;
	}
	br = n->brace = xcalloc(1, sizeof(*br));
	br->start = start;
	if (set)
		node_add_kid(n, first, ',');
	else if (!lex_enter(ps, start))
		goto bad;
	ps->p++;		/* '{', or the set's first ',' */
	for (;;) {
		struct node *k;

		lex_skip_space(ps);
		if (!set || lex_cur(ps) != ')') {	/* (3d6,) */
			k = parse_expr(ps);
			if (!k)
				goto bad;
			node_add_kid(n, k, ',');
			lex_skip_space(ps);
			if (lex_skip(ps, ','))
				continue;
		}
		if (!parse_closing(ps, close, start, set ?
				   "an operator, ',' or ')'" :
				   "an operator, ',' or '}'"))
			goto bad;
		break;
	}
	br->mods = ps->p;

	/* one element made of dice groups and constants joined by '+' */
	if (n->nkids == 1 && !set) {
		struct node *k = n->kids[0];

		br->pooled = true;
		if (k->type == NODE_SUM && !k->paren && !k->label) {
			simple = true;
			for (i = 0; i < k->nkids && simple && !ps->failed; i++)
				simple = parse_pool_part(ps, br, k->kids[i], k->ops[i]);
		} else {
			simple = parse_pool_part(ps, br, k, '+');
		}
		if (ps->failed)
			goto bad;
		if (!simple || !br->ngroups) {
			br->pooled = false;
			br->ngroups = 0;
			br->ndice = 0;
			br->constant = 0;
		}
	}

	for (;;) {
		char c = lex_cur(ps);

		if (set && ps->o->avrae && c == 'k' &&
		    isdigit((unsigned char)lex_peek(ps, 1))) {
			lex_fail(ps, ps->p,
				 "Avrae's k and a bare number keep the elements equal to it, which dice does not do on a set: write kh or kl");
			goto bad;
		}
		if (br->success.op != CMP_NONE && c &&
		    strchr("kd<>=f", c)) {
			lex_fail(ps, ps->p,
				 "the success target must be the last modifier of a grouped roll");
			goto bad;
		}
		if (c == 'k' || c == 'd' ||
		    (c == 'p' && (lex_peek(ps, 1) == 'h' ||
				       lex_peek(ps, 1) == 'l'))) {
			uint64_t pool = br->pooled ? br->ndice : n->nkids;

			if (!mod_keep_drop(ps, &br->keep, pool, true, "grouped roll",
					   br->pooled ? "dice" : "elements", ""))
				goto bad;
		} else if (lex_is_cmp_start(c) && !set) {
			size_t at = ps->p;

			if (!mod_success(ps, &br->success, &br->failure, NULL))
				goto bad;
			if (br->failure.op != CMP_NONE &&
			    mod_overlap(&br->success, &br->failure)) {
				lex_fail(ps, at, "a value cannot count as both a success and a failure");
				goto bad;
			}
			if (br->pooled && br->constant) {
				lex_fail(ps, at,
					 "a success target on {...} with a constant inside is ambiguous (Roll20 and rpg-dice-roller differ): move the constant out");
				goto bad;
			}
			if (!brace_target_possible(n, br, &br->success)) {
				cmp_str(&br->success, buf, sizeof(buf));
				lex_fail(ps, at, "success target '%s' matches no value %s can take",
					 buf, br->pooled ?
					 "a die of the grouped roll" :
					 "an element");
				goto bad;
			}
		} else if (c == 'f') {
			lex_fail(ps, ps->p,
				 "'f' (failures) needs a success target first, as in {3d6,4d6}>10f5");
			goto bad;
		} else {
			break;
		}
	}
	if (isalpha((unsigned char)lex_cur(ps)) || lex_cur(ps) == '!') {
		lex_fail(ps, ps->p,
			 "unexpected %s: a grouped roll {...} takes only keep/drop (kh, kl, dh, dl) and a success target",
			 lex_what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	if (n->nkids == 1 && !br->pooled && br->keep.mode != KEEP_ALL &&
	    n->kids[0]->type == NODE_SUM) {
		lex_fail(ps, start,
			 "keep/drop on one {...} element needs dice groups and constants joined by '+' (use {A, B} to compare totals)");
		goto bad;
	}
	br->end = ps->p;
	br->index = e->nbraces;
	e->braces = xrealloc(e->braces, e->nbraces + 1, sizeof(*e->braces));
	e->braces[e->nbraces++] = br;
	n->end = ps->p;
	bound_node(n);
	return n;
bad:
	node_free(n);
	return NULL;
}

static const struct {
	const char *name;
	enum func_type func;
} funcs[] = {
	{ "floor", FUNC_FLOOR },
	{ "ceil", FUNC_CEIL },
	{ "round", FUNC_ROUND },
	{ "abs", FUNC_ABS },
	{ "max", FUNC_MAX },
	{ "min", FUNC_MIN },
};

static struct node *parse_sum_rest(struct parser *ps, struct node *first);

/*
 * Avrae's comparisons X >= Y, X <= Y, X > Y, X < Y, X == Y and X != Y
 * (README of github.com/avrae/d20), after the sum @left if one follows:
 * 1 when it holds, else 0.  A node of its own: X and Y are compared as
 * they are, never through X - Y (which may pass 128 bits, or span more
 * values than a distribution may, where X and Y do not).
 */
static struct node *parse_comparison(struct parser *ps, struct node *left)
{
	static const struct {
		const char *text;
		enum cmp_op op;
	} ops[] = {
		{ ">=", CMP_GE }, { "<=", CMP_LE }, { "==", CMP_EQ },
		{ "!=", CMP_EQ }, { ">", CMP_GT }, { "<", CMP_LT },
	};
	struct node *right, *n;
	unsigned int i;

	lex_skip_space(ps);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (lex_looking_at(ps, ops[i].text))
			break;
	}
	if (i == ARRAY_SIZE(ops))
		return left;
	ps->p += strlen(ops[i].text);
	lex_skip_space(ps);
	right = parse_expr(ps);
	if (!right) {
		node_free(left);
		return NULL;
	}
	n = parse_new_node(ps, NODE_CMP, left->start);
	if (!n) {
		node_free(left);
		node_free(right);
		return NULL;
	}
	node_add_kid(n, left, ' ');
	node_add_kid(n, right, ' ');
	n->cmp = ops[i].op;
	n->cmp_not = !strcmp(ops[i].text, "!=");
	n->end = right->end;
	bound_node(n);
	return n;
}

/* A function name is at the cursor, followed by '('. */
static struct node *parse_func(struct parser *ps, unsigned int which)
{
	size_t start = ps->p, open;
	struct node *n = parse_new_node(ps, NODE_FUNC, start), *k;

	if (!n)
		return NULL;
	n->func = funcs[which].func;
	ps->p += strlen(funcs[which].name);
	open = ps->p;
	if (!lex_enter(ps, start))
		goto bad;
	ps->p++;	/* '(' */
	lex_skip_space(ps);
	if (n->func == FUNC_MAX || n->func == FUNC_MIN) {
		for (;;) {		/* max(A, B, ...) */
			k = parse_expr(ps);
			if (!k)
				goto bad;
			node_add_kid(n, k, ',');
			lex_skip_space(ps);
			if (!lex_skip(ps, ','))
				break;
		}
		goto close;
	}
	k = parse_term(ps);
	if (!k)
		goto bad;
	lex_skip_space(ps);
	if (lex_cur(ps) == '/') {
		size_t slash = ps->p;

		node_add_kid(n, k, 0);
		if (n->func == FUNC_ABS) {
			lex_fail(ps, slash, "division must be rounded: write floor(A/B), ceil(A/B) or round(A/B), as in floor(3d6/2)");
			goto bad;
		}
		ps->p++;
		lex_skip_space(ps);
		k = parse_unary(ps);
		if (!k)
			goto bad;
		node_add_kid(n, k, '/');
		lex_skip_space(ps);
		if (lex_cur(ps) && strchr("+-*%/", lex_cur(ps))) {
			lex_fail(ps, ps->p,
				 "division must be the last operation inside %s(): write %s(A/B) with A and B in parentheses as needed",
				 funcs[which].name, funcs[which].name);
			goto bad;
		}
	} else {
		k = parse_sum_rest(ps, k);
		if (!k)
			goto bad;
		node_add_kid(n, k, 0);
	}
	lex_skip_space(ps);
	if (lex_cur(ps) == '/') {
		lex_fail(ps, ps->p,
			 "division must be the whole argument of %s(): write %s(A/B), with A in parentheses if it is a sum",
			 funcs[which].name, funcs[which].name);
		goto bad;
	}
close:
	if (!parse_closing(ps, ')', open, n->func == FUNC_MAX ||
			   n->func == FUNC_MIN ? "an operator, ',' or ')'" :
			   "an operator or ')'"))
		goto bad;
	n->end = ps->p;
	bound_node(n);
	return n;
bad:
	node_free(n);
	return NULL;
}

static struct node *parse_factor(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n;
	uint64_t v = 1;
	unsigned int i;

	if (lex_cur(ps) == '(') {
		if (!lex_enter(ps, start))
			return NULL;
		ps->p++;
		n = parse_expr(ps);
		if (!n)
			return NULL;
		lex_skip_space(ps);
		if (lex_cur(ps) == ',')	/* Avrae's set */
			return parse_brace(ps, start, n);
		n = parse_comparison(ps, n);
		if (!n)
			return NULL;
		lex_skip_space(ps);
		if (!parse_closing(ps, ')', start, "an operator, ',' or ')'")) {
			node_free(n);
			return NULL;
		}
		n->paren = 1;
		n->start = start;
		n->end = ps->p;
		if (lex_cur(ps) == 'd')
			return parse_computed_group(ps, n);
		return n;
	}
	if (lex_cur(ps) == '{')
		return parse_brace(ps, ps->p, NULL);
	if (isdigit((unsigned char)lex_cur(ps))) {
		if (!lex_number(ps, &v))
			return NULL;
		if (lex_cur(ps) != 'd') {	/* up to 2^64 - 1, as faces */
			n = parse_new_node(ps, NODE_CONST, start);
			if (!n)
				return NULL;
			n->value = v;
			n->end = ps->p;
			bound_node(n);
			return n;
		}
		if (!v) {
			lex_fail(ps, start,
				 "a dice group needs at least one die (0d rolls nothing)");
			return NULL;
		}
	}
	if (lex_cur(ps) == 'd')
		return parse_group_node(ps, v, NULL, start);
	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		size_t len = strlen(funcs[i].name);

		if (!strncmp(ps->s + ps->p, funcs[i].name, len) &&
		    ps->s[ps->p + len] == '(')
			return parse_func(ps, i);
	}
	parse_unexpected(ps, "a number, dice such as 3d6, '(' or '{'");
	return NULL;
}

/* [text] after a factor */
static bool parse_label(struct parser *ps, struct node *n)
{
	size_t open = ps->p, len;
	const char *close;

	while (lex_is_space(ps->s[open]))	/* "3d6 [str]" */
		open++;
	if (ps->s[open] != '[')
		return true;
	close = strchr(ps->s + open, ']');
	if (!close) {
		lex_fail(ps, open, "missing ']' for this '['");
		return false;
	}
	len = (size_t)(close - (ps->s + open)) - 1;
	if (n->label) {
		lex_fail(ps, open, "more than one label");
		return false;
	}
	n->label = xmalloc(len + 1);
	memcpy(n->label, ps->s + open + 1, len);
	n->label[len] = '\0';
	ps->p = open + len + 2;
	n->end = ps->p;
	return true;
}

/*
 * A power after the base @base, if '^' or '**' follows: the exponent is a
 * unary (so 2^-1 reads, and is refused) and powers group to the right
 * (2^3^2 is 2^9); -2^2 is -(2^2), as in mathematics.
 */
static struct node *parse_power(struct parser *ps, struct node *base)
{
	size_t q = ps->p, op;
	struct node *n, *k;

	while (lex_is_space(ps->s[q]))
		q++;
	if (ps->s[q] != '^' && !(ps->s[q] == '*' && ps->s[q + 1] == '*'))
		return base;
	op = q;
	ps->p = q + (ps->s[q] == '^' ? 1 : 2);
	lex_skip_space(ps);
	if (!lex_enter(ps, op)) {
		node_free(base);
		return NULL;
	}
	k = parse_unary(ps);
	lex_leave(ps);
	if (!k) {
		node_free(base);
		return NULL;
	}
	if (k->lo < 0) {
		lex_fail(ps, k->start,
			 "the exponent can be negative, and a power must be a whole number: the exponent must be 0 or more");
		node_free(base);
		node_free(k);
		return NULL;
	}
	n = parse_new_node(ps, NODE_POW, base->start);
	if (!n) {
		node_free(base);
		node_free(k);
		return NULL;
	}
	node_add_kid(n, base, 0);
	node_add_kid(n, k, '^');
	n->end = k->end;
	bound_node(n);
	return n;
}

static struct node *parse_unary(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n, *k;

	if (lex_cur(ps) == '-') {
		if (!lex_enter(ps, start))
			return NULL;
		ps->p++;
		lex_skip_space(ps);
		k = parse_unary(ps);
		lex_leave(ps);
		if (!k)
			return NULL;
		n = parse_new_node(ps, NODE_NEG, start);
		if (!n) {
			node_free(k);
			return NULL;
		}
		node_add_kid(n, k, 0);
		n->end = k->end;
		bound_node(n);
		return n;
	}
	n = parse_factor(ps);
	if (n && !parse_label(ps, n)) {
		node_free(n);
		return NULL;
	}
	return n ? parse_power(ps, n) : NULL;
}

/*
 * The rest of a flat chain of one precedence level (a sum of terms, a
 * product of factors) whose first operand, @first, was just read: one node
 * of @type whatever its length, so a 40,000-term sum is no deeper than a
 * two-term one.  @ops are the level's operators, @first_op the one implied
 * before @first; @operand reads the next operand.
 */
static struct node *parse_chain_rest(struct parser *ps, struct node *first,
				     enum node_type type, const char *ops,
				     char first_op,
				     struct node *(*operand)(struct parser *))
{
	struct node *n = NULL;

	for (;;) {
		struct node *r;
		char op;

		lex_skip_space(ps);
		op = lex_cur(ps);
		if (!op || !strchr(ops, op))
			break;
		ps->p++;
		lex_skip_space(ps);
		r = operand(ps);
		if (!r)
			goto bad;
		if (!n) {
			n = parse_new_node(ps, type, first->start);
			if (!n) {
				node_free(r);
				goto bad;
			}
			node_add_kid(n, first, first_op);
			first = NULL;
		}
		node_add_kid(n, r, op);
		n->end = r->end;
	}
	if (!n)
		return first;
	bound_node(n);
	return n;
bad:
	node_free(first);
	node_free(n);
	return NULL;
}

static struct node *parse_term(struct parser *ps)
{
	struct node *l = parse_unary(ps);

	return l ? parse_chain_rest(ps, l, NODE_PRODUCT, "*%", '*', parse_unary) : NULL;
}

/* The rest of a sum whose first term, @first, was just read. */
static struct node *parse_sum_rest(struct parser *ps, struct node *first)
{
	return parse_chain_rest(ps, first, NODE_SUM, "+-", '+', parse_term);
}

static struct node *parse_expr(struct parser *ps)
{
	struct node *first;

	lex_skip_space(ps);
	first = parse_term(ps);
	if (!first)
		return NULL;
	return parse_sum_rest(ps, first);
}


/* ---- entry points ------------------------------------------------------ */

/* @s starts with @word, in either case, and a space or tab follows it. */
static bool parse_chat_word(const char *s, const char *word)
{
	size_t len = strlen(word);

	return !strncasecmp(s, word, len) && lex_is_space(s[len]);
}

/*
 * A roll as pasted from a chat: the command /r or /roll (Roll20, Foundry)
 * or !r or !roll (Avrae) before it, or Roll20's inline roll [[...]] around
 * it.  They are blanked out in @s (offsets do not move, so errors point
 * at the typed text); the roll is read as if typed alone.
 */
static void parse_strip_chat(char *s)
{
	static const char *const commands[] = { "/roll", "/r", "!roll", "!r" };
	size_t i = 0, j, close = 0;

	while (lex_is_space(s[i]))
		i++;
	for (j = 0; j < ARRAY_SIZE(commands); j++) {
		if (parse_chat_word(s + i, commands[j])) {
			memset(s + i, ' ', strlen(commands[j]));
			break;
		}
	}
	while (lex_is_space(s[i]))
		i++;
	if (strncmp(s + i, "[[", 2))
		return;
	/* the last "]]", with nothing but spaces or a comment after it */
	for (j = i + 2; s[j] && s[j] != '#'; j++) {
		if (s[j] == ']' && s[j + 1] == ']')
			close = j;
	}
	if (!close)
		return;
	for (j = close + 2; lex_is_space(s[j]); j++)
		;
	if (s[j] && s[j] != '#')
		return;
	memset(s + i, ' ', 2);
	memset(s + close, ' ', 2);
}

int notation_parse(const char *text, const struct notation_opts *opts,
		   struct expr **out, struct notation_error *err)
{
	struct parser ps = { .s = text, .o = opts, .err = err };
	struct expr *e = xcalloc(1, sizeof(*e));
	size_t start, len = strlen(text), *map;
	char *folded;
	unsigned int i;

	/* what players paste, made notation; errors point at the typed text */
	if (paste_text(text, &e->text, &map))
		e->typed = xstrdup(text);
	folded = xstrdup(e->text);
	parse_strip_chat(folded);
	paste_fold(folded);
	e->repeat = 1;
	ps.e = e;
	ps.s = folded;
	memset(err, 0, sizeof(*err));

	if (len > DICE_MAX_TEXT) {
		lex_fail(&ps, DICE_MAX_TEXT, "expression too long: more than %u bytes",
			 DICE_MAX_TEXT);
		goto bad;
	}
	lex_skip_space(&ps);
	if (!lex_cur(&ps) || lex_cur(&ps) == '#') {
		lex_fail(&ps, ps.p, "empty expression");
		goto bad;
	}
	/* NxEXPR: a number right before 'x' at the very start */
	start = ps.p;
	if (isdigit((unsigned char)lex_cur(&ps))) {
		uint64_t n;

		if (!lex_number(&ps, &n))
			goto bad;
		if (lex_cur(&ps) == 'x') {
			if (!n || n > opts->max_dice) {
				lex_fail(&ps, start, n ? "repeat count too large (see --max-dice)" :
					 "repeat count must be at least 1");
				goto bad;
			}
			e->repeat = n;
			e->repeat_given = true;
			ps.p++;
			if (!lex_cur(&ps)) {
				lex_fail(&ps, ps.p, "expression ends too early: expected an expression after 'x'");
				goto bad;
			}
			if (lex_is_space(lex_cur(&ps))) {
				lex_fail(&ps, ps.p, "unexpected space after 'x'");
				goto bad;
			}
		} else {
			ps.p = start;
		}
	}
	e->root = parse_expr(&ps);
	if (e->root)
		e->root = parse_comparison(&ps, e->root);
	if (!e->root)
		goto bad;
	lex_skip_space(&ps);
	if (lex_cur(&ps) == '#') {
		const char *c = ps.s + ps.p + 1;
		size_t n;

		while (lex_is_space(*c))
			c++;
		n = strlen(c);
		while (n && (lex_is_space(c[n - 1]) || c[n - 1] == '\n' ||
			     c[n - 1] == '\r'))
			n--;
		e->comment = xmalloc(n + 1);
		memcpy(e->comment, c, n);
		e->comment[n] = '\0';
		ps.p += strlen(ps.s + ps.p);
	}
	if (lex_cur(&ps)) {
		if (lex_cur(&ps) == ')')
			lex_fail(&ps, ps.p, "unexpected ')' without a matching '('");
		else if (lex_cur(&ps) == '}')
			lex_fail(&ps, ps.p, "unexpected '}' without a matching '{'");
		else
			parse_unexpected(&ps, "an operator (+, -, *, %), '#' or the end");
		goto bad;
	}
	if (e->repeat > 1 && e->ndice &&
	    (e->ndice > opts->max_dice / e->repeat)) {
		lex_fail(&ps, 0,
			 "too many dice: more than %llu in one expression (see --max-dice)",
			 (unsigned long long)opts->max_dice);
		goto bad;
	}
	for (i = 0; i < e->ngroups; i++) {
		if (e->groups[i]->die.weights)
			e->loaded = true;
	}
	*out = e;
	xfree(folded);
	xfree(map);
	return 0;
bad:
	len = strlen(e->text);
	err->offset = err->offset < len ? map[err->offset] :
		      map[len] + (err->offset - len);
	xfree(folded);
	xfree(map);
	notation_free(e);
	return -1;
}
