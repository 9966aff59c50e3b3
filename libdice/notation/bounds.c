// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bounds.c - the least and greatest value of every node of a syntax tree
 *
 * The parser calls bound_node() on each node it completes, bottom up.
 * The bounds are what roll.c sizes its arithmetic by and what the exact
 * distribution's cost estimate starts from; they are saturated at
 * +-DICE_BOUND (2^100), far past anything a distribution can hold, so
 * that the arithmetic here cannot overflow 128 bits.
 */
#include "parse.h"

/* ---- bounds ---------------------------------------------------------- */

static val_t bound_sat(val_t v)
{
	return v > DICE_BOUND ? DICE_BOUND : v < -DICE_BOUND ? -DICE_BOUND : v;
}

static val_t bound_add(val_t a, val_t b)
{
	return bound_sat(a + b);	/* both within 2^100: no overflow */
}

static val_t bound_mul(val_t a, val_t b)
{
	val_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? -DICE_BOUND : DICE_BOUND;
	return bound_sat(r);
}

static val_t bound_min(val_t a, val_t b)
{
	return a < b ? a : b;
}

static val_t bound_max(val_t a, val_t b)
{
	return a > b ? a : b;
}

/* The range of one die of @g in the pool, and the most dice of its pool. */
/* @b to the power @e (@b >= 1, @e >= 0), saturated. */
static val_t bound_pow(val_t b, val_t e)
{
	val_t r = 1;

	if (b == 1)
		return 1;
	while (e-- > 0 && r < DICE_BOUND)
		r = bound_mul(r, b);
	return r;
}

static void bound_die(const struct group *g, val_t *lo, val_t *hi,
		      val_t *pool)
{
	val_t a = group_min(g), b = group_max(g), lim = g->explode_limit;

	*lo = a;
	*hi = b;
	*pool = (val_t)g->count;
	if (g->explode == EXPLODE_SEPARATE && g->add_once) {
		*pool = bound_add(*pool, 1);	/* Avrae's ra: one die at most */
	} else if (g->explode == EXPLODE_SEPARATE) {
		*lo = bound_min(a, a - g->penetrate);
		*pool = bound_mul(*pool, lim + 1);
	} else if (g->explode == EXPLODE_COMPOUND) {
		*lo = bound_add(a, bound_mul(lim, bound_min(0, a - g->penetrate)));
		*hi = bound_add(b, bound_mul(lim, bound_max(0, b - g->penetrate)));
	}
}

/* Bounds of a sum of between @kmin and @kmax values in [@lo, @hi]. */
static void bound_sum(val_t kmin, val_t kmax, val_t lo, val_t hi, val_t *rlo,
		      val_t *rhi)
{
	*rlo = bound_min(bound_mul(kmin, lo), bound_mul(kmax, lo));
	*rhi = bound_max(bound_mul(kmin, hi), bound_mul(kmax, hi));
}

static void bound_group(const struct group *g, val_t *rlo, val_t *rhi)
{
	val_t lo, hi, pool, kmin, kmax;
	uint64_t cmin = g->count_node ? (uint64_t)bound_max(g->count_node->lo, 0) :
					g->count;

	bound_die(g, &lo, &hi, &pool);
	kmax = g->keep.mode == KEEP_ALL ? pool :
	       bound_min(pool, (val_t)keep_count(&g->keep, g->count));
	kmin = g->keep_by.op != CMP_NONE ? 0 : (val_t)keep_count(&g->keep, cmin);
	if (g->explode != EXPLODE_SEPARATE || g->keep.mode != KEEP_ALL)
		kmin = bound_min(kmin, kmax);
	if (g->success.op != CMP_NONE) {
		*rlo = g->failure.op != CMP_NONE ? -kmax : 0;
		*rhi = kmax;
	} else if (g->match_count) {
		*rlo = 0;
		*rhi = kmax / 2 + 1;
	} else {
		bound_sum(kmin, kmax, lo, hi, rlo, rhi);
	}
}

void bound_node(struct node *n)
{
	unsigned int i;
	val_t a, b, c, d, m;

	switch (n->type) {
	case NODE_CONST:
		n->lo = n->hi = n->value;
		return;
	case NODE_GROUP:
		bound_group(n->group, &n->lo, &n->hi);
		if (n->group->margin.op != CMP_NONE) {
			a = bound_sat(group_margin(n->group, n->lo));
			b = bound_sat(group_margin(n->group, n->hi));
			n->lo = bound_min(a, b);
			n->hi = bound_max(a, b);
		}
		return;
	case NODE_NEG:
		n->lo = -n->kids[0]->hi;
		n->hi = -n->kids[0]->lo;
		return;
	case NODE_SUM:
		n->lo = n->hi = 0;
		for (i = 0; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (n->ops[i] == '-') {
				n->lo = bound_add(n->lo, -k->hi);
				n->hi = bound_add(n->hi, -k->lo);
			} else {
				n->lo = bound_add(n->lo, k->lo);
				n->hi = bound_add(n->hi, k->hi);
			}
		}
		return;
	case NODE_PRODUCT:
		n->lo = n->kids[0]->lo;
		n->hi = n->kids[0]->hi;
		for (i = 1; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (n->ops[i] == '%') {
				m = bound_max(-k->lo, k->hi) - 1;
				if (m < 0)
					m = 0;
				a = n->lo >= 0 ? 0 : bound_max(n->lo, -m);
				b = n->hi <= 0 ? 0 : bound_min(n->hi, m);
				n->lo = a;
				n->hi = b;
				continue;
			}
			a = bound_mul(n->lo, k->lo);
			b = bound_mul(n->lo, k->hi);
			c = bound_mul(n->hi, k->lo);
			d = bound_mul(n->hi, k->hi);
			n->lo = bound_min(bound_min(a, b), bound_min(c, d));
			n->hi = bound_max(bound_max(a, b), bound_max(c, d));
		}
		return;
	case NODE_POW:
		a = n->kids[0]->lo;
		b = n->kids[0]->hi;
		m = bound_pow(bound_max(bound_max(-a, b), 1), n->kids[1]->hi);
		n->lo = a >= 0 ? 0 : -m;
		n->hi = m;
		return;
	case NODE_FUNC:
		a = n->kids[0]->lo;
		b = n->kids[0]->hi;
		if (n->func == FUNC_MAX || n->func == FUNC_MIN) {
			n->lo = a;
			n->hi = b;
			for (i = 1; i < n->nkids; i++) {
				c = n->kids[i]->lo;
				d = n->kids[i]->hi;
				n->lo = n->func == FUNC_MAX ? bound_max(n->lo, c) :
							      bound_min(n->lo, c);
				n->hi = n->func == FUNC_MAX ? bound_max(n->hi, d) :
							      bound_min(n->hi, d);
			}
		} else if (n->func == FUNC_ABS) {
			n->lo = a >= 0 ? a : b <= 0 ? -b : 0;
			n->hi = bound_max(-a, b);
		} else if (n->nkids == 1) {
			n->lo = a;
			n->hi = b;
		} else if (a >= 0 && n->kids[1]->lo >= 1) {
			n->lo = 0;
			n->hi = b;
		} else {
			n->hi = bound_max(-a, b);
			n->lo = -n->hi;
		}
		return;
	case NODE_CMP:
		n->lo = 0;
		n->hi = 1;
		return;
	case NODE_BRACE: {
		const struct brace *br = n->brace;

		if (br->pooled) {
			val_t plo = 0, phi = 0, pool = 0;

			for (i = 0; i < br->ngroups; i++) {
				val_t glo, ghi, gp;

				bound_die(br->groups[i], &glo, &ghi, &gp);
				plo = bound_add(plo, bound_mul(gp, bound_min(glo, 0)));
				phi = bound_add(phi, bound_mul(gp, bound_max(ghi, 0)));
				pool = bound_add(pool, gp);
			}
			if (br->success.op != CMP_NONE) {
				n->lo = br->failure.op != CMP_NONE ? -pool : 0;
				n->hi = pool;
			} else {
				n->lo = bound_add(plo, br->constant);
				n->hi = bound_add(phi, br->constant);
			}
			return;
		}
		if (br->success.op != CMP_NONE) {
			n->hi = n->nkids;
			n->lo = br->failure.op != CMP_NONE ? -(val_t)n->nkids : 0;
			return;
		}
		n->lo = n->hi = 0;
		for (i = 0; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (br->keep.mode == KEEP_ALL) {
				n->lo = bound_add(n->lo, k->lo);
				n->hi = bound_add(n->hi, k->hi);
			} else {
				n->lo = bound_add(n->lo, bound_min(k->lo, 0));
				n->hi = bound_add(n->hi, bound_max(k->hi, 0));
			}
		}
		return;
	}
	}
}
