/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * roll_json.h - a rolled expression as JSON (roll_json.c)
 */
#ifndef _DICE_NOTATION_ROLL_JSON_H
#define _DICE_NOTATION_ROLL_JSON_H

#include <stdio.h>

#include "notation.h"
#include "roll.h"

/* The object, without a newline, on @f. */
void roll_json(FILE *f, const struct expr *e, const struct roll_result *r);

#endif /* _DICE_NOTATION_ROLL_JSON_H */
