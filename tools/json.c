// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - JSON strings on standard output, for every part of the dice
 * CLI that writes --json (show*.c, versus.c, fair.c)
 */
#include <stdio.h>

#include "cli.h"

/* @s as a JSON string, quotes included, on standard output. */
void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}
