/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_core.h - the die core's public API
 *
 * series: loaded
 * The core rolls fair and loaded dice from a stream of fair bits at close
 * series: not loaded
 * The core rolls fair dice from a stream of fair bits at close
 * series: end
 * to their entropy, in exact integer arithmetic, and encodes the faces as
 * series: out-of-tree
 * read() serves them.  It is plain C that builds into the module and into
 * userspace (libdice, bench, tests).  This header is all its users see:
 * series: end
 * read() serves them.  It is plain C without device code.  This header is
 * all its users see:
 * series: loaded
 *
 *  - struct dice_table: an exact integer alias table, built from weights or
 *    validated from a prebuilt table, then handed to a die;
 * series: end
 *  - struct dice_die: one die, its configuration and random state;
 *  - struct dice_stream: an open file's die, the format of its rolls and
 *    the bytes of rolls encoded for reading, with the bits written for
 *    DICE_SRC_WRITTEN.
 *
 * Nothing here sleeps, locks or touches user memory: the caller serializes
 * access to a stream and copies bytes in and out.  The parts (bit pool,
 * recycler, tables, methods) have private headers of their own.
 */
#ifndef _DICE_CORE_H
#define _DICE_CORE_H

#include <kunit/visibility.h>
#include <linux/gfp.h>
#include <linux/types.h>
#include <linux/dice.h>

/*
 * The textbook baseline the other methods are measured against:
 * series: out-of-tree
 * ceil(log2 n) fresh bits a try.  Not in the uapi: libdice's userspace
 * engine and the bench roll it; the module builds without it.
 * series: in-tree
 * ceil(log2 n) fresh bits a try.  Not in the uapi (which reserves its
 * number): the driver refuses it.
 * series: end
 */
#ifndef DICE_METHOD_REJECTION
#define DICE_METHOD_REJECTION	4
#endif

/*
 * Tables are caused by userspace: charge them to it, and when its memory
 * cgroup is full fail with -ENOMEM rather than OOM-kill it.
 */
#define DICE_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* series: loaded */
void *dice_table_mem(size_t bytes);
struct dice_table;
/* series: end */
struct dice_die;
struct dice_stream;

/**
 * typedef dice_fill_fn - source of fresh random words
 * @ctx: the source's context
 * @words: where to store @nwords words
 * @nwords: room for this many 64-bit words, at least 1
 *
 * A source that should hold no randomness ahead of need (the kernel's
 * CRNG, whose output must not outlive a reseed in a buffer) stores one
 * word; a batch source (a seeded keystream, test vectors) fills them all.
 *
 * Return: the number of words stored, 1 to @nwords, or a negative errno.
 */
typedef int (*dice_fill_fn)(void *ctx, u64 *words, unsigned int nwords);

/**
 * struct dice_read - one read() of a stream, for dice_stream_read_chunk()
 * @len: bytes the read serves (dice_stream_read_size() cuts it)
 * @done: bytes served so far
 * @torn: after a short copy, bytes delivered that are no whole roll
 * @copy: copies @len bytes out; returns how many it could
 * @ctx: argument for @copy
 */
struct dice_read {
	size_t len;
	size_t done;
	size_t torn;
	size_t (*copy)(void *ctx, const u8 *bytes, size_t len);
	void *ctx;
};

/* series: loaded */
/* ---- alias tables (dice_alias.c) ---------------------------------------- */

struct dice_table *dice_table_alloc(u32 sides);
void dice_table_free(struct dice_table *table);
u64 *dice_table_thresholds(struct dice_table *table);
u32 *dice_table_aliases(struct dice_table *table);
u64 dice_table_mass(const struct dice_table *table);
int dice_table_from_weights(struct dice_table *table, const u32 *weights);
int dice_table_from_alias(struct dice_table *table, u64 mass);
struct dice_table *dice_table_pack(struct dice_table *table);
size_t dice_table_bytes(u32 sides, bool packed);
/* series: end */

/* ---- the die (dice_die.c, dice_roll.c) ---------------------------------- */

/* series: loaded */
int dice_die_check(u64 sides, bool loaded, u32 method);
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_die_check(u64 sides, u32 method);
#endif /* series: end */
/* series: loaded */
int dice_die_set(struct dice_die *die, u64 sides, struct dice_table *table,
		 u32 method);
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_die_set(struct dice_die *die, u64 sides, u32 method);
#endif /* series: end */
int dice_die_set_sides(struct dice_die *die, u64 sides);
/* series: loaded */
int dice_die_set_table(struct dice_die *die, struct dice_table *table);
/* series: end */
int dice_die_set_method(struct dice_die *die, u32 method);
int dice_die_roll(struct dice_die *die, u64 *face);
int dice_die_roll_many(struct dice_die *die, u64 *faces, unsigned int count);
void dice_die_info(const struct dice_die *die, struct dice_die_info *info);
void dice_die_stats(const struct dice_die *die, struct dice_die_stats *stats);
#ifndef __KERNEL__
/*
 * Which faces a die's bits make.  Mapping 2 draws the columns of large loaded
 * dice (2^17 sides and more) ahead of their rolls and rolls loaded dice
 * whose columns weigh 2^32 and more in 64 bits; mapping 3 draws ahead from
 * 2^14 sides.  Mapping 1 is how libdice 0.2 and earlier rolled: userspace
 * engines keep the older ones for replays (the module rolls by the latest).
 */
#define DICE_MAPPING_1		1
#define DICE_MAPPING_2		2
#define DICE_MAPPING_3		3
#define DICE_MAPPING_LATEST	DICE_MAPPING_3
int dice_die_set_mapping(struct dice_die *die, u32 mapping);
u32 dice_die_get_mapping(const struct dice_die *die);
int dice_die_masses(const struct dice_die *die, u64 *unit, u64 *total);
u64 dice_die_mass(const struct dice_die *die, u64 unit, u64 s);
#endif
u64 dice_die_sides(const struct dice_die *die);
/* series: loaded */
size_t dice_die_table_bytes(const struct dice_die *die);
/* series: end */

/* ---- the open file's stream (dice_stream.c) ----------------------------- */

struct dice_stream *dice_stream_alloc_gfp(dice_fill_fn fill, void *ctx,
					  gfp_t gfp);
struct dice_stream *dice_stream_alloc(dice_fill_fn fill, void *ctx);
void dice_stream_free(struct dice_stream *stream);
struct dice_die *dice_stream_die(struct dice_stream *stream);
void dice_stream_info(const struct dice_stream *stream,
		      struct dice_die_info *info);
int dice_die_args_check(const struct dice_die_args *arg);
/* series: loaded */
int dice_stream_set_die(struct dice_stream *stream, u64 sides,
			struct dice_table *table, u32 method, u32 format);
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_stream_set_die(struct dice_stream *stream, u64 sides, u32 method,
			u32 format);
#endif /* series: end */
#ifndef __KERNEL__
/* libdice's userspace engine sets one thing at a time. */
int dice_stream_set_format(struct dice_stream *stream, u32 format);
int dice_stream_set_sides(struct dice_stream *stream, u64 sides);
int dice_stream_set_table(struct dice_stream *stream, struct dice_table *table);
int dice_stream_set_method(struct dice_stream *stream, u32 method);
int dice_stream_set_mapping(struct dice_stream *stream, u32 mapping);
#endif
/* The test hook's (CONFIG_RANDOM_DICE_TEST_HOOKS) */
int dice_stream_set_source(struct dice_stream *stream, dice_fill_fn fill,
			   void *ctx);
void dice_stream_drop_random(struct dice_stream *stream);

int dice_stream_read_size(struct dice_stream *stream, size_t *len);
size_t dice_stream_whole(const struct dice_stream *stream, size_t len);
int dice_stream_produce(struct dice_stream *stream, size_t want);
const u8 *dice_stream_bytes(const struct dice_stream *stream, size_t *len);
size_t dice_stream_consume(struct dice_stream *stream, size_t copied,
			   size_t offered);
int dice_stream_read_chunk(struct dice_stream *stream, struct dice_read *read);
int dice_stream_read(struct dice_stream *stream, u8 *buf, size_t len,
		     size_t *done);
void dice_stream_scrub(struct dice_stream *stream);
void dice_stream_trim(struct dice_stream *stream, unsigned int keep);

size_t dice_stream_room(const struct dice_stream *stream);
size_t dice_stream_write(struct dice_stream *stream, const u8 *buf,
			 size_t len);
int dice_stream_probe(struct dice_stream *stream, bool *wedged);

#endif /* _DICE_CORE_H */
