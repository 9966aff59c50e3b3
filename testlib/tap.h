/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testlib/tap.h - a small TAP producer for the C tests (the core's in
 * kmod/tests, libdice's)
 *
 * Each test program runs its cases with tap_run() and ends with
 * tap_done(): exit 0 when every case passed or was skipped, 1 when one
 * failed, 4 (kselftest's KSFT_SKIP) when every case was skipped.  Helpers
 * for statistics live here too, so every program judges alike.
 *
 * TAP_ONLY=PATTERN in the environment runs only the cases whose name
 * matches PATTERN (fnmatch(3), a shell pattern: "seeded_*", "*alias*");
 * the others are neither run nor numbered, and tap_done() says how many
 * were left out.  A program none of whose cases match prints "1..0" and
 * exits 0; scripts/check.sh fails a tier in which TAP_ONLY ran no case,
 * so a misspelt filter cannot pass silently.
 */
#ifndef _DICE_TESTLIB_TAP_H
#define _DICE_TESTLIB_TAP_H

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chi2.h"

static int tap_count, tap_failed, tap_skipped, tap_case_failed, tap_left_out;
static char tap_skip_reason[256];

/* Record a failed expectation inside the running case, with its location. */
#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		tap_case_failed = 1;					\
		printf("#   %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

/* Integers (errnos, counts): show both values when they differ. */
#define EXPECT_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		tap_case_failed = 1;					\
		printf("#   %s:%d: expected %s == %s, got %lld and %lld\n", \
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
	}								\
} while (0)

/* Stop the case here: a failed precondition. */
#define ASSERT_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		tap_case_failed = 1;					\
		printf("#   %s:%d: expected %s == %s, got %lld and %lld\n", \
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
		return;							\
	}								\
} while (0)

/* Skip the rest of the case, with a reason. */
#define SKIP(...) do {							\
	snprintf(tap_skip_reason, sizeof(tap_skip_reason), __VA_ARGS__); \
	return;								\
} while (0)

static inline void tap_note(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* TAP_ONLY: is case @name to run? */
static inline int tap_wanted(const char *name)
{
	const char *only = getenv("TAP_ONLY");

	return !only || !*only || fnmatch(only, name, 0) == 0;
}

static inline void tap_run(const char *name, void (*fn)(void))
{
	if (!tap_wanted(name)) {
		tap_left_out++;
		return;
	}
	tap_case_failed = 0;
	tap_skip_reason[0] = '\0';
	fn();
	tap_count++;
	if (tap_case_failed) {
		tap_failed++;
		printf("not ok %d - %s\n", tap_count, name);
	} else if (tap_skip_reason[0]) {
		tap_skipped++;
		printf("ok %d - %s # SKIP %s\n", tap_count, name,
		       tap_skip_reason);
	} else {
		printf("ok %d - %s\n", tap_count, name);
	}
	fflush(stdout);
}

#define TAP_RUN(fn)	tap_run(#fn, fn)

static inline int tap_done(const char *suite)
{
	if (tap_left_out) {
		printf("# %s: TAP_ONLY=%s: %d cases run, %d left out\n", suite,
		       getenv("TAP_ONLY"), tap_count, tap_left_out);
		if (!tap_count) {
			printf("1..0 # SKIP TAP_ONLY=%s matches no case\n",
			       getenv("TAP_ONLY"));
			return 0;
		}
	}
	printf("1..%d\n# %s: %d passed, %d failed, %d skipped\n", tap_count,
	       suite, tap_count - tap_failed - tap_skipped, tap_failed,
	       tap_skipped);
	if (tap_failed)
		return 1;
	return tap_count && tap_skipped == tap_count ? 4 : 0;
}

/* ---- statistics ---------------------------------------------------------- */

/*
 * Pearson's statistic of @counts (@k cells, @n draws) against the exact
 * masses (@masses out of @total): testlib/chi2.h's chi2_pearson().
 */
static inline double tap_chi2(const uint64_t *counts, const uint64_t *masses,
			      uint64_t total, unsigned int k, uint64_t n)
{
	return chi2_pearson(counts, masses, total, k, n);
}

/*
 * Critical value of chi-square with @df degrees of freedom about 5 sigma
 * out (p ~ 3e-7, Wilson-Hilferty: testlib/chi2.h), so a correct sampler
 * fails about once in three million runs.
 */
static inline double tap_chi2_limit(unsigned int df)
{
	return chi2_critical(df, 5.0);
}

static inline int tap_have_device(void)
{
	return access("/dev/dice", F_OK) == 0;
}

#endif /* _DICE_TESTLIB_TAP_H */
