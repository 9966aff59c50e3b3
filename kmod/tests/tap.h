/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the smallest TAP producer for the userspace test programs
 */
#ifndef _DICE_TAP_H
#define _DICE_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed, tap_case_failed;

/* Record a failed expectation inside the running case, with its location. */
#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		tap_case_failed = 1;					\
		printf("#   %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

static inline void tap_run(const char *name, void (*fn)(void))
{
	tap_case_failed = 0;
	fn();
	tap_count++;
	if (tap_case_failed)
		tap_failed++;
	printf("%s %d - %s\n", tap_case_failed ? "not ok" : "ok", tap_count,
	       name);
	fflush(stdout);
}

static inline int tap_done(const char *suite)
{
	printf("1..%d\n# %s: %d passed, %d failed\n", tap_count, suite,
	       tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* _DICE_TAP_H */
