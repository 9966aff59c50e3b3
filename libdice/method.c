// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * method.c - the names of the methods (DICE_METHOD_* of the uapi), once:
 * dice_method_name() and dice_method_parse(), for every program that shows
 * or takes a method by name (the CLI, the tests, dicecat).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const char *const method_names[] = {
	[DICE_METHOD_RECYCLE] = "recycle",
	[DICE_METHOD_VIGLIETTA] = "viglietta",
	[DICE_METHOD_BATCH] = "batch",
	[DICE_METHOD_ALIAS] = "alias",
	[DICE_METHOD_REJECTION] = "rejection",
};

DICE_EXPORT const char *dice_method_name(uint32_t method)
{
	if (method >= sizeof(method_names) / sizeof(method_names[0]))
		return NULL;
	return method_names[method];
}

DICE_EXPORT int dice_method_parse(const char *name, uint32_t *method)
{
	uint32_t i;

	if (!name || !method)
		return -EINVAL;
	for (i = 0; i < sizeof(method_names) / sizeof(method_names[0]); i++) {
		if (method_names[i] && !strcmp(name, method_names[i])) {
			*method = i;
			return 0;
		}
	}
	return -EINVAL;
}
