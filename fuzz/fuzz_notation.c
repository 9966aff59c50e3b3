// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_notation.c - libFuzzer target: libdice's notation engine (its parser,
 * libdice/notation/lex.c, parse.c, parse_group.c), and what the CLI does
 * next with a parsed expression
 *
 * The input, up to its first NUL, is one expression as typed on the command
 * line.  An input of odd length is parsed with a custom die for dW (faces
 * -3, 0, 5, 5, 7 with weights 1, 2, 0, 3, 1), an even one without.
 *
 * Checked:
 *  - notation_parse() returns 0 with an expression, or -1 with an error
 *    whose offset lies inside the text (or just past it) and whose message
 *    is a non-empty string; it never crashes, hangs or leaks (ASan, UBSan,
 *    LeakSanitizer);
 *  - a parsed expression is sane: its text is the input, repeat >= 1,
 *    ndice and repeat within max_dice, groups numbered left to right with
 *    byte ranges inside the text, a syntax tree whose nodes nest inside
 *    their parents' ranges;
 *  - when cheap: dist_expr() under small limits gives 0 or -E2BIG, and a
 *    distribution with positive counts and a positive denominator.  Its
 *    refusals unwind with longjmp() and free what was in flight
 *    (notation_release(), common.c), so LeakSanitizer checks that too;
 *  - roll_expr() with a pseudo-random source (every side of nonzero
 *    weight possible, a budget of sides so that rerolls cannot run for
 *    ever) succeeds or reports overflow or a division by zero, and when
 *    the distribution is known, the total it rolled has a positive
 *    probability in it (and neither can happen).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "dist.h"
#include "notation.h"
#include "roll.h"

#define MAX_TEXT	4096
#define MAX_DICE	1000
#define EXPLODE_LIMIT	20
#define SIDES_BUDGET	200000


static int64_t custom_faces[] = { -3, 0, 5, 5, 7 };
static uint32_t custom_weights[] = { 1, 2, 0, 3, 1 };
static const struct die custom = {
	.type = DIE_CUSTOM,
	.sides = 5,
	.faces = custom_faces,
	.weights = custom_weights,
	.weight_sum = 7,
};

struct prng {
	uint64_t s;
	uint64_t budget;
};

static uint64_t next(struct prng *p)
{
	uint64_t x = (p->s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Sides 1..sides, never one of weight zero; -ECANCELED past the budget. */
static int prng_roll(void *ctx, const struct die *d, uint64_t *out,
		     size_t count)
{
	struct prng *p = ctx;
	size_t i;

	CHECK(d->sides >= 1, "a die of no sides");
	if (count > p->budget)
		return -ECANCELED;
	p->budget -= count;
	for (i = 0; i < count; i++) {
		uint64_t s;

		do {
			s = next(p) % d->sides;
		} while (d->type == DIE_CUSTOM && d->weights &&
			 !d->weights[s]);
		out[i] = s + 1;
	}
	return 0;
}

static void check_node(const struct node *n, size_t lo, size_t hi,
		       unsigned int depth)
{
	if (!n)
		return;
	CHECK(depth < 100000, "syntax tree too deep");
	CHECK(lo <= n->start && n->start <= n->end && n->end <= hi,
	      "node [%zu, %zu) outside [%zu, %zu)", n->start, n->end, lo, hi);
	CHECK(n->lo <= n->hi, "bounds upside down");
	switch (n->type) {
	case NODE_CONST:
		CHECK(!n->nkids, "a constant with operands");
		break;
	case NODE_GROUP:
		CHECK(n->group && !n->nkids, "group node without a group");
		if (n->group->count_node)
			check_node(n->group->count_node, n->start, n->end,
				   depth + 1);
		break;
	case NODE_NEG:
		CHECK(n->nkids == 1, "negation with %u operands", n->nkids);
		break;
	case NODE_SUM:
	case NODE_PRODUCT:
		CHECK(n->nkids >= 2 && n->ops, "a chain of %u operands",
		      n->nkids);
		break;
	case NODE_FUNC:
		CHECK(n->nkids == 1 || (n->nkids == 2 && n->func != FUNC_ABS) ||
		      n->func == FUNC_MAX || n->func == FUNC_MIN,
		      "a function of %u operands", n->nkids);
		break;
	case NODE_POW:
		CHECK(n->nkids == 2 && n->kids[1]->lo >= 0,
		      "a power of %u operands or a negative exponent", n->nkids);
		break;
	case NODE_BRACE:
		CHECK(n->brace && n->nkids >= 1, "a brace without elements");
		break;
	case NODE_CMP:
		CHECK(n->nkids == 2 && n->lo >= 0 && n->hi <= 1 &&
		      n->cmp >= CMP_EQ && n->cmp <= CMP_GE &&
		      (!n->cmp_not || n->cmp == CMP_EQ),
		      "a comparison of %u operands, op %d", n->nkids,
		      (int)n->cmp);
		break;
	default:
		CHECK(0, "node type %d", (int)n->type);
	}
	for (unsigned int i = 0; i < n->nkids; i++)
		check_node(n->kids[i], n->start, n->end, depth + 1);
}

static void check_expr(const struct expr *e, const char *text, size_t len,
		       const struct notation_opts *o)
{
	uint64_t ndice = 0;
	unsigned int i;

	/* paste.c may write pasted characters in ASCII: then @typed is @text */
	CHECK(!strcmp(e->typed ? e->typed : e->text, text), "text changed");
	len = strlen(e->text);
	CHECK(e->repeat >= 1 && e->repeat <= o->max_dice, "repeat %llu",
	      (unsigned long long)e->repeat);
	CHECK(e->root, "no syntax tree");
	check_node(e->root, 0, len, 0);
	for (i = 0; i < e->ngroups; i++) {
		const struct group *g = e->groups[i];

		CHECK(g->index == i, "group %u numbered %u", i, g->index);
		CHECK(g->start < g->end && g->end <= len,
		      "group %u at [%zu, %zu) of %zu", i, g->start, g->end, len);
		/* numbered as they end: a computed count's groups come first */
		CHECK(i == 0 || e->groups[i - 1]->end <= g->end,
		      "groups out of order");
		CHECK(g->die.sides >= 1, "group %u: a die of no sides", i);
		CHECK(g->nrr <= DICE_MAX_REROLL_RULES, "%u reroll rules", g->nrr);
		CHECK(!e->uses_custom || o->custom, "dW without a custom die");
		ndice += g->count;
		CHECK(ndice <= o->max_dice, "%llu dice",
		      (unsigned long long)ndice);
	}
	CHECK(e->ndice == ndice, "ndice %llu, groups hold %llu",
	      (unsigned long long)e->ndice, (unsigned long long)ndice);
	CHECK(e->ndice <= o->max_dice / e->repeat || !e->ndice,
	      "%llu dice x %llu", (unsigned long long)e->ndice,
	      (unsigned long long)e->repeat);
}

/* The distribution, or -E2BIG; nothing stranded on the way survives. */
static int try_dist(const struct expr *e, struct dist *d)
{
	const struct dist_limits lim = { .max_values = 4096,
					 .max_work = 200000 };
	char why[256];
	int err;

	err = dist_expr(e, &lim, d, why, sizeof(why));
	CHECK(!err || err == -E2BIG, "dist_expr: %d", err);
	if (!err) {
		size_t i;
		int any = 0;

		CHECK(d->n >= 1, "an empty distribution");
		CHECK(!big_is_zero(&d->den), "zero denominator");
		for (i = 0; i < d->n; i++)
			any |= !big_is_zero(&d->c[i]);
		CHECK(any, "every count is zero");
		CHECK(!big_is_zero(&d->c[0]) && !big_is_zero(&d->c[d->n - 1]),
		      "not trimmed");
	} else {
		CHECK(why[0], "-E2BIG without a reason");
	}
	return err;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct notation_opts o = {
		.custom = (size & 1) ? &custom : NULL,
		.max_dice = MAX_DICE,
		.explode_limit = EXPLODE_LIMIT,
	};
	struct notation_error err;
	struct roll_result r;
	struct prng p;
	struct expr *e;
	struct dist d;
	size_t len, i;
	char *text;
	int ret, have_dist;

	if (size > MAX_TEXT)
		return -1;	/* not added to the corpus */
	len = strnlen((const char *)data, size);
	text = malloc(len + 1);
	CHECK(text, "out of memory");
	memcpy(text, data, len);
	text[len] = 0;

	memset(&err, 0x5a, sizeof(err));
	e = NULL;
	ret = notation_parse(text, &o, &e, &err);
	if (ret) {
		CHECK(ret == -1, "notation_parse returned %d", ret);
		CHECK(err.offset <= len, "error at %zu of %zu: %s", err.offset,
		      len, err.msg);
		CHECK(memchr(err.msg, 0, sizeof(err.msg)) && err.msg[0],
		      "no error message");
		free(text);
		return 0;
	}
	CHECK(e, "no expression");
	check_expr(e, text, len, &o);

	have_dist = !try_dist(e, &d);

	p.s = 0;
	for (i = 0; i < size; i++)
		p.s = p.s * 131 + data[i];
	p.budget = SIDES_BUDGET;
	roll_init(&r, e, (int)(size & 2));
	ret = roll_expr(e, &(struct roller){ prng_roll, &p }, &r);
	CHECK(!ret || ret == -EOVERFLOW || ret == -ECANCELED || ret == -EDOM,
	      "roll_expr: %d", ret);
	if (!ret && have_dist) {
		val_t off = r.total - d.lo;
		char buf[VAL_BUFSZ];

		CHECK(off >= 0 && off < (val_t)d.n && !big_is_zero(&d.c[off]),
		      "\"%s\" rolled %s, impossible in its distribution from %lld over %zu values",
		      text, val_str(r.total, buf), (long long)d.lo, d.n);
	}
	CHECK(!(ret == -EDOM && have_dist),
	      "\"%s\": division by zero, but its distribution has no zero divisor",
	      text);
	CHECK(!(ret == -EOVERFLOW && have_dist),
	      "\"%s\": roll overflowed, but its distribution fits 62 bits", text);
	roll_free(&r);
	if (have_dist)
		dist_free(&d);
	notation_free(e);
	free(text);
	return 0;
}

/* One call into the notation engine (common.h) per input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct notation_call call;
	int ret = 0;

	notation_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);	/* frees what the input held */
		return 0;
	}
	ret = fuzz_one(data, size);
	notation_call_leave(&call);
	return ret;
}
