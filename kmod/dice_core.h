/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_core.h - the die core shared by the module and userspace
 *
 * A die rolls faces from a stream of fair bits.  The layers are:
 *
 *  - struct dice_pool (dice_bits.c): a small ring of bits taken from a source
 *    (the kernel CRNG, or bits the user wrote) and spent bit by bit, most
 *    significant bit first, with exact accounting.
 *  - struct dice_recycler (dice_uniform.c): a uniform integer x on [0, m)
 *    that carries the randomness left over by earlier rolls, so each roll
 *    costs close to its entropy.
 *  - struct dice_table (dice_alias.c): an exact integer alias table for a
 *    loaded die.
 *  - struct dice_die (dice_die.c): one die's configuration and state, and
 *    the roll entry point; dice_format.c encodes faces for read().
 *
 * Nothing here sleeps, locks or touches user memory: the caller serializes
 * access to a die and copies bytes in and out.
 */
#ifndef _DICE_CORE_H
#define _DICE_CORE_H

#include "dice_compat.h"
#include <linux/dice.h>

/* ---- bit pool ---------------------------------------------------------- */

#define DICE_POOL_WORDS		128	/* 8192 bits, a power of two */
#define DICE_POOL_BITS		(DICE_POOL_WORDS * 64)

/**
 * typedef dice_fill_fn - source of fresh random words
 * @ctx: the source's context
 * @words: where to store @nwords words
 * @nwords: number of 64-bit words wanted, at least 1
 *
 * Return: 0 when all @nwords were stored, or a negative errno.
 */
typedef int (*dice_fill_fn)(void *ctx, u64 *words, unsigned int nwords);

/**
 * struct dice_pool - bits waiting to be spent
 * @word: ring of bits; stream bit i is bit (63 - i % 64) of word (i / 64)
 * @head: stream position of the next unread bit
 * @tail: stream position just after the last buffered bit
 * @discarded: bits dropped unread by dice_pool_discard()
 * @pad: positions skipped to realign the ring after a discard
 * @mark: bits from here on are kept until dice_pool_commit(), so a roll
 *	that runs out of bits half way can be undone with dice_pool_rollback()
 * @fill: source of more bits; NULL when bits only arrive by dice_pool_put()
 * @fill_ctx: argument for @fill
 */
struct dice_pool {
	u64 word[DICE_POOL_WORDS];
	u64 head;
	u64 tail;
	u64 discarded;
	u64 pad;
	u64 mark;
	dice_fill_fn fill;
	void *fill_ctx;
};

void dice_pool_init(struct dice_pool *pool, dice_fill_fn fill, void *ctx);
int dice_pool_refill(struct dice_pool *pool, unsigned int need);
unsigned int dice_pool_room(const struct dice_pool *pool);
void dice_pool_put(struct dice_pool *pool, u64 bits, unsigned int nbits);
void dice_pool_discard(struct dice_pool *pool);

static inline void dice_pool_commit(struct dice_pool *pool)
{
	pool->mark = pool->head;
}

static inline void dice_pool_rollback(struct dice_pool *pool)
{
	pool->head = pool->mark;
}

static inline u64 dice_pool_used(const struct dice_pool *pool)
{
	return pool->head - pool->discarded - pool->pad;
}

static inline u64 dice_pool_drawn(const struct dice_pool *pool)
{
	return pool->tail - pool->pad;
}

/* The @nbits (1 to 64) buffered bits at stream position @pos. */
static inline u64 dice_pool_bits_at(const struct dice_pool *pool, u64 pos,
				    unsigned int nbits)
{
	unsigned int idx = (pos / 64) % DICE_POOL_WORDS;
	unsigned int off = pos % 64;
	u64 next = pool->word[(idx + 1) % DICE_POOL_WORDS];

	/* Both words, no branch: whether a take crosses is a coin flip. */
	return ((pool->word[idx] << off) | ((next >> 1) >> (63 - off))) >>
	       (64 - nbits);
}

/**
 * struct dice_reader - a pool's read position held in registers
 * @pool: the pool
 * @head: as the pool's head
 * @mark: as the pool's mark
 *
 * Rolling loops read through a reader so the position is not reloaded and
 * stored around every take (the faces they store may alias the pool); it
 * goes back to the pool around refills and when the loop ends.
 */
struct dice_reader {
	struct dice_pool *pool;
	u64 head;
	u64 mark;
};

static __always_inline void dice_reader_open(struct dice_reader *rd,
					     struct dice_pool *pool)
{
	rd->pool = pool;
	rd->head = pool->head;
	rd->mark = pool->mark;
}

static __always_inline void dice_reader_close(const struct dice_reader *rd)
{
	rd->pool->head = rd->head;
	rd->pool->mark = rd->mark;
}

/* As dice_pool_commit() and dice_pool_rollback(), on the reader. */
static __always_inline void dice_reader_commit(struct dice_reader *rd)
{
	rd->mark = rd->head;
}

static __always_inline void dice_reader_rollback(struct dice_reader *rd)
{
	rd->head = rd->mark;
}

/* dice_pool_take() of 1 to 64 bits, through the reader. */
static __always_inline int dice_reader_take(struct dice_reader *rd,
					    unsigned int nbits, u64 *out)
{
	if (unlikely(rd->pool->tail - rd->head < nbits)) {
		int err;

		dice_reader_close(rd);
		err = dice_pool_refill(rd->pool, nbits);
		/* A discard realigns both. */
		rd->head = rd->pool->head;
		rd->mark = rd->pool->mark;
		if (err)
			return err;
	}
	*out = dice_pool_bits_at(rd->pool, rd->head, nbits);
	rd->head += nbits;
	return 0;
}

/**
 * dice_pool_take() - spend @nbits fair bits
 * @pool: the pool
 * @nbits: 0 to 64
 * @out: the bits, the first one most significant
 *
 * Return: 0, or a negative errno from the source (-EAGAIN when a pool
 * without a source runs dry); on error nothing is consumed.
 */
static inline int dice_pool_take(struct dice_pool *pool, unsigned int nbits,
				 u64 *out)
{
	struct dice_reader rd;
	int err;

	if (unlikely(!nbits)) {
		*out = 0;
		return 0;
	}
	dice_reader_open(&rd, pool);
	err = dice_reader_take(&rd, nbits, out);
	dice_reader_close(&rd);
	return err;
}

/* ---- loop bounds ------------------------------------------------------- */

/*
 * Every loop that draws repeats only after a rejection (or an undecided coin
 * flip), and every repetition spends at least one fresh bit.  One roll takes
 * at most DICE_POOL_BITS bits past the pool's mark (dice_pool_refill()
 * refuses more), and DICE_METHOD_BATCH, which commits its rejected tries,
 * rejects with probability at most 1/2 a try; so DICE_MAX_REJECTS passes are
 * never exceeded by written bits, and by CRNG bits with probability below
 * 2^-8192.  The 128-bit draws and the methods count their passes against
 * it; the 64-bit draw needs m < 2^width on entry instead, which its callers
 * check (see dice_narrow_draw()).  A check that fails has met a broken
 * invariant: it warns once and fails the roll with -EUCLEAN, and the die
 * forgets its recycled state (dice_die.c), so the next roll starts from a
 * valid one.
 */
#define DICE_MAX_REJECTS	DICE_POOL_BITS

static __always_inline bool dice_too_many_rejects(unsigned int *rejects)
{
	return WARN_ON_ONCE(++*rejects > DICE_MAX_REJECTS);
}

/* ---- recycled uniform ---------------------------------------------------- */

/**
 * struct dice_recycler - leftover randomness kept between rolls
 * @x: uniform on [0, @m), independent of every face served so far
 * @m: at least 1; log2(@m) bits of entropy are waiting in @x
 * @held: the last loaded roll's offset inside its side's share, uniform on
 *	[0, @held_size) and independent of @x and of every face served; it
 *	joins @x one roll late (see dice_roll_loaded_loop())
 * @held_size: that share, 1 when nothing is held
 * @narrow_limit: draws from fewer than this many outcomes use 64-bit
 *	arithmetic (2^32)
 * @narrow_width: bits @m is topped up to for them (63: dice_divide()
 *	takes dividends below 2^63)
 * @wide_width: bits @m is topped up to for the others (128)
 * @whole_limit: a loaded die with fewer cells than this (2^40) is drawn
 *	in one narrow draw, at a rejection rate below 2^-23; larger ones draw
 *	a column, then a height
 *
 * The widths only trade waste for speed; exhaustive tests shrink them so
 * every bit string that decides a roll can be enumerated.
 */
struct dice_recycler {
	u128 x;
	u128 m;
	u64 held;
	u64 held_size;
	u64 narrow_limit;
	u64 whole_limit;
	unsigned int narrow_width;
	unsigned int wide_width;
};

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
 * a rejection stays rarer than 2^-(@width / 2) while small dice take fresh
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
int dice_uniform2(struct dice_recycler *rec, struct dice_pool *pool, u64 n,
		  u64 d, u64 *c, u64 *y, u128 *left);
void dice_recycler_merge(struct dice_recycler *rec, u128 left, u64 off,
			 u64 size);
void dice_recycler_release(struct dice_recycler *rec);
void dice_recycler_narrow(struct dice_recycler *rec);
int dice_fresh_uniform(struct dice_pool *pool, u64 n, u64 *out);

u64 dice_div128(u128 *a, u64 d);
u64 dice_div_128_64_generic(u64 hi, u64 lo, u64 d, u64 *rem);

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

static inline u64 dice_digits_next(struct dice_digits *dg, u64 n)
{
	u128 p = (u128)dg->frac * n;

	dg->frac = (u64)p;
	dg->left--;
	return (u64)(p >> 64);
}

/* ---- alias tables --------------------------------------------------------- */

/**
 * struct dice_column - one column of a table whose masses fit 32 bits
 * @thr: as dice_table.thr
 * @adj: as dice_table.adj, modulo 2^32
 * @alias: as dice_table.alias
 * @share: as dice_table.share, of side c (the column's own side)
 *
 * 16 bytes a side, one cache line access per column.
 */
struct dice_column {
	u32 thr;
	u32 adj;
	u32 alias;
	u32 share;
};

/**
 * struct dice_table - exact integer alias table of a loaded die
 * @sides: number of sides and of columns
 * @mass: mass D of each column
 * @total: @sides * @mass, the mass of the whole table
 * @thr: column c yields side c for the first @thr[c] of its mass
 * @alias: the side column c yields for the rest of its mass
 * @adj: offset of column c's alias piece inside its side's share, minus
 *	@thr[c], modulo 2^64
 * @share: mass of side s over all columns; it comes up with probability
 *	@share[s] / @total
 * @col: the same in 16 bytes a side once dice_table_pack() found that
 *	every mass fits 32 bits; then @thr, @alias, @adj and @share are NULL
 * @packed: else the same as one 128-bit word a side, when the fields fit:
 *	thr, adj (modulo 2^@share_bits), the column's own side's share and
 *	alias, from the low bits up; then the arrays are NULL
 * @thr_bits: bits of thr in @packed
 * @share_bits: bits of adj and of share in @packed
 * @cols: division by @sides
 * @height: division by @mass
 * @whole: division by @total, when it fits 64 bits
 * @spread: the least e with every share at most @mass * 2^e: a height is
 *	drawn with e bits of room left for merging the share back
 *
 * Sampling picks a column c and a height y < D uniformly.  The pieces of a
 * side, laid end to end (its own piece first, then its alias pieces in
 * column order), form its share; the position of (c, y) inside that share is
 * uniform given the side and goes back into the recycler.
 */
struct dice_table {
	u32 sides;
	u64 mass;
	u128 total;
	u64 *thr;
	u64 *adj;
	u64 *share;
	u32 *alias;
	struct dice_column *col;
	u128 *packed;
	unsigned int thr_bits;
	unsigned int share_bits;
	struct dice_divisor cols;
	struct dice_divisor height;
	struct dice_divisor whole;
	unsigned int spread;
};

struct dice_table *dice_table_alloc(u32 sides);
void dice_table_free(struct dice_table *table);
int dice_table_from_weights(struct dice_table *table, const u32 *weights);
int dice_table_from_alias(struct dice_table *table, u64 mass);
struct dice_table *dice_table_pack(struct dice_table *table);

/* Field @i of a packed table's word @w: thr, adj, share or alias. */
static inline u64 dice_packed_field(const struct dice_table *table, u128 w,
				    unsigned int i)
{
	unsigned int t = table->thr_bits, s = table->share_bits;
	unsigned int shift = i == 0 ? 0 : t + (i - 1) * s;
	unsigned int bits = i == 0 ? t : s;

	w >>= shift;
	return i == 3 ? (u64)w : (u64)w & (U64_MAX >> (64 - bits));
}

static inline u64 dice_table_thr(const struct dice_table *table, u32 c)
{
	if (table->col)
		return table->col[c].thr;
	if (table->packed)
		return dice_packed_field(table, table->packed[c], 0);
	return table->thr[c];
}

static inline u32 dice_table_alias(const struct dice_table *table, u32 c)
{
	if (table->col)
		return table->col[c].alias;
	if (table->packed)
		return (u32)dice_packed_field(table, table->packed[c], 3);
	return table->alias[c];
}

static inline u64 dice_table_share(const struct dice_table *table, u32 s)
{
	if (table->col)
		return table->col[s].share;
	if (table->packed)
		return dice_packed_field(table, table->packed[s], 2);
	return table->share[s];
}

static __always_inline u32 dice_column_pick(const struct dice_column *col,
					    u64 c, u64 y, u64 *off, u64 *size)
{
	/*
	 * Masks, not branches: whether y falls in the column's own piece is a
	 * coin flip, and compilers turn plain selects back into a branch.
	 */
	u32 alias = -(u32)(y >= col[c].thr);
	u32 side = (u32)c ^ (((u32)c ^ col[c].alias) & alias);

	*off = (u32)(y + (col[c].adj & alias));
	*size = col[side].share;
	return side;
}

/**
 * dice_table_pick() - the side at column @c, height @y
 * @table: the table
 * @c: column, below sides
 * @y: height, below mass
 * @off: position of (@c, @y) inside the side's share
 * @size: the side's share
 *
 * Return: the side.
 */
static __always_inline u32 dice_table_pick(const struct dice_table *table,
					   u64 c, u64 y, u64 *off, u64 *size)
{
	u64 alias;
	u32 side;

	if (table->col)
		return dice_column_pick(table->col, c, y, off, size);
	/* Masks for the coin flip, as in dice_column_pick(). */
	if (table->packed) {
		u128 w = table->packed[c];
		u64 mask = U64_MAX >> (64 - table->share_bits);

		alias = -(u64)(y >= dice_packed_field(table, w, 0));
		side = (u32)(c ^ ((c ^ dice_packed_field(table, w, 3)) & alias));
		/* The own piece lies inside the share: y < 2^share_bits. */
		*off = (y + (dice_packed_field(table, w, 1) & alias)) & mask;
		*size = dice_table_share(table, side);
		return side;
	}
	alias = -(u64)(y >= table->thr[c]);
	side = (u32)(c ^ ((c ^ table->alias[c]) & alias));
	*off = y + (table->adj[c] & alias);
	*size = table->share[side];
	return side;
}

static inline u32 dice_table_side(const struct dice_table *table, u64 c,
				  u64 y, u64 *off)
{
	u64 size;

	return dice_table_pick(table, c, y, off, &size);
}

/* ---- the seeds' methods (dice_methods.c) ------------------------------------- */

#define DICE_BATCH_LIMBS	64	/* 4096 bits: n^k for a d6 up to k = 1584 */

/**
 * struct dice_batch - DICE_METHOD_BATCH: k rolls drawn as one integer
 * @sides: the die the plan is for; 0 when there is no plan
 * @k: rolls per draw
 * @bits: bits per try, the bit length of n^k - 1
 * @limbs: 64-bit limbs of n^k
 * @radix: the largest power n^j that fits 64 bits
 * @per_radix: j
 * @left: rolls still waiting in @value
 * @in_chunk: rolls still waiting in @chunk
 * @chunk: the digits of one radix chunk not yet served
 * @bound: n^k, little-endian limbs
 * @value: uniform on [0, n^@left) while rolls wait
 */
struct dice_batch {
	u64 sides;
	unsigned int k;
	unsigned int bits;
	unsigned int limbs;
	unsigned int per_radix;
	u64 radix;
	unsigned int left;
	unsigned int in_chunk;
	u64 chunk;
	u64 bound[DICE_BATCH_LIMBS];
	u64 value[DICE_BATCH_LIMBS];
};

struct dice_die;

int dice_batch_plan(struct dice_batch *batch, u64 sides);
int dice_roll_batch(struct dice_die *die, u64 *face);
int dice_roll_viglietta(struct dice_die *die, u64 *face);
int dice_roll_alias(struct dice_die *die, u64 *face);
int dice_method_check(u32 method, u32 kind);
int dice_coin(struct dice_die *die, u64 num, u64 den, bool *heads);

/* ---- the die ---------------------------------------------------------------- */

/**
 * struct dice_die - one die: what it is and its random state
 * @sides: number of sides
 * @kind: DICE_KIND_*
 * @method: DICE_METHOD_*
 * @format: DICE_FMT_* type and flags
 * @table: alias table of a loaded die, NULL for a fair one
 * @rec: recycled randomness
 * @pool: fair bits waiting to be spent
 * @rolls: faces produced
 * @coin_bits: bits spent on biased coins
 * @batch: state of DICE_METHOD_BATCH
 * @digits: faces of a fair die drawn together by DICE_METHOD_RECYCLE
 * @narrow_table: the table can be rolled with a 64-bit state
 */
struct dice_die {
	u64 sides;
	u32 kind;
	u32 method;
	u32 format;
	struct dice_table *table;
	struct dice_recycler rec;
	struct dice_pool pool;
	u64 rolls;
	u64 coin_bits;
	struct dice_batch batch;
	struct dice_digits digits;
	bool narrow_table;
};

void dice_die_init(struct dice_die *die, dice_fill_fn fill, void *ctx);
int dice_die_set_sides(struct dice_die *die, u64 sides);
int dice_die_set_format(struct dice_die *die, u32 format);
int dice_die_set_table(struct dice_die *die, struct dice_table *table);
int dice_die_set_method(struct dice_die *die, u32 method);
void dice_die_set_source(struct dice_die *die, dice_fill_fn fill, void *ctx);
void dice_die_drop_random(struct dice_die *die);
void dice_die_set_widths(struct dice_die *die, unsigned int narrow,
			 unsigned int wide, u64 narrow_limit, u64 whole_limit);
void dice_die_settle(struct dice_die *die);
const char *dice_die_invalid(const struct dice_die *die);
int dice_die_roll(struct dice_die *die, u64 *face);
int dice_die_roll_many(struct dice_die *die, u64 *faces, unsigned int count);
int dice_die_roll_u8(struct dice_die *die, u8 *out, unsigned int count);
void dice_die_info(const struct dice_die *die, struct dice_info *info);
void dice_die_stats(const struct dice_die *die, struct dice_stats *stats);
int dice_die_masses(const struct dice_die *die, u64 *unit, u64 *total);
u64 dice_die_mass(const struct dice_die *die, u64 unit, u64 s);
void dice_die_wipe(struct dice_die *die);

/* ---- faces to bytes ----------------------------------------------------------- */

#define DICE_TEXT_MAX	21	/* "18446744073709551615\n" */

int dice_format_check(u32 format, u64 sides);
unsigned int dice_format_width(u32 format);
unsigned int dice_format_face(u32 format, u64 face, u8 *buf);
unsigned int dice_format_faces(u32 format, const u64 *faces,
			       unsigned int count, u8 *buf);

#endif /* _DICE_CORE_H */
