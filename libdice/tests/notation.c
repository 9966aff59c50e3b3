// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * notation.c - the notation engine's public API (<dice_notation.h>):
 * parse errors with their offset and message, seeded rolls (the same
 * totals and breakdowns as dice --seed), Markdown, flags, values past
 * int64, exact distributions against brute force written here (no code
 * shared with the engine), versus and count against brute force,
 * statistics, contexts that share nothing (two threads give one thread's
 * answers; one context's limits do not leak into another's), the
 * interrupt flag, argument errors, and no exit() or abort() anywhere in
 * libdice.so (nm of the loaded library); what a program such as dice(1)
 * reads: dW, a source of faces, the total alone, comments and flags,
 * faces as text, JSON, the explosion cap of a distribution.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "dice_notation.h"
#include "tap.h"

/* ---- helpers ------------------------------------------------------------- */

/* Parse, roll once with a fresh handle of @seed, and give the breakdown. */
static int seeded_text(struct dice_notation *ctx, const char *text,
		       uint64_t seed, int format, char **out, int64_t *total)
{
	struct dice_result *r = NULL;
	struct dice_expr *e = NULL;
	struct dice *d = NULL;
	int err;

	err = dice_expr_parse(ctx, text, &e, NULL);
	if (!err)
		err = dice_open_seeded(&d, seed);
	if (!err)
		err = dice_expr_roll(ctx, e, d, &r);
	if (!err && total)
		err = dice_result_total(r, total);
	if (!err && out)
		err = dice_result_text(r, format, out);
	dice_result_free(r);
	dice_close(d);
	dice_expr_free(e);
	return err;
}

/* A law over small values: counts[v - lo] out of den, both exact. */
struct law {
	int64_t lo;
	uint64_t counts[512];
	size_t n;
	uint64_t den;
};

static void law_add(struct law *l, int64_t v)
{
	if (!l->n) {
		l->lo = v;
		l->n = 1;
	}
	while (v < l->lo) {
		memmove(l->counts + 1, l->counts, l->n * sizeof(l->counts[0]));
		l->counts[0] = 0;
		l->lo--;
		l->n++;
	}
	while (v >= l->lo + (int64_t)l->n)
		l->counts[l->n++] = 0;
	l->counts[v - l->lo]++;
	l->den++;
}

/* The distribution equals @l, value by value, as exact fractions. */
/* @a is @b (a ratio of the oracle's exact counts) to long double's digits */
static int near(long double a, long double b)
{
	return fabsl(a - b) <= 1e-15L * fabsl(b);
}

/*
 * @d against @l: its values, exact probabilities, probabilities over the
 * common denominator (dice_dist_weight_str()), and the table of
 * dice_dist_table() with both cumulatives.
 */
static void expect_law(const struct dice_dist *d, const struct law *l)
{
	struct dice_dist_row *rows;
	size_t i, k = 0, nz = 0;
	uint64_t below = 0;

	for (i = 0; i < l->n; i++)
		nz += l->counts[i] != 0;
	EXPECT_EQ(dice_dist_size(d), nz);
	rows = calloc(nz, sizeof(*rows));
	ASSERT_EQ(rows != NULL, 1);
	ASSERT_EQ(dice_dist_table(d, rows), 0);
	for (i = 0; i < l->n; i++) {
		uint64_t num, den;
		char *w, *t;
		int64_t v;

		if (!l->counts[i])
			continue;
		ASSERT_EQ(dice_dist_value(d, k, &v), 0);
		EXPECT_EQ(v, l->lo + (int64_t)i);
		ASSERT_EQ(dice_dist_prob(d, k, &num, &den), 0);
		/* num/den == counts/den(l), both exact */
		EXPECT((unsigned __int128)num * l->den ==
		       (unsigned __int128)l->counts[i] * den);
		ASSERT_EQ(dice_dist_weight_str(d, k, &w, &t), 0);
		num = strtoull(w, NULL, 10);
		den = strtoull(t, NULL, 10);
		EXPECT((unsigned __int128)num * l->den ==
		       (unsigned __int128)l->counts[i] * den);
		if (k) {
			char *w0, *t0;

			ASSERT_EQ(dice_dist_weight_str(d, 0, &w0, &t0), 0);
			EXPECT(!strcmp(t, t0));		/* one denominator */
			free(w0);
			free(t0);
		}
		free(w);
		free(t);
		EXPECT_EQ(rows[k].value, v);
		EXPECT(near(rows[k].prob,
			    (long double)l->counts[i] / (long double)l->den));
		EXPECT(near(rows[k].at_most, (long double)(below + l->counts[i]) /
			    (long double)l->den));
		EXPECT(near(rows[k].at_least, (long double)(l->den - below) /
			    (long double)l->den));
		below += l->counts[i];
		k++;
	}
	free(rows);
}

static struct dice_dist *dist_of(struct dice_notation *ctx, const char *text)
{
	struct dice_dist *d = NULL;
	struct dice_expr *e;

	if (dice_expr_parse(ctx, text, &e, NULL))
		return NULL;
	if (dice_expr_dist(ctx, e, &d, NULL))
		d = NULL;
	dice_expr_free(e);
	return d;
}

/* ---- parsing ------------------------------------------------------------- */

static void test_parse_error(void)
{
	struct dice_notation_error err;
	struct dice_notation *ctx;
	struct dice_expr *e = NULL;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	EXPECT_EQ(dice_expr_parse(ctx, "3d6 d4", &e, &err), -EINVAL);
	EXPECT(e == NULL);
	EXPECT_EQ(err.offset, 4);
	EXPECT(strstr(err.message, "expected an operator"));
	/* the offset is in the text as given: after a full-width 3 (3 bytes) */
	EXPECT_EQ(dice_expr_parse(ctx, "\xef\xbc\x93" "d6q", &e, &err),
		  -EINVAL);
	EXPECT_EQ(err.offset, 5);
	EXPECT(strstr(err.message, "unknown modifier 'q'"));
	EXPECT_EQ(dice_expr_parse(ctx, "", &e, &err), -EINVAL);
	EXPECT(err.message[0] != '\0');
	/* a good one, with what it says about itself */
	ASSERT_EQ(dice_expr_parse(ctx, "3x4d6*5+1s2", &e, &err), 0);
	EXPECT(!strcmp(dice_expr_text(e), "3x(4d6s2)*5+1"));
	EXPECT_EQ(dice_expr_repeat(e), 3);
	EXPECT_EQ(dice_expr_flags(e), DICE_EXPR_REPEAT);
	EXPECT(dice_expr_warning(e, 0) == NULL);
	dice_expr_free(e);
	/* 1x is written, and repeats once: only the flag tells it from none */
	ASSERT_EQ(dice_expr_parse(ctx, "1x1d6", &e, &err), 0);
	EXPECT_EQ(dice_expr_repeat(e), 1);
	EXPECT_EQ(dice_expr_flags(e), DICE_EXPR_REPEAT);
	dice_expr_free(e);
	ASSERT_EQ(dice_expr_parse(ctx, "1d6", &e, &err), 0);
	EXPECT_EQ(dice_expr_repeat(e), 1);
	EXPECT_EQ(dice_expr_flags(e), 0);
	dice_expr_free(e);
	ASSERT_EQ(dice_expr_parse(ctx, "2d20k1", &e, &err), 0);
	EXPECT(dice_expr_warning(e, 0) != NULL);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

/* ---- rolls --------------------------------------------------------------- */

/* The lines dice --seed=3 --breakdown prints for the same expressions. */
static const struct {
	const char *text, *breakdown, *total;
} seeded[] = {
	{ "4d6kh3+2d8[fire]#hi",
	  "4d6kh3 [3, 3, 5, 3 dropped] + 2d8[fire] [1, 2] = 14  # hi",
	  "14 (fire 3)  # hi" },
	{ "3d6", "3d6 [3, 3, 5] = 11", "11" },
	{ "{2d6,1d8}kh1", "{2d6 [3, 3] = 6, 1d8 [1] = 1 dropped}kh1 = 6", "6" },
	{ "1d20cs>19cf<2+5", "1d20cs>19cf<2 [16] + 5 = 21", "21" },
};

static void test_seeded_roll(void)
{
	struct dice_notation *ctx;
	unsigned int i;
	int64_t total;
	char *s;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	for (i = 0; i < sizeof(seeded) / sizeof(seeded[0]); i++) {
		ASSERT_EQ(seeded_text(ctx, seeded[i].text, 3,
				      DICE_TEXT_BREAKDOWN, &s, &total), 0);
		EXPECT(!strcmp(s, seeded[i].breakdown));
		if (strcmp(s, seeded[i].breakdown))
			tap_note("got '%s'", s);
		free(s);
		ASSERT_EQ(seeded_text(ctx, seeded[i].text, 3, DICE_TEXT_TOTAL,
				      &s, NULL), 0);
		EXPECT(!strcmp(s, seeded[i].total));
		EXPECT_EQ(total, strtoll(seeded[i].total, NULL, 10));
		free(s);
	}
	dice_notation_free(ctx);
}

/*
 * A source of faces as dice(1)'s engine is: one handle whose die is set
 * only when the die changes, for as long as the source lives.
 */
struct kept_die {
	struct dice *d;
	uint64_t sides;
	bool loaded;
};

static int kept_die_roll(void *arg, uint64_t sides, const uint32_t *weights,
			 uint64_t *out, size_t count)
{
	struct kept_die *k = arg;
	int err;

	if (!k->sides || k->sides != sides || k->loaded != (weights != NULL)) {
		err = weights ? dice_set_weights(k->d, weights, (uint32_t)sides) :
				dice_set_sides(k->d, sides);
		if (err)
			return err;
		k->sides = sides;
		k->loaded = weights != NULL;
	}
	return dice_roll(k->d, out, count, NULL);
}

/*
 * dice_expr_rolls() keeps the die set between its rolls: its N rolls are
 * those of a source that sets the die only when it changes (dice(1)'s
 * NxEXPR), and its first is dice_expr_roll()'s.  A failed roll leaves no
 * result: the ones before it are freed and every slot is NULL.
 */
static void test_rolls_keep_the_die(void)
{
	static const char *const texts[] = { "4d6kh3", "1d6+1d20", "2d6!+3d8",
					     "1d1099511627777+1d3" };
	struct dice_result *rs[12], *want, *one;
	struct dice *d, *d2, *d3;
	struct dice_notation *ctx;
	struct dice_expr *e;
	unsigned int t, i;
	char *a, *b;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		struct kept_die k = { 0 };

		ASSERT_EQ(dice_expr_parse(ctx, texts[t], &e, NULL), 0);
		ASSERT_EQ(dice_open_seeded(&d, 5 + t), 0);
		ASSERT_EQ(dice_open_seeded(&d2, 5 + t), 0);
		ASSERT_EQ(dice_open_seeded(&d3, 5 + t), 0);
		k.d = d2;
		ASSERT_EQ(dice_expr_rolls(ctx, e, d, rs, 12), 0);
		ASSERT_EQ(dice_expr_roll(ctx, e, d3, &one), 0);
		for (i = 0; i < 12; i++) {
			ASSERT_EQ(dice_expr_roll_source(ctx, e, kept_die_roll,
							&k, 0, &want), 0);
			ASSERT_EQ(dice_result_text(rs[i], DICE_TEXT_BREAKDOWN,
						   &a), 0);
			ASSERT_EQ(dice_result_text(want, DICE_TEXT_BREAKDOWN,
						   &b), 0);
			EXPECT(!strcmp(a, b));
			if (strcmp(a, b))
				tap_note("%s, roll %u: '%s', want '%s'",
					 texts[t], i, a, b);
			free(b);
			if (!i) {
				ASSERT_EQ(dice_result_text(one,
							   DICE_TEXT_BREAKDOWN,
							   &b), 0);
				EXPECT(!strcmp(a, b));
				free(b);
			}
			free(a);
			dice_result_free(want);
			dice_result_free(rs[i]);
		}
		dice_result_free(one);
		dice_close(d3);
		dice_close(d2);
		dice_close(d);
		dice_expr_free(e);
	}

	/*
	 * 1d2 - 1 is 0 one time in two: find a seed whose first rolls
	 * succeed and a later one fails (the same source as above), then
	 * every slot comes back NULL, the results made before it freed.
	 */
	ASSERT_EQ(dice_expr_parse(ctx, "floor(1d6 / (1d2 - 1))", &e, NULL), 0);
	for (t = 1; t < 64; t++) {
		struct kept_die k = { 0 };
		int err = 0;

		ASSERT_EQ(dice_open_seeded(&k.d, t), 0);
		for (i = 0; i < 12 && !err; i++) {
			err = dice_expr_roll_source(ctx, e, kept_die_roll, &k,
						    0, &want);
			if (!err)
				dice_result_free(want);
		}
		dice_close(k.d);
		if (err == -EDOM && i > 3)
			break;		/* roll i - 1 fails, after >= 3 */
	}
	ASSERT_EQ(t < 64, 1);
	ASSERT_EQ(dice_open_seeded(&d, t), 0);
	for (i = 0; i < 12; i++)
		rs[i] = (struct dice_result *)&rs;	/* not NULL */
	EXPECT_EQ(dice_expr_rolls(ctx, e, d, rs, 12), -EDOM);
	for (i = 0; i < 12; i++)
		EXPECT(rs[i] == NULL);
	EXPECT_EQ(dice_expr_rolls(ctx, e, d, rs, 0), -EINVAL);
	EXPECT_EQ(dice_expr_rolls(ctx, e, NULL, rs, 1), -EINVAL);
	EXPECT_EQ(dice_expr_rolls(ctx, e, d, NULL, 1), -EINVAL);
	EXPECT_EQ(dice_expr_rolls(NULL, e, d, rs, 1), -EINVAL);
	EXPECT_EQ(dice_expr_rolls(ctx, NULL, d, rs, 1), -EINVAL);
	dice_close(d);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

/* The groups and dice of dice --seed=3 --breakdown '4d6kh3+2d8[fire]#hi'. */
static void test_result_tree(void)
{
	static const int64_t faces[] = { 3, 3, 5, 3 };
	struct dice_result_group g;
	struct dice_result_die die;
	struct dice_notation *ctx;
	struct dice_result *r;
	struct dice_expr *e;
	struct dice *d;
	size_t i;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(dice_expr_parse(ctx, "4d6kh3+2d8[fire]#hi", &e, NULL), 0);
	ASSERT_EQ(dice_open_seeded(&d, 3), 0);
	ASSERT_EQ(dice_expr_roll(ctx, e, d, &r), 0);
	EXPECT_EQ(dice_result_ngroups(r), 2);
	ASSERT_EQ(dice_result_group(r, 0, &g), 0);
	EXPECT_EQ(g.start, 0);
	EXPECT_EQ(g.end, 6);	/* "4d6kh3" of dice_expr_text() */
	EXPECT_EQ(g.value, 11);
	EXPECT_EQ(g.ndice, 4);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(dice_result_die(r, 0, i, &die), 0);
		EXPECT_EQ(die.value, faces[i]);
		EXPECT_EQ(die.flags, i == 3 ? DICE_DIE_DROPPED : 0);
	}
	EXPECT_EQ(dice_result_die(r, 0, 4, &die), -EINVAL);
	ASSERT_EQ(dice_result_group(r, 1, &g), 0);
	EXPECT(!strncmp(dice_expr_text(e) + g.start, "2d8", g.end - g.start));
	EXPECT_EQ(g.value, 3);
	ASSERT_EQ(dice_result_die(r, 1, 0, &die), 0);
	EXPECT_EQ(die.value, 1);
	EXPECT_EQ(die.flags, DICE_DIE_FUMBLE);	/* a natural 1 */
	EXPECT_EQ(dice_result_group(r, 2, &g), -EINVAL);
	dice_result_free(r);
	dice_expr_free(e);
	/* explosions and rerolls show in the flags */
	ASSERT_EQ(dice_expr_parse(ctx, "20d6r1!", &e, NULL), 0);
	ASSERT_EQ(dice_expr_roll(ctx, e, d, &r), 0);
	ASSERT_EQ(dice_result_group(r, 0, &g), 0);
	{
		uint32_t seen = 0;

		for (i = 0; i < g.ndice; i++) {
			ASSERT_EQ(dice_result_die(r, 0, i, &die), 0);
			seen |= die.flags;
			EXPECT_EQ(!!(die.flags & DICE_DIE_EXPLODED),
				  die.value == 6);
		}
		EXPECT(seen & DICE_DIE_EXTRA);
		EXPECT(seen & DICE_DIE_EXPLODED);
		EXPECT(g.ndice > 20);
	}
	dice_result_free(r);
	dice_expr_free(e);
	dice_close(d);
	dice_notation_free(ctx);
}

static void test_markdown(void)
{
	struct dice_notation *ctx;
	char *s;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(seeded_text(ctx, "4d6kh3+2d8[fire]#hi", 3, DICE_TEXT_MARKDOWN,
			      &s, NULL), 0);
	EXPECT(!strcmp(s, "4d6kh3 \\[3, 3, 5, ~~3~~\\] + 2d8\\[fire\\] "
			  "\\[1, 2\\] = **14**  # hi"));
	tap_note("%s", s);
	free(s);
	dice_notation_free(ctx);
}

/* Dropped dice past int64_t that test_values_past_int64() has seen. */
static unsigned int dropped_past;

/* Decimal text to an unsigned 128-bit number (the test's own values). */
static unsigned __int128 u128_of(const char *s)
{
	unsigned __int128 v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned int)(*s++ - '0');
	return v;
}

/*
 * Every group and die of a roll of dice of faces up to 2^64 - 1 (no
 * rerolls or explosions): the _str functions give exact values, each die's
 * its face, each group's the sum of its kept dice, and the groups plus
 * @extra make the total; dice_result_group() and dice_result_die() give
 * the values that fit int64_t and say -ERANGE for the others, with the
 * rest filled and the value 0.  *@pastp counts the dice past int64_t.
 */
static void test_values_past_int64(const struct dice_result *r,
				   unsigned int extra, unsigned int *pastp)
{
	char buf[DICE_VALUE_STRLEN], face[DICE_VALUE_STRLEN];
	unsigned int k, ng = dice_result_ngroups(r);
	unsigned __int128 groups = extra, kept, v;
	size_t i;
	int err;

	for (k = 0; k < ng; k++) {
		struct dice_result_group g = { .value = 7 };

		err = dice_result_group(r, k, &g);
		EXPECT(g.ndice > 0 && g.nfaces == g.ndice && g.end > g.start);
		ASSERT_EQ(dice_result_group_str(r, k, buf, sizeof(buf)), 0);
		v = u128_of(buf);
		groups += v;
		if (v > INT64_MAX) {
			EXPECT_EQ(err, -ERANGE);
			EXPECT_EQ(g.value, 0);
		} else {
			EXPECT_EQ(err, 0);
			EXPECT((unsigned __int128)g.value == v);
		}
		kept = 0;
		for (i = 0; i < g.ndice; i++) {
			struct dice_result_die die = { .value = 7, .flags = ~0u };
			unsigned __int128 d;

			err = dice_result_die(r, k, i, &die);
			ASSERT_EQ(dice_result_die_str(r, k, i, face,
						      sizeof(face)), 0);
			d = u128_of(face);
			EXPECT(d > 0 && d < (unsigned __int128)1 << 64);
			ASSERT_EQ(dice_result_face_str(r, k, i, buf,
						       sizeof(buf)), 0);
			EXPECT(!strcmp(buf, face));
			EXPECT_EQ(die.flags & ~DICE_DIE_DROPPED, 0);
			if (!(die.flags & DICE_DIE_DROPPED))
				kept += d;
			if (d > INT64_MAX) {
				EXPECT_EQ(err, -ERANGE);
				EXPECT_EQ(die.value, 0);
				(*pastp)++;
				dropped_past += !!(die.flags & DICE_DIE_DROPPED);
			} else {
				EXPECT_EQ(err, 0);
				EXPECT((unsigned __int128)die.value == d);
			}
		}
		EXPECT(kept == v);
		EXPECT_EQ(dice_result_die_str(r, k, g.ndice, buf, sizeof(buf)),
			  -EINVAL);
	}
	ASSERT_EQ(dice_result_total_str(r, buf, sizeof(buf)), 0);
	EXPECT(groups == u128_of(buf));
	EXPECT_EQ(dice_result_group_str(r, 0, buf, 5), -ENOSPC);
	EXPECT_EQ(dice_result_die_str(r, 0, 0, buf, 5), -ENOSPC);
	EXPECT_EQ(dice_result_group_str(r, ng, buf, sizeof(buf)), -EINVAL);
	EXPECT_EQ(dice_result_group_str(NULL, 0, buf, sizeof(buf)), -EINVAL);
	EXPECT_EQ(dice_result_group_str(r, 0, NULL, 0), -EINVAL);
	EXPECT_EQ(dice_result_die_str(r, 0, 0, NULL, 0), -EINVAL);
}

static void test_flags_and_range(void)
{
	struct dice_result *r;
	struct dice_notation *ctx;
	struct dice_expr *e;
	char buf[DICE_VALUE_STRLEN];
	struct dice *d;
	int64_t total;
	unsigned int past;
	int crit = 0, fumble = 0, i;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	/* 1d20 without cs/cf: a 20 is critical, a 1 a fumble (Roll20) */
	ASSERT_EQ(dice_expr_parse(ctx, "1d20", &e, NULL), 0);
	ASSERT_EQ(dice_open_seeded(&d, 1), 0);
	for (i = 0; i < 400; i++) {
		ASSERT_EQ(dice_expr_roll(ctx, e, d, &r), 0);
		ASSERT_EQ(dice_result_total(r, &total), 0);
		EXPECT_EQ(!!(dice_result_flags(r) & DICE_RESULT_CRITICAL),
			  total == 20);
		EXPECT_EQ(!!(dice_result_flags(r) & DICE_RESULT_FUMBLE),
			  total == 1);
		crit += total == 20;
		fumble += total == 1;
		dice_result_free(r);
	}
	EXPECT(crit > 0 && fumble > 0);
	dice_close(d);
	dice_expr_free(e);
	/* three faces near 2^64: the total needs the text */
	ASSERT_EQ(dice_expr_parse(ctx, "3d18446744073709551615", &e, NULL), 0);
	ASSERT_EQ(dice_open_seeded(&d, 3), 0);
	ASSERT_EQ(dice_expr_roll(ctx, e, d, &r), 0);
	EXPECT_EQ(dice_result_total(r, &total), -ERANGE);
	ASSERT_EQ(dice_result_total_str(r, buf, sizeof(buf)), 0);
	EXPECT(!strcmp(buf, "20073477015388902256"));
	EXPECT_EQ(dice_result_total_str(r, buf, 5), -ENOSPC);
	past = 0;
	test_values_past_int64(r, 0, &past);
	dice_result_free(r);
	dice_close(d);
	dice_expr_free(e);
	/* two groups, one dropping a die: each group's own value */
	ASSERT_EQ(dice_expr_parse(ctx, "3d18446744073709551615kh2 + "
				  "1d18446744073709551615 + 5", &e, NULL), 0);
	for (i = 4; i < 12; i++) {
		ASSERT_EQ(dice_open_seeded(&d, i), 0);
		ASSERT_EQ(dice_expr_roll(ctx, e, d, &r), 0);
		EXPECT_EQ(dice_result_ngroups(r), 2);
		test_values_past_int64(r, 5, &past);
		dice_result_free(r);
		dice_close(d);
	}
	tap_note("9 rolls of dice of 2^64 - 1 sides: %u dice past int64_t, "
		 "%u of them dropped", past, dropped_past);
	EXPECT(past > 0 && dropped_past > 0);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

/* ---- distributions against brute force ----------------------------------- */

static void test_dist_oracle(void)
{
	struct dice_notation *ctx;
	struct dice_dist *d;
	struct law l;
	int a, b, c, x;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	/* 4d6kh3: every one of the 6^4 outcomes */
	memset(&l, 0, sizeof(l));
	for (a = 1; a <= 6; a++)
		for (b = 1; b <= 6; b++)
			for (c = 1; c <= 6; c++)
				for (x = 1; x <= 6; x++) {
					int lo = a;

					lo = b < lo ? b : lo;
					lo = c < lo ? c : lo;
					lo = x < lo ? x : lo;
					law_add(&l, a + b + c + x - lo);
				}
	d = dist_of(ctx, "4d6kh3");
	ASSERT_EQ(d != NULL, 1);
	expect_law(d, &l);
	dice_dist_free(d);
	/* 2d6*2-1d4: values with holes (odd ones impossible before -1d4) */
	memset(&l, 0, sizeof(l));
	for (a = 1; a <= 6; a++)
		for (b = 1; b <= 6; b++)
			for (c = 1; c <= 4; c++)
				law_add(&l, (a + b) * 2 - c);
	d = dist_of(ctx, "2d6*2-1d4");
	ASSERT_EQ(d != NULL, 1);
	expect_law(d, &l);
	dice_dist_free(d);
	/* 3d6>=5: successes */
	memset(&l, 0, sizeof(l));
	for (a = 1; a <= 6; a++)
		for (b = 1; b <= 6; b++)
			for (c = 1; c <= 6; c++)
				law_add(&l, (a >= 5) + (b >= 5) + (c >= 5));
	d = dist_of(ctx, "3d6>=5");
	ASSERT_EQ(d != NULL, 1);
	expect_law(d, &l);
	dice_dist_free(d);
	/* 2d6*2 has holes: only the values that can come up are listed */
	memset(&l, 0, sizeof(l));
	for (a = 1; a <= 6; a++)
		for (b = 1; b <= 6; b++)
			law_add(&l, (a + b) * 2);
	d = dist_of(ctx, "2d6*2");
	ASSERT_EQ(d != NULL, 1);
	expect_law(d, &l);
	dice_dist_free(d);
	dice_notation_free(ctx);
}

static void test_dist_strings_and_stats(void)
{
	struct dice_dist_stats st;
	struct dice_notation_error why;
	struct dice_notation *ctx;
	struct dice_expr *e;
	struct dice_dist *d;
	char *num, *den, *mean;
	uint64_t n, m;
	int64_t v;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	d = dist_of(ctx, "3d6");
	ASSERT_EQ(d != NULL, 1);
	ASSERT_EQ(dice_dist_prob_str(d, 7, &num, &den), 0);	/* P(10) */
	EXPECT(!strcmp(num, "1") && !strcmp(den, "8"));		/* 27/216 */
	free(num);
	free(den);
	ASSERT_EQ(dice_dist_stats(d, &st), 0);
	EXPECT_EQ(st.min, 3);
	EXPECT_EQ(st.max, 18);
	EXPECT_EQ(st.median, 10);	/* P(X <= 10) is exactly 1/2 */
	EXPECT(st.mean == 10.5);
	EXPECT(fabsl(st.stddev - sqrtl(8.75L)) < 1e-15L);
	EXPECT(st.variance == 8.75L);
	ASSERT_EQ(dice_dist_mean_str(d, &mean), 0);
	EXPECT(!strcmp(mean, "21/2"));
	free(mean);
	ASSERT_EQ(dice_dist_variance_str(d, &mean), 0);
	EXPECT(!strcmp(mean, "35/4"));
	free(mean);
	ASSERT_EQ(dice_dist_percentile(d, 95, &v), 0);
	EXPECT_EQ(v, 15);	/* P(X <= 14) = 203/216 < 0.95 <= P(X <= 15) */
	EXPECT_EQ(dice_dist_percentile(d, 101, &v), -EINVAL);
	EXPECT_EQ(dice_dist_value(d, 16, &v), -EINVAL);
	dice_dist_free(d);
	/* a denominator past 64 bits: the numbers only as text */
	d = dist_of(ctx, "30d100");
	ASSERT_EQ(d != NULL, 1);
	EXPECT_EQ(dice_dist_prob(d, 0, &n, &m), -EOVERFLOW);
	ASSERT_EQ(dice_dist_prob_str(d, 0, &num, &den), 0);
	EXPECT(!strcmp(num, "1"));
	EXPECT(!strcmp(den, "1" "000000000000000000000000000000"
			    "000000000000000000000000000000"));
	free(num);
	free(den);
	dice_dist_free(d);
	/* too big for an exact answer: -E2BIG with the reason */
	ASSERT_EQ(dice_expr_parse(ctx, "1d6+5000d1000", &e, NULL), 0);
	EXPECT_EQ(dice_expr_dist(ctx, e, &d, &why), -E2BIG);
	EXPECT(why.message[0] != '\0');
	EXPECT_EQ(why.offset, 4);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

static void test_versus_and_count(void)
{
	struct dice_dist *a, *b, *vs, *cnt;
	struct dice_notation *ctx;
	struct law l;
	int i, j, k, x;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	a = dist_of(ctx, "2d6");
	b = dist_of(ctx, "1d12");
	ASSERT_EQ(a && b, 1);
	ASSERT_EQ(dice_dist_versus(a, b, &vs), 0);
	memset(&l, 0, sizeof(l));
	for (i = 1; i <= 6; i++)
		for (j = 1; j <= 6; j++)
			for (k = 1; k <= 12; k++)
				law_add(&l, (i + j > k) - (i + j < k));
	expect_law(vs, &l);
	dice_dist_free(vs);
	/* how many of 3 rolls of 1d6 show 5 or more */
	dice_dist_free(a);
	a = dist_of(ctx, "1d6");
	ASSERT_EQ(a != NULL, 1);
	ASSERT_EQ(dice_dist_count(a, DICE_CMP_GE, 5, 3, &cnt), 0);
	memset(&l, 0, sizeof(l));
	for (i = 1; i <= 6; i++)
		for (j = 1; j <= 6; j++)
			for (x = 1; x <= 6; x++)
				law_add(&l, (i >= 5) + (j >= 5) + (x >= 5));
	expect_law(cnt, &l);
	dice_dist_free(cnt);
	/* fewer than 3 (<3): the same law from the other end */
	ASSERT_EQ(dice_dist_count(a, DICE_CMP_LT, 3, 4, &cnt), 0);
	memset(&l, 0, sizeof(l));
	for (i = 1; i <= 6; i++)
		for (j = 1; j <= 6; j++)
			for (x = 1; x <= 6; x++)
				for (k = 1; k <= 6; k++)
					law_add(&l, (i < 3) + (j < 3) + (x < 3) +
						(k < 3));
	expect_law(cnt, &l);
	dice_dist_free(cnt);
	EXPECT_EQ(dice_dist_count(a, 0, 5, 3, &cnt), -EINVAL);
	EXPECT_EQ(dice_dist_count(a, DICE_CMP_GE + 1, 5, 3, &cnt), -EINVAL);
	EXPECT_EQ(dice_dist_count(a, DICE_CMP_EQ, 5, 0, &cnt), -EINVAL);
	EXPECT_EQ(dice_dist_count(a, DICE_CMP_EQ, 5, 100001, &cnt), -ERANGE);
	dice_dist_free(a);
	dice_dist_free(b);
	dice_notation_free(ctx);
}

/*
 * dice_dist_count()'s work grows as the cube of its rolls: it keeps to
 * the budget of the context that computed the law of one roll (-E2BIG),
 * and its counts come in lowest terms from the start (hit 1 and miss 2
 * of 3 for 1d6 >= 5, not 2 and 4 of 6).
 */
static void test_count_budget(void)
{
	struct dice_notation *ctx, *small;
	struct dice_dist *a, *cnt;
	char *w, *total;
	int64_t v;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(dice_notation_new(&small), 0);
	ASSERT_EQ(dice_notation_set_limit(small, DICE_LIMIT_DIST_WORK, 1000),
		  0);
	a = dist_of(ctx, "1d6");
	ASSERT_EQ(a != NULL, 1);
	/* 100000 rolls: about 8e10 limb products, refused before the first */
	EXPECT_EQ(dice_dist_count(a, DICE_CMP_GE, 5, 100000, &cnt), -E2BIG);
	/* but every roll meets >= 1: one value, 100000, for any budget */
	ASSERT_EQ(dice_dist_count(a, DICE_CMP_GE, 1, 100000, &cnt), 0);
	EXPECT_EQ(dice_dist_size(cnt), 1);
	EXPECT_EQ(dice_dist_value(cnt, 0, &v), 0);
	EXPECT_EQ(v, 100000);
	dice_dist_free(cnt);
	/* 40 rolls: 3^40 and 2^40 fit a word */
	ASSERT_EQ(dice_dist_count(a, DICE_CMP_GE, 5, 40, &cnt), 0);
	ASSERT_EQ(dice_dist_weight_str(cnt, 0, &w, &total), 0);
	EXPECT(!strcmp(w, "1099511627776"));
	EXPECT(!strcmp(total, "12157665459056928801"));
	free(w);
	free(total);
	dice_dist_free(cnt);
	dice_dist_free(a);
	/* the same law from a context of 1000 limb products */
	a = dist_of(small, "1d6");
	ASSERT_EQ(a != NULL, 1);
	ASSERT_EQ(dice_dist_count(a, DICE_CMP_GE, 5, 10, &cnt), 0);
	dice_dist_free(cnt);
	EXPECT_EQ(dice_dist_count(a, DICE_CMP_GE, 5, 100, &cnt), -E2BIG);
	dice_dist_free(a);
	dice_notation_free(small);
	dice_notation_free(ctx);
}

/* ---- contexts share nothing ---------------------------------------------- */

struct job {
	uint64_t seed;
	char text[128];
	char mean[64];
};

/* What one thread computes, all with its own context and handle. */
static void *work(void *arg)
{
	struct job *j = arg;
	struct dice_notation *ctx;
	struct dice_dist *d;
	char *s, *m;
	int i;

	j->text[0] = j->mean[0] = '\0';
	if (dice_notation_new(&ctx))
		return NULL;
	for (i = 0; i < 50; i++) {	/* long enough to overlap */
		if (seeded_text(ctx, "{4d6kh3,3d8!}kh1+2d10r1", j->seed,
				DICE_TEXT_BREAKDOWN, &s, NULL))
			break;
		snprintf(j->text, sizeof(j->text), "%s", s);
		free(s);
		d = dist_of(ctx, "4d6kh3+1d8!");
		if (!d || dice_dist_mean_str(d, &m)) {
			dice_dist_free(d);
			break;
		}
		snprintf(j->mean, sizeof(j->mean), "%s", m);
		free(m);
		dice_dist_free(d);
	}
	dice_notation_free(ctx);
	return NULL;
}

static void test_threads(void)
{
	struct job one[2] = { { .seed = 5 }, { .seed = 6 } }, two[2];
	pthread_t th[2];
	int i;

	memcpy(two, one, sizeof(one));
	work(&one[0]);
	work(&one[1]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, work, &two[i]), 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 2; i++) {
		EXPECT(one[i].text[0] && one[i].mean[0]);
		EXPECT(!strcmp(one[i].text, two[i].text));
		EXPECT(!strcmp(one[i].mean, two[i].mean));
	}
	EXPECT(strcmp(one[0].text, one[1].text));
}

static void test_contexts_apart(void)
{
	struct dice_notation *small, *big;
	struct dice_notation_error err;
	struct dice_expr *e;

	ASSERT_EQ(dice_notation_new(&small), 0);
	ASSERT_EQ(dice_notation_new(&big), 0);
	ASSERT_EQ(dice_notation_set_limit(small, DICE_LIMIT_MAX_DICE, 10), 0);
	EXPECT_EQ(dice_expr_parse(small, "20d6", &e, &err), -EINVAL);
	ASSERT_EQ(dice_expr_parse(big, "20d6", &e, &err), 0);
	dice_expr_free(e);
	/* a dialect is the context's too */
	ASSERT_EQ(dice_notation_set_dialect(small, DICE_DIALECT_ROLL20), 0);
	ASSERT_EQ(dice_expr_parse(small, "1d20>19", &e, NULL), 0);
	EXPECT(dice_expr_warning(e, 0) == NULL);
	dice_expr_free(e);
	ASSERT_EQ(dice_expr_parse(big, "1d20>19", &e, NULL), 0);
	EXPECT(dice_expr_warning(e, 0) != NULL);
	dice_expr_free(e);
	dice_notation_free(small);
	dice_notation_free(big);
}

static void test_interrupt(void)
{
	volatile sig_atomic_t stop = 1;
	struct dice_notation *ctx;
	struct dice_expr *e;
	struct dice_dist *d;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(dice_notation_set_interrupt(ctx, &stop), 0);
	ASSERT_EQ(dice_expr_parse(ctx, "{4d6kh3,4d6kh3,4d6kh3}kh2+20d20kh10",
				  &e, NULL), 0);
	EXPECT_EQ(dice_expr_dist(ctx, e, &d, NULL), -EINTR);
	stop = 0;
	ASSERT_EQ(dice_expr_dist(ctx, e, &d, NULL), 0);
	dice_dist_free(d);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

static void test_bad_arguments(void)
{
	struct dice_notation *ctx;
	struct dice_expr *e;

	EXPECT_EQ(dice_notation_new(NULL), -EINVAL);
	ASSERT_EQ(dice_notation_new(&ctx), 0);
	EXPECT_EQ(dice_notation_set_limit(ctx, DICE_LIMIT_MAX_DICE, 0),
		  -EINVAL);
	EXPECT_EQ(dice_notation_set_limit(ctx, DICE_LIMIT_MAX_DICE, 1ULL << 40),
		  -ERANGE);
	EXPECT_EQ(dice_notation_set_limit(ctx, 99, 1), -EINVAL);
	EXPECT_EQ(dice_notation_set_dialect(ctx, 7), -EINVAL);
	EXPECT_EQ(dice_expr_parse(ctx, NULL, &e, NULL), -EINVAL);
	EXPECT_EQ(dice_expr_parse(NULL, "1d6", &e, NULL), -EINVAL);
	ASSERT_EQ(dice_expr_parse(ctx, "1d6", &e, NULL), 0);
	EXPECT_EQ(dice_expr_roll(ctx, e, NULL, NULL), -EINVAL);
	EXPECT_EQ(dice_result_text(NULL, DICE_TEXT_TOTAL, NULL), -EINVAL);
	EXPECT_EQ(dice_result_flags(NULL), -EINVAL);
	dice_expr_free(e);
	dice_expr_free(NULL);
	dice_result_free(NULL);
	dice_dist_free(NULL);
	dice_notation_free(ctx);
	dice_notation_free(NULL);
}

/* ---- no exit ------------------------------------------------------------- */

/*
 * A library must not end its caller's process: libdice.so, as loaded,
 * imports none of the functions that do.
 */
static void test_no_exit(void)
{
	static const char *const enders[] = {
		"exit", "_exit", "_Exit", "quick_exit", "abort",
	};
	char cmd[4200], line[512];
	unsigned int i, imports = 0;
	Dl_info info;
	FILE *p;

	/* a static test binary (the VM's) has no libdice.so to look at */
	if (!dladdr((void *)dice_expr_parse, &info) || !info.dli_fname)
		SKIP("not linked with libdice.so");
	if (!strstr(info.dli_fname, "libdice.so"))
		SKIP("not linked with libdice.so: %s", info.dli_fname);
	snprintf(cmd, sizeof(cmd), "nm -D --undefined-only '%s' 2>/dev/null",
		 info.dli_fname);
	p = popen(cmd, "r");
	ASSERT_EQ(p != NULL, 1);
	while (fgets(line, sizeof(line), p)) {
		char name[256];

		if (sscanf(line, " U %255[^@ \n]", name) != 1)
			continue;
		imports++;
		for (i = 0; i < sizeof(enders) / sizeof(enders[0]); i++) {
			EXPECT(strcmp(name, enders[i]));
			if (!strcmp(name, enders[i]))
				tap_note("libdice.so imports %s", name);
		}
	}
	EXPECT_EQ(pclose(p), 0);
	EXPECT(imports > 10);	/* nm worked: malloc, ioctl, ... */
}

/* ---- what a program such as dice(1) reads ------------------------------------ */

#define JSON_START	"{\"total\":5,\"groups\":[{\"group\":\"2dW\","

/* A source of faces that counts them: always the highest but one. */
static int counting_source(void *arg, uint64_t sides, const uint32_t *weights,
			   uint64_t *out, size_t count)
{
	uint64_t *n = arg;
	size_t i;

	for (i = 0; i < count; i++)
		out[i] = sides > 1 ? sides - 1 : 1;
	*n += count;
	(void)weights;
	return 0;
}

/* A source of faces: @arg[1] when it is not 0, else @arg[0] as every face. */
static int fixed_source(void *arg, uint64_t sides, const uint32_t *weights,
			uint64_t *out, size_t count)
{
	const int64_t *v = arg;
	size_t i;

	(void)sides;
	(void)weights;
	if (v[1])
		return (int)v[1];
	for (i = 0; i < count; i++)
		out[i] = (uint64_t)v[0];
	return 0;
}

/*
 * A source's faces index the die's tables: one outside 1..sides, a face
 * 0 from a 0-based source or a face past a custom die's last, is refused,
 * not read past a table (it was: a segfault, or a total of 3 * 2^64 + 6).
 */
static void test_source_faces_checked(void)
{
	static const int64_t faces[] = { 5, 7, 9 };
	static const struct {
		const char *expr;
		int64_t face, ret;
		int err;
		int64_t total;
	} cases[] = {
		{ "3d6", 2, 0, 0, 6 },
		{ "3d6", 0, 0, -ERANGE, 0 },
		{ "3d6", 7, 0, -ERANGE, 0 },
		{ "d{5,7,9}", 3, 0, 0, 9 },
		{ "d{5,7,9}", 4, 0, -ERANGE, 0 },
		{ "d{5,7,9}", 0x10000000000LL, 0, -ERANGE, 0 },
		{ "1dW", 3, 0, 0, 9 },
		{ "1dW", 4, 0, -ERANGE, 0 },
		{ "3d6", 2, -EIO, -EIO, 0 },
		{ "3d6", 2, 5, -EINVAL, 0 },
	};
	struct dice_notation *ctx;
	struct dice_result *r;
	struct dice_expr *e;
	unsigned int i;
	int64_t total;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	ASSERT_EQ(dice_notation_set_custom(ctx, 3, faces, NULL), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v[2] = { cases[i].face, cases[i].ret };

		ASSERT_EQ(dice_expr_parse(ctx, cases[i].expr, &e, NULL), 0);
		r = NULL;
		EXPECT_EQ(dice_expr_roll_source(ctx, e, fixed_source, v, 0, &r),
			  cases[i].err);
		if (!cases[i].err) {
			ASSERT_EQ(dice_result_total(r, &total), 0);
			EXPECT_EQ(total, cases[i].total);
		}
		dice_result_free(r);
		dice_expr_free(e);
	}
	dice_notation_free(ctx);
}

static void test_for_a_program(void)
{
	static const int64_t faces[] = { -1, 0, 5 };
	static const uint32_t weights[] = { 1, 0, 2 };
	struct dice_notation_error why;
	struct dice_result_group g;
	struct dice_notation *ctx;
	struct dice_dist_info info;
	struct dice_result *r;
	struct dice_expr *e;
	struct dice_dist *d;
	char buf[DICE_VALUE_STRLEN], *text;
	uint64_t asked = 0, shown = 0;
	unsigned int i;
	int64_t t1, t2;
	size_t j;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	/* dW: unknown, then the custom die */
	EXPECT_EQ(dice_expr_parse(ctx, "2dW", &e, &why), -EINVAL);
	EXPECT_EQ(dice_notation_set_custom(ctx, 3, faces, weights), 0);
	EXPECT_EQ(dice_notation_set_custom(ctx, 2, NULL, (uint32_t[]){ 0, 0 }),
		  -EINVAL);
	EXPECT_EQ(dice_notation_set_custom(ctx, DICE_NOTATION_MAX_CUSTOM_SIDES + 1,
					   NULL, NULL), -ERANGE);
	ASSERT_EQ(dice_expr_parse(ctx, "2dW+1d6 # hit", &e, &why), 0);
	EXPECT_EQ(dice_expr_flags(e), DICE_EXPR_CUSTOM | DICE_EXPR_LOADED);
	EXPECT(!strcmp(dice_expr_comment(e), "hit"));
	/* the faces asked are the faces shown, group after group */
	ASSERT_EQ(dice_expr_roll_source(ctx, e, counting_source, &asked, 0, &r),
		  0);
	ASSERT_EQ(dice_result_total(r, &t1), 0);
	EXPECT_EQ(t1, 0 + 0 + 5);	/* side 2 of dW shows 0, a d6 its 5 */
	for (i = 0; i < dice_result_ngroups(r); i++) {
		ASSERT_EQ(dice_result_group(r, i, &g), 0);
		for (j = 0; !dice_result_face_str(r, i, j, buf, sizeof(buf)); j++)
			shown++;
		EXPECT_EQ(j, g.nfaces);
		EXPECT_EQ(dice_result_face_str(r, i, j, buf, sizeof(buf)),
			  -ENOENT);
	}
	EXPECT_EQ(asked, 3);
	EXPECT_EQ(shown, 3);
	ASSERT_EQ(dice_result_text(r, DICE_TEXT_JSON, &text), 0);
	EXPECT(!strncmp(text, JSON_START, strlen(JSON_START)));
	free(text);
	dice_result_free(r);
	/* the total alone: the same total, no dice kept */
	ASSERT_EQ(dice_expr_roll_source(ctx, e, counting_source, &asked,
					DICE_ROLL_TOTAL_ONLY, &r), 0);
	ASSERT_EQ(dice_result_total(r, &t2), 0);
	EXPECT_EQ(t2, t1);
	ASSERT_EQ(dice_result_group(r, 0, &g), 0);
	EXPECT_EQ(g.ndice, 0);
	dice_result_free(r);
	EXPECT_EQ(dice_expr_roll_source(ctx, e, counting_source, &asked, 0x100,
					&r), -EINVAL);
	dice_expr_free(e);
	EXPECT_EQ(dice_notation_set_custom(ctx, 0, NULL, NULL), 0);
	EXPECT_EQ(dice_expr_parse(ctx, "dW", &e, &why), -EINVAL);
	/* an exploding die: the cap in force and what it leaves out */
	ASSERT_EQ(dice_expr_parse(ctx, "1d6!", &e, NULL), 0);
	ASSERT_EQ(dice_expr_dist(ctx, e, &d, NULL), 0);
	ASSERT_EQ(dice_dist_info(d, &info), 0);
	EXPECT_EQ(info.explode_limit, DICE_NOTATION_DEFAULT_DIST_MAX_EXPLODE);
	EXPECT(near(info.cap_prob, powl(1.0L / 6, 10)));
	EXPECT(info.work > 0);
	dice_dist_free(d);
	dice_expr_free(e);
	/* refused: why says how far it went */
	ASSERT_EQ(dice_notation_set_limit(ctx, DICE_LIMIT_DIST_WORK, 1000), 0);
	ASSERT_EQ(dice_expr_parse(ctx, "40d6!", &e, NULL), 0);
	EXPECT_EQ(dice_expr_dist(ctx, e, &d, &why), -E2BIG);
	EXPECT(why.message[0]);
	EXPECT_EQ(why.dist.explode_limit, DICE_NOTATION_DEFAULT_DIST_MAX_EXPLODE);
	dice_expr_free(e);
	dice_notation_free(ctx);
}

/* A source that ignores weights: the same faces for both kinds of roll. */
static int lcg_source(void *arg, uint64_t sides, const uint32_t *weights,
		      uint64_t *out, size_t count)
{
	uint64_t *s = arg;
	size_t i;

	for (i = 0; i < count; i++) {
		*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
		out[i] = 1 + (*s >> 11) % sides;
	}
	(void)weights;
	return 0;
}

/*
 * The total alone of groups with rerolls and explosions (every kind) keeps
 * no dice, and equals the total of the same roll kept whole.
 */
static void test_total_only_explosions(void)
{
	static const char *const exprs[] = {
		"20d6!", "20d6!!", "20d6!p", "10d6!>=5r1", "10d6ro<3!",
		"8d10!!>=9+3d4r<2", "6d6!:2", "4d6ra6", "12d8!o",
		"1d20!20-2d6!!p", "5d{1,3,5}!>=3", "3d6!!pmi2",
	};
	struct dice_notation *ctx;
	struct dice_result_group g;
	struct dice_result *r;
	struct dice_expr *e;
	int64_t whole, alone;
	uint64_t seed, s;
	unsigned int i, k;
	size_t x;

	ASSERT_EQ(dice_notation_new(&ctx), 0);
	for (x = 0; x < sizeof(exprs) / sizeof(exprs[0]); x++) {
		ASSERT_EQ(dice_expr_parse(ctx, exprs[x], &e, NULL), 0);
		for (seed = 1; seed <= 50; seed++) {
			s = seed;
			ASSERT_EQ(dice_expr_roll_source(ctx, e, lcg_source, &s,
							0, &r), 0);
			ASSERT_EQ(dice_result_total(r, &whole), 0);
			dice_result_free(r);
			s = seed;
			ASSERT_EQ(dice_expr_roll_source(ctx, e, lcg_source, &s,
							DICE_ROLL_TOTAL_ONLY,
							&r), 0);
			ASSERT_EQ(dice_result_total(r, &alone), 0);
			if (whole != alone)
				fprintf(stderr, "# %s, seed %llu: %lld whole, %lld alone\n",
					exprs[x], (unsigned long long)seed,
					(long long)whole, (long long)alone);
			EXPECT_EQ(whole, alone);
			for (i = 0; i < dice_result_ngroups(r); i++) {
				ASSERT_EQ(dice_result_group(r, i, &g), 0);
				EXPECT_EQ(g.ndice, 0);
				k = (unsigned int)g.nfaces;
				EXPECT_EQ(k, 0);
			}
			dice_result_free(r);
		}
		dice_expr_free(e);
	}
	dice_notation_free(ctx);
}

int main(void)
{
	TAP_RUN(test_parse_error);
	TAP_RUN(test_seeded_roll);
	TAP_RUN(test_rolls_keep_the_die);
	TAP_RUN(test_result_tree);
	TAP_RUN(test_markdown);
	TAP_RUN(test_flags_and_range);
	TAP_RUN(test_dist_oracle);
	TAP_RUN(test_dist_strings_and_stats);
	TAP_RUN(test_versus_and_count);
	TAP_RUN(test_count_budget);
	TAP_RUN(test_source_faces_checked);
	TAP_RUN(test_for_a_program);
	TAP_RUN(test_total_only_explosions);
	TAP_RUN(test_threads);
	TAP_RUN(test_contexts_apart);
	TAP_RUN(test_interrupt);
	TAP_RUN(test_bad_arguments);
	TAP_RUN(test_no_exit);
	return tap_done("notation");
}
