// SPDX-License-Identifier: GPL-2.0
/*
 * dice_loaded_test.c - selftests of loaded dice on /dev/dice
 *
 * A loaded die is set by DICE_IOC_SET_DIE, of kind DICE_KIND_WEIGHTS
 * (integer weights) or DICE_KIND_ALIAS (an alias table made by the caller).
 * The device does not report the distribution back: the test computes it
 * from what it set (weights over their gcd; for a table, what each side
 * collects over all columns) and checks the rolls against it.  The file is
 * organised in sections:
 *
 *  - helpers (beyond those of dice_common.h): reading rolls, lowest terms,
 *    an integer Vose alias table, the masses an alias table stands for,
 *    entropy and a pooled chi-square, the rolls checked against masses;
 *  - round trips: weights and alias tables in, rolls that follow the
 *    distribution they stand for out;
 *  - errno rules of SET_DIE for loaded dice, every refusal leaving the die
 *    as it was: GET_DIE and GET_STATS unchanged, and from written bits
 *    (the DICE_SRC_WRITTEN test hook) the very faces of a second file set
 *    to the die from before; the numbers of the old ioctls are ENOTTY;
 *  - goodness of fit and bits per roll over 10^6 rolls;
 *  - dice swapped while other threads read and query the same file.
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

/* The new ioctls with a struct size other than the header's. */
#define SET_DIE_SIZED(size)	_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x10, size)
#define GET_DIE_SIZED(size)	_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x11, size)
#define GET_STATS_SIZED(size)	_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x12, size)
/* The sizes the struct-size cases are written for. */
_Static_assert(sizeof(struct dice_die_args) == 56, "dice_die_args changed");
_Static_assert(sizeof(struct dice_die_info) == 24, "dice_die_info changed");
_Static_assert(sizeof(struct dice_die_stats) == 40, "dice_die_stats changed");

/*
 * The ioctls the fixed-size ones replaced, as they were numbered (type
 * 0xD1, numbers 0x01 to 0x09, the old structs' sizes): all ENOTTY now.
 */
#define OLD_SET_SIDES		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x01, 8)
#define OLD_SET_FORMAT		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x02, 4)
#define OLD_GET_INFO		_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x03, 64)
#define OLD_GET_STATS		_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x04, 64)
#define OLD_SET_WEIGHTS(size)	_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x05, size)
#define OLD_SET_ALIAS(size)	_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x06, size)
#define OLD_GET_MASSES(size)	\
	_IOC(_IOC_READ | _IOC_WRITE, DICE_IOC_MAGIC, 0x07, size)
#define OLD_SET_METHOD		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x08, 4)
#define OLD_SET_SOURCE		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x09, 4)
/* The old DICE_METHOD_REJECTION, gone from the device: EINVAL now. */
#define OLD_METHOD_REJECTION	4

/* Rolls per goodness-of-fit or bits test, and bytes per read() there. */
#define FIT_ROLLS	1000000
#define FIT_CHUNK	(1 << 20)
/* Rolls per die of a round trip, checked against the die's masses. */
#define ROUND_ROLLS	65536
/* Standard normal quantile of 1 - 10^-6: a correct die fails once in 10^6. */
#define Z_1E6		4.753
/* Cells are pooled in order until each group expects this many rolls. */
#define MIN_EXPECTED	10.0
/* Bytes written to a die on DICE_SRC_WRITTEN: the written bits' buffer. */
#define WRITTEN_BYTES	1024
/* Room for what a die makes of WRITTEN_BYTES: 8192 rolls of 1 bit or more. */
#define WRITTEN_ROOM	(8192 * 24)

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
 * struct table - an alias table as DICE_IOC_SET_DIE takes it (DICE_KIND_ALIAS)
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

/* weights_die() - the args of a die loaded by @w */
static struct dice_die_args weights_die(const __u32 *w, __u64 sides,
					__u32 method, __u32 fmt)
{
	struct dice_die_args d = {
		.sides = sides,
		.weights = (uintptr_t)w,
		.kind = DICE_KIND_WEIGHTS,
		.method = method,
		.format = fmt,
	};

	return d;
}

/* table_die() - the args of a die loaded by table @t */
static struct dice_die_args table_die(const struct table *t, __u32 method,
				      __u32 fmt)
{
	struct dice_die_args d = {
		.sides = t->sides,
		.thresholds = (uintptr_t)t->thr,
		.aliases = (uintptr_t)t->alias,
		.mass = t->mass,
		.kind = DICE_KIND_ALIAS,
		.method = method,
		.format = fmt,
	};

	return d;
}

static void expect_loaded(struct __test_metadata *_metadata, int fd,
			  __u64 sides)
{
	struct dice_die_info info;

	get_info(_metadata, fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	EXPECT_EQ(sides, info.sides);
	EXPECT_EQ(0, info.padding);
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

/*
 * count_rolls() - @n rolls of the zero-based binary die on @fd (its format
 * from GET_DIE), each below @sides, counted into @obs
 */
static void count_rolls(struct __test_metadata *_metadata, int fd,
			__u64 sides, size_t n, __u64 *obs)
{
	const size_t chunk = 1 << 16;
	unsigned char *buf = xcalloc(_metadata, chunk, 1);
	struct dice_die_info info;
	unsigned int width;
	size_t i, k;

	get_info(_metadata, fd, &info);
	width = fmt_width(info.format);
	ASSERT_NE(0, width) TH_LOG("format %#x is not binary", info.format);
	ASSERT_NE(0, info.format & FMT_ZB) TH_LOG("format %#x", info.format);
	ASSERT_EQ(sides, info.sides);
	memset(obs, 0, sides * sizeof(*obs));
	for (i = 0; i < n; i += k) {
		k = chunk / width < n - i ? chunk / width : n - i;
		ASSERT_TRUE(read_full(fd, buf, k * width))
			TH_LOG("read %zu rolls: %s", k, strerror(errno));
		for (size_t j = 0; j < k; j++) {
			__u64 face = get_le(buf + j * width, width);

			ASSERT_GT(sides, face) TH_LOG("roll %zu", i + j);
			obs[face]++;
		}
	}
	free(buf);
}

/*
 * expect_dist() - @n rolls of @fd follow the masses @m of @sides faces over
 * @total: no face of mass 0 comes up, and the pooled chi-square stays below
 * its quantile of 1 - 10^-6 (when there are two groups or more to compare).
 */
static void expect_dist(struct __test_metadata *_metadata, int fd,
			const __u64 *m, __u64 sides, __u64 total, size_t n,
			const char *what)
{
	__u64 *obs = xcalloc(_metadata, sides, sizeof(*obs));
	double chi2, critical;
	size_t groups;
	__u64 i;

	count_rolls(_metadata, fd, sides, n, obs);
	for (i = 0; i < sides; i++) {
		if (!m[i] && obs[i]) {
			EXPECT_EQ(0, obs[i])
				TH_LOG("%s: face %llu of mass 0 came up", what,
				       i);
			break;
		}
	}
	chi2 = chi_square_pooled(obs, m, sides, total, n, &groups);
	if (groups > 1) {
		critical = chi2_critical(groups - 1);
		EXPECT_GT(critical, chi2)
			TH_LOG("%s: chi-square %.2f over %zu groups, critical %.2f",
			       what, chi2, groups, critical);
	}
	free(obs);
}

/* expect_fair() - @n rolls of @fd are those of a fair d@sides */
static void expect_fair(struct __test_metadata *_metadata, int fd,
			__u64 sides, size_t n, const char *what)
{
	__u64 *ones = xcalloc(_metadata, sides, sizeof(*ones)), i;

	for (i = 0; i < sides; i++)
		ones[i] = 1;
	expect_dist(_metadata, fd, ones, sides, sides, n, what);
	free(ones);
}

/* ---- round trips --------------------------------------------------------- */

DIE_FIXTURE(dice, O_RDONLY)

/**
 * struct weights_case - weights and the distribution they stand for
 * @sides: number of weights
 * @w: the weights
 * @m: their distribution in lowest terms, by hand: @w over their gcd
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

/*
 * expect_weights_die() - @fd rolls the die of weights @c, in U16 from 0 by
 * RECYCLE: the masses computed from @c->w are the ones by hand, and the
 * rolls follow them
 */
static void expect_weights_die(struct __test_metadata *_metadata, int fd,
			       const struct weights_case *c, const char *what)
{
	struct dice_die_info info;
	__u64 m[6], total;
	__u32 i;

	weights_masses(_metadata, c->w, c->sides, m, &total);
	EXPECT_EQ(c->total, total) TH_LOG("%s", what);
	for (i = 0; i < c->sides; i++) {
		EXPECT_EQ(c->m[i], m[i]) TH_LOG("%s: mass of side %u", what, i);
	}
	get_info(_metadata, fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind) TH_LOG("%s", what);
	EXPECT_EQ(c->sides, info.sides) TH_LOG("%s", what);
	EXPECT_EQ(DICE_FMT_U16 | FMT_ZB, info.format) TH_LOG("%s", what);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method) TH_LOG("%s", what);
	EXPECT_EQ(0, info.padding) TH_LOG("%s", what);
	expect_dist(_metadata, fd, m, c->sides, total, ROUND_ROLLS, what);
}

/* Weights in, rolls by the weights over their gcd out; zero weights never. */
TEST_F(dice, weights_round_trip)
{
	char what[32];
	size_t i;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(weights_cases); i++) {
		const struct weights_case *c = &weights_cases[i];
		int err = set_weights(self->fd, c->w, c->sides);

		ASSERT_EQ(0, err) TH_LOG("case %zu: %s", i, strerror(err));
		snprintf(what, sizeof(what), "weights case %zu", i);
		expect_weights_die(_metadata, self->fd, c, what);
	}
}

/* The same weights as an alias table built in userspace: same masses. */
TEST_F(dice, vose_round_trip)
{
	char what[32];
	__u64 m[6], total;
	struct table t;
	size_t i;
	__u32 s;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(weights_cases); i++) {
		const struct weights_case *c = &weights_cases[i];
		int err;

		table_alloc(_metadata, &t, c->sides);
		vose_table(_metadata, c->w, c->sides, &t);
		table_masses(_metadata, &t, m, &total);
		EXPECT_EQ(c->total, total) TH_LOG("case %zu", i);
		for (s = 0; s < c->sides; s++) {
			EXPECT_EQ(c->m[s], m[s])
				TH_LOG("case %zu: table's mass of side %u", i,
				       s);
		}
		err = set_table(self->fd, &t);
		ASSERT_EQ(0, err) TH_LOG("case %zu: %s", i, strerror(err));
		table_free(&t);
		snprintf(what, sizeof(what), "Vose table case %zu", i);
		expect_weights_die(_metadata, self->fd, c, what);
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
	__u64 got[5], total;
	struct table t;
	__u32 c;
	int err;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	table_alloc(_metadata, &t, 5);
	vose_table(_metadata, w, 5, &t);
	EXPECT_EQ(12, t.mass);
	for (c = 0; c < 5; c++) {
		EXPECT_EQ(thr[c], t.thr[c]) TH_LOG("column %u", c);
		EXPECT_EQ(alias[c], t.alias[c]) TH_LOG("column %u", c);
	}
	table_free(&t);
	err = set_alias(self->fd, thr, alias, 12, 5);
	ASSERT_EQ(0, err) TH_LOG("SET_DIE alias: %s", strerror(err));
	expect_loaded(_metadata, self->fd, 5);
	t.sides = 5;
	t.mass = 12;
	t.thr = (__u64 *)thr;
	t.alias = (__u32 *)alias;
	table_masses(_metadata, &t, got, &total);
	EXPECT_EQ(12, total);
	for (c = 0; c < 5; c++) {
		EXPECT_EQ(m[c], got[c]) TH_LOG("mass of side %u", c);
	}
	expect_dist(_metadata, self->fd, m, 5, 12, ROUND_ROLLS, "Vose table");
}

/**
 * struct alias_case - an alias table and the distribution it stands for
 * @what: what is special about it
 * @sides: number of columns
 * @mass: D
 * @thr: thresholds
 * @alias: aliases
 * @m: the masses in lowest terms, by hand
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

/*
 * Hand-made tables: self aliases, full and empty columns, extreme masses.
 * What the columns add up to (table_masses()) is the distribution by hand,
 * and the rolls follow it.
 */
TEST_F(dice, alias_round_trip)
{
	struct table t;
	__u64 m[4], total;
	size_t i;
	__u32 s;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	for (i = 0; i < ARRAY_SIZE(alias_cases); i++) {
		const struct alias_case *c = &alias_cases[i];
		int err;

		t.sides = c->sides;
		t.mass = c->mass;
		t.thr = (__u64 *)c->thr;
		t.alias = (__u32 *)c->alias;
		table_masses(_metadata, &t, m, &total);
		EXPECT_EQ(c->total, total) TH_LOG("%s", c->what);
		for (s = 0; s < c->sides; s++) {
			EXPECT_EQ(c->m[s], m[s])
				TH_LOG("%s: mass of side %u", c->what, s);
		}
		err = set_alias(self->fd, c->thr, c->alias, c->mass, c->sides);
		ASSERT_EQ(0, err) TH_LOG("%s: %s", c->what, strerror(err));
		expect_loaded(_metadata, self->fd, c->sides);
		expect_dist(_metadata, self->fd, c->m, c->sides, c->total,
			    ROUND_ROLLS, c->what);
	}
}

/*
 * A random 1000-column table with D = 2^40-ish, self aliases, full and
 * empty columns: the rolls follow what the columns add up to.
 */
TEST_F(dice, alias_random_round_trip)
{
	const __u32 n = 1000;
	__u64 seed = 0xd1ceULL, total, *m;
	struct table t;
	__u32 c;
	int err;

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
	err = set_table(self->fd, &t);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(err));
	expect_loaded(_metadata, self->fd, n);
	expect_dist(_metadata, self->fd, m, n, total, 16 * ROUND_ROLLS,
		    "random table");
	table_free(&t);
	free(m);
}

/*
 * A fair die rolls n equally likely faces; a fair SET_DIE turns a loaded
 * die fair again; the largest fair die is told by GET_DIE.
 */
TEST_F(dice, fair_masses)
{
	static const __u32 w[] = { 1, 2, 3 };
	struct dice_die_info info;

	REQUIRE_DIE(self->fd);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(6, info.sides);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	expect_fair(_metadata, self->fd, 6, ROUND_ROLLS, "d6");
	set_sides(_metadata, self->fd, 20);
	expect_fair(_metadata, self->fd, 20, ROUND_ROLLS, "d20");
	set_sides(_metadata, self->fd, 1);
	expect_fair(_metadata, self->fd, 1, 4096, "d1");

	ASSERT_EQ(0, set_weights(self->fd, w, 3));
	expect_loaded(_metadata, self->fd, 3);
	set_sides(_metadata, self->fd, 6);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(6, info.sides);
	EXPECT_EQ(DICE_FMT_U16 | FMT_ZB, info.format);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
	expect_fair(_metadata, self->fd, 6, ROUND_ROLLS, "d6 after {1, 2, 3}");

	set_format(_metadata, self->fd, DICE_FMT_U64);
	set_sides(_metadata, self->fd, DICE_MAX_FAIR_SIDES);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(DICE_MAX_FAIR_SIDES, info.sides);
	EXPECT_EQ(DICE_FMT_U64, info.format);
	EXPECT_EQ(0, info.padding);
}

/*
 * A die of exactly DICE_TABLE_SIDES_MAX sides is fine, by weights and by
 * table, and rolls by the masses computed from them.
 */
TEST_F_TIMEOUT(dice, max_sides_accepted, 120)
{
	__u32 n = max_table_sides(), i;
	__u64 *m, total;
	struct table t;
	__u32 *w;
	int err;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U32 | FMT_ZB);
	w = xcalloc(_metadata, n, sizeof(*w));
	m = xcalloc(_metadata, n, sizeof(*m));
	for (i = 0; i < n; i++)
		w[i] = i % 7 * 2;	/* gcd 2; faces 0, 7, 14, ... never */
	err = set_weights(self->fd, w, n);
	ASSERT_EQ(0, err) TH_LOG("%u weights: %s", n, strerror(err));
	expect_loaded(_metadata, self->fd, n);
	weights_masses(_metadata, w, n, m, &total);
	expect_dist(_metadata, self->fd, m, n, total, 1 << 20,
		    "DICE_TABLE_SIDES_MAX weights");

	table_alloc(_metadata, &t, n);
	t.mass = 3;
	for (i = 0; i < n; i++) {
		t.thr[i] = i % 4;
		t.alias[i] = n - 1 - i;
	}
	err = set_table(self->fd, &t);
	ASSERT_EQ(0, err) TH_LOG("%u columns: %s", n, strerror(err));
	expect_loaded(_metadata, self->fd, n);
	table_masses(_metadata, &t, m, &total);
	expect_dist(_metadata, self->fd, m, n, total, 1 << 20,
		    "DICE_TABLE_SIDES_MAX columns");
	table_free(&t);
	free(m);
	free(w);
}

/*
 * A loaded die of 2^14 sides or more that is drawn by column and height
 * (2^40 cells or more) draws the columns of its next 16 rolls ahead; when a
 * read from the CRNG returns, they go back to the recycler (as far as m
 * stays below 2^63; the rest are dropped), so each one-roll read below
 * draws its 16 columns again, over 16 * 14 bits, where held columns would
 * have let it draw one.  Under 128 unspent bits stay.
 */
TEST_F(dice, columns_drawn_ahead_not_held)
{
	const __u32 n = 1 << 14;
	struct dice_die_stats before, after;
	__u32 *w, face, i;
	int err;

	REQUIRE_DIE(self->fd);
	set_format(_metadata, self->fd, DICE_FMT_U32 | FMT_ZB);
	w = xcalloc(_metadata, n, sizeof(*w));
	/* Heavy weights: n W cells, past the 2^40 of a whole draw. */
	for (i = 0; i < n; i++)
		w[i] = 1 + (i * 2654435761U) % 65535;
	err = set_weights(self->fd, w, n);
	ASSERT_EQ(0, err) TH_LOG("%u weights: %s", n, strerror(err));
	for (i = 0; i < 3; i++) {
		get_stats(_metadata, self->fd, &before);
		ASSERT_EQ(sizeof(face), read(self->fd, &face, sizeof(face)));
		EXPECT_GT(n, face);
		get_stats(_metadata, self->fd, &after);
		EXPECT_LT(16 * 14, after.bits_used - before.bits_used)
			TH_LOG("read %u used %llu bits", i,
			       after.bits_used - before.bits_used);
		EXPECT_GT(128, after.bits_drawn - after.bits_used -
			       after.bits_discarded);
	}
	free(w);
}

/*
 * A table may hold a distribution whose total in lowest terms is 2^64
 * (side 0 collects 2^63 + 2^63 - 1 of 2^64, side 1 one): it rolls, side 1
 * with probability 2^-64.
 */
TEST_F(dice, alias_total_2_64)
{
	static const __u64 thr[] = { POW2(63), 1 };
	static const __u32 alias[] = { 0, 0 };
	struct table t = {
		.sides = 2, .mass = POW2(63),
		.thr = (__u64 *)thr, .alias = (__u32 *)alias,
	};
	__u64 share[2], obs[2];
	int err;

	REQUIRE_DIE(self->fd);
	ASSERT_TRUE(table_shares(&t, share));
	EXPECT_EQ(ALL_ONES, share[0]);
	EXPECT_EQ(1, share[1]);
	set_format(_metadata, self->fd, DICE_FMT_U16 | FMT_ZB);
	err = set_alias(self->fd, thr, alias, POW2(63), 2);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(err));
	expect_loaded(_metadata, self->fd, 2);
	count_rolls(_metadata, self->fd, 2, ROUND_ROLLS, obs);
	EXPECT_EQ(0, obs[1]);
}

/* ---- errno rules --------------------------------------------------------- */

/*
 * Each case starts from a loaded die {1, 2, 3} and checks that every
 * refused ioctl leaves the die as it was: GET_DIE and GET_STATS as before,
 * and the rolls those of the die from before (expect_same_rolls()).
 * @ref: a second file, set to the die from before to roll against
 * @map: two pages, the first read-write, the second PROT_NONE at @fault,
 * for user buffers that start readable and run into a fault.
 * @seed: for the bytes each comparison writes
 */
FIXTURE(dice_err) {
	int fd;
	int ref;
	size_t page;
	char *map;
	char *fault;
	__u64 seed;
};

static const __u32 base_w[] = { 1, 2, 3 };

FIXTURE_SETUP(dice_err)
{
	self->map = MAP_FAILED;
	self->ref = -1;
	self->seed = 0xe440ULL;
	self->page = getpagesize();
	self->fd = open_die(_metadata, O_RDWR);
	if (self->fd < 0)
		return;
	self->ref = open_die(_metadata, O_RDWR);
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
	if (self->ref >= 0)
		close(self->ref);
	if (self->fd >= 0)
		close(self->fd);
}

/**
 * struct die_state - what a refused ioctl must leave alone
 * @info: GET_DIE
 * @stats: GET_STATS
 */
struct die_state {
	struct dice_die_info info;
	struct dice_die_stats stats;
};

static void die_state(struct __test_metadata *_metadata, int fd,
		      struct die_state *s)
{
	memset(s, 0, sizeof(*s));
	get_info(_metadata, fd, &s->info);
	get_stats(_metadata, fd, &s->stats);
}

/* read_written() - what @fd makes of its written bits, until EAGAIN */
static size_t read_written(struct __test_metadata *_metadata, int fd,
			   char *buf, size_t room)
{
	size_t got = 0;

	while (got < room) {
		ssize_t ret = read(fd, buf + got, room - got);

		if (ret < 0) {
			ASSERT_EQ(EAGAIN, errno)
				TH_LOG("read: %s", strerror(errno));
			break;
		}
		ASSERT_LT(0, ret) TH_LOG("read: EOF");
		got += ret;
	}
	ASSERT_GT(room, got) TH_LOG("the written bits made no EAGAIN");
	return got;
}

/*
 * expect_same_rolls() - the file's die is @die: from the same written
 * bytes, self->fd makes exactly the rolls self->ref makes set to @die.
 * Both go back to the kernel's bits after.
 */
static void expect_same_rolls(struct __test_metadata *_metadata,
			      FIXTURE_DATA(dice_err) *self,
			      const struct dice_die_args *die,
			      const char *what)
{
	unsigned char bytes[WRITTEN_BYTES];
	char *got = xcalloc(_metadata, 2, WRITTEN_ROOM);
	char *want = got + WRITTEN_ROOM;
	size_t i, ngot, nwant;
	int err;

	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = splitmix(&self->seed) >> 56;
	err = set_die(self->ref, die);
	ASSERT_EQ(0, err) TH_LOG("%s: reference die: %s", what, strerror(err));
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN))
		TH_LOG("SET_SOURCE: %s", strerror(errno));
	ASSERT_EQ(0, set_u32(self->ref, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN))
		TH_LOG("SET_SOURCE: %s", strerror(errno));
	ASSERT_EQ(sizeof(bytes), write(self->fd, bytes, sizeof(bytes)));
	ASSERT_EQ(sizeof(bytes), write(self->ref, bytes, sizeof(bytes)));
	ngot = read_written(_metadata, self->fd, got, WRITTEN_ROOM);
	nwant = read_written(_metadata, self->ref, want, WRITTEN_ROOM);
	EXPECT_LT(0, nwant) TH_LOG("%s: no rolls from %d bytes", what,
				  WRITTEN_BYTES);
	EXPECT_EQ(nwant, ngot) TH_LOG("%s: other rolls than the die's", what);
	EXPECT_EQ(0, memcmp(want, got, nwant < ngot ? nwant : ngot))
		TH_LOG("%s: other rolls than the die's", what);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	ASSERT_EQ(0, set_u32(self->ref, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	free(got);
}

/*
 * expect_refused() - @cmd on @arg fails with @err and changes nothing:
 * GET_DIE and GET_STATS as before, and the rolls those of the die before
 */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(dice_err) *self, unsigned long cmd,
			   void *arg, int err, const char *what)
{
	struct die_state before, after;
	struct dice_die_args die;
	int got;

	die_state(_metadata, self->fd, &before);
	got = die_now(self->fd, &die);
	ASSERT_EQ(0, got) TH_LOG("%s: the die before: %s", what,
				 strerror(got));
	got = ioctl_errno(self->fd, cmd, arg);
	EXPECT_EQ(err, got)
		TH_LOG("%s: want %s, got %s", what, strerror(err),
		       got ? strerror(got) : "success");
	die_state(_metadata, self->fd, &after);
	EXPECT_EQ(0, memcmp(&before.info, &after.info, sizeof(before.info)))
		TH_LOG("%s changed the die: %llu sides kind %u method %u format %#x",
		       what, after.info.sides, after.info.kind,
		       after.info.method, after.info.format);
	EXPECT_EQ(0, memcmp(&before.stats, &after.stats, sizeof(before.stats)))
		TH_LOG("%s changed the die's stats", what);
	if (!memcmp(&before.info, &after.info, sizeof(before.info)))
		expect_same_rolls(_metadata, self, &die, what);
}

/* set_die_refused() - SET_DIE of @arg: @err, and nothing changed */
static void set_die_refused(struct __test_metadata *_metadata,
			    FIXTURE_DATA(dice_err) *self,
			    const struct dice_die_args *arg, int err,
			    const char *what)
{
	struct dice_die_args copy = *arg;

	expect_refused(_metadata, self, DICE_IOC_SET_DIE, &copy, err, what);
}

/*
 * expect_array_efault() - SET_DIE of @arg fails with EFAULT and changes
 * nothing when its array at @ptr is NULL, in the PROT_NONE page, or @len
 * bytes of @head (any bytes if NULL) that run into it
 */
static void expect_array_efault(struct __test_metadata *_metadata,
				FIXTURE_DATA(dice_err) *self,
				struct dice_die_args *arg, __u64 *ptr,
				const char *name, const void *head, size_t len)
{
	char what[64];

	*ptr = 0;
	snprintf(what, sizeof(what), "NULL %s", name);
	set_die_refused(_metadata, self, arg, EFAULT, what);
	*ptr = (uintptr_t)self->fault;
	snprintf(what, sizeof(what), "PROT_NONE %s", name);
	set_die_refused(_metadata, self, arg, EFAULT, what);
	if (head)
		memcpy(self->fault - len, head, len);
	*ptr = (uintptr_t)(self->fault - len);
	snprintf(what, sizeof(what), "%s running into PROT_NONE", name);
	set_die_refused(_metadata, self, arg, EFAULT, what);
}

/*
 * expect_struct_efault() - SET_DIE: EFAULT for a NULL or PROT_NONE struct,
 * and for a good one (@good) whose last @tail bytes are in PROT_NONE
 */
static void expect_struct_efault(struct __test_metadata *_metadata,
				 FIXTURE_DATA(dice_err) *self,
				 const struct dice_die_args *good)
{
	const size_t size = sizeof(*good);
	static const size_t tails[] = { 1, 4, 8, 16, 24 };
	char what[64];
	size_t i;

	expect_refused(_metadata, self, DICE_IOC_SET_DIE, NULL, EFAULT,
		       "NULL struct");
	expect_refused(_metadata, self, DICE_IOC_SET_DIE, self->fault, EFAULT,
		       "PROT_NONE struct");
	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		char *at = self->fault - (size - tails[i]);

		memcpy(at, good, size - tails[i]);
		snprintf(what, sizeof(what),
			 "struct with its last %zu bytes in PROT_NONE",
			 tails[i]);
		expect_refused(_metadata, self, DICE_IOC_SET_DIE, at, EFAULT,
			       what);
	}
}

/* The base die and its refusals: the comparison itself holds. */
TEST_F(dice_err, refusal_baseline)
{
	struct dice_die_args die;
	struct dice_die_info info;

	REQUIRE_DIE(self->fd);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	EXPECT_EQ(3, info.sides);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
	EXPECT_EQ(DICE_FMT_TEXT, info.format);
	ASSERT_EQ(0, die_now(self->fd, &die));
	/* the same die on both files: the same text */
	expect_same_rolls(_metadata, self, &die, "{1, 2, 3} against itself");
	/* and in U16 from 0, against the masses {1, 2, 3} */
	die.format = DICE_FMT_U16 | FMT_ZB;
	ASSERT_EQ(0, set_die(self->fd, &die));
	expect_same_rolls(_metadata, self, &die, "{1, 2, 3} in U16");
	expect_dist(_metadata, self->fd, (const __u64[]){ 1, 2, 3 }, 3, 6,
		    ROUND_ROLLS, "{1, 2, 3}");
}

/* A refused die leaves rolls by the masses of the old one, not the new. */
TEST_F(dice_err, refused_keeps_distribution)
{
	static const __u32 w[] = { 6, 0, 1 };
	struct dice_die_args die;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, die_set_format(self->fd, DICE_FMT_U16 | FMT_ZB));
	ASSERT_EQ(0, die_now(self->fd, &die));
	die.weights = (uintptr_t)w;
	die.flags = 1;
	set_die_refused(_metadata, self, &die, EINVAL, "{6, 0, 1}, flags 1");
	die.flags = 0;
	die.method = DICE_METHOD_VIGLIETTA;
	set_die_refused(_metadata, self, &die, EINVAL,
			"{6, 0, 1} by Viglietta");
	expect_dist(_metadata, self->fd, (const __u64[]){ 1, 2, 3 }, 3, 6,
		    ROUND_ROLLS, "{1, 2, 3} after refusals");
}

TEST_F(dice_err, set_weights_einval)
{
	static const __u32 zero[3] = { 0 };
	static const __u32 w[] = { 5, 5, 5 };
	static const __u64 thr[] = { 1, 1, 1 };
	static const __u32 alias[] = { 0, 1, 2 };
	struct dice_die_args arg = weights_die(w, 0, DICE_METHOD_RECYCLE,
					       DICE_FMT_TEXT);

	REQUIRE_DIE(self->fd);
	set_die_refused(_metadata, self, &arg, EINVAL, "0 sides");
	arg.weights = 0;
	set_die_refused(_metadata, self, &arg, EINVAL, "0 sides, NULL weights");
	arg.weights = (uintptr_t)w;
	arg.sides = 3;
	arg.flags = 1;
	set_die_refused(_metadata, self, &arg, EINVAL, "flags 1");
	arg.flags = 0x80000000u;
	set_die_refused(_metadata, self, &arg, EINVAL, "flags 1<<31");
	arg.flags = 0;
	arg.weights = (uintptr_t)zero;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights 0 0 0");
	arg.sides = 1;
	set_die_refused(_metadata, self, &arg, EINVAL, "weight 0");
	arg.weights = (uintptr_t)w;
	arg.sides = 3;
	/* what the weights kind does not use */
	arg.thresholds = (uintptr_t)thr;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights, thresholds");
	arg.thresholds = 0;
	arg.aliases = (uintptr_t)alias;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights, aliases");
	arg.aliases = 0;
	arg.mass = 3;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights, mass 3");
	arg.mass = 0;
	/* kinds, methods and formats */
	arg.kind = DICE_KIND_ALIAS + 1;
	set_die_refused(_metadata, self, &arg, EINVAL, "kind 3");
	arg.kind = ~(__u32)0;
	set_die_refused(_metadata, self, &arg, EINVAL, "kind 2^32 - 1");
	arg.kind = DICE_KIND_FAIR;
	set_die_refused(_metadata, self, &arg, EINVAL, "fair, weights");
	arg.kind = DICE_KIND_WEIGHTS;
	arg.method = DICE_METHOD_VIGLIETTA;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights by Viglietta");
	arg.method = DICE_METHOD_BATCH;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights by batch");
	arg.method = OLD_METHOD_REJECTION;
	set_die_refused(_metadata, self, &arg, EINVAL, "weights, method 4");
	arg.method = ~(__u32)0;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"weights, method 2^32 - 1");
	arg.method = DICE_METHOD_RECYCLE;
	arg.format = DICE_FMT_U64 + 1;
	set_die_refused(_metadata, self, &arg, EINVAL, "format type 5");
	arg.format = DICE_FMT_U16 | 0x200;
	set_die_refused(_metadata, self, &arg, EINVAL, "format flag 0x200");
	arg.format = DICE_FMT_TEXT;
	/* the method that is gone, on a fair die too */
	arg.kind = DICE_KIND_FAIR;
	arg.weights = 0;
	arg.method = OLD_METHOD_REJECTION;
	set_die_refused(_metadata, self, &arg, EINVAL, "fair d3, method 4");
	/* the same weights as they stand are good, by RECYCLE and by ALIAS */
	arg = weights_die(w, 3, DICE_METHOD_ALIAS, DICE_FMT_U16 | FMT_ZB);
	ASSERT_EQ(0, set_die(self->fd, &arg));
	expect_loaded(_metadata, self->fd, 3);
	expect_dist(_metadata, self->fd, (const __u64[]){ 1, 1, 1 }, 3, 3,
		    ROUND_ROLLS, "{5, 5, 5} by ALIAS");
}

/* Loaded dice of more than DICE_TABLE_SIDES_MAX sides, by weights */
TEST_F(dice_err, set_weights_e2big)
{
	static const __u32 w[] = { 5, 5, 5 };
	__u32 max = max_table_sides(), i;
	struct dice_die_args arg;
	__u32 *many;

	REQUIRE_DIE(self->fd);
	many = xcalloc(_metadata, max + 1, sizeof(*many));
	for (i = 0; i <= max; i++)
		many[i] = 1;
	arg = weights_die(many, (__u64)max + 1, DICE_METHOD_RECYCLE,
			  DICE_FMT_TEXT);
	set_die_refused(_metadata, self, &arg, E2BIG,
			"DICE_TABLE_SIDES_MAX + 1 sides");
	free(many);
	arg.weights = 0;
	arg.sides = ~(__u32)0;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^32 - 1 sides");
	/* sides are 64 bits: none of them is cut to 32 */
	arg.weights = (uintptr_t)w;
	arg.sides = POW2(32) + 3;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^32 + 3 sides");
	arg.sides = ALL_ONES;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^64 - 1 sides");
	/* while a fair die of as many sides is good */
	arg.weights = 0;
	arg.kind = DICE_KIND_FAIR;
	arg.sides = (__u64)max + 1;
	ASSERT_EQ(0, set_die(self->fd, &arg));
	ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
}

/*
 * What SET_DIE checks first: the arguments (EINVAL), then the sides of a
 * loaded die (E2BIG), then the format (EOVERFLOW), and only then does it
 * read the table (EFAULT, then the table's own EINVAL and EOVERFLOW).
 */
TEST_F(dice_err, set_die_precedence)
{
	static const __u64 thr_bad[] = { 1, 9, 1 };
	static const __u64 thr_over[] = { POW2(63), 0 };
	static const __u32 alias_over[] = { 0, 0 };
	static const __u32 alias_bad[] = { 0, 7, 0 };
	__u32 max = max_table_sides();
	struct dice_die_args arg;

	REQUIRE_DIE(self->fd);
	/* EINVAL before E2BIG */
	arg = weights_die(NULL, (__u64)max + 1, DICE_METHOD_RECYCLE,
			  DICE_FMT_U8);
	arg.flags = 1;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"flags 1, too many sides");
	arg.flags = 0;
	arg.method = DICE_METHOD_VIGLIETTA;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"Viglietta, too many sides");
	arg.method = DICE_METHOD_RECYCLE;
	arg.mass = 1;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"weights with a mass, too many sides");
	arg.mass = 0;
	/* E2BIG before EOVERFLOW and EFAULT */
	set_die_refused(_metadata, self, &arg, E2BIG,
			"too many sides in U8, NULL weights");
	/* EOVERFLOW before EFAULT */
	arg.sides = 300;
	set_die_refused(_metadata, self, &arg, EOVERFLOW,
			"300 sides in U8, NULL weights");
	arg.weights = (uintptr_t)self->fault;
	set_die_refused(_metadata, self, &arg, EOVERFLOW,
			"300 sides in U8, PROT_NONE weights");
	/* EINVAL of the arguments before EFAULT */
	arg.format = DICE_FMT_TEXT;
	arg.flags = 2;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"flags 2, PROT_NONE weights");
	arg.flags = 0;
	arg.kind = DICE_KIND_ALIAS;
	arg.mass = 1;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"alias with PROT_NONE weights");
	arg.weights = 0;
	arg.mass = 0;
	arg.thresholds = (uintptr_t)self->fault;
	arg.aliases = (uintptr_t)self->fault;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"alias of mass 0, PROT_NONE arrays");
	/* a table is read whole before it is checked */
	arg.sides = 3;
	arg.mass = 4;
	arg.thresholds = (uintptr_t)thr_bad;
	set_die_refused(_metadata, self, &arg, EFAULT,
			"threshold over the mass, PROT_NONE aliases");
	arg.aliases = (uintptr_t)alias_bad;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"threshold over the mass, alias out of range");
	arg.sides = 2;
	arg.mass = POW2(63);
	arg.thresholds = (uintptr_t)thr_over;
	arg.aliases = (uintptr_t)self->fault;
	set_die_refused(_metadata, self, &arg, EFAULT,
			"share 2^64, PROT_NONE aliases");
	arg.aliases = (uintptr_t)alias_over;
	set_die_refused(_metadata, self, &arg, EOVERFLOW, "share 2^64");
}

/*
 * Any other size of the new ioctls' numbers, and every number of the old
 * ioctls, is ENOTTY, whatever the struct holds; the die stays.
 */
TEST_F(dice_err, struct_sizes_enotty)
{
	static const __u32 w[] = { 5, 5 };
	static const __u64 thr[] = { 1, 1 };
	static const __u32 alias[] = { 1, 0 };
	/* a good die in the new struct, then zeros */
	struct {
		struct dice_die_args arg;
		__u64 tail[8];
	} ext = { .arg = weights_die(w, 2, DICE_METHOD_RECYCLE,
				     DICE_FMT_TEXT) };
	/* what the old structs held: {5, 5}; a table; sides 2 */
	__u64 old_weights[8] = { (uintptr_t)w, 2 };
	__u64 old_alias[8] = { (uintptr_t)thr, (uintptr_t)alias, 2, 2 };
	__u64 two[8] = { 2 }, buf[16];
	static const unsigned int sizes[] = { 0, 8, 16, 24, 32, 40, 48, 52,
					      56, 60, 64, 72, 120 };
	char what[64];
	size_t i;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(what, sizeof(what), "SET_DIE of %u bytes", sizes[i]);
		if (SET_DIE_SIZED(sizes[i]) != DICE_IOC_SET_DIE) {
			expect_refused(_metadata, self,
				       SET_DIE_SIZED(sizes[i]), &ext, ENOTTY,
				       what);
		}
		memset(buf, 0xa5, sizeof(buf));
		snprintf(what, sizeof(what), "GET_DIE of %u bytes", sizes[i]);
		if (GET_DIE_SIZED(sizes[i]) != DICE_IOC_GET_DIE) {
			expect_refused(_metadata, self,
				       GET_DIE_SIZED(sizes[i]), buf, ENOTTY,
				       what);
			EXPECT_EQ(POISON, buf[0]) TH_LOG("%s wrote", what);
		}
		memset(buf, 0xa5, sizeof(buf));
		snprintf(what, sizeof(what), "GET_STATS of %u bytes",
			 sizes[i]);
		if (GET_STATS_SIZED(sizes[i]) != DICE_IOC_GET_STATS) {
			expect_refused(_metadata, self,
				       GET_STATS_SIZED(sizes[i]), buf, ENOTTY,
				       what);
			EXPECT_EQ(POISON, buf[0]) TH_LOG("%s wrote", what);
		}
	}
	/* the right size in the wrong direction */
	expect_refused(_metadata, self,
		       _IOWR(DICE_IOC_MAGIC, 0x10, struct dice_die_args), &ext,
		       ENOTTY, "SET_DIE read-write");
	expect_refused(_metadata, self,
		       _IOR(DICE_IOC_MAGIC, 0x10, struct dice_die_args), &ext,
		       ENOTTY, "SET_DIE read");
	expect_refused(_metadata, self, _IO(DICE_IOC_MAGIC, 0x10), &ext,
		       ENOTTY, "SET_DIE without a struct");

	/* the old numbers */
	expect_refused(_metadata, self, OLD_SET_SIDES, two, ENOTTY,
		       "old SET_SIDES 2");
	expect_refused(_metadata, self, OLD_SET_FORMAT, two, ENOTTY,
		       "old SET_FORMAT");
	expect_refused(_metadata, self, OLD_SET_METHOD, two, ENOTTY,
		       "old SET_METHOD");
	expect_refused(_metadata, self, OLD_SET_SOURCE, two, ENOTTY,
		       "old SET_SOURCE");
	memset(buf, 0xa5, sizeof(buf));
	expect_refused(_metadata, self, OLD_GET_INFO, buf, ENOTTY,
		       "old GET_INFO");
	expect_refused(_metadata, self, OLD_GET_STATS, buf, ENOTTY,
		       "old GET_STATS");
	EXPECT_EQ(POISON, buf[0]);
	EXPECT_EQ(POISON, buf[7]);
	for (i = 8; i <= 64; i += 8) {
		snprintf(what, sizeof(what), "old SET_WEIGHTS of %zu bytes", i);
		expect_refused(_metadata, self, OLD_SET_WEIGHTS(i), old_weights,
			       ENOTTY, what);
		snprintf(what, sizeof(what), "old SET_ALIAS of %zu bytes", i);
		expect_refused(_metadata, self, OLD_SET_ALIAS(i), old_alias,
			       ENOTTY, what);
		memset(buf, 0xa5, sizeof(buf));
		buf[0] = (uintptr_t)(buf + 8);
		buf[1] = 8;
		snprintf(what, sizeof(what), "old GET_MASSES of %zu bytes", i);
		expect_refused(_metadata, self, OLD_GET_MASSES(i), buf, ENOTTY,
			       what);
		EXPECT_EQ(POISON, buf[2]) TH_LOG("%s wrote", what);
		EXPECT_EQ(POISON, buf[8]) TH_LOG("%s wrote masses", what);
	}

	/* the header's size is good */
	ASSERT_EQ(0, set_die(self->fd, &ext.arg));
	expect_loaded(_metadata, self->fd, 2);
}

TEST_F(dice_err, set_weights_efault)
{
	static const __u32 w[2] = { 1, 1 };
	struct dice_die_args arg = weights_die(NULL, 3, DICE_METHOD_RECYCLE,
					       DICE_FMT_TEXT);
	struct dice_die_args good = weights_die(w, 2, DICE_METHOD_RECYCLE,
						DICE_FMT_TEXT);

	REQUIRE_DIE(self->fd);
	/* two weights readable, the third in the PROT_NONE page */
	expect_array_efault(_metadata, self, &arg, &arg.weights, "weights", w,
			    sizeof(w));
	/* a good die, from a struct partly in PROT_NONE */
	expect_struct_efault(_metadata, self, &good);
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
 * SET_DIE refuses a loaded die the format does not fit, by weights and by
 * table, leaving the die as it was; a loaded die cannot be sent again in a
 * narrower format either.
 */
TEST_F(dice_err, loaded_eoverflow)
{
	const __u32 n = 65537;
	struct dice_die_args warg, aarg;
	__u32 *w, *alias, i;
	char what[64], twhat[64];
	struct table t;
	__u64 *thr;
	int err;

	REQUIRE_DIE(self->fd);
	w = xcalloc(_metadata, n, sizeof(*w));
	thr = xcalloc(_metadata, n, sizeof(*thr));
	alias = xcalloc(_metadata, n, sizeof(*alias));
	for (i = 0; i < n; i++) {
		w[i] = 1;
		thr[i] = 1;
		alias[i] = i;
	}
	t.thr = thr;
	t.alias = alias;
	t.mass = 1;
	for (i = 0; i < ARRAY_SIZE(fit_cases); i++) {
		const struct fit_case *c = &fit_cases[i];

		t.sides = c->sides;
		warg = weights_die(w, c->sides, DICE_METHOD_RECYCLE,
				   c->format);
		aarg = table_die(&t, DICE_METHOD_ALIAS, c->format);
		set_fair(_metadata, self->fd, 1, c->format);
		ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
		snprintf(what, sizeof(what), "%u weights, format %#x",
			 c->sides, c->format);
		snprintf(twhat, sizeof(twhat), "%u columns, format %#x",
			 c->sides, c->format);
		if (c->err) {
			set_die_refused(_metadata, self, &warg, c->err, what);
			set_die_refused(_metadata, self, &aarg, c->err, twhat);
			continue;
		}
		err = set_die(self->fd, &warg);
		EXPECT_EQ(0, err) TH_LOG("%s: %s", what, strerror(err));
		expect_loaded(_metadata, self->fd, c->sides);
		ASSERT_EQ(0, set_weights(self->fd, base_w, 3));
		err = set_die(self->fd, &aarg);
		EXPECT_EQ(0, err) TH_LOG("%s: %s", twhat, strerror(err));
		expect_loaded(_metadata, self->fd, c->sides);
	}

	/* A 300-side loaded die in text cannot go to U8, but to U16. */
	set_fair(_metadata, self->fd, 1, DICE_FMT_TEXT);
	ASSERT_EQ(0, set_weights(self->fd, w, 300));
	ASSERT_EQ(0, die_now(self->fd, &warg));
	warg.format = DICE_FMT_U8;
	set_die_refused(_metadata, self, &warg, EOVERFLOW,
			"U8 for a loaded d300");
	set_format(_metadata, self->fd, DICE_FMT_U16);
	expect_loaded(_metadata, self->fd, 300);
	free(w);
	free(thr);
	free(alias);
}

TEST_F(dice_err, set_alias_einval)
{
	static const __u32 w[] = { 1, 1, 1 };
	__u64 thr[3] = { 1, 2, 3 };
	__u32 alias[3] = { 2, 0, 1 };
	struct dice_die_args arg = {
		.sides = 3,
		.thresholds = (uintptr_t)thr,
		.aliases = (uintptr_t)alias,
		.mass = 4,
		.kind = DICE_KIND_ALIAS,
	};
	int err;

	REQUIRE_DIE(self->fd);
	/* the table as it stands is good */
	err = set_die(self->fd, &arg);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(err));
	ASSERT_EQ(0, set_weights(self->fd, base_w, 3));

	arg.sides = 0;
	set_die_refused(_metadata, self, &arg, EINVAL, "0 sides");
	arg.sides = 3;
	arg.flags = 1;
	set_die_refused(_metadata, self, &arg, EINVAL, "flags 1");
	arg.flags = 0x80000000u;
	set_die_refused(_metadata, self, &arg, EINVAL, "flags 1<<31");
	arg.flags = 0;
	arg.weights = (uintptr_t)w;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias with weights");
	arg.weights = 0;
	arg.method = DICE_METHOD_VIGLIETTA;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias by Viglietta");
	arg.method = DICE_METHOD_BATCH;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias by batch");
	arg.method = OLD_METHOD_REJECTION;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias, method 4");
	arg.method = DICE_METHOD_RECYCLE;
	arg.kind = DICE_KIND_WEIGHTS;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"a table as weights kind");
	arg.kind = DICE_KIND_FAIR;
	set_die_refused(_metadata, self, &arg, EINVAL, "a table as fair kind");
	arg.kind = DICE_KIND_ALIAS;
	arg.mass = 0;
	thr[0] = thr[1] = thr[2] = 0;
	set_die_refused(_metadata, self, &arg, EINVAL, "mass 0");
	arg.mass = 4;
	thr[0] = 1;
	thr[1] = 5;
	thr[2] = 3;
	set_die_refused(_metadata, self, &arg, EINVAL, "threshold mass + 1");
	thr[1] = ALL_ONES;
	set_die_refused(_metadata, self, &arg, EINVAL, "threshold 2^64 - 1");
	arg.mass = ALL_ONES - 1;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"threshold 2^64 - 1 over mass 2^64 - 2");
	arg.mass = 4;
	thr[1] = 2;
	alias[2] = 3;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias 3 of 3");
	alias[2] = ~(__u32)0;
	set_die_refused(_metadata, self, &arg, EINVAL, "alias 2^32 - 1");
	/* a full column never uses its alias, which must still be valid */
	alias[2] = 3;
	thr[2] = 4;
	set_die_refused(_metadata, self, &arg, EINVAL,
			"alias 3 of 3 on a full column");
	alias[2] = 1;
	/* and by the alias method the good table rolls what it stands for */
	thr[2] = 3;
	arg.method = DICE_METHOD_ALIAS;
	arg.format = DICE_FMT_U16 | FMT_ZB;
	err = set_die(self->fd, &arg);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(err));
	/* side 0: 1 + 2, side 1: 2 + 1, side 2: 3 + 3 */
	expect_dist(_metadata, self->fd, (const __u64[]){ 1, 1, 2 }, 3, 4,
		    ROUND_ROLLS, "{1, 2, 3} of 4, aliases {2, 0, 1}");
}

TEST_F(dice_err, set_alias_e2big)
{
	static const __u64 thr[] = { 1, 1 };
	__u32 max = max_table_sides(), i;
	struct dice_die_args arg = {
		.mass = 1,
		.kind = DICE_KIND_ALIAS,
	};
	__u32 *many_alias;
	__u64 *many_thr;

	REQUIRE_DIE(self->fd);
	many_thr = xcalloc(_metadata, max + 1, sizeof(*many_thr));
	many_alias = xcalloc(_metadata, max + 1, sizeof(*many_alias));
	for (i = 0; i <= max; i++)
		many_thr[i] = 1;
	arg.thresholds = (uintptr_t)many_thr;
	arg.aliases = (uintptr_t)many_alias;
	arg.sides = (__u64)max + 1;
	set_die_refused(_metadata, self, &arg, E2BIG,
			"DICE_TABLE_SIDES_MAX + 1 columns");
	free(many_thr);
	free(many_alias);
	arg.thresholds = 0;
	arg.aliases = 0;
	arg.sides = ~(__u32)0;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^32 - 1 columns");
	arg.thresholds = (uintptr_t)thr;
	arg.aliases = (uintptr_t)thr;
	arg.sides = POW2(32) + 2;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^32 + 2 columns");
	arg.sides = ALL_ONES;
	set_die_refused(_metadata, self, &arg, E2BIG, "2^64 - 1 columns");
}

TEST_F(dice_err, set_alias_efault)
{
	static const __u64 thr[] = { 1, 2, 3 };
	static const __u32 alias[] = { 2, 0, 1 };
	struct dice_die_args arg = {
		.sides = 3,
		.aliases = (uintptr_t)alias,
		.mass = 4,
		.kind = DICE_KIND_ALIAS,
	}, good;
	static const __u64 t[2] = { 1, 2 };
	static const __u32 a[2] = { 2, 0 };

	REQUIRE_DIE(self->fd);
	expect_array_efault(_metadata, self, &arg, &arg.thresholds,
			    "thresholds", t, sizeof(t));
	arg.thresholds = (uintptr_t)thr;
	expect_array_efault(_metadata, self, &arg, &arg.aliases, "aliases", a,
			    sizeof(a));
	arg.aliases = (uintptr_t)alias;
	good = arg;
	expect_struct_efault(_metadata, self, &good);
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
	struct dice_die_args arg = { .kind = DICE_KIND_ALIAS };
	struct table t;
	__u64 share[3];
	size_t i;
	int err;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* the oracle agrees that a share overflows */
		t.sides = cases[i].sides;
		t.mass = cases[i].mass;
		t.thr = (__u64 *)cases[i].thr;
		t.alias = (__u32 *)cases[i].alias;
		EXPECT_FALSE(table_shares(&t, share)) TH_LOG("%s",
							     cases[i].what);
		arg.thresholds = (uintptr_t)cases[i].thr;
		arg.aliases = (uintptr_t)cases[i].alias;
		arg.mass = cases[i].mass;
		arg.sides = cases[i].sides;
		set_die_refused(_metadata, self, &arg, EOVERFLOW,
				cases[i].what);
	}
	/* side 0: 2^63 + 2^63 - 1 */
	err = set_alias(self->fd, thr, alias, POW2(63), 2);
	EXPECT_EQ(0, err) TH_LOG("share 2^64 - 1: %s", strerror(err));
	expect_loaded(_metadata, self->fd, 2);
}

/* GET_DIE and GET_STATS: EFAULT for a struct they cannot write, whole. */
TEST_F(dice_err, get_efault)
{
	static const unsigned long cmds[] = {
		DICE_IOC_GET_DIE, DICE_IOC_GET_STATS,
	};
	size_t i, size;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		size = _IOC_SIZE(cmds[i]);
		expect_refused(_metadata, self, cmds[i], NULL, EFAULT,
			       "NULL struct");
		expect_refused(_metadata, self, cmds[i], self->fault, EFAULT,
			       "PROT_NONE struct");
		expect_refused(_metadata, self, cmds[i],
			       self->fault - size + 8, EFAULT,
			       "struct running into PROT_NONE");
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
	__u64 *tm, ttotal;
	struct table t;
	__u32 i;
	int err;

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
		err = set_weights(self->fd, self->w, self->sides);
		ASSERT_EQ(0, err) TH_LOG("SET_DIE weights: %s", strerror(err));
		return;
	}
	table_alloc(_metadata, &t, self->sides);
	vose_table(_metadata, self->w, self->sides, &t);
	/* what the columns add up to is what the weights stand for */
	tm = xcalloc(_metadata, self->sides, sizeof(*tm));
	table_masses(_metadata, &t, tm, &ttotal);
	ASSERT_EQ(self->total, ttotal);
	for (i = 0; i < self->sides; i++) {
		ASSERT_EQ(self->m[i], tm[i]) TH_LOG("side %u", i);
	}
	free(tm);
	err = set_table(self->fd, &t);
	ASSERT_EQ(0, err) TH_LOG("SET_DIE alias: %s", strerror(err));
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

/* GET_DIE tells the die set: loaded, its sides, format and method. */
TEST_F(dice_fit, masses)
{
	struct dice_die_info info;

	REQUIRE_DIE(self->fd);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	EXPECT_EQ(self->sides, info.sides);
	EXPECT_EQ(DICE_FMT_U16 | FMT_ZB, info.format);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
	EXPECT_EQ(0, info.padding);
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
	struct dice_die_stats st;
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

/* ---- dice swapped under readers ------------------------------------------ */

#define SWAP_SECONDS	3
#define SWAP_BIG	1000
#define SWAP_SMALL	3
#define SWAP_CHUNK	65536
#define SWAP_DICE	7

/**
 * struct swap_ctx - one file, a writer swapping dice, readers, a querier
 * @fd: the file, in DICE_FMT_U16 with or without FMT_ZB throughout
 * @w_small: SWAP_SMALL weights
 * @w_big: SWAP_BIG weights, the last one zero
 * @t_small: a SWAP_SMALL table
 * @t_big: a SWAP_BIG table, giving the last side nothing
 * @dice: the dice the writer sets whole, in turn; the first one is the
 *	file's die before the writer starts.  No two share sides, kind,
 *	method and format but where they are the same die.
 * @names: what each is
 * @stop: set when time is up or a thread failed
 * @failed: set by the first failure, which writes @why
 * @why: what failed
 * @reads: read() calls done
 * @swaps: dice set
 * @queries: GET_DIE and GET_STATS rounds done
 */
struct swap_ctx {
	int fd;
	__u32 w_small[SWAP_SMALL];
	__u32 w_big[SWAP_BIG];
	struct table t_small;
	struct table t_big;
	struct dice_die_args dice[SWAP_DICE];
	const char *names[SWAP_DICE];
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
 * big dice anything, those are read from 0, and the d6 and small dice stop
 * below it.
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

/* swap_match() - is @info one of the dice set, whole */
static bool swap_match(const struct swap_ctx *ctx,
		       const struct dice_die_info *info)
{
	int i;

	for (i = 0; i < SWAP_DICE; i++) {
		const struct dice_die_args *d = &ctx->dice[i];
		__u32 kind = d->kind == DICE_KIND_FAIR ? DICE_KIND_FAIR :
			     DICE_KIND_LOADED;

		if (d->sides == info->sides && kind == info->kind &&
		    d->method == info->method && d->format == info->format &&
		    !info->padding)
			return true;
	}
	return false;
}

/*
 * GET_DIE reports one of the dice set, whole: never the sides or kind of
 * one with the method or format of another (a loaded die by a fair-only
 * method, say); GET_STATS counters that only grow.
 */
static void *swap_querier(void *arg)
{
	struct swap_ctx *ctx = arg;
	struct dice_die_stats st, prev = { };
	struct dice_die_info info;
	int err;

	while (!atomic_load(&ctx->stop)) {
		memset(&info, 0xa5, sizeof(info));
		err = ioctl_errno(ctx->fd, DICE_IOC_GET_DIE, &info);
		if (err) {
			swap_fail(ctx, "GET_DIE: %s", strerror(err));
			break;
		}
		if (!swap_match(ctx, &info)) {
			swap_fail(ctx, "GET_DIE: no die set has %llu sides, kind %u, method %u, format %#x, padding %u",
				  info.sides, info.kind, info.method,
				  info.format, info.padding);
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
		atomic_fetch_add(&ctx->queries, 1);
	}
	return NULL;
}

/* swap_writer() - cycle through the dice until time is up */
static void swap_writer(struct swap_ctx *ctx, double seconds)
{
	struct timespec t0, now;
	__u64 i;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; !atomic_load(&ctx->stop); i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
		err = set_die(ctx->fd, &ctx->dice[i % SWAP_DICE]);
		if (err) {
			swap_fail(ctx, "SET_DIE %s: %s",
				  ctx->names[i % SWAP_DICE], strerror(err));
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

/* swap_fair() - the args of a fair d@sides */
static struct dice_die_args swap_fair(__u64 sides, __u32 method, __u32 fmt)
{
	struct dice_die_args d = {
		.sides = sides,
		.kind = DICE_KIND_FAIR,
		.method = method,
		.format = fmt,
	};

	return d;
}

FIXTURE_SETUP(dice_swap)
{
	const __u32 zb = DICE_FMT_U16 | FMT_ZB, one = DICE_FMT_U16;
	struct swap_ctx *ctx;
	__u32 v[SWAP_BIG], i;
	__u64 m[SWAP_SMALL], total;
	int err;

	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd < 0)
		return;
	ctx = xcalloc(_metadata, 1, sizeof(*ctx));
	self->ctx = ctx;
	ctx->fd = self->fd;

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
	table_masses(_metadata, &ctx->t_small, m, &total);
	ASSERT_EQ(8, m[0]);
	ASSERT_EQ(15, total);

	/*
	 * Methods and formats vary with the die: a mix of two (the d6 by
	 * ALIAS, a small die by Viglietta, a big die from 1) is no die set.
	 */
	ctx->names[0] = "fair d6 by RECYCLE";
	ctx->dice[0] = swap_fair(6, DICE_METHOD_RECYCLE, zb);
	ctx->names[1] = "big weights by RECYCLE";
	ctx->dice[1] = weights_die(ctx->w_big, SWAP_BIG, DICE_METHOD_RECYCLE,
				   zb);
	ctx->names[2] = "small table by ALIAS, from 1";
	ctx->dice[2] = table_die(&ctx->t_small, DICE_METHOD_ALIAS, one);
	ctx->names[3] = "fair d6 by Viglietta, from 1";
	ctx->dice[3] = swap_fair(6, DICE_METHOD_VIGLIETTA, one);
	ctx->names[4] = "small weights by RECYCLE";
	ctx->dice[4] = weights_die(ctx->w_small, SWAP_SMALL,
				   DICE_METHOD_RECYCLE, zb);
	ctx->names[5] = "big table by ALIAS";
	ctx->dice[5] = table_die(&ctx->t_big, DICE_METHOD_ALIAS, zb);
	ctx->names[6] = "fair d6 by batch";
	ctx->dice[6] = swap_fair(6, DICE_METHOD_BATCH, zb);
	err = set_die(self->fd, &ctx->dice[0]);
	ASSERT_EQ(0, err) TH_LOG("SET_DIE %s: %s", ctx->names[0],
				 strerror(err));
}

FIXTURE_TEARDOWN(dice_swap)
{
	struct swap_ctx *ctx = self->ctx;

	if (ctx) {
		table_free(&ctx->t_small);
		table_free(&ctx->t_big);
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
 * and 1000 sides and fair d6s, each by its own method and format, while
 * readers read and a querier queries the same file: no call fails, no face
 * is impossible, every GET_DIE is one whole die set, and the kernel does
 * not warn.
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
