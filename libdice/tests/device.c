// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * device.c - libdice over /dev/dice (skipped without it): every ioctl
 * through the library, dice_roll() against the exact masses, the format
 * the library owns, written bits, and the module and the userspace engine
 * agreeing face for face on the same bits.
 */
#include <errno.h>
#include <stdlib.h>

#include <sodium.h>

#include "dice.h"
#include "tap.h"

#define N_ROLLS	200000

static struct dice *open_device(void)
{
	struct dice *d = NULL;
	int err;

	if (!tap_have_device())
		return NULL;
	err = dice_open(&d);
	if (err)
		printf("#   dice_open: %d\n", err);
	return d;
}

#define NEED_DEVICE(d) do {						\
	if (!tap_have_device())						\
		SKIP("no /dev/dice (module not loaded)");		\
	ASSERT_EQ(!!(d), 1);						\
} while (0)

static void test_open_info(void)
{
	struct dice *d = open_device();
	struct dice_info info;
	struct dice_stats st;

	NEED_DEVICE(d);
	EXPECT_EQ(dice_is_userspace(d), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.sides, 6);
	EXPECT_EQ(info.kind, DICE_KIND_FAIR);
	EXPECT_EQ(info.format, DICE_FMT_TEXT);
	EXPECT_EQ(info.method, DICE_METHOD_RECYCLE);
	EXPECT_EQ(info.source, DICE_SRC_KERNEL);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.rolls, 0);
	dice_close(d);
}

static void check_distribution(struct dice *d, unsigned int k, uint64_t n)
{
	uint64_t *faces = calloc(n, sizeof(*faces));
	uint64_t counts[64] = { 0 }, masses[64], sides = 0, total = 0, i;
	struct dice_stats before, after;
	size_t done;
	double chi2;

	ASSERT_EQ(!!faces, 1);
	ASSERT_EQ(dice_get_masses(d, masses, 64, &sides, &total), 0);
	ASSERT_EQ(sides, k);
	ASSERT_EQ(dice_get_stats(d, &before), 0);
	EXPECT_EQ(dice_roll(d, faces, n, &done), 0);
	EXPECT_EQ(done, n);
	ASSERT_EQ(dice_get_stats(d, &after), 0);
	EXPECT_EQ(after.rolls - before.rolls, n);
	for (i = 0; i < n; i++) {
		if (faces[i] < 1 || faces[i] > k) {
			EXPECT(faces[i] >= 1 && faces[i] <= k);
			break;
		}
		counts[faces[i] - 1]++;
	}
	chi2 = tap_chi2(counts, masses, total, k, n);
	tap_note("d%u: chi2 %.2f, limit %.2f", k, chi2, tap_chi2_limit(k - 1));
	EXPECT(chi2 < tap_chi2_limit(k - 1));
	free(faces);
}

static void test_roll_fair_and_loaded(void)
{
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };
	uint64_t thr[5], masses[5], sides, total, mass;
	uint32_t alias[5];
	struct dice *d = open_device();
	unsigned int i;

	NEED_DEVICE(d);
	check_distribution(d, 6, N_ROLLS);
	ASSERT_EQ(dice_set_sides(d, 20), 0);
	check_distribution(d, 20, N_ROLLS);
	ASSERT_EQ(dice_set_weights(d, w, 5), 0);
	check_distribution(d, 5, N_ROLLS);
	ASSERT_EQ(dice_alias_build(w, 5, thr, alias, &mass), 0);
	ASSERT_EQ(dice_set_sides(d, 6), 0);
	ASSERT_EQ(dice_set_alias(d, thr, alias, 5, mass), 0);
	ASSERT_EQ(dice_get_masses(d, masses, 5, &sides, &total), 0);
	EXPECT_EQ(total, 12);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(masses[i], w[i]);
	check_distribution(d, 5, N_ROLLS);
	EXPECT_EQ(dice_get_masses(d, masses, 4, &sides, &total), -ENOSPC);
	EXPECT_EQ(sides, 5);
	dice_close(d);
}

/* The caller's format survives dice_roll(), which reads U64 underneath. */
static void test_format_owned(void)
{
	struct dice *d = open_device();
	struct dice_info info;
	unsigned char b[64];
	uint64_t faces[10];
	char text[64];
	unsigned int i, bad = 0;

	NEED_DEVICE(d);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U8), 0);
	ASSERT_EQ(dice_roll(d, faces, 10, NULL), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.format, DICE_FMT_U8);
	EXPECT_EQ(dice_read(d, b, sizeof(b)), sizeof(b));
	for (i = 0; i < sizeof(b); i++)
		bad += b[i] < 1 || b[i] > 6;
	EXPECT_EQ(bad, 0);
	/* After a roll the module still checks new dice against U8. */
	ASSERT_EQ(dice_roll(d, faces, 10, NULL), 0);
	EXPECT_EQ(dice_set_sides(d, 300), -EOVERFLOW);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.sides, 6);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_TEXT), 0);
	EXPECT_EQ(dice_read(d, text, sizeof(text)), sizeof(text));
	for (i = 0; i < sizeof(text); i++)
		bad += text[i] != '\n' && (text[i] < '1' || text[i] > '6');
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(dice_set_format(d, 5), -EINVAL);
	dice_close(d);
}

static void test_methods(void)
{
	struct dice *d = open_device();
	struct dice_info info;
	uint32_t m;
	int err;

	NEED_DEVICE(d);
	for (m = DICE_METHOD_RECYCLE; m <= DICE_METHOD_REJECTION; m++) {
		err = dice_set_method(d, m);
		if (err == -ENOTTY)
			SKIP("module without DICE_IOC_SET_METHOD");
		ASSERT_EQ(err, 0);
		ASSERT_EQ(dice_get_info(d, &info), 0);
		EXPECT_EQ(info.method, m);
		check_distribution(d, 6, 60000);
	}
	EXPECT_EQ(dice_set_method(d, 5), -EINVAL);
	dice_close(d);
}

/*
 * The module and the engine run the same core: the same bits written to
 * both give the same faces and the same accounting.
 */
static void compare_written(uint64_t sides, uint32_t method)
{
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };
	enum { N = 2000 };
	struct dice *d = open_device(), *e = NULL;
	uint64_t *a = calloc(N, 8), *b = calloc(N, 8);
	unsigned char bits[64];
	size_t got_a = 0, got_b = 0, done;
	struct dice_stats sa, sb;
	int err, rounds = 0;

	NEED_DEVICE(d);
	ASSERT_EQ(!!a && !!b, 1);
	err = dice_set_source(d, DICE_SRC_WRITTEN);
	if (err == -ENOTTY)
		SKIP("module without DICE_IOC_SET_SOURCE");
	ASSERT_EQ(err, 0);
	ASSERT_EQ(dice_open_flags(&e, DICE_OPEN_USERSPACE), 0);
	ASSERT_EQ(dice_set_source(e, DICE_SRC_WRITTEN), 0);
	ASSERT_EQ(dice_set_method(d, method), 0);
	ASSERT_EQ(dice_set_method(e, method), 0);
	if (sides) {
		ASSERT_EQ(dice_set_sides(d, sides), 0);
		ASSERT_EQ(dice_set_sides(e, sides), 0);
	} else {
		ASSERT_EQ(dice_set_weights(d, w, 5), 0);
		ASSERT_EQ(dice_set_weights(e, w, 5), 0);
	}
	while ((got_a < N || got_b < N) && rounds++ < 100000) {
		randombytes_buf(bits, sizeof(bits));
		ASSERT_EQ(dice_write_bits(d, bits, sizeof(bits)), sizeof(bits));
		ASSERT_EQ(dice_write_bits(e, bits, sizeof(bits)), sizeof(bits));
		err = dice_roll(d, a + got_a, N - got_a, &done);
		ASSERT_EQ(err == 0 || err == -EAGAIN, 1);
		got_a += done;
		err = dice_roll(e, b + got_b, N - got_b, &done);
		ASSERT_EQ(err == 0 || err == -EAGAIN, 1);
		got_b += done;
		ASSERT_EQ(got_a, got_b);
	}
	EXPECT_EQ(got_a, N);
	EXPECT(!memcmp(a, b, N * 8));
	ASSERT_EQ(dice_get_stats(d, &sa), 0);
	ASSERT_EQ(dice_get_stats(e, &sb), 0);
	EXPECT_EQ(sa.rolls, sb.rolls);
	EXPECT_EQ(sa.bits_used, sb.bits_used);
	EXPECT_EQ(sa.bits_drawn, sb.bits_drawn);
	EXPECT_EQ(sa.coin_bits, sb.coin_bits);
	/* With the bits spent, the device says so instead of making more. */
	ASSERT_EQ(dice_set_sides(d, 1ULL << 63), 0);
	while ((err = dice_roll(d, a, 1, &done)) == 0)
		;
	EXPECT_EQ(err, -EAGAIN);
	EXPECT_EQ(done, 0);
	dice_close(d);
	dice_close(e);
	free(a);
	free(b);
}

static void test_written_matches_engine(void)
{
	static const uint64_t sides[] = { 6, 256, 1000003, 0 };
	unsigned int i, m;

	if (!tap_have_device())
		SKIP("no /dev/dice (module not loaded)");
	ASSERT_EQ(sodium_init() >= 0, 1);
	for (m = DICE_METHOD_RECYCLE; m <= DICE_METHOD_REJECTION; m++)
		for (i = 0; i < 4; i++) {
			if (!sides[i] && m != DICE_METHOD_RECYCLE &&
			    m != DICE_METHOD_ALIAS)
				continue;
			compare_written(sides[i], m);
			if (tap_skip_reason[0] || tap_case_failed)
				return;
		}
}

static void test_write_errors(void)
{
	struct dice *d = open_device();
	unsigned char big[100000] = { 0 };
	long n;

	NEED_DEVICE(d);
	/* Written bits are refused while the source is the CRNG. */
	EXPECT_EQ(dice_write_bits(d, big, 1), -EINVAL);
	if (dice_set_source(d, DICE_SRC_WRITTEN) == -ENOTTY)
		SKIP("module without DICE_IOC_SET_SOURCE");
	n = dice_write_bits(d, big, sizeof(big));
	EXPECT(n >= 512 && n < (long)sizeof(big));
	EXPECT_EQ(dice_write_bits(d, big, 1), -EAGAIN);
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_open_info);
	TAP_RUN(test_roll_fair_and_loaded);
	TAP_RUN(test_format_owned);
	TAP_RUN(test_methods);
	TAP_RUN(test_written_matches_engine);
	TAP_RUN(test_write_errors);
	return tap_done("device");
}
