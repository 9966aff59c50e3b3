/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/limits.h - U32_MAX and friends */
#ifndef _DICE_SHIM_LINUX_LIMITS_H
#define _DICE_SHIM_LINUX_LIMITS_H

#if __has_include_next(<linux/limits.h>)
#include_next <linux/limits.h>
#endif

#include <linux/types.h>

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))

#endif
