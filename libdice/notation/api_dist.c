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

/*
 * Most rolls dice_dist_count() takes; its work grows as their cube, and
 * the budget of the context that computed the law of one roll bounds it.
 */
#define COUNT_MAX_ROLLS	100000U

/*
 * A new object for @d (whose counts it takes) and @info, in a call;
 * @max_work is the work budget of the context it was computed in, which
 * what is computed from it (dice_dist_count()) keeps to.
 */
static struct dice_dist *dist_wrap(struct dist *d,
				   const struct dice_dist_info *info,
				   uint64_t max_work)
{
	struct dice_dist *dd = xcalloc(1, sizeof(*dd));
	size_t k;

	dd->d = *d;
	dd->info = *info;
	dd->max_work = max_work;
	dd->idx = xmalloc(d->n * sizeof(*dd->idx));
	for (k = 0; k < d->n; k++) {
		if (!big_is_zero(&d->c[k]))
			dd->idx[dd->size++] = k;
	}
	return dd;
}

static void info_of(struct dice_dist_info *info, const struct dist_report *rep)
{
	info->explode_limit = rep->explode_limit;
	info->explode_fit = rep->explode_fit;
	info->cap_prob = rep->cap_prob;
	info->estimate = rep->estimate;
	info->work = rep->work;
}

DICE_NOTATION_EXPORT int dice_expr_dist(struct dice_notation *ctx,
					const struct dice_expr *e,
					struct dice_dist **out,
					struct dice_notation_error *why)
{
	struct dice_dist_info info = { 0 };
	struct notation_call call;
	struct dist_report rep;
	struct dice_dist *dd;
	struct dist d;
	int err;

	if (why)
		memset(why, 0, sizeof(*why));
	if (!ctx || !e || !out)
		return -EINVAL;
	api_call_enter(&call, ctx);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	err = dist_expr_report(e->dist, &ctx->lim, &d, &rep);
	info_of(&info, &rep);
	if (err) {
		notation_call_leave(&call);
		if (why) {
			why->dist = info;
			if (err == -E2BIG) {
				why->offset = rep.offset;
				snprintf(why->message, sizeof(why->message),
					 "%s", rep.why);
			}
		}
		return err;
	}
	dd = dist_wrap(&d, &info, ctx->lim.max_work);
	notation_call_leave(&call);
	*out = dd;
	return 0;
}

DICE_NOTATION_EXPORT void dice_dist_free(struct dice_dist *d)
{
	if (!d)
		return;
	dist_free(&d->d);
	xfree(d->idx);
	xfree(d);
}

/* The count of the @i-th value whose probability is not zero, or NULL. */
static const struct big *nth_count(const struct dice_dist *d, size_t i,
				   int64_t *value)
{
	if (i >= d->size)
		return NULL;
	if (value)
		*value = d->d.lo + (int64_t)d->idx[i];
	return &d->d.c[d->idx[i]];
}

DICE_NOTATION_EXPORT size_t dice_dist_size(const struct dice_dist *d)
{
	return d ? d->size : 0;
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
	uint64_t small;

	if (!c)
		return -EINVAL;
	big_gcd(&g, c, &d->d.den);
	/* a word-sized gcd (most are 1) divides a limb at a time */
	if (big_get_u64(&g, &small)) {
		big_copy(num, c);
		big_copy(den, &d->d.den);
		big_divmod_u64(num, small);
		big_divmod_u64(den, small);
	} else {
		big_divmod(num, NULL, c, &g);
		big_divmod(den, NULL, &d->d.den, &g);
	}
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
		notation_call_fail(&call);
		return -ENOMEM;
	}
	err = prob_big(d, i, &n, &m);
	if (!err && (!big_get_u64(&n, num) || !big_get_u64(&m, den)))
		err = -EOVERFLOW;
	big_free(&n);
	big_free(&m);
	notation_call_leave(&call);
	return err;
}

/*
 * @a and @b in decimal into *@as and *@bs, from malloc() for the caller:
 * 0 or -ENOMEM (in a call: what it allocated is the call's).
 */
static int two_str(const struct big *a, const struct big *b, char **as,
		   char **bs)
{
	char *s = big_str(a), *t = big_str(b);

	*as = notation_strdup(s);
	*bs = notation_strdup(t);
	xfree(s);
	xfree(t);
	if (*as && *bs)
		return 0;
	free(*as);
	free(*bs);
	return -ENOMEM;
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
		notation_call_fail(&call);
		return -ENOMEM;
	}
	err = prob_big(d, i, &n, &m);
	if (!err)
		err = two_str(&n, &m, num, den);
	big_free(&n);
	big_free(&m);
	notation_call_leave(&call);
	return err;
}

DICE_NOTATION_EXPORT int dice_dist_weight_str(const struct dice_dist *d,
					      size_t i, char **weight,
					      char **total)
{
	struct notation_call call;
	const struct big *c;
	int err;

	if (!d || !weight || !total)
		return -EINVAL;
	c = nth_count(d, i, NULL);
	if (!c)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	err = two_str(c, &d->d.den, weight, total);
	notation_call_leave(&call);
	return err;
}

DICE_NOTATION_EXPORT int dice_dist_table(const struct dice_dist *d,
					 struct dice_dist_row *rows)
{
	struct big sum = { 0 };
	struct notation_call call;
	size_t i;

	if (!d || !rows)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	/* the counts of X <= v, then of X >= v, one sum each */
	for (i = 0; i < d->size; i++) {
		const struct big *c = &d->d.c[d->idx[i]];

		rows[i].value = d->d.lo + (int64_t)d->idx[i];
		rows[i].prob = big_ratio(c, &d->d.den);
		big_add(&sum, c);
		rows[i].at_most = big_ratio(&sum, &d->d.den);
	}
	big_set_u64(&sum, 0);
	for (i = d->size; i--;) {
		big_add(&sum, &d->d.c[d->idx[i]]);
		rows[i].at_least = big_ratio(&sum, &d->d.den);
	}
	big_free(&sum);
	notation_call_leave(&call);
	return 0;
}

DICE_NOTATION_EXPORT int dice_dist_info(const struct dice_dist *d,
					struct dice_dist_info *info)
{
	if (!d || !info)
		return -EINVAL;
	*info = d->info;
	return 0;
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
		return dice_dist_value(d, d->size - 1, value);
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
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
		notation_call_fail(&call);
		return -ENOMEM;
	}
	dist_mean(&d->d, &num, &den, &neg);
	st->mean = big_ratio(&num, &den) * (neg ? -1 : 1);
	big_free(&num);
	big_free(&den);
	dist_variance(&d->d, &num, &den);
	st->variance = big_ratio(&num, &den);
	st->stddev = sqrtl(st->variance);
	big_free(&num);
	big_free(&den);
	notation_call_leave(&call);
	return 0;
}

/* "-num/den", "num/den", or "num" when den is 1, from malloc(). */
static char *fraction_str(const struct big *num, const struct big *den,
			  int neg)
{
	char *n = big_str(num), *m = big_str(den), *s;
	bool one = !strcmp(m, "1");

	s = malloc(strlen(n) + strlen(m) + 3);
	if (s)
		sprintf(s, "%s%s%s%s", neg ? "-" : "", n, one ? "" : "/",
			one ? "" : m);
	xfree(n);
	xfree(m);
	return s;
}

/* The exact mean (@variance false) or variance of @d into *@out. */
static int moment_str(const struct dice_dist *d, bool variance, char **out)
{
	struct big num = { 0 }, den = { 0 };
	struct notation_call call;
	int neg = 0;

	if (!d || !out)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	if (variance)
		dist_variance(&d->d, &num, &den);
	else
		dist_mean(&d->d, &num, &den, &neg);	/* never a "-0" */
	*out = fraction_str(&num, &den, neg);
	big_free(&num);
	big_free(&den);
	notation_call_leave(&call);
	return *out ? 0 : -ENOMEM;
}

DICE_NOTATION_EXPORT int dice_dist_mean_str(const struct dice_dist *d,
					    char **out)
{
	return moment_str(d, false, out);
}

DICE_NOTATION_EXPORT int dice_dist_variance_str(const struct dice_dist *d,
						char **out)
{
	return moment_str(d, true, out);
}

DICE_NOTATION_EXPORT int dice_dist_versus(const struct dice_dist *a,
					  const struct dice_dist *b,
					  struct dice_dist **out)
{
	struct dice_dist_info info = { 0 };
	struct notation_call call;
	struct dice_dist *dd;
	struct dist d = { 0 };

	if (!a || !b || !out)
		return -EINVAL;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	d.lo = -1;
	d.n = 3;
	d.c = xcalloc(3, sizeof(*d.c));
	/* values -1, 0, 1: A < B, a tie, A > B */
	versus_counts(&a->d, &b->d, &d.c[2], &d.c[1], &d.c[0], &d.den);
	dist_lowest(&d);
	/* what the caps of A and B leave out */
	info.explode_limit = a->info.explode_limit > b->info.explode_limit ?
			     a->info.explode_limit : b->info.explode_limit;
	info.cap_prob = a->info.cap_prob > b->info.cap_prob ?
			a->info.cap_prob : b->info.cap_prob;
	dd = dist_wrap(&d, &info, a->max_work > b->max_work ? a->max_work :
					     b->max_work);
	notation_call_leave(&call);
	*out = dd;
	return 0;
}

DICE_NOTATION_EXPORT int dice_dist_count(const struct dice_dist *one, int cmp,
					 int64_t target, uint64_t rolls,
					 struct dice_dist **out)
{
	static const enum cmp_op ops[] = {
		[DICE_CMP_EQ] = CMP_EQ, [DICE_CMP_LT] = CMP_LT,
		[DICE_CMP_LE] = CMP_LE, [DICE_CMP_GT] = CMP_GT,
		[DICE_CMP_GE] = CMP_GE,
	};
	struct dice_dist_info info = { 0 };
	struct cmp c = { .n = target };
	struct dist_limits lim = { 0 };
	struct notation_call call;
	struct dice_dist *dd;
	struct dist d;
	int err;

	if (!one || !out || !rolls || cmp < DICE_CMP_EQ || cmp > DICE_CMP_GE)
		return -EINVAL;
	c.op = ops[cmp];
	if (rolls > COUNT_MAX_ROLLS)
		return -ERANGE;
	api_call_enter(&call, NULL);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	lim.max_work = one->max_work;
	err = count_dist(&one->d, &c, rolls, &lim, &d);
	if (err) {
		notation_call_leave(&call);
		return err;
	}
	info.explode_limit = one->info.explode_limit;
	info.cap_prob = one->info.cap_prob;
	dd = dist_wrap(&d, &info, one->max_work);
	notation_call_leave(&call);
	*out = dd;
	return 0;
}
