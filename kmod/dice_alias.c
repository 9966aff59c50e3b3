// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_alias.c - exact integer alias tables for loaded dice
 *
 * Vose's alias method as in the Perl module Games::Dice::Loaded, but in
 * integers:
 * with W the sum of the weights, side i brings mass n * w_i and every column
 * holds exactly W, so each pairing of a short bar with a tall one is exact
 * and no probability is ever rounded.  A table built elsewhere (for instance
 * by userspace from that module's algorithm) is validated and served as given.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "dice_alias.h"

/**
 * dice_table_bytes() - what a table of @sides sides allocates
 * @sides: its sides
 * @packed: as dice_table_pack() copies it (16 bytes a side), or as
 *	dice_table_alloc() makes it (28)
 *
 * For callers that budget their users' memory.
 *
 * Return: the bytes asked of the allocator.
 */
size_t dice_table_bytes(u32 sides, bool packed)
{
	size_t each = packed ? sizeof(struct dice_column) :
			       3 * sizeof(u64) + sizeof(u32);

	return sizeof(struct dice_table) + (size_t)sides * each;
}

/* A table's arrays, filled in by its builder for dice_table_from_alias(). */
u64 *dice_table_thresholds(struct dice_table *table)
{
	return table->thr;
}

u32 *dice_table_aliases(struct dice_table *table)
{
	return table->alias;
}

/* The mass of each column, once built. */
u64 dice_table_mass(const struct dice_table *table)
{
	return table->mass;
}

/**
 * dice_table_mem() - memory for a table, or for the weights it is built from
 * @bytes: at least 1
 *
 * Past a page it comes from vmalloc(), which needs only order-0 pages.
 * kvmalloc() with __GFP_RETRY_MAYFAIL (DICE_GFP: ENOMEM, not the OOM
 * killer) would first reclaim and compact hard for a physically contiguous
 * block, which is what that flag asks of it, so any user looping SET_DIE
 * could make the machine do so.  Freed by kvfree().
 *
 * Return: the memory, uninitialized, or NULL.
 */
void *dice_table_mem(size_t bytes)
{
	if (bytes <= PAGE_SIZE)
		return kmalloc(bytes, DICE_GFP);
	return __vmalloc(bytes, DICE_GFP);
}
EXPORT_SYMBOL_IF_KUNIT(dice_table_mem);

/**
 * dice_table_alloc() - allocate a table for @sides sides
 * @sides: at least 1
 *
 * Return: the table, its arrays uninitialized, or NULL.
 */
struct dice_table *dice_table_alloc(u32 sides)
{
	struct dice_table *table;
	u8 *mem;

	table = dice_table_mem(dice_table_bytes(sides, false));
	if (!table)
		return NULL;
	mem = (u8 *)(table + 1);
	table->sides = sides;
	table->mass = 0;
	table->total = 0;
	table->col = NULL;
	table->packed = NULL;
	table->thr_bits = 0;
	table->share_bits = 0;
	table->thr = (u64 *)mem;
	table->adj = table->thr + sides;
	table->share = table->adj + sides;
	table->alias = (u32 *)(table->share + sides);
	return table;
}
EXPORT_SYMBOL_IF_KUNIT(dice_table_alloc);

void dice_table_free(struct dice_table *table)
{
	kvfree(table);
}
EXPORT_SYMBOL_IF_KUNIT(dice_table_free);

/*
 * Lay each side's pieces end to end, its own piece first, and record where
 * every alias piece starts so a draw can be mapped into its side's share.
 */
static int dice_table_finish(struct dice_table *table)
{
	u64 d = table->mass, most = 0;
	u32 n = table->sides, c;

	for (c = 0; c < n; c++) {
		if (dice_yield_or_stop(c))
			return -ERESTARTSYS;
		table->share[c] = table->thr[c];
	}
	for (c = 0; c < n; c++) {
		u32 a = table->alias[c];
		u64 piece = d - table->thr[c];

		if (dice_yield_or_stop(c))
			return -ERESTARTSYS;

		table->adj[c] = table->share[a] - table->thr[c];
		if (piece &&
		    check_add_overflow(table->share[a], piece,
				       &table->share[a]))
			return -EOVERFLOW;
	}
	for (c = 0; c < n; c++) {
		dice_yield(c);
		if (table->share[c] > most)
			most = table->share[c];
	}
	table->spread = 0;
	while (((u128)d << table->spread) < most)
		table->spread++;
	table->total = (u128)n * d;
	dice_divisor_init(&table->cols, n);
	dice_divisor_init(&table->height, d);
	if (!(table->total >> 64))
		dice_divisor_init(&table->whole, (u64)table->total);
	else
		memset(&table->whole, 0, sizeof(table->whole));
	return 0;
}

/**
 * dice_table_from_weights() - build the table of a die with integer weights
 * @table: from dice_table_alloc()
 * @weights: one per side; side i comes up with probability w_i / sum(w)
 *
 * Runs in O(n) with integers only; side i's share is exactly n * w_i out of
 * n * W.
 *
 * Return: 0, -EINVAL if every weight is zero, or -ERESTARTSYS if a fatal
 * signal came (dice_yield_or_stop()).
 */
int dice_table_from_weights(struct dice_table *table, const u32 *weights)
{
	u32 n = table->sides, i, step = 0, nsmall = 0, nlarge = 0;
	/* The share array is free until dice_table_finish(): use it as the
	 * two work stacks, short bars from the bottom, tall ones from the top.
	 */
	u32 *stack = (u32 *)table->share;
	u64 w = 0;

	for (i = 0; i < n; i++) {
		if (dice_yield_or_stop(i))
			return -ERESTARTSYS;
		w += weights[i];	/* n < 2^32 weights < 2^32: no overflow */
	}
	if (!w)
		return -EINVAL;
	table->mass = w;
	for (i = 0; i < n; i++) {
		if (dice_yield_or_stop(i))
			return -ERESTARTSYS;
		table->thr[i] = (u64)n * weights[i];
		table->alias[i] = i;
		if (table->thr[i] < w)
			stack[nsmall++] = i;
		else
			stack[2 * n - 1 - nlarge++] = i;
	}
	while (nsmall && nlarge) {
		u32 s = stack[--nsmall];
		u32 l = stack[2 * n - nlarge];

		if (dice_yield_or_stop(++step))
			return -ERESTARTSYS;
		table->alias[s] = l;
		table->thr[l] -= w - table->thr[s];
		if (table->thr[l] < w) {
			nlarge--;
			stack[nsmall++] = l;
		}
	}
	/* Exact arithmetic leaves every remaining bar exactly full. */
	while (nsmall)
		table->thr[stack[--nsmall]] = w;
	while (nlarge)
		table->thr[stack[2 * n - nlarge--]] = w;
	return dice_table_finish(table);
}
EXPORT_SYMBOL_IF_KUNIT(dice_table_from_weights);

/**
 * dice_table_from_alias() - check and complete a table given as columns
 * @table: from dice_table_alloc(), with thr[] and alias[] filled in
 * @mass: the mass of every column
 *
 * Return: 0, -EINVAL for a zero mass, a threshold above it or an alias out
 * of range, -EOVERFLOW if a side's share does not fit 64 bits, or
 * -ERESTARTSYS if a fatal signal came (dice_yield_or_stop()).
 */
int dice_table_from_alias(struct dice_table *table, u64 mass)
{
	u32 c;

	if (!mass)
		return -EINVAL;
	for (c = 0; c < table->sides; c++) {
		if (dice_yield_or_stop(c))
			return -ERESTARTSYS;
		if (table->thr[c] > mass || table->alias[c] >= table->sides)
			return -EINVAL;
		/* A full column never uses its alias: make it harmless. */
		if (table->thr[c] == mass)
			table->alias[c] = c;
	}
	table->mass = mass;
	return dice_table_finish(table);
}
EXPORT_SYMBOL_IF_KUNIT(dice_table_from_alias);

/* A copy of @table's header and room for @each bytes a side. */
static struct dice_table *dice_table_repack(const struct dice_table *table,
					    size_t each)
{
	struct dice_table *copy;

	copy = dice_table_mem(sizeof(*copy) + (size_t)table->sides * each);
	if (!copy)
		return NULL;
	*copy = *table;
	copy->thr = NULL;
	copy->adj = NULL;
	copy->share = NULL;
	copy->alias = NULL;
	return copy;
}

/**
 * dice_table_pack() - the same table in 16 bytes a side, if it fits
 * @table: a finished table
 *
 * Tables whose column mass and shares all fit 32 bits (every die of up to
 * 2^16 sides with 16-bit weights, for one) are copied into struct
 * dice_column form; others whose fields fit one 128-bit word together
 * (2^20 sides with 16-bit weights, for one) into that; the
 * 28-bytes-a-side arrays are then freed.
 *
 * The loops yield, and stop for a fatal signal (the module packs a table a
 * user gave before it takes the file's lock): packing is an economy, so a
 * table not packed is still a valid one, and the caller that sees the
 * signal fails the call.
 *
 * Return: the table to use from now on: the packed copy (@table is freed),
 * or @table itself when it does not fit, memory is short or a fatal signal
 * came.
 */
struct dice_table *dice_table_pack(struct dice_table *table)
{
	u32 n = table->sides, c;
	unsigned int t, s, a;
	struct dice_table *copy;
	u64 most = 0;

	if (table->col || table->packed)
		return table;
	for (c = 0; c < n; c++) {
		if (dice_yield_or_stop(c))
			return table;
		if (table->share[c] > most)
			most = table->share[c];
	}
	if (table->mass <= U32_MAX && most <= U32_MAX) {
		copy = dice_table_repack(table, sizeof(*copy->col));
		if (!copy)
			return table;
		copy->col = (struct dice_column *)(copy + 1);
		for (c = 0; c < n; c++) {
			if (dice_yield_or_stop(c))
				goto stopped;
			copy->col[c].thr = (u32)table->thr[c];
			copy->col[c].adj = (u32)table->adj[c];
			copy->col[c].alias = table->alias[c];
			copy->col[c].share = (u32)table->share[c];
		}
		dice_table_free(table);
		return copy;
	}
	t = fls64(table->mass);
	s = most ? fls64(most) : 1;
	a = n > 1 ? fls64(n - 1) : 1;
	if (t + 2 * s + a > 128)
		return table;
	copy = dice_table_repack(table, sizeof(*copy->packed));
	if (!copy)
		return table;
	copy->packed = (u128 *)(copy + 1);
	copy->thr_bits = t;
	copy->share_bits = s;
	for (c = 0; c < n; c++) {
		u64 mask = U64_MAX >> (64 - s);

		if (dice_yield_or_stop(c))
			goto stopped;
		copy->packed[c] = table->thr[c] |
				  (u128)(table->adj[c] & mask) << t |
				  (u128)table->share[c] << (t + s) |
				  (u128)table->alias[c] << (t + 2 * s);
	}
	dice_table_free(table);
	return copy;

stopped:
	dice_table_free(copy);
	return table;
}
