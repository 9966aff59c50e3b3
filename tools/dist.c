// SPDX-License-Identifier: GPL-2.0
/*
 * dist.c - exact distributions of dice expressions
 *
 * Every step is exact integer arithmetic on counts over a common
 * denominator (big.c), and mirrors roll.c step by step:
 *   - the law of one face: a fair die, dF, d%, or custom faces and weights,
 *     moved by 'min' and 'max';
 *   - rerolls: 'r' removes the matching faces (the die is rolled until it
 *     shows another, so the others keep their relative weights); 'ro'
 *     gives c'(v) = c(v) * den * [v not rerolled] + W_R * c(v) over den^2;
 *   - explosions, bounded by explode_limit, by recursion from the last
 *     possible roll back to the first (T_k = rest(law) + explode(law) *
 *     T_k+1), each later face one less with 'p';
 *   - keep/drop of identical dice by dynamic programming over the faces in
 *     the order they are kept (best first): state (dice placed, score of
 *     the kept ones), placing c dice on a face at a time with weight
 *     C(n, c) w^c; once k dice are kept the rest go to the later faces
 *     with weight W_rest^n;
 *   - keep/drop over pools that grow ('!') or mix different dice ({...}):
 *     the state is the multiset of the k best values so far (a "pool");
 *   - unique dice ('u') of equally likely values: every set of distinct
 *     values is equally likely, so count the sets by dynamic programming;
 *     'mt' by dynamic programming over the values and their multiplicity;
 *     what has no such method ('uo', 'mt' after keep/drop or '!') is
 *     enumerated outcome by outcome through roll.c itself, when small;
 *   - computed counts (1d4)d6 as the mixture of the groups of each count;
 *   - sums by convolution, products, '%' and rounded division by pairing
 *     values.
 * Limits keep this bounded: the number of values of any distribution, the
 * number of limb products (big_work), and of outcomes enumerated.  A walk
 * over the syntax tree first estimates the cost of every step from the
 * shapes of the distributions alone and refuses what would not fit, in
 * milliseconds; the limits are checked again while computing.  Past any
 * of them the answer is "not feasible", never an approximation.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "dist.h"
#include "roll.h"

#define VALUE_LIMIT	((__int128)1 << 62)	/* |value| must stay below */
#define POOL_STATES	200000			/* multisets a pool may track */

struct ctx {
	const struct dist_limits *lim;
	jmp_buf jb;
	struct dist_report *rep;
	int err;
	uint64_t work0;
	uint64_t leaves;
	size_t at;		/* offset of the node in hand */
	unsigned int cap;	/* estimate: explode cap to assume (0: own) */
	double est;		/* estimated work so far */
	long double cap_prob;
};

/*
 * Failing unwinds with longjmp() and leaks what was in flight: the caller
 * reports the error and the program ends (fuzz_notation frees it).
 */
static void infeasible(struct ctx *x, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void infeasible(struct ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->rep->why, sizeof(x->rep->why), fmt, ap);
	va_end(ap);
	x->rep->offset = x->at;
	x->err = -E2BIG;
	longjmp(x->jb, 1);
}

static uint64_t max_leaves(const struct ctx *x)
{
	return x->lim->max_leaves ? x->lim->max_leaves : x->lim->max_work / 64;
}

/* The work done so far may exceed the estimate a little, not twice. */
static void check(struct ctx *x)
{
	if (dice_interrupted) {
		x->err = -EINTR;
		longjmp(x->jb, 1);
	}
	if (big_work - x->work0 > 2 * x->lim->max_work)
		infeasible(x, "it would take more than %llu limb products",
			   (unsigned long long)(2 * x->lim->max_work));
}

/* ---- distributions ------------------------------------------------------ */

void dist_free(struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		big_free(&d->c[i]);
	free(d->c);
	big_free(&d->den);
	memset(d, 0, sizeof(*d));
}

static void init(struct ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	memset(d, 0, sizeof(*d));
	if (lo <= -VALUE_LIMIT || hi >= VALUE_LIMIT)
		infeasible(x, "its values would not fit in 62 bits");
	if (hi - lo + 1 > (__int128)x->lim->max_values)
		infeasible(x, "it would span more than %zu values",
			   x->lim->max_values);
	d->lo = (int64_t)lo;
	d->n = (size_t)(hi - lo + 1);
	d->c = xcalloc(d->n, sizeof(*d->c));
}

static __int128 hi_of(const struct dist *d)
{
	return (__int128)d->lo + (__int128)d->n - 1;
}

/* Drop zero counts at both ends; an all-zero distribution keeps one. */
static void trim(struct dist *d)
{
	size_t a = 0, b = d->n, i;

	while (a + 1 < b && big_is_zero(&d->c[a]))
		a++;
	while (b - 1 > a && big_is_zero(&d->c[b - 1]))
		b--;
	if (a == 0 && b == d->n)
		return;
	for (i = 0; i < a; i++)
		big_free(&d->c[i]);
	for (i = b; i < d->n; i++)
		big_free(&d->c[i]);
	memmove(d->c, d->c + a, (b - a) * sizeof(*d->c));
	d->lo += (int64_t)a;
	d->n = b - a;
}

static bool empty(const struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			return false;
	}
	return true;
}

static void point(struct ctx *x, struct dist *d, int64_t v)
{
	init(x, d, v, v);
	big_set_u64(&d->c[0], 1);
	big_set_u64(&d->den, 1);
}

/* Indices of the non-zero counts of @d; *n gets how many. */
static size_t *nonzero(const struct dist *d, size_t *n)
{
	size_t *idx = xmalloc((d->n ? d->n : 1) * sizeof(*idx)), i, k = 0;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			idx[k++] = i;
	}
	*n = k;
	return idx;
}

/* r = the distribution of A + B (independent). */
static void conv(struct ctx *x, struct dist *r, const struct dist *a,
		 const struct dist *b)
{
	size_t na, nb, i, j, *ia = nonzero(a, &na), *ib = nonzero(b, &nb);

	init(x, r, (__int128)a->lo + b->lo, hi_of(a) + hi_of(b));
	for (i = 0; i < na; i++) {
		const struct big *ca = &a->c[ia[i]];

		for (j = 0; j < nb; j++)
			big_addmul(&r->c[ia[i] + ib[j]], ca, &b->c[ib[j]]);
		check(x);
	}
	big_mul(&r->den, &a->den, &b->den);
	free(ia);
	free(ib);
	trim(r);
}

/* *a = *a + *b; frees *b. */
static void conv_into(struct ctx *x, struct dist *a, struct dist *b)
{
	struct dist r;

	conv(x, &r, a, b);
	dist_free(a);
	dist_free(b);
	*a = r;
}

enum binop { OP_MUL, OP_MOD, OP_DIV };

/*
 * The value of a OP b, OP_DIV rounding by @f; b != 0 for all but OP_MUL
 * (values below 2^62, so div_round() cannot fail).
 */
static __int128 apply(enum binop op, enum func_type f, __int128 a,
		      __int128 b)
{
	val_t q;

	if (op == OP_MUL)
		return a * b;
	if (op == OP_MOD)
		return a % b;
	div_round(f, a, b, &q);
	return q;
}

/* r = the distribution of A op B (independent), by pairing values. */
static void pairwise(struct ctx *x, struct dist *r, const struct dist *a,
		     const struct dist *b, enum binop op, enum func_type f)
{
	size_t na, nb, i, j, *ia = nonzero(a, &na), *ib = nonzero(b, &nb);
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;

	if (op != OP_MUL && b->lo <= 0 && hi_of(b) >= 0 &&
	    !big_is_zero(&b->c[-b->lo]))
		infeasible(x, "the divisor can be 0");
	for (i = 0; i < na; i++) {
		__int128 va = (__int128)a->lo + ia[i];

		for (j = 0; j < nb; j++) {
			__int128 v = apply(op, f, va, (__int128)b->lo + ib[j]);

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	init(x, r, lo, hi);
	for (i = 0; i < na; i++) {
		__int128 va = (__int128)a->lo + ia[i];

		for (j = 0; j < nb; j++) {
			__int128 v = apply(op, f, va, (__int128)b->lo + ib[j]);

			big_addmul(&r->c[v - r->lo], &a->c[ia[i]], &b->c[ib[j]]);
		}
		check(x);
	}
	big_mul(&r->den, &a->den, &b->den);
	free(ia);
	free(ib);
	trim(r);
}

static void negate(struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n / 2; i++)
		big_swap(&d->c[i], &d->c[d->n - 1 - i]);
	d->lo = (int64_t)-hi_of(d);
}

/* |X| */
static void absolute(struct ctx *x, struct dist *d)
{
	struct dist r;
	size_t i;

	if (d->lo >= 0)
		return;
	if (hi_of(d) <= 0) {
		negate(d);
		return;
	}
	init(x, &r, 0, -d->lo > hi_of(d) ? -d->lo : hi_of(d));
	for (i = 0; i < d->n; i++) {
		int64_t v = d->lo + (int64_t)i;

		big_add(&r.c[v < 0 ? -v : v], &d->c[i]);
	}
	big_copy(&r.den, &d->den);
	dist_free(d);
	*d = r;
	trim(d);
}

/* Make room in @d for values lo..hi, keeping its counts. */
static void widen(struct ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	struct dist w;
	size_t i;

	if (lo >= d->lo && hi <= hi_of(d))
		return;
	if (lo > d->lo)
		lo = d->lo;
	if (hi < hi_of(d))
		hi = hi_of(d);
	init(x, &w, lo, hi);
	for (i = 0; i < d->n; i++)
		w.c[d->lo - w.lo + (int64_t)i] = d->c[i];
	free(d->c);
	w.den = d->den;
	*d = w;
}

/* ---- one die ------------------------------------------------------------- */

/* What a value scores: itself, or +1/-1/0 against a success target. */
struct scorer {
	const struct cmp *success;
	const struct cmp *failure;
};

static val_t score(const struct scorer *sc, val_t v)
{
	if (!sc || sc->success->op == CMP_NONE)
		return v;
	return cmp_score(sc->success, sc->failure, v);
}

/*
 * r = the law of score(V - @shift) for V drawn from @law, restricted to
 * the V for which cmp_match(@only, V) == @inside when @only is given (the
 * others count zero; the denominator stays).
 */
static void push(struct ctx *x, struct dist *r, const struct dist *law,
		 const struct scorer *sc, int shift, const struct cmp *only,
		 bool inside)
{
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i;

	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = score(sc, v - shift);

		if (lo > s)
			lo = s;
		if (hi < s)
			hi = s;
	}
	init(x, r, lo, hi);
	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = score(sc, v - shift);

		if (only && cmp_match(only, v) != inside)
			continue;
		big_add(&r->c[s - r->lo], &law->c[i]);
	}
	big_copy(&r->den, &law->den);
}

static void base_law(struct ctx *x, struct dist *d, const struct group *g)
{
	const struct die *die = &g->die;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	uint64_t i;

	if (die->sides > x->lim->max_values)
		infeasible(x, "the die has %llu sides, more than %zu",
			   (unsigned long long)die->sides, x->lim->max_values);
	for (i = 0; i < die->sides; i++) {
		val_t v = group_face(g, i);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	init(x, d, lo, hi);
	for (i = 0; i < die->sides; i++) {
		struct big w = { 0 };

		big_set_u64(&w, die->weights ? die->weights[i] : 1);
		big_add(&d->c[group_face(g, i) - d->lo], &w);
		big_free(&w);
	}
	big_set_u64(&d->den, die->weight_sum);
	trim(d);
}

static void apply_rerolls(struct dist *law, const struct group *g)
{
	struct big wr = { 0 }, t = { 0 };
	size_t i;

	if (g->reroll == REROLL_NONE)
		return;
	for (i = 0; i < law->n; i++) {
		if (cmp_any(g->rr, g->nrr, law->lo + (int64_t)i))
			big_add(&wr, &law->c[i]);
	}
	if (g->reroll == REROLL_ALWAYS) {
		for (i = 0; i < law->n; i++) {
			if (cmp_any(g->rr, g->nrr, law->lo + (int64_t)i))
				law->c[i].n = 0;
		}
		big_sub(&law->den, &wr);
	} else {
		for (i = 0; i < law->n; i++) {
			t.n = 0;
			if (!cmp_any(g->rr, g->nrr, law->lo + (int64_t)i))
				big_addmul(&t, &law->c[i], &law->den);
			big_addmul(&t, &law->c[i], &wr);
			big_swap(&t, &law->c[i]);
		}
		big_mul(&t, &law->den, &law->den);
		big_swap(&t, &law->den);
	}
	big_free(&wr);
	big_free(&t);
	trim(law);
}

static unsigned int cap_of(const struct ctx *x, const struct group *g)
{
	return x->cap ? x->cap : g->explode_limit;
}

/* Remember how likely one die of @g is to explode up to its cap. */
static void note_cap(struct ctx *x, const struct dist *law,
		     const struct group *g)
{
	struct big wb = { 0 };
	long double p;
	size_t i;

	for (i = 0; i < law->n; i++) {
		if (cmp_match(&g->ex, law->lo + (int64_t)i))
			big_add(&wb, &law->c[i]);
	}
	p = powl(big_ratio(&wb, &law->den), g->explode_limit);
	big_free(&wb);
	if (p > x->cap_prob)
		x->cap_prob = p;
}

/*
 * The sum over one die's chain of faces (itself and its explosions) of
 * score(face) (@sc) or face.  With explode_limit L, the last possible face
 * T_L = law, and T_k = rest + boom * T_k+1 with "rest" the faces that stop
 * and "boom" those that explode; with 'p' every face but the first counts
 * one less.
 */
static void chain(struct ctx *x, struct dist *out, const struct dist *law,
		  const struct group *g, const struct scorer *sc)
{
	struct dist rest, boom, rest1, boom1, t, next;
	int pen = g->penetrate ? 1 : 0;
	unsigned int k, lim = g->explode_limit;
	size_t i;

	push(x, &rest, law, sc, 0, &g->ex, false);
	push(x, &boom, law, sc, 0, &g->ex, true);
	push(x, &rest1, law, sc, pen, &g->ex, false);
	push(x, &boom1, law, sc, pen, &g->ex, true);
	push(x, &t, law, sc, pen, NULL, false);		/* T_L */
	if (empty(&boom) || !lim) {	/* the exploding faces are all rerolled */
		dist_free(&t);
		dist_free(&boom1);
		dist_free(&rest1);
		push(x, &t, law, sc, 0, NULL, false);
		goto out;
	}
	note_cap(x, law, g);
	trim(&boom);
	trim(&boom1);
	for (k = 0; k < lim; k++) {
		const struct dist *r = k + 1 < lim ? &rest1 : &rest;
		const struct dist *b = k + 1 < lim ? &boom1 : &boom;

		conv(x, &next, b, &t);	/* den: law.den * t.den */
		widen(x, &next, r->lo, hi_of(r));
		for (i = 0; i < r->n; i++) {
			if (!big_is_zero(&r->c[i]))
				big_addmul(&next.c[r->lo - next.lo + (int64_t)i],
					   &r->c[i], &t.den);
		}
		trim(&next);
		dist_free(&t);
		t = next;
		check(x);
	}
out:
	dist_free(&rest);
	dist_free(&boom);
	dist_free(&rest1);
	dist_free(&boom1);
	*out = t;
}

/* The sum of @n independent copies of @one. */
static void power(struct ctx *x, struct dist *out, const struct dist *one,
		  uint64_t n)
{
	struct dist acc, next;
	uint64_t i;

	if (!n) {
		point(x, out, 0);
		return;
	}
	push(x, &acc, one, NULL, 0, NULL, false);
	for (i = 1; i < n; i++) {
		conv(x, &next, &acc, one);
		dist_free(&acc);
		acc = next;
	}
	*out = acc;
}

/* ---- keep/drop ------------------------------------------------------------ */

/* @faces (indices into @law) best first for @mode. */
static size_t *best_first(const struct dist *law, enum keep_mode mode,
			  size_t *nf)
{
	size_t *faces = nonzero(law, nf), f;

	if (mode == KEEP_HIGH) {
		for (f = 0; f < *nf / 2; f++) {
			size_t t = faces[f];

			faces[f] = faces[*nf - 1 - f];
			faces[*nf - 1 - f] = t;
		}
	}
	return faces;
}

/*
 * Score of the k best of n dice drawn from @law ("best" = highest for
 * KEEP_HIGH, lowest for KEEP_LOW), by dynamic programming over the faces
 * in that order; see the header comment.
 */
static void keep_dp(struct ctx *x, struct dist *out, const struct dist *law,
		    const struct scorer *sc, enum keep_mode mode, uint64_t n,
		    uint64_t k)
{
	uint64_t i, c;
	size_t nf, *faces = best_first(law, mode, &nf), f, s, width;
	__int128 smin = VALUE_LIMIT, smax = -VALUE_LIMIT, base, top;
	struct big *dp, *res, *wpow, *rpow, wrest = { 0 }, bin = { 0 },
		   coef = { 0 }, coef2 = { 0 };
	bool *live;

	for (f = 0; f < nf; f++) {
		val_t v = score(sc, law->lo + (int64_t)faces[f]);

		smin = v < smin ? v : smin;
		smax = v > smax ? v : smax;
	}
	base = (__int128)k * smin < 0 ? (__int128)k * smin : 0;
	top = (__int128)k * smax > 0 ? (__int128)k * smax : 0;
	init(x, out, base, top);
	width = out->n;
	if ((__int128)width * k > (__int128)x->lim->max_values * 4)
		infeasible(x, "keeping %llu of %llu dice needs more than %zu states",
			   (unsigned long long)k, (unsigned long long)n,
			   x->lim->max_values * 4);
	res = out->c;
	dp = xcalloc(width * k, sizeof(*dp));
	live = xcalloc(k, sizeof(*live));
	wpow = xcalloc(n + 1, sizeof(*wpow));
	rpow = xcalloc(n + 1, sizeof(*rpow));
	big_set_u64(&dp[0 * width + (size_t)(0 - base)], 1);
	live[0] = true;
	big_copy(&wrest, &law->den);

	for (f = 0; f < nf; f++) {
		const struct big *w = &law->c[faces[f]];
		__int128 sv = score(sc, law->lo + (int64_t)faces[f]);

		big_sub(&wrest, w);
		big_set_u64(&wpow[0], 1);
		big_set_u64(&rpow[0], 1);
		for (c = 1; c <= n; c++) {
			big_mul(&wpow[c], &wpow[c - 1], w);
			big_mul(&rpow[c], &rpow[c - 1], &wrest);
		}
		check(x);
		/* from the most dice placed down: targets were already read */
		for (i = k; i--;) {
			struct big *row = &dp[i * width];

			if (!live[i])
				continue;
			big_set_u64(&bin, 1);
			for (c = 1; c <= n - i; c++) {
				uint64_t i2 = i + c, kept = c < k - i ? c : k - i;
				__int128 shift = (__int128)kept * sv;
				struct big *dst;

				big_mul_u64(&bin, n - i - c + 1);
				big_divmod_u64(&bin, c);
				big_mul(&coef, &bin, &wpow[c]);
				if (i2 >= k) {
					big_mul(&coef2, &coef, &rpow[n - i2]);
					big_swap(&coef, &coef2);
					dst = res;
				} else {
					dst = &dp[i2 * width];
					live[i2] = true;
				}
				if (big_is_zero(&coef))
					continue;
				for (s = 0; s < width; s++) {
					if (big_is_zero(&row[s]))
						continue;
					big_addmul(&dst[(size_t)((__int128)s + shift)],
						   &row[s], &coef);
				}
				check(x);
			}
		}
	}
	for (s = 0; s < width * k; s++)
		big_free(&dp[s]);
	for (c = 0; c <= n; c++) {
		big_free(&wpow[c]);
		big_free(&rpow[c]);
	}
	free(dp);
	free(live);
	free(wpow);
	free(rpow);
	free(faces);
	big_free(&wrest);
	big_free(&bin);
	big_free(&coef);
	big_free(&coef2);
	/* den = law.den ^ n */
	big_set_u64(&out->den, 1);
	for (c = 0; c < n; c++) {
		big_mul(&coef, &out->den, &law->den);
		big_swap(&coef, &out->den);
	}
	big_free(&coef);
	trim(out);
}

/* ---- pools: keep/drop over growing or mixed dice ------------------------ */

/*
 * With '!', a die adds a variable number of dice to the pool, and in a
 * grouped roll the dice (or elements) differ, so keep_dp() does not apply.
 * Instead: the k best of the pool are the k best of the k best of each
 * element, so the state is the multiset of the k best values seen so far.
 * Each element first gets the law of its own k best values (a "chain": a
 * die and its explosions, or one value), then the elements are added one
 * at a time.  A multiset is a sorted list of value ranks (1 = best),
 * packed into a number base m + 1 (0: no value).
 */
struct mmap {
	uint64_t *keys;		/* key + 1; 0 = empty slot */
	struct big *vals;
	size_t cap, used;
};

static struct big *mmap_get(struct mmap *m, uint64_t key)
{
	size_t i;

	if (2 * (m->used + 1) > m->cap) {
		struct mmap g = { 0 };

		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (i = 0; i < m->cap; i++) {
			if (m->keys[i]) {
				size_t j = (m->keys[i] * 0x9e3779b97f4a7c15ULL) & (g.cap - 1);

				while (g.keys[j])
					j = (j + 1) & (g.cap - 1);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		}
		g.used = m->used;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	i = ((key + 1) * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key + 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i]) {
		m->keys[i] = key + 1;
		m->used++;
	}
	return &m->vals[i];
}

static void mmap_free(struct mmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		big_free(&m->vals[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Merge two packed multisets (ranks ascending), keeping the k best. */
static uint64_t merge(uint64_t a, uint64_t b, uint64_t base, unsigned int k)
{
	uint64_t out = 0, mul = 1;
	unsigned int n = 0;

	while (n < k && (a || b)) {
		uint64_t ra = a % base, rb = b % base, r;

		if (ra && (!rb || ra <= rb)) {
			r = ra;
			a /= base;
		} else {
			r = rb;
			b /= base;
		}
		out += r * mul;
		mul *= base;
		n++;
	}
	return out;
}

/* The values a pool can hold, best first: rank r is v[r - 1]. */
struct domain {
	val_t *v;
	size_t m, cap;
	enum keep_mode mode;
};

static void domain_add(struct domain *dm, val_t v)
{
	if (dm->m == dm->cap) {
		dm->cap = dm->cap ? dm->cap * 2 : 64;
		dm->v = xrealloc(dm->v, dm->cap, sizeof(*dm->v));
	}
	dm->v[dm->m++] = v;
}

static void domain_add_dist(struct domain *dm, const struct dist *d, int shift)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			domain_add(dm, d->lo + (int64_t)i - shift);
	}
}

static int val_cmp(const void *a, const void *b)
{
	val_t x = *(const val_t *)a, y = *(const val_t *)b;

	return x < y ? -1 : x > y;
}

static void domain_done(struct domain *dm)
{
	size_t i, j = 0;

	if (dm->m)
		qsort(dm->v, dm->m, sizeof(*dm->v), val_cmp);
	for (i = 0; i < dm->m; i++) {
		if (!j || dm->v[j - 1] != dm->v[i])
			dm->v[j++] = dm->v[i];
	}
	dm->m = j;
	if (dm->mode == KEEP_HIGH) {
		for (i = 0; i < j / 2; i++) {
			val_t t = dm->v[i];

			dm->v[i] = dm->v[j - 1 - i];
			dm->v[j - 1 - i] = t;
		}
	}
}

static uint64_t rank_of(const struct domain *dm, val_t v)
{
	size_t lo = 0, hi = dm->m;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		bool before = dm->mode == KEEP_HIGH ? dm->v[mid] > v : dm->v[mid] < v;

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1;
}

/* C(m + k, k) packed states, or infeasible. */
static void pool_limits(struct ctx *x, size_t m, unsigned int k,
			uint64_t elements, const char *what)
{
	uint64_t states = 1;
	unsigned int t;

	for (t = 1; t <= k; t++) {
		states = states * (m + t) / t;
		if (states > POOL_STATES)
			break;
	}
	if (states > POOL_STATES || k > 64 / 2 ||
	    (double)k * log2((double)(m + 1)) >= 63)
		infeasible(x, "keeping %u %s of up to %llu values needs too many states",
			   k, what, (unsigned long long)m);
	if ((double)states * (double)states * (double)elements > 4e9)
		infeasible(x, "keeping %u of %llu %s needs too many steps",
			   k, (unsigned long long)elements, what);
}

/* An element that is one value drawn from @law. */
struct psrc {
	struct mmap chain;
	struct big den;
	uint64_t count;
};

static void psrc_law(struct psrc *p, const struct dist *law,
		     const struct domain *dm, uint64_t count)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < law->n; i++) {
		if (!big_is_zero(&law->c[i]))
			big_add(mmap_get(&p->chain, rank_of(dm, law->lo + (int64_t)i)),
				&law->c[i]);
	}
	big_copy(&p->den, &law->den);
	p->count = count;
}

/* A die of @g with '!': the k best of its faces, weights over den^(L+1). */
static void psrc_explode(struct ctx *x, struct psrc *p, const struct dist *law,
			 const struct group *g, const struct domain *dm,
			 unsigned int k, uint64_t count)
{
	size_t nf, *faces = nonzero(law, &nf), f, i;
	unsigned int t, lim = g->explode_limit;
	struct mmap alive = { 0 }, next = { 0 };
	struct big w = { 0 };
	uint64_t base = dm->m + 1, *r0 = xmalloc((nf ? nf : 1) * sizeof(*r0)),
		 *r1 = xmalloc((nf ? nf : 1) * sizeof(*r1));

	memset(p, 0, sizeof(*p));
	note_cap(x, law, g);
	for (f = 0; f < nf; f++) {
		r0[f] = rank_of(dm, law->lo + (int64_t)faces[f]);
		r1[f] = rank_of(dm, law->lo + (int64_t)faces[f] - g->penetrate);
	}
	big_set_u64(mmap_get(&alive, 0), 1);
	/* a chain that stops after t explosions is padded with den^(lim - t) */
	for (t = 0; t <= lim && alive.used; t++) {
		struct big padt = { 0 };
		uint64_t q;

		big_set_u64(&padt, 1);
		for (q = t; q < lim; q++) {
			big_mul(&w, &padt, &law->den);
			big_swap(&w, &padt);
		}
		for (i = 0; i < alive.cap; i++) {
			uint64_t key;

			if (!alive.keys[i] || big_is_zero(&alive.vals[i]))
				continue;
			key = alive.keys[i] - 1;
			for (f = 0; f < nf; f++) {
				val_t v = law->lo + (int64_t)faces[f];
				uint64_t nk = merge(key, t ? r1[f] : r0[f], base, k);
				bool boom = cmp_match(&g->ex, v) && t < lim;

				big_mul(&w, &alive.vals[i], &law->c[faces[f]]);
				if (boom) {
					big_add(mmap_get(&next, nk), &w);
				} else {
					struct big tmp = { 0 };

					big_mul(&tmp, &w, &padt);
					big_add(mmap_get(&p->chain, nk), &tmp);
					big_free(&tmp);
				}
			}
			check(x);
		}
		big_free(&padt);
		mmap_free(&alive);
		alive = next;
		memset(&next, 0, sizeof(next));
	}
	mmap_free(&alive);
	big_set_u64(&p->den, 1);
	for (t = 0; t <= lim; t++) {
		big_mul(&w, &p->den, &law->den);
		big_swap(&w, &p->den);
	}
	p->count = count;
	big_free(&w);
	free(faces);
	free(r0);
	free(r1);
}

/* The score of the k best of the elements of @p[0..n-1]. */
static void pool_keep(struct ctx *x, struct dist *out, struct psrc *p,
		      unsigned int n, const struct domain *dm, unsigned int k,
		      const struct scorer *sc)
{
	struct mmap pool = { 0 }, npool = { 0 };
	struct big w = { 0 };
	uint64_t base = dm->m + 1, c;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	unsigned int s, t;
	size_t i, j;

	big_set_u64(mmap_get(&pool, 0), 1);
	for (s = 0; s < n; s++) {
		for (c = 0; c < p[s].count; c++) {
			for (i = 0; i < pool.cap; i++) {
				if (!pool.keys[i] || big_is_zero(&pool.vals[i]))
					continue;
				for (j = 0; j < p[s].chain.cap; j++) {
					if (!p[s].chain.keys[j] ||
					    big_is_zero(&p[s].chain.vals[j]))
						continue;
					big_addmul(mmap_get(&npool, merge(pool.keys[i] - 1,
									  p[s].chain.keys[j] - 1,
									  base, k)),
						   &pool.vals[i], &p[s].chain.vals[j]);
				}
				check(x);
			}
			mmap_free(&pool);
			pool = npool;
			memset(&npool, 0, sizeof(npool));
		}
	}
	/* score each final multiset */
	for (t = 0; t < 2; t++) {
		for (i = 0; i < pool.cap; i++) {
			uint64_t key = pool.keys[i] ? pool.keys[i] - 1 : 0;
			__int128 v = 0;

			if (!pool.keys[i] || big_is_zero(&pool.vals[i]))
				continue;
			for (; key; key /= base)
				v += score(sc, dm->v[key % base - 1]);
			if (!t) {
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			} else {
				big_add(&out->c[v - out->lo], &pool.vals[i]);
			}
		}
		if (!t)
			init(x, out, lo, hi);
	}
	big_set_u64(&out->den, 1);
	for (s = 0; s < n; s++) {
		for (c = 0; c < p[s].count; c++) {
			big_mul(&w, &out->den, &p[s].den);
			big_swap(&w, &out->den);
		}
	}
	mmap_free(&pool);
	big_free(&w);
	trim(out);
}

static void psrc_free(struct psrc *p)
{
	mmap_free(&p->chain);
	big_free(&p->den);
}

/* ---- unique dice, matches, enumeration ----------------------------------- */

/* Are the non-zero counts of @law all equal? */
static bool uniform(const struct dist *law)
{
	const struct big *first = NULL;
	size_t i;

	for (i = 0; i < law->n; i++) {
		if (big_is_zero(&law->c[i]))
			continue;
		if (first && big_cmp(first, &law->c[i]))
			return false;
		first = &law->c[i];
	}
	return true;
}

/*
 * n unique dice of equally likely values: every set of n distinct values
 * is equally likely.  Count the sets by the score of their k best values,
 * placing the values best first: state (values chosen, score of the kept).
 */
static void unique_dp(struct ctx *x, struct dist *out, const struct dist *law,
		      const struct scorer *sc, enum keep_mode mode, uint64_t n,
		      uint64_t k)
{
	size_t nf, *faces = best_first(law, mode == KEEP_ALL ? KEEP_LOW : mode, &nf),
	       f, s, width;
	__int128 smin = 0, smax = 0, base;
	struct big *dp;
	uint64_t j;

	for (f = 0; f < nf; f++) {
		val_t v = score(sc, law->lo + (int64_t)faces[f]);

		smin = v < smin ? v : smin;
		smax = v > smax ? v : smax;
	}
	base = (__int128)k * smin;
	init(x, out, base, (__int128)k * smax);
	width = out->n;
	if ((__int128)width * (n + 1) > (__int128)x->lim->max_values * 4)
		infeasible(x, "%llu unique dice need more than %zu states",
			   (unsigned long long)n, x->lim->max_values * 4);
	dp = xcalloc(width * (n + 1), sizeof(*dp));
	big_set_u64(&dp[(size_t)(0 - base)], 1);
	for (f = 0; f < nf; f++) {
		__int128 sv = score(sc, law->lo + (int64_t)faces[f]);
		uint64_t top = f + 1 < n ? f + 1 : n;

		for (j = top; j-- > 0;) {
			struct big *from = &dp[j * width], *to = &dp[(j + 1) * width];
			__int128 shift = j < k ? sv : 0;

			for (s = 0; s < width; s++) {
				if (!big_is_zero(&from[s]))
					big_add(&to[(size_t)((__int128)s + shift)], &from[s]);
			}
		}
		check(x);
	}
	for (s = 0; s < width; s++)
		big_swap(&out->c[s], &dp[n * width + s]);
	for (s = 0; s < width * (n + 1); s++)
		big_free(&dp[s]);
	free(dp);
	free(faces);
	/* den = C(nf, n) */
	big_set_u64(&out->den, 1);
	for (j = 0; j < n; j++) {
		big_mul_u64(&out->den, nf - j);
		big_divmod_u64(&out->den, j + 1);
	}
	trim(out);
}

/*
 * 'mt' without keep/drop or '!': the number of values that at least m of n
 * dice drawn from @law show.  Over the values: state (dice placed, sets),
 * placing c dice on a value with weight C(n - placed, c) w^c.
 */
static void match_dp(struct ctx *x, struct dist *out, const struct dist *law,
		     uint64_t n, unsigned int m)
{
	size_t nf, *faces = nonzero(law, &nf), f, sets = n / m + 1, i, s;
	struct big *dp = xcalloc((n + 1) * sets, sizeof(*dp)),
		   *nx = xcalloc((n + 1) * sets, sizeof(*nx)),
		   *wpow = xcalloc(n + 1, sizeof(*wpow)), bin = { 0 }, coef = { 0 };
	uint64_t c;

	big_set_u64(&dp[0], 1);
	for (f = 0; f < nf; f++) {
		const struct big *w = &law->c[faces[f]];

		big_set_u64(&wpow[0], 1);
		for (c = 1; c <= n; c++)
			big_mul(&wpow[c], &wpow[c - 1], w);
		for (i = 0; i <= n; i++) {
			for (s = 0; s < sets; s++) {
				const struct big *from = &dp[i * sets + s];

				if (big_is_zero(from))
					continue;
				big_set_u64(&bin, 1);
				for (c = 0; i + c <= n; c++) {
					if (c) {
						big_mul_u64(&bin, n - i - c + 1);
						big_divmod_u64(&bin, c);
					}
					big_mul(&coef, &bin, &wpow[c]);
					big_addmul(&nx[(i + c) * sets + s + (c >= m)],
						   from, &coef);
				}
			}
			check(x);
		}
		for (i = 0; i < (n + 1) * sets; i++) {
			big_swap(&dp[i], &nx[i]);
			nx[i].n = 0;
		}
	}
	init(x, out, 0, (int64_t)sets - 1);
	for (s = 0; s < sets; s++)
		big_swap(&out->c[s], &dp[n * sets + s]);
	big_set_u64(&out->den, 1);
	for (c = 0; c < n; c++) {
		big_mul(&coef, &out->den, &law->den);
		big_swap(&coef, &out->den);
	}
	for (i = 0; i < (n + 1) * sets; i++) {
		big_free(&dp[i]);
		big_free(&nx[i]);
	}
	for (c = 0; c <= n; c++)
		big_free(&wpow[c]);
	free(dp);
	free(nx);
	free(wpow);
	free(faces);
	big_free(&bin);
	big_free(&coef);
	trim(out);
}

/*
 * Enumeration: roll the group through roll.c with a source that follows a
 * path of sides, one outcome per path, in odometer order.  'r' never runs
 * for ever here: the source never shows a face that 'r' would reroll
 * (rolling until another face shows is the same as drawing among the
 * others).  The probability of an outcome is the product of the weights of
 * its sides over W^depth, so the counts go by depth and are brought over
 * one denominator at the end.
 */
struct path {
	const struct group *g;
	uint64_t *side;
	size_t len, cap, pos;
	uint64_t *w;		/* weight of each side (0: never shown) */
	uint64_t wsum;
	size_t max;		/* most sides one outcome may ask for */
};

static uint64_t next_side(const struct path *p, uint64_t from)
{
	while (from < p->g->die.sides && !p->w[from])
		from++;
	return from;
}

static int path_roll(void *ctx, const struct die *d, uint64_t *out,
		     size_t count)
{
	struct path *p = ctx;
	size_t i;

	(void)d;
	if (p->pos + count > p->max)
		return -ECANCELED;	/* cannot happen: a bounded group */
	for (i = 0; i < count; i++, p->pos++) {
		if (p->pos == p->len) {
			if (p->len == p->cap) {
				p->cap = p->cap ? p->cap * 2 : 64;
				p->side = xrealloc(p->side, p->cap, sizeof(*p->side));
			}
			p->side[p->len++] = next_side(p, 0);
		}
		out[i] = p->side[p->pos] + 1;
	}
	return 0;
}

static void enumerate(struct ctx *x, struct dist *out, const struct group *g,
		      uint64_t n)
{
	struct path p = { .g = g };
	struct group_roll gr = { .g = g, .need_pool = true };
	struct dist *bydepth = NULL;
	size_t nd = 0, i, d;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	struct big w = { 0 }, t = { 0 };
	uint64_t s;

	if (g->die.sides > x->lim->max_values)
		infeasible(x, "the die has %llu sides, more than %zu",
			   (unsigned long long)g->die.sides, x->lim->max_values);
	p.max = (size_t)n * (1 + (g->reroll == REROLL_ONCE)) *
		(1 + (g->unique == UNIQUE_ONCE)) *
		(1 + (g->explode != EXPLODE_NONE ? g->explode_limit : 0));
	p.w = xcalloc(g->die.sides, sizeof(*p.w));
	for (s = 0; s < g->die.sides; s++) {
		val_t v = group_face(g, s);

		p.w[s] = g->die.weights ? g->die.weights[s] : 1;
		if (g->reroll == REROLL_ALWAYS && cmp_any(g->rr, g->nrr, v))
			p.w[s] = 0;
		p.wsum += p.w[s];
	}
	for (;;) {
		int err;

		p.pos = 0;
		err = roll_group_count(&gr, &(struct roll_source){ path_roll, &p }, n, 1);
		if (err == -EINTR) {
			x->err = -EINTR;
			longjmp(x->jb, 1);
		}
		if (err == -ECANCELED)
			infeasible(x, "an outcome has no bound on its rolls");
		if (err)
			infeasible(x, "an outcome does not fit in 62 bits");
		if (++x->leaves > max_leaves(x))
			infeasible(x, "it would enumerate more than %llu outcomes",
				   (unsigned long long)max_leaves(x));
		d = p.pos;
		if (d >= nd) {
			bydepth = xrealloc(bydepth, d + 1, sizeof(*bydepth));
			memset(bydepth + nd, 0, (d + 1 - nd) * sizeof(*bydepth));
			nd = d + 1;
		}
		if (!bydepth[d].c) {
			init(x, &bydepth[d], gr.value, gr.value);
		} else {
			widen(x, &bydepth[d], gr.value, gr.value);
		}
		big_set_u64(&w, 1);
		for (i = 0; i < d; i++)
			big_mul_u64(&w, p.w[p.side[i]]);
		big_add(&bydepth[d].c[gr.value - bydepth[d].lo], &w);
		lo = gr.value < lo ? gr.value : lo;
		hi = gr.value > hi ? gr.value : hi;
		/* the next path: bump the last side that can be bumped */
		while (p.len > d)
			p.len--;
		while (p.len) {
			uint64_t nx = next_side(&p, p.side[p.len - 1] + 1);

			if (nx < g->die.sides) {
				p.side[p.len - 1] = nx;
				break;
			}
			p.len--;
		}
		if (!p.len)
			break;
		if (!(x->leaves & 1023))
			check(x);
	}
	/* one denominator: wsum^(nd - 1) */
	init(x, out, lo, hi);
	for (d = 0; d < nd; d++) {
		if (!bydepth[d].c)
			continue;
		big_set_u64(&t, 1);
		for (i = d; i + 1 < nd; i++)
			big_mul_u64(&t, p.wsum);
		for (i = 0; i < bydepth[d].n; i++) {
			if (!big_is_zero(&bydepth[d].c[i]))
				big_addmul(&out->c[bydepth[d].lo - out->lo + (int64_t)i],
					   &bydepth[d].c[i], &t);
		}
		dist_free(&bydepth[d]);
	}
	big_set_u64(&out->den, 1);
	for (d = 0; d + 1 < nd; d++)
		big_mul_u64(&out->den, p.wsum);
	free(bydepth);
	free(gr.ev);
	free(gr.pool);
	free(p.side);
	free(p.w);
	big_free(&w);
	big_free(&t);
	trim(out);
}

/* ---- groups --------------------------------------------------------------- */

static void node_dist(struct ctx *x, struct dist *out, const struct node *n);

/* 'u' never: it may reroll for ever, and unique_dp() knows it. */
static bool needs_enumeration(const struct ctx *x, const struct group *g)
{
	if (x->lim->enumerate_all && g->unique != UNIQUE_ALWAYS)
		return true;
	return g->unique == UNIQUE_ONCE ||
	       (g->match_count && g->unique == UNIQUE_NONE &&
		(g->explode == EXPLODE_SEPARATE || g->keep.mode != KEEP_ALL));
}

/* The group @g with @n dice. */
static void group_n(struct ctx *x, struct dist *out, const struct group *g,
		    uint64_t n)
{
	struct scorer scr = { &g->success, &g->failure },
		      *sc = g->success.op != CMP_NONE ? &scr : NULL;
	uint64_t k = keep_count(&g->keep, n);
	struct dist law, t;

	if (!n || (g->keep.mode != KEEP_ALL && !k) ||
	    (g->unique == UNIQUE_ALWAYS && g->match_count)) {
		point(x, out, 0);	/* distinct values never match */
		return;
	}
	if (needs_enumeration(x, g)) {
		enumerate(x, out, g, n);
		return;
	}
	base_law(x, &law, g);
	apply_rerolls(&law, g);
	if (g->unique == UNIQUE_ALWAYS) {
		if (!uniform(&law))
			infeasible(x, "unique dice ('u') have an exact distribution here only when every value is equally likely");
		unique_dp(x, out, &law, sc, g->keep.mode, n,
			  g->keep.mode == KEEP_ALL ? n : k);
	}
	if (g->unique == UNIQUE_ALWAYS) {
		dist_free(&law);
		return;
	}
	if (g->explode == EXPLODE_SEPARATE) {
		if (g->keep.mode != KEEP_ALL) {
			struct domain dm = { .mode = g->keep.mode };
			struct psrc p;

			domain_add_dist(&dm, &law, 0);
			if (g->penetrate)
				domain_add_dist(&dm, &law, 1);
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, n, "dice with '!'");
			psrc_explode(x, &p, &law, g, &dm, (unsigned int)k, n);
			pool_keep(x, out, &p, 1, &dm, (unsigned int)k, sc);
			psrc_free(&p);
			free(dm.v);
			dist_free(&law);
			return;
		}
		chain(x, &t, &law, g, sc);
		dist_free(&law);
		power(x, out, &t, n);
		dist_free(&t);
		return;
	}
	if (g->explode == EXPLODE_COMPOUND) {
		chain(x, &t, &law, g, NULL);
		dist_free(&law);
		law = t;
	}
	if (g->match_count) {
		match_dp(x, out, &law, n, g->match_min);
	} else if (g->keep.mode != KEEP_ALL && k < n) {
		keep_dp(x, out, &law, sc, g->keep.mode, n, k);
	} else {
		push(x, &t, &law, sc, 0, NULL, false);
		trim(&t);
		power(x, out, &t, n);
		dist_free(&t);
	}
	dist_free(&law);
}

/* r = a * b / gcd(a, b) */
static void lcm(struct big *r, const struct big *a, const struct big *b)
{
	struct big g = { 0 }, q = { 0 };

	big_gcd(&g, a, b);
	big_divmod(&q, NULL, a, &g);
	big_mul(r, &q, b);
	big_free(&g);
	big_free(&q);
}

/* out = the mixture of @d[i] with weights @w->c[i] / @w->den. */
static void mix(struct ctx *x, struct dist *out, const struct dist *w,
		struct dist *d)
{
	struct big l = { 0 }, t = { 0 }, f = { 0 }, coef = { 0 };
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i, j;

	big_set_u64(&l, 1);
	for (i = 0; i < w->n; i++) {
		if (big_is_zero(&w->c[i]))
			continue;
		lcm(&t, &l, &d[i].den);
		big_swap(&t, &l);
		lo = d[i].lo < lo ? d[i].lo : lo;
		hi = hi_of(&d[i]) > hi ? hi_of(&d[i]) : hi;
	}
	init(x, out, lo, hi);
	for (i = 0; i < w->n; i++) {
		if (big_is_zero(&w->c[i]))
			continue;
		big_divmod(&f, NULL, &l, &d[i].den);
		big_mul(&coef, &f, &w->c[i]);
		for (j = 0; j < d[i].n; j++) {
			if (!big_is_zero(&d[i].c[j]))
				big_addmul(&out->c[d[i].lo - out->lo + (int64_t)j],
					   &d[i].c[j], &coef);
		}
		check(x);
	}
	big_mul(&out->den, &w->den, &l);
	big_free(&l);
	big_free(&t);
	big_free(&f);
	big_free(&coef);
	trim(out);
}

static void group_dist(struct ctx *x, struct dist *out, const struct group *g)
{
	struct dist cd, *d;
	size_t i;

	if (!g->count_node) {
		group_n(x, out, g, g->count);
		return;
	}
	node_dist(x, &cd, g->count_node);
	if (cd.lo < 0 || hi_of(&cd) > (__int128)g->count)
		infeasible(x, "the number of dice falls outside 0..%llu",
			   (unsigned long long)g->count);
	d = xcalloc(cd.n, sizeof(*d));
	for (i = 0; i < cd.n; i++) {
		if (!big_is_zero(&cd.c[i]))
			group_n(x, &d[i], g, (uint64_t)cd.lo + i);
	}
	mix(x, out, &cd, d);
	for (i = 0; i < cd.n; i++)
		dist_free(&d[i]);
	free(d);
	dist_free(&cd);
}

/* ---- grouped rolls ----------------------------------------------------------- */

static void brace_dist(struct ctx *x, struct dist *out, const struct node *n)
{
	const struct brace *b = n->brace;
	struct scorer scr = { &b->success, &b->failure },
		      *sc = b->success.op != CMP_NONE ? &scr : NULL;
	struct dist acc, t;
	unsigned int i;

	if (b->pooled) {
		uint64_t k = keep_count(&b->keep, b->ndice);

		if (b->keep.mode == KEEP_ALL || k >= b->ndice) {
			bool any_sep = false;

			for (i = 0; i < b->ngroups; i++)
				any_sep |= b->groups[i]->explode == EXPLODE_SEPARATE;
			if (b->keep.mode == KEEP_ALL || !any_sep) {
				point(x, &acc, sc ? 0 : b->constant);
				for (i = 0; i < b->ngroups; i++) {
					struct group tmp = *b->groups[i];

					if (sc) {
						tmp.success = b->success;
						tmp.failure = b->failure;
					}
					group_dist(x, &t, &tmp);
					conv_into(x, &acc, &t);
				}
				*out = acc;
				return;
			}
		}
		if (!k) {
			point(x, out, sc ? 0 : b->constant);
			return;
		}
		{
			struct domain dm = { .mode = b->keep.mode };
			struct psrc *p = xcalloc(b->ngroups, sizeof(*p));
			struct dist *laws = xcalloc(b->ngroups, sizeof(*laws));

			for (i = 0; i < b->ngroups; i++) {
				const struct group *g = b->groups[i];

				if (g->count_node || g->keep.mode != KEEP_ALL ||
				    g->unique != UNIQUE_NONE || g->match_count)
					infeasible(x, "keep/drop after {...} over dice groups with a computed count, keep/drop, 'u' or 'mt' has no exact method here");
				base_law(x, &laws[i], g);
				apply_rerolls(&laws[i], g);
				if (g->explode == EXPLODE_COMPOUND) {
					chain(x, &t, &laws[i], g, NULL);
					dist_free(&laws[i]);
					laws[i] = t;
				}
				domain_add_dist(&dm, &laws[i], 0);
				if (g->explode == EXPLODE_SEPARATE && g->penetrate)
					domain_add_dist(&dm, &laws[i], 1);
			}
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, b->ndice, "dice");
			for (i = 0; i < b->ngroups; i++) {
				const struct group *g = b->groups[i];

				if (g->explode == EXPLODE_SEPARATE)
					psrc_explode(x, &p[i], &laws[i], g, &dm,
						     (unsigned int)k, g->count);
				else
					psrc_law(&p[i], &laws[i], &dm, g->count);
			}
			pool_keep(x, out, p, b->ngroups, &dm, (unsigned int)k, sc);
			for (i = 0; i < b->ngroups; i++) {
				psrc_free(&p[i]);
				dist_free(&laws[i]);
			}
			free(p);
			free(laws);
			free(dm.v);
			if (!sc && b->constant) {
				if ((__int128)out->lo + b->constant <= -VALUE_LIMIT ||
				    hi_of(out) + b->constant >= VALUE_LIMIT)
					infeasible(x, "its values would not fit in 62 bits");
				out->lo += b->constant;
			}
		}
		return;
	}

	/* elements: the totals of the expressions */
	{
		uint64_t k = keep_count(&b->keep, n->nkids);
		struct dist *el = xcalloc(n->nkids, sizeof(*el));

		for (i = 0; i < n->nkids; i++)
			node_dist(x, &el[i], n->kids[i]);
		if (b->keep.mode != KEEP_ALL && k < n->nkids) {
			struct domain dm = { .mode = b->keep.mode };
			struct psrc *p = xcalloc(n->nkids, sizeof(*p));

			for (i = 0; i < n->nkids; i++)
				domain_add_dist(&dm, &el[i], 0);
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, n->nkids, "elements");
			for (i = 0; i < n->nkids; i++)
				psrc_law(&p[i], &el[i], &dm, 1);
			pool_keep(x, out, p, n->nkids, &dm, (unsigned int)k, sc);
			for (i = 0; i < n->nkids; i++)
				psrc_free(&p[i]);
			free(p);
		} else {
			point(x, &acc, 0);
			for (i = 0; i < n->nkids; i++) {
				push(x, &t, &el[i], sc, 0, NULL, false);
				trim(&t);
				conv_into(x, &acc, &t);
			}
			*out = acc;
		}
		for (i = 0; i < n->nkids; i++)
			dist_free(&el[i]);
		free(el);
	}
}

/* ---- expressions ------------------------------------------------------------ */

static void node_dist(struct ctx *x, struct dist *out, const struct node *n)
{
	struct dist a, b;
	size_t save = x->at;
	unsigned int i;

	x->at = n->start;
	switch (n->type) {
	case NODE_CONST:
		point(x, out, n->value);
		break;
	case NODE_GROUP:
		group_dist(x, out, n->group);
		break;
	case NODE_NEG:
		node_dist(x, out, n->kids[0]);
		negate(out);
		break;
	case NODE_SUM:
		node_dist(x, out, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			node_dist(x, &b, n->kids[i]);
			if (n->ops[i] == '-')
				negate(&b);
			x->at = n->start;
			conv_into(x, out, &b);
		}
		break;
	case NODE_PRODUCT:
		node_dist(x, &a, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			node_dist(x, &b, n->kids[i]);
			x->at = n->start;
			pairwise(x, out, &a, &b,
				 n->ops[i] == '%' ? OP_MOD : OP_MUL, FUNC_FLOOR);
			dist_free(&a);
			dist_free(&b);
			a = *out;
		}
		*out = a;
		break;
	case NODE_FUNC:
		node_dist(x, out, n->kids[0]);
		if (n->nkids == 2) {
			a = *out;
			node_dist(x, &b, n->kids[1]);
			x->at = n->start;
			pairwise(x, out, &a, &b, OP_DIV, n->func);
			dist_free(&a);
			dist_free(&b);
		} else if (n->func == FUNC_ABS) {
			absolute(x, out);
		}
		break;
	case NODE_BRACE:
		brace_dist(x, out, n);
		break;
	}
	x->at = save;
}

/* ---- the estimate --------------------------------------------------------- */

/*
 * The shape of a distribution: its range of values, how many of them have
 * a non-zero count, and the bits of its denominator (which bound those of
 * its counts).  Each step below adds what the matching step above would
 * spend in limb products (big_addmul of m and n limbs costs m * n), from
 * shapes alone, and refuses at once what the limits forbid.
 */
struct shape {
	double lo, hi, nz, bits;
};

static double limbs(double bits)
{
	return floor(bits / 64) + 1;
}

static void spend(struct ctx *x, double w)
{
	x->est += w;
	if (x->est > (double)x->lim->max_work)
		infeasible(x, "it would need about %.2g limb products, more than the budget of %.2g",
			   x->est, (double)x->lim->max_work);
}

static void est_range(struct ctx *x, struct shape *s)
{
	if (s->lo <= -(double)VALUE_LIMIT || s->hi >= (double)VALUE_LIMIT)
		infeasible(x, "its values would not fit in 62 bits");
	if (s->hi - s->lo + 1 > (double)x->lim->max_values)
		infeasible(x, "it would span more than %zu values",
			   x->lim->max_values);
	if (s->nz > s->hi - s->lo + 1)
		s->nz = s->hi - s->lo + 1;
}

static void est_conv(struct ctx *x, struct shape *r, const struct shape *a,
		     const struct shape *b)
{
	struct shape s = { a->lo + b->lo, a->hi + b->hi, a->nz * b->nz,
			   a->bits + b->bits };

	est_range(x, &s);
	spend(x, a->nz * b->nz * limbs(a->bits) * limbs(b->bits));
	*r = s;
}

static void est_pair(struct ctx *x, struct shape *r, const struct shape *a,
		     const struct shape *b, int op)
{
	double c[4] = { a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi };
	double m = fmax(fabs(b->lo), fabs(b->hi));
	struct shape s = { c[0], c[0], a->nz * b->nz, a->bits + b->bits };
	int i;

	if (op == '*') {
		for (i = 1; i < 4; i++) {
			s.lo = fmin(s.lo, c[i]);
			s.hi = fmax(s.hi, c[i]);
		}
	} else if (op == '%') {
		s.lo = a->lo < 0 ? -(m - 1) : 0;
		s.hi = a->hi > 0 ? m - 1 : 0;
	} else {
		s.hi = fmax(fabs(a->lo), fabs(a->hi));
		s.lo = -s.hi;
	}
	if (s.hi < s.lo)
		s.hi = s.lo;
	est_range(x, &s);
	spend(x, a->nz * b->nz * (limbs(a->bits) * limbs(b->bits) + 1));
	*r = s;
}

/* log2 C(n, k) */
static double log2_binom(double n, double k)
{
	return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)) / log(2);
}

/*
 * The sides of a die as the enumeration sees them: @sides that can show,
 * @rr of them rerolled once ('ro'), @boom of them explode.
 */
struct sides {
	double sides, rr, boom;
};

/* What the law of one face of @g looks like, after rerolls. */
static void est_law(struct ctx *x, const struct group *g, struct shape *law,
		    struct sides *sd)
{
	const struct die *d = &g->die;
	double lo = INFINITY, hi = -INFINITY;
	struct sides t = { 0, 0, 0 };
	uint64_t i;

	if (d->sides > x->lim->max_values)
		infeasible(x, "the die has %llu sides, more than %zu",
			   (unsigned long long)d->sides, x->lim->max_values);
	for (i = 0; i < d->sides; i++) {
		val_t v = group_face(g, i);

		lo = fmin(lo, (double)v);
		hi = fmax(hi, (double)v);
		if (!die_side_used(d, i) ||
		    (g->reroll == REROLL_ALWAYS && cmp_any(g->rr, g->nrr, v)))
			continue;
		t.sides++;
		t.rr += g->reroll == REROLL_ONCE && cmp_any(g->rr, g->nrr, v);
		t.boom += g->explode != EXPLODE_NONE && cmp_match(&g->ex, v);
	}
	law->lo = lo;
	law->hi = hi;
	law->nz = fmin((double)d->sides, hi - lo + 1);
	law->bits = log2((double)d->weight_sum) + 1;
	spend(x, (double)d->sides);
	if (sd)
		*sd = t;
	if (g->reroll == REROLL_ONCE) {
		law->bits *= 2;
		spend(x, law->nz * limbs(law->bits) * 3);
	}
}

/* The chain of one exploding die: its sum, or with @scored its score. */
static void est_chain(struct ctx *x, const struct group *g,
		      const struct shape *law, const struct sides *sd,
		      bool scored, struct shape *t)
{
	unsigned int k, lim = cap_of(x, g);

	*t = *law;
	if (scored) {
		t->lo = -1;
		t->hi = 1;
		t->nz = 3;
	}
	for (k = 1; k <= lim; k++) {
		spend(x, fmax(sd->boom, 1) * t->nz * limbs(law->bits) * limbs(t->bits) +
			 law->nz * limbs(t->bits) + 4 * t->nz);
		t->bits += law->bits;
		t->hi += scored ? 1 : fmax(law->hi, 0);
		t->lo += scored ? -1 : fmin(law->lo, 0) - g->penetrate;
		t->nz = fmin(t->nz + law->nz, t->hi - t->lo + 1);
		est_range(x, t);
	}
}

/* Sum of n copies of @one by n - 1 convolutions, in closed form. */
static void est_power(struct ctx *x, const struct shape *one, double n,
		      struct shape *out)
{
	double s = one->hi - one->lo, b = one->bits / 64, m = n - 1;
	double s1 = m * n / 2, s2 = m * n * (2 * n - 1) / 6;

	out->lo = one->lo * n;
	out->hi = one->hi * n;
	out->nz = s * n + 1;
	out->bits = one->bits * n;
	if (n < 1) {
		out->lo = out->hi = 0;
		out->nz = 1;
		out->bits = 0;
	}
	est_range(x, out);
	if (n > 1)
		spend(x, one->nz * limbs(one->bits) *
			 (s * b * s2 + (s + b + 1) * s1 + m * 2));
}

static void est_pool(struct ctx *x, double m, double k, double elements,
		     double per_element, double bits, const char *what)
{
	double states = exp2(log2_binom(m + k, k));

	if (states > POOL_STATES || k > 32 || k * log2(m + 1) >= 63)
		infeasible(x, "keeping %.0f %s of up to %.0f values needs too many states",
			   k, what, m);
	if (states * states * elements > 4e9)
		infeasible(x, "keeping %.0f of %.0f %s needs too many steps",
			   k, elements, what);
	spend(x, per_element + elements * states * fmin(states, m * k + 1) *
		 limbs(bits) * limbs(bits));
}

static void est_node(struct ctx *x, struct shape *s, const struct node *n);

/* log2 of the outcomes enumerate() would go through for @n dice of @g. */
static double est_leaves(struct ctx *x, const struct group *g, double n,
			 const struct sides *sd)
{
	double face = sd->sides - sd->rr + sd->rr * sd->sides, die = face, total = 0;
	unsigned int k, lim = g->explode != EXPLODE_NONE ? cap_of(x, g) : 0;
	double i;

	for (k = 0; k < lim && die < 1e300; k++)
		die = face + sd->boom * die;
	for (i = 0; i < n && total < 1e4; i++) {
		double d = die;

		if (g->unique == UNIQUE_ONCE)
			d = face + fmin(i, sd->sides) * face;
		total += log2(fmax(d, 1));
	}
	return total;
}

/* @g with @n dice, from the law of its faces; @chain: that of one die. */
static void est_group_n(struct ctx *x, const struct group *g, double n,
			const struct shape *law, const struct sides *sd,
			const struct shape *ch, struct shape *out)
{
	double k = (double)keep_count(&g->keep, (uint64_t)n);
	bool scored = g->success.op != CMP_NONE;
	struct shape one = *law;

	if (n < 1 || (g->keep.mode != KEEP_ALL && k < 1)) {
		*out = (struct shape){ 0, 0, 1, 0 };
		return;
	}
	if (needs_enumeration(x, g)) {
		unsigned int lim = g->explode != EXPLODE_NONE ? cap_of(x, g) : 0;
		double faces = n * (1 + (g->reroll == REROLL_ONCE)) *
			       (1 + (g->unique == UNIQUE_ONCE)) * (1 + lim);
		double leaves = est_leaves(x, g, n, sd);

		if (leaves > log2((double)max_leaves(x)))
			infeasible(x, "it would enumerate more than %llu outcomes",
				   (unsigned long long)max_leaves(x));
		if (g->match_count)
			*out = (struct shape){ 0, n * (lim + 1) / g->match_min + 1, 0, 0 };
		else if (scored)
			*out = (struct shape){ -n, n, 0, 0 };
		else
			*out = (struct shape){ fmin(n * law->lo, 0), fmax(n * law->hi, 0), 0, 0 };
		out->nz = out->hi - out->lo + 1;
		out->bits = faces * law->bits;
		est_range(x, out);
		spend(x, exp2(leaves) * faces * 4);
		return;
	}
	if (g->unique == UNIQUE_ALWAYS) {
		double kk = g->keep.mode == KEEP_ALL ? n : k;
		double width = kk * (scored ? 2 : law->hi - law->lo) + 1;
		double bits = log2_binom(law->nz, n) + 1;

		if (width * (n + 1) > (double)x->lim->max_values * 4)
			infeasible(x, "%.0f unique dice need more than %zu states",
				   n, x->lim->max_values * 4);
		spend(x, law->nz * n * width * limbs(bits));
		*out = (struct shape){ scored ? -kk : kk * law->lo,
				       scored ? kk : kk * law->hi, width, bits };
		est_range(x, out);
		return;
	}
	if (g->explode == EXPLODE_SEPARATE) {
		if (g->keep.mode != KEEP_ALL) {
			double m = law->nz * (1 + g->penetrate);
			double lim = cap_of(x, g);

			est_pool(x, m, k, n, (lim + 1) * exp2(log2_binom(m + k, k)) *
				 law->nz * limbs(law->bits * (lim + 1)),
				 law->bits * (lim + 1) * n, "dice with '!'");
			*out = (struct shape){ scored ? -k : fmin(k * (law->lo - 1), 0),
					       scored ? k : fmax(k * law->hi, 0),
					       m * k, law->bits * (lim + 1) * n };
			est_range(x, out);
			return;
		}
		est_power(x, ch, n, out);
		return;
	}
	if (g->explode == EXPLODE_COMPOUND)
		one = *ch;
	if (g->match_count) {
		double sets = n / g->match_min + 1, bits = one.bits * n;

		spend(x, one.nz * n * n * sets * limbs(bits) * limbs(one.bits));
		*out = (struct shape){ 0, sets - 1, sets, bits };
		return;
	}
	if (scored) {
		one.lo = -1;
		one.hi = 1;
		one.nz = 3;
	}
	if (g->keep.mode != KEEP_ALL && k < n) {
		double width = k * (one.hi - one.lo) + 1, bits = one.bits * n;

		if (width * k > (double)x->lim->max_values * 4)
			infeasible(x, "keeping %.0f of %.0f dice needs more than %zu states",
				   k, n, x->lim->max_values * 4);
		spend(x, one.nz * (n * limbs(bits) * limbs(one.bits) +
				   k * n * width * limbs(bits) * limbs(bits) / 2));
		*out = (struct shape){ fmin(k * one.lo, 0), fmax(k * one.hi, 0),
				       width, bits };
		est_range(x, out);
		return;
	}
	est_power(x, &one, n, out);
}

static void est_group(struct ctx *x, const struct group *g, struct shape *out)
{
	struct shape law, ch, cs, t;
	struct sides sd;
	double n, lo, hi;

	est_law(x, g, &law, &sd);
	ch = law;
	if (g->explode != EXPLODE_NONE && !needs_enumeration(x, g) &&
	    !(g->explode == EXPLODE_SEPARATE && g->keep.mode != KEEP_ALL))
		est_chain(x, g, &law, &sd, g->explode == EXPLODE_SEPARATE &&
			  g->success.op != CMP_NONE, &ch);
	if (!g->count_node) {
		est_group_n(x, g, (double)g->count, &law, &sd, &ch, out);
		return;
	}
	est_node(x, &cs, g->count_node);
	lo = fmax(cs.lo, 0);
	hi = fmin(cs.hi, (double)g->count);
	*out = (struct shape){ 0, 0, 1, cs.bits };
	for (n = lo; n <= hi; n++) {
		est_group_n(x, g, n, &law, &sd, &ch, &t);
		out->lo = fmin(out->lo, t.lo);
		out->hi = fmax(out->hi, t.hi);
		out->bits = fmax(out->bits, t.bits + cs.bits);
		spend(x, t.nz * limbs(t.bits) * limbs(cs.bits) * 2);
	}
	out->nz = out->hi - out->lo + 1;
	est_range(x, out);
}

static void est_brace(struct ctx *x, const struct node *n, struct shape *out)
{
	const struct brace *b = n->brace;
	struct shape t, *el;
	unsigned int i;
	double k, m = 0, bits = 0;

	if (b->pooled) {
		bool any_sep = false;

		for (i = 0; i < b->ngroups; i++)
			any_sep |= b->groups[i]->explode == EXPLODE_SEPARATE;
		k = (double)keep_count(&b->keep, b->ndice);
		if (b->keep.mode == KEEP_ALL || (k >= (double)b->ndice && !any_sep)) {
			*out = (struct shape){ (double)b->constant, (double)b->constant, 1, 0 };
			for (i = 0; i < b->ngroups; i++) {
				struct group tmp = *b->groups[i];

				if (b->success.op != CMP_NONE) {
					tmp.success = b->success;
					tmp.failure = b->failure;
				}
				est_group(x, &tmp, &t);
				est_conv(x, out, out, &t);
			}
			return;
		}
		for (i = 0; i < b->ngroups; i++) {
			struct shape law, ch;
			struct sides sd;
			const struct group *g = b->groups[i];

			est_law(x, g, &law, &sd);
			if (g->explode == EXPLODE_COMPOUND) {
				est_chain(x, g, &law, &sd, false, &ch);
				law = ch;
			}
			m += law.nz * (1 + (g->explode == EXPLODE_SEPARATE && g->penetrate));
			bits += law.bits * (g->explode == EXPLODE_SEPARATE ?
					    cap_of(x, g) + 1 : 1) * (double)g->count;
		}
		est_pool(x, m, k, (double)b->ndice, 0, bits, "dice");
		*out = (struct shape){ -k, k, 2 * k + 1, bits };
		if (b->success.op == CMP_NONE) {
			out->lo = (double)n->lo;
			out->hi = (double)n->hi;
			out->nz = fmin(m * k, out->hi - out->lo + 1);
		}
		out->hi = fmin(out->hi, out->lo + (double)x->lim->max_values - 1);
		est_range(x, out);
		return;
	}
	el = xcalloc(n->nkids, sizeof(*el));
	for (i = 0; i < n->nkids; i++) {
		est_node(x, &el[i], n->kids[i]);
		m += el[i].nz;
		bits += el[i].bits;
	}
	k = (double)keep_count(&b->keep, n->nkids);
	if (b->keep.mode != KEEP_ALL && k < n->nkids) {
		est_pool(x, m, k, n->nkids, 0, bits, "elements");
		*out = (struct shape){ (double)n->lo, (double)n->hi, m * k, bits };
		out->hi = fmin(out->hi, out->lo + (double)x->lim->max_values - 1);
		est_range(x, out);
	} else {
		*out = (struct shape){ 0, 0, 1, 0 };
		for (i = 0; i < n->nkids; i++) {
			if (b->success.op != CMP_NONE)
				el[i] = (struct shape){ -1, 1, 3, el[i].bits };
			est_conv(x, out, out, &el[i]);
		}
	}
	free(el);
}

static void est_node(struct ctx *x, struct shape *s, const struct node *n)
{
	struct shape a, b;
	size_t save = x->at;
	unsigned int i;
	double t;

	x->at = n->start;
	switch (n->type) {
	case NODE_CONST:
		*s = (struct shape){ (double)n->value, (double)n->value, 1, 0 };
		est_range(x, s);
		break;
	case NODE_GROUP:
		est_group(x, n->group, s);
		break;
	case NODE_NEG:
		est_node(x, s, n->kids[0]);
		t = s->lo;
		s->lo = -s->hi;
		s->hi = -t;
		break;
	case NODE_SUM:
		est_node(x, s, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			est_node(x, &b, n->kids[i]);
			if (n->ops[i] == '-') {
				t = b.lo;
				b.lo = -b.hi;
				b.hi = -t;
			}
			x->at = n->start;
			est_conv(x, s, s, &b);
		}
		break;
	case NODE_PRODUCT:
		est_node(x, s, n->kids[0]);
		for (i = 1; i < n->nkids; i++) {
			est_node(x, &b, n->kids[i]);
			x->at = n->start;
			a = *s;
			est_pair(x, s, &a, &b, n->ops[i]);
		}
		break;
	case NODE_FUNC:
		est_node(x, s, n->kids[0]);
		if (n->nkids == 2) {
			a = *s;
			est_node(x, &b, n->kids[1]);
			x->at = n->start;
			est_pair(x, s, &a, &b, '/');
		} else if (n->func == FUNC_ABS) {
			s->hi = fmax(fabs(s->lo), fabs(s->hi));
			s->lo = 0;
		}
		break;
	case NODE_BRACE:
		est_brace(x, n, s);
		break;
	}
	x->at = save;
}

/* ---- entry points ------------------------------------------------------ */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static uint64_t mod_u64(const struct big *a, uint64_t m)
{
	struct big t = { 0 };
	uint64_t r;

	big_copy(&t, a);
	r = big_divmod_u64(&t, m);
	big_free(&t);
	return r;
}

/* Divide every count and the denominator by their gcd. */
static void reduce(struct dist *d)
{
	struct big g = { 0 }, t = { 0 };
	uint64_t small = 0;
	size_t i, best = 0;

	/* start from the smallest count: the gcd is at most that */
	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]) &&
		    (big_is_zero(&d->c[best]) || big_cmp(&d->c[i], &d->c[best]) < 0))
			best = i;
	}
	big_gcd(&g, &d->den, &d->c[best]);
	for (i = 0; i < d->n; i++) {
		if (big_get_u64(&g, &small)) {
			if (small == 1)
				break;
			if (!big_is_zero(&d->c[i]))
				big_set_u64(&g, gcd_u64(small, mod_u64(&d->c[i], small)));
		} else {
			big_gcd(&t, &g, &d->c[i]);
			big_swap(&t, &g);
		}
	}
	if (big_get_u64(&g, &small)) {
		if (small > 1) {
			for (i = 0; i < d->n; i++)
				big_divmod_u64(&d->c[i], small);
			big_divmod_u64(&d->den, small);
		}
	} else {
		for (i = 0; i < d->n; i++) {
			big_divmod(&t, NULL, &d->c[i], &g);
			big_swap(&t, &d->c[i]);
		}
		big_divmod(&t, NULL, &d->den, &g);
		big_swap(&t, &d->den);
	}
	big_free(&g);
	big_free(&t);
}

static unsigned int max_cap(const struct expr *e)
{
	unsigned int i, cap = 0;

	for (i = 0; i < e->ngroups; i++) {
		if (e->groups[i]->explode != EXPLODE_NONE &&
		    e->groups[i]->explode_limit > cap)
			cap = e->groups[i]->explode_limit;
	}
	return cap;
}

/* Does the estimate pass with every cap at @cap (0: their own)? */
static int estimate(const struct expr *e, const struct dist_limits *lim,
		    struct dist_report *rep, unsigned int cap)
{
	struct ctx x = { .lim = lim, .rep = rep, .cap = cap };
	struct shape s;

	if (setjmp(x.jb))
		return x.err;
	est_node(&x, &s, e->root);
	rep->estimate = x.est;
	return 0;
}

int dist_expr_report(const struct expr *e, const struct dist_limits *lim,
		     struct dist *out, struct dist_report *rep)
{
	struct ctx x = { .lim = lim, .rep = rep, .work0 = big_work };
	unsigned int cap = max_cap(e);
	int err;

	memset(out, 0, sizeof(*out));
	memset(rep, 0, sizeof(*rep));
	rep->explode_limit = cap;
	err = estimate(e, lim, rep, 0);
	if (err) {
		/* the largest cap that fits, if a smaller one would */
		struct dist_report tmp;
		unsigned int lo = 1, hi = cap;

		while (cap > 1 && lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (!estimate(e, lim, &tmp, mid))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (cap > 1 && lo > 1)
			rep->explode_fit = lo - 1;
		rep->explode_limit = cap;
		return err;
	}
	if (setjmp(x.jb)) {
		rep->work = big_work - x.work0;
		return x.err;
	}
	node_dist(&x, out, e->root);
	trim(out);
	reduce(out);
	rep->cap_prob = x.cap_prob;
	rep->work = big_work - x.work0;
	return 0;
}

int dist_expr(const struct expr *e, const struct dist_limits *lim,
	      struct dist *out, char *why, size_t whylen)
{
	struct dist_report rep;
	int err = dist_expr_report(e, lim, out, &rep);

	if (err && why && whylen)
		snprintf(why, whylen, "%s", rep.why);
	return err;
}

void dist_mean(const struct dist *d, struct big *num, struct big *den,
	       int *neg)
{
	struct big pos = { 0 }, minus = { 0 }, g = { 0 };
	size_t i;

	for (i = 0; i < d->n; i++) {
		int64_t v = d->lo + (int64_t)i;

		if (v > 0)
			big_addmul_u64(&pos, &d->c[i], (uint64_t)v);
		else if (v < 0)
			big_addmul_u64(&minus, &d->c[i], (uint64_t)0 - (uint64_t)v);
	}
	*neg = big_cmp(&pos, &minus) < 0;
	if (*neg) {
		big_sub(&minus, &pos);
		big_swap(&minus, &pos);
	} else {
		big_sub(&pos, &minus);
	}
	big_gcd(&g, &pos, &d->den);
	big_divmod(num, NULL, &pos, &g);
	big_divmod(den, NULL, &d->den, &g);
	big_free(&pos);
	big_free(&minus);
	big_free(&g);
}

/*
 * Var X = E[(X - lo)^2] - E[X - lo]^2 = (S2 * den - S1^2) / den^2 with
 * S1 = sum c (v - lo), S2 = sum c (v - lo)^2: all non-negative.
 */
void dist_variance(const struct dist *d, struct big *num, struct big *den)
{
	struct big s1 = { 0 }, s2 = { 0 }, a = { 0 }, b = { 0 }, g = { 0 };
	size_t i;

	for (i = 1; i < d->n; i++) {
		big_addmul_u64(&s1, &d->c[i], i);
		big_addmul_u64(&s2, &d->c[i], (uint64_t)i * i);
	}
	big_mul(&a, &s2, &d->den);
	big_mul(&b, &s1, &s1);
	big_sub(&a, &b);
	big_mul(&b, &d->den, &d->den);
	big_gcd(&g, &a, &b);
	big_divmod(num, NULL, &a, &g);
	big_divmod(den, NULL, &b, &g);
	big_free(&s1);
	big_free(&s2);
	big_free(&a);
	big_free(&b);
	big_free(&g);
}

int64_t dist_percentile(const struct dist *d, unsigned int pct)
{
	struct big acc = { 0 }, lhs = { 0 }, rhs = { 0 };
	size_t i;
	int64_t v = d->lo + (int64_t)d->n - 1;

	big_copy(&rhs, &d->den);
	big_mul_u64(&rhs, pct);
	for (i = 0; i < d->n; i++) {
		big_add(&acc, &d->c[i]);
		big_copy(&lhs, &acc);
		big_mul_u64(&lhs, 100);
		if (big_cmp(&lhs, &rhs) >= 0) {
			v = d->lo + (int64_t)i;
			break;
		}
	}
	big_free(&acc);
	big_free(&lhs);
	big_free(&rhs);
	return v;
}

void dist_cumulative(const struct dist *d, struct big *at_most,
		     struct big *at_least)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		memset(&at_most[i], 0, sizeof(at_most[i]));
		memset(&at_least[i], 0, sizeof(at_least[i]));
	}
	for (i = 0; i < d->n; i++) {
		if (i)
			big_copy(&at_most[i], &at_most[i - 1]);
		big_add(&at_most[i], &d->c[i]);
	}
	for (i = d->n; i--;) {
		if (i + 1 < d->n)
			big_copy(&at_least[i], &at_least[i + 1]);
		big_add(&at_least[i], &d->c[i]);
	}
}
