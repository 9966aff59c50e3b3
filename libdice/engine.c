// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * engine.c - the userspace engine: the module's die core in this process
 *
 * Used only when the caller asks for it: dice_open_flags() with
 * DICE_OPEN_USERSPACE (bits from getrandom()) or dice_open_seeded() (bits
 * from a ChaCha20 keystream keyed by the seed, for tests and replays).
 * The die core (kmod/dice_*.c) is compiled into the library with hidden
 * visibility, so the engine samples, accounts and encodes exactly as the
 * module does; this file only supplies the bit sources and what the
 * module's read() and write() do around the core.
 *
 * The seeded stream, which replays depend on, is fixed: the ChaCha20 key
 * is the seed as 8 little-endian bytes followed by 24 zero bytes, the
 * 8-byte nonce is zero, blocks are numbered from 0 (the original ChaCha20
 * with a 64-bit block counter), and each 64-bit word of bits is the next 8
 * keystream bytes read little-endian, spent most significant bit first.
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
	return 0;
}

static u64 dice_load_le64(const unsigned char *p)
{
	u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Written bits are spent in the order written, each byte's MSB first. */
static u64 dice_load_be64(const unsigned char *p)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
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
	return 0;
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

	dice_die_set_source(&e->die, dice_engine_fill(d), e);
}

/*
 * Bits from getrandom() buffered before a fork() are in both processes:
 * the child drops them, and the randomness they left in the recycler,
 * rather than roll its parent's faces.
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
		dice_engine_source(d);
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
	dice_die_init(&e->die, dice_engine_fill(d), e);
	return 0;
}

void dice_engine_free(struct dice *d)
{
	struct dice_engine *e = d->eng;

	dice_die_wipe(&e->die);
	sodium_memzero(e, sizeof(*e));
	free(e);
	d->eng = NULL;
}

/* ---- configuration ---------------------------------------------------------- */

int dice_engine_set_sides(struct dice *d, uint64_t sides)
{
	return dice_die_set_sides(&d->eng->die, sides);
}

/* Takes @table, even on error. */
int dice_engine_set_table(struct dice *d, struct dice_table *table)
{
	return dice_die_set_table(&d->eng->die, table);
}

int dice_engine_set_method(struct dice *d, uint32_t method)
{
	return dice_die_set_method(&d->eng->die, method);
}

int dice_engine_set_source(struct dice *d, uint32_t source)
{
	if (source != DICE_SRC_KERNEL && source != DICE_SRC_WRITTEN)
		return -EINVAL;
	d->source = source;
	dice_engine_source(d);
	d->eng->pid = getpid();
	/* Rolls waiting to be read came from the old source: drop them. */
	d->eng->out_start = d->eng->out_end = 0;
	return 0;
}

int dice_engine_set_format(struct dice *d, uint32_t format)
{
	struct dice_engine *e = d->eng;
	int err = dice_die_set_format(&e->die, format);

	/* Bytes still buffered are in the old encoding: drop them. */
	if (!err)
		e->out_start = e->out_end = 0;
	return err;
}

/* ---- queries ------------------------------------------------------------------ */

void dice_engine_get_info(struct dice *d, struct dice_info *info)
{
	dice_die_info(&d->eng->die, info);
	info->source = d->source;
}

void dice_engine_get_stats(struct dice *d, struct dice_stats *stats)
{
	dice_die_stats(&d->eng->die, stats);
}

/* The distribution in lowest terms, as DICE_IOC_GET_MASSES gives it. */
int dice_engine_get_masses(struct dice *d, uint64_t *masses,
			   uint64_t capacity, uint64_t *sides,
			   uint64_t *total)
{
	const struct dice_die *die = &d->eng->die;
	u64 unit, t, i;
	int err;

	err = dice_die_masses(die, &unit, &t);
	if (err)
		return err;
	if (sides)
		*sides = die->sides;
	if (total)
		*total = t;
	if (die->sides > capacity)
		return -ENOSPC;
	for (i = 0; i < die->sides; i++)
		masses[i] = dice_die_mass(die, unit, i);
	return 0;
}

/* ---- bits and rolls ------------------------------------------------------------ */

/* As the module's write(): whole bytes, while the bit buffer has room. */
long dice_engine_write(struct dice *d, const void *buf, size_t len)
{
	struct dice_pool *pool = &d->eng->die.pool;
	const unsigned char *p = buf;
	size_t room, i;

	if (d->source != DICE_SRC_WRITTEN)
		return -EINVAL;
	if (!len)
		return 0;
	room = dice_pool_room(pool) / 8;
	if (!room)
		return -EAGAIN;
	if (len > room)
		len = room;
	for (i = 0; i + 8 <= len; i += 8)
		dice_pool_put(pool, dice_load_be64(p + i), 64);
	for (; i < len; i++)
		dice_pool_put(pool, p[i], 8);
	return (long)len;
}

int dice_engine_roll(struct dice *d, uint64_t *faces, size_t count,
		     size_t *done)
{
	struct dice_engine *e = d->eng;
	int err = 0;
	size_t i;
	u64 face;

	dice_engine_forked(d);
	/* As on the device, where dice_roll() switches the format. */
	e->out_start = e->out_end = 0;
	for (i = 0; i < count; i++) {
		err = dice_die_roll(&e->die, &face);
		if (err)
			break;
		faces[i] = face + 1;
	}
	*done = i;
	return err;
}

/* Encode rolls into the empty out buffer, as the module's dice_produce(). */
static int dice_engine_produce(struct dice_engine *e, size_t want)
{
	struct dice_die *die = &e->die;
	unsigned int width = dice_format_width(die->format);
	unsigned int end = 0;
	int err = 0;
	u64 face;

	if (width) {
		want -= want % width;
		if (want > DICE_OUT_BYTES)
			want = DICE_OUT_BYTES;
	} else if (want > DICE_OUT_BYTES - DICE_TEXT_MAX) {
		want = DICE_OUT_BYTES - DICE_TEXT_MAX;
	}
	while (end < want) {
		err = dice_die_roll(die, &face);
		if (err)
			break;
		end += dice_format_face(die->format, face, e->out + end);
	}
	e->out_start = 0;
	e->out_end = end;
	return end ? 0 : err;
}

/* As the module's read(): whole binary rolls, text lines split anywhere. */
long dice_engine_read(struct dice *d, void *buf, size_t len)
{
	struct dice_engine *e = d->eng;
	unsigned int width = dice_format_width(e->die.format);
	unsigned char *p = buf;
	size_t done = 0, chunk;
	int err = 0;

	dice_engine_forked(d);
	if (len > LONG_MAX)
		len = LONG_MAX;
	if (width && e->out_start == e->out_end) {
		if (len < width)
			return -EINVAL;
		len -= len % width;
	}
	while (done < len) {
		if (e->out_start == e->out_end) {
			err = dice_engine_produce(e, len - done);
			if (err)
				break;
		}
		chunk = e->out_end - e->out_start;
		if (chunk > len - done)
			chunk = len - done;
		memcpy(p + done, e->out + e->out_start, chunk);
		e->out_start += chunk;
		done += chunk;
	}
	return done ? (long)done : err;
}
