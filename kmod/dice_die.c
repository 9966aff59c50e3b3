// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_die.c - one die: its configuration and the roll entry point
 *
 * The die invariant, which every roll path relies on and every change of the
 * die re-establishes in one place, dice_die_plan():
 *
 *  - the recycler: 1 <= m, x < m, held < held_size, and held_size is 1
 *    unless a narrow loaded die holds an offset of its own table;
 *  - a die that draws in 64 bits (a fair die whose draw is below
 *    narrow_limit, or a table dice_table_narrow() accepts) keeps
 *    m * base^left < 2^narrow_width, base^left counting the faces or cells
 *    still waiting in the digits: the batch loops multiply m by their sizes
 *    without a check, and dice_divide() is exact only below 2^63;
 *  - the pool: mark <= head <= tail, at most DICE_POOL_BITS bits from the
 *    mark's word on.
 *
 * A change (sides, table, method, widths) settles the waiting faces into
 * the recycler and then calls dice_die_plan(); a change of source, a reset
 * and a broken loop bound forget the recycled state (dice_die_forget()); a
 * failed roll restores what it saved.  dice_die_invalid() checks it all.
 */
#include "dice_core.h"

static bool dice_loaded_one_draw(const struct dice_die *die)
{
	return die->table->total < die->rec.whole_limit;
}

/*
 * Loaded dice roll in 64 bits when drawn whole (merging the share back
 * cannot overflow: no share exceeds the cells), or when the column and
 * mass * 2^spread stay below 2^32 and 2^40: the height is then drawn from m
 * of 63 - spread bits, which keeps a rejection below 2^-22 and leaves room
 * for the merge.
 */
static bool dice_table_narrow(const struct dice_die *die)
{
	const struct dice_table *table = die->table;

	if (dice_loaded_one_draw(die))
		return true;
	return table->sides < die->rec.narrow_limit &&
	       table->mass < die->rec.narrow_limit &&
	       ((table->mass << table->spread) >> 8) < die->rec.narrow_limit;
}

/*
 * Plan how many faces one recycled draw gives: the largest k with
 * n^k <= 2^ceil(narrow_width / 2), n the sides of a fair die or the cells of a
 * loaded one drawn whole.  That bound is at most 2^32, where the fraction
 * split of dice_digits is exact, and keeps a draw's rejection rare.  A
 * loaded die groups only when two cells fit (k >= 2).
 */
static void dice_digits_plan(struct dice_die *die)
{
	struct dice_digits *dg = &die->digits;
	u64 cap = 1ULL << ((die->rec.narrow_width + 1) / 2), base = 0, span;
	unsigned int per = 1;

	/* A group is one narrow draw: below narrow_limit, or no group. */
	if (cap >= die->rec.narrow_limit)
		cap = die->rec.narrow_limit ? die->rec.narrow_limit - 1 : 0;

	if (die->table) {
		/* A loaded die's cells, when it is drawn whole. */
		if (dice_loaded_one_draw(die))
			base = (u64)die->table->total;
	} else if (die->sides > 2 && (die->sides & (die->sides - 1))) {
		base = die->sides;	/* the others need no recycler */
	}
	span = base;
	while (base > 1 && span <= cap / base) {
		span *= base;
		per++;
	}
	if (per == 1) {
		/* Not grouped; a fair die still draws from [0, n) by span. */
		base = die->table ? 1 : die->sides;
		span = base;
	}
	die->narrow_table = die->table && dice_table_narrow(die);
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
	if (die->table)
		return die->narrow_table;
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
	die->digits.left = 0;
	die->digits.frac = 0;
	die->batch.sides = 0;
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
	die->format = DICE_FMT_TEXT;
	dice_recycler_init(&die->rec);
	dice_pool_init(&die->pool, fill, ctx);
	dice_die_plan(die);
}

/**
 * dice_die_settle() - give faces drawn but not served back to the recycler
 * @die: the die
 *
 * Faces waiting in @die->digits are uniform on [0, n^left) and independent
 * of everything served, so they join x as one more mixed-radix digit.  Done
 * before the die changes, so no randomness is lost to the change.
 */
void dice_die_settle(struct dice_die *die)
{
	struct dice_digits *dg = &die->digits;
	u64 pw = 1, rest;
	unsigned int i;

	dice_recycler_release(&die->rec);
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
	dice_die_settle(die);
	dice_die_drop_table(die);
	die->sides = sides;
	die->kind = DICE_KIND_FAIR;
	dice_die_plan(die);
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
 * The table is packed to 16 bytes a side when its masses allow.
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
	dice_die_settle(die);
	dice_die_drop_table(die);
	die->table = dice_table_pack(table);
	die->sides = die->table->sides;
	die->kind = DICE_KIND_LOADED;
	dice_die_plan(die);
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
	dice_die_settle(die);
	die->method = method;
	die->batch.sides = 0;
	dice_die_plan(die);
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
 *    state, which is forgotten so the next roll starts from a valid one;
 *  - -EAGAIN with written bits that fill the pool: no byte more can be
 *    written, so the bits held can never complete this roll (for example
 *    0xff bytes for a d3 under DICE_METHOD_REJECTION).  They are discarded,
 *    counted in bits_discarded, and -EAGAIN then means what it says: more
 *    bits would help.
 */
static int dice_die_failed(struct dice_die *die, int err)
{
	if (err == -EUCLEAN || err == -ENOBUFS)
		dice_die_forget(die);
	else if (err == -EAGAIN && !die->pool.fill &&
		 dice_pool_room(&die->pool) < 8)
		dice_pool_discard(&die->pool);
	return err;
}

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

/*
 * A cell of a grouped loaded draw is two digits of the fraction @f: its
 * column (radix @n), then its height (radix @d).
 */
static __always_inline u64 dice_cell_split(u64 f, u64 n, u64 d, u64 *c,
					   u64 *y)
{
	u128 p = (u128)f * n;

	*c = (u64)(p >> 64);
	p = (u128)(u64)p * d;
	*y = (u64)(p >> 64);
	return (u64)p;
}

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

/*
 * What a loaded die's narrow draws need, copied out of the table so the
 * batch loop keeps it in registers.
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
 * table when it has fewer than 2^32 cells, else a column, then a height
 * drawn with room left to merge the side's share back (see
 * Documentation/dice/alias.rst).
 */
static __always_inline int dice_loaded_draw(struct dice_reader *rd,
					    const struct dice_draw_plan *plan,
					    u64 *x, u64 *m, u64 *c, u64 *y)
{
	u64 u;
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
	err = dice_narrow_draw(rd, &plan->cols, plan->width, x, m, c);
	if (err)
		return err;
	return dice_narrow_draw(rd, &plan->height, plan->height_width, x, m,
				y);
}

/*
 * A loaded die the batch loops can roll, cells grouped or not: a table
 * dice_table_narrow() accepted, and m below 2^63.
 */
static bool dice_loaded_batch(const struct dice_die *die)
{
	return die->method == DICE_METHOD_RECYCLE && die->table &&
	       die->narrow_table && !(die->rec.m >> die->rec.narrow_width);
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

/* A fair die the batch loops can roll: grouped or not, 64-bit state. */
static bool dice_fair_batch(const struct dice_die *die)
{
	u64 n = die->sides;

	return die->method == DICE_METHOD_RECYCLE && !die->table &&
	       !(die->rec.m >> die->rec.narrow_width) && n > 2 &&
	       (n & (n - 1)) &&
	       die->digits.span.d < die->rec.narrow_limit;
}

/* A roll that draws: kept out of line so the common roll stays light. */
static noinline int dice_die_roll_draw(struct dice_die *die, u64 *face)
{
	u128 saved_x, saved_m;
	u64 saved_held, saved_held_size, saved_coin_bits;
	int err;

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
	if (dice_loaded_batch(die) && die->digits.per == 1) {
		err = 0;
		if (!dice_roll_loaded_many(die, face, 1, &err))
			return dice_die_failed(die, err);
		die->rolls++;
		return 0;
	}
	saved_x = die->rec.x;
	saved_m = die->rec.m;
	saved_held = die->rec.held;
	saved_held_size = die->rec.held_size;
	saved_coin_bits = die->coin_bits;
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
		die->rec.x = saved_x;
		die->rec.m = saved_m;
		die->rec.held = saved_held;
		die->rec.held_size = saved_held_size;
		die->coin_bits = saved_coin_bits;
		dice_pool_rollback(&die->pool);
		return dice_die_failed(die, err);
	}
	dice_pool_commit(&die->pool);
	die->rolls++;
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
	/* A fair face already drawn: nothing to spend, nothing to undo. */
	if (die->digits.left && !die->table) {
		*face = dice_digits_next(&die->digits, die->sides);
		die->rolls++;
		return 0;
	}
	return dice_die_roll_draw(die, face);
}

/*
 * The batch loops below roll the common cases under the default method
 * with the recycler kept in registers across rolls: the same draws as
 * dice_die_roll(), and a roll that runs out of bits is undone the same way.
 *
 * A draw inside a batch loop: committed when it succeeds, so a later roll
 * that runs out of bits undoes only itself.
 */
static __always_inline bool dice_batch_draw(struct dice_reader *rd,
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

static __always_inline unsigned int
dice_roll_fair_loop(struct dice_die *die, void *out, unsigned int count,
		    int *errp, const bool bytes, u8 base)
{
	struct dice_digits *dg = &die->digits;
	const struct dice_divisor span = dg->span;
	const unsigned int width = die->rec.narrow_width;
	u64 n = die->sides, x = (u64)die->rec.x, m = (u64)die->rec.m, u, f;
	struct dice_reader rd;
	unsigned int i = 0, k;

	dice_reader_open(&rd, &die->pool);
	while (i < count) {
		if (!dg->left) {
			if (!dice_batch_draw(&rd, &span, width, &x, &m, &u,
					     errp))
				break;
			u = dice_digits_start(dg, n, u);
			if (bytes)
				((u8 *)out)[i++] = (u8)u + base;
			else
				((u64 *)out)[i++] = u;
			continue;
		}
		k = dg->left < count - i ? dg->left : count - i;
		dg->left -= k;
		f = dg->frac;
		while (k--) {
			u128 p = (u128)f * n;

			if (bytes)
				((u8 *)out)[i++] = (u8)(p >> 64) + base;
			else
				((u64 *)out)[i++] = (u64)(p >> 64);
			f = (u64)p;
		}
		dg->frac = f;
	}
	dice_reader_close(&rd);
	die->rec.x = x;
	die->rec.m = m;
	return i;
}

/*
 * @one and @packed are constants at each call site, so each of the four
 * loops below carries only its own case.
 */
static __always_inline unsigned int
dice_roll_loaded_loop(struct dice_die *die, u64 *faces, unsigned int count,
		      int *errp, const bool one, const bool packed)
{
	const struct dice_table *table = die->table;
	u64 x = (u64)die->rec.x, m = (u64)die->rec.m, c, y, off, size;
	u64 held = die->rec.held, held_size = die->rec.held_size;
	struct dice_draw_plan plan;
	struct dice_reader rd;
	unsigned int i;
	int err;

	dice_draw_plan(die, &plan);
	plan.one = one;
	/*
	 * m < 2^width here (dice_loaded_batch()) and after every merge below,
	 * because no share exceeds what its draw divided m by (see
	 * Documentation/dice/alias.rst); checking it each roll cost 10% on a
	 * loaded die drawn by column and height, so it is checked once here.
	 */
	if (WARN_ON_ONCE(m >> plan.width)) {
		*errp = -EUCLEAN;
		return 0;
	}
	dice_reader_open(&rd, &die->pool);
	for (i = 0; i < count; i++) {
		err = dice_loaded_draw(&rd, &plan, &x, &m, &c, &y);
		if (unlikely(err)) {
			dice_reader_rollback(&rd);
			*errp = err;
			break;
		}
		dice_reader_commit(&rd);
		if (packed)
			faces[i] = dice_column_pick(table->col, c, y, &off,
						    &size);
		else
			faces[i] = dice_table_pick(table, c, y, &off, &size);
		/*
		 * The offset of the roll before joins x now, this one's next
		 * roll: the table lookups stay off the path from one draw
		 * to the next, so two rolls overlap.
		 */
		x = x * held_size + held;
		m *= held_size;
		held = off;
		held_size = size;
	}
	dice_reader_close(&rd);
	die->rec.x = x;
	die->rec.m = m;
	die->rec.held = held;
	die->rec.held_size = held_size;
	return i;
}

/* Loaded dice with few cells: the grouped draws of dice_loaded_cell(). */
static __always_inline unsigned int
dice_roll_cells_loop(struct dice_die *die, u64 *faces, unsigned int count,
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
			if (!dice_batch_draw(&rd, &span, width, &x, &m, &u,
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
		       dice_roll_cells_loop(die, faces, count, errp, true) :
		       dice_roll_cells_loop(die, faces, count, errp, false);

	if (dice_loaded_one_draw(die))
		return packed ?
		       dice_roll_loaded_loop(die, faces, count, errp, 1, 1) :
		       dice_roll_loaded_loop(die, faces, count, errp, 1, 0);
	return packed ? dice_roll_loaded_loop(die, faces, count, errp, 0, 1) :
			dice_roll_loaded_loop(die, faces, count, errp, 0, 0);
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
	unsigned int done = 0;
	int err = 0;

	if (dice_fair_batch(die))
		done = dice_roll_fair_loop(die, faces, count, &err, false, 0);
	else if (dice_loaded_batch(die))
		done = dice_roll_loaded_many(die, faces, count, &err);
	die->rolls += done;
	if (err)
		dice_die_failed(die, err);
	while (!err && done < count) {
		err = dice_die_roll(die, &faces[done]);
		if (!err)
			done++;
	}
	return done ? (int)done : err;
}

/**
 * dice_die_roll_u8() - roll up to @count times into bytes
 * @die: the die, in a DICE_FMT_U8 format
 * @out: room for @count bytes, the faces as the format encodes them
 * @count: rolls wanted
 *
 * The read path's U8 loop: a fair die's faces go straight from the digits
 * to the bytes.
 *
 * Return: as dice_die_roll_many(), with the same faces.
 */
int dice_die_roll_u8(struct dice_die *die, u8 *out, unsigned int count)
{
	u8 base = die->format & DICE_FMT_ZERO_BASED ? 0 : 1;
	unsigned int done = 0;
	u64 faces[16];
	int err = 0, got;

	if (dice_fair_batch(die)) {
		done = dice_roll_fair_loop(die, out, count, &err, true, base);
		die->rolls += done;
		if (err)
			dice_die_failed(die, err);
	}
	while (!err && done < count) {
		got = dice_die_roll_many(die, faces,
					 count - done < ARRAY_SIZE(faces) ?
					 count - done : ARRAY_SIZE(faces));
		if (got < 0) {
			err = got;
			break;
		}
		done += dice_format_faces(die->format, faces, got, out + done);
	}
	return done ? (int)done : err;
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
	if (rec->held_size > 1 &&
	    (!die->table || !die->narrow_table || dg->left ||
	     rec->held_size > die->table->total))
		return "an offset held outside a narrow loaded roll";
	if (dg->left > dg->per || (dg->left && dg->per < 2))
		return "more faces waiting than a draw gives";
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
		g = dice_gcd(g, dice_table_share(table, i));
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

/**
 * dice_die_wipe() - forget the die's random state and free its table
 * @die: the die
 */
void dice_die_wipe(struct dice_die *die)
{
	dice_die_drop_table(die);
	dice_wipe(die, sizeof(*die));
}
