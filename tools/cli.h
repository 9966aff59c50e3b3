/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - what dice.c (options, input), engine.c (the engine that rolls)
 * and show.c, show_dist.c, versus.c (output) share; the notation engine
 * is libdice's, through its public API (<dice_notation.h>) alone
 */
#ifndef _DICE_TOOLS_CLI_H
#define _DICE_TOOLS_CLI_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dice_notation.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum bars { BARS_AUTO, BARS_ALWAYS, BARS_NEVER };
enum cumul { CUMUL_NONE, CUMUL_AT_LEAST, CUMUL_AT_MOST };

struct options {
	bool breakdown;
	bool json;
	bool csv;
	bool dist;
	enum cumul cumul;
	uint64_t histogram;	/* 0: off */
	bool bits;
	bool userspace;
	bool seeded;
	uint64_t seed;
	uint32_t mapping;	/* --mapping (seeded engine), or 0: its own */
	const char *method_name;
	uint32_t method;
	uint64_t max_dice;
	unsigned int explode_limit;
	bool explode_set;
	bool roll20;
	bool foundry;
	bool avrae;
	bool interactive;
	enum bars bars;
	bool tty;		/* stdout is a terminal */
	bool utf8;		/* and the locale writes UTF-8 */
	int64_t *faces;		/* dW: --faces, or NULL */
	uint32_t *weights;	/* dW: --weights, or NULL */
	size_t custom_sides;	/* dW: its sides, 0: no dW */
	const char *weights_arg;
	const char *faces_arg;
	bool versus;		/* --versus A B */
	bool count;		/* --count=CMP */
	const char *count_arg;	/* as given */
	int count_cmp;		/* DICE_CMP_* (--roll20's '>' is '>=') */
	int64_t count_n;	/* the number it compares with */
	bool fair;		/* an engine of fair.c: no "seeded" notice */
};

/* fair.c: --commit, --log, --reveal, --verify; returns the exit status. */
int fair_main(int argc, char **argv);

/* help.c: --help. */
void usage(FILE *f);

/*
 * fail.c: the signal that asked dice to stop (SIGINT, SIGTERM...), or 0:
 * set by dice.c's handler, read by long loops.
 */
extern volatile sig_atomic_t dice_interrupted;
/* fail.c: "dice: " and the message on stderr (after flushing stdout). */
void vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* fail.c: the same and a newline, then exit 1. */
void die_fail(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* fail.c: allocation that says "dice: out of memory" and exits 1. */
void *cli_malloc(size_t size);
void *cli_calloc(size_t n, size_t size);
void *cli_realloc(void *p, size_t n, size_t size);
char *cli_strdup(const char *s);
/* fail.c: strict decimal numbers (no sign, spaces or overflow): 0 or -1. */
int parse_u64(const char *s, uint64_t *out);
int parse_i64(const char *s, int64_t *out);

/* ---- engine.c ---------------------------------------------------------- */

struct dice;
/**
 * struct engine - libdice behind a roller: the device or the userspace engine
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
struct engine {
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

/* The one engine (open between engine_open() and engine_close()). */
extern struct engine eng;
/* Open the engine @o names (exit 1 with the reason if it cannot). */
void engine_open(const struct options *o);
void engine_close(void);
/* What the engine's bits come from: "seeded", "userspace", "/dev/dice". */
const char *engine_name(const struct options *o);
/* dice_expr_roll_source()'s source: @arg is &eng. */
int engine_roll(void *arg, uint64_t sides, const uint32_t *weights,
		uint64_t *out, size_t count);

/* ---- show.c, show_dist.c ---------------------------------------------- */

/* json.c: @s as a JSON string on standard output. */
void json_string(const char *s);
/* A JSON number when a double holds it exactly, else a decimal string. */
void json_val(int64_t v);
bool want_bars(const struct options *o);
/* A roll as dice_result_text() writes it in @format, and a newline. */
void print_roll(const struct dice_result *r, int format);

/**
 * struct shown - one expression's exact distribution, ready to print
 * @e: the expression
 * @d: its distribution
 * @info: how the expression's distribution was computed (for --count,
 *	that of one roll)
 * @count: --count: @d is the number of the repeated rolls that meet this
 *	target (its text), not one roll
 */
struct shown {
	const struct dice_expr *e;
	struct dice_dist *d;
	struct dice_dist_info info;
	const char *count;
};

/* ---- versus.c ---------------------------------------------------------- */

/* --versus: P(A > B), P(A = B), P(A < B), exactly (0, or -ENOMEM). */
int versus_show(const struct shown *a, const struct shown *b,
		const struct options *o);
/*
 * Print @n distributions (side by side when n > 1); false when a signal
 * (dice_interrupted) stopped it before the last row.
 */
bool show_dists(struct shown *v, unsigned int n, const struct options *o);

/**
 * struct hist - the outcome of --histogram for one expression
 * @e: the expression
 * @rows: its exact distribution (dice_dist_table())
 * @n: number of @rows
 * @obs: rolls of each value of @rows
 * @samples: rolls in all
 */
struct hist {
	const struct dice_expr *e;
	const struct dice_dist_row *rows;
	size_t n;
	const uint64_t *obs;
	uint64_t samples;
};

/* The table (text, JSON or CSV) up to the chi-square line, exclusive. */
void show_histogram(const struct hist *h, const struct options *o,
		    const char *source);

#endif /* _DICE_TOOLS_CLI_H */
