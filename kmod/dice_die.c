// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_die.c - one die: its configuration and the roll entry point
 */
#include "dice_core.h"

/**
 * dice_die_init() - a fair d6 in text, rolled by recycling
 * @die: the die
 * @fill: source of fresh bits, or NULL for bits given by dice_pool_put()
 * @ctx: argument for @fill
 */
void dice_die_init(struct dice_die *die, dice_fill_fn fill, void *ctx)
{
	memset(die, 0, sizeof(*die));
	die->sides = 6;
	die->kind = DICE_KIND_FAIR;
	die->method = DICE_METHOD_RECYCLE;
	die->format = DICE_FMT_TEXT;
	dice_divisor_init(&die->div, die->sides);
	dice_recycler_init(&die->rec);
	dice_pool_init(&die->pool, fill, ctx);
}

static void dice_die_drop_table(struct dice_die *die)
{
	if (die->table) {
		dice_table_free(die->table);
		die->table = NULL;
	}
}

/**
 * dice_die_set_sides() - make the die a fair one with @sides sides
 * @die: the die
 * @sides: 1 to 2^64 - 1
 *
 * Return: 0, -EINVAL for no sides, -EOVERFLOW if the faces do not fit the
 * format; on error the die is unchanged.
 */
int dice_die_set_sides(struct dice_die *die, u64 sides)
{
	int err;

	if (!sides)
		return -EINVAL;
	err = dice_format_check(die->format, sides);
	if (err)
		return err;
	dice_die_drop_table(die);
	die->sides = sides;
	die->kind = DICE_KIND_FAIR;
	dice_divisor_init(&die->div, sides);
	die->batch.sides = 0;	/* a batch holds rolls of the old die */
	return 0;
}

/**
 * dice_die_set_format() - choose how faces are encoded
 * @die: the die
 * @format: DICE_FMT_* type or-ed with flags
 *
 * Return: 0 or the error of dice_format_check(); on error nothing changes.
 */
int dice_die_set_format(struct dice_die *die, u32 format)
{
	int err = dice_format_check(format, die->sides);

	if (!err)
		die->format = format;
	return err;
}

/**
 * dice_die_set_table() - make the die a loaded one
 * @die: the die
 * @table: a finished table; the die owns it from now on, even on error
 *
 * Return: 0, -EINVAL if the method cannot roll loaded dice, or -EOVERFLOW if
 * the faces do not fit the format; on error the table is freed and the die
 * is unchanged.
 */
int dice_die_set_table(struct dice_die *die, struct dice_table *table)
{
	int err = dice_method_check(die->method, DICE_KIND_LOADED);

	if (!err)
		err = dice_format_check(die->format, table->sides);
	if (err) {
		dice_table_free(table);
		return err;
	}
	dice_die_drop_table(die);
	die->table = table;
	die->sides = table->sides;
	die->kind = DICE_KIND_LOADED;
	return 0;
}

/**
 * dice_die_set_method() - choose how the die turns bits into faces
 * @die: the die
 * @method: DICE_METHOD_*
 *
 * Bits waiting in the pool and the recycler stay for later rolls; rolls
 * waiting in a batch are dropped (their bits were counted as used).
 *
 * Return: 0, or -EINVAL for an unknown method or one that cannot roll this
 * kind of die.
 */
int dice_die_set_method(struct dice_die *die, u32 method)
{
	int err = dice_method_check(method, die->kind);

	if (err)
		return err;
	die->method = method;
	die->batch.sides = 0;
	return 0;
}

/**
 * dice_die_set_source() - take bits from elsewhere from now on
 * @die: the die
 * @fill: the new source, or NULL for bits given by dice_pool_put()
 * @ctx: argument for @fill
 *
 * Every bit of the old source still buffered is discarded and the recycled
 * state forgotten, so no roll after this mixes bits of the two sources and
 * none is ever used twice.
 */
void dice_die_set_source(struct dice_die *die, dice_fill_fn fill, void *ctx)
{
	dice_pool_discard(&die->pool);
	die->pool.fill = fill;
	die->pool.fill_ctx = ctx;
	dice_recycler_init(&die->rec);
	die->batch.sides = 0;
}

static int dice_roll_fair(struct dice_die *die, u64 *face)
{
	u64 n = die->sides;

	if (n == 1) {
		*face = 0;
		return 0;
	}
	/* A power of two costs exactly its log2 in bits, no state involved. */
	if (!(n & (n - 1)))
		return dice_pool_take(&die->pool, fls64(n) - 1, face);
	return dice_uniform_div(&die->rec, &die->pool, &die->div, face);
}

static int dice_roll_loaded(struct dice_die *die, u64 *face)
{
	const struct dice_table *table = die->table;
	u128 left;
	u64 c, y, off;
	u32 side;
	int err;

	err = dice_uniform2(&die->rec, &die->pool, table->sides, table->mass,
			    &c, &y, &left);
	if (err)
		return err;
	side = dice_table_side(table, c, y, &off);
	dice_recycler_merge(&die->rec, left, off, table->share[side]);
	*face = side;
	return 0;
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
	struct dice_recycler saved = die->rec;
	u64 saved_coin_bits = die->coin_bits;
	int err;

	switch (die->method) {
	case DICE_METHOD_VIGLIETTA:
		err = dice_roll_viglietta(die, face);
		break;
	case DICE_METHOD_BATCH:
		err = dice_roll_batch(die, face);
		break;
	case DICE_METHOD_ALIAS:
	case DICE_METHOD_REJECTION:
		err = dice_roll_alias(die, face);
		break;
	default:
		err = die->table ? dice_roll_loaded(die, face) :
				   dice_roll_fair(die, face);
	}
	if (unlikely(err)) {
		die->rec = saved;
		die->coin_bits = saved_coin_bits;
		dice_pool_rollback(&die->pool);
		return err;
	}
	dice_pool_commit(&die->pool);
	die->rolls++;
	return 0;
}

/*
 * The common case, a fair die under the default method, with the recycler
 * kept in registers across rolls.  Same draws as dice_uniform_div(); a roll
 * that runs out of bits is undone exactly as in dice_die_roll().
 */
static unsigned int dice_roll_fair_many(struct dice_die *die, u64 *faces,
					unsigned int count, int *errp)
{
	struct dice_pool *pool = &die->pool;
	const struct dice_divisor dv = die->div;
	u64 n = dv.d, m = (u64)die->rec.m, x = (u64)die->rec.x;
	u64 m0 = m, x0 = x, q, lim, xq, bits;
	unsigned int width = die->rec.narrow_width, i = 0, k;
	int err;

	while (i < count) {
		k = width - fls64(m);
		if (k) {
			if (unlikely(pool->tail - pool->head < k)) {
				err = dice_pool_refill(pool, k);
				if (err) {
					x = x0;
					m = m0;
					dice_pool_rollback(pool);
					*errp = err;
					break;
				}
			}
			bits = dice_pool_peek(pool, k);
			pool->head += k;
			x = (x << k) | bits;
			m <<= k;
		}
		q = dice_divide(&dv, m);
		lim = q * n;
		if (unlikely(x >= lim)) {
			x -= lim;
			m -= lim;
			continue;
		}
		xq = dice_divide(&dv, x);
		faces[i++] = x - xq * n;
		x = xq;
		m = q;
		x0 = x;
		m0 = m;
		dice_pool_commit(pool);
	}
	die->rec.x = x;
	die->rec.m = m;
	die->rolls += i;
	return i;
}

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
	u64 n = die->sides;
	unsigned int done = 0;
	int err = 0;

	if (die->method == DICE_METHOD_RECYCLE && !die->table && n > 2 &&
	    (n & (n - 1)) && n < die->rec.narrow_limit && !(die->rec.m >> 64))
		done = dice_roll_fair_many(die, faces, count, &err);
	while (!err && done < count) {
		err = dice_die_roll(die, &faces[done]);
		if (!err)
			done++;
	}
	return done ? (int)done : err;
}

/**
 * dice_die_info() - what the die is, for DICE_IOC_GET_INFO
 * @die: the die
 * @info: filled in, all but the source (which the caller owns)
 */
void dice_die_info(const struct dice_die *die, struct dice_info *info)
{
	memset(info, 0, sizeof(*info));
	info->sides = die->sides;
	info->kind = die->kind;
	info->format = die->format;
	info->method = die->method;
}

/**
 * dice_die_stats() - what the die has spent, for DICE_IOC_GET_STATS
 * @die: the die
 * @stats: filled in
 */
void dice_die_stats(const struct dice_die *die, struct dice_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->rolls = die->rolls;
	stats->bits_used = dice_pool_used(&die->pool);
	stats->bits_drawn = dice_pool_drawn(&die->pool);
	stats->bits_discarded = die->pool.discarded;
	stats->coin_bits = die->coin_bits;
}

static u64 dice_gcd(u64 a, u64 b)
{
	while (b) {
		u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/**
 * dice_die_masses() - the die's distribution in lowest terms
 * @die: the die
 * @unit: side s has mass share[s] / @unit (a fair die: mass 1, @unit 0)
 * @total: the sum of all masses
 *
 * Lowest terms keep a loaded die's total within 64 bits: n * w_i over n * W
 * is w_i / gcd(w) over W / gcd(w).
 *
 * Return: 0, or -EOVERFLOW if even the reduced total needs more than 64 bits
 * (possible only for an alias table given by userspace).
 */
int dice_die_masses(const struct dice_die *die, u64 *unit, u64 *total)
{
	const struct dice_table *table = die->table;
	u64 g = 0;
	u128 sum;
	u32 i;

	*unit = 0;
	if (!table) {
		*total = die->sides;
		return 0;
	}
	for (i = 0; i < table->sides; i++)
		g = dice_gcd(g, table->share[i]);
	sum = table->total;
	dice_div128(&sum, g);
	if (sum >> 64)
		return -EOVERFLOW;
	*unit = g;
	*total = (u64)sum;
	return 0;
}

/**
 * dice_die_mass() - mass of side @s as dice_die_masses() reduced it
 * @die: the die
 * @unit: from dice_die_masses()
 * @s: the side, below sides
 *
 * Return: the mass.
 */
u64 dice_die_mass(const struct dice_die *die, u64 unit, u64 s)
{
	return die->table ? die->table->share[s] / unit : 1;
}

/**
 * dice_die_wipe() - forget the die's random state and free its table
 * @die: the die
 */
void dice_die_wipe(struct dice_die *die)
{
	dice_die_drop_table(die);
	dice_wipe(die, sizeof(*die));
}
