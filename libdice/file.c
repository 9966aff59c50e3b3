// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * file.c - a handle's file: the ioctl that sets the device's whole die, and
 * the format the file (the device's or the engine's stream) is in
 *
 * Its own file so that dice.c (handles) and ring.c (batched reads) both
 * call it and neither calls the other back (scripts/call-cycles.py).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "file.h"
#include "internal.h"

int dice_ioctl(struct dice *d, unsigned long cmd, void *arg)
{
	return ioctl(d->fd, cmd, arg) < 0 ? -errno : 0;
}

/*
 * Make the device's die @die, taking ownership of @table (the arrays @die
 * points to, or NULL): the whole die goes in one DICE_IOC_SET_DIE.  On
 * error the die stays as it was, and @table is freed.
 */
int dice_device_set(struct dice *d, const struct dice_die_args *die,
		    void *table)
{
	struct dice_die_args arg = *die;
	int err = dice_ioctl(d, DICE_IOC_SET_DIE, &arg);

	if (err) {
		if (table != d->table)
			free(table);
		return err;
	}
	if (table != d->table)
		free(d->table);
	d->table = table;
	d->die = *die;
	d->file_format = die->format;
	return 0;
}

/*
 * libdice owns the format of its file, the device's or the engine's stream:
 * it is in DICE_FMT_U64 after dice_roll() of an engine or of a device file
 * in text (a device file in a binary format is read in it), and in the
 * caller's format for dice_read() and whenever the die changes, so that a
 * new die is checked against the format the caller will read it in.
 * Switching drops nothing but bytes of a partly read text line.  (On the device a format goes with
 * the whole die: a loaded die's table is sent again.)
 */
int dice_file_format(struct dice *d, uint32_t format)
{
	struct dice_die_args die = d->die;
	int err;

	if (d->file_format == format)
		return 0;
	if (!d->eng) {
		die.format = format;
		return dice_device_set(d, &die, d->table);
	}
	err = dice_engine_set_format(d, format);
	if (!err)
		d->file_format = format;
	return err;
}
