// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr.c - the syntax tree of dice notation: faces of dice, compare
 * points, keep counts, and freeing nodes, groups and expressions
 *
 * What every stage after the parser asks of a tree (roll.c, dist*.c,
 * show.c) is here, so that it is answered one way: a face after 'min' and
 * 'max' is group_face(), a match is cmp_match(), a success score is
 * cmp_score().
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"

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

static val_t face_clamp(const struct group *g, val_t v)
{
	if (g->has_min && v < g->min)
		v = g->min;
	if (g->has_max && v > g->max)
		v = g->max;
	return v;
}

val_t group_face(const struct group *g, uint64_t i)
{
	return face_clamp(g, die_face(&g->die, i));
}

int node_cmp_holds(const struct node *n, val_t a, val_t b)
{
	return cmp_match(&(struct cmp){ n->cmp, b }, a) ^ n->cmp_not;
}

const char *node_cmp_text(const struct node *n)
{
	static const char *const text[] = {
		[CMP_EQ] = "==", [CMP_LT] = "<", [CMP_LE] = "<=",
		[CMP_GT] = ">", [CMP_GE] = ">=",
	};

	return n->cmp_not ? "!=" : text[n->cmp];
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
	case CMP_EVEN:
		return !(v & 1);
	case CMP_ODD:
		return v & 1;
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
static bool die_scan(const struct die *d, const struct group *g,
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
	lo = g ? face_clamp(g, 1) : 1;
	hi = g ? face_clamp(g, (val_t)d->sides) : (val_t)d->sides;
	if (cmp_any(c, n, lo) == want || cmp_any(c, n, hi) == want)
		return true;
	/* even and odd: the next faces in have the other parity */
	if ((lo < hi && cmp_any(c, n, lo + 1) == want) ||
	    (lo < hi && cmp_any(c, n, hi - 1) == want))
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
	return die_scan(d, NULL, c, n, true);
}

int die_all_match(const struct die *d, const struct cmp *c, unsigned int n)
{
	return !die_scan(d, NULL, c, n, false);
}

bool group_any(const struct group *g, const struct cmp *c,
	       unsigned int n)
{
	return die_scan(&g->die, g, c, n, true);
}

bool group_all(const struct group *g, const struct cmp *c,
	       unsigned int n)
{
	return !die_scan(&g->die, g, c, n, false);
}

val_t group_min(const struct group *g)
{
	return face_clamp(g, die_min(&g->die));
}

val_t group_max(const struct group *g)
{
	return face_clamp(g, die_max(&g->die));
}

void cmp_str(const struct cmp *c, char *buf, size_t len)
{
	static const char *const ops[] = {
		[CMP_NONE] = "", [CMP_EQ] = "=", [CMP_LT] = "<",
		[CMP_LE] = "<=", [CMP_GT] = ">", [CMP_GE] = ">=",
	};
	char num[VAL_BUFSZ];

	if (c->op == CMP_EVEN || c->op == CMP_ODD) {
		snprintf(buf, len, "%s", c->op == CMP_EVEN ? "even" : "odd");
		return;
	}
	snprintf(buf, len, "%s%s", ops[c->op], val_str(c->n, num));
}

val_t group_margin(const struct group *g, val_t v)
{
	switch (g->margin.op) {
	case CMP_NONE:
		return v;
	case CMP_LT:
	case CMP_LE:
		return g->margin.n - v;
	default:
		return v - g->margin.n;
	}
}

uint64_t keep_count(const struct keep *k, uint64_t pool)
{
	if (k->mode == KEEP_ALL)
		return pool;
	if (k->drop)
		return pool > k->n ? pool - k->n : 0;
	return pool < k->n ? pool : k->n;
}


void die_copy(struct die *to, const struct die *from)
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

void die_free(struct die *d)
{
	xfree(d->faces);
	xfree(d->weights);
}

void node_free(struct node *n)
{
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	xfree(n->kids);
	xfree(n->ops);
	xfree(n->label);
	if (n->brace) {
		xfree(n->brace->groups);
		xfree(n->brace);
	}
	xfree(n);	/* groups belong to the expression's array */
}

void group_free(struct group *g)
{
	node_free(g->count_node);
	die_free(&g->die);
	xfree(g);
}

void notation_free(struct expr *e)
{
	unsigned int i;

	if (!e)
		return;
	node_free(e->root);
	for (i = 0; i < e->ngroups; i++)
		group_free(e->groups[i]);
	xfree(e->groups);
	xfree(e->braces);	/* each belongs to its node */
	xfree(e->comment);
	xfree(e->text);
	xfree(e->typed);
	for (i = 0; i < e->nwarnings; i++)
		xfree(e->warnings[i]);
	xfree(e->warnings);
	xfree(e);
}
