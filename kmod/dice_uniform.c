// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_uniform.c - uniform integers at the entropy bound, by recycling
 *
 * The recycler keeps x uniform on [0, m).  To draw from [0, n): top m up with
 * fresh bits, let q = m / n; if x < q * n the draw is x mod n and (x / n, q)
 * is a fresh uniform pair for the next draw; otherwise (x - q * n, m - q * n)
 * is, and we try again.  Nothing is thrown away but the one accept/reject
 * outcome, which is nearly certain when m is much larger than n, so the cost
 * per draw tends to log2 n bits (see Documentation/dice/recycling.rst).
 *
 * Dice below 2^32 sides top m up to 63 bits and use 64-bit arithmetic
 * (dice_narrow_draw()); larger ones top it up to 128 bits.  Either way the
 * chance of a rejection is at most 2^-30 per draw.  Any width would be
 * exact as long as the topped up m is at least the number of outcomes;
 * tests use small ones.
 */
#include <linux/kernel.h>

#include "dice_uniform.h"

/*
 * (@hi:@lo) / @d for @hi < @d, in plain C: Knuth's algorithm D on 32-bit
 * digits after normalizing @d (Hacker's Delight, divlu), two 64-by-32
 * divisions where x86 has one 128-by-64 divq.  The kernel offers no helper
 * that returns a 128-by-64 quotient with its remainder, and inline assembly
 * has no place in a driver.  The quotient fits 64 bits because @hi < @d.
 */
static u64 dice_div_128_64(u64 hi, u64 lo, u64 d, u64 *rem)
{
	const u64 b = 1ULL << 32;
	unsigned int s = 64 - fls64(d);	/* d is not zero */
	u64 vn1, vn0, un32, un21, un10, un1, un0, q1, q0, rhat;

	d <<= s;
	vn1 = d >> 32;
	vn0 = d & (b - 1);
	un32 = s ? hi << s | lo >> (64 - s) : hi;
	un10 = lo << s;
	un1 = un10 >> 32;
	un0 = un10 & (b - 1);

	q1 = un32 / vn1;
	rhat = un32 - q1 * vn1;
	while (q1 >= b || q1 * vn0 > b * rhat + un1) {
		q1--;
		rhat += vn1;
		if (rhat >= b)
			break;
	}
	un21 = un32 * b + un1 - q1 * d;

	q0 = un21 / vn1;
	rhat = un21 - q0 * vn1;
	while (q0 >= b || q0 * vn0 > b * rhat + un0) {
		q0--;
		rhat += vn1;
		if (rhat >= b)
			break;
	}
	*rem = (un21 * b + un0 - q0 * d) >> s;
	return q1 * b + q0;
}

/**
 * dice_div128() - divide a 128-bit integer by a 64-bit one, in place
 * @a: the dividend, replaced by the quotient
 * @d: the divisor, not zero
 *
 * The kernel has no 128-bit division helper, so build one from a 64-bit
 * division and dice_div_128_64().
 *
 * Return: the remainder.
 */
u64 dice_div128(u128 *a, u64 d)
{
	u64 hi = (u64)(*a >> 64), lo = (u64)*a, qhi = 0, rem;

	if (hi >= d) {
		qhi = hi / d;
		hi %= d;
	}
	*a = ((u128)qhi << 64) | dice_div_128_64(hi, lo, d, &rem);
	return rem;
}

void dice_recycler_init(struct dice_recycler *rec)
{
	rec->x = 0;
	rec->m = 1;
	rec->held = 0;
	rec->held_size = 1;
	/* series: loaded */
	rec->ahead_next = 0;
	rec->ahead_count = 0;
	rec->ahead_depth = 0;
	rec->ahead_limit = DICE_AHEAD;
	rec->ahead_sides = DICE_AHEAD_SIDES;
	/* series: end */
	rec->narrow_limit = DICE_NARROW_LIMIT;
	rec->whole_limit = DICE_WHOLE_LIMIT;
	rec->narrow_width = DICE_NARROW_WIDTH;
	rec->wide_width = DICE_WIDE_WIDTH;
}

static inline unsigned int dice_fls128(u128 v)
{
	u64 hi = (u64)(v >> 64);

	return hi ? 64 + fls64(hi) : fls64((u64)v);
}

/* Shift fresh bits into x until m has @width bits. */
static int dice_recycler_fill(struct dice_recycler *rec,
			      struct dice_pool *pool, unsigned int width)
{
	unsigned int have = dice_fls128(rec->m);

	/* Bound: width / 64 + 1 passes, each adds 1 to 64 bits to m. */
	while (have < width) {
		unsigned int k = width - have;
		u64 bits;
		int err;

		if (k > 64)
			k = 64;
		err = dice_pool_take(pool, k, &bits);
		if (err)
			return err;
		rec->x = (rec->x << k) | bits;
		rec->m <<= k;
		have += k;
	}
	return 0;
}

/**
 * dice_divisor_init() - prepare division by @d
 * @dv: the divisor
 * @d: at least 1
 *
 * With l = ceil(log2 d) and magic = floor(2^(63 + l) / d) + 1, below 2^64,
 * x / d == (x * magic) >> (63 + l) for every x < 2^63 (Granlund and
 * Montgomery, "Division by invariant integers using multiplication",
 * theorem 4.2 with N = 63): one multiplication, no correction step and no
 * special case for powers of two.
 */
void dice_divisor_init(struct dice_divisor *dv, u64 d)
{
	unsigned int l = d > 1 ? fls64(d - 1) : 0;
	u128 q;

	dv->d = d;
	if (l == 64) {
		/* d > 2^63: every dividend is smaller, the quotient 0. */
		dv->magic = 0;
		dv->shift = 0;
		return;
	}
	q = (u128)1 << (63 + l);
	dice_div128(&q, d);
	dv->magic = (u64)q + 1;
	dv->shift = l;
}

/**
 * dice_uniform_div() - draw uniformly from [0, d), recycling leftovers
 * @rec: the recycler
 * @pool: fresh bits
 * @dv: division by the number of outcomes d, at least 1
 * @out: the draw
 *
 * Return: 0 or the pool's error; on error the caller restores @rec and @pool.
 */
int dice_uniform_div(struct dice_recycler *rec, struct dice_pool *pool,
		     const struct dice_divisor *dv, u64 *out)
{
	u64 n = dv->d;
	unsigned int rejects = 0;
	int err;

	if (n < rec->narrow_limit) {
		u64 x = (u64)rec->x, m = (u64)rec->m;
		struct dice_reader rd;

		/* The die invariant: a narrow die's m is narrow. */
		if (WARN_ON_ONCE(rec->m >> rec->narrow_width))
			return -EUCLEAN;
		dice_reader_open(&rd, pool);
		err = dice_narrow_draw(&rd, dv, rec->narrow_width, &x, &m, out);
		dice_reader_close(&rd);
		rec->x = x;
		rec->m = m;
		return err;
	}
	/*
	 * Bound: DICE_MAX_REJECTS passes, as dice_narrow_draw(): a rejection
	 * leaves m < n, and the next pass tops it up with fresh bits.
	 */
	for (;;) {
		u128 q, xq, lim;
		u64 rem;

		if ((rec->m >> (rec->wide_width / 2)) < n) {
			err = dice_recycler_fill(rec, pool, rec->wide_width);
			if (err)
				return err;
		}
		q = rec->m;
		rem = dice_div128(&q, n);
		lim = rec->m - rem;
		if (likely(rec->x < lim)) {
			xq = rec->x;
			*out = dice_div128(&xq, n);
			rec->x = xq;
			rec->m = q;
			return 0;
		}
		if (unlikely(dice_too_many_rejects(&rejects)))
			return -EUCLEAN;
		rec->x -= lim;
		rec->m = rem;
	}
}

/* series: loaded */
/**
 * dice_uniform2() - draw a column and a height, recycling leftovers
 * @rec: the recycler
 * @pool: fresh bits
 * @n: number of columns, at least 1
 * @d: height of a column, at least 1
 * @c: the column, uniform on [0, @n)
 * @y: the height, uniform on [0, @d) and independent of @c
 * @left: what stays uniform in the recycler, on [0, @left); the caller must
 *	hand it back with dice_recycler_merge()
 *
 * One draw from [0, n * d) in 128-bit arithmetic, for tables the narrow
 * path of dice_die.c cannot roll.
 *
 * Return: 0 or the pool's error.
 */
int dice_uniform2(struct dice_recycler *rec, struct dice_pool *pool, u64 n,
		  u64 d, u64 *c, u64 *y, u128 *left)
{
	u128 total = (u128)n * d;
	unsigned int rejects = 0;
	int err;

	/* Bound: DICE_MAX_REJECTS passes, as dice_uniform_div(). */
	for (;;) {
		u128 q, lim, x;

		if ((rec->m >> (rec->wide_width / 2)) < total) {
			err = dice_recycler_fill(rec, pool, rec->wide_width);
			if (err)
				return err;
		}
		q = rec->m;
		dice_div128(&q, n);
		dice_div128(&q, d);
		lim = q * total;
		if (likely(rec->x < lim)) {
			x = rec->x;
			*c = dice_div128(&x, n);
			*y = dice_div128(&x, d);
			rec->x = x;
			*left = q;
			return 0;
		}
		if (unlikely(dice_too_many_rejects(&rejects)))
			return -EUCLEAN;
		rec->x -= lim;
		rec->m -= lim;
	}
}

/* series: end */

/**
 * dice_recycler_merge() - give back randomness a draw did not use
 * @rec: the recycler, with x on [0, @left) after dice_uniform2()
 * @left: as returned by dice_uniform2()
 * @off: uniform on [0, @size) and independent of everything served
 * @size: at least 1; @left * @size never exceeds the m before the draw
 */
void dice_recycler_merge(struct dice_recycler *rec, u128 left, u64 off,
			 u64 size)
{
	rec->x = rec->x * size + off;
	rec->m = left * size;
}

/**
 * dice_recycler_release() - merge the held offset into x
 * @rec: the recycler
 *
 * For every path but the narrow loaded rolls, which hold one: x stays below
 * m * held_size <= 2^63 * 2^64.
 */
void dice_recycler_release(struct dice_recycler *rec)
{
	dice_recycler_merge(rec, rec->m, rec->held, rec->held_size);
	rec->held = 0;
	rec->held_size = 1;
}

/**
 * dice_recycler_narrow() - make m narrow again, exactly
 * @rec: the recycler, nothing held
 *
 * A wide die can leave m up to 2^128, and merging a held offset can push m
 * past 2^narrow_width; a die that draws in 64 bits needs m below
 * 2^narrow_width.  With P = 2^(narrow_width - 1) and m = a P + r: x below
 * a P leaves x mod P uniform on [0, P), else x - a P is uniform on [0, r).
 * Either way what stays is uniform and independent of every face served;
 * only x / P is forgotten, so no face is biased.
 */
void dice_recycler_narrow(struct dice_recycler *rec)
{
	u128 p = (u128)1 << (rec->narrow_width - 1);
	u128 lim = rec->m & ~(p - 1);

	if (!(rec->m >> rec->narrow_width))
		return;
	if (rec->x < lim) {
		rec->x &= p - 1;
		rec->m = p;
	} else {
		rec->x -= lim;
		rec->m -= lim;
	}
}

/* series: alias-method */
/**
 * dice_fresh_uniform() - draw from [0, @n) by rejection, fresh bits only
 * @pool: fresh bits
 * @n: at least 1
 * @out: the draw
 *
 * The textbook method: ceil(log2 n) bits a try, again when out of range.
 *
 * Return: 0 or the pool's error.
 */
int dice_fresh_uniform(struct dice_pool *pool, u64 n, u64 *out)
{
	unsigned int k = fls64(n - 1), rejects = 0;
	u64 v;
	int err;

	if (n <= 1) {
		*out = 0;
		return 0;
	}
	/* Bound: DICE_MAX_REJECTS passes of k fresh bits each. */
	for (;;) {
		err = dice_pool_take(pool, k, &v);
		if (err)
			return err;
		if (v < n)
			break;
		if (unlikely(dice_too_many_rejects(&rejects)))
			return -EUCLEAN;
	}
	*out = v;
	return 0;
}

/* series: end */
