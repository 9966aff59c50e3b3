/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_uniform.h - uniform draws at the entropy bound by recycling
 * (dice_uniform.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_UNIFORM_H
#define _DICE_UNIFORM_H

#include <linux/bitops.h>

#include "dice_pool.h"

/* series: loaded */
/*
 * Columns a large loaded die draws ahead of its rolls: the table entries of
 * that many rolls are on their way from memory at once, rather than one
 * after another.  Only tables of DICE_AHEAD_SIDES sides and more, 256 KiB,
 * which a core's L1 and much of its L2 cannot hold: 2^14 to 2^16 sides
 * rolled 11-26% faster ahead, 2^12 no faster.
 */
#define DICE_AHEAD		16
#define DICE_AHEAD_SIDES	BIT(14)
/* series: out-of-tree */
/* Mapping 2's bound, for its replays. */
#define DICE_AHEAD_SIDES_2	BIT(17)
/* series: end */

/* series: end */
/**
 * struct dice_recycler - leftover randomness kept between rolls
 * @x: uniform on [0, @m), independent of every face served so far
 * @m: at least 1; log2(@m) bits of entropy are waiting in @x
 * @held: the last loaded roll's offset inside its side's share, uniform on
 *	[0, @held_size) and independent of @x and of every face served; it
 *	joins @x one roll late (see dice_roll_loaded_columns())
 * @held_size: that share, 1 when nothing is held
 * series: loaded
 * @ahead: columns of a large loaded die's next rolls, drawn ahead so that
 *	their table entries are fetched together (dice_roll_loaded_ahead());
 *	each uniform on the die's columns and independent of everything else
 * @ahead_next: index in @ahead of the next roll's column
 * @ahead_count: columns waiting in @ahead
 * @ahead_depth: columns the die draws ahead: a power of two, at most
 *	@ahead_limit, or 0 (dice_die_plan())
 * @ahead_limit: DICE_AHEAD, or less in exhaustive tests
 * @ahead_sides: DICE_AHEAD_SIDES, or less in exhaustive tests
 * series: out-of-tree
 *	(DICE_AHEAD_SIDES_2 when a replay rolls by mapping 2)
 * series: end
 * series: end
 * @narrow_limit: DICE_NARROW_LIMIT, or less in exhaustive tests
 * @whole_limit: DICE_WHOLE_LIMIT, or less
 * @narrow_width: DICE_NARROW_WIDTH, or less
 * @wide_width: DICE_WIDE_WIDTH, or less
 */
struct dice_recycler {
	u128 x;
	u128 m;
	u64 held;
	u64 held_size;
	/* series: loaded */
	u32 ahead[DICE_AHEAD];
	unsigned int ahead_next;
	unsigned int ahead_count;
	unsigned int ahead_depth;
	unsigned int ahead_limit;
	u32 ahead_sides;
	/* series: end */
	u64 narrow_limit;
	u64 whole_limit;
	unsigned int narrow_width;
	unsigned int wide_width;
};

/*
 * The widths of the recycler's arithmetic:
 *  - draws from fewer than DICE_NARROW_LIMIT outcomes use 64-bit
 *    arithmetic, topping m up to DICE_NARROW_WIDTH bits (dice_divide()
 *    takes dividends below 2^63);
 *  - the others top m up to DICE_WIDE_WIDTH bits;
 *  - a loaded die with fewer cells than DICE_WHOLE_LIMIT is drawn in one
 *    narrow draw, at a rejection rate below 2^-23; larger ones draw a
 *    column, then a height.
 * They only trade waste for speed.  Exhaustive tests shrink them so that
 * every bit string that decides a roll can be enumerated
 * (dice_die_set_widths()), so they are fields of each recycler, 24 bytes.
 * As compile-time constants they made the loops slower, not faster, on the
 * machine we measure on (bench_core: a d(2^63+1) 33 ns a roll against 19,
 * zipf-1000 12 against 8.7, with the same faces, bits and fewer
 * instructions): the compiler laid the loops out worse.
 */
#define DICE_NARROW_LIMIT	BIT_ULL(32)
#define DICE_WHOLE_LIMIT	BIT_ULL(40)
#define DICE_NARROW_WIDTH	63U
#define DICE_WIDE_WIDTH		128U

/**
 * struct dice_divisor - division by a fixed divisor as a multiplication
 * @d: the divisor, at least 1
 * @magic: x / d == mulhi(2x, @magic) >> @shift for every x below 2^63
 * @shift: ceil(log2 d)
 */
struct dice_divisor {
	u64 d;
	u64 magic;
	unsigned int shift;
};

void dice_divisor_init(struct dice_divisor *dv, u64 d);

/* x / d for x < 2^63: the draws keep m, and so x, below 2^63. */
static inline u64 dice_divide(const struct dice_divisor *dv, u64 x)
{
	return (u64)(((u128)(x << 1) * dv->magic) >> 64) >> dv->shift;
}

/**
 * dice_narrow_draw() - draw from [0, d) with the state in registers
 * @rd: fresh bits
 * @dv: division by d, with d * 2^(@width / 2) <= 2^63
 * @width: bits m is topped up to, at most 63
 * @xp: the state's x, replaced on success
 * @mp: the state's m, below 2^64, replaced on success
 * @out: the draw
 *
 * m is topped up to @width bits only when it falls below d * 2^(@width / 2):
 * a rejection stays at most 2^(1 - @width / 2) while small dice take fresh
 * bits once every few draws, not on each.
 *
 * Return: 0, or the pool's error with *@xp and *@mp untouched (the caller
 * rolls the pool back to its mark).
 */
static __always_inline int dice_narrow_draw(struct dice_reader *rd,
					    const struct dice_divisor *dv,
					    unsigned int width, u64 *xp,
					    u64 *mp, u64 *out)
{
	u64 n = dv->d, x = *xp, m = *mp, q, lim, xq, bits;
	unsigned int have;
	int err;

	/*
	 * Bound: DICE_POOL_BITS + 1 passes.  With m < 2^width on entry the
	 * division is exact, so a rejection leaves m < n and the next pass
	 * tops m up with at least one fresh bit (n is at most 2^(width / 2));
	 * dice_pool_refill() gives no roll more than DICE_POOL_BITS bits past
	 * the pool's mark.  Every caller checks m < 2^width, once a draw or
	 * after each merge that grows m (a check in here cost 10% on a
	 * loaded die drawn by column and height).
	 */
	for (;;) {
		if ((m >> (width / 2)) < n) {
			have = fls64(m);
			if (have < width) {
				err = dice_reader_take(rd, width - have, &bits);
				if (unlikely(err))
					return err;
				x = (x << (width - have)) | bits;
				m <<= width - have;
			}
		}
		q = dice_divide(dv, m);
		lim = q * n;
		if (likely(x < lim)) {
			xq = dice_divide(dv, x);
			*out = x - xq * n;
			*xp = xq;
			*mp = q;
			return 0;
		}
		x -= lim;
		m -= lim;
	}
}

void dice_recycler_init(struct dice_recycler *rec);
int dice_uniform_div(struct dice_recycler *rec, struct dice_pool *pool,
		     const struct dice_divisor *dv, u64 *out);
/* series: loaded */
int dice_uniform2(struct dice_recycler *rec, struct dice_pool *pool, u64 n,
		  u64 d, u64 *c, u64 *y, u128 *left);
/* series: end */
void dice_recycler_merge(struct dice_recycler *rec, u128 left, u64 off,
			 u64 size);
void dice_recycler_release(struct dice_recycler *rec);
void dice_recycler_narrow(struct dice_recycler *rec);
/* series: alias-method */
int dice_fresh_uniform(struct dice_pool *pool, u64 n, u64 *out);
/* series: end */

u64 dice_div128(u128 *a, u64 d);

/**
 * struct dice_digits - faces of a small die drawn k at a time
 * @span: division by n^@per, the outcomes of one draw
 * @base: n, the die's sides, or for a loaded die its cells (sides * mass)
 * @recip: ceil(2^64 / n^@per)
 * @frac: the faces still waiting, as the fraction @frac / 2^64 whose first
 *	base-n digit is the next face
 * @per: faces per draw, the largest k with n^k <= 2^(narrow_width / 2),
 *	which keeps the split exact (n^k <= 2^32); 1 for larger dice
 * @left: faces waiting in @frac
 *
 * One recycled draw from [0, n^k) gives k independent faces: its base-n
 * digits.  Multiplying by ceil(2^64 / n^k) turns the draw into a 64-bit
 * fraction whose digits come out by one multiplication each (Lemire, Kaser
 * and Kurz, "Faster remainder by direct computation"), so a d6 costs one
 * draw per 12 faces.  A loaded die with few cells draws k cells the same
 * way; each is then mapped to its side and its offset merged back.
 */
struct dice_digits {
	struct dice_divisor span;
	u64 base;
	u64 recip;
	u64 frac;
	unsigned int per;
	unsigned int left;
};

/* The first base-@n digit of the fraction *@fp / 2^64; *@fp keeps the rest. */
static __always_inline u64 dice_frac_next(u64 *fp, u64 n)
{
	u128 p = (u128)*fp * n;

	*fp = (u64)p;
	return (u64)(p >> 64);
}

static inline u64 dice_digits_next(struct dice_digits *dg, u64 n)
{
	dg->left--;
	return dice_frac_next(&dg->frac, n);
}

#endif /* _DICE_UNIFORM_H */
