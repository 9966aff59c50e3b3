/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/types.h - fixed-width types as the kernel names them */
#ifndef _DICE_SHIM_LINUX_TYPES_H
#define _DICE_SHIM_LINUX_TYPES_H

#if __has_include_next(<linux/types.h>)
#include_next <linux/types.h>
#endif

#ifndef __SIZEOF_INT128__
#error "the dice core needs 128-bit integer arithmetic (a 64-bit target)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef unsigned __int128 u128;

#endif
