/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_alias.h - exact integer alias tables (dice_alias.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_ALIAS_H
#define _DICE_ALIAS_H

#include <linux/gfp.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "dice_uniform.h"

/*
 * Loops over the sides of a table run in the ioctl of a caller who may be
 * hostile, up to 2^32 steps (a 2^20-side build is 0.6 s under QEMU's TCG):
 * every DICE_YIELD_STEPS steps they give the CPU to whoever needs it, so
 * that one user's table never holds up another user's rolls on a kernel
 * without full preemption, and those that may fail stop for a fatal
 * signal.  Only a fatal one: the work is bounded and cannot be resumed, so
 * a call that any handled signal restarted from scratch would never end
 * under a periodic one (a profiler's SIGPROF every 10 ms of CPU time
 * against a build that takes longer).
 */
#define DICE_YIELD_STEPS	4096

static inline void dice_yield(u32 step)
{
	if (!(step % DICE_YIELD_STEPS))
		cond_resched();
}

/* dice_yield(), then -ERESTARTSYS if a fatal signal is pending. */
static inline int dice_yield_or_stop(u32 step)
{
	if (step % DICE_YIELD_STEPS)
		return 0;
	cond_resched();
	return fatal_signal_pending(current) ? -ERESTARTSYS : 0;
}

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

/* Ask for column @c's entry, which a pick will read soon. */
static __always_inline void dice_table_prefetch(const struct dice_table *table,
						u64 c)
{
	if (table->col) {
		prefetch(&table->col[c]);
	} else if (table->packed) {
		prefetch(&table->packed[c]);
	} else {
		prefetch(&table->thr[c]);
		prefetch(&table->alias[c]);
		prefetch(&table->adj[c]);
	}
}

/*
 * Ask for the share of column @c's alias side, which a pick of that column
 * reads when the height falls in the alias piece.  Reads @c's entry, so it
 * should have been asked for a while ago.
 */
static __always_inline void
dice_table_prefetch_alias(const struct dice_table *table, u64 c)
{
	u32 alias = dice_table_alias(table, (u32)c);

	if (table->col)
		prefetch(&table->col[alias]);
	else if (table->packed)
		prefetch(&table->packed[alias]);
	else
		prefetch(&table->share[alias]);
}

static inline u32 dice_table_side(const struct dice_table *table, u64 c,
				  u64 y, u64 *off)
{
	u64 size;

	return dice_table_pick(table, c, y, off, &size);
}

#endif /* _DICE_ALIAS_H */
