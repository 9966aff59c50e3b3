/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dice_common.h - helpers shared by the selftests of /dev/dice
 *
 * Include after kselftest_harness.h: the helpers that take @_metadata use
 * its ASSERT_*() and SKIP().  Everything is static inline, so a test pays
 * nothing for what it does not use.
 *
 *  - opening a die, REQUIRE_DIE(), the ioctls (set_sides() and
 *    set_format() assert; set_weights() and set_alias() return the errno,
 *    as the cases test their refusals);
 *  - binary rolls: fmt_width(), get_le();
 *  - the exact size of a range or residue class of faces, gcd();
 *  - a seeded generator, a monotonic clock, reading a number from and
 *    writing a value to a sysfs file.
 */
#ifndef _DICE_COMMON_H
#define _DICE_COMMON_H

#ifndef __KSELFTEST_HARNESS_H
#error "include kselftest_harness.h before dice_common.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

#define DICE_PATH	"/dev/dice"
#define POW2(k)		((__u64)1 << (k))

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/*
 * open_die() - open one die with @flags (the access mode and any others);
 * -1 when there is no /dev/dice.  Fixtures open their die in FIXTURE_SETUP
 * and every case starts with REQUIRE_DIE(), which skips it: the 6.1 harness
 * would still run a case whose setup skipped.
 */
static inline int open_die(struct __test_metadata *_metadata, int flags)
{
	int fd = open(DICE_PATH, O_CLOEXEC | flags);

	if (fd < 0 && (errno == ENOENT || errno == ENXIO || errno == ENODEV))
		return -1;
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DICE_PATH, strerror(errno));
	return fd;
}

#define REQUIRE_DIE(fd) do {						\
	if ((fd) < 0)							\
		SKIP(return, "%s is absent", DICE_PATH);		\
} while (0)

/* ioctl_errno() - 0 when @cmd succeeds, else its errno */
static inline int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static inline void set_sides(struct __test_metadata *_metadata, int fd,
			     __u64 sides)
{
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_SET_SIDES, &sides))
		TH_LOG("SET_SIDES %llu: %s", sides, strerror(errno));
}

static inline void set_format(struct __test_metadata *_metadata, int fd,
			      __u32 fmt)
{
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_SET_FORMAT, &fmt))
		TH_LOG("SET_FORMAT %#x: %s", fmt, strerror(errno));
}

static inline void get_info(struct __test_metadata *_metadata, int fd,
			    struct dice_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_GET_INFO, info))
		TH_LOG("GET_INFO: %s", strerror(errno));
}

static inline void get_stats(struct __test_metadata *_metadata, int fd,
			     struct dice_stats *st)
{
	memset(st, 0xa5, sizeof(*st));
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_GET_STATS, st))
		TH_LOG("GET_STATS: %s", strerror(errno));
}

static inline int set_weights(int fd, const __u32 *weights, __u32 sides)
{
	struct dice_weights arg = {
		.weights = (uintptr_t)weights,
		.sides = sides,
	};

	return ioctl_errno(fd, DICE_IOC_SET_WEIGHTS, &arg);
}

static inline int set_alias(int fd, const __u64 *thr, const __u32 *alias,
			    __u64 mass, __u32 sides)
{
	struct dice_alias arg = {
		.thresholds = (uintptr_t)thr,
		.aliases = (uintptr_t)alias,
		.mass = mass,
		.sides = sides,
	};

	return ioctl_errno(fd, DICE_IOC_SET_ALIAS, &arg);
}

/* fmt_width() - bytes per roll of a binary format, 0 for text */
static inline unsigned int fmt_width(__u32 fmt)
{
	switch (fmt & DICE_FMT_TYPE_MASK) {
	case DICE_FMT_U8:
		return 1;
	case DICE_FMT_U16:
		return 2;
	case DICE_FMT_U32:
		return 4;
	case DICE_FMT_U64:
		return 8;
	default:
		return 0;
	}
}

/* get_le() - assemble a little-endian integer byte by byte */
static inline __u64 get_le(const unsigned char *p, unsigned int width)
{
	__u64 v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		v |= (__u64)p[i] << (8 * i);
	return v;
}

#ifdef __SIZEOF_INT128__	/* not in dice_compat32_test, an i386 build */
/* range_size() - faces x with x * k / n == b: ceil((b+1)n/k) - ceil(bn/k) */
static inline __uint128_t range_size(__u64 n, unsigned int k, unsigned int b)
{
	__uint128_t end = ((__uint128_t)n * (b + 1) + k - 1) / k;

	return end - ((__uint128_t)n * b + k - 1) / k;
}

/* residue_size() - faces x < n with x % k == b */
static inline __uint128_t residue_size(__u64 n, unsigned int k,
				       unsigned int b)
{
	return b < n ? (n - 1 - b) / k + 1 : 0;
}
#endif

/* gcd() - greatest common divisor, Euclid's way */
static inline __u64 gcd(__u64 a, __u64 b)
{
	while (b) {
		__u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* splitmix() - a small seeded generator (SplitMix64), advancing @s */
static inline __u64 splitmix(__u64 *s)
{
	__u64 x = (*s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* now() - seconds on the monotonic clock */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* read_u64_file() - the decimal number in @path (a sysfs or proc file) */
static inline bool read_u64_file(const char *path, __u64 *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return true;
}

/* write_file() - write @val to @path (a sysfs or cgroup file) in one go */
static inline bool write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, len) == (ssize_t)len;
	return !close(fd) && ok;
}

#endif /* _DICE_COMMON_H */
