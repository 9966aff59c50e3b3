// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * alias.c - dice_alias_build() is exact: every column has mass W (the sum
 * of the weights), thresholds stay within it, aliases within the sides,
 * and side i collects exactly n * w_i over all columns.
 */
#include <errno.h>
#include <stdlib.h>

#include "dice.h"
#include "tap.h"

/* xorshift64*: reproducible weights without any library randomness. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Build, then check the table column by column; 1 if exact. */
static int check_exact(const uint32_t *w, uint32_t n)
{
	uint64_t *thr = calloc(n, 8), *got = calloc(n, 8), mass = 0, sum = 0;
	uint32_t *alias = calloc(n, 4), c, i;
	int ok = 1;

	if (!thr || !got || !alias)
		return 0;
	if (dice_alias_build(w, n, thr, alias, &mass)) {
		ok = 0;
		goto out;
	}
	for (i = 0; i < n; i++)
		sum += w[i];
	if (mass != sum) {
		tap_note("n=%u: mass %llu, weights sum to %llu", n,
			 (unsigned long long)mass, (unsigned long long)sum);
		ok = 0;
	}
	for (c = 0; c < n; c++) {
		if (thr[c] > mass || alias[c] >= n) {
			tap_note("n=%u: column %u out of range", n, c);
			ok = 0;
			goto out;
		}
		got[c] += thr[c];
		got[alias[c]] += mass - thr[c];
	}
	for (i = 0; i < n; i++) {
		if (got[i] != (uint64_t)n * w[i]) {
			tap_note("n=%u: side %u has %llu, not n * w = %llu", n,
				 i, (unsigned long long)got[i],
				 (unsigned long long)n * w[i]);
			ok = 0;
			break;
		}
	}
out:
	free(thr);
	free(got);
	free(alias);
	return ok;
}

static void test_small(void)
{
	EXPECT(check_exact((const uint32_t[]){ 1 }, 1));
	EXPECT(check_exact((const uint32_t[]){ 0, 5 }, 2));
	EXPECT(check_exact((const uint32_t[]){ 2, 2, 6, 1, 1 }, 5));
	EXPECT(check_exact((const uint32_t[]){ 1, 1, 1, 1 }, 4));
	EXPECT(check_exact((const uint32_t[]){ 1, 0, 0, 0, 0, 0, 0, 0 }, 8));
	EXPECT(check_exact((const uint32_t[]){ 3, 1, 4, 1, 5, 9, 2, 6 }, 8));
}

static void test_extremes(void)
{
	uint32_t w[7] = { UINT32_MAX, 1, UINT32_MAX, 0, UINT32_MAX - 1, 2, 7 };

	EXPECT(check_exact(w, 7));
	for (unsigned int i = 0; i < 7; i++)
		w[i] = UINT32_MAX;
	EXPECT(check_exact(w, 7));
}

static void test_random(void)
{
	static const uint32_t sizes[] = { 2, 3, 10, 100, 1000, 65536 };
	unsigned int s, t, i;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (t = 0; t < 4; t++) {
			uint32_t n = sizes[s], *w = calloc(n, 4);

			ASSERT_EQ(!!w, 1);
			for (i = 0; i < n; i++) {
				uint64_t r = rng();

				/* Mix tiny, zero and full-range weights. */
				w[i] = t == 0 ? (uint32_t)(r % 3) :
				       t == 1 ? (uint32_t)(r >> 32) :
				       t == 2 ? (uint32_t)(r % 65536) + 1 :
				       (uint32_t)(1000000 / (i + 1));
			}
			w[n - 1] |= 1;	/* never all zero */
			EXPECT(check_exact(w, n));
			free(w);
		}
	}
}

/* A table made here is accepted by dice_set_alias() as the same die. */
static void test_set_alias_masses(void)
{
	static const uint32_t w[] = { 6, 0, 3, 3, 12 };
	uint64_t thr[5], masses[5], sides, total, mass;
	uint32_t alias[5];
	struct dice *d;
	unsigned int i;

	ASSERT_EQ(dice_alias_build(w, 5, thr, alias, &mass), 0);
	ASSERT_EQ(dice_open_seeded(&d, 3), 0);
	ASSERT_EQ(dice_set_alias(d, thr, alias, 5, mass), 0);
	ASSERT_EQ(dice_get_masses(d, masses, 5, &sides, &total), 0);
	EXPECT_EQ(sides, 5);
	EXPECT_EQ(total, 8);	/* 24 in lowest terms */
	for (i = 0; i < 5; i++)
		EXPECT_EQ(masses[i] * 3, w[i]);
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_small);
	TAP_RUN(test_extremes);
	TAP_RUN(test_random);
	TAP_RUN(test_set_alias_masses);
	return tap_done("alias");
}
