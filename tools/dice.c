// SPDX-License-Identifier: GPL-2.0
/*
 * dice.c - the dice command: roll dice notation with /dev/dice
 *
 * Sections: options; the custom die (--weights, --faces); errors; rolls;
 * --dist; --histogram; reading expressions (arguments, standard input,
 * -i); main.  The notation is read, rolled and computed by libdice
 * (<dice_notation.h>, one context for the run); what is printed is in
 * show.c, show_dist.c and versus.c; the engine that rolls is in engine.c.
 *
 * Exit status: 0 success, 1 failure (device, overflow), 2 bad usage
 * (options, notation, or a limit: too many dice, an exact distribution
 * too costly).  Errors go to stderr as "dice: ...".  Interrupted by
 * SIGINT or SIGTERM, dice says so and dies by that signal.  See dice(1).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dice.h>

#include "../testlib/chi2.h"
#include "cli.h"

#ifndef DICE_VERSION		/* the top-level VERSION file, from the Makefile */
#define DICE_VERSION		"unknown"
#endif
#define MAX_HISTOGRAM_ROLLS	1000000000ULL
#define CARET_WINDOW		60	/* bytes shown either side of an error */

/* ---- options ------------------------------------------------------------ */

/* The methods that roll loaded dice too (dice_method_parse() names all). */
static bool method_rolls_loaded(uint32_t method)
{
	return method == DICE_METHOD_RECYCLE || method == DICE_METHOD_ALIAS;
}


/* Output that fails is an error, even for --help. */
static void __attribute__((noreturn)) finish(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "dice: cannot write output: %s\n",
			strerror(errno ? errno : EIO));
		exit(status ? status : 1);
	}
	exit(status);
}

static void __attribute__((noreturn, format(printf, 1, 2))) bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fputs("\nTry 'dice --help' for more information.\n", stderr);
	exit(2);
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
	char *copy = cli_strdup(arg), *p = copy, **v = NULL;
	size_t n = 0;

	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p)
			bad_usage("%s: empty item in '%s'", opt, arg);
		v = cli_realloc(v, n + 1, sizeof(*v));
		v[n++] = p;
		if (n > DICE_NOTATION_MAX_CUSTOM_SIDES)
			bad_usage("%s: more than %u items", opt,
				  DICE_NOTATION_MAX_CUSTOM_SIDES);
		if (!comma)
			break;
		p = comma + 1;
	}
	*items = v;
	return n;
}

static void build_custom(struct options *o)
{
	char **items;
	size_t n, i, nw = 0;
	uint64_t sum = 0;

	if (!o->weights_arg && !o->faces_arg)
		return;
	if (o->weights_arg) {
		n = nw = split_list("--weights", o->weights_arg, &items);
		o->weights = cli_malloc(n * sizeof(*o->weights));
		for (i = 0; i < n; i++) {
			uint64_t w;

			if (parse_u64(items[i], &w) || w > UINT32_MAX)
				bad_usage("--weights: '%s' is not a weight (a whole number from 0 to 4294967295)",
					  items[i]);
			o->weights[i] = (uint32_t)w;
			sum += w;
		}
		if (!sum)
			bad_usage("--weights: every weight is zero");
		o->custom_sides = n;
		free(items[0]);
		free(items);
	}
	if (o->faces_arg) {
		n = split_list("--faces", o->faces_arg, &items);
		if (o->weights_arg && n != nw)
			bad_usage("--faces has %zu values but --weights has %zu",
				  n, nw);
		o->faces = cli_malloc(n * sizeof(*o->faces));
		for (i = 0; i < n; i++) {
			if (parse_i64(items[i], &o->faces[i]))
				bad_usage("--faces: '%s' is not a whole number",
					  items[i]);
		}
		o->custom_sides = n;
		free(items[0]);
		free(items);
	}
}

/* ---- errors ------------------------------------------------------------------ */

static struct options o;
/* The notation engine's context: limits, dialect, dW, the interrupt flag. */
static struct dice_notation *nctx;
/* --count of an expression without NxEXPR, on the command line or a line */
static const char count_needs_repeat[] =
	"--count counts the rolls of a repeat that meet the target: write NxEXPR, as in 6x1d20";
static bool line_mode;		/* expressions from standard input */
static unsigned long line_no;	/* the line being read, from 1 */
static int worst;		/* the worst exit status of line mode */

/*
 * An error about one expression: with arguments it ends dice with
 * @status, from standard input it is remembered and the next line read.
 */
static int __attribute__((format(printf, 2, 3))) expr_fail(int status,
							   const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("dice: ", stderr);
	if (line_mode)
		fprintf(stderr, "line %lu: ", line_no);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (!line_mode)
		exit(status);
	if (status > worst)
		worst = status;
	return status;
}

/* The expression with a caret under byte @offset (a window when long). */
static void show_caret(const char *text, size_t offset)
{
	size_t len = strlen(text), from = 0, to = len, i;

	if (len > 2 * CARET_WINDOW) {
		from = offset > CARET_WINDOW ? offset - CARET_WINDOW : 0;
		to = offset + CARET_WINDOW < len ? offset + CARET_WINDOW : len;
	}
	fputs("  ", stderr);
	if (from)
		fputs("...", stderr);
	for (i = from; i < to; i++) {
		unsigned char c = (unsigned char)text[i];

		fputc(c >= 0x20 && c < 0x7f ? c : '?', stderr);
	}
	if (to < len)
		fputs("...", stderr);
	fputs("\n  ", stderr);
	for (i = from ? from - 3 : 0; i < offset; i++)
		fputc(' ', stderr);
	fputs("^\n", stderr);
}

static int show_error(const char *text, size_t offset, const char *msg)
{
	int status;

	fflush(stdout);
	fputs("dice: ", stderr);
	if (line_mode)
		fprintf(stderr, "line %lu: ", line_no);
	fprintf(stderr, "%s (column %zu)\n", msg, offset + 1);
	show_caret(text, offset);
	status = 2;
	if (!line_mode)
		exit(status);
	if (status > worst)
		worst = status;
	return status;
}

/* Interrupted: say so, and die by the signal (the shell sees ^C). */
static int interrupted(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int interrupted(const char *fmt, ...)
{
	int sig = dice_interrupted;
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (o.interactive && sig == SIGINT) {	/* ^C: back to the prompt */
		dice_interrupted = 0;
		return 1;
	}
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

/* 0, or the status of a roll error (already reported). */
static int roll_error(int err)
{
	if (err == -EINTR)
		return interrupted("interrupted");
	if (err == -ENOMEM)
		die_fail("out of memory");
	if (err == -EOVERFLOW)
		return expr_fail(1, "the total does not fit in 128 bits");
	if (err == -EDOM)
		return expr_fail(1, "division by zero");
	if (err == -ERANGE)
		return expr_fail(1, "a computed number of dice is out of range");
	die_fail("%s: %s", eng.what[0] ? eng.what : "cannot roll", strerror(-err));
}

/*
 * A loaded die needs a method that rolls loaded dice (exit 2 if not).
 * Once per expression: main() checks the arguments before rolling any,
 * run_one() each line read.
 */
static int check_method(const struct dice_expr *e)
{
	if (!o.method_name || !(dice_expr_flags(e) & DICE_EXPR_LOADED) ||
	    method_rolls_loaded(o.method))
		return 0;
	return expr_fail(2, "--method %s rolls fair dice only, and %s has a loaded die (weights): use --method recycle or --method alias",
			 o.method_name, dice_expr_text(e));
}

/* ---- rolls ------------------------------------------------------------------- */

struct bits_mark {
	struct dice_stats st;
	uint64_t faces;
	long double bound;
};

static void bits_mark(struct bits_mark *m)
{
	int err = dice_get_stats(eng.h, &m->st);

	if (err)
		die_fail("cannot read the die's statistics: %s", strerror(-err));
	m->faces = eng.faces;
	m->bound = eng.bound;
}

/* The bits report as JSON members or as a text line, into @buf. */
static void bits_report(const struct bits_mark *before, bool json, char *buf,
			size_t len)
{
	struct bits_mark now;
	uint64_t used, rolls;
	long double bound, excess;

	bits_mark(&now);
	used = now.st.bits_used - before->st.bits_used;
	rolls = now.st.rolls - before->st.rolls;
	bound = now.bound - before->bound;
	excess = (long double)used - bound;
	if (json) {
		snprintf(buf, len, ",\"bits\":{\"used\":%llu,\"rolls\":%llu,\"entropy_bound\":%.6Lf}",
			 (unsigned long long)used, (unsigned long long)rolls, bound);
		return;
	}
	if (rolls)
		snprintf(buf, len, "bits: %llu used for %llu faces; entropy bound %.3Lf; excess %.3Lf (%.4Lf per face)\n",
			 (unsigned long long)used, (unsigned long long)rolls,
			 bound, excess, excess / (long double)rolls);
	else
		snprintf(buf, len, "bits: %llu used for %llu faces; entropy bound %.3Lf; excess %.3Lf\n",
			 (unsigned long long)used, (unsigned long long)rolls,
			 bound, excess);
}

/* ,"source":...,"seed":...,"mapping":...,"method":... */
static void json_source(char *buf, size_t len)
{
	int n = snprintf(buf, len, ",\"source\":\"%s\"", engine_name(&o));

	if (o.seeded)
		n += snprintf(buf + n, len - (size_t)n, ",\"seed\":%llu",
			      (unsigned long long)o.seed);
	if (o.mapping)
		n += snprintf(buf + n, len - (size_t)n, ",\"mapping\":%u",
			      (unsigned int)o.mapping);
	if (o.method_name)
		snprintf(buf + n, len - (size_t)n, ",\"method\":\"%s\"", o.method_name);
}

/* One roll of @e from the engine into *@r: 0 or a negative errno. */
static int roll_once(const struct dice_expr *e, unsigned int flags,
		     struct dice_result **r)
{
	return dice_expr_roll_source(nctx, e, engine_roll, &eng, flags, r);
}

static int roll_one_expr(const struct dice_expr *e)
{
	const char *comment = dice_expr_comment(e);
	uint64_t i, repeat = dice_expr_repeat(e);
	struct dice_result *r;
	struct bits_mark mark;
	char buf[256];
	int err;

	engine_open(&o);
	if (o.bits)
		bits_mark(&mark);
	if (o.json) {
		fputs("{\"expression\":", stdout);
		json_string(dice_expr_text(e));
		if (comment) {
			fputs(",\"comment\":", stdout);
			json_string(comment);
		}
		json_source(buf, sizeof(buf));
		fputs(buf, stdout);
		fputs(",\"rolls\":[", stdout);
	}
	for (i = 0; i < repeat; i++) {
		err = roll_once(e, o.breakdown || o.json ? 0 :
				DICE_ROLL_TOTAL_ONLY, &r);
		if (err) {
			if (o.json)
				fputc('\n', stdout);
			return roll_error(err);
		}
		if (o.json && i)
			putchar(',');
		print_roll(r, o.json ? DICE_TEXT_JSON : o.breakdown ?
			   DICE_TEXT_BREAKDOWN : DICE_TEXT_TOTAL);
		dice_result_free(r);
	}
	if (o.json) {
		putchar(']');
		if (o.bits) {
			bits_report(&mark, true, buf, sizeof(buf));
			fputs(buf, stdout);
		}
		fputs("}\n", stdout);
	} else if (o.bits) {
		bits_report(&mark, false, buf, sizeof(buf));
		fputs(buf, stdout);
	}
	return 0;
}

/* ---- --dist -------------------------------------------------------------------- */

/* 0, or the status of the failure (reported, with a caret). */
static int compute_dist(const struct dice_expr *e, struct dice_dist **d,
			struct dice_dist_info *info, const char *for_what)
{
	struct dice_notation_error why;
	char msg[512], hint[128] = "";
	int err = dice_expr_dist(nctx, e, d, &why);

	*info = why.dist;
	if (!err)
		dice_dist_info(*d, info);
	if (getenv("DICE_DEBUG_DIST"))
		fprintf(stderr, "dice: debug: estimate %.3g, work %llu limb products\n",
			info->estimate, (unsigned long long)info->work);
	if (err == -EINTR)
		return interrupted("interrupted");
	if (err == -ENOMEM)
		die_fail("out of memory");
	if (!err)
		return 0;
	if (info->explode_fit)
		snprintf(hint, sizeof(hint), "; --max-explode=%u would fit (now %u)",
			 info->explode_fit, info->explode_limit);
	snprintf(msg, sizeof(msg), "no exact distribution%s: %s%s", for_what,
		 why.message, hint);
	return show_error(dice_expr_text(e), why.offset, msg);
}

static int dist_exprs(struct dice_expr **e, unsigned int n)
{
	struct shown *v = cli_calloc(n, sizeof(*v));
	unsigned int i;
	int status = 0, err;

	for (i = 0; i < n && !status; i++) {
		v[i].e = e[i];
		status = compute_dist(e[i], &v[i].d, &v[i].info, "");
		if (!status && o.count) {	/* how many of the repeats */
			struct dice_dist *c;

			err = dice_dist_count(v[i].d, o.count_cmp, o.count_n,
					      dice_expr_repeat(e[i]), &c);
			if (err == -ERANGE)
				status = expr_fail(2, "--count counts at most 100000 rolls, not %llu",
						   (unsigned long long)dice_expr_repeat(e[i]));
			else if (err == -E2BIG)
				status = expr_fail(2, "no exact distribution for --count: counting %s would take more work than a distribution may: count fewer rolls",
						   dice_expr_text(e[i]));
			else if (err)
				die_fail("--count: %s", strerror(-err));
			dice_dist_free(v[i].d);
			v[i].d = status ? NULL : c;
			v[i].count = o.count_arg;
		}
	}
	if (!status && o.versus) {
		err = versus_show(&v[0], &v[1], &o);
		if (err)
			die_fail("--versus: %s", strerror(-err));
	} else if (!status && !show_dists(v, n, &o)) {
		status = interrupted("interrupted: the distribution was not printed in full");
	}
	for (i = 0; i < n; i++)
		dice_dist_free(v[i].d);
	free(v);
	return status;
}

/* ---- --histogram ---------------------------------------------------------------- */

/* The row of @rows whose value is @v, or -1. */
static ssize_t row_of(const struct dice_dist_row *rows, size_t n, int64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].value == v)
			return (ssize_t)mid;
		if (rows[mid].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int histogram_one_expr(const struct dice_expr *e)
{
	uint64_t repeat = dice_expr_repeat(e);
	struct dice_dist *d;
	struct dice_dist_info info;
	struct dice_dist_row *rows = NULL;
	struct dice_result *r;
	struct bits_mark mark;
	struct hist h;
	uint64_t *obs = NULL, i, samples;
	long double chi = 0, acc_e = 0, acc_o = 0, p;
	unsigned long bins = 0;
	char head[256], tail[256] = "";
	size_t n;
	int err;

	if (o.histogram > MAX_HISTOGRAM_ROLLS / repeat)
		return expr_fail(2, "--histogram %llu with %llu repeats is more than %llu rolls",
				 (unsigned long long)o.histogram,
				 (unsigned long long)repeat,
				 (unsigned long long)MAX_HISTOGRAM_ROLLS);
	err = compute_dist(e, &d, &info, " to compare with");
	if (err)
		return err;
	engine_open(&o);
	samples = o.histogram * repeat;
	n = dice_dist_size(d);
	rows = cli_calloc(n, sizeof(*rows));
	err = dice_dist_table(d, rows);
	if (err)
		die_fail("out of memory");
	obs = cli_calloc(n, sizeof(*obs));
	if (o.bits)
		bits_mark(&mark);
	eng.prefetch = true;
	for (i = 0; i < samples; i++) {
		int64_t total;
		ssize_t k = -1;

		err = roll_once(e, DICE_ROLL_TOTAL_ONLY, &r);
		if (err == -EINTR) {
			err = interrupted("interrupted after %llu of %llu rolls",
					  (unsigned long long)i,
					  (unsigned long long)samples);
			goto out;
		}
		if (err) {
			err = roll_error(err);
			goto out;
		}
		if (!dice_result_total(r, &total))
			k = row_of(rows, n, total);
		if (k < 0) {
			char buf[DICE_VALUE_STRLEN];

			dice_result_total_str(r, buf, sizeof(buf));
			die_fail("%s: rolled %s, which the exact distribution says is impossible",
				 dice_expr_text(e), buf);
		}
		dice_result_free(r);
		obs[k]++;
	}
	eng.prefetch = false;

	/*
	 * chi-square over bins merged left to right until expected >= 5 (a
	 * value of probability zero between two others adds nothing)
	 */
	for (i = 0; i < n; i++) {
		acc_e += rows[i].prob * (long double)samples;
		acc_o += (long double)obs[i];
		if (acc_e >= 5) {
			chi += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
			bins++;
			acc_e = acc_o = 0;
		}
	}
	if (acc_e > 0 && bins)	/* fold the tail into the last bin */
		chi += (acc_o - acc_e) * (acc_o - acc_e) / (acc_e + 5);
	p = bins > 1 ? chi2_gamma_q((long double)(bins - 1) / 2, chi / 2) : 1;

	json_source(head, sizeof(head));
	h = (struct hist){ e, rows, n, obs, samples };
	show_histogram(&h, &o, head);
	if (o.bits)
		bits_report(&mark, o.json, tail, sizeof(tail));
	if (o.json) {
		if (bins > 1)
			printf(",\"chi_square\":%.6Lf,\"degrees_of_freedom\":%lu,\"p_value\":%.6Lg",
			       chi, bins - 1, p);
		printf("%s}\n", tail);
	} else if (!o.csv) {
		if (bins > 1)
			printf("chi-square: %.4Lf with %lu degrees of freedom (bins merged to expect at least 5); p = %.4Lg\n",
			       chi, bins - 1, p);
		else
			printf("chi-square: too few rolls for a test\n");
		fputs(tail, stdout);
	}
	err = 0;
out:
	eng.prefetch = false;
	free(rows);
	free(obs);
	dice_dist_free(d);
	return err;
}

/* ---- reading expressions --------------------------------------------------------- */

/* 0 with *@out, or the status of the error (reported). */
static int line_parse(const char *text, struct dice_expr **out)
{
	struct dice_notation_error err;
	const char *w;
	unsigned int i;
	int ret = dice_expr_parse(nctx, text, out, &err);

	if (ret == -ENOMEM)
		die_fail("out of memory");
	if (ret)
		return show_error(text, err.offset, err.message);
	/* another roller would give another number: never without a word */
	for (i = 0; (w = dice_expr_warning(*out, i)); i++)
		fprintf(stderr, "dice: warning: %s\n", w);
	return 0;
}

/*
 * --count needs NxEXPR written: 1x1d20 counts one roll, 1d20 is a slip.
 * N > 1 needs no flag, so a libdice older than 0.4 still counts it.
 */
static bool count_has_repeat(const struct dice_expr *e)
{
	return dice_expr_repeat(e) > 1 ||
	       (dice_expr_flags(e) & DICE_EXPR_REPEAT);
}

static int run_one(struct dice_expr *e)
{
	if (o.count && !count_has_repeat(e))
		return expr_fail(2, "%s", count_needs_repeat);
	if (o.dist)
		return dist_exprs(&e, 1);
	if (check_method(e))
		return 2;
	if (o.histogram)
		return histogram_one_expr(e);
	return roll_one_expr(e);
}

static bool line_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s || *s == '#';
}

static void interactive_help(void)
{
	puts("Type an expression such as 3d6, 4d6kh3 or 2d20kh1+5, one a line;\n"
	     "'help' for this, 'quit' (or end of input) to stop.  The options\n"
	     "given on the command line apply to every line: dice -i --dist\n"
	     "prints distributions.  See dice(1) for the notation.");
}

/* Expressions from standard input, one a line; -i prompts for each. */
static int read_lines(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool any = false;

	line_mode = true;
	for (;;) {
		struct dice_expr *e;

		if (o.interactive) {
			fputs("dice> ", stdout);
			fflush(stdout);
		}
		errno = 0;
		len = getline(&line, &cap, stdin);
		if (len < 0) {
			if (errno == EINTR && dice_interrupted) {
				clearerr(stdin);
				if (!o.interactive || dice_interrupted != SIGINT) {
					interrupted("interrupted");
					continue;
				}
				dice_interrupted = 0;	/* ^C drops the line */
				putchar('\n');
				continue;
			}
			if (ferror(stdin))
				die_fail("cannot read standard input: %s",
					 strerror(errno));
			if (o.interactive && isatty(STDIN_FILENO))
				putchar('\n');
			break;
		}
		line_no++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len)) {
			expr_fail(2, "a NUL byte in the expression");
			continue;
		}
		if (line_blank(line))
			continue;
		any = true;
		if (o.interactive) {
			const char *w = line + strspn(line, " \t");

			if (!strcmp(w, "quit") || !strcmp(w, "exit") ||
			    !strcmp(w, "q"))
				break;
			if (!strcmp(w, "help") || !strcmp(w, "?")) {
				interactive_help();
				continue;
			}
		}
		if (line_parse(line, &e))
			continue;
		run_one(e);
		dice_expr_free(e);
		if (fflush(stdout) || ferror(stdout))
			die_fail("cannot write output: %s", strerror(errno));
	}
	free(line);
	if (!any && !o.interactive)
		bad_usage("no expression given (on the command line or on standard input; try 'dice 3d6')");
	return o.interactive ? 0 : worst;
}

/* ---- main ------------------------------------------------------------------- */

static void on_signal(int sig)
{
	dice_interrupted = sig;
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

enum { OPT_MAX_DICE = 256, OPT_MAX_EXPLODE, OPT_CSV, OPT_AT_LEAST,
       OPT_AT_MOST, OPT_BARS, OPT_ENGINE, OPT_ROLL20, OPT_VERSUS, OPT_COUNT,
       OPT_FOUNDRY, OPT_AVRAE, OPT_MAPPING };

static const struct option long_opts[] = {
	{ "breakdown", no_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "dist", no_argument, NULL, 'd' },
	{ "at-least", no_argument, NULL, OPT_AT_LEAST },
	{ "at-most", no_argument, NULL, OPT_AT_MOST },
	{ "histogram", required_argument, NULL, 'H' },
	{ "bars", required_argument, NULL, OPT_BARS },
	{ "bits", no_argument, NULL, 'b' },
	{ "method", required_argument, NULL, 'm' },
	{ "seed", required_argument, NULL, 'S' },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "userspace", no_argument, NULL, 'u' },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "weights", required_argument, NULL, 'w' },
	{ "faces", required_argument, NULL, 'f' },
	{ "interactive", no_argument, NULL, 'i' },
	{ "roll20", no_argument, NULL, OPT_ROLL20 },
	{ "foundry", no_argument, NULL, OPT_FOUNDRY },
	{ "avrae", no_argument, NULL, OPT_AVRAE },
	{ "versus", no_argument, NULL, OPT_VERSUS },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "max-dice", required_argument, NULL, OPT_MAX_DICE },
	{ "max-explode", required_argument, NULL, OPT_MAX_EXPLODE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --count's target: =N, <N, <=N, >N, >=N or N.  0 or -1. */
static int count_target(const char *s, int *cmp, int64_t *n)
{
	*cmp = DICE_CMP_EQ;
	if (s[0] == '<' || s[0] == '>') {
		bool eq = s[1] == '=';

		*cmp = s[0] == '<' ? (eq ? DICE_CMP_LE : DICE_CMP_LT) :
				     (eq ? DICE_CMP_GE : DICE_CMP_GT);
		s += 1 + eq;
	} else if (s[0] == '=') {
		s++;
	}
	return parse_i64(s, n);
}

static void set_engine(const char *name, const char *from)
{
	if (!strcmp(name, "userspace")) {
		o.userspace = true;
	} else if (!strcmp(name, "device")) {
		o.userspace = false;
	} else {
		bad_usage("%s '%s': expected device or userspace", from, name);
	}
}

static void parse_options(int argc, char **argv)
{
	const char *env = getenv("DICE_ENGINE");
	int c;

	memset(&o, 0, sizeof(o));
	o.max_dice = DICE_NOTATION_DEFAULT_MAX_DICE;
	if (env && *env)
		set_engine(env, "DICE_ENGINE");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sjdH:bm:S:uw:f:ihV", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o.breakdown = true;
			break;
		case 'j':
			o.json = true;
			break;
		case OPT_CSV:
			o.csv = true;
			break;
		case 'd':
			o.dist = true;
			break;
		case OPT_AT_LEAST:
		case OPT_AT_MOST:
			if (o.cumul != CUMUL_NONE &&
			    o.cumul != (c == OPT_AT_LEAST ? CUMUL_AT_LEAST : CUMUL_AT_MOST))
				bad_usage("--at-least and --at-most cannot be combined");
			o.cumul = c == OPT_AT_LEAST ? CUMUL_AT_LEAST : CUMUL_AT_MOST;
			break;
		case 'H':
			o.histogram = number_opt("--histogram", optarg, 1,
						 MAX_HISTOGRAM_ROLLS);
			break;
		case OPT_BARS:
			if (!strcmp(optarg, "auto"))
				o.bars = BARS_AUTO;
			else if (!strcmp(optarg, "always"))
				o.bars = BARS_ALWAYS;
			else if (!strcmp(optarg, "never"))
				o.bars = BARS_NEVER;
			else
				bad_usage("--bars '%s': expected auto, always or never",
					  optarg);
			break;
		case 'b':
			o.bits = true;
			break;
		case 'm':
			if (dice_method_parse(optarg, &o.method))
				bad_usage("unknown --method '%s' (recycle, viglietta, batch, alias, rejection)",
					  optarg);
			o.method_name = dice_method_name(o.method);
			break;
		case 'S':
			o.seed = number_opt("--seed", optarg, 0, UINT64_MAX);
			o.seeded = true;
			break;
		case OPT_MAPPING:
			o.mapping = (uint32_t)number_opt("--mapping", optarg,
							 DICE_MAPPING_1,
							 DICE_MAPPING_LATEST);
			break;
		case 'u':
			set_engine("userspace", "-u");
			break;
		case OPT_VERSUS:
			o.versus = o.dist = true;
			break;
		case OPT_COUNT:
			o.count = true;
			o.count_arg = optarg;
			if (count_target(optarg, &o.count_cmp, &o.count_n))
				bad_usage("--count '%s': expected a target such as >=15, <3 or 6",
					  optarg);
			break;
		case OPT_ENGINE:
			set_engine(optarg, "--engine");
			break;
		case 'w':
			o.weights_arg = optarg;
			break;
		case 'f':
			o.faces_arg = optarg;
			break;
		case 'i':
			o.interactive = true;
			break;
		case OPT_ROLL20:
			o.roll20 = true;
			break;
		case OPT_FOUNDRY:
			o.foundry = true;
			break;
		case OPT_AVRAE:
			o.avrae = true;
			break;
		case OPT_MAX_DICE:
			o.max_dice = number_opt("--max-dice", optarg, 1,
						DICE_NOTATION_MAX_DICE);
			break;
		case OPT_MAX_EXPLODE:
			o.explode_limit = (unsigned int)number_opt("--max-explode",
				optarg, 1, DICE_NOTATION_MAX_EXPLODE);
			o.explode_set = true;
			break;
		case 'h':
			usage(stdout);
			finish(0);
		case 'V':
			printf("dice %s\n", DICE_VERSION);
			finish(0);
		case ':':
			bad_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt && (isdigit(optopt) || optopt == '(' ||
				       optopt == '{'))
				bad_usage("unknown option '-%c' (an expression that starts with '-' goes after '--', as in: dice -- -1d6+5)",
					  optopt);
			if (optopt)
				bad_usage("unknown option '-%c'", optopt);
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* the device and -u roll by the latest mapping: no replay to match */
	if (o.mapping && !o.seeded)
		bad_usage("--mapping goes with --seed: it says which mapping of bits to faces a seeded replay rolls by (the device and -u roll by the latest)");
	if (o.dist) {
		/* the engine options may come from an alias: they do no harm */
		const char *other = o.histogram ? "--histogram" :
				    o.breakdown ? "--breakdown" :
				    o.bits ? "--bits" : o.seeded ? "--seed" : NULL;

		if (other)
			bad_usage("--dist rolls nothing, so it cannot be combined with %s",
				  other);
	}
	if (o.breakdown && o.json)
		bad_usage("--breakdown and --json cannot be combined (--json already lists every die)");
	if (o.breakdown && o.histogram)
		bad_usage("--breakdown and --histogram cannot be combined");
	if (o.csv && !o.dist && !o.histogram)
		bad_usage("--csv goes with --dist or --histogram");
	if (o.csv && o.json)
		bad_usage("--csv and --json cannot be combined");
	if (o.cumul != CUMUL_NONE && !o.dist)
		bad_usage("--at-least and --at-most go with --dist");
	if (o.count && !o.dist)
		bad_usage("--count goes with --dist");
	if (o.roll20 + o.foundry + o.avrae > 1)
		bad_usage("--roll20, --foundry and --avrae cannot be combined: each reads the notation as its roller does");
	if (o.roll20 && o.count_cmp == DICE_CMP_GT)	/* as in the notation */
		o.count_cmp = DICE_CMP_GE;
	if (o.roll20 && o.count_cmp == DICE_CMP_LT)
		o.count_cmp = DICE_CMP_LE;
	if (o.count && o.versus)
		bad_usage("--count and --versus cannot be combined");
	if (!o.explode_set)
		o.explode_limit = o.dist ? DICE_NOTATION_DEFAULT_DIST_MAX_EXPLODE :
					   DICE_NOTATION_DEFAULT_MAX_EXPLODE;
	build_custom(&o);
}

/* UTF-8 bars if the locale writes UTF-8; the parser stays in "C". */
static void look_at_terminal(void)
{
	const char *cs;

	o.tty = isatty(STDOUT_FILENO);
	if (setlocale(LC_CTYPE, "")) {
		cs = nl_langinfo(CODESET);
		o.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
		setlocale(LC_CTYPE, "C");
	}
}

/* The context the options describe (exit 1 if it cannot be made). */
static void notation_setup(void)
{
	int dialect = o.roll20 ? DICE_DIALECT_ROLL20 :
		      o.foundry ? DICE_DIALECT_FOUNDRY :
		      o.avrae ? DICE_DIALECT_AVRAE : DICE_DIALECT_DICE;
	int err;

	err = dice_notation_new(&nctx);
	if (!err)
		err = dice_notation_set_limit(nctx, DICE_LIMIT_MAX_DICE,
					      o.max_dice);
	/* one cap for both: rolls and --dist parse alike */
	if (!err)
		err = dice_notation_set_limit(nctx, DICE_LIMIT_MAX_EXPLODE,
					      o.explode_limit);
	if (!err)
		err = dice_notation_set_limit(nctx, DICE_LIMIT_DIST_MAX_EXPLODE,
					      o.explode_limit);
	if (!err)
		err = dice_notation_set_dialect(nctx, dialect);
	if (!err)
		err = dice_notation_set_custom(nctx, o.custom_sides, o.faces,
					       o.weights);
	if (!err)
		err = dice_notation_set_interrupt(nctx, &dice_interrupted);
	if (err)
		die_fail("cannot set up the notation engine: %s",
			 strerror(-err));
}

static int dice_main(int argc, char **argv)
{
	struct dice_expr **exprs;
	static char dw[] = "dW";
	char *dflt[] = { dw };
	char **args;
	int nargs, i, status = 0;
	bool used_custom = false;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "--commit", 8) || !strncmp(argv[i], "--log", 5) ||
		    !strncmp(argv[i], "--reveal", 8) || !strncmp(argv[i], "--verify", 8))
			return fair_main(argc, argv);	/* fair.c */
	}
	parse_options(argc, argv);
	look_at_terminal();
	args = argv + optind;
	nargs = argc - optind;
	notation_setup();
	if (o.interactive && nargs)
		bad_usage("-i reads expressions at a prompt: give none on the command line");
	if (!nargs && o.custom_sides && !o.interactive) {
		args = dflt;
		nargs = 1;
	}
	catch_signals();
	if (!nargs) {
		if (o.versus)
			bad_usage("--versus compares two expressions given as arguments: dice --versus '1d20+5' '1d20+3'");
		if (!o.interactive && isatty(STDIN_FILENO))
			bad_usage("no expression given (try 'dice 3d6', or 'dice -i' to type them at a prompt)");
		status = read_lines();
		engine_close();
		finish(status);
	}

	exprs = cli_calloc((size_t)nargs, sizeof(*exprs));
	for (i = 0; i < nargs; i++) {
		line_parse(args[i], &exprs[i]);	/* exits on error */
		used_custom |= dice_expr_flags(exprs[i]) & DICE_EXPR_CUSTOM;
	}
	if (o.custom_sides && !used_custom)
		bad_usage("%s given, but no expression uses the die dW",
			  o.weights_arg ? "--weights" : "--faces");
	if (!o.dist) {
		for (i = 0; i < nargs; i++)
			check_method(exprs[i]);	/* exits on error */
	}

	if (o.versus && nargs != 2)
		bad_usage("--versus compares two expressions, A and B: dice --versus '1d20+5' '1d20+3'");
	/* NxEXPR's N was dropped silently: one roll of EXPR was compared */
	for (i = 0; o.versus && i < nargs; i++) {
		if (dice_expr_repeat(exprs[i]) > 1)
			bad_usage("--versus compares one roll of A with one of B, and %s repeats: give each without NxEXPR's N",
				  dice_expr_text(exprs[i]));
	}
	for (i = 0; o.count && i < nargs; i++) {
		if (!count_has_repeat(exprs[i]))
			bad_usage("%s", count_needs_repeat);
	}
	if (o.dist) {
		status = dist_exprs(exprs, (unsigned int)nargs);
	} else {
		for (i = 0; i < nargs; i++) {
			if (o.histogram)
				histogram_one_expr(exprs[i]);
			else
				roll_one_expr(exprs[i]);
		}
		engine_close();
	}
	for (i = 0; i < nargs; i++)
		dice_expr_free(exprs[i]);
	free(exprs);
	free(o.faces);
	free(o.weights);
	dice_notation_free(nctx);
	finish(status);
}

int main(int argc, char **argv)
{
	return dice_main(argc, argv);
}
