/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dice_notation.h - libdice's dice notation engine: parse "4d6kh3+2",
 * roll it through a libdice handle, show how the total came about, and
 * compute its exact distribution, comparisons and statistics
 *
 * The engine dice(1) is built on.  Every function returns 0 or a negative
 * errno value (never exit(), never errno), keeps no state outside the
 * objects it is given, and may be called from several threads at once as
 * long as each thread uses its own struct dice_notation (and its own
 * struct dice handle; a parsed expression or distribution may be shared
 * once made: they are read only).  Values are int64_t: one that does not
 * fit (sums of huge dice go up to 128 bits) is -ERANGE, or text from the
 * _str functions.  Exact probabilities are numerator/denominator pairs of
 * unbounded size: as uint64_t when they fit (-EOVERFLOW when not), or as
 * decimal text; as numbers they are long double.  Allocation failure is
 * -ENOMEM, with nothing leaked.  See libdice(3) and dice(1) for the
 * notation.
 */
#ifndef _DICE_NOTATION_H
#define _DICE_NOTATION_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dice;
struct dice_notation;
struct dice_expr;
struct dice_result;
struct dice_dist;

/* ---- the context ------------------------------------------------------- */

/* dice_notation_set_limit(): what it bounds, and its default */
enum dice_notation_limit {
	DICE_LIMIT_MAX_DICE = 1,	/* dice an expression rolls: 10^6 */
	DICE_LIMIT_MAX_EXPLODE,		/* extra dice of one die's: 100 */
	DICE_LIMIT_DIST_MAX_EXPLODE,	/* the same for distributions: 10 */
	DICE_LIMIT_DIST_VALUES,		/* values a distribution spans: 2^20 */
	DICE_LIMIT_DIST_WORK,		/* its 64-bit products: 10^9 */
};

/* The defaults above, and the largest values the limits take */
#define DICE_NOTATION_DEFAULT_MAX_DICE		1000000ULL
#define DICE_NOTATION_DEFAULT_MAX_EXPLODE	100U
#define DICE_NOTATION_DEFAULT_DIST_MAX_EXPLODE	10U
#define DICE_NOTATION_MAX_DICE			100000000ULL
#define DICE_NOTATION_MAX_EXPLODE		10000U
/* Most sides of the die dW (dice_notation_set_custom()) */
#define DICE_NOTATION_MAX_CUSTOM_SIDES		(1U << 20)

/* dice_notation_set_dialect(): whose reading of ambiguous notation */
#define DICE_DIALECT_DICE	0	/* dice(1)'s, with warnings */
#define DICE_DIALECT_ROLL20	1	/* '<', '>' include their number */
#define DICE_DIALECT_FOUNDRY	2	/* 'r' rerolls once, cs/cf count */
#define DICE_DIALECT_AVRAE	3	/* k3/p3 keep/drop the dice showing 3 */

int dice_notation_new(struct dice_notation **out);
void dice_notation_free(struct dice_notation *ctx);
int dice_notation_set_limit(struct dice_notation *ctx,
			    enum dice_notation_limit limit, uint64_t value);
int dice_notation_set_dialect(struct dice_notation *ctx, int dialect);
/*
 * The die dW: @sides sides showing @faces (NULL: 1..@sides), weighed by
 * @weights (NULL: all alike).  @sides 0 and both NULL: no dW.
 */
int dice_notation_set_custom(struct dice_notation *ctx, size_t sides,
			     const int64_t *faces, const uint32_t *weights);
/*
 * Long rolls and distributions stop with -EINTR soon after *@flag becomes
 * non-zero (a signal handler sets it); NULL: never.
 */
int dice_notation_set_interrupt(struct dice_notation *ctx,
				const volatile sig_atomic_t *flag);

/* ---- expressions ------------------------------------------------------- */

/**
 * struct dice_dist_info - how an exact distribution was computed
 * @explode_limit: the cap on the extra dice of one exploding die that
 *	was in force (0: nothing explodes)
 * @explode_fit: dice_expr_dist() refused it (-E2BIG): the largest cap
 *	under which it would be computed (0: none, or nothing explodes)
 * @cap_prob: the largest probability that one die explodes up to the cap
 *	(what the cap leaves out)
 * @estimate: the 64-bit limb products the estimate made beforehand
 *	foresaw
 * @work: those done
 */
struct dice_dist_info {
	unsigned int explode_limit;
	unsigned int explode_fit;
	long double cap_prob;
	double estimate;
	uint64_t work;
};

/**
 * struct dice_notation_error - why a text did not parse, or why its
 * distribution cannot be computed exactly
 * @offset: byte offset in the text as given of the character at fault
 * @message: what is wrong, one line without "dice: " nor a newline
 * @dist: dice_expr_dist(): how far the computation went
 */
struct dice_notation_error {
	size_t offset;
	char message[256];
	struct dice_dist_info dist;
};

int dice_expr_parse(struct dice_notation *ctx, const char *text,
		    struct dice_expr **out, struct dice_notation_error *err);
void dice_expr_free(struct dice_expr *e);
/* The text as read: pasted characters in ASCII, rolldice's order rewritten. */
const char *dice_expr_text(const struct dice_expr *e);
/* N of NxEXPR (1 if not given): the caller rolls it N times. */
uint64_t dice_expr_repeat(const struct dice_expr *e);
/* Warning @i (from 0) about a reading another roller differs on, or NULL. */
const char *dice_expr_warning(const struct dice_expr *e, unsigned int i);
/* The text after '#', spaces trimmed, or NULL. */
const char *dice_expr_comment(const struct dice_expr *e);

/* dice_expr_flags() */
#define DICE_EXPR_CUSTOM	0x1	/* uses the die dW */
#define DICE_EXPR_LOADED	0x2	/* has a loaded die (weights) */
#define DICE_EXPR_REPEAT	0x4	/* NxEXPR written, 1x included (0.4) */

unsigned int dice_expr_flags(const struct dice_expr *e);

/* ---- rolls --------------------------------------------------------------- */

/* dice_result_flags() */
#define DICE_RESULT_CRITICAL	0x1	/* a kept die rolled a critical */
#define DICE_RESULT_FUMBLE	0x2	/* a kept die rolled a fumble */

/* dice_result_text() */
#define DICE_TEXT_TOTAL		0	/* "15 (fire 8, cold 7)  # note" */
#define DICE_TEXT_BREAKDOWN	1	/* "4d6kh3 [6, 5, 4, 1 dropped] = 15" */
#define DICE_TEXT_MARKDOWN	2	/* "4d6kh3 [6, 5, 4, ~~1~~] = **15**" */
#define DICE_TEXT_JSON		3	/* {"total":15,"groups":[...]} */

/* Longest decimal text of a value, with its sign and NUL */
#define DICE_VALUE_STRLEN	42

/**
 * struct dice_result_group - one dice group of a roll (4d6kh3 in 4d6kh3+2)
 * @start: byte offset of the group in dice_expr_text()
 * @end: byte offset just past it
 * @value: its value: the sum of its kept dice, or its count of successes
 * @ndice: its dice (those explosions added included), for
 *	dice_result_die()
 * @nfaces: the faces that came up (rerolled and exploded ones included),
 *	for dice_result_face_str()
 */
struct dice_result_group {
	size_t start;
	size_t end;
	int64_t value;
	size_t ndice;
	size_t nfaces;
};

/* struct dice_result_die's @flags */
#define DICE_DIE_DROPPED	0x1	/* not kept */
#define DICE_DIE_EXPLODED	0x2	/* exploded */
#define DICE_DIE_EXTRA		0x4	/* added by an explosion */
#define DICE_DIE_REROLLED	0x8	/* shows a face after rerolls */
#define DICE_DIE_CRITICAL	0x10	/* a critical success */
#define DICE_DIE_FUMBLE		0x20	/* a critical failure */
#define DICE_DIE_SUCCESS	0x40	/* counted as a success */
#define DICE_DIE_FAILURE	0x80	/* counted as a failure */

/**
 * struct dice_result_die - one die of a group's pool
 * @value: what it counts (for '!!', the sum of its faces)
 * @flags: DICE_DIE_*
 */
struct dice_result_die {
	int64_t value;
	uint32_t flags;
};

int dice_expr_roll(struct dice_notation *ctx, const struct dice_expr *e,
		   struct dice *d, struct dice_result **out);
/* @count rolls of @e into @out[], the die kept set between them (0.4) */
int dice_expr_rolls(struct dice_notation *ctx, const struct dice_expr *e,
		    struct dice *d, struct dice_result **out, size_t count);

/*
 * A source of faces for dice_expr_roll_source(): @count faces of a die of
 * @sides sides into @out, each 1..@sides, fair when @weights is NULL, else
 * loaded with these @sides weights; 0 or a negative errno value, which the
 * roll returns.  A face outside 1..@sides makes the roll fail with -ERANGE,
 * any other return value with -EINVAL.
 */
typedef int (*dice_source_fn)(void *arg, uint64_t sides,
			      const uint32_t *weights, uint64_t *out,
			      size_t count);

/* dice_expr_roll_source()'s @flags */
#define DICE_ROLL_TOTAL_ONLY	0x1	/* keep no dice: the total alone */

int dice_expr_roll_source(struct dice_notation *ctx,
			  const struct dice_expr *e, dice_source_fn source,
			  void *arg, unsigned int flags,
			  struct dice_result **out);
void dice_result_free(struct dice_result *r);
int dice_result_total(const struct dice_result *r, int64_t *total);
int dice_result_total_str(const struct dice_result *r, char *buf, size_t len);
int dice_result_flags(const struct dice_result *r);
int dice_result_text(const struct dice_result *r, int format, char **out);
/* The dice groups of the expression, left to right: how many, and each. */
unsigned int dice_result_ngroups(const struct dice_result *r);
int dice_result_group(const struct dice_result *r, unsigned int i,
		      struct dice_result_group *group);
int dice_result_die(const struct dice_result *r, unsigned int group,
		    size_t i, struct dice_result_die *die);
/*
 * A group's value and a die's as decimal text, exact where
 * dice_result_group() and dice_result_die() say -ERANGE (they fill the
 * rest then).  Since libdice 1.2.
 */
int dice_result_group_str(const struct dice_result *r, unsigned int i,
			  char *buf, size_t len);
int dice_result_die_str(const struct dice_result *r, unsigned int group,
			size_t i, char *buf, size_t len);
/* Face @i of a group, in the order of its dice, as decimal text. */
int dice_result_face_str(const struct dice_result *r, unsigned int group,
			 size_t i, char *buf, size_t len);

/* ---- exact distributions ------------------------------------------------- */

/**
 * struct dice_dist_stats - what a distribution's statistics are
 * @min: the least value that can come up
 * @max: the greatest
 * @mean: the mean (the exact one: dice_dist_mean_str())
 * @variance: the variance (the exact one: dice_dist_variance_str())
 * @stddev: the standard deviation
 * @median: the 50th percentile (dice_dist_percentile())
 */
struct dice_dist_stats {
	int64_t min;
	int64_t max;
	long double mean;
	long double variance;
	long double stddev;
	int64_t median;
};

/**
 * struct dice_dist_row - one value of a distribution, for a table
 * @value: the value
 * @prob: its probability
 * @at_least: the probability of a value at least @value
 * @at_most: the probability of a value at most @value
 */
struct dice_dist_row {
	int64_t value;
	long double prob;
	long double at_least;
	long double at_most;
};

int dice_expr_dist(struct dice_notation *ctx, const struct dice_expr *e,
		   struct dice_dist **out, struct dice_notation_error *why);
void dice_dist_free(struct dice_dist *d);
/* Values with a non-zero probability lie at indices 0..size-1, ascending. */
size_t dice_dist_size(const struct dice_dist *d);
int dice_dist_value(const struct dice_dist *d, size_t i, int64_t *value);
int dice_dist_prob(const struct dice_dist *d, size_t i, uint64_t *num,
		   uint64_t *den);
int dice_dist_prob_str(const struct dice_dist *d, size_t i, char **num,
		       char **den);
/* The same over the denominator common to every value, not reduced. */
int dice_dist_weight_str(const struct dice_dist *d, size_t i, char **weight,
			 char **total);
/* Every value at once, with its probability and both cumulatives. */
int dice_dist_table(const struct dice_dist *d, struct dice_dist_row *rows);
int dice_dist_info(const struct dice_dist *d, struct dice_dist_info *info);
int dice_dist_stats(const struct dice_dist *d, struct dice_dist_stats *st);
int dice_dist_percentile(const struct dice_dist *d, unsigned int pct,
			 int64_t *value);
int dice_dist_mean_str(const struct dice_dist *d, char **out);
int dice_dist_variance_str(const struct dice_dist *d, char **out);
/* The law of the sign of A - B: values -1 (A < B), 0 (a tie), 1 (A > B). */
int dice_dist_versus(const struct dice_dist *a, const struct dice_dist *b,
		     struct dice_dist **out);
/* dice_dist_count()'s comparisons: a value = < <= > >= the target */
#define DICE_CMP_EQ	1
#define DICE_CMP_LT	2
#define DICE_CMP_LE	3
#define DICE_CMP_GT	4
#define DICE_CMP_GE	5

/* The law of how many of @rolls rolls of @one compare to @target so. */
int dice_dist_count(const struct dice_dist *one, int cmp, int64_t target,
		    uint64_t rolls, struct dice_dist **out);

#ifdef __cplusplus
}
#endif

#endif /* _DICE_NOTATION_H */
