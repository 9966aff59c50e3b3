// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * engine.c - the userspace engine: the module's die core in this process
 *
 * Used only when the caller asks for it: dice_open_flags() with
 * DICE_OPEN_USERSPACE (bits from getrandom()) or dice_open_seeded() (bits
 * from a ChaCha20 keystream keyed by the seed, for tests and replays).
 * The die core (kmod/dice_*.c) is compiled into the library with hidden
 * visibility, and the engine is an open file of it, a struct dice_stream,
 * as each open file of the module is: it samples, accounts, encodes, takes
 * written bits and serves reads exactly as the module does, through the
 * same code.  This file only supplies the bit sources and copies with
 * memcpy() where the module copies to and from userspace.
 *
 * The seeded stream, which replays depend on, is fixed: the ChaCha20 key
 * is the seed as 8 little-endian bytes followed by 24 zero bytes, the
 * 8-byte nonce is zero, blocks are numbered from 0 (the original ChaCha20
 * with a 64-bit block counter), and each 64-bit word of bits is the next 8
 * keystream bytes read little-endian, spent most significant bit first.
 * So is the mapping of bits to faces a seeded engine starts at:
 * DICE_MAPPING_1, how libdice rolled before there were mappings,
 * whatever the core's latest.
 *
 * Sections: bit sources, life cycle, configuration, queries, bits and
 * rolls.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <sodium.h>

#include "internal.h"

/* ---- bit sources --------------------------------------------------------- */

static int dice_fill_getrandom(void *ctx __attribute__((unused)), u64 *words,
			       unsigned int nwords)
{
	unsigned char *p = (unsigned char *)words;
	size_t left = (size_t)nwords * sizeof(*words);

	while (left) {
		ssize_t n = getrandom(p, left, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		left -= n;
	}
	return nwords;
}

static u64 dice_load_le64(const unsigned char *p)
{
	u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int dice_fill_chacha(void *ctx, u64 *words, unsigned int nwords)
{
	static const unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];
	struct dice_engine *e = ctx;
	unsigned int i;

	for (i = 0; i < nwords; i++) {
		if (e->ks_pos == sizeof(e->ks)) {
			memset(e->ks, 0, sizeof(e->ks));
			if (crypto_stream_chacha20_xor_ic(e->ks, e->ks,
							  sizeof(e->ks), nonce,
							  e->block, e->key))
				return -EIO;
			e->block++;
			e->ks_pos = 0;
		}
		words[i] = dice_load_le64(e->ks + e->ks_pos);
		e->ks_pos += 8;
	}
	return nwords;
}

static dice_fill_fn dice_engine_fill(struct dice *d)
{
	if (d->source == DICE_SRC_WRITTEN)
		return NULL;
	return d->eng->seeded ? dice_fill_chacha : dice_fill_getrandom;
}

/*
 * Install a bit source: drop every buffered bit (booked as discarded) and
 * the recycled randomness, so that no roll mixes bits of two sources.
 */
static void dice_engine_source(struct dice *d)
{
	struct dice_engine *e = d->eng;

	dice_stream_set_source(e->stream, dice_engine_fill(d), e);
}

/*
 * Bits from getrandom() buffered before a fork() are in both processes:
 * the child drops them, the randomness they left in the recycler and the
 * binary rolls waiting, rather than roll its parent's faces (as the module
 * does after a VM fork).
 */
static void dice_engine_forked(struct dice *d)
{
	struct dice_engine *e = d->eng;
	pid_t pid;

	if (e->seeded || d->source != DICE_SRC_KERNEL)
		return;
	pid = getpid();
	if (pid != e->pid) {
		e->pid = pid;
		dice_stream_drop_random(e->stream);
	}
}

/* ---- life cycle ------------------------------------------------------------ */

int dice_engine_new(struct dice *d, bool seeded, uint64_t seed)
{
	struct dice_engine *e;
	int i;

	if (seeded && sodium_init() < 0)
		return -EIO;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->seeded = seeded;
	for (i = 0; i < 8; i++)
		e->key[i] = (unsigned char)(seed >> (8 * i));
	e->ks_pos = sizeof(e->ks);
	e->pid = getpid();
	d->eng = e;
	e->stream = dice_stream_alloc(dice_engine_fill(d), e);
	if (!e->stream) {
		free(e);
		d->eng = NULL;
		return -ENOMEM;
	}
	/* A new die rolls by the core's latest mapping: a seed replays by 1. */
	if (seeded)
		return dice_die_set_mapping(dice_stream_die(e->stream),
					    DICE_MAPPING_1);
	return 0;
}

void dice_engine_free(struct dice *d)
{
	struct dice_engine *e = d->eng;

	dice_stream_free(e->stream);
	sodium_memzero(e, sizeof(*e));
	free(e);
	d->eng = NULL;
}

/* ---- configuration ---------------------------------------------------------- */

static struct dice_die *dice_engine_die(struct dice *d)
{
	return dice_stream_die(d->eng->stream);
}

int dice_engine_set_sides(struct dice *d, uint64_t sides)
{
	return dice_stream_set_sides(d->eng->stream, sides);
}

/* Takes @table, even on error. */
int dice_engine_set_table(struct dice *d, struct dice_table *table)
{
	return dice_stream_set_table(d->eng->stream, table);
}

int dice_engine_set_method(struct dice *d, uint32_t method)
{
	return dice_stream_set_method(d->eng->stream, method);
}

int dice_engine_set_source(struct dice *d, uint32_t source)
{
	if (source != DICE_SRC_KERNEL && source != DICE_SRC_WRITTEN)
		return -EINVAL;
	d->source = source;
	dice_engine_source(d);
	d->eng->pid = getpid();
	return 0;
}

int dice_engine_set_format(struct dice *d, uint32_t format)
{
	return dice_stream_set_format(d->eng->stream, format);
}

/*
 * The mapping of bits to faces from the next roll on; the one in use
 * changes nothing, so a replay may name it at any time.  Rolls the old one
 * made and no read has taken yet (text a short dice_read() left) are
 * dropped as a new method drops them, but the rest of a line a read began.
 */
int dice_engine_set_mapping(struct dice *d, uint32_t mapping)
{
	return dice_stream_set_mapping(d->eng->stream, mapping);
}

uint32_t dice_engine_get_mapping(struct dice *d)
{
	return dice_die_get_mapping(dice_engine_die(d));
}

/* ---- queries ------------------------------------------------------------------ */

void dice_engine_get_info(struct dice *d, struct dice_die_info *info)
{
	dice_stream_info(d->eng->stream, info);
}

void dice_engine_get_stats(struct dice *d, struct dice_die_stats *stats)
{
	dice_die_stats(dice_engine_die(d), stats);
}

/* The distribution in lowest terms (the device does not report it). */
int dice_engine_get_masses(struct dice *d, uint64_t *masses,
			   uint64_t capacity, uint64_t *sides,
			   uint64_t *total)
{
	const struct dice_die *die = dice_engine_die(d);
	u64 unit, t, i, n = dice_die_sides(die);
	int err;

	err = dice_die_masses(die, &unit, &t);
	if (err)
		return err;
	if (sides)
		*sides = n;
	if (total)
		*total = t;
	if (n > capacity)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		masses[i] = dice_die_mass(die, unit, i);
	return 0;
}

/* ---- bits and rolls ------------------------------------------------------------ */

/* As the module's write(): whole bytes, while the bit buffer has room. */
long dice_engine_write(struct dice *d, const void *buf, size_t len)
{
	if (d->source != DICE_SRC_WRITTEN)
		return -EINVAL;
	if (!len)
		return 0;
	len = dice_stream_write(d->eng->stream, buf, len);
	return len ? (long)len : -EAGAIN;
}

/* As the module's read(): whole binary rolls, text in whole lines. */
long dice_engine_read(struct dice *d, void *buf, size_t len)
{
	size_t done;
	int err;

	dice_engine_forked(d);
	if (len > LONG_MAX)
		len = LONG_MAX;
	err = dice_stream_read(d->eng->stream, buf, len, &done);
	return done ? (long)done : err;
}
