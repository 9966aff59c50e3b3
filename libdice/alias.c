// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * alias.c - exact alias tables built in userspace, for dice_set_alias()
 *
 * The same integer construction as the module's DICE_IOC_SET_WEIGHTS (the
 * core's dice_table_from_weights()): with W the sum of the weights every
 * column has mass W and side i collects exactly n * w_i of the n * W in
 * all, so nothing is rounded.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

DICE_EXPORT int dice_alias_build(const uint32_t *weights, uint32_t sides,
				 uint64_t *thresholds, uint32_t *aliases,
				 uint64_t *mass)
{
	struct dice_table *table;
	int err;

	if (!weights || !sides || !thresholds || !aliases || !mass)
		return -EINVAL;
	table = dice_table_alloc(sides);
	if (!table)
		return -ENOMEM;
	err = dice_table_from_weights(table, weights);
	if (!err) {
		memcpy(thresholds, dice_table_thresholds(table),
		       (size_t)sides * sizeof(*thresholds));
		memcpy(aliases, dice_table_aliases(table),
		       (size_t)sides * sizeof(*aliases));
		*mass = dice_table_mass(table);
	}
	dice_table_free(table);
	return err;
}
