/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dice_common.h - helpers shared by the selftests of /dev/dice
 *
 * Include after kselftest_harness.h: the helpers that take @_metadata use
 * its ASSERT_*() and SKIP().  Everything is static inline, so a test pays
 * nothing for what it does not use.
 *
 *  - opening a die (REQUIRE_DIE() and DIE_FIXTURE() are in dice_fixture.h),
 *    the ioctls: the die set whole (set_die()) or in steps through a model
 *    of each file's die (set_sides(), set_format(), get_info() and
 *    get_stats() assert; die_set_sides(), die_set_format(),
 *    die_set_method(), set_weights(), set_alias() and set_u32() return the
 *    errno, as the cases test their refusals);
 *  - binary rolls: fmt_width(), get_le(), read_full();
 *  - the exact size of a range or residue class of faces, gcd();
 *  - a seeded generator, a monotonic clock, reading a number from and
 *    writing a value to a sysfs file;
 *  - the module's figures: counter_u64() (debugfs, root's), table_sides();
 *    meminfo();
 *  - struct failures, where threads and children that must not assert
 *    record the first thing that went wrong.
 */
#ifndef _DICE_COMMON_H
#define _DICE_COMMON_H

#ifndef __KSELFTEST_HARNESS_H
#error "include kselftest_harness.h before dice_common.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/const.h>
#include <linux/dice.h>

/* The test hook: not uapi, in the driver's folder (kmod/ in this tree). */
#include "../../kmod/dice_test_hooks.h"

#define DICE_PATH	"/dev/dice"
#define DICE_DEBUGFS	"/sys/kernel/debug/dice"
#define MODULE_SYSFS	"/sys/module/dice"
#define TAINTED_PATH	"/proc/sys/kernel/tainted"
#define MEMINFO_PATH	"/proc/meminfo"
#define TAINT_WARN	_BITULL(9)	/* 'W': a WARN() fired */
#define POW2(k)		_BITULL(k)

/*
 * open_die() - open one die with @flags (the access mode and any others);
 * -1 when there is no /dev/dice.  Fixtures open their die in FIXTURE_SETUP
 * and every case starts by skipping itself when it got -1
 * (REQUIRE_DIE() of dice_fixture.h): the 6.1 harness would still run a
 * case whose setup skipped.
 */
static inline int open_die(struct __test_metadata *_metadata, int flags)
{
	int fd = open(DICE_PATH, O_CLOEXEC | flags);

	if (fd < 0 && (errno == ENOENT || errno == ENXIO || errno == ENODEV))
		return -1;
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DICE_PATH, strerror(errno));
	return fd;
}

/* ioctl_errno() - 0 when @cmd succeeds, else its errno */
static inline int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* set_u32() - @cmd with a __u32 argument (the test hook); its errno */
static inline int set_u32(int fd, unsigned long cmd, __u32 val)
{
	return ioctl_errno(fd, cmd, &val);
}

/*
 * DICE_IOC_SET_DIE takes the whole die.  Cases written in steps ("a d20",
 * "now in U8", "now by Viglietta") send the file's die with the one thing
 * changed, as the model below says.  The model keeps the pointers of the
 * table last set on each file (the case keeps those arrays while it rolls
 * the die); GET_DIE tells whether the kernel's die is still the model's,
 * and a fair die is taken from GET_DIE alone.  The model is this
 * process's: a file shared with another process, or changed by other
 * threads, is set whole with set_die() instead.
 */
#define DIE_MODEL_FDS	65536

/* die_model() - the model of @fd's die, NULL for an fd out of range */
static inline struct dice_die_args *die_model(int fd)
{
	static struct dice_die_args models[DIE_MODEL_FDS];

	return fd >= 0 && fd < DIE_MODEL_FDS ? &models[fd] : NULL;
}

/* die_now() - the die @fd rolls, as SET_DIE would set it again; its errno */
static inline int die_now(int fd, struct dice_die_args *args)
{
	const struct dice_die_args *m;
	struct dice_die_info info;
	int err = ioctl_errno(fd, DICE_IOC_GET_DIE, &info);

	if (err)
		return err;
	m = die_model(fd);
	if (info.kind == DICE_KIND_LOADED) {
		/* Only a table this process set can be sent again. */
		if (!m || m->kind == DICE_KIND_FAIR || m->sides != info.sides) {
			errno = ENOTRECOVERABLE;
			return errno;
		}
		*args = *m;
	} else {
		memset(args, 0, sizeof(*args));
		args->kind = DICE_KIND_FAIR;
		args->sides = info.sides;
	}
	args->method = info.method;
	args->format = info.format;
	return 0;
}

/* set_die() - SET_DIE of @args; its errno.  The model follows success. */
static inline int set_die(int fd, const struct dice_die_args *args)
{
	struct dice_die_args arg = *args, *m = die_model(fd);
	int err = ioctl_errno(fd, DICE_IOC_SET_DIE, &arg);

	if (!err && m)
		*m = *args;
	return err;
}

/* die_set_sides() - the file's die made fair with @sides; its errno */
static inline int die_set_sides(int fd, __u64 sides)
{
	struct dice_die_args d;
	int err = die_now(fd, &d);

	if (err)
		return err;
	d = (struct dice_die_args){
		.kind = DICE_KIND_FAIR,
		.sides = sides,
		.method = d.method,
		.format = d.format,
	};
	return set_die(fd, &d);
}

/* die_set_format() - the same die in @fmt; its errno */
static inline int die_set_format(int fd, __u32 fmt)
{
	struct dice_die_args d;
	int err = die_now(fd, &d);

	if (err)
		return err;
	d.format = fmt;
	return set_die(fd, &d);
}

/* die_set_method() - the same die rolled by @method; its errno */
static inline int die_set_method(int fd, __u32 method)
{
	struct dice_die_args d;
	int err = die_now(fd, &d);

	if (err)
		return err;
	d.method = method;
	return set_die(fd, &d);
}

static inline void set_sides(struct __test_metadata *_metadata, int fd,
			     __u64 sides)
{
	int err = die_set_sides(fd, sides);

	ASSERT_EQ(0, err) TH_LOG("SET_DIE d%llu: %s", sides, strerror(err));
}

static inline void set_format(struct __test_metadata *_metadata, int fd,
			      __u32 fmt)
{
	int err = die_set_format(fd, fmt);

	ASSERT_EQ(0, err) TH_LOG("SET_DIE format %#x: %s", fmt, strerror(err));
}

static inline void get_info(struct __test_metadata *_metadata, int fd,
			    struct dice_die_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_GET_DIE, info))
		TH_LOG("GET_DIE: %s", strerror(errno));
}

static inline void get_stats(struct __test_metadata *_metadata, int fd,
			     struct dice_die_stats *st)
{
	memset(st, 0xa5, sizeof(*st));
	ASSERT_EQ(0, ioctl_errno(fd, DICE_IOC_GET_STATS, st))
		TH_LOG("GET_STATS: %s", strerror(errno));
}

/* set_weights() - the file's die loaded by @weights, same method and format */
static inline int set_weights(int fd, const __u32 *weights, __u32 sides)
{
	struct dice_die_args d;
	int err = die_now(fd, &d);

	if (err)
		return err;
	d = (struct dice_die_args){
		.kind = DICE_KIND_WEIGHTS,
		.sides = sides,
		.weights = (uintptr_t)weights,
		.method = d.method,
		.format = d.format,
	};
	return set_die(fd, &d);
}

/* set_alias() - the file's die loaded by an alias table, likewise */
static inline int set_alias(int fd, const __u64 *thr, const __u32 *alias,
			    __u64 mass, __u32 sides)
{
	struct dice_die_args d;
	int err = die_now(fd, &d);

	if (err)
		return err;
	d.kind = DICE_KIND_ALIAS;
	d.sides = sides;
	d.weights = 0;
	d.thresholds = (uintptr_t)thr;
	d.aliases = (uintptr_t)alias;
	d.mass = mass;
	return set_die(fd, &d);
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

/* read_full() - @len bytes of rolls; false on error or a short count */
static inline bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t ret = read(fd, p, len);

		if (ret <= 0)
			return false;
		p += ret;
		len -= ret;
	}
	return true;
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

/* qsort() order of doubles. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* now() - seconds on the monotonic clock */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * window_done() - whether threads that count their calls in @counts[@n]
 * may stop: past @end once every count has reached @least, and at @cap
 * whatever the counts.  How fast calls go is the guest's business (a
 * loaded host slowed a contended flood 75-fold), so a window that needs
 * each thread to have done something goes on until it has.
 */
static inline bool window_done(double end, double cap,
			       const atomic_ulong *counts, unsigned int n,
			       unsigned long least)
{
	double t = now();
	unsigned int i;

	if (t < end)
		return false;
	if (t >= cap)
		return true;
	for (i = 0; i < n; i++)
		if (atomic_load(&counts[i]) < least)
			return false;
	return true;
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

/* wait_child() - the exit status of @pid, or -1 if it did not exit */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* counter_u64() - the module's counter @name in debugfs, ~0 if unreadable */
static inline __u64 counter_u64(const char *name)
{
	char path[128];
	__u64 v = ~0ULL;

	snprintf(path, sizeof(path), DICE_DEBUGFS "/%s", name);
	read_u64_file(path, &v);
	return v;
}

/* table_sides() - the largest table a case makes: DICE_TABLE_SIDES_MAX */
static inline __u32 table_sides(void)
{
	return DICE_TABLE_SIDES_MAX;
}

/* meminfo() - a field of /proc/meminfo in KiB, or -1 */
static inline long long meminfo(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long long v = -1;
	FILE *f = fopen(MEMINFO_PATH, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/**
 * struct failures - what threads (or a child's threads) saw go wrong
 * @lock: guards the rest
 * @count: failures seen
 * @first: the first one, which the case reports after joining them
 *
 * Threads never use ASSERT_*() (the harness longjmps): they call failed().
 */
struct failures {
	pthread_mutex_t lock;
	unsigned long count;
	char first[256];
};

static inline void __printf(2, 3) failed(struct failures *f,
					 const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->lock);
	if (!f->count++) {
		va_start(ap, fmt);
		vsnprintf(f->first, sizeof(f->first), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&f->lock);
}

#endif /* _DICE_COMMON_H */
