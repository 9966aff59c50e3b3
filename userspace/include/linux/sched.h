/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * userspace/include/linux/sched.h - cond_resched(): a process is preempted
 * by the system, so there is nothing to yield
 */
#ifndef _DICE_SHIM_LINUX_SCHED_H
#define _DICE_SHIM_LINUX_SCHED_H

static inline void cond_resched(void)
{
}

#endif
