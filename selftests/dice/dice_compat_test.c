// SPDX-License-Identifier: GPL-2.0
/*
 * dice_compat_test.c - every ioctl of /dev/dice from a 32-bit process
 *
 * Built twice: dice_compat_test, a native x86-64 program, and
 * dice_compat32_test, the same source as an i386 program (gcc -m32
 * -static), whose ioctls reach the module through compat_ptr_ioctl with
 * 32-bit user pointers in the structs' __u64 fields.
 *
 *  - The ABI: the three structs have the same size, alignment and member
 *    offsets, and the four ioctl numbers the same value, in both builds
 *    (static assertions against fixed numbers, so both compilers must
 *    agree with them), and a 32-bit process runs at all (IA32 emulation,
 *    /proc/sys/abi/vsyscall32).
 *  - Each case runs a scenario on /dev/dice and records everything the
 *    device answered, in order: return values, errnos, the structs of
 *    GET_DIE and GET_STATS, the bytes read.  Bits come from the file
 *    itself (DICE_SRC_WRITTEN), so the answers are determined.  The i386
 *    build then runs its x86-64 twin (dice_compat_test, next to it) on the
 *    same scenario and the two records must be equal byte for byte: the
 *    same faces from the same bits, the same errors.  The native build
 *    checks its own record against what each answer must be.
 *
 * Scenarios: SET_DIE and GET_DIE, and every refusal of SET_DIE (each
 * errno, the pointers of a table that fault, are out of reach or sit
 * above 4 GiB); every other ioctl number (the nine of the old uapi, and
 * the new ones with another size or direction) fails with ENOTTY and
 * touches nothing; a refused SET_DIE leaves the die as it was (GET_DIE,
 * GET_STATS and the rolls read, against a second file fed the same bits);
 * written bits and faces under every method and format; loaded dice by
 * weights and by alias table, whose zero-mass sides never come up; tables
 * of 4096 and 2^20 sides.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"

/* ---- the ABI, fixed ------------------------------------------------------ */

#define ABI(cond)	_Static_assert(cond, #cond)

ABI(sizeof(struct dice_die_args) == 56 && _Alignof(struct dice_die_args) == 8);
ABI(offsetof(struct dice_die_args, sides) == 0);
ABI(offsetof(struct dice_die_args, weights) == 8);
ABI(offsetof(struct dice_die_args, thresholds) == 16);
ABI(offsetof(struct dice_die_args, aliases) == 24);
ABI(offsetof(struct dice_die_args, mass) == 32);
ABI(offsetof(struct dice_die_args, kind) == 40);
ABI(offsetof(struct dice_die_args, method) == 44);
ABI(offsetof(struct dice_die_args, format) == 48);
ABI(offsetof(struct dice_die_args, flags) == 52);
ABI(sizeof(struct dice_die_info) == 24 && _Alignof(struct dice_die_info) == 8);
ABI(offsetof(struct dice_die_info, sides) == 0);
ABI(offsetof(struct dice_die_info, kind) == 8);
ABI(offsetof(struct dice_die_info, method) == 12);
ABI(offsetof(struct dice_die_info, format) == 16);
ABI(offsetof(struct dice_die_info, padding) == 20);
ABI(sizeof(struct dice_die_stats) == 40 && _Alignof(struct dice_die_stats) == 8);
ABI(offsetof(struct dice_die_stats, rolls) == 0);
ABI(offsetof(struct dice_die_stats, bits_used) == 8);
ABI(offsetof(struct dice_die_stats, bits_drawn) == 16);
ABI(offsetof(struct dice_die_stats, bits_discarded) == 24);
ABI(offsetof(struct dice_die_stats, coin_bits) == 32);
/*
 * _IOW(0xD1, 0x10, 56 bytes) = 1 << 30 | 56 << 16 | 0xD1 << 8 | 0x10, and
 * so on: direction (write 1, read 2) in bits 30-31, size in 16-29.
 */
ABI(DICE_IOC_SET_DIE == 0x4038d110);
ABI(DICE_IOC_GET_DIE == 0x8018d111);
ABI(DICE_IOC_GET_STATS == 0x8028d112);
ABI(DICE_IOC_SET_SOURCE == 0x4004d11f);
ABI(DICE_IOC_SET_DIE == _IOC(_IOC_WRITE, 0xD1, 0x10, 56));
ABI(DICE_IOC_GET_DIE == _IOC(_IOC_READ, 0xD1, 0x11, 24));
ABI(DICE_IOC_GET_STATS == _IOC(_IOC_READ, 0xD1, 0x12, 40));
ABI(DICE_IOC_SET_SOURCE == _IOC(_IOC_WRITE, 0xD1, 0x1f, 4));
ABI(DICE_IOC_MAGIC == 0xD1);
ABI(DICE_TABLE_SIDES_MAX == 1048576);
ABI(DICE_MAX_FAIR_SIDES == 0xffffffffffffffffULL);
ABI(DICE_KIND_FAIR == 0 && DICE_KIND_LOADED == 1 && DICE_KIND_WEIGHTS == 1 &&
    DICE_KIND_ALIAS == 2);
ABI(DICE_METHOD_RECYCLE == 0 && DICE_METHOD_VIGLIETTA == 1 &&
    DICE_METHOD_BATCH == 2 && DICE_METHOD_ALIAS == 3);
ABI(DICE_FMT_TEXT == 0 && DICE_FMT_U8 == 1 && DICE_FMT_U16 == 2 &&
    DICE_FMT_U32 == 3 && DICE_FMT_U64 == 4 && DICE_FMT_TYPE_MASK == 0xff &&
    DICE_FMT_ZERO_BASED == 0x100 && DICE_FMT_FLAGS_MASK == 0x100);
ABI(DICE_SRC_KERNEL == 0 && DICE_SRC_WRITTEN == 1);

/* The nine ioctls of the old uapi, gone: ENOTTY now. */
static const __u32 old_ioctls[] = {
	0x4008d101,	/* SET_SIDES	_IOW(0xD1, 0x01, __u64) */
	0x4004d102,	/* SET_FORMAT	_IOW(0xD1, 0x02, __u32) */
	0x8040d103,	/* GET_INFO	_IOR(0xD1, 0x03, 64 bytes) */
	0x8040d104,	/* GET_STATS	_IOR(0xD1, 0x04, 64 bytes) */
	0x4010d105,	/* SET_WEIGHTS	_IOW(0xD1, 0x05, 16 bytes) */
	0x4020d106,	/* SET_ALIAS	_IOW(0xD1, 0x06, 32 bytes) */
	0xc028d107,	/* GET_MASSES	_IOWR(0xD1, 0x07, 40 bytes) */
	0x4004d108,	/* SET_METHOD	_IOW(0xD1, 0x08, __u32) */
	0x4004d109,	/* SET_SOURCE	_IOW(0xD1, 0x09, __u32) */
};

/* The four of today, as (direction, number, size). */
static const struct {
	__u32 dir, nr, size;
} new_ioctls[] = {
	{ _IOC_WRITE, 0x10, sizeof(struct dice_die_args) },
	{ _IOC_READ, 0x11, sizeof(struct dice_die_info) },
	{ _IOC_READ, 0x12, sizeof(struct dice_die_stats) },
	{ _IOC_WRITE, 0x1f, sizeof(__u32) },
};

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
	char what[200];

	put_u64(r, tag, (__u64)err);
	snprintf(what, sizeof(what), "%s: errno %d (%s), want %d (%s)", tag,
		 err, strerror(err), want, strerror(want));
	must(r, err == want, what);
	return err;
}

static void rec_set_u32(struct rec *r, const char *tag,
			unsigned long cmd, __u32 v, int want)
{
	ioc(r, tag, cmd, &v, want);
}

/* SET_DIE of *@a, which the kernel must not write back to. */
static int rec_set_die(struct rec *r, const char *tag,
		       const struct dice_die_args *a, int want)
{
	struct dice_die_args arg = *a;
	int err = ioc(r, tag, DICE_IOC_SET_DIE, &arg, want);

	must(r, !memcmp(&arg, a, sizeof(arg)), "SET_DIE wrote to its argument");
	return err;
}

static struct dice_die_args fair(__u64 sides, __u32 method, __u32 fmt)
{
	return (struct dice_die_args){
		.sides = sides, .kind = DICE_KIND_FAIR, .method = method,
		.format = fmt,
	};
}

static struct dice_die_args weighted(const __u32 *w, __u64 sides,
				     __u32 method, __u32 fmt)
{
	return (struct dice_die_args){
		.sides = sides, .weights = (uintptr_t)w,
		.kind = DICE_KIND_WEIGHTS, .method = method, .format = fmt,
	};
}

static struct dice_die_args aliased(const __u64 *thr, const __u32 *al,
				    __u64 mass, __u64 sides, __u32 method,
				    __u32 fmt)
{
	return (struct dice_die_args){
		.sides = sides, .thresholds = (uintptr_t)thr,
		.aliases = (uintptr_t)al, .mass = mass,
		.kind = DICE_KIND_ALIAS, .method = method, .format = fmt,
	};
}

/* GET_DIE: recorded, and it must be the die described. */
static void rec_die(struct rec *r, const char *tag, __u64 sides, __u32 kind,
		    __u32 method, __u32 fmt)
{
	struct dice_die_info in;
	char what[200];

	memset(&in, 0xa5, sizeof(in));
	ioc(r, tag, DICE_IOC_GET_DIE, &in, 0);
	put(r, tag, &in, sizeof(in));
	snprintf(what, sizeof(what),
		 "%s: GET_DIE d%llu kind %u method %u format %#x padding %#x, want d%llu kind %u method %u format %#x",
		 tag, (unsigned long long)in.sides, in.kind, in.method,
		 in.format, in.padding, (unsigned long long)sides, kind,
		 method, fmt);
	must(r, in.sides == sides && in.kind == kind && in.method == method &&
	     in.format == fmt && !in.padding, what);
}

static void stats(struct rec *r, const char *tag, struct dice_die_stats *out)
{
	struct dice_die_stats st;

	memset(&st, 0xa5, sizeof(st));
	ioc(r, tag, DICE_IOC_GET_STATS, &st, 0);
	put(r, tag, &st, sizeof(st));
	must(r, st.bits_used + st.bits_discarded <= st.bits_drawn &&
	     st.coin_bits <= st.bits_used, "GET_STATS: inconsistent");
	if (out)
		*out = st;
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
 * read() of @n bytes in @fmt of a d@sides into @out (or a buffer of its
 * own): what came back is recorded, and every face must be in range
 * (binary formats) and not @never (0 for none).
 */
static ssize_t rd_into(struct rec *r, const char *tag, void *out, size_t n,
		       __u32 fmt, __u64 sides, __u64 never)
{
	static unsigned char own[8192];
	unsigned char *buf = out ? out : own;
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
		must(r, !never || face != never,
		     "a face of a side of mass 0 came up");
	}
	return got;
}

static ssize_t rd(struct rec *r, const char *tag, size_t n, __u32 fmt,
		  __u64 sides)
{
	return rd_into(r, tag, NULL, n, fmt, sides, 0);
}

/* As the kernel's memchr_inv(p, 0, n) != NULL. */
static bool memchr_nonzero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return true;
	return false;
}

/* ---- what SET_DIE refuses ---------------------------------------------------- */

/*
 * A page of room followed by an unmapped one: tables placed to end inside
 * it fault part of the way through.
 */
static char *guarded(void)
{
	static char *mem;
	long page = sysconf(_SC_PAGESIZE);

	if (!mem) {
		mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED ||
		    mprotect(mem + page, page, PROT_NONE))
			return NULL;
		memset(mem, 0, page);
	}
	return mem + page;
}

/*
 * Every way SET_DIE must refuse, on the current die of r->fd: each errno
 * of the uapi but ENOMEM (the hostile test's), each a die wrong
 * in one thing only.  The die must not change: the callers check.
 */
static void refusals(struct rec *r)
{
	static const __u32 w5[5] = { 2, 2, 0, 1, 1 }, zero5[5];
	static const __u64 thr5[5] = { 10, 0, 10, 7, 9 };
	static const __u32 al5[5] = { 0, 2, 2, 0, 0 };
	static const __u64 thr_over[5] = { 10, 0, 11, 7, 9 };
	static const __u32 al_out[5] = { 0, 2, 2, 0, 5 };
	static const __u32 al_huge[5] = { 0, 2, 2, 0xffffffffU, 0 };
	static const __u64 thr0[3] = { 0, 0, 0 };
	static const __u32 al0[3] = { 0, 0, 0 };
	static __u32 *w_big;
	static __u64 *thr_big;
	static __u32 *al_big;
	const __u32 big = DICE_TABLE_SIDES_MAX + 1;
	char *edge = guarded();
	struct dice_die_args a;
	unsigned int i;

	if (!w_big) {
		w_big = malloc(big * sizeof(*w_big));
		thr_big = calloc(big, sizeof(*thr_big));
		al_big = calloc(big, sizeof(*al_big));
		if (!w_big || !thr_big || !al_big || !edge) {
			must(r, false, "no memory for the refusals");
			return;
		}
		for (i = 0; i < big; i++)
			w_big[i] = 1;
	}

	/* EINVAL: flags, kind, method, format unknown. */
	a = fair(6, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.flags = 1;
	rec_set_die(r, "flags 1", &a, EINVAL);
	a.flags = 0x80000000U;
	rec_set_die(r, "flags bit 31", &a, EINVAL);
	a = fair(6, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.kind = 3;
	rec_set_die(r, "kind 3", &a, EINVAL);
	a.kind = ~0U;
	rec_set_die(r, "kind ~0", &a, EINVAL);
	a = fair(6, 4, DICE_FMT_U8);
	rec_set_die(r, "method 4 (REJECTION, gone)", &a, EINVAL);
	a = fair(6, 5, DICE_FMT_U8);
	rec_set_die(r, "method 5", &a, EINVAL);
	a = fair(6, ~0U, DICE_FMT_U8);
	rec_set_die(r, "method ~0", &a, EINVAL);
	a = fair(6, DICE_METHOD_RECYCLE, 5);
	rec_set_die(r, "format 5", &a, EINVAL);
	a = fair(6, DICE_METHOD_RECYCLE, DICE_FMT_TYPE_MASK);
	rec_set_die(r, "format 0xff", &a, EINVAL);
	a = fair(6, DICE_METHOD_RECYCLE, DICE_FMT_U8 | 0x200);
	rec_set_die(r, "format flag 0x200", &a, EINVAL);
	a = fair(6, DICE_METHOD_RECYCLE, DICE_FMT_U8 | 0x80000000U);
	rec_set_die(r, "format flag bit 31", &a, EINVAL);
	/* EINVAL: 0 sides, of each kind. */
	a = fair(0, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "fair sides 0", &a, EINVAL);
	a = weighted(w5, 0, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "weights sides 0", &a, EINVAL);
	a = aliased(thr5, al5, 10, 0, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "alias sides 0", &a, EINVAL);
	/* EINVAL: a pointer or a mass the kind does not use. */
	a = fair(5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.weights = (uintptr_t)w5;
	rec_set_die(r, "fair with weights", &a, EINVAL);
	a = fair(5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.thresholds = (uintptr_t)thr5;
	rec_set_die(r, "fair with thresholds", &a, EINVAL);
	a = fair(5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.aliases = (uintptr_t)al5;
	rec_set_die(r, "fair with aliases", &a, EINVAL);
	a = fair(5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.mass = 10;
	rec_set_die(r, "fair with mass", &a, EINVAL);
	a = weighted(w5, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.thresholds = (uintptr_t)thr5;
	rec_set_die(r, "weights with thresholds", &a, EINVAL);
	a = weighted(w5, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.aliases = (uintptr_t)al5;
	rec_set_die(r, "weights with aliases", &a, EINVAL);
	a = weighted(w5, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.mass = 10;
	rec_set_die(r, "weights with mass", &a, EINVAL);
	a = aliased(thr5, al5, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.weights = (uintptr_t)w5;
	rec_set_die(r, "alias with weights", &a, EINVAL);
	a = aliased(thr5, al5, 0, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "alias mass 0", &a, EINVAL);
	/* EINVAL: methods that roll fair dice only. */
	a = weighted(w5, 5, DICE_METHOD_VIGLIETTA, DICE_FMT_U8);
	rec_set_die(r, "weights by Viglietta", &a, EINVAL);
	a = weighted(w5, 5, DICE_METHOD_BATCH, DICE_FMT_U8);
	rec_set_die(r, "weights by batch", &a, EINVAL);
	a = aliased(thr5, al5, 10, 5, DICE_METHOD_VIGLIETTA, DICE_FMT_U8);
	rec_set_die(r, "alias by Viglietta", &a, EINVAL);
	a = aliased(thr5, al5, 10, 5, DICE_METHOD_BATCH, DICE_FMT_U8);
	rec_set_die(r, "alias by batch", &a, EINVAL);
	/* EINVAL: the table's contents. */
	a = weighted(zero5, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "every weight 0", &a, EINVAL);
	a = aliased(thr_over, al5, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "threshold above the mass", &a, EINVAL);
	a = aliased(thr5, al_out, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "alias 5 of 5 sides", &a, EINVAL);
	a = aliased(thr5, al_huge, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "alias 2^32-1", &a, EINVAL);

	/* E2BIG: a loaded die of more sides than a table may have. */
	a = weighted(w_big, big, DICE_METHOD_RECYCLE, DICE_FMT_U32);
	rec_set_die(r, "weights 2^20+1 sides", &a, E2BIG);
	a = aliased(thr_big, al_big, 1, big, DICE_METHOD_RECYCLE, DICE_FMT_U32);
	rec_set_die(r, "alias 2^20+1 sides", &a, E2BIG);
	/* Not a 5-sided die read as the low 32 bits of the sides. */
	a = weighted(w5, (1ULL << 32) + 5, DICE_METHOD_RECYCLE, DICE_FMT_U64);
	rec_set_die(r, "weights 2^32+5 sides", &a, E2BIG);
	a = aliased(thr5, al5, 10, (1ULL << 32) + 5, DICE_METHOD_RECYCLE,
		    DICE_FMT_U64);
	rec_set_die(r, "alias 2^32+5 sides", &a, E2BIG);
	a = weighted(w5, DICE_MAX_FAIR_SIDES, DICE_METHOD_RECYCLE,
		     DICE_FMT_U64);
	rec_set_die(r, "weights 2^64-1 sides", &a, E2BIG);

	/* EOVERFLOW: the largest face in the format, a side's mass. */
	a = fair(POW2(32) + 1, DICE_METHOD_RECYCLE, DICE_FMT_U32);
	rec_set_die(r, "d2^32+1 in U32", &a, EOVERFLOW);
	a = fair(POW2(32) + 1, DICE_METHOD_RECYCLE,
		 DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "d2^32+1 in U32 from 0", &a, EOVERFLOW);
	a = fair(256, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "d256 in U8", &a, EOVERFLOW);
	a = fair(257, DICE_METHOD_RECYCLE, DICE_FMT_U8 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "d257 in U8 from 0", &a, EOVERFLOW);
	a = fair(65536, DICE_METHOD_VIGLIETTA, DICE_FMT_U16);
	rec_set_die(r, "d65536 in U16", &a, EOVERFLOW);
	a = weighted(w_big, 256, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "256 weights in U8", &a, EOVERFLOW);
	a = aliased(thr_big, al_big, 1, 65537, DICE_METHOD_RECYCLE,
		    DICE_FMT_U16 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "alias 65537 sides in U16 from 0", &a, EOVERFLOW);
	/* Side 0 collects 3 * 2^63 over the columns. */
	a = aliased(thr0, al0, POW2(63), 3, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "a side's mass over 2^64", &a, EOVERFLOW);

	/* EFAULT: the argument, a table out of reach or faulting midway. */
	ioc(r, "SET_DIE NULL", DICE_IOC_SET_DIE, NULL, EFAULT);
	a = weighted(NULL, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "weights NULL", &a, EFAULT);
	a = weighted(w5, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.weights = 0xffffffff00001000ULL;
	rec_set_die(r, "weights in the kernel's half", &a, EFAULT);
	/* Above 4 GiB: a 32-bit process's pointer with bits it never has. */
	a.weights = 0x100000000ULL + (uintptr_t)w5;
	rec_set_die(r, "weights 4 GiB up", &a, EFAULT);
	a = aliased(thr5, al5, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.thresholds = 0x100000000ULL + (uintptr_t)thr5;
	rec_set_die(r, "thresholds 4 GiB up", &a, EFAULT);
	a = aliased(thr5, al5, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	a.aliases = 0x100000000ULL + (uintptr_t)al5;
	rec_set_die(r, "aliases 4 GiB up", &a, EFAULT);
	a = aliased(NULL, al5, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "thresholds NULL", &a, EFAULT);
	/* Room for 100 entries before the unmapped page, 130 sides. */
	a = weighted((const __u32 *)edge - 100, 130, DICE_METHOD_RECYCLE,
		     DICE_FMT_U8);
	rec_set_die(r, "weights fault at 100 of 130", &a, EFAULT);
	a = aliased((const __u64 *)edge - 100, al_big, 1, 130,
		    DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "thresholds fault at 100 of 130", &a, EFAULT);
	a = aliased(thr_big, (const __u32 *)edge - 100, 1, 130,
		    DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "aliases fault at 100 of 130", &a, EFAULT);
}

/* ---- the scenarios ----------------------------------------------------------- */

/* The ABI as this build sees it: sizes, offsets, ioctl numbers. */
static void scen_abi(struct rec *r)
{
	static const __u64 abi[] = {
		sizeof(struct dice_die_args), sizeof(struct dice_die_info),
		sizeof(struct dice_die_stats),
		_Alignof(struct dice_die_args), _Alignof(struct dice_die_info),
		_Alignof(struct dice_die_stats),
		offsetof(struct dice_die_args, mass),
		offsetof(struct dice_die_args, kind),
		offsetof(struct dice_die_args, flags),
		offsetof(struct dice_die_info, kind),
		offsetof(struct dice_die_info, padding),
		offsetof(struct dice_die_stats, coin_bits),
		DICE_IOC_SET_DIE, DICE_IOC_GET_DIE, DICE_IOC_GET_STATS,
		DICE_IOC_SET_SOURCE,
	};

	put(r, "abi", abi, sizeof(abi));
	must(r, !access("/proc/sys/abi/vsyscall32", F_OK),
	     "no /proc/sys/abi/vsyscall32: a kernel without IA32 emulation");
}

/* SET_DIE and GET_DIE, and every refusal of SET_DIE. */
static void scen_info(struct rec *r)
{
	struct dice_die_args a;

	rec_die(r, "default", 6, DICE_KIND_FAIR, DICE_METHOD_RECYCLE,
		DICE_FMT_TEXT);
	a = fair(1000003, DICE_METHOD_VIGLIETTA,
		 DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "set", &a, 0);
	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	rec_die(r, "set", 1000003, DICE_KIND_FAIR, DICE_METHOD_VIGLIETTA,
		DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	refusals(r);
	rec_die(r, "after the refusals", 1000003, DICE_KIND_FAIR,
		DICE_METHOD_VIGLIETTA, DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	/* The largest fair die, in each binary format that holds it. */
	a = fair(DICE_MAX_FAIR_SIDES, DICE_METHOD_BATCH, DICE_FMT_U64);
	rec_set_die(r, "d2^64-1", &a, 0);
	rec_die(r, "d2^64-1", DICE_MAX_FAIR_SIDES, DICE_KIND_FAIR,
		DICE_METHOD_BATCH, DICE_FMT_U64);
	a = fair(256, DICE_METHOD_RECYCLE, DICE_FMT_U8 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "d256 in U8 from 0", &a, 0);
	a = fair(65535, DICE_METHOD_RECYCLE, DICE_FMT_U16);
	rec_set_die(r, "d65535 in U16", &a, 0);
	rec_set_u32(r, "source 2", DICE_IOC_SET_SOURCE, 2, EINVAL);
	ioc(r, "GET_DIE NULL", DICE_IOC_GET_DIE, NULL, EFAULT);
	ioc(r, "GET_STATS NULL", DICE_IOC_GET_STATS, NULL, EFAULT);
	ioc(r, "SET_SOURCE NULL", DICE_IOC_SET_SOURCE, NULL, EFAULT);
	rec_die(r, "last", 65535, DICE_KIND_FAIR, DICE_METHOD_RECYCLE,
		DICE_FMT_U16);
	stats(r, "stats", NULL);
}

/*
 * Every other number fails with ENOTTY and touches nothing: the old
 * uapi's nine, the new four with any other size or direction, every other
 * number of the type, another type.  A number taken by mistake would
 * write to the buffer (all zero, room for the largest size) or change
 * the die.
 */
static void scen_unknown(struct rec *r)
{
	static const __u32 sizes[] = { 0, 1, 4, 8, 16, 24, 32, 40, 48, 55, 56,
				       57, 64, 96, 128, 4096, 16383 };
	static const __u32 dirs[] = { _IOC_NONE, _IOC_WRITE, _IOC_READ,
				      _IOC_READ | _IOC_WRITE };
	static unsigned char buf[16384 + 64];
	struct dice_die_args a = fair(20, DICE_METHOD_VIGLIETTA, DICE_FMT_U16);
	unsigned int i, d, s, nr, bad = 0;
	__u64 errs[ARRAY_SIZE(new_ioctls)][ARRAY_SIZE(dirs)][ARRAY_SIZE(sizes)];
	__u64 nrs[256];
	char what[128];

	rec_set_die(r, "set", &a, 0);
	for (i = 0; i < ARRAY_SIZE(old_ioctls); i++)
		ioc(r, "an ioctl of the old uapi", old_ioctls[i], buf, ENOTTY);
	for (i = 0; i < ARRAY_SIZE(new_ioctls); i++)
		for (d = 0; d < ARRAY_SIZE(dirs); d++)
			for (s = 0; s < ARRAY_SIZE(sizes); s++) {
				unsigned long cmd = _IOC(dirs[d], DICE_IOC_MAGIC,
							 new_ioctls[i].nr,
							 sizes[s]);
				bool real = dirs[d] == new_ioctls[i].dir &&
					    sizes[s] == new_ioctls[i].size;

				if (real) {
					errs[i][d][s] = 0;
					continue;
				}
				errs[i][d][s] = ioctl(r->fd, cmd, buf) ?
						errno : 0;
				if (errs[i][d][s] != ENOTTY && !bad++) {
					snprintf(what, sizeof(what),
						 "ioctl %#lx: errno %llu, want ENOTTY",
						 cmd, errs[i][d][s]);
					must(r, false, what);
				}
			}
	put(r, "the new numbers in other sizes", errs, sizeof(errs));
	for (nr = 0; nr < 256; nr++) {
		unsigned long cmd = _IOC(_IOC_READ | _IOC_WRITE,
					 DICE_IOC_MAGIC, nr, 56);

		nrs[nr] = ioctl(r->fd, cmd, buf) ? errno : 0;
		if (nrs[nr] != ENOTTY && !bad++) {
			snprintf(what, sizeof(what),
				 "ioctl %#lx: errno %llu, want ENOTTY", cmd,
				 nrs[nr]);
			must(r, false, what);
		}
	}
	put(r, "every number as _IOWR of 56 bytes", nrs, sizeof(nrs));
	ioc(r, "another type", _IOC(_IOC_WRITE, 'Q', 0x10, 56), buf, ENOTTY);
	ioc(r, "another type, read", _IOC(_IOC_READ, 'Q', 0x11, 24), buf,
	    ENOTTY);
	must(r, !memchr_nonzero(buf, sizeof(buf)),
	     "an unknown ioctl wrote to its argument");
	rec_die(r, "after", 20, DICE_KIND_FAIR, DICE_METHOD_VIGLIETTA,
		DICE_FMT_U16);
}

/*
 * A refused SET_DIE changes nothing: two files fed the same bits roll the
 * same die, half a roll read from each; the first then gets every refusal.
 * Both must still report the same die and the same stats, and serve the
 * same bytes (the rest of the text line, the rolls waiting in a batch,
 * the recycled state all kept).  For a fair, a weighted and an alias die.
 */
static void same_as_twin(struct rec *r, int twin, const char *tag,
			 size_t n, __u32 fmt, __u64 sides)
{
	static unsigned char mine[4096], theirs[4096];
	struct dice_die_stats sa, sb;
	struct dice_die_info ia, ib;
	int fd = r->fd;
	ssize_t a, b;

	memset(&ia, 0xa5, sizeof(ia));
	memset(&ib, 0x5a, sizeof(ib));
	ioc(r, tag, DICE_IOC_GET_DIE, &ia, 0);
	put(r, tag, &ia, sizeof(ia));
	stats(r, tag, &sa);
	r->fd = twin;
	ioc(r, tag, DICE_IOC_GET_DIE, &ib, 0);
	stats(r, tag, &sb);
	b = rd_into(r, tag, theirs, n, fmt, sides, 0);
	r->fd = fd;
	a = rd_into(r, tag, mine, n, fmt, sides, 0);
	must(r, !memcmp(&ia, &ib, sizeof(ia)),
	     "a refused SET_DIE changed the die (GET_DIE)");
	must(r, !memcmp(&sa, &sb, sizeof(sa)),
	     "a refused SET_DIE changed the stats");
	must(r, a > 0 && a == b && !memcmp(mine, theirs, a),
	     "a refused SET_DIE changed the rolls read after it");
}

static void scen_atomic(struct rec *r)
{
	/* Side 1 weighs 0 (and side 5). */
	static const __u32 w[7] = { 5, 0, 3, 1, 1, 0, 6 };
	/*
	 * Columns of mass 4: side 0 collects 4 + 4 + 2 + 1, side 1 nothing,
	 * side 2 4, side 3 nothing, side 4 2, side 5 4 + 3 (of 24).
	 */
	static const __u64 thr[6] = { 4, 0, 4, 0, 2, 3 };
	static const __u32 al[6] = { 2, 0, 2, 5, 0, 0 };
	const struct {
		struct dice_die_args die;
		size_t half;	/* bytes read before the refusals */
		size_t n;	/* and after */
	} dice[] = {
		{ fair(1000, DICE_METHOD_BATCH, DICE_FMT_TEXT), 6, 600 },
		{ fair(1000, DICE_METHOD_RECYCLE, DICE_FMT_TEXT), 7, 600 },
		{ fair(POW2(40) + 1, DICE_METHOD_VIGLIETTA, DICE_FMT_U64), 16,
		  256 },
		{ weighted(w, 7, DICE_METHOD_RECYCLE, DICE_FMT_U16), 6, 400 },
		{ weighted(w, 7, DICE_METHOD_ALIAS, DICE_FMT_U8), 3, 300 },
		{ aliased(thr, al, 4, 6, DICE_METHOD_RECYCLE,
			  DICE_FMT_U32 | DICE_FMT_ZERO_BASED), 8, 400 },
		{ aliased(thr, al, 4, 6, DICE_METHOD_ALIAS, DICE_FMT_TEXT), 1,
		  300 },
	};
	unsigned char bits[1016], half[64];
	unsigned int i;
	int fd = r->fd, twin = open(DICE_PATH, O_RDWR | O_CLOEXEC);

	must(r, twin >= 0, "open of a second file failed");
	if (twin < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(dice); i++) {
		const struct dice_die_args *d = &dice[i].die;
		__u32 lo = d->format & DICE_FMT_ZERO_BASED ? 0 : 1;
		/* Side 1, of mass 0, never comes up (binary formats). */
		__u64 never = d->kind == DICE_KIND_FAIR ? 0 : 1 + lo;
		stream(bits, sizeof(bits), 500 + i);
		for (r->fd = fd; ; r->fd = twin) {
			rec_set_u32(r, "source", DICE_IOC_SET_SOURCE,
				    DICE_SRC_WRITTEN, 0);
			wr(r, "write", bits, sizeof(bits));
			rec_set_die(r, "the die", d, 0);
			rd_into(r, "half", half, dice[i].half, d->format,
				d->sides, never);
			if (r->fd == twin)
				break;
		}
		r->fd = fd;
		refusals(r);
		same_as_twin(r, twin, "after the refusals", dice[i].n,
			     d->format, d->sides);
	}
	r->fd = fd;
	close(twin);
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
		{ 6, DICE_FMT_U16, DICE_METHOD_RECYCLE, 100 },
		{ 6, DICE_FMT_U32, DICE_METHOD_VIGLIETTA, 100 },
		{ 1000003, DICE_FMT_U32, DICE_METHOD_RECYCLE, 400 },
		{ 1000003, DICE_FMT_U32, DICE_METHOD_BATCH, 400 },
		{ POW2(40) + 1, DICE_FMT_U64, DICE_METHOD_RECYCLE, 64 },
		{ ~0ULL, DICE_FMT_U64 | DICE_FMT_ZERO_BASED,
		  DICE_METHOD_RECYCLE, 80 },
		{ 3ULL << 62, DICE_FMT_TEXT, DICE_METHOD_VIGLIETTA, 300 },
		{ 256, DICE_FMT_U8 | DICE_FMT_ZERO_BASED, DICE_METHOD_RECYCLE,
		  500 },
	};
	unsigned char bits[1016];
	struct dice_die_args a;
	unsigned int i;

	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	for (i = 0; i < ARRAY_SIZE(dice); i++) {
		stream(bits, sizeof(bits), 100 + i);
		wr(r, "write", bits, sizeof(bits));
		a = fair(dice[i].sides, dice[i].method, dice[i].fmt);
		rec_set_die(r, "die", &a, 0);
		rec_die(r, "die", dice[i].sides, DICE_KIND_FAIR,
			dice[i].method, dice[i].fmt);
		must(r, rd(r, "read", dice[i].len, dice[i].fmt,
			   dice[i].sides) > 0, "no faces from written bits");
		stats(r, "stats", NULL);
	}
	rec_die(r, "last", 256, DICE_KIND_FAIR, DICE_METHOD_RECYCLE,
		DICE_FMT_U8 | DICE_FMT_ZERO_BASED);
}

/*
 * Loaded dice both ways and by both methods that roll them.  GET_MASSES
 * is gone: the distribution is the one set, and a side of mass 0 (face 3
 * of the weights, face 2 of the alias table) never comes up.
 */
static void scen_loaded(struct rec *r)
{
	static const __u32 w[5] = { 2, 2, 0, 1, 1 };
	/*
	 * Columns of mass 10: side 0 collects 10 + 3 + 1, side 1 nothing,
	 * side 2 10 + 10, side 3 7, side 4 9 (of 50).
	 */
	static const __u64 thr[5] = { 10, 0, 10, 7, 9 };
	static const __u32 al[5] = { 0, 2, 2, 0, 0 };
	unsigned char bits[1016];
	struct dice_die_args a;

	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	stream(bits, sizeof(bits), 7);
	wr(r, "write", bits, sizeof(bits));
	a = weighted(w, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "weights", &a, 0);
	rec_die(r, "weights", 5, DICE_KIND_LOADED, DICE_METHOD_RECYCLE,
		DICE_FMT_U8);
	rd_into(r, "read", NULL, 256, DICE_FMT_U8, 5, 3);
	a.method = DICE_METHOD_ALIAS;
	rec_set_die(r, "weights by alias", &a, 0);
	rd_into(r, "read weights by alias", NULL, 128, DICE_FMT_U8, 5, 3);
	a = aliased(thr, al, 10, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "alias", &a, 0);
	rec_die(r, "alias", 5, DICE_KIND_LOADED, DICE_METHOD_RECYCLE,
		DICE_FMT_U8);
	rd_into(r, "read alias", NULL, 256, DICE_FMT_U8, 5, 2);
	a.method = DICE_METHOD_ALIAS;
	a.format = DICE_FMT_U16;
	rec_set_die(r, "alias by alias", &a, 0);
	rd_into(r, "read alias by alias", NULL, 256, DICE_FMT_U16, 5, 2);
	stats(r, "stats", NULL);
	rec_die(r, "info", 5, DICE_KIND_LOADED, DICE_METHOD_ALIAS,
		DICE_FMT_U16);
	/* Back to fair and loaded again: the die is the one last set. */
	a = fair(5, DICE_METHOD_VIGLIETTA, DICE_FMT_U8);
	rec_set_die(r, "fair d5", &a, 0);
	rec_die(r, "fair d5", 5, DICE_KIND_FAIR, DICE_METHOD_VIGLIETTA,
		DICE_FMT_U8);
	a = weighted(w, 5, DICE_METHOD_RECYCLE, DICE_FMT_U8);
	rec_set_die(r, "weights again", &a, 0);
	rd_into(r, "read again", NULL, 64, DICE_FMT_U8, 5, 3);
	rec_die(r, "last", 5, DICE_KIND_LOADED, DICE_METHOD_RECYCLE,
		DICE_FMT_U8);
}

/*
 * Tables of 4096 sides (16 KiB of weights) and of 2^20 (4 MiB of weights,
 * 12 MiB of alias table, copied in steps): every third side of the first
 * weighs 0 and never comes up, the others have one side that comes up
 * always.
 */
static void scen_big(struct rec *r)
{
	static __u32 w[DICE_TABLE_SIDES_MAX], al[DICE_TABLE_SIDES_MAX];
	static __u64 thr[DICE_TABLE_SIDES_MAX];
	static unsigned char buf[2400];
	unsigned char bits[1016];
	struct dice_die_args a;
	__u64 s = 42;
	unsigned int i;
	ssize_t got;

	for (i = 0; i < 4096; i++)
		w[i] = i % 3 ? (__u32)(splitmix(&s) >> 44) | 1 : 0;
	rec_set_u32(r, "source", DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN, 0);
	a = weighted(w, 4096, DICE_METHOD_RECYCLE, DICE_FMT_U16);
	rec_set_die(r, "weights", &a, 0);
	rec_die(r, "weights", 4096, DICE_KIND_LOADED, DICE_METHOD_RECYCLE,
		DICE_FMT_U16);
	for (i = 0; i < 4; i++) {
		stream(bits, sizeof(bits), 1000 + i);
		wr(r, "write", bits, sizeof(bits));
		got = rd_into(r, "read", buf, 600, DICE_FMT_U16, 4096, 0);
		for (s = 0; s + 2 <= (__u64)got; s += 2)
			must(r, get_le(buf + s, 2) % 3 != 1,
			     "a side of weight 0 came up");
	}
	stats(r, "stats", NULL);

	memset(w, 0, sizeof(w));
	w[DICE_TABLE_SIDES_MAX - 1] = 1;
	a = weighted(w, DICE_TABLE_SIDES_MAX, DICE_METHOD_RECYCLE, DICE_FMT_U32);
	rec_set_die(r, "2^20 weights", &a, 0);
	rec_die(r, "2^20 weights", DICE_TABLE_SIDES_MAX, DICE_KIND_LOADED,
		DICE_METHOD_RECYCLE, DICE_FMT_U32);
	stream(bits, sizeof(bits), 2000);
	wr(r, "write", bits, sizeof(bits));
	got = rd_into(r, "read 2^20 weights", buf, 400, DICE_FMT_U32,
		      DICE_TABLE_SIDES_MAX, 0);
	must(r, got > 0, "no rolls of the weights of 2^20 sides");
	for (s = 0; s + 4 <= (__u64)got; s += 4)
		must(r, get_le(buf + s, 4) == DICE_TABLE_SIDES_MAX,
		     "the weights of 2^20 sides gave another side");
	for (i = 0; i < DICE_TABLE_SIDES_MAX; i++)
		al[i] = 777777;
	a = aliased(thr, al, 1, DICE_TABLE_SIDES_MAX, DICE_METHOD_ALIAS,
		    DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	rec_set_die(r, "2^20 alias", &a, 0);
	rec_die(r, "2^20 alias", DICE_TABLE_SIDES_MAX, DICE_KIND_LOADED,
		DICE_METHOD_ALIAS, DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
	stream(bits, sizeof(bits), 2001);
	wr(r, "write", bits, sizeof(bits));
	got = rd_into(r, "read 2^20 alias", buf, 400,
		      DICE_FMT_U32 | DICE_FMT_ZERO_BASED, DICE_TABLE_SIDES_MAX,
		      0);
	must(r, got > 0, "no rolls of the alias table of 2^20 sides");
	for (s = 0; s + 4 <= (__u64)got; s += 4)
		must(r, get_le(buf + s, 4) == 777777,
		     "the alias table of 2^20 sides gave another side");
	stats(r, "stats", NULL);
}

static const struct {
	const char *name;
	void (*fn)(struct rec *r);
} scenarios[] = {
	{ "abi", scen_abi },
	{ "info", scen_info },
	{ "unknown", scen_unknown },
	{ "atomic", scen_atomic },
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

TEST(unknown)
{
	scenario_case(_metadata, "unknown");
}

TEST(atomic)
{
	scenario_case(_metadata, "atomic");
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
