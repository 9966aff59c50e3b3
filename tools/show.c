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

#include "breakdown.h"
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

/* The lines come from libdice's notation engine (breakdown.c). */
void print_total(const struct expr *e, const struct roll_result *r)
{
	breakdown_print(stdout, e, r, BREAKDOWN_TOTAL);
	putchar('\n');
}

void print_breakdown(const struct expr *e, const struct roll_result *r)
{
	breakdown_print(stdout, e, r, BREAKDOWN_TEXT);
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
