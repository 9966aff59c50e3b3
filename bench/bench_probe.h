/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BENCH_PROBE_H
#define _BENCH_PROBE_H

#include "dice_core.h"

struct bench_sizes {
	size_t die;
	size_t pool;
	size_t batch;
	size_t stream;
};

long double bench_held_bits(const struct dice_die *die, u64 sides);
double bench_layout_per_side(struct dice_table **t);
size_t bench_table_header(void);
void bench_sizes(struct bench_sizes *s);

#endif
