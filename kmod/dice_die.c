// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_die.c - one die: its configuration and the roll entry point
 *
 * The die invariant, which every roll path relies on and every change of the
 * die re-establishes in one place, dice_die_plan():
 *
 * series: loaded
 *  - the recycler: 1 <= m, x < m, held < held_size, and held_size is 1
 *    unless a narrow loaded die holds an offset of its own table; no more
 *    columns wait in its ring than the die draws ahead, each below sides;
 *  - a die that draws in 64 bits (a fair die whose draw is below
 *    narrow_limit, or a table dice_table_narrow() accepts) keeps
 * series: not loaded
 *  - the recycler: 1 <= m, x < m, held < held_size, and held_size is 1;
 *  - a die that draws in 64 bits (its draw is below narrow_limit) keeps
 * series: end
 *    m * base^left < 2^narrow_width, base^left counting the faces or cells
 *    still waiting in the digits: the register loops multiply m by their sizes
 *    without a check, and dice_divide() is exact only below 2^63;
 *  - the pool: mark <= head <= tail, at most DICE_POOL_BITS bits from the
 *    mark's word on.
 *
 * A change (sides, table, method, widths) settles the waiting faces into
 * the recycler and then calls dice_die_plan(); a change of source, a reset
 * and a broken loop bound forget the recycled state (dice_die_forget()); a
 * failed roll restores what it saved.  dice_die_invalid() checks it all.
 */
#include <linux/gcd.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dice_die.h"

/* series: loaded */
/*
 * Loaded dice roll in 64 bits when drawn whole (merging the share back
 * cannot overflow: no share exceeds the cells), or when the columns stay
 * below 2^32 and mass * 2^spread below 2^40: the height is then drawn from m
 * of 63 - spread bits, which keeps a rejection rare and leaves room for the
 * merge.
 */
static bool dice_table_narrow(const struct dice_die *die)
{
	const struct dice_table *table = die->table;

	if (dice_loaded_one_draw(die))
		return true;
	/* series: out-of-tree */
	/* Mapping 1 also wanted the mass below 2^32. */
	if (dice_die_mapping_1(die) && table->mass >= die->rec.narrow_limit)
		return false;
	/* series: end */
	return table->sides < die->rec.narrow_limit &&
	       (((u128)table->mass << table->spread) >> 8) <
	       die->rec.narrow_limit;
}

/*
 * Columns drawn ahead: by the default method, on a large table drawn by
 * column and height in 64 bits.  A power of two, so the ring's index is a
 * mask.
 */
static unsigned int dice_ahead_depth(const struct dice_die *die)
{
	unsigned int depth = 1;

	if (!die->table || !die->narrow_table || dice_loaded_one_draw(die) ||
	    die->method != DICE_METHOD_RECYCLE ||
	    die->table->sides < die->rec.ahead_sides)
		return 0;
	/* series: out-of-tree */
	if (dice_die_mapping_1(die))
		return 0;
	/* series: end */
	while (depth * 2 <= min_t(unsigned int, die->rec.ahead_limit,
				  DICE_AHEAD))
		depth *= 2;
	return die->rec.ahead_limit ? depth : 0;
}

/* series: end */

/*
 * Plan how many faces one recycled draw gives: the largest k with
 * series: loaded
 * n^k <= 2^ceil(narrow_width / 2), n the sides of a fair die or the cells of a
 * loaded one drawn whole.  That bound is at most 2^32, where the fraction
 * split of dice_digits is exact, and keeps a draw's rejection rare.  A
 * loaded die groups only when two cells fit (k >= 2).
 * series: not loaded
 * n^k <= 2^ceil(narrow_width / 2), n the sides.  That bound is at most 2^32,
 * where the fraction split of dice_digits is exact, and keeps a draw's
 * rejection rare.
 * series: end
 */
static void dice_digits_plan(struct dice_die *die)
{
	struct dice_digits *dg = &die->digits;
	u64 cap = 1ULL << ((die->rec.narrow_width + 1) / 2), base = 0, span;
	unsigned int per = 1;

	/* A group is one narrow draw: below narrow_limit, or no group. */
	if (cap >= die->rec.narrow_limit)
		cap = die->rec.narrow_limit ? die->rec.narrow_limit - 1 : 0;

	if (die->sides > 2 && (die->sides & (die->sides - 1)))
		base = die->sides;	/* the others need no recycler */
	/* series: loaded */
	if (die->table)	/* a loaded die's cells, when it is drawn whole */
		base = dice_loaded_one_draw(die) ? (u64)die->table->total : 0;
	/* series: end */
	span = base;
	while (base > 1 && span <= cap / base) {
		span *= base;
		per++;
	}
	if (per == 1) {
		/* Not grouped; a fair die still draws from [0, n) by span. */
		base = die->sides;
		/* series: loaded */
		if (die->table)
			base = 1;
		/* series: end */
		span = base;
	}
	/* series: loaded */
	die->narrow_table = die->table && dice_table_narrow(die);
	die->rec.ahead_depth = dice_ahead_depth(die);
	/* series: end */
	dg->base = base;
	dg->per = per;
	dg->left = 0;
	dg->frac = 0;
	dice_divisor_init(&dg->span, span);
	/* ceil(2^64 / span), exact for a power of two too. */
	dg->recip = span > 1 ? U64_MAX / span + 1 : 0;
}

/* The die draws in 64 bits: its m must stay below 2^narrow_width. */
static bool dice_die_narrow(const struct dice_die *die)
{
	/* series: loaded */
	if (die->table)
		return die->narrow_table;
	/* series: end */
	return die->digits.span.d < die->rec.narrow_limit;
}

/*
 * After any change of the die, with nothing waiting (dice_die_settle()):
 * plan its draws and re-establish the invariant above.  A larger die, or a
 * merged held offset, may have left m wide; a narrow die gets it back
 * below 2^narrow_width exactly, by dice_recycler_narrow().
 */
static void dice_die_plan(struct dice_die *die)
{
	dice_digits_plan(die);
	if (dice_die_narrow(die))
		dice_recycler_narrow(&die->rec);
}

/*
 * Forget the recycled state and any faces waiting: no roll after this
 * depends on a bit that came before.
 */
static void dice_die_forget(struct dice_die *die)
{
	die->rec.x = 0;
	die->rec.m = 1;
	die->rec.held = 0;
	die->rec.held_size = 1;
	/* series: loaded */
	memzero_explicit(die->rec.ahead, sizeof(die->rec.ahead));
	die->rec.ahead_count = 0;
	die->rec.ahead_next = 0;
	/* series: end */
	die->digits.left = 0;
	die->digits.frac = 0;
	/* series: batch */
	if (die->batch)
		die->batch->sides = 0;
	/* series: end */
}

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
#ifndef __KERNEL__
	die->mapping = DICE_MAPPING_LATEST;
#endif
	dice_recycler_init(&die->rec);
	dice_pool_init(&die->pool, fill, ctx);
	dice_die_plan(die);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_init);

/* series: loaded */
/*
 * Columns drawn ahead are uniform on [0, sides) and independent of everything
 * served: each joins x as one more digit while m stays below 2^@width (128,
 * or the narrow width, at most 63), and those that do not fit are dropped.
 */
static void dice_die_settle_ahead(struct dice_die *die, unsigned int width)
{
	struct dice_recycler *rec = &die->rec;
	unsigned int i, mask = rec->ahead_depth - 1;
	u64 n;

	if (!rec->ahead_count)
		return;
	n = die->table->sides;
	for (i = 0; i < rec->ahead_count; i++) {
		/* Narrow: m < 2^63 and n < 2^32, so m n cannot overflow. */
		if (width < 128 ? (rec->m * n) >> width :
				  rec->m > ~(u128)0 / n)
			break;
		rec->x = rec->x * n + rec->ahead[(rec->ahead_next + i) & mask];
		rec->m *= n;
	}
	memzero_explicit(rec->ahead, sizeof(rec->ahead));
	rec->ahead_count = 0;
	rec->ahead_next = 0;
}

/* series: end */
/*
 * Faces waiting in @die->digits are uniform on [0, n^left) and independent
 * of everything served, so they join x as one more mixed-radix digit.  m
 * stays narrow: a draw from [0, n^per) left m below 2^width / n^per.
 */
static void dice_die_settle_digits(struct dice_die *die)
{
	struct dice_digits *dg = &die->digits;
	u64 pw = 1, rest;
	unsigned int i;

	if (!dg->left)
		return;
	for (i = 0; i < dg->left; i++)
		pw *= dg->base;
	/* The digits left, as an integer: exact for the same reason. */
	rest = (u64)(((u128)dg->frac * pw) >> 64);
	if (!(die->rec.m >> 64)) {
		die->rec.x = die->rec.x * pw + rest;
		die->rec.m *= pw;
	}
	dg->left = 0;
	dg->frac = 0;
}

/**
 * dice_die_settle() - give faces drawn but not served back to the recycler
 * @die: the die
 *
 * The held offset, the faces drawn together and the columns drawn ahead
 * join x.  Done before the die changes, so no randomness is lost to the
 * change (but for columns drawn ahead beyond 128 bits of state).
 */
void dice_die_settle(struct dice_die *die)
{
	dice_recycler_release(&die->rec);
	/* series: loaded */
	dice_die_settle_ahead(die, 128);
	/* series: end */
	dice_die_settle_digits(die);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_settle);

/**
 * dice_die_trim() - keep nothing drawn for rolls not yet asked for
 * @die: the die
 * @keep: unspent bits to keep in the pool (dice_pool_trim())
 *
 * When a read from the CRNG returns or yields (dice_stream_trim()): the
 * pool keeps at most @keep unspent bits, the faces drawn together and not
 * served join x,
 * series: loaded
 * and so do the columns drawn ahead while m stays below 2^narrow_width,
 * the others being dropped,
 * series: end
 * so that between reads the die holds what is left of the rolls served,
 * its recycled state, and nothing drawn for the rolls of a later read.
 * series: loaded
 * A loaded roll's held offset stays: it joins x at the next roll, as it
 * would have.
 * series: end
 * series: batch
 * The rolls waiting in a batch (DICE_METHOD_BATCH) are dropped.
 * series: end
 * The die invariant holds throughout.
 */
void dice_die_trim(struct dice_die *die, unsigned int keep)
{
	dice_pool_trim(&die->pool, keep);
	/* series: loaded */
	dice_die_settle_ahead(die, die->rec.narrow_width);
	/* series: end */
	dice_die_settle_digits(die);
	/* series: batch */
	dice_batch_drop(die);
	/* series: end */
}

/**
 * dice_die_set_widths() - shrink the recycler, for exhaustive tests
 * @die: the die
 * @narrow: bits m is topped up to for draws below @narrow_limit (63, at
 *	most 63: dice_divide() takes dividends below 2^63)
 * @wide: bits for the others (128)
 * @narrow_limit: 2^32, or 0 to take the wide path always
 * @whole_limit: 2^40, or 0 to draw loaded dice by column and height
 */
void dice_die_set_widths(struct dice_die *die, unsigned int narrow,
			 unsigned int wide, u64 narrow_limit, u64 whole_limit)
{
	dice_die_settle(die);
	die->rec.narrow_width = narrow;
	die->rec.wide_width = wide;
	die->rec.narrow_limit = narrow_limit;
	die->rec.whole_limit = whole_limit;
	dice_die_plan(die);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_set_widths);

/* series: loaded */
/**
 * dice_die_set_ahead() - draw fewer columns ahead, for exhaustive tests
 * @die: the die
 * @limit: at most this many (DICE_AHEAD by default; 0 for none)
 * @sides: on tables of this many sides and more (DICE_AHEAD_SIDES)
 */
void dice_die_set_ahead(struct dice_die *die, unsigned int limit, u32 sides)
{
	dice_die_settle(die);
	die->rec.ahead_limit = limit;
	die->rec.ahead_sides = sides;
	dice_die_plan(die);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_set_ahead);

/* series: end */

#ifndef __KERNEL__
/**
 * dice_die_set_mapping() - roll by another mapping of bits to faces
 * @die: the die
 * @mapping: DICE_MAPPING_1 to DICE_MAPPING_LATEST
 *
 * For replays of seeded userspace engines: the same bits give the same faces
 * under the mapping they were rolled by.  Mappings 2 and 3 differ only in
 * the tables that draw columns ahead, so this also sets the smallest of
 * those (which dice_die_set_ahead() may lower afterwards, for tests).
 *
 * Return: 0, or -EINVAL for a mapping that is none.
 */
int dice_die_set_mapping(struct dice_die *die, u32 mapping)
{
	if (mapping < DICE_MAPPING_1 || mapping > DICE_MAPPING_LATEST)
		return -EINVAL;
	dice_die_settle(die);
	die->mapping = mapping;
	die->rec.ahead_sides = mapping == DICE_MAPPING_2 ?
			       DICE_AHEAD_SIDES_2 : DICE_AHEAD_SIDES;
	dice_die_plan(die);
	return 0;
}

u32 dice_die_get_mapping(const struct dice_die *die)
{
	return die->mapping;
}
#endif

/* series: batch */
/*
 * DICE_METHOD_BATCH's state (1 KiB and more) exists only while that is the
 * method: a plain die's open file does not carry it.
 */
static void dice_die_free_batch(struct dice_die *die)
{
	if (!die->batch)
		return;
	memzero_explicit(die->batch, sizeof(*die->batch));
	kfree(die->batch);
	die->batch = NULL;
}

/* series: end */

/* series: loaded */
static void dice_die_drop_table(struct dice_die *die)
{
	if (die->table) {
		dice_table_free(die->table);
		die->table = NULL;
	}
}

/* series: end */

/**
 * dice_die_check() - could the die become this die?
 * series: loaded
 * @sides: sides of a fair die (unused for a loaded one, whose table says)
 * @loaded: the die is loaded
 * series: not loaded
 * @sides: sides of the die
 * series: end
 * @method: DICE_METHOD_*
 *
 * Return: 0, or -EINVAL for no sides, an unknown method or one that cannot
 * roll this kind of die.
 */
/* series: loaded */
int dice_die_check(u64 sides, bool loaded, u32 method)
{
	if (!loaded && !sides)
		return -EINVAL;
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_die_check(u64 sides, u32 method)
{
	if (!sides)
		return -EINVAL;
#endif /* series: end */
	/* series: viglietta */
	return dice_method_check(method, loaded ? DICE_KIND_LOADED :
						  DICE_KIND_FAIR);
#ifdef DICE_SERIES_CUT /* series: not viglietta */
	return method == DICE_METHOD_RECYCLE ? 0 : -EINVAL;
#endif /* series: end */
}

/**
 * dice_die_set() - make the die another die, in one step
 * @die: the die
 * series: loaded
 * @sides: sides of a fair die, 1 to 2^64 - 1 (unused when @table is given)
 * @table: a finished table for a loaded die, or NULL for a fair one; the
 *	die owns it from now on, even on error.  The die's own table keeps
 *	it loaded as it is.
 * series: not loaded
 * @sides: 1 to 2^64 - 1
 * series: end
 * @method: DICE_METHOD_*
 *
 * series: loaded
 * A new table is packed to 16 bytes a side when its masses allow.  Bits
 * series: not loaded
 * Bits
 * series: end
 * waiting in the pool and the recycler stay for later rolls (faces drawn
 * ahead go back to the recycler: dice_die_settle()); rolls waiting in a
 * batch are dropped (their bits were counted as used).
 *
 * Return: 0, -EINVAL (dice_die_check()) or -ENOMEM; on error the die is
 * unchanged.
 */
/* series: loaded */
int dice_die_set(struct dice_die *die, u64 sides, struct dice_table *table,
		 u32 method)
{
	bool new_table = table && table != die->table;
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_die_set(struct dice_die *die, u64 sides, u32 method)
{
#endif /* series: end */
	/* series: batch */
	struct dice_batch *batch = die->batch;
	/* series: end */
	/* series: loaded */
	int err = dice_die_check(sides, !!table, method);
#ifdef DICE_SERIES_CUT /* series: not loaded */
	int err = dice_die_check(sides, method);
#endif /* series: end */

	/* series: batch */
	if (!err && method == DICE_METHOD_BATCH && !batch) {
		batch = kzalloc_obj(*batch, GFP_KERNEL_ACCOUNT);
		if (!batch)
			err = -ENOMEM;
	}
	/* series: end */
	/* series: loaded */
	if (err) {
		if (new_table)
			dice_table_free(table);
		return err;
	}
#ifdef DICE_SERIES_CUT /* series: not loaded */
	if (err)
		return err;
#endif /* series: end */
	dice_die_settle(die);
	/* series: loaded */
	if (!table || new_table)
		dice_die_drop_table(die);
	/* series: end */
	/* series: batch */
	die->batch = batch;
	if (method != DICE_METHOD_BATCH)
		dice_die_free_batch(die);
	/* series: end */
	/* series: loaded */
	if (new_table)
		die->table = dice_table_pack(table);
	die->sides = die->table ? die->table->sides : sides;
	die->kind = die->table ? DICE_KIND_LOADED : DICE_KIND_FAIR;
#ifdef DICE_SERIES_CUT /* series: not loaded */
	die->sides = sides;
#endif /* series: end */
	die->method = method;
	/* series: batch */
	if (die->batch)
		die->batch->sides = 0;	/* it holds rolls of the old die */
	/* series: end */
	dice_die_plan(die);
	return 0;
}

/**
 * dice_die_set_sides() - make the die a fair one with @sides sides
 * @die: the die
 * @sides: 1 to 2^64 - 1
 *
 * Return: as dice_die_set().
 */
int dice_die_set_sides(struct dice_die *die, u64 sides)
{
	/* series: loaded */
	return dice_die_set(die, sides, NULL, die->method);
#ifdef DICE_SERIES_CUT /* series: not loaded */
	return dice_die_set(die, sides, die->method);
#endif /* series: end */
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_set_sides);

/* series: loaded */
/**
 * dice_die_set_table() - make the die a loaded one
 * @die: the die
 * @table: a finished table; the die owns it from now on, even on error
 *
 * Return: as dice_die_set().
 */
int dice_die_set_table(struct dice_die *die, struct dice_table *table)
{
	return dice_die_set(die, 0, table, die->method);
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_set_table);

/* series: end */

/**
 * dice_die_set_method() - roll the same die another way
 * @die: the die
 * @method: DICE_METHOD_*
 *
 * Return: as dice_die_set().
 */
int dice_die_set_method(struct dice_die *die, u32 method)
{
	/* series: loaded */
	return dice_die_set(die, die->sides, die->table, method);
#ifdef DICE_SERIES_CUT /* series: not loaded */
	return dice_die_set(die, die->sides, method);
#endif /* series: end */
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_set_method);

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
	dice_die_drop_random(die);
	die->pool.fill = fill;
	die->pool.fill_ctx = ctx;
}

/**
 * dice_die_drop_random() - forget every random bit the die holds
 * @die: the die
 *
 * The bits buffered in the pool are discarded (counted in bits_discarded),
 * and the recycled state, faces waiting in a group and rolls waiting in a
 * batch are forgotten: no roll after this depends on a bit drawn before.
 * For a new source, and when the machine may have been cloned (a VM fork):
 * two clones must not serve the same next rolls.
 */
void dice_die_drop_random(struct dice_die *die)
{
	dice_pool_discard(&die->pool);
	dice_die_forget(die);
}

/*
 * A roll failed with @err and was undone.  Two failures leave a die that
 * the same roll would fail again forever; both are turned into one that
 * can go on:
 *  - -EUCLEAN, a loop bound broken (dice_too_many_rejects()), or -ENOBUFS, a
 *    roll that took a whole pool of CRNG bits: either means a broken
 *    state (a bug), which is forgotten so the next roll starts from a
 *    valid one.  The caller sees -EIO, the one read(2) has for it;
 *  - -EAGAIN with written bits that fill the pool: no byte more can be
 *    written, so the bits held can never complete this roll (for example
 *    0xff bytes for a d3 under DICE_METHOD_ALIAS).  They are discarded,
 *    counted in bits_discarded, and -EAGAIN then means what it says: more
 *    bits would help.
 */
int dice_die_failed(struct dice_die *die, int err)
{
	if (err == -EUCLEAN || err == -ENOBUFS) {
		dice_die_forget(die);
		return -EIO;
	}
	if (err == -EAGAIN && !die->pool.fill &&
	    dice_pool_room(&die->pool) < 8)
		dice_pool_discard(&die->pool);
	return err;
}

/**
 * dice_die_invalid() - check the die invariant (top of this file)
 * @die: the die
 *
 * For tests, fuzzers and debugging: the invariant holds after every change
 * and every roll, failed or not.
 *
 * Return: NULL when it holds, else which part does not.
 */
const char *dice_die_invalid(const struct dice_die *die)
{
	const struct dice_recycler *rec = &die->rec;
	const struct dice_digits *dg = &die->digits;
	const struct dice_pool *pool = &die->pool;
	u128 bound = rec->m;
	unsigned int i;

	if (!rec->m || rec->x >= rec->m)
		return "x not below m";
	if (!rec->held_size || rec->held >= rec->held_size)
		return "held offset not below its size";
	/* series: loaded */
	if (rec->held_size > 1 &&
	    (!die->table || !die->narrow_table || dg->left ||
	     rec->held_size > die->table->total))
		return "an offset held outside a narrow loaded roll";
#ifdef DICE_SERIES_CUT /* series: not loaded */
	if (rec->held_size > 1)
		return "an offset held by a fair die";
#endif /* series: end */
	if (dg->left > dg->per || (dg->left && dg->per < 2))
		return "more faces waiting than a draw gives";
	/* series: loaded */
	if (rec->ahead_count > rec->ahead_depth ||
	    rec->ahead_next >= max(rec->ahead_depth, 1U))
		return "columns drawn ahead out of the ring";
	for (i = 0; i < rec->ahead_count; i++) {
		u32 at = (rec->ahead_next + i) & (rec->ahead_depth - 1);

		if (rec->ahead[at] >= die->table->sides)
			return "a column drawn ahead is no column";
	}
	/* series: end */
	if (!(pool->mark <= pool->head && pool->head <= pool->tail &&
	      pool->tail - (pool->mark & ~63ULL) <= DICE_POOL_BITS))
		return "pool positions out of order";
	if (!dice_die_narrow(die))
		return NULL;
	if (rec->m >> rec->narrow_width)
		return "a narrow die's m is wide";
	for (i = 0; i < dg->left; i++)
		bound *= dg->base;
	if (bound >> rec->narrow_width)
		return "m times the waiting faces is wide";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_invalid);

/**
 * dice_die_info() - what the die is, for DICE_IOC_GET_DIE
 * @die: the die
 * @info: filled in, all but the format (which the stream owns)
 */
void dice_die_info(const struct dice_die *die, struct dice_die_info *info)
{
	memset(info, 0, sizeof(*info));
	info->sides = die->sides;
	info->kind = die->kind;
	info->method = die->method;
}

/**
 * dice_die_stats() - what the die has spent, for DICE_IOC_GET_STATS
 * @die: the die
 * @stats: filled in
 */
void dice_die_stats(const struct dice_die *die, struct dice_die_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->rolls = die->rolls;
	stats->bits_used = dice_pool_used(&die->pool);
	stats->bits_drawn = dice_pool_drawn(&die->pool);
	stats->bits_discarded = die->pool.discarded;
	stats->coin_bits = die->coin_bits;
}

#ifndef __KERNEL__
/*
 * The exact distribution is libdice's dice_get_masses() on its userspace
 * engine; the device does not report it.
 */
/**
 * dice_die_masses() - the die's distribution in lowest terms
 * @die: the die
 * @unit: side s has mass share[s] / @unit (a fair die: mass 1, @unit 0)
 * @total: the sum of all masses
 *
 * Lowest terms keep a loaded die's total within 64 bits: n * w_i over n * W
 * is w_i / gcd(w) over W / gcd(w).
 *
 * Return: 0, -EOVERFLOW if even the reduced total needs more than 64 bits
 * (possible only for an alias table given by userspace), or -ERESTARTSYS if
 * a fatal signal came (dice_yield_or_stop()).
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
	for (i = 0; i < table->sides; i++) {
		if (dice_yield_or_stop(i))
			return -ERESTARTSYS;
		g = gcd(g, dice_table_share(table, i));
	}
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
	return die->table ? dice_table_share(die->table, (u32)s) / unit : 1;
}
#endif /* !__KERNEL__ */

/**
 * dice_die_wipe() - forget the die's random state and free what it holds
 * @die: the die
 */
void dice_die_wipe(struct dice_die *die)
{
	/* series: loaded */
	dice_die_drop_table(die);
	/* series: end */
	/* series: batch */
	dice_die_free_batch(die);
	/* series: end */
	memzero_explicit(die, sizeof(*die));
}
EXPORT_SYMBOL_IF_KUNIT(dice_die_wipe);

/* The die's sides, for callers that cannot see the die. */
u64 dice_die_sides(const struct dice_die *die)
{
	return die->sides;
}

/* series: loaded */
/**
 * dice_die_table_bytes() - what the die's table took of the allocator
 * @die: the die
 *
 * Return: dice_table_bytes() of the table as the die holds it (packed or
 * not), 0 for a fair die.
 */
size_t dice_die_table_bytes(const struct dice_die *die)
{
	const struct dice_table *table = die->table;

	if (!table)
		return 0;
	return dice_table_bytes(table->sides, table->col || table->packed);
}

/* series: end */
