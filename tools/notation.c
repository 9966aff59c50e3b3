// SPDX-License-Identifier: GPL-2.0
/*
 * notation.c - parse dice notation into a syntax tree
 *
 * A recursive-descent parser for the grammar in notation.h.  It accepts
 * what it fully understands and nothing else: every other input is an
 * error that names the offending byte, and nothing is ever guessed (no
 * default die for garbage, no silent reordering, no clamping).
 *
 * Recursion follows nesting only (parentheses, braces, functions, unary
 * minus, computed counts), which DICE_MAX_DEPTH bounds; chains of
 * operators are read in loops into n-ary nodes, so a sum of a hundred
 * thousand terms is as shallow as one of two.
 *
 * Sections: faces and compare points; errors; numbers; dice groups and
 * their modifiers; bounds; expressions; the public entry points.
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

bool die_side_used(const struct die *d, uint64_t i)
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
		if (die_side_used(d, i) && die_face(d, i) < m)
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
		if (die_side_used(d, i) && die_face(d, i) > m)
			m = die_face(d, i);
	}
	return m;
}

static val_t clamp(const struct group *g, val_t v)
{
	if (g->has_min && v < g->min)
		v = g->min;
	if (g->has_max && v > g->max)
		v = g->max;
	return v;
}

val_t group_face(const struct group *g, uint64_t i)
{
	return clamp(g, die_face(&g->die, i));
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

int cmp_score(const struct cmp *success, const struct cmp *failure, val_t v)
{
	if (cmp_match(success, v))
		return 1;
	if (cmp_match(failure, v))
		return -1;
	return 0;
}

bool cmp_any(const struct cmp *c, unsigned int n, val_t v)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (cmp_match(&c[i], v))
			return true;
	}
	return false;
}

/*
 * Is there a face of @d (after @g's min/max when @g is given) for which
 * cmp_any() is @want?  The faces of a fair die form an interval, and so
 * do they after min/max; the faces that match a set of compare points form
 * a union of intervals whose ends lie next to the points' numbers; so for
 * a fair die it is enough to look at both ends and the neighbours of each
 * number.  Other dice are small enough to look at every face.
 */
static bool scan(const struct die *d, const struct group *g,
		 const struct cmp *c, unsigned int n, bool want)
{
	val_t lo, hi;
	uint64_t i;
	unsigned int k;
	int delta;

	if (d->type != DIE_FAIR) {
		for (i = 0; i < d->sides; i++) {
			val_t v = g ? group_face(g, i) : die_face(d, i);

			if (die_side_used(d, i) && cmp_any(c, n, v) == want)
				return true;
		}
		return false;
	}
	lo = g ? clamp(g, 1) : 1;
	hi = g ? clamp(g, (val_t)d->sides) : (val_t)d->sides;
	if (cmp_any(c, n, lo) == want || cmp_any(c, n, hi) == want)
		return true;
	for (k = 0; k < n; k++) {
		for (delta = -1; delta <= 1; delta++) {
			val_t v = c[k].n + delta;

			if (v >= lo && v <= hi && cmp_any(c, n, v) == want)
				return true;
		}
	}
	return false;
}

int die_any_match(const struct die *d, const struct cmp *c, unsigned int n)
{
	return scan(d, NULL, c, n, true);
}

int die_all_match(const struct die *d, const struct cmp *c, unsigned int n)
{
	return !scan(d, NULL, c, n, false);
}

static bool group_any(const struct group *g, const struct cmp *c,
		      unsigned int n)
{
	return scan(&g->die, g, c, n, true);
}

static bool group_all(const struct group *g, const struct cmp *c,
		      unsigned int n)
{
	return !scan(&g->die, g, c, n, false);
}

static val_t group_min(const struct group *g)
{
	return clamp(g, die_min(&g->die));
}

static val_t group_max(const struct group *g)
{
	return clamp(g, die_max(&g->die));
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

uint64_t keep_count(const struct keep *k, uint64_t pool)
{
	if (k->mode == KEEP_ALL)
		return pool;
	if (k->drop)
		return pool > k->n ? pool - k->n : 0;
	return pool < k->n ? pool : k->n;
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

/* Step over @c if it comes next. */
static bool skip(struct parser *ps, char c)
{
	if (cur(ps) != c)
		return false;
	ps->p++;
	return true;
}

static char peek(const struct parser *ps, size_t ahead)
{
	size_t i;

	for (i = 0; i < ahead; i++) {
		if (!ps->s[ps->p + i])
			return '\0';
	}
	return ps->s[ps->p + ahead];
}

static bool looking_at(const struct parser *ps, const char *word)
{
	return !strncmp(ps->s + ps->p, word, strlen(word));
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

/* Enter a nesting construct that starts at @at; false past the limit. */
static bool enter(struct parser *ps, size_t at)
{
	if (++ps->depth > DICE_MAX_DEPTH) {
		fail(ps, at, "nested too deeply (more than %d levels of parentheses, braces, functions and signs)",
		     DICE_MAX_DEPTH);
		return false;
	}
	return true;
}

static void leave(struct parser *ps)
{
	ps->depth--;
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
 * number meaning '='.  @after names what it follows, for messages.  With
 * --roll20, '<' and '>' include their number.
 */
static bool is_cmp_start(char c)
{
	return c == '=' || c == '<' || c == '>';
}

static bool compare(struct parser *ps, struct cmp *c, const char *after)
{
	static const char *const names[] = {
		[CMP_NONE] = "", [CMP_EQ] = "=", [CMP_LT] = "<",
		[CMP_LE] = "<=", [CMP_GT] = ">", [CMP_GE] = ">=",
	};
	char buf[32];
	int64_t n;

	switch (cur(ps)) {
	case '=':
		c->op = CMP_EQ;
		ps->p++;
		break;
	case '<':
		ps->p++;
		c->op = skip(ps, '=') ? CMP_LE : CMP_LT;
		break;
	case '>':
		ps->p++;
		c->op = skip(ps, '=') ? CMP_GE : CMP_GT;
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
	if (!integer(ps, &n, names[c->op]))
		return false;
	c->n = n;
	if (ps->o->roll20 && c->op == CMP_GT)
		c->op = CMP_GE;
	if (ps->o->roll20 && c->op == CMP_LT)
		c->op = CMP_LE;
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

/* The text from @start to the cursor, for messages. */
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

/*
 * A keep/drop modifier for a pool of @pool dice (@exact: the pool is
 * always that large; otherwise it may be smaller, down to none).
 */
static bool keep_drop(struct parser *ps, struct keep *k, uint64_t pool,
		      bool exact, const char *what_pool, const char *noun,
		      const char *hint_s)
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
	if (k->mode != KEEP_ALL) {
		fail(ps, start, "more than one keep/drop modifier in a %s",
		     what_pool);
		return false;
	}
	if (!need_number(ps, &n, name, kind == 's' ? hint_s : ""))
		return false;
	if (kind == 'k') {
		if (n < 1 || (exact && n > pool)) {
			fail(ps, start, "cannot keep %llu of %llu %s",
			     (unsigned long long)n, (unsigned long long)pool,
			     pool == 1 && !strcmp(noun, "dice") ? "die" : noun);
			return false;
		}
		k->mode = side == 'h' ? KEEP_HIGH : KEEP_LOW;
		k->n = n;
	} else {
		if (exact && n >= pool) {
			fail(ps, start,
			     "cannot drop %llu of %llu %s (at least one must remain)",
			     (unsigned long long)n, (unsigned long long)pool,
			     pool == 1 && !strcmp(noun, "dice") ? "die" : noun);
			return false;
		}
		/* dropping the lowest n keeps the highest ones */
		k->mode = side == 'l' ? KEEP_HIGH : KEEP_LOW;
		k->drop = true;
		k->n = n;
	}
	return true;
}

/* Modifiers whose checks wait for the whole group (min/max change faces). */
enum check_kind { CK_EXPLODE, CK_REROLL, CK_SUCCESS, CK_FAILURE, CK_UNIQUE,
		  CK_CRIT_S, CK_CRIT_F, CK_MATCH };

struct check {
	enum check_kind kind;
	size_t start, end;
	unsigned int rule;
};

struct mods {
	struct check ck[24];
	unsigned int n;
};

static bool note(struct parser *ps, struct mods *m, enum check_kind kind,
		 size_t start, unsigned int rule)
{
	if (m->n == ARRAY_SIZE(m->ck)) {
		fail(ps, start, "too many modifiers in one dice group");
		return false;
	}
	m->ck[m->n++] = (struct check){ kind, start, ps->p, rule };
	return true;
}

/*
 * Step over a modifier of @len characters that a group may have once;
 * false, with the message, if @taken says it has it already.
 */
static bool modifier_once(struct parser *ps, size_t len, bool taken,
			  const char *name)
{
	size_t start = ps->p;

	ps->p += len;
	if (taken) {
		fail(ps, start, "more than one '%s' modifier in a dice group",
		     name);
		return false;
	}
	return true;
}

/* A comparison (or a bare number) follows the modifier. */
static bool cmp_follows(const struct parser *ps)
{
	return is_cmp_start(cur(ps)) || isdigit((unsigned char)cur(ps));
}

static bool explode(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;

	if (!modifier_once(ps, 1, g->explode != EXPLODE_NONE, "!"))
		return false;
	g->explode = skip(ps, '!') ? EXPLODE_COMPOUND : EXPLODE_SEPARATE;
	g->penetrate = skip(ps, 'p');
	if (cmp_follows(ps)) {
		if (!compare(ps, &g->ex, g->explode == EXPLODE_COMPOUND ?
			     (g->penetrate ? "!!p" : "!!") :
			     (g->penetrate ? "!p" : "!")))
			return false;
	} else {
		g->ex.op = CMP_NONE;	/* the highest face, once min/max are known */
	}
	return note(ps, m, CK_EXPLODE, start, 0);
}

static bool reroll(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	enum reroll_mode mode = REROLL_ALWAYS;

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
	g->nrr++;
	return note(ps, m, CK_REROLL, start, g->nrr - 1);
}

static bool unique(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;

	if (!modifier_once(ps, 1, g->unique != UNIQUE_NONE, "u"))
		return false;
	g->unique = skip(ps, 'o') ? UNIQUE_ONCE : UNIQUE_ALWAYS;
	return note(ps, m, CK_UNIQUE, start, 0);
}

static bool min_max(struct parser *ps, struct group *g)
{
	size_t start = ps->p;
	bool is_min = looking_at(ps, "min");
	int64_t v;

	if (!modifier_once(ps, 3, is_min ? g->has_min : g->has_max,
			   is_min ? "min" : "max"))
		return false;
	if (!integer(ps, &v, is_min ? "min" : "max"))
		return false;
	if (is_min) {
		g->has_min = true;
		g->min = v;
	} else {
		g->has_max = true;
		g->max = v;
	}
	if (g->has_min && g->has_max && g->min > g->max) {
		fail(ps, start, "'min' is above 'max'");
		return false;
	}
	return true;
}

static bool match(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	uint64_t n = 2;

	if (!modifier_once(ps, 1, g->match, "m"))
		return false;
	g->match = true;
	g->match_count = skip(ps, 't');
	if (isdigit((unsigned char)cur(ps))) {
		if (!number(ps, &n))
			return false;
		if (n < 2 || n > 1000000) {
			fail(ps, start, "a match needs from 2 to 1000000 dice, not %llu",
			     (unsigned long long)n);
			return false;
		}
	}
	g->match_min = (unsigned int)n;
	return note(ps, m, CK_MATCH, start, 0);
}

static bool crit(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	bool success = peek(ps, 1) == 's';
	struct cmp *c = success ? &g->crit_success : &g->crit_failure;

	if (!modifier_once(ps, 2, c->op != CMP_NONE, success ? "cs" : "cf"))
		return false;
	if (cmp_follows(ps)) {
		if (!compare(ps, c, success ? "cs" : "cf"))
			return false;
	} else {
		c->op = CMP_NONE;
		c->n = 1;	/* the highest or lowest face, filled in later */
	}
	return note(ps, m, success ? CK_CRIT_S : CK_CRIT_F, start, 0);
}

static bool sort_mod(struct parser *ps, struct group *g)
{
	size_t start = ps->p;

	if (g->sort != SORT_NONE) {
		fail(ps, start, "more than one sort modifier in a dice group");
		return false;
	}
	g->sort = peek(ps, 1) == 'a' ? SORT_ASC : SORT_DESC;
	ps->p += 2;
	return true;
}

static bool success_mod(struct parser *ps, struct cmp *s, struct cmp *f,
			struct mods *m)
{
	size_t start = ps->p;

	if (!compare(ps, s, "the dice"))
		return false;
	if (m && !note(ps, m, CK_SUCCESS, start, 0))
		return false;
	if (cur(ps) != 'f')
		return true;
	start = ps->p++;
	if (!compare(ps, f, "f"))
		return false;
	return !m || note(ps, m, CK_FAILURE, start, 0);
}

/* Both compare points are intervals of integers: do they share one? */
static bool overlap(const struct cmp *s, const struct cmp *f)
{
	val_t ends[6] = { s->n - 1, s->n, s->n + 1, f->n - 1, f->n, f->n + 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		if (cmp_match(s, ends[i]) && cmp_match(f, ends[i]))
			return true;
	}
	/* two unbounded intervals of the same direction always overlap */
	if ((s->op == CMP_LT || s->op == CMP_LE) &&
	    (f->op == CMP_LT || f->op == CMP_LE))
		return true;
	return (s->op == CMP_GT || s->op == CMP_GE) &&
	       (f->op == CMP_GT || f->op == CMP_GE);
}

/*
 * Can a die of @g take a value that matches @c?  Compounded dice ('!!')
 * take values beyond their faces, and penetrating ones values below, so
 * for them look at the whole range.
 */
static bool target_possible(const struct group *g, const struct cmp *c)
{
	val_t lo = group_min(g), hi = group_max(g), x;
	unsigned int lim = g->explode_limit;

	if (g->explode == EXPLODE_NONE)
		return group_any(g, c, 1);
	if (g->explode == EXPLODE_SEPARATE) {
		if (group_any(g, c, 1))
			return true;
		lo -= g->penetrate;
	} else {
		x = lo + (val_t)lim * (lo - g->penetrate);
		lo = x < lo ? x : lo;
		x = hi + (val_t)lim * (hi - g->penetrate);
		hi = x > hi ? x : hi;
	}
	if (c->op == CMP_EQ)
		return c->n >= lo && c->n <= hi;
	return cmp_match(c, lo) || cmp_match(c, hi);
}

/* Distinct values the dice of @g can show, past rerolls; up to @enough. */
static uint64_t distinct_values(const struct group *g, uint64_t enough)
{
	const struct die *d = &g->die;
	const struct cmp *rr = g->reroll == REROLL_ALWAYS ? g->rr : NULL;
	unsigned int nrr = rr ? g->nrr : 0;
	uint64_t n = 0, i, j;

	if (d->type == DIE_FAIR) {
		/* [lo, hi] cut at the rules' numbers: test one value a piece */
		val_t lo = group_min(g), hi = group_max(g), cuts[2 * DICE_MAX_REROLL_RULES + 2];
		unsigned int nc = 0, a, b;

		cuts[nc++] = lo;
		cuts[nc++] = hi + 1;
		for (a = 0; a < nrr; a++) {
			if (rr[a].n > lo && rr[a].n <= hi)
				cuts[nc++] = rr[a].n;
			if (rr[a].n + 1 > lo && rr[a].n + 1 <= hi)
				cuts[nc++] = rr[a].n + 1;
		}
		for (a = 1; a < nc; a++) {
			for (b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) {
				val_t t = cuts[b];

				cuts[b] = cuts[b - 1];
				cuts[b - 1] = t;
			}
		}
		for (a = 0; a + 1 < nc && n < enough; a++) {
			if (cuts[a] < cuts[a + 1] && !cmp_any(rr, nrr, cuts[a]))
				n += (uint64_t)(cuts[a + 1] - cuts[a]);
		}
		return n;
	}
	for (i = 0; i < d->sides && n < enough; i++) {
		val_t v = group_face(g, i);
		bool seen = false;

		if (!die_side_used(d, i) || cmp_any(rr, nrr, v))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = die_side_used(d, j) && group_face(g, j) == v;
		n += !seen;
	}
	return n;
}

/* The checks that need every modifier of the group, in the order written. */
static bool check_group(struct parser *ps, struct group *g,
			const struct mods *m)
{
	unsigned int i;
	char buf[48];

	for (i = 0; i < m->n; i++) {
		const struct check *c = &m->ck[i];
		size_t at = c->start, save = ps->p;

		ps->p = c->end;
		mod_text(ps, at, buf, sizeof(buf));
		ps->p = save;
		switch (c->kind) {
		case CK_EXPLODE:
			if (g->ex.op == CMP_NONE) {
				g->ex.op = CMP_EQ;
				g->ex.n = group_max(g);
			}
			if (!group_any(g, &g->ex, 1)) {
				fail(ps, at, "'%s' matches no face of the die, so nothing would explode",
				     buf);
				return false;
			}
			if (group_all(g, &g->ex, 1)) {
				fail(ps, at, "'%s' matches every face: each die would explode %u times",
				     buf, g->explode_limit);
				return false;
			}
			if (g->unique != UNIQUE_NONE) {
				fail(ps, at, "unique dice ('u') cannot explode");
				return false;
			}
			break;
		case CK_REROLL:
			if (!group_any(g, &g->rr[c->rule], 1)) {
				fail(ps, at, "'%s' matches no face of the die", buf);
				return false;
			}
			if (g->reroll == REROLL_ALWAYS &&
			    group_all(g, g->rr, c->rule + 1)) {
				fail(ps, at, "rerolling every face of the die would never stop");
				return false;
			}
			break;
		case CK_SUCCESS:
			if (g->match_count) {
				fail(ps, at, "'mt' and a success target cannot both give the group's value");
				return false;
			}
			if (!target_possible(g, &g->success)) {
				fail(ps, at, "success target '%s' matches no face of the die",
				     buf);
				return false;
			}
			break;
		case CK_FAILURE:
			if (!target_possible(g, &g->failure)) {
				fail(ps, at, "failure target '%s' matches no face of the die",
				     buf);
				return false;
			}
			if (overlap(&g->success, &g->failure)) {
				fail(ps, at, "a value cannot count as both a success and a failure");
				return false;
			}
			break;
		case CK_UNIQUE:
			if (g->reroll == REROLL_ONCE) {
				fail(ps, at, "unique dice ('u') cannot be combined with 'ro'");
				return false;
			}
			if (g->unique == UNIQUE_ALWAYS &&
			    distinct_values(g, g->count) < g->count) {
				fail(ps, at, "%llu unique dice need %llu distinct faces, and the die has %llu",
				     (unsigned long long)g->count,
				     (unsigned long long)g->count,
				     (unsigned long long)distinct_values(g, g->count));
				return false;
			}
			break;
		case CK_CRIT_S:
		case CK_CRIT_F: {
			struct cmp *cc = c->kind == CK_CRIT_S ? &g->crit_success :
								&g->crit_failure;

			if (cc->op == CMP_NONE) {
				cc->op = CMP_EQ;
				cc->n = c->kind == CK_CRIT_S ? group_max(g) : group_min(g);
			}
			if (!group_any(g, cc, 1)) {
				fail(ps, at, "'%s' matches no face of the die", buf);
				return false;
			}
			break;
		}
		case CK_MATCH:
			if (g->match_count && g->success.op != CMP_NONE) {
				fail(ps, at, "'mt' and a success target cannot both give the group's value");
				return false;
			}
			break;
		}
	}
	return true;
}

/* Letters that start a modifier, for the "no spaces" hint. */
static bool modifier_char(char c)
{
	return c && strchr("kdsr!<>=fumc", c);
}

/* After a success target only display modifiers and 'f' may follow. */
static bool display_mod(const struct parser *ps)
{
	return looking_at(ps, "cs") || looking_at(ps, "cf") ||
	       looking_at(ps, "sa") || looking_at(ps, "sd") ||
	       (cur(ps) == 'm' && !looking_at(ps, "mt") &&
		!looking_at(ps, "min") && !looking_at(ps, "max"));
}

static void group_free(struct group *g);

/*
 * The group whose 'd' is at the cursor: @count dice, or as many as
 * @count_node (then @count is the most it can give); @start is where the
 * group's text starts.
 */
static struct group *group(struct parser *ps, uint64_t count,
			   struct node *count_node, size_t start)
{
	struct group *g = xcalloc(1, sizeof(*g));
	struct mods m = { .n = 0 };
	char buf[32];
	size_t at;

	g->count = count;
	g->count_node = count_node;
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
		ps->p++;
		if (cur(ps) == '.' && peek(ps, 1) == '1') {
			static const int64_t f1[] = { -1, 0, 0, 0, 0, 1 };

			g->die.type = DIE_CUSTOM;
			g->die.sides = 6;
			g->die.weight_sum = 6;
			g->die.faces = xmalloc(sizeof(f1));
			memcpy(g->die.faces, f1, sizeof(f1));
			ps->p += 2;
			break;
		}
		if (cur(ps) == '.' && peek(ps, 1) == '2')
			ps->p += 2;
		else if (cur(ps) == '.') {
			fail(ps, ps->p, "expected dF, dF.1 or dF.2");
			goto bad;
		}
		g->die.type = DIE_FUDGE;
		g->die.sides = 3;
		g->die.weight_sum = 3;
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
			     cur(ps) == 'f' ? " (Fudge dice are written dF)" :
			     cur(ps) == '(' ? " (only the number of dice may be computed, as in (1d4)d6)" : "");
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
		bool ok;

		if (g->success.op != CMP_NONE && modifier_char(c) &&
		    !display_mod(ps)) {
			fail(ps, ps->p,
			     "the success target must be the last modifier of its dice group");
			goto bad;
		}
		if (c == 'k' || c == 'd' || (c == 's' && isdigit((unsigned char)peek(ps, 1))))
			ok = keep_drop(ps, &g->keep, g->count, !count_node,
				       "dice group", "dice",
				       " (rolldice: 4d6s1 drops the lowest die)");
		else if (c == 's' && (peek(ps, 1) == 'a' || peek(ps, 1) == 'd'))
			ok = sort_mod(ps, g);
		else if (c == 's')
			ok = keep_drop(ps, &g->keep, g->count, !count_node,
				       "dice group", "dice",
				       " (rolldice: 4d6s1 drops the lowest die; sa and sd sort)");
		else if (c == '!')
			ok = explode(ps, g, &m);
		else if (c == 'r')
			ok = reroll(ps, g, &m);
		else if (c == 'u')
			ok = unique(ps, g, &m);
		else if (looking_at(ps, "min") || looking_at(ps, "max"))
			ok = min_max(ps, g);
		else if (c == 'm')
			ok = match(ps, g, &m);
		else if (looking_at(ps, "cs") || looking_at(ps, "cf"))
			ok = crit(ps, g, &m);
		else if (is_cmp_start(c))
			ok = success_mod(ps, &g->success, &g->failure, &m);
		else if (c == 'f') {
			fail(ps, ps->p,
			     "'f' (failures) needs a success target first, as in 10d10>=8f1");
			goto bad;
		} else {
			break;
		}
		if (!ok)
			goto bad;
	}
	g->end = ps->p;
	if (!check_group(ps, g, &m))
		goto bad;
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
	g->count_node = NULL;	/* the caller frees it */
	group_free(g);
	return NULL;
}

/* ---- bounds ---------------------------------------------------------- */

static val_t sat(val_t v)
{
	return v > DICE_BOUND ? DICE_BOUND : v < -DICE_BOUND ? -DICE_BOUND : v;
}

static val_t sat_add(val_t a, val_t b)
{
	return sat(a + b);	/* both within 2^100: no overflow */
}

static val_t sat_mul(val_t a, val_t b)
{
	val_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? -DICE_BOUND : DICE_BOUND;
	return sat(r);
}

static val_t vmin(val_t a, val_t b)
{
	return a < b ? a : b;
}

static val_t vmax(val_t a, val_t b)
{
	return a > b ? a : b;
}

/* The range of one die of @g in the pool, and the most dice of its pool. */
static void die_range(const struct group *g, val_t *lo, val_t *hi,
		      val_t *pool)
{
	val_t a = group_min(g), b = group_max(g), lim = g->explode_limit;

	*lo = a;
	*hi = b;
	*pool = (val_t)g->count;
	if (g->explode == EXPLODE_SEPARATE) {
		*lo = vmin(a, a - g->penetrate);
		*pool = sat_mul(*pool, lim + 1);
	} else if (g->explode == EXPLODE_COMPOUND) {
		*lo = sat_add(a, sat_mul(lim, vmin(0, a - g->penetrate)));
		*hi = sat_add(b, sat_mul(lim, vmax(0, b - g->penetrate)));
	}
}

/* Bounds of a sum of between @kmin and @kmax values in [@lo, @hi]. */
static void sum_range(val_t kmin, val_t kmax, val_t lo, val_t hi, val_t *rlo,
		      val_t *rhi)
{
	*rlo = vmin(sat_mul(kmin, lo), sat_mul(kmax, lo));
	*rhi = vmax(sat_mul(kmin, hi), sat_mul(kmax, hi));
}

static void group_bounds(const struct group *g, val_t *rlo, val_t *rhi)
{
	val_t lo, hi, pool, kmin, kmax;
	uint64_t cmin = g->count_node ? (uint64_t)vmax(g->count_node->lo, 0) :
					g->count;

	die_range(g, &lo, &hi, &pool);
	kmax = g->keep.mode == KEEP_ALL ? pool :
	       vmin(pool, (val_t)keep_count(&g->keep, g->count));
	kmin = (val_t)keep_count(&g->keep, cmin);
	if (g->explode != EXPLODE_SEPARATE || g->keep.mode != KEEP_ALL)
		kmin = vmin(kmin, kmax);
	if (g->success.op != CMP_NONE) {
		*rlo = g->failure.op != CMP_NONE ? -kmax : 0;
		*rhi = kmax;
	} else if (g->match_count) {
		*rlo = 0;
		*rhi = kmax / 2 + 1;
	} else {
		sum_range(kmin, kmax, lo, hi, rlo, rhi);
	}
}

static void node_bounds(struct node *n)
{
	unsigned int i;
	val_t a, b, c, d, m;

	switch (n->type) {
	case NODE_CONST:
		n->lo = n->hi = n->value;
		return;
	case NODE_GROUP:
		group_bounds(n->group, &n->lo, &n->hi);
		return;
	case NODE_NEG:
		n->lo = -n->kids[0]->hi;
		n->hi = -n->kids[0]->lo;
		return;
	case NODE_SUM:
		n->lo = n->hi = 0;
		for (i = 0; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (n->ops[i] == '-') {
				n->lo = sat_add(n->lo, -k->hi);
				n->hi = sat_add(n->hi, -k->lo);
			} else {
				n->lo = sat_add(n->lo, k->lo);
				n->hi = sat_add(n->hi, k->hi);
			}
		}
		return;
	case NODE_PRODUCT:
		n->lo = n->kids[0]->lo;
		n->hi = n->kids[0]->hi;
		for (i = 1; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (n->ops[i] == '%') {
				m = vmax(-k->lo, k->hi) - 1;
				if (m < 0)
					m = 0;
				a = n->lo >= 0 ? 0 : vmax(n->lo, -m);
				b = n->hi <= 0 ? 0 : vmin(n->hi, m);
				n->lo = a;
				n->hi = b;
				continue;
			}
			a = sat_mul(n->lo, k->lo);
			b = sat_mul(n->lo, k->hi);
			c = sat_mul(n->hi, k->lo);
			d = sat_mul(n->hi, k->hi);
			n->lo = vmin(vmin(a, b), vmin(c, d));
			n->hi = vmax(vmax(a, b), vmax(c, d));
		}
		return;
	case NODE_FUNC:
		a = n->kids[0]->lo;
		b = n->kids[0]->hi;
		if (n->func == FUNC_ABS) {
			n->lo = a >= 0 ? a : b <= 0 ? -b : 0;
			n->hi = vmax(-a, b);
		} else if (n->nkids == 1) {
			n->lo = a;
			n->hi = b;
		} else if (a >= 0 && n->kids[1]->lo >= 1) {
			n->lo = 0;
			n->hi = b;
		} else {
			n->hi = vmax(-a, b);
			n->lo = -n->hi;
		}
		return;
	case NODE_BRACE: {
		const struct brace *br = n->brace;

		if (br->pooled) {
			val_t plo = 0, phi = 0, pool = 0;

			for (i = 0; i < br->ngroups; i++) {
				val_t glo, ghi, gp;

				die_range(br->groups[i], &glo, &ghi, &gp);
				plo = sat_add(plo, sat_mul(gp, vmin(glo, 0)));
				phi = sat_add(phi, sat_mul(gp, vmax(ghi, 0)));
				pool = sat_add(pool, gp);
			}
			if (br->success.op != CMP_NONE) {
				n->lo = br->failure.op != CMP_NONE ? -pool : 0;
				n->hi = pool;
			} else {
				n->lo = sat_add(plo, br->constant);
				n->hi = sat_add(phi, br->constant);
			}
			return;
		}
		if (br->success.op != CMP_NONE) {
			n->hi = n->nkids;
			n->lo = br->failure.op != CMP_NONE ? -(val_t)n->nkids : 0;
			return;
		}
		n->lo = n->hi = 0;
		for (i = 0; i < n->nkids; i++) {
			const struct node *k = n->kids[i];

			if (br->keep.mode == KEEP_ALL) {
				n->lo = sat_add(n->lo, k->lo);
				n->hi = sat_add(n->hi, k->hi);
			} else {
				n->lo = sat_add(n->lo, vmin(k->lo, 0));
				n->hi = sat_add(n->hi, vmax(k->hi, 0));
			}
		}
		return;
	}
	}
}

/* ---- expressions ------------------------------------------------------- */

static struct node *new_node(struct parser *ps, enum node_type type,
			     size_t start)
{
	struct node *n;

	if (ps->e->nnodes >= DICE_MAX_NODES) {
		fail(ps, start, "expression too long: more than %u numbers, dice groups and operators",
		     DICE_MAX_NODES);
		return NULL;
	}
	ps->e->nnodes++;
	n = xcalloc(1, sizeof(*n));
	n->type = type;
	n->start = start;
	return n;
}

static void group_free(struct group *g);
static void free_node(struct node *n);

static void add_kid(struct node *n, struct node *kid, char op)
{
	if (!(n->nkids & (n->nkids - 1)) || n->nkids < 4) {
		/* grow at powers of two */
		unsigned int cap = n->nkids < 4 ? 4 : n->nkids * 2;

		n->kids = xrealloc(n->kids, cap, sizeof(*n->kids));
		n->ops = xrealloc(n->ops, cap, 1);
	}
	n->kids[n->nkids] = kid;
	n->ops[n->nkids] = op;
	n->nkids++;
}

static void free_node(struct node *n)
{
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		free_node(n->kids[i]);
	free(n->kids);
	free(n->ops);
	free(n->label);
	if (n->brace) {
		free(n->brace->groups);
		free(n->brace);
	}
	free(n);	/* groups belong to the expression's array */
}

static void group_free(struct group *g)
{
	free_node(g->count_node);
	die_free(&g->die);
	free(g);
}

static struct node *expr(struct parser *ps);
static struct node *term(struct parser *ps);
static struct node *unary(struct parser *ps);

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
		hint = " (division must be rounded: write floor(A/B), ceil(A/B) or round(A/B))";
	else if (c == '}')
		hint = " (no '{' opens this '}')";
	else if (c == '[')
		hint = " (a label [...] follows a number, a dice group or ')')";
	else if (at && is_space(ps->s[at - 1]) && modifier_char(c))
		hint = " (no spaces are allowed inside a dice group)";
	else if (at && modifier_char(c) && ps->s[at - 1] != '(' &&
		 !strchr("+-*%,{", ps->s[at - 1]))
		hint = " (modifiers must directly follow their dice group, as in 4d6s1+2)";
	else if (isalpha((unsigned char)c))
		hint = " (functions: floor, ceil, round, abs)";
	if (!c && at) {
		fail(ps, at, "expression ends too early: expected %s", expected);
		return;
	}
	fail(ps, at, "unexpected %s: expected %s%s",
	     what(ps, at, buf, sizeof(buf)), expected, hint);
}

/*
 * The closing @c of what opened at @open: stepped over, and the nesting
 * left; or false, with the message.
 */
static bool closing(struct parser *ps, char c, size_t open,
		    const char *expected)
{
	if (skip(ps, c)) {
		leave(ps);
		return true;
	}
	if (!cur(ps))
		fail(ps, open, "missing '%c' for this '%c'", c,
		     c == ')' ? '(' : '{');
	else
		unexpected(ps, expected);
	return false;
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

static struct node *group_node(struct parser *ps, uint64_t count,
			       struct node *count_node, size_t start)
{
	struct group *g = group(ps, count, count_node, start);
	struct expr *e = ps->e;
	struct node *n;

	if (!g) {
		free_node(count_node);
		return NULL;
	}
	if (!(e->ngroups & (e->ngroups - 1)))
		e->groups = xrealloc(e->groups, e->ngroups ? e->ngroups * 2 : 1,
				     sizeof(*e->groups));
	g->index = e->ngroups;
	e->groups[e->ngroups++] = g;
	if (!count_dice(ps, g))
		return NULL;
	n = new_node(ps, NODE_GROUP, start);
	if (!n)
		return NULL;
	n->group = g;
	n->end = ps->p;
	node_bounds(n);
	return n;
}

/* (EXPR)dS: @cn, just read, is the count. */
static struct node *computed_group(struct parser *ps, struct node *cn)
{
	char lo[VAL_BUFSZ];

	if (cn->lo < 0) {
		fail(ps, cn->start, "the number of dice can be negative (down to %s)",
		     val_str(cn->lo, lo));
		free_node(cn);
		return NULL;
	}
	if (cn->hi < 1) {
		fail(ps, cn->start,
		     "a dice group needs at least one die (this count is always 0)");
		free_node(cn);
		return NULL;
	}
	if (cn->hi > (val_t)ps->o->max_dice) {
		fail(ps, cn->start,
		     "too many dice: the count can exceed %llu (see --max-dice)",
		     (unsigned long long)ps->o->max_dice);
		free_node(cn);
		return NULL;
	}
	return group_node(ps, (uint64_t)cn->hi, cn, cn->start);
}

/* Add a pooled brace's group or constant @k, with sign @op; false if not. */
static bool pool_part(struct parser *ps, struct brace *br, struct node *k,
		      char op)
{
	if (op != '+' || k->paren || k->label)
		return false;
	if (k->type == NODE_CONST) {
		if (__builtin_add_overflow(br->constant, k->value, &br->constant)) {
			fail(ps, k->start, "number too large");
			return false;
		}
		return true;
	}
	if (k->type != NODE_GROUP)
		return false;
	if (k->group->success.op != CMP_NONE || k->group->match_count) {
		fail(ps, k->start,
		     "a dice group inside {...} cannot count successes or matches: put the target after the '}'");
		return false;
	}
	br->groups = xrealloc(br->groups, br->ngroups + 1, sizeof(*br->groups));
	br->groups[br->ngroups++] = k->group;
	br->ndice += k->group->count;
	return true;
}

/* The '{' is at the cursor. */
static struct node *brace(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n = new_node(ps, NODE_BRACE, start);
	struct brace *br;
	struct expr *e = ps->e;
	char buf[32];
	bool simple;
	unsigned int i;

	if (!n)
		return NULL;
	br = n->brace = xcalloc(1, sizeof(*br));
	br->start = start;
	if (!enter(ps, start))
		goto bad;
	ps->p++;
	for (;;) {
		struct node *k = expr(ps);

		if (!k)
			goto bad;
		add_kid(n, k, ',');
		skip_space(ps);
		if (skip(ps, ','))
			continue;
		if (!closing(ps, '}', start, "an operator, ',' or '}'"))
			goto bad;
		break;
	}
	br->mods = ps->p;

	/* one element made of dice groups and constants joined by '+' */
	if (n->nkids == 1) {
		struct node *k = n->kids[0];

		br->pooled = true;
		if (k->type == NODE_SUM && !k->paren && !k->label) {
			simple = true;
			for (i = 0; i < k->nkids && simple && !ps->failed; i++)
				simple = pool_part(ps, br, k->kids[i], k->ops[i]);
		} else {
			simple = pool_part(ps, br, k, '+');
		}
		if (ps->failed)
			goto bad;
		if (!simple || !br->ngroups) {
			br->pooled = false;
			br->ngroups = 0;
			br->ndice = 0;
			br->constant = 0;
		}
	}

	for (;;) {
		char c = cur(ps);

		if (br->success.op != CMP_NONE && c &&
		    strchr("kd<>=f", c)) {
			fail(ps, ps->p,
			     "the success target must be the last modifier of a grouped roll");
			goto bad;
		}
		if (c == 'k' || c == 'd') {
			uint64_t pool = br->pooled ? br->ndice : n->nkids;

			if (!keep_drop(ps, &br->keep, pool, true, "grouped roll",
				       br->pooled ? "dice" : "elements", ""))
				goto bad;
		} else if (is_cmp_start(c)) {
			size_t at = ps->p;

			if (!success_mod(ps, &br->success, &br->failure, NULL))
				goto bad;
			if (br->failure.op != CMP_NONE &&
			    overlap(&br->success, &br->failure)) {
				fail(ps, at, "a value cannot count as both a success and a failure");
				goto bad;
			}
			if (br->pooled && br->constant) {
				fail(ps, at,
				     "a success target on {...} with a constant inside is ambiguous (Roll20 and rpg-dice-roller differ): move the constant out");
				goto bad;
			}
		} else if (c == 'f') {
			fail(ps, ps->p,
			     "'f' (failures) needs a success target first, as in {3d6,4d6}>10f5");
			goto bad;
		} else {
			break;
		}
	}
	if (isalpha((unsigned char)cur(ps)) || cur(ps) == '!') {
		fail(ps, ps->p,
		     "unexpected %s: a grouped roll {...} takes only keep/drop (kh, kl, dh, dl) and a success target",
		     what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	if (n->nkids == 1 && !br->pooled && br->keep.mode != KEEP_ALL &&
	    n->kids[0]->type == NODE_SUM) {
		fail(ps, start,
		     "keep/drop on one {...} element needs dice groups and constants joined by '+' (use {A, B} to compare totals)");
		goto bad;
	}
	br->end = ps->p;
	br->index = e->nbraces;
	e->braces = xrealloc(e->braces, e->nbraces + 1, sizeof(*e->braces));
	e->braces[e->nbraces++] = br;
	n->end = ps->p;
	node_bounds(n);
	return n;
bad:
	free_node(n);
	return NULL;
}

static const struct {
	const char *name;
	enum func_type func;
} funcs[] = {
	{ "floor", FUNC_FLOOR },
	{ "ceil", FUNC_CEIL },
	{ "round", FUNC_ROUND },
	{ "abs", FUNC_ABS },
};

static struct node *sum_rest(struct parser *ps, struct node *first);

/* A function name is at the cursor, followed by '('. */
static struct node *func(struct parser *ps, unsigned int which)
{
	size_t start = ps->p, open;
	struct node *n = new_node(ps, NODE_FUNC, start), *k;

	if (!n)
		return NULL;
	n->func = funcs[which].func;
	ps->p += strlen(funcs[which].name);
	open = ps->p;
	if (!enter(ps, start))
		goto bad;
	ps->p++;	/* '(' */
	skip_space(ps);
	k = term(ps);
	if (!k)
		goto bad;
	skip_space(ps);
	if (cur(ps) == '/') {
		size_t slash = ps->p;

		add_kid(n, k, 0);
		if (n->func == FUNC_ABS) {
			fail(ps, slash, "division must be rounded: write floor(A/B), ceil(A/B) or round(A/B)");
			goto bad;
		}
		ps->p++;
		skip_space(ps);
		k = unary(ps);
		if (!k)
			goto bad;
		add_kid(n, k, '/');
		skip_space(ps);
		if (cur(ps) && strchr("+-*%/", cur(ps))) {
			fail(ps, ps->p,
			     "division must be the last operation inside %s(): write %s(A/B) with A and B in parentheses as needed",
			     funcs[which].name, funcs[which].name);
			goto bad;
		}
	} else {
		k = sum_rest(ps, k);
		if (!k)
			goto bad;
		add_kid(n, k, 0);
	}
	skip_space(ps);
	if (cur(ps) == '/') {
		fail(ps, ps->p,
		     "division must be the whole argument of %s(): write %s(A/B), with A in parentheses if it is a sum",
		     funcs[which].name, funcs[which].name);
		goto bad;
	}
	if (!closing(ps, ')', open, "an operator or ')'"))
		goto bad;
	n->end = ps->p;
	node_bounds(n);
	return n;
bad:
	free_node(n);
	return NULL;
}

static struct node *factor(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n;
	uint64_t v = 1;
	unsigned int i;

	if (cur(ps) == '(') {
		if (!enter(ps, start))
			return NULL;
		ps->p++;
		n = expr(ps);
		if (!n)
			return NULL;
		skip_space(ps);
		if (!closing(ps, ')', start, "an operator or ')'")) {
			free_node(n);
			return NULL;
		}
		n->paren = 1;
		n->start = start;
		n->end = ps->p;
		if (cur(ps) == 'd')
			return computed_group(ps, n);
		return n;
	}
	if (cur(ps) == '{')
		return brace(ps);
	if (isdigit((unsigned char)cur(ps))) {
		if (!number(ps, &v))
			return NULL;
		if (cur(ps) != 'd') {
			if (v > INT64_MAX) {
				fail(ps, start, "number too large");
				return NULL;
			}
			n = new_node(ps, NODE_CONST, start);
			if (!n)
				return NULL;
			n->value = (int64_t)v;
			n->end = ps->p;
			node_bounds(n);
			return n;
		}
		if (!v) {
			fail(ps, start,
			     "a dice group needs at least one die (0d rolls nothing)");
			return NULL;
		}
	}
	if (cur(ps) == 'd')
		return group_node(ps, v, NULL, start);
	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		size_t len = strlen(funcs[i].name);

		if (!strncmp(ps->s + ps->p, funcs[i].name, len) &&
		    ps->s[ps->p + len] == '(')
			return func(ps, i);
	}
	unexpected(ps, "a number, dice such as 3d6, '(' or '{'");
	return NULL;
}

/* [text] after a factor */
static bool label(struct parser *ps, struct node *n)
{
	size_t open = ps->p, len;
	const char *close;

	if (cur(ps) != '[')
		return true;
	close = strchr(ps->s + open, ']');
	if (!close) {
		fail(ps, open, "missing ']' for this '['");
		return false;
	}
	len = (size_t)(close - (ps->s + open)) - 1;
	if (n->label) {
		fail(ps, open, "more than one label");
		return false;
	}
	n->label = xmalloc(len + 1);
	memcpy(n->label, ps->s + open + 1, len);
	n->label[len] = '\0';
	ps->p = open + len + 2;
	n->end = ps->p;
	return true;
}

static struct node *unary(struct parser *ps)
{
	size_t start = ps->p;
	struct node *n, *k;

	if (cur(ps) == '-') {
		if (!enter(ps, start))
			return NULL;
		ps->p++;
		skip_space(ps);
		k = unary(ps);
		leave(ps);
		if (!k)
			return NULL;
		n = new_node(ps, NODE_NEG, start);
		if (!n) {
			free_node(k);
			return NULL;
		}
		add_kid(n, k, 0);
		n->end = k->end;
		node_bounds(n);
		return n;
	}
	n = factor(ps);
	if (n && !label(ps, n)) {
		free_node(n);
		return NULL;
	}
	return n;
}

/*
 * The rest of a flat chain of one precedence level (a sum of terms, a
 * product of factors) whose first operand, @first, was just read: one node
 * of @type whatever its length, so a 40,000-term sum is no deeper than a
 * two-term one.  @ops are the level's operators, @first_op the one implied
 * before @first; @operand reads the next operand.
 */
static struct node *chain_rest(struct parser *ps, struct node *first,
			       enum node_type type, const char *ops,
			       char first_op,
			       struct node *(*operand)(struct parser *))
{
	struct node *n = NULL;

	for (;;) {
		struct node *r;
		char op;

		skip_space(ps);
		op = cur(ps);
		if (!op || !strchr(ops, op))
			break;
		ps->p++;
		skip_space(ps);
		r = operand(ps);
		if (!r)
			goto bad;
		if (!n) {
			n = new_node(ps, type, first->start);
			if (!n) {
				free_node(r);
				goto bad;
			}
			add_kid(n, first, first_op);
			first = NULL;
		}
		add_kid(n, r, op);
		n->end = r->end;
	}
	if (!n)
		return first;
	node_bounds(n);
	return n;
bad:
	free_node(first);
	free_node(n);
	return NULL;
}

static struct node *term(struct parser *ps)
{
	struct node *l = unary(ps);

	return l ? chain_rest(ps, l, NODE_PRODUCT, "*%", '*', unary) : NULL;
}

/* The rest of a sum whose first term, @first, was just read. */
static struct node *sum_rest(struct parser *ps, struct node *first)
{
	return chain_rest(ps, first, NODE_SUM, "+-", '+', term);
}

static struct node *expr(struct parser *ps)
{
	struct node *first;

	skip_space(ps);
	first = term(ps);
	if (!first)
		return NULL;
	return sum_rest(ps, first);
}

/* ---- entry points ------------------------------------------------------ */

int notation_parse(const char *text, const struct notation_opts *opts,
		   struct expr **out, struct notation_error *err)
{
	struct parser ps = { .s = text, .o = opts, .err = err };
	struct expr *e = xcalloc(1, sizeof(*e));
	size_t start, len = strlen(text);
	unsigned int i;

	e->text = xstrdup(text);
	e->repeat = 1;
	ps.e = e;
	ps.s = e->text;
	memset(err, 0, sizeof(*err));

	if (len > DICE_MAX_TEXT) {
		fail(&ps, DICE_MAX_TEXT, "expression too long: more than %u bytes",
		     DICE_MAX_TEXT);
		goto bad;
	}
	skip_space(&ps);
	if (!cur(&ps) || cur(&ps) == '#') {
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
	if (cur(&ps) == '#') {
		const char *c = ps.s + ps.p + 1;
		size_t n;

		while (is_space(*c))
			c++;
		n = strlen(c);
		while (n && (is_space(c[n - 1]) || c[n - 1] == '\n' ||
			     c[n - 1] == '\r'))
			n--;
		e->comment = xmalloc(n + 1);
		memcpy(e->comment, c, n);
		e->comment[n] = '\0';
		ps.p += strlen(ps.s + ps.p);
	}
	if (cur(&ps)) {
		if (cur(&ps) == ')')
			fail(&ps, ps.p, "unexpected ')' without a matching '('");
		else if (cur(&ps) == '}')
			fail(&ps, ps.p, "unexpected '}' without a matching '{'");
		else
			unexpected(&ps, "an operator (+, -, *, %), '#' or the end");
		goto bad;
	}
	if (e->repeat > 1 && e->ndice &&
	    (e->ndice > opts->max_dice / e->repeat)) {
		fail(&ps, 0,
		     "too many dice: more than %llu in one expression (see --max-dice)",
		     (unsigned long long)opts->max_dice);
		goto bad;
	}
	for (i = 0; i < e->ngroups; i++) {
		if (e->groups[i]->die.weights)
			e->loaded = true;
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
	for (i = 0; i < e->ngroups; i++)
		group_free(e->groups[i]);
	free(e->groups);
	free(e->braces);	/* each belongs to its node */
	free(e->comment);
	free(e->text);
	free(e);
}
