/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For dice_kunit.c alone (kmod/Kbuild): Linux 6.13 made symbol namespaces
 * string literals, as the suite names its import; before, the import
 * named a bare token (MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)).
 * Out-of-tree only, as kmod/compat.h.
 */
#ifndef _DICE_COMPAT_KUNIT_IMPORT_H
#define _DICE_COMPAT_KUNIT_IMPORT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#include <linux/module.h>
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

#endif /* _DICE_COMPAT_KUNIT_IMPORT_H */
