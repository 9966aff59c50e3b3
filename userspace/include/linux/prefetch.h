/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/prefetch.h - a read the cache can start early */
#ifndef _DICE_SHIM_LINUX_PREFETCH_H
#define _DICE_SHIM_LINUX_PREFETCH_H

#define prefetch(x)	__builtin_prefetch(x)

#endif
