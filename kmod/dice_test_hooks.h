/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dice_test_hooks.h - /dev/dice's test hook, for its selftests only
 *
 * Not in the uapi: a kernel has it only when built with
 * CONFIG_RANDOM_DICE_TEST_HOOKS, which the selftests' config lists, and
 * the selftests include this file by its path in the tree (as iommufd's
 * do iommufd_test.h).  Elsewhere the command is ENOTTY and write() EINVAL.
 *
 * DICE_IOC_SET_SOURCE takes the file's bits from *arg: DICE_SRC_KERNEL
 * (the CRNG) or DICE_SRC_WRITTEN (bytes write()n to the file, most
 * significant bit first), so that known-answer tests run end to end.
 * Every bit and roll of the old source is dropped, but the rest of a text
 * line a read has begun.  write() fails with EINVAL unless the source is
 * DICE_SRC_WRITTEN; with it, write() fails with EAGAIN when the bit
 * buffer is full and read() when the written bits cannot make the next
 * roll, blocking or not.
 * Errors: EINVAL (unknown source), ENOMEM (no memory for the copy of the
 * die that poll() tries written bits on), and the common ones.
 */
#ifndef _DICE_TEST_HOOKS_H
#define _DICE_TEST_HOOKS_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/dice.h>

#define DICE_SRC_KERNEL		0
#define DICE_SRC_WRITTEN	1
#define DICE_IOC_SET_SOURCE	_IOW(DICE_IOC_MAGIC, 0x1f, __u32)

#endif /* _DICE_TEST_HOOKS_H */
