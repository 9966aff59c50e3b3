/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/overflow.h - check_*_overflow() */
#ifndef _DICE_SHIM_LINUX_OVERFLOW_H
#define _DICE_SHIM_LINUX_OVERFLOW_H

#if __has_include_next(<linux/overflow.h>)
#include_next <linux/overflow.h>
#endif

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#endif
