// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist.c - exact distributions of dice expressions: the operations on
 * distributions, the walk over the syntax tree and the entry points
 *
 * Every step is exact integer arithmetic on counts over a common
 * denominator (big.c), and mirrors roll.c step by step:
 *   - the law of one face: a fair die, dF, d%, or custom faces and weights,
 *     moved by 'min' and 'max';
 *   - rerolls: 'r' removes the matching faces (the die is rolled until it
 *     shows another, so the others keep their relative weights); 'ro'
 *     gives c'(v) = c(v) * den * [v not rerolled] + W_R * c(v) over den^2;
 *   - explosions, bounded by explode_limit, by recursion from the last
 *     possible roll back to the first (T_k = rest(law) + explode(law) *
 *     T_k+1), each later face one less with 'p';
 *   - keep/drop of identical dice by dynamic programming over the faces in
 *     the order they are kept (best first): state (dice placed, score of
 *     the kept ones), placing c dice on a face at a time with weight
 *     C(n, c) w^c; once k dice are kept the rest go to the later faces
 *     with weight W_rest^n;
 *   - keep/drop over pools that grow ('!') or mix different dice ({...}):
 *     the state is the multiset of the k best values so far (a "pool");
 *   - unique dice ('u') of equally likely values: every set of distinct
 *     values is equally likely, so count the sets by dynamic programming;
 *     'mt' by dynamic programming over the values and their multiplicity;
 *     what has no such method ('uo', 'mt' after keep/drop or '!') is
 *     enumerated outcome by outcome through roll.c itself, when small;
 *   - computed counts (1d4)d6 as the mixture of the groups of each count;
 *   - sums by convolution, products, '%' and rounded division by pairing
 *     values.
 * Limits keep this bounded: the number of values of any distribution, the
 * number of limb products (notation_work(), see common.h), and of outcomes
 * enumerated.  A walk
 * over the syntax tree first estimates the cost of every step from the
 * shapes of the distributions alone (dist_cost.c) and refuses what would
 * not fit, in milliseconds; the limits are checked again while computing.
 * Past any of them the answer is "not feasible", never an approximation.
 *
 * dist_priv.h says which of the dist*.c files holds which step.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "dist_priv.h"
#include "roll.h"

/*
 * The value of a OP b, OP_DIV rounding by @f; b != 0 for all but OP_MUL
 * (values below 2^62, so div_round() cannot fail).
 */
__int128 dist_apply_op(enum binop op, enum func_type f, __int128 a,
		       __int128 b)
{
	val_t q;

	if (op == OP_MUL)
		return a * b;
	if (op == OP_MOD)
		return a % b;
	if (op == OP_MAX)
		return a > b ? a : b;
	if (op == OP_MIN)
		return a < b ? a : b;
	if (op == OP_POW) {	/* past the limit: dist_init() refuses it */
		if (roll_pow(a, b, &q) || q >= VALUE_LIMIT || q <= -VALUE_LIMIT)
			return a < 0 && (b & 1) ? -VALUE_LIMIT : VALUE_LIMIT;
		return q;
	}
	div_round(f, a, b, &q);
	return q;
}

/* r = the distribution of A op B (independent), by pairing values. */
static void dist_pairwise(struct dist_ctx *x, struct dist *r, const struct dist *a,
			  const struct dist *b, enum binop op, enum func_type f)
{
	size_t na, nb, i, j, *ia = dist_nonzero(a, &na), *ib = dist_nonzero(b, &nb);
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;

	if ((op == OP_MOD || op == OP_DIV) && b->lo <= 0 && dist_hi(b) >= 0 &&
	    !big_is_zero(&b->c[-b->lo]))
		dist_infeasible(x, "the divisor can be 0");
	for (i = 0; i < na; i++) {
		__int128 va = (__int128)a->lo + ia[i];

		for (j = 0; j < nb; j++) {
			__int128 v = dist_apply_op(op, f, va, (__int128)b->lo + ib[j]);

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	dist_init(x, r, lo, hi);
	for (i = 0; i < na; i++) {
		__int128 va = (__int128)a->lo + ia[i];

		for (j = 0; j < nb; j++) {
			__int128 v = dist_apply_op(op, f, va, (__int128)b->lo + ib[j]);

			big_addmul(&r->c[v - r->lo], &a->c[ia[i]], &b->c[ib[j]]);
		}
		dist_check(x);
	}
	big_mul(&r->den, &a->den, &b->den);
	xfree(ia);
	xfree(ib);
	dist_trim(r);
}

static void dist_negate(struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n / 2; i++)
		big_swap(&d->c[i], &d->c[d->n - 1 - i]);
	d->lo = (int64_t)-dist_hi(d);
}

/* |X| */
static void dist_abs(struct dist_ctx *x, struct dist *d)
{
	struct dist r;
	size_t i;

	if (d->lo >= 0)
		return;
	if (dist_hi(d) <= 0) {
		dist_negate(d);
		return;
	}
	dist_init(x, &r, 0, -d->lo > dist_hi(d) ? -d->lo : dist_hi(d));
	for (i = 0; i < d->n; i++) {
		int64_t v = d->lo + (int64_t)i;

		big_add(&r.c[v < 0 ? -v : v], &d->c[i]);
	}
	big_copy(&r.den, &d->den);
	dist_free(d);
	*d = r;
	dist_trim(d);
}

static void dist_node(struct dist_ctx *x, struct dist *out,
		      const struct node *n);

/* A dice group, the law of its computed count first (dist_group()). */
static void dist_group_node(struct dist_ctx *x, struct dist *out,
			    const struct group *g)
{
	struct dist cd;

	if (!g->count_node) {
		dist_group(x, out, g, NULL);
		return;
	}
	dist_node(x, &cd, g->count_node);
	dist_group(x, out, g, &cd);
	dist_free(&cd);
}

/*
 * The law of the comparison @n (NODE_CMP) of independent X of law @a and
 * Y of law @b: 1 with the chance it holds, else 0.  From versus_counts(),
 * never the law of X - Y, which may span far more values than either.
 */
static void dist_compare(struct dist_ctx *x, struct dist *out,
			 const struct dist *a, const struct dist *b,
			 const struct node *n)
{
	struct big gt = { 0 }, eq = { 0 }, lt = { 0 }, den = { 0 };
	struct big hold = { 0 }, miss = { 0 };

	versus_counts(a, b, &gt, &eq, &lt, &den);
	if (n->cmp == CMP_GT || n->cmp == CMP_GE)
		big_copy(&hold, &gt);
	else if (n->cmp == CMP_LT || n->cmp == CMP_LE)
		big_copy(&hold, &lt);
	if (n->cmp == CMP_EQ || n->cmp == CMP_GE || n->cmp == CMP_LE)
		big_add(&hold, &eq);
	big_copy(&miss, &den);
	big_sub(&miss, &hold);
	if (n->cmp_not)
		big_swap(&hold, &miss);
	if (big_is_zero(&hold) || big_is_zero(&miss)) {
		dist_point(x, out, !big_is_zero(&hold));
	} else {
		dist_init(x, out, 0, 1);
		big_swap(&out->c[0], &miss);
		big_swap(&out->c[1], &hold);
		big_swap(&out->den, &den);
	}
	big_free(&gt);
	big_free(&eq);
	big_free(&lt);
	big_free(&den);
	big_free(&hold);
	big_free(&miss);
}

/*
 * A grouped roll {...}: its elements (sums of dice groups and constants
 * when pooled) kept or counted as successes.  Here, beside dist_node(),
 * because it walks its elements.
 */
static void dist_brace(struct dist_ctx *x, struct dist *out, const struct node *n)
{
	const struct brace *b = n->brace;
	struct scorer scr = { &b->success, &b->failure, NULL, false },
		      *sc = b->success.op != CMP_NONE ? &scr : NULL;
	struct dist acc, t;
	unsigned int i;

	if (b->pooled) {
		uint64_t k = keep_count(&b->keep, b->ndice);

		if (b->keep.mode == KEEP_ALL || k >= b->ndice) {
			bool any_sep = false;

			for (i = 0; i < b->ngroups; i++)
				any_sep |= b->groups[i]->explode == EXPLODE_SEPARATE;
			if (b->keep.mode == KEEP_ALL || !any_sep) {
				dist_point(x, &acc, sc ? 0 : b->constant);
				for (i = 0; i < b->ngroups; i++) {
					struct group tmp = *b->groups[i];

					if (sc) {
						tmp.success = b->success;
						tmp.failure = b->failure;
					}
					dist_group_node(x, &t, &tmp);
					dist_conv_into(x, &acc, &t);
				}
				*out = acc;
				return;
			}
		}
		if (!k) {
			dist_point(x, out, sc ? 0 : b->constant);
			return;
		}
		{
			struct domain dm = { .mode = b->keep.mode };
			struct pool_in *p = xcalloc(b->ngroups, sizeof(*p));
			struct dist *laws = xcalloc(b->ngroups, sizeof(*laws));

			for (i = 0; i < b->ngroups; i++) {
				const struct group *g = b->groups[i];

				if (g->count_node || g->keep.mode != KEEP_ALL ||
				    g->keep_by.op != CMP_NONE ||
				    g->margin.op != CMP_NONE ||
				    g->unique != UNIQUE_NONE || g->match_count)
					dist_infeasible(x, "keep/drop after {...} over dice groups with a computed count, keep/drop, k>N/p<N, 'ms', 'u' or 'mt' has no exact method here");
				if (g->add_once)
					dist_infeasible(x, "keep/drop after {...} over a dice group with Avrae's 'ra' has no exact method here");
				law_base(x, &laws[i], g);
				law_rerolls(&laws[i], g);
				if (g->explode == EXPLODE_COMPOUND) {
					law_chain(x, &t, &laws[i], g, NULL);
					dist_free(&laws[i]);
					laws[i] = t;
				}
				domain_add_dist(&dm, &laws[i], 0);
				if (g->explode == EXPLODE_SEPARATE && g->penetrate)
					domain_add_dist(&dm, &laws[i], 1);
			}
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, b->ndice, "dice");
			for (i = 0; i < b->ngroups; i++) {
				const struct group *g = b->groups[i];

				if (g->explode == EXPLODE_SEPARATE)
					pool_in_explode(x, &p[i], &laws[i], g, &dm,
							(unsigned int)k, g->count);
				else
					pool_in_law(&p[i], &laws[i], &dm, g->count);
			}
			pool_keep(x, out, p, b->ngroups, &dm, (unsigned int)k, sc);
			for (i = 0; i < b->ngroups; i++) {
				pool_in_free(&p[i]);
				dist_free(&laws[i]);
			}
			xfree(p);
			xfree(laws);
			xfree(dm.v);
			if (!sc && b->constant) {
				if ((__int128)out->lo + b->constant <= -VALUE_LIMIT ||
				    dist_hi(out) + b->constant >= VALUE_LIMIT)
					dist_infeasible(x, "its values would not fit in 62 bits");
				out->lo += b->constant;
			}
		}
		return;
	}

	/* elements: the totals of the expressions */
	{
		uint64_t k = keep_count(&b->keep, n->nkids);
		struct dist *el;

		if (b->keep.mode != KEEP_ALL && k < n->nkids &&
		    brace_alike(x, n)) {
			dist_node(x, &t, n->kids[0]);
			dist_trim(&t);
			keep_dp(x, out, &t, sc, b->keep.mode, n->nkids, k);
			dist_free(&t);
			return;
		}
		el = xcalloc(n->nkids, sizeof(*el));
		for (i = 0; i < n->nkids; i++)
			dist_node(x, &el[i], n->kids[i]);
		if (b->keep.mode != KEEP_ALL && k < n->nkids) {
			struct domain dm = { .mode = b->keep.mode };
			struct pool_in *p = xcalloc(n->nkids, sizeof(*p));

			for (i = 0; i < n->nkids; i++)
				domain_add_dist(&dm, &el[i], 0);
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, n->nkids, "elements");
			for (i = 0; i < n->nkids; i++)
				pool_in_law(&p[i], &el[i], &dm, 1);
			pool_keep(x, out, p, n->nkids, &dm, (unsigned int)k, sc);
			for (i = 0; i < n->nkids; i++)
				pool_in_free(&p[i]);
			xfree(p);
			xfree(dm.v);
		} else {
			dist_point(x, &acc, 0);
			for (i = 0; i < n->nkids; i++) {
				law_push(x, &t, &el[i], sc, 0, NULL, false);
				dist_trim(&t);
				dist_conv_into(x, &acc, &t);
			}
			*out = acc;
		}
		for (i = 0; i < n->nkids; i++)
			dist_free(&el[i]);
		xfree(el);
	}
}

static void dist_node(struct dist_ctx *x, struct dist *out,
		      const struct node *n)
{
	struct dist a, b;
	size_t save = x->at;
	unsigned int i;

	x->at = n->start;
	switch (n->type) {
	case NODE_CONST:
		dist_point(x, out, n->value);
		break;
	case NODE_GROUP:
		dist_group_node(x, out, n->group);
		if (n->group->margin.op != CMP_NONE) {	/* 'ms' */
			const struct cmp *ms = &n->group->margin;
			__int128 lo;

			if (ms->op == CMP_LT || ms->op == CMP_LE) {
				dist_negate(out);	/* N - value */
				lo = (__int128)out->lo + ms->n;
			} else {
				lo = (__int128)out->lo - ms->n;
			}
			if (lo <= -VALUE_LIMIT ||
			    lo + (__int128)out->n >= VALUE_LIMIT)
				dist_infeasible(x, "its values would not fit in 62 bits");
			out->lo = (int64_t)lo;
		}
		break;
	case NODE_NEG:
		dist_node(x, out, n->kids[0]);
		dist_negate(out);
		break;
	case NODE_SUM:
		dist_node(x, out, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			dist_node(x, &b, n->kids[i]);
			if (n->ops[i] == '-')
				dist_negate(&b);
			x->at = n->start;
			dist_conv_into(x, out, &b);
		}
		break;
	case NODE_PRODUCT:
		dist_node(x, &a, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			dist_node(x, &b, n->kids[i]);
			x->at = n->start;
			dist_pairwise(x, out, &a, &b,
				      n->ops[i] == '%' ? OP_MOD : OP_MUL, FUNC_FLOOR);
			dist_free(&a);
			dist_free(&b);
			a = *out;
		}
		*out = a;
		break;
	case NODE_POW:
		dist_node(x, &a, n->kids[0]);
		dist_node(x, &b, n->kids[1]);
		x->at = n->start;
		dist_pairwise(x, out, &a, &b, OP_POW, FUNC_FLOOR);
		dist_free(&a);
		dist_free(&b);
		break;
	case NODE_FUNC:
		dist_node(x, out, n->kids[0]);
		if (n->func == FUNC_MAX || n->func == FUNC_MIN) {
			for (i = 1; i < n->nkids; i++) {
				a = *out;
				dist_node(x, &b, n->kids[i]);
				x->at = n->start;
				dist_pairwise(x, out, &a, &b, n->func == FUNC_MAX ?
					      OP_MAX : OP_MIN, FUNC_FLOOR);
				dist_free(&a);
				dist_free(&b);
			}
		} else if (n->nkids == 2) {
			a = *out;
			dist_node(x, &b, n->kids[1]);
			x->at = n->start;
			dist_pairwise(x, out, &a, &b, OP_DIV, n->func);
			dist_free(&a);
			dist_free(&b);
		} else if (n->func == FUNC_ABS) {
			dist_abs(x, out);
		}
		break;
	case NODE_BRACE:
		dist_brace(x, out, n);
		break;
	case NODE_CMP:
		dist_node(x, &a, n->kids[0]);
		dist_node(x, &b, n->kids[1]);
		x->at = n->start;
		dist_compare(x, out, &a, &b, n);
		dist_free(&a);
		dist_free(&b);
		break;
	}
	x->at = save;
}

/* ---- entry points ------------------------------------------------------ */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static uint64_t mod_u64(const struct big *a, uint64_t m)
{
	struct big t = { 0 };
	uint64_t r;

	big_copy(&t, a);
	r = big_divmod_u64(&t, m);
	big_free(&t);
	return r;
}

/* Divide every count and the denominator by their gcd. */
static void dist_reduce(struct dist *d)
{
	struct big g = { 0 }, t = { 0 };
	uint64_t small = 0;
	size_t i, best = 0;

	/* start from the smallest count: the gcd is at most that */
	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]) &&
		    (big_is_zero(&d->c[best]) || big_cmp(&d->c[i], &d->c[best]) < 0))
			best = i;
	}
	big_gcd(&g, &d->den, &d->c[best]);
	for (i = 0; i < d->n; i++) {
		if (big_get_u64(&g, &small)) {
			if (small == 1)
				break;
			if (!big_is_zero(&d->c[i]))
				big_set_u64(&g, gcd_u64(small, mod_u64(&d->c[i], small)));
		} else {
			big_gcd(&t, &g, &d->c[i]);
			big_swap(&t, &g);
		}
	}
	if (big_get_u64(&g, &small)) {
		if (small > 1) {
			for (i = 0; i < d->n; i++)
				big_divmod_u64(&d->c[i], small);
			big_divmod_u64(&d->den, small);
		}
	} else {
		for (i = 0; i < d->n; i++) {
			big_divmod(&t, NULL, &d->c[i], &g);
			big_swap(&t, &d->c[i]);
		}
		big_divmod(&t, NULL, &d->den, &g);
		big_swap(&t, &d->den);
	}
	big_free(&g);
	big_free(&t);
}

/* Counts and denominator of @d to lowest terms, zero ends trimmed. */
void dist_lowest(struct dist *d)
{
	dist_trim(d);
	dist_reduce(d);
}

int dist_expr_report(const struct expr *e, const struct dist_limits *lim,
		     struct dist *out, struct dist_report *rep)
{
	struct dist_ctx x = { .lim = lim, .rep = rep, .work0 = notation_work(),
			      .text = e->text };
	unsigned int cap = dist_max_cap(e);
	struct notation_mark mark;
	int err;

	memset(out, 0, sizeof(*out));
	memset(rep, 0, sizeof(*rep));
	rep->explode_limit = cap;
	err = dist_estimate(e, lim, rep, 0);
	if (err) {
		/* the largest cap that fits, if a smaller one would */
		struct dist_report tmp;
		unsigned int lo = 1, hi = cap;

		while (cap > 1 && lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (!dist_estimate(e, lim, &tmp, mid))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (cap > 1 && lo > 1)
			rep->explode_fit = lo - 1;
		rep->explode_limit = cap;
		return err;
	}
	/* what a refusal or an interruption leaves in flight is freed */
	notation_mark(&mark);
	if (setjmp(x.jb)) {
		notation_release(&mark);
		memset(out, 0, sizeof(*out));
		rep->work = notation_work() - x.work0;
		return x.err;
	}
	dist_node(&x, out, e->root);
	notation_unmark(&mark);
	dist_trim(out);
	dist_reduce(out);
	rep->cap_prob = x.cap_prob;
	rep->work = notation_work() - x.work0;
	return 0;
}

int dist_expr(const struct expr *e, const struct dist_limits *lim,
	      struct dist *out, char *why, size_t whylen)
{
	struct dist_report rep;
	int err = dist_expr_report(e, lim, out, &rep);

	if (err && why && whylen)
		snprintf(why, whylen, "%s", rep.why);
	return err;
}
