/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * versus.h - two rolls against each other, and a target met by many
 * (versus.c)
 */
#ifndef _DICE_NOTATION_VERSUS_H
#define _DICE_NOTATION_VERSUS_H

#include "dist.h"
#include "notation.h"

/*
 * The law of how many of @n rolls of law @one match @c, in lowest terms:
 * 0, or -E2BIG (nothing done) when its work would pass @lim->max_work.
 */
int count_dist(const struct dist *one, const struct cmp *c, uint64_t n,
	       const struct dist_limits *lim, struct dist *out);

#endif /* _DICE_NOTATION_VERSUS_H */
