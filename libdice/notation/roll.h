/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * roll.h - rolling a parsed expression
 *
 * roll.c knows nothing of /dev/dice: it asks a roller for sides of a
 * die (1..sides, as many at a time as it can) and does the rest: rerolls,
 * explosions, keep/drop, success counts, arithmetic.
 */
#ifndef _DICE_NOTATION_ROLL_H
#define _DICE_NOTATION_ROLL_H

#include "notation.h"

/**
 * struct roller - where sides come from
 * @roll: put @count sides of @d, each 1..@d->sides, into @out; return 0 or
 *	a negative errno
 * @ctx: passed to @roll
 */
struct roller {
	int (*roll)(void *ctx, const struct die *d, uint64_t *out, size_t count);
	void *ctx;
};

/* roll_event.flags */
#define EV_REROLLED	0x1	/* thrown away by a reroll rule */
#define EV_EXPLODED	0x2	/* made its die explode */
#define EV_UNIQUE	0x4	/* with EV_REROLLED: an earlier die showed it */
#define EV_CRIT_S	0x8	/* a critical success ('cs') */
#define EV_CRIT_F	0x10	/* a critical failure ('cf') */
#define EV_PENETRATED	0x20	/* added by a penetrating explosion: counts 1 less */
#define EV_RAISED	0x40	/* 'min' raised the face the die showed */
#define EV_LOWERED	0x80	/* 'max' lowered it */

/**
 * struct roll_event - one face that came up, in the order of its die
 * @face: the face's value, as it counts (a penetrating extra face counts
 *	one less than it shows)
 * @slot: which of the group's dice (0..count-1) it belongs to
 * @flags: EV_*
 */
struct roll_event {
	val_t face;
	uint32_t slot;
	uint32_t flags;
};

/* pool_die.flags */
#define POOL_DROPPED	0x1	/* not kept */
#define POOL_EXTRA	0x2	/* added to the pool by an explosion ('!') */
#define POOL_SUCCESS	0x4
#define POOL_FAILURE	0x8
#define POOL_MATCHED	0x10	/* 'm': enough kept dice show its value */
#define POOL_BRACE_DROP	0x20	/* with POOL_DROPPED: dropped by its {...} */

/**
 * struct pool_die - a die of the pool the keep/drop rules look at
 * @value: its value (for '!!', the sum of its faces)
 * @flags: POOL_*
 * @slot: which of the group's dice it came from
 * @first: index of its first event (rerolled faces come first)
 * @nev: number of its events
 */
struct pool_die {
	val_t value;
	uint32_t flags;
	uint32_t slot;
	size_t first;
	size_t nev;
};

/**
 * struct group_roll - the outcome of a dice group
 * @g: the group
 * @ev: every face rolled, grouped by slot (not kept when !@detail)
 * @nev: number of @ev
 * @pool: the dice of the pool, in slot order (not kept when !@detail and
 *	the group has no modifiers)
 * @npool: number of @pool
 * @value: the group's value: the sum of the kept dice, or the count of
 *	successes less failures
 * @count: dice rolled (a computed count's value)
 * @need_pool: keep @pool even without detail (a pooled {...} needs it)
 */
struct group_roll {
	const struct group *g;
	struct roll_event *ev;
	size_t nev, cap_ev;
	struct pool_die *pool;
	size_t npool, cap_pool;
	val_t value;
	uint64_t count;
	bool need_pool;
};

/* brace_roll.flags[] */
#define ELEM_DROPPED	0x1
#define ELEM_SUCCESS	0x2
#define ELEM_FAILURE	0x4

/**
 * struct brace_roll - the outcome of a grouped roll {...}
 * @values: not pooled: the value of each element
 * @flags: not pooled: ELEM_* of each element (pooled: see the pool dice)
 * @n: number of @values
 * @value: its value
 */
struct brace_roll {
	val_t *values;
	uint32_t *flags;
	unsigned int n;
	val_t value;
};

/**
 * struct roll_result - the outcome of one roll of an expression
 * @total: the value of the expression
 * @groups: one per dice group of the expression, left to right
 * @ngroups: number of @groups
 * @braces: one per grouped roll, by index
 * @nbraces: number of @braces
 * @detail: keep every event and pool die (for --breakdown and --json)
 */
struct roll_result {
	val_t total;
	struct group_roll *groups;
	unsigned int ngroups;
	struct brace_roll *braces;
	unsigned int nbraces;
	int detail;
};

void roll_init(struct roll_result *r, const struct expr *e, int detail);
void roll_free(struct roll_result *r);
/*
 * Roll @e once (one repetition) into @r, reusing its buffers.  0, -EINTR
 * if interrupted, -EOVERFLOW if a value does not fit 128 bits, -EDOM on a
 * division or '%' by zero, -ERANGE when a computed count falls outside
 * 0..@g->count, or what the source returned.
 */
/*
 * The value of the node @n of a rolled expression (a labelled part, for
 * the plain output): 0 or the error roll_expr() would have given.
 */
int roll_node_value(const struct node *n, const struct roll_result *r,
		    val_t *v);
int roll_expr(const struct expr *e, const struct roller *rl,
	      struct roll_result *r);

/*
 * Roll group @gr->g alone with @count dice (dist.c enumerates small
 * groups through this).  Same returns as roll_expr().
 */
int roll_group_count(struct group_roll *gr, const struct roller *rl,
		     uint64_t count, int detail);

/*
 * *@q = @f of @a / @b: floor, ceil, or round (halves up, as Roll20).  0,
 * -EDOM when @b is 0, -EOVERFLOW when a step does not fit 128 bits (never
 * for |@a|, |@b| below 2^125).
 */
/*
 * @a to the power @e into *@out: 0, -EDOM for a negative @e, -EOVERFLOW
 * past 128 bits.  0^0 is 1.
 */
int roll_pow(val_t a, val_t e, val_t *out);
int div_round(enum func_type f, val_t a, val_t b, val_t *q);

#endif /* _DICE_NOTATION_ROLL_H */
