// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_grammar.c - a grammar-based fuzzer for dice notation: parse, exact
 * distribution and roll of random expressions, each on a small stack and
 * under a time bound.
 *
 *   fuzz_grammar SECONDS [SEED [-v]]     (-v: print every case)
 *
 * Expressions come from the grammar in notation.h (every modifier, grouped
 * rolls, functions, computed counts, labels, comments), from time to time
 * very long (flat sums of thousands of terms) or very deep (past the
 * nesting limit), and a quarter of them are then mutated byte by byte so
 * that the error paths run too.  Each case runs in a thread whose stack is
 * STACK_SIZE bytes, so unbounded recursion crashes here rather than in the
 * field, and a case that takes longer than CASE_LIMIT seconds fails.
 *
 * Checked:
 *  - notation_parse() gives an expression, or an error inside the text
 *    with a message;
 *  - dist_expr_report() under small limits gives a distribution (positive
 *    denominator, trimmed, a positive count) or -E2BIG with a reason that
 *    points inside the text;
 *  - the same distribution again with every dice group enumerated outcome
 *    by outcome through roll.c (dist_limits.enumerate_all), when small
 *    enough: the two must be equal, count for count;
 *  - roll_expr() with a pseudo-random source succeeds, or reports an
 *    overflow, a division by zero or its budget of sides running out;
 *    when the distribution is known, the total has positive probability
 *    in it, and neither overflow nor division by zero can happen;
 *  - --versus (versus_counts()) of the distribution against the previous
 *    case's, against itself and against a constant at or past either end,
 *    and --count (count_dist()) for N rolls (the repeat NxEXPR, or 1 to 8)
 *    and a target around the range: each equal, fraction for fraction, to
 *    brute force written here (every pair of values; every sequence of
 *    hits and misses), at least MIN_VERSUS pairs and MIN_COUNT counts in a
 *    run (it goes on past SECONDS, up to four times, to reach them).
 * A case is read as dice(1) says, or with --roll20, --foundry or --avrae.
 * Built with ASan and UBSan by tools/Makefile when the compiler has them.
 * Prints one TAP line, then counts; exit 1 on the first failure, with the
 * expression that failed.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"
#include "notation.h"
#include "roll.h"
#include "versus.h"

#define STACK_SIZE	(512 * 1024)
#define CASE_LIMIT	10.0
#define SIDES_BUDGET	200000
#define MIN_VERSUS	1000
#define MIN_COUNT	200
#define MAX_PAIRS	200000	/* brute force: most pairs of values */

static uint64_t rng_state;

/* One SplitMix64 step of the state @s. */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(splitmix(&rng_state) % n);
}

/* ---- a growing string ---------------------------------------------------- */

struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + (size_t)n + 64;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	b->len += (size_t)n;
}

/* ---- the grammar ------------------------------------------------------------- */

static void expr(struct buf *b, int depth);
static void term(struct buf *b, int depth);

static void compare(struct buf *b, int lo, int hi)
{
	static const char *const ops[] = { "", "=", "<", "<=", ">", ">=" };

	put(b, "%s%d", ops[below(6)], lo + (int)below((unsigned int)(hi - lo + 1)));
}

static void die(struct buf *b, int *sides)
{
	unsigned int i, n;
	bool weighted = below(3) == 0;

	switch (below(12)) {
	case 0:
		put(b, "%%");
		*sides = 100;
		return;
	case 1:
		put(b, "F%s", below(3) ? "" : below(2) ? ".1" : ".2");
		*sides = 3;
		return;
	case 2:
	case 3:
		n = 1 + below(5);
		put(b, "{");
		for (i = 0; i < n; i++) {
			put(b, "%s%d", i ? "," : "", (int)below(9) - 3);
			if (weighted)
				put(b, ":%u", below(4) + !i);
		}
		put(b, "}");
		*sides = 6;
		return;
	case 4:
		put(b, "%u", 1000 + below(3000000));
		*sides = 1000;
		return;
	default:
		*sides = 1 + (int)below(20);
		put(b, "%d", *sides);
	}
}

/* Some modifiers, each kind once, the success target last. */
static void modifiers(struct buf *b, int sides, unsigned int count)
{
	unsigned int n = below(4), i, used = 0;

	for (i = 0; i < n; i++) {
		unsigned int kind = below(10), bit = kind == 1 ? 0 : kind;

		if (used & (1U << bit))
			continue;
		used |= 1U << bit;
		switch (kind) {
		case 0:
			if (below(5) == 0) {	/* Avrae's k>3, p<2 */
				put(b, "%s", below(2) ? "k" : "p");
				compare(b, 0, sides);
				break;
			}
			if (below(6) == 0) {	/* Foundry's kh: one die */
				put(b, "%s", below(2) ? "kh" : "kl");
				break;
			}
			put(b, "%s%u", below(2) ? "kh" : below(2) ? "kl" : "k",
			    1 + below(count));
			break;
		case 1:
			if (below(6) == 0) {	/* Foundry's dl: one die */
				put(b, "%s", below(2) ? "dh" : "dl");
				break;
			}
			if (below(5) == 0) {	/* Avrae's ph, pl */
				put(b, "%s%u", below(2) ? "ph" : "pl",
				    below(count));
				break;
			}
			put(b, "%s%u", below(2) ? "dh" : below(2) ? "dl" : "s",
			    below(count));
			break;
		case 2:
			if (below(6) == 0) {	/* Avrae's reroll and add */
				put(b, "ra");
				compare(b, 1, sides);
				break;
			}
			if (below(6) == 0) {	/* Foundry's x, xo */
				put(b, "x%s", below(2) ? "" : "o");
				if (below(2))
					compare(b, 1, sides);
				break;
			}
			if (below(8) == 0) {	/* Avrae's e, with faces */
				put(b, "e");
				compare(b, 1, sides);
				break;
			}
			put(b, "!%s%s%s", below(3) ? "" : "!", below(3) ? "" : "p",
			    below(5) ? "" : "o");
			if (below(2))
				compare(b, 1, sides);
			if (below(4) == 0)
				put(b, ":%u", below(4));
			break;
		case 3:
			put(b, "r%s", below(2) ? "" : "o");
			if (below(6))	/* else bare: the lowest face */
				compare(b, 0, sides);
			break;
		case 4:
			put(b, "u%s", below(2) ? "" : "o");
			break;
		case 5:
			put(b, "%s%d", below(2) ? "min" : "max",
			    (int)below((unsigned int)sides + 2) - 1);
			break;
		case 6:
			put(b, "m%s", below(2) ? "" : "t");
			if (below(2))
				put(b, "%u", 2 + below(3));
			break;
		case 7:
			put(b, "c%s", below(2) ? "s" : "f");
			if (below(2))
				compare(b, 1, sides);
			break;
		case 8:
			put(b, "s%s", below(2) ? "a" : "d");
			break;
		default:
			break;
		}
	}
	if (below(4) == 0) {
		if (below(5) == 0)
			put(b, "%s", below(2) ? "even" : "odd");
		else
			compare(b, 0, sides + 2);
		if (below(3) == 0) {
			put(b, "f");
			compare(b, 0, sides);
		}
	}
	if (below(10) == 0) {	/* Foundry's margin of success */
		put(b, "ms");
		compare(b, 0, sides * 2);
	}
}

static void group(struct buf *b, int depth)
{
	unsigned int count = 1;
	int sides;

	if (below(8) == 0 && depth > 0) {
		put(b, "(");
		expr(b, depth - 1);
		put(b, ")");
		count = 1;
	} else if (below(4)) {
		count = 1 + below(below(8) ? 5 : 40);
		put(b, "%u", count);
	}
	put(b, "d");
	die(b, &sides);
	modifiers(b, sides, count);
}

static void factor(struct buf *b, int depth)
{
	unsigned int i, n;

	switch (depth > 0 ? below(12) : below(3)) {
	case 0:
		put(b, "%u", below(below(10) ? 10 : 1000000));
		break;
	case 1:
	case 2:
	case 3:
	case 4:
		group(b, depth);
		break;
	case 5:
		put(b, "(");
		expr(b, depth - 1);
		put(b, ")");
		break;
	case 6:
	case 7:
		if (below(3) == 0) {	/* Avrae's set (a,b)kh1 */
			n = 2 + below(2);
			put(b, "(");
			for (i = 0; i < n; i++) {
				put(b, "%s", i ? (below(2) ? ", " : ",") : "");
				expr(b, depth - 1);
			}
			put(b, ")");
			if (below(3))
				put(b, "%s%u", below(2) ? "kh" : "dl",
				    below(n));
			break;
		}
		n = 1 + below(3);
		put(b, "{");
		for (i = 0; i < n; i++) {
			if (i)
				put(b, ", ");
			expr(b, depth - 1);
		}
		put(b, "}");
		if (below(2))
			put(b, "%s%u", below(2) ? "kh" : "dl", below(3));
		if (below(3) == 0)
			compare(b, 0, 12);
		break;
	case 8:
		put(b, "%s(", below(3) ? "floor" : below(2) ? "ceil" : "round");
		if (below(2)) {
			put(b, "(");
			expr(b, depth - 1);
			put(b, ")");
		} else {
			term(b, depth - 1);
		}
		put(b, "/");
		factor(b, depth - 1);
		put(b, ")");
		break;
	case 9:
		if (below(2)) {
			put(b, "abs(");
			expr(b, depth - 1);
			put(b, ")");
			break;
		}
		n = 1 + below(3);
		put(b, "%s(", below(2) ? "max" : "min");
		for (i = 0; i < n; i++) {
			if (i)
				put(b, below(2) ? ", " : ",");
			expr(b, depth - 1);
		}
		put(b, ")");
		break;
	case 10:
		put(b, "-");
		factor(b, depth - 1);
		break;
	default:
		group(b, depth);
		break;
	}
	if (below(12) == 0)
		put(b, "[%s]", below(2) ? "fire" : "a b");
	if (below(16) == 0)	/* a power: the exponent never negative */
		put(b, "%s%s", below(2) ? "^" : "**",
		    below(2) ? "2" : below(2) ? "d3" : "(d4-1)");
}

static void term(struct buf *b, int depth)
{
	unsigned int n = below(4) ? 0 : below(3), i;

	factor(b, depth);
	for (i = 0; i < n; i++) {
		put(b, below(3) ? "*" : "%%");
		if (below(6) == 0)
			put(b, "-");
		factor(b, depth);
	}
}

static void expr(struct buf *b, int depth)
{
	unsigned int n = below(3) ? below(3) : below(8), i;

	term(b, depth);
	for (i = 0; i < n; i++) {
		put(b, below(6) ? (below(2) ? " + " : "+") : (below(2) ? "-" : " - "));
		term(b, depth);
	}
}

/* One expression: mostly from the grammar, sometimes huge or deep. */
static char *make_case(void)
{
	struct buf b = { 0 };
	unsigned int i, n, chat;

	put(&b, "%s", "");
	switch (below(100)) {
	case 0:		/* a long flat sum */
		n = 1000 + below(20000);
		for (i = 0; i < n; i++)
			put(&b, "%s%s", i ? (below(4) ? "+" : "-") : "",
			    below(8) ? "1" : "d2");
		break;
	case 1:		/* deep nesting, around the limit */
		n = 50 + below(40);
		for (i = 0; i < n; i++)
			put(&b, "%s", below(3) ? "(" : below(2) ? "-(" : "abs(");
		put(&b, "d6");
		for (i = 0; i < n; i++)
			put(&b, ")");
		break;
	case 2:		/* a long product and unary minus chain */
		n = 100 + below(2000);
		for (i = 0; i < n; i++)
			put(&b, "%s1", i ? "*" : "");
		for (i = 0; i < 70; i++)
			put(&b, "-");
		put(&b, "1");
		break;
	default:
		chat = below(12);	/* pasted: /r, /roll, !r, [[...]] */
		if (chat < 4)
			put(&b, "%s", chat == 0 ? "/r " : chat == 1 ?
			    "/roll " : chat == 2 ? "!r " : "[[");
		if (below(6) == 0)
			put(&b, "%ux", 1 + below(3));
		expr(&b, 1 + (int)below(3));
		if (below(10) == 0) {	/* Avrae's comparison: 1 or 0 */
			static const char *const ops[] = { "=", "<", "<=",
							   ">", ">=" };

			put(&b, "%s%d", ops[below(5)], (int)below(25) - 2);
		}
		if (chat == 3)
			put(&b, "]]");
		if (below(8) == 0 && chat != 3)
			put(&b, " # %s", below(2) ? "advantage" : "");
	}
	/* what players paste: capitals, a Unicode minus (paste.c) */
	if (below(8) == 0) {
		for (i = 0; i < b.len; i++) {
			if (b.s[i] >= 'a' && b.s[i] <= 'z' && below(2))
				b.s[i] = (char)(b.s[i] - 'a' + 'A');
		}
	}
	if (below(16) == 0 && b.len && b.s[b.len - 1] != '#')
		put(&b, "%s", below(2) ? " \xe2\x88\x92 1" : "\xc2\xa0+\xef\xbc\x92");
	/* mutate a quarter of them */
	if (below(4) == 0 && b.len) {
		static const char junk[] = "dkhlsr!pumincaxf<>=()[]{},+-*%/#^.0123456789 \t\x01\xc3\xe2";

		n = 1 + below(4);
		for (i = 0; i < n && b.len; i++) {
			size_t at = below((unsigned int)b.len);

			switch (below(3)) {
			case 0:
				memmove(b.s + at, b.s + at + 1, b.len - at);
				b.len--;
				break;
			case 1:
				b.s[at] = junk[below(sizeof(junk) - 1)];
				break;
			default:
				put(&b, "%s", " ");	/* room */
				memmove(b.s + at + 1, b.s + at, b.len - at - 1);
				b.s[at] = junk[below(sizeof(junk) - 1)];
				break;
			}
		}
		b.s[b.len] = '\0';
	}
	return b.s;
}

/* ---- --versus and --count against brute force -------------------------- */

static struct dist prev;	/* the previous case's law, for --versus */

static void law_copy(struct dist *to, const struct dist *from)
{
	size_t k;

	memset(to, 0, sizeof(*to));
	to->lo = from->lo;
	to->n = from->n;
	to->c = xcalloc(from->n, sizeof(*to->c));	/* dist_free()d */
	for (k = 0; k < from->n; k++)
		big_copy(&to->c[k], &from->c[k]);
	big_copy(&to->den, &from->den);
}

/* The law of the constant @v. */
static void law_const(struct dist *d, int64_t v)
{
	memset(d, 0, sizeof(*d));
	d->lo = v;
	d->n = 1;
	d->c = xcalloc(1, sizeof(*d->c));
	big_set_u64(&d->c[0], 1);
	big_set_u64(&d->den, 1);
}

/* a/b == c/d */
static bool frac_eq(const struct big *a, const struct big *b,
		    const struct big *c, const struct big *d)
{
	struct big x = { 0 }, y = { 0 };
	bool eq;

	big_mul(&x, a, d);
	big_mul(&y, c, b);
	eq = !big_cmp(&x, &y);
	big_free(&x);
	big_free(&y);
	return eq;
}

/*
 * versus_counts() of @a and @b against a sum over every pair of values:
 * NULL, or the probability that differs.  Too many pairs: "" (skipped).
 */
static const char *versus_check(const struct dist *a, const struct dist *b)
{
	struct big gt = { 0 }, eq = { 0 }, lt = { 0 }, den = { 0 };
	struct big bf[3] = { { 0 } }, bden = { 0 }, t = { 0 };
	const char *bad = NULL;
	size_t i, k;

	if ((uint64_t)a->n * b->n > MAX_PAIRS)
		return "";
	versus_counts(a, b, &gt, &eq, &lt, &den);
	for (i = 0; i < a->n; i++) {
		for (k = 0; k < b->n; k++) {
			__int128 va = (__int128)a->lo + i;
			__int128 vb = (__int128)b->lo + k;

			big_mul(&t, &a->c[i], &b->c[k]);
			big_add(&bf[va > vb ? 0 : va == vb ? 1 : 2], &t);
		}
	}
	big_mul(&bden, &a->den, &b->den);
	if (!frac_eq(&gt, &den, &bf[0], &bden))
		bad = "P(A > B)";
	else if (!frac_eq(&eq, &den, &bf[1], &bden))
		bad = "P(A = B)";
	else if (!frac_eq(&lt, &den, &bf[2], &bden))
		bad = "P(A < B)";
	for (i = 0; i < 3; i++)
		big_free(&bf[i]);
	big_free(&gt);
	big_free(&eq);
	big_free(&lt);
	big_free(&den);
	big_free(&bden);
	big_free(&t);
	return bad;
}

/* @v meets the target @op @t: written here, not cmp_match() */
static bool meets(enum cmp_op op, int64_t t, __int128 v)
{
	switch (op) {
	case CMP_EQ:
		return v == t;
	case CMP_LT:
		return v < t;
	case CMP_LE:
		return v <= t;
	case CMP_GT:
		return v > t;
	case CMP_GE:
		return v >= t;
	default:
		abort();
	}
}

/*
 * count_dist() of @n rolls of law @d and the target @op @t against a sum
 * over every sequence of @n hits and misses: true when they agree.
 */
static bool count_check(const struct dist *d, enum cmp_op op, int64_t t,
			unsigned int n)
{
	struct cmp c = { .op = op, .n = t };
	struct big hit = { 0 }, miss = { 0 }, den = { 0 }, p = { 0 };
	struct big q = { 0 }, zero = { 0 };
	struct big *want = calloc(n + 1, sizeof(*want));
	struct dist_limits lim = { .max_work = DIST_DEFAULT_MAX_WORK };
	struct dist out;
	unsigned int mask, i, k;
	bool same = true;

	if (!want)
		abort();
	for (k = 0; k < d->n; k++) {
		if (meets(op, t, (__int128)d->lo + k))
			big_add(&hit, &d->c[k]);
	}
	big_copy(&miss, &d->den);
	big_sub(&miss, &hit);
	for (mask = 0; mask < 1U << n; mask++) {
		big_set_u64(&p, 1);
		for (i = 0; i < n; i++) {
			big_mul(&q, &p, mask >> i & 1 ? &hit : &miss);
			big_swap(&p, &q);
		}
		big_add(&want[__builtin_popcount(mask)], &p);
	}
	big_set_u64(&den, 1);
	for (i = 0; i < n; i++) {
		big_mul(&q, &den, &d->den);
		big_swap(&q, &den);
	}
	if (count_dist(d, &c, n, &lim, &out))
		abort();	/* n <= 8 rolls is always within the budget */
	if (out.lo < 0 || out.lo + (int64_t)out.n > (int64_t)n + 1)
		same = false;
	for (k = 0; same && k <= n; k++) {
		int64_t at = (int64_t)k - out.lo;
		bool in = at >= 0 && at < (int64_t)out.n;

		same = frac_eq(in ? &out.c[at] : &zero, &out.den, &want[k],
			       &den);
	}
	dist_free(&out);
	for (k = 0; k <= n; k++)
		big_free(&want[k]);
	free(want);
	big_free(&hit);
	big_free(&miss);
	big_free(&den);
	big_free(&p);
	big_free(&q);
	return same;
}

/* ---- one case ------------------------------------------------------------- */

struct prng {
	uint64_t s;
	uint64_t budget;
};

static int prng_roll(void *ctx, const struct die *d, uint64_t *out,
		     size_t count)
{
	struct prng *p = ctx;
	size_t i;

	if (count > p->budget)
		return -ECANCELED;
	p->budget -= count;
	for (i = 0; i < count; i++) {
		uint64_t s;

		do {
			s = splitmix(&p->s) % d->sides;
		} while (d->weights && !d->weights[s]);
		out[i] = s + 1;
	}
	return 0;
}

struct job {
	const char *text;
	unsigned int explode;
	unsigned int dialect;	/* 1: --roll20, 2: --foundry, 3: --avrae */
	char fail[512];
	char why[300];
	bool parsed, have_dist, rolled, compared;
	unsigned int versus, counted;
};

static const char *const dialects[] = { "", " --roll20", " --foundry",
					" --avrae" };

#define FAIL(j, ...) do {						\
	snprintf((j)->fail, sizeof((j)->fail), __VA_ARGS__);		\
	return NULL;							\
} while (0)

static void *one_case_in_call(void *arg)
{
	struct job *j = arg;
	size_t len = strlen(j->text), k;
	struct notation_opts o = { .max_dice = 1000,
				   .explode_limit = j->explode,
				   .roll20 = j->dialect == 1,
				   .foundry = j->dialect == 2,
				   .avrae = j->dialect == 3 };
	const struct dist_limits lim = { .max_values = 4096, .max_work = 2000000,
					 .max_leaves = 20000 };
	struct notation_error err;
	struct dist_report rep;
	struct roll_result r;
	struct prng p = { 0 };
	struct dist d;
	struct expr *e;
	int ret;

	if (notation_parse(j->text, &o, &e, &err)) {
		if (err.offset > len || !err.msg[0])
			FAIL(j, "parse error at %zu of %zu: '%s'", err.offset, len,
			     err.msg);
		snprintf(j->why, sizeof(j->why), "%s", err.msg);
		return NULL;
	}
	j->parsed = true;
	if (!e->root || e->repeat < 1 || strcmp(e->typed ? e->typed : e->text, j->text))
		FAIL(j, "a parsed expression is not sane");
	ret = dist_expr_report(e, &lim, &d, &rep);
	if (ret && ret != -E2BIG)
		FAIL(j, "dist_expr_report: %d", ret);
	if (ret && (!rep.why[0] || rep.offset > len))
		FAIL(j, "-E2BIG without a reason, or at %zu of %zu", rep.offset, len);
	if (ret)
		snprintf(j->why, sizeof(j->why), "no dist: %s", rep.why);
	if (!ret) {
		bool any = false;

		j->have_dist = true;
		if (!d.n || big_is_zero(&d.den))
			FAIL(j, "an empty distribution or a zero denominator");
		for (k = 0; k < d.n; k++)
			any |= !big_is_zero(&d.c[k]);
		if (!any || big_is_zero(&d.c[0]) || big_is_zero(&d.c[d.n - 1]))
			FAIL(j, "every count zero, or not trimmed");
	}
	if (j->have_dist && e->ngroups) {
		const struct dist_limits elim = { .max_values = 4096,
						  .max_work = 2000000,
						  .max_leaves = 5000,
						  .enumerate_all = true };
		struct dist d2;

		ret = dist_expr_report(e, &elim, &d2, &rep);
		if (!ret) {
			bool same = d2.lo == d.lo && d2.n == d.n &&
				    !big_cmp(&d2.den, &d.den);

			for (k = 0; same && k < d.n; k++)
				same = !big_cmp(&d.c[k], &d2.c[k]);
			dist_free(&d2);
			if (!same)
				FAIL(j, "the distribution differs from the enumeration of its outcomes");
			j->compared = true;
		}
	}
	if (j->have_dist) {
		/* --versus: the previous case, itself, a constant at an end */
		int64_t hi = d.lo + (int64_t)d.n - 1, ends[] = { d.lo - 1,
			d.lo, hi, hi + 1, 0 };
		struct dist cd;
		const char *bad;
		enum cmp_op op = CMP_EQ + below(5);
		unsigned int n = e->repeat > 1 && e->repeat <= 10 ?
				 (unsigned int)e->repeat : 1 + below(8);

		if (prev.n) {
			bad = versus_check(&d, &prev);
			if (bad && *bad)
				FAIL(j, "--versus against the previous case: %s differs from brute force",
				     bad);
			j->versus += !bad;
		}
		bad = versus_check(&d, &d);
		if (bad && *bad)
			FAIL(j, "--versus against itself: %s differs from brute force",
			     bad);
		j->versus += !bad;
		law_const(&cd, ends[below(5)]);
		bad = below(2) ? versus_check(&d, &cd) : versus_check(&cd, &d);
		if (bad && *bad)
			FAIL(j, "--versus against %lld: %s differs from brute force",
			     (long long)cd.lo, bad);
		j->versus += !bad;
		dist_free(&cd);
		/* --count: N rolls, a target at, past or inside the range */
		ends[4] = d.lo + (int64_t)below((unsigned int)d.n);
		if (!count_check(&d, op, ends[below(5)], n))
			FAIL(j, "--count of %u rolls differs from brute force",
			     n);
		j->counted++;
		dist_free(&prev);
		law_copy(&prev, &d);
	}
	for (k = 0; k < len; k++)
		p.s = p.s * 131 + (unsigned char)j->text[k];
	p.budget = SIDES_BUDGET;
	roll_init(&r, e, (int)(len & 1));
	ret = roll_expr(e, &(struct roller){ prng_roll, &p }, &r);
	if (ret && ret != -EOVERFLOW && ret != -ECANCELED && ret != -EDOM)
		FAIL(j, "roll_expr: %d", ret);
	if (!ret) {
		j->rolled = true;
		if (j->have_dist) {
			val_t off = r.total - d.lo;
			char buf[VAL_BUFSZ];

			if (off < 0 || off >= (val_t)d.n || big_is_zero(&d.c[off]))
				FAIL(j, "rolled %s, impossible in its distribution",
				     val_str(r.total, buf));
		}
	}
	if (j->have_dist && (ret == -EOVERFLOW || ret == -EDOM))
		FAIL(j, "roll gave %d, but the distribution says it cannot", ret);
	roll_free(&r);
	if (j->have_dist)
		dist_free(&d);
	notation_free(e);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Each case is one call into the notation engine (common.h): its work
 * counter bounds the distributions, and an allocation failure ends the
 * case, not the run.
 */
static void *one_case(void *arg)
{
	struct notation_call call;
	void *ret = NULL;

	notation_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);	/* frees what the case held */
		return NULL;
	}
	ret = one_case_in_call(arg);
	notation_call_leave(&call);
	return ret;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, start = now(), worst = 0;
	bool verbose = argc > 3 && !strcmp(argv[3], "-v");
	unsigned long cases = 0, parsed = 0, dists = 0, rolls = 0, compared = 0;
	unsigned long versus = 0, counted = 0;
	char slowest[160] = "";
	pthread_attr_t attr;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
	printf("# fuzz_grammar: seed %llu, %.0f s, %d KiB stacks\n",
	       (unsigned long long)rng_state, seconds, STACK_SIZE / 1024);
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, STACK_SIZE)) {
		printf("not ok 1 - fuzz_grammar: cannot set the stack size\n");
		return 1;
	}
	/* past SECONDS until the least --versus and --count, for a minute */
	while (now() - start < seconds ||
	       ((versus < MIN_VERSUS || counted < MIN_COUNT) &&
		now() - start < seconds + 60)) {
		struct job j = { .explode = 1 + below(6),
				 .dialect = below(8) < 3 ? 1 + below(3) : 0 };
		char *text = make_case();
		double t0 = now(), took;
		pthread_t th;

		j.text = text;
		if (verbose) {
			printf("# case: %.300s\n", text);
			fflush(stdout);
		}
		if (pthread_create(&th, &attr, one_case, &j) ||
		    pthread_join(th, NULL)) {
			printf("not ok 1 - fuzz_grammar: cannot run a thread\n");
			return 1;
		}
		took = now() - t0;
		if (took > worst) {
			worst = took;
			snprintf(slowest, sizeof(slowest), "%s", text);
		}
		if (verbose)
			printf("# %.200s -> %s\n", text, j.why[0] ? j.why : "ok");
		cases++;
		parsed += j.parsed;
		dists += j.have_dist;
		rolls += j.rolled;
		compared += j.compared;
		versus += j.versus;
		counted += j.counted;
		if (j.fail[0] || took > CASE_LIMIT) {
			printf("not ok 1 - fuzz_grammar: %s\n",
			       j.fail[0] ? j.fail : "a case took too long");
			printf("#   took %.2f s, explode limit %u%s, expression (%zu bytes): %.2000s\n",
			       took, j.explode, dialects[j.dialect],
			       strlen(text), text);
			free(text);
			return 1;
		}
		free(text);
	}
	dist_free(&prev);
	if (versus < MIN_VERSUS || counted < MIN_COUNT) {
		printf("not ok 1 - fuzz_grammar: only %lu --versus pairs and %lu --count cases against brute force (want %d and %d)\n",
		       versus, counted, MIN_VERSUS, MIN_COUNT);
		return 1;
	}
	printf("ok 1 - fuzz_grammar: %lu cases (%lu parsed, %lu distributions, %lu checked by enumeration, %lu rolls; %lu --versus pairs and %lu --count cases checked by brute force), slowest %.3f s\n",
	       cases, parsed, dists, compared, rolls, versus, counted, worst);
	printf("# slowest: %s\n", slowest);
	return 0;
}
