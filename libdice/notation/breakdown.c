// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * breakdown.c - one rolled expression as a line of text: the total with
 * its labelled parts ("15 (fire 8, cold 7)"), the breakdown of every die
 * ("4d6kh3 [6, 5, 4, 1 dropped] = 15"), or that breakdown in Markdown
 * (dropped dice struck through, criticals and the total in bold)
 *
 * dice(1) prints the first two as they are (plain and --breakdown); the
 * text goes to any stdio stream, so dice_result_text() (api_roll.c)
 * writes it to memory.
 */
#include <stdbool.h>
#include <string.h>

#include "breakdown.h"

struct out {
	FILE *f;
	bool md;
};

static void put(const struct out *o, const char *s)
{
	fputs(s, o->f);
}

static void put_val(const struct out *o, val_t v)
{
	val_print(o->f, v);
}

/* Text from the expression or a label: Markdown's own characters escaped. */
static void put_text(const struct out *o, const char *s, size_t len)
{
	size_t i;

	if (!o->md) {
		fwrite(s, 1, len, o->f);
		return;
	}
	for (i = 0; i < len; i++) {
		if (strchr("\\`*_[]~<>|#", s[i]))
			fputc('\\', o->f);
		fputc(s[i], o->f);
	}
}

/* ---- the total ---------------------------------------------------------- */

/* "fire 8, cold 3": each labelled part with its value, in order. */
static void print_labels(const struct out *o, const struct node *n,
			 const struct roll_result *r, bool *any)
{
	unsigned int i;
	val_t v;

	if (n->label && !roll_node_value(n, r, &v)) {
		put(o, *any ? ", " : " (");
		put_text(o, n->label, strlen(n->label));
		put(o, " ");
		put_val(o, v);
		*any = true;
	}
	for (i = 0; i < n->nkids; i++)
		print_labels(o, n->kids[i], r, any);
}

static void print_comment(const struct out *o, const struct expr *e)
{
	if (e->comment && *e->comment) {
		put(o, "  # ");
		put_text(o, e->comment, strlen(e->comment));
	}
}

static void print_total(const struct out *o, const struct expr *e,
			const struct roll_result *r)
{
	bool any = false;

	put_val(o, r->total);
	print_labels(o, e->root, r, &any);
	if (any)
		put(o, ")");
	print_comment(o, e);
}

/* ---- the breakdown ------------------------------------------------------ */

static void print_span(const struct out *o, const struct expr *e,
		       size_t start, size_t end)
{
	put_text(o, e->text + start, end - start);
}

/*
 * A face that 'min' raised or 'max' lowered is marked, as rpg-dice-roller
 * does: 2^ (raised to 2), 5v (lowered to 5).
 */
static void print_clamp(const struct out *o, uint32_t flags)
{
	if (flags & EV_RAISED)
		put(o, o->md ? "\\^" : "^");
	else if (flags & EV_LOWERED)
		put(o, "v");
}

/* One die of the pool: "6 exploded", "1 rerolled, 4". */
static void print_pool_die(const struct out *o, const struct group_roll *gr,
			   const struct pool_die *p)
{
	const struct roll_event *ev = gr->ev + p->first;
	bool compound = gr->g->explode == EXPLODE_COMPOUND, first = true;
	bool struck = o->md && (p->flags & POOL_DROPPED);
	size_t i, faces = 0;
	uint32_t marks = 0;
	bool bold;

	for (i = 0; i < p->nev; i++) {
		faces += !(ev[i].flags & EV_REROLLED);
		if (!(ev[i].flags & EV_REROLLED))
			marks |= ev[i].flags;
	}
	bold = o->md && (marks & (EV_CRIT_S | EV_CRIT_F));
	if (struck)
		put(o, "~~");
	if (bold)
		put(o, "**");
	compound = compound && faces > 1;
	if (compound) {
		put_val(o, p->value);
		put(o, " (");
	}
	for (i = 0; i < p->nev; i++) {
		if (ev[i].flags & EV_REROLLED) {
			put_val(o, ev[i].face);
			print_clamp(o, ev[i].flags);
			put(o, ev[i].flags & EV_UNIQUE ? " repeated, " :
			    " rerolled, ");
			continue;
		}
		if (compound) {
			if (!first)
				put(o, "+");
			put_val(o, ev[i].face);
			print_clamp(o, ev[i].flags);
			first = false;
		} else {
			put_val(o, ev[i].face);
			print_clamp(o, ev[i].flags);
			if (ev[i].flags & EV_EXPLODED)
				put(o, " exploded");
		}
	}
	if (compound)
		put(o, ")");
	if (marks & EV_CRIT_S)
		put(o, " critical");
	if (marks & EV_CRIT_F)
		put(o, " fumble");
	if (bold)
		put(o, "**");
	if (struck)
		put(o, "~~");
	else if (p->flags & POOL_DROPPED)
		put(o, " dropped");
	if (p->flags & POOL_MATCHED)
		put(o, " matched");
	if (p->flags & POOL_SUCCESS)
		put(o, " success");
	if (p->flags & POOL_FAILURE)
		put(o, " failure");
}

static void print_label(const struct out *o, const struct node *n)
{
	if (n->label) {
		put(o, o->md ? "\\[" : "[");
		put_text(o, n->label, strlen(n->label));
		put(o, o->md ? "\\]" : "]");
	}
}

static void print_node(const struct out *o, const struct expr *e,
		       const struct node *n, const struct roll_result *r);

static void print_group(const struct out *o, const struct expr *e,
			const struct node *n, const struct roll_result *r,
			bool top)
{
	const struct group *g = n->group;
	const struct group_roll *gr = &r->groups[g->index];
	size_t i;

	if (g->count_node) {
		print_node(o, e, g->count_node, r);
		print_span(o, e, g->count_node->end, g->end);
	} else {
		print_span(o, e, g->start, g->end);
	}
	print_label(o, n);
	put(o, o->md ? " \\[" : " [");
	for (i = 0; i < gr->npool; i++) {
		if (i)
			put(o, ", ");
		print_pool_die(o, gr, &gr->pool[i]);
	}
	put(o, o->md ? "\\]" : "]");
	if ((g->success.op != CMP_NONE || g->match_count) && !top) {
		put(o, " = ");
		put_val(o, gr->value);
	}
}

static void print_brace(const struct out *o, const struct expr *e,
			const struct node *n, const struct roll_result *r)
{
	const struct brace *b = n->brace;
	const struct brace_roll *br = &r->braces[b->index];
	unsigned int i;

	put(o, "{");
	for (i = 0; i < n->nkids; i++) {
		bool struck = o->md && !b->pooled &&
			      (br->flags[i] & ELEM_DROPPED);

		if (i)
			put(o, ", ");
		if (struck)
			put(o, "~~");
		print_node(o, e, n->kids[i], r);
		if (b->pooled)
			continue;
		if (n->kids[i]->type != NODE_CONST) {
			put(o, " = ");
			put_val(o, br->values[i]);
		}
		if (struck)
			put(o, "~~");
		else if (br->flags[i] & ELEM_DROPPED)
			put(o, " dropped");
		if (br->flags[i] & ELEM_SUCCESS)
			put(o, " success");
		if (br->flags[i] & ELEM_FAILURE)
			put(o, " failure");
	}
	put(o, "}");
	print_span(o, e, b->mods, b->end);
}

static void print_node(const struct out *o, const struct expr *e,
		       const struct node *n, const struct roll_result *r)
{
	static const char *const fname[] = {
		[FUNC_FLOOR] = "floor", [FUNC_CEIL] = "ceil",
		[FUNC_ROUND] = "round", [FUNC_ABS] = "abs",
		[FUNC_MAX] = "max", [FUNC_MIN] = "min",
	};
	const char *pow = o->md ? " \\^ " : " ^ ";
	char op[8];
	unsigned int i;

	if (n->paren)
		put(o, "(");
	switch (n->type) {
	case NODE_CONST:
		put_val(o, n->value);
		break;
	case NODE_GROUP:
		print_group(o, e, n, r, n == e->root);
		break;
	case NODE_NEG:
		put(o, "-");
		print_node(o, e, n->kids[0], r);
		break;
	case NODE_SUM:
	case NODE_PRODUCT:
		for (i = 0; i < n->nkids; i++) {
			if (i) {
				bool star = o->md && n->ops[i] == '*';

				snprintf(op, sizeof(op),
					 star ? " \\%c " : " %c ", n->ops[i]);
				put(o, op);
			}
			print_node(o, e, n->kids[i], r);
		}
		break;
	case NODE_POW:
		print_node(o, e, n->kids[0], r);
		put(o, pow);
		print_node(o, e, n->kids[1], r);
		break;
	case NODE_FUNC:
		put(o, fname[n->func]);
		put(o, "(");
		print_node(o, e, n->kids[0], r);
		for (i = 1; i < n->nkids && n->ops[i] == ','; i++) {
			put(o, ", ");
			print_node(o, e, n->kids[i], r);
		}
		if (n->nkids == 2 && n->ops[1] == '/') {
			put(o, " / ");
			print_node(o, e, n->kids[1], r);
		}
		put(o, ")");
		break;
	case NODE_BRACE:
		/* then its ")" and label, as every node's */
		print_brace(o, e, n, r);
		break;
	case NODE_CMP:
		print_node(o, e, n->kids[0], r);
		put(o, " ");
		put(o, node_cmp_text(n));
		put(o, " ");
		print_node(o, e, n->kids[1], r);
		break;
	}
	if (n->paren)
		put(o, ")");
	if (n->type != NODE_GROUP)
		print_label(o, n);
}

void breakdown_print(FILE *f, const struct expr *e,
		     const struct roll_result *r, enum breakdown_format format)
{
	struct out o = { f, format == BREAKDOWN_MARKDOWN };

	if (format == BREAKDOWN_TOTAL) {
		print_total(&o, e, r);
		return;
	}
	print_node(&o, e, e->root, r);
	put(&o, o.md ? " = **" : " = ");
	put_val(&o, r->total);
	if (o.md)
		put(&o, "**");
	print_comment(&o, e);
}
