// SPDX-License-Identifier: GPL-2.0
/*
 * dice_stress_test.c - concurrency, resource limits and module life of
 * /dev/dice
 *
 * Sections:
 *
 *  - concurrency: eight threads on one file (readers of text and binary,
 *    readv, a reconfigurer cycling sides, format, weights, alias tables,
 *    method and source, a writer of bits, pollers of GET_STATS, GET_INFO
 *    with GET_MASSES, and of the debugfs counters); 32 files at once, each
 *    read by its own thread and every face checked; open/close churn;
 *  - resource limits: sides past DICE_TABLE_SIDES_MAX fail at once with
 *    E2BIG, a table at the limit (2^20 sides) works, installing and replacing it 50 times and closing leaks
 *    no memory, a memory cgroup limit gives ENOMEM (opt-in, see there), a
 *    1 GiB read is interrupted by a signal (partial count) or killed within
 *    bounded time, and a closed file's random state never reaches a new
 *    one;
 *  - module life: unloading is refused while a file is open, and 20 times
 *    in a row the module unloads and loads again with nothing open, also
 *    while another thread keeps opening the device.
 *
 * Threads never use ASSERT_*() (the harness longjmps): they record the
 * first failure, which the main thread checks after joining them.
 *
 * The module cases need root and the module file (DICE_KO, default
 * /dice/dice.ko, where the test VM has it) and are skipped otherwise; they
 * leave the module loaded on every path, since other tests run after them.
 * DICE_STRESS_SECONDS (default 5) sets how long the threads run;
 * DICE_STRESS_MEMCG=0 skips the memory cgroup case.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements (the check, then a loop
 * that runs the optional TH_LOG() and bails out), so under if, else and for
 * they always go in braces.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"

#define DEFAULT_KO	"/dice/dice.ko"

typedef unsigned __int128 u128;

/* ---- helpers (beyond those of dice_common.h) ---------------------------- */

/* A d6 in text from the kernel: the file works. */
static void expect_d6_line(struct __test_metadata *_metadata, int fd)
{
	static const struct dice_die_args d6 = {
		.kind = DICE_KIND_FAIR, .sides = 6,
	};
	char line[2];

	/* Whole: the threads' tables are gone with their stacks. */
	ASSERT_EQ(0, set_die(fd, &d6));
	ASSERT_EQ(0, set_u32(fd, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	ASSERT_EQ(2, read(fd, line, 2)) TH_LOG("read: %s", strerror(errno));
	EXPECT_TRUE(line[0] >= '1' && line[0] <= '6' && line[1] == '\n')
		TH_LOG("line %#x %#x", line[0], line[1]);
}

/* All of /proc/meminfo, for meminfo_diff(). */
static char *meminfo_snapshot(void)
{
	char buf[8192];
	size_t len = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (f) {
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[len] = 0;
	return strdup(buf);
}

/* Log every /proc/meminfo field that moved by more than 1 MiB. */
static void meminfo_diff(struct __test_metadata *_metadata, const char *before)
{
	char *after = meminfo_snapshot(), *l1, *l2, *s1, *s2;
	char n1[64], n2[64];
	long long v1, v2;

	if (!after || !before)
		goto out;
	for (l1 = strtok_r(after, "\n", &s1); l1; l1 = strtok_r(NULL, "\n", &s1)) {
		char *copy = strdup(before);

		if (!copy || sscanf(l1, "%63s %lld", n1, &v1) != 2) {
			free(copy);
			continue;
		}
		for (l2 = strtok_r(copy, "\n", &s2); l2; l2 = strtok_r(NULL, "\n", &s2)) {
			if (sscanf(l2, "%63s %lld", n2, &v2) != 2 || strcmp(n1, n2))
				continue;
			if (v1 - v2 > 1024 || v2 - v1 > 1024)
				TH_LOG("  %-16s %9lld -> %9lld kB", n1, v2, v1);
			break;
		}
		free(copy);
	}
out:
	free(after);
}

static double stress_seconds(void)
{
	const char *s = getenv("DICE_STRESS_SECONDS");
	double v = s ? atof(s) : 0;

	return v > 0 && v <= 300 ? v : 5;
}

/* ---- concurrency: eight threads on one file ---------------------------------- */

FIXTURE(stress) {
	int fd;
};

FIXTURE_SETUP(stress)
{
	char c;

	self->fd = open_die(_metadata, O_RDWR);
	/* Early in boot, reads of kernel bits wait for the CRNG (seconds in
	 * TCG): wait here, so that timed cases time dice, not the boot.
	 */
	ASSERT_EQ(1, getrandom(&c, 1, 0));
}

FIXTURE_TEARDOWN(stress)
{
	if (self->fd >= 0)
		close(self->fd);
}

enum role {
	R_READ_TEXT,
	R_READ_BIN,
	R_READV,
	R_RECONF,
	R_WRITE,
	R_STATS,
	R_INFO,
	R_SYSFS,
	R_NR
};

static const char *const role_name[R_NR] = {
	"reader 1", "reader 2", "readv", "reconfigurer", "writer",
	"stats poller", "die poller", "counter poller",
};

struct shared {
	int fd;
	double end, cap;	/* cap: how far the end may move */
	struct failures f;
	atomic_ulong ops[R_NR];
	atomic_ulong errs[R_NR];
	atomic_ulong bytes;
};

struct worker {
	struct shared *sh;
	enum role role;
	__u64 rng;
};

/* One reconfiguration with valid arguments; errno it may give or 0. */
static void reconfigure(struct worker *w)
{
	static const __u64 sides[] = {
		2, 6, 20, 100, 1000, 65536, 0x100000001ULL, ~0ULL,
	};
	static const __u32 formats[] = {
		DICE_FMT_TEXT, DICE_FMT_U16, DICE_FMT_U8 | DICE_FMT_ZERO_BASED,
		DICE_FMT_U32, DICE_FMT_U64, DICE_FMT_TEXT | DICE_FMT_ZERO_BASED,
	};
	struct shared *sh = w->sh;
	__u32 weights[300], alias[300];
	__u64 thr[300], mass;
	__u32 n, i, sum = 0;
	const char *what;
	int err;

	/*
	 * A whole die each time (SET_DIE), never one built on what another
	 * thread set: fair, by weights or by an alias table, in a random
	 * method and format.  Or the test hook's source.
	 */
	struct dice_die_args die = {
		.method = splitmix(&w->rng) % 4,
		.format = formats[splitmix(&w->rng) % 6],
	};

	switch (splitmix(&w->rng) % 4) {
	case 0:
		what = "SET_DIE fair";
		die.kind = DICE_KIND_FAIR;
		die.sides = sides[splitmix(&w->rng) % 8];
		err = set_die(sh->fd, &die);
		break;
	case 1:
		what = "SET_DIE weights";
		n = 1 + splitmix(&w->rng) % 300;
		for (i = 0; i < n; i++)
			sum += weights[i] = splitmix(&w->rng) % 10;
		if (!sum)
			weights[0] = 1;
		die.kind = DICE_KIND_WEIGHTS;
		die.sides = n;
		die.weights = (uintptr_t)weights;
		err = set_die(sh->fd, &die);
		break;
	case 2:
		what = "SET_DIE alias";
		n = 1 + splitmix(&w->rng) % 300;
		mass = 1 + splitmix(&w->rng) % 1000;
		for (i = 0; i < n; i++) {
			thr[i] = splitmix(&w->rng) % (mass + 1);
			alias[i] = splitmix(&w->rng) % n;
		}
		die.kind = DICE_KIND_ALIAS;
		die.sides = n;
		die.thresholds = (uintptr_t)thr;
		die.aliases = (uintptr_t)alias;
		die.mass = mass;
		err = set_die(sh->fd, &die);
		break;
	default:
		what = "SET_SOURCE";
		/* Mostly kernel bits, so that the readers get to read. */
		err = set_u32(sh->fd, DICE_IOC_SET_SOURCE,
			      splitmix(&w->rng) % 4 == 0);
	}
	/* EOVERFLOW: faces that do not fit the format; EINVAL: a method
	 * that cannot roll a loaded die, either way round.
	 */
	if (err && err != EOVERFLOW && err != EINVAL)
		failed(&sh->f, "%s: %s", what, strerror(err));
	if (err)
		atomic_fetch_add(&sh->errs[w->role], 1);
}

/* The largest face of a d@sides fits @format (a text line fits any). */
static bool face_fits(__u64 sides, __u32 format)
{
	unsigned int width = fmt_width(format);
	__u64 top = format & DICE_FMT_ZERO_BASED ? sides - 1 : sides;

	return !width || width == 8 || top >> (8 * width) == 0;
}

/*
 * Every role must make ROLE_MIN_CALLS calls (the counter poller reads
 * sysfs: 539-554 calls in 5 s on an idle debug kernel, 90 beside four busy
 * loops): the workers run past the end until each role has
 * (window_done()), for up to ROLE_MAX_SECONDS more.
 */
#define ROLE_MIN_CALLS		10
#define ROLE_MAX_SECONDS	60

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	static __thread unsigned char buf[8192];
	__u64 last_rolls = 0, last_sys[3] = { 0 };
	struct dice_die_stats st;
	struct dice_die_info info;
	struct iovec iov[3];
	ssize_t ret;
	size_t len;
	int err, i;

	while (!window_done(sh->end, sh->cap, sh->ops, R_NR, ROLE_MIN_CALLS)) {
		atomic_fetch_add(&sh->ops[w->role], 1);
		switch (w->role) {
		case R_READ_TEXT:
		case R_READ_BIN:
			len = 1 + splitmix(&w->rng) % sizeof(buf);
			ret = read(sh->fd, buf, len);
			/* EINVAL: less than a binary roll asked for;
			 * EAGAIN: written bits ran out.
			 */
			if (ret < 0 && errno != EINVAL && errno != EAGAIN)
				failed(&sh->f, "read %zu: %s", len, strerror(errno));
			else if (ret > (ssize_t)len)
				failed(&sh->f, "read %zu returned %zd", len, ret);
			if (ret < 0)
				atomic_fetch_add(&sh->errs[w->role], 1);
			else
				atomic_fetch_add(&sh->bytes, ret);
			break;
		case R_READV:
			for (i = 0; i < 3; i++) {
				iov[i].iov_base = buf + i * 2048;
				iov[i].iov_len = splitmix(&w->rng) % 2048;
			}
			ret = readv(sh->fd, iov, 3);
			if (ret < 0 && errno != EINVAL && errno != EAGAIN)
				failed(&sh->f, "readv: %s", strerror(errno));
			if (ret < 0)
				atomic_fetch_add(&sh->errs[w->role], 1);
			break;
		case R_RECONF:
			reconfigure(w);
			break;
		case R_WRITE:
			for (i = 0; i < 64; i++)
				buf[i] = splitmix(&w->rng);
			ret = write(sh->fd, buf, 64);
			/* EINVAL: kernel bits; EAGAIN: the buffer is full */
			if (ret < 0 && errno != EINVAL && errno != EAGAIN)
				failed(&sh->f, "write: %s", strerror(errno));
			if (ret < 0)
				atomic_fetch_add(&sh->errs[w->role], 1);
			break;
		case R_STATS:
			err = ioctl_errno(sh->fd, DICE_IOC_GET_STATS, &st);
			if (err) {
				failed(&sh->f, "GET_STATS: %s", strerror(err));
				break;
			}
			if (st.bits_used + st.bits_discarded > st.bits_drawn ||
			    st.coin_bits > st.bits_used || st.rolls < last_rolls)
				failed(&sh->f, "GET_STATS: rolls %llu (was %llu) used %llu discarded %llu drawn %llu coin %llu",
				       st.rolls, last_rolls, st.bits_used,
				       st.bits_discarded, st.bits_drawn,
				       st.coin_bits);
			last_rolls = st.rolls;
			break;
		case R_INFO:
			/*
			 * Every die seen is one that was set whole: never a
			 * loaded die under a fair-only method, never faces
			 * wider than the format (SET_DIE is atomic).
			 */
			err = ioctl_errno(sh->fd, DICE_IOC_GET_DIE, &info);
			if (err || !info.sides || info.kind > DICE_KIND_LOADED ||
			    info.method > DICE_METHOD_ALIAS || info.padding ||
			    (info.kind == DICE_KIND_LOADED &&
			     (info.sides > 300 ||
			      info.method == DICE_METHOD_VIGLIETTA ||
			      info.method == DICE_METHOD_BATCH)) ||
			    !face_fits(info.sides, info.format)) {
				failed(&sh->f, "GET_DIE: %s, sides %llu kind %u method %u format %#x",
				       strerror(err), info.sides, info.kind,
				       info.method, info.format);
				break;
			}
			break;
		default: {
			static const char *const name[3] = {
				"rolls", "bits_used", "bits_drawn",
			};

			for (i = 0; i < 3; i++) {
				__u64 v = counter_u64(name[i]);

				if (v == ~0ULL || v < last_sys[i])
					failed(&sh->f, "counter %s went from %llu to %llu",
					       name[i], last_sys[i], v);
				last_sys[i] = v;
			}
			if (counter_u64("open_dice") < 1)
				failed(&sh->f, "counter open_dice below 1");
		}
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(stress, one_file_eight_threads, 300)
{
	struct shared sh = { .fd = self->fd };
	struct worker w[R_NR];
	pthread_t tid[R_NR];
	struct dice_die_stats st;
	double secs = stress_seconds();
	int i;

	REQUIRE_DIE(self->fd);
	pthread_mutex_init(&sh.f.lock, NULL);
	sh.end = now() + secs;
	sh.cap = sh.end + ROLE_MAX_SECONDS;
	for (i = 0; i < R_NR; i++) {
		w[i].sh = &sh;
		w[i].role = i;
		w[i].rng = 0x5eed + i;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, worker, &w[i]));
	}
	for (i = 0; i < R_NR; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < R_NR; i++) {
		TH_LOG("%-18s %8lu calls, %8lu refused", role_name[i],
		       (unsigned long)sh.ops[i], (unsigned long)sh.errs[i]);
		/* Nobody starved on the file's mutex. */
		EXPECT_LE(ROLE_MIN_CALLS, sh.ops[i])
			TH_LOG("%s starved", role_name[i]);
	}
	EXPECT_EQ(0, sh.f.count) TH_LOG("%lu failures, the first: %s",
				      sh.f.count, sh.f.first);
	ASSERT_EQ(0, ioctl_errno(self->fd, DICE_IOC_GET_STATS, &st));
	/* Refusals are mostly EAGAIN while the source is written bits:
	 * they come back at once, so they outnumber the reads that work.
	 */
	TH_LOG("%.0f s: %lu bytes read; %llu rolls, %llu bits used, %llu drawn, %llu discarded",
	       secs, (unsigned long)sh.bytes, st.rolls, st.bits_used,
	       st.bits_drawn, st.bits_discarded);
	EXPECT_LT(0, st.rolls);
	expect_d6_line(_metadata, self->fd);
}

/* ---- concurrency: 32 files at once ------------------------------------------- */

#define NFILES	32
#define FILE_ROLLS 20000

struct one_file {
	struct shared *sh;
	int index;
	int fd;
	__u64 rolls;
	pthread_barrier_t *open_barrier;
};

/*
 * File i is a d(2 + i); the odd ones are loaded with no mass on odd faces.
 * Formats rotate through U8, U16, U32, U64 and text; every face is checked.
 */
static void *one_file(void *arg)
{
	struct one_file *of = arg;
	struct shared *sh = of->sh;
	static const __u32 formats[5] = {
		DICE_FMT_U8, DICE_FMT_U16, DICE_FMT_U32, DICE_FMT_U64,
		DICE_FMT_TEXT,
	};
	__u32 sides = 2 + of->index, fmt = formats[of->index % 5];
	unsigned int width = fmt_width(fmt), i;
	bool loaded = of->index % 2;
	unsigned char buf[4096];
	struct dice_die_stats st;
	__u64 v = 0;
	__u32 w[64];
	int err;

	of->fd = open(DICE_PATH, O_RDONLY | O_CLOEXEC);
	pthread_barrier_wait(of->open_barrier);	/* all 32 open at once */
	if (of->fd < 0) {
		failed(&sh->f, "file %d: open: %s", of->index, strerror(errno));
		pthread_barrier_wait(of->open_barrier);
		return NULL;
	}
	if (loaded) {
		for (i = 0; i < sides; i++)
			w[i] = i % 2 ? 0 : 1 + i;	/* faces 1, 3, 5, ... */
		err = die_set_format(of->fd, fmt) ?:
		      set_weights(of->fd, w, sides);
	} else {
		err = die_set_format(of->fd, fmt) ?:
		      die_set_sides(of->fd, sides);
	}
	if (err)
		failed(&sh->f, "file %d: configure: %s", of->index, strerror(err));
	while (!err && of->rolls < FILE_ROLLS) {
		if (width) {
			if (!read_full(of->fd, buf, sizeof(buf))) {
				failed(&sh->f, "file %d: read: %s", of->index,
				       strerror(errno));
				break;
			}
			for (i = 0; i < sizeof(buf); i += width) {
				__u64 face = get_le(buf + i, width);

				if (face < 1 || face > sides ||
				    (loaded && !(face % 2)))
					failed(&sh->f, "file %d: face %llu of a %sd%u",
					       of->index, face,
					       loaded ? "loaded " : "", sides);
			}
			of->rolls += sizeof(buf) / width;
		} else {
			ssize_t ret = read(of->fd, buf, sizeof(buf));
			ssize_t j;

			if (ret <= 0) {
				failed(&sh->f, "file %d: read: %s", of->index,
				       strerror(errno));
				break;
			}
			/* A line may go on in the next read. */
			for (j = 0; j < ret; j++) {
				if (buf[j] != '\n') {
					v = v * 10 + buf[j] - '0';
					continue;
				}
				if (v < 1 || v > sides || (loaded && !(v % 2)))
					failed(&sh->f, "file %d: line %llu of a %sd%u",
					       of->index, v, loaded ? "loaded " : "",
					       sides);
				of->rolls++;
				v = 0;
			}
		}
	}
	if (!ioctl_errno(of->fd, DICE_IOC_GET_STATS, &st) && width &&
	    st.rolls != of->rolls)
		failed(&sh->f, "file %d: %llu rolls read, stats say %llu",
		       of->index, of->rolls, st.rolls);
	pthread_barrier_wait(of->open_barrier);	/* all 32 still open */
	close(of->fd);
	return NULL;
}

TEST_F_TIMEOUT(stress, thirty_two_files, 300)
{
	struct shared sh = { 0 };
	struct one_file of[NFILES];
	pthread_t tid[NFILES];
	pthread_barrier_t barrier;
	__u64 before, during, after;
	double t0;
	int i;

	REQUIRE_DIE(self->fd);
	pthread_mutex_init(&sh.f.lock, NULL);
	before = counter_u64("open_dice");
	ASSERT_EQ(0, pthread_barrier_init(&barrier, NULL, NFILES + 1));
	t0 = now();
	for (i = 0; i < NFILES; i++) {
		of[i] = (struct one_file){ .sh = &sh, .index = i,
					   .open_barrier = &barrier };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, one_file, &of[i]));
	}
	pthread_barrier_wait(&barrier);
	during = counter_u64("open_dice");
	pthread_barrier_wait(&barrier);
	for (i = 0; i < NFILES; i++)
		pthread_join(tid[i], NULL);
	after = counter_u64("open_dice");
	TH_LOG("%d files, %d rolls each, in %.1f s; open_dice %llu, %llu, %llu",
	       NFILES, FILE_ROLLS, now() - t0, before, during, after);
	EXPECT_EQ(0, sh.f.count) TH_LOG("%lu failures, the first: %s",
				      sh.f.count, sh.f.first);
	EXPECT_EQ(before + NFILES, during);
	EXPECT_EQ(before, after);
	pthread_barrier_destroy(&barrier);
}

/* ---- concurrency: open/close churn ----------------------------------------------- */

#define CHURN_THREADS	4
#define CHURN_OPENS	2500	/* per thread */

static void *churn(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	static const __u32 weights[1000] = { [0] = 1, [999] = 3 };
	unsigned char buf[100];
	int n, fd, err;

	for (n = 0; n < CHURN_OPENS; n++) {
		fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			failed(&sh->f, "open %d: %s", n, strerror(errno));
			return NULL;
		}
		atomic_fetch_add(&sh->ops[0], 1);
		err = 0;
		switch (splitmix(&w->rng) % 4) {
		case 0:		/* open and close only */
			break;
		case 1:
			if (read(fd, buf, sizeof(buf)) <= 0)
				err = errno;
			break;
		case 2:		/* a table for release to free */
			err = set_weights(fd, weights, 1000);
			break;
		default:	/* bits for release to wipe */
			err = set_u32(fd, DICE_IOC_SET_SOURCE,
				      DICE_SRC_WRITTEN);
			if (!err && write(fd, buf, sizeof(buf)) != sizeof(buf))
				err = errno;
		}
		if (err)
			failed(&sh->f, "churn %d: %s", n, strerror(err));
		if (close(fd))
			failed(&sh->f, "close: %s", strerror(errno));
	}
	return NULL;
}

TEST_F_TIMEOUT(stress, open_close_churn, 300)
{
	struct shared sh = { 0 };
	struct worker w[CHURN_THREADS];
	pthread_t tid[CHURN_THREADS];
	__u64 before, after;
	long long vm0, vm1;
	double t0;
	int i;

	REQUIRE_DIE(self->fd);
	pthread_mutex_init(&sh.f.lock, NULL);
	before = counter_u64("open_dice");
	vm0 = meminfo("VmallocUsed");
	t0 = now();
	for (i = 0; i < CHURN_THREADS; i++) {
		w[i] = (struct worker){ .sh = &sh, .rng = 77 + i };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, churn, &w[i]));
	}
	for (i = 0; i < CHURN_THREADS; i++)
		pthread_join(tid[i], NULL);
	after = counter_u64("open_dice");
	vm1 = meminfo("VmallocUsed");
	TH_LOG("%lu opens and closes by %d threads in %.1f s; open_dice %llu then %llu; VmallocUsed %lld then %lld KiB",
	       (unsigned long)sh.ops[0], CHURN_THREADS, now() - t0, before,
	       after, vm0, vm1);
	EXPECT_EQ(0, sh.f.count) TH_LOG("%lu failures, the first: %s",
				      sh.f.count, sh.f.first);
	EXPECT_EQ(CHURN_THREADS * CHURN_OPENS, sh.ops[0]);
	EXPECT_EQ(before, after);
	expect_d6_line(_metadata, self->fd);
}

/* ---- resource limits --------------------------------------------------------------- */

/*
 * Past DICE_TABLE_SIDES_MAX, both loaded-die ioctls fail at once, before
 * any copy.
 */
TEST_F(stress, sides_past_max_e2big_fast)
{
	__u64 max = DICE_TABLE_SIDES_MAX;
	static const __u32 w[2] = { 1, 1 };
	__u32 sides[3];
	double t0, took;
	int i, k;

	REQUIRE_DIE(self->fd);
	sides[0] = max + 1;
	sides[1] = 0xffffffffU;
	sides[2] = 0x80000000U;
	t0 = now();
	for (i = 0; i < 1000; i++) {
		for (k = 0; k < 3; k++) {
			/* NULL arrays: E2BIG comes before they are read. */
			ASSERT_EQ(E2BIG, set_weights(self->fd, NULL, sides[k]));
			ASSERT_EQ(E2BIG, set_alias(self->fd, NULL, NULL, 1,
						   sides[k]));
		}
	}
	took = now() - t0;
	TH_LOG("6000 refusals in %.3f s", took);
	/* No allocation, no copy: far below a millisecond each, even in TCG. */
	EXPECT_GT(6.0, took);
	/* The die did not change. */
	ASSERT_EQ(0, set_weights(self->fd, w, 2));
	ASSERT_EQ(E2BIG, set_weights(self->fd, w, max + 1));
	expect_d6_line(_metadata, self->fd);
}

FIXTURE(limit) {
	int fd;
};

FIXTURE_SETUP(limit)
{
	self->fd = open_die(_metadata, O_RDWR);
}

FIXTURE_TEARDOWN(limit)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Weights of a loaded die at the limit: side i has weight i % 7. */
static __u32 *limit_weights(__u32 n)
{
	__u32 *w = malloc((size_t)n * sizeof(*w)), i;

	if (w)
		for (i = 0; i < n; i++)
			w[i] = i % 7;
	return w;
}

/*
 * The largest table allowed works: the die is the one set, its rolls have
 * mass, and weighted by residue mod 7 (weight i % 7) they fit: side
 * classes r = 1..6 come up r times as often as a class of weight 1.
 */
TEST_F_TIMEOUT(limit, table_at_max_sides, 300)
{
	__u64 *thr, i, counts[7] = { 0 }, per[7] = { 0 };
	struct dice_die_info info;
	unsigned char *buf;
	double chi2 = 0, total = 0;
	__u32 *w, *alias, n;
	const size_t nrolls = 100000;
	double t0;

	REQUIRE_DIE(self->fd);
	n = table_sides();
	w = limit_weights(n);
	thr = malloc((size_t)n * sizeof(*thr));
	alias = malloc((size_t)n * sizeof(*alias));
	buf = malloc(nrolls * 4);
	ASSERT_TRUE(w && thr && alias && buf);

	t0 = now();
	ASSERT_EQ(0, die_set_format(self->fd,
			     DICE_FMT_U32 | DICE_FMT_ZERO_BASED));
	ASSERT_EQ(0, set_weights(self->fd, w, n));
	TH_LOG("SET_WEIGHTS of %u sides: %.3f s", n, now() - t0);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(n, info.sides);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	t0 = now();
	ASSERT_TRUE(read_full(self->fd, buf, nrolls * 4));
	TH_LOG("%zu rolls: %.3f s", nrolls, now() - t0);
	for (i = 0; i < nrolls; i++) {
		__u64 face = get_le(buf + 4 * i, 4);

		ASSERT_GT(n, face);
		ASSERT_NE(0, face % 7) TH_LOG("face %llu has no weight", face);
		counts[face % 7]++;
	}
	for (i = 0; i < n; i++)
		per[i % 7] += i % 7;	/* the mass of each residue class */
	for (i = 0; i < 7; i++)
		total += per[i];
	for (i = 1; i < 7; i++) {
		double e = nrolls * per[i] / total;

		chi2 += (counts[i] - e) * (counts[i] - e) / e;
	}
	/* 5 degrees of freedom: 20.5 is p = 0.001. */
	EXPECT_GT(20.5, chi2) TH_LOG("residues mod 7: chi-square %.1f", chi2);

	/* The same size as a user alias table: every column full. */
	for (i = 0; i < n; i++) {
		thr[i] = 5;
		alias[i] = n - 1 - i;
	}
	thr[0] = 2;	/* column 0 gives 3 of its 5 to side n - 1 */
	t0 = now();
	ASSERT_EQ(0, set_alias(self->fd, thr, alias, 5, n));
	TH_LOG("SET_ALIAS of %u sides: %.3f s", n, now() - t0);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(n, info.sides);
	EXPECT_EQ(DICE_KIND_LOADED, info.kind);
	ASSERT_TRUE(read_full(self->fd, buf, nrolls * 4));
	for (i = 0; i < nrolls; i++) {
		ASSERT_GT(n, get_le(buf + 4 * i, 4));
	}
	free(w);
	free(thr);
	free(alias);
	free(buf);
}

/*
 * Tables live in kvmalloc()ed memory charged to the caller: installing and
 * replacing the largest one 50 times, then closing, must give it all back.
 * VmallocUsed sees the table itself, exactly; MemAvailable sees everything,
 * roughly.  (A memory cgroup limit would make the kernel's own allocation
 * fail; the test VM has none set up, and a failed vmalloc() warns in the
 * kernel log, which the VM counts as a failure.)
 */
TEST_F_TIMEOUT(limit, table_replace_no_leak, 600)
{
	__u64 *thr;
	long long vm0, vm1, vm2, av0, av2;
	char *snap;
	__u32 *w, *alias, n, i;
	double t0;
	int fd, k;

	REQUIRE_DIE(self->fd);
	n = table_sides();
	w = limit_weights(n);
	thr = malloc((size_t)n * sizeof(*thr));
	alias = malloc((size_t)n * sizeof(*alias));
	ASSERT_TRUE(w && thr && alias);
	for (i = 0; i < n; i++) {
		thr[i] = i % 3;
		alias[i] = (i + 1) % n;
	}
	vm0 = meminfo("VmallocUsed");
	av0 = meminfo("MemAvailable");
	snap = meminfo_snapshot();
	if (vm0 < 0 || av0 < 0)
		SKIP(return, "no /proc/meminfo");

	fd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	t0 = now();
	for (k = 0; k < 50; k++) {
		if (k % 2) {
			ASSERT_EQ(0, set_alias(fd, thr, alias, 2, n));
		} else {
			ASSERT_EQ(0, set_weights(fd, w, n));
		}
	}
	vm1 = meminfo("VmallocUsed");
	close(fd);
	vm2 = meminfo("VmallocUsed");
	av2 = meminfo("MemAvailable");
	TH_LOG("50 tables of %u sides in %.1f s; VmallocUsed %lld, %lld with one installed, %lld after close (KiB); MemAvailable %lld then %lld",
	       n, now() - t0, vm0, vm1, vm2, av0, av2);
	/*
	 * The last table, alias columns of mass 2, is packed: 16 bytes a side
	 * (the 28 of the unpacked arrays are freed once it is built).
	 */
	EXPECT_LE(vm0 + (long long)n * 16 / 1024 * 9 / 10, vm1);
	EXPECT_GE(vm0 + (long long)n * 16 / 1024 * 3 / 2, vm1);
	/* All of it back: less than a page table's worth of slack. */
	EXPECT_GE(vm0 + 512, vm2);
	/*
	 * Freed pages may linger on per-CPU lists, unseen as free (about
	 * 15-30 MiB here in TCG), but a leak per replacement would cost 50
	 * weight buffers (200 MiB) or 50 tables (1.4 GiB, more than the VM).
	 * So the bound is a leak's size, not the lingering pages' (which
	 * reached 48 MiB once in CI): VmallocUsed above is the exact check.
	 */
	EXPECT_LE(av0 - 131072, av2) TH_LOG("MemAvailable lost %lld KiB",
					    av0 - av2);
	meminfo_diff(_metadata, snap);
	free(snap);
	free(w);
	free(thr);
	free(alias);
}

/*
 * A memory cgroup limit below a table's size: the ioctl must fail with
 * ENOMEM and leave the die as it was, not invoke the OOM killer on the
 * caller (nor warn in the kernel log).  That needs the module to allocate
 * tables with __GFP_RETRY_MAYFAIL | __GFP_NOWARN; with GFP_KERNEL_ACCOUNT
 * alone the memcg OOM killer SIGKILLs the caller and logs a stack dump.
 * DICE_STRESS_MEMCG=0 skips it.
 */
#define CG_MNT		"/tmp/dice-cgroup2"
#define CG_LIMIT	"16M"
/* What memcg may hold beyond a die's table: its per-CPU charge stocks. */
#define CG_SLACK	(1LL << 20)

/* A cgroup2 mount point with the memory controller, or NULL. */
static const char *cgroup2_root(bool *mounted)
{
	static char root[256];
	char dev[256], dir[256], type[64];
	FILE *f = fopen("/proc/mounts", "re");

	*mounted = false;
	root[0] = 0;
	while (f && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!root[0]) {
		mkdir(CG_MNT, 0755);
		if (mount("none", CG_MNT, "cgroup2", 0, NULL))
			return NULL;
		*mounted = true;
		snprintf(root, sizeof(root), "%s", CG_MNT);
	}
	return root;
}

/* The value of KEY in the cgroup file @cg/@name ("KEY VALUE" lines), or -1. */
static long long cg_value(const char *cg, const char *name, const char *key)
{
	char path[400], line[128];
	long long val = -1;
	size_t len = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, name);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!*key)
			val = strtoll(line, NULL, 10);
		else if (!strncmp(line, key, len) && line[len] == ' ')
			val = strtoll(line + len + 1, NULL, 10);
	}
	if (f)
		fclose(f);
	return val;
}

/*
 * memory.current read again through @fd, opened and read once before the
 * child joined the cgroup, or -1.  Inside the cgroup the child must not
 * allocate until its refused table's pages are back: an open() (a struct
 * file) or a malloc() there would meet the limit, and the memcg OOM killer
 * answers those.  A seq_file keeps its buffer, so reading again allocates
 * nothing.
 */
static long long cg_current_at(int fd)
{
	char buf[32];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		return -1;
	buf[len] = 0;
	return strtoll(buf, NULL, 10);
}

TEST_F_TIMEOUT(limit, memcg_limit_gives_enomem, 120)
{
	const char *opt = getenv("DICE_STRESS_MEMCG"), *root;
	long long oom, oom_kills, events_max, peak;
	static __u32 w[DICE_TABLE_SIDES_MAX];
	char cg[320], path[400], *said;
	bool mounted;
	int status;
	__u64 max;
	pid_t pid;
	__u32 i;

	REQUIRE_DIE(self->fd);
	if (opt && !strcmp(opt, "0"))
		SKIP(return, "DICE_STRESS_MEMCG=0");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	max = table_sides();
	root = cgroup2_root(&mounted);
	if (!root)
		SKIP(return, "no cgroup2: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	write_file(path, "+memory");
	snprintf(cg, sizeof(cg), "%s/dice-stress-%d", root, getpid());
	mkdir(cg, 0755);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	if (!write_file(path, CG_LIMIT)) {
		rmdir(cg);
		if (mounted)
			umount(CG_MNT);
		SKIP(return, "no memory controller in %s", root);
	}
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	write_file(path, "0");
	/* Touched here, so the child's reads charge nothing to its cgroup. */
	for (i = 0; i < max; i++)
		w[i] = 1 + i % 3;
	/*
	 * What the child says goes into a shared page touched here, not down
	 * a pipe, whose buffer page would be charged to the child's cgroup
	 * when it writes.
	 */
	said = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, said);
	memset(said, 0, 4096);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		long long before = -1, at_refusal = -1, after_wait = -1;
		long long waited = 0;
		int dfd, cfd, err = 0, step;
		__u32 n, last = 0;
		unsigned char roll[4];
		ssize_t got = 0;
		char me[32];

		/*
		 * Every page of the child made its own before it joins
		 * (mlockall() breaks copy-on-write and faults in): after
		 * that, a fault at the limit is the memcg OOM killer's to
		 * answer, whatever the module does.  It was, on 7.3: a
		 * do_wp_page() charge between two ioctls, with the memcg's
		 * pages still on their way back from the refused table.
		 */
		memset(roll, 0, sizeof(roll));
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			_exit(9);
		snprintf(path, sizeof(path), "%s/memory.current", cg);
		cfd = open(path, O_RDONLY | O_CLOEXEC);
		if (cfd < 0 || cg_current_at(cfd) < 0) {
			snprintf(said, 4096, "no memory.current: %s",
				 strerror(errno));
			_exit(16);
		}
		snprintf(me, sizeof(me), "%d", getpid());
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (!write_file(path, me))
			_exit(10);
		step = 11;
		dfd = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		if (dfd < 0 || die_set_format(dfd, DICE_FMT_U32))
			goto out;
		/* Bigger and bigger tables until the limit says no. */
		for (n = 1024; n <= max && !err; n *= 2) {
			err = set_weights(dfd, w, n);
			if (!err) {
				last = n;
				before = cg_current_at(cfd);
			}
		}
		step = 12;	/* the limit never bit, or not cleanly */
		if (err != ENOMEM)
			goto out;
		/*
		 * The refused build's pages back first.  7.3 gives them back
		 * to the memcg a moment after the ioctl fails (memory.current
		 * up to 16.0 MiB at the refusal, 6.4 10 ms later; 6.1 and
		 * 6.12 are at 6.4 at once), and until then any allocation of
		 * the child meets the limit: an openat() was OOM-killed there,
		 * and a small table refused.  So the child waits, without
		 * allocating, for memory.current to come back to what it was
		 * before the refused ioctl (the table kept, packed or not, may
		 * be most of the limit); a leak never gets there, and fails in
		 * 5 s.
		 */
		at_refusal = cg_current_at(cfd);
		while ((after_wait = cg_current_at(cfd)) > before + CG_SLACK &&
		       waited < 5000) {
			usleep(10000);
			waited += 10;
		}
		step = 15;
		if (before < 0 || after_wait < 0 ||
		    after_wait > before + CG_SLACK)
			goto out;
		/* The die is still the last table that fit, and works. */
		step = 13;
		got = read(dfd, roll, 4);
		if (got != 4 || get_le(roll, 4) < 1 || get_le(roll, 4) > last)
			goto out;
		/* And a small table fits again. */
		step = 14;
		err = set_weights(dfd, w, 6);
		if (err)
			goto out;
		close(dfd);
		step = 0;
out:
		snprintf(said, 4096,
			 "step %d: %u sides last fit, then errno %d (%s); read %zd bytes, roll %llu; memory.current %lld before the refusal, %lld at it, %lld after %lld ms",
			 step, last, err, strerror(err), got,
			 (unsigned long long)get_le(roll, 4), before,
			 at_refusal, after_wait, waited);
		_exit(step);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	oom = cg_value(cg, "memory.events", "oom");
	oom_kills = cg_value(cg, "memory.events", "oom_kill");
	events_max = cg_value(cg, "memory.events", "max");
	peak = cg_value(cg, "memory.peak", "");
	rmdir(cg);
	if (mounted)
		umount(CG_MNT);
	TH_LOG("child: %s; memory.events: max %lld, oom %lld, oom_kill %lld; memory.peak %lld",
	       said[0] ? said : "(said nothing)", events_max, oom, oom_kills,
	       peak);
	munmap(said, 4096);
	EXPECT_EQ(0, oom_kills) TH_LOG("the memcg OOM killer ran");
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("the caller died of signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("step %d: 9 = no mlockall(), 10 = no cgroup, 11 = no die, 12 = no clean ENOMEM, 13 = the die broke, 14 = no small table after, 15 = memory.current never came back, 16 = no memory.current",
		       WEXITSTATUS(status));
}

/* ---- a huge read: interruptible and bounded ---------------------------------------- */

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

FIXTURE(huge) {
	int fd;
	unsigned char *buf;
};

FIXTURE_VARIANT(huge) {
	__u32 format;
	__u64 sides;
};

FIXTURE_VARIANT_ADD(huge, u8_d6) {
	.format = DICE_FMT_U8,
	.sides = 6,
};

FIXTURE_VARIANT_ADD(huge, u64_dmax) {
	.format = DICE_FMT_U64,
	.sides = ~0ULL,
};

FIXTURE_VARIANT_ADD(huge, text_d1000) {
	.format = DICE_FMT_TEXT,
	.sides = 1000,
};

#define HUGE	((size_t)1 << 30)

FIXTURE_SETUP(huge)
{
	self->fd = open_die(_metadata, O_RDWR);
	self->buf = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	if (self->fd >= 0) {
		ASSERT_EQ(0, die_set_format(self->fd,
				     variant->format));
		ASSERT_EQ(0, die_set_sides(self->fd,
				     variant->sides));
	}
}

FIXTURE_TEARDOWN(huge)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, HUGE);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * A signal 300 ms into a 1 GiB read ends it with the bytes served so far,
 * whole rolls, soon after the signal.
 */
TEST_F_TIMEOUT(huge, interrupted_by_signal, 120)
{
	struct itimerval timer = { .it_value = { .tv_usec = 300000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int width = fmt_width(variant->format);
	double due = timer.it_value.tv_usec / 1e6, t0, t1;
	ssize_t ret;
	int err;

	REQUIRE_DIE(self->fd);
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));	/* no SA_RESTART */
	alarmed = 0;
	t0 = now();
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &timer, NULL));
	ret = read(self->fd, self->buf, HUGE);
	err = errno;
	t1 = now();
	TH_LOG("read of 1 GiB: %zd bytes in %.3f s, %.3f s after the signal was due",
	       ret, t1 - t0, t1 - t0 - due);
	ASSERT_TRUE(alarmed) TH_LOG("the read ended before the signal: %s",
				       ret < 0 ? strerror(err) : "done");
	ASSERT_LT(0, ret) TH_LOG("read: %s", strerror(err));
	EXPECT_GT((ssize_t)HUGE, ret);
	if (width) {
		EXPECT_EQ(0, ret % width);
	}
	/*
	 * Bounded: chunks of 1024 bytes check for signals.  From when the
	 * timer was due (the handler runs only after the read has returned);
	 * 2 s, where a read that missed the signal would take the whole
	 * gigabyte (over 10 s under TCG) and serve it all.
	 */
	EXPECT_GT(2.0, t1 - t0 - due);
	expect_d6_line(_metadata, self->fd);
}

/* Resident pages of process @pid (/proc/PID/statm), or -1. */
static long resident_pages(pid_t pid)
{
	char path[64];
	long size, res;
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	got = fscanf(f, "%ld %ld", &size, &res);
	fclose(f);
	return got == 2 ? res : -1;
}

/*
 * SIGKILL ends a reader in a 1 GiB read within bounded time.  The kill
 * comes once the read is copying (the reader's resident memory grows as
 * the copy faults its buffer in), not after a sleep a slow guest may
 * outlast; not by GET_STATS, which waits for the file's lock that the
 * read holds.
 */
TEST_F_TIMEOUT(huge, killed, 120)
{
	double t0, took;
	long base, res;
	int status, i;
	pid_t pid;

	REQUIRE_DIE(self->fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		(void)!read(self->fd, self->buf, HUGE);
		_exit(0);
	}
	base = resident_pages(pid);
	res = base;
	for (i = 0; i < 2000 && res >= 0 && res < base + 256; i++) {
		usleep(10000);
		res = resident_pages(pid);
	}
	ASSERT_LE(base + 256, res) TH_LOG("the read never copied a MiB");
	t0 = now();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	took = now() - t0;
	TH_LOG("killed reader reaped %.3f s after SIGKILL", took);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("the read ended by itself");
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	EXPECT_GT(1.0, took);
	expect_d6_line(_metadata, self->fd);
}

/* With written bits a huge read never blocks: it serves what there is. */
TEST_F_TIMEOUT(huge, written_bits_run_out, 60)
{
	unsigned char bits[1000];
	double t0;
	ssize_t ret;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	EXPECT_EQ(-1, read(self->fd, self->buf, HUGE));
	EXPECT_EQ(EAGAIN, errno);
	memset(bits, 0x5a, sizeof(bits));
	ASSERT_EQ((ssize_t)sizeof(bits), write(self->fd, bits, sizeof(bits)));
	t0 = now();
	ret = read(self->fd, self->buf, HUGE);
	TH_LOG("%zd bytes from 8000 written bits in %.3f s", ret, now() - t0);
	ASSERT_LT(0, ret);
	EXPECT_GT(8000, ret);
	EXPECT_EQ(-1, read(self->fd, self->buf, HUGE));
	EXPECT_EQ(EAGAIN, errno);
}

/* ---- release forgets the random state ------------------------------------------------ */

/*
 * Release wipes a file's state with memzero_explicit(), which userspace
 * cannot watch.  What it can check: a new file starts from nothing (zero
 * stats, the default die, no written bits left from a file closed just
 * before, whose memory it may well reuse), and two files fed the same bits
 * roll the same faces, so no state crosses from one file to another.
 */
/*
 * Readers sharing one file of text rolls: every read() with room for a
 * line returns whole lines, so however two threads or two processes
 * interleave, each line one of them gets is a face of the die.  (Reads of
 * 4096 bytes once ended inside a line, and the other reader got its end:
 * "264" and empty lines from a d100.)
 */
#define SHARED_READS	2000

/* Count the lines of @buf that are no face of a d100; -1 if it is torn. */
static long bad_d100_lines(const char *buf, size_t len)
{
	size_t start = 0, i;
	long bad = 0;

	if (!len || buf[len - 1] != '\n')
		return -1;
	for (i = 0; i < len; i++) {
		unsigned long face = 0;
		size_t j;

		if (buf[i] != '\n')
			continue;
		for (j = start; j < i && buf[j] >= '0' && buf[j] <= '9'; j++)
			face = face * 10 + buf[j] - '0';
		if (j != i || i == start || i - start > 3 || buf[start] == '0' ||
		    face < 1 || face > 100)
			bad++;
		start = i + 1;
	}
	return bad;
}

static void *shared_reader(void *arg)
{
	long bad = 0, b;
	char buf[4096];
	int fd = *(int *)arg, i;
	ssize_t n;

	for (i = 0; i < SHARED_READS; i++) {
		n = read(fd, buf, sizeof(buf));
		b = n > 0 ? bad_d100_lines(buf, n) : -1;
		if (b < 0)
			return (void *)-1L;
		bad += b;
	}
	return (void *)bad;
}

TEST_F_TIMEOUT(stress, text_readers_share_whole_lines, 300)
{
	pthread_t t[2];
	void *ret[2];
	pid_t pid[2];
	int i, status;

	set_sides(_metadata, self->fd, 100);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, shared_reader,
					    &self->fd));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &ret[i]));
		EXPECT_EQ(0, (long)ret[i])
			TH_LOG("thread %d: %ld lines no d100 rolls (-1: a torn read)",
			       i, (long)ret[i]);
	}
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(shared_reader(&self->fd) ? 1 : 0);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("process %d read lines no d100 rolls", i);
	}
}

/*
 * A file rolled from the CRNG holds none of its output ahead of need: one
 * get_random_u64() a word, so after any read under two words wait unspent
 * (a roll looks up to 64 bits ahead).  It once held an 8192-bit pool.
 */
TEST_F(stress, crng_drawn_as_needed)
{
	static const __u64 sides[] = { 6, 100, 1000003, ~0ULL };
	static const size_t lens[] = { 2, 64, 4096, 65536 };
	static char buf[65536];
	struct dice_die_stats st;
	unsigned int d, l;

	for (d = 0; d < ARRAY_SIZE(sides); d++) {
		set_sides(_metadata, self->fd, sides[d]);
		for (l = 0; l < ARRAY_SIZE(lens); l++) {
			ASSERT_LT(0, read(self->fd, buf, lens[l]));
			get_stats(_metadata, self->fd, &st);
			EXPECT_GT(128, st.bits_drawn - st.bits_used -
				       st.bits_discarded)
				TH_LOG("d%llu, read of %zu: %llu bits drawn, %llu used, %llu discarded",
				       (unsigned long long)sides[d], lens[l],
				       (unsigned long long)st.bits_drawn,
				       (unsigned long long)st.bits_used,
				       (unsigned long long)st.bits_discarded);
		}
	}
}

/*
 * A hibernation image may be restored more than once, so a restore drops
 * what each file holds, as a VM fork does (the PM notifier).  The freezer
 * test of hibernation (pm_test) runs the same notifiers without an image.
 */
TEST_F_TIMEOUT(stress, hibernation_drops_state, 120)
{
	struct dice_die_stats before, after;
	char states[256] = "";
	char buf[64];
	bool watchdog;
	__u64 thresh = 0;
	int fd, tries;
	ssize_t n;

	fd = open("/sys/power/state", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, states, sizeof(states) - 1);
		states[n > 0 ? n : 0] = 0;
		close(fd);
	}
	if (geteuid() || !strstr(states, "disk") ||
	    access("/sys/power/pm_test", W_OK))
		SKIP(return, "needs root, hibernation and pm_test (CONFIG_PM_DEBUG)");
	/* Some bits held unspent, so the drop shows in bits_discarded. */
	for (tries = 0; tries < 100; tries++) {
		ASSERT_LT(0, read(self->fd, buf, 2));
		get_stats(_metadata, self->fd, &before);
		if (before.bits_drawn > before.bits_used + before.bits_discarded)
			break;
	}
	/*
	 * The freezer test ends in hibernation_debug_sleep(): mdelay(5000),
	 * five seconds of the kernel's own that never yield.  The guest's
	 * watchdog (run.sh: watchdog_thresh=5, a lockup after 10 s) calls
	 * that a soft lockup once TCG on a loaded host stretches the delay,
	 * so the threshold is raised around it and put back.
	 */
	watchdog = read_u64_file("/proc/sys/kernel/watchdog_thresh", &thresh);
	if (watchdog)
		ASSERT_TRUE(write_file("/proc/sys/kernel/watchdog_thresh", "60"));
	ASSERT_TRUE(write_file("/sys/power/pm_test", "freezer"));
	EXPECT_TRUE(write_file("/sys/power/state", "disk"))
		TH_LOG("hibernation's freezer test: %s", strerror(errno));
	ASSERT_TRUE(write_file("/sys/power/pm_test", "none"));
	if (watchdog) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)thresh);
		ASSERT_TRUE(write_file("/proc/sys/kernel/watchdog_thresh",
				       buf));
	}
	ASSERT_LT(0, read(self->fd, buf, 2));
	get_stats(_metadata, self->fd, &after);
	EXPECT_EQ(before.bits_drawn - before.bits_used - before.bits_discarded,
		  after.bits_discarded - before.bits_discarded)
		TH_LOG("the held bits were not dropped");
}

TEST_F(stress, release_forgets_state)
{
	static const __u32 w[5] = { 2, 2, 6, 1, 1 };
	/* The file's bit buffer holds 1024 bytes: all of these fit. */
	unsigned char bits[1000], a[512], b[512], c[512];
	struct dice_die_stats st;
	struct dice_die_info info;
	int fa, fb, fc, k;
	ssize_t na, nb, nc;

	REQUIRE_DIE(self->fd);
	for (k = 0; k < (int)sizeof(bits); k++)
		bits[k] = k * 37 + 11;

	for (k = 0; k < 20; k++) {
		/* A file with bits, a table, rolls and a partial line... */
		fa = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fa);
		ASSERT_EQ(0, set_u32(fa, DICE_IOC_SET_SOURCE,
				     DICE_SRC_WRITTEN));
		ASSERT_EQ(0, set_weights(fa, w, 5));
		ASSERT_EQ((ssize_t)sizeof(bits), write(fa, bits, sizeof(bits)));
		ASSERT_EQ(1, read(fa, a, 1));
		close(fa);
		/* ...leaves nothing to the next one. */
		fb = open(DICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fb);
		ASSERT_EQ(0, ioctl_errno(fb, DICE_IOC_GET_STATS, &st));
		EXPECT_EQ(0, st.rolls | st.bits_used | st.bits_drawn |
			     st.bits_discarded | st.coin_bits);
		ASSERT_EQ(0, ioctl_errno(fb, DICE_IOC_GET_DIE, &info));
		EXPECT_EQ(6, info.sides);
		EXPECT_EQ(DICE_KIND_FAIR, info.kind);
		/* the CRNG's: no bits to take */
		EXPECT_EQ(-1, write(fb, a, 1));
		EXPECT_EQ(EINVAL, errno);
		ASSERT_EQ(0, set_u32(fb, DICE_IOC_SET_SOURCE,
				     DICE_SRC_WRITTEN));
		EXPECT_EQ(-1, read(fb, a, 1));
		EXPECT_EQ(EAGAIN, errno);
		close(fb);
	}

	/* Three files, one of them opened after the others closed, fed
	 * the same bits: the same faces.
	 */
	fa = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	fb = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	for (k = 0; k < 2; k++) {
		int fd = k ? fb : fa;

		ASSERT_EQ(0, die_set_format(fd, DICE_FMT_U8));
		ASSERT_EQ(0, set_weights(fd, w, 5));
		ASSERT_EQ(0, set_u32(fd, DICE_IOC_SET_SOURCE,
				     DICE_SRC_WRITTEN));
		ASSERT_EQ((ssize_t)sizeof(bits), write(fd, bits, sizeof(bits)));
	}
	na = read(fa, a, sizeof(a));
	nb = read(fb, b, sizeof(b));
	close(fa);
	close(fb);
	fc = open(DICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fc);
	ASSERT_EQ(0, die_set_format(fc, DICE_FMT_U8));
	ASSERT_EQ(0, set_weights(fc, w, 5));
	ASSERT_EQ(0, set_u32(fc, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ((ssize_t)sizeof(bits), write(fc, bits, sizeof(bits)));
	nc = read(fc, c, sizeof(c));
	close(fc);
	ASSERT_LT(0, na);
	EXPECT_EQ(na, nb);
	EXPECT_EQ(na, nc);
	EXPECT_EQ(0, memcmp(a, b, na));
	EXPECT_EQ(0, memcmp(a, c, na));
}

/* ---- module life --------------------------------------------------------------------- */

static const char *ko_path(void)
{
	const char *p = getenv("DICE_KO");

	return p && *p ? p : DEFAULT_KO;
}

static bool module_loaded(void)
{
	return !access(MODULE_SYSFS "/refcnt", F_OK);
}

static int load_module(void)
{
	int fd = open(ko_path(), O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return errno;
	err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return err;
}

static int unload_module(int flags)
{
	return syscall(SYS_delete_module, "dice", flags) ? errno : 0;
}

/* Wait up to @secs for /dev/dice to be there (or gone); true if so. */
static bool wait_node(bool present, double secs)
{
	double end = now() + secs;

	do {
		if (!access(DICE_PATH, F_OK) == present)
			return true;
		usleep(1000);
	} while (now() < end);
	return false;
}

/* Load the module if it is not, so the tests after ours find it. */
static void ensure_loaded(void)
{
	if (!module_loaded())
		load_module();
	wait_node(true, 10);
}

FIXTURE(module) {
	bool usable;
};

FIXTURE_SETUP(module)
{
	if (geteuid() != 0 || access(ko_path(), R_OK) || !module_loaded())
		return;
	self->usable = true;
}

FIXTURE_TEARDOWN(module)
{
	if (self->usable)
		ensure_loaded();
}

#define REQUIRE_MODULE() do {						\
	if (!self->usable)						\
		SKIP(return, "needs root, a loaded dice module and %s",	\
		     ko_path());					\
} while (0)

/* While a file is open the module stays: every way of unloading fails. */
TEST_F(module, unload_refused_while_open)
{
	__u64 refcnt = 0;
	char line[2];
	int fd, err, status;

	REQUIRE_MODULE();
	fd = open(DICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_TRUE(read_u64_file(MODULE_SYSFS "/refcnt", &refcnt));
	EXPECT_LE(1, refcnt);

	/* 6.1 answers EWOULDBLOCK when references are held (EBUSY is
	 * for a module still loading or already going).
	 */
	err = unload_module(O_NONBLOCK);
	EXPECT_TRUE(err == EWOULDBLOCK || err == EBUSY)
		TH_LOG("delete_module(O_NONBLOCK): %s", strerror(err));
	err = unload_module(0);
	EXPECT_TRUE(err == EWOULDBLOCK || err == EBUSY)
		TH_LOG("delete_module(0): %s", strerror(err));
	status = system("rmmod dice 2>/dev/null");
	EXPECT_TRUE(status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		TH_LOG("rmmod dice succeeded with a file open");
	ASSERT_TRUE(module_loaded());
	EXPECT_EQ(EEXIST, load_module());

	/* The open file still works. */
	ASSERT_EQ(2, read(fd, line, 2));
	EXPECT_EQ('\n', line[1]);
	close(fd);
	ASSERT_TRUE(read_u64_file(MODULE_SYSFS "/refcnt", &refcnt));
	EXPECT_EQ(0, refcnt);
}

/* The kernel's taint flags (/proc/sys/kernel/tainted); an oops sets D. */
#define TAINT_DIE	(1ULL << 7)

static __u64 kernel_taint(void)
{
	__u64 v = 0;

	read_u64_file("/proc/sys/kernel/tainted", &v);
	return v;
}

/* Read exactly @len bytes of text rolls of a d6 from @fd; false otherwise. */
static bool read_d6_lines(int fd, size_t len)
{
	char buf[4096];
	size_t got = 0, i;
	ssize_t n;

	while (got < len && got < sizeof(buf)) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n <= 0)
			return false;
		got += n;
	}
	if (got != len)
		return false;
	for (i = 0; i < len; i += 2)
		if (buf[i] < '1' || buf[i] > '6' || buf[i + 1] != '\n')
			return false;
	return true;
}

/*
 * Rolls in a pipe outlive the module: as nobody, splice rolls into a pipe
 * and tee() them into a second, close the die; root unloads the module;
 * then the pipes are read and closed.  The pipe buffers are the kernel's
 * own (copy_splice_read()), so no code of the module is left behind them
 * (buffers whose ops were the module's oopsed here once).
 */
TEST_F(module, pipes_outlive_module)
{
	int sync_up[2], sync_down[2], p[2], q[2], fd;
	__u64 taint = kernel_taint();
	char c = 0;
	pid_t pid;

	REQUIRE_MODULE();
	if (counter_u64("open_dice") != 0)
		SKIP(return, "some file of %s is open", DICE_PATH);
	ASSERT_EQ(0, pipe(sync_up));
	ASSERT_EQ(0, pipe(sync_down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		fd = open(DICE_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || pipe(p) || pipe(q) ||
		    splice(fd, NULL, p[1], NULL, 4096, 0) != 4096 ||
		    tee(p[0], q[1], 4096, 0) != 4096)
			_exit(3);
		close(fd);
		if (write(sync_up[1], "r", 1) != 1 ||
		    read(sync_down[0], &c, 1) != 1)
			_exit(4);
		/* The module is gone: read both pipes, then close them. */
		if (!read_d6_lines(p[0], 4096) || !read_d6_lines(q[0], 4096))
			_exit(5);
		close(p[0]);
		close(p[1]);
		close(q[0]);
		close(q[1]);
		_exit(0);
	}
	close(sync_up[1]);
	close(sync_down[0]);
	ASSERT_EQ(1, read(sync_up[0], &c, 1)) TH_LOG("the child failed early");
	ASSERT_TRUE(wait_node(true, 1));
	EXPECT_EQ(0, unload_module(O_NONBLOCK))
		TH_LOG("rolls in a pipe held the module");
	EXPECT_FALSE(module_loaded());
	ASSERT_EQ(1, write(sync_down[1], "u", 1));
	EXPECT_EQ(0, wait_child(pid))
		TH_LOG("the pipes were not read whole after rmmod");
	EXPECT_EQ(taint & TAINT_DIE, kernel_taint() & TAINT_DIE)
		TH_LOG("the kernel oopsed");
	close(sync_up[0]);
	close(sync_down[1]);
}

/* Nothing open: unload and load 20 times; each time the device works. */
TEST_F_TIMEOUT(module, reload_loop, 600)
{
	double t0;
	char line[2];
	int i, fd, err;

	REQUIRE_MODULE();
	if (counter_u64("open_dice") != 0)
		SKIP(return, "some file of %s is open", DICE_PATH);
	t0 = now();
	for (i = 0; i < 20; i++) {
		err = unload_module(O_NONBLOCK);
		ASSERT_EQ(0, err) TH_LOG("unload %d: %s", i, strerror(err));
		ASSERT_FALSE(module_loaded());
		ASSERT_TRUE(wait_node(false, 5)) TH_LOG("%s stays", DICE_PATH);
		EXPECT_EQ(ENOENT, unload_module(O_NONBLOCK));

		err = load_module();
		ASSERT_EQ(0, err) TH_LOG("load %d: %s", i, strerror(err));
		ASSERT_TRUE(wait_node(true, 10))
			TH_LOG("%s did not come back", DICE_PATH);
		/* A fresh module: counters from zero, no table held. */
		EXPECT_EQ(0, counter_u64("table_bytes"));
		EXPECT_EQ(0, counter_u64("rolls"));
		EXPECT_EQ(0, counter_u64("open_dice"));

		fd = open(DICE_PATH, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open after load %d: %s", i,
					strerror(errno));
		ASSERT_EQ(2, read(fd, line, 2));
		EXPECT_TRUE(line[0] >= '1' && line[0] <= '6' && line[1] == '\n');
		close(fd);
	}
	TH_LOG("20 unloads and loads in %.1f s", now() - t0);
}

struct opener {
	atomic_bool stop;
	atomic_ulong opened;
	atomic_ulong refused;
	struct failures f;
};

static void *opener(void *arg)
{
	struct opener *o = arg;
	char line[2];
	int fd;

	while (!o->stop) {
		fd = open(DICE_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* Gone, or going away while we opened it. */
			if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
				failed(&o->f, "open: %s", strerror(errno));
			o->refused++;
		} else {
			if (read(fd, line, 2) != 2 || line[1] != '\n')
				failed(&o->f, "read on an open file: %s",
				       strerror(errno));
			close(fd);
			o->opened++;
		}
		usleep(200);
	}
	return NULL;
}

/* Unload and load again while another thread keeps opening the device. */
TEST_F_TIMEOUT(module, reload_while_opening, 600)
{
	struct opener o = { 0 };
	pthread_t tid;
	int i, tries, busy = 0, err = 0;

	REQUIRE_MODULE();
	pthread_mutex_init(&o.f.lock, NULL);
	ASSERT_EQ(0, pthread_create(&tid, NULL, opener, &o));
	for (i = 0; i < 10 && !err; i++) {
		/* The opener holds the module for a moment now and then. */
		for (tries = 0; tries < 20000; tries++) {
			err = unload_module(O_NONBLOCK);
			if (err != EWOULDBLOCK && err != EBUSY)
				break;
			busy++;
			usleep(100);
		}
		if (err)
			break;
		err = load_module();
		if (!err && !wait_node(true, 10))
			err = ETIMEDOUT;
		usleep(20000);
	}
	o.stop = true;
	pthread_join(tid, NULL);
	ensure_loaded();
	TH_LOG("%d reloads: %lu opens, %lu refused, %d unloads refused",
	       i, (unsigned long)o.opened, (unsigned long)o.refused, busy);
	EXPECT_EQ(0, err) TH_LOG("reload %d: %s", i, strerror(err));
	EXPECT_EQ(0, o.f.count) TH_LOG("%lu failures, the first: %s",
				     o.f.count, o.f.first);
	EXPECT_LT(0, o.opened);
}

TEST_HARNESS_MAIN
