/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/gfp.h - allocation flags, which malloc() ignores */
#ifndef _DICE_SHIM_LINUX_GFP_H
#define _DICE_SHIM_LINUX_GFP_H

typedef unsigned int gfp_t;

#define GFP_KERNEL		0U
#define GFP_KERNEL_ACCOUNT	0U
#define __GFP_RETRY_MAYFAIL	0U
#define __GFP_NOWARN		0U
#define GFP_NOWAIT		0U
#define __GFP_ACCOUNT		0U

#endif
