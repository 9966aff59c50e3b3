// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mapping.c - dice_set_mapping() and dice_get_mapping() on the userspace
 * engines: the default of each kind of engine, set and get, the errors,
 * and the promise to replays: a seeded engine rolls by mapping 1 the faces
 * libdice rolled before there were mappings (known answers recorded from
 * the old code), and mapping 2 other faces only where it says it does.
 * The device's -EOPNOTSUPP is tested with the device (device.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "dice.h"
#include "tap.h"

#define BIG_SIDES	(1U << 17)
#define N_KNOWN		32
#define N_ALIKE		5000

/*
 * The first 32 faces of dice_open_seeded(42) with dice_set_weights() of
 * big_weights() (2^17 sides), recorded from libdice as built at commit
 * e796038 (before there were mappings): a worktree of that commit, its
 * "make -C libdice", and a program that opened, set the weights and made
 * one dice_roll() of 32 faces.  The libdice of commit db4fe16, whose die
 * core is version 0.2's (067bd88), rolled the same.
 */
static const uint64_t big_known[N_KNOWN] = {
	89480, 44613, 81582, 77339, 71135, 61034, 52511, 65092, 72227, 113201,
	8211, 109172, 72511, 5630, 108948, 121418, 28341, 115574, 103126,
	88818, 30724, 102750, 21996, 72011, 72854, 61433, 126676, 109902,
	80539, 126655, 54974, 91711,
};

/*
 * The same for heavy_weights() (17 sides whose weights add up to more
 * than 2^32, more than 2^40 cells: rolled in 128 bits by mapping 1, in 64
 * by mapping 2), seed 42, from the same build.
 */
static const uint64_t heavy_known[N_KNOWN] = {
	12, 16, 10, 5, 10, 15, 6, 2, 6, 6, 8, 11, 13, 6, 17, 17, 7, 14, 6, 1,
	14, 10, 15, 9, 3, 5, 1, 14, 6, 16, 2, 7,
};

/*
 * The first 32 faces of seed 42 for the first 2^15 of big_weights(), under
 * mappings 1 and 2 alike (columns drawn ahead from 2^17 sides only),
 * recorded from libdice as built at commit 585b41c, before mapping 3.
 */
#define MIDDLE_SIDES	(1U << 15)
static const uint64_t middle_known[N_KNOWN] = {
	23944, 19173, 9822, 8079, 21082, 14557, 30937, 18754, 12997, 31010,
	6519, 19412, 4913, 8988, 16942, 25630, 7451, 5512, 16379, 30426,
	20085, 21871, 24449, 23853, 5108, 4337, 331, 25579, 15414, 14699,
	16803, 30042,
};

/* w[i] = 1 + (i * 2654435761 mod 65535): fixed, and far from uniform. */
static uint32_t *big_weights(void)
{
	uint32_t *w = malloc(BIG_SIDES * sizeof(*w));
	uint32_t i;

	if (w)
		for (i = 0; i < BIG_SIDES; i++)
			w[i] = 1 + (uint32_t)((i * 2654435761ULL) % 65535);
	return w;
}

static const uint32_t heavy_weights[17] = {
	3900000000U, 4000000000U, 3800000000U, 4100000000U, 3950000000U,
	3700000000U, 4200000000U, 3850000000U, 4050000000U, 3750000000U,
	4150000000U, 3900000000U, 4000000000U, 3800000000U, 4100000000U,
	3950000000U, 4294967295U,
};

static int mapping_of(struct dice *d)
{
	uint32_t m = 0;
	int err = dice_get_mapping(d, &m);

	return err ? err : (int)m;
}

/* Seeded: mapping 1, for old replays; getrandom(): the latest. */
static void test_defaults(void)
{
	struct dice *d;

	EXPECT_EQ(DICE_MAPPING_1, 1);
	EXPECT_EQ(DICE_MAPPING_2, 2);
	EXPECT_EQ(DICE_MAPPING_3, 3);
	EXPECT_EQ(DICE_MAPPING_LATEST, DICE_MAPPING_3);
	ASSERT_EQ(dice_open_seeded(&d, 42), 0);
	EXPECT_EQ(mapping_of(d), DICE_MAPPING_1);
	dice_close(d);
	ASSERT_EQ(dice_open_flags(&d, DICE_OPEN_USERSPACE), 0);
	EXPECT_EQ(mapping_of(d), DICE_MAPPING_LATEST);
	dice_close(d);
}

/* Each engine takes each mapping, and says so; the die stays as it was. */
static void test_set_get(void)
{
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };
	struct dice_info info;
	struct dice *d;
	uint64_t face;
	int kind;

	for (kind = 0; kind < 2; kind++) {
		if (kind)
			ASSERT_EQ(dice_open_flags(&d, DICE_OPEN_USERSPACE), 0);
		else
			ASSERT_EQ(dice_open_seeded(&d, 3), 0);
		ASSERT_EQ(dice_set_weights(d, w, 5), 0);
		ASSERT_EQ(dice_set_method(d, DICE_METHOD_ALIAS), 0);
		EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_2), 0);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_2);
		EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_3), 0);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_3);
		EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_1), 0);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_1);
		EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_1), 0);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_1);
		EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_LATEST), 0);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_LATEST);
		ASSERT_EQ(dice_get_info(d, &info), 0);
		EXPECT_EQ(info.sides, 5);
		EXPECT_EQ(info.kind, DICE_KIND_LOADED);
		EXPECT_EQ(info.method, DICE_METHOD_ALIAS);
		EXPECT_EQ(dice_roll(d, &face, 1, NULL), 0);
		EXPECT(face >= 1 && face <= 5);
		dice_close(d);
	}
}

/* -EINVAL for no mapping and for NULL, and nothing changes. */
static void test_errors(void)
{
	static const uint32_t bad[] = { 0, DICE_MAPPING_LATEST + 1, 255, ~0u };
	uint32_t m = 7;
	struct dice *d;
	unsigned int i;

	ASSERT_EQ(dice_open_seeded(&d, 1), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(dice_set_mapping(d, bad[i]), -EINVAL);
		EXPECT_EQ(mapping_of(d), DICE_MAPPING_1);
	}
	EXPECT_EQ(dice_set_mapping(NULL, DICE_MAPPING_1), -EINVAL);
	EXPECT_EQ(dice_get_mapping(NULL, &m), -EINVAL);
	EXPECT_EQ(m, 7);
	EXPECT_EQ(dice_get_mapping(d, NULL), -EINVAL);
	dice_close(d);
}

/* @count faces of seed @seed under @mapping (0: the engine's default). */
static int roll_seeded(uint64_t seed, uint32_t mapping, const uint32_t *w,
		       uint32_t sides, uint64_t fair, uint32_t method,
		       uint64_t *faces, size_t count)
{
	struct dice *d;
	int err = dice_open_seeded(&d, seed);

	if (err)
		return err;
	if (mapping)
		err = dice_set_mapping(d, mapping);
	if (!err)
		err = dice_set_method(d, method);
	if (!err && w)
		err = dice_set_weights(d, w, sides);
	else if (!err)
		err = dice_set_sides(d, fair);
	if (!err)
		err = dice_roll(d, faces, count, NULL);
	dice_close(d);
	return err;
}

static unsigned int differ(const uint64_t *a, const uint64_t *b, size_t n)
{
	unsigned int k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += a[i] != b[i];
	return k;
}

/*
 * The replay promise on the dice mapping 2 changes: the seeded default and
 * mapping 1 give the faces recorded from e796038, and mapping 2 others,
 * which mapping 3 keeps (it changes only tables of 2^14 to 2^17 - 1 sides).
 */
static void known_answer(const char *name, const uint32_t *w, uint32_t sides,
			 const uint64_t *known)
{
	uint64_t dflt[N_KNOWN], one[N_KNOWN], two[N_KNOWN], three[N_KNOWN];

	ASSERT_EQ(roll_seeded(42, 0, w, sides, 0, DICE_METHOD_RECYCLE, dflt,
			      N_KNOWN), 0);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_1, w, sides, 0,
			      DICE_METHOD_RECYCLE, one, N_KNOWN), 0);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_2, w, sides, 0,
			      DICE_METHOD_RECYCLE, two, N_KNOWN), 0);
	EXPECT_EQ(differ(dflt, known, N_KNOWN), 0);
	EXPECT_EQ(differ(one, known, N_KNOWN), 0);
	tap_note("%s: mapping 2 differs from mapping 1 in %u of %u faces",
		 name, differ(two, known, N_KNOWN), N_KNOWN);
	EXPECT(differ(two, known, N_KNOWN) > 0);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_3, w, sides, 0,
			      DICE_METHOD_RECYCLE, three, N_KNOWN), 0);
	EXPECT_EQ(differ(three, two, N_KNOWN), 0);
}

/*
 * The promise on the dice mapping 3 changes (2^14 to 2^17 - 1 sides):
 * mappings 1 and 2 give the faces recorded before it, and mapping 3 others.
 */
static void test_known_answer_middle(void)
{
	uint64_t one[N_KNOWN], two[N_KNOWN], three[N_KNOWN];
	uint32_t *w = big_weights();

	ASSERT_EQ(!!w, 1);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_1, w, MIDDLE_SIDES, 0,
			      DICE_METHOD_RECYCLE, one, N_KNOWN), 0);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_2, w, MIDDLE_SIDES, 0,
			      DICE_METHOD_RECYCLE, two, N_KNOWN), 0);
	ASSERT_EQ(roll_seeded(42, DICE_MAPPING_3, w, MIDDLE_SIDES, 0,
			      DICE_METHOD_RECYCLE, three, N_KNOWN), 0);
	free(w);
	EXPECT_EQ(differ(one, middle_known, N_KNOWN), 0);
	EXPECT_EQ(differ(two, middle_known, N_KNOWN), 0);
	tap_note("2^15 sides: mapping 3 differs from mapping 2 in %u of %u faces",
		 differ(three, middle_known, N_KNOWN), N_KNOWN);
	EXPECT(differ(three, middle_known, N_KNOWN) > 0);
}

static void test_known_answer_big(void)
{
	uint32_t *w = big_weights();

	ASSERT_EQ(!!w, 1);
	known_answer("2^17 sides", w, BIG_SIDES, big_known);
	free(w);
}

static void test_known_answer_heavy(void)
{
	known_answer("17 sides, weights over 2^32", heavy_weights, 17,
		     heavy_known);
}

/*
 * What mappings 2 and 3 leave alone: fair dice and small loaded dice roll
 * the same faces under mapping 1 and the latest, by every method that takes
 * them.
 */
static void test_alike(void)
{
	static const uint32_t small[] = { 2, 2, 6, 1, 1 };
	static const uint64_t fair[] = { 6, 20, 1000003, (1ULL << 63) + 1 };
	uint64_t *a = calloc(N_ALIKE, 8), *b = calloc(N_ALIKE, 8);
	uint32_t m, k;
	unsigned int i;
	int ea, eb;

	ASSERT_EQ(!!a && !!b, 1);
	for (m = DICE_METHOD_RECYCLE; m <= DICE_METHOD_REJECTION; m++) {
		for (i = 0; i <= sizeof(fair) / sizeof(fair[0]); i++) {
			const uint32_t *w = i < 4 ? NULL : small;
			uint64_t n = i < 4 ? fair[i] : 0;

			ea = roll_seeded(5, DICE_MAPPING_1, w, 5, n, m, a,
					 N_ALIKE);
			for (k = DICE_MAPPING_2; k <= DICE_MAPPING_LATEST;
			     k++) {
				eb = roll_seeded(5, k, w, 5, n, m, b, N_ALIKE);
				EXPECT_EQ(ea, eb);
				if (ea)
					continue;	/* a fair-only method */
				if (differ(a, b, N_ALIKE))
					tap_note("%s, die %u: mappings 1 and %u differ",
						 dice_method_name(m), i, k);
				EXPECT_EQ(differ(a, b, N_ALIKE), 0);
			}
		}
	}
	free(a);
	free(b);
}

/*
 * Naming the mapping in use changes nothing, even between rolls: the rest
 * of the replay is the one without the call.
 */
static void test_same_mapping_changes_nothing(void)
{
	uint64_t a[200], b[200];
	struct dice *d;

	ASSERT_EQ(roll_seeded(11, 0, NULL, 0, 1000003, DICE_METHOD_RECYCLE, a,
			      200), 0);
	ASSERT_EQ(dice_open_seeded(&d, 11), 0);
	ASSERT_EQ(dice_set_sides(d, 1000003), 0);
	ASSERT_EQ(dice_roll(d, b, 100, NULL), 0);
	EXPECT_EQ(dice_set_mapping(d, DICE_MAPPING_1), 0);
	ASSERT_EQ(dice_roll(d, b + 100, 100, NULL), 0);
	EXPECT_EQ(differ(a, b, 200), 0);
	dice_close(d);
}

/*
 * Read 10 bytes of text of a seeded d2^17 (whole lines: the next line is
 * rolled and waits), then @how: 0 nothing, 1 mapping 2, 2 the same method
 * again and then mapping 2; then read @len bytes into @buf.
 */
static long read_around(int how, char *buf, size_t len)
{
	uint32_t *w = big_weights();
	struct dice *d;
	char first[10];
	long n = -ENOMEM;

	if (!w || dice_open_seeded(&d, 8)) {
		free(w);
		return n;
	}
	n = dice_set_weights(d, w, BIG_SIDES);
	free(w);
	if (!n)
		n = dice_read(d, first, sizeof(first)) > 0 ? 0 : -EIO;
	if (!n && how == 2)
		n = dice_set_method(d, DICE_METHOD_RECYCLE);
	if (!n && how)
		n = dice_set_mapping(d, DICE_MAPPING_2);
	if (!n)
		n = dice_read(d, buf, len);
	dice_close(d);
	return n;
}

/*
 * A line a read left waiting was rolled by the old mapping: a new mapping
 * drops it, as a new method does (dice_set_method(3)), and serves lines of
 * the new one.
 */
static void test_change_drops_waiting_rolls(void)
{
	char none[64], changed[64], method[64];
	long n0, n1, n2;

	n0 = read_around(0, none, sizeof(none));
	n1 = read_around(1, changed, sizeof(changed));
	n2 = read_around(2, method, sizeof(method));
	ASSERT_EQ(n0 > 0 && n1 > 0 && n2 > 0, 1);
	EXPECT_EQ(n1, n2);
	EXPECT(!memcmp(changed, method, n1));
	/* the line that waited is not served after the change */
	tap_note("next line without a change %.*s, after mapping 2 %.*s",
		 (int)(strchr(none, '\n') - none), none,
		 (int)(strchr(changed, '\n') - changed), changed);
	EXPECT(strchr(none, '\n') - none != strchr(changed, '\n') - changed ||
	       memcmp(none, changed, strchr(none, '\n') - none));
}

int main(void)
{
	TAP_RUN(test_defaults);
	TAP_RUN(test_set_get);
	TAP_RUN(test_errors);
	TAP_RUN(test_known_answer_big);
	TAP_RUN(test_known_answer_heavy);
	TAP_RUN(test_known_answer_middle);
	TAP_RUN(test_alike);
	TAP_RUN(test_same_mapping_changes_nothing);
	TAP_RUN(test_change_drops_waiting_rolls);
	return tap_done("mapping");
}
