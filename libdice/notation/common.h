/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common.h - what the parts of the notation engine share: the call frame
 * (where an allocation failure unwinds to, the interrupt flag, the work
 * counter), allocation that never returns NULL, 128-bit values and their
 * printing, strict decimal numbers.
 */
#ifndef _DICE_NOTATION_COMMON_H
#define _DICE_NOTATION_COMMON_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Every die value and total: faces go up to 2^64 - 1, sums beyond. */
typedef __int128 val_t;

#define VAL_MAX	((val_t)(((unsigned __int128)1 << 127) - 1))
#define VAL_MIN	(-VAL_MAX - 1)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct notation_block - what x*alloc() put before each block they give
 * @prev: the previous block of the call that allocated it, or NULL once
 *	that call returned (the block then belongs to what holds it)
 * @next: the next one, or NULL
 *
 * 16 bytes, so that the block after it keeps malloc()'s alignment.
 */
struct notation_block {
	struct notation_block *prev, *next;
} __attribute__((aligned(16)));

/**
 * struct notation_mark - a place in the blocks of a call (notation_mark())
 * @link: in the ring, after the blocks allocated before it
 * @outer: the mark set before it in the same call, or NULL
 */
struct notation_mark {
	struct notation_block link;
	struct notation_mark *outer;
};

/**
 * struct notation_call - one call into the notation engine, on its caller's
 * stack, entered by every entry point (api_*.c)
 * @oom: where an allocation failure unwinds to (x*alloc() never return
 *	NULL, so the code under them needs no failure paths)
 * @interrupted: long loops stop with -EINTR once *@interrupted is set
 *	(NULL: never)
 * @work: 64-bit limb products done (big.c), which bound distributions
 * @outer: the call this one is nested in, or NULL
 * @marks: the innermost mark set in the call (notation_mark()), or NULL
 * @blocks: the head of the ring of blocks allocated in the call and not
 *	freed yet: notation_call_fail() frees them all, so that a call that
 *	unwinds leaks nothing; notation_call_leave() hands them to the outer
 *	call, or, from the outermost, to the objects that hold them
 *
 * The innermost call of each thread is the engine's only state outside
 * the objects it is given: a thread-local pointer, set by
 * notation_call_enter() and reset by notation_call_leave(), so that
 * threads never share it and nothing survives a call.
 */
struct notation_call {
	jmp_buf oom;
	const volatile sig_atomic_t *interrupted;
	uint64_t work;
	struct notation_call *outer;
	struct notation_mark *marks;
	struct notation_block blocks;
};

/*
 * Enter @c: then "if (setjmp(c.oom))" in the same function catches an
 * allocation failure: notation_call_fail() it and return -ENOMEM, without
 * touching what the call had allocated (notation_call_fail() frees it).
 */
void notation_call_enter(struct notation_call *c,
			 const volatile sig_atomic_t *interrupted);
void notation_call_leave(struct notation_call *c);
/* After an allocation failure: free what @c allocated, and leave it. */
void notation_call_fail(struct notation_call *c);
/*
 * A mark in the current call's blocks, on the stack of code that unwinds
 * on its own (the distributions' longjmp()s): notation_release() frees
 * what was allocated since notation_mark() and not freed, notation_unmark()
 * keeps it.  Outside any call, neither does anything.
 */
void notation_mark(struct notation_mark *mark);
void notation_release(struct notation_mark *mark);
void notation_unmark(struct notation_mark *mark);
/* The current call was asked to stop. */
bool notation_interrupted(void);
/* Limb products done in the current call; big.c adds to them. */
uint64_t notation_work(void);
void notation_work_add(uint64_t n);

/*
 * The engine's allocation: never NULL (a failure unwinds to the current
 * call), and every block is freed with xfree(), never free(): it starts
 * after a struct notation_block.  What leaves the library for its caller
 * to free() is copied out with notation_strdup().
 */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
void xfree(void *p);
/* A copy of @s from malloc(), for a caller to free(), or NULL. */
char *notation_strdup(const char *s);

/* Decimal text of @v into @buf (at least VAL_BUFSZ bytes); returns @buf. */
#define VAL_BUFSZ	42
char *val_str(val_t v, char *buf);
void val_print(FILE *f, val_t v);


#endif /* _DICE_NOTATION_COMMON_H */
