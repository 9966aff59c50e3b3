/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notation.h - dice notation: the parser's syntax tree
 *
 *   line     := [repeat 'x'] expr ['#' comment]
 *   expr     := term (('+' | '-') term)*
 *   term     := unary (('*' | '%') unary)*
 *   unary    := '-' unary | power
 *   power    := factor [label] [('^' | '**') unary]   (never negative)
 *   label    := '[' text ']'
 *   factor   := number | group | '(' expr ')' | brace | func
 *   func     := ('floor' | 'ceil' | 'round') '(' (expr | term '/' unary) ')'
 *             | 'abs' '(' expr ')'
 *             | ('max' | 'min') '(' expr (',' expr)* ')'
 *   brace    := '{' expr (',' expr)* '}' bmod*
 *   bmod     := ('kh' | 'kl' | 'k' | 'dh' | 'dl') number
 *             | compare ['f' compare]           (last: success counting)
 *   group    := [number | '(' expr ')'] 'd' die modifier*
 *   die      := sides | '%' | 'F' ['.1' | '.2'] | 'W'
 *             | '{' face (',' face)* '}'
 *   face     := integer [':' weight]
 *   modifier := ('kh' | 'kl' | 'k' | 'dh' | 'dl' | 's') number
 *             | ('k' | 'p' | 'd') compare        (keep, drop by comparison)
 *             | ('!' | '!!') ['p'] ['o'] [compare] [':' number]
 *             | 'ra' compare | 'ms' compare
 *             | ('r' | 'ro') [compare]
 *             | 'u' | 'uo' | ('min' | 'max') integer
 *             | 'm' ['t'] [number] | ('cs' | 'cf') [compare]
 *             | 'sa' | 'sd'
 *             | (compare | 'even' | 'odd') ['f' compare]   (last)
 *   compare  := ('=' | '<' | '<=' | '>' | '>=') integer | number
 *
 * See dice(1) for the meaning of each part.  Every error carries the byte
 * offset of the character it is about.
 *
 * Long chains of '+', '-', '*' and '%' are n-ary nodes, not nested ones,
 * and every construct that nests (parentheses, braces, functions, unary
 * minus) counts against DICE_MAX_DEPTH, so the depth of a syntax tree is
 * bounded whatever the length of the text, and code that walks it may
 * recurse.
 */
#ifndef _DICE_NOTATION_NOTATION_H
#define _DICE_NOTATION_NOTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dice_notation.h>

#include "common.h"

/* The limits <dice_notation.h> gives */
#define DICE_DEFAULT_MAX_DICE		DICE_NOTATION_DEFAULT_MAX_DICE
#define DICE_HARD_MAX_DICE		DICE_NOTATION_MAX_DICE
#define DICE_DEFAULT_MAX_EXPLODE	DICE_NOTATION_DEFAULT_MAX_EXPLODE
#define DICE_DIST_DEFAULT_MAX_EXPLODE	DICE_NOTATION_DEFAULT_DIST_MAX_EXPLODE
#define DICE_HARD_MAX_EXPLODE		DICE_NOTATION_MAX_EXPLODE
/* the module's default max_sides */
#define DICE_MAX_CUSTOM_SIDES		DICE_NOTATION_MAX_CUSTOM_SIDES
#define DICE_MAX_REROLL_RULES		8
#define DICE_MAX_DEPTH			64	/* nesting levels */
#define DICE_MAX_NODES			100000U	/* numbers, groups, operators */
#define DICE_MAX_TEXT			(1U << 20)	/* bytes */

/* CMP_EVEN, CMP_ODD: the even and odd values (Foundry), @n unused */
enum cmp_op { CMP_NONE, CMP_EQ, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EVEN,
	      CMP_ODD };

struct cmp {
	enum cmp_op op;
	val_t n;
};

enum die_type { DIE_FAIR, DIE_FUDGE, DIE_CUSTOM };

/**
 * struct die - what one die of a group is
 * @type: fair (faces 1..@sides), Fudge (faces -1, 0, +1) or custom
 * @sides: number of sides (the die is rolled as a d@sides, then mapped)
 * @faces: custom: the value of each side, NULL for 1..@sides
 * @weights: custom: the weight of each side, NULL for equal weights
 * @weight_sum: sum of @weights (or @sides when equal)
 * @percent: written d% (for display only)
 */
struct die {
	enum die_type type;
	uint64_t sides;
	int64_t *faces;
	uint32_t *weights;
	uint64_t weight_sum;
	int percent;
};

enum keep_mode { KEEP_ALL, KEEP_HIGH, KEEP_LOW };
enum reroll_mode { REROLL_NONE, REROLL_ALWAYS, REROLL_ONCE };
enum explode_mode { EXPLODE_NONE, EXPLODE_SEPARATE, EXPLODE_COMPOUND };
enum unique_mode { UNIQUE_NONE, UNIQUE_ALWAYS, UNIQUE_ONCE };
enum sort_mode { SORT_NONE, SORT_ASC, SORT_DESC };

/**
 * struct keep - a keep or drop modifier
 * @mode: KEEP_HIGH or KEEP_LOW: which end of the pool is kept (dl1 keeps
 *	the high end), KEEP_ALL: no modifier
 * @drop: written as a drop: @n dice are dropped, the others kept
 * @n: dice kept, or dropped when @drop
 */
struct keep {
	enum keep_mode mode;
	bool drop;
	uint64_t n;
};

/*
 * How many of a pool of @pool dice @k keeps.  For a group, @pool is the
 * number of dice rolled before explosions (see dice(1)).
 */
uint64_t keep_count(const struct keep *k, uint64_t pool);

struct node;

/**
 * struct group - a dice group such as 4d6kh3 or 10d10!>=8
 * @count: dice rolled; for a computed count, the most it can be
 * @count_node: the computed count of (EXPR)dS, or NULL
 * @die: the die
 * @has_min: faces below @min count as @min ('min')
 * @has_max: faces above @max count as @max ('max')
 * @min: see @has_min
 * @max: see @has_max
 * @reroll: REROLL_ALWAYS rerolls a face until it matches no @rr rule;
 *	REROLL_ONCE rerolls a matching face once and keeps the new face
 * @rr: the reroll rules (a face is rerolled when it matches any)
 * @nrr: number of @rr rules
 * @unique: 'u' rerolls a face that an earlier die of the group shows
 *	until it differs; 'uo' rerolls it once
 * @explode: EXPLODE_SEPARATE ('!') adds a die to the pool for every
 *	exploding face; EXPLODE_COMPOUND ('!!') adds it to the same die
 * @penetrate: 'p': every face an explosion adds counts one less
 * @ex: faces that explode; CMP_NONE means the highest face
 * @explode_limit: most extra dice one die may explode into
 * @explode_capped: @explode_limit comes from the notation ('!:N', '!o',
 *	'ra'), not from --max-explode
 * @add_once: Avrae's 'ra' (--avrae): one die at most is added to the whole
 *	group, when some die of it matches @ex, and the added die never
 *	adds another (@explode is EXPLODE_SEPARATE, @explode_limit 1)
 * @keep: keep/drop
 * @keep_by: keep/drop by comparison, as Avrae's k>3 and p<2: the dice whose
 *	value matches are kept (dropped with @keep_by_drop), each on its own
 *	(CMP_NONE: none)
 * @keep_by_drop: see @keep_by
 * @margin: 'ms': the group's value minus @margin.n ('=', '>=', '>'), or
 *	@margin.n minus it ('<=', '<'); CMP_NONE: none
 * @success: count the kept dice that match (CMP_NONE: sum the dice)
 * @failure: and subtract those that match this (CMP_NONE: none)
 * @match: 'm': mark the kept dice whose value at least @match_min of
 *	them show
 * @match_count: 'mt': the group's value is the number of such values
 * @match_min: see @match (2 when not given)
 * @crit_success: 'cs': faces marked as critical successes (display only)
 * @crit_failure: 'cf': faces marked as critical failures (display only)
 * @sort: 'sa'/'sd': show the dice sorted (display only)
 * @start: byte offset of the group in the expression
 * @end: byte offset just past it
 * @index: the group's number in the expression, from 0, in the order
 *	groups end (a computed count's groups come before its own)
 */
struct group {
	uint64_t count;
	struct node *count_node;
	struct die die;
	bool has_min, has_max;
	val_t min, max;
	enum reroll_mode reroll;
	struct cmp rr[DICE_MAX_REROLL_RULES];
	unsigned int nrr;
	enum unique_mode unique;
	enum explode_mode explode;
	bool penetrate;
	struct cmp ex;
	unsigned int explode_limit;
	bool explode_capped;
	bool add_once;
	struct keep keep;
	struct cmp keep_by;
	bool keep_by_drop;
	struct cmp margin;
	struct cmp success;
	struct cmp failure;
	bool match;
	bool match_count;
	unsigned int match_min;
	struct cmp crit_success;
	struct cmp crit_failure;
	enum sort_mode sort;
	size_t start;
	size_t end;
	unsigned int index;
};

/**
 * struct brace - a grouped roll such as {4d6+3d8}kh1 or {3d6, 2d8+4}>10
 * @index: its number in the expression, from 0, in the order braces end
 * @pooled: a single element that is a sum of dice groups and constants:
 *	its dice are the elements that keep/drop and success counting see
 * @groups: pooled: the dice groups of the element
 * @ngroups: number of @groups
 * @constant: pooled: the sum of its constants
 * @ndice: pooled: dice rolled by @groups (before explosions)
 * @keep: keep/drop
 * @success: count the kept elements that match (CMP_NONE: sum them)
 * @failure: and subtract those that match this
 * @start: byte offset of the '{'
 * @mods: byte offset just past the '}' (where its modifiers start)
 * @end: byte offset just past the brace and its modifiers
 */
struct brace {
	unsigned int index;
	bool pooled;
	struct group **groups;
	unsigned int ngroups;
	int64_t constant;
	uint64_t ndice;
	struct keep keep;
	struct cmp success;
	struct cmp failure;
	size_t start;
	size_t mods;
	size_t end;
};

enum node_type {
	NODE_CONST,	/* @value */
	NODE_GROUP,	/* @group */
	NODE_SUM,	/* @kids joined by @ops '+' and '-' (@ops[0] is '+') */
	NODE_PRODUCT,	/* @kids joined by @ops '*' and '%' (@ops[0] is '*') */
	NODE_NEG,	/* -@kids[0] */
	NODE_FUNC,	/* @func of @kids[0], or of @kids[0] / @kids[1] */
	NODE_BRACE,	/* @brace of the elements @kids */
	NODE_POW,	/* @kids[0] to the power @kids[1] (never negative) */
	NODE_CMP,	/* @kids[0] @cmp @kids[1]: 1 when it holds, else 0 */
};

enum func_type { FUNC_FLOOR, FUNC_CEIL, FUNC_ROUND, FUNC_ABS, FUNC_MAX,
		 FUNC_MIN };

/**
 * struct node - a node of the syntax tree
 * @type: see enum node_type
 * @value: NODE_CONST
 * @group: NODE_GROUP
 * @kids: operands
 * @nkids: number of @kids
 * @ops: NODE_SUM, NODE_PRODUCT: the operator before each kid
 * @func: NODE_FUNC; with two kids the value is kids[0] / kids[1] rounded
 *	down (floor), up (ceil) or to the nearest, halves up (round); max and
 *	min take the greatest or least of their one or more @kids
 * @brace: NODE_BRACE
 * @cmp: NODE_CMP: CMP_EQ, _LT, _LE, _GT or _GE
 * @cmp_not: NODE_CMP: the opposite of @cmp (Avrae's != is EQ's)
 * @label: the text of an inline label [text] after it, or NULL
 * @start: byte offset of its first character, parentheses included
 * @end: byte offset just past it, label included
 * @paren: written in parentheses
 * @lo: the least value it can take (saturated to +-DICE_BOUND)
 * @hi: the greatest
 */
struct node {
	enum node_type type;
	val_t value;
	struct group *group;
	struct node **kids;
	unsigned int nkids;
	char *ops;
	enum func_type func;
	struct brace *brace;
	enum cmp_op cmp;
	bool cmp_not;
	char *label;
	size_t start, end;
	int paren;
	val_t lo, hi;
};

#define DICE_BOUND	((val_t)1 << 100)

/**
 * struct expr - one parsed expression
 * @text: the expression as read: as typed, but for pasted characters
 *	written in ASCII and rolldice's order rewritten (see paste.c)
 * @typed: the text as typed when it differs from @text, else NULL
 * @comment: the text after '#', spaces trimmed, or NULL
 * @repeat: times to roll it (NxEXPR), 1 if not given
 * @repeat_given: NxEXPR was written, N included (1x3d6 too)
 * @root: the syntax tree
 * @groups: the dice groups, by index
 * @ngroups: number of @groups
 * @braces: the grouped rolls, by index
 * @nbraces: number of @braces
 * @nnodes: nodes in the tree
 * @ndice: dice rolled per repetition, before rerolls and explosions
 *	(computed counts at their most)
 * @uses_custom: the expression uses dW
 * @loaded: some die has weights (it is rolled as a loaded die)
 * @warnings: what the text means in another roller when that differs
 *	from how it is read here (each once), for the caller to show
 * @nwarnings: number of @warnings
 */
struct expr {
	char *text;
	char *typed;
	char *comment;
	uint64_t repeat;
	bool repeat_given;
	struct node *root;
	struct group **groups;
	unsigned int ngroups;
	struct brace **braces;
	unsigned int nbraces;
	unsigned int nnodes;
	uint64_t ndice;
	int uses_custom;
	bool loaded;
	char **warnings;
	unsigned int nwarnings;
};

/**
 * struct notation_opts - what the parser needs from dice(1) or the API
 * @custom: the die dW stands for, or NULL
 * @max_dice: most dice one expression may roll, repetitions included
 * @explode_limit: most extra dice one exploding die may add
 * @roll20: '<' and '>' in compare points are inclusive, as on Roll20
 * @foundry: Foundry VTT's readings: 'r' rerolls once, 'rr' recursively,
 *	'cs' and 'cf' count dice
 * @avrae: Avrae's (d20's) readings: 'k3' and 'p3' keep and drop the dice
 *	that show 3, a comparison after dice compares the total
 *
 * Without @roll20, @foundry or @avrae a text that one of those rollers
 * reads differently gets a warning (struct expr's @warnings).
 */
struct notation_opts {
	const struct die *custom;
	uint64_t max_dice;
	unsigned int explode_limit;
	bool roll20;
	bool foundry;
	bool avrae;
};

/* No dialect option: the text is read as dice(1) says, with warnings. */
static inline bool notation_default(const struct notation_opts *o)
{
	return !o->roll20 && !o->foundry && !o->avrae;
}

struct notation_error {
	size_t offset;
	char msg[256];
};

/* 0, or -1 with @err filled. */
int notation_parse(const char *text, const struct notation_opts *opts,
		   struct expr **out, struct notation_error *err);
void notation_free(struct expr *e);

/* The value of @g as its expression sees it: @v moved by 'ms'. */
val_t group_margin(const struct group *g, val_t v);
/* The value of side @i (0-based) of @d. */
val_t die_face(const struct die *d, uint64_t i);
val_t die_min(const struct die *d);
val_t die_max(const struct die *d);
/* The value side @i of @g's die shows, after 'min' and 'max'. */
val_t group_face(const struct group *g, uint64_t i);
/* Side @i of @d can come up (custom sides may weigh zero). */
bool die_side_used(const struct die *d, uint64_t i);
int cmp_match(const struct cmp *c, val_t v);
/* NODE_CMP @n of operands @a and @b: 1 when it holds, else 0. */
int node_cmp_holds(const struct node *n, val_t a, val_t b);
/* NODE_CMP @n's operator as written: ">=", "<=", "==", "!=", ">", "<". */
const char *node_cmp_text(const struct node *n);
/*
 * What @v scores against a success target: +1 when it matches @success,
 * else -1 when it matches @failure, else 0.  A CMP_NONE point matches
 * nothing; callers that count values themselves when there is no success
 * target check @success->op first.
 */
int cmp_score(const struct cmp *success, const struct cmp *failure, val_t v);
/* @v matches any of @c[0..n-1]? */
bool cmp_any(const struct cmp *c, unsigned int n, val_t v);
/* A face of @d matches any of @c[0..n-1]? / Every face matches? */
int die_any_match(const struct die *d, const struct cmp *c, unsigned int n);
int die_all_match(const struct die *d, const struct cmp *c, unsigned int n);
/* Write a compare point as text ("=6", ">=8") into @buf. */
void cmp_str(const struct cmp *c, char *buf, size_t len);

#endif /* _DICE_NOTATION_NOTATION_H */
