// SPDX-License-Identifier: GPL-2.0
/*
 * show_dist.c - what the dice command prints about distributions: --dist
 * (text, JSON, CSV; several expressions side by side) and the
 * --histogram table, with bars when a person is looking (a terminal).
 *
 * Sections: tables and bars; --dist; --histogram.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define BAR_WIDTH	40

/* ---- tables and bars ------------------------------------------------------ */

/*
 * A table of text cells: printed with tabs between cells for programs, or
 * padded into columns for a terminal; a row may end with a bar.
 */
struct table {
	char **cell;		/* row-major, ncols a row */
	char **bar;		/* one a row, or NULL */
	size_t nrows, ncols, cap;
};

static void table_row(struct table *t, char **cells, char *bar)
{
	size_t i;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cell = cli_realloc(t->cell, t->cap * t->ncols, sizeof(*t->cell));
		t->bar = cli_realloc(t->bar, t->cap, sizeof(*t->bar));
	}
	for (i = 0; i < t->ncols; i++)
		t->cell[t->nrows * t->ncols + i] = cells[i];
	t->bar[t->nrows++] = bar;
}

static char *show_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *show_fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		fputs("dice: out of memory\n", stderr);
		exit(1);
	}
	return s;
}

static void table_print(struct table *t, bool pad)
{
	size_t *w = cli_calloc(t->ncols, sizeof(*w)), r, c;

	for (r = 0; pad && r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			size_t len = strlen(t->cell[r * t->ncols + c]);

			if (len > w[c])
				w[c] = len;
		}
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cell[r * t->ncols + c];
			bool last = c + 1 == t->ncols && !t->bar[r];

			if (pad)
				printf("%s%-*s", c ? "  " : "", last ? 0 : (int)w[c], s);
			else
				printf("%s%s", c ? "\t" : "", s);
			free(t->cell[r * t->ncols + c]);
		}
		if (t->bar[r]) {
			printf("%s%s", pad ? "  " : "\t", t->bar[r]);
			free(t->bar[r]);
		}
		putchar('\n');
	}
	free(t->cell);
	free(t->bar);
	free(w);
	memset(t, 0, sizeof(*t));
}

bool want_bars(const struct options *o)
{
	return o->bars == BARS_ALWAYS || (o->bars == BARS_AUTO && o->tty);
}

/* A bar of @frac (0..1) of @width cells: eighths in UTF-8, else '#'. */
static char *bar_text(long double frac, unsigned int width, bool utf8)
{
	static const char *const eighth[] = { "", "\u258f", "\u258e", "\u258d",
					      "\u258c", "\u258b", "\u258a", "\u2589" };
	long double cells = frac * width;
	unsigned int full, part, i;
	char *s, *p;

	if (cells < 0)
		cells = 0;
	if (cells > width)
		cells = width;
	if (!utf8) {
		full = (unsigned int)llroundl(cells);
		s = cli_malloc(full + 1);
		memset(s, '#', full);
		s[full] = '\0';
		return s;
	}
	full = (unsigned int)(cells);
	part = (unsigned int)((cells - full) * 8);
	if (!full && !part && frac > 0)
		part = 1;	/* show that it is there */
	p = s = cli_malloc(full * 3 + 4);
	for (i = 0; i < full; i++)
		p += sprintf(p, "\u2588");
	strcpy(p, eighth[part]);
	return s;
}

/* ---- --dist ------------------------------------------------------------------ */

static const unsigned int pcts[] = { 5, 10, 25, 50, 75, 90, 95 };

/*
 * @s, "num/den" or "num" from libdice, split at its '/' into *@num and
 * *@den ("1" when there is none).
 */
static void split_fraction(char *s, const char **num, const char **den)
{
	char *slash = strchr(s, '/');

	*num = s;
	*den = "1";
	if (slash) {
		*slash = '\0';
		*den = slash + 1;
	}
}

/* "num/den = value", or "num" when den is 1. */
static char *show_fraction(const char *num, const char *den, long double val)
{
	if (!strcmp(den, "1"))
		return show_fmt("%s", num);
	return show_fmt("%s/%s = %.10Lg", num, den, val);
}

/**
 * struct stats - what is printed about one distribution
 * @mean: the exact mean, "num/den" (split: @mnum, @mden)
 * @var: the exact variance (split: @vnum, @vden)
 * @st: the mean, variance and standard deviation as numbers
 * @pct: the percentiles of pcts[]
 * @rows: every value with its probability and cumulatives
 * @n: number of @rows
 */
struct stats {
	char *mean, *var;
	const char *mnum, *mden, *vnum, *vden;
	struct dice_dist_stats st;
	int64_t pct[ARRAY_SIZE(pcts)];
	struct dice_dist_row *rows;
	size_t n;
};

static void stats_of(const struct dice_dist *d, struct stats *s)
{
	unsigned int i;
	int err;

	memset(s, 0, sizeof(*s));
	s->n = dice_dist_size(d);
	s->rows = cli_calloc(s->n, sizeof(*s->rows));
	/* a signal stops it between calls (show_dists() prints nothing then) */
	err = dice_dist_stats(d, &s->st);
	if (!err && !dice_interrupted)
		err = dice_dist_mean_str(d, &s->mean);
	if (!err && !dice_interrupted)
		err = dice_dist_variance_str(d, &s->var);
	for (i = 0; !err && !dice_interrupted && i < ARRAY_SIZE(pcts); i++)
		err = dice_dist_percentile(d, pcts[i], &s->pct[i]);
	if (!err && !dice_interrupted)
		err = dice_dist_table(d, s->rows);
	if (err)
		die_fail("cannot describe the distribution: %s", strerror(-err));
	if (dice_interrupted)
		return;
	split_fraction(s->mean, &s->mnum, &s->mden);
	split_fraction(s->var, &s->vnum, &s->vden);
}

static void stats_free(struct stats *s)
{
	free(s->rows);
	free(s->mean);
	free(s->var);
}

static char *pct_line(const struct stats *s)
{
	char *line = cli_strdup(""), *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		t = show_fmt("%s%s%u%%: %lld", line, i ? "  " : "", pcts[i],
			(long long)s->pct[i]);
		free(line);
		line = t;
	}
	return line;
}

static const char *show_title(const struct dice_expr *e)
{
	const char *c = dice_expr_comment(e);

	return c && *c ? c : dice_expr_text(e);
}

static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void explode_line(const struct shown *v)
{
	if (!v->info.explode_limit)
		return;
	printf("explosions: at most %u per die (--max-explode); a die explodes that often with probability %.3Lg\n",
	       v->info.explode_limit, v->info.cap_prob);
}

/* The count of value @i of @d over the common denominator, or it. */
static void weight_str(const struct dice_dist *d, size_t i, char **weight,
		       char **den)
{
	int err = dice_dist_weight_str(d, i, weight, den);

	if (err)
		die_fail("cannot describe the distribution: %s", strerror(-err));
}

static void dist_json(const struct shown *v, const struct stats *s)
{
	const char *comment = dice_expr_comment(v->e);
	uint64_t repeat = dice_expr_repeat(v->e);
	char *c, *den;
	unsigned int i;
	size_t k;

	fputs("{\"expression\":", stdout);
	json_string(dice_expr_text(v->e));
	if (comment) {
		fputs(",\"comment\":", stdout);
		json_string(comment);
	}
	if (repeat > 1)
		printf(",\"repeat\":%llu", (unsigned long long)repeat);
	if (v->count) {
		fputs(",\"count\":", stdout);
		json_string(v->count);
	}
	weight_str(v->d, 0, &c, &den);
	printf(",\"denominator\":\"%s\",\"min\":", den);
	free(c);
	free(den);
	json_val(s->st.min);
	fputs(",\"max\":", stdout);
	json_val(s->st.max);
	printf(",\"mean\":{\"numerator\":\"%s\",\"denominator\":\"%s\",\"value\":%.10Lg}",
	       s->mnum, s->mden, s->st.mean);
	printf(",\"variance\":{\"numerator\":\"%s\",\"denominator\":\"%s\",\"value\":%.10Lg},\"stddev\":%.10Lg",
	       s->vnum, s->vden, s->st.variance, s->st.stddev);
	fputs(",\"percentiles\":{", stdout);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		printf("%s\"%u\":", i ? "," : "", pcts[i]);
		json_val(s->pct[i]);	/* a string past 2^53, as min and max */
	}
	putchar('}');
	if (v->info.explode_limit)
		printf(",\"explode_limit\":%u,\"cap_probability\":%.6Lg",
		       v->info.explode_limit, v->info.cap_prob);
	fputs(",\"distribution\":[", stdout);
	for (k = 0; k < s->n && !dice_interrupted; k++) {
		const struct dice_dist_row *r = &s->rows[k];

		weight_str(v->d, k, &c, &den);
		printf("%s{\"value\":", k ? "," : "");
		json_val(r->value);
		printf(",\"count\":\"%s\",\"probability\":%.10Lg,\"at_least\":%.10Lg,\"at_most\":%.10Lg}",
		       c, r->prob, r->at_least, r->at_most);
		free(c);
		free(den);
	}
	fputs("]}\n", stdout);
}

static void dist_single(const struct shown *v, const struct options *o,
			struct stats *s)
{
	uint64_t repeat = dice_expr_repeat(v->e);
	struct table t = { .ncols = 5 };
	long double top = 0;
	bool bars = want_bars(o);
	char *line, *c, *den;
	size_t k;

	if (o->csv) {
		puts("value,count,probability,at_least,at_most");
	} else {
		printf("expression: %s\n", dice_expr_text(v->e));
		if (v->count && repeat == 1)	/* 1x: the count is 0 or 1 */
			printf("count: whether the one roll is %s\n",
			       v->count);
		else if (v->count)
			printf("count: how many of the %llu rolls are %s\n",
			       (unsigned long long)repeat, v->count);
		else if (repeat > 1)
			printf("repeat: %llu independent rolls, each with this distribution\n",
			       (unsigned long long)repeat);
		weight_str(v->d, 0, &c, &den);
		printf("denominator: %s\nmin: %lld\nmax: %lld\n", den,
		       (long long)s->st.min, (long long)s->st.max);
		free(c);
		free(den);
		line = show_fraction(s->mnum, s->mden, s->st.mean);
		printf("mean: %s\n", line);
		free(line);
		line = show_fraction(s->vnum, s->vden, s->st.variance);
		printf("variance: %s\nstddev: %.10Lg\n", line, s->st.stddev);
		free(line);
		line = pct_line(s);
		printf("percentiles: %s\n", line);
		free(line);
		explode_line(v);
		table_row(&t, (char *[]){ cli_strdup("value"), cli_strdup("count"),
			  cli_strdup("probability"), cli_strdup("at least"),
			  cli_strdup("at most") }, NULL);
	}
	for (k = 0; bars && k < s->n; k++)
		top = s->rows[k].prob > top ? s->rows[k].prob : top;
	for (k = 0; k < s->n && !dice_interrupted; k++) {
		const struct dice_dist_row *r = &s->rows[k];

		weight_str(v->d, k, &c, &den);
		free(den);
		if (o->csv) {
			printf("%lld,%s,%.10Lg,%.10Lg,%.10Lg\n",
			       (long long)r->value, c, r->prob, r->at_least,
			       r->at_most);
			free(c);
			continue;
		}
		table_row(&t, (char *[]){ show_fmt("%lld", (long long)r->value),
			  c, show_fmt("%.6Lg", r->prob),
			  show_fmt("%.6Lg", r->at_least),
			  show_fmt("%.6Lg", r->at_most) },
			  bars ? bar_text(top > 0 ? r->prob / top : 0, BAR_WIDTH, o->utf8) : NULL);
	}
	if (!o->csv)
		table_print(&t, o->tty);
}

/*
 * What column @s shows at @x: its probability, or P(X >= x), P(X <= x),
 * also between and beyond its values.  *@k is the first row of @s at
 * @x or above: the caller starts it at 0 and calls with @x ascending.
 */
static long double side_prob(const struct stats *s, enum cumul how,
			     int64_t x, size_t *k)
{
	while (*k < s->n && s->rows[*k].value < x)
		++*k;
	if (*k < s->n && s->rows[*k].value == x)
		return how == CUMUL_AT_LEAST ? s->rows[*k].at_least :
		       how == CUMUL_AT_MOST ? s->rows[*k].at_most :
		       s->rows[*k].prob;
	if (how == CUMUL_AT_LEAST)	/* the next value's */
		return *k < s->n ? s->rows[*k].at_least : 0;
	if (how == CUMUL_AT_MOST)	/* the previous value's */
		return *k ? s->rows[*k - 1].at_most : 0;
	return 0;
}

/* Several expressions side by side, one column each. */
static void dist_side(struct shown *v, unsigned int n, const struct options *o,
		      struct stats *s)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, x;
	struct table t = { .ncols = n + 1 };
	const char *what = o->cumul == CUMUL_AT_LEAST ? "at least" :
			   o->cumul == CUMUL_AT_MOST ? "at most" : "probability";
	unsigned int i, j;
	char **row;
	size_t *k = cli_calloc(n, sizeof(*k));
	long double top = 0;
	bool bars = want_bars(o) && !o->csv;

	for (i = 0; i < n; i++) {
		lo = s[i].st.min < lo ? s[i].st.min : lo;
		hi = s[i].st.max > hi ? s[i].st.max : hi;
	}
	row = cli_calloc(n + 1, sizeof(*row));
	if (o->csv) {
		fputs("value", stdout);
		for (i = 0; i < n; i++) {
			putchar(',');
			csv_field(show_title(v[i].e));
		}
		putchar('\n');
	} else {
		row[0] = cli_strdup("");
		for (i = 0; i < n; i++)
			row[i + 1] = cli_strdup(show_title(v[i].e));
		table_row(&t, row, NULL);
#define STAT_ROW(name, ...) do {					\
		row[0] = cli_strdup(name);					\
		for (i = 0; i < n; i++)					\
			row[i + 1] = show_fmt(__VA_ARGS__);			\
		table_row(&t, row, NULL);				\
	} while (0)
		STAT_ROW("mean", "%.6Lg", s[i].st.mean);
		STAT_ROW("stddev", "%.6Lg", s[i].st.stddev);
		STAT_ROW("variance", "%.6Lg", s[i].st.variance);
		STAT_ROW("min", "%lld", (long long)s[i].st.min);
		STAT_ROW("max", "%lld", (long long)s[i].st.max);
		for (j = 0; j < ARRAY_SIZE(pcts); j++) {
			char name[8];

			snprintf(name, sizeof(name), "%u%%", pcts[j]);
			STAT_ROW(name, "%lld", (long long)s[i].pct[j]);
		}
		for (i = 0; i < n && !v[i].info.explode_limit; i++)
			;
		if (i < n)
			STAT_ROW("explode cap", "%u", v[i].info.explode_limit);
#undef STAT_ROW
		row[0] = cli_strdup("value");
		for (i = 0; i < n; i++)
			row[i + 1] = cli_strdup(what);
		table_row(&t, row, NULL);
	}
	for (x = lo; bars && x <= hi; x++) {
		for (i = 0; i < n; i++) {
			long double p;

			if (x < s[i].st.min || x > s[i].st.max)
				continue;
			p = side_prob(&s[i], o->cumul, x, &k[i]);
			top = p > top ? p : top;
		}
	}
	memset(k, 0, n * sizeof(*k));
	for (x = lo; x <= hi && !dice_interrupted; x++) {
		char *bar = NULL;

		row[0] = show_fmt("%lld", (long long)x);
		for (i = 0; i < n; i++) {
			long double p = 0;

			if (x >= s[i].st.min && x <= s[i].st.max)
				p = side_prob(&s[i], o->cumul, x, &k[i]);
			else if (o->cumul == CUMUL_AT_LEAST && x < s[i].st.min)
				p = 1;
			else if (o->cumul == CUMUL_AT_MOST && x > s[i].st.min)
				p = 1;
			row[i + 1] = show_fmt("%.6Lg", p);
			if (bars) {
				char *b = bar_text(top > 0 ? p / top : 0,
						   BAR_WIDTH / n < 8 ? 8 : BAR_WIDTH / n,
						   o->utf8), *nb;
				int pad = (int)(BAR_WIDTH / n < 8 ? 8 : BAR_WIDTH / n) -
					  (int)(o->utf8 ? strlen(b) / 3 + (strlen(b) % 3 != 0) :
						strlen(b));

				nb = show_fmt("%s%s%s%*s", bar ? bar : "", bar ? " | " : "",
					      b, i + 1 < n ? (pad > 0 ? pad : 0) : 0, "");
				free(b);
				free(bar);
				bar = nb;
			}
		}
		if (o->csv) {
			for (i = 0; i <= n; i++) {
				printf("%s%s", i ? "," : "", row[i]);
				free(row[i]);
			}
			putchar('\n');
			continue;
		}
		table_row(&t, row, bar);
	}
	if (!o->csv)
		table_print(&t, o->tty);
	free(row);
	free(k);
}

bool show_dists(struct shown *v, unsigned int n, const struct options *o)
{
	struct stats *s = cli_calloc(n, sizeof(*s));
	unsigned int i;

	/* a signal between libdice's calls (each has no interrupt of its own) */
	for (i = 0; i < n && !dice_interrupted; i++)
		stats_of(v[i].d, &s[i]);
	if (dice_interrupted) {
		/* nothing printed */
	} else if (o->json) {
		for (i = 0; i < n; i++)
			dist_json(&v[i], &s[i]);
	} else if (n == 1) {
		dist_single(&v[0], o, &s[0]);
	} else {
		for (i = 0; i < n && !o->csv; i++) {
			uint64_t repeat = dice_expr_repeat(v[i].e);

			if (repeat > 1)
				printf("%s: repeat: %llu independent rolls, each with this distribution\n",
				       dice_expr_text(v[i].e), (unsigned long long)repeat);
		}
		dist_side(v, n, o, s);
	}
	for (i = 0; i < n; i++)
		stats_free(&s[i]);
	free(s);
	/* the stats and the rows' loops stop at a signal; the caller says so */
	return !dice_interrupted;
}

/* ---- --histogram --------------------------------------------------------- */

/* '#' (or blocks) observed, '|' where the expectation lies. */
static char *hist_bar(uint64_t obs, long double exp, long double scale,
		      bool utf8)
{
	char *b = bar_text((long double)obs * scale / BAR_WIDTH, BAR_WIDTH, utf8), *s;
	size_t mark = (size_t)llroundl(exp * scale), cells;

	if (mark > BAR_WIDTH)
		mark = BAR_WIDTH;
	cells = utf8 ? strlen(b) / 3 + (strlen(b) % 3 != 0) : strlen(b);
	if (!utf8 && mark < cells) {
		b[mark] = '|';
		return b;
	}
	if (mark < cells) {	/* the mark inside the bar: end it there */
		s = show_fmt("%.*s|%s", (int)(mark * 3), b, b + mark * 3 + 3 <= b + strlen(b) ?
			b + mark * 3 + 3 : "");
	} else {
		s = show_fmt("%s%*s|", b, (int)(mark - cells), "");
	}
	free(b);
	return s;
}

void show_histogram(const struct hist *h, const struct options *o,
		    const char *source)
{
	struct table t = { .ncols = 3 };
	long double *expect = cli_calloc(h->n, sizeof(*expect)), maxv = 0, scale;
	uint64_t hidden = 0;
	bool bars = want_bars(o) && !o->csv && !o->json;
	size_t i;

	for (i = 0; i < h->n; i++) {
		expect[i] = h->rows[i].prob * (long double)h->samples;
		if (expect[i] > maxv)
			maxv = expect[i];
		if ((long double)h->obs[i] > maxv)
			maxv = (long double)h->obs[i];
	}
	scale = maxv > 0 ? BAR_WIDTH / maxv : 0;
	if (o->json) {
		fputs("{\"expression\":", stdout);
		json_string(dice_expr_text(h->e));
		printf("%s,\"rolls\":%llu,\"values\":[", source,
		       (unsigned long long)h->samples);
	} else if (o->csv) {
		puts("value,observed,expected");
	} else {
		printf("histogram of %s: %llu rolls against the exact distribution\n",
		       dice_expr_text(h->e), (unsigned long long)h->samples);
		table_row(&t, (char *[]){ cli_strdup("value"), cli_strdup("observed"),
			  cli_strdup("expected") },
			  bars ? cli_strdup("(bar: observed; '|': expected)") : NULL);
	}
	for (i = 0; i < h->n; i++) {
		int64_t v = h->rows[i].value;

		if (o->json) {
			printf("%s{\"value\":", i ? "," : "");
			json_val(v);
			printf(",\"observed\":%llu,\"expected\":%.6Lf}",
			       (unsigned long long)h->obs[i], expect[i]);
			continue;
		}
		if (o->csv) {
			printf("%lld,%llu,%.6Lf\n", (long long)v,
			       (unsigned long long)h->obs[i], expect[i]);
			continue;
		}
		if (!h->obs[i] && expect[i] < 0.5L) {
			hidden++;
			continue;
		}
		table_row(&t, (char *[]){ show_fmt("%lld", (long long)v),
			  show_fmt("%llu", (unsigned long long)h->obs[i]),
			  show_fmt("%.2Lf", expect[i]) },
			  bars ? hist_bar(h->obs[i], expect[i], scale, o->utf8) : NULL);
	}
	if (o->json)
		putchar(']');
	else if (!o->csv)
		table_print(&t, o->tty);
	if (hidden)
		printf("(%llu more values, each expected fewer than 0.5 times and not rolled, are not shown)\n",
		       (unsigned long long)hidden);
	free(expect);
}
