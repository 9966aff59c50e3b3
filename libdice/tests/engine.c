// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * engine.c - the userspace engine (DICE_OPEN_USERSPACE, getrandom() bits):
 * faces in range and fairly spread, loaded dice by weights and by alias
 * tables, exact masses, accounting, dice_read() in every format, fork().
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "dice.h"
#include "tap.h"

#define N_ROLLS	120000

static struct dice *open_engine(void)
{
	struct dice *d = NULL;
	int err = dice_open_flags(&d, DICE_OPEN_USERSPACE);

	if (err)
		printf("#   dice_open_flags(USERSPACE): %d\n", err);
	return d;
}

static void test_defaults(void)
{
	struct dice *d = open_engine();
	struct dice_info info;
	struct dice_stats stats;

	ASSERT_EQ(!!d, 1);
	EXPECT_EQ(dice_is_userspace(d), 1);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.sides, 6);
	EXPECT_EQ(info.kind, DICE_KIND_FAIR);
	EXPECT_EQ(info.format, DICE_FMT_TEXT);
	EXPECT_EQ(info.method, DICE_METHOD_RECYCLE);
	EXPECT_EQ(info.source, DICE_SRC_KERNEL);
	EXPECT_EQ(info.flags, 0);
	ASSERT_EQ(dice_get_stats(d, &stats), 0);
	EXPECT_EQ(stats.rolls, 0);
	EXPECT_EQ(stats.bits_used, 0);
	dice_close(d);
}

/* Faces of fair dice stay in 1..n, small and huge n alike. */
static void test_fair_range(void)
{
	static const uint64_t sides[] = {
		1, 2, 3, 6, 7, 20, 100, 1000003, (1ULL << 32) + 15,
		(1ULL << 63) + 1, UINT64_MAX,
	};
	uint64_t faces[4096];
	struct dice *d = open_engine();
	unsigned int i, j;

	ASSERT_EQ(!!d, 1);
	for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		size_t done = 99;
		int bad = 0;

		ASSERT_EQ(dice_set_sides(d, sides[i]), 0);
		ASSERT_EQ(dice_roll(d, faces, 4096, &done), 0);
		EXPECT_EQ(done, 4096);
		for (j = 0; j < 4096; j++)
			if (faces[j] < 1 || faces[j] > sides[i])
				bad++;
		if (bad)
			tap_note("d%llu: %d faces out of range",
				 (unsigned long long)sides[i], bad);
		EXPECT_EQ(bad, 0);
	}
	dice_close(d);
}

/* Roll @n times, count faces, compare with the die's exact masses. */
static void check_distribution(struct dice *d, unsigned int k, uint64_t n)
{
	uint64_t *faces = calloc(n, sizeof(*faces));
	uint64_t counts[64] = { 0 }, masses[64], sides = 0, total = 0, i;
	size_t done;
	double chi2;

	ASSERT_EQ(!!faces, 1);
	ASSERT_EQ(dice_get_masses(d, masses, 64, &sides, &total), 0);
	ASSERT_EQ(sides, k);
	EXPECT_EQ(dice_roll(d, faces, n, &done), 0);
	EXPECT_EQ(done, n);
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

static void test_fair_distribution(void)
{
	struct dice *d = open_engine();

	ASSERT_EQ(!!d, 1);
	check_distribution(d, 6, N_ROLLS);
	ASSERT_EQ(dice_set_sides(d, 20), 0);
	check_distribution(d, 20, N_ROLLS);
	dice_close(d);
}

/* Recycling spends about log2(n) bits per roll, all of them accounted. */
static void test_accounting(void)
{
	struct dice *d = open_engine();
	uint64_t *faces = calloc(N_ROLLS, sizeof(*faces));
	struct dice_stats st;
	double h = log2(6) * N_ROLLS;
	size_t done;

	ASSERT_EQ(!!d && !!faces, 1);
	ASSERT_EQ(dice_roll(d, faces, N_ROLLS, &done), 0);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.rolls, N_ROLLS);
	EXPECT(st.bits_used <= st.bits_drawn);
	/* Drawn but unused bits wait in the pool's ring of 8192. */
	EXPECT(st.bits_drawn - st.bits_used <= 8192);
	EXPECT_EQ(st.bits_discarded, 0);
	/* The recycler holds at most 64 bits of entropy between rolls. */
	EXPECT(st.bits_used + 64 >= h);
	EXPECT(st.bits_used <= h + 64 + N_ROLLS * 1e-3);
	tap_note("%llu rolls of a d6: %llu bits used, entropy %.1f",
		 (unsigned long long)st.rolls,
		 (unsigned long long)st.bits_used, h);
	free(faces);
	dice_close(d);
}

static const uint32_t seed_weights[] = { 2, 2, 6, 1, 1 };

static void test_weights(void)
{
	struct dice *d = open_engine();
	struct dice_info info;
	uint64_t masses[5], sides, total;
	unsigned int i;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_weights(d, seed_weights, 5), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.kind, DICE_KIND_LOADED);
	EXPECT_EQ(info.sides, 5);
	ASSERT_EQ(dice_get_masses(d, masses, 5, &sides, &total), 0);
	EXPECT_EQ(sides, 5);
	EXPECT_EQ(total, 12);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(masses[i], seed_weights[i]);
	check_distribution(d, 5, N_ROLLS);
	/* Lowest terms: {4, 8, 12} is {1, 2, 3} out of 6. */
	ASSERT_EQ(dice_set_weights(d, (const uint32_t[]){ 4, 8, 12 }, 3), 0);
	ASSERT_EQ(dice_get_masses(d, masses, 5, &sides, &total), 0);
	EXPECT_EQ(sides, 3);
	EXPECT_EQ(total, 6);
	EXPECT_EQ(masses[0], 1);
	EXPECT_EQ(masses[1], 2);
	EXPECT_EQ(masses[2], 3);
	/* Back to fair. */
	ASSERT_EQ(dice_set_sides(d, 4), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.kind, DICE_KIND_FAIR);
	ASSERT_EQ(dice_get_masses(d, masses, 5, &sides, &total), 0);
	EXPECT_EQ(sides, 4);
	EXPECT_EQ(total, 4);
	EXPECT_EQ(masses[3], 1);
	dice_close(d);
}

/* dice_alias_build() + dice_set_alias() is the same die as the weights. */
static void test_alias_table(void)
{
	static const uint32_t w[] = { 1000000, 500000, 333333, 250000, 200000,
				      166667, 142857, 0, 111111, 100000 };
	uint64_t thr[10], masses[10], wm[10], sides, total, wtotal, mass;
	uint32_t alias[10];
	struct dice *d = open_engine(), *e = open_engine();
	unsigned int i;

	ASSERT_EQ(!!d && !!e, 1);
	ASSERT_EQ(dice_alias_build(w, 10, thr, alias, &mass), 0);
	ASSERT_EQ(dice_set_alias(d, thr, alias, 10, mass), 0);
	ASSERT_EQ(dice_set_weights(e, w, 10), 0);
	ASSERT_EQ(dice_get_masses(d, masses, 10, &sides, &total), 0);
	ASSERT_EQ(dice_get_masses(e, wm, 10, &sides, &wtotal), 0);
	EXPECT_EQ(total, wtotal);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(masses[i], wm[i]);
	EXPECT_EQ(masses[7], 0);
	check_distribution(d, 10, N_ROLLS);
	dice_close(d);
	dice_close(e);
}

static void test_masses_capacity(void)
{
	struct dice *d = open_engine();
	uint64_t masses[2], sides = 0, total = 0;

	ASSERT_EQ(!!d, 1);
	EXPECT_EQ(dice_get_masses(d, NULL, 0, &sides, &total), -ENOSPC);
	EXPECT_EQ(sides, 6);
	EXPECT_EQ(total, 6);
	sides = 0;
	EXPECT_EQ(dice_get_masses(d, masses, 2, &sides, NULL), -ENOSPC);
	EXPECT_EQ(sides, 6);
	EXPECT_EQ(dice_get_masses(d, NULL, 2, &sides, &total), -EINVAL);
	dice_close(d);
}

/* Text: one face per line, lines may be split across reads. */
static void test_read_text(void)
{
	struct dice *d = open_engine();
	char buf[4096], line[32];
	unsigned int len = 0, lines = 0, bad = 0;
	long n, i;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_sides(d, 1000), 0);
	for (i = 0; i < 2000; i++) {
		/* One byte at a time, then larger odd-sized reads. */
		n = dice_read(d, buf, i < 1000 ? 1 : 37);
		ASSERT_EQ(n > 0, 1);
		for (long j = 0; j < n; j++) {
			if (buf[j] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[j];
				continue;
			}
			line[len] = '\0';
			long v = strtol(line, NULL, 10);

			if (v < 1 || v > 1000 || len > 4)
				bad++;
			lines++;
			len = 0;
		}
	}
	EXPECT_EQ(bad, 0);
	EXPECT(lines > 100);
	dice_close(d);
}

static void test_read_binary(void)
{
	struct dice *d = open_engine();
	struct dice_info info;
	struct dice_stats st;
	unsigned char b[600];
	uint16_t h[64];
	unsigned int i, bad = 0;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U8), 0);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.format, DICE_FMT_U8);
	EXPECT_EQ(dice_read(d, b, sizeof(b)), sizeof(b));
	for (i = 0; i < sizeof(b); i++)
		bad += b[i] < 1 || b[i] > 6;
	EXPECT_EQ(bad, 0);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U8 | DICE_FMT_ZERO_BASED), 0);
	EXPECT_EQ(dice_read(d, b, sizeof(b)), sizeof(b));
	for (i = 0; i < sizeof(b); i++)
		bad += b[i] > 5;
	EXPECT_EQ(bad, 0);
	ASSERT_EQ(dice_get_stats(d, &st), 0);
	EXPECT_EQ(st.rolls, 2 * sizeof(b));
	/* A d300 does not fit a byte; the die stays a d6. */
	EXPECT_EQ(dice_set_sides(d, 300), -EOVERFLOW);
	ASSERT_EQ(dice_get_info(d, &info), 0);
	EXPECT_EQ(info.sides, 6);
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U16), 0);
	ASSERT_EQ(dice_set_sides(d, 300), 0);
	EXPECT_EQ(dice_set_format(d, DICE_FMT_U8), -EOVERFLOW);
	/* Whole rolls only. */
	EXPECT_EQ(dice_read(d, h, 1), -EINVAL);
	EXPECT_EQ(dice_read(d, h, 7), 6);
	EXPECT_EQ(dice_read(d, h, sizeof(h)), sizeof(h));
	for (i = 0; i < 64; i++)
		bad += h[i] < 1 || h[i] > 300;
	EXPECT_EQ(bad, 0);
	/* dice_roll() gives 1..n whatever the format. */
	ASSERT_EQ(dice_set_format(d, DICE_FMT_U16 | DICE_FMT_ZERO_BASED), 0);
	{
		uint64_t f[100];

		ASSERT_EQ(dice_roll(d, f, 100, NULL), 0);
		for (i = 0; i < 100; i++)
			bad += f[i] < 1 || f[i] > 300;
		EXPECT_EQ(bad, 0);
	}
	dice_close(d);
}

/* Every method the core has rolls in range and spends bits. */
static void test_methods(void)
{
	static const uint32_t methods[] = {
		DICE_METHOD_RECYCLE, DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH,
		DICE_METHOD_ALIAS, DICE_METHOD_REJECTION,
	};
	struct dice *d = open_engine();
	struct dice_info info;
	unsigned int i;

	ASSERT_EQ(!!d, 1);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(dice_set_sides(d, 6), 0);
		ASSERT_EQ(dice_set_method(d, methods[i]), 0);
		ASSERT_EQ(dice_get_info(d, &info), 0);
		EXPECT_EQ(info.method, methods[i]);
		check_distribution(d, 6, 60000);
	}
	EXPECT_EQ(dice_set_method(d, 5), -EINVAL);
	/* Methods that need a fair die refuse a loaded one, and back. */
	ASSERT_EQ(dice_set_method(d, DICE_METHOD_VIGLIETTA), 0);
	EXPECT_EQ(dice_set_weights(d, seed_weights, 5), -EINVAL);
	ASSERT_EQ(dice_set_method(d, DICE_METHOD_ALIAS), 0);
	ASSERT_EQ(dice_set_weights(d, seed_weights, 5), 0);
	check_distribution(d, 5, 60000);
	EXPECT_EQ(dice_set_method(d, DICE_METHOD_BATCH), -EINVAL);
	EXPECT_EQ(dice_set_method(d, DICE_METHOD_REJECTION), -EINVAL);
	dice_close(d);
}

/* A fork()ed child must not roll the faces its parent rolls next. */
static void test_fork(void)
{
	struct dice *d = open_engine();
	uint64_t mine[64], theirs[64], one;
	int fds[2], status, same = 1;
	size_t got = 0;
	pid_t pid;

	ASSERT_EQ(!!d, 1);
	ASSERT_EQ(dice_set_sides(d, 1ULL << 32), 0);
	ASSERT_EQ(dice_roll(d, &one, 1, NULL), 0);	/* bits now buffered */
	ASSERT_EQ(pipe(fds), 0);
	pid = fork();
	ASSERT_EQ(pid >= 0, 1);
	if (!pid) {
		int err = dice_roll(d, theirs, 64, NULL);

		if (err || write(fds[1], theirs, sizeof(theirs)) != sizeof(theirs))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	EXPECT_EQ(dice_roll(d, mine, 64, NULL), 0);
	while (got < sizeof(theirs)) {
		ssize_t n = read(fds[0], (char *)theirs + got,
				 sizeof(theirs) - got);

		if (n <= 0)
			break;
		got += n;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(got, sizeof(theirs));
	same = !memcmp(mine, theirs, sizeof(mine));
	EXPECT_EQ(same, 0);
	dice_close(d);
}

int main(void)
{
	TAP_RUN(test_defaults);
	TAP_RUN(test_fair_range);
	TAP_RUN(test_fair_distribution);
	TAP_RUN(test_accounting);
	TAP_RUN(test_weights);
	TAP_RUN(test_alias_table);
	TAP_RUN(test_masses_capacity);
	TAP_RUN(test_read_text);
	TAP_RUN(test_read_binary);
	TAP_RUN(test_methods);
	TAP_RUN(test_fork);
	return tap_done("engine");
}
