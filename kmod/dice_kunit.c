// SPDX-License-Identifier: GPL-2.0
#include <kunit/test.h>
#include "dice_core.h"

static void dice_stub(struct kunit *test)
{
	struct dice_pool pool;
	u64 v;

	dice_pool_init(&pool, NULL, NULL);
	dice_pool_put(&pool, 5, 3);
	KUNIT_EXPECT_EQ(test, dice_pool_take(&pool, 3, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 5);
}

static struct kunit_case dice_cases[] = {
	KUNIT_CASE(dice_stub),
	{}
};

static struct kunit_suite dice_suite = {
	.name = "dice",
	.test_cases = dice_cases,
};
kunit_test_suite(dice_suite);
MODULE_LICENSE("GPL");
