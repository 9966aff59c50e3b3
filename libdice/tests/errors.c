// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errors.c - one case per errno rule of the library: bad arguments give
 * -EINVAL, never a default; a missing /dev/dice gives -ENOENT and a hint,
 * never a silent switch to the userspace engine.
 */
#include <errno.h>
#include <stdlib.h>

#include "dice.h"
#include "tap.h"

static void test_open_device(void)
{
	struct dice *d = (struct dice *)1;
	int err = dice_open(&d);

	if (tap_have_device()) {
		EXPECT_EQ(err, 0);
		EXPECT_EQ(dice_is_userspace(d), 0);
		dice_close(d);
		return;
	}
	/* No module: -ENOENT, no handle, and no engine instead. */
	EXPECT_EQ(err, -ENOENT);
	EXPECT(d == NULL);
	EXPECT(dice_open_hint(err) != NULL);
	EXPECT(strstr(dice_open_hint(err), "modprobe dice") != NULL);
	EXPECT_EQ(dice_open_flags(&d, 0), -ENOENT);
}

static void test_open_args(void)
{
	struct dice *d = (struct dice *)1;

	EXPECT_EQ(dice_open(NULL), -EINVAL);
	EXPECT_EQ(dice_open_flags(NULL, DICE_OPEN_USERSPACE), -EINVAL);
	EXPECT_EQ(dice_open_seeded(NULL, 1), -EINVAL);
	EXPECT_EQ(dice_open_flags(&d, 0x2), -EINVAL);
	EXPECT(d == NULL);
	EXPECT_EQ(dice_open_flags(&d, ~0u), -EINVAL);
	EXPECT(dice_open_hint(0) == NULL);
	EXPECT(dice_open_hint(-EINVAL) == NULL);
	EXPECT(dice_open_hint(-EACCES) != NULL);
	dice_close(NULL);
	dice_ring_close(NULL);
	EXPECT_EQ(dice_is_userspace(NULL), 0);
}

static void test_config_args(void)
{
	uint64_t thr[2] = { 3, 1 }, face;
	uint32_t alias[2] = { 0, 0 }, w[2] = { 0, 0 };
	struct dice_info info;
	struct dice_stats st;
	struct dice *d;

	ASSERT_EQ(dice_open_flags(&d, DICE_OPEN_USERSPACE), 0);
	EXPECT_EQ(dice_set_sides(NULL, 6), -EINVAL);
	EXPECT_EQ(dice_set_sides(d, 0), -EINVAL);
	EXPECT_EQ(dice_set_weights(d, NULL, 2), -EINVAL);
	EXPECT_EQ(dice_set_weights(d, w, 0), -EINVAL);
	EXPECT_EQ(dice_set_weights(d, w, 2), -EINVAL);	/* all zero */
	EXPECT_EQ(dice_set_alias(d, NULL, alias, 2, 3), -EINVAL);
	EXPECT_EQ(dice_set_alias(d, thr, NULL, 2, 3), -EINVAL);
	EXPECT_EQ(dice_set_alias(d, thr, alias, 0, 3), -EINVAL);
	EXPECT_EQ(dice_set_alias(d, thr, alias, 2, 0), -EINVAL);
	EXPECT_EQ(dice_set_alias(d, thr, alias, 2, 2), -EINVAL); /* thr > mass */
	alias[1] = 2;
	EXPECT_EQ(dice_set_alias(d, thr, alias, 2, 3), -EINVAL); /* alias >= n */
	/* Side 0 would collect 2^64 + 2: too much for 64 bits. */
	thr[0] = (1ULL << 63) + 1;
	thr[1] = 0;
	alias[1] = 0;
	EXPECT_EQ(dice_set_alias(d, thr, alias, 2, (1ULL << 63) + 1), -EOVERFLOW);
	EXPECT_EQ(dice_set_method(d, 5), -EINVAL);
	EXPECT_EQ(dice_set_method(d, ~0u), -EINVAL);
	EXPECT_EQ(dice_set_source(d, 2), -EINVAL);
	EXPECT_EQ(dice_set_format(d, 5), -EINVAL);
	EXPECT_EQ(dice_set_format(d, DICE_FMT_U8 | 0x200), -EINVAL);
	EXPECT_EQ(dice_get_info(d, NULL), -EINVAL);
	EXPECT_EQ(dice_get_info(NULL, &info), -EINVAL);
	EXPECT_EQ(dice_get_stats(d, NULL), -EINVAL);
	EXPECT_EQ(dice_get_masses(NULL, NULL, 0, NULL, NULL), -EINVAL);
	/* Nothing above changed the die. */
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.sides, 6);
	EXPECT_EQ(info.kind, DICE_KIND_FAIR);
	EXPECT_EQ(info.method, DICE_METHOD_RECYCLE);
	EXPECT_EQ(info.format, DICE_FMT_TEXT);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.rolls, 0);
	EXPECT_EQ(dice_roll(d, &face, 1, NULL), 0);
	dice_close(d);
}

static void test_roll_args(void)
{
	uint64_t face;
	size_t done = 7;
	char c;
	struct dice *d;

	ASSERT_EQ(dice_open_seeded(&d, 5), 0);
	EXPECT_EQ(dice_roll(NULL, &face, 1, &done), -EINVAL);
	EXPECT_EQ(done, 0);
	EXPECT_EQ(dice_roll(d, NULL, 1, NULL), -EINVAL);
	EXPECT_EQ(dice_roll(d, NULL, 0, &done), 0);
	EXPECT_EQ(dice_roll(d, &face, SIZE_MAX / 4, NULL), -EOVERFLOW);
	EXPECT_EQ(dice_read(d, NULL, 1), -EINVAL);
	EXPECT_EQ(dice_read(d, &c, 0), 0);
	EXPECT_EQ(dice_read(NULL, &c, 1), -EINVAL);
	EXPECT_EQ(dice_write_bits(d, NULL, 1), -EINVAL);
	EXPECT_EQ(dice_write_bits(d, "x", 1), -EINVAL); /* source not written */
	EXPECT_EQ(dice_write_bits(NULL, "x", 1), -EINVAL);
	dice_close(d);
}

static void test_alias_build_args(void)
{
	uint32_t w[3] = { 1, 2, 3 }, z[3] = { 0 }, alias[3];
	uint64_t thr[3], mass;

	EXPECT_EQ(dice_alias_build(NULL, 3, thr, alias, &mass), -EINVAL);
	EXPECT_EQ(dice_alias_build(w, 0, thr, alias, &mass), -EINVAL);
	EXPECT_EQ(dice_alias_build(w, 3, NULL, alias, &mass), -EINVAL);
	EXPECT_EQ(dice_alias_build(w, 3, thr, NULL, &mass), -EINVAL);
	EXPECT_EQ(dice_alias_build(w, 3, thr, alias, NULL), -EINVAL);
	EXPECT_EQ(dice_alias_build(z, 3, thr, alias, &mass), -EINVAL);
	EXPECT_EQ(dice_alias_build(w, 3, thr, alias, &mass), 0);
}

/* Rings read the device: an engine has none. */
static void test_ring_args(void)
{
	struct dice_ring *r = (struct dice_ring *)1;
	uint64_t face;
	struct dice *d;

	ASSERT_EQ(dice_open_flags(&d, DICE_OPEN_USERSPACE), 0);
	EXPECT_EQ(dice_ring_open(d, 4, 4096, &r), -EOPNOTSUPP);
	EXPECT(r == NULL);
	EXPECT_EQ(dice_ring_open(NULL, 4, 4096, &r), -EINVAL);
	EXPECT_EQ(dice_ring_open(d, 4, 4096, NULL), -EINVAL);
	EXPECT_EQ(dice_ring_roll(NULL, &face, 1), -EINVAL);
	EXPECT_EQ(dice_ring_drain(NULL, NULL), -EINVAL);
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_open_device);
	TAP_RUN(test_open_args);
	TAP_RUN(test_config_args);
	TAP_RUN(test_roll_args);
	TAP_RUN(test_alias_build_args);
	TAP_RUN(test_ring_args);
	return tap_done("errors");
}
