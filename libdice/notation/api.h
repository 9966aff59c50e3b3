/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api.h - the objects behind <dice_notation.h>, for api_*.c
 *
 * The public API wraps the engine's internal structures (notation.h,
 * roll.h, dist.h) in opaque objects, and every entry point runs as one
 * struct notation_call (common.h), so that an allocation failure deep in
 * the engine comes back as -ENOMEM, with everything the call had
 * allocated freed (notation_call_fail()), and the interrupt flag is the
 * context's.
 */
#ifndef _DICE_NOTATION_API_H
#define _DICE_NOTATION_API_H

#include <setjmp.h>

#include <dice_notation.h>

#include "common.h"
#include "dist.h"
#include "notation.h"
#include "roll.h"

/* Everything is hidden (-fvisibility=hidden) unless marked with this. */
#define DICE_NOTATION_EXPORT	__attribute__((visibility("default")))

/**
 * struct dice_notation - a context: what one thread's calls share
 * @opts: how expressions are parsed for rolls (limits, dialect, dW)
 * @custom: the die dW (@opts.custom points here when set); its arrays
 *	from malloc()
 * @dist_explode_limit: the explosion cap for distributions, which must be
 *	smaller than that of rolls to stay exact and cheap
 * @lim: what a distribution may cost
 * @interrupted: the caller's interrupt flag, or NULL
 */
struct dice_notation {
	struct notation_opts opts;
	struct die custom;
	unsigned int dist_explode_limit;
	struct dist_limits lim;
	const volatile sig_atomic_t *interrupted;
};

/**
 * struct dice_expr - a parsed expression
 * @roll: parsed with the rolls' explosion cap
 * @dist: parsed with the distributions' (@roll when they are the same)
 *
 * Both are made by dice_expr_parse() and never change after: an
 * expression may be used by several threads at once.
 */
struct dice_expr {
	struct expr *roll;
	struct expr *dist;
};

/**
 * struct dice_result - one roll of an expression
 * @e: the expression (its result refers into its syntax tree: the
 *	expression must outlive the result)
 * @r: the outcome, with every event and pool die kept
 */
struct dice_result {
	const struct expr *e;
	struct roll_result r;
};

/**
 * struct dice_dist - an exact distribution, in lowest terms
 * @d: the counts over the common denominator
 * @idx: the index in @d.c of each value whose count is not zero
 * @size: number of @idx
 * @info: how it was computed (dice_dist_info())
 */
struct dice_dist {
	struct dist d;
	size_t *idx;
	size_t size;
	struct dice_dist_info info;
	uint64_t max_work;
};

/* Enter a call of @ctx's (NULL: no interrupt flag). */
static inline void api_call_enter(struct notation_call *c,
				  const struct dice_notation *ctx)
{
	notation_call_enter(c, ctx ? ctx->interrupted : NULL);
}

#endif /* _DICE_NOTATION_API_H */
