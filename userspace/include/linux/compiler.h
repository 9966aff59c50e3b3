/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/compiler.h - branch hints and inlining */
#ifndef _DICE_SHIM_LINUX_COMPILER_H
#define _DICE_SHIM_LINUX_COMPILER_H

#if __has_include_next(<linux/compiler.h>)
#include_next <linux/compiler.h>
#endif

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif

#endif
