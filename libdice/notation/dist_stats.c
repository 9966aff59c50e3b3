// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_stats.c - what is printed about a distribution: its mean and
 * variance as exact fractions, and percentiles (the cumulative counts:
 * dice_dist_table(), api_dist.c)
 */
#include "dist_priv.h"

void dist_mean(const struct dist *d, struct big *num, struct big *den,
	       int *neg)
{
	struct big pos = { 0 }, minus = { 0 }, g = { 0 };
	size_t i;

	for (i = 0; i < d->n; i++) {
		int64_t v = d->lo + (int64_t)i;

		if (v > 0)
			big_addmul_u64(&pos, &d->c[i], (uint64_t)v);
		else if (v < 0)
			big_addmul_u64(&minus, &d->c[i], (uint64_t)0 - (uint64_t)v);
	}
	*neg = big_cmp(&pos, &minus) < 0;
	if (*neg) {
		big_sub(&minus, &pos);
		big_swap(&minus, &pos);
	} else {
		big_sub(&pos, &minus);
	}
	big_gcd(&g, &pos, &d->den);
	big_divmod(num, NULL, &pos, &g);
	big_divmod(den, NULL, &d->den, &g);
	big_free(&pos);
	big_free(&minus);
	big_free(&g);
}

/*
 * Var X = E[(X - lo)^2] - E[X - lo]^2 = (S2 * den - S1^2) / den^2 with
 * S1 = sum c (v - lo), S2 = sum c (v - lo)^2: all non-negative.
 */
void dist_variance(const struct dist *d, struct big *num, struct big *den)
{
	struct big s1 = { 0 }, s2 = { 0 }, a = { 0 }, b = { 0 }, g = { 0 };
	size_t i;

	for (i = 1; i < d->n; i++) {
		big_addmul_u64(&s1, &d->c[i], i);
		big_addmul_u64(&s2, &d->c[i], (uint64_t)i * i);
	}
	big_mul(&a, &s2, &d->den);
	big_mul(&b, &s1, &s1);
	big_sub(&a, &b);
	big_mul(&b, &d->den, &d->den);
	big_gcd(&g, &a, &b);
	big_divmod(num, NULL, &a, &g);
	big_divmod(den, NULL, &b, &g);
	big_free(&s1);
	big_free(&s2);
	big_free(&a);
	big_free(&b);
	big_free(&g);
}

int64_t dist_percentile(const struct dist *d, unsigned int pct)
{
	struct big acc = { 0 }, lhs = { 0 }, rhs = { 0 };
	size_t i;
	int64_t v = d->lo + (int64_t)d->n - 1;

	big_copy(&rhs, &d->den);
	big_mul_u64(&rhs, pct);
	for (i = 0; i < d->n; i++) {
		big_add(&acc, &d->c[i]);
		big_copy(&lhs, &acc);
		big_mul_u64(&lhs, 100);
		if (big_cmp(&lhs, &rhs) >= 0) {
			v = d->lo + (int64_t)i;
			break;
		}
	}
	big_free(&acc);
	big_free(&lhs);
	big_free(&rhs);
	return v;
}
