/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dice.h - libdice, the userspace face of /dev/dice
 *
 * A struct dice is one die: an open file of /dev/dice, or (only when asked
 * for) a userspace engine running the same core as the module.  Every
 * function returns 0 (or a count) on success and a negative errno on
 * failure; none sets errno or falls back silently.
 */
#ifndef _LIBDICE_DICE_H
#define _LIBDICE_DICE_H

#include <stddef.h>
#include <stdint.h>
/* The module's uapi header, installed by libdice under its own name. */
#include <libdice/uapi.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dice;
struct dice_ring;

/*
 * The textbook baseline the other methods are measured against (ceil(log2
 * n) fresh bits a try): the userspace engine's only, the device has none.
 */
#ifndef DICE_METHOD_REJECTION
#define DICE_METHOD_REJECTION	4
#endif

/* Sources of bits, for dice_set_source(): a userspace engine's choice. */
#define DICE_SRC_KERNEL		0	/* the CRNG (getrandom()) */
#define DICE_SRC_WRITTEN	1	/* bits given with dice_write_bits() */

/*
 * What dice_get_info() reports.  libdice's own since the device reports
 * less (DICE_IOC_GET_DIE): the layout of LIBDICE_1, which stays.
 * @source: DICE_SRC_KERNEL, or DICE_SRC_WRITTEN on an engine
 * @flags, @padding, @reserved: reported as zero
 */
struct dice_info {
	__aligned_u64 sides;
	__u32 kind;
	__u32 format;
	__u32 method;
	__u32 source;
	__u32 flags;
	__u32 padding;
	__aligned_u64 reserved[4];
};

/*
 * What dice_get_stats() reports: the fields of struct dice_die_stats
 * (<linux/dice.h>), in the layout of LIBDICE_1.
 * @flags, @reserved: reported as zero
 */
struct dice_stats {
	__aligned_u64 rolls;
	__aligned_u64 bits_used;
	__aligned_u64 bits_drawn;
	__aligned_u64 bits_discarded;
	__aligned_u64 coin_bits;
	__aligned_u64 flags;
	__aligned_u64 reserved[2];
};

/* dice_open_flags() flags */
#define DICE_OPEN_USERSPACE	0x1	/* engine in this process, getrandom() bits */

/*
 * Mappings of random bits to faces, for dice_set_mapping(): the same bits
 * give the same faces under the same mapping.  Fair dice and small loaded
 * dice roll alike under all; mapping 2 rolls some large loaded dice (of
 * 2^17 sides and more, or whose column mass is 2^32 and more) faster, and
 * into other faces (which changes the rolls after them too), and mapping 3
 * does the same from 2^14 sides on.  Mapping 1 is how every libdice rolled
 * before there were mappings.  The die core's header defines the same
 * names with the same values.
 */
#ifndef DICE_MAPPING_1
#define DICE_MAPPING_1		1
#endif
#ifndef DICE_MAPPING_2
#define DICE_MAPPING_2		2
#endif
#ifndef DICE_MAPPING_3
#define DICE_MAPPING_3		3
#endif
#ifndef DICE_MAPPING_LATEST
#define DICE_MAPPING_LATEST	DICE_MAPPING_3
#endif

/* Open /dev/dice: a fair d6.  -ENOENT when the module is not loaded. */
int dice_open(struct dice **out);
/* Open with DICE_OPEN_* flags. */
int dice_open_flags(struct dice **out, unsigned int flags);
/*
 * Open a userspace engine whose bits come from @seed (ChaCha20 keystream):
 * the same seed gives the same faces, for tests and replays.  Not for
 * secrets: anyone who knows the seed knows every roll.  It rolls by
 * DICE_MAPPING_1, so that a seed keeps giving the faces it gave before
 * there were mappings (see dice_set_mapping()).
 */
int dice_open_seeded(struct dice **out, uint64_t seed);
void dice_close(struct dice *d);
/*
 * A hint for a user after dice_open*() failed with @err (negative errno),
 * such as how to load the module after -ENOENT; NULL when there is none.
 * The library itself never prints.
 */
const char *dice_open_hint(int err);
/* Nonzero for a userspace engine (DICE_OPEN_USERSPACE or seeded). */
int dice_is_userspace(const struct dice *d);

int dice_set_sides(struct dice *d, uint64_t sides);
int dice_set_weights(struct dice *d, const uint32_t *weights, uint32_t sides);
int dice_set_alias(struct dice *d, const uint64_t *thresholds,
		   const uint32_t *aliases, uint32_t sides, uint64_t mass);
int dice_set_method(struct dice *d, uint32_t method);
/*
 * The name of a DICE_METHOD_* ("recycle", "viglietta", "batch", "alias",
 * "rejection"), NULL for a number that is none; and back: 0 and *method
 * set, or -EINVAL for a name that is none (exact, lowercase).
 */
const char *dice_method_name(uint32_t method);
int dice_method_parse(const char *name, uint32_t *method);
/* Userspace engines only: -EOPNOTSUPP on /dev/dice, which takes no bits. */
int dice_set_source(struct dice *d, uint32_t source);
/*
 * The mapping (DICE_MAPPING_*) a userspace engine rolls by from the next
 * roll on: DICE_MAPPING_1 from dice_open_seeded(), so that old replays
 * hold, DICE_MAPPING_LATEST from dice_open_flags(), which replays nothing.
 * -EINVAL for a mapping that is none.  Userspace engines only: -EOPNOTSUPP
 * on /dev/dice, which rolls by its module's latest mapping and has no ioctl
 * to ask for another.
 */
int dice_set_mapping(struct dice *d, uint32_t mapping);
int dice_get_mapping(struct dice *d, uint32_t *mapping);
int dice_set_format(struct dice *d, uint32_t format);
int dice_get_info(struct dice *d, struct dice_info *info);
int dice_get_stats(struct dice *d, struct dice_stats *stats);
/*
 * The exact distribution in lowest terms: up to @capacity masses, the number
 * of sides in *@sides and their sum in *@total.  -ENOSPC if @capacity is too
 * small (*@sides tells how much is needed).  Userspace engines only:
 * -EOPNOTSUPP on /dev/dice.
 */
int dice_get_masses(struct dice *d, uint64_t *masses, uint64_t capacity,
		    uint64_t *sides, uint64_t *total);
/* Feed bits for DICE_SRC_WRITTEN, most significant bit first: returns
 * bytes accepted (>= 0) or -errno; -EAGAIN when the buffer is full.
 * Userspace engines only: -EOPNOTSUPP on /dev/dice.
 */
long dice_write_bits(struct dice *d, const void *buf, size_t len);
/*
 * Roll @count times into @faces (1..n).  Returns 0, or -errno; with
 * DICE_SRC_WRITTEN, -EAGAIN when the written bits ran out (no face is ever
 * made from other bits; the faces rolled so far are in @faces and
 * *@done, if not NULL, says how many).
 */
int dice_roll(struct dice *d, uint64_t *faces, size_t count, size_t *done);
/*
 * Read rolls encoded in the format set with dice_set_format(), as read(2)
 * of /dev/dice returns them: bytes stored (> 0), or -errno.  (dice_roll()
 * always gives 1..n: libdice owns the format of the file it opened.)
 */
long dice_read(struct dice *d, void *buf, size_t len);

/*
 * Build an exact alias table from integer weights, as the kernel does, for
 * dice_set_alias(): @thresholds and @aliases have room for @sides entries;
 * *@mass receives the column mass (the sum of the weights).
 */
int dice_alias_build(const uint32_t *weights, uint32_t sides,
		     uint64_t *thresholds, uint32_t *aliases, uint64_t *mass);

/*
 * Batched reads through io_uring: @depth reads of @bufsize bytes kept in
 * flight into registered buffers.  /dev/dice handles only.
 */
int dice_ring_open(struct dice *d, unsigned int depth, size_t bufsize,
		   struct dice_ring **out);
int dice_ring_roll(struct dice_ring *r, uint64_t *faces, size_t count);
void dice_ring_close(struct dice_ring *r);
/*
 * Wait until no read of the ring is in flight; *@buffered (if not NULL)
 * receives the rolls it holds that dice_ring_roll() has not returned yet
 * (the die's stats.rolls = rolls returned + *@buffered).  Reads are queued
 * again as dice_ring_roll() empties buffers.
 */
int dice_ring_drain(struct dice_ring *r, uint64_t *buffered);

#ifdef __cplusplus
}
#endif

#endif /* _LIBDICE_DICE_H */
