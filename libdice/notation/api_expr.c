// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api_expr.c - struct dice_expr: a parsed expression (<dice_notation.h>)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static void copy_error(struct dice_notation_error *to,
		       const struct notation_error *from)
{
	if (!to)
		return;
	to->offset = from->offset;
	snprintf(to->message, sizeof(to->message), "%s", from->msg);
}

/* Parse @text into @e twice when the caps differ (see struct dice_expr). */
static int parse_both(const struct dice_notation *ctx, const char *text,
		      struct dice_expr *e, struct dice_notation_error *err)
{
	struct notation_opts dist_opts = ctx->opts;
	struct notation_error why;

	if (notation_parse(text, &ctx->opts, &e->roll, &why)) {
		copy_error(err, &why);
		return -EINVAL;
	}
	e->dist = e->roll;
	if (ctx->dist_explode_limit == ctx->opts.explode_limit)
		return 0;
	dist_opts.explode_limit = ctx->dist_explode_limit;
	if (notation_parse(text, &dist_opts, &e->dist, &why)) {
		copy_error(err, &why);
		e->dist = e->roll;
		return -EINVAL;
	}
	return 0;
}

DICE_NOTATION_EXPORT int dice_expr_parse(struct dice_notation *ctx,
					 const char *text,
					 struct dice_expr **out,
					 struct dice_notation_error *err)
{
	struct notation_call call;
	struct dice_expr *e;
	int ret;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!ctx || !text || !out)
		return -EINVAL;
	api_call_enter(&call, ctx);
	if (setjmp(call.oom)) {
		notation_call_fail(&call);
		return -ENOMEM;
	}
	e = xcalloc(1, sizeof(*e));
	ret = parse_both(ctx, text, e, err);
	notation_call_leave(&call);
	if (ret) {
		dice_expr_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

DICE_NOTATION_EXPORT void dice_expr_free(struct dice_expr *e)
{
	if (!e)
		return;
	if (e->dist != e->roll)
		notation_free(e->dist);
	notation_free(e->roll);
	xfree(e);
}

DICE_NOTATION_EXPORT const char *dice_expr_text(const struct dice_expr *e)
{
	return e ? e->roll->text : NULL;
}

DICE_NOTATION_EXPORT uint64_t dice_expr_repeat(const struct dice_expr *e)
{
	return e ? e->roll->repeat : 0;
}

DICE_NOTATION_EXPORT const char *dice_expr_warning(const struct dice_expr *e,
						   unsigned int i)
{
	if (!e || i >= e->roll->nwarnings)
		return NULL;
	return e->roll->warnings[i];
}

DICE_NOTATION_EXPORT const char *dice_expr_comment(const struct dice_expr *e)
{
	return e ? e->roll->comment : NULL;
}

DICE_NOTATION_EXPORT unsigned int dice_expr_flags(const struct dice_expr *e)
{
	if (!e)
		return 0;
	return (e->roll->uses_custom ? DICE_EXPR_CUSTOM : 0) |
	       (e->roll->loaded ? DICE_EXPR_LOADED : 0) |
	       (e->roll->repeat_given ? DICE_EXPR_REPEAT : 0);
}
