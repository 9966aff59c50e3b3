// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parse_group.c - dice groups and their modifiers: the die (sides, %, F,
 * W, {faces}), then keep/drop, explode, reroll, unique, min/max, match,
 * criticals, sort and success counting, and the checks that need the
 * whole group
 *
 * A modifier is read by one mod_*() function.  Checks that depend on the
 * faces (an explosion that matches no face, a reroll of every face) wait
 * until the group is complete, because 'min' and 'max' may come later and
 * change the faces: mod_note() records them and group_check() runs them.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* ---- dice groups ------------------------------------------------------- */

/* d{F1,F2,...} or d{F1:W1,F2:W2,...} */
static bool die_parse_faces(struct parser *ps, struct die *d)
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
		size_t at;
		bool has = false;

		/* spaces may surround braces and commas, as in "d{1, 2}" */
		lex_skip_space(ps);
		at = ps->p;

		if (n == DICE_MAX_CUSTOM_SIDES) {
			lex_fail(ps, at, "too many faces (at most %u)",
				 DICE_MAX_CUSTOM_SIDES);
			goto bad;
		}
		/* a face is a number: dice(1)'s cap on numbers counts it */
		if (ps->e->nnodes >= DICE_MAX_NODES) {
			lex_fail(ps, at, "expression too long: more than %u numbers, dice groups and operators (faces included)",
				 DICE_MAX_NODES);
			goto bad;
		}
		ps->e->nnodes++;
		if (lex_cur(ps) != '-' && !isdigit((unsigned char)lex_cur(ps))) {
			lex_fail(ps, at, "expected a face value but found %s",
				 lex_what(ps, at, buf, sizeof(buf)));
			goto bad;
		}
		if (!lex_integer(ps, &f, "{"))
			goto bad;
		if (lex_cur(ps) == ':') {
			size_t wat = ++ps->p;

			has = true;
			if (!lex_need_number(ps, &w, ":", ""))
				goto bad;
			if (w > UINT32_MAX) {
				lex_fail(ps, wat, "weight too large (at most 4294967295)");
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
			lex_fail(ps, at,
				 "give a weight (face:weight) for every face or for none");
			goto bad;
		}
		lex_skip_space(ps);
		if (lex_cur(ps) == ',') {
			ps->p++;
			continue;
		}
		if (lex_cur(ps) == '}') {
			ps->p++;
			break;
		}
		if (!lex_cur(ps))
			lex_fail(ps, open, "missing '}' for this '{'");
		else
			lex_fail(ps, ps->p, "expected ',' or '}' but found %s",
				 lex_what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	if (!sum) {
		lex_fail(ps, open, "every weight is zero");
		goto bad;
	}
	d->type = DIE_CUSTOM;
	d->sides = n;
	d->faces = faces;
	if (weighted) {
		d->weights = weights;
		d->weight_sum = sum;
	} else {
		xfree(weights);
		d->weight_sum = n;
	}
	return true;
bad:
	xfree(faces);
	xfree(weights);
	return false;
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
bool mod_keep_drop(struct parser *ps, struct keep *k, uint64_t pool,
		   bool exact, const char *what_pool, const char *noun,
		   const char *hint_s)
{
	size_t start = ps->p;
	char kind = lex_cur(ps), side, name[4] = { 0 };
	uint64_t n;

	ps->p++;
	if ((kind == 'd' || kind == 'p') && lex_cur(ps) != 'h' &&
	    lex_cur(ps) != 'l') {
		lex_fail(ps, start,
			 "ambiguous 'd' after a dice group: write dl (drop lowest) or dh (drop highest)");
		return false;
	}
	if (kind == 's') {
		side = 'l';
	} else if (lex_cur(ps) == 'h' || lex_cur(ps) == 'l') {
		side = lex_cur(ps);
		ps->p++;
	} else {
		side = 'h';	/* k = kh */
	}
	memcpy(name, ps->s + start, ps->p - start);
	if (k->mode != KEEP_ALL) {
		lex_fail(ps, start, "more than one keep/drop modifier in a %s",
			 what_pool);
		return false;
	}
	if (kind != 's' && !isdigit((unsigned char)lex_cur(ps))) {
		/* Foundry's kh, kl, dh and dl alone keep or drop one die */
		n = 1;
	} else if (!lex_need_number(ps, &n, name, kind == 's' ? hint_s : "")) {
		return false;
	}
	if (kind == 'k') {
		if (n < 1 || (exact && n > pool)) {
			lex_fail(ps, start, "cannot keep %llu of %llu %s",
				 (unsigned long long)n, (unsigned long long)pool,
				 pool == 1 && !strcmp(noun, "dice") ? "die" : noun);
			return false;
		}
		k->mode = side == 'h' ? KEEP_HIGH : KEEP_LOW;
		k->n = n;
	} else {
		if (exact && n >= pool) {
			lex_fail(ps, start,
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

struct mod_check {
	enum check_kind kind;
	size_t start, end;
	unsigned int rule;
};

struct mods {
	struct mod_check ck[24];
	unsigned int n;
};

static bool mod_note(struct parser *ps, struct mods *m, enum check_kind kind,
		     size_t start, unsigned int rule)
{
	if (m->n == ARRAY_SIZE(m->ck)) {
		lex_fail(ps, start, "too many modifiers in one dice group");
		return false;
	}
	m->ck[m->n++] = (struct mod_check){ kind, start, ps->p, rule };
	return true;
}

/*
 * Step over a modifier of @len characters that a group may have once;
 * false, with the message, if @taken says it has it already.
 */
static bool mod_once(struct parser *ps, size_t len, bool taken,
		     const char *name)
{
	size_t start = ps->p;

	ps->p += len;
	if (taken) {
		lex_fail(ps, start, "more than one '%s' modifier in a dice group",
			 name);
		return false;
	}
	return true;
}

/* A comparison (or a bare number) follows the modifier. */
static bool mod_cmp_follows(const struct parser *ps)
{
	return lex_is_cmp_start(lex_cur(ps)) || isdigit((unsigned char)lex_cur(ps));
}

/* A compare point follows, after spaces perhaps ("r 1", "r < 3"). */
static bool mod_cmp_follows_space(const struct parser *ps)
{
	size_t q = ps->p;

	while (lex_is_space(ps->s[q]))
		q++;
	return lex_is_cmp_start(ps->s[q]) || isdigit((unsigned char)ps->s[q]);
}

/*
 * '!', or Foundry's x and xo (its "explode" and "explode once": each die
 * that matches rolls one more, which may match in turn, foundryvtt.com
 * article dice-modifiers), or Avrae's e ("rolls another die for each
 * matched value", README of github.com/avrae/d20), which needs its
 * selector: all three are '!', and xo is '!o'.
 */
static bool mod_explode(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	char kind = lex_cur(ps);

	if (!mod_once(ps, 1, g->explode != EXPLODE_NONE,
		      kind == '!' ? "!" : kind == 'x' ? "x" : "e"))
		return false;
	/*
	 * 1d20!=20 is a d20 that explodes on 20 on Roll20 and "the total is
	 * not 20" on Avrae (which has no '!'): a pasted roll must not take
	 * either meaning silently, so only a dialect option picks one.
	 */
	if (kind == '!' && lex_cur(ps) == '=' && notation_default(ps->o)) {
		lex_fail(ps, start,
			 "'!=' after a dice group explodes on Roll20 (1d20!=20 adds a die on a 20) and compares on Avrae (the total is not 20): write 1d20!20 or (1d20) != 20, or choose with --roll20 or --avrae");
		return false;
	}
	if (kind == '!') {
		g->explode = lex_skip(ps, '!') ? EXPLODE_COMPOUND :
						 EXPLODE_SEPARATE;
		g->penetrate = lex_skip(ps, 'p');
	} else {
		g->explode = EXPLODE_SEPARATE;
	}
	if (kind != 'e' && lex_skip(ps, 'o')) {	/* once, as Foundry's xo */
		g->explode_limit = 1;
		g->explode_capped = true;
	}
	if (kind == 'e' && !mod_cmp_follows(ps)) {
		lex_fail(ps, ps->p,
			 "Avrae's 'e' needs the faces that explode, as in 4d6e6 or 4d6e>4");
		return false;
	}
	if (mod_cmp_follows(ps)) {
		if (!lex_compare(ps, &g->ex, g->explode == EXPLODE_COMPOUND ?
				 (g->penetrate ? "!!p" : "!!") :
				 (g->penetrate ? "!p" : "!")))
			return false;
	} else {
		g->ex.op = CMP_NONE;	/* the highest face, once min/max are known */
	}
	if (lex_cur(ps) == ':') {	/* a cap on the extra dice of one die */
		uint64_t cap;
		size_t at = ps->p++;

		if (!lex_need_number(ps, &cap, ":", " (a cap on explosions, as in 3d6!:2)"))
			return false;
		if (!cap || cap > DICE_HARD_MAX_EXPLODE) {
			lex_fail(ps, at, "an explosion cap must be from 1 to %u",
				 DICE_HARD_MAX_EXPLODE);
			return false;
		}
		g->explode_limit = (unsigned int)cap;
		g->explode_capped = true;
	}
	return mod_note(ps, m, CK_EXPLODE, start, 0);
}

/*
 * 'r' and 'ro' reroll until no die matches, and once (as on Roll20).
 * Foundry's r rerolls once and its rr until no die matches; Avrae's rr and
 * ro are those two (foundryvtt.com article dice-modifiers, README of
 * github.com/avrae/d20).  Without a dialect option, 'rr' is 'r' twice,
 * as dice(1) reads it, and both get a warning.
 */
static bool mod_reroll(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	enum reroll_mode mode = REROLL_ALWAYS;
	char name[4] = "r";

	ps->p++;
	if (lex_cur(ps) == 'a') {
		/*
		 * Here each die that matches adds one die, once.  Avrae's ra
		 * "rerolls up to one matched value once, keeping the
		 * original" (README of github.com/avrae/d20): its
		 * SetOperator.explode_once() in d20/expression.py selects
		 * with max_targets=1, marks that die exploded and calls
		 * Dice.roll_another() once, so the group gains one die at
		 * most and the new die is never looked at again by this ra.
		 * With --avrae that is g->add_once; group_parse() checks
		 * that the other modifiers keep d20's order.
		 */
		ps->p++;
		if (g->explode != EXPLODE_NONE) {
			lex_fail(ps, start, "more than one '!' modifier in a dice group ('ra' adds dice as '!' does)");
			return false;
		}
		if (!lex_compare(ps, &g->ex, "ra"))
			return false;
		if (notation_default(ps->o))
			lex_warn(ps, "'ra' adds a die for every die that matches; Avrae's ra adds at most one die to the whole group: use --avrae for that");
		g->explode = EXPLODE_SEPARATE;
		g->explode_limit = 1;
		g->explode_capped = true;
		g->add_once = ps->o->avrae;
		return mod_note(ps, m, CK_EXPLODE, start, 0);
	}
	if (lex_cur(ps) == 'o') {
		mode = REROLL_ONCE;
		ps->p++;
		strcpy(name, "ro");
	} else if (lex_cur(ps) == 'r' && (ps->o->foundry || ps->o->avrae)) {
		ps->p++;		/* rr: until no die matches */
		strcpy(name, "rr");
	} else if (lex_cur(ps) == 'r' && notation_default(ps->o)) {
		lex_warn(ps, "'rr' is read as 'r' then 'r': the lowest face and what follows are rerolled; on Foundry and Avrae rr rerolls only what follows, until no die matches: use --foundry or --avrae, or write r alone");
	} else if (ps->o->foundry) {
		mode = REROLL_ONCE;	/* Foundry's r rerolls once */
	} else if (notation_default(ps->o) && lex_cur(ps) != 'r') {
		lex_warn(ps, "'r' rerolls until no die matches (as on Roll20); Foundry's r rerolls once: use --foundry, or write ro to reroll once");
	}
	if (g->reroll != REROLL_NONE && g->reroll != mode) {
		lex_fail(ps, start, "cannot mix 'r' and 'ro' (rerolling until no die matches, and once) in one dice group");
		return false;
	}
	if (g->nrr == DICE_MAX_REROLL_RULES) {
		lex_fail(ps, start, "too many reroll rules (at most %d)",
			 DICE_MAX_REROLL_RULES);
		return false;
	}
	g->reroll = mode;
	if (!mod_cmp_follows_space(ps)) {
		/* a bare r or ro rerolls the lowest face, as on Foundry */
		g->rr[g->nrr] = (struct cmp){ CMP_EQ, die_min(&g->die) };
	} else if (!lex_compare(ps, &g->rr[g->nrr], name)) {
		return false;
	}
	g->nrr++;
	return mod_note(ps, m, CK_REROLL, start, g->nrr - 1);
}

static bool mod_unique(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;

	if (!mod_once(ps, 1, g->unique != UNIQUE_NONE, "u"))
		return false;
	g->unique = lex_skip(ps, 'o') ? UNIQUE_ONCE : UNIQUE_ALWAYS;
	return mod_note(ps, m, CK_UNIQUE, start, 0);
}

/* min and max, or d20's mi and ma (@len 2). */
static bool mod_min_max(struct parser *ps, struct group *g, size_t len)
{
	size_t start = ps->p;
	bool is_min = lex_looking_at(ps, "mi");
	int64_t v;

	if (!mod_once(ps, len, is_min ? g->has_min : g->has_max,
		      is_min ? "min" : "max"))
		return false;
	if (!lex_integer(ps, &v, is_min ? "min" : "max"))
		return false;
	if (is_min) {
		g->has_min = true;
		g->min = v;
	} else {
		g->has_max = true;
		g->max = v;
	}
	if (g->has_min && g->has_max && g->min > g->max) {
		lex_fail(ps, start, "'min' is above 'max'");
		return false;
	}
	return true;
}

static bool mod_match(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	uint64_t n = 2;

	if (!mod_once(ps, 1, g->match, "m"))
		return false;
	g->match = true;
	g->match_count = lex_skip(ps, 't');
	if (isdigit((unsigned char)lex_cur(ps))) {
		if (!lex_number(ps, &n))
			return false;
		if (n < 2 || n > 1000000) {
			lex_fail(ps, start, "a match needs from 2 to 1000000 dice, not %llu",
				 (unsigned long long)n);
			return false;
		}
	}
	g->match_min = (unsigned int)n;
	return mod_note(ps, m, CK_MATCH, start, 0);
}

/*
 * Foundry's cs and cf count the dice that match (successes, failures):
 * the group's value is that count (foundryvtt.com article
 * dice-modifiers).  Here that is a success target; both at once have no
 * one meaning here, so they are refused with what to write.
 */
static bool mod_foundry_count(struct parser *ps, struct group *g,
			      struct mods *m)
{
	size_t start = ps->p;
	const char *name = lex_peek(ps, 1) == 's' ? "cs" : "cf";

	ps->p += 2;
	if (g->success.op != CMP_NONE) {
		lex_fail(ps, start,
			 "Foundry's cs and cf each make the group a count: give one of them (successes less failures is 10d10>=8f1 here, Foundry's cs>=8df1)");
		return false;
	}
	if (!mod_cmp_follows(ps)) {
		lex_fail(ps, ps->p,
			 "with --foundry, '%s' needs the faces it counts, as in %s>=8",
			 name, name);
		return false;
	}
	if (!lex_compare(ps, &g->success, name))
		return false;
	return mod_note(ps, m, CK_SUCCESS, start, 0);
}

static bool mod_crit(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	bool success = lex_peek(ps, 1) == 's';
	struct cmp *c = success ? &g->crit_success : &g->crit_failure;

	if (ps->o->foundry)
		return mod_foundry_count(ps, g, m);
	if (notation_default(ps->o))
		lex_warn(ps, "'%s' marks critical %s (as on Roll20) and the dice are still added up; Foundry's %s counts the dice that match: use --foundry, or write the compare point alone (10d10>=8) to count",
			 success ? "cs" : "cf",
			 success ? "successes" : "failures",
			 success ? "cs" : "cf");

	if (!mod_once(ps, 2, c->op != CMP_NONE, success ? "cs" : "cf"))
		return false;
	if (mod_cmp_follows(ps)) {
		if (!lex_compare(ps, c, success ? "cs" : "cf"))
			return false;
	} else {
		c->op = CMP_NONE;
		c->n = 1;	/* the highest or lowest face, filled in later */
	}
	return mod_note(ps, m, success ? CK_CRIT_S : CK_CRIT_F, start, 0);
}

static bool mod_sort(struct parser *ps, struct group *g)
{
	size_t start = ps->p;

	if (g->sort != SORT_NONE) {
		lex_fail(ps, start, "more than one sort modifier in a dice group");
		return false;
	}
	g->sort = lex_peek(ps, 1) == 'a' ? SORT_ASC : SORT_DESC;
	ps->p += 2;
	return true;
}

bool mod_success(struct parser *ps, struct cmp *s, struct cmp *f,
		 struct mods *m)
{
	size_t start = ps->p;

	if (!lex_compare(ps, s, "the dice"))
		return false;
	if (m && !mod_note(ps, m, CK_SUCCESS, start, 0))
		return false;
	start = ps->p;
	while (lex_is_space(ps->s[start]))	/* "3d6 >= 4 f 1" */
		start++;
	if (ps->s[start] == 'f')
		ps->p = start;
	if (lex_cur(ps) != 'f')
		return true;
	start = ps->p++;
	if (!lex_compare(ps, f, "f"))
		return false;
	return !m || mod_note(ps, m, CK_FAILURE, start, 0);
}

/*
 * Keep/drop by comparison, as Avrae writes it: k>3 keeps the dice above 3,
 * p<2 (or d<2) drops those below 2; the others count nothing.
 */
static bool mod_keep_by(struct parser *ps, struct group *g)
{
	size_t start = ps->p;
	char kind = lex_cur(ps);

	ps->p++;
	if (g->keep.mode != KEEP_ALL || g->keep_by.op != CMP_NONE) {
		lex_fail(ps, start, "more than one keep/drop modifier in a dice group");
		return false;
	}
	g->keep_by_drop = kind != 'k';
	return lex_compare(ps, &g->keep_by, kind == 'k' ? "k" : kind == 'p' ? "p" : "d");
}

/*
 * Foundry's even and odd: count the kept dice that show an even (odd)
 * value, as a success target would; 'f' may follow.
 */
static bool mod_parity(struct parser *ps, struct group *g, struct mods *m)
{
	size_t start = ps->p;
	bool even = lex_looking_at(ps, "even");

	if (!mod_once(ps, even ? 4 : 3, g->success.op != CMP_NONE,
		      even ? "even" : "odd"))
		return false;
	g->success = (struct cmp){ even ? CMP_EVEN : CMP_ODD, 0 };
	if (!mod_note(ps, m, CK_SUCCESS, start, 0))
		return false;
	start = ps->p;
	while (lex_is_space(ps->s[start]))
		start++;
	if (ps->s[start] != 'f')
		return true;
	ps->p = start;
	start = ps->p++;
	if (!lex_compare(ps, &g->failure, "f"))
		return false;
	return mod_note(ps, m, CK_FAILURE, start, 0);
}

/*
 * Foundry's margin of success: msN, ms>=N, ms>N give the group's value
 * minus N; ms<=N, ms<N give N minus it.
 */
static bool mod_margin(struct parser *ps, struct group *g)
{
	if (!mod_once(ps, 2, g->margin.op != CMP_NONE, "ms"))
		return false;
	return lex_compare(ps, &g->margin, "ms");
}

/* Both compare points are intervals of integers: do they share one? */
bool mod_overlap(const struct cmp *s, const struct cmp *f)
{
	val_t ends[6] = { s->n - 1, s->n, s->n + 1, f->n - 1, f->n, f->n + 1 };
	bool ps = s->op == CMP_EVEN || s->op == CMP_ODD;
	bool pf = f->op == CMP_EVEN || f->op == CMP_ODD;
	unsigned int i;

	if (ps && pf)
		return s->op == f->op;
	if ((ps || pf) && (ps ? f : s)->op != CMP_EQ)
		return true;	/* a parity meets every unbounded interval */

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
bool group_target_possible(const struct group *g, const struct cmp *c)
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
static uint64_t group_distinct_values(const struct group *g, uint64_t enough)
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
static bool group_check(struct parser *ps, struct group *g,
			const struct mods *m)
{
	unsigned int i;
	char buf[48];

	for (i = 0; i < m->n; i++) {
		const struct mod_check *c = &m->ck[i];
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
				lex_fail(ps, at, "'%s' matches no face of the die, so nothing would explode",
					 buf);
				return false;
			}
			if (group_all(g, &g->ex, 1)) {
				lex_fail(ps, at, "'%s' matches every face: each die would explode %u times",
					 buf, g->explode_limit);
				return false;
			}
			if (g->unique != UNIQUE_NONE) {
				lex_fail(ps, at, "unique dice ('u') cannot explode");
				return false;
			}
			break;
		case CK_REROLL:
			if (!group_any(g, &g->rr[c->rule], 1)) {
				lex_fail(ps, at, "'%s' matches no face of the die", buf);
				return false;
			}
			if (g->reroll == REROLL_ALWAYS &&
			    group_all(g, g->rr, c->rule + 1)) {
				lex_fail(ps, at, "rerolling every face of the die would never stop");
				return false;
			}
			break;
		case CK_SUCCESS:
			if (g->match_count) {
				lex_fail(ps, at, "'mt' and a success target cannot both give the group's value");
				return false;
			}
			if (!group_target_possible(g, &g->success)) {
				lex_fail(ps, at, "success target '%s' matches no face of the die",
					 buf);
				return false;
			}
			/*
			 * A count that cannot vary: most likely a comparison
			 * of the total meant (Avrae's 3d6<=6), which reads
			 * as a count of dice here.
			 */
			if (g->explode == EXPLODE_NONE &&
			    group_all(g, &g->success, 1)) {
				lex_fail(ps, at, "success target '%s' matches every face of the die, so the count never varies; to compare the total, write the group in parentheses, as in (3d6)<=6, or use --avrae",
					 buf);
				return false;
			}
			break;
		case CK_FAILURE:
			if (!group_target_possible(g, &g->failure)) {
				lex_fail(ps, at, "failure target '%s' matches no face of the die",
					 buf);
				return false;
			}
			if (mod_overlap(&g->success, &g->failure)) {
				lex_fail(ps, at, "a value cannot count as both a success and a failure");
				return false;
			}
			break;
		case CK_UNIQUE:
			if (g->reroll == REROLL_ONCE) {
				lex_fail(ps, at, "unique dice ('u') cannot be combined with 'ro'");
				return false;
			}
			if (g->unique == UNIQUE_ALWAYS &&
			    group_distinct_values(g, g->count) < g->count) {
				lex_fail(ps, at, "%llu unique dice need %llu distinct faces, and the die has %llu",
					 (unsigned long long)g->count,
					 (unsigned long long)g->count,
					 (unsigned long long)group_distinct_values(g, g->count));
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
				lex_fail(ps, at, "'%s' matches no face of the die", buf);
				return false;
			}
			break;
		}
		case CK_MATCH:
			if (g->match_count && g->success.op != CMP_NONE) {
				lex_fail(ps, at, "'mt' and a success target cannot both give the group's value");
				return false;
			}
			break;
		}
	}
	return true;
}

/* Letters that start a modifier, for the "no spaces" hint. */
bool mod_char(char c)
{
	return c && strchr("kdsr!<>=fumceopx", c);
}

/*
 * Spaces inside a group, as in "4d6 kh3" or "3d6 >= 5": step over them
 * when a modifier follows ('d' only as dl or dh: "3d6 d4" stays an error,
 * a missing operator).
 */
static void mod_after_space(struct parser *ps)
{
	size_t q = ps->p;
	char c;

	while (lex_is_space(ps->s[q]))
		q++;
	c = ps->s[q];
	if (q == ps->p || !mod_char(c) ||
	    (c == 'd' && ps->s[q + 1] != 'l' && ps->s[q + 1] != 'h'))
		return;
	ps->p = q;
}

/* After a success target only display modifiers and 'f' may follow. */
static bool mod_display(const struct parser *ps)
{
	return lex_looking_at(ps, "cs") || lex_looking_at(ps, "cf") ||
	       lex_looking_at(ps, "sa") || lex_looking_at(ps, "sd") ||
	       (lex_cur(ps) == 'm' && !lex_looking_at(ps, "mt") &&
		!lex_looking_at(ps, "mi") && !lex_looking_at(ps, "ma"));
}

/*
 * d20 applies a group's modifiers in the order written (its
 * _eval_operatedset() in d20/dice.py), and its ra adds a fresh die that
 * the modifiers before it never saw.  dice rolls Avrae's ra (add_once)
 * only where that order is dice's own: ra first, then at most a keep
 * (kh, kl, k and p by value), which sees the added die too, as d20's does.
 * @mstart: where the modifier just read starts; @index: how many came
 * before it; @had_ra: ra came before it; @is_keep: it is a keep.
 */
static bool avrae_ra_order(struct parser *ps, const struct group *g,
			   size_t mstart, unsigned int index, bool had_ra,
			   bool is_keep)
{
	if (!g->add_once)
		return true;
	if (!had_ra) {		/* the modifier just read is ra */
		if (index) {
			lex_fail(ps, mstart, "with --avrae, 'ra' must come first in its dice group: d20 applies modifiers in the order written, and dice rolls Avrae's ra only before a keep, as in 4d6ra6kh3");
			return false;
		}
		return true;
	}
	if (!is_keep) {
		lex_fail(ps, mstart, "with --avrae, only a keep (kh, kl, k, p) may follow 'ra' in its dice group: d20 applies modifiers in the order written, and dice rolls Avrae's ra only before a keep, as in 4d6ra6kh3");
		return false;
	}
	if (g->keep.drop) {
		lex_fail(ps, mstart, "with --avrae, dropping the lowest or highest dice (pl, ph) after 'ra' is not supported: the dice dropped would depend on whether ra added one; write the dice kept (kh, kl)");
		return false;
	}
	return true;
}

/*
 * The group whose 'd' is at the cursor: @count dice, or as many as
 * @count_node (then @count is the most it can give); @start is where the
 * group's text starts.
 */
struct group *group_parse(struct parser *ps, uint64_t count,
			  struct node *count_node, size_t start)
{
	struct group *g = xcalloc(1, sizeof(*g));
	struct mods m = { .n = 0 };
	char buf[32];
	size_t at, target_end = 0;
	unsigned int nmods = 0;

	g->count = count;
	g->count_node = count_node;
	g->start = start;
	g->explode_limit = ps->o->explode_limit;
	ps->p++;	/* 'd' */
	at = ps->p;
	switch (lex_cur(ps)) {
	case '%':
		g->die.type = DIE_FAIR;
		g->die.sides = 100;
		g->die.weight_sum = 100;
		g->die.percent = 1;
		ps->p++;
		break;
	case 'F':
		ps->p++;
		if (lex_cur(ps) == '.' && lex_peek(ps, 1) == '1') {
			static const int64_t f1[] = { -1, 0, 0, 0, 0, 1 };

			g->die.type = DIE_CUSTOM;
			g->die.sides = 6;
			g->die.weight_sum = 6;
			g->die.faces = xmalloc(sizeof(f1));
			memcpy(g->die.faces, f1, sizeof(f1));
			ps->p += 2;
			break;
		}
		if (lex_cur(ps) == '.' && lex_peek(ps, 1) == '2')
			ps->p += 2;
		else if (lex_cur(ps) == '.') {
			lex_fail(ps, ps->p, "expected dF, dF.1 or dF.2");
			goto bad;
		}
		g->die.type = DIE_FUDGE;
		g->die.sides = 3;
		g->die.weight_sum = 3;
		break;
	case 'W':
		if (!ps->o->custom) {
			lex_fail(ps, at, "dW needs --weights or --faces");
			goto bad;
		}
		die_copy(&g->die, ps->o->custom);
		ps->e->uses_custom = 1;
		ps->p++;
		break;
	case '{':
		if (!die_parse_faces(ps, &g->die))
			goto bad;
		break;
	default:
		if (!isdigit((unsigned char)lex_cur(ps))) {
			lex_fail(ps, at,
				 "expected the number of sides, '%%', 'F', 'W' or '{' after 'd' but found %s%s",
				 lex_what(ps, at, buf, sizeof(buf)),
				 lex_cur(ps) == 'f' ? " (Fudge dice are written dF)" :
				 lex_cur(ps) == '(' ? " (only the number of dice may be computed, as in (1d4)d6)" : "");
			goto bad;
		}
		if (!lex_number(ps, &g->die.sides))
			goto bad;
		if (!g->die.sides) {
			lex_fail(ps, at, "a die needs at least one side");
			goto bad;
		}
		g->die.type = DIE_FAIR;
		g->die.weight_sum = g->die.sides;
		break;
	}
	for (;;) {
		char c;
		bool ok, had_ra = g->add_once;
		struct keep keep0 = g->keep;
		enum cmp_op keep_by0 = g->keep_by.op;
		size_t mstart;

		mod_after_space(ps);
		c = lex_cur(ps);
		mstart = ps->p;
		if (g->success.op != CMP_NONE && c == 'd' &&
		    mstart == target_end &&
		    isdigit((unsigned char)lex_peek(ps, 1))) {
			/*
			 * "1d6 > 1d4": the target is "> 1", then "d4".  Or
			 * "4d6>=5d1", a drop after the target: say both.
			 */
			lex_fail(ps, ps->p,
				 "the success target must be the last modifier of its dice group, and it is a number, not a roll: to compare a group's total with a roll, put the group in parentheses, as in (1d6) > 1d4");
			goto bad;
		}
		if (g->success.op != CMP_NONE && mod_char(c) &&
		    !mod_display(ps)) {
			lex_fail(ps, ps->p,
				 "the success target must be the last modifier of its dice group");
			goto bad;
		}
		if (lex_looking_at(ps, "==") ||
		    (lex_looking_at(ps, "!=") && ps->o->avrae))
			break;	/* a comparison of the total: see parse.c */
		if (lex_looking_at(ps, "even") || lex_looking_at(ps, "odd"))
			ok = mod_parity(ps, g, &m);
		else if (lex_looking_at(ps, "ms"))
			ok = mod_margin(ps, g);
		else if (((c == 'k' || c == 'd') && lex_is_cmp_start(lex_peek(ps, 1))) ||
			 ((c == 'p' || (c == 'k' && ps->o->avrae)) &&
			  (lex_is_cmp_start(lex_peek(ps, 1)) ||
			   isdigit((unsigned char)lex_peek(ps, 1)))))
			ok = mod_keep_by(ps, g);
		else if (g->keep_by.op != CMP_NONE &&
			 (c == 'k' || c == 'd' || c == 'p' ||
			  (c == 's' &&
			   isdigit((unsigned char)lex_peek(ps, 1))))) {
			lex_fail(ps, ps->p, "more than one keep/drop modifier in a dice group");
			goto bad;
		} else if (c == 'k' || c == 'd' ||
			   (c == 'p' && (lex_peek(ps, 1) == 'h' ||
					 lex_peek(ps, 1) == 'l')) ||
			   (c == 's' &&
			    isdigit((unsigned char)lex_peek(ps, 1)))) {
			/* Avrae's k3 keeps the dice that show 3 */
			if (c == 'k' &&
			    isdigit((unsigned char)lex_peek(ps, 1)) &&
			    notation_default(ps->o))
				lex_warn(ps, "'k' and a number keep the highest dice (k3 is kh3) as on Roll20 and Foundry; Avrae's k3 keeps the dice that show 3: use --avrae, or write k=3 for that");
			ok = mod_keep_drop(ps, &g->keep, g->count, !count_node,
					   "dice group", "dice",
					   " (rolldice: 4d6s1 drops the lowest die)");
		} else if (c == 's' && (lex_peek(ps, 1) == 'a' ||
					lex_peek(ps, 1) == 'd'))
			ok = mod_sort(ps, g);
		else if (c == 's')
			ok = mod_keep_drop(ps, &g->keep, g->count, !count_node,
					   "dice group", "dice",
					   " (rolldice: 4d6s1 drops the lowest die; sa and sd sort)");
		else if (c == '!' || c == 'x' || c == 'e')
			ok = mod_explode(ps, g, &m);
		else if (c == 'r')
			ok = mod_reroll(ps, g, &m);
		else if (c == 'u')
			ok = mod_unique(ps, g, &m);
		else if (lex_looking_at(ps, "min") || lex_looking_at(ps, "max"))
			ok = mod_min_max(ps, g, 3);
		else if ((lex_looking_at(ps, "mi") || lex_looking_at(ps, "ma")) &&
			 (isdigit((unsigned char)lex_peek(ps, 2)) ||
			  lex_peek(ps, 2) == '-'))
			ok = mod_min_max(ps, g, 2);
		else if (c == 'm')
			ok = mod_match(ps, g, &m);
		else if (lex_looking_at(ps, "cs") || lex_looking_at(ps, "cf"))
			ok = mod_crit(ps, g, &m);
		else if (lex_is_cmp_start(c) && ps->o->avrae)
			break;	/* a comparison of the total: see parse.c */
		else if (lex_is_cmp_start(c)) {
			ok = mod_success(ps, &g->success, &g->failure, &m);
			/* where a digit of the target (not of 'f') ends */
			if (ok && g->failure.op == CMP_NONE)
				target_end = ps->p;
		} else if (c == 'f') {
			lex_fail(ps, ps->p,
				 "'f' (failures) needs a success target first, as in 10d10>=8f1");
			goto bad;
		} else {
			break;
		}
		if (!ok)
			goto bad;
		if (!avrae_ra_order(ps, g, mstart, nmods++, had_ra,
				    keep0.mode != g->keep.mode ||
				    keep0.n != g->keep.n ||
				    keep_by0 != g->keep_by.op))
			goto bad;
	}
	/* not the spaces read looking for one more modifier ("2d6 != 7") */
	g->end = ps->p;
	while (g->end > g->start && lex_is_space(ps->s[g->end - 1]))
		g->end--;
	if (!group_check(ps, g, &m))
		goto bad;
	if (isalpha((unsigned char)lex_cur(ps))) {
		lex_fail(ps, ps->p, "unknown modifier '%c'", lex_cur(ps));
		goto bad;
	}
	if (isdigit((unsigned char)lex_cur(ps)) || lex_cur(ps) == '{' ||
	    lex_cur(ps) == '(' || lex_cur(ps) == '.' || lex_cur(ps) == '_') {
		lex_fail(ps, ps->p, "unexpected %s after a dice group",
			 lex_what(ps, ps->p, buf, sizeof(buf)));
		goto bad;
	}
	return g;
bad:
	g->count_node = NULL;	/* the caller frees it */
	group_free(g);
	return NULL;
}
