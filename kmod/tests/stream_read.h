/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream_read.h - read() of /dev/dice over the core's stream, for tests
 *
 * The loop of dice_file_read_iter() (kmod/dice_main.c) over the shipped
 * step, dice_stream_read_chunk(), with a copy that delivers @room bytes and
 * then faults, as a user buffer followed by an unmapped page, and a VM fork
 * the module sees between two chunks (dice_stream_drop_random() before the
 * chunk @fork_at, counted from 1; 0 for none).  After each
 * produce the caller sees the faces just encoded, decoded back, and whether
 * the produce stopped short of what it was asked (a roll failed), so a twin
 * die rolled one face at a time can follow every batch of the shipped code.
 * Used by kmod/tests/regress_test.c and fuzz/fuzz_stream.c.
 */
#ifndef _DICE_STREAM_READ_H
#define _DICE_STREAM_READ_H

#include "dice_stream.h"

/*
 * @faces: the @n faces a produce encoded, zero-based; @stopped: it made
 * fewer bytes than it was asked for, with @err (0 if it made some).
 */
typedef void (*stream_rolled_fn)(void *ctx, const u64 *faces, unsigned int n,
				 bool stopped, int err);

/**
 * struct stream_read_opts - how a read of stream_read() goes
 * @room: bytes the copy delivers before it faults; SIZE_MAX for all
 * @fork_at: the chunk before which the VM forks (from 1), 0 for none
 * @forked: called then, after the stream dropped its random state, so
 *	that the caller's twin drops its own
 */
struct stream_read_opts {
	size_t room;
	unsigned int fork_at;
	void (*forked)(void *ctx);
};

/* The faces of a freshly produced buffer, zero-based. */
static inline unsigned int stream_decode(const struct dice_stream *s,
					 u64 *faces)
{
	u32 format = s->format;
	unsigned int width = dice_format_width(format), n = 0, i, b;
	u64 base = format & DICE_FMT_ZERO_BASED ? 0 : 1, v;

	for (i = s->out_start; i < s->out_end; n++) {
		v = 0;
		if (width) {
			for (b = 0; b < width; b++)
				v |= (u64)s->out[i + b] << (8 * b);
			i += width;
		} else {
			while (s->out[i] != '\n')
				v = 10 * v + (s->out[i++] - '0');
			i++;
		}
		faces[n] = v - base;
	}
	return n;
}

/* Bytes dice_stream_produce() makes for @want when no roll fails. */
static inline size_t stream_target(const struct dice_stream *s, size_t want)
{
	unsigned int width = dice_format_width(s->format);

	if (width)
		want -= want % width;
	if (want > DICE_OUT_BYTES - (width ? 0 : DICE_TEXT_MAX))
		want = DICE_OUT_BYTES - (width ? 0 : DICE_TEXT_MAX);
	return want;
}

struct stream_copy {
	struct dice_stream *s;
	u64 *faces;
	stream_rolled_fn rolled;
	void *ctx;
	size_t room;		/* bytes the copy delivers before it faults */
	size_t target;		/* bytes a produce makes unless a roll fails */
	bool fresh;		/* the step produces: the caller follows it */
};

/* The step's copy: show the caller a fresh produce, deliver up to @room. */
static inline size_t stream_copy(void *ctx, const u8 *bytes, size_t len)
{
	struct stream_copy *c = ctx;
	size_t made;
	unsigned int n;

	(void)bytes;
	if (c->fresh) {
		dice_stream_bytes(c->s, &made);
		n = stream_decode(c->s, c->faces);
		c->rolled(c->ctx, c->faces, n, made < c->target, 0);
		c->fresh = false;
	}
	if (len > c->room)
		len = c->room;
	c->room -= len;
	return len;
}

/*
 * Bytes served, or the error (-EFAULT once @opts->room bytes are
 * delivered); @faces has room for DICE_OUT_BYTES faces.
 */
static inline long stream_read(struct dice_stream *s, size_t len,
			       const struct stream_read_opts *opts,
			       u64 *faces, stream_rolled_fn rolled, void *ctx)
{
	struct stream_copy c = {
		.s = s, .faces = faces, .rolled = rolled, .ctx = ctx,
		.room = opts->room,
	};
	struct dice_read rd = { .len = len, .copy = stream_copy, .ctx = &c };
	unsigned int chunks = 0;
	size_t chunk;
	int err;

	err = dice_stream_read_size(s, &rd.len);
	while (!err && rd.done < rd.len) {
		if (++chunks == opts->fork_at) {
			dice_stream_drop_random(s);
			opts->forked(ctx);
		}
		dice_stream_bytes(s, &chunk);
		c.fresh = !chunk;
		c.target = stream_target(s, rd.len - rd.done);
		err = dice_stream_read_chunk(s, &rd);
		if (c.fresh) {
			/*
			 * The copy never ran: the produce made nothing, or
			 * text whose next line did not fit what the read had
			 * left (the lines wait for the next read).
			 */
			dice_stream_bytes(s, &chunk);
			if (chunk)
				rolled(ctx, faces, stream_decode(s, faces),
				       chunk < c.target, 0);
			else if (err)
				rolled(ctx, faces, 0, true, err);
		}
	}
	return rd.done ? (long)rd.done : err;
}

#endif /* _DICE_STREAM_READ_H */
