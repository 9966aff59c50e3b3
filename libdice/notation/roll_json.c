// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * roll_json.c - one rolled expression as JSON: its total, each dice group
 * with its label, computed count, value and every die (rerolled faces,
 * explosions, marks), and each grouped roll {...} with its elements
 *
 * The object dice --json prints for each roll, and dice_result_text()'s
 * DICE_TEXT_JSON (api_roll.c).  Values beyond 2^53 - 1, which a JSON
 * reader may round, are written as strings of decimal digits.
 */
#include <stdbool.h>
#include <string.h>

#include "roll_json.h"

#define JSON_SAFE	(((val_t)1 << 53) - 1)

/* @len bytes of @s as a JSON string, quotes included. */
static void json_text(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
	json_text(f, s, strlen(s));
}

/* A JSON number when a double holds it exactly, else a decimal string. */
static void json_val(FILE *f, val_t v)
{
	bool big = v > JSON_SAFE || v < -JSON_SAFE;

	if (big)
		fputc('"', f);
	val_print(f, v);
	if (big)
		fputc('"', f);
}

static void json_span(FILE *f, const struct expr *e, size_t start, size_t end)
{
	json_text(f, e->text + start, end - start);
}

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

static void json_die(FILE *f, const struct group_roll *gr,
		     const struct pool_die *p)
{
	const struct group *g = gr->g;
	const struct roll_event *ev = gr->ev + p->first;
	bool any = false;
	uint32_t marks = 0;
	size_t j;

	fputs("{\"value\":", f);
	json_val(f, p->value);
	fprintf(f, ",\"kept\":%s", p->flags & POOL_DROPPED ? "false" : "true");
	for (j = 0; j < p->nev; j++) {
		if (!(ev[j].flags & EV_REROLLED)) {
			marks |= ev[j].flags;
			continue;
		}
		fputs(any ? "," : ",\"rerolled\":[", f);
		json_val(f, ev[j].face);
		any = true;
	}
	if (any)
		fputc(']', f);
	if (g->explode == EXPLODE_COMPOUND) {
		any = false;
		fputs(",\"faces\":[", f);
		for (j = 0; j < p->nev; j++) {
			if (ev[j].flags & EV_REROLLED)
				continue;
			if (any)
				fputc(',', f);
			json_val(f, ev[j].face);
			any = true;
		}
		fputc(']', f);
	} else if (p->nev && (ev[p->nev - 1].flags & EV_EXPLODED)) {
		fputs(",\"exploded\":true", f);
	}
	if (p->flags & POOL_EXTRA)
		fputs(",\"extra\":true", f);
	if (p->flags & POOL_BRACE_DROP)
		fputs(",\"dropped_by\":\"brace\"", f);
	if (marks & EV_RAISED)
		fputs(",\"raised\":true", f);
	if (marks & EV_LOWERED)
		fputs(",\"lowered\":true", f);
	if (marks & EV_CRIT_S)
		fputs(",\"critical\":\"success\"", f);
	if (marks & EV_CRIT_F)
		fputs(",\"critical\":\"failure\"", f);
	if (p->flags & POOL_MATCHED)
		fputs(",\"matched\":true", f);
	if (p->flags & POOL_SUCCESS)
		fputs(",\"success\":true", f);
	if (p->flags & POOL_FAILURE)
		fputs(",\"failure\":true", f);
	fputc('}', f);
}

static void json_brace(FILE *f, const struct expr *e, const struct node *n,
		       const struct roll_result *r)
{
	const struct brace *b = n->brace;
	const struct brace_roll *br = &r->braces[b->index];
	unsigned int i;

	fputs("{\"brace\":", f);
	json_span(f, e, b->start, b->end);
	if (n->label) {
		fputs(",\"label\":", f);
		json_string(f, n->label);
	}
	fputs(",\"value\":", f);
	json_val(f, br->value);
	if (b->pooled) {
		fputs(",\"pooled\":true}", f);
		return;
	}
	fputs(",\"elements\":[", f);
	for (i = 0; i < n->nkids; i++) {
		fprintf(f, "%s{\"element\":", i ? "," : "");
		json_span(f, e, n->kids[i]->start, n->kids[i]->end);
		fputs(",\"value\":", f);
		json_val(f, br->values[i]);
		fprintf(f, ",\"kept\":%s", br->flags[i] & ELEM_DROPPED ? "false" : "true");
		if (br->flags[i] & ELEM_SUCCESS)
			fputs(",\"success\":true", f);
		if (br->flags[i] & ELEM_FAILURE)
			fputs(",\"failure\":true", f);
		fputc('}', f);
	}
	fputs("]}", f);
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

void roll_json(FILE *f, const struct expr *e, const struct roll_result *r)
{
	const struct node **gnode = xcalloc(e->ngroups + 1, sizeof(*gnode));
	const struct node **bnode = xcalloc(e->nbraces + 1, sizeof(*bnode));
	unsigned int gi;
	size_t i;

	find_groups(e->root, gnode);
	find_braces(e->root, bnode);
	fputs("{\"total\":", f);
	json_val(f, r->total);
	fputs(",\"groups\":[", f);
	for (gi = 0; gi < r->ngroups; gi++) {
		const struct group_roll *gr = &r->groups[gi];
		const struct group *g = gr->g;

		if (gi)
			fputc(',', f);
		fputs("{\"group\":", f);
		json_span(f, e, g->start, g->end);
		if (gnode[gi] && gnode[gi]->label) {
			fputs(",\"label\":", f);
			json_string(f, gnode[gi]->label);
		}
		if (g->count_node)
			fprintf(f, ",\"count\":%llu", (unsigned long long)gr->count);
		fputs(",\"value\":", f);
		json_val(f, gr->value);
		/* what 'ms' makes of the value, which the total counts */
		if (g->margin.op != CMP_NONE) {
			fputs(",\"margin\":", f);
			json_val(f, group_margin(g, gr->value));
		}
		fputs(",\"dice\":[", f);
		for (i = 0; i < gr->npool; i++) {
			if (i)
				fputc(',', f);
			json_die(f, gr, &gr->pool[i]);
		}
		fputs("]}", f);
	}
	fputc(']', f);
	if (e->nbraces) {
		fputs(",\"braces\":[", f);
		for (gi = 0; gi < e->nbraces; gi++) {
			if (gi)
				fputc(',', f);
			json_brace(f, e, bnode[gi], r);
		}
		fputc(']', f);
	}
	fputc('}', f);
	xfree(gnode);
	xfree(bnode);
}
