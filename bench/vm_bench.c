// SPDX-License-Identifier: GPL-2.0
/*
 * vm_bench.c - read() throughput of /dev/dice, measured in the guest
 *
 * Runs in the QEMU guest of scripts/bench.sh (static: the guest has no
 * libc).  Under TCG absolute times mean little, but everything here runs
 * in the same boot, so ratios are fair:
 *
 *  - rolls per second of read() for several dice and formats, 64 KiB reads,
 *    with the kernel's own bits per roll (DICE_IOC_GET_STATS);
 *  - bytes per second of /dev/urandom at the same read size, before and
 *    after the dice;
 *  - d6 rolls through io_uring (libdice's dice_ring_*) against plain reads;
 *  - two readers of two files on two CPUs against one reader, and two
 *    readers sharing one file;
 *  - what a program would do instead of reading the device: fill 64 KiB
 *    with d6 rolls from getrandom() words bounded by Lemire's method in
 *    userspace, from the vDSO's getrandom() where the kernel has one
 *    (Linux 6.11 and later on x86_64; glibc 2.36 does not use it, so it is
 *    looked up in the vDSO here), and from glibc's arc4random_uniform(6);
 *    beside /dev/dice read() and libdice's userspace engine;
 *  - open() latency of /dev/dice and of /dev/null while two threads open
 *    and close the same device without pause: misc_open() holds misc_mtx
 *    across the driver's open(), so what the driver does there is what
 *    every other opener of a misc device waits for (on -rt, an rt_mutex).
 *
 * Usage: vm_bench [SECONDS per test, default 1]
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <math.h>

#include <linux/dice.h>

#include "dice.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define KIB		1024
#define BUF_BYTES	(64 * KIB)

static double dur = 1.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die_err(const char *what)
{
	perror(what);
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die_err("sched_setaffinity");
}

/* ---- dice ---------------------------------------------------------------- */

enum { W_NONE, W_LIST, W_ZIPF, W_RANDOM };

struct cfg {
	const char *name;
	u_int64_t sides;
	int weights;
	u_int32_t format;
	size_t rsize;
};

static const u_int32_t five[] = { 2, 2, 6, 1, 1 };

static u_int64_t splitmix(u_int64_t *x)
{
	u_int64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The same weights as bench_core. */
static u_int32_t *make_weights(const struct cfg *c)
{
	u_int32_t *w = malloc(c->sides * sizeof(*w));
	u_int64_t seed = 0x5eed0000 + c->sides, i;

	if (!w)
		die_err("malloc");
	for (i = 0; i < c->sides; i++) {
		if (c->weights == W_LIST)
			w[i] = five[i];
		else if (c->weights == W_ZIPF)
			w[i] = (u_int32_t)((2000000 / (i + 1) + 1) / 2);
		else
			w[i] = 1 + (u_int32_t)(splitmix(&seed) % 65535);
	}
	return w;
}

static int open_die(const struct cfg *c)
{
	int fd = open("/dev/dice", O_RDWR | O_CLOEXEC);
	struct dice_die_args die = {
		.kind = DICE_KIND_FAIR,
		.sides = c->sides,
		.format = c->format,
	};
	u_int32_t *w = NULL;

	if (fd < 0)
		die_err("/dev/dice");
	if (c->weights != W_NONE) {
		w = make_weights(c);
		die.kind = DICE_KIND_WEIGHTS;
		die.weights = (uintptr_t)w;
	}
	if (ioctl(fd, DICE_IOC_SET_DIE, &die))
		die_err("DICE_IOC_SET_DIE");
	free(w);
	return fd;
}

struct meas {
	double secs;
	u_int64_t bytes;
	u_int64_t rolls;
	u_int64_t bits;
};

/*
 * read() @fd in @rsize pieces for dur seconds, or until @volume bytes
 * when @volume is not 0 (then for at most 3 * dur seconds).
 */
static void read_for(int fd, size_t rsize, u_int64_t volume, struct meas *m)
{
	static __thread unsigned char buf[BUF_BYTES];
	double t0 = now(), t;
	ssize_t r;

	m->bytes = 0;
	do {
		r = read(fd, buf, rsize);
		if (r <= 0)
			die_err("read");
		m->bytes += r;
		t = now() - t0;
		if (volume && (m->bytes >= volume || t >= 3 * dur))
			break;
	} while (volume || t < dur);
	m->secs = t;
}

static void stats(int fd, struct dice_die_stats *s)
{
	if (ioctl(fd, DICE_IOC_GET_STATS, s))
		die_err("DICE_IOC_GET_STATS");
}

#define ROUNDS	3

/* Keep the faster of two measurements: preemption only ever slows. */
static void keep_best(struct meas *best, const struct meas *m, bool rolls)
{
	if (!best->secs || (rolls ? m->rolls : m->bytes) / m->secs >
			   (rolls ? best->rolls : best->bytes) / best->secs)
		*best = *m;
}

static void measure_urandom(size_t rsize, u_int64_t volume, struct meas *m);

/*
 * ROUNDS rounds of: read the die for dur / ROUNDS seconds, then the same
 * bytes from /dev/urandom at the same read size; the best of each.
 */
static void measure_die(const struct cfg *c, struct meas *best,
			struct meas *ur_best)
{
	static unsigned char buf_warm[BUF_BYTES];
	struct dice_die_stats s0, s1;
	struct meas m, ur;
	int fd = open_die(c), i;
	double full = dur;

	/* Warm up: pool, caches, the first faults on the buffer. */
	if (read(fd, buf_warm, c->rsize) <= 0)
		die_err("read");
	memset(best, 0, sizeof(*best));
	memset(ur_best, 0, sizeof(*ur_best));
	for (i = 0; i < ROUNDS; i++) {
		dur = full / ROUNDS;
		stats(fd, &s0);
		read_for(fd, c->rsize, 0, &m);
		stats(fd, &s1);
		m.rolls = s1.rolls - s0.rolls;
		m.bits = s1.bits_used - s0.bits_used;
		keep_best(best, &m, true);
		dur = full;
		measure_urandom(c->rsize, m.bytes, &ur);
		keep_best(ur_best, &ur, false);
	}
	close(fd);
}

/* /dev/urandom: @volume bytes (0: for dur seconds) in @rsize reads. */
static void measure_urandom(size_t rsize, u_int64_t volume, struct meas *m)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_err("/dev/urandom");
	read_for(fd, rsize, volume, m);
	m->rolls = 0;
	m->bits = 0;
	close(fd);
}

/* ---- io_uring through libdice -------------------------------------------- */

static void measure_ring(struct meas *best, struct meas *ur_best)
{
	static u_int64_t faces[8192];
	struct dice_ring *r;
	struct dice *d;
	struct meas m, ur;
	double t0, t;
	int err, i;

	err = dice_open(&d);
	if (!err)
		err = dice_set_sides(d, 6);
	if (!err)
		err = dice_ring_open(d, 4, BUF_BYTES, &r);
	if (err) {
		fprintf(stderr, "libdice ring: %s\n", strerror(-err));
		exit(1);
	}
	dice_ring_roll(r, faces, 8192);
	memset(best, 0, sizeof(*best));
	memset(ur_best, 0, sizeof(*ur_best));
	for (i = 0; i < ROUNDS; i++) {
		memset(&m, 0, sizeof(m));
		t0 = now();
		do {
			err = dice_ring_roll(r, faces, 8192);
			if (err) {
				fprintf(stderr, "dice_ring_roll: %s\n",
					strerror(-err));
				exit(1);
			}
			m.rolls += 8192;
			t = now() - t0;
		} while (t < dur / ROUNDS);
		m.secs = t;
		m.bytes = m.rolls * 8;
		keep_best(best, &m, true);
		measure_urandom(BUF_BYTES, m.bytes, &ur);
		keep_best(ur_best, &ur, false);
	}
	dice_ring_close(r);
	dice_close(d);
}

/* The same core in this process (libdice's seeded engine): no syscalls. */
static void measure_engine(const struct cfg *c, struct meas *best)
{
	static u_int64_t faces[8192];
	struct dice *d;
	struct meas m;
	double t0, t;
	int err, i;

	err = dice_open_seeded(&d, 1);
	if (!err && c->weights != W_NONE) {
		u_int32_t *w = make_weights(c);

		err = dice_set_weights(d, w, (u_int32_t)c->sides);
		free(w);
	} else if (!err) {
		err = dice_set_sides(d, c->sides);
	}
	if (err) {
		fprintf(stderr, "libdice engine: %s\n", strerror(-err));
		exit(1);
	}
	memset(best, 0, sizeof(*best));
	for (i = 0; i < ROUNDS; i++) {
		memset(&m, 0, sizeof(m));
		t0 = now();
		do {
			if (dice_roll(d, faces, 8192, NULL))
				die_err("dice_roll");
			m.rolls += 8192;
			t = now() - t0;
		} while (t < dur / ROUNDS);
		m.secs = t;
		m.bytes = m.rolls * 8;
		keep_best(best, &m, true);
	}
	dice_close(d);
}

/* ---- what a program would do instead ---------------------------------------- */

/* getrandom() as the system call or as the vDSO's. */
typedef ssize_t (*vgetrandom_fn)(void *buf, size_t len, unsigned int flags,
				 void *state, size_t state_len);

/* The uapi of the vDSO's getrandom() (Linux 6.11, <vdso/getrandom.h>). */
struct vgetrandom_opaque_params {
	u_int32_t size_of_opaque_state;
	u_int32_t mmap_prot;
	u_int32_t mmap_flags;
	u_int32_t reserved[13];
};

/*
 * A function of the vDSO by name, as tools/testing/selftests/vDSO/
 * parse_vdso.c finds it: its dynamic symbols, counted by DT_HASH.
 */
static void *vdso_sym(const char *name)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR), off = 0;
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL, *d;
	const Elf64_Sym *sym = NULL;
	const u_int32_t *hash = NULL;
	const char *str = NULL;
	bool load = false;
	u_int32_t i;

	if (!base)
		return NULL;
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load) {
			off = base + ph[i].p_offset - ph[i].p_vaddr;
			load = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)(base + ph[i].p_offset);
		}
	}
	if (!load || !dyn)
		return NULL;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			sym = (const void *)(d->d_un.d_ptr + off);
		else if (d->d_tag == DT_STRTAB)
			str = (const void *)(d->d_un.d_ptr + off);
		else if (d->d_tag == DT_HASH)
			hash = (const void *)(d->d_un.d_ptr + off);
	}
	if (!sym || !str || !hash)
		return NULL;
	for (i = 0; i < hash[1]; i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC ||
		    sym[i].st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(str + sym[i].st_name, name))
			return (void *)(off + sym[i].st_value);
	}
	return NULL;
}

static vgetrandom_fn vgetrandom;
static void *vgr_state;
static size_t vgr_state_len;

/* The vDSO's getrandom() and one state for it; false when there is none. */
static bool vgetrandom_init(void)
{
	struct vgetrandom_opaque_params p;
	size_t page = sysconf(_SC_PAGESIZE);

	vgetrandom = (vgetrandom_fn)vdso_sym("__vdso_getrandom");
	if (!vgetrandom)
		return false;
	memset(&p, 0, sizeof(p));
	if (vgetrandom(NULL, 0, 0, &p, ~0UL) || !p.size_of_opaque_state ||
	    p.size_of_opaque_state > page) {
		vgetrandom = NULL;
		return false;
	}
	vgr_state = mmap(NULL, page, p.mmap_prot, p.mmap_flags, -1, 0);
	if (vgr_state == MAP_FAILED) {
		vgetrandom = NULL;
		return false;
	}
	vgr_state_len = p.size_of_opaque_state;
	return true;
}

typedef ssize_t (*getrandom_fn)(void *buf, size_t len);

static ssize_t sys_getrandom(void *buf, size_t len)
{
	return getrandom(buf, len, 0);
}

static ssize_t vdso_getrandom(void *buf, size_t len)
{
	return vgetrandom(buf, len, 0, vgr_state, vgr_state_len);
}

#define WORDS	(BUF_BYTES / 4)	/* getrandom() 64 KiB of words at a time */

struct words {
	getrandom_fn get;
	u_int32_t w[WORDS];
	unsigned int pos;
	u_int64_t drawn;
};

static u_int32_t next_word(struct words *ws)
{
	if (ws->pos == WORDS) {
		size_t got = 0;
		ssize_t r;

		while (got < sizeof(ws->w)) {
			r = ws->get((char *)ws->w + got, sizeof(ws->w) - got);
			if (r <= 0)
				die_err("getrandom");
			got += r;
		}
		ws->pos = 0;
	}
	ws->drawn++;
	return ws->w[ws->pos++];
}

/* Lemire's method on 32-bit words, as the kernel's get_random_u32_below(). */
static u_int32_t lemire(struct words *ws, u_int32_t n)
{
	u_int64_t m = (u_int64_t)next_word(ws) * n;

	if ((u_int32_t)m < n) {
		u_int32_t t = -n % n;

		while ((u_int32_t)m < t)
			m = (u_int64_t)next_word(ws) * n;
	}
	return (u_int32_t)(m >> 32);
}

/*
 * 64 KiB of d6 faces (1 to 6, one byte each, as /dev/dice's d6 U8) at a
 * time: from getrandom() words and Lemire when @get is set, else from
 * arc4random_uniform(6).
 */
static void measure_user_d6(getrandom_fn get, struct meas *best)
{
	static unsigned char out[BUF_BYTES];
	static struct words ws;
	struct meas m;
	double t0, t;
	int i, j;

	memset(best, 0, sizeof(*best));
	ws.get = get;
	ws.pos = WORDS;
	for (i = 0; i < ROUNDS; i++) {
		memset(&m, 0, sizeof(m));
		ws.drawn = 0;
		t0 = now();
		do {
			if (get) {
				for (j = 0; j < BUF_BYTES; j++)
					out[j] = 1 + lemire(&ws, 6);
			} else {
				for (j = 0; j < BUF_BYTES; j++)
					out[j] = 1 + arc4random_uniform(6);
			}
			asm volatile("" : : "r"(out) : "memory");
			m.rolls += BUF_BYTES;
			t = now() - t0;
		} while (t < dur / ROUNDS);
		m.secs = t;
		m.bytes = m.rolls;
		m.bits = get ? ws.drawn * 32 : 0;
		keep_best(best, &m, true);
	}
}

/*
 * What the emulator charges for a 128-by-64-bit divq, with a zero and a
 * non-zero high word: ns per division.  The wide paths of the core divide
 * with a non-zero high word.
 */
static double divq_ns(u_int64_t hi)
{
	u_int64_t lo = 0x123456789abcdefULL, d = 0xfedcba987654321ULL;
	u_int64_t q, r, acc = 0;
	double t0 = now();
	int i;

	for (i = 0; i < 1000000; i++) {
		asm volatile("divq %4" : "=a"(q), "=d"(r)
			     : "a"(lo + i), "d"(hi), "rm"(d));
		acc += q + r;
	}
	if (acc == 42)
		printf(" ");
	return (now() - t0) * 1e3;
}

/* ---- readers on several CPUs ---------------------------------------------- */

struct reader {
	pthread_t thread;
	pthread_barrier_t *start;
	int fd;
	int cpu;
	struct meas m;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;

	pin(rd->cpu);
	pthread_barrier_wait(rd->start);
	read_for(rd->fd, BUF_BYTES, 0, &rd->m);
	return NULL;
}

/*
 * @n readers on CPUs 0..n-1, each on its own file, or all on one file
 * when @shared.  Return: rolls (= bytes, d6 in U8) per second, all readers.
 */
static double readers(int n, bool shared)
{
	static const struct cfg d6 = { "d6", 6, W_NONE, DICE_FMT_U8,
				       BUF_BYTES };
	struct reader rd[2];
	pthread_barrier_t start;
	double rate = 0;
	int i, fd0 = -1;

	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		rd[i].start = &start;
		rd[i].cpu = i;
		if (shared && i)
			rd[i].fd = fd0;
		else
			rd[i].fd = fd0 = open_die(&d6);
		if (pthread_create(&rd[i].thread, NULL, reader_main, &rd[i]))
			die_err("pthread_create");
	}
	for (i = 0; i < n; i++) {
		pthread_join(rd[i].thread, NULL);
		rate += rd[i].m.bytes / rd[i].m.secs;
	}
	for (i = 0; i < n; i++)
		if (!shared || !i)
			close(rd[i].fd);
	pthread_barrier_destroy(&start);
	return rate;
}

/* ---- report ---------------------------------------------------------------- */

struct test {
	const struct cfg *c;	/* NULL for io_uring */
	struct meas m;
	struct meas ur;		/* /dev/urandom: same read size, same volume */
};

static double rate(const struct meas *m, bool rolls)
{
	return (rolls ? m->rolls : m->bytes) / m->secs;
}

static void row(const char *name, const struct test *t, size_t rsize)
{
	char bits[16] = "-";

	if (t->m.bits)
		snprintf(bits, sizeof(bits), "%.4f",
			 (double)t->m.bits / t->m.rolls);
	printf("%-28s %5zuK %10.3e %10.3e %9s %10.3e %8.3f %8.3f\n", name,
	       rsize / KIB, rate(&t->m, true), rate(&t->m, false), bits,
	       rate(&t->ur, false), rate(&t->m, true) / rate(&t->ur, false),
	       rate(&t->m, false) / rate(&t->ur, false));
}

static void user_row(const char *name, const struct meas *m,
		     const struct meas *dice_m)
{
	char bits[16] = "-";

	if (m->bits)
		snprintf(bits, sizeof(bits), "%.4f",
			 (double)m->bits / m->rolls);
	printf("  %-40s %10.3e rolls/s %8s bits/roll  x dice %6.3f\n", name,
	       rate(m, true), bits, rate(m, true) / rate(dice_m, true));
}

static void verdict(const char *what, double got, double want)
{
	printf("  %-50s %6.3f (>= %.3f)  %s", what, got, want,
	       got >= want ? "met" : "MISSED");
	if (got < want)
		printf(" by %.0f%%", 100 * (1 - got / want));
	printf("\n");
}

static const struct cfg dice[] = {
	{ "d6 U8", 6, W_NONE, DICE_FMT_U8, BUF_BYTES },
	{ "d6 U8", 6, W_NONE, DICE_FMT_U8, 4 * KIB },
	{ "d6 U32", 6, W_NONE, DICE_FMT_U32, BUF_BYTES },
	{ "d6 U64", 6, W_NONE, DICE_FMT_U64, BUF_BYTES },
	{ "d6 text", 6, W_NONE, DICE_FMT_TEXT, BUF_BYTES },
	{ "d(2^32-1) U32", 0xffffffffULL, W_NONE, DICE_FMT_U32, BUF_BYTES },
	{ "{2,2,6,1,1} U8", 5, W_LIST, DICE_FMT_U8, BUF_BYTES },
	{ "Zipf-1000 U16", 1000, W_ZIPF, DICE_FMT_U16, BUF_BYTES },
	{ "65536 random U16 (0-based)", 65536, W_RANDOM,
	  DICE_FMT_U16 | DICE_FMT_ZERO_BASED, BUF_BYTES },
	{ "2^20 random U32", 1 << 20, W_RANDOM, DICE_FMT_U32, BUF_BYTES },
};

#define NDICE	ARRAY_SIZE(dice)
enum {
	T_U8, T_U8_4K, T_U32, T_U64, T_TEXT, T_FAIR32, T_FIVE, T_ZIPF,
	T_RING = NDICE, NTESTS
};

/* ---- open() under a flood of opens --------------------------------------- */

#define OPEN_SAMPLES	2000
#define OPEN_FLOODERS	2

struct flood {
	const char *path;
	volatile bool stop;
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;
	int fd;

	while (!f->stop) {
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* p50, p99 and the worst of OPEN_SAMPLES opens of @path, in µs. */
static void open_latency(const char *path, double *p50, double *p99,
			 double *worst)
{
	static double lat[OPEN_SAMPLES];
	pthread_t t[OPEN_FLOODERS];
	struct flood f = { .path = path };
	double t0;
	int i, fd;

	for (i = 0; i < OPEN_FLOODERS; i++)
		if (pthread_create(&t[i], NULL, flood_main, &f))
			die_err("pthread_create");
	for (i = 0; i < OPEN_SAMPLES; i++) {
		t0 = now();
		fd = open(path, O_RDONLY | O_CLOEXEC);
		lat[i] = (now() - t0) * 1e6;
		if (fd < 0)
			die_err(path);
		close(fd);
	}
	f.stop = true;
	for (i = 0; i < OPEN_FLOODERS; i++)
		pthread_join(t[i], NULL);
	qsort(lat, OPEN_SAMPLES, sizeof(lat[0]), cmp_double);
	*p50 = lat[OPEN_SAMPLES / 2];
	*p99 = lat[OPEN_SAMPLES * 99 / 100];
	*worst = lat[OPEN_SAMPLES - 1];
}

int main(int argc, char **argv)
{
	static struct test t[NTESTS];
	static unsigned char warm[1 << 20];
	double one, two, shared, full, div0, div1;
	double dice_open[3], null_open[3];
	struct meas engine, engine_zipf, gr, vgr, arc;
	struct utsname u;
	bool has_vgr;
	unsigned int i;

	if (argc > 1)
		dur = atof(argv[1]);
	if (dur <= 0)
		dur = 1;
	uname(&u);
	pin(0);

	/* Wait for the CRNG (both devices do), then warm /dev/urandom up. */
	if (getrandom(warm, 16, 0) != 16)
		die_err("getrandom");
	t[0].ur.bytes = 0;
	measure_urandom(BUF_BYTES, sizeof(warm), &t[0].ur);

	for (i = 0; i < NTESTS; i++) {
		if (i == T_RING)
			measure_ring(&t[i].m, &t[i].ur);
		else
			measure_die(&dice[i], &t[i].m, &t[i].ur);
	}
	measure_engine(&dice[T_U8], &engine);
	measure_engine(&dice[T_ZIPF], &engine_zipf);
	measure_user_d6(sys_getrandom, &gr);
	has_vgr = vgetrandom_init();
	if (has_vgr)
		measure_user_d6(vdso_getrandom, &vgr);
	measure_user_d6(NULL, &arc);
	div0 = divq_ns(0);
	div1 = divq_ns(0x0123456789ULL);
	one = two = shared = 0;
	full = dur;
	dur = full / ROUNDS;
	for (i = 0; i < ROUNDS; i++) {
		one = fmax(one, readers(1, false));
		two = fmax(two, readers(2, false));
		shared = fmax(shared, readers(2, true));
	}
	dur = full;
	open_latency("/dev/dice", &dice_open[0], &dice_open[1], &dice_open[2]);
	open_latency("/dev/null", &null_open[0], &null_open[1], &null_open[2]);

	printf("In the VM: Linux %s %s, %ld CPUs, %.1f s per test, reads "
	       "pinned to CPU 0 unless said.\n", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN), dur);
	printf("Each test: %d rounds of reading the die, then the same bytes "
	       "from /dev/urandom\nwith the same read size; the best round of "
	       "each.  x rolls = rolls/s / urandom B/s,\nx bytes = B/s / "
	       "urandom B/s.  bits/roll: the kernel's own count.\n\n", ROUNDS);
	printf("%-28s %6s %10s %10s %9s %10s %8s %8s\n", "test", "read",
	       "rolls/s", "B/s", "bits/roll", "urandom", "x rolls",
	       "x bytes");
	for (i = 0; i < NTESTS; i++)
		row(i == T_RING ? "d6 io_uring (libdice, U64)" : dice[i].name,
		    &t[i], i == T_RING ? BUF_BYTES : dice[i].rsize);
	printf("\nd6 U8, 64K reads, rolls/s:  one reader %.3e, two readers "
	       "on two files %.3e (x%.2f),\n  two readers on one file %.3e "
	       "(x%.2f)\n", one, two, two / one, shared, shared / one);
	printf("io_uring / read(), both U64: x%.2f\n",
	       rate(&t[T_RING].m, true) / rate(&t[T_U64].m, true));
	printf("The same core in this process (libdice seeded engine, "
	       "ChaCha20 from libsodium):\n  d6 %.3e rolls/s (x%.2f the "
	       "read() of d6 U64), Zipf-1000 %.3e rolls/s\n  (x%.2f the "
	       "read() of Zipf-1000 U16)\n", rate(&engine, true),
	       rate(&engine, true) / rate(&t[T_U64].m, true),
	       rate(&engine_zipf, true),
	       rate(&engine_zipf, true) / rate(&t[T_ZIPF].m, true));
	printf("divq in the guest: %.1f ns with a zero high word, %.1f ns "
	       "with a non-zero one\n", div0, div1);

	printf("\n64 KiB of d6 rolls, what a program would do instead "
	       "(rolls/s, best of %d rounds;\nx dice = rolls/s / /dev/dice's "
	       "d6 U8 rolls/s at 64K reads):\n", ROUNDS);
	user_row("/dev/dice read(), d6 U8, 64K reads", &t[T_U8].m,
		 &t[T_U8].m);
	user_row("libdice engine (same core, in process)", &engine,
		 &t[T_U8].m);
	user_row("getrandom() syscall + Lemire", &gr, &t[T_U8].m);
	if (has_vgr)
		user_row("vDSO getrandom() + Lemire", &vgr, &t[T_U8].m);
	else
		printf("  %-40s not in this kernel's vDSO (Linux 6.11+)\n",
		       "vDSO getrandom() + Lemire");
	user_row("glibc arc4random_uniform(6)", &arc, &t[T_U8].m);
	printf("  (getrandom: 64 KiB of 32-bit words a call; glibc %s's "
	       "arc4random makes a getrandom()\n  system call per call)\n",
	       gnu_get_libc_version());

	printf("\nopen() while %d threads open and close the same device "
	       "(%d opens, us):\n", OPEN_FLOODERS, OPEN_SAMPLES);
	printf("  %-10s p50 %8.1f  p99 %8.1f  worst %8.1f\n", "/dev/dice",
	       dice_open[0], dice_open[1], dice_open[2]);
	printf("  %-10s p50 %8.1f  p99 %8.1f  worst %8.1f\n", "/dev/null",
	       null_open[0], null_open[1], null_open[2]);

	printf("\nTargets (in the VM)\n");
	verdict("d6 U8 rolls/s / urandom B/s, 64K reads",
		rate(&t[T_U8].m, true) / rate(&t[T_U8].ur, false), 1);
	verdict("d6 U8 rolls/s / urandom B/s, 4K reads",
		rate(&t[T_U8_4K].m, true) / rate(&t[T_U8_4K].ur, false), 1);
	verdict("d6 text rolls/s / urandom B/s, 64K reads",
		rate(&t[T_TEXT].m, true) / rate(&t[T_TEXT].ur, false), 1.0 / 3);
	verdict("d6 text rolls/s / d6 U8 rolls/s",
		rate(&t[T_TEXT].m, true) / rate(&t[T_U8].m, true), 1.0 / 3);
	verdict("two files on two CPUs / one (ideal 2)", two / one, 1.8);
	return 0;
}
