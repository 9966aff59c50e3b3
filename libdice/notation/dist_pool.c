// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dist_pool.c - keep/drop over pools that grow ('!') or mix different
 * dice or elements ({...}): the state is the multiset of the k best values
 * so far, kept in a hash map from packed multisets to counts
 */
#include <math.h>
#include <string.h>

#include "dist_priv.h"

/* ---- pools: keep/drop over growing or mixed dice ------------------------ */

static struct big *pool_map_get(struct pool_map *m, uint64_t key)
{
	size_t i;

	if (2 * (m->used + 1) > m->cap) {
		struct pool_map g = { 0 };

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
		xfree(m->keys);
		xfree(m->vals);
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

static void pool_map_free(struct pool_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		big_free(&m->vals[i]);
	xfree(m->keys);
	xfree(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Merge two packed multisets (ranks ascending), keeping the k best. */
static uint64_t pool_merge(uint64_t a, uint64_t b, uint64_t base, unsigned int k)
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

static void domain_add(struct domain *dm, val_t v)
{
	if (dm->m == dm->cap) {
		dm->cap = dm->cap ? dm->cap * 2 : 64;
		dm->v = xrealloc(dm->v, dm->cap, sizeof(*dm->v));
	}
	dm->v[dm->m++] = v;
}

void domain_add_dist(struct domain *dm, const struct dist *d, int shift)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (!big_is_zero(&d->c[i]))
			domain_add(dm, d->lo + (int64_t)i - shift);
	}
}

static int domain_val_cmp(const void *a, const void *b)
{
	val_t x = *(const val_t *)a, y = *(const val_t *)b;

	return x < y ? -1 : x > y;
}

void domain_done(struct domain *dm)
{
	size_t i, j = 0;

	if (dm->m)
		qsort(dm->v, dm->m, sizeof(*dm->v), domain_val_cmp);
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

static uint64_t domain_rank(const struct domain *dm, val_t v)
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
void pool_limits(struct dist_ctx *x, size_t m, unsigned int k,
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
		dist_infeasible(x, "keeping %u %s of up to %llu values needs too many states",
				k, what, (unsigned long long)m);
	if ((double)states * (double)states * (double)elements > 4e9)
		dist_infeasible(x, "keeping %u of %llu %s needs too many steps",
				k, (unsigned long long)elements, what);
}

void pool_in_law(struct pool_in *p, const struct dist *law,
		 const struct domain *dm, uint64_t count)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < law->n; i++) {
		if (!big_is_zero(&law->c[i]))
			big_add(pool_map_get(&p->chain, domain_rank(dm, law->lo + (int64_t)i)),
				&law->c[i]);
	}
	big_copy(&p->den, &law->den);
	p->count = count;
}

/* An element that adds no value, of weight @w over @w (Avrae's ra unused). */
void pool_in_none(struct pool_in *p, const struct big *w, uint64_t count)
{
	memset(p, 0, sizeof(*p));
	big_copy(pool_map_get(&p->chain, 0), w);
	big_copy(&p->den, w);
	p->count = count;
}

/* A die of @g with '!': the k best of its faces, weights over den^(L+1). */
void pool_in_explode(struct dist_ctx *x, struct pool_in *p, const struct dist *law,
		     const struct group *g, const struct domain *dm,
		     unsigned int k, uint64_t count)
{
	size_t nf, *faces = dist_nonzero(law, &nf), f, i;
	unsigned int t, lim = g->explode_limit;
	struct pool_map alive = { 0 }, next = { 0 };
	struct big w = { 0 };
	uint64_t base = dm->m + 1, *r0 = xmalloc((nf ? nf : 1) * sizeof(*r0)),
		 *r1 = xmalloc((nf ? nf : 1) * sizeof(*r1));

	memset(p, 0, sizeof(*p));
	law_note_cap(x, law, g);
	for (f = 0; f < nf; f++) {
		r0[f] = domain_rank(dm, law->lo + (int64_t)faces[f]);
		r1[f] = domain_rank(dm, law->lo + (int64_t)faces[f] - g->penetrate);
	}
	big_set_u64(pool_map_get(&alive, 0), 1);
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
				uint64_t nk = pool_merge(key, t ? r1[f] : r0[f], base, k);
				bool boom = cmp_match(&g->ex, v) && t < lim;

				big_mul(&w, &alive.vals[i], &law->c[faces[f]]);
				if (boom) {
					big_add(pool_map_get(&next, nk), &w);
				} else {
					struct big tmp = { 0 };

					big_mul(&tmp, &w, &padt);
					big_add(pool_map_get(&p->chain, nk), &tmp);
					big_free(&tmp);
				}
			}
			dist_check(x);
		}
		big_free(&padt);
		pool_map_free(&alive);
		alive = next;
		memset(&next, 0, sizeof(next));
	}
	pool_map_free(&alive);
	big_set_u64(&p->den, 1);
	for (t = 0; t <= lim; t++) {
		big_mul(&w, &p->den, &law->den);
		big_swap(&w, &p->den);
	}
	p->count = count;
	big_free(&w);
	xfree(faces);
	xfree(r0);
	xfree(r1);
}

/* The score of the k best of the elements of @p[0..n-1]. */
void pool_keep(struct dist_ctx *x, struct dist *out, struct pool_in *p,
	       unsigned int n, const struct domain *dm, unsigned int k,
	       const struct scorer *sc)
{
	struct pool_map pool = { 0 }, npool = { 0 };
	struct big w = { 0 };
	uint64_t base = dm->m + 1, c;
	__int128 lo = VALUE_LIMIT, hi = -VALUE_LIMIT;
	unsigned int s, t;
	size_t i, j;

	big_set_u64(pool_map_get(&pool, 0), 1);
	for (s = 0; s < n; s++) {
		for (c = 0; c < p[s].count; c++) {
			for (i = 0; i < pool.cap; i++) {
				if (!pool.keys[i] || big_is_zero(&pool.vals[i]))
					continue;
				for (j = 0; j < p[s].chain.cap; j++) {
					if (!p[s].chain.keys[j] ||
					    big_is_zero(&p[s].chain.vals[j]))
						continue;
					big_addmul(pool_map_get(&npool, pool_merge(pool.keys[i] - 1,
										   p[s].chain.keys[j] - 1,
										   base, k)),
						   &pool.vals[i], &p[s].chain.vals[j]);
				}
				dist_check(x);
			}
			pool_map_free(&pool);
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
				v += scorer_score(sc, dm->v[key % base - 1]);
			if (!t) {
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			} else {
				big_add(&out->c[v - out->lo], &pool.vals[i]);
			}
		}
		if (!t)
			dist_init(x, out, lo, hi);
	}
	big_set_u64(&out->den, 1);
	for (s = 0; s < n; s++) {
		for (c = 0; c < p[s].count; c++) {
			big_mul(&w, &out->den, &p[s].den);
			big_swap(&w, &out->den);
		}
	}
	pool_map_free(&pool);
	big_free(&w);
	dist_trim(out);
}

void pool_in_free(struct pool_in *p)
{
	pool_map_free(&p->chain);
	big_free(&p->den);
}
