// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring.c - batched reads through io_uring (skipped without /dev/dice):
 * the ring gives the same distribution as read() (dice_roll()), every
 * roll the module made is either returned or still buffered, and the
 * handle refuses changes while a ring reads it.
 */
#include <errno.h>
#include <stdlib.h>

#include "dice.h"
#include "tap.h"

#define N_ROLLS	1000000

#define NEED_DEVICE() do {						\
	if (!tap_have_device())						\
		SKIP("no /dev/dice (module not loaded)");		\
} while (0)

static int open_ring(struct dice **d, struct dice_ring **r,
		     unsigned int depth, size_t bufsize)
{
	int err = dice_open(d);

	if (err)
		return err;
	err = dice_ring_open(*d, depth, bufsize, r);
	if (err) {
		dice_close(*d);
		*d = NULL;
	}
	return err;
}

static void count(const uint64_t *faces, size_t n, uint64_t *counts,
		  unsigned int k, unsigned int *bad)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (faces[i] < 1 || faces[i] > k)
			(*bad)++;
		else
			counts[faces[i] - 1]++;
	}
}

/*
 * Homogeneity of two samples over @k cells: chi-square with k - 1 degrees
 * of freedom when both come from the same distribution.
 */
static double chi2_two(const uint64_t *a, const uint64_t *b, unsigned int k)
{
	double na = 0, nb = 0, chi2 = 0;
	unsigned int i;

	for (i = 0; i < k; i++) {
		na += a[i];
		nb += b[i];
	}
	for (i = 0; i < k; i++) {
		double t = a[i] + b[i];
		double ea = t * na / (na + nb), eb = t * nb / (na + nb);

		if (t > 0)
			chi2 += (a[i] - ea) * (a[i] - ea) / ea +
				(b[i] - eb) * (b[i] - eb) / eb;
	}
	return chi2;
}

/* Ring against read() on a die of @k sides given by @setup. */
static void compare(unsigned int k, const uint32_t *weights, uint64_t sides)
{
	uint64_t *faces = calloc(N_ROLLS, 8), ca[64] = { 0 }, cb[64] = { 0 };
	uint64_t masses[64], total, n, buffered = 0;
	struct dice *d = NULL, *e = NULL, *u = NULL;
	struct dice_ring *r = NULL;
	struct dice_stats sa, sb;
	unsigned int bad = 0;
	size_t done, i;
	double chi2;
	int err;

	ASSERT_EQ(!!faces, 1);
	ASSERT_EQ(dice_open(&d), 0);
	ASSERT_EQ(dice_open(&e), 0);
	if (weights) {
		ASSERT_EQ(dice_set_weights(d, weights, k), 0);
		ASSERT_EQ(dice_set_weights(e, weights, k), 0);
	} else {
		ASSERT_EQ(dice_set_sides(d, sides), 0);
		ASSERT_EQ(dice_set_sides(e, sides), 0);
	}
	/* The exact masses, from the userspace engine (the device has none). */
	ASSERT_EQ(dice_open_flags(&u, DICE_OPEN_USERSPACE), 0);
	if (weights)
		ASSERT_EQ(dice_set_weights(u, weights, k), 0);
	else
		ASSERT_EQ(dice_set_sides(u, sides), 0);
	ASSERT_EQ(dice_get_masses(u, masses, 64, &n, &total), 0);
	dice_close(u);
	err = dice_ring_open(d, 8, 8192, &r);
	ASSERT_EQ(err, 0);
	/* The ring, in uneven helpings. */
	for (i = 0; i < N_ROLLS; i += done) {
		done = 1 + (i * 7919) % 5000;
		if (done > N_ROLLS - i)
			done = N_ROLLS - i;
		ASSERT_EQ(dice_ring_roll(r, faces + i, done), 0);
	}
	count(faces, N_ROLLS, ca, k, &bad);
	ASSERT_EQ(dice_ring_drain(r, &buffered), 0);
	ASSERT_EQ(dice_get_stats(d, &sa), 0);
	tap_note("ring: %llu rolls made, %d returned, %llu buffered",
		 (unsigned long long)sa.rolls, N_ROLLS,
		 (unsigned long long)buffered);
	EXPECT_EQ(sa.rolls, N_ROLLS + buffered);
	/* read() through dice_roll() */
	ASSERT_EQ(dice_roll(e, faces, N_ROLLS, &done), 0);
	count(faces, N_ROLLS, cb, k, &bad);
	ASSERT_EQ(dice_get_stats(e, &sb), 0);
	EXPECT_EQ(sb.rolls, N_ROLLS);
	EXPECT_EQ(bad, 0);
	chi2 = tap_chi2(ca, masses, total, k, N_ROLLS);
	tap_note("ring against the masses: chi2 %.2f, limit %.2f", chi2,
		 tap_chi2_limit(k - 1));
	EXPECT(chi2 < tap_chi2_limit(k - 1));
	chi2 = tap_chi2(cb, masses, total, k, N_ROLLS);
	tap_note("read() against the masses: chi2 %.2f", chi2);
	EXPECT(chi2 < tap_chi2_limit(k - 1));
	chi2 = chi2_two(ca, cb, k);
	tap_note("ring against read(): chi2 %.2f", chi2);
	EXPECT(chi2 < tap_chi2_limit(k - 1));
	/* Both spend about the same bits per roll. */
	tap_note("bits per roll: ring %.4f, read() %.4f",
		 (double)sa.bits_used / sa.rolls,
		 (double)sb.bits_used / sb.rolls);
	EXPECT(fabs((double)sa.bits_used / sa.rolls -
		    (double)sb.bits_used / sb.rolls) < 0.01);
	dice_ring_close(r);
	ASSERT_EQ(dice_get_stats(d, &sa), 0);
	EXPECT_EQ(sa.rolls, N_ROLLS + buffered);
	dice_close(d);
	dice_close(e);
	free(faces);
}

static void test_fair_d6(void)
{
	NEED_DEVICE();
	compare(6, NULL, 6);
}

static void test_loaded(void)
{
	static const uint32_t w[] = { 2, 2, 6, 1, 1 };

	NEED_DEVICE();
	compare(5, w, 0);
}

/* Accounting holds at any point, with reads in flight and resubmitted. */
static void test_accounting(void)
{
	uint64_t faces[1000], buffered, consumed = 0;
	struct dice_ring *r;
	struct dice_stats st;
	struct dice *d;
	unsigned int i;

	NEED_DEVICE();
	ASSERT_EQ(open_ring(&d, &r, 4, 4096), 0);
	ASSERT_EQ(dice_ring_drain(r, &buffered), 0);
	EXPECT(buffered > 0 && buffered <= 4 * 4096 / 8);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(dice_ring_roll(r, faces, 1 + i * 17), 0);
		consumed += 1 + i * 17;
		ASSERT_EQ(dice_ring_drain(r, &buffered), 0);
		ASSERT_EQ(dice_get_stats(d, &st), 0);
		EXPECT_EQ(st.rolls, consumed + buffered);
	}
	dice_ring_close(r);
	dice_close(d);
}

static void test_busy(void)
{
	static const uint32_t w[] = { 1, 2 };
	struct dice_ring *r, *r2 = (struct dice_ring *)1;
	struct dice_info info;
	struct dice_stats st;
	uint64_t face, thr[1] = { 1 }, masses[6];
	uint32_t alias[1] = { 0 };
	struct dice *d;
	char c;

	NEED_DEVICE();
	ASSERT_EQ(open_ring(&d, &r, 2, 64), 0);
	EXPECT_EQ(dice_ring_open(d, 2, 64, &r2), -EBUSY);
	EXPECT(r2 == NULL);
	EXPECT_EQ(dice_set_sides(d, 7), -EBUSY);
	EXPECT_EQ(dice_set_weights(d, w, 2), -EBUSY);
	EXPECT_EQ(dice_set_alias(d, thr, alias, 1, 1), -EBUSY);
	EXPECT_EQ(dice_set_method(d, DICE_METHOD_RECYCLE), -EBUSY);
	EXPECT_EQ(dice_set_source(d, DICE_SRC_KERNEL), -EBUSY);
	EXPECT_EQ(dice_set_format(d, DICE_FMT_TEXT), -EBUSY);
	EXPECT_EQ(dice_write_bits(d, "x", 1), -EBUSY);
	EXPECT_EQ(dice_roll(d, &face, 1, NULL), -EBUSY);
	EXPECT_EQ(dice_read(d, &c, 1), -EBUSY);
	/* Queries still work. */
	EXPECT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(dice_get_masses(d, masses, 6, NULL, NULL), -EOPNOTSUPP);
	dice_ring_close(r);
	EXPECT_EQ(dice_set_sides(d, 7), 0);
	EXPECT_EQ(dice_roll(d, &face, 1, NULL), 0);
	EXPECT(face >= 1 && face <= 7);
	dice_close(d);
}

static void test_args(void)
{
	struct dice_ring *r;
	struct dice *d;

	NEED_DEVICE();
	ASSERT_EQ(dice_open(&d), 0);
	EXPECT_EQ(dice_ring_open(d, 0, 4096, &r), -EINVAL);
	EXPECT_EQ(dice_ring_open(d, 100000, 4096, &r), -EINVAL);
	EXPECT_EQ(dice_ring_open(d, 4, 0, &r), -EINVAL);
	EXPECT_EQ(dice_ring_open(d, 4, 12, &r), -EINVAL);
	ASSERT_EQ(dice_ring_open(d, 4, 4096, &r), 0);
	EXPECT_EQ(dice_ring_roll(r, NULL, 1), -EINVAL);
	EXPECT_EQ(dice_ring_roll(r, NULL, 0), 0);
	dice_ring_close(r);
	dice_close(d);
}

/* Closing the handle first leaves the ring working on its own file. */
static void test_close_order(void)
{
	uint64_t faces[5000];
	struct dice_ring *r;
	struct dice *d;
	unsigned int i, bad = 0;

	NEED_DEVICE();
	ASSERT_EQ(dice_open(&d), 0);
	ASSERT_EQ(dice_set_sides(d, 100), 0);
	ASSERT_EQ(dice_ring_open(d, 3, 1024, &r), 0);
	dice_close(d);
	ASSERT_EQ(dice_ring_roll(r, faces, 5000), 0);
	for (i = 0; i < 5000; i++)
		bad += faces[i] < 1 || faces[i] > 100;
	EXPECT_EQ(bad, 0);
	dice_ring_close(r);
}

int main(void)
{
	TAP_RUN(test_fair_d6);
	TAP_RUN(test_loaded);
	TAP_RUN(test_accounting);
	TAP_RUN(test_busy);
	TAP_RUN(test_args);
	TAP_RUN(test_close_order);
	return tap_done("ring");
}
