/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * file.h - a handle's file (file.c), for dice.c and ring.c
 */
#ifndef _LIBDICE_FILE_H
#define _LIBDICE_FILE_H

#include <stdint.h>

struct dice;
struct dice_die_args;

/* ioctl(2) on the handle's device file: 0 or -errno. */
int dice_ioctl(struct dice *d, unsigned long cmd, void *arg);
/*
 * Make the device's die @die, taking ownership of @table (the arrays @die
 * points to, or NULL): one DICE_IOC_SET_DIE.  On error the die stays as it
 * was, and @table is freed.
 */
int dice_device_set(struct dice *d, const struct dice_die_args *die,
		    void *table);
/* The handle's file (or engine) in @format, a no-op when it is. */
int dice_file_format(struct dice *d, uint32_t format);

#endif /* _LIBDICE_FILE_H */
