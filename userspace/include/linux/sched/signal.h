/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * userspace/include/linux/sched/signal.h - fatal_signal_pending(current):
 * a library call is never interrupted from inside, so no signal is pending
 */
#ifndef _DICE_SHIM_LINUX_SCHED_SIGNAL_H
#define _DICE_SHIM_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>

struct task_struct;

#define current		((struct task_struct *)0)
#define ERESTARTSYS	512

static inline int fatal_signal_pending(const struct task_struct *task)
{
	(void)task;
	return 0;
}

#endif
