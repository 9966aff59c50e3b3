// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * api_context.c - struct dice_notation: the limits, the dialect and the
 * interrupt flag one thread's calls share (<dice_notation.h>)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

DICE_NOTATION_EXPORT int dice_notation_new(struct dice_notation **out)
{
	struct dice_notation *ctx;

	if (!out)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	/* dice(1)'s defaults */
	ctx->opts.max_dice = DICE_DEFAULT_MAX_DICE;
	ctx->opts.explode_limit = DICE_DEFAULT_MAX_EXPLODE;
	ctx->dist_explode_limit = DICE_DIST_DEFAULT_MAX_EXPLODE;
	ctx->lim = (struct dist_limits){ DIST_DEFAULT_MAX_VALUES,
					 DIST_DEFAULT_MAX_WORK,
					 DIST_DEFAULT_MAX_LEAVES, false };
	*out = ctx;
	return 0;
}

/* No dW. */
static void custom_clear(struct dice_notation *ctx)
{
	free(ctx->custom.faces);
	free(ctx->custom.weights);
	memset(&ctx->custom, 0, sizeof(ctx->custom));
	ctx->opts.custom = NULL;
}

DICE_NOTATION_EXPORT void dice_notation_free(struct dice_notation *ctx)
{
	if (!ctx)
		return;
	custom_clear(ctx);
	free(ctx);
}

DICE_NOTATION_EXPORT int dice_notation_set_limit(struct dice_notation *ctx,
						 enum dice_notation_limit limit,
						 uint64_t value)
{
	if (!ctx || !value)
		return -EINVAL;
	switch (limit) {
	case DICE_LIMIT_MAX_DICE:
		if (value > DICE_HARD_MAX_DICE)
			return -ERANGE;
		ctx->opts.max_dice = value;
		return 0;
	case DICE_LIMIT_MAX_EXPLODE:
	case DICE_LIMIT_DIST_MAX_EXPLODE:
		if (value > DICE_HARD_MAX_EXPLODE)
			return -ERANGE;
		if (limit == DICE_LIMIT_MAX_EXPLODE)
			ctx->opts.explode_limit = (unsigned int)value;
		else
			ctx->dist_explode_limit = (unsigned int)value;
		return 0;
	case DICE_LIMIT_DIST_VALUES:
		if (value > SIZE_MAX / 2)
			return -ERANGE;
		ctx->lim.max_values = (size_t)value;
		return 0;
	case DICE_LIMIT_DIST_WORK:
		if (value > UINT64_MAX / 2)
			return -ERANGE;
		ctx->lim.max_work = value;
		ctx->lim.max_leaves = value / 1000 ? value / 1000 : 1;
		return 0;
	}
	return -EINVAL;
}

DICE_NOTATION_EXPORT int dice_notation_set_dialect(struct dice_notation *ctx,
						   int dialect)
{
	if (!ctx || dialect < DICE_DIALECT_DICE || dialect > DICE_DIALECT_AVRAE)
		return -EINVAL;
	ctx->opts.roll20 = dialect == DICE_DIALECT_ROLL20;
	ctx->opts.foundry = dialect == DICE_DIALECT_FOUNDRY;
	ctx->opts.avrae = dialect == DICE_DIALECT_AVRAE;
	return 0;
}

DICE_NOTATION_EXPORT int dice_notation_set_custom(struct dice_notation *ctx,
						  size_t sides,
						  const int64_t *faces,
						  const uint32_t *weights)
{
	struct die d = { .type = DIE_CUSTOM, .sides = sides };
	size_t i;

	if (!ctx || (!sides && (faces || weights)))
		return -EINVAL;
	if (sides > DICE_NOTATION_MAX_CUSTOM_SIDES)
		return -ERANGE;
	d.weight_sum = weights ? 0 : sides;
	for (i = 0; weights && i < sides; i++)
		d.weight_sum += weights[i];
	if (sides && !d.weight_sum)
		return -EINVAL;		/* every weight is zero */
	if (!sides) {
		custom_clear(ctx);
		return 0;
	}
	if (faces) {
		d.faces = malloc(sides * sizeof(*faces));
		if (!d.faces)
			return -ENOMEM;
		memcpy(d.faces, faces, sides * sizeof(*faces));
	}
	if (weights) {
		d.weights = malloc(sides * sizeof(*weights));
		if (!d.weights) {
			free(d.faces);
			return -ENOMEM;
		}
		memcpy(d.weights, weights, sides * sizeof(*weights));
	}
	custom_clear(ctx);
	ctx->custom = d;
	ctx->opts.custom = &ctx->custom;
	return 0;
}

DICE_NOTATION_EXPORT int
dice_notation_set_interrupt(struct dice_notation *ctx,
			    const volatile sig_atomic_t *flag)
{
	if (!ctx)
		return -EINVAL;
	ctx->interrupted = flag;
	return 0;
}
