/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/errno.h - the errno values */
#ifndef _DICE_SHIM_LINUX_ERRNO_H
#define _DICE_SHIM_LINUX_ERRNO_H

#if __has_include_next(<linux/errno.h>)
#include_next <linux/errno.h>
#endif

#include <errno.h>

#endif
