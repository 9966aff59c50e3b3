/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notation.h - dice notation: the parser's syntax tree
 *
 *   line     := [repeat 'x'] expr
 *   expr     := ['-'] term (('+' | '-') term)*
 *   term     := factor ('*' factor)*
 *   factor   := number | group | '(' expr ')'
 *   group    := [count] 'd' die modifier*
 *   die      := sides | '%' | 'F' | 'W' | '{' face (',' face)* '}'
 *   face     := integer [':' weight]
 *   modifier := ('kh' | 'kl' | 'k' | 'dh' | 'dl' | 's') number
 *             | ('!' | '!!') [compare]
 *             | ('r' | 'ro') compare
 *             | compare ['f' compare]          (last: success counting)
 *   compare  := ('=' | '<' | '<=' | '>' | '>=') integer | number
 *
 * See dice(1) for the meaning of each part.  Every error carries the byte
 * offset of the character it is about.
 */
#ifndef _DICE_TOOLS_NOTATION_H
#define _DICE_TOOLS_NOTATION_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define DICE_DEFAULT_MAX_DICE		1000000ULL
#define DICE_HARD_MAX_DICE		100000000ULL
#define DICE_DEFAULT_MAX_EXPLODE	100U
#define DICE_HARD_MAX_EXPLODE		10000U
#define DICE_MAX_CUSTOM_SIDES		(1U << 20)	/* the module's default max_sides */
#define DICE_MAX_REROLL_RULES		8

enum cmp_op { CMP_NONE, CMP_EQ, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

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

/**
 * struct group - a dice group such as 4d6kh3 or 10d10!>=8
 * @count: dice rolled
 * @die: the die
 * @reroll: REROLL_ALWAYS rerolls a face until it matches no @rr rule;
 *	REROLL_ONCE rerolls a matching face once and keeps the new face
 * @rr: the reroll rules (a face is rerolled when it matches any)
 * @nrr: number of @rr rules
 * @explode: EXPLODE_SEPARATE ('!') adds a die to the pool for every
 *	exploding face; EXPLODE_COMPOUND ('!!') adds it to the same die
 * @ex: faces that explode; CMP_NONE means the highest face
 * @explode_limit: most extra dice one die may explode into
 * @keep: KEEP_HIGH/KEEP_LOW keep @nkeep dice of the pool (the drop
 *	modifiers are turned into keeps: 4d6dl1 is 4d6kh3)
 * @nkeep: dice kept
 * @success: count the kept dice that match (CMP_NONE: sum the dice)
 * @failure: and subtract those that match this (CMP_NONE: none)
 * @start: byte offset of the group in the expression
 * @end: byte offset just past it
 * @index: the group's number in the expression, from 0, left to right
 */
struct group {
	uint64_t count;
	struct die die;
	enum reroll_mode reroll;
	struct cmp rr[DICE_MAX_REROLL_RULES];
	unsigned int nrr;
	enum explode_mode explode;
	struct cmp ex;
	unsigned int explode_limit;
	enum keep_mode keep;
	uint64_t nkeep;
	struct cmp success;
	struct cmp failure;
	size_t start;
	size_t end;
	unsigned int index;
};

enum node_type { NODE_CONST, NODE_GROUP, NODE_ADD, NODE_SUB, NODE_MUL, NODE_NEG };

struct node {
	enum node_type type;
	int64_t value;		/* NODE_CONST */
	struct group *group;	/* NODE_GROUP */
	struct node *l, *r;	/* operands (NODE_NEG: l only) */
	size_t start, end;	/* byte offsets, parentheses included */
	int paren;		/* written in parentheses */
};

/**
 * struct expr - one parsed expression
 * @text: the expression as written
 * @repeat: times to roll it (NxEXPR), 1 if not given
 * @root: the syntax tree
 * @groups: the dice groups, left to right
 * @ngroups: number of @groups
 * @ndice: dice rolled per repetition, before rerolls and explosions
 * @uses_custom: the expression uses dW
 */
struct expr {
	char *text;
	uint64_t repeat;
	struct node *root;
	struct group **groups;
	unsigned int ngroups;
	uint64_t ndice;
	int uses_custom;
};

/**
 * struct notation_opts - what the parser needs from the command line
 * @custom: the die dW stands for, or NULL
 * @max_dice: most dice one expression may roll, repetitions included
 * @explode_limit: most extra dice one exploding die may add
 */
struct notation_opts {
	const struct die *custom;
	uint64_t max_dice;
	unsigned int explode_limit;
};

struct notation_error {
	size_t offset;
	char msg[256];
};

/* 0, or -1 with @err filled. */
int notation_parse(const char *text, const struct notation_opts *opts,
		   struct expr **out, struct notation_error *err);
void notation_free(struct expr *e);

/* The value of side @i (0-based) of @d. */
val_t die_face(const struct die *d, uint64_t i);
val_t die_min(const struct die *d);
val_t die_max(const struct die *d);
int cmp_match(const struct cmp *c, val_t v);
/* A face of @d matches any of @c[0..n-1]? / Every face matches? */
int die_any_match(const struct die *d, const struct cmp *c, unsigned int n);
int die_all_match(const struct die *d, const struct cmp *c, unsigned int n);
/* Write a compare point as text ("=6", ">=8") into @buf. */
void cmp_str(const struct cmp *c, char *buf, size_t len);

#endif /* _DICE_TOOLS_NOTATION_H */
