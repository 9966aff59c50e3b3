/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/bug.h - WARN_ON_ONCE() as a counter */
#ifndef _DICE_SHIM_LINUX_BUG_H
#define _DICE_SHIM_LINUX_BUG_H

#if __has_include_next(<linux/bug.h>)
#include_next <linux/bug.h>
#endif

#include <linux/compiler.h>
#include <stdbool.h>

/*
 * A broken bound in userspace: counted in dice_core_warnings for tests and
 * fuzzers to assert on; the roll itself fails.  No call: a call in the
 * drawing loops would cost their registers.  Weak, so every object may
 * define it and the program still has one counter.
 */
__attribute__((weak)) unsigned long dice_core_warnings;

#define WARN_ON_ONCE(cond) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		dice_core_warnings++;					\
	__c;								\
})

#endif
