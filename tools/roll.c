// SPDX-License-Identifier: GPL-2.0
/*
 * roll.c - roll a parsed expression through a roll_source
 *
 * One die of a group ("slot") goes through these steps, which dist.c
 * mirrors exactly:
 *   1. roll a face;
 *   2. rerolls: with 'r', roll again while the face matches a rule; with
 *      'ro', roll again once if it matches, and keep the new face;
 *   3. explosions: while the face (after step 2) matches the explode rule
 *      and the die has exploded fewer than explode_limit times, roll one
 *      more face, through step 2 as well.  '!' puts each new face in the
 *      pool as a die of its own, '!!' adds it to the same die;
 *   4. keep/drop then picks dice of the pool by value (ties: the earlier
 *      die is kept first), and the group's value is the sum of the kept
 *      dice, or, with a success target, the number of kept dice that meet
 *      it less those that meet the failure target.
 * The dice of a group are rolled side by side, in rounds: every die that
 * needs a face in this round gets it from one call to the source.  Faces
 * are independent, so this gives the same distribution as rolling each
 * die to the end in turn, with far fewer calls.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "roll.h"

#define CHUNK	65536	/* sides asked of the source per call */

void roll_init(struct roll_result *r, const struct expr *e, int detail)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->ngroups = e->ngroups;
	r->groups = xcalloc(e->ngroups, sizeof(*r->groups));
	r->detail = detail;
	for (i = 0; i < e->ngroups; i++)
		r->groups[i].g = e->groups[i];
}

void roll_free(struct roll_result *r)
{
	unsigned int i;

	for (i = 0; i < r->ngroups; i++) {
		free(r->groups[i].ev);
		free(r->groups[i].pool);
	}
	free(r->groups);
	memset(r, 0, sizeof(*r));
}

static bool plain(const struct group *g)
{
	return g->reroll == REROLL_NONE && g->explode == EXPLODE_NONE &&
	       g->keep == KEEP_ALL && g->success.op == CMP_NONE;
}

static void add_event(struct group_roll *gr, val_t face, uint32_t slot,
		      uint32_t flags)
{
	if (gr->nev == gr->cap_ev) {
		gr->cap_ev = gr->cap_ev ? gr->cap_ev * 2 : 64;
		gr->ev = xrealloc(gr->ev, gr->cap_ev, sizeof(*gr->ev));
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
static int get_sides(const struct roll_source *src, const struct die *d,
		     uint64_t *out, size_t count)
{
	while (count) {
		size_t n = count < CHUNK ? count : CHUNK;
		int err;

		if (dice_interrupted)
			return -EINTR;
		err = src->roll(src->ctx, d, out, n);
		if (err)
			return err;
		out += n;
		count -= n;
	}
	return dice_interrupted ? -EINTR : 0;
}

/* A plain group whose dice nobody will look at: just the sum. */
static int roll_sum(struct group_roll *gr, const struct roll_source *src)
{
	const struct group *g = gr->g;
	uint64_t left = g->count, *buf = xmalloc(CHUNK * sizeof(*buf));
	val_t sum = 0;
	int err = 0;

	while (left) {
		size_t n = left < CHUNK ? left : CHUNK, i;

		err = get_sides(src, &g->die, buf, n);
		if (err)
			break;
		for (i = 0; i < n; i++)
			sum += die_face(&g->die, buf[i] - 1);
		left -= n;
		gr->rolled += n;
	}
	free(buf);
	gr->value = sum;
	return err;
}

static int by_value_desc(const void *a, const void *b)
{
	const struct pool_die *x = *(struct pool_die *const *)a;
	const struct pool_die *y = *(struct pool_die *const *)b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x < y ? -1 : x > y;	/* earlier die first */
}

static int by_value_asc(const void *a, const void *b)
{
	const struct pool_die *x = *(struct pool_die *const *)a;
	const struct pool_die *y = *(struct pool_die *const *)b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void keep_dice(struct group_roll *gr)
{
	const struct group *g = gr->g;
	struct pool_die **order;
	size_t i;

	if (g->keep == KEEP_ALL || g->nkeep >= gr->npool)
		return;
	order = xmalloc(gr->npool * sizeof(*order));
	for (i = 0; i < gr->npool; i++)
		order[i] = &gr->pool[i];
	qsort(order, gr->npool, sizeof(*order),
	      g->keep == KEEP_HIGH ? by_value_desc : by_value_asc);
	for (i = g->nkeep; i < gr->npool; i++)
		order[i]->flags |= POOL_DROPPED;
	free(order);
}

/* Put the events in slot order (stable: each slot's stay in time order). */
static void sort_events(struct group_roll *gr)
{
	uint64_t n = gr->g->count, s;
	size_t *start = xcalloc(n + 1, sizeof(*start)), i;
	struct roll_event *out = xmalloc((gr->nev ? gr->nev : 1) * sizeof(*out));

	for (i = 0; i < gr->nev; i++)
		start[gr->ev[i].slot + 1]++;
	for (s = 0; s < n; s++)
		start[s + 1] += start[s];
	for (i = 0; i < gr->nev; i++)
		out[start[gr->ev[i].slot]++] = gr->ev[i];
	free(start);
	free(gr->ev);
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

static int score(struct group_roll *gr)
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
		} else if (cmp_match(&g->success, p->value)) {
			p->flags |= POOL_SUCCESS;
			v++;
		} else if (cmp_match(&g->failure, p->value)) {
			p->flags |= POOL_FAILURE;
			v--;
		}
	}
	gr->value = v;
	return 0;
}

static int roll_group(struct group_roll *gr, const struct roll_source *src,
		      int detail)
{
	const struct group *g = gr->g;
	uint32_t *pending, *next, *extras;
	uint8_t *ro_used;
	uint64_t *sides = NULL;
	size_t npending = g->count, nnext, i;
	int err = 0;

	gr->nev = 0;
	gr->npool = 0;
	gr->value = 0;
	gr->rolled = 0;
	if (!detail && plain(g))
		return roll_sum(gr, src);

	pending = xmalloc(g->count * sizeof(*pending));
	next = xmalloc(g->count * sizeof(*next));
	extras = xcalloc(g->count, sizeof(*extras));
	ro_used = xcalloc(g->count, sizeof(*ro_used));
	sides = xmalloc((g->count < CHUNK ? g->count : CHUNK) * sizeof(*sides));
	for (i = 0; i < g->count; i++)
		pending[i] = (uint32_t)i;

	while (npending) {
		size_t done = 0;

		nnext = 0;
		while (done < npending) {
			size_t n = npending - done < CHUNK ? npending - done : CHUNK;

			err = get_sides(src, &g->die, sides, n);
			if (err)
				goto out;
			gr->rolled += n;
			for (i = 0; i < n; i++) {
				uint32_t slot = pending[done + i];
				val_t f = die_face(&g->die, sides[i] - 1);
				bool rr = g->reroll != REROLL_NONE &&
					  !ro_used[slot] &&
					  cmp_match(&g->rr[0], f);
				unsigned int k;

				for (k = 1; !rr && g->reroll != REROLL_NONE &&
				     !ro_used[slot] && k < g->nrr; k++)
					rr = cmp_match(&g->rr[k], f);
				if (rr) {
					add_event(gr, f, slot, EV_REROLLED);
					if (g->reroll == REROLL_ONCE)
						ro_used[slot] = 1;
					next[nnext++] = slot;
					continue;
				}
				ro_used[slot] = 0;
				if (g->explode != EXPLODE_NONE &&
				    cmp_match(&g->ex, f) &&
				    extras[slot] < g->explode_limit) {
					add_event(gr, f, slot, EV_EXPLODED);
					extras[slot]++;
					next[nnext++] = slot;
					continue;
				}
				add_event(gr, f, slot, 0);
			}
			done += n;
		}
		memcpy(pending, next, nnext * sizeof(*pending));
		npending = nnext;
	}
	sort_events(gr);
	build_pool(gr);
	keep_dice(gr);
	err = score(gr);
out:
	free(pending);
	free(next);
	free(extras);
	free(ro_used);
	free(sides);
	return err;
}

static int eval(const struct node *n, const struct roll_result *r, val_t *v)
{
	val_t a, b;
	int err;

	switch (n->type) {
	case NODE_CONST:
		*v = n->value;
		return 0;
	case NODE_GROUP:
		*v = r->groups[n->group->index].value;
		return 0;
	case NODE_NEG:
		err = eval(n->l, r, &a);
		if (err)
			return err;
		if (a == VAL_MIN)
			return -EOVERFLOW;
		*v = -a;
		return 0;
	default:
		break;
	}
	err = eval(n->l, r, &a);
	if (!err)
		err = eval(n->r, r, &b);
	if (err)
		return err;
	switch (n->type) {
	case NODE_ADD:
		return __builtin_add_overflow(a, b, v) ? -EOVERFLOW : 0;
	case NODE_SUB:
		return __builtin_sub_overflow(a, b, v) ? -EOVERFLOW : 0;
	default:
		return __builtin_mul_overflow(a, b, v) ? -EOVERFLOW : 0;
	}
}

int roll_expr(const struct expr *e, const struct roll_source *src,
	      struct roll_result *r)
{
	unsigned int i;
	int err;

	for (i = 0; i < e->ngroups; i++) {
		err = roll_group(&r->groups[i], src, r->detail);
		if (err)
			return err;
	}
	return eval(e->root, r, &r->total);
}
