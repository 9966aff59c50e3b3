// SPDX-License-Identifier: GPL-2.0
/*
 * dice_fuzz_test.c - a seeded, model-checked fuzzer of /dev/dice
 *
 * For a bounded time, two open files of /dev/dice get a stream of random
 * operations from a seeded generator:
 *
 *  - ioctls: DICE_IOC_SET_DIE, DICE_IOC_GET_DIE, DICE_IOC_GET_STATS and
 *    the test hook DICE_IOC_SET_SOURCE; their numbers with another
 *    direction or size (0, 1, 4, 8, 16, 24, 32, 40, 48, 56, 64, 4096,
 *    16383), which the fixed-size interface must refuse; the nine numbers
 *    of the old interface (SET_SIDES to SET_SOURCE, 0x01 to 0x09, with
 *    the sizes of their old structs or others), which are gone; unknown
 *    numbers of the dice magic; other drivers' magics (but those the VFS
 *    answers itself: 'T', 'X', 'f', 0x94, 0);
 *  - SET_DIE of every kind (fair, weights, alias table, unknown kinds),
 *    with random sides (0, 1 to 2^64 - 1, over DICE_TABLE_SIDES_MAX),
 *    methods (DICE_METHOD_REJECTION, 4, is gone from the device), formats
 *    and flags, fields the kind does not use given now and then, and
 *    every user pointer (the argument itself, and the arrays it points
 *    to) NULL, in the first page, unmapped, on a PROT_READ page,
 *    misaligned, straddling into a PROT_NONE page, a kernel or
 *    non-canonical address, just below the top of user space, or a valid
 *    buffer of random contents and size (up to a few thousand sides);
 *  - read(), write(), readv() and writev() of random sizes into the same
 *    kinds of buffer; lseek(), pread() and mmap(), which must fail; and now
 *    and then a close and a fresh open;
 *  - and, for 40% of the operations, well-formed changes of the die and
 *    reads on the same file, so that a die's state is carried from one
 *    configuration to the next: sides (wide ones among them), weights
 *    (grouped dice with few cells, ungrouped dice, tables of up to 4096
 *    sides), alias tables, the same die in another method or format,
 *    sources, written bits, and reads of 1 byte to 8 KiB; and the
 *    distribution of the die read in tens of thousands of rolls, now and
 *    then right after a SET_DIE of another table of as many sides, in
 *    another method and format, that fails late (every weight 0, a bad
 *    column, a mass overflow, an array that runs into a PROT_NONE page).
 *
 * Each file has a model (what GET_DIE must say, the table of its loaded
 * die and so each side's share, its source, what may wait in its read
 * buffer) and every result is checked:
 *
 *  - the errno must be one the operation may give: ENOTTY for numbers the
 *    driver does not know; EFAULT, EINVAL, E2BIG, EOVERFLOW, ENOMEM for
 *    SET_DIE; EFAULT for GET_DIE and GET_STATS; EFAULT, EINVAL for
 *    SET_SOURCE; EINVAL, EFAULT, EAGAIN for read() and write(); anything
 *    else, or a crash, fails;
 *  - the model predicts the exact errno of nearly every call, in the
 *    kernel's order for SET_DIE (dice_die_args_check() and
 *    dice_ioctl_set_die()): EFAULT for the struct; EINVAL for flags, kind,
 *    0 sides, method, a field the kind does not use, a mass of 0, a method
 *    that cannot roll the kind; E2BIG; the format's EINVAL or EOVERFLOW;
 *    then for a table EFAULT reading it, EINVAL for every weight 0 or a
 *    bad column, EOVERFLOW for a side's mass.  "Nearly": ENOMEM is allowed
 *    to a SET_DIE that passed the argument checks (the table budget);
 *  - after every operation GET_DIE must match the model, so a failed call
 *    must leave the die as it was (SET_DIE is atomic);
 *  - what the GET ioctls return must be sane and match the model: GET_DIE
 *    whole with padding 0, bytes past the struct left alone, bits used <=
 *    bits drawn, rolls that never go down;
 *  - what read() returns must be faces of the die: in range, and never a
 *    side of a loaded die that has no mass in the model's table; text
 *    lines of digits; and in the distribution checks each side within 7
 *    standard deviations (and 8 rolls) of its share in the model's table.
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
#include <math.h>
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
#define LOG_LEN		240

/* x86-64's TASK_SIZE_MAX with 4-level page tables. */
#define USER_TOP	0x7ffffffff000ULL

/* The method the device had as 4; userspace's baseline only now. */
#define GONE_METHOD_REJECTION	4

/*
 * The old interface's numbers, as its header made them (the structs'
 * sizes: dice_info and dice_stats 64 bytes, dice_weights 16, dice_alias
 * 32, dice_masses 40).  None may do anything now but fail with ENOTTY.
 */
static const struct {
	unsigned int cmd;
	const char *name;
} old_cmds[] = {
	{ _IOW(DICE_IOC_MAGIC, 0x01, __u64), "SET_SIDES" },
	{ _IOW(DICE_IOC_MAGIC, 0x02, __u32), "SET_FORMAT" },
	{ _IOR(DICE_IOC_MAGIC, 0x03, __u8[64]), "GET_INFO" },
	{ _IOR(DICE_IOC_MAGIC, 0x04, __u8[64]), "GET_STATS" },
	{ _IOW(DICE_IOC_MAGIC, 0x05, __u8[16]), "SET_WEIGHTS" },
	{ _IOW(DICE_IOC_MAGIC, 0x06, __u8[32]), "SET_ALIAS" },
	{ _IOWR(DICE_IOC_MAGIC, 0x07, __u8[40]), "GET_MASSES" },
	{ _IOW(DICE_IOC_MAGIC, 0x08, __u32), "SET_METHOD" },
	{ _IOW(DICE_IOC_MAGIC, 0x09, __u32), "SET_SOURCE" },
};

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

/*
 * The table of a loaded die as the kernel took it (copies of the arrays it
 * read), and what it makes of it: side i comes up with probability
 * share[i] / total.  For weights share[i] = n * w[i] of n * sum(w); for an
 * alias table what side i collects over the columns, of n * mass.
 */
struct table {
	__u32 kind;		/* DICE_KIND_WEIGHTS or DICE_KIND_ALIAS */
	__u64 sides;
	__u32 *w;
	__u64 *thr;
	__u32 *al;
	__u64 mass;
	__u64 *share;
	u128 total;
};

struct model {
	__u64 sides;
	__u32 kind;		/* as GET_DIE reports it: FAIR or LOADED */
	__u32 format;
	__u32 method;
	__u32 source;
	/* the table of a loaded die; NULL for a fair die */
	struct table *t;
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
	unsigned long n_valid, n_changes, n_wide_grouped, n_old;
	unsigned long n_exact, n_bytes, n_tables, n_faces;
	unsigned long n_set_die, n_refused, n_dist, n_twins;
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

static void table_free(struct table *t)
{
	if (!t)
		return;
	free(t->w);
	free(t->thr);
	free(t->al);
	free(t->share);
	free(t);
}

static void model_reset(struct model *m)
{
	table_free(m->t);
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

/* dice_method_check() of the device: no DICE_METHOD_REJECTION any more */
static int method_check(__u32 method, __u32 kind)
{
	if (method == DICE_METHOD_RECYCLE || method == DICE_METHOD_ALIAS)
		return 0;
	if (method == DICE_METHOD_VIGLIETTA || method == DICE_METHOD_BATCH)
		return kind == DICE_KIND_FAIR ? 0 : -EINVAL;
	return -EINVAL;
}

/*
 * dice_die_args_check(): what SET_DIE refuses before it reads a table.
 * EINVAL first (flags, kind, sides, method; fields the kind does not use,
 * an alias table's mass of 0; a method that cannot roll the kind), then
 * E2BIG for a loaded die over the limit, then the format's EINVAL or
 * EOVERFLOW.
 */
static int args_check(const struct dice_die_args *a)
{
	bool fair = a->kind == DICE_KIND_FAIR;
	bool alias = a->kind == DICE_KIND_ALIAS;

	if (a->flags || a->kind > DICE_KIND_ALIAS || !a->sides ||
	    a->method > DICE_METHOD_ALIAS)
		return -EINVAL;
	if ((a->kind != DICE_KIND_WEIGHTS && a->weights) ||
	    (!alias && (a->thresholds || a->aliases || a->mass)) ||
	    (alias && !a->mass))
		return -EINVAL;
	if (method_check(a->method, fair ? DICE_KIND_FAIR : DICE_KIND_LOADED))
		return -EINVAL;
	if (!fair && a->sides > DICE_TABLE_SIDES_MAX)
		return -E2BIG;
	return fmt_check(a->format, a->sides);
}

static void *dup_mem(const void *p, size_t len)
{
	void *q = malloc(len ? len : 1);

	if (q)
		memcpy(q, p, len);
	return q;
}

/*
 * The table phase of SET_DIE (dice_table_read()) for arguments that passed
 * args_check(): the errno it must give (0, EFAULT, EINVAL, EOVERFLOW) and,
 * on 0, the table in *@out.  @host: the arrays are this process's own
 * memory, readable (well-formed calls), else they are checked against the
 * arena.  The arrays are read as they are now: after the struct was put
 * in place, which may have overwritten part of them.
 */
static int table_expect(struct fz *z, const struct dice_die_args *a,
			bool host, struct table **out)
{
	__u64 n = a->sides, i, sum = 0;
	struct table *t;
	u128 *acc;
	bool over = false;

	*out = NULL;
	if (a->kind == DICE_KIND_WEIGHTS) {
		if (!host && !all_ok(&z->a, a->weights, n * 4, PROT_READ))
			return EFAULT;
	} else {
		/* The thresholds are copied first, then the aliases. */
		if (!host && !all_ok(&z->a, a->thresholds, n * 8, PROT_READ))
			return EFAULT;
		if (!host && !all_ok(&z->a, a->aliases, n * 4, PROT_READ))
			return EFAULT;
	}
	t = calloc(1, sizeof(*t));
	FZ_CHECK(z, t, "out of memory");
	t->kind = a->kind;
	t->sides = n;
	t->share = calloc(n, sizeof(*t->share));
	FZ_CHECK(z, t->share, "out of memory");
	if (a->kind == DICE_KIND_WEIGHTS) {
		t->w = dup_mem((const void *)(uintptr_t)a->weights, n * 4);
		FZ_CHECK(z, t->w, "out of memory");
		for (i = 0; i < n; i++)
			sum += t->w[i];
		if (!sum) {
			table_free(t);
			return EINVAL;
		}
		for (i = 0; i < n; i++)
			t->share[i] = n * t->w[i];
		t->total = (u128)n * sum;
		*out = t;
		return 0;
	}
	t->mass = a->mass;
	t->thr = dup_mem((const void *)(uintptr_t)a->thresholds, n * 8);
	t->al = dup_mem((const void *)(uintptr_t)a->aliases, n * 4);
	FZ_CHECK(z, t->thr && t->al, "out of memory");
	for (i = 0; i < n; i++) {
		if (t->thr[i] > t->mass || t->al[i] >= n) {
			table_free(t);
			return EINVAL;
		}
	}
	acc = calloc(n, sizeof(*acc));
	FZ_CHECK(z, acc, "out of memory");
	for (i = 0; i < n; i++) {
		acc[i] += t->thr[i];
		if (t->thr[i] < t->mass)
			acc[t->al[i]] += t->mass - t->thr[i];
	}
	for (i = 0; i < n; i++) {
		over |= acc[i] >> 64 != 0;
		t->share[i] = (__u64)acc[i];
	}
	free(acc);
	if (over) {
		table_free(t);
		return EOVERFLOW;
	}
	t->total = (u128)n * t->mass;
	*out = t;
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

/* Sizes of ioctl numbers: the structs' (24, 40, 56), the old ones', others */
static const __u32 sizes[] = { 0, 1, 4, 8, 16, 24, 32, 40, 48, 56, 64, 4096,
			       16383 };

/* Sides of a loaded die: 0, small, large, at and over the limit, wide. */
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
	if (r < 91)
		return (__u32)rnd(z);
	if (r < 94)
		return rnd(z);
	return 1 + below(z, 65536);
}

/* Sides of a fair die: the edges of every format, 0, anything. */
static __u64 pick_fair_sides(struct fz *z)
{
	static const __u64 sides[] = {
		1, 2, 6, 255, 256, 257, 65535, 65536, 65537, 0xffffffffULL,
		0x100000000ULL, 0x100000001ULL, 1ULL << 63, ~0ULL, 0,
		DICE_TABLE_SIDES_MAX, DICE_TABLE_SIDES_MAX + 1,
	};
	unsigned int r = below(z, 100);

	if (r < 60)
		return sides[below(z, ARRAY_SIZE(sides))];
	return r < 90 ? 1 + below(z, 1000) : rnd(z);
}

static __u32 pick_format(struct fz *z)
{
	unsigned int r = below(z, 100);

	if (r < 80)
		return below(z, 5) | (below(z, 2) ? DICE_FMT_ZERO_BASED : 0);
	return r < 90 ? below(z, 0x400) : (__u32)rnd(z);
}

/* Methods 0 to 3, the gone 4, and others. */
static __u32 pick_method(struct fz *z)
{
	unsigned int r = below(z, 100);

	if (r < 85)
		return below(z, GONE_METHOD_REJECTION + 1);
	return r < 92 ? 5 + below(z, 4) : (__u32)rnd(z);
}

static __u64 pick_mass(struct fz *z)
{
	switch (below(z, 7)) {
	case 0:
		return 1 + below(z, 100);
	case 1:
		return ~0ULL;
	case 2:
		return 1ULL << 63;
	case 3:
		return below(z, 20) ? rnd(z) : 0;
	case 4:
		return below(z, 3) ? 1 + below(z, 1 << 20) : 0;
	default:
		return 1 + below(z, 1 << 20);
	}
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

/* GET_DIE must match the model: a failed call changed nothing. */
static void check_info(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	struct dice_die_info info;

	memset(&info, 0xa5, sizeof(info));
	FZ_CHECK(z, !ioctl(z->fd[z->cur], DICE_IOC_GET_DIE, &info),
		 "GET_DIE: %s", strerror(errno));
	FZ_CHECK(z, !info.padding, "GET_DIE: padding %#x", info.padding);
	FZ_CHECK(z, info.sides == m->sides && info.kind == m->kind &&
		 info.format == m->format && info.method == m->method,
		 "GET_DIE: sides %llu kind %u format %#x method %u, model: %llu %u %#x %u",
		 (unsigned long long)info.sides, info.kind, info.format,
		 info.method, (unsigned long long)m->sides, m->kind, m->format,
		 m->method);
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
	if (m->t) {
		FZ_CHECK(z, m->t->share[face - lo],
			 "%s: side %llu has no mass but came up", how,
			 (unsigned long long)(face - lo));
	}
}

/* ---- the state of the read buffer ----------------------------------------- */

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

/* The format changed: every byte waiting is dropped. */
static void buffer_dropped(struct model *m)
{
	m->left_max = 0;
	m->stale_max = 0;
	m->midline = false;
}

/* ---- SET_DIE ----------------------------------------------------------------- */

/* The die the model says @m rolls, as SET_DIE would set it again. */
static void die_args(const struct model *m, struct dice_die_args *a)
{
	memset(a, 0, sizeof(*a));
	a->sides = m->sides;
	a->method = m->method;
	a->format = m->format;
	if (!m->t) {
		a->kind = DICE_KIND_FAIR;
	} else if (m->t->kind == DICE_KIND_WEIGHTS) {
		a->kind = DICE_KIND_WEIGHTS;
		a->weights = (uintptr_t)m->t->w;
	} else {
		a->kind = DICE_KIND_ALIAS;
		a->thresholds = (uintptr_t)m->t->thr;
		a->aliases = (uintptr_t)m->t->al;
		a->mass = m->t->mass;
	}
}

/* SET_DIE succeeded with @a (and table @t for a loaded die): the new die. */
static void apply_die(struct fz *z, struct model *m,
		      const struct dice_die_args *a, struct table *t)
{
	bool fmt_changed = a->format != m->format;

	z->n_changes++;
	if (t) {
		z->n_tables++;
		/* The sequence that once hung: state of a wide die, few cells. */
		if (m->wide_rolled && t->total <= 1 << 16)
			z->n_wide_grouped++;
		m->wide_rolled = false;
	}
	table_free(m->t);
	m->t = t;
	m->kind = t ? DICE_KIND_LOADED : DICE_KIND_FAIR;
	m->sides = a->sides;
	m->method = a->method;
	m->format = a->format;
	/* A new format drops every byte; the same one the rolls but a line. */
	if (fmt_changed)
		buffer_dropped(m);
	else
		die_changed(m);
}

/*
 * SET_DIE of @arg, put at a user address of kind @k: the errno predicted,
 * checked, and the model changed on success.  @host as for table_expect().
 * Returns the errno.
 */
static int set_die_call(struct fz *z, const struct dice_die_args *arg,
			enum ptr_kind k, bool host, const char *what)
{
	struct model *m = &z->m[z->cur];
	struct dice_die_args seen;
	__u64 p = pick_ptr(z, sizeof(*arg), k);
	struct table *t = NULL;
	bool args_ok = false;
	int expect, err;

	poke(&z->a, p, arg, sizeof(*arg));
	if (!peek(&z->a, p, &seen, sizeof(seen))) {
		seen = *arg;
		expect = EFAULT;
	} else {
		expect = -args_check(&seen);
		args_ok = !expect;
		if (!expect && seen.kind != DICE_KIND_FAIR)
			expect = table_expect(z, &seen, host, &t);
	}
	logop(z, "%s ptr %s %#llx {kind %u, sides %llu, w %#llx, thr %#llx, al %#llx, mass %#llx, method %u, format %#x, flags %#x}: model %s",
	      what, pk_name[k], (unsigned long long)p, seen.kind,
	      (unsigned long long)seen.sides, (unsigned long long)seen.weights,
	      (unsigned long long)seen.thresholds,
	      (unsigned long long)seen.aliases, (unsigned long long)seen.mass,
	      seen.method, seen.format, seen.flags, errname(expect));
	z->n_set_die++;
	err = ioctl(z->fd[z->cur], DICE_IOC_SET_DIE, (unsigned long)p) ? errno : 0;
	/* The table budget (or memory) may run out once the checks passed. */
	check_errno(z, what, err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(E2BIG) | BIT(EOVERFLOW) |
		    BIT(ENOMEM), err == ENOMEM && args_ok ? -1 : expect);
	if (err) {
		z->n_refused++;
		table_free(t);
		return err;
	}
	apply_die(z, m, &seen, t);
	return 0;
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

/* The columns a user puts in an alias table of @n; returns the modes. */
static unsigned int fill_alias(struct fz *z, __u64 *thr, __u32 *al, __u64 n,
			       __u64 mass)
{
	unsigned int tmode = below(z, 6), amode = below(z, 5);
	__u64 i;

	for (i = 0; i < n; i++) {
		switch (tmode) {
		case 0:
			thr[i] = mass;
			break;
		case 1:
			thr[i] = 0;
			break;
		case 5:
			thr[i] = rnd(z);
			break;
		default:
			thr[i] = mass ? rnd(z) % ((u128)mass + 1) : 0;
		}
		switch (amode) {
		case 0:
			al[i] = 0;
			break;
		case 4:
			al[i] = (__u32)rnd(z);
			break;
		default:
			al[i] = below(z, n);
		}
	}
	if (!below(z, 10))
		thr[below(z, n)] = mass + 1;
	if (!below(z, 10))
		al[below(z, n)] = n + below(z, 3);
	return tmode * 10 + amode;
}

/* A nonzero user address for a field the kind does not use. */
static __u64 stray_ptr(struct fz *z, __u64 len)
{
	__u64 p = pick_ptr(z, len, pick_kind(z));

	return p ? p : 8;
}

/* SET_DIE of random arguments, anywhere. */
static void do_set_die(struct fz *z)
{
	static __u32 w[1 << 16];
	static __u64 thr[1 << 15];
	static __u32 al[1 << 15];
	struct model *m = &z->m[z->cur];
	struct dice_die_args a = { 0 };
	enum ptr_kind k = pick_kind(z);
	unsigned int r = below(z, 100);
	__u64 n, len;

	if (r < 30)
		a.kind = DICE_KIND_FAIR;
	else if (r < 60)
		a.kind = DICE_KIND_WEIGHTS;
	else if (r < 92)
		a.kind = DICE_KIND_ALIAS;
	else
		a.kind = below(z, 2) ? 3 + below(z, 4) : (__u32)rnd(z);
	a.sides = a.kind == DICE_KIND_FAIR ? pick_fair_sides(z) : pick_sides(z);
	a.method = pick_method(z);
	a.format = below(z, 10) < 4 ? m->format : pick_format(z);
	a.flags = below(z, 20) ? 0 : 1U << below(z, 32);
	n = a.sides;
	len = n < (1 << 22) ? n : 1 << 22;
	if (a.kind == DICE_KIND_WEIGHTS || (a.kind > DICE_KIND_ALIAS && below(z, 2))) {
		a.weights = pick_ptr(z, len * 4, pick_kind(z));
		if (n <= ARRAY_SIZE(w)) {
			fill_weights(z, w, n);
			poke(&z->a, a.weights, w, n * 4);
		}
	} else if (a.kind == DICE_KIND_ALIAS || a.kind > DICE_KIND_ALIAS) {
		a.mass = pick_mass(z);
		a.thresholds = pick_ptr(z, len * 8, pick_kind(z));
		a.aliases = pick_ptr(z, len * 4, pick_kind(z));
		if (n && n <= ARRAY_SIZE(thr)) {
			fill_alias(z, thr, al, n, a.mass);
			poke(&z->a, a.thresholds, thr, n * 8);
			poke(&z->a, a.aliases, al, n * 4);
		}
	}
	/* Now and then a field the kind does not use. */
	if (a.kind != DICE_KIND_WEIGHTS && !below(z, 12))
		a.weights = stray_ptr(z, len * 4);
	if (a.kind != DICE_KIND_ALIAS && !below(z, 12)) {
		switch (below(z, 3)) {
		case 0:
			a.thresholds = stray_ptr(z, len * 8);
			break;
		case 1:
			a.aliases = stray_ptr(z, len * 4);
			break;
		default:
			a.mass = 1 + below(z, 1000);
		}
	}
	set_die_call(z, &a, k, false, "SET_DIE");
}

/* ---- SET_SOURCE (the test hook) --------------------------------------------- */

static __u32 pick_source(struct fz *z)
{
	unsigned int r = below(z, 100);

	return r < 90 ? below(z, 2) : r < 95 ? 2 + below(z, 3) : (__u32)rnd(z);
}

/* SET_SOURCE of @v through a pointer of kind @k, checked and modelled. */
static void source_call(struct fz *z, __u32 v, enum ptr_kind k)
{
	struct model *m = &z->m[z->cur];
	__u64 p = pick_ptr(z, sizeof(v), k);
	__u32 got = 0;
	int expect, err;

	poke(&z->a, p, &v, sizeof(v));
	if (!peek(&z->a, p, &got, sizeof(got))) {
		expect = EFAULT;
	} else {
		v = got;
		expect = v <= DICE_SRC_WRITTEN ? 0 : EINVAL;
	}
	logop(z, "SET_SOURCE ptr %s %#llx value %#x: model %s", pk_name[k],
	      (unsigned long long)p, v, errname(expect));
	err = ioctl(z->fd[z->cur], DICE_IOC_SET_SOURCE, (unsigned long)p) ?
	      errno : 0;
	/* ENOMEM: the scratch die of written bits, allocated once. */
	check_errno(z, "SET_SOURCE", err,
		    BIT(EFAULT) | BIT(EINVAL) | BIT(ENOMEM),
		    err == ENOMEM && v == DICE_SRC_WRITTEN ? -1 : expect);
	if (err)
		return;
	z->n_changes++;
	m->source = v;
	die_changed(m);
}

/* ---- GET_DIE and GET_STATS ------------------------------------------------- */

static void do_get(struct fz *z, bool info_cmd)
{
	struct model *m = &z->m[z->cur];
	unsigned int cmd = info_cmd ? DICE_IOC_GET_DIE : DICE_IOC_GET_STATS;
	size_t size = info_cmd ? sizeof(struct dice_die_info) :
		      sizeof(struct dice_die_stats);
	enum ptr_kind k = pick_kind(z);
	__u64 p = pick_ptr(z, size, k), after;
	size_t i, check_end;
	int expect, err;

	/* Mark the buffer and 16 bytes past it, where valid. */
	after = prefix(&z->a, p, size + 16, PROT_WRITE);
	if (after)
		memset((void *)(uintptr_t)p, 0xa5, after);
	expect = all_ok(&z->a, p, size, PROT_WRITE) ? 0 : EFAULT;
	logop(z, "%s ptr %s %#llx: model %s", info_cmd ? "GET_DIE" : "GET_STATS",
	      pk_name[k], (unsigned long long)p, errname(expect));
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, info_cmd ? "GET_DIE" : "GET_STATS", err, BIT(EFAULT),
		    expect);
	/* Nothing written past the struct, whatever the result. */
	check_end = after < size + 16 ? after : size + 16;
	for (i = size; i < check_end; i++) {
		FZ_CHECK(z, ((__u8 *)(uintptr_t)p)[i] == 0xa5,
			 "byte %zu past the %zu-byte struct written", i, size);
	}
	if (err)
		return;
	if (info_cmd) {
		struct dice_die_info info;

		memcpy(&info, (void *)(uintptr_t)p, sizeof(info));
		FZ_CHECK(z, info.sides == m->sides && info.kind == m->kind &&
			 info.format == m->format && info.method == m->method &&
			 !info.padding,
			 "GET_DIE copy: sides %llu kind %u format %#x method %u padding %#x",
			 (unsigned long long)info.sides, info.kind, info.format,
			 info.method, info.padding);
	} else {
		struct dice_die_stats st;

		memcpy(&st, (void *)(uintptr_t)p, sizeof(st));
		FZ_CHECK(z, st.bits_used + st.bits_discarded <= st.bits_drawn,
			 "GET_STATS: used %llu + discarded %llu > drawn %llu",
			 (unsigned long long)st.bits_used,
			 (unsigned long long)st.bits_discarded,
			 (unsigned long long)st.bits_drawn);
		FZ_CHECK(z, st.coin_bits <= st.bits_used,
			 "GET_STATS: coin bits %llu > used %llu",
			 (unsigned long long)st.coin_bits,
			 (unsigned long long)st.bits_used);
		FZ_CHECK(z, st.rolls >= m->rolls, "GET_STATS: rolls went from %llu to %llu",
			 (unsigned long long)m->rolls,
			 (unsigned long long)st.rolls);
		m->rolls = st.rolls;
	}
}

/* ---- ioctl numbers ------------------------------------------------------------ */

enum op_nr {
	OP_NOTTY,
	OP_SET_DIE,
	OP_GET_DIE,
	OP_GET_STATS,
	OP_SET_SOURCE,
};

/* What dice_file_ioctl() does with @cmd: exact numbers only. */
static enum op_nr classify(unsigned int cmd)
{
	switch (cmd) {
	case DICE_IOC_SET_DIE: return OP_SET_DIE;
	case DICE_IOC_GET_DIE: return OP_GET_DIE;
	case DICE_IOC_GET_STATS: return OP_GET_STATS;
	case DICE_IOC_SET_SOURCE: return OP_SET_SOURCE;
	}
	return OP_NOTTY;
}

/*
 * An argument for a number that must fail: mostly a valid buffer holding
 * what the old ioctl of that number took (a d7, a format, a method, a
 * small table), so that one still served would change the die.
 */
static __u64 notty_arg(struct fz *z, unsigned int size)
{
	enum ptr_kind k = pick_kind(z);
	__u64 p = pick_ptr(z, size ? size : 8, k);
	static const __u32 w[3] = { 1, 2, 3 };
	__u64 words[8] = { 7 };

	if (k == PK_VALID && below(z, 2)) {
		words[0] = below(z, 2) ? 7 : (uintptr_t)w;
		words[1] = 3;		/* dice_weights.sides, or else */
		words[2] = below(z, 4);
		poke(&z->a, p, words, sizeof(words));
	}
	return p;
}

static void do_ioctl(struct fz *z)
{
	/* Magics the VFS answers itself (FIONBIO, FIFREEZE, FS_IOC_*, ...). */
	static const __u8 vfs_magic[] = { 0x00, 'T', 'X', 'f', 0x94 };
	static const unsigned int cmds[] = {
		DICE_IOC_SET_DIE, DICE_IOC_SET_DIE, DICE_IOC_SET_DIE,
		DICE_IOC_SET_DIE, DICE_IOC_SET_DIE, DICE_IOC_GET_DIE,
		DICE_IOC_GET_DIE, DICE_IOC_GET_STATS, DICE_IOC_GET_STATS,
		DICE_IOC_SET_SOURCE,
	};
	unsigned int r = below(z, 100), magic = DICE_IOC_MAGIC, nr, dir, size;
	unsigned int cmd, i;
	const char *what = "unknown";
	__u64 p;
	int err;

	z->n_ioctl++;
	if (r < 50) {
		/* The interface's own numbers. */
		cmd = cmds[below(z, ARRAY_SIZE(cmds))];
	} else if (r < 62) {
		/* Its numbers in another direction or size. */
		cmd = cmds[below(z, ARRAY_SIZE(cmds))];
		dir = below(z, 2) ? _IOC_DIR(cmd) : below(z, 4);
		size = below(z, 2) ? _IOC_SIZE(cmd) + 8 * below(z, 3) - 8 :
			sizes[below(z, ARRAY_SIZE(sizes))];
		cmd = _IOC(dir, DICE_IOC_MAGIC, _IOC_NR(cmd), size & _IOC_SIZEMASK);
	} else if (r < 80) {
		/* The old interface's: gone. */
		i = below(z, ARRAY_SIZE(old_cmds));
		cmd = old_cmds[i].cmd;
		what = old_cmds[i].name;
		if (below(z, 4))
			z->n_old++;
		else
			cmd = _IOC(below(z, 4), DICE_IOC_MAGIC, _IOC_NR(cmd),
				   sizes[below(z, ARRAY_SIZE(sizes))]);
	} else {
		if (r < 90) {
			do
				nr = below(z, 256);
			while (nr == 0x10 || nr == 0x11 || nr == 0x12 ||
			       nr == 0x1f);
		} else {
			nr = below(z, 256);
			do {
				magic = below(z, 256);
				for (i = 0; i < sizeof(vfs_magic); i++)
					if (magic == vfs_magic[i])
						magic = DICE_IOC_MAGIC;
			} while (magic == DICE_IOC_MAGIC);
		}
		cmd = _IOC(below(z, 4), magic, nr,
			   sizes[below(z, ARRAY_SIZE(sizes))]);
	}
	switch (classify(cmd)) {
	case OP_SET_DIE:
		do_set_die(z);
		return;
	case OP_GET_DIE:
		do_get(z, true);
		return;
	case OP_GET_STATS:
		do_get(z, false);
		return;
	case OP_SET_SOURCE:
		source_call(z, pick_source(z), pick_kind(z));
		return;
	default:
		break;
	}
	p = notty_arg(z, _IOC_SIZE(cmd));
	logop(z, "ioctl %#x (%s) ptr %#llx: model ENOTTY", cmd, what,
	      (unsigned long long)p);
	err = ioctl(z->fd[z->cur], cmd, (unsigned long)p) ? errno : 0;
	check_errno(z, "unknown ioctl", err, BIT(ENOTTY), ENOTTY);
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
	struct dice_die_stats st;
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

/* The same die in @fmt. */
static void valid_format(struct fz *z, __u32 fmt)
{
	struct dice_die_args a;

	die_args(&z->m[z->cur], &a);
	a.format = fmt;
	set_die_call(z, &a, PK_VALID, true, "SET_DIE same die, format");
}

/* The same die by @method (4, DICE_METHOD_REJECTION, is gone). */
static void valid_method(struct fz *z, __u32 method)
{
	struct dice_die_args a;

	die_args(&z->m[z->cur], &a);
	a.method = method;
	set_die_call(z, &a, PK_VALID, true, "SET_DIE same die, method");
}

/*
 * Mostly the file's method, else one that rolls a die of @kind, now and
 * then any of 0 to 4.
 */
static __u32 valid_method_for(struct fz *z, __u32 kind)
{
	__u32 cur = z->m[z->cur].method;
	unsigned int r = below(z, 100);

	if (r < 10)
		return below(z, 5);
	if (r < 60 && !method_check(cur, kind))
		return cur;
	if (kind == DICE_KIND_FAIR)
		return below(z, 4);
	return below(z, 2) ? DICE_METHOD_RECYCLE : DICE_METHOD_ALIAS;
}

static void valid_sides(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	struct dice_die_args a = { .kind = DICE_KIND_FAIR };
	unsigned int r = below(z, 100);

	if (r < 55)
		a.sides = wide_sides[below(z, ARRAY_SIZE(wide_sides))];
	else if (r < 90)
		a.sides = 1 + below(z, 20);
	else
		a.sides = 1 + below(z, 1 << 20);
	a.method = valid_method_for(z, DICE_KIND_FAIR);
	a.format = m->format;
	/* Mostly in a format that holds the faces, so that wide dice roll. */
	if (fmt_check(m->format, a.sides) && below(z, 4))
		a.format = below(z, 2) ? DICE_FMT_U64 : DICE_FMT_TEXT;
	set_die_call(z, &a, PK_VALID, true, "SET_DIE fair");
}

/* SET_DIE of @n weights in @w, well formed but for what they hold. */
static void weights_call(struct fz *z, const __u32 *w, __u32 n)
{
	struct model *m = &z->m[z->cur];
	struct dice_die_args a = {
		.kind = DICE_KIND_WEIGHTS,
		.sides = n,
		.weights = (uintptr_t)w,
		.format = m->format,
	};

	a.method = valid_method_for(z, DICE_KIND_LOADED);
	if (fmt_check(m->format, n) && below(z, 4))
		a.format = n <= 255 ? DICE_FMT_U8 : DICE_FMT_U16;
	set_die_call(z, &a, PK_VALID, true, "SET_DIE weights");
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
	struct dice_die_args a = { .kind = DICE_KIND_ALIAS };
	__u64 mass = masses[below(z, ARRAY_SIZE(masses))], i;
	__u32 n = 1 + (below(z, 2) ? below(z, 8) : below(z, ARRAY_SIZE(thr)));
	unsigned int mode = below(z, 4);

	for (i = 0; i < n; i++) {
		thr[i] = mode == 0 ? mass : mode == 1 ? mass / 2 :
			 rnd(z) % ((u128)mass + 1);
		al[i] = below(z, n);
	}
	a.thresholds = (uintptr_t)thr;
	a.aliases = (uintptr_t)al;
	a.mass = mass;
	a.sides = n;
	a.method = valid_method_for(z, DICE_KIND_LOADED);
	a.format = m->format;
	if (fmt_check(m->format, n) && below(z, 4))
		a.format = n <= 255 ? DICE_FMT_U8 : DICE_FMT_U16;
	set_die_call(z, &a, PK_VALID, true, "SET_DIE alias");
}

/*
 * Another table of as many sides as the file's loaded die, in another
 * method and format, that SET_DIE must refuse only once it reads the
 * table: every weight 0, a weight array that runs into the guard page, a
 * column with a threshold above the mass or an alias out of range, an
 * alias array that runs into the guard page, or a side whose mass
 * overflows.  The die must stay as it was: GET_DIE says so of its
 * sides, method and format, check_distribution() of its table.
 */
static void bad_twin(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	struct arena *ar = &z->a;
	struct dice_die_args a = { .sides = m->sides };
	unsigned int mode = below(z, 5), i, n = m->sides;
	__u64 thr_p, al_p;
	__u32 type = m->format & DICE_FMT_TYPE_MASK;

	a.method = m->method == DICE_METHOD_RECYCLE ? DICE_METHOD_ALIAS :
						      DICE_METHOD_RECYCLE;
	a.format = (type == DICE_FMT_U32 ? DICE_FMT_U16 : DICE_FMT_U32) |
		   (below(z, 2) ? DICE_FMT_ZERO_BASED : 0);
	if (mode == 3 && n < 2)
		mode = 2;
	if (mode < 2) {
		__u32 *w;

		a.kind = DICE_KIND_WEIGHTS;
		a.weights = mode ? (__u64)ar->valid_end - 4 * n + 2 :
				   pick_ptr(z, 4 * n, PK_VALID);
		w = (__u32 *)(uintptr_t)a.weights;
		for (i = 0; i < n; i++)
			poke(ar, (__u64)(uintptr_t)&w[i], mode ? &i : &(__u32){ 0 },
			     4);
	} else {
		__u64 *thr;
		__u32 *al;

		a.kind = DICE_KIND_ALIAS;
		a.mass = mode == 3 ? ~0ULL : 1 + below(z, 1000);
		thr_p = pick_ptr(z, 8 * n, PK_VALID);
		al_p = mode == 4 ? (__u64)ar->valid_end - 4 * n + 2 :
				   pick_ptr(z, 4 * n, PK_VALID);
		/* Keep the arrays apart (the struct may still land on them). */
		if (al_p < thr_p + 8 * n && thr_p < al_p + 4 * n)
			thr_p = al_p >= (__u64)ar->valid + 8 * n ?
				al_p - 8 * n : al_p + 4 * n;
		a.thresholds = thr_p;
		a.aliases = al_p;
		thr = (__u64 *)(uintptr_t)thr_p;
		al = (__u32 *)(uintptr_t)al_p;
		for (i = 0; i < n; i++) {
			__u64 t = mode == 3 ? 0 : a.mass;
			__u32 s = mode == 3 ? 0 : i;

			poke(ar, (__u64)(uintptr_t)&thr[i], &t, 8);
			poke(ar, (__u64)(uintptr_t)&al[i], &s, 4);
		}
		if (mode == 2) {
			/* One bad column, the last or any. */
			__u64 t = below(z, 2) ? a.mass + 1 : 0;
			__u32 s = n + below(z, 3);

			i = below(z, 2) ? n - 1 : below(z, n);
			poke(ar, (__u64)(uintptr_t)&thr[i], &t, 8);
			if (!t)
				poke(ar, (__u64)(uintptr_t)&al[i], &s, 4);
		}
	}
	if (set_die_call(z, &a, PK_VALID, false, "SET_DIE bad twin"))
		z->n_twins++;
}

/*
 * Tens of thousands of rolls of the file's die (up to 1024 sides) from the
 * kernel's bits in a binary format: every side within 7 standard
 * deviations and 8 rolls of its share in the model's table, and no side
 * without mass (check_face()).  What GET_MASSES once told exactly.
 */
static void check_distribution(struct fz *z)
{
	struct model *m = &z->m[z->cur];
	__u64 n = m->sides, nrolls = 20000 + 40 * n, i, lo, *count;
	unsigned int width;
	unsigned char *buf;

	if (n > 1024)
		return;
	if (m->source != DICE_SRC_KERNEL) {
		source_call(z, DICE_SRC_KERNEL, PK_VALID);
		FZ_CHECK(z, m->source == DICE_SRC_KERNEL, "SET_SOURCE kernel");
	}
	if (!fmt_width(m->format)) {
		valid_format(z, DICE_FMT_U16 |
			     (below(z, 2) ? DICE_FMT_ZERO_BASED : 0));
		if (!fmt_width(m->format))
			return;		/* ENOMEM */
	}
	check_info(z);
	width = fmt_width(m->format);
	lo = m->format & DICE_FMT_ZERO_BASED ? 0 : 1;
	buf = malloc(nrolls * width);
	count = calloc(n, sizeof(*count));
	FZ_CHECK(z, buf && count, "out of memory");
	logop(z, "distribution: %llu rolls of a d%llu (%s), format %#x method %u",
	      (unsigned long long)nrolls, (unsigned long long)n,
	      m->t ? "loaded" : "fair", m->format, m->method);
	FZ_CHECK(z, read_full(z->fd[z->cur], buf, nrolls * width),
		 "read of %llu rolls: %s", (unsigned long long)nrolls,
		 strerror(errno));
	z->n_read++;
	z->n_bytes += nrolls * width;
	for (i = 0; i < nrolls; i++) {
		__u64 face = get_le(buf + i * width, width);

		check_face(z, face, "distribution");
		count[face - lo]++;
	}
	for (i = 0; i < n; i++) {
		double p = m->t ? (double)m->t->share[i] / (double)m->t->total :
				  1.0 / n;
		double e = nrolls * p, sd = sqrt(nrolls * p * (1 - p));

		FZ_CHECK(z, fabs(count[i] - e) <= 7 * sd + 8,
			 "side %llu of %llu came up %llu times in %llu rolls; its share in the model %.6g expects %.1f +- %.1f",
			 (unsigned long long)i, (unsigned long long)n,
			 (unsigned long long)count[i],
			 (unsigned long long)nrolls, p, e, sd);
	}
	z->n_dist++;
	free(buf);
	free(count);
}

static void do_distribution(struct fz *z)
{
	struct model *m = &z->m[z->cur];

	if (m->sides > 1024)
		return;
	if (m->t && below(z, 2)) {
		bad_twin(z);
		check_info(z);
	}
	check_distribution(z);
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
		valid_method(z, below(z, GONE_METHOD_REJECTION + 1));
	} else if (r < 48) {
		valid_format(z, below(z, 5) |
			     (below(z, 2) ? DICE_FMT_ZERO_BASED : 0));
	} else if (r < 52) {
		source_call(z, below(z, 4) ? DICE_SRC_KERNEL : DICE_SRC_WRITTEN,
			    PK_VALID);
	} else if (r < 54) {
		do_distribution(z);
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
		table_free(z->m[i].t);
	}
	if (z->a.base)
		munmap(z->a.base, z->a.len);
	free(z);
}

/* A d6 in text from kernel bits: the file still works. */
static void still_rolls(struct __test_metadata *_metadata, int fd)
{
	struct dice_die_args d6 = {
		.sides = 6,
		.kind = DICE_KIND_FAIR,
		.method = DICE_METHOD_RECYCLE,
		.format = DICE_FMT_TEXT,
	};
	struct dice_die_info info;
	__u32 zero = DICE_SRC_KERNEL;
	char line[2];

	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_SOURCE, &zero))
		TH_LOG("SET_SOURCE: %s", strerror(errno));
	/*
	 * The d6 in U8 first: a new format drops every byte waiting, where
	 * a new die in the same text format first serves the rest of a line
	 * the storm began to read, as the header says (a read gave "44").
	 */
	d6.format = DICE_FMT_U8;
	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_DIE, &d6))
		TH_LOG("SET_DIE d6 U8: %s", strerror(errno));
	d6.format = DICE_FMT_TEXT;
	ASSERT_EQ(0, ioctl(fd, DICE_IOC_SET_DIE, &d6))
		TH_LOG("SET_DIE d6: %s", strerror(errno));
	get_info(_metadata, fd, &info);
	ASSERT_TRUE(info.sides == 6 && info.kind == DICE_KIND_FAIR &&
		    info.method == DICE_METHOD_RECYCLE &&
		    info.format == DICE_FMT_TEXT && !info.padding)
		TH_LOG("GET_DIE: d%llu kind %u method %u format %#x padding %#x",
		       (unsigned long long)info.sides, info.kind, info.method,
		       info.format, info.padding);
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
	printf("# fuzz: %lu of them well-formed changes of the die, reads and writes; %lu changes of the die or source\n",
	       z->n_valid, z->n_changes);
	printf("# fuzz: %lu SET_DIE, %lu refused; %lu calls of the old interface's numbers\n",
	       z->n_set_die, z->n_refused, z->n_old);
	printf("# fuzz: %lu times a grouped loaded die followed rolls of a fair die of more than 2^32 sides\n",
	       z->n_wide_grouped);
	printf("# fuzz: %lu loaded dice installed, %lu distributions checked against the model (%lu bad twins refused before), %lu faces checked\n",
	       z->n_tables, z->n_dist, z->n_twins, z->n_faces);
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
	"SET_DIE d6 in U64", "SET_DIE d2^40+1 in U64", "read 64 bytes",
	"SET_DIE weights {1, 1} in U64", "SET_DIE weights {1, 1} in U8",
	"read 1 byte", "read 32 bytes",
};

/* SET_DIE of a fair die of @sides or, with @w, a loaded one; 0 or -1. */
static int set_die_raw(int fd, __u64 sides, const __u32 *w, __u32 fmt)
{
	struct dice_die_args a = {
		.sides = sides,
		.kind = w ? DICE_KIND_WEIGHTS : DICE_KIND_FAIR,
		.weights = (uintptr_t)w,
		.method = DICE_METHOD_RECYCLE,
		.format = fmt,
	};

	return ioctl(fd, DICE_IOC_SET_DIE, &a);
}

static bool hostile_do(int fd, struct hostile_seq *r)
{
	static const __u32 w[2] = { 1, 1 };
	bool ok;
	double t;

	switch (r->step) {
	case 0:
		return !set_die_raw(fd, 6, NULL, DICE_FMT_U64);
	case 1:
		return !set_die_raw(fd, POW2(40) + 1, NULL, DICE_FMT_U64);
	case 2:
		return read(fd, r->wide, 64) == 64;
	case 3:
		return !set_die_raw(fd, 2, w, DICE_FMT_U64);
	case 4:
		return !set_die_raw(fd, 2, w, DICE_FMT_U8);
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
	size_t want = 8 * (1 + j % 2);
	unsigned int k;
	__u64 faces[2];
	ssize_t got;
	double t;

	if (set_die_raw(fd, wide, NULL, DICE_FMT_U64) ||
	    read(fd, faces, want) != (ssize_t)want ||
	    set_die_raw(fd, grouped[j].n, grouped[j].w, DICE_FMT_U64) ||
	    set_die_raw(fd, grouped[j].n, grouped[j].w, DICE_FMT_U8)) {
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
