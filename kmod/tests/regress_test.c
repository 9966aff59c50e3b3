// SPDX-License-Identifier: GPL-2.0
/*
 * regress_test.c - regressions of the die core found by hostile tests
 *
 * Each case replays, on the core built for userspace, the calls the module
 * makes for a sequence that once went wrong on /dev/dice: the reads go
 * through the core stream's read path (stream_read.h), so the core
 * sees dice_die_roll_u8() and dice_die_roll_many() exactly as the device
 * calls them.  After every step the die must be valid (dice_die_invalid())
 * without a warning from the core, every face in range and with mass, and
 * equal to the face of a twin die fed the same bits and rolled one face at
 * a time with dice_die_roll().  A case that hangs is stopped by alarm()
 * and fails.
 *
 * The first regression (fixed by commit 6c2e8c0): on one open file,
 *
 *	SET_FORMAT U64; SET_SIDES 2^40 + 1; read 64 bytes
 *	SET_WEIGHTS {1, 1}; SET_FORMAT U8; read 1 byte
 *	read 32 bytes
 *
 * never returned: the wide die left m near 2^88, the {1, 1} die drew 15
 * cells at once from it, and serving the 14 waiting cells pushed m past
 * 2^64 inside dice_roll_loaded_many(), whose draw then looped forever.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream_read.h"
#include "splitmix.h"
#include "tap.h"

#define CASE_SECONDS	10	/* a hang fails the case after this */

/* ---- a hang fails instead of hanging ----------------------------------- */

static char alarm_msg[200];

static void on_alarm(int sig)
{
	ssize_t r = write(STDOUT_FILENO, alarm_msg, strlen(alarm_msg));

	(void)r;
	_exit(1);
}

static void run(const char *name, void (*fn)(void))
{
	snprintf(alarm_msg, sizeof(alarm_msg),
		 "#   no result after %d s: an endless loop in the core\nnot ok %d - %s # hung\n",
		 CASE_SECONDS, tap_count + 1, name);
	fflush(stdout);
	alarm(CASE_SECONDS);
	tap_run(name, fn);
	alarm(0);
}

#define RUN(fn)	run(#fn, fn)

/* ---- two dice fed the same bits ------------------------------------------ */

/* A source like the kernel's CRNG: whole words, seeded. */
struct src {
	u64 state;
};

static int src_fill(void *ctx, u64 *words, unsigned int nwords)
{
	struct src *s = ctx;

	return splitmix_fill(&s->state, words, nwords);
}

/*
 * Stream @a is read as the module reads it (stream_read.h); die @b, its
 * twin, rolls each face @a made one at a time and must agree.
 */
struct pair {
	struct dice_stream *a;
	struct dice_die b;
	struct src sa;
	struct src sb;
	u64 faces[DICE_OUT_BYTES];
	/* the faces served by the last read, zero-based */
	u64 got[8192];
	unsigned int ngot;
	bool ok;
};

static void pair_init(struct pair *p, u64 seed, bool written)
{
	memset(p, 0, sizeof(*p));
	p->sa.state = p->sb.state = seed;
	p->a = dice_stream_alloc(written ? NULL : src_fill, &p->sa);
	dice_die_init(&p->b, written ? NULL : src_fill, &p->sb);
	p->ok = true;
}

static void pair_free(struct pair *p)
{
	dice_stream_free(p->a);
	dice_die_wipe(&p->b);
}

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* Fail the case, once, with what went wrong. */
static void fail(struct pair *p, const char *fmt, ...) __printf(2, 3);

static void fail(struct pair *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->ok)
		return;
	p->ok = false;
	tap_case_failed = 1;
	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void check_valid(struct pair *p, const char *step)
{
	const char *why_a = dice_die_invalid(&p->a->die);
	const char *why_b = dice_die_invalid(&p->b);
	struct dice_die_stats sa, sb;

	if (why_a || why_b)
		fail(p, "%s: die invalid: %s", step, why_a ? why_a : why_b);
	if (dice_core_warnings)
		fail(p, "%s: the core broke a loop bound (%lu warnings)", step,
		     dice_core_warnings);
	dice_die_stats(&p->a->die, &sa);
	dice_die_stats(&p->b, &sb);
	if (memcmp(&sa, &sb, sizeof(sa)))
		fail(p, "%s: the twins' stats differ: rolls %llu/%llu, bits used %llu/%llu",
		     step, (unsigned long long)sa.rolls,
		     (unsigned long long)sb.rolls,
		     (unsigned long long)sa.bits_used,
		     (unsigned long long)sb.bits_used);
}

/*
 * A produce of @a made @n faces and maybe @stopped short, with @err: @b
 * rolls them one by one, and then fails too.
 */
static void follow(void *ctx, const u64 *faces, unsigned int n, bool stopped,
		   int err)
{
	struct pair *p = ctx;
	const struct dice_die *a = &p->a->die;
	unsigned int i;
	u64 face;
	int got;

	for (i = 0; i < n && p->ok; i++) {
		if (faces[i] >= a->sides ||
		    (a->table && !dice_table_share(a->table, (u32)faces[i])))
			fail(p, "face %llu of a d%llu, or without mass",
			     (unsigned long long)faces[i],
			     (unsigned long long)a->sides);
		got = dice_die_roll(&p->b, &face);
		if (got || face != faces[i])
			fail(p, "face %u: %llu in a batch, %llu (error %d) one by one",
			     i, (unsigned long long)faces[i],
			     (unsigned long long)face, got);
		if (p->ngot < ARRAY_SIZE(p->got))
			p->got[p->ngot++] = faces[i];
	}
	if (stopped) {
		got = dice_die_roll(&p->b, &face);
		if (!got || (err && got != err))
			fail(p, "the batch stopped with %d, the twin with %d",
			     err, got);
	}
}

/* dice_file_read_iter() without the copy: bytes served, or the error. */
static long do_read(struct pair *p, size_t len)
{
	static const struct stream_read_opts whole = { .room = SIZE_MAX };
	long got;

	p->ngot = 0;
	got = stream_read(p->a, len, &whole, p->faces, follow, p);
	check_valid(p, "read");
	return got;
}

static void set_format(struct pair *p, u32 format)
{
	if (dice_stream_set_format(p->a, format))
		fail(p, "SET_FORMAT %#x refused", format);
	check_valid(p, "SET_FORMAT");
}

static void set_sides(struct pair *p, u64 sides)
{
	if (dice_stream_set_sides(p->a, sides) ||
	    dice_die_set_sides(&p->b, sides))
		fail(p, "SET_SIDES %llu refused", (unsigned long long)sides);
	check_valid(p, "SET_SIDES");
}

static void set_weights(struct pair *p, const u32 *w, u32 n)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct dice_table *t = dice_table_alloc(n);

		if (!t || dice_table_from_weights(t, w)) {
			fail(p, "table of %u weights refused", n);
			if (t)
				dice_table_free(t);
			return;
		}
		if (i ? dice_die_set_table(&p->b, t) :
			dice_stream_set_table(p->a, t))
			fail(p, "SET_WEIGHTS of %u sides refused", n);
	}
	check_valid(p, "SET_WEIGHTS");
}

static void expect_read(struct pair *p, size_t len, long want)
{
	long got = do_read(p, len);

	if (got != want)
		fail(p, "read %zu returned %ld, want %ld", len, got, want);
}

/* The reproduction, from @seed; the faces of the last two reads in @last. */
static bool reproduce(struct pair *p, u64 seed, u64 wide, const u32 *w,
		      u32 n, u64 *last, unsigned int *nlast)
{
	pair_init(p, seed, false);
	set_format(p, DICE_FMT_U64);
	set_sides(p, wide);
	expect_read(p, 64, 64);
	set_weights(p, w, n);
	set_format(p, DICE_FMT_U8);
	expect_read(p, 1, 1);
	if (last) {
		last[0] = p->got[0];
		*nlast = 1;
	}
	expect_read(p, 32, 32);
	if (last) {
		memcpy(last + 1, p->got, 32 * sizeof(*last));
		*nlast += 32;
	}
	pair_free(p);
	return p->ok;
}

/* ---- the cases ------------------------------------------------------------- */

static struct pair pr;
static const u32 w11[] = { 1, 1 };
static const u32 w22611[] = { 2, 2, 6, 1, 1 };

/* Exactly the sequence of the hostile test. */
static void wide_u64_then_grouped_1_1_u8(void)
{
	reproduce(&pr, 0x5eed, (1ULL << 40) + 1, w11, 2, NULL, NULL);
}

/*
 * Every wide fair die, then every grouped loaded die with few cells, read
 * the same way and then in every size up to 8 KiB; and back.
 */
static void wide_then_grouped_every_size(void)
{
	static const u64 wide[] = {
		(1ULL << 32) + 1, (1ULL << 40) + 1, (1ULL << 53) + 1,
		3ULL << 62, 1ULL << 63, (1ULL << 63) + 1,
		1000000000000000009ULL, U64_MAX,
	};
	static const struct {
		u32 n;
		u32 w[6];
	} grouped[] = {
		{ 2, { 1, 1 } }, { 5, { 2, 2, 6, 1, 1 } }, { 3, { 1, 2, 3 } },
		{ 2, { 3, 1 } }, { 6, { 1, 1, 1, 1, 1, 1 } },
	};
	static const size_t sizes[] = { 1, 2, 7, 32, 63, 64, 65, 1000, 1024,
					1025, 4096, 8192 };
	unsigned int i, j, k, runs = 0;

	for (i = 0; i < ARRAY_SIZE(wide); i++) {
		for (j = 0; j < ARRAY_SIZE(grouped); j++) {
			pair_init(&pr, 1000 * i + j, false);
			set_format(&pr, DICE_FMT_U64);
			set_sides(&pr, wide[i]);
			expect_read(&pr, 64, 64);
			set_weights(&pr, grouped[j].w, grouped[j].n);
			set_format(&pr, DICE_FMT_U8);
			for (k = 0; k < ARRAY_SIZE(sizes); k++)
				expect_read(&pr, sizes[k], sizes[k]);
			/* Back to the wide die, and a grouped one again. */
			set_format(&pr, DICE_FMT_U64);
			set_sides(&pr, wide[i]);
			expect_read(&pr, 8 * (1 + i), 8 * (1 + i));
			set_weights(&pr, grouped[j].w, grouped[j].n);
			set_format(&pr, DICE_FMT_TEXT);
			expect_read(&pr, 1, 1);
			expect_read(&pr, 33, 33);
			if (!pr.ok) {
				tap_note("wide d%llu, then %u weights",
					 (unsigned long long)wide[i],
					 grouped[j].n);
				pair_free(&pr);
				return;
			}
			pair_free(&pr);
			runs++;
		}
	}
	tap_note("%u sequences", runs);
}

/* The same with written bits: reads complete, or say -EAGAIN. */
static void wide_then_grouped_written_bits(void)
{
	u64 s = 7;
	unsigned int i;
	long got;

	pair_init(&pr, 0, true);
	for (i = 0; i < 1024; i++) {
		u8 byte = (u8)splitmix_next(&s);

		dice_stream_write(pr.a, &byte, 1);
		dice_pool_put(&pr.b.pool, byte, 8);
	}
	set_format(&pr, DICE_FMT_U64);
	set_sides(&pr, (1ULL << 40) + 1);
	expect_read(&pr, 64, 64);
	set_weights(&pr, w11, 2);
	set_format(&pr, DICE_FMT_U8);
	expect_read(&pr, 1, 1);
	expect_read(&pr, 32, 32);
	/* Until the bits run out, and then once more. */
	for (i = 0; i < 64 && pr.ok; i++) {
		got = do_read(&pr, 1024);
		if (got == -EAGAIN)
			break;
		if (got <= 0)
			fail(&pr, "read returned %ld", got);
	}
	if (pr.ok && i == 64)
		fail(&pr, "8 KiB of written bits rolled 64 KiB of faces");
	if (do_read(&pr, 32) != -EAGAIN)
		fail(&pr, "a read without bits did not fail with -EAGAIN");
	pair_free(&pr);
}

/*
 * The {1, 1} and {2, 2, 6, 1, 1} dice after the wide one must still be
 * exact: over 4000 replays, the face served first after the change (the
 * one the carried state decides) and the 32 after it, against their
 * masses.
 */
static void wide_then_grouped_faces_exact(void)
{
	static const u64 mass11[] = { 1, 1 }, mass22611[] = { 2, 2, 6, 1, 1 };
	u64 first[5], all[5], last[33];
	unsigned int r, k, i, n, nlast;
	double c1, c2;

	for (k = 0; k < 2; k++) {
		const u32 *w = k ? w22611 : w11;
		const u64 *mass = k ? mass22611 : mass11;
		u64 total = k ? 12 : 2;

		n = k ? 5 : 2;
		memset(first, 0, sizeof(first));
		memset(all, 0, sizeof(all));
		for (r = 0; r < 4000; r++) {
			if (!reproduce(&pr, 0xface0000ULL + r,
				       (1ULL << 40) + 1, w, n, last, &nlast))
				return;
			first[last[0]]++;
			for (i = 0; i < nlast; i++)
				all[last[i]]++;
		}
		c1 = tap_chi2(first, mass, total, n, 4000);
		c2 = tap_chi2(all, mass, total, n, 4000 * 33);
		tap_note("%u sides: chi-square %.2f (first faces), %.2f (all), limit %.2f",
			 n, c1, c2, tap_chi2_limit(n - 1));
		EXPECT(c1 < tap_chi2_limit(n - 1));
		EXPECT(c2 < tap_chi2_limit(n - 1));
	}
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	printf("TAP version 13\n");
	RUN(wide_u64_then_grouped_1_1_u8);
	RUN(wide_then_grouped_every_size);
	RUN(wide_then_grouped_written_bits);
	RUN(wide_then_grouped_faces_exact);
	return tap_done("regress");
}
