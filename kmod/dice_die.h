/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_die.h - one die: its configuration, random state and rolls
 * (dice_die.c, dice_roll.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_DIE_H
#define _DICE_DIE_H

#include "dice_uniform.h"
/* series: loaded */
#include "dice_alias.h"
/* series: end */
/* series: viglietta */
#include "dice_methods.h"
/* series: end */

/**
 * struct dice_die - one die: what it is and its random state
 * @sides: number of sides
 * @kind: DICE_KIND_*
 * @method: DICE_METHOD_*
 * series: loaded
 * @table: alias table of a loaded die, NULL for a fair one
 * series: end
 * @rec: recycled randomness
 * @pool: fair bits waiting to be spent
 * @rolls: faces produced
 * @coin_bits: bits spent on biased coins
 * series: batch
 * @batch: state of DICE_METHOD_BATCH, allocated while that is the method
 * series: end
 * @digits: faces of a fair die drawn together by DICE_METHOD_RECYCLE
 * series: loaded
 * @narrow_table: the table can be rolled with a 64-bit state
 * series: end
 * series: out-of-tree
 * @mapping: DICE_MAPPING_*, a userspace engine's (the module rolls by the
 *	latest)
 * series: end
 */
struct dice_die {
	u64 sides;
	u32 kind;
	u32 method;
	/* series: loaded */
	struct dice_table *table;
	/* series: end */
	struct dice_recycler rec;
	struct dice_pool pool;
	u64 rolls;
	u64 coin_bits;
	/* series: batch */
	struct dice_batch *batch;
	/* series: end */
	struct dice_digits digits;
	/* series: loaded */
	bool narrow_table;
	/* series: end */
#ifndef __KERNEL__
	u32 mapping;
#endif
};

/* series: loaded */
/* series: out-of-tree */
/* A userspace engine replaying by mapping 1 (dice_die_set_mapping()). */
static inline bool dice_die_mapping_1(const struct dice_die *die)
{
#ifndef __KERNEL__
	if (die->mapping == DICE_MAPPING_1)
		return true;
#endif
	return false;
}

/* series: end */
/* A loaded die small enough to draw its cells in one narrow draw. */
static inline bool dice_loaded_one_draw(const struct dice_die *die)
{
	return die->table->total < die->rec.whole_limit;
}

/* series: end */

/* The public functions are in dice_core.h; these are the core's own. */
void dice_die_init(struct dice_die *die, dice_fill_fn fill, void *ctx);
void dice_die_set_source(struct dice_die *die, dice_fill_fn fill, void *ctx);
void dice_die_drop_random(struct dice_die *die);
void dice_die_set_widths(struct dice_die *die, unsigned int narrow,
			 unsigned int wide, u64 narrow_limit, u64 whole_limit);
void dice_die_settle(struct dice_die *die);
void dice_die_trim(struct dice_die *die, unsigned int keep);
/* series: loaded */
void dice_die_set_ahead(struct dice_die *die, unsigned int limit, u32 sides);
/* series: end */
const char *dice_die_invalid(const struct dice_die *die);
int dice_die_failed(struct dice_die *die, int err);
int dice_die_roll_u8(struct dice_die *die, u8 *out, unsigned int count,
		     u8 base);
void dice_die_wipe(struct dice_die *die);

#endif /* _DICE_DIE_H */
