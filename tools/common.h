/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the parts of the dice CLI share: allocation that never
 * returns NULL, the Ctrl-C flag, 128-bit values and their printing, JSON
 * strings.
 */
#ifndef _DICE_TOOLS_COMMON_H
#define _DICE_TOOLS_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Every die value and total: faces go up to 2^64 - 1, sums beyond. */
typedef __int128 val_t;

#define VAL_MAX	((val_t)(((unsigned __int128)1 << 127) - 1))
#define VAL_MIN	(-VAL_MAX - 1)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Set by the SIGINT/SIGTERM handler; long loops poll it and stop. */
extern volatile sig_atomic_t dice_interrupted;

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* Decimal text of @v into @buf (at least VAL_BUFSZ bytes); returns @buf. */
#define VAL_BUFSZ	42
char *val_str(val_t v, char *buf);
void val_print(FILE *f, val_t v);

/* Strict unsigned decimal: digits only, no sign, no overflow. 0 or -1. */
int parse_u64(const char *s, uint64_t *out);
/* Strict signed decimal: optional '-', then digits.  0 or -1. */
int parse_i64(const char *s, int64_t *out);

/* @s as a JSON string on standard output (versus.c, show*.c, fair.c). */
void json_string(const char *s);

#endif /* _DICE_TOOLS_COMMON_H */
