// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_pool.c - the bit pool: fair bits bought in batches, spent one by one
 *
 * Sources deliver whole 64-bit words (the CRNG) or bit strings (bits a user
 * wrote, test vectors).  Positions only grow, so "used" and "drawn" fall out
 * of them; a discard realigns the ring to a word boundary and books the gap
 * apart so the accounting stays exact.
 */
#include <linux/string.h>

#include "dice_pool.h"

void dice_pool_init(struct dice_pool *pool, dice_fill_fn fill, void *ctx)
{
	memset(pool, 0, sizeof(*pool));
	pool->fill = fill;
	pool->fill_ctx = ctx;
}

/* Whole words free in the ring: the ones before the mark are spent. */
static unsigned int dice_pool_free_words(const struct dice_pool *pool)
{
	u64 first = pool->mark / 64;
	u64 end = (pool->tail + 63) / 64;

	return DICE_POOL_WORDS - (unsigned int)(end - first);
}

/**
 * dice_pool_refill() - make at least @need bits available
 * @pool: the pool
 * @need: bits wanted in all, at most 64
 *
 * Fills every free word of the ring from the source, so the CRNG is called
 * once per few thousand bits rather than once per roll.
 *
 * Return: 0, -EAGAIN if the pool has no source, or the source's error.
 */
int dice_pool_refill(struct dice_pool *pool, unsigned int need)
{
	unsigned int nwords, idx, run;
	int err;

	if (pool->tail - pool->head >= need)
		return 0;
	if (!pool->fill)
		return -EAGAIN;
	/* A source only appends whole words: realign a partly written tail. */
	if (pool->tail % 64)
		dice_pool_discard(pool);
	nwords = dice_pool_free_words(pool);
	if (!nwords)
		return -ENOBUFS;	/* one roll used a whole ring: never in practice */
	while (nwords) {
		idx = (pool->tail / 64) % DICE_POOL_WORDS;
		run = DICE_POOL_WORDS - idx;
		if (run > nwords)
			run = nwords;
		err = pool->fill(pool->fill_ctx, &pool->word[idx], run);
		if (err)
			return err;
		pool->tail += (u64)run * 64;
		nwords -= run;
	}
	return 0;
}

/**
 * dice_pool_room() - bits that dice_pool_put() can still append
 * @pool: the pool
 *
 * Return: free bits in the ring.
 */
unsigned int dice_pool_room(const struct dice_pool *pool)
{
	return DICE_POOL_BITS - (unsigned int)(pool->tail - (pool->mark & ~63ULL));
}

/**
 * dice_pool_put() - append bits, the first one most significant
 * @pool: the pool
 * @bits: the bits, right-aligned
 * @nbits: 1 to 64, at most dice_pool_room()
 */
void dice_pool_put(struct dice_pool *pool, u64 bits, unsigned int nbits)
{
	while (nbits) {
		unsigned int idx = (pool->tail / 64) % DICE_POOL_WORDS;
		unsigned int off = pool->tail % 64;
		unsigned int run = 64 - off;
		u64 chunk, mask, low;

		if (run > nbits)
			run = nbits;
		low = run == 64 ? ~0ULL : (1ULL << run) - 1;
		chunk = (bits >> (nbits - run)) & low;
		mask = low << (64 - off - run);
		pool->word[idx] = (pool->word[idx] & ~mask) |
				  (chunk << (64 - off - run));
		pool->tail += run;
		nbits -= run;
	}
}

/**
 * dice_pool_discard() - drop every buffered bit, never to be used
 * @pool: the pool
 */
void dice_pool_discard(struct dice_pool *pool)
{
	u64 aligned = (pool->tail + 63) & ~63ULL;

	pool->discarded += pool->tail - pool->head;
	pool->pad += aligned - pool->tail;
	pool->head = aligned;
	pool->tail = aligned;
	pool->mark = aligned;
	memzero_explicit(pool->word, sizeof(pool->word));
}
