// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_group.c - the exact distribution of a dice group and of a grouped
 * roll: the law of one face (faces, min/max, rerolls), explosions, n dice
 * (by powers of convolution), keep/drop of identical dice (keep_dp()),
 * and computed counts (a mixture, of a count law the walker gives)
 *
 * What a group needs that is not here: pools that grow or mix dice
 * (dist_pool.c), unique dice, matches and enumeration (dist_enum.c).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "dist_priv.h"
#include "roll.h"

/* ---- one die ------------------------------------------------------------- */

/*
 * r = the law of scorer_score(V - @shift) for V drawn from @law, restricted to
 * the V for which cmp_match(@only, V) == @inside when @only is given (the
 * others count zero; the denominator stays).
 */
void law_push(struct dist_ctx *x, struct dist *r, const struct dist *law,
	      const struct scorer *sc, int shift, const struct cmp *only,
	      bool inside)
{
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i;

	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = scorer_score(sc, v - shift);

		if (lo > s)
			lo = s;
		if (hi < s)
			hi = s;
	}
	dist_init(x, r, lo, hi);
	for (i = 0; i < law->n; i++) {
		val_t v = law->lo + (int64_t)i, s = scorer_score(sc, v - shift);

		if (only && cmp_match(only, v) != inside)
			continue;
		big_add(&r->c[s - r->lo], &law->c[i]);
	}
	big_copy(&r->den, &law->den);
}

void law_base(struct dist_ctx *x, struct dist *d, const struct group *g)
{
	const struct die *die = &g->die;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	uint64_t i;

	if (die->sides > x->lim->max_values)
		dist_infeasible(x, "the die has %llu sides, more than %zu",
				(unsigned long long)die->sides, x->lim->max_values);
	for (i = 0; i < die->sides; i++) {
		val_t v = group_face(g, i);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	dist_init(x, d, lo, hi);
	for (i = 0; i < die->sides; i++) {
		struct big w = { 0 };

		big_set_u64(&w, die->weights ? die->weights[i] : 1);
		big_add(&d->c[group_face(g, i) - d->lo], &w);
		big_free(&w);
	}
	big_set_u64(&d->den, die->weight_sum);
	dist_trim(d);
}

void law_rerolls(struct dist *law, const struct group *g)
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
	dist_trim(law);
}

unsigned int group_cap(const struct dist_ctx *x, const struct group *g)
{
	return x->cap && !g->explode_capped ? x->cap : g->explode_limit;
}

/*
 * The sum over one die's chain of faces (itself and its explosions) of
 * scorer_score(face) (@sc) or face.  With explode_limit L, the last possible face
 * T_L = law, and T_k = rest + boom * T_k+1 with "rest" the faces that stop
 * and "boom" those that explode; with 'p' every face but the first counts
 * one less.
 */
void law_chain(struct dist_ctx *x, struct dist *out, const struct dist *law,
	       const struct group *g, const struct scorer *sc)
{
	struct dist rest, boom, rest1, boom1, t, next;
	int pen = g->penetrate ? 1 : 0;
	unsigned int k, lim = g->explode_limit;
	size_t i;

	law_push(x, &rest, law, sc, 0, &g->ex, false);
	law_push(x, &boom, law, sc, 0, &g->ex, true);
	law_push(x, &rest1, law, sc, pen, &g->ex, false);
	law_push(x, &boom1, law, sc, pen, &g->ex, true);
	law_push(x, &t, law, sc, pen, NULL, false);		/* T_L */
	if (dist_empty(&boom) || !lim) {	/* the exploding faces are all rerolled */
		dist_free(&t);
		dist_free(&boom1);
		dist_free(&rest1);
		law_push(x, &t, law, sc, 0, NULL, false);
		goto out;
	}
	law_note_cap(x, law, g);
	dist_trim(&boom);
	dist_trim(&boom1);
	for (k = 0; k < lim; k++) {
		const struct dist *r = k + 1 < lim ? &rest1 : &rest;
		const struct dist *b = k + 1 < lim ? &boom1 : &boom;

		dist_conv(x, &next, b, &t);	/* den: law.den * t.den */
		dist_widen(x, &next, r->lo, dist_hi(r));
		for (i = 0; i < r->n; i++) {
			if (!big_is_zero(&r->c[i]))
				big_addmul(&next.c[r->lo - next.lo + (int64_t)i],
					   &r->c[i], &t.den);
		}
		dist_trim(&next);
		dist_free(&t);
		t = next;
		dist_check(x);
	}
out:
	dist_free(&rest);
	dist_free(&boom);
	dist_free(&rest1);
	dist_free(&boom1);
	*out = t;
}

/*
 * The sum of @n independent copies of @one: the coefficients p_m of
 * P = Q^n, with Q = sum c_j x^j the counts of @one (c_0 != 0 once
 * trimmed), by the recurrence that Q P' = n Q' P gives,
 *
 *   m c_0 p_m = sum_{j=1}^{L-1} c_j (j (n + 1) - m) p_{m-j},  p_0 = c_0^n,
 *
 * one pass over the values with L - 1 terms each, instead of n - 1
 * convolutions: 2000d6 is 10,001 values of 5 terms.  The terms have both
 * signs, so the positive and negative parts are summed apart; the
 * division by m c_0 is exact.
 */
static void law_power(struct dist_ctx *x, struct dist *out, const struct dist *one,
	       uint64_t n)
{
	struct big pos = { 0 }, neg = { 0 }, tmp = { 0 }, div = { 0 }, q = { 0 };
	size_t a = 0, b = one->n, L, j, k, nnz, *nz;
	__int128 lo, hi;
	uint64_t c0, m;

	if (!n) {
		dist_point(x, out, 0);
		return;
	}
	if (n == 1) {
		law_push(x, out, one, NULL, 0, NULL, false);
		return;
	}
	while (a + 1 < b && big_is_zero(&one->c[a]))
		a++;
	while (b > a + 1 && big_is_zero(&one->c[b - 1]))
		b--;
	L = b - a;
	lo = ((__int128)one->lo + (__int128)a) * n;
	hi = lo + (__int128)(L - 1) * n;
	dist_init(x, out, lo, hi);
	/* den^n and p_0 = c_0^n by squaring */
	big_set_u64(&out->den, 1);
	big_set_u64(&out->c[0], 1);
	{
		struct big bd = { 0 }, bc = { 0 };
		uint64_t e = n;

		big_copy(&bd, &one->den);
		big_copy(&bc, &one->c[a]);
		while (e) {
			if (e & 1) {
				big_mul(&tmp, &out->den, &bd);
				big_swap(&tmp, &out->den);
				big_mul(&tmp, &out->c[0], &bc);
				big_swap(&tmp, &out->c[0]);
			}
			e >>= 1;
			if (e) {
				big_mul(&tmp, &bd, &bd);
				big_swap(&tmp, &bd);
				big_mul(&tmp, &bc, &bc);
				big_swap(&tmp, &bc);
			}
			dist_check(x);
		}
		big_free(&bd);
		big_free(&bc);
	}
	if (!big_get_u64(&one->c[a], &c0))
		c0 = 0;		/* a big c_0: divide by a big */
	nz = xmalloc(L * sizeof(*nz));	/* the j >= 1 with c_j != 0 */
	for (nnz = 0, j = 1; j < L; j++) {
		if (!big_is_zero(&one->c[a + j]))
			nz[nnz++] = j;
	}
	for (m = 1; m < out->n; m++) {
		big_set_u64(&pos, 0);
		big_set_u64(&neg, 0);
		for (k = 0; k < nnz && nz[k] <= m; k++) {
			const struct big *cj = &one->c[a + nz[k]];
			const struct big *pm;
			__int128 coef;

			j = nz[k];
			pm = &out->c[m - j];
			coef = (__int128)j * ((__int128)n + 1) - m;
			uint64_t ac = (uint64_t)(coef < 0 ? -coef : coef), cs, prod;
			struct big *acc = coef < 0 ? &neg : &pos;

			if (!coef || big_is_zero(pm))
				continue;
			if (big_get_u64(cj, &cs) &&
			    !__builtin_mul_overflow(cs, ac, &prod)) {
				big_addmul_u64(acc, pm, prod);
			} else {
				big_mul(&tmp, cj, pm);
				big_addmul_u64(acc, &tmp, ac);
			}
		}
		big_sub(&pos, &neg);	/* p_m >= 0 */
		{
			uint64_t d64;

			if (c0 && !__builtin_mul_overflow(c0, m, &d64)) {
				big_divmod_u64(&pos, d64);
				big_swap(&pos, &out->c[m]);
			} else {
				big_copy(&div, &one->c[a]);
				big_mul_u64(&div, m);
				big_divmod(&q, NULL, &pos, &div);
				big_swap(&q, &out->c[m]);
			}
		}
		dist_check(x);
	}
	xfree(nz);
	big_free(&pos);
	big_free(&neg);
	big_free(&tmp);
	big_free(&div);
	big_free(&q);
	dist_trim(out);
}

/* ---- keep/drop ------------------------------------------------------------ */

/*
 * Score of the k best of n dice drawn from @law ("best" = highest for
 * KEEP_HIGH, lowest for KEEP_LOW), by dynamic programming over the faces
 * in that order; see the header comment.
 */
void keep_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	     const struct scorer *sc, enum keep_mode mode, uint64_t n,
	     uint64_t k)
{
	uint64_t i, c;
	size_t nf, *faces = law_best_first(law, mode, &nf), f, s, width;
	__int128 smin = VALUE_LIMIT, smax = -VALUE_LIMIT, base, top;
	struct big *dp, *res, *wpow, *rpow, wrest = { 0 }, bin = { 0 },
		   coef = { 0 }, coef2 = { 0 };
	bool *live;

	for (f = 0; f < nf; f++) {
		val_t v = scorer_score(sc, law->lo + (int64_t)faces[f]);

		smin = v < smin ? v : smin;
		smax = v > smax ? v : smax;
	}
	base = (__int128)k * smin < 0 ? (__int128)k * smin : 0;
	top = (__int128)k * smax > 0 ? (__int128)k * smax : 0;
	dist_init(x, out, base, top);
	width = out->n;
	if ((__int128)width * k > (__int128)x->lim->max_values * 4)
		dist_infeasible(x, "keeping %llu of %llu dice needs more than %zu states",
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
		__int128 sv = scorer_score(sc, law->lo + (int64_t)faces[f]);

		big_sub(&wrest, w);
		big_set_u64(&wpow[0], 1);
		big_set_u64(&rpow[0], 1);
		for (c = 1; c <= n; c++) {
			big_mul(&wpow[c], &wpow[c - 1], w);
			big_mul(&rpow[c], &rpow[c - 1], &wrest);
		}
		dist_check(x);
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
				dist_check(x);
			}
		}
	}
	for (s = 0; s < width * k; s++)
		big_free(&dp[s]);
	for (c = 0; c <= n; c++) {
		big_free(&wpow[c]);
		big_free(&rpow[c]);
	}
	xfree(dp);
	xfree(live);
	xfree(wpow);
	xfree(rpow);
	xfree(faces);
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
	dist_trim(out);
}

/* ---- groups --------------------------------------------------------------- */

/* 'u' never: it may reroll for ever, and unique_dp() knows it. */
bool group_needs_enum(const struct dist_ctx *x, const struct group *g)
{
	if (x->lim->enumerate_all && g->unique != UNIQUE_ALWAYS)
		return true;
	return (g->unique == UNIQUE_ONCE && !uo_by_dp(g)) ||
	       (g->keep_by.op != CMP_NONE && g->match_count) ||
	       (g->match_count && g->unique == UNIQUE_NONE &&
		(g->explode == EXPLODE_SEPARATE || g->keep.mode != KEEP_ALL));
}

/* out = a - b + c, three counts over one denominator (taken from @a). */
static void dist_abc(struct dist_ctx *x, struct dist *out, const struct dist *a,
		     const struct dist *b, const struct dist *c)
{
	const struct dist *t[3] = { a, c, b };
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i, j;

	for (i = 0; i < 3; i++) {
		lo = t[i]->lo < lo ? t[i]->lo : lo;
		hi = dist_hi(t[i]) > hi ? dist_hi(t[i]) : hi;
	}
	dist_init(x, out, lo, hi);
	for (i = 0; i < 3; i++) {	/* a and c first: no count goes below 0 */
		for (j = 0; j < t[i]->n; j++) {
			struct big *o = &out->c[t[i]->lo - out->lo + (int64_t)j];

			if (i < 2)
				big_add(o, &t[i]->c[j]);
			else
				big_sub(o, &t[i]->c[j]);
		}
	}
	big_copy(&out->den, &a->den);
	dist_trim(out);
}

/*
 * Avrae's ra (g->add_once): n dice drawn from @law, and one more when some
 * of them matches g->ex (d20's SetOperator.explode_once(), see
 * mod_reroll()); then the keep, over all of them.  With S the faces that
 * match, w the weights, W their sum and F the counts of the score of a
 * pool, the counts are, over W^(n+1),
 *   sum_d w(d) [some die of d in S] sum_e w(e) F(d, e)
 *     + sum_d w(d) [no die of d in S] W F(d)
 *   = F(L^n, L) - F(L'^n, L) + F(L'^n, Z)
 * where L' is @law without the faces in S (W stays its denominator) and Z
 * adds no die, with weight W.
 */
static void ra_dist(struct dist_ctx *x, struct dist *out, const struct dist *law,
		    const struct group *g, const struct scorer *sc, uint64_t n,
		    uint64_t k)
{
	struct dist lmiss, t[3];
	unsigned int i;

	law_push(x, &lmiss, law, NULL, 0, &g->ex, false);
	dist_trim(&lmiss);
	if (g->keep.mode != KEEP_ALL) {
		struct domain dm = { .mode = g->keep.mode };
		struct pool_in p[2];

		domain_add_dist(&dm, law, 0);
		domain_done(&dm);
		pool_limits(x, dm.m, (unsigned int)k, n + 1, "dice with 'ra'");
		for (i = 0; i < 3; i++) {
			pool_in_law(&p[0], i ? &lmiss : law, &dm, n);
			if (i < 2)
				pool_in_law(&p[1], law, &dm, 1);
			else
				pool_in_none(&p[1], &law->den, 1);
			pool_keep(x, &t[i], p, 2, &dm, (unsigned int)k, sc);
			pool_in_free(&p[0]);
			pool_in_free(&p[1]);
		}
		xfree(dm.v);
	} else {
		struct dist one, miss, pn, z;

		law_push(x, &one, law, sc, 0, NULL, false);
		dist_trim(&one);
		law_push(x, &miss, law, sc, 0, &g->ex, false);
		dist_trim(&miss);
		dist_point(x, &z, 0);
		big_copy(&z.c[0], &law->den);
		big_copy(&z.den, &law->den);
		for (i = 0; i < 3; i++) {
			law_power(x, &pn, i ? &miss : &one, n);
			dist_conv(x, &t[i], &pn, i < 2 ? &one : &z);
			dist_free(&pn);
		}
		dist_free(&one);
		dist_free(&miss);
		dist_free(&z);
	}
	dist_abc(x, out, &t[0], &t[1], &t[2]);
	for (i = 0; i < 3; i++)
		dist_free(&t[i]);
	dist_free(&lmiss);
}

/* The group @g with @n dice. */
static void group_dist_n(struct dist_ctx *x, struct dist *out, const struct group *g,
			 uint64_t n)
{
	struct scorer scr = { &g->success, &g->failure,
			      g->keep_by.op != CMP_NONE ? &g->keep_by : NULL,
			      g->keep_by_drop },
		      *sc = g->success.op != CMP_NONE || scr.keep_by ? &scr : NULL;
	uint64_t k = keep_count(&g->keep, n);
	struct dist law, t;

	if (!n || (g->keep.mode != KEEP_ALL && !k) ||
	    (g->unique == UNIQUE_ALWAYS && g->match_count)) {
		dist_point(x, out, 0);	/* distinct values never match */
		return;
	}
	if (group_needs_enum(x, g)) {
		enum_group(x, out, g, n);
		return;
	}
	law_base(x, &law, g);
	if (g->unique == UNIQUE_ONCE) {	/* uo_by_dp(): rerolls of its own */
		uo_dp(x, out, &law, g, sc, n);
		dist_free(&law);
		return;
	}
	law_rerolls(&law, g);
	if (g->unique == UNIQUE_ALWAYS) {
		if (!law_uniform(&law))
			dist_infeasible(x, "unique dice ('u') have an exact distribution here only when every value is equally likely");
		unique_dp(x, out, &law, sc, g->keep.mode, n,
			  g->keep.mode == KEEP_ALL ? n : k);
	}
	if (g->unique == UNIQUE_ALWAYS) {
		dist_free(&law);
		return;
	}
	if (g->add_once) {
		ra_dist(x, out, &law, g, sc, n, k);
		dist_free(&law);
		return;
	}
	if (g->explode == EXPLODE_SEPARATE) {
		if (g->keep.mode != KEEP_ALL) {
			struct domain dm = { .mode = g->keep.mode };
			struct pool_in p;

			domain_add_dist(&dm, &law, 0);
			if (g->penetrate)
				domain_add_dist(&dm, &law, 1);
			domain_done(&dm);
			pool_limits(x, dm.m, (unsigned int)k, n, "dice with '!'");
			pool_in_explode(x, &p, &law, g, &dm, (unsigned int)k, n);
			pool_keep(x, out, &p, 1, &dm, (unsigned int)k, sc);
			pool_in_free(&p);
			xfree(dm.v);
			dist_free(&law);
			return;
		}
		law_chain(x, &t, &law, g, sc);
		dist_free(&law);
		law_power(x, out, &t, n);
		dist_free(&t);
		return;
	}
	if (g->explode == EXPLODE_COMPOUND) {
		law_chain(x, &t, &law, g, NULL);
		dist_free(&law);
		law = t;
	}
	if (g->match_count) {
		match_dp(x, out, &law, n, g->match_min);
	} else if (g->keep.mode != KEEP_ALL && k < n) {
		keep_dp(x, out, &law, sc, g->keep.mode, n, k);
	} else {
		law_push(x, &t, &law, sc, 0, NULL, false);
		dist_trim(&t);
		law_power(x, out, &t, n);
		dist_free(&t);
	}
	dist_free(&law);
}

/* r = a * b / gcd(a, b) */
static void big_lcm(struct big *r, const struct big *a, const struct big *b)
{
	struct big g = { 0 }, q = { 0 };

	big_gcd(&g, a, b);
	big_divmod(&q, NULL, a, &g);
	big_mul(r, &q, b);
	big_free(&g);
	big_free(&q);
}

/* out = the mixture of @d[i] with weights @w->c[i] / @w->den. */
void dist_mix(struct dist_ctx *x, struct dist *out, const struct dist *w,
		struct dist *d)
{
	struct big l = { 0 }, t = { 0 }, f = { 0 }, coef = { 0 };
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	size_t i, j;

	big_set_u64(&l, 1);
	for (i = 0; i < w->n; i++) {
		if (big_is_zero(&w->c[i]))
			continue;
		big_lcm(&t, &l, &d[i].den);
		big_swap(&t, &l);
		lo = d[i].lo < lo ? d[i].lo : lo;
		hi = dist_hi(&d[i]) > hi ? dist_hi(&d[i]) : hi;
	}
	dist_init(x, out, lo, hi);
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
		dist_check(x);
	}
	big_mul(&out->den, &w->den, &l);
	big_free(&l);
	big_free(&t);
	big_free(&f);
	big_free(&coef);
	dist_trim(out);
}

/*
 * @count: the law of the number of dice for a computed count (the walker,
 * dist.c, computes it: this file never calls back into the walker), or NULL
 */
void dist_group(struct dist_ctx *x, struct dist *out, const struct group *g,
		const struct dist *count)
{
	const struct dist *cd = count;
	struct dist *d;
	size_t i;

	if (!g->count_node) {
		group_dist_n(x, out, g, g->count);
		return;
	}
	if (cd->lo < 0 || dist_hi(cd) > (__int128)g->count)
		dist_infeasible(x, "the number of dice falls outside 0..%llu",
				(unsigned long long)g->count);
	d = xcalloc(cd->n, sizeof(*d));
	for (i = 0; i < cd->n; i++) {
		if (!big_is_zero(&cd->c[i]))
			group_dist_n(x, &d[i], g, (uint64_t)cd->lo + i);
	}
	dist_mix(x, out, cd, d);
	for (i = 0; i < cd->n; i++)
		dist_free(&d[i]);
	xfree(d);
}

/* ---- grouped rolls ----------------------------------------------------------- */

bool brace_alike(const struct dist_ctx *x, const struct node *n)
{
	const struct node *a = n->kids[0];
	unsigned int i;

	if (!x->text || n->nkids < 2)
		return false;
	for (i = 1; i < n->nkids; i++) {
		const struct node *b = n->kids[i];

		if (b->end - b->start != a->end - a->start ||
		    memcmp(x->text + a->start, x->text + b->start,
			   a->end - a->start))
			return false;
	}
	return true;
}
