/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * breakdown.h - a rolled expression as one line of text (breakdown.c)
 */
#ifndef _DICE_NOTATION_BREAKDOWN_H
#define _DICE_NOTATION_BREAKDOWN_H

#include <stdio.h>

#include "notation.h"
#include "roll.h"

/* The values of DICE_TEXT_* of <dice_notation.h>. */
enum breakdown_format {
	BREAKDOWN_TOTAL,	/* dice(1)'s plain line */
	BREAKDOWN_TEXT,		/* dice --breakdown's line */
	BREAKDOWN_MARKDOWN,
};

/* The line, without its newline, on @f. */
void breakdown_print(FILE *f, const struct expr *e,
		     const struct roll_result *r, enum breakdown_format format);

#endif /* _DICE_NOTATION_BREAKDOWN_H */
