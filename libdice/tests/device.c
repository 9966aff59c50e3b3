// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * device.c - libdice over /dev/dice (skipped without it): every ioctl
 * through the library, dice_roll() against the exact masses, the format
 * and method the library sends with the whole die, and the calls that are
 * the userspace engine's only (-EOPNOTSUPP: the source, the masses, the
 * mapping).  The module and the engine
 * agreeing face for face on the same bits is the selftests' business
 * (dice_written_test, through the module's test hook).
 */
#include <errno.h>
#include <stdlib.h>

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

/* @n rolls of @d against the exact masses: side i has @masses[i] / @total. */
static void check_distribution(struct dice *d, unsigned int k, uint64_t n,
			       const uint64_t *masses, uint64_t total)
{
	uint64_t *faces = calloc(n, sizeof(*faces));
	uint64_t counts[64] = { 0 }, i;
	struct dice_stats before, after;
	struct dice_info info;
	size_t done;
	double chi2;

	ASSERT_EQ(!!faces, 1);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	ASSERT_EQ(info.sides, k);
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

static const uint64_t fair_masses[64] = {
	[0 ... 63] = 1,
};

static void check_fair(struct dice *d, unsigned int k, uint64_t n)
{
	check_distribution(d, k, n, fair_masses, k);
}

static void test_roll_fair_and_loaded(void)
{
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };
	static const uint64_t wm[] = { 2, 2, 6, 1, 1 };
	uint64_t thr[5], mass;
	uint32_t alias[5];
	struct dice *d = open_device();
	struct dice_info info;

	NEED_DEVICE(d);
	check_fair(d, 6, N_ROLLS);
	ASSERT_EQ(dice_set_sides(d, 20), 0);
	check_fair(d, 20, N_ROLLS);
	ASSERT_EQ(dice_set_weights(d, w, 5), 0);
	check_distribution(d, 5, N_ROLLS, wm, 12);
	/* A format and a method go with the whole die: the table too. */
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U16), 0);
	ASSERT_EQ(dice_set_method(d, DICE_METHOD_ALIAS), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.kind, DICE_KIND_LOADED);
	EXPECT_EQ(info.method, DICE_METHOD_ALIAS);
	EXPECT_EQ(info.format, DICE_FMT_U16);
	check_distribution(d, 5, N_ROLLS, wm, 12);
	EXPECT_EQ(dice_set_method(d, DICE_METHOD_VIGLIETTA), -EINVAL);
	ASSERT_EQ(dice_set_method(d, DICE_METHOD_RECYCLE), 0);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_TEXT), 0);
	ASSERT_EQ(dice_alias_build(w, 5, thr, alias, &mass), 0);
	ASSERT_EQ(dice_set_sides(d, 6), 0);
	ASSERT_EQ(dice_set_alias(d, thr, alias, 5, mass), 0);
	check_distribution(d, 5, N_ROLLS, wm, 12);
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
	for (m = DICE_METHOD_RECYCLE; m <= DICE_METHOD_ALIAS; m++) {
		err = dice_set_method(d, m);
		ASSERT_EQ(err, 0);
		ASSERT_EQ(dice_get_info(d, &info), 0);
		EXPECT_EQ(info.method, m);
		check_fair(d, 6, 60000);
	}
	/* The baseline is the userspace engine's only. */
	EXPECT_EQ(dice_set_method(d, DICE_METHOD_REJECTION), -EINVAL);
	EXPECT_EQ(dice_set_method(d, 5), -EINVAL);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.method, DICE_METHOD_ALIAS);
	dice_close(d);
}

/*
 * Written bits, the exact masses and the mapping of bits to faces are the
 * userspace engine's: the device takes no bits, reports no masses and
 * rolls by its module's latest mapping, and says so.
 */
static void test_engine_only(void)
{
	struct dice *d = open_device();
	uint64_t masses[6], sides = 0, total = 0;
	struct dice_info info;
	uint32_t mapping = 7;

	NEED_DEVICE(d);
	EXPECT_EQ(dice_set_source(d, DICE_SRC_WRITTEN), -EOPNOTSUPP);
	EXPECT_EQ(dice_set_source(d, DICE_SRC_KERNEL), -EOPNOTSUPP);
	EXPECT_EQ(dice_write_bits(d, "x", 1), -EOPNOTSUPP);
	EXPECT_EQ(dice_get_masses(d, masses, 6, &sides, &total), -EOPNOTSUPP);
	EXPECT_EQ(sides, 0);
	EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_1), -EOPNOTSUPP);
	EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_LATEST), -EOPNOTSUPP);
	EXPECT_EQ(dice_get_mapping(d, &mapping), -EOPNOTSUPP);
	EXPECT_EQ(mapping, 7);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.source, DICE_SRC_KERNEL);
	check_fair(d, 6, 60000);
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_open_info);
	TAP_RUN(test_roll_fair_and_loaded);
	TAP_RUN(test_format_owned);
	TAP_RUN(test_methods);
	TAP_RUN(test_engine_only);
	return tap_done("device");
}
