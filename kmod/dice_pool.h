/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_pool.h - the bit pool: fair bits bought in batches, spent one by
 * one (dice_pool.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_POOL_H
#define _DICE_POOL_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "dice_core.h"

#define DICE_POOL_WORDS		128	/* 8192 bits, a power of two */
#define DICE_POOL_BITS		(DICE_POOL_WORDS * 64)

/* dice_fill_fn, the source of fresh words, is in dice_core.h. */

/**
 * struct dice_pool - bits waiting to be spent
 * @word: ring of bits; stream bit i is bit (63 - i % 64) of word (i / 64)
 * @head: stream position of the next unread bit
 * @tail: stream position just after the last buffered bit
 * @discarded: bits dropped unread by dice_pool_discard()
 * @pad: positions skipped to realign the ring after a discard
 * @mark: bits from here on are kept until dice_pool_commit(), so a roll
 *	that runs out of bits half way can be undone with dice_pool_rollback()
 * @scrubbed: words before this stream position are zeroed
 *	(dice_pool_scrub())
 * @fill: source of more bits; NULL when bits only arrive by dice_pool_put()
 * @fill_ctx: argument for @fill
 */
struct dice_pool {
	u64 word[DICE_POOL_WORDS];
	u64 head;
	u64 tail;
	u64 discarded;
	u64 pad;
	u64 mark;
	u64 scrubbed;
	dice_fill_fn fill;
	void *fill_ctx;
};

void dice_pool_init(struct dice_pool *pool, dice_fill_fn fill, void *ctx);
int dice_pool_refill(struct dice_pool *pool, unsigned int need);
unsigned int dice_pool_room(const struct dice_pool *pool);
void dice_pool_put(struct dice_pool *pool, u64 bits, unsigned int nbits);
void dice_pool_discard(struct dice_pool *pool);
void dice_pool_scrub(struct dice_pool *pool);
void dice_pool_trim(struct dice_pool *pool, unsigned int keep);

static inline void dice_pool_commit(struct dice_pool *pool)
{
	pool->mark = pool->head;
}

static inline void dice_pool_rollback(struct dice_pool *pool)
{
	pool->head = pool->mark;
}

static inline u64 dice_pool_used(const struct dice_pool *pool)
{
	return pool->head - pool->discarded - pool->pad;
}

static inline u64 dice_pool_drawn(const struct dice_pool *pool)
{
	return pool->tail - pool->pad;
}

/* The @nbits (1 to 64) buffered bits at stream position @pos. */
static inline u64 dice_pool_bits_at(const struct dice_pool *pool, u64 pos,
				    unsigned int nbits)
{
	unsigned int idx = (pos / 64) % DICE_POOL_WORDS;
	u128 two = (u128)pool->word[idx] << 64 |
		   pool->word[(idx + 1) % DICE_POOL_WORDS];

	/*
	 * Both words, no branch: whether a take crosses is a coin flip.  The
	 * high word of the pair shifted left by pos % 64 is one double shift
	 * (x86's shld), and -nbits % 64 is 64 - nbits for 1 to 64 bits.
	 */
	return (u64)((two << (pos % 64)) >> 64) >> (-nbits % 64);
}

/**
 * struct dice_reader - a pool's read position held in registers
 * @pool: the pool
 * @head: as the pool's head
 * @mark: as the pool's mark
 * @tail: as the pool's tail, read again after a refill
 *
 * Rolling loops read through a reader so the position is not reloaded and
 * stored around every take (the faces they store may alias the pool); it
 * goes back to the pool around refills and when the loop ends.
 */
struct dice_reader {
	struct dice_pool *pool;
	u64 head;
	u64 mark;
	u64 tail;
};

static __always_inline void dice_reader_open(struct dice_reader *rd,
					     struct dice_pool *pool)
{
	rd->pool = pool;
	rd->head = pool->head;
	rd->mark = pool->mark;
	rd->tail = pool->tail;
}

static __always_inline void dice_reader_close(const struct dice_reader *rd)
{
	rd->pool->head = rd->head;
	rd->pool->mark = rd->mark;
}

/* As dice_pool_commit() and dice_pool_rollback(), on the reader. */
static __always_inline void dice_reader_commit(struct dice_reader *rd)
{
	rd->mark = rd->head;
}

static __always_inline void dice_reader_rollback(struct dice_reader *rd)
{
	rd->head = rd->mark;
}

/* dice_pool_take() of 1 to 64 bits, through the reader. */
static __always_inline int dice_reader_take(struct dice_reader *rd,
					    unsigned int nbits, u64 *out)
{
	if (unlikely(rd->tail - rd->head < nbits)) {
		int err;

		dice_reader_close(rd);
		err = dice_pool_refill(rd->pool, nbits);
		/* A discard realigns both. */
		rd->head = rd->pool->head;
		rd->mark = rd->pool->mark;
		rd->tail = rd->pool->tail;
		if (err)
			return err;
	}
	*out = dice_pool_bits_at(rd->pool, rd->head, nbits);
	rd->head += nbits;
	return 0;
}

/**
 * dice_pool_take() - spend @nbits fair bits
 * @pool: the pool
 * @nbits: 0 to 64
 * @out: the bits, the first one most significant
 *
 * Return: 0, or a negative errno from the source (-EAGAIN when a pool
 * without a source runs dry); on error nothing is consumed.
 */
static inline int dice_pool_take(struct dice_pool *pool, unsigned int nbits,
				 u64 *out)
{
	struct dice_reader rd;
	int err;

	if (unlikely(!nbits)) {
		*out = 0;
		return 0;
	}
	dice_reader_open(&rd, pool);
	err = dice_reader_take(&rd, nbits, out);
	dice_reader_close(&rd);
	return err;
}

/* ---- loop bounds ------------------------------------------------------- */

/*
 * Every loop that draws repeats only after a rejection (or an undecided coin
 * flip), and every repetition spends at least one fresh bit.  One roll takes
 * at most DICE_POOL_BITS bits past the pool's mark (dice_pool_refill()
 * refuses more), and DICE_METHOD_BATCH, which commits its rejected tries,
 * rejects with probability at most 1/2 a try; so DICE_MAX_REJECTS passes are
 * never exceeded by written bits, and by CRNG bits with probability below
 * 2^-8192.  The 128-bit draws and the methods count their passes against
 * it; the 64-bit draw needs m < 2^width on entry instead, which its callers
 * check (see dice_narrow_draw()).  A check that fails has met a broken
 * invariant: it warns once and fails the roll with -EUCLEAN, and the die
 * forgets its recycled state (dice_die.c), so the next roll starts from a
 * valid one.
 */
#define DICE_MAX_REJECTS	DICE_POOL_BITS

static __always_inline bool dice_too_many_rejects(unsigned int *rejects)
{
	return WARN_ON_ONCE(++*rejects > DICE_MAX_REJECTS);
}

#endif /* _DICE_POOL_H */
