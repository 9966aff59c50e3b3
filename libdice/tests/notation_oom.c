// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * notation_oom.c - the notation engine runs out of memory at every
 * allocation of a few representative calls (parse, roll and its texts,
 * distribution and its table, versus, count), and each call then returns
 * -ENOMEM with nothing leaked, its inputs intact
 *
 * The program counts allocations itself: it defines malloc(), calloc(),
 * realloc() and free() over glibc's __libc_*() (libdice.so and the C
 * library call these, not their own), makes allocation number k of a call
 * fail, for every k the call makes, and keeps the set of blocks allocated
 * during the call, which must be empty when it returns an error (and
 * once its results are freed when it succeeds).  A refused or interrupted
 * distribution, which unwinds the same way, must leak nothing either.
 * Not in the QEMU guest's static tests (libdice/Makefile): a static
 * program cannot take malloc() from the C library so.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dice_notation.h"
#include "tap.h"

/* ---- a counting allocator ------------------------------------------------ */

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

#define SET_SIZE	(1U << 20)	/* open addressing, a power of 2 */
#define TOMB		((void *)1)

static struct {
	bool armed;		/* counting: a call is under test */
	long fail_at;		/* the allocation that fails, -1: none */
	long n;			/* allocations since armed */
	long live;		/* blocks of the set */
	void *set[SET_SIZE];	/* blocks allocated while armed, not freed */
} A = { .fail_at = -1 };

static size_t slot_of(const void *p)
{
	return (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 40) &
	       (SET_SIZE - 1);
}

static void set_add(void *p)
{
	size_t i;

	for (i = slot_of(p); A.set[i] && A.set[i] != TOMB;
	     i = (i + 1) & (SET_SIZE - 1))
		;
	A.set[i] = p;
	A.live++;
}

static void set_del(void *p)
{
	size_t i;

	for (i = slot_of(p); A.set[i]; i = (i + 1) & (SET_SIZE - 1)) {
		if (A.set[i] == p) {
			A.set[i] = TOMB;
			A.live--;
			return;
		}
	}
}

/* This allocation fails. */
static bool failing(void)
{
	return A.armed && A.n++ == A.fail_at;
}

void *malloc(size_t size)
{
	void *p;

	if (failing())
		return NULL;
	p = __libc_malloc(size);
	if (p && A.armed)
		set_add(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (failing())
		return NULL;
	p = __libc_calloc(n, size);
	if (p && A.armed)
		set_add(p);
	return p;
}

void *realloc(void *p, size_t size)
{
	void *q;

	if (failing())
		return NULL;
	q = __libc_realloc(p, size);
	if (q && A.armed) {
		if (p)
			set_del(p);
		set_add(q);
	}
	return q;
}

void free(void *p)
{
	if (p && A.armed)
		set_del(p);
	__libc_free(p);
}

static void arm(long fail_at)
{
	memset(A.set, 0, sizeof(A.set));
	A.live = 0;
	A.n = 0;
	A.fail_at = fail_at;
	A.armed = true;
}

/* Allocations made since arm(). */
static long disarm(void)
{
	A.armed = false;
	return A.n;
}

/* ---- the calls ------------------------------------------------------------- */

#define TEXT	"2x4d6kh3+2d8!>7[fire]+{3d6,2d10}kh1+(1d4)d6r1 # oom"

/* What every call starts from, made before any allocation fails. */
static struct {
	struct dice_notation *ctx;
	struct dice_expr *e, *small;
	struct dice_dist *a, *b;
	uint64_t state;
} S;

/* A source of faces: a fixed sequence, so that every run is alike. */
static int source(void *arg, uint64_t sides, const uint32_t *weights,
		  uint64_t *out, size_t count)
{
	uint64_t *state = arg;
	size_t i;

	(void)weights;
	for (i = 0; i < count; i++) {
		*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
		out[i] = (*state >> 33) % sides + 1;
	}
	return 0;
}

/*
 * One call under test: 0 with what it made freed again, or the error it
 * returned (nothing made).
 */
static int call_parse(void)
{
	struct dice_notation_error why;
	struct dice_expr *e;
	int err = dice_expr_parse(S.ctx, TEXT, &e, &why);

	if (!err)
		dice_expr_free(e);
	return err;
}

/*
 * A text of @r in @format into @want (the first time), or compared with
 * it: 0, -EIO when it differs, or the error.
 */
static int same_text(const struct dice_result *r, int format, char *want,
		     size_t len)
{
	char *text;
	int err = dice_result_text(r, format, &text);

	if (err)
		return err;
	if (!want[0])
		snprintf(want, len, "%s", text);
	else if (strcmp(text, want))
		err = -EIO;
	free(text);
	return err;
}

static int call_roll(void)
{
	static char breakdown[4096], json[16384];
	struct dice_result *r;
	int err;

	S.state = 1;
	err = dice_expr_roll_source(S.ctx, S.e, source, &S.state, 0, &r);
	if (err)
		return err;
	err = same_text(r, DICE_TEXT_BREAKDOWN, breakdown, sizeof(breakdown));
	if (!err)
		err = same_text(r, DICE_TEXT_JSON, json, sizeof(json));
	dice_result_free(r);
	return err;
}

static int call_dist(void)
{
	struct dice_dist_row *rows;
	struct dice_dist *d;
	char *mean, *w, *t;
	int err = dice_expr_dist(S.ctx, S.small, &d, NULL);

	if (err)
		return err;
	rows = __libc_calloc(dice_dist_size(d), sizeof(*rows));
	err = rows ? dice_dist_table(d, rows) : -ENOMEM;
	__libc_free(rows);
	if (!err)
		err = dice_dist_mean_str(d, &mean);
	if (!err) {
		free(mean);
		err = dice_dist_weight_str(d, 1, &w, &t);
	}
	if (!err) {
		free(w);
		free(t);
	}
	dice_dist_free(d);
	return err;
}

static int call_versus(void)
{
	struct dice_dist *v, *c;
	int err = dice_dist_versus(S.a, S.b, &v);

	if (err)
		return err;
	err = dice_dist_count(v, DICE_CMP_GE, 1, 5, &c);
	if (!err)
		dice_dist_free(c);
	dice_dist_free(v);
	return err;
}

/*
 * @call with no failure (it must succeed, and leave nothing once its
 * results are freed), then once for each allocation it makes, that one
 * failing: -ENOMEM, nothing left.  Returns the allocations it makes.
 * (fclose() of a memory stream shrinks its buffer with realloc(), and
 * when that fails frees the text and returns 0 all the same:
 * dice_result_text() must see it.)
 */
static long fail_each(const char *name, int (*call)(void))
{
	long n, k, leaks = 0, wrong = 0;
	int err;

	EXPECT_EQ(call(), 0);		/* warm up the C library */
	arm(-1);
	err = call();
	n = disarm();
	EXPECT_EQ(err, 0);
	EXPECT_EQ(A.live, 0);
	EXPECT(n > 0);
	for (k = 0; k < n; k++) {
		arm(k);
		err = call();
		disarm();
		if (err != -ENOMEM && !wrong++)
			tap_note("%s: allocation %ld of %ld failing: %d",
				 name, k, n, err);
		if (A.live && !leaks++)
			tap_note("%s: allocation %ld of %ld failing: %ld blocks leaked",
				 name, k, n, A.live);
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(leaks, 0);
	EXPECT_EQ(call(), 0);		/* the inputs are intact */
	tap_note("%s: %ld allocations, each failed once", name, n);
	return n;
}

static void setup(void)
{
	memset(&S, 0, sizeof(S));
	if (dice_notation_new(&S.ctx) ||
	    dice_notation_set_limit(S.ctx, DICE_LIMIT_DIST_MAX_EXPLODE, 2) ||
	    dice_expr_parse(S.ctx, TEXT, &S.e, NULL) ||
	    dice_expr_parse(S.ctx, "3d6+1d4!", &S.small, NULL) ||
	    dice_expr_dist(S.ctx, S.small, &S.a, NULL) ||
	    dice_expr_dist(S.ctx, S.e, &S.b, NULL)) {
		printf("Bail out! cannot set up\n");
		exit(1);
	}
}

static void teardown(void)
{
	dice_dist_free(S.a);
	dice_dist_free(S.b);
	dice_expr_free(S.small);
	dice_expr_free(S.e);
	dice_notation_free(S.ctx);
}

/* ---- the cases -------------------------------------------------------------- */

static void test_parse_oom(void)
{
	fail_each("parse", call_parse);
}

static void test_roll_oom(void)
{
	fail_each("roll", call_roll);
}

static void test_dist_oom(void)
{
	fail_each("dist", call_dist);
}

static void test_versus_oom(void)
{
	fail_each("versus and count", call_versus);
}

/* A distribution refused or interrupted half way unwinds: no leak. */
static void test_dist_unwinds(void)
{
	static volatile sig_atomic_t stop = 1;
	struct dice_notation_error why;
	struct dice_notation *ctx;
	struct dice_expr *e;
	struct dice_dist *d;
	int err;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(dice_expr_parse(ctx, "30d6kh10+20d8!", &e, NULL), 0);
	arm(-1);
	err = dice_notation_set_limit(ctx, DICE_LIMIT_DIST_WORK, 2000);
	if (!err)
		err = dice_expr_dist(ctx, e, &d, &why);
	disarm();
	EXPECT_EQ(err, -E2BIG);
	EXPECT_EQ(A.live, 0);
	ASSERT_EQ(dice_notation_set_limit(ctx, DICE_LIMIT_DIST_WORK,
					  1000000000), 0);
	ASSERT_EQ(dice_notation_set_interrupt(ctx, &stop), 0);
	arm(-1);
	err = dice_expr_dist(ctx, e, &d, &why);
	disarm();
	EXPECT_EQ(err, -EINTR);
	EXPECT_EQ(A.live, 0);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

int main(void)
{
	setup();
	TAP_RUN(test_parse_oom);
	TAP_RUN(test_roll_oom);
	TAP_RUN(test_dist_oom);
	TAP_RUN(test_versus_oom);
	TAP_RUN(test_dist_unwinds);
	teardown();
	return tap_done("notation_oom");
}
