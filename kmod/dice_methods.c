// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_methods.c - the source documents' samplers, done exactly
 *
 *  - DICE_METHOD_VIGLIETTA: a fair n-sided die from one (1/n)-coin and
 *    exactly 3 floor(log2 n) + 1 fair flips (Viglietta, "Simulating a die
 *    roll by flipping two coins").
 * series: batch
 *  - DICE_METHOD_BATCH: k rolls as one uniform integer on [0, n^k), served
 *    as its mixed-radix digits (nullprogram, "Entropy-efficient dice").
 * series: end
 * series: alias-method
 *  - DICE_METHOD_ALIAS: Vose's alias method as in Games::Dice::Loaded: a
 *    fresh uniform column and a biased coin per roll, nothing recycled.
 * series: end
 *
 * Biased coins are tossed by comparing fresh bits with the binary expansion
 * of their probability, generated exactly by long division.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "dice_die.h"

/**
 * dice_method_check() - can @method roll a die of @kind?
 * @method: DICE_METHOD_*
 * @kind: DICE_KIND_*
 *
 * Return: 0, or -EINVAL for an unknown method or one that needs a fair die.
 */
int dice_method_check(u32 method, u32 kind)
{
	switch (method) {
	case DICE_METHOD_RECYCLE:
	/* series: alias-method */
	case DICE_METHOD_ALIAS:
	/* series: end */
		return 0;
	case DICE_METHOD_VIGLIETTA:
	/* series: batch */
	case DICE_METHOD_BATCH:
	/* series: end */
#ifndef __KERNEL__
	case DICE_METHOD_REJECTION:	/* userspace's baseline only */
#endif
		return kind == DICE_KIND_FAIR ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/*
 * Heads with probability @num / @den exactly: heads iff the fresh bits,
 * read as a binary fraction U, fall below num / den.  Two bits on average.
 */
int dice_coin(struct dice_die *die, u64 num, u64 den, bool *heads)
{
	u128 r = num;
	unsigned int flips = 0;
	u64 u, p;
	int err;

	if (num >= den || !num) {
		*heads = num != 0;
		return 0;
	}
	/* Bound: DICE_MAX_REJECTS flips, each undecided with probability 1/2. */
	for (;;) {
		err = dice_pool_take(&die->pool, 1, &u);
		if (err)
			return err;
		die->coin_bits++;
		r <<= 1;
		p = r >= den;
		if (p)
			r -= den;
		if (u != p) {
			*heads = u < p;
			return 0;
		}
		if (unlikely(dice_too_many_rejects(&flips)))
			return -EUCLEAN;
	}
}

/**
 * dice_roll_viglietta() - Theorem 4 of Viglietta's paper
 * @die: a fair die
 * @face: the zero-based face
 *
 * With k = floor(log2 n) and a + b(n - 1) = 2^(2k+1) (Proposition 1): a
 * (1/n)-coin and k + 1 flips give a (2^k/n)-coin (Lemma 2), and that coin
 * with 2k more flips gives the die (Lemma 3).  All 3k + 1 flips are made
 * every roll, as in the paper.
 *
 * Return: 0 or the pool's error.
 */
int dice_roll_viglietta(struct dice_die *die, u64 *face)
{
	u64 n = die->sides, d, d1, d2, pow, m;
	unsigned int k = fls64(n) - 1;
	u128 a, b;
	bool coin, heads;
	int err;

	pow = 1ULL << k;
	if (n == pow) {
		a = (u128)1 << (k + 1);
		b = a;
	} else {
		b = (u128)1 << (2 * k + 1);
		a = dice_div128(&b, n - 1);
	}
	err = dice_coin(die, 1, n, &coin);
	if (!err)
		err = dice_pool_take(&die->pool, k + 1, &d);
	if (!err)
		err = dice_pool_take(&die->pool, k, &d1);
	if (!err)
		err = dice_pool_take(&die->pool, k, &d2);
	if (err)
		return err;
	heads = coin ? d < a : d < b;
	m = n - pow;
	if (!heads)
		*face = d1;
	else if (d1 >= m)
		*face = d2;
	else
		*face = pow + d1;
	return 0;
}

/* series: alias-method */
/**
 * dice_roll_rejection() - DICE_METHOD_REJECTION: fresh bits, no recycling
 * @die: a fair die
 * @face: the zero-based face
 *
 * The textbook baseline: ceil(log2 n) fresh bits a try, tried again above n.
 *
 * Return: 0 or the pool's error.
 */
int dice_roll_rejection(struct dice_die *die, u64 *face)
{
	return dice_fresh_uniform(&die->pool, die->sides, face);
}

/**
 * dice_roll_alias() - DICE_METHOD_ALIAS: a fresh column and a biased coin
 * @die: the die
 * @face: the zero-based face
 *
 * Vose's sampling as Games::Dice::Loaded does it, with the coin flipped
 * exactly (dice_coin()).  A fair die is a table of full columns, whose coin
 * always says heads: it is a fresh column alone, as dice_roll_rejection().
 *
 * Return: 0 or the pool's error.
 */
int dice_roll_alias(struct dice_die *die, u64 *face)
{
	const struct dice_table *table = die->table;
	bool heads;
	u64 c;
	int err;

	if (!table)
		return dice_roll_rejection(die, face);
	err = dice_fresh_uniform(&die->pool, die->sides, &c);
	if (err)
		return err;
	err = dice_coin(die, dice_table_thr(table, (u32)c), table->mass,
			&heads);
	if (err)
		return err;
	*face = heads ? c : dice_table_alias(table, (u32)c);
	return 0;
}

/* series: end */

/* series: batch */
/* ---- batches: big numbers in little-endian 64-bit limbs ------------------ */

static u64 dice_big_mul(u64 *big, unsigned int limbs, u64 n)
{
	u64 carry = 0;
	unsigned int i;

	for (i = 0; i < limbs; i++) {
		u128 t = (u128)big[i] * n + carry;

		big[i] = (u64)t;
		carry = (u64)(t >> 64);
	}
	return carry;
}

static u64 dice_big_divmod(u64 *big, unsigned int limbs, u64 d)
{
	u128 part;
	u64 rem = 0;
	unsigned int i;

	for (i = limbs; i-- > 0;) {
		part = ((u128)rem << 64) | big[i];
		rem = dice_div128(&part, d);
		big[i] = (u64)part;
	}
	return rem;
}

static unsigned int dice_big_bits(const u64 *big, unsigned int limbs)
{
	while (limbs && !big[limbs - 1])
		limbs--;
	return limbs ? 64 * (limbs - 1) + fls64(big[limbs - 1]) : 0;
}

static bool dice_big_is_pow2(const u64 *big, unsigned int limbs)
{
	unsigned int i, ones = 0;

	for (i = 0; i < limbs; i++)
		ones += big[i] ? (big[i] & (big[i] - 1) ? 2 : 1) : 0;
	return ones == 1;
}

/* The top 64 bits of @big, or 2^64 for a power of two: 2^bits / N ~ 2^64/t. */
static u128 dice_big_top(const u64 *big, unsigned int limbs)
{
	unsigned int len = dice_big_bits(big, limbs), lo = len > 64 ? len - 64 : 0;
	unsigned int i = lo / 64, sh = lo % 64;
	u64 top;

	if (dice_big_is_pow2(big, limbs))
		return (u128)1 << 64;
	top = big[i] >> sh;
	if (sh && i + 1 < limbs)
		top |= big[i + 1] << (64 - sh);
	return (u128)top << (64 - (len - lo));
}

/* No roll waits in @batch, and nothing of the last one stays. */
static void dice_batch_empty(struct dice_batch *batch)
{
	batch->left = 0;
	batch->in_chunk = 0;
	memzero_explicit(&batch->chunk, sizeof(batch->chunk));
	memzero_explicit(batch->value, sizeof(batch->value));
}

/**
 * dice_batch_plan() - choose k for a die of @sides sides
 * @batch: the batch state
 * @sides: at least 2
 *
 * The expected cost of a draw is bits * 2^bits / n^k by rejection, so k is
 * the one with the least bits * 2^bits / (k n^k) while n^k fits the buffer:
 * n^k just below a power of two, as the nullprogram post suggests.  Ratios are
 * compared in integers.
 *
 * Return: 0.
 */
int dice_batch_plan(struct dice_batch *batch, u64 sides)
{
	u64 *cur = batch->value;
	unsigned int k, limbs = 1, bits, best_bits = 0, best_k = 0;
	u128 t, best_t = 0;
	u64 carry, r;

	memset(batch->value, 0, sizeof(batch->value));
	cur[0] = 1;
	for (k = 1;; k++) {
		carry = dice_big_mul(cur, limbs, sides);
		if (carry) {
			if (limbs == DICE_BATCH_LIMBS)
				break;
			cur[limbs++] = carry;
		}
		bits = dice_big_bits(cur, limbs) - dice_big_is_pow2(cur, limbs);
		t = dice_big_top(cur, limbs);
		if (!best_k || (u128)bits * best_k * best_t <
			       (u128)best_bits * k * t) {
			best_k = k;
			best_bits = bits;
			best_t = t;
			batch->limbs = limbs;
			memcpy(batch->bound, cur, limbs * sizeof(u64));
		}
	}
	batch->sides = sides;
	batch->k = best_k;
	batch->bits = best_bits;
	for (r = sides, k = 1; r <= U64_MAX / sides; k++)
		r *= sides;
	batch->radix = r;
	batch->per_radix = k;
	dice_batch_empty(batch);
	return 0;
}

/* Draw value uniform on [0, n^k): bits fresh bits a try, again if too big. */
static int dice_batch_try(struct dice_die *die)
{
	struct dice_batch *batch = die->batch;
	unsigned int top = batch->limbs - 1, i, nb, rejects = 0;
	int err;

	/*
	 * Bound: DICE_MAX_REJECTS tries; n^k > 2^(bits - 1), so a try is
	 * rejected with probability below 1/2.
	 */
	for (;;) {
		for (i = batch->limbs; i-- > 0;) {
			nb = i == top ? batch->bits - 64 * top : 64;
			err = dice_pool_take(&die->pool, nb, &batch->value[i]);
			if (err)
				return err;
		}
		for (i = batch->limbs; i-- > 0;)
			if (batch->value[i] != batch->bound[i])
				break;
		if (i < batch->limbs && batch->value[i] < batch->bound[i])
			break;
		/* A rejected try is spent for good, whatever comes next. */
		dice_pool_commit(&die->pool);
		if (unlikely(dice_too_many_rejects(&rejects)))
			return -EUCLEAN;
	}
	batch->left = batch->k;
	return 0;
}

/**
 * dice_batch_drop() - forget the rolls waiting in a batch
 * @die: the die
 *
 * A batch draws hundreds of rolls at once (971 of a d6), so the rolls one
 * short read leaves would serve the reads after it from CRNG output drawn
 * before: the module drops them when a read from the CRNG returns
 * (dice_stream_trim()), so that no more than a read's own use waits.  The
 * next roll draws a new batch.
 */
void dice_batch_drop(struct dice_die *die)
{
	if (die->batch)
		dice_batch_empty(die->batch);
}

/**
 * dice_roll_batch() - serve the next digit of a batch, drawing one if needed
 * @die: a fair die
 * @face: the zero-based face
 *
 * Digits come least significant first, a 64-bit chunk of them at a time so
 * the big number is divided once per chunk rather than once per roll.
 *
 * Return: 0 or the pool's error.
 */
int dice_roll_batch(struct dice_die *die, u64 *face)
{
	struct dice_batch *batch = die->batch;
	u64 n = die->sides;
	int err;

	if (n == 1) {
		*face = 0;
		return 0;
	}
	if (batch->sides != n)
		dice_batch_plan(batch, n);
	if (!batch->in_chunk) {
		if (!batch->left) {
			err = dice_batch_try(die);
			if (err)
				return err;
		}
		if (batch->left >= batch->per_radix) {
			batch->chunk = dice_big_divmod(batch->value, batch->limbs,
						       batch->radix);
			batch->in_chunk = batch->per_radix;
		} else {
			batch->chunk = batch->value[0];	/* < n^left < radix */
			batch->in_chunk = batch->left;
		}
		batch->left -= batch->in_chunk;
	}
	*face = batch->chunk % n;
	batch->chunk /= n;
	batch->in_chunk--;
	return 0;
}

/* series: end */
