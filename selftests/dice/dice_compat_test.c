// SPDX-License-Identifier: GPL-2.0
/*
 * dice_compat_test.c - every ioctl of /dev/dice from a 32-bit process
 *
 * Built twice: dice_compat_test, a native x86-64 program, and
 * dice_compat32_test, the same source as an i386 program (gcc -m32
 * -static), whose ioctls reach the module through compat_ptr_ioctl with
 * 32-bit user pointers in the structs' __u64 fields.
 *
 *  - The ABI: every uapi struct has the same size, alignment and member
 *    offsets, and every ioctl number the same value, in both builds
 *    (static assertions against fixed numbers, so both compilers must
 *    agree with them), and a 32-bit process runs at all (IA32 emulation,
 *    /proc/sys/abi/vsyscall32).
 *  - Each case runs a scenario on /dev/dice and records everything the
 *    device answered, in order: return values, errnos, the structs of
 *    GET_INFO, GET_STATS and GET_MASSES, the bytes read.  Bits come from
 *    the file itself (DICE_SRC_WRITTEN), so the answers are determined.
 *    The i386 build then runs its x86-64 twin (dice_compat_test, next to
 *    it) on the same scenario and the two records must be equal byte for
 *    byte: the same faces from the same bits, the same distribution, the
 *    same errors.  The native build checks its own record against what
 *    each answer must be.
 *
 * Scenarios: the die's configuration and GET_INFO (struct sizes given
 * short and long, an unknown number), written bits and faces under every
 * method and format, loaded dice by weights and by alias table with
 * GET_MASSES (ENOSPC included) and the pointer errors of SET_WEIGHTS,
 * SET_ALIAS and GET_MASSES, and a table of 4096 sides.
 *
 * dice_compat_test --transcript NAME writes scenario NAME's record to
 * stdout, for the twin.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"

/* ---- the ABI, fixed ------------------------------------------------------ */

#define ABI(cond)	_Static_assert(cond, #cond)

ABI(sizeof(struct dice_info) == 64 && _Alignof(struct dice_info) == 8);
ABI(offsetof(struct dice_info, sides) == 0);
ABI(offsetof(struct dice_info, kind) == 8);
ABI(offsetof(struct dice_info, format) == 12);
ABI(offsetof(struct dice_info, method) == 16);
ABI(offsetof(struct dice_info, source) == 20);
ABI(offsetof(struct dice_info, flags) == 24);
ABI(offsetof(struct dice_info, padding) == 28);
ABI(offsetof(struct dice_info, reserved) == 32);
ABI(sizeof(struct dice_stats) == 64 && _Alignof(struct dice_stats) == 8);
ABI(offsetof(struct dice_stats, rolls) == 0);
ABI(offsetof(struct dice_stats, bits_used) == 8);
ABI(offsetof(struct dice_stats, bits_drawn) == 16);
ABI(offsetof(struct dice_stats, bits_discarded) == 24);
ABI(offsetof(struct dice_stats, coin_bits) == 32);
ABI(offsetof(struct dice_stats, flags) == 40);
ABI(offsetof(struct dice_stats, reserved) == 48);
ABI(sizeof(struct dice_weights) == 16 && _Alignof(struct dice_weights) == 8);
ABI(offsetof(struct dice_weights, weights) == 0);
ABI(offsetof(struct dice_weights, sides) == 8);
ABI(offsetof(struct dice_weights, flags) == 12);
ABI(sizeof(struct dice_alias) == 32 && _Alignof(struct dice_alias) == 8);
ABI(offsetof(struct dice_alias, thresholds) == 0);
ABI(offsetof(struct dice_alias, aliases) == 8);
ABI(offsetof(struct dice_alias, mass) == 16);
ABI(offsetof(struct dice_alias, sides) == 24);
ABI(offsetof(struct dice_alias, flags) == 28);
ABI(sizeof(struct dice_masses) == 40 && _Alignof(struct dice_masses) == 8);
ABI(offsetof(struct dice_masses, masses) == 0);
ABI(offsetof(struct dice_masses, capacity) == 8);
ABI(offsetof(struct dice_masses, sides) == 16);
ABI(offsetof(struct dice_masses, total) == 24);
ABI(offsetof(struct dice_masses, flags) == 32);
ABI(offsetof(struct dice_masses, padding) == 36);
ABI(DICE_IOC_SET_SIDES == 0x4008d101);
ABI(DICE_IOC_SET_FORMAT == 0x4004d102);
ABI(DICE_IOC_GET_INFO == 0x8040d103);
ABI(DICE_IOC_GET_STATS == 0x8040d104);
ABI(DICE_IOC_SET_WEIGHTS == 0x4010d105);
ABI(DICE_IOC_SET_ALIAS == 0x4020d106);
ABI(DICE_IOC_GET_MASSES == 0xc028d107);
ABI(DICE_IOC_SET_METHOD == 0x4004d108);
ABI(DICE_IOC_SET_SOURCE == 0x4004d109);

#define I386		(sizeof(long) == 4)
#define TWIN		"dice_compat_test"
#define RECORD_MAX	(1 << 20)

/* ---- the record of a scenario -------------------------------------------- */

/*
 * What the device answered, as tagged entries: the tag says which step,
 * so that a difference between the builds can be named.
 */
struct rec {
	unsigned char *buf;
	size_t len;
	int fd;
	char err[256];		/* the first answer that was not as it must be */
	const char *tags[1024];	/* each entry's tag, to name a difference */
	unsigned int ntags;
};

static void put(struct rec *r, const char *tag, const void *p, size_t n)
{
	__u32 hdr[2] = { 0, (__u32)n };
	size_t i;

	for (i = 0; tag[i]; i++)
		hdr[0] = hdr[0] * 31 + (unsigned char)tag[i];
	if (r->len + sizeof(hdr) + n > RECORD_MAX) {
		snprintf(r->err, sizeof(r->err), "record full at %s", tag);
		return;
	}
	if (r->ntags < ARRAY_SIZE(r->tags))
		r->tags[r->ntags++] = tag;
	memcpy(r->buf + r->len, hdr, sizeof(hdr));
	memcpy(r->buf + r->len + sizeof(hdr), p, n);
	r->len += sizeof(hdr) + n;
}

static void put_u64(struct rec *r, const char *tag, __u64 v)
{
	put(r, tag, &v, sizeof(v));
}

static void must(struct rec *r, bool ok, const char *what)
{
	if (!ok && !r->err[0])
		snprintf(r->err, sizeof(r->err), "%s", what);
}

/* An ioctl: its errno is recorded, and must be @want. */
static int ioc(struct rec *r, const char *tag, unsigned long cmd, void *arg,
	       int want)
{
	int err = ioctl(r->fd, cmd, arg) ? errno : 0;
	char what[160];

	put_u64(r, tag, (__u64)err);
	snprintf(what, sizeof(what), "%s: errno %d (%s), want %d", tag, err,
		 strerror(err), want);
	must(r, err == want, what);
	return err;
}

static void rec_set_u64(struct rec *r, const char *tag,
			unsigned long cmd, __u64 v, int want)
{
	ioc(r, tag, cmd, &v, want);
}

static void rec_set_u32(struct rec *r, const char *tag,
			unsigned long cmd, __u32 v, int want)
{
	ioc(r, tag, cmd, &v, want);
}

static void rec_info(struct rec *r, const char *tag, __u64 sides, __u32 fmt,
		     __u32 method, __u32 source)
{
	struct dice_info in;
	static const struct dice_info zero;

	memset(&in, 0xa5, sizeof(in));
	ioc(r, tag, DICE_IOC_GET_INFO, &in, 0);
	put(r, tag, &in, sizeof(in));
	must(r, in.sides == sides && in.format == fmt && in.method == method &&
	     in.source == source && !in.flags && !in.padding &&
	     !memcmp(in.reserved, zero.reserved, sizeof(in.reserved)),
	     "GET_INFO: not the die that was set");
}

static void stats(struct rec *r, const char *tag)
{
	struct dice_stats st;

	memset(&st, 0xa5, sizeof(st));
	ioc(r, tag, DICE_IOC_GET_STATS, &st, 0);
	put(r, tag, &st, sizeof(st));
	must(r, st.bits_used + st.bits_discarded <= st.bits_drawn &&
	     st.coin_bits <= st.bits_used && !st.flags && !st.reserved[0] &&
	     !st.reserved[1], "GET_STATS: inconsistent");
}

/* A fixed stream of bytes to write: the same in both builds. */
static void stream(unsigned char *p, size_t n, __u64 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(splitmix(&seed) >> 56);
}

/* write() of @n bytes: the count (or errno) is recorded. */
static void wr(struct rec *r, const char *tag, const void *p, size_t n)
{
	ssize_t got = write(r->fd, p, n);

	put_u64(r, tag, got < 0 ? (__u64)-errno : (__u64)got);
	must(r, got > 0, "write of written bits failed");
}

/*
 * read() of @n bytes in @fmt of a d@sides: what came back is recorded, and
 * every face must be in range (binary formats).
 */
static ssize_t rd(struct rec *r, const char *tag, size_t n, __u32 fmt,
		  __u64 sides)
{
	static unsigned char buf[8192];
	unsigned int w = fmt_width(fmt), i;
	__u64 lo = fmt & DICE_FMT_ZERO_BASED ? 0 : 1;
	ssize_t got = read(r->fd, buf, n);

	put_u64(r, tag, got < 0 ? (__u64)-errno : (__u64)got);
	if (got <= 0)
		return got;
	put(r, tag, buf, got);
	for (i = 0; w && i + w <= (size_t)got; i += w) {
		__u64 face = get_le(buf + i, w);

		must(r, face >= lo && face - lo < sides, "a face out of range");
	}
	return got;
}

/* As the kernel's memchr_inv(p, 0, n) != NULL. */
static bool memchr_nonzero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return true;
	return false;
}

/* ---- the scenarios ----------------------------------------------------------- */

/* The ABI as this build sees it: sizes, offsets, ioctl numbers. */
static void scen_abi(struct rec *r)
{
	static const __u64 abi[] = {
		sizeof(struct dice_info), sizeof(struct dice_stats),
		sizeof(struct dice_weights), sizeof(struct dice_alias),
		sizeof(struct dice_masses),
		offsetof(struct dice_info, reserved),
		offsetof(struct dice_stats, reserved),
		offsetof(struct dice_weights, flags),
		offsetof(struct dice_alias, sides),
		offsetof(struct dice_masses, padding),
		DICE_IOC_SET_SIDES, DICE_IOC_SET_FORMAT, DICE_IOC_GET_INFO,
		DICE_IOC_GET_STATS, DICE_IOC_SET_WEIGHTS, DICE_IOC_SET_ALIAS,
		DICE_IOC_GET_MASSES, DICE_IOC_SET_METHOD, DICE_IOC_SET_SOURCE,
	};

	put(r, "abi", abi, sizeof(abi));
	must(r, !access("/proc/sys/abi/vsyscall32", F_OK),
	     "no /proc/sys/abi/vsyscall32: a kernel without IA32 emulation");
}

/* Configuration, GET_INFO in every size, errno rules of the scalars. */
static void scen_info(struct rec *r)
{
	unsigned char big[96];
	struct dice_info in;

	rec_info(r, "default", 6, DICE_FMT_TEXT, DICE_METHOD_RECYCLE,
		 DICE_SRC_KERNEL);
	rec_set_u64(r, "sides", DICE_IOC_SET_SIDES, 1000003, 0);
	rec_set_u32(r, "format", DICE_IOC_SET_FORMAT,
		DICE_FMT_U32 | DICE_FMT_ZERO_BASED, 0);
	rec_set_u32(r, "method", DICE_IOC_SET_METHOD, DICE_METHOD_VIGLIETTA, 0);
	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	rec_info(r, "set", 1000003, DICE_FMT_U32 | DICE_FMT_ZERO_BASED,
		 DICE_METHOD_VIGLIETTA, DICE_SRC_WRITTEN);
	rec_set_u64(r, "sides 0", DICE_IOC_SET_SIDES, 0, EINVAL);
	rec_set_u64(r, "sides 2^32+1 in U32", DICE_IOC_SET_SIDES, POW2(32) + 1,
		EOVERFLOW);
	rec_set_u32(r, "format 5", DICE_IOC_SET_FORMAT, 5, EINVAL);
	rec_set_u32(r, "method 5", DICE_IOC_SET_METHOD, 5, EINVAL);
	rec_set_u32(r, "source 2", DICE_IOC_SET_SOURCE, 2, EINVAL);
	ioc(r, "sides NULL", DICE_IOC_SET_SIDES, NULL, EFAULT);
	/* GET_INFO taken short (16 bytes) and long (96, the tail zeroed). */
	memset(&in, 0xa5, sizeof(in));
	ioc(r, "info 16", _IOC(_IOC_READ, DICE_IOC_MAGIC, 0x03, 16), &in, 0);
	put(r, "info 16", &in, sizeof(in));
	must(r, in.sides == 1000003 && in.method == 0xa5a5a5a5,
	     "GET_INFO of 16 bytes: wrong or too much");
	memset(big, 0xa5, sizeof(big));
	ioc(r, "info 96", _IOC(_IOC_READ, DICE_IOC_MAGIC, 0x03, 96), big, 0);
	put(r, "info 96", big, sizeof(big));
	must(r, !memchr_nonzero(big + 64, 32),
	     "GET_INFO of 96 bytes: the tail is not zeroed");
	ioc(r, "info 0", _IOC(_IOC_READ, DICE_IOC_MAGIC, 0x03, 0), &in,
	    EINVAL);
	ioc(r, "unknown", _IOC(_IOC_READ, DICE_IOC_MAGIC, 0x0a, 8), &in,
	    ENOTTY);
	ioc(r, "other magic", _IOC(_IOC_READ, 'Q', 0x03, 64), &in, ENOTTY);
	stats(r, "stats");
}

/* The same bits give the same faces, under every method and format. */
static void scen_written(struct rec *r)
{
	static const struct {
		__u64 sides;
		__u32 fmt;
		__u32 method;
		size_t len;
	} dice[] = {
		{ 6, DICE_FMT_TEXT, DICE_METHOD_RECYCLE, 200 },
		{ 6, DICE_FMT_U8, DICE_METHOD_VIGLIETTA, 100 },
		{ 6, DICE_FMT_U8 | DICE_FMT_ZERO_BASED, DICE_METHOD_BATCH, 100 },
		{ 6, DICE_FMT_U16, DICE_METHOD_ALIAS, 100 },
		{ 6, DICE_FMT_U32, DICE_METHOD_REJECTION, 100 },
		{ 1000003, DICE_FMT_U32, DICE_METHOD_RECYCLE, 400 },
		{ POW2(40) + 1, DICE_FMT_U64, DICE_METHOD_RECYCLE, 64 },
		{ ~0ULL, DICE_FMT_U64 | DICE_FMT_ZERO_BASED,
		  DICE_METHOD_RECYCLE, 80 },
		{ 3ULL << 62, DICE_FMT_TEXT, DICE_METHOD_REJECTION, 300 },
		{ 256, DICE_FMT_U8 | DICE_FMT_ZERO_BASED, DICE_METHOD_RECYCLE,
		  500 },
	};
	unsigned char bits[1024];
	unsigned int i;

	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	for (i = 0; i < ARRAY_SIZE(dice); i++) {
		stream(bits, sizeof(bits), 100 + i);
		wr(r, "write", bits, sizeof(bits));
		rec_set_u32(r, "format", DICE_IOC_SET_FORMAT, DICE_FMT_TEXT, 0);
		rec_set_u64(r, "sides", DICE_IOC_SET_SIDES, dice[i].sides, 0);
		rec_set_u32(r, "format", DICE_IOC_SET_FORMAT, dice[i].fmt, 0);
		rec_set_u32(r, "method", DICE_IOC_SET_METHOD, dice[i].method,
			    0);
		must(r, rd(r, "read", dice[i].len, dice[i].fmt,
			   dice[i].sides) > 0, "no faces from written bits");
		stats(r, "stats");
	}
	rec_info(r, "last", 256, DICE_FMT_U8 | DICE_FMT_ZERO_BASED,
		 DICE_METHOD_RECYCLE, DICE_SRC_WRITTEN);
}

static void rec_masses(struct rec *r, const char *tag, __u64 capacity,
		       int want, const __u64 *expect, __u64 sides,
		       __u64 total)
{
	static __u64 m[4096];
	struct dice_masses arg = {
		.masses = (uintptr_t)m,
		.capacity = capacity,
	};
	char what[96];

	memset(m, 0, sizeof(m));
	ioc(r, tag, DICE_IOC_GET_MASSES, &arg, want);
	/* All but the pointer, which differs between the builds. */
	put(r, tag, &arg.capacity, sizeof(arg) - sizeof(arg.masses));
	must(r, arg.masses == (uintptr_t)m && arg.capacity == capacity &&
	     !arg.flags && !arg.padding, "GET_MASSES changed its input");
	if (!want)
		put(r, tag, m, sides * sizeof(*m));
	snprintf(what, sizeof(what), "%s: sides %llu total %llu", tag,
		 (unsigned long long)arg.sides, (unsigned long long)arg.total);
	must(r, arg.sides == sides && (want == ENOSPC || arg.total == total),
	     what);
	must(r, !expect || !memcmp(m, expect, sides * sizeof(*m)),
	     "GET_MASSES: not the masses that were set");
}

/* Loaded dice both ways, GET_MASSES, and the pointer errors. */
static void scen_loaded(struct rec *r)
{
	static const __u32 w[5] = { 2, 2, 6, 1, 1 };
	static const __u64 wm[5] = { 2, 2, 6, 1, 1 };
	/* Columns of mass 10 whose shares are 13, 5, 16, 7, 9 (of 50). */
	static const __u64 thr[5] = { 10, 4, 10, 7, 9 };
	static const __u32 al[5] = { 0, 2, 2, 0, 1 };
	static const __u64 am[5] = { 13, 5, 16, 7, 9 };
	unsigned char bits[1024];
	struct dice_weights warg = { .weights = (uintptr_t)w, .sides = 5 };
	struct dice_alias aarg = {
		.thresholds = (uintptr_t)thr,
		.aliases = (uintptr_t)al,
		.mass = 10,
		.sides = 5,
	};
	struct dice_masses marg = { .capacity = 5 };

	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	stream(bits, sizeof(bits), 7);
	wr(r, "write", bits, sizeof(bits));
	rec_set_u32(r, "format", DICE_IOC_SET_FORMAT, DICE_FMT_U8, 0);
	ioc(r, "weights", DICE_IOC_SET_WEIGHTS, &warg, 0);
	rec_masses(r, "masses", 5, 0, wm, 5, 12);
	rec_masses(r, "masses short", 2, ENOSPC, NULL, 5, 12);
	rd(r, "read", 256, DICE_FMT_U8, 5);
	ioc(r, "alias", DICE_IOC_SET_ALIAS, &aarg, 0);
	rec_masses(r, "alias masses", 5, 0, am, 5, 50);
	rd(r, "read alias", 256, DICE_FMT_U8, 5);
	rec_set_u32(r, "method alias", DICE_IOC_SET_METHOD,
		    DICE_METHOD_ALIAS, 0);
	rd(r, "read alias method", 128, DICE_FMT_U8, 5);
	stats(r, "stats");
	rec_info(r, "info", 5, DICE_FMT_U8, DICE_METHOD_ALIAS,
		 DICE_SRC_WRITTEN);
	/* Pointers the kernel must refuse, the die unchanged. */
	warg.weights = 0;
	ioc(r, "weights NULL", DICE_IOC_SET_WEIGHTS, &warg, EFAULT);
	warg.weights = 0xffffffff00001000ULL;
	ioc(r, "weights high", DICE_IOC_SET_WEIGHTS, &warg, EFAULT);
	warg.weights = (uintptr_t)w;
	warg.flags = 1;
	ioc(r, "weights flags", DICE_IOC_SET_WEIGHTS, &warg, EINVAL);
	aarg.aliases = 0x100000000ULL + (uintptr_t)al;
	ioc(r, "alias high", DICE_IOC_SET_ALIAS, &aarg, EFAULT);
	marg.masses = 0xffffffff00002000ULL;
	ioc(r, "masses high", DICE_IOC_GET_MASSES, &marg, EFAULT);
	ioc(r, "weights arg NULL", DICE_IOC_SET_WEIGHTS, NULL, EFAULT);
	rec_masses(r, "masses after", 5, 0, am, 5, 50);
}

/* A table of 4096 sides: 16 KiB in, 32 KiB out. */
static void scen_big(struct rec *r)
{
	static __u32 w[4096];
	static __u64 expect[4096];
	unsigned char bits[1024];
	struct dice_weights warg = { .weights = (uintptr_t)w, .sides = 4096 };
	__u64 s = 42, sum = 0, g = 0;
	unsigned int i;

	for (i = 0; i < 4096; i++) {
		w[i] = (__u32)(splitmix(&s) >> 44);
		sum += w[i];
	}
	for (i = 0; i < 4096; i++)
		g = gcd(g, w[i]);
	for (i = 0; i < 4096; i++)
		expect[i] = w[i] / g;
	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	rec_set_u32(r, "format", DICE_IOC_SET_FORMAT, DICE_FMT_U16, 0);
	ioc(r, "weights", DICE_IOC_SET_WEIGHTS, &warg, 0);
	rec_masses(r, "masses", 4096, 0, expect, 4096, sum / g);
	for (i = 0; i < 4; i++) {
		stream(bits, sizeof(bits), 1000 + i);
		wr(r, "write", bits, sizeof(bits));
		rd(r, "read", 600, DICE_FMT_U16, 4096);
	}
	stats(r, "stats");
}

static const struct {
	const char *name;
	void (*fn)(struct rec *r);
} scenarios[] = {
	{ "abi", scen_abi },
	{ "info", scen_info },
	{ "written", scen_written },
	{ "loaded", scen_loaded },
	{ "big", scen_big },
};

/* Run scenario @name on a fresh file; -1 when there is no /dev/dice. */
static int run_scenario(const char *name, struct rec *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->buf = malloc(RECORD_MAX);
	if (!r->buf)
		return -ENOMEM;
	r->fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0 && strcmp(name, "abi"))	/* the ABI needs no device */
		return -1;
	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		if (!strcmp(scenarios[i].name, name))
			scenarios[i].fn(r);
	if (r->fd >= 0)
		close(r->fd);
	return 0;
}

/* ---- the twin ----------------------------------------------------------------- */

/* Run the x86-64 twin on @name; its record in @out.  0 or an error text. */
static const char *twin_record(const char *name, struct rec *out)
{
	static char path[PATH_MAX], why[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	int pipefd[2], status;
	char *slash;
	pid_t pid;

	if (n <= 0)
		return "no /proc/self/exe";
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, TWIN);
	if (access(path, X_OK)) {
		snprintf(why, sizeof(why), "no x86-64 twin %s", path);
		return why;
	}
	if (pipe(pipefd))
		return "pipe failed";
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(path, path, "--transcript", name, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	memset(out, 0, sizeof(*out));
	out->buf = malloc(RECORD_MAX);
	while (out->buf && out->len < RECORD_MAX) {
		n = read(pipefd[0], out->buf + out->len,
			 RECORD_MAX - out->len);
		if (n <= 0)
			break;
		out->len += n;
	}
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		snprintf(why, sizeof(why), "the twin %s failed (status %#x)",
			 path, status);
		return why;
	}
	return out->buf ? NULL : "out of memory";
}

/* Where two records part: the offset and index of the first entry. */
static size_t first_difference(const struct rec *a, const struct rec *b,
			       unsigned int *entry)
{
	size_t off = 0;

	for (*entry = 0; off + 8 <= a->len && off + 8 <= b->len; ++*entry) {
		__u32 hdr[2], len;

		memcpy(hdr, a->buf + off, sizeof(hdr));
		len = hdr[1];
		if (off + 8 + len > a->len || off + 8 + len > b->len ||
		    memcmp(a->buf + off, b->buf + off, 8 + len))
			return off;
		off += 8 + len;
	}
	return off;
}

static void scenario_case(struct __test_metadata *_metadata, const char *name)
{
	struct rec mine, twin;
	const char *why;
	unsigned int entry;
	size_t off;

	if (run_scenario(name, &mine) < 0) {
		free(mine.buf);
		SKIP(return, "%s is absent", DICE_PATH);
	}
	EXPECT_STREQ("", mine.err)
		TH_LOG("%s (%s build): %s", name, I386 ? "i386" : "x86-64",
		       mine.err);
	printf("# %s: %zu bytes of answers (%s build)\n", name, mine.len,
	       I386 ? "i386" : "x86-64");
	if (I386) {
		why = twin_record(name, &twin);
		ASSERT_EQ(NULL, why) TH_LOG("%s", why);
		off = first_difference(&mine, &twin, &entry);
		EXPECT_TRUE(mine.len == twin.len && off == mine.len)
			TH_LOG("%s: the i386 and x86-64 answers differ at byte %zu of %zu/%zu, entry %u (%s)",
			       name, off, mine.len, twin.len, entry,
			       entry < mine.ntags ? mine.tags[entry] : "?");
		if (mine.len == twin.len && off == mine.len)
			printf("# %s: the x86-64 twin's answers are the same\n",
			       name);
		free(twin.buf);
	}
	fflush(stdout);
	free(mine.buf);
}

TEST(abi)
{
	/* The static assertions above held in this build; now at run time. */
	EXPECT_EQ(I386 ? 4 : 8, sizeof(void *));
	scenario_case(_metadata, "abi");
}

TEST(info)
{
	scenario_case(_metadata, "info");
}

TEST(written)
{
	scenario_case(_metadata, "written");
}

TEST(loaded)
{
	scenario_case(_metadata, "loaded");
}

TEST(big)
{
	scenario_case(_metadata, "big");
}

int main(int argc, char **argv)
{
	struct rec r;

	if (argc == 3 && !strcmp(argv[1], "--transcript")) {
		if (run_scenario(argv[2], &r) < 0)
			return 4;
		if (r.err[0])
			fprintf(stderr, "%s: %s\n", argv[2], r.err);
		if (fwrite(r.buf, 1, r.len, stdout) != r.len)
			return 1;
		return r.err[0] ? 1 : 0;
	}
	return test_harness_run(argc, argv);
}
