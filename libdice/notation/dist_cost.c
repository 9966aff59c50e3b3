// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_cost.c - the estimate of what an exact distribution will cost,
 * made before any counting, from the shapes of the distributions alone
 *
 * dist_expr_report() runs it first: what would not fit in the limits is
 * refused here in milliseconds, with the reason and the offset of the part
 * at fault, and, when explosions are to blame, the largest --max-explode
 * that would fit.  Every step of dist*.c that spends work has its
 * counterpart here; a new step needs one too (see cli.rst).
 */
#include <math.h>
#include <string.h>

#include "dist_priv.h"

/* ---- the estimate --------------------------------------------------------- */

/*
 * The shape of a distribution: its range of values, how many of them have
 * a non-zero count, and the bits of its denominator (which bound those of
 * its counts).  Each step below adds what the matching step above would
 * spend in limb products (big_addmul of m and n limbs costs m * n), from
 * shapes alone, and refuses at once what the limits forbid.
 */
struct est_shape {
	double lo, hi, nz, bits;
};

static double est_limbs(double bits)
{
	return floor(bits / 64) + 1;
}

static void est_spend(struct dist_ctx *x, double w)
{
	x->est += w;
	if (x->est > (double)x->lim->max_work)
		dist_infeasible(x, "it would need about %.2g limb products, more than the budget of %.2g",
				x->est, (double)x->lim->max_work);
}

static void est_range(struct dist_ctx *x, struct est_shape *s)
{
	if (s->lo <= -(double)VALUE_LIMIT || s->hi >= (double)VALUE_LIMIT)
		dist_infeasible(x, "its values would not fit in 62 bits");
	if (s->hi - s->lo + 1 > (double)x->lim->max_values)
		dist_infeasible(x, "it would span more than %zu values",
				x->lim->max_values);
	if (s->nz > s->hi - s->lo + 1)
		s->nz = s->hi - s->lo + 1;
}

static void est_conv(struct dist_ctx *x, struct est_shape *r, const struct est_shape *a,
		     const struct est_shape *b)
{
	struct est_shape s = { a->lo + b->lo, a->hi + b->hi, a->nz * b->nz,
			   a->bits + b->bits };

	est_range(x, &s);
	est_spend(x, a->nz * b->nz * est_limbs(a->bits) * est_limbs(b->bits));
	*r = s;
}

static void est_pair(struct dist_ctx *x, struct est_shape *r, const struct est_shape *a,
		     const struct est_shape *b, int op)
{
	double c[4] = { a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi };
	double m = fmax(fabs(b->lo), fabs(b->hi));
	struct est_shape s = { c[0], c[0], a->nz * b->nz, a->bits + b->bits };
	int i;

	if (op == '*') {
		for (i = 1; i < 4; i++) {
			s.lo = fmin(s.lo, c[i]);
			s.hi = fmax(s.hi, c[i]);
		}
	} else if (op == '%') {
		s.lo = a->lo < 0 ? -(m - 1) : 0;
		s.hi = a->hi > 0 ? m - 1 : 0;
	} else if (op == 'M' || op == 'm') {	/* max, min */
		s.lo = op == 'M' ? fmax(a->lo, b->lo) : fmin(a->lo, b->lo);
		s.hi = op == 'M' ? fmax(a->hi, b->hi) : fmin(a->hi, b->hi);
		s.bits = fmax(a->bits, b->bits) + fmin(a->bits, b->bits);
	} else if (op == '^') {
		m = pow(fmax(fmax(fabs(a->lo), fabs(a->hi)), 1), b->hi);
		s.lo = a->lo >= 0 ? 0 : -m;
		s.hi = m;
	} else {
		s.hi = fmax(fabs(a->lo), fabs(a->hi));
		s.lo = -s.hi;
	}
	if (s.hi < s.lo)
		s.hi = s.lo;
	est_range(x, &s);
	est_spend(x, a->nz * b->nz * (est_limbs(a->bits) * est_limbs(b->bits) + 1));
	*r = s;
}

/* log2 C(n, k) */
static double est_log2_binom(double n, double k)
{
	return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)) / log(2);
}

/*
 * The sides of a die as the enumeration sees them: @sides that can show,
 * @rr of them rerolled once ('ro'), @boom of them explode.
 */
struct est_sides {
	double sides, rr, boom;
};

/* What the law of one face of @g looks like, after rerolls. */
static void est_law(struct dist_ctx *x, const struct group *g, struct est_shape *law,
		    struct est_sides *sd)
{
	const struct die *d = &g->die;
	double lo = INFINITY, hi = -INFINITY;
	struct est_sides t = { 0, 0, 0 };
	uint64_t i;

	if (d->sides > x->lim->max_values)
		dist_infeasible(x, "the die has %llu sides, more than %zu",
				(unsigned long long)d->sides, x->lim->max_values);
	for (i = 0; i < d->sides; i++) {
		val_t v = group_face(g, i);

		lo = fmin(lo, (double)v);
		hi = fmax(hi, (double)v);
		if (!die_side_used(d, i) ||
		    (g->reroll == REROLL_ALWAYS && cmp_any(g->rr, g->nrr, v)))
			continue;
		t.sides++;
		t.rr += g->reroll == REROLL_ONCE && cmp_any(g->rr, g->nrr, v);
		t.boom += g->explode != EXPLODE_NONE && cmp_match(&g->ex, v);
	}
	if (g->keep_by.op != CMP_NONE) {	/* a dropped die counts 0 */
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	law->lo = lo;
	law->hi = hi;
	law->nz = fmin((double)d->sides + 1, hi - lo + 1);
	law->bits = log2((double)d->weight_sum) + 1;
	est_spend(x, (double)d->sides);
	if (sd)
		*sd = t;
	if (g->reroll == REROLL_ONCE) {
		law->bits *= 2;
		est_spend(x, law->nz * est_limbs(law->bits) * 3);
	}
}

/* The chain of one exploding die: its sum, or with @scored its score. */
static void est_chain(struct dist_ctx *x, const struct group *g,
		      const struct est_shape *law, const struct est_sides *sd,
		      bool scored, struct est_shape *t)
{
	unsigned int k, lim = group_cap(x, g);

	*t = *law;
	if (scored) {
		t->lo = -1;
		t->hi = 1;
		t->nz = 3;
	}
	for (k = 1; k <= lim; k++) {
		est_spend(x, fmax(sd->boom, 1) * t->nz * est_limbs(law->bits) * est_limbs(t->bits) +
			  law->nz * est_limbs(t->bits) + 4 * t->nz);
		t->bits += law->bits;
		t->hi += scored ? 1 : fmax(law->hi, 0);
		t->lo += scored ? -1 : fmin(law->lo, 0) - g->penetrate;
		t->nz = fmin(t->nz + law->nz, t->hi - t->lo + 1);
		est_range(x, t);
	}
}

/* Sum of n copies of @one by n - 1 convolutions, in closed form. */
static void est_power(struct dist_ctx *x, const struct est_shape *one, double n,
		      struct est_shape *out)
{
	double s = one->hi - one->lo;

	out->lo = one->lo * n;
	out->hi = one->hi * n;
	out->nz = s * n + 1;
	out->bits = one->bits * n;
	if (n < 1) {
		out->lo = out->hi = 0;
		out->nz = 1;
		out->bits = 0;
	}
	est_range(x, out);
	/* law_power(): each value, one term per non-zero count of @one */
	if (n > 1)
		est_spend(x, out->nz * one->nz * est_limbs(out->bits) * 2 +
			  log2(n) * 2 * est_limbs(out->bits) *
			  est_limbs(out->bits));
}

static void est_pool(struct dist_ctx *x, double m, double k, double elements,
		     double per_element, double bits, const char *what)
{
	double states = exp2(est_log2_binom(m + k, k));

	if (states > POOL_STATES || k > 32 || k * log2(m + 1) >= 63)
		dist_infeasible(x, "keeping %.0f %s of up to %.0f values needs too many states",
				k, what, m);
	if (states * states * elements > 4e9)
		dist_infeasible(x, "keeping %.0f of %.0f %s needs too many steps",
				k, elements, what);
	est_spend(x, per_element + elements * states * fmin(states, m * k + 1) *
		  est_limbs(bits) * est_limbs(bits));
}

static void est_node(struct dist_ctx *x, struct est_shape *s, const struct node *n);

/* log2 of the outcomes enum_group() would go through for @n dice of @g. */
static double est_leaves(struct dist_ctx *x, const struct group *g, double n,
			 const struct est_sides *sd)
{
	double face = sd->sides - sd->rr + sd->rr * sd->sides, die = face, total = 0;
	unsigned int k, lim = g->explode != EXPLODE_NONE ? group_cap(x, g) : 0;
	double i;

	for (k = 0; k < lim && die < 1e300; k++)
		die = face + sd->boom * die;
	for (i = 0; i < n && total < 1e4; i++) {
		double d = die;

		if (g->unique == UNIQUE_ONCE)
			d = face + fmin(i, sd->sides) * face;
		total += log2(fmax(d, 1));
	}
	return total;
}

/* @g with @n dice, from the law of its faces; @chain: that of one die. */
static void est_group_n(struct dist_ctx *x, const struct group *g, double n,
			const struct est_shape *law, const struct est_sides *sd,
			const struct est_shape *ch, struct est_shape *out)
{
	double k = (double)keep_count(&g->keep, (uint64_t)n);
	bool scored = g->success.op != CMP_NONE;
	struct est_shape one = *law;

	if (n < 1 || (g->keep.mode != KEEP_ALL && k < 1)) {
		*out = (struct est_shape){ 0, 0, 1, 0 };
		return;
	}
	if (group_needs_enum(x, g)) {
		unsigned int lim = g->explode != EXPLODE_NONE ? group_cap(x, g) : 0;
		double faces = n * (1 + (g->reroll == REROLL_ONCE)) *
			       (1 + (g->unique == UNIQUE_ONCE)) * (1 + lim);
		double leaves = est_leaves(x, g, n, sd);

		if (leaves > log2((double)dist_max_leaves(x)))
			dist_infeasible(x, "it would enumerate more than %llu outcomes",
					(unsigned long long)dist_max_leaves(x));
		if (g->match_count)
			*out = (struct est_shape){ 0, n * (lim + 1) / g->match_min + 1, 0, 0 };
		else if (scored)
			*out = (struct est_shape){ -n, n, 0, 0 };
		else
			*out = (struct est_shape){ fmin(n * law->lo, 0), fmax(n * law->hi, 0), 0, 0 };
		out->nz = out->hi - out->lo + 1;
		out->bits = faces * law->bits;
		est_range(x, out);
		est_spend(x, exp2(leaves) * faces * 4);
		return;
	}
	if (uo_by_dp(g)) {	/* uo_dp(): (set of values, score) */
		double width = n * (scored ? 2 : fmax(law->hi, 0) - fmin(law->lo, 0)) + 1;
		double states = exp2(fmin(law->nz, 64)) * width;
		double bits = law->bits * 4 * n;

		if (law->nz > 16 || states > (double)x->lim->max_values * 16)
			dist_infeasible(x, "unique dice ('uo') need more than %zu states",
					x->lim->max_values * 16);
		est_spend(x, states * n * law->nz * est_limbs(bits) *
			  (est_limbs(law->bits) * 4 + 1));
		*out = (struct est_shape){ scored ? -n : fmin(n * law->lo, 0),
				       scored ? n : fmax(n * law->hi, 0), width, bits };
		est_range(x, out);
		return;
	}
	if (g->unique == UNIQUE_ALWAYS) {
		double kk = g->keep.mode == KEEP_ALL ? n : k;
		double width = kk * (scored ? 2 : law->hi - law->lo) + 1;
		double bits = est_log2_binom(law->nz, n) + 1;

		if (width * (n + 1) > (double)x->lim->max_values * 4)
			dist_infeasible(x, "%.0f unique dice need more than %zu states",
					n, x->lim->max_values * 4);
		est_spend(x, law->nz * n * width * est_limbs(bits));
		*out = (struct est_shape){ scored ? -kk : kk * law->lo,
				       scored ? kk : kk * law->hi, width, bits };
		est_range(x, out);
		return;
	}
	if (g->explode == EXPLODE_SEPARATE) {
		if (g->keep.mode != KEEP_ALL) {
			double m = law->nz * (1 + g->penetrate);
			double lim = group_cap(x, g);

			est_pool(x, m, k, n, (lim + 1) * exp2(est_log2_binom(m + k, k)) *
				 law->nz * est_limbs(law->bits * (lim + 1)),
				 law->bits * (lim + 1) * n, "dice with '!'");
			*out = (struct est_shape){ scored ? -k : fmin(k * (law->lo - 1), 0),
					       scored ? k : fmax(k * law->hi, 0),
					       m * k, law->bits * (lim + 1) * n };
			est_range(x, out);
			return;
		}
		est_power(x, ch, n, out);
		return;
	}
	if (g->explode == EXPLODE_COMPOUND)
		one = *ch;
	if (g->match_count) {
		double sets = n / g->match_min + 1, bits = one.bits * n;

		est_spend(x, one.nz * n * n * sets * est_limbs(bits) * est_limbs(one.bits));
		*out = (struct est_shape){ 0, sets - 1, sets, bits };
		return;
	}
	if (scored) {
		one.lo = -1;
		one.hi = 1;
		one.nz = 3;
	}
	if (g->keep.mode != KEEP_ALL && k < n) {
		double width = k * (one.hi - one.lo) + 1, bits = one.bits * n;

		if (width * k > (double)x->lim->max_values * 4)
			dist_infeasible(x, "keeping %.0f of %.0f dice needs more than %zu states",
					k, n, x->lim->max_values * 4);
		est_spend(x, one.nz * (n * est_limbs(bits) * est_limbs(one.bits) +
				       k * n * width * est_limbs(bits) * est_limbs(bits) / 2));
		*out = (struct est_shape){ fmin(k * one.lo, 0), fmax(k * one.hi, 0),
				       width, bits };
		est_range(x, out);
		return;
	}
	est_power(x, &one, n, out);
}

static void est_group(struct dist_ctx *x, const struct group *g, struct est_shape *out)
{
	struct est_shape law, ch, cs, t;
	struct est_sides sd;
	double n, lo, hi;

	est_law(x, g, &law, &sd);
	ch = law;
	if (g->explode != EXPLODE_NONE && !group_needs_enum(x, g) &&
	    !(g->explode == EXPLODE_SEPARATE && g->keep.mode != KEEP_ALL))
		est_chain(x, g, &law, &sd, g->explode == EXPLODE_SEPARATE &&
			  g->success.op != CMP_NONE, &ch);
	if (!g->count_node) {
		est_group_n(x, g, (double)g->count, &law, &sd, &ch, out);
		return;
	}
	est_node(x, &cs, g->count_node);
	lo = fmax(cs.lo, 0);
	hi = fmin(cs.hi, (double)g->count);
	*out = (struct est_shape){ 0, 0, 1, cs.bits };
	for (n = lo; n <= hi; n++) {
		est_group_n(x, g, n, &law, &sd, &ch, &t);
		out->lo = fmin(out->lo, t.lo);
		out->hi = fmax(out->hi, t.hi);
		out->bits = fmax(out->bits, t.bits + cs.bits);
		est_spend(x, t.nz * est_limbs(t.bits) * est_limbs(cs.bits) * 2);
	}
	out->nz = out->hi - out->lo + 1;
	est_range(x, out);
}

static void est_brace(struct dist_ctx *x, const struct node *n, struct est_shape *out)
{
	const struct brace *b = n->brace;
	struct est_shape t, *el;
	unsigned int i;
	double k, m = 0, bits = 0;

	if (b->pooled) {
		bool any_sep = false;

		for (i = 0; i < b->ngroups; i++)
			any_sep |= b->groups[i]->explode == EXPLODE_SEPARATE;
		k = (double)keep_count(&b->keep, b->ndice);
		if (b->keep.mode == KEEP_ALL || (k >= (double)b->ndice && !any_sep)) {
			*out = (struct est_shape){ (double)b->constant, (double)b->constant, 1, 0 };
			for (i = 0; i < b->ngroups; i++) {
				struct group tmp = *b->groups[i];

				if (b->success.op != CMP_NONE) {
					tmp.success = b->success;
					tmp.failure = b->failure;
				}
				est_group(x, &tmp, &t);
				est_conv(x, out, out, &t);
			}
			return;
		}
		for (i = 0; i < b->ngroups; i++) {
			struct est_shape law, ch;
			struct est_sides sd;
			const struct group *g = b->groups[i];

			est_law(x, g, &law, &sd);
			if (g->explode == EXPLODE_COMPOUND) {
				est_chain(x, g, &law, &sd, false, &ch);
				law = ch;
			}
			m += law.nz * (1 + (g->explode == EXPLODE_SEPARATE && g->penetrate));
			bits += law.bits * (g->explode == EXPLODE_SEPARATE ?
					    group_cap(x, g) + 1 : 1) * (double)g->count;
		}
		est_pool(x, m, k, (double)b->ndice, 0, bits, "dice");
		*out = (struct est_shape){ -k, k, 2 * k + 1, bits };
		if (b->success.op == CMP_NONE) {
			out->lo = (double)n->lo;
			out->hi = (double)n->hi;
			out->nz = fmin(m * k, out->hi - out->lo + 1);
		}
		out->hi = fmin(out->hi, out->lo + (double)x->lim->max_values - 1);
		est_range(x, out);
		return;
	}
	k = (double)keep_count(&b->keep, n->nkids);
	if (b->keep.mode != KEEP_ALL && k < n->nkids && brace_alike(x, n)) {
		/* keep_dp() over one element's law, as for a dice group */
		struct est_shape one;
		double nn = n->nkids, width, bits;

		est_node(x, &one, n->kids[0]);
		if (b->success.op != CMP_NONE)
			one = (struct est_shape){ -1, 1, 3, one.bits };
		width = k * (one.hi - one.lo) + 1;
		bits = one.bits * nn;
		if (width * k > (double)x->lim->max_values * 4)
			dist_infeasible(x, "keeping %.0f of %.0f elements needs more than %zu states",
					k, nn, x->lim->max_values * 4);
		est_spend(x, one.nz * (nn * est_limbs(bits) * est_limbs(one.bits) +
				       k * nn * width * est_limbs(bits) *
				       est_limbs(bits) / 2));
		*out = (struct est_shape){ fmin(k * one.lo, 0), fmax(k * one.hi, 0),
				       width, bits };
		est_range(x, out);
		return;
	}
	el = xcalloc(n->nkids, sizeof(*el));
	for (i = 0; i < n->nkids; i++) {
		est_node(x, &el[i], n->kids[i]);
		m += el[i].nz;
		bits += el[i].bits;
	}
	k = (double)keep_count(&b->keep, n->nkids);
	if (b->keep.mode != KEEP_ALL && k < n->nkids) {
		est_pool(x, m, k, n->nkids, 0, bits, "elements");
		*out = (struct est_shape){ (double)n->lo, (double)n->hi, m * k, bits };
		out->hi = fmin(out->hi, out->lo + (double)x->lim->max_values - 1);
		est_range(x, out);
	} else {
		*out = (struct est_shape){ 0, 0, 1, 0 };
		for (i = 0; i < n->nkids; i++) {
			if (b->success.op != CMP_NONE)
				el[i] = (struct est_shape){ -1, 1, 3, el[i].bits };
			est_conv(x, out, out, &el[i]);
		}
	}
	xfree(el);
}

static void est_node(struct dist_ctx *x, struct est_shape *s, const struct node *n)
{
	struct est_shape a, b;
	size_t save = x->at;
	unsigned int i;
	double t;

	x->at = n->start;
	switch (n->type) {
	case NODE_CONST:
		*s = (struct est_shape){ (double)n->value, (double)n->value, 1, 0 };
		est_range(x, s);
		break;
	case NODE_GROUP:
		est_group(x, n->group, s);
		if (n->group->margin.op != CMP_NONE) {
			double a = (double)group_margin(n->group, (val_t)s->lo);
			double b = (double)group_margin(n->group, (val_t)s->hi);

			s->lo = fmin(a, b);
			s->hi = fmax(a, b);
			est_range(x, s);
		}
		break;
	case NODE_NEG:
		est_node(x, s, n->kids[0]);
		t = s->lo;
		s->lo = -s->hi;
		s->hi = -t;
		break;
	case NODE_SUM:
		est_node(x, s, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			est_node(x, &b, n->kids[i]);
			if (n->ops[i] == '-') {
				t = b.lo;
				b.lo = -b.hi;
				b.hi = -t;
			}
			x->at = n->start;
			est_conv(x, s, s, &b);
		}
		break;
	case NODE_PRODUCT:
		est_node(x, s, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			est_node(x, &b, n->kids[i]);
			x->at = n->start;
			a = *s;
			est_pair(x, s, &a, &b, n->ops[i]);
		}
		break;
	case NODE_POW:
		est_node(x, &a, n->kids[0]);
		est_node(x, &b, n->kids[1]);
		x->at = n->start;
		est_pair(x, s, &a, &b, '^');
		break;
	case NODE_FUNC:
		est_node(x, s, n->kids[0]);
		if (n->func == FUNC_MAX || n->func == FUNC_MIN) {
			for (i = 1; i < n->nkids; i++) {
				a = *s;
				est_node(x, &b, n->kids[i]);
				x->at = n->start;
				est_pair(x, s, &a, &b, n->func == FUNC_MAX ? 'M' : 'm');
			}
		} else if (n->nkids == 2) {
			a = *s;
			est_node(x, &b, n->kids[1]);
			x->at = n->start;
			est_pair(x, s, &a, &b, '/');
		} else if (n->func == FUNC_ABS) {
			s->hi = fmax(fabs(s->lo), fabs(s->hi));
			s->lo = 0;
		}
		break;
	case NODE_BRACE:
		est_brace(x, n, s);
		break;
	case NODE_CMP:
		/* versus_counts(): a running sum of B, an addmul a value of A */
		est_node(x, &a, n->kids[0]);
		est_node(x, &b, n->kids[1]);
		x->at = n->start;
		est_spend(x, (a.nz + b.nz) * est_limbs(a.bits) *
			     est_limbs(b.bits));
		*s = (struct est_shape){ 0, 1, 2, a.bits + b.bits };
		break;
	}
	x->at = save;
}

unsigned int dist_max_cap(const struct expr *e)
{
	unsigned int i, cap = 0;

	for (i = 0; i < e->ngroups; i++) {
		if (e->groups[i]->explode != EXPLODE_NONE &&
		    !e->groups[i]->explode_capped &&
		    e->groups[i]->explode_limit > cap)
			cap = e->groups[i]->explode_limit;
	}
	return cap;
}

/* Does the estimate pass with every cap at @cap (0: their own)? */
int dist_estimate(const struct expr *e, const struct dist_limits *lim,
		  struct dist_report *rep, unsigned int cap)
{
	struct dist_ctx x = { .lim = lim, .rep = rep, .cap = cap,
			      .text = e->text };
	struct notation_mark mark;
	struct est_shape s;

	notation_mark(&mark);
	if (setjmp(x.jb)) {
		notation_release(&mark);
		return x.err;
	}
	est_node(&x, &s, e->root);
	notation_unmark(&mark);
	/*
	 * Lowest terms, mean, variance and the cumulative counts handle every
	 * count against the denominator: quadratic in its limbs.
	 */
	est_spend(&x, s.nz * est_limbs(s.bits) * est_limbs(s.bits));
	rep->estimate = x.est;
	return 0;
}
