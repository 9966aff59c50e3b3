/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dist.h - exact probability distributions of dice expressions
 *
 * A distribution is a run of consecutive values lo, lo+1, ... with an
 * integer count for each and one common denominator: value v comes up with
 * probability c[v - lo] / den, exactly.  Nothing is ever approximated: an
 * expression whose distribution would take too much memory or time is
 * refused with a reason, and the cost is estimated before any work starts,
 * so that a refusal takes milliseconds.
 */
#ifndef _DICE_NOTATION_DIST_H
#define _DICE_NOTATION_DIST_H

#include "big.h"
#include "notation.h"

struct dist {
	int64_t lo;
	size_t n;
	struct big *c;
	struct big den;
};

/**
 * struct dist_limits - how much an exact distribution may cost
 * @max_values: most values (counts) one distribution may hold
 * @max_work: most 64-bit limb products for the whole computation
 * @max_leaves: most outcomes enumerated one by one for a group that has
 *	no faster exact method ('uo', 'mt' with keep/drop); 0: @max_work / 64
 * @enumerate_all: for tests: compute every dice group that can be
 *	enumerated (all but 'u') outcome by outcome through roll.c, instead
 *	of by its faster method, so that the two can be compared
 */
struct dist_limits {
	size_t max_values;
	uint64_t max_work;
	uint64_t max_leaves;
	bool enumerate_all;
};

#define DIST_DEFAULT_MAX_VALUES	(1U << 20)
#define DIST_DEFAULT_MAX_WORK	1000000000ULL	/* a few seconds at most */
#define DIST_DEFAULT_MAX_LEAVES	1000000ULL

/**
 * struct dist_report - what dist_expr_report() says besides the counts
 * @why: -E2BIG: why the distribution is not feasible
 * @offset: -E2BIG: byte offset of the part of the expression at fault
 * @explode_fit: -E2BIG: the largest --max-explode under which it would
 *	fit (0: none, or nothing explodes)
 * @explode_limit: the cap on explosions in force (0: nothing explodes)
 * @cap_prob: the largest probability that one die explodes up to the cap
 * @estimate: the limb products the estimate foresaw
 * @work: the limb products done
 */
struct dist_report {
	char why[256];
	size_t offset;
	unsigned int explode_fit;
	unsigned int explode_limit;
	long double cap_prob;
	double estimate;
	uint64_t work;
};

/*
 * The distribution of one roll of @e (one repetition), in lowest terms and
 * trimmed of zero counts at both ends.  0; -E2BIG when not feasible within
 * @lim, with the reason in @rep; -EINTR when interrupted.
 */
int dist_expr_report(const struct expr *e, const struct dist_limits *lim,
		     struct dist *out, struct dist_report *rep);
/* The same with only the reason for -E2BIG. */
int dist_expr(const struct expr *e, const struct dist_limits *lim,
	      struct dist *out, char *why, size_t whylen);
void dist_free(struct dist *d);
/* Counts and denominator to lowest terms, zero counts at the ends dropped. */
void dist_lowest(struct dist *d);
/*
 * The counts of A > B, A = B and A < B over *@den (added to @gt, @eq and
 * @lt, which start at zero), for independent A of law @a and B of law @b
 * (dist_law.c: --versus and the comparison X > Y both use it).
 */
void versus_counts(const struct dist *a, const struct dist *b,
		   struct big *gt, struct big *eq, struct big *lt,
		   struct big *den);

/* The mean as a fraction in lowest terms: (*neg ? -1 : 1) * num / den. */
void dist_mean(const struct dist *d, struct big *num, struct big *den,
	       int *neg);
/* The variance as a fraction in lowest terms. */
void dist_variance(const struct dist *d, struct big *num, struct big *den);
/*
 * The smallest value v with P(X <= v) >= @pct / 100 (the @pct-th
 * percentile), for @pct in 1..99.
 */
int64_t dist_percentile(const struct dist *d, unsigned int pct);

#endif /* _DICE_NOTATION_DIST_H */
