/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dist_priv.h - private to the exact distributions (dist*.c): the state of
 * one computation, the shared types and what the files call across
 *
 *   dist_law.c    the bottom: failing, distributions (make, trim,
 *                 convolve, widen), the score and order of a die's faces
 *   dist.c        the walk over the syntax tree (pairing values, computed
 *                 counts, grouped rolls {...}), dist_expr_report() and
 *                 reduction
 *   dist_group.c  the law of one die (faces, min/max, rerolls, explosions),
 *                 keep/drop of identical dice, groups
 *   dist_pool.c   keep/drop over pools that grow ('!') or mix dice
 *   dist_enum.c   unique dice ('u'), matches ('mt'), and enumeration of
 *                 outcomes through roll.c for what has no faster method
 *   dist_cost.c   the estimate of the work, from shapes alone, made before
 *                 any counting
 *   dist_stats.c  mean, variance, percentiles, cumulative counts
 *
 * Calls go one way: dist.c -> dist_cost.c -> dist_group.c -> dist_pool.c,
 * dist_enum.c -> dist_law.c (scripts/call-cycles.py checks it).
 */
#ifndef _DICE_NOTATION_DIST_PRIV_H
#define _DICE_NOTATION_DIST_PRIV_H

#include <setjmp.h>
#include <stdbool.h>

#include "dist.h"

#define VALUE_LIMIT	((__int128)1 << 62)	/* |value| must stay below */
#define POOL_STATES	200000			/* multisets a pool may track */

/**
 * struct dist_ctx - one computation of a distribution (or its estimate)
 * @lim: the limits
 * @jb: where dist_infeasible() and an interrupt unwind to
 * @rep: the report being filled
 * @err: 0, -E2BIG or -EINTR once unwound
 * @work0: notation_work() when the computation started
 * @leaves: outcomes enumerated so far
 * @at: byte offset of the node in hand (for the caret of a refusal)
 * @cap: estimate: the explode cap to assume (0: each group's own)
 * @est: estimated work so far
 * @cap_prob: the largest probability that one die explodes up to its cap
 * @text: the expression's text (elements of {...} written alike have the
 *	same distribution: see brace_alike())
 */
struct dist_ctx {
	const struct dist_limits *lim;
	jmp_buf jb;
	struct dist_report *rep;
	int err;
	uint64_t work0;
	uint64_t leaves;
	size_t at;
	unsigned int cap;
	double est;
	long double cap_prob;
	const char *text;
};

enum binop { OP_MUL, OP_MOD, OP_DIV, OP_POW, OP_MAX, OP_MIN };

/* What a value scores: itself, or +1/-1/0 against a success target. */
struct scorer {
	const struct cmp *success;
	const struct cmp *failure;
	const struct cmp *keep_by;	/* k>3, p<2: a dropped value scores 0 */
	bool keep_by_drop;
};

/*
 * With '!', a die adds a variable number of dice to the pool, and in a
 * grouped roll the dice (or elements) differ, so keep_dp() does not apply.
 * Instead: the k best of the pool are the k best of the k best of each
 * element, so the state is the multiset of the k best values seen so far.
 * Each element first gets the law of its own k best values (a "chain": a
 * die and its explosions, or one value), then the elements are added one
 * at a time.  A multiset is a sorted list of value ranks (1 = best),
 * packed into a number base m + 1 (0: no value).
 */
struct pool_map {
	uint64_t *keys;		/* key + 1; 0 = empty slot */
	struct big *vals;
	size_t cap, used;
};

/* The values a pool can hold, best first: rank r is v[r - 1]. */
struct domain {
	val_t *v;
	size_t m, cap;
	enum keep_mode mode;
};

/* An element that is one value drawn from @law. */
struct pool_in {
	struct pool_map chain;
	struct big den;
	uint64_t count;
};

/* ---- dist_law.c: failing, distributions, faces ----------------------------- */

/*
 * Failing unwinds with longjmp() to dist_expr_report() or dist_estimate(),
 * which free what was in flight (notation_release()).
 */
void dist_infeasible(struct dist_ctx *x, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
uint64_t dist_max_leaves(const struct dist_ctx *x);
/* The work done so far may exceed the estimate a little, not twice. */
void dist_check(struct dist_ctx *x);
void dist_init(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi);
__int128 dist_hi(const struct dist *d);
/* Drop zero counts at both ends; an all-zero distribution keeps one. */
void dist_trim(struct dist *d);
bool dist_empty(const struct dist *d);
void dist_point(struct dist_ctx *x, struct dist *d, __int128 v);
/* Indices of the non-zero counts of @d; *n gets how many. */
size_t *dist_nonzero(const struct dist *d, size_t *n);
/* r = the distribution of A + B (independent). */
void dist_conv(struct dist_ctx *x, struct dist *r, const struct dist *a,
	       const struct dist *b);
/* *a = *a + *b; frees *b. */
void dist_conv_into(struct dist_ctx *x, struct dist *a, struct dist *b);
/*
 * The value of a OP b, OP_DIV rounding by @f; b != 0 for all but OP_MUL
 * (values below 2^62, so div_round() cannot fail).
 */
__int128 dist_apply_op(enum binop op, enum func_type f, __int128 a,
		       __int128 b);
/* Make room in @d for values lo..hi, keeping its counts. */
void dist_widen(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi);
val_t scorer_score(const struct scorer *sc, val_t v);
/* Remember how likely one die of @g is to explode up to its cap. */
void law_note_cap(struct dist_ctx *x, const struct dist *law,
		  const struct group *g);
/* @faces (indices into @law) best first for @mode. */
size_t *law_best_first(const struct dist *law, enum keep_mode mode,
		       size_t *nf);

/* ---- dist_group.c: the law of one die, keep/drop, dice groups --------------- */

/*
 * r = the law of scorer_score(V - @shift) for V drawn from @law, restricted
 * to the V for which cmp_match(@only, V) == @inside when @only is given.
 */
void law_push(struct dist_ctx *x, struct dist *r, const struct dist *law,
	      const struct scorer *sc, int shift, const struct cmp *only,
	      bool inside);
/* The law of one face of @g's die (faces, min/max), and after its rerolls. */
void law_base(struct dist_ctx *x, struct dist *d, const struct group *g);
void law_rerolls(struct dist *law, const struct group *g);
/*
 * The sum over one die's chain of faces (itself and its explosions) of
 * scorer_score(face) (@sc) or face.  With explode_limit L, the last possible face
 * T_L = law, and T_k = rest + boom * T_k+1 with "rest" the faces that stop
 * and "boom" those that explode; with 'p' every face but the first counts
 * one less.
 */
void law_chain(struct dist_ctx *x, struct dist *out, const struct dist *law,
	       const struct group *g, const struct scorer *sc);
unsigned int group_cap(const struct dist_ctx *x, const struct group *g);
/* 'u' never: it may reroll for ever, and unique_dp() knows it. */
bool group_needs_enum(const struct dist_ctx *x, const struct group *g);
/*
 * Score of the k best of n dice drawn from @law ("best" = highest for
 * KEEP_HIGH, lowest for KEEP_LOW), by dynamic programming over the faces
 * in that order; see the header comment.
 */
void keep_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	     const struct scorer *sc, enum keep_mode mode, uint64_t n,
	     uint64_t k);
/* out = the mixture of @d[i] with weights @w->c[i] / @w->den. */
void dist_mix(struct dist_ctx *x, struct dist *out, const struct dist *w,
		struct dist *d);
/* @count: the law of a computed count's number of dice (else NULL) */
void dist_group(struct dist_ctx *x, struct dist *out, const struct group *g,
		const struct dist *count);
/*
 * Are the elements of the grouped roll @n written alike ({3d6, 3d6, 3d6})?
 * Then they are independent and identically distributed, and keep/drop
 * over them is an order statistic: keep_dp() on one element's law.
 */
bool brace_alike(const struct dist_ctx *x, const struct node *n);

/* ---- dist_pool.c: keep/drop over pools that grow or mix dice --------------- */

void domain_add_dist(struct domain *dm, const struct dist *d, int shift);
void domain_done(struct domain *dm);
/* The score of the k best of the elements of @p[0..n-1]. */
void pool_keep(struct dist_ctx *x, struct dist *out, struct pool_in *p,
	       unsigned int n, const struct domain *dm, unsigned int k,
	       const struct scorer *sc);
/* C(m + k, k) packed states, or infeasible. */
void pool_limits(struct dist_ctx *x, size_t m, unsigned int k,
			uint64_t elements, const char *what);
/* A die of @g with '!': the k best of its faces, weights over den^(L+1). */
void pool_in_explode(struct dist_ctx *x, struct pool_in *p, const struct dist *law,
		     const struct group *g, const struct domain *dm,
		     unsigned int k, uint64_t count);
void pool_in_free(struct pool_in *p);
void pool_in_none(struct pool_in *p, const struct big *w, uint64_t count);
void pool_in_law(struct pool_in *p, const struct dist *law,
		 const struct domain *dm, uint64_t count);

/* ---- dist_enum.c: unique dice, matches, enumeration through roll.c --------- */

void enum_group(struct dist_ctx *x, struct dist *out, const struct group *g,
		uint64_t n);
/*
 * 'mt' without keep/drop or '!': the number of values that at least m of n
 * dice drawn from @law show.  Over the values: state (dice placed, sets),
 * placing c dice on a value with weight C(n - placed, c) w^c.
 */
void match_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	      uint64_t n, unsigned int m);
/*
 * 'uo' that uo_dp() computes: at most 16 values, no '!', keep/drop, 'mt'
 * nor 'r' (the rest is enumerated).
 */
bool uo_by_dp(const struct group *g);
/* n dice with 'uo' from @law, the law of one face before rerolls. */
void uo_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	   const struct group *g, const struct scorer *sc, uint64_t n);
/* Are the non-zero counts of @law all equal? */
bool law_uniform(const struct dist *law);
/*
 * n unique dice of equally likely values: every set of n distinct values
 * is equally likely.  Count the sets by the score of their k best values,
 * placing the values best first: state (values chosen, score of the kept).
 */
void unique_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	       const struct scorer *sc, enum keep_mode mode, uint64_t n,
	       uint64_t k);

/* ---- dist_cost.c: the estimate --------------------------------------------- */

/* Does the estimate pass with every cap at @cap (0: their own)? */
/* The largest explode cap of the groups of @e (0: nothing explodes). */
unsigned int dist_max_cap(const struct expr *e);
int dist_estimate(const struct expr *e, const struct dist_limits *lim,
		  struct dist_report *rep, unsigned int cap);

#endif /* _DICE_NOTATION_DIST_PRIV_H */
