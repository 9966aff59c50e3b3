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
#include <stdbool.h>
#include <string.h>

#include "versus.h"

void versus_counts(const struct dist *da, const struct dist *db,
		   struct big *gt, struct big *eq, struct big *lt,
		   struct big *den)
{
	struct big below = { 0 };
	struct big *cum = xcalloc(db->n + 1, sizeof(*cum));
	size_t i;

	/* cum[j]: the counts of B below db->lo + j */
	for (i = 0; i < db->n; i++) {
		big_copy(&cum[i + 1], &cum[i]);
		big_add(&cum[i + 1], &db->c[i]);
	}
	for (i = 0; i < da->n; i++) {
		int64_t v = da->lo + (int64_t)i;
		__int128 j = (__int128)v - db->lo;	/* B values below v: j */
		const struct big *all = &cum[db->n];

		if (big_is_zero(&da->c[i]))
			continue;
		/* Below B's lowest value; at it, the general case ties. */
		if (j < 0) {
			big_addmul(lt, &da->c[i], all);
			continue;
		}
		if (j >= (__int128)db->n) {
			big_addmul(gt, &da->c[i], all);
			continue;
		}
		big_addmul(gt, &da->c[i], &cum[j]);
		big_addmul(eq, &da->c[i], &db->c[j]);
		big_copy(&below, all);
		big_sub(&below, &cum[j + 1]);
		big_addmul(lt, &da->c[i], &below);
	}
	big_mul(den, &da->den, &db->den);
	for (i = 0; i <= db->n; i++)
		big_free(&cum[i]);
	xfree(cum);
	big_free(&below);
}

void count_dist(const struct dist *one, const struct cmp *c, uint64_t n,
		struct dist *out)
{
	struct big hit = { 0 }, miss = { 0 }, t = { 0 }, binom = { 0 };
	struct big *hp = xcalloc(n + 1, sizeof(*hp));
	struct big *mp = xcalloc(n + 1, sizeof(*mp));
	uint64_t k;
	size_t i;

	for (i = 0; i < one->n; i++) {
		if (cmp_match(c, one->lo + (int64_t)i))
			big_add(&hit, &one->c[i]);
	}
	big_copy(&miss, &one->den);
	big_sub(&miss, &hit);
	/* powers hit^k and miss^k, k = 0..n */
	big_set_u64(&hp[0], 1);
	big_set_u64(&mp[0], 1);
	for (k = 1; k <= n; k++) {
		big_mul(&hp[k], &hp[k - 1], &hit);
		big_mul(&mp[k], &mp[k - 1], &miss);
	}
	memset(out, 0, sizeof(*out));
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
	big_set_u64(&out->den, 1);
	for (k = 0; k < n; k++) {
		big_mul(&t, &out->den, &one->den);
		big_swap(&t, &out->den);
	}
	for (k = 0; k <= n; k++) {
		big_free(&hp[k]);
		big_free(&mp[k]);
	}
	xfree(hp);
	xfree(mp);
	dist_lowest(out);
	big_free(&hit);
	big_free(&miss);
	big_free(&t);
	big_free(&binom);
}
