// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * versus.c - the questions players ask of two rolls or of many: versus
 * (P(A > B), P(A = B), P(A < B) of two independent rolls, exactly, since
 * ties matter in opposed rolls) and count (how many of N repeated rolls
 * meet a target: the exact binomial law, whose "at least" column is the
 * chance of at least k successes)
 *
 * Both start from the exact distributions of dist*.c and stay exact: the
 * answers are fractions of big integers in lowest terms.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "versus.h"

/*
 * What dice(1) spends, in time, per unit of count_work(): its decimal
 * text, a division a limb, costs more than a limb product.  Measured
 * (2026-12-07): about 6,450 rolls of 1d6 against >=5 (0.9 s) and 1,450 of
 * 1d999999 against >=2 (1.6 s) reach the default budget.
 */
#define COUNT_WORK_SCALE	4

/*
 * The work of the law of @n rolls, in limb products: each count
 * C(n, k) hit^k miss^(n-k) is a product of numbers of k log2 hit and
 * (n - k) log2 miss bits (@lh, @lm), and one by the binomial, of
 * log2 C(n, k) bits; and what is asked of it then, its probability in
 * lowest terms and its decimal text beside the denominator's, is
 * quadratic in its length.  Sizes from logarithms, not bit lengths: a
 * hit of 1 or a miss of 2 adds no bit, or one, a roll, where their bit
 * lengths said 1 and 2 (which made 1d6's count look twice its work and
 * 1d999999's its own, 6 times apart in time at the same budget).  The sum
 * grows as n^3: a bound checked before the first product.
 */
static double count_work(uint64_t n, double lh, double lm)
{
	double w = 0, lgn = lgamma((double)n + 1);
	uint64_t k;

	for (k = 0; k <= n; k++) {
		double lb = (lgn - lgamma((double)k + 1) -
			     lgamma((double)(n - k) + 1)) / M_LN2;
		double bin = floor(lb / 64) + 1;
		double a = floor((double)k * lh / 64) + 1;
		double b = floor((double)(n - k) * lm / 64) + 1;
		double c = a + b + bin;

		w += a * b + (a + b) * bin + 2 * c * c;
	}
	return COUNT_WORK_SCALE * w;
}

int count_dist(const struct dist *one, const struct cmp *c, uint64_t n,
	       const struct dist_limits *lim, struct dist *out)
{
	struct big hit = { 0 }, miss = { 0 }, g = { 0 }, t = { 0 };
	struct big binom = { 0 };
	struct big *hp = NULL, *mp = NULL;
	double work;
	uint64_t k;
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < one->n; i++) {
		if (cmp_match(c, one->lo + (int64_t)i))
			big_add(&hit, &one->c[i]);
	}
	big_copy(&miss, &one->den);
	big_sub(&miss, &hit);
	/*
	 * hit / den in lowest terms first: the counts then share no factor
	 * with (hit + miss)^n, so they come out in lowest terms, and are
	 * as short as the answer allows.
	 */
	big_gcd(&g, &hit, &miss);
	if (!big_is_zero(&g)) {
		big_divmod(&t, NULL, &hit, &g);
		big_swap(&t, &hit);
		big_divmod(&t, NULL, &miss, &g);
		big_swap(&t, &miss);
	}
	/* every roll or none: one value, whatever the rolls */
	if (big_is_zero(&hit) || big_is_zero(&miss)) {
		out->lo = big_is_zero(&hit) ? 0 : (int64_t)n;
		out->n = 1;
		out->c = xcalloc(1, sizeof(*out->c));
		big_set_u64(&out->c[0], 1);
		big_set_u64(&out->den, 1);
		goto out;
	}
	work = count_work(n, big_log2(&hit), big_log2(&miss));
	if (work > (double)lim->max_work) {
		err = -E2BIG;
		goto out;
	}
	/* powers hit^k and miss^k, k = 0..n */
	hp = xcalloc(n + 1, sizeof(*hp));
	mp = xcalloc(n + 1, sizeof(*mp));
	big_set_u64(&hp[0], 1);
	big_set_u64(&mp[0], 1);
	for (k = 1; k <= n; k++) {
		big_mul(&hp[k], &hp[k - 1], &hit);
		big_mul(&mp[k], &mp[k - 1], &miss);
	}
	out->lo = 0;
	out->n = n + 1;
	out->c = xcalloc(n + 1, sizeof(*out->c));
	big_set_u64(&binom, 1);			/* C(n, k) */
	for (k = 0; k <= n; k++) {
		big_mul(&t, &hp[k], &mp[n - k]);
		big_mul(&out->c[k], &t, &binom);
		big_mul_u64(&binom, n - k);
		big_divmod_u64(&binom, k + 1);
	}
	/* (hit + miss)^n, by squaring: hit + miss is small */
	big_copy(&g, &hit);
	big_add(&g, &miss);
	big_set_u64(&out->den, 1);
	for (k = n; k; k >>= 1) {
		if (k & 1) {
			big_mul(&t, &out->den, &g);
			big_swap(&t, &out->den);
		}
		if (k > 1) {
			big_mul(&t, &g, &g);
			big_swap(&t, &g);
		}
	}
	dist_lowest(out);
out:
	if (err)
		dist_free(out);
	for (k = 0; hp && k <= n; k++) {
		big_free(&hp[k]);
		big_free(&mp[k]);
	}
	xfree(hp);
	xfree(mp);
	big_free(&hit);
	big_free(&miss);
	big_free(&g);
	big_free(&t);
	big_free(&binom);
	return err;
}
