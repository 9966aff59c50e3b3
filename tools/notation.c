// SPDX-License-Identifier: GPL-2.0
/*
 * notation.c - parse dice notation into a syntax tree
 *
 * A recursive-descent parser for the grammar in notation.h.  It accepts
 * what it fully understands and nothing else: every other input is an
 * error that names the offending byte, and nothing is ever guessed (no
 * default die for garbage, no silent reordering, no clamping).
 *
 * Sections: faces and compare points; errors; numbers; dice groups and
 * their modifiers; expressions; the public entry points.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "notation.h"

/* ---- faces and compare points ------------------------------------------ */

val_t die_face(const struct die *d, uint64_t i)
{
	switch (d->type) {
	case DIE_FUDGE:
		return (val_t)i - 1;
	case DIE_CUSTOM:
		if (d->faces)
			return d->faces[i];
		return (val_t)i + 1;
	default:
		return (val_t)i + 1;
	}
}

static bool side_used(const struct die *d, uint64_t i)
{
	return !(d->type == DIE_CUSTOM && d->weights && !d->weights[i]);
}

val_t die_min(const struct die *d)
{
	val_t m = VAL_MAX;
	uint64_t i;

	if (d->type == DIE_FAIR)
		return 1;
	for (i = 0; i < d->sides; i++) {
		if (side_used(d, i) && die_face(d, i) < m)
			m = die_face(d, i);
	}
	return m;
}

val_t die_max(const struct die *d)
{
	val_t m = VAL_MIN;
	uint64_t i;

	if (d->type == DIE_FAIR)
		return (val_t)d->sides;
	for (i = 0; i < d->sides; i++) {
		if (side_used(d, i) && die_face(d, i) > m)
			m = die_face(d, i);
	}
	return m;
}

int cmp_match(const struct cmp *c, val_t v)
{
	switch (c->op) {
	case CMP_EQ:
		return v == c->n;
	case CMP_LT:
		return v < c->n;
	case CMP_LE:
		return v <= c->n;
	case CMP_GT:
		return v > c->n;
	case CMP_GE:
		return v >= c->n;
	default:
		return 0;
	}
}

static bool any_rule(const struct cmp *c, unsigned int n, val_t v)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (cmp_match(&c[i], v))
			return true;
	}
	return false;
}

/*
 * The faces of a fair die form the interval [1, sides], and the faces that
 * match a set of compare points form a union of intervals whose ends lie
 * next to the points' numbers; so for a fair die it is enough to look at
 * 1, sides and the neighbours of each number.  Other dice are small enough
 * to look at every face.
 */
static bool scan(const struct die *d, const struct cmp *c, unsigned int n,
		 bool want)
{
	uint64_t i;
	unsigned int k;
	int delta;

	if (d->type != DIE_FAIR) {
		for (i = 0; i < d->sides; i++) {
			if (side_used(d, i) &&
			    any_rule(c, n, die_face(d, i)) == want)
				return true;
		}
		return false;
	}
	if (any_rule(c, n, 1) == want || any_rule(c, n, (val_t)d->sides) == want)
		return true;
	for (k = 0; k < n; k++) {
		for (delta = -1; delta <= 1; delta++) {
			val_t v = c[k].n + delta;

			if (v >= 1 && v <= (val_t)d->sides && any_rule(c, n, v) == want)
				return true;
		}
	}
	return false;
}

int die_any_match(const struct die *d, const struct cmp *c, unsigned int n)
{
	return scan(d, c, n, true);
}

int die_all_match(const struct die *d, const struct cmp *c, unsigned int n)
{
	return !scan(d, c, n, false);
}

void cmp_str(const struct cmp *c, char *buf, size_t len)
{
	static const char *const ops[] = {
		[CMP_NONE] = "", [CMP_EQ] = "=", [CMP_LT] = "<",
		[CMP_LE] = "<=", [CMP_GT] = ">", [CMP_GE] = ">=",
	};
	char num[VAL_BUFSZ];

	snprintf(buf, len, "%s%s", ops[c->op], val_str(c->n, num));
}

/* ---- errors ------------------------------------------------------------ */

struct parser {
	const char *s;
	size_t p;
	const struct notation_opts *o;
	struct notation_error *err;
	struct expr *e;
	bool failed;
	unsigned int depth;
};

#define MAX_DEPTH	64

static void fail(struct parser *ps, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	ps->err->offset = at;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
}

/* How to name the byte at @at in a message: 'x', or the end, or hex. */
static const char *what(const struct parser *ps, size_t at, char *buf,
			size_t len)
{
	unsigned char c = (unsigned char)ps->s[at];

	if (!c)
		snprintf(buf, len, "end of expression");
	else if (isgraph(c))
		snprintf(buf, len, "'%c'", c);
	else if (c == ' ')
		snprintf(buf, len, "space");
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static char cur(const struct parser *ps)
{
	return ps->s[ps->p];
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_space(struct parser *ps)
{
	while (is_space(cur(ps)))
		ps->p++;
}

/* ---- numbers ----------------------------------------------------------- */

/* Decimal digits at the cursor into *@v; the cursor must be on a digit. */
static bool number(struct parser *ps, uint64_t *v)
{
	size_t start = ps->p;
	uint64_t x = 0;

	while (isdigit((unsigned char)cur(ps))) {
		unsigned int dgt = (unsigned int)(cur(ps) - '0');

		if (x > (UINT64_MAX - dgt) / 10) {
			fail(ps, start, "number too large");
			return false;
		}
		x = x * 10 + dgt;
		ps->p++;
	}
	*v = x;
	return true;
}

/* A number that must follow @after (a modifier), written in messages. */
static bool need_number(struct parser *ps, uint64_t *v, const char *after,
			const char *hint)
{
	char buf[32];

	if (!isdigit((unsigned char)cur(ps))) {
		fail(ps, ps->p, "expected a number after '%s' but found %s%s",
		     after, what(ps, ps->p, buf, sizeof(buf)), hint);
		return false;
	}
	return number(ps, v);
}

/* An optionally negative integer within int64_t. */
static bool integer(struct parser *ps, int64_t *v, const char *after)
{
	size_t start = ps->p;
	bool neg = false;
	uint64_t u;

	if (cur(ps) == '-') {
		neg = true;
		ps->p++;
	}
	if (!need_number(ps, &u, after, ""))
		return false;
	if (u > (uint64_t)INT64_MAX + neg) {
		fail(ps, start, "number too large");
		return false;
	}
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

/*
 * A compare point: '=', '<', '<=', '>' or '>=' and an integer, or a bare
 * number meaning '='.  @after names what it follows, for messages.
 */
static bool is_cmp_start(char c)
{
	return c == '=' || c == '<' || c == '>';
}

static bool compare(struct parser *ps, struct cmp *c, const char *after)
{
	char buf[32];
	int64_t n;

	switch (cur(ps)) {
	case '=':
		c->op = CMP_EQ;
		ps->p++;
		break;
	case '<':
		ps->p++;
		c->op = CMP_LT;
		if (cur(ps) == '=') {
			c->op = CMP_LE;
			ps->p++;
		}
		break;
	case '>':
		ps->p++;
		c->op = CMP_GT;
		if (cur(ps) == '=') {
			c->op = CMP_GE;
			ps->p++;
		}
		break;
	default:
		if (!isdigit((unsigned char)cur(ps))) {
			fail(ps, ps->p,
			     "expected a compare point such as 1, <3 or >=5 after '%s' but found %s",
			     after, what(ps, ps->p, buf, sizeof(buf)));
			return false;
		}
		c->op = CMP_EQ;
		break;
	}
	if (!integer(ps, &n, c->op == CMP_EQ ? "=" : c->op == CMP_LT ? "<" :
		     c->op == CMP_LE ? "<=" : c->op == CMP_GT ? ">" : ">="))
		return false;
	c->n = n;
	return true;
}

/* ---- dice groups ------------------------------------------------------- */

/* d{F1,F2,...} or d{F1:W1,F2:W2,...} */
static bool custom_faces(struct parser *ps, struct die *d)
{
	size_t cap = 8, n = 0, open = ps->p;
	int64_t *faces = xmalloc(cap * sizeof(*faces));
	uint32_t *weights = xmalloc(cap * sizeof(*weights));
	bool weighted = false;
	uint64_t sum = 0;
	char buf[32];

	ps->p++;	/* '{' */
	for (;;) {
		int64_t f;
		uint64_t w = 1;
		size_t at = ps->p;
		bool has = false;

		if (n == DICE_MAX_CUSTOM_SIDES) {
			fail(ps, at, "too many faces (at most %u)",
			     DICE_MAX_CUSTOM_SIDES);
			goto bad;
		}
		if (cur(ps) != '-' && !isdigit((unsigned char)cur(ps))) {
			fail(ps, at, "expected a face value but found %s",
			     what(ps, at, buf, sizeof(buf)));
			goto bad;
		}
		if (!integer(ps, &f, "{"))
			goto bad;
		if (cur(ps) == ':') {
			size_t wat = ++ps->p;

			has = true;
			if (!need_number(ps, &w, ":", ""))
				goto bad;
			if (w > UINT32_MAX) {
				fail(ps, wat, "weight too large (at most 4294967295)");
				goto bad;
			}
		}
		if (n == cap) {
			cap *= 2;
			faces = xrealloc(faces, cap, sizeof(*faces));
			weights = xrealloc(weights, cap, sizeof(*weights));
		}
		faces[n] = f;
		weights[n] = (uint32_t)w;
		sum += w;
		n++;
		/* every face weighted, or none: no silent weight 1 */
		if (n == 1) {
			weighted = has;
		} else if (has != weighted) {
			fail(ps, at,
			     "give a weight (face:weight) for every face or for none");
			goto bad;
		}
		if (cur(ps) == ',') {
			ps->p++;
			continue;
		}
		if (cur(ps) == '}') {
			ps->p++;
			break;
		}
		if (!cur(ps))
			fail(ps, open, "missing '}' for this '{'");
		else
			fail(ps, ps->p, "expected ',' or '}' but found %s",
			     what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	if (!sum) {
		fail(ps, open, "every weight is zero");
		goto bad;
	}
	d->type = DIE_CUSTOM;
	d->sides = n;
	d->faces = faces;
	if (weighted) {
		d->weights = weights;
		d->weight_sum = sum;
	} else {
		free(weights);
		d->weight_sum = n;
	}
	return true;
bad:
	free(faces);
	free(weights);
	return false;
}

static void copy_die(struct die *to, const struct die *from)
{
	*to = *from;
	if (from->faces) {
		to->faces = xmalloc(from->sides * sizeof(*to->faces));
		memcpy(to->faces, from->faces, from->sides * sizeof(*to->faces));
	}
	if (from->weights) {
		to->weights = xmalloc(from->sides * sizeof(*to->weights));
		memcpy(to->weights, from->weights,
		       from->sides * sizeof(*to->weights));
	}
}

static void die_free(struct die *d)
{
	free(d->faces);
	free(d->weights);
}

/* The text of the modifier that starts at @start, for messages. */
static const char *mod_text(const struct parser *ps, size_t start, char *buf,
			    size_t len)
{
	size_t n = ps->p - start;

	if (n >= len)
		n = len - 1;
	memcpy(buf, ps->s + start, n);
	buf[n] = '\0';
	return buf;
}

static bool keep_drop(struct parser *ps, struct group *g, bool *seen)
{
	size_t start = ps->p;
	char kind = cur(ps), side, name[4] = { 0 };
	uint64_t n;

	ps->p++;
	if (kind == 'd' && cur(ps) != 'h' && cur(ps) != 'l') {
		fail(ps, start,
		     "ambiguous 'd' after a dice group: write dl (drop lowest) or dh (drop highest)");
		return false;
	}
	if (kind == 's') {
		side = 'l';
	} else if (cur(ps) == 'h' || cur(ps) == 'l') {
		side = cur(ps);
		ps->p++;
	} else {
		side = 'h';	/* k = kh */
	}
	memcpy(name, ps->s + start, ps->p - start);
	if (*seen) {
		fail(ps, start, "more than one keep/drop modifier in a dice group");
		return false;
	}
	*seen = true;
	if (!need_number(ps, &n, name, kind == 's' ?
			 " (rolldice: 4d6s1 drops the lowest die)" : ""))
		return false;
	if (kind == 'k') {
		if (n < 1 || n > g->count) {
			fail(ps, start, "cannot keep %llu of %llu %s",
			     (unsigned long long)n, (unsigned long long)g->count,
			     g->count == 1 ? "die" : "dice");
			return false;
		}
		g->keep = side == 'h' ? KEEP_HIGH : KEEP_LOW;
		g->nkeep = n;
	} else {
		if (n >= g->count) {
			fail(ps, start,
			     "cannot drop %llu of %llu %s (at least one must remain)",
			     (unsigned long long)n, (unsigned long long)g->count,
			     g->count == 1 ? "die" : "dice");
			return false;
		}
		/* dropping the lowest n keeps the highest count - n */
		g->keep = side == 'l' ? KEEP_HIGH : KEEP_LOW;
		g->nkeep = g->count - n;
	}
	return true;
}

static bool explode(struct parser *ps, struct group *g)
{
	size_t start = ps->p;
	char buf[48];

	ps->p++;
	if (g->explode != EXPLODE_NONE) {
		fail(ps, start, "more than one '!' modifier in a dice group");
		return false;
	}
	g->explode = EXPLODE_SEPARATE;
	if (cur(ps) == '!') {
		g->explode = EXPLODE_COMPOUND;
		ps->p++;
	}
	if (cur(ps) == 'p') {
		fail(ps, ps->p, "penetrating dice (!p) are not supported");
		return false;
	}
	if (is_cmp_start(cur(ps)) || isdigit((unsigned char)cur(ps))) {
		if (!compare(ps, &g->ex, g->explode == EXPLODE_COMPOUND ? "!!" : "!"))
			return false;
	} else {
		g->ex.op = CMP_EQ;
		g->ex.n = die_max(&g->die);
	}
	if (!die_any_match(&g->die, &g->ex, 1)) {
		fail(ps, start, "'%s' matches no face of the die, so nothing would explode",
		     mod_text(ps, start, buf, sizeof(buf)));
		return false;
	}
	if (die_all_match(&g->die, &g->ex, 1)) {
		fail(ps, start,
		     "'%s' matches every face: each die would explode %u times",
		     mod_text(ps, start, buf, sizeof(buf)), g->explode_limit);
		return false;
	}
	return true;
}

static bool reroll(struct parser *ps, struct group *g)
{
	size_t start = ps->p;
	enum reroll_mode mode = REROLL_ALWAYS;
	char buf[48];

	ps->p++;
	if (cur(ps) == 'o') {
		mode = REROLL_ONCE;
		ps->p++;
	}
	if (g->reroll != REROLL_NONE && g->reroll != mode) {
		fail(ps, start, "cannot mix 'r' and 'ro' in one dice group");
		return false;
	}
	if (g->nrr == DICE_MAX_REROLL_RULES) {
		fail(ps, start, "too many reroll rules (at most %d)",
		     DICE_MAX_REROLL_RULES);
		return false;
	}
	g->reroll = mode;
	if (!compare(ps, &g->rr[g->nrr], mode == REROLL_ONCE ? "ro" : "r"))
		return false;
	if (!die_any_match(&g->die, &g->rr[g->nrr], 1)) {
		fail(ps, start, "'%s' matches no face of the die",
		     mod_text(ps, start, buf, sizeof(buf)));
		return false;
	}
	g->nrr++;
	if (mode == REROLL_ALWAYS && die_all_match(&g->die, g->rr, g->nrr)) {
		fail(ps, start, "rerolling every face of the die would never stop");
		return false;
	}
	return true;
}

/*
 * Can a die of @g take a value that matches @c?  Compounded dice ('!!')
 * take values beyond their faces, so for them look at the whole range.
 */
static bool target_possible(const struct group *g, const struct cmp *c)
{
	val_t lo = die_min(&g->die), hi = die_max(&g->die), x;

	if (g->explode != EXPLODE_COMPOUND)
		return die_any_match(&g->die, c, 1);
	x = lo * (g->explode_limit + 1);
	if (x < lo)
		lo = x;
	x = hi * (g->explode_limit + 1);
	if (x > hi)
		hi = x;
	if (c->op == CMP_EQ)
		return c->n >= lo && c->n <= hi;
	return cmp_match(c, lo) || cmp_match(c, hi);
}

static bool success(struct parser *ps, struct group *g)
{
	size_t start = ps->p;
	char buf[48];

	if (!compare(ps, &g->success, "the dice"))
		return false;
	if (!target_possible(g, &g->success)) {
		fail(ps, start, "success target '%s' matches no face of the die",
		     mod_text(ps, start, buf, sizeof(buf)));
		return false;
	}
	if (cur(ps) != 'f')
		return true;
	start = ps->p++;
	if (!compare(ps, &g->failure, "f"))
		return false;
	if (!target_possible(g, &g->failure)) {
		fail(ps, start, "failure target '%s' matches no face of the die",
		     mod_text(ps, start, buf, sizeof(buf)));
		return false;
	}
	/* both are intervals of integers: they overlap if one holds an end */
	{
		struct cmp *s = &g->success, *f = &g->failure;
		val_t ends[6] = { s->n - 1, s->n, s->n + 1, f->n - 1, f->n, f->n + 1 };
		unsigned int i;
		bool overlap = false;

		for (i = 0; i < ARRAY_SIZE(ends); i++)
			overlap |= cmp_match(s, ends[i]) && cmp_match(f, ends[i]);
		/* two unbounded intervals of the same direction always overlap */
		if ((s->op == CMP_LT || s->op == CMP_LE) &&
		    (f->op == CMP_LT || f->op == CMP_LE))
			overlap = true;
		if ((s->op == CMP_GT || s->op == CMP_GE) &&
		    (f->op == CMP_GT || f->op == CMP_GE))
			overlap = true;
		if (overlap) {
			fail(ps, start,
			     "a value cannot count as both a success and a failure");
			return false;
		}
	}
	return true;
}

/* Letters that start a modifier, for the "no spaces" hint. */
static bool modifier_char(char c)
{
	return c && strchr("kdsr!<>=f", c);
}

static struct group *group(struct parser *ps, uint64_t count, size_t start)
{
	struct group *g = xcalloc(1, sizeof(*g));
	bool seen_keep = false;
	char buf[32];
	size_t at;

	g->count = count;
	g->start = start;
	g->explode_limit = ps->o->explode_limit;
	ps->p++;	/* 'd' */
	at = ps->p;
	switch (cur(ps)) {
	case '%':
		g->die.type = DIE_FAIR;
		g->die.sides = 100;
		g->die.weight_sum = 100;
		g->die.percent = 1;
		ps->p++;
		break;
	case 'F':
		g->die.type = DIE_FUDGE;
		g->die.sides = 3;
		g->die.weight_sum = 3;
		ps->p++;
		break;
	case 'W':
		if (!ps->o->custom) {
			fail(ps, at, "dW needs --weights or --faces");
			goto bad;
		}
		copy_die(&g->die, ps->o->custom);
		ps->e->uses_custom = 1;
		ps->p++;
		break;
	case '{':
		if (!custom_faces(ps, &g->die))
			goto bad;
		break;
	default:
		if (!isdigit((unsigned char)cur(ps))) {
			fail(ps, at,
			     "expected the number of sides, '%%', 'F', 'W' or '{' after 'd' but found %s%s",
			     what(ps, at, buf, sizeof(buf)),
			     cur(ps) == 'f' ? " (Fudge dice are written dF)" : "");
			goto bad;
		}
		if (!number(ps, &g->die.sides))
			goto bad;
		if (!g->die.sides) {
			fail(ps, at, "a die needs at least one side");
			goto bad;
		}
		g->die.type = DIE_FAIR;
		g->die.weight_sum = g->die.sides;
		break;
	}

	for (;;) {
		char c = cur(ps);

		if (g->success.op != CMP_NONE && modifier_char(c)) {
			fail(ps, ps->p,
			     "the success target must be the last modifier of its dice group");
			goto bad;
		}
		if (c == 'k' || c == 'd' || c == 's') {
			if (!keep_drop(ps, g, &seen_keep))
				goto bad;
		} else if (c == '!') {
			if (!explode(ps, g))
				goto bad;
		} else if (c == 'r') {
			if (!reroll(ps, g))
				goto bad;
		} else if (is_cmp_start(c)) {
			if (!success(ps, g))
				goto bad;
		} else if (c == 'f') {
			fail(ps, ps->p,
			     "'f' (failures) needs a success target first, as in 10d10>=8f1");
			goto bad;
		} else {
			break;
		}
	}
	g->end = ps->p;
	if (cur(ps) == 'x') {
		fail(ps, ps->p,
		     "unexpected 'x' after a dice group (a repeat, as in 6x3d6, goes only at the start)");
		goto bad;
	}
	if (isalpha((unsigned char)cur(ps))) {
		fail(ps, ps->p, "unknown modifier '%c'", cur(ps));
		goto bad;
	}
	if (isdigit((unsigned char)cur(ps)) || cur(ps) == '{' ||
	    cur(ps) == '(' || cur(ps) == '.' || cur(ps) == '_') {
		fail(ps, ps->p, "unexpected %s after a dice group",
		     what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	return g;
bad:
	die_free(&g->die);
	free(g);
	return NULL;
}

/* ---- expressions ------------------------------------------------------- */

static struct node *new_node(enum node_type type, size_t start)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->type = type;
	n->start = start;
	return n;
}

static void free_node(struct node *n)
{
	if (!n)
		return;
	free_node(n->l);
	free_node(n->r);
	free(n);	/* groups belong to the expression's array */
}

static struct node *expr(struct parser *ps);

static void unexpected(struct parser *ps, const char *expected)
{
	char buf[32];
	size_t at = ps->p;
	char c = cur(ps);
	const char *hint = "";

	if (c == 'D')
		hint = " (dice are written with a lowercase d)";
	else if (c == 'x')
		hint = " (a repeat, as in 6x3d6, goes only at the start)";
	else if (c == '/')
		hint = " (division is not supported)";
	else if (c == '{' || c == '}')
		hint = " (grouped rolls {...} are not supported)";
	else if (c == '[')
		hint = " (inline labels [...] are not supported)";
	else if (at && is_space(ps->s[at - 1]) && modifier_char(c))
		hint = " (no spaces are allowed inside a dice group)";
	else if (at && modifier_char(c) && ps->s[at - 1] != '(' &&
		 !strchr("+-*", ps->s[at - 1]))
		hint = " (modifiers must directly follow their dice group, as in 4d6s1+2)";
	if (!c && at) {
		fail(ps, at, "expression ends too early: expected %s", expected);
		return;
	}
	fail(ps, at, "unexpected %s: expected %s%s",
	     what(ps, at, buf, sizeof(buf)), expected, hint);
}

static bool count_dice(struct parser *ps, struct group *g)
{
	struct expr *e = ps->e;

	if (g->count > ps->o->max_dice ||
	    e->ndice + g->count > ps->o->max_dice) {
		fail(ps, g->start,
		     "too many dice: more than %llu in one expression (see --max-dice)",
		     (unsigned long long)ps->o->max_dice);
		return false;
	}
	e->ndice += g->count;
	return true;
}

static struct node *factor(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n;
	uint64_t v = 1;

	if (cur(ps) == '(') {
		if (++ps->depth > MAX_DEPTH) {
			fail(ps, start, "parentheses nested too deeply");
			return NULL;
		}
		ps->p++;
		n = expr(ps);
		if (!n)
			return NULL;
		skip_space(ps);
		if (cur(ps) != ')') {
			if (!cur(ps))
				fail(ps, start, "missing ')' for this '('");
			else
				unexpected(ps, "an operator or ')'");
			free_node(n);
			return NULL;
		}
		ps->p++;
		ps->depth--;
		n->paren = 1;
		n->start = start;
		n->end = ps->p;
		return n;
	}
	if (isdigit((unsigned char)cur(ps))) {
		if (!number(ps, &v))
			return NULL;
		if (cur(ps) != 'd') {
			if (v > INT64_MAX) {
				fail(ps, start, "number too large");
				return NULL;
			}
			n = new_node(NODE_CONST, start);
			n->value = (int64_t)v;
			n->end = ps->p;
			return n;
		}
		if (!v) {
			fail(ps, start,
			     "a dice group needs at least one die (0d rolls nothing)");
			return NULL;
		}
	}
	if (cur(ps) == 'd') {
		struct group *g = group(ps, v, start);

		if (!g)
			return NULL;
		g->index = ps->e->ngroups;
		ps->e->groups = xrealloc(ps->e->groups, ps->e->ngroups + 1,
					 sizeof(*ps->e->groups));
		ps->e->groups[ps->e->ngroups++] = g;
		n = new_node(NODE_GROUP, start);
		n->group = g;
		n->end = ps->p;
		if (!count_dice(ps, g)) {
			free(n);
			return NULL;
		}
		return n;
	}
	unexpected(ps, "a number, dice such as 3d6, or '('");
	return NULL;
}

static struct node *term(struct parser *ps)
{
	struct node *l = factor(ps);

	if (!l)
		return NULL;
	for (;;) {
		struct node *n, *r;

		skip_space(ps);
		if (cur(ps) != '*')
			break;
		ps->p++;
		skip_space(ps);
		r = factor(ps);
		if (!r) {
			free_node(l);
			return NULL;
		}
		n = new_node(NODE_MUL, l->start);
		n->l = l;
		n->r = r;
		n->end = r->end;
		l = n;
	}
	return l;
}

static struct node *expr(struct parser *ps)
{
	size_t start;
	struct node *l;

	skip_space(ps);
	start = ps->p;
	if (cur(ps) == '-') {
		ps->p++;
		skip_space(ps);
		l = term(ps);
		if (l) {
			struct node *n = new_node(NODE_NEG, start);

			n->l = l;
			n->end = l->end;
			l = n;
		}
	} else {
		l = term(ps);
	}
	if (!l)
		return NULL;
	for (;;) {
		struct node *n, *r;
		char op;

		skip_space(ps);
		op = cur(ps);
		if (op != '+' && op != '-')
			break;
		ps->p++;
		skip_space(ps);
		r = term(ps);
		if (!r) {
			free_node(l);
			return NULL;
		}
		n = new_node(op == '+' ? NODE_ADD : NODE_SUB, l->start);
		n->l = l;
		n->r = r;
		n->end = r->end;
		l = n;
	}
	return l;
}

/* ---- entry points ------------------------------------------------------ */

int notation_parse(const char *text, const struct notation_opts *opts,
		   struct expr **out, struct notation_error *err)
{
	struct parser ps = { .s = text, .o = opts, .err = err };
	struct expr *e = xcalloc(1, sizeof(*e));
	size_t start;

	e->text = xstrdup(text);
	e->repeat = 1;
	ps.e = e;
	ps.s = e->text;
	memset(err, 0, sizeof(*err));

	skip_space(&ps);
	if (!cur(&ps)) {
		fail(&ps, ps.p, "empty expression");
		goto bad;
	}
	/* NxEXPR: a number right before 'x' at the very start */
	start = ps.p;
	if (isdigit((unsigned char)cur(&ps))) {
		uint64_t n;

		if (!number(&ps, &n))
			goto bad;
		if (cur(&ps) == 'x') {
			if (!n || n > opts->max_dice) {
				fail(&ps, start, n ? "repeat count too large (see --max-dice)" :
				     "repeat count must be at least 1");
				goto bad;
			}
			e->repeat = n;
			ps.p++;
			if (!cur(&ps)) {
				fail(&ps, ps.p, "expression ends too early: expected an expression after 'x'");
				goto bad;
			}
			if (is_space(cur(&ps))) {
				fail(&ps, ps.p, "unexpected space after 'x'");
				goto bad;
			}
		} else {
			ps.p = start;
		}
	}
	e->root = expr(&ps);
	if (!e->root)
		goto bad;
	skip_space(&ps);
	if (cur(&ps)) {
		if (cur(&ps) == ')')
			fail(&ps, ps.p, "unexpected ')' without a matching '('");
		else
			unexpected(&ps, "an operator (+, -, *) or the end");
		goto bad;
	}
	if (e->repeat > 1 && e->ndice &&
	    (e->ndice > opts->max_dice / e->repeat)) {
		fail(&ps, 0,
		     "too many dice: more than %llu in one expression (see --max-dice)",
		     (unsigned long long)opts->max_dice);
		goto bad;
	}
	*out = e;
	return 0;
bad:
	notation_free(e);
	return -1;
}

void notation_free(struct expr *e)
{
	unsigned int i;

	if (!e)
		return;
	free_node(e->root);
	for (i = 0; i < e->ngroups; i++) {
		die_free(&e->groups[i]->die);
		free(e->groups[i]);
	}
	free(e->groups);
	free(e->text);
	free(e);
}
