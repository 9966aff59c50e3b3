// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - small helpers shared by the parts of the dice CLI
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

volatile sig_atomic_t dice_interrupted;

static void oom(void)
{
	fputs("dice: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom();
	n *= size;
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

char *val_str(val_t v, char *buf)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	char tmp[VAL_BUFSZ];
	int i = 0, j = 0;

	do {
		tmp[i++] = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[j++] = '-';
	while (i)
		buf[j++] = tmp[--i];
	buf[j] = '\0';
	return buf;
}

void val_print(FILE *f, val_t v)
{
	char buf[VAL_BUFSZ];

	fputs(val_str(v, buf), f);
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
