/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * <linux/dice.h> - userspace ABI of /dev/dice, a random dice roller
 *
 * Every open file of /dev/dice is one die.  read() serves its rolls as text
 * lines or fixed-width little-endian integers; the ioctls below configure the
 * die and report how many random bits it spent.  This is unrelated to the
 * Open Profile for DICE attestation driver (drivers/misc/open-dice.c).
 *
 * All structs are made of fixed-width types only, their sizes are multiples
 * of 8 bytes, user pointers travel as __u64, and every struct has a flags
 * member that must be zero today.  Structs grow at the end only: the kernel
 * takes the size from the ioctl number, zero-fills a short struct passed in,
 * refuses a longer one whose unknown tail is not zero (-E2BIG), and copies
 * out no more than the caller's size.
 *
 * Each command's errors are listed once, above its definition at the end
 * of this file; Documentation/userspace-api/dice.rst lists the same.
 * Every command also fails with -EFAULT for an argument it cannot read or
 * write, and an unknown one with -ENOTTY.
 */
#ifndef _UAPI_LINUX_DICE_H
#define _UAPI_LINUX_DICE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Ioctl type byte (Documentation/userspace-api/ioctl/ioctl-number.rst) */
#define DICE_IOC_MAGIC		0xD1

/* Largest number of sides of a fair die: 2^64 - 1. */
#define DICE_MAX_FAIR_SIDES	(~(__u64)0)

/*
 * Output formats, set with DICE_IOC_SET_FORMAT.  DICE_FMT_TEXT gives one
 * decimal roll per line; the others give one little-endian integer per roll.
 * DICE_FMT_ZERO_BASED may be or-ed in to number faces 0..n-1 instead of 1..n.
 */
#define DICE_FMT_TEXT		0x00
#define DICE_FMT_U8		0x01
#define DICE_FMT_U16		0x02
#define DICE_FMT_U32		0x03
#define DICE_FMT_U64		0x04
#define DICE_FMT_TYPE_MASK	0xff
#define DICE_FMT_ZERO_BASED	0x100
#define DICE_FMT_FLAGS_MASK	DICE_FMT_ZERO_BASED

/* Kinds of die, reported in &struct dice_info.kind. */
#define DICE_KIND_FAIR		0
#define DICE_KIND_LOADED	1

/* Sampling methods, set with DICE_IOC_SET_METHOD. */
#define DICE_METHOD_RECYCLE	0	/* entropy-bound recycling (default) */
#define DICE_METHOD_VIGLIETTA	1	/* (1/n)-coin + 3*floor(log2 n)+1 flips */
#define DICE_METHOD_BATCH	2	/* k rolls as one uniform on [0, n^k) */
#define DICE_METHOD_ALIAS	3	/* fresh column + biased coin per roll */
#define DICE_METHOD_REJECTION	4	/* ceil(log2 n) fresh bits per try */

/* Sources of random bits, set with DICE_IOC_SET_SOURCE. */
#define DICE_SRC_KERNEL		0	/* the kernel CRNG (default) */
#define DICE_SRC_WRITTEN	1	/* bits write()n to this file */

/**
 * struct dice_info - what a die is, returned by DICE_IOC_GET_INFO
 * @sides: number of sides, 1 to 2^64-1
 * @kind: DICE_KIND_FAIR or DICE_KIND_LOADED
 * @format: DICE_FMT_* type or-ed with its flags, as set
 * @method: DICE_METHOD_* in use
 * @source: DICE_SRC_* in use
 * @flags: none defined yet, reported as zero
 * @padding: reported as zero
 * @reserved: room to grow, reported as zero
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

/**
 * struct dice_stats - what a die has spent, returned by DICE_IOC_GET_STATS
 * @rolls: rolls produced since open (served, waiting to be read, or
 *	dropped unread by a change of die or a VM fork)
 * @bits_used: fair bits the sampler consumed
 * @bits_drawn: bits taken into the file's bit buffer from the source; minus
 *	@bits_used and @bits_discarded, this is what waits there for later rolls
 * @bits_discarded: buffered bits dropped unused when the source changed,
 *	the VM forked or a hibernation image was restored, a read of CRNG
 *	bits returned holding more than 127 of them, or written bits could
 *	never complete a roll
 * @coin_bits: part of @bits_used spent on tossing biased coins
 *	(DICE_METHOD_VIGLIETTA's (1/n)-coin, DICE_METHOD_ALIAS's column
 *	coins); the rest are fair flips
 * @flags: none defined yet, reported as zero
 * @reserved: room to grow, reported as zero
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

/* The most sides of a loaded die (weights or alias table). */
#define DICE_TABLE_SIDES_MAX	1048576	/* 2^20 */

/**
 * struct dice_weights - a loaded die as integer weights, for DICE_IOC_SET_WEIGHTS
 * @weights: user pointer to @sides __u32 weights; side i comes up with
 *	probability weights[i] / sum(weights)
 * @sides: number of sides, 1 to DICE_TABLE_SIDES_MAX
 * @flags: none defined yet, must be zero
 */
struct dice_weights {
	__aligned_u64 weights;
	__u32 sides;
	__u32 flags;
};

/**
 * struct dice_alias - a loaded die as an alias table, for DICE_IOC_SET_ALIAS
 * @thresholds: user pointer to @sides __u64: column c yields side c with
 *	probability thresholds[c] / @mass, each at most @mass
 * @aliases: user pointer to @sides __u32: the side column c yields otherwise,
 *	each below @sides
 * @mass: the mass D of every column, at least 1
 * @sides: number of sides (columns), 1 to DICE_TABLE_SIDES_MAX
 * @flags: none defined yet, must be zero
 *
 * Each column is chosen with probability 1 / @sides.  The mass a side
 * collects over all columns must stay below 2^64 (else -EOVERFLOW).
 */
struct dice_alias {
	__aligned_u64 thresholds;
	__aligned_u64 aliases;
	__aligned_u64 mass;
	__u32 sides;
	__u32 flags;
};

/**
 * struct dice_masses - the exact distribution in use, for DICE_IOC_GET_MASSES
 * @masses: user pointer to room for @capacity __u64 masses; side i comes up
 *	with probability masses[i] / @total
 * @capacity: in: entries @masses has room for
 * @sides: out: number of sides; if it exceeds @capacity, nothing is written
 *	to @masses
 * @total: out: sum of all masses
 * @flags: none defined yet, must be zero
 * @padding: must be zero
 */
struct dice_masses {
	__aligned_u64 masses;
	__aligned_u64 capacity;
	__aligned_u64 sides;
	__aligned_u64 total;
	__u32 flags;
	__u32 padding;
};

/*
 * The commands.  "Errors:" lists each one's errno values besides EFAULT,
 * and besides ENOMEM, which any command may return when the file's die,
 * made on its first read or ioctl, cannot be allocated; the ones that
 * work in steps over many sides stop for a signal with EINTR (restarted
 * from scratch under SA_RESTART).
 */

/* Make the die a fair die of *arg sides.
 * Errors: EINVAL (0 sides), EOVERFLOW (the largest face does not fit the
 * binary format).
 */
#define DICE_IOC_SET_SIDES	_IOW(DICE_IOC_MAGIC, 0x01, __u64)

/* Encode the rolls read from now on as *arg, a DICE_FMT_* type and flags.
 * Errors: EINVAL (unknown type or flag), EOVERFLOW (the largest face does
 * not fit the width).
 */
#define DICE_IOC_SET_FORMAT	_IOW(DICE_IOC_MAGIC, 0x02, __u32)

/* Report what the die is.
 * Errors: EINVAL (a size of 0 in the command).
 */
#define DICE_IOC_GET_INFO	_IOR(DICE_IOC_MAGIC, 0x03, struct dice_info)

/* Report what the die has spent since open.
 * Errors: EINVAL (a size of 0 in the command).
 */
#define DICE_IOC_GET_STATS	_IOR(DICE_IOC_MAGIC, 0x04, struct dice_stats)

/* Make the die a loaded die of integer weights.
 * Errors: EINVAL (flags, 0 sides, every weight 0, or a method that cannot
 * roll loaded dice), E2BIG (more than DICE_TABLE_SIDES_MAX, or a longer
 * struct with a non-zero tail), ENOMEM (no memory, or the tables of all
 * files would hold more than an eighth of RAM), EOVERFLOW (the largest face does not fit the
 * binary format), EINTR (a signal during the build).
 */
#define DICE_IOC_SET_WEIGHTS	_IOW(DICE_IOC_MAGIC, 0x05, struct dice_weights)

/* Make the die a loaded die given as an alias table.
 * Errors: EINVAL (flags, 0 sides or mass, a threshold above the mass, an
 * alias out of range, or a method that cannot roll loaded dice), E2BIG,
 * ENOMEM (as SET_WEIGHTS), EOVERFLOW (a side's mass over all columns does
 * not fit 64 bits, or the largest face does not fit the binary format),
 * EINTR (a signal during the checks).
 */
#define DICE_IOC_SET_ALIAS	_IOW(DICE_IOC_MAGIC, 0x06, struct dice_alias)

/* Report the exact distribution in lowest terms, 64 masses at a time.
 * Errors: EINVAL (flags or padding, or a size of 0), E2BIG (a longer struct
 * with a non-zero tail), ENOSPC (@capacity below the sides: @sides and
 * @total are written back, nothing else), EOVERFLOW (an alias table whose
 * total in lowest terms does not fit 64 bits), EINTR (a signal: the masses
 * written so far are left as they are).
 */
#define DICE_IOC_GET_MASSES	_IOWR(DICE_IOC_MAGIC, 0x07, struct dice_masses)

/* Roll the same die another way: *arg is a DICE_METHOD_*.
 * Errors: EINVAL (unknown method, or one that cannot roll this die).
 */
#define DICE_IOC_SET_METHOD	_IOW(DICE_IOC_MAGIC, 0x08, __u32)

/* Take bits from *arg, a DICE_SRC_*, from now on.
 * Errors: EINVAL (unknown source), ENOMEM (no memory for the copy of the
 * die that poll() tries written bits on).
 */
#define DICE_IOC_SET_SOURCE	_IOW(DICE_IOC_MAGIC, 0x09, __u32)

#endif /* _UAPI_LINUX_DICE_H */
