// SPDX-License-Identifier: GPL-2.0
/*
 * fail.c - how every part of the dice CLI reports an error: "dice: " and
 * the message on stderr; allocation that reports its failure so; strict
 * decimal numbers; the flag a signal sets to stop a long loop
 *
 * Its own file, below dice.c, engine.c and fair.c, so that those call
 * it and never each other back (scripts/call-cycles.py).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

volatile sig_atomic_t dice_interrupted;

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

static void *enough(void *p)
{
	if (!p)
		die_fail("out of memory");
	return p;
}

void *cli_malloc(size_t size)
{
	return enough(malloc(size ? size : 1));
}

void *cli_calloc(size_t n, size_t size)
{
	return enough(calloc(n ? n : 1, size ? size : 1));
}

void *cli_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die_fail("out of memory");
	n *= size;
	return enough(realloc(p, n ? n : 1));
}

char *cli_strdup(const char *s)
{
	return enough(strdup(s));
}

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int parse_i64(const char *s, int64_t *out)
{
	uint64_t u;
	int neg = *s == '-';

	if (parse_u64(s + neg, &u))
		return -1;
	if (u > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}
