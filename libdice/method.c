// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * method.c - dice_method_name() and dice_method_parse(), over the one table
 * of names (method_names.h), for every program that shows or takes a
 * method by name.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "method_names.h"

DICE_EXPORT const char *dice_method_name(uint32_t method)
{
	if (method >= DICE_METHOD_COUNT)
		return NULL;
	return dice_method_names[method];
}

DICE_EXPORT int dice_method_parse(const char *name, uint32_t *method)
{
	uint32_t i;

	if (!name || !method)
		return -EINVAL;
	for (i = 0; i < DICE_METHOD_COUNT; i++) {
		if (dice_method_names[i] && !strcmp(name, dice_method_names[i])) {
			*method = i;
			return 0;
		}
	}
	return -EINVAL;
}
