// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_enum.c - dice whose outcomes depend on each other: unique dice
 * ('u') of equally likely values and matches ('mt') by dynamic
 * programming, and, for what has no such method ('uo', 'mt' after
 * keep/drop or '!'), every outcome enumerated through roll.c itself
 */
#include <errno.h>
#include <string.h>

#include "dist_priv.h"
#include "roll.h"

/* ---- unique dice, matches, enumeration ----------------------------------- */

/* Are the non-zero counts of @law all equal? */
bool law_uniform(const struct dist *law)
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
void unique_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	       const struct scorer *sc, enum keep_mode mode, uint64_t n,
	       uint64_t k)
{
	size_t nf, *faces = law_best_first(law, mode == KEEP_ALL ? KEEP_LOW : mode, &nf),
	       f, s, width;
	__int128 smin = 0, smax = 0, base;
	struct big *dp;
	uint64_t j;

	for (f = 0; f < nf; f++) {
		val_t v = scorer_score(sc, law->lo + (int64_t)faces[f]);

		smin = v < smin ? v : smin;
		smax = v > smax ? v : smax;
	}
	base = (__int128)k * smin;
	dist_init(x, out, base, (__int128)k * smax);
	width = out->n;
	if ((__int128)width * (n + 1) > (__int128)x->lim->max_values * 4)
		dist_infeasible(x, "%llu unique dice need more than %zu states",
				(unsigned long long)n, x->lim->max_values * 4);
	dp = xcalloc(width * (n + 1), sizeof(*dp));
	big_set_u64(&dp[(size_t)(0 - base)], 1);
	for (f = 0; f < nf; f++) {
		__int128 sv = scorer_score(sc, law->lo + (int64_t)faces[f]);
		uint64_t top = f + 1 < n ? f + 1 : n;

		for (j = top; j-- > 0;) {
			struct big *from = &dp[j * width], *to = &dp[(j + 1) * width];
			__int128 shift = j < k ? sv : 0;

			for (s = 0; s < width; s++) {
				if (!big_is_zero(&from[s]))
					big_add(&to[(size_t)((__int128)s + shift)], &from[s]);
			}
		}
		dist_check(x);
	}
	for (s = 0; s < width; s++)
		big_swap(&out->c[s], &dp[n * width + s]);
	for (s = 0; s < width * (n + 1); s++)
		big_free(&dp[s]);
	xfree(dp);
	xfree(faces);
	/* den = C(nf, n) */
	big_set_u64(&out->den, 1);
	for (j = 0; j < n; j++) {
		big_mul_u64(&out->den, nf - j);
		big_divmod_u64(&out->den, j + 1);
	}
	dist_trim(out);
}

/*
 * 'mt' without keep/drop or '!': the number of values that at least m of n
 * dice drawn from @law show.  Over the values: state (dice placed, sets),
 * placing c dice on a value with weight C(n - placed, c) w^c.
 */
void match_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	      uint64_t n, unsigned int m)
{
	size_t nf, *faces = dist_nonzero(law, &nf), f, sets = n / m + 1, i, s;
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
			dist_check(x);
		}
		for (i = 0; i < (n + 1) * sets; i++) {
			big_swap(&dp[i], &nx[i]);
			nx[i].n = 0;
		}
	}
	dist_init(x, out, 0, (int64_t)sets - 1);
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
	xfree(dp);
	xfree(nx);
	xfree(wpow);
	xfree(faces);
	big_free(&bin);
	big_free(&coef);
	dist_trim(out);
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
struct enum_path {
	const struct group *g;
	uint64_t *side;
	size_t len, cap, pos;
	uint64_t *w;		/* weight of each side (0: never shown) */
	uint64_t wsum;
	size_t max;		/* most sides one outcome may ask for */
};

static uint64_t enum_next_side(const struct enum_path *p, uint64_t from)
{
	while (from < p->g->die.sides && !p->w[from])
		from++;
	return from;
}

static int enum_path_roll(void *ctx, const struct die *d, uint64_t *out,
			  size_t count)
{
	struct enum_path *p = ctx;
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
			p->side[p->len++] = enum_next_side(p, 0);
		}
		out[i] = p->side[p->pos] + 1;
	}
	return 0;
}

void enum_group(struct dist_ctx *x, struct dist *out, const struct group *g,
		uint64_t n)
{
	struct enum_path p = { .g = g };
	struct group_roll gr = { .g = g, .need_pool = true };
	struct dist *bydepth = NULL;
	size_t nd = 0, i, d;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	struct big w = { 0 }, t = { 0 };
	uint64_t s;

	if (g->die.sides > x->lim->max_values)
		dist_infeasible(x, "the die has %llu sides, more than %zu",
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
		err = roll_group_count(&gr, &(struct roller){ enum_path_roll, &p }, n, 1);
		if (err == -EINTR) {
			x->err = -EINTR;
			longjmp(x->jb, 1);
		}
		if (err == -ECANCELED)
			dist_infeasible(x, "an outcome has no bound on its rolls");
		if (err)
			dist_infeasible(x, "an outcome does not fit in 62 bits");
		if (++x->leaves > dist_max_leaves(x))
			dist_infeasible(x, "it would enumerate more than %llu outcomes",
					(unsigned long long)dist_max_leaves(x));
		d = p.pos;
		if (d >= nd) {
			bydepth = xrealloc(bydepth, d + 1, sizeof(*bydepth));
			memset(bydepth + nd, 0, (d + 1 - nd) * sizeof(*bydepth));
			nd = d + 1;
		}
		if (!bydepth[d].c) {
			dist_init(x, &bydepth[d], gr.value, gr.value);
		} else {
			dist_widen(x, &bydepth[d], gr.value, gr.value);
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
			uint64_t nx = enum_next_side(&p, p.side[p.len - 1] + 1);

			if (nx < g->die.sides) {
				p.side[p.len - 1] = nx;
				break;
			}
			p.len--;
		}
		if (!p.len)
			break;
		if (!(x->leaves & 1023))
			dist_check(x);
	}
	/* one denominator: wsum^(nd - 1) */
	dist_init(x, out, lo, hi);
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
	xfree(bydepth);
	xfree(gr.ev);
	xfree(gr.pool);
	xfree(p.side);
	xfree(p.w);
	big_free(&w);
	big_free(&t);
	dist_trim(out);
}

/* ---- unique once ('uo') by dynamic programming -------------------------- */

/* Does @g show at most 16 distinct values (2^16 sets of values taken)? */
static bool uo_few_values(const struct group *g)
{
	const struct die *d = &g->die;
	val_t seen[17];
	unsigned int n = 0, k;
	uint64_t i;

	if (d->type == DIE_FAIR)	/* an interval, after min/max */
		return group_face(g, d->sides - 1) - group_face(g, 0) < 16;
	for (i = 0; i < d->sides; i++) {
		val_t v = group_face(g, i);

		if (!die_side_used(d, i))
			continue;
		for (k = 0; k < n && seen[k] != v; k++)
			;
		if (k == n && (seen[n++] = v, n > 16))
			return false;
	}
	return true;
}

bool uo_by_dp(const struct group *g)
{
	return g->unique == UNIQUE_ONCE && g->explode == EXPLODE_NONE &&
	       g->keep.mode == KEEP_ALL && g->keep_by.op == CMP_NONE &&
	       !g->match_count && g->reroll != REROLL_ALWAYS &&
	       uo_few_values(g);
}

/*
 * p[i] = the weight, over W^4, that one die keeps the value val[i] when the
 * values of the set @s are taken.  As roll.c rolls it: a 'ro' face (R) is
 * rolled again once (B), a taken face (S) once (C), after which a 'ro'
 * face may be rolled again once more (D).  With r = w(R), sN = w(S \ R),
 * sAll = w(S), c = sN W + r sAll:
 *
 *   p_v = w_v ([v not in R, S] W^3 + [v not in S] r W^2
 *              + [v not in R] c W + c r)
 */
static void uo_keep_law(const struct dist *law, const struct big *w, size_t m,
			const size_t *val, uint64_t s, const struct group *g,
			struct big *p)
{
	struct big r = { 0 }, sn = { 0 }, sall = { 0 }, c = { 0 }, t = { 0 };
	struct big W = { 0 }, W2 = { 0 }, W3 = { 0 }, T2 = { 0 }, T3 = { 0 };
	struct big T4 = { 0 }, coef = { 0 };
	bool ro = g->reroll == REROLL_ONCE;
	size_t i;

	big_copy(&W, &law->den);
	big_mul(&W2, &W, &W);
	big_mul(&W3, &W2, &W);
	for (i = 0; i < m; i++) {
		bool in_r = ro && cmp_any(g->rr, g->nrr, law->lo + (int64_t)val[i]);
		bool in_s = s >> i & 1;

		if (in_r)
			big_add(&r, &w[i]);
		if (in_s)
			big_add(&sall, &w[i]);
		if (in_s && !in_r)
			big_add(&sn, &w[i]);
	}
	big_mul(&c, &sn, &W);
	big_addmul(&c, &r, &sall);
	big_mul(&T2, &r, &W2);
	big_mul(&T3, &c, &W);
	big_mul(&T4, &c, &r);
	for (i = 0; i < m; i++) {
		bool in_r = ro && cmp_any(g->rr, g->nrr, law->lo + (int64_t)val[i]);
		bool in_s = s >> i & 1;

		big_copy(&coef, &T4);
		if (!in_r && !in_s)
			big_add(&coef, &W3);
		if (!in_s)
			big_add(&coef, &T2);
		if (!in_r)
			big_add(&coef, &T3);
		big_mul(&p[i], &w[i], &coef);
	}
	big_free(&r);
	big_free(&sn);
	big_free(&sall);
	big_free(&c);
	big_free(&t);
	big_free(&W);
	big_free(&W2);
	big_free(&W3);
	big_free(&T2);
	big_free(&T3);
	big_free(&T4);
	big_free(&coef);
}

/*
 * n dice with 'uo' (and perhaps 'ro'), summed or scored, from the law of
 * one face before rerolls: the state is (the set of values kept so far,
 * the score), each die moving it by uo_keep_law().
 */
void uo_dp(struct dist_ctx *x, struct dist *out, const struct dist *law,
	   const struct group *g, const struct scorer *sc, uint64_t n)
{
	size_t m = 0, i, j, *val = xmalloc(law->n * sizeof(*val));
	uint64_t sets, s, k;
	__int128 lo = 0, hi = 0;
	struct dist *cur, *next, *tmp;
	struct big *p, *w, t = { 0 }, W4 = { 0 };

	for (i = 0; i < law->n; i++) {
		if (!big_is_zero(&law->c[i]))
			val[m++] = i;
	}
	if (m > 16)
		dist_infeasible(x, "unique dice ('uo') of %zu values need more than 2^16 sets of values",
				m);
	sets = (uint64_t)1 << m;
	for (i = 0; i < m; i++) {
		val_t sv = scorer_score(sc, law->lo + (int64_t)val[i]);

		lo = sv < lo ? sv : lo;
		hi = sv > hi ? sv : hi;
	}
	lo *= (__int128)n;
	hi *= (__int128)n;
	if ((double)sets * (double)(hi - lo + 1) > (double)x->lim->max_values * 16)
		dist_infeasible(x, "unique dice ('uo') need more than %zu states",
				x->lim->max_values * 16);
	w = xcalloc(m, sizeof(*w));
	p = xcalloc(m, sizeof(*p));
	for (i = 0; i < m; i++)
		big_copy(&w[i], &law->c[val[i]]);
	big_mul(&t, &law->den, &law->den);
	big_mul(&W4, &t, &t);
	cur = xcalloc(sets, sizeof(*cur));
	next = xcalloc(sets, sizeof(*next));
	dist_init(x, &cur[0], lo, hi);
	big_set_u64(&cur[0].c[-lo], 1);
	for (k = 0; k < n; k++) {
		for (s = 0; s < sets; s++) {
			if (!cur[s].n)
				continue;
			uo_keep_law(law, w, m, val, s, g, p);
			for (i = 0; i < m; i++) {
				uint64_t s2 = s | (uint64_t)1 << i;
				int64_t sv = (int64_t)scorer_score(sc, law->lo +
								     (int64_t)val[i]);

				if (big_is_zero(&p[i]))
					continue;
				if (!next[s2].n)
					dist_init(x, &next[s2], lo, hi);
				for (j = 0; j < cur[s].n; j++) {
					if (!big_is_zero(&cur[s].c[j]))
						big_addmul(&next[s2].c[(int64_t)j + sv],
							   &cur[s].c[j], &p[i]);
				}
			}
			dist_free(&cur[s]);
			memset(&cur[s], 0, sizeof(cur[s]));
			dist_check(x);
		}
		tmp = cur;
		cur = next;
		next = tmp;
	}
	dist_init(x, out, lo, hi);
	for (s = 0; s < sets; s++) {
		for (j = 0; j < cur[s].n; j++)
			big_add(&out->c[j], &cur[s].c[j]);
		dist_free(&cur[s]);
	}
	big_set_u64(&out->den, 1);
	for (k = 0; k < n; k++) {
		big_mul(&t, &out->den, &W4);
		big_swap(&t, &out->den);
	}
	dist_trim(out);
	for (i = 0; i < m; i++) {
		big_free(&w[i]);
		big_free(&p[i]);
	}
	xfree(w);
	xfree(p);
	xfree(cur);
	xfree(next);
	xfree(val);
	big_free(&t);
	big_free(&W4);
}
