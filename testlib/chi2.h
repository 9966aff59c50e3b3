/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testlib/chi2.h - the chi-square helpers every test judges by, once:
 *
 *   chi2_pearson()   Pearson's statistic of counts against exact masses
 *   chi2_tail()      P(X >= x) for X chi-square with k degrees of freedom
 *                    (the regularized upper incomplete gamma Q(k/2, x/2))
 *   chi2_critical()  the quantile z standard deviations out, by the
 *                    Wilson-Hilferty approximation (a little above the
 *                    exact one for few degrees, so on the safe side)
 *
 * Header-only (static inline), libm; used by testlib/tap.h (the
 * core's and libdice's tests), selftests/dice/dice_stats_test.c and, for
 * its critical values, dice_loaded_test.c; and by the CLI, whose
 * --histogram p-value is chi2_gamma_q(), so that one function is tested
 * and shipped.  Include it by its path
 * relative to the including file, as the kselftests include their
 * harness.
 */
#ifndef _DICE_TESTLIB_CHI2_H
#define _DICE_TESTLIB_CHI2_H

#include <math.h>
#include <stdint.h>

/*
 * chi2_gamma_q() - regularized upper incomplete gamma function Q(a, x): the
 * series for P below a + 1, the continued fraction (modified Lentz) above,
 * as in Numerical Recipes 6.2, in long double (good to about 1e-16
 * relative).  The CLI's --histogram p-value is this function too.
 */
static inline long double chi2_gamma_q(long double a, long double x)
{
	const long double tiny = 1e-300L, eps = 1e-18L;
	long double front, sum, del, ap, b, c, d, h, an;
	int i;

	if (x <= 0)
		return 1;
	front = expl(-x + a * logl(x) - lgammal(a));
	if (x < a + 1) {
		ap = a;
		del = 1 / a;
		sum = del;
		for (i = 0; i < 10000; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabsl(del) < fabsl(sum) * eps)
				break;
		}
		return 1 - sum * front;
	}
	b = x + 1 - a;
	c = 1 / tiny;
	d = 1 / b;
	h = d;
	for (i = 1; i < 10000; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabsl(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabsl(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabsl(del - 1) < eps)
			break;
	}
	return front * h;
}

/* chi2_tail() - P(X >= @chi2) for X chi-square with @dof degrees of freedom */
static inline double chi2_tail(double chi2, unsigned int dof)
{
	return (double)chi2_gamma_q(dof / 2.0L, chi2 / 2.0L);
}

/*
 * chi2_critical() - the value chi-square with @df degrees of freedom
 * exceeds with the probability of a normal beyond @z (Wilson-Hilferty):
 * z = 5 is p ~ 3e-7, z = 4.753 is 1e-6.
 */
static inline double chi2_critical(double df, double z)
{
	double h = 2.0 / (9.0 * df);
	double t = 1.0 - h + z * sqrt(h);

	return df * t * t * t;
}

/*
 * chi2_pearson() - Pearson's statistic of @counts (@k cells, @n draws)
 * against the exact masses (@masses out of @total); infinite when a cell
 * of mass zero was drawn.
 */
static inline double chi2_pearson(const uint64_t *counts, const uint64_t *masses,
				  uint64_t total, unsigned int k, uint64_t n)
{
	double chi2 = 0;
	unsigned int i;

	for (i = 0; i < k; i++) {
		double e = (double)n * masses[i] / total;
		double d = counts[i] - e;

		if (e > 0)
			chi2 += d * d / e;
		else if (counts[i])
			return INFINITY;
	}
	return chi2;
}

#endif /* _DICE_TESTLIB_CHI2_H */
