/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/mm.h - kvmalloc() lives here before 6.x kernels too */
#ifndef _DICE_SHIM_LINUX_MM_H
#define _DICE_SHIM_LINUX_MM_H

#if __has_include_next(<linux/mm.h>)
#include_next <linux/mm.h>
#endif

#include <linux/slab.h>

#ifndef PAGE_SIZE
#define PAGE_SIZE	4096UL
#endif

#endif
