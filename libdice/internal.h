/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - what the parts of libdice share and callers never see
 *
 * One .c per object: dice.c (handles: open, configure, roll; both
 * backends), engine.c (the userspace engine: the die core of the module
 * fed by getrandom(), by a seeded ChaCha20 stream, or by written bits),
 * file.c (the ioctl that sets a die, the format of the file), alias.c
 * (dice_alias_build()), ring.c (batched reads through io_uring).
 */
#ifndef _LIBDICE_INTERNAL_H
#define _LIBDICE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "dice.h"
#include "dice_core.h"

/* Everything is hidden (-fvisibility=hidden) unless marked with this. */
#define DICE_EXPORT	__attribute__((visibility("default")))

/**
 * struct dice_engine - the userspace backend of a handle
 * @stream: an open file of the same die core as the module
 * @seeded: bits come from the ChaCha20 stream below, not getrandom()
 * @key: ChaCha20 key (the seed, little-endian, then zeros)
 * @block: next ChaCha20 block number
 * @ks: the current keystream block
 * @ks_pos: bytes of @ks already used (64: none left)
 * @pid: process the buffered getrandom() bits belong to; a fork()ed child
 *	drops them rather than repeat its parent's rolls
 */
struct dice_engine {
	struct dice_stream *stream;
	bool seeded;
	unsigned char key[32];
	uint64_t block;
	unsigned char ks[64];
	unsigned int ks_pos;
	pid_t pid;
};

/**
 * struct dice - one die: an open file of /dev/dice or a userspace engine
 * @fd: the open /dev/dice, or -1 for an engine
 * @format: the format set with dice_set_format(), which dice_read() uses
 *	and dice_get_info() reports
 * @file_format: the format the file (device or engine) is in now: @format,
 *	or DICE_FMT_U64 after dice_roll() read it in that (libdice owns the format
 *	of its file)
 * @source: DICE_SRC_* (engine; the device's is the CRNG)
 * @die: the device's die as last set (DICE_IOC_SET_DIE sets it whole, so a
 *	new format or method is sent with the die), its format @file_format
 * @table: the arrays @die points to, owned (NULL for a fair die)
 * @ring: the ring open on this handle, if any; configuration is refused
 *	with -EBUSY while it is
 * @eng: the engine, NULL for a device handle
 */
struct dice {
	int fd;
	uint32_t format;
	uint32_t file_format;
	uint32_t source;
	struct dice_die_args die;
	void *table;
	struct dice_ring *ring;
	struct dice_engine *eng;
};

/* engine.c */
int dice_engine_new(struct dice *d, bool seeded, uint64_t seed);
void dice_engine_free(struct dice *d);
int dice_engine_set_sides(struct dice *d, uint64_t sides);
int dice_engine_set_table(struct dice *d, struct dice_table *table);
int dice_engine_set_method(struct dice *d, uint32_t method);
int dice_engine_set_source(struct dice *d, uint32_t source);
int dice_engine_set_format(struct dice *d, uint32_t format);
int dice_engine_set_mapping(struct dice *d, uint32_t mapping);
uint32_t dice_engine_get_mapping(struct dice *d);
void dice_engine_get_info(struct dice *d, struct dice_die_info *info);
void dice_engine_get_stats(struct dice *d, struct dice_die_stats *stats);
int dice_engine_get_masses(struct dice *d, uint64_t *masses,
			   uint64_t capacity, uint64_t *sides,
			   uint64_t *total);
long dice_engine_write(struct dice *d, const void *buf, size_t len);
long dice_engine_read(struct dice *d, void *buf, size_t len);

#endif /* _LIBDICE_INTERNAL_H */
