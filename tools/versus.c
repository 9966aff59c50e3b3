// SPDX-License-Identifier: GPL-2.0
/*
 * versus.c - dice --versus's output: P(A > B), P(A = B), P(A < B) of two
 * independent rolls, exactly, as fractions in lowest terms (the law of
 * the sign of A - B comes from libdice, dice_dist_versus())
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The probability of @value in @v as "num/den = 0.xxx" (or "0", "1"). */
static int versus_fraction(const struct dice_dist *v,
			   const struct dice_dist_row *rows, int64_t value,
			   bool json)
{
	char *ns = NULL, *ds = NULL;
	long double p = 0;
	size_t i;
	int err;

	for (i = 0; i < dice_dist_size(v) && rows[i].value != value; i++)
		;
	if (i == dice_dist_size(v)) {	/* never */
		ns = cli_strdup("0");
		ds = cli_strdup("1");
	} else {
		err = dice_dist_prob_str(v, i, &ns, &ds);
		if (err)
			return err;
		p = rows[i].prob;
	}
	if (json)
		printf("{\"numerator\":\"%s\",\"denominator\":\"%s\",\"value\":%.10Lg}",
		       ns, ds, p);
	else if (!strcmp(ds, "1"))
		printf("%s", ns);
	else
		printf("%s/%s = %.10Lg", ns, ds, p);
	free(ns);
	free(ds);
	return 0;
}

int versus_show(const struct shown *a, const struct shown *b,
		const struct options *o)
{
	static const char *const names[] = { "greater", "equal", "less" };
	static const char *const text[] = { "A > B", "A = B", "A < B" };
	struct dice_dist_row rows[3];
	struct dice_dist *v;
	int err, i;

	err = dice_dist_versus(a->d, b->d, &v);
	if (!err)
		err = dice_dist_table(v, rows);
	if (err)
		return err;
	if (o->json) {
		fputs("{\"a\":", stdout);
		json_string(dice_expr_text(a->e));
		fputs(",\"b\":", stdout);
		json_string(dice_expr_text(b->e));
	} else {
		printf("A: %s\nB: %s\n", dice_expr_text(a->e),
		       dice_expr_text(b->e));
	}
	/* the values of the law: 1 (A > B), 0 (a tie), -1 (A < B) */
	for (i = 0; !err && i < 3; i++) {
		if (o->json)
			printf(",\"%s\":", names[i]);
		else
			printf("%sP(%s) = ", i ? "\n" : "", text[i]);
		err = versus_fraction(v, rows, 1 - i, o->json);
	}
	if (!err)
		puts(o->json ? "}" : "");
	dice_dist_free(v);
	return err;
}
