/* SPDX-License-Identifier: GPL-2.0 */
/*
 * held_bits.h - the entropy a die has drawn and not yet served, for the
 * waste figures of the core's tests and of bench_core: the bits used count
 * it, so a run's waste is (used - held) / rolls - information.  Userspace
 * only (long double); include after dice_stream.h.
 */
#ifndef _DICE_TESTS_HELD_BITS_H
#define _DICE_TESTS_HELD_BITS_H

#include <math.h>

/*
 * Held by @die: its recycler's state, its held draw, its faces drawn ahead
 * and its columns drawn ahead.
 */
static inline long double dice_held_bits(const struct dice_die *die, u64 sides)
{
	return log2l((long double)die->rec.m) +
	       log2l((long double)die->rec.held_size) +
	       die->digits.left * log2l((long double)sides) +
	       die->rec.ahead_count * log2l((long double)sides);
}

#endif /* _DICE_TESTS_HELD_BITS_H */
