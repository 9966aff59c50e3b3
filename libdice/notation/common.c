// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * common.c - small helpers shared by the parts of the notation engine:
 * the call frame, allocation, 128-bit values, strict decimal numbers
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* The innermost call of this thread (see struct notation_call). */
static _Thread_local struct notation_call *current;

void notation_call_enter(struct notation_call *c,
			 const volatile sig_atomic_t *interrupted)
{
	c->interrupted = interrupted;
	c->work = 0;
	c->outer = current;
	current = c;
}

void notation_call_leave(struct notation_call *c)
{
	current = c->outer;
}

bool notation_interrupted(void)
{
	return current && current->interrupted && *current->interrupted;
}

uint64_t notation_work(void)
{
	return current ? current->work : 0;
}

void notation_work_add(uint64_t n)
{
	if (current)
		current->work += n;
}

/*
 * Unwind to the current call, which returns -ENOMEM.  Outside any call
 * (a caller of the internal functions that did not enter one: a bug)
 * there is nowhere to return to, and the process traps.
 */
static void __attribute__((noreturn)) oom(void)
{
	if (current) {
		struct notation_call *c = current;

		current = c->outer;
		longjmp(c->oom, 1);
	}
	__builtin_trap();
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
