/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_compat.h - what the die core needs from its environment
 *
 * The die core (dice_bits.c, dice_uniform.c, dice_alias.c, dice_die.c,
 * dice_format.c) is plain C that builds both into the module and into
 * userspace tests and benchmarks.  In the kernel this header maps to kernel
 * headers; in userspace (DICE_USERSPACE) it supplies the few equivalents.
 */
#ifndef _DICE_COMPAT_H
#define _DICE_COMPAT_H

#ifndef __SIZEOF_INT128__
#error "the dice core needs 128-bit integer arithmetic (a 64-bit target)"
#endif

#ifdef DICE_USERSPACE

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define noinline	__attribute_noinline__

static inline unsigned int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline bool check_mul_overflow_u64(u64 a, u64 b, u64 *d)
{
	return __builtin_mul_overflow(a, b, d);
}

static inline bool check_add_overflow_u64(u64 a, u64 b, u64 *d)
{
	return __builtin_add_overflow(a, b, d);
}

static inline void *dice_alloc(size_t size)
{
	return malloc(size ? size : 1);
}

static inline void dice_free(void *p)
{
	free(p);
}

static inline void dice_wipe(void *p, size_t size)
{
	memset(p, 0, size);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * A broken bound in userspace: counted in dice_core_warnings (dice_bits.c)
 * for tests and fuzzers to assert on; the roll itself fails.  No call: a
 * call in the drawing loops would cost their registers.
 */
extern unsigned long dice_core_warnings;

#define WARN_ON_ONCE(cond) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		dice_core_warnings++;					\
	__c;								\
})

#else /* kernel */

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/version.h>

/*
 * The file layer (dice_main.c) uses this where kernels differ: Linux 6.5
 * removed generic_file_splice_read(); copy_splice_read(), added there, is
 * what a file without a page cache (random.c's, ours) uses since.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define dice_splice_read	generic_file_splice_read
#else
#define dice_splice_read	copy_splice_read
#endif

static inline bool check_mul_overflow_u64(u64 a, u64 b, u64 *d)
{
	return check_mul_overflow(a, b, d);
}

static inline bool check_add_overflow_u64(u64 a, u64 b, u64 *d)
{
	return check_add_overflow(a, b, d);
}

/*
 * Tables are caused by userspace: charge them to it, and when its memory
 * cgroup is full fail with -ENOMEM rather than OOM-kill it.
 */
#define DICE_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static inline void *dice_alloc(size_t size)
{
	return kvmalloc(size, DICE_GFP);
}

static inline void dice_free(void *p)
{
	kvfree(p);
}

static inline void dice_wipe(void *p, size_t size)
{
	memzero_explicit(p, size);
}

#endif /* DICE_USERSPACE */

typedef unsigned __int128 u128;

#endif /* _DICE_COMPAT_H */
