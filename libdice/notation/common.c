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

/* The blocks of @c: an empty ring. */
static void blocks_init(struct notation_block *head)
{
	head->prev = head->next = head;
}

/* @b at the end of @head's ring. */
static void block_link(struct notation_block *head, struct notation_block *b)
{
	b->prev = head->prev;
	b->next = head;
	head->prev->next = b;
	head->prev = b;
}

static void block_unlink(struct notation_block *b)
{
	if (!b->prev)
		return;		/* a block of a call that returned */
	b->prev->next = b->next;
	b->next->prev = b->prev;
	b->prev = b->next = NULL;
}

void notation_call_enter(struct notation_call *c,
			 const volatile sig_atomic_t *interrupted)
{
	c->interrupted = interrupted;
	c->work = 0;
	c->outer = current;
	c->marks = NULL;
	blocks_init(&c->blocks);
	current = c;
}

/*
 * The blocks @c allocated become the outer call's (a failure there frees
 * them too), or, from the outermost call, nobody's: they belong to the
 * objects the call made, which free them with xfree().
 */
void notation_call_leave(struct notation_call *c)
{
	struct notation_block *head = &c->blocks, *b, *next;

	current = c->outer;
	if (head->next == head)
		return;
	if (current) {
		struct notation_block *to = &current->blocks;

		head->next->prev = to->prev;
		to->prev->next = head->next;
		head->prev->next = to;
		to->prev = head->prev;
	} else {
		for (b = head->next; b != head; b = next) {
			next = b->next;
			b->prev = b->next = NULL;
		}
	}
	blocks_init(head);
}

void notation_call_fail(struct notation_call *c)
{
	struct notation_block *head = &c->blocks;

	while (head->next != head) {
		struct notation_block *b = head->next;

		block_unlink(b);
		free(b);
	}
	if (current == c)
		current = c->outer;
}

void notation_mark(struct notation_mark *mark)
{
	mark->link.prev = mark->link.next = NULL;
	mark->outer = NULL;
	if (!current)
		return;
	block_link(&current->blocks, &mark->link);
	mark->outer = current->marks;
	current->marks = mark;
}

void notation_unmark(struct notation_mark *mark)
{
	if (!mark->link.prev)
		return;
	block_unlink(&mark->link);
	current->marks = mark->outer;
}

void notation_release(struct notation_mark *mark)
{
	if (!mark->link.prev)
		return;
	while (mark->link.next != &current->blocks) {
		struct notation_block *b = mark->link.next;

		block_unlink(b);
		free(b);
	}
	notation_unmark(mark);
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
 * Unwind to the current call, which returns -ENOMEM after freeing what it
 * allocated (notation_call_fail()).  Outside any call (a caller of the
 * internal functions that did not enter one: a bug) there is nowhere to
 * return to, and the process traps.
 */
static void __attribute__((noreturn)) notation_oom(void)
{
	if (current) {
		/* the marks live in the frames the jump leaves */
		while (current->marks)
			notation_unmark(current->marks);
		longjmp(current->oom, 1);
	}
	__builtin_trap();
}

/* The memory after @b (NULL: unwind), in the current call's blocks. */
static void *block_start(struct notation_block *b)
{
	if (!b)
		notation_oom();
	b->prev = b->next = NULL;
	if (current)
		block_link(&current->blocks, b);
	return b + 1;
}

void *xmalloc(size_t size)
{
	if (size > SIZE_MAX - sizeof(struct notation_block))
		notation_oom();
	return block_start(malloc(sizeof(struct notation_block) + size));
}

void *xcalloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		notation_oom();
	p = xmalloc(n * size);
	memset(p, 0, n * size);
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	struct notation_block *b, *nb, *prev, *next;

	if (size && n > SIZE_MAX / size)
		notation_oom();
	n *= size;
	if (!p)
		return xmalloc(n);
	if (n > SIZE_MAX - sizeof(*b))
		notation_oom();
	b = (struct notation_block *)p - 1;
	prev = b->prev;
	next = b->next;
	nb = realloc(b, sizeof(*b) + n);
	if (!nb)
		notation_oom();		/* @p is still whole, and freed with its call */
	if (prev) {		/* the links moved with the block */
		prev->next = nb;
		next->prev = nb;
	}
	return nb + 1;
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

void xfree(void *p)
{
	struct notation_block *b;

	if (!p)
		return;
	b = (struct notation_block *)p - 1;
	block_unlink(b);
	free(b);
}

char *notation_strdup(const char *s)
{
	return strdup(s);
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
