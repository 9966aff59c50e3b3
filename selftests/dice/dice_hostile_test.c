// SPDX-License-Identifier: GPL-2.0
/*
 * dice_hostile_test.c - /dev/dice against a hostile unprivileged user
 *
 * The node is mode 0666.  Each section proves one bound of the section "What
 * an unprivileged user can do and observe" of
 * Documentation/userspace-api/dice.rst:
 *
 *  - SET_DIE of the largest tables (2^20 sides), without pause: SIGKILL
 *    ends it within 0.1 s, handled signals every millisecond neither stop
 *    nor restart it; the copy in steps is exact at its edges and reads nothing
 *    past the last side; a table that faults part of the way, or more
 *    sides than a table may have (never taken as their low 32 bits),
 *    changes neither the die nor the tables' budget; a flood of GET_DIE
 *    and GET_STATS from another user's threads sees every die whole;
 *  - the counters: an unprivileged observer polling every file of the
 *    device's sysfs directories and the module's debugfs one while another
 *    process rolls a {1, 63} die one roll at a time reads nothing that
 *    moves;
 *  - memory: a user with 1024 open files holds no more alias tables than
 *    its budget (an eighth of RAM), whatever its processes, and another
 *    user's tables are not refused for it; the uids of its user namespace
 *    count as its own; charges come back on SET_DIE of
 *    a fair die and close; CAP_SYS_RESOURCE is exempt;
 *  - splice() and sendfile() from the device; poll() and epoll readiness,
 *    exact for written bits, with wake-ups, and without side effects;
 *  - the read contract at a fault: binary reads return whole rolls and
 *    drop the torn one, for every width; text keeps the rest of the line;
 *  - one file shared by threads and a forked child mixing every operation,
 *    with dup()/close() races and files closed while in use.
 *
 * The test VM runs the tests as root, so the unprivileged sides run in
 * forked children that drop to nobody (65534) with setresgid()/setresuid().
 * Children and threads never use ASSERT_*() (the harness longjmps): they
 * report the first failure, which the test checks.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements (the check, then a loop
 * that runs the optional TH_LOG() and bails out), so under if, else and for
 * they always go in braces.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"

#define NOBODY		65534
#define SOMEONE		65533	/* another unprivileged user */

#define MIB		(1024 * 1024ULL)

/* ---- helpers (beyond those of dice_common.h) ---------------------------- */

/*
 * become() - become @uid, in a forked child of the root test, with no
 * capability but, if @resource, CAP_SYS_RESOURCE
 */
static bool become(uid_t uid, bool resource)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { 0 };

	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    (resource && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
	    setresuid(uid, uid, uid) || geteuid() != uid)
		return false;
	if (!resource)
		return true;
	data[0].effective = 1U << CAP_SYS_RESOURCE;
	data[0].permitted = 1U << CAP_SYS_RESOURCE;
	return !syscall(SYS_capset, &hdr, data);
}

/* drop_privileges() - become nobody, in a forked child of the root test */
static bool drop_privileges(void)
{
	return become(NOBODY, false);
}

/* A forked child's verdict: a line on stderr, then exit status 1. */
static void __printf(1, 2) child_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# child %d: ", getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(1);
}

static bool write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t ret = write(fd, p, len);

		if (ret <= 0)
			return false;
		p += ret;
		len -= ret;
	}
	return true;
}

/*
 * written_die() - a die of @sides in @fmt whose bits are @len bytes written
 * from @bits (at most the 1016 a fresh pool takes at once)
 */
static int written_die(struct __test_metadata *_metadata, __u64 sides,
		       __u32 method, __u32 fmt, const void *bits, size_t len)
{
	int fd = open_die(_metadata, O_RDWR | O_NONBLOCK);

	if (fd < 0)
		return fd;
	set_format(_metadata, fd, DICE_FMT_TEXT);
	set_sides(_metadata, fd, sides);
	set_format(_metadata, fd, fmt);
	EXPECT_EQ(0, die_set_method(fd, method));
	EXPECT_EQ(0, set_u32(fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	if (len) {
		EXPECT_EQ((ssize_t)len, write(fd, bits, len))
			TH_LOG("write %zu: %s", len, strerror(errno));
	}
	return fd;
}

/* How long the floods run: DICE_HOSTILE_SECONDS, 4 by default. */
static double hostile_seconds(void)
{
	const char *s = getenv("DICE_HOSTILE_SECONDS");

	return s ? atof(s) : 4;
}

static void fill_bytes(__u64 seed, unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)splitmix(&seed);
}

/*
 * The harness gives a TEST() 30 s; the slow cases go in this fixture,
 * which only carries their own timeouts.
 */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(slow)
{
}

/* ---- SET_DIE: killable, interruptible, exact, all or nothing ------------- */

/*
 * GET_MASSES, which walked up to 2^64 masses into user memory, is gone;
 * what a user can make the device do at length now is SET_DIE of the
 * largest table: 2^20 sides, 12 MiB of alias table copied in and checked,
 * or 4 MiB of weights built into a table.  These cases hold it to what
 * the walk was held to: SIGKILL ends it at once, while a handled signal
 * does not (the work is bounded and cannot be resumed, so a periodic one
 * would restart it forever), the copy is exact at its step edges, and a
 * refusal (a fault part of the way, a kill, too many sides) changes
 * neither the die nor the tables' budget.
 */

/* The table_bytes counter of debugfs (root's); ~0 without debugfs. */
static __u64 table_bytes(void)
{
	__u64 v = counter_u64("table_bytes");
	int i;

	/* Again if a signal of the case cut the read short. */
	for (i = 0; v == ~0ULL && i < 3 && !access(DICE_DEBUGFS, F_OK); i++)
		v = counter_u64("table_bytes");
	return v;
}

/**
 * struct big_table - the largest tables: @w weights, @thr and @al an
 * alias table of mass @mass whose column c yields side c or side
 * (c + 1) % n, all of DICE_TABLE_SIDES_MAX sides
 */
struct big_table {
	__u32 *w;
	__u64 *thr;
	__u32 *al;
	__u64 mass;
};

static bool big_table_init(struct big_table *t)
{
	__u32 n = DICE_TABLE_SIDES_MAX, i;
	__u64 seed = 0xb16;

	t->w = malloc(n * sizeof(*t->w));
	t->thr = malloc(n * sizeof(*t->thr));
	t->al = malloc(n * sizeof(*t->al));
	t->mass = 1000;
	if (!t->w || !t->thr || !t->al)
		return false;
	for (i = 0; i < n; i++) {
		t->w[i] = 1 + splitmix(&seed) % 1000;
		t->thr[i] = splitmix(&seed) % (t->mass + 1);
		t->al[i] = (i + 1) % n;
	}
	return true;
}

static struct dice_die_args big_weights(const struct big_table *t, __u32 n)
{
	return (struct dice_die_args){
		.sides = n, .weights = (uintptr_t)t->w,
		.kind = DICE_KIND_WEIGHTS, .format = DICE_FMT_U32,
	};
}

static struct dice_die_args big_alias(const struct big_table *t, __u32 n)
{
	return (struct dice_die_args){
		.sides = n, .thresholds = (uintptr_t)t->thr,
		.aliases = (uintptr_t)t->al, .mass = t->mass,
		.kind = DICE_KIND_ALIAS, .format = DICE_FMT_U32,
	};
}

/* SET_DIE straight, no model: its errno. */
static int set_die_raw(int fd, const struct dice_die_args *a)
{
	struct dice_die_args arg = *a;

	return ioctl_errno(fd, DICE_IOC_SET_DIE, &arg);
}

static bool same_info(const struct dice_die_info *a,
		      const struct dice_die_info *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * As nobody, SET_DIE of the largest tables for ever, weights and alias
 * table in turn (@what 1), or asleep with the same memory (@what 0).
 * "r" on @ready after the first table is in.
 */
static pid_t set_die_child(int ready, int what)
{
	struct big_table t;
	struct dice_die_args w, a;
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	if (!big_table_init(&t) || !drop_privileges())
		child_fail("setup: %s", strerror(errno));
	fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	w = big_weights(&t, DICE_TABLE_SIDES_MAX);
	a = big_alias(&t, DICE_TABLE_SIDES_MAX);
	if (fd < 0 || set_die_raw(fd, &a))
		child_fail("the first table: %s", strerror(errno));
	if (write(ready, "r", 1) != 1)
		child_fail("ready: %s", strerror(errno));
	if (!what) {
		for (;;)
			pause();
	}
	for (;;) {
		int err = set_die_raw(fd, &w);

		if (!err)
			err = set_die_raw(fd, &a);
		if (err)
			child_fail("SET_DIE of 2^20 sides: %s", strerror(err));
	}
	return 0;
}

/* Kill @pid and reap it: the seconds that took. */
static double kill_and_reap(pid_t pid, int *status)
{
	double t0 = now();

	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return now() - t0;
}

/* One uninterrupted SET_DIE of @a on a new file: the seconds it took. */
static double set_die_timed(const struct dice_die_args *a)
{
	int fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	double t0 = now(), took;

	if (fd < 0 || set_die_raw(fd, a))
		took = -1;
	else
		took = now() - t0;
	if (fd >= 0)
		close(fd);
	return took;
}

/*
 * A user setting tables of 2^20 sides without pause is killed mid-call:
 * most kills are reaped well before the call would have ended (the median
 * of five within a quarter of one uninterrupted SET_DIE of such a table,
 * plus what reaping costs anyway; a call that could not stop would leave
 * half a call on average), and none waits for a whole call (the worst
 * stays below one call plus that cost: the memory the call is allocating
 * or freeing when the kill lands is not interruptible, and TCG makes that
 * slow).  Bounds relative to the call, measured in the same guest and in
 * turns with the kills (a whole call, the cost of reaping, a kill, five
 * times), so that a slow guest (the debug kernel on a host busy with
 * another tier: median 127 ms, one call 805 ms) is judged by what it is
 * at the time.  Its tables go back to the budget.
 */
TEST_F_TIMEOUT(slow, set_die_sigkill_mid_call, 300)
{
	double base[5], took[5], whole[5];
	int ready[2], status, i;
	__u64 held0 = table_bytes();
	struct dice_die_args w;
	struct big_table t;
	pid_t pid;
	char c;

	if (access(DICE_PATH, F_OK))
		SKIP(return, "%s is absent", DICE_PATH);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_TRUE(big_table_init(&t));
	w = big_weights(&t, DICE_TABLE_SIDES_MAX);

	for (i = 0; i < 5; i++) {
		whole[i] = set_die_timed(&w);
		ASSERT_LE(0, whole[i]);

		/* What killing a process with such tables costs anyway. */
		pid = set_die_child(ready[1], 0);
		ASSERT_LT(0, pid);
		ASSERT_EQ(1, read(ready[0], &c, 1));
		base[i] = kill_and_reap(pid, &status);

		/* Varied delays, so that the kills land in varied places. */
		pid = set_die_child(ready[1], 1);
		ASSERT_LT(0, pid);
		ASSERT_EQ(1, read(ready[0], &c, 1))
			TH_LOG("no table of 2^20 sides");
		usleep(100000 + 37000 * i);
		/* Still setting tables. */
		ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
		took[i] = kill_and_reap(pid, &status);
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("status %#x", status);
		TH_LOG("round %d: one whole SET_DIE %.1f ms, %.1f ms to reap asleep, %.1f ms to reap killed mid-call",
		       i, whole[i] * 1e3, base[i] * 1e3, took[i] * 1e3);
		if (held0 != ~0ULL) {
			EXPECT_EQ(held0, table_bytes())
				TH_LOG("the killed user's tables are still charged");
		}
	}
	qsort(took, 5, sizeof(took[0]), cmp_double);
	qsort(base, 5, sizeof(base[0]), cmp_double);
	qsort(whole, 5, sizeof(whole[0]), cmp_double);
	TH_LOG("SIGKILL to reaped in SET_DIE: median %.1f ms, worst %.1f ms; asleep with the same tables: median %.1f ms, worst %.1f ms; one whole SET_DIE: median %.1f ms, longest %.1f ms",
	       took[2] * 1e3, took[4] * 1e3, base[2] * 1e3, base[4] * 1e3,
	       whole[2] * 1e3, whole[4] * 1e3);
	EXPECT_GT(whole[2] / 4 + base[2], took[2]);
	EXPECT_GT(whole[4] + base[4], took[4]);
	free(t.w);
	free(t.thr);
	free(t.al);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * Handled signals every millisecond, under SA_RESTART as a profiler's
 * SIGPROF comes: SET_DIE of 2^20 sides still completes, every call (a
 * build that any handled signal stopped would be restarted from scratch
 * forever), and sets its die; only a fatal signal stops one (the case
 * above).  Signals did arrive while the calls ran.
 */
TEST_F_TIMEOUT(slow, set_die_under_periodic_signals, 300)
{
	int fd = open_die(_metadata, O_RDWR);
	pid_t pid;

	REQUIRE_DIE(fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct sigaction sa = {
			.sa_handler = on_alarm,
			.sa_flags = SA_RESTART,
		};
		struct itimerval t = {
			.it_value = { .tv_usec = 1000 },
			.it_interval = { .tv_usec = 1000 },
		};
		struct itimerval off = { 0 };
		struct dice_die_args args;
		struct dice_die_info after;
		struct big_table tb;
		unsigned int calls, during = 0;
		sig_atomic_t before;
		double t0 = now();
		unsigned char rolls[64];
		int err;

		if (!big_table_init(&tb))
			child_fail("no memory");
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGALRM, &sa, NULL) ||
		    setitimer(ITIMER_REAL, &t, NULL))
			child_fail("timer: %s", strerror(errno));
		for (calls = 0; calls < 8; calls++) {
			/* Weights of 2^20 - 1 sides or alias of 2^20. */
			args = calls & 1 ?
			       big_weights(&tb, DICE_TABLE_SIDES_MAX - 1) :
			       big_alias(&tb, DICE_TABLE_SIDES_MAX);
			before = alarms;
			err = set_die_raw(fd, &args);
			if (err)
				child_fail("call %u: SET_DIE: %s", calls,
					   strerror(err));
			during += alarms - before;
			err = ioctl_errno(fd, DICE_IOC_GET_DIE, &after);
			if (err)
				child_fail("GET_DIE: %s", strerror(err));
			if (after.sides != args.sides ||
			    after.kind != DICE_KIND_LOADED ||
			    after.format != DICE_FMT_U32)
				child_fail("call %u: the die set has %llu sides",
					   calls, after.sides);
		}
		setitimer(ITIMER_REAL, &off, NULL);
		fprintf(stderr, "# %u calls in %.1f s, %u signals handled during them\n",
			calls, now() - t0, during);
		if (!during)
			child_fail("no signal came during a SET_DIE");
		/* The die goes on. */
		if (read(fd, rolls, sizeof(rolls)) != sizeof(rolls))
			child_fail("read after: %s", strerror(errno));
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	close(fd);
}

/* @n __u32 or __u64 (@size) ending right at an unmapped page. */
static void *at_guard(size_t n, size_t size, void **map, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes = (n * size + page - 1) / page * page;
	char *mem = mmap(NULL, bytes + page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	if (mprotect(mem + bytes, page, PROT_NONE))
		return NULL;
	*map = mem;
	*len = bytes + page;
	return mem + bytes - n * size;
}

/*
 * The tables come in in 1 MiB steps (262144 weights, 131072 thresholds,
 * 262144 aliases): around those edges, at the first side and the last,
 * every entry is read, and nothing past the last side (the arrays end at
 * an unmapped page).  Weights all 0 but one: every roll is that side.  An
 * alias table with one threshold above the mass, or one alias out of
 * range, at such a side: EINVAL, the die unchanged.
 */
TEST_F_TIMEOUT(slow, set_die_step_edges, 300)
{
	static const __u32 sizes[] = { 1, 4097, 131073, 262145,
				       DICE_TABLE_SIDES_MAX };
	static const __u32 edges[] = { 0, 4095, 4096, 131071, 131072,
				       262143, 262144, 524288, ~0U };
	int fd = open_die(_metadata, O_RDONLY);
	struct dice_die_info info;
	unsigned int k, e, i;
	void *m1, *m2, *m3;
	size_t l1, l2, l3;

	REQUIRE_DIE(fd);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		__u32 n = sizes[k];
		__u32 *w = at_guard(n, sizeof(*w), &m1, &l1);
		__u64 *thr = at_guard(n, sizeof(*thr), &m2, &l2);
		__u32 *al = at_guard(n, sizeof(*al), &m3, &l3);
		struct dice_die_args a;
		__u32 rolls[16];

		ASSERT_TRUE(w && thr && al);
		for (e = 0; e < ARRAY_SIZE(edges); e++) {
			__u32 j = edges[e] == ~0U ? n - 1 : edges[e];

			if (j >= n)
				continue;
			memset(w, 0, n * sizeof(*w));
			w[j] = 1;
			a = (struct dice_die_args){
				.sides = n, .weights = (uintptr_t)w,
				.kind = DICE_KIND_WEIGHTS,
				.format = DICE_FMT_U32 | DICE_FMT_ZERO_BASED,
			};
			ASSERT_EQ(0, set_die(fd, &a)) TH_LOG("%u sides", n);
			ASSERT_TRUE(read_full(fd, rolls, sizeof(rolls)));
			for (i = 0; i < ARRAY_SIZE(rolls); i++) {
				ASSERT_EQ(j, rolls[i])
					TH_LOG("%u sides, weight at %u", n, j);
			}
			/* Valid but for one column, at the same side. */
			for (i = 0; i < n; i++) {
				thr[i] = 7;
				al[i] = n - 1 - i;
			}
			thr[j] = 11;
			a = (struct dice_die_args){
				.sides = n, .thresholds = (uintptr_t)thr,
				.aliases = (uintptr_t)al, .mass = 10,
				.kind = DICE_KIND_ALIAS, .format = DICE_FMT_U32,
			};
			EXPECT_EQ(EINVAL, set_die(fd, &a))
				TH_LOG("%u sides, threshold 11 of 10 at %u", n, j);
			thr[j] = 10;
			al[j] = n;
			EXPECT_EQ(EINVAL, set_die(fd, &a))
				TH_LOG("%u sides, alias %u at %u", n, n, j);
			al[j] = 0;
			get_info(_metadata, fd, &info);
			EXPECT_EQ(n, info.sides);
			EXPECT_EQ(DICE_FMT_U32 | DICE_FMT_ZERO_BASED, info.format);
			ASSERT_TRUE(read_full(fd, rolls, 4));
			EXPECT_EQ(j, rolls[0]) TH_LOG("the die changed");
		}
		/* And the whole valid table, read to its last byte. */
		EXPECT_EQ(0, set_die(fd, &a)) TH_LOG("%u sides", n);
		munmap(m1, l1);
		munmap(m2, l2);
		munmap(m3, l3);
	}
	close(fd);
}

/*
 * A table that faults part of the way in: EFAULT, and nothing changed.
 * Two files fed the same bits roll the same die, half a roll read; the
 * first gets SET_DIE of each table below, each with room for only part
 * of its sides before an unmapped page; GET_DIE, GET_STATS and the rolls
 * read after must be the twin's, and the budget must hold what it held.
 */
TEST(set_die_fault_mid_way)
{
	static const __u32 w7[7] = { 5, 1, 3, 1, 1, 2, 6 };
	static const struct {
		__u32 sides, room;	/* entries before the unmapped page */
		int what;		/* 0 weights, 1 thresholds, 2 aliases */
	} cases[] = {
		{ 130, 100, 0 }, { 130, 100, 1 }, { 130, 100, 2 },
		{ 130, 0, 0 }, { 130, 0, 1 },
		{ DICE_TABLE_SIDES_MAX, 3 * 262144 + 1, 0 },
		{ DICE_TABLE_SIDES_MAX, 6 * 131072 + 1, 1 },
		{ DICE_TABLE_SIDES_MAX, DICE_TABLE_SIDES_MAX - 1, 2 },
	};
	unsigned char bits[1016], ra[600], rb[600];
	struct dice_die_stats sa, sb;
	struct dice_die_info ia, ib;
	struct dice_die_args die = {
		.sides = 7, .weights = (uintptr_t)w7,
		.kind = DICE_KIND_WEIGHTS, .format = DICE_FMT_TEXT,
	};
	static __u32 al130[130];
	struct big_table t;
	unsigned int c;
	ssize_t na, nb;
	__u64 held;
	int a, b;

	a = written_die(_metadata, 6, DICE_METHOD_RECYCLE, DICE_FMT_TEXT,
			NULL, 0);
	REQUIRE_DIE(a);
	b = written_die(_metadata, 6, DICE_METHOD_RECYCLE, DICE_FMT_TEXT,
			NULL, 0);
	ASSERT_LE(0, b);
	ASSERT_TRUE(big_table_init(&t));
	/* Tables valid but for the fault: aliases below 130 for 130 sides. */
	for (c = 0; c < 130; c++)
		al130[c] = (c + 1) % 130;
	fill_bytes(0xfa, bits, sizeof(bits));
	ASSERT_EQ(0, set_die(a, &die));
	ASSERT_EQ(0, set_die(b, &die));
	ASSERT_EQ(sizeof(bits), write(a, bits, sizeof(bits)));
	ASSERT_EQ(sizeof(bits), write(b, bits, sizeof(bits)));
	ASSERT_EQ(1, read(a, ra, 1));	/* a face, its newline waiting */
	ASSERT_EQ(1, read(b, rb, 1));
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		__u32 n = cases[c].sides, room = cases[c].room;
		size_t size = cases[c].what == 1 ? 8 : 4;
		void *map;
		size_t len;
		char *edge = at_guard(room ? room : 1, size, &map, &len);
		struct dice_die_args bad;

		ASSERT_NE(NULL, edge);
		edge += (room ? 0 : size);	/* room 0: the page itself */
		/* The entries before the page are valid ones. */
		if (room)
			memcpy(edge, cases[c].what == 0 ? (void *)t.w :
			       cases[c].what == 1 ? (void *)t.thr :
			       n == 130 ? (void *)al130 : (void *)t.al,
			       room * size);
		bad = cases[c].what ? big_alias(&t, n) : big_weights(&t, n);
		bad.format = DICE_FMT_TEXT;
		if (cases[c].what && n == 130)
			bad.aliases = (uintptr_t)al130;
		if (cases[c].what == 0)
			bad.weights = (uintptr_t)edge;
		else if (cases[c].what == 1)
			bad.thresholds = (uintptr_t)edge;
		else
			bad.aliases = (uintptr_t)edge;
		held = table_bytes();
		EXPECT_EQ(EFAULT, set_die_raw(a, &bad))
			TH_LOG("case %u: %u sides, room for %u", c, n, room);
		EXPECT_EQ(held, table_bytes())
			TH_LOG("case %u: the refused table is still charged", c);
		munmap(map, len);
		get_info(_metadata, a, &ia);
		get_info(_metadata, b, &ib);
		EXPECT_TRUE(same_info(&ia, &ib))
			TH_LOG("case %u: the die went to %llu sides", c, ia.sides);
		get_stats(_metadata, a, &sa);
		get_stats(_metadata, b, &sb);
		EXPECT_EQ(0, memcmp(&sa, &sb, sizeof(sa)))
			TH_LOG("case %u: the stats changed", c);
	}
	na = read(a, ra, sizeof(ra));
	nb = read(b, rb, sizeof(rb));
	ASSERT_LT(500, na) TH_LOG("read: %s", strerror(errno));
	ASSERT_EQ(na, nb);
	EXPECT_EQ(0, memcmp(ra, rb, na))
		TH_LOG("the rolls after the faults are not the twin's");
	EXPECT_EQ('\n', ra[0]) TH_LOG("the rest of the line was dropped");
	close(a);
	close(b);
}

/*
 * More sides than a table may have: E2BIG, whatever the pointers point
 * to (here valid tables of the sides' low 32 bits, so that a kernel that
 * truncated the sides would take them), at no cost to the budget.
 */
TEST(set_die_e2big)
{
	static const __u64 sides[] = { DICE_TABLE_SIDES_MAX + 1ULL,
				       (1ULL << 32) + 5, (1ULL << 32) + 1,
				       (1ULL << 63) + 5, DICE_MAX_FAIR_SIDES };
	int fd = open_die(_metadata, O_RDONLY);
	struct dice_die_info before, after;
	struct big_table t;
	unsigned int i, k;
	__u64 held;

	REQUIRE_DIE(fd);
	ASSERT_TRUE(big_table_init(&t));
	set_sides(_metadata, fd, 20);
	set_format(_metadata, fd, DICE_FMT_U64);
	get_info(_metadata, fd, &before);
	held = table_bytes();
	for (i = 0; i < ARRAY_SIZE(sides); i++)
		for (k = 0; k < 2; k++) {
			struct dice_die_args a = k ? big_alias(&t, 5) :
						     big_weights(&t, 5);

			a.sides = sides[i];
			a.format = DICE_FMT_U64;
			EXPECT_EQ(E2BIG, set_die_raw(fd, &a))
				TH_LOG("%s of %llu sides", k ? "alias" : "weights",
				       sides[i]);
		}
	EXPECT_EQ(held, table_bytes());
	get_info(_metadata, fd, &after);
	EXPECT_TRUE(same_info(&before, &after));
	close(fd);
}

/*
 * A flood of GET_DIE and GET_STATS from an unprivileged process's threads
 * on a file root shares with it, while root switches the die between two
 * and reads: every GET_DIE reports one of the two whole (never parts of
 * both), every GET_STATS is consistent and no count goes back, every roll
 * is a face of one of them, and root's changes go through.
 *
 * A GET_DIE made while no change was under way reports the die of the
 * last change, never an older one.
 *
 * How many calls the flood makes depends on the guest's speed (a GET_DIE
 * waits for root's SET_DIE), so what must hold is that it raced: root goes
 * on changing the die until each flooding thread has seen it change
 * FLOOD_SWITCHES times (window_done()), for up to FLOOD_MAX_SECONDS from
 * the start.
 */
#define FLOOD_THREADS		4
#define FLOOD_SWITCHES		5
#define FLOOD_MAX_SECONDS	60

/* Shared between root and the flooding child, in a MAP_SHARED page. */
struct flood_seen {
	atomic_ulong seq;	/* twice root's changes; odd during one */
	atomic_ulong switches[FLOOD_THREADS];	/* changes each thread saw */
	atomic_int stop;	/* root has stopped changing the die */
	atomic_int failed;	/* the flood found a fault: root stops */
};

struct flood {
	int fd;
	pid_t root;		/* the flood stops if root is gone */
	struct flood_seen *seen;
	double deadline;	/* or if root never says stop */
	atomic_int threads;
	atomic_ulong calls;
	struct failures f;
};

static const __u32 flood_w[5] = { 1, 2, 3, 4, 5 };

static bool flood_die(const struct dice_die_info *in)
{
	if (in->padding)
		return false;
	if (in->sides == 1000000)
		return in->kind == DICE_KIND_FAIR &&
		       in->method == DICE_METHOD_VIGLIETTA &&
		       in->format == DICE_FMT_U32;
	return in->sides == 5 && in->kind == DICE_KIND_LOADED &&
	       in->method == DICE_METHOD_ALIAS &&
	       in->format == (DICE_FMT_U32 | DICE_FMT_ZERO_BASED);
}

static void *flooder(void *arg)
{
	struct flood *fl = arg;
	struct flood_seen *seen = fl->seen;
	int me = atomic_fetch_add(&fl->threads, 1);
	struct dice_die_stats st, last = { 0 };
	struct dice_die_info in;
	__u64 last_sides = 0, s0, s1;
	int err;

	while (!atomic_load(&seen->stop) && !atomic_load(&seen->failed) &&
	       getppid() == fl->root && now() < fl->deadline) {
		s0 = atomic_load(&seen->seq);
		err = ioctl_errno(fl->fd, DICE_IOC_GET_DIE, &in);
		s1 = atomic_load(&seen->seq);
		if (err || !flood_die(&in)) {
			failed(&fl->f, "GET_DIE: %s, d%llu kind %u method %u format %#x",
			       strerror(err), in.sides, in.kind, in.method,
			       in.format);
			break;
		}
		/* Change k (from 1) sets the loaded die when k is odd. */
		if (s0 == s1 && !(s0 & 1) &&
		    in.sides != ((s0 / 2) & 1 ? 5 : 1000000)) {
			failed(&fl->f, "GET_DIE: d%llu after %llu changes",
			       in.sides, (unsigned long long)s0 / 2);
			break;
		}
		if (last_sides && in.sides != last_sides)
			atomic_fetch_add(&seen->switches[me], 1);
		last_sides = in.sides;
		err = ioctl_errno(fl->fd, DICE_IOC_GET_STATS, &st);
		if (err || st.bits_used + st.bits_discarded > st.bits_drawn ||
		    st.coin_bits > st.bits_used || st.rolls < last.rolls ||
		    st.bits_used < last.bits_used ||
		    st.bits_drawn < last.bits_drawn ||
		    st.bits_discarded < last.bits_discarded ||
		    st.coin_bits < last.coin_bits) {
			failed(&fl->f, "GET_STATS: %s, or a count went back",
			       strerror(err));
			break;
		}
		last = st;
		atomic_fetch_add(&fl->calls, 2);
	}
	if (fl->f.count)
		atomic_store(&seen->failed, 1);
	return NULL;
}

static unsigned long flood_least_seen(struct flood_seen *seen)
{
	unsigned long least = ULONG_MAX, n;
	int k;

	for (k = 0; k < FLOOD_THREADS; k++) {
		n = atomic_load(&seen->switches[k]);
		if (n < least)
			least = n;
	}
	return least;
}

TEST_F_TIMEOUT(slow, get_die_stats_flood, 300)
{
	struct dice_die_args fair_die = {
		.sides = 1000000, .kind = DICE_KIND_FAIR,
		.method = DICE_METHOD_VIGLIETTA, .format = DICE_FMT_U32,
	};
	struct dice_die_args loaded = {
		.sides = 5, .weights = (uintptr_t)flood_w,
		.kind = DICE_KIND_WEIGHTS, .method = DICE_METHOD_ALIAS,
		.format = DICE_FMT_U32 | DICE_FMT_ZERO_BASED,
	};
	struct flood fl = { 0 };
	unsigned long changes = 0, rolls = 0, least;
	double slowest = 0, t0, start, end;
	__u32 buf[64];
	ssize_t n, i;
	pid_t pid;

	fl.fd = open_die(_metadata, O_RDONLY);
	REQUIRE_DIE(fl.fd);
	ASSERT_EQ(0, set_die(fl.fd, &fair_die));
	pthread_mutex_init(&fl.f.lock, NULL);
	fl.seen = mmap(NULL, sizeof(*fl.seen), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fl.seen);
	fl.root = getpid();
	start = now();
	end = start + hostile_seconds();
	fl.deadline = (end > start + FLOOD_MAX_SECONDS ? end :
		       start + FLOOD_MAX_SECONDS) + 10;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pthread_t tid[FLOOD_THREADS];
		int k;

		if (!drop_privileges()) {
			atomic_store(&fl.seen->failed, 1);
			child_fail("dropping privileges: %s", strerror(errno));
		}
		for (k = 0; k < FLOOD_THREADS; k++)
			if (pthread_create(&tid[k], NULL, flooder, &fl)) {
				atomic_store(&fl.seen->failed, 1);
				child_fail("threads");
			}
		for (k = 0; k < FLOOD_THREADS; k++)
			pthread_join(tid[k], NULL);
		fprintf(stderr, "# the flood: %lu calls\n",
			(unsigned long)fl.calls);
		if (fl.f.count)
			child_fail("%lu failures, the first: %s", fl.f.count,
				   fl.f.first);
		_exit(0);
	}
	while (!atomic_load(&fl.seen->failed) &&
	       !window_done(end, start + FLOOD_MAX_SECONDS, fl.seen->switches,
			    FLOOD_THREADS, FLOOD_SWITCHES)) {
		t0 = now();
		atomic_fetch_add(&fl.seen->seq, 1);
		ASSERT_EQ(0, set_die_raw(fl.fd, changes & 1 ? &fair_die : &loaded));
		atomic_fetch_add(&fl.seen->seq, 1);
		if (now() - t0 > slowest)
			slowest = now() - t0;
		changes++;	/* odd: the loaded die is in */
		/* Only root changes the die: it is the one just set. */
		n = read(fl.fd, buf, sizeof(buf));
		ASSERT_EQ(sizeof(buf), n) TH_LOG("read: %s", strerror(errno));
		for (i = 0; i < n / 4; i++) {
			if (changes & 1) {
				ASSERT_GT(5, buf[i]) TH_LOG("roll %zd: %u", i, buf[i]);
			} else {
				ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 1000000)
					TH_LOG("roll %zd: %u", i, buf[i]);
			}
		}
		rolls += n / 4;
	}
	atomic_store(&fl.seen->stop, 1);
	EXPECT_EQ(0, wait_child(pid))
		TH_LOG("the flood saw a torn, stale or inconsistent die");
	least = flood_least_seen(fl.seen);
	TH_LOG("%lu changes of die under the flood in %.1f s, the slowest %.1f ms; %lu rolls; each flooding thread saw %lu or more",
	       changes, now() - start, slowest * 1e3, rolls, least);
	EXPECT_LE(FLOOD_SWITCHES, least)
		TH_LOG("the flood did not race root's changes");
	munmap(fl.seen, sizeof(*fl.seen));
	close(fl.fd);
}

/* ---- counters: what an observer sees ---------------------------------------- */

/* The device's own sysfs directory: the misc device's, no counter of ours. */
#define DICE_SYSFS	"/sys/class/misc/dice"

static mode_t counter_mode(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), DICE_DEBUGFS "/%s", name);
	if (stat(path, &st))
		return 0;
	return st.st_mode & 07777;
}

/*
 * The module's counters are root's, in debugfs; the device's sysfs
 * directory has none of them (no sysfs ABI), and no module parameter.
 */
TEST(counters_modes)
{
	static const char *const counters[] = {
		"rolls", "bits_used", "bits_drawn", "table_bytes", "open_dice",
		"table_limit",
	};
	char path[128];
	unsigned int i;

	if (access(DICE_PATH, F_OK))
		SKIP(return, "%s is absent", DICE_PATH);
	if (access(DICE_DEBUGFS, F_OK))
		SKIP(return, "no %s (debugfs not mounted, or not root)",
		     DICE_DEBUGFS);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		EXPECT_EQ(0400, counter_mode(counters[i]))
			TH_LOG("%s is %#o", counters[i],
			       counter_mode(counters[i]));
		snprintf(path, sizeof(path), DICE_SYSFS "/%s", counters[i]);
		EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s exists", path);
	}
	EXPECT_NE(0, access(MODULE_SYSFS "/parameters", F_OK));
}

#define OBS_FILES	64
#define OBS_ROLLS	2000

/**
 * struct observed - what the unprivileged observer saw of one file
 * @name: path
 * @first: contents at the first poll, if readable
 * @readable: polls that read it
 * @refused: polls refused with EACCES
 * @changed: polls that read something other than @first
 */
struct observed {
	char name[320];
	char first[64];
	unsigned int readable;
	unsigned int refused;
	unsigned int changed;
};

/* Every regular file of @dir (and of @dir/@sub) an observer may try. */
static unsigned int list_files(struct observed *o, unsigned int n,
			       const char *dir)
{
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return n;
	while ((e = readdir(d)) && n < OBS_FILES) {
		snprintf(o[n].name, sizeof(o[n].name), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || lstat(o[n].name, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		memset(o[n].first, 0, sizeof(o[n].first));
		o[n].readable = o[n].refused = o[n].changed = 0;
		n++;
	}
	closedir(d);
	return n;
}

static void observe(struct observed *o, bool first)
{
	char buf[64] = { 0 };
	int fd = open(o->name, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0) {
		if (errno == EACCES)
			o->refused++;
		return;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0) {
		if (errno == EACCES)
			o->refused++;
		return;
	}
	o->readable++;
	if (first)
		memcpy(o->first, buf, sizeof(buf));
	else if (memcmp(o->first, buf, sizeof(buf)))
		o->changed++;
}

/*
 * The side channel: under recycling, bits_used follows the self-information
 * of the faces served, so polling it while another user rolls a {1, 63}
 * die one roll at a time counts that user's 1s (6 bits each; a 2 costs
 * 0.02).  An unprivileged observer polls every file of the device's sysfs
 * directories and of the module's debugfs one after every roll: the
 * counters refuse it, and nothing it can read moves.  Root, for comparison, sees bits_used
 * move.
 */
TEST_F_TIMEOUT(slow, observer_learns_nothing, 300)
{
	static const __u32 loaded[2] = { 1, 63 };
	int fd = open_die(_metadata, O_RDONLY), go[2], back[2], res[2];
	struct observed *o;
	unsigned int n = 0, i, k, ones = 0, moves = 0, moves_after_one = 0;
	__u64 used, last;
	unsigned char face;
	pid_t pid;
	char c;

	REQUIRE_DIE(fd);
	ASSERT_EQ(0, set_weights(fd, loaded, 2));
	set_format(_metadata, fd, DICE_FMT_U8);
	o = calloc(OBS_FILES, sizeof(*o));
	ASSERT_NE(NULL, o);
	n = list_files(o, n, DICE_SYSFS);
	n = list_files(o, n, MODULE_SYSFS);
	n = list_files(o, n, DICE_DEBUGFS);
	ASSERT_LT(4, n);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (!drop_privileges())
			child_fail("dropping privileges: %s", strerror(errno));
		for (k = 0; k <= OBS_ROLLS; k++) {
			if (read(go[0], &c, 1) != 1)
				child_fail("go: %s", strerror(errno));
			for (i = 0; i < n; i++)
				observe(&o[i], !k);
			if (write(back[1], "o", 1) != 1)
				child_fail("back: %s", strerror(errno));
		}
		if (!write_full(res[1], o, n * sizeof(*o)))
			child_fail("result: %s", strerror(errno));
		_exit(0);
	}

	last = counter_u64("bits_used");
	for (k = 0; k <= OBS_ROLLS; k++) {
		if (k) {
			ASSERT_EQ(1, read(fd, &face, 1));
			used = counter_u64("bits_used");
			ones += face == 1;
			moves += used != last;
			moves_after_one += face == 1 && used != last;
			last = used;
		}
		ASSERT_EQ(1, write(go[1], "g", 1));
		ASSERT_EQ(1, read(back[0], &c, 1));
	}
	ASSERT_TRUE(read_full(res[0], o, n * sizeof(*o)));
	ASSERT_EQ(0, wait_child(pid));
	TH_LOG("%u rolls, %u ones; root saw bits_used move after %u rolls, %u of them ones",
	       OBS_ROLLS, ones, moves, moves_after_one);
	for (i = 0; i < n; i++) {
		bool counter = !strncmp(o[i].name, DICE_DEBUGFS,
					strlen(DICE_DEBUGFS));

		TH_LOG("%-40s read %u, refused %u, changed %u", o[i].name,
		       o[i].readable, o[i].refused, o[i].changed);
		if (counter) {
			EXPECT_EQ(0, o[i].readable);
			EXPECT_EQ(OBS_ROLLS + 1, o[i].refused);
		}
		EXPECT_EQ(0, o[i].changed) TH_LOG("%s moved", o[i].name);
	}
	/* The observer did read something: the module's refcnt, at least. */
	for (i = 0; i < n; i++)
		if (!strcmp(o[i].name, MODULE_SYSFS "/refcnt"))
			break;
	ASSERT_GT(n, i);
	EXPECT_EQ(OBS_ROLLS + 1, o[i].readable);
	EXPECT_LT(0, moves);
	free(o);
	close(fd);
}

/* ---- memory: the table budget of a user ------------------------------------- */

#define USER_FILES	1024

/* Weights near 2^32: a table that does not pack, 28 bytes a side. */
static __u32 *heavy_weights(__u32 n)
{
	__u32 *w = malloc((size_t)n * sizeof(*w)), i;

	if (w)
		for (i = 0; i < n; i++)
			w[i] = 0xffffffffU - i % 7;
	return w;
}

/**
 * struct fill_report - what an unprivileged child made of USER_FILES files
 * @opened: files opened
 * @tables: tables installed, of any size
 * @refused: SET_DIE of weights refused with ENOMEM
 * @sides: sides of all tables installed
 * @sibling: errno of a table asked for by another process of the user
 */
struct fill_report {
	unsigned int opened;
	unsigned int tables;
	unsigned int refused;
	__u64 sides;
	int sibling;
};

/*
 * In a child, as nobody: open USER_FILES files, tell the parent, wait for
 * it; install in each the largest table the budget lets through, halving
 * from DICE_TABLE_SIDES_MAX down to 1024 sides on ENOMEM; then ask for one more in a
 * forked sibling (same user, another process); report, wait for the
 * parent, exit (closing everything).
 */
static void fill_child(int to_parent, int from_parent, __u32 n)
{
	struct fill_report r = { 0 };
	struct rlimit rl = { USER_FILES + 64, USER_FILES + 64 };
	static int fds[USER_FILES];
	__u32 *w = heavy_weights(n), s;
	unsigned int f;
	pid_t sib;
	char c;
	int err;

	if (!w || setrlimit(RLIMIT_NOFILE, &rl) || !drop_privileges())
		child_fail("setup: %s", strerror(errno));
	for (r.opened = 0; r.opened < USER_FILES; r.opened++) {
		fds[r.opened] = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fds[r.opened] < 0)
			child_fail("open %u: %s", r.opened, strerror(errno));
	}
	if (write(to_parent, "o", 1) != 1 || read(from_parent, &c, 1) != 1)
		child_fail("sync: %s", strerror(errno));
	for (f = 0; f < USER_FILES; f++) {
		for (s = n; s >= 1024; s /= 2) {
			err = set_weights(fds[f], w, s);
			if (!err) {
				r.tables++;
				r.sides += s;
				break;
			}
			if (err != ENOMEM)
				child_fail("SET_DIE of %u weights: %s", s, strerror(err));
			r.refused++;
		}
	}
	sib = fork();
	if (!sib) {
		int fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);

		_exit(fd < 0 ? 255 : set_weights(fd, w, 1024));
	}
	r.sibling = sib < 0 ? -1 : wait_child(sib);
	if (!write_full(to_parent, &r, sizeof(r)) ||
	    read(from_parent, &c, 1) != 1)
		child_fail("report: %s", strerror(errno));
	_exit(0);
}

/*
 * A user with 1024 open files (and a second process) holds no more tables
 * than the tables' budget (table_limit, an eighth of RAM): the module's own
 * count (table_bytes), vmalloc and MemAvailable agree.  Without a budget
 * the same user took 1.8 GiB.
 */
TEST_F_TIMEOUT(slow, user_budget_1024_files, 600)
{
	long long vm0, vm1, vm2, av0, av1, av2, sl0, sl1, slo;
	__u64 budget_kib, tb0, tb1, tb2;
	int fd = open_die(_metadata, O_RDONLY), up[2], down[2];
	struct fill_report r;
	__u32 n = table_sides();
	pid_t pid;
	char c;

	REQUIRE_DIE(fd);
	close(fd);
	budget_kib = counter_u64("table_limit") >> 10;
	ASSERT_LT(0, budget_kib);
	ASSERT_LE(1024, n);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	tb0 = counter_u64("table_bytes");
	vm0 = meminfo("VmallocUsed");
	av0 = meminfo("MemAvailable");
	sl0 = meminfo("Slab");
	ASSERT_TRUE(vm0 >= 0 && av0 >= 0 && sl0 >= 0);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		fill_child(up[1], down[0], n);
	ASSERT_EQ(1, read(up[0], &c, 1)) TH_LOG("the child did not open its files");
	slo = meminfo("Slab");
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_TRUE(read_full(up[0], &r, sizeof(r))) TH_LOG("no report");

	tb1 = counter_u64("table_bytes");
	vm1 = meminfo("VmallocUsed");
	av1 = meminfo("MemAvailable");
	sl1 = meminfo("Slab");
	TH_LOG("budget %llu KiB; %u files, %u tables (%llu sides), %u refused",
	       budget_kib, r.opened, r.tables, r.sides, r.refused);
	TH_LOG("1024 open files: Slab +%lld KiB (%.1f KiB a file)",
	       slo - sl0, (slo - sl0) / 1024.0);
	TH_LOG("with tables: table_bytes +%llu KiB, VmallocUsed +%lld KiB, MemAvailable -%lld KiB, Slab +%lld KiB",
	       (tb1 - tb0) >> 10, vm1 - vm0, av0 - av1, sl1 - sl0);
	EXPECT_EQ(USER_FILES, r.opened);
	EXPECT_LT(0, r.tables);
	EXPECT_LT(0, r.refused);
	EXPECT_EQ(ENOMEM, r.sibling) TH_LOG("a sibling got %d", r.sibling);
	/* The module's count, then what the kernel sees, with slack. */
	EXPECT_GE(budget_kib << 10, tb1 - tb0);
	EXPECT_GE((long long)budget_kib + 4096, vm1 - vm0);
	EXPECT_GE((long long)budget_kib + USER_FILES * 8 + 32 * 1024,
		  av0 - av1);
	/* 4 KiB a file and the VFS's own; debug kernels (KASAN) take more. */
	EXPECT_GE(USER_FILES * 32LL, slo - sl0);

	ASSERT_EQ(1, write(down[1], "x", 1));
	ASSERT_EQ(0, wait_child(pid));
	tb2 = counter_u64("table_bytes");
	vm2 = meminfo("VmallocUsed");
	av2 = meminfo("MemAvailable");
	TH_LOG("after exit: table_bytes %+lld, VmallocUsed %+lld KiB, MemAvailable %+lld KiB",
	       (long long)(tb2 - tb0), vm2 - vm0, av2 - av0);
	EXPECT_EQ(tb0, tb2);
	EXPECT_GE(vm0 + 1024, vm2);
}

/*
 * Fill the tables' budget as nobody: tables of 2^20 heavy weights (28 MiB
 * held each, more while built) in fresh files until ENOMEM.  Returns the
 * files' count (at least one table fits an eighth of any test machine), or
 * -1 with @why set.
 */
static int fill_budget(int *fds, int max, const __u32 *w, const char **why)
{
	int n, err;

	for (n = 0; n < max; n++) {
		fds[n] = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fds[n] < 0) {
			*why = "open";
			return -1;
		}
		err = set_weights(fds[n], w, DICE_TABLE_SIDES_MAX);
		if (err == ENOMEM)
			return n;
		if (err) {
			*why = "SET_DIE of weights";
			return -1;
		}
	}
	*why = "the budget never filled";
	return -1;
}

#define BUDGET_FILES	64

/*
 * The budget is given back: once nobody's tables fill it, a fair die on two
 * of its files makes room for a table in the file that was refused, and
 * closing every file gives all of it back.
 */
TEST_F_TIMEOUT(slow, budget_given_back, 300)
{
	__u64 held0 = counter_u64("table_bytes");
	pid_t pid;

	if (access(DICE_PATH, F_OK) || held0 == ~0ULL)
		SKIP(return, "%s or %s is absent", DICE_PATH, DICE_DEBUGFS);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		__u32 *w = heavy_weights(DICE_TABLE_SIDES_MAX);
		static int fds[BUDGET_FILES];
		const char *why = "";
		int n, err;

		if (!w || !drop_privileges())
			child_fail("setup: %s", strerror(errno));
		n = fill_budget(fds, BUDGET_FILES, w, &why);
		if (n < 2)
			child_fail("filling: %d tables (%s: %s)", n, why,
				   strerror(errno));
		if (die_set_sides(fds[0], 6) ||
		    die_set_sides(fds[1], 6))
			child_fail("SET_DIE of a d6: %s", strerror(errno));
		err = set_weights(fds[n], w, DICE_TABLE_SIDES_MAX);
		if (err)
			child_fail("after the d6: %s", strerror(err));
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(held0, counter_u64("table_bytes"))
		TH_LOG("closing the files did not give the budget back");
}

/*
 * Nobody fills its budget, then, while nobody holds it: another user's
 * table is not refused (the budget is a user's, not all files'), and
 * nobody with CAP_SYS_RESOURCE goes over nobody's own; nobody without it
 * is still refused.  @other: the user of the second table, and whether it
 * has CAP_SYS_RESOURCE.
 */
static void budget_of_another(struct __test_metadata *_metadata,
			      uid_t other, bool resource)
{
	__u64 held0 = counter_u64("table_bytes");
	int up[2], down[2];
	pid_t pid, second;
	__u32 *w;
	char c;

	if (access(DICE_PATH, F_OK))
		SKIP(return, "%s is absent", DICE_PATH);
	w = heavy_weights(DICE_TABLE_SIDES_MAX);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		static int fds[BUDGET_FILES];
		const char *why = "";
		int n;

		if (!drop_privileges())
			child_fail("dropping privileges: %s", strerror(errno));
		n = fill_budget(fds, BUDGET_FILES, w, &why);
		if (n < 1)
			child_fail("filling: %d tables (%s)", n, why);
		if (write(up[1], "f", 1) != 1 || read(down[0], &c, 1) != 1)
			child_fail("sync: %s", strerror(errno));
		/* Still full for nobody. */
		_exit(set_weights(fds[n], w, DICE_TABLE_SIDES_MAX) == ENOMEM ?
		      0 : 1);
	}
	/* The child's ends: a child that fails reads as end of file here. */
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(1, read(up[0], &c, 1)) TH_LOG("nobody did not fill its budget");
	second = fork();
	ASSERT_LE(0, second);
	if (!second) {
		int fd, err;

		if (!become(other, resource))
			child_fail("becoming %u: %s", other, strerror(errno));
		fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			child_fail("open: %s", strerror(errno));
		err = set_weights(fd, w, DICE_TABLE_SIDES_MAX);
		if (err)
			child_fail("user %u%s, nobody's budget full: %s", other,
				   resource ? " with CAP_SYS_RESOURCE" : "",
				   strerror(err));
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(second));
	ASSERT_EQ(1, write(down[1], "g", 1));
	EXPECT_EQ(0, wait_child(pid)) TH_LOG("nobody went over its budget");
	close(up[0]);
	close(down[1]);
	if (held0 != ~0ULL) {
		EXPECT_EQ(held0, counter_u64("table_bytes"))
			TH_LOG("the budget was not given back");
	}
	free(w);
}

struct set_die_racer {
	int fd;
	const __u32 *w;		/* weights of 4096 sides, or NULL: a d6 */
	int err;
};

/* Whole dice, not die_now()'s: its model of the file is not threads'. */
static void *set_die_race(void *p)
{
	struct set_die_racer *r = p;
	const struct dice_die_args d = r->w ?
		(struct dice_die_args){
			.kind = DICE_KIND_WEIGHTS, .sides = 4096,
			.weights = (uintptr_t)r->w, .format = DICE_FMT_U32,
		} :
		(struct dice_die_args){
			.kind = DICE_KIND_FAIR, .sides = 6,
			.format = DICE_FMT_U32,
		};
	int i, err;

	for (i = 0; i < 2000 && !r->err; i++) {
		err = set_die_raw(r->fd, &d);
		if (err)
			r->err = err;
	}
	return NULL;
}

/*
 * Two threads of nobody set dice on one file at once, a loaded one and a
 * d6, 2000 times each: each SET_DIE gives back the charge of the table it
 * replaced, to the user who set it, while the other's may still be giving
 * back the rest of its reserve (the debug kernel's KASAN sees a user's
 * entry used after its last charge went).  Every call succeeds, and the
 * budget comes back whole.
 */
TEST_F_TIMEOUT(slow, set_die_race_charges, 300)
{
	__u64 held0 = counter_u64("table_bytes");
	pid_t pid;

	if (access(DICE_PATH, F_OK))
		SKIP(return, "%s is absent", DICE_PATH);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		__u32 *w = heavy_weights(4096);
		struct set_die_racer a = { .w = w }, b = { 0 };
		pthread_t ta, tb;

		if (!w || !drop_privileges())
			child_fail("setup: %s", strerror(errno));
		a.fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (a.fd < 0)
			child_fail("open: %s", strerror(errno));
		b.fd = a.fd;
		if (pthread_create(&ta, NULL, set_die_race, &a) ||
		    pthread_create(&tb, NULL, set_die_race, &b))
			child_fail("threads: %s", strerror(errno));
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		if (a.err || b.err)
			child_fail("SET_DIE: loaded %s, d6 %s", strerror(a.err),
				   strerror(b.err));
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	if (held0 != ~0ULL) {
		EXPECT_EQ(held0, counter_u64("table_bytes"))
			TH_LOG("the budget was not given back");
	}
}

/* Another user's tables are not refused because nobody's fill its budget. */
TEST_F_TIMEOUT(slow, budget_per_user, 300)
{
	budget_of_another(_metadata, SOMEONE, false);
}

/* Over its budget, nobody with CAP_SYS_RESOURCE goes on. */
TEST_F_TIMEOUT(slow, budget_cap_sys_resource_exempt, 300)
{
	budget_of_another(_metadata, NOBODY, true);
}

#define NS_UIDS		60000	/* the uids nobody's namespace maps to */
#define ROOT_NS_UIDS	61000	/* root's two namespaces: 61000 and 61001 */
#define CONTAINER_UIDS	63000	/* root's namespace in which one is nested */

/* Map uids and gids 0 and 1 of @pid's user namespace to @first and on. */
static bool map_ids(pid_t pid, unsigned int first)
{
	static const char *const maps[] = { "uid_map", "gid_map" };
	char path[64], map[64];
	int fd, len, i;
	bool ok = true;

	len = snprintf(map, sizeof(map), "0 %u 2\n", first);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, maps[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, map, len) != len) {
			fprintf(stderr, "# %s: %s\n", path, strerror(errno));
			ok = false;
		}
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/*
 * In a forked child: make a user namespace (as nobody with @nobody, else
 * as who we are), tell @ready, wait on @mapped while the parent maps it
 * (map_ids()), and become its uid 0.
 */
static void enter_new_namespace(bool nobody, int ready, int mapped)
{
	char c;

	if (nobody && !drop_privileges())
		child_fail("dropping privileges: %s", strerror(errno));
	if (unshare(CLONE_NEWUSER))
		child_fail("unshare(CLONE_NEWUSER) as uid %u: %s", getuid(),
			   strerror(errno));
	if (write(ready, "n", 1) != 1 || read(mapped, &c, 1) != 1)
		child_fail("sync: %s", strerror(errno));
	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		child_fail("becoming uid 0 of the namespace: %s",
			   strerror(errno));
	/*
	 * The change of uid made us undumpable, which gives our /proc files,
	 * uid_map among them, to root: a namespace we nest could not be
	 * mapped by us.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		child_fail("PR_SET_DUMPABLE: %s", strerror(errno));
}

/*
 * Fork a child that runs @body(@w) as uid 0 of a new user namespace made
 * as nobody (@nobody) or as we are, whose uids 0 and 1 we map to @first
 * and @first + 1 of ours.  Returns whether it exited 0.
 */
static bool in_new_namespace(bool nobody, unsigned int first,
			     void (*body)(const __u32 *w), const __u32 *w)
{
	int ready[2], mapped[2];
	bool ok;
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(mapped))
		return false;
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		close(ready[0]);
		close(mapped[1]);
		enter_new_namespace(nobody, ready[1], mapped[0]);
		body(w);
		_exit(0);
	}
	/* The child's ends: a child that fails reads as end of file here. */
	close(ready[1]);
	close(mapped[0]);
	ok = read(ready[0], &c, 1) == 1 && map_ids(pid, first) &&
	     write(mapped[1], "m", 1) == 1;
	close(ready[0]);
	close(mapped[1]);	/* a child still waiting fails */
	return !wait_child(pid) && ok;
}

/*
 * As uid 0 of a user namespace that maps uids 0 and 1: uid 0 fills the
 * budget, then uid 1 is refused, since both count as the namespace's
 * owner.  Exits.
 */
static void fill_then_refused(const __u32 *w)
{
	static int fds[BUDGET_FILES];
	const char *why = "";
	pid_t second;
	int n, fd, err;

	n = fill_budget(fds, BUDGET_FILES, w, &why);
	if (n < 1)
		child_fail("filling as uid 0 of the namespace: %d tables (%s)",
			   n, why);
	second = fork();
	if (second < 0)
		child_fail("fork: %s", strerror(errno));
	if (!second) {
		if (setresgid(1, 1, 1) || setresuid(1, 1, 1))
			child_fail("becoming uid 1 of the namespace: %s",
				   strerror(errno));
		fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			child_fail("open: %s", strerror(errno));
		err = set_weights(fd, w, DICE_TABLE_SIDES_MAX);
		if (err != ENOMEM)
			child_fail("uid 1, once uid 0 filled the budget of their "
				   "namespace's owner: %s, not ENOMEM",
				   err ? strerror(err) : "a table set");
		_exit(0);
	}
	_exit(wait_child(second) ? 1 : 0);
}

/* A container's root nests a namespace of its own, fill_then_refused(). */
static void nested_fill_then_refused(const __u32 *w)
{
	_exit(in_new_namespace(false, 0, fill_then_refused, w) ? 0 : 1);
}

/*
 * The weights of the namespace tests: NULL when they are skipped, where no
 * device or no user namespaces are (the debug kernel; Debian's have them).
 */
static __u32 *namespace_weights(struct __test_metadata *_metadata)
{
	__u32 *w;

	if (access(DICE_PATH, F_OK))
		SKIP(return NULL, "%s is absent", DICE_PATH);
	if (access("/proc/self/ns/user", F_OK))
		SKIP(return NULL,
		     "a kernel without user namespaces (CONFIG_USER_NS)");
	w = heavy_weights(DICE_TABLE_SIDES_MAX);
	ASSERT_NE(NULL, w);
	return w;
}

/*
 * fill_then_refused() (@body) in a namespace that nobody (@nobody) or root
 * makes with uids 0 and 1 at @first: @what if it fails.
 */
static void budget_of_namespace(struct __test_metadata *_metadata,
				bool nobody, unsigned int first,
				void (*body)(const __u32 *w), const char *what)
{
	__u64 held0 = counter_u64("table_bytes");
	__u32 *w = namespace_weights(_metadata);

	if (!w)
		return;
	EXPECT_TRUE(in_new_namespace(nobody, first, body, w))
		TH_LOG("%s", what);
	if (held0 != ~0ULL)
		EXPECT_EQ(held0, counter_u64("table_bytes"))
			TH_LOG("the budget was not given back");
}

/*
 * The uids of a user namespace count as its owner's: nobody makes one in
 * which root maps two uids for it (as for the subordinate uids of a
 * rootless container); once the first fills the budget, the second is
 * refused.  Were the budget per uid, nobody would hold one for each.
 */
TEST_F_TIMEOUT(slow, budget_of_a_namespace, 300)
{
	budget_of_namespace(_metadata, true, NS_UIDS, fill_then_refused,
			    "a second uid of nobody's namespace had a budget");
}

/*
 * The same one level down: root makes a namespace (a container) mapping
 * two uids, and the container's root, a user other than root, makes one
 * with the same two.  They count as that user's, so the second is refused
 * once the first fills the budget.
 */
TEST_F_TIMEOUT(slow, budget_of_a_namespace_in_a_container, 300)
{
	budget_of_namespace(_metadata, false, CONTAINER_UIDS,
			    nested_fill_then_refused,
			    "a second uid of a container root's namespace had "
			    "a budget");
}

/*
 * As uid 0 of a user namespace of root's whose uid 0 we map to
 * ROOT_NS_UIDS + @which: @which 0 fills the budget, tells @full and waits
 * for @done, still refused; @which 1 sets one table.
 */
static void root_made_namespace(const __u32 *w, int which, int ready,
				int mapped, int full, int done)
{
	static int fds[BUDGET_FILES];
	const char *why = "";
	int n, err;
	char c;

	enter_new_namespace(false, ready, mapped);
	if (which) {
		fds[0] = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fds[0] < 0)
			child_fail("open: %s", strerror(errno));
		err = set_weights(fds[0], w, DICE_TABLE_SIDES_MAX);
		if (err)
			child_fail("uid %u, in another namespace of root's than "
				   "the full one: %s", ROOT_NS_UIDS + 2,
				   strerror(err));
		_exit(0);
	}
	n = fill_budget(fds, BUDGET_FILES, w, &why);
	if (n < 1)
		child_fail("filling as uid %u: %d tables (%s)", ROOT_NS_UIDS, n,
			   why);
	if (write(full, "f", 1) != 1 || read(done, &c, 1) != 1)
		child_fail("sync: %s", strerror(errno));
	err = set_weights(fds[n], w, DICE_TABLE_SIDES_MAX);
	_exit(err == ENOMEM ? 0 : 1);
}

/*
 * The namespaces that root makes (a container runtime's) do not share one
 * budget: root makes two, maps their uids to uids of the host of their
 * own, and once the first fills its budget the second still sets a table.
 * Charged to the namespaces' owner, root, the second was refused.
 */
TEST_F_TIMEOUT(slow, budget_of_root_made_namespaces, 300)
{
	__u64 held0 = counter_u64("table_bytes");
	int ready[2][2], mapped[2][2], full[2], done[2], i;
	pid_t pid[2];
	__u32 *w = namespace_weights(_metadata);
	char c;

	if (!w)
		return;
	ASSERT_EQ(0, pipe(full));
	ASSERT_EQ(0, pipe(done));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(ready[i]));
		ASSERT_EQ(0, pipe(mapped[i]));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			close(ready[i][0]);
			close(mapped[i][1]);
			close(full[0]);
			close(done[1]);
			root_made_namespace(w, i, ready[i][1], mapped[i][0],
					    full[1], done[0]);
		}
		/* The child's ends: a child that fails reads as end of file. */
		close(ready[i][1]);
		close(mapped[i][0]);
		ASSERT_EQ(1, read(ready[i][0], &c, 1))
			TH_LOG("root made no user namespace");
		EXPECT_TRUE(map_ids(pid[i], ROOT_NS_UIDS + 2 * i));
		ASSERT_EQ(1, write(mapped[i][1], "m", 1));
		if (!i) {
			close(full[1]);
			close(done[0]);
			ASSERT_EQ(1, read(full[0], &c, 1))
				TH_LOG("uid %u did not fill its budget",
				       ROOT_NS_UIDS);
		}
	}
	EXPECT_EQ(0, wait_child(pid[1]))
		TH_LOG("a namespace of root's was refused for another's tables");
	ASSERT_EQ(1, write(done[1], "d", 1));
	EXPECT_EQ(0, wait_child(pid[0]))
		TH_LOG("uid %u was not refused over its budget", ROOT_NS_UIDS);
	for (i = 0; i < 2; i++) {
		close(ready[i][0]);
		close(mapped[i][1]);
	}
	close(full[0]);
	close(done[1]);
	if (held0 != ~0ULL)
		EXPECT_EQ(held0, counter_u64("table_bytes"))
			TH_LOG("the budget was not given back");
}

/* ---- splice and sendfile ----------------------------------------------------- */

TEST(splice_to_pipe)
{
	int fd = open_die(_metadata, O_RDONLY), p[2], i;
	unsigned char buf[8192];
	struct dice_die_stats st;
	ssize_t n;

	REQUIRE_DIE(fd);
	ASSERT_EQ(0, pipe(p));
	set_format(_metadata, fd, DICE_FMT_U8);
	n = splice(fd, NULL, p[1], NULL, 4096, 0);
	ASSERT_EQ(4096, n) TH_LOG("splice: %s", strerror(errno));
	ASSERT_TRUE(read_full(p[0], buf, 4096));
	for (i = 0; i < 4096; i++) {
		ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 6) TH_LOG("byte %d: %u", i, buf[i]);
	}
	get_stats(_metadata, fd, &st);
	EXPECT_EQ(4096, st.rolls);

	/* Whole rolls: 4097 bytes of U16 give 4096. */
	set_format(_metadata, fd, DICE_FMT_U16);
	set_sides(_metadata, fd, 1000);
	n = splice(fd, NULL, p[1], NULL, 4097, 0);
	ASSERT_EQ(4096, n) TH_LOG("splice: %s", strerror(errno));
	ASSERT_TRUE(read_full(p[0], buf, 4096));
	for (i = 0; i < 4096; i += 2) {
		ASSERT_TRUE(get_le(buf + i, 2) >= 1 && get_le(buf + i, 2) <= 1000);
	}
	/* Less than one roll. */
	set_format(_metadata, fd, DICE_FMT_U32);
	EXPECT_EQ(-1, splice(fd, NULL, p[1], NULL, 3, 0));
	EXPECT_EQ(EINVAL, errno);

	/* Text: the whole lines of 1 to 1000 that fit in 5000 bytes. */
	set_format(_metadata, fd, DICE_FMT_TEXT);
	n = splice(fd, NULL, p[1], NULL, 5000, 0);
	ASSERT_TRUE(n > 5000 - 5 && n <= 5000)
		TH_LOG("splice: %zd, %s", n, strerror(errno));
	ASSERT_TRUE(read_full(p[0], buf, n));
	for (i = 0; i < n; i++) {
		ASSERT_TRUE((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '\n');
	}
	EXPECT_EQ('\n', buf[n - 1]);

	/* sendfile() into a pipe takes the same path. */
	set_format(_metadata, fd, DICE_FMT_U16);
	n = sendfile(p[1], fd, NULL, 4095);
	ASSERT_EQ(4094, n) TH_LOG("sendfile: %s", strerror(errno));
	ASSERT_TRUE(read_full(p[0], buf, 4094));
	for (i = 0; i < 4094; i += 2) {
		ASSERT_TRUE(get_le(buf + i, 2) >= 1 && get_le(buf + i, 2) <= 1000);
	}
	close(p[0]);
	close(p[1]);
	close(fd);
}

TEST(sendfile_to_file)
{
	const size_t total = 1 << 20;
	int fd = open_die(_metadata, O_RDONLY), mfd;
	unsigned char *buf;
	struct dice_die_stats st;
	size_t done = 0, i;
	ssize_t n;

	REQUIRE_DIE(fd);
	set_sides(_metadata, fd, 20);
	set_format(_metadata, fd, DICE_FMT_U8);
	mfd = memfd_create("dice-sendfile", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	while (done < total) {
		n = sendfile(mfd, fd, NULL, total - done);
		ASSERT_LT(0, n) TH_LOG("sendfile: %s", strerror(errno));
		done += n;
	}
	buf = malloc(total);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ((ssize_t)total, pread(mfd, buf, total, 0));
	for (i = 0; i < total; i++) {
		ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 20) TH_LOG("byte %zu", i);
	}
	get_stats(_metadata, fd, &st);
	EXPECT_EQ(total, st.rolls);
	/*
	 * As /dev/urandom (noop_llseek): a seek moves nothing, and pread()
	 * reads rolls as read() does, whatever the offset.
	 */
	EXPECT_EQ(0, lseek(fd, 4096, SEEK_SET));
	EXPECT_EQ(0, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(1, pread(fd, buf, 1, 12345));
	EXPECT_TRUE(buf[0] >= 1 && buf[0] <= 20);
	free(buf);
	close(mfd);
	close(fd);
}

TEST(sendfile_to_socket)
{
	int fd = open_die(_metadata, O_RDONLY), sv[2], i;
	unsigned char buf[4096];
	ssize_t n;

	REQUIRE_DIE(fd);
	set_sides(_metadata, fd, 20);
	set_format(_metadata, fd, DICE_FMT_U8);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		SKIP(return, "no AF_UNIX sockets: %s", strerror(errno));
	n = sendfile(sv[0], fd, NULL, 4096);
	ASSERT_EQ(4096, n) TH_LOG("sendfile to a socket: %s", strerror(errno));
	ASSERT_TRUE(read_full(sv[1], buf, 4096));
	for (i = 0; i < 4096; i++) {
		ASSERT_TRUE(buf[i] >= 1 && buf[i] <= 20);
	}
	close(sv[0]);
	close(sv[1]);
	close(fd);
}

/*
 * splice() and sendfile() deliver bytes: what the other end does not take
 * is never served (as from /dev/urandom).  The device counts the rolls it
 * made; no more bytes than those arrive.
 */
#define EXPECT_SERVED_AT_MOST(rolls, w, served)				\
	EXPECT_GE((__u64)(rolls) * (w), (__u64)(served))		\
		TH_LOG("%llu rolls of %u bytes, %llu served",		\
		       (unsigned long long)(rolls), (unsigned int)(w),	\
		       (unsigned long long)(served))

/*
 * sendfile() of U64 rolls into a file that takes 4099 bytes (RLIMIT_FSIZE):
 * the file's write ends inside a roll, and splice_direct_to_actor()
 * releases the rest.
 */
TEST(sendfile_size_limited_file)
{
	struct rlimit lim = { 4099, 4099 };
	int fd = open_die(_metadata, O_RDONLY), mfd;
	struct dice_die_stats st;
	ssize_t n;

	REQUIRE_DIE(fd);
	set_sides(_metadata, fd, 1000);
	set_format(_metadata, fd, DICE_FMT_U64);
	mfd = memfd_create("dice-fsize", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	signal(SIGXFSZ, SIG_IGN);
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &lim));
	n = sendfile(mfd, fd, NULL, 8192);
	ASSERT_EQ(4099, n) TH_LOG("sendfile: %s", strerror(errno));
	get_stats(_metadata, fd, &st);
	EXPECT_SERVED_AT_MOST(st.rolls, 8, n);
	EXPECT_LT(4099 / 8, st.rolls);
	close(mfd);
	close(fd);
}

/*
 * A pipe of two pages holding 3 bytes: splice() fills the free page with
 * whole rolls, and a pipe closed with rolls in it just drops them.
 */
TEST(splice_odd_pipe)
{
	int fd = open_die(_metadata, O_RDONLY), p[2];
	unsigned char buf[8192];
	struct dice_die_stats st;
	ssize_t n, i;

	REQUIRE_DIE(fd);
	set_sides(_metadata, fd, 1000);
	set_format(_metadata, fd, DICE_FMT_U64);
	ASSERT_EQ(0, pipe(p));
	ASSERT_LE(8192, fcntl(p[1], F_SETPIPE_SZ, 8192));
	ASSERT_EQ(3, write(p[1], "abc", 3));
	n = splice(fd, NULL, p[1], NULL, 65536, SPLICE_F_NONBLOCK);
	ASSERT_LT(0, n) TH_LOG("splice: %s", strerror(errno));
	EXPECT_EQ(0, n % 8);
	ASSERT_TRUE(read_full(p[0], buf, 3 + n));
	for (i = 3; i < 3 + n; i += 8) {
		ASSERT_TRUE(get_le(buf + i, 8) >= 1 && get_le(buf + i, 8) <= 1000);
	}
	get_stats(_metadata, fd, &st);
	EXPECT_EQ((__u64)n / 8, st.rolls);
	n = splice(fd, NULL, p[1], NULL, 4096, 0);
	ASSERT_EQ(4096, n);
	ASSERT_TRUE(read_full(p[0], buf, 1000));
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* sendfile() into a non-blocking socket that takes less than was made. */
TEST(sendfile_full_socket)
{
	int fd = open_die(_metadata, O_RDONLY), sv[2], size = 4096;
	static unsigned char buf[1 << 20];
	struct dice_die_stats st;
	size_t got = 0;
	ssize_t n;

	REQUIRE_DIE(fd);
	set_sides(_metadata, fd, 1000);
	set_format(_metadata, fd, DICE_FMT_U64);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sv))
		SKIP(return, "no AF_UNIX sockets: %s", strerror(errno));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	n = sendfile(sv[0], fd, NULL, 1 << 20);
	ASSERT_LT(0, n) TH_LOG("sendfile: %s", strerror(errno));
	EXPECT_GT(1 << 20, n) TH_LOG("the socket took everything");
	while (got < sizeof(buf)) {
		ssize_t r = read(sv[1], buf + got, sizeof(buf) - got);

		if (r <= 0)
			break;
		got += r;
	}
	EXPECT_EQ((size_t)n, got);
	get_stats(_metadata, fd, &st);
	EXPECT_SERVED_AT_MOST(st.rolls, 8, got);
	close(sv[0]);
	close(sv[1]);
	close(fd);
}

/*
 * Every counter of the module's debugfs directory, as one string: "NAME
 * VALUE" lines of each file that reads as a number, in directory order.
 */
static void all_counters(char *out, size_t size)
{
	DIR *dir = opendir(DICE_DEBUGFS);
	struct dirent *de;
	char path[sizeof(DICE_DEBUGFS) + 256];
	size_t len = 0;
	__u64 v;

	out[0] = 0;
	if (!dir)
		return;
	while ((de = readdir(dir)) && len < size) {
		snprintf(path, sizeof(path), DICE_DEBUGFS "/%s", de->d_name);
		if (de->d_name[0] == '.' || !read_u64_file(path, &v))
			continue;
		len += snprintf(out + len, size - len, "%s %llu\n",
				de->d_name, (unsigned long long)v);
	}
	closedir(dir);
}

/*
 * No counter moves without rolls read: tee() copies of spliced rolls,
 * closed unread, leave every figure the device shows as it was (a
 * spliced_unread counter once grew by every copy, so anyone could move it).
 */
TEST(tee_copies_move_no_counter)
{
	int fd = open_die(_metadata, O_RDONLY), p[2], q[2], i;
	char before[1024], after[1024];
	unsigned char buf[4096];

	REQUIRE_DIE(fd);
	set_format(_metadata, fd, DICE_FMT_U8);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(4096, splice(fd, NULL, p[1], NULL, 4096, 0));
	all_counters(before, sizeof(before));
	ASSERT_NE(0, before[0]) TH_LOG("no counter in %s", DICE_DEBUGFS);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, pipe(q));
		ASSERT_EQ(4096, tee(p[0], q[1], 4096, 0))
			TH_LOG("tee: %s", strerror(errno));
		close(q[0]);
		close(q[1]);
	}
	ASSERT_TRUE(read_full(p[0], buf, 4096));
	all_counters(after, sizeof(after));
	EXPECT_STREQ(before, after);
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* ---- a change of die after a faulting read ------------------------------------- */

FIXTURE(stale) {
	int fd;
	char *mem;
	long page;
};

FIXTURE_VARIANT(stale) {
	__u32 fmt;
};

FIXTURE_VARIANT_ADD(stale, text) { .fmt = DICE_FMT_TEXT, };
FIXTURE_VARIANT_ADD(stale, u8) { .fmt = DICE_FMT_U8, };
FIXTURE_VARIANT_ADD(stale, u16) { .fmt = DICE_FMT_U16, };
FIXTURE_VARIANT_ADD(stale, u32) { .fmt = DICE_FMT_U32, };
FIXTURE_VARIANT_ADD(stale, u64) { .fmt = DICE_FMT_U64, };

FIXTURE_SETUP(stale)
{
	self->page = sysconf(_SC_PAGESIZE);
	self->mem = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	ASSERT_EQ(0, mprotect(self->mem + self->page, self->page, PROT_NONE));
	self->fd = -1;
}

FIXTURE_TEARDOWN(stale)
{
	munmap(self->mem, 2 * self->page);
	if (self->fd >= 0)
		close(self->fd);
}

enum stale_change {
	TO_D1, TO_WEIGHTS, TO_ALIAS, TO_METHOD, TO_SOURCE, TO_SAME,
	STALE_CHANGES
};

/*
 * A d20 read into a buffer that faults after @room bytes, then @change:
 * the next 4096 bytes hold no face of the old die (the reproduction of the
 * second hostile audit: 408-422 of 2048 lines were), but the rest of a
 * text line the faulting read began, and no roll made before the change.
 * Return: the face every roll must show now, 0 for any.
 */
static void stale_case(struct __test_metadata *_metadata,
		       FIXTURE_DATA(stale) *self, __u32 fmt,
		       enum stale_change change, size_t room)
{
	unsigned int w = fmt_width(fmt);
	__u32 weights[20] = { 0 }, alias[20];
	unsigned char next[4096];
	__u64 thr[20], only = 0, face, v;
	struct dice_die_stats before, after;
	size_t at = 0, rest = 0, rolls;
	char *buf = self->mem + self->page - room;
	ssize_t got, n;
	int i;

	if (self->fd >= 0)
		close(self->fd);
	self->fd = open_die(_metadata, O_RDONLY);
	ASSERT_LE(0, self->fd);
	set_sides(_metadata, self->fd, 20);
	set_format(_metadata, self->fd, fmt);
	got = read(self->fd, buf, 4096);
	ASSERT_EQ((ssize_t)(w ? room - room % w : room), got)
		TH_LOG("faulting read: %s", strerror(errno));
	switch (change) {
	case TO_D1:
		set_sides(_metadata, self->fd, 1);
		only = 1;
		break;
	case TO_WEIGHTS:
		weights[5] = 1;
		ASSERT_EQ(0, set_weights(self->fd, weights, 20));
		only = 6;
		break;
	case TO_ALIAS:
		for (i = 0; i < 20; i++) {
			thr[i] = i == 8;
			alias[i] = 8;
		}
		ASSERT_EQ(0, set_alias(self->fd, thr, alias, 1, 20));
		only = 9;
		break;
	case TO_METHOD:
		/* One roll at a time, as the recycling it replaces. */
		ASSERT_EQ(0, die_set_method(self->fd, DICE_METHOD_VIGLIETTA));
		break;
	case TO_SOURCE:
		/* Written bits, none written: only stale bytes could come. */
		ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE,
				     DICE_SRC_WRITTEN));
		break;
	default:
		/*
		 * The same die again (SET_DIE of the die it is): the rolls
		 * waiting go, the rest of a line begun stays.  Before SET_DIE,
		 * this was SET_FORMAT of the same format, which dropped that
		 * rest too.
		 */
		ASSERT_EQ(0, die_set_format(self->fd, fmt));
	}
	get_stats(_metadata, self->fd, &before);
	n = read(self->fd, next, sizeof(next));
	get_stats(_metadata, self->fd, &after);
	if (change == TO_SOURCE) {
		/* At most the rest of the line the faulting read began. */
		if (w || buf[got - 1] == '\n') {
			EXPECT_EQ(-1, n);
			EXPECT_EQ(EAGAIN, errno);
		} else {
			ASSERT_LT(0, n);
			EXPECT_EQ('\n', next[n - 1]);
			EXPECT_EQ(NULL, memchr(next, '\n', n - 1));
		}
		return;
	}
	/* Binary fills the read; text serves the whole lines that fit. */
	if (w) {
		ASSERT_EQ((ssize_t)sizeof(next), n);
	} else {
		ASSERT_TRUE(n > (ssize_t)sizeof(next) - 21 && next[n - 1] == '\n')
			TH_LOG("read %zd of %zu", n, sizeof(next));
	}
	/* The rest of a line begun before the change is a face of the d20. */
	if (!w && buf[got - 1] != '\n') {
		for (i = got; i > 0 && buf[i - 1] != '\n'; i--)
			;
		for (v = 0; i < got; i++)
			v = 10 * v + buf[i] - '0';
		while (next[rest] != '\n')
			v = 10 * v + next[rest++] - '0';
		rest++;
		EXPECT_TRUE(v >= 1 && v <= 20) TH_LOG("line %llu", v);
	}
	for (at = rest, rolls = 0; at < (size_t)n; rolls++) {
		if (w) {
			face = get_le(next + at, w);
			at += w;
		} else {
			for (face = 0; at < (size_t)n && next[at] != '\n'; at++)
				face = 10 * face + next[at] - '0';
			if (at++ == (size_t)n)
				break;	/* a line cut by the read's end */
		}
		if (only && face != only) {
			EXPECT_EQ(only, face)
				TH_LOG("change %d, room %zu: roll %zu is a face of the old die",
				       change, room, rolls);
			return;
		}
	}
	/* Every roll served was made after the change (text: one may wait). */
	EXPECT_LE(rolls, after.rolls - before.rolls);
	EXPECT_GE(rolls + !w, after.rolls - before.rolls);
}

TEST_F(stale, change_after_faulting_read)
{
	static const size_t rooms[] = { 1, 2, 3, 8, 17, 2000 };
	unsigned int c, r;

	for (c = 0; c < STALE_CHANGES; c++)
		for (r = 0; r < sizeof(rooms) / sizeof(rooms[0]); r++) {
			if (rooms[r] < fmt_width(variant->fmt))
				continue;
			stale_case(_metadata, self, variant->fmt, c, rooms[r]);
		}
}

/* ---- poll and epoll ----------------------------------------------------------- */

static short poll_now(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* The CRNG's file: always readable, never writable (write() is EINVAL). */
TEST(poll_kernel_source)
{
	int fd = open_die(_metadata, O_RDWR), ep;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };

	REQUIRE_DIE(fd);
	EXPECT_EQ(POLLIN | POLLRDNORM,
		  poll_now(fd, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	memset(&ev, 0, sizeof(ev));
	ASSERT_EQ(1, epoll_wait(ep, &ev, 1, 0));
	EXPECT_EQ(EPOLLIN, ev.events);
	close(ep);
	close(fd);
}

FIXTURE(readiness) {
	int fd;
};

/* @weights: NULL for a fair die of @sides */
FIXTURE_VARIANT(readiness) {
	__u64 sides;
	const __u32 *weights;
	__u32 method;
	__u32 fmt;
};

static const __u32 one_63[2] = { 1, 63 };
static const __u32 zipfish[7] = { 60, 30, 20, 15, 12, 10, 1 };

VARIANT(readiness, recycle_d6_u8,
	.sides = 6, .method = DICE_METHOD_RECYCLE, .fmt = DICE_FMT_U8);
VARIANT(readiness, recycle_d1000_text,
	.sides = 1000, .method = DICE_METHOD_RECYCLE, .fmt = DICE_FMT_TEXT);
FIXTURE_VARIANT_ADD(readiness, recycle_dmax_u64) {
	.sides = DICE_MAX_FAIR_SIDES, .method = DICE_METHOD_RECYCLE,
	.fmt = DICE_FMT_U64,
};
FIXTURE_VARIANT_ADD(readiness, recycle_loaded_1_63) {
	.sides = 2, .weights = one_63, .method = DICE_METHOD_RECYCLE,
	.fmt = DICE_FMT_U8,
};
FIXTURE_VARIANT_ADD(readiness, alias_loaded_7) {
	.sides = 7, .weights = zipfish, .method = DICE_METHOD_ALIAS,
	.fmt = DICE_FMT_U16,
};
VARIANT(readiness, batch_d6,
	.sides = 6, .method = DICE_METHOD_BATCH, .fmt = DICE_FMT_U8);
VARIANT(readiness, viglietta_d20,
	.sides = 20, .method = DICE_METHOD_VIGLIETTA, .fmt = DICE_FMT_U32);
VARIANT(readiness, batch_d3,
	.sides = 3, .method = DICE_METHOD_BATCH, .fmt = DICE_FMT_U8);

FIXTURE_SETUP(readiness)
{
	self->fd = open_die(_metadata, O_RDWR | O_NONBLOCK);
	if (self->fd < 0)
		return;
	if (variant->weights) {
		ASSERT_EQ(0, set_weights(self->fd, variant->weights,
					 variant->sides));
	} else {
		set_sides(_metadata, self->fd, variant->sides);
	}
	ASSERT_EQ(0, die_set_method(self->fd, variant->method));
	set_format(_metadata, self->fd, variant->fmt);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
}

FIXTURE_TEARDOWN(readiness)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Readiness is exact: poll() says POLLIN exactly when the read that follows
 * returns rolls, POLLOUT exactly when the write that follows takes a byte,
 * through 600 steps of a write of 0 to 12 bytes (then 0 to 3, the rolls
 * drained after each step), a read of one roll and a write of one byte.
 */
TEST_F(readiness, exact)
{
	unsigned int width = fmt_width(variant->fmt), step;
	unsigned int ins = 0, outs = 0, not_in = 0, not_out = 0;
	unsigned char buf[64];
	__u64 seed = 0x9e11 + variant->sides;
	short ev;
	ssize_t ret;

	REQUIRE_DIE(self->fd);
	EXPECT_EQ(0, poll_now(self->fd, POLLIN)) TH_LOG("readable with no bits");
	for (step = 0; step < 600; step++) {
		/* Then a phase of few bits, drained after every step. */
		bool lean = step >= 300;
		size_t k = splitmix(&seed) % (lean ? 4 : 13);

		fill_bytes(splitmix(&seed), buf, k);
		if (k)
			ret = write(self->fd, buf, k);
		ev = poll_now(self->fd, POLLIN | POLLOUT);
		ret = read(self->fd, buf, width ? width : 1);
		ASSERT_TRUE(ret > 0 || errno == EAGAIN)
			TH_LOG("step %u: read: %s", step, strerror(errno));
		ASSERT_EQ(!!(ev & POLLIN), ret > 0)
			TH_LOG("step %u: poll %#x, read %zd", step, ev, ret);
		ins += ret > 0;
		not_in += ret <= 0;
		ev = poll_now(self->fd, POLLIN | POLLOUT);
		buf[0] = (unsigned char)splitmix(&seed);
		ret = write(self->fd, buf, 1);
		ASSERT_TRUE(ret == 1 || errno == EAGAIN)
			TH_LOG("step %u: write: %s", step, strerror(errno));
		ASSERT_EQ(!!(ev & POLLOUT), ret == 1)
			TH_LOG("step %u: poll %#x, write %zd", step, ev, ret);
		outs += ret == 1;
		not_out += ret != 1;
		while (lean && read(self->fd, buf, sizeof(buf)) > 0)
			;
	}
	TH_LOG("readable %u, not %u; writable %u, not %u", ins, not_in, outs,
	       not_out);
	EXPECT_LT(0, ins);
	EXPECT_LT(0, not_in);
}

/*
 * Polling changes nothing: two dice fed the same bits, one polled before
 * every roll, serve the same faces and spend the same bits.
 */
TEST_F(readiness, no_side_effect)
{
	unsigned int width = fmt_width(variant->fmt), len = width ? width : 1;
	unsigned char bits[1016], a[16], b[16];
	struct dice_die_stats sa, sb;
	ssize_t ra, rb;
	int other, rolls = 0;

	REQUIRE_DIE(self->fd);
	fill_bytes(77, bits, sizeof(bits));
	other = open_die(_metadata, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, other);
	if (variant->weights) {
		ASSERT_EQ(0, set_weights(other, variant->weights,
					 variant->sides));
	} else {
		set_sides(_metadata, other, variant->sides);
	}
	ASSERT_EQ(0, die_set_method(other, variant->method));
	set_format(_metadata, other, variant->fmt);
	ASSERT_EQ(0, set_u32(other, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ(sizeof(bits), write(self->fd, bits, sizeof(bits)));
	ASSERT_EQ(sizeof(bits), write(other, bits, sizeof(bits)));
	for (;;) {
		poll_now(self->fd, POLLIN | POLLOUT);
		poll_now(self->fd, POLLIN);
		ra = read(self->fd, a, len);
		rb = read(other, b, len);
		ASSERT_EQ(ra, rb);
		if (ra <= 0)
			break;
		ASSERT_EQ(0, memcmp(a, b, ra)) TH_LOG("roll %d", rolls);
		rolls++;
	}
	EXPECT_EQ(EAGAIN, errno);
	get_stats(_metadata, self->fd, &sa);
	get_stats(_metadata, other, &sb);
	EXPECT_LT(10, rolls);
	EXPECT_EQ(sb.rolls, sa.rolls);
	EXPECT_EQ(sb.bits_used, sa.bits_used);
	EXPECT_EQ(sb.bits_drawn, sa.bits_drawn);
	EXPECT_EQ(sb.bits_discarded, sa.bits_discarded);
	close(other);
}

/*
 * A d3 on written bits: fair by recycling, or loaded evenly {1, 1, 1} and
 * rolled by the alias method, whose fresh column of 2 bits rejects 11
 * (DICE_METHOD_REJECTION, which did the same for a fair die, is gone).
 */
static int useless_die(struct __test_metadata *_metadata, bool alias)
{
	static const __u32 even[3] = { 1, 1, 1 };
	int fd = written_die(_metadata, 3, DICE_METHOD_RECYCLE, DICE_FMT_U8,
			     NULL, 0);

	if (fd >= 0 && alias) {
		EXPECT_EQ(0, set_weights(fd, even, 3));
		EXPECT_EQ(0, die_set_method(fd, DICE_METHOD_ALIAS));
	}
	return fd;
}

/*
 * A pool full of bits no roll can use (0xff bytes for a d3 by the alias
 * method's rejection) polls readable, and poll() changes nothing: the read() that follows
 * drops the bits and fails with EAGAIN, and the file turns writable again
 * rather than neither readable nor writable for good.
 */
TEST(poll_full_useless_pool)
{
	unsigned char ff[64];
	struct dice_die_stats st;
	int fd;

	memset(ff, 0xff, sizeof(ff));
	fd = useless_die(_metadata, true);
	REQUIRE_DIE(fd);
	while (write(fd, ff, sizeof(ff)) > 0)
		;
	ASSERT_EQ(EAGAIN, errno);
	EXPECT_EQ(POLLIN, poll_now(fd, POLLIN | POLLOUT));
	get_stats(_metadata, fd, &st);
	EXPECT_EQ(0, st.bits_discarded) TH_LOG("poll() discarded the bits");
	EXPECT_EQ(-1, read(fd, ff, 1));
	EXPECT_EQ(EAGAIN, errno);
	get_stats(_metadata, fd, &st);
	EXPECT_LT(8000, st.bits_discarded);
	EXPECT_EQ(POLLOUT, poll_now(fd, POLLIN | POLLOUT));
	EXPECT_EQ(1, write(fd, ff, 1));
	close(fd);
}

/*
 * The same through read(), for each method that rejects: the read that
 * cannot complete discards the useless bits (EAGAIN, room again), and the
 * file rolls once good bits come.  Before, read() and write() both said
 * EAGAIN for good.
 */
TEST(read_full_useless_pool)
{
	static const __u32 methods[] = { DICE_METHOD_ALIAS,
					 DICE_METHOD_RECYCLE };
	unsigned char ff[64], zero[16] = { 0 }, face;
	struct dice_die_stats st;
	unsigned int i;
	int fd;

	memset(ff, 0xff, sizeof(ff));
	for (i = 0; i < 2; i++) {
		fd = useless_die(_metadata, methods[i] == DICE_METHOD_ALIAS);
		REQUIRE_DIE(fd);
		while (write(fd, ff, sizeof(ff)) > 0)
			;
		ASSERT_EQ(EAGAIN, errno);
		EXPECT_EQ(-1, read(fd, &face, 1));
		EXPECT_EQ(EAGAIN, errno);
		get_stats(_metadata, fd, &st);
		EXPECT_LT(8000, st.bits_discarded) TH_LOG("method %u", methods[i]);
		EXPECT_EQ(sizeof(zero), write(fd, zero, sizeof(zero)));
		EXPECT_EQ(1, read(fd, &face, 1));
		EXPECT_EQ(1, face);
		close(fd);
	}
}

struct waiter {
	int fd;
	short events;
	short revents;
	int ret;
	pid_t tid;
	atomic_int returned;
};

static void *wait_poll(void *arg)
{
	struct waiter *w = arg;
	struct pollfd p = { .fd = w->fd, .events = w->events };

	w->tid = (pid_t)syscall(SYS_gettid);
	w->ret = poll(&p, 1, 20000);
	w->revents = p.revents;
	atomic_store(&w->returned, 1);
	return NULL;
}

/* Thread @tid of this process is asleep (state S), not merely preempted. */
static bool task_sleeps(pid_t tid)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' && p[2] == 'S';
}

/* System call @nr is poll(2) or ppoll(2). */
static bool is_poll_call(long nr)
{
#ifdef SYS_poll
	if (nr == SYS_poll)
		return true;
#endif
	return nr == SYS_ppoll;
}

/*
 * Thread @tid of this process asleep in poll(2) or ppoll(2): its
 * /proc/self/task/TID/syscall names the call while it waits ("running"
 * while it runs), and its state is S.  Waits for it up to 20 s, instead
 * of guessing a sleep long enough for a slow guest.
 */
static bool asleep_in_poll(pid_t *tid)
{
	char path[64], line[128];
	long nr;
	int i;

	for (i = 0; i < 20000; i++, usleep(1000)) {
		FILE *f;

		line[0] = '\0';
		if (!*(volatile pid_t *)tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", *tid);
		f = fopen(path, "r");
		if (!f)
			return false;
		nr = fgets(line, sizeof(line), f) ? strtol(line, NULL, 10) : -1;
		fclose(f);
		if (!strncmp(line, "running", 7))
			continue;
		if (is_poll_call(nr) && task_sleeps(*tid))
			return true;
	}
	return false;
}

/*
 * A poller sleeping on a written-bits file wakes when a write or read lets
 * it: the write (the read) comes once the poller is asleep in poll(), and
 * it had not returned before.
 */
TEST(poll_wakes)
{
	unsigned char bits[1016], buf[200];
	struct waiter w = { .events = POLLIN };
	pthread_t t;
	int fd;

	fd = written_die(_metadata, 6, DICE_METHOD_RECYCLE, DICE_FMT_U8,
			 NULL, 0);
	REQUIRE_DIE(fd);
	fill_bytes(5, bits, sizeof(bits));
	w.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_poll, &w));
	ASSERT_TRUE(asleep_in_poll(&w.tid)) TH_LOG("the poller never slept");
	EXPECT_EQ(0, atomic_load(&w.returned)) TH_LOG("did not sleep");
	ASSERT_EQ(8, write(fd, bits, 8));
	pthread_join(t, NULL);
	EXPECT_EQ(1, w.ret);
	EXPECT_TRUE(w.revents & POLLIN);

	/* Fill the pool, wait for room, read rolls. */
	while (write(fd, bits, sizeof(bits)) > 0)
		;
	w.events = POLLOUT;
	w.revents = 0;
	w.tid = 0;
	atomic_store(&w.returned, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_poll, &w));
	ASSERT_TRUE(asleep_in_poll(&w.tid)) TH_LOG("the poller never slept");
	EXPECT_EQ(0, atomic_load(&w.returned)) TH_LOG("did not sleep");
	ASSERT_EQ(100, read(fd, buf, 100));
	pthread_join(t, NULL);
	EXPECT_EQ(1, w.ret);
	EXPECT_TRUE(w.revents & POLLOUT);
	close(fd);
}

/* epoll, edge- and level-triggered, on written bits. */
TEST(epoll_edge_and_level)
{
	struct epoll_event ev, got[2];
	unsigned char bits[64], buf[256];
	int fd, lt, ep;

	fd = written_die(_metadata, 6, DICE_METHOD_RECYCLE, DICE_FMT_U8,
			 NULL, 0);
	REQUIRE_DIE(fd);
	lt = written_die(_metadata, 6, DICE_METHOD_RECYCLE, DICE_FMT_U8,
			 NULL, 0);
	ASSERT_LE(0, lt);
	fill_bytes(9, bits, sizeof(bits));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLET, .data.fd = fd };
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	EXPECT_EQ(0, epoll_wait(ep, got, 2, 0));
	ASSERT_EQ(7, write(fd, bits, 7));	/* not enough for a d6's first roll */
	EXPECT_EQ(0, epoll_wait(ep, got, 2, 0));
	ASSERT_EQ(1, write(fd, bits, 1));
	ASSERT_EQ(1, epoll_wait(ep, got, 2, 1000));
	EXPECT_EQ(EPOLLIN, got[0].events);
	EXPECT_EQ(0, epoll_wait(ep, got, 2, 0)) TH_LOG("edge fired twice");
	ASSERT_EQ(8, write(fd, bits, 8));
	EXPECT_EQ(1, epoll_wait(ep, got, 2, 1000));

	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = lt };
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, lt, &ev));
	ASSERT_EQ(16, write(lt, bits, 16));
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL));
	EXPECT_EQ(1, epoll_wait(ep, got, 2, 0));
	EXPECT_EQ(1, epoll_wait(ep, got, 2, 0)) TH_LOG("level fired once");
	while (read(lt, buf, sizeof(buf)) > 0)
		;
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, epoll_wait(ep, got, 2, 0)) TH_LOG("readable when drained");
	close(ep);
	close(lt);
	close(fd);
}

/* ---- the read contract at a fault ------------------------------------------- */

/* @a and @b: dice fed the same bits; @mem: a page, then an unmapped one */
struct twins {
	int a, b;
	char *mem;
	long page;
};

FIXTURE(fault) {
	struct twins t;
};

FIXTURE_VARIANT(fault) {
	__u64 sides;
	__u32 fmt;
};

VARIANT(fault, u8, .sides = 200, .fmt = DICE_FMT_U8);
VARIANT(fault, u16, .sides = 60000, .fmt = DICE_FMT_U16);
VARIANT(fault, u32, .sides = 4000000000ULL, .fmt = DICE_FMT_U32);
VARIANT(fault, u64, .sides = DICE_MAX_FAIR_SIDES, .fmt = DICE_FMT_U64);

/* Two dice fed the same bits, and a page followed by an unmapped one. */
static void twins_setup(struct __test_metadata *_metadata, struct twins *self,
			__u64 sides, __u32 fmt)
{
	unsigned char bits[1016];

	fill_bytes(0xfa17 + fmt, bits, sizeof(bits));
	self->mem = MAP_FAILED;
	self->a = written_die(_metadata, sides, DICE_METHOD_RECYCLE, fmt, bits,
			      sizeof(bits));
	self->b = written_die(_metadata, sides, DICE_METHOD_RECYCLE, fmt, bits,
			      sizeof(bits));
	self->page = sysconf(_SC_PAGESIZE);
	self->mem = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	ASSERT_EQ(0, mprotect(self->mem + self->page, self->page, PROT_NONE));
}

static void twins_teardown(struct twins *self)
{
	if (self->mem != MAP_FAILED)
		munmap(self->mem, 2 * self->page);
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
}

FIXTURE_SETUP(fault)
{
	twins_setup(_metadata, &self->t, variant->sides, variant->fmt);
}

FIXTURE_TEARDOWN(fault)
{
	twins_teardown(&self->t);
}

/*
 * A binary read of 8 rolls whose buffer ends 3.5 rolls in returns the 3
 * whole rolls (for U8: 3 bytes), never 7, 14 or 28 bytes; the torn roll
 * and the rest of its chunk are never served: the next read gives what
 * the 9th roll on gives to a die fed the same bits.
 */
TEST_F(fault, torn_roll_dropped)
{
	unsigned int w = fmt_width(variant->fmt);
	unsigned char ref[96], next[32];
	struct dice_die_stats sa, sb;
	char *buf;
	ssize_t ret;

	REQUIRE_DIE(self->t.a);
	buf = self->t.mem + self->t.page - (w == 1 ? 3 : 3 * w + w / 2);
	ret = read(self->t.b, buf, 8 * w);
	ASSERT_EQ(3 * w, ret) TH_LOG("read: %s", ret < 0 ? strerror(errno) : "short");
	ASSERT_EQ(8 * w, read(self->t.a, ref, 8 * w));
	ASSERT_EQ(4 * w, read(self->t.a, ref + 8 * w, 4 * w));
	EXPECT_EQ(0, memcmp(buf, ref, 3 * w));
	ASSERT_EQ(4 * w, read(self->t.b, next, 4 * w));
	EXPECT_EQ(0, memcmp(next, ref + 8 * w, 4 * w))
		TH_LOG("rolls 4 to 8 were served after all");
	get_stats(_metadata, self->t.a, &sa);
	get_stats(_metadata, self->t.b, &sb);
	EXPECT_EQ(sa.rolls, sb.rolls);
	EXPECT_EQ(sa.bits_used, sb.bits_used);
}

/* No room at all: EFAULT, nothing counted as read, and the die goes on. */
TEST_F(fault, unmapped_efault)
{
	unsigned int w = fmt_width(variant->fmt);
	unsigned char buf[32];

	REQUIRE_DIE(self->t.a);
	EXPECT_EQ(-1, read(self->t.b, self->t.mem + self->t.page, 4 * w));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(4 * w, read(self->t.b, buf, 4 * w));
	if (w > 1) {
		/* Room for less than one roll: EFAULT too. */
		EXPECT_EQ(-1, read(self->t.b, self->t.mem + self->t.page - 1, w));
		EXPECT_EQ(EFAULT, errno);
	}
}

/* The same two dice in text, d1000: lines of 2 to 5 bytes. */
FIXTURE(fault_text) {
	struct twins t;
};

FIXTURE_SETUP(fault_text)
{
	twins_setup(_metadata, &self->t, 1000, DICE_FMT_TEXT);
}

FIXTURE_TEARDOWN(fault_text)
{
	twins_teardown(&self->t);
}

/*
 * Text keeps the rest of a line cut by a fault: the 37 bytes that fit,
 * then the next read goes on from byte 38 of the same stream.
 */
TEST_F(fault_text, rest_kept)
{
	char ref[137], rest[100], *buf;
	ssize_t ret;

	REQUIRE_DIE(self->t.a);
	buf = self->t.mem + self->t.page - 37;
	ret = read(self->t.b, buf, 100);
	ASSERT_EQ(37, ret) TH_LOG("read: %s", ret < 0 ? strerror(errno) : "short");
	/* Whole lines: at most 4 bytes short of 100 for a d1000. */
	ret = read(self->t.b, rest, 100);
	ASSERT_TRUE(ret > 95 && ret <= 100 && rest[ret - 1] == '\n')
		TH_LOG("read %zd", ret);
	ASSERT_TRUE(read_full(self->t.a, ref, 37 + ret));
	EXPECT_EQ(0, memcmp(buf, ref, 37));
	EXPECT_EQ(0, memcmp(rest, ref + 37, ret));
}

/* No room at all: EFAULT, and the lines made stay for the next read. */
TEST_F(fault_text, unmapped_efault)
{
	char ref[100], buf[100];
	ssize_t n;

	REQUIRE_DIE(self->t.a);
	EXPECT_EQ(-1, read(self->t.b, self->t.mem + self->t.page, 100));
	EXPECT_EQ(EFAULT, errno);
	n = read(self->t.b, buf, 100);
	ASSERT_TRUE(n > 95 && n <= 100 && buf[n - 1] == '\n') TH_LOG("read %zd", n);
	ASSERT_TRUE(read_full(self->t.a, ref, n));
	EXPECT_EQ(0, memcmp(buf, ref, n));
}

/* ---- one file, many hands ----------------------------------------------------- */

enum { H_READ, H_WRITE, H_IOCTL, H_POLL, H_DUP, H_SLOT, H_NR };

static const char *const hand_name[H_NR] = {
	"read/readv", "write", "ioctls", "poll/epoll/splice", "dup/close",
	"files closed in use",
};

/*
 * Every hand, and the forked child, must make HAND_MIN_OPS operations:
 * they run past the end until each has (window_done()), for up to
 * HAND_MAX_SECONDS more.
 */
#define HAND_MIN_OPS		10
#define HAND_MAX_SECONDS	60

struct shared_fd {
	int fd;
	double end, cap;
	atomic_int slot;		/* a fresh file, or -1 */
	atomic_ulong ops[H_NR];
	struct failures f;
};

struct hand {
	struct shared_fd *sh;
	int role;
	__u64 rng;
};

static bool errno_in(int err, const int *ok, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (err == ok[i])
			return true;
	return false;
}

/* @err if it is neither @want nor @also; EPROTO for a wrong success. */
static int unless(int err, int want, int also)
{
	if (err == want || err == also)
		return 0;
	return err ? err : EPROTO;
}

/* What SET_DIE must say to a die of @sides in @fmt by @method. */
static int set_die_want(__u64 sides, bool loaded, __u32 method, __u32 fmt,
			int *also)
{
	unsigned int w = fmt_width(fmt);
	__u64 top = fmt & DICE_FMT_ZERO_BASED ? sides - 1 : sides;
	bool overflow = w && w < 8 && top >> (8 * w);
	bool bad = method > DICE_METHOD_ALIAS ||
		   (loaded && (method == DICE_METHOD_VIGLIETTA ||
			       method == DICE_METHOD_BATCH));

	/* Both wrong: the uapi names no order. */
	*also = bad && overflow ? EOVERFLOW : -1;
	/*
	 * A fair die by the alias method: the uapi header says loaded dice
	 * only, the module (and the method's documentation) rolls it as
	 * plain rejection.  Not this flood's question: either goes.
	 */
	if (!loaded && method == DICE_METHOD_ALIAS)
		*also = EINVAL;
	return bad ? EINVAL : overflow ? EOVERFLOW : 0;
}

/*
 * One random ioctl, each whole die sent straight (the dice_common.h model
 * of a file's die is per process, and other hands change it under us);
 * its errno if it is not the one the rules give.
 */
static int random_ioctl(int fd, __u64 *rng)
{
	static const __u32 w[5] = { 3, 0, 5, 1, 9 };
	static const __u64 thr[3] = { 4, 1, 4 };
	static const __u32 al[3] = { 0, 2, 2 };
	static const __u64 sides[] = { 1, 2, 6, 20, 255, 256, 1000, 65536,
				       1ULL << 32, DICE_MAX_FAIR_SIDES };
	static const __u32 fmts[] = { DICE_FMT_TEXT, DICE_FMT_U8, DICE_FMT_U16,
				      DICE_FMT_U32, DICE_FMT_U64,
				      DICE_FMT_U8 | DICE_FMT_ZERO_BASED,
				      DICE_FMT_U64 | DICE_FMT_ZERO_BASED };
	struct dice_die_args a = { .kind = DICE_KIND_FAIR };
	struct dice_die_info info;
	struct dice_die_stats st;
	__u64 r = splitmix(rng);
	int err, want, also;

	a.method = (r >> 16) % 5;	/* 4: the old REJECTION, refused */
	a.format = fmts[(r >> 24) % ARRAY_SIZE(fmts)];
	switch (r % 9) {
	case 0:
	case 1:
		a.sides = sides[(r >> 8) % ARRAY_SIZE(sides)];
		break;
	case 2:
		err = ioctl_errno(fd, DICE_IOC_GET_DIE, &info);
		if (!err && (info.padding || info.kind > DICE_KIND_LOADED ||
			     info.method > DICE_METHOD_ALIAS || !info.sides ||
			     (info.kind == DICE_KIND_LOADED &&
			      info.sides > DICE_TABLE_SIDES_MAX)))
			return ERANGE;
		return err;
	case 3:
		err = ioctl_errno(fd, DICE_IOC_GET_STATS, &st);
		if (!err && (st.bits_used + st.bits_discarded > st.bits_drawn ||
			     st.coin_bits > st.bits_used))
			return ERANGE;
		return err;
	case 4:
		a.kind = DICE_KIND_WEIGHTS;
		a.sides = 1 + (r >> 8) % 5;
		a.weights = (uintptr_t)w;
		break;
	case 5:
		a.kind = DICE_KIND_ALIAS;
		a.sides = 3;
		a.thresholds = (uintptr_t)thr;
		a.aliases = (uintptr_t)al;
		a.mass = 4;
		break;
	case 6:
		/* A table out of reach, or flags: refused whole. */
		a.sides = 5;
		a.method = DICE_METHOD_RECYCLE;
		if (r & 256) {
			a.kind = DICE_KIND_WEIGHTS;
			a.weights = 0xffffffff00001000ULL;
			return unless(ioctl_errno(fd, DICE_IOC_SET_DIE, &a),
				      EFAULT, -1);
		}
		a.flags = 1;
		return unless(ioctl_errno(fd, DICE_IOC_SET_DIE, &a), EINVAL,
			      -1);
	case 7:
		a.sides = 6;
		a.format = DICE_FMT_TEXT;
		break;
	default:
		/* Mostly the CRNG, so reads have something to roll. */
		return set_u32(fd, DICE_IOC_SET_SOURCE, (r >> 8) % 4 == 0);
	}
	want = set_die_want(a.sides, a.kind != DICE_KIND_FAIR, a.method,
			    a.format, &also);
	return unless(ioctl_errno(fd, DICE_IOC_SET_DIE, &a), want, also);
}

/* One hand's operation on @fd; false if it broke a rule. */
static bool hand_op(struct shared_fd *sh, int role, int fd, __u64 *rng,
		    unsigned char *buf, int *pipefd, int ep)
{
	static const int read_ok[] = { EINVAL, EAGAIN };
	__u64 r = splitmix(rng);
	struct iovec iov[3];
	struct epoll_event ev;
	ssize_t ret;
	int err;

	switch (role) {
	case H_READ:
		if (r & 1) {
			ret = read(fd, buf, (r >> 8) % 5000);
		} else {
			iov[0] = (struct iovec){ buf, 3 };
			iov[1] = (struct iovec){ buf + 100, (r >> 8) % 900 };
			iov[2] = (struct iovec){ buf + 1000, 17 };
			ret = readv(fd, iov, 3);
		}
		if (ret < 0 && !errno_in(errno, read_ok, 2)) {
			failed(&sh->f, "read: %s", strerror(errno));
			return false;
		}
		return true;
	case H_WRITE:
		fill_bytes(r, buf, 64);
		ret = write(fd, buf, (r >> 8) % 65);
		if (ret < 0 && !errno_in(errno, read_ok, 2)) {
			failed(&sh->f, "write: %s", strerror(errno));
			return false;
		}
		return true;
	case H_IOCTL:
		err = random_ioctl(fd, rng);
		if (err) {
			failed(&sh->f, "ioctl: %s", strerror(err));
			return false;
		}
		return true;
	default:
		if (r % 3 == 0) {
			poll_now(fd, POLLIN | POLLOUT);
		} else if (r % 3 == 1) {
			epoll_wait(ep, &ev, 1, 0);
		} else {
			ret = splice(fd, NULL, pipefd[1], NULL, (r >> 8) % 3000,
				     SPLICE_F_NONBLOCK);
			if (ret < 0 && !errno_in(errno, read_ok, 2)) {
				failed(&sh->f, "splice: %s", strerror(errno));
				return false;
			}
			while (read(pipefd[0], buf, 4096) > 0)
				;
		}
		return true;
	}
}

static void *hand(void *arg)
{
	struct hand *h = arg;
	struct shared_fd *sh = h->sh;
	unsigned char *buf = malloc(65536);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
	int pipefd[2] = { -1, -1 }, ep, fd, role;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!buf || ep < 0 || pipe2(pipefd, O_NONBLOCK | O_CLOEXEC) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sh->fd, &ev)) {
		failed(&sh->f, "hand setup: %s", strerror(errno));
		goto out;
	}
	while (!window_done(sh->end, sh->cap, sh->ops, H_NR, HAND_MIN_OPS)) {
		switch (h->role) {
		case H_DUP:
			/* dup, use the copy, close it; or churn the slot. */
			if (splitmix(&h->rng) & 1) {
				fd = dup(sh->fd);
				if (fd < 0) {
					failed(&sh->f, "dup: %s", strerror(errno));
					break;
				}
				role = splitmix(&h->rng) % H_DUP;
				hand_op(sh, role, fd, &h->rng, buf, pipefd, ep);
				close(fd);
			} else {
				fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
				if (fd < 0) {
					failed(&sh->f, "open: %s", strerror(errno));
					break;
				}
				fd = atomic_exchange(&sh->slot, fd);
				if (fd >= 0)
					close(fd);
			}
			break;
		case H_SLOT:
			/* A fresh file the dup hand may close under us. */
			fd = atomic_load(&sh->slot);
			if (fd < 0) {
				/* No file to use: no operation to count. */
				sched_yield();
				continue;
			}
			role = splitmix(&h->rng) % H_DUP;
			if (role == H_IOCTL || role == H_READ) {
				/* EBADF: closed under us, as expected. */
				ssize_t ret = role == H_READ ?
					read(fd, buf, 65536) :
					ioctl(fd, DICE_IOC_GET_DIE, buf);

				if (ret < 0 && errno != EBADF && errno != EINVAL &&
				    errno != EAGAIN)
					failed(&sh->f, "slot: %s", strerror(errno));
			} else {
				poll_now(fd, POLLIN);
			}
			break;
		default:
			hand_op(sh, h->role, sh->fd, &h->rng, buf, pipefd, ep);
		}
		atomic_fetch_add(&sh->ops[h->role], 1);
	}
out:
	if (ep >= 0)
		close(ep);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	free(buf);
	return NULL;
}

/* The forked child: every role but dup/close, mixed, on the same file. */
static void child_hands(struct shared_fd *sh)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
	unsigned char *buf = malloc(65536);
	__u64 rng = 0xc41d;
	int pipefd[2], ep = epoll_create1(EPOLL_CLOEXEC);
	atomic_ulong ops = 0;	/* its own: the parent's are not shared */

	if (!buf || ep < 0 || pipe2(pipefd, O_NONBLOCK | O_CLOEXEC) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sh->fd, &ev))
		child_fail("setup: %s", strerror(errno));
	while (!window_done(sh->end, sh->cap, &ops, 1, HAND_MIN_OPS)) {
		if (!hand_op(sh, splitmix(&rng) % H_DUP, sh->fd, &rng, buf,
			     pipefd, ep))
			child_fail("%s", sh->f.first);
		atomic_fetch_add(&ops, 1);
	}
	if (ops < HAND_MIN_OPS)
		child_fail("the child starved: %lu operations",
			   (unsigned long)ops);
	_exit(0);
}

/*
 * Six threads and a forked child on one file: reads and readv of random
 * sizes, writes of bits, every ioctl, poll, epoll and splice, dup()/use/
 * close(), and fresh files closed by one thread while another is inside a
 * call on them.  Every result follows the errno rules, and the die works
 * after.  The kernel log gate (and in the debug tier KASAN, lockdep and
 * kmemleak) watches the rest.
 */
TEST_F_TIMEOUT(slow, shared_fd_many_hands, 300)
{
	static const struct dice_die_args d6 = {
		.sides = 6, .kind = DICE_KIND_FAIR,
		.method = DICE_METHOD_RECYCLE, .format = DICE_FMT_TEXT,
	};
	struct shared_fd sh = { .slot = -1 };
	struct hand h[H_NR];
	pthread_t tid[H_NR];
	struct dice_die_stats st;
	char line[2];
	pid_t pid;
	int i, fd;

	sh.fd = open_die(_metadata, O_RDWR);
	REQUIRE_DIE(sh.fd);
	pthread_mutex_init(&sh.f.lock, NULL);
	sh.end = now() + hostile_seconds();
	sh.cap = sh.end + HAND_MAX_SECONDS;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		child_hands(&sh);
	for (i = 0; i < H_NR; i++) {
		h[i] = (struct hand){ .sh = &sh, .role = i, .rng = 0x5eed + i };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, hand, &h[i]));
	}
	for (i = 0; i < H_NR; i++)
		pthread_join(tid[i], NULL);
	EXPECT_EQ(0, wait_child(pid)) TH_LOG("the forked child failed");
	fd = atomic_exchange(&sh.slot, -1);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < H_NR; i++) {
		TH_LOG("%-22s %8lu operations", hand_name[i],
		       (unsigned long)sh.ops[i]);
		EXPECT_LE(HAND_MIN_OPS, sh.ops[i])
			TH_LOG("%s starved", hand_name[i]);
	}
	EXPECT_EQ(0, sh.f.count) TH_LOG("%lu failures, the first: %s",
				      sh.f.count, sh.f.first);
	/* The die still works. */
	ASSERT_EQ(0, set_u32(sh.fd, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	ASSERT_EQ(0, set_die(sh.fd, &d6));
	ASSERT_EQ(2, read(sh.fd, line, 2));
	EXPECT_TRUE(line[0] >= '1' && line[0] <= '6' && line[1] == '\n');
	get_stats(_metadata, sh.fd, &st);
	EXPECT_GE(st.bits_drawn, st.bits_used + st.bits_discarded);
	close(sh.fd);
}

TEST_HARNESS_MAIN
