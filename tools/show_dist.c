// SPDX-License-Identifier: GPL-2.0
/*
 * show_dist.c - what the dice command prints about distributions: --dist
 * (text, JSON, CSV; several expressions side by side) and the
 * --histogram table, with bars when a person is looking (a terminal).
 *
 * Sections: tables and bars; --dist; --histogram.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
		t->cell = xrealloc(t->cell, t->cap * t->ncols, sizeof(*t->cell));
		t->bar = xrealloc(t->bar, t->cap, sizeof(*t->bar));
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
	size_t *w = xcalloc(t->ncols, sizeof(*w)), r, c;

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
		s = xmalloc(full + 1);
		memset(s, '#', full);
		s[full] = '\0';
		return s;
	}
	full = (unsigned int)(cells);
	part = (unsigned int)((cells - full) * 8);
	if (!full && !part && frac > 0)
		part = 1;	/* show that it is there */
	p = s = xmalloc(full * 3 + 4);
	for (i = 0; i < full; i++)
		p += sprintf(p, "\u2588");
	strcpy(p, eighth[part]);
	return s;
}

/* ---- --dist ------------------------------------------------------------------ */

static const unsigned int pcts[] = { 5, 10, 25, 50, 75, 90, 95 };

/* "num/den = value", or "num" when den is 1; *val gets the value. */
static char *show_fraction(const struct big *num, const struct big *den, bool neg,
			   long double *val)
{
	char *ns = big_str(num), *ds = big_str(den), *s;

	*val = big_ratio(num, den) * (neg ? -1 : 1);
	if (!strcmp(ds, "1"))
		s = show_fmt("%s%s", neg ? "-" : "", ns);
	else
		s = show_fmt("%s%s/%s = %.10Lg", neg ? "-" : "", ns, ds, *val);
	free(ns);
	free(ds);
	return s;
}

struct stats {
	struct big mnum, mden, vnum, vden;
	int mneg;
	long double mean, var, sd;
	int64_t pct[ARRAY_SIZE(pcts)];
	struct big *at_most, *at_least;
};

static void stats_of(const struct dist *d, struct stats *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	dist_mean(d, &s->mnum, &s->mden, &s->mneg);
	dist_variance(d, &s->vnum, &s->vden);
	s->mean = big_ratio(&s->mnum, &s->mden) * (s->mneg ? -1 : 1);
	s->var = big_ratio(&s->vnum, &s->vden);
	s->sd = sqrtl(s->var);
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		s->pct[i] = dist_percentile(d, pcts[i]);
	s->at_most = xcalloc(d->n, sizeof(*s->at_most));
	s->at_least = xcalloc(d->n, sizeof(*s->at_least));
	dist_cumulative(d, s->at_most, s->at_least);
}

static void stats_free(const struct dist *d, struct stats *s)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		big_free(&s->at_most[i]);
		big_free(&s->at_least[i]);
	}
	free(s->at_most);
	free(s->at_least);
	big_free(&s->mnum);
	big_free(&s->mden);
	big_free(&s->vnum);
	big_free(&s->vden);
}

static char *pct_line(const struct stats *s)
{
	char *line = xstrdup(""), *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		t = show_fmt("%s%s%u%%: %lld", line, i ? "  " : "", pcts[i],
			(long long)s->pct[i]);
		free(line);
		line = t;
	}
	return line;
}

static const char *show_title(const struct expr *e)
{
	return e->comment && *e->comment ? e->comment : e->text;
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
	if (!v->rep.explode_limit)
		return;
	printf("explosions: at most %u per die (--max-explode); a die explodes that often with probability %.3Lg\n",
	       v->rep.explode_limit, v->rep.cap_prob);
}

static void dist_json(const struct shown *v, const struct stats *s)
{
	const struct dist *d = &v->d;
	const struct expr *e = v->e;
	char *c, *ns, *ds;
	unsigned int i;
	size_t k;
	bool first = true;

	fputs("{\"expression\":", stdout);
	json_string(e->text);
	if (e->comment) {
		fputs(",\"comment\":", stdout);
		json_string(e->comment);
	}
	if (e->repeat > 1)
		printf(",\"repeat\":%llu", (unsigned long long)e->repeat);
	if (v->count) {
		fputs(",\"count\":", stdout);
		json_string(v->count);
	}
	c = big_str(&d->den);
	printf(",\"denominator\":\"%s\",\"min\":", c);
	free(c);
	json_val(d->lo);
	fputs(",\"max\":", stdout);
	json_val(d->lo + (int64_t)d->n - 1);
	ns = big_str(&s->mnum);
	ds = big_str(&s->mden);
	printf(",\"mean\":{\"numerator\":\"%s%s\",\"denominator\":\"%s\",\"value\":%.10Lg}",
	       s->mneg ? "-" : "", ns, ds, s->mean);
	free(ns);
	free(ds);
	ns = big_str(&s->vnum);
	ds = big_str(&s->vden);
	printf(",\"variance\":{\"numerator\":\"%s\",\"denominator\":\"%s\",\"value\":%.10Lg},\"stddev\":%.10Lg",
	       ns, ds, s->var, s->sd);
	free(ns);
	free(ds);
	fputs(",\"percentiles\":{", stdout);
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		printf("%s\"%u\":%lld", i ? "," : "", pcts[i], (long long)s->pct[i]);
	putchar('}');
	if (v->rep.explode_limit)
		printf(",\"explode_limit\":%u,\"cap_probability\":%.6Lg",
		       v->rep.explode_limit, v->rep.cap_prob);
	fputs(",\"distribution\":[", stdout);
	for (k = 0; k < d->n; k++) {
		if (big_is_zero(&d->c[k]))
			continue;
		c = big_str(&d->c[k]);
		printf("%s{\"value\":", first ? "" : ",");
		json_val(d->lo + (int64_t)k);
		printf(",\"count\":\"%s\",\"probability\":%.10Lg,\"at_least\":%.10Lg,\"at_most\":%.10Lg}",
		       c, big_ratio(&d->c[k], &d->den),
		       big_ratio(&s->at_least[k], &d->den),
		       big_ratio(&s->at_most[k], &d->den));
		free(c);
		first = false;
	}
	fputs("]}\n", stdout);
}

static void dist_single(const struct shown *v, const struct options *o,
			struct stats *s)
{
	const struct dist *d = &v->d;
	const struct expr *e = v->e;
	struct table t = { .ncols = 5 };
	long double top = 0, val;
	bool bars = want_bars(o);
	char *line;
	size_t k;

	if (o->csv) {
		puts("value,count,probability,at_least,at_most");
	} else {
		printf("expression: %s\n", e->text);
		if (v->count)
			printf("count: how many of the %llu rolls are %s\n",
			       (unsigned long long)e->repeat, v->count);
		else if (e->repeat > 1)
			printf("repeat: %llu independent rolls, each with this distribution\n",
			       (unsigned long long)e->repeat);
		line = big_str(&d->den);
		printf("denominator: %s\nmin: %lld\nmax: %lld\n", line,
		       (long long)d->lo, (long long)(d->lo + (int64_t)d->n - 1));
		free(line);
		line = show_fraction(&s->mnum, &s->mden, s->mneg, &val);
		printf("mean: %s\n", line);
		free(line);
		line = show_fraction(&s->vnum, &s->vden, false, &val);
		printf("variance: %s\nstddev: %.10Lg\n", line, s->sd);
		free(line);
		line = pct_line(s);
		printf("percentiles: %s\n", line);
		free(line);
		explode_line(v);
		table_row(&t, (char *[]){ xstrdup("value"), xstrdup("count"),
			  xstrdup("probability"), xstrdup("at least"),
			  xstrdup("at most") }, NULL);
	}
	for (k = 0; bars && k < d->n; k++) {
		long double p = big_ratio(&d->c[k], &d->den);

		top = p > top ? p : top;
	}
	for (k = 0; k < d->n; k++) {
		long double p;
		char *c;

		if (big_is_zero(&d->c[k]))
			continue;
		p = big_ratio(&d->c[k], &d->den);
		c = big_str(&d->c[k]);
		if (o->csv) {
			printf("%lld,%s,%.10Lg,%.10Lg,%.10Lg\n",
			       (long long)(d->lo + (int64_t)k), c, p,
			       big_ratio(&s->at_least[k], &d->den),
			       big_ratio(&s->at_most[k], &d->den));
			free(c);
			continue;
		}
		table_row(&t, (char *[]){ show_fmt("%lld", (long long)(d->lo + (int64_t)k)),
			  c, show_fmt("%.6Lg", p),
			  show_fmt("%.6Lg", big_ratio(&s->at_least[k], &d->den)),
			  show_fmt("%.6Lg", big_ratio(&s->at_most[k], &d->den)) },
			  bars ? bar_text(top > 0 ? p / top : 0, BAR_WIDTH, o->utf8) : NULL);
	}
	if (!o->csv)
		table_print(&t, o->tty);
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
	long double top = 0;
	bool bars = want_bars(o) && !o->csv;

	for (i = 0; i < n; i++) {
		lo = v[i].d.lo < lo ? v[i].d.lo : lo;
		x = v[i].d.lo + (int64_t)v[i].d.n - 1;
		hi = x > hi ? x : hi;
	}
	row = xcalloc(n + 1, sizeof(*row));
	if (o->csv) {
		fputs("value", stdout);
		for (i = 0; i < n; i++) {
			putchar(',');
			csv_field(show_title(v[i].e));
		}
		putchar('\n');
	} else {
		row[0] = xstrdup("");
		for (i = 0; i < n; i++)
			row[i + 1] = xstrdup(show_title(v[i].e));
		table_row(&t, row, NULL);
#define STAT_ROW(name, ...) do {					\
		row[0] = xstrdup(name);					\
		for (i = 0; i < n; i++)					\
			row[i + 1] = show_fmt(__VA_ARGS__);			\
		table_row(&t, row, NULL);				\
	} while (0)
		STAT_ROW("mean", "%.6Lg", s[i].mean);
		STAT_ROW("stddev", "%.6Lg", s[i].sd);
		STAT_ROW("variance", "%.6Lg", s[i].var);
		STAT_ROW("min", "%lld", (long long)v[i].d.lo);
		STAT_ROW("max", "%lld", (long long)(v[i].d.lo + (int64_t)v[i].d.n - 1));
		for (j = 0; j < ARRAY_SIZE(pcts); j++) {
			char name[8];

			snprintf(name, sizeof(name), "%u%%", pcts[j]);
			STAT_ROW(name, "%lld", (long long)s[i].pct[j]);
		}
		for (i = 0; i < n && !v[i].rep.explode_limit; i++)
			;
		if (i < n)
			STAT_ROW("explode cap", "%u", v[i].rep.explode_limit);
#undef STAT_ROW
		row[0] = xstrdup("value");
		for (i = 0; i < n; i++)
			row[i + 1] = xstrdup(what);
		table_row(&t, row, NULL);
	}
	for (x = lo; bars && x <= hi; x++) {
		for (i = 0; i < n; i++) {
			const struct dist *d = &v[i].d;
			long double p;

			if (x < d->lo || x >= d->lo + (int64_t)d->n)
				continue;
			p = big_ratio(o->cumul == CUMUL_AT_LEAST ? &s[i].at_least[x - d->lo] :
				      o->cumul == CUMUL_AT_MOST ? &s[i].at_most[x - d->lo] :
				      &d->c[x - d->lo], &d->den);
			top = p > top ? p : top;
		}
	}
	for (x = lo; x <= hi; x++) {
		char *bar = NULL;

		row[0] = show_fmt("%lld", (long long)x);
		for (i = 0; i < n; i++) {
			const struct dist *d = &v[i].d;
			long double p = 0;

			if (x >= d->lo && x < d->lo + (int64_t)d->n) {
				size_t k = (size_t)(x - d->lo);

				p = big_ratio(o->cumul == CUMUL_AT_LEAST ? &s[i].at_least[k] :
					      o->cumul == CUMUL_AT_MOST ? &s[i].at_most[k] :
					      &d->c[k], &d->den);
			} else if (o->cumul == CUMUL_AT_LEAST && x < d->lo) {
				p = 1;
			} else if (o->cumul == CUMUL_AT_MOST && x > d->lo) {
				p = 1;
			}
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
}

void show_dists(struct shown *v, unsigned int n, const struct options *o)
{
	struct stats *s = xcalloc(n, sizeof(*s));
	unsigned int i;

	for (i = 0; i < n; i++)
		stats_of(&v[i].d, &s[i]);
	if (o->json) {
		for (i = 0; i < n; i++)
			dist_json(&v[i], &s[i]);
	} else if (n == 1) {
		dist_single(&v[0], o, &s[0]);
	} else {
		for (i = 0; i < n && !o->csv; i++) {
			if (v[i].e->repeat > 1)
				printf("%s: repeat: %llu independent rolls, each with this distribution\n",
				       v[i].e->text, (unsigned long long)v[i].e->repeat);
		}
		dist_side(v, n, o, s);
	}
	for (i = 0; i < n; i++)
		stats_free(&v[i].d, &s[i]);
	free(s);
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
	const struct dist *d = h->d;
	struct table t = { .ncols = 3 };
	long double *expect = xcalloc(d->n, sizeof(*expect)), maxv = 0, scale;
	uint64_t hidden = 0;
	bool first = true, bars = want_bars(o) && !o->csv && !o->json;
	size_t i;

	for (i = 0; i < d->n; i++) {
		expect[i] = big_ratio(&d->c[i], &d->den) * (long double)h->samples;
		if (expect[i] > maxv)
			maxv = expect[i];
		if ((long double)h->obs[i] > maxv)
			maxv = (long double)h->obs[i];
	}
	scale = maxv > 0 ? BAR_WIDTH / maxv : 0;
	if (o->json) {
		fputs("{\"expression\":", stdout);
		json_string(h->e->text);
		printf("%s,\"rolls\":%llu,\"values\":[", source,
		       (unsigned long long)h->samples);
	} else if (o->csv) {
		puts("value,observed,expected");
	} else {
		printf("histogram of %s: %llu rolls against the exact distribution\n",
		       h->e->text, (unsigned long long)h->samples);
		table_row(&t, (char *[]){ xstrdup("value"), xstrdup("observed"),
			  xstrdup("expected") },
			  bars ? xstrdup("(bar: observed; '|': expected)") : NULL);
	}
	for (i = 0; i < d->n; i++) {
		int64_t v = d->lo + (int64_t)i;

		if (big_is_zero(&d->c[i]))
			continue;
		if (o->json) {
			printf("%s{\"value\":%lld,\"observed\":%llu,\"expected\":%.6Lf}",
			       first ? "" : ",", (long long)v,
			       (unsigned long long)h->obs[i], expect[i]);
			first = false;
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
