// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api_roll.c - struct dice_result: one roll of an expression through a
 * libdice handle, its total, flags, text, and its groups and dice
 * (<dice_notation.h>)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dice.h>

#include "api.h"
#include "breakdown.h"
#include "roll_json.h"

/**
 * struct handle_roller - a libdice handle behind roll.c's struct roller
 * @d: the handle
 * @configured: @sides and @weights describe the die @d rolls now
 * @sides: its sides
 * @weights: its weights (NULL: fair)
 *
 * The die is set on the handle at the first die of each roll and again
 * only when the die changes, as dice(1) does, so that a seeded handle
 * gives dice(1)'s faces for the same seed (dice --seed); dice_expr_rolls()
 * keeps one for all its rolls, as dice(1) does between NxEXPR's rolls.
 */
struct handle_roller {
	struct dice *d;
	bool configured;
	uint64_t sides;
	const uint32_t *weights;
};

static int handle_roll(void *arg, const struct die *die, uint64_t *out,
		       size_t count)
{
	struct handle_roller *h = arg;
	const uint32_t *w = die->type == DIE_CUSTOM ? die->weights : NULL;
	int err;

	if (!h->configured || h->sides != die->sides || !w != !h->weights ||
	    (w && w != h->weights &&
	     memcmp(w, h->weights, die->sides * sizeof(*w)))) {
		h->configured = false;
		if (w)
			err = dice_set_weights(h->d, w, (uint32_t)die->sides);
		else
			err = dice_set_sides(h->d, die->sides);
		if (err)
			return err;
		h->configured = true;
		h->sides = die->sides;
		h->weights = w;
	}
	return dice_roll(h->d, out, count, NULL);
}

/* A dice_source_fn behind roll.c's struct roller. */
struct source_roller {
	dice_source_fn fn;
	void *arg;
};

/*
 * The caller's faces index the die's tables: one outside 1..sides is the
 * source's bug, refused here rather than read past a table.
 */
static int source_roll(void *arg, const struct die *die, uint64_t *out,
		       size_t count)
{
	const struct source_roller *s = arg;
	size_t i;
	int err;

	err = s->fn(s->arg, die->sides,
		    die->type == DIE_CUSTOM ? die->weights : NULL, out, count);
	if (err)
		return err < 0 ? err : -EINVAL;
	for (i = 0; i < count; i++) {
		if (out[i] < 1 || out[i] > die->sides)
			return -ERANGE;
	}
	return 0;
}

/* One roll of @e with sides from @rl, into a new *@out. */
static int roll_with(struct dice_notation *ctx, const struct dice_expr *e,
		     const struct roller *rl, int detail,
		     struct dice_result **out)
{
	struct notation_call call;
	struct dice_result *res;
	int err;

	api_call_enter(&call, ctx);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	res = xcalloc(1, sizeof(*res));
	res->e = e->roll;
	roll_init(&res->r, res->e, detail);
	err = roll_expr(res->e, rl, &res->r);
	notation_call_leave(&call);
	if (err) {
		dice_result_free(res);
		return err;
	}
	*out = res;
	return 0;
}

DICE_NOTATION_EXPORT int dice_expr_rolls(struct dice_notation *ctx,
					 const struct dice_expr *e,
					 struct dice *d,
					 struct dice_result **out,
					 size_t count)
{
	struct handle_roller h = { .d = d };
	size_t i;
	int err = 0;

	if (!ctx || !e || !d || !out || !count)
		return -EINVAL;
	for (i = 0; i < count; i++)
		out[i] = NULL;		/* all of them, whatever fails */
	/* one handle_roller for every roll: the die stays set between them */
	for (i = 0; i < count; i++) {
		err = roll_with(ctx, e, &(struct roller){ handle_roll, &h }, 1,
				&out[i]);
		if (err)
			break;
	}
	if (err) {
		while (i--) {
			dice_result_free(out[i]);
			out[i] = NULL;
		}
	}
	return err;
}

DICE_NOTATION_EXPORT int dice_expr_roll(struct dice_notation *ctx,
					const struct dice_expr *e,
					struct dice *d,
					struct dice_result **out)
{
	/* one roll is NxEXPR's rolls with N = 1 */
	return dice_expr_rolls(ctx, e, d, out, 1);
}

DICE_NOTATION_EXPORT int dice_expr_roll_source(struct dice_notation *ctx,
					       const struct dice_expr *e,
					       dice_source_fn source,
					       void *arg, unsigned int flags,
					       struct dice_result **out)
{
	struct source_roller s = { source, arg };

	if (!ctx || !e || !source || !out || (flags & ~DICE_ROLL_TOTAL_ONLY))
		return -EINVAL;
	return roll_with(ctx, e, &(struct roller){ source_roll, &s },
			 !(flags & DICE_ROLL_TOTAL_ONLY), out);
}

DICE_NOTATION_EXPORT void dice_result_free(struct dice_result *r)
{
	if (!r)
		return;
	roll_free(&r->r);
	xfree(r);
}

/* @v as int64_t in *@out: 0, or -ERANGE with *@out 0 (the _str has it). */
static int value_i64(val_t v, int64_t *out)
{
	if (v > INT64_MAX || v < INT64_MIN) {
		*out = 0;
		return -ERANGE;
	}
	*out = (int64_t)v;
	return 0;
}

DICE_NOTATION_EXPORT int dice_result_total(const struct dice_result *r,
					   int64_t *total)
{
	int64_t v;
	int err;

	if (!r || !total)
		return -EINVAL;
	/* *total untouched past int64_t, as documented. */
	err = value_i64(r->r.total, &v);
	if (!err)
		*total = v;
	return err;
}

/* @v in decimal into @buf of @len bytes: 0 or -ENOSPC. */
static int value_str(val_t v, char *buf, size_t len)
{
	char tmp[VAL_BUFSZ];

	val_str(v, tmp);
	if (strlen(tmp) >= len)
		return -ENOSPC;
	memcpy(buf, tmp, strlen(tmp) + 1);
	return 0;
}

DICE_NOTATION_EXPORT int dice_result_total_str(const struct dice_result *r,
					       char *buf, size_t len)
{
	if (!r || !buf)
		return -EINVAL;
	return value_str(r->r.total, buf, len);
}

/*
 * The marks of a kept die: those of 'cs' and 'cf' when its group has
 * either, else Roll20's default: the die's highest face is a critical
 * success, its lowest a critical failure.
 */
static int die_flags(const struct group_roll *gr, const struct pool_die *p)
{
	const struct group *g = gr->g;
	const struct roll_event *ev = gr->ev + p->first;
	bool marked = g->crit_success.op != CMP_NONE ||
		      g->crit_failure.op != CMP_NONE;
	int flags = 0;
	size_t i;

	for (i = 0; i < p->nev; i++) {
		if (ev[i].flags & EV_REROLLED)
			continue;
		if (marked) {
			if (ev[i].flags & EV_CRIT_S)
				flags |= DICE_RESULT_CRITICAL;
			if (ev[i].flags & EV_CRIT_F)
				flags |= DICE_RESULT_FUMBLE;
		} else if (die_min(&g->die) < die_max(&g->die)) {
			/* its first face, as the die showed it */
			if (ev[i].face == die_max(&g->die))
				flags |= DICE_RESULT_CRITICAL;
			if (ev[i].face == die_min(&g->die))
				flags |= DICE_RESULT_FUMBLE;
			break;
		}
	}
	return flags;
}

DICE_NOTATION_EXPORT int dice_result_flags(const struct dice_result *r)
{
	int flags = 0;
	unsigned int g;
	size_t i;

	if (!r)
		return -EINVAL;
	for (g = 0; g < r->r.ngroups; g++) {
		const struct group_roll *gr = &r->r.groups[g];

		for (i = 0; i < gr->npool; i++) {
			if (!(gr->pool[i].flags & POOL_DROPPED))
				flags |= die_flags(gr, &gr->pool[i]);
		}
	}
	return flags;
}

DICE_NOTATION_EXPORT int dice_result_text(const struct dice_result *r,
					  int format, char **out)
{
	static const enum breakdown_format formats[] = {
		[DICE_TEXT_TOTAL] = BREAKDOWN_TOTAL,
		[DICE_TEXT_BREAKDOWN] = BREAKDOWN_TEXT,
		[DICE_TEXT_MARKDOWN] = BREAKDOWN_MARKDOWN,
	};
	struct notation_call call;
	char *buf = NULL;
	size_t len = 0;
	int failed;
	FILE *f;

	if (!r || !out || format < DICE_TEXT_TOTAL || format > DICE_TEXT_JSON)
		return -EINVAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		fclose(f);
		free(buf);
		return -ENOMEM;
	}
	if (format == DICE_TEXT_JSON)
		roll_json(f, r->e, &r->r);
	else
		breakdown_print(f, r->e, &r->r, formats[format]);
	notation_call_leave(&call);
	/*
	 * A write that failed sets the error flag, which fclose() ignores;
	 * and when its last realloc() fails, it frees the text and leaves
	 * @buf NULL.
	 */
	failed = ferror(f);
	if (fclose(f) || failed || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

DICE_NOTATION_EXPORT unsigned int
dice_result_ngroups(const struct dice_result *r)
{
	return r ? r->r.ngroups : 0;
}

static const struct group_roll *result_group(const struct dice_result *r,
					     unsigned int i)
{
	return r && i < r->r.ngroups ? &r->r.groups[i] : NULL;
}

DICE_NOTATION_EXPORT int dice_result_group(const struct dice_result *r,
					   unsigned int i,
					   struct dice_result_group *group)
{
	const struct group_roll *gr = result_group(r, i);

	if (!gr || !group)
		return -EINVAL;
	group->start = gr->g->start;
	group->end = gr->g->end;
	group->ndice = gr->npool;
	group->nfaces = gr->nev;
	return value_i64(gr->value, &group->value);
}

DICE_NOTATION_EXPORT int dice_result_group_str(const struct dice_result *r,
					       unsigned int i, char *buf,
					       size_t len)
{
	const struct group_roll *gr = result_group(r, i);

	if (!gr || !buf)
		return -EINVAL;
	return value_str(gr->value, buf, len);
}

DICE_NOTATION_EXPORT int dice_result_face_str(const struct dice_result *r,
					      unsigned int group, size_t i,
					      char *buf, size_t len)
{
	const struct group_roll *gr = result_group(r, group);

	if (!gr || !buf)
		return -EINVAL;
	if (i >= gr->nev)
		return -ENOENT;		/* past the last: callers may count so */
	return value_str(gr->ev[i].face, buf, len);
}

DICE_NOTATION_EXPORT int dice_result_die(const struct dice_result *r,
					 unsigned int group, size_t i,
					 struct dice_result_die *die)
{
	const struct group_roll *gr = result_group(r, group);
	const struct roll_event *ev;
	const struct pool_die *p;
	size_t k;

	if (!gr || i >= gr->npool || !die)
		return -EINVAL;
	p = &gr->pool[i];
	die->flags = (p->flags & POOL_DROPPED ? DICE_DIE_DROPPED : 0) |
		     (p->flags & POOL_EXTRA ? DICE_DIE_EXTRA : 0) |
		     (p->flags & POOL_SUCCESS ? DICE_DIE_SUCCESS : 0) |
		     (p->flags & POOL_FAILURE ? DICE_DIE_FAILURE : 0);
	ev = gr->ev + p->first;
	for (k = 0; k < p->nev; k++) {
		if (ev[k].flags & EV_REROLLED)
			die->flags |= DICE_DIE_REROLLED;
		if (ev[k].flags & EV_EXPLODED)
			die->flags |= DICE_DIE_EXPLODED;
	}
	if (die_flags(gr, p) & DICE_RESULT_CRITICAL)
		die->flags |= DICE_DIE_CRITICAL;
	if (die_flags(gr, p) & DICE_RESULT_FUMBLE)
		die->flags |= DICE_DIE_FUMBLE;
	return value_i64(p->value, &die->value);
}

DICE_NOTATION_EXPORT int dice_result_die_str(const struct dice_result *r,
					     unsigned int group, size_t i,
					     char *buf, size_t len)
{
	const struct group_roll *gr = result_group(r, group);

	if (!gr || i >= gr->npool || !buf)
		return -EINVAL;
	return value_str(gr->pool[i].value, buf, len);
}
