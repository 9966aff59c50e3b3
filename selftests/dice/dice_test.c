// SPDX-License-Identifier: GPL-2.0
/*
 * dice_test.c - foundation selftests of /dev/dice
 *
 * The file is organised in sections:
 *
 *  - helpers (beyond those of dice_common.h): reading whole buffers,
 *    decoding binary rolls and checking text lines;
 *  - the default die (GET_DIE, text output);
 *  - binary formats, one fixture variant per format and number of sides;
 *  - errno rules, one case per rule: -EOVERFLOW, -EINVAL, -ENOTTY, -EFAULT;
 *  - text lines read in pieces;
 *  - bit accounting (DICE_IOC_GET_STATS);
 *  - chi-square goodness of fit;
 *  - independence of open files, signals, O_NONBLOCK;
 *  - the global counters in debugfs.
 *
 * Every case opens its own file of /dev/dice and is skipped when the device
 * is absent.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements (the check, then a loop
 * that runs the optional TH_LOG() and bails out), so under if, else and for
 * they always go in braces.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"

#define FMT_ZB		DICE_FMT_ZERO_BASED
#define SIDES_MAX	DICE_MAX_FAIR_SIDES

/* Bits the sampler may hold beyond what the faces served so far are worth. */
#define DICE_STATE_BITS	128

/* ---- helpers ------------------------------------------------------------- */

/* make_die() - make @fd a d@sides in @fmt, in one SET_DIE */
static void make_die(struct __test_metadata *_metadata, int fd, __u64 sides,
		     __u32 fmt)
{
	struct dice_die_args die = {
		.kind = DICE_KIND_FAIR,
		.sides = sides,
		.format = fmt,
	};
	int err = set_die(fd, &die);

	ASSERT_EQ(0, err) TH_LOG("d%llu in %#x: %s", sides, fmt, strerror(err));
}

/* read_all() - fill @buf; binary reads must ask for whole rolls */
static void read_all(struct __test_metadata *_metadata, int fd, void *buf,
		     size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t ret = read(fd, p, len);

		ASSERT_LT(0, ret) TH_LOG("read %zu: %s", len,
					 ret ? strerror(errno) : "EOF");
		ASSERT_GE(len, (size_t)ret);
		p += ret;
		len -= ret;
	}
}

static __u64 face_min(__u32 fmt)
{
	return (fmt & FMT_ZB) ? 0 : 1;
}

static __u64 face_max(__u64 sides, __u32 fmt)
{
	return (fmt & FMT_ZB) ? sides - 1 : sides;
}

/* read_rolls() - read @n binary rolls of @width bytes into @out */
static void read_rolls(struct __test_metadata *_metadata, int fd,
		       unsigned int width, __u64 *out, size_t n)
{
	unsigned char buf[65536];

	while (n) {
		size_t k = sizeof(buf) / width;
		size_t i;

		if (k > n)
			k = n;
		read_all(_metadata, fd, buf, k * width);
		for (i = 0; i < k; i++)
			out[i] = get_le(buf + i * width, width);
		out += k;
		n -= k;
	}
}

static unsigned int decimal_digits(__u64 v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/**
 * struct text_lines - checker of a text stream fed in arbitrary pieces
 * @lo: smallest valid face
 * @hi: largest valid face
 * @max_digits: digits of @hi, the longest valid line
 * @line: digits of the unfinished line
 * @len: number of bytes in @line
 * @lines: lines completed
 * @counts: lines per face - @lo, kept when @hi - @lo < 64
 */
struct text_lines {
	__u64 lo;
	__u64 hi;
	unsigned int max_digits;
	char line[24];
	unsigned int len;
	__u64 lines;
	__u64 counts[64];
};

static void text_init(struct text_lines *t, __u64 sides, __u32 fmt)
{
	memset(t, 0, sizeof(*t));
	t->lo = face_min(fmt);
	t->hi = face_max(sides, fmt);
	t->max_digits = decimal_digits(t->hi);
}

/* text_feed() - check that @buf continues a stream of valid lines */
static void text_feed(struct __test_metadata *_metadata, struct text_lines *t,
		      const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = buf[i];
		unsigned int j;
		__uint128_t v = 0;

		if (c != '\n') {
			ASSERT_TRUE(c >= '0' && c <= '9')
				TH_LOG("line %llu: byte %#x", t->lines, c);
			ASSERT_LT(t->len, t->max_digits)
				TH_LOG("line %llu: longer than %u digits",
				       t->lines, t->max_digits);
			t->line[t->len++] = c;
			continue;
		}
		ASSERT_NE(0, t->len) TH_LOG("line %llu is empty", t->lines);
		ASSERT_FALSE(t->len > 1 && t->line[0] == '0')
			TH_LOG("line %llu: leading zero", t->lines);
		for (j = 0; j < t->len; j++)
			v = v * 10 + (t->line[j] - '0');
		ASSERT_TRUE(v >= t->lo && v <= t->hi)
			TH_LOG("line %llu: %.*s outside %llu..%llu", t->lines,
			       (int)t->len, t->line, t->lo, t->hi);
		if (t->hi - t->lo < 64)
			t->counts[(__u64)v - t->lo]++;
		t->lines++;
		t->len = 0;
	}
}

/* read_lines() - read text in big pieces until @lines lines are complete */
static void read_lines(struct __test_metadata *_metadata, int fd,
		       struct text_lines *t, __u64 lines)
{
	char buf[4096];

	while (t->lines < lines) {
		ssize_t ret = read(fd, buf, sizeof(buf));

		ASSERT_LT(0, ret) TH_LOG("read: %s",
					 ret ? strerror(errno) : "EOF");
		text_feed(_metadata, t, buf, ret);
	}
}

/* expect_all_faces() - every face of a small die came up */
static void expect_all_faces(struct __test_metadata *_metadata,
			     const __u64 *counts, __u64 faces)
{
	__u64 i;

	i = 0;
	while (i < faces && counts[i])
		i++;
	EXPECT_EQ(faces, i) TH_LOG("face #%llu never seen", i);
}

/*
 * expect_stats_clean() - the fields of dice_stats that must be zero here,
 * and what a file of CRNG bits may hold between reads: under 128 unspent
 * bits, the rest of a long read's batches dropped (bits_discarded, a
 * small part of what was drawn)
 */
static void expect_stats_clean(struct __test_metadata *_metadata,
			       const struct dice_die_stats *st)
{
	EXPECT_EQ(0, st->coin_bits);
	EXPECT_LE(st->bits_used, st->bits_drawn);
	EXPECT_GT(128, st->bits_drawn - st->bits_used - st->bits_discarded);
	EXPECT_GT(st->bits_drawn, 10 * st->bits_discarded)
		TH_LOG("%llu of %llu bits drawn were dropped",
		       st->bits_discarded, st->bits_drawn);
}

/* ---- the default die ----------------------------------------------------- */

FIXTURE(dice) {
	int fd;
};

FIXTURE_SETUP(dice)
{
	self->fd = open_die(_metadata, O_RDONLY);
}

FIXTURE_TEARDOWN(dice)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dice, default_info)
{
	struct dice_die_info info;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(6, info.sides);
	EXPECT_EQ(DICE_FMT_TEXT, info.format);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
	EXPECT_EQ(0, info.padding);
}

TEST_F(dice, default_text)
{
	struct text_lines t;
	char buf[1200];

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	text_init(&t, 6, DICE_FMT_TEXT);
	/* 600 lines "[1-6]\n", exactly 1200 bytes */
	read_all(_metadata, self->fd, buf, sizeof(buf));
	text_feed(_metadata, &t, buf, sizeof(buf));
	EXPECT_EQ(600, t.lines);
	EXPECT_EQ(0, t.len);
	expect_all_faces(_metadata, t.counts, 6);
}

TEST_F(dice, text_zero_based)
{
	struct text_lines t;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	set_format(_metadata, self->fd, DICE_FMT_TEXT | FMT_ZB);
	text_init(&t, 6, DICE_FMT_TEXT | FMT_ZB);
	read_lines(_metadata, self->fd, &t, 600);
	expect_all_faces(_metadata, t.counts, 6);
}

/* ---- binary formats ------------------------------------------------------ */

FIXTURE(dice_fmt) {
	int fd;
};

FIXTURE_VARIANT(dice_fmt) {
	__u64 sides;
	__u32 format;
};

FIXTURE_VARIANT_ADD(dice_fmt, u8_d6) {
	.sides = 6, .format = DICE_FMT_U8,
};

FIXTURE_VARIANT_ADD(dice_fmt, u8_zero_d6) {
	.sides = 6, .format = DICE_FMT_U8 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u8_d255) {
	.sides = 255, .format = DICE_FMT_U8,
};

FIXTURE_VARIANT_ADD(dice_fmt, u8_zero_d256) {
	.sides = 256, .format = DICE_FMT_U8 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u16_d6) {
	.sides = 6, .format = DICE_FMT_U16,
};

FIXTURE_VARIANT_ADD(dice_fmt, u16_zero_d6) {
	.sides = 6, .format = DICE_FMT_U16 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u16_d65535) {
	.sides = 65535, .format = DICE_FMT_U16,
};

FIXTURE_VARIANT_ADD(dice_fmt, u16_zero_d65536) {
	.sides = 65536, .format = DICE_FMT_U16 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u32_d6) {
	.sides = 6, .format = DICE_FMT_U32,
};

FIXTURE_VARIANT_ADD(dice_fmt, u32_zero_d6) {
	.sides = 6, .format = DICE_FMT_U32 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u32_d4294967295) {
	.sides = POW2(32) - 1, .format = DICE_FMT_U32,
};

FIXTURE_VARIANT_ADD(dice_fmt, u32_zero_d4294967296) {
	.sides = POW2(32), .format = DICE_FMT_U32 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u64_d6) {
	.sides = 6, .format = DICE_FMT_U64,
};

FIXTURE_VARIANT_ADD(dice_fmt, u64_zero_d6) {
	.sides = 6, .format = DICE_FMT_U64 | FMT_ZB,
};

FIXTURE_VARIANT_ADD(dice_fmt, u64_dmax) {
	.sides = SIDES_MAX, .format = DICE_FMT_U64,
};

FIXTURE_VARIANT_ADD(dice_fmt, u64_zero_dmax) {
	.sides = SIDES_MAX, .format = DICE_FMT_U64 | FMT_ZB,
};

FIXTURE_SETUP(dice_fmt)
{
	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd >= 0)
		make_die(_metadata, self->fd, variant->sides, variant->format);
}

FIXTURE_TEARDOWN(dice_fmt)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dice_fmt, info)
{
	struct dice_die_info info;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(variant->sides, info.sides);
	EXPECT_EQ(variant->format, info.format);
	EXPECT_EQ(DICE_KIND_FAIR, info.kind);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
}

/*
 * Faces are in range as little-endian integers (a d6 in a wide format shows
 * a byte-order mistake at once); a small die shows every face, a wide one
 * shows faces in both halves of its range (nothing truncates the width) and
 * of both parities.
 */
TEST_F(dice_fmt, faces_in_range)
{
	const size_t n = 4096;
	unsigned int width = fmt_width(variant->format);
	__u64 lo = face_min(variant->format);
	__u64 hi = face_max(variant->sides, variant->format);
	__u64 mid = lo + (hi - lo) / 2;
	__u64 counts[64] = { 0 };
	size_t i, low_half = 0, odd = 0;
	__u64 *rolls;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	rolls = calloc(n, sizeof(*rolls));
	ASSERT_NE(NULL, rolls);
	read_rolls(_metadata, self->fd, width, rolls, n);
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(rolls[i] >= lo && rolls[i] <= hi)
			TH_LOG("roll %zu: %#llx outside %llu..%llu", i,
			       rolls[i], lo, hi);
		if (hi - lo < 64)
			counts[rolls[i] - lo]++;
		if (rolls[i] <= mid)
			low_half++;
		odd += rolls[i] & 1;
	}
	free(rolls);
	if (hi - lo < 64)
		expect_all_faces(_metadata, counts, hi - lo + 1);
	EXPECT_LT(0, low_half);
	EXPECT_GT(n, low_half);
	EXPECT_LT(0, odd);
	EXPECT_GT(n, odd);
}

/* Reads give whole rolls: rounded down to the width, EINVAL below it. */
TEST_F(dice_fmt, read_whole_rolls)
{
	static const size_t sizes[] = {
		1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 100, 4095, 4097, 65535,
	};
	unsigned int width = fmt_width(variant->format);
	struct dice_die_stats st;
	__u64 served = 0;
	size_t i;
	char *buf;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	buf = malloc(65536);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ssize_t ret = read(self->fd, buf, sizes[i]);

		if (sizes[i] < width) {
			EXPECT_EQ(-1, ret) TH_LOG("read %zu of %u-byte rolls",
						  sizes[i], width);
			EXPECT_EQ(EINVAL, errno);
			continue;
		}
		EXPECT_EQ(sizes[i] - sizes[i] % width, ret)
			TH_LOG("read %zu of %u-byte rolls", sizes[i], width);
		if (ret > 0)
			served += ret / width;
	}
	free(buf);
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(served, st.rolls);
}

/* ---- errno rules --------------------------------------------------------- */

/**
 * struct fit_case - does a die fit a format
 * @sides: number of sides
 * @format: DICE_FMT_*
 * @err: 0 when the faces fit, else EOVERFLOW
 */
struct fit_case {
	__u64 sides;
	__u32 format;
	int err;
};

static const struct fit_case fit_cases[] = {
	{ 255, DICE_FMT_U8, 0 },
	{ 256, DICE_FMT_U8, EOVERFLOW },
	{ 256, DICE_FMT_U8 | FMT_ZB, 0 },
	{ 257, DICE_FMT_U8, EOVERFLOW },
	{ 257, DICE_FMT_U8 | FMT_ZB, EOVERFLOW },
	{ 300, DICE_FMT_U8, EOVERFLOW },
	{ 65535, DICE_FMT_U16, 0 },
	{ 65536, DICE_FMT_U16, EOVERFLOW },
	{ 65536, DICE_FMT_U16 | FMT_ZB, 0 },
	{ 65537, DICE_FMT_U16 | FMT_ZB, EOVERFLOW },
	{ POW2(32) - 1, DICE_FMT_U32, 0 },
	{ POW2(32), DICE_FMT_U32, EOVERFLOW },
	{ POW2(32), DICE_FMT_U32 | FMT_ZB, 0 },
	{ POW2(32) + 1, DICE_FMT_U32 | FMT_ZB, EOVERFLOW },
	{ SIDES_MAX, DICE_FMT_U32 | FMT_ZB, EOVERFLOW },
	{ SIDES_MAX, DICE_FMT_U64, 0 },
	{ SIDES_MAX, DICE_FMT_U64 | FMT_ZB, 0 },
	{ SIDES_MAX, DICE_FMT_TEXT, 0 },
	{ SIDES_MAX, DICE_FMT_TEXT | FMT_ZB, 0 },
};

/* SET_DIE refuses a format the faces do not fit, leaving the die as is. */
TEST_F(dice, set_format_eoverflow)
{
	struct dice_die_info info;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	for (i = 0; i < ARRAY_SIZE(fit_cases); i++) {
		const struct fit_case *c = &fit_cases[i];

		make_die(_metadata, self->fd, c->sides, DICE_FMT_TEXT);
		EXPECT_EQ(c->err, die_set_format(self->fd, c->format))
			TH_LOG("d%llu in format %#x", c->sides, c->format);
		get_info(_metadata, self->fd, &info);
		EXPECT_EQ(c->sides, info.sides);
		EXPECT_EQ(c->err ? DICE_FMT_TEXT : c->format, info.format);
	}
}

/*
 * SET_DIE refuses faces the format does not fit, leaving the die as is:
 * the die and the format asked for together, whatever was set before.
 */
TEST_F(dice, set_sides_eoverflow)
{
	struct dice_die_info info;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	for (i = 0; i < ARRAY_SIZE(fit_cases); i++) {
		const struct fit_case *c = &fit_cases[i];
		struct dice_die_args die = {
			.kind = DICE_KIND_FAIR,
			.sides = c->sides,
			.format = c->format,
		};

		make_die(_metadata, self->fd, 1, DICE_FMT_TEXT);
		EXPECT_EQ(c->err, set_die(self->fd, &die))
			TH_LOG("d%llu in format %#x", c->sides, c->format);
		get_info(_metadata, self->fd, &info);
		EXPECT_EQ(c->err ? 1 : c->sides, info.sides);
		EXPECT_EQ(c->err ? DICE_FMT_TEXT : c->format, info.format);
		/* The same die again from U64, which fits all: no order. */
		make_die(_metadata, self->fd, 1, DICE_FMT_U64);
		EXPECT_EQ(c->err, set_die(self->fd, &die));
	}
}

/* The d6 that refused 300 sides in U8 still rolls 1..6 in U8. */
TEST_F(dice, set_sides_eoverflow_keeps_die)
{
	__u64 counts[6] = { 0 };
	unsigned char buf[600];
	struct dice_die_info info;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	set_format(_metadata, self->fd, DICE_FMT_U8);
	EXPECT_EQ(EOVERFLOW, die_set_sides(self->fd, 300));
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(6, info.sides);
	EXPECT_EQ(DICE_FMT_U8, info.format);
	read_all(_metadata, self->fd, buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++) {
		ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 6)
			TH_LOG("roll %zu is %u", i, buf[i]);
		counts[buf[i] - 1]++;
	}
	expect_all_faces(_metadata, counts, 6);
}

TEST_F(dice, set_sides_zero_einval)
{
	struct dice_die_info info;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	EXPECT_EQ(EINVAL, die_set_sides(self->fd, 0));
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(6, info.sides);
}

/*
 * SET_DIE refuses every malformed die with EINVAL and changes nothing:
 * flags, kinds, methods, and fields the kind does not use.
 */
TEST_F(dice, set_die_einval_changes_nothing)
{
	static const __u32 w[] = { 1, 2 };
	const struct dice_die_args bad[] = {
		{ .kind = DICE_KIND_FAIR, .sides = 20, .flags = 1 },
		{ .kind = DICE_KIND_FAIR, .sides = 20, .flags = 1u << 31 },
		{ .kind = 3, .sides = 20 },
		{ .kind = ~0u, .sides = 20 },
		{ .kind = DICE_KIND_FAIR, .sides = 20, .method = 4 },
		{ .kind = DICE_KIND_FAIR, .sides = 20, .method = ~0u },
		{ .kind = DICE_KIND_FAIR, .sides = 20,
		  .weights = (uintptr_t)w },
		{ .kind = DICE_KIND_FAIR, .sides = 20, .mass = 1 },
		{ .kind = DICE_KIND_FAIR, .sides = 20,
		  .thresholds = (uintptr_t)w },
		{ .kind = DICE_KIND_FAIR, .sides = 20, .aliases = (uintptr_t)w },
		{ .kind = DICE_KIND_WEIGHTS, .sides = 2, .weights = (uintptr_t)w,
		  .mass = 3 },
		{ .kind = DICE_KIND_WEIGHTS, .sides = 2, .weights = (uintptr_t)w,
		  .method = DICE_METHOD_VIGLIETTA },
		{ .kind = DICE_KIND_WEIGHTS, .sides = 2, .weights = (uintptr_t)w,
		  .method = DICE_METHOD_BATCH },
		{ .kind = DICE_KIND_WEIGHTS, .sides = 0, .weights = (uintptr_t)w },
		{ .kind = DICE_KIND_ALIAS, .sides = 2, .mass = 0,
		  .thresholds = (uintptr_t)w, .aliases = (uintptr_t)w },
		{ .kind = DICE_KIND_ALIAS, .sides = 2, .mass = 3,
		  .weights = (uintptr_t)w },
	};
	struct dice_die_info before, after;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	make_die(_metadata, self->fd, 12, DICE_FMT_U16);
	get_info(_metadata, self->fd, &before);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, set_die(self->fd, &bad[i])) TH_LOG("case %zu", i);
		get_info(_metadata, self->fd, &after);
		EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)))
			TH_LOG("case %zu changed the die", i);
	}
}

/* check_bad_formats() - each of @fmts gives EINVAL and changes nothing */
static void check_bad_formats(struct __test_metadata *_metadata, int fd,
			      const __u32 *fmts, size_t n)
{
	struct dice_die_info info;
	size_t i;

	set_format(_metadata, fd, DICE_FMT_U8);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(EINVAL, die_set_format(fd, fmts[i]))
			TH_LOG("format %#x", fmts[i]);
		get_info(_metadata, fd, &info);
		EXPECT_EQ(DICE_FMT_U8, info.format);
		EXPECT_EQ(6, info.sides);
	}
}

TEST_F(dice, set_format_bad_type_einval)
{
	static const __u32 fmts[] = {
		5, 6, 0x7f, 0x80, 0xff, 5 | FMT_ZB, 0xff | FMT_ZB,
	};

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	check_bad_formats(_metadata, self->fd, fmts, ARRAY_SIZE(fmts));
}

TEST_F(dice, set_format_bad_flags_einval)
{
	static const __u32 fmts[] = {
		0x200, DICE_FMT_U8 | 0x200, DICE_FMT_U8 | FMT_ZB | 0x200,
		0x400, 0x10000, 0x80000000u, DICE_FMT_U64 | 0x80000000u,
		~(__u32)0,
	};

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	check_bad_formats(_metadata, self->fd, fmts, ARRAY_SIZE(fmts));
}

TEST_F(dice, unknown_ioctl_enotty)
{
	static const unsigned long cmds[] = {
		_IO(DICE_IOC_MAGIC, 0x7f),
		_IOR(DICE_IOC_MAGIC, 0x7f, __u64),
		_IOWR(DICE_IOC_MAGIC, 0xff, struct dice_die_info),
		/* The nine ioctls of before the one-step die, all gone. */
		_IOW(DICE_IOC_MAGIC, 0x01, __u64),
		_IOW(DICE_IOC_MAGIC, 0x02, __u32),
		_IOR(DICE_IOC_MAGIC, 0x03, __u64[8]),
		_IOR(DICE_IOC_MAGIC, 0x04, __u64[8]),
		_IOW(DICE_IOC_MAGIC, 0x05, __u64[2]),
		_IOW(DICE_IOC_MAGIC, 0x06, __u64[4]),
		_IOWR(DICE_IOC_MAGIC, 0x07, __u64[5]),
		_IOW(DICE_IOC_MAGIC, 0x08, __u32),
		_IOW(DICE_IOC_MAGIC, 0x09, __u32),
		/* Today's numbers with another size: fixed sizes. */
		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x10, 48),
		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x10, 64),
		_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x11, 16),
		_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x11, 32),
		_IOC(_IOC_READ, DICE_IOC_MAGIC, 0x12, 64),
		_IOC(_IOC_WRITE, DICE_IOC_MAGIC, 0x1f, 8),
		_IOR('T', 1, int),
		TCGETS,
	};
	__u64 arg[32] = { 0 };
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(ENOTTY, ioctl_errno(self->fd, cmds[i], arg))
			TH_LOG("ioctl %#lx", cmds[i]);
	}
}

FIXTURE(dice_efault) {
	int fd;
	void *fault_page;
	size_t page_size;
};

FIXTURE_VARIANT(dice_efault) {
	unsigned long cmd;
};

FIXTURE_VARIANT_ADD(dice_efault, get_die) {
	.cmd = DICE_IOC_GET_DIE,
};

FIXTURE_VARIANT_ADD(dice_efault, get_stats) {
	.cmd = DICE_IOC_GET_STATS,
};

FIXTURE_VARIANT_ADD(dice_efault, set_die) {
	.cmd = DICE_IOC_SET_DIE,
};

FIXTURE_SETUP(dice_efault)
{
	self->fault_page = MAP_FAILED;
	self->page_size = getpagesize();
	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd < 0)
		return;
	self->fault_page = mmap(NULL, self->page_size, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->fault_page);
}

FIXTURE_TEARDOWN(dice_efault)
{
	if (self->fault_page != MAP_FAILED)
		munmap(self->fault_page, self->page_size);
	if (self->fd >= 0)
		close(self->fd);
}

/* expect_efault() - @cmd on @arg gives EFAULT and changes nothing */
static void expect_efault(struct __test_metadata *_metadata, int fd,
			  unsigned long cmd, void *arg)
{
	struct dice_die_info before, after;

	get_info(_metadata, fd, &before);
	EXPECT_EQ(EFAULT, ioctl_errno(fd, cmd, arg)) TH_LOG("ioctl %#lx", cmd);
	get_info(_metadata, fd, &after);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
}

TEST_F(dice_efault, null_arg)
{
	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	expect_efault(_metadata, self->fd, variant->cmd, NULL);
}

TEST_F(dice_efault, prot_none_arg)
{
	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	expect_efault(_metadata, self->fd, variant->cmd, self->fault_page);
}

/* ---- text read in pieces ------------------------------------------------- */

FIXTURE(dice_text) {
	int fd;
};

/* @chunk: bytes per read(), 0 for a cycle of sizes */
FIXTURE_VARIANT(dice_text) {
	__u64 sides;
	size_t chunk;
};

FIXTURE_VARIANT_ADD(dice_text, d6_by_1) {
	.sides = 6, .chunk = 1,
};

FIXTURE_VARIANT_ADD(dice_text, d6_by_3) {
	.sides = 6, .chunk = 3,
};

FIXTURE_VARIANT_ADD(dice_text, d6_mixed) {
	.sides = 6, .chunk = 0,
};

FIXTURE_VARIANT_ADD(dice_text, d1000_by_3) {
	.sides = 1000, .chunk = 3,
};

FIXTURE_VARIANT_ADD(dice_text, dmax_by_1) {
	.sides = SIDES_MAX, .chunk = 1,
};

FIXTURE_VARIANT_ADD(dice_text, dmax_by_3) {
	.sides = SIDES_MAX, .chunk = 3,
};

FIXTURE_VARIANT_ADD(dice_text, dmax_mixed) {
	.sides = SIDES_MAX, .chunk = 0,
};

FIXTURE_SETUP(dice_text)
{
	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd >= 0)
		set_sides(_metadata, self->fd, variant->sides);
}

FIXTURE_TEARDOWN(dice_text)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * 200 rolls read in small pieces reassemble into valid lines, and the die
 * produced exactly the lines seen, plus the one being read if any.
 */
TEST_F(dice_text, partial_reads)
{
	static const size_t cycle[] = { 1, 2, 3, 5, 7, 11, 21, 22, 64 };
	struct text_lines t;
	struct dice_die_stats st;
	size_t k = 0;
	char buf[64];

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	text_init(&t, variant->sides, DICE_FMT_TEXT);
	while (t.lines < 200) {
		size_t want = variant->chunk ?: cycle[k++ % ARRAY_SIZE(cycle)];
		ssize_t ret = read(self->fd, buf, want);

		ASSERT_LT(0, ret) TH_LOG("read %zu: %s", want,
					 ret ? strerror(errno) : "EOF");
		ASSERT_GE(want, (size_t)ret);
		text_feed(_metadata, &t, buf, ret);
	}
	get_stats(_metadata, self->fd, &st);
	if (t.len) {
		EXPECT_EQ(t.lines + 1, st.rolls);
	} else {
		EXPECT_TRUE(st.rolls == t.lines || st.rolls == t.lines + 1)
			TH_LOG("%llu rolls for %llu lines", st.rolls, t.lines);
	}
	if (variant->sides <= 64)
		expect_all_faces(_metadata, t.counts, variant->sides);
}

/* ---- bit accounting ------------------------------------------------------ */

/* A d6 spends within 0.1% of log2(6) bits a roll. */
TEST_F_TIMEOUT(dice, stats_d6, 120)
{
	const size_t n = 100000;
	double per_roll = log2(6.0);
	struct dice_die_stats st;
	unsigned char *buf;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	set_format(_metadata, self->fd, DICE_FMT_U8);
	buf = malloc(n);
	ASSERT_NE(NULL, buf);
	read_all(_metadata, self->fd, buf, n);
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 6)
			TH_LOG("roll %zu is %u", i, buf[i]);
	}
	free(buf);
	get_stats(_metadata, self->fd, &st);
	TH_LOG("%zu rolls: used %llu drawn %llu (%.6f bits a roll, ideal %.6f)",
	       n, st.bits_used, st.bits_drawn, (double)st.bits_used / n,
	       per_roll);
	EXPECT_EQ(n, st.rolls);
	EXPECT_LE(n * per_roll * 0.999, (double)st.bits_used);
	EXPECT_GE(n * per_roll * 1.001 + DICE_STATE_BITS, (double)st.bits_used);
	expect_stats_clean(_metadata, &st);
}

/* A d(2^k) spends exactly k bits a roll, in every width. */
TEST_F_TIMEOUT(dice, stats_power_of_two, 120)
{
	static const struct {
		__u64 sides;
		__u32 format;
		unsigned int bits;
	} cases[] = {
		{ 2, DICE_FMT_U8, 1 },
		{ 8, DICE_FMT_U8, 3 },
		{ 8, DICE_FMT_U64 | FMT_ZB, 3 },
		{ 256, DICE_FMT_U8 | FMT_ZB, 8 },
		{ 1024, DICE_FMT_U16, 10 },
		{ 65536, DICE_FMT_U16 | FMT_ZB, 16 },
		{ POW2(32), DICE_FMT_U32 | FMT_ZB, 32 },
		{ POW2(63), DICE_FMT_U64, 63 },
	};
	const size_t n = 10000;
	struct dice_die_stats st;
	__u64 *rolls;
	size_t i, j;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	rolls = calloc(n, sizeof(*rolls));
	ASSERT_NE(NULL, rolls);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 lo = face_min(cases[i].format);
		__u64 hi = face_max(cases[i].sides, cases[i].format);
		int fd = open_die(_metadata, O_RDONLY);

		ASSERT_LE(0, fd);
		make_die(_metadata, fd, cases[i].sides, cases[i].format);
		read_rolls(_metadata, fd, fmt_width(cases[i].format), rolls, n);
		j = 0;
		while (j < n && rolls[j] >= lo && rolls[j] <= hi)
			j++;
		ASSERT_EQ(n, j) TH_LOG("d%llu: roll %zu is %llu",
				       cases[i].sides, j, rolls[j]);
		get_stats(_metadata, fd, &st);
		close(fd);
		EXPECT_EQ(n, st.rolls) TH_LOG("d%llu", cases[i].sides);
		EXPECT_EQ((__u64)n * cases[i].bits, st.bits_used)
			TH_LOG("d%llu", cases[i].sides);
		expect_stats_clean(_metadata, &st);
	}
	free(rolls);
}

/*
 * A batch (DICE_METHOD_BATCH) draws hundreds of rolls at once from the
 * CRNG; what a one-roll read leaves of it is dropped when the read returns,
 * so each read below draws a batch of its own (about 2,500 bits for a d6)
 * where the rolls of the first batch would have served them all.  Under
 * 128 unspent bits stay; the rest of the read's last fill is dropped, a
 * larger part of what one roll draws than expect_stats_clean() allows.
 */
TEST_F(dice, stats_batch_between_reads)
{
	struct dice_die_stats before, after;
	unsigned char face;
	unsigned int i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	ASSERT_EQ(0, die_set_method(self->fd, DICE_METHOD_BATCH));
	set_format(_metadata, self->fd, DICE_FMT_U8);
	for (i = 0; i < 3; i++) {
		get_stats(_metadata, self->fd, &before);
		ASSERT_EQ(1, read(self->fd, &face, 1));
		EXPECT_TRUE(face >= 1 && face <= 6) TH_LOG("face %u", face);
		get_stats(_metadata, self->fd, &after);
		EXPECT_LT(1000, after.bits_used - before.bits_used)
			TH_LOG("read %u used %llu bits", i,
			       after.bits_used - before.bits_used);
		EXPECT_GT(128, after.bits_drawn - after.bits_used -
			       after.bits_discarded);
	}
}

/* A d1 always shows its one face and spends nothing. */
TEST_F(dice, stats_d1)
{
	static const __u32 fmts[] = {
		DICE_FMT_U8, DICE_FMT_U8 | FMT_ZB, DICE_FMT_U64,
	};
	unsigned char buf[8 * 1000];
	struct dice_die_stats st;
	struct text_lines t;
	__u64 rolls = 0;
	size_t i, j;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	set_sides(_metadata, self->fd, 1);
	text_init(&t, 1, DICE_FMT_TEXT);
	read_lines(_metadata, self->fd, &t, 1000);
	EXPECT_EQ(t.lines, t.counts[0]);
	rolls += t.lines + !!t.len;
	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		unsigned int width = fmt_width(fmts[i]);
		__u64 face = face_min(fmts[i]);

		set_format(_metadata, self->fd, fmts[i]);
		read_all(_metadata, self->fd, buf, sizeof(buf));
		for (j = 0; j < sizeof(buf); j += width) {
			ASSERT_EQ(face, get_le(buf + j, width))
				TH_LOG("format %#x, roll %zu", fmts[i], j);
		}
		rolls += sizeof(buf) / width;
	}
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.bits_used);
	EXPECT_EQ(rolls, st.rolls);
}

/* ---- goodness of fit ----------------------------------------------------- */

FIXTURE(dice_chi) {
	int fd;
};

/*
 * @buckets: faces map to @buckets equal ranges (@buckets == @sides: one face
 * each); @critical: chi-square quantile for @buckets - 1 degrees of freedom
 * at p = 1e-6, so that a correct die fails about once in a million runs.
 */
FIXTURE_VARIANT(dice_chi) {
	__u64 sides;
	__u32 format;
	unsigned int buckets;
	double critical;
};

FIXTURE_VARIANT_ADD(dice_chi, d6) {
	.sides = 6, .format = DICE_FMT_U8, .buckets = 6,
	.critical = 35.89,
};

FIXTURE_VARIANT_ADD(dice_chi, d20) {
	.sides = 20, .format = DICE_FMT_U32, .buckets = 20,
	.critical = 63.68,
};

/* 2^63 + 1: the worst case of plain rejection sampling */
FIXTURE_VARIANT_ADD(dice_chi, d2p63_plus_1) {
	.sides = POW2(63) + 1, .format = DICE_FMT_U64, .buckets = 16,
	.critical = 56.49,
};

FIXTURE_SETUP(dice_chi)
{
	self->fd = open_die(_metadata, O_RDONLY);
	if (self->fd >= 0)
		make_die(_metadata, self->fd, variant->sides, variant->format);
}

FIXTURE_TEARDOWN(dice_chi)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Faces x = face - min, on [0, n), go to k buckets two ways: by range
 * (x * k / n, the high bits) and, when k < n, by residue (x % k, the low
 * bits).  Neither needs k to divide n: each bucket's exact size is known.
 */
static double chi_square(const __u64 *obs, const __uint128_t *size,
			 unsigned int k, size_t rolls, __u64 n)
{
	double chi2 = 0;
	unsigned int b;

	for (b = 0; b < k; b++) {
		double expected = (double)rolls * (double)size[b] / (double)n;
		double d = (double)obs[b] - expected;

		chi2 += d * d / expected;
	}
	return chi2;
}

TEST_F_TIMEOUT(dice_chi, goodness_of_fit, 600)
{
	const size_t rolls = 1000000, chunk = 8192;
	unsigned int width = fmt_width(variant->format);
	unsigned int k = variant->buckets;
	__u64 n = variant->sides;
	__u64 lo = face_min(variant->format);
	__u64 hi = face_max(n, variant->format);
	__u64 by_range[64] = { 0 }, by_residue[64] = { 0 };
	__uint128_t range_sizes[64], residue_sizes[64];
	size_t done, i;
	double chi2;
	unsigned int b;
	__u64 *buf;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	ASSERT_GE(64, k);
	buf = calloc(chunk, sizeof(*buf));
	ASSERT_NE(NULL, buf);
	for (done = 0; done < rolls; done += chunk) {
		size_t m = rolls - done < chunk ? rolls - done : chunk;

		read_rolls(_metadata, self->fd, width, buf, m);
		for (i = 0; i < m; i++) {
			__u64 x = buf[i] - lo;

			ASSERT_TRUE(buf[i] >= lo && buf[i] <= hi)
				TH_LOG("roll %zu: %llu", done + i, buf[i]);
			by_range[(__uint128_t)x * k / n]++;
			by_residue[x % k]++;
		}
	}
	free(buf);
	for (b = 0; b < k; b++) {
		range_sizes[b] = range_size(n, k, b);
		residue_sizes[b] = residue_size(n, k, b);
	}

	chi2 = chi_square(by_range, range_sizes, k, rolls, n);
	TH_LOG("d%llu: chi-square %.2f over %u ranges (critical %.2f)",
	       n, chi2, k, variant->critical);
	EXPECT_GT(variant->critical, chi2);
	if (k < n) {
		chi2 = chi_square(by_residue, residue_sizes, k, rolls, n);
		TH_LOG("d%llu: chi-square %.2f over %u residues (crit. %.2f)",
		       n, chi2, k, variant->critical);
		EXPECT_GT(variant->critical, chi2);
	}
}

/* ---- open files, signals, O_NONBLOCK ------------------------------------- */

/* Two files of /dev/dice are two dice: own config, own stream, own stats. */
TEST_F(dice, two_files_independent)
{
	__u64 a_counts[20] = { 0 }, a_rolls = 0;
	struct dice_die_info info_a, info_b;
	struct dice_die_stats st_a, st_b;
	unsigned char buf[100];
	struct text_lines t;
	int a, b, round;
	size_t i;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	a = self->fd;
	b = open_die(_metadata, O_RDONLY);
	ASSERT_LE(0, b);
	make_die(_metadata, a, 20, DICE_FMT_U8);
	get_info(_metadata, b, &info_b);
	EXPECT_EQ(6, info_b.sides);
	EXPECT_EQ(DICE_FMT_TEXT, info_b.format);

	text_init(&t, 6, DICE_FMT_TEXT);
	for (round = 0; round < 10; round++) {
		read_all(_metadata, a, buf, sizeof(buf));
		for (i = 0; i < sizeof(buf); i++) {
			ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 20)
				TH_LOG("d20 rolled %u", buf[i]);
			a_counts[buf[i] - 1]++;
		}
		a_rolls += sizeof(buf);
		/* 64 bytes of d6 text: 32 whole lines */
		read_all(_metadata, b, buf, 64);
		text_feed(_metadata, &t, (char *)buf, 64);
	}
	expect_all_faces(_metadata, a_counts, 20);
	expect_all_faces(_metadata, t.counts, 6);
	EXPECT_EQ(320, t.lines);

	get_info(_metadata, a, &info_a);
	get_info(_metadata, b, &info_b);
	EXPECT_EQ(20, info_a.sides);
	EXPECT_EQ(DICE_FMT_U8, info_a.format);
	EXPECT_EQ(6, info_b.sides);
	EXPECT_EQ(DICE_FMT_TEXT, info_b.format);
	get_stats(_metadata, a, &st_a);
	get_stats(_metadata, b, &st_b);
	EXPECT_EQ(a_rolls, st_a.rolls);
	EXPECT_TRUE(st_b.rolls == t.lines || st_b.rolls == t.lines + 1)
		TH_LOG("%llu rolls for %llu lines", st_b.rolls, t.lines);
	close(b);
}

static atomic_int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * A signal ends a 1 GiB read early with the count of bytes served (or EINTR
 * if none were); nothing served is lost from the stats and the die goes on.
 */
TEST_F_TIMEOUT(dice, signal_interrupts_read, 120)
{
	const size_t huge = (size_t)1 << 30;
	struct itimerval timer = {
		.it_value = { .tv_usec = 50000 },
		.it_interval = { .tv_usec = 100000 },
	};
	struct itimerval off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned char small[16];
	struct dice_die_stats st;
	unsigned char *buf;
	__u64 served = 0;
	ssize_t ret;
	size_t i;
	int err;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	set_format(_metadata, self->fd, DICE_FMT_U8);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;		/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	buf = mmap(NULL, huge, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);

	alarms = 0;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &timer, NULL));
	ret = read(self->fd, buf, huge);
	err = errno;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
	TH_LOG("read of 1 GiB returned %zd after %d signal(s)", ret,
	       atomic_load(&alarms));

	EXPECT_LT(0, atomic_load(&alarms));
	if (ret < 0) {
		EXPECT_EQ(EINTR, err) TH_LOG("read: %s", strerror(err));
	} else {
		EXPECT_LT(0, ret);
		EXPECT_GT((ssize_t)huge, ret);
		for (i = 0; i < (size_t)ret; i++) {
			ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 6)
				TH_LOG("roll %zu is %u", i, buf[i]);
		}
		served = ret;
	}
	munmap(buf, huge);

	read_all(_metadata, self->fd, small, sizeof(small));
	i = 0;
	while (i < sizeof(small) && small[i] >= 1 && small[i] <= 6)
		i++;
	EXPECT_EQ(sizeof(small), i) TH_LOG("roll %zu is %u", i, small[i]);
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(served + sizeof(small), st.rolls);
}

/* With the CRNG ready, an O_NONBLOCK read serves rolls at once. */
TEST_F(dice, nonblock_read)
{
	char buf[64], probe;
	ssize_t ret;
	int fd;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	fd = open_die(_metadata, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ret = read(fd, buf, sizeof(buf));
	if (ret < 0 && errno == EAGAIN &&
	    getrandom(&probe, 1, GRND_NONBLOCK) < 0 && errno == EAGAIN) {
		close(fd);
		SKIP(return, "the CRNG is not ready yet");
	}
	EXPECT_LT(0, ret) TH_LOG("read: %s", strerror(errno));

	set_format(_metadata, fd, DICE_FMT_U32);
	EXPECT_EQ(64, read(fd, buf, sizeof(buf)))
		TH_LOG("read: %s", strerror(errno));
	close(fd);

	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_LT(0, read(self->fd, buf, sizeof(buf)))
		TH_LOG("read: %s", strerror(errno));
}

/* ---- counters (debugfs) ------------------------------------------------- */

/* read_counter() - a global counter: decimal digits and a newline */
static __u64 read_counter(struct __test_metadata *_metadata, const char *name)
{
	char path[128], buf[32];
	__u64 v = 0;
	ssize_t len;
	ssize_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", DICE_DEBUGFS, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, len) TH_LOG("read %s: %s", path, strerror(errno));
	if (len > 0 && buf[len - 1] == '\n')	/* len > 0: for gcc 12 with 7.x's harness */
		len--;
	ASSERT_LT(0, len) TH_LOG("%s is empty", path);
	ASSERT_GE(20, len) TH_LOG("%s is too long", path);
	for (i = 0; i < len; i++) {
		ASSERT_TRUE(buf[i] >= '0' && buf[i] <= '9')
			TH_LOG("%s: byte %zd is %#x", path, i, buf[i]);
		ASSERT_GE((SIDES_MAX - (buf[i] - '0')) / 10, v)
			TH_LOG("%s overflows", path);
		v = v * 10 + (buf[i] - '0');
	}
	return v;
}

struct dice_counters {
	__u64 rolls;
	__u64 bits_used;
	__u64 bits_drawn;
	__u64 open_dice;
};

static void read_counters(struct __test_metadata *_metadata,
			  struct dice_counters *c)
{
	c->rolls = read_counter(_metadata, "rolls");
	c->bits_used = read_counter(_metadata, "bits_used");
	c->bits_drawn = read_counter(_metadata, "bits_drawn");
	c->open_dice = read_counter(_metadata, "open_dice");
}

TEST_F(dice, debugfs_counters)
{
	struct dice_counters before, after, two, one;
	unsigned char buf[1000];
	int fd;

	if (self->fd < 0)
		SKIP(return, "%s is absent", DICE_PATH);
	if (access(DICE_DEBUGFS, F_OK))
		SKIP(return, "no %s (debugfs not mounted, or not root)",
		     DICE_DEBUGFS);
	read_counters(_metadata, &before);
	EXPECT_LE(1, before.open_dice);

	set_format(_metadata, self->fd, DICE_FMT_U8);
	read_all(_metadata, self->fd, buf, sizeof(buf));
	read_counters(_metadata, &after);
	EXPECT_LE(before.rolls + sizeof(buf), after.rolls);
	EXPECT_LT(before.bits_used, after.bits_used);
	EXPECT_LT(before.bits_drawn, after.bits_drawn);

	fd = open_die(_metadata, O_RDONLY);
	ASSERT_LE(0, fd);
	read_counters(_metadata, &two);
	EXPECT_LE(2, two.open_dice);
	EXPECT_LT(after.open_dice, two.open_dice);
	close(fd);
	read_counters(_metadata, &one);
	EXPECT_GT(two.open_dice, one.open_dice);
}

TEST_HARNESS_MAIN
