/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_methods.h - the source documents' samplers: Viglietta, batch,
 * alias, rejection (dice_methods.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_METHODS_H
#define _DICE_METHODS_H

#include "dice_alias.h"

/* series: batch */
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

/* series: end */

struct dice_die;

/* series: batch */
int dice_batch_plan(struct dice_batch *batch, u64 sides);
void dice_batch_drop(struct dice_die *die);
int dice_roll_batch(struct dice_die *die, u64 *face);
/* series: end */
int dice_roll_viglietta(struct dice_die *die, u64 *face);
/* series: alias-method */
int dice_roll_alias(struct dice_die *die, u64 *face);
int dice_roll_rejection(struct dice_die *die, u64 *face);
/* series: end */
int dice_method_check(u32 method, u32 kind);
int dice_coin(struct dice_die *die, u64 num, u64 den, bool *heads);

#endif /* _DICE_METHODS_H */
