/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dice_fixture.h - shorthands of the out-of-tree selftests: skip a case
 * without /dev/dice, and a fixture that is one open die
 *
 * Kept out of dice_common.h, which the upstream series ships with
 * dice_test.c: a macro that returns through SKIP() and one that declares a
 * fixture with its setup and teardown are not kernel style (checkpatch);
 * dice_test.c spells both out instead.  Include after dice_common.h.
 */
#ifndef _DICE_FIXTURE_H
#define _DICE_FIXTURE_H

/* REQUIRE_DIE() - skip the case when there is no /dev/dice (@fd < 0) */
#define REQUIRE_DIE(fd) do {						\
	if ((fd) < 0)							\
		SKIP(return, "%s is absent", DICE_PATH);		\
} while (0)

/*
 * DIE_FIXTURE() - a fixture that is one die, opened with @flags by its setup
 * (-1 without /dev/dice: REQUIRE_DIE()) and closed by its teardown.  The
 * file may add FIXTURE_VARIANT(@name) and its variants after it.
 */
#define DIE_FIXTURE(name, flags)					\
	FIXTURE(name) {							\
		int fd;							\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->fd = open_die(_metadata, (flags));		\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		if (self->fd >= 0)					\
			close(self->fd);				\
	}

/*
 * VARIANT() - variant @name of fixture @f, its fields the designated
 * initializers that follow: FIXTURE_VARIANT_ADD() on one line, so that a
 * matrix of variants (each method on each die) is one list macro applied
 * once per method.  Follow it with a semicolon.
 */
#define VARIANT(f, name, ...)						\
	FIXTURE_VARIANT_ADD(f, name) { __VA_ARGS__ }

#endif /* _DICE_FIXTURE_H */
