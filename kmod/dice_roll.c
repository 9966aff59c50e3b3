// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_roll.c - the die's rolls: one face, and the loops that serve many
 *
 * The configuration that these loops rely on (the die invariant, planned by
 * dice_die_plan()) is dice_die.c's; this file only spends bits.  A failed
 * roll is undone here and handed to dice_die_failed().
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "dice_die.h"

/* Make a draw u from [0, base^per) the digits waiting to be served. */
static inline void dice_digits_fill(struct dice_digits *dg, u64 u)
{
	dg->frac = dg->recip * u;
	dg->left = dg->per;
}

/* Start serving the faces of a draw u from [0, n^per). */
static inline u64 dice_digits_start(struct dice_digits *dg, u64 n, u64 u)
{
	if (dg->per == 1)
		return u;
	dice_digits_fill(dg, u);
	return dice_digits_next(dg, n);
}

/* m fits the 64-bit loops: below 2^narrow_width, which is below 2^64. */
static __always_inline bool dice_rec_fits_narrow(const struct dice_die *die)
{
	return !(u64)(die->rec.m >> 64) &&
	       !((u64)die->rec.m >> die->rec.narrow_width);
}

/*
 * The top-up of dice_narrow_draw() to @width bits, for an m that needs one,
 * from the bits at @head, which the reader holds.
 *
 * Return: the bits taken.
 */
static __always_inline unsigned int
dice_ready_top_up(const struct dice_pool *pool, u64 head, unsigned int width,
		  u64 *x, u64 *m)
{
	unsigned int s = width - fls64(*m);

	*x = (*x << s) | dice_pool_bits_at(pool, head, s);
	*m <<= s;
	return s;
}

/*
 * dice_narrow_draw() from bits the reader holds, for an m that needs a
 * top-up (below dice_top_up_below()), which the caller checks: a draw that
 * would reject returns false with nothing changed, and the caller makes it
 * the general way from the same state.
 */
static __always_inline bool dice_ready_draw(const struct dice_pool *pool,
					    const struct dice_divisor *dv,
					    unsigned int width, u64 *xp,
					    u64 *mp, u64 *headp, u64 *out)
{
	unsigned int s = dice_ready_top_up(pool, *headp, width, xp, mp);
	u64 q = dice_divide(dv, *mp), xq = dice_divide(dv, *xp);

	if (unlikely(xq >= q)) {
		/* The top-up shifted back out: x < 2^(width - s) before. */
		*xp >>= s;
		*mp >>= s;
		return false;
	}
	*headp += s;
	*out = *xp - xq * dv->d;
	*xp = xq;
	*mp = q;
	return true;
}

/*
 * m below this needs a top-up before a draw by @dv, and has room for one:
 * min(d 2^(width / 2), 2^(width - 1)), without shifting d past 64 bits.
 */
static __always_inline u64 dice_top_up_below(const struct dice_divisor *dv,
					     unsigned int width)
{
	return min(dv->d, BIT_ULL(width - 1 - width / 2)) << (width / 2);
}

/* series: loaded */
/*
 * A cell of a grouped loaded draw is two digits of the fraction @f: its
 * column (radix @n), then its height (radix @d).
 */
static __always_inline u64 dice_cell_split(u64 f, u64 n, u64 d, u64 *c,
					   u64 *y)
{
	*c = dice_frac_next(&f, n);
	*y = dice_frac_next(&f, d);
	return f;
}

/* series: end */

static int dice_roll_fair(struct dice_die *die, u64 *face)
{
	struct dice_digits *dg = &die->digits;
	u64 n = die->sides, u;
	int err;

	if (n == 1) {
		*face = 0;
		return 0;
	}
	/* A power of two costs exactly its log2 in bits, no state involved. */
	if (!(n & (n - 1)))
		return dice_pool_take(&die->pool, fls64(n) - 1, face);
	err = dice_uniform_div(&die->rec, &die->pool, &dg->span, &u);
	if (err)
		return err;
	*face = dice_digits_start(dg, n, u);
	return 0;
}

/* series: loaded */
/*
 * What a loaded die's narrow draws need, copied out of the table so the
 * register loop keeps it in registers.
 */
struct dice_draw_plan {
	struct dice_divisor whole;
	struct dice_divisor cols;
	struct dice_divisor height;
	unsigned int width;
	unsigned int height_width;
	bool one;
};

static __always_inline void dice_draw_plan(const struct dice_die *die,
					   struct dice_draw_plan *plan)
{
	const struct dice_table *table = die->table;

	plan->one = dice_loaded_one_draw(die);
	plan->whole = table->whole;
	plan->height = table->height;
	plan->cols = table->cols;
	plan->width = die->rec.narrow_width;
	plan->height_width = plan->width - table->spread;
}

/*
 * A loaded die's column and height, in 64 bits: one draw from the whole
 * table when it has fewer than DICE_WHOLE_LIMIT cells, else a column, then
 * a height drawn with room left to merge the side's share back (see
 * Documentation/dice/alias.rst).
 */
static __always_inline int dice_loaded_draw(struct dice_reader *rd,
					    const struct dice_draw_plan *plan,
					    u64 *x, u64 *m, u64 *c, u64 *y)
{
	u64 u, xc, mc;
	int err;

	if (plan->one) {
		err = dice_narrow_draw(rd, &plan->whole, plan->width, x, m,
				       &u);
		if (err)
			return err;
		*y = dice_divide(&plan->cols, u);
		*c = u - *y * plan->cols.d;
		return 0;
	}
	/*
	 * Two draws: a height that runs out of bits puts the state back as
	 * it was before the column, whose top-up bits go back to the pool
	 * with the caller's rollback (else they would be spent twice).
	 */
	xc = *x;
	mc = *m;
	err = dice_narrow_draw(rd, &plan->cols, plan->width, x, m, c);
	if (err)
		return err;
	err = dice_narrow_draw(rd, &plan->height, plan->height_width, x, m,
			       y);
	if (unlikely(err)) {
		*x = xc;
		*m = mc;
	}
	return err;
}

/*
 * dice_ready_draw() from the whole table of n columns of mass D, split into
 * its column and height straight from x: with x accepted, x mod (n D) =
 * y n + c gives c = x mod n and y = (x / n) mod D, and x / (n D) =
 * (x / n) / D.  The same three divisions as drawing u = x mod (n D) and
 * splitting it, but the column, which the table lookup waits for, is two
 * steps from x instead of four, and the lookup is on the path from one
 * roll's draw to the next's (see dice_loaded_pick_late()).
 */
static __always_inline bool dice_ready_whole(const struct dice_pool *pool,
					     const struct dice_draw_plan *plan,
					     u64 *xp, u64 *mp, u64 *headp,
					     u64 *c, u64 *y)
{
	unsigned int s = dice_ready_top_up(pool, *headp, plan->width, xp, mp);
	u64 q = dice_divide(&plan->whole, *mp);
	u64 xn = dice_divide(&plan->cols, *xp);
	u64 xq = dice_divide(&plan->height, xn);

	if (unlikely(xq >= q)) {
		/* As in dice_ready_draw(). */
		*xp >>= s;
		*mp >>= s;
		return false;
	}
	*headp += s;
	*c = *xp - xn * plan->cols.d;
	*y = xn - xq * plan->height.d;
	*xp = xq;
	*mp = q;
	return true;
}

/*
 * A loaded die the register loops can roll, cells grouped or not: a table
 * dice_table_narrow() accepted, and m below 2^63.
 */
static bool dice_loaded_in_registers(const struct dice_die *die)
{
	return die->method == DICE_METHOD_RECYCLE && die->table &&
	       die->narrow_table && dice_rec_fits_narrow(die);
}

/*
 * The next cell of a grouped draw, as two digits: the column (radix n),
 * then the height (radix D).  Its side is the face, and its offset inside
 * the side's share goes back into the recycler.
 */
static u64 dice_loaded_cell(struct dice_die *die)
{
	const struct dice_table *table = die->table;
	struct dice_digits *dg = &die->digits;
	u64 c, y, off, size, face;

	dg->frac = dice_cell_split(dg->frac, table->sides, table->mass, &c,
				   &y);
	dg->left--;
	face = dice_table_pick(table, c, y, &off, &size);
	die->rec.x = die->rec.x * size + off;
	die->rec.m *= size;
	return face;
}

static unsigned int dice_roll_loaded_many(struct dice_die *die, u64 *faces,
					  unsigned int count, int *errp);

static int dice_roll_loaded(struct dice_die *die, u64 *face)
{
	const struct dice_table *table = die->table;
	struct dice_digits *dg = &die->digits;
	u128 left;
	u64 c, y, off, size, x;
	int err;

	if (dg->per > 1) {
		err = dice_uniform_div(&die->rec, &die->pool, &dg->span, &x);
		if (err)
			return err;
		dice_digits_fill(dg, x);
		*face = dice_loaded_cell(die);
		return 0;
	}

	dice_recycler_release(&die->rec);
	err = dice_uniform2(&die->rec, &die->pool, table->sides, table->mass,
			    &c, &y, &left);
	if (err)
		return err;
	*face = dice_table_pick(table, c, y, &off, &size);
	dice_recycler_merge(&die->rec, left, off, size);
	return 0;
}

/* series: end */

/* The default method, DICE_METHOD_RECYCLE. */
static int dice_roll_recycle(struct dice_die *die, u64 *face)
{
	/* series: loaded */
	if (die->table)
		return dice_roll_loaded(die, face);
	/* series: end */
	return dice_roll_fair(die, face);
}

/* A fair die the register loops can roll: grouped or not, 64-bit state. */
static __always_inline bool dice_fair_in_registers(const struct dice_die *die)
{
	u64 n = die->sides;

	return die->method == DICE_METHOD_RECYCLE &&
	       /* series: loaded */
	       !die->table &&
	       /* series: end */
	       dice_rec_fits_narrow(die) && n > 2 &&
	       (n & (n - 1)) &&
	       die->digits.span.d < die->rec.narrow_limit;
}

/* A roll that draws: kept out of line so the common roll stays light. */
static noinline int dice_die_roll_draw(struct dice_die *die, u64 *face)
{
	u128 saved_x, saved_m;
	u64 saved_held, saved_held_size, saved_coin_bits;
	int err;

	/* series: loaded */
	/* A loaded die's cell already drawn: nothing to undo either. */
	if (die->digits.left) {
		*face = dice_loaded_cell(die);
		die->rolls++;
		return 0;
	}
	/*
	 * A 64-bit loaded roll leaves the die as it was when it fails, so it
	 * skips the copy below, whose 16-byte loads would also stall on the
	 * 8-byte stores the roll before made.
	 */
	if (dice_loaded_in_registers(die) && die->digits.per == 1) {
		err = 0;
		if (!dice_roll_loaded_many(die, face, 1, &err))
			return dice_die_failed(die, err);
		die->rolls++;
		return 0;
	}
	/* series: end */
	saved_x = die->rec.x;
	saved_m = die->rec.m;
	saved_held = die->rec.held;
	saved_held_size = die->rec.held_size;
	saved_coin_bits = die->coin_bits;
	/* series: viglietta */
	switch (die->method) {
	case DICE_METHOD_VIGLIETTA:
		err = dice_roll_viglietta(die, face);
		break;
	/* series: end */
	/* series: batch */
	case DICE_METHOD_BATCH:
		err = dice_roll_batch(die, face);
		break;
	/* series: end */
	/* series: alias-method */
	case DICE_METHOD_ALIAS:
		err = dice_roll_alias(die, face);
		break;
	/* series: end */
	/* series: viglietta */
#ifndef __KERNEL__
	case DICE_METHOD_REJECTION:	/* userspace's baseline only */
		err = dice_roll_rejection(die, face);
		break;
#endif
	default:
		err = dice_roll_recycle(die, face);
	}
#ifdef DICE_SERIES_CUT /* series: not viglietta */
	err = dice_roll_recycle(die, face);
#endif /* series: end */
	if (unlikely(err)) {
		die->rec.x = saved_x;
		die->rec.m = saved_m;
		die->rec.held = saved_held;
		die->rec.held_size = saved_held_size;
		die->coin_bits = saved_coin_bits;
		dice_pool_rollback(&die->pool);
		err = dice_die_failed(die, err);
	} else {
		dice_pool_commit(&die->pool);
		die->rolls++;
	}
	/* The state before a roll tells its face: it does not stay behind. */
	memzero_explicit(&saved_x, sizeof(saved_x));
	memzero_explicit(&saved_m, sizeof(saved_m));
	return err;
}

/**
 * dice_die_roll() - roll once
 * @die: the die
 * @face: the zero-based face
 *
 * Return: 0, or the bit source's error (-EAGAIN when written bits run out),
 * in which case the die is left as it was before the roll, its bits unspent.
 * One exception: DICE_METHOD_BATCH keeps the bits of tries it already
 * rejected as spent (they can never make a roll), so a later roll starts
 * after them.
 */
int dice_die_roll(struct dice_die *die, u64 *face)
{
	/* A fair face already drawn: nothing to spend, nothing to undo. */
	if (die->digits.left && die->kind == DICE_KIND_FAIR) {
		*face = dice_digits_next(&die->digits, die->sides);
		die->rolls++;
		return 0;
	}
	return dice_die_roll_draw(die, face);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_roll);

/*
 * The register loops below roll the common cases under the default method
 * with the recycler kept in registers across rolls: the same draws as
 * dice_die_roll(), and a roll that runs out of bits is undone the same way.
 *
 * A draw inside a register loop: committed when it succeeds, so a later roll
 * that runs out of bits undoes only itself.
 */
static __always_inline bool dice_register_draw(struct dice_reader *rd,
					       const struct dice_divisor *dv,
					       unsigned int width, u64 *x, u64 *m,
					    u64 *u, int *errp)
{
	int err = dice_narrow_draw(rd, dv, width, x, m, u);

	if (unlikely(err)) {
		dice_reader_rollback(rd);
		*errp = err;
		return false;
	}
	dice_reader_commit(rd);
	return true;
}

/* Store a face at @o, a byte (plus @base) or a u64. */
static __always_inline void dice_put(u8 *o, u64 face, const bool bytes,
				     u8 base)
{
	if (bytes)
		*(u8 *)o = (u8)face + base;
	else
		*(u64 *)o = face;
}

/*
 * Serve @k faces of the fraction *@fp (radix @n) from @o on: one, two, then
 * four at a time, so that a face is one multiplication and one store and a
 * group of a die's @per faces takes the same branches every time.  No load
 * here or in the group loop has a face in its address: fair faces may be
 * secrets, and a table indexed by faces shows in the cache (which is why a
 * table that split two faces from one multiplication, measured 5-8% faster,
 * is not used).
 */
static __always_inline u8 *dice_digits_serve(u8 *o, unsigned int k, u64 *fp,
					     u64 n, const bool bytes, u8 base)
{
	const unsigned int sz = bytes ? 1 : 8;
	u64 f = *fp;

#define DICE_SERVE(j)							\
	dice_put(o + (j) * sz, dice_frac_next(&f, n), bytes, base)

	if (k & 1) {
		DICE_SERVE(0);
		o += sz;
	}
	if (k & 2) {
		DICE_SERVE(0);
		DICE_SERVE(1);
		o += 2 * sz;
	}
	for (k /= 4; k; k--) {
		DICE_SERVE(0);
		DICE_SERVE(1);
		DICE_SERVE(2);
		DICE_SERVE(3);
		o += 4 * sz;
	}
#undef DICE_SERVE
	*fp = f;
	return o;
}

/* Serve the next face of the fraction *@fp (radix @n) at @o. */
static __always_inline u8 *dice_digit_put(u8 *o, u64 *fp, u64 n,
					  const bool bytes, u8 base)
{
	dice_put(o, dice_frac_next(fp, n), bytes, base);
	return o + (bytes ? 1 : 8);
}

/*
 * Whole groups of a fair die while the reader holds a draw's bits
 * (@head_stop: the last head with @width bits after it): dice_narrow_draw()
 * with nothing to undo and no refill to wait for.  A draw that would not
 * top m up, or would reject (2^-30 a draw at most), stops the loop before
 * it changes anything, its top-up shifted back out, and the general loop
 * makes it from the same state, as it makes a last group that does not
 * fit: the same draws, the same faces.  x / d < m / d is x < (m / d) * d,
 * with the two divisions side by side.
 */
static __always_inline u8 *
dice_fair_groups(const struct dice_die *die, u8 *o, u8 *end, u64 *xp,
		 u64 *mp, u64 *headp, u64 head_stop, const bool bytes, u8 base)
{
	const struct dice_digits *dg = &die->digits;
	const struct dice_divisor dv = dg->span;
	const unsigned int width = die->rec.narrow_width, per = dg->per;
	const size_t stride = (size_t)per * (bytes ? 1 : 8);
	const u64 n = die->sides;
	const u64 full = dice_top_up_below(&dv, width);
	u64 x = *xp, m = *mp, head = *headp, u, f;
	u8 *stop;

	while ((size_t)(end - o) >= stride) {
		if (unlikely(m >= full || head > head_stop) ||
		    unlikely(!dice_ready_draw(&die->pool, &dv, width, &x, &m,
					      &head, &u)))
			break;
		f = dg->recip * u;
		stop = o + stride;
		if (per & 1)
			o = dice_digit_put(o, &f, n, bytes, base);
		while (o != stop) {
			o = dice_digit_put(o, &f, n, bytes, base);
			o = dice_digit_put(o, &f, n, bytes, base);
		}
	}
	*xp = x;
	*mp = m;
	*headp = head;
	return o;
}

static noinline u8 *dice_fair_groups_u64(const struct dice_die *die, u8 *o,
					 u8 *end, u64 *xp, u64 *mp, u64 *headp,
					 u64 head_stop)
{
	return dice_fair_groups(die, o, end, xp, mp, headp, head_stop, false,
				0);
}

static noinline u8 *dice_fair_groups_u8(const struct dice_die *die, u8 *o,
					u8 *end, u64 *xp, u64 *mp, u64 *headp,
					u64 head_stop, u8 base)
{
	return dice_fair_groups(die, o, end, xp, mp, headp, head_stop, true,
				base);
}

static __always_inline unsigned int
dice_roll_fair_digits(struct dice_die *die, void *out, unsigned int count,
		      int *errp, const bool bytes, u8 base)
{
	struct dice_digits *dg = &die->digits;
	const unsigned int width = die->rec.narrow_width, per = dg->per;
	const unsigned int sz = bytes ? 1 : 8;
	u64 n = die->sides, x = (u64)die->rec.x, m = (u64)die->rec.m, u;
	u64 f = dg->frac, recip = dg->recip;
	unsigned int k, left = dg->left;
	u8 *o = out, *end = o + (size_t)count * sz;
	struct dice_reader rd;

	/* The faces already drawn first, then a draw per @per faces. */
	k = left < count ? left : count;
	left -= k;
	o = dice_digits_serve(o, k, &f, n, bytes, base);
	dice_reader_open(&rd, &die->pool);
	while (per == 1 && o < end) {
		if (!dice_register_draw(&rd, &dg->span, width, &x, &m, &u, errp))
			break;
		dice_put(o, u, bytes, base);
		o += sz;
	}
	while (per > 1 && o < end) {
		/* Whole groups the fast way while the reader holds their bits. */
		if (rd.tail - rd.head >= width) {
			u64 head_stop = rd.tail - width;

			if (bytes)
				o = dice_fair_groups_u8(die, o, end, &x, &m,
							&rd.head, head_stop,
							base);
			else
				o = dice_fair_groups_u64(die, o, end, &x, &m,
							 &rd.head, head_stop);
			dice_reader_commit(&rd);
			if (o == end)
				break;
		}
		/*
		 * Then one the general way: a refill, a rejection, no top-up,
		 * or the last group, whose faces past @end wait in @f.
		 */
		if (!dice_register_draw(&rd, &dg->span, width, &x, &m, &u, errp))
			break;
		f = recip * u;
		k = per;
		if (unlikely((size_t)(end - o) < (size_t)per * sz)) {
			k = (unsigned int)((end - o) / sz);
			left = per - k;
		}
		o = dice_digits_serve(o, k, &f, n, bytes, base);
	}
	dice_reader_close(&rd);
	dg->frac = f;
	dg->left = left;
	die->rec.x = x;
	die->rec.m = m;
	return (unsigned int)((o - (u8 *)out) / sz);
}

/* series: loaded */
/*
 * The side at (@c, @y), and the late merge of the 64-bit loops: the offset
 * of the roll before joins x now, after this roll's draw, and this roll's is
 * held for the next one, so the table lookups stay off the path from one
 * draw to the next and rolls overlap.
 */
static __always_inline u64
dice_loaded_pick_late(const struct dice_table *table, u64 c, u64 y, u64 *x,
		      u64 *m, u64 *held, u64 *held_size, const bool packed)
{
	u64 off, size, face;

	if (packed)
		face = dice_column_pick(table->col, c, y, &off, &size);
	else
		face = dice_table_pick(table, c, y, &off, &size);
	*x = *x * *held_size + *held;
	*m *= *held_size;
	*held = off;
	*held_size = size;
	return face;
}

/*
 * @one and @packed are constants at each call site, so each of the four
 * loops below carries only its own case.
 */
static __always_inline unsigned int
dice_roll_loaded_columns(struct dice_die *die, u64 *faces,
			 unsigned int count, int *errp, const bool one,
			 const bool packed)
{
	const struct dice_table *table = die->table;
	u64 x = (u64)die->rec.x, m = (u64)die->rec.m, c, y, full;
	u64 held = die->rec.held, held_size = die->rec.held_size;
	struct dice_draw_plan plan;
	struct dice_reader rd;
	unsigned int i;
	int err;

	dice_draw_plan(die, &plan);
	plan.one = one;
	/*
	 * m < 2^width here (dice_loaded_in_registers()) and after every merge below,
	 * because no share exceeds what its draw divided m by (see
	 * Documentation/dice/alias.rst); checking it each roll cost 10% on a
	 * loaded die drawn by column and height, so it is checked once here.
	 */
	if (WARN_ON_ONCE(m >> plan.width)) {
		*errp = -EUCLEAN;
		return 0;
	}
	full = dice_top_up_below(&plan.whole, plan.width);
	dice_reader_open(&rd, &die->pool);
	for (i = 0; i < count; i++) {
		/*
		 * A roll from the whole table that tops m up from bits the
		 * reader holds, and is accepted, cannot fail and is made the
		 * ready way; the others the general way, which first commits
		 * the rolls before them, so that a failure undoes only itself.
		 */
		if (!(one && likely(m < full) &&
		      likely(rd.tail - rd.head >= plan.width) &&
		      likely(dice_ready_whole(&die->pool, &plan, &x, &m,
					      &rd.head, &c, &y)))) {
			dice_reader_commit(&rd);
			err = dice_loaded_draw(&rd, &plan, &x, &m, &c, &y);
			if (unlikely(err)) {
				dice_reader_rollback(&rd);
				*errp = err;
				break;
			}
		}
		faces[i] = dice_loaded_pick_late(table, c, y, &x, &m, &held,
						 &held_size, packed);
	}
	/* After a rollback too: the pool at rest. */
	dice_reader_commit(&rd);
	dice_reader_close(&rd);
	die->rec.x = x;
	die->rec.m = m;
	die->rec.held = held;
	die->rec.held_size = held_size;
	return i;
}

/*
 * A large loaded die: each roll draws the column of the roll
 * ahead_depth rolls on, then its own height, and picks its own column, whose
 * table entry was asked for when that column was drawn; half way there, the
 * column's alias side was asked for too.  So the cache misses of the table's
 * entries overlap, ahead_depth rolls at a time, where a roll that looked its
 * column up when drawn would wait for each miss in turn.  The draws of a roll
 * are as in dice_roll_loaded_columns(): a column, a height, one merge, so the
 * bounds on m hold as there (Documentation/dice/alias.rst).  A roll that runs
 * out of bits is undone whole, with the columns it drew to fill the ring.
 */
static __always_inline unsigned int
dice_roll_loaded_ahead(struct dice_die *die, u64 *faces, unsigned int count,
		       int *errp, const bool packed)
{
	const struct dice_table *table = die->table;
	struct dice_recycler *rec = &die->rec;
	const unsigned int mask = rec->ahead_depth - 1;
	const unsigned int half = rec->ahead_depth / 2;
	u64 x = (u64)rec->x, m = (u64)rec->m, xs, ms, c, y, col;
	u64 held = rec->held, held_size = rec->held_size;
	unsigned int next = rec->ahead_next, have = rec->ahead_count, had, i;
	struct dice_draw_plan plan;
	struct dice_reader rd;
	int err = 0;

	dice_draw_plan(die, &plan);
	/* As in dice_roll_loaded_columns(): checked once, not each roll. */
	if (WARN_ON_ONCE(m >> plan.width)) {
		*errp = -EUCLEAN;
		return 0;
	}
	dice_reader_open(&rd, &die->pool);
	for (i = 0; i < count; i++) {
		xs = x;
		ms = m;
		had = have;
		/* A new die's ring fills first. */
		while (have <= mask && !err) {
			err = dice_narrow_draw(&rd, &plan.cols, plan.width, &x,
					       &m, &c);
			if (!err) {
				rec->ahead[(next + have++) & mask] = (u32)c;
				dice_table_prefetch(table, c);
			}
		}
		if (likely(!err))
			err = dice_narrow_draw(&rd, &plan.cols, plan.width, &x,
					       &m, &col);
		if (likely(!err))
			err = dice_narrow_draw(&rd, &plan.height,
					       plan.height_width, &x, &m, &y);
		if (unlikely(err)) {
			x = xs;
			m = ms;
			have = had;
			dice_reader_rollback(&rd);
			*errp = err;
			break;
		}
		dice_reader_commit(&rd);
		c = rec->ahead[next];
		rec->ahead[next] = (u32)col;
		dice_table_prefetch(table, col);
		dice_table_prefetch_alias(table,
					  rec->ahead[(next + half) & mask]);
		next = (next + 1) & mask;
		faces[i] = dice_loaded_pick_late(table, c, y, &x, &m, &held,
						 &held_size, packed);
	}
	dice_reader_close(&rd);
	rec->x = x;
	rec->m = m;
	rec->held = held;
	rec->held_size = held_size;
	rec->ahead_next = next;
	rec->ahead_count = have;
	return i;
}

/* Loaded dice with few cells: the grouped draws of dice_loaded_cell(). */
static __always_inline unsigned int
dice_roll_loaded_cells(struct dice_die *die, u64 *faces, unsigned int count,
		       int *errp, const bool packed)
{
	const struct dice_table *table = die->table;
	const struct dice_column *col = table->col;
	struct dice_digits *dg = &die->digits;
	const struct dice_divisor span = dg->span;
	const unsigned int width = die->rec.narrow_width;
	u64 x = (u64)die->rec.x, m = (u64)die->rec.m, n = table->sides;
	u64 d = table->mass, f = dg->frac, u, c, y, off, size;
	unsigned int i = 0, left = dg->left;
	struct dice_reader rd;

	dice_reader_open(&rd, &die->pool);
	while (i < count) {
		if (!left) {
			/* The cells merged since the last draw kept m narrow. */
			if (WARN_ON_ONCE(m >> width)) {
				*errp = -EUCLEAN;
				break;
			}
			if (!dice_register_draw(&rd, &span, width, &x, &m, &u,
						errp))
				break;
			f = dg->recip * u;
			left = dg->per;
		}
		for (; left && i < count; left--) {
			f = dice_cell_split(f, n, d, &c, &y);
			if (packed)
				faces[i++] = dice_column_pick(col, c, y, &off,
							      &size);
			else
				faces[i++] = dice_table_pick(table, c, y, &off,
							     &size);
			x = x * size + off;
			m *= size;
		}
	}
	dice_reader_close(&rd);
	dg->frac = f;
	dg->left = left;
	die->rec.x = x;
	die->rec.m = m;
	return i;
}

static unsigned int dice_roll_loaded_many(struct dice_die *die, u64 *faces,
					  unsigned int count, int *errp)
{
	bool packed = die->table->col;

	if (die->digits.per > 1)
		return packed ?
		       dice_roll_loaded_cells(die, faces, count, errp, true) :
		       dice_roll_loaded_cells(die, faces, count, errp, false);

	if (die->rec.ahead_depth)
		return packed ?
		       dice_roll_loaded_ahead(die, faces, count, errp, true) :
		       dice_roll_loaded_ahead(die, faces, count, errp, false);
	if (dice_loaded_one_draw(die))
		return packed ?
		       dice_roll_loaded_columns(die, faces, count, errp, 1, 1) :
		       dice_roll_loaded_columns(die, faces, count, errp, 1, 0);
	return packed ? dice_roll_loaded_columns(die, faces, count, errp, 0, 1) :
			dice_roll_loaded_columns(die, faces, count, errp, 0, 0);
}

/* series: end */

/**
 * dice_die_roll_many() - roll up to @count times
 * @die: the die
 * @faces: room for @count zero-based faces
 * @count: rolls wanted
 *
 * Return: the number of rolls made, at least 1, or the bit source's error
 * if not even one could be made.  The faces equal those of @count calls of
 * dice_die_roll().
 */
int dice_die_roll_many(struct dice_die *die, u64 *faces, unsigned int count)
{
	unsigned int done = 0;
	int err = 0;

	if (dice_fair_in_registers(die))
		done = dice_roll_fair_digits(die, faces, count, &err, false, 0);
	/* series: loaded */
	else if (dice_loaded_in_registers(die))
		done = dice_roll_loaded_many(die, faces, count, &err);
	/* series: end */
	die->rolls += done;
	if (err)
		err = dice_die_failed(die, err);
	while (!err && done < count) {
		err = dice_die_roll(die, &faces[done]);
		if (!err)
			done++;
	}
	return done ? (int)done : err;
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_roll_many);

/**
 * dice_die_roll_u8() - roll up to @count times into bytes
 * @die: the die, whose faces plus @base fit a byte
 * @out: room for @count bytes, each a face plus @base
 * @count: rolls wanted
 * @base: 0 for zero-based faces, 1 for one-based
 *
 * The read path's U8 loop: a fair die's faces go straight from the digits
 * to the bytes.
 *
 * Return: as dice_die_roll_many(), with the same faces.
 */
int dice_die_roll_u8(struct dice_die *die, u8 *out, unsigned int count,
		     u8 base)
{
	unsigned int done = 0, i;
	u64 faces[16];
	int err = 0, got;

	if (dice_fair_in_registers(die)) {
		done = dice_roll_fair_digits(die, out, count, &err, true, base);
		die->rolls += done;
		if (err)
			err = dice_die_failed(die, err);
	}
	while (!err && done < count) {
		got = dice_die_roll_many(die, faces,
					 count - done < ARRAY_SIZE(faces) ?
					 count - done : ARRAY_SIZE(faces));
		if (got < 0) {
			err = got;
			break;
		}
		for (i = 0; i < (unsigned int)got; i++)
			out[done++] = (u8)(faces[i] + base);
	}
	/* No face served stays behind on the stack. */
	memzero_explicit(faces, sizeof(faces));
	return done ? (int)done : err;
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_roll_u8);
