// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * method.c - dice_method_name() and dice_method_parse(): every method
 * has its name, each name parses back to its method, and nothing else is
 * a method; the name a seeded die reports by GET_INFO is that of the
 * method it was set to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "tap.h"

static const struct {
	uint32_t method;
	const char *name;
} names[] = {
	{ DICE_METHOD_RECYCLE, "recycle" },
	{ DICE_METHOD_VIGLIETTA, "viglietta" },
	{ DICE_METHOD_BATCH, "batch" },
	{ DICE_METHOD_ALIAS, "alias" },
	{ DICE_METHOD_REJECTION, "rejection" },
};
#define N_NAMES	(sizeof(names) / sizeof(names[0]))

static void test_names(void)
{
	size_t i;

	for (i = 0; i < N_NAMES; i++) {
		const char *got = dice_method_name(names[i].method);

		EXPECT(got != NULL && !strcmp(got, names[i].name));
	}
	EXPECT(dice_method_name(N_NAMES) == NULL);
	EXPECT(dice_method_name(~(uint32_t)0) == NULL);
}

static void test_parse(void)
{
	uint32_t m;
	size_t i;

	for (i = 0; i < N_NAMES; i++) {
		m = 99;
		EXPECT_EQ(dice_method_parse(names[i].name, &m), 0);
		EXPECT_EQ(m, names[i].method);
	}
	m = 99;
	EXPECT_EQ(dice_method_parse("Recycle", &m), -EINVAL);
	EXPECT_EQ(dice_method_parse("recycl", &m), -EINVAL);
	EXPECT_EQ(dice_method_parse("recycles", &m), -EINVAL);
	EXPECT_EQ(dice_method_parse("", &m), -EINVAL);
	EXPECT_EQ(dice_method_parse(NULL, &m), -EINVAL);
	EXPECT_EQ(m, 99);
	EXPECT_EQ(dice_method_parse("alias", NULL), -EINVAL);
}

/* Every method a die accepts has a name, and the die reports it. */
static void test_die_reports(void)
{
	struct dice_info info;
	struct dice *d;
	size_t i;

	ASSERT_EQ(dice_open_seeded(&d, 7), 0);
	for (i = 0; i < N_NAMES; i++) {
		EXPECT_EQ(dice_set_method(d, names[i].method), 0);
		EXPECT_EQ(dice_get_info(d, &info), 0);
		EXPECT(dice_method_name(info.method) != NULL &&
		       !strcmp(dice_method_name(info.method), names[i].name));
	}
	EXPECT_EQ(dice_set_method(d, N_NAMES), -EINVAL);
	dice_close(d);
}

int main(void)
{
	printf("TAP version 13\n");
	TAP_RUN(test_names);
	TAP_RUN(test_parse);
	TAP_RUN(test_die_reports);
	return tap_done("method");
}
