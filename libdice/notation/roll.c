// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * roll.c - roll a parsed expression through a roller
 *
 * One die of a group ("slot") goes through these steps, which dist.c
 * mirrors exactly:
 *   1. roll a face; 'min' and 'max' move it into their range;
 *   2. rerolls: with 'r', roll again while the face matches a rule; with
 *      'ro', roll again once if it matches, and keep the new face; with
 *      'u', roll again while an earlier die of the group shows the face,
 *      with 'uo' once (unique dice are rolled one after another);
 *   3. explosions: while the face (after step 2) matches the explode rule
 *      and the die has exploded fewer than explode_limit times, roll one
 *      more face, through step 2 as well.  '!' puts each new face in the
 *      pool as a die of its own, '!!' adds it to the same die; with 'p'
 *      each new face counts one less than it shows (it explodes on what
 *      it shows);
 *   4. keep/drop then picks dice of the pool by value (ties: the earlier
 *      die is kept first), and the group's value is the sum of the kept
 *      dice, or, with a success target, the number of kept dice that meet
 *      it less those that meet the failure target, or with 'mt' the
 *      number of values that at least match_min kept dice show.
 * The dice of a group are rolled side by side, in rounds: every die that
 * needs a face in this round gets it from one call to the source.  Faces
 * are independent, so this gives the same distribution as rolling each
 * die to the end in turn, with far fewer calls.
 *
 * Evaluation walks the syntax tree, whose depth the parser bounds; long
 * chains of operators are n-ary nodes and are folded in loops.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "roll.h"

#define CHUNK	65536	/* sides asked of the source per call */

void roll_init(struct roll_result *r, const struct expr *e, int detail)
{
	unsigned int i, j;

	memset(r, 0, sizeof(*r));
	r->ngroups = e->ngroups;
	r->groups = xcalloc(e->ngroups, sizeof(*r->groups));
	r->nbraces = e->nbraces;
	r->braces = xcalloc(e->nbraces, sizeof(*r->braces));
	r->detail = detail;
	for (i = 0; i < e->ngroups; i++)
		r->groups[i].g = e->groups[i];
	for (i = 0; i < e->nbraces; i++) {
		const struct brace *b = e->braces[i];

		for (j = 0; b->pooled && j < b->ngroups; j++)
			r->groups[b->groups[j]->index].need_pool = true;
	}
}

void roll_free(struct roll_result *r)
{
	unsigned int i;

	for (i = 0; i < r->ngroups; i++) {
		xfree(r->groups[i].ev);
		xfree(r->groups[i].pool);
	}
	for (i = 0; i < r->nbraces; i++) {
		xfree(r->braces[i].values);
		xfree(r->braces[i].flags);
	}
	xfree(r->groups);
	xfree(r->braces);
	memset(r, 0, sizeof(*r));
}

/*
 * A group whose total is the sum of its faces, rerolls and explosions
 * aside: no keep, no successes, no sets.  Rolled for its total alone
 * (DICE_ROLL_TOTAL_ONLY), it keeps no dice: a million exploding dice
 * would otherwise hold a hundred million events.
 */
static bool roll_summable(const struct group *g)
{
	return g->keep.mode == KEEP_ALL && g->keep_by.op == CMP_NONE &&
	       g->success.op == CMP_NONE && g->unique == UNIQUE_NONE &&
	       !g->match && !g->match_count;
}

/* Summable, and every die rolled once: roll_sum()'s straight sum. */
static bool roll_plain(const struct group *g)
{
	return roll_summable(g) && g->reroll == REROLL_NONE &&
	       g->explode == EXPLODE_NONE;
}

static void add_event(struct group_roll *gr, val_t face, uint32_t slot,
		      uint32_t flags)
{
	const struct group *g = gr->g;

	if (gr->nev == gr->cap_ev) {
		gr->cap_ev = gr->cap_ev ? gr->cap_ev * 2 : 64;
		gr->ev = xrealloc(gr->ev, gr->cap_ev, sizeof(*gr->ev));
	}
	if (!(flags & EV_REROLLED)) {
		if (cmp_match(&g->crit_success, face))
			flags |= EV_CRIT_S;
		if (cmp_match(&g->crit_failure, face))
			flags |= EV_CRIT_F;
		if (flags & EV_PENETRATED)
			face--;
	}
	gr->ev[gr->nev++] = (struct roll_event){ face, slot, flags };
}

static void add_pool(struct group_roll *gr, val_t value, uint32_t slot,
		     uint32_t flags, size_t first, size_t nev)
{
	if (gr->npool == gr->cap_pool) {
		gr->cap_pool = gr->cap_pool ? gr->cap_pool * 2 : 64;
		gr->pool = xrealloc(gr->pool, gr->cap_pool, sizeof(*gr->pool));
	}
	gr->pool[gr->npool++] = (struct pool_die){ value, flags, slot, first, nev };
}

/* Ask the source for @count sides, in chunks, stopping on Ctrl-C. */
static int roll_get_sides(const struct roller *rl, const struct die *d,
			  uint64_t *out, size_t count)
{
	while (count) {
		size_t n = count < CHUNK ? count : CHUNK;
		int err;

		if (notation_interrupted())
			return -EINTR;
		err = rl->roll(rl->ctx, d, out, n);
		if (err)
			return err;
		out += n;
		count -= n;
	}
	return notation_interrupted() ? -EINTR : 0;
}

/* A plain group whose dice nobody will look at: just the sum. */
static int roll_sum(struct group_roll *gr, const struct roller *rl)
{
	const struct group *g = gr->g;
	uint64_t left = gr->count, *buf;
	val_t sum = 0;
	int err = 0;

	if (!left) {
		gr->value = 0;
		return 0;
	}
	buf = xmalloc((left < CHUNK ? left : CHUNK) * sizeof(*buf));
	while (left) {
		size_t n = left < CHUNK ? left : CHUNK, i;

		err = roll_get_sides(rl, &g->die, buf, n);
		if (err)
			break;
		for (i = 0; i < n; i++)
			sum += group_face(g, buf[i] - 1);
		left -= n;
	}
	xfree(buf);
	gr->value = sum;
	return err;
}

struct ranked {
	val_t value;
	size_t idx;
};

static int by_value_desc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;	/* earlier die first */
}

static int by_value_asc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Mark all but the @nkeep best of @order[0..n-1] (in the order they were
 * rolled, which breaks ties) with @flags.
 */
static void drop_worst(struct pool_die **order, size_t n, uint64_t nkeep,
		       enum keep_mode mode, uint32_t flags)
{
	struct ranked *rk;
	size_t i;

	if (mode == KEEP_ALL || nkeep >= n)
		return;
	rk = xmalloc(n * sizeof(*rk));
	for (i = 0; i < n; i++)
		rk[i] = (struct ranked){ order[i]->value, i };
	qsort(rk, n, sizeof(*rk), mode == KEEP_HIGH ? by_value_desc : by_value_asc);
	for (i = nkeep; i < n; i++)
		order[rk[i].idx]->flags |= flags;
	xfree(rk);
}

static void keep_dice(struct group_roll *gr)
{
	const struct group *g = gr->g;
	struct pool_die **order;
	size_t i;

	if (g->keep_by.op != CMP_NONE) {	/* k>3, p<2: each die alone */
		for (i = 0; i < gr->npool; i++) {
			if (cmp_match(&g->keep_by, gr->pool[i].value) ==
			    g->keep_by_drop)
				gr->pool[i].flags |= POOL_DROPPED;
		}
		return;
	}
	if (g->keep.mode == KEEP_ALL)
		return;
	order = xmalloc((gr->npool ? gr->npool : 1) * sizeof(*order));
	for (i = 0; i < gr->npool; i++)
		order[i] = &gr->pool[i];
	drop_worst(order, gr->npool, keep_count(&g->keep, gr->count),
		   g->keep.mode, POOL_DROPPED);
	xfree(order);
}

/* Put the events in slot order (stable: each slot's stay in time order). */
static void sort_events(struct group_roll *gr)
{
	uint64_t n = gr->count, s;
	size_t *start = xcalloc(n + 1, sizeof(*start)), i;
	struct roll_event *out = xmalloc((gr->nev ? gr->nev : 1) * sizeof(*out));

	for (i = 0; i < gr->nev; i++)
		start[gr->ev[i].slot + 1]++;
	for (s = 0; s < n; s++)
		start[s + 1] += start[s];
	for (i = 0; i < gr->nev; i++)
		out[start[gr->ev[i].slot]++] = gr->ev[i];
	xfree(start);
	xfree(gr->ev);
	gr->ev = out;
	gr->cap_ev = gr->nev ? gr->nev : 1;
}

static void build_pool(struct group_roll *gr)
{
	const struct group *g = gr->g;
	size_t i = 0, first;

	gr->npool = 0;
	while (i < gr->nev) {
		uint32_t slot = gr->ev[i].slot, extra = 0;
		val_t sum = 0;

		first = i;
		for (; i < gr->nev && gr->ev[i].slot == slot; i++) {
			if (gr->ev[i].flags & EV_REROLLED)
				continue;
			if (g->explode == EXPLODE_COMPOUND) {
				sum += gr->ev[i].face;
				continue;
			}
			add_pool(gr, gr->ev[i].face, slot, extra, first, i + 1 - first);
			extra = POOL_EXTRA;
			first = i + 1;
		}
		if (g->explode == EXPLODE_COMPOUND)
			add_pool(gr, sum, slot, 0, first, i - first);
	}
}

static int by_val(const void *a, const void *b)
{
	val_t x = *(const val_t *)a, y = *(const val_t *)b;

	return x < y ? -1 : x > y;
}

/* 'm'/'mt': mark the kept dice of values shown at least match_min times. */
static val_t roll_matches(struct group_roll *gr)
{
	const struct group *g = gr->g;
	val_t *v = xmalloc((gr->npool ? gr->npool : 1) * sizeof(*v)), sets = 0;
	size_t n = 0, i, j;

	for (i = 0; i < gr->npool; i++) {
		if (!(gr->pool[i].flags & POOL_DROPPED))
			v[n++] = gr->pool[i].value;
	}
	qsort(v, n, sizeof(*v), by_val);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i < g->match_min)
			continue;
		sets++;
		for (size_t k = 0; k < gr->npool; k++) {
			if (gr->pool[k].value == v[i] &&
			    !(gr->pool[k].flags & POOL_DROPPED))
				gr->pool[k].flags |= POOL_MATCHED;
		}
	}
	xfree(v);
	return sets;
}

static int roll_score(struct group_roll *gr)
{
	const struct group *g = gr->g;
	val_t v = 0;
	size_t i;

	for (i = 0; i < gr->npool; i++) {
		struct pool_die *p = &gr->pool[i];

		if (p->flags & POOL_DROPPED)
			continue;
		if (g->success.op == CMP_NONE) {
			if (__builtin_add_overflow(v, p->value, &v))
				return -EOVERFLOW;
		} else {
			int s = cmp_score(&g->success, &g->failure, p->value);

			if (s > 0)
				p->flags |= POOL_SUCCESS;
			else if (s < 0)
				p->flags |= POOL_FAILURE;
			v += s;
		}
	}
	if (g->match) {
		val_t sets = roll_matches(gr);

		if (g->match_count)
			v = sets;
	}
	gr->value = v;
	return 0;
}

static int pool_asc(const void *a, const void *b)
{
	const struct pool_die *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int pool_desc(const void *a, const void *b)
{
	const struct pool_die *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* A tiny set of values, for unique dice. */
struct vset {
	val_t *v;
	size_t n, cap;
	bool *used;
};

static size_t vset_slot(const struct vset *s, val_t v)
{
	uint64_t h = ((uint64_t)v ^ (uint64_t)(v >> 64)) * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 17) & (s->cap - 1);

	while (s->used[i] && s->v[i] != v)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool vset_has(const struct vset *s, val_t v)
{
	return s->cap && s->used[vset_slot(s, v)];
}

static void vset_add(struct vset *s, val_t v)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct vset g = { .cap = s->cap ? s->cap * 2 : 64 };

		g.v = xmalloc(g.cap * sizeof(*g.v));
		g.used = xcalloc(g.cap, sizeof(*g.used));
		for (i = 0; i < s->cap; i++) {
			if (s->used[i]) {
				size_t j = vset_slot(&g, s->v[i]);

				g.used[j] = true;
				g.v[j] = s->v[i];
				g.n++;
			}
		}
		xfree(s->v);
		xfree(s->used);
		*s = g;
	}
	i = vset_slot(s, v);
	if (!s->used[i]) {
		s->used[i] = true;
		s->v[i] = v;
		s->n++;
	}
}

/* Unique dice, one after another (they cannot explode). */
/* EV_RAISED or EV_LOWERED when min/max moved side @i to the face @f. */
static uint32_t roll_clamped(const struct group *g, uint64_t i, val_t f)
{
	val_t shown = die_face(&g->die, i);

	return f > shown ? EV_RAISED : f < shown ? EV_LOWERED : 0;
}

static int roll_unique(struct group_roll *gr, const struct roller *rl)
{
	const struct group *g = gr->g;
	struct vset seen = { 0 };
	uint64_t side;
	uint32_t slot;
	int err = 0;

	for (slot = 0; slot < gr->count; slot++) {
		bool ro_used = false, uo_used = false;

		for (;;) {
			uint32_t cl;
			val_t f;

			err = roll_get_sides(rl, &g->die, &side, 1);
			if (err)
				goto out;
			f = group_face(g, side - 1);
			cl = roll_clamped(g, side - 1, f);
			if (g->reroll != REROLL_NONE && !ro_used &&
			    cmp_any(g->rr, g->nrr, f)) {
				add_event(gr, f, slot, EV_REROLLED | cl);
				ro_used = g->reroll == REROLL_ONCE;
				continue;
			}
			if (vset_has(&seen, f) &&
			    (g->unique == UNIQUE_ALWAYS || !uo_used)) {
				add_event(gr, f, slot, EV_REROLLED | EV_UNIQUE | cl);
				uo_used = true;
				ro_used = false;
				continue;
			}
			add_event(gr, f, slot, cl);
			vset_add(&seen, f);
			break;
		}
	}
out:
	xfree(seen.v);
	xfree(seen.used);
	return err;
}

int roll_group_count(struct group_roll *gr, const struct roller *rl,
		     uint64_t count, int detail)
{
	const struct group *g = gr->g;
	uint32_t *pending, *next, *extras;
	uint8_t *ro_used;
	uint64_t *sides = NULL;
	size_t npending = count, nnext, i;
	bool sum_only;
	val_t sum = 0;
	int err = 0;
	/*
	 * Avrae's ra (add_once): the first die that matches, in the order
	 * rolled, adds the one die; d20 takes the first of its selection
	 * (SetOperator.explode_once(), SetSelector.select() with
	 * max_targets=1, d20/expression.py).  The added die is rolled in
	 * the next pass, with extras[slot] at its limit of 1, so it adds
	 * nothing.
	 */
	bool ra_used = false;

	gr->nev = 0;
	gr->npool = 0;
	gr->value = 0;
	gr->count = count;
	if (!detail && !gr->need_pool && roll_plain(g))
		return roll_sum(gr, rl);
	sum_only = !detail && !gr->need_pool && roll_summable(g);
	if (g->unique != UNIQUE_NONE) {
		err = roll_unique(gr, rl);
		if (err)
			return err;
		goto done;
	}
	if (!count)
		goto done;

	pending = xmalloc(count * sizeof(*pending));
	next = xmalloc(count * sizeof(*next));
	extras = xcalloc(count, sizeof(*extras));
	ro_used = xcalloc(count, sizeof(*ro_used));
	sides = xmalloc((count < CHUNK ? count : CHUNK) * sizeof(*sides));
	for (i = 0; i < count; i++)
		pending[i] = (uint32_t)i;

	while (npending) {
		size_t done = 0;

		nnext = 0;
		while (done < npending) {
			size_t n = npending - done < CHUNK ? npending - done : CHUNK;

			err = roll_get_sides(rl, &g->die, sides, n);
			if (err)
				goto out;
			for (i = 0; i < n; i++) {
				uint32_t slot = pending[done + i];
				val_t f = group_face(g, sides[i] - 1);
				uint32_t flags = (g->penetrate && extras[slot] ?
						  EV_PENETRATED : 0) |
						 roll_clamped(g, sides[i] - 1, f);

				if (g->reroll != REROLL_NONE && !ro_used[slot] &&
				    cmp_any(g->rr, g->nrr, f)) {
					if (!sum_only)
						add_event(gr, f, slot,
							  EV_REROLLED | flags);
					if (g->reroll == REROLL_ONCE)
						ro_used[slot] = 1;
					next[nnext++] = slot;
					continue;
				}
				ro_used[slot] = 0;
				if (g->explode != EXPLODE_NONE &&
				    cmp_match(&g->ex, f) &&
				    extras[slot] < g->explode_limit &&
				    !(g->add_once && ra_used)) {
					flags |= EV_EXPLODED;
					extras[slot]++;
					ra_used = g->add_once;
					next[nnext++] = slot;
				}
				if (!sum_only) {
					add_event(gr, f, slot, flags);
					continue;
				}
				/* As add_event() and build_pool() count it. */
				if (flags & EV_PENETRATED)
					f--;
				if (__builtin_add_overflow(sum, f, &sum)) {
					err = -EOVERFLOW;
					goto out;
				}
			}
			done += n;
		}
		memcpy(pending, next, nnext * sizeof(*pending));
		npending = nnext;
	}
out:
	xfree(pending);
	xfree(next);
	xfree(extras);
	xfree(ro_used);
	xfree(sides);
	if (err)
		return err;
	if (sum_only) {
		gr->value = sum;
		return 0;
	}
	sort_events(gr);
done:
	build_pool(gr);
	keep_dice(gr);
	err = roll_score(gr);
	if (!err && g->sort != SORT_NONE && detail && gr->npool)
		qsort(gr->pool, gr->npool, sizeof(*gr->pool),
		      g->sort == SORT_ASC ? pool_asc : pool_desc);
	return err;
}

/* ---- evaluation ----------------------------------------------------------- */

static int roll_eval(const struct node *n, struct roll_result *r, val_t *v);

/*
 * floor(@a / @b) into *@q, and the remainder that goes with it (the sign
 * of @b's, or 0) into *@r.  Only VAL_MIN / -1 overflows.
 */
static int roll_floor_div(val_t a, val_t b, val_t *q, val_t *r)
{
	if (!b)
		return -EDOM;
	if (a == VAL_MIN && b == -1)
		return -EOVERFLOW;
	*q = a / b;
	*r = a % b;
	if (*r && ((*r < 0) != (b < 0))) {
		(*q)--;		/* |q| < |a| here: no overflow */
		*r += b;
	}
	return 0;
}

static unsigned __int128 val_abs(val_t v)
{
	return v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
}

int roll_pow(val_t a, val_t e, val_t *out)
{
	val_t r = 1;

	if (e < 0)
		return -EDOM;
	if (a == 0 || a == 1 || a == -1) {	/* no loop for 1^(2^60) */
		*out = a == 0 ? (e == 0) : a == 1 || !(e & 1) ? 1 : -1;
		return 0;
	}
	while (e) {
		if ((e & 1) && __builtin_mul_overflow(r, a, &r))
			return -EOVERFLOW;
		e >>= 1;
		if (e && __builtin_mul_overflow(a, a, &a))
			return -EOVERFLOW;
	}
	*out = r;
	return 0;
}

/*
 * Exact from the floor quotient and its remainder r, which has b's sign:
 * a / b = q + r / b with 0 <= r / b < 1.  No intermediate 2a or 2b, so a
 * quotient that fits never overflows (only VAL_MIN / -1 does not fit).
 */
int div_round(enum func_type f, val_t a, val_t b, val_t *q)
{
	val_t r;
	int err = roll_floor_div(a, b, q, &r);

	if (err || !r)
		return err;
	switch (f) {
	case FUNC_CEIL:
		(*q)++;
		break;
	case FUNC_ROUND:
		/* up when r / b >= 1/2: |r| >= |b| - |r| */
		if (val_abs(r) >= val_abs(b) - val_abs(r))
			(*q)++;
		break;
	default:
		break;
	}
	return 0;
}

static int roll_eval_brace(const struct node *n, struct roll_result *r, val_t *v)
{
	const struct brace *b = n->brace;
	struct brace_roll *br = &r->braces[b->index];
	val_t sum = 0;
	unsigned int i;
	size_t k, np = 0;
	int err;

	if (!b->pooled) {
		struct pool_die *tmp, **order;

		if (br->n < n->nkids) {
			br->values = xrealloc(br->values, n->nkids, sizeof(*br->values));
			br->flags = xrealloc(br->flags, n->nkids, sizeof(*br->flags));
		}
		br->n = n->nkids;
		tmp = xcalloc(n->nkids, sizeof(*tmp));
		order = xmalloc(n->nkids * sizeof(*order));
		for (i = 0; i < n->nkids; i++) {
			err = roll_eval(n->kids[i], r, &br->values[i]);
			if (err) {
				xfree(tmp);
				xfree(order);
				return err;
			}
			tmp[i].value = br->values[i];
			order[i] = &tmp[i];
		}
		drop_worst(order, n->nkids, keep_count(&b->keep, n->nkids),
			   b->keep.mode, POOL_DROPPED);
		for (i = 0; i < n->nkids; i++) {
			uint32_t fl = tmp[i].flags & POOL_DROPPED ? ELEM_DROPPED : 0;

			if (!fl && b->success.op != CMP_NONE) {
				int s = cmp_score(&b->success, &b->failure,
						  tmp[i].value);

				if (s > 0)
					fl = ELEM_SUCCESS;
				else if (s < 0)
					fl = ELEM_FAILURE;
				sum += s;
			} else if (!fl && __builtin_add_overflow(sum, tmp[i].value, &sum)) {
				xfree(tmp);
				xfree(order);
				return -EOVERFLOW;
			}
			br->flags[i] = fl;
		}
		xfree(tmp);
		xfree(order);
		br->value = *v = sum;
		return 0;
	}

	/* pooled: the kept dice of its groups */
	{
		struct pool_die **order;
		uint64_t ndice = 0;

		for (i = 0; i < b->ngroups; i++) {
			np += r->groups[b->groups[i]->index].npool;
			ndice += r->groups[b->groups[i]->index].count;
		}
		order = xmalloc((np ? np : 1) * sizeof(*order));
		np = 0;
		for (i = 0; i < b->ngroups; i++) {
			struct group_roll *gr = &r->groups[b->groups[i]->index];

			for (k = 0; k < gr->npool; k++) {
				if (!(gr->pool[k].flags & POOL_DROPPED))
					order[np++] = &gr->pool[k];
			}
		}
		/* ties: the earlier die first, and order[] is in text order */
		drop_worst(order, np, keep_count(&b->keep, ndice), b->keep.mode,
			   POOL_DROPPED | POOL_BRACE_DROP);
		sum = b->success.op == CMP_NONE ? b->constant : 0;
		for (k = 0; k < np; k++) {
			struct pool_die *p = order[k];

			if (p->flags & POOL_DROPPED)
				continue;
			if (b->success.op != CMP_NONE) {
				int s = cmp_score(&b->success, &b->failure,
						  p->value);

				if (s > 0)
					p->flags |= POOL_SUCCESS;
				else if (s < 0)
					p->flags |= POOL_FAILURE;
				sum += s;
			} else if (__builtin_add_overflow(sum, p->value, &sum)) {
				xfree(order);
				return -EOVERFLOW;
			}
		}
		xfree(order);
	}
	br->value = *v = sum;
	return 0;
}

static int roll_eval(const struct node *n, struct roll_result *r, val_t *v)
{
	val_t a, b;
	unsigned int i;
	int err;

	switch (n->type) {
	case NODE_CONST:
		*v = n->value;
		return 0;
	case NODE_GROUP:
		*v = group_margin(n->group, r->groups[n->group->index].value);
		return 0;
	case NODE_NEG:
		err = roll_eval(n->kids[0], r, &a);
		if (err)
			return err;
		if (a == VAL_MIN)
			return -EOVERFLOW;
		*v = -a;
		return 0;
	case NODE_SUM:
		a = 0;
		for (i = 0; i < n->nkids; i++) {
			err = roll_eval(n->kids[i], r, &b);
			if (err)
				return err;
			if (n->ops[i] == '-' ? __builtin_sub_overflow(a, b, &a) :
			    __builtin_add_overflow(a, b, &a))
				return -EOVERFLOW;
		}
		*v = a;
		return 0;
	case NODE_PRODUCT:
		err = roll_eval(n->kids[0], r, &a);
		for (i = 1; !err && i < n->nkids; i++) {
			err = roll_eval(n->kids[i], r, &b);
			if (err)
				break;
			if (n->ops[i] == '%') {
				if (!b)
					return -EDOM;
				a = b == -1 ? 0 : a % b;
			} else if (__builtin_mul_overflow(a, b, &a)) {
				return -EOVERFLOW;
			}
		}
		*v = a;
		return err;
	case NODE_POW:
		err = roll_eval(n->kids[0], r, &a);
		if (!err)
			err = roll_eval(n->kids[1], r, &b);
		return err ? err : roll_pow(a, b, v);
	case NODE_FUNC:
		err = roll_eval(n->kids[0], r, &a);
		if (err)
			return err;
		if (n->func == FUNC_MAX || n->func == FUNC_MIN) {
			for (i = 1; i < n->nkids; i++) {
				err = roll_eval(n->kids[i], r, &b);
				if (err)
					return err;
				if (n->func == FUNC_MAX ? b > a : b < a)
					a = b;
			}
			*v = a;
			return 0;
		}
		if (n->nkids == 2) {
			err = roll_eval(n->kids[1], r, &b);
			return err ? err : div_round(n->func, a, b, v);
		}
		if (n->func == FUNC_ABS) {
			if (a == VAL_MIN)
				return -EOVERFLOW;
			a = a < 0 ? -a : a;
		}
		*v = a;
		return 0;
	case NODE_BRACE:
		return roll_eval_brace(n, r, v);
	case NODE_CMP:
		err = roll_eval(n->kids[0], r, &a);
		if (!err)
			err = roll_eval(n->kids[1], r, &b);
		if (err)
			return err;
		*v = node_cmp_holds(n, a, b);
		return 0;
	}
	return -EINVAL;
}

int roll_node_value(const struct node *n, const struct roll_result *r,
		    val_t *v)
{
	/* every group is rolled already: evaluating again rolls nothing */
	return roll_eval(n, (struct roll_result *)r, v);
}

int roll_expr(const struct expr *e, const struct roller *rl,
	      struct roll_result *r)
{
	unsigned int i;
	int err;

	for (i = 0; i < e->ngroups; i++) {
		const struct group *g = e->groups[i];
		uint64_t count = g->count;

		if (g->count_node) {
			val_t c;

			err = roll_eval(g->count_node, r, &c);
			if (err)
				return err;
			if (c < 0 || c > (val_t)g->count)
				return -ERANGE;
			count = (uint64_t)c;
		}
		err = roll_group_count(&r->groups[i], rl, count, r->detail);
		if (err)
			return err;
	}
	return roll_eval(e->root, r, &r->total);
}
