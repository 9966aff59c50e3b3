// SPDX-License-Identifier: GPL-2.0
/*
 * bench_probe.c - what bench_core reports from inside the core
 *
 * bench_core rolls through the core's public API (dice_core.h) alone; the
 * few figures that need its private state (the entropy still held by a
 * die, a table's layout, the size of the structures) come from here.
 */
#include <math.h>

#include "dice_stream.h"
#include "bench_probe.h"
#include "../kmod/tests/held_bits.h"

/* Entropy held by the die: its recycler and the faces drawn, not served. */
long double bench_held_bits(const struct dice_die *die, u64 sides)
{
	return dice_held_bits(die, sides);
}

/* Bytes a side of @t as dice_die_set_table() keeps it (packed if it fits). */
double bench_layout_per_side(struct dice_table **t)
{
	const struct dice_table *p;

	*t = dice_table_pack(*t);
	p = *t;
	if (p->col)
		return sizeof(*p->col);
	if (p->packed)
		return sizeof(*p->packed);
	return (double)((const u8 *)(p->alias + p->sides) -
			(const u8 *)p->thr) / p->sides;
}

size_t bench_table_header(void)
{
	return sizeof(struct dice_table);
}

void bench_sizes(struct bench_sizes *s)
{
	s->die = sizeof(struct dice_die);
	s->pool = sizeof(struct dice_pool);
	s->batch = sizeof(struct dice_batch);
	s->stream = sizeof(struct dice_stream);
}
