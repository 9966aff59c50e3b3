// SPDX-License-Identifier: GPL-2.0
/*
 * fail.c - how every part of the dice CLI reports an error: "dice: " and
 * the message on stderr
 *
 * Its own file, below dice.c, engine.c and fair.c, so that those call
 * it and never each other back (scripts/call-cycles.py).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* "dice: " and the message on stderr, after what stdout still holds. */
void vsay(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("dice: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void die_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
