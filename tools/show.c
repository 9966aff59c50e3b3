// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - what the dice command prints about a roll: totals,
 * --breakdown and --json (show_dist.c prints --dist and --histogram).
 *
 * Sections: JSON; rolls; --breakdown; --json rolls.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ---- JSON ---------------------------------------------------------------- */

#define JSON_SAFE	(((val_t)1 << 53) - 1)

void json_val(val_t v)
{
	if (v > JSON_SAFE || v < -JSON_SAFE)
		putchar('"');
	val_print(stdout, v);
	if (v > JSON_SAFE || v < -JSON_SAFE)
		putchar('"');
}

static void json_span(const struct expr *e, size_t start, size_t end)
{
	char *text = strndup(e->text + start, end - start);

	if (!text) {
		fputs("dice: out of memory\n", stderr);
		exit(1);
	}
	json_string(text);
	free(text);
}

/* ---- rolls --------------------------------------------------------------- */

/* "fire 8, cold 3": each labelled part with its value, in order. */
static void print_labels(const struct node *n, const struct roll_result *r,
			 bool *any)
{
	unsigned int i;
	val_t v;

	if (n->label && !roll_node_value(n, r, &v)) {
		fputs(*any ? ", " : " (", stdout);
		printf("%s ", n->label);
		val_print(stdout, v);
		*any = true;
	}
	for (i = 0; i < n->nkids; i++)
		print_labels(n->kids[i], r, any);
}

void print_total(const struct expr *e, const struct roll_result *r)
{
	bool any = false;

	val_print(stdout, r->total);
	print_labels(e->root, r, &any);
	if (any)
		putchar(')');
	if (e->comment && *e->comment)
		printf("  # %s", e->comment);
	putchar('\n');
}

/* ---- --breakdown ----------------------------------------------------------- */

static void print_span(const struct expr *e, size_t start, size_t end)
{
	fwrite(e->text + start, 1, end - start, stdout);
}

/*
 * A face that 'min' raised or 'max' lowered is marked, as rpg-dice-roller
 * does: 2^ (raised to 2), 5v (lowered to 5).
 */
static void print_clamp(uint32_t flags)
{
	if (flags & EV_RAISED)
		putchar('^');
	else if (flags & EV_LOWERED)
		putchar('v');
}

/* One die of the pool for --breakdown: "6 exploded", "1 rerolled, 4". */
static void print_pool_die(const struct group_roll *gr, const struct pool_die *p)
{
	const struct roll_event *ev = gr->ev + p->first;
	bool compound = gr->g->explode == EXPLODE_COMPOUND, first = true;
	size_t i, faces = 0;
	uint32_t marks = 0;

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
			print_clamp(ev[i].flags);
			fputs(ev[i].flags & EV_UNIQUE ? " repeated, " : " rerolled, ",
			      stdout);
			continue;
		}
		marks |= ev[i].flags;
		if (compound) {
			if (!first)
				putchar('+');
			val_print(stdout, ev[i].face);
			print_clamp(ev[i].flags);
			first = false;
		} else {
			val_print(stdout, ev[i].face);
			print_clamp(ev[i].flags);
			if (ev[i].flags & EV_EXPLODED)
				fputs(" exploded", stdout);
		}
	}
	if (compound)
		putchar(')');
	if (marks & EV_CRIT_S)
		fputs(" critical", stdout);
	if (marks & EV_CRIT_F)
		fputs(" fumble", stdout);
	if (p->flags & POOL_DROPPED)
		fputs(" dropped", stdout);
	if (p->flags & POOL_MATCHED)
		fputs(" matched", stdout);
	if (p->flags & POOL_SUCCESS)
		fputs(" success", stdout);
	if (p->flags & POOL_FAILURE)
		fputs(" failure", stdout);
}

static void print_label(const struct node *n)
{
	if (n->label)
		printf("[%s]", n->label);
}

static void print_node(const struct expr *e, const struct node *n,
		       const struct roll_result *r);

static void print_group(const struct expr *e, const struct node *n,
			const struct roll_result *r, bool top)
{
	const struct group *g = n->group;
	const struct group_roll *gr = &r->groups[g->index];
	size_t i;

	if (g->count_node) {
		print_node(e, g->count_node, r);
		print_span(e, g->count_node->end, g->end);
	} else {
		print_span(e, g->start, g->end);
	}
	print_label(n);
	fputs(" [", stdout);
	for (i = 0; i < gr->npool; i++) {
		if (i)
			fputs(", ", stdout);
		print_pool_die(gr, &gr->pool[i]);
	}
	putchar(']');
	if ((g->success.op != CMP_NONE || g->match_count) && !top) {
		fputs(" = ", stdout);
		val_print(stdout, gr->value);
	}
}

static void print_node(const struct expr *e, const struct node *n,
		       const struct roll_result *r);

static void print_brace(const struct expr *e, const struct node *n,
			const struct roll_result *r)
{
	const struct brace *b = n->brace;
	const struct brace_roll *br = &r->braces[b->index];
	unsigned int i;

	putchar('{');
	for (i = 0; i < n->nkids; i++) {
		if (i)
			fputs(", ", stdout);
		print_node(e, n->kids[i], r);
		if (b->pooled)
			continue;
		if (n->kids[i]->type != NODE_CONST) {
			fputs(" = ", stdout);
			val_print(stdout, br->values[i]);
		}
		if (br->flags[i] & ELEM_DROPPED)
			fputs(" dropped", stdout);
		if (br->flags[i] & ELEM_SUCCESS)
			fputs(" success", stdout);
		if (br->flags[i] & ELEM_FAILURE)
			fputs(" failure", stdout);
	}
	putchar('}');
	print_span(e, b->mods, b->end);
	print_label(n);
}

static void print_node(const struct expr *e, const struct node *n,
		       const struct roll_result *r)
{
	static const char *const fname[] = {
		[FUNC_FLOOR] = "floor", [FUNC_CEIL] = "ceil",
		[FUNC_ROUND] = "round", [FUNC_ABS] = "abs",
		[FUNC_MAX] = "max", [FUNC_MIN] = "min",
	};
	unsigned int i;

	if (n->paren)
		putchar('(');
	switch (n->type) {
	case NODE_CONST:
		val_print(stdout, n->value);
		break;
	case NODE_GROUP:
		print_group(e, n, r, n == e->root);
		break;
	case NODE_NEG:
		putchar('-');
		print_node(e, n->kids[0], r);
		break;
	case NODE_SUM:
	case NODE_PRODUCT:
		for (i = 0; i < n->nkids; i++) {
			if (i)
				printf(" %c ", n->ops[i]);
			print_node(e, n->kids[i], r);
		}
		break;
	case NODE_POW:
		print_node(e, n->kids[0], r);
		fputs(" ^ ", stdout);
		print_node(e, n->kids[1], r);
		break;
	case NODE_FUNC:
		printf("%s(", fname[n->func]);
		print_node(e, n->kids[0], r);
		for (i = 1; i < n->nkids && n->ops[i] == ','; i++) {
			fputs(", ", stdout);
			print_node(e, n->kids[i], r);
		}
		if (n->nkids == 2 && n->ops[1] == '/') {
			fputs(" / ", stdout);
			print_node(e, n->kids[1], r);
		}
		putchar(')');
		break;
	case NODE_BRACE:
		print_brace(e, n, r);
		return;
	}
	if (n->paren)
		putchar(')');
	if (n->type != NODE_GROUP)
		print_label(n);
}

void print_breakdown(const struct expr *e, const struct roll_result *r)
{
	print_node(e, e->root, r);
	fputs(" = ", stdout);
	val_print(stdout, r->total);
	if (e->comment && *e->comment)
		printf("  # %s", e->comment);
	putchar('\n');
}

/* ---- --json rolls ------------------------------------------------------------ */

/* The node of each group, to find its label. */
static void find_groups(const struct node *n, const struct node **of)
{
	unsigned int i;

	if (n->type == NODE_GROUP) {
		of[n->group->index] = n;
		if (n->group->count_node)
			find_groups(n->group->count_node, of);
	}
	for (i = 0; i < n->nkids; i++)
		find_groups(n->kids[i], of);
}

static void json_die(const struct group_roll *gr, const struct pool_die *p)
{
	const struct group *g = gr->g;
	const struct roll_event *ev = gr->ev + p->first;
	bool any = false;
	uint32_t marks = 0;
	size_t j;

	fputs("{\"value\":", stdout);
	json_val(p->value);
	printf(",\"kept\":%s", p->flags & POOL_DROPPED ? "false" : "true");
	for (j = 0; j < p->nev; j++) {
		if (!(ev[j].flags & EV_REROLLED)) {
			marks |= ev[j].flags;
			continue;
		}
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
	if (p->flags & POOL_BRACE_DROP)
		fputs(",\"dropped_by\":\"brace\"", stdout);
	if (marks & EV_RAISED)
		fputs(",\"raised\":true", stdout);
	if (marks & EV_LOWERED)
		fputs(",\"lowered\":true", stdout);
	if (marks & EV_CRIT_S)
		fputs(",\"critical\":\"success\"", stdout);
	if (marks & EV_CRIT_F)
		fputs(",\"critical\":\"failure\"", stdout);
	if (p->flags & POOL_MATCHED)
		fputs(",\"matched\":true", stdout);
	if (p->flags & POOL_SUCCESS)
		fputs(",\"success\":true", stdout);
	if (p->flags & POOL_FAILURE)
		fputs(",\"failure\":true", stdout);
	putchar('}');
}

static void json_brace(const struct expr *e, const struct node *n,
		       const struct roll_result *r)
{
	const struct brace *b = n->brace;
	const struct brace_roll *br = &r->braces[b->index];
	unsigned int i;

	fputs("{\"brace\":", stdout);
	json_span(e, b->start, b->end);
	if (n->label) {
		fputs(",\"label\":", stdout);
		json_string(n->label);
	}
	fputs(",\"value\":", stdout);
	json_val(br->value);
	if (b->pooled) {
		fputs(",\"pooled\":true}", stdout);
		return;
	}
	fputs(",\"elements\":[", stdout);
	for (i = 0; i < n->nkids; i++) {
		printf("%s{\"element\":", i ? "," : "");
		json_span(e, n->kids[i]->start, n->kids[i]->end);
		fputs(",\"value\":", stdout);
		json_val(br->values[i]);
		printf(",\"kept\":%s", br->flags[i] & ELEM_DROPPED ? "false" : "true");
		if (br->flags[i] & ELEM_SUCCESS)
			fputs(",\"success\":true", stdout);
		if (br->flags[i] & ELEM_FAILURE)
			fputs(",\"failure\":true", stdout);
		putchar('}');
	}
	fputs("]}", stdout);
}

static void find_braces(const struct node *n, const struct node **of)
{
	unsigned int i;

	if (n->type == NODE_BRACE)
		of[n->brace->index] = n;
	if (n->type == NODE_GROUP && n->group->count_node)
		find_braces(n->group->count_node, of);
	for (i = 0; i < n->nkids; i++)
		find_braces(n->kids[i], of);
}

void json_roll(const struct expr *e, const struct roll_result *r)
{
	const struct node **gnode = xcalloc(e->ngroups + 1, sizeof(*gnode));
	const struct node **bnode = xcalloc(e->nbraces + 1, sizeof(*bnode));
	unsigned int gi;
	size_t i;

	find_groups(e->root, gnode);
	find_braces(e->root, bnode);
	fputs("{\"total\":", stdout);
	json_val(r->total);
	fputs(",\"groups\":[", stdout);
	for (gi = 0; gi < r->ngroups; gi++) {
		const struct group_roll *gr = &r->groups[gi];
		const struct group *g = gr->g;

		if (gi)
			putchar(',');
		fputs("{\"group\":", stdout);
		json_span(e, g->start, g->end);
		if (gnode[gi] && gnode[gi]->label) {
			fputs(",\"label\":", stdout);
			json_string(gnode[gi]->label);
		}
		if (g->count_node)
			printf(",\"count\":%llu", (unsigned long long)gr->count);
		fputs(",\"value\":", stdout);
		json_val(gr->value);
		fputs(",\"dice\":[", stdout);
		for (i = 0; i < gr->npool; i++) {
			if (i)
				putchar(',');
			json_die(gr, &gr->pool[i]);
		}
		fputs("]}", stdout);
	}
	putchar(']');
	if (e->nbraces) {
		fputs(",\"braces\":[", stdout);
		for (gi = 0; gi < e->nbraces; gi++) {
			if (gi)
				putchar(',');
			json_brace(e, bnode[gi], r);
		}
		putchar(']');
	}
	putchar('}');
	free(gnode);
	free(bnode);
}
