// SPDX-License-Identifier: GPL-2.0
/*
 * versus.c - dice --versus's output: P(A > B), P(A = B), P(A < B) of two
 * independent rolls, exactly, as fractions in lowest terms (the counts
 * come from libdice's notation engine, versus_counts())
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* num/den in lowest terms, as "num/den = 0.xxx" (or "0", "1"). */
static void versus_fraction(const struct big *num, const struct big *den,
			    bool json)
{
	struct big g = { 0 }, n = { 0 }, d = { 0 };
	char *ns, *ds;

	big_gcd(&g, num, den);
	if (big_is_zero(&g))
		big_set_u64(&g, 1);
	big_divmod(&n, NULL, num, &g);
	big_divmod(&d, NULL, den, &g);
	ns = big_str(&n);
	ds = big_str(&d);
	if (json)
		printf("{\"numerator\":\"%s\",\"denominator\":\"%s\",\"value\":%.10Lg}",
		       ns, ds, big_ratio(&n, &d));
	else if (!strcmp(ds, "1"))
		printf("%s", ns);
	else
		printf("%s/%s = %.10Lg", ns, ds, big_ratio(&n, &d));
	free(ns);
	free(ds);
	big_free(&g);
	big_free(&n);
	big_free(&d);
}

int versus_show(const struct shown *a, const struct shown *b,
		const struct options *o)
{
	struct big gt = { 0 }, eq = { 0 }, lt = { 0 }, den = { 0 };

	versus_counts(&a->d, &b->d, &gt, &eq, &lt, &den);
	if (o->json) {
		fputs("{\"a\":", stdout);
		json_string(a->e->text);
		fputs(",\"b\":", stdout);
		json_string(b->e->text);
		fputs(",\"greater\":", stdout);
		versus_fraction(&gt, &den, true);
		fputs(",\"equal\":", stdout);
		versus_fraction(&eq, &den, true);
		fputs(",\"less\":", stdout);
		versus_fraction(&lt, &den, true);
		puts("}");
	} else {
		printf("A: %s\nB: %s\nP(A > B) = ", a->e->text, b->e->text);
		versus_fraction(&gt, &den, false);
		fputs("\nP(A = B) = ", stdout);
		versus_fraction(&eq, &den, false);
		fputs("\nP(A < B) = ", stdout);
		versus_fraction(&lt, &den, false);
		putchar('\n');
	}
	big_free(&gt);
	big_free(&eq);
	big_free(&lt);
	big_free(&den);
	return 0;
}
