// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * seeded.c - seeded replays: the same seed gives the same faces, for every
 * method and kind of die; another seed gives other faces; the stream is
 * the documented ChaCha20 keystream (a known-answer test pins it).
 */
#include <errno.h>
#include <stdlib.h>

#include "dice.h"
#include "tap.h"

#define N	5000

static const uint32_t seed_weights[] = { 2, 2, 6, 1, 1 };

struct die_spec {
	const char *name;
	uint64_t sides;		/* 0: loaded with seed_weights */
};

static const struct die_spec dice_specs[] = {
	{ "d6", 6 },
	{ "d2", 2 },
	{ "d1000003", 1000003 },
	{ "d2^63+1", (1ULL << 63) + 1 },
	{ "loaded {2,2,6,1,1}", 0 },
};

static const uint32_t methods[] = {
	DICE_METHOD_RECYCLE, DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH,
	DICE_METHOD_ALIAS, DICE_METHOD_REJECTION,
};

/* Configure and roll N faces; 0, or the error of the configuration. */
static int roll_seeded(uint64_t seed, const struct die_spec *s, uint32_t method,
		       uint64_t *faces, struct dice_stats *st)
{
	struct dice *d;
	size_t done;
	int err;

	err = dice_open_seeded(&d, seed);
	if (err)
		return err;
	err = dice_set_method(d, method);
	if (!err)
		err = s->sides ? dice_set_sides(d, s->sides) :
				 dice_set_weights(d, seed_weights, 5);
	if (!err)
		err = dice_roll(d, faces, N, &done);
	if (!err && st)
		err = dice_get_stats(d, st);
	dice_close(d);
	return err;
}

static void test_is_userspace(void)
{
	struct dice *d;

	ASSERT_EQ(dice_open_seeded(&d, 1), 0);
	EXPECT_EQ(dice_is_userspace(d), 1);
	dice_close(d);
}

/* Same seed, same faces and accounting: every method on every die it takes. */
static void test_replay_every_method(void)
{
	uint64_t *a = calloc(N, 8), *b = calloc(N, 8);
	unsigned int i, m, rolled = 0, accepted[5] = { 0 };

	ASSERT_EQ(!!a && !!b, 1);
	for (m = 0; m < 5; m++) {
		for (i = 0; i < sizeof(dice_specs) / sizeof(dice_specs[0]); i++) {
			const struct die_spec *s = &dice_specs[i];
			uint64_t n = s->sides ? s->sides : 5;
			struct dice_stats sa, sb;
			int ea, eb, bad = 0;
			size_t k;

			ea = roll_seeded(42, s, methods[m], a, &sa);
			eb = roll_seeded(42, s, methods[m], b, &sb);
			EXPECT_EQ(ea, eb);
			if (ea == -EINVAL)
				continue;	/* method cannot roll this die */
			ASSERT_EQ(ea, 0);
			accepted[m]++;
			rolled++;
			for (k = 0; k < N; k++)
				bad += a[k] < 1 || a[k] > n;
			EXPECT_EQ(bad, 0);
			if (memcmp(a, b, N * 8))
				tap_note("%s, %s: replay differs", s->name,
					 dice_method_name(methods[m]));
			EXPECT(!memcmp(a, b, N * 8));
			EXPECT_EQ(sa.rolls, N);
			EXPECT_EQ(sa.bits_used, sb.bits_used);
			EXPECT_EQ(sa.bits_drawn, sb.bits_drawn);
			EXPECT_EQ(sa.coin_bits, sb.coin_bits);
		}
	}
	for (m = 0; m < 5; m++) {
		tap_note("%s: replayed on %u dice", dice_method_name(methods[m]),
			 accepted[m]);
		EXPECT(accepted[m] > 0);
	}
	/* Fair-only methods refuse the loaded die; the rest take every die. */
	EXPECT_EQ(accepted[DICE_METHOD_RECYCLE], 5);
	EXPECT_EQ(accepted[DICE_METHOD_ALIAS], 5);
	EXPECT_EQ(accepted[DICE_METHOD_VIGLIETTA], 4);
	EXPECT_EQ(rolled, 5 + 5 + 4 + 4 + 4);
	free(a);
	free(b);
}

/* Another seed, other faces (for every die with enough entropy per roll). */
static void test_other_seed(void)
{
	uint64_t *a = calloc(N, 8), *b = calloc(N, 8);
	unsigned int i, m;

	ASSERT_EQ(!!a && !!b, 1);
	for (m = 0; m < 5; m++) {
		for (i = 0; i < sizeof(dice_specs) / sizeof(dice_specs[0]); i++) {
			if (roll_seeded(42, &dice_specs[i], methods[m], a, NULL))
				continue;
			ASSERT_EQ(roll_seeded(43, &dice_specs[i], methods[m], b,
					      NULL), 0);
			EXPECT(memcmp(a, b, N * 8));
		}
	}
	free(a);
	free(b);
}

/*
 * The documented stream: seed 0 is the all-zero ChaCha20 key and nonce,
 * whose first keystream block is the well-known test vector
 * 76 b8 e0 ad a0 f1 3d 90 | 40 5d 6a e5 53 86 bd 28 | ...
 * Each 8 bytes make a little-endian word whose bits are spent from the top,
 * so a d2^32 (32 bits per roll, no recycling) rolls the words' halves.
 */
static void test_known_answer(void)
{
	static const uint64_t words[] = {
		0x903df1a0ade0b876ULL, 0x28bd8653e56a5d40ULL,
		0x1aed8da0b819d2bdULL, 0xc70d778bccef36a8ULL,
	};
	uint64_t faces[8];
	struct dice *d;
	unsigned int i;

	ASSERT_EQ(dice_open_seeded(&d, 0), 0);
	ASSERT_EQ(dice_set_sides(d, 1ULL << 32), 0);
	ASSERT_EQ(dice_roll(d, faces, 8, NULL), 0);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(faces[2 * i] - 1, words[i] >> 32);
		EXPECT_EQ(faces[2 * i + 1] - 1, words[i] & 0xffffffffULL);
	}
	dice_close(d);
	/* The seed is the key's first 8 bytes, little-endian: seed 1 differs. */
	ASSERT_EQ(dice_open_seeded(&d, 1), 0);
	ASSERT_EQ(dice_set_sides(d, 1ULL << 32), 0);
	ASSERT_EQ(dice_roll(d, faces, 2, NULL), 0);
	EXPECT(faces[0] - 1 != words[0] >> 32);
	dice_close(d);
}

/* A replay is the same whatever the batch sizes of dice_roll(). */
static void test_batch_sizes(void)
{
	uint64_t *a = calloc(N, 8), *b = calloc(N, 8);
	struct dice *d;
	size_t k, step;

	ASSERT_EQ(!!a && !!b, 1);
	ASSERT_EQ(roll_seeded(7, &dice_specs[2], DICE_METHOD_RECYCLE, a, NULL), 0);
	ASSERT_EQ(dice_open_seeded(&d, 7), 0);
	ASSERT_EQ(dice_set_sides(d, 1000003), 0);
	for (k = 0, step = 1; k < N; k += step, step = step % 97 + 1) {
		if (step > N - k)
			step = N - k;
		ASSERT_EQ(dice_roll(d, b + k, step, NULL), 0);
	}
	EXPECT(!memcmp(a, b, N * 8));
	dice_close(d);
	free(a);
	free(b);
}

/* dice_read() of a seeded die encodes the same faces dice_roll() gives. */
static void test_read_matches_roll(void)
{
	uint64_t faces[500], le[500];
	struct dice *d;
	unsigned int i;

	ASSERT_EQ(dice_open_seeded(&d, 9), 0);
	ASSERT_EQ(dice_set_sides(d, 20), 0);
	ASSERT_EQ(dice_roll(d, faces, 500, NULL), 0);
	dice_close(d);
	ASSERT_EQ(dice_open_seeded(&d, 9), 0);
	ASSERT_EQ(dice_set_sides(d, 20), 0);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U64), 0);
	EXPECT_EQ(dice_read(d, le, sizeof(le)), sizeof(le));
	for (i = 0; i < 500; i++)
		EXPECT_EQ(le[i], faces[i]);	/* little-endian host */
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_is_userspace);
	TAP_RUN(test_replay_every_method);
	TAP_RUN(test_other_seed);
	TAP_RUN(test_known_answer);
	TAP_RUN(test_batch_sizes);
	TAP_RUN(test_read_matches_roll);
	return tap_done("seeded");
}
