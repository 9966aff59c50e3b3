/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * <linux/dice.h> - userspace ABI of /dev/dice, a random dice roller
 *
 * Every open file of /dev/dice is one die, a fair d6 in text when opened.
 * DICE_IOC_SET_DIE makes it another die in one step; read() serves its
 * rolls as text lines or fixed-width little-endian integers, and
 * DICE_IOC_GET_STATS reports the random bits they cost.  This is unrelated
 * to the Open Profile for DICE attestation driver (drivers/misc/open-dice.c).
 *
 * The structs have fixed sizes made of fixed-width types; user pointers
 * travel as __u64.  A struct that must grow gets a new ioctl number.
 * Each command's errors are listed above it; every command also fails
 * with EFAULT for an argument it cannot read or write, with ENOMEM when
 * the file's die (made on its first read or ioctl) cannot be allocated,
 * and an unknown command with ENOTTY.
 */
#ifndef _UAPI_LINUX_DICE_H
#define _UAPI_LINUX_DICE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Ioctl type byte (Documentation/userspace-api/ioctl/ioctl-number.rst) */
#define DICE_IOC_MAGIC		0xD1

/* The most sides of a fair die: 2^64 - 1. */
#define DICE_MAX_FAIR_SIDES	(~(__u64)0)

/* The most sides of a loaded die (weights or alias table). */
#define DICE_TABLE_SIDES_MAX	1048576	/* 2^20 */

/*
 * Output formats: DICE_FMT_TEXT gives one decimal roll per line, the
 * others one little-endian integer per roll.  DICE_FMT_ZERO_BASED may be
 * or-ed in to number faces 0..n-1 instead of 1..n.
 */
#define DICE_FMT_TEXT		0x00
#define DICE_FMT_U8		0x01
#define DICE_FMT_U16		0x02
#define DICE_FMT_U32		0x03
#define DICE_FMT_U64		0x04
#define DICE_FMT_TYPE_MASK	0xff
#define DICE_FMT_ZERO_BASED	0x100
#define DICE_FMT_FLAGS_MASK	DICE_FMT_ZERO_BASED

/*
 * Kinds of die.  DICE_IOC_SET_DIE takes a loaded die as weights or as an
 * alias table; DICE_IOC_GET_DIE reports either as DICE_KIND_LOADED.
 */
#define DICE_KIND_FAIR		0	/* @sides equally likely sides */
#define DICE_KIND_LOADED	1	/* reported: a loaded die */
#define DICE_KIND_WEIGHTS	1	/* set: loaded, by integer weights */
#define DICE_KIND_ALIAS		2	/* set: loaded, by an alias table */

/* Sampling methods: how bits become faces. */
#define DICE_METHOD_RECYCLE	0	/* entropy-bound recycling (default) */
#define DICE_METHOD_VIGLIETTA	1	/* (1/n)-coin + 3*floor(log2 n)+1 flips */
#define DICE_METHOD_BATCH	2	/* k rolls as one uniform on [0, n^k) */
#define DICE_METHOD_ALIAS	3	/* fresh column + biased coin per roll */
/* 4: reserved, libdice's userspace-only DICE_METHOD_REJECTION baseline */

/**
 * struct dice_die_args - a whole die, for DICE_IOC_SET_DIE
 * @sides: number of sides: 1 to DICE_MAX_FAIR_SIDES for a fair die, 1 to
 *	DICE_TABLE_SIDES_MAX for a loaded one (the alias table's columns)
 * @weights: DICE_KIND_WEIGHTS: user pointer to @sides __u32 weights; side
 *	i comes up with probability weights[i] / sum(weights).  Else 0.
 * @thresholds: DICE_KIND_ALIAS: user pointer to @sides __u64; column c
 *	yields side c with probability thresholds[c] / @mass, each at most
 *	@mass.  Else 0.
 * @aliases: DICE_KIND_ALIAS: user pointer to @sides __u32, the side column
 *	c yields otherwise, each below @sides.  Else 0.
 * @mass: DICE_KIND_ALIAS: the mass of every column, at least 1.  Else 0.
 * @kind: DICE_KIND_FAIR, DICE_KIND_WEIGHTS or DICE_KIND_ALIAS
 * @method: DICE_METHOD_*; DICE_METHOD_VIGLIETTA and DICE_METHOD_BATCH
 *	roll fair dice only (a fair die by DICE_METHOD_ALIAS is a fresh
 *	column a roll: plain rejection sampling)
 * @format: DICE_FMT_* type or-ed with its flags
 * @flags: none defined, must be 0
 *
 * Each column of an alias table is chosen with probability 1 / @sides,
 * and the mass a side collects over all columns must fit 64 bits.
 */
struct dice_die_args {
	__aligned_u64 sides;
	__aligned_u64 weights;
	__aligned_u64 thresholds;
	__aligned_u64 aliases;
	__aligned_u64 mass;
	__u32 kind;
	__u32 method;
	__u32 format;
	__u32 flags;
};

/**
 * struct dice_die_info - the die a file rolls, from DICE_IOC_GET_DIE
 * @sides: number of sides
 * @kind: DICE_KIND_FAIR or DICE_KIND_LOADED
 * @method: DICE_METHOD_*
 * @format: DICE_FMT_* type or-ed with its flags
 * @padding: reported as 0
 */
struct dice_die_info {
	__aligned_u64 sides;
	__u32 kind;
	__u32 method;
	__u32 format;
	__u32 padding;
};

/**
 * struct dice_die_stats - what a file's rolls cost, from DICE_IOC_GET_STATS
 * @rolls: rolls made since open (read, waiting to be read, or dropped
 *	unread by a new die, a VM fork or a hibernation restore)
 * @bits_used: fair bits the rolls consumed
 * @bits_drawn: bits taken from the CRNG
 * @bits_discarded: bits drawn and dropped unused: at the end of each
 *	read() all but at most 127, and all at a VM fork or a hibernation
 *	restore.  @bits_drawn - @bits_used - @bits_discarded are held for
 *	the next roll.
 * @coin_bits: the part of @bits_used spent on biased coins
 *	(DICE_METHOD_VIGLIETTA's (1/n)-coin, the columns' coins of loaded
 *	dice); the rest are fair flips
 */
struct dice_die_stats {
	__aligned_u64 rolls;
	__aligned_u64 bits_used;
	__aligned_u64 bits_drawn;
	__aligned_u64 bits_discarded;
	__aligned_u64 coin_bits;
};

/*
 * Make the file's die the die *arg describes, atomically: on success rolls
 * of the old die still waiting are dropped (but the rest of a text line a
 * read has begun, if the format stays), the random bits it holds carry
 * over; on failure nothing changes.
 * Errors: EINVAL (flags, kind, method or format unknown, 0 sides, a
 * pointer or mass given that the kind does not use, a method that cannot
 * roll that kind, every weight 0, a mass of 0, a threshold above the
 * mass, an alias out of range), E2BIG (a loaded die of more than
 * DICE_TABLE_SIDES_MAX sides), EOVERFLOW (a number does not fit its
 * width: the largest face in the format, or a side's mass over all
 * columns in 64 bits), ENOMEM (no memory, or the tables the calling user
 * set would hold more than an eighth of RAM).  Only a fatal signal stops a
 * table's build; a handled one waits for the call's end.  A read() in
 * progress serves the rolls of one die: it ends where the die changes.
 */
#define DICE_IOC_SET_DIE	_IOW(DICE_IOC_MAGIC, 0x10, struct dice_die_args)

/* Report the die the file rolls.  Errors: none but the common ones. */
#define DICE_IOC_GET_DIE	_IOR(DICE_IOC_MAGIC, 0x11, struct dice_die_info)

/* Report what the file's rolls cost since open.  Errors: the common ones. */
#define DICE_IOC_GET_STATS	_IOR(DICE_IOC_MAGIC, 0x12, struct dice_die_stats)

/* 0x1f: the selftests' test hook, not ABI (dice_test_hooks.h of the driver) */

#endif /* _UAPI_LINUX_DICE_H */
