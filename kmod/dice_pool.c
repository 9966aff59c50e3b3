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
EXPORT_SYMBOL_IF_KUNIT(dice_pool_init);

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
 * Asks the source for every free word of the ring: a batch source fills
 * them all, so it is called once per few thousand bits; the kernel's CRNG
 * gives one word a call, so the pool never holds more than one draw's
 * unspent bits ahead of need.
 *
 * Return: 0, -EAGAIN if the pool has no source, or the source's error.
 */
int dice_pool_refill(struct dice_pool *pool, unsigned int need)
{
	unsigned int nwords, idx, run;
	int got;

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
		got = pool->fill(pool->fill_ctx, &pool->word[idx], run);
		if (got < 0)
			return got;
		if (WARN_ON_ONCE(!got || (unsigned int)got > run))
			return -EIO;
		pool->tail += (u64)got * 64;
		nwords -= got;
		/* A word is at least the 64 bits a take needs. */
		if ((unsigned int)got < run)
			break;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dice_pool_refill);

/**
 * dice_pool_trim() - keep at most @keep unspent bits, drop the others
 * @pool: the pool, at rest (no roll half done: head at the mark)
 * @keep: bits to keep
 *
 * Unspent bits are all alike, so the first ones go: head and mark move on,
 * the bits skipped counted as discarded (used and drawn do not change).
 * dice_pool_scrub() then zeroes them.
 */
void dice_pool_trim(struct dice_pool *pool, unsigned int keep)
{
	u64 excess;

	if (pool->head != pool->mark || pool->tail - pool->head <= keep)
		return;
	excess = pool->tail - pool->head - keep;
	pool->head += excess;
	pool->mark = pool->head;
	pool->discarded += excess;
}

/**
 * dice_pool_scrub() - zero the bits already spent
 * @pool: the pool
 *
 * Every bit before the mark is spent for good (a rollback goes back to the
 * mark, no further): zero them, so that a pool at rest holds no bit it
 * served.  Costs only the words spent since the last scrub.
 */
void dice_pool_scrub(struct dice_pool *pool)
{
	u64 end = pool->mark & ~63ULL;
	u64 live_end = (pool->tail + 63) & ~63ULL;
	unsigned int off = pool->mark % 64;

	/* Words more than a ring behind share their slot with live ones. */
	if (live_end > DICE_POOL_BITS &&
	    pool->scrubbed < live_end - DICE_POOL_BITS)
		pool->scrubbed = live_end - DICE_POOL_BITS;
	for (; pool->scrubbed < end; pool->scrubbed += 64)
		pool->word[(pool->scrubbed / 64) % DICE_POOL_WORDS] = 0;
	if (off)
		pool->word[(end / 64) % DICE_POOL_WORDS] &= ~0ULL >> off;
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
EXPORT_SYMBOL_IF_KUNIT(dice_pool_room);

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
EXPORT_SYMBOL_IF_KUNIT(dice_pool_put);

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
	pool->scrubbed = aligned;
	memzero_explicit(pool->word, sizeof(pool->word));
}
EXPORT_SYMBOL_IF_KUNIT(dice_pool_discard);
