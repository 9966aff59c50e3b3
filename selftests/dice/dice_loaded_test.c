// SPDX-License-Identifier: GPL-2.0
/*
 * dice_loaded_test.c - selftests of loaded dice on /dev/dice
 *
 * A loaded die is set by DICE_IOC_SET_WEIGHTS (integer weights) or by
 * DICE_IOC_SET_ALIAS (an alias table made by the caller), and
 * DICE_IOC_GET_MASSES reports back the exact distribution in lowest terms.
 * The file is organised in sections:
 *
 *  - helpers (beyond those of dice_common.h): reading rolls, GET_MASSES,
 *    lowest terms, an integer Vose alias table, the masses an alias table
 *    stands for, entropy and a pooled chi-square;
 *  - round trips: weights and alias tables in, GET_MASSES out;
 *  - errno rules of SET_WEIGHTS, SET_ALIAS and GET_MASSES, every refusal
 *    leaving the die as it was;
 *  - goodness of fit and bits per roll over 10^6 rolls;
 *  - tables swapped while other threads read and query the same file.
 *
 * Every case opens its own file of /dev/dice and is skipped when the device
 * is absent.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements (the check, then a loop
 * that runs the optional TH_LOG() and bails out), so under if, else and for
 * they always go in braces.  Only the thread running a case uses them: the
 * threads it starts report their first failure in their context instead.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"

#define FMT_ZB		DICE_FMT_ZERO_BASED
#define ALL_ONES	(~(__u64)0)

/* The struct ioctls with a struct size other than the header's. */
#define SET_WEIGHTS_SIZED(size) _IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x05, size)
#define SET_ALIAS_SIZED(size)	_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x06, size)
#define GET_MASSES_SIZED(size)	\
	_IOC(_IOC_READ | _IOC_WRITE, DICE_IOC_MAGIC, 0x07, size)
/* The sizes the struct-size cases are written for. */
_Static_assert(sizeof(struct dice_weights) == 16, "dice_weights grew");
_Static_assert(sizeof(struct dice_alias) == 32, "dice_alias grew");
_Static_assert(sizeof(struct dice_masses) == 40, "dice_masses grew");

/* Rolls per goodness-of-fit or bits test, and bytes per read() there. */
#define FIT_ROLLS	1000000
#define FIT_CHUNK	(1 << 20)
/* Standard normal quantile of 1 - 10^-6: a correct die fails once in 10^6. */
#define Z_1E6		4.753
/* Cells are pooled in order until each group expects this many rolls. */
#define MIN_EXPECTED	10.0

/* Marks what the kernel must not write. */
#define POISON		0xa5a5a5a5a5a5a5a5ULL

/* ---- helpers ------------------------------------------------------------- */

/* set_fair() - make @fd a fair d@sides in @fmt, going by text and a d1 */
static void set_fair(struct __test_metadata *_metadata, int fd, __u64 sides,
		     __u32 fmt)
{
	set_format(_metadata, fd, DICE_FMT_TEXT);
	set_sides(_metadata, fd, 1);
	set_format(_metadata, fd, fmt);
	set_sides(_metadata, fd, sides);
}

static void *xcalloc(struct __test_metadata *_metadata, size_t n, size_t size)
{
	void *p = calloc(n, size);

	ASSERT_NE(NULL, p) TH_LOG("calloc %zu x %zu", n, size);
	return p;
}

/**
 * struct table - an alias table as DICE_IOC_SET_ALIAS takes it
 * @sides: number of sides and of columns
 * @mass: mass D of each column
 * @thr: column c yields side c for thr[c] of its D
 * @alias: and alias[c] for the rest
 */
struct table {
	__u32 sides;
	__u64 mass;
	__u64 *thr;
	__u32 *alias;
};

static void table_alloc(struct __test_metadata *_metadata, struct table *t,
			__u32 sides)
{
	t->sides = sides;
	t->mass = 0;
	t->thr = xcalloc(_metadata, sides, sizeof(*t->thr));
	t->alias = xcalloc(_metadata, sides, sizeof(*t->alias));
}

static void table_free(struct table *t)
{
	free(t->thr);
	free(t->alias);
	memset(t, 0, sizeof(*t));
}

static int set_table(int fd, const struct table *t)
{
	return set_alias(fd, t->thr, t->alias, t->mass, t->sides);
}

/*
 * get_masses_poisoned() - GET_MASSES into @masses, the out fields poisoned
 * first: what the module wrote there, even on error
 */
static int get_masses_poisoned(int fd, __u64 *masses, __u64 capacity,
			       __u64 *sides, __u64 *total)
{
	struct dice_masses arg = {
		.masses = (uintptr_t)masses,
		.capacity = capacity,
		.sides = POISON,
		.total = POISON,
	};
	int err = ioctl_errno(fd, DICE_IOC_GET_MASSES, &arg);

	*sides = arg.sides;
	*total = arg.total;
	return err;
}

/* expect_masses() - GET_MASSES gives exactly @want, @n sides, over @total */
static void expect_masses(struct __test_metadata *_metadata, int fd,
			  const __u64 *want, __u64 n, __u64 total)
{
	__u64 *got = xcalloc(_metadata, n + 1, sizeof(*got));
	__u64 sides, sum, i;

	for (i = 0; i <= n; i++)
		got[i] = POISON;
	EXPECT_EQ(0, get_masses_poisoned(fd, got, n + 1, &sides, &sum))
		TH_LOG("GET_MASSES: %s", strerror(errno));
	EXPECT_EQ(n, sides);
	EXPECT_EQ(total, sum);
	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			EXPECT_EQ(want[i], got[i])
				TH_LOG("mass of side %llu", i);
			break;
		}
	}
	EXPECT_EQ(POISON, got[n]) TH_LOG("GET_MASSES wrote past the sides");
	free(got);
}

static void expect_loaded(struct __test_metadata *_metadata, int fd,
			  __u64 sides)
{
	struct dice_info info;

	get_info(_metadata, fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	EXPECT_EQ(sides, info.sides);
}

/*
 * lowest_terms() - @out = @in / gcd(@in) and *@total their sum.
 * Return: false when @in is all zero or the total does not fit 64 bits.
 */
static bool lowest_terms(const __u64 *in, size_t n, __u64 *out, __u64 *total)
{
	unsigned __int128 sum = 0;
	__u64 g = 0;
	size_t i;

	for (i = 0; i < n; i++)
		g = gcd(g, in[i]);
	if (!g)
		return false;
	for (i = 0; i < n; i++) {
		out[i] = in[i] / g;
		sum += out[i];
	}
	*total = (__u64)sum;
	return !(sum >> 64);
}

/* weights_masses() - the distribution of weights @w in lowest terms */
static void weights_masses(struct __test_metadata *_metadata, const __u32 *w,
			   size_t n, __u64 *out, __u64 *total)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = w[i];
	ASSERT_TRUE(lowest_terms(out, n, out, total));
}

/*
 * table_shares() - the mass each side collects over all columns of @t.
 * Return: false if one does not fit 64 bits.
 */
static bool table_shares(const struct table *t, __u64 *share)
{
	__u32 c;

	for (c = 0; c < t->sides; c++)
		share[c] = t->thr[c];
	for (c = 0; c < t->sides; c++) {
		__u64 *s = &share[t->alias[c]];

		if (__builtin_add_overflow(*s, t->mass - t->thr[c], s))
			return false;
	}
	return true;
}

/* table_masses() - the distribution of table @t in lowest terms */
static void table_masses(struct __test_metadata *_metadata,
			 const struct table *t, __u64 *out, __u64 *total)
{
	ASSERT_TRUE(table_shares(t, out));
	ASSERT_TRUE(lowest_terms(out, t->sides, out, total));
}

/*
 * vose_table() - the alias table of weights @w by Vose's method, as the
 * Games::Dice::Loaded seed (Perl) builds it, but in integers: every column
 * holds D = sum(w) and side i brings n * w_i, so no bar is ever rounded.
 * @t must come from table_alloc() with @n sides.
 */
static void vose_table(struct __test_metadata *_metadata, const __u32 *w,
		       __u32 n, struct table *t)
{
	__u32 *small = xcalloc(_metadata, n, sizeof(*small));
	__u32 *large = xcalloc(_metadata, n, sizeof(*large));
	__u32 nsmall = 0, nlarge = 0, i;
	__u64 d = 0;

	for (i = 0; i < n; i++)
		d += w[i];
	t->mass = d;
	for (i = 0; i < n; i++) {
		t->thr[i] = (__u64)n * w[i];
		t->alias[i] = i;
		if (t->thr[i] < d)
			small[nsmall++] = i;
		else
			large[nlarge++] = i;
	}
	while (nsmall && nlarge) {
		__u32 l = small[--nsmall];
		__u32 g = large[--nlarge];

		t->alias[l] = g;
		t->thr[g] -= d - t->thr[l];
		if (t->thr[g] < d)
			small[nsmall++] = g;
		else
			large[nlarge++] = g;
	}
	/* Exact arithmetic leaves no short bar, and every tall one full. */
	EXPECT_EQ(0, nsmall);
	while (nlarge) {
		EXPECT_EQ(d, t->thr[large[--nlarge]]);
	}
	free(small);
	free(large);
}

/* zipf_weights() - w_k = round(10^6 / k) for the faces k = 1..n */
static void zipf_weights(__u32 *w, __u32 n)
{
	__u32 k;

	for (k = 1; k <= n; k++)
		w[k - 1] = (2000000 + k) / (2 * k);
}

/*
 * random_weights() - skewed random weights: a random 32-bit number shifted
 * right by 0 to 31, so they span all magnitudes, and every 101st zero.
 */
static void random_weights(__u32 *w, __u32 n, __u64 seed)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		__u64 x = splitmix(&seed);

		w[i] = i % 101 == 100 ? 0 : (__u32)(x >> 32) >> (x & 31);
	}
}

/* read_u16() - @n rolls of a DICE_FMT_U16 die, @chunk bytes a read() */
static void read_u16(struct __test_metadata *_metadata, int fd, __u16 *rolls,
		     size_t n, size_t chunk)
{
	char *p = (char *)rolls;
	size_t len = n * sizeof(*rolls), i;

	while (len) {
		size_t want = len < chunk ? len : chunk;
		ssize_t ret = read(fd, p, want);

		ASSERT_LT(0, ret) TH_LOG("read %zu: %s", want,
					 ret ? strerror(errno) : "EOF");
		ASSERT_GE(want, (size_t)ret);
		ASSERT_EQ(0, ret % sizeof(*rolls)) TH_LOG("half a roll");
		p += ret;
		len -= ret;
	}
	for (i = 0; i < n; i++)
		rolls[i] = le16toh(rolls[i]);
}

/* entropy() - H(p) in bits of the distribution @m over @total */
static double entropy(const __u64 *m, size_t n, __u64 total)
{
	double h = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double p = (double)m[i] / (double)total;

		if (m[i])
			h -= p * log2(p);
	}
	return h;
}

/*
 * chi_square_pooled() - Pearson's statistic of the counts @obs against the
 * masses @m over @total, with cells pooled in order until each group
 * expects MIN_EXPECTED rolls (a short last group joins the one before).
 * Cells of mass zero are left out: the caller checks that they are empty.
 * *@groups gets the number of groups.
 */
static double chi_square_pooled(const __u64 *obs, const __u64 *m, size_t n,
				__u64 total, __u64 rolls, size_t *groups)
{
	double chi2 = 0, e = 0, o = 0, last_e = 0, last_o = 0;
	size_t k = 0, i;

	for (i = 0; i < n; i++) {
		if (!m[i])
			continue;
		e += (double)rolls * (double)m[i] / (double)total;
		o += (double)obs[i];
		if (e < MIN_EXPECTED)
			continue;
		if (k)
			chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
		last_e = e;
		last_o = o;
		k++;
		e = 0;
		o = 0;
	}
	if (e > 0) {
		if (!k)
			k++;
		last_e += e;
		last_o += o;
	}
	if (k)
		chi2 += (last_o - last_e) * (last_o - last_e) / last_e;
	*groups = k;
	return chi2;
}

/*
 * chi2_critical() - the chi-square quantile of 1 - 10^-6 for @df degrees of
 * freedom, by the Wilson-Hilferty approximation (a little above the exact
 * one for few degrees, so on the safe side).
 */
static double chi2_critical(size_t df)
{
	double a = 2.0 / (9.0 * (double)df);
	double t = 1.0 - a + Z_1E6 * sqrt(a);

	return (double)df * t * t * t;
}

static __u32 max_table_sides(void)
{
	return DICE_TABLE_SIDES_MAX;
}

/* ---- round trips --------------------------------------------------------- */

DIE_FIXTURE(dice, O_RDONLY)

/**
 * struct weights_case - weights and the distribution they stand for
 * @sides: number of weights
 * @w: the weights
 * @m: the masses GET_MASSES reports: @w over their gcd
 * @total: sum of @m
 */
struct weights_case {
	__u32 sides;
	__u32 w[6];
	__u64 m[6];
	__u64 total;
};

static const struct weights_case weights_cases[] = {
	{ 5, { 2, 2, 6, 1, 1 }, { 2, 2, 6, 1, 1 }, 12 },
	{ 3, { 4, 0, 8 }, { 1, 0, 2 }, 3 },
	{ 3, { 7, 7, 7 }, { 1, 1, 1 }, 3 },
	{ 1, { 5 }, { 1 }, 1 },
	{ 3, { 0, 0, 3 }, { 0, 0, 1 }, 1 },
	{ 4, { 12, 18, 0, 30 }, { 2, 3, 0, 5 }, 10 },
	{ 3, { 6, 10, 15 }, { 6, 10, 15 }, 31 },
	{ 2, { 0xffffffff, 1 }, { 0xffffffff, 1 }, POW2(32) },
	{ 2, { 0xffffffff, 0xffffffff }, { 1, 1 }, 2 },
	{ 6, { 1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31, 1u << 31 },
	  { 1, 1, 1, 1, 1, 1 }, 6 },
};

/* expect_faces() - @n rolls of a U16 zero-based die show only massive faces */
static void expect_faces(struct __test_metadata *_metadata, int fd,
			 const __u64 *m, __u64 sides, size_t n)
{
	__u16 *rolls = xcalloc(_metadata, n, sizeof(*rolls));
	size_t i;

	read_u16(_metadata, fd, rolls, n, 65536);
	for (i = 0; i < n; i++) {
		ASSERT_GT(sides, rolls[i]) TH_LOG("roll %zu", i);
		ASSERT_NE(0, m[rolls[i]])
			TH_LOG("roll %zu: face %u has mass 0", i, rolls[i]);
	}
	free(rolls);
}

/* Weights in, weights over their gcd out; zero weights never come up. */
TEST_F(dice, weights_round_trip)
{
	struct dice_info info;
	size_t i;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(weights_cases); i++) {
		const struct weights_case *c = &weights_cases[i];

		ASSERT_EQ(0, set_weights(self->fd, c->w, c->sides))
			TH_LOG("case %zu: %s", i, strerror(errno));
		get_info(_metadata, self->fd, &info);
		EXPECT_EQ(DICE_KIND_LOADED, info.kind) TH_LOG("case %zu", i);
		EXPECT_EQ(c->sides, info.sides) TH_LOG("case %zu", i);
		EXPECT_EQ(DICE_FMT_U16 | FMT_ZB, info.format);
		EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
		expect_masses(_metadata, self->fd, c->m, c->sides, c->total);
		expect_faces(_metadata, self->fd, c->m, c->sides, 4096);
	}
}

/* The same weights as an alias table built in userspace: same masses. */
TEST_F(dice, vose_round_trip)
{
	struct table t;
	size_t i;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(weights_cases); i++) {
		const struct weights_case *c = &weights_cases[i];

		table_alloc(_metadata, &t, c->sides);
		vose_table(_metadata, c->w, c->sides, &t);
		ASSERT_EQ(0, set_table(self->fd, &t))
			TH_LOG("case %zu: %s", i, strerror(errno));
		table_free(&t);
		expect_loaded(_metadata, self->fd, c->sides);
		expect_masses(_metadata, self->fd, c->m, c->sides, c->total);
		expect_faces(_metadata, self->fd, c->m, c->sides, 4096);
	}
}

/*
 * The table Vose's method gives for {2, 2, 6, 1, 1} (n = 5, D = 12): side 2
 * fills every other column, whose own bars are n * w_i = 10, 10, 5 and 5.
 */
TEST_F(dice, vose_table_2_2_6_1_1)
{
	static const __u32 w[] = { 2, 2, 6, 1, 1 };
	static const __u64 thr[] = { 10, 10, 12, 5, 5 };
	static const __u32 alias[] = { 2, 2, 2, 2, 2 };
	static const __u64 m[] = { 2, 2, 6, 1, 1 };
	struct table t;
	__u32 c;

	REQUIRE_DIE(self->fd);
	table_alloc(_metadata, &t, 5);
	vose_table(_metadata, w, 5, &t);
	EXPECT_EQ(12, t.mass);
	for (c = 0; c < 5; c++) {
		EXPECT_EQ(thr[c], t.thr[c]) TH_LOG("column %u", c);
		EXPECT_EQ(alias[c], t.alias[c]) TH_LOG("column %u", c);
	}
	table_free(&t);
	ASSERT_EQ(0, set_alias(self->fd, thr, alias, 12, 5))
		TH_LOG("SET_ALIAS: %s", strerror(errno));
	expect_loaded(_metadata, self->fd, 5);
	expect_masses(_metadata, self->fd, m, 5, 12);
}

/**
 * struct alias_case - an alias table and the distribution it stands for
 * @what: what is special about it
 * @sides: number of columns
 * @mass: D
 * @thr: thresholds
 * @alias: aliases
 * @m: the masses in lowest terms
 * @total: sum of @m
 */
struct alias_case {
	const char *what;
	__u32 sides;
	__u64 mass;
	__u64 thr[4];
	__u32 alias[4];
	__u64 m[4];
	__u64 total;
};

static const struct alias_case alias_cases[] = {
	{ "aliases to their own column", 3, 10,
	  { 3, 10, 0 }, { 0, 0, 2 }, { 1, 1, 1 }, 3 },
	{ "full columns, aliases elsewhere", 4, 9,
	  { 9, 9, 9, 9 }, { 3, 2, 1, 0 }, { 1, 1, 1, 1 }, 4 },
	{ "empty columns", 4, 7,
	  { 0, 0, 0, 0 }, { 1, 1, 1, 3 }, { 0, 3, 0, 1 }, 4 },
	{ "mass 1", 3, 1,
	  { 1, 0, 0 }, { 0, 0, 1 }, { 2, 1, 0 }, 3 },
	{ "one column", 1, 5,
	  { 0 }, { 0 }, { 1 }, 1 },
	{ "mixed", 4, 12,
	  { 12, 3, 7, 0 }, { 2, 0, 3, 1 }, { 21, 15, 7, 5 }, 48 },
	{ "mass 2^63, total 2^64", 2, POW2(63),
	  { POW2(62), POW2(63) }, { 1, 1 }, { 1, 3 }, 4 },
	{ "mass 2^64 - 1", 1, ALL_ONES,
	  { ALL_ONES }, { 0 }, { 1 }, 1 },
	{ "mass 2^64 - 1, two columns", 2, ALL_ONES,
	  { ALL_ONES, 0 }, { 0, 1 }, { 1, 1 }, 2 },
	{ "thresholds 2^64 - 2 of 2^64 - 1, crossed", 2, ALL_ONES,
	  { ALL_ONES - 1, ALL_ONES - 1 }, { 1, 0 }, { 1, 1 }, 2 },
};

/* Hand-made tables: self aliases, full and empty columns, extreme masses. */
TEST_F(dice, alias_round_trip)
{
	size_t i;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(alias_cases); i++) {
		const struct alias_case *c = &alias_cases[i];

		ASSERT_EQ(0, set_alias(self->fd, c->thr, c->alias, c->mass,
				       c->sides))
			TH_LOG("%s: %s", c->what, strerror(errno));
		expect_loaded(_metadata, self->fd, c->sides);
		expect_masses(_metadata, self->fd, c->m, c->sides, c->total);
		expect_faces(_metadata, self->fd, c->m, c->sides, 4096);
	}
}

/* A random 1000-column table with D = 2^40-ish, self aliases, full and
 * empty columns: GET_MASSES gives what the columns add up to.
 */
TEST_F(dice, alias_random_round_trip)
{
	const __u32 n = 1000;
	__u64 seed = 0xd1ceULL, total, *m;
	struct table t;
	__u32 c;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	table_alloc(_metadata, &t, n);
	m = xcalloc(_metadata, n, sizeof(*m));
	t.mass = (splitmix(&seed) >> 24) | 1;
	for (c = 0; c < n; c++) {
		__u64 x = splitmix(&seed), y = splitmix(&seed);

		if (c % 7 == 0)
			t.thr[c] = t.mass;
		else if (c % 11 == 0)
			t.thr[c] = 0;
		else
			t.thr[c] = x % (t.mass + 1);
		t.alias[c] = c % 13 == 0 ? c : y % n;
	}
	table_masses(_metadata, &t, m, &total);
	ASSERT_EQ(0, set_table(self->fd, &t)) TH_LOG("%s", strerror(errno));
	expect_loaded(_metadata, self->fd, n);
	expect_masses(_metadata, self->fd, m, n, total);
	expect_faces(_metadata, self->fd, m, n, 65536);
	table_free(&t);
	free(m);
}

/* A fair die has n masses of 1; SET_SIDES turns a loaded die fair again. */
TEST_F(dice, fair_masses)
{
	static const __u32 w[] = { 1, 2, 3 };
	__u64 ones[20], m[4] = { POISON, POISON, POISON, POISON };
	__u64 sides, total;
	struct dice_info info;
	size_t i;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(ones); i++)
		ones[i] = 1;
	expect_masses(_metadata, self->fd, ones, 6, 6);
	set_sides(_metadata, self->fd, 20);
	expect_masses(_metadata, self->fd, ones, 20, 20);
	set_sides(_metadata, self->fd, 1);
	expect_masses(_metadata, self->fd, ones, 1, 1);

	ASSERT_EQ(0, set_weights(self->fd, w, 3));
	expect_loaded(_metadata, self->fd, 3);
	set_sides(_metadata, self->fd, 6);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(6, info.sides);
	expect_masses(_metadata, self->fd, ones, 6, 6);

	/* The largest fair die cannot list its masses, but tells its size. */
	set_sides(_metadata, self->fd, DICE_MAX_FAIR_SIDES);
	EXPECT_EQ(ENOSPC, get_masses_poisoned(self->fd, m, 4, &sides, &total));
	EXPECT_EQ(DICE_MAX_FAIR_SIDES, sides);
	EXPECT_EQ(DICE_MAX_FAIR_SIDES, total);
	EXPECT_EQ(POISON, m[0]);
}

/* A die of exactly DICE_TABLE_SIDES_MAX sides is fine, by weights and by table. */
TEST_F_TIMEOUT(dice, max_sides_accepted, 60)
{
	__u32 n = max_table_sides(), i;
	__u64 *m, total;
	struct table t;
	__u32 *w;

	REQUIRE_DIE(self->fd);
	w = xcalloc(_metadata, n, sizeof(*w));
	m = xcalloc(_metadata, n, sizeof(*m));
	for (i = 0; i < n; i++)
		w[i] = i % 7 * 2;	/* gcd 2; faces 0, 7, 14, ... never */
	ASSERT_EQ(0, set_weights(self->fd, w, n))
		TH_LOG("%u weights: %s", n, strerror(errno));
	expect_loaded(_metadata, self->fd, n);
	weights_masses(_metadata, w, n, m, &total);
	expect_masses(_metadata, self->fd, m, n, total);

	table_alloc(_metadata, &t, n);
	t.mass = 3;
	for (i = 0; i < n; i++) {
		t.thr[i] = i % 4;
		t.alias[i] = n - 1 - i;
	}
	ASSERT_EQ(0, set_table(self->fd, &t))
		TH_LOG("%u columns: %s", n, strerror(errno));
	expect_loaded(_metadata, self->fd, n);
	table_masses(_metadata, &t, m, &total);
	expect_masses(_metadata, self->fd, m, n, total);
	table_free(&t);
	free(m);
	free(w);
}

/* ---- errno rules --------------------------------------------------------- */

/*
 * Each case starts from a loaded die {1, 2, 3} and checks that every
 * refused ioctl leaves the die (GET_INFO and GET_MASSES) as it was.
 * @map: two pages, the first read-write, the second PROT_NONE at @fault,
 * for user buffers that start readable and run into a fault.
 */
FIXTURE(dice_err) {
	int fd;
	size_t page;
	char *map;
	char *fault;
};

static const __u32 base_w[] = { 1, 2, 3 };

FIXTURE_SETUP(dice_err)
{
	self->map = MAP_FAILED;
	self->page = getpagesize();
	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd < 0)
		return;
	self->map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->fault = self->map + self->page;
	ASSERT_EQ(0, mprotect(self->fault, self->page, PROT_NONE));
	ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
}

FIXTURE_TEARDOWN(dice_err)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, 2 * self->page);
	if (self->fd >= 0)
		close(self->fd);
}

/**
 * struct die_state - what a refused ioctl must leave alone
 * @info: GET_INFO
 * @err: GET_MASSES's errno
 * @sides: its sides
 * @total: its total
 * @m: its masses, if at most 8
 */
struct die_state {
	struct dice_info info;
	int err;
	__u64 sides;
	__u64 total;
	__u64 m[8];
};

static void die_state(struct __test_metadata *_metadata, int fd,
		      struct die_state *s)
{
	memset(s, 0, sizeof(*s));
	get_info(_metadata, fd, &s->info);
	s->err = get_masses_poisoned(fd, s->m, ARRAY_SIZE(s->m), &s->sides,
				     &s->total);
}

/* expect_refused() - @cmd on @arg fails with @err and changes nothing */
static void expect_refused(struct __test_metadata *_metadata, int fd,
			   unsigned long cmd, void *arg, int err,
			   const char *what)
{
	struct die_state before, after;

	die_state(_metadata, fd, &before);
	EXPECT_EQ(err, ioctl_errno(fd, cmd, arg))
		TH_LOG("%s: want %s, got %s", what, strerror(err),
		       strerror(errno));
	die_state(_metadata, fd, &after);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)))
		TH_LOG("%s changed the die", what);
}

/*
 * expect_array_efault() - @cmd fails with EFAULT and changes nothing when
 * the array of @arg at @ptr is NULL, in the PROT_NONE page, or @len bytes
 * of @head (any bytes if NULL) that run into it
 */
static void expect_array_efault(struct __test_metadata *_metadata,
				FIXTURE_DATA(dice_err) *self,
				unsigned long cmd, void *arg, __u64 *ptr,
				const char *name, const void *head, size_t len)
{
	char what[64];

	*ptr = 0;
	snprintf(what, sizeof(what), "NULL %s", name);
	expect_refused(_metadata, self->fd, cmd, arg, EFAULT, what);
	*ptr = (uintptr_t)self->fault;
	snprintf(what, sizeof(what), "PROT_NONE %s", name);
	expect_refused(_metadata, self->fd, cmd, arg, EFAULT, what);
	if (head)
		memcpy(self->fault - len, head, len);
	*ptr = (uintptr_t)(self->fault - len);
	snprintf(what, sizeof(what), "%s running into PROT_NONE", name);
	expect_refused(_metadata, self->fd, cmd, arg, EFAULT, what);
}

/* expect_struct_efault() - @cmd: EFAULT for a NULL or PROT_NONE struct */
static void expect_struct_efault(struct __test_metadata *_metadata,
				 FIXTURE_DATA(dice_err) *self,
				 unsigned long cmd)
{
	expect_refused(_metadata, self->fd, cmd, NULL, EFAULT, "NULL struct");
	expect_refused(_metadata, self->fd, cmd, self->fault, EFAULT,
		       "PROT_NONE struct");
}

TEST_F(dice_err, set_weights_einval)
{
	static const __u32 zero[3] = { 0 };
	static const __u32 w[] = { 5, 5, 5 };
	struct dice_weights arg = { .weights = (uintptr_t)w };
	const unsigned long cmd = DICE_IOC_SET_WEIGHTS;

	REQUIRE_DIE(self->fd);
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "0 sides");
	arg.weights = 0;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "0 sides, NULL weights");
	arg.weights = (uintptr_t)w;
	arg.sides = 3;
	arg.flags = 1;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "flags 1");
	arg.flags = 0x80000000u;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "flags 1<<31");
	arg.flags = 0;
	arg.weights = (uintptr_t)zero;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "weights 0 0 0");
	arg.sides = 1;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "weight 0");
	/* 8 bytes: the pointer only, sides zero-filled */
	arg.weights = (uintptr_t)w;
	arg.sides = 3;
	expect_refused(_metadata, self->fd, SET_WEIGHTS_SIZED(8), &arg, EINVAL,
		       "8-byte struct");
}

/* sides beyond DICE_TABLE_SIDES_MAX, and a longer struct with a non-zero tail */
TEST_F(dice_err, set_weights_e2big)
{
	struct {
		struct dice_weights arg;
		__u64 tail[6];
	} ext = { };
	static const __u32 w[] = { 5, 5 };
	__u32 max = max_table_sides();
	__u32 *many = NULL;

	REQUIRE_DIE(self->fd);
	{
		__u32 i;

		many = xcalloc(_metadata, max + 1, sizeof(*many));
		for (i = 0; i <= max; i++)
			many[i] = 1;
	}
	ext.arg.weights = (uintptr_t)many;
	ext.arg.sides = max + 1;
	if (max != ~(__u32)0)
		expect_refused(_metadata, self->fd, DICE_IOC_SET_WEIGHTS, &ext,
			       E2BIG, "DICE_TABLE_SIDES_MAX + 1 sides");
	free(many);
	ext.arg.weights = 0;
	ext.arg.sides = ~(__u32)0;
	if (max != ~(__u32)0)
		expect_refused(_metadata, self->fd, DICE_IOC_SET_WEIGHTS, &ext,
			       E2BIG, "2^32 - 1 sides");

	ext.arg.weights = (uintptr_t)w;
	ext.arg.sides = 2;
	ext.tail[0] = 1;
	expect_refused(_metadata, self->fd, SET_WEIGHTS_SIZED(24), &ext, E2BIG,
		       "24-byte struct, tail 1");
	ext.tail[0] = 0;
	ext.tail[5] = POW2(63);
	expect_refused(_metadata, self->fd, SET_WEIGHTS_SIZED(64), &ext, E2BIG,
		       "64-byte struct, last byte 0x80");
}

/* A longer struct with a zero tail is as good as the short one. */
TEST_F(dice_err, set_weights_struct_size)
{
	struct {
		struct dice_weights arg;
		__u64 tail[6];
	} ext = { };
	static const __u32 w[] = { 5, 5 }, w3[] = { 9, 0, 9, 0 };
	static const __u64 m[] = { 1, 1 }, m3[] = { 1, 0, 1, 0 };

	REQUIRE_DIE(self->fd);
	ext.arg.weights = (uintptr_t)w;
	ext.arg.sides = 2;
	ASSERT_EQ(0, ioctl_errno(self->fd, SET_WEIGHTS_SIZED(24), &ext))
		TH_LOG("24-byte struct: %s", strerror(errno));
	expect_loaded(_metadata, self->fd, 2);
	expect_masses(_metadata, self->fd, m, 2, 2);
	ext.arg.weights = (uintptr_t)w3;
	ext.arg.sides = 4;
	ASSERT_EQ(0, ioctl_errno(self->fd, SET_WEIGHTS_SIZED(64), &ext))
		TH_LOG("64-byte struct: %s", strerror(errno));
	expect_loaded(_metadata, self->fd, 4);
	expect_masses(_metadata, self->fd, m3, 4, 2);
}

TEST_F(dice_err, set_weights_efault)
{
	static const __u32 w[2] = { 1, 1 };
	const unsigned long cmd = DICE_IOC_SET_WEIGHTS;
	struct dice_weights arg = { .sides = 3 }, *edge;

	REQUIRE_DIE(self->fd);
	/* two weights readable, the third in the PROT_NONE page */
	expect_array_efault(_metadata, self, cmd, &arg, &arg.weights,
			    "weights", w, sizeof(w));

	expect_struct_efault(_metadata, self, cmd);
	/* the pointer readable, sides and flags not */
	edge = (struct dice_weights *)(self->fault - 8);
	edge->weights = (uintptr_t)base_w;
	expect_refused(_metadata, self->fd, cmd, edge, EFAULT,
		       "struct running into PROT_NONE");
	/* a whole struct readable, its longer tail not */
	edge = (struct dice_weights *)(self->fault - sizeof(*edge));
	edge->weights = (uintptr_t)base_w;
	edge->sides = 3;
	edge->flags = 0;
	expect_refused(_metadata, self->fd, SET_WEIGHTS_SIZED(24), edge,
		       EFAULT, "tail of a 24-byte struct in PROT_NONE");
}

/**
 * struct fit_case - does a loaded die fit a format
 * @sides: number of sides
 * @format: DICE_FMT_*
 * @err: 0 when the faces fit, else EOVERFLOW
 */
struct fit_case {
	__u32 sides;
	__u32 format;
	int err;
};

static const struct fit_case fit_cases[] = {
	{ 255, DICE_FMT_U8, 0 },
	{ 256, DICE_FMT_U8, EOVERFLOW },
	{ 256, DICE_FMT_U8 | FMT_ZB, 0 },
	{ 257, DICE_FMT_U8 | FMT_ZB, EOVERFLOW },
	{ 300, DICE_FMT_U8, EOVERFLOW },
	{ 65535, DICE_FMT_U16, 0 },
	{ 65536, DICE_FMT_U16, EOVERFLOW },
	{ 65536, DICE_FMT_U16 | FMT_ZB, 0 },
	{ 65537, DICE_FMT_U16 | FMT_ZB, EOVERFLOW },
	{ 65537, DICE_FMT_U32, 0 },
	{ 65537, DICE_FMT_TEXT, 0 },
};

/*
 * SET_WEIGHTS and SET_ALIAS refuse a die the format does not fit, leaving
 * the die as it was; what they take, SET_FORMAT may not narrow.
 */
TEST_F(dice_err, loaded_eoverflow)
{
	const __u32 n = 65537;
	struct dice_weights warg = { };
	struct dice_alias aarg = { .mass = 1 };
	__u32 *w, *alias, i;
	char what[64], twhat[64];
	__u64 *thr;

	REQUIRE_DIE(self->fd);
	w = xcalloc(_metadata, n, sizeof(*w));
	thr = xcalloc(_metadata, n, sizeof(*thr));
	alias = xcalloc(_metadata, n, sizeof(*alias));
	for (i = 0; i < n; i++) {
		w[i] = 1;
		thr[i] = 1;
		alias[i] = i;
	}
	warg.weights = (uintptr_t)w;
	aarg.thresholds = (uintptr_t)thr;
	aarg.aliases = (uintptr_t)alias;
	for (i = 0; i < ARRAY_SIZE(fit_cases); i++) {
		const struct fit_case *c = &fit_cases[i];

		warg.sides = c->sides;
		aarg.sides = c->sides;
		set_fair(_metadata, self->fd, 1, c->format);
		ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
		snprintf(what, sizeof(what), "%u weights, format %#x",
			 c->sides, c->format);
		snprintf(twhat, sizeof(twhat), "%u columns, format %#x",
			 c->sides, c->format);
		if (c->err) {
			expect_refused(_metadata, self->fd,
				       DICE_IOC_SET_WEIGHTS, &warg, c->err,
				       what);
			expect_refused(_metadata, self->fd, DICE_IOC_SET_ALIAS,
				       &aarg, c->err, twhat);
			continue;
		}
		EXPECT_EQ(0, ioctl_errno(self->fd, DICE_IOC_SET_WEIGHTS,
					 &warg)) TH_LOG("%s", what);
		expect_loaded(_metadata, self->fd, c->sides);
		ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
		EXPECT_EQ(0, ioctl_errno(self->fd, DICE_IOC_SET_ALIAS, &aarg))
			TH_LOG("%s", twhat);
		expect_loaded(_metadata, self->fd, c->sides);
	}

	/* A 300-side loaded die in text cannot go to U8, but to U16. */
	set_fair(_metadata, self->fd, 1, DICE_FMT_TEXT);
	ASSERT_EQ(0, set_weights(self->fd, w, 300));
	i = DICE_FMT_U8;
	expect_refused(_metadata, self->fd, DICE_IOC_SET_FORMAT, &i, EOVERFLOW,
		       "U8 for a loaded d300");
	set_format(_metadata, self->fd, DICE_FMT_U16);
	expect_loaded(_metadata, self->fd, 300);
	free(w);
	free(thr);
	free(alias);
}

TEST_F(dice_err, set_alias_einval)
{
	__u64 thr[3] = { 1, 2, 3 };
	__u32 alias[3] = { 2, 0, 1 };
	struct dice_alias arg = {
		.thresholds = (uintptr_t)thr,
		.aliases = (uintptr_t)alias,
		.mass = 4,
		.sides = 3,
	};
	const unsigned long cmd = DICE_IOC_SET_ALIAS;

	REQUIRE_DIE(self->fd);
	/* the table as it stands is good */
	ASSERT_EQ(0, ioctl_errno(self->fd, cmd, &arg));
	ASSERT_EQ(0, set_weights(self->fd, base_w, 3));

	arg.sides = 0;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "0 sides");
	arg.sides = 3;
	arg.flags = 1;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "flags 1");
	arg.flags = 0x80000000u;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "flags 1<<31");
	arg.flags = 0;
	arg.mass = 0;
	thr[0] = thr[1] = thr[2] = 0;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "mass 0");
	arg.mass = 4;
	thr[1] = 5;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "threshold mass + 1");
	thr[1] = ALL_ONES;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "threshold 2^64 - 1");
	arg.mass = ALL_ONES - 1;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "threshold 2^64 - 1 over mass 2^64 - 2");
	arg.mass = 4;
	thr[1] = 2;
	alias[2] = 3;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL, "alias 3 of 3");
	alias[2] = ~(__u32)0;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "alias 2^32 - 1");
	/* a full column never uses its alias, which must still be valid */
	alias[2] = 3;
	thr[2] = 4;
	expect_refused(_metadata, self->fd, cmd, &arg, EINVAL,
		       "alias 3 of 3 on a full column");
	alias[2] = 1;
	/* 8 bytes: the thresholds only, the rest zero-filled */
	expect_refused(_metadata, self->fd, SET_ALIAS_SIZED(8), &arg, EINVAL,
		       "8-byte struct");
	/* 24 bytes: sides and flags zero-filled */
	expect_refused(_metadata, self->fd, SET_ALIAS_SIZED(24), &arg, EINVAL,
		       "24-byte struct");
}

TEST_F(dice_err, set_alias_e2big)
{
	struct {
		struct dice_alias arg;
		__u64 tail[4];
	} ext = { };
	static const __u64 thr[] = { 1, 1 };
	static const __u32 alias[] = { 1, 0 };
	__u32 max = max_table_sides();
	__u32 *many_alias = NULL;
	__u64 *many_thr = NULL;

	REQUIRE_DIE(self->fd);
	{
		__u32 i;

		many_thr = xcalloc(_metadata, max + 1, sizeof(*many_thr));
		many_alias = xcalloc(_metadata, max + 1, sizeof(*many_alias));
		for (i = 0; i <= max; i++)
			many_thr[i] = 1;
	}
	ext.arg.thresholds = (uintptr_t)many_thr;
	ext.arg.aliases = (uintptr_t)many_alias;
	ext.arg.mass = 1;
	ext.arg.sides = max + 1;
	if (max != ~(__u32)0)
		expect_refused(_metadata, self->fd, DICE_IOC_SET_ALIAS, &ext,
			       E2BIG, "DICE_TABLE_SIDES_MAX + 1 columns");
	free(many_thr);
	free(many_alias);
	ext.arg.thresholds = 0;
	ext.arg.aliases = 0;
	ext.arg.sides = ~(__u32)0;
	if (max != ~(__u32)0)
		expect_refused(_metadata, self->fd, DICE_IOC_SET_ALIAS, &ext,
			       E2BIG, "2^32 - 1 columns");

	ext.arg.thresholds = (uintptr_t)thr;
	ext.arg.aliases = (uintptr_t)alias;
	ext.arg.mass = 2;
	ext.arg.sides = 2;
	ext.tail[0] = 1;
	expect_refused(_metadata, self->fd, SET_ALIAS_SIZED(40), &ext, E2BIG,
		       "40-byte struct, tail 1");
	ext.tail[0] = 0;
	ext.tail[3] = POW2(63);
	expect_refused(_metadata, self->fd, SET_ALIAS_SIZED(64), &ext, E2BIG,
		       "64-byte struct, last byte 0x80");
	/* with the tail zero, the longer struct is fine */
	ext.tail[3] = 0;
	ASSERT_EQ(0, ioctl_errno(self->fd, SET_ALIAS_SIZED(64), &ext))
		TH_LOG("64-byte struct, zero tail: %s", strerror(errno));
	expect_loaded(_metadata, self->fd, 2);
}

TEST_F(dice_err, set_alias_efault)
{
	static const __u64 thr[] = { 1, 2, 3 };
	static const __u32 alias[] = { 2, 0, 1 };
	const unsigned long cmd = DICE_IOC_SET_ALIAS;
	struct dice_alias arg = {
		.aliases = (uintptr_t)alias,
		.mass = 4,
		.sides = 3,
	}, *edge;
	static const __u64 t[2] = { 1, 2 };
	static const __u32 a[2] = { 2, 0 };

	REQUIRE_DIE(self->fd);
	expect_array_efault(_metadata, self, cmd, &arg, &arg.thresholds,
			    "thresholds", t, sizeof(t));
	arg.thresholds = (uintptr_t)thr;
	expect_array_efault(_metadata, self, cmd, &arg, &arg.aliases,
			    "aliases", a, sizeof(a));

	expect_struct_efault(_metadata, self, cmd);
	edge = (struct dice_alias *)(self->fault - 16);
	edge->thresholds = (uintptr_t)thr;
	edge->aliases = (uintptr_t)alias;
	expect_refused(_metadata, self->fd, cmd, edge, EFAULT,
		       "struct running into PROT_NONE");
	edge = (struct dice_alias *)(self->fault - sizeof(*edge));
	edge->thresholds = (uintptr_t)thr;
	edge->aliases = (uintptr_t)alias;
	edge->mass = 4;
	edge->sides = 3;
	edge->flags = 0;
	expect_refused(_metadata, self->fd, SET_ALIAS_SIZED(40), edge, EFAULT,
		       "tail of a 40-byte struct in PROT_NONE");
}

/* A side whose share reaches 2^64 is refused; 2^64 - 1 is taken. */
TEST_F(dice_err, set_alias_eoverflow)
{
	static const struct {
		const char *what;
		__u32 sides;
		__u64 mass;
		__u64 thr[3];
		__u32 alias[3];
	} cases[] = {
		{ "share 2^63 + 2^63", 2, POW2(63), { POW2(63), 0 }, { 0, 0 } },
		{ "share 3 * 2^63", 3, POW2(63), { 0, 0, 0 }, { 1, 1, 1 } },
		{ "share 2 * (2^64 - 1)", 2, ALL_ONES,
		  { ALL_ONES, 0 }, { 1, 0 } },
		{ "share 2^64 from three columns", 3, POW2(63),
		  { POW2(62), POW2(62), POW2(63) }, { 2, 2, 2 } },
	};
	static const __u64 thr[] = { POW2(63), 1 };
	static const __u32 alias[] = { 0, 0 };
	struct dice_alias arg = { };
	size_t i;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		arg.thresholds = (uintptr_t)cases[i].thr;
		arg.aliases = (uintptr_t)cases[i].alias;
		arg.mass = cases[i].mass;
		arg.sides = cases[i].sides;
		expect_refused(_metadata, self->fd, DICE_IOC_SET_ALIAS, &arg,
			       EOVERFLOW, cases[i].what);
	}
	/* side 0: 2^63 + 2^63 - 1 */
	EXPECT_EQ(0, set_alias(self->fd, thr, alias, POW2(63), 2))
		TH_LOG("share 2^64 - 1: %s", strerror(errno));
	expect_loaded(_metadata, self->fd, 2);
}

TEST_F(dice_err, get_masses_einval)
{
	__u64 m[3] = { POISON, POISON, POISON };
	struct dice_masses arg = {
		.masses = (uintptr_t)m,
		.capacity = 3,
	};

	REQUIRE_DIE(self->fd);
	arg.flags = 1;
	EXPECT_EQ(EINVAL, ioctl_errno(self->fd, DICE_IOC_GET_MASSES, &arg));
	arg.flags = 0x80000000u;
	EXPECT_EQ(EINVAL, ioctl_errno(self->fd, DICE_IOC_GET_MASSES, &arg));
	arg.flags = 0;
	arg.padding = 1;
	EXPECT_EQ(EINVAL, ioctl_errno(self->fd, DICE_IOC_GET_MASSES, &arg));
	EXPECT_EQ(POISON, m[0]);
	arg.padding = 0;
	EXPECT_EQ(0, ioctl_errno(self->fd, DICE_IOC_GET_MASSES, &arg));
	EXPECT_EQ(3, arg.sides);
	EXPECT_EQ(6, arg.total);
	EXPECT_EQ(1, m[0]);
	EXPECT_EQ(2, m[1]);
	EXPECT_EQ(3, m[2]);
}

/* Too little room: ENOSPC, nothing written, sides and total told. */
TEST_F(dice_err, get_masses_enospc)
{
	__u64 m[4] = { POISON, POISON, POISON, POISON }, sides, total;

	REQUIRE_DIE(self->fd);
	EXPECT_EQ(ENOSPC, get_masses_poisoned(self->fd, m, 2, &sides, &total));
	EXPECT_EQ(3, sides);
	EXPECT_EQ(6, total);
	EXPECT_EQ(POISON, m[0]);
	EXPECT_EQ(POISON, m[1]);
	EXPECT_EQ(ENOSPC,
		  get_masses_poisoned(self->fd, NULL, 0, &sides, &total));
	EXPECT_EQ(3, sides);
	EXPECT_EQ(6, total);
	set_sides(_metadata, self->fd, 1000);
	EXPECT_EQ(ENOSPC, get_masses_poisoned(self->fd, m, 4, &sides, &total));
	EXPECT_EQ(1000, sides);
	EXPECT_EQ(1000, total);
	EXPECT_EQ(POISON, m[0]);
}

TEST_F(dice_err, get_masses_efault)
{
	const unsigned long cmd = DICE_IOC_GET_MASSES;
	struct dice_masses arg = { .capacity = 3 }, *edge;

	REQUIRE_DIE(self->fd);
	/* room for two masses, the third in the PROT_NONE page */
	expect_array_efault(_metadata, self, cmd, &arg, &arg.masses,
			    "masses", NULL, 2 * sizeof(__u64));

	expect_struct_efault(_metadata, self, cmd);
	edge = (struct dice_masses *)(self->fault - 16);
	edge->masses = (uintptr_t)self->map;
	edge->capacity = 3;
	expect_refused(_metadata, self->fd, cmd, edge, EFAULT,
		       "struct running into PROT_NONE");
	edge = (struct dice_masses *)(self->fault - sizeof(*edge));
	memset(edge, 0, sizeof(*edge));
	edge->masses = (uintptr_t)self->map;
	edge->capacity = 3;
	expect_refused(_metadata, self->fd, GET_MASSES_SIZED(48), edge, EFAULT,
		       "tail of a 48-byte struct in PROT_NONE");
}

/* Longer structs need a zero tail and get it back zero; shorter ones work. */
TEST_F(dice_err, get_masses_struct_size)
{
	struct {
		struct dice_masses arg;
		__u64 tail[2];
	} ext = { };
	__u64 m[3] = { POISON, POISON, POISON };

	REQUIRE_DIE(self->fd);
	ext.arg.masses = (uintptr_t)m;
	ext.arg.capacity = 3;
	ext.tail[0] = 1;
	EXPECT_EQ(E2BIG, ioctl_errno(self->fd, GET_MASSES_SIZED(48), &ext));
	EXPECT_EQ(POISON, m[0]);
	ext.tail[0] = 0;
	ext.tail[1] = POW2(63);
	EXPECT_EQ(E2BIG, ioctl_errno(self->fd, GET_MASSES_SIZED(56), &ext));
	ext.tail[1] = 0;
	EXPECT_EQ(0, ioctl_errno(self->fd, GET_MASSES_SIZED(56), &ext))
		TH_LOG("56-byte struct: %s", strerror(errno));
	EXPECT_EQ(3, ext.arg.sides);
	EXPECT_EQ(6, ext.arg.total);
	EXPECT_EQ(0, ext.tail[0]);
	EXPECT_EQ(0, ext.tail[1]);
	EXPECT_EQ(3, m[2]);

	/* 16 bytes: masses and capacity; nothing else comes back */
	memset(&ext, 0, sizeof(ext));
	ext.arg.masses = (uintptr_t)m;
	ext.arg.capacity = 3;
	ext.arg.sides = POISON;
	m[0] = m[1] = m[2] = POISON;
	EXPECT_EQ(0, ioctl_errno(self->fd, GET_MASSES_SIZED(16), &ext))
		TH_LOG("16-byte struct: %s", strerror(errno));
	EXPECT_EQ(1, m[0]);
	EXPECT_EQ(2, m[1]);
	EXPECT_EQ(3, m[2]);
	EXPECT_EQ(POISON, ext.arg.sides);
	/* 8 bytes: capacity 0 */
	EXPECT_EQ(ENOSPC, ioctl_errno(self->fd, GET_MASSES_SIZED(8), &ext));
}

/*
 * A table may hold a distribution whose total in lowest terms is 2^64: it
 * rolls, but GET_MASSES cannot tell it.
 */
TEST_F(dice_err, get_masses_eoverflow)
{
	static const __u64 thr[] = { POW2(63), 1 };
	static const __u32 alias[] = { 0, 0 };
	__u64 m[2] = { POISON, POISON }, sides, total;
	__u16 rolls[1000];
	size_t i;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	ASSERT_EQ(0, set_alias(self->fd, thr, alias, POW2(63), 2));
	EXPECT_EQ(EOVERFLOW,
		  get_masses_poisoned(self->fd, m, 2, &sides, &total));
	read_u16(_metadata, self->fd, rolls, ARRAY_SIZE(rolls), 65536);
	/* side 1 has probability 2^-64 */
	for (i = 0; i < ARRAY_SIZE(rolls); i++) {
		EXPECT_EQ(0, rolls[i]);
	}
}

/* ---- goodness of fit and bits per roll ---------------------------------- */

enum fit_die {
	FIT_2_2_6_1_1,
	FIT_ZIPF_1000,
	FIT_RANDOM_65536,
};

/*
 * @w: the weights, @m and @total: their distribution in lowest terms,
 * @rolls: FIT_ROLLS rolls read after the die was set
 */
FIXTURE(dice_fit) {
	int fd;
	__u32 sides;
	__u32 *w;
	__u64 *m;
	__u64 total;
	__u16 *rolls;
};

/* @alias: set the die by a table from vose_table(), not by its weights */
FIXTURE_VARIANT(dice_fit) {
	enum fit_die die;
	bool alias;
};

VARIANT(dice_fit, w_2_2_6_1_1, .die = FIT_2_2_6_1_1, .alias = false);
VARIANT(dice_fit, alias_2_2_6_1_1, .die = FIT_2_2_6_1_1, .alias = true);
VARIANT(dice_fit, w_zipf_1000, .die = FIT_ZIPF_1000, .alias = false);
VARIANT(dice_fit, alias_zipf_1000, .die = FIT_ZIPF_1000, .alias = true);
VARIANT(dice_fit, w_random_65536, .die = FIT_RANDOM_65536, .alias = false);
VARIANT(dice_fit, alias_random_65536, .die = FIT_RANDOM_65536, .alias = true);

FIXTURE_SETUP(dice_fit)
{
	static const __u32 five[] = { 2, 2, 6, 1, 1 };
	struct table t;

	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd < 0)
		return;
	switch (variant->die) {
	case FIT_2_2_6_1_1:
		self->sides = ARRAY_SIZE(five);
		self->w = xcalloc(_metadata, self->sides, sizeof(*self->w));
		memcpy(self->w, five, sizeof(five));
		break;
	case FIT_ZIPF_1000:
		self->sides = 1000;
		self->w = xcalloc(_metadata, self->sides, sizeof(*self->w));
		zipf_weights(self->w, self->sides);
		break;
	case FIT_RANDOM_65536:
		self->sides = 65536;
		self->w = xcalloc(_metadata, self->sides, sizeof(*self->w));
		random_weights(self->w, self->sides, 0x10adedd1ceULL);
		break;
	}
	self->m = xcalloc(_metadata, self->sides, sizeof(*self->m));
	weights_masses(_metadata, self->w, self->sides, self->m, &self->total);
	self->rolls = xcalloc(_metadata, FIT_ROLLS, sizeof(*self->rolls));

	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	if (!variant->alias) {
		ASSERT_EQ(0, set_weights(self->fd, self->w, self->sides))
			TH_LOG("SET_WEIGHTS: %s", strerror(errno));
		return;
	}
	table_alloc(_metadata, &t, self->sides);
	vose_table(_metadata, self->w, self->sides, &t);
	ASSERT_EQ(0, set_table(self->fd, &t))
		TH_LOG("SET_ALIAS: %s", strerror(errno));
	table_free(&t);
}

FIXTURE_TEARDOWN(dice_fit)
{
	free(self->w);
	free(self->m);
	free(self->rolls);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dice_fit, masses)
{
	struct dice_info info;

	REQUIRE_DIE(self->fd);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	EXPECT_EQ(self->sides, info.sides);
	EXPECT_EQ(DICE_FMT_U16 | FMT_ZB, info.format);
	expect_masses(_metadata, self->fd, self->m, self->sides, self->total);
}

/* read_fit_rolls() - FIT_ROLLS rolls of a d@sides, timed, in range */
static void read_fit_rolls(struct __test_metadata *_metadata, int fd,
			   __u32 sides, __u16 *rolls)
{
	struct timespec t0, t1;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	read_u16(_metadata, fd, rolls, FIT_ROLLS, FIT_CHUNK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("d%u: %d rolls read in %.2f s", sides, FIT_ROLLS,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (i = 0; i < FIT_ROLLS; i++) {
		ASSERT_GT(sides, rolls[i]) TH_LOG("roll %zu", i);
	}
}

/*
 * One read of 10^6 rolls serves both checks:
 *
 * Goodness of fit: chi-square against the exact distribution, cells pooled
 * so that each group expects MIN_EXPECTED rolls, at p = 10^-6; faces of
 * weight zero never come up.
 *
 * Bits per roll at H(p): with I the information the rolls carry, the sum
 * of -log2 p(face), the bits spent are I plus what the sampler wastes or
 * holds, so bits_used / rolls - H(p) = waste / rolls + (I / rolls - H(p)).
 * The waste is checked against 0.1% of H(p) and is never negative (no
 * sampler spends fewer bits than its faces carry); I / rolls - H(p) is
 * sampling noise, whose standard deviation over 10^6 rolls is 0.05% of H(p)
 * for {2, 2, 6, 1, 1} and 0.04% for the Zipf die, so it is checked against
 * Z_1E6 of them, not against a fixed 0.1%.
 */
TEST_F_TIMEOUT(dice_fit, rolls, 120)
{
	double chi2, critical, h, h2 = 0, info = 0, sd, waste;
	size_t groups, i, zero_mass = 0;
	struct dice_stats st;
	__u64 *obs;

	REQUIRE_DIE(self->fd);
	obs = xcalloc(_metadata, self->sides, sizeof(*obs));
	read_fit_rolls(_metadata, self->fd, self->sides, self->rolls);
	get_stats(_metadata, self->fd, &st);

	for (i = 0; i < FIT_ROLLS; i++)
		obs[self->rolls[i]]++;
	for (i = 0; i < self->sides; i++) {
		if (self->m[i])
			continue;
		zero_mass++;
		EXPECT_EQ(0, obs[i]) TH_LOG("face %zu has weight 0", i);
	}
	chi2 = chi_square_pooled(obs, self->m, self->sides, self->total,
				 FIT_ROLLS, &groups);
	ASSERT_LT(1, groups);
	critical = chi2_critical(groups - 1);
	TH_LOG("d%u (%zu of weight 0): chi-square %.2f, %zu groups, critical %.2f",
	       self->sides, zero_mass, chi2, groups, critical);
	EXPECT_GT(critical, chi2);

	h = entropy(self->m, self->sides, self->total);
	for (i = 0; i < self->sides; i++) {
		double p = (double)self->m[i] / (double)self->total;

		if (self->m[i])
			h2 += p * log2(p) * log2(p);
		if (obs[i])
			info -= obs[i] * log2(p);
	}
	sd = sqrt((h2 - h * h) / FIT_ROLLS);
	waste = (double)st.bits_used - info;
	TH_LOG("d%u: %.6f bits a roll, H(p) %.6f (%+.4f%%), rolls carried %.6f, waste %.0f bits",
	       self->sides, (double)st.bits_used / FIT_ROLLS, h,
	       100 * ((double)st.bits_used / FIT_ROLLS - h) / h,
	       info / FIT_ROLLS, waste);
	EXPECT_EQ(FIT_ROLLS, st.rolls);
	EXPECT_LE(-1.0, waste) TH_LOG("fewer bits spent than the faces carry");
	EXPECT_GE(0.001 * h * FIT_ROLLS, waste);
	EXPECT_GE(Z_1E6 * sd, fabs(info / FIT_ROLLS - h))
		TH_LOG("the faces carry %.6f bits a roll, sd %.6f",
		       info / FIT_ROLLS, sd);
	EXPECT_LE(st.bits_used, st.bits_drawn);
	/*
	 * CRNG bits: under 128 held between reads, what a long read's
	 * batches left beyond them dropped, a small part of what was drawn.
	 */
	EXPECT_GT(128, st.bits_drawn - st.bits_used - st.bits_discarded);
	EXPECT_GT(st.bits_drawn, 10 * st.bits_discarded);
	EXPECT_EQ(0, st.coin_bits);
	free(obs);
}

/* ---- tables swapped under readers ---------------------------------------- */

#define SWAP_SECONDS	3
#define SWAP_BIG	1000
#define SWAP_SMALL	3
#define SWAP_CHUNK	65536
#define SWAP_DISTS	5

/**
 * struct swap_dist - a distribution GET_MASSES may report
 * @sides: number of sides
 * @total: sum of @m
 * @m: the masses in lowest terms
 */
struct swap_dist {
	__u64 sides;
	__u64 total;
	__u64 *m;
};

/**
 * struct swap_ctx - one file, a writer swapping tables, readers, a querier
 * @fd: the file, DICE_FMT_U16 | FMT_ZB throughout
 * @w_small: SWAP_SMALL weights
 * @w_big: SWAP_BIG weights, the last one zero
 * @t_small: a SWAP_SMALL table
 * @t_big: a SWAP_BIG table, giving the last side nothing
 * @dists: what each of the above and the fair d6 stand for
 * @stop: set when time is up or a thread failed
 * @failed: set by the first failure, which writes @why
 * @why: what failed
 * @reads: read() calls done
 * @swaps: tables set
 * @queries: GET_MASSES, GET_STATS and GET_INFO rounds done
 */
struct swap_ctx {
	int fd;
	__u32 w_small[SWAP_SMALL];
	__u32 w_big[SWAP_BIG];
	struct table t_small;
	struct table t_big;
	struct swap_dist dists[SWAP_DISTS];
	atomic_bool stop;
	atomic_bool failed;
	char why[256];
	atomic_ullong reads;
	atomic_ullong swaps;
	atomic_ullong queries;
};

static void swap_fail(struct swap_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!atomic_exchange(&ctx->failed, true)) {
		va_start(ap, fmt);
		vsnprintf(ctx->why, sizeof(ctx->why), fmt, ap);
		va_end(ap);
	}
	atomic_store(&ctx->stop, true);
}

/*
 * Every face is below SWAP_BIG - 1: no table gives the last side of the
 * big die anything, and the d6 and small dice stop below it.
 */
static void *swap_reader(void *arg)
{
	struct swap_ctx *ctx = arg;
	__u16 *buf = malloc(SWAP_CHUNK);
	ssize_t ret, i;

	if (!buf) {
		swap_fail(ctx, "reader: no memory");
		return NULL;
	}
	while (!atomic_load(&ctx->stop)) {
		ret = read(ctx->fd, buf, SWAP_CHUNK);
		if (ret <= 0 || ret % 2) {
			swap_fail(ctx, "read: %zd (%s)", ret,
				  ret < 0 ? strerror(errno) : "short");
			break;
		}
		for (i = 0; i < ret / 2; i++) {
			if (le16toh(buf[i]) >= SWAP_BIG - 1) {
				swap_fail(ctx, "read: face %u",
					  le16toh(buf[i]));
				break;
			}
		}
		atomic_fetch_add(&ctx->reads, 1);
	}
	free(buf);
	return NULL;
}

/* swap_match() - is @m (@sides over @total) one of the dice set */
static bool swap_match(const struct swap_ctx *ctx, const __u64 *m,
		       __u64 sides, __u64 total)
{
	int i;

	for (i = 0; i < SWAP_DISTS; i++) {
		const struct swap_dist *d = &ctx->dists[i];

		if (d->sides == sides && d->total == total &&
		    !memcmp(d->m, m, sides * sizeof(*m)))
			return true;
	}
	return false;
}

/*
 * GET_MASSES reports one of the dice set, whole; GET_INFO one of their
 * sizes and the matching kind; GET_STATS counters that only grow.
 */
static void *swap_querier(void *arg)
{
	struct swap_ctx *ctx = arg;
	__u64 *m = calloc(SWAP_BIG, sizeof(*m)), sides, total;
	struct dice_stats st, prev = { };
	struct dice_info info;
	int err;

	if (!m) {
		swap_fail(ctx, "querier: no memory");
		return NULL;
	}
	while (!atomic_load(&ctx->stop)) {
		err = get_masses_poisoned(ctx->fd, m, SWAP_BIG, &sides, &total);
		if (err) {
			swap_fail(ctx, "GET_MASSES: %s", strerror(err));
			break;
		}
		if (!swap_match(ctx, m, sides, total)) {
			swap_fail(ctx, "GET_MASSES: no die has %llu sides, total %llu",
				  sides, total);
			break;
		}
		err = ioctl_errno(ctx->fd, DICE_IOC_GET_STATS, &st);
		if (err) {
			swap_fail(ctx, "GET_STATS: %s", strerror(err));
			break;
		}
		if (st.rolls < prev.rolls || st.bits_used < prev.bits_used ||
		    st.bits_drawn < prev.bits_drawn ||
		    st.bits_used > st.bits_drawn) {
			swap_fail(ctx, "GET_STATS: went from %llu/%llu/%llu to %llu/%llu/%llu (rolls/used/drawn)",
				  prev.rolls, prev.bits_used, prev.bits_drawn,
				  st.rolls, st.bits_used, st.bits_drawn);
			break;
		}
		prev = st;
		err = ioctl_errno(ctx->fd, DICE_IOC_GET_INFO, &info);
		if (err) {
			swap_fail(ctx, "GET_INFO: %s", strerror(err));
			break;
		}
		if (info.kind != (info.sides == 6 ? DICE_KIND_FAIR :
				  DICE_KIND_LOADED) ||
		    (info.sides != 6 && info.sides != SWAP_SMALL &&
		     info.sides != SWAP_BIG)) {
			swap_fail(ctx, "GET_INFO: kind %u, %llu sides",
				  info.kind, info.sides);
			break;
		}
		atomic_fetch_add(&ctx->queries, 1);
	}
	free(m);
	return NULL;
}

/* swap_writer() - cycle through the five dice until time is up */
static void swap_writer(struct swap_ctx *ctx, double seconds)
{
	struct timespec t0, now;
	const char *what = "";
	__u64 six = 6, i;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; !atomic_load(&ctx->stop); i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
		switch (i % 5) {
		case 0:
			what = "SET_WEIGHTS big";
			err = set_weights(ctx->fd, ctx->w_big, SWAP_BIG);
			break;
		case 1:
			what = "SET_ALIAS small";
			err = set_table(ctx->fd, &ctx->t_small);
			break;
		case 2:
			what = "SET_SIDES 6";
			err = ioctl_errno(ctx->fd, DICE_IOC_SET_SIDES, &six);
			break;
		case 3:
			what = "SET_WEIGHTS small";
			err = set_weights(ctx->fd, ctx->w_small, SWAP_SMALL);
			break;
		case 4:
			what = "SET_ALIAS big";
			err = set_table(ctx->fd, &ctx->t_big);
			break;
		}
		if (err) {
			swap_fail(ctx, "%s: %s", what, strerror(err));
			break;
		}
		atomic_fetch_add(&ctx->swaps, 1);
	}
	atomic_store(&ctx->stop, true);
}

FIXTURE(dice_swap) {
	int fd;
	struct swap_ctx *ctx;
};

/* @readers: reader threads; @querier: also a GET_* thread */
FIXTURE_VARIANT(dice_swap) {
	unsigned int readers;
	bool querier;
};

VARIANT(dice_swap, reader, .readers = 1, .querier = false);
VARIANT(dice_swap, reader_querier, .readers = 1, .querier = true);
VARIANT(dice_swap, two_readers_querier, .readers = 2, .querier = true);

static void swap_dist(struct __test_metadata *_metadata, struct swap_dist *d,
		      __u64 sides)
{
	d->sides = sides;
	d->m = xcalloc(_metadata, sides, sizeof(*d->m));
}

FIXTURE_SETUP(dice_swap)
{
	struct swap_ctx *ctx;
	__u32 v[SWAP_BIG], i;

	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd < 0)
		return;
	ctx = xcalloc(_metadata, 1, sizeof(*ctx));
	self->ctx = ctx;
	ctx->fd = self->fd;
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);

	ctx->w_small[0] = 3;
	ctx->w_small[1] = 0;
	ctx->w_small[2] = 1;
	zipf_weights(ctx->w_big, SWAP_BIG);
	ctx->w_big[SWAP_BIG - 1] = 0;
	/* side 0: 5 + 3, side 1: 2 + 1, side 2: 4 */
	table_alloc(_metadata, &ctx->t_small, SWAP_SMALL);
	ctx->t_small.mass = 5;
	ctx->t_small.thr[0] = 5;
	ctx->t_small.thr[1] = 2;
	ctx->t_small.thr[2] = 4;
	ctx->t_small.alias[0] = 0;
	ctx->t_small.alias[1] = 0;
	ctx->t_small.alias[2] = 1;
	for (i = 0; i < SWAP_BIG; i++)
		v[i] = i % 17 + 1;
	v[SWAP_BIG - 1] = 0;
	table_alloc(_metadata, &ctx->t_big, SWAP_BIG);
	vose_table(_metadata, v, SWAP_BIG, &ctx->t_big);

	swap_dist(_metadata, &ctx->dists[0], 6);
	for (i = 0; i < 6; i++)
		ctx->dists[0].m[i] = 1;
	ctx->dists[0].total = 6;
	swap_dist(_metadata, &ctx->dists[1], SWAP_SMALL);
	weights_masses(_metadata, ctx->w_small, SWAP_SMALL, ctx->dists[1].m,
		       &ctx->dists[1].total);
	swap_dist(_metadata, &ctx->dists[2], SWAP_BIG);
	weights_masses(_metadata, ctx->w_big, SWAP_BIG, ctx->dists[2].m,
		       &ctx->dists[2].total);
	swap_dist(_metadata, &ctx->dists[3], SWAP_SMALL);
	table_masses(_metadata, &ctx->t_small, ctx->dists[3].m,
		     &ctx->dists[3].total);
	swap_dist(_metadata, &ctx->dists[4], SWAP_BIG);
	table_masses(_metadata, &ctx->t_big, ctx->dists[4].m,
		     &ctx->dists[4].total);
	ASSERT_EQ(8, ctx->dists[3].m[0]);
	ASSERT_EQ(15, ctx->dists[3].total);
}

FIXTURE_TEARDOWN(dice_swap)
{
	struct swap_ctx *ctx = self->ctx;
	int i;

	if (ctx) {
		table_free(&ctx->t_small);
		table_free(&ctx->t_big);
		for (i = 0; i < SWAP_DISTS; i++)
			free(ctx->dists[i].m);
		free(ctx);
	}
	if (self->fd >= 0)
		close(self->fd);
}

/* read_tainted() - the kernel's taint flags, false if unknown */
static bool read_tainted(__u64 *flags)
{
	return read_u64_file(TAINTED_PATH, flags);
}

/*
 * For SWAP_SECONDS a writer cycles the file through weights and tables of 3
 * and 1000 sides and a fair d6, while readers read and a querier queries
 * the same file: no call fails, no face is impossible, every snapshot is
 * one whole die, and the kernel does not warn.
 */
TEST_F_TIMEOUT(dice_swap, swap_tables, 60)
{
	struct swap_ctx *ctx = self->ctx;
	__u64 taint0, taint1;
	unsigned int n = 0, i;
	pthread_t threads[3];
	bool check_taint;
	int err = 0;

	REQUIRE_DIE(self->fd);
	ASSERT_GE(ARRAY_SIZE(threads), variant->readers + variant->querier);
	/* A warning already on record hides any new one. */
	check_taint = read_tainted(&taint0) && !(taint0 & TAINT_WARN);
	for (i = 0; i < variant->readers + variant->querier && !err; i++) {
		err = pthread_create(&threads[n], NULL,
				     i < variant->readers ? swap_reader :
				     swap_querier, ctx);
		if (!err)
			n++;
	}
	if (!err)
		swap_writer(ctx, SWAP_SECONDS);
	atomic_store(&ctx->stop, true);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	ASSERT_EQ(0, err) TH_LOG("pthread_create: %s", strerror(err));
	TH_LOG("%llu swaps, %llu reads of %d bytes, %llu query rounds",
	       atomic_load(&ctx->swaps), atomic_load(&ctx->reads), SWAP_CHUNK,
	       atomic_load(&ctx->queries));
	EXPECT_FALSE(atomic_load(&ctx->failed)) TH_LOG("%s", ctx->why);
	EXPECT_LT(0, atomic_load(&ctx->swaps));
	EXPECT_LT(0, atomic_load(&ctx->reads));
	if (variant->querier) {
		EXPECT_LT(0, atomic_load(&ctx->queries));
	}
	if (check_taint && read_tainted(&taint1)) {
		EXPECT_EQ(0, taint1 & TAINT_WARN)
			TH_LOG("the kernel warned (tainted %#llx)", taint1);
	}
}

TEST_HARNESS_MAIN
