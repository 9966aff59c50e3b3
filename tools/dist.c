// SPDX-License-Identifier: GPL-2.0
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
 * number of limb products (big_work), and of outcomes enumerated.  A walk
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

#define VALUE_LIMIT	((__int128)1 << 62)	/* |value| must stay below */
#define POOL_STATES	200000			/* multisets a pool may track */

/*
 * Failing unwinds with longjmp() and leaks what was in flight: the caller
 * reports the error and the program ends (fuzz_notation frees it).
 */
void dist_infeasible(struct dist_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->rep->why, sizeof(x->rep->why), fmt, ap);
	va_end(ap);
	x->rep->offset = x->at;
	x->err = -E2BIG;
	longjmp(x->jb, 1);
}

uint64_t dist_max_leaves(const struct dist_ctx *x)
{
	return x->lim->max_leaves ? x->lim->max_leaves : x->lim->max_work / 64;
}

/* The work done so far may exceed the estimate a little, not twice. */
void dist_check(struct dist_ctx *x)
{
	if (dice_interrupted) {
		x->err = -EINTR;
		longjmp(x->jb, 1);
	}
	if (big_work - x->work0 > 2 * x->lim->max_work)
		dist_infeasible(x, "it would take more than %llu limb products",
				(unsigned long long)(2 * x->lim->max_work));
}

/* ---- distributions ------------------------------------------------------ */

void dist_free(struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		big_free(&d->c[i]);
	free(d->c);
	big_free(&d->den);
	memset(d, 0, sizeof(*d));
}

void dist_init(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	memset(d, 0, sizeof(*d));
	if (lo <= -VALUE_LIMIT || hi >= VALUE_LIMIT)
		dist_infeasible(x, "its values would not fit in 62 bits");
	if (hi - lo + 1 > (__int128)x->lim->max_values)
		dist_infeasible(x, "it would span more than %zu values",
				x->lim->max_values);
	d->lo = (int64_t)lo;
	d->n = (size_t)(hi - lo + 1);
	d->c = xcalloc(d->n, sizeof(*d->c));
}

__int128 dist_hi(const struct dist *d)
{
	return (__int128)d->lo + (__int128)d->n - 1;
}

/* Drop zero counts at both ends; an all-zero distribution keeps one. */
void dist_trim(struct dist *d)
{
	size_t a = 0, b = d->n, i;

	while (a + 1 < b && big_is_zero(&d->c[a]))
		a++;
	while (b - 1 > a && big_is_zero(&d->c[b - 1]))
		b--;
	if (a == 0 && b == d->n)
		return;
	for (i = 0; i < a; i++)
		big_free(&d->c[i]);
	for (i = b; i < d->n; i++)
		big_free(&d->c[i]);
	memmove(d->c, d->c + a, (b - a) * sizeof(*d->c));
	d->lo += (int64_t)a;
	d->n = b - a;
}

bool dist_empty(const struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			return false;
	}
	return true;
}

void dist_point(struct dist_ctx *x, struct dist *d, __int128 v)
{
	dist_init(x, d, v, v);
	big_set_u64(&d->c[0], 1);
	big_set_u64(&d->den, 1);
}

/* Indices of the non-zero counts of @d; *n gets how many. */
size_t *dist_nonzero(const struct dist *d, size_t *n)
{
	size_t *idx = xmalloc((d->n ? d->n : 1) * sizeof(*idx)), i, k = 0;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			idx[k++] = i;
	}
	*n = k;
	return idx;
}

/* r = the distribution of A + B (independent). */
void dist_conv(struct dist_ctx *x, struct dist *r, const struct dist *a,
	       const struct dist *b)
{
	size_t na, nb, i, j, *ia = dist_nonzero(a, &na), *ib = dist_nonzero(b, &nb);

	dist_init(x, r, (__int128)a->lo + b->lo, dist_hi(a) + dist_hi(b));
	for (i = 0; i < na; i++) {
		const struct big *ca = &a->c[ia[i]];

		for (j = 0; j < nb; j++)
			big_addmul(&r->c[ia[i] + ib[j]], ca, &b->c[ib[j]]);
		dist_check(x);
	}
	big_mul(&r->den, &a->den, &b->den);
	free(ia);
	free(ib);
	dist_trim(r);
}

/* *a = *a + *b; frees *b. */
void dist_conv_into(struct dist_ctx *x, struct dist *a, struct dist *b)
{
	struct dist r;

	dist_conv(x, &r, a, b);
	dist_free(a);
	dist_free(b);
	*a = r;
}

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
	free(ia);
	free(ib);
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

/* Make room in @d for values lo..hi, keeping its counts. */
void dist_widen(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	struct dist w;
	size_t i;

	if (lo >= d->lo && hi <= dist_hi(d))
		return;
	if (lo > d->lo)
		lo = d->lo;
	if (hi < dist_hi(d))
		hi = dist_hi(d);
	dist_init(x, &w, lo, hi);
	for (i = 0; i < d->n; i++)
		w.c[d->lo - w.lo + (int64_t)i] = d->c[i];
	free(d->c);
	w.den = d->den;
	*d = w;
}

/* ---- expressions ------------------------------------------------------------ */

void dist_node(struct dist_ctx *x, struct dist *out, const struct node *n)
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
		dist_group(x, out, n->group);
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

int dist_expr_report(const struct expr *e, const struct dist_limits *lim,
		     struct dist *out, struct dist_report *rep)
{
	struct dist_ctx x = { .lim = lim, .rep = rep, .work0 = big_work,
			      .text = e->text };
	unsigned int cap = dist_max_cap(e);
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
	if (setjmp(x.jb)) {
		rep->work = big_work - x.work0;
		return x.err;
	}
	dist_node(&x, out, e->root);
	dist_trim(out);
	dist_reduce(out);
	rep->cap_prob = x.cap_prob;
	rep->work = big_work - x.work0;
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
