/* SPDX-License-Identifier: GPL-2.0 */
/*
 * splitmix.h - the core tests' seeded bit source: SplitMix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", 2014), one
 * copy for every test that feeds a die whole words like the kernel's CRNG.
 * Not random enough for anything but tests; include after dice_stream.h.
 */
#ifndef _DICE_TESTS_SPLITMIX_H
#define _DICE_TESTS_SPLITMIX_H

#define SPLITMIX_GAMMA	0x9e3779b97f4a7c15ULL

static inline u64 splitmix_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The next word of the stream at *@state. */
static inline u64 splitmix_next(u64 *state)
{
	return splitmix_mix(*state += SPLITMIX_GAMMA);
}

/* Word @j (from 0) of the stream from state 0, read anywhere. */
static inline u64 splitmix_at(u64 j)
{
	return splitmix_mix((j + 1) * SPLITMIX_GAMMA);
}

/* A dice_fill_fn: the stream at the u64 state @ctx points to. */
static inline int splitmix_fill(void *ctx, u64 *words, unsigned int nwords)
{
	unsigned int i;

	for (i = 0; i < nwords; i++)
		words[i] = splitmix_next(ctx);
	return (int)nwords;
}

#endif /* _DICE_TESTS_SPLITMIX_H */
