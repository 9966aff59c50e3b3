// SPDX-License-Identifier: GPL-2.0
/*
 * dice.c - the dice command: roll dice notation with /dev/dice
 *
 * Sections: options; the custom die (--weights, --faces); parse errors;
 * the roll source (libdice); output of rolls (plain, --breakdown, --json);
 * --dist; --histogram; main.
 *
 * Exit status: 0 success, 1 failure (device, interrupted, infeasible
 * distribution), 2 bad usage (options or notation).  Errors go to stderr
 * as "dice: ...".  See dice(1).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <dice.h>

#include "dist.h"
#include "notation.h"
#include "roll.h"

#define DICE_VERSION		"1.0"
#define MAX_HISTOGRAM_ROLLS	1000000000ULL
#define HIST_WIDTH		40
#define PREFETCH		4096

/* ---- options ------------------------------------------------------------ */

struct options {
	bool breakdown;
	bool json;
	bool dist;
	uint64_t histogram;	/* 0: off */
	bool bits;
	bool userspace;
	bool seeded;
	uint64_t seed;
	const char *method_name;
	uint32_t method;
	uint64_t max_dice;
	unsigned int explode_limit;
	struct die custom;
	bool have_custom;
	const char *weights_arg;
	const char *faces_arg;
};

static const struct {
	const char *name;
	uint32_t value;
} methods[] = {
	{ "recycle", DICE_METHOD_RECYCLE },
	{ "viglietta", DICE_METHOD_VIGLIETTA },
	{ "batch", DICE_METHOD_BATCH },
	{ "alias", DICE_METHOD_ALIAS },
	{ "rejection", DICE_METHOD_REJECTION },
};

static void usage(FILE *f)
{
	fputs(
"Usage: dice [OPTION]... EXPRESSION...\n"
"Roll dice from the kernel's /dev/dice, or print their exact distribution.\n"
"\n"
"Notation (see dice(1)):\n"
"  3d6  d20  d%  4dF  3d{1,1,2,3,5,8}  2d{1:1,2:3}   dice groups\n"
"  3d6+2d4-1  2*(d6+1)                             arithmetic (+ - *)\n"
"  6x3d6                                           roll 6 times\n"
"  4d6kh3 4d6k3 2d20kl1 4d6dl1 4d6dh1 4d6s1        keep/drop\n"
"  3d6!  3d6!>=5  3d6!!                            explode (!! compounds)\n"
"  2d6r1  2d6r<3  2d6ro1                           reroll (ro: once)\n"
"  10d10>=8  10d10>=8f1                            count successes (f: failures)\n"
"\n"
"Options:\n"
"  -s, --breakdown      show every die: kept, dropped, exploded, rerolled\n"
"  -j, --json           JSON output: the expression, every die, the total\n"
"  -d, --dist           print the exact distribution (min, max, mean) and\n"
"                       roll nothing\n"
"  -H, --histogram=N    roll N times and draw a histogram against the exact\n"
"                       expectation, with a chi-square test\n"
"  -b, --bits           report random bits spent against the entropy bound\n"
"  -m, --method=NAME    sampling method: recycle (default), viglietta,\n"
"                       batch, alias, rejection\n"
"  -S, --seed=N         seeded replay: a userspace engine whose rolls follow\n"
"                       from N (reproducible, NOT random)\n"
"  -u, --userspace      roll with the userspace engine (getrandom()) instead\n"
"                       of /dev/dice\n"
"  -w, --weights=W1,... the die dW is loaded: side i has weight Wi\n"
"  -f, --faces=F1,...   the die dW has these face values\n"
"                       (with --weights or --faces, EXPRESSION defaults to dW)\n"
"      --max-dice=N     most dice per expression (default 1000000)\n"
"      --max-explode=N  most extra dice one exploding die adds (default 100)\n"
"  -h, --help           this help\n"
"  -V, --version        version\n"
"\n"
"Exit status: 0 success, 1 failure, 2 bad usage or notation.\n", f);
}

static void __attribute__((noreturn, format(printf, 1, 2))) bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("dice: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'dice --help' for more information.\n", stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2))) die_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("dice: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t number_opt(const char *opt, const char *arg, uint64_t min,
			   uint64_t max)
{
	uint64_t v;

	if (parse_u64(arg, &v) || v < min || v > max)
		bad_usage("%s needs a whole number from %llu to %llu, not '%s'",
			  opt, (unsigned long long)min, (unsigned long long)max,
			  arg);
	return v;
}

/* ---- the custom die ------------------------------------------------------- */

/* Split "a,b,c" strictly: no empty items, no spaces.  Returns the count. */
static size_t split_list(const char *opt, const char *arg, char ***items)
{
	char *copy = xstrdup(arg), *p = copy, **v = NULL;
	size_t n = 0;

	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p)
			bad_usage("%s: empty item in '%s'", opt, arg);
		v = xrealloc(v, n + 1, sizeof(*v));
		v[n++] = p;
		if (n > DICE_MAX_CUSTOM_SIDES)
			bad_usage("%s: more than %u items", opt,
				  DICE_MAX_CUSTOM_SIDES);
		if (!comma)
			break;
		p = comma + 1;
	}
	*items = v;
	return n;
}

static void build_custom(struct options *o)
{
	struct die *d = &o->custom;
	char **items;
	size_t n, i, nw = 0;

	if (!o->weights_arg && !o->faces_arg)
		return;
	memset(d, 0, sizeof(*d));
	d->type = DIE_CUSTOM;
	if (o->weights_arg) {
		n = nw = split_list("--weights", o->weights_arg, &items);
		d->weights = xmalloc(n * sizeof(*d->weights));
		for (i = 0; i < n; i++) {
			uint64_t w;

			if (parse_u64(items[i], &w) || w > UINT32_MAX)
				bad_usage("--weights: '%s' is not a weight (a whole number from 0 to 4294967295)",
					  items[i]);
			d->weights[i] = (uint32_t)w;
			d->weight_sum += w;
		}
		if (!d->weight_sum)
			bad_usage("--weights: every weight is zero");
		d->sides = n;
		free(items[0]);
		free(items);
	}
	if (o->faces_arg) {
		n = split_list("--faces", o->faces_arg, &items);
		if (o->weights_arg && n != nw)
			bad_usage("--faces has %zu values but --weights has %zu",
				  n, nw);
		d->faces = xmalloc(n * sizeof(*d->faces));
		for (i = 0; i < n; i++) {
			if (parse_i64(items[i], &d->faces[i]))
				bad_usage("--faces: '%s' is not a whole number",
					  items[i]);
		}
		d->sides = n;
		if (!o->weights_arg)
			d->weight_sum = n;
		free(items[0]);
		free(items);
	}
	o->have_custom = true;
}

/* ---- parse errors ----------------------------------------------------------- */

static void show_error(const char *text, const struct notation_error *err)
{
	size_t i, len = strlen(text);

	fprintf(stderr, "dice: %s (column %zu)\n  ", err->msg, err->offset + 1);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		fputc(c >= 0x20 && c < 0x7f ? c : '?', stderr);
	}
	fputs("\n  ", stderr);
	for (i = 0; i < err->offset; i++)
		fputc(' ', stderr);
	fputs("^\n", stderr);
}

/* ---- the roll source ------------------------------------------------------ */

/**
 * struct source - libdice behind a roll_source
 * @h: the handle
 * @configured: @sides/@weights describe what @h rolls now
 * @sides: sides set on @h
 * @weights: weights set on @h (NULL: fair)
 * @entropy: bits of entropy in one face of what @h rolls now
 * @faces: faces asked of @h
 * @bound: the entropy of those faces, in bits
 * @prefetch: keep a buffer of faces (for --histogram)
 * @buf: the buffer
 * @pos: next face in @buf
 * @len: faces in @buf
 * @method: the --method name, or NULL
 * @what: what failed, for the message, when a call into libdice fails
 */
struct source {
	struct dice *h;
	bool configured;
	uint64_t sides;
	const uint32_t *weights;
	long double entropy;
	uint64_t faces;
	long double bound;
	bool prefetch;
	uint64_t *buf;
	size_t pos, len;
	const char *method;
	char what[160];
};

static long double weights_entropy(const uint32_t *w, uint64_t n, uint64_t sum)
{
	long double h = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (w[i]) {
			long double p = (long double)w[i] / (long double)sum;

			h -= p * log2l(p);
		}
	}
	return h;
}

static bool same_die(const struct source *s, const struct die *d)
{
	const uint32_t *w = d->type == DIE_CUSTOM ? d->weights : NULL;

	if (!s->configured || s->sides != d->sides || !w != !s->weights)
		return false;
	return !w || w == s->weights ||
	       !memcmp(w, s->weights, d->sides * sizeof(*w));
}

static int configure(struct source *s, const struct die *d)
{
	const uint32_t *w = d->type == DIE_CUSTOM ? d->weights : NULL;
	int err;

	if (same_die(s, d))
		return 0;
	s->configured = false;
	s->pos = s->len = 0;	/* buffered faces were of the old die */
	if (w)
		err = dice_set_weights(s->h, w, (uint32_t)d->sides);
	else
		err = dice_set_sides(s->h, d->sides);
	if (err) {
		snprintf(s->what, sizeof(s->what), "cannot set up a %s die of %llu sides%s%s",
			 w ? "loaded" : "fair", (unsigned long long)d->sides,
			 s->method ? " with --method " : "",
			 s->method ? s->method : "");
		return err;
	}
	s->configured = true;
	s->sides = d->sides;
	s->weights = w;
	s->entropy = w ? weights_entropy(w, d->sides, d->weight_sum) :
			 log2l((long double)d->sides);
	return 0;
}

static int fetch(struct source *s, uint64_t *out, size_t count)
{
	int err = dice_roll(s->h, out, count, NULL);

	if (err) {
		snprintf(s->what, sizeof(s->what), "cannot roll");
		return err;
	}
	s->faces += count;
	s->bound += (long double)count * s->entropy;
	return 0;
}

static int source_roll(void *ctx, const struct die *d, uint64_t *out,
		       size_t count)
{
	struct source *s = ctx;
	int err = configure(s, d);

	if (err)
		return err;
	if (!s->prefetch || count > PREFETCH)
		return fetch(s, out, count);
	if (s->len - s->pos < count) {
		err = fetch(s, s->buf, PREFETCH);
		if (err)
			return err;
		s->pos = 0;
		s->len = PREFETCH;
	}
	memcpy(out, s->buf + s->pos, count * sizeof(*out));
	s->pos += count;
	return 0;
}

static void open_source(struct source *s, const struct options *o)
{
	const char *what = "/dev/dice";
	int err;

	memset(s, 0, sizeof(*s));
	if (o->seeded) {
		what = "the seeded engine";
		err = dice_open_seeded(&s->h, o->seed);
	} else if (o->userspace) {
		what = "the userspace engine";
		err = dice_open_flags(&s->h, DICE_OPEN_USERSPACE);
	} else {
		err = dice_open(&s->h);
	}
	if (err == -ENOENT && !o->seeded && !o->userspace)
		die_fail("cannot open /dev/dice: %s (is the dice module loaded? see dice(1))",
			 strerror(-err));
	if (err && !o->seeded && !o->userspace && dice_open_hint(err))
		die_fail("cannot open /dev/dice: %s (%s)", strerror(-err),
			 dice_open_hint(err));
	if (err)
		die_fail("cannot open %s: %s", what, strerror(-err));
	if (o->seeded)
		fprintf(stderr, "dice: seeded replay (seed %llu) - not random\n",
			(unsigned long long)o->seed);
	if (o->method_name) {
		err = dice_set_method(s->h, o->method);
		if (err)
			die_fail("--method %s: %s", o->method_name, strerror(-err));
	}
	s->buf = xmalloc(PREFETCH * sizeof(*s->buf));
	s->method = o->method_name;
}

static void close_source(struct source *s)
{
	dice_close(s->h);
	free(s->buf);
}

static void roll_error(const struct source *s, int err)
{
	if (err == -EINTR)
		die_fail("interrupted");
	if (err == -EOVERFLOW)
		die_fail("the total does not fit in 128 bits");
	die_fail("%s: %s", s->what[0] ? s->what : "cannot roll", strerror(-err));
}

/* ---- output of rolls ------------------------------------------------------- */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_span(const struct expr *e, size_t start, size_t end)
{
	fwrite(e->text + start, 1, end - start, stdout);
}

static const char *source_name(const struct options *o)
{
	return o->seeded ? "seeded" : o->userspace ? "userspace" : "/dev/dice";
}

/* One die of the pool for --breakdown: "6 exploded", "1 rerolled, 4". */
static void print_pool_die(const struct group_roll *gr, const struct pool_die *p)
{
	const struct roll_event *ev = gr->ev + p->first;
	bool compound = gr->g->explode == EXPLODE_COMPOUND, first = true;
	size_t i;

	size_t faces = 0;

	for (i = 0; i < p->nev; i++)
		faces += !(ev[i].flags & EV_REROLLED);
	compound = compound && faces > 1;
	if (compound) {
		val_print(stdout, p->value);
		fputs(" (", stdout);
	}
	for (i = 0; i < p->nev; i++) {
		if (ev[i].flags & EV_REROLLED) {
			val_print(stdout, ev[i].face);
			fputs(" rerolled, ", stdout);
		} else if (compound) {
			if (!first)
				putchar('+');
			val_print(stdout, ev[i].face);
			first = false;
		} else {
			val_print(stdout, ev[i].face);
			if (ev[i].flags & EV_EXPLODED)
				fputs(" exploded", stdout);
		}
	}
	if (compound)
		putchar(')');
	if (p->flags & POOL_DROPPED)
		fputs(" dropped", stdout);
	if (p->flags & POOL_SUCCESS)
		fputs(" success", stdout);
	if (p->flags & POOL_FAILURE)
		fputs(" failure", stdout);
}

static void print_breakdown_node(const struct expr *e, const struct node *n,
				 const struct roll_result *r)
{
	bool top = n == e->root;
	const struct group_roll *gr;
	size_t i;

	if (n->paren)
		putchar('(');
	switch (n->type) {
	case NODE_CONST:
		printf("%lld", (long long)n->value);
		break;
	case NODE_GROUP:
		gr = &r->groups[n->group->index];
		print_span(e, n->group->start, n->group->end);
		fputs(" [", stdout);
		for (i = 0; i < gr->npool; i++) {
			if (i)
				fputs(", ", stdout);
			print_pool_die(gr, &gr->pool[i]);
		}
		putchar(']');
		if (n->group->success.op != CMP_NONE && !top) {
			fputs(" = ", stdout);
			val_print(stdout, gr->value);
		}
		break;
	case NODE_NEG:
		putchar('-');
		print_breakdown_node(e, n->l, r);
		break;
	default:
		print_breakdown_node(e, n->l, r);
		fputs(n->type == NODE_ADD ? " + " : n->type == NODE_SUB ? " - " : " * ",
		      stdout);
		print_breakdown_node(e, n->r, r);
		break;
	}
	if (n->paren)
		putchar(')');
}

static void print_breakdown(const struct expr *e, const struct roll_result *r)
{
	print_breakdown_node(e, e->root, r);
	fputs(" = ", stdout);
	val_print(stdout, r->total);
	putchar('\n');
}

static void json_val(val_t v)
{
	val_print(stdout, v);
}

static void json_roll(const struct expr *e, const struct roll_result *r)
{
	unsigned int gi;
	size_t i, j;

	fputs("{\"total\":", stdout);
	json_val(r->total);
	fputs(",\"groups\":[", stdout);
	for (gi = 0; gi < r->ngroups; gi++) {
		const struct group_roll *gr = &r->groups[gi];
		const struct group *g = gr->g;
		char *text = strndup(e->text + g->start, g->end - g->start);

		if (gi)
			putchar(',');
		fputs("{\"group\":", stdout);
		json_string(text);
		free(text);
		fputs(",\"value\":", stdout);
		json_val(gr->value);
		fputs(",\"dice\":[", stdout);
		for (i = 0; i < gr->npool; i++) {
			const struct pool_die *p = &gr->pool[i];
			const struct roll_event *ev = gr->ev + p->first;
			bool any = false;

			if (i)
				putchar(',');
			fputs("{\"value\":", stdout);
			json_val(p->value);
			printf(",\"kept\":%s", p->flags & POOL_DROPPED ? "false" : "true");
			for (j = 0; j < p->nev; j++) {
				if (!(ev[j].flags & EV_REROLLED))
					continue;
				fputs(any ? "," : ",\"rerolled\":[", stdout);
				json_val(ev[j].face);
				any = true;
			}
			if (any)
				putchar(']');
			if (g->explode == EXPLODE_COMPOUND) {
				any = false;
				fputs(",\"faces\":[", stdout);
				for (j = 0; j < p->nev; j++) {
					if (ev[j].flags & EV_REROLLED)
						continue;
					if (any)
						putchar(',');
					json_val(ev[j].face);
					any = true;
				}
				putchar(']');
			} else if (p->nev && (ev[p->nev - 1].flags & EV_EXPLODED)) {
				fputs(",\"exploded\":true", stdout);
			}
			if (p->flags & POOL_EXTRA)
				fputs(",\"extra\":true", stdout);
			if (p->flags & POOL_SUCCESS)
				fputs(",\"success\":true", stdout);
			if (p->flags & POOL_FAILURE)
				fputs(",\"failure\":true", stdout);
			putchar('}');
		}
		fputs("]}", stdout);
	}
	fputs("]}", stdout);
}

struct bits_mark {
	struct dice_stats st;
	uint64_t faces;
	long double bound;
};

static void bits_mark(struct source *s, struct bits_mark *m)
{
	int err = dice_get_stats(s->h, &m->st);

	if (err)
		die_fail("cannot read the die's statistics: %s", strerror(-err));
	m->faces = s->faces;
	m->bound = s->bound;
}

static void bits_report(struct source *s, const struct bits_mark *before,
			bool json)
{
	struct bits_mark now;
	uint64_t used, rolls;
	long double bound, excess;

	bits_mark(s, &now);
	used = now.st.bits_used - before->st.bits_used;
	rolls = now.st.rolls - before->st.rolls;
	bound = now.bound - before->bound;
	excess = (long double)used - bound;
	if (json) {
		printf(",\"bits\":{\"used\":%llu,\"rolls\":%llu,\"entropy_bound\":%.6Lf}",
		       (unsigned long long)used, (unsigned long long)rolls, bound);
		return;
	}
	printf("bits: %llu used for %llu faces; entropy bound %.3Lf; excess %.3Lf",
	       (unsigned long long)used, (unsigned long long)rolls, bound, excess);
	if (rolls)
		printf(" (%.4Lf per face)", excess / (long double)rolls);
	putchar('\n');
}

static void roll_one_expr(const struct expr *e, const struct options *o,
			  struct source *s)
{
	struct roll_result r;
	struct bits_mark mark;
	uint64_t i;
	int err;

	roll_init(&r, e, o->breakdown || o->json);
	if (o->bits)
		bits_mark(s, &mark);
	if (o->json) {
		fputs("{\"expression\":", stdout);
		json_string(e->text);
		printf(",\"source\":\"%s\"", source_name(o));
		if (o->seeded)
			printf(",\"seed\":%llu", (unsigned long long)o->seed);
		if (o->method_name)
			printf(",\"method\":\"%s\"", o->method_name);
		fputs(",\"rolls\":[", stdout);
	}
	for (i = 0; i < e->repeat; i++) {
		err = roll_expr(e, &(struct roll_source){ source_roll, s }, &r);
		if (err) {
			fflush(stdout);
			if (o->json)
				fputc('\n', stdout);
			roll_error(s, err);
		}
		if (o->json) {
			if (i)
				putchar(',');
			json_roll(e, &r);
		} else if (o->breakdown) {
			print_breakdown(e, &r);
		} else {
			val_print(stdout, r.total);
			putchar('\n');
		}
	}
	if (o->json) {
		putchar(']');
		if (o->bits)
			bits_report(s, &mark, true);
		fputs("}\n", stdout);
	} else if (o->bits) {
		bits_report(s, &mark, false);
	}
	roll_free(&r);
}

/* ---- --dist ------------------------------------------------------------------ */

static void compute_dist(const struct expr *e, struct dist *d)
{
	struct dist_limits lim = { DIST_DEFAULT_MAX_VALUES, DIST_DEFAULT_MAX_WORK };
	char why[256] = "";
	int err = dist_expr(e, &lim, d, why, sizeof(why));

	if (err == -EINTR)
		die_fail("interrupted");
	if (err)
		die_fail("%s: no exact distribution: %s", e->text, why);
}

static void print_mean(const struct dist *d, bool json)
{
	struct big num = { 0 }, den = { 0 };
	char *ns, *ds;
	int neg;
	long double v;

	dist_mean(d, &num, &den, &neg);
	ns = big_str(&num);
	ds = big_str(&den);
	v = big_ratio(&num, &den) * (neg ? -1 : 1);
	if (json) {
		printf("\"mean\":{\"numerator\":\"%s%s\",\"denominator\":\"%s\",\"value\":%.10Lg}",
		       neg ? "-" : "", ns, ds, v);
	} else if (!strcmp(ds, "1")) {
		printf("mean: %s%s\n", neg ? "-" : "", ns);
	} else {
		printf("mean: %s%s/%s = %.10Lg\n", neg ? "-" : "", ns, ds, v);
	}
	free(ns);
	free(ds);
	big_free(&num);
	big_free(&den);
}

static void dist_one_expr(const struct expr *e, const struct options *o)
{
	struct dist d;
	char *den;
	size_t i;
	bool first = true;

	compute_dist(e, &d);
	den = big_str(&d.den);
	if (o->json) {
		fputs("{\"expression\":", stdout);
		json_string(e->text);
		if (e->repeat > 1)
			printf(",\"repeat\":%llu", (unsigned long long)e->repeat);
		printf(",\"denominator\":\"%s\",\"min\":%lld,\"max\":%lld,",
		       den, (long long)d.lo, (long long)(d.lo + (int64_t)d.n - 1));
		print_mean(&d, true);
		fputs(",\"distribution\":[", stdout);
	} else {
		printf("expression: %s\n", e->text);
		if (e->repeat > 1)
			printf("repeat: %llu independent rolls, each with this distribution\n",
			       (unsigned long long)e->repeat);
		printf("denominator: %s\nmin: %lld\nmax: %lld\n", den,
		       (long long)d.lo, (long long)(d.lo + (int64_t)d.n - 1));
		print_mean(&d, false);
		fputs("value\tcount\tprobability\n", stdout);
	}
	for (i = 0; i < d.n; i++) {
		char *c;
		long double p;

		if (big_is_zero(&d.c[i]))
			continue;
		c = big_str(&d.c[i]);
		p = big_ratio(&d.c[i], &d.den);
		if (o->json) {
			printf("%s{\"value\":%lld,\"count\":\"%s\",\"probability\":%.10Lg}",
			       first ? "" : ",", (long long)(d.lo + (int64_t)i), c, p);
		} else {
			printf("%lld\t%s\t%.6Lg\n", (long long)(d.lo + (int64_t)i), c, p);
		}
		first = false;
		free(c);
	}
	if (o->json)
		fputs("]}\n", stdout);
	free(den);
	dist_free(&d);
}

/* ---- --histogram -------------------------------------------------------------- */

/* Regularized upper incomplete gamma Q(a, x) (Numerical Recipes gammq). */
static long double gamma_q(long double a, long double x)
{
	long double gln = lgammal(a), sum, del, ap, b, c, d, h, an;
	int i;

	if (x <= 0)
		return 1;
	if (x < a + 1) {
		ap = a;
		sum = del = 1 / a;
		for (i = 0; i < 10000; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabsl(del) < fabsl(sum) * 1e-18L)
				break;
		}
		return 1 - sum * expl(-x + a * logl(x) - gln);
	}
	b = x + 1 - a;
	c = 1 / 1e-300L;
	d = 1 / b;
	h = d;
	for (i = 1; i < 10000; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabsl(d) < 1e-300L)
			d = 1e-300L;
		c = b + an / c;
		if (fabsl(c) < 1e-300L)
			c = 1e-300L;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabsl(del - 1) < 1e-18L)
			break;
	}
	return expl(-x + a * logl(x) - gln) * h;
}

static void bar(uint64_t obs, long double exp, long double scale)
{
	char line[HIST_WIDTH + 2];
	size_t len = (size_t)llroundl((long double)obs * scale);
	size_t mark = (size_t)llroundl(exp * scale), i, end;

	if (len > HIST_WIDTH)
		len = HIST_WIDTH;
	if (mark > HIST_WIDTH)
		mark = HIST_WIDTH;
	end = len > mark + 1 ? len : mark + 1;
	for (i = 0; i < end; i++)
		line[i] = i < len ? '#' : ' ';
	line[mark] = '|';
	line[end] = '\0';
	fputs(line, stdout);
}

static void histogram_one_expr(const struct expr *e, const struct options *o,
			       struct source *s)
{
	struct dist d;
	struct roll_result r;
	struct bits_mark mark;
	uint64_t *obs, i, samples, hidden = 0;
	long double *expect, maxv = 0, scale, chi = 0, acc_e = 0, acc_o = 0;
	unsigned long bins = 0;
	bool first = true;
	int err;

	compute_dist(e, &d);
	if (o->histogram > MAX_HISTOGRAM_ROLLS / e->repeat)
		bad_usage("--histogram %llu with %llu repeats is more than %llu rolls",
			  (unsigned long long)o->histogram,
			  (unsigned long long)e->repeat,
			  (unsigned long long)MAX_HISTOGRAM_ROLLS);
	samples = o->histogram * e->repeat;
	obs = xcalloc(d.n, sizeof(*obs));
	expect = xcalloc(d.n, sizeof(*expect));
	for (i = 0; i < d.n; i++)
		expect[i] = big_ratio(&d.c[i], &d.den) * (long double)samples;

	if (o->bits)
		bits_mark(s, &mark);
	s->prefetch = true;
	roll_init(&r, e, 0);
	for (i = 0; i < samples; i++) {
		err = roll_expr(e, &(struct roll_source){ source_roll, s }, &r);
		if (err == -EINTR)
			die_fail("interrupted after %llu of %llu rolls",
				 (unsigned long long)i, (unsigned long long)samples);
		if (err)
			roll_error(s, err);
		if (r.total < d.lo || r.total >= (val_t)d.lo + (val_t)d.n ||
		    big_is_zero(&d.c[r.total - d.lo])) {
			char buf[VAL_BUFSZ];

			die_fail("%s: rolled %s, which the exact distribution says is impossible",
				 e->text, val_str(r.total, buf));
		}
		obs[r.total - d.lo]++;
	}
	roll_free(&r);
	s->prefetch = false;

	/* chi-square over bins merged left to right until expected >= 5 */
	for (i = 0; i < d.n; i++) {
		acc_e += expect[i];
		acc_o += (long double)obs[i];
		if (acc_e >= 5) {
			chi += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
			bins++;
			acc_e = acc_o = 0;
		}
	}
	if (acc_e > 0 && bins) {	/* fold the tail into the last bin */
		chi += (acc_o - acc_e) * (acc_o - acc_e) / (acc_e + 5);
	}

	for (i = 0; i < d.n; i++) {
		if (expect[i] > maxv)
			maxv = expect[i];
		if ((long double)obs[i] > maxv)
			maxv = (long double)obs[i];
	}
	scale = maxv > 0 ? HIST_WIDTH / maxv : 0;
	if (o->json) {
		fputs("{\"expression\":", stdout);
		json_string(e->text);
		printf(",\"source\":\"%s\",\"rolls\":%llu,\"values\":[", source_name(o),
		       (unsigned long long)samples);
	} else {
		printf("histogram of %s: %llu rolls against the exact distribution\n",
		       e->text, (unsigned long long)samples);
		printf("%8s %10s %12s  ('#' observed, '|' expected)\n", "value",
		       "observed", "expected");
	}
	for (i = 0; i < d.n; i++) {
		if (big_is_zero(&d.c[i]))
			continue;
		if (o->json) {
			printf("%s{\"value\":%lld,\"observed\":%llu,\"expected\":%.6Lf}",
			       first ? "" : ",", (long long)(d.lo + (int64_t)i),
			       (unsigned long long)obs[i], expect[i]);
			first = false;
			continue;
		}
		if (!obs[i] && expect[i] < 0.5L) {
			hidden++;
			continue;
		}
		printf("%8lld %10llu %12.2Lf  ", (long long)(d.lo + (int64_t)i),
		       (unsigned long long)obs[i], expect[i]);
		bar(obs[i], expect[i], scale);
		putchar('\n');
	}
	if (o->json) {
		putchar(']');
		if (bins > 1)
			printf(",\"chi_square\":%.6Lf,\"degrees_of_freedom\":%lu,\"p_value\":%.6Lg",
			       chi, bins - 1, gamma_q((long double)(bins - 1) / 2, chi / 2));
		if (o->bits)
			bits_report(s, &mark, true);
		fputs("}\n", stdout);
	} else {
		if (hidden)
			printf("(%llu more values, each expected fewer than 0.5 times and not rolled, are not shown)\n",
			       (unsigned long long)hidden);
		if (bins > 1)
			printf("chi-square: %.4Lf with %lu degrees of freedom (bins merged to expect at least 5); p = %.4Lg\n",
			       chi, bins - 1,
			       gamma_q((long double)(bins - 1) / 2, chi / 2));
		else
			printf("chi-square: too few rolls for a test\n");
		if (o->bits)
			bits_report(s, &mark, false);
	}
	free(obs);
	free(expect);
	dist_free(&d);
}

/* ---- main ------------------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
	dice_interrupted = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: reads return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

enum { OPT_MAX_DICE = 256, OPT_MAX_EXPLODE };

static const struct option long_opts[] = {
	{ "breakdown", no_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "dist", no_argument, NULL, 'd' },
	{ "histogram", required_argument, NULL, 'H' },
	{ "bits", no_argument, NULL, 'b' },
	{ "method", required_argument, NULL, 'm' },
	{ "seed", required_argument, NULL, 'S' },
	{ "userspace", no_argument, NULL, 'u' },
	{ "weights", required_argument, NULL, 'w' },
	{ "faces", required_argument, NULL, 'f' },
	{ "max-dice", required_argument, NULL, OPT_MAX_DICE },
	{ "max-explode", required_argument, NULL, OPT_MAX_EXPLODE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->max_dice = DICE_DEFAULT_MAX_DICE;
	o->explode_limit = DICE_DEFAULT_MAX_EXPLODE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sjdH:bm:S:uw:f:hV", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o->breakdown = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'd':
			o->dist = true;
			break;
		case 'H':
			o->histogram = number_opt("--histogram", optarg, 1,
						  MAX_HISTOGRAM_ROLLS);
			break;
		case 'b':
			o->bits = true;
			break;
		case 'm':
			for (i = 0; i < ARRAY_SIZE(methods); i++) {
				if (!strcmp(optarg, methods[i].name))
					break;
			}
			if (i == ARRAY_SIZE(methods))
				bad_usage("unknown --method '%s' (recycle, viglietta, batch, alias, rejection)",
					  optarg);
			o->method_name = methods[i].name;
			o->method = methods[i].value;
			break;
		case 'S':
			o->seed = number_opt("--seed", optarg, 0, UINT64_MAX);
			o->seeded = true;
			break;
		case 'u':
			o->userspace = true;
			break;
		case 'w':
			o->weights_arg = optarg;
			break;
		case 'f':
			o->faces_arg = optarg;
			break;
		case OPT_MAX_DICE:
			o->max_dice = number_opt("--max-dice", optarg, 1,
						 DICE_HARD_MAX_DICE);
			break;
		case OPT_MAX_EXPLODE:
			o->explode_limit = (unsigned int)number_opt("--max-explode",
				optarg, 1, DICE_HARD_MAX_EXPLODE);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("dice %s\n", DICE_VERSION);
			exit(0);
		case ':':
			bad_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				bad_usage("unknown option '-%c'", optopt);
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->dist) {
		const char *other = o->histogram ? "--histogram" :
				    o->breakdown ? "--breakdown" :
				    o->bits ? "--bits" : o->seeded ? "--seed" :
				    o->userspace ? "--userspace" :
				    o->method_name ? "--method" : NULL;

		if (other)
			bad_usage("--dist rolls nothing, so it cannot be combined with %s",
				  other);
	}
	if (o->breakdown && o->json)
		bad_usage("--breakdown and --json cannot be combined (--json already lists every die)");
	if (o->breakdown && o->histogram)
		bad_usage("--breakdown and --histogram cannot be combined");
	build_custom(o);
}

int main(int argc, char **argv)
{
	struct options o;
	struct expr **exprs;
	struct source src;
	struct notation_opts nopts;
	static char dw[] = "dW";
	char *dflt[] = { dw };
	char **args;
	int nargs, i;
	bool used_custom = false;

	parse_options(argc, argv, &o);
	args = argv + optind;
	nargs = argc - optind;
	if (!nargs) {
		if (!o.have_custom)
			bad_usage("no expression given (try 'dice 3d6')");
		args = dflt;
		nargs = 1;
	}
	nopts = (struct notation_opts){
		.custom = o.have_custom ? &o.custom : NULL,
		.max_dice = o.max_dice,
		.explode_limit = o.explode_limit,
	};
	exprs = xcalloc((size_t)nargs, sizeof(*exprs));
	for (i = 0; i < nargs; i++) {
		struct notation_error err;

		if (notation_parse(args[i], &nopts, &exprs[i], &err)) {
			show_error(args[i], &err);
			exit(2);
		}
		used_custom |= exprs[i]->uses_custom;
	}
	if (o.have_custom && !used_custom)
		bad_usage("%s given, but no expression uses the die dW",
			  o.weights_arg ? "--weights" : "--faces");

	catch_signals();
	if (o.dist) {
		for (i = 0; i < nargs; i++) {
			if (i && !o.json)
				putchar('\n');
			dist_one_expr(exprs[i], &o);
		}
	} else {
		open_source(&src, &o);
		for (i = 0; i < nargs; i++) {
			if (o.histogram)
				histogram_one_expr(exprs[i], &o, &src);
			else
				roll_one_expr(exprs[i], &o, &src);
		}
		close_source(&src);
	}
	for (i = 0; i < nargs; i++)
		notation_free(exprs[i]);
	free(exprs);
	free(o.custom.faces);
	free(o.custom.weights);
	if (fflush(stdout) || ferror(stdout))
		die_fail("cannot write output: %s", strerror(errno));
	return 0;
}
