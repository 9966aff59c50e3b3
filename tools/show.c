// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - what the dice command prints about a roll: its total, its
 * --breakdown or its --json object, each a text of libdice's
 * (dice_result_text()); show_dist.c prints --dist and --histogram.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void print_roll(const struct dice_result *r, int format)
{
	char *text;
	int err = dice_result_text(r, format, &text);

	if (err)
		die_fail("cannot write the roll: %s", strerror(-err));
	fputs(text, stdout);
	if (format != DICE_TEXT_JSON)
		putchar('\n');
	free(text);
}
