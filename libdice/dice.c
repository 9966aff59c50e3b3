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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dice_format.h"
#include "internal.h"
#include "file.h"
#include "ring.h"

#define DICE_DEVICE	"/dev/dice"

/* ---- open/close ------------------------------------------------------------ */

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
	struct dice_die_info info;
	int err;

	/* Read-only: the device takes no bits (dice_write_bits(3)). */
	d->fd = open(DICE_DEVICE, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	/* Make sure this is the dice module's device, and learn its die. */
	err = dice_ioctl(d, DICE_IOC_GET_DIE, &info);
	if (err)
		return err;
	if (info.kind != DICE_KIND_FAIR)
		return -EPROTO;		/* a new file is always fair */
	d->die.kind = DICE_KIND_FAIR;
	d->die.sides = info.sides;
	d->die.method = info.method;
	d->die.format = info.format;
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
	free(d->table);
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

/* Before a new die: back to the caller's format, see above. */
static int dice_file_die(struct dice *d)
{
	return dice_file_format(d, d->format);
}

/* A device die of the same method, in the caller's format. */
static struct dice_die_args dice_device_die(struct dice *d, uint32_t kind,
					    uint64_t sides)
{
	struct dice_die_args die = {
		.sides = sides,
		.kind = kind,
		.method = d->die.method,
		.format = d->format,
	};

	return die;
}

DICE_EXPORT int dice_set_sides(struct dice *d, uint64_t sides)
{
	struct dice_die_args die;
	int err = dice_check(d);

	if (err)
		return err;
	if (!sides)
		return -EINVAL;
	if (!d->eng) {
		die = dice_device_die(d, DICE_KIND_FAIR, sides);
		return dice_device_set(d, &die, NULL);
	}
	err = dice_file_die(d);
	if (err)
		return err;
	return dice_engine_set_sides(d, sides);
}

/* The loaded die's copy libdice keeps, to send it again with a format. */
static void *dice_copy_arrays(const void *a, size_t alen, const void *b,
			      size_t blen)
{
	char *copy = malloc(alen + blen ? alen + blen : 1);

	if (!copy)
		return NULL;
	memcpy(copy, a, alen);
	if (blen)
		memcpy(copy + alen, b, blen);
	return copy;
}

DICE_EXPORT int dice_set_weights(struct dice *d, const uint32_t *weights,
				 uint32_t sides)
{
	struct dice_table *table;
	struct dice_die_args die;
	uint32_t *copy;
	int err = dice_check(d);

	if (err)
		return err;
	if (!weights || !sides)
		return -EINVAL;
	if (!d->eng) {
		/* Over the limit: the device's E2BIG, not a huge copy. */
		if (sides > DICE_TABLE_SIDES_MAX)
			return -E2BIG;
		copy = dice_copy_arrays(weights, (size_t)sides * sizeof(*weights),
					NULL, 0);
		if (!copy)
			return -ENOMEM;
		die = dice_device_die(d, DICE_KIND_WEIGHTS, sides);
		die.weights = (uintptr_t)copy;
		return dice_device_set(d, &die, copy);
	}
	err = dice_file_die(d);
	if (err)
		return err;
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
	size_t tlen = (size_t)sides * sizeof(*thresholds);
	struct dice_table *table;
	struct dice_die_args die;
	char *copy;
	int err = dice_check(d);

	if (err)
		return err;
	if (!thresholds || !aliases || !sides || !mass)
		return -EINVAL;
	if (!d->eng) {
		if (sides > DICE_TABLE_SIDES_MAX)
			return -E2BIG;
		copy = dice_copy_arrays(thresholds, tlen, aliases,
					(size_t)sides * sizeof(*aliases));
		if (!copy)
			return -ENOMEM;
		die = dice_device_die(d, DICE_KIND_ALIAS, sides);
		die.thresholds = (uintptr_t)copy;
		die.aliases = (uintptr_t)(copy + tlen);
		die.mass = mass;
		return dice_device_set(d, &die, copy);
	}
	err = dice_file_die(d);
	if (err)
		return err;
	table = dice_table_alloc(sides);
	if (!table)
		return -ENOMEM;
	memcpy(dice_table_thresholds(table), thresholds, tlen);
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
	struct dice_die_args die;
	int err = dice_check(d);

	if (err)
		return err;
	if (d->eng)
		return dice_engine_set_method(d, method);
	die = d->die;
	die.method = method;
	return dice_device_set(d, &die, d->table);
}

DICE_EXPORT int dice_set_source(struct dice *d, uint32_t source)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (!d->eng)
		return -EOPNOTSUPP;
	return dice_engine_set_source(d, source);
}

/* The device rolls by its module's latest mapping: no ioctl asks another. */
DICE_EXPORT int dice_set_mapping(struct dice *d, uint32_t mapping)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (!d->eng)
		return -EOPNOTSUPP;
	return dice_engine_set_mapping(d, mapping);
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
	struct dice_die_info die;
	int err = 0;

	if (!d || !info)
		return -EINVAL;
	if (d->eng)
		dice_engine_get_info(d, &die);
	else
		err = dice_ioctl(d, DICE_IOC_GET_DIE, &die);
	if (err)
		return err;
	memset(info, 0, sizeof(*info));
	info->sides = die.sides;
	info->kind = die.kind;
	info->method = die.method;
	/* The file may be in U64 for dice_roll(): report the caller's. */
	info->format = d->format;
	info->source = d->source;
	return 0;
}

DICE_EXPORT int dice_get_stats(struct dice *d, struct dice_stats *stats)
{
	struct dice_die_stats st;
	int err = 0;

	if (!d || !stats)
		return -EINVAL;
	if (d->eng)
		dice_engine_get_stats(d, &st);
	else
		err = dice_ioctl(d, DICE_IOC_GET_STATS, &st);
	if (err)
		return err;
	memset(stats, 0, sizeof(*stats));
	stats->rolls = st.rolls;
	stats->bits_used = st.bits_used;
	stats->bits_drawn = st.bits_drawn;
	stats->bits_discarded = st.bits_discarded;
	stats->coin_bits = st.coin_bits;
	return 0;
}

DICE_EXPORT int dice_get_masses(struct dice *d, uint64_t *masses,
				uint64_t capacity, uint64_t *sides,
				uint64_t *total)
{
	if (!d || (!masses && capacity))
		return -EINVAL;
	if (!d->eng)
		return -EOPNOTSUPP;
	return dice_engine_get_masses(d, masses, capacity, sides, total);
}

DICE_EXPORT int dice_get_mapping(struct dice *d, uint32_t *mapping)
{
	if (!d || !mapping)
		return -EINVAL;
	if (!d->eng)
		return -EOPNOTSUPP;
	*mapping = dice_engine_get_mapping(d);
	return 0;
}

/* ---- bits and rolls ---------------------------------------------------------------- */

DICE_EXPORT long dice_write_bits(struct dice *d, const void *buf, size_t len)
{
	int err = dice_check(d);

	if (err)
		return err;
	if (!buf && len)
		return -EINVAL;
	if (!d->eng)
		return -EOPNOTSUPP;
	return dice_engine_write(d, buf, len);
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

/*
 * Rolls as 1..n.  A device file in a binary format is read in it and
 * widened here: a format is sent with the whole die (DICE_IOC_SET_DIE), so
 * a switch to U64 and back would send a loaded die's table twice.  Text
 * and the engine read in U64.  The rolls of width @w are read into the
 * end of @faces and widened from the front: roll i comes from byte
 * count * (8 - w) + i * w, never before byte 8 * i, where it goes.
 */
static int dice_file_roll(struct dice *d, uint64_t *faces, size_t count,
			    size_t *done)
{
	unsigned int w = d->eng ? 0 : dice_format_width(d->file_format);
	uint64_t base = 0;
	size_t want, got = 0, i;
	unsigned char *in;
	int err = 0;

	if (!w) {
		err = dice_file_format(d, DICE_FMT_U64);
		w = 8;
	}
	if (d->file_format & DICE_FMT_ZERO_BASED)
		base = 1;
	want = count * w;
	in = (unsigned char *)faces + count * (8 - w);
	while (!err && got < want) {
		long n = dice_file_read(d, in + got, want - got);

		if (n > 0)
			got += n;
		else if (n == 0)
			err = -EIO;	/* the device never ends */
		else
			err = (int)n;
	}
	/* Whole rolls only: the module never splits a binary roll. */
	if (got % w && !err)
		err = -EIO;
	for (i = 0; i < got / w; i++) {
		uint64_t face = 0;
		unsigned int b;

		for (b = 0; b < w; b++)
			face |= (uint64_t)in[i * w + b] << (8 * b);
		faces[i] = face + base;
	}
	*done = got / w;
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
