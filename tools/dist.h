/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dist.h - exact probability distributions of dice expressions
 *
 * A distribution is a run of consecutive values lo, lo+1, ... with an
 * integer count for each and one common denominator: value v comes up with
 * probability c[v - lo] / den, exactly.  Nothing is ever approximated: an
 * expression whose distribution would take too much memory or time is
 * refused with a reason.
 */
#ifndef _DICE_TOOLS_DIST_H
#define _DICE_TOOLS_DIST_H

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
 */
struct dist_limits {
	size_t max_values;
	uint64_t max_work;
};

#define DIST_DEFAULT_MAX_VALUES	(1U << 20)
#define DIST_DEFAULT_MAX_WORK	3000000000ULL

/*
 * The distribution of one roll of @e (one repetition), in lowest terms and
 * trimmed of zero counts at both ends.  0; -E2BIG when not feasible within
 * @lim, with the reason in @why; -EINTR when interrupted.
 */
int dist_expr(const struct expr *e, const struct dist_limits *lim,
	      struct dist *out, char *why, size_t whylen);
void dist_free(struct dist *d);
/* The mean as a fraction in lowest terms: (*neg ? -1 : 1) * num / den. */
void dist_mean(const struct dist *d, struct big *num, struct big *den,
	       int *neg);

#endif /* _DICE_TOOLS_DIST_H */
