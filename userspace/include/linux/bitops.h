/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/bitops.h - fls64(), BIT(), BIT_ULL() */
#ifndef _DICE_SHIM_LINUX_BITOPS_H
#define _DICE_SHIM_LINUX_BITOPS_H

#if __has_include_next(<linux/bitops.h>)
#include_next <linux/bitops.h>
#endif

#include <linux/types.h>

#ifndef BIT
#define BIT(nr)		(1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif

static inline unsigned int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif
