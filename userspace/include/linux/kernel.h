/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/kernel.h - ARRAY_SIZE() and the headers kernel.h brings */
#ifndef _DICE_SHIM_LINUX_KERNEL_H
#define _DICE_SHIM_LINUX_KERNEL_H

#if __has_include_next(<linux/kernel.h>)
#include_next <linux/kernel.h>
#endif

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>

#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		    __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		    __a > __b ? __a : __b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif
