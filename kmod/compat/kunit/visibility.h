/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <kunit/visibility.h> for kernels before 6.2 that lack it (early 6.1.y;
 * later 6.1.y have a backport): searched after the kernel's own headers
 * (kmod/Kbuild), so that a kernel that has it uses its own.  Out-of-tree
 * only, as kmod/compat.h.
 */
#ifndef _KUNIT_VISIBILITY_H
#define _KUNIT_VISIBILITY_H

#include <linux/export.h>

#if IS_ENABLED(CONFIG_KUNIT)
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

#endif /* _KUNIT_VISIBILITY_H */
