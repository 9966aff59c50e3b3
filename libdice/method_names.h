/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * method_names.h - the name of each method (DICE_METHOD_* of the uapi),
 * written once.  libdice gives it to programs as dice_method_name() and
 * dice_method_parse(); the two test programs that do not link libdice
 * include it: the core's tests (kmod/tests) and the VM's dicecat.
 */
#ifndef _LIBDICE_METHOD_NAMES_H
#define _LIBDICE_METHOD_NAMES_H

/* The userspace engine's baseline, not in the uapi (libdice's dice.h). */
#ifndef DICE_METHOD_REJECTION
#define DICE_METHOD_REJECTION	4
#endif

static const char *const dice_method_names[] = {
	[DICE_METHOD_RECYCLE] = "recycle",
	[DICE_METHOD_VIGLIETTA] = "viglietta",
	[DICE_METHOD_BATCH] = "batch",
	[DICE_METHOD_ALIAS] = "alias",
	[DICE_METHOD_REJECTION] = "rejection",
};

#define DICE_METHOD_COUNT \
	(sizeof(dice_method_names) / sizeof(dice_method_names[0]))

#endif
