// SPDX-License-Identifier: GPL-2.0
/*
 * dice_fuzz_test.c - a seeded, model-checked fuzzer of /dev/dice
 *
 * For a bounded time, two open files of /dev/dice get a stream of random
 * operations from a seeded generator:
 *
 *  - ioctls: the nine dice numbers in each direction, with the size field
 *    either right or one of 0, 1, 8, 16, 24, 32, 40, 64, 4096, 16383;
 *    unknown numbers of the dice magic; other drivers' magics (but those
 *    the VFS answers itself: 'T', 'X', 'f', 0x94, 0);
 *  - struct contents at random, with every user pointer (the argument
 *    itself, and the arrays the structs point to) NULL, in the first page,
 *    unmapped, on a PROT_READ page, misaligned, straddling into a PROT_NONE
 *    page, a kernel or non-canonical address, just below the top of user
 *    space, or a valid buffer of random contents and size (up to a few
 *    thousand sides);
 *  - read(), write(), readv() and writev() of random sizes into the same
 *    kinds of buffer; lseek(), pread() and mmap(), which must fail; and now
 *    and then a close and a fresh open;
 *  - and, for 40% of the operations, well-formed changes of the die and
 *    reads on the same file, so that a die's state is carried from one
 *    configuration to the next: sides (wide ones among them), weights
 *    (grouped dice with few cells, ungrouped dice, tables of up to 4096
 *    sides), alias tables, methods, formats, sources, written bits, and
 *    reads of 1 byte to 8 KiB.
 *
 * Each file has a model (what GET_INFO must say, the shares of its loaded
 * die, what may wait in its read buffer) and every result is checked:
 *
 *  - the errno must be one the operation may give: ENOTTY for numbers the
 *    driver does not know; EFAULT, EINVAL, EOVERFLOW for the scalar SET
 *    ioctls; EINVAL, EFAULT for GET_INFO and GET_STATS; EINVAL, E2BIG,
 *    EFAULT, ENOMEM, EOVERFLOW for SET_WEIGHTS and SET_ALIAS; plus ENOSPC
 *    for GET_MASSES; EINVAL, EFAULT, EAGAIN for read() and write();
 *    anything else, or a crash, fails;
 *  - the model predicts the exact result of nearly every call (it emulates
 *    copy_struct_from_user() and check_zeroed_user() on its own memory
 *    map) and the prediction must hold: "nearly" because ENOMEM is always
 *    allowed to the ioctls that allocate;
 *  - after every operation GET_INFO must match the model, so a failed call
 *    must leave the die as it was;
 *  - what the GET ioctls return must be sane and match the model: zeroed
 *    reserved fields and excess bytes, bytes past the caller's size left
 *    alone, bits used <= bits drawn, rolls that never go down, each mass
 *    of GET_MASSES equal to the model's share in lowest terms;
 *  - what read() returns must be faces of the die: in range, and never a
 *    side of a loaded die that has no mass; text lines of digits.
 *
 * After the storm each file must still roll a d6 in text.
 *
 * Two cases run before the storm: the sequence of a wide fair die, then a
 * grouped {1, 1} die, that once looped forever in the kernel, and the same
 * for every wide die and grouped die in every read size (see there).
 *
 * Environment: DICE_FUZZ_SEED (default 0x5eed, printed so that a failure
 * can be replayed), DICE_FUZZ_SECONDS (default 20, at most 500),
 * DICE_FUZZ_ITERS (stop after this many operations; default no limit).
 * A failure prints the seed, the operation count and the last operations.
 * In the test VM, put them on the kernel command line, e.g.
 * APPEND_EXTRA='DICE_FUZZ_SEED=42 DICE_FUZZ_SECONDS=60' make vmtest.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements, so under if, else
 * and for they always go in braces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"

/* The module reads ahead at most this much (DICE_OUT_BYTES in kmod/dice_main.c). */
#define OUT_BYTES	1024

#define DEFAULT_SEED	0x5eedULL
#define DEFAULT_SECONDS	20
#define MAX_SECONDS	500

#define NFILES		2
#define VALID_PAGES	64		/* 256 KiB of valid buffer */
#define LOG_LINES	24
#define LOG_LEN		200

/* x86-64's TASK_SIZE_MAX with 4-level page tables. */
#define USER_TOP	0x7ffffffff000ULL

typedef unsigned __int128 u128;

/* ---- the generator ------------------------------------------------------ */

/* ---- memory: what the kernel may read and write ------------------------- */

/*
 * One mapping: [valid: VALID_PAGES rw][guard][ro: one PROT_READ page]
 * [guard][hole: unmapped].  Guards are PROT_NONE, so a buffer that runs
 * off the end of valid or ro faults at a known place.
 */
struct arena {
	__u8 *base;
	__u8 *valid;
	__u8 *valid_end;
	__u8 *ro;
	__u8 *ro_end;
	__u8 *hole;
	size_t page;
	size_t len;
};

enum ptr_kind {
	PK_VALID,
	PK_MISALIGNED,
	PK_STRADDLE,
	PK_RO,
	PK_HOLE,
	PK_NULL,
	PK_LOW,
	PK_KERNEL,
	PK_NONCANON,
	PK_TOP,
	PK_NR
};

static const char *const pk_name[PK_NR] = {
	"valid", "misaligned", "straddle", "ro", "hole", "null", "low",
	"kernel", "noncanon", "top",
};

/* Bytes from @p on that the kernel can access for @prot, up to @len. */
static __u64 prefix(const struct arena *a, __u64 p, __u64 len, int prot)
{
	__u64 end = 0;

	if (p >= (__u64)a->valid && p < (__u64)a->valid_end)
		end = (__u64)a->valid_end;
	else if (prot == PROT_READ && p >= (__u64)a->ro && p < (__u64)a->ro_end)
		end = (__u64)a->ro_end;
	if (!end)
		return 0;
	return end - p < len ? end - p : len;
}

static bool all_ok(const struct arena *a, __u64 p, __u64 len, int prot)
{
	return !len || prefix(a, p, len, prot) == len;
}

/* access_ok() of x86-64 (4-level paging). */
static bool ua_ok(__u64 p, __u64 len)
{
	return len <= USER_TOP && p <= USER_TOP - len;
}

static bool peek(const struct arena *a, __u64 p, void *dst, size_t len)
{
	if (!all_ok(a, p, len, PROT_READ))
		return false;
	memcpy(dst, (void *)(uintptr_t)p, len);
	return true;
}

/* Write what of @len bytes at @p lands in valid memory. */
static void poke(const struct arena *a, __u64 p, const void *src, size_t len)
{
	__u64 n = prefix(a, p, len, PROT_WRITE);

	if (n)
		memcpy((void *)(uintptr_t)p, src, n);
}

/* ---- the model of one file ---------------------------------------------- */

struct model {
	__u64 sides;
	__u32 kind;
	__u32 format;
	__u32 method;
	__u32 source;
	/* shares of the loaded die, when known; NULL for a fair die */
	bool known;
	__u64 *share;
	u128 total;
	/* last rolls count seen */
	__u64 rolls;
	/* text: bytes that may wait in the read buffer; of those, bytes that
	 * may belong to an earlier die; whether the next byte read may be in
	 * the middle of a line
	 */
	unsigned int left_max;
	unsigned int stale_max;
	bool midline;
	/* a fair die of more than 2^32 sides rolled since the last table */
	bool wide_rolled;
};

struct fz {
	struct __test_metadata *md;
	struct arena a;
	__u64 seed;
	__u64 rng;
	unsigned long iter;
	__u64 max_table_sides;
	int fd[NFILES];
	struct model m[NFILES];
	int cur;
	char log[LOG_LINES][LOG_LEN];
	unsigned long nlog;
	/* what ran */
	unsigned long n_ioctl, n_read, n_write, n_vec, n_other, n_reopen;
	unsigned long n_valid, n_changes, n_wide_grouped;
	unsigned long n_exact, n_bytes, n_tables, n_masses, n_faces;
	unsigned long n_errno[160];
};

static __u64 rnd(struct fz *z)
{
	return splitmix(&z->rng);
}

static __u64 below(struct fz *z, __u64 n)
{
	return n ? rnd(z) % n : 0;
}

static void logop(struct fz *z, const char *fmt, ...) __printf(2, 3);

static void logop(struct fz *z, const char *fmt, ...)
{
	char *line = z->log[z->nlog++ % LOG_LINES];
	va_list ap;
	int n;

	n = snprintf(line, LOG_LEN, "#%lu f%d ", z->iter, z->cur);
	va_start(ap, fmt);
	vsnprintf(line + n, LOG_LEN - n, fmt, ap);
	va_end(ap);
}

static void dump(struct fz *z)
{
	unsigned long i = z->nlog > LOG_LINES ? z->nlog - LOG_LINES : 0;

	fprintf(stderr, "# fuzz: FAILED at operation %lu; replay with DICE_FUZZ_SEED=%#llx DICE_FUZZ_ITERS=%lu\n",
		z->iter, (unsigned long long)z->seed, z->iter + 1);
	fprintf(stderr, "# fuzz: the last operations, oldest first:\n");
	for (; i < z->nlog; i++)
		fprintf(stderr, "#   %s\n", z->log[i % LOG_LINES]);
}

#define FZ_CHECK(z, cond, fmt, ...) do {				\
	if (!(cond)) {							\
		struct __test_metadata *_metadata = (z)->md;		\
		dump(z);						\
		TH_LOG("%s: " fmt, #cond, ##__VA_ARGS__);		\
		ASSERT_TRUE(0);						\
	}								\
} while (0)

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case E2BIG: return "E2BIG";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	case ESPIPE: return "ESPIPE";
	case ENODEV: return "ENODEV";
	default: return strerror(e);
	}
}

/* A set of errnos (all of ours are below 128). */
#define BIT(e)	((u128)1 << (e))

static void model_reset(struct model *m)
{
	free(m->share);
	memset(m, 0, sizeof(*m));
	m->sides = 6;
	m->kind = DICE_KIND_FAIR;
	m->format = DICE_FMT_TEXT;
	m->method = DICE_METHOD_RECYCLE;
	m->source = DICE_SRC_KERNEL;
}

/* ---- what the driver answers -------------------------------------------- */

/* dice_format_check(): 0 or a negative errno, as all the emulations */
static int fmt_check(__u32 fmt, __u64 sides)
{
	unsigned int w;
	__u64 top;

	if (fmt & ~(DICE_FMT_TYPE_MASK | DICE_FMT_FLAGS_MASK))
		return -EINVAL;
	if ((fmt & DICE_FMT_TYPE_MASK) > DICE_FMT_U64)
		return -EINVAL;
	w = fmt_width(fmt);
	if (!w || w == 8)
		return 0;
	top = fmt & DICE_FMT_ZERO_BASED ? sides - 1 : sides;
	return top >> (8 * w) ? -EOVERFLOW : 0;
}

/* dice_method_check() */
static int method_check(__u32 method, __u32 kind)
{
	if (method == DICE_METHOD_RECYCLE || method == DICE_METHOD_ALIAS)
		return 0;
	if (method <= DICE_METHOD_REJECTION)
		return kind == DICE_KIND_FAIR ? 0 : -EINVAL;
	return -EINVAL;
}

/* check_zeroed_user(): 1 all zero, 0 not, -EFAULT */
static int emu_check_zeroed(const struct arena *a, __u64 p, __u64 size)
{
	__u64 align = p % 8, from = p - align, val;

	if (!size)
		return 1;
	size += align;
	if (!ua_ok(from, size) || !peek(a, from, &val, 8))
		return -EFAULT;
	if (align)
		val &= ~((1ULL << (8 * align)) - 1);
	while (size > 8) {
		if (val)
			return 0;
		from += 8;
		size -= 8;
		if (!peek(a, from, &val, 8))
			return -EFAULT;
	}
	if (size < 8)
		val &= (1ULL << (8 * size)) - 1;
	return val == 0;
}

/* copy_struct_from_user(): 0 with @dst filled, or a negative errno */
static int emu_struct_in(const struct arena *a, __u64 p, size_t usize,
			 void *dst, size_t ksize)
{
	size_t size = usize < ksize ? usize : ksize;

	memset(dst, 0, ksize);
	if (usize > ksize) {
		int r = emu_check_zeroed(a, p + ksize, usize - ksize);

		if (r <= 0)
			return r ? -EFAULT : -E2BIG;
	}
	if (size && !peek(a, p, dst, size))
		return -EFAULT;
	return 0;
}

/* ---- choosing pointers and values ---------------------------------------- */

static enum ptr_kind pick_kind(struct fz *z)
{
	unsigned int r = below(z, 100);

	if (r < 50)
		return PK_VALID;
	if (r < 60)
		return PK_MISALIGNED;
	if (r < 70)
		return PK_STRADDLE;
	if (r < 78)
		return PK_RO;
	return PK_HOLE + below(z, PK_NR - PK_HOLE);
}

/* A user address of kind @k for a buffer of @len bytes. */
static __u64 pick_ptr(struct fz *z, __u64 len, enum ptr_kind k)
{
	struct arena *a = &z->a;
	__u64 room = (__u64)(a->valid_end - a->valid), off;

	switch (k) {
	case PK_VALID:
	case PK_MISALIGNED:
		off = len <= room ? below(z, (room - len) / 8 + 1) * 8 :
				    below(z, room / 8) * 8;
		if (k == PK_MISALIGNED)
			off += 1 + below(z, 7);
		if (off >= room)
			off = room - 1;
		return (__u64)a->valid + off;
	case PK_STRADDLE:
		/* Part in valid memory, the rest in the guard page. */
		return (__u64)a->valid_end - (len > 1 ? 1 + below(z, len - 1 < a->page ?
							     len - 1 : a->page) : 0);
	case PK_RO:
		off = len <= a->page ? below(z, a->page - len + 1) : below(z, a->page);
		return (__u64)a->ro + off;
	case PK_HOLE:
		return (__u64)a->hole + below(z, a->page);
	case PK_NULL:
		return 0;
	case PK_LOW:
		return 1 + below(z, 4095);
	case PK_KERNEL:
		return below(z, 2) ? 0xffff888000000000ULL + below(z, 1ULL << 30) :
				     0xffffffff81000000ULL + below(z, 1 << 20);
	case PK_NONCANON:
		return 0x8000000000000000ULL + below(z, 1ULL << 40);
	default:
		return USER_TOP - below(z, 16);
	}
}

static const __u32 sizes[] = { 0, 1, 8, 16, 24, 32, 40, 64, 4096, 16383 };

static __u64 pick_sides(struct fz *z)
{
	unsigned int r = below(z, 100);

	if (r < 5)
		return 0;
	if (r < 40)
		return 1 + below(z, 8);
	if (r < 70)
		return 9 + below(z, 248);
	if (r < 85)
		return 257 + below(z, 3840);
	if (r < 88)
		return z->max_table_sides + below(z, 2);
	if (r < 93)
		return (__u32)rnd(z);
	return 1 + below(z, 65536);
}

/* ---- checks shared by the operations -------------------------------------- */

static void check_errno(struct fz *z, const char *what, int got, u128 allowed,
			int expect)
{
	z->n_errno[got < 160 ? got : 0]++;
	FZ_CHECK(z, got == 0 || (got < 128 && (allowed & BIT(got))),
		 "%s: errno %d (%s) is not one it may give", what, got,
		 errname(got));
	if (expect >= 0) {
		z->n_exact++;
		FZ_CHECK(z, got == expect, "%s: got %s, the model says %s", what,
			 errname(got), errname(expect));
	}
}

/* GET_INFO must match the model: a failed call changed nothing. */
static void check_info(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	struct dice_info info;

	memset(&info, 0xa5, sizeof(info));
	FZ_CHECK(z, !ioctl(z->fd[z->cur], DICE_IOC_GET_INFO, &info),
		 "GET_INFO: %s", strerror(errno));
	FZ_CHECK(z, !info.flags && !info.padding && !info.reserved[0] &&
		 !info.reserved[1] && !info.reserved[2] && !info.reserved[3],
		 "GET_INFO: reserved fields not zero");
	FZ_CHECK(z, info.sides == m->sides && info.kind == m->kind &&
		 info.format == m->format && info.method == m->method &&
		 info.source == m->source,
		 "GET_INFO: sides %llu kind %u format %#x method %u source %u, model: %llu %u %#x %u %u",
		 (unsigned long long)info.sides, info.kind, info.format,
		 info.method, info.source, (unsigned long long)m->sides,
		 m->kind, m->format, m->method, m->source);
}

/* A face read from the die: in range, with mass. */
static void check_face(struct fz *z, __u64 face, const char *how)
{
	struct model *m = &z->m[z->cur];
	__u64 lo = m->format & DICE_FMT_ZERO_BASED ? 0 : 1;

	z->n_faces++;

	FZ_CHECK(z, face >= lo && face - lo < m->sides,
		 "%s: face %llu of a d%llu (format %#x)", how,
		 (unsigned long long)face, (unsigned long long)m->sides,
		 m->format);
	if (m->kind == DICE_KIND_LOADED && m->known && m->share) {
		FZ_CHECK(z, m->share[face - lo],
			 "%s: side %llu has no mass but came up", how,
			 (unsigned long long)(face - lo));
	}
}

/* ---- the scalar SET ioctls ------------------------------------------------- */

enum op_nr {
	OP_NOTTY,
	OP_SET_SIDES,
	OP_SET_FORMAT,
	OP_GET_INFO,
	OP_GET_STATS,
	OP_SET_WEIGHTS,
	OP_SET_ALIAS,
	OP_GET_MASSES,
	OP_SET_METHOD,
	OP_SET_SOURCE,
};

/* What dice_ioctl() does with @cmd. */
static enum op_nr classify(unsigned int cmd)
{
	unsigned int base = cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);

	switch (cmd) {
	case DICE_IOC_SET_SIDES: return OP_SET_SIDES;
	case DICE_IOC_SET_FORMAT: return OP_SET_FORMAT;
	case DICE_IOC_SET_METHOD: return OP_SET_METHOD;
	case DICE_IOC_SET_SOURCE: return OP_SET_SOURCE;
	}
#define B(c) ((c) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))
	if (base == B(DICE_IOC_GET_INFO))
		return OP_GET_INFO;
	if (base == B(DICE_IOC_GET_STATS))
		return OP_GET_STATS;
	if (base == B(DICE_IOC_SET_WEIGHTS))
		return OP_SET_WEIGHTS;
	if (base == B(DICE_IOC_SET_ALIAS))
		return OP_SET_ALIAS;
	if (base == B(DICE_IOC_GET_MASSES))
		return OP_GET_MASSES;
#undef B
	return OP_NOTTY;
}

static __u64 pick_scalar(struct fz *z, enum op_nr op)
{
	static const __u64 sides[] = {
		1, 2, 6, 255, 256, 257, 65535, 65536, 65537, 0xffffffffULL,
		0x100000000ULL, 0x100000001ULL, 1ULL << 63, ~0ULL, 0,
	};
	unsigned int r = below(z, 100);

	switch (op) {
	case OP_SET_SIDES:
		if (r < 60)
			return sides[below(z, ARRAY_SIZE(sides))];
		return r < 90 ? 1 + below(z, 1000) : rnd(z);
	case OP_SET_FORMAT:
		if (r < 80)
			return below(z, 5) | (below(z, 2) ? DICE_FMT_ZERO_BASED : 0);
		return r < 90 ? below(z, 0x400) : (__u32)rnd(z);
	case OP_SET_METHOD:
		return r < 85 ? below(z, 5) : (__u32)rnd(z);
	default:
		return r < 90 ? below(z, 2) : (__u32)rnd(z);
	}
}

/*
 * The die changed: of what waited in the read buffer only the rest of a
 * text line a read began is kept (at most 21 bytes, and none when the last
 * read ended a line); it is of the old die.
 */
static void die_changed(struct model *m)
{
	unsigned int rest = m->midline ? 21 : 0;

	if (m->left_max > rest)
		m->left_max = rest;
	m->stale_max = m->left_max;
}

static void buffer_dropped(struct model *m)
{
	m->left_max = 0;
	m->stale_max = 0;
	m->midline = false;
}

/* A scalar SET of @v through a pointer of kind @k, checked and modelled. */
static void scalar_call(struct fz *z, unsigned int cmd, enum op_nr op,
			__u64 v, enum ptr_kind k)
{
	struct model *m = &z->m[z->cur];
	unsigned int size = _IOC_SIZE(cmd);
	__u64 p = pick_ptr(z, size, k), got = 0;
	int expect, err;

	poke(&z->a, p, &v, size);
	if (!peek(&z->a, p, &got, size)) {
		expect = EFAULT;
	} else {
		v = got;
		switch (op) {
		case OP_SET_SIDES:
			expect = !v ? EINVAL : -fmt_check(m->format, v);
			break;
		case OP_SET_FORMAT:
			expect = -fmt_check((__u32)v, m->sides);
			break;
		case OP_SET_METHOD:
			expect = -method_check((__u32)v, m->kind);
			break;
		default:
			expect = v <= DICE_SRC_WRITTEN ? 0 : EINVAL;
		}
	}
	logop(z, "ioctl %#x %s ptr %s %#llx value %#llx: model %s", cmd,
	      op == OP_SET_SIDES ? "SET_SIDES" : op == OP_SET_FORMAT ?
	      "SET_FORMAT" : op == OP_SET_METHOD ? "SET_METHOD" : "SET_SOURCE",
	      pk_name[k], (unsigned long long)p, (unsigned long long)v,
	      errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "scalar SET", err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(EOVERFLOW), expect);
	if (err)
		return;
	z->n_changes++;
	switch (op) {
	case OP_SET_SIDES:
		m->sides = v;
		m->kind = DICE_KIND_FAIR;
		free(m->share);
		m->share = NULL;
		m->known = true;
		die_changed(m);
		break;
	case OP_SET_FORMAT:
		m->format = (__u32)v;
		buffer_dropped(m);
		break;
	case OP_SET_METHOD:
		m->method = (__u32)v;
		die_changed(m);
		break;
	default:
		m->source = (__u32)v;
		die_changed(m);
	}
}

static void do_scalar(struct fz *z, unsigned int cmd, enum op_nr op)
{
	enum ptr_kind k = pick_kind(z);

	scalar_call(z, cmd, op, pick_scalar(z, op), k);
}

/* ---- GET_INFO and GET_STATS ------------------------------------------------ */

static void do_get(struct fz *z, unsigned int cmd, enum op_nr op)
{
	struct model *m = &z->m[z->cur];
	size_t usize = _IOC_SIZE(cmd), ksize = op == OP_GET_INFO ?
		sizeof(struct dice_info) : sizeof(struct dice_stats);
	enum ptr_kind k = pick_kind(z);
	__u64 p = pick_ptr(z, usize, k), after;
	__u8 out[sizeof(struct dice_stats) > sizeof(struct dice_info) ?
		 sizeof(struct dice_stats) : sizeof(struct dice_info)];
	size_t i, check_end;
	int expect, err;

	/* Mark the buffer and 16 bytes past it, where valid. */
	after = prefix(&z->a, p, usize + 16, PROT_WRITE);
	if (after)
		memset((void *)(uintptr_t)p, 0xa5, after);
	expect = !usize ? EINVAL : all_ok(&z->a, p, usize, PROT_WRITE) ? 0 : EFAULT;
	logop(z, "ioctl %#x %s size %zu ptr %s %#llx: model %s", cmd,
	      op == OP_GET_INFO ? "GET_INFO" : "GET_STATS", usize, pk_name[k],
	      (unsigned long long)p, errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "GET_INFO/GET_STATS", err, BIT(EFAULT) | BIT(EINVAL),
		    expect);
	if (err)
		return;
	/* Excess zeroed, nothing written past the caller's size. */
	for (i = ksize; i < usize; i++) {
		FZ_CHECK(z, !((__u8 *)(uintptr_t)p)[i],
			 "byte %zu of %zu past the struct not zeroed", i, usize);
	}
	check_end = after < usize + 16 ? after : usize + 16;
	for (i = usize; i < check_end; i++) {
		FZ_CHECK(z, ((__u8 *)(uintptr_t)p)[i] == 0xa5,
			 "byte %zu past the caller's %zu written", i, usize);
	}
	memset(out, 0, sizeof(out));
	memcpy(out, (void *)(uintptr_t)p, usize < ksize ? usize : ksize);
	if (usize < ksize)
		return;		/* the fields we have are checked by GET_INFO */
	if (op == OP_GET_INFO) {
		struct dice_info *info = (void *)out;

		FZ_CHECK(z, info->sides == m->sides && info->format == m->format,
			 "GET_INFO copy: sides %llu format %#x",
			 (unsigned long long)info->sides, info->format);
	} else {
		struct dice_stats *st = (void *)out;

		FZ_CHECK(z, !st->flags && !st->reserved[0] && !st->reserved[1],
			 "GET_STATS: reserved fields not zero");
		FZ_CHECK(z, st->bits_used + st->bits_discarded <= st->bits_drawn,
			 "GET_STATS: used %llu + discarded %llu > drawn %llu",
			 (unsigned long long)st->bits_used,
			 (unsigned long long)st->bits_discarded,
			 (unsigned long long)st->bits_drawn);
		FZ_CHECK(z, st->coin_bits <= st->bits_used,
			 "GET_STATS: coin bits %llu > used %llu",
			 (unsigned long long)st->coin_bits,
			 (unsigned long long)st->bits_used);
		FZ_CHECK(z, st->rolls >= m->rolls, "GET_STATS: rolls went from %llu to %llu",
			 (unsigned long long)m->rolls,
			 (unsigned long long)st->rolls);
		m->rolls = st->rolls;
	}
}

/* ---- loaded dice: SET_WEIGHTS, SET_ALIAS, GET_MASSES ----------------------- */

/*
 * Fill @usize bytes of struct at @p: the struct @ks of @ksize bytes, then a
 * tail that is zero or, now and then, not.
 */
static void place_struct(struct fz *z, __u64 p, const void *ks, size_t ksize,
			 size_t usize)
{
	static __u8 blob[16384 + 64];

	memset(blob, 0, usize);
	memcpy(blob, ks, usize < ksize ? usize : ksize);
	if (usize > ksize && !below(z, 5))
		blob[ksize + below(z, usize - ksize)] = 1 + below(z, 255);
	poke(&z->a, p, blob, usize);
}

static void install(struct fz *z, struct model *m, __u64 sides, __u64 *share,
		    u128 total)
{
	z->n_tables++;
	/* The sequence that once hung: state of a wide die, few cells. */
	if (m->wide_rolled && total <= 1 << 16)
		z->n_wide_grouped++;
	m->wide_rolled = false;
	free(m->share);
	m->share = share;
	m->known = true;
	m->sides = sides;
	m->kind = DICE_KIND_LOADED;
	m->total = total;
	die_changed(m);
}

/* The weights a user puts in an array of @n. */
static void fill_weights(struct fz *z, __u32 *w, __u64 n)
{
	unsigned int mode = below(z, 6);
	__u64 i;

	for (i = 0; i < n; i++) {
		switch (mode) {
		case 0:
			w[i] = 1;
			break;
		case 1:
			w[i] = below(z, 10);
			break;
		case 2:
			w[i] = below(z, 20) ? 0 : 1 + below(z, 100);
			break;
		case 3:
			w[i] = (__u32)rnd(z);
			break;
		case 4:
			w[i] = 0;
			break;
		default:
			w[i] = 0xffffffffU;
			break;
		}
	}
}

static void do_set_weights(struct fz *z, unsigned int cmd)
{
	struct model *m = &z->m[z->cur];
	size_t usize = _IOC_SIZE(cmd);
	struct dice_weights arg = { 0 }, seen;
	enum ptr_kind k = pick_kind(z), kw = pick_kind(z);
	__u64 p = pick_ptr(z, usize, k), *share = NULL, sum = 0, i, wlen;
	static __u32 w[1 << 16];
	int expect, err;

	arg.sides = (__u32)pick_sides(z);
	arg.flags = below(z, 20) ? 0 : 1U << below(z, 32);
	wlen = (__u64)arg.sides * 4;
	arg.weights = pick_ptr(z, wlen, kw);
	if (arg.sides <= ARRAY_SIZE(w)) {
		fill_weights(z, w, arg.sides);
		poke(&z->a, arg.weights, w, wlen);
	}
	place_struct(z, p, &arg, sizeof(arg), usize);

	expect = -emu_struct_in(&z->a, p, usize, &seen, sizeof(seen));
	if (!expect && (seen.flags || !seen.sides))
		expect = EINVAL;
	else if (!expect && seen.sides > z->max_table_sides)
		expect = E2BIG;
	if (!expect) {
		wlen = (__u64)seen.sides * 4;
		if (!all_ok(&z->a, seen.weights, wlen, PROT_READ)) {
			expect = EFAULT;
		} else {
			const __u32 *uw = (const __u32 *)(uintptr_t)seen.weights;

			memcpy(w, uw, wlen);	/* fits: valid memory is small */
			for (i = 0; i < seen.sides; i++)
				sum += w[i];
			if (!sum)
				expect = EINVAL;
			else
				expect = -(method_check(m->method, DICE_KIND_LOADED) ?:
					   fmt_check(m->format, seen.sides));
		}
	}
	logop(z, "ioctl %#x SET_WEIGHTS size %zu ptr %s %#llx {weights %s %#llx, sides %u, flags %#x}: model %s",
	      cmd, usize, pk_name[k], (unsigned long long)p, pk_name[kw],
	      (unsigned long long)arg.weights, arg.sides, arg.flags,
	      errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "SET_WEIGHTS", err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(E2BIG) | BIT(ENOMEM) |
		    BIT(EOVERFLOW), err == ENOMEM ? -1 : expect);
	if (err)
		return;
	share = malloc(seen.sides * sizeof(*share));
	FZ_CHECK(z, share, "out of memory");
	for (i = 0; i < seen.sides; i++)
		share[i] = (__u64)seen.sides * w[i];
	install(z, m, seen.sides, share, (u128)seen.sides * sum);
}

static void do_set_alias(struct fz *z, unsigned int cmd)
{
	struct model *m = &z->m[z->cur];
	size_t usize = _IOC_SIZE(cmd);
	struct dice_alias arg = { 0 }, seen;
	enum ptr_kind k = pick_kind(z), kt = pick_kind(z), ka = pick_kind(z);
	__u64 p = pick_ptr(z, usize, k), tlen, alen, i;
	static __u64 thr[1 << 15];
	static __u32 al[1 << 15];
	unsigned int tmode = below(z, 6), amode = below(z, 5);
	u128 *acc = NULL;
	__u64 *share = NULL;
	int expect, err;

	arg.sides = (__u32)pick_sides(z);
	arg.flags = below(z, 20) ? 0 : 1U << below(z, 32);
	switch (below(z, 6)) {
	case 0:
		arg.mass = 1 + below(z, 100);
		break;
	case 1:
		arg.mass = ~0ULL;
		break;
	case 2:
		arg.mass = 1ULL << 63;
		break;
	case 3:
		arg.mass = below(z, 20) ? rnd(z) : 0;
		break;
	default:
		arg.mass = 1 + below(z, 1 << 20);
		break;
	}
	tlen = (__u64)arg.sides * 8;
	alen = (__u64)arg.sides * 4;
	arg.thresholds = pick_ptr(z, tlen, kt);
	arg.aliases = pick_ptr(z, alen, ka);
	if (arg.sides && arg.sides <= ARRAY_SIZE(thr)) {
		for (i = 0; i < arg.sides; i++) {
			switch (tmode) {
			case 0:
				thr[i] = arg.mass;
				break;
			case 1:
				thr[i] = 0;
				break;
			case 5:
				thr[i] = rnd(z);
				break;
			default:
				thr[i] = arg.mass ? rnd(z) % ((u128)arg.mass + 1) : 0;
			}
			switch (amode) {
			case 0:
				al[i] = 0;
				break;
			case 4:
				al[i] = (__u32)rnd(z);
				break;
			default:
				al[i] = below(z, arg.sides);
			}
		}
		if (!below(z, 10))
			thr[below(z, arg.sides)] = arg.mass + 1;
		if (!below(z, 10))
			al[below(z, arg.sides)] = arg.sides + below(z, 3);
		poke(&z->a, arg.thresholds, thr, tlen);
		poke(&z->a, arg.aliases, al, alen);
	}
	place_struct(z, p, &arg, sizeof(arg), usize);

	expect = -emu_struct_in(&z->a, p, usize, &seen, sizeof(seen));
	if (!expect && (seen.flags || !seen.sides || !seen.mass))
		expect = EINVAL;
	else if (!expect && seen.sides > z->max_table_sides)
		expect = E2BIG;
	if (!expect) {
		tlen = (__u64)seen.sides * 8;
		alen = (__u64)seen.sides * 4;
		if (!all_ok(&z->a, seen.thresholds, tlen, PROT_READ) ||
		    !all_ok(&z->a, seen.aliases, alen, PROT_READ))
			expect = EFAULT;
	}
	if (!expect) {
		const __u64 *ut = (const __u64 *)(uintptr_t)seen.thresholds;
		const __u32 *ua = (const __u32 *)(uintptr_t)seen.aliases;
		bool over = false;

		memcpy(thr, ut, tlen);
		memcpy(al, ua, alen);
		for (i = 0; i < seen.sides; i++)
			if (thr[i] > seen.mass || al[i] >= seen.sides)
				expect = EINVAL;
		if (!expect) {
			acc = calloc(seen.sides, sizeof(*acc));
			FZ_CHECK(z, acc, "out of memory");
			for (i = 0; i < seen.sides; i++) {
				acc[i] += thr[i];
				if (thr[i] < seen.mass)
					acc[al[i]] += seen.mass - thr[i];
			}
			for (i = 0; i < seen.sides; i++)
				over |= acc[i] >> 64 != 0;
			expect = over ? EOVERFLOW :
				 -(method_check(m->method, DICE_KIND_LOADED) ?:
				   fmt_check(m->format, seen.sides));
		}
	}
	logop(z, "ioctl %#x SET_ALIAS size %zu ptr %s %#llx {thr %s %#llx, alias %s %#llx, mass %#llx, sides %u, flags %#x} modes %u/%u: model %s",
	      cmd, usize, pk_name[k], (unsigned long long)p, pk_name[kt],
	      (unsigned long long)arg.thresholds, pk_name[ka],
	      (unsigned long long)arg.aliases, (unsigned long long)arg.mass,
	      arg.sides, arg.flags, tmode, amode, errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "SET_ALIAS", err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(E2BIG) | BIT(ENOMEM) |
		    BIT(EOVERFLOW), err == ENOMEM ? -1 : expect);
	if (!err) {
		share = malloc(seen.sides * sizeof(*share));
		FZ_CHECK(z, share, "out of memory");
		for (i = 0; i < seen.sides; i++)
			share[i] = (__u64)acc[i];
		install(z, m, seen.sides, share, (u128)seen.sides * seen.mass);
	}
	free(acc);
}

static void do_get_masses(struct fz *z, unsigned int cmd)
{
	struct model *m = &z->m[z->cur];
	size_t usize = _IOC_SIZE(cmd);
	struct dice_masses arg = { 0 }, seen, out;
	enum ptr_kind k = pick_kind(z), km = pick_kind(z);
	__u64 p = pick_ptr(z, usize, k), g = 0, total = 0, i, mlen;
	bool loaded = m->kind == DICE_KIND_LOADED;
	int expect, err;

	switch (below(z, 6)) {
	case 0:
		arg.capacity = 0;
		break;
	case 1:
		arg.capacity = m->sides - 1;
		break;
	case 2:
		arg.capacity = m->sides;
		break;
	case 3:
		arg.capacity = m->sides + below(z, 10);
		break;
	case 4:
		arg.capacity = ~0ULL;
		break;
	default:
		arg.capacity = rnd(z);
		break;
	}
	arg.sides = below(z, 4) ? 0 : rnd(z);		/* out: ignored */
	arg.total = below(z, 4) ? 0 : rnd(z);
	arg.flags = below(z, 20) ? 0 : 1U << below(z, 32);
	arg.padding = below(z, 20) ? 0 : 1;
	mlen = m->sides < (1 << 20) ? m->sides * 8 : 8 << 20;
	arg.masses = pick_ptr(z, mlen, km);
	place_struct(z, p, &arg, sizeof(arg), usize);

	expect = !usize ? EINVAL :
		 -emu_struct_in(&z->a, p, usize, &seen, sizeof(seen));
	if (!expect && (seen.flags || seen.padding))
		expect = EINVAL;
	if (!expect && loaded && !m->known)
		expect = -1;
	if (!expect && loaded) {
		u128 t = m->total;

		for (i = 0; i < m->sides; i++)
			g = gcd(g, m->share[i]);
		t /= g;
		if (t >> 64)
			expect = EOVERFLOW;
		total = (__u64)t;
	} else if (!expect) {
		total = m->sides;
	}
	if (!expect && m->sides > seen.capacity) {
		expect = all_ok(&z->a, p, usize, PROT_WRITE) ? ENOSPC : EFAULT;
	} else if (!expect) {
		mlen = m->sides * 8;
		if (m->sides > (1ULL << 61) ||
		    !all_ok(&z->a, seen.masses, mlen, PROT_WRITE))
			expect = EFAULT;
		else if (!all_ok(&z->a, p, usize, PROT_WRITE))
			expect = EFAULT;
	}
	logop(z, "ioctl %#x GET_MASSES size %zu ptr %s %#llx {masses %s %#llx, capacity %#llx, flags %#x, padding %u} of a d%llu: model %s",
	      cmd, usize, pk_name[k], (unsigned long long)p, pk_name[km],
	      (unsigned long long)arg.masses, (unsigned long long)arg.capacity,
	      arg.flags, arg.padding, (unsigned long long)m->sides,
	      errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "GET_MASSES", err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(E2BIG) | BIT(EOVERFLOW) |
		    BIT(ENOSPC), expect);
	if ((err && err != ENOSPC) || usize < sizeof(out) || expect < 0)
		return;
	memcpy(&out, (void *)(uintptr_t)p, sizeof(out));
	FZ_CHECK(z, out.sides == m->sides, "GET_MASSES: sides %llu, model %llu",
		 (unsigned long long)out.sides, (unsigned long long)m->sides);
	FZ_CHECK(z, out.total == total, "GET_MASSES: total %llu, model %llu",
		 (unsigned long long)out.total, (unsigned long long)total);
	FZ_CHECK(z, out.masses == seen.masses && out.capacity == seen.capacity &&
		 !out.flags && !out.padding, "GET_MASSES: input fields changed");
	if (err)
		return;
	z->n_masses++;
	for (i = 0; i < m->sides; i++) {
		__u64 want = loaded ? m->share[i] / g : 1;
		__u64 at = seen.masses + 8 * i;
		__u64 got;

		/* The struct, copied out last, may overlap the array. */
		if (at + 8 > p && at < p + usize)
			continue;
		got = *(__u64 *)(uintptr_t)at;

		FZ_CHECK(z, got == want, "GET_MASSES: mass %llu is %llu, model %llu",
			 (unsigned long long)i, (unsigned long long)got,
			 (unsigned long long)want);
	}
}

static void do_ioctl(struct fz *z)
{
	/* Magics the VFS answers itself (FIONBIO, FIFREEZE, FS_IOC_*, ...). */
	static const __u8 vfs_magic[] = { 0x00, 'T', 'X', 'f', 0x94 };
	unsigned int r = below(z, 100), magic = DICE_IOC_MAGIC, nr, dir, size;
	static const unsigned int natural[10][2] = {
		{ 0, 0 },
		{ _IOC_WRITE, 8 }, { _IOC_WRITE, 4 },
		{ _IOC_READ, sizeof(struct dice_info) },
		{ _IOC_READ, sizeof(struct dice_stats) },
		{ _IOC_WRITE, sizeof(struct dice_weights) },
		{ _IOC_WRITE, sizeof(struct dice_alias) },
		{ _IOC_READ | _IOC_WRITE, sizeof(struct dice_masses) },
		{ _IOC_WRITE, 4 }, { _IOC_WRITE, 4 },
	};
	unsigned int cmd, i;
	enum op_nr op;
	int err;

	if (r < 85) {
		nr = 1 + below(z, 9);
	} else if (r < 93) {
		nr = below(z, 2) ? 0 : 10 + below(z, 246);
	} else {
		nr = below(z, 256);
		do {
			magic = below(z, 256);
			for (i = 0; i < sizeof(vfs_magic); i++)
				if (magic == vfs_magic[i])
					magic = DICE_IOC_MAGIC;
		} while (magic == DICE_IOC_MAGIC);
	}
	dir = below(z, 4) && nr >= 1 && nr <= 9 ? natural[nr][0] : below(z, 4);
	size = below(z, 5) < 3 && nr >= 1 && nr <= 9 ? natural[nr][1] :
		sizes[below(z, ARRAY_SIZE(sizes))];
	cmd = _IOC(dir, magic, nr, size);
	op = magic == DICE_IOC_MAGIC ? classify(cmd) : OP_NOTTY;
	z->n_ioctl++;
	switch (op) {
	case OP_SET_SIDES:
	case OP_SET_FORMAT:
	case OP_SET_METHOD:
	case OP_SET_SOURCE:
		do_scalar(z, cmd, op);
		break;
	case OP_GET_INFO:
	case OP_GET_STATS:
		do_get(z, cmd, op);
		break;
	case OP_SET_WEIGHTS:
		do_set_weights(z, cmd);
		break;
	case OP_SET_ALIAS:
		do_set_alias(z, cmd);
		break;
	case OP_GET_MASSES:
		do_get_masses(z, cmd);
		break;
	default: {
		enum ptr_kind k = pick_kind(z);
		__u64 p = pick_ptr(z, size, k);

		logop(z, "ioctl %#x (unknown) ptr %s %#llx", cmd, pk_name[k],
		      (unsigned long long)p);
		err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
		check_errno(z, "unknown ioctl", err, BIT(ENOTTY), ENOTTY);
	}
	}
}

/* ---- read and write ----------------------------------------------------------- */

static __u64 pick_len(struct fz *z)
{
	unsigned int r = below(z, 100);

	if (r < 5)
		return 0;
	if (r < 40)
		return 1 + below(z, 16);
	if (r < 75)
		return 17 + below(z, 600);
	if (r < 97)
		return 617 + below(z, 70000);
	return 1 + below(z, 16 << 20);
}

/* Text read back: lines of digits, faces of the die but for stale bytes. */
static void check_text(struct fz *z, const char *buf, size_t len)
{
	struct model *m = &z->m[z->cur];
	size_t i = 0, start;
	bool skip = m->midline;

	while (i < len) {
		__u64 v = 0;
		bool over = false;

		start = i;
		for (; i < len && buf[i] != '\n'; i++) {
			FZ_CHECK(z, buf[i] >= '0' && buf[i] <= '9',
				 "text read: byte %zu is %#x", i, buf[i] & 0xff);
			over |= v > (~0ULL - 9) / 10;
			v = v * 10 + (buf[i] - '0');
		}
		if (i == len)
			break;		/* a partial line */
		FZ_CHECK(z, i > start || skip, "text read: empty line at %zu", i);
		FZ_CHECK(z, !over, "text read: number too long at %zu", start);
		if (!skip && start >= m->stale_max)
			check_face(z, v, "text read");
		skip = false;
		i++;
	}
}

/* A read() of @len bytes into a buffer of kind @k, checked and modelled. */
static void read_call(struct fz *z, __u64 len, enum ptr_kind k)
{
	struct model *m = &z->m[z->cur];
	unsigned int width = fmt_width(m->format);
	__u64 p = pick_ptr(z, len, k), want, pf;
	u128 allowed = BIT(EFAULT);
	int expect = -1, err;
	ssize_t ret;

	want = width ? len - len % width : len;
	pf = prefix(&z->a, p, want, PROT_WRITE);
	if (!ua_ok(p, len))
		expect = k == PK_TOP ? -1 : EFAULT;
	else if (!len)
		expect = 0;
	else if (width && len < width)
		expect = EINVAL;
	else if (m->source == DICE_SRC_WRITTEN)
		allowed |= BIT(EAGAIN);
	else if (pf == want || pf < (width ? width : 1))
		/* Fewer writable bytes than one roll: no whole roll fits. */
		expect = pf == want ? 0 : EFAULT;
	/*
	 * Else the copy meets the fault part way: copy_to_user() may stop
	 * short of it (6.12 copies nothing of a chunk that faults), so the
	 * bytes before it or EFAULT.
	 */
	if (width)
		allowed |= BIT(EINVAL);
	if (k == PK_TOP)
		allowed |= BIT(EINVAL) | BIT(EAGAIN);
	logop(z, "read %llu ptr %s %#llx, format %#x source %u: model %s",
	      (unsigned long long)len, pk_name[k], (unsigned long long)p,
	      m->format, m->source, expect < 0 ? "?" : errname(expect));
	z->n_read++;
	ret = read(z->fd[z->cur], (void *)(uintptr_t)p, len);
	err = ret < 0 ? errno : 0;
	check_errno(z, "read", err, allowed, expect);
	if (err) {
		if (!width && err == EFAULT)
			m->left_max = OUT_BYTES;	/* rolls made, not copied */
		return;
	}
	z->n_bytes += ret;
	if (ret && m->kind == DICE_KIND_FAIR && m->sides > POW2(32))
		m->wide_rolled = true;
	FZ_CHECK(z, (__u64)ret <= want && (__u64)ret <= pf + !len,
		 "read %llu (%llu writable): returned %zd",
		 (unsigned long long)want, (unsigned long long)pf, ret);
	if (!len)
		return;
	if (m->source == DICE_SRC_KERNEL) {
		FZ_CHECK(z, ret > 0, "read of kernel bits returned 0");
		/* Text serves the whole lines that fit (at most 20 short). */
		FZ_CHECK(z, pf < want || (__u64)ret == want ||
			 (!width && want - ret < 21 &&
			  ((char *)(uintptr_t)p)[ret - 1] == '\n'),
			 "read %llu into valid memory returned %zd",
			 (unsigned long long)want, ret);
	}
	if (width) {
		size_t i;

		for (i = 0; i + width <= (size_t)ret; i += width) {
			__u64 face = 0;
			unsigned int j;

			for (j = 0; j < width; j++)
				face |= (__u64)((__u8 *)(uintptr_t)p)[i + j] << (8 * j);
			check_face(z, face, "binary read");
		}
		FZ_CHECK(z, !(ret % width) || (__u64)ret == pf,
			 "read returned %zd, not whole rolls of %u", ret, width);
		return;
	}
	check_text(z, (const char *)(uintptr_t)p, ret);
	if ((__u64)ret < want) {
		m->left_max = OUT_BYTES;
		m->stale_max = m->stale_max > (__u64)ret ? m->stale_max - ret : 0;
	} else if ((__u64)ret >= m->left_max) {
		m->left_max = ((char *)(uintptr_t)p)[ret - 1] == '\n' ? 0 : 21;
		m->stale_max = 0;
	} else {
		m->left_max -= ret;
		m->stale_max = m->stale_max > (__u64)ret ? m->stale_max - ret : 0;
	}
	m->midline = ((char *)(uintptr_t)p)[ret - 1] != '\n';
}

static void do_read(struct fz *z)
{
	__u64 len = pick_len(z);

	read_call(z, len, pick_kind(z));
}

/* A write() of @len bytes from a buffer of kind @k, checked. */
static void write_call(struct fz *z, __u64 len, enum ptr_kind k)
{
	struct model *m = &z->m[z->cur];
	__u64 p = pick_ptr(z, len, k), pf, i;
	u128 allowed = BIT(EFAULT) | BIT(EINVAL) | BIT(EAGAIN);
	int expect = -1, err;
	ssize_t ret;

	pf = prefix(&z->a, p, len, PROT_READ);
	if (k == PK_VALID || k == PK_MISALIGNED || k == PK_STRADDLE) {
		__u8 *b = (__u8 *)(uintptr_t)p;

		for (i = 0; i < pf && i < 4096; i++)
			b[i] = (__u8)rnd(z);
	}
	if (!ua_ok(p, len))
		expect = k == PK_TOP ? -1 : EFAULT;
	else if (!len)
		expect = 0;
	else if (m->source != DICE_SRC_WRITTEN)
		expect = EINVAL;
	else
		allowed = BIT(EFAULT) | BIT(EAGAIN);
	logop(z, "write %llu ptr %s %#llx, source %u: model %s",
	      (unsigned long long)len, pk_name[k], (unsigned long long)p,
	      m->source, expect < 0 ? "?" : errname(expect));
	z->n_write++;
	ret = write(z->fd[z->cur], (void *)(uintptr_t)p, len);
	err = ret < 0 ? errno : 0;
	check_errno(z, "write", err, allowed, expect);
	if (!err) {
		FZ_CHECK(z, (__u64)ret <= len && (__u64)ret <= pf + !len,
			 "write %llu (%llu readable) returned %zd",
			 (unsigned long long)len, (unsigned long long)pf, ret);
		FZ_CHECK(z, ret > 0 || !len, "write returned 0");
	}
}

static void do_write(struct fz *z)
{
	__u64 len = pick_len(z);

	write_call(z, len, pick_kind(z));
}

/* readv()/writev() with up to four segments of any kind. */
static void do_vec(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	struct iovec iov[4];
	unsigned int n = 1 + below(z, 4), i;
	bool rd = below(z, 2);
	__u64 total = 0;
	u128 allowed = BIT(EFAULT) | BIT(EINVAL) | BIT(EAGAIN);
	char kinds[64] = "";
	ssize_t ret;
	int err;

	for (i = 0; i < n; i++) {
		enum ptr_kind k = pick_kind(z);

		iov[i].iov_len = below(z, 3) ? below(z, 600) : pick_len(z);
		iov[i].iov_base = (void *)(uintptr_t)pick_ptr(z, iov[i].iov_len, k);
		total += iov[i].iov_len;
		strncat(kinds, pk_name[k], sizeof(kinds) - strlen(kinds) - 2);
		strcat(kinds, " ");
	}
	logop(z, "%s %u segments (%s) of %llu bytes, format %#x source %u",
	      rd ? "readv" : "writev", n, kinds, (unsigned long long)total,
	      m->format, m->source);
	z->n_vec++;
	ret = rd ? readv(z->fd[z->cur], iov, n) : writev(z->fd[z->cur], iov, n);
	err = ret < 0 ? errno : 0;
	check_errno(z, rd ? "readv" : "writev", err, allowed, -1);
	if (!err) {
		FZ_CHECK(z, (__u64)ret <= total, "%zd of %llu bytes", ret,
			 (unsigned long long)total);
	}
	if (!rd && !err) {
		FZ_CHECK(z, m->source == DICE_SRC_WRITTEN || !total,
			 "writev of %llu bytes to kernel bits returned %zd",
			 (unsigned long long)total, ret);
	}
	if (rd && !fmt_width(m->format)) {
		/* Whatever was or was not copied, the text state is unknown. */
		m->left_max = OUT_BYTES;
		m->stale_max = OUT_BYTES;
		m->midline = true;
	}
}

/* Calls a character device without seek or mmap must refuse. */
static void do_other(struct fz *z)
{
	int fd = z->fd[z->cur], err;
	off_t off;
	char c;
	void *p;

	z->n_other++;
	switch (below(z, 3)) {
	case 0:
		/* As /dev/urandom (noop_llseek): a seek moves nothing. */
		logop(z, "lseek");
		off = lseek(fd, below(z, 100), SEEK_SET);
		err = off < 0 ? errno : 0;
		check_errno(z, "lseek", err, 0, 0);
		FZ_CHECK(z, off <= 0, "lseek: moved to %lld", (long long)off);
		break;
	case 1:
		/* An empty pread() rolls nothing, whatever the offset. */
		logop(z, "pread");
		err = pread(fd, &c, 0, below(z, 100)) < 0 ? errno : 0;
		check_errno(z, "pread", err, 0, 0);
		break;
	default:
		logop(z, "mmap");
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		err = p == MAP_FAILED ? errno : 0;
		if (!err)
			munmap(p, 4096);
		check_errno(z, "mmap", err, BIT(ENODEV), ENODEV);
	}
}

static void do_reopen(struct fz *z)
{
	struct dice_stats st;
	int *fd = &z->fd[z->cur];

	logop(z, "close and reopen");
	z->n_reopen++;
	close(*fd);
	*fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	FZ_CHECK(z, *fd >= 0, "reopen: %s", strerror(errno));
	model_reset(&z->m[z->cur]);
	memset(&st, 0xa5, sizeof(st));
	FZ_CHECK(z, !ioctl(*fd, DICE_IOC_GET_STATS, &st), "GET_STATS: %s",
		 strerror(errno));
	FZ_CHECK(z, !st.rolls && !st.bits_used && !st.bits_drawn &&
		 !st.bits_discarded && !st.coin_bits,
		 "a fresh file has spent bits");
}

/* ---- reconfiguration and reads on one file ------------------------------------ */

/*
 * The bugs that live in the state a die carries across a change (a wide
 * fair die, then a grouped loaded one, read on the same file) need changes
 * that succeed and reads that roll: 40% of the operations are well-formed
 * calls, valid buffers and natural sizes, through the same checks and
 * model as the others.  Sides include the wide ones, weights the grouped
 * dice with few cells, ungrouped dice and large tables; reads come in
 * every size from 1 byte to 8 KiB.
 */
static const __u64 wide_sides[] = {
	0xffffffffULL, 0x100000000ULL, 0x100000001ULL, 3ULL << 30,
	POW2(40) + 1, POW2(40) - 1, POW2(53) + 1, POW2(62) + 1, 3ULL << 62,
	POW2(63), POW2(63) + 1, 1000000000000000009ULL, ~0ULL - POW2(54),
	~0ULL,
};

static const struct {
	__u32 n;
	__u32 w[6];
} grouped[] = {
	{ 2, { 1, 1 } }, { 5, { 2, 2, 6, 1, 1 } }, { 3, { 1, 2, 3 } },
	{ 2, { 3, 1 } }, { 6, { 1, 1, 1, 1, 1, 1 } }, { 4, { 5, 0, 0, 7 } },
	{ 3, { 1, 0, 1 } }, { 1, { 9 } },
};

static void valid_format(struct fz *z, __u32 fmt)
{
	scalar_call(z, DICE_IOC_SET_FORMAT, OP_SET_FORMAT, fmt, PK_VALID);
}

static void valid_sides(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	unsigned int r = below(z, 100);
	__u64 v;

	if (r < 55)
		v = wide_sides[below(z, ARRAY_SIZE(wide_sides))];
	else if (r < 90)
		v = 1 + below(z, 20);
	else
		v = 1 + below(z, 1 << 20);
	/* Mostly make room for the faces first, so that wide dice roll. */
	if (fmt_check(m->format, v) && below(z, 4))
		valid_format(z, below(z, 2) ? DICE_FMT_U64 : DICE_FMT_TEXT);
	scalar_call(z, DICE_IOC_SET_SIDES, OP_SET_SIDES, v, PK_VALID);
}

/* SET_WEIGHTS of @n weights in @w, well formed. */
static void weights_call(struct fz *z, const __u32 *w, __u32 n)
{
	struct model *m = &z->m[z->cur];
	struct dice_weights arg = { .weights = (uintptr_t)w, .sides = n };
	__u64 *share, sum = 0, i;
	int expect, err;

	for (i = 0; i < n; i++)
		sum += w[i];
	if (n > z->max_table_sides)
		expect = E2BIG;
	else if (!sum)
		expect = EINVAL;
	else
		expect = -(method_check(m->method, DICE_KIND_LOADED) ?:
			   fmt_check(m->format, n));
	logop(z, "SET_WEIGHTS %u sides (%u, %u, ...), sum %llu: model %s", n,
	      w[0], n > 1 ? w[1] : 0, (unsigned long long)sum,
	      errname(expect));
	err = ioctl_errno(z->fd[z->cur], DICE_IOC_SET_WEIGHTS, &arg);
	check_errno(z, "SET_WEIGHTS", err,
		    BIT(EINVAL) | BIT(E2BIG) | BIT(ENOMEM) | BIT(EOVERFLOW),
		    err == ENOMEM ? -1 : expect);
	if (err)
		return;
	share = malloc(n * sizeof(*share));
	FZ_CHECK(z, share, "out of memory");
	for (i = 0; i < n; i++)
		share[i] = (__u64)n * w[i];
	install(z, m, n, share, (u128)n * sum);
}

static void valid_weights(struct fz *z)
{
	static __u32 w[4096];
	unsigned int r = below(z, 100), i, n;

	if (r < 50) {
		i = below(z, ARRAY_SIZE(grouped));
		n = grouped[i].n;
		memcpy(w, grouped[i].w, n * sizeof(*w));
	} else if (r < 75) {
		/* Ungrouped: n W of 2^32 and more, by column and height
		 * from 2^40 cells on.
		 */
		n = 2 + below(z, 40);
		for (i = 0; i < n; i++)
			w[i] = (__u32)rnd(z) | 1;
	} else {
		n = 1 + below(z, ARRAY_SIZE(w));
		for (i = 0; i < n; i++)
			w[i] = below(z, 4) ? below(z, 1000) : (__u32)rnd(z);
		w[below(z, n)] |= 1;
	}
	if (fmt_check(z->m[z->cur].format, n) && below(z, 4))
		valid_format(z, n <= 255 ? DICE_FMT_U8 : DICE_FMT_U16);
	weights_call(z, w, n);
}

static void valid_alias(struct fz *z)
{
	static const __u64 masses[] = {
		1, 2, 3, 10, 1000, 0xffffffffULL, POW2(32), POW2(40) + 1,
		POW2(63), ~0ULL,
	};
	struct model *m = &z->m[z->cur];
	static __u64 thr[2048];
	static __u32 al[2048];
	struct dice_alias arg = { 0 };
	__u64 mass = masses[below(z, ARRAY_SIZE(masses))], *share, i;
	__u32 n = 1 + (below(z, 2) ? below(z, 8) : below(z, ARRAY_SIZE(thr)));
	unsigned int mode = below(z, 4);
	u128 *acc;
	bool over = false;
	int expect, err;

	acc = calloc(n, sizeof(*acc));
	FZ_CHECK(z, acc, "out of memory");
	for (i = 0; i < n; i++) {
		thr[i] = mode == 0 ? mass : mode == 1 ? mass / 2 :
			 rnd(z) % ((u128)mass + 1);
		al[i] = below(z, n);
		acc[i] += thr[i];
		if (thr[i] < mass)
			acc[al[i]] += mass - thr[i];
	}
	for (i = 0; i < n; i++)
		over |= acc[i] >> 64 != 0;
	arg.thresholds = (uintptr_t)thr;
	arg.aliases = (uintptr_t)al;
	arg.mass = mass;
	arg.sides = n;
	expect = over ? EOVERFLOW :
		 -(method_check(m->method, DICE_KIND_LOADED) ?:
		   fmt_check(m->format, n));
	logop(z, "SET_ALIAS %u sides, mass %#llx, mode %u: model %s", n,
	      (unsigned long long)mass, mode, errname(expect));
	err = ioctl_errno(z->fd[z->cur], DICE_IOC_SET_ALIAS, &arg);
	check_errno(z, "SET_ALIAS", err,
		    BIT(EINVAL) | BIT(ENOMEM) | BIT(EOVERFLOW),
		    err == ENOMEM ? -1 : expect);
	if (!err) {
		share = malloc(n * sizeof(*share));
		FZ_CHECK(z, share, "out of memory");
		for (i = 0; i < n; i++)
			share[i] = (__u64)acc[i];
		install(z, m, n, share, (u128)n * mass);
	}
	free(acc);
}

static __u64 valid_len(struct fz *z)
{
	static const __u64 edges[] = { 1, 2, 8, 32, 63, 64, 65, 1023, 1024,
				       1025, 4096, 8192 };
	unsigned int r = below(z, 100);

	if (r < 35)
		return 1 + below(z, 16);
	if (r < 65)
		return 17 + below(z, 1024);
	if (r < 90)
		return 1 + below(z, 8192);
	return edges[below(z, ARRAY_SIZE(edges))];
}

static void do_valid(struct fz *z)
{
	unsigned int r = below(z, 100);

	z->n_valid++;
	if (r < 14) {
		valid_sides(z);
	} else if (r < 26) {
		valid_weights(z);
	} else if (r < 32) {
		valid_alias(z);
	} else if (r < 38) {
		scalar_call(z, DICE_IOC_SET_METHOD, OP_SET_METHOD, below(z, 5),
			    PK_VALID);
	} else if (r < 48) {
		valid_format(z, below(z, 5) |
			     (below(z, 2) ? DICE_FMT_ZERO_BASED : 0));
	} else if (r < 52) {
		scalar_call(z, DICE_IOC_SET_SOURCE, OP_SET_SOURCE,
			    below(z, 4) ? DICE_SRC_KERNEL : DICE_SRC_WRITTEN,
			    PK_VALID);
	} else if (r < 60) {
		/* Bits for a file that takes them, else EINVAL. */
		write_call(z, 1 + below(z, 2048), PK_VALID);
	} else {
		read_call(z, valid_len(z), PK_VALID);
	}
}

/* ---- the test --------------------------------------------------------------- */

static __u64 env_u64(const char *name, __u64 dflt)
{
	const char *s = getenv(name);
	char *end;
	__u64 v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	return errno || *end ? dflt : v;
}

FIXTURE(fuzz) {
	struct fz *z;
};

FIXTURE_SETUP(fuzz)
{
	struct fz *z;
	struct arena *a;
	size_t i;
	int fd;

	fd = open_die(_metadata, O_RDWR);
	if (fd < 0)
		return;
	close(fd);

	/* Reads of kernel bits wait for the CRNG early in boot: let the
	 * storm's seconds go to the storm.
	 */
	ASSERT_EQ(1, getrandom(&i, 1, 0));
	z = calloc(1, sizeof(*z));
	ASSERT_NE(NULL, z);
	self->z = z;
	z->md = _metadata;
	for (i = 0; i < NFILES; i++)
		z->fd[i] = -1;
	a = &z->a;
	a->page = sysconf(_SC_PAGESIZE);
	a->len = (VALID_PAGES + 4) * a->page;
	a->base = mmap(NULL, a->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	ASSERT_NE(MAP_FAILED, a->base);
	a->valid = a->base;
	a->valid_end = a->valid + VALID_PAGES * a->page;
	a->ro = a->valid_end + a->page;
	a->ro_end = a->ro + a->page;
	a->hole = a->ro_end + a->page;
	ASSERT_EQ(0, mprotect(a->valid, VALID_PAGES * a->page,
			      PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mprotect(a->ro, a->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, munmap(a->hole, a->page));
	ASSERT_EQ(-1, msync(a->hole, a->page, MS_ASYNC));
	ASSERT_EQ(ENOMEM, errno);
	a->len -= a->page;	/* the hole is not ours to unmap again */

	z->seed = env_u64("DICE_FUZZ_SEED", DEFAULT_SEED);
	z->rng = z->seed;
	for (i = 0; i < (size_t)(a->valid_end - a->valid); i++)
		a->valid[i] = (__u8)rnd(z);
	for (i = 0; i < a->page; i++)
		a->ro[i] = (__u8)rnd(z);
	ASSERT_EQ(0, mprotect(a->ro, a->page, PROT_READ));
	z->max_table_sides = DICE_TABLE_SIDES_MAX;
	for (i = 0; i < NFILES; i++) {
		z->fd[i] = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, z->fd[i]) TH_LOG("open: %s", strerror(errno));
		model_reset(&z->m[i]);
	}
}

FIXTURE_TEARDOWN(fuzz)
{
	struct fz *z = self->z;
	int i;

	if (!z)
		return;
	for (i = 0; i < NFILES; i++) {
		if (z->fd[i] >= 0)
			close(z->fd[i]);
		free(z->m[i].share);
	}
	if (z->a.base)
		munmap(z->a.base, z->a.len);
	free(z);
}

/* A d6 in text from kernel bits: the file still works. */
static void still_rolls(struct __test_metadata *_metadata, int fd)
{
	__u64 six = 6;
	__u32 text = DICE_FMT_TEXT, zero = 0;
	char line[2];

	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_FORMAT, &text))
		TH_LOG("SET_FORMAT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_SOURCE, &zero))
		TH_LOG("SET_SOURCE: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_METHOD, &zero))
		TH_LOG("SET_METHOD: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_SIDES, &six))
		TH_LOG("SET_SIDES: %s", strerror(errno));
	ASSERT_EQ(2, read(fd, line, 2)) TH_LOG("read: %s", strerror(errno));
	EXPECT_TRUE(line[0] >= '1' && line[0] <= '6' && line[1] == '\n')
		TH_LOG("line %#x %#x", line[0], line[1]);
}

TEST_F_TIMEOUT(fuzz, storm, MAX_SECONDS + 100)
{
	struct fz *z = self->z;
	__u64 seconds, iters;
	double start, end;
	unsigned int r, i;

	if (!z)
		SKIP(return, "%s is absent", DICE_PATH);
	seconds = env_u64("DICE_FUZZ_SECONDS", DEFAULT_SECONDS);
	if (seconds > MAX_SECONDS)
		seconds = MAX_SECONDS;
	iters = env_u64("DICE_FUZZ_ITERS", 0);
	printf("# fuzz: seed %#llx (DICE_FUZZ_SEED), %llu s (DICE_FUZZ_SECONDS)%s\n",
	       (unsigned long long)z->seed, (unsigned long long)seconds,
	       iters ? ", bounded by DICE_FUZZ_ITERS" : "");
	fflush(stdout);
	start = now();
	end = start + seconds;
	for (z->iter = 0; !iters || z->iter < iters; z->iter++) {
		if (!(z->iter % 64) && now() >= end)
			break;
		z->cur = below(z, NFILES);
		if (below(z, 1000) < 400) {
			do_valid(z);
			check_info(z);
			continue;
		}
		r = below(z, 1000);
		if (r < 600)
			do_ioctl(z);
		else if (r < 820)
			do_read(z);
		else if (r < 920)
			do_write(z);
		else if (r < 970)
			do_vec(z);
		else if (r < 995)
			do_other(z);
		else
			do_reopen(z);
		check_info(z);
	}
	printf("# fuzz: %lu operations in %.1f s: %lu ioctls, %lu reads (%lu bytes), %lu writes, %lu readv/writev, %lu others, %lu reopens\n",
	       z->iter, now() - start, z->n_ioctl, z->n_read, z->n_bytes,
	       z->n_write, z->n_vec, z->n_other, z->n_reopen);
	printf("# fuzz: %lu of them well-formed changes of the die, reads and writes; %lu sides, format, method or source changed\n",
	       z->n_valid, z->n_changes);
	printf("# fuzz: %lu times a grouped loaded die followed rolls of a fair die of more than 2^32 sides\n",
	       z->n_wide_grouped);
	printf("# fuzz: %lu loaded dice installed, %lu GET_MASSES and %lu faces checked against the model\n",
	       z->n_tables, z->n_masses, z->n_faces);
	printf("# fuzz: %lu results predicted exactly; errnos:", z->n_exact);
	for (i = 0; i < ARRAY_SIZE(z->n_errno); i++)
		if (z->n_errno[i])
			printf(" %s %lu", errname(i), z->n_errno[i]);
	printf("\n");
	fflush(stdout);		/* the harness ends the case with _exit() */
	/* Nothing mapped itself into the hole behind our back. */
	EXPECT_EQ(-1, msync(z->a.hole, z->a.page, MS_ASYNC));
	for (i = 0; i < NFILES; i++)
		still_rolls(_metadata, z->fd[i]);
}

/* ---- the reconfiguration that once hung the kernel ---------------------------- */

/* Every face of a read in a U8 format: 1-based and with mass in @w. */
static bool u8_faces_ok(const unsigned char *b, size_t len, const __u32 *w,
			__u32 n)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] < 1 || b[i] > n || !w[b[i] - 1])
			return false;
	return true;
}

/* What the reader of wide_then_grouped_1_1 saw, sent to the case. */
struct hostile_seq {
	int step;		/* steps done, all 7 or the one that failed */
	int err;		/* errno of the step that failed */
	double last;		/* seconds the last read took */
	__u64 wide[8];
	unsigned char b[33];
	__u64 taint0, taint1;
};

static const char *const hostile_step[] = {
	"SET_FORMAT U64", "SET_SIDES 2^40 + 1", "read 64 bytes",
	"SET_WEIGHTS {1, 1}", "SET_FORMAT U8", "read 1 byte",
	"read 32 bytes",
};

static bool hostile_do(int fd, struct hostile_seq *r)
{
	static const __u32 w[2] = { 1, 1 };
	struct dice_weights arg = { .weights = (uintptr_t)w, .sides = 2 };
	__u64 wide = POW2(40) + 1;
	__u32 u64 = DICE_FMT_U64, u8 = DICE_FMT_U8;
	bool ok;
	double t;

	switch (r->step) {
	case 0:
		return !ioctl(fd, DICE_IOC_SET_FORMAT, &u64);
	case 1:
		return !ioctl(fd, DICE_IOC_SET_SIDES, &wide);
	case 2:
		return read(fd, r->wide, 64) == 64;
	case 3:
		return !ioctl(fd, DICE_IOC_SET_WEIGHTS, &arg);
	case 4:
		return !ioctl(fd, DICE_IOC_SET_FORMAT, &u8);
	case 5:
		return read(fd, r->b, 1) == 1;
	default:
		alarm(5);
		t = now();
		ok = read(fd, r->b + 1, 32) == 32;
		r->last = now() - t;
		alarm(0);
		return ok;
	}
}

static void hostile_seq_run(void *res)
{
	struct hostile_seq *r = res;
	int fd;

	read_u64_file(TAINTED_PATH, &r->taint0);
	fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		r->err = errno;
	for (; fd >= 0 && r->step < (int)ARRAY_SIZE(hostile_step); r->step++) {
		if (!hostile_do(fd, r)) {
			r->err = errno;
			break;
		}
	}
	read_u64_file(TAINTED_PATH, &r->taint1);
}

/*
 * Run @fn in a reader process and wait @secs for the @size bytes of @res
 * it fills.  A read stuck in the kernel takes no signal and cannot be
 * killed: the case fails without waiting for it, and the reader's stdio
 * is /dev/null so that it holds none of the harness's pipes.  On a
 * kernel that is not preemptible the VM's softlockup_panic=1 then ends
 * the run; on one that is, the reader keeps a CPU.
 */
static void in_reader(struct __test_metadata *_metadata,
		      void (*fn)(void *res), void *res, size_t size, int secs)
{
	struct pollfd pfd;
	int fd, pipefd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		fd = open("/dev/null", O_RDWR);
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		memset(res, 0, size);
		fn(res);
		_exit(write(pipefd[1], res, size) == (ssize_t)size ? 0 : 2);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, secs * 1000) != 1) {
		kill(pid, SIGKILL);
		TH_LOG("no answer in %d s: the reader (pid %d) is stuck in the kernel, unkillable; see the soft lockup report",
		       secs, pid);
		ASSERT_TRUE(0);
	}
	ASSERT_EQ(size, read(pipefd[0], res, size))
		TH_LOG("the reader died without an answer (killed by alarm()?)");
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
}

/*
 * The sequence a hostile test found (fixed by the core's commit 6c2e8c0):
 * eight rolls of a wide fair die, one roll of a grouped {1, 1} die, then
 * a read of 32 bytes that never returned, looping in
 * dice_roll_loaded_many() with the file's mutex held.
 *
 * A reader process runs it under alarm(), which fails a slow read; one
 * stuck in the kernel takes no signal and cannot be killed, so the case
 * waits for its answer 5 s at most and fails without it (and the VM's
 * softlockup_panic=1 ends a non-preemptible kernel soon after).  The last
 * read must take well under a second, every face must be in range, and
 * the kernel must not have warned (a broken loop bound in the core).
 */
TEST(wide_then_grouped_1_1)
{
	static const __u32 w[2] = { 1, 1 };
	struct hostile_seq r;
	int fd, i;

	fd = open_die(_metadata, O_RDWR);
	REQUIRE_DIE(fd);
	close(fd);
	in_reader(_metadata, hostile_seq_run, &r, sizeof(r), 5);
	ASSERT_EQ(ARRAY_SIZE(hostile_step), r.step)
		TH_LOG("%s failed: %s", hostile_step[r.step], strerror(r.err));
	EXPECT_GT(0.5, r.last) TH_LOG("the read of 32 faces took %.3f s",
				      r.last);
	for (i = 0; i < 8; i++) {
		EXPECT_TRUE(r.wide[i] >= 1 && r.wide[i] <= POW2(40) + 1)
			TH_LOG("face %llu of a d2^40+1",
			       (unsigned long long)r.wide[i]);
	}
	EXPECT_TRUE(u8_faces_ok(r.b, 33, w, 2));
	EXPECT_FALSE(~r.taint0 & r.taint1 & TAINT_WARN)
		TH_LOG("the kernel warned (tainted %#llx)",
		       (unsigned long long)r.taint1);
}

/* What the reader of wide_then_grouped_every_size saw. */
struct every_size {
	char failed[200];	/* the first thing that went wrong */
	double secs;
	double slowest;		/* seconds of the slowest read */
	__u64 taint0, taint1;
};

static const size_t every_size_len[] = { 1, 32, 1, 2, 63, 64, 65, 1023,
					 1024, 1025, 4096, 8192 };

/* One wide die, then one grouped die read in every size: false on error. */
static bool every_size_one(int fd, __u64 wide, unsigned int j,
			   struct every_size *r)
{
	static unsigned char b[8192];
	struct dice_weights arg = {
		.weights = (uintptr_t)grouped[j].w,
		.sides = grouped[j].n,
	};
	__u32 u64 = DICE_FMT_U64, u8 = DICE_FMT_U8;
	size_t want = 8 * (1 + j % 2);
	unsigned int k;
	__u64 faces[2];
	ssize_t got;
	double t;

	if (ioctl(fd, DICE_IOC_SET_FORMAT, &u64) ||
	    ioctl(fd, DICE_IOC_SET_SIDES, &wide) ||
	    read(fd, faces, want) != (ssize_t)want ||
	    ioctl(fd, DICE_IOC_SET_WEIGHTS, &arg) ||
	    ioctl(fd, DICE_IOC_SET_FORMAT, &u8)) {
		snprintf(r->failed, sizeof(r->failed),
			 "d%llu, then %u weights: %s",
			 (unsigned long long)wide, grouped[j].n,
			 strerror(errno));
		return false;
	}
	for (k = 0; k < ARRAY_SIZE(every_size_len); k++) {
		t = now();
		got = read(fd, b, every_size_len[k]);
		t = now() - t;
		if (t > r->slowest)
			r->slowest = t;
		if (got != (ssize_t)every_size_len[k] ||
		    !u8_faces_ok(b, got, grouped[j].w, grouped[j].n)) {
			snprintf(r->failed, sizeof(r->failed),
				 "d%llu, then %u weights: read %zu returned %zd (%s) or a face out of range",
				 (unsigned long long)wide, grouped[j].n,
				 every_size_len[k], got, strerror(errno));
			return false;
		}
	}
	return true;
}

static void every_size_run(void *res)
{
	struct every_size *r = res;
	double t0 = now();
	unsigned int i, j;
	int fd;

	read_u64_file(TAINTED_PATH, &r->taint0);
	alarm(25);
	fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < ARRAY_SIZE(wide_sides); i++)
		for (j = 0; j < ARRAY_SIZE(grouped); j++)
			if (!every_size_one(fd, wide_sides[i], j, r))
				goto out;
out:
	alarm(0);
	r->secs = now() - t0;
	read_u64_file(TAINTED_PATH, &r->taint1);
}

/*
 * The same with every wide fair die, then every grouped loaded die with
 * few cells, read in every size up to 8 KiB, all on one file; each read
 * must take under a second.
 */
TEST(wide_then_grouped_every_size)
{
	struct every_size r;
	int fd;

	fd = open_die(_metadata, O_RDWR);
	REQUIRE_DIE(fd);
	close(fd);
	in_reader(_metadata, every_size_run, &r, sizeof(r), 27);
	ASSERT_EQ(0, r.failed[0]) TH_LOG("%s", r.failed);
	EXPECT_GT(1.0, r.slowest) TH_LOG("the slowest read took %.3f s",
					 r.slowest);
	EXPECT_FALSE(~r.taint0 & r.taint1 & TAINT_WARN)
		TH_LOG("the kernel warned (tainted %#llx)",
		       (unsigned long long)r.taint1);
	printf("# %zu wide dice times %zu grouped dice in %.1f s, slowest read %.3f s\n",
	       ARRAY_SIZE(wide_sides), ARRAY_SIZE(grouped), r.secs, r.slowest);
	fflush(stdout);		/* the harness ends the case with _exit() */
}

TEST_HARNESS_MAIN
