/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/string.h - memzero_explicit() */
#ifndef _DICE_SHIM_LINUX_STRING_H
#define _DICE_SHIM_LINUX_STRING_H

#if __has_include_next(<linux/string.h>)
#include_next <linux/string.h>
#endif

#include <string.h>

static inline void memzero_explicit(void *p, size_t size)
{
	memset(p, 0, size);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
