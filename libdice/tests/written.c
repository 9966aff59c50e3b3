// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * written.c - DICE_SRC_WRITTEN in the userspace engine: faces follow from
 * the bits written, -EAGAIN (with the count done) when they run out, no
 * bit lost over a roll that ran dry, and written bits that are the seeded
 * stream replay the seeded die exactly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <sodium.h>

#include "dice.h"
#include "tap.h"

static struct dice *open_written(void)
{
	struct dice *d = NULL;

	if (dice_open_flags(&d, DICE_OPEN_USERSPACE))
		return NULL;
	if (dice_set_source(d, DICE_SRC_WRITTEN)) {
		dice_close(d);
		return NULL;
	}
	return d;
}

/* A d256 spends 8 bits per roll: each face is a byte written, plus one. */
static void test_bytes_are_faces(void)
{
	static const unsigned char bits[] = { 0x00, 0xff, 0x12, 0x80, 0x7f };
	struct dice *d = open_written();
	struct dice_info info;
	struct dice_stats st;
	uint64_t faces[8];
	size_t done = 99;
	unsigned int i;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.source, DICE_SRC_WRITTEN);
	ASSERT_EQ(dice_set_sides(d, 256), 0);
	EXPECT_EQ(dice_write_bits(d, bits, 3), 3);
	/* Five wanted, three possible. */
	EXPECT_EQ(dice_roll(d, faces, 5, &done), -EAGAIN);
	EXPECT_EQ(done, 3);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(faces[i], bits[i] + 1);
	EXPECT_EQ(dice_roll(d, faces, 1, &done), -EAGAIN);
	EXPECT_EQ(done, 0);
	EXPECT_EQ(dice_write_bits(d, bits + 3, 2), 2);
	EXPECT_EQ(dice_roll(d, faces, 2, &done), 0);
	EXPECT_EQ(done, 2);
	EXPECT_EQ(faces[0], 0x81);
	EXPECT_EQ(faces[1], 0x80);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.rolls, 5);
	EXPECT_EQ(st.bits_used, 40);
	EXPECT_EQ(st.bits_drawn, 40);
	dice_close(d);
}

/* Bits are spent most significant first: a d2 reads them one by one. */
static void test_bit_order(void)
{
	struct dice *d = open_written();
	uint64_t faces[16];
	unsigned int i;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_sides(d, 2), 0);
	EXPECT_EQ(dice_write_bits(d, "\xa5\x0f", 2), 2);
	ASSERT_EQ(dice_roll(d, faces, 16, NULL), 0);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(faces[i] - 1, (0xa50fu >> (15 - i)) & 1);
	dice_close(d);
}

/* A roll that runs dry takes nothing: with more bits it is the same roll. */
static void test_no_bit_lost(void)
{
	unsigned char bits[64];
	uint64_t all[40], piece[40];
	struct dice *d = open_written(), *e = open_written();
	size_t got = 0, done;
	unsigned int i;
	int err;

	ASSERT_EQ(!!d && !!e, 1);
	for (i = 0; i < sizeof(bits); i++)
		bits[i] = (unsigned char)(i * 37 + 11);
	ASSERT_EQ(dice_set_sides(d, 1000003), 0);
	ASSERT_EQ(dice_set_sides(e, 1000003), 0);
	EXPECT_EQ(dice_write_bits(d, bits, sizeof(bits)), sizeof(bits));
	err = dice_roll(d, all, 40, &done);
	EXPECT_EQ(err, -EAGAIN);
	EXPECT(done > 0 && done < 40);
	/* The same bits a byte at a time, rolling whatever each allows. */
	for (i = 0; i < sizeof(bits); i++) {
		EXPECT_EQ(dice_write_bits(e, bits + i, 1), 1);
		err = dice_roll(e, piece + got, 40 - got, &done);
		EXPECT(err == -EAGAIN || err == 0);
		got += done;
	}
	{
		struct dice_stats sd, se;
		size_t dn;

		ASSERT_EQ(dice_get_stats(d, &sd), 0);
		ASSERT_EQ(dice_get_stats(e, &se), 0);
		dn = sd.rolls;
		EXPECT_EQ(got, dn);
		EXPECT(!memcmp(all, piece, dn * 8));
		EXPECT_EQ(sd.bits_used, se.bits_used);
		EXPECT_EQ(sd.bits_drawn, 8 * sizeof(bits));
		EXPECT_EQ(se.bits_drawn, 8 * sizeof(bits));
	}
	dice_close(d);
	dice_close(e);
}

/* The buffer holds some thousand bits; a full one refuses more with -EAGAIN. */
static void test_buffer_full(void)
{
	unsigned char bits[100000] = { 0 };
	struct dice *d = open_written();
	uint64_t face;
	long n;

	ASSERT_EQ(!!d, 1);
	n = dice_write_bits(d, bits, sizeof(bits));
	tap_note("the bit buffer took %ld bytes", n);
	EXPECT(n >= 512 && n < (long)sizeof(bits));
	EXPECT_EQ(n % 8, 0);
	EXPECT_EQ(dice_write_bits(d, bits, 1), -EAGAIN);
	EXPECT_EQ(dice_write_bits(d, bits, 0), 0);
	/* Rolling frees room for more: two rolls of 63 bits free a word. */
	ASSERT_EQ(dice_set_sides(d, 1ULL << 63), 0);
	ASSERT_EQ(dice_roll(d, &face, 1, NULL), 0);
	ASSERT_EQ(dice_roll(d, &face, 1, NULL), 0);
	EXPECT_EQ(dice_write_bits(d, bits, sizeof(bits)), 8);
	EXPECT_EQ(dice_write_bits(d, bits, 1), -EAGAIN);
	dice_close(d);
}

/* Switching back to getrandom() discards the written bits left over. */
static void test_switch_discards(void)
{
	unsigned char bits[100] = { 0 };
	struct dice *d = open_written();
	struct dice_stats st;
	uint64_t face;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_sides(d, 256), 0);
	EXPECT_EQ(dice_write_bits(d, bits, 100), 100);
	ASSERT_EQ(dice_roll(d, &face, 1, NULL), 0);
	ASSERT_EQ(dice_set_source(d, DICE_SRC_KERNEL), 0);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.bits_used, 8);
	EXPECT_EQ(st.bits_discarded, 99 * 8);
	/* Written bits are refused while the source is getrandom(). */
	EXPECT_EQ(dice_write_bits(d, bits, 1), -EINVAL);
	ASSERT_EQ(dice_roll(d, &face, 1, NULL), 0);
	dice_close(d);
}

/*
 * Write the seeded stream (each 8 keystream bytes are a little-endian
 * word spent from the top, so written in reverse) and roll: the faces are
 * the seeded die's, for every method and kind, across many -EAGAIN stops.
 */
static void replay_through_writes(uint64_t seed, uint64_t sides,
				  uint32_t method)
{
	static const unsigned char nonce[8];
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };
	enum { N = 3000 };
	uint64_t *a = calloc(N, 8), *b = calloc(N, 8);
	unsigned char key[32] = { 0 }, block[64], rev[64];
	struct dice *s = NULL, *d = open_written();
	uint64_t blockno = 0;
	size_t got = 0, done;
	unsigned int i;
	int err;

	ASSERT_EQ(!!a && !!b && !!d, 1);
	ASSERT_EQ(sodium_init() >= 0, 1);
	ASSERT_EQ(dice_open_seeded(&s, seed), 0);
	for (i = 0; i < 8; i++)
		key[i] = (unsigned char)(seed >> (8 * i));
	ASSERT_EQ(dice_set_method(s, method), 0);
	ASSERT_EQ(dice_set_method(d, method), 0);
	if (sides) {
		ASSERT_EQ(dice_set_sides(s, sides), 0);
		ASSERT_EQ(dice_set_sides(d, sides), 0);
	} else {
		ASSERT_EQ(dice_set_weights(s, w, 5), 0);
		ASSERT_EQ(dice_set_weights(d, w, 5), 0);
	}
	ASSERT_EQ(dice_roll(s, a, N, NULL), 0);
	while (got < N) {
		memset(block, 0, sizeof(block));
		crypto_stream_chacha20_xor_ic(block, block, 64, nonce,
					      blockno++, key);
		for (i = 0; i < 64; i++)
			rev[i] = block[(i & ~7u) + 7 - (i & 7)];
		for (i = 0; i < 64;) {
			long n = dice_write_bits(d, rev + i, 64 - i);

			if (n == -EAGAIN) {
				err = dice_roll(d, b + got, N - got, &done);
				got += done;
				ASSERT_EQ(err == 0 || err == -EAGAIN, 1);
				if (got == N)
					break;
				continue;
			}
			ASSERT_EQ(n > 0, 1);
			i += n;
		}
		if (got < N) {
			err = dice_roll(d, b + got, N - got, &done);
			ASSERT_EQ(err == 0 || err == -EAGAIN, 1);
			got += done;
		}
	}
	EXPECT(!memcmp(a, b, N * 8));
	dice_close(s);
	dice_close(d);
	free(a);
	free(b);
}

static void test_replay_seeded_stream(void)
{
	static const uint64_t sides[] = { 6, 1000003, (1ULL << 40) + 7, 0 };
	static const uint32_t methods[] = {
		DICE_METHOD_RECYCLE, DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH,
		DICE_METHOD_ALIAS, DICE_METHOD_REJECTION,
	};
	unsigned int i, m;

	for (m = 0; m < 5; m++)
		for (i = 0; i < 4; i++) {
			bool fair_only = methods[m] == DICE_METHOD_VIGLIETTA ||
					 methods[m] == DICE_METHOD_BATCH ||
					 methods[m] == DICE_METHOD_REJECTION;

			if (!sides[i] && fair_only)
				continue;
			replay_through_writes(1234 + i, sides[i], methods[m]);
		}
}

int main(void)
{
	TAP_RUN(test_bytes_are_faces);
	TAP_RUN(test_bit_order);
	TAP_RUN(test_no_bit_lost);
	TAP_RUN(test_buffer_full);
	TAP_RUN(test_switch_discards);
	TAP_RUN(test_replay_seeded_stream);
	return tap_done("written");
}
