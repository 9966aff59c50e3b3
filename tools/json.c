// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - JSON strings and numbers on standard output, for every part of
 * the dice CLI that writes --json (show*.c, versus.c); a roll's own
 * object comes from libdice (dice_result_text(), DICE_TEXT_JSON)
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

#define JSON_SAFE	((INT64_C(1) << 53) - 1)

void json_val(int64_t v)
{
	if (v > JSON_SAFE || v < -JSON_SAFE)
		printf("\"%lld\"", (long long)v);
	else
		printf("%lld", (long long)v);
}
