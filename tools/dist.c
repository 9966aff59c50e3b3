// SPDX-License-Identifier: GPL-2.0
/*
 * dist.c - exact distributions of dice expressions
 *
 * Every step is exact integer arithmetic on counts over a common
 * denominator (big.c), and mirrors roll.c step by step:
 *   - the law of one face: a fair die, dF, d%, or custom faces and weights;
 *   - rerolls: 'r' removes the matching faces (the die is rolled until it
 *     shows another, so the others keep their relative weights); 'ro'
 *     gives c'(v) = c(v) * den * [v not rerolled] + W_R * c(v) over den^2;
 *   - explosions, bounded by explode_limit, by recursion from the last
 *     possible roll back to the first (T_k = rest(law) + explode(law) * T_k+1);
 *   - keep/drop by dynamic programming over the faces in the order they
 *     are kept (best first): state (dice placed, score of the kept ones),
 *     placing c dice on a face at a time with weight C(n, c) w^c; once k
 *     dice are kept the rest go to the later faces with weight W_rest^n;
 *   - sums of dice by convolution, products by pairing values.
 * Two limits keep this bounded: the number of values of any distribution
 * and the number of limb products (big_work).  Past either, the answer is
 * "not feasible", never an approximation.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "dist.h"

#define VALUE_LIMIT	((__int128)1 << 62)	/* |value| must stay below */

struct ctx {
	const struct dist_limits *lim;
	jmp_buf jb;
	char *why;
	size_t whylen;
	int err;
	uint64_t work0;
};

/*
 * Failing unwinds with longjmp() and leaks what was in flight: the caller
 * reports the error and the program ends.
 */
static void infeasible(struct ctx *x, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void infeasible(struct ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->why, x->whylen, fmt, ap);
	va_end(ap);
	x->err = -E2BIG;
	longjmp(x->jb, 1);
}

static void check(struct ctx *x)
{
	if (dice_interrupted) {
		x->err = -EINTR;
		longjmp(x->jb, 1);
	}
	if (big_work - x->work0 > x->lim->max_work)
		infeasible(x, "it would take more than %llu limb products",
			   (unsigned long long)x->lim->max_work);
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

/* r = the distribution of A * B (independent). */
static void product(struct ctx *x, struct dist *r, const struct dist *a,
		    const struct dist *b)
{
	size_t na, nb, i, j, *ia = nonzero(a, &na), *ib = nonzero(b, &nb);
	__int128 ends[4], lo, hi;
	int k;

	ends[0] = (__int128)a->lo * b->lo;
	ends[1] = (__int128)a->lo * hi_of(b);
	ends[2] = hi_of(a) * b->lo;
	ends[3] = hi_of(a) * hi_of(b);
	lo = hi = ends[0];
	for (k = 1; k < 4; k++) {
		lo = ends[k] < lo ? ends[k] : lo;
		hi = ends[k] > hi ? ends[k] : hi;
	}
	init(x, r, lo, hi);
	for (i = 0; i < na; i++) {
		__int128 va = (__int128)a->lo + ia[i];

		for (j = 0; j < nb; j++) {
			__int128 v = va * ((__int128)b->lo + ib[j]);

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

static val_t score(const struct group *g, val_t v)
{
	if (!g || g->success.op == CMP_NONE)
		return v;
	if (cmp_match(&g->success, v))
		return 1;
	if (cmp_match(&g->failure, v))
		return -1;
	return 0;
}

/*
 * r = the law of score(V) for V drawn from @law, restricted to the values
 * for which @keep(v) holds (the others count zero; the denominator stays).
 */
static void push(struct ctx *x, struct dist *r, const struct dist *law,
		 const struct group *g, bool use_score, const struct cmp *only,
		 bool inside)
{
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i;

	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = use_score ? score(g, v) : v;

		if (lo > s)
			lo = s;
		if (hi < s)
			hi = s;
	}
	init(x, r, lo, hi);
	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = use_score ? score(g, v) : v;

		if (only && cmp_match(only, v) != inside)
			continue;
		big_add(&r->c[s - r->lo], &law->c[i]);
	}
	big_copy(&r->den, &law->den);
}

static void base_law(struct ctx *x, struct dist *d, const struct die *die)
{
	__int128 lo, hi;
	uint64_t i;

	if (die->sides > x->lim->max_values)
		infeasible(x, "the die has %llu sides, more than %zu",
			   (unsigned long long)die->sides, x->lim->max_values);
	lo = die_min(die);
	hi = die_max(die);
	if (die->type == DIE_CUSTOM) {	/* zero-weight faces too */
		for (i = 0; i < die->sides; i++) {
			lo = die_face(die, i) < lo ? die_face(die, i) : lo;
			hi = die_face(die, i) > hi ? die_face(die, i) : hi;
		}
	}
	init(x, d, lo, hi);
	for (i = 0; i < die->sides; i++) {
		struct big w = { 0 };

		big_set_u64(&w, die->weights ? die->weights[i] : 1);
		big_add(&d->c[die_face(die, i) - d->lo], &w);
		big_free(&w);
	}
	big_set_u64(&d->den, die->weight_sum);
	trim(d);
}

static bool rerolled(const struct group *g, val_t v)
{
	unsigned int i;

	for (i = 0; i < g->nrr; i++) {
		if (cmp_match(&g->rr[i], v))
			return true;
	}
	return false;
}

static void apply_rerolls(struct dist *law, const struct group *g)
{
	struct big wr = { 0 }, t = { 0 };
	size_t i;

	if (g->reroll == REROLL_NONE)
		return;
	for (i = 0; i < law->n; i++) {
		if (rerolled(g, law->lo + (int64_t)i))
			big_add(&wr, &law->c[i]);
	}
	if (g->reroll == REROLL_ALWAYS) {
		for (i = 0; i < law->n; i++) {
			if (rerolled(g, law->lo + (int64_t)i))
				law->c[i].n = 0;
		}
		big_sub(&law->den, &wr);
	} else {
		for (i = 0; i < law->n; i++) {
			t.n = 0;
			if (!rerolled(g, law->lo + (int64_t)i))
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

/*
 * The sum over one die's chain of faces (itself and its explosions) of
 * score(face) (use_score) or face.  T_limit = law; T_k = rest + boom * T_k+1
 * with "rest" the faces that stop and "boom" those that explode.
 */
static void chain(struct ctx *x, struct dist *out, const struct dist *law,
		  const struct group *g, bool use_score)
{
	struct dist rest, boom, t, next;
	unsigned int k;
	size_t i;

	push(x, &rest, law, g, use_score, &g->ex, false);
	push(x, &boom, law, g, use_score, &g->ex, true);
	push(x, &t, law, g, use_score, NULL, false);
	if (empty(&boom)) {	/* the exploding faces are all rerolled */
		dist_free(&rest);
		dist_free(&boom);
		*out = t;
		return;
	}
	trim(&boom);
	for (k = 0; k < g->explode_limit; k++) {
		conv(x, &next, &boom, &t);	/* den: law.den * t.den */
		widen(x, &next, rest.lo, hi_of(&rest));
		for (i = 0; i < rest.n; i++) {
			if (!big_is_zero(&rest.c[i]))
				big_addmul(&next.c[rest.lo - next.lo + (int64_t)i],
					   &rest.c[i], &t.den);
		}
		trim(&next);
		dist_free(&t);
		t = next;
		check(x);
	}
	dist_free(&rest);
	dist_free(&boom);
	*out = t;
}

/* The sum of @n independent copies of @one. */
static void power(struct ctx *x, struct dist *out, const struct dist *one,
		  uint64_t n)
{
	struct dist acc, next;
	uint64_t i;

	push(x, &acc, one, NULL, false, NULL, false);
	for (i = 1; i < n; i++) {
		conv(x, &next, &acc, one);
		dist_free(&acc);
		acc = next;
	}
	*out = acc;
}

/* ---- keep/drop ------------------------------------------------------------ */

/*
 * Score of the k best of n dice drawn from @law ("best" = highest for
 * KEEP_HIGH, lowest for KEEP_LOW), by dynamic programming over the faces
 * in that order; see the header comment.
 */
static void keep_dp(struct ctx *x, struct dist *out, const struct dist *law,
		    const struct group *g)
{
	uint64_t n = g->count, k = g->nkeep, i, c;
	size_t nf, *faces = nonzero(law, &nf), f, s, width;
	__int128 smin = VALUE_LIMIT, smax = -VALUE_LIMIT, base, top;
	struct big *dp, *res, *wpow, *rpow, wrest = { 0 }, bin = { 0 },
		   coef = { 0 }, coef2 = { 0 };
	bool *live;

	if (g->keep == KEEP_HIGH) {	/* best first */
		for (f = 0; f < nf / 2; f++) {
			size_t t = faces[f];

			faces[f] = faces[nf - 1 - f];
			faces[nf - 1 - f] = t;
		}
	}
	for (f = 0; f < nf; f++) {
		val_t sc = score(g, law->lo + (int64_t)faces[f]);

		smin = sc < smin ? sc : smin;
		smax = sc > smax ? sc : smax;
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
		__int128 sc = score(g, law->lo + (int64_t)faces[f]);

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
				__int128 shift = (__int128)kept * sc;
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

/* ---- keep/drop with explosions into separate dice ---------------------- */

/*
 * With '!', a die adds a variable number of dice to the pool, so keep_dp()
 * does not apply.  Instead: the k best dice of the pool are the k best of
 * the k best of each die's chain, so the state is the multiset of the k
 * best faces seen so far.  First a chain (one die and its explosions) is
 * run to the end to get the law of its k best faces, then the dice are
 * added one at a time.  A multiset is a sorted list of face ranks (1 =
 * best), packed into a number base m + 1 (0: no face).
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

static void keep_explode(struct ctx *x, struct dist *out, const struct dist *law,
			 const struct group *g)
{
	size_t nf, *faces = nonzero(law, &nf), f, i, j;
	unsigned int k = (unsigned int)g->nkeep, t, lim = g->explode_limit;
	uint64_t base = nf + 1, states = 1, n;
	struct mmap alive = { 0 }, next = { 0 }, chains = { 0 }, pool = { 0 },
		    npool = { 0 };
	struct big w = { 0 };
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	val_t *rank_value;

	/* states: multisets of at most k of nf ranks, C(nf + k, k) */
	for (t = 1; t <= k; t++) {
		states = states * (nf + t) / t;
		if (states > 200000)
			break;
	}
	if (states > 200000 || k > 64 / 2 ||
	    (double)k * log2((double)base) >= 63)
		infeasible(x, "keeping %u dice of up to %llu faces with '!' needs too many states",
			   k, (unsigned long long)nf);
	if ((double)states * (double)states * (double)g->count > 4e9)
		infeasible(x, "keeping %u of %llu exploding dice needs too many steps",
			   k, (unsigned long long)g->count);
	if (g->keep == KEEP_HIGH) {	/* rank 1 = best */
		for (f = 0; f < nf / 2; f++) {
			size_t tmp = faces[f];

			faces[f] = faces[nf - 1 - f];
			faces[nf - 1 - f] = tmp;
		}
	}
	rank_value = xmalloc((nf + 1) * sizeof(*rank_value));
	for (f = 0; f < nf; f++)
		rank_value[f + 1] = law->lo + (int64_t)faces[f];

	/* one chain: weights over law.den^(lim + 1) */
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
				val_t v = rank_value[f + 1];
				uint64_t nk = merge(key, f + 1, base, k);
				bool boom = cmp_match(&g->ex, v) && t < lim;

				big_mul(&w, &alive.vals[i], &law->c[faces[f]]);
				if (boom) {
					big_add(mmap_get(&next, nk), &w);
				} else {
					struct big tmp = { 0 };

					big_mul(&tmp, &w, &padt);
					big_add(mmap_get(&chains, nk), &tmp);
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

	/* the dice one after another */
	big_set_u64(mmap_get(&pool, 0), 1);
	for (n = 0; n < g->count; n++) {
		for (i = 0; i < pool.cap; i++) {
			if (!pool.keys[i] || big_is_zero(&pool.vals[i]))
				continue;
			for (j = 0; j < chains.cap; j++) {
				if (!chains.keys[j] || big_is_zero(&chains.vals[j]))
					continue;
				big_addmul(mmap_get(&npool, merge(pool.keys[i] - 1,
								  chains.keys[j] - 1,
								  base, k)),
					   &pool.vals[i], &chains.vals[j]);
			}
			check(x);
		}
		mmap_free(&pool);
		pool = npool;
		memset(&npool, 0, sizeof(npool));
	}

	/* score each final multiset */
	for (t = 0; t < 2; t++) {
		for (i = 0; i < pool.cap; i++) {
			uint64_t key = pool.keys[i] ? pool.keys[i] - 1 : 0;
			__int128 sc = 0;

			if (!pool.keys[i] || big_is_zero(&pool.vals[i]))
				continue;
			for (; key; key /= base)
				sc += score(g, rank_value[key % base]);
			if (!t) {
				lo = sc < lo ? sc : lo;
				hi = sc > hi ? sc : hi;
			} else {
				big_add(&out->c[sc - out->lo], &pool.vals[i]);
			}
		}
		if (!t)
			init(x, out, lo, hi);
	}
	/* den = law.den^((lim + 1) * count) */
	big_set_u64(&out->den, 1);
	for (n = 0; n < (uint64_t)(lim + 1) * g->count; n++) {
		big_mul(&w, &out->den, &law->den);
		big_swap(&w, &out->den);
	}
	mmap_free(&pool);
	mmap_free(&chains);
	big_free(&w);
	free(rank_value);
	free(faces);
	trim(out);
}

/* ---- groups and expressions ------------------------------------------ */

static void group_dist(struct ctx *x, struct dist *out, const struct group *g)
{
	struct dist law, t;
	bool scored = g->success.op != CMP_NONE;

	base_law(x, &law, &g->die);
	apply_rerolls(&law, g);
	if (g->explode == EXPLODE_SEPARATE) {
		if (g->keep != KEEP_ALL) {
			keep_explode(x, out, &law, g);
			dist_free(&law);
			return;
		}
		chain(x, &t, &law, g, true);
		dist_free(&law);
		power(x, out, &t, g->count);
		dist_free(&t);
		return;
	}
	if (g->explode == EXPLODE_COMPOUND) {
		chain(x, &t, &law, g, false);
		dist_free(&law);
		law = t;
	}
	if (g->keep != KEEP_ALL && g->nkeep < g->count) {
		keep_dp(x, out, &law, g);
	} else {
		push(x, &t, &law, g, scored, NULL, false);
		trim(&t);
		power(x, out, &t, g->count);
		dist_free(&t);
	}
	dist_free(&law);
}

static void node_dist(struct ctx *x, struct dist *out, const struct node *n)
{
	struct dist a, b;

	switch (n->type) {
	case NODE_CONST:
		point(x, out, n->value);
		return;
	case NODE_GROUP:
		group_dist(x, out, n->group);
		return;
	case NODE_NEG:
		node_dist(x, out, n->l);
		negate(out);
		return;
	default:
		break;
	}
	node_dist(x, &a, n->l);
	node_dist(x, &b, n->r);
	if (n->type == NODE_ADD) {
		conv(x, out, &a, &b);
	} else if (n->type == NODE_SUB) {
		negate(&b);
		conv(x, out, &a, &b);
	} else {
		product(x, out, &a, &b);
	}
	dist_free(&a);
	dist_free(&b);
}

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

int dist_expr(const struct expr *e, const struct dist_limits *lim,
	      struct dist *out, char *why, size_t whylen)
{
	struct ctx x = { .lim = lim, .why = why, .whylen = whylen,
			 .work0 = big_work };

	memset(out, 0, sizeof(*out));
	if (setjmp(x.jb))
		return x.err;
	node_dist(&x, out, e->root);
	trim(out);
	reduce(out);
	return 0;
}

void dist_mean(const struct dist *d, struct big *num, struct big *den,
	       int *neg)
{
	struct big pos = { 0 }, minus = { 0 }, g = { 0 }, t = { 0 };
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
	big_free(&t);
}
