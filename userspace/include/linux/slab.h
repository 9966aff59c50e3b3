/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/slab.h - kvmalloc() and friends on the C library */
#ifndef _DICE_SHIM_LINUX_SLAB_H
#define _DICE_SHIM_LINUX_SLAB_H

#if __has_include_next(<linux/slab.h>)
#include_next <linux/slab.h>
#endif

#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>

static inline void *kvmalloc(size_t size, gfp_t gfp)
{
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return calloc(1, size ? size : 1);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	return malloc(size ? size : 1);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

/* One object of the type of @p (an lvalue, as *ptr), as Linux 6.12 on. */
#define kmalloc_obj(p, gfp)	kmalloc(sizeof(p), gfp)
#define kzalloc_obj(p, gfp)	kzalloc(sizeof(p), gfp)

#endif
