/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/vmalloc.h - __vmalloc() on the C library */
#ifndef _DICE_SHIM_LINUX_VMALLOC_H
#define _DICE_SHIM_LINUX_VMALLOC_H

#if __has_include_next(<linux/vmalloc.h>)
#include_next <linux/vmalloc.h>
#endif

#include <linux/slab.h>

static inline void *__vmalloc(unsigned long size, gfp_t gfp)
{
	return kmalloc(size, gfp);
}

#endif
