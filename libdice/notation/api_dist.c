// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api_dist.c - struct dice_dist: the exact distribution of an expression,
 * its probabilities, statistics, and what versus and count make of it
 * (<dice_notation.h>)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "dist_priv.h"
#include "versus.h"

/* Most rolls dice_dist_count() takes: its work grows as their square. */
#define COUNT_MAX_ROLLS	100000U

/* A new object for @d (whose counts it takes), or NULL. */
static struct dice_dist *dist_wrap(struct dist *d)
{
	struct dice_dist *dd = calloc(1, sizeof(*dd));

	if (dd)
		dd->d = *d;
	else
		dist_free(d);
	return dd;
}

DICE_NOTATION_EXPORT int dice_expr_dist(struct dice_notation *ctx,
					const struct dice_expr *e,
					struct dice_dist **out,
					struct dice_notation_error *why)
{
	struct notation_call call;
	struct dist_report rep;
	struct dist d;
	int err;

	if (why)
		memset(why, 0, sizeof(*why));
	if (!ctx || !e || !out)
		return -EINVAL;
	api_call_enter(&call, ctx);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	err = dist_expr_report(e->dist, &ctx->lim, &d, &rep);
	notation_call_leave(&call);
	if (err) {
		if (err == -E2BIG && why) {
			why->offset = rep.offset;
			snprintf(why->message, sizeof(why->message), "%s",
				 rep.why);
		}
		return err;
	}
	*out = dist_wrap(&d);
	return *out ? 0 : -ENOMEM;
}

DICE_NOTATION_EXPORT void dice_dist_free(struct dice_dist *d)
{
	if (!d)
		return;
	dist_free(&d->d);
	free(d);
}

/* The count of the @i-th value whose probability is not zero, or NULL. */
static const struct big *nth_count(const struct dice_dist *d, size_t i,
				   int64_t *value)
{
	size_t k;

	for (k = 0; k < d->d.n; k++) {
		if (big_is_zero(&d->d.c[k]))
			continue;
		if (!i--) {
			if (value)
				*value = d->d.lo + (int64_t)k;
			return &d->d.c[k];
		}
	}
	return NULL;
}

DICE_NOTATION_EXPORT size_t dice_dist_size(const struct dice_dist *d)
{
	size_t k, n = 0;

	if (!d)
		return 0;
	for (k = 0; k < d->d.n; k++)
		n += !big_is_zero(&d->d.c[k]);
	return n;
}

DICE_NOTATION_EXPORT int dice_dist_value(const struct dice_dist *d, size_t i,
					 int64_t *value)
{
	if (!d || !value)
		return -EINVAL;
	return nth_count(d, i, value) ? 0 : -EINVAL;
}

/* The probability of the @i-th value in lowest terms into @num, @den. */
static int prob_big(const struct dice_dist *d, size_t i, struct big *num,
		    struct big *den)
{
	const struct big *c = nth_count(d, i, NULL);
	struct big g = { 0 };

	if (!c)
		return -EINVAL;
	big_gcd(&g, c, &d->d.den);
	big_divmod(num, NULL, c, &g);
	big_divmod(den, NULL, &d->d.den, &g);
	big_free(&g);
	return 0;
}

DICE_NOTATION_EXPORT int dice_dist_prob(const struct dice_dist *d, size_t i,
					uint64_t *num, uint64_t *den)
{
	struct big n = { 0 }, m = { 0 };
	struct notation_call call;
	int err;

	if (!d || !num || !den)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	err = prob_big(d, i, &n, &m);
	if (!err && (!big_get_u64(&n, num) || !big_get_u64(&m, den)))
		err = -EOVERFLOW;
	notation_call_leave(&call);
	big_free(&n);
	big_free(&m);
	return err;
}

DICE_NOTATION_EXPORT int dice_dist_prob_str(const struct dice_dist *d,
					    size_t i, char **num, char **den)
{
	struct big n = { 0 }, m = { 0 };
	struct notation_call call;
	int err;

	if (!d || !num || !den)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	err = prob_big(d, i, &n, &m);
	if (!err) {
		*num = big_str(&n);
		*den = big_str(&m);
	}
	notation_call_leave(&call);
	big_free(&n);
	big_free(&m);
	return err;
}

DICE_NOTATION_EXPORT int dice_dist_percentile(const struct dice_dist *d,
					      unsigned int pct, int64_t *value)
{
	struct notation_call call;

	if (!d || !value || pct > 100)
		return -EINVAL;
	if (pct == 0)
		return dice_dist_value(d, 0, value);
	if (pct == 100)
		return dice_dist_value(d, dice_dist_size(d) - 1, value);
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	*value = dist_percentile(&d->d, pct);
	notation_call_leave(&call);
	return 0;
}

DICE_NOTATION_EXPORT int dice_dist_stats(const struct dice_dist *d,
					 struct dice_dist_stats *st)
{
	struct big num = { 0 }, den = { 0 };
	struct notation_call call;
	int neg, err;

	if (!d || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	err = dice_dist_percentile(d, 0, &st->min);
	if (!err)
		err = dice_dist_percentile(d, 100, &st->max);
	if (!err)
		err = dice_dist_percentile(d, 50, &st->median);
	if (err)
		return err;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	dist_mean(&d->d, &num, &den, &neg);
	st->mean = (double)big_ratio(&num, &den) * (neg ? -1 : 1);
	big_free(&num);
	big_free(&den);
	dist_variance(&d->d, &num, &den);
	st->stddev = (double)sqrtl(big_ratio(&num, &den));
	notation_call_leave(&call);
	big_free(&num);
	big_free(&den);
	return 0;
}

DICE_NOTATION_EXPORT int dice_dist_mean_str(const struct dice_dist *d,
					    char **out)
{
	struct big num = { 0 }, den = { 0 };
	struct notation_call call;
	char *n, *m;
	int neg;

	if (!d || !out)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	dist_mean(&d->d, &num, &den, &neg);
	n = big_str(&num);
	m = big_str(&den);
	notation_call_leave(&call);
	big_free(&num);
	big_free(&den);
	*out = malloc(strlen(n) + strlen(m) + 3);
	if (*out)
		sprintf(*out, "%s%s%s%s", neg && strcmp(n, "0") ? "-" : "", n,
			strcmp(m, "1") ? "/" : "", strcmp(m, "1") ? m : "");
	free(n);
	free(m);
	return *out ? 0 : -ENOMEM;
}

DICE_NOTATION_EXPORT int dice_dist_versus(const struct dice_dist *a,
					  const struct dice_dist *b,
					  struct dice_dist **out)
{
	struct notation_call call;
	struct dist d = { 0 };

	if (!a || !b || !out)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	d.lo = -1;
	d.n = 3;
	d.c = xcalloc(3, sizeof(*d.c));
	/* values -1, 0, 1: A < B, a tie, A > B */
	versus_counts(&a->d, &b->d, &d.c[2], &d.c[1], &d.c[0], &d.den);
	dist_lowest(&d);
	notation_call_leave(&call);
	*out = dist_wrap(&d);
	return *out ? 0 : -ENOMEM;
}

DICE_NOTATION_EXPORT int dice_dist_count(const struct dice_dist *one,
					 const char *target, uint64_t rolls,
					 struct dice_dist **out)
{
	struct notation_call call;
	struct dist d;
	struct cmp c;

	if (!one || !target || !out || !rolls || count_target(target, &c))
		return -EINVAL;
	if (rolls > COUNT_MAX_ROLLS)
		return -ERANGE;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_leave(&call);
		return -ENOMEM;
	}
	count_dist(&one->d, &c, rolls, &d);
	notation_call_leave(&call);
	*out = dist_wrap(&d);
	return *out ? 0 : -ENOMEM;
}
