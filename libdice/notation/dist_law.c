// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_law.c - what every step of an exact distribution uses: failing
 * (infeasible, interrupted, over the work limit), distributions (make,
 * trim, convolve, widen, A against B), and the score and order of a die's
 * faces
 *
 * The bottom of the dist*.c files: it calls none of them, so that they
 * call each other one way only (scripts/call-cycles.py).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "dist_priv.h"

/*
 * Failing unwinds with longjmp() to dist_expr_report() or dist_estimate(),
 * which free what was in flight (notation_release()).
 */
void dist_infeasible(struct dist_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->rep->why, sizeof(x->rep->why), fmt, ap);
	va_end(ap);
	x->rep->offset = x->at;
	x->err = -E2BIG;
	longjmp(x->jb, 1);
}

uint64_t dist_max_leaves(const struct dist_ctx *x)
{
	return x->lim->max_leaves ? x->lim->max_leaves : x->lim->max_work / 64;
}

/* The work done so far may exceed the estimate a little, not twice. */
void dist_check(struct dist_ctx *x)
{
	if (notation_interrupted()) {
		x->err = -EINTR;
		longjmp(x->jb, 1);
	}
	if (notation_work() - x->work0 > 2 * x->lim->max_work)
		dist_infeasible(x, "it would take more than %llu limb products",
				(unsigned long long)(2 * x->lim->max_work));
}

/* ---- distributions ------------------------------------------------------ */

void dist_free(struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		big_free(&d->c[i]);
	xfree(d->c);
	big_free(&d->den);
	memset(d, 0, sizeof(*d));
}

void dist_init(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	memset(d, 0, sizeof(*d));
	if (lo <= -VALUE_LIMIT || hi >= VALUE_LIMIT)
		dist_infeasible(x, "its values would not fit in 62 bits");
	if (hi - lo + 1 > (__int128)x->lim->max_values)
		dist_infeasible(x, "it would span more than %zu values",
				x->lim->max_values);
	d->lo = (int64_t)lo;
	d->n = (size_t)(hi - lo + 1);
	d->c = xcalloc(d->n, sizeof(*d->c));
}

__int128 dist_hi(const struct dist *d)
{
	return (__int128)d->lo + (__int128)d->n - 1;
}

/* Drop zero counts at both ends; an all-zero distribution keeps one. */
void dist_trim(struct dist *d)
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

bool dist_empty(const struct dist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			return false;
	}
	return true;
}

void dist_point(struct dist_ctx *x, struct dist *d, __int128 v)
{
	dist_init(x, d, v, v);
	big_set_u64(&d->c[0], 1);
	big_set_u64(&d->den, 1);
}

/* Indices of the non-zero counts of @d; *n gets how many. */
size_t *dist_nonzero(const struct dist *d, size_t *n)
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
void dist_conv(struct dist_ctx *x, struct dist *r, const struct dist *a,
	       const struct dist *b)
{
	size_t na, nb, i, j, *ia = dist_nonzero(a, &na), *ib = dist_nonzero(b, &nb);

	dist_init(x, r, (__int128)a->lo + b->lo, dist_hi(a) + dist_hi(b));
	for (i = 0; i < na; i++) {
		const struct big *ca = &a->c[ia[i]];

		for (j = 0; j < nb; j++)
			big_addmul(&r->c[ia[i] + ib[j]], ca, &b->c[ib[j]]);
		dist_check(x);
	}
	big_mul(&r->den, &a->den, &b->den);
	xfree(ia);
	xfree(ib);
	dist_trim(r);
}

/* *a = *a + *b; frees *b. */
void dist_conv_into(struct dist_ctx *x, struct dist *a, struct dist *b)
{
	struct dist r;

	dist_conv(x, &r, a, b);
	dist_free(a);
	dist_free(b);
	*a = r;
}

/* Make room in @d for values lo..hi, keeping its counts. */
void dist_widen(struct dist_ctx *x, struct dist *d, __int128 lo, __int128 hi)
{
	struct dist w;
	size_t i;

	if (lo >= d->lo && hi <= dist_hi(d))
		return;
	if (lo > d->lo)
		lo = d->lo;
	if (hi < dist_hi(d))
		hi = dist_hi(d);
	dist_init(x, &w, lo, hi);
	for (i = 0; i < d->n; i++)
		w.c[d->lo - w.lo + (int64_t)i] = d->c[i];
	xfree(d->c);
	w.den = d->den;
	*d = w;
}

/* ---- expressions ------------------------------------------------------------ */

val_t scorer_score(const struct scorer *sc, val_t v)
{
	if (sc && sc->keep_by && cmp_match(sc->keep_by, v) == sc->keep_by_drop)
		return 0;
	if (!sc || sc->success->op == CMP_NONE)
		return v;
	return cmp_score(sc->success, sc->failure, v);
}

/* Remember how likely one die of @g is to explode up to its cap. */
void law_note_cap(struct dist_ctx *x, const struct dist *law,
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

/* @faces (indices into @law) best first for @mode. */
size_t *law_best_first(const struct dist *law, enum keep_mode mode,
		       size_t *nf)
{
	size_t *faces = dist_nonzero(law, nf), f;

	if (mode == KEEP_HIGH) {
		for (f = 0; f < *nf / 2; f++) {
			size_t t = faces[f];

			faces[f] = faces[*nf - 1 - f];
			faces[*nf - 1 - f] = t;
		}
	}
	return faces;
}

void versus_counts(const struct dist *da, const struct dist *db,
		   struct big *gt, struct big *eq, struct big *lt,
		   struct big *den)
{
	struct big below = { 0 };
	struct big *cum = xcalloc(db->n + 1, sizeof(*cum));
	size_t i;

	/* cum[j]: the counts of B below db->lo + j */
	for (i = 0; i < db->n; i++) {
		big_copy(&cum[i + 1], &cum[i]);
		big_add(&cum[i + 1], &db->c[i]);
	}
	for (i = 0; i < da->n; i++) {
		int64_t v = da->lo + (int64_t)i;
		__int128 j = (__int128)v - db->lo;	/* B values below v: j */
		const struct big *all = &cum[db->n];

		if (big_is_zero(&da->c[i]))
			continue;
		/* Below B's lowest value; at it, the general case ties. */
		if (j < 0) {
			big_addmul(lt, &da->c[i], all);
			continue;
		}
		if (j >= (__int128)db->n) {
			big_addmul(gt, &da->c[i], all);
			continue;
		}
		big_addmul(gt, &da->c[i], &cum[j]);
		big_addmul(eq, &da->c[i], &db->c[j]);
		big_copy(&below, all);
		big_sub(&below, &cum[j + 1]);
		big_addmul(lt, &da->c[i], &below);
	}
	big_mul(den, &da->den, &db->den);
	for (i = 0; i <= db->n; i++)
		big_free(&cum[i]);
	xfree(cum);
	big_free(&below);
}
