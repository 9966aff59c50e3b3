// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dice.c - handles: open, configure, roll
 *
 * A handle is either an open file of /dev/dice (every call is one ioctl,
 * read() or write() on it) or, only when the caller asks for it, a
 * userspace engine (engine.c).  Arguments are checked here, the same way
 * for both, so that an error never depends on the backend.
 *
 * Sections: open/close, configuration, queries, bits and rolls.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"
#include "ring.h"

#define DICE_DEVICE	"/dev/dice"

/* ---- open/close ------------------------------------------------------------ */

static int dice_ioctl(struct dice *d, unsigned long cmd, void *arg)
{
	return ioctl(d->fd, cmd, arg) < 0 ? -errno : 0;
}

static int dice_new(struct dice **out)
{
	struct dice *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->fd = -1;
	d->format = DICE_FMT_TEXT;
	d->file_format = DICE_FMT_TEXT;
	d->source = DICE_SRC_KERNEL;
	*out = d;
	return 0;
}

static int dice_open_device(struct dice *d)
{
	struct dice_info info;
	int err;

	d->fd = open(DICE_DEVICE, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	/* Make sure this is the dice module's device, and learn its state. */
	err = dice_ioctl(d, DICE_IOC_GET_INFO, &info);
	if (err)
		return err;
	d->format = info.format;
	d->file_format = info.format;
	return 0;
}

DICE_EXPORT int dice_open_flags(struct dice **out, unsigned int flags)
{
	struct dice *d;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (flags & ~DICE_OPEN_USERSPACE)
		return -EINVAL;
	err = dice_new(&d);
	if (err)
		return err;
	if (flags & DICE_OPEN_USERSPACE)
		err = dice_engine_new(d, false, 0);
	else
		err = dice_open_device(d);
	if (err) {
		dice_close(d);
		return err;
	}
	*out = d;
	return 0;
}

DICE_EXPORT int dice_open(struct dice **out)
{
	return dice_open_flags(out, 0);
}

DICE_EXPORT int dice_open_seeded(struct dice **out, uint64_t seed)
{
	struct dice *d;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	err = dice_new(&d);
	if (err)
		return err;
	err = dice_engine_new(d, true, seed);
	if (err) {
		dice_close(d);
		return err;
	}
	*out = d;
	return 0;
}

DICE_EXPORT void dice_close(struct dice *d)
{
	if (!d)
		return;
	if (d->ring)
		dice_ring_detach(d->ring);
	if (d->fd >= 0)
		close(d->fd);
	if (d->eng)
		dice_engine_free(d);
	free(d);
}

DICE_EXPORT int dice_is_userspace(const struct dice *d)
{
	return d && d->eng;
}

DICE_EXPORT const char *dice_open_hint(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		return "/dev/dice is missing: is the dice module loaded? "
		       "Try: sudo modprobe dice (or sudo insmod kmod/dice.ko)";
	case -EACCES:
	case -EPERM:
		return "no permission to open /dev/dice read-write: "
		       "check its mode and owner (the module creates it 0666)";
	case -ENOTTY:
		return "/dev/dice does not answer the dice ioctls: "
		       "it is not the dice module's device, or the module is "
		       "older than this libdice";
	default:
		return NULL;
	}
}

/* ---- configuration ------------------------------------------------------------ */

/* A handle with a ring open only answers queries (see dice_ring_open(3)). */
static int dice_check(struct dice *d)
{
	if (!d)
		return -EINVAL;
	return d->ring ? -EBUSY : 0;
}

/*
 * libdice owns the format of its file, the device's or the engine's stream:
 * it is in DICE_FMT_U64 after dice_roll(), and in the caller's format for
 * dice_read() and whenever the die changes, so that the core checks a new
 * die against the format the caller will read it in.  Switching drops
 * nothing but bytes of a partly read text line.
 */
int dice_file_format(struct dice *d, uint32_t format)
{
	int err;

	if (d->file_format == format)
		return 0;
	if (d->eng)
		err = dice_engine_set_format(d, format);
	else
		err = dice_ioctl(d, DICE_IOC_SET_FORMAT, &format);
	if (!err)
		d->file_format = format;
	return err;
}

/* Before a new die: back to the caller's format, see above. */
static int dice_file_die(struct dice *d)
{
	return dice_file_format(d, d->format);
}

DICE_EXPORT int dice_set_sides(struct dice *d, uint64_t sides)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (!sides)
		return -EINVAL;
	err = dice_file_die(d);
	if (err)
		return err;
	if (d->eng)
		return dice_engine_set_sides(d, sides);
	return dice_ioctl(d, DICE_IOC_SET_SIDES, &sides);
}

DICE_EXPORT int dice_set_weights(struct dice *d, const uint32_t *weights,
				 uint32_t sides)
{
	struct dice_weights arg = {
		.weights = (uintptr_t)weights,
		.sides = sides,
	};
	struct dice_table *table;
	int err = dice_check(d);

	if (err)
		return err;
	if (!weights || !sides)
		return -EINVAL;
	err = dice_file_die(d);
	if (err)
		return err;
	if (!d->eng)
		return dice_ioctl(d, DICE_IOC_SET_WEIGHTS, &arg);
	table = dice_table_alloc(sides);
	if (!table)
		return -ENOMEM;
	err = dice_table_from_weights(table, weights);
	if (err) {
		dice_table_free(table);
		return err;
	}
	return dice_engine_set_table(d, table);
}

DICE_EXPORT int dice_set_alias(struct dice *d, const uint64_t *thresholds,
			       const uint32_t *aliases, uint32_t sides,
			       uint64_t mass)
{
	struct dice_alias arg = {
		.thresholds = (uintptr_t)thresholds,
		.aliases = (uintptr_t)aliases,
		.mass = mass,
		.sides = sides,
	};
	struct dice_table *table;
	int err = dice_check(d);

	if (err)
		return err;
	if (!thresholds || !aliases || !sides || !mass)
		return -EINVAL;
	err = dice_file_die(d);
	if (err)
		return err;
	if (!d->eng)
		return dice_ioctl(d, DICE_IOC_SET_ALIAS, &arg);
	table = dice_table_alloc(sides);
	if (!table)
		return -ENOMEM;
	memcpy(dice_table_thresholds(table), thresholds,
	       (size_t)sides * sizeof(*thresholds));
	memcpy(dice_table_aliases(table), aliases,
	       (size_t)sides * sizeof(*aliases));
	err = dice_table_from_alias(table, mass);
	if (err) {
		dice_table_free(table);
		return err;
	}
	return dice_engine_set_table(d, table);
}

DICE_EXPORT int dice_set_method(struct dice *d, uint32_t method)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (d->eng)
		return dice_engine_set_method(d, method);
	return dice_ioctl(d, DICE_IOC_SET_METHOD, &method);
}

DICE_EXPORT int dice_set_source(struct dice *d, uint32_t source)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (d->eng)
		return dice_engine_set_source(d, source);
	return dice_ioctl(d, DICE_IOC_SET_SOURCE, &source);
}

DICE_EXPORT int dice_set_format(struct dice *d, uint32_t format)
{
	int err = dice_check(d);

	if (err)
		return err;
	err = dice_file_format(d, format);
	if (err)
		return err;
	d->format = format;
	return 0;
}

/* ---- queries ---------------------------------------------------------------------- */

DICE_EXPORT int dice_get_info(struct dice *d, struct dice_info *info)
{
	int err;

	if (!d || !info)
		return -EINVAL;
	if (d->eng) {
		dice_engine_get_info(d, info);
		err = 0;
	} else {
		err = dice_ioctl(d, DICE_IOC_GET_INFO, info);
	}
	/* The file may be in U64 for dice_roll(): report the caller's. */
	if (!err)
		info->format = d->format;
	return err;
}

DICE_EXPORT int dice_get_stats(struct dice *d, struct dice_stats *stats)
{
	if (!d || !stats)
		return -EINVAL;
	if (d->eng) {
		dice_engine_get_stats(d, stats);
		return 0;
	}
	return dice_ioctl(d, DICE_IOC_GET_STATS, stats);
}

DICE_EXPORT int dice_get_masses(struct dice *d, uint64_t *masses,
				uint64_t capacity, uint64_t *sides,
				uint64_t *total)
{
	struct dice_masses arg = {
		.masses = (uintptr_t)masses,
		.capacity = capacity,
	};
	int err;

	if (!d || (!masses && capacity))
		return -EINVAL;
	if (d->eng)
		return dice_engine_get_masses(d, masses, capacity, sides,
					      total);
	err = dice_ioctl(d, DICE_IOC_GET_MASSES, &arg);
	if (err && err != -ENOSPC)
		return err;
	if (sides)
		*sides = arg.sides;
	if (total)
		*total = arg.total;
	return err;
}

/* ---- bits and rolls ---------------------------------------------------------------- */

DICE_EXPORT long dice_write_bits(struct dice *d, const void *buf, size_t len)
{
	ssize_t n;
	int err = dice_check(d);

	if (err)
		return err;
	if (!buf && len)
		return -EINVAL;
	if (d->eng)
		return dice_engine_write(d, buf, len);
	n = write(d->fd, buf, len);
	return n < 0 ? -errno : n;
}

/* read() of the file: the device, or the engine's stream. */
static long dice_file_read(struct dice *d, void *buf, size_t len)
{
	ssize_t n;

	if (d->eng)
		return dice_engine_read(d, buf, len);
	n = read(d->fd, buf, len);
	return n < 0 ? -errno : n;
}

static int dice_file_roll(struct dice *d, uint64_t *faces, size_t count,
			    size_t *done)
{
	size_t want = count * sizeof(*faces), got = 0, i;
	int err;

	err = dice_file_format(d, DICE_FMT_U64);
	while (!err && got < want) {
		long n = dice_file_read(d, (char *)faces + got, want - got);

		if (n > 0)
			got += n;
		else if (n == 0)
			err = -EIO;	/* the device never ends */
		else
			err = (int)n;
	}
	/* Whole rolls only: the module never splits a binary roll. */
	if (got % sizeof(*faces) && !err)
		err = -EIO;
	for (i = 0; i < got / sizeof(*faces); i++)
		faces[i] = le64toh(faces[i]);
	*done = got / sizeof(*faces);
	return err;
}

DICE_EXPORT int dice_roll(struct dice *d, uint64_t *faces, size_t count,
			  size_t *done)
{
	size_t ignored;
	int err;

	if (!done)
		done = &ignored;
	*done = 0;
	err = dice_check(d);
	if (err)
		return err;
	if (!faces && count)
		return -EINVAL;
	if (count > SIZE_MAX / sizeof(*faces))
		return -EOVERFLOW;
	if (!count)
		return 0;
	return dice_file_roll(d, faces, count, done);
}

DICE_EXPORT long dice_read(struct dice *d, void *buf, size_t len)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (!buf && len)
		return -EINVAL;
	if (!len)
		return 0;
	err = dice_file_format(d, d->format);
	if (err)
		return err;
	return dice_file_read(d, buf, len);
}
