/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - what the supported kernels lack of the newest one's API
 *
 * Kbuild includes this ahead of every file of the module (-include), so
 * the sources are written against the newest kernel Debian ships and read
 * like upstream code; each shim here goes when its kernel does.  The
 * userspace builds of the core get their environment from userspace/include
 * instead.
 */
#ifndef _DICE_COMPAT_H
#define _DICE_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
/* Linux 6.5 named the 128-bit types in <linux/types.h>. */
typedef unsigned __int128 u128;

/*
 * Linux 6.5 removed generic_file_splice_read(); copy_splice_read(), added
 * there, is what a file without a page cache (random.c's, ours) uses since.
 */
#define copy_splice_read	generic_file_splice_read
#endif

/*
 * kmalloc_obj() and kzalloc_obj(), one object of @p's type: Linux 7.x and
 * Debian's 6.12 (6.12.118) have them, 6.1 and a 6.12 before the stable
 * release that brought them do not.  Kbuild tells which, by what the
 * kernel's <linux/slab.h> defines (DICE_COMPAT_KMALLOC_OBJ): not by
 * version, which a stable backport defeats, nor by #ifndef, since this
 * file comes ahead of <linux/slab.h>, and including it here would come
 * ahead of each file's pr_fmt.
 */
#ifdef DICE_COMPAT_KMALLOC_OBJ
#define kmalloc_obj(p, gfp)	kmalloc(sizeof(p), gfp)
#define kzalloc_obj(p, gfp)	kzalloc(sizeof(p), gfp)
#endif

#endif /* _DICE_COMPAT_H */
