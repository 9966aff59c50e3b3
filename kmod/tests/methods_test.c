// SPDX-License-Identifier: GPL-2.0
/*
 * methods_test.c - the source documents' methods: exhaustive exactness and bits a roll
 *
 * Every method is enumerated over all bit strings of a length: the tuples of
 * faces decided within them must have masses exactly proportional to their
 * probabilities.  Then bits per roll over 10^6 rolls are checked against each
 * method's known expectation and printed as the table the docs publish.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dice_stream.h"
#include "method_names.h"
#include "splitmix.h"
#include "tap.h"

static u64 rng_state = 0x243f6a8885a308d3ULL;

static int prng_fill(void *ctx, u64 *words, unsigned int nwords)
{
	(void)ctx;
	return splitmix_fill(&rng_state, words, nwords);
}

/* A die for one enumeration step: fair (@w NULL) or loaded, with @method. */
struct die_spec {
	u64 sides;
	const u32 *w;
	u32 method;
	unsigned int batch_k;	/* force a small batch, for enumeration */
};

static void setup(struct dice_die *die, const struct die_spec *spec,
		  dice_fill_fn fill)
{
	dice_die_init(die, fill, NULL);
	if (spec->w) {
		struct dice_table *t = dice_table_alloc((u32)spec->sides);

		dice_table_from_weights(t, spec->w);
		dice_die_set_table(die, t);
	} else {
		dice_die_set_sides(die, spec->sides);
	}
	EXPECT(!dice_die_set_method(die, spec->method));
	if (spec->batch_k) {
		struct dice_batch *b = die->batch;
		unsigned int i;

		/* k rolls of n, one limb; radix n so the big division runs. */
		b->sides = spec->sides;
		b->k = spec->batch_k;
		b->limbs = 1;
		b->bound[0] = 1;
		for (i = 0; i < b->k; i++)
			b->bound[0] *= spec->sides;
		b->bits = fls64(b->bound[0] - 1);
		b->radix = spec->sides;
		b->per_radix = 1;
		b->left = 0;
		b->in_chunk = 0;
	}
}

/*
 * Roll @rolls times from each L-bit string.  For methods whose bit count
 * does not depend on the face (rejection, batch, a fair alias die) the count
 * of every decided tuple must be exactly proportional to the product of its
 * masses.  A lazy biased coin stops earlier on some outcomes than on others,
 * so for methods with coins the exact probability of each tuple must lie
 * between its decided count and that plus every undecided string.
 */
static void enumerate(const struct die_spec *spec, unsigned int rolls,
		      unsigned int L)
{
	u64 n = spec->sides, tuples = 1, s, t, decided = 0, total = 0;
	u64 *count, face;
	unsigned int r;
	struct dice_die die;
	bool coins = spec->method == DICE_METHOD_VIGLIETTA ||
		     (spec->method == DICE_METHOD_ALIAS && spec->w);

	for (r = 0; r < rolls; r++)
		tuples *= n;
	count = calloc(tuples, sizeof(*count));
	for (s = 0; s < (1ULL << L); s++) {
		setup(&die, spec, NULL);
		dice_pool_put(&die.pool, s, L);
		for (r = 0, t = 0; r < rolls; r++) {
			if (dice_die_roll(&die, &face))
				break;
			EXPECT(face < n);
			t = t * n + face;
		}
		if (r == rolls) {
			count[t]++;
			decided++;
		}
		dice_die_wipe(&die);
	}
	EXPECT(decided > 0);
	if (spec->w)
		for (face = 0; face < n; face++)
			total += spec->w[face];
	for (t = 0; t < tuples && !tap_case_failed; t++) {
		/* count[t] / decided == prod(w) / total^rolls */
		u128 lhs = count[t], rhs = decided, mass = 1, all = 1;
		u64 rest = t;

		for (r = 0; r < rolls; r++) {
			mass *= spec->w ? spec->w[rest % n] : 1;
			all *= spec->w ? total : n;
			rest /= n;
		}
		if (coins) {
			u128 undecided = (1ULL << L) - decided;

			/* count/2^L <= mass/all <= (count + undecided)/2^L */
			if (lhs * all <= mass << L &&
			    mass << L <= (lhs + undecided) * all)
				continue;
		} else if (lhs * all == rhs * mass) {
			continue;
		}
		{
			printf("#   n=%llu method %u tuple %llu: %llu of %llu\n",
			       (unsigned long long)n, spec->method,
			       (unsigned long long)t,
			       (unsigned long long)count[t],
			       (unsigned long long)decided);
			tap_case_failed = 1;
		}
	}
	free(count);
}

/*
 * The lazy coin is exact: of all L-bit strings, exactly floor(p 2^L) say
 * heads by their L-th bit, and all others but one (the string that matches
 * p's first L binary digits) say tails, unless p is 0 or 1.
 */
static void test_exact_coin(void)
{
	static const u64 coin[][2] = { { 1, 2 }, { 1, 3 }, { 2, 3 }, { 1, 6 },
		{ 5, 12 }, { 1, 1000003 }, { 7, 8 }, { 0, 5 }, { 5, 5 } };
	unsigned int i, L = 16;
	u64 s;

	for (i = 0; i < ARRAY_SIZE(coin); i++) {
		u64 heads = 0, tails = 0, num = coin[i][0], den = coin[i][1];
		u128 scaled = (u128)num << L;
		struct dice_die die;
		bool h;

		for (s = 0; s < (1ULL << L); s++) {
			dice_die_init(&die, NULL, NULL);
			dice_pool_put(&die.pool, s, L);
			if (!dice_coin(&die, num, den, &h))
				*(h ? &heads : &tails) += 1;
		}
		EXPECT(heads == scaled / den);
		EXPECT(tails == (1ULL << L) - scaled / den -
				(num && num < den ? 1 : 0));
	}
}

static void test_exhaustive_viglietta(void)
{
	struct die_spec spec = { .method = DICE_METHOD_VIGLIETTA };

	for (spec.sides = 1; spec.sides <= 13; spec.sides++)
		enumerate(&spec, 1, 16);
	spec.sides = 6;
	enumerate(&spec, 2, 20);
}

static void test_exhaustive_batch(void)
{
	struct die_spec spec = { .method = DICE_METHOD_BATCH };

	for (spec.sides = 2; spec.sides <= 7; spec.sides++) {
		spec.batch_k = 2;
		enumerate(&spec, 2, 12);
		enumerate(&spec, 3, 16);	/* across two batches */
	}
	spec.sides = 6;
	spec.batch_k = 0;	/* the real plan: its first draw is too big */
	{
		struct dice_die die;
		u64 face;

		setup(&die, &spec, prng_fill);
		EXPECT(!dice_die_roll(&die, &face) && face < 6);
		/* n^k below 2^bits, and more than half of it (else k+1 wins) */
		EXPECT(die.batch->k >= 17 && die.batch->bits <= 4096);
		EXPECT(die.batch->per_radix == 24);
		dice_die_wipe(&die);
	}
}

static void test_exhaustive_alias_rejection(void)
{
	static const u32 seed[] = { 2, 2, 6, 1, 1 }, gap[] = { 1, 0, 3 };
	struct die_spec spec = { .method = DICE_METHOD_REJECTION };

	for (spec.sides = 1; spec.sides <= 12; spec.sides++)
		enumerate(&spec, 2, 16);
	spec.method = DICE_METHOD_ALIAS;
	for (spec.sides = 1; spec.sides <= 7; spec.sides++)
		enumerate(&spec, 1, 14);
	spec.w = seed;
	spec.sides = 5;
	enumerate(&spec, 1, 18);
	enumerate(&spec, 2, 20);
	spec.w = gap;
	spec.sides = 3;
	enumerate(&spec, 2, 18);
}

static void test_inapplicable(void)
{
	static const u32 w[] = { 1, 2 };
	struct die_spec spec = { .sides = 2, .w = w };
	struct dice_table *t = dice_table_alloc(2);
	struct dice_die die;

	setup(&die, &spec, NULL);
	EXPECT(dice_die_set_method(&die, DICE_METHOD_VIGLIETTA) == -EINVAL);
	EXPECT(dice_die_set_method(&die, DICE_METHOD_BATCH) == -EINVAL);
	EXPECT(dice_die_set_method(&die, DICE_METHOD_REJECTION) == -EINVAL);
	EXPECT(dice_die_set_method(&die, 5) == -EINVAL);
	EXPECT(die.method == DICE_METHOD_RECYCLE);
	EXPECT(!dice_die_set_sides(&die, 6));
	EXPECT(!dice_die_set_method(&die, DICE_METHOD_VIGLIETTA));
	dice_table_from_weights(t, w);
	EXPECT(dice_die_set_table(&die, t) == -EINVAL);
	EXPECT(die.kind == DICE_KIND_FAIR && die.sides == 6);
	dice_die_wipe(&die);
}

/* ---- bits per roll against each method's expectation -------------------- */

static double entropy(const struct die_spec *spec)
{
	double total = 0, h = 0;
	u64 i;

	if (!spec->w)
		return log2((double)spec->sides);
	for (i = 0; i < spec->sides; i++)
		total += spec->w[i];
	for (i = 0; i < spec->sides; i++)
		if (spec->w[i])
			h -= spec->w[i] / total * log2(spec->w[i] / total);
	return h;
}

/* Information in one face: log2(1 / p(face)). */
static double surprisal(const struct die_spec *spec, u64 face)
{
	double total = 0;
	u64 i;

	if (!spec->w)
		return log2((double)spec->sides);
	for (i = 0; i < spec->sides; i++)
		total += spec->w[i];
	return log2(total / spec->w[face]);
}

/* Expected bits a roll, from each method's closed form. */
static double expected(const struct die_spec *spec, struct dice_die *die)
{
	double n = (double)spec->sides;
	unsigned int k = fls64(spec->sides - 1), kv = fls64(spec->sides) - 1;
	double reject = k * pow(2, k) / n;	/* ceil(log2 n) bits a try */
	struct dice_batch *b = die->batch;
	u64 c, coins = 0;

	switch (spec->method) {
	case DICE_METHOD_VIGLIETTA:
		return 3 * kv + 1 + 2;		/* flips + two coin bits */
	case DICE_METHOD_REJECTION:
		return reject;
	case DICE_METHOD_BATCH:
		return b->bits * pow(2, b->bits - b->k * log2(n)) / b->k;
	case DICE_METHOD_ALIAS:
		if (die->table)
			for (c = 0; c < spec->sides; c++)
				coins += dice_table_thr(die->table, c) &&
					 dice_table_thr(die->table, c) <
					 die->table->mass;
		return reject + 2.0 * (double)coins / n;
	default:
		return entropy(spec);
	}
}

static void test_bits_table(void)
{
	static const u64 fair[] = { 2, 6, 20, 100, 1000003, (1ULL << 31) + 1 };
	static const u32 seed[] = { 2, 2, 6, 1, 1 };
	static u32 zipf[1000];
	struct die_spec specs[64];
	unsigned int nspec = 0, i, m;
	u64 face, r;

	for (i = 0; i < 1000; i++)
		zipf[i] = (u32)(1000000.0 / (i + 1) + 0.5);
	for (m = 0; m <= DICE_METHOD_REJECTION; m++) {
		for (i = 0; i < ARRAY_SIZE(fair); i++)
			specs[nspec++] = (struct die_spec){ fair[i], NULL, m, 0 };
		if (m == DICE_METHOD_RECYCLE || m == DICE_METHOD_ALIAS) {
			specs[nspec++] = (struct die_spec){ 5, seed, m, 0 };
			specs[nspec++] = (struct die_spec){ 1000, zipf, m, 0 };
		}
	}
	printf("# %-10s %-12s %10s %10s %10s\n", "method", "die", "H",
	       "bits/roll", "expected");
	for (i = 0; i < nspec; i++) {
		struct dice_die die;
		double h = entropy(&specs[i]), got, want, info;
		char name[32];

		setup(&die, &specs[i], prng_fill);
		info = 0;
		for (r = 0; r < 1000000; r++) {
			dice_die_roll(&die, &face);
			info += surprisal(&specs[i], face);
		}
		got = (double)dice_pool_used(&die.pool) / 1e6;
		want = expected(&specs[i], &die);
		if (specs[i].w)
			snprintf(name, sizeof(name), "%s",
				 specs[i].sides == 5 ? "{2,2,6,1,1}" : "zipf-1000");
		else
			snprintf(name, sizeof(name), "d%llu",
				 (unsigned long long)specs[i].sides);
		printf("# %-10s %-12s %10.4f %10.4f %10.4f\n",
		       dice_method_names[specs[i].method], name, h, got, want);
		if (specs[i].method == DICE_METHOD_VIGLIETTA) {
			/* fair flips are exact; coin bits near 2 a roll */
			u64 flips = dice_pool_used(&die.pool) - die.coin_bits;
			unsigned int kv = fls64(specs[i].sides) - 1;

			EXPECT(flips == 1000000ULL * (3 * kv + 1));
			EXPECT(die.coin_bits > 1900000 && die.coin_bits < 2100000);
		} else if (specs[i].method == DICE_METHOD_RECYCLE) {
			/* Waste against the faces actually rolled, so sampling
			 * noise in the faces does not count as waste.
			 */
			EXPECT(fabs(got - info / 1e6) <= 0.001 * h);
			EXPECT(fabs(info / 1e6 - h) <= 0.005 * h);
		} else if (specs[i].method == DICE_METHOD_BATCH) {
			/*
			 * Tries per batch are geometric with success p: over
			 * 10^6 / k batches the mean has a relative standard
			 * deviation of sqrt((1 - p) k / 10^6), 0.8% for
			 * 2^31 + 1 (k of 132, p near 1/2).  Allow 5 of them.
			 */
			struct dice_batch *b = die.batch;
			double p = pow(2, b->k * log2((double)specs[i].sides) -
					  b->bits);
			double sd = sqrt((1 - p) * b->k / 1e6);

			EXPECT(fabs(got - want) <= fmax(0.01, 5 * sd) * want);
		} else {
			EXPECT(fabs(got - want) <= 0.01 * want);
		}
		EXPECT(got >= h * 0.999);
		dice_die_wipe(&die);
	}
}

int main(void)
{
	printf("TAP version 13\n");
	tap_run("methods: lazy biased coin is exact", test_exact_coin);
	tap_run("methods: viglietta exhaustive exactness",
		test_exhaustive_viglietta);
	tap_run("methods: batch exhaustive exactness", test_exhaustive_batch);
	tap_run("methods: alias and rejection exhaustive exactness",
		test_exhaustive_alias_rejection);
	tap_run("methods: inapplicable methods refused", test_inapplicable);
	tap_run("methods: bits per roll against expectations", test_bits_table);
	return tap_done("methods");
}
